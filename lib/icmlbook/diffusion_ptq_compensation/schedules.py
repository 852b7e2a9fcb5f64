r"""Noise schedules and the affine step coefficients of each solver, derived per solver.

Every deterministic sampler used here takes, at sampling step ``n`` (``n = 0`` is the noisiest), the form

.. math:: x_{n+1} = a_n\,x_n + b_n\,\hat\varepsilon_n ,

with :math:`\hat\varepsilon_n` the network's noise prediction at :math:`(x_n, t_n)`. The coefficients are
derived separately for each solver (never reused): DDIM from its :math:`\hat x_0` form, DPM-Solver++ (first
order) from its data-prediction exponential-integrator form in the half-log-SNR :math:`\lambda`. The two
happen to coincide (Lu et al. 2022 note it); the tests check that the separate derivations agree.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SOLVERS", "alphas_bar", "sampling_timesteps", "step_coefficients", "check_solver"]

SOLVERS = ("ddim", "dpmpp1")


def check_solver(solver: str) -> str:
    if solver not in SOLVERS:
        raise ValueError(f"solver={solver!r} is not allowed; allowed values: {', '.join(SOLVERS)}")
    return solver


def alphas_bar(T: int = 1000, beta_start: float = 1e-4, beta_end: float = 0.02, kind: str = "linear") -> np.ndarray:
    r""":math:`\bar\alpha_t=\prod_{s\le t}(1-\beta_s)` for ``t = 0..T-1`` (DDPM's linear betas, or the cosine
    schedule of Nichol & Dhariwal clipped at 0.999)."""
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 2:
        raise ValueError(f"T={T!r} is not allowed; it must be an integer >= 2")
    if kind == "linear":
        betas = np.linspace(beta_start, beta_end, T, dtype=np.float64)
    elif kind == "cosine":
        s = 0.008
        f = np.cos((np.arange(T + 1) / T + s) / (1 + s) * np.pi / 2) ** 2
        betas = np.clip(1 - f[1:] / f[:-1], 0, 0.999)
    else:
        raise ValueError(f"kind={kind!r} is not allowed; allowed values: linear, cosine")
    return np.cumprod(1.0 - betas)


def sampling_timesteps(T: int, steps: int) -> np.ndarray:
    """The ``steps`` training timesteps visited, descending (DDIM's "leading" spacing:
    ``(T // steps) * arange(steps)`` reversed, as diffusers' DDIMScheduler with steps_offset=0)."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be an integer >= 1")
    if steps > T:
        raise ValueError(f"steps={steps} is not allowed; it must be <= the {T} training timesteps")
    ratio = T // steps
    return (np.arange(steps) * ratio)[::-1].astype(np.int64)


def _abar_sequence(abar: np.ndarray, timesteps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ᾱ at each visited timestep and at the next one (1 after the last step: the clean data)."""
    cur = abar[timesteps]
    nxt = np.append(abar[timesteps[1:]], 1.0)
    return cur, nxt


def step_coefficients(solver: str, abar: np.ndarray, timesteps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``(a, b)``, one pair per sampling step, for ``solver``.

    * ``ddim``: :math:`x_{n+1}=\sqrt{\bar\alpha'}\,\hat x_0+\sqrt{1-\bar\alpha'}\,\hat\varepsilon` with
      :math:`\hat x_0=(x_n-\sqrt{1-\bar\alpha}\,\hat\varepsilon)/\sqrt{\bar\alpha}`, so
      :math:`a=\sqrt{\bar\alpha'/\bar\alpha}`, :math:`b=\sqrt{1-\bar\alpha'}-\sqrt{\bar\alpha'(1-\bar\alpha)/\bar\alpha}`.
    * ``dpmpp1``: with :math:`\alpha=\sqrt{\bar\alpha}`, :math:`\sigma=\sqrt{1-\bar\alpha}`,
      :math:`\lambda=\log(\alpha/\sigma)`, :math:`h=\lambda'-\lambda`, the first-order data-prediction step
      :math:`x_{n+1}=(\sigma'/\sigma)x_n-\alpha'(e^{-h}-1)\hat x_0`; substituting :math:`\hat x_0` gives
      :math:`a=\sigma'/\sigma-\alpha'(e^{-h}-1)/\alpha`, :math:`b=\alpha'(e^{-h}-1)\sigma/\alpha`. The last step
      (to :math:`\sigma'=0`, :math:`h=\infty`) is :math:`x_{n+1}=\hat x_0`.
    """
    check_solver(solver)
    cur, nxt = _abar_sequence(np.asarray(abar, dtype=np.float64), np.asarray(timesteps))
    if solver == "ddim":
        a = np.sqrt(nxt / cur)
        b = np.sqrt(1 - nxt) - np.sqrt(nxt * (1 - cur) / cur)
        return a, b
    al, si = np.sqrt(cur), np.sqrt(1 - cur)
    al2, si2 = np.sqrt(nxt), np.sqrt(np.clip(1 - nxt, 0, None))
    a = np.empty_like(cur)
    b = np.empty_like(cur)
    last = si2 == 0
    with np.errstate(divide="ignore"):
        h = np.log(al2 / np.where(last, 1.0, si2)) - np.log(al / si)
    em = np.where(last, -1.0, np.expm1(-np.where(last, 0.0, h)))     # e^{-h} - 1 (= -1 at h = inf)
    a = si2 / si - al2 * em / al
    b = al2 * em * si / al
    return a, b
