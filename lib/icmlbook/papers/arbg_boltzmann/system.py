r"""A molecular Boltzmann generator end to end: the representation the proposals model, proposals from either
model, the chirality fix, reduced energies, SNIS weights, resampling and the metrics (dossier §3.1, §3.4).

Representations (both give ``decode(z) -> (frames, correction)`` with ``log w = -u - (log q(z) + correction)``):

- :class:`Standardiser`, the paper's: each frame centred (unweighted mean of its atoms) and divided by one
  global scale s (the standard deviation of all centred training coordinates), rotated uniformly at random
  during training. Neither model represents the centre of mass: generated frames are centred before their
  energy is computed (the energy is translation invariant) and the proposal's density is taken on the 3N
  coordinates as the reference code does (a heuristic for the three degenerate directions).
- :class:`CanonicalCoordinates`, ours: the 3N - 6 free coordinates of the canonical frame of :mod:`.frames`,
  divided by s, with the exact Jacobian of that change of variables in the correction.

The constant Jacobians of the scaling, :math:`-D\log s`, and of the binning, :math:`-D\log\Delta`, cancel in
self-normalised weights; they are kept so the numbers are densities.

Chirality (dossier §3.4, step 2): the sign of the signed volume at the alanine CA (:func:`molecule.chiral_volume`)
is compared with the reference structure's; a wrong one is mirrored (z -> -z), which restores the handedness
of a molecule with one stereocentre; the fraction of correct proposals before mirroring is the "symmetry rate".
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

from .discretize import Discretizer
from .frames import CanonicalFrame, bond_order
from .metrics import dihedrals, energy_w2, subsample_even, torus_w2
from .molecule import AlanineDipeptide, Energy, chiral_volume
from .snis import Weights, log_weights, resample

__all__ = ["Standardiser", "CanonicalCoordinates", "representation", "Proposal", "propose_ar", "propose_flow", "fix_chirality", "evaluate_proposal",
           "bond_lengths"]


@dataclasses.dataclass(frozen=True)
class Standardiser:
    """The paper's representation: centre each frame, divide by ``scale`` (nm), flatten to 3N numbers; training
    rotates every frame uniformly at random (``rotate``)."""

    scale: float
    n_atoms: int
    rotate: bool = True

    @classmethod
    def fit(cls, frames: np.ndarray) -> "Standardiser":
        c = frames - frames.mean(1, keepdims=True)
        return cls(float(c.std()), frames.shape[1])

    @property
    def dim(self) -> int:
        return 3 * self.n_atoms

    axis_ids = None
    atom_ids = None

    def training_frames(self, frames: np.ndarray) -> np.ndarray:
        """(n, N, 3) standardised frames for :class:`~.train.FrameBatches` (rotated there)."""
        f = np.asarray(frames, dtype=np.float64)
        return (f - f.mean(1, keepdims=True)) / self.scale

    def encode(self, frames: np.ndarray) -> np.ndarray:
        return self.training_frames(frames).reshape(len(frames), -1)

    def decode(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Model coordinates (M, D) -> frames (M, N, 3) nm and the log-density correction (M,)."""
        f = np.asarray(z, dtype=np.float64).reshape(len(z), -1, 3) * self.scale
        return f - f.mean(1, keepdims=True), np.full(len(z), -self.dim * math.log(self.scale))

    def max_abs(self, frames: np.ndarray) -> float:
        """Largest |coordinate| a rotation can produce: the largest atom distance from the centre."""
        return float(np.linalg.norm(self.training_frames(frames), axis=-1).max())


