import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Hodgkin-Huxley parameters from extracellular MEA data")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import hh_mea_inference as hh
    from icmlbook.papers.hh_mea_inference import claims, experiments as ex, plots
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, claims, ex, hh, mo, np, open_chapter, plots


@app.cell
def _(mo):
    mo.md(r"""
    # Biophysical models from extracellular array data, to predict electrical stimulation

    A retinal implant stimulates ganglion cells through an array of electrodes; to make a cell fire, and only
    that cell, one must know which currents on which electrodes activate it. Measuring this for every cell and
    every multi-electrode pattern takes hours. A multi-compartment Hodgkin–Huxley (HH) model of each cell, with
    its position relative to the array and its channel densities, could predict the response to any pattern,
    but such models are normally fitted to intracellular recordings. The paper [@hhmea2026] fits them from the
    extracellular **electrical image** (EI) alone: the spike-triggered average voltage on every electrode,
    summarised by designed features, inverted by simulation-based inference on a differentiable simulator
    [@deistler2025jaxley; @goncalves2020sbi], and then used to predict responses to held-out multi-electrode
    patterns (90.4 % accuracy on macaque retina).

    Only the abstract of the paper could be read. This chapter rebuilds the pipeline from it and from the
    literature, runs it end to end on **synthetic cells** (the retina recordings are not available), and
    decides each claim of the abstract on those cells.
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
    | **Paper** | *Learning Biophysical Models of Large-Scale Multineuronal Data To Enable Precise Neurostimulation* |
    | **Authors** | not listed on the page reached (the setting is that of the Stanford artificial-retina group) |
    | **Venue** | ICML 2026 (poster) |
    | **arXiv** | not found |
    | **Code** | none released; a public unlicensed precursor repository was read for orientation only |

    What the abstract claims: HH parameters are inferred *rapidly* from *designed features* of MEA recordings by
    combining *differentiable simulation* and *simulation-based inference*; the fitted models predict responses
    to previously unseen multi-electrode stimulation patterns with 90.4 % accuracy from a few minutes of
    recording, on hundreds of hours of macaque-retina data from a 30 µm-pitch 512-electrode array.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(ex, open_chapter, profile, seed):
    run, cfg = open_chapter("hh_mea_inference", profile, seed)
    model = ex.build_model(cfg)
    return cfg, model, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {len(cfg.free)} free parameters
    ({", ".join(cfg.free)}), a hexagonal array of {cfg.n_electrodes} electrodes at 30 µm pitch, a cell of
    {1 + cfg.n_ais + cfg.n_axon} compartments, steps of {cfg.dt * 1000:g} µs, {cfg.n_sims:,} prior simulations for
    NPE, {cfg.n_test} test cells with {cfg.n_patterns} held-out multi-electrode patterns each at {cfg.n_amplitudes}
    amplitudes, {cfg.n_trials} trials per condition.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The cell and the cable equation

    Each cell is a soma, an initial segment with a high sodium density, and a straight axon running parallel to
    the array (axons of retinal ganglion cells run over the array towards the optic disc). With compartments
    $i$ of length $\ell_i$, radius $a_i$ and area $A_i=2\pi a_i\ell_i$,

    $$C_m\frac{dV_i}{dt}=-I^{\rm ion}_i+\frac{1}{A_i}\sum_{j\sim i}g_{ij}(V_j-V_i)+\frac{I^{\rm ext}_i}{A_i},\qquad
    g_{ij}^{-1}=\frac{R_a}{2}\Big(\frac{\ell_i}{\pi a_i^2}+\frac{\ell_j}{\pi a_j^2}\Big),$$

    with a Hodgkin–Huxley membrane $I^{\rm ion}=\bar g_{Na}m^3h(V-E_{Na})+\bar g_Kn^4(V-E_K)+g_L(V-E_L)$ whose rate
    functions are those of mammalian ganglion-cell models (reconstructed from the literature; the leak reversal is
    chosen so that every cell rests at −65 mV). The simulator is Jaxley [@deistler2025jaxley]: implicit Euler
    with a tridiagonal solve, differentiable in JAX, and batched over parameter sets with `vmap`. A brief current
    pulse at the soma starts one spike:
    """)
    return


