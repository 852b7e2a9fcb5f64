import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="OMAC: optimising a multi-agent system")


@app.cell
def _():
    import marimo as mo

    from icmlbook.papers import omac_multiagent as om
    from icmlbook.papers.omac_multiagent import plots
    from icmlbook.runtime import ClaimsLedger, open_chapter
    return ClaimsLedger, mo, om, open_chapter, plots


@app.cell
def _(mo):
    mo.md(r"""
    # OMAC: optimising a multi-agent system along five dimensions

    A multi-agent system built from language-model calls is usually designed by hand: which agents exist,
    what each is told, which of them answer a given query, whose answers survive each round, and who reads
    whom. Li, Hasson and Ghosh [@li2026omac] turn that design into an optimisation problem with five
    dimensions, two about the agents and three about the structure, and optimise each with a search that an
    LLM drives: a *Semantic Initializer* proposes diverse candidates, a *Contrastive Comparator* writes a new
    candidate from a better and a worse one, and every candidate is scored by running the whole
    collaboration on validation queries.

    In the paper every agent, controller and the optimiser itself are GPT-3.5 calls. No large language model
    runs on this page. We study the **optimisation procedure** on two task families whose agents are real
    programs: seeded program-synthesis solvers that write list functions in a small language of our own, from
    two input/output examples (an analogue of HumanEval, scored by pass@1 on hidden tests); and **small
    language models trained from scratch on this CPU** that answer multi-step arithmetic. A "prompt" becomes a
    configuration of such a program (for a small LM: which model, which worked examples, which temperature, how
    many samples, how one answer is chosen), and the two LLM actors become operators in configuration space.
    Every verdict below is computed by this run and speaks about that search procedure, not about LLMs; the
    paper's own LLM results are declared not testable here.
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
    | **Paper** | *OMAC: A Holistic Optimization Framework for LLM-Based Multi-Agent Collaboration* |
    | **Authors** | Shijun Li, Hilaf Hasson, Joydeep Ghosh |
    | **Venue** | ICML 2026 (oral) |
    | **arXiv** | [2505.11765](https://arxiv.org/abs/2505.11765) |
    | **Code** | [github.com/xiwenchao/OMAC](https://github.com/xiwenchao/OMAC) (MIT), built on DyLAN [@liu2024dylan] |

    We read the abstract and the front matter; the method sections and the result tables were not reachable,
    so both algorithms below are our reconstruction from the released code, and the paper's numbers are "not
    reached". The abstract's result sentences and the rows that answer them:

    - the general algorithm with "two actors termed the Semantic Initializer and the Contrastive Comparator,
      to optimize any single dimension": **C1**, **C3**, **C4**, **C7** (our program agents), **L1**, **L3**,
      **L4**, **L7** (the same rules on small LMs trained here) and **A2** (its LLM version, not testable);
    - "an algorithm for joint optimization across multiple dimensions": **C5**, **C6**, **L5**, **L6**;
    - "the superior performance of OMAC on code generation, arithmetic reasoning, and general reasoning tasks
      against state-of-the-art approaches": **A1** (not testable: GPT-3.5), **C2** and **L2** (the held-out
      gain of our search).
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(open_chapter, profile, seed):
    run, cfg = open_chapter("omac_multiagent", profile, seed)
    return cfg, run


@app.cell
def _(cfg, mo, run):
    mo.md(f"""
    {run.computed_with()}: {cfg.n_seeds} independent replicates, each with its own {cfg.n_val} validation and
    {cfg.n_test} test tasks and its own optimiser seed; collaborations of {cfg.n_layers} layers; Algorithm 1 with
    N = {cfg.n_init}, T_max = {cfg.t_max}, δ = {cfg.delta:g}, κ = {cfg.kappa}, h0 = {cfg.h0} (the official code's
    defaults); the actor ablation with the tolerance stop off and {cfg.ablation_iters} contrastive iterations.
    Arithmetic family: {cfg.lm_seeds} replicates of {cfg.lm_n_val} validation and {cfg.lm_n_test} test queries;
    three small LMs (width {cfg.lm_d_model} and three quarters of it, {cfg.lm_n_layer} layer(s)), each trained
    {cfg.lm_steps} updates of {cfg.lm_batch} lines at rate {cfg.lm_lr:g}.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Setting and method

    ### The tasks and the agents (programs, not language models)

    A task is a hidden list function, a composition of two or three primitives of our DSL (add 1, add 2,
    double, halve; keep the even, odd or >4 elements; sort, reverse; take 3, drop 1, de-duplicate). An agent
    sees two input/output examples; its answer is a program, judged by pass@1 on six hidden tests. Answers are
    compared by behaviour (their outputs on the visible inputs and on three unlabelled probe inputs), as
    DyLAN compares code. Every program of length at most 3 (1,884 of them) is run once per task, so an agent's
    answer is read from arrays and the optimiser's many evaluations are fast.

    The pool (DyLAN's "candidate agents") holds a **Generalist**, three specialists (**Mapper**, **Filterer**,
    **Orderer**: enumerators that weight one family of primitives) and a **Repairer**. An enumerator draws
    `budget` programs from its grammar prior (family weights, maximum depth) and answers the first that passes
    the visible examples; in later layers it keeps a passing answer of its own and, by its *trust* setting,
    ignores its peers, adopts a passing peer answer when its own fails, or takes the majority. The Repairer
    keeps a passing answer it received, else searches the one-edit neighbourhood of what it received.

    ### The collaboration (DyLAN's layered network)

    Per query: the **pre-selection** controller picks the agents that take part ($n$ of them); in each layer
    they answer in turn; once at least $\lfloor 2n/3\rfloor$ have answered, the layer stops as soon as the most
    frequent answer has a count $c>\lfloor 2n/3\rfloor$ (the **two-thirds consensus**), and that answer is final.
    Otherwise the **ranking** controller keeps the best answers and, for each agent of the next layer, the
    **edge** controller chooses which kept answers it receives; after the last layer the ranker picks the final
    answer. Controllers answer an index list such as `[1, 3]`; an answer the parser refuses (empty, malformed,
    out of range) falls back to a random subset, as in the released code, and every fallback is counted. Calls
    are counted as the paper counts LLM calls: every agent answer and every controller decision.

    ### The five dimensions

    | | paper (code id) | here: what a configuration sets |
    |---|---|---|
    | Fun-1 | an agent's prompt (`<AgentName>`) | the Generalist's family weights, depth, budget, trust |
    | Fun-2 | a new agent (`construct-role`) | the solver kind and its configuration, added to the pool |
    | Str-1 | pre-selection prompt (`pre-rank`) | scoring of the pool (task features, pool order, budget), $k$, minimum score |
    | Str-2 | ranking prompt (`rank`) | scoring of answers (visible tests, agreement, both, shortest), $k$, threshold |
    | Str-3 | structure prompt (`structure`) | routing rule (rank order, best, agreeing, random), in-degree, threshold |

    ### The optimiser (Algorithms 1 and 2, our reconstruction)

    For a dimension $d$ with the other settings $P_{-d}$ fixed, the objective is the validation pass@1 of the
    whole collaboration,
    $$
    J(p_d)=\frac{1}{|D_\text{val}|}\sum_{q\in D_\text{val}}\operatorname{pass}\big(\operatorname{MAS}(q;\,p_d,P_{-d}),\,q\big).
    $$
    **Algorithm 1** seeds the population with the current setting $p^{(0)}$, adds $N-1$ candidates from the
    Initializer (here farthest-point sampling in option distance), then for $t=0,\dots,T_\text{max}-1$ draws a
    better parent $p^+$ from the top $h=h_0+t$ of the population and a worse $p^-$ from the bottom $h$
    ($h=\lfloor|\mathcal P|/2\rfloor$ when $|\mathcal P|<2h$); the Comparator writes a child (here: it copies $p^+$,
    pushes each attribute where the parents differ one step further away from $p^-$ with probability ½, and
    mutates one attribute where they agree); it stops early when $\kappa$ iterations in a row improve the best by
    less than $\delta$. **Algorithm 2** sweeps an ordered list of dimensions, each optimised with the previous
    optima fixed. The optimiser sees only the validation split; every comparison below is made on the held-out
    test split.
    """)
    return


@app.cell
def _(om, run):
    example = om.example_query(run.seed)
    return (example,)


@app.cell
def _(example, plots):
    plots.network_figure(example[0], example[1], example[2])
    return


@app.cell
def _(example, mo, om):
    _t, _team, _tab, _task = example
    _ex = "; ".join(f"`{list(x)}` → `{list(y)}`" for x, y in _task.visible)
    mo.md(f"""
    *Figure: one query through the default team: {_ex}. Each node is an agent in a layer with the program
    it answered; arrows are the kept answers the edge controller routed to it. The hidden target is
    `{om.dsl.program_text(_task.target)}`.*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    Each replicate draws fresh tasks, scores the default team (DyLAN's defaults), runs Algorithm 1 on each
    of the five dimensions alone, Algorithm 2 in both orders of Fun-1 and Str-2, the comparator and the
    resampling actor at exactly equal budgets, random search over Fun-1 at the budget Algorithm 1 used, and
    the nearest trivial methods each claim rule must reject (a dimension the engine ignores, configurations
    drawn without scoring, a second optimiser seed, an unoptimised clone as the "new" agent).
    """)
    return


@app.cell
def _(cfg, om, run):
    reps = run.cached_many([("omac-replicate", om.replicate, cfg, run.seed, _i) for _i in range(cfg.n_seeds)])
    return (reps,)


@app.cell
def _(mo, om, reps):
    _rows = om.arm_table(reps)
    _lines = "\n".join(f"| {r['arm']} | {r['val']:.3f} | {r['test']:.3f} | {r['calls']:.1f} | {r['evals']:.1f} |"
                       for r in _rows)
    mo.md(f"""
    | arm | validation pass@1 | test pass@1 | calls per test query | validation evaluations |
    |---|---|---|---|---|
    {_lines}

    *Table: means over {len(reps)} replicates (`single:` one dimension by Algorithm 1; `joint:` Algorithm 2 in
    the order shown; `fixed:`/`resample:` the actor ablation; `random:` random search; the rest are the trivial
    methods).*
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Does the search find better teams, and do they stay better on held-out tasks? (claims 1 and 2)
    """)
    return


@app.cell
def _(plots, reps):
    plots.gains_figure(reps)
    return


@app.cell
def _(cfg, mo, om, reps, run):
    check1 = om.claims.claim1_validation_gain(reps, cfg)
    check2 = om.claims.claim2_test_transfer(reps, cfg)
    _fun2 = om.structure_scan(cfg, run.seed, dims=("fun2",), sample=cfg.scan_sample)
    check7 = om.claims.claim7_new_agent(reps, cfg, scan=_fun2)
    _s = _fun2["fun2"]
    mo.md(f"""
    *Figure: gain in pass@1 over the default team, on validation (what the optimiser saw) and on the held-out
    test split, for each optimised arm (means and 95 % t-intervals over replicates).*

    {check1.sentence("Claim 1")}

    {check2.sentence("Claim 2")}

    {check7.sentence("Claim 7")}

    Beside claim 7, how much a new agent could add at all: Fun-2 scanned on {_s.describe()}, each added to the
    default pool and scored on one fresh validation split of {cfg.n_val} tasks: the best is {_s.best_gain:+.3f} pass@1
    over the default pool ({_s.default_score:.3f}; the default pool ranks {_s.default_rank} of
    {len(_s.scores) + 1}). That maximum over {len(_s.scores)} agents scored once is biased upward, so the best
    agent and the default pool are scored again on a second fresh split of {_s.rescore.n} tasks: the re-scored
    room is {_s.room:+.3f} [{_s.rescore.lo:+.3f}, {_s.rescore.hi:+.3f}] (paired 95 % t-interval). Where it is not
    above {cfg.new_agent_min:g}, "no gain" is not shown to be anything but forced by the search space, and claim
    7 reads inconclusive, never not reproduced.
    """)
    return check1, check2, check7


@app.cell
def _(cfg, mo, om, run):
    scan = om.structure_scan(cfg, run.seed)
    _lines = "\n".join(
        f"| {d} | {len(s.scores)} | {s.scores.min():.3f} – {s.scores.max():.3f} | {s.calls.min():.1f} – "
        f"{s.calls.max():.1f} | {s.default_score:.3f} | {s.default_rank} of {len(s.scores)} |" for d, s in scan.items())
    _rooms = "; ".join(f"{d} {s.room:+.3f} [{s.rescore.lo:+.3f}, {s.rescore.hi:+.3f}] (paired 95 % t-interval over "
                       f"{s.rescore.n} tasks)" for d, s in scan.items())
    mo.md(f"""
    How much can the structural controllers move the result at all? Every configuration of Str-2 and Str-3,
    the rest of the team at its defaults, on one fresh validation split of {cfg.n_val} tasks:

    | dimension | configurations | validation pass@1 (min – max) | calls per query (min – max) | default's pass@1 | default's rank |
    |---|---|---|---|---|---|
    {_lines}

    The best of each scan is a maximum over many configurations scored once, biased upward; so the best
    configuration and the default are scored again on a second fresh split of as many tasks. The re-scored
    room, best minus default: {_rooms}. Claims 3 and 4 read this re-scored room: where it is not above
    {cfg.acc_change_min:g}, optimising the dimension has nothing shown to find, so "no change" (claim 4), or a tie
    of the two actors on it (claim 3), is not evidence against the claim.
    """)
    return (scan,)


@app.cell
def _(mo):
    mo.md(r"""
    ### The Contrastive Comparator against resampling (claim 3)

    Both actors run Algorithm 1 from the same initial population with the tolerance stop off, so each gets
    exactly the same number of evaluations; the resampling actor asks the Initializer for one more candidate
    where the Comparator would write a child.
    """)
    return


@app.cell
def _(plots, reps):
    plots.search_curve_figure(reps)
    return


@app.cell
def _(cfg, mo, om, reps, scan):
    check3 = om.claims.claim3_contrastive(reps, cfg, scan=scan)
    mo.md(f"""
    *Figure: best validation pass@1 so far, minus the default's, against evaluations (means and 95 %
    t-intervals over replicates).*

    {check3.sentence("Claim 3")}
    """)
    return (check3,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Structure, joint optimisation and order (claims 4, 5 and 6)
    """)
    return


