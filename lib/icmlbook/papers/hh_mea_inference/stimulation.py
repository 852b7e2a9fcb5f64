"""Stimulation experiments: patterns, simulated trials, the linear-summation baseline, and the metrics.

A *condition* is (cell, pattern, amplitude). The "measured" response of a synthetic cell is the majority of
``n_trials`` Bernoulli trials at its true spike probability Φ(ln(A/T)/σ) (T its true threshold for the
pattern). A model predicts P(spike) from its own threshold(s): for a set of posterior samples, the average
of Φ(ln(A/T_s)/σ) over the samples (the posterior predictive). Accuracy is the fraction of conditions where
"predicted P > 0.5" agrees with the measured majority (our reading of the paper's "accuracy": its definition
was not reached).

The **linear-summation** baseline is what single-electrode testing gives (dossier §7): thresholds T_e^± of
each electrode and polarity, read from measured single-electrode amplitude series, combined linearly with their
signs: the drive of each polarity is linear in the signed currents, D⁺ = Σ_e c_e / T_e⁺ (cathodic currents drive it,
anodic ones subtract) and D⁻ = Σ_e (−c_e) / T_e⁻, and D(A) = A max(D⁺, D⁻), P = Φ(ln D / σ). On one electrode it
gives back both measured thresholds; on a mixed-polarity pattern opposite currents cancel. (Changed under the
contract's second edition, after an audit: the baseline was D = A Σ_e |c_e| / T_e^{sign c_e}, which adds every
current whatever its polarity and so can never cancel: a straw man on exactly the mixed patterns of claim 5.)
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .model import response_probability

__all__ = ["draw_patterns", "single_patterns", "simulate_trials", "fit_single_thresholds", "linear_summation_prob", "linear_drive",
           "posterior_predictive", "accuracy", "ei_centroid", "is_mixed"]


def ei_centroid(ei, electrodes) -> np.ndarray:
    """(x, y) estimate of a cell from its EI: electrode positions weighted by trough², over the electrodes whose
    trough exceeds 30 % of the largest."""
    trough = np.maximum(-np.asarray(ei).min(-1), 0.0)
    w = np.where(trough >= 0.3 * trough.max(), trough ** 2, 0.0)
    return (w[:, None] * electrodes).sum(0) / w.sum()


def draw_patterns(stim_electrodes, n_patterns: int, n_electrodes: int, rng: np.random.Generator):
    """``n_patterns`` multi-electrode patterns on 2–3 of ``stim_electrodes``: weights with magnitudes in
    [0.5, 1] and polarities, half of the patterns with mixed polarities. Returns (weights (n, n_e), mixed (n,))."""
    W = np.zeros((n_patterns, n_electrodes))
    mixed = np.zeros(n_patterns, bool)
    for k in range(n_patterns):
        size = int(rng.integers(2, 4))
        els = rng.choice(stim_electrodes, size=size, replace=False)
        mag = rng.uniform(0.5, 1.0, size)
        mag /= mag.max()
        if k % 2:                                   # mixed polarity
            signs = np.ones(size)
            signs[rng.choice(size, size=int(rng.integers(1, size)), replace=False)] = -1.0
            mixed[k] = True
        else:
            signs = np.full(size, 1.0 if rng.random() < 0.5 else -1.0)
        W[k, els] = signs * mag
    return W, mixed


def is_mixed(W) -> np.ndarray:
    W = np.asarray(W)
    return (W > 0).any(-1) & (W < 0).any(-1)


def single_patterns(stim_electrodes, n_electrodes: int) -> np.ndarray:
    """Each stimulation electrode alone, cathodic (+1) then anodic (-1): (2 n, n_e)."""
    out = []
    for s in (1.0, -1.0):
        for e in stim_electrodes:
            w = np.zeros(n_electrodes)
            w[e] = s
            out.append(w)
    return np.array(out)


def simulate_trials(true_threshold, amplitudes, sigma: float, n_trials: int, rng: np.random.Generator):
    """Spike counts (…, n_amp) out of ``n_trials`` at each amplitude, for true thresholds (…)."""
    if not (isinstance(sigma, (int, float, np.floating)) and np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma={sigma!r} is not allowed; sigma (the probit slope's log-width) must be a finite number > 0")
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 1:
        raise ValueError(f"n_trials={n_trials!r} is not allowed; n_trials must be an integer >= 1")
    p = response_probability(np.asarray(amplitudes)[None, :], np.asarray(true_threshold).reshape(-1, 1), sigma)
    return rng.binomial(n_trials, p).reshape(np.shape(true_threshold) + (len(amplitudes),))


def fit_single_thresholds(counts, amplitudes, n_trials: int, sigma: float) -> np.ndarray:
    """Threshold per amplitude series from measured counts: the maximum-likelihood T of the probit model
    P = Φ(ln(A/T)/σ) over a fine log grid (+inf when no trial spiked at any amplitude)."""
    counts = np.asarray(counts)
    amps = np.asarray(amplitudes, float)
    grid = np.exp(np.linspace(np.log(amps[0]) - 0.5, np.log(amps[-1]) + 0.5, 400))
    p = stats.norm.cdf(np.log(amps[None, :] / grid[:, None]) / sigma).clip(1e-9, 1 - 1e-9)   # (grid, amp)
    flat = counts.reshape(-1, len(amps))
    ll = flat @ np.log(p).T + (n_trials - flat) @ np.log1p(-p).T                          # (n, grid)
    best = grid[ll.argmax(1)]
    best = np.where(flat.sum(1) == 0, np.inf, best)
    return best.reshape(counts.shape[:-1])


def linear_drive(W, t_pos, t_neg) -> np.ndarray:
    """The signed linear drive per unit amplitude of patterns W (n_patterns, n_e): max(Σ c / T⁺, Σ −c / T⁻) with
    1/inf = 0 (an electrode that never evoked a spike in that polarity contributes nothing to that polarity's sum)."""
    W = np.asarray(W, float)
    inv_p = np.where(np.isfinite(t_pos), 1.0 / np.asarray(t_pos, float), 0.0)
    inv_n = np.where(np.isfinite(t_neg), 1.0 / np.asarray(t_neg, float), 0.0)
    return np.maximum(W @ inv_p, -W @ inv_n)


def linear_summation_prob(W, t_pos, t_neg, amplitudes, sigma: float) -> np.ndarray:
    """P(spike) (n_patterns, n_amp) of the linear-summation model for patterns W (n_patterns, n_e) given
    single-electrode thresholds t_pos, t_neg (n_e,) (inf where an electrode never evoked a spike)."""
    d = linear_drive(W, t_pos, t_neg)[:, None] * np.asarray(amplitudes)[None, :]
    with np.errstate(divide="ignore"):
        return np.where(d > 0, stats.norm.cdf(np.log(np.maximum(d, 1e-300)) / sigma), 0.0)


def posterior_predictive(thresholds, amplitudes, sigma: float) -> np.ndarray:
    """P(spike) (…, n_amp) averaged over the last axis of ``thresholds`` (…, n_samples)."""
    t = np.asarray(thresholds)
    p = response_probability(np.asarray(amplitudes)[None, :], t.reshape(-1, 1), sigma)
    return p.reshape(t.shape + (len(amplitudes),)).mean(-2)


def accuracy(pred_prob, counts, n_trials: int) -> np.ndarray:
    """Per leading index, the fraction of conditions where (P > 0.5) equals the measured majority."""
    measured = np.asarray(counts) * 2 > n_trials
    agree = (np.asarray(pred_prob) > 0.5) == measured
    return agree.reshape(agree.shape[0], -1).mean(1)
