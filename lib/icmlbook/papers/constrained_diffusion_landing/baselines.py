r"""The two baselines of the sample-quality comparison, trained with the same network, trainer and loss
family as OLLA/ULLA and scored with the same metrics (dossier §7).

**RSGM**: a Riemannian score-based model on :math:`S^{d-1}` in the spirit of De Bortoli et al. (NeurIPS 2022):
the forward process is the geodesic random walk with the *exact* exponential map (``geomstats``'
``Hypersphere``, numpy backend, no network),

.. math:: x_{k+1}=\exp_{x_k}\!\big(\sigma_k\sqrt{\Delta t}\,\Pi_{x_k}z\big),

the backward sampler the same walk with the network's drift,
:math:`x_{k-1}=\exp_{x_k}\big(\Pi_{x_k}[\tfrac12\sigma^2\Delta t\,s_\theta(x_k,t_k)+\sigma\sqrt{\Delta t}\,z]\big)`,
and the loss the overdamped path-matching loss with the chord :math:`x_k-x_{k+1}` replaced by the logarithm
:math:`\log_{x_{k+1}}x_k` (tangent at :math:`x_{k+1}`). No landing, no projection: the iterates stay on the
sphere up to rounding. (RSGM itself trains with implicit or denoising score matching; here the objective is
the chapter's discrete path likelihood, so that only the geometry differs from OLLA.)

**Ambient**: an unconstrained variance-preserving diffusion in :math:`\mathbb R^d` (Euler–Maruyama of
:math:`dx=-\tfrac12\sigma^2x\,dt+\sigma\,dW`, prior :math:`\mathcal N(0,I)`), the same overdamped loss with
the drift :math:`b(x)=-x` (the network again learns twice the score), and one projection onto the set at the
end of sampling: the cheap anchor that ignores the constraint until the last step.

Shapes: points ``(B, d)``; paths ``(N+1, B, d)``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .constraints import ConstraintSet, Sphere
from .sde import ForwardPaths, Schedule, _violation

__all__ = ["BASELINES", "SphereGeodesics", "riemannian_forward_paths", "riemannian_loss", "riemannian_sample",
           "ambient_forward_paths", "ambient_loss", "ambient_sample", "baseline_forward_paths", "baseline_sample"]

BASELINES = ("RSGM", "Ambient")


class SphereGeodesics:
    """Exact exponential and logarithm maps of the unit sphere :math:`S^{d-1}\\subset\\mathbb R^d`, computed by
    ``geomstats.geometry.hypersphere.Hypersphere`` (its metric's ``exp`` and ``log``); torch float64 in and out."""

    def __init__(self, dim: int = 3):
        from geomstats.geometry.hypersphere import Hypersphere

        if dim < 2:
            raise ValueError(f"dim={dim!r} is not allowed; the sphere S^(dim-1) needs dim >= 2")
        self.dim = int(dim)
        self.space = Hypersphere(self.dim - 1)

    @staticmethod
    def _np(x: torch.Tensor) -> np.ndarray:
        return x.detach().cpu().numpy().astype(np.float64)

    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """:math:`\\exp_x(v)` for base points ``x`` (B, d) on the sphere and vectors ``v`` (B, d) (geomstats
        projects ``v`` on the tangent space first)."""
        out = self.space.metric.exp(self._np(v), self._np(x))
        return torch.as_tensor(np.asarray(out), dtype=torch.float64).reshape(x.shape)

    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """:math:`\\log_x(y)`: the tangent vector at ``x`` whose geodesic reaches ``y`` at time 1."""
        out = self.space.metric.log(self._np(y), self._np(x))
        return torch.as_tensor(np.asarray(out), dtype=torch.float64).reshape(x.shape)


def _tangent(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The sphere's exact tangent projection :math:`v-\\frac{\\langle v,x\\rangle}{\\|x\\|^2}x`."""
    return v - ((v * x).sum(1, keepdim=True) / (x * x).sum(1, keepdim=True)) * x


def _check_sphere(cs: ConstraintSet) -> None:
    if not isinstance(cs, Sphere) or cs.n_ineq:
        raise ValueError(f"the Riemannian baseline is implemented on the plain sphere only, got {cs.name}")


def riemannian_forward_paths(cs: ConstraintSet, x0: torch.Tensor, schedule: Schedule, N: int, method: str = "RSGM",
                             generator: torch.Generator | None = None, **_: object) -> ForwardPaths:
    """Geodesic random walk from the data ``x0`` (B, d) on the sphere ``cs`` (exact exponential map)."""
    _check_sphere(cs)
    geo = SphereGeodesics(cs.dim)
    t, sig, dt = schedule.grid(N)
    x, xs, viol = x0, [x0], [_violation(cs, x0)]
    for k in range(N):
        z = torch.randn(x.shape, generator=generator, dtype=x.dtype)
        x = geo.exp(x, _tangent(x, float(sig[k]) * math.sqrt(dt) * z))
        xs.append(x)
        viol.append(_violation(cs, x))
    B = x0.shape[0]
    none = torch.zeros(B, dtype=torch.bool)
    return ForwardPaths(torch.stack(xs), none, torch.stack(viol), none.clone(), "RSGM", path_failed=none.clone())


def riemannian_loss(net, cs: ConstraintSet, paths: torch.Tensor, schedule: Schedule) -> torch.Tensor:
    """The overdamped path-matching loss with the logarithm map: ``paths`` (N+1, B, d) on the sphere;
    :math:`\\tfrac12\\|(\\log_{x_{k+1}}x_k-\\tfrac12\\sigma_k^2\\Delta t\\,\\Pi_{x_{k+1}}s_\\theta)/(\\sigma_k\\sqrt{\\Delta t})\\|^2`
    summed over steps, averaged over paths."""
    N, B, d = paths.shape[0] - 1, paths.shape[1], paths.shape[2]
    t, sig, dt = schedule.grid(N)
    s = sig.to(paths.dtype).repeat_interleave(B).reshape(-1, 1)
    tt = t[1:].to(paths.dtype).repeat_interleave(B)
    x_next = paths[1:].reshape(-1, d).detach()
    x_prev = paths[:-1].reshape(-1, d).detach()
    with torch.no_grad():
        target = SphereGeodesics(d).log(x_next, x_prev)
    drift = s ** 2 * net(x_next, tt)
    r = (target - 0.5 * dt * _tangent(x_next, drift)) / (s * math.sqrt(dt))
    return 0.5 * (r ** 2).sum(-1).view(N, B).sum(0).mean()


@torch.no_grad()
def riemannian_sample(cs: ConstraintSet, net, n: int, schedule: Schedule, N: int, generator: torch.Generator) -> dict:
    """``n`` samples by the backward geodesic random walk from the uniform law on the sphere."""
    _check_sphere(cs)
    geo = SphereGeodesics(cs.dim)
    x = cs.uniform(n, generator)
    t, sig, dt = schedule.grid(N)
    viol = [_violation(cs, x)]
    for k in range(N, 0, -1):
        s = float(sig[k - 1])
        tk = torch.full((n,), float(t[k]), dtype=x.dtype)
        z = torch.randn(x.shape, generator=generator, dtype=x.dtype)
        x = geo.exp(x, _tangent(x, 0.5 * s * s * dt * net(x, tk) + s * math.sqrt(dt) * z))
        viol.append(_violation(cs, x))
    none = torch.zeros(n, dtype=torch.bool)
    return {"samples": x, "before_terminal": x.clone(), "violation": torch.stack(viol), "dropped": none,
            "terminal_failed": none.clone(), "path_failed": none.clone(), "nfe": N}


def ambient_forward_paths(cs: ConstraintSet, x0: torch.Tensor, schedule: Schedule, N: int, method: str = "Ambient",
                          generator: torch.Generator | None = None, **_: object) -> ForwardPaths:
    """Variance-preserving Euler–Maruyama paths in the ambient space:
    :math:`x_{k+1}=x_k-\\tfrac12\\sigma_k^2\\Delta t\\,x_k+\\sigma_k\\sqrt{\\Delta t}\\,z` (the constraint is ignored;
    the violation trace is recorded for the figure)."""
    t, sig, dt = schedule.grid(N)
    x, xs, viol = x0, [x0], [_violation(cs, x0)]
    for k in range(N):
        s = float(sig[k])
        z = torch.randn(x.shape, generator=generator, dtype=x.dtype)
        x = x - 0.5 * s * s * dt * x + s * math.sqrt(dt) * z
        xs.append(x)
        viol.append(_violation(cs, x))
    none = torch.zeros(x0.shape[0], dtype=torch.bool)
    return ForwardPaths(torch.stack(xs), none, torch.stack(viol), none.clone(), "Ambient", path_failed=none.clone())


def ambient_loss(net, cs: ConstraintSet, paths: torch.Tensor, schedule: Schedule) -> torch.Tensor:
    """Gaussian backward-kernel likelihood of the ambient paths, mean
    :math:`x_{k+1}+\\tfrac12\\sigma_k^2\\Delta t\\,(x_{k+1}+s_\\theta(x_{k+1},t_{k+1}))`, variance :math:`\\sigma_k^2\\Delta t`."""
    N, B, d = paths.shape[0] - 1, paths.shape[1], paths.shape[2]
    t, sig, dt = schedule.grid(N)
    s = sig.to(paths.dtype).repeat_interleave(B).reshape(-1, 1)
    tt = t[1:].to(paths.dtype).repeat_interleave(B)
    x_next = paths[1:].reshape(-1, d)
    x_prev = paths[:-1].reshape(-1, d)
    r = (x_prev - x_next - 0.5 * dt * s ** 2 * (x_next + net(x_next, tt))) / (s * math.sqrt(dt))
    return 0.5 * (r ** 2).sum(-1).view(N, B).sum(0).mean()


@torch.no_grad()
def ambient_sample(cs: ConstraintSet, net, n: int, schedule: Schedule, N: int, generator: torch.Generator) -> dict:
    """``n`` samples from :math:`\\mathcal N(0,I)` by the backward Euler–Maruyama chain, then one projection onto
    the set (``cs.project``); ``before_terminal`` holds the ambient points."""
    t, sig, dt = schedule.grid(N)
    x = torch.randn((n, cs.dim), generator=generator, dtype=torch.float64)
    viol = [_violation(cs, x)]
    for k in range(N, 0, -1):
        s = float(sig[k - 1])
        tk = torch.full((n,), float(t[k]), dtype=x.dtype)
        z = torch.randn(x.shape, generator=generator, dtype=x.dtype)
        x = x + 0.5 * s * s * dt * (x + net(x, tk)) + s * math.sqrt(dt) * z
        viol.append(_violation(cs, x))
    before = x.clone()
    x, failed = cs.project(x)
    none = torch.zeros(n, dtype=torch.bool)
    return {"samples": x, "before_terminal": before, "violation": torch.stack(viol), "dropped": none,
            "terminal_failed": failed, "path_failed": failed.clone(), "nfe": N}


def baseline_forward_paths(cs, x0, schedule, N, method, generator, **kw) -> ForwardPaths:
    """Dispatch on ``method`` in BASELINES (the signature of :func:`sde.forward_paths`)."""
    if method == "RSGM":
        return riemannian_forward_paths(cs, x0, schedule, N, method, generator)
    if method == "Ambient":
        return ambient_forward_paths(cs, x0, schedule, N, method, generator)
    raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(BASELINES)}")


def baseline_sample(cs, net, n, schedule, N, method, generator) -> dict:
    if method == "RSGM":
        return riemannian_sample(cs, net, n, schedule, N, generator)
    if method == "Ambient":
        return ambient_sample(cs, net, n, schedule, N, generator)
    raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(BASELINES)}")
