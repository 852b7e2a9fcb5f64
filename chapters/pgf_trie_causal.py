import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.pgf_trie_causal import (LearnerConfig, PoissonBranchingSCM, causal_learn_available, config_for,
                                          identifiability_table, learn_lc_pbscm, pc_baseline, random_lc_pbscm,
                                          score_graph)
    from icmlbook.pgf_trie_causal import experiments as ex
    from icmlbook.pgf_trie_causal import plots
    from icmlbook.pgf_trie_causal.pgf import log_pgf_latex
    from icmlbook.runtime import ClaimsLedger, start_run
    return (ClaimsLedger, LearnerConfig, PoissonBranchingSCM, causal_learn_available, config_for, ex,
            identifiability_table, learn_lc_pbscm, log_pgf_latex, mo, np, pc_baseline, plots, random_lc_pbscm,
            score_graph, start_run)


@app.cell
def _(mo):
    mo.md(r"""
    # Latent confounders in Poisson branching models: the PGF, its trie and what it identifies

    Count data often come from branching: each upstream event triggers a downstream event with some
    probability, as when an ad impression leads to a click and then to a purchase. A Poisson branching
    structural causal model (PB-SCM) writes this with binomial thinning along the edges of a DAG and
    Poisson noise at each node. The paper reimplemented here allows *latent confounders*. It argues
    that the logarithm of the joint probability generating function (PGF) is a polynomial, and that
    its monomials record the branching paths (a "trie"). It then classifies every three-variable
    local structure by the support of this polynomial, and learns graphs from local tests.

    We rebuild all of this from the paper's abstract and its two predecessors, because the paper's
    own text was not reachable. The closed form, the trie map and the identifiability table are
    **our derivations**. They are exact and check out against simulation: 129 classes over 400 local
    structures, 80 of them identified. The tests that read the support from data are sample-hungry,
    however. On 10-node graphs with 30,000 samples, our learner decides few arrows, although the ones
    it decides are mostly right. Its directed-edge F1 therefore stays below PC's. In our runs it
    almost never puts an arrow between two variables that only share a latent confounder. Methods
    that assume causal sufficiency often do. The ledger gives this run's numbers.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## The paper at a glance

    * **Paper:** *On the Identifiability of Poisson Branching Structural Causal Model Under Latent
      Confounding*, ICML 2026 (poster 66099) [@pgftrie_lcpbscm2026]. We could not verify the authors;
      the line of work comes from the group behind the PB-SCM papers
      [@pgftrie_qiao2024cumulant; @pgftrie_xiang2024pgf]. We found no arXiv version and no code.
    * **What it proposes:** the LC-PB-SCM (a PB-SCM with latent confounders); PGFs to describe the
      dependencies that latent confounding creates; a *Trie representation theorem* that maps
      branching mechanisms to PGF monomials; a complete identifiability condition for local
      three-variable structures "up to monomial equivalence", built on *local PGFs*; a practical
      learning algorithm, evaluated on synthetic and real data.
    * **The claims we test** (our dossier's reading of the abstract, numbered as in the ledger):
      1. the joint PGF has a closed form that matches the empirical PGF;
      2. the support of $\log G$ does not depend on the parameter values;
      3. zero-conditioning (setting $z_c=0$) blocks the paths through $c$;
      4. the local structures fall into 13 classes without latents (4 identified) and into 129
         classes with latents (80 identified), in our configuration space;
      5. a single edge is not identifiable: $A\to B$, $B\to A$ and $A\leftarrow L\to B$ can give the
         same law;
      6. the sink of a triangle is identified by a $z^2$ monomial;
      7. end to end, the learner beats PC and FCI on directed edges, and beats a causally
         sufficient PB-SCM method on confounded pairs;
      8. accuracy improves with the sample size.

    The paper's headline numbers were not reachable, so every "paper" entry in the ledger below is
    qualitative.
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    e2e_latents = 2
    level = 0.01
    return e2e_latents, level, profile, seed


@app.cell
def _(config_for, e2e_latents, level, profile, seed, start_run):
    run = start_run("pgf_trie_causal", profile=profile, seed=seed)
    cfg = config_for(run.profile, e2e_latents=e2e_latents, level=level)
    return cfg, run


@app.cell
def _(mo):
    mo.md(r"""
    ## Setting and method

    ### The model

    A DAG over nodes $V = O\cup L$ (observed and latent). Each edge $i\to j$ carries a thinning
    probability $\alpha_{ij}\in(0,1)$, and each node an exogenous rate $\mu_j>0$:

    $$
    X_j \;=\; \sum_{i\in\mathrm{pa}(j)} \alpha_{ij}\circ X_i \;+\; \varepsilon_j,
    \qquad \varepsilon_j\sim\mathrm{Poisson}(\mu_j),
    $$

    $$
    \alpha\circ X = \sum_{k=1}^{X}\mathrm{Bernoulli}(\alpha).
    $$

    Binomial thinning $\alpha\circ X$ [@pgftrie_steutel1979thinning] lets every unit of $X_i$ flip
    its own coin for every child, independently. A latent confounder is a latent root whose units
    branch into several observed variables. The data hold only the observed columns.

    ### The PGF in closed form (our derivation)

    Follow *one* unit born at node $v$. It is counted at $v$, and it passes to each child $c$ with
    probability $\alpha_{vc}$, where it starts the same process again. The PGF of the counts this
    single unit leaves on the observed nodes is therefore

    $$
    g_v(z) \;=\; z_v^{\mathbb 1[v\in O]}\prod_{c\in\mathrm{ch}(v)}\bigl(1-\alpha_{vc}+\alpha_{vc}\,g_c(z)\bigr).
    $$

    A latent node carries no $z$, which marginalises it. Node $v$ emits a $\mathrm{Poisson}(\mu_v)$
    number of independent units, so the joint PGF of the observed counts is

    $$
    \log G(z) \;=\; \log E\Bigl[\prod_{j\in O} z_j^{X_j}\Bigr] \;=\; \sum_{v\in V}\mu_v\bigl(g_v(z)-1\bigr).
    $$

    So $\log G$ is a polynomial whose non-constant coefficients $c_\beta$ are non-negative. Three
    consequences follow:

    * the observed vector is multivariate compound Poisson,
      $X_O=\sum_\beta \beta\,N_\beta$ with independent $N_\beta\sim\mathrm{Poisson}(c_\beta)$
      [@pgftrie_johnson1997discrete];
    * nothing cancels, so the **support** $\{\beta: c_\beta>0\}$ depends on the graph alone;
    * a monomial $z^\beta$ is one *pattern* that a single exogenous unit can leave.

    ### The trie (our reading of the "Trie representation theorem")

    Unfold the directed paths that start at $v$ into a trie: its root is $v$, and each trie node is
    a path extended by one edge. A unit activates a sub-trie in which each child of an active node
    switches on with the probability of its edge. The exponent of $z_j$ in the resulting monomial is
    the number of active paths that end at $j$. Hence:

    * $z_j^2$ needs two distinct paths from one source to $j$;
    * $z_iz_j$ without $z_k$ needs a source that reaches $i$ and $j$ while avoiding $k$;
    * a monomial without its source's own variable comes from a latent source.
    """)
    return


@app.cell
def _(PoissonBranchingSCM):
    demo = PoissonBranchingSCM.from_edges(
        "ABCL", {("A", "B"): 0.3, ("B", "C"): 0.4, ("A", "C"): 0.5, ("L", "A"): 0.5, ("L", "C"): 0.6},
        mu={"A": 1.0, "B": 0.5, "C": 0.7, "L": 1.2}, latent=["L"])
    demo_pos = {"A": (0.0, 1.0), "B": (-0.9, -0.4), "C": (0.9, -0.4), "L": (1.15, 0.95)}
    return demo, demo_pos


@app.cell
def _(demo, demo_pos, plots):
    plots.plot_cascade(demo, "L", demo_pos)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *A branching cascade drawn as a graph (left) and as the trie of the paths from the latent
    source $L$ (right). Every sub-trie that contains the root is one pattern that a unit of $L$ can
    leave; the trie has two nodes that end at $C$, which is why $L$ can put $z_C^3$ into the PGF.*

    The next figure lists every monomial of $\log G$ for this example. Its bars are split by the
    source that creates the monomial, and each bar is labelled with the activated paths of its
    largest contribution. The monomials $z_Az_C^2$ and $z_Az_Bz_C^3$ need the latent source: only
    $L$ can reach $C$ by a path that does not start with $A$'s own unit.
    """)
    return


