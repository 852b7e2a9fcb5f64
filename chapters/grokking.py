import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="To Grok Grokking")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import grokking as gk
    from icmlbook.papers.grokking import plots
    from icmlbook.papers.grokking.playground import playground_curves
    from icmlbook.runtime import ClaimsLedger, open_chapter, pick_device, show_plotly
    return ClaimsLedger, gk, mo, np, open_chapter, pick_device, playground_curves, plots, show_plotly


@app.cell
def _(mo):
    mo.md(r"""
    # To Grok Grokking: provable grokking in ridge regression

    *Grokking* is the name for a network that fits its training set early, looks useless on new data
    for a long time, and then, much later and without any change to the training recipe, starts to
    generalise. Xu, Vardi and Safran [@xu2026grokking] show that nothing exotic is needed for it:
    plain gradient descent with weight decay on **over-parameterised linear regression** already groks,
    and the length of the delay can be written down. Directions of parameter space that the training
    inputs never touch keep whatever the random initialisation put there, and only weight decay wears
    them away, at the slow rate $\eta\lambda$ per step. The paper bounds the resulting delay in terms of
    the training hyperparameters and says it can be amplified or eliminated by tuning them.

    This chapter derives those dynamics exactly, measures the fit and grokking times on simulated
    problems, compares each measurement with the time scale our derivation predicts, and then asks
    whether the same dependence on the step size, the weight decay and the initial scale shows up in a
    small non-linear network on modular addition. Every verdict on this page is computed by this run.
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
    | **Paper** | *To Grok Grokking: Provable Grokking in Ridge Regression* |
    | **Authors** | Mingyue Xu (Purdue), Gal Vardi (Weizmann Institute), Itay Safran (Ben-Gurion University) |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2601.19791](https://arxiv.org/abs/2601.19791) |
    | **Code** | none published that we could find |

    The abstract's results, and the rows of the claims ledger at the end that answer them (the
    quantitative forms are our derivation of the paper's setting; its theorems were not reachable):

    - "(i) the model overfits the training data early during training": **C1**, the fit time scales like
      $\ln(L_n(\theta_0)/\epsilon)/(\eta(s_{\min}+\lambda))$, with weight decays up to a few $s_{\min}$;
    - "(ii) poor generalization persists long after overfitting has manifested": **C2**, the test loss
      sits on a plateau of height $\tfrac12\nu^2\operatorname{tr}(P_N\Sigma)$ and is still high at $t=c/(\eta\lambda)$;
    - "(iii) the generalization error eventually becomes arbitrarily small": **C3**;
    - grokking "can be amplified or eliminated … through proper hyperparameter tuning", with "quantitative
      bounds on the generalization delay … in terms of training hyperparameters": **C4** ($t_{\rm gen}\propto1/(\eta\lambda)$),
      **C5** (linear in $\ln\nu$), **C6** (elimination), and **C9** (the bounds themselves: not testable here);
    - the bounds "also capture the behavior of grokking on non-linear neural networks": **C8** and its control **C8b**;
    - grokking "is not an inherent failure mode of deep learning": **C10** (not testable).
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    device = "auto"
    return device, profile, seed


@app.cell
def _(device, open_chapter, pick_device, profile, seed):
    run, cfg = open_chapter("grokking", profile, seed)
    torch_device = pick_device(device)
    return cfg, run, torch_device


@app.cell
def _(cfg, mo, run, torch_device):
    mo.md(f"""
    {run.computed_with()}: $n={cfg.n}$ samples,
    $m={cfg.m}$ features, $k={cfg.k}$ informative coordinates, {cfg.n_seeds} independent data sets per
    experiment; the network part trains on modular addition with $p={cfg.nn_p}$ on `{torch_device}`.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The setting

    A student $N(x;\theta)=\langle\theta,\phi(x)\rangle$ is linear in $m$ fixed features
    $\phi(x)\in\mathbb R^m$. A teacher $\theta^*$ labels $n<m$ inputs without noise,
    $y_i=\langle\theta^*,\phi(x_i)\rangle$. With $\Phi\in\mathbb R^{n\times m}$ the matrix of training
    features and $H=\Phi^\top\Phi/n$, gradient descent with step $\eta$ on the ridge objective

    $$
    L_n(\theta)=\frac{1}{2n}\lVert\Phi(\theta-\theta^*)\rVert^2+\frac{\lambda}{2}\lVert\theta\rVert^2
    $$

    starts from $\theta_0=\nu z$, $z\sim\mathcal N(0,I_m)$. We report the **training loss** without the
    penalty, $\frac12(\theta-\theta^*)^\top H(\theta-\theta^*)$, and the **test loss**, the exact
    population error $\frac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)$ with
    $\Sigma=\mathbb E[\phi(x)\phi(x)^\top]$.

    ### Why it groks: two time scales

    The gradient is $H(\theta-\theta^*)+\lambda\theta$, so the iteration has the fixed point
    $\theta_\lambda=(H+\lambda I)^{-1}H\theta^*$ (the ridge solution) and the error
    $e_t=\theta_t-\theta_\lambda$ obeys the linear recursion

    $$
    e_{t}=\big(I-\eta(H+\lambda I)\big)^{t}e_0 .
    $$

    Write $H=\sum_{k\le r}s_k v_kv_k^\top$ with $r\le n$ nonzero eigenvalues and let $P_N$ project
    onto the null space of $H$, which has dimension $m-r\ge m-n$. Along an eigenvector $v_k$ the error
    shrinks by $1-\eta(s_k+\lambda)$ per step: the data directions are fitted fast, at a rate set by
    the smallest nonzero eigenvalue $s_{\min}$. Along the null space the loss exerts no force at all,
    and

    $$
    P_N\theta_t=(1-\eta\lambda)^t\,P_N\theta_0 ,
    $$

    so the part of the random initialisation the data cannot see decays only through weight decay.
    It does not change the training loss, but on fresh inputs it produces random predictions: averaged
    over the initialisation, the test loss sits on a **memorisation plateau**

    $$
    L(\theta_t)\approx L(\theta_\lambda)+\tfrac12\nu^2\operatorname{tr}(P_N\Sigma)\,(1-\eta\lambda)^{2t}
    $$

    once the row space has converged. The plateau is not flat: by the time the training set is fit it
    has already lost the factor $(1-\eta\lambda)^{2t_{\rm fit}}\approx e^{-2\eta\lambda t_{\rm fit}}$ of its
    initial height $\tfrac12\nu^2\operatorname{tr}(P_N\Sigma)$, and it falls by $e^{-2}$ every $1/(\eta\lambda)$
    steps. Solving for the first step at which the test loss is below $\epsilon$ gives our predicted
    grokking time

    $$
    t_{\text{gen}}(\epsilon)\approx\frac{1}{-2\ln(1-\eta\lambda)}\,
    \ln\frac{\lVert\Sigma^{1/2}P_N\theta_0\rVert^2}{2\,(\epsilon-L(\theta_\lambda))}
    \;\approx\;\frac{1}{2\eta\lambda}\ln\frac{\nu^2\operatorname{tr}(P_N\Sigma)}{2(\epsilon-L(\theta_\lambda))},
    $$

    and the time scale on which the training set is fit to $\epsilon_{\text{tr}}$ above its limit,
    $t_{\text{fit}}\sim\ln\!\big(L_n(\theta_0)/\epsilon_{\text{tr}}\big)/\big(2\eta(s_{\min}+\lambda)\big)$, set by the
    slowest row-space mode (the modes near $s_{\min}$ carry only part of the initial loss, so the fit
    comes somewhat sooner). These two formulas give the predictions the experiments test: the delay is
    proportional to $1/(\eta\lambda)$; it grows by $1/(\eta\lambda)$ steps per e-fold of $\nu$ (the square
    inside the logarithm cancels the $\frac12$ in front); it vanishes when the unseen part starts below the
    margin, $\frac12\nu^2\operatorname{tr}(P_N\Sigma)<\epsilon-L(\theta_\lambda)$; and it shrinks towards the
    fitting time when $\lambda$ is comparable to $s_{\min}$, where the ridge bias $L(\theta_\lambda)$ is no
    longer negligible. They do not say how the paper's theorems bound these times: those statements
    were not reachable.

    ### A design where the end state generalises

    With isotropic features and $m>n$ the ridge limit keeps only the part of $\theta^*$ in the
    $n$-dimensional row space, so its test loss is about $\frac12(1-n/m)\lVert\theta^*\rVert^2$ in expectation
    over the data, too large for a third stage. We use a **spiked** design instead: $\phi(x)\sim\mathcal N\big(0,\operatorname{diag}(1_k,\sigma^21_{m-k})\big)$
    with the teacher on the first $k<n$ coordinates and $\lVert\theta^*\rVert=1$. Then $L(\theta_\lambda)$
    is small once $n\gg k$, while the plateau height $\frac12\nu^2\operatorname{tr}(P_N\Sigma)$ is at least
    $\frac12\nu^2\sigma^2(m-n)$ (because $\Sigma\succeq\sigma^2I$ and $P_N$ has rank $m-n$), large for
    $\nu$ of order one.

    ### Computing trajectories exactly

    Because the recursion is linear, one eigendecomposition gives $\theta_t$ for every $t$ at once:
    $\theta_t=\theta_\lambda+V\operatorname{diag}\big((1-\eta(s_k+\lambda))^t\big)V^\top e_0+(1-\eta\lambda)^tP_N e_0$.
    All curves below come from this closed form on a log-spaced grid of steps, with crossing times
    refined to the exact integer step; a plain gradient-descent loop checks it.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    ### The three stages
    """)
    return


@app.cell
def _(cfg, gk, run):
    stages = gk.three_stage_curves(cfg, run.seed)
    return (stages,)


@app.cell
def _(plots, stages):
    plots.stage_curves_figure(stages)
    return


@app.cell
def _(cfg, mo, np, stages):
    _rows = "\n".join(
        f"| {stages.nus[_k]:g} | {stages.lams[_k]:g} | {stages.t_fit[_k]:.0f} | {stages.t_gen[_k]:.0f} | "
        f"{stages.t_gen_pred[_k]:.0f} |" if np.isfinite(stages.t_gen[_k]) else
        f"| {stages.nus[_k]:g} | {stages.lams[_k]:g} | {stages.t_fit[_k]:.0f} | never | {stages.t_gen_pred[_k]:.0f} |"
        for _k in range(len(stages.nus)))
    _big = stages.nus >= 1
    _delay = stages.t_gen[_big] / stages.t_fit[_big]
    _ratio = stages.t_gen[_big] / stages.t_gen_pred[_big]
    mo.md(f"""
    *Figure: training (left) and test (right) loss of gradient descent for each initial scale ν and weight
    decay λ; dotted, the unseen (null-space) part of the test loss.* Every setting fits the training set
    to $\\epsilon_{{tr}}={stages.eps_train:g}$ within {stages.t_fit.max():.0f} steps; with $\\nu\\ge 1$ the test
    loss reaches $\\epsilon={stages.eps_test:g}$ {np.nanmin(_delay):.0f} to {np.nanmax(_delay):.0f} times later,
    at {np.nanmin(_ratio):.2f} to {np.nanmax(_ratio):.2f} times the predicted time. In this data set
    $\\operatorname{{tr}}(P_N\\Sigma)={stages.null_trace:.2f}$ (the bound $\\sigma^2(m-n)$ is
    {cfg.sigma ** 2 * (cfg.m - cfg.n):.2f}). Measured and predicted times (steps):

    | ν | λ | t_fit | t_gen measured | t_gen predicted |
    |---|---|---|---|---|
    {_rows}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Checking the closed form against gradient descent

    Before trusting any curve, we run a plain float64 gradient-descent loop from the same
    initialisation and compare the iterates with the closed form at every recorded step. This checks
    our code, not the paper (the test suite runs the same comparison), so it has no row in the ledger.
    """)
    return


@app.cell
def _(cfg, gk, run):
    cf_check = gk.closed_form_vs_gd(cfg, run.seed)
    return (cf_check,)


@app.cell
def _(cf_check, plots):
    plots.closed_form_figure(cf_check)
    return


@app.cell
def _(cf_check, mo):
    mo.md(f"""
    *Figure: relative difference between the closed form and a plain gradient-descent loop over
    {int(cf_check.steps.max())} steps (η={cf_check.eta:g}, λ={cf_check.lam:g}, ν={cf_check.nu:g}).* The largest
    relative difference of the iterates is {cf_check.max_rel_error:.1e}; the closed form took
    {cf_check.closed_form_seconds * 1e3:.1f} ms for all recorded steps, the loop {cf_check.gd_seconds * 1e3:.0f} ms.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### How fast the training set is fit (claim 1)

    Over the same step sizes and weight decays from far below to above the smallest data eigenvalue
    $s_{\min}$, we measure the first step at which the training loss is within $\epsilon_{tr}$ of its
    limit (the limit rises with $\lambda$), and compare it with the predicted time scale
    $\ln(L_n(\theta_0)/\epsilon_{tr})/(2\eta(s_{\min}+\lambda))$. The rule fits the slope of one against
    the other on a log scale, per data set; a fitting rate that ignored $\lambda$ would give a slope
    well below 1 on this grid. Because the $\eta$ direction of the grid gives exponent −1 in any
    gradient-descent world, the rule also fits the exponents of $\eta$ and of $s_{\min}+\lambda$
    separately and decides on both.
    """)
    return


@app.cell
def _(cfg, gk, run):
    fit = run.cached("grokking-fit-time-grid", gk.fit_time_grid, cfg, run.seed)
    return (fit,)


@app.cell
def _(fit, plots):
    plots.fit_time_figure(fit)
    return


@app.cell
def _(cfg, fit, gk, mo):
    check1 = gk.claims.claim1_early_fit(fit, cfg)
    mo.md(f"""
    *Figure: measured fit time against the predicted scale, {fit.t_fit.shape[0]} data sets × {fit.t_fit.shape[1]}
    step sizes × {fit.t_fit.shape[2]} weight decays.*

    {check1.sentence("Claim 1")}
    """)
    return (check1,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Grokking time against step size and weight decay (claim 4)

    On a grid of step sizes and weight decays (all far below $s_{\min}$) we measure the first step at
    which the test loss is below $\epsilon$, on several independent data sets, and fit the exponents of
    $\eta$ and of $\lambda$ in $t_{\rm gen}$ separately for each data set. The rule decides on the 95 %
    interval of each exponent over the data sets.
    """)
    return


