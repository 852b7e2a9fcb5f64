r"""Sink attention, sink divergence and the statistics built on them (Surgery, arXiv 2602.05228, section 3 of
the dossier; the definitions follow the official code, read, not copied).

For a sequence :math:`X=(x_0,\dots,x_{T-1})` and head :math:`h` with causal attention probabilities
:math:`A^{(h)}_{i,j}` (query :math:`i`, key :math:`j \le i`), the **sink attention** of the head is the mean
attention the query positions :math:`1,\dots,T-1` pay to the sink key :math:`k`,

.. math::  \alpha_h(X) = \frac{1}{T-1}\sum_{i=1}^{T-1} A^{(h)}_{i,k}(X),

(query 0 is left out: with :math:`k=0` it can only attend to itself). Padding is excluded: a row with
:math:`T_b` real tokens (right-padded, so causal attention never sees the padding) averages over
:math:`i = 1..T_b-1` only. The **sink divergence** of the head between a disclosure sample :math:`X_m` and a
refusal sample :math:`X_r` (the paper's harmful and safe samples) is

.. math::  d_h = \alpha_h(X_m) - \alpha_h(X_r),

and its population version averages :math:`\alpha_h` over many samples on each side. :math:`N_+` counts the
heads with :math:`d_h > 0` (the "positive group"). Shapes: attention probabilities come as a list over layers
of (B, H, T, T) tensors (what :class:`icmlbook.lm.GPT` returns with ``return_attn=True`` and what a Hugging Face
model returns with ``output_attentions=True``); sink attention is (B, L, H).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import torch

__all__ = [
    "query_weights", "stack_attention", "sink_attention", "key_attention_profile", "empirical_sink",
    "sink_divergence", "count_positive", "null_relabel", "uniform_profile", "bootstrap_divergence", "DivergenceCI", "model_sink_attention",
    "MissingAttention",
]


class MissingAttention(ValueError):
    """The model's attention path returned no probabilities (a fused kernel): the statistic cannot be computed."""


def stack_attention(probs: Sequence[torch.Tensor | None]) -> torch.Tensor:
    """Stack per-layer attention probabilities (each (B, H, T, T)) into (B, L, H, T, T); refuse a missing layer
    (a fused/SDPA path returns None) instead of returning a silent zero."""
    if probs is None or len(probs) == 0:
        raise MissingAttention("the model returned no attention probabilities; run it with an explicit softmax "
                               "path (our GPT: attn='explicit', return_attn=True; Hugging Face: eager attention)")
    missing = [i for i, p in enumerate(probs) if p is None]
    if missing:
        raise MissingAttention(f"layers {missing} returned no attention probabilities (a fused attention kernel); "
                               "load the model with attn_implementation='eager'")
    shapes = {tuple(p.shape) for p in probs}
    if len(shapes) != 1 or len(next(iter(shapes))) != 4:
        raise ValueError(f"attention probabilities must be (B, H, T, T) for every layer; got shapes {sorted(shapes)}")
    return torch.stack(list(probs), dim=1)


def query_weights(lengths: torch.Tensor, T: int) -> torch.Tensor:
    """(B, T) weights :math:`1/(T_b-1)` on query positions :math:`1..T_b-1` of each row, 0 elsewhere."""
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be (B,); got shape {tuple(lengths.shape)}")
    if int(lengths.min()) < 2:
        raise ValueError(f"every sequence needs at least 2 tokens for sink attention; shortest has {int(lengths.min())}")
    if int(lengths.max()) > T:
        raise ValueError(f"lengths up to {int(lengths.max())} exceed the attention's {T} positions")
    i = torch.arange(T, device=lengths.device)[None, :]
    valid = (i >= 1) & (i < lengths[:, None])
    return valid.to(torch.float32) / (lengths[:, None] - 1).to(torch.float32)


def _check_sink(sink: int, lengths: torch.Tensor) -> int:
    if isinstance(sink, bool) or not isinstance(sink, (int, np.integer)) or sink < 0:
        raise ValueError(f"sink={sink!r} is not allowed; the sink position must be an integer >= 0")
    shortest = int(torch.as_tensor(lengths).min())
    if sink >= shortest:
        raise ValueError(f"sink={sink} is beyond the context: the shortest sequence has {shortest} tokens "
                         f"(positions 0..{shortest - 1})")
    return int(sink)


