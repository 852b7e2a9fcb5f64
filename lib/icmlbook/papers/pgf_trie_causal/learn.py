"""Learning an LC-PB-SCM from count data: skeleton, local triples, orientation and latent marks.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026)
proposes "a practical algorithm to learn causal structures under latent confounding". Its steps were
not reachable; this is **our reconstruction** from the dossier:

1. **Skeleton** (PC-style search over zero-conditioning sets). A pair :math:`(i, j)` stays adjacent
   unless :math:`\\mathrm{Cov}(X_i, X_j\\mid X_C=0) = 0` is accepted for some
   :math:`C\\subseteq\\mathrm{adj}(i)\\cup\\mathrm{adj}(j)`, :math:`|C|\\le` ``max_cond``. Zeroing
   deletes every cascade through :math:`C`, so the covariance vanishes iff no source reaches both
   along paths that avoid :math:`C`; a direct edge or a common latent parent is never blocked, so
   adjacency means "direct edge or latent confounding" (and, unlike d-separation, conditioning on
   a collider being zero creates no dependence).
2. **Local triples.** For each triple :math:`S` with at least two adjacent pairs, zero the observed
   neighbours of :math:`S` outside it (this blocks every path into :math:`S` through an observed
   node, leaving the induced local structure plus latent confounders) and test the 67 (or 37)
   dominance queries of ``identifiability.signature_features`` with factorial cumulants.
3. **Match** the observed signature to the 400 structures of the identifiability table that agree
   with the skeleton on :math:`S`: the allowed structures are those with the smallest weighted
   mismatch (a detected monomial the structure lacks costs 1; a predicted monomial not detected
   costs less for higher degrees, whose tests have less power).
4. **Assemble**: every adjacent pair has a domain of states (direct edge ->, <- or none; common
   latent parent yes/no); each triple's allowed structures constrain its three pairs; constraints
   are added in order of decreasing confidence and propagated to a fixed point (arc consistency),
   a constraint that would empty a domain is dropped.
5. **Pairs identifiable on their own.** For an adjacent pair :math:`(i, j)` whose state is still
   open, zero every other observed neighbour of :math:`i` and :math:`j`. What is left is the pair,
   its direct edge and its latent parents, and the monomial :math:`z_i z_j^2` exists exactly when
   :math:`i\\to j` *and* a latent parent of both: only a latent unit reaches :math:`j` twice
   (directly and through :math:`i`). So a detected :math:`\\kappa_{[1,2]} > 0` with
   :math:`\\kappa_{[2,1]}` not detected fixes the pair to :math:`i\\to j` with a latent mark
   (and symmetrically). The decision is propagated through the triples' constraints and dropped if
   it conflicts with them.

A pair's direction (or latent mark) is reported when every state left in its domain agrees on it.

The table is used only as a lookup of which structures share a signature; the decisions come from
the tests on the data.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from .identifiability import PAIRS, IdentifiabilityTable, identifiability_table
from .model import PairState, check_counts
from .support_tests import ZeroConditionedCounts

__all__ = [
    "ALL_STATES",
    "LearnedGraph",
    "LearnerConfig",
    "assemble",
    "learn_lc_pbscm",
    "learn_skeleton",
    "pair_evidence",
    "SkeletonPower",
    "triple_evidence",
    "triple_signature",
]

#: the states of an adjacent pair: (direct edge, common latent parent)
ALL_STATES = (("->", False), ("<-", False), ("->", True), ("<-", True), ("none", True))
NONADJ = ("none", False)


@dataclasses.dataclass(frozen=True)
class LearnerConfig:
    """Settings of :func:`learn_lc_pbscm`.

    level : test level of every support query (skeleton and triples)
    max_cond : largest zero-conditioning set in the skeleton search
    max_degree : largest total degree of the triple queries (3 or 4)
    min_rows : fewest rows with the zero-conditioning satisfied for a query to decide anything
    latent : allow latent confounders (False: the causally sufficient variant, latent-free table)
    miss_weight : cost of a predicted monomial that was not detected, by degree 2, 3, 4
    parsimony : among a triple's best matches keep those with the fewest latent confounders (an
        extra assumption, off by default: it is not implied by monomial equivalence)
    min_ess : fewest rows with the zero-conditioning satisfied for a skeleton test to *remove* an
        adjacency (its power; a covariance of 0.03 between counts of variance about 0.3 needs about
        1,000 rows to be seen at level 0.01 with power 0.8)
    pair_tests : decide open pairs from their own z_i z_j^2 / z_i^2 z_j monomials (step 5)
    """

    level: float = 0.01
    max_cond: int = 3
    max_degree: int = 3
    min_rows: int = 100
    latent: bool = True
    miss_weight: tuple[float, float, float] = (1.0, 0.5, 0.25)
    parsimony: bool = False
    min_ess: int = 1000
    pair_tests: bool = True

    def __post_init__(self):
        if not 0 < self.level < 1:
            raise ValueError(f"level={self.level!r} must be in (0, 1)")
        if isinstance(self.max_cond, bool) or not isinstance(self.max_cond, int) or self.max_cond < 0:
            raise ValueError(f"max_cond={self.max_cond!r} must be a non-negative integer")
        if self.max_degree not in (2, 3, 4):
            raise ValueError(f"max_degree={self.max_degree!r} is not allowed; allowed values: 2, 3, 4")
        if isinstance(self.min_rows, bool) or not isinstance(self.min_rows, int) or self.min_rows < 2:
            raise ValueError(f"min_rows={self.min_rows!r} must be an integer >= 2")
        if isinstance(self.min_ess, bool) or not isinstance(self.min_ess, int) or self.min_ess < 2:
            raise ValueError(f"min_ess={self.min_ess!r} must be an integer >= 2")
        if len(self.miss_weight) != 3 or any(w < 0 for w in self.miss_weight):
            raise ValueError(f"miss_weight={self.miss_weight!r} must be three non-negative weights")


@dataclasses.dataclass
class LearnedGraph:
    """The output of a structure learner over ``names`` (observed variables, data-column order).

    Attributes
    ----------
    states : dict (i, j) -> PairState for every pair i < j (direction in {"->","<-","none","?"};
        latent in {True, False, None})
    sepsets : dict (i, j) -> zero-conditioning set that separated a non-adjacent pair
    triples : list of dicts, one per analysed triple (its zero set, rows, signature, allowed
        structures, score) — for inspection
    n_tests : number of support queries run
    method : the learner's name
    """

    names: tuple[str, ...]
    states: dict[tuple[int, int], PairState]
    sepsets: dict = dataclasses.field(default_factory=dict)
    triples: list = dataclasses.field(default_factory=list)
    n_tests: int = 0
    method: str = "LC-PB-SCM (ours)"
    pair_decisions: dict = dataclasses.field(default_factory=dict)  # step 5: open pairs fixed by their own monomials
    pair_detections: dict = dataclasses.field(default_factory=dict)  # every pair whose own monomial was detected

    def directed_edges(self) -> set[tuple[int, int]]:
        out = set()
        for (i, j), s in self.states.items():
            if s.direction == "->":
                out.add((i, j))
            elif s.direction == "<-":
                out.add((j, i))
        return out

    def latent_pairs(self) -> set[tuple[int, int]]:
        return {k for k, s in self.states.items() if s.latent is True}

    def adjacencies(self) -> set[tuple[int, int]]:
        return {k for k, s in self.states.items() if s.adjacent}

    def to_networkx(self):
        """A ``networkx.MultiDiGraph`` over the variable names with edge keys ``"directed"`` (u->v),
        ``"bidirected"`` (latent confounding, stored once as u->v with u before v) and
        ``"undirected"`` (adjacent, direction not determined). The attribute ``mark`` of a
        bidirected edge is "<->"; an undetermined latent mark on an adjacency is ``latent=None``."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self.names)
        for (i, j), s in sorted(self.states.items()):
            u, v = self.names[i], self.names[j]
            if s.direction == "->":
                g.add_edge(u, v, key="directed", mark="->", latent=s.latent)
            elif s.direction == "<-":
                g.add_edge(v, u, key="directed", mark="->", latent=s.latent)
            elif s.direction == "?" and s.adjacent:
                g.add_edge(u, v, key="undirected", mark="o-o", latent=s.latent)
            if s.latent is True:
                g.add_edge(u, v, key="bidirected", mark="<->")
        return g


