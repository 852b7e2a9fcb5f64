r"""Metrics of the chapter: VRMSE per field and iterate (The Well's definition), shell-wise spectral error and
its ratio to the base's, band ratios with stated edges, and the empirical Lipschitz constant of the update map
:math:`\mathcal F_x(h) = h + \alpha\Phi_\theta([x;h])` by power iteration on Jacobian-vector products.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch.func import jvp, vjp

__all__ = ["vrmse", "rfne", "acc", "shell_index", "shell_errors", "band_edges", "band_ratios", "lipschitz_power",
           "lipschitz_dense", "lipschitz_lanczos", "BANDS"]

BANDS = ("low", "mid", "high", "corner")


def vrmse(pred: torch.Tensor, y: torch.Tensor, eps: float = 1e-7) -> torch.Tensor:
    r"""Per sample and field, :math:`\sqrt{\langle(h-y)^2\rangle / (\langle(y-\langle y\rangle)^2\rangle+\epsilon)}`
    (spatial means over the last two dims); ``(B, C)``."""
    mse = (pred - y).pow(2).mean((-2, -1))
    var = (y - y.mean((-2, -1), keepdim=True)).pow(2).mean((-2, -1))
    return (mse / (var + eps)).sqrt()


def rfne(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""Relative Frobenius-norm error per sample, :math:`\|h - y\|_F / \|y\|_F` over every channel and grid point
    of a sample (the paper's RFNE for ERA5 super-resolution); ``(B,)``. Compute it on physical fields (not
    z-scored ones): the norm of ``y`` is not shift invariant."""
    d = (pred - y).flatten(1).norm(dim=1)
    return d / y.flatten(1).norm(dim=1).clamp_min(1e-30)


def acc(pred: torch.Tensor, y: torch.Tensor, climatology: torch.Tensor) -> torch.Tensor:
    r"""Anomaly correlation coefficient per sample: with anomalies :math:`a = h - c` and :math:`b = y - c` from the
    climatology :math:`c` (the per-pixel mean of the training targets),
    :math:`\sum a b / \sqrt{\sum a^2 \sum b^2}` over every channel and grid point (no latitude weights: the
    domain is a periodic square with equal cells). ``(B,)``, in [-1, 1]; invariant to a positive rescaling of the
    anomalies, so z-scored and physical fields give the same value."""
    a = (pred - climatology).flatten(1)
    b = (y - climatology).flatten(1)
    return (a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1)).clamp_min(1e-30)


def shell_index(n1: int, n2: int, device=None) -> torch.Tensor:
    """The integer radial wavenumber ``round(sqrt(kx^2 + ky^2))`` of each ``fft2`` mode ``(n1, n2)``."""
    kx = torch.fft.fftfreq(n1, d=1.0 / n1, dtype=torch.float64, device=device).reshape(n1, 1)
    ky = torch.fft.fftfreq(n2, d=1.0 / n2, dtype=torch.float64, device=device).reshape(1, n2)
    return (kx ** 2 + ky ** 2).sqrt().round().long()


