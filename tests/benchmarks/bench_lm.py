"""Calibration of the language-model lab: training tokens per second (AdamW, fp32, the shared trainer) of the
three standard sizes, 2x64 at context 32, 4x128 at 64 and 6x256 at 128 (layers x width; pre-RMSNorm, RoPE,
SwiGLU, head dimension 32, vocabulary 512, batch 8), at one torch thread and at every core. These numbers set
the LM chapters' budgets; there is no pass/fail target, the rule-of-thumb FLOP rate is printed beside them."""

from __future__ import annotations

import os

from icmlbook.lm import STANDARD_SIZES, GPTConfig, measure_throughput
from icmlbook.runtime import cpu_threads

from .common import BenchResult


def _bench(threads: int) -> list[BenchResult]:
    out = []
    with cpu_threads(threads):
        for L, d, T in STANDARD_SIZES:
            cfg = GPTConfig(vocab_size=512, n_layer=L, d_model=d, d_head=32, max_len=T)
            r = measure_throughput(cfg, batch=8, seq_len=T, steps=8, warmup=2)
            out.append(BenchResult(f"GPT {L}x{d}, T={T}, batch 8, {threads} thread(s)", r.seconds_per_step,
                                   note=f"{r.tokens_per_second:,.0f} tokens/s; {r.non_embedding_parameters:,} "
                                        f"non-embedding parameters; ~{r.achieved_gflops:.2f} GFLOP/s (6N + 12LdT)"))
    return out


def bench_lm_calibration_one_thread() -> BenchResult:
    rows = _bench(1)
    return BenchResult(" | ".join(r.name for r in rows), sum(r.ours_seconds for r in rows),
                       note=" | ".join(r.note for r in rows))


def bench_lm_calibration_all_cores() -> BenchResult:
    rows = _bench(os.cpu_count() or 1)
    return BenchResult(" | ".join(r.name for r in rows), sum(r.ours_seconds for r in rows),
                       note=" | ".join(r.note for r in rows))