# --------------------------------------------------------------------------------------------------
# step 1: skeleton
# --------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SkeletonPower:
    """How much power the skeleton's removals had.

    removal_ess : effective sample sizes (rows with the zero set at 0) of the tests that removed an
        adjacency
    underpowered_tests : tests skipped because fewer than ``min_ess`` rows were left
    kept_for_power : pairs left adjacent although some separating test was skipped for power
    min_ess : the threshold used
    """

    removal_ess: list = dataclasses.field(default_factory=list)
    underpowered_tests: int = 0
    kept_for_power: set = dataclasses.field(default_factory=set)
    min_ess: int = 0

    @property
    def min_removal_ess(self) -> float:
        return float(min(self.removal_ess)) if self.removal_ess else float("nan")


def learn_skeleton(data: ZeroConditionedCounts, level: float = 0.01, max_cond: int = 3, min_ess: int = 1000,
                   power: SkeletonPower | None = None):
    """PC-style removal of adjacencies by zero-conditioned covariance tests.

    A test removes an adjacency only when at least ``min_ess`` rows have the zero set at 0; the
    optional ``power`` collects what that cost (:class:`SkeletonPower`).

    Returns ``(adj, sepsets, n_tests)``: ``adj`` (p, p) bool symmetric; ``sepsets[(i, j)]`` the
    zero set that separated a removed pair.
    """
    p = data.p
    adj = ~np.eye(p, dtype=bool)
    sepsets: dict = {}
    n_tests = 0
    pw = power if power is not None else SkeletonPower()
    pw.min_ess = int(min_ess)
    skipped: set = set()
    for k in range(max_cond + 1):
        snapshot = adj.copy()  # "stable" PC: candidate sets fixed within a level
        any_candidates = False
        for i, j in itertools.combinations(range(p), 2):
            if not adj[i, j]:
                continue
            cand = sorted((set(np.flatnonzero(snapshot[i])) | set(np.flatnonzero(snapshot[j]))) - {i, j})
            if len(cand) < k:
                continue
            any_candidates = True
            for cond in itertools.combinations(cand, k):
                t = data.test({i: 1, j: 1}, cond)
                n_tests += 1
                if np.isnan(t.p_value) or t.n_eff < min_ess:
                    pw.underpowered_tests += 1
                    skipped.add((i, j))
                    continue
                if t.p_value > level:
                    adj[i, j] = adj[j, i] = False
                    sepsets[(i, j)] = cond
                    pw.removal_ess.append(int(t.n_eff))
                    break
        if not any_candidates:
            break
    pw.kept_for_power = {k for k in skipped if adj[k]}
    return adj, sepsets, n_tests