@app.cell
def _(demo, plots):
    plots.plot_monomials(demo)
    return


@app.cell
def _(PoissonBranchingSCM, log_pgf_latex, mo):
    _tiny = PoissonBranchingSCM.from_edges("ABL", {("A", "B"): 0.3, ("L", "A"): 0.5, ("L", "B"): 0.5}, 1.0,
                                           latent=["L"])
    _rows = "\n".join(f"| `{m}` | `{c}` |" for m, c in log_pgf_latex(_tiny, latex=False))
    mo.md("The symbolic coefficients (sympy) for the smallest confounded example, A→B with "
          "A←L→B. The monomial z_A·z_B² exists only because the latent unit can reach "
          "B twice, directly and through A:\n\n| monomial | coefficient in log G |\n|---|---|\n" + _rows)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Local PGFs and what data can show

    Setting $z_c=0$ for the variables $c\in C$ gives the *local PGF*

    $$
    G(z_S, 0_C, 1_R) \;=\; E\bigl[z_S^{X_S}\,\mathbb 1\{X_C=0\}\bigr].
    $$

    It deletes every monomial that contains a $z_c$, that is, every cascade that touches $C$.
    Conditionally on $X_C=0$, the other counts are again compound Poisson with the remaining
    monomials. Unlike conditioning in d-separation, conditioning a collider to be zero creates no
    dependence.

    The support cannot be read off samples directly, but one kind of query can. Ask whether some
    monomial $\beta$ with $\beta_C=0$ dominates a pattern $p$ componentwise. The answer is yes
    exactly when the **factorial cumulant** is positive:

    $$
    \kappa_{[p]}(X\mid X_C=0) \;=\; \sum_{\beta:\,\beta_C=0} c_\beta\prod_k(\beta_k)_{p_k} \;\ge 0.
    $$

    The falling factorials $(\beta_k)_{p_k}$ come from the expansion
    $\log G(1+t)=\sum_\beta c_\beta\prod_k(1+t_k)^{\beta_k}$. Some special cases:

    * $p=e_i+e_j$ gives the covariance;
    * $p=2e_j$ gives the over-dispersion $\mathrm{Var}X_j-EX_j$;
    * $p=e_i+e_j+e_k$ gives the third joint cumulant.

    We estimate $\kappa_{[p]}$ from sample factorial moments with the moment-to-cumulant formula,
    and test $\kappa_{[p]}>0$ one-sided, with a delta-method standard error.

    ### The local identifiability table (our enumeration)

    Take three observed variables $A,B,C$, any of the 25 DAGs over them, and any subset of the
    latent confounders $\{L_{AB},L_{AC},L_{BC},L_{ABC}\}$. That gives 400 local structures. Two
    structures are *monomial-equivalent* when they have the same support. The paper's own table and
    configuration space were not reachable, so the counts below are ours.

    We also checked what a test can read. The 67 dominance queries with at most one variable of the
    triple zeroed and $2\le|p|\le 4$ separate exactly the same 129 classes; with $|p|\le3$ there
    are 37 queries and 120 classes.
    """)
    return


@app.cell
def _(identifiability_table):
    table = identifiability_table()
    table_counts = table.counts()
    return table, table_counts


@app.cell
def _(plots, table):
    plots.plot_latent_free_classes(table)
    return


@app.cell
def _(mo, table_counts):
    mo.md(f"""*Without latent confounders the {table_counts['latent_free_structures']} DAGs form
    {table_counts['latent_free_classes']} classes, {table_counts['latent_free_singletons']} of them
    identified: the empty graph and the three colliders. The direction of a lone edge is lost.
    Chains and forks on the same skeleton collapse together. In a complete DAG the sink is
    identified (through the square of its z), but the order of the other two is not.*""")
    return


@app.cell
def _(plots, table):
    plots.plot_identifiability(table)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *Class size of every local structure; 1 means the structure is identified up to monomial
    equivalence. Latent confounders both help and hurt. Three pairwise confounders make every DAG
    identifiable (column "LAB LAC LBC"). A confounder of all three variables ($L_{ABC}$) hides the
    DAG almost completely. Once latents are allowed, no latent-free DAG except the empty one is
    identified any more: a collider's arrows could also be latent confounders.*

    ### The learner (our reconstruction)

    1. **Skeleton.** Start from the complete graph and run a PC-style search over zero-conditioning
       sets $C\subseteq\mathrm{adj}(i)\cup\mathrm{adj}(j)$ with $|C|\le3$. Remove $i-j$ when the
       test accepts $\mathrm{Cov}(X_i,X_j\mid X_C=0)=0$. A direct edge or a common latent parent is
       never blocked, so an adjacency means one or both.
    2. **Local triples.** For every triple with at least two adjacent pairs, zero its observed
       neighbours outside the triple; this leaves the induced local structure plus latent
       confounders. Then test the 37 signature queries.
    3. **Match** the observed signature to the table, among the structures that agree with the
       skeleton. A detected monomial that a structure lacks costs 1; a predicted monomial that was
       not detected costs 1, 0.5 or 0.25 at degree 2, 3 or 4, because higher-degree tests have less
       power. The best matches are the triple's allowed structures.
    4. **Assemble.** Each adjacent pair carries a domain of states: direct edge $\to$, $\leftarrow$
       or none, and common latent parent yes or no. The triples' constraints are added in order of
       confidence and propagated (arc consistency); a constraint that would empty a domain is
       dropped. A pair's arrow, or its latent mark, is reported only when all states left in its
       domain agree on it.

    The output is a `networkx.MultiDiGraph` with directed, bidirected ($\leftrightarrow$, latent
    confounding) and undirected (undetermined) edges. The table only tells which structures share a
    signature; every decision comes from tests on the data.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Experiments

    Unless stated otherwise, every experiment draws thinning probabilities from $U(0.3,0.7)$,
    observed rates from $U(0.1,0.5)$ and latent rates from $U(0.5,1)$. The rates are small on
    purpose: zero-conditioning keeps only the rows with $X_C=0$, and the dossier's rates $U(1,3)$
    leave too few of them (see "How this chapter differs").

    ### Claim 1: the closed-form PGF matches the empirical PGF
    """)
    return


