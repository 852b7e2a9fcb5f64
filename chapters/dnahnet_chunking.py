import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="dnaHNet: tokenizer-free genomic modelling with dynamic chunking")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import dnahnet_chunking as dh
    from icmlbook.papers.dnahnet_chunking import claims, experiments as ex, plots
    from icmlbook.papers.dnahnet_chunking.data import decode
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, claims, decode, dh, ex, mo, np, open_chapter, plots


@app.cell
def _(mo):
    mo.md(r"""
    # dnaHNet: letting a genomic language model choose its own tokens

    A language model of DNA has to decide what one input unit is. A fixed tokeniser (k-mers, BPE)
    cuts the sequence wherever its vocabulary says, across codons and motifs; a model of single
    nucleotides keeps every base but pays for sequences three times longer than a codon-level one.
    dnaHNet [@shah2026dnahnet] takes the third road opened by H-Net [@hwang2025hnet]: a small encoder
    reads nucleotides, a learned router decides where chunks begin, only the chunk starts go through
    the expensive main network, and a decoder maps its outputs back to one prediction per nucleotide.
    The whole thing is trained end to end on next-nucleotide prediction, with a loss that holds the
    compression near a target.

    This chapter builds that machine at a size that trains on two CPU cores, **dnaHNet-mini
    (H-Net-style, reconstruction)**, on real bacterial DNA shipped inside the `pyrodigal` wheel and on
    a synthetic genome whose genes we planted, and asks of it what the paper claims: does the
    compression hold, do the gradient paths matter, do learned chunks beat fixed ones, is it cheaper
    and better than a nucleotide Transformer or an isotropic Mamba at equal compute, and do its
    boundaries find codons and genes without being told. Every verdict below is computed by this run.
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
    | **Paper** | *dnaHNet: A Scalable and Hierarchical Foundation Model for Genomic Sequence Learning* |
    | **Authors** | Arnav Shah, Junzhe Li, Parsa Idehpour, Adibvafa Fallahpour, Brandon Wang, Sukjun Hwang, Bo Wang, Patrick D. Hsu, Hani Goodarzi, Albert Gu |
    | **Venue** | ICML 2026 (arXiv 2602.10603) |
    | **Code** | none found; the parent method H-Net has official MIT code (goombalab/hnet), read for the mechanism |
    | **What was read** | the abstract and the introduction's opening; summaries and a third party's transcription of Table 5 |

    The abstract's results: dynamic chunking "compresses raw nucleotides into latent tokens adaptively,
    balancing compression with predictive accuracy"; pretrained on prokaryotic genomes dnaHNet
    "outperforms leading architectures including StripedHyena2 in scaling and efficiency"; recursive
    chunking "yields quadratic FLOP reductions, enabling >3× inference speedup over Transformers"; and
    on zero-shot tasks it predicts protein-variant fitness and gene essentiality better "while
    automatically discovering hierarchical biological structures without supervision". **dnaHNet's
    layer layout, widths, target ratios, context and optimiser were not reached**; ours are choices,
    and the chunking follows H-Net's equations and code semantics.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("dnahnet_chunking", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    _data = (f"a synthetic genome of {cfg.synthetic_length:,} nt" if cfg.genome == "synthetic" else
             f"the first {cfg.real_length:,} nt of the *C. diphtheriae* NCTC11397 chromosome")
    mo.md(f"""
    {run.computed_with()} on {_data}, the last
    {cfg.holdout:.0%} held out; windows of {cfg.context} nt, batches of {cfg.batch}, a training budget of
    {cfg.steps} updates of dnaHNet-mini (widths {cfg.widths[0]}→{cfg.widths[1]}, target N = {cfg.ratio:g}) that
    every arm spends in FLOPs; {cfg.seeds} replicates of the main arms, {cfg.mamba_seeds} of the isotropic
    Mamba, {cfg.ablation_seeds} of the ablations and of the two-stage model (target N = {cfg.ratios2[0]:g}, {cfg.ratios2[1]:g}).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Why a fixed tokeniser cuts across codons

    A protein-coding gene is read three bases at a time from its start codon. A k-mer tokeniser starts
    counting at the beginning of the window, which knows nothing of where the gene starts; unless k is
    a multiple of three *and* the window happens to start in frame, most of its cuts fall inside
    codons, and a single substitution changes which tokens the model sees. The figure draws a stretch
    of a real gene from the held-out region with its codons (below) and 6-mer tokens (above).
    """)
    return


@app.cell
def _(cfg, ex, run):
    corpus = run.cached("dnahnet-corpus", ex.prepare_corpus, cfg, run.seed)
    return (corpus,)


@app.cell
def _(cfg, ex, run):
    main_arms = run.cached("dnahnet-main-arms", ex.train_group, cfg, run.seed, "main")
    return (main_arms,)


@app.cell
def _(cfg, ex, run):
    mamba_arms = run.cached("dnahnet-mamba-arms", ex.train_group, cfg, run.seed, "mamba")
    return (mamba_arms,)


@app.cell
def _(cfg, ex, run):
    ablation_arms = run.cached("dnahnet-ablation-arms", ex.train_group, cfg, run.seed, "ablations")
    return (ablation_arms,)


@app.cell
def _(ablation_arms, cfg, corpus, ex, main_arms, mamba_arms, run):
    arms = {**main_arms, **mamba_arms, **ablation_arms}
    analyses = ex.analyse(cfg, corpus, arms, run.seed)
    return analyses, arms


@app.cell
def _(corpus, decode, plots):
    _g = next(g for g in corpus.heldout.genes if g.strand == 1 and g.begin >= 5)
    _lo = _g.begin - 5
    plots.tokeniser_figure(decode(corpus.heldout.seq[_lo:_lo + 64]), 5, k=6)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: 64 nt of a held-out gene with its codon boundaries (below) and the cuts of a fixed 6-mer
    tokeniser (above); the title counts the cuts that fall inside a codon.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Dynamic chunking, one stage

    The encoder's states $\hat x_t$ enter a **router** with two learned matrices $W_q, W_k$, both
    initialised to the identity. A boundary is likely where consecutive states disagree:
    $$
    p_t=\operatorname{clip}_{[0,1]}\Big(\tfrac12\big(1-\cos(W_q\hat x_{t-1},\,W_k\hat x_t)\big)\Big),\qquad p_1=1,\qquad b_t=\mathbb 1[p_t\ge\tfrac12].
    $$

    **Chunking** keeps the positions with $b_t=1$ in order (a stable sort puts them first; a mask marks
    each row's valid chunks), and the **main network** (causal Transformer blocks of the book's language-model
    lab) runs on this sequence, $L/N$ long instead of $L$. If its width is larger, a learned pad vector is
    appended to every chunk and cut off again afterwards. On the way back, a **smoothing** recurrence over
    chunks blends each output with the previous one by the router's confidence,
    $$
    \bar z_c=P_c\,z_c+(1-P_c)\,\bar z_{c-1},\qquad P_c=\operatorname{clip}(p_{t_c},10^{-4},1-10^{-4}),
    $$
    computed as a parallel scan over affine maps (log-depth, tested against a per-position loop); every
    nucleotide then reads its chunk's value by the index $\sum_{k\le t}b_k-1$ (**upsampling**), and the
    decoder's input is the **confidence-weighted residual**
    $$
    h_t=\tilde z_t\cdot\mathrm{STE}(c_t)+W_\mathrm{res}\hat x_t,\qquad c_t=\max(p_t,1-p_t),
    $$
    where STE is 1 in the forward pass and passes the gradient to $c_t$, and $W_\mathrm{res}$ starts at
    zero. Two paths carry the language-model loss back into the router: $P_c$ in the smoothing and
    $c_t$ through the STE. Each is removed in an ablation below.

    Everything is causal: the router looks at $t-1$ and $t$, chunk $c$'s output depends on chunks up to
    $c$, and position $t$ reads the chunk that began at or before $t$. A test perturbs later nucleotides
    and checks that no earlier logit moves.

    **The ratio loss.** With $F$ the fraction of positions that are boundaries (a hard count, no gradient)
    and $G$ the mean of $p_t$,
    $$
    \mathcal L_\text{ratio}=\frac{N}{N-1}\Big((N-1)FG+(1-F)(1-G)\Big),
    $$
    added with weight $\alpha$ per stage. Its gradient in $G$ is $\frac{N}{N-1}(NF-1)$: it pushes
    probabilities down when there are more than $L/N$ boundaries and up when there are fewer, and along
    $F=G$ it is smallest, equal to 1, at $1/N$.
    """)
    return


