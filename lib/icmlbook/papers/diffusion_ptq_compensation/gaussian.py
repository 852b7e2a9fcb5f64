r"""A Gaussian toy where every sampler has a closed-form target: data :math:`x_0\sim\mathcal N(\mu,s^2I)`.

* DDPM noising :math:`x_t=\alpha_tx_0+\sigma_t\varepsilon` (:math:`\alpha_t^2=\bar\alpha_t`, :math:`\sigma_t^2=1-\bar\alpha_t`):
  the exact noise predictor is :math:`\varepsilon^\star(x,t)=\sigma_t(x-\alpha_t\mu)/(\alpha_t^2s^2+\sigma_t^2)`
  and the probability-flow ODE keeps :math:`z=(x_t-\alpha_t\mu)/\sqrt{\alpha_t^2s^2+\sigma_t^2}` constant.
* Rectified flow :math:`x_\sigma=(1-\sigma)x_0+\sigma\varepsilon`: with :math:`v_\sigma=(1-\sigma)^2s^2+\sigma^2`, the exact
  velocity :math:`E[\varepsilon-x_0\mid x]` is :math:`(\sigma-(1-\sigma)s^2)(x-(1-\sigma)\mu)/v_\sigma-\mu` and the ODE
  keeps :math:`z=(x-(1-\sigma)\mu)/\sqrt{v_\sigma}` constant.

Both predictors are affine in ``x``, so their Jacobian is the scalar :math:`\sigma_t/(\alpha_t^2s^2+\sigma_t^2)`
(resp. :math:`(\sigma-(1-\sigma)s^2)/v_\sigma`): the tests use them as exact references for the solvers'
convergence and for the error recursion with the Jacobian kept.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["GaussianEps", "GaussianVelocity", "ode_solution_ddpm", "ode_solution_flow"]


class GaussianEps(nn.Module):
    """The exact ε-predictor of :math:`\\mathcal N(\\mu, s^2I)` data on the DDPM schedule ``abar``."""

    def __init__(self, abar: np.ndarray, mu: float = 0.5, s: float = 0.3):
        super().__init__()
        self.register_buffer("abar", torch.tensor(abar, dtype=torch.float64))
        self.mu, self.s = mu, s

    def forward(self, x, t):
        ab = self.abar[t.long()].to(x.dtype).view(-1, *([1] * (x.dim() - 1)))
        al, si = ab.sqrt(), (1 - ab).sqrt()
        return si * (x - al * self.mu) / (ab * self.s ** 2 + si ** 2)


class GaussianVelocity(nn.Module):
    """The exact rectified-flow velocity of :math:`\\mathcal N(\\mu, s^2I)` data (time input 1000σ)."""

    def __init__(self, mu: float = 0.5, s: float = 0.3):
        super().__init__()
        self.mu, self.s = mu, s

    def forward(self, x, t):
        sig = (t.to(x.dtype) / 1000.0).view(-1, *([1] * (x.dim() - 1)))
        v = (1 - sig) ** 2 * self.s ** 2 + sig ** 2
        return (sig - (1 - sig) * self.s ** 2) * (x - (1 - sig) * self.mu) / v - self.mu


def ode_solution_ddpm(x_start: torch.Tensor, abar_start: float, abar_end: float, mu: float, s: float) -> torch.Tensor:
    """The probability-flow ODE's exact map from noise level ``abar_start`` to ``abar_end``."""
    def scale(ab):
        return np.sqrt(ab * s ** 2 + 1 - ab)
    z = (x_start - np.sqrt(abar_start) * mu) / scale(abar_start)
    return np.sqrt(abar_end) * mu + scale(abar_end) * z


def ode_solution_flow(x_start: torch.Tensor, sig_start: float, sig_end: float, mu: float, s: float) -> torch.Tensor:
    """The rectified-flow ODE's exact map from ``sig_start`` to ``sig_end``."""
    def scale(sg):
        return np.sqrt((1 - sg) ** 2 * s ** 2 + sg ** 2)
    z = (x_start - (1 - sig_start) * mu) / scale(sig_start)
    return (1 - sig_end) * mu + scale(sig_end) * z
