r"""Evaluation in the digit world: exact match of greedy decoding (the paper's pass@1, at most ``L + 1`` new
tokens), batched, per group of items, with binomial intervals.

:func:`greedy_exact` decodes up to ``max_batch`` items of every prompt length in one call of
:func:`icmlbook.lm.generate` (right-padded prompts with their lengths: each row continues at its own positions in
a preallocated KV cache and never attends to padding), and calls an item right when its first ``L`` new tokens are
its answer and the next one is ``<eos>`` (so row i decodes ``L_i + 1`` tokens and is not computed further). :func:`greedy_exact_one_by_one`
is the same decision item by item (the benchmark's reference; the two agree exactly, tested).
:func:`wilson_interval` is the binomial interval the tables print.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping

import numpy as np
import torch
from scipy import stats

from ...lm import generate
from .digits import DigitBatch, DigitVocab, EncodedBatch

__all__ = ["greedy_exact", "greedy_exact_one_by_one", "decode_answers", "wilson_interval", "Accuracy", "accuracy_of",
           "evaluate_sets"]


def _check_encoded(e: EncodedBatch, batch: DigitBatch) -> None:
    if e.ids.shape[0] != len(batch):
        raise ValueError(f"the encoder returned {e.ids.shape[0]} rows for {len(batch)} items")


@torch.no_grad()
def greedy_exact(model, batch: DigitBatch, encode_fn: Callable[..., EncodedBatch], vocab: DigitVocab,
                 zeroed=(), max_batch: int = 512) -> np.ndarray:
    """Per item, whether greedy decoding after ``=`` gives exactly the answer and then ``<eos>`` (bool (n,)).

    ``encode_fn(batch, answer=False)`` writes the prompts (with the method's skill tokens or prefix); ``zeroed``
    ids get logit 0 (skill tokens of a tied head)."""
    n = len(batch)
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    e = encode_fn(batch, answer=False)
    _check_encoded(e, batch)
    plen = e.prompt_len.numpy()
    order = np.argsort(plen, kind="stable")          # chunks of similar prompt lengths (pad the least)
    was = model.training
    model.eval()
    try:
        for start in range(0, n, max_batch):
            rows = order[start:start + max_batch]
            L = batch.lengths[rows]
            P = int(plen[rows].max())
            prompts = e.ids[torch.as_tensor(rows), :P]
            gen = generate(model, prompts, int(L.max()) + 1, zeroed=zeroed, stop=(vocab.eos,), pad_id=vocab.pad,
                           prompt_lens=torch.as_tensor(plen[rows]), max_new_per_row=torch.as_tensor(L + 1)).numpy()
            out[rows] = _judge(gen, batch.select(rows), vocab)
    finally:
        model.train(was)
    return out


def _judge(gen: np.ndarray, batch: DigitBatch, vocab: DigitVocab) -> np.ndarray:
    """Row i is right when gen[i, :L_i] are the answer's digits and gen[i, L_i] is <eos>."""
    digits = vocab.digits_of(gen)
    L = batch.lengths
    width = batch.results.shape[1]
    j = np.arange(min(width, digits.shape[1]))[None, :]
    valid = j < L[:, None]
    same = np.where(valid, digits[:, :j.shape[1]] == batch.results[:, :j.shape[1]], True).all(axis=1)
    eos = gen[np.arange(len(batch)), L] == vocab.eos
    return same & eos


@torch.no_grad()
def greedy_exact_one_by_one(model, batch: DigitBatch, encode_fn: Callable[..., EncodedBatch], vocab: DigitVocab,
                            zeroed=()) -> np.ndarray:
    """:func:`greedy_exact` one item at a time (no batching; the benchmark's reference)."""
    out = np.zeros(len(batch), dtype=bool)
    for i in range(len(batch)):
        one = batch.select([i])
        e = encode_fn(one, answer=False)
        L = int(one.lengths[0])
        gen = generate(model, e.ids[:, :int(e.prompt_len[0])], L + 1, zeroed=zeroed, stop=(vocab.eos,),
                       pad_id=vocab.pad).numpy()
        out[i] = _judge(gen, one, vocab)[0]
    return out


@torch.no_grad()
def decode_answers(model, batch: DigitBatch, encode_fn: Callable[..., EncodedBatch], vocab: DigitVocab,
                   zeroed=()) -> list[str]:
    """The greedy continuation of each item up to ``<eos>`` as text (digits; any other token shown as ``?``)."""
    out = []
    for i in range(len(batch)):
        one = batch.select([i])
        e = encode_fn(one, answer=False)
        L = int(one.lengths[0])
        gen = generate(model, e.ids[:, :int(e.prompt_len[0])], L + 1, zeroed=zeroed, stop=(vocab.eos,),
                       pad_id=vocab.pad).numpy()[0]
        text = []
        for tok in gen:
            if tok == vocab.eos:
                break
            d = vocab.digits_of(np.array([tok]))[0]
            text.append(str(d) if d >= 0 else "?")
        out.append("".join(text))
    return out


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``k / n`` (``scipy.stats.binomtest``)."""
    if n <= 0:
        return (0.0, 1.0)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


@dataclasses.dataclass(frozen=True)
class Accuracy:
    """``k`` right of ``n`` with the Wilson interval."""

    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.k, self.n)

    def text(self) -> str:
        lo, hi = self.interval
        return f"{self.value:.3f} [{lo:.2f}, {hi:.2f}] (n = {self.n})"


def accuracy_of(right: np.ndarray) -> Accuracy:
    right = np.asarray(right, dtype=bool)
    return Accuracy(int(right.sum()), int(right.size))


def evaluate_sets(model, sets: Mapping, encode_fn: Callable[..., EncodedBatch], vocab: DigitVocab,
                  zeroed=()) -> dict:
    """Greedy exact match of every set in ``sets`` (key -> DigitBatch), all decoded in one batched pass; returns
    key -> bool array of its items."""
    keys = list(sets)
    if not keys:
        return {}
    merged = DigitBatch.concat([sets[k] for k in keys])
    right = greedy_exact(model, merged, encode_fn, vocab, zeroed)
    out, start = {}, 0
    for k in keys:
        n = len(sets[k])
        out[k] = right[start:start + n]
        start += n
    return out
