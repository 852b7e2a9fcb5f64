import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Constrained diffusion with landing")


@app.cell
def _():
    import marimo as mo

    from icmlbook.papers import constrained_diffusion_landing as cdl
    from icmlbook.papers.constrained_diffusion_landing import claims, experiments as ex, plots
    from icmlbook.runtime import ClaimsLedger, open_chapter, show_plotly
    return ClaimsLedger, cdl, claims, ex, mo, open_chapter, plots, show_plotly


@app.cell
def _(mo):
    mo.md(r"""
    # Diffusion models on nonconvex sets, by landing instead of projecting

    Some data live on a set defined by constraints: points on a sphere, rotation matrices, a molecule
    with a fixed dihedral angle, a robot arm's path that must avoid obstacles. A diffusion model for
    such data has to keep its forward noising paths and its backward generating paths on the set
    $\Sigma=\{x: h(x)=0,\ g(x)\le 0\}$. The usual way is to **project** after every step: a Newton
    solve that costs several iterations and can fail on a nonconvex set. Jeon, Muehlebach and Tao
    [@jeon2026landing] instead **land**: each step moves in the tangent space and adds one cheap
    correction along the constraints' normals that pulls the iterate back towards $\Sigma$ (the idea
    of landing methods for optimisation on manifolds [@ablin2022landing], made into a Langevin sampler
    in their earlier OLLA paper [@jeon2025olla]). They pair it with **underdamped** (kinetic) dynamics,
    meant to mix faster, so that fewer steps, and fewer stored path points, are needed (claims 3 and 5
    test this here).

    This chapter implements the method as the authors' code does it, trains the overdamped and
    underdamped models with landing and with projection on the sphere, a capped sphere with a
    nonconvex bite, and the paper's own volcano catalogue, compares them with a Riemannian
    score-based model that moves along exact geodesics and with an ambient diffusion projected at the
    end, and measures feasibility, failures, mixing, quality and cost.
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
    | **Paper** | *Efficient Diffusion Models under Nonconvex Equality and Inequality Constraints via Landing* |
    | **Authors** | Kijung Jeon, Michael Muehlebach, Molei Tao |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2604.17838](https://arxiv.org/abs/2604.17838) |
    | **Code** | github.com/KraitGit/efficient-constrained-diffusion (MIT), read to reconstruct the method |

    The paper's text was not reached; its claims as we test them come from its abstract: sample quality
    comparable to state-of-the-art baselines, substantially fewer function evaluations and less memory
    in training and inference, and no projection failures, on nonconvex sets with equality and
    inequality constraints. The method below follows the official code.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("constrained_diffusion_landing", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.n_train} training
    points per data set, {cfg.n_seeds} seeds, an MLP of depth {cfg.depth} and width {cfg.width} trained for
    {cfg.epochs} epochs with the paths regenerated every {cfg.regen_every} epoch(s); OLLA with N = {cfg.olla_N}
    steps and ULLA with N = {cfg.ulla_N}, landing gain α = {cfg.alpha:g} ({cfg.landing}).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Landing, in one picture

    At a point $x$, stack the active constraints (every equality, and the inequalities with $g_j(x)\ge0$,
    shifted by a margin $\varepsilon$ so that they aim slightly inside), their Jacobian rows $\nabla J$
    and the small damped Gram matrix $G=\nabla J\nabla J^\top+\delta I$. The tangent projection is
    $\Pi_x v=v-\nabla J^\top G^{-1}\nabla J\,v$ and the landing correction is
    $-\nabla J^\top G^{-1}\tilde J(x)$: a single $p\times p$ solve for $p$ active constraints. Applied at
    the point after a tangent step (implicit landing) it is one Gauss–Newton step; a projection
    iterates such steps until the constraints are met to a tolerance, and may not converge.
    """)
    return


