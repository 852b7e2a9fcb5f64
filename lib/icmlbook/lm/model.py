r"""A small GPT, in reading order (nanoGPT's shape): norms, rotary positions, attention, MLP, block, config,
model.

One pre-norm block computes, on the residual stream :math:`x` of shape (B, T, d),

.. math::  x \leftarrow x + \mathrm{Attn}(\mathrm{Norm}(x)), \qquad x \leftarrow x + \mathrm{MLP}(\mathrm{Norm}(x)),

with causal multi-head attention :math:`\mathrm{softmax}(q k^\top/\sqrt{d_h} + M)\,v` (q, k, v and the output as
four separate matrices; optional RMS normalisation of q and k per head, "QK-norm"), and an MLP that is either
SwiGLU, :math:`W_\mathrm{down}(\mathrm{silu}(W_\mathrm{gate}x)\odot W_\mathrm{up}x)` (Shazeer 2020), or GELU,
:math:`W_\mathrm{down}\,\mathrm{gelu}(W_\mathrm{up}x)`. Positions are rotary (RoPE, Su et al. 2021: channel
pairs of q and k rotated by angle :math:`t\,\theta^{-2i/d_h}`), a learned table, or the fixed sinusoidal table of
Vaswani et al. (2017) added to the embeddings. ``forward(..., extra=e)`` adds a further (T, d) or (B, T, d)
embedding to the token embeddings (per-position features such as the axis and atom embeddings of coordinate
tokens). The head is tied to the embedding table or separate. No biases.

Attention has two paths with the same numbers: ``attn="sdpa"`` (torch's fused scaled-dot-product attention)
and ``attn="explicit"`` (softmax written out; ``return_attn=True`` returns the probabilities (B, H, T, T_k) of
every layer, with autograd). Decoding keeps keys and values in a :class:`KVCache`. Hook sites per layer:
see :mod:`icmlbook.lm.hooks`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

import torch
from torch import nn
from torch.nn import functional as F

from .hooks import HookSites

__all__ = ["GPTConfig", "GPT", "KVCache", "RMSNorm", "TokenEmbedding", "lm_loss", "sinusoidal_table"]


# -- norms and positions ----------------------------------------------------------------------------------
class RMSNorm(nn.Module):
    r""":math:`x / \sqrt{\mathrm{mean}(x^2) + \epsilon} \cdot g` over the last axis (Zhang & Sennrich 2019)."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


def _norm(kind: str, dim: int) -> nn.Module:
    return RMSNorm(dim) if kind == "rms" else nn.LayerNorm(dim, bias=False)