@app.cell
def _(plots, reps):
    plots.calls_figure(reps)
    return


@app.cell
def _(cfg, mo, om, reps, scan):
    check4 = om.claims.claim4_structure(reps, cfg, scan=scan)
    check5 = om.claims.claim5_joint(reps, cfg)
    check6 = om.claims.claim6_order(reps, cfg)
    _fb = {k: sum(r["single:str2"].fallback_rate.get(k, 0.0) for r in reps) / len(reps) for k in ("str1", "str2", "str3")}
    mo.md(f"""
    *Figure: held-out pass@1 against calls per query for each arm (means and 95 % t-intervals).*

    Controllers' fallback rate on test after optimising Str-2 alone (share of decisions the parser refused and
    replaced by a random subset): pre-selection {_fb['str1']:.1%}, ranking {_fb['str2']:.1%}, edges
    {_fb['str3']:.1%}.

    {check4.sentence("Claim 4")}

    {check5.sentence("Claim 5")}

    {check6.sentence("Claim 6")}
    """)
    return check4, check5, check6


@app.cell
def _(mo):
    mo.md(r"""
    ### The second family: small language models trained from scratch

    A query is an expression of three digits and two operators (`3*4+5=`, shapes `a+b+c`, `a*b+c`, `a+b*c`),
    answered with two digits. The 3,000 possible expressions are split once into a half the models train on and
    a half every validation and test query is drawn from, so no query was seen in training. Three small GPTs
    from the book's language-model lab are trained from scratch here, with the book's trainer, on lines of three
    solved expressions (loss on the answer digits): a *general* model on all shapes, and two narrower ones that
    mostly saw sums or mostly products. All three get the same updates, batch and learning rate.

    An agent is one of these models plus a configuration: how many worked examples stand before the query (0,
    1 or 2; random ones or of the query's shape), the decoding temperature, the number of samples, and how one
    answer is chosen (majority vote, or the first sample that passes the two residue checks: the answer and the
    expression agree modulo 3 and modulo 2, about one wrong answer in six passes both). Because an answer has
    two digits, the model's whole answer distribution at a temperature is computed exactly from one batched
    forward pass; samples are drawn from it with the query's common random numbers. The pool holds a Generalist
    (which Fun-1 optimises), a Summer and a Multiplier on the narrow models, a Sampler, and a Repairer that edits
    one digit of a received answer until it passes the checks. The ranking controller may score answers by the
    general model's log-probability. Everything else (controllers, consensus, Algorithms 1 and 2, the arms) is
    the same code as for the program agents.
    """)
    return