@app.cell
def _(plots):
    plots.landing_vs_projection_figure()
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: one tangent step from a point of the circle, then the two ways back to the set: the
    projection (Newton's iterations to the tolerance) and landing's single solve; the title gives the
    constraint value landing leaves.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The forward and backward processes

    With a noise schedule $\sigma(t)$ on $[0,T]$ and $N$ steps of size $\Delta t=T/N$:

    - **OLLA** (overdamped): $y=x_k+\Pi_{x_k}(\sigma_k\sqrt{\Delta t}\,z)$, then landing.
    - **ULLA** (underdamped): a velocity, recovered from the path by finite differences and projected,
      follows an exact Ornstein–Uhlenbeck step $u=a_kv_k+\sqrt{1-a_k^2}\,z$ with
      $a_k=e^{-\gamma\sigma_k^2\Delta t}$, the position moves by $\sigma_k^2\Delta t\,\Pi_{x_k}u$, then landing.
    - **OLLA-P / ULLA-P**: the same with a Newton projection at every step; a trajectory whose
      projection fails is dropped.

    The network $s_\theta$ is trained by matching the backward transitions of whole forward paths (a
    Gaussian negative log-likelihood restricted to tangent directions; in the code's convention the
    overdamped network learns twice the score), and generation runs the same integrators backwards
    from the uniform law on $\Sigma$, ending with one terminal projection.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Sample quality and cost on the sphere (claims 4, 5 and 9)

    Data: a mixture of von Mises–Fisher laws on $S^2$, a fresh draw and initialisation per seed; every
    variant trains on the same draw, with the same network, trainer, epochs and metrics. Besides the
    four landing and projection variants, two baselines:

    - **RSGM**, a Riemannian score-based model in the manner of De Bortoli et al.
      [@debortoli2022riemannian]: the forward and backward processes are geodesic random walks
      $x_{k+1}=\exp_{x_k}(\sigma_k\sqrt{\Delta t}\,\Pi_{x_k}z)$ with the sphere's exact exponential map
      (from `geomstats`), and the loss is OLLA's with the chord $x_k-x_{k+1}$ replaced by
      $\log_{x_{k+1}}x_k$. It uses OLLA's schedule and number of steps, so the comparison isolates
      what landing costs against exact geometry.
    - **Ambient**: a variance-preserving diffusion in $\mathbb R^3$ that ignores the sphere, from
      $\mathcal N(0,I)$, with one projection $x/\|x\|$ at the end.

    Quality is the Jensen–Shannon **divergence** (natural log) between 30 × 30 latitude/longitude
    histograms of generated and held-out points; the uniform law's value is the no-learning reference.
    """)
    return


@app.cell
def _(cfg, ex, run):
    trained = run.cached("landing-models", ex.train_variants, cfg, run.seed)
    quality = ex.quality_study(cfg, run.seed, trained)
    return quality, trained


@app.cell
def _(plots, quality):
    plots.quality_figure(quality)
    return


@app.cell
def _(cfg, claims, mo, quality):
    check4 = claims.claim4(quality, cfg)
    check9 = claims.claim9(quality, cfg)
    _rows = ["| seed | method | N (NFE) | JSD | MMD² | sliced W₂ | train s | stored paths MiB |", "|---|---|---|---|---|---|---|---|"]
    for _r in quality.records:
        _rows.append(f"| {_r['seed']} | {_r['method']} | {_r['N']} | {_r['jsd']:.4f} | {_r['mmd2']:.4f} | {_r['sw']:.3f} | "
                     f"{_r['train_seconds']:.1f} | {_r['path_megabytes']:.2f} |")
    _table = "\n".join(_rows)
    mo.md(f"""
    *Figure: JSD per variant (bars: mean, dots: seeds) and training wall time.* Per run:

    {_table}

    {check4.sentence("Claim 4")}

    {check9.sentence("Claim 9")}

    Claim 5 is decided below, with the steps-against-quality curve that holds its control.
    """)
    return check4, check9


@app.cell
def _(plots, quality, show_plotly):
    show_plotly(plots.globe_plotly(*quality.globe, "OLLA samples (seed 0) and held-out data on S²"))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure (interactive, drag to rotate): OLLA's samples of the first seed and the held-out data on the sphere.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Steps against quality

    Every trained model is sampled again with $N$ from a grid of step counts (one network evaluation per
    step, so $N$ is the NFE): the models are the ones above, not retrained, and the network is read as a
    function of continuous time.
    """)
    return


@app.cell
def _(cfg, ex, trained):
    nfe = ex.nfe_curve(cfg, trained)
    return (nfe,)


