r"""An analytic FLOP counter for dnaHNet-mini, the nucleotide Transformer and the isotropic Mamba (forward pass;
training = 3 x forward).

A multiply-add counts 2 FLOPs. Per token: a linear map :math:`d_\mathrm{in}\to d_\mathrm{out}` costs
:math:`2 d_\mathrm{in} d_\mathrm{out}`; a depthwise convolution of width :math:`k` on :math:`e` channels :math:`2ke`;
causal attention over a context of :math:`T` tokens :math:`2Td` per layer (Kaplan et al.'s convention: scores and
values, halved for causality). Norms, activations, the router's cosine and the smoothing scan are O(d) per token and
left out. Stage :math:`s` of dnaHNet-mini sees :math:`L/\prod_{r<s} N_r` tokens, so the main network's attention cost
falls by the square of the total compression.

A Mamba block (:mod:`.mamba`, inner width :math:`E`, state :math:`N`, rank :math:`R`, convolution :math:`k`) costs per
token its projections :math:`2dE\cdot 2 + 2E(R+2N) + 2RE + 2Ed`, its convolution :math:`2kE`, and, because they are
of the same order here, the selective scan's elementwise work: :math:`\Delta A` (:math:`EN`), :math:`(\Delta x)B`
(:math:`E + EN`), the recurrence :math:`a h + u` (:math:`2EN`), the readout :math:`C h` (:math:`2EN`), the skip
:math:`+D\odot x` (:math:`2E`) and the gate (:math:`E`): :math:`6EN + 4E`; the exponential and the activations are
left out, as for the other models.
"""

from __future__ import annotations

from .mamba import MambaConfig
from .model import VOCAB, HNetConfig

__all__ = ["conv_block_flops", "transformer_block_flops", "hnet_forward_flops", "transformer_forward_flops",
           "mamba_block_flops", "mamba_forward_flops"]


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


def mamba_block_flops(cfg: MambaConfig) -> float:
    """Per-token forward FLOPs of one :class:`~.mamba.MambaBlock`."""
    d, E, N, R, k = cfg.d_model, cfg.d_inner, cfg.d_state, cfg.rank, cfg.d_conv
    projections = 2 * d * 2 * E + 2 * E * (R + 2 * N) + 2 * R * E + 2 * E * d
    return float(projections + 2 * k * E + 6 * E * N + 4 * E)


def mamba_forward_flops(cfg: MambaConfig, L: int) -> float:
    """Forward FLOPs of one sequence of ``L`` nucleotides through the isotropic Mamba (untied head)."""
    return float((cfg.n_layer * mamba_block_flops(cfg) + 2 * cfg.d_model * VOCAB) * L)
