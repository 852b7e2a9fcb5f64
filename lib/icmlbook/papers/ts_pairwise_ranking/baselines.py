r"""Baselines of the ``ts_pairwise_ranking`` chapter (dossier section 7), all run on the same simulated data.

* :func:`bradley_terry_scores` — Bradley–Terry–Luce item strengths from the comparisons (``choix``,
  iterative Luce spectral ranking); it scores only items that were compared.
* :func:`rank_centrality_scores` — Rank Centrality (Negahban, Oh & Shah), the stationary distribution of
  the comparison Markov chain (``choix``).
* :class:`RankNet` — a pairwise learner on the raw series, :math:`P(i\succ j)=\sigma(f(X_i)-f(X_j))`
  with a small MLP :math:`f`; it generalises to unseen items.
* :func:`noisy_label_classifier_scores` — the "individual annotation" route the paper argues against:
  each item gets a noisy absolute label (latent score above the median, flipped with probability
  ``flip``), a logistic regression is trained on the series, and items are ranked by its probability.

The Euclidean ideal point is :class:`~icmlbook.papers.ts_pairwise_ranking.model.IdealPointModel` with
``distance="euclidean"``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ...training import Trainer, TrainerConfig, full_batch
from .data import Comparisons

__all__ = ["bradley_terry_scores", "rank_centrality_scores", "RankNet", "noisy_label_classifier_scores"]


def bradley_terry_scores(comp: Comparisons, n_items: int, alpha: float = 0.01) -> np.ndarray:
    """Bradley–Terry log-strengths ``(n_items,)`` by ``choix.ilsr_pairwise`` (regularised by ``alpha``)."""
    import choix
    comp.validate(n_items)
    return np.asarray(choix.ilsr_pairwise(n_items, comp.winners_losers(), alpha=alpha), float)


def rank_centrality_scores(comp: Comparisons, n_items: int, alpha: float = 0.01) -> np.ndarray:
    """Rank Centrality scores ``(n_items,)`` by ``choix.rank_centrality``."""
    import choix
    comp.validate(n_items)
    return np.asarray(choix.rank_centrality(n_items, comp.winners_losers(), alpha=alpha), float)


class RankNet:
    """RankNet-style pairwise learner on raw series ``(N, T)``: an MLP ``T -> hidden -> 1`` trained with
    the pairwise logistic loss on the comparisons (Adam, weight decay ``wd``, full batch, on the shared
    trainer)."""

    def __init__(self, hidden: int = 32, steps: int = 300, lr: float = 1e-2, wd: float = 1e-3):
        self.hidden, self.steps, self.lr, self.wd = hidden, steps, lr, wd

    def fit(self, X: np.ndarray, comp: Comparisons, seed: int = 0) -> "RankNet":
        X = torch.as_tensor(np.asarray(X, np.float32))
        comp.validate(X.shape[0])
        torch.manual_seed(seed)
        self.net_ = torch.nn.Sequential(torch.nn.Linear(X.shape[1], self.hidden), torch.nn.Tanh(),
                                        torch.nn.Linear(self.hidden, 1))
        opt = torch.optim.Adam(self.net_.parameters(), lr=self.lr, weight_decay=self.wd)
        ii, jj = torch.as_tensor(comp.i), torch.as_tensor(comp.j)
        yy = torch.as_tensor(comp.y, dtype=torch.float32)

        def loss_fn(net, batch):
            xb, ib, jb, yb = batch
            f = net(xb)[:, 0]
            return F.binary_cross_entropy_with_logits(f[ib] - f[jb], yb)

        Trainer(self.net_, opt, loss_fn, full_batch(X, ii, jj, yy),       # full batch; on the CPU, as before
                TrainerConfig(steps=self.steps, schedule=None, device="cpu", show_progress=False)).run()
        return self

    def score(self, X: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.net_(torch.as_tensor(np.asarray(X, np.float32)))[:, 0].numpy().astype(float)


def noisy_label_classifier_scores(X_train: np.ndarray, score_train: np.ndarray, X_eval: np.ndarray,
                                  flip: float, rng: np.random.Generator, C: float = 1.0) -> np.ndarray:
    """Rank by a classifier trained on noisy binary labels ``1[score > median]`` flipped with prob. ``flip``."""
    from sklearn.linear_model import LogisticRegression
    labels = (np.asarray(score_train) > np.median(score_train)).astype(int)
    labels = np.where(rng.uniform(size=labels.size) < flip, 1 - labels, labels)
    if labels.min() == labels.max():
        return np.zeros(len(X_eval))
    clf = LogisticRegression(C=C, max_iter=2000).fit(X_train, labels)
    return clf.predict_proba(X_eval)[:, 1]
