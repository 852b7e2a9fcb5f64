r"""The matrix functions of spectral-norm steepest descent: msign by Newton–Schulz, warm-started power iteration.

Paper: Xie et al., "Controlled LLM Training on Spectral Sphere", arXiv 2601.08393 (dossier sections 3.2, 3.6).

msign
    For :math:`G = U\Sigma V^\top` of rank r, :math:`\operatorname{msign}(G) = U_{:,:r}V_{:,:r}^\top`, the maximiser
    of :math:`\langle G, T\rangle` over the unit spectral ball (the steepest-descent direction of the spectral
    norm). Approximated by Newton–Schulz: make the matrix wide (transpose when it has more rows than columns),
    :math:`X \leftarrow X/\|X\|_F`, then for each coefficient triple :math:`(a, b, c)`:
    :math:`A = XX^\top`, :math:`X \leftarrow aX + (bA + cA^2)X`; every singular value s of X goes through the odd
    polynomial :math:`p(s) = as + bs^3 + cs^5`. The *Polar-Express* schedule (Amsel et al. 2025; the paper's
    choice) uses eight different triples and drives every s in (0, 1] towards 1; Keller Jordan's Muon uses one
    triple (3.4445, -4.7750, 2.0315) five times, which leaves the singular values spread in about [0.7, 1.2].
    Here in fp32 by default (the paper's text; its released PyTorch file casts to bf16 for speed). Matrices
    may carry leading batch axes (one msign per matrix, e.g. per attention head).
Power iteration
    :math:`v \leftarrow W^\top u/\|W^\top u\|`, :math:`u \leftarrow Wv/\|Wv\|`, :math:`\sigma = u^\top W v`, from the
    previous step's vectors (warm start), so that a few steps per training step track the top singular triplet.
Directional derivative of the spectral norm
    For :math:`W` with top singular value :math:`\sigma_1` of multiplicity k (left and right singular vectors
    :math:`U_c, V_c`, k columns each), :math:`\sigma_\max(W + tD) = \sigma_1 + t\,\lambda_\max\big(\operatorname{sym}
    (U_c^\top D V_c)\big) + O(t^2)` for :math:`t \to 0^+`, :math:`\operatorname{sym}(A) = (A + A^\top)/2` (the
    subdifferential of :math:`\|\cdot\|_2` at W is :math:`\{U_c S V_c^\top : S \succeq 0, \operatorname{tr} S = 1\}`).
    With k = 1 this is :math:`u_1^\top D v_1`. It is one-sided: along :math:`-D` it is
    :math:`-\lambda_\min(\operatorname{sym}(U_c^\top D V_c))`. :func:`sigma_max_derivative` treats every singular
    value within a relative gap ``gap`` of :math:`\sigma_1` as part of the cluster, which keeps the measure
    well conditioned where the top singular values are nearly equal (where :math:`u_1 v_1^\top` alone is not).
"""

from __future__ import annotations

import torch

__all__ = ["POLAR_EXPRESS", "KELLER_QUINTIC", "msign", "msign_svd", "power_iteration", "sigma_max_derivative"]

#: the eight Polar-Express triples (a, b, c), used in order (dossier 3.6)
POLAR_EXPRESS: tuple[tuple[float, float, float], ...] = (
    (8.2051, -22.9019, 16.4607), (4.0664, -2.8612, 0.5184), (3.9096, -2.8234, 0.5250), (3.2856, -2.4153, 0.4853),
    (2.2779, -1.6198, 0.3985), (1.8726, -1.2307, 0.3585), (1.8564, -1.2132, 0.3568), (1.8750, -1.2500, 0.3750),
)
#: Keller Jordan's quintic (torch.optim.Muon's default), repeated ``steps`` times
KELLER_QUINTIC: tuple[float, float, float] = (3.4445, -4.7750, 2.0315)


