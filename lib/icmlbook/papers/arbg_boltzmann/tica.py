r"""TICA-W2, the paper's third metric (dossier §3.6): the Wasserstein-2 distance between samples projected on the
slowest time-lagged independent components (TICA) of the reference dynamics.

TICA (Molgedey & Schuster 1994; Pérez-Hernández et al. 2013) looks for linear combinations :math:`v^\top x` of
mean-free features with the largest autocorrelation at a lag :math:`\tau`: the generalised eigenproblem

.. math:: C_\tau v_i = \lambda_i C_0 v_i ,

with :math:`C_0` the instantaneous and :math:`C_\tau` the time-lagged covariance, both symmetrised (reversible
dynamics). The leading eigenvectors span the slow coordinates; with the kinetic-map scaling the projections are
:math:`y_i = \lambda_i v_i^\top (x - \bar x)`. The estimation is ``deeptime``'s :class:`~deeptime.decomposition.TICA`
(tested against the eigenproblem solved in scipy).

Features of a frame (the reference code's choice): every pairwise distance among the carbon and nitrogen atoms
(nm) and the sine and cosine of the backbone torsions φ, ψ and every peptide-bond ω (:func:`feature_spec`).

What differs from the paper: we fit TICA on the **training** MD frames (the paper's code fits it on the test
trajectory, with Koopman reweighting); time-lagged pairs are taken inside each contiguous block of the training
split, never across the gap between blocks. TICA-W2 is then :math:`W_2` between the 2-D projections of
(re)sampled proposals and of the test frames, by exact OT (``ot.emd2``, squared Euclidean cost, uniform weights).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from .metrics import dihedrals, subsample_even

__all__ = ["TicaModel", "fit_tica", "feature_spec", "featurise", "euclidean_w2", "TicaW2"]


@dataclasses.dataclass(frozen=True)
class TicaModel:
    """A fitted TICA projection: ``mean`` (F,), ``vectors`` (F, dim) (kinetic-map scaled), ``eigenvalues`` (dim,),
    the lag (frames) and the number of lagged pairs it was fitted on."""

    mean: np.ndarray
    vectors: np.ndarray
    eigenvalues: np.ndarray
    lag: int
    n_pairs: int

    def project(self, features: np.ndarray) -> np.ndarray:
        """(M, F) features -> (M, dim) TICA coordinates."""
        x = np.asarray(features, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.mean):
            raise ValueError(f"features must have shape (M, {len(self.mean)}); got {x.shape}")
        return (x - self.mean) @ self.vectors


def fit_tica(trajectories: Sequence[np.ndarray], lag: int, dim: int = 2) -> TicaModel:
    """TICA with ``deeptime`` on one or several contiguous feature trajectories (each (T_i, F)); pairs
    (x_t, x_{t+lag}) never cross from one trajectory into the next."""
    from deeptime.decomposition import TICA
    if isinstance(lag, bool) or not isinstance(lag, (int, np.integer)) or lag < 1:
        raise ValueError(f"lag={lag!r} is not allowed; it must be an integer >= 1 (frames)")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"dim={dim!r} is not allowed; it must be an integer >= 1")
    trajs = [np.asarray(t, dtype=np.float64) for t in trajectories]
    usable = [t for t in trajs if len(t) > lag]
    if not usable:
        raise ValueError(f"lag={lag} is not allowed; it must be shorter than the longest trajectory "
                         f"({max((len(t) for t in trajs), default=0)} frames)")
    if usable[0].ndim != 2 or dim > usable[0].shape[1]:
        raise ValueError(f"dim={dim} is not allowed; it must be <= the number of features")
    est = TICA(lagtime=int(lag), dim=int(dim), scaling="kinetic_map")
    for t in usable:
        est.partial_fit((t[:-lag], t[lag:]))
    m = est.fetch_model()
    return TicaModel(mean=np.asarray(m.mean_0, dtype=np.float64).copy(),
                     vectors=np.asarray(m.singular_vectors_left[:, :dim], dtype=np.float64).copy(),
                     eigenvalues=np.asarray(m.singular_values[:dim], dtype=np.float64).copy(), lag=int(lag),
                     n_pairs=int(sum(len(t) - lag for t in usable)))


def feature_spec(mol) -> tuple[list[int], list[tuple[int, int, int, int]]]:
    """The carbon and nitrogen atoms of the peptide and its torsions: every φ and ψ, then every peptide-bond ω
    (for the dipeptide φ, ψ, ω(ACE-ALA), ω(ALA-NME)) (atom indices)."""
    atoms = [a for a, el in enumerate(mol.elements()) if el in ("C", "N")]
    quads = list(mol.backbone_dihedral_atoms().values()) + list(mol.peptide_bond_torsions())
    return atoms, quads


def featurise(frames: np.ndarray, atoms: Sequence[int], quads: Sequence[tuple[int, int, int, int]]) -> np.ndarray:
    """(M, N, 3) frames -> (M, n(n-1)/2 + 2 len(quads)): pairwise distances (nm) among ``atoms`` (i < j), then
    sin and cos of each torsion."""
    f = np.asarray(frames, dtype=np.float64)
    a = np.asarray(atoms, dtype=int)
    iu, ju = np.triu_indices(len(a), 1)
    dist = np.linalg.norm(f[:, a[iu]] - f[:, a[ju]], axis=-1)
    ang = dihedrals(f, quads)
    return np.concatenate([dist, np.sin(ang), np.cos(ang)], axis=1)


def euclidean_w2(a: np.ndarray, b: np.ndarray) -> float:
    """Exact :math:`W_2` between two point clouds (n, d) and (m, d) with uniform weights (``ot.emd2``)."""
    import ot
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("euclidean_w2 needs finite points")
    M = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    wa, wb = np.full(len(a), 1.0 / len(a)), np.full(len(b), 1.0 / len(b))
    return float(np.sqrt(max(ot.emd2(wa, wb, M, numItermax=10_000_000), 0.0)))


class TicaW2:
    """TICA fitted on contiguous training blocks of a molecule's MD; ``__call__(frames)`` gives TICA-W2 of those
    frames against ``n_ref`` evenly spaced reference frames."""

    def __init__(self, mol, train_blocks: Sequence[np.ndarray], reference: np.ndarray, lag: int, dim: int = 2,
                 n_ref: int = 1000):
        self.atoms, self.quads = feature_spec(mol)
        self.model = fit_tica([featurise(b, self.atoms, self.quads) for b in train_blocks], lag, dim)
        self.reference = self.project(subsample_even(np.asarray(reference), n_ref))

    @property
    def n_features(self) -> int:
        return len(self.model.mean)

    def project(self, frames: np.ndarray) -> np.ndarray:
        return self.model.project(featurise(frames, self.atoms, self.quads))

    def __call__(self, frames: np.ndarray) -> float:
        y = self.project(frames)
        fin = np.isfinite(y).all(1)
        return euclidean_w2(y[fin], self.reference)
