import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="DRPBench: fine-grained data-race prediction")


@app.cell
def _():
    import marimo as mo

    from icmlbook.papers import drpbench_data_races as dr
    from icmlbook.papers.drpbench_data_races import attribution, claims, experiments as ex, plots
    from icmlbook.papers.drpbench_data_races.data import SPLITS, clean_non_race_pairs
    from icmlbook.papers.drpbench_data_races.generator import PATTERNS
    from icmlbook.papers.drpbench_data_races.predictors import PREDICTORS
    from icmlbook.runtime import ClaimsLedger, claim_sentence, open_chapter
    return (ClaimsLedger, PATTERNS, PREDICTORS, SPLITS, attribution, claim_sentence, claims, clean_non_race_pairs,
            dr, ex, mo, open_chapter, plots)


@app.cell
def _(mo):
    mo.md(r"""
    # DRPBench: can a model say *which lines* race?

    A **data race** is two accesses to the same memory location from two threads, at least one of them
    a write, with nothing that forces one to happen before the other. Asking a language model "does
    this program have a data race?" is a yes/no question that can be answered well by luck.
    DRPBench [@drpbench2026] asks for more: for each racy program, the shared variable and the **pair
    of source lines** whose accesses race, scored by an F1 that rewards exact localisation and
    punishes false alarms. It builds on SV-COMP's concurrency benchmarks [@beyer2024svcomp] and on the
    line-level annotation scheme of its predecessor DRDBench [@drdbench2025], scores 15 LLMs, and names
    two failure modes: *shared-variable distraction* (flagging accesses that are in fact protected) and
    *synchronisation-logic myopia* (not following flags, semaphores, atomic sections or join order).

    No language model runs offline on this machine. This chapter therefore rebuilds everything around
    the models: the real benchmark, DRDBench's metrics, and honest offline predictors (a real C parser
    with a lockset analysis, a learned pair classifier, ThreadSanitizer), plus a generator of annotated
    programs for controlled studies. The LLM numbers are quoted as the paper's and marked not testable.
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
    | **Paper** | *DRPBench: Evaluating LLMs in Concurrent Code Comprehension via Fine-Grained Data Race Prediction* |
    | **Authors** | not found (very probably the group behind DRDBench) |
    | **Venue** | ICML 2026 |
    | **arXiv** | not found |
    | **Code and data** | none found for DRPBench; DRDBench's annotations (CC BY 4.0) are the closest artefact |

    What was reached is abstract-level: 1,003 SV-COMP programs, 557 races annotated at variable and
    line level, 15 LLMs, the best (Gemini 3 with reasoning) at 74.89 % F1, Llama 3 70B at 8.80 %, and
    the two failure modes. The paper's tables, prompt and exact variable-level rule were not reached.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("drpbench_data_races", profile, seed)
    return cfg, run


@app.cell
def _(benchmark, cfg, mo, run):
    _which = f"all {len(benchmark):,} programs" if cfg.real_stride == 1 else f"every {cfg.real_stride}th racy and race-free program"
    mo.md(f"""
    {run.computed_with()}: the real benchmark
    ({_which}), a generated suite of {cfg.n_generated} programs, {cfg.n_boot} bootstrap resamples per
    interval, and ThreadSanitizer on {cfg.tsan_generated} generated and {cfg.tsan_real} real programs
    ({cfg.tsan_runs} runs each).
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The task and its ground truth

    SV-COMP's *NoDataRace* tasks are C programs on pthreads, each with a verdict: race-free or not,
    under sequential consistency and SV-COMP's conventions (`__VERIFIER_atomic_begin()`/`_end()`
    delimit atomic blocks, any function whose name starts with `__VERIFIER_atomic` runs atomically,
    `__VERIFIER_nondet_int()` returns an arbitrary value). DRDBench annotated every racy program at
    line level: each race is `{shared_variable, lineA, lineB}`, where a line may be a *list* when an
    access can be attributed to several lines (a helper called from several places); pairs of accesses
    that do not race are listed as *critical non-race pairs*. The line numbers refer
    to a normalised text (comments stripped, empty lines removed, `clang-format --style=microsoft`),
    which is what we ship in `data/drdbench/`, each file checked against its SHA-256 on load.

    A program from the benchmark, with its annotated race and its annotated non-race pair:
    """)
    return


@app.cell
def _(dr):
    benchmark = dr.load_benchmark()
    example = next(p for p in benchmark if p.name == "goblint-regression/02-base_24-malloc_races.c")
    return benchmark, example


@app.cell
def _(example, plots):
    plots.listing_figure(example)
    return


@app.cell
def _(SPLITS, benchmark, cfg, claims, clean_non_race_pairs, ex, mo, run):
    real = ex.select_real(cfg)
    real_study = run.cached("drpbench-real-study", ex.population_study, real, cfg, run.seed, "real benchmark")
    held, tuning = (ex.split_study(real_study, h) for h in (SPLITS[1], SPLITS[0]))
    cleaning = clean_non_race_pairs(benchmark)[1]
    _n = claims.benchmark_counts(benchmark, cfg)
    check2 = claims.claim2(real_study, cfg)
    _miss = check2.values.get("misses", [])
    _miss_txt = ", ".join(f"`{n.split('/')[-1]}`:{ln} ({v})" for n, ln, v in _miss[:13])
    mo.md(f"""
    The vendored benchmark holds {_n['programs']:,} programs, {_n['racy']} of them racy, with
    {_n['races']} annotated races ({_n['dev_programs']:.1%} and {_n['dev_races']:.1%} from the paper's
    {cfg.paper_programs:,} programs and {cfg.paper_races} races); {len(real)} of them are used at this
    profile. This is DRDBench's snapshot, not DRPBench's own files (not reached), so the paper's
    population is a row *not testable at this profile* in the ledger; that our copy is the size it should
    be is a check of our vendoring, in the tests.

    {check2.sentence("Claim 2")} The endpoints that do not name their variable: {_miss_txt or "none"}.
    (Since the contract's second edition a share under 95 % is *not reproduced* only when its exact 95 %
    interval lies below 95 %; the tests run the programs as SV-COMP ships them, not normalised, through
    the rule, which must not pass.)

    **DRDBench's critical non-race pairs, cleaned.** Of the {cleaning.total:,} entries DRDBench lists,
    {cleaning.same_as_race} have the same line pair as an annotated race of the same program, and
    {cleaning.read_read} only read the variable on both lines (read from the text: no line assigns,
    increments, takes the address of, or hands on the variable), so they are no conflicting pair a race
    detector could report; e.g. `{cleaning.examples[0][2] if cleaning.examples else ""}` with
    `{cleaning.examples[0][3] if cleaning.examples else ""}`. We drop both and keep {cleaning.kept:,}, and call them
    *annotated non-race pairs*, not protected pairs: nothing in the annotation says what, if anything,
    protects them. Until an audit the chapter used all {cleaning.total:,} under the name "protected pairs",
    which distorted both shares of claim 5.

    **A declared tuning split.** Our front end was developed while reading programs of this benchmark,
    so the programs it is scored on are programs it was tuned on. The split is declared now by the hash
    of each program's name: {sum(p.racy for p in held.programs)} racy and {sum(not p.racy for p in held.programs)}
    race-free programs of this profile are *held out* and decide claims 3, 5 and 6;
    {len(tuning.programs)} form the *tuning* half, the only one the front end may be tuned on from now on. The
    development before the split read programs of both halves, so the held-out half guards later tuning
    only; the table below shows both halves side by side.
    """)
    return check2, held, real, real_study, tuning


@app.cell
def _(attribution, benchmark, mo):
    _eps = [e for e in attribution.helper_endpoints(benchmark) if e.sites >= 2]
    _all = attribution.attribution_summary(_eps, 2)
    _par = attribution.attribution_summary(_eps, 2, through_parameter=True)
    _nam = attribution.attribution_summary(_eps, 2, through_parameter=False)
    _with_helper = len(_eps) - _all["call line only"]
    _listed = lambda c: c["helper line + one call line"] + c["helper line + several call lines"]  # noqa: E731
    _forms = {True: attribution.majority_form(_eps, 2, True), False: attribution.majority_form(_eps, 2, False)}
    mo.md(f"""
    ### A helper's access: on the helper's line, or on the call line?

    The format allows a list of lines but does not say which lines go in it, and a generator that
    writes annotations in this format, like a predictor scored against them, has to follow what the
    annotators did. We counted it on the annotations themselves (the program's text and its annotated
    lines only). A *helper* is a function the program defines other than `main` and the thread
    functions, or a macro that expands to a statement. Of the {len(_eps)} race endpoints attributed
    to a helper called from at least two lines, {_with_helper} contain the helper's own line and
    {_all["call line only"]} name a call line alone. When the helper reaches the variable through a
    pointer parameter (its line says `*v`, the call hands over `&x`), the endpoint lists the helper's line
    together with the call line of that site in {_listed(_par)} of {sum(_par.values())}. When the helper names
    the variable itself, the helper's line stands alone in {_nam["helper line only"]} of {sum(_nam.values())} and
    comes with call lines in {_listed(_nam)}. Over both cases, {_all["helper line + one call line"]} endpoints list
    the helper's line with the one call line of their site and {_all["helper line + several call lines"]} with
    several call lines.

    So the generator writes each case in its most frequent form: a helper handed `&v` as
    *{_forms[True]}* (pattern `helper_sites`), and a helper that names `v` as *{_forms[False]}*
    (pattern `helper_global`); a test keeps the generator tied to these counts. The metric is DRDBench's
    and is not changed: any line of a list matches. A prediction that names the helper's line is therefore
    matched under either form, and one that names the two call lines only under the listed form. Our front
    end places an access that a short wrapper makes through a pointer parameter at the call site (which
    the list contains) and every other access at the helper's line.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Three granularities of scoring

    **Program level.** A program is predicted racy iff the predictor lists at least one race.

    **Line level** (ours: DRDBench's match, read uniformly). A prediction $p$ matches an annotated race
    $g$ when the unordered line pairs match,

    $$
    \mathrm{match}(p,g)=\big(p_A\in g_A\wedge p_B\in g_B\big)\ \vee\ \big(p_A\in g_B\wedge p_B\in g_A\big),
    $$

    with an integer line read as a one-element set and **the variable not checked**. Per program,
    $TP$ counts the annotated races matched by some prediction, $FN=|G|-TP$, and $FP$ the predictions
    matching no race; the counts are summed over programs before precision, recall and F1 are formed
    (micro), so race-free programs add only false positives and a program with 30 races weighs 30 times
    one with a single race. We also report the macro average over programs.

    **DRDBench's own scoring** differs from ours on two points, read from its released evaluation code:
    an annotation with one integer line and one list of lines can never be matched (the code compares two
    integers or two lists), and a prediction repeated word for word that hits counts as a false positive
    for every copy after the first; it also scores the racy programs only. Our line F1 reads an integer as
    a one-line list and does not count a repeated hit, and it scores the race-free programs as well; the
    table gives both.

    **Variable level.** The paper scores "variable and line level" but its rule was not reached, so
    both readings are here: *line + variable* (the line match and the same lvalue, spaces ignored) and
    *variable set* (per program, the set of predicted racy variables against the annotated set).
    Intervals resample whole programs (percentile bootstrap).
    """)
    return


@app.cell
def _(benchmark, mo):
    _free = sum(not p.racy for p in benchmark) / len(benchmark)
    mo.md(f"""
    ## The predictors

    Every predictor reads only the C text, through a real parser (tree-sitter's C grammar); none sees
    an annotation or the generator's metadata. Before parsing, the program's own `#define`s (object-like
    and function-like) are expanded and its `#if`/`#ifdef` branches resolved, line for line, so that an
    access written through a macro is seen on the line that uses it. Shared memory is what the globals,
    the locals handed to `pthread_create`, and the pointers the front end resolves designate: a thread's
    start argument, a parameter bound at an inlined call, a local assigned `&x` or a pointer loaded from
    shared data (`n = q->head` makes `n->next` the object `q->head->next`). `*p`, `p[i]` and `p->f` are
    one dereference, array indices are folded, and distinct fields never alias. **The aliasing
    assumption:** a pointer the front end cannot resolve (a `malloc` result, a pointer copied through
    another global) points to memory no other thread reaches, so its dereferences are not counted.

    - **empty**: always "race-free" (the floor, and a reminder that {_free:.0%} of the benchmark is race-free).
    - **all pairs**: every conflicting pair (same object, a write among the two, two threads, or one
      thread function started twice), ignoring synchronisation: the recall ceiling of our front end.
    - **lockset**: the Eraser idea [@savage1997eraser] statically: the locks held at each access (mutexes,
      spin locks, SV-COMP atomic blocks and atomic functions, GCC/C11 atomic builtins, custom flag locks
      built from atomic functions such as `assume(m == 0); m = 1;`, semaphores used as locks, walking
      each function in textual order and inlining calls), and main's create/join order (followed into the
      helpers main calls); a pair is reported when the two locksets are disjoint and neither access is
      before main starts its first thread or after it has joined them all.
    - **lockset (mutex only)**: the same analysis that understands nothing but mutexes (the *myopic*
      analyser of the myopia study).
    - **learned pairs (CV)**: gradient boosting on static features of the candidate pairs (common locks,
      atomic sections, create/join order, thread multiplicity, the constructs in the program, ...),
      trained on annotations and evaluated on programs of categories it never saw (folds hold whole
      benchmark directories; on the generated suite a racy program and its race-free twin share a fold).
    """)
    return


@app.cell
def _(cfg, ex, run):
    generated = run.cached("drpbench-generated-suite", ex.generated_suite, cfg, run.seed)
    gen_study = run.cached("drpbench-generated-study", ex.population_study, generated, cfg, run.seed, "generated suite")
    return gen_study, generated


@app.cell
def _(benchmark, cfg, ex, gen_study, held, mo, real_study, run, tuning):
    _unp = len(real_study.unparsable)
    _mixed = sum(r.listed[0] != r.listed[1] for p in benchmark for r in p.races)
    _races = sum(len(p.races) for p in benchmark)
    mo.md(f"""
    ### Every predictor on both populations

    {ex.scores_table([held, tuning, gen_study], cfg.n_boot, run.seed)}

    *Table: micro-averaged scores (our line F1 with its bootstrap 95 % interval; DRDBench's own scoring on the
    racy programs alone in the last column); the real benchmark in its held-out and tuning halves.* {_mixed} of the
    benchmark's {_races} annotated races mix an integer line with a list, which DRDBench's scoring can never
    match. {_unp} of the
    {len(real_study.programs)} real programs use syntax tree-sitter reads only with error recovery
    (GNU extensions, macros from headers the front end does not see); the static predictors analyse the
    recovered tree of those.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Localisation is harder than detection (claim 3)

    If a predictor's program-level F1 is far above its line-level F1, it often knows *that* a program
    races without knowing *where*. We measure the gap for every non-trivial predictor with a paired
    bootstrap over programs, on the real benchmark and, separately, on the generated suite. The claim is
    decided on the lockset analyser and the learned pair classifier; all pairs, which flags every
    conflicting pair, is shown as a reference, and the mutex-only analyser belongs to claim 6. The gap must
    also hold on the racy programs alone: a false alarm on a race-free program counts once at program level
    but once per predicted pair at line level, so false alarms alone open a gap without any race mislocalised.
    The learned classifier is a trained model, so it is compared only once converged (rule 10 of the claims
    contract): the same folds are trained again with 50 % more boosting iterations, and each of its three measures
    (the gap, the gap on racy programs, the gain over calling every program racy) must move by less than a third of
    the 0.1 margin; otherwise its part of the row is undecided and the row says "not converged". The analysers
    are not trained and need no such test.
    """)
    return


@app.cell
def _(cfg, gen_study, held, plots, run):
    plots.granularity_figure([held, gen_study], ["all pairs", "lockset", "lockset (mutex only)", "learned pairs (CV)"],
                             cfg.n_boot, run.seed)
    return


@app.cell
def _(cfg, claim_sentence, claims, gen_study, held, mo, run):
    check3 = claims.claim3(held, cfg, run.seed)
    _g3 = claims.GENERATED_CHECKS["localisation"](gen_study, cfg, run.seed)
    mo.md(f"""
    *Figure: F1 at three granularities, with bootstrap 95 % intervals (real benchmark: the held-out half).*

    {check3.sentence("Claim 3 (real benchmark, held-out half)")}

    {claim_sentence("The same measurement on the generated suite (a check of the generator, not a claim)", *_g3, rule=claims.RULE_TEXT["localisation"], inconclusive=_g3.inconclusive)}

    Changed after the contract's second edition (stricter only): the detector that calls every program
    racy and names one fixed pair passed the rule (a large gap, because it localises nothing), so each
    predictor must now also detect better than that constant detector; an interval that spans its
    threshold is *inconclusive*, and only one that lies below it is *not reproduced*; the rule is scored on
    the held-out half.
    """)
    return (check3,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Shared-variable distraction (claim 5)

    The annotations list, for each racy program, pairs of accesses to a shared variable that do not race
    (the cleaned critical non-race pairs above). A predictor distracted by shared variables reports them
    as races. The figure shows the share of those non-race pairs each predictor flags. How many the
    synchronisation-blind *all pairs* flags says how much of the programs our front end extracts (it
    flags every conflicting pair it sees), not how distracting they are; the question the claim asks is
    what knowing the locks changes. Among the non-race pairs and the races that all pairs flags, we
    compare the share a lock-aware analysis still flags: if locks explain why those pairs do not race, it
    withdraws far more of them than of the races; a predictor that only
    thins its output (at random, or down to nothing) withdraws both alike. Both shares are taken inside
    the same programs (those where all pairs flags at least one of each): pooled over all programs, an
    analyser that gave up on every program using locks and kept the races of the lock-free ones would
    look lock-aware.
    """)
    return


