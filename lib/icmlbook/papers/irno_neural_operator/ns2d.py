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

from ...runtime.progress import progress

__all__ = ["NSSolver", "BLOCK_POINTS", "energy", "enstrophy", "taylor_green", "random_vorticity", "spectral_resample",
           "rfft_weights", "simulate_dataset", "NSData", "make_windows", "coarsen"]


#: grid points per block of trajectories advanced together on the CPU (see ``NSSolver(block=...)``): 2^16 points (16
#: trajectories of 64^2) keep a block's state and temporaries (about 2 MiB in float32) in one core's L2 and nearby
#: L3; measured (CPU time, 64 x 64^2, 20 steps, at a load of 9): blocks of 8 / 16 / 32 / 64 trajectories
#: 81 / 77 / 82 / 94 ms
BLOCK_POINTS = 2 ** 16


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
    r"""Pseudo-spectral 2-D Navier–Stokes (vorticity) on an ``n x n`` periodic grid, batched.

    Parameters
    ----------
    n : grid points per side (even, >= 8).
    nu : kinematic viscosity (>= 0).  drag : linear drag mu (>= 0).
    forcing_amp, forcing_k : Kolmogorov forcing A sin(k_f y) (A = 0: unforced).
    dt : time step (> 0).  dtype, device : of every tensor.
    dealias : apply the 2/3 rule to the nonlinear term (and to initial fields).
    block : trajectories advanced together by :meth:`run` and :func:`simulate_dataset` on the CPU (cache blocking:
        each block runs every step before the next starts, so its working set stays in one core's cache); ``None``
        (default): as many as hold :data:`BLOCK_POINTS` grid points on the CPU, the whole batch on a GPU; ``0``: the
        whole batch. Trajectories are independent, so blocking changes no value.

    The state advanced by :meth:`advance` is compact: the ``kc = ceil(n/3)`` columns ``0 <= k_y < kc`` of the rfft2
    layout that the 2/3 rule keeps (:meth:`to_state`, :meth:`state_to_grid`). Its nonlinear term uses the identity
    :math:`\mathbf u\cdot\nabla\omega = \partial_x\partial_y(v^2-u^2) + (\partial_x^2-\partial_y^2)(uv)` of a
    divergence-free 2-D flow (four transforms instead of five, the inverse ones pruned to the kept columns); dealiased,
    it equals the advective form of :meth:`nonlinear` to rounding (tested). With ``dealias=False`` the two forms alias
    differently.
    """

    def __init__(self, n: int, *, nu: float, dt: float, drag: float = 0.0, forcing_amp: float = 0.0,
                 forcing_k: int = 4, dtype: torch.dtype = torch.float64, device=None, dealias: bool = True,
                 block: int | None = None):
        if isinstance(n, bool) or not isinstance(n, int) or n < 8 or n % 2:
            raise ValueError(f"n={n!r} is not allowed; it must be an even integer >= 8")
        for name, v in (("nu", nu), ("drag", drag)):
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"{name}={v!r} is not allowed; it must be a finite number >= 0")
        if not (math.isfinite(dt) and dt > 0):
            raise ValueError(f"dt={dt!r} is not allowed; it must be a finite number > 0")
        if block is not None and (isinstance(block, bool) or not isinstance(block, int) or block < 0):
            raise ValueError(f"block={block!r} is not allowed; it must be None or an integer >= 0")
        self.n, self.nu, self.dt, self.drag = n, float(nu), float(dt), float(drag)
        on_cpu = device is None or torch.device(device).type == "cpu"
        self.block = (max(1, BLOCK_POINTS // n ** 2) if on_cpu else 0) if block is None else block
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
        # -- the compact state of :meth:`advance`: the kc columns 0 <= k_y < kc that the 2/3 rule keeps --------
        self.kc = kc = math.ceil(n / 3) if dealias else n // 2 + 1
        if dealias:
            assert bool(self.mask[:, kc:].eq(0).all()) and bool(self.mask[0, :kc].eq(1).all())
        cplx = torch.promote_types(dtype, torch.complex64)
        c = lambda t: t[:, :kc].to(cplx).contiguous()  # noqa: E731
        kxb, kyb = (t[:, :kc] for t in torch.broadcast_tensors(kx, ky))
        # (u, v) = (i k_y, -i k_x) psi with psi = omega / k^2, stacked: one transform pair gives both
        self._vel = torch.stack([c(1j * kyc * self.inv_k2), c(-1j * kxc * self.inv_k2)])
        # u.grad(omega) = d_x d_y (v^2 - u^2) + (d_x^2 - d_y^2)(u v) for a divergence-free u, so the transform of
        # -u.grad(omega) is -(k_x k_y) FT[u^2 - v^2] - (k_y^2 - k_x^2) FT[u v]: two products, two forward transforms
        # (instead of four inverse and one forward); dealiased and folded into the Heun-CN update with dt / den
        g = self.dt / self._den
        ca = -(kxb * kyb) * self.mask[:, :kc] * g[:, :kc]
        cb = -(kyb ** 2 - kxb ** 2) * self.mask[:, :kc] * g[:, :kc]
        self._lin_c = c(self._num / self._den)                  # (1 - dt L / 2) / (1 + dt L / 2)
        self._force_c = c(self.f_hat * g)                       # dt f / den
        self._nl_c = (c(ca), c(cb))                             # predictor: w1 = base + ca F_a + cb F_b
        self._nl_half = (c(0.5 * ca), c(0.5 * cb))              # corrector: w2 = base + (ca, cb) . (F(w) + F(w1)) / 2

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
        r"""One IMEX Heun–Crank–Nicolson step of size ``dt`` on a batch of transforms ``(..., n, n//2+1)``:

        .. math::
            \hat\omega_1 = \frac{(1-\tfrac{dt}2L)\hat\omega + dt\,N_0}{1+\tfrac{dt}2L},\qquad
            \hat\omega' = \frac{(1-\tfrac{dt}2L)\hat\omega + \tfrac{dt}2(N_0+N_1)}{1+\tfrac{dt}2L},

        :math:`L = \nu k^2 + \mu`, :math:`N_i` the dealiased nonlinear term plus forcing at :math:`\hat\omega_i`.
        Computed on the compact state (:meth:`advance`); the columns the 2/3 rule removes evolve linearly."""
        kc = self.kc
        out = self.advance(w_hat[..., :kc])
        if kc == w_hat.shape[-1]:
            return out
        return torch.cat([out, w_hat[..., kc:] * (self._num / self._den)[:, kc:]], dim=-1)

    def run(self, w: torch.Tensor, steps: int) -> torch.Tensor:
        """``w`` (grid, ``(..., n, n)``) advanced by ``steps`` steps (grid), ``block`` trajectories at a time."""
        lead = w.shape[:-2]
        flat = w.reshape(-1, self.n, self.n)
        out = []
        for blk in self.blocks(flat.shape[0]):
            state = self.to_state(flat[blk])
            for _ in range(int(steps)):
                state = self.advance(state)
            out.append(self.state_to_grid(state))
        return (out[0] if len(out) == 1 else torch.cat(out)).reshape(*lead, self.n, self.n)

    def blocks(self, trajectories: int) -> list[slice]:
        """The slices of a batch of ``trajectories`` that :meth:`run` advances one after the other."""
        size = self.block or max(trajectories, 1)
        return [slice(i, min(i + size, trajectories)) for i in range(0, max(trajectories, 1), size)]

    # -- the compact state: the kc = ceil(n/3) columns of the rfft2 layout that the 2/3 rule keeps ----------
    def to_state(self, w: torch.Tensor) -> torch.Tensor:
        """Grid fields ``(..., n, n)`` to the compact state ``(..., n, kc)`` (dealiased transform, ``k_y < kc``)."""
        return self.to_hat(w)[..., :self.kc].contiguous()

    def state_to_grid(self, state: torch.Tensor) -> torch.Tensor:
        """The grid fields ``(..., n, n)`` of a compact state (the same values as :meth:`to_grid` of its full
        transform: an inverse FFT along x over the kept columns only, then a real inverse FFT along y, zero-padded)."""
        return torch.fft.irfft(torch.fft.ifft(state, dim=-2, norm="ortho"), n=self.n, dim=-1, norm="ortho")

    def _forward_compact(self, f: torch.Tensor) -> torch.Tensor:
        """Real fields ``(..., n, n)`` to their transforms' kept columns ``(..., n, kc)`` (a view). One rfft2 call:
        a real FFT along y then an FFT along x of the kept columns only was measured slower (the strided columns)."""
        return torch.fft.rfft2(f, norm="ortho")[..., :self.kc]

    def _products(self, state: torch.Tensor) -> torch.Tensor:
        """The transforms of ``u^2 - v^2`` and ``u v`` (``(..., 2, n, kc)``), from a compact state."""
        uv = self.state_to_grid(state.unsqueeze(-3) * self._vel)          # (..., 2, n, n): u, v
        u, v = uv[..., 0, :, :], uv[..., 1, :, :]
        buf = torch.empty_like(uv)
        a, b = buf[..., 0, :, :], buf[..., 1, :, :]
        torch.mul(u, u, out=a)
        a.addcmul_(v, v, value=-1.0)
        torch.mul(u, v, out=b)
        return self._forward_compact(buf)

    def advance(self, state: torch.Tensor) -> torch.Tensor:
        """One step (:meth:`step`) on a compact state ``(..., n, kc)``: four transforms per nonlinear term (two
        inverse ones pruned to the kept columns, two forward) and the update folded into six fused elementwise
        operations."""
        ca, cb = self._nl_c
        ha, hb = self._nl_half
        base = torch.addcmul(self._force_c, self._lin_c, state)
        f0 = self._products(state)
        w1 = torch.addcmul(base, ca, f0[..., 0, :, :]).addcmul_(cb, f0[..., 1, :, :])
        f0 += self._products(w1)
        return base.addcmul_(ha, f0[..., 0, :, :]).addcmul_(hb, f0[..., 1, :, :])


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
                     dtype: torch.dtype = torch.float32, device=None, show_progress: bool = True,
                     block: int | None = None) -> NSData:
    """Simulate ``trajectories`` Kolmogorov flows at once (one batch, advanced ``block`` trajectories at a time: see
    :class:`NSSolver`) and keep ``frames`` frames each."""
    if n_sim < n:
        raise ValueError(f"n_sim={n_sim} is not allowed; it must be >= n={n}")
    every = round(dt_frame / dt)
    if every < 1 or abs(every * dt - dt_frame) > 1e-9:
        raise ValueError(f"dt_frame={dt_frame} is not allowed; it must be a positive multiple of dt={dt}")
    spin = round(spinup / dt)
    g = torch.Generator().manual_seed(int(seed))
    w0 = random_vorticity(trajectories, n_sim, g, rms=2.0, dtype=torch.float64)
    solver = NSSolver(n_sim, nu=nu, dt=dt, drag=drag, forcing_amp=forcing_amp, forcing_k=forcing_k,
                      dtype=dtype, device=device, block=block)
    total = spin + (frames - 1) * every
    blocks = solver.blocks(trajectories)
    bar = iter(progress(range(len(blocks) * (total + 1)), total=len(blocks) * (total + 1),
                        desc=f"Navier-Stokes {n_sim}^2 x {trajectories}", disable=not show_progress))
    per_block = []
    for blk in blocks:                                        # each block of trajectories runs every step in turn
        state = solver.to_state(w0[blk].to(device))
        out = []
        for s in range(total + 1):
            next(bar)
            if s >= spin and (s - spin) % every == 0:
                out.append(spectral_resample(solver.state_to_grid(state), n).float().cpu())
            if s < total:
                state = solver.advance(state)
        per_block.append(torch.stack(out, dim=1))
    next(bar, None)
    frames_t = torch.cat(per_block)
    if not torch.isfinite(frames_t).all():
        raise FloatingPointError("the simulation blew up (non-finite vorticity); lower dt or raise nu")
    return NSData(frames_t, n, n_sim, dt_frame, dict(nu=nu, drag=drag, forcing_amp=forcing_amp,
                                                     forcing_k=forcing_k, dt=dt, spinup=spinup, seed=seed))


def make_windows(frames: torch.Tensor, history: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs ``(N, history, n, n)`` (``history`` consecutive frames) and targets ``(N, 1, n, n)`` (the next
    frame), over every window of every trajectory of ``frames`` ``(T, time, n, n)``."""
    if isinstance(history, bool) or not isinstance(history, int) or history < 1:
        raise ValueError(f"history={history!r} is not allowed; history must be an integer >= 1 (frames per input)")
    if frames.ndim != 4:
        raise ValueError(f"frames must have shape (trajectories, time, n, n); got {tuple(frames.shape)}")
    T, L = frames.shape[:2]
    if L <= history:
        raise ValueError(f"{L} frames per trajectory leave no window of history={history} plus a target")
    xs = [frames[:, s:s + history] for s in range(L - history)]
    ys = [frames[:, s + history:s + history + 1] for s in range(L - history)]
    return torch.cat(xs), torch.cat(ys)
