"""The chapter's experiments, one function per claim of the dossier; each returns a dataclass.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026). The
claims are those of the dossier (``shared/papers/pgf_trie_causal.md``, section 5); the numbers are
computed here, never typed in.
"""

from __future__ import annotations

import dataclasses
import itertools
import time

import numpy as np

from icmlbook.runtime import cached, progress, rng

from .baselines import (
    causal_learn_available,
    fci_baseline,
    pbscm_cumulant_baseline,
    pc_baseline,
)
from .config import PGFTrieConfig
from .identifiability import IdentifiabilityTable, identifiability_table
from .learn import (
    LearnerConfig,
    _match,
    assemble,
    learn_skeleton,
    triple_evidence,
    triple_signature,
)
from .metrics import score_graph
from .model import PoissonBranchingSCM, random_lc_pbscm
from .pgf import empirical_pgf, exact_pmf, pgf, support, support_sympy
from .support_tests import ZeroConditionedCounts, two_sample_pmf_test

__all__ = [
    "METHODS",
    "ChainBlocking",
    "LocalRecovery",
    "PGFCheck",
    "PairEquivalence",
    "SinkResult",
    "SupportInvariance",
    "chain_blocking",
    "equivalent_pair_models",
    "local_recovery",
    "pgf_check",
    "single_edge_equivalence",
    "structure_recovery",
    "summarize",
    "support_invariance",
    "triangle_sink",
]

#: methods compared in the structure-recovery experiments, in display order
METHODS = ("LC-PB-SCM (ours)", "LC-PB-SCM (ours) + parsimony", "PGF, causally sufficient",
           "PB-SCM cumulant (sufficient)", "PC (fisherz)", "FCI (fisherz)")


# --------------------------------------------------------------------------------------------------
# claim 1: closed-form PGF vs empirical PGF
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class PGFCheck:
    closed: np.ndarray     # (graphs, points) closed-form G(z)
    empirical: np.ndarray  # (graphs, points) empirical PGF
    n: int
    bound: float           # 4 / sqrt(n)

    @property
    def max_abs_error(self) -> float:
        return float(np.abs(self.closed - self.empirical).max())


def pgf_check(cfg: PGFTrieConfig, seed: int) -> PGFCheck:
    """Random graphs (``pgf_nodes`` observed, in-degree 1.5, 2 latents): G(z) at random z in
    [0, 1]^p in closed form (equation 2) and from ``pgf_samples`` samples."""
    closed, emp = [], []
    for g in range(cfg.pgf_graphs):
        gen = rng(seed, 1, g)
        model = random_lc_pbscm(cfg.pgf_nodes, 1.5, 2, gen, cfg.alpha_range, cfg.mu_range, cfg.latent_mu_range)
        z = gen.uniform(0, 1, size=(cfg.pgf_points, cfg.pgf_nodes))
        x = model.sample(cfg.pgf_samples, gen)
        closed.append(pgf(model, z))
        emp.append(empirical_pgf(x, z))
    return PGFCheck(np.array(closed), np.array(emp), cfg.pgf_samples, 4 / np.sqrt(cfg.pgf_samples))


# --------------------------------------------------------------------------------------------------
# claim 2: support does not depend on the parameters
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SupportInvariance:
    sizes: list[list[int]]       # support size per graph and draw
    all_equal: bool              # every draw of a graph gives the same support (sympy, exact)
    matches_graph_rule: bool     # ... and it equals the support computed from the graph alone
    seconds: float


