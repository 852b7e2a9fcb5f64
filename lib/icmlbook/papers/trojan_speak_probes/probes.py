r"""Linear probes on activations, our reconstruction of the probe method (dossier section 3.2; the paper's own
probe setup was not reached).

- :func:`fit_probe`: :math:`q(\bar a)=\sigma(w^\top \bar a + b)`, L2-regularised logistic regression on
  standardised features (scikit-learn), for one site's mean-pooled activations (N, d) or per-token activations.
- :func:`streaming_scores`: the k-of-n "coherent evidence" rule (after arXiv 2604.14865): a response is flagged
  when at least ``k`` of its tokens have a per-token probe probability above :math:`\tau`. Flagging
  :math:`\#\{t: p_t>\tau\}\ge k` is the same as :math:`p_{(k)}>\tau` with :math:`p_{(k)}` the k-th largest
  per-token score, so the rule's score is :math:`p_{(k)}` (a response with fewer than k tokens scores
  :math:`-\infty`) and :math:`\tau` is calibrated like any threshold. ``k = 1`` is max pooling.
- Controls (claim 7): :func:`shuffled_labels` (a permutation of the training labels) and
  :func:`control_task_labels` (Hewitt & Liang 2019: each topic word type gets a random label; a response takes
  its first topic word's label), which a probe can only learn by reading word identity, not the topic.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from .metrics import check_two_classes
from .world import TOPICS, LEXICON

__all__ = ["fit_probe", "probe_scores", "streaming_scores", "kth_largest", "shuffled_labels", "control_task_labels",
           "Probe"]


class Probe:
    """A fitted linear probe: ``decision(X)`` is :math:`w^\\top x+b` on standardised features."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, w: np.ndarray, b: float):
        self.mean, self.scale, self.w, self.b = mean, scale, w, float(b)

    def decision(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return ((X - self.mean) / self.scale) @ self.w + self.b

    def proba(self, X: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.decision(X)))


def fit_probe(X, y, C: float = 1.0, max_iter: int = 500) -> Probe:
    """Fit an L2 logistic probe (inverse regularisation ``C``) on features ``X`` (N, d) and labels ``y`` (N,)."""
    from sklearn.linear_model import LogisticRegression

    X = np.asarray(X, dtype=np.float64)
    y = check_two_classes(np.asarray(y).astype(int), "probe labels")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be (N, d) with N = len(y) = {y.shape[0]}; got {X.shape}")
    mean = X.mean(0)
    scale = X.std(0)
    scale = np.where(scale > 1e-8, scale, 1.0)
    lr = LogisticRegression(C=C, max_iter=max_iter).fit((X - mean) / scale, y)
    return Probe(mean, scale, lr.coef_[0].astype(np.float64), float(lr.intercept_[0]))


def probe_scores(probe: Probe, X) -> np.ndarray:
    return probe.decision(X)


def kth_largest(values: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """(N,) the k-th largest of ``values`` (N, T) over each row's ``mask`` (N, T); -inf where fewer than k."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k={k!r} is not allowed; it must be an integer >= 1")
    v = np.where(mask, values, -np.inf)
    if k > v.shape[1]:
        return np.full(v.shape[0], -np.inf)
    part = -np.partition(-v, k - 1, axis=1)[:, k - 1]
    return part


def streaming_scores(token_scores: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """The k-of-n rule's score per response: the k-th largest per-token score (module docstring)."""
    return kth_largest(np.asarray(token_scores, float), np.asarray(mask, bool), k)


def shuffled_labels(y, seed: int) -> np.ndarray:
    """A seeded permutation of ``y`` (the shuffled-label control)."""
    return np.random.default_rng(np.random.SeedSequence([seed, 404])).permutation(np.asarray(y))


_WORD = re.compile(r"[a-z]+")


def control_task_labels(plain_texts: Sequence[str], seed: int) -> np.ndarray:
    """Hewitt-Liang control labels: each topic word type gets a seeded random bit (half of the types are 1); a
    text's label is the bit of its first topic word (-1 when it has none)."""
    words = sorted({w for t in TOPICS for w in LEXICON[t]})
    bits = np.zeros(len(words), dtype=int)
    bits[np.random.default_rng(np.random.SeedSequence([seed, 505])).permutation(len(words))[: len(words) // 2]] = 1
    table = dict(zip(words, bits))
    out = []
    for text in plain_texts:
        first = next((w for w in _WORD.findall(text) if w in table), None)
        out.append(-1 if first is None else int(table[first]))
    return np.array(out, dtype=int)