def sink_attention(probs: Sequence[torch.Tensor] | torch.Tensor, lengths: torch.Tensor, sink: int = 0) -> torch.Tensor:
    """Sink attention :math:`\\alpha_h` of every row and head, (B, L, H), from the per-layer attention ``probs``
    (list of (B, H, T, T), or an already stacked (B, L, H, T, T)) of right-padded rows with ``lengths`` real
    tokens. Differentiable (the penalty backpropagates through it)."""
    A = probs if isinstance(probs, torch.Tensor) else stack_attention(probs)
    if A.dim() != 5:
        raise ValueError(f"stacked attention must be (B, L, H, T, T); got shape {tuple(A.shape)}")
    lengths = torch.as_tensor(lengths, device=A.device)
    sink = _check_sink(sink, lengths)
    w = query_weights(lengths, A.shape[-1]).to(A.dtype)                     # (B, T)
    return torch.einsum("blht,bt->blh", A[..., sink], w)


def key_attention_profile(probs, lengths: torch.Tensor) -> torch.Tensor:
    """Mean attention each key position receives, (B, L, H, T): the same query average as
    :func:`sink_attention`, for every key at once (the sink is the key with the largest value)."""
    A = probs if isinstance(probs, torch.Tensor) else stack_attention(probs)
    w = query_weights(torch.as_tensor(lengths, device=A.device), A.shape[-1]).to(A.dtype)
    return torch.einsum("blhtj,bt->blhj", A, w)


def uniform_profile(lengths: torch.Tensor, T: int) -> torch.Tensor:
    """The key profile (T,) that uniform causal attention (query i spreads 1/(i+1) over keys 0..i) would give on
    rows of these ``lengths``, averaged over the rows where the key exists: the no-sink reference."""
    lengths = torch.as_tensor(lengths)
    i = torch.arange(T, dtype=torch.float32)
    A = torch.tril(torch.ones(T, T)) / (i[:, None] + 1)                       # (T, T)
    prof = key_attention_profile(A.expand(len(lengths), 1, 1, T, T), lengths)[:, 0, 0]   # (B, T)
    present = (torch.arange(T)[None, :] < lengths[:, None]).to(prof.dtype)
    return (prof * present).sum(0) / present.sum(0).clamp(min=1)


