import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Ranking time series with elastic ideal points")


@app.cell
def _():
    import marimo as mo
    import numpy as np
    import torch

    from icmlbook.papers import ts_pairwise_ranking as tr
    from icmlbook.papers.ts_pairwise_ranking import claims, plots
    from icmlbook.runtime import ClaimsLedger, open_chapter, show_plotly
    return ClaimsLedger, claims, mo, np, open_chapter, plots, show_plotly, torch, tr


@app.cell
def _(mo):
    mo.md(r"""
    # Ranking time series from pairwise comparisons with elastic ideal points

    Experts who label medical recordings (ECG, EEG, cardiotocography) often disagree on absolute
    categories, because each applies a private threshold. Asking "which of these two recordings is
    more abnormal?" gives more consistent answers. The paper turns annotation into **pairwise
    comparison** and learning into **ranking**: there is an unknown *ideal* series $U$, an item is
    preferred the closer it is to $U$, and closeness is measured with **elastic** distances, dynamic
    time warping (DTW) and the time warp edit distance (TWED), that forgive misalignment in time. The
    paper proves these distances Lipschitz, derives convergence guarantees and introduces a
    differentiable TWED. Only its abstract was reachable, so this chapter rebuilds the model and a
    soft-TWED from standard definitions, checks them against reference libraries, and tests each claim
    on simulated comparisons (no expert comparisons are available offline). The verdicts at the end
    are computed by this run.
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
    | **Paper** | *Ranking Time Series using a Time Warping Ideal Point Model* |
    | **Authors** | not verified (not shown on the pages we could read) |
    | **Venue** | ICML 2026 (poster) |
    | **arXiv** | none found |
    | **Code** | none found |

    What it claims, in the form we test (the claims ledger at the end decides each one; C0-C4 and C7 are
    the abstract's result sentences, C5, C6 and C8 our extra checks):

    0. at an equal annotation budget, pairwise comparisons rank better than individual labels when
       annotators use inconsistent thresholds;
    1. a differentiable (soft) TWED that tends to TWED and has correct gradients;
    2. the distances are Lipschitz in the ideal series (DTW and TWED, and the two divergences the model fits);
    3. the ideal point model recovers rankings on well-specified data;
    4. rankings are robust to noisy annotations;
    5. elastic distances beat a rigid (Euclidean) ideal point when series are shifted or warped;
    6. the learned ideal predicts comparisons between series it never saw;
    7. the estimate converges: its ranking error falls as the number of comparisons grows;
    8. with several noisy annotators, modelling all raw comparisons is at least as good as a majority vote.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("ts_pairwise_ranking", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.n_items} compared
    series and {cfg.n_test} held-out series of length {cfg.length}, {cfg.comparisons_per_item} comparisons
    per series, flip probabilities {", ".join(f"{p:g}" for p in cfg.flips)}, {cfg.n_seeds} data sets per
    setting ({cfg.budget_seeds} in the budget study of claims 3 and 7), {cfg.steps} Adam steps per fit; soft-min temperature γ = {cfg.gamma:g}, TWED ν = {cfg.nu:g},
    λ = {cfg.lam:g}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Setting and method

    ### Elastic distances

    For series $x_{1..T}$ and $u_{1..S}$, **DTW** fills $R_{0,0}=0$, $R_{i,0}=R_{0,j}=+\infty$ and
    $$
    R_{i,j}=c(x_i,u_j)+\min(R_{i-1,j},R_{i,j-1},R_{i-1,j-1}),\qquad \mathrm{DTW}(x,u)=R_{T,S},
    $$
    with $c$ the squared difference (or $|x_i-u_j|$). **TWED** [@ts_pairwise_ranking_marteau2009] charges
    edits instead: with stiffness $\nu$, deletion penalty $\lambda$, time stamps $1,2,\dots$ and $x_0=u_0=0$,
    $$
    R_{i,j}=\min\begin{cases}
    R_{i-1,j}+|x_i-x_{i-1}|+\nu+\lambda\\
    R_{i,j-1}+|u_j-u_{j-1}|+\nu+\lambda\\
    R_{i-1,j-1}+|x_i-u_j|+|x_{i-1}-u_{j-1}|+2\nu|i-j|.
    \end{cases}
    $$
    With irregular sampling the stamps $t_i$ of the samples replace $1,2,\dots$: a deletion costs
    $\nu(t_i-t_{i-1})$ instead of $\nu$ and a match $\nu(|t_i-t'_j|+|t_{i-1}-t'_{j-1}|)$ instead of $2\nu|i-j|$
    (series of unequal lengths are allowed by both distances). TWED is a metric; DTW is not. **Soft versions** replace $\min$ by
    $\min_\gamma(a)=-\gamma\log\sum_k e^{-a_k/\gamma}$ [@ts_pairwise_ranking_cuturi2017]; for TWED we also
    replace $|v|$ by $\sqrt{v^2+\epsilon^2}-\epsilon$ so that the cost is differentiable at zero (our
    reconstruction of the paper's differentiable TWED). Each soft-min loses at most $\gamma\log 3$, so
    $\mathrm{TWED}-\gamma(T+S)\log 3-2\epsilon(T+S)\le\text{soft-TWED}\le\mathrm{TWED}$. Because soft
    values can be negative and are not minimised at $u=x$, the model uses the **divergence**
    $D(x,u)=s(x,u)-\tfrac12[s(x,x)+s(u,u)]$ [@ts_pairwise_ranking_blondel2021].

    All four recursions run in one routine that sweeps the $T+S-1$ anti-diagonals of the grid, each
    updated for every pair in the batch at once; its backward pass is the reverse sweep of the
    expected-alignment matrix (the soft-DTW gradient, generalised to three move costs). When no gradient
    is needed (exact DTW or TWED for scoring and ranking), a leaner sweep keeps only the last two
    anti-diagonals, computes each anti-diagonal's costs on the fly from a time-reversed copy of $u$ (so
    that $u_{k-i}$ over consecutive $i$ is one contiguous slice) and touches only the cells inside the
    grid; it gives the same numbers. On the CPU the recursions with gradients run in compiled (numba)
    loops, pair after pair: each cell's soft-min needs two exponentials and one logarithm, and the forward
    pass stores each cell's three soft-min weights, so the backward pass (the expected alignment) needs no
    exponential at all. The tensor sweep remains the GPU path; the tests compare the two.

    ### The ideal point model

    With items $X_1,\dots,X_N$, comparisons $(i,j,y)$ ($y=1$: $i$ preferred), an ideal series $U$ and a
    sharpness $\beta>0$ [@ts_pairwise_ranking_jamieson2011],
    $$
    P(i\succ j\mid U,\beta)=\sigma\big(\beta\,[\,d(X_j,U)-d(X_i,U)\,]\big),
    $$
    and we minimise the mean negative log-likelihood over $U$ and $\log\beta$ with Adam. $U$ starts at one
    of the items that win most often, or at their mean: whichever orders the training comparisons best
    (computed from the comparisons only), rather than always at their mean, a blurred average of warped
    shapes; the table under claim 6 reports $\tau$ at the start for both choices. Each step needs only the $N$ distances $d(X_i,U)$, one
    batched call. Any series, compared or not, is then ranked by $d(X,\hat U)$.

    ### Lipschitz bounds (our derivation)

    An alignment path has at most $T+S-1$ cells, so with the $L_1$ cost
    $|\mathrm{DTW}(X,U)-\mathrm{DTW}(X,U')|\le(T+S-1)\max_j|u_j-u'_j|$. In TWED each column $j$ is entered
    exactly once, and $u_j$ appears only in the move that enters column $j$ and in the one that enters
    column $j+1$, so $|\mathrm{TWED}(X,U)-\mathrm{TWED}(X,U')|\le 2\sum_j|u_j-u'_j|$. The soft versions keep
    the same constants because the soft-min is 1-Lipschitz in the max-norm. The model fits two other
    distances. The **soft-TWED divergence** $s(X,U)-\tfrac12[s(X,X)+s(U,U)]$: in $s(U,U)$ the ideal is on
    both sides, each path enters every row and every column once, so it changes by at most
    $4\sum_j|u_j-u'_j|$, halved; in all $4\sum_j|u_j-u'_j|$. The **soft-DTW divergence with the squared
    cost** is only locally Lipschitz: a cell of $s(X,U)$ changes by $|u'_j-u_j|\,|2x_i-u_j-u'_j|$, a cell of
    $s(U,U)$ by at most $8R_u\max_j|u_j-u'_j|$, so with $R_x=\lVert x\rVert_\infty$,
    $R_u=\max(\lVert u\rVert_\infty,\lVert u'\rVert_\infty)$ the constant is
    $2(T+S-1)(R_x+R_u)+4(2S-1)R_u$ times $\max_j|u_j-u'_j|$.

    ### Data

    A synthetic **warped family** has a known truth: a planted ideal $U^*$ (a tall peak and a dip), a
    "normal" broad bump $B$, and items $X_i(t)=(1-s_i)B(w_i(t))+s_iU^*(w_i(t))+$ noise with severity
    $s_i\sim\mathcal U(0,1)$ and a random monotone time warp and shift $w_i$. The latent score is $s_i$.
    Simulated annotators answer $P(i\succ j)=\sigma(\beta^*(s_i-s_j))$ and then flip their answer with
    probability $p$. The learners see only the comparisons. For the annotation-budget question (C0),
    simulated annotators also give **individual labels**: annotator $r$ calls item $i$ abnormal with
    probability $\sigma(\beta^*(s_i-\theta_r))$, with a private threshold $\theta_r$; the same model is then
    fitted with $P(\text{abnormal})=\sigma(\beta[c-d(X_i,U)])$ and a learned threshold $c$. Two further families test the model on
    realistic shapes: **real series** from UCR datasets that aeon ships in its wheel, and **simulated
    ECGs** from neurokit2's ECGSYN model [@ts_pairwise_ranking_neurokit2; @ts_pairwise_ranking_mcsharry2003]
    at random heart rates, beat phases and noise levels, whose latent score (the heart rate) is known.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    ### Why elastic distances
    """)
    return


