"""Data on the feasible sets: von Mises–Fisher mixtures on S² (scipy), the same restricted to the capped
sphere, a mixture on the torus's angles, concentrated rotation mixtures on SO(n), and the paper's own S²
earth-science catalogues (vendored in ``data/constrained_diffusion/``, MIT, checksums verified)."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import torch

from .constraints import CappedSphere, SpecialOrthogonal, Torus

__all__ = ["vmf_mixture", "vmf_params", "capped_vmf_mixture", "torus_mixture", "rotation_mixture", "earth_data", "DATA_DIR",
           "latlon_to_xyz", "xyz_to_latlon", "split", "dipeptide_conformations", "dipeptide_data",
           "robot_data"]

DATA_DIR = Path(__file__).resolve().parents[4] / "data" / "constrained_diffusion"


def _mixture_params(k: int, rng: np.random.Generator, kappa: tuple[float, float]):
    mus = rng.standard_normal((k, 3))
    mus /= np.linalg.norm(mus, axis=1, keepdims=True)
    kappas = rng.uniform(*kappa, size=k)
    w = rng.dirichlet(np.full(k, 2.0))
    return mus, kappas, w


def vmf_params(seed: int, k: int = 6, kappa: tuple[float, float] = (20.0, 120.0)):
    """The mixture that ``vmf_mixture(n, seed, k, kappa)`` draws from (means, concentrations, weights): with
    ``vmf_mixture(n, other_seed, params=vmf_params(seed))`` a fresh sample of the same law (the oracle)."""
    return _mixture_params(k, np.random.default_rng(seed), kappa)


def vmf_mixture(n: int, seed: int, k: int = 6, kappa: tuple[float, float] = (20.0, 120.0), params=None) -> torch.Tensor:
    """``n`` points of a k-component von Mises–Fisher mixture on S² (components and weights from ``seed``)."""
    from scipy.stats import vonmises_fisher

    rng = np.random.default_rng(seed)
    mus, kappas, w = params if params is not None else _mixture_params(k, rng, kappa)
    comp = rng.choice(len(w), size=n, p=w)
    out = np.empty((n, 3))
    for j in range(len(w)):
        idx = np.flatnonzero(comp == j)
        if len(idx):
            out[idx] = vonmises_fisher(mus[j], kappas[j]).rvs(len(idx), random_state=rng)
    return torch.from_numpy(out)


def capped_vmf_mixture(n: int, seed: int, cs: CappedSphere, k: int = 6, draw_seed: int | None = None) -> torch.Tensor:
    """The vMF mixture restricted to the capped sphere with its bite (rejection); the mixture from ``seed``, the
    draw from ``draw_seed`` (default: ``seed``; another value gives a fresh sample of the same law)."""
    rng = np.random.default_rng(seed)
    params = _mixture_params(k, rng, (15.0, 80.0))
    out, got, s = [], 0, seed if draw_seed is None else draw_seed
    while got < n:
        s += 1
        x = vmf_mixture(2 * n, s, params=params)
        x = x[cs.inside(x)]
        out.append(x)
        got += len(x)
    return torch.cat(out)[:n]


def torus_mixture(n: int, seed: int, cs: Torus, k: int = 4) -> torch.Tensor:
    """A mixture of products of von Mises laws on the torus's two angles (inside the half-space if any)."""
    rng = np.random.default_rng(seed)
    cu, cv = rng.uniform(-math.pi, math.pi, k), rng.uniform(-math.pi, math.pi, k)
    if cs.halfspace is not None:
        cu = rng.uniform(0.6 * math.pi, 1.4 * math.pi, k)
    out, got = [], 0
    while got < n:
        j = rng.integers(0, k, size=2 * n)
        u = rng.vonmises(cu[j], 6.0)
        v = rng.vonmises(cv[j], 3.0)
        x = cs.from_angles(torch.from_numpy(u), torch.from_numpy(v))
        if cs.halfspace is not None:
            x = x[x[:, 0] <= cs.halfspace - cs.eps]
        out.append(x)
        got += len(x)
    return torch.cat(out)[:n]


def rotation_mixture(n: int, seed: int, so: SpecialOrthogonal, k: int = 3, spread: float = 0.25) -> torch.Tensor:
    """Concentrated rotations: a Haar centre per component times exp of a small random skew matrix."""
    g = torch.Generator().manual_seed(seed)
    centres = so.uniform(k, g).reshape(k, so.n, so.n)
    j = torch.randint(0, k, (n,), generator=g)
    A = spread * torch.randn((n, so.n, so.n), generator=g, dtype=torch.float64)
    S = 0.5 * (A - A.transpose(1, 2))
    return (centres[j] @ torch.linalg.matrix_exp(S)).reshape(n, -1)


def latlon_to_xyz(lat: np.ndarray, lon: np.ndarray) -> torch.Tensor:
    la, lo = np.radians(lat), np.radians(lon)
    return torch.from_numpy(np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], 1))