@app.cell
def _(gen_study, held, plots):
    plots.distraction_figure([held, gen_study], ["all pairs", "lockset", "lockset (mutex only)", "learned pairs (CV)"])
    return


@app.cell
def _(cfg, claim_sentence, claims, ex, gen_study, held, mo, run):
    check5 = claims.claim5(held, cfg, run.seed)
    _g5 = claims.GENERATED_CHECKS["distraction"](gen_study, cfg, run.seed)
    _former5 = claims.former_distraction_rule(held, cfg, run.seed)
    _cov_ok = _former5.values["rate_a_lo"] > cfg.distraction_min
    _diff_ok = _former5.values["lo"] > 0
    _which_half = ("here both halves pass" if _cov_ok and _diff_ok else
                   "here the coverage half fails and the lockset half passes" if _diff_ok else
                   "here the lockset half fails" + (" and so does the coverage half" if not _cov_ok else ""))
    _fp = ex.fp_shares(held, ["all pairs", "lockset"])
    _ap, _ls = _fp["all pairs"], _fp["lockset"]
    _cov = ex.nonrace_pair_coverage(held)
    _ntot = sum(_cov.values())
    _dir = "rises" if _ls["critical_share"] > _ap["critical_share"] else "falls"
    mo.md(f"""
    *Figure: share of annotated non-race pairs reported as races (real benchmark: the held-out half; on the
    generated suite these are the distractor variables, protected by construction).*

    {check5.sentence("Claim 5 (real benchmark, held-out half)")}

    {claim_sentence("The same measurement on the generated suite (a check of the generator, not a claim)", *_g5, rule=claims.RULE_TEXT["distraction"], inconclusive=_g5.inconclusive)}

    Changed after the contract's second edition (stricter only): the difference must clear a minimum effect
    of {cfg.specificity_margin:g}, declared in the config before this run (it had to clear 0, so a lock-blind
    analyser, whose difference is exactly 0, could never come out *not reproduced*); the non-race pairs are
    cleaned; the rule is scored on the held-out half; the tests run all pairs in the lockset's place through
    the rule, which must not pass.

    {claim_sentence("Claim 5 under its former rule (withdrawn after a review, shown for the record; not in the ledger)", *_former5, rule=claims.FORMER_C5_RULE)}
    The former rule's first half is the front end's coverage of the non-race pairs, which a better front
    end would raise to 100 % whatever the benchmark says about distraction; {_which_half}.

    Why all pairs leaves non-race pairs unflagged on the held-out half: of its {_ntot:,} annotated non-race
    pairs, {_cov['line not extracted']:,} have a line on which our front end extracts no access at all
    (accesses through pointers it does not resolve, macros from headers, accesses the annotators place on
    a macro's definition or a wrapper's body where the front end places them at the use, lines in
    `#else` branches the program's own `#define`s leave out), and
    {_cov['extracted, not paired']:,} have accesses on both lines that it did not pair (thread structure it
    did not see); {_cov['flagged']:,} are flagged.

    Seen from the other side, as the share of false positives: on the racy real programs,
    {_ap['critical_share']:.0%} of all-pairs' {_ap['false_positives']:,} false positives and
    {_ls['critical_share']:.0%} of the lockset's {_ls['false_positives']:,} fall on annotated non-race pairs, and
    {_ap['plain_share']:.0%} and {_ls['plain_share']:.0%} on the other annotated non-racing pairs: the share
    {_dir} from one to the other while the number of such false positives goes from
    {_ap['critical']:,} to {_ls['critical']:,}, which is why the rule counts flagged pairs, not shares.
    """)
    return (check5,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Synchronisation-logic myopia (claim 6)

    We sort programs by the synchronisation their text uses (detected syntactically): mutexes only;
    anything else (semaphores, condition variables, barriers, atomic blocks or functions, C11 atomics,
    busy-wait loops); or none. An analyser that understands only mutexes should do much worse on the
    second group; the full lockset analysis shows how much of that understanding a static tool can
    recover. Because DRDBench marks non-race pairs only in racy programs, the row also asks that, in the
    racy programs of the second group, the mutex-only analyser flag more of the annotated non-race pairs
    than the full lockset does: the loss must fall on pairs the annotators marked as not racing.

    **What the nesting decides.** Our mutex-only analyser is the full lockset without its non-mutex
    ingredients (atomic sections and functions, semaphores used as locks), so everything the full lockset
    reports, the mutex-only one reports too. Its extra reports on the second group, and so the difference
    in differences and the annotated difference, cannot come out negative: an audit found the row held
    for that reason. Since the contract's second edition the row also asks what those ingredients
    withdraw, and that can fail: of the races and the annotated non-race pairs the mutex-only analyser
    flags in those programs (the ones holding both), the full lockset must keep a larger share of the races
    than of the non-race pairs, by at least the declared minimum effect. An ingredient that withdrew races
    as readily as non-race pairs (at random, say) would be *not reproduced* there, whatever the nesting.
    """)
    return


@app.cell
def _(cfg, held, plots, run):
    plots.construct_figure(held, ["lockset (mutex only)", "lockset", "learned pairs (CV)"], cfg.n_boot, run.seed)
    return


@app.cell
def _(cfg, gen_study, plots, run):
    plots.construct_figure(gen_study, ["lockset (mutex only)", "lockset", "learned pairs (CV)"], cfg.n_boot, run.seed)
    return


@app.cell
def _(cfg, claim_sentence, claims, gen_study, held, mo, run):
    check6 = claims.claim6(held, cfg, run.seed)
    _g6 = claims.GENERATED_CHECKS["myopia"](gen_study, cfg, run.seed)
    _parts6 = check6.values.get("parts", {})
    _open6 = [k for k, v in _parts6.items() if v is not True]
    mo.md(f"""
    *Figures: line-level F1 by synchronisation stratum, real benchmark's held-out half (top) and generated suite
    (bottom).*

    {check6.sentence("Claim 6 (real benchmark, held-out half)")}
    Of its {len(_parts6)} conditions, {len(_parts6) - len(_open6)} pass{(": not " + ", ".join(_open6)) if _open6 else ""}.

    {claim_sentence("The same measurement on the generated suite (a check of the generator, not a claim)", *_g6, rule=claims.RULE_TEXT["myopia"], inconclusive=_g6.inconclusive)}

    Changed after the contract's second edition (stricter only): the condition on what the non-mutex
    ingredients withdraw (above) is added, with the minimum effect {cfg.specificity_margin:g}; an interval
    that spans its threshold is *inconclusive* and only one below it *not reproduced*; the rule is scored on
    the held-out half; the tests run the mutex-only analyser in the full lockset's place through the rule,
    which must not pass.
    """)
    return (check6,)


@app.cell
def _(mo):
    mo.md(r"""
    ## Which predictor fails where: F1 per construct (generated suite)

    On the generated suite every line belongs to one pattern instance, so each annotated race, and each
    false alarm whose two lines fall in one instance, can be put down to the construct that instance
    exercises (the predictors never see this bookkeeping; it is used only to score them). Among the
    constructs is **Peterson's protocol**: two flags and a `turn` variable, read and written only through
    SV-COMP atomic functions, which under sequential consistency exclude the two threads' updates of a
    shared counter with no lock at all. Its broken twin swaps main's two entry stores (`turn` before the
    flag), which lets both threads into the critical section. A lockset analysis has nothing to
    intersect there: the protocol is a synchronisation idiom it cannot see through, by design.
    """)
    return


@app.cell
def _(cfg, ex, gen_study, mo, plots, run):
    _preds = ["all pairs", "lockset", "lockset (mutex only)", "learned pairs (CV)"]
    construct_scores = ex.construct_scores(gen_study, _preds, cfg.n_boot, run.seed)
    _ls = construct_scores["lockset"]
    _weak = sorted((r["f1"], c) for c, r in _ls.items() if r["f1"] == r["f1"] and r["hi"] < 0.9)
    _weak_txt = ", ".join(f"{c} ({f:.2f} [{_ls[c]['lo']:.2f}, {_ls[c]['hi']:.2f}])" for f, c in _weak) or "none"
    _pet = _ls.get("peterson")
    _pet_txt = (f"On the programs holding Peterson's protocol the lockset analyser's line F1 is {_pet['f1']:.2f} "
                f"[{_pet['lo']:.2f}, {_pet['hi']:.2f}] ({_pet['tp']} races found, {_pet['fp']} false alarms there)."
                if _pet else "No generated program holds Peterson's protocol at this profile.")
    mo.vstack([plots.per_construct_figure(construct_scores, _preds), mo.md(f"""
    *Figure: line-level F1 per construct on the generated suite (number of programs holding it), with
    bootstrap 95 % intervals over those programs.*

    {ex.construct_table(construct_scores, _preds)}

    *Table: the same numbers; the last rows count false alarms on the protected distractor variables and
    on line pairs that straddle two instances.* Constructs on which the full lockset analyser's upper
    95 % bound stays below 0.9: {_weak_txt}. {_pet_txt}
    """)])
    return (construct_scores,)


@app.cell
def _(mo):
    mo.md(r"""
    ## ThreadSanitizer: a dynamic check, incomplete by nature

    ThreadSanitizer [@serebryany2009tsan] instruments a compiled program and reports the races of the
    interleavings it observes. We compile each program with SV-COMP's conventions stubbed by one
    global mutex (atomic blocks and atomic functions take it, without moving a line) and run it a few
    times. On the generated suite it is an independent check of the generator's annotations: every
    report should fall on an annotated race, and the race-free twins should get none. On the real
    benchmark it measures how much a few runs find.
    """)
    return


@app.cell
def _(cfg, ex, generated, real, run):
    tsan = run.cached("drpbench-tsan", ex.tsan_study, generated, real, cfg, run.seed)
    return (tsan,)


@app.cell
def _(cfg, ex, mo, plots, tsan):
    if not tsan.available:
        _out = mo.md("ThreadSanitizer is not available on this machine (gcc could not link `-fsanitize=thread`).")
    else:
        _a = ex.tsan_agreement(tsan)
        _rec = _a["tp"] / (_a["tp"] + _a["fn"]) if _a["tp"] + _a["fn"] else float("nan")
        _real = (f" On {_a['real_compiled']} real racy programs that compiled ({_a['real_not_compiled']} did not link "
                 f"with our stubs), it reported {_a['real_tp']} of {_a['real_tp'] + _a['real_fn']} annotated races and "
                 f"{_a['real_fp']} pairs outside the annotations." if tsan.real_programs else "")
        _out = mo.vstack([plots.tsan_figure(tsan, cfg.tsan_runs), mo.md(f"""
    *Figure: share of annotated races reported after each run (wall-clock limits make these numbers vary between runs).*
    On {_a['racy']} generated racy programs ThreadSanitizer found {_a['tp']} of {_a['tp'] + _a['fn']} annotated races
    (recall {_rec:.0%}) and made {_a['outside']} report(s) outside the annotations; on their {_a['safe']} race-free twins it
    made {_a['on_safe']} report(s).{_real}
    """)])
    _out
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Pick the population: a racy program of the real benchmark (its annotations from DRDBench), or a
    generated one. For a generated program, compose it from synchronisation patterns, choose which
    are broken, add protected distractor variables, set how many copies of a loop-spawned thread main starts, and pick a
    predictor and the scoring rule (DRDBench's line level or one of the two variable-level
    readings): the listing marks the annotated races (vermilion),
    the protected pairs (green) and the predicted lines (→). On the website the controls show the
    values this page was built with; open the chapter live to change them.
    """)
    return