@app.cell
def _(plots, tr):
    demo = tr.shifted_pair_demo()
    plots.why_elastic_figure(demo, tr.alignment_matrix(demo["ref"], demo["shifted"], "dtw"),
                             tr.alignment_matrix(demo["ref"], demo["shifted"], "twed"))
    return (demo,)


@app.cell
def _(demo, mo):
    _r = {k: demo["shifted_dist"][k] / demo["other_dist"][k] for k in demo["shifted_dist"]}
    _elastic = [k for k in ("DTW", "TWED") if k in _r]
    _nearer = [k for k in _elastic if _r[k] < 1]
    _farther = [k for k in _elastic if _r[k] >= 1]
    _verdict = " and ".join(f"{k} ({_r[k]:.2f})" for k in _nearer) + (
        " put the shifted copy nearer than the other shape" if _nearer else "")
    _verdict += ("; " if _nearer and _farther else "") + " and ".join(f"{k} ({_r[k]:.2f})" for k in _farther) + (
        " put it at least as far" if _farther else "")
    mo.md(f"""
    *Figure: a shape, the same shape shifted by 15 % of the record, and a different shape in place;
    the optimal DTW path and the TWED matches between the reference and its shifted copy; the distance to
    the shifted copy divided by the distance to the other shape.* The Euclidean distance calls the
    shifted copy {_r["Euclidean"]:.1f} times as far as the other shape; {_verdict}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Soft-TWED tends to TWED (claim 1)

    On random pairs we compare our soft-TWED at decreasing $\gamma$ with `aeon.distances.twe_distance`
    [@ts_pairwise_ranking_aeon] and, when it is installed, with `pytwed`, the wrapper of Marteau's own
    reference code [@ts_pairwise_ranking_pytwed]; we check our exact DTW and TWED against aeon and our
    soft-DTW against tslearn [@ts_pairwise_ranking_tslearn], and compare autograd gradients of the
    soft-TWED divergence with central finite differences in float64.
    """)
    return