def xyz_to_latlon(x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    x = x.detach().cpu().numpy()
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    return np.degrees(np.arcsin(np.clip(x[:, 2], -1, 1))), np.degrees(np.arctan2(x[:, 1], x[:, 0]))


def _checksums() -> dict[str, str]:
    out = {}
    for line in (DATA_DIR / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            out[name.strip().lstrip("*").removeprefix("./")] = digest
    return out


def _verified(rel: str) -> Path:
    """The vendored file ``rel`` (relative to DATA_DIR), after checking its SHA-256 against SHA256SUMS."""
    path = DATA_DIR / rel
    sums = _checksums()
    key = next((k for k in sums if k.endswith(rel)), None)
    if key is None:
        raise ValueError(f"{rel} is not listed in SHA256SUMS")
    if hashlib.sha256(path.read_bytes()).hexdigest() != sums[key]:
        raise ValueError(f"{rel}: SHA-256 does not match SHA256SUMS")
    return path


def earth_data(name: str = "volcano") -> torch.Tensor:
    """One of the paper's S² catalogues as unit vectors (checked against SHA256SUMS)."""
    allowed = ("volcano", "earthquake", "flood", "fire", "hurricane")
    if name not in allowed:
        raise ValueError(f"name={name!r} is not allowed; allowed values: {', '.join(allowed)}")
    path = _verified(f"s2_earth/{name}.csv")
    rows = []
    for line in path.read_text().splitlines():
        parts = line.replace(";", ",").split(",")
        try:
            lat, lon = float(parts[0]), float(parts[1])
        except (ValueError, IndexError):
            continue  # the source line and the header
        rows.append((lat, lon))
    arr = np.array(rows)
    return latlon_to_xyz(arr[:, 0], arr[:, 1])


def split(x: torch.Tensor, seed: int, fractions=(0.8, 0.1, 0.1)) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A seeded train / validation / test split (the code's 80/10/10)."""
    g = torch.Generator().manual_seed(seed)
    p = torch.randperm(len(x), generator=g)
    a = int(fractions[0] * len(x))
    b = a + int(fractions[1] * len(x))
    return x[p[:a]], x[p[a:b]], x[p[b:]]


def dipeptide_conformations() -> tuple[torch.Tensor, torch.Tensor]:
    """The paper's alanine-dipeptide heavy-atom conformations ``(10000, 30)`` (Å, float64) and its centre
    conformation ``(30,)`` (φ = −70°, ψ = 150°), checksums verified. The raw conformations are not on the
    constraint set (φ spreads ±10° around −70°): :func:`dipeptide_data` brings them onto it."""
    x = np.load(_verified("dipeptide/dipeptide.npy"), allow_pickle=False).astype(np.float64)
    c = np.load(_verified("dipeptide/dipeptide_center.npy"), allow_pickle=False).astype(np.float64)
    return torch.from_numpy(x.reshape(len(x), 30)), torch.from_numpy(c.reshape(30))


def dipeptide_data(cs, n: int, seed: int) -> torch.Tensor:
    """``n`` conformations on the dipeptide's constraint set (``constraints.Dipeptide``): those whose ψ lies
    inside the window, centred (the constraints are invariant to translations), then Newton-projected onto
    φ = φ₀ (a move of a few degrees); conformations whose projection fails or leaves ψ's window are dropped.
    A seeded random subset (the official code trains on a refined copy of this data, not vendored)."""
    x, _ = dipeptide_conformations()
    _, psi = cs.angles(x)
    d = torch.atan2(torch.sin(psi - cs.centre), torch.cos(psi - cs.centre))
    x = x[d.abs() < cs.half]
    x = (x.reshape(-1, 10, 3) - x.reshape(-1, 10, 3).mean(1, keepdim=True)).reshape(-1, 30)
    g = torch.Generator().manual_seed(seed)
    return _onto_set(cs, x[torch.randperm(len(x), generator=g)], n, "dipeptide conformations")


def _onto_set(cs, x: torch.Tensor, n: int, what: str) -> torch.Tensor:
    """The first ``n`` rows of ``x`` (already in random order) that the Newton projection brings onto the set to
    1e-8; only as many rows as needed are projected (with a quarter in reserve)."""
    if n > len(x):
        raise ValueError(f"n={n!r} is not allowed; there are {len(x)} {what}")
    take = x[: min(len(x), n + n // 4 + 8)]
    z, failed, _ = cs.newton_project(take, max_iter=30, tol=1e-9)
    z = z[~failed & (cs.violation_of(cs.values_and_jacobian(z)[0]) <= 1e-8)]
    if len(z) < n:
        raise ValueError(f"n={n!r} is not allowed; only {len(z)} of {len(take)} {what} reach the set")
    return z[:n]


def robot_data(cs, n: int, seed: int) -> torch.Tensor:
    """``n`` of the paper's 400 arm trajectories ``(n, 14 × waypoints)`` (cos, sin per joint; float64), a
    seeded random subset; the file's obstacle-side labels are not used (the model here is unconditional). The
    file is float32 and its trajectories keep the clearance without the configuration's 0.01 margin in places
    (violations up to 2e-4): each is Newton-projected onto the set first (a move of that order), and any that
    fails is dropped."""
    x = np.load(_verified("robot_arm/robot_7dof_joints_paths.npy"), allow_pickle=False).astype(np.float64)
    if x.shape[1:] != (cs.waypoints, 14):
        raise ValueError(f"the arm data has shape {x.shape[1:]}, the set expects ({cs.waypoints}, 14)")
    x = torch.from_numpy(x.reshape(len(x), -1))
    g = torch.Generator().manual_seed(seed)
    return _onto_set(cs, x[torch.randperm(len(x), generator=g)], n, "arm trajectories")
