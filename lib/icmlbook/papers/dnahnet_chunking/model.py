r"""dnaHNet-mini (H-Net-style, reconstruction): a nucleotide-level language model whose expensive main network
runs on dynamically chosen chunks, with one or two stages; and the baselines it is compared with.

Layout of a stage :math:`s` (outer to inner)::

    x (B, L, D_s) -> encoder (causal gated-conv blocks) -> router -> chunk -> [pad to D_{s+1}]
                  -> main network (the next stage, or causal Transformer blocks of icmlbook.lm)
                  -> [truncate to D_s] -> smoothing scan -> upsample -> * STE(c) + W_res x_hat -> decoder

dnaHNet's own layer layout, widths and target ratios were not reached (dossier §3.2); H-Net uses Mamba-2
encoders and decoders, replaced here by causal depthwise-convolution gated blocks (Mamba's block without the
selective scan), which run fast on a CPU. The main network's blocks are :class:`icmlbook.lm.model.Block`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ...lm import GPT, GPTConfig, RMSNorm, rope_tables
from ...lm.model import Block
from .chunking import (P_CLAMP, RoutingModule, RoutingOutput, chunk, fixed_stride_routing, ratio_loss, smooth_scan,
                       ste, upsample)

__all__ = ["HNetConfig", "GatedConvBlock", "ConvStack", "MainTransformer", "HNetStage", "DnaHNet",
           "NucleotideTransformer", "VOCAB", "ROUTERS"]

#: the model's alphabet: A, C, G, T and N (unknown)
VOCAB = 5
#: router variants: learned (H-Net), fixed (W_q, W_k frozen at the identity), stride (fixed-stride baseline)
ROUTERS = ("learned", "fixed", "stride")


class GatedConvBlock(nn.Module):
    r"""A causal gated convolution block: :math:`x + W_o\big(\mathrm{silu}(W_g n) \odot \mathrm{silu}(\mathrm{conv}_k(W_v n))\big)`,
    :math:`n = \mathrm{RMSNorm}(x)`, with a depthwise convolution of width ``kernel`` that sees only the
    current and past positions. (B, L, D) -> (B, L, D)."""

    def __init__(self, d: int, expand: int = 2, kernel: int = 4):
        super().__init__()
        e = expand * d
        self.norm = RMSNorm(d)
        self.inp = nn.Linear(d, 2 * e, bias=False)
        self.conv = nn.Conv1d(e, e, kernel, groups=e, padding=kernel - 1)
        self.out = nn.Linear(e, d, bias=False)
        self.kernel = kernel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        v, g = self.inp(self.norm(x)).chunk(2, dim=-1)
        L = x.shape[1]
        v = self.conv(v.transpose(1, 2))[..., :L].transpose(1, 2)         # causal: left padding only
        return x + self.out(F.silu(g) * F.silu(v))


class ConvStack(nn.Module):
    """``n`` :class:`GatedConvBlock` (an encoder or decoder); ``n = 0`` is the identity."""

    def __init__(self, d: int, n: int, expand: int = 2, kernel: int = 4):
        super().__init__()
        self.blocks = nn.ModuleList(GatedConvBlock(d, expand, kernel) for _ in range(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for b in self.blocks:
            x = b(x)
        return x


class MainTransformer(nn.Module):
    """The innermost main network: causal pre-norm Transformer blocks from :mod:`icmlbook.lm` (RoPE, SwiGLU)
    on a sequence of vectors, then a final RMSNorm. (B, M, D) -> (B, M, D)."""

    def __init__(self, d: int, n_layer: int, d_head: int, max_len: int):
        super().__init__()
        self.cfg = GPTConfig(vocab_size=VOCAB, n_layer=n_layer, d_model=d, d_head=d_head, max_len=max_len)
        self.blocks = nn.ModuleList(Block(self.cfg, i) for i in range(n_layer))
        self.norm = RMSNorm(d)
        self._tables: tuple[int, torch.Tensor, torch.Tensor] | None = None
        with torch.no_grad():
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    scale = 1 / math.sqrt(2 * n_layer) if name.endswith(("o.weight", "down.weight")) else 1.0
                    nn.init.normal_(p, std=0.02 * scale)

    def _rope(self, M: int, device) -> tuple[torch.Tensor, torch.Tensor]:
        if self._tables is None or self._tables[0] < M or self._tables[1].device != device:
            n = max(M, self.cfg.max_len)
            cos, sin = rope_tables(n, self.cfg.d_head, self.cfg.rope_base)
            self._tables = (n, cos.to(device), sin.to(device))
        return self._tables[1], self._tables[2]

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, list]:
        rope = self._rope(x.shape[1], x.device)
        for b in self.blocks:
            x, _ = b(x, rope, None, 0, "sdpa", False)
        return self.norm(x), []


@dataclasses.dataclass(frozen=True)
class HNetConfig:
    """Sizes of a dnaHNet-mini.

    widths : (D_0, ..., D_S): width of every stage, outer to inner; S = len(widths) - 1 chunking stages.
    ratios : (N_0, ..., N_{S-1}): target downsampling factor of every stage (> 1).
    n_enc, n_dec : gated-conv blocks of each stage's encoder and decoder (outer to inner).
    n_main : Transformer blocks of the innermost main network; d_head its head width.
    router : "learned" (H-Net), "fixed" (W_q, W_k frozen at the identity) or "stride" (a boundary every
        ``stride`` positions at the outer stage, every ``ratios[s]`` at inner ones).
    smoothing, use_ste : the ablations "no smoothing" (P = 1) and "no STE" (the residual without STE(c)).
    max_len : the longest chunk sequence the rotary tables cover at once (they grow on demand).
    """

    widths: tuple[int, ...] = (64, 96)
    ratios: tuple[float, ...] = (3.0,)
    n_enc: tuple[int, ...] = (2,)
    n_dec: tuple[int, ...] = (2,)
    n_main: int = 2
    d_head: int = 32
    router: str = "learned"
    stride: int = 3
    smoothing: bool = True
    use_ste: bool = True
    kernel: int = 4
    max_len: int = 4096

    def __post_init__(self) -> None:
        S = len(self.widths) - 1
        if S < 1:
            raise ValueError(f"widths={self.widths!r} is not allowed; give at least two widths (one stage)")
        for name in ("ratios", "n_enc", "n_dec"):
            if len(getattr(self, name)) != S:
                raise ValueError(f"{name}={getattr(self, name)!r} is not allowed; it needs {S} entries "
                                 f"(one per stage of widths={self.widths})")
        for r in self.ratios:
            if not r > 1:
                raise ValueError(f"ratios={self.ratios!r} is not allowed; every target ratio N must be > 1")
        for a, b in zip(self.widths, self.widths[1:]):
            if b < a:
                raise ValueError(f"widths={self.widths!r} is not allowed; widths must not shrink inwards")
        if self.widths[-1] % self.d_head:
            raise ValueError(f"d_head={self.d_head} does not divide the main width {self.widths[-1]}")
        if self.router not in ROUTERS:
            raise ValueError(f"router={self.router!r} is not allowed; allowed values: {', '.join(ROUTERS)}")

    @property
    def stages(self) -> int:
        return len(self.widths) - 1

    @property
    def total_ratio(self) -> float:
        return float(math.prod(self.ratios))


class HNetStage(nn.Module):
    """One chunking stage; ``inner`` is the next :class:`HNetStage` or a :class:`MainTransformer`.

    ``forward(x, mask)`` with ``x`` (B, L, D_s), ``mask`` (B, L) of valid positions -> ``(y, stats)``: ``y``
    (B, L, D_s) and ``stats`` the list of per-stage dicts (outer first) with ``routing``, ``mask`` and
    ``ratio_loss`` (None for the fixed-stride router)."""

    def __init__(self, cfg: HNetConfig, s: int, inner: nn.Module):
        super().__init__()
        d, d_in = cfg.widths[s], cfg.widths[s + 1]
        self.s, self.cfg = s, cfg
        self.encoder = ConvStack(d, cfg.n_enc[s], kernel=cfg.kernel)
        self.router = RoutingModule(d)
        if cfg.router == "fixed":
            self.router.requires_grad_(False)
        self.inner = inner
        self.pad = nn.Parameter(torch.zeros(d_in - d)) if d_in > d else None     # learned pad vector
        self.residual = nn.Linear(d, d, bias=False, dtype=torch.float32)
        nn.init.zeros_(self.residual.weight)                                        # W_res = 0 at init
        self.decoder = ConvStack(d, cfg.n_dec[s], kernel=cfg.kernel)
        self.N = float(cfg.ratios[s])
        self.stride = cfg.stride if s == 0 else int(round(cfg.ratios[s]))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, list]:
        B, L, d = x.shape
        xh = self.encoder(x)
        if self.cfg.router == "stride":
            routing = fixed_stride_routing(B, L, self.stride, x.device)
            routing.boundary &= mask
            routing.prob = routing.prob * mask
            rl = None
        else:
            routing = self.router(xh, mask)
            rl = ratio_loss(routing.boundary, routing.prob, self.N, mask)
        ch = chunk(xh, routing)                                                     # (B, M, d)
        z = ch.x
        if self.pad is not None:
            z = torch.cat([z, self.pad.expand(B, z.shape[1], -1).to(z.dtype)], -1)
        z, inner_stats = self.inner(z, ch.mask)
        z = z[..., :d]                                                              # truncate to D_s
        if self.cfg.smoothing:
            P = ch.prob.clamp(P_CLAMP, 1 - P_CLAMP)
            z = smooth_scan(z, P)
        zt = upsample(z, routing.boundary)                                          # (B, L, d)
        res = self.residual(xh.float()).to(xh.dtype)
        if self.cfg.use_ste:
            h = zt * ste(routing.confidence).unsqueeze(-1) + res
        else:
            h = zt + res
        y = self.decoder(h)
        stats = [{"routing": routing, "mask": mask, "ratio_loss": rl, "chunk_mask": ch.mask}] + inner_stats
        return y, stats


class DnaHNet(nn.Module):
    """dnaHNet-mini: embedding (VOCAB, D_0) -> stages -> RMSNorm -> head (D_0 -> VOCAB).

    ``forward(idx)`` with ``idx`` (B, L) in 0..4 -> ``(logits (B, L, VOCAB), stats)``; the logit at t predicts
    the nucleotide at t + 1."""

    def __init__(self, cfg: HNetConfig):
        super().__init__()
        self.cfg = cfg
        inner: nn.Module = MainTransformer(cfg.widths[-1], cfg.n_main, cfg.d_head, cfg.max_len)
        for s in reversed(range(cfg.stages)):
            inner = HNetStage(cfg, s, inner)
        self.emb = nn.Embedding(VOCAB, cfg.widths[0])
        self.body = inner
        self.norm = RMSNorm(cfg.widths[0])
        self.head = nn.Linear(cfg.widths[0], VOCAB, bias=False)
        with torch.no_grad():
            nn.init.normal_(self.emb.weight, std=1.0)
            nn.init.normal_(self.head.weight, std=0.02)
            for m in self.modules():
                if isinstance(m, (GatedConvBlock,)):
                    nn.init.normal_(m.inp.weight, std=0.02)
                    nn.init.normal_(m.out.weight, std=0.02 / math.sqrt(2 * max(1, sum(cfg.n_enc) + sum(cfg.n_dec))))

    def forward(self, idx: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, list]:
        if mask is None:
            mask = torch.ones_like(idx, dtype=torch.bool)
        y, stats = self.body(self.emb(idx), mask)
        return self.head(self.norm(y)), stats

    def stage_of(self) -> dict[str, int]:
        """Parameter name -> index of the stage it belongs to (0 = outer; S = the main network)."""
        return {name: min(name.count("inner."), self.cfg.stages) for name, _ in self.named_parameters()}

    def param_groups(self, lr: float, multipliers: Sequence[float], weight_decay: float = 0.0) -> list[dict]:
        """Optimiser groups with H-Net's per-stage learning-rate multipliers (``multipliers[s]`` for stage s,
        outer first, the last for the main network); no weight decay on vectors (norms, biases, pads)."""
        if len(multipliers) != self.cfg.stages + 1:
            raise ValueError(f"multipliers={tuple(multipliers)!r} is not allowed; it needs {self.cfg.stages + 1} "
                             "entries (one per stage, then the main network)")
        stage = self.stage_of()
        groups: dict[tuple[int, bool], list] = {}
        for name, p in self.named_parameters():
            if p.requires_grad:
                groups.setdefault((stage[name], p.dim() >= 2), []).append(p)
        return [{"params": ps, "lr": lr * multipliers[s], "weight_decay": weight_decay if matrix else 0.0}
                for (s, matrix), ps in sorted(groups.items())]


class NucleotideTransformer(nn.Module):
    """The byte-level (nucleotide) baseline: :class:`icmlbook.lm.GPT` on the 5-letter alphabet.
    ``forward(idx)`` -> ``(logits, [])`` (no chunking stages)."""

    def __init__(self, d_model: int, n_layer: int, d_head: int, max_len: int):
        super().__init__()
        self.gpt = GPT(GPTConfig(vocab_size=VOCAB, n_layer=n_layer, d_model=d_model, d_head=d_head, max_len=max_len))

    def forward(self, idx: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, list]:
        return self.gpt(idx), []

    def param_groups(self, lr: float, multipliers: Sequence[float] = (1.0,), weight_decay: float = 0.0) -> list[dict]:
        mat = [p for p in self.parameters() if p.dim() >= 2]
        vec = [p for p in self.parameters() if p.dim() < 2]
        return [{"params": mat, "lr": lr * multipliers[0], "weight_decay": weight_decay},
                {"params": vec, "lr": lr * multipliers[0], "weight_decay": 0.0}]


def routing_of(stats: list, stage: int = 0) -> RoutingOutput:
    """The :class:`RoutingOutput` of ``stage`` from a forward pass's stats."""
    return stats[stage]["routing"]
