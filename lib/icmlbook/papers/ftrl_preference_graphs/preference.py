"""The preference graph of a game and the ordinal objects built on it.

- **Preference graph** :math:`\\mathcal G(\\Gamma)`: nodes are pure profiles; an arc
  :math:`\\alpha\\to\\beta` when :math:`\\beta=(b_i;\\alpha_{-i})` differs from :math:`\\alpha` in one
  player's action and :math:`u_i(\\beta)>u_i(\\alpha)` (a profitable unilateral deviation). Tied edges
  of the profile cube carry no arc and are listed in ``graph.graph["ties"]``.
- **Sink equilibria**: the sink strongly connected components (``networkx.attracting_components``).
- **Preferentially stable set** :math:`S\\subseteq A`: no arc of :math:`\\mathcal G` leaves :math:`S`
  (closed under profitable deviations).
- **Subgame / product set** :math:`S=\\prod_iS_i`; **box**: a product set contained in :math:`S`.
- **Skeleton** of a set :math:`\\mathcal C\\subseteq X`: the pure profiles whose vertices lie in it.
- **Span** of :math:`S` (our reading, the union of the faces :math:`\\prod_i\\Delta(B_i)` over boxes
  :math:`\\prod_iB_i\\subseteq S`) and the **outside mass**
  :math:`D_S(x)=\\sum_{\\alpha\\notin S}\\prod_ix_{i\\alpha_i}`, so that :math:`\\mathrm{span}(S)=\\{D_S=0\\}`.

The paper's abstract (ICML 2026) names these notions; the exact definition of
the span is our reconstruction, consistent with Boone & Mertikopoulos (NeurIPS 2023) for products.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Sequence

import networkx as nx
import numpy as np
from scipy.optimize import linprog

from .games import NormalFormGame, Profile

ProductFactors = tuple[tuple[int, ...], ...]


# -- the graph ------------------------------------------------------------------------------------
def unilateral_neighbours(game: NormalFormGame, profile: Profile) -> Iterable[tuple[int, Profile]]:
    """(player, profile) for every profile one unilateral deviation away from ``profile``."""
    for i, n in enumerate(game.shape):
        for b in range(n):
            if b != profile[i]:
                yield i, profile[:i] + (b,) + profile[i + 1:]


def preference_graph(game: NormalFormGame, tol: float = 0.0) -> nx.DiGraph:
    """The preference graph of ``game`` as a ``networkx.DiGraph``.

    Nodes are pure profiles (tuples) with attribute ``payoffs`` (the N payoffs there). An arc
    ``alpha -> beta`` carries ``player`` (who deviates) and ``gain`` = :math:`u_i(\\beta)-u_i(\\alpha)>0`.
    Edges of the profile cube with :math:`|u_i(\\beta)-u_i(\\alpha)|\\le` ``tol`` are ties: no arc,
    listed once in ``graph.graph["ties"]``.
    """
    g = nx.DiGraph(name=game.name, ties=[])
    U = game.payoffs
    for alpha in game.profiles():
        g.add_node(alpha, payoffs=tuple(float(U[(i, *alpha)]) for i in range(game.n_players)))
    for alpha in game.profiles():
        for i, beta in unilateral_neighbours(game, alpha):
            gain = float(U[(i, *beta)] - U[(i, *alpha)])
            if gain > tol:
                g.add_edge(alpha, beta, player=i, gain=gain)
            elif abs(gain) <= tol and alpha < beta:
                g.graph["ties"].append((alpha, beta, i))
    return g


def arc_set(game: NormalFormGame) -> frozenset[tuple[Profile, Profile]]:
    """The arcs of the preference graph as a set of (tail, head) pairs (for comparing games)."""
    return frozenset(preference_graph(game).edges())


def sink_equilibria(game_or_graph) -> list[frozenset[Profile]]:
    """Sink strongly connected components of the preference graph, sorted by their smallest profile."""
    g = game_or_graph if isinstance(game_or_graph, nx.DiGraph) else preference_graph(game_or_graph)
    return sorted((frozenset(c) for c in nx.attracting_components(g)), key=lambda c: (len(c), min(c)))


def strict_pure_nash(game: NormalFormGame) -> set[Profile]:
    """Strict pure Nash equilibria by brute force (every unilateral deviation strictly loses)."""
    out = set()
    U = game.payoffs
    for alpha in game.profiles():
        if all(U[(i, *beta)] < U[(i, *alpha)] for i, beta in unilateral_neighbours(game, alpha)):
            out.add(alpha)
    return out


# -- preferential stability -----------------------------------------------------------------------
def leaving_arcs(game: NormalFormGame, S) -> list[tuple[Profile, Profile, int, float]]:
    """Arcs of the preference graph that leave ``S``: (tail in S, head not in S, player, gain)."""
    S = game.check_set(S)
    U = game.payoffs
    out = []
    for alpha in sorted(S):
        for i, beta in unilateral_neighbours(game, alpha):
            if beta not in S:
                gain = float(U[(i, *beta)] - U[(i, *alpha)])
                if gain > 0:
                    out.append((alpha, beta, i, gain))
    return out


def is_preferentially_stable(game: NormalFormGame, S) -> bool:
    """True iff no profitable unilateral deviation leads from ``S`` to outside ``S``."""
    if not S:
        raise ValueError("S is empty; a preferentially stable set must contain at least one profile")
    return not leaving_arcs(game, S)


def preferential_margin(game: NormalFormGame, S) -> float:
    """The largest gain of a deviation from ``S`` to outside ``S`` (negative iff strictly closed)."""
    S = game.check_set(S)
    U = game.payoffs
    best = -np.inf
    for alpha in S:
        for i, beta in unilateral_neighbours(game, alpha):
            if beta not in S:
                best = max(best, float(U[(i, *beta)] - U[(i, *alpha)]))
    return best


def preferentially_stable_sets(game: NormalFormGame, max_profiles: int = 16) -> list[frozenset[Profile]]:
    """Every non-empty preferentially stable set (closed under the graph's successors).

    Enumerates all :math:`2^{|A|}` subsets as bitmasks, so ``game.n_profiles`` must be <=
    ``max_profiles``. Sorted by size, then lexicographically.
    """
    n = game.n_profiles
    if n > max_profiles:
        raise ValueError(f"game has {n} profiles; enumeration is limited to max_profiles={max_profiles}")
    profs = game.profiles()
    index = {p: k for k, p in enumerate(profs)}
    g = preference_graph(game)
    succ = np.zeros(n, dtype=np.int64)
    for u, v in g.edges():
        succ[index[u]] |= 1 << index[v]
    masks = np.arange(1, 1 << n, dtype=np.int64)
    closed = np.ones(masks.shape, dtype=bool)
    for k in range(n):
        has_k = (masks >> k) & 1 == 1
        closed &= ~has_k | ((succ[k] & ~masks) == 0)
    out = [frozenset(profs[k] for k in range(n) if (m >> k) & 1) for m in masks[closed]]
    return sorted(out, key=lambda s: (len(s), sorted(s)))


# -- product sets, boxes, span --------------------------------------------------------------------
def product_profiles(factors: Sequence[Sequence[int]]) -> frozenset[Profile]:
    return frozenset(tuple(p) for p in itertools.product(*factors))


def product_sets(game: NormalFormGame, include_full: bool = False) -> list[tuple[ProductFactors, frozenset[Profile]]]:
    """All subgames :math:`S=\\prod_iS_i` (every :math:`S_i` non-empty) as (factors, profiles)."""
    per_player = []
    for n in game.shape:
        subs = [c for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
        per_player.append(subs)
    out = []
    for factors in itertools.product(*per_player):
        if not include_full and all(len(f) == n for f, n in zip(factors, game.shape)):
            continue
        out.append((tuple(factors), product_profiles(factors)))
    return out


def projections(S) -> ProductFactors:
    """The players' projections :math:`(\\pi_i(S))_i` of a set of profiles."""
    S = list(S)
    return tuple(tuple(sorted({p[i] for p in S})) for i in range(len(S[0])))


def is_product(S) -> bool:
    """True iff ``S`` equals the product of its projections (a subgame)."""
    return frozenset(S) == product_profiles(projections(S))


def boxes(game: NormalFormGame, S, maximal: bool = False) -> list[ProductFactors]:
    """Product sets :math:`\\prod_iB_i\\subseteq S` (the faces that make up the span of ``S``)."""
    S = game.check_set(S)
    proj = projections(S)
    cands = [[c for r in range(1, len(p) + 1) for c in itertools.combinations(p, r)] for p in proj]
    found = [f for f in itertools.product(*cands) if product_profiles(f) <= S]
    if maximal:
        sets = [product_profiles(f) for f in found]
        found = [f for f, s in zip(found, sets) if not any(s < t for t in sets)]
    return found


def outside_mask(game: NormalFormGame, S) -> np.ndarray:
    """Boolean (n_profiles,), True for profiles outside ``S`` (C order)."""
    S = game.check_set(S)
    return np.array([p not in S for p in game.profiles()])


def outside_mass(game: NormalFormGame, S, x: np.ndarray) -> np.ndarray:
    """:math:`D_S(x)=\\sum_{\\alpha\\notin S}\\prod_ix_{i\\alpha_i}`: ``x`` (B, D) -> (B,).

    Summed term by term (no ``1 - mass inside``), so values down to 1e-300 keep their precision.
    """
    return game.joint(x) @ outside_mask(game, S).astype(float)


def in_span(game: NormalFormGame, S, x: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """True where ``x`` (B, D) lies in the span of ``S`` (:math:`D_S(x)\\le` ``tol``)."""
    return outside_mass(game, S, x) <= tol


def skeleton(game: NormalFormGame, points: np.ndarray, tol: float = 1e-3) -> frozenset[Profile]:
    """Pure profiles whose vertex :math:`e_\\alpha` is within ``tol`` (sup norm) of one of ``points``.

    ``points`` (M, D): a sampled set of mixed profiles. With ``tol=0`` this is the skeleton
    :math:`\\{\\alpha: e_\\alpha\\in\\mathcal C\\}` of the finite set itself.
    """
    pts = np.atleast_2d(np.asarray(points, dtype=float))
    if pts.shape[-1] != game.dim:
        raise ValueError(f"points have width {pts.shape[-1]}, the game's mixed profiles have width {game.dim}")
    # distance to e_alpha in sup norm = max_i (1 - x_{i,alpha_i}) for points in X
    out = set()
    blocks = game.split(pts)
    for alpha in game.profiles():
        d = np.max(np.stack([1.0 - blocks[i][:, a] for i, a in enumerate(alpha)], axis=-1), axis=-1)
        if (d <= tol).any():
            out.add(alpha)
    return frozenset(out)


# -- Boone & Mertikopoulos' club test, by an independent route -------------------------------------
def is_club(game: NormalFormGame, factors: ProductFactors, rng: np.random.Generator | None = None,
            n_samples: int = 4000) -> bool:
    """Is the face :math:`\\prod_i\\Delta(S_i)` closed under better replies (club)?

    Club: for every :math:`x` in the face, player :math:`i` and :math:`b\\notin S_i`,
    :math:`u_i(b;x_{-i})<\\min_{a\\in S_i}u_i(a;x_{-i})`. For two players this is a linear program per
    (i, a, b) (maximise the payoff difference over the opponent's face); for more players we check a
    dense random sample of the face plus its vertices. This does not go through the preference graph,
    so it serves as an independent check of "preferentially stable product set = club".
    """
    rng = rng or np.random.default_rng(0)
    N = game.n_players
    U = game.payoffs
    for i in range(N):
        outside = [b for b in range(game.shape[i]) if b not in factors[i]]
        if not outside:
            continue
        Ui = np.moveaxis(U[i], i, 0)          # (n_i, other axes...)
        other_factors = [factors[j] for j in range(N) if j != i]
        if N == 2:
            opp = other_factors[0]
            for a in factors[i]:
                for b in outside:
                    c = -(Ui[b][list(opp)] - Ui[a][list(opp)])   # maximise diff -> minimise -diff
                    res = linprog(c, A_eq=np.ones((1, len(opp))), b_eq=[1.0], bounds=[(0, 1)] * len(opp),
                                  method="highs")
                    if -res.fun >= 0:
                        return False
            continue
        # N >= 3: random points of the opponents' face (Dirichlet) and its vertices
        samples = []
        for f in other_factors:
            s = np.zeros((n_samples, Ui.shape[1 + len(samples)]))
            s[:, list(f)] = rng.dirichlet(np.ones(len(f)), size=n_samples)
            samples.append(s)
        verts = list(itertools.product(*other_factors))
        for a in factors[i]:
            for b in outside:
                D = Ui[b] - Ui[a]
                if max(D[v] for v in verts) >= 0:
                    return False
                vals = np.einsum(_einsum_spec(len(samples)), D, *samples)   # (n_samples,)
                if vals.max() >= 0:
                    return False
    return True


def _einsum_spec(k: int) -> str:
    letters = "cdefgh"[:k]
    return letters + "," + ",".join(f"m{ch}" for ch in letters) + "->m"


# -- split corners --------------------------------------------------------------------------------
def split_corners(game: NormalFormGame, S) -> list[tuple[Profile, int, int, int, int]]:
    """Vertices of ``S`` where two players each gain by a move that stays in ``S`` while their joint move leaves it.

    Returns (alpha, i, b, j, c): at :math:`\\alpha\\in S`, :math:`u_i(b;\\alpha_{-i})>u_i(\\alpha)` and
    :math:`u_j(c;\\alpha_{-j})>u_j(\\alpha)` with :math:`(b;\\alpha_{-i}),(c;\\alpha_{-j})\\in S` and
    :math:`(b,c;\\alpha_{-ij})\\notin S`. Such a corner makes the span unstable whatever the payoffs'
    sizes: two masses :math:`\\delta_i,\\delta_j` growing at the two gains, tuned so that they reach a
    fixed size together, make the joint profile's mass of that size from :math:`D_S=\\delta_i\\delta_j`.
    An ordinal pattern (signs of gains only) that preferential stability does not exclude.
    """
    S = game.check_set(S)
    U = game.payoffs
    out = []
    for alpha in sorted(S):
        moves = [(i, b) for i, beta in unilateral_neighbours(game, alpha)
                 for b in [beta[i]] if beta in S and U[(i, *beta)] > U[(i, *alpha)]]
        for (i, b), (j, c) in itertools.combinations(moves, 2):
            if i == j:
                continue
            joint = list(alpha)
            joint[i], joint[j] = b, c
            if tuple(joint) not in S:
                out.append((alpha, i, b, j, c))
    return out
