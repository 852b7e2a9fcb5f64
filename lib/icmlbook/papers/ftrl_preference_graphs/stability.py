"""Stability of the span of a set of pure profiles, decided by an adversarial search for the worst start.

Lyapunov stability of :math:`\\mathrm{span}(S)=\\{D_S=0\\}` asks that every start close to the span
stay close. Since :math:`D_S` is continuous, vanishes exactly on the (compact) span and is positive
elsewhere, the sets :math:`\\{D_S<r\\}` form a base of neighbourhoods of the span, so the span is
stable iff

.. math:: \\varepsilon(d)=\\sup\\{\\max_{t\\le T}D_S(x(t)) : D_S(x(0))\\le d\\}\\ \\to\\ 0\\quad (d\\to0)

(with :math:`T=\\infty`; we use a finite horizon and say so). A supremum is found by **searching**,
not by sampling one perturbation per direction: instabilities that need two exits, growing at
different rates, to arrive together are missed by any start that perturbs one coordinate.

**Starts.** A start is a point :math:`p` of one face :math:`\\prod_i\\Delta(B_i)` of the span (a
maximal box :math:`B\\subseteq S`; :math:`p_i` a vertex or a Dirichlet point of :math:`\\Delta(B_i)`),
pushed off by every player separately:

.. math:: x_i=(1-m_i)\\,p_i+m_i\\,q_i,\\qquad m_i=10^{\\lambda_i+t},\\qquad q_i\\propto10^{\\kappa_i},

with a per-player **log-scale** :math:`\\lambda_i` (uniform over ``log_span`` >= 10 decades), a
direction :math:`q_i` with per-action log-weights :math:`\\kappa_i`, and one common shift :math:`t`
solved (by bisection) so that :math:`D_S(x(0))=d` (or the largest :math:`D_S\\le d` the caps
:math:`m_i\\le\\tfrac12` allow).

**Search.** For every level :math:`d`: ``n_random`` random restarts; **every** vertex-exit move of S (one
player's mass moved to an action that leaves S) and **every** pair of unilateral moves of two players from
every vertex of S (:func:`vertex_move_pairs`), each pair at ``pair_ratios`` tunings of its two masses
(:func:`pair_ratio_grid`) and at ``pair_random`` random pairs of scales: enumerated, not sampled, and chosen without looking at payoffs (until issue 28 the
pairs were a random draw of ``n_pair_seeds`` per level, which missed the one split corner of a set an
audit showed unstable: game "2x2x3 #14" of the default leak study); then ``n_rounds`` rounds of a batched
elitist evolution strategy over the log-scales :math:`(\\lambda,\\kappa)` (the ``n_elite`` best starts of
the level each get ``n_children`` Gaussian mutations of step ``sigma`` decades, halved every round; box and
base point are inherited). Every set labelled *stable* is then **re-checked** (``recheck``): a second pass
of fresh random restarts and evolution rounds on that set alone, the label decided on everything both
passes found (a re-check can only lower a "stable" to "undecided" or "unstable"). Every round of every task
and level sharing an action-count shape is **one** call of the batched integrator
(:func:`.dynamics.integrate_ftrl`). The objective is the peak outside mass :math:`\\max_{t\\le T}D_S`; the
peak distance to the span (:func:`span_distance`) is recorded alongside.

**Labels** (:class:`StabilityRule`), from the curve :math:`\\varepsilon(d)` and the final ratios
:math:`D_S(x(T))/d` of every start (d its level):

- *unstable*: :math:`\\varepsilon(d)\\ge` ``eps_unstable`` at every level (bounded away from 0);
- *stable* (stable and attracting): :math:`\\varepsilon(d_{\\min})\\le` ``eps_stable``, the next level
  already below ``eps_unstable``, the curve still falling at the small end (log-log slope between the
  two smallest levels >= ``min_slope``), and every start's final ratio <= ``attract_ratio``;
- *undecided* otherwise (a third label, never folded into "stable").
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from .dynamics import OutsideMassMonitor, check_regulariser, integrate_ftrl, scores_from_strategies
from .games import NormalFormGame, joint_distribution
from .preference import boxes, outside_mask

LABELS: tuple[str, ...] = ("stable", "unstable", "undecided")
#: lowest per-action log10-weight of a push direction (and of a seed's unused masses)
KAPPA_FLOOR = -290.0
#: the start designs of :class:`SearchSettings`: the search, or the one-coordinate vertex-exit protocol alone
PROBES: tuple[str, ...] = ("search", "exits")
#: the two-move seeds' tunings span log-ratios of the two masses in [1/PAIR_RATIO_SPAN, PAIR_RATIO_SPAN]
PAIR_RATIO_SPAN = 16.0


# -- rule -----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class StabilityRule:
    """Thresholds of the labels (see the module docstring)."""

    eps_unstable: float = 0.05
    eps_stable: float = 1e-3
    min_slope: float = 0.1
    attract_ratio: float = 1e-2

    def label(self, levels: np.ndarray, eps: np.ndarray, final_ratio: float) -> str:
        order = np.argsort(levels)[::-1]                       # largest d first
        d, e = np.asarray(levels, float)[order], np.maximum(np.asarray(eps, float)[order], 1e-300)
        if np.all(e >= self.eps_unstable):
            return "unstable"
        slope = curve_slope(d, e)
        if (e[-1] <= self.eps_stable and e[-2] < self.eps_unstable and slope >= self.min_slope
                and final_ratio <= self.attract_ratio):
            return "stable"
        return "undecided"


def curve_slope(levels: np.ndarray, eps: np.ndarray) -> float:
    """Log-log slope of :math:`\\varepsilon(d)` between the two smallest levels (1: proportional, 0: flat)."""
    order = np.argsort(levels)
    d, e = np.asarray(levels, float)[order], np.maximum(np.asarray(eps, float)[order], 1e-300)
    if len(d) < 2:
        return float("nan")
    return float(np.log(e[1] / e[0]) / np.log(d[1] / d[0]))


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """Sizes of the adversarial search (one instance per study; the chapter's config fills it)."""

    levels: tuple[float, ...] = (1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14)
    horizon: float = 200.0
    n_random: int = 64
    n_rounds: int = 3
    n_elite: int = 4
    n_children: int = 8
    log_span: float = 12.0
    sigma: float = 2.0
    pair_ratios: int = 9
    pair_random: int = 1
    recheck: bool = True
    #: "search" (the adversarial search above) or "exits": the one-coordinate protocol run through the same
    #: machinery and labels (every vertex-exit move of S only; no random restarts, pairs, rounds or re-check), the
    #: nearest trivial method of the chapter's rules (CLAIMS.md rule 11)
    probes: str = "search"
    rtol: float = 1e-7
    atol: float = 1e-9

    def __post_init__(self) -> None:
        lv = np.asarray(self.levels, float)
        if lv.ndim != 1 or len(lv) < 2 or np.any(~(lv > 0)) or np.any(lv >= 1) or len(set(lv.tolist())) != len(lv):
            raise ValueError(f"levels={self.levels!r} must be at least two distinct numbers in (0, 1)")
        if not self.horizon > 0:
            raise ValueError(f"horizon={self.horizon!r} must be > 0")
        for name in ("n_random", "n_elite", "n_children"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name}={getattr(self, name)!r} must be >= 1")
        if int(self.n_rounds) < 0:
            raise ValueError(f"n_rounds={self.n_rounds!r} must be >= 0")
        if self.probes not in PROBES:
            raise ValueError(f"probes={self.probes!r} is not allowed; allowed values: {', '.join(PROBES)}")
        for name in ("pair_ratios", "pair_random"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"{name}={getattr(self, name)!r} must be >= 0")
        if not self.log_span >= 10:
            raise ValueError(f"log_span={self.log_span!r} must be >= 10 decades (exits that grow at different "
                             "rates need scales that far apart)")

    def starts_per_level(self, n_exits: int = 0, n_pairs: int = 0) -> int:
        """Starts per level for a set with ``n_exits`` vertex-exit moves and ``n_pairs`` vertex move pairs
        (:func:`vertex_move_pairs`): every exit and every pair is enumerated."""
        return (self.n_random + n_exits + n_pairs * (self.pair_ratios + self.pair_random)
                + self.n_rounds * (self.n_elite * self.n_children + 2 * (len(self.levels) - 1)))

    def starts_per_set(self, n_exits: int = 0, n_pairs: int = 0) -> int:
        return self.starts_per_level(n_exits, n_pairs) * len(self.levels)


@dataclasses.dataclass
class StabilityTask:
    """One (game, set) pair to test; ``label`` is free text carried to the results."""

    game: NormalFormGame
    S: frozenset
    label: str = ""


@dataclasses.dataclass
class SearchResult:
    """What the search found for one task.

    Attributes
    ----------
    levels : (K,) start distances d (initial outside mass)
    eps : (K,) :math:`\\varepsilon(d)`, the largest peak outside mass found at each level
    eps_dist : (K,) the largest peak distance to the span (:func:`span_distance`) at each level
    random_eps : (K,) the same maximum over the random restarts only (what sampling alone finds)
    final_ratio : largest :math:`D_S(T)/D_S(0)` over all starts;  worst_x0 : (K, D) the worst start per level
    worst_scales : (K, N) its per-player masses :math:`m_i`;  n_starts : starts integrated for this task
    label : "stable", "unstable" or "undecided"
    """

    task: StabilityTask
    regulariser: str
    horizon: float
    levels: np.ndarray
    eps: np.ndarray
    eps_dist: np.ndarray
    random_eps: np.ndarray
    final_ratio: float
    worst_x0: np.ndarray
    worst_scales: np.ndarray
    worst_time: np.ndarray
    n_starts: int
    label: str
    final_zero: float = 0.0
    #: the label before the re-check of "stable" labels, and whether this set was re-checked
    first_label: str = ""
    rechecked: bool = False

    @property
    def slope(self) -> float:
        return curve_slope(self.levels, self.eps)

    @property
    def stable(self) -> bool:
        return self.label == "stable"

    @property
    def unstable(self) -> bool:
        return self.label == "unstable"


# -- geometry -------------------------------------------------------------------------------------
def box_masks(game: NormalFormGame, S) -> np.ndarray:
    """(K, D) indicators of the actions *outside* each maximal box :math:`B\\subseteq S` (column layout of x)."""
    out = []
    for bx in boxes(game, S, maximal=True):
        m = np.ones(game.dim)
        for i, f in enumerate(bx):
            m[game.offsets[i] + np.array(f)] = 0.0
        out.append(m)
    return np.array(out)


def span_distance(x: np.ndarray, masks: np.ndarray, offsets: Sequence[int]) -> np.ndarray:
    """Distance of ``x`` (B, D) to the span: :math:`\\min_B\\max_i x_i(A_i\\setminus B_i)`.

    ``masks`` (K, D) or (B, K, D) from :func:`box_masks`. The mass a player must move to reach the
    face of :math:`B` is :math:`x_i(A_i\\setminus B_i)` (half the l1 distance); the face is reached
    when every player has moved it.
    """
    x = np.atleast_2d(x)
    M = masks if masks.ndim == 3 else masks[None]
    prod = x[:, None, :] * M                                   # (B, K, D)
    per = np.stack([prod[..., offsets[i]:offsets[i + 1]].sum(-1) for i in range(len(offsets) - 1)], -1)
    return per.max(-1).min(-1)


class SpanDistanceMonitor:
    """Running maximum of :func:`span_distance` along every row's trajectory (rows may have their own set)."""

    def __init__(self, masks: np.ndarray, offsets: Sequence[int], n_rows: int):
        self.masks = masks
        self.offsets = list(offsets)
        self.max = np.zeros(n_rows)

    def update(self, t, blocks, rows=slice(None), first: bool = False) -> None:
        x = np.concatenate(blocks, axis=1)
        d = span_distance(x, self.masks[rows], self.offsets)
        self.max[rows] = np.maximum(self.max[rows], d)


# -- starts ---------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Starts:
    """Parameters of a batch of starts of one task (rows = starts)."""

    base: np.ndarray       # (M, D) base point on a face of the span
    lam: np.ndarray        # (M, N) per-player log10-scales (before the shift)
    kappa: np.ndarray      # (M, D) per-action log10-weights of the push direction
    level: np.ndarray      # (M,) index of the level d

    def take(self, idx) -> "_Starts":
        return _Starts(self.base[idx], self.lam[idx], self.kappa[idx], self.level[idx])

    @staticmethod
    def concat(parts: list["_Starts"]) -> "_Starts":
        return _Starts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("base", "lam", "kappa", "level")))


