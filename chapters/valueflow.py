import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="VALUEFLOW: value extraction, evaluation and steering")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import valueflow as vf
    from icmlbook.papers.valueflow import claims as vc
    from icmlbook.papers.valueflow import plots
    from icmlbook.runtime import ClaimsLedger, open_chapter, show_plotly
    return ClaimsLedger, mo, np, open_chapter, plots, show_plotly, vc, vf


@app.cell
def _(mo):
    mo.md(r"""
    # VALUEFLOW: value extraction, intensity by ranking, and steering

    Aligning a language model with human *values*, not only with surface preferences, needs three tools: a
    way to tell which value a text expresses, a way to measure *how strongly* it expresses it, and a way to
    steer a model towards a value profile. Kim et al. [@kim2026valueflow] build all three. **HiVES** is a
    text-embedding space trained so that its geometry follows the hierarchies of four value theories;
    **VIDB** is a database of value-laden texts whose intensities come from many small rankings by LLM
    judges, aggregated with a Plackett–Luce model; an **anchored evaluator** scores a new text by ranking it
    among database texts of known intensity; and a steering study asks ten LLMs to express values at graded
    strengths.

    We rebuild every part that can run offline on a CPU: the contrastive losses and samplers on the real
    MiniLM sentence encoder, the Plackett–Luce database and the anchored estimator with simulated and
    MiniLM-based judges, and the steering protocol on a small language model trained from scratch with a
    *planted* asymmetry. No LLM runs here: the paper's LLM results are quoted as the paper's. Every verdict
    below is computed by this run.
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
    | **Paper** | *VALUEFLOW: Toward Pluralistic and Steerable Value-based Alignment in Large Language Models* |
    | **Authors** | Woojin Kim, Sieun Hyeon, Jusang Oh, Jaeyoung Do |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2602.03160](https://arxiv.org/abs/2602.03160) |
    | **Code** | [github.com/AIDASLab/VALUEFLOW](https://github.com/AIDASLab/VALUEFLOW) (MIT; read, then re-written) |

    We could read the abstract and the start of the introduction; the losses, samplers and the evaluator come
    from the official code, the headline numbers from the project page. The abstract's results and the ledger
    rows that answer them:

    - a hierarchical value embedding space that follows four theories, encodes polarity and aligns concepts
      across theories: **C3**, **C4**, **C5**;
    - intensity measured by ranking against a calibrated database, more consistent than rating: **C1**,
      **C2**, **C6**, and **P1** (agreement with humans, quoted);
    - steering ten LLMs shows asymmetric, value-specific steerability and composition laws: **C7** (the paper's
      values quoted; decided only on a reader's own LLM, not in the book) and **C8** (our validation of the
      measurement protocol on a small model);
    - value profiles improve demographic alignment on OpinionQA: **P3** (quoted).
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    # claim 7 on your own LLM (off by default: the book calls no endpoint). endpoint_url: an OpenAI-compatible
    # server, e.g. "http://localhost:8000/v1"; endpoint_model: its model name; endpoint_replay: a JSON-lines file
    # the answers are recorded to (with endpoint_url) or replayed from (without it)
    endpoint_url = ""
    endpoint_model = ""
    endpoint_replay = ""
    return endpoint_model, endpoint_replay, endpoint_url, profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("valueflow", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.hives_seeds} HiVES replicate(s) of {cfg.n_per_leaf} texts per leaf (48 leaves),
    heads trained {cfg.stage1_steps} + {cfg.stage2_steps} updates of {cfg.hives_batch} texts; {cfg.sim_reps}
    simulation replicate(s) with a database of {cfg.vidb_items} items and {cfg.n_query} new items, k ∈
    {{{', '.join(map(str, cfg.k_grid))}}}, m ∈ {{{', '.join(map(str, cfg.m_grid))}}}; the evaluator on
    {cfg.eval_values} value(s) with {cfg.vidb_per_value} database texts each; a small GPT of {cfg.lm_layers} layer(s),
    width {cfg.lm_width}, trained {cfg.lm_steps} updates on {cfg.lm_values} values ({cfg.planted} planted), steered
    with {cfg.n_gen} generations per value and level.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Method

    ### Four value theories as hierarchies

    Every text carries a root-to-leaf path $(h_1,h_2,h_3)$ in one theory (padded where a branch is shallower)
    and a direction $d\in\{-1,0,+1\}$ (opposes, neutral, supports). The theories are Schwartz's basic human
    values, Moral Foundations Theory, Ross's prima facie duties and Vasak's three generations of rights. The
    paper steers 32 values: 12 Schwartz values, 6 foundations, 7 duties and 7 rights categories.
    """)
    return


