r"""Self-normalised importance sampling (SNIS) for Boltzmann generators (dossier §3.4).

With proposals :math:`x_i\sim q` and the reduced energy :math:`u` (target :math:`\mu\propto e^{-u}`), the
log-weights are :math:`\ell_i=-u(x_i)-\log q(x_i)`; the normalised weights are :math:`\bar w=\mathrm{softmax}(\ell)`,
the SNIS estimate of :math:`\mathbb E_\mu f` is :math:`\sum_i\bar w_i f(x_i)`, and Kish's effective sample
size is :math:`(\sum w)^2/\sum w^2=\exp(2\,\mathrm{LSE}(\ell)-\mathrm{LSE}(2\ell))`, reported divided by M.

A proposal whose energy is not finite (a clash) gets weight zero and is counted. Optional clipping drops the
largest ``clip`` fraction of log-weights (the reference code drops the top 0.2 %): a biased variance reduction,
so results are reported with and without it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import logsumexp

__all__ = ["Weights", "log_weights", "kish_ess", "snis_mean", "resample", "ew2_bootstrap"]


@dataclasses.dataclass
class Weights:
    """Log-weights (M,) (-inf for dropped proposals), the number of non-finite energies and of clipped ones."""

    log_w: np.ndarray
    n_nonfinite: int
    n_clipped: int

    @property
    def normalised(self) -> np.ndarray:
        lw = self.log_w
        if not np.isfinite(lw).any():
            return np.zeros_like(lw)
        return np.exp(lw - logsumexp(lw))

    @property
    def ess(self) -> float:
        """Kish ESS / M."""
        return kish_ess(self.log_w) / len(self.log_w)


def log_weights(energy: np.ndarray, log_q: np.ndarray, clip: float = 0.0) -> Weights:
    """``energy`` (M,) reduced energies (kT; NaN or inf allowed), ``log_q`` (M,) proposal log-densities;
    ``clip`` in [0, 0.5): the fraction of the largest log-weights to drop."""
    e = np.asarray(energy, dtype=np.float64)
    lq = np.asarray(log_q, dtype=np.float64)
    if e.shape != lq.shape or e.ndim != 1:
        raise ValueError(f"energy and log_q must be equal-length vectors; got {e.shape} and {lq.shape}")
    if not 0.0 <= clip < 0.5:
        raise ValueError(f"clip={clip!r} is not allowed; it must be a fraction in [0, 0.5)")
    lw = -e - lq
    bad = ~np.isfinite(lw)
    lw[bad] = -np.inf
    n_clipped = 0
    if clip > 0 and (~bad).sum() > 1:
        thr = np.quantile(lw[~bad], 1.0 - clip)
        over = lw > thr
        n_clipped = int(over.sum())
        lw[over] = -np.inf
    return Weights(lw, int(bad.sum()), n_clipped)


def kish_ess(log_w: np.ndarray) -> float:
    r""":math:`(\sum_i w_i)^2/\sum_i w_i^2` from log-weights (entries of -inf count as zero weight)."""
    lw = np.asarray(log_w, dtype=np.float64)
    if not np.isfinite(lw).any():
        return 0.0
    return float(np.exp(2 * logsumexp(lw) - logsumexp(2 * lw)))


def snis_mean(values: np.ndarray, log_w: np.ndarray) -> np.ndarray:
    """SNIS estimate of E_mu[f] for f's values (M,) or (M, k)."""
    v = np.asarray(values, dtype=np.float64)
    w = Weights(np.asarray(log_w, dtype=np.float64), 0, 0).normalised
    return np.tensordot(w, v, axes=(0, 0))


def resample(log_w: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices drawn with replacement with probabilities softmax(log_w) (multinomial resampling)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n={n!r} is not allowed; n must be an integer >= 0 (the number of indices to draw)")
    w = Weights(np.asarray(log_w, dtype=np.float64), 0, 0).normalised
    if w.sum() <= 0:
        raise ValueError("every weight is zero (no proposal has a finite energy): nothing to resample")
    return rng.choice(len(w), size=n, replace=True, p=w / w.sum())


def ew2_bootstrap(energies: np.ndarray, log_w: np.ndarray, ref_e: np.ndarray, *, n_eval: int, n_boot: int,
                  seed: int) -> np.ndarray:
    """Bootstrap replicates (n_boot,) of E-W2 (kT) after SNIS resampling, for an interval on one proposal set.

    Each replicate resamples the M proposals (``energies`` (M,), ``log_w`` (M,)) with replacement, then, as the point
    estimate does, draws ``n_eval`` of them by weight and takes E-W2 against the fixed reference energies ``ref_e``.
    A replicate where no resampled proposal keeps a finite weight is NaN (the caller counts it)."""
    from .metrics import energy_w2
    if n_boot < 2:
        raise ValueError(f"n_boot={n_boot!r} is not allowed; it must be >= 2")
    u = np.asarray(energies, dtype=np.float64)
    lw = np.asarray(log_w, dtype=np.float64)
    if u.shape != lw.shape or u.ndim != 1:
        raise ValueError(f"energies and log_w must be equal-length vectors; got {u.shape} and {lw.shape}")
    rng = np.random.default_rng(seed)
    out = np.full(n_boot, np.nan)
    for b in range(n_boot):
        pick = rng.integers(0, len(u), len(u))
        if not np.isfinite(lw[pick]).any():
            continue
        out[b] = energy_w2(u[pick[resample(lw[pick], n_eval, rng)]], ref_e)
    return out
