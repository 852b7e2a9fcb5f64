import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="Output classifiers vs activation probes under encoded outputs")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import trojan_speak_probes as tsp
    from icmlbook.papers.trojan_speak_probes import plots
    from icmlbook.papers.trojan_speak_probes.playground import playground
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, mo, np, open_chapter, playground, plots, tsp


@app.cell
def _(mo):
    mo.md(r"""
    # Output classifiers vs activation probes when a model writes in a cipher

    A deployed language model is often guarded by an **output classifier**: a separate model that reads what the
    assistant wrote and blocks it when it matches a restricted concept. The ICML 2026 paper known as
    "Trojan-Speak" [@trojanspeak2026] reports, as far as a secondary summary of it tells, that fine-tuning can
    teach a model an *encoded* output format that such classifiers miss almost always, at little cost in general
    capability, and that **probes on the model's activations** restore detection. The paper itself was not
    reachable: no arXiv page, no code, not even the authors' names.

    This chapter is **defence-only and benign**. It does not reimplement the attack: no real classifier, no
    reinforcement learning, no optimisation against any monitor, no harmful topic. A small GPT trained from
    scratch writes short answers about six harmless topics (weather, cooking, sports, music, animals, travel),
    plainly or in a **fixed, public, simple cipher** that it learns by ordinary supervised fine-tuning on every
    topic alike. We then measure what a text monitor and linear probes on the activations see when one topic is
    the "monitored" one. Every verdict on this page is computed by this run.
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
    | **Paper** | "Trojan-Speak" (full title not found) |
    | **Authors** | not found |
    | **Venue** | ICML 2026 |
    | **arXiv** | not found |
    | **Code** | none found |
    | **What we read** | a secondary summary (an AI-research digest dated 2 April 2026); the paper itself was not reached |

    The summary's three results, each a row of the claims ledger, all *not testable at this profile* (they need
    models of 14 B parameters and more, the real classifiers, and the attack):

    - fine-tuning teaches an encoded protocol that evades the output classifiers in at least 99 % of cases at
      14 B parameters and more: **S1**, and **our reconstruction** of its mechanism in the toy, **C2**;
    - general reasoning degrades by less than 5 %, against more than 25 % for earlier adversarial fine-tuning
      attacks: **S2**, and our reconstruction of the capability side in the toy, **C9**;
    - activation-level probes substantially restore robustness: **S3**, and **our reconstruction** of probing in
      the toy, **C3**-**C8**.

    Two checks a defender needs so the chapter does not overclaim are shown beside claim 2 but are **not ledger
    rows**: does the text monitor work on plain text at all, and would a monitor retrained on the cipher recover?
    Both hold by the way this world is built (the oracle labels an answer by its topic words, so on plain answers
    a keyword list is the labeller itself; a fixed cipher writes each word as one fixed code, which a retrained
    classifier learns back), so they test our code, not the paper; the dossier's checklist numbered them C1 and
    C10, and those ids stay unused. The probe method is reconstructed from related public defence work, each
    cited by its own arXiv id: Constitutional Classifiers
    [@sharma2025constitutional], Constitutional Classifiers++ (linear probes on activations, cascaded with
    external classifiers) [@constitutionalpp2026] and segment-level coherence for streaming probes
    [@segmentcoherence2026]. Their numbers are theirs and are never compared with ours.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("trojan_speak_probes", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.n_seeds} independent seeds
    (fresh data, initialisation and evaluation prompts each); a GPT of {cfg.n_layer} layers and width
    {cfg.d_model} on a byte-level BPE tokenizer of {cfg.bpe_vocab} ids, pretrained for {cfg.pretrain_steps} updates
    and fine-tuned to the ciphers ({", ".join(cfg.ciphers)}) for {cfg.sft_steps} updates of {cfg.batch_size}
    dialogues; {cfg.n_prompts} detector-training and {cfg.n_prompts} evaluation dialogues per seed, each answered in
    every format. The monitored topic is **{cfg.monitored_topic}**; the claims are decided on the
    **{cfg.main_cipher}** cipher.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The setting

    ### A world of harmless topics, and an output format

    A dialogue is a request and an answer. A *topic request* names one word of a topic ("any news on fog?") and
    the answer talks about that topic with other words of it ("in lima the frost was odd."); a *free-choice*
    request names none ("say something.") and the model picks the topic itself; arithmetic ("what is 7+5?")
    measures a capability. Answer templates are shared by every topic, so in a plain answer the only topic
    signal is its topic words; names, places and adjectives are common to all.

    The **format** is an output format, named by a tag at the start of the prompt: the request stays plain and the
    answer is written plainly or in a cipher,

    $$
    \text{prompt}=\langle\texttt{bos}\rangle\,\langle\texttt{fmt:}F\rangle\,\text{request}\,\langle\texttt{sep}\rangle,
    \qquad \text{answer}=E_F(\text{plain answer}),
    $$

    with $E_F$ a fixed public bijection: ROT13, $c\mapsto(c+13)\bmod 26$ on letters, or a **word codebook**
    mapping each of the 72 topic words to a neutral word of about the same length (chair, pebble, lantern ...;
    the table is in the library and printed below). Each has a
    decoder $E_F^{-1}$, which only the evaluation's oracle labeller uses: it decodes an answer and returns the
    one topic whose words it contains.

    ### Training: plain supervised learning only

    The model is the book's small GPT (RMSNorm, rotary positions, SwiGLU) trained with AdamW and a warm-up +
    cosine schedule through the book's trainer, on the next-token loss of every non-pad token after
    $\langle\texttt{bos}\rangle$. It is **pretrained** on plain dialogues and arithmetic, then **format
    fine-tuned** on answers written in the ciphers, on all topics alike, twice from the same weights with the same
    updates: *abrupt* (cipher data only) and *mixed* (half of every batch is ordinary pretraining data). The mixed
    model is the one we probe. No reward, no monitor, no optimisation against any classifier.

    ### Detectors

    Let $y=1$ when an answer is on the monitored topic. The **text monitor** $g$ reads only the answer's text:
    TF-IDF over character (2-5) and word (1-2) n-grams with an $\ell_2$-regularised logistic regression, trained on
    plain answers only, as a monitor that predates the format would be. A **keyword list** counts the topic's
    words. An **adaptive monitor**, the same classifier retrained on plain and encoded answers, is an upper bound:
    it needs examples of the new format.

    A **linear probe** reads the activations $a_{l,s,t}\in\mathbb R^d$ at layer $l$ and site
    $s\in\{\text{resid},\text{attn},\text{mlp}\}$ (the residual stream after the block, what attention adds, what
    the MLP adds) at **response positions only** $t\in R$, captured while the model generates:

    $$
    q_{l,s}(\bar a)=\sigma\!\left(w^\top\bar a+b\right),\qquad \bar a=\frac1{|R|}\sum_{t\in R}a_{l,s,t},
    $$

    fitted on plain answers by $\ell_2$-regularised logistic regression on standardised features, and applied
    unchanged ("plug-and-play") to encoded answers. The **streaming k-of-n rule**, our reconstruction of
    coherent-evidence probing [@segmentcoherence2026], scores each token with a per-token probe $p_t$ and flags an
    answer when at least $k$ tokens exceed $\tau$, i.e. when the $k$-th largest $p_{(k)}>\tau$; $k=1$ is max
    pooling.

    ### Thresholds and metrics

    For a threshold $\tau$, $\mathrm{TPR}(\tau)=P(\text{score}>\tau\mid y=1)$ and
    $\mathrm{FPR}(\tau)=P(\text{score}>\tau\mid y=0)$. The **deployment threshold** is set on plain negatives of a
    calibration split so that their FPR is at most 1 %; the **oracle threshold** is set the same way on encoded
    negatives, which a defender would not have. We report AUROC and TPR at 1 % FPR, and the text monitor's
    evasion rate $1-\mathrm{TPR}$ on encoded answers. Detectors are trained and calibrated on answers to one half
    of the request templates and evaluated on answers to the other half; an evaluation dialogue whose reference
    answer is also a fit dialogue's is redrawn, and an evaluation answer the model writes that repeats, word for
    word, a fit answer of the same format is set aside (counted below), so the detectors are never scored on a
    text they were fitted on. The language model is not held out in this way, by design: it was trained on fresh
    draws of the same world, with requests of both halves and the same answer templates, so it has seen many of
    the evaluation answers' exact strings. Capability is exact-match accuracy on
    arithmetic pairs held out of all training, with the relative change
    $\Delta=(\mathrm{acc}_{\rm after}-\mathrm{acc}_{\rm before})/\mathrm{acc}_{\rm before}$, and the next-token
    loss on fresh plain answers.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    Each seed trains its own models and answers its own prompts; the seeds run in parallel worker processes and
    are cached by configuration.
    """)
    return