def _random_starts(game: NormalFormGame, S, n: int, n_levels: int, log_span: float,
                   rng: np.random.Generator) -> _Starts:
    bxs = boxes(game, S, maximal=True)
    M = n * n_levels
    base = np.zeros((M, game.dim))
    for r in range(M):
        bx = bxs[rng.integers(len(bxs))]
        pure = rng.random() < 0.5                  # half the bases are vertices of the span
        for i, f in enumerate(bx):
            f = np.array(f)
            if pure or rng.random() < 0.5:
                base[r, game.offsets[i] + f[rng.integers(len(f))]] = 1.0
            else:
                base[r, game.offsets[i] + f] = rng.dirichlet(np.ones(len(f)))
    lam = rng.uniform(-log_span, 0.0, size=(M, game.n_players))
    kappa = rng.uniform(-log_span, 0.0, size=(M, game.dim))
    # half the restarts are sparse: a few players push, each towards one action, every other mass at the floor
    # (an exit that competes with a faster move needs the other masses far below it)
    for r in np.nonzero(rng.random(M) < 0.5)[0]:
        k = int(rng.integers(1, min(game.n_players, 3) + 1))
        pushed = rng.choice(game.n_players, size=k, replace=False)
        keep = np.full(game.n_players, False)
        keep[pushed] = True
        lam[r, ~keep] = KAPPA_FLOOR
        for i in pushed:
            sl = slice(game.offsets[i], game.offsets[i + 1])
            kappa[r, sl] = KAPPA_FLOOR
            kappa[r, game.offsets[i] + rng.integers(game.shape[i])] = 0.0
    level = np.repeat(np.arange(n_levels), n)
    return _Starts(base, lam, kappa, level)


