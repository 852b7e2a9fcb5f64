"""Benchmarks of the VALUEFLOW chapter, measured in one run: HiVES updates per second on cached MiniLM embeddings
against the same update that runs MiniLM on the batch's texts (target >= 2x), and the anchored estimator scoring
10,000 items (k = 6, m = 10) vectorised across items against the per-item reference (scipy's brentq and
scikit-learn's isotonic regression; timed on 200 items and scaled; target >= 20x)."""

from __future__ import annotations

import time

import numpy as np
import torch

from icmlbook.papers import valueflow as vf
from icmlbook.runtime.device import cpu_threads

from .common import BenchResult, best_time


def bench_hives_step_cached_vs_encoder() -> BenchResult:
    cfg = vf.config_for("default")
    corpus = vf.generate_corpus(4, 0)
    cache = vf.EmbeddingCache(cfg.max_length)
    x = torch.as_tensor(cache(corpus.texts))
    enc = cache._enc
    paths, dirs = torch.as_tensor(corpus.paths), torch.as_tensor(corpus.direction)
    index = vf.GroupIndex(corpus)
    head = vf.ResidualHead()
    opt = torch.optim.Adam(head.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)

    def step(from_cache: bool):
        b = vf.stage1_batch(index, cfg.hives_batch, rng)
        xb = x[b] if from_cache else torch.as_tensor(enc.encode([corpus.texts[i] for i in b], cfg.max_length))
        loss = vf.hier_supcon_loss(head(xb), paths[b], dirs[b])
        opt.zero_grad()
        loss.backward()
        opt.step()

    def steps(from_cache: bool, n: int = 20):
        for _ in range(n):
            step(from_cache)

    with cpu_threads(1):
        ours = best_time(lambda: steps(True), repeat=3) / 20
        base = best_time(lambda: steps(False), repeat=2) / 20
    speed = base / ours
    return BenchResult(f"one HiVES update, batch {cfg.hives_batch} (cached embeddings vs MiniLM in the loop)", ours, base,
                       "MiniLM forward on every batch", ">= 2x", speed >= 2.0, note=f"{speed:.0f}x")


def bench_anchored_estimator_vectorised_vs_loop() -> BenchResult:
    rng = np.random.default_rng(0)
    n, m, k = 10_000, 10, 6
    pool = rng.uniform(-10, 10, 500)
    idx, _ = vf.bucket_anchors(pool, n, m, k, rng)
    lat = rng.uniform(-10, 10, n)
    full = np.concatenate([np.broadcast_to(lat[:, None, None], (n, m, 1)), pool[idx]], -1)
    pos = vf.SimulatedJudge(1.5).rank(full, rng)
    aI = pool[idx]
    with cpu_threads(1):
        ours = best_time(lambda: vf.anchored_estimate(pos, aI), repeat=2)
        t0 = time.perf_counter()
        ref = vf.anchored_estimate_loop(pos[:200], aI[:200])
        base = (time.perf_counter() - t0) * n / 200
    agree = float(np.abs(vf.anchored_estimate(pos[:200], aI[:200]).estimate - ref).max())
    speed = base / ours
    return BenchResult(f"anchored estimator, {n:,} items, k = {k}, m = {m} (vectorised vs per item)", ours, base,
                       "per-item brentq + isotonic (200 items, scaled)", ">= 20x", speed >= 20.0,
                       note=f"{speed:.0f}x; largest difference {agree:.1e}")
