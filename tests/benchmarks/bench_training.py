"""Benchmark of the shared trainer: its loop (schedule, clipping, loss logging every step, a progress bar)
against a bare loop doing the same arithmetic by hand, on a small MLP regression with AdamW (target: the
trainer keeps >= 0.95x the bare loop's throughput). The two are timed alternately, best of several repeats."""

from __future__ import annotations

import torch
from torch import nn

from icmlbook.training import LossLogger, Trainer, TrainerConfig, WarmupCosine

from .common import BenchResult, best_time

WIDTH, BATCH, STEPS = 256, 128, 150


def _setup():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.GELU(), nn.Linear(WIDTH, WIDTH), nn.GELU(), nn.Linear(WIDTH, 1))
    x = torch.randn(BATCH * 8, 64)
    y = torch.randn(BATCH * 8, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    return model, opt, x, y


SCHEDULE = WarmupCosine(warmup=10, total=STEPS, final=0.1)


def _batch(x, y, i):
    s = (i % 8) * BATCH
    return x[s:s + BATCH], y[s:s + BATCH]


def bare_loop():
    model, opt, x, y = _setup()
    losses = []
    for t in range(STEPS):
        for g in opt.param_groups:
            g["lr"] = 1e-3 * SCHEDULE(t)
        opt.zero_grad(set_to_none=True)
        xb, yb = _batch(x, y, t)
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


def trainer_loop():
    model, opt, x, y = _setup()
    cfg = TrainerConfig(steps=STEPS, schedule=SCHEDULE, grad_clip=1.0, device="cpu", show_progress=True,
                        desc="bench")
    tr = Trainer(model, opt, lambda m, b: nn.functional.mse_loss(m(b[0]), b[1]), lambda i, g: _batch(x, y, i), cfg,
                 [LossLogger(every=1)])
    tr.run()
    return tr.history("loss")[1]


def bench_trainer_vs_bare_loop() -> BenchResult:
    ours, base = float("inf"), float("inf")
    for _ in range(4):  # alternate, so drifting load on a shared machine hits both alike
        base = min(base, best_time(bare_loop, repeat=1))
        ours = min(ours, best_time(trainer_loop, repeat=1))
    same = bool((bare_loop().double().numpy() == trainer_loop()).all())
    ratio = base / ours
    tokens = STEPS * BATCH
    return BenchResult(f"trainer vs bare loop, MLP width {WIDTH}, {STEPS} AdamW steps", ours, base, "bare loop",
                       ">= 0.95x the bare loop's throughput", ratio >= 0.95,
                       note=f"throughput ratio {ratio:.3f} ({tokens / ours:,.0f} vs {tokens / base:,.0f} examples/s); "
                            f"identical losses: {same}")