@app.cell
def _(model, plots):
    plots.cable_figure(model, model.prior.mean)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the membrane potential along the axon over time after a somatic pulse (left) and at three
    sites (right), for the cell at the prior mean.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## How an electrical image forms

    The membrane currents follow from the voltages by current balance, $I^m_i=\sum_j g_{ij}(V_j-V_i)+I^{\rm inj}_i$
    (what enters a compartment must leave through its membrane), and in a homogeneous medium of resistivity
    $\rho_e$ each compartment is a current source:

    $$\phi_e(t)=\frac{\rho_e}{4\pi}\sum_i\frac{I^m_i(t)}{\lVert r_e-r_i\rVert}.$$

    Sampled at 20 kHz and averaged over $N$ spikes (noise $\sigma_1/\sqrt N$ per sample), this is the EI. The
    soma and initial segment give a large triphasic waveform on the nearest electrodes; the axon a small one
    that moves across the array at the conduction velocity.
    """)
    return


@app.cell
def _(cfg, ex, run):
    study = run.cached("hhmea-study", ex.run_study, cfg, run.seed)
    return (study,)


@app.cell
def _(model, plots, study):
    plots.ei_figure(model.electrodes, study.test_ei[0], model.full(study.test_theta[0]), model.layout,
                    title_prefix=f"Test cell 0, N = {study.n_spikes} spikes")
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the electrical image of the first test cell: each electrode's averaged waveform drawn at its
    position on the array, with the true soma and axon.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Designed features

    Per electrode, six numbers, all smooth functions of the waveform so that gradients flow through them: the
    sodium trough, the capacitive peak before it and the potassium peak after it (soft minima and maxima, a
    softmax at temperature $10/\max_t|\phi_e|$), the two phase-to-phase widths, and the soft arrival time of the
    trough relative to the image's amplitude-weighted centre, which carries the axon's path and speed.
    Amplitudes enter as $\operatorname{asinh}(a/1\,\mu V)$, times in tenths of a millisecond.
    """)
    return


@app.cell
def _(plots, study):
    plots.features_figure(study.test_ei_clean[0])
    return