def empirical_sink(profile: torch.Tensor, lengths: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """From key profiles (B, L, H, T): the mean profile over rows (L, H, T) (keys a row does not have count as
    absent, not as zero) and each head's argmax key position (L, H): the empirical sink of the head."""
    lengths = torch.as_tensor(lengths)
    T = profile.shape[-1]
    present = (torch.arange(T)[None, :] < lengths[:, None]).to(profile.dtype)   # (B, T)
    mean = (profile * present[:, None, None, :]).sum(0) / present.sum(0).clamp(min=1)
    mean = mean.detach().cpu().numpy()
    return mean, mean.argmax(-1)


def sink_divergence(alpha_m: torch.Tensor, alpha_r: torch.Tensor) -> torch.Tensor:
    """Population sink divergence (L, H): mean of ``alpha_m`` (n_m, L, H) minus mean of ``alpha_r`` (n_r, L, H).
    With one row on each side it is the paper's one-pair :math:`d_h`."""
    if alpha_m.dim() != 3 or alpha_r.dim() != 3 or alpha_m.shape[1:] != alpha_r.shape[1:]:
        raise ValueError(f"alpha_m and alpha_r must be (n, L, H) with the same L, H; got {tuple(alpha_m.shape)} and "
                         f"{tuple(alpha_r.shape)}")
    return alpha_m.mean(0) - alpha_r.mean(0)


def null_relabel(alpha_m: torch.Tensor, alpha_r: torch.Tensor, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The rows of both sides pooled and split again at random into two groups of the original sizes: the sink
    divergence of a statistic with no disclosure/refusal contrast (a null for :math:`d_h` and :math:`N_+`)."""
    both = torch.cat([alpha_m, alpha_r])
    g = np.random.default_rng(np.random.SeedSequence([seed, 67]))
    perm = torch.from_numpy(g.permutation(len(both)))
    return both[perm[: len(alpha_m)]], both[perm[len(alpha_m):]]


def count_positive(d) -> int:
    """:math:`N_+`: the number of heads with :math:`d_h > 0`."""
    return int((torch.as_tensor(d) > 0).sum())


@dataclasses.dataclass(frozen=True)
class DivergenceCI:
    """Per-head population divergence ``d`` (L, H) with its percentile bootstrap interval ``lo``/``hi`` at
    ``level`` (rows resampled with replacement within each side, ``n_boot`` times)."""

    d: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    level: float
    n_boot: int

    @property
    def n_positive(self) -> int:
        return int((self.d > 0).sum())

    def clearly_positive(self, delta: float) -> np.ndarray:
        return self.lo > delta

    def clearly_negative(self, delta: float) -> np.ndarray:
        return self.hi < -delta


def bootstrap_divergence(alpha_m, alpha_r, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> DivergenceCI:
    """Percentile bootstrap of the population divergence, vectorised: ``n_boot`` resamples of each side's rows."""
    am = np.asarray(torch.as_tensor(alpha_m).detach().cpu(), dtype=np.float64)
    ar = np.asarray(torch.as_tensor(alpha_r).detach().cpu(), dtype=np.float64)
    if am.ndim != 3 or ar.ndim != 3 or am.shape[1:] != ar.shape[1:] or len(am) < 2 or len(ar) < 2:
        raise ValueError(f"alpha_m and alpha_r must be (n>=2, L, H) with the same L, H; got {am.shape}, {ar.shape}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 10:
        raise ValueError(f"n_boot={n_boot!r} is not allowed; it must be an integer >= 10")
    g = np.random.default_rng(np.random.SeedSequence([seed, 53]))
    bm = am[g.integers(len(am), size=(n_boot, len(am)))].mean(1)
    br = ar[g.integers(len(ar), size=(n_boot, len(ar)))].mean(1)
    diff = bm - br
    q = (1 - level) / 2
    return DivergenceCI(am.mean(0) - ar.mean(0), np.quantile(diff, q, axis=0), np.quantile(diff, 1 - q, axis=0),
                        float(level), n_boot)


@torch.no_grad()
def model_sink_attention(model, tokens: torch.Tensor, lengths: torch.Tensor, sink: int = 0, batch: int = 500,
                         profile: bool = False):
    """Sink attention (N, L, H) of ``model`` (our GPT or :class:`icmlbook.lm.HFCausalLM`) on right-padded
    ``tokens`` (N, T) in batches of ``batch`` rows, one forward pass each (no gradients); with ``profile``
    also the key profile (N, L, H, T)."""
    if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2:
        raise ValueError("tokens must be an (N, T) tensor of token ids")
    lengths = torch.as_tensor(lengths)
    _check_sink(sink, lengths)
    was = model.training
    model.eval()
    device = next(model.parameters()).device
    out, prof = [], []
    try:
        for s in range(0, tokens.shape[0], batch):
            ln = lengths[s:s + batch]
            x = tokens[s:s + batch, : int(ln.max())].to(device)
            probs = _forward_attention(model, x)
            A = stack_attention(probs)
            out.append(sink_attention(A, ln.to(device), sink).float().cpu())
            if profile:
                p = key_attention_profile(A, ln.to(device)).float().cpu()
                prof.append(torch.nn.functional.pad(p, (0, tokens.shape[1] - p.shape[-1])))
    finally:
        model.train(was)
    alpha = torch.cat(out)
    return (alpha, torch.cat(prof)) if profile else alpha


def _forward_attention(model, x: torch.Tensor):
    """Attention probabilities of every layer for input ``x`` from our GPT (explicit path) or an HF adapter."""
    from ...lm import GPT

    if isinstance(model, GPT):
        _, probs = model(x, attn="explicit", return_attn=True)
    else:
        _, probs = model(x, return_attn=True)
    return probs
