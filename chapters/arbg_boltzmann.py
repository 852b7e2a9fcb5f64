import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Autoregressive Boltzmann generators")


@app.cell
def _():
    import marimo as mo

    from icmlbook.papers import arbg_boltzmann as ab
    from icmlbook.papers.arbg_boltzmann import claims, experiments as ex, plots
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, ab, claims, ex, mo, open_chapter, plots


@app.cell
def _(mo):
    mo.md(r"""
    # Autoregressive Boltzmann generators: molecules as sequences of coordinate tokens

    A molecule at temperature $T$ visits conformations $x$ with the Boltzmann probability
    $\mu(x)\propto e^{-u(x)}$, where $u$ is its potential energy in units of $k_BT$. Molecular dynamics
    (MD) samples $\mu$ by simulating the motion, slowly: neighbouring frames are correlated and rare
    basins take long to reach. A **Boltzmann generator** instead draws independent proposals from a
    generative model $q_\theta$ whose density is known exactly, and corrects them by importance
    weights $w=e^{-u}/q_\theta$. Rehman, Tan, Bengio, Bose and Tong [@rehman2026arbg] replace the
    normalising flows that such generators usually use by an **autoregressive transformer over
    discretised Cartesian coordinates**: a molecule of $N$ atoms is written as $3N$ tokens and
    modelled like a sentence, with the exact likelihood coming from one forward pass.

    This chapter builds that generator from the book's language-model lab, trains it on a 2-D
    four-well energy with known answers and on capped alanine dipeptide simulated by our own MD with
    OpenMM [@eastman2024openmm], compares it with a neural spline flow [@durkan2019nsf], and decides
    the paper's claims that can be tested at this scale.
    """)
    return


