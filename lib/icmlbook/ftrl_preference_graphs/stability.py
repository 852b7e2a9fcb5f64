"""Stability of the span of a set of pure profiles, measured by perturbation.

For a set :math:`S` we start FTRL a distance :math:`\\delta` away from :math:`\\mathrm{span}(S)`
(:math:`\\delta` of one player's mass moved onto an *exit* action), for a sweep of :math:`\\delta`
down to :math:`10^{-10}` or smaller, and record along each trajectory the outside mass
:math:`D_S(x(t))`:

- the **excursion** :math:`E(\\delta)=\\max_{\\text{starts}}\\max_{t\\le T}D_S(x(t))`;
- the **final ratio** :math:`F(\\delta)=\\max_{\\text{starts}}D_S(x(T))/D_S(x(0))`.

The decision rule (stated in the chapter):

- *unstable* if :math:`E(\\delta_{\\min})>` ``eps_excursion`` **and** the excursion has stopped
  shrinking with :math:`\\delta`: its log-log slope between the two smallest :math:`\\delta`,
  :math:`p=\\log(E(\\delta_{K-1})/E(\\delta_K))/\\log(\\delta_{K-1}/\\delta_K)`, is below
  ``min_decay_exponent`` (Lyapunov stability fails: :math:`E` does not go to 0 with :math:`\\delta`;
  a set whose excursions shrink like a small power :math:`\\delta^p` is stable, if weakly so);
- *attracting* if :math:`F(\\delta)\\le` ``attract_ratio`` for every :math:`\\delta` of the sweep;
- *asymptotically stable* = not unstable and attracting.

Starts (all repeated for every :math:`\\delta`, so the excursion curves compare like with like):

- *vertex-exit starts*: a vertex :math:`e_\\alpha`, :math:`\\alpha\\in S`, with mass :math:`\\delta` moved to
  an action :math:`b_i` such that :math:`(b_i;\\alpha_{-i})\\notin S` (this probes every profitable
  arc out of :math:`S`);
- *face starts*: a random point of a random face :math:`\\prod_i\\Delta(B_i)\\subseteq\\mathrm{span}(S)`
  with mass :math:`\\delta` moved to one of the box's exit actions;
- *generic starts*: :math:`(1-\\delta)p+\\delta q` with :math:`p` a random face point and :math:`q` a
  random interior profile (every action gets mass).

With the entropic regulariser the actions a start does not use get mass :math:`10^{-300}` (the start
must be interior; such an action needs hundreds of time units to matter); with the Euclidean one
they get mass 0 and a score 1000 below the projection's threshold (the same effect).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from .dynamics import OutsideMassMonitor, check_regulariser, integrate_ftrl, scores_from_strategies
from .games import NormalFormGame
from .preference import boxes, outside_mask, preferential_margin


@dataclasses.dataclass(frozen=True)
class StabilityRule:
    """Thresholds of the empirical stability rule (see the module docstring)."""

    eps_excursion: float = 1e-3
    min_decay_exponent: float = 0.1
    attract_ratio: float = 1e-2

    def is_unstable(self, deltas: np.ndarray, excursion: np.ndarray) -> bool:
        """The rule's instability verdict from an excursion curve :math:`E(\\delta)`."""
        order = np.argsort(deltas)[::-1]                 # largest delta first
        d, e = np.asarray(deltas)[order], np.asarray(excursion)[order]
        if e[-1] <= self.eps_excursion:
            return False
        return bool(decay_exponent(d, e) < self.min_decay_exponent)


def decay_exponent(deltas: np.ndarray, excursion: np.ndarray) -> float:
    """Log-log slope of the excursion between the two smallest deltas (1 = proportional, 0 = flat)."""
    order = np.argsort(deltas)
    d, e = np.asarray(deltas, dtype=float)[order], np.asarray(excursion, dtype=float)[order]
    e = np.maximum(e, 1e-300)
    return float(np.log(e[1] / e[0]) / np.log(d[1] / d[0]))


@dataclasses.dataclass
class StabilityTask:
    """One (game, set) pair to test; ``label`` is free text carried to the results."""

    game: NormalFormGame
    S: frozenset
    label: str = ""


@dataclasses.dataclass
class StabilityResult:
    """Per-task results of a perturbation experiment.

    Attributes
    ----------
    deltas : (K,) the perturbation sizes
    excursion : (K,) :math:`E(\\delta)`;  final_ratio : (K,) :math:`F(\\delta)`
    escape_time : (K,) time of the largest excursion (the start that made it)
    all_hit_zero : (K,) every start ended with :math:`D_S` exactly 0
    zero_time : (K,) largest "last time with :math:`D_S>0`" over the starts (finite-time convergence)
    n_starts : number of starts per delta;  unstable / attracting / asymptotically_stable : verdicts
    decay : log-log slope of the excursion at the smallest deltas (see :func:`decay_exponent`)
    """

    task: StabilityTask
    regulariser: str
    deltas: np.ndarray
    excursion: np.ndarray
    final_ratio: np.ndarray
    escape_time: np.ndarray
    all_hit_zero: np.ndarray
    zero_time: np.ndarray
    n_starts: int
    unstable: bool
    attracting: bool

    @property
    def asymptotically_stable(self) -> bool:
        return (not self.unstable) and self.attracting

    @property
    def decay(self) -> float:
        return decay_exponent(self.deltas, self.excursion)

    @property
    def label(self) -> str:
        if self.unstable:
            return "unstable"
        return "asymptotically stable" if self.attracting else "stable, not attracting"


