"""The trie of a branching cascade and its map to the monomials of the PGF.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026)
states a "Trie representation theorem" mapping branching mechanisms to the algebra of PGF
monomials. Its statement was not reachable; this module implements **our reconstruction**:

Trie
    The trie rooted at :math:`v` has one node per directed path that starts at :math:`v` (the
    root is the empty path :math:`(v)`); the children of a path are its one-edge extensions. A
    unit born at :math:`v` activates a *sub-trie*: the root, and each child of an active trie node
    independently with the probability :math:`\\alpha` of the edge that extends it.
Monomials
    An activation pattern :math:`T` has probability
    :math:`\\prod_{\\text{active edges}}\\alpha\\prod_{\\text{inactive child edges of active nodes}}(1-\\alpha)`
    and leaves the monomial :math:`\\prod_{t\\in T,\\ \\mathrm{end}(t)\\in O} z_{\\mathrm{end}(t)}`:
    the exponent of :math:`z_j` is the number of active paths from :math:`v` that end at :math:`j`.
    Summing over patterns gives the cascade PGF :math:`g_v` of equation (1) in ``pgf.py`` (the
    tests check this coefficient by coefficient, by brute-force enumeration of the patterns).
Read-back
    The largest exponent of :math:`z_j` among the monomials of :math:`g_v` is the number of
    directed paths :math:`v \\leadsto j` (all paths active); a monomial with :math:`z_i z_j` but no
    :math:`z_k` needs a source with paths to :math:`i` and :math:`j` that avoid :math:`k`; a monomial
    without the source's own variable comes from a latent source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from .model import PoissonBranchingSCM

__all__ = [
    "CascadeTrie",
    "build_trie",
    "format_monomial",
    "monomial_origins",
    "path_counts",
    "path_counts_from_monomials",
    "trie_monomials",
    "trie_polynomial",
]


@dataclasses.dataclass(frozen=True)
class CascadeTrie:
    """The path trie of one source node.

    Attributes
    ----------
    paths : tuple of tuples of node indices, length T
        ``paths[0] == (root,)``; every other entry extends its parent by one edge.
    parent : tuple of int, length T
        Index of the parent trie node (-1 for the root).
    alpha : tuple of float, length T
        Thinning probability of the edge that enters each trie node (1.0 for the root).
    """

    model: PoissonBranchingSCM
    paths: tuple[tuple[int, ...], ...]
    parent: tuple[int, ...]
    alpha: tuple[float, ...]

    @property
    def root(self) -> int:
        return self.paths[0][0]

    def __len__(self) -> int:
        return len(self.paths)

    def children(self, t: int) -> list[int]:
        return [k for k, p in enumerate(self.parent) if p == t]

    def end(self, t: int) -> int:
        """The graph node a trie node ends at."""
        return self.paths[t][-1]

    def depth(self, t: int) -> int:
        return len(self.paths[t]) - 1

    def label(self, t: int) -> str:
        return "→".join(self.model.names[v] for v in self.paths[t])

    def activation_patterns(self) -> Iterator[tuple[frozenset[int], float]]:
        """Every sub-trie that contains the root and is closed under parents, with its probability.

        Exponential in the trie size: meant for the small tries of the chapter and the tests.
        """
        kids = [self.children(t) for t in range(len(self))]

        def expand(t: int) -> list[tuple[frozenset[int], float]]:
            # the patterns of the subtree at t, given that t is active
            out = [(frozenset([t]), 1.0)]
            for c in kids[t]:
                a = self.alpha[c]
                sub = expand(c)
                options = [(frozenset(), 1.0 - a)] + [(s, a * q) for s, q in sub]
                out = [(s1 | s2, q1 * q2) for s1, q1 in out for s2, q2 in options]
            return out

        yield from expand(0)


def build_trie(model: PoissonBranchingSCM, root: int | str, max_nodes: int = 20_000) -> CascadeTrie:
    """The trie of all directed paths that start at ``root`` (an index or a node name)."""
    if isinstance(root, str):
        if root not in model.names:
            raise ValueError(f"root={root!r} is not a node; nodes: {model.names}")
        root = model.names.index(root)
    paths, parent, alpha = [(int(root),)], [-1], [1.0]
    k = 0
    while k < len(paths):
        end = paths[k][-1]
        for c in model.children(end):
            paths.append(paths[k] + (int(c),))
            parent.append(k)
            alpha.append(float(model.alpha[end, c]))
            if len(paths) > max_nodes:
                raise ValueError(f"the trie of {model.names[root]} has more than max_nodes={max_nodes} paths")
        k += 1
    return CascadeTrie(model, tuple(paths), tuple(parent), tuple(alpha))


def _monomial(trie: CascadeTrie, active: frozenset[int], exponent: str = "paths") -> tuple[int, ...]:
    col = {int(v): k for k, v in enumerate(trie.model.observed_index)}
    e = [0] * trie.model.n_observed
    for t in active:
        v = trie.end(t)
        if v in col:
            e[col[v]] += 1
    if exponent == "reach":
        e = [min(x, 1) for x in e]
    return tuple(e)


def trie_polynomial(trie: CascadeTrie, exponent: str = "paths") -> tuple[dict[tuple[int, ...], float], int]:
    """:func:`trie_monomials` and the number of activation patterns enumerated.

    ``exponent="paths"`` is the Trie representation (the exponent of :math:`z_j` counts the active
    paths ending at j); ``"reach"`` is the alternative reading in which it is 1 for every reached
    node, however many paths reach it."""
    if exponent not in ("paths", "reach"):
        raise ValueError(f"exponent={exponent!r} is not allowed; allowed values: paths, reach")
    out: dict[tuple[int, ...], float] = {}
    count = 0
    for active, prob in trie.activation_patterns():
        count += 1
        m = _monomial(trie, active, exponent)
        out[m] = out.get(m, 0.0) + prob
    return out, count


def trie_monomials(trie: CascadeTrie, exponent: str = "paths") -> dict[tuple[int, ...], float]:
    """The polynomial :math:`g_{\\mathrm{root}}(z)` assembled from the trie's activation patterns:
    exponent tuple (n_obs,) -> coefficient (the constant term included when the root is latent)."""
    return trie_polynomial(trie, exponent)[0]


def path_counts(trie: CascadeTrie) -> dict[str, int]:
    """Number of directed paths from the root to every observed node (trie nodes ending there)."""
    model = trie.model
    out = {model.names[v]: 0 for v in model.observed_index}
    for t in range(len(trie)):
        name = model.names[trie.end(t)]
        if name in out:
            out[name] += 1
    return out


def path_counts_from_monomials(model: PoissonBranchingSCM, monomials) -> dict[str, int]:
    """Read the path counts back from the monomials of one cascade PGF: the largest exponent of
    each :math:`z_j` (the all-active pattern has every path active)."""
    mons = list(monomials)
    return {model.names[v]: int(max((m[k] for m in mons), default=0))
            for k, v in enumerate(model.observed_index)}


def monomial_origins(model: PoissonBranchingSCM, max_patterns: int = 20_000) -> dict[tuple[int, ...], list[dict]]:
    """For every monomial of :math:`\\log G`, the sources and activated paths that create it.

    Returns a dict: monomial -> list of ``{"source": name, "paths": [path labels], "weight":
    mu_source * probability}``, the contributions whose sum is the coefficient :math:`c_\\beta`.
    """
    out: dict[tuple[int, ...], list[dict]] = {}
    zero = (0,) * model.n_observed
    for v in range(model.p):
        if model.mu[v] == 0:
            continue
        trie = build_trie(model, v)
        count = 0
        for active, prob in trie.activation_patterns():
            count += 1
            if count > max_patterns:
                raise ValueError(f"more than max_patterns={max_patterns} activation patterns at {model.names[v]}")
            m = _monomial(trie, active)
            if m == zero:
                continue
            labels = sorted((trie.label(t) for t in active), key=lambda s: (s.count("→"), s))
            out.setdefault(m, []).append({"source": model.names[v], "paths": labels,
                                          "weight": float(model.mu[v] * prob)})
    return out


def format_monomial(model: PoissonBranchingSCM, m: tuple[int, ...], latex: bool = False) -> str:
    """``(1, 0, 2)`` -> ``z_A z_C^2`` (or its LaTeX)."""
    parts = []
    for k, e in enumerate(m):
        if e == 0:
            continue
        name = model.names[model.observed_index[k]]
        if latex:
            parts.append(f"z_{{{name}}}" + (f"^{{{e}}}" if e > 1 else ""))
        else:
            parts.append(f"z_{name}" + (f"^{e}" if e > 1 else ""))
    return (" " if latex else "·").join(parts) if parts else "1"