def rope_tables(max_len: int, d_head: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of the rotary angles :math:`t\\,\\theta_i`, :math:`\\theta_i = \\mathrm{base}^{-2i/d_h}`,
    each (max_len, d_head/2)."""
    inv = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    ang = torch.arange(max_len, dtype=torch.float64)[:, None] * inv[None, :]
    return ang.cos().float(), ang.sin().float()


def sinusoidal_table(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The fixed absolute position table (max_len, d_model): sin and cos of :math:`t\\,\\mathrm{base}^{-2i/d}`
    in channels 2i and 2i+1 (Vaswani et al. 2017, section 3.5)."""
    inv = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    ang = torch.arange(max_len, dtype=torch.float64)[:, None] * inv[None, :]
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = ang.sin()
    table[:, 1::2] = ang.cos()[:, : d_model // 2]
    return table.float()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate channel pairs (i, i + d_h/2) of x (B, H, T, d_h) by the angles in cos/sin (T, d_h/2)."""
    x1, x2 = x.chunk(2, dim=-1)
    c, s = cos.to(x.dtype), sin.to(x.dtype)
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], dim=-1)


class KVCache:
    """Keys and values of every layer seen so far, (B, H, T_past, d_h) each; ``length`` = T_past.

    ``KVCache(n_layer)`` grows by concatenation at every call (``k``/``v`` are the tensors themselves: a caller may
    replace or reorder them). ``KVCache(n_layer, capacity=C)`` preallocates (B, H, C, d_h) buffers at the first call
    and writes each new position in place; ``k[layer]``/``v[layer]`` are then views of the filled part, so the
    attention sees the same keys and values as with concatenation (the same numbers, tested) without copying the
    past at every step.

    Rows of different lengths (needs ``capacity``): fill the rows by parts (:meth:`write_rows`, e.g. one prompt
    length at a time) or with one padded prefill, then :meth:`set_row_lengths` gives each row its own length; later
    calls (one token per row) write row b's new key at position ``row_lengths[b]``, rotate it to that position, and
    attend only to that row's first ``row_lengths[b] + 1`` keys. :meth:`keep_rows` narrows the batch to a prefix of
    its rows (the finished rows drop out, nothing is copied). Without per-row lengths every row has the common
    ``length``.
    """

    def __init__(self, n_layer: int, capacity: int | None = None):
        if capacity is not None and (isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1):
            raise ValueError(f"capacity={capacity!r} is not allowed; it must be an integer >= 1 or None")
        self.capacity = capacity
        self.k: list[torch.Tensor | None] = [None] * n_layer
        self.v: list[torch.Tensor | None] = [None] * n_layer
        self._kbuf: list[torch.Tensor | None] = [None] * n_layer
        self._vbuf: list[torch.Tensor | None] = [None] * n_layer
        self._filled = [0] * n_layer                      # positions written per layer (preallocated mode)
        self.row_lengths: torch.Tensor | None = None      # (B,) int64, per-row lengths (ragged mode)

    @property
    def length(self) -> int:
        if self.capacity is not None:
            return self._filled[0]
        return 0 if self.k[0] is None else self.k[0].shape[2]

    def set_row_lengths(self, lengths: torch.Tensor) -> None:
        """Give each row its own number of valid past positions (B,), each at most :attr:`length`: later keys of
        a row are ignored and overwritten as the row advances."""
        if self.capacity is None:
            raise ValueError("rows of different lengths need a preallocated cache (KVCache(n_layer, capacity=...))")
        lengths = torch.as_tensor(lengths, dtype=torch.long)
        if self._kbuf[0] is None or lengths.shape != (self._kbuf[0].shape[0],):
            raise ValueError(f"row_lengths must be (batch,) after a first call; got shape {tuple(lengths.shape)}")
        if int(lengths.min()) < 1 or int(lengths.max()) > self.length:
            raise ValueError(f"row lengths {int(lengths.min())}..{int(lengths.max())} must lie in 1..{self.length}")
        for kb, vb in zip(self._kbuf, self._vbuf):       # never-written positions: zeros (weight 0 * NaN is NaN)
            kb[:, :, self.length:].zero_()
            vb[:, :, self.length:].zero_()
        self.row_lengths = lengths.to(self._kbuf[0].device)

    def _alloc(self, layer: int, k: torch.Tensor, v: torch.Tensor, batch: int | None = None) -> None:
        # rows written by parts (write_rows) start at zeros: a ragged row's masked keys get weight 0, and
        # 0 * (uninitialised NaN) would be NaN; a whole-batch cache only ever reads what it wrote
        B, H, _, D = k.shape
        new = k.new_zeros if batch is not None else k.new_empty
        self._kbuf[layer] = new(batch or B, H, self.capacity, D)
        self._vbuf[layer] = new(batch or B, H, self.capacity, v.shape[-1])

    def write_rows(self, rows: torch.Tensor, other: KVCache, batch: int) -> None:
        """Copy every position of ``other`` (a cache of ``len(rows)`` rows) into rows ``rows`` of this one, whose
        buffers hold ``batch`` rows (allocated here at the first write): prompts of different lengths are
        prefilled one length at a time, then decoded together with :meth:`set_row_lengths`."""
        if self.capacity is None:
            raise ValueError("write_rows needs a preallocated cache (KVCache(n_layer, capacity=...))")
        if other.length > self.capacity:
            raise ValueError(f"{other.length} positions exceed the cache's capacity {self.capacity}")
        for layer in range(len(self.k)):
            k, v = other.k[layer], other.v[layer]
            if self._kbuf[layer] is None:
                self._alloc(layer, k, v, batch)
            lo = int(rows[0])
            if bool((rows == torch.arange(lo, lo + rows.numel(), device=rows.device)).all()):
                self._kbuf[layer][lo:lo + rows.numel(), :, :k.shape[2]] = k      # a block of rows: plain copy
                self._vbuf[layer][lo:lo + rows.numel(), :, :v.shape[2]] = v
            else:
                self._kbuf[layer][rows, :, :k.shape[2]] = k
                self._vbuf[layer][rows, :, :v.shape[2]] = v
            self._filled[layer] = max(self._filled[layer], k.shape[2])
            self.k[layer] = self._kbuf[layer][:, :, :self._filled[layer]]
            self.v[layer] = self._vbuf[layer][:, :, :self._filled[layer]]

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.capacity is None:
            if self.k[layer] is not None:
                k = torch.cat([self.k[layer], k], dim=2)
                v = torch.cat([self.v[layer], v], dim=2)
            self.k[layer], self.v[layer] = k, v
            return k, v
        if self._kbuf[layer] is None:
            self._alloc(layer, k, v)
        kb, vb = self._kbuf[layer], self._vbuf[layer]
        if k.shape[0] != kb.shape[0]:
            raise ValueError(f"this cache holds {kb.shape[0]} rows; got {k.shape[0]}")
        T = k.shape[2]
        if self.row_lengths is not None:                   # ragged: row b writes at row_lengths[b]
            if T != 1:
                raise ValueError("a cache with per-row lengths takes one new token per row per call")
            top = int(self.row_lengths.max()) + 1
            if top > self.capacity:
                raise ValueError(f"{top} positions exceed the cache's capacity {self.capacity}")
            rows = torch.arange(kb.shape[0], device=kb.device)
            kb[rows, :, self.row_lengths] = k[:, :, 0]
            vb[rows, :, self.row_lengths] = v[:, :, 0]
            self._filled[layer] = max(self._filled[layer], top)
            end = top
        else:
            start = self._filled[layer]
            end = start + T
            if end > self.capacity:
                raise ValueError(f"{end} positions exceed the cache's capacity {self.capacity}")
            kb[:, :, start:end] = k
            vb[:, :, start:end] = v
            self._filled[layer] = end
        self.k[layer], self.v[layer] = kb[:, :, :end], vb[:, :, :end]
        return self.k[layer], self.v[layer]

    def keep_rows(self, n: int) -> None:
        """Ragged mode: from now on only the first ``n`` rows are fed (the others are finished); nothing is
        copied, the buffers are narrowed to a prefix of their rows."""
        if self.row_lengths is None or not 1 <= n <= self.row_lengths.shape[0]:
            raise ValueError(f"keep_rows({n}) needs per-row lengths and 1 <= n <= the rows kept so far")
        self.row_lengths = self.row_lengths[:n]
        self._kbuf = [kb[:n] for kb in self._kbuf]
        self._vbuf = [vb[:n] for vb in self._vbuf]
        self.k = [kb[:, :, :f] for kb, f in zip(self._kbuf, self._filled)]
        self.v = [vb[:, :, :f] for vb, f in zip(self._vbuf, self._filled)]

    def advance_rows(self) -> None:
        """After a call in ragged mode: every row has one more valid position."""
        if self.row_lengths is not None:
            self.row_lengths = self.row_lengths + 1


class HookPoint(nn.Module):
    """An identity whose forward hooks read or change the activation passing through (a named site)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


# -- attention and MLP ------------------------------------------------------------------------------------
class Attention(nn.Module):
    def __init__(self, cfg: GPTConfig, layer: int):
        super().__init__()
        self.layer, self.n_head, self.d_head = layer, cfg.n_head, cfg.d_head
        inner = cfg.n_head * cfg.d_head
        self.q = nn.Linear(cfg.d_model, inner, bias=False)
        self.k = nn.Linear(cfg.d_model, inner, bias=False)
        self.v = nn.Linear(cfg.d_model, inner, bias=False)
        self.o = nn.Linear(inner, cfg.d_model, bias=False)
        self.q_norm = RMSNorm(cfg.d_head) if cfg.qk_norm else None
        self.k_norm = RMSNorm(cfg.d_head) if cfg.qk_norm else None
        self.rope = cfg.positions == "rope"

    def forward(self, x, rope_cs, cache: KVCache | None, past: int, attn: str, return_attn: bool,
                mask: torch.Tensor | None = None, rows: torch.Tensor | None = None):
        B, T, _ = x.shape
        # rows (K,): queries only at these positions (no cache); keys and values at every position
        Tq = T if rows is None else rows.shape[0]
        split = lambda t, n=T: t.view(B, n, self.n_head, self.d_head).transpose(1, 2)   # (B, H, n, d_h)
        q = split(self.q(x if rows is None else x[:, rows]), Tq)
        k, v = split(self.k(x)), split(self.v(x))
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        ragged = isinstance(past, torch.Tensor)                 # (B,) per-row positions: one new token per row
        if self.rope:
            cos, sin = rope_cs
            if ragged:
                c, s = cos[past][:, None, None, :], sin[past][:, None, None, :]       # (B, 1, 1, d_h/2)
            else:
                c, s = cos[past:past + T], sin[past:past + T]
            q, k = apply_rope(q, *((c, s) if rows is None else (c[rows], s[rows]))), apply_rope(k, c, s)
        if cache is not None:
            k, v = cache.update(self.layer, k, v)
        Tk = k.shape[2]
        probs = None
        if mask is not None:                                          # an explicit (T, Tk) mask (tree attention)
            mask = mask.to(x.device)
        if ragged:                                                    # row b sees its keys 0..past[b]
            mask = (torch.arange(Tk, device=x.device)[None, :] <= past[:, None])[:, None, None, :]
        if rows is not None:                                          # the kept queries' rows of the mask
            mask = (torch.ones(T, Tk, dtype=torch.bool, device=x.device).tril() if mask is None else mask)[rows]
        if attn == "sdpa" and not return_attn:
            if mask is not None:
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            elif past == 0:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            elif T == 1:
                y = F.scaled_dot_product_attention(q, k, v)          # one new query sees every key
            else:
                mask = torch.ones(T, Tk, dtype=torch.bool, device=x.device).tril(diagonal=past)
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)          # (B, H, T, Tk)
            if mask is None:
                mask = torch.ones(T, Tk, dtype=torch.bool, device=x.device).tril(diagonal=past)
            probs = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
            y = probs @ v                                                         # (B, H, T, d_h)
        y = y.transpose(1, 2).reshape(B, Tq, self.n_head * self.d_head)
        return self.o(y), probs


class MLP(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.kind = cfg.mlp
        self.up = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.gate = nn.Linear(cfg.d_model, cfg.d_ff, bias=False) if cfg.mlp == "swiglu" else None
        self.down = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x):
        if self.gate is not None:
            return self.down(F.silu(self.gate(x)) * self.up(x))
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig, layer: int):
        super().__init__()
        self.norm1, self.attn = _norm(cfg.norm, cfg.d_model), Attention(cfg, layer)
        self.norm2, self.mlp = _norm(cfg.norm, cfg.d_model), MLP(cfg)
        self.resid_pre, self.attn_out, self.mlp_out, self.resid_post = HookPoint(), HookPoint(), HookPoint(), HookPoint()

    def forward(self, x, rope_cs, cache, past, attn, return_attn, mask=None, rows=None):
        x = self.resid_pre(x)
        a, probs = self.attn(self.norm1(x), rope_cs, cache, past, attn, return_attn, mask, rows)
        x = (x if rows is None else x[:, rows]) + self.attn_out(a)
        x = x + self.mlp_out(self.mlp(self.norm2(x)))
        return self.resid_post(x), probs


