import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="The iterative refinement neural operator")


@app.cell
def _():
    import marimo as mo
    import numpy as np
    import torch

    from icmlbook.papers import irno_neural_operator as irno
    from icmlbook.papers.irno_neural_operator import claims, experiments as ex, plots
    from icmlbook.runtime import ClaimsLedger, cpu_threads, open_chapter
    return ClaimsLedger, claims, cpu_threads, ex, irno, mo, np, open_chapter, plots, torch


@app.cell
def _(mo):
    mo.md(r"""
    # Iterative refinement neural operators: learned fixed-point solvers against spectral bias

    A Fourier neural operator [@li2021fno] maps the state of a flow to its state a moment later in one
    forward pass. Trained on turbulent fields it gets the large eddies right and smears the small ones:
    networks fit low frequencies first and best, the *spectral bias* [@rahaman2019spectral], and an FNO
    that keeps only a few Fourier modes in each layer makes it worse. Liu, Shang, Wang, Ren and Yang
    [@liu2026irno] do not retrain the operator. They freeze it, take its prediction as the first guess of an
    iterative solver, and learn the solver's correction: a small U-Net that looks at the input and the current
    guess and proposes a damped update, applied again and again with the same weights. A loss that weighs
    high frequencies more at later steps pushes the later corrections towards the fine scales, and a
    regulariser asks the correction to vanish at the truth, so that the truth is (nearly) a fixed point.

    This chapter builds the whole pipeline on a flow we simulate ourselves (2-D Kolmogorov turbulence from a
    pseudo-spectral solver), trains the base operators and then the refiners, and measures what the paper
    claims: error falling at every step, stability beyond the trained number of steps, where in the spectrum
    the error goes, whether the learned map is a contraction, and what each ingredient contributes; and, in
    place of the paper's ERA5 experiment, a super-resolution task on the same flow with the paper's two
    metrics for it (RFNE and ACC).
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
    | **Paper** | *Iterative Refinement Neural Operators are Learned Fixed-Point Solvers: A Principled Approach to Spectral Bias Mitigation* (ICML 2026, spotlight) |
    | **Authors** | Xiaotian Liu, Shuyuan Shang, Xiaopeng Wang, Pu Ren, Yaoqing Yang |
    | **arXiv** | [2605.24041](https://arxiv.org/abs/2605.24041) |
    | **Code** | github.com/xiaotianliu-dartmouth/Iterative_Refinement_Neural_Operator (MIT), read to reconstruct the method, not copied |
    | **Data** | The Well's turbulent radiative layer and active matter, ERA5 super-resolution |

    The abstract reports that IRNO lowers the error "consistently" across physical systems, by up to 56.05 %
    on turbulent flow; that on active matter the error relative to the base falls to 27.72–36.10 % at low,
    5.07–6.68 % at mid and 1.48–2.04 % at high frequencies, and stays there beyond the trained number of
    iterations; and that under local assumptions the induced operator is a contraction with a unique fixed
    point. The paper's theorem statement, band definitions and ablation tables were not reached; the
    contraction argument below is our derivation, and the band edges are ours.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    well_path = ""  # a local copy of The Well for the full profile ("" = our simulated flow; never downloaded)
    return profile, seed, well_path


@app.cell
def _(open_chapter, profile, seed, well_path):
    run, cfg = open_chapter("irno_neural_operator", profile, seed, well_path=well_path)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: fields of
    {cfg.n}×{cfg.n} simulated on a {cfg.n_sim}×{cfg.n_sim} grid, {cfg.train_traj} training and
    {cfg.test_traj} test trajectories, base operators trained {cfg.base_epochs} epochs, refiners (U-Net base
    {cfg.unet_base}, depth {cfg.unet_depth}) trained {cfg.irno_epochs} epochs with K = {cfg.K} unrolled steps of
    size α = {cfg.alpha}, evaluated to k = {cfg.eval_steps}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The flow: 2-D Kolmogorov turbulence from our own solver

    The Well and ERA5, and the pretrained FNO checkpoints the paper starts from, come from a hub that this
    book does not download from. All data here are simulated. The vorticity $\omega$ of an incompressible
    flow on the periodic square $[0,2\pi)^2$ obeys

    $$
    \partial_t\omega + \mathbf u\cdot\nabla\omega = \nu\Delta\omega - \mu\,\omega + A\sin(k_f y),
    \qquad \Delta\psi = -\omega,\quad \mathbf u = (\partial_y\psi, -\partial_x\psi),
    $$

    with the Kolmogorov forcing $A\sin(4y)$ feeding energy at wavenumber 4 and a weak linear drag $\mu$
    removing it at large scales. Our solver works in Fourier space: the velocity and the gradient of
    $\omega$ are products by $i\mathbf k$ there, the advection term is formed on the grid and transformed
    back with the 2/3 rule (modes beyond a third of the grid zeroed, so that products do not alias), the
    viscous and drag terms are treated implicitly (Crank–Nicolson) and advection explicitly (Heun's
    predictor–corrector). All trajectories advance as one batch of FFTs. Each field is simulated on a grid
    twice as fine as the one the networks see and truncated in Fourier space, so the fields carry energy up
    to the networks' Nyquist wavenumber.

    The solver's checks against what is known exactly:
    """)
    return


@app.cell
def _(ex, mo):
    _c = ex.solver_checks()
    mo.md(f"""
    | check (float64, {_c["n"]}², ν = {_c["nu"]}) | result |
    |---|---|
    | Taylor–Green vortex at t = 1 against $e^{{-2\\nu t}}$, dt = 0.02 / 0.01 | max error {_c["tg_error"][0.02]:.1e} / {_c["tg_error"][0.01]:.1e}, observed order {_c["tg_order"]:.2f} |
    | unforced inviscid run, 100 steps: energy, enstrophy | relative drift {_c["energy_drift"]:.1e}, {_c["enstrophy_drift"]:.1e} |
    | advection term of ω = cos x + cos 2y against its closed form 1.5 sin x sin 2y | max error {_c["nonlinear_error"]:.1e} |

    *Table: computed when the page was built; the unit tests check the same and a convergence in resolution.*
    """)
    return


