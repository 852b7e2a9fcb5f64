r"""Small statistics shared by the chapters' claim rules.

:func:`mean_t_bound` is the one-sided Student-t confidence bound of a mean, the rule "A is no worse than B
by more than a margin" uses on paired differences :math:`d_s = A_s - B_s` (one per independent seed):

.. math::  \bar d + t_{\mathrm{level},\,n-1}\,\frac{s_d}{\sqrt n}

(upper; the lower bound subtracts), with :math:`s_d` the sample standard deviation (``ddof=1``). It is the
bound of ``scipy.stats.ttest_rel(a, b, alternative="less").confidence_interval(level)`` (tested against it).

:func:`mean_t_interval` is the two-sided t-interval of a mean over replicates, :func:`ols_slope_interval` the
t-interval of a least-squares slope (``n - 2`` degrees of freedom), and :func:`effect_bound` the decision the
claims repeat: "the lower (or upper) confidence bound of a mean paired difference is beyond a minimum effect
fixed in the config", returning the mean, the bound, ``n``, the pass flag, how many non-finite differences
were dropped, and a short measured string (:meth:`EffectBound.text`). Every number is tested against
``scipy.stats`` (``tests/test_runtime_stats.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
from scipy import stats

__all__ = ["mean_t_bound", "mean_t_interval", "MeanInterval", "ols_slope_interval", "SlopeInterval", "effect_bound",
           "EffectBound", "finite_values", "SIDES", "NONFINITE", "decide_interval", "IntervalDecision"]

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


# ---------------------------------------------------------------------------------------------- two-sided intervals
def _level(level) -> float:
    if isinstance(level, bool) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level={level!r} is not allowed; it must lie strictly between 0 and 1")
    return float(level)


def finite_values(values: Sequence[float]) -> tuple[np.ndarray, int]:
    """The finite entries of ``values`` (flattened, in order) and how many were dropped (NaN or ±inf).

    A rule that drops non-finite replicates says how many (:class:`EffectBound` carries the count), so the
    reader sees when an interval stands on fewer replicates than were run."""
    v = np.asarray(values, dtype=float).ravel()
    keep = np.isfinite(v)
    return v[keep], int(v.size - keep.sum())


@dataclasses.dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` independent replicate values with its two-sided Student-t interval ``[lo, hi]`` at
    ``level`` and the values' sample standard deviation ``sd`` (``ddof=1``; NaN below two values, where the
    interval is the uninformative ``(-inf, inf)``)."""

    mean: float
    lo: float
    hi: float
    sd: float
    n: int
    level: float

    def inside(self, lo: float, hi: float) -> bool:
        """The whole interval lies strictly inside ``(lo, hi)``."""
        return bool(lo < self.lo and self.hi < hi)


def mean_t_interval(values: Sequence[float], level: float = 0.95) -> MeanInterval:
    r"""The two-sided ``level`` t-interval of the mean of ``values`` (one per independent replicate):

    .. math::  \bar v \pm t_{(1+\mathrm{level})/2,\,n-1}\,\frac{s_v}{\sqrt n}

    (``scipy.stats.t.interval(level, n - 1, loc=mean, scale=sem)``, tested against it). The values must be
    finite (drop them with :func:`finite_values`, which counts what it drops); with one value the interval
    is ``(-inf, inf)``."""
    level = _level(level)
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        raise ValueError("values holds no numbers; the interval needs at least one replicate (two to be finite)")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"values holds {int(np.sum(~np.isfinite(v)))} non-finite number(s); drop them with "
                         "finite_values (which counts them) before taking the interval")
    m = float(v.mean())
    if v.size < 2:
        return MeanInterval(m, float("-inf"), float("inf"), float("nan"), 1, level)
    sd = float(v.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, v.size - 1)) * float(sd / np.sqrt(v.size))
    return MeanInterval(m, m - half, m + half, sd, int(v.size), level)


@dataclasses.dataclass(frozen=True)
class SlopeInterval:
    """Ordinary least squares of y on x: ``slope`` with its two-sided t-interval ``[lo, hi]`` at ``level``
    (``n - 2`` degrees of freedom), its standard error, the ``intercept`` and ``r2``."""

    slope: float
    lo: float
    hi: float
    stderr: float
    intercept: float
    r2: float
    n: int
    level: float