@app.cell
def _(cfg, run, tr):
    twed_check = run.cached("ts_pairwise_ranking-softtwed", tr.soft_twed_check, cfg, run.seed)
    return (twed_check,)


@app.cell
def _(plots, twed_check):
    plots.soft_twed_figure(twed_check)
    return


@app.cell
def _(cfg, claims, mo, twed_check):
    check1 = claims.claim1(twed_check, cfg)
    _sdtw = ("" if twed_check.softdtw_vs_tslearn != twed_check.softdtw_vs_tslearn else
             f", our soft-DTW with tslearn to {twed_check.softdtw_vs_tslearn:.0e}")
    _pytwed_note = (
        "pytwed is not installed here (its source build needs numpy at build time: "
        "`pip install --no-build-isolation pytwed`), so aeon is the only TWED reference on this page."
        if twed_check.pytwed_rel_err is None else
        f"Against pytwed, our exact TWED agrees with its float64 Python reference to "
        f"{twed_check.exact_vs_pytwed_py:.0e}, but with its C routine to only "
        f"{twed_check.exact_vs_pytwed_c:.0e}: the C code stores each cell's three candidates in "
        "single-precision `float` variables.")
    mo.md(f"""
    *Figure: largest relative gap between soft-TWED and exact TWED (aeon; pytwed where installed) over
    {twed_check.n_pairs} pairs of length {twed_check.length}.* Our exact TWED and DTW agree with aeon to
    {twed_check.exact_vs_aeon:.0e} and {twed_check.dtw_vs_aeon:.0e}{_sdtw}; the sandwich bound holds at every
    γ: {twed_check.twed_gap_bound_ok}.
    {_pytwed_note}

    {check1.sentence("Claim 1")}
    """)
    return (check1,)


@app.cell
def _(cfg, mo, tr):
    _sp = tr.speed_check()
    _sd = tr.soft_dtw_speed() if cfg.tslearn_reference else None
    _soft = ("Soft-DTW forward and backward against tslearn is not timed at this profile (tslearn compiles its "
             "kernels afresh in every process); the tests check the values and `make bench` the speed." if _sd is None
             else f"Soft-DTW forward and backward (γ = 1, the gradient with respect to the first series) on 100 pairs "
             f"of length 100: ours {_sd['ours'] * 1e3:.0f} ms, tslearn's `soft_dtw_alignment` pair by pair "
             f"{_sd['tslearn'] * 1e3:.0f} ms ({_sd['tslearn'] / _sd['ours']:.1f}×); the two gradients differ by at "
             f"most {_sd['max_grad_diff']:.0e}.")
    _row = lambda k: f"| {k} | {_sp[k][0] * 1e3:.0f} ms | {_sp[k][1] * 1e3:.0f} ms | {_sp[k][1] / _sp[k][0]:.1f}× | {_sp[k][2]:.0e} |"  # noqa: E731
    mo.md(f"""
    **Speed.** Exact TWED and DTW on 300 random pairs of length 150 in float64, measured during this run
    (best of 3; {_sp["threads"]} torch threads available, but the no-gradient sweep keeps every kernel below
    torch's parallel grain size, so it runs on one), against aeon's numba functions called pair by pair:

    | distance | ours (batched torch) | aeon (numba loop) | speed-up | max relative difference |
    |---|---|---|---|---|
    {_row("TWED")}
    {_row("DTW")}

    {_soft}

    Wall times depend on the machine and its load; `make bench` repeats the comparison on 1000 pairs.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Lipschitz bounds (claim 2)

    For random $X$, $U$ and perturbations $U'$ of $U$ (dense or on a few coordinates, over three decades
    of size), we divide the observed change of the distance by the bound.
    """)
    return


@app.cell
def _(cfg, run, tr):
    lip = run.cached("ts_pairwise_ranking-lipschitz", tr.lipschitz_check, cfg, run.seed)
    return (lip,)


@app.cell
def _(lip, plots):
    plots.lipschitz_figure(lip)
    return