@app.cell
def _(PATTERNS, PREDICTORS, benchmark, ex, mo):
    population_pick = mo.ui.dropdown(options=["generated (compose below)", "real benchmark"],
                                     value="generated (compose below)", label="population")
    real_pick = mo.ui.dropdown(options=[p.name for p in benchmark if p.racy],
                               value="goblint-regression/02-base_24-malloc_races.c", label="real racy program")
    construct_pick = mo.ui.multiselect(options=list(PATTERNS), value=["mutex_missing", "busy_wait", "join_order"],
                                       label="constructs")
    broken_pick = mo.ui.multiselect(options=list(PATTERNS), value=["mutex_missing"], label="broken (racy) ones")
    distractor_slider = mo.ui.slider(start=0, stop=6, step=1, value=2, label="protected distractors")
    threads_slider = mo.ui.slider(start=2, stop=6, step=1, value=2, label="copies of a loop-spawned thread")
    predictor_pick = mo.ui.dropdown(options=[p for p in PREDICTORS if p != "empty"], value="lockset", label="predictor")
    level_pick = mo.ui.dropdown(options=list(ex.PLAYGROUND_LEVELS), value="line (ours)", label="scoring rule")
    mo.vstack([mo.hstack([population_pick, real_pick]), mo.hstack([construct_pick, broken_pick]),
               mo.hstack([distractor_slider, threads_slider]), mo.hstack([predictor_pick, level_pick])])
    return (broken_pick, construct_pick, distractor_slider, level_pick, population_pick, predictor_pick, real_pick,
            threads_slider)