def ols_slope_interval(x: Sequence[float], y: Sequence[float], level: float = 0.95) -> SlopeInterval:
    r"""Least-squares slope of ``y`` on ``x`` with its two-sided ``level`` t-interval,
    :math:`\hat b \pm t_{(1+\mathrm{level})/2,\,n-2}\,\mathrm{se}(\hat b)` (the slope and its standard error
    from ``scipy.stats.linregress``). Needs at least three finite points and ``x`` not constant."""
    level = _level(level)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y need equal lengths, got {x.size} and {y.size}")
    if x.size < 3:
        raise ValueError(f"a slope interval needs >= 3 points; got {x.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    if np.ptp(x) == 0:
        raise ValueError("x is constant: the slope is not defined")
    res = stats.linregress(x, y)
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 2)) * float(res.stderr)
    b = float(res.slope)
    return SlopeInterval(b, b - half, b + half, float(res.stderr), float(res.intercept), float(res.rvalue) ** 2,
                         int(x.size), level)


# ---------------------------------------------------------------------------------------------- effect rules
@dataclasses.dataclass(frozen=True)
class EffectBound:
    """The decision "the ``side`` confidence bound of the mean (paired) difference is beyond ``threshold``":
    ``side="lower"``: ``bound > threshold`` (an effect of at least a minimum size), ``side="upper"``:
    ``bound < threshold`` (an effect at most that large, or a decrease). ``lo``/``hi`` are the interval's
    ends (the one-sided bound's other end is infinite), ``dropped`` the non-finite differences left out."""

    mean: float
    bound: float
    lo: float
    hi: float
    n: int
    threshold: float
    side: str
    level: float
    two_sided: bool
    dropped: int
    passed: bool

    def decision(self) -> "IntervalDecision":
        """The three-way decision of CLAIMS.md rule 9 on this interval (:func:`decide_interval`): reproduced
        when the bound is beyond the threshold, not reproduced when the whole interval lies on the far side of
        it, inconclusive ("interval spans both") otherwise. A one-sided bound (``two_sided=False``) has an
        infinite far end, so it can never give "not reproduced": use the two-sided interval for that."""
        return decide_interval(self.lo, self.hi, self.threshold, side=self.side)

    def text(self, fmt: str = "+.3f", unit: str = "") -> str:
        """A short measured string, e.g. ``+0.120 [+0.050, +0.190] (95% t-interval, n = 8); lower bound > +0.000``
        (``; 2 non-finite dropped`` appended when some were)."""
        u = f" {unit}" if unit else ""
        if self.n < 2:                                   # one replicate: the interval is (-inf, +inf), say so
            out = (f"{self.mean:{fmt}}{u} (n = {self.n}: one replicate, no interval); {self.side} bound "
                   f"{'>' if self.side == 'lower' else '<'} {self.threshold:{fmt}}: {'yes' if self.passed else 'no'}")
            return out + (f"; {self.dropped} non-finite dropped" if self.dropped else "")
        kind = "t-interval" if self.two_sided else f"one-sided {self.side} t-bound"
        sign = ">" if self.side == "lower" else "<"
        ends = (f"[{self.lo:{fmt}}, {self.hi:{fmt}}]" if self.two_sided
                else f"{self.side} bound {self.bound:{fmt}}")
        out = (f"{self.mean:{fmt}}{u} {ends} ({100 * self.level:g}% {kind}, n = {self.n}); {self.side} bound "
               f"{sign} {self.threshold:{fmt}}: {'yes' if self.passed else 'no'}")
        return out + (f"; {self.dropped} non-finite dropped" if self.dropped else "")


NONFINITE = ("raise", "drop")


