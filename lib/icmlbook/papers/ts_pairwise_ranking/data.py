r"""Series and simulated pairwise comparisons for the ``ts_pairwise_ranking`` chapter.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026. The paper's expert
comparisons are not available offline, so every comparison here is **simulated** from a latent score
(dossier section 3.1 and 8): the learner only ever sees the comparisons.

* :func:`warped_family` — a synthetic family with a known truth: an "ideal" pattern :math:`U^*`
  (Gaussian bumps), a "normal" pattern, items :math:`X_i(t)=(1-s_i)B(w_i(t))+s_iU^*(w_i(t))+\sigma\varepsilon`
  with severity :math:`s_i\in[0,1]` and a random monotone time warp/shift :math:`w_i`. The latent
  score is :math:`s_i` (closer to the ideal shape = preferred).
* :func:`load_aeon_series` — real series shipped inside aeon's wheel (GunPoint, ...), z-normalised
  and resampled.
* :func:`ecg_family` — ECG-like recordings simulated with neurokit2's ECGSYN model (McSharry et al.
  2003) at random heart rates, start phases and noise levels; the latent score is the heart rate
  (a "tachycardia severity"), known exactly because we chose it.
* :func:`simulate_comparisons` — pairs drawn uniformly, label :math:`y\sim\text{Bernoulli}(\sigma(\beta(s_i-s_j)))`,
  then flipped with probability ``flip`` per annotator; :func:`majority_vote` aggregates repeats.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import expit

__all__ = ["SeriesSet", "warped_family", "ideal_pattern", "normal_pattern", "random_pairs", "resample", "znormalise",
           "downsample", "load_aeon_series", "ecg_family", "ECG_HEART_RATES", "Comparisons",
           "simulate_comparisons", "simulate_from_scores", "majority_vote", "borda_scores", "IrregularSet",
           "irregular_family", "pointwise_labels", "PointLabels"]


@dataclasses.dataclass
class SeriesSet:
    """A set of series with their latent scores (higher = preferred) and, for synthetic data, the ideal.

    Attributes
    ----------
    X : ndarray ``(N, T)``
    score : ndarray ``(N,)``
    ideal : ndarray ``(T,)`` or None
    name : str
    """

    X: np.ndarray
    score: np.ndarray
    ideal: np.ndarray | None
    name: str

    def subset(self, idx) -> "SeriesSet":
        return SeriesSet(self.X[idx], self.score[idx], self.ideal, self.name)


def _bumps(t: np.ndarray, centres, widths, heights) -> np.ndarray:
    out = np.zeros_like(t)
    for c, w, h in zip(centres, widths, heights):
        out = out + h * np.exp(-0.5 * ((t - c) / w) ** 2)
    return out


def ideal_pattern(t: np.ndarray) -> np.ndarray:
    """The planted ideal :math:`U^*(t)` on ``t`` in [0, 1]: a tall narrow peak followed by a dip."""
    return _bumps(t, (0.4, 0.62), (0.05, 0.07), (2.0, -1.2))


def normal_pattern(t: np.ndarray) -> np.ndarray:
    """The 'normal' pattern :math:`B(t)`: one broad low bump."""
    return _bumps(t, (0.5,), (0.12,), (0.8,))


def warped_family(n: int, length: int, rng: np.random.Generator, noise: float = 0.1, warp: float = 0.3,
                  shift: float = 0.1) -> SeriesSet:
    """Draw ``n`` items of the synthetic warped family (see the module docstring).

    The warp is :math:`w(t)=t^{e^{c}}+\\delta` with :math:`c\\sim\\mathcal N(0,\\text{warp}^2)` and
    :math:`\\delta\\sim\\mathcal U(-\\text{shift},\\text{shift})`; severities :math:`s_i\\sim\\mathcal U(0,1)`.
    Returns a :class:`SeriesSet` with ``X`` ``(n, length)``, ``score = s`` and the ideal sampled on
    the unwarped grid.
    """
    if n < 1 or length < 2:
        raise ValueError(f"n={n!r} and length={length!r} must be >= 1 and >= 2")
    t = np.linspace(0.0, 1.0, length)
    s = rng.uniform(0.0, 1.0, n)
    c = rng.normal(0.0, warp, n) if warp > 0 else np.zeros(n)
    d = rng.uniform(-shift, shift, n) if shift > 0 else np.zeros(n)
    tw = t[None, :] ** np.exp(c)[:, None] + d[:, None]                    # (n, T)
    X = (1 - s[:, None]) * normal_pattern(tw) + s[:, None] * ideal_pattern(tw)
    X = X + noise * rng.normal(size=X.shape)
    return SeriesSet(X, s, ideal_pattern(t), "warped family")


@dataclasses.dataclass
class IrregularSet:
    """Series of unequal lengths sampled at irregular times: ``X[k]`` ``(T_k,)`` observed at ``stamps[k]``
    ``(T_k,)`` (increasing, in units of the regular grid ``1..length``), latent ``score`` ``(N,)``."""

    X: list
    stamps: list
    score: np.ndarray
    ideal: np.ndarray
    name: str

    def subset(self, idx) -> "IrregularSet":
        idx = np.asarray(idx)
        return IrregularSet([self.X[k] for k in idx], [self.stamps[k] for k in idx], self.score[idx], self.ideal,
                            self.name)


def irregular_family(n: int, length: int, rng: np.random.Generator, noise: float = 0.1, warp: float = 0.3,
                     shift: float = 0.1, keep: tuple = (0.5, 1.0), n_lengths: int = 3) -> IrregularSet:
    """The warped family of :func:`warped_family` observed at irregular times: item ``k`` keeps a random
    subset of its ``length`` regular samples (a fraction drawn from ``keep``, rounded to one of ``n_lengths``
    lengths, so that the items have unequal lengths) and is observed at those times, jittered by up to a
    third of a grid step. The stamps are the (jittered) grid positions in ``1..length``: an item's samples
    are unevenly spaced and ``x_k[m]`` is not at the time ``m`` of the grid."""
    if not 0 < keep[0] <= keep[1] <= 1:
        raise ValueError(f"keep={keep!r} must be (low, high) with 0 < low <= high <= 1")
    if n_lengths < 1:
        raise ValueError(f"n_lengths={n_lengths!r} must be >= 1")
    lengths = np.unique(np.round(np.linspace(keep[0], keep[1], n_lengths) * length).astype(int).clip(2, length))
    s = rng.uniform(0.0, 1.0, n)
    c = rng.normal(0.0, warp, n) if warp > 0 else np.zeros(n)
    d = rng.uniform(-shift, shift, n) if shift > 0 else np.zeros(n)
    L = rng.choice(lengths, n)
    X, stamps = [], []
    for k in range(n):
        grid = np.sort(rng.choice(length, L[k], replace=False)).astype(float)           # 0..length-1
        jitter = rng.uniform(-1 / 3, 1 / 3, L[k])
        pos = np.clip(grid + jitter, 0.0, length - 1.0)
        pos = np.maximum.accumulate(pos)
        t = pos / (length - 1)                                                         # in [0, 1]
        tw = t ** np.exp(c[k]) + d[k]
        X.append((1 - s[k]) * normal_pattern(tw) + s[k] * ideal_pattern(tw) + noise * rng.normal(size=L[k]))
        stamps.append(pos + 1.0)
    return IrregularSet(X, stamps, s, ideal_pattern(np.linspace(0.0, 1.0, length)), "irregularly sampled family")


def resample(X: np.ndarray, length: int) -> np.ndarray:
    """Linear interpolation of each row of ``X`` ``(N, T)`` onto ``length`` equally spaced points."""
    X = np.asarray(X, float)
    src = np.linspace(0.0, 1.0, X.shape[1])
    dst = np.linspace(0.0, 1.0, length)
    return np.stack([np.interp(dst, src, row) for row in X])


def znormalise(X: np.ndarray) -> np.ndarray:
    """Each row to zero mean and unit standard deviation (constant rows are only centred)."""
    X = np.asarray(X, float)
    sd = X.std(1, keepdims=True)
    return (X - X.mean(1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


def downsample(X: np.ndarray, length: int) -> np.ndarray:
    """Rows of ``X`` ``(N, T)`` onto ``length`` points: a moving average over ``ceil(T / length)`` samples
    (so that narrow peaks are not missed between grid points), then linear interpolation."""
    from scipy.ndimage import uniform_filter1d
    X = np.asarray(X, float)
    width = int(np.ceil(X.shape[1] / length))
    if width > 1:
        X = uniform_filter1d(X, width, axis=1, mode="nearest")
    return resample(X, length)


ECG_HEART_RATES = (55.0, 125.0)


def ecg_family(n: int, length: int, rng: np.random.Generator, seconds: float = 2.5,
               heart_rates: tuple[float, float] = ECG_HEART_RATES, max_noise: float = 0.1,
               sampling_rate: int = 128) -> SeriesSet:
    r"""``n`` ECG-like recordings simulated with ``neurokit2.ecg_simulate`` (ECGSYN, McSharry et al. 2003).

    Item ``i`` has a heart rate :math:`h_i\sim\mathcal U(\text{heart\_rates})` (beat-to-beat standard
    deviation 1 bpm), a random start within the first second (so the beats fall at different phases) and
    measurement noise of amplitude :math:`\mathcal U(0,\text{max\_noise})`; ``seconds`` of signal are kept,
    z-normalised and brought to ``length`` points with :func:`downsample`. The latent score is the
    normalised heart rate :math:`s_i=(h_i-h_{\min})/(h_{\max}-h_{\min})` (higher = more tachycardic);
    ``ideal`` is a noise-free recording at the top heart rate, a reference shape only (the score is not a
    distance to it). Deterministic given ``rng``; nothing is downloaded.
    """
    if n < 1 or length < 4 or seconds <= 0:
        raise ValueError(f"n={n!r}, length={length!r} and seconds={seconds!r} must be >= 1, >= 4 and > 0")
    lo, hi = float(heart_rates[0]), float(heart_rates[1])
    if not 20 <= lo < hi <= 250:
        raise ValueError(f"heart_rates={heart_rates!r} must be (low, high) beats per minute with 20 <= low < high <= 250")
    import warnings

    import neurokit2 as nk
    hr = rng.uniform(lo, hi, n)
    starts = rng.uniform(0.0, 1.0, n)
    noise = rng.uniform(0.0, max_noise, n)
    seeds = rng.integers(0, 2**31 - 1, n)
    keep = int(round(seconds * sampling_rate))
    duration = int(np.ceil(seconds)) + 1

    def record(h, z, seed, start):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sig = nk.ecg_simulate(duration=duration, sampling_rate=sampling_rate, noise=float(z), heart_rate=float(h),
                                  heart_rate_std=1.0, method="ecgsyn", random_state=int(seed))
        k = int(start * sampling_rate)
        return np.asarray(sig, float)[k:k + keep]

    X = np.stack([record(h, z, sd, st) for h, z, sd, st in zip(hr, noise, seeds, starts)])
    ideal = record(hi, 0.0, 0, 0.0)[None]
    prep = lambda a: downsample(znormalise(a), length)  # noqa: E731
    return SeriesSet(prep(X), (hr - lo) / (hi - lo), prep(ideal)[0], "simulated ECG (neurokit2)")


def load_aeon_series(name: str = "GunPoint", length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A univariate dataset bundled in aeon's wheel (read from disk, nothing downloaded).

    Returns ``X`` ``(N, T)`` (train and test splits stacked, z-normalised, resampled to ``length`` if
    given) and the class labels ``y`` ``(N,)`` as strings.
    """
    from aeon import datasets as ad
    loaders = {"GunPoint": ad.load_gunpoint, "ItalyPowerDemand": ad.load_italy_power_demand,
               "ArrowHead": ad.load_arrow_head, "OSULeaf": ad.load_osuleaf, "ACSF1": ad.load_acsf1}
    if name not in loaders:
        raise ValueError(f"name={name!r} is not allowed; choose one of {tuple(loaders)}")
    X, y = loaders[name]()
    X = np.asarray(X, float)[:, 0, :]
    X = znormalise(X)
    if length is not None:
        X = resample(X, length)
    return X, np.asarray(y).astype(str)


