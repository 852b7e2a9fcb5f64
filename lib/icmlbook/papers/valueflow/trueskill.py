r"""TrueSkill as an intensity baseline beside the anchored Plackett-Luce estimator (VALUEFLOW's dossier lists it
among the "online rating" alternatives; Herbrich, Minka and Graepel, "TrueSkill: a Bayesian skill rating
system", NeurIPS 2006). Our own implementation; the ``trueskill`` package is not used.

A player's skill is a Gaussian :math:`\mathcal N(\mu,\sigma^2)`; a game is decided by performances
:math:`p = s + \mathcal N(0,\beta^2)`. For a two-player game won by ``w`` over ``l`` (draw margin
:math:`\varepsilon`, dynamics :math:`\tau` added to both variances first), with
:math:`c^2 = 2\beta^2+\sigma_w^2+\sigma_l^2`, :math:`t=(\mu_w-\mu_l)/c` and :math:`e=\varepsilon/c`,

.. math::
   v(t,e)=\frac{\phi(t-e)}{\Phi(t-e)},\qquad w(t,e)=v(t,e)\,\big(v(t,e)+t-e\big),

   \mu_w \leftarrow \mu_w+\frac{\sigma_w^2}{c}\,v,\quad \mu_l \leftarrow \mu_l-\frac{\sigma_l^2}{c}\,v,\quad
   \sigma_i^2 \leftarrow \sigma_i^2\Big(1-\frac{\sigma_i^2}{c^2}\,w\Big)

(:func:`rate_1vs1`): the mean and variance of the skill's posterior after one game, matched exactly
(:math:`v` and :math:`w` are the mean shift and variance shrinkage of a truncated normal).

**How a ranked window is used (say which: sequential pairwise).** :func:`trueskill_estimate` scores a new item
from the same windows as the anchored estimator: the anchors' skills are fixed at their database intensities
(never updated, variance ``anchor_sigma``\ :sup:`2`), and each window is cut into (item, anchor) games that are
applied one after another (assumed-density filtering: window by window, anchors in slot order). That is *not*
TrueSkill's factor-graph update of a ranked list (message passing over the differences of neighbouring
performances); it treats the k - 1 games of a window as independent, which over-counts the item's own
performance noise inside a window. The skill scale is the intensity scale: prior :math:`\mathcal N(0,\sigma_0^2)`
with :math:`\sigma_0=10/\sqrt3` (the standard deviation of a uniform intensity on [-10, 10]),
:math:`\beta=\sigma_0/2` (TrueSkill's own convention, :math:`\beta=\sigma_0/2`), no draws (rankings have no ties),
no dynamics; the estimate is :math:`\mu` clipped to [-10, 10].
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import log_ndtr, ndtri

__all__ = ["v_win", "w_win", "rate_1vs1", "draw_margin", "TrueSkillScores", "trueskill_estimate", "SIGMA0"]

#: prior standard deviation of a new item's skill on the intensity scale: that of a uniform draw on [-10, 10]
SIGMA0 = 10.0 / np.sqrt(3.0)


def v_win(t, e=0.0) -> np.ndarray:
    r"""Mean shift of the truncated normal, :math:`\phi(t-e)/\Phi(t-e)` (stable for very negative arguments)."""
    x = np.asarray(t, dtype=float) - e
    return np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - log_ndtr(x))


def w_win(t, e=0.0) -> np.ndarray:
    r"""Variance shrinkage of the truncated normal, :math:`v(v+t-e)`, in (0, 1)."""
    x = np.asarray(t, dtype=float) - e
    v = v_win(x)
    return np.clip(v * (v + x), 0.0, 1.0)


def draw_margin(draw_probability: float, beta: float, n_players: int = 2) -> float:
    r"""TrueSkill's draw margin :math:`\varepsilon=\Phi^{-1}((p+1)/2)\sqrt{n}\,\beta` for a draw probability p."""
    if not 0 <= draw_probability < 1:
        raise ValueError(f"draw_probability={draw_probability!r} is not allowed; it must be in [0, 1)")
    return float(ndtri((draw_probability + 1) / 2) * np.sqrt(n_players) * beta)


def rate_1vs1(winner, loser, beta: float, tau: float = 0.0, draw_probability: float = 0.0):
    """One two-player game won by ``winner`` = (mu, sigma) over ``loser`` = (mu, sigma) (arrays broadcast);
    returns ((mu_w, sigma_w), (mu_l, sigma_l)) after the game."""
    if not beta > 0 or not tau >= 0:
        raise ValueError(f"beta={beta!r} must be > 0 and tau={tau!r} >= 0")
    mw, sw = (np.asarray(x, dtype=float) for x in winner)
    ml, sl = (np.asarray(x, dtype=float) for x in loser)
    s2w, s2l = sw**2 + tau**2, sl**2 + tau**2
    c = np.sqrt(2 * beta**2 + s2w + s2l)
    t, e = (mw - ml) / c, draw_margin(draw_probability, beta) / c
    v, w = v_win(t, e), w_win(t, e)
    return ((mw + s2w / c * v, np.sqrt(s2w * (1 - s2w / c**2 * w))),
            (ml - s2l / c * v, np.sqrt(s2l * (1 - s2l / c**2 * w))))


@dataclasses.dataclass
class TrueSkillScores:
    """``estimate`` (n,) = mu clipped to [-10, 10]; ``mu``, ``sigma`` the items' posterior skills."""

    estimate: np.ndarray
    mu: np.ndarray
    sigma: np.ndarray


def trueskill_estimate(pos: np.ndarray, anchor_I: np.ndarray, mu0: float = 0.0, sigma0: float = SIGMA0,
                       beta: float | None = None, anchor_sigma: float = 0.0) -> TrueSkillScores:
    """TrueSkill scores of every item from the anchored estimator's windows, by sequential pairwise games
    against fixed anchors (see the module docstring). ``pos`` (n, m, k) positions (slot 0 = the item; 0 = most
    strongly supports), ``anchor_I`` (n, m, k - 1) the anchors' intensities. Vectorised across items: one
    update per (window, anchor)."""
    pos = np.asarray(pos)
    anchor_I = np.asarray(anchor_I, dtype=float)
    if pos.ndim != 3 or anchor_I.shape != pos.shape[:2] + (pos.shape[2] - 1,):
        raise ValueError(f"pos must be (n, m, k) and anchor_I (n, m, k-1); got {pos.shape} and {anchor_I.shape}")
    beta = sigma0 / 2 if beta is None else beta
    if not sigma0 > 0 or not beta > 0 or not anchor_sigma >= 0:
        raise ValueError(f"sigma0={sigma0!r} and beta={beta!r} must be > 0, anchor_sigma={anchor_sigma!r} >= 0")
    n, m, k = pos.shape
    mu, s2 = np.full(n, float(mu0)), np.full(n, float(sigma0) ** 2)
    for w in range(m):
        for j in range(k - 1):
            sgn = np.where(pos[:, w, 0] < pos[:, w, j + 1], 1.0, -1.0)      # +1: the item won this game
            c = np.sqrt(2 * beta**2 + s2 + anchor_sigma**2)
            t = sgn * (mu - anchor_I[:, w, j]) / c
            mu = mu + sgn * s2 / c * v_win(t)
            s2 = s2 * (1 - s2 / c**2 * w_win(t))
    return TrueSkillScores(np.clip(mu, -10, 10), mu, np.sqrt(s2))