def effect_bound(diffs: Sequence[float], threshold: float = 0.0, *, side: str = "lower", level: float = 0.95,
                 two_sided: bool = True, nonfinite: str = "raise") -> EffectBound:
    """Decide "the mean difference exceeds a minimum effect" on replicate differences ``diffs`` (one per
    independent replicate; a paired difference A - B per seed, or a per-replicate slope).

    ``side="lower"`` passes when the lower confidence bound is strictly above ``threshold`` (the minimum
    effect, fixed in the chapter's config); ``side="upper"`` when the upper bound is strictly below it. With
    ``two_sided`` (the default) the bound is an end of the two-sided ``level`` interval
    (:func:`mean_t_interval`, i.e. a one-sided bound at ``(1 + level) / 2``), otherwise the one-sided
    ``level`` bound of :func:`mean_t_bound`. Non-finite differences raise (``nonfinite="raise"``) or are left
    out and counted (``"drop"``; the rule shows the count and sets its own limit). Below two finite
    differences the bound is uninformative (±inf) and the check fails."""
    if side not in SIDES:
        raise ValueError(f"side={side!r} is not allowed; allowed values: {', '.join(SIDES)}")
    if nonfinite not in NONFINITE:
        raise ValueError(f"nonfinite={nonfinite!r} is not allowed; allowed values: {', '.join(NONFINITE)}")
    level = _level(level)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold={threshold!r} is not allowed; it must be a finite number")
    raw = np.asarray(diffs, dtype=float).ravel()
    d, dropped = finite_values(raw)
    if dropped and nonfinite == "raise":
        raise ValueError(f"diffs holds {dropped} non-finite difference(s); pass nonfinite='drop' to leave them out "
                         "(counted) or fix the experiment")
    if d.size == 0:
        return EffectBound(float("nan"), -np.inf if side == "lower" else np.inf, -np.inf, np.inf, 0, float(threshold),
                           side, level, bool(two_sided), dropped, False)
    if two_sided:
        ci = mean_t_interval(d, level)
        mean, lo, hi = ci.mean, ci.lo, ci.hi
    else:
        mean, b = mean_t_bound(d, level, side)
        lo, hi = (b, float("inf")) if side == "lower" else (float("-inf"), b)
    bound = lo if side == "lower" else hi
    passed = bool(bound > threshold) if side == "lower" else bool(bound < threshold)
    return EffectBound(float(mean), float(bound), float(lo), float(hi), int(d.size), float(threshold), side, level,
                       bool(two_sided), dropped, passed)


# ---------------------------------------------------------------------------------------------- three-way decision
@dataclasses.dataclass(frozen=True)
class IntervalDecision:
    """The outcome of :func:`decide_interval`: ``passed`` is True (reproduced), False (not reproduced: the
    interval lies wholly on the far side of the minimum effect) or None (inconclusive, ``kind`` =
    "interval spans both"); ``text`` says which, with the numbers."""

    passed: bool | None
    kind: str | None
    lo: float
    hi: float
    threshold: float
    side: str

    @property
    def text(self) -> str:
        near, far = ("lower", "upper") if self.side == "lower" else ("upper", "lower")
        if self.passed:
            return f"{near} end beyond {self.threshold:+.3g}"
        if self.passed is False:
            return f"whole interval [{self.lo:+.3g}, {self.hi:+.3g}] on the far side of {self.threshold:+.3g}"
        return f"interval [{self.lo:+.3g}, {self.hi:+.3g}] contains {self.threshold:+.3g}: spans both"


def decide_interval(lo: float, hi: float, threshold: float, *, side: str = "lower") -> IntervalDecision:
    """Rule 9 of the claims contract on a confidence interval ``[lo, hi]`` of an effect and the minimum effect
    ``threshold`` declared before the run.

    ``side="lower"`` (the claim: the effect exceeds ``threshold``): reproduced when ``lo > threshold``; not
    reproduced when ``hi < threshold`` (evidence **against** the claim); otherwise inconclusive, kind
    "interval spans both". ``side="upper"`` (the claim: the effect stays below ``threshold``) mirrors it:
    reproduced when ``hi < threshold``, not reproduced when ``lo > threshold``. A NaN end is inconclusive
    (never a pass, never a fail)."""
    if side not in SIDES:
        raise ValueError(f"side={side!r} is not allowed; allowed values: {', '.join(SIDES)}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold={threshold!r} is not allowed; it must be a finite number")
    lo, hi = float(lo), float(hi)
    if not (np.isnan(lo) or np.isnan(hi)) and lo > hi:
        raise ValueError(f"lo={lo!r} > hi={hi!r}: not an interval")
    if side == "lower":
        passed = True if lo > threshold else (False if hi < threshold else None)
    else:
        passed = True if hi < threshold else (False if lo > threshold else None)
    return IntervalDecision(passed, None if passed is not None else "interval spans both", lo, hi,
                            float(threshold), side)


# ================================================================================================================
# Percentile bootstrap over units, the exact binomial interval, the Bonferroni z bound (issue 27 §3: the private
# bootstraps of drpbench_data_races and pgf_trie_causal moved here). Additive block: nothing above depends on it.
# ================================================================================================================
NONFINITE_REPLICATES = ("omit", "propagate")


def bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, n)`` indices of ``n_boot`` bootstrap resamples of ``n`` units: ``default_rng(seed).integers(0, n,
    (n_boot, n))``, the draw ``scipy.stats.bootstrap`` makes with ``rng=default_rng(seed)`` (tested against it).
    The same ``(n, n_boot, seed)`` give the same resamples, so two statistics over the same units resampled with
    them form a paired bootstrap."""
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be a positive integer (the number of units)")
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot={n_boot!r} is not allowed; it must be a positive integer")
    return np.random.default_rng(seed).integers(0, int(n), size=(int(n_boot), int(n)))


def percentile_interval(replicates: Sequence[float], level: float = 0.95,
                        nonfinite: str = "omit") -> tuple[float, float, int]:
    """The two-sided percentile interval of bootstrap ``replicates`` at ``level``: their ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles (linear interpolation, as ``scipy.stats.bootstrap(method="percentile")``), and
    how many replicates were non-finite. ``nonfinite="omit"`` leaves those out (counted; NaN ends when none is
    finite), ``"propagate"`` returns NaN ends when there is any."""
    level = _level(level)
    if nonfinite not in NONFINITE_REPLICATES:
        raise ValueError(f"nonfinite={nonfinite!r} is not allowed; allowed values: {', '.join(NONFINITE_REPLICATES)}")
    r = np.asarray(replicates, dtype=float).ravel()
    finite, dropped = finite_values(r)
    if finite.size == 0 or (dropped and nonfinite == "propagate"):
        return float("nan"), float("nan"), dropped
    lo, hi = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi), dropped


@dataclasses.dataclass(frozen=True)
class BootstrapInterval:
    """A statistic over ``n`` units (``estimate``, on all of them) with its percentile bootstrap interval
    ``[lo, hi]`` at ``level`` from ``n_boot`` resamples of the units; ``undefined`` resamples gave a non-finite
    statistic (left out of the interval, counted)."""

    estimate: float
    lo: float
    hi: float
    n: int
    n_boot: int
    level: float
    undefined: int

    def decision(self, threshold: float, side: str = "lower") -> "IntervalDecision":
        """Rule 9's three-way decision on this interval (:func:`decide_interval`)."""
        return decide_interval(self.lo, self.hi, threshold, side=side)


def unit_bootstrap(statistic, n: int, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                   nonfinite: str = "omit") -> BootstrapInterval:
    """Percentile bootstrap of a statistic of ``n`` units (programs, graphs, seeds) resampled with replacement.

    ``statistic(idx)`` takes an integer array of unit indices of shape ``(b, n)`` and returns ``b`` values (the
    statistic on each resample; ``idx`` may repeat a unit); the estimate is ``statistic`` on ``arange(n)``. The
    resamples are :func:`bootstrap_indices` ``(n, n_boot, seed)``, the interval :func:`percentile_interval` (so a
    statistic of one data array gives ``scipy.stats.bootstrap(..., method="percentile", rng=default_rng(seed))``'s
    interval, and two statistics of the same units with the same seed are paired). A ratio that a resample leaves
    undefined (0/0) is NaN there: left out and counted (``nonfinite="omit"``), or NaN ends (``"propagate"``); a
    rule that must not drop them maps them to a value inside ``statistic`` instead."""
    idx = bootstrap_indices(n, n_boot, seed)
    est = np.asarray(statistic(np.arange(int(n))[None, :]), dtype=float).ravel()
    reps = np.asarray(statistic(idx), dtype=float).ravel()
    if est.size != 1 or reps.size != idx.shape[0]:
        raise ValueError(f"statistic(idx) must return one value per row of idx; got {est.size} for 1 row and "
                         f"{reps.size} for {idx.shape[0]}")
    lo, hi, dropped = percentile_interval(reps, level, nonfinite)
    return BootstrapInterval(float(est[0]), lo, hi, int(n), int(n_boot), _level(level), dropped)


