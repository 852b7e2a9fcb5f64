r"""A batched pseudo-spectral solver of 2-D incompressible Navier–Stokes in vorticity form on the periodic
square :math:`[0, 2\pi)^2`, and the chapter's data sets (our stand-in for The Well's turbulent fields).

The equation (Kolmogorov flow with linear drag):

.. math::
    \partial_t\omega + \mathbf u\cdot\nabla\omega = \nu\Delta\omega - \mu\,\omega + A\sin(k_f y),
    \qquad \Delta\psi = -\omega,\quad \mathbf u = (\partial_y\psi,\ -\partial_x\psi).

Fields are tensors ``(..., n, n)`` indexed ``[..., i_x, i_y]`` (x along dim -2, y along dim -1), transforms are
``rfft2`` over the last two dims with ``norm="ortho"`` (Parseval: :math:`\sum|\hat f|^2 = \sum f^2`; the real
transform counts the modes of ``0 < k_y < n/2`` once, see :func:`rfft_weights`). The nonlinear term is
computed pseudo-spectrally with the 2/3 rule (modes with :math:`|k_x|` or :math:`|k_y| \ge n/3` zeroed); the
step is IMEX Heun–Crank–Nicolson (second order): viscosity and drag implicit (Crank–Nicolson), advection and
forcing explicit (Heun's predictor-corrector). Every leading dimension is a batch of trajectories.
"""

from __future__ import annotations

import dataclasses
import math

import torch

from ..runtime.progress import progress

__all__ = ["NSSolver", "energy", "enstrophy", "taylor_green", "random_vorticity", "spectral_resample",
           "rfft_weights", "simulate_dataset", "NSData", "make_windows", "coarsen"]