@app.cell
def _(cfg, claims, mo, nfe, plots, quality):
    check5 = claims.claim5(quality, nfe, cfg)
    _few = plots.fewest_steps(nfe, cfg.parity_margin)
    _Ns = sorted(nfe["Ns"])

    def _mean(m, n):
        v = [r["jsd"] for r in nfe["rows"] if r["method"] == m and r["N"] == n]
        return sum(v) / len(v)

    _line = "; ".join(f"{m} {_mean(m, _Ns[0]):.4f} at N={_Ns[0]}, {_mean(m, _Ns[-1]):.4f} at N={_Ns[-1]}" for m in _few)
    mo.vstack([plots.nfe_figure(nfe, cfg.parity_margin),
               mo.md(f"*Figure: JSD to held-out data against the number of sampling steps, mean over seeds.* "
                     f"Mean JSD per model: {_line}. The fewest steps within {cfg.parity_margin:g} JSD of each "
                     f"model's quality at N={_Ns[-1]}: " + ", ".join(f"{m} {n}" for m, n in _few.items()) + "."),
               mo.md(check5.sentence("Claim 5") + " The control reads OLLA's model sampled at ULLA's number of steps off "
                     "this curve: if it matches ULLA there, halving the steps, not underdamping, gave the parity.")])
    return (check5,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Feasibility along the paths (claim 1)

    Landing does not put the iterates exactly on $\Sigma$; it attracts them. We record the mean
    violation $|h|$ at every step of the forward training paths and of the backward generating paths,
    and the violation after the terminal projection. **Our sphere is $h(x) = |x|^2 - 1$; the official code
    uses $h(x) = |x| - 1$.** Near the set $|x|^2 - 1 \approx 2(|x| - 1)$, so the same iterates show about twice
    the violation in our parameterisation as in the code's, and claim 1's threshold ($10^{-3}$, ours: the
    dossier's example, not a number of the paper) is about twice as strict here as it would be there.
    """)
    return


@app.cell
def _(cfg, ex, run):
    forward = run.cached("landing-forward-feasibility", ex.forward_feasibility, cfg, run.seed)
    return (forward,)


@app.cell
def _(claims, cfg, forward, mo, plots, quality):
    check1 = claims.claim1(forward, quality, cfg)
    mo.vstack([plots.feasibility_figure(forward, quality.backward_traces),
               mo.md(f"*Figure: mean constraint violation per step (log scale).*\n\n{check1.sentence('Claim 1')} "
                     f"{claims.claim1_in_code_parameterisation(forward, check1, cfg)}")])
    return (check1,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Failures of projections (claim 2)

    A nonconvex set with a boundary and a singular axis: the torus $(\sqrt{x^2+y^2}-1)^2+z^2=0.4^2$ cut by
    the half-space $x\le0.6$. Data from a mixture on its angles run forward with landing and with Newton
    projections at growing step sizes; a projection that does not reach the set within 30 iterations
    drops its trajectory. Failures are counted along the whole path: for the projection variant its
    own step projections and the terminal one; for landing, the terminal projection and a projection
    of every intermediate iterate tried on the side (without changing the path), which fails when
    landing has let an iterate drift where the set can no longer be reached.
    """)
    return


@app.cell
def _(cfg, ex, run):
    drop = run.cached("landing-drop-study", ex.drop_study, cfg, run.seed)
    return (drop,)


@app.cell
def _(cfg, claims, drop, mo, plots, quality):
    check2 = claims.claim2(drop, quality, cfg)
    mo.vstack([plots.drop_figure(drop), mo.md(f"*Figure: dropped trajectories and landing's worst violation against "
                                              f"the step.*\n\n{check2.sentence('Claim 2')}")])
    return (check2,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Does the forward process reach the prior? (claim 3)

    Generation starts from the uniform law on $\Sigma$, so the forward process must end there. On the
    sphere symmetry makes a projected Brownian motion uniform for free; the torus has no such symmetry,
    and the code's forward step omits the mean-curvature correction of the continuous landing SDE. We
    compare the forward marginal at $T$ with area-uniform points (kernel MMD² and a permutation test) as
    the number of steps grows, over independent draws of the data; OLLA and ULLA share each draw, so
    their difference is paired.
    """)
    return


@app.cell
def _(cfg, ex, run):
    prior = run.cached("landing-prior-study", ex.prior_study, cfg, run.seed)
    return (prior,)


@app.cell
def _(cfg, claims, mo, plots, prior):
    check3 = claims.claim3(prior, cfg)
    mo.vstack([plots.prior_figure(prior), mo.md(f"*Figure: MMD² of the forward marginal at T to the uniform law.*\n\n"
                                                f"{check3.sentence('Claim 3')}")])
    return (check3,)


@app.cell
def _(mo):
    mo.md(r"""
    ## The cost of a step (claim 6)

    On $SO(n)$ ($n^2$ coordinates, $n(n+1)/2$ equalities $X^\top X=I$), from the same off-manifold points,
    one landing correction against a Newton projection, both with the same generic Jacobians. Two measures:
    **operations per point** (an evaluation of the constraints with their Jacobian, and a $p\times p$
    solve, are one operation each), which decides the claim, and **wall time**, reported beside it:
    the fastest of several rounds in which the two are timed in turn. Both sides' operations are
    *counted on the code that runs*: a counter wraps the constraint set's evaluation and solve while
    landing's step (as the samplers call it) and the Newton projection run, and Newton's points are
    projected in groups of equal iteration count, so that each stops at its own tolerance (the count most
    favourable to Newton; the batched count, every point until the slowest, is drawn dashed). Newton's
    count includes the evaluation that finds it converged, as the baselines' projection runs it (counting
    it on the running code showed that our projection evaluated once more after converging, to check for
    failure; it now reuses the last check, and the results are the same). Until the contract's second edition landing's side
    was typed as "one evaluation, one solve" beside a counted Newton; a count typed into a rule cannot
    fail, so it is now measured like the other side.

    *Changed after the session-3 runs:* the rule used to be the wall-clock ratio. On a machine shared with
    other jobs it swung from 0× to 103× between two smoke runs, so a verdict could depend on what else
    was running; operation counts are the same for the same seed, and the interleaved minimum keeps the
    reported times from taking a load burst on one side only.

    **Against the closed-form projection (claim 6s).** $SO(n)$ has a projection that needs no iteration: the
    polar factor $UV^\top$ of the SVD (with the last column of $U$ flipped where the determinant is negative).
    It evaluates no constraint and solves no $p\times p$ system, so operation counts do not compare; the row
    decides on wall time instead, with the SVD timed in the same interleaved rounds as landing and Newton, and
    the log of the time ratio in each round giving a 95 % interval over the rounds (a timed row: under load
    the interval widens and the row turns inconclusive rather than flipping). Landing's step here is the
    generic correction the samplers use on every set, $\nabla J^\top G^{-1}\tilde J$, whose Jacobian has
    $n(n+1)/2\times n^2$ entries. The same step can be written for the orthogonal group alone: it is the
    smallest $V$ with $M^\top V+V^\top M=M^\top M-I$, that is $V=MS$ with $CS+SC=M^\top M-I$ for
    $C=M^\top M$, solved from one symmetric eigendecomposition of $C$ (the same step up to the generic solve's
    damping, tested). It is timed in the same rounds, and "not reproduced" at an $n$ needs both ways of computing
    the step below the limit there: a slow generic step alone is evidence against our code, not against the step
    (added in session 10 by an outside review; the row's measured values give both ratios at every $n$). The row
    was added in session 9, after an audit asked for it.
    """)
    return


@app.cell
def _(cfg, ex, run):
    cost = run.cached("landing-cost-study", ex.cost_study, cfg, run.seed)
    return (cost,)


@app.cell
def _(cfg, claims, cost, mo, plots):
    check6 = claims.claim6(cost, cfg)
    check6s = claims.claim6s(cost, cfg)
    mo.vstack([plots.cost_figure(cost), mo.md(f"*Figure: operations per point (left) and wall time per step (right, "
                                              f"with SO(n)'s closed-form SVD projection; it varies between runs) "
                                              f"against the number of constraints.*\n\n"
                                              f"{check6.sentence('Claim 6')}\n\n"
                                              f"{check6s.sentence('Claim 6s (against the SVD projection)')}")])
    return check6, check6s


@app.cell
def _(mo):
    mo.md(r"""
    ## Equalities and inequalities together (claim 7)

    The sphere with both polar caps removed ($|x_3|\le0.8$) and a nonconvex bite ($x_1\le0.7$): one
    equality and three inequalities. A vMF mixture restricted to it is learned with OLLA.
    """)
    return


@app.cell
def _(cfg, ex, run):
    mixed = run.cached("landing-mixed-study", ex.mixed_study, cfg, run.seed)
    return (mixed,)


@app.cell
def _(cfg, claims, mixed, mo, plots):
    check7 = claims.claim7(mixed, cfg)
    mo.vstack([plots.mixed_figure(mixed), mo.md(f"*Figure: held-out data and samples (the shaded caps are outside "
                                                f"the set).*\n\n{check7.sentence('Claim 7')}")])
    return (check7,)


@app.cell
def _(mo):
    mo.md(r"""
    ## The landing gain (a diagnostic, not a claim)

    Explicit landing scales the correction by $\alpha\sigma^2\Delta t$; above 1 it overshoots (the sign of
    $h$ flips from step to step), at 2 or more it diverges, so the library refuses those gains. We sweep the
    gain below that limit, run one gain beyond it on purpose (the one place the library lets it through, to see
    the other side of the trade-off), and compare with implicit landing on forward paths on $S^2$.

    This used to be claim 8 ("the gain trades off"). It is no longer in the ledger: near the set the update
    multiplies $h$ by $1-s$ with $s=\alpha\sigma^2\Delta t$ explicitly and by about $0$ implicitly, so the
    divergence beyond $s=2$ and implicit landing's stability at every gain follow from the update itself; they
    are checked in the tests, on sampled paths against $|x|^2-1$ computed apart from the library, as tests of
    our code. The small-gain side is a real measurement but not a claim we could read in the paper. The
    numbers are shown as a diagnostic, without a verdict.
    """)
    return


@app.cell
def _(cfg, ex, run):
    sweep = run.cached("landing-gain-sweep", ex.landing_sweep, cfg, run.seed)
    return (sweep,)


@app.cell
def _(claims, mo, plots, sweep):
    mo.vstack([plots.sweep_figure(sweep), mo.md(f"*Figure: mean |h| along forward paths per gain.*\n\n"
                                                f"**Diagnostic (not a claim; no verdict)** — {claims.gain_diagnostic(sweep)}.")])
    return


@app.cell
def _(cfg, ex, run):
    earth = run.cached("landing-earth-study", ex.earth_study, cfg, run.seed)
    return (earth,)


@app.cell
def _(cfg, claims, earth, mo):
    check4e = claims.claim4e(earth, cfg)
    mo.md(f"""
    ## The paper's own data: volcanoes on the globe

    {"OLLA and ULLA are trained" if cfg.earth else "The default and full profiles train OLLA and ULLA (this profile does not)"}
    on the catalogue's training split with {f"{cfg.earth_seeds} seeds" if cfg.earth else "several seeds"} each (the same
    split, fresh initialisation and noise) and {"score them" if not cfg.earth else "scored"} by the JSD of 2000 samples to the held-out points. With
    so few test points even a perfect model's JSD is far from 0, so "learned" is measured against a floor,
    2000 draws of the training points scored the same way, not against 0.

    {check4e.sentence("Claim 4 on the volcano catalogue")}
    """)
    return (check4e,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## The paper's other benchmarks (claims 10, 11 and 12)

    Three of the paper's benchmarks with the same landing samplers, network and trainer (OLLA and ULLA,
    implicit landing, the official configuration's schedules):

    - **SO(10)**: a mixture of three concentrated rotations, $X^\top X=I$ as 55 equalities in
      $\mathbb R^{{100}}$, Haar-uniform prior; quality from histograms of $\operatorname{{tr}}X^p$, $p=1,2,3$.
    - **Alanine dipeptide**: ten heavy atoms in $\mathbb R^{{30}}$, the dihedral $\phi=-70^\circ$ fixed and
      $\psi\in[130^\circ,170^\circ]$ (one equality, two inequalities); the paper's conformations moved onto
      the set by a Newton projection of a few degrees; quality from histograms of $\psi$ and of the RMSD to
      the centre conformation.
    - **7-DOF arm**: the paper's Panda trajectories (10 waypoints, each joint as $(\cos,\sin)$, $\mathbb R^{{140}}$),
      86 equalities (the joint identities, the end effector's height, its start and end positions) and 20
      obstacle inequalities; quality from the histogram of the data's first two principal components.

    The dipeptide's and the arm's sets are unbounded, so, as in the official code, their prior is the
    forward process's end points started from training data. A model that learned nothing returns its
    prior, and training points (another sample of the data's law) give the measure's floor: each rule asks
    the samples to close at least half the gap from the prior to the floor, on every seed, and to lie within
    {cfg.feas_mean_h:g} of the set before the terminal projection (not only after it, where the projection's tolerance
    would decide).
    """)
    return


