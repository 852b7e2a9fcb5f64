r"""Learning-rate schedules as pure functions of the global step.

A schedule maps the index ``t`` of an optimiser update (``t = 0`` is the first update) to a factor that
multiplies each parameter group's base learning rate. Nothing is stepped or stored: resuming at step
``t`` gives the same rate as an unbroken run, by construction. Every schedule is a frozen dataclass, so it
enters a run's fingerprint (a resumed run with another schedule is refused).

With ``w`` warm-up steps, ``T`` total steps and final factor ``f``:

Constant
    :math:`s(t) = 1` (after warm-up).
Warm-up (linear)
    :math:`s(t) = (t+1)/w` for :math:`t < w`: the first update already moves (rate :math:`1/w`), update
    ``w-1`` runs at the full rate.
Cosine (after warm-up)
    :math:`s(t) = f + (1-f)\,\tfrac12\bigl(1+\cos(\pi\,\tfrac{t-w}{T-w})\bigr)`, from 1 at :math:`t=w` towards
    ``f`` at :math:`t=T` (Loshchilov & Hutter's SGDR without restarts).
WSD, warm-up-stable-decay (Hu et al. 2024, MiniCPM)
    warm-up, then 1 until the decay starts at :math:`t_d = T - \lceil \delta T\rceil`, then over the last
    :math:`\delta T` steps down to ``f``: linearly, :math:`s = 1-(1-f)\,u`, or by ``"sqrt"`` (1-sqrt),
    :math:`s = 1-(1-f)\sqrt u`, or by ``"cosine"``, with :math:`u=(t-t_d+1)/(T-t_d)`, so the last update
    (t = T-1) runs at exactly ``f``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

__all__ = ["Schedule", "Constant", "WarmupCosine", "WSD", "schedule_values"]


def _check(name: str, value, minimum: float, *, integer: bool = False, maximum: float | None = None) -> None:
    if integer and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{name}={value!r} is not allowed; it must be an integer >= {minimum}")
    if not (value >= minimum) or (maximum is not None and value > maximum):
        bound = f"in [{minimum}, {maximum}]" if maximum is not None else f">= {minimum}"
        raise ValueError(f"{name}={value!r} is not allowed; it must be {bound}")


@dataclasses.dataclass(frozen=True)
class Schedule:
    """Base class: ``schedule(t)`` is the learning-rate factor of update ``t`` (``t >= 0``)."""

    warmup: int = 0

    def __post_init__(self) -> None:
        _check("warmup", self.warmup, 0, integer=True)

    def __call__(self, t: int) -> float:
        if t < 0:
            raise ValueError(f"step t={t!r} is not allowed; it must be >= 0")
        if t < self.warmup:
            return (t + 1) / self.warmup
        return self.after_warmup(t)

    def after_warmup(self, t: int) -> float:  # overridden
        return 1.0


@dataclasses.dataclass(frozen=True)
class Constant(Schedule):
    """Linear warm-up over ``warmup`` updates, then the base rate."""


@dataclasses.dataclass(frozen=True)
class WarmupCosine(Schedule):
    """Linear warm-up, then a half cosine from 1 to ``final`` at update ``total`` (constant after it)."""

    total: int = 1
    final: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check("total", self.total, self.warmup + 1, integer=True)
        _check("final", self.final, 0.0, maximum=1.0)

    def after_warmup(self, t: int) -> float:
        progress = min(1.0, (t - self.warmup) / (self.total - self.warmup))
        return self.final + (1.0 - self.final) * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclasses.dataclass(frozen=True)
class WSD(Schedule):
    """Warm-up, stable at 1, then decay over the last ``decay_fraction`` of ``total`` updates to ``final``."""

    total: int = 1
    decay_fraction: float = 0.2
    final: float = 0.0
    shape: Literal["linear", "sqrt", "cosine"] = "linear"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check("total", self.total, self.warmup + 1, integer=True)
        _check("decay_fraction", self.decay_fraction, 0.0, maximum=1.0)
        _check("final", self.final, 0.0, maximum=1.0)
        if self.shape not in ("linear", "sqrt", "cosine"):
            raise ValueError(f"shape={self.shape!r} is not allowed; allowed values: linear, sqrt, cosine")
        if self.decay_start < self.warmup:
            raise ValueError(f"decay_fraction={self.decay_fraction} starts the decay (update {self.decay_start}) "
                             f"inside the warm-up ({self.warmup} updates)")

    @property
    def decay_start(self) -> int:
        """The first update of the decay phase, :math:`t_d = T - \\lceil \\delta T \\rceil`."""
        return self.total - math.ceil(self.decay_fraction * self.total)

    def after_warmup(self, t: int) -> float:
        td = self.decay_start
        if t < td:
            return 1.0
        u = min(1.0, (t - td + 1) / (self.total - td))
        if self.shape == "linear":
            drop = u
        elif self.shape == "sqrt":
            drop = math.sqrt(u)
        else:
            drop = 0.5 * (1.0 - math.cos(math.pi * u))
        return 1.0 - (1.0 - self.final) * drop


def schedule_values(schedule, steps: int) -> list[float]:
    """``[schedule(0), ..., schedule(steps-1)]``: the factors a run of ``steps`` updates uses (for plots)."""
    return [float(schedule(t)) for t in range(steps)]