@app.cell
def findings(ledger, run):
    run.findings(ledger)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The paper at a glance

    | | |
    |---|---|
    | **Paper** | *Autoregressive Boltzmann Generators* (ICML 2026, spotlight) |
    | **Authors** | Danyal Rehman, Charlie B. Tan, Yoshua Bengio, Avishek Joey Bose, Alexander Tong |
    | **arXiv** | [2606.27361](https://arxiv.org/abs/2606.27361) |
    | **Code** | github.com/danyalrehman/autobg (MIT mixed with other licences), read to reconstruct the method |

    The paper's full text and its tables were not reached; what we test comes from its abstract, the
    authors' blog and the official code. The abstract claims that ArBG escapes the topological limits
    of flows, allows sequential interventions at inference time, scales like a language model, beats
    flow-based generators on every benchmark (most on the 10-residue Chignolin), and that a 132M
    transferable model, Robin, cuts the zero-shot energy error on 8-residue peptides by more than 60 %.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    robin_path = None  # a local copy of the Robin checkpoint (never downloaded)
    return profile, robin_path, seed


@app.cell
def _(open_chapter, profile, robin_path, seed):
    run, cfg = open_chapter("arbg_boltzmann", profile, seed, robin_path=robin_path)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}. Toy: {cfg.toy_bins} bins
    per coordinate, {cfg.toy_seeds} seeds of {cfg.toy_steps} updates. Alanine dipeptide: {cfg.adp_frames:,} MD
    frames (half for training), a transformer of width {cfg.adp_width} and {cfg.adp_layers} layers over
    {cfg.adp_bins} bins, {cfg.adp_steps} updates of batch {cfg.adp_batch}, {cfg.n_seeds} seed(s),
    {cfg.proposals:,} proposals at τ = {cfg.temperature:g}, coordinates in the **{cfg.frame}** frame.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Coordinates as tokens

    Each scalar coordinate $x_j$ (standardised) is clamped to a box $[a,b)$ cut into $K$ bins of width
    $\Delta=(b-a)/K$ and becomes the token $k_j=\lfloor (x_j-a)/\Delta\rfloor$. A causal transformer
    reads a beginning-of-sequence token and the tokens so far and outputs a softmax over the $K$ bins of
    the next coordinate. A sampled bin becomes a uniform draw inside it, so the continuous density is

    $$
    \log q_\theta(x)=\sum_{j=1}^{D}\log\pi_\theta(k_j\mid k_{<j})-D\log\Delta ,
    $$

    exact and normalised, computed in one teacher-forced pass. Sampling at temperature $\tau$ divides
    the logits by $\tau$; the log-density used for the weights is the tempered one, recomputed with the
    same $\tau$. The network is the book's small GPT (pre-norm RMSNorm blocks, SwiGLU MLPs, a KV cache
    for sampling) with, added to each input, a fixed sinusoidal position, a learned embedding of the
    coordinate's axis (x, y, z) and of its atom.

    ## Importance weights

    With $M$ proposals and log-weights $\ell_i=-u(x_i)-\log q_\theta(x_i)$, self-normalised importance
    sampling (SNIS) estimates $\mathbb E_\mu f\approx\sum_i \bar w_i f(x_i)$ with
    $\bar w=\mathrm{softmax}(\ell)$, and resampling with these probabilities gives approximately
    Boltzmann-distributed conformations. The Kish effective sample size
    $\mathrm{ESS}=(\sum w)^2/\sum w^2$ (reported divided by $M$) measures how many proposals the weights
    effectively keep. The official code also drops the largest 0.2 % of log-weights; we report both.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## A toy with known answers: four wells in the plane (claims 1–3)

    The target is a mixture of four isotropic Gaussians at $(\pm c,\pm c)$ with weights 0.4, 0.3, 0.2 and
    0.1: separated basins, like a peptide's metastable states, whose expectations are known in closed
    form. Both proposals are trained by maximum likelihood on exact samples with the same data, number
    of updates and batch: the autoregressive model (two tokens) and a neural spline flow.
    """)
    return


@app.cell
def _(cfg, ex, run):
    toy = run.cached("arbg-toy", ex.toy_study, cfg, run.seed)
    return (toy,)


@app.cell
def _(plots, toy):
    plots.toy_figure(toy)
    return


@app.cell
def _(cfg, claims, mo, toy):
    check1 = claims.claim1(toy, cfg)
    check3 = claims.claim3(toy["rows"], cfg)
    check3b = claims.claim3b(toy["rows"], cfg)
    _rows = ["| seed | model | parameters | ESS / M | E-W2 raw (kT) | E-W2 resampled (kT) | basin-mass error raw → reweighted | between the wells | train s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for _r in toy["rows"]:
        _rows.append(f"| {_r['seed']} | {_r['model']} | {_r['params']:,} | {_r['ess']:.3f} | {_r['ew2_raw']:.3g} | "
                     f"{_r['ew2']:.3g} | {_r['mass_err_raw']:.3f} → {_r['mass_err']:.3f} | {_r['between_frac']:.2%} | "
                     f"{_r['train_seconds']:.1f} |")
    _table = "\n".join(_rows)
    _emin = check3.values.get("ess_min", float("nan"))
    _ceiling = (f"On this toy both proposals reach an ESS/M of at least {_emin:.3f} on every seed: the autoregressive "
                f"model can gain at most {1 - _emin:.3f} in ESS/M over the flow here, so the toy tests whether the flow "
                "is clearly worse, and a tie within the seeds' noise is inconclusive, not evidence against the claim."
                if _emin == _emin else "")
    mo.md(f"""
    *Figure: the target and 3,000 proposals of each model (seed 0).*

    {_table}

    {check1.sentence("Claim 1")}

    Rows 3, 3b, 5 and 11 compare trained models, so they first run the convergence guard the contract asks for
    (rule 10, added in session 8): training half as long again must move each compared model's training loss by less
    than a third of {cfg.plateau_margin:.0%} of its whole fall, read back along its logged curve; a model that fails
    makes the row *inconclusive (not converged)*. Each row lists the guard's measurement per model and seed.

    {check3.sentence("Claim 3")}

    {_ceiling}

    {check3b.sentence("Claim 3b")} Claims 3 and 3b are three-way since session 12 (contract rule 9): *not reproduced*
    only when an interval lies wholly on the flow's side, *inconclusive* when the seeds' or the binomial noise
    cannot tell the two apart. Before, a difference within noise read *not reproduced*: the outside audit found
    claim 3 decided on a toy both models solve, and claim 3b flipping between two runs of the same code, its
    bounds touching on a seed; such a run now lands on *inconclusive*.
    """)
    return check1, check3, check3b


@app.cell
def _(mo):
    mo.md(r"""
    ### SNIS error against the number of proposals

    For each temperature, fresh proposals from the seed-0 model estimate four expectations ($\mathbb E x_1$,
    $\mathbb E x_2$, $\mathbb E x_1^2$ and the mass of the first quadrant); the root-mean-square error over
    replicates, in units of each function's standard deviation under $\mu$, is plotted against $M$, with
    the unweighted proposal average as the alternative.
    """)
    return


@app.cell
def _(cfg, claims, mo, plots, toy):
    check2 = claims.claim2(toy["snis"], cfg)
    _alt = claims.claim2(toy["snis"], cfg, raw=True)
    mo.vstack([plots.snis_figure(toy["snis"], check2.values["slopes"]),
               mo.md(f"*Figure: RMSE against M, log-log.* The same rule applied to the unweighted proposal "
                     f"averages gives: {_alt.measured} (verdict: {_alt.verdict}).\n\n{check2.sentence('Claim 2')}")])
    return (check2,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Alanine dipeptide

    **The molecule and its energy.** Capped alanine (ACE-ALA-NME, 22 atoms) is built by our code from
    standard bond lengths, angles and torsions; OpenMM's `Modeller` adds the hydrogens and the structure
    is minimised. The energy is the paper's: amber99sbildn with OBC implicit solvent, no cutoff, no
    constraints, 300 K, in units of $k_BT$. **MD:** our own Langevin run (1 fs, friction 1/ps, one frame
    per picosecond, 8 ns) on OpenMM's Reference platform, committed as a 2 MB file with its checksum and
    the command that regenerates it; alternating 0.5 ns blocks are training and test (reference) data.

    **Frames.** The paper centres each frame, scales it and rotates it at random during training, so
    that the model learns every orientation (the energy does not depend on it). Our main runs use a
    **canonical frame** instead: the alanine CA at the origin, N on the x axis, C in the xy plane.
    The $3N-6=60$ remaining coordinates are the tokens (atoms in breadth-first order over the bonds from
    CA, so that each new atom is bonded to one already placed), and the Jacobian of this change of variables,
    $r_{\mathrm{CA,N}}^2\,\rho_{\mathrm C}$, enters the weights exactly, so SNIS still targets the
    Boltzmann law of the molecule's shape. Why: the paper's representation, trained at our budget, is
    compared with ours at the end of this section.

    **Metrics** (the paper's): E-W2 is the 1-D Wasserstein-2 distance between the reduced energies of
    resampled proposals and of the reference frames; T-W2 is the Wasserstein-2 distance on the torus of
    backbone dihedrals $(\varphi,\psi)$ (exact optimal transport on subsamples); TICA-W2 is the
    Wasserstein-2 distance on the two slowest TICA coordinates (below); ESS as above.

    **TICA** (time-lagged independent component analysis) finds the linear combinations of features that
    decorrelate most slowly along the MD: it solves $C_\tau v=\lambda C_0 v$ with the instantaneous and
    time-lagged covariances of the features (symmetrised), and projects on the leading eigenvectors scaled
    by their eigenvalues (the kinetic map). The features are the reference code's: all distances among
    the carbon and nitrogen atoms and the sine and cosine of $\varphi$, $\psi$ and both peptide-bond
    torsions $\omega$. We fit TICA with `deeptime` [@hoffmann2021deeptime] on the training blocks (lagged
    pairs inside each block), then compare (re)sampled proposals and test frames in those two coordinates
    by exact optimal transport.
    """)
    return


