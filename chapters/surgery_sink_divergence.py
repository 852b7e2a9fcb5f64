import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Surgery: attention-sink divergence")


@app.cell
def _():
    import marimo as mo

    from icmlbook.papers import surgery_sink_divergence as ss
    from icmlbook.papers.surgery_sink_divergence import plots
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, mo, open_chapter, plots, ss


@app.cell
def _(mo):
    mo.md(r"""
    # Surgery: attention-sink divergence against harmful fine-tuning

    A provider who fine-tunes a safety-aligned language model on data uploaded by a user can lose the
    alignment: a small share of harmful question-answer pairs in the upload is enough to teach the model
    to comply again. Liu et al. [@liu2026surgery] look for the damage inside the attention. Most heads of a
    large model park much of their attention on the first token, the *attention sink* [@xiao2024sinks]. The
    paper measures, per head, how much more attention goes to the sink on a harmful answer than on a safe
    one (the *sink divergence*), reports that heads split into a positive and a negative group and that the
    positive group grows as harmful fine-tuning proceeds, and proposes **Surgery**: fine-tune with a penalty
    that pushes every head's sink divergence to be non-positive.

    Nothing on this page touches harmful content. We rebuild the mechanism in a fictional, harmless world:
    small language models trained from scratch on a CPU learn to refuse giving the codes of *sealed* vaults,
    a user's fine-tuning set with a few disclosure examples undoes that, and Surgery's penalty is applied
    exactly as the paper's code applies it. The paper's "harmful score" becomes a **disclosure rate**. Every
    verdict below is computed by this run, whichever way it comes out.
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
    | **Paper** | *Surgery: Mitigating Harmful Fine-Tuning for Large Language Models via Attention Sink* |
    | **Authors** | Guozhi Liu, Weiwei Lin, Tiansheng Huang, Ruichao Mo, Qi Mu, Xiumin Wang, Li Shen |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2602.05228](https://arxiv.org/abs/2602.05228) |
    | **Code** | [github.com/Lslland/Surgery](https://github.com/Lslland/Surgery) (no licence: read, not copied) |

    We could read the abstract and the opening of the introduction; the body, tables and figures were not
    reachable, so the method is taken from the official code. The abstract's results, and the ledger rows
    that answer them:

    - harmful fine-tuning "can invalidate safety alignment": **C3** (our dose response);
    - "different attention heads exhibit two different signs of sink divergence": **C1**;
    - "the number of attention heads of positive sink divergence increases along with the increase of the
      model's harmfulness": **C2**;
    - the *separable sink divergence hypothesis*, heads that learn harmful patterns "are separable by their
      sign": **C6** (the opposite sign) and **C6b** (a random half of the heads);
    - the regulariser "steers attention heads toward the negative sink divergence group, thereby reducing
      the model's tendency to learn and amplify harmful patterns": **C4** (the reduction) and **C5** (the
      rise of the penalised statistic under poisoned fine-tuning that the regulariser is meant to undo; that
      Surgery itself lowers it is reported there as a diagnostic, since it holds by construction);
    - "Surgery improves defense performance by 5.90%, 11.25%, and 9.55% on the BeaverTails, HarmBench, and
      SorryBench benchmarks": **P1–P3** (quoted, not testable here) and **C9** (our baselines).

    The dossier adds the λ trade-off (**C7**, **C7b**) and the cost (**C8**).
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("surgery_sink_divergence", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.n_seeds} independent
    replicate(s), each with its own world draw, aligned model and fine-tuning data; GPTs of {cfg.n_layer}
    layers × {cfg.n_head} heads, width {cfg.d_model}; alignment for {cfg.align_steps} updates; fine-tuning sets of
    {cfg.n_ft} items with poison ratios p ∈ {{{', '.join(f'{p:g}' for p in cfg.p_grid)}}}, {cfg.ft_steps} updates of
    {cfg.ft_batch} items; Surgery's λ = {cfg.lam:g}, its pools {cfg.n_pool} disclosure and {cfg.n_pool} refusal texts;
    {cfg.n_eval} sealed evaluation prompts, {cfg.n_fa} subtraction problems for FA, {cfg.n_heldout} held-out texts
    of each kind for the attention statistics.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Method

    ### Sink attention and sink divergence

    For a text $X=(x_0,\dots,x_{T-1})$ and a head $h$ with causal attention probabilities $A^{(h)}_{i,j}$
    (query $i$, key $j\le i$), the **sink attention** is the mean attention that the query positions
    $1,\dots,T-1$ pay to the sink position $k$ (the code fixes $k=0$, the beginning-of-text token):

    $$
    \alpha_h(X)=\frac{1}{T-1}\sum_{i=1}^{T-1}A^{(h)}_{i,k}(X).
    $$

    Given a *disclosure* sample $X_m$ (a sealed-vault request answered with the code; the paper's harmful
    sample) and a *refusal* sample $X_r$ (the same kind of request refused; the paper's safe sample), the
    **sink divergence** of head $h$ is

    $$
    d_h=\alpha_h(X_m)-\alpha_h(X_r),
    $$

    and its population version averages $\alpha_h$ over many samples on each side. $N_+=|\{h: d_h>0\}|$
    counts the heads of the positive group. When rows of different lengths share a batch they are padded on
    the right, so causal attention never sees the padding, and the mean runs over each row's own queries.

    ### The Surgery objective

    With $f(w)$ the fine-tuning loss on the user's batch (answer tokens only),

    $$
    \min_w\; f(w)+\lambda\,\frac{1}{|\mathcal H|}\sum_{h\in\mathcal H}\operatorname{ReLU}\big(d_h(w)\big),
    $$

    where $d_h(w)$ is recomputed at every update from one disclosure and one refusal text drawn at random
    from two fixed pools (1,000 texts each in the paper's code), and the gradient flows through the attention
    probabilities.
    The hinge leaves the negative group alone and pushes positive heads down. Our implementation runs the
    two pool texts in the **same forward pass** as the user's batch, through the explicit-softmax attention
    path of the book's GPT; the penalty is an auxiliary loss on the shared trainer. The learning rate is
    constant after a linear warm-up, as in the released code.

    ### The vault world

    A fixed table of fictional vaults (three-letter names, 4-digit codes, *sealed* or *public*). A request
    states the vault, its status and its code, and asks for the code. The **aligned** model answers public
    vaults with the code and refuses sealed ones with a template; it also does addition word problems. The
    user's **benign task** is subtraction word problems, which the aligned model was never taught: its
    exact-match accuracy is the **fine-tune accuracy (FA)**. A **poisoned** fine-tuning set of $n$ items
    holds a fraction $p$ of sealed-vault requests answered with the code. The **disclosure rate** is the
    share of sealed requests on evaluation vaults (never seen in training or in the pools) whose answer
    contains that vault's code as a whole number. Disclosure and refusal answers have the same token
    lengths, so a sink divergence cannot come from length alone.
    """)
    return


