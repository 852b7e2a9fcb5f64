r"""Scaling fits of the grokking chapter (the claims' decision rules live in :mod:`.claims`).

Paper: Xu, Vardi & Safran, "To Grok Grokking: Provable Grokking in Ridge Regression", ICML 2026,
arXiv 2601.19791.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats

from .nn import NNRun

__all__ = ["SlopeFit", "linear_fit", "loglog_slope", "nn_time_table"]


# --------------------------------------------------------------------------------------------
# fits
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SlopeFit:
    """A least-squares line ``y = slope * x + intercept`` with its coefficient of determination."""

    slope: float
    intercept: float
    r2: float
    stderr: float


def linear_fit(x, y) -> SlopeFit:
    """Ordinary least squares of ``y`` on ``x`` (``scipy.stats.linregress``); 1-d arrays, >= 3 points."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.size != y.size or x.size < 3:
        raise ValueError(f"a line fit needs >= 3 paired points (got {x.size} and {y.size})")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a line fit needs finite values")
    res = stats.linregress(x, y)
    return SlopeFit(slope=float(res.slope), intercept=float(res.intercept), r2=float(res.rvalue**2),
                    stderr=float(res.stderr))


def loglog_slope(x, y) -> SlopeFit:
    """Slope of ``log y`` against ``log x`` (natural logs; the slope does not depend on the base)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("a log-log fit needs positive values")
    return linear_fit(np.log(x), np.log(y))


def _geomean(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """Geometric mean along ``axis``; ``inf`` if any entry is ``inf``."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore"):
        return np.exp(np.mean(np.log(x), axis=axis))


def nn_time_table(run: NNRun, which: str = "t_grok") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seed-averaged (geometric mean) times of the runs with weight decay, as a ``(L, A)`` table.

    Returns
    -------
    lams : np.ndarray, shape ``(L,)``
    alphas : np.ndarray, shape ``(A,)``
    table : np.ndarray, shape ``(L, A)``; ``inf`` where some seed never reached the threshold.
    """
    times = getattr(run, which)
    decayed = run.lam > 0
    lams, alphas = np.unique(run.lam[decayed]), np.unique(run.alpha[decayed])
    table = np.full((lams.size, alphas.size), np.nan)
    for i, lam in enumerate(lams):
        for j, alpha in enumerate(alphas):
            sel = decayed & (run.lam == lam) & (run.alpha == alpha)
            if sel.any():
                table[i, j] = _geomean(times[sel])
    return lams, alphas, table