def binomial_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) two-sided ``level`` interval of a proportion with ``k`` successes in ``n``
    independent trials (``scipy.stats.binomtest(k, n).proportion_ci(level, method="exact")``, tested against it)."""
    level = _level(level)
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be a positive integer")
    if isinstance(k, bool) or int(k) != k or not 0 <= k <= n:
        raise ValueError(f"k={k!r} is not allowed; it must be an integer in [0, n={n}]")
    k, n = int(k), int(n)
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.isf(a, k + 1, n - k))
    return lo, hi


def bonferroni_z(family_level: float, m: int) -> float:
    """The two-sided normal critical value that holds the family-wise error of ``m`` z-tests at ``family_level``
    (Bonferroni): ``norm.isf(family_level / (2 m))``."""
    family_level = _level(family_level)
    if isinstance(m, bool) or int(m) != m or m < 1:
        raise ValueError(f"m={m!r} is not allowed; it must be a positive integer (the number of tests)")
    return float(stats.norm.isf(family_level / (2 * int(m))))


__all__ += ["bootstrap_indices", "percentile_interval", "BootstrapInterval", "unit_bootstrap", "binomial_interval",
            "bonferroni_z", "NONFINITE_REPLICATES"]
__all__ += ["replicates_needed", "interval_text"]


def replicates_needed(values: Sequence[float], margin: float, level: float = 0.95, cap: int = 1000) -> int | None:
    """Power before the run (CLAIMS.md rule 14): the smallest replicate count n at which the two-sided ``level``
    t-interval of :func:`mean_t_interval`, with the mean and standard deviation of ``values`` held fixed, would lie
    wholly on one side of ``margin``; ``None`` past ``cap``, with fewer than two finite values, or with a mean on the
    margin. Tested against :func:`mean_t_interval` on samples of exactly that mean and spread."""
    from scipy.stats import t as student_t

    level = _level(level)
    v = np.asarray(values, dtype=float).ravel()
    if v.size < 2 or not np.all(np.isfinite(v)):
        return None
    gap, sd = abs(float(v.mean()) - margin), float(v.std(ddof=1))
    if gap == 0.0:
        return None
    q = 0.5 + 0.5 * level
    for n in range(2, cap + 1):
        if student_t.ppf(q, n - 1) * sd / np.sqrt(n) < gap:
            return n
    return None



# ================================================================================================ paired t, windows
# (added for issue 28 / 27 §3 by the audit of ts_pairwise_ranking, grokking and loes_layer_geometry; kept in its own
# block so that other additions rebase cleanly)
__all__ += ["PairedT", "paired_t", "WindowDecision", "decide_within"]


@dataclasses.dataclass(frozen=True)
class PairedT:
    """The paired comparison of ``a`` and ``b`` (one pair per independent replicate): the mean difference
    ``a - b`` with its two-sided ``level`` t-interval ``[lo, hi]``, the differences' ``sd`` (``ddof=1``), the
    standardised effect ``dz`` = mean / sd, the two-sided paired t-test's ``p``, ``n``, wins / ties / losses
    and the differences themselves (``diffs``). Equal differences (sd 0 up to rounding) give the point interval
    ``[mean, mean]`` and ``p`` 0 (or 1 when the mean is 0); fewer than two pairs give ``(-inf, inf)`` and NaN."""

    mean: float
    lo: float
    hi: float
    sd: float
    dz: float
    p: float
    n: int
    level: float
    wins: int
    ties: int
    losses: int
    diffs: np.ndarray = dataclasses.field(repr=False, compare=False)


def paired_t(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> PairedT:
    """The paired t comparison of ``a`` against ``b`` (:class:`PairedT`): the interval is
    :func:`mean_t_interval` of ``a - b`` (``scipy.stats.ttest_rel(a, b).confidence_interval(level)``), the
    p-value ``scipy.stats.ttest_rel(a, b).pvalue`` (tested against both). The values must be finite."""
    level = _level(level)
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples need equal lengths, got {a.size} and {b.size}")
    d = a - b
    if d.size == 0:
        raise ValueError("a and b hold no pairs")
    if not np.all(np.isfinite(d)):
        raise ValueError(f"{int(np.sum(~np.isfinite(d)))} non-finite difference(s); drop them with finite_values first")
    n, m = int(d.size), float(d.mean())
    counts = dict(wins=int((d > 0).sum()), ties=int((d == 0).sum()), losses=int((d < 0).sum()))
    if n < 2:
        return PairedT(m, float("-inf"), float("inf"), float("nan"), float("nan"), float("nan"), n, level,
                       diffs=d, **counts)
    sd = float(d.std(ddof=1))
    if sd <= 1e-12 * max(1.0, abs(m)):            # equal differences up to rounding
        dz = float(np.sign(m) * np.inf) if m else 0.0
        return PairedT(m, m, m, 0.0, dz, 0.0 if m else 1.0, n, level, diffs=d, **counts)
    ci = mean_t_interval(d, level)
    p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return PairedT(m, ci.lo, ci.hi, sd, m / sd, p, n, level, diffs=d, **counts)


@dataclasses.dataclass(frozen=True)
class WindowDecision:
    """The outcome of :func:`decide_within`: ``passed`` True (the interval lies inside the window), False (it
    lies wholly outside it, on one side) or None (inconclusive, ``kind`` = "interval spans both")."""

    passed: bool | None
    kind: str | None
    lo: float
    hi: float
    low: float
    high: float

    @property
    def text(self) -> str:
        win = f"({self.low:+.3g}, {self.high:+.3g})"
        if self.passed:
            return f"interval [{self.lo:+.3g}, {self.hi:+.3g}] inside {win}"
        if self.passed is False:
            return f"whole interval [{self.lo:+.3g}, {self.hi:+.3g}] outside {win}"
        return f"interval [{self.lo:+.3g}, {self.hi:+.3g}] crosses an end of {win}: spans both"


def decide_within(lo: float, hi: float, low: float, high: float) -> WindowDecision:
    """Rule 9 of the claims contract for a claim that a quantity lies inside the window ``(low, high)`` (an
    exponent of -1 within a margin: the rejected alternatives are the values outside it), on its confidence
    interval ``[lo, hi]``: reproduced when ``low < lo`` and ``hi < high`` (both one-sided decisions of
    :func:`decide_interval` pass); not reproduced when the whole interval lies outside the window
    (``hi < low`` or ``lo > high``: evidence for an alternative); otherwise inconclusive, kind "interval spans
    both" (also with a NaN end)."""
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"low={low!r}, high={high!r} is not a window; give finite low < high")
    below, above = decide_interval(lo, hi, low, side="lower"), decide_interval(lo, hi, high, side="upper")
    if below.passed and above.passed:
        passed = True
    elif below.passed is False or above.passed is False:
        passed = False
    else:
        passed = None
    return WindowDecision(passed, None if passed is not None else "interval spans both", float(lo), float(hi),
                          float(low), float(high))


