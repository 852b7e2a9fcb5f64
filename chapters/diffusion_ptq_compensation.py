import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="TCEC: error propagation and compensation in quantised diffusion")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers.diffusion_ptq_compensation import claims, experiments as ex, plots
    from icmlbook.papers.diffusion_ptq_compensation import schedules as sch
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, claims, ex, mo, np, open_chapter, plots, sch


@app.cell
def _(mo):
    mo.md(r"""
    # Quantised diffusion: how the error travels, and how to take it back out

    A diffusion model draws a sample by calling its denoiser tens of times, each call feeding the
    next. Quantise the denoiser to 4 bits and every call is a little wrong; because the calls are
    chained, the small errors are carried forward and add up. Liu et al. [@liu2026tcec] write the
    sampler as a recursion, solve the error recursion in closed form, and use the simplified solution
    to subtract a *timestep-aware* estimate of the accumulated error at every step (TCEC,
    timestep-aware cumulative error compensation), with no retraining and negligible cost.

    This chapter rebuilds the whole argument on models that train on this machine: an MLP on a 2-D
    point cloud and a small U-Net on scikit-learn's 8×8 digits, quantised with PyTorch's fake-quantisation
    ops. Every number below is measured by the run; the paper's SDXL, PixArt and video results are
    quoted and marked not testable.
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
    | **Paper** | *Error Propagation Mechanisms and Compensation Strategies for Quantized Diffusion Models* |
    | **Authors** | Songwei Liu, Chao Zeng, Chenqian Yan, Xurui Peng, Xing Wang, Fangmin Chen, Xing Mei |
    | **Venue** | ICML 2026 (arXiv 2508.12094, three versions) |
    | **Code** | none found |
    | **What was read** | the abstract and the first paragraph of the introduction; the public reviews of an earlier submission describe the method's structure |

    The abstract's results: stepwise quantisation errors accumulate during generation; the paper
    derives per-step propagation equations and "the first closed-form solution for cumulative error";
    its compensation "achieves a 1.2 PSNR improvement over SVDQuant on SDXL W4A4, while incurring
    only an additional < 0.5% time overhead". **The propagation equation, its closed form and the
    compensation rule below are our reconstruction** from the DDIM update and the reviewers'
    descriptions (an "Approximation 1" that ignores the network's sensitivity to its input, a
    channel-wise timestep-dependent scaling $K$, a window $m$ with $m=1$ in practice, a weight
    $\lambda_1$); where the paper's choice is unknown the chapter runs the alternatives.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("diffusion_ptq_compensation", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    _data = ("a 2-D ring of eight Gaussians with an MLP denoiser" if cfg.dataset == "ring"
             else "scikit-learn's 1,797 digits (8×8) with a two-resolution U-Net")
    mo.md(f"""
    {run.computed_with()}: {_data} (width
    {cfg.width}, {cfg.train_steps:,} training updates, T = {cfg.T} timesteps); {cfg.solver.upper()} with
    {" and ".join(str(s) for s in cfg.steps)} steps; {", ".join(cfg.bits)} on round-to-nearest and
    {", ".join(cfg.svd_bits) or "none"} on SVDQuant-lite; {cfg.n_eval} evaluation seeds and {cfg.n_cal}
    disjoint calibration seeds; {cfg.n_boot} bootstrap resamples per interval.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The sampler is an affine recursion

    Deterministic DDIM [@song2021ddim] on the visited timesteps $t_0>t_1>\dots>t_{S-1}$ predicts the
    clean sample $\hat x_0=(x_n-\sqrt{1-\bar\alpha_n}\,\varepsilon_\theta)/\sqrt{\bar\alpha_n}$ and re-noises
    it to the next level $\bar\alpha_n'$ (1 after the last step). Substituting gives an update that is
    affine in the state and in the network output,
    $$
    x_{n+1}=a_n x_n+b_n\,\varepsilon_\theta(x_n,t_n),\qquad
    a_n=\sqrt{\bar\alpha_n'/\bar\alpha_n},\quad
    b_n=\sqrt{1-\bar\alpha_n'}-\sqrt{\bar\alpha_n'(1-\bar\alpha_n)/\bar\alpha_n}.
    $$
    DPM-Solver++'s first-order step [@lu2022dpmsolverpp], derived independently in the half-log-SNR
    $\lambda=\log(\alpha/\sigma)$ as $x'=(\sigma'/\sigma)x-\alpha'(e^{-h}-1)\hat x_0$, reduces to the same
    $(a_n,b_n)$; the tests check both derivations against each other and against the $\hat x_0$ form.

    **The error recursion.** Run the quantised model $\hat\varepsilon$ from the same noise. With
    $e_n=\hat x_n-x_n$ and the per-step error $\delta_n=\hat\varepsilon(\hat x_n)-\varepsilon_\theta(\hat x_n)$
    (the FP model re-evaluated on the quantised trajectory),
    $$
    e_{n+1}=a_ne_n+b_n\big[\varepsilon_\theta(\hat x_n)-\varepsilon_\theta(x_n)\big]+b_n\delta_n
    \;\approx\;(a_n I+b_nJ_n)\,e_n+b_n\delta_n ,
    $$
    exactly in the first form, to first order in the second ($J_n$ the Jacobian of the FP network).
    **Approximation 1** drops $J_n$; the recursion then telescopes:
    $$
    e_k=\sum_{n<k}\Big(\prod_{j=n+1}^{k-1}a_j\Big)b_n\,\delta_n ,\qquad
    \prod_{j=n+1}^{k-1}a_j=\sqrt{\bar\alpha_{(k)}/\bar\alpha_{(n+1)}}\ \text{ for DDIM},
    $$
    with $\bar\alpha_{(k)}$ the noise level of the state $x_k$. If the $\delta_n$ are independent with
    zero mean, $\mathbb E\|e_k\|^2=\sum_n\big(\prod a_j\big)^2b_n^2\,\mathbb E\|\delta_n\|^2$: the *variance law*.

    Why $J_n$ may matter for an $\varepsilon$-predictor: write $\sigma_n=\sqrt{1-\bar\alpha_n}$. A network
    that has learned nothing about the data predicts $\varepsilon\approx x/\sigma_n$, so $J_n\approx I/\sigma_n$,
    and then $a_n+b_n/\sigma_n=\sigma_n'/\sigma_n$: the carried error would *shrink* by the ratio of noise
    levels instead of being passed on by $a_n>1$. A trained network sits between that and $J=0$; the
    measurements below say where.
    """)
    return


@app.cell
def _(cfg, mo, np, sch):
    _ab = sch.alphas_bar(cfg.T)
    _ts = sch.sampling_timesteps(cfg.T, cfg.steps[-1])
    _a, _b = sch.step_coefficients(cfg.solver, _ab, _ts)
    _amp = float(np.prod(_a[1:]))
    mo.md(f"""
    For {cfg.steps[-1]} steps on the linear schedule, $a_n$ runs from {_a[0]:.4f} to {_a[-1]:.1f} and $b_n$
    from {_b[0]:+.4f} to {_b[-1]:+.2f}. Under Approximation 1 an error made at the first step reaches the
    output multiplied by $\\prod_{{j\\ge1}}a_j$ = {_amp:.0f} (and by $b_0$): the closed form says that the early,
    noisy steps matter a great deal, *unless* the network's response $J_n$ cancels the carry.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Models, quantisation and the recorder

    The denoisers predict $\varepsilon$ and are trained with the book's shared trainer
    (`icmlbook.training`, AdamW, warm-up and cosine decay, clipping). They are quantised by
    `torch.fake_quantize_per_channel_affine`: weights symmetric per output channel,
    activations symmetric and dynamic with one scale per sample (what a batch-of-one deployment
    computes); the time-embedding layers stay in full precision. Two base PTQ methods:
    **round-to-nearest (RTN)**, and **SVDQuant-lite**, our simplification of SVDQuant
    [@li2025svdquant]: SmoothQuant-style scale migration [@xiao2023smoothquant], a rank-$r$
    full-precision branch from the SVD of the smoothed weight, and the residual quantised.

    The recorder runs the FP and the quantised samplers from the same noise and evaluates *both*
    models on *both* trajectories, so $\delta_n$ is available on the quantised trajectory (used
    here) and on the FP one.
    """)
    return


@app.cell
def _(cfg, ex, run):
    trained = run.cached("tcec-denoiser", ex.train, cfg, run.seed)
    return (trained,)


@app.cell
def _(cfg, ex, run, trained):
    result = run.cached("tcec-study", ex.study, cfg, trained, run.seed)
    return (result,)


@app.cell
def _(mo, result, trained):
    _loss = trained["loss"][1]
    _acc = result["feature_accuracy"]
    _feat = (f" The FD-digits feature extractor (an MLP classifier on the digits) reaches {_acc:.1%} training accuracy."
             if _acc is not None else " For 2-D data the Fréchet distance is taken in the plane itself.")
    mo.md(f"""
    The denoiser's training loss fell from {_loss[0]:.3f} to {_loss[-1]:.3f} ({trained['seconds']:.0f} s).{_feat}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Errors accumulate (claim 1)

    The mean state error $\|\hat x_n-x_n\|$ along the trajectory, for each bit width, without
    compensation (solid) and with TCEC (dashed):
    """)
    return


@app.cell
def _(cfg, plots, result):
    plots.error_curves(result, cfg)
    return


@app.cell
def _(cfg, claims, mo, result, run):
    check1 = claims.claim1(result, cfg)
    check1b = claims.claim1b(result, cfg, run.seed)
    mo.md(f"""
    *Figure: mean state error per step, log scale.*

    {check1.sentence("Claim 1")}

    {check1b.sentence("Claim 1b")}
    """)
    return check1, check1b


@app.cell
def _(mo):
    mo.md(r"""
    ## Does the closed form predict the measured error? (claims 2–4)

    Feed the measured $\delta_n$ into the $J=0$ closed form and compare with the measured final
    error $e_S$, seed by seed; then put the Jacobian back, through `torch.func.jvp` along the FP
    trajectory (the linearised product $\prod(a_jI+b_jJ_j)$).
    """)
    return


@app.cell
def _(cfg, plots, result):
    plots.closed_form_scatter(result, cfg)
    return


@app.cell
def _(cfg, plots, result):
    plots.jacobian_figure(result, cfg)
    return


@app.cell
def _(cfg, claims, mo, np, result):
    check2 = claims.claim2(result, cfg)
    check2q = claims.claim2q(result, cfg)
    check3 = claims.claim3(result, cfg)
    check4 = claims.claim4(result, cfg)
    _over = float(np.median(np.concatenate([t["pred_norm"] / t["e_norm"] for t in result["theory"].values()])))
    mo.md(f"""
    *Figures: closed-form against measured final error per seed (top); the dropped term's size per step,
    linearised (JVP) and exact (bottom).*

    {check2.sentence("Claim 2")} {claims.seed_robustness_sentence(result["theory"], cfg)}

    The per-step propagation equation itself, $e_{{n+1}}=(a_n+b_nJ_n)e_n+b_n\\delta_n$ with the Jacobian applied by
    JVPs at the FP states, fed the $\\delta$'s the quantised sampler actually injects (measured on its own
    trajectory), against the simulated error of the same seeds: {check2q.sentence("Claim 2q")}

    {check3.sentence("Claim 3")}

    {check4.sentence("Claim 4")}

    Per seed, the $J=0$ closed form's norm is a median {_over:.2g}× the measured one. The per-step
    ratio of the dropped term (median {check3.values['median']:.2f}) is what a product over {cfg.steps[-1]}
    steps multiplies: factors $(1\\pm r)$ that differ from 1 by $r$ at every step compound.
    """)
    return check2, check2q, check3, check4


@app.cell
def _(mo):
    mo.md(r"""
    ## Compensation

    **The error model.** Per step $n$ and output channel $c$, $\hat\delta_n=K_n\odot\hat\varepsilon_n$ with
    $K_n[c]=\sum\delta\,\hat\varepsilon/\sum\hat\varepsilon^2$, the least-squares slope over the calibration
    seeds (disjoint from the evaluation seeds) and all positions. (The digits have one channel, so
    there $K_n$ is one number per step; the ring's two coordinates are its two channels.)

    **The rule (reconstruction).** Setting $e_{n+1}=0$ in the $J=0$ recursion asks for the correction
    $C_n=\delta_n+(a_n/b_n)e_n$, where $e_n$ is the error the *compensated* sampler's state carries. Neither
    term is observable at inference; both are estimated:
    $$
    \tilde\varepsilon_n=\hat\varepsilon_n-K_n\odot\hat\varepsilon_n-\lambda_1\frac{a_n}{b_n}\hat e_n,\qquad
    \hat e_n=\sum_{i=n-m}^{n-1}\Big(\prod_{j=i+1}^{n-1}(1-\lambda_1)a_j\Big)b_i\,R_i\odot\hat\varepsilon_i .
    $$
    The carried term is fed what each earlier step's correction *left*: $R_i$ is the least-squares slope,
    per step and channel, of the residual $\delta_i-K_i\odot\hat\varepsilon_i$ on $\hat\varepsilon_i$, measured on
    the calibration seeds sampled with the per-step correction (FP re-evaluated at the states visited); the
    factor $(1-\lambda_1)$ is the share of the carried error each later carried term has not yet removed.
    With $m=1$ it uses the current and the previous output; $m=0$ is per-step only; "full sum" is
    $m=S$ (at $\lambda_1=1$ the two coincide). *How this changed in session 8 (issue 35):* until then
    $\hat e_n$ was fed $K_i\odot\hat\varepsilon_i$, the estimates that step $i$ had already subtracted, so the
    carried term removed them a second time; the calibration then chose $\lambda_1=0$ in every cell and the
    method was the per-step scaling. A test now checks that with exact per-step estimates the carried term
    leaves the FP trajectory alone for every $\lambda_1$, and that on a linear toy where half of $\delta$ is
    left in one channel the calibration picks the $\lambda_1=1$ that its closed form says is optimal.
    $\lambda_1$ is picked from the config's grid on the calibration seeds (minimum distance to
    their FP outputs). Baselines: the **oracle**, which subtracts the true $\delta_n$ (FP re-evaluated at
    the visited state) and so follows the FP trajectory to float precision, and a **PTQD-style** mean
    correction [@he2023ptqd] $\hat\varepsilon/(1+k_n)$ with one slope per step fitted against the FP
    output (PTQD's variance correction needs a stochastic sampler). PSNR compares each output with
    the FP model's output from the same noise and sampler.
    """)
    return


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    **Two earlier corrections** that the reviewers set against TCEC, reimplemented from their
    descriptions (the TAC paper's equations and QNCD's paper were not reached; QNCD's public sampler
    was read). **TAC** [@yao2024tac] rescales the output channel-wise per step, $k_n\odot\hat\varepsilon_n$,
    with $k_n$ the least-squares fit of the FP output on the quantised one over the elements whose
    relative distortion is below its {cfg.tac_mask_quantile:.0%} quantile (our reading of its masked loss), and
    corrects the *input*: the mean deviation $\beta_n$ of the quantised state from the FP state on
    the calibration seeds (with the earlier corrections applied) is subtracted from what the network
    sees. Without the mask, $k_n=1-K_n$: TAC's rescaling *is* TCEC's per-step term ($m=0$), which the
    tests check. **QNCD** [@chu2024qncd] estimates the error at run time, without calibration: every
    {cfg.qncd_interval} steps it diffuses the current state back to the previous noise level with known noise
    $e$, asks the quantised model to predict it, and subtracts the mean of $\hat\varepsilon-e$ from the
    following outputs (its intra-step activation smoothing changes the quantiser and is not
    reimplemented).
    """)
    return