def vertex_exits(game: NormalFormGame, S) -> list[tuple]:
    """Every unilateral move out of S from a vertex of S: (alpha, i, b) with alpha in S and
    (b; alpha_{-i}) not in S."""
    return [(alpha, i, b) for alpha in sorted(S) for i, n in enumerate(game.shape) for b in range(n)
            if b != alpha[i] and alpha[:i] + (b,) + alpha[i + 1:] not in S]


def _exit_seeds(game: NormalFormGame, S, n_levels: int) -> _Starts | None:
    """Vertex-exit starts (a vertex of S, one player's mass moved to one action that leaves S, every other
    mass KAPPA_FLOOR decades lower), **every** such move at every level: the one-coordinate probes, as seeds."""
    moves = vertex_exits(game, S)
    if not moves:
        return None
    base = np.stack([game.vertex(a) for a, _, _ in moves])
    lam = np.full((len(moves), game.n_players), KAPPA_FLOOR)
    kappa = np.full((len(moves), game.dim), KAPPA_FLOOR)
    for r, (_, i, b) in enumerate(moves):
        lam[r, i] = 0.0
        kappa[r, game.offsets[i] + b] = 0.0
    rep = lambda a: np.tile(a, (n_levels,) + (1,) * (a.ndim - 1))   # noqa: E731
    return _Starts(rep(base), rep(lam), rep(kappa), np.repeat(np.arange(n_levels), len(moves)))