@app.cell
def _(cfg, ex, run):
    pgf_res = ex.pgf_check(cfg, run.seed)
    return (pgf_res,)


@app.cell
def _(pgf_res, plots):
    plots.plot_pgf_check(pgf_res)
    return


@app.cell
def _(cfg, mo, pgf_res):
    mo.md(f"""*{cfg.pgf_graphs} random graphs ({cfg.pgf_nodes} observed nodes, 2 latents) at
    {cfg.pgf_points} random points each. The largest gap between the closed form and the empirical
    PGF of {cfg.pgf_samples:,} samples is {pgf_res.max_abs_error:.1e}, against a Monte-Carlo bound
    of 4/√N = {pgf_res.bound:.1e}.*""")
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Claim 2: the support does not depend on the parameters
    """)
    return


@app.cell
def _(cfg, ex, mo, run):
    support_res = ex.support_invariance(cfg, run.seed)
    mo.md(f"""We expanded log G exactly in sympy, with random rational parameters, for
    {cfg.support_graphs} random graph(s) (4 observed nodes, 2 latents) and {cfg.support_draws} draws
    each. The support sizes per graph were {[sorted(set(s)) for s in support_res.sizes]}. All draws of
    a graph agree: **{support_res.all_equal}**. They also equal the support computed from the graph
    alone (Minkowski sums of supports): **{support_res.matches_graph_rule}**
    ({support_res.seconds:.1f} s).""")
    return (support_res,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Claim 3: zero-conditioning blocks a chain
    """)
    return


