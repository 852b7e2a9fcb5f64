"""The two batch samplers of HiVES (from the official code's description, written by us).

Stage 1 (:func:`stage1_batch`): an anchor text, up to ``k_pos`` positives from its (theory, path, direction)
group, and negatives from the *same theory* outside the group up to the batch size; anchors of singleton
groups are skipped. Stage 2 (:func:`stage2_batch`): the batch split into a hierarchical sub-batch (as stage 1),
an individual-anchor sub-batch (texts sharing an ``individual_id``, drawn with replacement when the group is
small) and a theory-anchor sub-batch (texts sharing a cross-theory ``anchor_id``, spanning at least two theories),
in the fractions ``(0.5, 0.25, 0.25)``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GroupIndex", "stage1_batch", "stage2_batch"]


class GroupIndex:
    """Index of a corpus' groups: (theory, path, direction), individual ids, cross-theory anchor ids."""

    def __init__(self, corpus):
        self.n = len(corpus)
        keys = [(t, *p, d) for t, p, d in zip(corpus.theory, corpus.paths.tolist(), corpus.direction.tolist())]
        self.group = {}
        for i, k in enumerate(keys):
            self.group.setdefault(k, []).append(i)
        self.key = keys
        self.theory = np.asarray(corpus.theory)
        self.by_theory = {t: np.flatnonzero(self.theory == t) for t in np.unique(self.theory)}
        self.anchors = np.array([i for i, k in enumerate(keys) if len(self.group[k]) > 1])
        self.indiv = {}
        for i, g in enumerate(corpus.individual_id.tolist()):
            self.indiv.setdefault(g, []).append(i)
        self.concept = {}
        for i, g in enumerate(corpus.anchor_id.tolist()):
            if g >= 0:
                self.concept.setdefault(g, []).append(i)
        self.concept = {g: m for g, m in self.concept.items() if len(set(self.theory[m])) >= 2}
        if self.anchors.size == 0:
            raise ValueError("no (theory, path, direction) group has two texts: the corpus is too small")


def stage1_batch(index: GroupIndex, size: int, rng: np.random.Generator, k_pos: int = 4) -> np.ndarray:
    """Row indices of one stage-1 batch of ``size`` (anchor + positives + same-theory negatives)."""
    a = int(rng.choice(index.anchors))
    group = [j for j in index.group[index.key[a]] if j != a]
    pos = rng.choice(group, size=min(k_pos, len(group)), replace=False)
    gset = set(index.group[index.key[a]])
    pool = np.array([j for j in index.by_theory[index.theory[a]] if j not in gset])
    n_neg = max(size - 1 - len(pos), 0)
    neg = rng.choice(pool, size=min(n_neg, len(pool)), replace=False) if pool.size else np.array([], dtype=int)
    return np.concatenate([[a], pos, neg]).astype(np.int64)


def _id_batch(groups: dict, size: int, rng, per_group: int = 4) -> np.ndarray:
    keys = list(groups)
    out: list[int] = []
    while len(out) < size and keys:
        members = groups[keys[int(rng.integers(len(keys)))]]
        take = min(per_group, size - len(out))
        out.extend(rng.choice(members, size=take, replace=len(members) < take).tolist())
    return np.array(out, dtype=np.int64)


def stage2_batch(index: GroupIndex, size: int, rng: np.random.Generator, fractions=(0.5, 0.25, 0.25),
                 k_pos: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hierarchical, individual-anchor, theory-anchor) row indices of one stage-2 batch of ``size``."""
    if len(fractions) != 3 or abs(sum(fractions) - 1) > 1e-9 or min(fractions) < 0:
        raise ValueError(f"fractions={fractions!r} is not allowed; three non-negative shares summing to 1")
    n_h = int(round(size * fractions[0]))
    n_i = int(round(size * fractions[1]))
    n_t = size - n_h - n_i
    return (stage1_batch(index, n_h, rng, k_pos), _id_batch(index.indiv, n_i, rng),
            _id_batch(index.concept, n_t, rng) if index.concept else np.array([], dtype=np.int64))