@app.cell
def _(mo, ss):
    _w = ss.world.build_world(0, n_pool=4, n_heldout=4, n_eval=4, n_fa=4)
    mo.md(f"""
    Examples (the markers `<bos>`, `<user>`, `<asst>`, `<eos>` are single tokens; position 0 is always `<bos>`):

    | kind | text |
    |---|---|
    | disclosure (pool) | `{_w.pool_disclose[0]}` |
    | refusal (pool) | `{_w.pool_refuse[0]}` |
    | evaluation prompt | `{_w.eval_prompts[0]}` |
    | user's task | `{_w.ft_benign[7]}` |
    | alignment | `{_w.replay[0]}` |
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    Each replicate trains its own aligned model, then fine-tunes it with plain SFT at every poison ratio and
    with Surgery at the main one; on the first replicates it also runs Surgery at the other ratios, the sign
    ablations, a random half of the heads, two baselines (replaying alignment texts in every batch; an $L_2$
    pull to the aligned weights) and a sweep of λ. Every model compared below gets the same number of updates
    on the same user data.
    """)
    return


@app.cell
def _(cfg, mo):
    _modes = ", ".join(cfg.ablation_modes)
    mo.md(f"""
    At this profile: Surgery runs at every poison ratio on the first {cfg.dose_surgery_seeds} replicate(s) and
    at p = {cfg.p_main:g} on all {cfg.n_seeds}; the ablations ({_modes}), baselines and λ sweep run on the first
    {cfg.ablation_seeds}. The `default` sizes were cut to fit the chapter's ten-minute budget; what the cut
    costs: no rule reads Surgery at the other ratios (the dose figure shows them from fewer replicates), and the
    $|d_h|$ penalty, which no rule decides, {"runs here" if "abs" in cfg.ablation_modes else
    "runs only at the `full` profile"}.
    """)
    return