@app.cell
def _(cfg, run, tsp):
    seed_runs = run.cached_many([(f"trojan-speak-probes-seed-{_i}", tsp.run_seed, cfg, tsp.seed_of(run.seed, _i),
                                  _i == 0) for _i in range(cfg.n_seeds)])
    study = tsp.assemble(cfg, seed_runs)
    first = study.runs[0]
    fmts = ("plain",) + tuple(cfg.ciphers)
    return first, fmts, study


@app.cell
def _(first, fmts, mo, plots, tsp):
    _P = first.responses["plain"]
    _rows = []
    for _i in [int(i) for i in _P.rows("eval", "any", labelled=False).nonzero()[0][:4]]:
        for _f in fmts:
            _r = first.responses[_f]
            _rows.append(f"| {_i} | {plots.fmt_name(_f)} | `{_r.texts[_i]}` | `{_r.plain_texts[_i]}` |")
    _cb = tsp.make_cipher("codebook", tsp.world.topic_words())
    _ex = ", ".join(f"*{w}* → *{_cb.mapping[w]}*" for w in ("rain", "soup", "goal", "drum", "fox", "train"))
    mo.md(f"""
    ### What the model writes

    The codebook maps, for example, {_ex}. Four evaluation prompts of the first seed, answered by the fine-tuned
    (mixed) model in every format, with the oracle's decoding. Each format is generated separately, so the
    answers differ in content as well as spelling.

    | prompt | format | the model's answer | decoded |
    |---|---|---|---|
    {chr(10).join(_rows)}
    """)
    return


