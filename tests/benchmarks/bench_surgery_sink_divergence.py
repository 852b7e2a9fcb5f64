"""Benchmarks of the Surgery chapter: the vectorised sink statistics over 2,000 sequences in one batched pass
(target <= 5 s) against a per-sequence loop, and seconds per Surgery update against an SFT update on the default
model (target <= 2x; the paper calls its overhead low), measured in one run, interleaved."""

from __future__ import annotations

import numpy as np
import torch

from icmlbook.lm import GPT
from icmlbook.papers import surgery_sink_divergence as ss
from icmlbook.papers.surgery_sink_divergence import world as W
from icmlbook.runtime.device import cpu_threads

from .common import BenchResult, best_time


def _default_model_and_texts(n: int = 2000):
    cfg = ss.config_for("default")
    tok = W.make_tokenizer()
    w = W.build_world(0, n_pool=n // 2, n_heldout=10, n_eval=10, n_fa=10)
    ts = W.encode_texts(tok, w.pool_disclose + w.pool_refuse)
    torch.manual_seed(0)
    return cfg, GPT(ss.model_config(cfg, tok.vocab_size)), ts


def bench_sink_statistics_batched_vs_loop() -> BenchResult:
    cfg, model, ts = _default_model_and_texts()

    def batched():
        return ss.model_sink_attention(model, ts.tokens, ts.lengths, sink=0, batch=500)

    def loop():
        return torch.cat([ss.model_sink_attention(model, ts.tokens[i:i + 1, : int(ts.lengths[i])], ts.lengths[i:i + 1])
                          for i in range(len(ts))])

    with cpu_threads(1):
        ours = best_time(batched, repeat=3)
        base = best_time(loop, repeat=1)
        agree = bool(torch.allclose(batched(), loop(), atol=1e-5))
    return BenchResult(f"sink attention of {len(ts)} texts, {cfg.n_layer}x{cfg.n_head} heads (batched vs loop)", ours,
                       base, "one sequence at a time", "<= 5 s", ours <= 5.0, note=f"values agree: {agree}")


def bench_surgery_step_vs_sft_step() -> BenchResult:
    cfg = ss.config_for("default")
    world = ss.make_world(cfg, 0)
    wt = ss.world_tensors(world)
    tiny = ss.config_for("default", align_steps=20, align_warmup=2, align_texts=500)
    base = ss.align_base(tiny, 0, world)           # the timing needs the default model's shape, not a good model
    specs = {"sft": ss.FineTuneSpec("sft", cfg.p_main),
             "surgery": ss.FineTuneSpec("surgery", cfg.p_main, lam=cfg.lam)}
    t = ss.time_steps(cfg, base, wt, specs, 0, steps=30, repeats=5)
    ours, sft = float(np.median(t["surgery"])), float(np.median(t["sft"]))
    ratio = ours / sft
    return BenchResult(f"one update, batch {cfg.ft_batch} + 2 pool rows, {cfg.n_layer}x{cfg.d_model} GPT (Surgery vs SFT)",
                       ours, sft, "SFT update", "<= 2x the SFT update", ratio <= 2.0,
                       note=f"ratio {ratio:.2f} (median of 5 interleaved repeats of 30 updates)")