# -- config and model -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class GPTConfig:
    """Sizes and choices of a :class:`GPT`.

    ``d_head`` defaults to ``d_model // n_head`` (``d_model`` must then be divisible by ``n_head``); with
    ``d_head`` given, ``n_head`` defaults to ``d_model // d_head`` (a fixed head dimension across widths).
    ``d_ff`` defaults to 4 d (GELU) or the parameter-matched 8d/3 rounded up to a multiple of 8 (SwiGLU).
    """

    vocab_size: int
    n_layer: int = 2
    d_model: int = 64
    n_head: int | None = None
    d_head: int | None = None
    d_ff: int | None = None
    max_len: int = 256
    norm: Literal["rms", "layer"] = "rms"
    positions: Literal["rope", "learned", "sinusoidal"] = "rope"
    mlp: Literal["swiglu", "gelu"] = "swiglu"
    qk_norm: bool = False
    tie_embeddings: bool = False
    rope_base: float = 10000.0
    init_std: float = 0.02

    def __post_init__(self) -> None:
        for name in ("vocab_size", "n_layer", "d_model", "max_len"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= 1")
        if self.d_head is not None:
            if self.d_model % self.d_head:
                raise ValueError(f"d_model={self.d_model} is not divisible by the head dimension d_head={self.d_head}")
            object.__setattr__(self, "n_head", self.n_head or self.d_model // self.d_head)
        else:
            n_head = self.n_head or max(1, self.d_model // 64)
            if self.d_model % n_head:
                raise ValueError(f"d_model={self.d_model} is not divisible by n_head={n_head}")
            object.__setattr__(self, "n_head", n_head)
            object.__setattr__(self, "d_head", self.d_model // n_head)
        if self.positions == "rope" and self.d_head % 2:
            raise ValueError(f"RoPE needs an even head dimension; d_head={self.d_head}")
        if self.d_ff is None:
            d_ff = 4 * self.d_model if self.mlp == "gelu" else 8 * ((8 * self.d_model // 3 + 7) // 8)
            object.__setattr__(self, "d_ff", d_ff)
        for name, allowed in (("norm", ("rms", "layer")), ("positions", ("rope", "learned", "sinusoidal")),
                              ("mlp", ("swiglu", "gelu"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r} is not allowed; allowed values: {', '.join(allowed)}")


class TokenEmbedding(nn.Module):
    """The token table (V, d), optionally followed by ``extra`` trainable rows (n, d) for new tokens (ids V..V+n-1)
    while the base table is frozen (:meth:`GPT.add_embedding_rows`)."""

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab_size, d_model))
        self.register_parameter("extra", None)                   # (n, d) once rows are added

    @property
    def table(self) -> torch.Tensor:
        return self.weight if self.extra is None else torch.cat([self.weight, self.extra], 0)

    @property
    def num_embeddings(self) -> int:
        return self.weight.shape[0] + (0 if self.extra is None else self.extra.shape[0])

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return F.embedding(idx, self.table)


class GPT(nn.Module, HookSites):
    """A decoder-only transformer; ``forward(idx)`` -> logits (B, T, V).

    ``forward(idx, cache=None, attn="sdpa", return_attn=False, extra=None)``: with a :class:`KVCache` the
    positions continue after the cached ones and the cache grows (with per-row lengths set on the cache, row b's
    one new token sits at position ``row_lengths[b]``); ``attn="explicit"`` writes the softmax out;
    ``return_attn`` returns ``(logits, [probs of every layer])``; ``extra`` (T, d) or (B, T, d) is added to the
    token embeddings of these T positions (with a cache: the new positions only). Without a cache, ``positions``
    (T,) gives each token its own position index (default 0..T-1) and ``attn_mask`` (T, T) bool (True: may attend)
    replaces the causal mask: several continuations of one prefix can then share a row (tree attention), e.g.
    every candidate next token placed at the same position and attending to the prefix and to itself.
    ``out_positions`` (K,) (no cache): only the logits at these positions are returned, (B, K, V); the last block
    then computes its queries, attention output, MLP, the final norm and the head at these positions only (its
    keys and values still cover every position), which saves that share of the last layer when few outputs are
    read. The hook sites of the last block after its attention then hold the K positions only.
    """

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.cfg = cfg
        self.n_hook_layers = cfg.n_layer
        self.tok = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Parameter(torch.empty(cfg.max_len, cfg.d_model)) if cfg.positions == "learned" else None
        self.blocks = nn.ModuleList(Block(cfg, i) for i in range(cfg.n_layer))
        self.norm = _norm(cfg.norm, cfg.d_model)
        self.head = None if cfg.tie_embeddings else nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.register_parameter("head_extra", None)               # (n, d) once rows are added to an untied head
        if cfg.positions == "rope":
            cos, sin = rope_tables(cfg.max_len, cfg.d_head, cfg.rope_base)
            self.register_buffer("rope_cos", cos, persistent=False)
            self.register_buffer("rope_sin", sin, persistent=False)
        if cfg.positions == "sinusoidal":
            self.register_buffer("sin_pos", sinusoidal_table(cfg.max_len, cfg.d_model, cfg.rope_base), persistent=False)
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """GPT-2's initialisation: N(0, init_std) everywhere, output projections (attention ``o``, MLP ``down``)
        scaled by 1/sqrt(2 n_layer); norms at 1."""
        std = self.cfg.init_std
        for name, p in self.named_parameters():
            if p.dim() < 2:
                if name.endswith("weight") and p.dim() == 1:
                    p.fill_(1.0)
                continue
            scale = 1.0 / math.sqrt(2 * self.cfg.n_layer) if name.endswith(("o.weight", "down.weight")) else 1.0
            nn.init.normal_(p, std=std * scale)

    @property
    def vocab_size(self) -> int:
        return self.tok.num_embeddings

    def hook_modules(self) -> dict[str, nn.Module]:
        return {f"blocks.{i}.{k}": getattr(b, k) for i, b in enumerate(self.blocks)
                for k in ("resid_pre", "attn_out", "mlp_out", "resid_post")}

    def _attach(self, name, fn):
        return self.hook_modules()[name].register_forward_hook(lambda m, inp, out: fn(out))

    def forward(self, idx: torch.Tensor, cache: KVCache | None = None, attn: str = "sdpa",
                return_attn: bool = False, extra: torch.Tensor | None = None, positions: torch.Tensor | None = None,
                attn_mask: torch.Tensor | None = None, out_positions: torch.Tensor | None = None):
        if attn not in ("sdpa", "explicit"):
            raise ValueError(f"attn={attn!r} is not allowed; allowed values: sdpa, explicit")
        if idx.dim() != 2:
            raise ValueError(f"idx must be (batch, time) token ids; got shape {tuple(idx.shape)}")
        B, T = idx.shape
        ragged = cache is not None and cache.row_lengths is not None
        past = cache.row_lengths if ragged else (0 if cache is None else cache.length)
        if (positions is not None or attn_mask is not None) and cache is not None:
            raise ValueError("positions and attn_mask are for a forward without a KV cache (cache=None)")
        if ragged and (T != 1 or past.shape[0] != B):
            raise ValueError(f"a cache with per-row lengths takes (batch={past.shape[0]}, 1) new tokens; got "
                             f"shape {tuple(idx.shape)}")
        top = int(past.max()) + 1 if ragged else past + T
        if positions is not None:
            positions = torch.as_tensor(positions, dtype=torch.long)
            if positions.shape != (T,) or (T and (int(positions.min()) < 0 or int(positions.max()) >= self.cfg.max_len)):
                raise ValueError(f"positions must be (T,) = ({T},) indices in 0..{self.cfg.max_len - 1}; got shape "
                                 f"{tuple(positions.shape)}")
        elif top > self.cfg.max_len:
            raise ValueError(f"{top} positions exceed max_len={self.cfg.max_len}")
        if out_positions is not None:
            out_positions = torch.as_tensor(out_positions, dtype=torch.long)
            if cache is not None:
                raise ValueError("out_positions is for a forward without a KV cache (cache=None)")
            if out_positions.dim() != 1 or not len(out_positions) or int(out_positions.min()) < 0 or \
                    int(out_positions.max()) >= T:
                raise ValueError(f"out_positions must be a non-empty (K,) index of positions in 0..{T - 1}; got "
                                 f"{out_positions.tolist()}")
        if attn_mask is not None and (attn_mask.shape != (T, T) or attn_mask.dtype != torch.bool):
            raise ValueError(f"attn_mask must be a (T, T) = ({T}, {T}) boolean mask (True: may attend); got "
                             f"{tuple(attn_mask.shape)} {attn_mask.dtype}")
        at = positions if positions is not None else (None if ragged else slice(past, past + T))
        if idx.numel():
            lo, hi = int(idx.min()), int(idx.max())
            if lo < 0 or hi >= self.vocab_size:
                raise ValueError(f"token ids {lo}..{hi} are outside the vocabulary 0..{self.vocab_size - 1}")
        x = self.tok(idx)                                                     # (B, T, d)
        if self.pos is not None:
            x = x + (self.pos[past][:, None, :] if ragged else self.pos[at])
        if self.cfg.positions == "sinusoidal":
            x = x + (self.sin_pos[past][:, None, :] if ragged else self.sin_pos[at])
        if extra is not None:
            if extra.shape[-2:] != (T, self.cfg.d_model) or extra.dim() not in (2, 3) or (
                    extra.dim() == 3 and extra.shape[0] not in (1, B)):
                raise ValueError(f"extra must be (T, d) or (B, T, d) = ({B}, {T}, {self.cfg.d_model}); "
                                 f"got {tuple(extra.shape)}")
            x = x + extra
        rope_cs = (self.rope_cos, self.rope_sin) if self.cfg.positions == "rope" else None
        if rope_cs is not None and positions is not None:
            rope_cs = (self.rope_cos[positions], self.rope_sin[positions])      # read from 0 (past is 0 here)
        all_probs = []
        for i, block in enumerate(self.blocks):
            last = out_positions is not None and i == len(self.blocks) - 1
            x, probs = block(x, rope_cs, cache, past, attn, return_attn, attn_mask, out_positions if last else None)
            all_probs.append(probs)
        if ragged:
            cache.advance_rows()
        x = self.norm(x)
        if self.head is None:
            logits = x @ self.tok.table.T                                     # tied: (B, T, V)
        else:
            logits = self.head(x)
            if self.head_extra is not None:
                logits = torch.cat([logits, x @ self.head_extra.T], dim=-1)
        return (logits, all_probs) if return_attn else logits

    @torch.no_grad()
    def add_embedding_rows(self, n: int, init: torch.Tensor | None = None, freeze_base: bool = True) -> list[int]:
        """Append ``n`` trainable token rows (ids V..V+n-1; initialised to ``init`` (n, d) or to the mean of the
        table) to the embedding, and to the head when it is untied; with ``freeze_base`` the existing table (and
        head) stop receiving gradients. Returns the new ids."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n={n!r} is not allowed; it must be an integer >= 1")
        start = self.vocab_size
        d = self.cfg.d_model
        rows = self.tok.table.mean(0, keepdim=True).expand(n, d).clone() if init is None else init.to(self.tok.weight)
        if rows.shape != (n, d):
            raise ValueError(f"init has shape {tuple(rows.shape)}; expected ({n}, {d})")
        old = self.tok.extra
        self.tok.extra = nn.Parameter(rows.clone() if old is None else torch.cat([old.data, rows], 0))
        if self.head is not None:
            head_rows = self.head.weight.mean(0, keepdim=True).expand(n, d).clone()
            old = self.head_extra
            self.head_extra = nn.Parameter(head_rows if old is None else torch.cat([old.data, head_rows], 0))
        if freeze_base:
            self.tok.weight.requires_grad_(False)
            if self.head is not None:
                self.head.weight.requires_grad_(False)
        return list(range(start, start + n))

    def num_parameters(self, non_embedding: bool = True) -> int:
        n = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n -= self.tok.table.numel() + (0 if self.pos is None else self.pos.numel())
        return n


def lm_loss(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Mean next-token cross-entropy (nats) over the positions where ``mask`` (B, T) is true (all by default)."""
    flat = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
    if mask is None:
        return flat.mean()
    m = mask.reshape(-1).to(flat.dtype)
    return (flat * m).sum() / m.sum().clamp(min=1)