@app.cell
def _(mo, plots, study):
    _m = plots.feature_marks(study.test_ei_clean[0])
    _cap_note = ("" if abs(_m["cap"] - _m["cap_hard"]) <= 0.1 * abs(_m["trough"]) else
                 "; here the soft capacitive peak is far from any sample before the trough, which comes at sample "
                 f"{_m['trough_index']} of the window: with so little before it, the soft mask lets the later, "
                 "positive potassium phase into that feature")
    mo.md(f"""
    *Figure: the designed features read off test cell 0's noise-free image.* Left: the waveform (φ, µV) on
    electrode {_m['electrode']}, the one with the largest trough, against time (ms, 0.05 ms samples); the three
    horizontal lines are the soft values the features take: the sodium trough at {_m['trough']:.1f} µV (the lowest
    sample: {_m['trough_hard']:.1f} µV at {_m['t_trough']:.2f} ms), the capacitive peak before it at
    {_m['cap']:.1f} µV (the largest sample before the trough: {_m['cap_hard']:.1f} µV) and the potassium peak after
    it at {_m['k']:.1f} µV (largest sample after: {_m['k_hard']:.1f} µV). Soft extrema are softmax-weighted averages,
    so that gradients flow through them{_cap_note}. Right: the soft arrival delay (µs) of the trough
    on the eight electrodes with the largest troughs, relative to the image's amplitude-weighted centre; they span
    {_m['delay_span']:.0f} µs, and how they change across the array is what carries the axon's path and speed.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Inference: NPE, its calibration and what is identifiable (claims 1, 1c, 1d and 2)

    Neural posterior estimation [@papamakarios2016fast; @goncalves2020sbi] trains a normalizing flow
    $q_\psi(\theta\mid x)$ on prior simulations, with $x$ the features of a noisy EI and $\log_{10}N$ (the training
    simulations draw $N$ log-uniformly, so one network serves every recording length). On fresh prior cells we
    check simulation-based calibration [@talts2018sbc] (the rank of the true value among posterior samples is
    uniform for a calibrated posterior) and the posterior mean's error per parameter. A posterior that is too
    wide crowds the ranks in the middle, which a histogram test on few cells hardly sees and the 90 % coverage
    (at most 1.0, within 0.1 of 0.9) cannot see at all; so the spread of the ranks (their variance, 1/12 when
    calibrated) is tested too, and when the SBC cells are too few for that test to catch a posterior 1.5 times
    too wide, the calibration row says so instead of passing. The 90 % coverage is a count over the SBC cells, so
    it is read with its exact interval: a coverage below 0.8 whose interval still reaches 0.8 leaves the row
    undecided, since a calibrated posterior falls there by chance (in an outside review's simulation in session 10,
    6 of 60 calibrated five-parameter posteriors on 40 cells; the row had said "not reproduced" on the point
    value). Both rank tests test exact calibration, which no finite network meets; since session 11 (an outside
    review found a posterior only 1.15 times too wide, inside the coverage tolerance, called "not reproduced" 16
    times in 40 on 100 cells) a rank test's rejection counts against the claim only when the ranks are also
    improbable for a Gaussian posterior 1.25 times too wide or 1/1.25 too narrow (`sbc_width_tol` in the
    config); a rejection inside that tolerance leaves the row undecided. The price is power: this test shows a
    posterior 1.5 times too wide to lie beyond the tolerance about 1 time in 6 on `default`'s 100 SBC cells, so
    there a calibrated posterior reads inconclusive (noise above effect), and the row is decided both ways only
    with about 300 SBC cells or more (`full` has 500; the power is printed in the row). As a control, the same
    NPE is trained on a
    Gaussian random projection of the raw (z-scored) EI to the same dimension.

    Whether a parameter is identifiable from the features is a property of the features, not of one estimator.
    An audit found a plain ridge regression on the same designed features recovering the cell's height with about
    half NPE's error (our NPE has no embedding network and a short training), so claim 1 also fits a ridge
    regression (penalty by leave-one-out cross-validation) on the same simulations: a parameter counts as
    recovered when either estimator is within the threshold, and a miss counts against the claim only where NPE is
    not significantly worse than the ridge regression; where it is, the row says the estimator, not the features,
    failed (inconclusive). The ridge regression's cell is also scored on the stimulation patterns below (claim 4).
    Each error carries a 95 % bootstrap interval over the cells, and the threshold is decided on it: recovered
    when the interval lies below, missed when it lies above, undecided (inconclusive) when it contains the
    threshold (changed in session 9; a point error was compared with the threshold before).
    """)
    return


@app.cell
def _(cfg, claims, mo, study):
    _guard = [claims.npe_plateau(study, cfg, _w) for _w in ("designed", "random")]
    mo.md("**The NPEs' convergence guard** (issue 35, session 12). Every row that reads an NPE's posterior (claims 1, "
          "1c, 1d, 2, 3, 3b, 4, 5 and 6; claim 2 reads both) first reads that NPE's held-out loss, sbi's mean −log q(θ | x) "
          "on the simulations it holds out, taken as the best so far (sbi keeps the best network), at the last epoch "
          f"against two thirds of the epochs: it must move by less than a third of `npe_loss_margin` "
          f"({cfg.npe_loss_margin:g} nats), the fits' plateau test on the NPE. Since the held-out −log q is the expected "
          "KL divergence from the true posterior plus a constant, that tolerance is below the divergence of a posterior "
          f"{cfg.sbc_width_tol:g} times too wide in one parameter. An NPE that fails makes those rows inconclusive (not "
          "converged), whatever they would decide; the ridge regression of claims 1 and 4 stays as a further check. "
          f"Here ({cfg.max_epochs} epochs at most, {cfg.n_sims} simulations):\n\n" + "\n".join(f"- {_c.text}" for _c in _guard))
    return