@app.cell
def _(cfg, ex, run):
    chain_res = ex.chain_blocking(cfg, run.seed)
    return (chain_res,)


@app.cell
def _(chain_res, plots):
    plots.plot_chain(chain_res)
    return


@app.cell
def _(cfg, chain_res, mo, np):
    mo.md(f"""*{cfg.chain_reps} chains i→c→j with {cfg.chain_n:,} samples each. Without
    conditioning, i and j are dependent in {np.mean(chain_res.p_marginal <= cfg.level):.0%} of runs.
    Given X_c = 0 (about {chain_res.n_eff.mean():,.0f} usable rows), the covariance test accepts
    independence in {chain_res.accept_rate:.1%} of runs. With an extra edge i→j it rejects in
    {chain_res.reject_rate:.1%}.*""")
    return


@app.cell
def _(mo, table_counts):
    mo.md(f"""
    ### Claim 4: the local identifiability table

    Our enumeration, cached and shown in the two figures above, has:

    * {table_counts['structures']} local structures;
    * {table_counts['latent_free_classes']} classes without latents, {table_counts['latent_free_singletons']} of them singletons;
    * {table_counts['classes']} classes with latents, {table_counts['singletons']} of them singletons;
    * {table_counts['signature_classes']} classes separated by the {table_counts['features']} testable queries of degree at most 4.

    The tests recount the classes with an independent brute force.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Claim 5: a single edge is not identifiable

    The three models $A\to B$, $B\to A$ and $A\leftarrow L\to B$ can be solved to have the same
    compound-Poisson coefficients $c_A$, $c_B$ and $c_{AB}$, and hence the same law. We check this
    exactly, through the FFT of the PGF, and also with samples.
    """)
    return


@app.cell
def _(cfg, ex, mo, run):
    pair_res = ex.single_edge_equivalence(cfg, run.seed)
    _lines = "\n".join(f"| {k} | {v:.3f} |" for k, v in pair_res.p_values.items())
    mo.md(f"""| samples ({pair_res.n:,} each) | χ² homogeneity p-value |\n|---|---|\n{_lines}
| control: A→B vs independent A, B with the same marginals | {pair_res.control_p_value:.1e} |

The exact joint pmfs, obtained by FFT of the PGF on the unit circle, differ by at most
{pair_res.max_pmf_gap:.1e}: the three models are the same distribution, and the test has the power
to see a real difference (control).""")
    return (pair_res,)


@app.cell
def _(mo):
    mo.md(r"""
    ### Claim 6: the sink of a triangle

    In $a\to b\to c$, $a\to c$, the unit of $a$ can reach $c$ twice. The only $z^2$ monomial is
    therefore $z_az_bz_c^2$, so only the sink is over-dispersed.
    """)
    return


@app.cell
def _(cfg, ex, run):
    sink_res = ex.triangle_sink(cfg, run.seed)
    return (sink_res,)


@app.cell
def _(plots, sink_res):
    plots.plot_sink(sink_res)
    return