@app.cell
def _(cfg, claims, lip, mo):
    check2 = claims.claim2(lip, cfg)
    _tw = float(check2.values["TWED"])
    _tight = (f"The largest TWED ratio is {_tw:.3f}: when a single coordinate $u_j$ moves, both terms in which it "
              "appears can change by the full amount, so the constant 2 is (nearly) attained and cannot be halved."
              if _tw > 0.95 else f"The largest TWED ratio is {_tw:.3f}: no pair here comes close to the bound.")
    _rows = "\n".join(f"| {k} | {lip.constants[k].replace('|', chr(92) + '|')} | {v:.3f} |"
                       for k, v in check2.values.items() if k in lip.constants)
    mo.md(f"""
    *Figure: histogram of |d(X,U) − d(X,U')| / bound for each distance with its own constant.*

    | distance | bound on \\|d(X,U) − d(X,U')\\| | largest ratio |
    |---|---|---|
    {_rows}

    {_tight}

    {check2.sentence("Claim 2")} (Changed after the runs at commit 67dd53f, stricter only: a NaN ratio used to be
    left out of the maximum silently; any non-finite ratio now fails the row and is counted. After a second pass
    in session 5 the row also fails when one of the six distances is missing or lacks a ratio for a pair: it used
    to check the distances present.)
    """)
    return (check2,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Recovery on well-specified data, and convergence (claims 3 and 7)

    Here the comparisons follow the model itself: the latent score is $-d(X_i,U^*)$ under the fitted
    distance, and labels are drawn with a sharp $\beta^*$. We fit with a growing budget of comparisons
    and follow the loss and the warping-invariant error $\mathrm{DTW}(\hat U,U^*)/T$.
    """)
    return


@app.cell
def _(cfg, run, tr):
    well = run.cached("ts_pairwise_ranking-well-specified", tr.well_specified, cfg, run.seed)
    return (well,)


@app.cell
def _(plots, well):
    plots.convergence_figure(well)
    return


@app.cell
def _(cfg, claims, mo, np, well):
    check3 = claims.claim3(well, cfg)
    check7 = claims.claim7(well, cfg)
    _ideal = check7.values["ideal"]
    _note7 = (f"The distance of $\\hat U$ to $U^*$ falls too (slope {_ideal['mean']:.2f})." if _ideal["hi"] < 0 else
              f"The ideal series itself does not clearly approach $U^*$ (slope of DTW($\\hat U$, $U^*$) "
              f"{_ideal['mean']:.2f} [{_ideal['lo']:.2f}, {_ideal['hi']:.2f}]): only the *order* of the distances "
              "enters the likelihood, and many ideals induce nearly the same order (the identifiability problem "
              "the dossier warns about). That is why C7 is decided on the ranking error, not on $\\hat U$.")
    _main = int(np.flatnonzero(well.budgets == well.main_budget)[0])
    _t0, _t1 = float(well.tau_init[:, _main].mean()), float(well.tau_train[:, _main].mean())
    _note3 = (f"The starting ideal (picked from the annotations, never from $U^*$) already reaches τ = {_t0:.3f} at "
              f"this budget, {'above' if _t0 >= cfg.c3_min_tau else 'below'} the threshold {cfg.c3_min_tau:g}; the fit "
              f"{'lowers' if _t1 < _t0 else 'raises'} it to {_t1:.3f}. "
              + ("So this row shows that the pipeline recovers the ranking, start included, not that the gradient fit "
                 "adds to its start." if _t0 >= cfg.c3_min_tau else "So the fit, not the start, carries the row."))
    _top = check7.values["slope_top"]
    _note7b = ("" if check7.values["ok_top"] or not check7.values["ok_all"] else
               f" Over the larger half of the budgets the slope is {_top['mean']:.2f} [{_top['lo']:.2f}, "
               f"{_top['hi']:.2f}] with {_top['n']} data sets: "
               + ("an interval this wide neither shows the fall nor a floor there, so the row says it cannot tell."
                  if check7.passed is None else "the error rises there (the whole interval is above 0)."))
    _rows = "\n".join(f"| {m} | {a:.3f} | {b:.3f} | {c:.3f} | {e:.3f} |" for m, a, b, c, e in
                       zip(well.n_comparisons, well.tau_init.mean(0), well.tau_train.mean(0), well.tau_test.mean(0),
                           well.ideal_error.mean(0)))
    mo.md(f"""
    *Figures: training loss, and distance of the iterate to the planted ideal, per budget (first data set);
    ranking error on held-out series against the number of comparisons, one line per data set (log-log).*

    Means over {well.tau_train.shape[0]} independent data sets:

    | comparisons | τ at the start | τ compared | τ held-out | DTW(Û, U*)/T |
    |---|---|---|---|---|
    {_rows}

    {check3.sentence("Claim 3")} {_note3} (Changed after the outside audit of issue 28, stricter only: the row
    used to compare the mean τ over data sets with {cfg.c3_min_tau:g}; the lower end of its 95% interval must now
    clear it.)

    {check7.sentence("Claim 7")} (Changed in session 6, stricter only, because an error that falls once and then
    stays on a floor passed on the slope over all budgets, which is the rule's own rejected alternative: the slope
    over the larger half of the budgets must now fall too. Changed again after the outside audit of issue 28: a
    slope whose interval contained 0 was reported as "not reproduced", although such an interval cannot tell the
    claim from its negation; it is now *inconclusive*, "not reproduced" needs the whole interval above 0, and the
    budget study runs on its own {well.tau_test.shape[0]} independent data sets instead of the noise sweep's
    {cfg.n_seeds}.){_note7b}

    {_note7}
    """)
    return check3, check7


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ### Noisy annotators, shifts and unseen series (claims 4, 5 and 6)

    On the warped family (shifts up to ±{cfg.shift:.0%} of the record, random warps), for every data set and flip
    probability we fit the Euclidean, soft-DTW and soft-TWED ideal points and three baselines on the
    *same* comparisons: Bradley–Terry [@ts_pairwise_ranking_choix] (scores only compared items),
    RankNet-style pairwise learning with a small MLP on the raw series [@ts_pairwise_ranking_burges2005],
    and a logistic classifier trained on noisy *absolute* labels (above/below the median, flipped with the
    same probability), the annotation route the paper argues against.
    """)
    return


