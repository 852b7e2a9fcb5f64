r"""LOES, the greedy layer selector, its label-free and regression variants, and the selection
baselines (last, last-k, random-k, best single layer, top-k by individual score).

Paper: Batra et al., "Uncovering the Latent Potential of Deep Intermediate Representations",
ICML 2026, arXiv 2605.23033; algorithm reconstructed from the official code (dossier section 3.3).

Supervised LOES on layers :math:`X_1..X_L` (each (n, D)), targets :math:`Y`, budget k:

1. :math:`s_\ell=\mathrm{MSE}(X_\ell\to Y)+\alpha(1-\mathcal I(X_\ell))`, pick the minimiser, fit it,
   residual :math:`R=Y-\hat Y`.
2. For every unselected layer: :math:`\tilde X_\ell` = residualisation against the selected
   concatenation :math:`X_S`; :math:`e_\ell=\mathrm{MSE}(\tilde X_\ell\to R)`;
   :math:`s_\ell=e_\ell+\alpha(1-\mathcal I(X_\ell))+\gamma\,\mathrm{Red}(X_\ell,S)-\eta\,\mathrm{Tri}(\tilde X_\ell)`;
   add the minimiser, :math:`\hat Y\mathrel{+}=\tilde X_{\ell^*}W+b`, :math:`R=Y-\hat Y`.

The running prediction follows the official *package* (not the image script, which refits the raw
layer: see the chapter's notes). Layers are 0-based indices here (layer 0 = first block).
"""

from __future__ import annotations

import dataclasses
from typing import Literal, Sequence

import numpy as np
import torch

from .scores import (Residualiser, as_f64, check_labels, isotropy, one_hot, probe_and_isotropy, redundancy, ridge_mse,
                     triangle_score)

__all__ = ["LoesSelection", "loes_select", "loes_label_free", "topk_independent", "last_k", "random_k",
           "best_single", "check_stack", "mean_pairwise_redundancy"]


@dataclasses.dataclass
class LoesSelection:
    """Result of a selector.

    layers : ordered selected layer indices (0-based).
    step_scores : the winning score at each step.
    scores : (k, L) the score of every candidate at every step (nan where not a candidate).
    components : dict name -> (k, L) of the score's parts ("mse", "iso_penalty", "redundancy", "triangle").
    isotropy : (L,) per-layer isotropy :math:`\\mathcal I`.
    seconds : wall time of the selection.
    """

    layers: list
    step_scores: list
    scores: np.ndarray
    components: dict
    isotropy: np.ndarray
    seconds: float = 0.0


def check_stack(layers, y=None, k: int | None = None) -> list[torch.Tensor]:
    """Validate a layer stack: a list (or (L, n, D) array) of (n, D_l) embeddings with equal n, labels of
    length n, 1 <= k <= L. Returns float64 tensors."""
    if isinstance(layers, (np.ndarray, torch.Tensor)):
        if layers.ndim != 3:
            raise ValueError(f"a layer stack array must have shape (L, n, D); got {tuple(layers.shape)}")
        layers = list(layers)
    layers = [as_f64(x) for x in layers]
    if not layers:
        raise ValueError("the layer stack is empty")
    n = layers[0].shape[0]
    for i, x in enumerate(layers):
        if x.ndim != 2 or x.shape[0] != n:
            raise ValueError(f"layer {i} has shape {tuple(x.shape)}; every layer must be (n={n}, D)")
    if y is not None:
        check_labels(n, y)
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k={k!r} is not allowed; k must be an integer >= 1")
        if k > len(layers):
            raise ValueError(f"k={k} is larger than the number of layers L={len(layers)}; allowed: 1 <= k <= {len(layers)}")
    return layers


def _targets(y, task: str) -> tuple[torch.Tensor, np.ndarray | None]:
    if task == "classification":
        y = np.asarray(y)
        if not np.issubdtype(y.dtype, np.integer):
            raise ValueError("task='classification' needs integer class labels")
        return one_hot(y), y
    if task == "regression":
        Y = as_f64(y)
        return (Y[:, None] if Y.ndim == 1 else Y), None
    raise ValueError(f"task={task!r} is not allowed; allowed values: classification, regression")


def _check_weights(**weights) -> None:
    """The LOES score's weights are finite and >= 0 (a negative weight rewards what the term penalises)."""
    for name, value in weights.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not np.isfinite(value) or value < 0:
            raise ValueError(f"{name}={value!r} is not allowed; {name} must be a finite number >= 0")


