"""A fixed reference workload timed beside every chapter row, so that rows measured on different days can be
compared: this machine's speed varies from day to day (session 13: the same chapter at the same commit took 99.7 s
of CPU one day and 197 s the next; session 14: 157 s), so a CPU time alone does not say whether the chapter or
the machine changed.

The workload is what the chapters spend their time on, small: a few hundred Adam steps of a small MLP in torch
(float32, one thread: the book's trainers), a batch of FFTs and sorts in numpy, and a Python loop. Its work is
fixed (a seed, fixed sizes), its result a checksum that the same seed repeats; its time is the best CPU time of
``repeat`` runs on the calling thread (one thread, as ``make book`` runs a chapter)."""

from __future__ import annotations

import time

import numpy as np


def reference_workload(seed: int = 0) -> float:
    """One run of the workload; returns a checksum of its results (the same for the same seed)."""
    import torch

    from icmlbook.runtime.device import cpu_threads

    with cpu_threads(1):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(512, 32, generator=g)
        y = torch.sin(x[:, :1] * 3) + x[:, 1:2] ** 2
        net = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.GELU(), torch.nn.Linear(128, 128),
                                  torch.nn.GELU(), torch.nn.Linear(128, 1))
        torch.manual_seed(seed)
        for p in net.parameters():
            torch.nn.init.normal_(p, std=0.05, generator=g)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        for _ in range(300):
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, 4096))
    spec = np.abs(np.fft.rfft(a, axis=1)).sum()
    srt = np.sort(a, axis=1)[:, 2048].sum()
    acc = 0
    for i in range(200_000):
        acc = (acc * 31 + i) % 1_000_003
    return float(loss.item()) + float(spec) * 1e-9 + float(srt) * 1e-6 + acc * 1e-12


def reference_seconds(repeat: int = 3) -> float:
    """The best CPU time (seconds, this thread) of ``repeat`` runs of :func:`reference_workload`."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat={repeat!r} is not allowed; it must be an integer >= 1")
    best = float("inf")
    for _ in range(repeat):
        t = time.thread_time()
        reference_workload()
        best = min(best, time.thread_time() - t)
    return best