@app.cell
def _(cfg, run, tr):
    sweep = run.cached("ts_pairwise_ranking-noise-sweep", tr.noise_sweep, cfg, run.seed)
    return (sweep,)


@app.cell
def _(plots, sweep):
    plots.noise_figure(sweep)
    return


@app.cell
def _(plots, show_plotly, sweep):
    show_plotly(plots.noise_plotly(sweep))
    return


@app.cell
def _(cfg, claims, mo, sweep):
    check4 = claims.claim4(sweep, cfg)
    mo.md(f"""
    *Figures: Kendall τ with the latent severity against the flip probability (mean ± sd over
    {len(sweep.seeds)} data sets, {sweep.n_comparisons} comparisons among {sweep.n_items} series), on the
    compared and on held-out series; the interactive version shows the means.*

    {check4.sentence("Claim 4")} (Changed after the outside audit of issue 28, stricter only: the row is decided on
    the 95% interval over data sets of τ at flip {cfg.c4_at_flip:g}, not on its mean; an interval that spans
    {cfg.c4_min_tau:g} is inconclusive.)
    """)
    return (check4,)


@app.cell
def _(plots, sweep):
    plots.elastic_vs_rigid_figure(sweep)
    return


@app.cell
def _(cfg, claims, mo, sweep):
    check5 = claims.claim5(sweep, cfg)
    mo.md(f"""
    *Figure: τ of each elastic ideal point against the Euclidean one, one point per (data set, flip).*

    {check5.sentence("Claim 5")}
    """)
    return (check5,)


@app.cell
def _(plots, sweep):
    plots.heldout_figure(sweep)
    return


@app.cell
def _(plots, sweep):
    plots.ideals_figure(sweep)
    return