@app.cell
def _(cfg, plots, result, run):
    plots.gain_figure(result, cfg, run.seed)
    return


@app.cell
def _(cfg, claims, mo, np, result, run):
    check5 = claims.claim5(result, cfg, run.seed)
    check6 = claims.claim6(result, cfg, run.seed)
    check7 = claims.claim7(result, cfg, run.seed)
    check9 = claims.claim9(result, cfg, run.seed)
    check12 = claims.claim12(result, cfg, run.seed)
    _lams = ", ".join(f"{k}: {v['lambda']['tcec_m1']:g}" for k, v in result["cells"].items())
    _oracle = float(np.mean([c["psnr"]["oracle"].mean() for c in result["cells"].values()]))
    _qfp = float(np.mean([c["qncd_fp_psnr"].mean() for k, c in result["cells"].items()
                          if k.endswith(f"/{cfg.steps[-1]}/rtn") and c.get("qncd_fp_psnr") is not None]))
    _qtxt = ("the estimate is close to zero there" if _qfp >= 60 else
             "with no quantisation error present, what the estimate picks up is the mean of the FP network's own "
             "residual on back-diffused states, and subtracting it moves the sampler")
    mo.md(f"""
    *Figure: PSNR gain over the uncompensated base, mean and 95% bootstrap interval over
    {cfg.n_eval} seeds. The oracle is off the scale: its mean PSNR over the cells is {_oracle:.0f} dB, since
    subtracting the true δ at the visited state turns every step into the FP step.*

    {check5.sentence("Claim 5")}

    {check6.sentence("Claim 6")}

    {check7.sentence("Claim 7")}

    {check9.sentence("Claim 9")}

    {check12.sentence("Claim 12")}

    A control for QNCD: run on the full-precision model itself, whose output has no quantisation error
    to remove, its run-time estimate should leave the sampler where it is. The FP sampler with QNCD
    reaches a mean PSNR of {_qfp:.1f} dB against the plain FP sampler (main cells, {cfg.steps[-1]} steps;
    {_qtxt}).

    The λ₁ chosen on the calibration seeds for m = 1, per cell: {_lams}.
    """)
    return check12, check5, check6, check7, check9


