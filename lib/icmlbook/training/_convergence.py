r"""The convergence guard of the claims contract (``shared/design/CLAIMS.md``, rule 10: *converged before
compared*).

A rule that compares trained models first checks, by a plateau test declared in the chapter's config, that
every model it compares has converged; an unconverged comparison is *inconclusive at this scale*, never
"not reproduced". The declared test (:class:`PlateauTest`) reads: training ``extend`` × T longer moves the
compared metric by less than ``share`` of the rule's margin,

.. math::  \max_s \bigl|m_s\bigl((1+\text{extend})\,T\bigr) - m_s(T)\bigr| < \text{share}\cdot|\text{margin}|,

over the replicates :math:`s`. Two ways to measure it:

- :func:`plateau_check` takes the metric at T and at the longer horizon (a continued run: the trainer's
  checkpoints resume bit for bit, so the continuation is the same run trained longer);
- :func:`plateau_from_curve` looks back along a logged curve instead: the metric at T against the metric at
  T / (1 + extend), the same relative extension ending at T (cheaper; it needs the curve logged densely
  enough that the earlier point lies inside it).

:func:`convergence_guard` turns the reports into the rule's *inconclusive* check when any model failed.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ..runtime.claims import ClaimCheck

__all__ = ["PlateauTest", "Convergence", "plateau_check", "plateau_from_curve", "convergence_guard"]


@dataclasses.dataclass(frozen=True)
class PlateauTest:
    """The declared plateau test: training ``extend`` (a fraction of T) longer moves the compared metric by
    less than ``share`` of the rule's margin. Defaults: 50 % longer, a third of the margin (CLAIMS.md)."""

    extend: float = 0.5
    share: float = 1.0 / 3.0

    def __post_init__(self) -> None:
        if isinstance(self.extend, bool) or not np.isfinite(self.extend) or not self.extend > 0:
            raise ValueError(f"extend={self.extend!r} is not allowed; it must be a finite number > 0")
        if isinstance(self.share, bool) or not np.isfinite(self.share) or not 0 < self.share <= 1:
            raise ValueError(f"share={self.share!r} is not allowed; it must lie in (0, 1]")

    def tolerance(self, margin: float) -> float:
        """The largest change of the metric the test accepts for a rule with this ``margin``."""
        if not np.isfinite(margin) or margin == 0:
            raise ValueError(f"margin={margin!r} is not allowed; it must be a finite non-zero number (the rule's "
                             "minimum effect or tolerance)")
        return float(self.share * abs(margin))


@dataclasses.dataclass(frozen=True)
class Convergence:
    """One model's plateau test: ``converged`` when ``change`` (the largest change over replicates) is below
    ``tolerance``; ``at``/``later`` the metric (mean over replicates) at the two horizons."""

    name: str
    converged: bool
    change: float
    tolerance: float
    at: float
    later: float
    test: PlateauTest

    @property
    def text(self) -> str:
        word = "converged" if self.converged else "NOT converged"
        return (f"{self.name}: {word} (training {100 * self.test.extend:g} % longer moves the metric by "
                f"{self.change:.3g}; the plateau test allows < {self.tolerance:.3g})")


def plateau_check(at: float | Sequence[float], later: float | Sequence[float], margin: float,
                  test: PlateauTest = PlateauTest(), name: str = "model") -> Convergence:
    """The plateau test on the metric at T (``at``) and at (1 + extend)·T (``later``), one value per
    replicate (or a scalar). A non-finite value is never converged."""
    a = np.atleast_1d(np.asarray(at, dtype=float))
    b = np.atleast_1d(np.asarray(later, dtype=float))
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"at and later must hold one value per replicate each (shapes {a.shape} and {b.shape})")
    tol = test.tolerance(margin)
    diff = np.abs(b - a)
    change = float(diff.max()) if np.all(np.isfinite(diff)) else float("inf")
    return Convergence(name, bool(change < tol), change, tol, float(np.mean(a)), float(np.mean(b)), test)


def plateau_from_curve(steps: Sequence[float], values, margin: float, test: PlateauTest = PlateauTest(),
                       name: str = "model", window: int = 1) -> Convergence:
    """The plateau test read back along a logged curve: the metric at the last step T against the metric at
    T / (1 + extend) (linear interpolation between logged steps), for each replicate (``values`` of shape
    ``(n_steps,)`` or ``(n_replicates, n_steps)``). ``window`` > 1 averages each end over that many logged
    points (noisy mini-batch curves). The earlier horizon must lie inside the curve."""
    x = np.asarray(steps, dtype=float).ravel()
    y = np.asarray(values, dtype=float)
    y = y[None, :] if y.ndim == 1 else y
    if y.ndim != 2 or y.shape[1] != x.size or x.size < 2:
        raise ValueError(f"values must have shape (n_steps,) or (n_replicates, n_steps) with n_steps = {x.size} >= 2; "
                         f"got {np.asarray(values).shape}")
    if not np.all(np.diff(x) > 0):
        raise ValueError("steps must be strictly increasing")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window={window!r} is not allowed; it must be an integer >= 1")
    t_end = x[-1]
    t_early = t_end / (1.0 + test.extend)
    if t_early < x[0]:
        raise ValueError(f"the curve starts at step {x[0]:g}, after T/(1+extend) = {t_early:g}: log it from earlier")
    i_early = int(np.searchsorted(x, t_early))
    if window == 1:
        early = np.array([np.interp(t_early, x, row) for row in y])
        late = y[:, -1]
    else:
        early = y[:, max(0, i_early - window + 1): i_early + 1].mean(axis=1)
        late = y[:, -window:].mean(axis=1)
    return plateau_check(early, late, margin, test, name)


def convergence_guard(*reports: Convergence, measured: str) -> ClaimCheck | None:
    """None when every compared model passed its plateau test; otherwise the rule's *inconclusive at this
    scale* check (kind "not converged") naming the models that failed. A rule returns it before comparing:

        guard = convergence_guard(conv_a, conv_b, measured=text)
        if guard is not None:
            return guard
    """
    if not reports:
        raise ValueError("convergence_guard needs at least one Convergence report")
    failed = [r for r in reports if not r.converged]
    if not failed:
        return None
    return ClaimCheck.inconclusive_check(measured, "not converged", "; ".join(r.text for r in failed),
                                         values={"convergence": [dataclasses.asdict(r) | {"test": None} for r in reports]})
