"""Benchmarks of the LOES chapter: greedy selection over L = 12 layers with n = 2000 calibration
examples and D = 1024 (the issue's target: seconds), against training the LOES head on the same task.

The comparison follows the paper's protocol (dossier section 3.4): the calibration set is 20 % of the
training set, so the head trains on 10,000 examples (20 epochs, batch 128, the image configs' recipe)
while the selector sees 2,000 of them. Run with every core of the machine as torch threads (what the
executor gives a chapter that runs alone); the thread count is printed with the result. The selection does
about 0.3 TFLOP of float64 matrix work at this size (Gram products, residualisations, cross-Gram
redundancies), so one core needs about twice the time of two."""

from __future__ import annotations

import os

import torch

from icmlbook.papers.loes_layer_geometry import loes_select, planted_stack, train_head
from icmlbook.runtime import cpu_threads

from .common import BenchResult, best_time

N_CAL, N_TRAIN, N_VAL, L, D = 2000, 10_000, 1000, 12, 1024


def bench_selection_vs_head_training() -> BenchResult:
    st = planted_stack(N_TRAIN + N_VAL, L, D, planted=[2, 6, 9], seed=0)
    cal = [x[:N_CAL] for x in st.layers]
    with cpu_threads(os.cpu_count() or 1):
        threads = torch.get_num_threads()
        sel = loes_select(cal, st.y[:N_CAL], 3, seed=0)             # timed inside: sel.seconds
    sel_time = sel.seconds
    tr, va = slice(0, N_TRAIN), slice(N_TRAIN, None)
    train = [x[tr] for x in st.layers]
    val = [x[va] for x in st.layers]
    head_time = best_time(lambda: train_head(train, st.y[tr], val, st.y[va], val, st.y[va], 8, layers=sel.layers,
                                             fused_width=128, epochs=20, batch_size=128), repeat=1)
    return BenchResult(f"LOES selection, L={L}, n_cal={N_CAL}, D={D}, k=3", sel_time, head_time,
                       f"LOES head training ({N_TRAIN} examples, 20 epochs)",
                       "selection < 10 s and faster than head training", bool(sel_time < 10 and sel_time < head_time),
                       note=f"layers {sel.layers} (planted [2, 6, 9]; the isotropy term decides at "
                       f"this width, see the chapter); selection threads: {threads}, head: 1")
