"""Scores of a learned mixed graph against the true LC-PB-SCM (observed pairs only).

* **directed-edge precision / recall / F1**: predicted directed edges (a pair whose direction is
  decided) against the true edges between observed variables. The precision of an *empty*
  prediction is undefined (NaN), never 1: a learner that abstains must not win on precision; the
  summaries exclude such graphs from the mean and count them;
* **latent-edge F1**: pairs marked as latent-confounded against the pairs that share a latent
  parent (NaN when neither has any);
* **SHD** (our definition for mixed graphs): one per pair whose adjacency differs, plus one per
  pair adjacent in both whose direct-edge direction or latent mark differs (an undetermined mark
  counts as different);
* **spurious directed edges on confounded pairs**: the fraction of latent-confounded pairs without
  a direct edge on which a directed edge is reported (what latent confounding does to a method that
  assumes causal sufficiency). A learner that outputs nothing scores 0 here, so it is only ever
  reported beside the directed-edge recall;
* **latent marks**: on the pairs that are adjacent in both graphs, how many latent marks the learner
  decides (True or False) and how many of those are right, split by the true mark (confounded or
  not), so a balanced accuracy can be formed over graphs.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .model import PairState, PoissonBranchingSCM, true_pair_states

__all__ = ["GraphScores", "f1_score_sets", "score_graph"]


def f1_score_sets(pred: set, true: set) -> tuple[float, float, float]:
    """(precision, recall, F1) of two sets. Precision is NaN (undefined) for an empty prediction,
    recall NaN for an empty truth, F1 NaN when both are empty and 0 when one of them is."""
    tp = len(pred & true)
    precision = tp / len(pred) if pred else float("nan")
    recall = tp / len(true) if true else float("nan")
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
    n_directed_pred: int = 0
    n_confounded_no_edge: int = 0     # pairs behind spurious_on_confounded
    latent_pos: int = 0               # adjacent in both, truly confounded
    latent_pos_decided: int = 0       # ... whose latent mark the learner decided
    latent_pos_correct: int = 0       # ... and marked True
    latent_neg: int = 0               # adjacent in both, not confounded
    latent_neg_decided: int = 0
    latent_neg_correct: int = 0       # ... and marked False

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
    both = [k for k in a_true & a_pred]
    pos = [k for k in both if truth[k].latent]
    neg = [k for k in both if not truth[k].latent]
    return GraphScores(dp, dr, df1, lf1, sf1, int(shd), spurious, len(d_true), len(l_true), len(d_pred), len(conf),
                       len(pos), sum(states[k].latent is not None for k in pos), sum(states[k].latent is True for k in pos),
                       len(neg), sum(states[k].latent is not None for k in neg), sum(states[k].latent is False for k in neg))
