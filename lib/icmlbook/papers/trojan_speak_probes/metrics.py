r"""Detection metrics (dossier section 3.4).

For scores :math:`s` and labels :math:`y\in\{0,1\}` and a threshold :math:`\tau` (flag when :math:`s>\tau`):
:math:`\mathrm{TPR}(\tau)=P(s>\tau\mid y=1)`, :math:`\mathrm{FPR}(\tau)=P(s>\tau\mid y=0)`.

- :func:`threshold_at_fpr` sets :math:`\tau` on a set of negatives so that their FPR is at most the target: with
  :math:`n` negatives sorted in decreasing order and :math:`k=\lfloor \alpha n\rfloor`, :math:`\tau` is the
  :math:`(k+1)`-th largest score, so at most :math:`k` negatives lie strictly above it (ties only lower the FPR).
  Set on plain negatives it is the **deployment** threshold; set on encoded negatives it is the **oracle** one.
- :func:`auroc` is the Mann-Whitney statistic :math:`P(s^+>s^-)+\tfrac12P(s^+=s^-)` (equal to scikit-learn's
  ``roc_auc_score``; tested).
- :func:`tpr_at_fpr` is the TPR at the threshold :func:`threshold_at_fpr` gives on the same set's negatives.
- :func:`finite_mean` and :func:`finite_max` summarise over seeds while skipping undefined (NaN) values; the claims
  and the figures both use them.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

__all__ = ["check_fpr", "threshold_at_fpr", "auroc", "tpr_at_fpr", "rate_above", "check_two_classes", "finite_mean",
           "finite_max"]


def check_fpr(target: float) -> float:
    if isinstance(target, bool) or not isinstance(target, (int, float, np.floating)) or not 0.0 < float(target) < 1.0:
        raise ValueError(f"fpr_target={target!r} is not allowed; it must lie strictly between 0 and 1")
    return float(target)


def check_two_classes(y, what: str = "labels") -> np.ndarray:
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"{what} hold one class only ({classes.tolist()}); a detector needs positives and negatives")
    return y


def threshold_at_fpr(negative_scores, target: float) -> float:
    """The threshold that flags at most ``floor(target * n)`` of the ``n`` negatives (``score > threshold``)."""
    target = check_fpr(target)
    s = np.sort(np.asarray(negative_scores, dtype=float).ravel())[::-1]
    if s.size == 0:
        raise ValueError("negative_scores is empty; the threshold needs negatives")
    k = int(np.floor(target * s.size + 1e-12))
    return float(s[min(k, s.size - 1)])


def rate_above(scores, threshold: float) -> float:
    s = np.asarray(scores, dtype=float).ravel()
    return float(np.mean(s > threshold)) if s.size else float("nan")


def auroc(scores, y) -> float:
    """Area under the ROC curve (ties count one half)."""
    s = np.asarray(scores, dtype=float).ravel()
    y = check_two_classes(np.asarray(y).ravel().astype(bool), "y")
    r = rankdata(s)
    n1, n0 = int(y.sum()), int((~y).sum())
    return float((r[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def tpr_at_fpr(scores, y, target: float) -> float:
    """TPR at the threshold set on this set's own negatives (:func:`threshold_at_fpr`)."""
    s = np.asarray(scores, dtype=float).ravel()
    y = check_two_classes(np.asarray(y).ravel().astype(bool), "y")
    return rate_above(s[y], threshold_at_fpr(s[~y], target))


def finite_mean(values, axis=None):
    """The mean of the finite values (NaN, silently, when there is none); along ``axis`` an array of such means."""
    v = np.asarray(values, dtype=float)
    if axis is None:
        v = v[np.isfinite(v)]
        return float(v.mean()) if v.size else float("nan")
    ok = np.isfinite(v)
    n = ok.sum(axis)
    total = np.where(ok, v, 0.0).sum(axis)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def finite_max(values) -> float:
    """The largest finite value (NaN when there is none)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else float("nan")