@app.cell
def _(cfg, gk, run):
    grid = run.cached("grokking-eta-lam-grid", gk.eta_lam_grid, cfg, run.seed)
    return (grid,)


@app.cell
def _(grid, plots):
    plots.eta_lam_figure(grid)
    return


@app.cell
def _(grid, plots, show_plotly):
    show_plotly(plots.grid_heatmap(grid))
    return


@app.cell
def _(cfg, gk, grid, mo):
    check4 = gk.claims.claim4_inverse_eta_lam(grid, cfg)
    mo.md(f"""
    *Figures: measured against predicted grokking time, η·λ·t_gen per cell, and (interactive) the
    measured time over the grid; means over {grid.t_gen.shape[0]} data sets.*

    {check4.sentence("Claim 4")}
    """)
    return (check4,)


@app.cell
def _(mo):
    mo.md(r"""
    ### The initial scale: plateau height and delay (claims 2 and 5)
    """)
    return


@app.cell
def _(cfg, gk, run):
    nu_res = run.cached("grokking-nu-sweep", gk.nu_sweep, cfg, run.seed)
    return (nu_res,)


@app.cell
def _(nu_res, plots):
    plots.nu_figure(nu_res)
    return


@app.cell
def _(cfg, gk, mo, np, nu_res):
    check2 = gk.claims.claim2_plateau(nu_res, cfg)
    check5 = gk.claims.claim5_log_nu(nu_res, cfg)
    mo.md(f"""
    *Figures: left, the test loss at the moment the training set is fit, against ν (log-log), with the
    undecayed height ½ν²tr(P_N Σ); right, the grokking time against ln ν at η={nu_res.eta:g},
    λ={nu_res.lam:g}.* Claim 2 compares the plateau with ½ν²tr(P_N Σ)(1−ηλ)^(2 t_fit), and reads the test
    loss again at t = {cfg.persist_c:g}/(ηλ) = {nu_res.t_persist} steps.

    {check2.sentence("Claim 2")} (Part (d) was added after the outside audit of issue 28, stricter only: gradient
    descent without weight decay keeps its plateau for ever, and the height test (b) cannot tell a decay of
    (1−ηλ)^(2 t_fit) = {(1 - nu_res.eta * nu_res.lam) ** (2 * float(np.nanmax(nu_res.t_fit))):.3f} at the latest
    t_fit from none; (d) reads the decay where it is large, at t = {nu_res.t_persist}, where the statement predicts a
    factor {(1 - nu_res.eta * nu_res.lam) ** (2 * (nu_res.t_persist - float(np.nanmax(nu_res.t_fit)))):.3f} and
    this run measures test loss / decayed plateau between {float(np.nanmin(check2.values["decay_ratio"])):.3f} and
    {float(np.nanmax(check2.values["decay_ratio"])):.3f}.)

    {check5.sentence("Claim 5")}

    Since the outside audit of issue 28 every window rule of this chapter (claims 1, 2(a), 4, 5 and 8) has three
    outcomes: an interval inside the window reproduces, one lying wholly outside fails, and one that crosses an end
    of the window (it may well contain the claimed value) is *inconclusive at this scale*.
    """)
    return check2, check5