def vertex_move_pairs(game: NormalFormGame, S) -> list[tuple]:
    """Every pair of unilateral moves of two distinct players from every vertex of ``S``: (alpha, i, b, j, c)
    with alpha in S, i < j, b != alpha_i, c != alpha_j (chosen without looking at payoffs)."""
    return [(alpha, i, b, j, c) for alpha in sorted(S)
            for i in range(game.n_players) for b in range(game.shape[i]) if b != alpha[i]
            for j in range(i + 1, game.n_players) for c in range(game.shape[j]) if c != alpha[j]]


def pair_ratio_grid(n: int, span: float = PAIR_RATIO_SPAN) -> np.ndarray:
    """``n`` ratios :math:`r=\\log\\delta_i/\\log\\delta_j`, log-spaced over ``[1/span, span]`` (``n == 1``: r = 1)."""
    if n < 1:
        raise ValueError(f"n={n!r} must be >= 1")
    return np.array([1.0]) if n == 1 else np.exp(np.linspace(-np.log(span), np.log(span), n))


def _pair_seeds(game: NormalFormGame, S, n_ratios: int, levels: np.ndarray, n_random: int = 0, log_span: float = 12.0,
                rng: np.random.Generator | None = None) -> _Starts | None:
    """Two-move starts, **enumerated**: every pair of unilateral moves of distinct players from every vertex of
    S (:func:`vertex_move_pairs`, chosen without looking at payoffs), at every level, each at ``n_ratios``
    tunings of the two masses. A split corner needs the two masses tuned so that they reach order one
    together, :math:`\\log\\delta_i/\\log\\delta_j=g_i/g_j` (g the two gains); the tunings are the
    ratios :math:`r` of :func:`pair_ratio_grid`, placed so that :math:`\\delta_i\\delta_j\\approx d` at the
    level's d (:math:`\\log\\delta_i=r\\log d/(1+r)`, the common shift then hits d exactly); the evolution
    strategy refines the best. Every other mass at the floor. Built as one array (pairs x ratios x levels).
    With ``n_random`` > 0 every pair also gets that many starts per level at two independent random scales
    (uniform over ``log_span`` decades, then the common shift): the seeds of the earlier, sampled design, now for
    every pair, so that this enumeration contains whatever that design could draw."""
    pairs = vertex_move_pairs(game, S)
    if not pairs or n_ratios + n_random <= 0:
        return None
    ratios = pair_ratio_grid(n_ratios) if n_ratios > 0 else np.zeros(0)
    P, R, K = len(pairs), len(ratios) + n_random, len(levels)
    L = np.log10(np.asarray(levels, float))
    I = np.array([p[1] for p in pairs])
    J = np.array([p[3] for p in pairs])
    base = np.stack([game.vertex(p[0]) for p in pairs])                           # (P, D)
    kappa = np.full((P, game.dim), KAPPA_FLOOR)
    rows = np.arange(P)
    kappa[rows, np.asarray(game.offsets)[I] + np.array([p[2] for p in pairs])] = 0.0
    kappa[rows, np.asarray(game.offsets)[J] + np.array([p[4] for p in pairs])] = 0.0
    lam = np.full((K, P, R, game.n_players), KAPPA_FLOOR)
    li = np.broadcast_to(L[:, None, None] * (ratios / (1.0 + ratios))[None, None, :], (K, P, len(ratios)))
    lj = np.broadcast_to(L[:, None, None] * (1.0 / (1.0 + ratios))[None, None, :], (K, P, len(ratios)))
    if n_random:
        if rng is None:
            raise ValueError("n_random > 0 needs rng")
        draw = rng.uniform(-log_span, 0.0, size=(2, K, P, n_random))
        li, lj = np.concatenate([li, draw[0]], -1), np.concatenate([lj, draw[1]], -1)
    lam[:, rows, :, I] = li.transpose(1, 0, 2)                                    # advanced indices first: (P, K, R)
    lam[:, rows, :, J] = lj.transpose(1, 0, 2)
    return _Starts(np.tile(np.repeat(base, R, 0), (K, 1)), lam.reshape(-1, game.n_players),
                   np.tile(np.repeat(kappa, R, 0), (K, 1)), np.repeat(np.arange(K), P * R))


