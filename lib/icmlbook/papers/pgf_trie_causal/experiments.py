"""The chapter's experiments, one function per ledger row; each returns a dataclass (or records)
that the rule of the same row in ``claims.py`` decides on.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026). The
rows cover the abstract's result sentences and our extra checks (see ``claims.py``); the numbers are
computed here, never typed in.
"""

from __future__ import annotations

import collections
import dataclasses
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
    SkeletonPower,
    _match,
    assemble,
    learn_skeleton,
    pair_evidence,
    triple_evidence,
    triple_signature,
)
from .metrics import score_graph
from .model import PoissonBranchingSCM, random_lc_pbscm, true_pair_states
from .pgf import log_pgf_coefficients, pgf
from .support_tests import ZeroConditionedCounts

__all__ = [
    "METHODS",
    "SINK_MOTIFS",
    "Completeness",
    "TrieCheck",
    "completeness",
    "latent_ignoring_model",
    "overdispersed_truth",
    "path_count_profile",
    "pgf_point_estimates",
    "sensitivity",
    "trie_check",
    "independent_model",
    "two_path_nodes",
    "trivial_recovery",
    "TRIVIAL_LEARNERS",
    "trie_log_pgf",
    "ChainBlocking",
    "LocalRecovery",
    "PGFCheck",
    "SinkResult",
    "chain_blocking",
    "equivalent_pair_models",
    "local_recovery",
    "pgf_check",
    "structure_recovery",
    "summarize",
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
    se: np.ndarray         # (graphs, points) Monte-Carlo standard error of the empirical PGF
    alternative: np.ndarray  # (graphs, points) G(z) of the latent-ignoring model (same means, no confounding)
    n: int

    @property
    def bound(self) -> float:
        """The dossier's crude Monte-Carlo bound 4/sqrt(N) (shown for comparison)."""
        return 4 / np.sqrt(self.n)

    @property
    def max_abs_error(self) -> float:
        return float(np.abs(self.closed - self.empirical).max())

    @property
    def z(self) -> np.ndarray:
        """Standardised gaps (closed - empirical) / se."""
        return (self.closed - self.empirical) / self.se

    @property
    def z_alternative(self) -> np.ndarray:
        return (self.alternative - self.empirical) / self.se


def latent_ignoring_model(model: PoissonBranchingSCM) -> PoissonBranchingSCM:
    """The causally sufficient reading of ``model``: every latent confounder replaced by independent
    Poisson noise at its children with the same mean (rate mu_L * alpha_Lc at child c). The
    observed marginal means are unchanged; the dependence the latents create is gone."""
    alpha = np.array(model.alpha)
    mu = np.array(model.mu)
    for lat in np.flatnonzero(~model.observed):
        for c in model.children(lat):
            mu[c] += model.mu[lat] * alpha[lat, c]
            alpha[lat, c] = 0.0
        mu[lat] = 0.0
    return model.with_parameters(alpha=alpha, mu=mu)


def independent_model(model: PoissonBranchingSCM) -> PoissonBranchingSCM:
    """The structure-blind reading of ``model``: every observed node an independent Poisson variable with its
    mean (no edge, no latent), the PGF a method without any causal structure would write down (the trivial
    alternative of claim 1)."""
    from .model import moments_closed_form

    mean, _ = moments_closed_form(model)
    mu = np.where(model.observed, mean, 0.0)
    return model.with_parameters(alpha=np.zeros_like(np.asarray(model.alpha, dtype=float)), mu=mu)


def pgf_point_estimates(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical PGF at the points ``z`` (M, p) and its standard error, from samples ``x`` (N, p)."""
    x, z = np.asarray(x), np.asarray(z)
    if x.ndim != 2 or z.ndim != 2 or x.shape[1] != z.shape[1]:
        raise ValueError(f"x must be (N, p) samples and z (M, p) points with the same p; got x {x.shape}, z {z.shape}")
    if x.shape[0] < 2:
        raise ValueError(f"x has {x.shape[0]} sample(s); the standard error needs at least 2")
    mean, se = np.empty(len(z)), np.empty(len(z))
    for m, point in enumerate(z):
        v = np.prod(np.power(point[None, :], x), axis=1)
        mean[m] = v.mean()
        se[m] = v.std(ddof=1) / np.sqrt(len(v))
    return mean, se


def pgf_check(cfg: PGFTrieConfig, seed: int, reading=None) -> PGFCheck:
    """Random graphs (``pgf_nodes`` observed, in-degree 1.5, 2 latents): G(z) at random z in
    [0.2, 1]^p in closed form (equation 2), from ``pgf_samples`` samples (with its standard error),
    and for the latent-ignoring model with the same means (the alternative the check must reject).
    ``reading`` (a function of the model; default none) replaces the model whose closed form is compared with
    the samples, e.g. :func:`independent_model` (the tests' trivial alternative); the samples are the true
    model's either way."""
    closed, emp, ses, alt = [], [], [], []
    for g in range(cfg.pgf_graphs):
        gen = rng(seed, 1, g)
        model = random_lc_pbscm(cfg.pgf_nodes, 1.5, 2, gen, cfg.alpha_range, cfg.mu_range, cfg.latent_mu_range)
        z = gen.uniform(0.2, 1, size=(cfg.pgf_points, cfg.pgf_nodes))
        x = model.sample(cfg.pgf_samples, gen)
        m, se = pgf_point_estimates(x, z)
        closed.append(pgf(model if reading is None else reading(model), z))
        emp.append(m)
        ses.append(se)
        alt.append(pgf(latent_ignoring_model(model), z))
    return PGFCheck(np.array(closed), np.array(emp), np.array(ses), np.array(alt), cfg.pgf_samples)


# --------------------------------------------------------------------------------------------------
# the Trie representation theorem, checked on random structures
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class TrieCheck:
    """Per random structure: the largest relative gap between the coefficients of log G assembled
    from the tries' activation patterns and those of the expanded PGF (``pgf.log_pgf_coefficients``,
    an independent polynomial expansion of equation 1), whether the supports agree, and the same for
    the alternative reading in which an exponent counts *reached nodes* instead of *paths*."""

    rel_error: np.ndarray        # (graphs,)
    support_equal: np.ndarray    # (graphs,) bool
    alt_rel_error: np.ndarray    # (graphs,) the reachability reading
    alt_support_equal: np.ndarray
    multi_path: np.ndarray       # (graphs,) bool: some source has two paths to an observed node
    n_monomials: np.ndarray      # (graphs,)
    patterns: np.ndarray         # (graphs,) activation patterns enumerated


def _compare_coefficients(a: dict, b: dict) -> tuple[float, bool]:
    keys = set(a) | set(b)
    rel = max(abs(a.get(k, 0.0) - b.get(k, 0.0)) / max(abs(b.get(k, 0.0)), 1e-300) for k in keys)
    return float(rel), set(a) == set(b)


def trie_log_pgf(model: PoissonBranchingSCM, exponent: str = "paths") -> tuple[dict, int]:
    """The non-constant coefficients of log G from the tries: sum over sources of mu_v times the
    activation-pattern polynomial of v's trie. ``exponent="reach"`` is the alternative reading (an
    exponent is 1 for every reached node, however many paths reach it). Returns (coefficients,
    number of activation patterns)."""
    from .trie import build_trie, trie_polynomial

    zero = (0,) * model.n_observed
    out: dict = {}
    count = 0
    for v in range(model.p):
        if model.mu[v] == 0:
            continue
        poly, n_pat = trie_polynomial(build_trie(model, v), exponent=exponent)
        count += n_pat
        for m, c in poly.items():
            if m != zero:
                out[m] = out.get(m, 0.0) + float(model.mu[v]) * c
    return out, count


def trie_check(cfg: PGFTrieConfig, seed: int) -> TrieCheck:
    """``trie_graphs`` random LC-PB-SCMs (``trie_nodes`` observed, in-degree ``trie_in_degree``,
    ``trie_latents`` latents): the Trie representation (monomials = activation patterns of the
    path tries, exponents = active paths ending at a node) against the expanded PGF."""
    from .pgf import log_pgf_coefficients

    rel, eq, arel, aeq, multi, nmon, npat = [], [], [], [], [], [], []
    for g in range(cfg.trie_graphs):
        gen = rng(seed, 9, g)
        model = random_lc_pbscm(cfg.trie_nodes, cfg.trie_in_degree, cfg.trie_latents, gen, cfg.alpha_range,
                                cfg.mu_range, cfg.latent_mu_range)
        ref = log_pgf_coefficients(model)
        tri, count = trie_log_pgf(model, "paths")
        alt, _ = trie_log_pgf(model, "reach")
        r, e = _compare_coefficients(tri, ref)
        ar, ae = _compare_coefficients(alt, ref)
        rel.append(r)
        eq.append(e)
        arel.append(ar)
        aeq.append(ae)
        multi.append(any(max(m) >= 2 for m in ref))
        nmon.append(len(ref))
        npat.append(count)
    return TrieCheck(np.array(rel), np.array(eq), np.array(arel), np.array(aeq), np.array(multi), np.array(nmon),
                     np.array(npat))


# --------------------------------------------------------------------------------------------------
# completeness of the local (3-variable) condition
# --------------------------------------------------------------------------------------------------
def path_count_profile(structure, features) -> np.ndarray:
    """The graphical condition, read from the graph alone: for each query (zeroed variable Z, pattern
    p), does some source s (observed, not Z; or latent) have, in the graph with Z deleted, at least
    p_k directed paths to every observed k (an observed source counting itself once)?

    By the Trie theorem this is the answer of the local PGF with z_Z = 0 to "is there a monomial
    dominating p" (the all-paths-active pattern of s dominates every other pattern of s)."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(range(3))
    g.add_edges_from(structure.edges)
    for k, children in enumerate(structure.latents):
        g.add_edges_from((f"L{k}", c) for c in children)
    out = np.zeros(len(features), dtype=bool)
    cache: dict = {}
    for f, (z, pat) in enumerate(features):
        if z not in cache:
            h = g.copy()
            if z is not None:
                h.remove_node(z)
            order = list(nx.topological_sort(h))
            rows = []
            for src in h.nodes:
                count = dict.fromkeys(h.nodes, 0)
                count[src] = 1
                for v in order:  # number of directed paths src -> v (DAG: dynamic programme)
                    for w in h.successors(v):
                        count[w] += count[v]
                rows.append([count.get(k, 0) if k != z else 0 for k in range(3)])
            cache[z] = np.array(rows)
        out[f] = bool((cache[z] >= np.array(pat)).all(1).any())
    return out


@dataclasses.dataclass
class Completeness:
    """The local identifiability condition against the enumeration (400 structures)."""

    profile_matches_support: int   # structures whose graphical answers equal the support's answers
    same_partition: bool           # condition classes == monomial-equivalence classes
    condition_classes: int
    support_classes: int
    identified_by_condition: np.ndarray  # (400,) bool: no other structure has the same answers
    singleton: np.ndarray                # (400,) bool: singleton of the enumeration
    n_features: int
    max_degree: int
    zero_sets: tuple

    @property
    def disagreements(self) -> int:
        return int(np.sum(self.identified_by_condition != self.singleton))


def _partition(keys) -> list[frozenset]:
    groups: dict = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, set()).add(k)
    return [frozenset(v) for v in groups.values()]


def completeness(table: IdentifiabilityTable, max_degree: int = 4, zero_sets=(None, 0, 1, 2)) -> Completeness:
    """State the condition on the graph (:func:`path_count_profile` over the queries with zeroed
    variable in ``zero_sets`` and degree <= ``max_degree``) and check it against the enumeration: a
    structure is identified by the condition exactly when no other structure gives the same answers;
    the claim is that this happens exactly for the singletons of the monomial-equivalence classes."""
    features = [(z, p) for z, p in table.features if sum(p) <= max_degree and z in zero_sets]
    idx = [table.features.index(f) for f in features]
    prof = np.stack([path_count_profile(s, features) for s in table.structures])
    matches = int(np.sum((prof == table.signatures[:, idx]).all(1)))
    keys = [bytes(np.packbits(r)) for r in prof]
    cond = _partition(keys)
    supp = _partition(table.supports)
    counts = collections.Counter(keys)
    ident = np.array([counts[k] == 1 for k in keys])
    singleton = np.array([len(table.classes[table.class_of[k]]) == 1 for k in range(len(table.structures))])
    return Completeness(matches, set(cond) == set(supp), len(cond), len(supp), ident, singleton, len(features),
                        max_degree, tuple(zero_sets))


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
# a single edge is not identifiable (the tests check the three laws are equal)
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


# --------------------------------------------------------------------------------------------------
# claim 6: over-dispersed nodes (the sink of a triangle), without presupposing one sink
# --------------------------------------------------------------------------------------------------
#: motifs of claim 6 (edges over nodes a, b, c, d; "L" a latent): none, one or two over-dispersed nodes
SINK_MOTIFS = {
    "chain a→b→c": ("abc", (("a", "b"), ("b", "c")), ()),
    "fork a←b→c": ("abc", (("b", "a"), ("b", "c")), ()),
    "collider a→c←b": ("abc", (("a", "c"), ("b", "c")), ()),
    "chain a→b→c→d": ("abcd", (("a", "b"), ("b", "c"), ("c", "d")), ()),
    "triangle a→b→c, a→c": ("abc", (("a", "b"), ("b", "c"), ("a", "c")), ()),
    "diamond a→b→d, a→c→d": ("abcd", (("a", "b"), ("b", "d"), ("a", "c"), ("c", "d")), ()),
    "a→b with latent L→a, L→b": ("abL", (("a", "b"), ("L", "a"), ("L", "b")), ("L",)),
    "two sinks a→b→c, a→c, c→d, b→d": ("abcd", (("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("b", "d")), ()),
    "two sinks a→b, a→c, b→c, b→d, c→d, a→d": ("abcd", (("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d"),
                                                      ("a", "d")), ()),
}


def overdispersed_truth(model: PoissonBranchingSCM) -> np.ndarray:
    """Observed nodes with a z_j^2 monomial: some source has two directed paths to j (bool, data order), read
    from the expanded PGF (``log_pgf_coefficients``)."""
    coef = log_pgf_coefficients(model)
    return np.array([any(m[k] >= 2 for m in coef) for k in range(model.n_observed)])


def two_path_nodes(model: PoissonBranchingSCM) -> np.ndarray:
    """Observed nodes that some source (observed or latent) reaches by at least two directed paths (bool, data
    order), counted on the graph alone (a dynamic programme over a topological order; no PGF). The Trie
    representation says these are exactly the nodes with a z_j^2 monomial (:func:`overdispersed_truth`; the
    tests check the two agree), so claim 6, which scores the over-dispersion test against this graph reading,
    checks that consequence of the theorem on sampled counts."""
    import networkx as nx

    alpha = np.asarray(model.alpha)
    g = nx.DiGraph()
    g.add_nodes_from(range(model.p))
    g.add_edges_from((int(i), int(j)) for i, j in zip(*np.nonzero(alpha > 0)))
    order = list(nx.topological_sort(g))
    multi = np.zeros(model.p, dtype=bool)
    for src in range(model.p):
        count = np.zeros(model.p, dtype=np.int64)
        count[src] = 1
        for v in order:
            for w in g.successors(v):
                count[w] += count[v]
        multi |= count >= 2
    return multi[model.observed_index]


@dataclasses.dataclass
class SinkResult:
    z: np.ndarray          # (reps, 4) z statistics of the over-dispersion query 2 e_j (NaN: no such node)
    truth: np.ndarray      # (reps, 4) bool, the node has a z_j^2 monomial
    motif: list            # (reps,) motif names
    level: float           # per-node level (the family level divided by the number of nodes)

    @property
    def predicted(self) -> np.ndarray:
        from scipy import stats

        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(self.z), False, stats.norm.sf(np.nan_to_num(self.z)) < self.level)

    @property
    def exact(self) -> np.ndarray:
        """Per run: the set of nodes called over-dispersed equals the true set."""
        return (self.predicted == self.truth).all(1)

    @property
    def n_true(self) -> np.ndarray:
        return self.truth.sum(1)

    @property
    def accuracy(self) -> float:
        return float(self.exact.mean())


def triangle_sink(cfg: PGFTrieConfig, seed: int) -> SinkResult:
    """``sink_reps`` runs cycling over :data:`SINK_MOTIFS` (none, one or two over-dispersed nodes),
    random parameters, ``sink_n`` samples each. Every node is tested on its own
    (:math:`\\mathrm{Var}X_j - EX_j > 0`, the factorial cumulant of pattern :math:`2e_j`), so the
    decision does not presuppose a single sink."""
    zs, truth, names = [], [], []
    motifs = list(SINK_MOTIFS.items())
    for r in range(cfg.sink_reps):
        gen = rng(seed, 6, r)
        name, (nodes, edges, latent) = motifs[r % len(motifs)]
        a = gen.uniform(*cfg.alpha_range, size=len(edges))
        mu = {v: (gen.uniform(*cfg.latent_mu_range) if v in latent else gen.uniform(*cfg.mu_range)) for v in nodes}
        model = PoissonBranchingSCM.from_edges(nodes, dict(zip(edges, a)), mu, latent=latent)
        zc = ZeroConditionedCounts(model.sample(cfg.sink_n, gen), validate=False)
        row = np.full(4, np.nan)
        row[:model.n_observed] = [zc.test({j: 2}).z for j in range(model.n_observed)]
        t = np.zeros(4, dtype=bool)
        t[:model.n_observed] = two_path_nodes(model)
        zs.append(row)
        truth.append(t)
        names.append(name)
    return SinkResult(np.array(zs), np.array(truth), names, cfg.level / 4)


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
# claims 7, 8, 11 and 12: structure recovery on random graphs
# --------------------------------------------------------------------------------------------------
def _recovery_runs(n_nodes: int, n: int, seeds: tuple[int, ...], n_latent: int, in_degree: float,
                   alpha_range, mu_range, latent_mu_range, level: float, max_cond: int, max_degree: int,
                   min_rows: int, baselines: bool, min_ess: int = 1000) -> list[dict]:
    tab = identifiability_table()
    features = [f for f in tab.features if sum(f[1]) <= max_degree]
    records = []
    for s in seeds:
        model, gen = _graph(s, n_nodes, in_degree, n_latent, alpha_range, mu_range, latent_mu_range)
        x = model.sample(n, gen)
        names = model.observed_names
        t0 = time.perf_counter()
        zc = ZeroConditionedCounts(x, min_rows=min_rows)
        power = SkeletonPower()
        skel = learn_skeleton(zc, level, max_cond, min_ess, power)
        ev = triple_evidence(zc, skel[0], features, level)
        pairs = pair_evidence(zc, skel[0], level)
        t_ours = time.perf_counter() - t0
        graphs = []
        for lat, pars in ((True, False), (True, True), (False, False)):
            cfg = LearnerConfig(level=level, max_cond=max_cond, max_degree=max_degree, min_rows=min_rows,
                                latent=lat, parsimony=pars, min_ess=min_ess)
            graphs.append((assemble(names, skel[0], ev, tab, cfg, skel[1], skel[2], pairs), t_ours))
        t0 = time.perf_counter()
        graphs.append((pbscm_cumulant_baseline(zc, level=level, skeleton=skel, names=names), time.perf_counter() - t0))
        if baselines and causal_learn_available():
            for fn in (pc_baseline, fci_baseline):
                t0 = time.perf_counter()
                graphs.append((fn(x, level=level, names=names), time.perf_counter() - t0))
        skel_info = {"min_removal_ess": power.min_removal_ess, "underpowered_tests": power.underpowered_tests,
                     "kept_for_power": len(power.kept_for_power), "removals": len(power.removal_ess)}
        truth = true_pair_states(model)
        for g, secs in graphs:
            sc = score_graph(model, g.states)
            det = getattr(g, "pair_detections", {})
            records.append({"method": g.method, "seed": s, "n": n, "nodes": n_nodes, "latents": n_latent,
                            "in_degree": in_degree, "seconds": secs, "pair_decisions": len(g.pair_decisions),
                            "pair_detections": len(det),
                            "pair_detections_correct": sum((truth[k].direction, truth[k].latent) == st
                                                           for k, st in det.items()),
                            **skel_info, **sc.as_dict()})
    return records


def _graph(s: int, n_nodes: int, in_degree: float, n_latent: int, alpha_range, mu_range, latent_mu_range):
    """The random graph of seed ``s`` of :func:`_recovery_runs` (the same draw: its generator's first use)."""
    gen = rng(s, 8, n_nodes, n_latent)
    return random_lc_pbscm(n_nodes, in_degree, n_latent, gen, alpha_range, mu_range, latent_mu_range), gen


#: the learners that ignore the data (the tests' trivial alternatives): every pair undetermined, or marks at chance
TRIVIAL_LEARNERS = ("abstaining", "chance")


def trivial_recovery(cfg: PGFTrieConfig, seed: int, n_nodes: int, n: int, n_seeds: int, learner: str = "chance",
                     n_latent: int | None = None, in_degree: float | None = None) -> list[dict]:
    """Records like :func:`structure_recovery`'s (same graphs, same seeds) for a learner that never reads the
    data: ``"abstaining"`` leaves every pair undetermined; ``"chance"`` draws each observed pair's state at random
    (an arrow with probability 1/2, either way round; a latent mark with probability 1/2), a fresh draw per
    sample size. Method name ``"<learner> (ignores the data)"``. What a claim rule must not pass (rule 11)."""
    if learner not in TRIVIAL_LEARNERS:
        raise ValueError(f"learner={learner!r} is not allowed; allowed values: {', '.join(TRIVIAL_LEARNERS)}")
    from .model import PairState

    n_latent = cfg.e2e_latents if n_latent is None else n_latent
    in_degree = cfg.e2e_in_degree if in_degree is None else float(in_degree)
    records = []
    for s in (seed * 1000 + k for k in range(n_seeds)):
        model, _ = _graph(s, n_nodes, in_degree, n_latent, cfg.alpha_range, cfg.mu_range, cfg.latent_mu_range)
        pairs = sorted(true_pair_states(model))
        gen = rng(s, 81, int(n))
        if learner == "abstaining":
            states = {k: PairState("?", None) for k in pairs}
        else:
            arrows, sides, marks = gen.random(len(pairs)) < 0.5, gen.random(len(pairs)) < 0.5, gen.random(len(pairs)) < 0.5
            states = {k: PairState(("->" if sd else "<-") if a else "none", bool(m))
                      for k, a, sd, m in zip(pairs, arrows, sides, marks)}
        sc = score_graph(model, states)
        records.append({"method": f"{learner} (ignores the data)", "seed": s, "n": n, "nodes": n_nodes,
                        "latents": n_latent, "in_degree": in_degree, **sc.as_dict()})
    return records


def structure_recovery(cfg: PGFTrieConfig, seed: int, n_nodes: int, n: int, n_seeds: int,
                       n_latent: int | None = None, baselines: bool = True, use_cache: bool = True,
                       in_degree: float | None = None) -> list[dict]:
    """Every method on ``n_seeds`` random graphs (``n_nodes`` observed, in-degree ``in_degree``
    (default ``cfg.e2e_in_degree``), ``n_latent`` latents, ``n`` samples). Returns one record per
    method and graph with the scores of ``metrics.score_graph`` and the skeleton's power record
    (smallest effective sample size of a removing test, tests skipped for power). Cached by the
    book's artefact cache."""
    n_latent = cfg.e2e_latents if n_latent is None else n_latent
    in_degree = cfg.e2e_in_degree if in_degree is None else float(in_degree)
    kwargs = {"n_nodes": n_nodes, "n": n, "seeds": tuple(seed * 1000 + k for k in range(n_seeds)), "n_latent": n_latent,
              "in_degree": in_degree, "alpha_range": cfg.alpha_range, "mu_range": cfg.mu_range,
              "latent_mu_range": cfg.latent_mu_range, "level": cfg.level, "max_cond": cfg.max_cond,
              "max_degree": cfg.max_degree, "min_rows": cfg.min_rows, "baselines": baselines,
              "min_ess": cfg.skeleton_min_ess}
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
            row[m + "_undefined"] = int(np.isnan(v).sum())  # graphs where the metric is undefined
            row[m + "_se"] = float(ok.std(ddof=1) / np.sqrt(len(ok))) if len(ok) > 1 else float("nan")
        out.append(row)
    order = {m: k for k, m in enumerate(METHODS)}
    return sorted(out, key=lambda r: tuple(order.get(r[k], 99) if k == "method" else r[k] for k in by))


# --------------------------------------------------------------------------------------------------
# sensitivity: number of latents and in-degree
# --------------------------------------------------------------------------------------------------
def sensitivity(cfg: PGFTrieConfig, seed: int, use_cache: bool = True) -> list[dict]:
    """Structure recovery on ``e2e_nodes``-node graphs at N = ``e2e_n``, ``sens_seeds`` graphs per
    point, varying one factor at a time around the end-to-end setting: the number of latent
    confounders over ``sens_latents`` (in-degree ``e2e_in_degree``) and the average in-degree over
    ``sens_in_degrees`` (``e2e_latents`` latents). Records carry ``factor`` ("latents" or
    "in_degree")."""
    out = []
    for k in progress(cfg.sens_latents, desc="sensitivity: latents"):
        for r in structure_recovery(cfg, seed, cfg.e2e_nodes, cfg.e2e_n, cfg.sens_seeds, n_latent=int(k),
                                    use_cache=use_cache):
            out.append({**r, "factor": "latents"})
    for d in progress(cfg.sens_in_degrees, desc="sensitivity: in-degree"):
        for r in structure_recovery(cfg, seed, cfg.e2e_nodes, cfg.e2e_n, cfg.sens_seeds, in_degree=float(d),
                                    use_cache=use_cache):
            out.append({**r, "factor": "in_degree"})
    return out