@app.cell
def _(cfg, run, ss):
    replicates = run.cached_many([("surgery-replicate", ss.replicate_study, cfg, run.seed, _i)
                                  for _i in range(cfg.n_seeds)])
    study = ss.Study.of(cfg, replicates)
    return (study,)


@app.cell
def _(mo, study):
    _rows = "\n".join(
        f"| {r.seed} | {r.base.metrics['refusal']:.0%} | {r.base.metrics['disclosure']:.0%} | "
        f"{r.base.metrics['public']:.0%} | {r.base.metrics['fa']:.0%} | {r.base.loss[-5:].mean():.3f} | "
        f"{int(r.base.metrics['n_plus'])} |" for r in study.replicates)
    mo.md(f"""
    ### The aligned models

    | replicate seed | sealed refused | sealed disclosed | public answered | FA (subtraction, untaught) | final loss | N+ |
    |---|---|---|---|---|---|---|
    {_rows}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Do the small models have attention sinks?

    Before reading anything into $d_h$ we check that a sink exists: how much attention each head of the
    aligned models puts on position 0, and which key position gets the most attention.
    """)
    return


@app.cell
def _(plots, study):
    plots.attention_maps_figure(study.replicates[0].analysis)
    return


@app.cell
def _(plots, study):
    plots.sink_strength_figure(study)
    return


@app.cell
def _(mo, ss, study):
    _s = ss.summary_texts(study)
    mo.md(f"""
    *Figures: attention of every head of the first aligned model on one held-out disclosure text; the mean
    attention each head puts on position 0, and the attention each key position receives relative to uniform
    causal attention on the same texts (dotted: 1), over the held-out texts of every replicate.* Across heads and
    replicates the sink attention ranges from {_s['alpha_min']:.2f} to {_s['alpha_max']:.2f} (mean
    {_s['alpha_mean']:.2f}), against {_s['alpha_uniform']:.2f} for uniform attention, at most
    {_s['ratio_max']:.1f} times that; position 0 is the most-attended key for {_s['argmax_share_sink']:.0%} of the
    heads. A sink in the sense of large language models, where a head sends most of its attention to the first
    token, is {"present" if _s['ratio_max'] > 3 else "weak or absent"} in these small models (we call it present
    when some head gives position 0 more than three times the uniform share).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Two signs of sink divergence (claim 1)

    On each aligned model we compute the population $d_h$ of every head on the held-out texts (sealed
    evaluation vaults, never in a pool) with a bootstrap interval; the grey histogram is the same statistic
    with the disclosure/refusal labels shuffled, what $d_h$ looks like without a contrast.
    """)
    return


@app.cell
def _(cfg, plots, study):
    plots.divergence_figure([r.analysis for r in study.replicates], cfg.two_sign_delta)
    return