@app.cell
def _(mo):
    mo.md(r"""
    ### Where training ends up (claim 3)
    """)
    return


@app.cell
def _(cfg, gk, run):
    n_res = run.cached("grokking-sample-sizes", gk.sample_size_sweep, cfg, run.seed)
    return (n_res,)


@app.cell
def _(n_res, plots):
    plots.sample_size_figure(n_res)
    return


@app.cell
def _(cfg, gk, mo, n_res):
    check3 = gk.claims.claim3_generalisation(n_res, cfg)
    mo.md(f"""
    *Figure: losses after {n_res.t_end} steps (the vertical line marks the chapter's n) against the number
    of samples.*

    {check3.sentence("Claim 3")}
    """)
    return (check3,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Removing grokking (claim 6)

    The formula suggests two ways out: make the unseen part small from the start (a small $\nu$, so
    that $\frac12\nu^2\operatorname{tr}(P_N\Sigma)<\epsilon-L(\theta_\lambda)$), or make weight decay fast
    compared with fitting ($\lambda$ approaching $s_{\min}$). The second one should cost accuracy,
    because the ridge solution $\theta_\lambda$ itself moves away from $\theta^*$; for the trade-off curve
    the thresholds are taken relative to each $\lambda$'s own floor.
    """)
    return


@app.cell
def _(cfg, gk, run):
    elim = run.cached("grokking-elimination", gk.elimination_tradeoff, cfg, run.seed)
    return (elim,)


@app.cell
def _(elim, plots):
    plots.elimination_figure(elim)
    return


@app.cell
def _(cfg, elim, gk, mo):
    check6 = gk.claims.claim6_elimination(elim, cfg)
    mo.md(f"""
    *Figures: left, fit and grokking times for a small and a large initialisation; right, the delay ratio
    and the final losses as λ rises towards $s_{{\\min}}$.*

    {check6.sentence("Claim 6")}
    """)
    return (check6,)


@app.cell
def _(mo):
    mo.md(r"""
    ### A non-linear network, in the spirit of the paper (claim 8)

    The abstract says the paper's bounds "also capture the behavior of grokking on non-linear neural
    networks"; its network set-up was not reachable, so we use the standard test bed of the grokking
    literature [@power2022grokking; @gromov2023grokking]: learn $(a+b)\bmod p$ from half of all pairs,
    with a two-layer network on the concatenated one-hot codes of $a$ and $b$ and a quadratic
    activation, trained full batch with decoupled weight decay (AdamW) from an initialisation
    multiplied by $\alpha$, the knob of [@liu2022omnigrok]. With AdamW the gradient step is normalised,
    so $\eta\lambda$ is only an effective decay rate; the per-step shrink factor $1-\eta\lambda$ of the
    weights is the same as in the linear analysis. Carried over, the linear theory predicts a delay
    proportional to $1/(\eta\lambda)$ that grows with $\alpha$; we vary all three, the step size $\eta$
    included, so that the product the paper is about is tested and not only $\lambda$. Each step size is
    one batched run of every $(\text{seed},\lambda,\alpha)$. A control without weight decay, trained for
    the whole step budget, shows what happens when nothing removes the memorising part of the weights.
    """)
    return


@app.cell
def _(cfg, gk, run, torch_device):
    nn_run = run.cached("grokking-nn-grid", gk.nn_grid, cfg, run.seed, device=str(torch_device))
    return (nn_run,)


@app.cell
def _(nn_run, plots):
    plots.nn_curves_figure(nn_run)
    return


@app.cell
def _(nn_run, plots):
    plots.nn_scaling_figure(nn_run)
    return


@app.cell
def _(cfg, gk, mo, nn_run):
    check8 = gk.claims.claim8_nn_transfer(nn_run, cfg)
    check8b = gk.claims.claim8b_nn_control(nn_run, cfg)
    _r = nn_run.run_at(nn_run.lr_ref)
    _n = sum(r.lam.size for r in nn_run.runs)
    _reports = gk.claims.nn_convergence(nn_run, cfg)
    _conv8 = ("Plateau test (rule 10), read before the exponents: " + "; ".join(c.text for c in _reports) + ".")
    mo.md(f"""
    *Figures: accuracy curves of the first seed's networks at η={nn_run.lr_ref:g} and its control, and the
    grokking time (first evaluation with {_r.grok_accuracy:.0%} test accuracy, geometric mean over seeds)
    against η·λ for each initial scale and step size; {_n} networks of width {_r.width} trained with
    {_r.optimizer} on {_r.n_train} of the {_r.p ** 2} pairs, plus {0 if nn_run.control is None else nn_run.control.lam.size}
    control(s) trained for {cfg.nn_steps} steps.*

    {check8.sentence("Claim 8")}

    {_conv8} Changed after the outside audit of issue 28: the rule used to fail when an interval contained −1 but
    crossed an end of its window (it is now inconclusive), failed networks that had not grokked within the budget
    (now inconclusive, not converged), and had no plateau test; the default grids of η and λ were widened from
    2.25× to 4× each so that an exponent can be told apart (this run's grid: η spans
    {max(cfg.nn_lrs) / min(cfg.nn_lrs):.2f}×, λ {max(cfg.nn_lams) / min(cfg.nn_lams):.2f}×).

    {check8b.sentence("Claim 8b")} (A control that stopped early, never fit the training set or lost its fit used to
    make this row "not reproduced"; since issue 28 it is inconclusive, not converged: it carries no evidence about
    generalising after memorising.)
    """)
    return check8, check8b


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Move the sliders: the curves are recomputed from the closed form for the new initial scale, weight
    decay, step size and problem size (changing $n$ or $m$ draws a new data set with the same seed).
    On the website the controls show the values this page was built with; open the chapter live to
    move them.
    """)
    return