@app.cell
def _(plots, show_plotly):
    show_plotly(plots.hierarchy_figure())
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the four hierarchies as we encode them (definitions in our own words; a few two-parent values
    keep one parent).*

    ### HiVES: a hierarchical contrastive loss

    With unit embeddings $z_i$, temperature $\tau$ and a direction penalty $\lambda_{dir}$, the logits of a batch
    are $s_{ij}=z_i^\top z_j/\tau-\max_k z_i^\top z_k/\tau-\lambda_{dir}[d_i\neq d_j]$ ($s_{ii}=-\infty$), and
    $\log p_{ij}=s_{ij}-\log\sum_{k\ne i}e^{s_{ik}}$. At level $\ell$ the positives of $i$ share its path up to
    $\ell$ and its direction (a padded level never matches). The level loss

    $$
    \mathcal L_\ell=-\frac{\tau}{\tau_b}\,\frac{1}{|\{i:P_\ell(i)\neq\emptyset\}|}\sum_{i}\frac{1}{|P_\ell(i)|}\sum_{j\in P_\ell(i)}\log p_{ij}
    $$

    is raised to the largest loss of the levels above it (the hierarchy constraint), weighted by
    $w_\ell=2^{1/\ell}$ and averaged. Stage 2 adds two supervised InfoNCE terms at $\tau=0.07$: texts that are
    the same concrete value instance, and texts that express one concept in different theories.

    ### VIDB and the anchored evaluator

    A judge orders windows of $k$ texts from "most strongly supports" to "most strongly opposes". Under
    Plackett–Luce with utilities $u$, an order $\pi$ has probability
    $\prod_j e^{u_{\pi_j}}/\sum_{l\ge j}e^{u_{\pi_l}}$. The database fits all utilities of a value's texts by
    maximum likelihood and maps them to $[-10,10]$. A **new** text $r$ is ranked $m$ times among $k-1$
    database anchors, one from each of $k-1$ equal-width intensity bins; with the anchors' utilities fixed at
    $u_a=I_a/s$, its utility solves the monotone score equation

    $$
    g(u)=\sum_{w,j:\ r\in R^w_j}\Big([\pi^w_j=r]-\frac{e^{u}}{e^{u}+\sum_{a\in R^w_j\setminus r}e^{u_a}}\Big)-\lambda u=0,
    $$

    found by bisection, then mapped to the intensity scale by an isotonic fit on the anchors and kept inside the
    range of anchors it beat and lost to (the window guard).

    ### Steering

    A value and a level $\ell\in\{-2,-1,+1,+2\}$ are put in the prompt; the steering effect is
    $\Delta_{c,\ell}=\bar I_{c,\ell}-\bar I_{c,0}$, the mean evaluated intensity against the unsteered default.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    ### What we run instead of the paper's models

    - **Texts.** A seeded generator writes sentences "*subject* *strength word* *verb* *situation*" for every
      leaf of the four theories: the situation names a value (two per leaf, plus eight cross-theory concepts
      worded differently in each theory), the verb supports or opposes it, and the strength word fixes a
      **known latent intensity** (slightly 2, somewhat 4, clearly 6, strongly 8, wholeheartedly 10, signed by the
      verb; neutral mentions are 0). Held-out texts use subjects never seen in training.
    - **Encoder.** MiniLM (all-MiniLM-L6-v2, shipped in a PyPI wheel) embeds each text once; HiVES trains a
      residual linear head $z=\mathrm{norm}(x+Ax)$, $A_0=0$, on those cached embeddings (the paper fine-tunes
      the whole encoder).
    - **Judges.** A *simulated judge* (a statistical simulator: latent intensity through a judge-specific monotone
      distortion, plus noise) builds the database and tests the estimator; the *MiniLM projection judge* (a real
      model: ridge direction on MiniLM embeddings) evaluates held-out texts; the *keyword judge* (reads only the
      verb) is the trivial comparator. None of them is an LLM.
    - **Generator.** A small GPT trained from scratch on texts prefixed by control tokens for the value and the
      level; for some values, the negative-level training texts are only weakly negative.
    """)
    return


@app.cell
def _(cfg, run, vf):
    hives = run.cached_many([("valueflow-hives", vf.hives_seed, cfg, 1000 * run.seed + _i)
                             for _i in range(cfg.hives_seeds)])
    summaries = [vf.claims.summarise_hives(_h) for _h in hives]
    return hives, summaries


@app.cell
def _(mo):
    mo.md(r"""
    ### HiVES: does the embedding space follow the hierarchy? (claims 3, 4, 5)
    """)
    return


@app.cell
def _(hives, plots, show_plotly):
    show_plotly(plots.embedding_figure(hives[0]))
    return


@app.cell
def _(plots, summaries):
    plots.hives_metrics_figure(summaries)
    return


@app.cell
def _(cfg, mo, summaries, vc):
    check3 = vc.claim3_structure(summaries, cfg)
    check3f = vc.claim3_flat(summaries, cfg)
    check4 = vc.claim4_direction(summaries, cfg)
    check5 = vc.claim5_cross_theory(summaries, cfg)
    _flat = sum(_s.final("flat", "rank_pairwise") for _s in summaries) / len(summaries)
    _shuf = sum(_s.final("shuffled", "rank_pairwise") for _s in summaries) / len(summaries)
    mo.md(f"""
    *Figures: held-out embeddings of the first replicate on their two main axes, before and after training
    (filled: supports, open: opposes); held-out metrics per training objective (bars: means, dots: replicates).
    Flat SupCon on leaf labels alone reaches ranking accuracy {_flat:.3f}; a head trained on shuffled labels {_shuf:.3f}.*

    {check3.sentence("Claim 3")}

    Claim 3 compares with the untuned encoder, as the paper compares with its base model. Which ingredient does
    the work? Row C3f trains the same head with the same sampler, seed and number of updates on a *flat*
    supervised contrastive loss whose one class is the leaf and the direction together: it sees every label
    HiVES sees, but not the hierarchy.

    {check3f.sentence("Claim 3f")}

    {check4.sentence("Claim 4")}

    {check5.sentence("Claim 5")}
    """)
    return check3, check3f, check4, check5


@app.cell
def _(mo):
    mo.md(r"""
    ### The estimator recovers intensity (claim 1)

    Each replicate draws a database of items with uniform latent intensities, builds VIDB from pairwise windows
    judged by a panel of distorted simulated judges, and scores new items with one more judge. Baselines use the
    same windows: Bradley–Terry on the windows cut into pairs, the mean rank (midpoint of the neighbouring
    anchors), **TrueSkill** and the judge's direct rating averaged over the same number of prompts.

    TrueSkill [@herbrich2006trueskill] keeps a Gaussian belief $\mathcal N(\mu,\sigma^2)$ about the item's
    intensity and updates it after each game. For a game won against an anchor of intensity $I_a$ (its skill
    fixed, never updated), with performance noise $\beta$, $c^2=2\beta^2+\sigma^2$ and $t=(\mu-I_a)/c$,

    $$
    \mu\leftarrow\mu+\frac{\sigma^2}{c}\,v(t),\qquad \sigma^2\leftarrow\sigma^2\Big(1-\frac{\sigma^2}{c^2}\,w(t)\Big),
    \qquad v(t)=\frac{\phi(t)}{\Phi(t)},\quad w(t)=v(t)\,(v(t)+t),
    $$

    the mean and variance of the truncated-normal posterior (a lost game mirrors the signs). Our implementation
    cuts each ranked window into its $k-1$ item-against-anchor games and applies them one after another
    (sequential pairwise updates, not TrueSkill's factor-graph update of a ranked list), starting from
    $\mathcal N(0, 10^2/3)$ with $\beta=\sigma_0/2$, TrueSkill's own convention; the estimate is $\mu$.
    """)
    return


@app.cell
def _(cfg, run, vf):
    sims = run.cached("valueflow-sims", vf.sim_study, cfg, run.seed)
    return (sims,)


@app.cell
def _(cfg, plots, sims):
    plots.recovery_figure(sims, cfg)
    return


@app.cell
def _(cfg, mo, np, sims, vc):
    check1 = vc.claim1_recovery(sims, cfg)
    _t = {t: np.mean([r.temp[t][1] for r in sims]) for t in sims[0].temp}
    _d = {m: np.mean([r.mae[m][(cfg.k_main, cfg.m_main)] for r in sims]) for m in sims[0].mae}
    mo.md(f"""
    *Figure: Spearman correlation (left) and mean absolute error (right) of each estimator with the latent
    intensity, against the number of windows m (solid: k = {cfg.k_grid[0]}; dashed: k = {cfg.k_grid[-1]}).*

    The database's own error is {np.mean([r.vidb_mae for r in sims]):.2f} intensity points (Spearman
    {np.mean([r.vidb_rho for r in sims]):.3f}); the anchored estimate cannot be more accurate than its anchors.
    At (k, m) = ({cfg.k_main}, {cfg.m_main}) the mean absolute errors are
    {', '.join(f'{k} {v:.2f}' for k, v in _d.items())}; the direct rating is scored by this one judge, whose
    scale distortion it carries and the ranking estimators do not (claim 2 compares across judges). Temperature
    ablation (anchor utilities $I_a/s$): MAE {', '.join(f's = {t:g}: {v:.2f}' for t, v in _t.items())}.

    {check1.sentence("Claim 1")}
    """)
    return (check1,)


@app.cell
def _(cfg, mo, plots, sims):
    mo.md(f"*Table: every estimator on the same windows at k = {cfg.k_main} (means over {len(sims)} replicate(s), "
          "range in brackets).*\n\n" + plots.baseline_table(sims, cfg))
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Ranking against rating under judge distortions (claim 2)

    Several simulated judges each see the latent intensity through their own monotone distortion and offset. Each
    scores every new item twice: by a direct rating on the 21-point scale (averaged over m prompts) and by the
    anchored estimator (m windows against the database). We compare the variance of an item's score across
    judges and the share of items whose sign the judges do not agree on.
    """)
    return