def exit_moves(game: NormalFormGame, S, box) -> list[tuple[int, int]]:
    """(player, action) pairs that leave ``S`` from the face of ``box``.

    Action :math:`b_i\\notin B_i` is an exit of the box :math:`B` when
    :math:`(b_i;\\beta_{-i})\\notin S` for some :math:`\\beta\\in B`.
    """
    S = frozenset(S)
    import itertools

    out = []
    for i, n in enumerate(game.shape):
        for b in range(n):
            if b in box[i]:
                continue
            for beta in itertools.product(*box):
                if beta[:i] + (b,) + beta[i + 1:] not in S:
                    out.append((i, b))
                    break
    return out


def perturbation_starts(game: NormalFormGame, S, deltas: Sequence[float], rng: np.random.Generator,
                        n_face: int = 4, max_vertex: int = 6,
                        n_generic: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mixed-profile starts near ``span(S)`` for every delta.

    Returns ``x0`` (K*M, D), ``delta_index`` (K*M,), ``start_index`` (K*M,) where M is the number of
    base starts (vertex-exit starts, at most ``max_vertex``; ``n_face`` face starts; ``n_generic``
    generic starts). Actions a start does not use have mass exactly 0 here.
    """
    S = game.check_set(S)
    deltas = np.asarray(deltas, dtype=float)
    if deltas.ndim != 1 or len(deltas) == 0 or np.any(~(deltas > 0)) or np.any(deltas >= 1):
        raise ValueError(f"deltas={deltas.tolist()} must be a non-empty list of numbers in (0, 1)")
    bases = []   # (x without perturbation (D,), player, action)
    vertex_moves = []
    for alpha in sorted(S):
        for i, n in enumerate(game.shape):
            for b in range(n):
                beta = alpha[:i] + (b,) + alpha[i + 1:]
                if b != alpha[i] and beta not in S:
                    vertex_moves.append((alpha, i, b))
    if len(vertex_moves) > max_vertex:
        pick = rng.choice(len(vertex_moves), size=max_vertex, replace=False)
        vertex_moves = [vertex_moves[k] for k in sorted(pick)]
    for alpha, i, b in vertex_moves:
        bases.append((game.vertex(alpha), i, b))
    all_boxes = [bx for bx in boxes(game, S) if exit_moves(game, S, bx)]
    for _ in range(n_face if all_boxes else 0):
        bx = all_boxes[rng.integers(len(all_boxes))]
        x = np.zeros(game.dim)
        for i, f in enumerate(bx):
            x[game.offsets[i] + np.array(f)] = rng.dirichlet(np.ones(len(f)))
        moves = exit_moves(game, S, bx)
        i, b = moves[rng.integers(len(moves))]
        bases.append((x, i, b))
    all_faces = boxes(game, S)
    for _ in range(n_generic if all_boxes else 0):
        bx = all_faces[rng.integers(len(all_faces))]
        x = np.zeros(game.dim)
        for i, f in enumerate(bx):
            x[game.offsets[i] + np.array(f)] = rng.dirichlet(np.ones(len(f)))
        q = np.concatenate([rng.dirichlet(np.ones(n)) for n in game.shape])
        bases.append((x, -1, q))
    M = len(bases)
    x0 = np.empty((len(deltas) * M, game.dim))
    for k, d in enumerate(deltas):
        for m, (x, i, b) in enumerate(bases):
            if i < 0:                      # generic start: mix the face point with an interior point
                x0[k * M + m] = (1.0 - d) * x + d * b
                continue
            row = x.copy()
            blk = slice(game.offsets[i], game.offsets[i + 1])
            row[blk] *= 1.0 - d
            row[game.offsets[i] + b] += d
            x0[k * M + m] = row
    delta_index = np.repeat(np.arange(len(deltas)), M)
    start_index = np.tile(np.arange(M), len(deltas))
    return x0, delta_index, start_index


def stability_experiment(tasks: Sequence[StabilityTask], regulariser: str, deltas: Sequence[float],
                         horizon: float, rng: np.random.Generator, *, n_face: int = 4, max_vertex: int = 6,
                         n_generic: int = 2, rule: StabilityRule = StabilityRule(), rtol: float = 1e-8,
                         atol: float = 1e-10, method: str = "rowwise", chunk: int = 20_000) -> list[StabilityResult]:
    """Run the perturbation protocol for many (game, set) tasks at once.

    All starts of all tasks whose games share an action-count shape are integrated as **one** batch
    (each row carries its own payoff tensor and its own outside mask).

    Returns one :class:`StabilityResult` per task, in the order given.
    """
    check_regulariser(regulariser)
    deltas = np.asarray(deltas, dtype=float)
    if not horizon > 0:
        raise ValueError(f"horizon={horizon!r} must be > 0")
    results: list[StabilityResult | None] = [None] * len(tasks)
    by_shape: dict[tuple, list[int]] = {}
    for k, task in enumerate(tasks):
        by_shape.setdefault(task.game.shape, []).append(k)
    per_task_starts = {}
    for k, task in enumerate(tasks):   # draw starts in task order (seeded, independent of grouping)
        per_task_starts[k] = perturbation_starts(task.game, task.S, deltas, rng, n_face, max_vertex, n_generic)
    for shape, ks in by_shape.items():
        x_rows, pay_rows, mask_rows, owner, d_idx = [], [], [], [], []
        for k in ks:
            x0, di, _ = per_task_starts[k]
            x_rows.append(x0)
            pay_rows.append(np.broadcast_to(tasks[k].game.payoffs, (len(x0), *tasks[k].game.payoffs.shape)))
            mask_rows.append(np.broadcast_to(outside_mask(tasks[k].game, tasks[k].S), (len(x0), tasks[k].game.n_profiles)))
            owner.append(np.full(len(x0), k))
            d_idx.append(di)
        X0 = np.concatenate(x_rows)
        if len(X0) == 0:
            continue
        offsets = tasks[ks[0]].game.offsets
        Y0 = scores_from_strategies(X0, offsets, regulariser, floor=1e-300, far=1e3)
        payoffs = np.concatenate(pay_rows)
        masks = np.concatenate(mask_rows)
        owner = np.concatenate(owner)
        d_idx = np.concatenate(d_idx)
        mon = OutsideMassMonitor(masks, len(X0))
        integrate_ftrl(payoffs, Y0, float(horizon), regulariser, batched=True, monitors=[mon], rtol=rtol,
                       atol=atol, method=method, chunk=chunk)
        for k in ks:
            rows = owner == k
            K = len(deltas)
            exc, fin, esc, zero, ztime = (np.zeros(K) for _ in range(5))
            for j in range(K):
                r = rows & (d_idx == j)
                if not r.any():
                    continue
                exc[j] = mon.max[r].max()
                esc[j] = mon.argmax_t[r][np.argmax(mon.max[r])]
                fin[j] = np.max(mon.last[r] / np.maximum(mon.initial[r], 1e-300))
                zero[j] = float(np.all(mon.last[r] == 0.0))
                ztime[j] = mon.last_positive_t[r].max()
            n_starts = int(rows.sum() // K)
            unstable = rule.is_unstable(deltas, exc)
            attracting = bool(np.all(fin <= rule.attract_ratio))
            results[k] = StabilityResult(task=tasks[k], regulariser=regulariser, deltas=deltas, excursion=exc,
                                         final_ratio=fin, escape_time=esc, all_hit_zero=zero.astype(bool),
                                         zero_time=ztime, n_starts=n_starts, unstable=unstable,
                                         attracting=attracting)
    for k, task in enumerate(tasks):
        if results[k] is None:   # a set with no exits (S = A): trivially stable
            K = len(deltas)
            results[k] = StabilityResult(task=task, regulariser=regulariser, deltas=deltas, excursion=np.zeros(K),
                                         final_ratio=np.zeros(K), escape_time=np.zeros(K),
                                         all_hit_zero=np.ones(K, bool), zero_time=np.zeros(K), n_starts=0,
                                         unstable=False, attracting=True)
    return results


def disagreement_cause(result: StabilityResult, horizon: float, predicted_stable: bool) -> str:
    """A short reason why a simulated label differs from the preferential prediction.

    Uses the game's numbers only to *explain* (never to decide) the label: the slowest profitable
    exit (escape needs about :math:`\\log(1/\\delta)/g` time units) or the smallest edge gap.
    """
    game, S = result.task.game, result.task.S
    margin = preferential_margin(game, S)
    d_min = float(result.deltas.min())
    if not predicted_stable:
        need = np.log(1.0 / d_min) / max(margin, 1e-300)
        if need > horizon:
            return (f"slow escape: the largest profitable exit gain is {margin:.3g}, escaping from "
                    f"delta={d_min:g} needs about {need:.0f} > T={horizon:g} time units")
        return f"unexplained: profitable exit gain {margin:.3g}, predicted escape time {need:.0f} <= T"
    if margin > -1e-9:
        return f"tie: an edge out of S has gain {margin:.2g} (not generic)"
    decay = -margin
    if result.final_ratio.max() > 1e-2 and np.exp(-decay * horizon) > 1e-2:
        return f"slow attraction: the smallest exit loss is {decay:.3g}, too small for T={horizon:g}"
    return f"unexplained: smallest exit loss {decay:.3g}"