def _strategies(game: NormalFormGame, st: _Starts, shift: np.ndarray) -> np.ndarray:
    off = game.offsets
    x = np.empty_like(st.base)
    for i in range(game.n_players):
        sl = slice(off[i], off[i + 1])
        w = 10.0 ** (st.kappa[:, sl] - st.kappa[:, sl].max(-1, keepdims=True))
        q = w / w.sum(-1, keepdims=True)
        m = np.minimum(10.0 ** (st.lam[:, i] + shift), 0.5)[:, None]
        x[:, sl] = (1.0 - m) * st.base[:, sl] + m * q
    return x


def place_starts(game: NormalFormGame, S, st: _Starts, levels: np.ndarray, n_bisect: int = 60) -> np.ndarray:
    """Solve the common shift so that every start's outside mass equals its level; returns x0 (M, D)."""
    return _place(game, S, st, levels, n_bisect)[0]


def _place(game: NormalFormGame, S, st: _Starts, levels: np.ndarray, n_bisect: int = 60):
    """:func:`place_starts` returning (x0, shift)."""
    mask = outside_mask(game, S).astype(float)
    target = np.log(np.asarray(levels, float)[st.level])
    hi = np.log10(0.5) - st.lam.max(-1)                        # largest shift: the biggest push is 1/2
    lo = hi - 60.0

    def logD(shift):
        D = game.joint(_strategies(game, st, shift)) @ mask
        return np.log(np.maximum(D, 1e-320))

    at_hi = logD(hi)
    reach = at_hi >= target
    for _ in range(n_bisect):
        mid = 0.5 * (lo + hi)
        up = logD(mid) >= target
        hi = np.where(reach & up, mid, hi)
        lo = np.where(reach & ~up, mid, lo)
    return _strategies(game, st, hi), hi


