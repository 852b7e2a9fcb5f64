"""Scores of a learned mixed graph against the true LC-PB-SCM (observed pairs only).

* **directed-edge precision / recall / F1**: predicted directed edges (a pair whose direction is
  decided) against the true edges between observed variables;
* **latent-edge F1**: pairs marked as latent-confounded against the pairs that share a latent
  parent (NaN when neither has any);
* **SHD** (our definition for mixed graphs): one per pair whose adjacency differs, plus one per
  pair adjacent in both whose direct-edge direction or latent mark differs (an undetermined mark
  counts as different);
* **spurious directed edges on confounded pairs**: the fraction of latent-confounded pairs without
  a direct edge on which a directed edge is reported (what latent confounding does to a method that
  assumes causal sufficiency).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .model import PairState, PoissonBranchingSCM, true_pair_states

__all__ = ["GraphScores", "f1_score_sets", "score_graph"]


def f1_score_sets(pred: set, true: set) -> tuple[float, float, float]:
    """(precision, recall, F1) of two sets; precision is 1 for an empty prediction, F1 is NaN when
    both sets are empty."""
    tp = len(pred & true)
    precision = tp / len(pred) if pred else 1.0
    recall = tp / len(true) if true else 1.0
    if not pred and not true:
        return precision, recall, float("nan")
    f1 = 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


@dataclasses.dataclass(frozen=True)
class GraphScores:
    directed_precision: float
    directed_recall: float
    directed_f1: float
    latent_f1: float
    skeleton_f1: float
    shd: int
    spurious_on_confounded: float
    n_directed_true: int
    n_latent_true: int

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _edges(states: dict[tuple[int, int], PairState]) -> set:
    out = set()
    for (i, j), s in states.items():
        if s.direction == "->":
            out.add((i, j))
        elif s.direction == "<-":
            out.add((j, i))
    return out


def score_graph(model: PoissonBranchingSCM, states: dict[tuple[int, int], PairState]) -> GraphScores:
    """Score predicted pair states (data-column indices, i < j) against ``model``."""
    truth = true_pair_states(model)
    missing = set(truth) - set(states)
    if missing:
        raise ValueError(f"states lacks {len(missing)} pair(s), e.g. {min(missing)}")
    d_true, d_pred = _edges(truth), _edges(states)
    dp, dr, df1 = f1_score_sets(d_pred, d_true)
    l_true = {k for k, s in truth.items() if s.latent}
    l_pred = {k for k, s in states.items() if s.latent is True}
    _, _, lf1 = f1_score_sets(l_pred, l_true)
    a_true = {k for k, s in truth.items() if s.adjacent}
    a_pred = {k for k, s in states.items() if s.adjacent}
    _, _, sf1 = f1_score_sets(a_pred, a_true)
    shd = 0
    for k, t in truth.items():
        s = states[k]
        if t.adjacent != s.adjacent or t.adjacent and (s.direction != t.direction or s.latent != t.latent):
            shd += 1
    conf = [k for k, t in truth.items() if t.latent and t.direction == "none"]
    spurious = (float(np.mean([states[k].direction in ("->", "<-") for k in conf])) if conf else float("nan"))
    return GraphScores(dp, dr, df1, lf1, sf1, int(shd), spurious, len(d_true), len(l_true))
