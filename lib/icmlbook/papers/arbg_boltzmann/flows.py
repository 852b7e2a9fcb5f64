r"""The flow baseline: a neural spline flow (zuko's ``NSF``: rational-quadratic spline transforms in
masked autoregressive layers, Durkan et al. 2019) on the same standardised coordinates as the autoregressive
model, with exact log-densities for SNIS. Trained by maximum likelihood through :mod:`icmlbook.training`.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["SplineFlow"]


class SplineFlow(nn.Module):
    """``features``-dimensional NSF with ``transforms`` layers of ``hidden`` x ``depth`` MLP conditioners and
    ``bins`` spline knots (zuko 1.6). ``passes``: None for fully autoregressive layers (sampling needs one pass
    per feature), 2 for coupling layers (half the features condition the other half; two passes), as in the
    coupling variant of Durkan et al.; the order of the features is reversed between layers."""

    def __init__(self, features: int, *, transforms: int = 3, hidden: int = 64, depth: int = 2, bins: int = 8,
                 passes: int | None = None):
        super().__init__()
        import zuko
        self.features = features
        self.flow = zuko.flows.NSF(features=features, transforms=transforms, hidden_features=[hidden] * depth,
                                   bins=bins, passes=passes)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow().log_prob(x)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return -self.log_prob(x).mean()

    @torch.no_grad()
    def sample(self, n: int, batch_size: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(samples (n, features), log q (n,)); draws use torch's global generator (seed it first)."""
        bs = batch_size or n
        xs, lps = [], []
        for s in range(0, n, bs):
            x, lp = self.flow().rsample_and_log_prob((min(bs, n - s),))
            xs.append(x)
            lps.append(lp)
        return torch.cat(xs), torch.cat(lps)