@app.cell
def _(cfg, mo, sink_res):
    mo.md(f"""*{cfg.sink_reps} random triangles with {cfg.sink_n:,} samples each. The node with the
    largest over-dispersion statistic is the sink in {sink_res.accuracy:.0%} of runs. The sink alone
    is significant at the {cfg.level} level in {sink_res.strict_accuracy:.0%} of runs.*""")
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### From the table to data: recovering local structures

    Before we assemble graphs, how well can samples locate a three-variable structure in the table?
    We simulate structures drawn from the 400, test the signature, and match it against the whole
    table.
    """)
    return


@app.cell
def _(cfg, ex, run, table):
    local_res = ex.local_recovery(cfg, run.seed, table)
    return (local_res,)


@app.cell
def _(local_res, plots):
    plots.plot_local_recovery(local_res)
    return


@app.cell
def _(local_res, mo):
    mo.md(f"""*Over {local_res.n_structures} local structures, the best matches contain the truth in
    {', '.join(f'{c:.0%}' for c in local_res.contains_truth)} of cases at N =
    {', '.join(f'{n:,}' for n in local_res.ns)}. The errors are almost all missed monomials: the
    degree-3 factorial cumulants are products of several thinning probabilities, and their tests
    have little power. A spurious detection is rare, as it should be at a calibrated level.*""")
    return


@app.cell
def _(mo):
    mo.md(r"""
    ### Claim 7: end to end on 10-node graphs with latent confounders

    We compare six methods on the same data, with random graphs of in-degree 1.5 and latent roots
    that each have two or three observed children:

    * **ours**, in two forms: as described above, and a variant that keeps, among each triple's best
      matches, those with the fewest latents ("parsimony");
    * the **causally sufficient PGF** learner, with the same tests but only latent-free local
      structures;
    * the **PB-SCM cumulant** method: our reimplementation of the AAAI 2024 idea
      [@pgftrie_qiao2024cumulant]. It uses the same skeleton, reads every adjacency as an edge, and
      orients $i\to j$ when a source with one path to $i$ and two to $j$ is detected
      ($\kappa_{[1,2]}>0$ but $\kappa_{[2,1]}=0$);
    * **PC** and **FCI** [@pgftrie_spirtes2000causation] from causal-learn
      [@pgftrie_zheng2024causallearn], with the Fisher-z test. A PB-SCM has linear conditional
      means and uncorrelated thinning noise, so vanishing partial correlations follow
      d-separation.

    Undetermined marks count as errors in the SHD.
    """)
    return


@app.cell
def _(cfg, ex, run):
    e2e_records = ex.structure_recovery(cfg, run.seed, cfg.e2e_nodes, cfg.e2e_n, cfg.e2e_seeds)
    e2e = ex.summarize(e2e_records)
    return e2e, e2e_records


@app.cell
def _(e2e, plots):
    plots.plot_e2e(e2e)
    return


@app.cell
def _(cfg, e2e, mo):
    _rows = "\n".join(
        f"| {r['method']} | {r['directed_precision']:.2f} | {r['directed_recall']:.2f} | {r['directed_f1']:.2f} "
        f"± {r['directed_f1_se']:.2f} | {r['latent_f1']:.2f} | {r['skeleton_f1']:.2f} | {r['shd']:.1f} | "
        f"{r['spurious_on_confounded']:.2f} |" for r in e2e)
    mo.md(f"""Mean over {cfg.e2e_seeds} graphs ({cfg.e2e_nodes} observed nodes, {cfg.e2e_latents}
latents, N = {cfg.e2e_n:,}). The last column is the fraction of confounded pairs without an edge on
which a directed edge is reported.

