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
           "lipschitz_dense", "lipschitz_lanczos", "BANDS", "PRODUCTS"]

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


PRODUCTS = ("jvp", "double_vjp")


def _jacobian_products(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, products: str):
    r"""``(J, Jt)``: the maps :math:`v\mapsto J v` and :math:`u\mapsto J^\top u` of the Jacobian of ``f`` at ``h``.

    ``products="jvp"``: :math:`Jv` by ``torch.func.jvp`` (forward mode; it runs the forward pass again at every
    call), :math:`J^\top u` by the pullback of one ``torch.func.vjp``. ``products="double_vjp"``: both from that one
    forward pass, :math:`Jv` as the VJP of the (linear) pullback, :math:`u\mapsto J^\top u`, taken at zero (the
    "double-backward" trick: the transpose of a linear map's transpose), so no step recomputes ``f``. Same
    products to rounding; which is faster depends on how costly forward mode is through ``f``'s layers."""
    if products not in PRODUCTS:
        raise ValueError(f"products={products!r} is not allowed; it must be one of {PRODUCTS}")
    out, pullback = vjp(f, h)

    def jt(u: torch.Tensor) -> torch.Tensor:
        return pullback(u)[0]

    if products == "jvp":
        def j(v: torch.Tensor) -> torch.Tensor:
            return jvp(f, (h,), (v,))[1]
    else:
        _, pullback_of_pullback = vjp(pullback, torch.zeros_like(out))

        def j(v: torch.Tensor) -> torch.Tensor:
            return pullback_of_pullback((v,))[0]
    return j, jt


def lipschitz_power(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, iters: int = 30,
                    generator: torch.Generator | None = None, *, products: str = "jvp") -> torch.Tensor:
    r"""Per sample, the spectral norm of the Jacobian :math:`\partial f/\partial h` at ``h`` ``(B, ...)``, by power
    iteration on :math:`J^\top J` with ``torch.func.jvp`` and ``vjp`` (matrix free). ``f`` must act on each
    sample alone (block-diagonal Jacobian over the batch). ``products``: how :math:`Jv` is formed (see
    :func:`_jacobian_products`; ``"jvp"``, the default, as before). Returns ``(B,)``."""
    B = h.shape[0]
    dims = tuple(range(1, h.ndim))
    v = torch.randn(h.shape, generator=generator, dtype=h.dtype).to(h.device)
    v = v / v.flatten(1).norm(dim=1).reshape(B, *([1] * (h.ndim - 1)))
    J, Jt = _jacobian_products(f, h, products)
    sigma = torch.zeros(B, dtype=h.dtype, device=h.device)
    for _ in range(int(iters)):
        jv = J(v)
        jtjv = Jt(jv)
        nrm = jtjv.flatten(1).norm(dim=1)
        sigma = (jv.pow(2).sum(dims)).sqrt()                   # ||J v|| with ||v|| = 1
        v = jtjv / nrm.clamp_min(1e-30).reshape(B, *([1] * (h.ndim - 1)))
    jv = J(v)
    return torch.maximum(sigma, jv.pow(2).sum(dims).sqrt()).detach()


def _top_ritz(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The largest eigenvalue of the Lanczos tridiagonal matrices (diagonal ``a`` ``(B, j)``, off-diagonal ``b``
    ``(B, j-1)``) and the last component of its unit eigenvector, ``(B,)`` each."""
    T = torch.diag_embed(a) + torch.diag_embed(b, 1) + torch.diag_embed(b, -1)
    evals, evecs = torch.linalg.eigh(T)
    return evals[:, -1], evecs[:, -1, -1]


def lipschitz_lanczos(f: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, steps: int = 20,
                      generator: torch.Generator | None = None, *, tol: float | None = None, products: str = "jvp",
                      return_steps: bool = False):
    r"""Per sample, the spectral norm of :math:`\partial f/\partial h` at ``h`` by ``steps`` Lanczos steps on
    :math:`J^\top J` (one JVP and one VJP per step, as a power-iteration step; full reorthogonalisation), the
    square root of the largest Ritz value. For a near-identity map the top singular values cluster near one and
    power iteration converges slowly; Lanczos converges much faster for the same number of products. Like the
    power iteration's Rayleigh quotient it can only underestimate. Returns ``(B,)``.

    ``tol`` (default ``None``: always ``steps`` steps, as before): stop as soon as, for every sample, the top Ritz
    pair's residual bound :math:`\beta_j|s_j|` (the norm of :math:`J^\top J y - \theta y` for the Ritz vector
    :math:`y`; an eigenvalue of :math:`J^\top J` lies within it of :math:`\theta`) is at most ``tol`` times
    :math:`\theta`, or the Krylov space is invariant; ``steps`` is then the most steps taken. The bound is on
    :math:`\sigma^2`; the relative error of :math:`\sigma` is about half of it, and in practice much smaller (the
    eigenvalue error of a converged Ritz value is of the order of the squared residual over the spectral gap).
    ``products``: how :math:`Jv` is formed (see :func:`_jacobian_products`; ``"jvp"``, the default, as before).
    ``return_steps``: return ``(L, steps_taken)``."""
    if tol is not None and not (math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol={tol!r} is not allowed; it must be None or a finite number > 0")
    B = h.shape[0]
    d = h[0].numel()
    J, Jt = _jacobian_products(f, h, products)

    def op(v: torch.Tensor) -> torch.Tensor:
        return Jt(J(v.reshape(h.shape))).reshape(B, d)

    m = int(min(steps, d))
    Q = torch.zeros(B, m, d, dtype=h.dtype, device=h.device)
    a = torch.zeros(B, m, dtype=h.dtype, device=h.device)
    b = torch.zeros(B, m, dtype=h.dtype, device=h.device)
    q = torch.randn(B, d, generator=generator, dtype=h.dtype).to(h.device)
    q = q / q.norm(dim=1, keepdim=True)
    taken = m
    for j in range(m):
        Q[:, j] = q
        w = op(q)
        a[:, j] = (w * q).sum(-1)
        Qj = Q[:, : j + 1]
        for _ in range(2):                                      # full reorthogonalisation, twice
            w = w - torch.einsum("bjd,bj->bd", Qj, torch.einsum("bjd,bd->bj", Qj, w))
        b[:, j] = w.norm(dim=1)
        q = w / b[:, j:j + 1].clamp_min(1e-30)
        if tol is not None and j + 1 < m:
            theta, last = _top_ritz(a[:, : j + 1], b[:, :j])
            scale = a[:, : j + 1].abs().amax(1).clamp_min(torch.finfo(h.dtype).tiny)
            invariant = b[:, j] <= 10 * torch.finfo(h.dtype).eps * scale
            if bool(((b[:, j] * last.abs() <= tol * theta) | invariant).all()):
                taken = j + 1
                break
    a, b = a[:, :taken], b[:, :taken]
    T = torch.diag_embed(a) + torch.diag_embed(b[:, :-1], 1) + torch.diag_embed(b[:, :-1], -1)
    L = torch.linalg.eigvalsh(T)[:, -1].clamp_min(0).sqrt().detach()
    return (L, taken) if return_steps else L


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
