"""Benchmarks of the LOES chapter: greedy selection over L = 12 layers with n = 2000 calibration
examples and D = 1024 (the issue's target: seconds), against training the LOES head on the same data.

Run with every core of the machine as torch threads (what the executor gives a chapter that runs alone);
the thread count is printed with the result. The selection does about 0.4 TFLOP of float64 matrix work at
this size (Gram products, residualisations, cross-Gram redundancies), so one core needs about twice the
time of two."""

from __future__ import annotations

import os

import torch

from icmlbook.loes_layer_geometry import loes_select, planted_stack, train_head

from .common import BenchResult, best_time


def bench_selection_vs_head_training() -> BenchResult:
    torch.set_num_threads(os.cpu_count() or 1)
    st = planted_stack(2000, 12, 1024, planted=[2, 6, 9], seed=0)
    sel_time = best_time(lambda: loes_select(st.layers, st.y, 3, seed=0), repeat=1)
    sel = loes_select(st.layers, st.y, 3, seed=0)
    layers = [st.layers[l] for l in range(12)]
    n = 1400
    tr, va = slice(0, n), slice(n, None)
    head_time = best_time(lambda: train_head([x[tr] for x in layers], st.y[tr], [x[va] for x in layers], st.y[va],
                                             [x[va] for x in layers], st.y[va], 8, layers=sel.layers, fused_width=128,
                                             epochs=20, batch_size=64), repeat=1)
    return BenchResult("LOES selection, L=12, n=2000, D=1024, k=3", sel_time, head_time, "LOES head training (20 epochs)",
                       "selection < 10 s and faster than head training", bool(sel_time < 10 and sel_time < head_time),
                       note=f"layers {sel.layers}; torch threads: {torch.get_num_threads()}")