# -- the search -----------------------------------------------------------------------------------
EUCLID_CUTOFF = 1e-12


def start_scores(x: np.ndarray, offsets: Sequence[int], regulariser: str) -> np.ndarray:
    r"""Scores of the starts. Entropic: :math:`y=\log x` (exact to :math:`10^{-300}`). Euclidean: the
    projection cannot hold masses below round-off, so a mass :math:`m<10^{-12}` becomes an action
    :math:`\log(10^{-12}/m)` score units **below** the projection's threshold (mass 0 now; it takes that
    depth divided by its payoff advantage to enter), the analogue of the entropic depth
    :math:`\log(1/m)`; larger masses are kept as they are."""
    if regulariser == "entropic":
        return scores_from_strategies(x, offsets, "entropic", floor=1e-300)
    x = np.maximum(np.asarray(x, float), 1e-300)
    return np.where(x >= EUCLID_CUTOFF, x, np.log(x / EUCLID_CUTOFF))


def _integrate(tasks_rows, regulariser: str, settings: SearchSettings):
    """Integrate a list of (task, x0) row blocks sharing one shape; returns per-block monitors' arrays."""
    x_all = np.concatenate([x0 for _, x0 in tasks_rows])
    game0 = tasks_rows[0][0].game
    P = np.concatenate([np.broadcast_to(t.game.payoffs, (len(x0), *t.game.payoffs.shape)) for t, x0 in tasks_rows])
    masks = np.concatenate([np.broadcast_to(outside_mask(t.game, t.S), (len(x0), t.game.n_profiles))
                            for t, x0 in tasks_rows])
    bm = [box_masks(t.game, t.S) for t, _ in tasks_rows]
    kmax = max(len(b) for b in bm)
    bpad = np.concatenate([np.broadcast_to(np.concatenate([b, np.repeat(b[:1], kmax - len(b), 0)]),
                                           (len(x0), kmax, game0.dim)) for b, (_, x0) in zip(bm, tasks_rows)])
    mon = OutsideMassMonitor(masks, len(x_all))
    dmon = SpanDistanceMonitor(bpad, game0.offsets, len(x_all))
    Y0 = start_scores(x_all, game0.offsets, regulariser)
    integrate_ftrl(P, Y0, float(settings.horizon), regulariser, batched=True, monitors=[mon, dmon],
                   rtol=settings.rtol, atol=settings.atol)
    out, lo = [], 0
    for _, x0 in tasks_rows:
        sl = slice(lo, lo + len(x0))
        out.append(dict(peak=mon.max[sl].copy(), peak_t=mon.argmax_t[sl].copy(), initial=mon.initial[sl].copy(),
                        last=mon.last[sl].copy(), dist=dmon.max[sl].copy()))
        lo += len(x0)
    return out