@app.cell
def _(cfg, claims, mo, plots, study):
    check1 = claims.claim1(study, cfg)
    check1c = claims.claim1c(study, cfg)
    check1d = claims.claim1d(study, cfg)
    check2 = claims.claim2(study, cfg)
    mo.vstack([plots.calibration_figure(study),
               mo.md(f"*Figure: SBC rank histograms (dashed: uniform) and RMSE of the posterior mean relative to the "
                     f"prior range (dashed: the prior mean's).* NPE trained {study.npe_epochs['designed']} epochs in "
                     f"{study.npe_seconds['designed']:.0f} s.\n\n{check1.sentence('Claim 1')}\n\n"
                     f"{check1c.sentence('Claim 1c (calibration)')} Calibration alone shows nothing learned: the prior "
                     f"itself is calibrated by construction. Whether the posterior is narrower than the prior is claim "
                     f"1d, its own row since session 13 (claim 1c decided both until then, so its 'inconclusive' did "
                     f"not say which half was open): the mean contraction at least {cfg.min_contraction:g} (here "
                     f"{check1d.values['contraction_mean']:.2f}; since the contract's second edition) and, since "
                     f"session 12, every parameter informative on its own (contraction at least "
                     f"{cfg.min_param_contraction:g} on its interval over the SBC cells): on the mean alone, an "
                     f"outside review found a posterior that is the prior on six of nine parameters passing. Prior-like "
                     f"here: {', '.join(check1d.values['prior_like']) or 'none'}; of these, recovered by the ridge "
                     f"regression on the same features (our NPE's miss, not counted against the claim): "
                     f"{', '.join(check1d.values['prior_like_ridge_identifies']) or 'none'}. A prior-like parameter's "
                     f"calibration is the prior's, and says nothing about the network.\n\n"
                     f"{check1d.sentence('Claim 1d (informativeness)')}\n\n{check2.sentence('Claim 2')}")])
    return check1, check1c, check1d, check2


@app.cell
def _(plots, study):
    plots.pair_figure(study, 0)
    return


@app.cell
def _(mo, np, plots, study):
    _pairs = plots.default_pairs(study.names)
    _idx = [study.names.index(n) for n in dict.fromkeys(n for pr in _pairs for n in pr)]
    _sd = np.asarray(study.npe_samples[0]).std(0) / ((np.asarray(study.high) - np.asarray(study.low)) / np.sqrt(12))
    _prior_err = float(np.sqrt((((0.5 * (np.asarray(study.low) + np.asarray(study.high)) - study.test_theta[0])
                                 / (np.asarray(study.high) - np.asarray(study.low))) ** 2).mean()))
    mo.md(f"""
    *Figure: test cell 0's posterior, three pairs of parameters ({", ".join(f"{a} against {b}" for a, b in _pairs)}),
    each panel spanning the prior box in the parameter's own unit.* Small dots: {study.npe_samples.shape[1]} NPE
    samples; triangles: the {study.refined.shape[1]} samples after gradient refinement (next section); star: the
    true value. A cloud much narrower than its box marks a parameter the image pins down, a cloud filling it one
    the image leaves open: the samples' spread relative to the prior's here is
    {", ".join(f"{study.names[i]} {_sd[i]:.2f}" for i in _idx)} (1 = as wide as the prior). The posterior mean misses
    the truth by {plots.posterior_mean_error(study, 0):.3f} of the prior range (root mean square over the
    parameters), the prior's mean by {_prior_err:.3f}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Gradient refinement through the simulator (claim 3)

    Because the simulator and the features are differentiable, a posterior sample can be refined by gradient
    descent on the feature loss $L(\theta)=\sum w\,(f(\theta)-f_{\rm obs})^2/s^2$ (Adam on the logit of $\theta$ in the
    prior box). The same optimiser from random prior draws, with the same number of starts and steps, is the
    gradient-only baseline. Refinement is compared with NPE's own estimate, its posterior mean over many
    samples, and with the mean of the same few samples before refinement. "Random starts get stuck" (claim 3b)
    can only be told from "random starts have not finished" when both sets of fits have converged: each must pass
    a plateau test on its loss curve (the mean log best loss moves by less than a third of the rule's minimum
    effect over the last third of the steps), otherwise the row is inconclusive.
    """)
    return