# ================================================================================================ normal, Welch
# (session 8, issue 27 §3: the intervals the new chapters computed inline)
__all__ += ["normal_interval", "welch_interval"]


def normal_interval(estimate: float, se: float, level: float = 0.95) -> tuple[float, float]:
    """The two-sided normal (Wald) interval ``estimate ± z·se`` at ``level``, ``z`` the ``(1 + level) / 2``
    quantile of the standard normal: for an estimate with a known or bootstrapped standard error. A non-finite or
    negative ``se`` gives NaN ends (a rule then reads the interval as spanning both)."""
    level = _level(level)
    if not (np.isfinite(se) and se >= 0 and np.isfinite(estimate)):
        return float("nan"), float("nan")
    half = float(stats.norm.ppf(0.5 + level / 2)) * float(se)
    return float(estimate) - half, float(estimate) + half


def welch_interval(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``b`` minus mean of ``a`` (two independent samples, unequal variances) with its two-sided Welch
    t-interval at ``level`` (Welch-Satterthwaite degrees of freedom): ``(difference, lo, hi)``. Fewer than two
    values in either sample gives NaN ends; two constant samples give a zero-width interval."""
    level = _level(level)
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    d = float(b.mean() - a.mean()) if a.size and b.size else float("nan")
    if a.size < 2 or b.size < 2:
        return d, float("nan"), float("nan")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = float(np.sqrt(va + vb))
    if se == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return d, d - half, d + half


__all__ += ["t_interval_or_unbounded"]


def interval_text(mean: float, lo: float, hi: float, n: int, fmt: str = "+.3f") -> str:
    """A rule's measured text for ``(mean, lo, hi, n)`` of :func:`t_interval_or_unbounded`:
    ``+0.120 [+0.050, +0.190] (n = 8)``; an unbounded interval (one replicate, or none) is said in words
    (``+0.120 (n = 1: no interval)``), never printed as ``[-inf, +inf]``; a mean that is not a number reads
    ``no finite value``."""
    if not np.isfinite(mean):
        return f"no finite value (n = {n})"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{mean:{fmt}} (n = {n}: no interval)"
    return f"{mean:{fmt}} [{lo:{fmt}}, {hi:{fmt}}] (n = {n})"


def t_interval_or_unbounded(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float, int]:
    """``(mean, lo, hi, n)`` of :func:`mean_t_interval` for a rule's measured text, never raising: no value or a
    non-finite one gives ``(nan, -inf, inf, n)`` (an interval that decides nothing), one value ``(v, -inf, inf, 1)``."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)):
        return float("nan"), float("-inf"), float("inf"), int(v.size)
    ci = mean_t_interval(v, level)
    return ci.mean, ci.lo, ci.hi, ci.n