@app.cell
def _(cfg, plots):
    plots.ratio_loss_figure(cfg.ratio)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the ratio loss over the boundary fraction F and the mean boundary probability G (left) and
    along F = G (right), for the chapter's target ratio N.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## What we train

    - **dnaHNet-mini**: embedding → encoder (gated causal convolution blocks, Mamba's block without the
      selective scan) → router, chunk → main network (Transformer blocks) → smoothing, upsampling,
      residual → decoder → next-nucleotide head; per-stage learning-rate multipliers as in H-Net.
    - **two-stage dnaHNet-mini**: the main network of the first stage is itself a stage (recursion),
      so the Transformer sees $L/(N_0N_1)$ chunks.
    - **Nucleotide Transformer**: the book's GPT on single nucleotides, about as many parameters.
    - **Isotropic Mamba**: a stack of Mamba blocks [@gu2023mamba] on single nucleotides, no chunking: a causal
      convolution, then the selective state-space recurrence
      $h_t=e^{\Delta_t A}\odot h_{t-1}+\Delta_t B_t x_t$, $y_t=C_t h_t+D x_t$ with input-dependent
      $\Delta_t, B_t, C_t$, gated by $\mathrm{silu}(z_t)$. Our own block, computed in blocks of positions with a
      log-depth scan across blocks and its backward pass written as the same recurrence run backwards in time;
      a test checks it against `mambapy`'s reference block with the same weights (values and gradients).
    - **Fixed stride**: dnaHNet-mini with a boundary every $N$ nucleotides (the same compression, no
      router, no ratio loss).
    - **Ablations**: a fixed router ($W_q, W_k$ frozen at the identity), no smoothing ($P=1$), no STE
      ($h_t=\tilde z_t+W_\mathrm{res}\hat x_t$).

    Every arm gets the **same number of updates and the same training-FLOP budget** by an analytic
    counter (forward FLOPs per sequence × 3 × batch per update): every arm runs the same number of
    updates, and an arm that costs more per window reads fewer windows per update (its batch is dnaHNet-mini's
    times the ratio of their forward FLOPs, rounded up, so the rounding favours the costlier baseline). Before
    the contract's second edition an arm that cost more got fewer updates instead (the Transformer 2.8×
    fewer at the default profile). **Tuning effort is the same for every arm: none.** All arms use the one
    learning rate chosen in the chapter's first version, with the same warm-up and cosine schedule; no arm's
    rate was swept, so a rate that suits one architecture better than another is a confound we have not
    removed. A chunking arm's updates are counted at its target compression; where its router compresses
    less, it spends more than counted, so claims 5 and 5b read dnaHNet-mini's learning curve at the FLOPs of
    the compression it realised.

    **Converged before compared.** Each model keeps its weights at {T}/(1 + {e}) of its updates as well as at
    the end; the rows that read trained models first check, by a plateau test declared in the config, that
    training {e:.0%} longer moved the compared number (the compression, a phase contrast, an AUROC, a mean
    likelihood drop, and since session 12 the held-out bits per nucleotide of every arm that claims 2, 3, 5
    and 5b compare) by less than a third of the rule's margin. A row whose models fail it is *inconclusive
    at this scale (not converged)*, never *not reproduced*.
    """.replace("{T}", "T").replace("{e:.0%}", "50 %").replace("{e}", "½"))
    return


@app.cell
def _(arms, plots):
    plots.curves_figure(arms)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: held-out bits per nucleotide against training FLOPs, one line per replicate of each arm.*
    """)
    return