def support_invariance(cfg: PGFTrieConfig, seed: int) -> SupportInvariance:
    """Exact sympy expansion of log G for ``support_draws`` random rational parameter draws on
    ``support_graphs`` small random graphs (4 observed nodes, 2 latents)."""
    t0 = time.perf_counter()
    sizes, equal, match = [], True, True
    for g in range(cfg.support_graphs):
        gen = rng(seed, 2, g)
        model = random_lc_pbscm(4, 1.5, 2, gen, cfg.alpha_range, cfg.mu_range, cfg.latent_mu_range)
        ref = support(model)
        sups = [support_sympy(model, parameters="random", rng=gen) for _ in range(cfg.support_draws)]
        sizes.append([len(s) for s in sups])
        equal &= all(s == sups[0] for s in sups)
        match &= sups[0] == ref
    return SupportInvariance(sizes, bool(equal), bool(match), time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------------
# claim 3: zero-conditioning blocks a chain
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class ChainBlocking:
    p_chain: np.ndarray    # p-values of Cov(X_i, X_j | X_c = 0) > 0 for i -> c -> j
    p_direct: np.ndarray   # the same with an extra edge i -> j
    p_marginal: np.ndarray  # the chain without conditioning (the dependence being blocked)
    n_eff: np.ndarray      # rows with X_c = 0
    level: float

    @property
    def accept_rate(self) -> float:
        return float(np.mean(self.p_chain > self.level))

    @property
    def reject_rate(self) -> float:
        return float(np.mean(self.p_direct <= self.level))


def chain_blocking(cfg: PGFTrieConfig, seed: int) -> ChainBlocking:
    """``chain_reps`` chains i -> c -> j with random parameters, ``chain_n`` samples each."""
    pc, pd, pm, ne = [], [], [], []
    for r in range(cfg.chain_reps):
        gen = rng(seed, 3, r)
        a_ic, a_cj, a_ij = gen.uniform(*cfg.alpha_range, size=3)
        mu = dict(zip("icj", gen.uniform(*cfg.mu_range, size=3)))
        chain = PoissonBranchingSCM.from_edges("icj", {("i", "c"): a_ic, ("c", "j"): a_cj}, mu)
        direct = PoissonBranchingSCM.from_edges("icj", {("i", "c"): a_ic, ("c", "j"): a_cj, ("i", "j"): a_ij}, mu)
        for model, out in ((chain, pc), (direct, pd)):
            zc = ZeroConditionedCounts(model.sample(cfg.chain_n, gen), min_rows=cfg.min_rows, validate=False)
            t = zc.test({0: 1, 2: 1}, zero=[1])
            out.append(t.p_value)
            if model is chain:
                ne.append(t.n_eff)
                pm.append(zc.test({0: 1, 2: 1}).p_value)
    return ChainBlocking(np.array(pc), np.array(pd), np.array(pm), np.array(ne), cfg.level)


# --------------------------------------------------------------------------------------------------
# claim 5: a single edge is not identifiable
# --------------------------------------------------------------------------------------------------
def equivalent_pair_models(mu_a: float, mu_b: float, alpha: float) -> dict[str, PoissonBranchingSCM]:
    """Three models of (A, B) with the same compound-Poisson coefficients, hence the same law:
    A -> B; B -> A; and A <- L -> B (thinning 1/2 to each child).

    For A -> B: :math:`c_A = \\mu_A(1-\\alpha)`, :math:`c_B = \\mu_B`, :math:`c_{AB} = \\mu_A\\alpha`. The
    other two are solved to match; this needs ``alpha < 1/2`` and ``mu_b > mu_a * alpha``.
    """
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha={alpha!r} must be in (0, 0.5) for the latent model to match")
    if not mu_a > 0 or not mu_b > mu_a * alpha:
        raise ValueError(f"need mu_a > 0 and mu_b > mu_a * alpha, got mu_a={mu_a!r}, mu_b={mu_b!r}")
    c_ab = mu_a * alpha
    forward = PoissonBranchingSCM.from_edges("AB", {("A", "B"): alpha}, {"A": mu_a, "B": mu_b})
    beta = c_ab / (mu_b + c_ab)
    backward = PoissonBranchingSCM.from_edges("AB", {("B", "A"): beta}, {"A": mu_a * (1 - alpha), "B": mu_b + c_ab})
    latent = PoissonBranchingSCM.from_edges(
        "ABL", {("L", "A"): 0.5, ("L", "B"): 0.5},
        {"A": mu_a * (1 - alpha) - c_ab, "B": mu_b - c_ab, "L": 4 * c_ab}, latent=["L"])
    return {"A→B": forward, "B→A": backward, "A←L→B": latent}


@dataclasses.dataclass
class PairEquivalence:
    p_values: dict[str, float]   # chi-square homogeneity test between the samples of two models
    max_pmf_gap: float           # largest difference of the exact pmfs (FFT of the PGF)
    control_p_value: float       # same test, A -> B against independent A, B with equal marginals
    n: int


def single_edge_equivalence(cfg: PGFTrieConfig, seed: int) -> PairEquivalence:
    """Sample the three equivalent models (``pair_n`` each) and test every pair of them; a
    positive control (A -> B vs independent Poissons with the same marginals) shows the test's power."""
    gen = rng(seed, 5)
    models = equivalent_pair_models(1.0, 1.0, 0.3)
    samples = {k: m.sample(cfg.pair_n, gen) for k, m in models.items()}
    pvals = {f"{a} vs {b}": two_sample_pmf_test(samples[a], samples[b])[1]
             for a, b in itertools.combinations(models, 2)}
    pmfs = [exact_pmf(m, 15) for m in models.values()]
    gap = max(float(np.abs(p - pmfs[0]).max()) for p in pmfs[1:])
    fwd = models["A→B"]
    mean = np.array([1.0, 1.0 + 0.3])  # independent Poissons with A -> B's marginal means
    indep = PoissonBranchingSCM.from_edges("AB", {}, {"A": mean[0], "B": mean[1]})
    control = two_sample_pmf_test(fwd.sample(cfg.pair_n, gen), indep.sample(cfg.pair_n, gen))[1]
    return PairEquivalence(pvals, gap, control, cfg.pair_n)


# --------------------------------------------------------------------------------------------------
# claim 6: the sink of a triangle
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SinkResult:
    z: np.ndarray          # (reps, 3) z statistics of the over-dispersion query 2 e_j, nodes in causal order
    level: float

    @property
    def accuracy(self) -> float:
        """Fraction of runs where the node with the largest over-dispersion z is the sink."""
        return float(np.mean(self.z.argmax(1) == 2))

    @property
    def strict_accuracy(self) -> float:
        """Fraction of runs where the sink, and only the sink, is significant at ``level``."""
        from scipy import stats

        sig = stats.norm.sf(self.z) < self.level
        return float(np.mean(sig[:, 2] & ~sig[:, 0] & ~sig[:, 1]))


def triangle_sink(cfg: PGFTrieConfig, seed: int) -> SinkResult:
    """``sink_reps`` complete DAGs a -> b -> c, a -> c with random parameters; the over-dispersion
    :math:`\\mathrm{Var}X_j - EX_j` (factorial cumulant of pattern :math:`2e_j`) is positive only at
    the sink, whose :math:`z_c^2` monomial comes from the two paths a -> c and a -> b -> c."""
    zs = []
    for r in range(cfg.sink_reps):
        gen = rng(seed, 6, r)
        a = gen.uniform(*cfg.alpha_range, size=3)
        mu = dict(zip("abc", gen.uniform(*cfg.mu_range, size=3)))
        model = PoissonBranchingSCM.from_edges("abc", {("a", "b"): a[0], ("b", "c"): a[1], ("a", "c"): a[2]}, mu)
        zc = ZeroConditionedCounts(model.sample(cfg.sink_n, gen), validate=False)
        zs.append([zc.test({j: 2}).z for j in range(3)])
    return SinkResult(np.array(zs), cfg.level)


# --------------------------------------------------------------------------------------------------
# local (3-variable) recovery of the identifiability class
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class LocalRecovery:
    ns: tuple
    contains_truth: np.ndarray   # (len(ns),) fraction of runs whose best matches include the truth
    exact_class: np.ndarray      # (len(ns),) fraction whose best matches are exactly the true class
    feature_error: np.ndarray    # (len(ns), 2) rates of missed present / spurious absent queries
    n_structures: int


def local_recovery(cfg: PGFTrieConfig, seed: int, table: IdentifiabilityTable | None = None) -> LocalRecovery:
    """Draw ``local_structures`` of the 400 structures, simulate each at every N in ``local_ns``,
    test the signature queries and match against the whole table."""
    tab = table or identifiability_table()
    feat_idx = [f for f, (z, p) in enumerate(tab.features) if sum(p) <= cfg.max_degree]
    features = [tab.features[f] for f in feat_idx]
    degrees = np.array([sum(p) for _, p in features])
    sub = dataclasses.replace(tab, signatures=tab.signatures[:, feat_idx])
    picks = rng(seed, 7).choice(len(tab.structures), size=min(cfg.local_structures, len(tab.structures)), replace=False)
    contains, exact, errs = [], [], []
    for n in progress(cfg.local_ns, desc="local recovery (sample sizes)"):
        c = e = 0
        miss = spur = pos = neg = 0
        for r, k in enumerate(picks):
            gen = rng(seed, 7, int(n), r)
            model = tab.structures[k].to_model(gen, cfg.alpha_range, cfg.mu_range, cfg.latent_mu_range)
            zc = ZeroConditionedCounts(model.sample(n, gen), min_rows=cfg.min_rows, validate=False)
            obs, _, _ = triple_signature(zc, (0, 1, 2), (), features, cfg.level)
            score, _ = _match(obs, sub, np.arange(len(tab.structures)), degrees, LearnerConfig().miss_weight)
            best = set(np.flatnonzero(score == score.min()).tolist())
            c += int(k) in best
            e += best == set(tab.classes[tab.class_of[k]])
            truth = sub.signatures[k]
            ok = ~np.isnan(obs)
            miss += int(np.sum(ok & truth & (obs == 0)))
            spur += int(np.sum(ok & ~truth & (obs == 1)))
            pos += int(np.sum(ok & truth))
            neg += int(np.sum(ok & ~truth))
        contains.append(c / len(picks))
        exact.append(e / len(picks))
        errs.append([miss / max(pos, 1), spur / max(neg, 1)])
    return LocalRecovery(tuple(cfg.local_ns), np.array(contains), np.array(exact), np.array(errs), len(picks))


# --------------------------------------------------------------------------------------------------
# claims 7 and 8: structure recovery on random graphs
# --------------------------------------------------------------------------------------------------
def _recovery_runs(n_nodes: int, n: int, seeds: tuple[int, ...], n_latent: int, in_degree: float,
                   alpha_range, mu_range, latent_mu_range, level: float, max_cond: int, max_degree: int,
                   min_rows: int, baselines: bool) -> list[dict]:
    tab = identifiability_table()
    features = [f for f in tab.features if sum(f[1]) <= max_degree]
    records = []
    for s in seeds:
        gen = rng(s, 8, n_nodes, n_latent)
        model = random_lc_pbscm(n_nodes, in_degree, n_latent, gen, alpha_range, mu_range, latent_mu_range)
        x = model.sample(n, gen)
        names = model.observed_names
        t0 = time.perf_counter()
        zc = ZeroConditionedCounts(x, min_rows=min_rows)
        skel = learn_skeleton(zc, level, max_cond)
        ev = triple_evidence(zc, skel[0], features, level)
        t_ours = time.perf_counter() - t0
        graphs = []
        for lat, pars in ((True, False), (True, True), (False, False)):
            cfg = LearnerConfig(level=level, max_cond=max_cond, max_degree=max_degree, min_rows=min_rows,
                                latent=lat, parsimony=pars)
            graphs.append((assemble(names, skel[0], ev, tab, cfg, skel[1], skel[2]), t_ours))
        t0 = time.perf_counter()
        graphs.append((pbscm_cumulant_baseline(zc, level=level, skeleton=skel, names=names), time.perf_counter() - t0))
        if baselines and causal_learn_available():
            for fn in (pc_baseline, fci_baseline):
                t0 = time.perf_counter()
                graphs.append((fn(x, level=level, names=names), time.perf_counter() - t0))
        for g, secs in graphs:
            sc = score_graph(model, g.states)
            records.append({"method": g.method, "seed": s, "n": n, "nodes": n_nodes, "latents": n_latent,
                            "seconds": secs, **sc.as_dict()})
    return records


def structure_recovery(cfg: PGFTrieConfig, seed: int, n_nodes: int, n: int, n_seeds: int,
                       n_latent: int | None = None, baselines: bool = True, use_cache: bool = True) -> list[dict]:
    """Every method on ``n_seeds`` random graphs (``n_nodes`` observed, in-degree
    ``cfg.e2e_in_degree``, ``n_latent`` latents, ``n`` samples). Returns one record per method and
    graph with the scores of ``metrics.score_graph``. Cached by the book's artefact cache."""
    n_latent = cfg.e2e_latents if n_latent is None else n_latent
    kwargs = {"n_nodes": n_nodes, "n": n, "seeds": tuple(seed * 1000 + k for k in range(n_seeds)), "n_latent": n_latent,
                  "in_degree": cfg.e2e_in_degree, "alpha_range": cfg.alpha_range, "mu_range": cfg.mu_range,
                  "latent_mu_range": cfg.latent_mu_range, "level": cfg.level, "max_cond": cfg.max_cond,
                  "max_degree": cfg.max_degree, "min_rows": cfg.min_rows, "baselines": baselines}
    if not use_cache:
        return _recovery_runs(**kwargs)
    return cached("pgf_trie_causal-recovery", _recovery_runs, config=kwargs, kwargs=kwargs)


def summarize(records: list[dict], by: tuple[str, ...] = ("method",),
              metrics: tuple[str, ...] = ("directed_f1", "directed_precision", "directed_recall", "latent_f1",
                                          "skeleton_f1", "shd", "spurious_on_confounded")) -> list[dict]:
    """Mean (NaN-aware) and standard error of ``metrics`` grouped by the keys ``by``."""
    groups: dict = {}
    for r in records:
        groups.setdefault(tuple(r[k] for k in by), []).append(r)
    out = []
    for key, rows in groups.items():
        row = dict(zip(by, key))
        row["runs"] = len(rows)
        for m in metrics:
            v = np.array([r[m] for r in rows], dtype=float)
            ok = v[~np.isnan(v)]
            row[m] = float(ok.mean()) if len(ok) else float("nan")
            row[m + "_se"] = float(ok.std(ddof=1) / np.sqrt(len(ok))) if len(ok) > 1 else float("nan")
        out.append(row)
    order = {m: k for k, m in enumerate(METHODS)}
    return sorted(out, key=lambda r: tuple(order.get(r[k], 99) if k == "method" else r[k] for k in by))