@app.cell
def _(cfg, claims, mo, plots, study):
    check3 = claims.claim3(study, cfg)
    check3b = claims.claim3b(study, cfg)
    mo.vstack([plots.refinement_figure(study),
               mo.md(f"*Figure: feature loss along the refinement, and per-cell parameter error of each estimate.*\n\n"
                     f"{check3.sentence('Claim 3')}\n\n{check3b.sentence('Claim 3b')}")])
    return check3, check3b


@app.cell
def _(mo):
    mo.md(r"""
    ## Stimulation: activating function and prediction (claims 4 and 5)

    A charge-balanced triphasic pulse (2 : −3 : 1, 50 µs per phase) on electrodes with weights $c_e$ makes the
    potential $V^{\rm ext}_i(t)=\frac{\rho_e}{4\pi}\sum_e c_eA\,w(t)/\lVert r_i-r_e\rVert$ along the cell, which
    acts as the injected currents $I_i=\sum_j g_{ij}(V^{\rm ext}_j-V^{\rm ext}_i)$ (the activating function; at the
    soma and the far end only one neighbour enters). A spike is read at a distal axon compartment. A model's
    threshold for a pattern comes from bisection on the amplitude; its predicted probability at amplitude $A$ is
    $\Phi(\ln(A/T)/\sigma)$ averaged over its posterior samples.

    The true cell's responses are trials drawn at its own spike probability. Patterns are drawn on the
    electrodes with the largest observed troughs; the single-electrode series on them are what a
    **linear-summation** model [@maturana2016] is fitted to (signed: each polarity's drive is linear in the signed
    currents, $D=A\max(\sum_e c_e/T_e^+,\ \sum_e -c_e/T_e^-)$, so opposite currents cancel; an audit found our
    former baseline, $A\sum_e |c_e|/T_e^{\pm}$, adding every current whatever its polarity, which can never
    cancel); the multi-electrode patterns, half with mixed
    polarity, are held out from everything. Accuracy: the fraction of (pattern, amplitude) conditions where
    "predicted P > 0.5" matches the measured majority. Claim 5 is about the interaction of opposite
    polarities, so the biophysical model's gain over linear summation must be larger on mixed-polarity
    patterns than on same-polarity ones, not only positive; and since a model that is simply better everywhere
    gains more accuracy where linear summation errs more, the interaction is also decided on error counts
    (the log of the model's errors over linear summation's, mixed minus same polarity), where removing the same
    share of errors on every pattern scores zero. Claim 4's accuracy target is decided on the 95 % t-interval of the
    accuracy over the test cells, as its gaps are (a mean above the target on a few cells passed before session 9).
    In this synthetic world the true cell belongs to
    the same HH family as the inferred models, so the oracle (the true θ) is the truth itself.
    """)
    return


@app.cell
def _(model, np, plots, study):
    _w = np.zeros(model.n_electrodes)
    _w[study.stim_electrodes[0, 0]] = 1.0
    plots.activating_figure(model, study.test_theta[0], _w)
    return


@app.cell
def _(mo, model, np, plots, study):
    _w = np.zeros(model.n_electrodes)
    _w[study.stim_electrodes[0, 0]] = 1.0
    _inj, _arc = plots.activating_currents(model, study.test_theta[0], _w)
    _k = int(np.argmax(_inj))
    mo.md(f"""
    *Figure: the activating function of test cell 0 for a unit current on electrode {int(study.stim_electrodes[0, 0])}
    during the pulse's middle phase: the current each compartment receives (nA per µA of electrode current) against
    its distance from the soma along the cell (µm).* Vermilion bars depolarise, blue ones hyperpolarise; they
    sum to {float(_inj.sum()):+.2f} nA/µA, since these currents only move charge along the cell. The largest
    depolarising current, {_inj[_k]:.2f} nA/µA, enters at {_arc[_k]:.0f} µm: the compartment this electrode drives
    hardest towards threshold.
    """)
    return