@app.cell
def _(analyses, arms, cfg, claims, run):
    markov_ref = analyses.markov_reference()
    check5 = claims.claim5(arms, cfg, run.seed, markov_ref)
    check5b = claims.claim5b(arms, cfg, run.seed, markov_ref)
    check3 = claims.claim3(arms, cfg, run.seed, markov_ref)
    check2 = claims.claim2(arms, cfg, run.seed, markov_ref)
    return check2, check3, check5, check5b, markov_ref


@app.cell
def _(analyses, arms, check2, check3, check5, check5b, markov_ref, mo):
    _rows = "\n".join(f"| {a} | {len(rs)} | {rs[0].params:,} | {rs[0].steps} | {getattr(rs[0], 'batch', 0) or '—'} | "
                      f"{sum(r.bpn for r in rs) / len(rs):.4f} | "
                      f"{', '.join(f'{c:.2f}' for c in rs[0].compression) or '—'} |"
                      for a, rs in arms.items())
    _head = ("| arm | replicates | parameters | updates | windows per update | held-out bits/nt (mean) | L/L′ (first "
             "replicate) |\n|---|---|---|---|---|---|---|\n")
    _best = min(analyses.markov, key=analyses.markov.get)
    _mk = (f"For reference, k-mer statistics alone: the best order-k Markov chain (k = 0…{max(analyses.markov)}, "
           f"fitted on the training region, scored on the same held-out windows) reaches {markov_ref:.4f} bits/nt at "
           f"k = {_best}; the order-0 chain {analyses.markov[0]:.4f}.")
    mo.md("\n\n".join([_head + _rows, _mk, check5.sentence("Matched FLOPs (C5)"),
                         check5b.sentence("Matched FLOPs, against Mamba (C5b)"),
                         check3.sentence("Learned vs fixed stride (C3)"), check2.sentence("Ablations (C2)")]))
    return


