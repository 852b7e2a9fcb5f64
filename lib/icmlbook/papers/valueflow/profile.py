r"""Value profiles of demographic groups (VALUEFLOW's OpinionQA application; formulas from the official code's
profile construction, MIT, re-written here with numpy).

For one value, ``x`` (G, Q) holds the measured intensity of group ``g``'s answer to query ``q`` (NaN: missing)
and ``d`` (G, Q) an optional HiVES relevance distance in [0, 1] (clipped; absent: 0). Then

1. base score :math:`b_{gq} = x_{gq}\,(1-d_{gq})^{\alpha}\,(|x_{gq}|/M)^{\beta}` (defaults :math:`\alpha=1`,
   :math:`\beta=0`, :math:`M=10`);
2. divergence of :math:`b_{gq}` from the other groups on the same query, a z-score
   :math:`z_{gq} = (b_{gq}-\bar b_{-g,q})/(s_q+\epsilon)` with :math:`\bar b_{-g,q}` the mean of the *other*
   groups and :math:`s_q` the standard deviation (ddof 1) over *all* groups that answered (as the official code
   computes it), :math:`\epsilon=10^{-8}`; NaN with fewer than two groups, or ``margin``:
   :math:`b_{gq}-\max_{g'\ne g} b_{g'q}`;
3. significance :math:`|z_{gq}|^{\gamma}` (or :math:`\max(z,0)^{\gamma}` with ``require_positive``);
4. the ``top_n`` (5) queries of largest significance (ties: larger base score, then the lower query index; the
   official code breaks the last ties at random);
5. the profile value: the mean of the *original* intensities :math:`x` over those queries weighted by
   :math:`1-d` (entries of weight 0 left out), or the group's mean over every query when none was selected.

The book has no OpinionQA data (not shipped, not fetched), so the chapter shows these formulas on synthetic input,
labelled as such; the OpinionQA row (P3) stays *not testable at this profile*.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["base_score", "divergence", "significance", "ValueProfile", "value_profile", "synthetic_groups"]


def _check(x, d):
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"x must be (groups, queries); got shape {x.shape}")
    if d is None:
        d = np.zeros_like(x)
    d = np.asarray(d, dtype=float)
    if d.shape != x.shape:
        raise ValueError(f"d has shape {d.shape}, x has {x.shape}: they must agree")
    return x, np.clip(d, 0.0, 1.0)


def base_score(x, d=None, alpha: float = 1.0, beta: float = 0.0, max_abs: float = 10.0) -> np.ndarray:
    """Step 1: :math:`b = x(1-d)^\\alpha(|x|/M)^\\beta` (NaN where x is NaN)."""
    x, d = _check(x, d)
    if not max_abs > 0:
        raise ValueError(f"max_abs={max_abs!r} must be > 0")
    mag = np.clip(np.abs(x) / max_abs, 0.0, 1.0) ** beta if beta else 1.0
    return x * (1.0 - d) ** alpha * mag


def divergence(b, method: str = "zscore") -> np.ndarray:
    """Step 2: each group's divergence from the others on the same query (see the module docstring)."""
    b = np.asarray(b, dtype=float)
    if method not in ("zscore", "margin"):
        raise ValueError(f"method={method!r} is not allowed; allowed values: zscore, margin")
    ok = np.isfinite(b)
    n = ok.sum(0)
    out = np.full_like(b, np.nan)
    if method == "zscore":
        total = np.where(ok, b, 0.0).sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_others = (total[None] - b) / (n[None] - 1)
            mean = total / np.maximum(n, 1)
            sd = np.sqrt(np.where(ok, (b - mean[None]) ** 2, 0.0).sum(0) / (n - 1))
            z = (b - mean_others) / (np.where(sd > 0, sd, np.nan)[None] + 1e-8)
        z[:, n < 2] = np.nan
        return np.where(ok, z, np.nan)
    for g in range(b.shape[0]):
        others = np.delete(b, g, axis=0)
        if others.shape[0]:
            with np.errstate(all="ignore"):
                mx = np.where(np.isfinite(others).any(0), np.nanmax(np.where(np.isfinite(others), others, -np.inf), 0), np.nan)
            out[g] = b[g] - mx
    return out


