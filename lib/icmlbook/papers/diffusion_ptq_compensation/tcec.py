r"""Timestep-aware cumulative error compensation (TCEC), as reconstructed here, and its baselines.

**Error model.** Per sampling step ``n`` and output channel ``c``, the quantisation error of the output is
modelled as proportional to the quantised output, :math:`\hat\delta_n=K_n\odot\hat\varepsilon_n`, with
:math:`K_n[c]` the least-squares slope over calibration seeds and positions:
:math:`K_n[c]=\sum\delta\,\hat\varepsilon/\sum\hat\varepsilon^2`.

**Rule.** The exact term that zeroes the next error is :math:`C_n=\delta_n+(a_n/b_n)e_n` (J = 0), with
:math:`e_n` the error the compensated sampler's state actually carries. The sampler uses
:math:`\tilde\varepsilon_n=\hat\varepsilon_n-\hat\delta_n-\lambda_1\frac{a_n}{b_n}\hat e_n`, where :math:`\hat e_n` is
the closed form truncated to the last ``m`` steps and fed with what each earlier step's correction *left*, not with
what it removed: :math:`\hat r_i=R_i\odot\hat\varepsilon_i`, ``R`` the per-step, per-channel least-squares slope of
the residual :math:`\delta_i-K_i\hat\varepsilon_i` on :math:`\hat\varepsilon_i`, measured on the calibration seeds
sampled with the per-step correction (:func:`fit_R`). Since the carried term itself removes a λ₁ share of the
carried error at every step, the closed form is that of the compensated recursion: for one-step solvers
:math:`\hat e_n=\sum_{i=n-m}^{n-1}\big(\prod_{j=i+1}^{n-1}(1-\lambda_1)a_j\big)b_i\hat r_i` (``m = 0``: per-step only;
``m = None``: the full sum). With m = 1 this uses the outputs of the current and the previous step; at λ₁ = 1 the
two windows coincide. λ₁ is chosen on the calibration seeds.

*How this differs from the first reconstruction* (sessions 1-7, issue 35): :math:`\hat e_n` was fed with the
estimates :math:`\hat\delta_i=K_i\hat\varepsilon_i` themselves, which step ``i`` had already subtracted, so the
carried term removed them a second time; calibration then always chose λ₁ = 0 and the method was the per-step
scaling. With exact per-step estimates the carried term must carry nothing, and now does not (tested).

For any solver (two-step ones included) the carried term is :math:`\lambda_1b_n^{-1}\sum_{i=n-m}^{n-1}P_{n,i}\hat r_i`,
``P`` the compensated recursion's weights (:func:`closed_loop_weights`; at λ₁ = 0 the open-loop ones of
:func:`~icmlbook.papers.diffusion_ptq_compensation.propagation.propagation_weights`).

Baselines: the **oracle** with the true δ (FP re-evaluated at the visited state, per-step only), and a
**PTQD-style** mean correction (He et al. 2023): one slope :math:`k_n` of δ on the FP output per step and
:math:`\tilde\varepsilon=\hat\varepsilon/(1+k_n)` (PTQD's variance correction needs a stochastic sampler
and is not used with deterministic DDIM).

Two earlier timestep-aware corrections, reimplemented from their descriptions (our reading; see the chapter):

* **TAC** (Yao et al., ECCV 2024): *noise estimation reconstruction* (NER), a channel-wise factor per step
  :math:`k_n[c]` with :math:`\tilde\varepsilon=k_n\odot\hat\varepsilon`, the closed-form least squares of the FP
  output on the quantised one over the elements whose relative distortion :math:`|\hat\varepsilon-\varepsilon|/
  |\varepsilon|` is below its ``mask_quantile`` (the masked loss), and *input bias correction* (IBC), a per-step,
  per-channel mean deviation :math:`\beta_n[c]` of the quantised state from the FP one, measured on the
  calibration seeds with NER and the earlier corrections applied and subtracted from the step's input state
  :math:`\hat x_n` (the state itself: removing it from the network's input alone switches off the network's
  own damping of the carried error, and the bias then grows as :math:`\prod a_j`; we tried it).
  Without the mask, NER is TCEC's per-step term: :math:`k_n=1-K_n`.
* **QNCD** (Chu et al., ACM MM 2024), its run-time noise estimation for the *inter*-step noise (the public
  code's sampler): every ``interval`` steps the state just produced is diffused back to the previous level
  with fresh known noise :math:`e`, the quantised model predicts it, and the mean of
  :math:`\hat\varepsilon-e` over the batch is subtracted from the following outputs. No calibration. Its
  *intra*-step part (embedding-derived smoothing of the activations) is a quantiser change and is not
  reimplemented (SVDQuant-lite's smoothing plays that role here).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from .propagation import Record, _t, sample

__all__ = ["fit_K", "fit_R", "closed_loop_weights", "fit_ptqd", "TCEC", "tcec_sample", "oracle_sample", "ptqd_sample", "check_window",
           "check_lambda", "fit_tac_ner", "calibrate_tac_ibc", "tac_sample", "qncd_estimate", "qncd_sample"]


def check_window(m) -> int | None:
    if m is None:
        return None
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
        raise ValueError(f"m={m!r} is not allowed; it must be an integer >= 0, or None for the full sum")
    return int(m)


def check_lambda(lam) -> float:
    if not isinstance(lam, (int, float, np.floating)) or isinstance(lam, bool) or not math.isfinite(lam) or lam < 0:
        raise ValueError(f"lambda1={lam!r} is not allowed; it must be a finite number >= 0")
    return float(lam)


def _channel_view(x: torch.Tensor) -> torch.Tensor:
    """(S, B, C, ...) → (S, C, B·positions)."""
    S, B, C = x.shape[:3]
    return x.reshape(S, B, C, -1).permute(0, 2, 1, 3).reshape(S, C, -1)


def fit_K(rec: Record, on: str = "quantised") -> torch.Tensor:
    """Closed-form least-squares K (S, C): δ_n[c] ≈ K_n[c]·ε̂_n[c] over seeds and positions."""
    d = rec.delta(on)
    eh = rec.eps_q if on == "quantised" else rec.eps_q_on_fp
    B, C = d.shape[1], d.shape[2]
    if B < C:
        raise ValueError(f"the calibration set has {B} seeds, fewer than the {C} channels; use at least {C}")
    dv, ev = _channel_view(d.double()), _channel_view(eh.double())
    return ((dv * ev).sum(2) / ev.pow(2).sum(2).clamp_min(1e-30)).float()


def fit_ptqd(rec: Record) -> torch.Tensor:
    """PTQD-style k_n (S,): one least-squares slope of δ on the FP output per step (on the FP trajectory)."""
    d = rec.delta("fp").reshape(rec.eps_fp.shape[0], -1).double()
    e = rec.eps_fp.reshape(rec.eps_fp.shape[0], -1).double()
    return ((d * e).sum(1) / e.pow(2).sum(1).clamp_min(1e-30)).float()


def _broadcast(k: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return k.view(1, -1, *([1] * (like.dim() - 2)))


def closed_loop_weights(a: np.ndarray, b: np.ndarray, lambda1: float, c: np.ndarray | None = None,
                        d: np.ndarray | None = None) -> np.ndarray:
    r"""``P[n, i]`` (S, S): the share of a unit residual :math:`\hat r_i` (``i < n``) in :math:`p_n`, the state error
    that step ``n`` would carry into :math:`e_{n+1}` before its own output error, under J = 0 and with the carried
    term of weight λ₁ applied at every step in between (the compensated sampler's own error recursion).

    The recursion: :math:`p_n=a_n\hat e_n+c_n\hat e_{n-1}+d_n\hat\rho_{n-1}`, carried term :math:`\lambda_1p_n/b_n`,
    output error left :math:`\hat\rho_n=\hat r_n-\lambda_1p_n/b_n`, :math:`\hat e_{n+1}=p_n+b_n\hat\rho_n`. One-step
    solvers: :math:`P[n,i]=a_n\prod_{j=i+1}^{n-1}(1-\lambda_1)a_j\,b_i`; at λ₁ = 0 it is the open-loop
    ``propagation_weights(a, b)[n + 1, i]``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    S = len(a)
    two = c is not None and (np.any(c) or np.any(d))
    P = np.zeros((S, S))
    for i in range(S):
        e = np.zeros(S + 1)
        rho = np.zeros(S)
        for n in range(i + 1, S + 1):
            if n == i + 1:                                   # the unit residual enters at step i
                e[n] = b[i]
                rho[i] = 1.0
                continue
            k = n - 1                                        # step k maps e_k → e_{k+1}
            p = a[k] * e[k] + ((c[k] * e[k - 1] + d[k] * rho[k - 1]) if two and k > 0 else 0.0)
            P[k, i] = p
            rho[k] = -lambda1 * p / b[k]
            e[n] = p + b[k] * rho[k]
    return P


class TCEC:
    r"""The correction hook for :func:`icmlbook.papers.diffusion_ptq_compensation.propagation.sample`.

    Per step: :math:`\tilde\varepsilon_n=\hat\varepsilon_n-K_n\odot\hat\varepsilon_n-\frac{\lambda_1}{b_n}
    \sum_{i=n-m}^{n-1}P_{n,i}\,R_i\odot\hat\varepsilon_i` (``P`` from :func:`closed_loop_weights`): the carried
    term removes the error the earlier steps' corrections *left* in the state, estimated from their residual slopes
    ``R`` (:func:`fit_R`), not their estimates :math:`K_i\hat\varepsilon_i`, which those steps already subtracted.
    ``R`` is needed when λ₁ > 0 and m ≠ 0."""

    def __init__(self, K: torch.Tensor, a: np.ndarray, b: np.ndarray, m: int | None = 1, lambda1: float = 0.0,
                 c: np.ndarray | None = None, d: np.ndarray | None = None, R: torch.Tensor | None = None):
        self.K, self.a, self.b = K, np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        self.m, self.lambda1 = check_window(m), check_lambda(lambda1)
        if K.shape[0] != len(a):
            raise ValueError(f"K has {K.shape[0]} steps but the sampler has {len(a)}")
        self.carry = self.lambda1 > 0 and self.m != 0
        if self.carry and R is None:
            raise ValueError("the carried term (lambda1 > 0, m != 0) needs the residual slopes R (fit_R)")
        if R is not None and R.shape != K.shape:
            raise ValueError(f"R has shape {tuple(R.shape)}, K {tuple(K.shape)}: they must match")
        self.R = R
        self.history: list[torch.Tensor] = []
        self.P = closed_loop_weights(self.a, self.b, self.lambda1, c, d)

        # the one-window rule in two fused ops per step: ε(1 − K_n) − c_n ⊙ ε_{n−1}, with
        # c_n = λ₁ P[n, n−1] R_{n−1} / b_n precomputed (m = 0 or λ₁ = 0: c = 0); for one-step solvers
        # P[n, n−1] / b_n = (a_n / b_n) b_{n−1}
        self.keep = 1 - K
        self.coef = torch.zeros_like(K)
        if self.carry:
            S = len(self.a)
            ratio = torch.tensor([self.P[n, n - 1] / self.b[n] for n in range(1, S)], dtype=K.dtype, device=K.device)
            self.coef[1:] = self.lambda1 * ratio[:, None] * R[:-1]
        self.prev: torch.Tensor | None = None

    def __call__(self, n: int, eps: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        if self.m is not None and self.m <= 1 or not self.carry:
            if n == 0:
                self.prev = None
            out = eps * _broadcast(self.keep[n], eps)
            if self.prev is not None and self.carry:
                out = out.addcmul_(_broadcast(self.coef[n], eps), self.prev, value=-1)
            self.prev = eps
            return out
        if n == 0:
            self.history = []
        out = eps - _broadcast(self.K[n], eps) * eps
        if self.history:
            lo = 0 if self.m is None else max(0, n - self.m)
            p = torch.zeros_like(eps)                          # the error carried into e_{n+1}, from the window
            for i in range(lo, n):
                p = p + float(self.P[n, i]) * self.history[i]
            out = out - (self.lambda1 / float(self.b[n])) * p
        self.history.append(_broadcast(self.R[n], eps) * eps)  # r̂_n: what this step's correction leaves
        return out


def tcec_sample(q: Callable, xT: torch.Tensor, timesteps, a, b, K: torch.Tensor, m: int | None = 1,
                lambda1: float = 0.0, c=None, d=None, R: torch.Tensor | None = None, keep: bool = False) -> torch.Tensor:
    """The quantised sampler with TCEC (every state, (S+1, ...), with ``keep``)."""
    return sample(q, xT, timesteps, a, b, correction=TCEC(K, a, b, m, lambda1, c, d, R), c=c, d=d, keep=keep)


@torch.no_grad()
def fit_R(q: Callable, fp: Callable, xc: torch.Tensor, timesteps, a, b, K: torch.Tensor, c=None, d=None) -> torch.Tensor:
    """Residual slopes R (S, C): per step and channel, the least-squares slope on ε̂_n of what the per-step term
    leaves, r_n = δ_n − K_n ⊙ ε̂_n, measured on the calibration seeds ``xc`` sampled *with* the per-step correction
    (m = 0), FP re-evaluated at the states visited. The carried term propagates R_n ⊙ ε̂_n."""
    eh, res = [], []

    def corr(n, eps, x):
        delta = eps - fp(x, _t(x.shape[0], timesteps[n], x.device))
        kn = _broadcast(K[n], eps)
        eh.append(eps)
        res.append(delta - kn * eps)
        return eps - kn * eps
    sample(q, xc, timesteps, a, b, correction=corr, c=c, d=d)
    B, C = xc.shape[0], xc.shape[1]
    if B < C:
        raise ValueError(f"the calibration set has {B} seeds, fewer than the {C} channels; use at least {C}")
    ev, rv = _channel_view(torch.stack(eh).double()), _channel_view(torch.stack(res).double())
    return ((rv * ev).sum(2) / ev.pow(2).sum(2).clamp_min(1e-30)).to(K.dtype)


def oracle_sample(q: Callable, fp: Callable, xT: torch.Tensor, timesteps, a, b, x_fp: torch.Tensor | None = None,
                  c=None, d=None):
    """The per-step oracle: subtract the true δ (FP re-evaluated at the visited state). With ``x_fp`` (the FP
    trajectory; one-step solvers only) it also cancels the carried error exactly (C_n = δ_n + (a_n/b_n) e_n),
    so e stays 0."""
    if x_fp is not None and c is not None and (np.any(c) or np.any(d)):
        raise ValueError("the exact oracle (x_fp=...) is derived for one-step solvers; pass c=d=None or x_fp=None")

    def corr(n, eps, x):
        tt = _t(x.shape[0], timesteps[n], x.device)
        out = eps - (eps - fp(x, tt))
        if x_fp is not None:
            out = out - float(a[n] / b[n]) * (x - x_fp[n]) - (fp(x, tt) - fp(x_fp[n], tt))
        return out
    return sample(q, xT, timesteps, a, b, correction=corr, c=c, d=d)


def ptqd_sample(q: Callable, xT: torch.Tensor, timesteps, a, b, k: torch.Tensor, c=None, d=None) -> torch.Tensor:
    return sample(q, xT, timesteps, a, b, correction=lambda n, eps, x: eps / (1 + float(k[n])), c=c, d=d)


# -- TAC (Yao et al. 2024), as described ------------------------------------------------------------------
def fit_tac_ner(rec: Record, on: str = "quantised", mask_quantile: float = 0.9) -> torch.Tensor:
    """NER factors k (S, C): per step and channel, the least-squares slope of the FP output on the quantised one
    over the elements whose relative distortion |ε̂ − ε|/|ε| is at most its ``mask_quantile`` (1: no mask)."""
    if not 0 < mask_quantile <= 1:
        raise ValueError(f"mask_quantile={mask_quantile!r} is not allowed; it must be in (0, 1]")
    eh = rec.eps_q if on == "quantised" else rec.eps_q_on_fp
    ef = rec.eps_fp_on_q if on == "quantised" else rec.eps_fp
    B, C = eh.shape[1], eh.shape[2]
    if B < C:
        raise ValueError(f"the calibration set has {B} seeds, fewer than the {C} channels; use at least {C}")
    ev, fv = _channel_view(eh.double()), _channel_view(ef.double())
    if mask_quantile < 1:
        rel = (ev - fv).abs() / fv.abs().clamp_min(1e-12)
        thr = torch.quantile(rel, mask_quantile, dim=2, keepdim=True)
        w = (rel <= thr).double()
    else:
        w = torch.ones_like(ev)
    return ((w * ev * fv).sum(2) / (w * ev.pow(2)).sum(2).clamp_min(1e-30)).float()


@torch.no_grad()
def calibrate_tac_ibc(q: Callable, xc: torch.Tensor, x_fp: torch.Tensor, timesteps, a, b, k: torch.Tensor,
                      c=None, d=None) -> torch.Tensor:
    """IBC biases β (S, C), fitted in one sequential pass over the calibration seeds: at step n, β_n is the mean
    (over seeds and positions) of x̂_n − x_n on the trajectory already corrected by NER and β_0..β_{n−1}; the
    state is then x̂_n − β_n. ``x_fp``: the FP states of the calibration seeds, (S+1, B, ...)."""
    betas = []
    x = xc
    x_prev = e_prev = None
    for n, t in enumerate(timesteps):
        dev = x - x_fp[n]
        beta = dev.transpose(0, 1).reshape(dev.shape[1], -1).mean(1) if dev.dim() > 2 else dev.mean(0)
        betas.append(beta)
        x = x - _broadcast(beta, x)
        eps = q(x, _t(x.shape[0], t, x.device)) * _broadcast(k[n], x)
        new = float(a[n]) * x + float(b[n]) * eps
        if c is not None and n > 0 and (c[n] or d[n]):
            new = new + float(c[n]) * x_prev + float(d[n]) * e_prev
        x_prev, e_prev, x = x, eps, new
    return torch.stack(betas)


def tac_sample(q: Callable, xT: torch.Tensor, timesteps, a, b, k: torch.Tensor, beta: torch.Tensor | None = None,
               c=None, d=None, keep: bool = False) -> torch.Tensor:
    """The quantised sampler with TAC: NER on the output, IBC (``beta``) on the step's input state. With ``keep``,
    the states are those before the IBC shift."""
    shift = None if beta is None else (lambda n, x: x - _broadcast(beta[n], x))
    return sample(q, xT, timesteps, a, b, correction=lambda n, eps, x: eps * _broadcast(k[n], eps), c=c, d=d,
                  shift_state=shift, keep=keep)


# -- QNCD's run-time noise estimation (Chu et al. 2024), as in its public sampler ----------------------------
@torch.no_grad()
def qncd_estimate(q: Callable, x: torch.Tensor, t_from, t_back, abar: np.ndarray, g: torch.Generator) -> float:
    """QNCD's run-time estimate from a state ``x`` at level ``t_from``: diffuse it back to the noisier ``t_back``
    with known noise e and return mean(ε̂(x', t_back) − e) over everything. When x follows the forward marginal
    at ``t_from`` and the FP model is unbiased, this is the mean offset of the quantised output."""
    f = float(abar[int(t_back)] / abar[int(t_from)])
    e = torch.randn(x.shape, generator=g).to(x.device, x.dtype)
    xr = np.sqrt(f) * x + np.sqrt(1 - f) * e
    return (q(xr, _t(x.shape[0], t_back, x.device)) - e).mean().item()


@torch.no_grad()
def qncd_sample(q: Callable, xT: torch.Tensor, timesteps, a, b, abar: np.ndarray, interval: int = 10, seed: int = 0,
                c=None, d=None, return_estimates: bool = False):
    """QNCD's run-time correction, with the cadence of its public sampler: at the "reverse" steps
    n ≡ interval // 2 + 1 (mod interval) the output is left uncorrected; after the step, the new state is
    diffused back to t_n with known noise (:func:`qncd_estimate`) and the estimate μ is subtracted from every
    following output until the next reverse step (one extra network call per estimate). ``abar``: ᾱ indexed by
    the training timestep (DDPM-schedule solvers only)."""
    if isinstance(interval, bool) or not isinstance(interval, (int, np.integer)) or interval < 1:
        raise ValueError(f"interval={interval!r} is not allowed; it must be an integer >= 1")
    g = torch.Generator().manual_seed(seed)
    ab = np.asarray(abar, dtype=np.float64)
    mu = 0.0
    estimates = []
    x, x_prev, e_prev = xT, None, None
    for n, t in enumerate(timesteps):
        reverse = n % interval == (interval // 2 + 1) % interval and n + 1 < len(timesteps)
        eps = q(x, _t(x.shape[0], t, x.device)) - (0.0 if reverse else mu)
        new = float(a[n]) * x + float(b[n]) * eps
        if c is not None and n > 0 and (c[n] or d[n]):
            new = new + float(c[n]) * x_prev + float(d[n]) * e_prev
        x_prev, e_prev, x = x, eps, new
        if reverse:                                   # x is at level t_{n+1}; diffuse it back to t_n
            mu = qncd_estimate(q, x, timesteps[n + 1], t, ab, g)
            estimates.append((n, mu))
    return (x, estimates) if return_estimates else x