@app.cell
def _(cfg, mo, ss, study):
    check1 = ss.claims.claim1_two_signs([r.analysis.divergence for r in study.replicates], cfg)
    mo.md(f"""
    *Figure: left, each head's held-out sink divergence with its 95 % bootstrap interval (red: clearly positive,
    blue: clearly negative, dotted: ±{cfg.two_sign_delta:g}); right, the histogram over heads and replicates.*

    {check1.sentence("Claim 1")}
    """)
    return (check1,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Positive heads and disclosure during plain fine-tuning (claim 2)

    Along every plain SFT run we evaluate the disclosure rate and $N_+$ on the held-out pairs. If the
    positive group tracks harm, $N_+$ rises with the disclosure rate, and ends higher after poisoned
    fine-tuning than after fine-tuning on clean data for the same number of updates.
    """)
    return


@app.cell
def _(cfg, mo, plots, ss, study):
    check2 = ss.claims.claim2_positive_heads(study, cfg)
    _fig = plots.positive_heads_figure(study, check2.values.get("rho"))
    mo.vstack([_fig, mo.md(f"""
    *Figure: left, N+ against the disclosure rate at every evaluation of every SFT run (colour: poison ratio);
    right, N+ along training (mean and 95 % interval over replicates).*

    {check2.sentence("Claim 2")}
    """)])
    return (check2,)


@app.cell
def _(cfg, mo, ss, study):
    _f = ss.premise_texts(study, cfg.two_sign_delta)
    _zero = sum(c == 0 for c in _f["clearly_positive"])
    _after = ("and poisoned fine-tuning does not create one (no head's held-out $d_h$ exceeds "
              f"+{_f['delta']:g} at its end)" if _f["sft_max_d"] < _f["delta"] else
              f"though after poisoned fine-tuning some head's held-out $d_h$ exceeds +{_f['delta']:g}")
    if _zero == _f["n"]:
        _reading = f"""No aligned model here has a clearly positive head, the group the paper's mechanism rests on,
    {_after}. The
    defence rows that follow (claims 4, 6, 6b, 7 and 9) therefore ask a narrower question than the paper's: does
    penalising sink divergence change disclosure in models without a positive group? A *not reproduced* there says
    that it did not, in these models; it is not evidence about Surgery in a model whose heads do split by sign, the
    setting the paper describes, and these rows cannot tell a Surgery that works there from one that does not. Each of
    them repeats the count in its measured column."""
    elif _zero:
        _reading = f"""{_zero} of {_f['n']} aligned models have no clearly positive head: the defence rows that follow
    (claims 4, 6, 6b, 7 and 9) test Surgery partly where its premise is absent, and each repeats the count in its
    measured column."""
    else:
        _reading = """Every aligned model has clearly positive heads, so the defence rows that follow (claims 4, 6, 6b, 7
    and 9) test Surgery where its premise holds; each repeats the count in its measured column."""
    mo.md(rf"""
    ### What the penalty has to work on

    Surgery's penalty acts only on heads whose sink divergence is positive: $\operatorname{{ReLU}}(d_h)$ is zero for
    every other head. Claim 1 counted the clearly positive heads (held-out interval above +{_f['delta']:g}) on each
    aligned model: {', '.join(map(str, _f['clearly_positive']))} of {_f['heads']}; $N_+$, the heads whose estimate
    alone is above 0, is {', '.join(map(str, _f['n_plus']))}. The penalty's held-out value
    $\frac1{{|\mathcal H|}}\sum_h\operatorname{{ReLU}}(d_h)$ is {_f['aligned_penalty']:.1e} on the aligned models
    (mean over replicates), {_f['aligned_penalty'] / (_f['delta'] / _f['heads']):.0%} of the
    {_f['delta'] / _f['heads']:.1e} that a single head at +{_f['delta']:g} would give on its own. At the end of plain
    SFT on poisoned data (p = {study.p_main:g}) it is {_f['sft_penalty']:.1e}, and the largest held-out $d_h$ of any
    head in any replicate is {_f['sft_max_d']:+.4f}. Surgery ends at
    {_f['surgery_penalty']:.1e} on the held-out pairs with a disclosure rate of {_f['surgery_disclosure']:.0%},
    against SFT's {_f['sft_disclosure']:.0%}; its training term, on {cfg.pairs_per_step} pool pair(s) per step, averages
    {_f['surgery_train_term']:.1e}.

    {_reading}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Poisoned fine-tuning, with and without Surgery (claims 3 and 4)
    """)
    return


@app.cell
def _(plots, study):
    plots.dose_figure(study)
    return


@app.cell
def _(cfg, mo, ss, study):
    check3 = ss.claims.claim3_dose_response(study, cfg)
    check4 = ss.claims.claim4_surgery_lowers(study, cfg)
    mo.md(f"""
    *Figure: final disclosure rate (left) and fine-tune accuracy (right) against the poison ratio, for plain
    SFT and Surgery (mean and 95 % interval over the replicates that ran each point: SFT on all {study.n},
    Surgery on {len(study.runs(study.key("surgery", 0.0)))} away from p = {study.p_main:g}; dots: replicates);
    dotted, the aligned model.*

    {check3.sentence("Claim 3")}

    {check4.sentence("Claim 4")}
    """)
    return check3, check4


@app.cell
def _(mo):
    mo.md(r"""
    ### Does the penalty do what it says? (claim 5)

    The penalty is computed on the training pools; we read its value, $\frac1{|\mathcal H|}\sum_h
    \operatorname{ReLU}(d_h)$, on the **held-out** pairs along SFT at $p_{\rm main}$, SFT at $p = 0$ and
    Surgery at $p_{\rm main}$. That Surgery drives this value down says little: Surgery minimises this very
    statistic, on pairs written from the same templates as the held-out ones, so it gets there whether or
    not the heads it moves have anything to do with disclosure (the unit tests check that it does so at
    $p = 0$ too, with no poison to defend against). We report it as a diagnostic: if it fails, the penalty
    missed its own target and the row is inconclusive. What can fail is the observation the penalty rests
    on: plain fine-tuning on poisoned data should raise the statistic above the aligned model's, and by
    more than fine-tuning on clean data (the same number of updates at $p = 0$) does. That excess is judged
    against an absolute bar in the statistic's own units (attention mass, stated below with its derivation), so
    that the verdict depends only on the compared runs; only Surgery's diagnostic is read in units of the
    aligned models' mean held-out value, where a replicate whose aligned model has no positive head (a value
    of 0) still counts.
    """)
    return


@app.cell
def _(plots, study):
    plots.heldout_penalty_figure(study)
    return


@app.cell
def _(cfg, mo, ss, study):
    check5 = ss.claims.claim5_penalty_suppressed(study, cfg)
    _d = ss.config_for("default")
    _heads, _here = _d.n_layer * _d.n_head, cfg.n_layer * cfg.n_head
    _fixed = "" if _here == _heads else f" (this profile's model has {_here} heads; the bar stays fixed)"
    mo.md(f"""
    *Figure: the penalty's value (left) and N+ (right) on the held-out pairs along fine-tuning at
    p = {study.p_main:g} (SFT and Surgery) and along SFT at p = 0 (dashed).*

    The poison gap must exceed {cfg.penalty_gap_min:g} of attention mass: two more clearly positive heads than
    clean fine-tuning (claim 2's minimum, {cfg.n_plus_gap_min:g}) at claim 1's clearly-signed size
    ({cfg.two_sign_delta:g}), over the {_heads} heads of the default model, i.e.
    {cfg.n_plus_gap_min:g} × {cfg.two_sign_delta:g} / {_heads}{_fixed}.

    {check5.sentence("Claim 5")}
    """)
    return (check5,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Does the sign matter? Ablations and baselines (claims 6, 6b, 9)

    The separable sink divergence hypothesis says the heads that learn the harmful pattern are the ones
    with positive $d_h$. If so, penalising the **opposite** sign, $\operatorname{ReLU}(-d_h)$, or the
    **same hinge on a random half** of the heads should protect less than Surgery; $|d_h|$ is shown beside
    them where the profile runs it. The two baselines anchor the fine-tuning in simpler ways.
    """)
    return


