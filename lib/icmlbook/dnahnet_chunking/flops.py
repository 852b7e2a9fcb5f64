r"""An analytic FLOP counter for dnaHNet-mini and the nucleotide Transformer (forward pass; training = 3 x forward).

A multiply-add counts 2 FLOPs. Per token: a linear map :math:`d_\mathrm{in}\to d_\mathrm{out}` costs
:math:`2 d_\mathrm{in} d_\mathrm{out}`; a depthwise convolution of width :math:`k` on :math:`e` channels :math:`2ke`;
causal attention over a context of :math:`T` tokens :math:`2Td` per layer (Kaplan et al.'s convention: scores and
values, halved for causality). Norms, activations, the router's cosine and the smoothing scan are O(d) per token and
left out. Stage :math:`s` of dnaHNet-mini sees :math:`L/\prod_{r<s} N_r` tokens, so the main network's attention cost
falls by the square of the total compression.
"""

from __future__ import annotations

from .model import VOCAB, HNetConfig

__all__ = ["conv_block_flops", "transformer_block_flops", "hnet_forward_flops", "transformer_forward_flops"]


def conv_block_flops(d: int, kernel: int = 4, expand: int = 2) -> float:
    """Per-token forward FLOPs of one :class:`~.model.GatedConvBlock`."""
    e = expand * d
    return 2 * d * 2 * e + 2 * kernel * e + 2 * e * d


def _d_ff(d: int) -> int:
    return 8 * ((8 * d // 3 + 7) // 8)


def transformer_block_flops(d: int, T: float) -> float:
    """Per-token forward FLOPs of one SwiGLU Transformer block of width ``d`` at context ``T``."""
    return 2 * 4 * d * d + 2 * 3 * d * _d_ff(d) + 2 * T * d


def hnet_forward_flops(cfg: HNetConfig, L: int, ratios: tuple[float, ...] | None = None) -> float:
    """Forward FLOPs of one sequence of ``L`` nucleotides through dnaHNet-mini, with the stages' realised
    compressions ``ratios`` (default: the targets)."""
    ratios = tuple(cfg.ratios if ratios is None else ratios)
    total, tokens = 2 * cfg.widths[0] * VOCAB * L, float(L)              # the head
    for s in range(cfg.stages):
        d = cfg.widths[s]
        per = (cfg.n_enc[s] + cfg.n_dec[s]) * conv_block_flops(d, cfg.kernel) + 2 * 2 * d * d + 2 * d * d
        total += per * tokens
        tokens = tokens / ratios[s]
    total += cfg.n_main * transformer_block_flops(cfg.widths[-1], tokens) * tokens
    return float(total)


def transformer_forward_flops(d: int, n_layer: int, L: int) -> float:
    """Forward FLOPs of one sequence of ``L`` nucleotides through the nucleotide Transformer (untied head)."""
    return float(n_layer * transformer_block_flops(d, L) * L + 2 * d * VOCAB * L)