def _wavenumbers(n: int, dtype: torch.dtype, device) -> tuple[torch.Tensor, torch.Tensor]:
    kx = torch.fft.fftfreq(n, d=1.0 / n, dtype=dtype, device=device).reshape(n, 1)
    ky = torch.fft.rfftfreq(n, d=1.0 / n, dtype=dtype, device=device).reshape(1, n // 2 + 1)
    return kx, ky


def rfft_weights(n: int, dtype=torch.float64, device=None) -> torch.Tensor:
    """Multiplicity of each ``rfft2`` mode in the full spectrum: 2 for ``0 < k_y < n/2``, 1 otherwise
    (``(n, n//2+1)``), so that ``sum(w * |f_hat|^2) = sum(f^2)`` for a real field with ortho transforms."""
    w = torch.full((n, n // 2 + 1), 2.0, dtype=dtype, device=device)
    w[:, 0] = 1.0
    if n % 2 == 0:
        w[:, -1] = 1.0
    return w


class NSSolver:
    """Pseudo-spectral 2-D Navier–Stokes (vorticity) on an ``n x n`` periodic grid, batched.

    Parameters
    ----------
    n : grid points per side (even, >= 8).
    nu : kinematic viscosity (>= 0).  drag : linear drag mu (>= 0).
    forcing_amp, forcing_k : Kolmogorov forcing A sin(k_f y) (A = 0: unforced).
    dt : time step (> 0).  dtype, device : of every tensor.
    dealias : apply the 2/3 rule to the nonlinear term (and to initial fields).
    """

    def __init__(self, n: int, *, nu: float, dt: float, drag: float = 0.0, forcing_amp: float = 0.0,
                 forcing_k: int = 4, dtype: torch.dtype = torch.float64, device=None, dealias: bool = True):
        if isinstance(n, bool) or not isinstance(n, int) or n < 8 or n % 2:
            raise ValueError(f"n={n!r} is not allowed; it must be an even integer >= 8")
        for name, v in (("nu", nu), ("drag", drag)):
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"{name}={v!r} is not allowed; it must be a finite number >= 0")
        if not (math.isfinite(dt) and dt > 0):
            raise ValueError(f"dt={dt!r} is not allowed; it must be a finite number > 0")
        self.n, self.nu, self.dt, self.drag = n, float(nu), float(dt), float(drag)
        self.dtype, self.device = dtype, device
        kx, ky = _wavenumbers(n, dtype, device)
        self.kx, self.ky = kx, ky
        self.k2 = kx ** 2 + ky ** 2
        self.inv_k2 = torch.where(self.k2 > 0, 1.0 / torch.where(self.k2 > 0, self.k2, 1.0), 0.0)
        cut = n / 3.0
        self.mask = ((kx.abs() < cut) & (ky.abs() < cut)).to(dtype) if dealias else torch.ones_like(self.k2)
        lin = self.nu * self.k2 + self.drag
        self._num = 1.0 - 0.5 * self.dt * lin
        self._den = 1.0 + 0.5 * self.dt * lin
        # the four spectral multipliers of the advection term, stacked so that one inverse transform gives
        # u, v, d(omega)/dx, d(omega)/dy: (i k_y / k^2, -i k_x / k^2, i k_x, i k_y), shape (4, n, n//2+1)
        kxc, kyc = kx.to(torch.promote_types(dtype, torch.complex64)), ky.to(torch.promote_types(dtype, torch.complex64))
        self._adv = torch.stack(torch.broadcast_tensors(1j * kyc * self.inv_k2, -1j * kxc * self.inv_k2, 1j * kxc,
                                                        1j * kyc))
        self._neg_mask = -self.mask
        x = torch.arange(n, dtype=dtype, device=device) * (2 * math.pi / n)
        force = float(forcing_amp) * torch.sin(forcing_k * x).reshape(1, n).expand(n, n)
        self.f_hat = torch.fft.rfft2(force, norm="ortho") * self.mask

    # -- transforms -------------------------------------------------------------------------------------
    def to_hat(self, w: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft2(w.to(self.dtype), norm="ortho") * self.mask

    def to_grid(self, w_hat: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft2(w_hat, s=(self.n, self.n), norm="ortho")

    def velocity_hat(self, w_hat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        psi = w_hat * self.inv_k2
        return 1j * self.ky * psi, -1j * self.kx * psi

    def nonlinear(self, w_hat: torch.Tensor) -> torch.Tensor:
        r"""Transform of :math:`-\mathbf u\cdot\nabla\omega`, dealiased."""
        s = (self.n, self.n)
        u, v, wx, wy = (torch.fft.irfft2(w_hat * m, s=s, norm="ortho") for m in self._adv)
        return torch.fft.rfft2(torch.addcmul(u * wx, v, wy), norm="ortho") * self._neg_mask

    def step(self, w_hat: torch.Tensor) -> torch.Tensor:
        """One IMEX Heun–Crank–Nicolson step of size ``dt`` on a batch of transforms."""
        n0 = self.nonlinear(w_hat) + self.f_hat
        w1 = (self._num * w_hat + self.dt * n0) / self._den
        n1 = self.nonlinear(w1) + self.f_hat
        return (self._num * w_hat + 0.5 * self.dt * (n0 + n1)) / self._den

    def run(self, w: torch.Tensor, steps: int) -> torch.Tensor:
        """``w`` (grid, ``(..., n, n)``) advanced by ``steps`` steps (grid)."""
        w_hat = self.to_hat(w)
        for _ in range(int(steps)):
            w_hat = self.step(w_hat)
        return self.to_grid(w_hat)


def energy(w: torch.Tensor) -> torch.Tensor:
    r"""Kinetic energy per unit area :math:`\tfrac12\langle|\mathbf u|^2\rangle` of vorticity ``w`` (``(..., n, n)``),
    from :math:`\hat u` with :math:`|\hat{\mathbf u}|^2 = |\hat\omega|^2/k^2`."""
    n = w.shape[-1]
    kx, ky = _wavenumbers(n, torch.float64, w.device)
    k2 = kx ** 2 + ky ** 2
    inv = torch.where(k2 > 0, 1.0 / torch.where(k2 > 0, k2, 1.0), 0.0)
    wh = torch.fft.rfft2(w.to(torch.float64), norm="ortho")
    return 0.5 * (rfft_weights(n, device=w.device) * inv * wh.abs() ** 2).sum((-2, -1)) / n ** 2


def enstrophy(w: torch.Tensor) -> torch.Tensor:
    r"""Enstrophy per unit area :math:`\tfrac12\langle\omega^2\rangle`."""
    return 0.5 * (w.to(torch.float64) ** 2).mean((-2, -1))


def taylor_green(n: int, amplitude: float = 1.0, k: int = 1, dtype=torch.float64) -> torch.Tensor:
    r"""Vorticity of the Taylor–Green vortex :math:`\mathbf u = A(\sin kx\cos ky, -\cos kx\sin ky)`:
    :math:`\omega = 2Ak\sin kx\sin ky`; it decays as :math:`e^{-2\nu k^2 t}` (its advection vanishes)."""
    x = torch.arange(n, dtype=dtype) * (2 * math.pi / n)
    return 2 * amplitude * k * torch.sin(k * x).reshape(n, 1) * torch.sin(k * x).reshape(1, n)


def random_vorticity(batch: int, n: int, generator: torch.Generator, *, alpha: float = 2.5, tau: float = 3.0,
                     rms: float = 1.0, dtype=torch.float64) -> torch.Tensor:
    r"""Gaussian random vorticity fields ``(batch, n, n)`` with spectrum :math:`\propto (k^2+\tau^2)^{-\alpha}`
    (white noise filtered in Fourier space), zero mean, each scaled to RMS ``rms``."""
    noise = torch.randn(batch, n, n, generator=generator, dtype=dtype)
    kx, ky = _wavenumbers(n, dtype, None)
    filt = (kx ** 2 + ky ** 2 + tau ** 2) ** (-alpha / 2)
    filt[0, 0] = 0.0
    w = torch.fft.irfft2(torch.fft.rfft2(noise, norm="ortho") * filt, s=(n, n), norm="ortho")
    return w * (rms / w.pow(2).mean((-2, -1), keepdim=True).sqrt())


def spectral_resample(w: torch.Tensor, n_out: int) -> torch.Tensor:
    """Fourier truncation (``n_out < n``) or zero padding (``n_out > n``) of fields ``(..., n, n)``, with the
    Nyquist modes of the smaller grid dropped, so the kept modes (and the field's values on a common grid) are
    exact: resampling to a finer grid and back returns the field."""
    n = w.shape[-1]
    if n_out == n:
        return w
    m = min(n, n_out) // 2                                    # keep |k_x|, k_y < m
    wh = torch.fft.rfft2(w.to(torch.float64), norm="ortho")
    out = torch.zeros(*w.shape[:-2], n_out, n_out // 2 + 1, dtype=wh.dtype, device=w.device)
    out[..., :m, :m] = wh[..., :m, :m]
    out[..., -(m - 1):, :m] = wh[..., -(m - 1):, :m]
    out = out * (n_out / n)                                   # ortho normalisation: sum f^2 / n^2 preserved
    return torch.fft.irfft2(out, s=(n_out, n_out), norm="ortho").to(w.dtype)


def coarsen(w: torch.Tensor, n_coarse: int) -> torch.Tensor:
    """Block average of fields ``(..., n, n)`` over ``(n / n_coarse)^2`` cells: the coarse observation of the
    super-resolution task (each coarse value is the mean of the fine values in its cell, as a coarse-grained
    reanalysis would report it). ``n`` must be a multiple of ``n_coarse``; returns ``(..., n_coarse, n_coarse)``."""
    n = w.shape[-1]
    if isinstance(n_coarse, bool) or not isinstance(n_coarse, int) or n_coarse < 1 or n % n_coarse:
        raise ValueError(f"n_coarse={n_coarse!r} is not allowed; it must be a positive divisor of the grid n={n}")
    f = n // n_coarse
    return w.reshape(*w.shape[:-2], n_coarse, f, n_coarse, f).mean((-3, -1))


@dataclasses.dataclass
class NSData:
    """Trajectories of vorticity ``frames`` ``(trajectories, time, n, n)`` (float32) saved every ``dt_frame``
    after a spin-up, simulated on the ``n_sim`` grid and truncated to ``n`` in Fourier space."""

    frames: torch.Tensor
    n: int
    n_sim: int
    dt_frame: float
    params: dict


def simulate_dataset(trajectories: int, frames: int, n: int, *, n_sim: int, nu: float, drag: float,
                     forcing_amp: float, forcing_k: int, dt: float, dt_frame: float, spinup: float, seed: int,
                     dtype: torch.dtype = torch.float32, device=None, show_progress: bool = True) -> NSData:
    """Simulate ``trajectories`` Kolmogorov flows at once (one batch) and keep ``frames`` frames each."""
    if n_sim < n:
        raise ValueError(f"n_sim={n_sim} is not allowed; it must be >= n={n}")
    every = round(dt_frame / dt)
    if every < 1 or abs(every * dt - dt_frame) > 1e-9:
        raise ValueError(f"dt_frame={dt_frame} is not allowed; it must be a positive multiple of dt={dt}")
    spin = round(spinup / dt)
    g = torch.Generator().manual_seed(int(seed))
    w0 = random_vorticity(trajectories, n_sim, g, rms=2.0, dtype=torch.float64)
    solver = NSSolver(n_sim, nu=nu, dt=dt, drag=drag, forcing_amp=forcing_amp, forcing_k=forcing_k,
                      dtype=dtype, device=device)
    w_hat = solver.to_hat(w0.to(device))
    out = []
    total = spin + (frames - 1) * every
    bar = progress(range(total + 1), total=total + 1, desc=f"Navier-Stokes {n_sim}^2 x {trajectories}",
                   disable=not show_progress)
    for s in bar:
        if s >= spin and (s - spin) % every == 0:
            out.append(spectral_resample(solver.to_grid(w_hat), n).float().cpu())
        if s < total:
            w_hat = solver.step(w_hat)
    frames_t = torch.stack(out, dim=1)
    if not torch.isfinite(frames_t).all():
        raise FloatingPointError("the simulation blew up (non-finite vorticity); lower dt or raise nu")
    return NSData(frames_t, n, n_sim, dt_frame, dict(nu=nu, drag=drag, forcing_amp=forcing_amp,
                                                     forcing_k=forcing_k, dt=dt, spinup=spinup, seed=seed))


def make_windows(frames: torch.Tensor, history: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs ``(N, history, n, n)`` (``history`` consecutive frames) and targets ``(N, 1, n, n)`` (the next
    frame), over every window of every trajectory of ``frames`` ``(T, time, n, n)``."""
    T, L = frames.shape[:2]
    if L <= history:
        raise ValueError(f"{L} frames per trajectory leave no window of history={history} plus a target")
    xs = [frames[:, s:s + history] for s in range(L - history)]
    ys = [frames[:, s + history:s + history + 1] for s in range(L - history)]
    return torch.cat(xs), torch.cat(ys)