@app.cell
def _(cfg, mo):
    _core = ("**At this profile (`controls = False`) only the core is trained:** the few-mode FNO with its "
             "plateau reference, the many-mode FNO, and IRNO on each of the two; the TFNO, the wider FNO, the "
             "long many-mode FNO, IRNO on the TFNO, the five ablations and the super-resolution task are not "
             "(the profile's time budget does not buy them converged; the rows that need them say so, and the "
             "`smoke` and `full` profiles train them).")
    mo.md(rf"""
    ## The task and the frozen bases

    Each sample is four consecutive frames of vorticity (spaced by $\Delta t$ in simulation time) and the
    target is the next frame; all fields are standardised with the training set's mean and standard deviation
    (VRMSE is computed in that space, as in The Well). Four base operators are trained by mean squared error
    and then frozen: a **few-mode FNO** (the main base), a **TFNO** with the same modes and Tucker-factorised
    spectral weights [@kossaifi2023tfno], a **many-mode FNO**, and a **larger FNO** (wider, trained for the
    base's epochs plus IRNO's) that spends IRNO's extra budget on the base itself. As references, each of the
    first three is also trained with that extra budget, from the same initialisation (the rows "… long"): if
    those epochs still lower a base's error by {cfg.plateau_tol:.0%} or more, it is not at a plateau and the claims that measure a
    gain over it (3 and 8) are left inconclusive (not converged); the long many-mode FNO is also a second capacity control for
    claim 9, one with more Fourier modes rather than more width. Then the refiners are trained on top of the
    frozen bases; each base's predictions on the training inputs are computed once and shared by every refiner
    trained on it. This is the expensive cell of the page, and it runs the study on each of the profile's
    {len(cfg.seeds)} seed(s), each on its own simulated data, bases and refiners; the figures show the first seed,
    the claims read every seed. {"" if cfg.controls else _core}
    """)
    return


@app.cell
def _(cfg, cpu_threads, ex, run):
    seeds = cfg.run_seeds(run.seed)
    with cpu_threads(1):                 # one artefact per seed; with two threads or more, seeds train side by side
        studies = run.cached_many([("irno-study", ex.study, cfg, _s) for _s in seeds])
    study = studies[0]
    return seeds, studies, study


@app.cell
def _(cfg, ex, mo, study):
    _t = study["task"]
    _rows = "\n".join(
        f"| {k} | {b['kwargs']['modes']} | {b['kwargs']['width']} | {b['params']:,} | {b['epochs']} | "
        f"{study['alone'][k].vrmse.mean():.4f} | {b['seconds']:.0f} s |" for k, b in study["bases"].items())
    _ref = study["runs"][("irno", "fno")]
    _spec, _, _ = ex.variant_spec(cfg, "irno", _t.x_train.shape[0])
    mo.md(f"""
    The data: {_t.x_train.shape[0]} training and {_t.x_test.shape[0]} test samples of {_t.n}×{_t.n} with
    {_t.channels} field(s), from independent trajectories ({"simulated" if _t.source == "simulated" else "read from " + _t.source}
    in {_t.seconds:.0f} s).

    | base | Fourier modes | width | parameters | epochs | test VRMSE | training time |
    |---|---|---|---|---|---|---|
    {_rows}

    The refiner has {_ref["params"]:,} parameters and trained in {_ref["seconds"]:.0f} s on the frozen FNO.
    The fixed-point weight warms up over {_spec.fp_warmup} updates.
    """)
    return


@app.cell
def _(cfg, ex, study, torch):
    _b = study["bases"]["fno"]
    model = ex.load_irno(cfg, _b, study["runs"][("irno", "fno")])
    x_show, y_show = study["task"].x_test[:8], study["task"].y_test[:8]
    with torch.no_grad():
        iterates = model(x_show, cfg.eval_steps)
    return iterates, model, x_show, y_show


@app.cell
def _(mo):
    mo.md(r"""
    ## Spectral bias, seen

    One test sample: the truth, the frozen FNO's prediction and IRNO's after $K$ steps, and below them a zoom on
    a quarter of the domain where the small eddies live. Then the energy in each shell of radial wavenumber,
    averaged over test samples, for the same three.
    """)
    return


