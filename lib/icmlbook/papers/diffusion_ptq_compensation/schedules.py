r"""Noise schedules and the affine step coefficients of each solver, derived per solver.

Every deterministic sampler used here takes, at sampling step ``n`` (``n = 0`` is the noisiest), the form

.. math:: x_{n+1} = a_n\,x_n + b_n\,\hat\varepsilon_n ,

with :math:`\hat\varepsilon_n` the network's noise prediction at :math:`(x_n, t_n)`. The coefficients are
derived separately for each solver (never reused): DDIM from its :math:`\hat x_0` form, DPM-Solver++ (first
order) from its data-prediction exponential-integrator form in the half-log-SNR :math:`\lambda`. The two
happen to coincide (Lu et al. 2022 note it); the tests check that the separate derivations agree.

Two more solvers do not fit the one-step form and use the two-step linear recursion

.. math:: x_{n+1} = a_n\,x_n + b_n\,\hat o_n + c_n\,x_{n-1} + d_n\,\hat o_{n-1}

(:func:`multistep_coefficients`): **DPM-Solver++(2M)** (Lu et al. 2022, multistep, data prediction: the
second-order step reads the current and the previous data predictions, hence both previous states and
outputs), and **flow-matching Euler** (rectified flow, :math:`x_\sigma=(1-\sigma)x_0+\sigma\varepsilon`,
velocity prediction :math:`\hat o=v`): :math:`x_{n+1}=x_n+(\sigma_{n+1}-\sigma_n)\,v_n`, so :math:`a=1`,
:math:`b=\Delta\sigma`, :math:`c=d=0`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SOLVERS", "ALL_SOLVERS", "alphas_bar", "sampling_timesteps", "step_coefficients", "check_solver",
           "multistep_coefficients", "flow_sigmas", "Coefficients", "solver_coefficients", "PREDICTION"]

SOLVERS = ("ddim", "dpmpp1")
ALL_SOLVERS = ("ddim", "dpmpp1", "dpmpp2m", "flow_euler")
#: what the network predicts for each solver: the noise ε, or the flow-matching velocity v = ε − x₀
PREDICTION = {"ddim": "eps", "dpmpp1": "eps", "dpmpp2m": "eps", "flow_euler": "velocity"}


def check_solver(solver: str, allowed: tuple[str, ...] = SOLVERS) -> str:
    if solver not in allowed:
        raise ValueError(f"solver={solver!r} is not allowed; allowed values: {', '.join(allowed)}")
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


def multistep_coefficients(solver: str, abar: np.ndarray, timesteps: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``(a, b, c, d)`` of :math:`x_{n+1}=a_nx_n+b_n\hat\varepsilon_n+c_nx_{n-1}+d_n\hat\varepsilon_{n-1}` for
    ``solver`` on a DDPM schedule (``c = d = 0`` for the one-step solvers).

    ``dpmpp2m`` (DPM-Solver++(2M), data prediction :math:`D_n=(x_n-\sigma_n\hat\varepsilon_n)/\alpha_n`): with
    :math:`h_n=\lambda_{n+1}-\lambda_n`, :math:`r_n=h_{n-1}/h_n` and :math:`\phi_n=e^{-h_n}-1`,

    .. math:: x_{n+1}=\frac{\sigma_{n+1}}{\sigma_n}x_n-\alpha_{n+1}\phi_n\Big[\Big(1+\frac1{2r_n}\Big)D_n
              -\frac1{2r_n}D_{n-1}\Big],

    first order at the first step (no previous output) and at the last one (to :math:`\sigma=0`, where
    :math:`h=\infty`; diffusers does the same with ``final_sigmas_type="zero"``). Substituting :math:`D`:
    :math:`a_n=\sigma_{n+1}/\sigma_n-\alpha_{n+1}\phi_n(1+\tfrac1{2r_n})/\alpha_n`,
    :math:`b_n=\alpha_{n+1}\phi_n(1+\tfrac1{2r_n})\sigma_n/\alpha_n`, :math:`c_n=\alpha_{n+1}\phi_n/(2r_n\alpha_{n-1})`,
    :math:`d_n=-\alpha_{n+1}\phi_n\sigma_{n-1}/(2r_n\alpha_{n-1})`.
    """
    check_solver(solver, ("ddim", "dpmpp1", "dpmpp2m"))
    if solver != "dpmpp2m":
        a, b = step_coefficients(solver, abar, timesteps)
        return a, b, np.zeros_like(a), np.zeros_like(a)
    cur, nxt = _abar_sequence(np.asarray(abar, dtype=np.float64), np.asarray(timesteps))
    al, si = np.sqrt(cur), np.sqrt(1 - cur)
    al2, si2 = np.sqrt(nxt), np.sqrt(np.clip(1 - nxt, 0, None))
    lam = np.log(al / si)
    S = len(cur)
    a, b, c, d = (np.zeros(S) for _ in range(4))
    for n in range(S):
        if si2[n] == 0:                                   # the last step: x_{n+1} = D_n (first order, h = inf)
            a[n], b[n] = 1 / al[n], -si[n] / al[n]
            continue
        h = np.log(al2[n] / si2[n]) - lam[n]
        phi = np.expm1(-h)
        if n == 0:
            w0, w1 = 1.0, 0.0
        else:
            r = (lam[n] - lam[n - 1]) / h
            w0, w1 = 1 + 1 / (2 * r), -1 / (2 * r)
        a[n] = si2[n] / si[n] - al2[n] * phi * w0 / al[n]
        b[n] = al2[n] * phi * w0 * si[n] / al[n]
        if n > 0:
            c[n] = -al2[n] * phi * w1 / al[n - 1]
            d[n] = al2[n] * phi * w1 * si[n - 1] / al[n - 1]
    return a, b, c, d