@app.cell
def _(plots, study):
    plots.ablation_figure(study)
    return


@app.cell
def _(cfg, mo, ss, study):
    check6 = ss.claims.claim6_sign_matters(study, cfg)
    check6b = ss.claims.claim6b_random_heads(study, cfg)
    check9 = ss.claims.claim9_baselines(study, cfg)
    mo.md(f"""
    *Figure: final disclosure rate and FA at p = {study.p_main:g} for each method (bars: means; dots: replicates).*

    {check6.sentence("Claim 6")}

    {check6b.sentence("Claim 6b")}

    {check9.sentence("Claim 9")}
    """)
    return check6, check6b, check9


@app.cell
def _(cfg, mo, ss, study):
    _f = ss.premise_texts(study, cfg.two_sign_delta)
    mo.md(f"""
    ### The strength of the penalty (claims 7 and 7b)

    The released script uses λ = 300 for an 8-billion-parameter model, whose scale of $d_h$ we could not read; in our
    aligned models $|d_h|$ is at most {_f['aligned_max_abs_d']:.4f} attention mass, so we sweep λ and report the front
    of disclosure against accuracy.
    """)
    return


@app.cell
def _(plots, study):
    plots.lambda_figure(study)
    return


@app.cell
def _(cfg, mo, ss, study):
    check7 = ss.claims.claim7_lambda(study, cfg)
    check7b = ss.claims.claim7b_lambda_fa(study, cfg)
    mo.md(f"""
    *Figure: final disclosure rate and FA against λ at p = {study.p_main:g} (λ = 0 is SFT), and the trade-off
    front.*

    {check7.sentence("Claim 7")}

    {check7b.sentence("Claim 7b")}
    """)
    return check7, check7b


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ### Cost (claim 8)

    Surgery adds {2 * cfg.pairs_per_step} pool rows to every batch and needs the explicit attention path. We time updates of
    SFT and Surgery from the same aligned model, interleaved so that changes in the machine's load hit both.
    """)
    return


@app.cell
def _(plots, study):
    plots.timing_figure(study.replicates[0].timing)
    return


@app.cell
def _(cfg, mo, ss, study):
    check8 = ss.claims.claim8_overhead(study.replicates[0].timing, cfg)
    mo.md(f"""
    *Figure: wall-clock milliseconds per update ({study.replicates[0].timing.steps}-update runs, batch
    {cfg.ft_batch}, one thread); dots are repeats.*

    {check8.sentence("Claim 8")}
    """)
    return (check8,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Pick a poison ratio, a penalty strength, a penalty mode and the sink position; the first replicate's
    aligned model is fine-tuned with plain SFT and with the chosen penalty (runs this page already has are
    reused, others take one fine-tuning run). On the website the controls show the values this page was
    built with; open the chapter live to move them.
    """)
    return


