"""Benchmarks of the pgf_trie_causal chapter: the sampler (target: >= 1e6 samples of a 10-node graph
per second on one core, against numpy's own Poisson/binomial samplers) and the enumeration of the
400 local structures (target: <= 30 s, then cached)."""

from __future__ import annotations

import time

import numpy as np

from tests.benchmarks.common import BenchResult, best_time


def _numpy_sampler(model, n, gen):
    x = np.empty((model.p, n), dtype=np.int64)
    for v in model.topological_order:
        col = gen.poisson(model.mu[v], n)
        for u in model.parents(v):
            col += gen.binomial(x[u], model.alpha[u, v])
        x[v] = col
    return x[model.observed_index].T


def bench_sampler_10_nodes():
    from icmlbook.papers.pgf_trie_causal import random_lc_pbscm

    model = random_lc_pbscm(10, 1.5, 2, 0, alpha_range=(0.1, 0.5), mu_range=(1.0, 3.0))
    n = 1_000_000
    ours = best_time(lambda: model.sample(n, 1), repeat=3)
    gen = np.random.default_rng(2)
    base = best_time(lambda: _numpy_sampler(model, n, gen), repeat=2)
    rate = n / ours
    return BenchResult("sampler: 1e6 samples, 10 observed + 2 latent nodes", ours, base,
                       "numpy Generator.poisson/binomial loop", ">= 1e6 samples/s on one core",
                       bool(rate >= 1e6), f"{rate / 1e6:.2f}M samples/s (PB-SCM rates U(1,3), 20 edges)")


def bench_enumeration():
    from icmlbook.papers.pgf_trie_causal import build_identifiability_table

    t0 = time.perf_counter()
    table = build_identifiability_table("sympy")
    secs = time.perf_counter() - t0
    c = table.counts()
    return BenchResult("enumeration: 400 local structures (sympy, uncached)", secs, None, None, "<= 30 s",
                       bool(secs <= 30), f"{c['classes']} classes, {c['singletons']} singletons")
