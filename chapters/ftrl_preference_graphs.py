import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Preference graphs vs the long-run behaviour of FTRL")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import ftrl_preference_graphs as fp
    from icmlbook.papers.ftrl_preference_graphs import claims as fc
    from icmlbook.papers.ftrl_preference_graphs import games, plots
    from icmlbook.runtime import ClaimsLedger, open_chapter, show_plotly
    return ClaimsLedger, fc, fp, games, mo, np, open_chapter, plots, show_plotly


@app.cell
def _(mo):
    mo.md(r"""
    # Preference graphs vs the long-run behaviour of FTRL

    A finite game has two layers of information: its *preference graph*, which only records which
    unilateral switches of action pay off, and its actual payoffs. The ICML 2026 paper *What
    Preferences Can—and Cannot—Predict in Multi-Agent Online Learning* [@icml2026preferences] asks how
    much of the long-run behaviour of no-regret learning (follow-the-regularised-leader, FTRL) the
    ordinal layer already decides. Its abstract gives three answers: any set of pure profiles that
    learning settles on stably must be closed under profitable deviations; for *subgames* (restricted
    action sets) that closure is also sufficient; beyond subgames it is not, and a payoff-based notion,
    *leaklessness*, is needed. We rebuild the objects, decide stability by **searching for the worst
    start** near a set (not by sampling a few perturbations), construct a three-player game in which
    the same preference graph carries a stable or an unstable set depending on one payoff, with every
    exit rate derived, and test a leaklessness certificate defined from the abstract's words. The
    verdicts at the end are computed by this run.
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
    | **Paper** | *What Preferences Can—and Cannot—Predict in Multi-Agent Online Learning* |
    | **Venue** | ICML 2026, poster page https://icml.cc/virtual/2026/poster/66240 |
    | **Authors, arXiv, code** | not on the page we read; we found no other published source, so we print none |

    Only the abstract was readable. What it claims, in the form we test (the ledger at the end decides
    each one; its "paper" column quotes the abstract):

    1. the skeleton of every dynamically stable set (the pure profiles it contains) is preferentially stable (C2: a check of our search, in `tests/`, see below);
    2. for subgames, preferential stability characterises asymptotic stability of the span (C3; C7 for a second regulariser);
    3. a three-player game has a preferentially stable set whose span is dynamically unstable (C4; C5 is our
       derivation of where it switches);
    4. leaklessness, "a measure of aggregate payoff drift away from a set of pure profiles", gives a
       payoff-based condition under which the span is stable and attracting (C6).

    That singleton sinks of the preference graph are the strict pure Nash equilibria holds by
    definition in generic games; it is a test of our code (`tests/`), not a claim.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("ftrl_preference_graphs", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    _hs, _rs, _ls = cfg.headline_search, cfg.random_search(), cfg.leak_search
    mo.md(f"""
    {run.computed_with()}. Stability of the
    counterexample's span is searched at {len(_hs.levels)} start distances
    d = {", ".join(f"{d:.0e}" for d in _hs.levels)} with horizon T = {_hs.horizon:g}; spans in random games
    (shapes {", ".join("×".join(map(str, s)) for s in cfg.r2_shapes)}, {cfg.r2_games} games per shape with the
    entropic regulariser, {cfg.r2_games_euclidean} with the Euclidean one) at
    d = {", ".join(f"{d:.0e}" for d in _rs.levels)} and T = {_rs.horizon:g}. Per level, each search has
    {_hs.n_random} (counterexample), {_rs.n_random} (subgames) or {_ls.n_random} (random non-product sets) random
    restarts, every vertex-exit move, every pair of moves of two players from every vertex at
    {_hs.pair_ratios + _hs.pair_random}, {_rs.pair_ratios + _rs.pair_random} or {_ls.pair_ratios + _ls.pair_random}
    tunings, then {_hs.n_rounds}, {_rs.n_rounds} or {_ls.n_rounds} rounds of the evolution strategy; every set
    labelled stable is searched a second time. The number of starts per set is shown with each result.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Setting and method

    ### Games and their preference graphs

    A finite game has players $i=1,\dots,N$, finite action sets $A_i$ and payoffs
    $u_i:A=\prod_iA_i\to\mathbb R$. Players mix, $x_i\in\Delta(A_i)$, and
    $u_i(x)=\sum_{\alpha\in A}u_i(\alpha)\prod_jx_{j\alpha_j}$. The **payoff vector** of player $i$ is
    $v_i(x)=(u_i(a;x_{-i}))_{a\in A_i}$.

    The **preference graph** has the pure profiles as nodes and an arc $\alpha\to\beta$ whenever
    $\beta=(b_i;\alpha_{-i})$ differs from $\alpha$ in the action of one player $i$ only and
    $u_i(\beta)>u_i(\alpha)$: the edges of the profile cube, each oriented towards the endpoint its
    deviating player prefers. Its sink strongly connected components are the **sink equilibria**
    [@biggar2025preference; @biggar2025sink]; a strict pure Nash equilibrium is a singleton sink.

    A set $S\subseteq A$ is **preferentially stable** if no arc leaves it. It is a **subgame** if
    $S=\prod_iS_i$. Its **span** is the part of the strategy space that plays only profiles of $S$,
    the union of the faces $\prod_i\Delta(B_i)$ over the boxes $\prod_iB_i\subseteq S$ (for a subgame,
    one face). Its distance from a mixed profile is measured by the **outside mass**

    $$
    D_S(x)=\sum_{\alpha\notin S}\prod_i x_{i\alpha_i},\qquad \mathrm{span}(S)=\{x: D_S(x)=0\},
    $$

    the probability that independent play lands outside $S$. The **skeleton** of a set
    $\mathcal C$ of mixed profiles is $\{\alpha: e_\alpha\in\mathcal C\}$; the skeleton of
    $\mathrm{span}(S)$ is $S$ itself.

    ### FTRL

    Each player accumulates payoffs in a score vector and plays a regularised best response:

    $$
    \dot y_i = v_i(x),\qquad x_i = Q_i(y_i)=\arg\max_{x_i\in\Delta(A_i)}\big\{\langle y_i,x_i\rangle-h_i(x_i)\big\},
    $$

    in continuous time, or $y_{i,t+1}=y_{i,t}+\gamma_t v_i(x_t)$ in discrete time. The entropic
    regulariser $h(x)=\sum_a x_a\log x_a$ gives $Q=\mathrm{softmax}$ (exponential weights; in
    continuous time the replicator dynamics $\dot x_{ia}=x_{ia}(v_{ia}-\langle x_i,v_i\rangle)$);
    the Euclidean one $h=\frac12\lVert x\rVert^2$ gives the projection onto the simplex, which can put
    an action's probability at exactly 0 in finite time [@boone2023equivalence].

    **How we simulate.** Everything runs in score space in float64, so that a probability of
    $10^{-300}$ is a finite score gap instead of an underflow. A batch of starts (possibly each with
    its own game) is one array; our integrator is a Dormand–Prince 5(4) pair with one adaptive step
    per start (the tableau of scipy's `RK45`), checked against `scipy.integrate.solve_ivp` in the
    tests; the stacked batch can also be handed to scipy's LSODA/Radau/BDF.

    ### Stability, searched

    The paper's results are about Lyapunov stability (nearby starts stay nearby) and attraction
    (nearby starts converge). Because $D_S$ is continuous, zero exactly on the compact span and
    positive elsewhere, the sets $\{D_S<r\}$ form a base of neighbourhoods of the span, so the span is
    Lyapunov stable exactly when

    $$
    \varepsilon(d)=\sup\big\{\max_{t\ge0}D_S(x(t)) : D_S(x(0))\le d\big\}\ \longrightarrow\ 0\qquad(d\to0).
    $$

    $\varepsilon(d)$ is a supremum, and a supremum has to be *searched for*. A protocol that perturbs
    one coordinate at a time from a vertex cannot see an instability that needs two exits, growing at
    different rates, to become large at the same moment (our first version of this chapter made that
    mistake; the counterexample section shows what it missed). Our search, for each level $d$:

    - a start is a point $p$ of a face $\prod_i\Delta(B_i)$ of the span (a vertex or a random point),
      pushed off by **every player separately**: $x_i=(1-m_i)p_i+m_iq_i$ with a per-player scale
      $m_i=10^{\lambda_i+t}$, the $\lambda_i$ drawn over 12 decades, a push direction $q_i$ with
      per-action log-weights, and one common shift $t$ solved so that $D_S(x(0))=d$;
    - random restarts, half of them sparse (a few players push, each towards one action), plus two
      kinds of seeds chosen without looking at payoffs and **enumerated**, not sampled: every vertex-exit
      start of the old protocol, and every pair of moves of two players from every vertex of $S$, each at
      several tunings of its two masses (log-ratios $\log\delta_i/\log\delta_j$ from 1/16 to 16, placed so that
      $\delta_i\delta_j\approx d$) and at one pair of independent random scales; in seeds every other mass sits
      $10^{-290}$ below the pushed ones (an exit that competes with a faster move inside the span needs that
      much separation to be followed); then rounds of a batched evolution strategy over the log-scales: the
      best starts of each level are mutated by Gaussian steps of a few decades, and the best start of every
      other level is moved to this one;
    - every set labelled stable is **searched again** (fresh restarts, the evolution strategy restarted),
      and labelled on what both passes found: a second pass can only take a "stable" away;
    - every start of every set sharing a game shape is integrated in one batch by our vectorised
      Dormand–Prince integrator (one adaptive step per start, checked against `solve_ivp` in the tests).

    The excursion is measured on $[0,T]$; the labels, with thresholds fixed in the config:
    **unstable** if $\varepsilon(d)\ge0.05$ at every level; **stable** (stable and attracting) if
    $\varepsilon(d_{\min})\le10^{-3}$, the next level already below 0.05, the curve still falling at
    the small end (log-log slope $\ge0.1$) and every start's $D_S(x(T))/d\le10^{-2}$; **undecided**
    otherwise. Undecided is a third label: it never counts as stable, and never as agreement with a
    prediction. A finite horizon cannot see escapes slower than about $\log(1/d)/T$; such sets end up
    undecided (still growing at $T$), not stable.

    ### Leaklessness, defined before any experiment

    The abstract describes leaklessness as "a measure of aggregate payoff drift away from a set of
    pure profiles". We could not read the paper's definition, so we fix one from these words and use
    no other. Under entropic FTRL the mass of a profile moves as
    $\dot x(\alpha)=x(\alpha)\sum_i[u_i(\alpha_i;x_{-i})-u_i(x)]$, so the outside mass moves at the rate

    $$
    \Lambda_S(x)=\frac{\dot D_S(x)}{D_S(x)}=\sum_{\alpha\notin S}\frac{x(\alpha)}{D_S(x)}\sum_i\big[u_i(\alpha_i;x_{-i})-u_i(x)\big],
    $$

    the payoff drift of the play that lands outside $S$, aggregated with the weights of that play. We
    call $S$ **leakless** when $\Lambda_S(x)\le-c<0$ at every $x$ with $0<D_S(x)\le r$. This is
    sufficient (for entropic FTRL): along a trajectory that starts in $\{D_S\le r\}$,
    $\tfrac{d}{dt}\log D_S\le-c$, so $D_S$ falls at least like $e^{-ct}$ and the span is stable and
    attracting. We evaluate it by searching for the largest $\Lambda_S$ at outside masses
    $d\le10^{-4}$ (the same parametrisation as the stability search, no integration) and certify when
    it stays below $-10^{-3}$. A search can under-estimate a supremum, so we check every certification
    against the stability search, and we report how many sets it certifies (its power) next to how
    many of those the search finds unstable (its soundness).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    ### The objects, drawn

    The preference graphs of the classic games, with sink equilibria coloured: matching pennies and
    rock–paper–scissors are single cycles, Shapley's game [@shapley1964some] has a six-cycle sink and
    three transient profiles, the coordination game has two strict equilibria, the prisoner's
    dilemma one. The last panel is our three-player counterexample (the *averaging game*, below);
    the ringed profiles form the set $S$ studied there.
    """)
    return


@app.cell
def _(games, plots):
    _gs = [games.classic_game(k) for k in games.CLASSIC_GAMES] + [games.averaging_game(2.0)]
    plots.preference_graphs_figure(_gs, highlights=[None] * 5 + [games.averaging_set()],
                                   titles=[g.name for g in _gs[:5]] + ["averaging game (ringed: S)"])
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the preference graphs of the five classic games and of the averaging game: an arc is a
    profitable unilateral deviation, coloured nodes are the sink equilibria (one colour per sink).*
    """)
    return


@app.cell
def _(fp, mo):
    _facts = fp.classic_facts()
    _rows = "\n".join(
        f"| {f.game.name} | {f.n_arcs} | {len(f.sinks)} ({', '.join(str(len(c)) for c in f.sinks)} profiles) | "
        f"{len(f.strict_nash)} | {len(f.ties)} |" for f in _facts)
    mo.md(f"""
    | game | arcs | sink equilibria (sizes) | strict pure NE | tied edges |
    |---|---|---|---|---|
    {_rows}
    """)
    return


@app.cell
def _(fp, plots, run):
    square_runs = {"mp_ent": fp.classic_trajectories("matching_pennies", "entropic", run.seed),
                   "mp_euc": fp.classic_trajectories("matching_pennies", "euclidean", run.seed),
                   "coord": fp.classic_trajectories("coordination", "entropic", run.seed),
                   "pd_euc": fp.classic_trajectories("prisoners_dilemma", "euclidean", run.seed, horizon=4.0)}
    plots.square_trajectories_figure([
        ("matching pennies, entropic", square_runs["mp_ent"]),
        ("matching pennies, Euclidean", square_runs["mp_euc"]),
        ("coordination, entropic", square_runs["coord"]),
        ("prisoner's dilemma, Euclidean", square_runs["pd_euc"]),
    ])
    return (square_runs,)


@app.cell
def _(mo, np, square_runs):
    # matching pennies, entropic: the relative entropy to (1/2, 1/2) is conserved on closed orbits
    _mp = square_runs["mp_ent"]
    _H = -0.5 * np.log(_mp).sum(-1) - 2 * np.log(2.0)                        # (T, starts) KL to the equilibrium
    _drift = float(np.max(np.abs(_H - _H[0])))
    _mpe = square_runs["mp_euc"]
    _boundary = int(np.sum((_mpe == 0).any(axis=(0, 2))))
    _co = square_runs["coord"][-1]
    _aa = int(np.sum((np.abs(_co[:, 0] - 1) < 1e-3) & (np.abs(_co[:, 2] - 1) < 1e-3)))
    _bb = int(np.sum((np.abs(_co[:, 1] - 1) < 1e-3) & (np.abs(_co[:, 3] - 1) < 1e-3)))
    _pd = square_runs["pd_euc"][-1]
    _dd = int(np.sum((_pd[:, 1] == 1) & (_pd[:, 3] == 1)))
    _n = _mp.shape[1]
    mo.md(f"""
    *Figure: FTRL trajectories of 2×2 games on the square (circles: starts, squares: ends), {_n} starts per panel.*
    Under exponential weights the relative entropy to matching pennies' equilibrium, which is constant on its
    closed orbits, changes by at most {_drift:.1e} nats along the {_n} trajectories (it starts at
    {float(_H[0].min()):.2f} to {float(_H[0].max()):.2f}); with the Euclidean
    regulariser {_boundary} of {_n} reach the boundary of the square. In the coordination game {_aa} starts end
    within 10⁻³ of (A, A) and {_bb} of (B, B); in the prisoner's dilemma Euclidean FTRL ends exactly on (D, D)
    in {_dd} of {_n} starts (finite-time convergence).

    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Limit sets of single trajectories (an extra check, C2b)

    On random games with i.i.d. normal payoffs (redrawn until every edge of the profile cube has a
    payoff gap of at least 0.15, so there are no ties) we run exponential weights from Dirichlet
    starts and collect the pure profiles the late trajectories come close to. The dossier proposed
    this as a test of the first result; it is stronger than the paper's statement (a limit set can
    attract without being Lyapunov stable), so it is our extra row, not the paper's claim.
    """)
    return


@app.cell
def _(cfg, fp, run):
    r1 = run.cached("ftrl-pg-limit-sets", fp.limit_set_study, cfg, run.seed)
    return (r1,)


@app.cell
def _(plots, r1):
    plots.limit_set_figure(r1)
    return


@app.cell
def _(fc, mo, np, r1):
    check2b = fc.claim2b(r1)
    _nfail = int((~r1.naive_stable).sum())
    _text = (f"It fails in {_nfail} of {len(r1.naive_stable)} games: there trajectories wind around part of a large "
             "cyclic sink, so the profiles they pass close to are not closed under profitable deviations. This does "
             "not contradict the paper (such limit sets attract without being stable)."
             if _nfail else f"It holds in all {len(r1.naive_stable)} games of this run.")
    mo.md(f"""
    *Figure: fractions of random games ({len(r1.shapes)} games, {r1.n_starts} starts each, T = {r1.horizon:g}).*
    A fraction {np.mean(r1.empty_fraction):.0%} of trajectories approached no vertex at all in the last quarter
    of the run (closed orbits or slow cycling inside the strategy space). {_text}

    {check2b.sentence("Claim 2b")}
    """)
    return (check2b,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Subgames: preferential ⇔ dynamic stability (claims 3 and 7)

    Every proper product set of every random game is searched as above, once with exponential weights
    and once with Euclidean FTRL. A subgame $S=\prod_iS_i$ is preferentially stable exactly when every
    action outside $S_i$ is strictly worse than every action of $S_i$ against every profile of
    $S_{-i}$, which by multilinearity is Boone and Mertikopoulos' *closed under better replies*
    [@boone2023equivalence]; we also run their club test by an independent route (a linear program per
    action pair for two players, dense sampling of the face for three) on part of the games.

    The pool is lopsided: most product sets are *not* preferentially stable, and for them a single
    profitable arc out of a vertex is easy to follow. So agreement is reported, and decided, **per
    class**: the easy class must not carry the hard one. Within a class, the nested subgames of one
    game are not independent, so the rules also count **games** (a game agrees when all its sets of
    the class get the predicted label) and bound their share from below.
    """)
    return


@app.cell
def _(cfg, fp, run):
    r2_ent = run.cached("ftrl-pg-subgames-entropic", fp.subgame_study, cfg, run.seed, "entropic")
    r2_euc = run.cached("ftrl-pg-subgames-euclidean", fp.subgame_study, cfg, run.seed, "euclidean")
    return r2_ent, r2_euc


@app.cell
def _(plots, r2_ent, r2_euc):
    plots.subgame_scatter_figure([r2_ent, r2_euc])
    return


@app.cell
def _(cfg, fc, mo, np, r2_ent, r2_euc):
    check3 = fc.claim3(r2_ent, cfg.agree_min)
    check7 = fc.claim7(r2_euc, cfg.agree_min)
    _club, _nclub = r2_ent.club_agreement
    _dis = "\n".join(f"- {'×'.join(map(str, d['shape']))} game {d['game']}, S = {d['factors']}: labelled *{d['label']}*, "
                     f"preferentially stable = {d['pref_stable']}, margin {d['margin']:+.3f}, "
                     f"ε(d) = {', '.join(f'{e:.1e}' for e in d['eps'])}"
                     for d in (r2_ent.disagreements + r2_euc.disagreements)[:20]) or "- none"
    _zero = [r["final_zero"] for r in r2_euc.records if r["label"] == "stable"]
    mo.md(f"""
    *Figure: each dot is a subgame; x = the largest payoff gain of a deviation out of S (negative:
    preferentially stable), y = the worst excursion the search found at the smallest start distance,
    coloured by the search's label.* The independent club test agrees with preferential stability on
    {_club:.1%} of {_nclub} subgames. With the Euclidean regulariser,
    {np.mean(_zero) if _zero else float('nan'):.0%} of the searched starts of the stable subgames end with
    the outside mass exactly 0 (finite-time convergence onto the face).

    Subgames whose label differs from the prediction (undecided included):

    {_dis}

    {check3.sentence("Claim 3")}

    {check7.sentence("Claim 7")}
    """)
    return check3, check7


@app.cell
def _(fp, plots):
    finite_time = fp.finite_time_example()
    plots.finite_time_figure(*finite_time)
    return (finite_time,)


@app.cell
def _(finite_time, mo):
    _t, _ent, _euc, _tz = finite_time
    _euc_txt = (f"The Euclidean projection puts the deviating actions at exactly zero probability from t = {_tz:.2f} on"
                if _tz == _tz else f"The Euclidean outside mass is still {_euc[-1]:.1e} at t = {_t[-1]:g}")
    mo.md(f"""
    *Figure: the outside mass of $S=\\{{(A,A)\\}}$ in the coordination game after a perturbation of size
    0.05.* {_euc_txt}; exponential weights leave {_ent[-1]:.1e} at t = {_t[-1]:g} (exponentially small, never 0).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Beyond subgames: a counterexample (claims 4 and 5)

    **What our first version got wrong.** This chapter first used a game with the matching-pennies
    face $\{a_3=0\}$ and one extra vertex $(0,0,1)$, and claimed its span was unstable only for $G>3$,
    from an exit rate averaged over the face. That is false: its span is unstable for **every**
    $G>0$. At the vertex $(0,0,0)$ player 2 gains 4 by moving to $(0,1,0)\in S$ and player 3 gains $G$
    by moving to $(0,0,1)\in S$, but their joint move $(0,1,1)$ leaves $S$. Start with player 2's
    mass $\delta$ on action 1 and player 3's mass $s$ on action 1, tuned so that $\delta=s^{4/G}$:
    both grow, at rates 4 and $G$, and reach order one at the same moment, so $D_S\ge x_{2,1}x_{3,1}$
    becomes of order one although it started at $\delta s$. Along the edge $\{(0,0,\cdot)\}$ of the
    span the same shows as player 2's exit rate $4-5x_{3,1}$, positive while $x_{3,1}<0.8$, which the
    face average ignored. A protocol that perturbs one coordinate at a time never sees it. The search
    finds it without being told where: its two-move seeds are every pair of moves from every vertex of
    $S$, chosen without looking at payoffs, at several ratios of the two scales, which the evolution
    strategy then tunes (the figure below; a regression test runs it at $G=1,2,5$ on three seeds). The same *split corner* gives an unstable preferentially stable set with two players
    (chicken: $S=\{(0,0),(1,0),(0,1)\}$, tested in `tests/`). A split corner is ordinal (signs of
    gains only), so it does not show that payoffs matter beyond the preference graph. The game below
    does.

    **The averaging game** (our construction; the paper's game was not reachable). Each player has
    actions $\{0,1\}$; write $p_i=x_{i,1}$.

    - Layer $a_3=0$: matching pennies between players 1 and 2 with stakes 2 (player 1 wants to match);
      $u_3=0$.
    - Layer $a_3=1$: $u_1=1$ at $(0,\cdot,1)$ and $0$ at $(1,\cdot,1)$; $u_2(0,0,1)=1$, $u_2(0,1,1)=0$,
      $u_2(1,0,1)=\tfrac12$, $u_2(1,1,1)=0$; $u_3(0,0,1)=G>0$, $u_3(0,1,1)=h<0$, $u_3(1,\cdot,1)=-1$.

    Take $S=\{(a_1,a_2,0)\}\cup\{(0,0,1),(0,1,1)\}$. The only profiles outside are $(1,\cdot,1)$, so
    $D_S=p_1p_3$, and the span is the union of two faces: $F=\{a_3=0\}$ (players 1 and 2 mix) and
    $F'=\{a_1=0\}$ (players 2 and 3 mix), meeting along the edge $E=\{(0,\cdot,0)\}$.

    *Preferentially stable, one graph.* The arcs that could leave $S$ are player 3's moves up from
    $(1,a_2,0)$ (gain $-1$) and player 1's moves from $(0,a_2,1)$ (gain $-1$): none is profitable.
    Every arc's direction depends only on the signs of $G$ and $h$, so all games with $G>0$, $h<0$ share
    one preference graph (checked in the table below and in the tests).

    *Every exit rate.* Under exponential weights $\tfrac{d}{dt}\log p_i=(1-p_i)\Delta_i$ with
    $\Delta_i=u_i(1;x_{-i})-u_i(0;x_{-i})$, so

    $$
    \frac{d}{dt}\log D_S=(1-p_1)\,\Delta_1+(1-p_3)\,\Delta_3,\qquad
    \Delta_1=4(1-p_3)(2p_2-1)-p_3,\qquad
    \Delta_3=G(1-p_1)(1-p_2)+h(1-p_1)p_2-p_1 .
    $$

    - *Face $F$* ($p_3=0$, $D_S\approx p_1p_3$ with $p_1$ a coordinate of the face): the transverse rate is
      $\Delta_3(p_1,p_2)$, positive near $(0,0,0)$ (rate $G$) and negative at the other three vertices
      ($h$, $-1$, $-1$). Players 1 and 2 circle on closed matching-pennies orbits, and along **every**
      orbit the time averages of $x_{1a}x_{2b}$ are $\tfrac14$ (average
      $\tfrac{d}{dt}\log x_{1,0}$ and $\tfrac{d}{dt}\log x_{2,0}$ over a period: both vanish, which
      forces the averages of $x_{1,0}$, $x_{2,0}$ to $\tfrac12$ and of their product to $\tfrac14$). So
      the transverse exponent of every orbit of $F$ is
      $\overline{\Delta_3}=\tfrac{G+h}{4}-\tfrac12=\tfrac{G+h-2}{4}$.
    - *Face $F'$* ($p_1=0$, $D_S\approx p_1$ times a coordinate of the face): the transverse rate is
      $\Delta_1(p_2,p_3)$. The flow on $F'$ is a gradient-like 2×2 game (sources $(0,0,0)$ and
      $(0,1,1)$, the strict equilibrium $(0,0,1)$, the vertex $(0,1,0)$, a saddle at $p_3=\tfrac45$,
      $p_2=G/(G-h)$), so its invariant measures are these points. $\Delta_1$ there: $-4$, $-1$, $-1$,
      $+4$ and $\tfrac45(2p_2^*-2)<0$. The $+4$ at $(0,1,0)$ is player 1's move *inside* $F$; there the
      transverse direction is $p_3$, with rate $h<0$.
    - *Edge $E$* (both $p_1$ and $p_3$ off): $\Delta_1=4(2p_2-1)$, $\Delta_3=G(1-p_2)+hp_2$. No vertex
      of $S$ has two profitable moves whose joint profile leaves $S$: the outside profiles $(1,a_2,1)$
      are two moves (players 1 and 3) from $(0,a_2,0)$, and player 1 loses 4 at $(0,0,0)$ while player 3
      loses $|h|$ at $(0,1,0)$.

    So if $G+h>2$ a start on an interior orbit of $F$ with $p_3=d/p_1$ sees $\log p_3$ grow on average
    at $(G+h-2)/4>0$ and $D_S$ reach order one, **whatever** $d$: the span is unstable. At $G+h=2$ the
    averaged exponent is zero: the span is *neutral* at that order (along face orbits the exit neither
    grows nor decays on average: nothing escapes, nothing returns), and neither label applies. If $G+h<2$
    every invariant set of the span has a negative transverse exponent. That is not a proof of stability,
    and we do not have one: stability below the threshold is what the search finds, not a theorem.

    *The worst excursion below the threshold.* Nearby starts do not stay within a constant times $d$.
    Start on $F'$ next to the vertex $(0,1,0)$ with player 3 at $p_3=s$ (any $s<\tfrac45$) and player 1 at
    $p_1=d/s$, so $D_S=d$. There player 1's move is a move *inside* $F$, at rate $4-5p_3>0$, while player
    3's mass decays at rate $|h|$. When $p_1$ reaches order one, after a time $\tfrac14\log(s/d)$, player 3's
    mass is $s\,(d/s)^{|h|/4}$, so

    $$\max_t D_S\ \approx\ C\,d^{|h|/4},$$

    which goes to 0 with $d$, but only as the $|h|/4$-th power (then the orbit runs round $F$, where the exit
    decays when $G+h<2$). The two games compared below differ in the single payoff $u_3(0,0,1)=G$.
    """)
    return


@app.cell
def _(cfg, fp, mo, np):
    _d = np.asarray(cfg.cx_levels, float)
    corner = fp.corner_excursion(cfg.cx_stable_G, cfg.cx_h, _d)
    corner_slope = float(np.polyfit(np.log(_d), np.log(corner), 1)[0])
    mo.md(f"""
    This run uses h = {cfg.cx_h:g}: unstable for G > {2 - cfg.cx_h:g}, neutral at G = {2 - cfg.cx_h:g}; the headline
    pair is G = {cfg.cx_stable_G:g} (predicted stable) and G = {cfg.cx_unstable_G:g} (predicted unstable). The corner
    excursion above, integrated at G = {cfg.cx_stable_G:g} from s = 0.7: its peak outside mass is
    {", ".join(f"{e:.1e}" for e in corner)} at d = {", ".join(f"{d:.0e}" for d in _d)}, a log-log slope of
    {corner_slope:.3f} against |h|/4 = {abs(cfg.cx_h) / 4:g}.
    """)
    return corner, corner_slope


@app.cell
def _(cfg, fp, run):
    cx = run.cached("ftrl-pg-counterexample", fp.counterexample_study, cfg, run.seed)
    rate = run.cached("ftrl-pg-rates", fp.rate_study, cfg)
    return cx, rate


@app.cell
def _(cx, plots):
    plots.epsilon_curves_figure(cx)
    return


@app.cell
def _(cfg, corner, corner_slope, cx, fc, mo, np, rate):
    check4 = fc.claim4(cx, cfg.cx_stable_G, cfg.cx_unstable_G)
    _below = "; ".join(
        f"G = {G:g}: ε(d) has log-log slope {np.polyfit(np.log(cx.levels), np.log(r.eps), 1)[0]:.3f} over the levels "
        f"(ε({cx.levels.min():.0e}) = {r.eps[-1]:.1e})" for G, r in zip(cx.G, cx.results) if G + cx.h < 2)
    _below += (f"; the corner excursion alone has slope {corner_slope:.3f} and reaches {corner[-1]:.1e} at "
               f"d = {cx.levels.min():.0e}, so the search's 'stable' means ε(d) → 0 at about the |h|/4-th power of d, "
               "not in proportion to d")
    check5 = fc.claim5(rate, cx, cfg.rate_tol)
    _rows = "\n".join(
        f"| {G:g} | {cx.same_graph[k]} | {cx.pref_stable[k]} | {cx.predicted[k]:+.3f} | {r.label} | "
        f"{r.eps[0]:.2e} | {r.eps[-1]:.2e} | {r.random_eps[-1]:.2e} | "
        + (f"{cx.sampled[('averaging', float(G))][-1]:.2e}" if ('averaging', float(G)) in cx.sampled else "—") + " |"
        for k, (G, r) in enumerate(zip(cx.G, cx.results)))
    _leaky = "; ".join(f"G = {G:g}: {r.label}, ε = {r.eps.min():.2f}–{r.eps.max():.2f} (one-exit starts: "
                       f"{cx.sampled[('leaky', float(G))].max():.1e})" for G, r in zip(cx.leaky_G, cx.leaky))
    _m = cx.leaky[0].worst_scales[-1] if cx.leaky else None
    _worst = (f" Its worst start at d = {cx.levels.min():.0e} pushes the three players off by "
              f"{', '.join(f'{v:.1e}' for v in _m)}." if _m is not None else "")
    mo.md(f"""
    *Figures: the worst excursion ε(d) found by the search against the start distance d, for the
    averaging game (left; dotted: the one-exit sampling protocol at G = {cfg.cx_stable_G:g} and
    {cfg.cx_unstable_G:g}) and for the earlier leaky game (right; dashed: what the random restarts
    alone found, dotted: one-exit starts).* The earlier game: {_leaky}.{_worst}

    | G | same graph | S closed | (G+h−2)/4 | label | ε({cx.levels.max():.0e}) | ε({cx.levels.min():.0e}) | random restarts only | one-exit starts |
    |---|---|---|---|---|---|---|---|---|
    {_rows}

    {check4.sentence("Claim 4")}

    *Below the threshold, the search's own curve:* {_below}.
    """)
    return check4, check5


@app.cell
def _(plots, rate):
    plots.rate_figure(rate)
    return


@app.cell
def _(check5, mo, rate):
    mo.md(f"""
    *Figure: the logarithm of player 3's exit probability along the matching-pennies orbit through
    $(x_{{1,0}},x_{{2,0}})={rate.start}$, started at $e^{{-140}}$ (score space keeps it exact), with the
    averaged slope (G+h−2)/4 dotted.* Read at the start point the rate would be
    {", ".join(f"{v:+.2f}" for v in rate.at_start)}; averaged over the orbit it is the prediction.

    {check5.sentence("Claim 5")}

    The same two games in 3-D: one start $10^{{-3}}$ away from the span, from the same point of the
    face; with the stable payoff the trajectory stays next to the span, with the unstable one it leaks
    out. Drag to rotate.
    """)
    return


@app.cell
def _(fp, games, plots, show_plotly):
    _traces = fp.cube_traces()
    show_plotly(plots.cube_figure(_traces, "Entropic FTRL, started 10⁻³ from the span: " + "; ".join(_traces),
                                  games.averaging_set()))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure (interactive, drag to rotate): the two averaging games' trajectories on the cube of mixed
    profiles, with the two faces of the span of S shaded; the legend gives each run's largest outside mass.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Leaklessness (claim 6) and sets that are not closed (claim 2)

    We score random preferentially stable non-product sets with the leaklessness certificate defined
    in the method section, and label their spans with the same search; random non-product sets that
    are *not* preferentially stable are searched alongside (the abstract's first result; a check of our search since issue 28).
    """)
    return


@app.cell
def _(cfg, fp, run):
    lk = run.cached("ftrl-pg-leakless", fp.leakless_study, cfg, run.seed)
    return (lk,)


@app.cell
def _(lk, plots):
    plots.leak_figure(lk)
    return


@app.cell
def _(cfg, fc, fp, lk, mo, np, r2_ent, r2_euc, run):
    check6 = fc.claim6(lk)
    open_sets = fc.open_set_check([r2_ent, r2_euc], lk)
    check8 = fc.claim8(lk)
    _c = lk.confusion()
    _missed = _c["stable"] - _c["certified_stable"]
    _avg = fp.leakless_score(fp.averaging_game(cfg.cx_stable_G, cfg.cx_h), fp.averaging_set(),
                             np.random.default_rng(run.seed), levels=cfg.leak_levels, n_random=cfg.leak_points)
    _where = ", ".join(f"{v:.2f}" for v in _avg.worst_x)
    _sc = lk.by_corner()["split corner"]
    _miss_text = (f" A split corner makes the span unstable whatever the gains' sizes (tuned two-exit starts give an "
                  f"excursion that does not shrink with d), so the {_sc['stable']} split-corner set(s) labelled stable "
                  "here are misses of the search: a 'stable' label is what a finite search did not refute, not a proof."
                  if _sc["stable"] else "")
    mo.md(f"""
    *Figure: the {_c['n']} sets by the search's label, certified or not.* The certificate is
    conservative: it asks the drift to be negative at **every** point near the span, so it misses
    {_missed} of the {_c['stable']} sets the search finds stable. On the stable averaging game
    (G = {cfg.cx_stable_G:g}) the largest drift found is {_avg.score:+.2f}, at x = ({_where}): it is
    {"not certified" if not _avg.certified(cfg.leak_margin) else "certified"}. Sufficiency is what the
    abstract states; a sharper condition would have to average the drift along the dynamics on the
    span, as the exponent (G+h−2)/4 does.

    {check6.sentence("Claim 6")}

    **Sets that are not preferentially stable** (the abstract's first result; no longer a row of the ledger,
    see "How this chapter differs"): {open_sets["text"]}. The theorem's proof is one profitable arc out of
    $S$, and the search's vertex-exit seeds start on exactly that arc, so these counts check our search, not the
    paper.

    **Where random preferentially stable sets fail.** The search finds {_c['unstable']} of these
    {_c['n']} preferentially stable sets unstable. The split corner of our first game is an ordinal
    pattern, so we can count it: by whether a set has one, the search's labels are
    {"; ".join(f"{k}: " + ", ".join(f"{v} {lab}" for lab, v in d.items()) for k, d in lk.by_corner().items())}.
    Unstable sets without a split corner are instabilities that the signs of the gains do not reveal,
    like the averaging game's.{_miss_text}

    {check8.sentence("Claim 8")}
    """)
    return check6, check8, open_sets


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    The averaging game, live ($h=-1$: unstable for $G>3$, neutral at $G=3$): choose $G$, the initial distance δ
    of player 3's exit mass, the regulariser and the step size (0 = continuous time; otherwise
    discrete FTRL with that constant step, Hedge for the entropic regulariser). Players 1 and 2 start
    at $(x_{1,0},x_{2,0})=(0.7,0.4)$ on the matching-pennies face; the horizon is 150. The right panel
    repeats the run for several δ. On the website the controls show the values this page was built
    with; open the chapter live to move them.
    """)
    return


@app.cell
def _(mo):
    G_slider = mo.ui.slider(0.5, 7.0, step=0.1, value=4.0, label="payoff G")
    delta_slider = mo.ui.slider(-14, -1, step=1, value=-6, label="log10 δ")
    reg_dropdown = mo.ui.dropdown(options=["entropic", "euclidean"], value="entropic", label="regulariser")
    step_dropdown = mo.ui.dropdown(options=["0", "0.01", "0.05", "0.1", "0.25", "0.5"], value="0",
                                   label="step size (0 = continuous)")
    mo.hstack([G_slider, delta_slider, reg_dropdown, step_dropdown])
    return G_slider, delta_slider, reg_dropdown, step_dropdown


@app.cell
def _(G_slider, delta_slider, fp, mo, plots, reg_dropdown, step_dropdown):
    _delta = 10.0 ** delta_slider.value
    _step = float(step_dropdown.value)
    _pg = fp.playground_run(G_slider.value, _delta, reg_dropdown.value, _step)
    mo.vstack([plots.playground_figure(_pg, G_slider.value, _delta, reg_dropdown.value, _step),
               mo.md(f"*Figure: the averaging game at G={G_slider.value:g}, δ={_delta:.0e}, {reg_dropdown.value} "
                     f"FTRL, step {_step:g} (0 = continuous): outside and exit mass over time, the matching-pennies "
                     "face, and the largest excursion for several δ.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; "rejects" names
    the alternative world the rule is built to reject. The paper's column quotes its abstract.
    """)
    return