def loes_select(layers, y, k: int, task: Literal["classification", "regression"] = "classification",
                lam: float = 1e-3, alpha: float = 1.0, gamma: float = 0.5, eta: float = 0.1,
                n_triples: int = 200, seed: int = 0, orthogonalize: bool = True) -> LoesSelection:
    """Greedy LOES selection (supervised; ``task="regression"`` drops the triangle term).

    Parameters
    ----------
    layers : L arrays (n, D_l) or an (L, n, D) array, the calibration embeddings of every block.
    y : (n,) integer labels (classification) or (n,) / (n, q) real targets (regression).
    k : number of layers to select, 1 <= k <= L.
    lam, alpha, gamma, eta : ridge strength and the weights of isotropy, redundancy and triangle terms.
    n_triples, seed : the stochastic triangle score (seeded, so the selection is deterministic).
    orthogonalize : False = ablation: fit the residual with the raw candidate layer instead of its
        residualised part (and compute the triangle on the raw layer).
    """
    import time

    t0 = time.perf_counter()
    _check_weights(lam=lam, alpha=alpha, gamma=gamma, eta=eta)
    X = check_stack(layers, y, k)
    Y, labels = _targets(y, task)
    if task == "classification" and eta != 0 and np.unique(labels).size < 3:
        raise ValueError(f"the triangle score (eta={eta}) needs at least 3 classes; got {np.unique(labels).size}; "
                         "use eta=0 for a two-class task")
    L = len(X)
    iso = np.empty(L)
    shape = (k, L)
    comp = {name: np.full(shape, np.nan) for name in ("mse", "iso_penalty", "redundancy", "triangle")}
    scores = np.full(shape, np.nan)
    first = np.empty(L)
    preds = []
    for l in range(L):
        iso[l], mse, pred = probe_and_isotropy(X[l], Y, lam)
        preds.append(pred)
        comp["mse"][0, l] = mse
        comp["iso_penalty"][0, l] = alpha * (1 - iso[l])
        first[l] = mse + alpha * (1 - iso[l])
    scores[0] = first
    best = int(np.argmin(first))
    chosen, step_scores = [best], [float(first[best])]
    Yhat = preds[best]
    R = Y - Yhat
    XS = X[best]
    red_max = np.zeros(L)  # Red(X_l, S) kept up to date: one new pair per candidate per step, not |S|
    for step in range(1, k):
        cand = [l for l in range(L) if l not in chosen]
        resid = Residualiser(XS) if orthogonalize else None
        tilde, fits = {}, {}
        for l in cand:
            Xt = tilde[l] = resid(X[l]) if orthogonalize else X[l]
            e, fits[l], _, _ = ridge_mse(Xt, R, lam)
            red = red_max[l] = max(red_max[l], redundancy(X[l], [X[chosen[-1]]]))
            tri = triangle_score(Xt, labels, n_triples, seed + 7919 * step + l) if (
                task == "classification" and eta != 0) else 0.0
            s = e + alpha * (1 - iso[l]) + gamma * red - eta * tri
            comp["mse"][step, l], comp["iso_penalty"][step, l] = e, alpha * (1 - iso[l])
            comp["redundancy"][step, l], comp["triangle"][step, l] = red, tri
            scores[step, l] = s
        row = np.where(np.isnan(scores[step]), np.inf, scores[step])
        pick = int(np.argmin(row))
        Yhat = Yhat + fits[pick]
        R = Y - Yhat
        XS = torch.cat([XS, X[pick]], dim=1)
        chosen.append(pick)
        step_scores.append(float(row[pick]))
    return LoesSelection(chosen, step_scores, scores, comp, iso, time.perf_counter() - t0)


def loes_label_free(layers, k: int, alpha: float = 1.0, gamma: float = 0.5) -> LoesSelection:
    """Label-free LOES: first layer by :math:`\\alpha(1-\\mathcal I)`, then greedily by
    :math:`\\alpha(1-\\mathcal I)+\\gamma\\,\\mathrm{Red}(X_\\ell,S)`."""
    import time

    t0 = time.perf_counter()
    _check_weights(alpha=alpha, gamma=gamma)
    X = check_stack(layers, None, k)
    L = len(X)
    iso = np.array([isotropy(x) for x in X])
    comp = {name: np.full((k, L), np.nan) for name in ("mse", "iso_penalty", "redundancy", "triangle")}
    scores = np.full((k, L), np.nan)
    chosen, step_scores = [], []
    red_max = np.zeros(L)
    for step in range(k):
        for l in range(L):
            if l in chosen:
                continue
            red = red_max[l] = max(red_max[l], redundancy(X[l], [X[chosen[-1]]])) if chosen else 0.0
            comp["iso_penalty"][step, l], comp["redundancy"][step, l] = alpha * (1 - iso[l]), red
            scores[step, l] = alpha * (1 - iso[l]) + gamma * red
        row = np.where(np.isnan(scores[step]), np.inf, scores[step])
        pick = int(np.argmin(row))
        chosen.append(pick)
        step_scores.append(float(row[pick]))
    return LoesSelection(chosen, step_scores, scores, comp, iso, time.perf_counter() - t0)


def topk_independent(layers, y, k: int, task: str = "classification", lam: float = 1e-3,
                     alpha: float = 1.0) -> list:
    """Ablation baseline: rank layers by the first-step LOES score (no residualisation, no
    redundancy) and take the k best."""
    X = check_stack(layers, y, k)
    Y, _ = _targets(y, task)
    s = np.array([mse + alpha * (1 - iso) for iso, mse, _ in (probe_and_isotropy(x, Y, lam) for x in X)])
    return [int(i) for i in np.argsort(s, kind="stable")[:k]]


def last_k(n_layers: int, k: int) -> list:
    """The last k layers (0-based), deepest first."""
    if k > n_layers:
        raise ValueError(f"k={k} is larger than the number of layers L={n_layers}")
    return list(range(n_layers - 1, n_layers - 1 - k, -1))


def random_k(n_layers: int, k: int, seed: int) -> list:
    """k distinct layers drawn uniformly (seeded)."""
    if k > n_layers:
        raise ValueError(f"k={k} is larger than the number of layers L={n_layers}")
    g = np.random.default_rng(np.random.SeedSequence([seed, 4242]))
    return [int(i) for i in g.choice(n_layers, size=k, replace=False)]


def best_single(val_accuracy: Sequence[float]) -> list:
    """The single layer with the highest validation probe accuracy."""
    return [int(np.argmax(np.asarray(val_accuracy)))]


def mean_pairwise_redundancy(layers, chosen: Sequence[int]) -> float:
    """Mean of the (uncentred) normalised cross-Gram norm over pairs of chosen layers."""
    X = [as_f64(layers[i]) for i in chosen]
    vals = [redundancy(X[i], [X[j]]) for i in range(len(X)) for j in range(i + 1, len(X))]
    return float(np.mean(vals)) if vals else 0.0