@app.cell
def _(cfg, claims, mo, np, plots, study):
    check4 = claims.claim4(study, cfg)
    check5 = claims.claim5(study, cfg)
    _rows = ["| model | accuracy | balanced | same polarity | mixed | AUC | median threshold error (ln) |",
             "|---|---|---|---|---|---|---|"]
    for _m in study.accuracy:
        _rows.append(f"| {_m} | {study.accuracy[_m].mean():.3f} | {np.nanmean(study.balanced_accuracy[_m]):.3f} | "
                     f"{study.accuracy_same[_m].mean():.3f} | {np.nanmean(study.accuracy_mixed[_m]):.3f} | "
                     f"{study.auc[_m]:.3f} | {study.threshold_error[_m].mean():.3f} |")
    _frac = (study.counts * 2 > study.n_trials).mean()
    mo.vstack([plots.accuracy_figure(study),
               mo.md(f"*Figure: accuracy per model (bars: mean, dots: cells), and split by polarity.* "
                     f"{_frac:.0%} of the held-out conditions evoke a spike in the true cell.\n\n" + "\n".join(_rows)
                     + f"\n\n{check4.sentence('Claim 4')}\n\n{check5.sentence('Claim 5')}")])
    return check4, check5


@app.cell
def _(mo):
    mo.md(r"""
    ## How many spikes are needed? (claim 6) And how fast? (claim 7)

    The same test cells, observed with EIs averaged over different numbers of spikes, through the same amortised
    posterior (without refinement), predicting the same held-out patterns. The abstract speaks of minutes of
    recording, an EI of spikes: we read a length as spikes at a firing rate of our choosing (given under the
    figure; the paper's rates were not reached), "a few minutes" at its low end, and compare it with a recording
    twenty times longer. Until session 9 the row compared the sweep's ends, 30 spikes (seconds of recording) with
    3,000 (itself a few minutes), which is not what the abstract says suffices; the fewest spikes are now
    reported beside the decision. Since session 14 the default sweep starts at the test cells' own 300 spikes
    (30 s), whose samples and thresholds it shares with the rest of the chapter; the 30-spike level (3 s) cost a
    fifth of the threshold searches for a point no row decides, and `full` keeps it. Claim 7 times amortised inference
    against the gradient-only fits. Both are
    timed the same way, so that load on a shared machine cannot favour one side: the fits' steps are split
    into as many blocks as there are timed NPE calls, each round times one NPE call (same seed, same
    samples) and then one block, and on each side the fastest round decides (for the fits, the block's time
    per step times the number of steps). (Changed after session 4's runs, where a single NPE call was timed;
    in session 5, because the fits were still timed once while the NPE call was the fastest of five, which
    let load on the fits inflate the ratio. The 100x threshold is unchanged.) The fits are charged the steps
    they need, not the budget we chose (changed under the contract's second edition, since the ratio grew with the
    configured `refine_steps`): when their loss curve passes the plateau test, the steps until it stays within the
    test's tolerance of its final value; when it does not, the whole budget, a lower bound on what fitting needs,
    so that a ratio above 100x on it passes a fortiori and one below is inconclusive. Claims 5 and 6 rest on few
    test cells: a paired interval that contains both the claimed effect and its negation makes the row
    inconclusive, not failed.
    """)
    return


