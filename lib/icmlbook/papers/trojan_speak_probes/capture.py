r"""Activations at the response positions, captured while the model generates.

Sites: for layer :math:`l` and kind :math:`s\in\{\text{resid}, \text{attn}, \text{mlp}\}` the lab's hook sites
``blocks.l.resid_post`` (the residual stream after the block), ``blocks.l.attn_out`` (what attention adds) and
``blocks.l.mlp_out`` (what the MLP adds) (:mod:`icmlbook.lm.hooks`).

:func:`generate_with_capture` runs the lab's KV-cache decoder (:func:`icmlbook.lm.generate`) with a recording
hook at every requested site: the first forward pass holds the prompt, every later one the one token just fed,
so the response activations :math:`a_{l,s,t}` of the generated tokens :math:`t = 1 .. n-1` arrive one position
at a time (the final ``<eos>`` is never fed). The **response mask** keeps exactly those positions: no prompt
position, no ``<eos>``, nothing after it. :func:`capture_teacher_forced` computes the same activations in one
pass over prompt + response (used for the untrained and the pretrained-only baselines, whose own generations
would be meaningless); the two agree (tested).

Shapes: ``tokens`` (N, T) int64 generated ids; ``acts`` (N, T, S, d) with S sites in the order of ``sites``;
``mask`` (N, T) bool; :func:`mean_pool` gives (N, S, d), :math:`\bar a = \frac{1}{|R|}\sum_{t\in R} a_t`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Sequence

import numpy as np
import torch

from ...lm import generate

__all__ = ["SITE_KINDS", "Site", "all_sites", "hook_name", "Capture", "generate_with_capture",
           "capture_teacher_forced", "response_mask", "mean_pool"]

SITE_KINDS: tuple[str, ...] = ("resid", "attn", "mlp")
_HOOK = {"resid": "resid_post", "attn": "attn_out", "mlp": "mlp_out"}


@dataclasses.dataclass(frozen=True)
class Site:
    layer: int
    kind: str

    @property
    def label(self) -> str:
        return f"L{self.layer}.{self.kind}"


def all_sites(n_layer: int) -> list[Site]:
    """Every (layer, kind), layer-major."""
    return [Site(layer, k) for layer in range(n_layer) for k in SITE_KINDS]


def hook_name(site: Site, n_layer: int) -> str:
    if site.kind not in SITE_KINDS:
        raise ValueError(f"site kind={site.kind!r} is not allowed; allowed values: {', '.join(SITE_KINDS)}")
    if isinstance(site.layer, bool) or not isinstance(site.layer, (int, np.integer)) or not 0 <= site.layer < n_layer:
        raise ValueError(f"layer={site.layer!r} is out of range; the model has layers 0..{n_layer - 1}")
    return f"blocks.{int(site.layer)}.{_HOOK[site.kind]}"


@dataclasses.dataclass
class Capture:
    """Generated ``tokens`` (N, T), their response ``mask`` (N, T) and activations ``acts`` (N, T, S, d) (None
    when capture was off), for ``sites``."""

    tokens: torch.Tensor
    mask: torch.Tensor
    acts: torch.Tensor | None
    sites: list[Site]


def response_mask(tokens: torch.Tensor, eos: int) -> torch.Tensor:
    """(N, T) True at the generated tokens before each row's first ``eos`` (the positions that are fed back and
    hold a response token); False at the ``eos``, after it, and in the last column (the decoder never feeds the
    token it draws last)."""
    is_eos = tokens == eos
    before = torch.cumsum(is_eos.long(), dim=1) == 0
    before[:, -1:] = False
    return before


def generate_with_capture(model, prompts: torch.Tensor, max_new_tokens: int, *, sites: Sequence[Site],
                          eos: int, pad: int, temperature: float = 1.0, generator: torch.Generator | None = None,
                          capture: bool = True, batch_size: int = 512) -> Capture:
    """Decode every prompt row (KV cache; ``temperature`` 0 is greedy) and record the activations at ``sites``
    for every generated token fed back (see the module docstring). ``capture=False`` decodes the same tokens
    without hooks (the benchmark's baseline)."""
    n_layer = model.n_hook_layers
    names = [hook_name(s, n_layer) for s in sites]
    toks, acts = [], []
    for start in range(0, prompts.shape[0], batch_size):
        chunk = prompts[start:start + batch_size]
        records: dict[str, list[torch.Tensor]] = {n: [] for n in names}

        def recorder(name):
            def fn(x):
                records[name].append(x.detach())
                return x
            return fn

        ctx = model.hooked(add={n: recorder(n) for n in names}) if capture and names else contextlib.nullcontext()
        with ctx:
            new = generate(model, chunk, max_new_tokens, temperature=temperature, generator=generator, stop=[eos],
                           pad_id=pad)
        toks.append(new)
        if capture and names:
            B, T = new.shape
            per_site = []
            for n in names:
                steps = records[n][1:]                         # drop the prompt pass: one (B, 1, d) per fed token
                a = torch.cat(steps, dim=1) if steps else torch.zeros(B, 0, records[n][0].shape[-1])
                if a.shape[1] < T:                              # the loop stopped early: nothing was fed there
                    a = torch.cat([a, a.new_zeros(B, T - a.shape[1], a.shape[2])], dim=1)
                per_site.append(a[:, :T])
            acts.append(torch.stack(per_site, dim=2))          # (B, T, S, d)
    tokens = torch.cat(toks)
    return Capture(tokens, response_mask(tokens, eos), torch.cat(acts) if acts else None, list(sites))


@torch.no_grad()
def capture_teacher_forced(model, prompts: torch.Tensor, tokens: torch.Tensor, *, sites: Sequence[Site], eos: int,
                           batch_size: int = 512) -> Capture:
    """The activations at the response positions of ``prompts`` followed by the given ``tokens`` (N, T), in one
    forward pass per batch (positions P .. P+T-1, i.e. each response token as it is read)."""
    n_layer = model.n_hook_layers
    names = [hook_name(s, n_layer) for s in sites]
    P = prompts.shape[1]
    mask = response_mask(tokens, eos)
    fed = torch.where(mask, tokens, torch.zeros_like(tokens))   # masked positions never matter (causal)
    out = []
    was = model.training
    model.eval()
    try:
        for start in range(0, prompts.shape[0], batch_size):
            seq = torch.cat([prompts[start:start + batch_size], fed[start:start + batch_size]], dim=1)
            with model.hooked(read=names) as cache:
                model(seq)
            out.append(torch.stack([cache[n][:, P:] for n in names], dim=2))
    finally:
        model.train(was)
    return Capture(tokens, mask, torch.cat(out), list(sites))


def mean_pool(acts: torch.Tensor, mask: torch.Tensor) -> np.ndarray:
    """(N, S, d) float32 mean over each row's response positions (zeros for an empty response)."""
    m = mask.to(acts.dtype)[:, :, None, None]
    total = (acts * m).sum(1)
    count = m.sum(1).clamp(min=1)
    return (total / count).numpy().astype(np.float32)