@app.cell
def _(arms, cfg, plots):
    plots.compression_figure(arms, cfg.ratio, cfg.ratios2)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: realised compression L/L′ on held-out DNA along training, per stage, with the targets dotted.*
    """)
    return


@app.cell
def _(arms, cfg, claims, mo):
    check1 = claims.claim1(arms, cfg)
    check1b = claims.claim1b(arms, cfg)
    mo.md(f"""
    {check1.sentence("Compression (C1)")}

    {check1b.sentence("Two stages (C1b)")}
    """)
    return check1, check1b


@app.cell
def _(mo):
    mo.md(r"""
    ## Where the boundaries fall

    On the held-out region, the genes are the generator's own (synthetic genome) or called by
    pyrodigal [@larralde2022pyrodigal] trained on the training region (real genome): annotations
    independent of the model. Inside forward-strand genes each position has a codon phase (first,
    second or third base of its codon); if the router has found the reading frame, the boundary rate
    differs across phases. Codon positions also differ in composition, so a router that reacted only to the local dinucleotide would show some phase contrast
    too: as a control, we predict each position's boundary rate from its dinucleotide $(x_{t-1},x_t)$
    alone (the track-wide rate of that dinucleotide), and from its trinucleotide $(x_{t-2},x_{t-1},x_t)$,
    which carries codon usage, and compare the contrasts. The router's own view is local too: two causal
    convolutions of width 4 and the comparison of neighbouring states make each decision a function of
    the last eight nucleotides, so the control asks how much of that window's use goes beyond
    two- and three-letter composition. We also compare the rate within 3 nt of start and stop codons with
    the region's rate.
    """)
    return


@app.cell
def _(analyses, corpus, plots):
    _g = next((g for g in corpus.heldout.genes if g.begin > 200), corpus.heldout.genes[0])
    _lo = max(0, _g.begin - 150)
    plots.track_figure(analyses.track_p, analyses.track_b, corpus.heldout.genes, _lo,
                       min(len(analyses.track_p), _lo + 600))
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Figure: the outer stage's boundary probability $p_t$ along 600 nt of held-out DNA, the boundaries as
    ticks, and the called genes per strand below.*
    """)
    return


@app.cell
def _(analyses, claims, cfg, mo, plots, run):
    check6 = claims.claim6(analyses, cfg)
    check6b = claims.claim6b(analyses, cfg)
    check6c = claims.claim6c(analyses, cfg, run.seed)
    check6d = claims.claim6d(analyses, cfg)
    _fig = plots.phase_figure(analyses.phase, analyses.enrichment)
    mo.vstack([_fig, mo.md("*Figure: boundary rate by codon position inside forward-strand genes (left) and its "
                           "enrichment at start and stop codons over the region's rate (right, 95 % intervals).*"),
               mo.md(f"""
    {check6.sentence("Codon phase (C6)")}

    {check6c.sentence("Beyond composition (C6c)")}

    {check6b.sentence("Gene edges (C6b)")}

    **Two stages.** The abstract says the model discovers *hierarchical* biological structure. Our
    reading of that sentence, which is ours and not the paper's analysis: each stage of the two-stage model
    should place its boundaries by the reading frame, beyond what a gene-blind chunker with the same
    compressions gets (a boundary every {cfg.ratios2[0]:g} nt outside, every {cfg.ratios2[0] * cfg.ratios2[1]:g}
    nt inside). Its inner stage's boundaries are a subset of the outer stage's by construction, so we do
    not count that nesting as a finding.

    {check6d.sentence("Hierarchy (C6d)")}
    """)])
    return check6, check6b, check6c, check6d