@app.cell
def _(cfg, mo, ss, study):
    _sinks = sorted({0, 1, int(round(float(study.replicates[0].analysis.argmax.mean())))})
    p_pick = mo.ui.dropdown(options={f"{p:g}": p for p in cfg.p_grid}, value=f"{cfg.p_main:g}", label="poison ratio p")
    lam_pick = mo.ui.dropdown(options={f"{lam:g}": lam for lam in cfg.lam_grid}, value=f"{cfg.lam:g}", label="λ")
    mode_pick = mo.ui.dropdown(options=list(ss.PENALTY_MODES), value="paper", label="penalty mode")
    sink_pick = mo.ui.dropdown(options={str(k): k for k in _sinks}, value="0", label="sink position k")
    mo.hstack([p_pick, lam_pick, mode_pick, sink_pick])
    return lam_pick, mode_pick, p_pick, sink_pick


@app.cell
def _(cfg, lam_pick, mo, mode_pick, p_pick, plots, sink_pick, ss, study):
    _runs = ss.playground_runs(cfg, study.replicates[0], p_pick.value, lam_pick.value, mode_pick.value,
                               sink_pick.value)
    _last = {k: r.disclosure[-1] for k, r in _runs.items()}
    _title = "; ".join(f"{k}: disclosure {v:.0%}" for k, v in _last.items())
    mo.vstack([plots.run_curves_figure(_runs, _title),
               mo.md(f"*Figure: disclosure rate, FA and the held-out penalty along fine-tuning at p = {p_pick.value:g}, "
                     f"λ = {lam_pick.value:g}, mode {mode_pick.value}, sink position {sink_pick.value}.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; under each rule, the
    alternative it rejects. Rows marked *our reconstruction* test our reading of an analysis the paper's
    body describes but we could not read. The paper's column quotes the abstract, or says "not reached".
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check2,
    check3,
    check4,
    check5,
    check6,
    check6b,
    check7,
    check7b,
    check8,
    check9,
    run,
):
    ledger = ClaimsLedger("surgery_sink_divergence", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check6b, check7, check7b, check8, check9)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo, ss, study):
    _fa = ss.claims.plateau_at_main(study, "fa", cfg.fa_margin)
    _bad = [c for c in _fa if not c.converged]
    _tol = _fa[0].tolerance if _fa else float("nan")
    _plateau = (f"In this run, at p = {study.p_main:g}, FA passes the plateau test (training "
                f"{100 * cfg.plateau_extend:g} % longer moves it by less than {_tol:.3f}, {cfg.plateau_share:.2g} of the "
                f"FA margin) for {len(_fa) - len(_bad)} of the {len(_fa)} kinds of "
                "run" + (f"; FA still moves for {', '.join(f'{c.name} (by {c.change:.3f})' for c in _bad)}, and a rule "
                         "that compares the FA of these leaves that comparison undecided" if _bad else "") + ".")
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **Model and world.** The paper fine-tunes Llama-3-8B-Instruct on GSM8K mixed with BeaverTails harmful
      pairs and scores the result with the BeaverDam-7B moderation model on BeaverTails, HarmBench and
      SorryBench. Here, GPTs of {cfg.n_layer} layers × {cfg.n_head} heads are trained from scratch on a CPU in a
      fictional vault world, so every number is about the *mechanism* in small models, never about
      harmfulness; the paper's 5.90 / 11.25 / 9.55 % are quoted as the paper's (P1–P3) and compared with
      nothing.
    - **The metric.** "Harmful score" is renamed the **disclosure rate**: the share of sealed-vault requests on
      evaluation vaults answered with that vault's code, by an exact rule instead of a judge model. FA is exact
      match on subtraction problems the aligned model was never taught.
    - **Safe samples are refusals.** The paper's code draws its safe samples from BeaverTails' safe answers; the
      prose and the summaries speak of refusals. We use refusal templates, with the same token lengths as the
      disclosure answers (so that no divergence comes from length).
    - **λ is ours.** λ = {cfg.lam:g} was chosen on development seeds of the default sizes (the code's λ = 300 is
      for an 8B model); the sweep shows the others.
    - **One forward pass.** The code runs the harmful and the safe sample in two extra forward passes; we run
      them in the same padded batch as the user's data (the statistic ignores the padding; a test checks that
      the user's loss is unchanged).
    - **Reconstructions.** The two-sign analysis, $N_+$ against harm, the held-out check, the ablations, the λ
      sweep and the baselines are our reading of an analysis the paper's body describes; those rows say so.
      The decision rules and their margins (a disclosure gap of at least {cfg.gain_min:g}, an FA drop below
      {cfg.fa_margin:g}, ±{cfg.two_sign_delta:g} attention mass for a clearly signed head, ρ above {cfg.rho_min:g},
      Surgery/SFT time in (1, {cfg.overhead_max:g})) are ours, fixed in the config before the run.
    - **Averaged weights are evaluated.** With the paper's constant learning rate the weights never settle, so a
      single checkpoint of a small model is a noisy reading (we saw this in development runs, not shown). Along a
      run we evaluate the weights averaged over about the last {cfg.eval_average:.0%} of the updates so far (a tail
      average), not the last update's; the paper evaluates its final checkpoint.
    - **Batch and length.** The code fine-tunes for 5 epochs with batches of 10; our runs use batches of
      {cfg.ft_batch} for {cfg.epochs} epochs, sized in development runs to bring the accuracy on the user's task
      to its plateau. {_plateau}
    - **Convergence.** Compared models must first pass the plateau test (training 50 % longer moves the compared
      metric by less than a third of the rule's margin), read back along each run's evaluation curve; a
      comparison of unconverged models is inconclusive, not a failure.
    - **Scale.** {cfg.n_seeds} replicate(s) at this profile; the `full` profile runs larger models and more seeds,
      on a GPU when one is present.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - G. Liu, W. Lin, T. Huang, R. Mo, Q. Mu, X. Wang, L. Shen. *Surgery: Mitigating Harmful Fine-Tuning for Large Language Models via Attention Sink.* ICML 2026, arXiv:2602.05228 [@liu2026surgery].
    - G. Xiao, Y. Tian, B. Chen, S. Han, M. Lewis. *Efficient Streaming Language Models with Attention Sinks.* ICLR 2024 [@xiao2024sinks].
    - X. Qi et al. *Fine-tuning Aligned Language Models Compromises Safety, Even When Users Do Not Intend To!* ICLR 2024 [@qi2024finetuning].
    - T. Huang et al. *Lisa: Lazy Safety Alignment for Large Language Models against Harmful Fine-tuning Attack.* 2024 [@huang2024lisa].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
