"""Leaklessness: a payoff-based certificate that the span of a set is stable and attracting.

The abstract describes leaklessness as "a measure of aggregate payoff drift away from a set of pure
profiles". The paper's definition was not reachable, so we fix one from these words **before** any
experiment, and use no other (the chapter states it in the same form):

**Aggregate drift.** Under entropic FTRL (the replicator field in strategies) each profile mass
:math:`x(\\alpha)=\\prod_ix_{i\\alpha_i}` changes at the rate
:math:`\\dot x(\\alpha)=x(\\alpha)\\sum_i[u_i(\\alpha_i;x_{-i})-u_i(x)]`, so the outside mass changes at

.. math:: \\Lambda_S(x)=\\frac{\\dot D_S(x)}{D_S(x)}=\\sum_{\\alpha\\notin S}\\frac{x(\\alpha)}{D_S(x)}
          \\sum_i\\big[u_i(\\alpha_i;x_{-i})-u_i(x)\\big],

the payoff drift of the play that lands outside :math:`S`, aggregated with the weights of that play.

**Leakless with margin** :math:`c>0` **and radius** :math:`r>0`: :math:`\\Lambda_S(x)\\le-c` whenever
:math:`0<D_S(x)\\le r`.

It is sufficient (for entropic FTRL): along any trajectory started in :math:`\\{D_S\\le r\\}`,
:math:`\\tfrac{d}{dt}\\log D_S\\le-c`, so :math:`D_S` decreases at least like :math:`e^{-ct}` and never
leaves the neighbourhood: the span is stable and attracting. A supremum over a neighbourhood cannot be
evaluated by sampling, so :func:`leakless_score` **searches** for the largest :math:`\\Lambda_S` over
points at outside masses :math:`d\\le r` (the same per-player log-scale parametrisation as the stability
search, without integrating anything); a set is certified when the largest value found is below
:math:`-c`. A search can under-estimate a supremum, so certifications are checked against the
stability search's labels in the chapter.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from .games import NormalFormGame
from .preference import outside_mask
from .stability import KAPPA_FLOOR, _random_starts, _Starts, place_starts


def aggregate_drift(game: NormalFormGame, S, x: np.ndarray) -> np.ndarray:
    """:math:`\\Lambda_S(x)=\\dot D_S(x)/D_S(x)` under the replicator field, ``x`` (B, D) -> (B,)."""
    x = np.atleast_2d(x)
    mask = outside_mask(game, S).astype(float)
    joint = game.joint(x)
    D = joint @ mask
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


@dataclasses.dataclass(frozen=True)
class LeaklessResult:
    """The largest aggregate drift found (``score``), per level, and where (``worst_x``)."""

    score: float
    per_level: np.ndarray
    levels: np.ndarray
    worst_x: np.ndarray
    n_points: int

    def certified(self, margin: float) -> bool:
        return bool(self.score < -margin)


def leakless_score(game: NormalFormGame, S, rng: np.random.Generator, levels: Sequence[float] = (1e-4, 1e-7, 1e-10),
                   n_random: int = 512, n_rounds: int = 4, n_elite: int = 16, n_children: int = 16,
                   log_span: float = 12.0, sigma: float = 2.0) -> LeaklessResult:
    """Search for :math:`\\sup\\{\\Lambda_S(x): D_S(x)\\in\\text{levels}\\}` (random points, then rounds of an
    elitist evolution strategy over the per-player log-scales, as in :mod:`.stability`)."""
    S = game.check_set(S)
    levels = np.asarray(levels, float)
    if len(S) == game.n_profiles:
        raise ValueError("S is the whole profile set: nothing is outside it, leaklessness is vacuous")
    st = _random_starts(game, S, n_random, len(levels), log_span, rng)
    x = place_starts(game, S, st, levels)
    val = aggregate_drift(game, S, x)
    for rnd in range(n_rounds):
        s = sigma * 0.5 ** rnd
        kids = []
        for j in range(len(levels)):
            idx = np.nonzero(st.level == j)[0]
            elite = idx[np.argsort(-val[idx])[:n_elite]]
            par = st.take(np.repeat(elite, n_children))
            lam = np.clip(par.lam + s * rng.standard_normal(par.lam.shape), KAPPA_FLOOR, 0.0)
            kap = np.clip(par.kappa + s * rng.standard_normal(par.kappa.shape), KAPPA_FLOOR, 0.0)
            kids.append(_Starts(par.base, lam, kap, par.level))
        new = _Starts.concat(kids)
        xn = place_starts(game, S, new, levels)
        st = _Starts.concat([st, new])
        x = np.concatenate([x, xn])
        val = np.concatenate([val, aggregate_drift(game, S, xn)])
    per = np.array([val[st.level == j].max() for j in range(len(levels))])
    best = int(np.argmax(val))
    return LeaklessResult(float(val.max()), per, levels, x[best], len(val))
