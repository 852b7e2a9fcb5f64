r"""The path-matching losses (dossier §3.6; the official code's convention): the negative log-likelihood of
the forward paths under the network's Gaussian backward kernel, restricted to tangent directions.

Overdamped, with :math:`\sigma_k=\sigma(t_k)` and the network at :math:`(x_{k+1},t_{k+1})`:

.. math:: \mathcal L=\mathbb E\sum_{k}\tfrac12\Big\|\frac{\Pi_{x_{k+1}}\big(x_k-x_{k+1}-\tfrac12\sigma_k^2\Delta t\,s_\theta\big)}{\sigma_k\sqrt{\Delta t}}\Big\|^2
   \quad(\text{so } s_\theta \text{ learns twice the score}).

Underdamped, with :math:`v_{k+1}=\Pi_{x_{k+1}}[(x_{k+2}-x_{k+1})/(\sigma_{k+1}^2\Delta t)]` (the velocity *out of*
:math:`x_{k+1}`, what the backward sampler sees; a fresh tangent Gaussian at the last point) and
:math:`a=e^{-\gamma\sigma_k^2\Delta t}`:

.. math:: \mathcal L=\mathbb E\sum_k\tfrac12\Big\|\frac{\Pi_{x_{k+1}}\big(x_k-x_{k+1}+\sigma_k^2\Delta t\,[a\,v_{k+1}+\sigma_k^2\Delta t\,s_\theta]\big)}{\sqrt{1-a^2}\,\sigma_k^2\Delta t}\Big\|^2 .
"""

from __future__ import annotations

import math

import torch

from .constraints import ConstraintSet
from .sde import Schedule

__all__ = ["overdamped_loss", "underdamped_loss"]


def _tangent(cs: ConstraintSet, base: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return cs.project_tangent(base, v)


def overdamped_loss(net, cs: ConstraintSet, paths: torch.Tensor, schedule: Schedule) -> torch.Tensor:
    """``paths`` (N+1, B, d); returns the mean over paths of the summed per-step loss."""
    N, B, d = paths.shape[0] - 1, paths.shape[1], paths.shape[2]
    t, sig, dt = schedule.grid(N)
    s = sig.to(paths.dtype).repeat_interleave(B).reshape(-1, 1)
    tt = t[1:].to(paths.dtype).repeat_interleave(B)
    x_next = paths[1:].reshape(-1, d)
    x_prev = paths[:-1].reshape(-1, d)
    drift = s ** 2 * net(x_next, tt)
    r = _tangent(cs, x_next.detach(), x_prev - x_next - 0.5 * dt * drift) / (s * math.sqrt(dt))
    return 0.5 * (r ** 2).sum(-1).view(N, B).sum(0).mean()


def underdamped_loss(net, cs: ConstraintSet, paths: torch.Tensor, schedule: Schedule, gamma: float,
                     generator: torch.Generator | None = None) -> torch.Tensor:
    N, B, d = paths.shape[0] - 1, paths.shape[1], paths.shape[2]
    t, sig, dt = schedule.grid(N)
    sig = sig.to(paths.dtype)
    v = (paths[2:] - paths[1:-1]) / (sig[1:, None, None] ** 2 * dt)
    vN = torch.randn(paths[-1].shape, generator=generator, dtype=paths.dtype)
    v = torch.cat([v, vN.unsqueeze(0)], 0).reshape(-1, d)
    x_next = paths[1:].reshape(-1, d)
    x_prev = paths[:-1].reshape(-1, d)
    v = _tangent(cs, x_next, v)
    s = sig.repeat_interleave(B).reshape(-1, 1)
    a = torch.exp(-(s ** 2) * gamma * dt)
    sq = torch.sqrt(torch.abs(1.0 - a ** 2))
    tt = t[1:].to(paths.dtype).repeat_interleave(B)
    mean = x_next - s ** 2 * dt * (a * v + s ** 2 * dt * net(x_next, v, tt))
    r = _tangent(cs, x_next, x_prev - mean) / (sq * s ** 2 * dt)
    return 0.5 * (r ** 2).sum(-1).view(N, B).sum(0).mean()