# --------------------------------------------------------------------------------------------------
# step 2: triple signatures
# --------------------------------------------------------------------------------------------------
def triple_signature(data: ZeroConditionedCounts, triple: tuple[int, int, int], outside: tuple[int, ...],
                     features, level: float):
    """Test every dominance query of ``features`` on the local PGF of ``triple``.

    Returns ``(observed, z, rows)``: ``observed`` (F,) float with 1 (detected), 0 (not detected)
    or nan (too few rows); ``z`` the z statistics; ``rows`` the rows with the outside zeroed.
    """
    observed = np.full(len(features), np.nan)
    zs = np.full(len(features), np.nan)
    rows_all = data.rows(outside)
    n_rows = data.n if rows_all is None else len(rows_all)
    # order queries by zero set so that the per-zero-set cache is reused
    order = sorted(range(len(features)), key=lambda f: -1 if features[f][0] is None else features[f][0])
    for f in order:
        z, pat = features[f]
        zero = tuple(outside) + (() if z is None else (triple[z],))
        pattern = {triple[k]: e for k, e in enumerate(pat) if e}
        t = data.test(pattern, zero)
        if not np.isnan(t.p_value):
            observed[f] = float(t.p_value < level)
            zs[f] = t.z
    return observed, zs, n_rows


def _match(observed: np.ndarray, table: IdentifiabilityTable, candidates: np.ndarray, degrees: np.ndarray,
           miss_weight) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mismatch of every candidate structure's signature with the observed one."""
    sig = table.signatures[candidates].astype(float)  # (K, F)
    known = ~np.isnan(observed)
    obs = np.where(known, observed, 0.0)
    w_miss = np.asarray(miss_weight, dtype=float)[np.clip(degrees - 2, 0, 2)]
    false_absent = (obs[None, :] == 1) & (sig == 0) & known[None, :]
    false_present = (obs[None, :] == 0) & (sig == 1) & known[None, :]
    score = false_absent.sum(1) + (false_present * w_miss[None, :]).sum(1)
    return score, sig