| method | precision | recall | directed F1 | latent F1 | skeleton F1 | SHD | spurious on confounded |
|---|---|---|---|---|---|---|---|
{_rows}""")
    return


@app.cell
def _(cfg, learn_lc_pbscm, pc_baseline, plots, random_lc_pbscm, run):
    _model = random_lc_pbscm(8, cfg.e2e_in_degree, 2, run.seed + 3, cfg.alpha_range, cfg.mu_range,
                             cfg.latent_mu_range)
    _x = _model.sample(cfg.e2e_n, run.seed + 4)
    _graphs = [learn_lc_pbscm(_x, names=_model.observed_names)]
    try:
        _graphs.append(pc_baseline(_x, names=_model.observed_names))
    except ImportError:
        pass
    plots.plot_learned_vs_true(_model, _graphs)
    return


@app.cell
def _(mo):
    mo.md(r"""
    *One 8-node example. Blue marks are correct and red ones wrong. Grey lines are adjacencies left
    undetermined, and dotted lines are missed adjacencies. The $\leftrightarrow$ arcs are latent marks.*

    ### Claim 8: more samples, better graphs; and larger graphs
    """)
    return


@app.cell
def _(cfg, ex, run):
    sweep_records = []
    for _n in cfg.sweep_ns:
        sweep_records += ex.structure_recovery(cfg, run.seed, cfg.e2e_nodes, _n, cfg.sweep_seeds)
    sweep = ex.summarize(sweep_records, ("method", "n"))
    return (sweep,)


@app.cell
def _(plots, sweep):
    plots.plot_recovery(sweep, "n", "samples N", logx=True)
    return


@app.cell
def _(cfg, mo):
    mo.md(f"""*{cfg.e2e_nodes}-node graphs, {cfg.sweep_seeds} graphs per sample size. Ours improves
    steadily with N, because the skeleton and the triple tests live on the rows where the
    conditioning variables are zero. PC's and FCI's second-order tests are already saturated at 5,000
    samples.*""")
    return


@app.cell
def _(cfg, ex, run):
    size_records = []
    for _k in cfg.size_nodes:
        size_records += ex.structure_recovery(cfg, run.seed, _k, cfg.e2e_n, cfg.size_seeds)
    size_summary = ex.summarize(size_records, ("method", "nodes"))
    return (size_summary,)


@app.cell
def _(plots, size_summary):
    plots.plot_recovery(size_summary, "nodes", "observed nodes")
    return


@app.cell
def _(cfg, mo):
    mo.md(f"""
    *Graph size, with N = {cfg.e2e_n:,} and {cfg.size_seeds} graphs per size. Larger graphs have
    larger neighbourhoods to zero, hence fewer usable rows per triple.*

    ### Real-world count data

    The paper also evaluates on real data. The only real table in this line of work is a
    football-events table in the PB-SCM repository, and that repository has no licence, so we do not
    ship it. We found no PyPI package that ships multivariate branching count data, and nothing is
    downloaded at run time. This chapter therefore has no real-data experiment, and we invented none.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Live playground

    Draw a random LC-PB-SCM and learn it from data. Our learner and PC run on the same samples.
    With 50,000 samples and 10 nodes it takes a few seconds. The dropdown redraws the trie of the
    example cascade for another source.
    """)
    return


@app.cell
def _(mo):
    pg_nodes = mo.ui.slider(4, 10, value=8, step=1, label="observed nodes")
    pg_n = mo.ui.dropdown(["5000", "15000", "30000", "50000"], value="30000", label="samples N")
    pg_latents = mo.ui.slider(0, 3, value=2, step=1, label="latent confounders")
    pg_alpha = mo.ui.slider(0.3, 0.9, value=0.7, step=0.05, label="largest thinning probability")
    pg_seed = mo.ui.number(0, 999, value=1, label="graph seed")
    pg_root = mo.ui.dropdown(["A", "B", "C", "L"], value="A", label="trie root (example cascade)")
    mo.vstack([mo.hstack([pg_nodes, pg_latents, pg_alpha]), mo.hstack([pg_n, pg_seed, pg_root])])
    return pg_alpha, pg_latents, pg_n, pg_nodes, pg_root, pg_seed


@app.cell
def _(demo, demo_pos, pg_root, plots):
    plots.plot_cascade(demo, pg_root.value, demo_pos)
    return


@app.cell
def _(causal_learn_available, cfg, learn_lc_pbscm, pc_baseline, pg_alpha, pg_latents, pg_n, pg_nodes, pg_seed,
      plots, random_lc_pbscm, score_graph):
    _lo = min(cfg.alpha_low, float(pg_alpha.value))
    pg_model = random_lc_pbscm(int(pg_nodes.value), cfg.e2e_in_degree, int(pg_latents.value), int(pg_seed.value),
                               (_lo, float(pg_alpha.value)), cfg.mu_range, cfg.latent_mu_range)
    _x = pg_model.sample(int(pg_n.value), int(pg_seed.value) + 1)
    pg_graphs = [learn_lc_pbscm(_x, names=pg_model.observed_names)]
    if causal_learn_available():
        pg_graphs.append(pc_baseline(_x, names=pg_model.observed_names))
    pg_scores = [(g.method, score_graph(pg_model, g.states)) for g in pg_graphs]
    plots.plot_learned_vs_true(pg_model, pg_graphs)
    return (pg_scores,)


@app.cell
def _(mo, pg_scores):
    mo.md("| method | directed F1 | precision | latent F1 | SHD |\n|---|---|---|---|---|\n" + "\n".join(
        f"| {m} | {s.directed_f1:.2f} | {s.directed_precision:.2f} | {s.latent_f1:.2f} | {s.shd} |"
        for m, s in pg_scores))
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## Claims ledger
    """)
    return


