r"""Synthetic layer stacks with task signal planted in known layers, and near-duplicate layers.

Used to check what LOES is supposed to do when the right answer is known (dossier claims 4 and 6;
Batra et al., arXiv 2605.23033). A hidden state drifts over depth,
:math:`h_\ell=\rho h_{\ell-1}+\sqrt{1-\rho^2}\,g_\ell` (so neighbouring layers are correlated, as in
real residual networks), and is read out through a fixed anisotropic mixing (a power-law spectrum),
:math:`X_\ell=h_\ell M`. The label is a tuple of binary factors :math:`y=(b_1,\dots,b_m)`
(:math:`2^m` classes); factor j is written only into layer :math:`p_j`, as
:math:`X_{p_j}\mathrel{+}=s_j(2b_j-1)u_j^\top` along a random unit direction. Layer :math:`p_1+1`
is replaced by a near copy of layer :math:`p_1` (relative noise ``dup_noise``). The right answer for
a budget k = m is the planted set; a selector that ranks layers independently tends to take the copy.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

__all__ = ["PlantedStack", "planted_stack"]


@dataclasses.dataclass
class PlantedStack:
    """layers (L, n, D) float32; y (n,) labels in [0, 2^m); planted (m,) layer of each factor;
    duplicates: list of (copy, original) layer pairs."""

    layers: np.ndarray
    y: np.ndarray
    planted: list
    duplicates: list


def planted_stack(n: int, n_layers: int, dim: int, planted: Sequence[int], strengths: Sequence[float] | None = None,
                  rho: float = 0.9, spectrum_decay: float = 0.5, dup_noise: float = 0.05, seed: int = 0) -> PlantedStack:
    """Generate a :class:`PlantedStack` (see the module docstring for the model).

    ``planted``: distinct layer indices (0-based), one per binary factor; the first one gets a
    near-duplicate at the next layer, which must not itself be planted and must exist.
    """
    planted = [int(p) for p in planted]
    m = len(planted)
    if m < 2:
        raise ValueError("planted needs at least two layers (two factors -> 4 classes)")
    if len(set(planted)) != m or min(planted) < 0 or max(planted) >= n_layers:
        raise ValueError(f"planted={planted} must be distinct layer indices in [0, {n_layers})")
    dup = planted[0] + 1
    if dup >= n_layers or dup in planted:
        raise ValueError(f"the duplicate of layer {planted[0]} (layer {dup}) must exist and not be planted")
    strengths = list(strengths) if strengths is not None else [1.0] * m
    if len(strengths) != m:
        raise ValueError("strengths must have one entry per planted layer")
    g = np.random.default_rng(np.random.SeedSequence([seed, n, n_layers, dim, 99]))
    bits = g.integers(0, 2, size=(n, m))
    y = (bits * (2 ** np.arange(m))).sum(1)
    spec = (1.0 + np.arange(dim)) ** (-spectrum_decay)
    Q, _ = np.linalg.qr(g.standard_normal((dim, dim)))
    M = (Q * np.sqrt(spec)) @ np.linalg.qr(g.standard_normal((dim, dim)))[0]
    h = g.standard_normal((n, dim))
    layers = np.empty((n_layers, n, dim))
    for l in range(n_layers):
        if l > 0:
            h = rho * h + np.sqrt(1 - rho ** 2) * g.standard_normal((n, dim))
        layers[l] = h @ M
    scale = np.sqrt(spec.mean())
    for j, p in enumerate(planted):
        u = g.standard_normal(dim)
        u /= np.linalg.norm(u)
        layers[p] += strengths[j] * scale * np.sqrt(dim) * 0.25 * (2 * bits[:, j:j + 1] - 1) * u
    noise = g.standard_normal((n, dim)) * dup_noise * layers[planted[0]].std()
    layers[dup] = layers[planted[0]] + noise
    return PlantedStack(layers.astype(np.float32), y.astype(np.int64), planted, [(dup, planted[0])])
