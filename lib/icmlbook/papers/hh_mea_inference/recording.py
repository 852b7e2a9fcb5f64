"""The array and the extracellular potential (dossier §3.2).

A hexagonal array of electrodes at pitch 30 µm in the plane z = 0 (19, 61 or 512 electrodes; the 512 are the
ones nearest the centre of a 13-ring hexagon, the Litke array's pitch). A cell's compartments are current
sources in a homogeneous medium of resistivity ρ_e:

    point source:  φ_e(t) = ρ_e / (4π) Σ_i I_m,i(t) / |r_e - r_i|
    line source:   φ_e(t) = ρ_e / (4π) Σ_i I_m,i(t) / L_i [asinh((L_i - s_ei)/d_ei) + asinh(s_ei/d_ei)]

(s_ei the position of the electrode's foot along segment i from its start, d_ei its distance from the
segment's line). With I in nA, distances in µm and ρ_e in Ω·cm, ρ I/(4π r) is in units of 10 µV.
The electrical image (EI) is φ sampled at the array's 20 kHz (50 µs bins, a box anti-alias filter), and the
measured EI is the average over N spikes: white noise of σ_1 / √N per sample.
"""

from __future__ import annotations

import numpy as np

from . import _jax  # noqa: F401
import jax.numpy as jnp

__all__ = ["hex_array", "point_source_matrix", "line_source_matrix", "dipole_potential", "ei_noise_sigma",
           "RHO_E"]

RHO_E = 1000.0  # Ω·cm, extracellular resistivity (the precursor's value)


def hex_array(n_electrodes: int, pitch: float = 30.0) -> np.ndarray:
    """(n, 2) positions (µm) of a hexagonal array centred at the origin: the ``n`` sites nearest the centre
    of a hexagonal lattice (full rings for 7, 19, 37, 61, ...; ties broken by angle)."""
    if isinstance(n_electrodes, bool) or not isinstance(n_electrodes, (int, np.integer)) or n_electrodes < 7:
        raise ValueError(f"n_electrodes={n_electrodes!r} is not allowed; it must be an integer >= 7")
    rings = 1
    while 1 + 3 * rings * (rings + 1) < n_electrodes:
        rings += 1
    pts = []
    for i in range(-rings, rings + 1):
        for j in range(-rings, rings + 1):
            if abs(i + j) <= rings:
                pts.append((pitch * (i + 0.5 * j), pitch * (np.sqrt(3) / 2) * j))
    pts = np.array(pts)
    r = np.hypot(pts[:, 0], pts[:, 1])
    order = np.lexsort((np.arctan2(pts[:, 1], pts[:, 0]), np.round(r, 6)))
    return pts[order[:n_electrodes]]


def _elec3(electrodes):
    e = jnp.asarray(electrodes)
    return jnp.concatenate([e, jnp.zeros((e.shape[0], 1))], axis=1)


def point_source_matrix(electrodes, centres, rho=RHO_E):
    """(n_elec, n_comp) transfer matrix in µV/nA: 10 ρ / (4π |r_e - r_i|)."""
    d = jnp.linalg.norm(_elec3(electrodes)[:, None, :] - centres[None, :, :], axis=-1)
    return 10.0 * rho / (4.0 * jnp.pi * d)


def line_source_matrix(electrodes, starts, ends, rho=RHO_E):
    """(n_elec, n_comp) transfer matrix in µV/nA of uniform line sources from ``starts`` to ``ends``."""
    e = _elec3(electrodes)
    seg = ends - starts                                   # (n_comp, 3)
    L = jnp.linalg.norm(seg, axis=-1)
    u = seg / L[:, None]
    rel = e[:, None, :] - starts[None, :, :]              # (n_e, n_c, 3)
    s = jnp.sum(rel * u[None], axis=-1)
    perp = jnp.sqrt(jnp.maximum(jnp.sum(rel * rel, axis=-1) - s * s, 1e-12))
    return 10.0 * rho / (4.0 * jnp.pi * L[None, :]) * (jnp.arcsinh((L[None, :] - s) / perp) + jnp.arcsinh(s / perp))


def dipole_potential(points, currents, positions, rho=RHO_E):
    """Far-field (dipole) potential in µV at ``points`` (n, 3) of sources ``currents`` (nA, summing to zero)
    at ``positions`` (m, 3): ρ/(4π) p·(r - r₀)/|r - r₀|³ with p = Σ I_i (r_i - r₀) about their mean r₀."""
    positions = np.asarray(positions, float)
    r0 = positions.mean(0)
    p = (np.asarray(currents, float)[:, None] * (positions - r0)).sum(0)
    rel = np.asarray(points, float) - r0
    d = np.linalg.norm(rel, axis=1)
    return 10.0 * rho / (4.0 * np.pi) * (rel @ p) / d ** 3


def ei_noise_sigma(n_spikes, sigma_single: float) -> float:
    """Noise σ (µV) per sample of an EI averaged over ``n_spikes`` spikes: σ_1 / √N."""
    n = np.asarray(n_spikes, float)
    if np.any(~np.isfinite(n)) or np.any(n < 1):
        raise ValueError(f"n_spikes={n_spikes!r} is not allowed; it must be >= 1")
    return sigma_single / np.sqrt(n)