@dataclasses.dataclass(frozen=True)
class CanonicalCoordinates:
    """Our substitution: the 3N-6 free coordinates of the canonical frame (:mod:`.frames`) divided by ``scale``;
    decoding returns frames in the canonical pose and the correction :math:`-D\\log s - \\log J` so that
    :math:`\\log w = -u - \\log q_\\text{frame}` is the exact weight of :mod:`.frames`."""

    frame: CanonicalFrame
    scale: float
    rotate: bool = False

    @classmethod
    def fit(cls, frames: np.ndarray, frame: CanonicalFrame) -> "CanonicalCoordinates":
        return cls(frame, float(frame.to_free(frames).std()))

    @property
    def dim(self) -> int:
        return self.frame.n_free

    @property
    def axis_ids(self):
        return self.frame.axis_ids

    @property
    def atom_ids(self):
        return self.frame.atom_ids

    def encode(self, frames: np.ndarray) -> np.ndarray:
        return self.frame.to_free(frames) / self.scale

    def training_frames(self, frames: np.ndarray) -> np.ndarray:
        return self.encode(frames)[:, None, :]

    def decode(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        free = np.asarray(z, dtype=np.float64) * self.scale
        return self.frame.from_free(free), -self.dim * math.log(self.scale) - self.frame.log_jacobian(free)

    def max_abs(self, frames: np.ndarray) -> float:
        return float(np.abs(self.encode(frames)).max())


def representation(kind: str, frames: np.ndarray, mol: AlanineDipeptide):
    """``"augmented"`` (the paper's) or ``"canonical"`` (ours), fitted on the training frames."""
    if kind == "augmented":
        return Standardiser.fit(frames)
    if kind == "canonical":
        ca, n, c, _ = mol.chiral_centre()
        order = bond_order(mol.n_atoms, mol.bonds(), (ca, n, c))
        return CanonicalCoordinates.fit(frames, CanonicalFrame(mol.n_atoms, origin=ca, axis=n, plane=c, order=order))
    raise ValueError(f"frame={kind!r} is not allowed; allowed values: augmented, canonical")


@dataclasses.dataclass
class Proposal:
    """M proposals: frames (M, N, 3) nm, log q (M,) (with the representation's correction, so that the log-weight
    is -u - log_q), the chirality flags and the sampling time (s)."""

    frames: np.ndarray
    log_q: np.ndarray
    correct_chirality: np.ndarray | None = None
    seconds: float = 0.0


def propose_ar(model, disc: Discretizer, rep, n: int, temperature: float, seed: int,
               batch_size: int = 2048) -> Proposal:
    import time
    dev = next(model.parameters()).device
    g = torch.Generator(device=dev).manual_seed(seed)
    t0 = time.perf_counter()
    tokens, lp = model.sample(n, temperature=temperature, generator=g, batch_size=batch_size)
    gd = torch.Generator().manual_seed(seed + 7919)
    z = disc.decode(tokens.cpu(), generator=gd).numpy()
    frames, corr = rep.decode(z)
    log_q = lp.cpu().double().numpy() + disc.log_jacobian(rep.dim) + corr
    return Proposal(frames, log_q, seconds=time.perf_counter() - t0)


def propose_flow(flow, rep, n: int, seed: int, batch_size: int = 2048) -> Proposal:
    import time
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    x, lp = flow.sample(n, batch_size=batch_size)
    frames, corr = rep.decode(x.cpu().double().numpy())
    return Proposal(frames, lp.cpu().double().numpy() + corr, seconds=time.perf_counter() - t0)


def fix_chirality(p: Proposal, centre: tuple[int, int, int, int], reference_sign: float) -> Proposal:
    """Mirror the proposals whose stereocentre has the wrong handedness. Mirroring maps the proposal
    density onto its mirror image; the weight keeps the log q of the drawn frame (as the reference code does):
    a heuristic the chapter reports, not an exact change of measure."""
    vol = chiral_volume(p.frames, centre)
    ok = np.sign(vol) == np.sign(reference_sign)
    frames = p.frames.copy()
    frames[~ok, :, 2] = -frames[~ok, :, 2]              # a reflection (z -> -z keeps the canonical slice)
    return Proposal(frames, p.log_q, ok, p.seconds)


def bond_lengths(frames: np.ndarray, bonds: np.ndarray) -> np.ndarray:
    """(M, n_bonds) nm."""
    f = np.asarray(frames, dtype=np.float64)
    return np.linalg.norm(f[:, bonds[:, 0]] - f[:, bonds[:, 1]], axis=-1)


def evaluate_proposal(p: Proposal, mol: AlanineDipeptide, energy: Energy, ref_energy: np.ndarray,
                      ref_angles: np.ndarray, *, n_eval: int, n_torus: int, clip: float, seed: int,
                      tica=None) -> dict:
    """Energies, SNIS weights (with and without clipping), resampled sets, E-W2 / T-W2 (and TICA-W2 when a fitted
    :class:`~.tica.TicaW2` is given; on the same n_torus proposals as T-W2) before and after reweighting against
    the reference MD (its energies (n_ref,) and backbone angles (n_ref, 2))."""
    u = energy.reduced(p.frames)
    quads = list(mol.backbone_dihedral_atoms().values())
    rng = np.random.default_rng(seed)
    out: dict = {"n": len(u), "nonfinite": int((~np.isfinite(u)).sum()), "sample_seconds": p.seconds}
    if p.correct_chirality is not None:
        out["symmetry_rate"] = float(p.correct_chirality.mean())
    fin = np.isfinite(u)
    ref_e = subsample_even(ref_energy, n_eval)
    ref_t = subsample_even(ref_angles, n_torus)
    raw_idx = rng.choice(np.flatnonzero(fin), size=min(n_eval, int(fin.sum())), replace=False)
    out["ew2_raw"] = energy_w2(u[raw_idx], ref_e)
    out["tw2_raw"] = torus_w2(dihedrals(p.frames[raw_idx[:n_torus]], quads), ref_t)
    if tica is not None:
        out["ticaw2_raw"] = tica(p.frames[raw_idx[:n_torus]])
    out["u_raw_median"] = float(np.median(u[fin]))
    for tag, c in (("", 0.0), ("_clip", clip)):
        w: Weights = log_weights(u, p.log_q, clip=c)
        idx = resample(w.log_w, n_eval, rng)
        out["ess" + tag] = w.ess
        out["ew2" + tag] = energy_w2(u[idx], ref_e)
        out["tw2" + tag] = torus_w2(dihedrals(p.frames[idx[:n_torus]], quads), ref_t)
        if tica is not None:
            out["ticaw2" + tag] = tica(p.frames[idx[:n_torus]])
        if tag == "":
            out["resampled_idx"] = idx
            out["unique_resampled"] = int(len(np.unique(idx)))
    out["energies"] = u
    return out
