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
    from icmlbook.papers import ftrl_preference_graphs as fp

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


# -- the stability search -------------------------------------------------------------------------
SEARCH_LEVELS = (1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14)


def _search_settings():
    from icmlbook.papers.ftrl_preference_graphs.stability import SearchSettings

    # 6 levels x (96 random + 8 + 8 seeds + 2 rounds x (3 x 12 + 2 x 5 transfers)) = 1,200 starts for one set
    return SearchSettings(levels=SEARCH_LEVELS, horizon=200.0, n_random=96, n_seeds=8, n_rounds=2, n_elite=3,
                          n_children=12)


def bench_stability_search_one_set():
    """The adversarial search over ~1,000 starts for one set (the averaging counterexample at G = 5),
    target <= 60 s on 2 cores, against integrating the same number of starts one at a time with
    solve_ivp (RK45, same tolerances; timed on 24 starts of the search's own kind and scaled)."""
    from scipy.integrate import solve_ivp

    from icmlbook.papers import ftrl_preference_graphs as fp
    from icmlbook.papers.ftrl_preference_graphs.stability import start_scores

    settings = _search_settings()
    game, S = fp.averaging_game(5.0), fp.averaging_set()
    holder = {}

    def run():
        holder["r"] = fp.search_one(game, S, settings=settings, seed=0)

    ours = best_time(run, repeat=1)
    r = holder["r"]
    n = r.n_starts
    # the baseline integrates starts of the search's own kind (random restarts placed at the six levels)
    from icmlbook.papers.ftrl_preference_graphs.stability import _random_starts, place_starts

    rng = np.random.default_rng(0)
    st = _random_starts(game, S, 4, len(SEARCH_LEVELS), settings.log_span, rng)
    X0 = place_starts(game, S, st, np.array(SEARCH_LEVELS))
    Y0 = start_scores(X0, game.offsets, "entropic")
    field = fp.FTRLField(game.payoffs, "entropic")

    def loop():
        for y in Y0:
            solve_ivp(field, (0.0, settings.horizon), y, method="RK45", rtol=settings.rtol, atol=settings.atol)

    base = best_time(loop, repeat=1) * (n / len(Y0))
    return BenchResult(name=f"stability search, one set, {n} starts, T={settings.horizon:g}, {len(SEARCH_LEVELS)} levels",
                       ours_seconds=ours, baseline_seconds=base, baseline="solve_ivp(RK45) one start at a time",
                       target="<= 60 s", met=ours <= 60.0,
                       note=f"{n / ours:.0f} starts/s vs {n / base:.1f} starts/s one at a time; label {r.label}")
