r"""Two ways to present a molecule's Cartesian coordinates to a proposal: the paper's centred frames with
random-rotation augmentation, or a canonical frame with its exact Jacobian (our substitution at CPU scale).

**Canonical frame.** Three reference atoms a, b, c (here the alanine CA, N and C) fix the pose: a at the
origin, b on the +x axis, c in the xy-plane with y > 0. Every frame x maps to a rotation R, a translation and
the canonical coordinates y, of which 3N - 6 are free (b's x, c's x and y, and all three of every other
atom). Integrating out translation and rotation (Haar measure of total mass :math:`8\pi^2`) gives

.. math:: dx = dt\;dR\;\; r_{ab}^2\,\rho_c\;dy_{\mathrm{free}}, \qquad r_{ab} = y_{b,x},\ \rho_c = y_{c,y},

so the Boltzmann law of the free coordinates is :math:`\pi(y)\propto e^{-u(y)}\,r_{ab}^2\rho_c` and SNIS with
a proposal :math:`q(y_{\mathrm{free}})` uses :math:`\log w=-u-\log q+2\log r_{ab}+\log\rho_c` (exact: no
centre-of-mass or rotation heuristics). A proposal with :math:`\rho_c\le0` is outside the slice: weight zero.

Token order: b_x, c_x, c_y first (they fix the bond a-b and the angle b-a-c), then every other atom's x, y, z in
``order`` (default: topology order; :func:`bond_order` gives a breadth-first order over the bonds from the
reference atoms, so that each new atom is bonded to one already placed); each token keeps the axis and atom
index of its coordinate for the embeddings.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["CanonicalFrame", "bond_order"]


def bond_order(n_atoms: int, bonds, start: tuple[int, ...]) -> tuple[int, ...]:
    """Breadth-first order of the atoms over the bond graph from ``start`` (neighbours by index); atoms not reached
    (another molecule) follow in index order."""
    adj = {i: set() for i in range(n_atoms)}
    for a, b in bonds:
        adj[int(a)].add(int(b))
        adj[int(b)].add(int(a))
    seen, queue = list(start), list(start)
    while queue:
        i = queue.pop(0)
        for j in sorted(adj[i]):
            if j not in seen:
                seen.append(j)
                queue.append(j)
    return tuple(seen + [i for i in range(n_atoms) if i not in seen])


@dataclasses.dataclass(frozen=True)
class CanonicalFrame:
    n_atoms: int
    origin: int
    axis: int
    plane: int
    order: tuple[int, ...] | None = None

    def __post_init__(self):
        if len({self.origin, self.axis, self.plane}) != 3:
            raise ValueError("the three reference atoms must be distinct")
        if self.order is not None and sorted(self.order) != list(range(self.n_atoms)):
            raise ValueError(f"order must be a permutation of 0..{self.n_atoms - 1}")

    @property
    def slots(self) -> list[tuple[int, int]]:
        """(atom, axis) of every token, in order."""
        out = [(self.axis, 0), (self.plane, 0), (self.plane, 1)]
        order = self.order if self.order is not None else range(self.n_atoms)
        out += [(i, k) for i in order if i not in (self.origin, self.axis, self.plane) for k in range(3)]
        return out

    @property
    def n_free(self) -> int:
        return 3 * self.n_atoms - 6

    @property
    def axis_ids(self) -> np.ndarray:
        return np.array([k for _, k in self.slots])

    @property
    def atom_ids(self) -> np.ndarray:
        return np.array([i for i, _ in self.slots])

    def pose(self, frames: np.ndarray) -> np.ndarray:
        """Frames (M, N, 3) -> the same frames in the canonical pose (M, N, 3)."""
        f = np.asarray(frames, dtype=np.float64)
        if f.ndim != 3 or f.shape[1:] != (self.n_atoms, 3):
            raise ValueError(f"frames must have shape (M, {self.n_atoms}, 3); got {f.shape}")
        f = f - f[:, self.origin:self.origin + 1]
        e1 = f[:, self.axis] / np.linalg.norm(f[:, self.axis], axis=-1, keepdims=True)
        v = f[:, self.plane] - (f[:, self.plane] * e1).sum(-1, keepdims=True) * e1
        e2 = v / np.linalg.norm(v, axis=-1, keepdims=True)
        e3 = np.cross(e1, e2)
        R = np.stack([e1, e2, e3], -1)                        # columns: the new axes in old coordinates
        return f @ R

    def to_free(self, frames: np.ndarray) -> np.ndarray:
        y = self.pose(frames)
        return np.stack([y[:, i, k] for i, k in self.slots], -1)

    def from_free(self, free: np.ndarray) -> np.ndarray:
        free = np.asarray(free, dtype=np.float64)
        if free.ndim != 2 or free.shape[1] != self.n_free:
            raise ValueError(f"free coordinates must have shape (M, {self.n_free}); got {free.shape}")
        y = np.zeros((len(free), self.n_atoms, 3))
        for j, (i, k) in enumerate(self.slots):
            y[:, i, k] = free[:, j]
        return y

    def log_jacobian(self, free: np.ndarray) -> np.ndarray:
        r""":math:`2\log r_{ab} + \log\rho_c` per row (-inf where :math:`r_{ab}\le0` or :math:`\rho_c\le0`)."""
        free = np.asarray(free, dtype=np.float64)
        r, rho = free[:, 0], free[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 2 * np.log(np.abs(r)) + np.log(rho)
        out[(r <= 0) | (rho <= 0) | ~np.isfinite(out)] = -np.inf
        return out