# --------------------------------------------------------------------------------------------------
# the learner
# --------------------------------------------------------------------------------------------------
def triple_evidence(zc: ZeroConditionedCounts, adj: np.ndarray, features, level: float) -> list[dict]:
    """Step 2 for every triple with at least two adjacent pairs: the observed signature of its local
    PGF (outside neighbours zeroed). Returns one dict per triple (``triple``, ``outside``, ``rows``,
    ``observed``, ``z``)."""
    out = []
    for tri in itertools.combinations(range(zc.p), 3):
        pairs = [(tri[a], tri[b]) for a, b in PAIRS]
        if sum(adj[i, j] for i, j in pairs) < 2:
            continue
        outside = tuple(int(v) for v in sorted(set(np.flatnonzero(adj[list(tri)].any(0))) - set(tri)))
        observed, zs, n_rows = triple_signature(zc, tri, outside, features, level)
        out.append({"triple": tri, "outside": outside, "rows": n_rows, "observed": observed, "z": zs})
    return out


def pair_evidence(zc: ZeroConditionedCounts, adj: np.ndarray, level: float) -> dict:
    """Step 5's tests for every adjacent pair: with the other observed neighbours of both zeroed,
    is :math:`\\kappa_{[1,2]}` (source reaching i once and j twice) or :math:`\\kappa_{[2,1]}`
    positive? Returns ``{(i, j): {"fwd": p, "bwd": p, "rows": n_eff, "outside": zero set}}``."""
    out = {}
    for i, j in itertools.combinations(range(zc.p), 2):
        if not adj[i, j]:
            continue
        outside = tuple(int(v) for v in sorted(set(np.flatnonzero(adj[i] | adj[j])) - {i, j}))
        fwd = zc.test({i: 1, j: 2}, outside)
        bwd = zc.test({i: 2, j: 1}, outside)
        out[(i, j)] = {"fwd": fwd.p_value, "bwd": bwd.p_value, "rows": fwd.n_eff, "outside": outside}
    return out


def _pair_decision(ev: dict, level: float):
    """("->", True) when only z_i z_j^2 is detected, ("<-", True) when only z_i^2 z_j, else None."""
    f, b = ev["fwd"], ev["bwd"]
    if np.isnan(f) or np.isnan(b):
        return None
    if f < level <= b:
        return ("->", True)
    if b < level <= f:
        return ("<-", True)
    return None


def assemble(names: tuple[str, ...], adj: np.ndarray, evidence: list[dict], table: IdentifiabilityTable,
             config: LearnerConfig, sepsets=None, n_tests: int = 0, pair_ev: dict | None = None) -> LearnedGraph:
    """Steps 3-4: match every triple's signature to the table and combine the constraints."""
    cfg = config
    p = adj.shape[0]
    feat_idx = [f for f, (z, pat) in enumerate(table.features) if sum(pat) <= cfg.max_degree]
    degrees = np.array([sum(table.features[f][1]) for f in feat_idx])
    sub_table = dataclasses.replace(table, signatures=table.signatures[:, feat_idx])
    allowed_structs = np.flatnonzero(np.ones(len(table.structures), bool) if cfg.latent else table.latent_free)
    struct_states = [[s.pair_state(pr) for pr in PAIRS] for s in table.structures]
    n_latents = np.array([len(s.latents) for s in table.structures])

    domains: dict[tuple[int, int], set] = {}
    for i, j in itertools.combinations(range(p), 2):
        if adj[i, j]:
            domains[(i, j)] = {st for st in ALL_STATES if cfg.latent or st[1] is False}
        else:
            domains[(i, j)] = {NONADJ}

    constraints = []
    infos = []
    for ev in evidence:
        tri = ev["triple"]
        info = dict(ev)
        infos.append(info)
        observed = ev["observed"]
        if len(observed) != len(feat_idx):
            raise ValueError("evidence was computed for another max_degree")
        pairs = [(tri[a], tri[b]) for a, b in PAIRS]
        if np.all(np.isnan(observed)):
            info["allowed"] = []
            continue
        adj_pattern = [bool(adj[i, j]) for i, j in pairs]
        cands = np.array([k for k in allowed_structs
                          if all((st != NONADJ) == a for st, a in zip(struct_states[k], adj_pattern))])
        if len(cands) == 0:
            info["allowed"] = []
            continue
        score, _ = _match(observed, sub_table, cands, degrees, cfg.miss_weight)
        best = score.min()
        allowed = cands[score == best]
        if cfg.parsimony:  # fewest latent confounders among the best matches
            allowed = allowed[n_latents[allowed] == n_latents[allowed].min()]
        others = score[score > best]
        margin = float(others.min() - best) if len(others) else float("inf")
        info.update(allowed=[int(k) for k in allowed], score=float(best), margin=margin)
        tuples = {tuple(struct_states[k]) for k in allowed}
        constraints.append((margin, -best, tri, pairs, tuples))

    # step 4: add constraints by decreasing confidence, propagate, drop the conflicting ones
    constraints.sort(key=lambda c: (-c[0], -c[1], c[2]))
    accepted = []
    for con in constraints:
        trial = {k: set(v) for k, v in domains.items()}
        if _propagate(trial, accepted + [con]):
            domains = trial
            accepted.append(con)
    # step 5: pairs decided by their own monomials (an open pair only; dropped when it conflicts)
    decided_pairs, detected_pairs = {}, {}
    if cfg.pair_tests and pair_ev:
        for key in sorted(pair_ev):
            st = _pair_decision(pair_ev[key], cfg.level)
            if st is not None:
                detected_pairs[key] = st
            if st is None or len(domains[key]) == 1 or st not in domains[key]:
                continue
            trial = {k: set(v) for k, v in domains.items()}
            trial[key] = {st}
            if _propagate(trial, accepted):
                domains = trial
                decided_pairs[key] = st
    states = {}
    for key, dom in domains.items():
        dirs = {d for d, _ in dom}
        lats = {l for _, l in dom}
        direction = next(iter(dirs)) if len(dirs) == 1 else "?"
        latent = next(iter(lats)) if len(lats) == 1 else None
        states[key] = PairState(direction, latent)
    method = ("LC-PB-SCM (ours)" if cfg.latent else "PGF, causally sufficient") + (" + parsimony" if cfg.parsimony and cfg.latent else "")
    n_pair_tests = 2 * len(pair_ev) if (cfg.pair_tests and pair_ev) else 0
    graph = LearnedGraph(tuple(names), states, dict(sepsets or {}), infos,
                         n_tests + len(evidence) * len(feat_idx) + n_pair_tests, method)
    graph.pair_decisions = decided_pairs
    graph.pair_detections = detected_pairs
    return graph