@app.cell
def _(cfg, mo):
    _sizes = (f"{cfg.bench_seeds} seed(s), {cfg.bench_n_train} training points, an MLP {cfg.bench_depth} × "
              f"{cfg.bench_width} trained {cfg.bench_epochs} epochs"
              + (f", N = {cfg.bench_N}" if cfg.bench_N else ", the configuration's N"))
    mo.md(f"Benchmarks run at this profile: {', '.join(cfg.benchmarks)} ({_sizes})." if cfg.benchmarks else
          "Benchmarks run at this profile: none (the `full` profile runs all three).")
    return


@app.cell
def _(cfg, run):
    from icmlbook.papers.constrained_diffusion_landing import benchmarks as _bm

    bench = {_b: (run.cached(f"landing-benchmark-{_b}", _bm.benchmark_study, cfg, run.seed, _b) if _b in cfg.benchmarks
                  else None) for _b in _bm.BENCHMARKS}
    return (bench,)


@app.cell
def _(bench, cfg, claims, mo, plots):
    check10 = claims.claim10(bench["so10"], cfg)
    check11 = claims.claim11(bench["dipeptide"], cfg)
    check12 = claims.claim12(bench["robot"], cfg)
    _text = "\n\n".join([check10.sentence("Claim 10"), check11.sentence("Claim 11"), check12.sentence("Claim 12")])
    if any(v is not None for v in bench.values()):
        _out = mo.vstack([plots.benchmarks_figure(bench),
                          mo.md("*Figure: JS divergence of samples and of the prior's points to held-out data, per "
                                f"benchmark (bars: means, dots: seeds).*\n\n{_text}")])
    else:
        _out = mo.md(_text)
    _out
    return check10, check11, check12


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Change the landing gain, the number of steps and the landing mode, and watch one batch of forward
    paths on $S^2$: the mean violation per step. Below it, draw a fresh batch from one of the models
    trained above (seed 0), with any number of sampling steps. On the website the controls show the
    values this page was built with; open the chapter live to change them.
    """)
    return


@app.cell
def _(mo):
    gain_slider = mo.ui.slider(steps=[0.01, 0.03, 0.1, 0.3, 1.0, 1.5, 1.9], value=1.0, label="explicit gain α σ² Δt")
    steps_slider = mo.ui.slider(steps=[10, 20, 50, 100, 200], value=50, label="steps N")
    mode_pick = mo.ui.dropdown(options=["implicit", "explicit"], value="implicit", label="landing")
    mo.hstack([gain_slider, steps_slider, mode_pick])
    return gain_slider, mode_pick, steps_slider


@app.cell
def _(cfg, gain_slider, mo, mode_pick, plots, run, steps_slider):
    import torch as _torch

    from icmlbook.papers.constrained_diffusion_landing.constraints import Sphere as _Sphere
    from icmlbook.papers.constrained_diffusion_landing.data import vmf_mixture as _vmf
    from icmlbook.papers.constrained_diffusion_landing.sde import Schedule as _Schedule, forward_paths as _fp

    _sch = _Schedule("linear", cfg.olla_sigma_min, cfg.olla_sigma_max, cfg.olla_T)
    _N = steps_slider.value
    _alpha = gain_slider.value / (cfg.olla_sigma_max ** 2 * _sch.T / _N)
    _p = _fp(_Sphere(), _vmf(300, run.seed), _sch, _N, "OLLA", _torch.Generator().manual_seed(run.seed), alpha=_alpha,
             landing=mode_pick.value, terminal=False)
    mo.vstack([plots.sweep_figure({"rows": [{"mode": mode_pick.value, "scale": gain_slider.value,
                                             "trace": _p.violation.mean(1).numpy()}]}),
               mo.md(f"*Figure: mean |h| along {_p.violation.shape[1]} forward paths on S² with {mode_pick.value} landing, "
                     f"gain {gain_slider.value:g}, N = {_N} steps.*")])
    return


@app.cell
def _(cfg, mo, trained):
    model_pick = mo.ui.dropdown(options=list(trained[0]["models"]), value="ULLA", label="model")
    resample_steps = mo.ui.slider(steps=sorted({5, 10, 20, 50, 100, cfg.olla_N, cfg.ulla_N}), value=cfg.ulla_N,
                                  label="sampling steps N")
    resample_seed = mo.ui.number(start=0, stop=10_000, step=1, value=1, label="sampling seed")
    mo.hstack([model_pick, resample_steps, resample_seed])
    return model_pick, resample_seed, resample_steps


@app.cell
def _(cfg, ex, model_pick, resample_seed, resample_steps, trained):
    batch = ex.resample(cfg, trained, model_pick.value, resample_steps.value, int(resample_seed.value))
    return (batch,)


@app.cell
def _(batch, mo):
    mo.md(f"A fresh batch of {len(batch['samples'])} points from the cached {batch['method']} model with "
          f"N = {batch['nfe']} steps ({batch['seconds']:.2f} s): JSD to the held-out points {batch['jsd']:.4f}.")
    return


@app.cell
def _(batch, plots, show_plotly):
    show_plotly(plots.globe_plotly(batch["samples"], batch["test"], f"{batch['method']}, N = {batch['nfe']}: a fresh batch"))
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers, with the alternative it
    rejects. The paper gives qualitative claims only; no number of ours is compared with an invented one.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check2,
    check3,
    check4,
    check4e,
    check5,
    check6,
    check6s,
    check7,
    check9,
    check10,
    check11,
    check12,
    run,
):
    ledger = ClaimsLedger("constrained_diffusion_landing", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check4e, check5, check6, check7, check9, check10, check11,
                      check12, check6s)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cdl, cfg, check4, check4e, check5, check9, claims, mo):
    _need = claims.full_needs({"4": check4, "4e": check4e, "5": check5, "9": check9}, cfg, cdl.config_for("full"))
    mo.md(_need or "Every row that compares trained samplers passed the convergence guard at this profile.")
    return


@app.cell
def _(cdl, cfg, mo, run):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we read.** The paper's text, theorems and tables were not reached: the method follows the
      official code (MIT) as read for the dossier, the claims the abstract. The velocity the underdamped
      loss feeds the network is the one *out of* $x_{{k+1}}$ along the path, as in the code's loss.
    - **Scale.** At this profile ({run.profile}) an MLP of depth {cfg.depth} and width {cfg.width} trained
      {cfg.epochs} epochs on {cfg.n_train:,} points ({-(-cfg.n_train // cfg.batch_size)} mini-batch(es) of
      {min(cfg.batch_size, cfg.n_train)} per epoch, {cfg.epochs * -(-cfg.n_train // cfg.batch_size):,} updates; the
      paper's batch is 512), instead of 5×512 networks trained 20,000 epochs; the `full` profile
      ({cdl.config_for("full").epochs:,} epochs on {cdl.config_for("full").n_train:,} points,
      {cdl.config_for("full").depth}×{cdl.config_for("full").width}) moves towards the paper's sizes.
    - **Data.** Synthetic von Mises–Fisher mixtures on $S^2$ for the controlled comparisons (fresh per
      seed), a capped sphere with a bite for mixed constraints, a torus for failures and mixing, and the
      paper's volcano catalogue (vendored with its MIT licence and checksums). The mesh surfaces were not
      trained on (no SDF networks vendored). SO(10) mixtures are our own draws (three centres, Haar, times
      matrix exponentials of small skew matrices), not the repository's file; the dipeptide's conformations
      are the paper's raw ones moved onto the set by our Newton projection (the code trains on a refined
      copy, not vendored), with a plain MLP instead of the code's SE(3)-aligned network; the arm's
      trajectories are the paper's, Newton-projected onto the configuration's 0.01 margin (violations up to
      2e-4 in the file), modelled unconditionally (the code conditions on the obstacle side), with the
      constraints kept separate (the code sums their squares into one equality and one inequality, whose
      gradient vanishes on the set). All three use implicit landing (the code's explicit gains for SO(10)
      and the arm exceed the explicit rule's limit α σ² Δt < 2 here). Which ran at which profile: see the
      benchmarks' section and the ledger (`full` runs all three).
    - **Baselines.** The paper's own projection ablations (OLLA-P, ULLA-P), a Riemannian score-based
      model with exact exponential and logarithm maps (`geomstats`' hypersphere), and an ambient
      diffusion with a final projection, all with our network, trainer and epochs. The paper's list of
      state-of-the-art baselines was not reached; RSGM here is trained with the chapter's discrete
      path likelihood, not with RSGM's own implicit or denoising score matching, so that only the
      geometry differs from OLLA. The NFE curve resamples models trained at one N instead of training
      one model per N.
    - **Rules made stricter in session 4.** A rule-breaking review found holes; the rules were changed
      before any result of the session-4 default run was seen, and each change can only turn a row red.
      "Learned" now means closing at least half the gap from the uniform law to an oracle (a fresh draw of the
      true law scored the same way), not merely beating the uniform law (claims 4, 7, 9); claim 4 decides
      ULLA against OLLA only, because on $S^2$ landing and projection are both radial maps and move the
      samples alike (their measured differences are reported); claim 1 reads every seed's
      backward path and fails on non-finite values; claim 2 bounds landing's violation along its paths and
      asks OLLA-P's drop rate to reach {cfg.drop_min_rate:.0%} and to grow with the step; claim 3 requires the test to reject
      uniformity for the data at $t=0$ (its power), counts lost points, and adds the overdamped process on
      ULLA's schedule as a control; claim 5 checks the NFE and memory on every seed and adds OLLA sampled at
      ULLA's $N$ as a control; claim 7 decides feasibility before the terminal projection (whose tolerance
      made "after" true by construction); claim 6 takes its off-manifold step from OLLA's schedule; claims
      10–12 (the benchmarks) decide feasibility before the terminal projection and "learned" against the
      data's own floor, as claim 7 does.
    - **Changed in session 5, after the session-4 runs.** Claims 10–12 started from "passed" and only
      turned red on a bad row, so a benchmark study that returned no rows was reported reproduced. They now
      fail, naming the reason, on an empty study, on fewer seeds than `bench_seeds`, on a seed where OLLA or
      ULLA is missing, and on any non-finite number. Stricter only: no executed row changes (the benchmarks
      run in `full` only). Claim 4e (the volcano catalogue) rested on one training seed and a point
      comparison against the {cfg.parity_margin:g} margin, with "learned" meaning below the uniform law; it now trains {cfg.earth_seeds}
      seeds on the same split and decides on the paired t-bound, with "learned" against the training points'
      own score (the session-4 default had it reproduced on the old rule).
    - **Changed in session 6, after the session-5 runs** (a second rule-breaking pass; stricter only, each
      review input a not-reproduced case in the tests). Claim 8 said the gain "trades off" but checked only the
      small-gain side, and below the limit of 2 the largest gain was always the most feasible one: it now also
      runs explicit landing at gain {cfg.unstable_scale:g} (beyond the limit) and asks its mean |h| to exceed gain 1's
      tenfold, as the smallest gain must; the grid must hold gain 1 (the nearest gain stood in for it). Claim 5's
      control asked OLLA at ULLA's $N$ to be worse than ULLA by any amount; it must now be worse by more than the
      {cfg.parity_margin:g} parity margin (otherwise OLLA too is of "similar quality" at half its steps). Claim 3 reads
      every seed's p-value with NaN failing (Python's `max` skipped one), and claim 4e fails on fewer seeds than
      `earth_seeds` instead of calling one seed "not testable".
    - **The contract's second edition** (after an outside audit; every change only makes a row stricter or
      inconclusive). *The sphere's constraint is ours:* $h(x) = |x|^2 - 1$ where the official code uses
      $|x| - 1$ (about half of ours near the set), and claim 1 is decided in ours; its {cfg.feas_mean_h:g} bar is
      the dossier's example, not the paper's. *Converged before compared:* the audit found the quality rows
      compared models at {cfg.epochs * -(-cfg.n_train // cfg.batch_size):,} updates whose JSD still fell threefold
      with four times the training; every trained sampler now keeps its averaged weights at
      {1 / (1 + cfg.plateau_extend):.0%} of its updates and is sampled there too, and claims 4, 4e, 5 and 9 compare
      only models whose JSD moved by less than {cfg.plateau_share:.2f} of the {cfg.parity_margin:g} margin over their
      last third of training, and are *inconclusive at this scale* (not converged) otherwise. *Four verdicts:*
      "not reproduced" needs evidence against (a lower bound past the margin, a converged model that has not
      learned); an interval straddling the margin is inconclusive. *The nearest trivial methods* run for real
      through every rule in the tests (landing gain 0, plain projection instead of landing, the overdamped
      sampler in place of the underdamped one, the ambient diffusion, a one-iteration Newton for claim 6): none
      passes. Claim 6's landing side was the count "one evaluation, one solve" typed beside a counted Newton;
      both sides are now counted on the running code. Former claim 8 (the landing gain) rested on an identity of
      the update ($|1 - s|$ contracts for every gain implicitly, diverges beyond $s = 2$ explicitly): it left the
      ledger and is shown as a diagnostic, the identity tested on sampled paths as a check of our code. The abstract's
      "lower memory in inference" against its baselines is the not-testable row C5m: the baselines it names
      were not reached, and our samplers keep no path at inference, so we measure no inference memory.
    - **Thresholds** ({cfg.feas_mean_h:g} mean |h|, {cfg.parity_margin:g} JSD, a {cfg.cost_ratio:g}× ratio of
      operations, p ≥ {cfg.prior_alpha:g}, half the uniform-to-oracle gap, {cfg.drop_violation_tol:g} for landing's
      violation on the torus, {cfg.drop_min_rate:.0%} drops) are ours, fixed in the config.
      Claim 6 was decided on wall-clock time until the session-3 runs and on operation counts since (its
      section says why); the threshold's value ({cfg.cost_ratio:g}×) did not change.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - K. Jeon, M. Muehlebach, M. Tao. *Efficient Diffusion Models under Nonconvex Equality and Inequality Constraints via Landing.* ICML 2026 [@jeon2026landing].
    - K. Jeon, M. Muehlebach, M. Tao. *Fast Non-Log-Concave Sampling under Nonconvex Equality and Inequality Constraints with Landing.* NeurIPS 2025 [@jeon2025olla].
    - P. Ablin, G. Peyré. *Fast and accurate optimization on the orthogonal manifold without retraction.* AISTATS 2022 [@ablin2022landing].
    - V. De Bortoli et al. *Riemannian score-based generative modelling.* NeurIPS 2022 [@debortoli2022riemannian].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