@app.cell
def _(cfg, om, run):
    lm_agents = om.lm_agents(cfg, run.seed)
    lm_conv = om.lm_convergence(cfg, run.seed)
    return lm_agents, lm_conv


@app.cell
def _(cfg, lm_agents, plots):
    plots.training_figure(lm_agents, cfg.lm_loss_margin)
    return


@app.cell
def _(lm_agents, lm_conv, mo):
    _acc = ", ".join(f"{s.name} {a:.1%}" for s, a in zip(lm_agents.specs, lm_agents.accuracies))
    _conv = "; ".join(c.text for c in lm_conv)
    mo.md(f"""
    *Figure: held-out answer loss of the three small LMs during training (evaluated every
    {lm_agents.specs[0].eval_every} updates on 300 expressions of the task half). Training took
    {sum(lm_agents.seconds):.1f} s of this machine in all. Held-out greedy accuracy of each model alone, zero-shot:
    {_acc}. Plateau tests (rule 10, declared in the config): {_conv}.*
    """)
    return


@app.cell
def _(cfg, om, run):
    lm_reps = run.cached("omac-lm-study", om.lm_study, cfg, run.seed)
    return (lm_reps,)


@app.cell
def _(lm_reps, mo, om):
    _rows = om.arm_table(lm_reps, ["default", "single:fun1", "single:fun2", "single:str1", "single:str2",
                                   "single:str3", "joint:fun1>str2", "joint:str2>fun1", "fixed:fun1",
                                   "resample:fun1", "random:fun1", "unscored:joint", "clone"])
    _lines = "\n".join(f"| {r['arm']} | {r['val']:.3f} | {r['test']:.3f} | {r['calls']:.1f} | {r['evals']:.1f} |"
                       for r in _rows)
    _best = lm_reps[0]["joint:fun1>str2"].described
    mo.md(f"""
    | arm (small-LM agents) | validation accuracy | test accuracy | calls per test query | validation evaluations |
    |---|---|---|---|---|
    {_lines}

    *Table: the arithmetic family, means over {len(lm_reps)} replicates (same arms as above). The joint sweep of
    the first replicate chose: {_best}.*
    """)
    return


