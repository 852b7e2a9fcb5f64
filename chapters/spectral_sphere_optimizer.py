import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Controlled LLM training on the spectral sphere (SSO)")


@app.cell
def _():
    import marimo as mo
    import numpy as np
    import torch

    from icmlbook.papers import spectral_sphere_optimizer as sso
    from icmlbook.runtime import ClaimsLedger, open_chapter, pick_device, show_plotly
    from icmlbook.papers.spectral_sphere_optimizer import claims, experiments as ex, plots
    return ClaimsLedger, claims, ex, mo, np, open_chapter, pick_device, plots, show_plotly, sso, torch


@app.cell
def _(mo):
    mo.md(r"""
    # Controlled LLM training on the spectral sphere

    μP, in its spectral form [@yang2023spectral], asks two things of every hidden weight matrix
    $W\in\mathbb{R}^{d_\text{out}\times d_\text{in}}$ of a network: its spectral norm and the spectral norm of
    each update should both be of order $\sqrt{d_\text{out}/d_\text{in}}$. Then every layer maps inputs of
    RMS one to outputs of RMS one, whatever the width, and the best learning rate found on a small model
    stays the best on a large one. Muon [@jordan2024muon] takes care of the *update*: it is steepest descent
    in the spectral norm, so every step has the same spectral size. It leaves the *weights* free to drift.

    The Spectral Sphere Optimizer (SSO) of Xie et al. [@xie2026sso] constrains both. Each hidden matrix lives
    on the sphere $\{W : \|W\|_2 = R\}$ with $R = c\sqrt{d_\text{out}/d_\text{in}}$, and each step is the
    steepest-descent step in the spectral norm that stays tangent to that sphere. This chapter builds SSO
    from its pieces (msign, the tangent constraint, the scalar root search), checks each piece against an
    independent computation, and trains tiny GPTs on Python source code with AdamW, Muon, MuonSphere and SSO.
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
    | **Paper** | *Controlled LLM Training on Spectral Sphere* |
    | **Authors** | T. Xie, H. Luo, H. Tang, Y. Hu, J. K. Liu, Q. Ren, Y. Wang, W. X. Zhao, R. Yan, B. Su, C. Luo, B. Guo |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2601.08393](https://arxiv.org/abs/2601.08393) |
    | **Code** | [Unakar/Spectral-Sphere-Optimizer](https://github.com/Unakar/Spectral-Sphere-Optimizer) (Apache-2.0), read, not copied |
    | **Scale** | Dense 1.7B, MoE 8B-A1B and a 200-layer DeepNet, 100B tokens of OLMo-Mix on B200 GPUs |

    The paper reports that SSO reaches AdamW's final loss in 19 % fewer steps at 1.7B parameters (Muon:
    12 %), that its optimal learning rate (1e-2) is the same at widths 256 to 2048, that it keeps activations
    and outliers bounded and balances MoE routers better, and that its Megatron implementation costs 11.5 %
    more per step than Muon.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, pick_device, profile, seed):
    run, cfg = open_chapter("spectral_sphere_optimizer", profile, seed)
    device = str(pick_device("auto"))
    return cfg, device, run


@app.cell
def _(cfg, device, mo, run):
    mo.md(f"""
    {run.computed_with()}, on `{device}`: tiny GPTs
    of widths {", ".join(map(str, cfg.widths))} with {cfg.n_layer} layers and heads of dimension {cfg.d_head},
    {cfg.steps} updates of {cfg.batch} sequences of {cfg.seq_len} bytes, learning-rate grids AdamW
    {cfg.lrs("adamw")}, Muon {cfg.lrs("muon")}, MuonSphere {cfg.lrs("muonsphere")}, SSO {cfg.lrs("sso")},
    {cfg.seeds} seed(s) per point, and a radius sweep $c \\in$ {cfg.radii} at width {cfg.radius_width}.
    SSO's multiplier is found by the **{cfg.solver}** solver (see below).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Steepest descent in the spectral norm, and msign

    Steepest descent under a norm $\|\cdot\|$ moves along the direction $\Phi$ of unit norm that is most
    aligned with the gradient $G$: $\Phi = \arg\max_{\|T\|\le 1}\langle G, T\rangle$. For the Frobenius norm
    this is $G/\|G\|_F$, plain gradient descent. For the spectral norm (the largest singular value) the
    maximum is the nuclear norm $\|G\|_* = \sum_i \sigma_i$, reached at the *polar factor*

    $$\operatorname{msign}(G) = UV^\top \quad (G = U\Sigma V^\top),$$

    which keeps the singular vectors of $G$ and sets every singular value to one. Every direction of the
    update moves by the same amount: no direction of the weight matrix is left behind because its gradient is
    small.

    An SVD per step is too slow for a GPU, so msign is computed by a Newton–Schulz iteration: normalise
    $X \leftarrow G/\|G\|_F$ (all singular values in $(0, 1]$), then apply odd polynomials
    $X \leftarrow aX + b(XX^\top)X + c(XX^\top)^2X$, each of which maps every singular value $s$ to
    $as + bs^3 + cs^5$ and leaves the singular vectors alone. The paper uses the eight coefficient triples of
    Polar Express [@amsel2025polar] in FP32; Muon's original quintic repeats one triple five times and leaves
    the singular values spread around one. Below: one random gradient, the inner product each unit direction
    achieves, and how far the Newton–Schulz polar factor is from the exact one.
    """)
    return


@app.cell
def _(mo, sso, torch):
    _g = torch.Generator().manual_seed(0)
    _G = torch.randn(64, 128, generator=_g, dtype=torch.float64)
    _nuc = float(torch.linalg.matrix_norm(_G, ord="nuc"))
    _exact = sso.msign_svd(_G)
    _rows = []
    for _name, _T in (("Frobenius steepest direction (G itself)", _G),
                      ("msign, Polar-Express (8 steps, fp32)", sso.msign(_G.float()).double()),
                      ("msign, Keller's quintic (5 steps, fp32)", sso.msign(_G.float(), sso.KELLER_QUINTIC, steps=5).double()),
                      ("msign, exact (SVD)", _exact)):
        _s = torch.linalg.svdvals(_T)
        _T1 = _T / _s.max()                                          # on the unit spectral ball
        _rows.append(f"| {_name} | {float((_G * _T1).sum()) / _nuc:.4f} | {float(_s.min()):.3f}–{float(_s.max()):.3f} "
                     + (f"| {float((_T - _exact).norm() / _exact.norm()):.1e} |" if "msign" in _name else "| — |"))
    mo.md("| unit-spectral-norm direction | ⟨G, T⟩ / nuclear norm of G | singular values of T before rescaling | error vs exact |\n"
          "|---|---|---|---|\n" + "\n".join(_rows) +
          "\n\n*Table: a 64×128 Gaussian gradient. The first column is the share of the best possible descent rate "
          "each direction achieves once scaled to spectral norm one.*")
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The tangent constraint, and h(λ)

    SSO writes the update as $W \leftarrow W - \eta R\,\Phi$ with $\|\Phi\|_2 = 1$ and asks that the step not
    leave the sphere $\|W\|_2 = R$. If the top singular value of $W$ is simple, the spectral norm has gradient
    $\Theta = u_1 v_1^\top$ there, so to first order the sphere is kept when $\langle\Theta,\Phi\rangle = 0$:

    $$\max_\Phi \langle G, \Phi\rangle \quad\text{s.t.}\quad \|\Phi\|_2 = 1,\ \ \langle\Theta, \Phi\rangle = 0 .$$

    With a multiplier $\lambda$ for the constraint, the maximiser for fixed $\lambda$ is
    $\Phi(\lambda) = \operatorname{msign}(G + \lambda\Theta)$, and the right $\lambda$ is the root of the
    scalar function

    $$h(\lambda) = \langle \Theta, \operatorname{msign}(G + \lambda\Theta)\rangle .$$

    The paper proves that $h$ is non-decreasing, lies in $[-1, 1]$, tends to $\mp 1$ as
    $\lambda \to \mp\infty$, and that every root satisfies $|\lambda^\star| \le 2\|G\|_*$: a bracket and a
    one-dimensional search find it. The retraction $W \leftarrow W R / \sigma_\max(W)$, applied before each
    update with the same power-iteration triplet that gives $\Theta$, removes the second-order drift.

    **The solver used here.** The released code brackets the root from the previous step's $\lambda$
    (steps of 1e-3, doubling) and bisects. Each evaluation of $h$ is one msign, the expensive part. We keep the
    same bracket, and with it the same guarantee, but size the first bracketing step from the previous step's
    slope of $h$ and replace bisection by the Illinois variant of false position, which converges
    superlinearly inside a bracket where bisection halves the interval once per msign; the count of msign
    evaluations of both on the same matrices is below. `solver="bisect"` in the config runs the released
    search instead. Below: $h$
    for random pairs $(G, W)$ with $N(0, 0.02^2)$ entries (the paper's Fig. 3 setting), with the exact polar
    factor (lines) and our Newton–Schulz msign (dots).
    """)
    return