@dataclasses.dataclass
class Comparisons:
    """A multiset of annotated pairs: ``y[k] = 1`` means annotator ``annotator[k]`` judged
    ``i[k]`` preferred to ``j[k]`` (closer to the ideal / more severe). Integer arrays of equal length."""

    i: np.ndarray
    j: np.ndarray
    y: np.ndarray
    annotator: np.ndarray

    def __len__(self) -> int:
        return int(self.i.size)

    def validate(self, n_items: int) -> None:
        """Raise ``ValueError`` if a comparison names an item outside ``0..n_items-1`` or compares an item
        with itself."""
        for name, a in (("i", self.i), ("j", self.j)):
            if a.size and (a.min() < 0 or a.max() >= n_items):
                bad = a[(a < 0) | (a >= n_items)][0]
                raise ValueError(f"comparisons name unknown item {int(bad)} in {name}; items are 0..{n_items - 1}")
        if np.any(self.i == self.j):
            raise ValueError("a comparison compares an item with itself")
        if not np.all((self.y == 0) | (self.y == 1)):
            raise ValueError("comparison labels y must be 0 or 1")

    def winners_losers(self) -> list[tuple[int, int]]:
        """The comparisons as ``(winner, loser)`` pairs (the format of ``choix``)."""
        w = np.where(self.y == 1, self.i, self.j)
        l_ = np.where(self.y == 1, self.j, self.i)
        return list(zip(w.tolist(), l_.tolist()))