@app.cell
def _(ClaimsLedger, check2b, check3, check4, check5, check6, check7, check8, run):
    ledger = ClaimsLedger("ftrl_preference_graphs", run.profile)
    ledger.add_not_testable("C2")
    ledger.add_checks(check3, check4, check6, check7, check5, check8, check2b)
    ledger
    return (ledger,)


@app.cell
def _(cfg, fc, lk, mo, np, r1, r2_ent, r2_euc, rate):
    _recs = [r for st in (r2_ent, r2_euc) for r in st.records] + list(lk.records) + list(lk.controls)
    _rechecked = [r for r in _recs if r.get("first_label") == "stable"]
    _lost = sum(r["label"] != "stable" for r in _rechecked)
    _empty = sum(not s for s in r1.naive_skeleton)
    _neutral = float(rate.slope[np.isclose(rate.G + rate.h, 2.0)][0])
    _largest = max((r["size"] for st in (r2_ent, r2_euc) for r in st.records if not r["pref_stable"]), default=0)
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we could read.** Only the abstract, on the conference's poster page. The definitions of
      preference graph, sink equilibrium, preferential stability, subgame and skeleton follow the
      abstract and the earlier papers of the same line [@boone2023equivalence; @cauvin2025uncertainty;
      @biggar2025sink; @biggar2025preference]. The **span** as a union of faces and the **outside
      mass** $D_S$ are our reading.
    - **The counterexample is ours.** The paper's three-player game was not reachable. Ours has the
      properties the abstract describes, and more: one preference graph carries a stable and an unstable
      span, switching at $G+h=2$. Under our definition of the span, a two-player set can already have an
      unstable span (a split corner, as in chicken); we do not know whether the paper's span, or its
      notion of dynamic stability, rules that out.
    - **Leaklessness is our definition**, fixed from the abstract's words before any experiment. It is
      sufficient by a one-line argument; its power on random sets is what the ledger reports.
    - **Stability is searched, not proved.** Labels come from a finite search with a finite horizon;
      a set is stable only if the worst excursion found falls with $d$ and everything returns, unstable
      only if it stays large at every $d$, and undecided otherwise. Escapes slower than about
      $\log(1/d)/T$ are invisible and end up undecided.
    - **Games.** Random games with i.i.d. normal payoffs and a minimum edge gap (no ties), two and three
      players, two or three actions; the paper's theorems cover any finite game. "Every FTRL" is tested
      with two regularisers, in continuous time (discrete time appears in the tests and the playground).
    - **Rules changed after a run** (a second rule-breaking review, after the runs of commit 67dd53f;
      stricter only, each breaking input now a test case that must fail). Claim 2 (moved to `tests/` in issue 28) also needed the same
      search to label at least one preferentially stable set of each class (subgames: with each
      regulariser) stable, because a search
      that never says "stable" passed "no other set is labelled stable". Claims 3 and 7 also count
      games, not only sets: nested subgames of one game are not independent, and one game's many
      sets could carry the pool while preferences failed in other games; so the one-sided 95 %
      Clopper–Pearson lower bound of the share of games whose sets all get the predicted label must
      exceed {cfg.game_agree_lower:g}, and a class from fewer than {fc.games_needed(cfg.game_agree_lower)} games is not
      testable at that profile.
      The rules now refuse thresholds other than those declared in the config.
    - **Changed again after that run** (a second pass over the rewritten rules, session 5; stricter only).
      In claims 3 and 7 a class with at least {fc.games_needed(cfg.game_agree_lower)} games whose games' lower bound is at most {cfg.game_agree_lower:g} fails the
      row even when the other class has too few games: before, "too few games" was answered first, so a
      world where preferences failed in 3 of 12 games escaped to "not testable".
    - **Changed in session 6** (a minor finding of that second pass; stricter only). Claim 2's power control
      for the subgames now needs, with each regulariser, a preferentially stable subgame of **two or more**
      profiles labelled stable (undecided where no such subgame exists), because a single strict pure
      equilibrium, the easiest stable set, met it: a search that settles points but no face passed, while
      the subgames that claim 2 is about have up to {_largest} profiles here. A second pass over that rule
      (also session 6; stricter only) found one face in fourteen labelled stable still met it, so the search
      must now label at least {fc.AGREE_MIN:.0%} of those faces stable with each regulariser (the share claims 3
      and 7 ask of the stable class): a search that rarely says "stable" would likely miss one stable span
      among the other sets.
    - **Changed after an outside audit (issue 28; stricter, or inconclusive where the run cannot tell).**
      *The search* drew its two-move seeds at random, 24 move pairs per level, and so labelled a set with a
      split corner "stable" in the default run (game "2x2x3 #14": tuned two-move starts reach an outside mass
      of 0.12 from d = 1e-14). Every vertex-exit move and every pair of moves from every vertex of $S$ is now
      enumerated, each pair at several tunings, and every "stable" label is searched again: on this page
      {len(_rechecked)} sets were first labelled stable and {_lost} of them lost that label on the second pass.
      *Claim 2* (the skeleton of a stable set is preferentially stable) is no longer a row: its proof is the
      one-arc argument and our search's exit seeds start on that arc, so the check tested our search, not the
      paper; it is a test in `tests/` and its counts are printed beside claim 6. *Claim 6* asked that no
      certified set be labelled unstable, which our definition of leaklessness guarantees by a one-line
      argument; it now asks that the certified sets be stable more often than the preference graph alone
      predicts (a Clopper–Pearson interval against the share of stable sets), which an ordinal certificate and
      an abstaining one cannot pass. *Four verdicts* (contract rule 9): claims 3 and 7 are *not reproduced* only
      on evidence against (sets labelled the opposite way, or a games' upper bound below
      {cfg.game_agree_lower:g}); too few games or undecided sets are *inconclusive* (they were "not testable" or
      "not reproduced"); claims 4, 5 and 8 are inconclusive where the search leaves a set undecided. *Claim 2b* no
      longer counts a game whose trajectories approach no vertex (an empty skeleton is closed vacuously;
      {_empty} of {len(r1.naive_skeleton)} games here). *Claim 5* said "unstable iff G + h > 2": at G + h = 2
      the span is neutral (the rate grid now includes it: measured slope {_neutral:+.4f}) and below it
      stability is the search's finding, with the modulus $d^{{|h|/4}}$ derived above; the statement says so.
      Each rule now also fails on the real output of the nearest trivial method in the tests: the one-coordinate
      vertex-exit protocol as the labeller (claims 4, 5, 8), the naive sink labelling as the predictor (3, 7),
      the ordinal certificate (6), and trajectories stopped before any limit (2b). Rows about our own
      reconstruction of the paper's objects (the counterexample, leaklessness) are marked as such.
    - **Scale.** Sizes follow the profile; no GPU is needed.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - *What Preferences Can—and Cannot—Predict in Multi-Agent Online Learning.* ICML 2026, poster page [@icml2026preferences].
    - V. Boone, P. Mertikopoulos. *The equivalence of dynamic and strategic stability under regularized learning in games.* NeurIPS 2023 [@boone2023equivalence].
    - P.-L. Cauvin, D. Legacci, P. Mertikopoulos. *The impact of uncertainty on regularized learning in games.* ICML 2025 [@cauvin2025uncertainty].
    - O. Biggar, I. Shames. *Preference graphs: a combinatorial tool for game theory.* 2025 [@biggar2025preference].
    - O. Biggar, C. Papadimitriou. *Sink equilibria and the attractors of learning in games.* 2025 [@biggar2025sink].
    - L. S. Shapley. *Some topics in two-person games.* 1964 [@shapley1964some].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