@app.cell
def _(cfg, iterates, plots, y_show):
    plots.fields_figure(y_show, iterates[0], iterates[cfg.K], cfg.K)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: one test vorticity field, the frozen base's prediction and IRNO's after K steps (top), and a
    zoom on a corner (bottom), on one colour scale.*
    """)
    return


@app.cell
def _(cfg, iterates, plots, y_show):
    plots.spectra_figure(y_show, iterates, cfg.K)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the energy per radial wavenumber shell of the truth, the base and IRNO at K (left), and each
    prediction's share of the true energy (right).*
    """)
    return


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## The method: a damped fixed-point iteration on top of a frozen operator

    With $x$ the input frames and $\mathcal T_\text{{base}}$ the frozen operator,

    $$
    h_0 = \mathcal T_\text{{base}}(x), \qquad h_{{k+1}} = \mathcal F_x(h_k) = h_k + \alpha\,\Phi_\theta([x; h_k]),
    $$

    where $[x;h]$ stacks the channels and $\Phi_\theta$ is a U-Net with circular padding (the domain is
    periodic), a LayerNorm over the channels at each pixel, GELU activations, max-pooling down and bilinear
    upsampling up; its output layer starts with small weights (Xavier, gain 0.1), so at initialisation the
    iteration barely moves $h_0$. The same $\Phi_\theta$ is used at every step. Training unrolls $K$ steps and
    supervises every iterate:

    $$
    \mathcal L = \frac1K\sum_{{k=1}}^{{K}}\Big[\operatorname{{mean}}(h_k - y)^2 + \beta_\text{{spec}}\,
    \mathcal L_\text{{spec}}(h_k, y;\lambda_{{k-1}})\Big] + \beta_\text{{fp}}\,w(t)\,\operatorname{{mean}}\,
    \Phi_\theta([x; y])^2 .
    $$

    The spectral term compares amplitudes only,
    $\mathcal L_\text{{spec}} = \operatorname{{mean}}_\omega\tilde\rho(\omega)\,(|\hat h(\omega)| - |\hat y(\omega)|)^2$,
    with weights $\rho(\omega) = 1 + (|\omega|/0.5)^{{\lambda}}$ ($|\omega|$ in cycles per sample, Nyquist 0.5)
    normalised to mean one, and an exponent rising from $\lambda_0 = {cfg.lam_start:g}$ at the first step to $\lambda_{{K-1}} = {cfg.lam_end:g}$
    at the last: the later corrections are pushed towards the finest scales. Phase errors are left to the
    spatial term. The last term, warmed up over the first updates, asks the correction to vanish at the true
    field. The base runs without gradients; gradients flow through all $K$ steps. Our default sizes are far
    below the paper's; the `full` profile has the paper's U-Net (base 16, depth 4) and $K = 6$.

    ### Why iterate: the Banach argument and its floor (our derivation)

    Suppose that on a region $U$ holding the iterates $\mathcal F_x$ is a contraction,
    $\|\mathcal F_x(a) - \mathcal F_x(b)\|\le q\|a - b\|$ with $q < 1$. Banach's theorem gives a unique fixed
    point $h^\star = \mathcal F_x(h^\star)$ in $U$ and $\|h_k - h^\star\|\le q^k\|h_0 - h^\star\|$: the
    iteration converges geometrically, and running it longer than trained cannot make it diverge. How close is
    $h^\star$ to the truth $y$? Since $y - \mathcal F_x(y) = -\alpha\Phi_\theta([x;y])$,

    $$
    \|h^\star - y\| \le \|\mathcal F_x(h^\star) - \mathcal F_x(y)\| + \|\mathcal F_x(y) - y\|
    \le q\,\|h^\star - y\| + \alpha\|\Phi_\theta([x;y])\|,
    $$

    so $\|h^\star - y\|\le \alpha\|\Phi_\theta([x;y])\|/(1-q)$ and, by the triangle inequality,

    $$
    \|h_k - y\| \le q^k\,\|h_0 - h^\star\| + \frac{{\alpha\,\|\Phi_\theta([x;y])\|}}{{1 - q}}.
    $$

    The first term is what iterating buys; the second is an error floor, and it is exactly what the
    fixed-point regulariser makes small. Nothing in training enforces $q < 1$, so below we measure it: the
    spectral norm of the Jacobian $\partial\mathcal F_x/\partial h = I + \alpha\,\partial_h\Phi_\theta$ at test
    iterates, matrix free, from products $Jv$ and $J^\top u$ (`torch.func.jvp` and `vjp`). Power iteration on
    $J^\top J$ is the textbook way, but a map close to the identity has its top singular values crowded near
    one, where power iteration converges slowly, and a Rayleigh quotient that has not converged is an
    underestimate, which would tilt a "below one" test towards passing. The chapter therefore uses Lanczos on
    $J^\top J$ with the same products (one JVP and one VJP per step); both are tested against the dense
    Jacobian (`torch.func.jacrev`) on a 16² grid, and the two are compared on this page's iterates below.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Error along the iteration, to K and on to 2K

    The mean test VRMSE at each step $k$ for IRNO and for each ablation, all trained the same number of
    epochs on the same frozen FNO (the one-shot corrector is the same U-Net trained with $K = 1$ and then
    iterated anyway; the unshared stack has $K$ separate U-Nets, and past $K$ repeats its last one).
    """)
    return


@app.cell
def _(cfg, plots, study):
    _e = study["evals"]
    plots.vrmse_figure({v: _e[(v, "fno")] for v in ("irno", "no_spectral", "const_lambda", "no_fp", "k1", "unshared")
                        if (v, "fno") in _e}, cfg.K)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: test VRMSE along the refinement for IRNO and each ablation trained at this profile (IRNO alone
    where the profile trains no ablation), on the few-mode FNO base; the dashed line marks the K steps it was
    trained for.*
    """)
    return


@app.cell
def _(cfg, claims, mo, studies):
    evals_seeds = [_st["evals"][("irno", "fno")] for _st in studies]
    check1 = claims.claim1(evals_seeds, cfg)
    check2 = claims.claim2(evals_seeds, cfg)
    _long = [_st["alone"]["fno_long"].vrmse[0] for _st in studies]
    check3 = claims.claim3(evals_seeds, _long, cfg)
    mo.md(f"""
    {len(evals_seeds)} seed(s) enter the claims below (fresh data, base and refiner per seed).

    {check1.sentence("Claim 1")} {check1.reason or ""}

    {check2.sentence("Claim 2")} {check2.reason or ""}

    {check3.sentence("Claim 3")} {check3.reason or ""}
    """)
    return check1, check2, check3, evals_seeds


@app.cell
def _(mo):
    mo.md(r"""
    ## Where in the spectrum the error goes

    For each test sample and each shell of integer radial wavenumber $r = \operatorname{round}|\mathbf k|$,
    $E_k(r) = \sum_{|\mathbf k| \approx r}|\hat h_k(\mathbf k) - \hat y(\mathbf k)|^2$; the curves are the median
    over samples of $E_k(r)/E_0(r)$, the error left after $k$ steps relative to the base's. The band ratios sum
    $E$ over a band before dividing. The bands are ours (the paper's edges were not read): thirds of the axis
    Nyquist $n/2$, low $(0, n/6]$, mid $(n/6, n/3]$, high $(n/3, n/2]$; the corner shells beyond $n/2$, which
    exist only along diagonals, are kept apart.
    """)
    return