def msign(G: torch.Tensor, coefficients=POLAR_EXPRESS, steps: int | None = None, dtype: torch.dtype = torch.float32,
          eps: float = 1e-7) -> torch.Tensor:
    """Newton–Schulz msign of ``G`` (..., m, n), returned in ``G``'s dtype.

    ``coefficients``: a sequence of (a, b, c) triples used in order (``steps`` defaults to its length; a longer
    run repeats the last triple), or one triple repeated ``steps`` times. ``dtype``: the arithmetic (fp32; bf16
    reproduces torch.optim.Muon operation for operation)."""
    if G.dim() < 2:
        raise ValueError(f"msign needs a matrix (..., m, n); got shape {tuple(G.shape)}")
    triples = [tuple(coefficients)] if isinstance(coefficients[0], (int, float)) else [tuple(c) for c in coefficients]
    n_steps = len(triples) if steps is None else int(steps)
    if n_steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be >= 1")
    schedule = [triples[min(i, len(triples) - 1)] for i in range(n_steps)]
    X = G.to(dtype)
    tall = G.shape[-2] > G.shape[-1]
    if tall:
        X = X.transpose(-2, -1)
    norm = torch.linalg.vector_norm(X, dim=(-2, -1), keepdim=True).clamp(min=eps)
    X = X / norm
    lead = X.shape[:-2]
    if X.dim() > 3:
        X = X.reshape(-1, *X.shape[-2:])
    mm = torch.baddbmm if X.dim() == 3 else torch.addmm
    for a, b, c in schedule:
        A = X @ X.transpose(-2, -1)
        B = mm(A, A, A, beta=b, alpha=c)                      # b A + c A^2
        X = mm(X, B, X, beta=a)                               # a X + (b A + c A^2) X
    X = X.reshape(*lead, *X.shape[-2:])
    if tall:
        X = X.transpose(-2, -1)
    return X.to(G.dtype)


def msign_svd(G: torch.Tensor, rtol: float = 1e-6) -> torch.Tensor:
    """The exact polar factor :math:`U_{:,:r}V_{:,:r}^\\top` from an SVD (singular values below ``rtol`` x the
    largest count as zero); the reference for :func:`msign`."""
    U, S, Vh = torch.linalg.svd(G, full_matrices=False)
    keep = (S > rtol * S.amax(-1, keepdim=True)).to(G.dtype)
    return (U * keep.unsqueeze(-2)) @ Vh


