"""Benchmarks of the DRPBench chapter: the static lockset analyser over a 1,000-program generated suite on
one core (target <= 30 s), and ThreadSanitizer (compile + three runs) per program (target <= 1 s)."""

from __future__ import annotations

import time

from icmlbook.papers.drpbench_data_races.generator import generate_suite
from icmlbook.papers.drpbench_data_races.predictors import LocksetPredictor
from icmlbook.papers.drpbench_data_races.tsan import run_tsan, tsan_available
from icmlbook.runtime import cpu_threads

from .common import BenchResult


def bench_lockset_on_1000_programs() -> BenchResult:
    suite = generate_suite(1000, seed=0)
    pred = LocksetPredictor()
    with cpu_threads(1):
        t = time.perf_counter()
        for p in suite:
            pred.predict(p)
        dt = time.perf_counter() - t
    return BenchResult("lockset analyser, 1,000 generated programs, 1 core", dt, target="<= 30 s", met=dt <= 30)


def bench_tsan_per_program() -> BenchResult:
    if not tsan_available():
        return BenchResult("ThreadSanitizer per program", float("nan"), note="gcc cannot link -fsanitize=thread here")
    suite = generate_suite(10, seed=1)
    t = time.perf_counter()
    for p in suite:
        run_tsan(p, runs=3, timeout=2.0)
    dt = (time.perf_counter() - t) / len(suite)
    return BenchResult("ThreadSanitizer: compile + 3 runs, per generated program", dt, target="<= 1 s", met=dt <= 1.0)