@app.cell
def _(cfg, ex, run):
    adp = run.cached("arbg-adp", ex.adp_study, cfg, run.seed)
    return (adp,)


@app.cell
def _(adp, plots):
    plots.ramachandran_figure(adp)
    return


@app.cell
def _(adp, claims, cfg, mo, plots):
    check4 = claims.claim4(adp["rows"], cfg)
    check5 = claims.claim5(adp["rows"], cfg)
    check8 = claims.claim8(adp["rows"], cfg)
    _rows = ["| seed | model | parameters | ESS / M (clipped) | E-W2 raw → SNIS (clipped) kT | T-W2 raw → SNIS rad | TICA-W2 raw → SNIS | wrong chirality | clashes (non-finite u) | train s | sample s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for _r in adp["rows"]:
        _rows.append(f"| {_r['seed']} | {_r['model']} | {_r['params']:,} | {_r['ess']:.2e} ({_r['ess_clip']:.2e}) | "
                     f"{_r['ew2_raw']:.3g} → {_r['ew2']:.3g} ({_r['ew2_clip']:.3g}) | {_r['tw2_raw']:.3f} → {_r['tw2']:.3f} | "
                     f"{_r['ticaw2_raw']:.3g} → {_r['ticaw2']:.3g} | "
                     f"{1 - _r['symmetry_rate']:.1%} | {_r['nonfinite']} | {_r['train_seconds']:.0f} | {_r['sample_seconds']:.1f} |")
    _table = "\n".join(_rows)
    _tr = {m: [r["train_seconds"] for r in adp["rows"] if r["model"] == m] for m in ("ArBG", "NSF")}
    _cost = ("" if not (_tr["ArBG"] and _tr["NSF"]) else
             f"The two models get the same updates and batch, not the same compute: the flow trained "
             f"{sum(_tr['ArBG']) / max(sum(_tr['NSF']), 1e-9):.1f}× faster in wall time here (table). We keep equal "
             "updates rather than equal time because the convergence guard reads each model's own training curve: "
             "a flow that needed more of its cheaper updates fails its plateau test and makes claim 5 "
             "inconclusive (not converged), so the shorter training cannot turn into a win for the autoregressive "
             "model on an under-trained flow.")
    mo.vstack([plots.energy_figure(adp), mo.md(f"""
    *Figures: Ramachandran histograms (φ, ψ) of the reference MD, of the ArBG proposals before and after
    reweighting and of the reweighted NSF (seed 0); reduced-energy histograms.*

    {_table}

    {check4.sentence("Claim 4")}

    {check5.sentence("Claim 5")} {_cost}

    {check8.sentence("Claim 8")} Since the contract's second edition the row also reads the coupling flow trained on the
    same frames: when it too stays within {cfg.chirality_max_wrong:.0%} wrong handedness on every seed, the frame, not
    the autoregressive model, fixes handedness and the row is not testable here{": " + check8.reason if check8.reason else ""}.
    """)])
    return check4, check5, check8


@app.cell
def _(adp, mo, plots):
    _t = adp["tica"]
    _ts = _t["timescales"]
    _pl = _t["paper_lag_eigenvalues"]
    _paper = ("" if _pl is None else
              f" At the reference code's lag of {_t['paper_lag']} frames ({_t['paper_lag']} ps here) the two leading "
              f"eigenvalues would be {_pl[0]:.3f} and {_pl[1]:.3f}, which is why the lag is shorter here.")
    mo.vstack([plots.tica_figure(adp), mo.md(f"""
    *Figure: the test MD, ArBG's raw and reweighted proposals and the reweighted NSF (seed 0) on the two slowest TICA coordinates.*
    TICA was fitted on {_t['n_pairs']:,} lagged pairs of {_t['n_features']} features at a lag of {_t['lag']} ps
    (MD frames of 1 ps); its eigenvalues {_t['eigenvalues'][0]:.3f} and {_t['eigenvalues'][1]:.3f} correspond to
    implied timescales of {_ts[0]:.1f} and {_ts[1]:.1f} ps.{_paper}
    """)])
    return


@app.cell
def _(adp, mo):
    _e = adp["energy_timing"]
    mo.md(f"""
    **Energies through one OpenMM Context.** The {adp['energy_evaluations']:,} energies of the main study went
    through a single Context. Measured in this run: {1e6 * _e['evaluation_s']:.0f} µs per frame through one
    Reference Context, {1e6 * _e['context_s']:.0f} µs to create a Context, so a new Context per frame would be about
    {_e['ratio']:.1f}× slower for this {_e['n_atoms']}-atom molecule. The issue asked for one Context to be at least
    20× faster than a new Context per frame; at this size the measured factor is {"below" if _e['ratio'] < 20 else "above"}
    that target (the chapter's benchmark also times rebuilding the OpenMM System for every frame).
    """)
    return


@app.cell
def _(adp, cfg, mo, plots):
    _r = next(r for r in adp["rows"] if r["model"] == "ArBG" and r["seed"] == 0)
    _gap = _r["ce_test"] - _r["ce_train"]
    _why = ("the loss was still falling when training stopped and the held-out gap is small, so the model is limited by "
            "its training budget more than by overfitting" if _r["loss_last_quarter"] > 0.01 and _gap < 0.1 else
            "the loss had flattened or the held-out gap is large, so more updates alone would not obviously help")
    mo.vstack([plots.loss_figure(adp), mo.md(f"""
    *Figure: ArBG's training loss (seed 0).* After {cfg.adp_steps} updates of batch {cfg.adp_batch} the
    cross-entropy is {_r['ce_train']:.3f} nats per token on training frames and {_r['ce_test']:.3f} on held-out
    frames (gap {_gap:+.3f}); it fell by {_r['loss_last_quarter']:.3f} over the last quarter of the updates: {_why}.
    With {_r['n']:,} proposals the weights keep {_r['ess'] * _r['n']:.1f} effective samples.
    """)])
    return


@app.cell
def _(cfg, ex, run):
    ablation = run.cached("arbg-frame-ablation", ex.frame_ablation, cfg, run.seed) if cfg.frame_ablation else None
    return (ablation,)


@app.cell
def _(ablation, adp, mo, run):
    import numpy as _np

    _c = next(r for r in adp["rows"] if r["model"] == "ArBG" and r["seed"] == 0)
    _a = ablation
    mo.md(f"""
    **The paper's frames at our budget.** Profile **{run.profile}** leaves out the ArBG trained on the paper's centred,
    randomly rotated frames (a second training of the same size; no claim row reads it); the `default` and `full`
    profiles compare it here with the canonical frame.
    """) if _a is None else mo.md(f"""
    **The paper's frames at our budget.** The same transformer trained for the same updates on centred,
    randomly rotated frames (the paper's representation) against the canonical frame (seed 0):
    wrong chirality {1 - _a['symmetry_rate']:.1%} against {1 - _c['symmetry_rate']:.1%}; median reduced energy of
    the raw proposals {_a['u_raw_median']:.3g} kT against {_c['u_raw_median']:.3g} kT (reference MD:
    {float(_np.median(adp['ref_u'])):.3g} kT); T-W2 of the raw proposals {_a['tw2_raw']:.3f}
    against {_c['tw2_raw']:.3f} rad; ESS/M {_a['ess']:.2e} against {_c['ess']:.2e}; final cross-entropy
    {_a['final_loss']:.2f} against {_c['final_loss']:.2f} nats per token.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Sampling temperature (claim 6) and plain MD at the same cost (claim 11)

    The seed-0 model draws new proposals at each temperature; each set is reweighted with its own
    tempered log-density. MD at the same cost: $M$ energy evaluations buy $M$ steps of 1 fs. We run
    independent Langevin trajectories of $M$ steps from the minimised structure (fresh velocities each,
    burn-in included, as a user of MD would pay it), record the energy every 10 steps, and compare those
    energies with the reference like the generator's.
    """)
    return


@app.cell
def _(adp, cfg, claims, mo, plots):
    check6 = claims.claim6(adp["temps"], cfg)
    check11 = claims.claim11(adp["rows"], adp["md"], cfg)
    mo.vstack([plots.temperature_figure(adp["temps"]),
               mo.md(f"*Figure: E-W2 and ESS against the sampling temperature.*\n\n{check6.sentence('Claim 6')}\n\n"
                     f"{check11.sentence('Claim 11')}")])
    return check11, check6


@app.cell
def _(mo):
    mo.md(r"""
    ### Resolution: the number of bins (claim 7)

    Rounding a coordinate to its bin centre moves it by up to $\Delta/2$; bonds are stiff (a 0.05 Å
    stretch of a C–H bond costs about one $k_BT$), so coarse bins should show in bond lengths and
    energies. For each $K$ we report the error of rounding the test frames alone, and a model trained
    as long as the main runs (the seed-0 model where K is the main bin count): its proposals' mean
    bond-length error and E-W2.
    """)
    return


@app.cell
def _(adp, cfg, claims, mo, plots):
    bins = adp["bins"]
    check7 = claims.claim7(bins["rows"], cfg)
    mo.vstack([plots.bins_figure(bins["rows"]), mo.md(f"*Figure: bond-length errors and E-W2 against K.*\n\n"
                                                      f"{check7.sentence('Claim 7')}")])
    return (check7,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Early rejection: autoregressive twisted SMC (our reconstruction; claim 9)

    Because a molecule is generated atom by atom, a partial molecule can be judged before it is finished.
    The blog and README describe *autoregressive twisted SMC*; the released code does not contain it, so
    this is our reconstruction. Particles are generated together; after each completed atom a twist
    $\psi_t=e^{-\lambda c_t}$ scores the clashes among the atoms placed so far ($c_t$: squared overlaps
    below 1.8 Å of pairs three or more bonds apart), the weights are multiplied by $\psi_t/\psi_{t-1}$, and
    the particles are resampled when their effective sample size falls below half. The last step
    divides the twist out and multiplies in $e^{-u}/q$, so the target is still the Boltzmann law.
    """)
    return


@app.cell
def _(adp, cfg, claims, mo):
    check9 = claims.claim9(adp["smc"], cfg)
    _rows = ["| method | clashing final particles | ESS / M | E-W2 (kT) | T-W2 (rad) | resampling events | lineages | s |",
             "|---|---|---|---|---|---|---|---|"]
    for _r in (adp["smc"] or {"rows": []})["rows"]:
        _rows.append(f"| {_r['method']} | {_r['clash_frac']:.1%} | {_r['ess']:.2e} | {_r['ew2']:.3g} | {_r['tw2']:.3f} | "
                     f"{_r.get('resampling_events', '—')} | {_r.get('lineages', '—')} | {_r['seconds']:.1f} |")
    _table = "\n".join(_rows)
    _bias = (adp["smc"] or {}).get("bias")
    _note = ("The interval on twisted SMC − plain SNIS was not computed: it is taken only when both final weightings "
             f"keep {cfg.ess_min:g} effective samples and twisted SMC keeps {cfg.ess_min:g} lineages."
             if _bias is None else
             f"Bootstrap over {_bias['clusters']['twisted SMC']} lineages ({_bias['n_boot']} replicates): E-W2 "
             f"difference {_bias['ew2']['mean']:+.3g} kT (95 % upper bound {_bias['ew2']['hi']:+.3g}), T-W2 "
             f"{_bias['tw2']['mean']:+.3f} rad ({_bias['tw2']['hi']:+.3f}).")
    mo.md(f"""
    {_table}

    A *lineage* is a particle of the first generation with descendants among the final particles: resampling
    copies particles and resets their weights, so the final ESS can look healthy while every particle shares
    the prefix of a few ancestors. {_note}

    {check9.sentence("Claim 9")}
    """)
    return (check9,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Larger peptides and Robin (the `full` profile)

    The paper also samples tri-alanine and hexa-alanine (free, charged termini; amber14 with OBC1 implicit
    solvent at 310 K). Our code builds them the way it builds the dipeptide (internal coordinates, then
    OpenMM's hydrogens and a minimisation), simulates them with our own Langevin MD and trains ArBG and the
    flow on them with the dipeptide's sizes. That study is part of the `full` profile, meant for a GPU.
    Robin, the paper's transferable model, is only read from a local checkpoint given as `robin_path`.
    """)
    return


@app.cell
def _(cfg, ex, run):
    peptides = run.cached("arbg-peptides", ex.peptide_study, cfg, run.seed)
    robin = ex.robin_checkpoint(cfg.robin_path)
    return peptides, robin


@app.cell
def _(ab, mo, peptides, robin, run):
    if peptides["rows"]:
        _rows = ["| peptide | model | atoms | MD (ns) | ESS / M | E-W2 raw → SNIS (kT) | T-W2 raw → SNIS (rad) | TICA-W2 raw → SNIS | all stereocentres right |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for _r in peptides["rows"]:
            _rows.append(f"| {_r['peptide']} | {_r['model']} | {_r['atoms']} | {_r['md_ns']:.1f} | {_r['ess']:.2e} | "
                         f"{_r['ew2_raw']:.3g} → {_r['ew2']:.3g} | {_r['tw2_raw']:.3f} → {_r['tw2']:.3f} | "
                         f"{_r['ticaw2_raw']:.3g} → {_r['ticaw2']:.3g} | {_r['all_centres_right']:.1%} |")
        _pep = "\n".join(_rows)
    else:
        _pep = (f"Profile **{run.profile}** runs no larger peptide; the `full` profile runs "
                f"{', '.join(ab.config_for('full').peptides)}.")
    _robin = ("No local Robin checkpoint was given (`robin_path`), and the book never downloads one." if robin is None else
              f"Robin checkpoint `{robin['file']}`: {robin['parameters']:,} parameters (the paper: 132 million). "
              "Running it needs the authors' architecture, which this book does not carry, so claim C10 stays untested.")
    mo.md(f"""
    {_pep}

    {_robin}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Reweight the seed-0 ArBG model's proposals live: the sampling temperature, the number of proposals
    and the clipping fraction. On the website the controls show the values this page was built with;
    open the chapter in marimo to change them.
    """)
    return


@app.cell
def _(mo):
    tau_slider = mo.ui.slider(steps=[0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2], value=1.0, label="temperature τ")
    m_slider = mo.ui.slider(steps=[200, 500, 1000, 2000, 5000], value=1000, label="proposals M")
    clip_slider = mo.ui.slider(steps=[0.0, 0.001, 0.002, 0.01, 0.05], value=0.002, label="clipped fraction")
    mo.hstack([tau_slider, m_slider, clip_slider])
    return clip_slider, m_slider, tau_slider


@app.cell
def _(adp, cfg, clip_slider, ex, m_slider, mo, tau_slider):
    _res = ex.playground(adp, cfg, tau_slider.value, m_slider.value, clip_slider.value)
    mo.md(f"τ = {tau_slider.value:g}, M = {m_slider.value}, clipped {clip_slider.value:.1%}: ESS/M = {_res['ess']:.2e}, "
          f"E-W2 after SNIS = {_res['ew2']:.3g} kT, T-W2 = {_res['tw2']:.3f} rad, {_res['clipped']} proposals clipped, "
          f"{_res['nonfinite']} clashes.")
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers, with the alternative it
    rejects. The paper column holds the abstract's or blog's words; the paper's tables were not reached.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check11,
    check2,
    check3,
    check3b,
    check4,
    check5,
    check6,
    check7,
    check8,
    check9,
    run,
):
    ledger = ClaimsLedger("arbg_boltzmann", run.profile)
    ledger.add_checks(check1, check2, check3, check3b, check4, check5, check6, check7, check8, check9, check11)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(ab, cfg, check11, check3, check3b, check4, check5, check6, check7, check9, claims, mo):
    _need = claims.full_needs({"C3": check3, "C3b": check3b, "C4": check4, "C5": check5, "C6": check6, "C7": check7,
                               "C9": check9, "C11": check11}, cfg, ab.config_for("full"))
    mo.md(_need or "No row is inconclusive at this profile.")
    return


@app.cell
def _(cfg, mo, run):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we read.** The paper's text and tables were not reached; the method follows the official
      code as read for the dossier (read, not copied), the claims the abstract and the blog.
    - **One small molecule, a small model, nanoseconds of MD.** Alanine dipeptide only below the `full`
      profile (tri- and hexa-alanine, built and simulated by our code, run in `full` only; no Chignolin,
      whose MD data we do not have; Robin only read from a local checkpoint, never run); a transformer of width {cfg.adp_width} × {cfg.adp_layers}
      layers over {cfg.adp_bins:,} bins (profile {run.profile}; parameter counts in the tables) trained for
      {cfg.adp_steps:,} updates on a CPU, instead of width 256 × 8 layers over 4,096 bins for
      1,000 epochs; 8 ns of our own MD instead of the paper's data sets; {cfg.proposals:,} proposals instead
      of 200,000. The `full` profile moves towards the paper's sizes but has not been run on a GPU.
    - **Canonical frame instead of rotation augmentation** (main runs): the paper models centred,
      randomly rotated frames; we model the 60 free coordinates of a frame fixed by three atoms, with the
      exact Jacobian in the weights. The paper's representation is in the library (`frame="augmented"`).
    - **Flow baseline.** A zuko neural spline flow (rational-quadratic splines; on the dipeptide
      {"coupling layers: half the coordinates condition the other half, two passes" if cfg.flow_passes == 2 else
       "masked autoregressive layers, one pass per coordinate" if cfg.flow_passes is None else
       "coupling layers of " + str(cfg.flow_passes) + " passes"}; on the 2-D toy its two coordinates make it autoregressive and
      coupling at once) on the same coordinates, trained with the same data, updates and batch, instead of the
      paper's ECNF++ and TarFlow/SBG baselines; no continuous-time flow is built, so the abstract's "expensive
      likelihoods" of flows is the not-testable row P2. Parameter counts are in the tables.
    - **Reconstructed:** autoregressive twisted SMC, described only in the blog and README: our twist (a
      steric-clash score on the placed atoms), resampling rule and final correction.
    - **TICA-W2** is fitted on our training MD (the reference code fits TICA on the test trajectory, with
      Koopman reweighting) at a lag of 10 ps instead of 100 frames (see the TICA figure), with the reference
      code's features. Claim 5's rule asks for TICA-W2 as well since this metric was added (after the first
      default run, which already failed the rule on E-W2 and T-W2): a stricter rule, never a looser one.
    - **Not built:** the μ-law binning and the Muon optimiser (AdamW with warm-up and cosine decay here).
    - **Thresholds** ({cfg.norm_tol:g} on the normalisation, a slope of {cfg.snis_slope_hi:g},
      {cfg.chirality_max_wrong:.0%} wrong chirality, {cfg.tau_window:g} around τ = 1, {cfg.ess_min:g} effective samples) are ours, fixed in the config before the runs.
    - **Rules made stricter after a rule-breaking review** (of the runs at commit a8cdca2, never looser):
      every rule that compares metrics after reweighting (claims 4–7, 9, 11) now needs {cfg.ess_min:g} effective
      samples (ESS·M) behind them, since those runs' weights sat on one proposal, and is undecided (or
      fails, where the claim is that reweighting works) below that; claims 3 and 5 decide on one-sided
      95 % intervals over seeds instead of signs, claim 3b on binomial bounds; claim 6 needs an interior
      best temperature in a sweep wider than its window (smoke's sweep widened to 0.9–1.1); claim 7 a
      margin of two standard errors; claim 9 asks that the twist acted (a resampling event, clash
      fractions apart beyond binomial noise) and that E-W2 and T-W2 are no worse; claim 11's MD is now run from the minimised structure (its windows were slices of
      the reference set itself).
    - **Claim 9 made stricter again after a second review** (of the rules at commit 67dd53f): its ESS floor read
      the final weights, which resampling resets, so two surviving lineages behind healthy final weights
      passed; twisted SMC must now also keep {cfg.ess_min:g} lineages (distinct first-generation ancestors). Its "no
      bias" half was a point comparison of one run each (19.9 against 20.0 kT passed); the bootstrap 95 %
      upper bound of each difference twisted − plain (whole lineages resampled) must now also stay below
      {cfg.smc_bias_margin:.0%} of plain SNIS's value. Where the final weights collapse, claim 9 is undecided and the interval
      is not computed (the table above says which); the interval's code is tested on constructed particle
      sets.
    - **One t-interval for the book:** claims 3 and 5 take their intervals from the book's shared statistics
      (`icmlbook.runtime.stats.effect_bound`) instead of a private formula; the smoke ledger's numbers are
      identical before and after.
    - **Claim 9, a second pass (session 5):** a collapse of the final weights leaves the row undecided
      only when plain SNIS's weights collapse; when only twisted SMC's do, the twist itself degenerated
      the weights and the row fails (before, both cases were undecided). Stricter only; claim 9's row
      on this page says which case applies.
    - **A second rule-breaking pass (session 6; rules changed after the runs at commit 51327ed, stricter
      only):** claim 6 passed a temperature that does not matter (E-W2 flat within its noise, its minimum
      inside the sweep by chance: 3 times in 5); both ends of the sweep must now be worse than the best
      temperature beyond the bootstrap 95 % bound ({cfg.temp_boot} replicates, proposals resampled). Claim 11
      compared seed 0 alone with the MD runs' median, which a generator as accurate as MD passes half the
      time; every seed now enters a one-sided Mann–Whitney test against the MD runs (p < 0.05; undecided
      where so few runs cannot reach it). Claim 9's binomial bound on twisted SMC's clash fraction counted
      particles, which share their lineage's prefix; it counts lineages now. The inputs that broke the
      three rules are tests that must fail (`tests/test_arbg_boltzmann.py`).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - D. Rehman, C. B. Tan, Y. Bengio, A. J. Bose, A. Tong. *Autoregressive Boltzmann Generators.* ICML 2026 [@rehman2026arbg].
    - F. Noé, S. Olsson, J. Köhler, H. Wu. *Boltzmann generators: sampling equilibrium states of many-body systems with deep learning.* Science 2019 [@noe2019boltzmann].
    - C. Durkan, A. Bekasov, I. Murray, G. Papamakarios. *Neural spline flows.* NeurIPS 2019 [@durkan2019nsf].
    - M. Hoffmann et al. *Deeptime: a Python library for machine learning dynamical models from time series data.* Mach. Learn.: Sci. Technol. 2021 [@hoffmann2021deeptime].
    - P. Eastman et al. *OpenMM 8: molecular dynamics simulation with machine learning potentials.* J. Phys. Chem. B 2024 [@eastman2024openmm].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
