r"""The networks of the chapter, written here (not imported from ``neuraloperator``; see the chapter's
"How this differs"): the Fourier neural operator (FNO, Li et al. 2021), its Tucker-factorised variant (TFNO,
Kossaifi et al.), and IRNO's refinement U-Net :math:`\Phi_\theta` (paper Sec. 3; the official code's U-Net:
circular padding, per-pixel LayerNorm over channels, GELU, max-pool down, bilinear up with
``align_corners=True``, output 1x1 convolution initialised Xavier-uniform with gain 0.1 and zero bias).

Shapes: fields are ``(batch, channels, n, n)``; x along dim -2, y along dim -1; transforms ``rfft2`` with
``norm="ortho"``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["SpectralConv2d", "TuckerSpectralConv2d", "FNO2d", "RefinementUNet", "ChannelLayerNorm",
           "count_parameters"]


def count_parameters(module: nn.Module, trainable_only: bool = False) -> int:
    """Real parameters of ``module`` (a complex entry counts twice)."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in module.parameters()
               if p.requires_grad or not trainable_only)


def _check_int(name: str, v, minimum: int) -> None:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= {minimum}")


class SpectralConv2d(nn.Module):
    r"""Fourier layer :math:`(\mathcal K v)(x) = \mathcal F^{-1}\big(R\cdot\mathcal F v\big)(x)`: the ``rfft2`` of the
    input, the modes :math:`0\le k_x<m` and :math:`-m\le k_x<0` (rows) times :math:`0\le k_y<m` (columns) each
    multiplied by a complex ``in x out`` matrix, every other mode set to zero, and the inverse transform.
    ``weight`` is ``(in, out, 2m, m)`` complex: rows ``0..m-1`` are :math:`k_x=0..m-1`, rows ``m..2m-1`` are
    :math:`k_x=-m..-1`."""

    def __init__(self, in_channels: int, out_channels: int, modes: int, seed_scale: float | None = None):
        super().__init__()
        _check_int("modes", modes, 1)
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        scale = seed_scale if seed_scale is not None else 1.0 / (in_channels * out_channels)
        self.weight = nn.Parameter(scale * torch.randn(in_channels, out_channels, 2 * modes, modes,
                                                       dtype=torch.cfloat))

    def full_weight(self) -> torch.Tensor:
        return self.weight

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        n1, n2 = v.shape[-2:]
        m = self.modes
        if 2 * m > n1 or m > n2 // 2 + 1:
            raise ValueError(f"modes={m} do not fit the {n1}x{n2} grid (need 2*modes <= {n1})")
        vh = torch.fft.rfft2(v, norm="ortho")
        w = self.full_weight().to(vh.dtype)
        out = torch.zeros(v.shape[0], self.out_channels, n1, n2 // 2 + 1, dtype=vh.dtype, device=v.device)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", vh[:, :, :m, :m], w[:, :, :m])
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", vh[:, :, -m:, :m], w[:, :, m:])
        return torch.fft.irfft2(out, s=(n1, n2), norm="ortho")


class TuckerSpectralConv2d(SpectralConv2d):
    r"""A Fourier layer whose weight tensor ``(in, out, 2m, m)`` is a Tucker product
    :math:`W = G\times_1 U_\text{in}\times_2 U_\text{out}\times_3 U_x\times_4 U_y` (TFNO), with each rank a
    fraction ``rank`` of its dimension: fewer parameters, the same modes."""

    def __init__(self, in_channels: int, out_channels: int, modes: int, rank: float = 0.5):
        nn.Module.__init__(self)
        _check_int("modes", modes, 1)
        if not 0 < rank <= 1:
            raise ValueError(f"rank={rank!r} is not allowed; it must be in (0, 1]")
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        dims = (in_channels, out_channels, 2 * modes, modes)
        ranks = tuple(max(1, math.ceil(rank * d)) for d in dims)
        self.core = nn.Parameter(torch.randn(*ranks, dtype=torch.cfloat) / math.sqrt(math.prod(ranks)))
        self.factors = nn.ParameterList([nn.Parameter(torch.randn(d, r, dtype=torch.cfloat) / math.sqrt(r))
                                         for d, r in zip(dims, ranks)])
        self._scale = 1.0 / (in_channels * out_channels)

    def full_weight(self) -> torch.Tensor:
        a, b, c, d = self.factors
        return self._scale * torch.einsum("pqrs,ip,oq,xr,ys->ioxy", self.core, a, b, c, d)


class FNO2d(nn.Module):
    """A Fourier neural operator: lifting (1x1 conv of the input channels and a periodic position embedding
    sin/cos of x and y), ``layers`` Fourier blocks ``gelu(K v + W v)`` (no activation after the last), and a
    two-layer 1x1 projection. ``factorization="tucker"`` makes it a TFNO. Input ``(B, in, n, n)``, output
    ``(B, out, n, n)``."""

    def __init__(self, in_channels: int, out_channels: int, *, width: int = 32, modes: int = 8, layers: int = 4,
                 factorization: str = "dense", rank: float = 0.5):
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels), ("width", width),
                        ("layers", layers)):
            _check_int(name, v, 1)
        if factorization not in ("dense", "tucker"):
            raise ValueError(f"factorization={factorization!r} is not allowed; allowed values: dense, tucker")
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        self.lift = nn.Conv2d(in_channels + 4, width, 1)
        make = (lambda: SpectralConv2d(width, width, modes)) if factorization == "dense" else (
            lambda: TuckerSpectralConv2d(width, width, modes, rank))
        self.spectral = nn.ModuleList([make() for _ in range(layers)])
        self.pointwise = nn.ModuleList([nn.Conv2d(width, width, 1) for _ in range(layers)])
        self.proj1 = nn.Conv2d(width, 2 * width, 1)
        self.proj2 = nn.Conv2d(2 * width, out_channels, 1)

    @staticmethod
    def position(v: torch.Tensor) -> torch.Tensor:
        n1, n2 = v.shape[-2:]
        x = torch.arange(n1, device=v.device, dtype=v.dtype) * (2 * math.pi / n1)
        y = torch.arange(n2, device=v.device, dtype=v.dtype) * (2 * math.pi / n2)
        X, Y = x.reshape(n1, 1).expand(n1, n2), y.reshape(1, n2).expand(n1, n2)
        pos = torch.stack([X.sin(), X.cos(), Y.sin(), Y.cos()])
        return pos.unsqueeze(0).expand(v.shape[0], -1, -1, -1)

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        if v.shape[1] != self.in_channels:
            raise ValueError(f"the FNO expects {self.in_channels} input channels, got {v.shape[1]}")
        h = self.lift(torch.cat([v, self.position(v)], dim=1))
        for i, (k, w) in enumerate(zip(self.spectral, self.pointwise)):
            h = k(h) + w(h)
            if i < len(self.spectral) - 1:
                h = F.gelu(h)
        return self.proj2(F.gelu(self.proj1(h)))