@app.cell
def _(
    benchmark,
    broken_pick,
    construct_pick,
    distractor_slider,
    ex,
    level_pick,
    mo,
    plots,
    population_pick,
    predictor_pick,
    real_pick,
    threads_slider,
):
    if population_pick.value == "real benchmark":
        _real = next(p for p in benchmark if p.name == real_pick.value)
        _prog, _pred, _sc = ex.score_program(_real, predictor_pick.value, level=level_pick.value)
    else:
        _cons = list(construct_pick.value) or ["mutex_missing"]
        _prog, _pred, _sc = ex.playground(_cons, [c in broken_pick.value for c in _cons], distractor_slider.value,
                                          predictor_pick.value, threads=threads_slider.value, level=level_pick.value)
    _l = _sc["chosen"]
    _title = (f"{_prog.name.split('/')[-1]}, {predictor_pick.value}, scored by {level_pick.value}: {_l.tp} found, "
              f"{_l.fn} missed, {_l.fp} false "
              f"alarm(s); program verdict {'right' if _sc['program_right'] else 'wrong'}")
    mo.vstack([plots.listing_figure(_prog, _pred, title=_title, max_lines=80),
               mo.md(f"*Figure: the chosen program ({population_pick.value}), its annotated racy lines in vermilion and "
                     f"protected pairs in green, and arrows on the lines {predictor_pick.value} names.*")])
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to this run's numbers; the rule's rejected
    alternative is named under it. Four verdicts: *reproduced*; *not reproduced* (an interval wholly
    on the far side of the rule's declared minimum effect); *inconclusive at this scale* (the
    measurement cannot tell the claim from its negation; the row says why); *not testable at this
    profile*. Rows about LLMs are not testable here: no language model runs offline. The metric's
    invariances (swapping a pair's lines, reordering predictions, duplicating a hit) hold by
    construction of our definition; they are unit tests, not claims.
    """)
    return


@app.cell
def _(
    ClaimsLedger,
    check2,
    check3,
    check5,
    check6,
    run,
):
    ledger = ClaimsLedger("drpbench_data_races", run.profile)
    ledger.add_checks(check2, check3, check5, check6)
    ledger.add_not_testable("C1", "P1", "P2", "P3", "C7", "C8", "C9", "C10")
    ledger
    return (ledger,)


@app.cell
def _(ledger, mo):
    _c = ledger.counts()
    _by = {v: [c.id for c in ledger.claims if c.verdict == v] for v in _c}
    mo.md("**This run:** " + "; ".join(f"{n} {v} ({', '.join(_by[v]) or 'none'})" for v, n in _c.items()) + ". "
          + "Rows about our operationalisation of the paper's failure modes (marked in the ledger): "
          + (", ".join(c.id for c in ledger.claims if c.reconstruction) or "none") + "."
          + "".join(f"\n\n* **{c.id}** is {c.verdict}" + (f" ({c.inconclusive})" if c.inconclusive else "")
                    + f": {c.reason}" for c in ledger.claims if c.verdict in ("not reproduced", "inconclusive at this scale")
                    and c.reason))
    return


@app.cell
def _(PATTERNS, benchmark, cfg, mo, run):
    _races = sum(len(p.races) for p in benchmark)
    _scale = ("all of the real programs" if cfg.real_stride == 1 else
              f"every {cfg.real_stride}th real program (racy and race-free apart)")
    _default_note = "" if cfg.real_stride == 1 else "; profile `default` uses all of them"
    mo.md(f"""
    ## How this chapter differs from the paper

    - **No LLMs.** The paper scores 15 language models; none runs offline here, so every model number
      is quoted as the paper's and marked not testable. The predictors are offline tools under their
      own names; none stands in for a model.
    - **The benchmark.** DRDBench's {len(benchmark):,} programs and {_races} annotated races, normalised
      as its annotations expect, not the paper's {cfg.paper_programs:,} programs and {cfg.paper_races}
      races (its filter and the difference in races were not reached). Race-free programs are part of the evaluation population, as the
      paper's count implies; DRDBench's own scripts score racy programs only.
    - **The metric is ours.** Our line-level F1 uses DRDBench's match but reads an integer line as a
      one-line list (DRDBench's code never matches an annotation that mixes an integer and a list) and does
      not count a repeated hit as a false positive (DRDBench's does); DRDBench's own scoring is in the
      table beside it. Until an audit the page called our F1 DRDBench's.
    - **The variable-level rule** was not reached: both readings are reported.
    - **The generated suite** is ours: {len(PATTERNS)} patterns (a mutex forgotten or mismatched,
      atomic blocks, atomic functions, join order, a thread started twice, a semaphore, a busy-wait flag,
      a condition variable with its predicate, a barrier, GCC atomic builtins, a helper called from two
      sites, handed `&v` (list-valued annotation lines) or naming `v` (the helper's line alone),
      Peterson's flag/turn protocol, an object reached only
      through pointers (a thread's start argument and a local `&v`), and struct fields written through a
      pointer, where the race-free twin writes the sibling field), each with a minimal race-free twin,
      plus protected distractor variables. Its numbers are never merged into the real benchmark's.
    - **Thresholds** ({cfg.consistency_min:.0%} consistency, a {cfg.localisation_margin:g} F1 gap, a
      {cfg.myopia_margin:g} F1 margin for "much worse", a {cfg.specificity_margin:g} minimum effect for what a
      lock-aware or synchronisation-aware analyser withdraws) are ours,
      fixed in the chapter's config before the runs. **Rules changed after a run**, each disclosed in its
      row: after the first default run, claim 5 first decided "more than half of the protected pairs" on
      the bootstrap interval's lower bound instead of the point estimate (the point estimate passed at
      default while the smoke subset failed); a review then found that this half measures our front end's
      coverage of the protected pairs (all pairs flags every pair it extracts), so claim 5 is now decided on
      what the lockset withdraws of what all pairs flags, and its former rule is computed beside it above.
      A second review showed that pooled shares let a difference in program mix pass (see the figure's
      text), so both shares are now taken over the programs that hold both kinds (stricter only).
      The same review moved the benchmark's size (claim 1) out of the decided rows: our snapshot is
      committed, so comparing it with the paper's typed counts ({cfg.count_tolerance:.0%} tolerance) is a
      check of our vendoring, kept in the tests; and it took all pairs, whose localisation gap holds by
      construction, out of claim 3's rule (shown as a reference; the verdict cannot change by it).
      Changed in session 6, after a second review (stricter only): claim 3 also asks the gap on the racy programs alone, because a predictor naming every
      race exactly passed with 8 spurious pairs on each race-free program; claim 6 also asks the
      annotated half above, because its F1 halves never looked at the annotations its statement names (with
      every protected-pair annotation of the non-mutex programs deleted, the row was unchanged); and its two F1
      bounds must clear a {cfg.myopia_margin:g} margin instead of 0, since "much worse" accepted any gap.
      Changed after an outside audit and the contract's second edition (each disclosed beside its rule
      above; stricter, or inconclusive, only): four verdicts; DRDBench's critical non-race pairs cleaned
      and renamed; the rules scored on a declared held-out half; claim 3 needs each predictor to detect
      better than calling every program racy; claims 5 and 6 need what the lock-aware analyser withdraws
      to clear a {cfg.specificity_margin:g} minimum effect; every rule is run, in the tests, on the real
      output of the nearest method without the ingredient; and rows for "most models stay below 60 %"
      and the distraction dose-response (not testable: they need LLM answers).
    - **Scale.** This page (profile `{run.profile}`) uses {_scale}{_default_note}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - *DRPBench: Evaluating LLMs in Concurrent Code Comprehension via Fine-Grained Data Race Prediction.* ICML 2026 [@drpbench2026].
    - Y. Guo et al. DRDBench, line-level race annotations of SV-COMP programs [@drdbench2025].
    - D. Beyer. SV-COMP 2024 [@beyer2024svcomp].
    - S. Savage et al. *Eraser: a dynamic data race detector for multithreaded programs.* 1997 [@savage1997eraser].
    - K. Serebryany, T. Iskhodzhanov. *ThreadSanitizer: data race detection in practice.* 2009 [@serebryany2009tsan].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