@app.cell
def _(mo):
    mo.md(r"""
    ## Zero-shot proxies

    The paper scores gene essentiality (DEG) and protein-variant fitness (MaveDB); neither dataset is
    here, so we ask the same kind of question of our genomes. **Coding-knockout proxy**: write the stop
    cassette `TAATAATAATAGTGA` over 15 nt starting 12 nt after a start codon (in the gene's orientation),
    or over 15 nt inside an intergenic gap, and score $\log p(\mathrm{WT})-\log p(\mathrm{knockout})$ over
    the whole window; a model that knows genes should be more surprised in genes (AUROC of coding against
    intergenic). **SNV-class proxy**: single substitutions in genes, classed synonymous, missense or
    nonsense by the bacterial genetic code (Biopython's table 11 [@cock2009biopython]), scored the same
    way. These are proxies, not the paper's tasks.
    """)
    return


@app.cell
def _(analyses, claims, cfg, mo, plots, run):
    check7 = claims.claim7(analyses, cfg, run.seed)
    check7b = claims.claim7b(analyses, cfg, run.seed)
    check8 = claims.claim8(analyses, cfg, run.seed)
    check8b = claims.claim8b(analyses, cfg, run.seed)
    _fig = plots.zero_shot_figure(analyses)
    _ex = analyses.extrapolation
    _len = "; ".join(f"{plots.NAMES[a]} {e['within']:.3f} bits/nt inside the training length and {e['beyond']:.3f} "
                     f"past it" for a, e in _ex.items())
    mo.vstack([_fig, mo.md("*Figure: zero-shot proxies: the log-likelihood drop of a stop-cassette knockout in coding "
                           "and intergenic windows (left) and the mean drop per SNV class (right), for both models.*"),
               mo.md(f"""
    Knockout windows are {cfg.ko_window:,} nt, SNV windows {cfg.zs_window:,} nt; the models were trained on
    {cfg.context}-nt windows and read each window whole, so they run past their training length. On held-out
    windows of {cfg.ko_window:,} nt: {_len}.

    {check7.sentence("Knockout proxy (C7)")}

    {check7b.sentence("Knockout proxy, against the Transformer (C7b)")}

    {check8.sentence("SNV classes (C8)")}

    {check8b.sentence("SNV classes, against the Transformer (C8b)")}
    """)])
    return check7, check7b, check8, check8b


@app.cell
def _(mo):
    mo.md(r"""
    ## Cost against length

    The main network's attention cost per nucleotide grows with the number of chunks it sees, $L/N$
    per stage, so the analytic FLOPs of attention fall by $N^2$ per stage; the encoder and decoder stay
    linear in $L$. What counts on a machine is wall time, with the chunking's own overhead (routing,
    sort, gathers, scan) included: we time one forward pass of the trained dnaHNet-mini and the trained
    Transformer at each length, on this machine, best of a few repeats. The abstract credits the
    *recursion* with the saving, so the two-stage model is timed beside them (the three models take turns
    within each repeat, so a burst of load slows one repeat of one model rather than one model throughout),
    and its ratio to the one-stage model is a row of its own (C4b).
    """)
    return


@app.cell
def _(arms, cfg, ex):
    timing = ex.timing_study(cfg, arms)
    return (timing,)