def shell_errors(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r""":math:`E(r) = \sum_{\text{round}|k| = r}|\hat h(k) - \hat y(k)|^2` (``fft2``, ortho), summed over channels;
    ``(B, R)`` with ``R = max shell + 1``."""
    n1, n2 = pred.shape[-2:]
    e = torch.fft.fft2((pred - y).to(torch.float64), norm="ortho").abs().pow(2).sum(1)      # (B, n1, n2)
    idx = shell_index(n1, n2, pred.device).flatten()
    R = int(idx.max()) + 1
    out = torch.zeros(e.shape[0], R, dtype=torch.float64, device=pred.device)
    return out.index_add_(1, idx, e.reshape(e.shape[0], -1))


def band_edges(n: int) -> dict[str, tuple[float, float]]:
    """Our band edges (the paper's were not read): three equal parts of ``(0, n/2]`` (the axis Nyquist) as
    ``low (0, n/6]``, ``mid (n/6, n/3]``, ``high (n/3, n/2]``, and the corner shells ``(n/2, n/sqrt2]`` apart;
    shell 0 (the mean) is in no band. Intervals are of the integer shell index ``r``: ``lo < r <= hi``."""
    return {"low": (0.0, n / 6), "mid": (n / 6, n / 3), "high": (n / 3, n / 2), "corner": (n / 2, math.inf)}


def band_ratios(E: torch.Tensor, E0: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    r"""Per sample, :math:`\sum_{r\in\text{band}}E(r)/\sum_{r\in\text{band}}E_0(r)` for each band of
    :func:`band_edges`; ``E`` and ``E0`` are ``(B, R)``."""
    r = torch.arange(E.shape[-1], dtype=torch.float64)
    out = {}
    for name, (lo, hi) in band_edges(n).items():
        m = (r > lo) & (r <= hi)
        out[name] = E[:, m].sum(-1) / E0[:, m].sum(-1).clamp_min(1e-300)
    return out


def lipschitz_power(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, iters: int = 30,
                    generator: torch.Generator | None = None) -> torch.Tensor:
    r"""Per sample, the spectral norm of the Jacobian :math:`\partial f/\partial h` at ``h`` ``(B, ...)``, by power
    iteration on :math:`J^\top J` with ``torch.func.jvp`` and ``vjp`` (matrix free). ``f`` must act on each
    sample alone (block-diagonal Jacobian over the batch). Returns ``(B,)``."""
    B = h.shape[0]
    dims = tuple(range(1, h.ndim))
    v = torch.randn(h.shape, generator=generator, dtype=h.dtype).to(h.device)
    v = v / v.flatten(1).norm(dim=1).reshape(B, *([1] * (h.ndim - 1)))
    _, pullback = vjp(f, h)
    sigma = torch.zeros(B, dtype=h.dtype, device=h.device)
    for _ in range(int(iters)):
        _, jv = jvp(f, (h,), (v,))
        (jtjv,) = pullback(jv)
        nrm = jtjv.flatten(1).norm(dim=1)
        sigma = (jv.pow(2).sum(dims)).sqrt()                   # ||J v|| with ||v|| = 1
        v = jtjv / nrm.clamp_min(1e-30).reshape(B, *([1] * (h.ndim - 1)))
    _, jv = jvp(f, (h,), (v,))
    return torch.maximum(sigma, jv.pow(2).sum(dims).sqrt()).detach()


def lipschitz_lanczos(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, steps: int = 20,
                      generator: torch.Generator | None = None) -> torch.Tensor:
    r"""Per sample, the spectral norm of :math:`\partial f/\partial h` at ``h`` by ``steps`` Lanczos steps on
    :math:`J^\top J` (one JVP and one VJP per step, as a power-iteration step; full reorthogonalisation), the
    square root of the largest Ritz value. For a near-identity map the top singular values cluster near one and
    power iteration converges slowly; Lanczos converges much faster for the same number of products. Like the
    power iteration's Rayleigh quotient it can only underestimate. Returns ``(B,)``."""
    B = h.shape[0]
    d = h[0].numel()
    _, pullback = vjp(f, h)

    def op(v: torch.Tensor) -> torch.Tensor:
        _, jv = jvp(f, (h,), (v.reshape(h.shape),))
        return pullback(jv)[0].reshape(B, d)

    m = int(min(steps, d))
    Q = torch.zeros(B, m, d, dtype=h.dtype, device=h.device)
    a = torch.zeros(B, m, dtype=h.dtype, device=h.device)
    b = torch.zeros(B, m, dtype=h.dtype, device=h.device)
    q = torch.randn(B, d, generator=generator, dtype=h.dtype).to(h.device)
    q = q / q.norm(dim=1, keepdim=True)
    for j in range(m):
        Q[:, j] = q
        w = op(q)
        a[:, j] = (w * q).sum(-1)
        Qj = Q[:, : j + 1]
        for _ in range(2):                                      # full reorthogonalisation, twice
            w = w - torch.einsum("bjd,bj->bd", Qj, torch.einsum("bjd,bd->bj", Qj, w))
        b[:, j] = w.norm(dim=1)
        q = w / b[:, j:j + 1].clamp_min(1e-30)
    T = torch.diag_embed(a) + torch.diag_embed(b[:, :-1], 1) + torch.diag_embed(b[:, :-1], -1)
    return torch.linalg.eigvalsh(T)[:, -1].clamp_min(0).sqrt().detach()


def lipschitz_dense(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor) -> torch.Tensor:
    """The same spectral norms from the dense Jacobian (``torch.func.jacrev`` per sample, then ``svdvals``)."""
    from torch.func import jacrev

    out = []
    for b in range(h.shape[0]):
        def g(z, b=b):
            hb = torch.cat([h[:b], z.unsqueeze(0), h[b + 1:]])
            return f(hb)[b]

        J = jacrev(g)(h[b])
        d = h[b].numel()
        out.append(torch.linalg.svdvals(J.reshape(d, d))[0])
    return torch.stack(out).detach()
