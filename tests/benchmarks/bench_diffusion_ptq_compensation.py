"""Benchmarks of the TCEC chapter: the compensated quantised sampler against the uncompensated one over
50 DDIM steps on the 8×8 U-Net (target: < 1% extra time; the paper reports < 0.5% on Flux.1-dev with real
kernels), and 512 seeds sampled as one batch against 32 batches of 16 (target >= 3x)."""

from __future__ import annotations

import time

import numpy as np
import torch

from icmlbook.papers.diffusion_ptq_compensation import models as M
from icmlbook.papers.diffusion_ptq_compensation import propagation as P
from icmlbook.papers.diffusion_ptq_compensation import quant as Q
from icmlbook.papers.diffusion_ptq_compensation import schedules as S
from icmlbook.papers.diffusion_ptq_compensation import tcec as TC
from icmlbook.runtime import cpu_threads

from .common import BenchResult


def _setup(steps=50):
    torch.manual_seed(0)
    fp = M.TinyUNet(ch=32).eval()
    q = Q.quantize_model(fp, 4, 4)
    ab = S.alphas_bar(1000)
    ts = S.sampling_timesteps(1000, steps)
    a, b = S.step_coefficients("ddim", ab, ts)
    return q, ts, a, b


def bench_tcec_overhead() -> BenchResult:
    q, ts, a, b = _setup()
    K = torch.full((len(ts), 1), 0.05)
    xT = torch.randn(64, 1, 8, 8)
    base, comp = [], []
    with cpu_threads(1):
        for _ in range(5):                      # interleaved, so load changes hit both alike
            t0 = time.perf_counter()
            P.sample(q, xT, ts, a, b)
            t1 = time.perf_counter()
            TC.tcec_sample(q, xT, ts, a, b, K, 1, 0.25, R=0.2 * K)
            t2 = time.perf_counter()
            base.append(t1 - t0)
            comp.append(t2 - t1)
    rel = float(np.median(np.array(comp) / np.array(base) - 1))
    return BenchResult("TCEC (m=1), 50 DDIM steps, W4A4 U-Net, 64 images, 1 core", float(np.median(comp)),
                       float(np.median(base)), baseline="the uncompensated sampler", target="< 1% extra time",
                       met=rel < 0.01, note=f"median overhead {rel:+.2%}")


def bench_batched_seeds() -> BenchResult:
    q, ts, a, b = _setup(10)
    xT = torch.randn(512, 1, 8, 8)
    with cpu_threads(2):
        t0 = time.perf_counter()
        P.sample(q, xT, ts, a, b)
        t1 = time.perf_counter()
        for i in range(32):
            P.sample(q, xT[16 * i:16 * (i + 1)], ts, a, b)
        t2 = time.perf_counter()
    return BenchResult("512 seeds as one batch (10 steps, W4A4 U-Net)", t1 - t0, t2 - t1, baseline="32 batches of 16",
                       target=">= 3x faster", met=(t2 - t1) / (t1 - t0) >= 3)


def bench_tcec_overhead_dpmpp2m() -> BenchResult:
    """The same overhead on DPM-Solver++(2M), where the carried term uses the two-step weights."""
    q, _, _, _ = _setup()
    ts, a, b, c, d = S.solver_coefficients("dpmpp2m", 1000, 50)
    K = torch.full((len(ts), 1), 0.05)
    xT = torch.randn(64, 1, 8, 8)
    base, comp = [], []
    with cpu_threads(1):
        for _ in range(5):
            t0 = time.perf_counter()
            P.sample(q, xT, ts, a, b, c=c, d=d)
            t1 = time.perf_counter()
            TC.tcec_sample(q, xT, ts, a, b, K, 1, 0.25, c, d, 0.2 * K)
            t2 = time.perf_counter()
            base.append(t1 - t0)
            comp.append(t2 - t1)
    rel = float(np.median(np.array(comp) / np.array(base) - 1))
    return BenchResult("TCEC (m=1), 50 DPM-Solver++(2M) steps, W4A4 U-Net, 64 images, 1 core", float(np.median(comp)),
                       float(np.median(base)), baseline="the uncompensated sampler", target="< 1% extra time",
                       met=rel < 0.01, note=f"median overhead {rel:+.2%}")
