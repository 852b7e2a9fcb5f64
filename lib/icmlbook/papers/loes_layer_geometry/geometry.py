r"""GeoReg, the paper's geometric regulariser, and the geometry metrics of held-out embeddings.

Paper: Batra et al., arXiv 2605.23033 (dossier section 3.5, reconstructed from the official code).
On a mini-batch of fused embeddings :math:`f\in\mathbb R^{B\times d}` with labels y (>= 3 classes):

.. math::
    \mathcal L_{\rm geo}=w\Big[\operatorname{Var}\big(\operatorname{eig}(\widehat{\rm Cov}(f)+10^{-4}I)\big)
    -\log\big(A(c_a,c_b,c_c)+10^{-6}\big)\Big]

with three distinct classes drawn at random and :math:`c` their batch centroids. For any symmetric
matrix the eigenvalue variance equals :math:`\lVert\Sigma-\mu I\rVert_F^2/(d-1)` with
:math:`\mu=\operatorname{tr}\Sigma/d` (the shift keeps every eigenvalue above the official 1e-6 clamp,
so the clamp never acts); we use that form
(no eigendecomposition, whose gradient is undefined at the repeated eigenvalues a rank-deficient
batch covariance always has) and test it against ``eigvalsh``.
"""

from __future__ import annotations

import math
import numbers

import dataclasses

import numpy as np
import torch

from .scores import as_f64, check_labels, isotropy, spectrum_moments, triangle_area, triangle_score

__all__ = ["georeg_loss", "eigenvalue_variance", "GeometryMetrics", "geometry_metrics", "effective_rank",
           "within_between_ratio", "linear_cka", "mean_pairwise_cka"]


def _batch_cov(f: torch.Tensor, shift: float) -> torch.Tensor:
    fc = f - f.mean(0, keepdim=True)
    cov = fc.T @ fc / max(f.shape[0] - 1, 1)
    return cov + shift * torch.eye(f.shape[1], dtype=f.dtype, device=f.device)


def eigenvalue_variance(f: torch.Tensor, shift: float = 1e-4, method: str = "frobenius") -> torch.Tensor:
    """Unbiased variance of the eigenvalues of ``Cov(f) + shift*I`` for f of shape (B, d).

    ``method="frobenius"`` (default, used in training) or ``"eig"`` (eigvalsh, clamped at 1e-6, the
    official route); the two agree to rounding."""
    cov = _batch_cov(f, shift)
    d = cov.shape[0]
    if method == "eig":
        return torch.linalg.eigvalsh(cov).clamp_min(1e-6).var()
    if method != "frobenius":
        raise ValueError(f"method={method!r} is not allowed; allowed values: frobenius, eig")
    return spectrum_moments(cov)[1] / (d - 1)


def georeg_loss(f: torch.Tensor, y: torch.Tensor, weight: float = 0.1, generator: torch.Generator | None = None,
                n_triples: int = 1, triple: tuple | None = None) -> torch.Tensor:
    """GeoReg on fused embeddings ``f`` (B, d) with integer labels ``y`` (B,).

    Returns a scalar tensor (0 with a graph when the batch has fewer than 3 classes, as the official
    code). ``n_triples`` > 1 averages the log-area over several random triples (an option; the paper
    draws one); ``triple`` fixes the three classes (used by the gradient test)."""
    if f.shape[0] != y.shape[0]:
        raise ValueError(f"f has {f.shape[0]} rows but y has {y.shape[0]}")
    if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not math.isfinite(weight) or weight < 0:
        raise ValueError(f"weight={weight!r} is not allowed; weight must be a finite number >= 0 (0 turns GeoReg off)")
    classes = torch.unique(y)
    if classes.numel() < 3:
        return f.sum() * 0.0
    var = eigenvalue_variance(f)
    logs = []
    for _ in range(max(1, n_triples)):
        if triple is None:
            idx = torch.randperm(classes.numel(), generator=generator)[:3]
            tri = classes[idx]
        else:
            tri = torch.as_tensor(triple)
        c = [f[y == t].mean(0) for t in tri]
        area = triangle_area(c[0], c[1], c[2], floor=1e-6)
        logs.append(torch.log(area + 1e-6))
    return weight * (var - torch.stack(logs).mean())


def effective_rank(Z) -> float:
    """Roy & Vetterli's effective rank: exp of the entropy of the normalised covariance spectrum."""
    Z = as_f64(Z)
    Zc = Z - Z.mean(0)
    s = torch.linalg.svdvals(Zc) ** 2
    p = s / s.sum()
    p = p[p > 0]
    return float(torch.exp(-(p * p.log()).sum()))


def within_between_ratio(Z, y) -> float:
    r""":math:`\operatorname{tr}S_W/\operatorname{tr}S_B` (within-class over between-class scatter, both
    per sample); smaller = tighter, better separated classes. Scale-free."""
    Z = as_f64(Z)
    y = check_labels(Z.shape[0], y)
    mu = Z.mean(0)
    sw = sb = 0.0
    for c in np.unique(y):
        Zc = Z[torch.as_tensor(y == c)]
        mc = Zc.mean(0)
        sw += float(((Zc - mc) ** 2).sum())
        sb += Zc.shape[0] * float(((mc - mu) ** 2).sum())
    return sw / max(sb, 1e-30)


@dataclasses.dataclass(frozen=True)
class GeometryMetrics:
    """Geometry of an embedding (n, d) with labels: isotropy, mean centroid-triangle area (over every
    distinct class triple), the same area divided by the mean squared norm of the centred embedding
    (scale-free), the within/between scatter ratio and the effective rank."""

    isotropy: float
    triangle_area: float
    triangle_area_scaled: float
    within_between: float
    effective_rank: float


def geometry_metrics(Z, y) -> GeometryMetrics:
    """All metrics of :class:`GeometryMetrics` on held-out embeddings ``Z`` (n, d) with labels (n,)."""
    Z = as_f64(Z)
    area = triangle_score(Z, y, n_triples=0)
    scale = float(((Z - Z.mean(0)) ** 2).sum(1).mean())
    return GeometryMetrics(isotropy(Z), area, area / max(scale, 1e-30), within_between_ratio(Z, y),
                           effective_rank(Z))


def linear_cka(X, Y) -> float:
    r"""Linear centred kernel alignment (Kornblith et al. 2019) of two embeddings of the same n examples,
    :math:`\lVert\bar Y^\top\bar X\rVert_F^2/(\lVert\bar X^\top\bar X\rVert_F\,\lVert\bar Y^\top\bar Y\rVert_F)`:
    1 when one is an orthogonal transform and rescaling of the other, near 0 for unrelated ones.

    It is *centred* and normalised by each layer's own second moment, unlike the uncentred redundancy
    term LOES penalises (:func:`.scores.redundancy`), and it is computed here on held-out embeddings, so it
    is a measure of redundancy that the selector does not optimise."""
    X, Y = as_f64(X), as_f64(Y)
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows and Y has {Y.shape[0]}: CKA compares the same examples")
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    num = float(torch.linalg.matrix_norm(Yc.T @ Xc) ** 2)
    den = float(torch.linalg.matrix_norm(Xc.T @ Xc) * torch.linalg.matrix_norm(Yc.T @ Yc))
    return num / den if den > 0 else 0.0


def mean_pairwise_cka(layers, chosen) -> float:
    """Mean linear CKA over the pairs of ``chosen`` layers (0 for fewer than two)."""
    vals = [linear_cka(layers[a], layers[b]) for i, a in enumerate(chosen) for b in list(chosen)[i + 1:]]
    return float(np.mean(vals)) if vals else 0.0
