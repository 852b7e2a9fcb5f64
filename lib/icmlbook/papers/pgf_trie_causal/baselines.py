"""Baselines run on the same data as the LC-PB-SCM learner.

* **PC** and **FCI** from causal-learn (Zheng et al., JMLR 2024) with the Fisher-z test. In a
  PB-SCM :math:`E[X_j\\mid \\mathrm{pa}_j] = \\mu_j + \\sum_i\\alpha_{ij}X_i` is linear and the thinning
  noises are uncorrelated, so the covariance matrix is that of a linear SEM and vanishing partial
  correlations follow d-separation: Fisher-z is the natural (if Gaussian-calibrated) choice. PC
  assumes causal sufficiency (its CPDAG has no latent marks); FCI's PAG marks latent confounding
  with :math:`\\leftrightarrow`.
* **PB-SCM, cumulant (causally sufficient)**: our reconstruction of the cumulant/path-analysis idea
  of Qiao et al. (AAAI 2024, arXiv 2403.16523): the skeleton from the same zero-conditioned
  covariance search as ours, every adjacency read as a direct edge, and a pair oriented
  :math:`i\\to j` when the factorial cumulant :math:`\\kappa_{[1,2]}(i,j)` (a source with one path to
  :math:`i` and two to :math:`j`) is detected and :math:`\\kappa_{[2,1]}(i,j)` is not. Under causal
  sufficiency this is the "a root with two directed paths to its child" rule; it has no notion of
  latent confounding. (The original code is not licensed for reuse and was not copied.)
* **PGF, causally sufficient**: our learner restricted to the 25 latent-free local structures
  (``LearnerConfig(latent=False)``), in the spirit of Xiang et al. (NeurIPS 2024).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import warnings

import numpy as np

from .learn import LearnedGraph, learn_skeleton
from .model import PairState, check_counts
from .support_tests import ZeroConditionedCounts

__all__ = ["causal_learn_available", "fci_baseline", "pbscm_cumulant_baseline", "pc_baseline"]


def causal_learn_available() -> bool:
    try:
        import causallearn  # noqa: F401
    except ImportError:
        return False
    return True


def _quiet():
    """causal-learn prints progress and warnings of its own; keep the library silent."""
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


def _marks_to_states(graph: np.ndarray) -> dict[tuple[int, int], PairState]:
    """causal-learn endpoint matrix (graph[a, b] = mark at a on the edge a-b: -1 tail, 1 arrow,
    2 circle, 0 none) to pair states."""
    p = graph.shape[0]
    out = {}
    for i, j in itertools.combinations(range(p), 2):
        mi, mj = int(graph[i, j]), int(graph[j, i])
        if mi == 0 and mj == 0:
            out[(i, j)] = PairState("none", False)
        elif mi == -1 and mj == 1:
            out[(i, j)] = PairState("->", False)
        elif mi == 1 and mj == -1:
            out[(i, j)] = PairState("<-", False)
        elif mi == 1 and mj == 1:
            out[(i, j)] = PairState("none", True)
        else:  # undirected, circles, or combined marks: adjacency with undetermined marks
            out[(i, j)] = PairState("?", None)
    return out


def pc_baseline(data, level: float = 0.01, indep_test: str = "fisherz", names=None) -> LearnedGraph:
    """PC (causal-learn, stable, Fisher-z by default) -> LearnedGraph. Undirected CPDAG edges are
    adjacencies with undetermined direction; PC never marks latent confounding."""

    x = check_counts(data).astype(float)
    with _quiet():  # causal-learn prints and warns (tqdm) on import and while it runs
        from causallearn.search.ConstraintBased.PC import pc

        cg = pc(x, alpha=level, indep_test=indep_test, stable=True, show_progress=False)
    states = _marks_to_states(np.asarray(cg.G.graph))
    states = {k: (PairState(s.direction, False) if s.adjacent else s) for k, s in states.items()}
    names = tuple(names) if names is not None else tuple(f"X{k}" for k in range(x.shape[1]))
    return LearnedGraph(names, states, method=f"PC ({indep_test})")


def fci_baseline(data, level: float = 0.01, indep_test: str = "fisherz", names=None) -> LearnedGraph:
    """FCI (causal-learn, Fisher-z by default) -> LearnedGraph. PAG marks: i -> j a directed edge,
    i <-> j latent confounding without an edge, circles undetermined."""

    x = check_counts(data).astype(float)
    with _quiet():
        from causallearn.search.ConstraintBased.FCI import fci

        g, _ = fci(x, independence_test_method=indep_test, alpha=level, show_progress=False, verbose=False)
    names = tuple(names) if names is not None else tuple(f"X{k}" for k in range(x.shape[1]))
    return LearnedGraph(names, _marks_to_states(np.asarray(g.graph)), method=f"FCI ({indep_test})")


def pbscm_cumulant_baseline(data, level: float = 0.01, max_cond: int = 3, min_rows: int = 100, names=None,
                            skeleton=None) -> LearnedGraph:
    """The causally sufficient PB-SCM cumulant baseline (module docstring)."""
    zc = data if isinstance(data, ZeroConditionedCounts) else ZeroConditionedCounts(check_counts(data), min_rows=min_rows)
    adj, sepsets, n_tests = skeleton if skeleton is not None else learn_skeleton(zc, level, max_cond)
    states = {}
    for i, j in itertools.combinations(range(zc.p), 2):
        if not adj[i, j]:
            states[(i, j)] = PairState("none", False)
            continue
        fwd = zc.test({i: 1, j: 2})  # one path to i, two to j: j is downstream
        bwd = zc.test({i: 2, j: 1})
        n_tests += 2
        f_sig = fwd.p_value < level
        b_sig = bwd.p_value < level
        direction = "->" if f_sig and not b_sig else ("<-" if b_sig and not f_sig else "?")
        states[(i, j)] = PairState(direction, False)
    names = tuple(names) if names is not None else tuple(f"X{k}" for k in range(zc.p))
    return LearnedGraph(names, states, sepsets, [], n_tests, method="PB-SCM cumulant (sufficient)")