@app.cell
def _(cfg, ex, run):
    h_study = run.cached("sso-h-study", ex.h_study, cfg.h_matrices, cfg.h_rows, cfg.h_cols, cfg.h_points, run.seed)
    return (h_study,)


@app.cell
def _(h_study, plots):
    plots.h_figure(h_study)
    return


@app.cell
def _(cfg, claims, ex, h_study, mo, run):
    check3 = claims.claim3(h_study, cfg)
    _cmp = run.cached("sso-solver-comparison", ex.solver_comparison, cfg.h_matrices, cfg.h_rows, cfg.h_cols, run.seed)
    _b, _i = _cmp["bisect"], _cmp["illinois"]
    _say3 = check3.sentence("Claim 3")  # claim_sentence escapes the nuclear norm's "||_*" (not markdown emphasis)
    mo.md(f"""
    *Figure: h(λ) for {min(4, h_study["h_exact"].shape[0])} random pairs; dotted verticals: the roots.*

    {_say3}

    The two solvers on {cfg.h_matrices} fresh random pairs of the same shape, from λ = 0 with our msign and
    tolerance 1e-4: bisection used {_b["evaluations"]} msign evaluations ({_b["calls"]} batched calls, largest
    |h| {_b["max_abs_h"]:.1e}), Illinois {_i["evaluations"]} ({_i["calls"]} calls, largest |h| {_i["max_abs_h"]:.1e}).
    """)
    return (check3,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Tiny GPTs on Python source

    The model follows the paper's dense architecture at toy scale: pre-RMSNorm, QK-norm, SwiGLU, RoPE, an
    untied head, no biases, and a fixed head dimension, so the number of heads grows with the width (the
    paper's width protocol). Tokens are bytes. The corpus is a pinned list of modules of Python's own standard
    library (its SHA-256 is checked on load); the last tenth of its files is held out for validation. The
    schedule is the paper's shape: linear warm-up, then cosine decay to 10 % of the peak.

    AdamW trains everything. Muon, MuonSphere and SSO train the hidden matrices (q, k and v split per head,
    as the paper found best; gate and up separate), and AdamW trains embeddings, head and norms at the same
    peak rate. Muon uses the paper's baseline: Nesterov momentum 0.9, update scale
    $\sqrt{d_\text{out}/d_\text{in}}$, weight decay 0.1. MuonSphere is SSO with $\lambda \equiv 0$: the same
    sphere, retraction and radius, the plain msign direction. SSO and MuonSphere start from the spectral-μP
    initialisation, with no weight decay on hidden matrices.
    """)
    return


@app.cell
def _(cfg, device, ex, run):
    data = ex.code_data()
    results = ex.run_sweep(ex.sweep_specs(cfg, run.seed), data, device=device)
    radius_runs = ex.run_sweep(ex.radius_specs(cfg, run.seed), data, device=device, reuse=results)
    return data, radius_runs, results


@app.cell
def _(cfg, data, mo, results):
    _sso_grid = "covers the same grid" if cfg.transfer_optimizer == "sso" else (
        f"runs only at {', '.join(f'{x:g}' for x in cfg.lrs('sso'))}, near the paper's optimum; MuonSphere (the same "
        "sphere, one msign per update) carries the grid")
    mo.md(f"""
    The corpus: {data.n_files} files, {data.train.numel():,} training and {data.val.numel():,} validation bytes
    (SHA-256 `{data.sha256[:16]}…`). {len(results)} training runs in the width sweep; at this profile SSO
    {_sso_grid}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Does the optimal learning rate transfer across widths?

    For each optimiser and width, the final validation loss against the peak learning rate (stars: the
    argmin). Under μP the optimum should not move with width.
    """)
    return


@app.cell
def _(plots, results, show_plotly):
    show_plotly(plots.width_sweep_plotly(results))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: final validation loss against the peak learning rate, one panel per width, one line per
    optimiser (interactive: hover for the numbers); the title names each optimiser's best rate per width.*
    """)
    return


@app.cell
def _(cfg, claims, mo, results):
    check6 = claims.claim6(results, cfg)
    check10 = claims.claim10(results, cfg)
    mo.md(f"""
    **Converged before compared** (contract rule 10, since issue 28): claims 6, 7, 8, 8b, 10 and 11 compare
    trained models, so each first asks that training {cfg.plateau_extend:.0%} longer would not move a compared
    model's validation loss by more than {cfg.plateau_share:.2f} of the tie band {cfg.loss_tie:g} nats/byte
    (read back along the logged curve: the loss at update {cfg.steps} against the loss at update
    {cfg.steps / (1 + cfg.plateau_extend):.0f}). Over the whole sweep: {claims.guard_text(results, cfg)}. A
    comparison of models still learning is *inconclusive*, whatever it shows.

    {check6.sentence("Claim 6")}

    {check10.sentence("Claim 10")}
    """)
    return check10, check6


@app.cell
def _(mo):
    mo.md(r"""
    ## Activations and weights over training

    Each optimiser at its tuned rate on the widest model: the RMS of the MLP outputs and the largest absolute
    attention output (mean over layers, forward hooks), and the largest spectral norm over hidden matrices
    divided by its μP scale $\sqrt{d_\text{out}/d_\text{in}}$ (exact, by SVD).
    """)
    return


@app.cell
def _(cfg, ex, results):
    _tuned = ex.tuned_losses(results)
    _w = max(cfg.widths)
    tuned_runs = {}
    for _o in ("adamw", "muon", "muonsphere", "sso"):
        _lr = _tuned[(_o, _w)][0]
        tuned_runs[_o] = next(r for r in results if r.spec.optimizer == _o and r.spec.width == _w and r.spec.lr == _lr
                              and r.spec.seed == min(x.spec.seed for x in results))
    return (tuned_runs,)


@app.cell
def _(plots, tuned_runs):
    plots.training_figure(tuned_runs)
    return


@app.cell
def _(cfg, claims, mo, tuned_runs):
    check7 = claims.claim7(tuned_runs, cfg)
    check11 = claims.claim11(tuned_runs, cfg)
    check8 = claims.claim8(tuned_runs, cfg)
    check8b = claims.claim8b(tuned_runs, cfg)
    mo.md(f"""
    *Figure: activation scale and weight spectral norms over training (log scales).*

    Activation growth is read over the last {1 - 1 / (1 + cfg.plateau_extend):.0%} of training (the convergence
    guard's window): measured from the end of warm-up, as before issue 28, it mostly records the first updates'
    growth from two different initialisations (GPT-2's small one for AdamW and Muon, the spectral-μP sphere for
    SSO and MuonSphere), which is not the drift the paper shows over long training.

    {check7.sentence("Claim 7")}

    {check11.sentence("Claim 11")}

    {check8.sentence("Claim 8")}

    {check8b.sentence("Claim 8b")}
    """)
    return check11, check7, check8, check8b


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## SSO's invariants along real training

    Three properties that the algorithm is built to have, measured on every SSO and MuonSphere run of this
    page: before each update the retracted weight has $\sigma_\max = R$ (exact SVD, not the power iteration
    that did the retraction); SSO's direction is tangent ($|h(\lambda^\star)|$ at the solver's output, and
    exactly: the first-order change of $\sigma_\max$ along the applied update, from an SVD, since the solver's own
    $h$ uses the power iteration's pair); the update has spectral norm $\eta R$. And msign's accuracy on the momenta it actually orthogonalises: a
    random square matrix has tiny singular values that eight Newton–Schulz steps do not lift to one, so the
    test is on the real momenta of the widest SSO run. The retraction's $\sigma$ comes from at most {cfg.power_steps}
    power iterations per update (the released scripts' budget; cold at the first update, warm-started from the
    previous update's vector after it); the exact checks below measure whether that budget tracks $\sigma_\max$,
    at the first update and over training, and a small study compares budgets of
    {", ".join(map(str, cfg.power_study))} iterations on one run.
    """)
    return


@app.cell
def _(cfg, claims, ex, mo, np, radius_runs, results):
    _sso = [r for r in results if r.spec.optimizer == "sso"] + list(radius_runs)
    _ms = [r for r in results if r.spec.optimizer == "muonsphere"]
    check1 = claims.claim1(_sso + _ms, cfg)
    check5 = claims.claim5(_sso + _ms, cfg)
    msign_acc = ex.msign_accuracy([b for r in _sso if r.momenta for b in r.momentum_blocks()])
    check4 = claims.claim4(msign_acc, cfg)
    _calls = np.mean([r.msign_calls_per_step for r in results if r.spec.optimizer == "sso"])
    _bad = int(np.sum(msign_acc["rel_error"] > cfg.msign_err_max))
    _say4 = check4.sentence("Claim 4")  # claim_sentence escapes the nuclear norm's "||_*"
    mo.md(f"""
    {check1.sentence("Claim 1")}

    Claim 2 is decided below the power-iteration study. SSO made {_calls:.1f} batched msign calls per update on
    average ({cfg.solver} solver), MuonSphere one.

    {check5.sentence("Claim 5")}

    {_say4} {_bad} of the {msign_acc["rel_error"].size} momentum blocks exceed the
    dossier's error bound of {cfg.msign_err_max:g} (their smallest singular values after eight steps are as low as
    {msign_acc["s_min"].min():.3f}); the share of the ideal descent rate they lose is at most
    {msign_acc["rate_loss"].max():.1e}, against the minimum effect of {cfg.msign_rate_loss:g} declared before this
    run (issue 28: the dossier's bounds are not the paper's, and the audit found the blocks that failed them
    keeping 0.99998 of the rate: a deviation that does not matter).
    """)
    return check1, check4, check5


@app.cell
def _(cfg, data, device, ex, results, run):
    power_runs = ex.run_sweep(ex.power_specs(cfg, run.seed), data, device=device, reuse=results)
    return (power_runs,)


@app.cell
def _(cfg, check1, claims, mo, np, power_runs, radius_runs, results):
    check2 = claims.claim2([r for r in results if r.spec.optimizer == "sso"] + list(radius_runs), cfg,
                           [r for r in results if r.spec.optimizer == "muonsphere"],
                           study_runs=power_runs)

    def _row(r):
        _t, _a = r.tangency_cluster, r.tangency_assumed
        return (f"| {r.spec.power_steps} | {r.sphere_deviation[0]:.1e} | {np.max(r.sphere_deviation[1:]):.1e} | "
                f"{_t[0]:.1e} | {np.max(_t):.1e} | {np.nanmean(r.assumed_share):.0%} | "
                f"{np.nanmax(_a) if np.isfinite(_a).any() else float('nan'):.1e} | {r.final_val_loss:.3f} |")
    _by = {r.spec.power_steps: r for r in power_runs}
    _lo, _hi = min(_by), max(_by)
    mo.md(f"""
    **What the power-iteration budget does** (issue 28). One SSO run (width {max(cfg.widths)}, peak rate
    {cfg.radius_lr:g}) with each budget; the deviations are measured exactly (SVD) on every block. The run with
    {cfg.power_steps} iterations is the sweep's own.

    | power iterations per update | sphere deviation, first update | after it, largest | exact tangency, first update | largest, every block | blocks meeting the constraint's assumptions | exact tangency there, largest | final validation loss |
    |---|---|---|---|---|---|---|---|
    {chr(10).join(_row(_by[k]) for k in sorted(_by))}

    At the first update the power iteration starts cold (from the all-ones vector, as released) on fresh
    spectral-μP weights, whose top two singular values lie within about a percent of each other: with {_lo}
    iterations the retraction's σ is off by up to {_by[_lo].sphere_deviation[0]:.1e} there, with {cfg.power_steps}
    (the scripts') by {_by[cfg.power_steps].sphere_deviation[0]:.1e}, with {_hi} by {_by[_hi].sphere_deviation[0]:.1e}.
    Claim 1 keeps the scripts' budget in its statement, so what it finds (here: *{check1.verdict}*) is a finding
    about that budget. Where the sphere deviation or the exact tangency misses, it measures the power iteration's
    budget on near-degenerate spectra, not the tangent constraint: our first version of this page (10 iterations)
    blamed such misses on the constraint. Since issue 28 the runs use the released scripts' {cfg.power_steps}, stopped early only
    once the top vector has settled (by σ before, which settles first), and claim 2 decides the constraint's
    conclusion where its assumptions hold: on the blocks whose top singular value is simple and whose
    power-iteration vector has converged to the exact one (within a sine of 5e-5), in every SSO run of the sweep
    and of this study, counting the others apart. Where the top gap is a fraction of a percent, no budget here
    converges the vector, and the tangent direction is tangent to an inexact pair.

    {check2.sentence("Claim 2")}
    """)
    return (check2,)


@app.cell
def _(mo):
    mo.md(r"""
    ## The radius sets the activation scale

    SSO at one width and rate for several radius scales $c$: every hidden matrix has spectral norm
    $c\sqrt{d_\text{out}/d_\text{in}}$, so each branch's output should scale with a power of $c$.
    """)
    return


@app.cell
def _(cfg, claims, radius_runs):
    check9 = claims.claim9(radius_runs, cfg)
    return (check9,)


@app.cell
def _(check9, plots):
    plots.radius_figure(check9)
    return


@app.cell
def _(check9, mo, radius_runs):
    _loss = ", ".join(f"c = {r.spec.radius:g}: {r.final_val_loss:.3f}" for r in sorted(radius_runs, key=lambda r: r.spec.radius))
    mo.md(f"""
    *Figure: final MLP output RMS and AbsMax against c, log-log.*

    {check9.sentence("Claim 9")} Final validation loss by radius: {_loss}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## What SSO costs

    Wall-clock time per update on this machine (training only; the measurement callbacks run on a few
    tracked steps). SSO's extra cost is the root search: several msign evaluations per update where Muon and
    MuonSphere need one. On a GPU these are batched matrix products; on two shared CPU cores they dominate.
    """)
    return


@app.cell
def _(plots, results):
    plots.overhead_figure(results)
    return


@app.cell
def _(cfg, mo, np, results):
    _w = max(cfg.widths)
    _t = {o: np.median([r.seconds_per_step for r in results if r.spec.optimizer == o and r.spec.width == _w])
          for o in ("adamw", "muon", "muonsphere", "sso")}
    mo.md(f"""
    *Figure: milliseconds per update (wall clock; varies between runs).* At width {_w}: AdamW
    {_t["adamw"] * 1e3:.0f} ms, Muon {_t["muon"] * 1e3:.0f} ms, MuonSphere {_t["muonsphere"] * 1e3:.0f} ms
    ({_t["muonsphere"] / _t["muon"] - 1:+.0%} over Muon), SSO {_t["sso"] * 1e3:.0f} ms
    ({_t["sso"] / _t["muon"] - 1:+.0%} over Muon). The paper's +11.5 % is a Megatron implementation on B200
    GPUs after kernel and scheduling work; it is not comparable with this number.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Train one tiny GPT with the optimiser, width, learning rate and radius of your choice (the protocol of
    this page's profile). On the website the controls show the values this page was built with; open the
    chapter live to change them. A run that is part of the sweep above is taken from it.
    """)
    return


@app.cell
def _(cfg, mo):
    opt_pick = mo.ui.dropdown(options=["adamw", "muon", "muonsphere", "sso"], value="sso", label="optimiser")
    width_pick = mo.ui.dropdown(options=[str(w) for w in cfg.widths], value=str(min(cfg.widths)), label="width")
    lr_pick = mo.ui.dropdown(options=["0.001", "0.003", "0.01", "0.03", "0.1"], value="0.01", label="peak learning rate")
    radius_pick = mo.ui.dropdown(options=["0.5", "1.0", "2.0", "4.0"], value="1.0", label="radius c (SSO, MuonSphere)")
    mo.hstack([opt_pick, width_pick, lr_pick, radius_pick])
    return lr_pick, opt_pick, radius_pick, width_pick


@app.cell
def _(cfg, data, device, ex, lr_pick, mo, opt_pick, plots, radius_pick, radius_runs, results, run, width_pick):
    _spec = ex.spec_for(cfg, opt_pick.value, int(width_pick.value), float(lr_pick.value), run.seed,
                     radius=float(radius_pick.value) if opt_pick.value in ("sso", "muonsphere") else 1.0)
    _known = {(r.spec.optimizer, r.spec.width, r.spec.lr, r.spec.radius, r.spec.seed): r
              for r in list(results) + list(radius_runs)}
    _key = (_spec.optimizer, _spec.width, _spec.lr, _spec.radius, _spec.seed)
    _r = _known.get(_key) or ex.run_sweep([_spec], data, device=device, show_progress=False)[0]
    mo.vstack([plots.training_figure({_spec.optimizer: _r}),
               mo.md(f"*Figure: {_spec.optimizer} at width {_spec.width}, peak learning rate {_spec.lr:g}, radius "
                     f"{_spec.radius:g}: MLP output RMS, attention AbsMax and the largest σ_max / μP scale over "
                     "training.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, on this run's numbers; the alternative the rule rejects is named
    under it. The paper's results at 1.7B parameters and beyond are quoted as the paper's and marked not
    testable, with the reason.

    **Two rules made stricter after a second rule-breaking review** (session 5, after the smoke run of commit
    67dd53f; thresholds unchanged). Claim 2 read the tangency $|h(\lambda^\star)|$ the solver computes with its
    own power-iteration pair, which is the solver's stopping criterion: when the top two singular values are
    close, ten power steps give an accurate $\sigma$ but not an accurate pair, and a direction can be tangent to
    that pair and not to the sphere (a constructed case: $|h|$ = 2e-7 by the solver, 3.6e-2 with the exact
    pair). It now also needs $|\langle u_1v_1^\top, \Phi\rangle| \le$ the same tolerance with the exact top pair
    (SVD of the retracted block) and the applied direction on every tracked update; the smallest relative gap
    between the two largest singular values is shown. Claim 6 decided on the grid's argmin only: with one
    interior grid point, an optimum that moves by a factor 3 inside that cell passed. It now also locates the
    optimum between grid points (the vertex of the parabola in $\log \eta$ through the argmin and its two
    neighbours) and needs its spread within the same bound, and it decides the statement's second half:
    AdamW's and Muon's optima must move more than the sphere optimiser's.
    """)
    return


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    **Changed in session 6** (before any run with the changes; thresholds unchanged, every change stricter or equal
    where the old measure was sound, each tested both ways).

    - *Claim 2, because* the exact check of session 5 read $u_1 v_1^\top$ from an SVD, and where the two largest
      singular values nearly coincide that pair is ill conditioned: a tiny change of $W$ swaps $u_1$ and $u_2$.
      In the default run of session 5 (commit 54ebdf9, not this page) the smallest relative top gap was 2.6e-4 and
      the exact tangency 0.97: a direction that lowers $\sigma_1$ while $\sigma_2$, just below it, carries the
      sphere. What the tangent constraint is for is that $\sigma_\max$ not change to first order along the
      update. For a top cluster of singular values (all within a relative gap {cfg.tangency_gap:g} of
      $\sigma_1$, fixed in the config: claim 1's sphere tolerance, so each of them is $\sigma_\max$ as far as claim
      1 can tell) the one-sided derivative of $\sigma_\max$ along a direction $D$ is the largest eigenvalue of the
      symmetric part of $U_c^\top D V_c$ ($U_c, V_c$ the cluster's singular vectors), which is well conditioned;
      with $\sigma_1$ alone it is $u_1^\top D v_1$, the old measure. Claim 2 now decides on it (along the applied
      update, per unit step, within {cfg.tangency_tol:g}); the top pair's value is still shown. It is tested against
      finite differences of the spectral norm, on both sides, on matrices with an exact double top singular value
      and with a clear gap; a direction with a component along $u_1 v_1^\top$ (clear gap) or along $+u_1v_1^\top$ in a
      near-degenerate cluster still fails, as does the second review's construction. A second review pass (also
      session 6) found two ways a NaN slipped through: SSO runs whose $|h|$ was not finite were left out (all of
      them: the row undecided), and the largest cluster measure over runs skipped a NaN after the first run (the
      optimiser's own running maximum of $|h|$ did the same); a non-finite value on any SSO run now fails the row.
      The same review found that where the top cluster holds two or more values, the paper's single constraint
      $\langle\Theta, \Phi\rangle = 0$ leaves $\sigma_\max$ free to rise at first order even for an exact
      solver on the exact pair, so there this row tests more than the constraint promises (left for the chapter's
      authors; see the review).
    - *Claim 8, because* any optimiser moves $\sigma_\max$ far from GPT's small initialisation within a few dozen
      updates, so "AdamW's and Muon's spectral norms change" held almost by construction. It now also needs a change
      of at least {cfg.drift_min:.0%} over the second half of training, where weights that grow and then settle
      (a weight-decay equilibrium) fail.
    - *Claim 10, because* with one seed the tie band was compared with no noise estimate. Each comparison
      now also needs its paired 95 % bound beyond the band ({cfg.loss_tie:g} nats/byte): over seeds where there are
      two or more, and with one seed over the validation sequences every run shares (the evaluation's noise only; the
      seed-to-seed spread is not estimated at this profile, {cfg.seeds} seed(s)).
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check10,
    check11,
    check2,
    check3,
    check4,
    check5,
    check6,
    check7,
    check8,
    check8b,
    check9,
    run,
):
    ledger = ClaimsLedger("spectral_sphere_optimizer", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check7, check11, check8, check9, check10, check8b)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, data, ex, mo, power_runs, results, tuned_runs):
    _params = sorted({r.n_parameters for r in results})
    _by = {r.spec.power_steps: r for r in power_runs}
    _old = _by[min(_by)]
    _late = ex.activation_growth(tuned_runs["sso"], "rms", since=1 / (1 + cfg.plateau_extend))
    _whole = ex.activation_growth(tuned_runs["sso"], "rms")
    mo.md(f"""
    ## How this chapter differs from the paper

    - **Scale.** Models of {_params[0] / 1e6:.2f}–{_params[-1] / 1e6:.2f}M non-embedding parameters (widths
      {", ".join(map(str, cfg.widths))}, {cfg.n_layer} layers), each trained for {cfg.steps} updates on
      {cfg.steps * cfg.batch * cfg.seq_len:,} bytes drawn from a {data.train.numel():,}-byte corpus of Python source,
      not 1.7B parameters on 100B tokens of OLMo-Mix. Byte-level tokens, not the OLMo-2 tokenizer. Absolute losses are not comparable.
    - **The grid.** The paper sweeps nine learning rates per width with 30B tokens each. Here each optimiser
      has {len(cfg.lrs("muonsphere"))} rates or fewer, with {cfg.seeds} seed(s); at the `smoke` profile SSO runs
      at one rate only and MuonSphere carries the transfer question (claim 6), and claim 10 compares SSO at that
      one rate with the other optimisers at their tuned rates.
    - **Numerics.** msign in FP32 with the eight Polar-Express steps (the paper's text; the released code
      casts to bf16). Power iteration: at most {cfg.power_steps} iterations per update (the scripts' 100, which
      run cold every update; ours are warm-started from the previous update's vector after the first, and stop
      early once σ settles; the PyTorch file uses 5). Solver tolerance 1e-4 (scripts 2e-4, PyTorch default
      1e-6), the {cfg.solver} solver described above.
    - **Protocol pieces added in issue 28.** Gradient clipping to global norm 1.0 and weight decay 0.1 on 1-D
      parameters (the norms' gains), as in the paper's setup, were missing and unlabelled until issue 28; every run
      of this page has them.
    - **Not run here.** The MoE router balance, the 200-layer DeepNet, downstream benchmarks, the Megatron
      systems work. They are quoted as the paper's in the ledger.
    - **Thresholds.** The tolerances of claims 1–11 are ours, fixed in the chapter's config before the runs; the
      paper gives none of them. Claim 4's former bounds (relative error 1e-2, singular values in [0.7, 1.2]) were
      the dossier's, not the paper's.
    - **Changed after an outside audit (issue 28; the contract's second edition).** *Four verdicts*: a comparison
      that cannot tell is *inconclusive*, with its kind; claim 10 decides three ways on its paired intervals, claim
      9 on its exponent's interval, claim 6 with an argmin on the grid's edge is inconclusive (it was "not
      testable"). *Converged before compared*: claims 6, 7, 8, 8b, 10 and 11 pass the convergence guard first
      (above). *Claim 7* measured growth from the end of warm-up; SSO's RMS grew {max(_whole.values()):.2f}x that
      way here and {max(_late.values()):.2f}x over the late window the rule now reads. *Claim 8*'s AdamW half is
      not the abstract's (it names Muon): it is now claim 8b, ours. *Claim 11* decides "suppressed outliers"
      (attention AbsMax), which the page printed without a rule. *Claim 4* decides on a minimum effect declared
      before this run (the share of the ideal descent rate lost). *Claims 1 and 2*: the power-iteration budget was
      10 iterations; at the first update that left the retraction's σ off by up to
      {_old.sphere_deviation[0]:.1e} (the study above), which the page blamed on the tangent constraint. The runs
      now use the scripts' {cfg.power_steps} (stopped early on the top vector, not on σ); both rules include the
      first update, and claim 2 decides the constraint's conclusion on the blocks that meet its assumptions (a
      simple top singular value, a converged power-iteration vector), counting the others apart. *Claim 3* also asks that the direction at the root be the steepest tangent one (it reaches the
      duality bound): the properties it checked before hold for the plain normalised gradient too. Each rule now
      also fails on the real output of the nearest trivial method in the tests (one-step power iteration,
      MuonSphere, the normalised gradient, one-step msign, Muon or AdamW in SSO's place).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - T. Xie et al. *Controlled LLM Training on Spectral Sphere.* arXiv:2601.08393, 2026 [@xie2026sso].
    - G. Yang, J. B. Simon, J. Bernstein. *A Spectral Condition for Feature Learning.* 2023 [@yang2023spectral].
    - K. Jordan et al. *Muon: An optimizer for hidden layers in neural networks.* 2024 [@jordan2024muon].
    - N. Amsel, D. Persson, C. Musco, R. M. Gower. *The Polar Express.* 2025 [@amsel2025polar].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
