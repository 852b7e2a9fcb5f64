r"""Small statistics shared by the chapters' claim rules.

:func:`mean_t_bound` is the one-sided Student-t confidence bound of a mean, the rule "A is no worse than B
by more than a margin" uses on paired differences :math:`d_s = A_s - B_s` (one per independent seed):

.. math::  \bar d + t_{\mathrm{level},\,n-1}\,\frac{s_d}{\sqrt n}

(upper; the lower bound subtracts), with :math:`s_d` the sample standard deviation (``ddof=1``). It is the
bound of ``scipy.stats.ttest_rel(a, b, alternative="less").confidence_interval(level)`` (tested against it).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats

__all__ = ["mean_t_bound", "SIDES"]

SIDES = ("upper", "lower")


def mean_t_bound(values: Sequence[float], level: float = 0.95, side: str = "upper") -> tuple[float, float]:
    """The mean of ``values`` (paired differences, one per independent replicate) and its one-sided
    ``level`` t-bound (``side`` "upper" or "lower"). With fewer than two values the bound is the
    uninformative one (+inf for "upper", -inf for "lower"), so that a rule "bound <= margin" fails."""
    if side not in SIDES:
        raise ValueError(f"side={side!r} is not allowed; allowed values: {', '.join(SIDES)}")
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level={level!r} is not allowed; it must lie strictly between 0 and 1")
    d = np.asarray(values, dtype=float).ravel()
    if d.size == 0:
        raise ValueError("values holds no numbers; the bound needs at least one replicate (two to be finite)")
    m = d.mean()
    if d.size < 2:
        return float(m), float("inf") if side == "upper" else float("-inf")
    q = stats.t.ppf(level, d.size - 1) * (d.std(ddof=1) / np.sqrt(d.size))
    return float(m), float(m + q if side == "upper" else m - q)
