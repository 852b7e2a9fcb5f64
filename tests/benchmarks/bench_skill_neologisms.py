"""Benchmarks of the skill-neologisms chapter, measured in one run: batched greedy decoding of the default
profile's partner test sets against one item at a time (target: at least 20x faster), and the default profile's
whole evaluation of one unit (every set a method is scored on) in under a minute.

The model is a default-sized base at its initialisation with a neologism attached: decoding cost does not depend on
the weights' values (every item is decoded to its full length; no early stop is taken by the timing). Both sides
decode with the lab's ``generate`` and its preallocated KV cache: the reference calls it once per item, the batched
side once for all items (prompts of every length together, each item for its own ``L + 1`` tokens). At
initialisation no item is right, so equal decisions say little: the tokens themselves are compared too."""

from __future__ import annotations

import time

import numpy as np
import torch

from icmlbook.lm import generate
from icmlbook.papers.skill_neologisms import config_for, digits as D, evaluate as E, experiments as ex
from icmlbook.papers.skill_neologisms.skills import Skill, SkilledLM, init_rows
from icmlbook.papers.skill_neologisms.training import BaseModel, build_gpt
from icmlbook.runtime import cpu_threads

from .common import BenchResult, best_wall_and_cpu


def _best(fn, repeat: int) -> tuple[float, float]:
    return best_wall_and_cpu(fn, repeat, time.process_time)


def _setup():
    cfg = config_for("default")
    v = ex.vocab()
    torch.manual_seed(0)
    g = build_gpt(v, cfg.d_model, cfg.n_layer, cfg.n_head).eval()
    skill, t = cfg.skills[0], cfg.test_ops[0]
    m = SkilledLM(g, [Skill(skill, init_rows(g, v, cfg.ell))])
    sets = D.partner_test_sets(np.random.default_rng(0), skill, t, cfg.others(t), cfg.all_lengths, cfg.n_per_group,
                               ks=cfg.partner_ks)
    items = D.DigitBatch.concat(list(sets.values()))
    enc = lambda b, answer=True: m.encode(b, v, answer)  # noqa: E731
    return cfg, g, m, items, enc, v


def _same_tokens(m, items, enc, v) -> bool:
    """Whether one batched call (all prompt lengths, ``L + 1`` tokens per item) gives every item the tokens that
    decoding it alone gives."""
    e = enc(items, answer=False)
    L = torch.as_tensor(items.lengths)
    n = int(L.max()) + 1
    together = generate(m, e.ids, n, zeroed=m.new_ids, stop=(v.eos,), pad_id=v.pad, prompt_lens=e.prompt_len,
                        max_new_per_row=L + 1)
    for i in range(len(items)):
        alone = generate(m, e.ids[i:i + 1, :int(e.prompt_len[i])], int(L[i]) + 1, zeroed=m.new_ids,
                         stop=(v.eos,), pad_id=v.pad)[0]
        if not torch.equal(together[i, :int(L[i]) + 1], alone) or bool((together[i, int(L[i]) + 1:] != v.pad).any()):
            return False
    return True


def bench_batched_greedy_vs_one_at_a_time() -> BenchResult:
    cfg, _, m, items, enc, v = _setup()
    with cpu_threads(1):
        ours, ours_cpu = _best(lambda: E.greedy_exact(m, items, enc, v, m.new_ids), repeat=3)
        base, base_cpu = _best(lambda: E.greedy_exact_one_by_one(m, items, enc, v, m.new_ids), repeat=1)
        same = bool(np.array_equal(E.greedy_exact(m, items, enc, v, m.new_ids),
                                   E.greedy_exact_one_by_one(m, items, enc, v, m.new_ids)))
        same_tokens = _same_tokens(m, items, enc, v)
    speedup = base / ours
    return BenchResult(f"greedy decoding of the default partner test ({len(items)} items, one thread)", ours, base,
                       "one item at a time", ">= 20x faster", speedup >= 20,
                       note=f"same decisions: {same}; same tokens: {same_tokens}; CPU time {ours_cpu:.3f} s vs {base_cpu:.2f} s "
                            f"({base_cpu / ours_cpu:.1f}x)")


def bench_default_evaluation() -> BenchResult:
    """The default profile's whole evaluation, projected from one unit: every set a unit is scored on (validation,
    held-out lengths, original operations: teacher-forced exact match; the partner test: batched greedy decoding),
    times the units of a default run (grid methods, the frozen base, ablations, the oracle), on one thread. Target:
    under a minute."""
    cfg, g, _, _, _, _ = _setup()
    base = BaseModel(g.cfg, {k: v.clone() for k, v in g.state_dict().items()}, cfg.pretrain_ops, np.zeros(0),
                     np.zeros(0), 0.0)
    with cpu_threads(1):
        t, t_cpu = _best(lambda: ex.evaluate_unit(cfg, base, 0, cfg.skills[0], cfg.test_ops[0], "neologism",
                                                  trained=False), repeat=2)
    per_study = len(cfg.test_ops) * 5 + 1 + (len(cfg.ablation_ells) - 1) + int(cfg.ablation_random_init) + sum(
        1 for c in cfg.ablation_corrupt if c > 0)
    n_units = per_study * len(cfg.skills) * cfg.n_seeds + (len(cfg.skills) * len(cfg.test_ops) if cfg.oracle else 0)
    total = t * n_units
    return BenchResult(f"the default run's evaluation: {n_units} units x one unit's sets", total, None, None,
                       "< 60 s", total < 60, note=f"one unit: {t:.2f} s; CPU time {t_cpu:.2f} s per unit, "
                                                  f"{t_cpu * n_units:.1f} s in all")