@app.cell
def _(ClaimsLedger, cfg, chain_res, e2e, e2e_records, np, pair_res, pgf_res, run, sink_res, support_res,
      sweep, table_counts):
    ledger = ClaimsLedger("pgf_trie_causal", run.profile)
    ledger.add(
        "C1", statement="The closed-form PGF exp(Σ μ_v (g_v − 1)) matches the empirical PGF",
        rule=f"max |closed − empirical| < 4/√N over {cfg.pgf_graphs} graphs × {cfg.pgf_points} points",
        measured=f"max gap {pgf_res.max_abs_error:.1e} vs bound {pgf_res.bound:.1e} (N = {cfg.pgf_samples:,})",
        passed=bool(pgf_res.max_abs_error < pgf_res.bound), paper_value="a closed-form PGF (formula not seen)")
    ledger.add(
        "C2", statement="The support of log G does not depend on the parameter values",
        rule=f"exact sympy supports equal for {cfg.support_draws} random draws on each of {cfg.support_graphs} graph(s)",
        measured=f"all equal: {support_res.all_equal}; equal to the graph-only support: {support_res.matches_graph_rule}",
        passed=bool(support_res.all_equal and support_res.matches_graph_rule),
        paper_value="monomials encode the branching structure")
    ledger.add(
        "C3", statement="Zero-conditioning blocks paths: Cov(X_i, X_j | X_c = 0) = 0 for i→c→j, > 0 with an edge i→j",
        rule=f"accepted in ≥ 95% and rejected (with the edge) in ≥ 95% of {cfg.chain_reps} runs at N = {cfg.chain_n:,}, level {cfg.level}",
        measured=f"accepted {chain_res.accept_rate:.1%}, rejected {chain_res.reject_rate:.1%}",
        passed=bool(chain_res.accept_rate >= 0.95 and chain_res.reject_rate >= 0.95),
        paper_value="local PGFs (variables set to zero)")
    _counts = (table_counts["latent_free_classes"], table_counts["latent_free_singletons"], table_counts["classes"],
               table_counts["singletons"])
    ledger.add(
        "C4", statement="3-variable local structures: 13 classes (4 singletons) without latents, 129 (80) over 400 with latents",
        rule="exact counts of support classes in our configuration space equal (13, 4, 129, 80)",
        measured=f"{_counts[0]} classes ({_counts[1]} singletons); {_counts[2]} classes ({_counts[3]} singletons) over "
                 f"{table_counts['structures']}",
        passed=bool(_counts == (13, 4, 129, 80)),
        paper_value="a complete local identifiability condition (its table not seen; counts are the dossier's)")
    _pmin = min(pair_res.p_values.values())
    ledger.add(
        "C5", statement="A→B, B→A and A←L→B (matched moments) give indistinguishable data",
        rule=f"every pairwise χ² homogeneity p > 0.01 at N = {cfg.pair_n:,}, control p < 0.01, exact pmf gap < 1e-9",
        measured=f"smallest p = {_pmin:.3f}; control p = {pair_res.control_p_value:.1e}; pmf gap {pair_res.max_pmf_gap:.1e}",
        passed=bool(_pmin > 0.01 and pair_res.control_p_value < 0.01 and pair_res.max_pmf_gap < 1e-9),
        paper_value="single-edge direction not identifiable (PB-SCM literature)")
    ledger.add(
        "C6", statement="The sink of a triangle is recovered via its z² monomial (over-dispersion)",
        rule=f"argmax over nodes of the over-dispersion z is the sink in ≥ 90% of {cfg.sink_reps} runs at N = {cfg.sink_n:,}",
        measured=f"accuracy {sink_res.accuracy:.0%} (sink alone significant: {sink_res.strict_accuracy:.0%})",
        passed=bool(sink_res.accuracy >= 0.9), paper_value="triangle structures identifiable (NeurIPS 2024 predecessor)")
    _by = {r["method"]: r for r in e2e}
    _ours, _pb = "LC-PB-SCM (ours)", "PB-SCM cumulant (sufficient)"
    _have = all(m in _by for m in (_ours, "PC (fisherz)", "FCI (fisherz)", _pb))
    if _have:
        _f1 = {m: np.array([r["directed_f1"] for r in e2e_records if r["method"] == m]) for m in _by}
        _d_pc = float(np.mean(_f1[_ours] - _f1["PC (fisherz)"]))
        _d_fci = float(np.mean(_f1[_ours] - _f1["FCI (fisherz)"]))
        _spur = (_by[_ours]["spurious_on_confounded"], _by[_pb]["spurious_on_confounded"])
        _measured = (f"directed F1: ours {_by[_ours]['directed_f1']:.2f}, PC {_by['PC (fisherz)']['directed_f1']:.2f}, "
                     f"FCI {_by['FCI (fisherz)']['directed_f1']:.2f} (paired mean differences {_d_pc:+.2f}, {_d_fci:+.2f}); "
                     f"spurious directed edges on confounded pairs: ours {_spur[0]:.2f}, PB-SCM {_spur[1]:.2f}")
        _passed = bool(_d_pc > 0 and _d_fci > 0 and _spur[0] < _spur[1]) if cfg.e2e_seeds >= 10 else None
    else:
        _measured, _passed = "PC/FCI did not run (causal-learn missing)", None
    ledger.add(
        "C7", statement="End to end (10 nodes, in-degree 1.5, 2 latents, N = 30k) the learner beats PC/FCI on directed-edge "
                        "F1 and the sufficient PB-SCM method on confounded pairs",
        rule="mean paired F1 difference to PC and to FCI > 0 over ≥ 10 graphs, and fewer spurious directed edges on "
             "confounded pairs than PB-SCM cumulant",
        measured=_measured, passed=_passed, paper_value="effective on synthetic data (numbers not seen)",
        reason=None if _passed is not None else (
            f"not testable at this profile: {cfg.e2e_seeds} graph(s) < 10" if _have else "causal-learn is not installed"))
    _rows = sorted((r for r in sweep if r["method"] == _ours), key=lambda r: r["n"])
    _f = [r["directed_f1"] for r in _rows]
    _s = [r["shd"] for r in _rows]
    _ok8 = len(_rows) >= 3 and cfg.sweep_seeds >= 5
    ledger.add(
        "C8", statement="Directed-edge F1 rises and SHD falls as N grows (5k → 50k and beyond)",
        rule="F1(largest N) > F1(smallest N), SHD(largest N) < SHD(smallest N), no F1 drop > 0.05 between neighbours "
             "(≥ 3 sizes, ≥ 5 graphs each)",
        measured="F1 " + ", ".join(f"{r['n'] // 1000}k: {v:.2f}" for r, v in zip(_rows, _f)) + "; SHD "
                 + ", ".join(f"{v:.1f}" for v in _s),
        passed=(bool(_f[-1] > _f[0] and _s[-1] < _s[0] and all(b > a - 0.05 for a, b in zip(_f, _f[1:])))
                if _ok8 else None),
        paper_value="accuracy improves with N (predecessor's trend)",
        reason=None if _ok8 else f"not testable at this profile: {len(_rows)} sample sizes × {cfg.sweep_seeds} graphs")
    ledger
    return (ledger,)


