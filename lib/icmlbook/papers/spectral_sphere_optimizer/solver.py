r"""The Lagrange multiplier of the tangent constraint: the root of :math:`h(\lambda)`.

SSO's direction maximises :math:`\langle G, \Phi\rangle` over :math:`\|\Phi\|_2 = 1` subject to the tangent
constraint :math:`\langle\Theta,\Phi\rangle = 0` (:math:`\Theta = u_1v_1^\top`, the gradient of the spectral norm
at W). For a multiplier :math:`\lambda` the maximiser is :math:`\Phi(\lambda)=\operatorname{msign}(G+\lambda\Theta)`
and :math:`\lambda^\star` solves

.. math::  h(\lambda) = \langle \Theta, \operatorname{msign}(G + \lambda\Theta)\rangle = 0 .

:math:`h` is non-decreasing, lies in [-1, 1] and every root has :math:`|\lambda^\star| \le 2\|G\|_*` (paper,
App. A.2). The solver (dossier 3.5, as released): evaluate h at the warm start :math:`\lambda_0` (the previous
step's root); stop if :math:`|h|\le` tol; else step towards the root (h < 0: upwards) by 1e-3, doubling up to
``max_expand`` times until h changes sign; then bisect up to ``max_bisect`` times, returning the best
:math:`\lambda` seen. If no sign change is found the warm start is kept and the failure is *counted*.
All matrices of a batch (e.g. the heads of one projection) are solved together: each has its own bracket, and
every evaluation is one batched msign over the matrices still unsolved.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch

from .linalg import msign

__all__ = ["h_value", "LambdaSolution", "solve_lambda"]


def h_value(G: torch.Tensor, Theta: torch.Tensor, lam: torch.Tensor, msign_fn: Callable = msign) -> torch.Tensor:
    r""":math:`h(\lambda) = \langle\Theta, \operatorname{msign}(G+\lambda\Theta)\rangle` for matrices (n, m, k) and
    multipliers (n,)."""
    Phi = msign_fn(G + lam.view(-1, 1, 1) * Theta)
    return (Theta * Phi).sum((-2, -1))


@dataclasses.dataclass
class LambdaSolution:
    """lam (n,), h (n,) at lam, Phi (n, m, k) = msign(G + lam Theta), msign_calls (batched msign evaluations),
    evaluations (per-matrix msign evaluations, summed), fallbacks (matrices left at the warm start without a
    bracket), unconverged (matrices whose |h| > tol after the bisection budget), slope (n,) a secant estimate of
    h' over the final bracket (NaN where there was none), to size the next step's bracketing."""

    lam: torch.Tensor
    h: torch.Tensor
    Phi: torch.Tensor
    msign_calls: int
    evaluations: int
    fallbacks: int
    unconverged: int
    slope: torch.Tensor | None = None


def solve_lambda(G: torch.Tensor, Theta: torch.Tensor, lam0: torch.Tensor | None = None, tol: float = 1e-4,
                 max_expand: int = 10, max_bisect: int = 20, step0: float = 1e-3,
                 slope0: torch.Tensor | None = None, method: str = "illinois",
                 msign_fn: Callable = msign) -> LambdaSolution:
    """Root of h for each of the n matrices in ``G``/``Theta`` (n, m, k); ``lam0`` (n,) warm starts (zeros).

    ``method="bisect"`` is the released solver (bracket from ``step0``, doubling; bisection). ``"illinois"`` keeps
    the same bracket guarantee but (a) sizes the first bracketing step from ``slope0`` (n,), an estimate of
    h'(lambda) such as the previous step's (``LambdaSolution.slope``), as 1.5 |h| / slope, and (b) replaces bisection
    by the Illinois variant of false position inside the bracket (superlinear, never leaves the bracket), which
    needs fewer msign evaluations for the same tolerance."""
    if G.shape != Theta.shape or G.dim() != 3:
        raise ValueError(f"G and Theta must both be (n, m, k); got {tuple(G.shape)} and {tuple(Theta.shape)}")
    if method not in ("illinois", "bisect"):
        raise ValueError(f"method={method!r} is not allowed; allowed values: illinois, bisect")
    n = G.shape[0]
    lam0 = torch.zeros(n, dtype=G.dtype, device=G.device) if lam0 is None else lam0.to(G)
    calls, evals = 0, 0

    def evaluate(idx: torch.Tensor, lam: torch.Tensor):
        nonlocal calls, evals
        calls += 1
        evals += int(idx.numel())
        Phi = msign_fn(G[idx] + lam.view(-1, 1, 1) * Theta[idx])
        return (Theta[idx] * Phi).sum((-2, -1)), Phi

    everyone = torch.arange(n, device=G.device)
    h0, Phi0 = evaluate(everyone, lam0)
    best_lam, best_h, best_Phi = lam0.clone(), h0.clone(), Phi0.clone()

    def keep_best(idx, lam, h, Phi):
        better = h.abs() < best_h[idx].abs()
        if better.any():
            j = idx[better]
            best_lam[j], best_h[j], best_Phi[j] = lam[better], h[better], Phi[better]

    # bracketing: walk from lam0 towards the root until h changes sign
    direction = -torch.sign(h0)
    lo, hi = lam0.clone(), lam0.clone()
    h_lo, h_hi = h0.clone(), h0.clone()
    bracketed = torch.zeros(n, dtype=torch.bool, device=G.device)
    prev, h_prev = lam0.clone(), h0.clone()
    step = torch.full((n,), step0, dtype=G.dtype, device=G.device)
    if method == "illinois" and slope0 is not None:
        est = 1.5 * h0.abs() / slope0.to(G).clamp(min=1e-12)
        step = torch.where(torch.isfinite(est) & (est > 0), est, step)
    searching = h0.abs() > tol
    for _ in range(max_expand):
        idx = torch.nonzero(searching).squeeze(1)
        if idx.numel() == 0:
            break
        cand = prev[idx] + direction[idx] * step[idx]
        h, Phi = evaluate(idx, cand)
        keep_best(idx, cand, h, Phi)
        crossed = torch.sign(h) != torch.sign(h0[idx])
        hit = h.abs() <= tol
        done_here = crossed | hit
        j = idx[done_here]
        a, b = prev[idx][done_here], cand[done_here]
        ha, hb = h_prev[idx][done_here], h[done_here]
        swap = a > b
        lo[j], hi[j] = torch.where(swap, b, a), torch.where(swap, a, b)
        h_lo[j], h_hi[j] = torch.where(swap, hb, ha), torch.where(swap, ha, hb)
        bracketed[j] = crossed[done_here] & ~hit[done_here]
        searching[j] = False
        prev[idx], h_prev[idx] = cand, h
        step[idx] = step[idx] * 2.0
    fallbacks = int(searching.sum())            # no sign change within the expansion budget: warm start kept
    # inside the bracket: bisection (released) or Illinois false position
    active = bracketed.clone()
    last_side = torch.zeros(n, dtype=torch.int8, device=G.device)
    for _ in range(max_bisect):
        idx = torch.nonzero(active).squeeze(1)
        if idx.numel() == 0:
            break
        if method == "bisect":
            x = 0.5 * (lo[idx] + hi[idx])
        else:
            x = hi[idx] - h_hi[idx] * (hi[idx] - lo[idx]) / (h_hi[idx] - h_lo[idx])
            x = torch.where((x > lo[idx]) & (x < hi[idx]), x, 0.5 * (lo[idx] + hi[idx]))
        h, Phi = evaluate(idx, x)
        keep_best(idx, x, h, Phi)
        up = h < 0                               # h non-decreasing: the root lies above x
        iu, idn = idx[up], idx[~up]
        lo[iu], h_lo[iu] = x[up], h[up]
        hi[idn], h_hi[idn] = x[~up], h[~up]
        if method == "illinois":                 # the same end moved twice: halve the other end's value
            side = torch.where(up, 1, -1).to(torch.int8)
            again = side == last_side[idx]
            h_hi[iu[again[up]]] *= 0.5
            h_lo[idn[again[~up]]] *= 0.5
            last_side[idx] = side
        active[idx[h.abs() <= tol]] = False
    unconverged = int((best_h.abs() > tol).sum()) - fallbacks
    if fallbacks:  # the released code keeps the warm start where bracketing fails
        j = torch.nonzero(searching).squeeze(1)
        best_lam[j], best_h[j], best_Phi[j] = lam0[j], h0[j], Phi0[j]
    width = (hi - lo).clamp(min=1e-12)
    slope = torch.where(bracketed, (h_hi - h_lo).abs() / width, torch.full_like(width, float("nan")))
    return LambdaSolution(best_lam, best_h, best_Phi, calls, evals, fallbacks, max(unconverged, 0), slope)