@app.cell
def _(plots, sims):
    plots.rank_rate_figure(sims)
    return


@app.cell
def _(cfg, mo, np, sims, vc, vf):
    check2 = vc.claim2_rank_vs_rate(sims, cfg)
    _z = vf.experiments.ZSCORED
    _zcheck = vc.claim2_rank_vs_rate(sims, cfg, arm=_z)
    _ab = vc.claim2_rank_vs_rate(sims, cfg, arm=vf.experiments.ABSTAIN)
    _zsay = (": this simulation does not separate ranking from rating with batch normalisation, and what ranking "
             "adds here is scoring one item at a time." if _zcheck.passed else ".")
    mo.md(f"""
    *Figure: scores of the same items by every judge (one colour per judge) by rating (left) and by ranking
    (middle); right: across-judge variance and sign-flip rate, means over {len(sims)} replicate(s).*

    Agreement between judges alone can be bought without information: a scorer that says 0 for every item
    has no variance and no sign flips. The rule therefore also asks that ranking's error against the latent
    intensity be lower than rating's; on the abstaining scorer it gives *{_ab.verdict}*. A rating pipeline that
    z-scores each judge's ratings over the whole batch (which needs every judge to rate the same batch, centred
    on the neutral point as ours is by design) reaches across-judge variance
    {np.mean([r.var[_z] for r in sims]):.2f} and mean absolute error {np.mean([r.err[_z] for r in sims]):.2f}
    (ranking: {np.mean([r.var["ranking"] for r in sims]):.2f} and {np.mean([r.err["ranking"] for r in sims]):.2f});
    the same rule on that arm gives *{_zcheck.verdict}*{_zsay}

    {check2.sentence("Claim 2")}
    """)
    return (check2,)


