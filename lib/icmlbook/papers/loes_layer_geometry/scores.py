r"""The building blocks of LOES: closed-form ridge probe, isotropy, redundancy, centroid-simplex
(triangle) score and residualisation against already selected layers.

Paper: A. Batra, A. Gumber, A. Khandelwal, J. Khemani, A. Gupta, "Uncovering the Latent Potential of
Deep Intermediate Representations", ICML 2026, arXiv 2605.23033. The formulas are reconstructed from
the authors' MIT-licensed code (the paper's method section was not reachable); this module is our own
implementation of them, in float64 torch.

Notation: a layer's embeddings :math:`X\in\mathbb R^{n\times D}`, targets :math:`Y\in\mathbb R^{n\times q}`
(one-hot for classification), centred :math:`\bar X = X-\mathbf 1\mu_X^\top`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

__all__ = [
    "as_f64", "one_hot", "ridge_fit", "ridge_predict", "ridge_mse", "isotropy", "probe_and_isotropy", "spectrum_moments", "redundancy",
    "triangle_area", "triangle_score", "residualise", "Residualiser", "check_labels",
]


def as_f64(x) -> torch.Tensor:
    """A float64 CPU tensor view/copy of an array or tensor."""
    if isinstance(x, torch.Tensor):
        return x.detach().to(dtype=torch.float64, device="cpu")
    return torch.as_tensor(np.asarray(x), dtype=torch.float64)


def check_labels(n: int, y, name: str = "y") -> np.ndarray:
    """``y`` as an array of length ``n``; a ValueError naming the mismatch otherwise."""
    y = np.asarray(y.detach().cpu() if isinstance(y, torch.Tensor) else y)
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} rows but the embeddings have {n}: "
                         "embeddings and labels must describe the same examples")
    return y


def one_hot(y, n_classes: int | None = None) -> torch.Tensor:
    """Integer labels (n,) -> float64 one-hot (n, C)."""
    y = torch.as_tensor(np.asarray(y), dtype=torch.long)
    c = int(n_classes if n_classes is not None else int(y.max()) + 1)
    return torch.nn.functional.one_hot(y, c).to(torch.float64)


def _solve_ridge(Xc: torch.Tensor, R: torch.Tensor, lam: float) -> torch.Tensor:
    r""":math:`(\bar X^\top\bar X+\lambda I)^{-1}\bar X^\top R`, via the (D x D) primal system or, when
    D > n, the (n x n) dual one :math:`\bar X^\top(\bar X\bar X^\top+\lambda I)^{-1}R` (push-through
    identity; the two are equal)."""
    n, d = Xc.shape
    if d <= n:
        G = Xc.T @ Xc
        G.diagonal().add_(lam)
        return _spd_solve(G, Xc.T @ R)
    K = Xc @ Xc.T
    K.diagonal().add_(lam)
    return Xc.T @ _spd_solve(K, R)


def _spd_solve(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """``A^-1 B`` for a symmetric positive definite ``A`` (a Gram matrix plus a ridge): Cholesky, with LU as
    the fallback when rounding makes the factorisation fail."""
    chol, info = torch.linalg.cholesky_ex(A)
    if int(info) == 0:
        return torch.cholesky_solve(B, chol)
    return torch.linalg.solve(A, B)


def ridge_fit(X, Y, lam: float = 1e-3) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Closed-form ridge probe with an unpenalised intercept (dossier eq. for :math:`W,b`).

    :math:`W=(\bar X^\top\bar X+\lambda I)^{-1}\bar X^\top\bar Y`, :math:`b=\mu_Y-W^\top\mu_X`.

    Parameters
    ----------
    X : (n, D) array; Y : (n, q) array (or (n,) -> treated as one column); lam : ridge, > 0.

    Returns
    -------
    W : (D, q) float64 tensor; b : (q,) float64 tensor.
    """
    X, Y = as_f64(X), as_f64(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    check_labels(X.shape[0], Y, "Y")
    mx, my = X.mean(0), Y.mean(0)
    W = _solve_ridge(X - mx, Y - my, lam)
    return W, my - mx @ W


def ridge_predict(X, W: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``X @ W + b`` in float64, shape (n, q)."""
    return as_f64(X) @ W + b


def ridge_mse(X, Y, lam: float = 1e-3) -> tuple[float, torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""In-sample error of the ridge probe, :math:`\frac1{nq}\lVert XW+\mathbf 1b^\top-Y\rVert_F^2`.

    Returns ``(mse, prediction (n, q), W, b)``.
    """
    Y = as_f64(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    W, b = ridge_fit(X, Y, lam)
    pred = ridge_predict(X, W, b)
    return float(((pred - Y) ** 2).mean()), pred, W, b


def spectrum_moments(M: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Mean of the eigenvalues of a symmetric ``M`` (m x m) and the sum of their squared deviations,
    without an eigensolve: :math:`\mu=\operatorname{tr}M/m` and
    :math:`\sum_i(\lambda_i-\mu)^2=\lVert M-\mu I\rVert_F^2` (the centred form: no cancellation when the
    spectrum is nearly flat). Differentiable everywhere, also at repeated eigenvalues."""
    m = M.shape[0]
    mu = torch.diagonal(M).sum() / m
    dev = M - mu * torch.eye(m, dtype=M.dtype, device=M.device)
    return mu, (dev * dev).sum()


def _mean_std_of_spectrum(M: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and population std of the eigenvalues of a symmetric ``M`` (see :func:`spectrum_moments`)."""
    mu, ssd = spectrum_moments(M)
    return mu, torch.sqrt(ssd / M.shape[0])


def isotropy(X, eig_floor: float = 1e-6, svd_above: int = 512) -> float:
    r"""Spectral isotropy :math:`\mathcal I(X)=\operatorname{mean}(\lambda)/(\operatorname{std}(\lambda)+10^{-6})`.

    :math:`\lambda` are the eigenvalues of :math:`\Sigma=\bar X^\top\bar X/n+10^{-6}I` (D <= ``svd_above``)
    or, for wider layers, the squared singular values of :math:`\bar X` over n clamped at
    ``eig_floor`` (the official code's two routes); std is the population std. Larger = more isotropic;
    for an isotropic Gaussian with n samples in D dimensions it is about :math:`\sqrt{n/D}`
    (Marchenko-Pastur), and it is unbounded as :math:`n/D\to\infty`.

    No eigensolve is needed when no eigenvalue is clamped: mean and std of the spectrum follow from the
    trace and the Frobenius norm of the (smaller) Gram matrix. For the wide route a Cholesky factorisation
    of :math:`G/n-10^{-6}I` tells whether every eigenvalue is above the floor; if not (rank-deficient
    layers, D >= n) the eigenvalues of the smaller Gram matrix are computed and clamped (the same numbers
    as the SVD's squares up to :math:`10^{-16}\lambda_{\max}`).
    """
    X = as_f64(X)
    Xc = X - X.mean(0)
    return _isotropy_of(Xc, None, eig_floor, svd_above)


def _isotropy_of(Xc: torch.Tensor, gram: torch.Tensor | None, eig_floor: float, svd_above: int) -> float:
    """:func:`isotropy` of centred ``Xc``, reusing ``gram`` (the smaller centred Gram matrix) when given."""
    n, d = Xc.shape
    if d > svd_above:
        G = gram if gram is not None else (Xc.T @ Xc if d <= n else Xc @ Xc.T)
        M = G / n
        shifted = M.clone()
        shifted.diagonal().sub_(eig_floor)
        if int(torch.linalg.cholesky_ex(shifted)[1]) == 0:      # every eigenvalue above the floor
            mu, sd = _mean_std_of_spectrum(M)
        else:
            lam = torch.linalg.eigvalsh(M).clamp_min(eig_floor)
            mu, sd = lam.mean(), lam.std(correction=0)
    else:
        S = (gram.clone() if gram is not None and d <= n else Xc.T @ Xc) / n
        S.diagonal().add_(eig_floor)
        mu, sd = _mean_std_of_spectrum(S)
    return float(mu / (sd + 1e-6))


def probe_and_isotropy(X, Y, lam: float = 1e-3, eig_floor: float = 1e-6,
                       svd_above: int = 512) -> tuple[float, float, torch.Tensor]:
    """``(isotropy(X), ridge_mse(X, Y, lam)[0], ridge prediction)`` from one centred Gram matrix.

    LOES's first step needs both numbers for every layer; computing the (D x D) or (n x n) Gram product
    once for the two halves the cost. Same values as :func:`isotropy` and :func:`ridge_mse` (tested).
    """
    X, Y = as_f64(X), as_f64(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    n, d = X.shape
    check_labels(n, Y, "Y")
    Xc = X - X.mean(0)
    my = Y.mean(0)
    Yc = Y - my
    gram = Xc.T @ Xc if d <= n else Xc @ Xc.T
    iso = _isotropy_of(Xc, gram, eig_floor, svd_above)
    A = gram.clone()
    A.diagonal().add_(lam)
    W = _spd_solve(A, Xc.T @ Yc) if d <= n else Xc.T @ _spd_solve(A, Yc)
    pred = Xc @ W + my
    return iso, float(((pred - Y) ** 2).mean()), pred


def redundancy(X, selected: Sequence) -> float:
    r""":math:`\mathrm{Red}(X,S)=\max_{j\in S}\lVert X^\top X_j\rVert_F/(\lVert X\rVert_F\lVert X_j\rVert_F)`
    (uncentred, as in the official code); 0 when ``selected`` is empty. Lies in [0, 1]."""
    X = as_f64(X)
    best = 0.0
    nx = torch.linalg.norm(X)
    for Xj in selected:
        Xj = as_f64(Xj)
        val = torch.linalg.norm(X.T @ Xj) / (nx * torch.linalg.norm(Xj) + 1e-30)
        best = max(best, float(val))
    return best


def triangle_area(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, floor: float = 0.0) -> torch.Tensor:
    r"""Area of the triangle(s) with vertices a, b, c in any dimension (Lagrange identity):
    :math:`\tfrac12\sqrt{\max\{f,\lVert a-b\rVert^2\lVert a-c\rVert^2-\langle a-b,a-c\rangle^2\}}`.
    Shapes (..., d) -> (...). ``floor`` clamps the radicand (GeoReg uses 1e-6 to keep gradients finite)."""
    u, v = a - b, a - c
    rad = (u * u).sum(-1) * (v * v).sum(-1) - (u * v).sum(-1) ** 2
    return 0.5 * torch.sqrt(rad.clamp_min(floor))


def triangle_score(Z, y, n_triples: int = 200, seed: int = 0) -> float:
    r"""Mean area of triangles spanned by class centroids (dossier :math:`\mathrm{Tri}(Z)`).

    ``n_triples`` index triples are drawn with replacement (degenerate ones included, as in the
    official code) from a generator seeded by ``seed``; ``n_triples=0`` averages over every
    distinct triple instead (exact, used by the geometry metrics). Needs at least three classes.
    """
    Z = as_f64(Z)
    y = check_labels(Z.shape[0], y)
    classes = np.unique(y)
    if classes.size < 3:
        raise ValueError(f"the triangle score needs at least 3 classes; got {classes.size}")
    cent = torch.stack([Z[torch.as_tensor(y == c)].mean(0) for c in classes])
    if n_triples <= 0:
        idx = torch.combinations(torch.arange(len(classes)), r=3)
    else:
        g = torch.Generator().manual_seed(int(seed))
        idx = torch.randint(len(classes), (int(n_triples), 3), generator=g)
    cent = cent - cent.mean(0)                 # areas are translation invariant; centring avoids cancellation
    return float(_areas_from_gram(cent @ cent.T, idx).mean())


def _areas_from_gram(G: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    r"""The areas of :func:`triangle_area` for the centroid triples ``idx`` (m, 3), from the centroids' Gram
    matrix G alone: :math:`\lVert a-b\rVert^2=G_{aa}+G_{bb}-2G_{ab}` and
    :math:`\langle a-b,a-c\rangle=G_{aa}-G_{ab}-G_{ac}+G_{bc}` (no (m, d) differences: 77 classes have
    73,150 triples)."""
    a, b, c = idx[:, 0], idx[:, 1], idx[:, 2]
    uu = G[a, a] + G[b, b] - 2 * G[a, b]
    vv = G[a, a] + G[c, c] - 2 * G[a, c]
    uv = G[a, a] - G[a, b] - G[a, c] + G[b, c]
    return 0.5 * torch.sqrt((uu * vv - uv ** 2).clamp_min(0.0))


class Residualiser:
    """:func:`residualise` against a fixed ``XS`` with the (D_S x D_S) or (n x n) system factorised once
    (Cholesky), so that many candidate layers cost one triangular solve each."""

    def __init__(self, XS, eps: float = 1e-6):
        XS = as_f64(XS)
        self.Sc = XS - XS.mean(0)
        n, d = self.Sc.shape
        self.dual = d > n
        G = self.Sc @ self.Sc.T if self.dual else self.Sc.T @ self.Sc
        G.diagonal().add_(eps)
        self.eps = float(eps)
        self.chol = torch.linalg.cholesky(G)
        if not self.dual:
            # F = Sc L^-T, so that Sc (Sc^T Sc + eps I)^-1 Sc^T = F F^T: two products per candidate, no solve
            self.F = torch.linalg.solve_triangular(self.chol, self.Sc.T, upper=False).T

    def __call__(self, X) -> torch.Tensor:
        X = as_f64(X)
        check_labels(self.Sc.shape[0], X, "X")
        mx = X.mean(0)
        Xc = X - mx
        if self.dual:
            # push-through: I - K (K + eps I)^-1 = eps (K + eps I)^-1 with K = Sc Sc^T, one solve instead of
            # a solve and two (n x D_S) products
            return self.eps * torch.cholesky_solve(Xc, self.chol) + mx
        return Xc - self.F @ (self.F.T @ Xc) + mx


def residualise(X, XS, eps: float = 1e-6) -> torch.Tensor:
    r"""The part of layer ``X`` not linearly explained by the selected concatenation ``XS``.

    :math:`B=(\bar X_S^\top\bar X_S+\epsilon I)^{-1}\bar X_S^\top\bar X`,
    :math:`\tilde X=\bar X-\bar X_SB+\mathbf 1\mu_X^\top`. The centred result is orthogonal to the
    centred columns of ``XS`` up to :math:`O(\epsilon)`. X: (n, D); XS: (n, D_S) -> (n, D).
    """
    X, XS = as_f64(X), as_f64(XS)
    check_labels(X.shape[0], XS, "XS")
    mx = X.mean(0)
    Xc, Sc = X - mx, XS - XS.mean(0)
    return Xc - Sc @ _solve_ridge(Sc, Xc, eps) + mx