@app.cell
def _(lm_reps, plots):
    plots.gains_figure(lm_reps, family="arith")
    return


@app.cell
def _(cfg, lm_conv, lm_reps, mo, om, run):
    lm_scan = om.structure_scan(cfg, run.seed, family="arith")
    _fun2 = om.structure_scan(cfg, run.seed, dims=("fun2",), family="arith", sample=cfg.scan_sample)["fun2"]
    check_l1 = om.claims.claim_l1_lm_validation_gain(lm_reps, cfg, lm_conv)
    check_l2 = om.claims.claim_l2_lm_test_transfer(lm_reps, cfg, lm_conv)
    check_l3 = om.claims.claim_l3_lm_contrastive(lm_reps, cfg, lm_conv, scan=lm_scan)
    check_l4 = om.claims.claim_l4_lm_structure(lm_reps, cfg, lm_conv, scan=lm_scan)
    check_l5 = om.claims.claim_l5_lm_joint(lm_reps, cfg, lm_conv)
    check_l6 = om.claims.claim_l6_lm_order(lm_reps, cfg, lm_conv)
    check_l7 = om.claims.claim_l7_lm_new_agent(lm_reps, cfg, lm_conv, scan={"fun2": _fun2})
    _lines = "\n\n".join(c.sentence(f"Claim {c.rule_id.split(':')[1]}")
                          for c in (check_l1, check_l2, check_l3, check_l4, check_l5, check_l6, check_l7))
    mo.md(f"""
    *Figure: gain in accuracy over the default team of small-LM agents, on validation and on held-out queries
    (means and 95 % t-intervals over replicates).*

    The seven rules again on the small-LM family, each behind the convergence guard (L4 reads a scan of every
    Str-2 and Str-3 configuration of the small-LM team, as claim 4 does: the default ranks
    {lm_scan["str2"].default_rank} of {len(lm_scan["str2"].scores)} and {lm_scan["str3"].default_rank} of
    {len(lm_scan["str3"].scores)}; L7 reads Fun-2 scanned on {_fun2.describe()}, each added to the default
    pool of small-LM agents: the best is {_fun2.best_gain:+.3f} accuracy over the default pool, which ranks
    {_fun2.default_rank} of {len(_fun2.scores) + 1}; both rows read the room re-scored on a second fresh split
    of as many queries: Str-2 {lm_scan["str2"].room:+.3f}, Str-3 {lm_scan["str3"].room:+.3f}, Fun-2
    {_fun2.room:+.3f}):

    {_lines}
    """)
    return check_l1, check_l2, check_l3, check_l4, check_l5, check_l6, check_l7


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Choose the task family, the dimensions to sweep (in order), N, T_max, δ and the seed of the split and the
    search (the small LMs stay the ones trained above); Algorithm 2 runs on a fresh
    split of this profile's size (a few seconds; the arithmetic family reuses the small LMs trained above). On the website the controls show the values this page was built with;
    open the chapter live to move them.
    """)
    return


@app.cell
def _(mo, run):
    order_pick = mo.ui.dropdown(options={"Fun-1 → Str-2": "fun1,str2", "Str-2 → Fun-1": "str2,fun1",
                                         "Fun-1 → Str-2 → Str-3": "fun1,str2,str3", "Str-1 → Fun-1": "str1,fun1",
                                         "Fun-2": "fun2", "Str-3": "str3"},
                                value="Fun-1 → Str-2", label="dimension sequence")
    family_pick = mo.ui.dropdown(options={"list functions (program agents)": "dsl",
                                          "arithmetic (small trained LMs)": "arith"},
                                 value="list functions (program agents)", label="task family")
    n_pick = mo.ui.slider(2, 6, value=3, label="N (initial candidates)")
    t_pick = mo.ui.slider(0, 8, value=3, label="T_max")
    delta_pick = mo.ui.dropdown(options={"0": 0.0, "0.01": 0.01, "0.05": 0.05}, value="0.01", label="δ")
    seed_pick = mo.ui.number(start=0, stop=999, step=1, value=run.seed, label="seed (split and search)")
    mo.hstack([family_pick, order_pick, n_pick, t_pick, delta_pick, seed_pick])
    return delta_pick, family_pick, n_pick, order_pick, seed_pick, t_pick


@app.cell
def _(cfg, delta_pick, family_pick, mo, n_pick, om, order_pick, plots, run, seed_pick, t_pick):
    _pg = om.playground_run(cfg, run.seed, tuple(order_pick.value.split(",")), n_pick.value, t_pick.value,
                            delta_pick.value, family=family_pick.value, search_seed=int(seed_pick.value))
    mo.vstack([plots.sweep_figure(_pg),
               mo.md(f"*Figure: every candidate's validation pass@1 in evaluation order (dots) and the best so far "
                     f"(steps), for the sequence {order_pick.value} on the {family_pick.value} family, N = {n_pick.value}, T_max = {t_pick.value}, "
                     f"δ = {delta_pick.value:g}, seed {int(seed_pick.value)}; calls per test query {_pg.default_calls:.1f} → {_pg.calls:.1f}.*")])
    return


@app.cell
def _(mo, om):
    mo.md(rf"""
    ## Claims ledger

    Each row is decided by the rule shown, applied to the numbers this run produced; under each rule, the
    alternative it rejects. Every decided row is marked *our reconstruction*: it tests our reading of the
    algorithms, with program agents ({om.claims.rows_of("dsl")}) or small LMs trained from scratch
    ({om.claims.rows_of("arith")}), never the paper's LLM results. The paper's column quotes the abstract, or
    says "not reached".
    """)
    return


@app.cell
def _(ClaimsLedger, check1, check2, check3, check4, check5, check6, check7, check_l1, check_l2, check_l3,
      check_l4, check_l5, check_l6, check_l7, run):
    ledger = ClaimsLedger("omac_multiagent", run.profile)
    ledger.add_checks(check1, check2, check3, check4, check5, check6, check7, check_l1, check_l2, check_l3,
                      check_l4, check_l5, check_l6, check_l7)
    ledger.add_not_testable()
    ledger
    return (ledger,)


@app.cell
def _(cfg, mo, om):
    mo.md(rf"""
    ## How this chapter differs from the paper

    - **Agents are programs and small trained LMs, not LLMs.** The paper's agents, controllers and optimiser
      are GPT-3.5 calls on HumanEval, MATH and MMLU. Ours are seeded program-synthesis solvers on list-function
      tasks of our own (rows {om.claims.rows_of("dsl")}) and small GPTs trained from scratch here on
      two-operator arithmetic (rows {om.claims.rows_of("arith")}, where the agents are {cfg.lm_d_model}-wide models of {cfg.lm_n_layer} layer(s), far below any LLM,
      and the residue checks are our stand-in for visible tests); a "prompt" is a configuration of a program.
      All decided rows are claims about the search procedure; the LLM results (A1, A2) are not testable here and
      no number of the paper's is quoted (its tables were not reached).
    - **The actors are operators.** The Semantic Initializer is farthest-point sampling in configuration space;
      the Contrastive Comparator copies the better parent, extrapolates where the parents differ and mutates
      where they agree. Both are our reconstruction of what the LLM actors do; the meta-prompts are not used.
    - **Two task families, the same rules on both.** On the arithmetic family we decide the same seven rules
      again ({om.claims.rows_of("arith")}, one decision function per rule with the family as a parameter), each
      behind rule 10's guard: every small LM must pass the declared plateau test on its held-out answer loss
      (training 50 % longer moves it by less than {cfg.lm_loss_margin / 3:.3g} nats; read back along the
      training curve first and, where that passes, checked against the same models trained 50 % longer), else
      the row is inconclusive (not converged).
    - **Revised after reviewing the small-LM rows.** The joint-optimisation rule (C5, L5) is inconclusive
      unless the better single dimension's own gain over the default is shown to exceed the non-inferiority
      margin: on a family where optimisation moves accuracy by less than the margin, the unoptimised default
      team would pass the non-inferiority test too (it did, on the development run's small-LM output).
    - **The LLM backend is off.** `omac_multiagent.llm` can send the two actors' requests (our own
      meta-prompts) and an agent's questions from a reader's local task file to the reader's own
      OpenAI-compatible server; this page never selects it, and the book tests it only against a local stub
      server that is a test fixture. No number here comes from a language model other than the small LMs trained
      above.
    - **Revised after a development run.** After the first development run at `default`, the actor ablation
      (claim 3) was made paired: both actors now start from the same initial population and differ only in the
      refinement step, because with separate initial populations two runs of the *same* resampling actor under
      different seeds already passed the rule. The rule's threshold did not change.
    - **Algorithms reconstructed from code.** Algorithm 1 (N = {cfg.n_init}, T_max = {cfg.t_max},
      δ = {cfg.delta:g}, κ = {cfg.kappa}, h0 = {cfg.h0}) and Algorithm 2 follow the released code; the paper's
      text of them was not reached.
    - **Our thresholds.** The minimum effects (validation gain {cfg.val_gain_min:g}, test gain
      {cfg.test_gain_min:g}, comparator over resampling {cfg.compare_min:g}, new agent {cfg.new_agent_min:g},
      no-change windows ±{cfg.acc_change_min:g} pass@1 and ±{cfg.calls_change_min:g} calls,
      non-inferiority margin {cfg.joint_margin:g}, order window ±{cfg.order_min:g}) are ours, fixed in the config
      before the run. The test-gain, comparator and new-agent minimums were 0 in the first development runs and
      were raised to the validation gain's two points afterwards, because at 0 an arm that changes nothing
      (exactly +0.000 in every replicate) could never be "not reproduced"; no row turned green by it.
    - **Nothing to find is not evidence.** Claims 4 and 7 (and L4, L7) read "no effect" as evidence against
      only where a scan of the dimension ({cfg.scan_sample} random new agents for Fun-2, every configuration of
      Str-2 and Str-3) finds a configuration above the default by more than the minimum effect; otherwise the
      row is inconclusive. Added after development runs in which the defaults were already (or nearly) the best
      configurations, so that "no effect" was forced by the search space (stricter only). Since session 12 the
      room is the scan's best configuration re-scored with the default on a second fresh split of as many
      tasks, not the scan's own maximum: an outside review found that configurations no better than the default
      that flip 5 % of the task outcomes put that maximum above 0.02 in every draw (median 0.04).
    - **Scale.** {cfg.n_seeds} replicates of {cfg.n_val} validation and {cfg.n_test} test tasks at this
      profile; a row whose interval cannot separate the claim from its negation is marked inconclusive at this
      scale, with the reason.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    - S. Li, H. Hasson, J. Ghosh. *OMAC: A Holistic Optimization Framework for LLM-Based Multi-Agent Collaboration.* ICML 2026, arXiv:2505.11765 [@li2026omac].
    - Z. Liu, Y. Zhang, P. Li, Y. Liu, D. Yang. *A Dynamic LLM-Powered Agent Network for Task-Oriented Agent Collaboration* (DyLAN). COLM 2024 [@liu2024dylan].
    - M. Chen et al. *Evaluating Large Language Models Trained on Code* (HumanEval). 2021 [@chen2021humaneval].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