@app.cell
def _(plots, study):
    plots.ratio_figure(study["evals"][("irno", "fno")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the median error per shell relative to the base's, after each refinement step, on the
    few-mode FNO base; the grey shells lie beyond the axis Nyquist.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    The few-mode FNO keeps only its lowest Fourier modes, and the low band ends near its cut-off, so on it
    alone the ordering could come from what the base cannot represent. The same figure for IRNO on the
    many-mode FNO, whose modes reach into the high band:
    """)
    return


@app.cell
def _(plots, study):
    plots.ratio_figure(study["evals"][("irno", "fno_many")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the same ratios on the many-mode FNO base.*
    """)
    return


@app.cell
def _(cfg, claims, evals_seeds, mo, studies):
    check4 = claims.claim4(evals_seeds, [_st["evals"][("irno", "fno_many")] for _st in studies], cfg)
    mo.md(f"""
    {check4.sentence("Claim 4")} {check4.reason or ""}
    """)
    return (check4,)


@app.cell
def _(mo):
    mo.md(r"""
    ## What each ingredient does: the ablations

    Each row is a refiner trained from the same initialisation (for the unshared stack, its first U-Net), for
    the same epochs, on the same frozen FNO, with one thing changed; every seed repeats them on its own data
    and base (the table says which). Intervals are 95 % bootstraps over test trajectories.
    """)
    return


@app.cell
def _(cfg, irno, mo, np, plots, studies):
    ablation_evals = [{_v: _st["evals"][(_v, "fno")] for _v in irno.VARIANTS if (_v, "fno") in _st["evals"]}
                      for _st in studies]
    _rows = []
    for _v in ablation_evals[0]:
        for _st, _e in zip(studies, ablation_evals):
            _ev = _e[_v]
            _b = _ev.band(_ev.K)
            _rows.append(f"| {plots.NAMES[_v]} | {_st['seed']} | {_ev.vrmse[_ev.K].mean():.4f} | "
                         f"{_ev.vrmse[2 * cfg.K].mean():.4f} | {np.median(_b['low']):.1%} | {np.median(_b['mid']):.1%} | "
                         f"{np.median(_b['high']):.1%} | {_ev.phi_y.mean():.4f} | {_st['runs'][(_v, 'fno')]['params']:,} |")
    if cfg.controls:
        _caps = "; ".join(f"seed {_st['seed']}: the larger base alone {_st['alone']['fno_large'].vrmse.mean():.4f}, "
                          f"the long many-mode base {_st['alone']['fno_many_long'].vrmse.mean():.4f}" for _st in studies)
        _caps = (f"The capacity controls of claim 9, test VRMSE: {_caps} (with "
                 f"{studies[0]['bases']['fno_large']['params']:,} and "
                 f"{studies[0]['bases']['fno_many_long']['params']:,} parameters).")
    else:
        _caps = ("At this profile (`controls = False`) the ablations and the capacity controls of claim 9 are not "
                 "trained: the table holds IRNO alone, and claims 5, 6 and 9 below read only its plateau test.")
    mo.md("| variant | seed | VRMSE at its K | VRMSE at 2K | low | mid | high | RMS Φ([x; y]) | parameters |\n"
          "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(_rows) +
          f"\n\n*Table: band ratios at the variant's own K (K = 1 for the one-shot corrector). {_caps}*")
    return (ablation_evals,)


@app.cell
def _(ablation_evals, cfg, claims, mo, studies):
    _col = lambda v: [_e[v] for _e in ablation_evals] if v in ablation_evals[0] else None  # noqa: E731
    _alone = lambda b: [_st["alone"][b] for _st in studies] if b in studies[0]["alone"] else None  # noqa: E731
    check5 = claims.claim5(_col("irno"), _col("no_spectral"), _col("const_lambda"), cfg)
    check6 = claims.claim6(_col("irno"), _col("no_fp"), cfg)
    check9 = claims.claim9(_col("irno"), _col("k1"), _alone("fno_large"), _alone("fno_many_long"), cfg)
    mo.md(f"""
    {check5.sentence("Claim 5")} {check5.reason or ""}

    {check6.sentence("Claim 6")} {check6.reason or ""}

    {check9.sentence("Claim 9")} {check9.reason or ""}
    """)
    return check5, check6, check9


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## Is the learned update a contraction?

    Left: the size of each correction $\|h_{{k+1}} - h_k\|$ (RMS over the grid, mean over test samples) against
    $k$, with the fitted geometric rate. Right: the Lipschitz constant of $\mathcal F_x$ (Lanczos, {cfg.lip_iters} steps) at
    $h_0$, $h_K$ and $h_{{2K}}$ for {cfg.lip_samples} test inputs (windows), spread over the test trajectories (one
    window of each first). Both are on the first seed;
    claim 7 reads every seed.
    """)
    return


@app.cell
def _(cfg, claims, evals_seeds):
    check7 = claims.claim7(evals_seeds, cfg)
    return (check7,)


@app.cell
def _(check7, plots, study):
    plots.contraction_figure(study["evals"][("irno", "fno")], check7.values["rate_all"][0] if check7.values else float("nan"))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the size of the correction $h_{k+1}-h_k$ along the iteration with its fitted geometric rate
    (left), and the update map's Lipschitz constants at three iterates (right; below 1 is a contraction).*
    """)
    return


@app.cell
def _(cfg, check7, ex, irno, mo, model, np, study, torch):
    _ev = study["evals"][("irno", "fno")]
    _mm = min(cfg.lip_samples, 8)
    _x = study["task"].x_test[:_mm]
    with torch.no_grad():
        _hK = model(_x, cfg.K)[cfg.K]
    _f = lambda h: model.update(_x, h)  # noqa: E731
    _pw = irno.lipschitz_power(_f, _hK, iters=30, generator=torch.Generator().manual_seed(0),
                               products=ex.LIP_PRODUCTS).numpy()
    _lz = irno.lipschitz_lanczos(_f, _hK, steps=cfg.lip_iters, generator=torch.Generator().manual_seed(0),
                                 products=ex.LIP_PRODUCTS).numpy()
    _cmp = (f"On {_mm} of these inputs at h_K, 30 power iterations give a median {np.median(_pw):.4f}, "
            f"{cfg.lip_iters} Lanczos steps {np.median(_lz):.4f} (largest gap {np.max(_lz - _pw):.4f}).")
    _L = _ev.lipschitz.get(cfg.K, np.array([np.nan]))
    _q = float(np.max(_L))
    _m = len(_L)
    if _q < 1:
        _floor = cfg.alpha * _ev.phi_y[:_m] / (1 - _q)
        _bound = (f"On the first seed, with q = {_q:.3f} (the largest measured constant at h_K) the derived floor "
                  f"α‖Φ([x;y])‖/(1−q) is {np.median(_floor):.4f} (median, RMS units) against a measured error "
                  f"‖h_K − y‖ of {np.median(_ev.err[cfg.K][:_m]):.4f}.")
    else:
        _bound = (f"On the first seed the largest measured constant at h_K is {_q:.3f} ≥ 1, so the Banach bound does not apply to "
                  "these iterates.")
    mo.md(f"""
    {check7.sentence("Claim 7")} {check7.reason or ""}

    {_bound} {_cmp}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Plug-and-play on other bases

    The same recipe (same U-Net, loss and epochs) on the frozen TFNO and on the many-mode FNO.
    """)
    return


