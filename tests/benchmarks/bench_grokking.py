"""Benchmarks of the grokking chapter: a whole train/test curve from the closed form against the plain
gradient-descent loop that it replaces (target: at least 100x faster)."""

from __future__ import annotations

import numpy as np

from icmlbook.papers.grokking import config_for, gd_loop, log_time_grid
from icmlbook.papers.grokking.experiments import make_problem

from .common import BenchResult, best_time


def bench_closed_form_curve_vs_gd_loop() -> BenchResult:
    cfg = config_for("default")
    problem, z = make_problem(cfg, seed=0)
    theta0 = cfg.nu * z
    horizon = int(cfg.decay_horizon / (cfg.eta * cfg.lam))      # the full curve of the chapter
    steps = log_time_grid(horizon, cfg.t_points)

    def closed_form():
        traj = problem.trajectory(theta0, cfg.eta, cfg.lam)
        return traj.train_loss(steps), traj.test_loss(steps)

    def loop():
        thetas = gd_loop(problem, theta0, cfg.eta, cfg.lam, steps)
        return problem.train_loss(thetas), problem.test_loss(thetas)

    ours = best_time(closed_form, repeat=5)
    base = best_time(loop, repeat=1)
    cf_train, cf_test = closed_form()
    gd_train, gd_test = loop()
    agree = bool(np.allclose(cf_test, gd_test, rtol=1e-8) and np.allclose(cf_train, gd_train, rtol=1e-6, atol=1e-14))
    speedup = base / ours
    return BenchResult(f"curve of {horizon} steps, m={cfg.m} (closed form vs GD)", ours, base, "GD loop",
                       ">= 100x faster", speedup >= 100, note=f"curves agree: {agree}")


def bench_problem_setup() -> BenchResult:
    cfg = config_for("default")
    return BenchResult(f"eigendecomposition, n={cfg.n}, m={cfg.m}",
                       best_time(lambda: make_problem(cfg, seed=0), repeat=3))