def search_stability(tasks: Sequence[StabilityTask], regulariser: str, settings: SearchSettings,
                     rng: np.random.Generator, rule: StabilityRule = StabilityRule(),
                     chunk_rows: int = 6000) -> list[SearchResult]:
    """Adversarial search for the largest excursion from the span of every task's set (see the module docstring).

    Tasks whose games share an action-count shape are integrated together, one batch per round.
    Returns one :class:`SearchResult` per task, in order.
    """
    check_regulariser(regulariser)
    levels = np.asarray(settings.levels, float)
    K = len(levels)
    results: list[SearchResult | None] = [None] * len(tasks)
    # per task: all evaluated starts so far
    params: dict[int, _Starts] = {}
    evals: dict[int, dict] = {}
    x0s: dict[int, np.ndarray] = {}
    live = []
    for k, task in enumerate(tasks):
        S = task.game.check_set(task.S)
        if len(S) == task.game.n_profiles:      # S = A: nothing outside, the span is the whole space
            results[k] = SearchResult(task, regulariser, settings.horizon, levels, np.zeros(K), np.zeros(K),
                                      np.zeros(K), 0.0, np.zeros((K, task.game.dim)),
                                      np.zeros((K, task.game.n_players)), np.zeros(K), 0, "stable", 1.0, "stable")
            continue
        live.append(k)

    def run_round(new: dict[int, _Starts]) -> None:
        by_shape: dict[tuple, list[int]] = {}
        for k in new:
            by_shape.setdefault(tasks[k].game.shape, []).append(k)
        for shape, ks in by_shape.items():
            placed, shifts = {}, {}
            for k in ks:
                placed[k], shifts[k] = _place(tasks[k].game, tasks[k].S, new[k], levels)
            # integrate in chunks of whole tasks
            group, rows = [], 0
            groups = []
            for k in ks:
                group.append(k)
                rows += len(placed[k])
                if rows >= chunk_rows:
                    groups.append(group)
                    group, rows = [], 0
            if group:
                groups.append(group)
            for grp in groups:
                res = _integrate([(tasks[k], placed[k]) for k in grp], regulariser, settings)
                for k, r in zip(grp, res):
                    r["shift"] = shifts[k]
                    if k in params:
                        params[k] = _Starts.concat([params[k], new[k]])
                        x0s[k] = np.concatenate([x0s[k], placed[k]])
                        evals[k] = {f: np.concatenate([evals[k][f], r[f]]) for f in r}
                    else:
                        params[k], x0s[k], evals[k] = new[k], placed[k], r

    def evolve(ks: list[int], n_rounds: int) -> None:
        for rnd in range(n_rounds):
            sigma = settings.sigma * 0.5 ** rnd
            new = {}
            for k in ks:
                st, ev = params[k], evals[k]
                kids = []
                score = np.log(np.maximum(ev["peak"], 1e-320)) + 1e-3 * np.log(np.maximum(ev["dist"], 1e-320))
                best_of = [np.nonzero(st.level == j)[0][np.argmax(score[st.level == j])] for j in range(K)]
                for j in range(K):
                    idx = np.nonzero(st.level == j)[0]
                    elite = idx[np.argsort(-score[idx])[:settings.n_elite]]
                    par = st.take(np.repeat(elite, settings.n_children))
                    lam = par.lam + sigma * rng.standard_normal(par.lam.shape)
                    kap = np.clip(par.kappa + sigma * rng.standard_normal(par.kappa.shape), KAPPA_FLOOR, 0.0)
                    kids.append(_Starts(par.base, np.clip(lam, KAPPA_FLOOR, 0.0), kap, par.level))
                    # the best start of every other level, moved to this level: once as it is (the shift is
                    # solved again), once with its log-masses scaled by log d_j / log D_S(x0) (a tuning delta_a =
                    # delta_b^r, as in a split corner, is a power law and survives this scaling)
                    other = [best_of[i] for i in range(K) if i != j]
                    if other:
                        o = np.array(other)
                        moved = st.take(o)
                        kids.append(_Starts(moved.base, moved.lam, moved.kappa, np.full(len(o), j)))
                        mu = np.minimum(moved.lam + ev["shift"][o][:, None], np.log10(0.5))
                        ratio = (np.log10(levels[j]) / np.log10(np.clip(ev["initial"][o], 1e-300, 0.5)))[:, None]
                        lam_s = np.where(moved.lam > KAPPA_FLOOR + 1, np.clip(mu * ratio, KAPPA_FLOOR, 0.0),
                                         KAPPA_FLOOR)
                        kids.append(_Starts(moved.base, lam_s, moved.kappa, np.full(len(o), j)))
                new[k] = _Starts.concat(kids)
            run_round(new)

    def label_of(k: int) -> str:
        st, ev = params[k], evals[k]
        eps = np.array([ev["peak"][st.level == j].max() for j in range(K)])
        return rule.label(levels, eps, float(np.max(ev["last"] / levels[st.level])))

    exits_only = settings.probes == "exits"
    first = {}
    for k in live:
        S = frozenset(tasks[k].S)
        parts = [] if exits_only else [_random_starts(tasks[k].game, S, settings.n_random, K, settings.log_span, rng)]
        for seeds in (_exit_seeds(tasks[k].game, S, K),
                      None if exits_only else _pair_seeds(tasks[k].game, S, settings.pair_ratios, levels,
                                                          settings.pair_random, settings.log_span, rng)):
            if seeds is not None:
                parts.append(seeds)
        first[k] = _Starts.concat(parts)
    run_round(first)
    n_rand = {k: len(params[k].level) for k in live}
    evolve(live, 0 if exits_only else settings.n_rounds)
    # re-check every "stable" label (issue 28 §2): a second, independent pass over those sets only (fresh random
    # restarts, the evolution strategy restarted at full step); the label is decided on everything both passes found
    first_label = {k: label_of(k) for k in live}
    again = [k for k in live if first_label[k] == "stable"] if settings.recheck and not exits_only else []
    if again:
        run_round({k: _random_starts(tasks[k].game, tasks[k].S, settings.n_random, K, settings.log_span, rng)
                   for k in again})
        evolve(again, max(1, settings.n_rounds))
    for k in live:
        st, ev = params[k], evals[k]
        eps, eps_d, reps, wt = np.zeros(K), np.zeros(K), np.zeros(K), np.zeros(K)
        wx = np.zeros((K, tasks[k].game.dim))
        ws = np.zeros((K, tasks[k].game.n_players))
        for j in range(K):
            idx = np.nonzero(st.level == j)[0]
            best = idx[np.argmax(ev["peak"][idx])]
            eps[j] = ev["peak"][best]
            eps_d[j] = ev["dist"][idx].max()
            ridx = idx[idx < n_rand[k]]
            reps[j] = ev["peak"][ridx].max()
            wx[j] = x0s[k][best]
            wt[j] = ev["peak_t"][best]
            g = tasks[k].game
            ws[j] = [1.0 - x0s[k][best, g.offsets[i]:g.offsets[i + 1]][st.base[best, g.offsets[i]:g.offsets[i + 1]] > 0].sum()
                     if (st.base[best, g.offsets[i]:g.offsets[i + 1]] > 0).any() else 1.0 for i in range(g.n_players)]
        fin = float(np.max(ev["last"] / levels[st.level]))
        label = rule.label(levels, eps, fin)
        results[k] = SearchResult(tasks[k], regulariser, settings.horizon, levels, eps, eps_d, reps, fin, wx, ws, wt,
                                  len(st.level), label, float(np.mean(ev["last"] == 0.0)),
                                  first_label=first_label[k], rechecked=k in again)
    return results


