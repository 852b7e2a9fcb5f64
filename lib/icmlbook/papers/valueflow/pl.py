r"""Intensity by ranking: the Plackett-Luce database fit and the anchored single-item estimator of VALUEFLOW
(section "Measurement"; the estimator's steps follow the official code, MIT, re-written by us).

Rankings are stored as **positions**: ``pos[..., s]`` is the place (0 = most strongly supports) that the judge
gave to slot ``s`` of a window. Under Plackett-Luce with utilities :math:`u`, an order
:math:`\pi=(\pi_1..\pi_k)` has probability :math:`\prod_j e^{u_{\pi_j}}/\sum_{l\ge j}e^{u_{\pi_l}}`.

- :func:`fit_pl`: the maximum-likelihood utilities of all items of a pool from many windows (L2 prior
  :math:`\tfrac{\lambda}{2}\lVert u\rVert^2`, mean fixed at 0), by L-BFGS on the exact gradient;
  :func:`normalise_ratings` maps them to [-10, 10] (our reconstruction: neutral texts centred at 0, each side
  scaled so that its 1st / 99th percentile sits at -10 / +10, clipped). That is the VIDB.
- :func:`anchored_estimate`: a new item ranked ``m`` times among ``k - 1`` anchors of known intensity
  (:func:`bucket_anchors`); anchor utilities fixed at :math:`u_a=I_a/s` (``temperature`` s; the code uses s = 1),
  the item's utility solves the monotone score equation

  .. math::  g(u)=\sum_{w,j:\,r\in R^w_j}\Big([\pi^w_j=r]-\frac{e^{u}}{e^{u}+\sum_{a\in R^w_j\setminus r}e^{u_a}}\Big)-\lambda u=0

  by bisection on [-20, 20] (clipped gradient ascent where g has no sign change), then isotonic calibration
  on the anchors' (u_a, I_a) and the window guard. Vectorised across items.
- Baselines on the same windows: :func:`mean_rank_estimate`, :func:`bradley_terry_estimate` (the windows cut
  into item-vs-anchor pairs); TrueSkill lives in :mod:`.trueskill`, direct rating in :mod:`.judges`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.optimize import minimize

__all__ = ["pl_nll", "fit_pl", "normalise_ratings", "bucket_anchors", "AnchoredScores", "anchored_estimate",
           "anchored_estimate_loop", "score_equation", "stage_terms", "isotonic_calibrate", "window_guard", "mean_rank_estimate",
           "bradley_terry_estimate", "orders_from_positions"]

L2 = 1e-3


def orders_from_positions(pos: np.ndarray) -> np.ndarray:
    """The order (slot indices, best first) of each window from the positions of its slots."""
    return np.argsort(pos, axis=-1, kind="stable")


def pl_nll(u: np.ndarray, orders: np.ndarray, l2: float = L2) -> tuple[float, np.ndarray]:
    """Negative penalised log-likelihood of item utilities ``u`` (n,) given windows ``orders`` (W, k) of item
    indices, best first, and its gradient."""
    U = u[orders]
    k = U.shape[1]
    # L[:, j] = log sum_{l >= j} exp(U[:, l])
    L = np.logaddexp.accumulate(U[:, ::-1], axis=1)[:, ::-1]
    nll = float((L[:, : k - 1] - U[:, : k - 1]).sum() + 0.5 * l2 * u @ u)
    # d/dU_i = sum_{j <= i, j < k-1} exp(U_i - L_j) - [i < k-1]
    P = np.exp(U[:, :, None] - L[:, None, : k - 1])            # (W, i, j)
    mask = np.tril(np.ones((k, k - 1), dtype=bool))            # j <= i
    dU = (P * mask).sum(2) - (np.arange(k) < k - 1)
    grad = np.bincount(orders.ravel(), dU.ravel(), minlength=u.size) + l2 * u
    return nll, grad


def fit_pl(n_items: int, orders: np.ndarray, l2: float = L2) -> np.ndarray:
    """Maximum-likelihood Plackett-Luce utilities (n_items,), mean 0, from windows ``orders`` (W, k)."""
    orders = np.asarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] < 2:
        raise ValueError(f"orders must be (windows, k >= 2) item indices; got shape {orders.shape}")
    res = minimize(pl_nll, np.zeros(n_items), args=(orders, l2), jac=True, method="L-BFGS-B",
                   options={"maxiter": 2000, "gtol": 1e-8})
    return res.x - res.x.mean()


def normalise_ratings(u: np.ndarray, neutral: np.ndarray | None = None, q: float = 0.99) -> np.ndarray:
    """Our reconstruction of VIDB's per-value monotone calibration: centre so that the ``neutral`` items average
    0 (the median without neutral items), then scale each side on its own so that the ``q`` quantile of the
    positive side maps to +10 and the ``1 - q`` quantile of the negative side to -10 (the dossier's "1st/99th
    percentiles to about ±10"), clip to [-10, 10]."""
    u = np.asarray(u, dtype=float)
    c = u[neutral].mean() if neutral is not None and np.any(neutral) else np.median(u)
    v = u - c
    hi = np.quantile(v, q)
    lo = np.quantile(v, 1 - q)
    out = np.where(v >= 0, 10 * v / max(hi, 1e-12), 10 * v / max(-lo, 1e-12))
    return np.clip(out, -10, 10)


def bucket_anchors(pool: np.ndarray, n_items: int, m: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """(n_items, m, k - 1) indices into ``pool`` (the anchors' intensities): per window one anchor drawn from
    each of k - 1 equal-width bins over [min, max] of the pool; an empty bin draws from the whole pool. Also
    returns how many draws fell back."""
    if k < 2 or m < 1:
        raise ValueError(f"k={k!r} and m={m!r} are not allowed; k >= 2 and m >= 1")
    pool = np.asarray(pool, dtype=float)
    edges = np.linspace(pool.min(), pool.max(), k)
    which = np.clip(np.searchsorted(edges, pool, side="right") - 1, 0, k - 2)
    out = np.empty((n_items, m, k - 1), dtype=np.int64)
    fallback = 0
    for b in range(k - 1):
        members = np.flatnonzero(which == b)
        if members.size:
            out[:, :, b] = rng.choice(members, size=(n_items, m))
        else:
            out[:, :, b] = rng.integers(len(pool), size=(n_items, m))
            fallback += n_items * m
    return out, fallback


def stage_terms(pos: np.ndarray, anchor_u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What g(u) needs and does not depend on u: for each item, window and stage j, whether the item is still
    unplaced (``flag``), whether it is placed at j (``win``), and log of the sum of exp(u_a) over the anchors
    still unplaced (``logS``; -inf when none). Shapes (n, m, k)."""
    k = pos.shape[-1]
    stages = np.arange(k)
    p_r = pos[..., 0][..., None]                                             # (n, m, 1)
    unplaced = pos[..., 1:, None] >= stages                                  # (n, m, k-1, k)
    logS = np.logaddexp.reduce(np.where(unplaced, anchor_u[..., None], -np.inf), axis=2)
    return p_r >= stages, (p_r == stages).astype(float), logS


def _g(u, flag, win, logS, l2):
    prob = 1.0 / (1.0 + np.exp(np.clip(logS - u[:, None, None], -700, 700)))
    return np.where(flag, win - prob, 0.0).sum((1, 2)) - l2 * u


def score_equation(u, pos: np.ndarray, anchor_u: np.ndarray, l2: float = L2) -> np.ndarray:
    """g(u) of each item: ``u`` (n,) trial utilities, ``pos`` (n, m, k) positions (slot 0 = the item),
    ``anchor_u`` (n, m, k - 1) anchor utilities. Decreasing in u."""
    return _g(np.asarray(u, dtype=float), *stage_terms(pos, anchor_u), l2)


@dataclasses.dataclass
class AnchoredScores:
    """``estimate`` (n,) on [-10, 10]; ``u`` the fitted utilities; ``wins``/``losses`` against anchors;
    ``fallback`` how many items had no sign change of g on the bracket."""

    estimate: np.ndarray
    u: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    fallback: int


def isotonic_calibrate(u_hat: np.ndarray, anchor_u: np.ndarray, anchor_I: np.ndarray) -> np.ndarray:
    """Per item, the isotonic fit of the anchors' (u_a, I_a) pairs (bounded to [-10, 10], clipped outside
    their range) evaluated at ``u_hat``. Rows whose pairs are already monotone (always the case with
    u_a = I_a / s) are interpolated vectorised; other rows go through scikit-learn's IsotonicRegression."""
    n = len(u_hat)
    U = anchor_u.reshape(n, -1)
    Y = np.clip(anchor_I.reshape(n, -1), -10, 10)
    order = np.argsort(U, axis=1, kind="stable")
    U = np.take_along_axis(U, order, 1)
    Y = np.take_along_axis(Y, order, 1)
    mono = np.all(np.diff(Y, axis=1) >= 0, axis=1)
    out = np.empty(n)
    x = np.clip(u_hat, U[:, 0], U[:, -1])
    j = np.clip((U < x[:, None]).sum(1), 1, U.shape[1] - 1)
    x0, x1 = U[np.arange(n), j - 1], U[np.arange(n), j]
    y0, y1 = Y[np.arange(n), j - 1], Y[np.arange(n), j]
    w = np.where(x1 > x0, (x - x0) / np.where(x1 > x0, x1 - x0, 1), 1.0)
    out[:] = y0 + w * (y1 - y0)
    if not mono.all():
        from sklearn.isotonic import IsotonicRegression

        for i in np.flatnonzero(~mono):
            iso = IsotonicRegression(y_min=-10, y_max=10, out_of_bounds="clip").fit(U[i], Y[i])
            out[i] = iso.predict([u_hat[i]])[0]
    return out


def window_guard(estimate, wins, losses, anchor_I, nudge: float = 0.1) -> np.ndarray:
    """Below the lowest anchor seen when the item lost every comparison, above the highest when it won every
    one, otherwise clamped inside [lowest + nudge, highest - nudge]; finally clipped to [-10, 10]."""
    n = len(estimate)
    A = anchor_I.reshape(n, -1)
    lo, hi = A.min(1), A.max(1)
    est = np.clip(estimate, lo + nudge, np.maximum(hi - nudge, lo + nudge))
    est = np.where(wins == 0, lo - nudge, np.where(losses == 0, hi + nudge, est))
    return np.clip(est, -10, 10)


def anchored_estimate(pos: np.ndarray, anchor_I: np.ndarray, temperature: float = 1.0, l2: float = L2,
                      bracket: float = 20.0, tol: float = 1e-6, max_iter: int = 200, ascent_steps: int = 200,
                      lr: float = 0.1) -> AnchoredScores:
    """The anchored single-item PL estimate of every item at once. ``pos`` (n, m, k) positions of the windows
    (slot 0 = the item), ``anchor_I`` (n, m, k - 1) the anchors' intensities."""
    pos = np.asarray(pos)
    anchor_I = np.asarray(anchor_I, dtype=float)
    if pos.ndim != 3 or anchor_I.shape != pos.shape[:2] + (pos.shape[2] - 1,):
        raise ValueError(f"pos must be (n, m, k) and anchor_I (n, m, k-1); got {pos.shape} and {anchor_I.shape}")
    if not temperature > 0:
        raise ValueError(f"temperature={temperature!r} is not allowed; it must be > 0")
    au = np.clip(anchor_I, -10, 10) / temperature
    n = pos.shape[0]
    terms = stage_terms(pos, au)
    lo, hi = np.full(n, -bracket), np.full(n, bracket)
    g_lo, g_hi = _g(lo, *terms, l2), _g(hi, *terms, l2)
    ok = (g_lo > 0) & (g_hi < 0)
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        g = _g(mid, *terms, l2)
        lo, hi = np.where(g > 0, mid, lo), np.where(g > 0, hi, mid)
        if np.max(hi - lo) < tol:
            break
    u = 0.5 * (lo + hi)
    if not ok.all():
        v = np.zeros(int((~ok).sum()))
        sub = tuple(t[~ok] for t in terms)
        for _ in range(ascent_steps):
            v = np.clip(v + lr * _g(v, *sub, l2), -bracket, bracket)
        u[~ok] = v
    beat = (pos[..., :1] < pos[..., 1:])
    wins, losses = beat.sum((1, 2)), (~beat).sum((1, 2))
    est = isotonic_calibrate(u, au, anchor_I)
    return AnchoredScores(window_guard(est, wins, losses, anchor_I), u, wins, losses, int((~ok).sum()))


def anchored_estimate_loop(pos, anchor_I, temperature: float = 1.0, l2: float = L2) -> np.ndarray:
    """The same estimate item by item with scipy's brentq and scikit-learn's isotonic regression (a reference
    for the tests and the per-item baseline of the benchmark)."""
    from scipy.optimize import brentq
    from sklearn.isotonic import IsotonicRegression

    out = np.empty(len(pos))
    for i in range(len(pos)):
        p, a = pos[i:i + 1], np.clip(anchor_I[i:i + 1], -10, 10) / temperature
        f = lambda x: float(score_equation(np.array([x]), p, a, l2)[0])  # noqa: E731
        u = brentq(f, -20, 20, xtol=1e-10)
        iso = IsotonicRegression(y_min=-10, y_max=10, out_of_bounds="clip").fit(a.ravel(), np.clip(anchor_I[i].ravel(), -10, 10))
        beat = pos[i, :, :1] < pos[i, :, 1:]
        out[i] = window_guard(iso.predict([u]), np.array([beat.sum()]), np.array([(~beat).sum()]), anchor_I[i:i + 1])[0]
    return out


def mean_rank_estimate(pos: np.ndarray, anchor_I: np.ndarray, nudge: float = 0.1) -> np.ndarray:
    """Mean-rank baseline: in each window, the midpoint of the intensities of the anchors placed just above and
    just below the item (just past the end anchor at either end), averaged over windows."""
    pos = np.asarray(pos)
    above = np.where(pos[..., 1:] < pos[..., :1], anchor_I, np.inf).min(-1)      # lowest anchor placed above
    below = np.where(pos[..., 1:] > pos[..., :1], anchor_I, -np.inf).max(-1)     # highest anchor placed below
    est = np.where(np.isinf(above), below + nudge, np.where(np.isinf(below), above - nudge, 0.5 * (above + below)))
    return np.clip(est.mean(1), -10, 10)


def bradley_terry_estimate(pos: np.ndarray, anchor_I: np.ndarray, **kwargs) -> AnchoredScores:
    """Bradley-Terry baseline: every window cut into (item, anchor) pairs, the single-item fit on the pairs."""
    pos = np.asarray(pos)
    n, m, k = pos.shape
    beat = pos[..., :1] < pos[..., 1:]                                            # (n, m, k-1)
    pair_pos = np.stack([np.where(beat, 0, 1), np.where(beat, 1, 0)], -1).reshape(n, m * (k - 1), 2)
    return anchored_estimate(pair_pos, anchor_I.reshape(n, m * (k - 1), 1), **kwargs)