@app.cell
def _(mo):
    mo.md(r"""
    ## How this chapter differs from the paper

    * **No paper text.** We reached only the abstract. The closed-form PGF, the trie reading, the
      local-PGF tests, the configuration space of the table (25 DAGs × subsets of
      $\{L_{AB},L_{AC},L_{BC},L_{ABC}\}$, latents as roots) and the whole learning algorithm are our
      reconstructions, following the dossier. The 13/4 and 129/80 counts are *ours*; the paper's
      table may use a different latent space, for example latent mediators.
    * **Monomial equivalence made testable.** The paper speaks of local PGFs. We read the support
      through signs of zero-conditioned factorial cumulants ("dominance queries") with delta-method
      p-values. With at most one variable zeroed, these queries separate the 129 classes at degree
      4. The learner uses degree ≤ 3 (120 classes), because degree-4 tests have almost no power at
      these sample sizes.
    * **Generator.** We use thinning $U(0.3,0.7)$ and rates $U(0.1,0.5)$ (latents $U(0.5,1)$)
      instead of the PB-SCM generator's $U(0.1,0.5)$ and $U(1,3)$. With the larger rates, almost no
      row has two conditioning variables at zero, and the zero-conditioned skeleton falls apart
      (skeleton F1 about 0.6 in our trials). Small rates are the regime where the method can work,
      so we report that regime.
    * **A dossier statement corrected.** The dossier says every marginal is Poisson. That holds
      only for variables without a $z_j^2$ monomial. Two paths from one source make $X_j$
      over-dispersed, and claim 6 relies on exactly this.
    * **Baselines.** We wrote the PB-SCM cumulant method from its published idea: the original code
      carries no licence, and we did not copy it. It uses our skeleton rather than its BIC hill
      climbing. PC and FCI come from causal-learn with Fisher-z; we did not run GIN, RCD or GES.
    * **Metrics.** Our SHD over mixed graphs counts an undetermined mark as an error. This penalises
      the cautious methods (ours and FCI) more than PC.
    * **No real data** (see above), and no GPU scale: the `full` profile only widens the CPU sweeps.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## References

    * The paper [@pgftrie_lcpbscm2026] and its predecessors [@pgftrie_qiao2024cumulant; @pgftrie_xiang2024pgf].
    * Binomial thinning [@pgftrie_steutel1979thinning]; compound Poisson laws [@pgftrie_johnson1997discrete].
    * PC and FCI [@pgftrie_spirtes2000causation], as implemented in causal-learn [@pgftrie_zheng2024causallearn].
    """)
    return


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
