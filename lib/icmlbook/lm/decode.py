"""Batched decoding: greedy or sampled, with a KV cache, stop tokens and banned tokens.

``generate(model, prompts, max_new_tokens)`` continues every row of ``prompts`` (B, T) (rows of one length, or
right-padded rows of the lengths ``prompt_lens``; :func:`generate_texts` groups prompts of different lengths).
Each step feeds only the new token when ``use_cache`` (the keys and values of the past stay in a preallocated
:class:`~icmlbook.lm.model.KVCache`, written in place), or the whole sequence again otherwise; both give the
same tokens (the preallocated cache gives the very numbers of one grown by concatenation, tested). With
``prompt_lens`` (greedy, with a cache) all rows decode together, each at its own positions (the cache's per-row
lengths), and ``max_new_per_row`` drops a row from the batch once it has its tokens; otherwise the rows are grouped
by length. ``temperature=0`` is greedy (argmax; ties to the lowest id), otherwise tokens are drawn from
softmax(logits / temperature), optionally restricted to the ``top_k`` largest, with ``generator``. ``banned`` ids get probability zero (e.g. skill tokens that must not be emitted).
``zeroed`` ids get the logit 0, what a tied head gives for rows of the unembedding set to zero (the skill-token
papers' way to keep a tied model from emitting its new tokens, without a hard ban).
A row that emits a ``stop`` id is finished: later positions hold ``pad_id``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import torch

from .model import KVCache

__all__ = ["generate", "generate_texts"]


@torch.no_grad()
def generate(model, prompts: torch.Tensor, max_new_tokens: int, *, temperature: float = 0.0,
             top_k: int | None = None, generator: torch.Generator | None = None, stop: Iterable[int] = (),
             banned: Iterable[int] = (), zeroed: Iterable[int] = (), pad_id: int = 0,
             use_cache: bool = True, prompt_lens=None, max_new_per_row=None) -> torch.Tensor:
    """Return the new tokens, (B, max_new_tokens) int64 (``pad_id`` after a row's stop token).

    ``prompt_lens`` (B,): row b's prompt is ``prompts[b, :prompt_lens[b]]`` (what follows is padding, never read);
    ``None``: every row is a whole prompt. ``max_new_per_row`` (B,), each in 0..max_new_tokens: row b gets that
    many tokens (``pad_id`` after), and with a cache and greedy decoding it is not computed any further."""
    if prompts.dim() != 2 or prompts.shape[1] < 1:
        raise ValueError(f"prompts must be (batch, time>=1) token ids; got shape {tuple(prompts.shape)}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens={max_new_tokens!r} is not allowed; it must be an integer >= 0")
    if temperature < 0:
        raise ValueError(f"temperature={temperature!r} is not allowed; it must be >= 0 (0 = greedy)")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k={top_k!r} is not allowed; it must be >= 1 or None")
    stop, banned, zeroed = tuple(stop), tuple(banned), tuple(zeroed)
    kwargs = dict(temperature=temperature, top_k=top_k, generator=generator, stop=stop, banned=banned,
                  zeroed=zeroed, pad_id=pad_id, use_cache=use_cache)
    budgets = None
    if max_new_per_row is not None:
        budgets = torch.as_tensor(max_new_per_row, dtype=torch.long).reshape(-1).to(prompts.device)
        if budgets.shape[0] != prompts.shape[0] or int(budgets.min()) < 0 or int(budgets.max()) > max_new_tokens:
            raise ValueError(f"max_new_per_row must give each of the {prompts.shape[0]} rows a number of tokens in "
                             f"0..{max_new_tokens}; got {budgets.tolist()}")
        if not (use_cache and hasattr(model, "blocks") and temperature == 0.0):
            out = generate(model, prompts, max_new_tokens, prompt_lens=prompt_lens, **kwargs)  # then cut each row
            return out.masked_fill(torch.arange(max_new_tokens, device=out.device)[None, :] >= budgets[:, None],
                                   pad_id)
    if prompt_lens is not None or budgets is not None:
        lens = torch.as_tensor(prompt_lens if prompt_lens is not None else [prompts.shape[1]] * prompts.shape[0],
                               dtype=torch.long).reshape(-1)
        if lens.shape[0] != prompts.shape[0] or int(lens.min()) < 1 or int(lens.max()) > prompts.shape[1]:
            raise ValueError(f"prompt_lens must give each of the {prompts.shape[0]} rows a length in "
                             f"1..{prompts.shape[1]}; got {lens.tolist()}")
        if budgets is None and bool((lens == prompts.shape[1]).all()):
            pass                                                  # one length: the plain path below
        elif use_cache and hasattr(model, "blocks") and temperature == 0.0:
            full = torch.full((prompts.shape[0],), max_new_tokens, dtype=torch.long, device=prompts.device)
            return _generate_ragged(model, prompts[:, :int(lens.max())], lens.to(prompts.device), max_new_tokens,
                                    full if budgets is None else budgets, **kwargs)
        else:                                                     # one call per length (the reference path)
            out = torch.full((prompts.shape[0], max_new_tokens), pad_id, dtype=torch.long, device=prompts.device)
            for P in torch.unique(lens).tolist():
                rows = torch.nonzero(lens == P).flatten().to(prompts.device)
                out[rows] = generate(model, prompts[rows, :P], max_new_tokens, **kwargs)
            return out
    was = model.training
    model.eval()
    B = prompts.shape[0]
    stop_ids = torch.tensor(sorted(set(int(s) for s in stop)), dtype=torch.long, device=prompts.device)
    banned_ids = sorted(set(int(b) for b in banned))
    zeroed_ids = sorted(set(int(z) for z in zeroed))
    out = torch.full((B, max_new_tokens), pad_id, dtype=torch.long, device=prompts.device)
    done = torch.zeros(B, dtype=torch.bool, device=prompts.device)
    cache = (KVCache(len(model.blocks), capacity=prompts.shape[1] + max_new_tokens)
             if use_cache and hasattr(model, "blocks") else None)
    seq = prompts
    feed = prompts
    try:
        for t in range(max_new_tokens):
            logits = model(feed, cache=cache) if cache is not None else model(seq)
            nxt = _pick(logits[:, -1, :], zeroed_ids, banned_ids, temperature, top_k, generator)
            out[:, t] = torch.where(done, torch.full_like(nxt, pad_id), nxt)
            if stop_ids.numel():
                done = done | torch.isin(nxt, stop_ids)
                if bool(done.all()):
                    break
            if cache is None:
                seq = torch.cat([seq, nxt[:, None]], dim=1)
            feed = nxt[:, None]
    finally:
        model.train(was)
    return out


def _pick(logits: torch.Tensor, zeroed_ids, banned_ids, temperature, top_k, generator) -> torch.Tensor:
    """The next token of each row from its last logits (B, V)."""
    logits = logits.float()
    if zeroed_ids:
        logits[:, zeroed_ids] = 0.0
    if banned_ids:
        logits[:, banned_ids] = float("-inf")
    if temperature == 0.0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(1)


def _generate_ragged(model, prompts: torch.Tensor, lens: torch.Tensor, max_new_tokens: int, budgets: torch.Tensor,
                     *, temperature, top_k, generator, stop, banned, zeroed, pad_id, use_cache) -> torch.Tensor:
    """Greedy decoding of right-padded prompts of lengths ``lens`` in one batch, row b for ``budgets[b]`` tokens.

    The rows are put in order of decreasing budget; the prompts of each length are prefilled together (no padding
    computed) into one preallocated cache; then all rows decode together, row b continuing at position ``lens[b]``
    and attending to its own positions only. At step t only the rows whose budget exceeds t are computed: they
    are a prefix of the cache's rows, so finished rows drop out without copying anything."""
    was = model.training
    model.eval()
    B, dev = prompts.shape[0], prompts.device
    stop_ids = torch.tensor(sorted(set(int(s) for s in stop)), dtype=torch.long, device=dev)
    banned_ids = sorted(set(int(b) for b in banned))
    zeroed_ids = sorted(set(int(z) for z in zeroed))
    out = torch.full((B, max_new_tokens), pad_id, dtype=torch.long, device=dev)
    if max_new_tokens == 0:
        return out
    perm = torch.argsort(-budgets, stable=True)                       # longest budgets first
    prompts, lens, budgets = prompts[perm], lens[perm], budgets[perm]
    active = [int((budgets > t).sum()) for t in range(max_new_tokens)]  # rows still decoding at step t (a prefix)
    res = torch.full((B, max_new_tokens), pad_id, dtype=torch.long, device=dev)
    done = torch.zeros(B, dtype=torch.bool, device=dev)
    cache = KVCache(len(model.blocks), capacity=int(lens.max()) + max_new_tokens)
    try:
        logits = None
        for P in torch.unique(lens).tolist():
            rows = torch.nonzero(lens == P).flatten()
            sub = KVCache(len(model.blocks), capacity=P)
            last = model(prompts[rows, :P], cache=sub)[:, -1]                        # (rows, V) at the prompt's end
            if logits is None:
                logits = last.new_empty(B, last.shape[-1])
            logits[rows] = last
            cache.write_rows(rows, sub, B)
        cache.set_row_lengths(lens)
        nxt = lens                                                     # replaced at step 0
        for t in range(max_new_tokens):
            n = active[t]
            if n == 0:
                break
            if t:
                cache.keep_rows(n)
                logits = model(nxt[:n, None], cache=cache)[:, -1]
            nxt = _pick(logits[:n], zeroed_ids, banned_ids, temperature, top_k, generator)
            res[:n, t] = torch.where(done[:n], torch.full_like(nxt, pad_id), nxt)
            if stop_ids.numel():
                done[:n] |= torch.isin(nxt, stop_ids)
                if bool(done[:n].all()):
                    break
    finally:
        model.train(was)
    out[perm] = res
    return out


def generate_texts(model, tokenizer, prompts: Sequence[str], max_new_tokens: int, **kwargs) -> list[str]:
    """Decode strings: prompts of equal token length go in one batch; returns the continuations (up to the
    stop token, which is dropped)."""
    device = next(model.parameters()).device
    encoded = [tokenizer.encode(p) for p in prompts]
    results: list[str | None] = [None] * len(prompts)
    by_len: dict[int, list[int]] = {}
    for i, ids in enumerate(encoded):
        by_len.setdefault(len(ids), []).append(i)
    stop = set(int(s) for s in kwargs.get("stop", ()))
    for _, rows in sorted(by_len.items()):
        batch = torch.tensor([encoded[i] for i in rows], dtype=torch.long, device=device)
        new = generate(model, batch, max_new_tokens, **kwargs).tolist()
        for i, toks in zip(rows, new):
            cut = next((j for j, tok in enumerate(toks) if tok in stop), len(toks))
            results[i] = tokenizer.decode(toks[:cut])
    return results  # type: ignore[return-value]