@app.cell
def _(arms, cfg, claims, mo, plots, timing):
    check4 = claims.claim4(timing, cfg, arms)
    check4b = claims.claim4b(timing, cfg, arms)
    mo.vstack([plots.timing_figure(timing),
               mo.md("*Figure: forward time per nucleotide (left, wall clock on this machine) and analytic FLOPs per "
                     "nucleotide (right) against the sequence length.*"),
               mo.md(check4.sentence("Speed (C4)")), mo.md(check4b.sentence("Recursion (C4b)"))])
    return check4, check4b


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Choose a model and a place in the held-out region: the cell reads that stretch with the trained
    model and draws its boundary probabilities over the genes (for the two-stage model, its inner
    stage's boundaries mapped back to nucleotides). On the website the controls show the values this
    page was built with; open the chapter live to move them.
    """)
    return


@app.cell
def _(cfg, corpus, mo):
    model_pick = mo.ui.dropdown(options=["dnahnet", "two_stage (outer)", "two_stage (inner)", "fixed_router",
                                         "no_smoothing", "no_ste", "stride"], value="dnahnet", label="model")
    ratio_pick = mo.ui.dropdown(options=[str(n) for n in sorted({2.0, cfg.ratio, 4.0, 6.0})], value=str(cfg.ratio),
                                label="target N (dnahnet; another value trains a model, cached)")
    start_slider = mo.ui.slider(start=0, stop=max(0, len(corpus.heldout.seq) - 600), step=300, value=0,
                                label="region start (nt)")
    mo.vstack([mo.hstack([model_pick, ratio_pick]), start_slider])
    return model_pick, ratio_pick, start_slider


@app.cell
def _(arms, cfg, corpus, ex, mo, model_pick, plots, ratio_pick, run, start_slider):
    import dataclasses as _dc
    _name = model_pick.value.split(" ")[0]
    _stage = 1 if "inner" in model_pick.value else 0
    _N = float(ratio_pick.value)
    _cfg, _res = cfg, arms[_name][0]
    if _name == "dnahnet" and _N != cfg.ratio:
        _cfg = _dc.replace(cfg, ratio=_N)
        _res = run.cached("dnahnet-ratio", ex.train_for_ratio, cfg, run.seed, _N)
    _lo = int(start_slider.value)
    _seq = corpus.heldout.seq[_lo:_lo + 600 + cfg.context]
    _p, _b = ex.track_of(_cfg, _res, _seq, _stage)
    _genes = [type(g)(g.begin - _lo, g.end - _lo, g.strand) for g in corpus.heldout.genes]
    mo.vstack([plots.track_figure(_p, _b, _genes, 0, min(600, len(_p)), f" — {model_pick.value}, N = {_N:g}"),
               mo.md(f"*Figure: boundary probability and boundaries of {model_pick.value} (target ratio N = {_N:g}) "
                     "along the chosen held-out stretch, with the genes below.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers, with thresholds fixed in
    the chapter's config before the run. The paper's own large-scale rows are quoted and marked not
    testable; the zero-shot rows here are proxies on our genomes, never MaveDB or DEG.
    """)
    return