@app.cell
def _(cfg, mo):
    nu_slider = mo.ui.slider(steps=[0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0], value=1.0,
                             label="initial scale ν")
    lam_slider = mo.ui.slider(steps=[3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1], value=1e-3, label="weight decay λ")
    eta_slider = mo.ui.slider(steps=[0.05, 0.1, 0.25, 0.5, 0.75], value=0.5, label="step size η")
    n_slider = mo.ui.slider(steps=sorted({50, 100, 200, 400, cfg.n}), value=cfg.n, label="samples n")
    m_slider = mo.ui.slider(steps=sorted({1000, 2000, 4000, cfg.m}), value=cfg.m, label="features m")
    mo.vstack([mo.hstack([nu_slider, lam_slider, eta_slider]), mo.hstack([n_slider, m_slider])])
    return eta_slider, lam_slider, m_slider, n_slider, nu_slider


@app.cell
def _(
    cfg,
    eta_slider,
    lam_slider,
    m_slider,
    mo,
    n_slider,
    nu_slider,
    playground_curves,
    plots,
    run,
):
    try:
        _c = playground_curves(cfg, run.seed, nu_slider.value, lam_slider.value, eta_slider.value,
                               n=n_slider.value, m=m_slider.value)
    except ValueError as _err:
        _out = mo.callout(mo.md(f"**These settings are outside the model's range:** {_err}"), kind="warn")
    else:
        _title = (f"t_fit = {_c.t_fit:.0f}, t_gen = {_c.t_gen:.0f} steps (predicted {_c.t_gen_pred:.0f})"
                  if _c.t_gen == _c.t_gen else f"t_fit = {_c.t_fit:.0f}; the test loss never reaches ε here")
        _out = mo.vstack([
            plots.playground_figure(_c.steps, _c.train, _c.test, _c.memorisation, cfg.eps_test, _title),
            mo.md(f"*Figure: training and test loss from the closed form at ν={nu_slider.value:g}, "
                  f"λ={lam_slider.value:g}, η={eta_slider.value:g}, n={n_slider.value}, m={m_slider.value}; dotted, "
                  f"the unseen part of the test loss; dashed, ε={cfg.eps_test:g}.*")])
    _out
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; under each rule,
    the alternative it rejects. The rows follow the abstract's result sentences (see "The paper at a
    glance"). The paper's column quotes the abstract, the only part of the paper we could read, and
    says "not reached" for everything else.
    """)
    return


@app.cell
def _(ClaimsLedger, check1, check2, check3, check4, check5, check6, check8, check8b, run):
    ledger = ClaimsLedger("grokking", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check8, check8b)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, check1, mo):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we could read.** Only the abstract and the opening of the introduction of the paper were
      reachable. The setting (linear student over fixed features, realisable noiseless teacher,
      $\ell_2$-regularised square loss, gradient descent from $\mathcal N(0,\nu^2I)$) is the paper's.
      The exact trajectory, the predicted fit and grokking times, and the three stages as written
      above are **our own derivation** of that setting; the paper's theorem statements, constants and
      assumptions (it probably bounds the feature norm and states high-probability results) were not
      seen, so we cannot say how tight their bounds are, only whether the scaling they describe holds.
    - **Data.** The spiked Gaussian design is our choice, made so that the end state generalises; the
      paper's own experimental design was not reachable. The decision rules and their margins (95 %
      intervals over independent data sets inside ±{cfg.exponent_margin:g} of the claimed exponent or slope,
      ±{cfg.fit_margin:g} for the fit scale, ±{cfg.nn_exponent_margin:g} for the network's exponents, a window of
      {cfg.plateau_ratio_window:g} for the plateau height, a factor {cfg.persist_factor:g} above $\epsilon$ for
      "still high") are ours, fixed in the chapter's config before the run.
    - **Rules changed after a run** (a second rule-breaking review, after the runs of commit 67dd53f;
      stricter only, margins unchanged, each breaking input now a test case that must fail). Claim 1 also
      requires the separately fitted exponents of $\eta$ and of $s_{{\min}}+\lambda$ inside the same
      ±{cfg.fit_margin:g} window, because gradient descent's time rescaling fixes the $\eta$ exponent at −1 in any world
      and so let a fitting rate with only 60 % of the claimed $\lambda$-dependence pass the pooled slope;
      with few replicates that interval is wide (at this profile, {cfg.n_seeds} data sets, claim 1 is
      {check1.verdict}). Claim 3 also requires the
      log-log slope of the final test loss in $n$ to have its interval below 0, because decreasing means
      let a flat floor pass when its noise fell in order. Claim 5 also requires the slopes over the lower
      and the upper half of the $\nu$ grid in the window, because one slope let a delay growing as a
      power of $\nu$ pass. Claim 6 also requires a delay at the large initialisation, finite small-init
      times, and the delay ratio above 2 at the smallest weight decay and at most 2 at the largest,
      because "non-increasing" let a weight decay that keeps a 90-fold delay, or a world with no
      grokking at all, pass. The control of claim 8 must also fit its training set, because a control
      that never trains says nothing about generalising after memorising.
    - **Rules changed again after that run** (a second pass over the rewritten rules, session 5; stricter
      only, each breaking input a test case that must fail). Claim 6 needs the delay removed in *every*
      replicate (ratio above 2 at the smallest and at most 2 at the largest weight decay), because the
      mean let one replicate keep a 3.9-fold delay. The control of claim 8 must hold its training fit to
      the last step and must not generalise even partly: its test accuracy may at no evaluation exceed
      the midpoint between chance ($1/p$) and the {cfg.nn_grok_accuracy:.0%} threshold, because "below 90 %" let a control at
      85 % pass. Claim 3 with a single replicate is undecided only when the parts one replicate can
      decide hold (before, it escaped to "needs 2 replicates" with $\epsilon_{{\rm test}}$ missed).
    - **Test loss.** We use the exact population loss $\frac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)$
      rather than an estimate on held-out samples.
    - **The network.** The paper's network experiments were not reachable. Ours is a reconstruction in
      the spirit of the paper: modular addition, a two-layer quadratic-activation network, AdamW (chosen
      because plain gradient descent with this activation diverged at the larger initial scales, in
      development runs this page does not repeat, unless the step was cut by orders of magnitude), cross-entropy loss, grokking time = first evaluation with {cfg.nn_grok_accuracy:.0%} test
      accuracy. Because AdamW normalises the gradient, only the weight-decay part of its update matches
      the linear analysis. We do not test elimination by a small initialisation in the network, so the
      network part tests the step-size, weight-decay and initial-scale trends of claim 8 and the
      control without weight decay.
    - **Scale.** Sizes follow the profile (above); the `full` profile runs larger problems and trains
      the networks on a GPU when one is present.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - M. Xu, G. Vardi, I. Safran. *To Grok Grokking: Provable Grokking in Ridge Regression.* ICML 2026, arXiv:2601.19791 [@xu2026grokking].
    - A. Power et al. *Grokking: Generalization beyond overfitting on small algorithmic datasets.* 2022 [@power2022grokking].
    - Z. Liu, E. Michaud, M. Tegmark. *Omnigrok: Grokking beyond algorithmic data.* ICLR 2023 [@liu2022omnigrok].
    - N. Levi, A. Beck, Y. Bar-Sinai. *Grokking in linear estimators.* 2023 [@levi2023grokking].
    - A. Gromov. *Grokking modular arithmetic.* 2023 [@gromov2023grokking].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
