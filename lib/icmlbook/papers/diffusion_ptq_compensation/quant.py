r"""Fake quantisation of a denoiser with PyTorch's built-in fake-quantisation ops.

* Weights: symmetric, per output channel, :math:`s_c=\max|W_{c,:}|/q_{\max}`, :math:`q_{\max}=2^{b-1}-1`
  (``torch.fake_quantize_per_channel_affine``).
* Activations (the input of every quantised layer): symmetric and dynamic, either one scale per sample
  (``"tensor"``: the per-tensor scale a batch-of-one deployment computes) or one per token (``"token"``:
  per row of a linear layer's input, per pixel of a convolution's input).
* Bases: ``"rtn"``, round-to-nearest of every layer; ``"svd"``, an **SVDQuant-lite** (a simplification of
  Li et al. 2025, labelled as such): SmoothQuant-style migration :math:`s_j=\max|X_j|^{\alpha}/\max|W_{:,j}|^{1-\alpha}`
  from calibration activations, a rank-``r`` full-precision branch :math:`L` of the smoothed weight (its
  truncated SVD) that reads the unquantised smoothed input, and the residual :math:`W'-L` quantised.

The time-embedding layers stay in full precision (as quantised diffusion pipelines usually keep them), and
so do a DiT's adaLN modulation layers (``ada``, ``ada_out``), which read only the time embedding. A DiT's
attention products (:math:`QK^\top`, attention × V) are not quantised: only the linear layers' inputs are.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["BASES", "ACT_MODES", "check_bits", "fake_quant_weight", "fake_quant_act", "QuantLayer", "quantize_model",
           "quantizable_layers"]

BASES = ("rtn", "svd")
ACT_MODES = ("tensor", "token")


def check_bits(name: str, bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= 8:
        raise ValueError(f"{name}={bits!r} is not allowed; it must be an integer from 2 to 8")
    return bits


def _qmax(bits: int) -> int:
    return 2 ** (bits - 1) - 1


def fake_quant_weight(w: torch.Tensor, bits: int) -> torch.Tensor:
    """Symmetric per-output-channel fake quantisation of a weight (axis 0)."""
    check_bits("w_bits", bits)
    q = _qmax(bits)
    flat = w.detach().reshape(w.shape[0], -1)
    scale = (flat.abs().amax(1) / q).clamp_min(1e-12).float()
    zp = torch.zeros(w.shape[0], dtype=torch.int32, device=w.device)
    return torch.fake_quantize_per_channel_affine(w.detach().float(), scale, zp, 0, -q, q)


def fake_quant_act(x: torch.Tensor, bits: int, mode: str = "tensor") -> torch.Tensor:
    """Symmetric dynamic fake quantisation of a layer input: one scale per sample (``tensor``) or per token."""
    check_bits("a_bits", bits)
    if mode not in ACT_MODES:
        raise ValueError(f"act_mode={mode!r} is not allowed; allowed values: {', '.join(ACT_MODES)}")
    q = _qmax(bits)
    if mode == "tensor":
        rows = x.reshape(x.shape[0], -1)
    elif x.dim() in (2, 3):                  # a row of a linear layer's input (B, D) or (B, N, D) is a token
        rows = x.reshape(-1, x.shape[-1])
    else:                                    # (B, C, H, W): a token is a pixel
        rows = x.permute(0, 2, 3, 1).reshape(-1, x.shape[1])
    scale = (rows.detach().abs().amax(1, keepdim=True) / q).clamp_min(1e-12).float()
    # the arithmetic of torch.fake_quantize_per_channel_affine (zero point 0): round-half-even of x·(1/s), clamped,
    # times s; in three in-place passes it is the same numbers (tested) at under half the CPU time (session 9)
    out = torch.round(rows * (1.0 / scale)).clamp_(-q, q).mul_(scale)
    if mode == "tensor" or x.dim() in (2, 3):
        return out.reshape(x.shape)
    B, C, H, W = x.shape
    return out.reshape(B, H, W, C).permute(0, 3, 1, 2)


class QuantLayer(nn.Module):
    """A Linear or Conv2d with fake-quantised weight and input, optionally smoothed and with a
    full-precision low-rank branch (``lowrank``)."""

    def __init__(self, layer: nn.Module, w_bits: int, a_bits: int, act_mode: str = "tensor",
                 smooth: torch.Tensor | None = None, rank: int = 0):
        super().__init__()
        self.kind = "linear" if isinstance(layer, nn.Linear) else "conv"
        self.a_bits, self.act_mode = a_bits, act_mode
        self.conv_args = {} if self.kind == "linear" else dict(stride=layer.stride, padding=layer.padding)
        w = layer.weight.detach().clone()
        shape = (1, -1) + ((1, 1) if self.kind == "conv" else ())
        if smooth is not None:
            w = w * smooth.view(shape)
            self.register_buffer("smooth", smooth.clone())
        else:
            self.smooth = None
        if rank > 0:
            flat = w.reshape(w.shape[0], -1)
            U, S, Vh = torch.linalg.svd(flat, full_matrices=False)
            r = min(rank, S.numel())
            low = (U[:, :r] * S[:r]) @ Vh[:r]
            self.register_buffer("lowrank", low.reshape(w.shape))
            w = w - self.lowrank
        else:
            self.lowrank = None
        self.register_buffer("weight_q", fake_quant_weight(w, w_bits))
        self.bias = None if layer.bias is None else nn.Parameter(layer.bias.detach().clone(), requires_grad=False)

    def _apply_w(self, x, w, bias):
        return F.linear(x, w, bias) if self.kind == "linear" else F.conv2d(x, w, bias, **self.conv_args)

    def forward(self, x):
        if self.smooth is not None:
            x = x / (self.smooth.view(1, -1, 1, 1) if self.kind == "conv" else self.smooth)
        out = self._apply_w(fake_quant_act(x, self.a_bits, self.act_mode), self.weight_q, self.bias)
        if self.lowrank is not None:
            out = out + self._apply_w(x, self.lowrank, None)
        return out


def quantizable_layers(model: nn.Module) -> list[str]:
    """Names of the Linear/Conv2d layers that get quantised (all but the time-embedding path)."""
    return [n for n, m in model.named_modules() if isinstance(m, (nn.Linear, nn.Conv2d))
            and not n.startswith("tmlp") and not n.endswith(".t") and not n.split(".")[-1].startswith("ada")]


@torch.no_grad()
def _input_absmax(model: nn.Module, names: list[str], calib: tuple[torch.Tensor, torch.Tensor]) -> dict:
    stats: dict[str, torch.Tensor] = {}
    hooks = []
    mods = dict(model.named_modules())
    for n in names:
        def hook(mod, inp, out, n=n):
            x = inp[0]
            dims = [0, 2, 3] if x.dim() == 4 else list(range(x.dim() - 1))
            stats[n] = x.abs().amax(dims)
        hooks.append(mods[n].register_forward_hook(hook))
    try:
        model(*calib)
    finally:
        for h in hooks:
            h.remove()
    return stats


def quantize_model(model: nn.Module, w_bits: int, a_bits: int, base: str = "rtn", *, act_mode: str = "tensor",
                   rank: int = 4, alpha: float = 0.5, calib: tuple[torch.Tensor, torch.Tensor] | None = None) -> nn.Module:
    """A fake-quantised copy of ``model`` (WxAy with ``base`` ``rtn`` or ``svd``; ``calib`` = (x, t) inputs
    for the smoothing statistics of ``svd``)."""
    check_bits("w_bits", w_bits)
    check_bits("a_bits", a_bits)
    if base not in BASES:
        raise ValueError(f"base={base!r} is not allowed; allowed values: {', '.join(BASES)}")
    if act_mode not in ACT_MODES:
        raise ValueError(f"act_mode={act_mode!r} is not allowed; allowed values: {', '.join(ACT_MODES)}")
    if base == "svd" and calib is None:
        raise ValueError("base='svd' needs calib=(x, t) calibration inputs for the smoothing statistics")
    q = copy.deepcopy(model).eval()
    names = quantizable_layers(q)
    stats = _input_absmax(q, names, calib) if base == "svd" else {}
    for n in names:
        parent_name, _, child = n.rpartition(".")
        parent = q.get_submodule(parent_name) if parent_name else q
        layer = getattr(parent, child)
        smooth = None
        if base == "svd":
            wmax = layer.weight.detach().abs().reshape(layer.weight.shape[0], layer.weight.shape[1], -1).amax((0, 2))
            smooth = (stats[n].clamp_min(1e-5) ** alpha / wmax.clamp_min(1e-5) ** (1 - alpha)).clamp(1e-2, 1e2)
        setattr(parent, child, QuantLayer(layer, w_bits, a_bits, act_mode, smooth, rank if base == "svd" else 0))
    for p in q.parameters():
        p.requires_grad_(False)
    return q
