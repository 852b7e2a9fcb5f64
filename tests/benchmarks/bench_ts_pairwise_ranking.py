"""Benchmarks of the ts_pairwise_ranking chapter: our batched anti-diagonal TWED and DTW (torch, float64,
no gradient, so ``dist.twed``/``dist.dtw`` take their two-anti-diagonal fast path) against aeon's numba
implementations called pair by pair on the same 1000 pairs of length 150 (target: at least as fast), and
soft-DTW forward+backward (target: at least as fast) against tslearn's. Best of several repeats: the machine may
be shared, and the note records torch's intra-op thread count."""

from __future__ import annotations

import numpy as np
import torch

from icmlbook.papers.ts_pairwise_ranking import distances as dist

from .common import BenchResult, best_time

N_PAIRS, LENGTH = 1000, 150


def _pairs():
    r = np.random.default_rng(0)
    return r.normal(size=(N_PAIRS, LENGTH)), r.normal(size=(N_PAIRS, LENGTH))


def _vs_aeon(name, ours_fn, aeon_fn):
    x, y = _pairs()
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    aeon_fn(x[0], y[0])                                     # numba compilation outside the timing

    def ours():
        with torch.no_grad():
            return ours_fn(xt, yt)

    def base():
        return np.array([aeon_fn(x[b], y[b]) for b in range(N_PAIRS)])

    t_ours, t_base = best_time(ours, repeat=5), best_time(base, repeat=3)
    agree = bool(np.allclose(ours().numpy(), base(), rtol=1e-10))
    return BenchResult(f"{name}, {N_PAIRS} pairs of length {LENGTH}", t_ours, t_base, f"aeon {name} (numba)",
                       ">= as fast as aeon", t_ours <= t_base, note=f"values agree (rtol 1e-10): {agree}; "
                       f"torch threads: {torch.get_num_threads()}; best of 5 (ours) and 3 (aeon) runs")


def bench_twed_vs_aeon() -> BenchResult:
    from aeon.distances import twe_distance
    return _vs_aeon("TWED", lambda a, b: dist.twed(a, b), twe_distance)


def bench_dtw_vs_aeon() -> BenchResult:
    from aeon.distances import dtw_distance
    return _vs_aeon("DTW", lambda a, b: dist.dtw(a, b), dtw_distance)


def bench_soft_dtw_grad_vs_tslearn() -> BenchResult:
    """Soft-DTW forward + backward (gradient with respect to ``x``): ours on the CPU goes through the compiled
    kernel :func:`icmlbook.papers.ts_pairwise_ranking.cpu_kernels.sq_dtw`; tslearn's ``soft_dtw_alignment`` computes
    the forward pass and the expected alignment (the gradient's core) pair by pair."""
    r = np.random.default_rng(1)
    n, T = 100, 100
    x, y = r.normal(size=(n, T)), r.normal(size=(n, T))

    def ours():
        xt = torch.as_tensor(x).requires_grad_(True)
        dist.soft_dtw(xt, torch.as_tensor(y), 1.0).sum().backward()
        return xt.grad

    from tslearn.metrics import soft_dtw_alignment

    def base_real():
        return [soft_dtw_alignment(x[b][:, None], y[b][:, None], gamma=1.0) for b in range(n)]

    ours(), base_real()                                     # numba compilation outside the timing
    t_ours, t_base = best_time(ours, repeat=5), best_time(base_real, repeat=3)
    g_ref = np.stack([2 * (a * (x[b][:, None] - y[b][None, :])).sum(1) for b, (a, _) in enumerate(base_real())])
    agree = bool(np.allclose(ours().numpy(), g_ref, rtol=1e-9, atol=1e-9))
    return BenchResult(f"soft-DTW forward+backward, {n} pairs of length {T}", t_ours, t_base,
                       "tslearn soft_dtw_alignment (forward + alignment matrix)", ">= as fast as tslearn",
                       t_ours <= t_base, note=f"gradients agree (1e-9): {agree}; torch threads: "
                       f"{torch.get_num_threads()}; best of 5 (ours) and 3 (tslearn) runs")