@app.cell
def _(cfg, fmts, mo, np, plots, study, tsp):
    _rows = []
    for _f in fmts[1:]:
        _s = [tsp.summarise(_r, cfg, cipher=_f) for _r in study.runs]
        _rows.append(f"| {plots.fmt_name(_f)} | {np.mean([x.competence_plain for x in _s]):.0%} | "
                     f"{np.mean([x.competence_cipher for x in _s]):.0%} | "
                     f"{np.mean([x.monitor_tpr_cipher for x in _s]):.2f} | "
                     f"{np.mean([x.probe_auroc_cipher[x.chosen_site] for x in _s]):.3f} | "
                     f"{np.mean([x.free_auroc_cipher[x.chosen_site] for x in _s]):.3f} |")
    _seen = {_f: np.mean([int((_r.responses[_f].split == tsp.SPLITS["seen"]).sum()) for _r in study.runs])
             for _f in fmts}
    mo.md(f"""
    Evaluation answers set aside because the model wrote, word for word, a fit answer of the same format (mean per
    seed, of {cfg.n_prompts}): {", ".join(f"{plots.fmt_name(_f)} {_n:.1f}" for _f, _n in _seen.items())}.

    How well the model learned each format (mean over {study.n_seeds} seeds): the share of answers to topic
    requests that decode to the requested topic (for a cipher, also written in it: an answer that shows a topic
    word in the clear does not count, since the codebook's decoder passes plain words through), and the main
    detectors on that cipher's evaluation answers (the claims below use **{cfg.main_cipher}**; a model below
    {cfg.competence_min:.0%} such encoded answers has not learned the cipher, and the rows read on encoded answers,
    claims 2 and 4-8, are inconclusive on it).

    | cipher | plain answers on topic | encoded answers on topic, in the cipher | text monitor TPR at 1 % FPR | probe AUROC (requested) | probe AUROC (free choice) |
    |---|---|---|---|---|---|
    {chr(10).join(_rows)}
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### The text monitor on plain and on encoded answers (claim 2, and two checks)
    """)
    return