class ChannelLayerNorm(nn.Module):
    """LayerNorm over the channels at each pixel of ``(B, C, H, W)`` (no statistics across the batch, so the
    network acts on each sample alone: its Jacobian is block diagonal over the batch)."""

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1, channels, 1, 1))
        self.bias = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.eps = eps

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        mean = v.mean(1, keepdim=True)
        c = v - mean
        var = c.pow(2).mean(1, keepdim=True)
        return c * torch.rsqrt(var + self.eps) * self.weight + self.bias


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, padding_mode="circular"), ChannelLayerNorm(cout),
                         nn.GELU(),
                         nn.Conv2d(cout, cout, 3, padding=1, padding_mode="circular"), ChannelLayerNorm(cout),
                         nn.GELU())


class RefinementUNet(nn.Module):
    r"""IRNO's correction network :math:`\Phi_\theta([x; h])`: a U-Net of ``depth`` levels (channels
    ``base * 2**i``), a bottleneck of ``base * 2**depth`` channels, and a decoder that upsamples bilinearly,
    halves the channels with a 3x3 convolution, concatenates the skip and applies a double-conv block.
    Input ``(B, in_channels, n, n)`` with ``n`` divisible by ``2**depth``; output ``(B, out_channels, n, n)``."""

    def __init__(self, in_channels: int, out_channels: int, *, base: int = 16, depth: int = 4,
                 out_gain: float = 0.1):
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels), ("base", base),
                        ("depth", depth)):
            _check_int(name, v, 1)
        self.in_channels, self.out_channels, self.depth = in_channels, out_channels, depth
        ch = [base * 2 ** i for i in range(depth)]
        self.down = nn.ModuleList()
        c = in_channels
        for co in ch:
            self.down.append(_block(c, co))
            c = co
        self.bottleneck = _block(c, base * 2 ** depth)
        c = base * 2 ** depth
        self.up_conv = nn.ModuleList()
        self.up_block = nn.ModuleList()
        for co in reversed(ch):
            self.up_conv.append(nn.Conv2d(c, co, 3, padding=1, padding_mode="circular"))
            self.up_block.append(_block(2 * co, co))
            c = co
        self.out = nn.Conv2d(c, out_channels, 1)
        nn.init.xavier_uniform_(self.out.weight, gain=out_gain)
        nn.init.zeros_(self.out.bias)

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        if v.shape[1] != self.in_channels:
            raise ValueError(f"the refinement U-Net expects {self.in_channels} input channels ([x; h]), "
                             f"got {v.shape[1]}")
        n1, n2 = v.shape[-2:]
        f = 2 ** self.depth
        if n1 % f or n2 % f:
            raise ValueError(f"grid {n1}x{n2} is not divisible by 2**depth = {f} (depth={self.depth}); "
                             f"use a grid that is a multiple of {f} or a smaller depth")
        skips = []
        for blk in self.down:
            v = blk(v)
            skips.append(v)
            v = F.max_pool2d(v, 2)
        v = self.bottleneck(v)
        for conv, blk, skip in zip(self.up_conv, self.up_block, reversed(skips)):
            v = F.interpolate(v, scale_factor=2, mode="bilinear", align_corners=True)
            v = blk(torch.cat([conv(v), skip], dim=1))
        return self.out(v)