@app.cell
def _(cfg, run, vf):
    text_eval, steering = run.cached("valueflow-texts", vf.text_studies, cfg, run.seed)
    return steering, text_eval


@app.cell
def _(mo):
    mo.md(r"""
    ### Is the evaluator monotone in intensity? (claim 6)

    Held-out texts of known level (subjects the database never saw) are scored by the anchored evaluator with
    the MiniLM projection judge, and with the keyword judge for comparison.
    """)
    return


@app.cell
def _(plots, text_eval):
    plots.monotone_figure(text_eval)
    return


@app.cell
def _(cfg, mo, text_eval, vc):
    check6 = vc.claim6_monotone(text_eval.level, text_eval.score, cfg)
    _kw = vc.claim6_monotone(text_eval.level, text_eval.keyword, cfg, judge="keyword judge")
    mo.md(f"""
    *Figure: anchored scores of held-out texts by their true level ({len(text_eval.values)} value(s)); boxes:
    quartiles, line: means.*

    {check6.sentence("Claim 6")}

    The same rule on the keyword judge's scores: {_kw.verdict} ({_kw.measured}).
    """)
    return (check6,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Steering a small language model with a planted asymmetry (claim 8)

    The small GPT is asked for every value at every level. For the planted values, its training texts at levels
    −1 and −2 were only weakly negative, so a working protocol must find $\Delta(-2)$ muted for exactly those
    values. Its texts are scored by the anchored evaluator with a **template reader plus a simulated judge**
    (the reader recovers the intensity a text states in our grammar; the simulated judge adds a judge's noise,
    without a scale distortion: a distorted judge makes the anchored scores regress unevenly on the two sides,
    which would add an asymmetry of the judge's own to the generator's) and, for comparison, with the MiniLM
    projection judge and the keyword scorer.
    """)
    return


@app.cell
def _(plots, steering):
    plots.steering_figure(steering)
    return


@app.cell
def _(cfg, mo, steering, vc):
    check8 = vc.claim8_planted(steering.scores, steering.values, steering.planted, cfg)
    _mini = vc.claim8_planted(steering.minilm, steering.values, steering.planted, cfg, scorer="MiniLM projection judge")
    _kw = vc.claim8_planted(steering.keyword, steering.values, steering.planted, cfg, scorer="keyword scorer")
    mo.md(f"""
    *Figure: left, Δ against the requested level per value (vermillion: planted); right, the asymmetry
    a = Δ(+2) + Δ(−2) with 95 % intervals. Final training loss {steering.loss[-1]:.3f} nats per token;
    {steering.refusals} refusal(s) detected (the small model has never seen one).*

    {check8.sentence("Claim 8")}

    With the MiniLM projection judge instead: {_mini.verdict}; with the keyword scorer: {_kw.verdict}.
    """)
    return (check8,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Multi-value steering and composition slopes (claim 7: run only on your own LLM)

    The paper also asks a model for several values at once, as a *value profile*, one bullet per value and
    level. The profile that the library builds for benevolence at +2 and hedonism at −2 reads:
    """)
    return


