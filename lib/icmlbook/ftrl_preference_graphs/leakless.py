"""Leaklessness: payoff-based (cardinal) certificates that the span of a set is stable.

The paper introduces *leaklessness* (in its final version: *resilience to aggregate deviations*),
"a measure of aggregate payoff drift away from a set of pure profiles", and proves that it makes the
span of an arbitrary set stable and attracting. We could not read its definition, so everything in
this module is **our reconstruction**; the chapter says which candidate stands in for the paper's.

Notation. A *box* is a product set :math:`B=\\prod_iB_i\\subseteq S`; its face
:math:`\\prod_i\\Delta(B_i)` is part of :math:`\\mathrm{span}(S)`. Action :math:`b\\notin B_i` is an
*exit* of the box when :math:`(b;\\beta_{-i})\\notin S` for some :math:`\\beta\\in B`; those
:math:`\\beta` form its *bad* set. Under entropic FTRL the mass of an exit grows at the rate

.. math:: \\frac{d}{dt}\\log x_{ib}=u_i(b;x_{-i})-u_i(x)=\\sum_{\\beta}x(\\beta)\\,[u_i(b;\\beta_{-i})-u_i(\\beta)]

(for :math:`x` on the face), an *aggregate* of the player's pure deviation gains weighted by the
product distribution of play.

Candidates, from the strongest to the sharpest:

- **L1 (pointwise)**: every exit is unprofitable against *every* profile of its box,
  :math:`\\max_{B,i,b,\\beta\\in B}[u_i(b;\\beta_{-i})-u_i(\\beta)]<0`. Exact, by enumeration (the rate
  above is multilinear, so its maximum over a face is at a vertex).
- **L2 (aggregate drift, sampled)**: the normalised leak rate
  :math:`\\Lambda_S(x)=\\dot D_S(x)/D_S(x)<0` at sampled points near the span (replicator field).
- **L3 (transverse rate, simulated)**: the time average of the exit rates along trajectories of the
  dynamics restricted to each face (their long-run empirical distributions).
- **L3\\* (aggregate deviations over coarse correlated equilibria, by linear programming)**: time
  averages of no-regret dynamics on a face are coarse correlated equilibria (CCE) of the subgame of
  the box, so we bound L3 by
  :math:`\\max\\{\\mathbb E_\\mu[u_i(b;\\beta_{-i})-u_i(\\beta)]:\\ \\mu\\in\\mathrm{CCE}(B),\\ \\mu(\\text{bad})>0\\}`
  over all boxes and exits; certified when negative. On products it reduces to preferential
  stability; on our counterexample it equals :math:`(G-3)/4` exactly.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
from scipy.optimize import linprog

from .dynamics import integrate_rowwise
from .games import NormalFormGame
from .preference import boxes, outside_mask
from .stability import exit_moves

CRITERIA: tuple[str, ...] = ("L1", "L2", "L3", "L3*")


def deviation_gain(game: NormalFormGame, i: int, b: int, beta) -> float:
    """:math:`u_i(b;\\beta_{-i})-u_i(\\beta)`."""
    dev = tuple(beta[:i]) + (b,) + tuple(beta[i + 1:])
    return float(game.payoffs[(i, *dev)] - game.payoffs[(i, *beta)])


def bad_profiles(game: NormalFormGame, S, box, i: int, b: int) -> list[tuple]:
    """Profiles :math:`\\beta` of the box from which player ``i`` switching to ``b`` leaves ``S``."""
    S = frozenset(S)
    return [beta for beta in itertools.product(*box) if beta[:i] + (b,) + beta[i + 1:] not in S]


# -- L1 -------------------------------------------------------------------------------------------
def pointwise_leak(game: NormalFormGame, S) -> float:
    """L1 score: the largest gain of switching to an exit action, over all boxes, exits and profiles.

    Certified (leakless in the pointwise sense) iff the score is < 0.
    """
    S = game.check_set(S)
    best = -np.inf
    for bx in boxes(game, S, maximal=True):
        for i, b in exit_moves(game, S, bx):
            for beta in itertools.product(*bx):
                best = max(best, deviation_gain(game, i, b, beta))
    return best


# -- L2 -------------------------------------------------------------------------------------------
def leak_rate(game: NormalFormGame, S, x: np.ndarray) -> np.ndarray:
    """:math:`\\Lambda_S(x)=\\dot D_S(x)/D_S(x)` under the replicator field, ``x`` (B, D) -> (B,)."""
    x = np.atleast_2d(x)
    mask = outside_mask(game, S).astype(float)
    joint = game.joint(x)
    D = joint @ mask
    # d/dt x(alpha) = x(alpha) * sum_i [u_i(alpha_i; x_-i) - u_i(x)]
    v = game.payoff_vectors(x)
    blocks = game.split(x)
    ubar = [(vi * xi).sum(-1, keepdims=True) for vi, xi in zip(v, blocks)]
    rate = None
    for i, (vi, ui) in enumerate(zip(v, ubar)):
        shp = [x.shape[0]] + [1] * game.n_players
        shp[1 + i] = game.shape[i]
        term = (vi - ui).reshape(shp)
        rate = term if rate is None else rate + term
    rate = np.broadcast_to(rate, (x.shape[0], *game.shape)).reshape(x.shape[0], -1)
    Ddot = (joint * rate) @ mask
    return Ddot / np.maximum(D, 1e-300)


def sampled_leak(game: NormalFormGame, S, rng: np.random.Generator, n_samples: int = 400,
                 eps: float = 1e-4) -> float:
    """L2 score: the largest :math:`\\Lambda_S` over points :math:`(1-\\varepsilon)p+\\varepsilon q`.

    :math:`p` is a vertex of :math:`S` or a random point of a random face of the span, :math:`q` a
    random interior profile. Certified iff the score is < 0. Sampling cannot prove the bound; it
    estimates it.
    """
    S = game.check_set(S)
    bxs = boxes(game, S)
    P = np.zeros((n_samples, game.dim))
    for m in range(n_samples):
        bx = bxs[rng.integers(len(bxs))]
        for i, f in enumerate(bx):
            P[m, game.offsets[i] + np.array(f)] = rng.dirichlet(np.ones(len(f)) * (0.3 if m % 2 else 1.0))
    Q = np.stack([np.concatenate([rng.dirichlet(np.ones(n)) for n in game.shape]) for _ in range(n_samples)])
    X = (1.0 - eps) * P + eps * Q
    return float(np.max(leak_rate(game, S, X)))


# -- L3*: coarse correlated equilibria -----------------------------------------------------------
def _cce_constraints(game: NormalFormGame, box) -> tuple[list[tuple], np.ndarray]:
    """Profiles of the box and the CCE inequalities A_ub mu <= 0 of its subgame."""
    profs = list(itertools.product(*box))
    rows = []
    for j, Bj in enumerate(box):
        for a in Bj:
            rows.append([deviation_gain(game, j, a, beta) for beta in profs])
    return profs, np.array(rows).reshape(-1, len(profs))


@dataclasses.dataclass(frozen=True)
class AggregateLeak:
    """The worst (box, exit) found by :func:`cce_leak`: its score and where it happens."""

    score: float
    box: tuple | None
    player: int | None
    action: int | None
    distribution: dict | None


def cce_leak(game: NormalFormGame, S, tol: float = 1e-9) -> AggregateLeak:
    """L3\\* score: the largest aggregate exit gain over coarse correlated equilibria of the boxes.

    For every box :math:`B\\subseteq S`, every exit :math:`(i,b)` of the box with bad set :math:`K`,
    solve :math:`\\max\\{\\mathbb E_\\mu[u_i(b;\\beta_{-i})-u_i(\\beta)]:\\mu\\in\\mathrm{CCE}(B)\\}`; it
    counts only if some CCE of the box puts mass on :math:`K` (a second LP). The score is the largest
    counted value; certified iff < 0. Returns the score and its witness.
    """
    S = game.check_set(S)
    worst = AggregateLeak(-np.inf, None, None, None, None)
    for bx in boxes(game, S):
        moves = exit_moves(game, S, bx)
        if not moves:
            continue
        profs, A = _cce_constraints(game, bx)
        n = len(profs)
        common = dict(A_ub=A, b_ub=np.zeros(len(A)), A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0, None)] * n,
                      method="highs")
        for i, b in moves:
            gains = np.array([deviation_gain(game, i, b, beta) for beta in profs])
            res = linprog(-gains, **common)
            if res.status != 0:
                raise RuntimeError(f"CCE linear program failed for box {bx}: {res.message}")
            value = -res.fun
            if value <= worst.score:
                continue
            bad = set(bad_profiles(game, S, bx, i, b))
            bad_ind = np.array([1.0 if p in bad else 0.0 for p in profs])
            res2 = linprog(-bad_ind, **common)
            if res2.status == 0 and -res2.fun > tol:
                mu = {p: float(w) for p, w in zip(profs, res.x) if w > 1e-9}
                worst = AggregateLeak(float(value), bx, i, b, mu)
    return worst


# -- L3: simulated transverse rates ---------------------------------------------------------------
def transverse_rates(game: NormalFormGame, S, rng: np.random.Generator, n_starts: int = 4,
                     horizon: float = 120.0, n_samples: int = 241) -> float:
    """L3 score of one set (see :func:`transverse_rates_many`)."""
    return transverse_rates_many([(game, S)], rng, n_starts, horizon, n_samples)[0]


def transverse_rates_many(pairs, rng: np.random.Generator, n_starts: int = 4, horizon: float = 120.0,
                          n_samples: int = 241) -> list[float]:
    """L3 scores: the largest time-averaged exit rate along entropic trajectories on the faces.

    For every (game, S) pair and every maximal box with exits, start ``n_starts`` trajectories at
    random points of the box's face (the other actions at mass :math:`10^{-300}`, so the trajectory
    stays on the face for the horizon) and average, over the second half of :math:`[0,T]`, the rate
    :math:`u_i(b;x_{-i})-u_i(x)` of every exit (counted when the averaged bad mass is > 1e-6).
    Certified iff the score is < 0. A diagnostic: it samples invariant measures, it proves nothing.
    All pairs whose games share a shape are integrated as one batch.
    """
    pairs = [(g, g.check_set(S)) for g, S in pairs]
    scores = [-np.inf] * len(pairs)
    t_eval = np.linspace(0.0, horizon, n_samples)
    late = t_eval >= horizon / 2
    by_shape: dict[tuple, list[tuple[int, tuple]]] = {}
    starts: dict[tuple[int, tuple], np.ndarray] = {}
    for k, (game, S) in enumerate(pairs):
        for bx in boxes(game, S, maximal=True):
            if not exit_moves(game, S, bx):
                continue
            x0 = np.zeros((n_starts, game.dim))
            for i, f in enumerate(bx):
                x0[:, game.offsets[i] + np.array(f)] = rng.dirichlet(np.ones(len(f)), size=n_starts)
            starts[(k, bx)] = x0
            by_shape.setdefault(game.shape, []).append((k, bx))
    for shape, keys in by_shape.items():
        X0 = np.concatenate([starts[key] for key in keys])
        P = np.concatenate([np.broadcast_to(pairs[k][0].payoffs, (n_starts, *pairs[k][0].payoffs.shape))
                            for k, _ in keys])
        Y0 = np.log(np.maximum(X0, 1e-300))
        res = integrate_rowwise(P, Y0, horizon, "entropic", batched=True, t_eval=t_eval, rtol=1e-7, atol=1e-9)
        for n, (k, bx) in enumerate(keys):
            game, S = pairs[k]
            xs = res.x[late][:, n * n_starts:(n + 1) * n_starts]          # (T', n_starts, D)
            flat = xs.reshape(-1, game.dim)
            v = game.payoff_vectors(flat)
            ubar = game.expected_payoffs(flat)
            joint = game.joint(flat).reshape(*xs.shape[:2], -1)
            profs = game.profiles()
            for i, b in exit_moves(game, S, bx):
                rate = (v[i][:, b] - ubar[:, i]).reshape(xs.shape[:2]).mean(axis=0)   # (n_starts,)
                bad = set(bad_profiles(game, S, bx, i, b))
                bad_idx = [j for j, p in enumerate(profs) if p in bad]
                bad_mass = joint[..., bad_idx].sum(-1).mean(axis=0)
                relevant = bad_mass > 1e-6
                if relevant.any():
                    scores[k] = max(scores[k], float(rate[relevant].max()))
    return scores


def leak_scores(game: NormalFormGame, S, rng: np.random.Generator, *, n_samples: int = 400,
                n_starts: int = 4, horizon: float = 120.0) -> dict[str, float]:
    """All four candidate scores of ``S`` (certified iff < 0): keys ``"L1", "L2", "L3", "L3*"``."""
    return {"L1": pointwise_leak(game, S), "L2": sampled_leak(game, S, rng, n_samples),
            "L3": transverse_rates(game, S, rng, n_starts, horizon), "L3*": cce_leak(game, S).score}