def power_iteration(W: torch.Tensor, u: torch.Tensor | None = None, steps: int = 50, rtol: float | None = 1e-6,
                    check_every: int = 5, eps: float = 1e-12, stop_on: str = "sigma"
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Top singular triplet of ``W`` (..., m, n): returns ``(sigma (...,), u (..., m), v (..., n))``.

    ``u``: the warm start (the previous step's left vector); ``None`` starts from all ones (the released code's
    choice; deterministic). At most ``steps`` iterations; with ``rtol``, stops early once every sigma changed by
    less than ``rtol`` (relative) over the last ``check_every`` iterations (``stop_on="sigma"``), or every left
    vector moved by less than ``rtol`` (``stop_on="vector"``: sigma settles long before the vector where the top
    gap is small, since its error is second order in the vector's; issue 28). Runs in fp32 at least."""
    if steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be >= 1")
    if stop_on not in ("sigma", "vector"):
        raise ValueError(f"stop_on={stop_on!r} is not allowed; allowed values: sigma, vector")
    Wf = W.float() if W.dtype in (torch.float16, torch.bfloat16) else W
    if u is None:
        u = torch.ones(Wf.shape[:-1], dtype=Wf.dtype, device=W.device)
    u = u.to(Wf.dtype)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True).clamp(min=eps)
    # one batch axis and column vectors, so that each iteration is two bmm calls and few other ops (the loop's
    # Python overhead dominates at these sizes; session 9: the same arithmetic as the matmul/squeeze form, bit for
    # bit, about 15-30 % less CPU time). W^T u is taken as the row u^T W (session 11: the same products, bit for bit
    # on the shapes of the chapter's runs, about 35 % less CPU time than bmm(W^T, u), whose batched product with a
    # transposed operand and one column is slow; the second product keeps its form, whose row variant rounds
    # differently)
    lead = Wf.shape[:-2]
    W3 = Wf.reshape(-1, *Wf.shape[-2:])
    u = u.reshape(-1, u.shape[-1], 1)
    bmm, norm = torch.bmm, torch.linalg.vector_norm
    last = None
    for i in range(steps):
        v = bmm(u.transpose(-2, -1), W3)                        # (n, 1, cols) = (W^T u)^T
        v = (v / norm(v, dim=-1, keepdim=True).clamp_(min=eps)).transpose(-2, -1)
        Wv = bmm(W3, v)
        sigma = norm(Wv, dim=-2, keepdim=True)                  # = u_next^T W v
        u = Wv / sigma.clamp(min=eps)
        if rtol is not None and (i + 1) % check_every == 0:
            now = sigma if stop_on == "sigma" else u
            if last is not None:
                moved = ((now - last).abs() <= rtol * now.abs()) if stop_on == "sigma" else \
                    (norm(now - last, dim=-2) <= rtol)
                if bool(moved.all()):
                    break
            last = now
    return sigma.reshape(lead), u.reshape(*lead, -1), v.reshape(*lead, -1)


def sigma_max_derivative(W: torch.Tensor, D: torch.Tensor, gap: float = 0.0, svd: tuple | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor]:
    r"""The one-sided directional derivative of :math:`\sigma_\max` at ``W`` along ``D`` (both (..., m, n)), over
    the top cluster: ``(derivative (...,), cluster size (...,))``, in float64.

    The cluster is every singular value :math:`\sigma_i \ge (1 - \mathrm{gap})\,\sigma_1` (``gap = 0``: the values
    equal to :math:`\sigma_1`); the derivative is :math:`\lambda_\max(\operatorname{sym}(U_c^\top D V_c))`, which
    is the exact one-sided derivative when the cluster is exactly degenerate and :math:`u_1^\top D v_1` when the
    cluster is :math:`\sigma_1` alone (see the module docstring). ``svd``: W's reduced SVD ``(U, S, Vh)`` in float64,
    when the caller has it already."""
    if W.shape != D.shape or W.dim() < 2:
        raise ValueError(f"W and D must be matrices (..., m, n) of one shape; got {tuple(W.shape)} and {tuple(D.shape)}")
    if not 0.0 <= gap < 1.0:
        raise ValueError(f"gap={gap!r} is not allowed; it must be in [0, 1)")
    U, S, Vh = torch.linalg.svd(W.double(), full_matrices=False) if svd is None else svd
    inside = S >= (1.0 - gap) * S[..., :1]                                   # (..., k); the first is always inside
    c = int(inside.sum(-1).max())                                            # singular values are sorted: a prefix
    inside = inside[..., :c]
    M = U[..., :c].transpose(-2, -1) @ D.double() @ Vh[..., :c, :].transpose(-2, -1)   # (..., c, c)
    A = 0.5 * (M + M.transpose(-2, -1))
    pair = inside.unsqueeze(-1) & inside.unsqueeze(-2)
    # outside the cluster: zero couplings and a diagonal below every eigenvalue of the cluster's block, so the
    # largest eigenvalue of the whole matrix is the cluster block's
    low = -(2.0 * torch.linalg.matrix_norm(A, ord="fro") + 1.0)
    A = torch.where(pair, A, torch.zeros_like(A))
    eye = torch.eye(A.shape[-1], dtype=torch.bool, device=A.device)
    A = torch.where(eye & ~inside.unsqueeze(-1), low[..., None, None].expand_as(A), A)
    return torch.linalg.eigvalsh(A)[..., -1], inside.sum(-1)