def learn_lc_pbscm(data, config: LearnerConfig | None = None, table: IdentifiabilityTable | None = None,
                   names: tuple[str, ...] | None = None, skeleton=None, evidence: list[dict] | None = None) -> LearnedGraph:
    """Learn the mixed graph of an LC-PB-SCM from count data (steps 1-4 of the module docstring).

    Parameters
    ----------
    data : array_like (N, p) of non-negative integer counts, or a ZeroConditionedCounts
    config : LearnerConfig
    table : the identifiability table (default: the cached one)
    names : variable names (default X0..X{p-1})
    skeleton : optional ``(adj, sepsets, n_tests)`` from :func:`learn_skeleton` to reuse
    evidence : optional output of :func:`triple_evidence` (same skeleton and max_degree) to reuse

    Returns
    -------
    LearnedGraph (``.to_networkx()`` gives a MultiDiGraph with directed, bidirected and
    undirected edges)
    """
    cfg = config or LearnerConfig()
    zc = data if isinstance(data, ZeroConditionedCounts) else ZeroConditionedCounts(check_counts(data), min_rows=cfg.min_rows)
    names = tuple(names) if names is not None else tuple(f"X{k}" for k in range(zc.p))
    if len(names) != zc.p:
        raise ValueError(f"names has {len(names)} entries for {zc.p} columns")
    tab = table or identifiability_table(max_degree=4)
    adj, sepsets, n_tests = (skeleton if skeleton is not None
                             else learn_skeleton(zc, cfg.level, cfg.max_cond, cfg.min_ess))
    if evidence is None:
        features = [f for f in tab.features if sum(f[1]) <= cfg.max_degree]
        evidence = triple_evidence(zc, adj, features, cfg.level)
    pair_ev = pair_evidence(zc, adj, cfg.level) if cfg.pair_tests else None
    return assemble(names, adj, evidence, tab, cfg, sepsets, n_tests, pair_ev)


def _propagate(domains: dict, constraints: list) -> bool:
    """Arc consistency: shrink pair domains to the states some allowed triple tuple supports.
    Returns False when a domain empties."""
    changed = True
    while changed:
        changed = False
        for _, _, _, pairs, tuples in constraints:
            ok = [t for t in tuples if all(t[k] in domains[pairs[k]] for k in range(3))]
            if not ok:
                return False
            for k in range(3):
                keep = {t[k] for t in ok}
                if keep != domains[pairs[k]]:
                    domains[pairs[k]] &= keep
                    if not domains[pairs[k]]:
                        return False
                    changed = True
    return True
