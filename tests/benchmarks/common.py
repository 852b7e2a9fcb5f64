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


def best_wall_and_cpu(fn: Callable[[], object], repeat: int = 3,
                      cpu_clock: Callable[[], float] = time.process_time) -> tuple[float, float]:
    """(best wall, best CPU) seconds of ``repeat`` runs of ``fn``. On one thread the CPU time is what a quiet core
    takes; the wall time also counts the time other jobs held the core. ``cpu_clock`` is the process's CPU clock by
    default, ``time.thread_time`` for work that runs on the calling thread alone."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), cpu_clock()
        fn()
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, cpu_clock() - c0)
    return wall, cpu
