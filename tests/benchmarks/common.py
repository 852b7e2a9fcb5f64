"""What a benchmark returns, and a timer that takes the best of several repeats."""

from __future__ import annotations

import dataclasses
import time
from typing import Callable


@dataclasses.dataclass
class BenchResult:
    name: str
    ours_seconds: float
    baseline_seconds: float | None = None
    baseline: str | None = None
    target: str | None = None      # e.g. ">= 100x faster than the GD loop"
    met: bool | None = None        # the target, evaluated on these timings
    note: str = ""

    @property
    def speedup(self) -> float | None:
        if self.baseline_seconds is None or self.ours_seconds == 0:
            return None
        return self.baseline_seconds / self.ours_seconds


def best_time(fn: Callable[[], object], repeat: int = 3, number: int = 1) -> float:
    """The best wall time of ``repeat`` runs of ``number`` calls, per call (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
