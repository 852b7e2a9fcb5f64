r"""Uniform binning of standardised coordinates into tokens, with one bin width for rounding and dequantisation.

On the clamp range :math:`[a, b)` with :math:`K` bins of width :math:`\Delta=(b-a)/K`, a value :math:`x` is the
token :math:`k=\lfloor (x-a)/\Delta\rfloor` (bin :math:`[a+k\Delta, a+(k+1)\Delta)`; :math:`x=b` goes to the last
bin), a token comes back as its centre :math:`a+(k+\tfrac12)\Delta`, or, dequantised, as a uniform draw over
its bin. The continuous density of a model that puts probability :math:`\pi(k)` on bin :math:`k` and spreads it
uniformly over the bin is :math:`\pi(k)/\Delta` per coordinate, so

.. math:: \log q(x) = \sum_{j=1}^{D} \log \pi(k_j \mid k_{<j}) - D\log\Delta .

The reference code rounds on a grid of spacing :math:`(b-a)/(K-1)` and dequantises with width :math:`(b-a)/K`
(dossier §3.1); here one :math:`\Delta` does both, and a value outside :math:`[a, b]` is refused (the density
would be wrong there), never silently clamped.
"""

from __future__ import annotations

import dataclasses
import math

import torch

__all__ = ["Discretizer"]


@dataclasses.dataclass(frozen=True)
class Discretizer:
    """``low``, ``high``: the clamp range; ``n_bins``: K >= 2."""

    low: float = -3.0
    high: float = 3.0
    n_bins: int = 1024

    def __post_init__(self):
        if isinstance(self.n_bins, bool) or not isinstance(self.n_bins, int) or self.n_bins < 2:
            raise ValueError(f"n_bins={self.n_bins!r} is not allowed; it must be an integer >= 2 (fewer than two "
                             "bins cannot represent a density)")
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.high > self.low):
            raise ValueError(f"low={self.low!r}, high={self.high!r} are not allowed; they must be finite with low < high")

    @property
    def delta(self) -> float:
        return (self.high - self.low) / self.n_bins

    def log_jacobian(self, dim: int) -> float:
        r""":math:`-D\log\Delta`: add to :math:`\sum\log\pi` for the continuous log-density of D coordinates."""
        return -dim * math.log(self.delta)

    def out_of_range(self, x: torch.Tensor) -> torch.Tensor:
        """Boolean mask of the values outside [low, high] (or not finite)."""
        return ~((x >= self.low) & (x <= self.high))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Values -> int64 tokens in 0..K-1; raises ValueError if any value lies outside [low, high]."""
        x = torch.as_tensor(x)
        bad = self.out_of_range(x)
        if bool(bad.any()):
            raise ValueError(f"{int(bad.sum())} of {x.numel()} coordinates lie outside the clamp range "
                             f"[{self.low}, {self.high}] (max |x| = {float(x[torch.isfinite(x)].abs().max()):.3f}); "
                             "widen the range rather than clamp")
        k = torch.floor((x.double() - self.low) / self.delta).long()
        return k.clamp_(0, self.n_bins - 1)

    def centres(self, k: torch.Tensor) -> torch.Tensor:
        return self.low + (k.double() + 0.5) * self.delta

    def decode(self, k: torch.Tensor, generator: torch.Generator | None = None, dequantise: bool = True) -> torch.Tensor:
        """Tokens -> float64 values: the bin centre, plus uniform noise over the bin when ``dequantise``."""
        k = torch.as_tensor(k)
        if k.numel() and (int(k.min()) < 0 or int(k.max()) >= self.n_bins):
            raise ValueError(f"tokens must be in 0..{self.n_bins - 1}; got {int(k.min())}..{int(k.max())}")
        x = self.centres(k)
        if dequantise:
            u = torch.rand(k.shape, generator=generator, dtype=torch.float64, device=k.device)
            x = x + (u - 0.5) * self.delta
        return x