def significance(div, gamma: float = 1.0, require_positive: bool = False) -> np.ndarray:
    """Step 3: :math:`|z|^\\gamma`, or :math:`\\max(z, 0)^\\gamma` with ``require_positive``."""
    div = np.asarray(div, dtype=float)
    s = np.maximum(div, 0.0) if require_positive else np.abs(div)
    return s ** gamma


@dataclasses.dataclass
class ValueProfile:
    """Every step's numbers for one value: ``base``, ``div``, ``sig`` (G, Q); ``selected[g]`` the chosen query
    indices of group g in rank order; ``profile`` (G,) the profile intensities."""

    base: np.ndarray
    div: np.ndarray
    sig: np.ndarray
    selected: list
    profile: np.ndarray


def value_profile(x, d=None, *, alpha: float = 1.0, beta: float = 0.0, max_abs: float = 10.0,
                  method: str = "zscore", gamma: float = 1.0, require_positive: bool = False, top_n: int = 5,
                  weight_by_distance: bool = True) -> ValueProfile:
    """Steps 1-5 for one value across groups (module docstring)."""
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise ValueError(f"top_n={top_n!r} is not allowed; it must be an integer >= 1")
    x, dd = _check(x, d)
    b = base_score(x, dd, alpha, beta, max_abs)
    div = divergence(b, method)
    sig = significance(div, gamma, require_positive)
    w = 1.0 - dd if (weight_by_distance and d is not None) else np.ones_like(x)
    selected, prof = [], np.full(x.shape[0], np.nan)
    Q = x.shape[1]
    for g in range(x.shape[0]):
        cand = [q for q in range(Q) if np.isfinite(sig[g, q])]
        cand.sort(key=lambda q: (-sig[g, q], -b[g, q], q))
        if not cand:   # the official fallback: rank by |base|
            cand = sorted((q for q in range(Q) if np.isfinite(b[g, q])), key=lambda q: (-abs(b[g, q]), q))
        keys = cand[:top_n]
        selected.append(keys)
        rows = keys if keys else list(range(Q))
        xs, ws = x[g, rows], w[g, rows]
        keep = np.isfinite(xs) & np.isfinite(ws) & (ws > 0)
        if keep.any():
            prof[g] = float(np.dot(xs[keep], ws[keep]) / ws[keep].sum())
    return ValueProfile(b, div, sig, selected, prof)


def synthetic_groups(n_groups: int = 4, n_queries: int = 12, seed: int = 0, shift: float = 4.0,
                     n_shifted: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """**Synthetic** input for the profile formulas (no survey data): intensities (G, Q) of one value, a common
    per-query level plus noise, and for group g a planted shift of ``shift * (g - (G-1)/2) / (G-1) * 2`` on
    ``n_shifted`` queries of its own; distances uniform in [0, 0.6]. Returns (x, d, planted shift per group)."""
    if n_groups < 2 or n_queries < n_shifted * n_groups:
        raise ValueError(f"n_groups={n_groups!r} must be >= 2 and n_queries={n_queries!r} >= n_shifted * n_groups")
    rng = np.random.default_rng([seed, 61])
    level = rng.uniform(-4, 4, n_queries)
    x = level[None] + rng.normal(0, 0.7, (n_groups, n_queries))
    planted = shift * (np.arange(n_groups) - (n_groups - 1) / 2) / ((n_groups - 1) / 2)
    for g in range(n_groups):
        x[g, g * n_shifted:(g + 1) * n_shifted] += planted[g]
    return np.clip(x, -10, 10), rng.uniform(0, 0.6, x.shape), planted
