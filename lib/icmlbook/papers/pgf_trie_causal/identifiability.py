"""Local identifiability: every 3-variable local structure, grouped by the support of its PGF.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026)
gives "a complete identifiability condition for local 3-variables that covers all causal patterns
distinguishable up to monomial equivalence". Its table was not reachable; this module computes
**our** table under our configuration space (the paper's may differ):

* three observed variables A, B, C and any of the 25 DAGs over them;
* any subset of the latent confounders :math:`\\{L_{AB}, L_{AC}, L_{BC}, L_{ABC}\\}` (16 choices),
  each a latent root with a thinning edge to each of its children;

400 local structures in all. Two structures are *monomial-equivalent* when :math:`\\log G` has the
same support (equation 2 of ``pgf.py``; the support does not depend on the parameters). We find 13
classes (4 singletons) among the 25 latent-free DAGs and 129 classes (80 singletons) among the 400.

Testable signature
    Data do not show the support directly; they show *dominance queries*
    :math:`q_Z(p) = [\\exists\\beta\\in\\mathrm{supp}:\\ \\beta_Z = 0,\\ \\beta\\ge p]`, which are the
    signs of factorial cumulants of the local PGF with the variables :math:`Z` zeroed (see
    ``support_tests.py``). With :math:`|Z|\\le 1` and :math:`2\\le |p|\\le 4` these 67 queries separate
    exactly the same 129 classes (degree :math:`\\le 3` gives 120): the table the learner matches
    against.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools

import numpy as np

from .model import PoissonBranchingSCM

__all__ = [
    "LATENT_SETS",
    "NODE_NAMES",
    "PAIRS",
    "IdentifiabilityTable",
    "LocalStructure",
    "build_identifiability_table",
    "identifiability_table",
    "local_structures",
    "signature_features",
    "signature_of_support",
]

NODE_NAMES = ("A", "B", "C")
PAIRS = ((0, 1), (0, 2), (1, 2))
LATENT_SETS = ((0, 1), (0, 2), (1, 2), (0, 1, 2))


@dataclasses.dataclass(frozen=True)
class LocalStructure:
    """A DAG over {A, B, C} plus a set of latent confounders (children sets from ``LATENT_SETS``)."""

    edges: tuple[tuple[int, int], ...]
    latents: tuple[tuple[int, ...], ...]

    @property
    def name(self) -> str:
        e = ", ".join(f"{NODE_NAMES[u]}→{NODE_NAMES[v]}" for u, v in self.edges) or "no edge"
        lat = " ".join("L" + "".join(NODE_NAMES[c] for c in s) for s in self.latents)
        return e + (f" | {lat}" if lat else "")

    def pair_state(self, pair: tuple[int, int]) -> tuple[str, bool]:
        """(direction, latent) of ``pair = (i, j)``, i < j: direction in {"->", "<-", "none"};
        latent is True when a latent confounder has both as children."""
        i, j = pair
        d = "->" if (i, j) in self.edges else ("<-" if (j, i) in self.edges else "none")
        return d, any(i in s and j in s for s in self.latents)

    def to_model(self, rng: np.random.Generator | int | None = None,
                 alpha_range=(0.2, 0.5), mu_range=(0.5, 1.5), latent_mu_range=(1.0, 2.0)) -> PoissonBranchingSCM:
        """An LC-PB-SCM with this structure and random parameters (observed A, B, C first)."""
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        p = 3 + len(self.latents)
        alpha = np.zeros((p, p))
        for u, v in self.edges:
            alpha[u, v] = gen.uniform(*alpha_range)
        for k, s in enumerate(self.latents):
            for c in s:
                alpha[3 + k, c] = gen.uniform(*alpha_range)
        mu = np.concatenate([gen.uniform(*mu_range, size=3), gen.uniform(*latent_mu_range, size=len(self.latents))])
        names = NODE_NAMES + tuple("L" + "".join(NODE_NAMES[c] for c in s) for s in self.latents)
        return PoissonBranchingSCM(names, alpha, mu, np.array([True] * 3 + [False] * len(self.latents)))


def local_structures() -> list[LocalStructure]:
    """The 25 DAGs x 16 latent configurations, DAG-major: index ``16*d + m`` is DAG ``d`` with the
    latent confounders of bit mask ``m`` over ``LATENT_SETS`` (``m = 0``: latent-free)."""
    dags = []
    for states in itertools.product(range(3), repeat=3):
        edges = []
        for (a, b), s in zip(PAIRS, states):
            if s == 1:
                edges.append((a, b))
            elif s == 2:
                edges.append((b, a))
        if not _has_cycle(edges):
            dags.append(tuple(edges))
    out = []
    for edges in dags:
        for mask in range(16):
            out.append(LocalStructure(edges, tuple(LATENT_SETS[k] for k in range(4) if mask >> k & 1)))
    return out


def _has_cycle(edges) -> bool:
    e = set(edges)
    return ((0, 1) in e and (1, 2) in e and (2, 0) in e) or ((1, 0) in e and (0, 2) in e and (2, 1) in e)


def signature_features(max_degree: int = 4) -> list[tuple[int | None, tuple[int, int, int]]]:
    """The dominance queries ``(zeroed variable or None, pattern)`` with ``2 <= |pattern| <=
    max_degree`` over the variables that are not zeroed."""
    feats = []
    for z in (None, 0, 1, 2):
        for p in itertools.product(range(max_degree + 1), repeat=3):
            if z is not None and p[z] != 0:
                continue
            if 2 <= sum(p) <= max_degree:
                feats.append((z, p))
    return feats


def signature_of_support(supp, features) -> np.ndarray:
    """Boolean vector: for each feature ``(z, p)``, does a monomial with :math:`\\beta_z=0` dominate p?"""
    mons = np.array(sorted(supp), dtype=int).reshape(-1, 3)
    out = np.zeros(len(features), dtype=bool)
    for k, (z, p) in enumerate(features):
        ok = (mons >= np.array(p)).all(1)
        if z is not None:
            ok &= mons[:, z] == 0
        out[k] = ok.any()
    return out


@dataclasses.dataclass
class IdentifiabilityTable:
    """The 400 local structures and their monomial-equivalence classes.

    Attributes
    ----------
    structures : list of LocalStructure (400)
    supports : list of frozenset of exponent triples (400)
    class_of : ndarray (400,) class index of each structure
    classes : list of lists of structure indices
    features : list of (zeroed variable, pattern), the testable dominance queries
    signatures : ndarray (400, F) bool
    method : how the supports were computed ("sympy" or "combinatorial")
    """

    structures: list[LocalStructure]
    supports: list[frozenset]
    class_of: np.ndarray
    classes: list[list[int]]
    features: list
    signatures: np.ndarray
    method: str

    @property
    def latent_free(self) -> np.ndarray:
        return np.array([len(s.latents) == 0 for s in self.structures])

    def counts(self) -> dict[str, int]:
        """Numbers of classes and singletons, with and without latents, and of signature classes."""
        free = np.flatnonzero(self.latent_free)
        free_classes = collections.Counter(self.supports[i] for i in free)
        sig_classes = collections.Counter(map(bytes, np.packbits(self.signatures, axis=1)))
        return {
            "structures": len(self.structures),
            "classes": len(self.classes),
            "singletons": sum(len(c) == 1 for c in self.classes),
            "latent_free_structures": len(free),
            "latent_free_classes": len(free_classes),
            "latent_free_singletons": sum(v == 1 for v in free_classes.values()),
            "signature_classes": len(sig_classes),
            "features": len(self.features),
        }

    def class_size(self) -> np.ndarray:
        sizes = np.array([len(c) for c in self.classes])
        return sizes[self.class_of]

    def determined(self, k: int) -> dict[tuple[int, int], tuple[str | None, bool | None]]:
        """What the class of structure ``k`` fixes on each pair: (direction or None, latent or None)."""
        members = [self.structures[i] for i in self.classes[self.class_of[k]]]
        out = {}
        for pair in PAIRS:
            states = {m.pair_state(pair) for m in members}
            dirs = {s[0] for s in states}
            lats = {s[1] for s in states}
            out[pair] = (dirs.pop() if len(dirs) == 1 else None, lats.pop() if len(lats) == 1 else None)
        return out

    def latent_free_classes(self) -> list[list[int]]:
        """The classes of the 25 latent-free DAGs (structure indices)."""
        free = np.flatnonzero(self.latent_free)
        groups: dict = collections.defaultdict(list)
        for i in free:
            groups[self.supports[i]].append(int(i))
        return sorted(groups.values(), key=lambda g: (len(g), g))


def _supports(method: str, seed: int) -> list[frozenset]:
    from .pgf import support, support_sympy

    structs = local_structures()
    gen = np.random.default_rng(seed)
    out = []
    for s in structs:
        model = s.to_model(gen)
        out.append(support_sympy(model, parameters="random", rng=gen) if method == "sympy" else support(model))
    return out


def build_identifiability_table(method: str = "sympy", max_degree: int = 4, seed: int = 0) -> IdentifiabilityTable:
    """Enumerate the 400 local structures, compute each support and group them.

    Parameters
    ----------
    method : {"sympy", "combinatorial"}
        Exact sympy expansion of :math:`\\log G` with random rational parameters, or the support
        propagated as sets of exponents (no coefficients).
    max_degree : int
        Largest total degree of the testable dominance queries (the signature).
    """
    if method not in ("sympy", "combinatorial"):
        raise ValueError(f"method={method!r} is not allowed; allowed values: sympy, combinatorial")
    if isinstance(max_degree, bool) or not isinstance(max_degree, int) or not 2 <= max_degree <= 6:
        raise ValueError(f"max_degree={max_degree!r} must be an integer in [2, 6]")
    structs = local_structures()
    supports = _supports(method, seed)
    index: dict = {}
    class_of = np.empty(len(structs), dtype=int)
    classes: list[list[int]] = []
    for k, s in enumerate(supports):
        if s not in index:
            index[s] = len(classes)
            classes.append([])
        class_of[k] = index[s]
        classes[index[s]].append(k)
    feats = signature_features(max_degree)
    sigs = np.stack([signature_of_support(s, feats) for s in supports])
    return IdentifiabilityTable(structs, supports, class_of, classes, feats, sigs, method)


def identifiability_table(method: str = "sympy", max_degree: int = 4) -> IdentifiabilityTable:
    """:func:`build_identifiability_table` through the book's content-addressed cache."""
    from icmlbook.runtime import cached

    return cached("pgf_trie_causal-identifiability", build_identifiability_table,
                  config={"method": method, "max_degree": max_degree},
                  kwargs={"method": method, "max_degree": max_degree})