@app.cell
def _(cfg, claims, mo, np, sweep):
    check6 = claims.claim6(sweep, cfg)
    _t0 = np.nanmean(sweep.tau_init, 0)                  # (F, D)
    _t0m = np.nanmean(sweep.tau_init_topmean, 0)
    _tf = np.nanmean(sweep.tau_train, 0)
    _head = " | ".join(f"p = {p:g}" for p in sweep.flips)
    _rows = "\n".join(
        f"| {d} | {what} | " + " | ".join(f"{v:+.3f}" for v in arr[:, k]) + " |"
        for k, d in enumerate(sweep.distances)
        for what, arr in (("mean of the top items", _t0m), ("agreement start (used)", _t0), ("after fitting", _tf)))
    _k = sweep.distances.index("softdtw")
    _pl = {d: float(np.nanmean(sweep.acc_planted[:, :, sweep.distances.index(d)])) for d in ("softdtw", "softtwed")}
    _or = float(np.nanmean(sweep.acc_oracle))
    _ref_note = (f"The reference is what the model family can reach: the planted ideal $U^*$ itself, scored under the "
                 f"same distance on the same held-out comparisons, reaches {_pl['softdtw']:.3f} (soft-DTW) and "
                 f"{_pl['softtwed']:.3f} (soft-TWED), while the true latent scores reach {_or:.3f}. Until the outside "
                 f"audit of issue 28 the rule compared with the true scores, a reference that the planted ideal misses "
                 f"by {_or - min(_pl.values()):.3f}, more than the margin {cfg.c6_max_gap:g}, so the row could fail "
                 "for a perfect estimate; it now compares with the planted ideal, decided on the interval over data "
                 "sets (an interval that spans the margin is inconclusive).")
    _drop = float(_t0[-1, _k] - _tf[-1, _k])
    _fit_note = (f"At the largest flip probability ({sweep.flips[-1]:g}) fitting moves soft-DTW's τ from "
                 f"{_t0[-1, _k]:.3f} at the start to {_tf[-1, _k]:.3f}: "
                 + ("the fit loses ranking quality that the start had." if _drop > 0 else "the fit improves on the start."))
    mo.md(f"""
    *Figures: accuracy on {sweep.n_heldout_pairs} held-out comparisons between {sweep.n_test} series that were
    never compared (by annotators who do not flip), against the accuracy of the true scores on the same
    comparisons, per (data set, flip) cell, on all of them and on the hard half (the smaller latent gaps);
    the learned ideals against the planted one.*

    {check6.sentence("Claim 6")}

    {_ref_note}

    Where the fit starts (Kendall τ on the compared series, mean over data sets, per flip probability):

    | model | ideal | {_head} |
    |---|---|{"---|" * len(sweep.flips)}
    {_rows}

    {_fit_note}
    """)
    return (check6,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Several annotators: majority vote or full likelihood (claim 8)

    Every pair is judged by several annotators who each flip their answer with the same probability. We
    fit the soft ideal point once on the majority vote (one label per pair) and once on all raw labels.
    """)
    return


@app.cell
def _(cfg, run, tr):
    crowd = run.cached("ts_pairwise_ranking-crowd", tr.crowd_experiment, cfg, run.seed)
    return (crowd,)


@app.cell
def _(crowd, plots):
    plots.crowd_figure(crowd)
    return


@app.cell
def _(cfg, claims, crowd, mo):
    check8 = claims.claim8(crowd, cfg)
    _aware = float(crowd.tau_full_flip_aware.mean())
    _p8 = check8.values["paired"]
    _half8 = (_p8["hi"] - _p8["lo"]) / 2 if _p8["n"] > 1 else float("inf")
    _why = ("" if check8.passed else
            f"The mean difference ({_p8['mean']:+.3f}) is within the margin, but its interval over {_p8['n']} data "
            "sets is too wide to show non-inferiority. " if _p8["mean"] >= -cfg.c8_margin else
            f"The mean difference ({_p8['mean']:+.3f}) is below the margin, but its interval over {_p8['n']} data "
            "sets also reaches above it: the run cannot tell. " if check8.passed is None else
            "A possible reason, not tested here: the paper's link is logistic with one global β, while each raw label is flipped "
            "with a constant probability, so the raw labels' error rate does not vanish for clearly different "
            "pairs; the logistic model cannot express that floor and is pulled towards a flatter fit, whereas "
            "the majority of several votes removes most flips before the fit. ")
    import dataclasses as _dc
    _cmp = ("at least as good as" if claims.claim8(_dc.replace(crowd, tau_full=crowd.tau_full_flip_aware), cfg).passed
            else "not shown at least as good as")
    mo.md(f"""
    *Figure: τ per data set for the majority vote, for all raw labels under the paper's logistic link, and
    for all raw labels under a flip-aware link (our repair, not the paper's model).*

    {check8.sentence("Claim 8")} (The rule was changed after the runs at commit 67dd53f, stricter only: it used to
    compare the two means, which with two or three data sets let a majority vote better by three times the margin
    pass in about a fifth of draws; it now asks the interval's lower end to clear the margin. After the outside
    audit of issue 28 an interval that spans the margin is *inconclusive*, and "not reproduced" needs the whole
    interval below it. With the spread of the paired differences measured here, sd {_p8['sd']:.3f}, an interval
    over {_p8['n']} data sets is ±{_half8:.3f} wide against a margin of {cfg.c8_margin:g}: only many more data
    sets can decide this row.)

    {_why}The verdict above uses the model as we reconstruct it from the paper. Separately, we fitted the
    full likelihood with the flip-aware link $P(i\\succ j)=\\epsilon+(1-2\\epsilon)\\,\\sigma(\\beta[d(X_j,U)-d(X_i,U)])$,
    learning $\\epsilon$ with $U$ and $\\beta$: mean τ {_aware:.3f} (learned ε between
    {crowd.flip_hat.min():.2f} and {crowd.flip_hat.max():.2f} for a true flip rate of {crowd.flip:g}; the two need
    not coincide, since the logistic part of the link also absorbs label noise), {_cmp} the majority vote
    ({float(crowd.tau_majority.mean()):.3f}) by the same rule.
    """)
    return (check8,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ### Pairwise comparisons or individual labels, at the same budget (claim C0)

    The abstract's motivating claim. {cfg.motive_annotators} annotators each hold a private threshold on
    the latent severity, drawn uniformly between {cfg.motive_thresholds[0]:g} and {cfg.motive_thresholds[1]:g};
    an individual label says "abnormal" with $\sigma(\beta^*(s_i-\theta_r))$, a comparison says "$i$ is more
    abnormal than $j$" with $\sigma(\beta^*(s_i-s_j))$, which does not involve the threshold; both are
    flipped with probability {cfg.motive_flip:g}. Each route gets the same number of annotations
    ({cfg.n_items} × {cfg.comparisons_per_item}) from the same annotators, and the same soft ideal point model is
    fitted to either (to the labels with a learned threshold: one pooled threshold, the usual classification
    set-up, and, as a stronger baseline outside the verdict, one threshold per annotator). Fresh data for each
    of {cfg.motive_seeds} data sets; the comparison is paired.
    """)
    return


@app.cell
def _(cfg, run, tr):
    budget = run.cached("ts_pairwise_ranking-annotation-budget", tr.annotation_budget_experiment, cfg, run.seed)
    return (budget,)


@app.cell
def _(budget, plots):
    plots.annotation_budget_figure(budget)
    return


@app.cell
def _(budget, cfg, claims, mo):
    check0 = claims.claim0(budget, cfg)
    mo.md(f"""
    *Figure: τ with the latent severity from pairwise comparisons against τ from individual labels, one point
    per data set and labelling model.* How consistent the two kinds of answer are: two annotators drawn at
    random give the same answer to the same comparison {budget.consistency_pairwise:.0%} of the time, and the
    same label to the same item {budget.consistency_pointwise:.0%} of the time.

    {check0.sentence("Claim C0")}
    """)
    return (check0,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Real shapes: a dataset shipped with aeon

    The series of this experiment are real (a UCR dataset bundled in aeon's wheel, z-normalised and
    resampled); the annotations are not. A series drawn at random is hidden as the ideal, every other
    series is scored by minus its exact TWED to it, and comparisons are simulated from that score with
    flip probability 0.1. Since the latent score is minus the TWED to the hidden series, soft-TWED is the
    well-specified model here: any lead it has over the other distances is partly built into the setup.
    """)
    return


@app.cell
def _(cfg, run, tr):
    real = run.cached("ts_pairwise_ranking-aeon", tr.aeon_experiment, cfg, run.seed)
    return (real,)


@app.cell
def _(plots, real):
    plots.aeon_figure(real)
    return


@app.cell
def _(mo, real):
    _t = ", ".join(f"{k} {v:.2f}" for k, v in real.tau.items())
    mo.md(f"""
    *Figure: a few {real.dataset} series with the hidden and learned ideals; τ on compared and held-out
    series ({real.n_items} compared series of length {real.length}).* τ on compared series: {_t}.
    Bradley–Terry has no score for held-out series.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Simulated ECGs ranked by heart rate

    neurokit2's ECGSYN model [@ts_pairwise_ranking_mcsharry2003; @ts_pairwise_ranking_neurokit2] simulates
    2.5 s of ECG per item at a heart rate drawn between 55 and 125 beats per minute, starting at a random
    point of the cycle and with random measurement noise. The latent score is the heart rate (a
    "which recording is more tachycardic?" comparison); comparisons are simulated from it with flip
    probability 0.1. The beats of two recordings never line up: does an elastic distance, which can match
    beats to beats, rank them better than a rigid one?
    """)
    return


@app.cell
def _(cfg, run, tr):
    ecg = run.cached("ts_pairwise_ranking-ecg", tr.ecg_experiment, cfg, run.seed)
    return (ecg,)


@app.cell
def _(ecg, plots):
    plots.aeon_figure(ecg, reference_label="noise-free ECG at the top heart rate (reference)",
                      title="Ranking simulated ECGs by heart rate")
    return


@app.cell
def _(ecg, mo):
    _t = ", ".join(f"{k} {v:.2f}" for k, v in ecg.tau.items())
    _te = ", ".join(f"{k} {v:.2f}" for k, v in ecg.tau_test.items() if v == v)
    _elastic = ("softdtw", "softtwed")
    _d_tr = max(ecg.tau[k] for k in _elastic) - ecg.tau["euclidean"]
    _d_te = max(ecg.tau_test[k] for k in _elastic) - ecg.tau_test["euclidean"]

    def _word(d):
        return "ahead of" if d > 0 else ("level with" if d == 0 else "behind")

    _answer = (
        f"So, to the question above: the best elastic model is {_word(_d_tr)} the Euclidean one on compared "
        f"recordings (τ difference {_d_tr:+.2f}) and {_word(_d_te)} it on held-out recordings "
        f"({_d_te:+.2f})"
        + ("; on this run elasticity does not buy a better ranking." if max(_d_tr, _d_te) <= 0 else
           "." if min(_d_tr, _d_te) > 0 else "; the evidence for elasticity is mixed on this run."))
    mo.md(f"""
    *Figure: six simulated ECGs from the slowest to the fastest heart rate (grey), a noise-free reference at
    the top rate and the learned ideals; τ with the heart rate on compared and held-out recordings
    ({ecg.n_items} compared recordings of length {ecg.length}).* τ on compared recordings: {_t}; on
    held-out recordings: {_te}.

    {_answer}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Irregular sampling: TWED's time stamps

    Here each series of the warped family keeps a random subset of its samples, so the series have unequal
    lengths and unevenly spaced, slightly jittered observation times. Soft-TWED is fitted once with the true
    time stamps, once told that each series' samples are evenly spaced ($1..T_k$), and soft-DTW, which has no
    notion of time stamps, is fitted alongside; all three see the same comparisons (flip probability 0.1), and
    the ideal lives on the regular grid.
    """)
    return


@app.cell
def _(cfg, run, tr):
    irregular = run.cached("ts_pairwise_ranking-irregular", tr.irregular_experiment, cfg, run.seed)
    return (irregular,)


@app.cell
def _(irregular, plots):
    plots.irregular_figure(irregular)
    return


@app.cell
def _(irregular, mo):
    _stamped = "soft-TWED, true time stamps"
    _ignored = "soft-TWED, stamps 1..T_k (ignored)"
    _d = irregular.tau_test[_stamped] - irregular.tau_test[_ignored]
    _t = "; ".join(f"{k}: {irregular.tau[k]:.2f} compared, {irregular.tau_test[k]:.2f} held-out" for k in irregular.tau)
    mo.md(f"""
    *Figure: four irregularly sampled series (dots at their observation times), the planted and learned
    ideals; τ on compared and held-out series ({irregular.n_items} compared series of lengths
    {", ".join(str(v) for v in irregular.lengths)}).* τ: {_t}. Using the time stamps changes soft-TWED's τ on
    held-out series by {_d:+.2f}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Choose the noise level, the number of comparisons per series, the distance and the soft-min
    temperature: a small model (40 series of length 24, 40 Adam steps) is refitted and the learned ideal
    redrawn. On the website the controls show the values this page was built with; open the chapter
    live to move them.
    """)
    return


@app.cell
def _(mo):
    flip_slider = mo.ui.slider(steps=[0.0, 0.1, 0.2, 0.3, 0.4], value=0.1, label="flip probability p")
    budget_slider = mo.ui.slider(steps=[1, 2, 5, 10, 20], value=5, label="comparisons per series")
    distance_drop = mo.ui.dropdown(options=["euclidean", "softdtw", "softtwed"], value="softtwed", label="distance")
    gamma_slider = mo.ui.slider(steps=[0.01, 0.03, 0.1, 0.3, 1.0], value=0.1, label="soft-min γ")
    mo.hstack([flip_slider, budget_slider, distance_drop, gamma_slider])
    return budget_slider, distance_drop, flip_slider, gamma_slider


@app.cell
def _(budget_slider, distance_drop, flip_slider, gamma_slider, mo, plots, run, tr):
    _p = tr.playground_fit(40, budget_slider.value, flip_slider.value, distance_drop.value, gamma_slider.value,
                           seed=run.seed)
    mo.vstack([plots.playground_figure(_p),
               mo.md(f"*Figure: left, the planted and the learned ideal with a few of the 40 series (grey); right, the "
                     f"training loss; {distance_drop.value} at γ={gamma_slider.value:g}, "
                     f"{budget_slider.value} comparisons per series, flip probability {flip_slider.value:g}.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; "rejects" names the
    alternative the rule would turn down. The paper's numbers were not reachable: its column quotes the
    abstract, or says "not reached" where the abstract says nothing. The rows of the abstract's result
    sentences come first (C0-C4, C7), then our extra checks (C5, C6, C8).
    """)
    return


@app.cell
def _(ClaimsLedger, check0, check1, check2, check3, check4, check5, check6, check7, check8, run):
    ledger = ClaimsLedger("ts_pairwise_ranking", run.profile)
    ledger.add_checks(check0, check1, check2, check3, check4, check7, check5, check6, check8)
    ledger
    return (ledger,)


@app.cell
def _(mo):
    mo.md(r"""
    ## How this chapter differs from the paper

    - **What we could read.** Only the abstract. The likelihood (logistic link on differences of
      distances, one global $\beta$), the soft-TWED (soft-min plus a smoothed norm, divergence-corrected),
      the Lipschitz constants and their proofs sketched above, and every decision threshold are **our
      reconstruction** following the dossier; the paper's theorems, its exact soft-TWED and its
      convergence statements may differ.
    - **Data.** The paper's expert-annotated medical series were not available offline. Our items are a
      synthetic warped family with a known severity, and real shapes from aeon's bundled datasets; **all
      comparisons are simulated** from latent scores. ECG-like recordings are *simulated* with neurokit2's
      ECGSYN model, not recorded; their "severity" is the heart rate we chose.
    - **Baselines.** Bradley–Terry via choix, a RankNet-style MLP on raw series, a logistic classifier on
      noisy absolute labels and the Euclidean ideal point were all run on the same data; the paper's own
      baselines are unknown.
    - **Flip-aware link.** The option $P=\epsilon+(1-2\epsilon)\sigma(\cdot)$ shown under claim 8 is ours, not
      the paper's; claim 8 itself is decided with the logistic link.
    - **Convergence.** We test numerically that the ranking error on held-out series falls with the number
      of comparisons (C7, a log-log slope with an interval over data sets), not the paper's guarantees,
      whose statements we could not read. Claim 6 (generalisation) is decided on the accuracy on held-out
      comparisons between unseen series, against the accuracy of the planted ideal under the same distance (the
      true scores are shown for reference).
    - **Verdicts.** Four of them (reproduced, not reproduced, inconclusive at this scale, not testable): a row
      decided over data sets is "not reproduced" only when its whole interval lies on the far side of the
      declared threshold; every rule's test also runs the nearest trivial method (a chance ranker, the Euclidean
      ideal point, soft-DTW in place of soft-TWED, a rigid distance's constant) and checks it does not pass.
    - **Annotation budget (C0).** The annotators, their thresholds and their noise are simulated; the
      paper's experts and their disagreement are not available.
    - **Scale.** Sizes follow the profile (above); `full` runs larger problems and is meant for a GPU.
    - **References for TWED.** aeon's `twe_distance` always; `pytwed` (Marteau's reference code) when it is
      installed. It is an optional dependency (`pip install -e ".[reference]"` after numpy, or
      `pip install --no-build-isolation pytwed`) because its source build imports numpy before
      pip's isolated build environment has it, so a plain `pip install pytwed` fails.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - *Ranking Time Series using a Time Warping Ideal Point Model.* ICML 2026 [@ts_pairwise_ranking_paper].
    - P.-F. Marteau. *Time warp edit distance with stiffness adjustment for time series matching.* IEEE TPAMI 2009 [@ts_pairwise_ranking_marteau2009].
    - M. Cuturi, M. Blondel. *Soft-DTW: a differentiable loss function for time-series.* ICML 2017 [@ts_pairwise_ranking_cuturi2017].
    - M. Blondel, A. Mensch, J.-P. Vert. *Differentiable divergences between time series.* AISTATS 2021 [@ts_pairwise_ranking_blondel2021].
    - K. Jamieson, R. Nowak. *Active ranking using pairwise comparisons.* NeurIPS 2011 [@ts_pairwise_ranking_jamieson2011].
    - C. Burges et al. *Learning to rank using gradient descent.* ICML 2005 [@ts_pairwise_ranking_burges2005].
    - P. E. McSharry, G. D. Clifford, L. Tarassenko, L. A. Smith. *A dynamical model for generating synthetic electrocardiogram signals.* IEEE TBME 2003 [@ts_pairwise_ranking_mcsharry2003].
    - aeon, tslearn, choix, neurokit2 and pytwed [@ts_pairwise_ranking_aeon; @ts_pairwise_ranking_tslearn; @ts_pairwise_ranking_choix; @ts_pairwise_ranking_neurokit2; @ts_pairwise_ranking_pytwed].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
