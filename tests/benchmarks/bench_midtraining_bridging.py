"""Benchmarks of the midtraining chapter: tokens per second of four branches that share a start step trained as
one stacked model (``torch.func.functional_call`` under ``vmap`` over stacked weights, one AdamW over the stacked
tensors) against the same four trained one after another (target >= 1.5x at the default size; the chapter keeps
the sequential path when it is missed), and the similarity study of the default corpora (n-grams 1..10, LSA and
MiniLM-L6, 100 bootstrap draws; target <= 20 s: it was 10 s before MiniLM was added). Measured in one run, one thread."""

from __future__ import annotations

import copy

import torch
from torch.func import functional_call, grad_and_value, vmap

from icmlbook.lm import GPT, GPTConfig, lm_loss
from icmlbook.papers import midtraining_bridging as mb
from icmlbook.runtime.device import cpu_threads

from .common import BenchResult, best_time

N_BRANCH, STEPS = 4, 5


def _models(cfg):
    torch.manual_seed(0)
    base = GPT(GPTConfig(vocab_size=cfg.vocab_size + 3, n_layer=cfg.n_layer, d_model=cfg.d_model, n_head=cfg.n_head,
                         max_len=cfg.seq_len))
    return [copy.deepcopy(base) for _ in range(N_BRANCH)]


def bench_stacked_branches_vs_sequential() -> BenchResult:
    cfg = mb.config_for("default")
    V = cfg.vocab_size + 3
    g = torch.Generator().manual_seed(0)
    # one batch per update, shared by the four branches: the GPT's input check reads the token ids (.min()/.max()),
    # which vmap cannot batch, so the data stay unbatched; the work per update is the same as with four batches
    batches = torch.randint(0, V, (STEPS, cfg.batch, cfg.seq_len + 1), generator=g)
    models = _models(cfg)
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in models]

    def sequential():
        for t in range(STEPS):
            for m, o in zip(models, opts):
                b = batches[t]
                loss = lm_loss(m(b[:, :-1]), b[:, 1:])
                o.zero_grad()
                loss.backward()
                o.step()

    proto = _models(cfg)[0]
    stacked = {k: torch.stack([v.detach().clone() for _ in range(N_BRANCH)]).requires_grad_(False)
               for k, v in proto.named_parameters()}
    sopt = torch.optim.AdamW(list(stacked.values()), lr=1e-3)

    def one(params, b):
        return lm_loss(functional_call(proto, params, (b[:, :-1],)), b[:, 1:])

    step = vmap(grad_and_value(one), in_dims=(0, None))

    def stacked_run():
        for t in range(STEPS):
            grads, _ = step(stacked, batches[t])
            for k, p in stacked.items():
                p.grad = grads[k]
            sopt.step()

    with cpu_threads(1):
        base = best_time(sequential, repeat=2)
        ours = best_time(stacked_run, repeat=2)
    tokens = STEPS * N_BRANCH * cfg.batch * cfg.seq_len
    speed = base / ours
    return BenchResult(f"{N_BRANCH} branches x {STEPS} updates of {cfg.batch}x{cfg.seq_len} tokens, "
                       f"{cfg.n_layer}x{cfg.d_model} GPT (stacked torch.func vs sequential)", ours, base,
                       "the four branches one after another", ">= 1.5x", speed >= 1.5,
                       note=f"{tokens / ours:,.0f} vs {tokens / base:,.0f} tokens/s; the chapter trains branches "
                            "sequentially (the simpler path) unless this target is met")


def bench_similarity_study() -> BenchResult:
    cfg = mb.config_for("default")
    c = mb.build_world(cfg, 0).corpora
    corpora = {"general": c.general_train, "code": c.mid["code"], "math": c.mid["math"],
               **{k: c.sft_train[k] + c.sft_val[k] for k in c.sft_train}}
    enc = mb.runner.encoder(cfg.embedding_dir)                      # loading the encoder is not timed
    with cpu_threads(1):
        ours = best_time(lambda: mb.similarity.similarity_study(corpora, cfg.sim_chars, cfg.ngram_max, cfg.lsa_dim,
                                                                10, cfg.sim_boot, 0, embedders=mb.similarity.EMBEDDERS,
                                                                encoder=enc, emb_chars=cfg.emb_chars), repeat=1)
    return BenchResult(f"similarity of 6 corpora x {cfg.sim_chars:,} chars, n = 1..{cfg.ngram_max}, {cfg.sim_boot} "
                       f"bootstrap draws, LSA and MiniLM-L6 ({cfg.emb_chars:,} chars per corpus)", ours, None, None,
                       "<= 20 s", ours <= 20.0)