@app.cell
def _(cfg, claims, mo, plots, study):
    check6 = claims.claim6(study, cfg)
    check7 = claims.claim7(study, cfg)
    mo.vstack([plots.sweep_figure(study, cfg.firing_rate_hz),
               mo.md(f"*Figure: NPE accuracy against the number of averaged spikes, with the recording length at "
                     f"{cfg.firing_rate_hz:g} Hz (ours) under each (bars: standard error over cells). Claim 6 compares "
                     f"{cfg.few_minutes:g} minutes ({cfg.spikes_in(cfg.few_minutes):,} spikes) with {cfg.long_minutes:g} "
                     f"({cfg.spikes_in(cfg.long_minutes):,}).*"
                     f"\n\n{check6.sentence('Claim 6')}\n\n{check7.sentence('Claim 7')}")])
    return check6, check7


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Pick a test cell, a held-out pattern and a recording length: the EI the array would see, the cell's
    posterior, and every model's activation curve for the pattern. On the website the controls show the values
    this page was built with; open the chapter live to change them.
    """)
    return


@app.cell
def _(cfg, mo):
    cell_pick = mo.ui.slider(0, cfg.n_test - 1, value=0, label="test cell")
    pattern_pick = mo.ui.slider(0, cfg.n_patterns - 1, value=1, label="pattern")
    spikes_pick = mo.ui.dropdown(options=[str(n) for n in cfg.n_spikes_sweep], value=str(cfg.n_spikes_sweep[0]),
                                 label="spikes in the EI")
    mo.hstack([cell_pick, pattern_pick, spikes_pick])
    return cell_pick, pattern_pick, spikes_pick


@app.cell
def _(cell_pick, cfg, mo, model, np, pattern_pick, plots, run, spikes_pick, study):
    from icmlbook.papers.hh_mea_inference.inference import noisy as _noisy

    _c = cell_pick.value
    _ei = _noisy(study.test_ei_clean[_c:_c + 1], int(spikes_pick.value), cfg.sigma_single,
                 np.random.default_rng(run.seed))[0]
    mo.vstack([plots.ei_figure(model.electrodes, _ei, model.full(study.test_theta[_c]), model.layout,
                               title_prefix=f"Cell {_c}, N = {spikes_pick.value}"),
               plots.pair_figure(study, _c), plots.activation_figure(study, _c, pattern_pick.value),
               mo.md(f"*Figures: test cell {_c}'s electrical image from N = {spikes_pick.value} spikes, its NPE samples and "
                     f"refined estimates against the truth, and its spike probability under stimulation pattern "
                     f"{pattern_pick.value} for every model.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers, with the alternative it rejects. The
    paper column holds the abstract's words; nothing else of the paper was reached.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check1c,
    check1d,
    check2,
    check3,
    check3b,
    check4,
    check5,
    check6,
    check7,
    run,
):
    ledger = ClaimsLedger("hh_mea_inference", run.profile)
    ledger.add_checks(check1, check1c, check1d, check2, check3, check3b, check4, check5, check6, check7)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, hh, mo, run):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we read.** Only the abstract. The cell model, the features, the inference pipeline (NPE with `sbi`,
      gradient refinement with `optax` through Jaxley), the stimulation model and the meaning of "accuracy" are
      reconstructions from the literature; each is named above. An unlicensed precursor repository was read to
      understand the setting, never copied.
    - **Data.** Synthetic cells drawn from the prior instead of recorded macaque ganglion cells; "measured"
      responses are simulated trials with a log-normal threshold noise standing for membrane noise (the true
      spike probability is $\Phi(\ln(A/T)/\sigma)$ around the cell's deterministic threshold). The paper's 90.4 %
      is quoted, not reproduced.
    - **Cells.** A straight soma–initial segment–axon cable parallel to the array, not reconstructed morphologies;
      point-source potentials in a homogeneous medium (a line-source option is in the library). The spike of the
      image is evoked by a 0.1 ms somatic pulse and the image starts when the pulse ends, so the capacitive phase
      of a spontaneous spike (the soma charged by the initial segment) is only partly in it.
    - **Simulator checks.** Jaxley's built-in HH cable is checked against NEURON's `hh` (spike times, conduction
      velocity); our ganglion-cell channel is checked against a stiff `scipy` integration of one compartment, the
      passive cable against its length constant. The hexagonal layout is our own code (MEAutility was not needed).
    - **Stimulation.** The activating function of a homogeneous medium with point electrodes; the response is a
      deterministic threshold with log-normal threshold noise, not a Monte-Carlo of membrane noise. "Accuracy" is
      our reading (majority response per pattern and amplitude); since the two responses need not be balanced
      (the share of held-out conditions that evoke a spike is given under claim 4), balanced accuracy and AUC
      are reported beside it.
    - **Scale.** {hh.config_for("smoke").n_electrodes} (smoke) or {hh.config_for("default").n_electrodes} (default)
      electrodes instead of 512; {len(hh.config_for("smoke").free)} or {len(hh.config_for("default").free)} free
      parameters; {cfg.n_sims:,} simulations at this profile ({run.profile}) instead of the paper's (unknown) budget; the `full` profile (a GPU) moves to 512 electrodes,
      1 µs steps and 100k simulations; it has not been run yet (no GPU was available to this chapter).
    - **Thresholds** of the rules ({cfg.geom_nrmse:g} of the prior range, {cfg.acc_target:g} accuracy, {cfg.oracle_gap:g} from the oracle,
      a drop of {cfg.mild_drop:g}, 100× speed) are ours, fixed
      in the config before the run.
    - **Cells left out.** The paired rules (claims 2, 3, 3b, 4 and 5) leave out a test cell whose difference is not
      finite (a fit reaching feature loss 0 has log loss −∞; a cell whose measured responses are all spikes or all
      non-spikes has no balanced accuracy), say how many in the measured text, and fail when more than {cfg.max_dropped_frac:.0%} of
      the cells (`max_dropped_frac` in the config) are left out. Changed after the runs of commit a8cdca2, because
      a review found that those cells were left out silently.
    - **Rules made stricter in session 5** (after the session-4 runs; each change can only turn a row red, the
      thresholds did not move). Claim 3 compared the refined estimate only with the mean of its few starting
      samples, a noisier estimate than NPE's posterior mean: it must now beat both. Claim 5 asked only that the
      model beat linear summation on mixed-polarity patterns, which a model better on every pattern also does:
      the gain must now be larger on mixed than on same-polarity patterns (the non-additive part), in accuracy
      and, after a second pass of the review, also in the log ratio of error counts (a uniformly better cell
      model passed the accuracy difference alone). Claim 7
      timed the fits once against the fastest of five NPE calls: both sides are now the fastest of the same
      interleaved rounds. Claim 1c could not fail for a posterior that is too wide: it now tests the ranks'
      spread as well, and is undecided where the SBC cells are too few for that test (smoke's {hh.config_for("smoke").n_sbc}). Claim 6
      compared means on a few cells with a drop ({cfg.mild_drop:g}) larger than what the inference adds over the
      prior-mean cell at smoke: it now decides on paired bounds, and NPE at the fewest spikes must still beat
      the prior-mean cell (since session 9 both parts are read at a few minutes of recording, not at the fewest
      spikes: see claim 6's section). The paired bounds of claims 3, 4, 5 and 6 had to clear 0 only, so a gain of one
      condition in 144 on every cell passed: they now have to clear a minimum effect fixed in the config
      ({cfg.min_acc_gain:.0%} of accuracy; {cfg.min_theta_gain:g} of the prior range for the parameter error).
    - **Claim 1c's informativeness made stricter in session 12** (an outside review), **and moved to claim 1d in
      session 13**: the check averaged the contraction over the parameters, so a calibrated posterior that learned
      only x, y and angle and returned the prior on the six other parameters of `default` read "reproduced" on 500
      SBC cells (mean contraction 0.34 in the review's simulation). Each parameter now has to clear
      `min_param_contraction` ({cfg.min_param_contraction:g}) on its own interval; a parameter whose whole interval
      lies below it is prior-like and counts against the row, unless a ridge regression on the same features
      recovers it (then the row is undecided: our NPE's miss). Since session 13 this informativeness is claim 1d,
      and claim 1c decides calibration only: one verdict for both could not say which half was open. The prior
      itself, calibrated by construction, may pass claim 1c and fails claim 1d; a point estimate offered as a
      posterior passes claim 1d and fails claim 1c.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - *Learning Biophysical Models of Large-Scale Multineuronal Data To Enable Precise Neurostimulation.* ICML 2026 [@hhmea2026].
    - M. Deistler et al. *Jaxley: differentiable simulation enables large-scale training of detailed biophysical models of neural dynamics* [@deistler2025jaxley].
    - P. J. Gonçalves et al. *Training deep neural density estimators to identify mechanistic models of neural dynamics.* eLife 2020 [@goncalves2020sbi].
    - G. Papamakarios, I. Murray. *Fast ε-free inference of simulation models with Bayesian conditional density estimation.* NeurIPS 2016 [@papamakarios2016fast].
    - S. Talts et al. *Validating Bayesian inference algorithms with simulation-based calibration.* 2018 [@talts2018sbc].
    - T. Maturana et al. *A simple and accurate model to predict responses to multi-electrode stimulation in the retina.* PLoS Comput. Biol. 2016 [@maturana2016].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