@app.cell
def _(cfg, plots, result):
    plots.samples_figure(result, cfg)
    return


@app.cell
def _(cfg, claims, mo, result):
    check8 = claims.claim8(result, cfg)
    mo.md(f"""
    *Figure: samples from the same noise: FP, quantised, quantised with TCEC.*

    ## Overhead (claim 8)

    TCEC adds one multiply-add per step and keeps the previous estimate. We time the quantised
    sampler with and without it, interleaved, {cfg.overhead_repeats} times each, and compare the fastest runs.

    {check8.sentence("Claim 8")}
    """)
    return (check8,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Other samplers: DPM-Solver++(2M) and flow matching (claims 2b and 10)

    The argument so far used DDIM's one-step recursion. Two samplers that real pipelines use do not
    have that form.

    **DPM-Solver++(2M)** [@lu2022dpmsolverpp] integrates the probability-flow ODE in the half-log-SNR
    $\lambda=\log(\alpha/\sigma)$ with a second-order multistep rule on the *data prediction*
    $D_n=(x_n-\sigma_n\hat\varepsilon_n)/\alpha_n$. With $h_n=\lambda_{n+1}-\lambda_n$, $r_n=h_{n-1}/h_n$ and
    $\phi_n=e^{-h_n}-1$,
    $$
    x_{n+1}=\frac{\sigma_{n+1}}{\sigma_n}x_n-\alpha_{n+1}\phi_n\Big[\Big(1+\tfrac1{2r_n}\Big)D_n-\tfrac1{2r_n}D_{n-1}\Big],
    $$
    first order at the first and the last step. Substituting $D$ gives a *two-step* linear recursion
    $x_{n+1}=a_nx_n+b_n\hat\varepsilon_n+c_nx_{n-1}+d_n\hat\varepsilon_{n-1}$, and with $J=0$ the error obeys
    $e_{n+1}=a_ne_n+c_ne_{n-1}+b_n\delta_n+d_n\delta_{n-1}$: still linear in the $\delta$'s, so the closed form
    survives as $e_k=\sum_nW_{k,n}\delta_n$ with $W_{\cdot,n}$ the recursion's response to a unit error at
    step $n$ (no longer a single product). TCEC's carried term becomes the window's prediction of the
    error carried into the next state, $\lambda_1b_n^{-1}\sum_{i=n-m}^{n-1}P_{n,i}R_i\odot\hat\varepsilon_i$, with
    $P$ the compensated recursion's weights (the earlier rule when $c=d=0$).
    This is where "the outputs of the two previous steps" come in naturally.

    **Flow matching** [@lipman2023flow] trains a velocity $v_\theta$ on $x_\sigma=(1-\sigma)x_0+\sigma\varepsilon$
    (target $\varepsilon-x_0$); Euler steps $x_{n+1}=x_n+(\sigma_{n+1}-\sigma_n)v_\theta$ have $a_n=1$ and $b_n=\Delta\sigma_n$:
    nothing amplifies a carried error, and under $J=0$ the final error is simply $\sum_n\Delta\sigma_n\delta_n$.
    We train a second network of the same architecture on this objective.

    The tests check both samplers step by step against diffusers' `DPMSolverMultistepScheduler` and
    `FlowMatchEulerDiscreteScheduler`, and their convergence orders (2 and 1) against the exact ODE
    solution for Gaussian data; the two-step weights $W_{k,n}$ against finite differences of the sampler
    itself (a δ injected at one step through its correction hook), and TCEC's carried term on
    DPM-Solver++(2M) with exact per-step estimates (it must then leave the FP trajectory alone). Claim 2b also feeds the same δ's to the one-step
    form (c = d = 0): if that predicted the error as well, the two-step terms would not be what the error
    follows. Below, the same quantisers (RTN) and the same calibration and
    evaluation seeds at the main step count.
    """)
    return


@app.cell
def _(cfg, ex, run, trained):
    trained_flow = run.cached("tcec-flow-denoiser", ex.train_flow, cfg, run.seed) if cfg.other_solvers else None
    solver_result = run.cached("tcec-solver-study", ex.solver_study, cfg, trained, trained_flow, run.seed)
    return solver_result, trained_flow


@app.cell
def _(cfg, plots, solver_result):
    plots.solver_error_curves(solver_result, cfg) if solver_result["cells"] else None
    return


@app.cell
def _(cfg, plots, run, solver_result):
    plots.gain_figure(solver_result, cfg, run.seed, xlabel="bits / steps / base PTQ / sampler") if solver_result["cells"] else None
    return


@app.cell
def _(cfg, claims, mo, result, run, solver_result, trained_flow):
    check2b = claims.claim2b(solver_result, cfg)
    # the ε-denoiser's compared metric at two horizons is the main study's (the same weights): merged in for the guard
    check10 = claims.claim10({**solver_result, "metric_curves": {**result["metric_curves"],
                                                                 **solver_result["metric_curves"]}}, cfg, run.seed)
    _fl = (f"The flow model's training loss fell from {trained_flow['loss'][1][0]:.3f} to "
           f"{trained_flow['loss'][1][-1]:.3f} ({trained_flow['seconds']:.0f} s); the velocity target keeps an "
           "irreducible variance, so the loss does not go to zero." if trained_flow is not None else "")
    mo.md(f"""
    *Figures: state error per step on the other samplers (top); PSNR gain of each correction over the
    base, mean and 95% bootstrap interval (bottom).* {_fl}

    {check2b.sentence("Claim 2b")} {claims.seed_robustness_sentence(solver_result["closed"], cfg)}

    {check10.sentence("Claim 10")}
    """)
    return check10, check2b


@app.cell
def _(mo):
    mo.md(r"""
    ## A transformer denoiser (claim 11)

    The paper also reports results on PixArt, a diffusion transformer. Our stand-in is a tiny DiT
    [@peebles2023dit] for the 8×8 digits: 2×2 patches embedded by a strided convolution plus fixed
    sine-cosine positions (16 tokens), transformer blocks whose LayerNorms are modulated by the time
    embedding through **adaLN-zero** (one zero-initialised linear layer per block gives shift, scale
    and a gate for the attention and the MLP branch, so every block starts as the identity), a final
    modulated LayerNorm and a zero-initialised projection back to patches. It is trained with the same
    trainer and objective as the U-Net and quantised by the same code: every linear layer (patch
    embedding, QKV, attention output, MLP, output) in WxAy; the adaLN layers, which read only the time
    embedding, stay in full precision like the U-Net's time path; the attention products themselves
    are not quantised.
    """)
    return


@app.cell
def _(cfg, ex, run):
    trained_dit = run.cached("tcec-dit", ex.train_dit, cfg, run.seed) if cfg.dit_bits else None
    dit_result = (run.cached("tcec-dit-study", ex.dit_study, cfg, trained_dit, run.seed) if cfg.dit_bits
                  else {"cells": {}, "closed": {}, "samples": {}})
    return dit_result, trained_dit


@app.cell
def _(cfg, dit_result, plots, run):
    plots.gain_figure(dit_result, cfg, run.seed, xlabel="bits / steps / base PTQ / denoiser") if dit_result["cells"] else None
    return


@app.cell
def _(cfg, claims, dit_result, mo, run, trained_dit):
    check11 = claims.claim11(dit_result, cfg, run.seed)
    if trained_dit is None:
        _txt = "This profile does not train the DiT (it runs on the digits, and this profile uses the 2-D ring)."
    else:
        _l = trained_dit["loss"][1]
        _txt = (f"The DiT ({trained_dit['n_params']:,} parameters, width {cfg.dit_width}, depth {cfg.dit_depth}) "
                f"trained from loss {_l[0]:.3f} to {_l[-1]:.3f} in {trained_dit['seconds']:.0f} s. *Figure: PSNR gain "
                "of each correction over the base on the DiT, mean and 95% bootstrap interval.*")
    mo.md(f"""
    {_txt}

    {check11.sentence("Claim 11")}
    """)
    return (check11,)


@app.cell
def _(check1, check1b, check2, check2b, check2q, check3, check4, claims, mo, result):
    _t0, _t1 = result["early"]["steps"]
    _table = claims.horizon_table({"C1": check1, "C1b": check1b, "C2": check2, "C2q": check2q, "C2b": check2b,
                                   "C3": check3, "C4": check4})
    mo.vstack([mo.md(f"""
    ## The theory rows at two horizons

    Claims 1-4 measure properties of one trained denoiser, so training it further could change them. Each is
    computed again on the same run's weights after {_t0:.0f} of its {_t1:.0f} updates (the same seeds, quantiser
    and inputs; for claim 2b the ε-denoiser's and the flow model's own snapshots), and a row keeps its verdict only
    when the statistics it rests on moved by less than a third of their distance from the rule's threshold at the
    end (a pass needs every statistic to hold, a fail one failing statistic); otherwise it reads *inconclusive (not
    converged)*:
    """), mo.md(_table)])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Pick a bit width, a step count, the base, the window and λ₁: the cell quantises the trained
    denoiser, calibrates $K$ on 64 seeds and compares 64 others with the FP output. On the website the
    controls show the values this page was built with; open the chapter live to change them.
    """)
    return