@app.cell
def _(cfg, claims, mo, studies):
    _ev = lambda b: [_st["evals"][("irno", b)] for _st in studies] if ("irno", b) in studies[0]["evals"] else None  # noqa: E731
    _longs = ([[_st["alone"][_b].vrmse[0] for _b in ("fno_long", "tfno_long", "fno_many_long")] for _st in studies]
              if cfg.controls else None)
    check8 = claims.claim8(_ev("fno"), _ev("tfno"), _ev("fno_many"), _longs, cfg)
    check8x = claims.claim8x(_ev("fno"), _ev("tfno"), _ev("fno_many"), _longs, cfg)
    mo.md(f"""
    {check8.sentence("Claim 8")} {check8.reason or ""}

    Our extra row (beyond the abstract): {check8x.sentence("claim 8x")} {check8x.reason or ""}
    """)
    return check8, check8x


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## Super-resolution: a stand-in for the paper's ERA5 task

    The paper also refines a super-resolution operator on ERA5 reanalysis (16× and 8× finer). ERA5 is not
    reachable here, so we pose the same kind of problem on our flow. Fine fields are snapshots of independent
    Kolmogorov trajectories, simulated on a finer grid (its size is given below) and truncated in Fourier space, so that
    the fields carry energy up to their Nyquist wavenumber; each is observed
    only through **block averages** over cells four fine points wide (a coarse-grained observation, as a
    reanalysis at lower resolution reports cell means). The operators see that coarse field interpolated back
    to the fine grid by Fourier zero-padding (its band-limited interpolant, with no energy at wavenumbers the
    coarse grid cannot hold) and must return the fine field. The base is a few-mode FNO trained by mean squared
    error and then frozen; IRNO is trained on top of it with the recipe of the main study (same U-Net, $K$,
    $\alpha$, progressive spectral loss and fixed-point term). The small scales are not determined by the
    block averages, so part of the error cannot be removed by any operator.

    The two metrics of the paper's ERA5 table, per test sample:

    $$
    \mathrm{{RFNE}} = \frac{{\|h - y\|_F}}{{\|y\|_F}}, \qquad
    \mathrm{{ACC}} = \frac{{\sum (h - c)(y - c)}}{{\sqrt{{\sum (h - c)^2\,\sum (y - c)^2}}}},
    $$

    with sums over the grid, $y$ the fine truth in physical units (RFNE is not invariant to a shift, so it is
    not computed on z-scored fields), and $c$ the climatology, the per-pixel mean of the training targets (the
    mean flow $\propto\sin 4y$ of the forcing); no latitude weights, since the cells of a periodic square are
    equal. Both are tested against direct formulas. Claims 10 and 11 were written, with thresholds taken from
    the config of the main claims ({cfg.effect_min:.0%} and {cfg.gain_min:.0%}), before the first super-resolution run. Their precondition
    was added after the first smoke run, where claim 10 passed over a base that had hardly trained (RFNE 1.0,
    worse than interpolating the observation): they are decided only where the base beats the interpolated
    observation and is at a plateau (the same base trained with IRNO's extra epochs too gains less than {cfg.plateau_tol:.0%}).
    The change can only turn a row inconclusive.
    """)
    return


@app.cell
def _(cfg, cpu_threads, ex, run, seeds):
    if cfg.controls:
        with cpu_threads(1):
            srs = run.cached_many([("irno-sr", ex.sr_study, cfg, _s) for _s in seeds])
        sr = srs[0]
    else:                                # not run at this profile (controls = False): claims 10 and 11 say why
        srs = sr = None
    return sr, srs


@app.cell
def _(cfg, ex, mo, plots, sr, torch):
    if sr is None:
        _out = mo.md(f"""
        *The super-resolution task is not run at this profile (`controls = False`): its refiner's recipe
        ({cfg.sr_irno_epochs} epochs) is shorter than the plateau test reads, and the budget of one core does not buy
        more. The `smoke` and `full` profiles run it.*
        """)
    else:
        _t = sr["task"]
        _m = ex.load_sr_irno(cfg, sr)
        with torch.no_grad():
            _its = _m(_t.x_test[:4], cfg.K)
        _fig = plots.sr_fields_figure(_t.coarse_test[:4], _t.y_test[:4], _its[0], _its[cfg.K], cfg.K)
        _out = mo.vstack([mo.md(f"""
        The task: {_t.x_train.shape[0]} training and {_t.x_test.shape[0]} test snapshots
        ({cfg.sr_train_traj} and {cfg.sr_test_traj} trajectories, {cfg.sr_frames} snapshots each,
        {cfg.sr_dt_frame:g} time units apart), {_t.coarse}² block averages to {_t.fine}² fields (simulated at
        {cfg.sr_sim}², in {_t.seconds:.0f} s). The base FNO ({cfg.sr_base_modes} modes, width {cfg.base_width},
        {sr["base_params"]:,} parameters) trained {cfg.sr_base_epochs} epochs in {sr["base_seconds"]:.0f} s, the
        refiner ({sr["refiner_params"]:,} parameters) {cfg.sr_irno_epochs} epochs in {sr["irno_seconds"]:.0f} s.
        """), _fig, mo.md("*Figure: top, the coarse observation, the base's and IRNO's fine fields; bottom, the "
                          "truth and the two errors on a common colour scale.*")])
    _out
    return


@app.cell
def _(cfg, claims, mo, plots, sr, srs):
    _args = (([_r["eval"] for _r in srs], [_r["long_rfne"] for _r in srs], [_r["interp_rfne"] for _r in srs], cfg)
             if srs is not None else (None, None, None, cfg))
    check10 = claims.claim10(*_args)
    check11 = claims.claim11(*_args)
    _text = mo.md(f"""
    {check10.sentence("Claim 10")} {check10.reason or ""}

    {check11.sentence("Claim 11")} {check11.reason or ""}
    """)
    if srs is None:
        _out = _text
    else:
        _out = mo.vstack([plots.sr_curve_figure(sr["eval"]), mo.md(f"""
        *Figure: mean test RFNE (left, lower is better) and ACC (right, higher is better) against the refinement
        step on the first seed; dashed: the trained horizon K. The claims below read each of the {len(srs)} seed(s);
        intervals are 95 % bootstraps over test trajectories.*
        """), _text])
    _out
    return check10, check11


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Step through the iteration on one test sample: the prediction, its error and its shell spectrum at step
    $k$. The step size α used at test time and the number of evaluation steps can be changed too (the refiner
    was trained with the α of the config; other values show how much the learned map depends on it). On the
    website the controls show the values this page was built with.
    """)
    return