def search_one(game: NormalFormGame, S, regulariser: str = "entropic", settings: SearchSettings = SearchSettings(),
               seed: int = 0, rule: StabilityRule = StabilityRule()) -> SearchResult:
    """:func:`search_stability` for one set, with its own seeded generator."""
    return search_stability([StabilityTask(game, frozenset(S))], regulariser, settings,
                            np.random.default_rng(seed), rule)[0]


def sampled_protocol(game: NormalFormGame, S, levels: Sequence[float], horizon: float,
                     regulariser: str = "entropic", rtol: float = 1e-7) -> np.ndarray:
    """The excursion found by perturbing **one coordinate** at a time (every vertex of S, every exit
    action moved to mass d): the sampling protocol the search replaces. Returns (K,) maxima.

    Kept to show, side by side with the search, what one-exit starts cannot see.
    """
    S = game.check_set(S)
    levels = np.asarray(levels, float)
    rows, lv = [], []
    for alpha in sorted(S):
        for i, n in enumerate(game.shape):
            for b in range(n):
                beta = alpha[:i] + (b,) + alpha[i + 1:]
                if b == alpha[i] or beta in S:
                    continue
                for j, d in enumerate(levels):
                    x = game.vertex(alpha)
                    blk = slice(game.offsets[i], game.offsets[i + 1])
                    x[blk] *= 1.0 - d
                    x[game.offsets[i] + b] += d
                    rows.append(x)
                    lv.append(j)
    if not rows:
        return np.zeros(len(levels))
    X0 = np.array(rows)
    mon = OutsideMassMonitor(outside_mask(game, S), len(X0))
    integrate_ftrl(game.payoffs, scores_from_strategies(X0, game.offsets, regulariser, far=1e3), float(horizon),
                   regulariser, monitors=[mon], rtol=rtol, atol=rtol * 1e-2)
    lv = np.array(lv)
    return np.array([mon.max[lv == j].max() for j in range(len(levels))])


__all__ = ["LABELS", "PROBES", "SearchResult", "SearchSettings", "SpanDistanceMonitor", "StabilityRule", "StabilityTask",
           "box_masks", "curve_slope", "joint_distribution", "pair_ratio_grid", "place_starts", "sampled_protocol",
           "search_one", "search_stability", "span_distance", "vertex_exits", "vertex_move_pairs"]