@app.cell
def _(cfg, mo):
    bits_pick = mo.ui.dropdown(options=list(cfg.bits), value=cfg.bits[-1], label="bits")
    steps_pick = mo.ui.dropdown(options=[str(s) for s in (5, 10, 20, 50) if s <= cfg.T], value="20", label="steps")
    base_pick = mo.ui.dropdown(options=["rtn", "svd"], value="rtn", label="base PTQ")
    m_pick = mo.ui.dropdown(options=["0", "1", "2", "full"], value="1", label="window m")
    lam_slider = mo.ui.slider(start=0.0, stop=1.0, step=0.05, value=0.25, label="λ₁")
    solver_pick = mo.ui.dropdown(options=["ddim", "dpmpp2m"], value="ddim", label="sampler")
    mo.vstack([mo.hstack([bits_pick, steps_pick, base_pick]), mo.hstack([m_pick, lam_slider, solver_pick])])
    return base_pick, bits_pick, lam_slider, m_pick, solver_pick, steps_pick


@app.cell
def _(
    base_pick,
    bits_pick,
    cfg,
    ex,
    lam_slider,
    m_pick,
    mo,
    plots,
    run,
    solver_pick,
    steps_pick,
    trained,
):
    _fp = ex.load_model(cfg, trained)
    _m = None if m_pick.value == "full" else int(m_pick.value)
    _out = ex.playground(cfg, _fp, bits_pick.value, int(steps_pick.value), base_pick.value, _m, float(lam_slider.value),
                         run.seed, solver=solver_pick.value)
    mo.vstack([plots.playground_figure(_out, f"{bits_pick.value}, {steps_pick.value} steps, {base_pick.value}, "
                                             f"m={m_pick.value}, λ₁={lam_slider.value:g}, {solver_pick.value}"),
               mo.md("*Figure: per seed, the PSNR against the full-precision sample with TCEC (y) and with the base "
                     "quantised model alone (x), at the settings in the title; above the diagonal TCEC helped.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers, with thresholds fixed in
    the chapter's config before the run; the rule's rejected alternative is named under it. The
    large-model rows are quoted from the abstract and marked not testable.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check10,
    check11,
    check12,
    check1b,
    check2,
    check2b,
    check2q,
    check3,
    check4,
    check5,
    check6,
    check7,
    check8,
    check9,
    run,
):
    ledger = ClaimsLedger("diffusion_ptq_compensation", run.profile)
    ledger.add_checks(check1, check1b, check2q, check2, check2b, check3, check4, check5, check6, check7, check8, check9,
                      check10, check11, check12)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ### Rules changed after a run

    A second rule-breaking review (session 5, after the default run of commit 3c926d3 and the smoke run of
    67dd53f) built inputs under which rules said "reproduced" in a world where the claim is false. Each rule
    below was made stricter (never looser) because of it, and the review's input is now a test case the rule
    must reject:

    - **C3** (Approximation 1) was decided on the per-step ratio alone; a ratio of 0.1–0.2 per step passes it
      yet compounds over {cfg.steps[-1]} steps. It now also compares, on the same δ's and FP trajectories,
      the $J=0$ closed form with the linearised product that keeps $J$ (what the approximation is used for),
      with C2's thresholds on one-sided t-bounds over seeds.
    - **C4** (variance law) compared the measured error with the independent-errors prediction, so errors
      correlated across steps (three times the variance) and a mild damping by the network could cancel.
      The independence assumption is now tested on its own: the closed form's full second moment
      $\|\sum_nW_{{S,n}}\delta_n\|^2$ against $\sum_nW_{{S,n}}^2\|\delta_n\|^2$, both from the measured δ's.
    - **C5, C9, C10, C11** ("significantly enhancing") only needed the interval of the gain above 0; a 0.03 dB
      gain passed, and C5 rested on one calibration. They now need its lower end above the minimum effect `min_gain_db` = {cfg.min_gain_db:g} dB
      ({cfg.min_gain_db / 1.2:.0%} of the paper's 1.2 dB, a {1 - 10 ** (-cfg.min_gain_db / 10):.1%} lower squared error
      against the FP output), fixed in the config
      before the next run; both the t-interval and the paired bootstrap's must clear it. C9 is undecided where
      SVDQuant-lite is not a stronger base than RTN.
    - **C6** passed when both windows *lost* about 1 dB; the full sum's gain must now pass the same minimum-effect
      test. Its oracle half (the oracle subtracts the true δ and so follows the FP trajectory) holds by
      construction: it is now a check of the code, tested in `tests/`, not part of the claim.
    - **C7** passed with losses at both step counts; the many-step gain must now pass the minimum-effect test.
    - **C12** passed when TCEC "beat" corrections that were worse than no correction; TCEC's own gain must now
      pass the minimum-effect test, and the row is undecided where TAC or QNCD as reimplemented here falls
      below the uncompensated base (their gains over the base are in the measured text).
    - **C1** accepted any monotone error curve, one made almost entirely in the last steps included; the mean
      error 80 % of the way through must now be at least {cfg.accum_early_min:.0%} of the final one.
    - **C8** (timed) is undecided when the timing noise (second-fastest − fastest run) is not below the
      {cfg.overhead_max:.0%} threshold: under bursty load a few percent can hide. A negative overhead counts as
      noise too: the corrected sampler does all of the base's work and more, so it can come out faster only by drift
      between the two samplers' timings.

    What the intervals are over: the evaluation seeds (independent noise draws) of **one** trained denoiser,
    **one** quantised model and **one** calibration ($K_n$ fitted and $\lambda_1$ chosen on {cfg.n_cal} seeds). The
    randomness of training and of calibration, which decides what TCEC subtracts, is not in them. For C5 this
    profile calibrates {cfg.cal_repeats} time(s) on fresh calibration seeds ($K_n$ refitted, $\lambda_1$ chosen
    again; `cal_repeats`) and asks for the gain on each, so one lucky calibration cannot carry the row; the
    other gain rows and the training seed stay single (there is one trained model per profile). Left undone:
    C2's and C2b's mean of per-seed ratios is sensitive to one seed with a near-zero final error (the rules
    read means with t-bounds; a median was not fixed before the runs).
    """)
    return


@app.cell
def _(cfg, mo, trained):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **Scale.** 8×8 digits and a U-Net (profile `default`), or a 2-D ring and an MLP (`smoke`); this
      page's denoiser has {trained['n_params']:,} parameters; instead of SDXL, PixArt, OpenSORA and Flux.1-dev. PSNR is measured against the
      FP model's output from the same noise, as in the paper's protocol; FID needs Inception weights and
      is replaced by a Fréchet distance in the features of a small digits classifier (FD-digits; in the
      plane for 2-D data), never called FID.
    - **Fake quantisation**, not integer kernels: the overhead row times our CPU sampler, not the
      paper's GPU pipeline; its denominator rounds and dequantises inside every layer, which is slower
      than integer kernels and so makes a relative overhead look smaller than it would be with them.
    - **SVDQuant-lite** is a simplification of SVDQuant (smoothing, a low-rank FP branch, an RTN
      residual), not its kernels or its calibration.
    - **The method is a reconstruction.** The propagation equation, the closed form under
      Approximation 1 and the compensation rule (channel-wise $K_n$, window $m$, $\lambda_1$) are derived
      here from the DDIM update and the public reviews' description; the paper's own equations were not
      reached. $\delta$ is measured on the quantised trajectory (the FP model re-evaluated there);
      $\lambda_1$ and $m$ are chosen and ablated, not taken from the paper. The carried term was rebuilt in
      session 8 (it double-counted the per-step estimates; see the rule above): every compensation row
      before then tested the per-step scaling, not the method.
    - **Converged before compared** (session 8). The compensation rows (5-7, 9-12) read trained denoisers;
      each first checks that training half as long again moves the denoiser's training loss by less than a
      third of {cfg.plateau_margin:.0%} of its whole fall (read back along its logged curve) and is
      inconclusive (not converged) otherwise. Since session 11 each also checks the compared metric itself:
      the weights of the same run after two thirds of its updates are quantised, calibrated and evaluated as
      the final ones are (the same seeds, fits and λ₁ search), and the mean TCEC gain at the lowest bit width
      must move by less than a third of the minimum effect ({cfg.min_gain_db:g} dB) between the two. The loss
      test alone passed a 1,500-update ε-denoiser whose gain moved by 1 dB when trained to 3,000. The earlier
      weights sit inside the run's annealed schedule, so this reading is stricter than a separate shorter run
      would be; each row's measured text gives both readings per model. Since session 12 the theory rows
      (1-4) are guarded too, on their own statistics: they are computed again on the weights after two thirds
      of the updates, and a row whose statistics moved by a third of their distance from its threshold or more
      (or whose decision differs) is inconclusive (not converged); the table "The theory rows at two horizons"
      gives both readings.
    - **Sizes** (session 9: `default` must fit ten minutes of one core, where it had grown to about 25). This
      run trains the ε-denoiser {cfg.train_steps:,} updates, the flow model {cfg.flow_train_steps:,} and the DiT
      {cfg.dit_train_steps:,}, and measures on {cfg.n_eval} evaluation and {cfg.n_cal} calibration seeds
      ({cfg.n_theory} for the Jacobian rows, {cfg.cal_repeats} calibration(s) for C5, {cfg.overhead_repeats} timed
      repeats for C8). Before session 9 `default` trained 3,000 / 1,500 / 1,500 updates on 256 and 128 seeds.
      A session-9 run of the ε-denoiser at 1,500 updates passed the loss test while its compared gain still
      moved markedly between 1,500 and 3,000 updates (the measurements are in the chapter's config); since
      session 11 the guard reads that gain itself at two horizons, so a model that passes it here has passed
      both readings (session 15 cut the ε-denoiser from 3,000 updates, which failed the guard, to 2,000, and
      the evaluation seeds from 128 to 96, to fit the budget). Whether each model passes the convergence guard at this size is measured in the rows above; {'fewer seeds than those 256 widen every interval by about %.2f× (√(256/%d))' % ((256 / cfg.n_eval) ** 0.5, cfg.n_eval) if cfg.n_eval < 256 else 'this profile evaluates on at least those 256 seeds'}; a row that cannot be decided at this size says so.
      `full` (a GPU) trains every model 12,000 updates and measures on 2,000 evaluation and 1,000 calibration
      seeds: that is where the compensation rows are meant to be decided.
    - **Samplers.** DDIM carries the main study; DPM-Solver++(2M) and flow-matching Euler are run at the
      main step count on the two lowest bit widths (RTN), with a flow model of the same architecture
      trained here (not Flux.1-dev).
    - **Transformer.** A DiT with 16 tokens (its parameter count is given under claim 11) stands in for PixArt (0.6B); its
      attention products are not quantised.
    - **TAC and QNCD** are reimplemented from descriptions: TAC's mask and its input-bias placement
      are our reading of third-party summaries of the paper; QNCD follows its public sampler's
      run-time estimate (a mean over the whole batch) and leaves out its activation smoothing. That
      estimate averages the residual $\hat\varepsilon-e$ over every number in the batch, so its own noise
      scales as one over the square root of that count (512 numbers per batch on the 2-D ring, 16,384 on the
      digits); the QNCD control above (run on the FP model itself) measures how far that noise moves the sampler.
    - **Rules made stricter in session 5** (after the session-4 runs, where claims 2 and 2b already failed;
      the thresholds did not move). Claims 2 and 2b read the mean cosine and relative error over the
      evaluation seeds; they now read their one-sided 95 % t-bounds (the seeds are independent
      trajectories, and the claim is about the closed form as a model of a trajectory's error, on
      average), with the 10 % / 90 % per-seed quantiles reported beside. We did not pool the seeds (a
      pooled cosine weights each trajectory by its error's norm) nor decide on a per-seed quantile (its
      fraction was not fixed before the runs, and for the heavy-tailed relative error it can be looser
      than the mean). Claim 2b also asks the two-step form to beat the one-step form on DPM-Solver++(2M)
      (paired over seeds), which a review had found untested.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - S. Liu et al. *Error Propagation Mechanisms and Compensation Strategies for Quantized Diffusion Models.* ICML 2026 [@liu2026tcec].
    - J. Ho, A. Jain, P. Abbeel. *Denoising Diffusion Probabilistic Models.* 2020 [@ho2020ddpm].
    - J. Song, C. Meng, S. Ermon. *Denoising Diffusion Implicit Models.* 2021 [@song2021ddim].
    - C. Lu et al. *DPM-Solver++.* 2022 [@lu2022dpmsolverpp].
    - Y. Lipman et al. *Flow Matching for Generative Modeling.* 2023 [@lipman2023flow].
    - W. Peebles, S. Xie. *Scalable Diffusion Models with Transformers.* 2023 [@peebles2023dit].
    - M. Li et al. *SVDQuant.* 2025 [@li2025svdquant].
    - G. Xiao et al. *SmoothQuant.* 2023 [@xiao2023smoothquant].
    - Y. He et al. *PTQD.* 2023 [@he2023ptqd].
    - Y. Yao et al. *Timestep-Aware Correction for Quantized Diffusion Models.* 2024 [@yao2024tac].
    - H. Chu et al. *QNCD: Quantization Noise Correction for Diffusion Models.* 2024 [@chu2024qncd].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