@app.cell
def _(mo, vf):
    mo.md("```text\n" + vf.profile_prompt({"benevolence": 2, "hedonism": -2}, "How would you spend a free Saturday?")
          + "\n```")
    return


@app.cell
def _(mo):
    mo.md(r"""
    For a pair $(c_1,c_2)$ asked at levels $(\ell_1,\ell_2)$, the effect achieved on each value,
    $\Delta_{c_i}(\ell_1,\ell_2)=\bar I_{c_i}(\ell_1,\ell_2)-\bar I_{c_i,0}$, is set against what additivity
    predicts, that value's single-value effect $\Delta_{c_i,\ell_i}$. The **composition slope** of $c_i$ is the
    least-squares slope (through the origin) of achieved on predicted effects over the 16 targets: 1 when
    composing leaves each effect as it was, below 1 when it attenuates. In conflicting targets (levels of
    opposite signs), the paper's strong-anchor dominance is a slope near 1 for the value asked at a positive
    level and near 0 for the other (our reading of "the slope shows additivity"; `composition_slopes` in the
    library). Our small model was trained on one value per text, so a profile is outside what it has seen:
    the composition study needs an instruction-following model. Claim 7 is therefore decided only when you
    run this chapter with your own model: set the parameters `endpoint_url` and `endpoint_model` (any
    OpenAI-compatible server) and the chapter asks it for every prosocial value at every level and for the 16
    profiles of one conflicting pair, and has the same model rank each answer among database texts of known
    intensity (the anchored evaluator). Give `endpoint_replay` a file name too and every answer is recorded
    there, keyed by the exact request, so that the run can be executed again without the server (the file
    alone; a request it does not hold stops the run with its key). Without these parameters, which is how the
    book is built, nothing is called and the row says so.
    """)
    return


