"""Benchmarks of the trojan_speak_probes chapter, at the default model size (random weights: the cost does not
depend on training):

- batched generation of 2,000 answers with capture at every layer and site, against the same generation without
  capture (target: at most 1.3x its time);
- capture of every site in one teacher-forced pass, against one pass per site (the naive extraction);
- every probe of one seed (layers x sites x {mean pooling, per-token}) fitted on 1,000 answers (target: <= 30 s).
"""

from __future__ import annotations

import numpy as np
import torch

from icmlbook.papers.trojan_speak_probes import capture, config_for, lm, probes, world
from icmlbook.runtime import cpu_threads

from .common import BenchResult, best_time


def _setup(n: int = 2000):
    cfg = config_for("default")
    w = world.World(cfg.arith_max)
    tok = lm.make_tokenizer(cfg.tokenizer, w, cfg.bpe_vocab)
    codec = lm.DialogueCodec(tok, w, cfg.prompt_width, cfg.answer_width)
    torch.manual_seed(0)
    model = lm.build_model(tok.vocab_size, cfg.n_layer, cfg.d_model, cfg.n_head, codec.width).eval()
    ds = w.draw(n, np.random.default_rng(0), free_fraction=0.3)
    prompts = codec.prompts([w.render(d, "codebook")[0] for d in ds], ["codebook"] * n)
    return cfg, codec, model, prompts


def bench_generation_with_capture() -> BenchResult:
    cfg, codec, model, prompts = _setup()
    sites = capture.all_sites(cfg.n_layer)

    def run(cap):
        with torch.no_grad(), cpu_threads(1):
            return capture.generate_with_capture(model, prompts, cfg.answer_width, sites=sites, eos=codec.eos,
                                                 pad=codec.pad, temperature=1.0,
                                                 generator=torch.Generator().manual_seed(0), capture=cap)
    ours = best_time(lambda: run(True), repeat=2)
    base = best_time(lambda: run(False), repeat=2)
    ratio = ours / base
    return BenchResult(f"generate 2,000 answers, capture {len(sites)} sites (vs no capture)", ours, base,
                       "generation without capture", "<= 1.3x the time without capture", ratio <= 1.3,
                       note=f"{ratio:.2f}x")


def bench_all_sites_one_pass() -> BenchResult:
    cfg, codec, model, prompts = _setup()
    sites = capture.all_sites(cfg.n_layer)
    toks = torch.randint(0, 200, (prompts.shape[0], cfg.answer_width))

    def all_at_once():
        with cpu_threads(1):
            return capture.capture_teacher_forced(model, prompts, toks, sites=sites, eos=codec.eos)

    def one_by_one():
        with cpu_threads(1):
            return [capture.capture_teacher_forced(model, prompts, toks, sites=[s], eos=codec.eos) for s in sites]
    ours = best_time(all_at_once, repeat=2)
    base = best_time(one_by_one, repeat=1)
    return BenchResult(f"activations of 2,000 answers at {len(sites)} sites: one pass (vs one pass per site)", ours,
                       base, "one pass per site", note=f"{base / ours:.1f}x faster")


def bench_all_probes_of_a_seed() -> BenchResult:
    cfg, codec, model, prompts = _setup(1000)
    sites = capture.all_sites(cfg.n_layer)
    with torch.no_grad(), cpu_threads(1):
        cap = capture.generate_with_capture(model, prompts, cfg.answer_width, sites=sites, eos=codec.eos,
                                            pad=codec.pad, temperature=1.0, generator=torch.Generator().manual_seed(0))
    pooled = capture.mean_pool(cap.acts, cap.mask)
    y = np.random.default_rng(0).random(prompts.shape[0]) < 1 / 6
    tokens = cap.acts[cap.mask].numpy()
    y_tok = np.repeat(y, cap.mask.sum(1).numpy())
    rows = np.random.default_rng(1).choice(tokens.shape[0], min(cfg.token_fit_rows, tokens.shape[0]), replace=False)

    def fit_all():
        for s in range(len(sites)):
            probes.fit_probe(pooled[:, s], y, C=cfg.probe_C)
            probes.fit_probe(tokens[rows, s], y_tok[rows], C=cfg.probe_C)
    t = best_time(fit_all, repeat=1)
    return BenchResult(f"{2 * len(sites)} probes ({len(sites)} sites x mean/per-token) on 1,000 answers", t,
                       target="<= 30 s", met=t <= 30)