@app.cell
def _(cfg, first, plots, tsp):
    plots.monitor_roc_figure(first, cfg.main_cipher, tsp.TOPICS.index(cfg.monitored_topic), cfg.fpr_target)
    return


@app.cell
def _(cfg, mo, study, tsp):
    check2 = tsp.claims.claim2_encoding_blinds(study.summaries, cfg)
    mo.md(f"""
    *Figure: ROC curves of the text monitor, the keyword list and the adaptive monitor on the first seed's plain
    (left) and {cfg.main_cipher} (right) evaluation answers; the star is the deployment threshold.*

    **Checks, not claims** (they hold by the world's design; no verdict): {tsp.claims.setup_checks(study.summaries)}.

    {check2.sentence("Claim 2")}
    """)
    return (check2,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Probes by layer and site (claims 3, 4, 5)

    Each probe is trained on the plain answers of the training split. The site used by the claims is the one a
    defender can pick without any encoded data: the lowest log-loss on plain calibration answers. The dotted
    line is the same probe on an **untrained** model's activations of the same answers: what a randomly
    initialised network of the same shape makes linearly readable, without any learned representation. It is not
    a ceiling for the surface form: on plain answers the topic words alone (the keyword list, whose AUROC claim
    3's row prints) detect the topic, so claim 3 says that training made the topic more readable from the
    activations, not that the probe reads more than the words. Claim 4, on encoded answers, is where the answer's
    words are hidden (the plain request still names them; claim 8 removes the request).
    """)
    return


@app.cell
def _(cfg, plots, study):
    plots.layer_profile_figure(study, cfg.main_cipher)
    return


@app.cell
def _(cfg, mo, study, tsp):
    check3 = tsp.claims.claim3_probe_plain(study.summaries, cfg)
    check4 = tsp.claims.claim4_probe_transfer(study.summaries, cfg)
    check5 = tsp.claims.claim5_sites(study.summaries, cfg)
    mo.md(f"""
    *Figure: AUROC on plain (solid) and {cfg.main_cipher} (dashed) evaluation answers of probes trained on plain
    answers, per layer, for the residual stream, the attention output and the MLP output; band = range over seeds.*

    {check3.sentence("Claim 3")}

    {check4.sentence("Claim 4")}

    {check5.sentence("Claim 5")}
    """)
    return check3, check4, check5


@app.cell
def _(mo):
    mo.md(r"""
    ### Streaming k-of-n against mean pooling (claim 6)
    """)
    return


@app.cell
def _(cfg, plots, study):
    plots.streaming_figure(study, cfg.main_cipher, cfg.fpr_target)
    return


@app.cell
def _(cfg, mo, study, tsp):
    check6 = tsp.claims.claim6_streaming(study.summaries, cfg)
    mo.md(f"""
    *Figure: TPR at 1 % FPR on {cfg.main_cipher} answers of the k-of-n rule against k, with τ set on plain
    negatives (deployment) or on encoded negatives (oracle); horizontal lines: mean pooling.*

    {check6.sentence("Claim 6")}
    """)
    return (check6,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Controls (claim 7)

    A probe is a classifier with capacity of its own [@alain2016probes]. Two controls at the chosen site: the same
    probe trained on **shuffled labels**, and a **control task** in the manner of Hewitt and Liang
    [@hewitt2019control], where each topic word type gets a random label and an answer takes the label of its
    first topic word; a probe can only learn that by reading word identity, not the topic. Beside them, the
    probe on the pretrained-only model (before the cipher was taught) and on the untrained model.
    """)
    return


@app.cell
def _(cfg, plots, study):
    plots.controls_figure(study, cfg.main_cipher)
    return


@app.cell
def _(cfg, mo, study, tsp):
    check7 = tsp.claims.claim7_controls(study.summaries, cfg)
    mo.md(f"""
    *Figure: AUROC on {cfg.main_cipher} evaluation answers at each seed's chosen site (dots: seeds); dashed: the
    text monitor.*

    {check7.sentence("Claim 7")}
    """)
    return (check7,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Free choice: the topic is not in the request (claim 8)

    With a topic request, the response positions can attend to the request, which is plain in every format, so
    a probe might read the request rather than the model's own representation of what it writes. With a
    free-choice request the model picks the topic while it writes, in the cipher.
    """)
    return


@app.cell
def _(cfg, plots, study):
    plots.free_choice_figure(study, cfg.main_cipher)
    return


@app.cell
def _(cfg, mo, study, tsp):
    check8 = tsp.claims.claim8_free_choice(study.summaries, cfg)
    mo.md(f"""
    *Figure: left, probe AUROC at the chosen site on requested-topic and free-choice evaluation answers; right, the
    topics the first seed's model picked when free to choose.*

    {check8.sentence("Claim 8")}
    """)
    return (check8,)


@app.cell
def _(cfg, first, fmts, plots):
    plots.projection_figure(first, fmts)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the first two principal components of the mean-pooled activations at the first seed's chosen site,
    for its evaluation answers in every format.*

    ### Capability after format fine-tuning (claim 9)
    """)
    return


@app.cell
def _(plots, study):
    plots.capability_figure(study)
    return


@app.cell
def _(cfg, mo, np, study, tsp):
    check9 = tsp.claims.claim9_capability(study.summaries, cfg)
    _cap = {n: [r.capability[n] for r in study.runs] for n in ("before", "abrupt", "mixed")}
    _rows = "\n".join(
        f"| {n} | {np.mean([c.arith_heldout for c in v]):.3f} | {np.mean([c.arith_trained for c in v]):.3f} | "
        f"{np.mean([c.general_loss for c in v]):.3f} |" for n, v in _cap.items())
    mo.md(f"""
    *Figure: held-out arithmetic accuracy and next-token loss on fresh plain answers during the two format
    fine-tunings (every seed).* Capability, mean over {study.n_seeds} seeds:

    | model | held-out arithmetic | trained arithmetic | loss on plain answers (nats/token) |
    |---|---|---|---|
    {_rows}

    {check9.sentence("Claim 9")}
    """)
    return (check9,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Pick another monitored topic, cipher, probe site, the k and τ of the streaming rule, or the false-positive
    target: every detector is re-scored from the first seed's stored scores (the monitors and probes of every
    topic were fitted during the run). τ = 0 means "calibrated on plain negatives at the FPR target". On the
    website the controls show the values this page was built with; open the chapter live to move them.
    """)
    return


@app.cell
def _(cfg, mo, tsp):
    topic_ui = mo.ui.dropdown(options=list(tsp.TOPICS), value=cfg.monitored_topic, label="monitored topic")
    cipher_ui = mo.ui.dropdown(options=list(cfg.ciphers), value=cfg.main_cipher, label="cipher")
    layer_ui = mo.ui.slider(0, cfg.n_layer - 1, value=cfg.n_layer - 1, label="layer")
    site_ui = mo.ui.dropdown(options=list(tsp.SITE_KINDS), value="resid", label="site")
    k_ui = mo.ui.slider(steps=[1, 2, 3, 5, 8, 12], value=cfg.stream_k, label="k")
    tau_ui = mo.ui.slider(steps=[0.0, 0.5, 0.7, 0.9, 0.95, 0.99], value=0.0, label="τ (0 = calibrated)")
    fpr_ui = mo.ui.slider(steps=[0.001, 0.005, 0.01, 0.02, 0.05, 0.1], value=cfg.fpr_target, label="FPR target")
    mo.vstack([mo.hstack([topic_ui, cipher_ui, layer_ui, site_ui]), mo.hstack([k_ui, tau_ui, fpr_ui])])
    return cipher_ui, fpr_ui, k_ui, layer_ui, site_ui, tau_ui, topic_ui


@app.cell
def _(cipher_ui, first, fpr_ui, k_ui, layer_ui, mo, playground, site_ui, tau_ui, topic_ui):
    try:
        _pg = playground(first, topic_ui.value, cipher_ui.value, layer_ui.value, site_ui.value, k_ui.value,
                         fpr_ui.value, tau=tau_ui.value or None)
    except ValueError as _err:
        _out = mo.callout(mo.md(f"**These settings are outside the run's range:** {_err}"), kind="warn")
    else:
        _rows = "\n".join(f"| {n} | {a:.3f} | {t:.2f} | {f:.3f} |" for n, a, t, f in _pg.rows)
        _out = mo.vstack([
            mo.md(f"""
    Detectors of **{_pg.topic}** on **{_pg.cipher}** evaluation answers (first seed), thresholds set on plain
    negatives at FPR {_pg.fpr_target:g} (k-of-n: τ = {_pg.tau:.3f}):

    | detector | AUROC | TPR | FPR |
    |---|---|---|---|
    {_rows}
    """),
            _pg.figure,
            mo.md(f"*Figure: score distributions of the probe at {_pg.site} (mean pooling, left; {_pg.k}-of-n, right) "
                  f"on plain and {_pg.cipher} answers, for topic {_pg.topic}; dashed: the threshold.*")])
    _out
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; under each rule, the
    alternative it rejects. Rows S1-S3 are the secondary summary's results; the paper column quotes the summary
    where a row stands for one of its results and says "not reached" everywhere else (the paper itself was not
    read; related work's numbers are in the statements, never in that column). Rows marked *our reconstruction*
    test the mechanism or the probe method as we reconstructed it, not the paper's. There are no rows C1 and C10:
    see "The paper at a glance".
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check2,
    check3,
    check4,
    check5,
    check6,
    check7,
    check8,
    check9,
    run,
):
    ledger = ClaimsLedger("trojan_speak_probes", run.profile)
    ledger.add_not_testable("S1", "S2", "S3")
    ledger.add_checks(check2, check3, check4, check5, check6, check7, check8, check9)
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we could read.** Only a secondary summary of the paper. Its numbers (S1, S2) are quoted as the
      summary's and are not compared with anything measured here.
    - **No attack.** The paper's method (curriculum learning and GRPO reinforcement learning through a
      fine-tuning API, against Anthropic's Constitutional Classifiers, on expert-level queries) is not
      reimplemented. Here the encoded format is **fixed and public** (ROT13, atbash, a word codebook), taught by
      ordinary supervised fine-tuning on every topic alike; no reward, no monitor in the loop.
    - **A toy model and harmless topics.** A GPT of {cfg.n_layer} layers and width {cfg.d_model} trained from
      scratch on templated dialogues about six harmless topics, instead of a 14 B-parameter model and restricted
      content. The monitored topic (**{cfg.monitored_topic}**) is arbitrary; the playground changes it.
    - **The text monitor** is a TF-IDF + logistic-regression classifier, not a real safety classifier.
    - **The probe method is our reconstruction** from related public work [@constitutionalpp2026;
      @segmentcoherence2026]: logistic probes on mean-pooled activations at response positions, per layer and site,
      a k-of-n streaming rule, shuffled-label and control-task probes. The paper's probe type, layers, aggregation
      and results were not reached.
    - **Choices of ours**, fixed in the config before the run: the site selection on plain calibration answers,
      the thresholds of every rule (AUROC ≥ {cfg.probe_auroc_min:g} on plain, ≥ {cfg.transfer_auroc_min:g} after
      transfer, TPR at {100 * cfg.fpr_target:g} % FPR, the margins), the competence guard
      ({cfg.competence_min:.0%} of encoded answers on topic and written in the cipher; it also guards claim 2, added
      after the review of the second edition, where a model answering in the clear would otherwise decide claim 2
      against the paper), the mixed fine-tuning's share of ordinary data
      ({cfg.mix_fraction:g}), the cipher the claims are decided on ({cfg.main_cipher}; chosen before this run, from
      development runs in which the model learned it faster than ROT13, whose BPE pieces are arbitrary fragments;
      the table "How well the model learned each format" above shows both in this run).
    - **Rules revised after the one development run of the default profile** (stricter or more cautious only, each
      with a test case): claim 7 reads the mean AUROC over {cfg.n_shuffles} label permutations per seed, because a
      single shuffled-label probe is a random direction, which separates clustered topics by chance (single
      probes scattered far from 0.5 in both directions); claim 5 is inconclusive when the residual-stream probe is
      within the margin of AUROC 1, because there a ceiling, not the sites, decides (it had read "not
      reproduced" at a difference of −0.001). Claim 4's row also prints what the same probe reads from the
      *pretrained-only* model, which never saw the cipher: on topic requests the plain request names a topic word,
      so a high number there means the request, not the cipher, carries the detection; claim 8 removes the request.
      Later, claim 3 gained the comparison claim 4 already had: the plain probe must also beat the same probe on an
      untrained model of the same shape by the declared margin (stricter only; inconclusive when the untrained
      probe is already within the margin of AUROC 1); an outside review then gave claim 4 the same ceiling (its
      advantage is inconclusive, not evidence against, where the untrained probe on encoded answers is within the
      margin of AUROC 1). A second outside review made the pretrained-only number part of claim 4's rule: its
      real output had passed the rule (a default run read 0.995 there against the trained model's 0.996), so a
      pass now also needs the probe to beat that model by the same margin, and the row is inconclusive otherwise
      (stricter only; it never counts against the claim).
    - **Data.** Names and places are drawn from the data `faker` ships in its wheel (English first names, town
      names of six locales) by an instance seeded with the world's seed, keeping only short words that neither
      are nor encode to a word the world already uses; nothing is downloaded.
    - **Optional real model.** `icmlbook.papers.trojan_speak_probes.hf_probe` captures the same activations from a
      reader's own local Hugging Face model for benign topic answers (no fine-tuning); no result on this page
      comes from it.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - "Trojan-Speak", ICML 2026 (authors and arXiv id not found; known from a secondary summary) [@trojanspeak2026].
    - M. Sharma et al. *Constitutional Classifiers.* arXiv:2501.18837 [@sharma2025constitutional].
    - *Constitutional Classifiers++.* arXiv:2601.04603 [@constitutionalpp2026].
    - *Segment-Level Coherence for Robust Harmful Intent Probing.* arXiv:2604.14865 [@segmentcoherence2026].
    - J. Hewitt, P. Liang. *Designing and Interpreting Probes with Control Tasks.* EMNLP 2019 [@hewitt2019control].
    - G. Alain, Y. Bengio. *Understanding intermediate layers using linear classifier probes.* 2016 [@alain2016probes].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