def flow_sigmas(T: int, steps: int, shift: float = 1.0) -> np.ndarray:
    r"""The ``steps`` noise levels :math:`\sigma_n` of flow-matching Euler, as diffusers'
    ``FlowMatchEulerDiscreteScheduler``: linear from 1 to the smallest shifted training level
    :math:`g(1/T)`, then shifted again by :math:`g(\sigma)=s\sigma/(1+(s-1)\sigma)` (with :math:`s=1`, simply
    ``linspace(1, 1/T, steps)``); the sampler then steps to :math:`\sigma=0`."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be an integer >= 1")
    if steps > T:
        raise ValueError(f"steps={steps} is not allowed; it must be <= the {T} training timesteps")
    if not shift > 0:
        raise ValueError(f"shift={shift!r} is not allowed; it must be > 0")
    def g(v):
        return shift * v / (1 + (shift - 1) * v)
    return g(np.linspace(1.0, g(1.0 / T), steps))


class Coefficients(tuple):
    """``(timesteps, a, b, c, d)``: the model's time inputs per step and the recursion's coefficients."""

    __slots__ = ()

    def __new__(cls, timesteps, a, b, c, d):
        return super().__new__(cls, (timesteps, a, b, c, d))

    timesteps = property(lambda self: self[0])
    a = property(lambda self: self[1])
    b = property(lambda self: self[2])
    c = property(lambda self: self[3])
    d = property(lambda self: self[4])

    @property
    def multistep(self) -> bool:
        return bool(np.any(self[3] != 0) or np.any(self[4] != 0))


def solver_coefficients(solver: str, T: int, steps: int, shift: float = 1.0) -> Coefficients:
    r"""Time inputs and coefficients of ``solver`` with ``steps`` steps. DDPM solvers feed the integer training
    timestep to the model; flow Euler feeds :math:`1000\,\sigma` (a float), as diffusers does."""
    check_solver(solver, ALL_SOLVERS)
    if solver == "flow_euler":
        sig = flow_sigmas(T, steps, shift)
        nxt = np.append(sig[1:], 0.0)
        one = np.ones(steps)
        return Coefficients(sig * 1000.0, one, nxt - sig, 0 * one, 0 * one)
    ab = alphas_bar(T)
    ts = sampling_timesteps(T, steps)
    return Coefficients(ts, *multistep_coefficients(solver, ab, ts))
