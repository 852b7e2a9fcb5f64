"""Benchmarks of the ftrl_preference_graphs chapter: trajectories per second of the batched FTRL
integrator against integrating the same starts one at a time with ``scipy.integrate.solve_ivp``
(target: >= 20x), for both regularisers, and the stacked-LSODA path for reference.

The batch has the size of one chunk of the chapter's studies (2048 starts over 8 random 2x2x2 games);
both sides use the chapter's tolerances (rtol 1e-8 entropic, 1e-6 Euclidean, whose projection has
kinks that make tighter tolerances pointless)."""

from __future__ import annotations

import numpy as np

from tests.benchmarks.common import BenchResult, best_time

N_STARTS = 2048
RTOL = {"entropic": 1e-8, "euclidean": 1e-6}
HORIZON = 100.0


def _setup(regulariser: str):
    from icmlbook import ftrl_preference_graphs as fp

    rng = np.random.default_rng(0)
    games = [fp.random_game((2, 2, 2), rng, min_gap=0.15) for _ in range(8)]
    P = np.concatenate([np.broadcast_to(g.payoffs, (N_STARTS // 8, *g.payoffs.shape)) for g in games])
    X0 = np.stack([np.concatenate([rng.dirichlet(np.ones(2)) for _ in range(3)]) for _ in range(N_STARTS)])
    Y0 = fp.scores_from_strategies(X0, games[0].offsets, regulariser)
    return fp, P, Y0


def _one_by_one(fp, P, Y0, regulariser, n):
    from scipy.integrate import solve_ivp

    for b in range(n):
        field = fp.FTRLField(P[b], regulariser)
        solve_ivp(field, (0.0, HORIZON), Y0[b], method="LSODA", rtol=RTOL[regulariser], atol=1e-10)


def _bench(regulariser: str) -> BenchResult:
    fp, P, Y0 = _setup(regulariser)
    rtol = RTOL[regulariser]
    ours = best_time(lambda: fp.integrate_ftrl(P, Y0, HORIZON, regulariser, batched=True, rtol=rtol, atol=1e-10),
                     repeat=2)
    n_base = 32      # the baseline is slow: time 32 starts and scale per trajectory
    base = best_time(lambda: _one_by_one(fp, P, Y0, regulariser, n_base), repeat=1) * (N_STARTS / n_base)
    speed = base / ours
    return BenchResult(name=f"batched FTRL ({regulariser}), {N_STARTS} starts, T={HORIZON:g}", ours_seconds=ours,
                       baseline_seconds=base, baseline="solve_ivp(LSODA) one start at a time",
                       target=">= 20x faster", met=speed >= 20,
                       note=f"{N_STARTS / ours:.0f} trajectories/s vs {N_STARTS / base:.0f}/s")


def bench_batched_entropic():
    return _bench("entropic")


def bench_batched_euclidean():
    return _bench("euclidean")


def bench_stacked_lsoda_entropic():
    fp, P, Y0 = _setup("entropic")
    ours = best_time(lambda: fp.integrate_ftrl(P, Y0, HORIZON, "entropic", batched=True, method="LSODA",
                                               rtol=1e-8, atol=1e-10), repeat=1)
    return BenchResult(name=f"stacked LSODA (entropic), {N_STARTS} starts", ours_seconds=ours,
                       note=f"{N_STARTS / ours:.0f} trajectories/s (one step size for the whole batch)")