@app.cell
def _(cfg, claims, ex, mo):
    _u = claims.unchunked_flop_ratio(cfg, cfg.timing_lengths)
    _f2 = ex.forward_flops(cfg, "dnahnet", cfg.context, (2.0,)) / ex.forward_flops(cfg, "dnahnet", cfg.context) - 1
    mo.md(f"""
    **Rules made stricter after a review.** A rule-breaking review (session review4, on the rules of
    commit a8cdca2 and the default run of the previous session) built inputs under which five rules
    returned the wrong verdict; they were tightened before this page's run, and the reviewer's inputs are
    now tests that must fail. Only stricter: (i) C2, C3, C5 and C5b decided on the replicate-level paired
    gaps (a one-sided 95 % t bound over training seeds) as well as the interval over held-out windows,
    which alone let seed noise pass, and undecided with a single replicate; (ii) C2, C3, C5 and C5b also
    require dnaHNet-mini to beat the best k-mer Markov chain on the same windows (in the previous default
    run every model sat at the bits per nucleotide of a 6-mer chain); (iii) C5 and C5b also require the
    lead along the learning curves' upper half, not only at the last evaluation; (iv) C4 compares the
    speed-up with {cfg.speedup_min:g} × the FLOP ratio of the same two models with no chunking, since their
    layer counts and widths alone give {_u.min():.2f}–{_u.max():.2f}× in FLOPs at this profile (the former
    threshold, 1×, could be met without chunking), and its growth is a slope over all lengths; (v) C6c's
    composition control adds the trinucleotide (codon usage) to the dinucleotide. The previous default run
    had C3 and C5 reproduced under the former rules.

    **C4 made stricter again after a second review** (of the rules at commit 67dd53f): the unchunked FLOP
    ratio itself grows with the length ({_u[0]:.2f}× at 2^{cfg.timing_lengths[0]} to {_u[-1]:.2f}× at
    2^{cfg.timing_lengths[-1]} here), so a speed-up that was a constant multiple of it passed the growth
    test on the raw ratio; the one-sided 95 % t lower bound of the slope of log(ratio ÷ unchunked FLOP
    ratio) over log L must now lie above 0 too, i.e. the speed-up must grow faster than the two architectures' own
    ratio does, beyond the scatter of the timed lengths. Found in the same pass: C5 and C5b's
    learning-curve check read only dnaHNet-mini's evaluations in the upper half of the shared FLOP range,
    and when the other model's budget ended a fraction of a percent short of dnaHNet-mini's last
    evaluation (the Mamba at smoke: no evaluation left in that half) it failed on a NaN whatever the
    curves; it now reads every evaluation of both models there (the other's curve interpolated), which
    adds points wherever the old check had any.

    **C5, C5b and C1 made stricter after a third pass** (session 6, on the rules of commit 51327ed): the
    training budget gives every update of dnaHNet-mini the FLOPs of the target compression N = {cfg.ratio:g},
    but a router that compresses less spends more ({_f2:.0%} more per update at L/L′ = 2 here), so a
    dnaHNet-mini ahead only by that extra compute passed; the learning-curve lead now counts
    dnaHNet-mini's FLOPs at the compression its router realised at each evaluation (integrated over the
    updates), and the rows print how far its realised budget is above the other model's. C1 and C1b
    skipped a non-finite compression after the first replicate (Python's `max`); it now fails.

    **C2, C3, C5 and C5b under the contract's rules 9 and 10 (session 12, issue 35; stricter only).** Their
    guard was dnaHNet-mini against the k-mer chain alone: the arm compared with it (an ablation, fixed
    stride, the Transformer, the Mamba) was never checked for convergence, and a gap of the right sign
    within the seeds' or the windows' noise read *not reproduced*. Now every compared arm's held-out bits
    per nucleotide, read along its logged curve, must move by less than {cfg.plateau_share:.2g} of
    bpn_margin = {cfg.bpn_margin:g} bits/nt between {1 / (1 + cfg.plateau_extend):.0%} of its updates and
    the end (each arm's reading is in the row; the rules' own minimum effect, min_gap = {cfg.min_gap:g},
    has no third to take, so this margin was declared for them before any run of the rule), and *not
    reproduced* needs the seed t upper bound or the windows' upper end below min_gap; an interval that
    contains it is *inconclusive (interval spans both)*.

    **The default's size (session 13, issue 35).** Measured by the book's bench on a quiet machine, the
    default with two replicates of every arm ran past the book's ten-minute budget (the bench table in
    `tests/benchmarks/` keeps the numbers), and no row was decided on a converged model. It keeps its
    {cfg.steps} updates per arm and now trains {cfg.seeds} replicate of the main arms and {cfg.ablation_seeds}
    of the ablations and the two-stage model (replicate 0 is the model it trained before). Training fewer
    updates instead was tried and dropped (the chapter's configuration keeps the history): a shorter run
    can make the plateau test easier to pass without making the model any closer to converged. With one replicate the seed noise of C1, C2, C3, C5 and
    C5b is unknown: they are inconclusive here and decided at `full`, whose replicates the list above gives.
    The thresholds did not move.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check1,
    check1b,
    check2,
    check3,
    check4,
    check4b,
    check5,
    check5b,
    check6,
    check6b,
    check6c,
    check6d,
    check7,
    check7b,
    check8,
    check8b,
    run,
):
    ledger = ClaimsLedger("dnahnet_chunking", run.profile)
    checks = (check1, check1b, check2, check3, check4, check4b, check5, check5b, check6, check6b, check6c, check6d,
              check7, check7b, check8, check8b)
    ledger.add_checks(*checks)
    ledger.add_not_testable()
    ledger
    return checks, ledger


@app.cell
def _(cfg, checks, claims, dh, mo, run):
    _needs = claims.full_needs(checks, cfg, dh.PRESETS["full"])
    # the list is its own mo.md of unindented lines (a multi-line value inside the indented f-string below would keep
    # its indentation in the papermill export and render as a nested list)
    _lines = "\n".join(f"- {_n}" for _n in _needs) if _needs else "- none: every row was decided at this profile."
    mo.vstack([mo.md(f"""
    **Rows inconclusive at profile `{run.profile}`, and what the `full` preset gives them.** The `default`
    profile must run within 10 minutes on one core, which does not buy converged models here; those rows
    are *inconclusive at this scale* and are decided by a `full` run (sized for a GPU: `--profile full`):
    """), mo.md(_lines)])
    return


@app.cell
def _(arms, cfg, corpus, dh, mo, run):
    _params = [rs[0].params for rs in arms.values()]
    _updates = [rs[0].steps for rs in arms.values()]
    _ko = ", ".join(f"{_p} {_c.ko_window:,}" for _p, _c in dh.PRESETS.items())
    _src = "; ".join(f"{s['name']} ({s['source']}, SHA-256 {s['sha256'][:16]}…)" if s["sha256"] else
                     f"{s['name']} ({s['source']})" for s in corpus.sources)
    mo.md(f"""
    ## How this chapter differs from the paper

    - **Scale.** Megabases of one bacterium (or a synthetic genome), not 144B nucleotides of 85,205 GTDB
      species; models of {min(_params) / 1e6:.2f}–{max(_params) / 1e6:.2f}M parameters, not billions; {min(_updates):,}–{max(_updates):,}
      updates per arm at this profile.
    - **Architecture is a reconstruction.** dnaHNet's layout was not reached. Ours follows H-Net's
      mechanism (identity-initialised router, sort-based chunking, smoothing, STE confidence residual,
      ratio loss with $\\alpha$ = {cfg.alpha:g}, per-stage learning-rate multipliers, pad vectors, recursion);
      H-Net's Mamba-2 encoders and decoders are replaced by causal gated-convolution blocks.
    - **The isotropic Mamba is small.** `mamba-ssm` needs CUDA; our own Mamba (Mamba-1's selective scan,
      checked against `mambapy`) runs on the CPU, with width {cfg.mamba_width}, {cfg.mamba_layers} blocks and a
      state of N = {cfg.mamba_state} (Mamba's default is 16): its scan is elementwise work on a tensor of
      batch × length × {2 * cfg.mamba_width} × N, which dominates its wall time here, so a small state keeps it
      inside the budget. It gets the same training FLOPs as every other arm, but costs about three times
      dnaHNet-mini's CPU time per update at those FLOPs, so this profile trains {cfg.mamba_seeds} replicate(s) of
      it{" (C5b needs two to bound the seed noise, so it is decided at `full`)" if cfg.mamba_seeds < 2 else ""}.
    - **Ties.** We place a boundary at $p_t\\ge\\tfrac12$ as the dossier writes; H-Net's code takes the
      argmax of $(1-p, p)$, which puts no boundary at exactly $\\tfrac12$ (a measure-zero event).
    - **Baselines**: a nucleotide Transformer and fixed-stride chunking at matched training FLOPs
      (analytic), not StripedHyena2. With the target N = {cfg.ratio:g}, "every 3 nt" and "every N nt" are the
      same baseline{"" if cfg.ratio == 3 else " here only when N = 3"}.
    - **Equal updates, one shared rate.** Every arm runs the same number of updates at the same training
      FLOPs (an arm's batch scaled by its cost per window); the learning rate, warm-up and schedule are the
      same for every arm and were tuned for none of them, dnaHNet-mini included.
    - **Replicates** share the genome and the held-out windows; they differ in initialisation and in the
      training windows drawn. The boundary and zero-shot analyses read the first replicate.
    - **Zero-shot tasks are proxies**: a coding-knockout proxy (cassette in genes against intergenic
      gaps) in windows of {cfg.ko_window:,} nt instead of the paper's 8,192 (this page: profile {run.profile}; by profile:
      {_ko} nt), and SNV classes in windows of
      {cfg.zs_window:,} nt; not DEG essentiality, not MaveDB fitness. Our models were trained on {cfg.context}-nt
      windows, so a long window tests how they read past their training length, not long-range knowledge.
    - **Boundary biology** is read against pyrodigal's gene calls (or the generator's genes), not the
      *B. subtilis* annotation of the paper's Table 1 (that genome is not in the wheel).
    - **Reverse complement**: no augmentation; training reads the forward strand, the analyses read
      genes in their own orientation.
    - **Data**: {_src}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - A. Shah et al. *dnaHNet: A Scalable and Hierarchical Foundation Model for Genomic Sequence Learning.* ICML 2026 [@shah2026dnahnet].
    - S. Hwang, B. Wang, A. Gu. *Dynamic Chunking for End-to-End Hierarchical Sequence Modeling.* 2025 [@hwang2025hnet].
    - A. Gu, T. Dao. *Mamba: Linear-Time Sequence Modeling with Selective State Spaces.* 2023 [@gu2023mamba].
    - M. Larralde. *Pyrodigal: Python bindings and interface to Prodigal.* 2022 [@larralde2022pyrodigal].
    - D. Hyatt et al. *Prodigal: prokaryotic gene recognition and translation initiation site identification.* 2010 [@hyatt2010prodigal].
    - P. Cock et al. *Biopython.* 2009 [@cock2009biopython].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
