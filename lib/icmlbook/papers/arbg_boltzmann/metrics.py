r"""Metrics of the paper's evaluation (dossier §3.6), and dihedral angles.

- E-W2: :math:`W_2` between the 1-D empirical laws of reduced energies (kT), ``sqrt(ot.emd2_1d(a, b))``
  with the squared-Euclidean ground cost (POT). Non-finite energies are refused.
- T-W2: :math:`W_2` on the torus of backbone dihedrals with cost
  :math:`c(a,b)=\sum_d \min(|a_d-b_d|, 2\pi-|a_d-b_d|)^2`, exact OT (``ot.emd2``) with uniform weights on
  (sub)samples of equal size n (reported).
- Dihedrals: IUPAC torsion angles in radians, (-pi, pi], from four atoms per angle (:func:`dihedrals`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["energy_w2", "torus_cost", "torus_w2", "dihedrals", "subsample_even"]


def energy_w2(a: np.ndarray, b: np.ndarray) -> float:
    import ot
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("energy_w2 needs finite energies (drop or weight out the clashing samples first)")
    return float(np.sqrt(max(ot.emd2_1d(a, b, metric="sqeuclidean"), 0.0)))


def torus_cost(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, d) and (m, d) angles (radians) -> (n, m) squared geodesic distances on the flat torus."""
    d = np.abs(np.asarray(a)[:, None, :] - np.asarray(b)[None, :, :]) % (2 * np.pi)
    d = np.minimum(d, 2 * np.pi - d)
    return (d ** 2).sum(-1)


def torus_w2(a: np.ndarray, b: np.ndarray) -> float:
    import ot
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    M = torus_cost(a, b)
    wa = np.full(len(a), 1.0 / len(a))
    wb = np.full(len(b), 1.0 / len(b))
    return float(np.sqrt(max(ot.emd2(wa, wb, M, numItermax=10_000_000), 0.0)))


def subsample_even(x: np.ndarray, n: int) -> np.ndarray:
    """``n`` rows evenly spaced along the first axis (all rows when there are at most n)."""
    if len(x) <= n:
        return x
    return x[np.linspace(0, len(x) - 1, n).round().astype(int)]


def dihedrals(frames: np.ndarray, quads) -> np.ndarray:
    """Torsion angles (M, len(quads)) in radians for frames (M, N, 3) and atom quadruples (i, j, k, l)."""
    f = np.asarray(frames, dtype=np.float64)
    q = np.asarray(quads, dtype=int)
    p0, p1, p2, p3 = (f[:, q[:, i]] for i in range(4))           # (M, n, 3)
    b0, b1, b2 = p1 - p0, p2 - p1, p3 - p2
    n1, n2 = np.cross(b0, b1), np.cross(b1, b2)
    x = (n1 * n2).sum(-1)
    y = (np.cross(n1, n2) * b1).sum(-1) / np.linalg.norm(b1, axis=-1)
    return np.arctan2(y, x)