@app.cell
def _(cfg, endpoint_model, endpoint_replay, endpoint_url, mo, run, vc, vf):
    _backends = vf.endpoint_backends(endpoint_url, endpoint_model, endpoint_replay)
    llm = None if _backends is None else vf.llm_steering_study(cfg, run.seed, *_backends)
    check7 = vc.claim7_llm_steering(llm, cfg)
    if llm is None:
        _out = mo.md(f"*No endpoint was given: claim 7 is {check7.verdict}.*")
    else:
        _rows = "\n".join(f"| {_v} | " + " | ".join(f"{llm.table[(_v, _l)]['delta']:+.2f}" if (_v, _l) in llm.table
                                                   else "–" for _l in (-2, -1, 1, 2)) + " |" for _v in llm.values)
        _out = mo.md(f"""
    *Steering effects Δ of {llm.generator}, scored with {llm.judge} ({len(llm.queries)} queries per level):*

    | value | Δ(−2) | Δ(−1) | Δ(+1) | Δ(+2) |
    |---|---|---|---|---|
    {_rows}

    {check7.sentence("Claim 7")}
    """)
    _out
    return (check7,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Value profiles of groups (the OpinionQA study, P3: formulas only, on synthetic input)

    The paper builds a value profile per demographic group and adds it to the prompt that predicts the group's
    OpinionQA answers. For one value, with $x_{gq}$ the intensity measured for group $g$ on query $q$ and
    $\delta_{gq}$ a HiVES relevance distance, the official code scores $b_{gq}=x_{gq}(1-\delta_{gq})^{\alpha}
    (|x_{gq}|/10)^{\beta}$ ($\alpha=1$, $\beta=0$), takes each group's divergence from the other groups on the same
    query as a z-score, $z_{gq}=(b_{gq}-\bar b_{-g,q})/s_q$ ($s_q$ the spread over all groups), keeps the five
    queries of largest $|z_{gq}|$, and averages the original intensities over them weighted by $1-\delta$. The
    survey data is not available here, so the table applies these formulas to **synthetic groups** (each with
    a shift planted on three queries of its own); it says nothing about OpinionQA.
    """)
    return


@app.cell
def _(mo, np, run, vf):
    _x, _d, _planted = vf.profile.synthetic_groups(seed=run.seed)
    _p = vf.profile.value_profile(_x, _d)
    _own = [sum(3 * _g <= _q < 3 * _g + 3 for _q in _p.selected[_g]) for _g in range(len(_planted))]
    _rows = "\n".join(f"| {_g + 1} | {_planted[_g]:+.1f} | {np.mean(_x[_g]):+.2f} | {_p.profile[_g]:+.2f} | "
                       f"{_own[_g]} of {len(_p.selected[_g])} |" for _g in range(len(_planted)))
    mo.md(f"""
    *Table (synthetic groups, not survey data): the planted shift, the group's plain mean intensity over all
    {_x.shape[1]} queries, its profile value, and how many of the five queries chosen are its own shifted ones.*

    | group | planted shift | mean over all queries | profile | own shifted queries chosen |
    |---|---|---|---|---|
    {_rows}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Move the window size k, the number of windows m, the judges' noise and scale distortion, and the anchor
    temperature s; the figure re-runs one simulation of the anchored estimator against the same judge's direct
    rating. Below it, pick a value and a level to read what the small model wrote and how it was scored.
    """)
    return


@app.cell
def _(mo, steering):
    k_pick = mo.ui.slider(2, 10, value=6, label="window size k")
    m_pick = mo.ui.slider(1, 20, value=3, label="windows m")
    noise_pick = mo.ui.slider(0.5, 6.0, step=0.5, value=1.5, label="judge noise")
    gamma_pick = mo.ui.slider(1.0, 3.0, step=0.25, value=2.0, label="distortion spread")
    temp_pick = mo.ui.slider(0.25, 4.0, step=0.25, value=1.0, label="temperature s")
    value_pick = mo.ui.dropdown(options=steering.values, value=steering.values[0], label="value")
    level_pick = mo.ui.dropdown(options={f"{_l:+d}": _l for _l in (-2, -1, 0, 1, 2)}, value="+2", label="level")
    mo.vstack([mo.hstack([k_pick, m_pick, noise_pick]), mo.hstack([gamma_pick, temp_pick]),
               mo.hstack([value_pick, level_pick])])
    return gamma_pick, k_pick, level_pick, m_pick, noise_pick, temp_pick, value_pick


@app.cell
def _(gamma_pick, k_pick, m_pick, noise_pick, plots, run, temp_pick, vf):
    _q, _est, _rate = vf.playground(k_pick.value, m_pick.value, noise_pick.value, gamma_pick.value, temp_pick.value,
                                    run.seed)
    plots.playground_figure(_q, _est, _rate, k_pick.value, m_pick.value, noise_pick.value, temp_pick.value)
    return


@app.cell
def _(level_pick, mo, steering, value_pick):
    _key = (value_pick.value, level_pick.value)
    _rows = "\n".join(f"| {_t} | {_s:+.1f} |" for _t, _s in
                      zip(steering.texts[_key][:8], steering.scores[_key][:8]))
    mo.md(f"""
    *The small model asked for {value_pick.value} at level {level_pick.value:+d} (first eight generations and
    their anchored scores):*

    | generation | score |
    |---|---|
    {_rows}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers; under each rule, the alternative it
    rejects. The paper's column quotes the project page where we read it, "not reached" otherwise.
    """)
    return


@app.cell
def _(ClaimsLedger, check1, check2, check3, check3f, check4, check5, check6, check7, check8, run):
    ledger = ClaimsLedger("valueflow", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check7, check8, check3f)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **Encoder.** The paper fine-tunes Qwen3-Embedding-0.6B for 450K + 50K steps. We keep MiniLM frozen and
      train a 384 × 384 residual head on its cached embeddings for {cfg.stage1_steps} + {cfg.stage2_steps}
      updates; the baseline "untuned MiniLM" is the head at initialisation, exactly. UniVar is not compared.
    - **Texts.** The paper's VIDB holds about 10K human-written texts per value from five corpora; ours are
      templated sentences with a known intensity, so the ground truth is exact and the language is narrow.
    - **Judges.** The paper's judges are LLMs; ours are a statistical simulator (claims 1, 2), a MiniLM
      projection judge (claim 6) and a template reader with simulated judge noise (claim 8). Nothing here is
      evidence about LLM judges; the paper's 85.3 % human agreement and its variance and sign-flip numbers are
      quoted, never compared.
    - **Generator.** The paper steers ten LLMs with persona prompts; we train a small GPT on control tokens.
      The prompt builders (strength cue, user texts, value profile), the composition slopes and two generators
      for a reader's own model (an OpenAI-compatible endpoint, a local causal LM) are implemented; the book runs
      neither. Claim 7 is decided only on a reader's endpoint (the chapter's `endpoint_url` parameter), with our
      reconstruction of the protocol: our own twelve queries, not the paper's 500, and the same model as judge.
    - **OpinionQA.** The profiling study (P3) needs the OpinionQA survey data, which is not available offline
      here (the book ships no copy and fetches nothing at run time), and LLMs. The profile-construction
      formulas are implemented (`profile.py`) and shown above on synthetic groups only.
    - **Baselines and backends.** TrueSkill is our own implementation with sequential pairwise updates against
      fixed anchors (not the factor-graph update of a ranked list, and not the `trueskill` package); the full
      Plackett–Luce refit that includes the new item is not run as a baseline. The endpoint judge is called
      only when a reader gives an endpoint.
    - **Reconstructions.** The database normalisation (neutral texts at 0, each side scaled so its 1st / 99th
      percentile is ∓10 / ±10), the value-vector orthogonality metric, the cross-theory retrieval metric and the
      decision thresholds (fixed in the config before the run) are ours.
    - **Convergence.** Rules comparing trained heads first pass a plateau test: training 50 % longer moves the
      compared metric by less than a third of the rule's margin, read back along the held-out curves.
    - **Scale.** At the smoke profile one HiVES replicate gives no interval and two simulation replicates give
      very wide ones, so those rows are inconclusive by design.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - W. Kim, S. Hyeon, J. Oh, J. Do. *VALUEFLOW: Toward Pluralistic and Steerable Value-based Alignment in Large Language Models.* ICML 2026, arXiv:2602.03160 [@kim2026valueflow].
    - S. H. Schwartz et al. *Refining the theory of basic individual values.* Journal of Personality and Social Psychology, 2012 [@schwartz2012refining].
    - J. Graham et al. *Moral Foundations Theory: the pragmatic validity of moral pluralism.* Advances in Experimental Social Psychology, 2013 [@graham2013mft].
    - R. L. Plackett. *The analysis of permutations.* Applied Statistics, 1975 [@plackett1975permutations].
    - R. Herbrich, T. Minka, T. Graepel. *TrueSkill™: a Bayesian skill rating system.* NIPS 2006 (proceedings 2007) [@herbrich2006trueskill].
    - P. Khosla et al. *Supervised Contrastive Learning.* NeurIPS 2020 [@khosla2020supcon].
    - N. Reimers, I. Gurevych. *Sentence-BERT.* EMNLP 2019 [@reimers2019sbert].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