def simulate_from_scores(score: np.ndarray, pairs: np.ndarray, rng: np.random.Generator, beta: float,
                         flip: float | np.ndarray = 0.0, annotator: np.ndarray | None = None) -> Comparisons:
    """Labels for given ``pairs`` ``(M, 2)``: :math:`P(y=1)=\\sigma(\\beta(s_i-s_j))`, then each label
    flipped with probability ``flip`` (a scalar, or one rate per annotator indexed by ``annotator``)."""
    score = np.asarray(score, float)
    i, j = pairs[:, 0], pairs[:, 1]
    p = expit(beta * (score[i] - score[j]))
    y = (rng.uniform(size=p.size) < p).astype(int)
    annotator = np.zeros(p.size, int) if annotator is None else np.asarray(annotator, int)
    rate = np.asarray(flip, float)[annotator] if np.ndim(flip) else np.full(p.size, float(flip))
    if np.any((rate < 0) | (rate > 1)):
        raise ValueError(f"flip={flip!r} must lie in [0, 1]")
    flipped = rng.uniform(size=p.size) < rate
    y = np.where(flipped, 1 - y, y)
    return Comparisons(i.astype(int), j.astype(int), y.astype(int), annotator)


def random_pairs(n_items: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` uniformly random ordered pairs of distinct items, ``(m, 2)``."""
    i = rng.integers(0, n_items, m)
    j = (i + rng.integers(1, n_items, m)) % n_items
    return np.stack([i, j], 1)


def simulate_comparisons(score: np.ndarray, n_comparisons: int, rng: np.random.Generator, beta: float = 10.0,
                         flip: float = 0.0, n_annotators: int = 1) -> Comparisons:
    """``n_comparisons`` random pairs of distinct items, drawn with replacement (a pair may recur), each judged by ``n_annotators`` simulated annotators
    (``n_comparisons * n_annotators`` raw labels) with the latent ``score`` and flip rate ``flip``."""
    if n_comparisons < 1 or n_annotators < 1:
        raise ValueError(f"n_comparisons={n_comparisons!r} and n_annotators={n_annotators!r} must be >= 1")
    pairs = random_pairs(len(score), n_comparisons, rng)
    rep = np.repeat(pairs, n_annotators, axis=0)
    ann = np.tile(np.arange(n_annotators), n_comparisons)
    return simulate_from_scores(score, rep, rng, beta, flip, ann)


def majority_vote(comp: Comparisons, rng: np.random.Generator) -> Comparisons:
    """One label per distinct ordered pair: the majority of its annotators (ties broken at random)."""
    key = comp.i.astype(np.int64) * (max(comp.i.max(), comp.j.max()) + 1) + comp.j
    uniq, inv = np.unique(key, return_inverse=True)
    votes = np.bincount(inv, weights=comp.y, minlength=uniq.size)
    count = np.bincount(inv, minlength=uniq.size)
    first = np.zeros(uniq.size, int)
    first[inv[::-1]] = np.arange(inv.size)[::-1]
    y = np.where(2 * votes > count, 1, np.where(2 * votes < count, 0, rng.integers(0, 2, uniq.size)))
    return Comparisons(comp.i[first], comp.j[first], y.astype(int), np.zeros(uniq.size, int))


def borda_scores(comp: Comparisons, n_items: int) -> np.ndarray:
    """Win rate of each item over its comparisons (0.5 for items never compared), ``(n_items,)``."""
    wins = np.bincount(np.where(comp.y == 1, comp.i, comp.j), minlength=n_items).astype(float)
    games = np.bincount(comp.i, minlength=n_items) + np.bincount(comp.j, minlength=n_items)
    return np.where(games > 0, wins / np.maximum(games, 1), 0.5)


@dataclasses.dataclass
class PointLabels:
    """Individual (absolute) annotations: ``y[k] = 1`` means annotator ``annotator[k]`` labelled item
    ``item[k]`` abnormal (above their threshold). Integer arrays of equal length."""

    item: np.ndarray
    y: np.ndarray
    annotator: np.ndarray

    def __len__(self) -> int:
        return int(self.item.size)

    def validate(self, n_items: int) -> None:
        if self.item.size and (self.item.min() < 0 or self.item.max() >= n_items):
            bad = self.item[(self.item < 0) | (self.item >= n_items)][0]
            raise ValueError(f"labels name unknown item {int(bad)}; items are 0..{n_items - 1}")
        if not np.all((self.y == 0) | (self.y == 1)):
            raise ValueError("labels y must be 0 or 1")


def pointwise_labels(score: np.ndarray, n_labels: int, rng: np.random.Generator, thresholds: np.ndarray,
                     beta: float = 10.0, flip: float = 0.0) -> PointLabels:
    r"""``n_labels`` individual annotations: an item and an annotator drawn uniformly, the label
    :math:`y\sim\text{Bernoulli}(\sigma(\beta(s_i-\theta_r)))` with the annotator's own threshold
    :math:`\theta_r` (``thresholds`` ``(R,)``), then flipped with probability ``flip``. The pairwise
    counterpart, :func:`simulate_comparisons`, uses the same :math:`\beta` and flip rate: a comparison
    :math:`\sigma(\beta(s_i-s_j))` does not depend on the annotator's threshold."""
    thresholds = np.asarray(thresholds, float)
    if n_labels < 1 or thresholds.ndim != 1 or thresholds.size < 1:
        raise ValueError(f"n_labels={n_labels!r} must be >= 1 and thresholds a non-empty 1-d array")
    if not 0 <= flip <= 1:
        raise ValueError(f"flip={flip!r} must lie in [0, 1]")
    score = np.asarray(score, float)
    item = rng.integers(0, score.size, n_labels)
    ann = rng.integers(0, thresholds.size, n_labels)
    y = (rng.uniform(size=n_labels) < expit(beta * (score[item] - thresholds[ann]))).astype(int)
    y = np.where(rng.uniform(size=n_labels) < flip, 1 - y, y)
    return PointLabels(item.astype(int), y.astype(int), ann.astype(int))