@app.cell
def _(cfg, mo):
    k_slider = mo.ui.slider(0, 3 * cfg.K, value=cfg.K, label="iteration k")
    alpha_slider = mo.ui.slider(steps=[0.05, 0.1, 0.2, 0.3, 0.5], value=cfg.alpha, label="step size α (test time)")
    sample_pick = mo.ui.slider(0, 7, value=0, label="test sample")
    mo.hstack([k_slider, alpha_slider, sample_pick])
    return alpha_slider, k_slider, sample_pick


@app.cell
def _(alpha_slider, cfg, ex, k_slider, plots, sample_pick, study, torch, x_show, y_show):
    _m = ex.load_irno(cfg, study["bases"]["fno"], study["runs"][("irno", "fno")], alpha=float(alpha_slider.value))
    with torch.no_grad():
        _its = _m(x_show, int(k_slider.value))
    plots.playground_figure(y_show, _its, int(k_slider.value), int(sample_pick.value))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the chosen test sample's prediction and error at the chosen step, and its shell energies
    against the truth and the base (the title gives the step and the RMS error).*
    """)
    return


@app.cell
def _(cfg, claims, mo, seeds, srs, studies):
    _named = [(f"{_v} on {_b}, seed {_s}", _ev) for _s, _st in zip(seeds, studies, strict=True)
              for (_v, _b), _ev in _st["evals"].items()]
    if srs is not None:
        _named += [(f"super-resolution refiner, seed {_s}", _r["eval"]) for _s, _r in zip(seeds, srs, strict=True)]

    def _yes(_g):
        return ("yes" if _g["converged"] else "**no**") + f" (< {_g['allowed']:.2%})"

    _rows = "\n".join(
        f"| {_r['name']} | {_r['epochs']} | {_r['early']:.4f} (update {_r['early_step']}) | {_r['end']:.4f} (update "
        f"{_r['steps']}) | {_r['change']:+.2%} | {_yes(_r['effect_min'])} | {_yes(_r['gain_min'])} |"
        for _r in claims.guard_table(_named, cfg))
    mo.md(f"""
    ## The convergence guard, per refiner

    Every row that reads a trained refiner first asks whether it has converged (contract rule 10): training
    {cfg.plateau_extend:.0%} longer must move the metric the row compares by less than {cfg.plateau_share:.2f} of
    the row's margin. The metric is the refiner's mean test VRMSE at its K (RFNE at K for super-resolution),
    measured on the same run's weights after 2/3 of its updates and at its end (one extra evaluation, no extra
    training); the change is relative to the end value. The margins are `effect_min` ({cfg.effect_min:.0%}; claims
    1, 2, 4-10) and `gain_min` ({cfg.gain_min:.0%}; claims 3 and 11), and a recipe of fewer than 10 epochs never
    passes. A row whose refiner fails is *inconclusive at this scale* (not converged), its numbers kept.

    | refiner | epochs | after 2/3 of the updates | at the end | change | passes at effect_min | passes at gain_min |
    |---|---|---|---|---|---|---|
    {_rows}

    *Table: computed from this run; each refiner on each of the {len(seeds)} seed(s).*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, on this run's numbers; the alternative the rule rejects is named
    under it. The paper's benchmark numbers (The Well, ERA5) are quoted as the paper's and marked not
    testable, with the reason.
    """)
    return


@app.cell
def _(ClaimsLedger, check1, check10, check11, check2, check3, check4, check5, check6, check7, check8, check8x,
      check9, run):
    ledger = ClaimsLedger("irno_neural_operator", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check8, check10, check11, check7, check8x,
                      check9)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(
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
    check8x,
    check9,
    cfg,
    claims,
    irno,
    mo,
    run,
):
    _checks = {"C1": check1, "C2": check2, "C3": check3, "C4": check4, "C5": check5, "C6": check6, "C7": check7,
               "C8": check8, "C8x": check8x, "C9": check9, "C10": check10, "C11": check11}
    _needs = claims.full_needs(_checks, cfg, irno.PRESETS["full"])
    # its own mo.md of unindented lines (inside an indented f-string a multi-line value keeps its indentation in the
    # papermill export and renders as a nested list)
    _lines = "\n".join(f"- {_n}" for _n in _needs) if _needs else "- none: every row was decided at this profile."
    mo.vstack([mo.md(f"""
    **Rows inconclusive at profile `{run.profile}`, and what the `full` preset gives them.** The `default`
    profile must run within 10 minutes on one core, which does not buy converged refiners here; those rows
    are *inconclusive at this scale* and are decided by a `full` run (sized for a GPU: `--profile full`):
    """), mo.md(_lines)])
    return


@app.cell
def _(cfg, claims, mo, seeds, study):
    _b = study["bases"]
    if cfg.controls:
        _controls = (f"Claim 9 has two capacity controls, each trained with the extra epochs: a wider FNO with the "
                     f"same {cfg.base_modes} modes ({_b['fno_large']['params']:,} parameters), and the many-mode FNO "
                     f"with {cfg.many_modes} modes ({_b['fno_many_long']['params']:,} parameters), capacity where "
                     "the base's error is (width cannot undo a mode truncation). Both are trained on every seed.")
        _seeds_run = ("the bases, IRNO and all its ablations, IRNO on the TFNO and many-mode bases, the Lipschitz "
                      "profile at 0, K and 2K, and the super-resolution task")
    else:
        _controls = ("Claim 9's capacity controls (a wider FNO and the many-mode FNO, each trained with the extra "
                     "epochs), the five ablations of claims 5, 6 and 9, the TFNO and IRNO on it (claims 8, 8x), "
                     "and the super-resolution task (claims 10, 11) are **not trained at this profile** "
                     "(`controls = False`), to fit its budget of ten minutes on one core. What the profile loses: "
                     "those rows read only the plateau test of the refiners it trains, and are inconclusive (not "
                     "converged) where those fail it, as they did on every run of this default so far; the page "
                     "shows no ablation curves, no capacity controls and no super-resolution figures. The `smoke` "
                     "profile trains every arm (so every code path runs in the tests), and `full` decides them.")
        _seeds_run = ("the few-mode FNO with its plateau reference, the many-mode FNO, IRNO on both, and the "
                      "Lipschitz profile at 0, K and 2K")
    mo.md(f"""
    ## How this chapter differs from the paper

    - **The Well.** The `full` profile can run the main study on a local copy of The Well's Active Matter
      (parameter `well_path`; 11 fields, z-scored per field; read with h5py, never downloaded); this page
      {"used it (" + cfg.well_path + ")" if cfg.well_path else "did not"}. The turbulent radiative layer
      (384×128) is not supported: the spectral bands here need a square grid. No pretrained checkpoints are read.
    - **Data.** Synthetic 2-D Kolmogorov flow from our own solver at {cfg.n}² (simulated at {cfg.n_sim}²), one
      field, {cfg.train_traj} training trajectories; the paper uses The Well's turbulent radiative layer
      (384×128, 4 fields) and active matter (256², 11 fields) and ERA5 at 720×1440. No data or checkpoints
      are downloaded here.
    - **Bases.** Trained here, on the same splits, then frozen: FNO and TFNO written in this book's library
      (`neuraloperator` 2.0.0 would pull in about 25 further packages, among them wandb and an OpenTelemetry
      stack; the Fourier layer is tested against its known multiplier instead). The paper starts from The
      Well's benchmark checkpoints. The bases are limited only by their number of Fourier modes
      ({cfg.base_modes} of {cfg.n // 2}) and by their training budget ({_b["fno"]["epochs"]} epochs).
    - **Scale.** A U-Net of base {cfg.unet_base} and depth {cfg.unet_depth}, K = {cfg.K}, {cfg.irno_epochs}
      epochs, learning rate {cfg.irno_lr:g}; the paper: base 16, depth 4, K = 6, 150 epochs, 3e-4. The `full`
      profile runs the paper's sizes on a 128² version of this flow.
    - **Reconstructions.** The contraction argument and its error floor are our derivation; the low/mid/high
      band edges are ours (the low band ends at n/6 = {cfg.n / 6:.1f}, near the few-mode base's cut-off of
      {cfg.base_modes} modes, so on that base the ordering is partly set by the choice; claim 4 is therefore
      decided on the many-mode base, {cfg.many_modes} modes, as well); the paper's ablation tables were not read, so claims 5, 6 and 9 test the dossier's
      reading of what they should show. The official code's validation outlier filter, NaN-batch skipping and
      best-checkpoint selection are not used: the refiner after its last epoch is evaluated.
    - **Controls.** {_controls}
    - **Rules made stricter after a run.** Claims 1, 2, 3, 4, 7 and 8 were tightened after the default run on
      main a8cdca2 (C5 and C8 reproduced there, the others not), because a rule-breaking review found inputs
      they passed wrongly: claim 1 accepted a corrector that does nothing after its first step (now the steps
      after the first must lower the error too); claim 2 was one-sided (an iteration still moving by more than
      5 % past K has not settled either); claims 3 and 8 could be met by an under-trained base (now decided only
      at a plateau); claim 4 ordered medians with no margin, so a uniform reduction passed (now paired
      differences with intervals); claim 7 fitted the decay across K, so corrections that stop shrinking at K
      passed (now fitted on K..2K−1 as well). Each change can only turn a row from reproduced to not
      reproduced or undecided; no threshold was loosened. A second note of the review (on commit c1d5637)
      found the two-sided claim 2 rejecting a geometric convergence still 6 % lower at 2K: a fall past K
      now counts only where the corrections past K settle (they at least halve between K and 2K; "shrink at
      all" let the smoke run's rate of 0.992 pass, so the halving was set after that smoke run), which is
      still stricter than the first, one-sided form. It also found that a percentile bootstrap over 4-12 test trajectories undercovers: every interval
      is now the union of that bootstrap's and a t-interval over per-trajectory values (only wider). Recomputed
      on the default run's evaluations, neither change moved a verdict. After the default run on main 67dd53f
      (C5 and C8 reproduced, C3 undecided, the rest not reproduced), five more changes, each again only
      stricter: claim 2 also fails when a correction past K grows (a fitted decay rate can hide corrections that
      grow again in the last steps; found by the second review); claims 5, 6 and the one-shot half of 9 are
      decided on every seed, now that the ablations run on each; claim 4 must hold on the many-mode base too;
      claim 8 needs each of its three bases at a plateau, not only the few-mode FNO; claim 9 adds the many-mode
      capacity control. Changed in session 6, again only stricter: claims 4, 7, 8, 9 (its two capacity
      controls), 10 and 11 are now decided over seeds (each must hold on every seed), before on the first seed
      only, since every experiment now runs on every seed. A third rule-breaking review (session 6) found inputs
      the rules passed or left undecided wrongly, and each is now a test that must fail: claims 3, 8, 10 and 11
      fail as soon as one seed's (or base's) gain misses its bar, whether or not that base is at a plateau (an
      under-trained base only inflates a gain; before, a failing seed off its plateau left the row undecided);
      claim 8's gain must also beat what the same base gains from the extra epochs, as claim 10's did; claim 1
      asks every step to lower the error by more than {cfg.step_min:.1%} with 95 % confidence (its no-rise test
      alone was a sign test, so a step that did nothing passed at −0.001 % and failed at +0.001 %); claim 2 also
      fails when one test trajectory alone rises more than {cfg.traj_extrap_tol:.0%} past K; claim 6 also compares
      the drift past K, not only the level at 2K (an ablation uniformly worse at every step passed); claim 7's
      corrections past K must at least halve by 2K, as in claim 2 (shrinking by 0.1 % a step passed); and a rule
      given no seed raises instead of returning reproduced; a second pass over those rules found that "on
      every seed" was not checked against the profile (claim 3 given the first of the default's two seeds
      returned reproduced), so a rule given fewer inputs than the profile's seeds now raises too. The verdicts
      on this page are computed under these rules.
    - **Seeds.** {len(seeds)} seed(s), {", ".join(map(str, seeds))}: each runs every experiment of the profile on
      its own simulated data ({_seeds_run}), and every claim is decided on each seed. The figures show the
      first seed.
    - **Time budget** (measured while developing the chapter, not on this page). Training the variants of a
      seed batched (their stacked weights under `torch.func.vmap`, which runs grouped convolutions) measured no
      faster on the CPU than one after another, so the chapter does not do it; the base's predictions on the
      training set are computed once per base instead of in every update (about 8 % of a refiner's update). The
      default profile simulates the super-resolution flow at 96² instead of 128² (its 2/3 rule still keeps every
      mode of the 64² fields below their Nyquist wavenumber) with 16 training trajectories instead of 20. Each
      seed's study and each seed's super-resolution task is one cached artefact, so with two threads the seeds
      train side by side. With every experiment on both seeds the default profile measured 23.2 min of CPU time
      end to end, and 27.7 min on one thread through the book's benchmark (session 10), against a budget of 10
      minutes on one core; so the `default` profile now runs one seed, trains the refiners
      {cfg.irno_epochs} epochs, and trains the control arms only where `controls` is set (here: {cfg.controls};
      the **Controls** item above says what is lost without them). The chapter's config states the parts.
    - **The contract's second edition** (after an outside audit; every change only makes a row stricter or
      inconclusive). Four verdicts: "not reproduced" now needs a 95 % interval lying entirely past the rule's bar;
      an interval that straddles it is *inconclusive at this scale* (interval spans both), and a base off its
      plateau, "undecided" before, is *inconclusive* (not converged). Converged before compared: the audit found
      the refiners trained {cfg.irno_epochs} epochs far from converged (three times the epochs more than doubled
      the gain), so claims 3, 5, 6, 8, 8x, 9, 10 and 11 first run a declared plateau test on every refiner they
      compare, and since session 11 claims 1, 2, 4 and 7 on every refiner they read (a default run had printed
      them not reproduced on a refiner that failed the test, the kind of verdict rule 10 forbids) (training
      {cfg.plateau_extend:.0%} longer must move the compared metric, the refiner's mean test VRMSE at K (RFNE
      at K for super-resolution), by less than {cfg.plateau_share:.2f} of the rule's margin relative to its final
      value, measured on the same run after 2/3 of its updates and at its end; since session 12: the test read the
      training loss before, which a tiny refiner barely moves while its test metric may still move) and are
      inconclusive (not converged) otherwise; the section "The convergence guard, per refiner" shows each
      measurement. The nearest trivial methods run for real through every rule in the tests (the base
      behind an identity refiner, the one-shot corrector, the ablation without the rule's ingredient); claim 2
      passed the identity refiner (an iteration that never moves never drifts) and now also needs a gain at K.
      Since session 12 (an outside review) two tests count against their rows only on an interval: claim 2's
      growth of a correction past K must have its 95 % lower bound above {cfg.growth_min:.0%} a step (a point test
      at 0 had read corrections settled at a numerical floor and wobbling by 1 % as "not reproduced"; a pass now
      needs the upper bound at or below 0), and claim 7's share of samples with a Lipschitz constant below
      {cfg.lip_max:g} must have its exact binomial 95 % interval wholly below {cfg.lip_share:.0%} (the point share
      over 16 samples had read a true share of 0.95 as "not reproduced" about one time in five); between, the row
      is inconclusive. Since session 13 that share passes on its interval too, no longer on the point share (15 of
      16 samples below {cfg.lip_max:g}, an interval reaching down to 70 %, had passed): the interval's lower end
      must reach {cfg.lip_share:.0%}, which takes {claims.lip_samples_needed(cfg.lip_share)} samples with none at
      or above {cfg.lip_max:g}; this profile draws {cfg.lip_samples}. Since session 14 (a review) those samples
      are counted by trajectory, since windows of one trajectory move together: a trajectory counts for the pass
      only when all its samples are below {cfg.lip_max:g}, and against the row only when none is, so the pass needs
      {claims.lip_samples_needed(cfg.lip_share)} test trajectories; this profile has {cfg.test_traj}. Likewise claim 2's pooled rise past K,
      VRMSE_k / VRMSE_K − 1, is read on its 95 % cluster-bootstrap interval since session 13 (a pass needs every
      upper bound at or below {cfg.extrap_tol:.0%}, evidence against a lower bound above it; before, a point test,
      so a drift at the bar read either way on the draw of test trajectories).
      Claim 8's bar "above what the base gains from the extra epochs" and claim 9's capacity controls are our own
      checks, not the abstract's: the bar is row 8x and both sit after the abstract's rows. Claim 7 measures
      whether our learned updates meet the theorem's contraction assumption; it is not the theorem, which is the
      not-testable row T1 (a proof).
    - **Super-resolution.** ERA5 (45×90 or 90×180 to 720×1440, several variables, latitude-weighted ACC) is
      replaced by {cfg.sr_coarse}² block averages of our one-field flow to {cfg.sr_fine}² (a factor
      {cfg.sr_fine // cfg.sr_coarse}), a base FNO trained here instead of the paper's FNO and WDSR checkpoints,
      {len(seeds)} seed(s), and ACC without latitude weights against a climatology of the training snapshots.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - X. Liu, S. Shang, X. Wang, P. Ren, Y. Yang. *Iterative Refinement Neural Operators are Learned Fixed-Point
      Solvers: A Principled Approach to Spectral Bias Mitigation.* ICML 2026 [@liu2026irno].
    - Z. Li et al. *Fourier Neural Operator for Parametric Partial Differential Equations.* ICLR 2021 [@li2021fno].
    - J. Kossaifi et al. *Multi-Grid Tensorized Fourier Neural Operator for High-Resolution PDEs.* 2023 [@kossaifi2023tfno].
    - N. Rahaman et al. *On the Spectral Bias of Neural Networks.* ICML 2019 [@rahaman2019spectral].
    - R. Ohana et al. *The Well.* NeurIPS 2024 Datasets and Benchmarks [@ohana2024well].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
