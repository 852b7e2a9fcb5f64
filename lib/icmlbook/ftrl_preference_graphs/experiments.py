"""One function per study of the chapter; each returns a dataclass of arrays and records.

Nothing here prints or plots. Random games come from :func:`icmlbook.runtime.rng` streams keyed by
(seed, study, shape), so the same seed gives the same games and the same numbers.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from icmlbook.runtime import progress, rng as rng_stream

from .config import PreferenceConfig
from .dynamics import (OutsideMassMonitor, VertexProximityMonitor, check_regulariser, discrete_ftrl,
                       integrate_rowwise, scores_from_strategies)
from .games import NormalFormGame, classic_game, CLASSIC_GAMES, leaky_game, leaky_set, random_game
from .leakless import cce_leak, pointwise_leak, sampled_leak, transverse_rates_many
from .preference import (arc_set, is_club, is_preferentially_stable, is_product, leaving_arcs, outside_mask,
                         preference_graph, preferential_margin, preferentially_stable_sets, product_sets,
                         sink_equilibria, strict_pure_nash)
from .stability import StabilityRule, StabilityTask, disagreement_cause, stability_experiment

STUDY_STREAMS = {"r1": 1, "r2": 2, "cx": 3, "leak": 4, "starts": 5}


def random_games(shapes: Sequence[tuple[int, ...]], n_per_shape: int, seed: int, study: str,
                 min_gap: float) -> list[NormalFormGame]:
    """``n_per_shape`` generic random games of every shape, from the (seed, study, shape) stream."""
    out = []
    for s, shape in enumerate(shapes):
        gen = rng_stream(seed, STUDY_STREAMS[study], s)
        for k in range(n_per_shape):
            out.append(random_game(shape, gen, min_gap=min_gap, name=f"{'x'.join(map(str, shape))} #{k}"))
    return out


# -- the classic games ----------------------------------------------------------------------------
@dataclasses.dataclass
class ClassicFacts:
    """Preference-graph facts of one classic game."""

    key: str
    game: NormalFormGame
    n_arcs: int
    sinks: list
    strict_nash: set
    ties: list


def classic_facts() -> list[ClassicFacts]:
    out = []
    for key in CLASSIC_GAMES:
        g = classic_game(key)
        pg = preference_graph(g)
        out.append(ClassicFacts(key, g, pg.number_of_edges(), sink_equilibria(pg), strict_pure_nash(g),
                                list(pg.graph["ties"])))
    g = leaky_game(5.0)
    pg = preference_graph(g)
    out.append(ClassicFacts("leaky", g, pg.number_of_edges(), sink_equilibria(pg), strict_pure_nash(g),
                            list(pg.graph["ties"])))
    return out


# -- claim 1: sinks vs strict Nash; claim 2: limit sets ----------------------------------------------
@dataclasses.dataclass
class LimitSetStudy:
    """Exponential weights from interior starts on random games (claims 1 and 2).

    Per game: ``shapes``, ``strict_nash`` (brute force), ``singleton_sinks`` and ``sinks`` (networkx),
    ``skeleton`` (union over starts of the pure profiles within ``cfg.r1_tol`` = 1e-6 of the
    trajectory in the last quarter of the run: vertices it converges to), ``skeleton_stable`` (is
    that union preferentially stable; vacuously true when empty), ``naive_skeleton`` /
    ``naive_stable`` (the dossier's version, tolerance 1e-3, which also catches vertices that a
    closed orbit merely passes near), ``clusters`` (distinct non-empty per-start skeletons),
    ``one_to_one`` (clusters == sink equilibria), ``empty_fraction``.
    """

    shapes: list
    strict_nash: list
    singleton_sinks: list
    sinks: list
    skeleton: list
    skeleton_stable: np.ndarray
    leaving: list
    clusters: list
    one_to_one: np.ndarray
    empty_fraction: np.ndarray
    naive_skeleton: list
    naive_stable: np.ndarray
    n_starts: int
    horizon: float
    tol: float

    @property
    def nash_match(self) -> np.ndarray:
        return np.array([a == b for a, b in zip(self.strict_nash, self.singleton_sinks)])


def limit_set_study(cfg: PreferenceConfig, seed: int) -> LimitSetStudy:
    """Run exponential weights (entropic FTRL, continuous time) from ``cfg.r1_starts`` Dirichlet(1)
    starts on ``cfg.r1_games`` random games of every shape in ``cfg.r1_shapes``."""
    games = random_games(cfg.r1_shapes, cfg.r1_games, seed, "r1", cfg.min_gap)
    skel_rows: dict[int, list] = {}
    naive_rows: dict[int, list] = {}
    gen = rng_stream(seed, STUDY_STREAMS["starts"], 1)
    for shape in progress(cfg.r1_shapes, desc="limit sets"):
        idx = [k for k, g in enumerate(games) if g.shape == shape]
        X0 = np.concatenate([np.stack([np.concatenate([gen.dirichlet(np.ones(n)) for n in shape])
                                       for _ in range(cfg.r1_starts)]) for _ in idx])
        P = np.concatenate([np.broadcast_to(games[k].payoffs, (cfg.r1_starts, *games[k].payoffs.shape)) for k in idx])
        T = cfg.r1_horizon
        mon = VertexProximityMonitor(shape, len(X0), [(T / 2, 3 * T / 4), (3 * T / 4, T)])
        integrate_rowwise(P, np.log(X0), T, "entropic", batched=True, monitors=[mon], rtol=1e-7, atol=1e-9)
        profs = games[idx[0]].profiles()
        mid, late = mon.min_dist
        naive = late <= cfg.r1_tol_dossier        # the dossier's tolerance (1e-3)
        approached = late <= cfg.r1_tol           # ours: a vertex the trajectory converges to (1e-6)
        del mid
        for n, k in enumerate(idx):
            sl = slice(n * cfg.r1_starts, (n + 1) * cfg.r1_starts)
            skel_rows[k] = [frozenset(p for p, hit in zip(profs, r) if hit) for r in approached[sl]]
            naive_rows[k] = [frozenset(p for p, hit in zip(profs, r) if hit) for r in naive[sl]]
    out = dict(shapes=[], strict_nash=[], singleton_sinks=[], sinks=[], skeleton=[], skeleton_stable=[], leaving=[],
               clusters=[], one_to_one=[], empty_fraction=[], naive_skeleton=[], naive_stable=[])
    for k, g in enumerate(games):
        sinks = sink_equilibria(g)
        per_start = skel_rows[k]
        union = frozenset().union(*per_start)
        clusters = sorted({s for s in per_start if s}, key=lambda s: (len(s), sorted(s)))
        out["shapes"].append(g.shape)
        out["strict_nash"].append(strict_pure_nash(g))
        out["singleton_sinks"].append({next(iter(c)) for c in sinks if len(c) == 1})
        out["sinks"].append(sinks)
        out["skeleton"].append(union)
        out["leaving"].append(leaving_arcs(g, union) if union else [])
        out["skeleton_stable"].append(is_preferentially_stable(g, union) if union else True)   # empty: vacuous
        naive = frozenset().union(*naive_rows[k])
        out["naive_skeleton"].append(naive)
        out["naive_stable"].append(is_preferentially_stable(g, naive) if naive else True)
        out["clusters"].append(clusters)
        out["one_to_one"].append(set(clusters) == set(sinks))
        out["empty_fraction"].append(float(np.mean([not s for s in per_start])))
    return LimitSetStudy(**{k: (np.array(v) if k in ("skeleton_stable", "one_to_one", "empty_fraction",
                                                     "naive_stable") else v)
                            for k, v in out.items()}, n_starts=cfg.r1_starts, horizon=cfg.r1_horizon, tol=cfg.r1_tol)


# -- claims 3 and 7: subgames ---------------------------------------------------------------------
@dataclasses.dataclass
class SubgameStudy:
    """Every product set of random games, perturbed from its span (claims 3 and 7).

    ``records``: one dict per (game, product set) with keys ``shape, game, factors, size,
    pref_stable, margin, label, stable (asymptotically), excursion (K,), final_ratio (K,),
    all_hit_zero (K,), zero_time (K,), club`` (None where the club test was not run).
    """

    regulariser: str
    deltas: np.ndarray
    horizon: float
    records: list
    disagreements: list

    @property
    def agreement(self) -> float:
        return float(np.mean([r["pref_stable"] == r["stable"] for r in self.records]))

    def agreement_by_shape(self) -> dict:
        out = {}
        for r in self.records:
            out.setdefault(r["shape"], []).append(r["pref_stable"] == r["stable"])
        return {s: (float(np.mean(v)), len(v)) for s, v in out.items()}

    @property
    def club_agreement(self) -> tuple[float, int]:
        pairs = [(r["club"], r["pref_stable"]) for r in self.records if r["club"] is not None]
        return (float(np.mean([a == b for a, b in pairs])) if pairs else float("nan"), len(pairs))


def subgame_study(cfg: PreferenceConfig, seed: int, regulariser: str = "entropic") -> SubgameStudy:
    """Perturb every proper product set of ``cfg.r2_games`` (or ``cfg.r2_games_euclidean``) random games
    per shape, with the chosen regulariser, and compare with preferential stability."""
    check_regulariser(regulariser)
    n_games = cfg.r2_games if regulariser == "entropic" else cfg.r2_games_euclidean
    games = random_games(cfg.r2_shapes, n_games, seed, "r2", cfg.min_gap)
    gen = rng_stream(seed, STUDY_STREAMS["starts"], 2 if regulariser == "entropic" else 3)
    tasks, meta = [], []
    for k, g in enumerate(games):
        for factors, S in product_sets(g):
            tasks.append(StabilityTask(g, S, label=g.name))
            meta.append((k, factors))
    results = []
    shapes = sorted({g.shape for g in games}, key=lambda s: (len(s), s))
    for shape in progress(shapes, desc=f"subgames ({regulariser})"):
        sub = [t for t in tasks if t.game.shape == shape]
        results.extend(stability_experiment(sub, regulariser, cfg.deltas, cfg.r2_horizon, gen, n_face=cfg.n_face,
                                            n_generic=cfg.n_generic, max_vertex=cfg.max_vertex,
                                            rtol=1e-8 if regulariser == "entropic" else 1e-6))
    by_task = {id(r.task): r for r in results}
    club_gen = rng_stream(seed, STUDY_STREAMS["starts"], 4)
    records, disagreements = [], []
    for task, (k, factors) in zip(tasks, meta):
        r = by_task[id(task)]
        g = task.game
        pref = is_preferentially_stable(g, task.S)
        # the independent club test on the first cfg.club_games games of every shape
        club = is_club(g, factors, club_gen) if (regulariser == "entropic" and k % n_games < cfg.club_games) else None
        rec = dict(shape=g.shape, game=k, factors=factors, size=len(task.S), pref_stable=pref,
                   margin=preferential_margin(g, task.S), label=r.label, stable=r.asymptotically_stable,
                   excursion=r.excursion, final_ratio=r.final_ratio, all_hit_zero=r.all_hit_zero,
                   zero_time=r.zero_time, club=club)
        records.append(rec)
        if pref != r.asymptotically_stable:
            disagreements.append(dict(rec, cause=disagreement_cause(r, cfg.r2_horizon, pref)))
    return SubgameStudy(regulariser, np.asarray(cfg.deltas), cfg.r2_horizon, records, disagreements)


# -- claims 4 and 5: the counterexample -----------------------------------------------------------
@dataclasses.dataclass
class CounterexampleStudy:
    """Our three-player counterexample over a grid of payoffs ``G`` (claims 4 and 5).

    Attributes
    ----------
    G : (nG,);  deltas : (nd,)
    same_graph : (nG,) preference graph equal (same arcs) to the one at ``G[0]``
    pref_stable : (nG,) the set S is preferentially stable
    excursion : (nG, nd) max over starts and time of the outside mass, centre + face starts
    label : list of the protocol's labels (same rule as the subgame study)
    cce_leak : (nG,) the L3* score (equals (G-3)/4);  l3_sim : (nG,) simulated transverse rate
    fit_G, fit_slope, fit_predicted : escape-rate fits of log x_3(1) from the centre
    traces : dict G -> (t, log x_3(1)) from the centre start, for figures
    """

    G: np.ndarray
    deltas: np.ndarray
    horizon: float
    same_graph: np.ndarray
    pref_stable: np.ndarray
    excursion: np.ndarray
    final_ratio: np.ndarray
    label: list
    unstable: np.ndarray
    cce_leak: np.ndarray
    l3_sim: np.ndarray
    fit_G: np.ndarray
    fit_slope: np.ndarray
    fit_predicted: np.ndarray
    traces: dict


def centre_start(deltas: np.ndarray, x1: float = 0.5, x2: float = 0.5) -> np.ndarray:
    """Profiles with players 1, 2 at (x1, x2) on the matching-pennies face, player 3 at mass delta on 1.

    Returns (len(deltas), 6)."""
    d = np.asarray(deltas, dtype=float)
    out = np.zeros((len(d), 6))
    out[:, 0], out[:, 1] = x1, 1 - x1
    out[:, 2], out[:, 3] = x2, 1 - x2
    out[:, 4], out[:, 5] = 1 - d, d
    return out


def escape_slope(t: np.ndarray, log_x: np.ndarray, lo: float, hi: float) -> float:
    """Least-squares slope of ``log_x`` against ``t`` over the samples with lo <= log_x <= hi."""
    sel = (log_x >= lo) & (log_x <= hi)
    if sel.sum() < 5:
        return float("nan")
    return float(np.polyfit(t[sel], log_x[sel], 1)[0])


def counterexample_study(cfg: PreferenceConfig, seed: int) -> CounterexampleStudy:
    """Stability of the span of :func:`leaky_set` across ``cfg.cx_G`` (entropic FTRL)."""
    Gs = np.asarray(cfg.cx_G, dtype=float)
    deltas = np.asarray(cfg.cx_deltas, dtype=float)
    S = leaky_set()
    games = [leaky_game(float(G)) for G in Gs]
    arcs0 = arc_set(games[0])
    same = np.array([arc_set(g) == arcs0 for g in games])
    pref = np.array([is_preferentially_stable(g, S) for g in games])
    gen = rng_stream(seed, STUDY_STREAMS["cx"], 0)
    # centre + face starts, player 3 perturbed by delta; all G in one batch
    faces = [(0.5, 0.5)] + [tuple(gen.uniform(0.1, 0.9, size=2)) for _ in range(cfg.cx_face_starts)]
    X0 = np.concatenate([np.concatenate([centre_start(deltas, *f) for f in faces]) for _ in Gs])
    P = np.concatenate([np.broadcast_to(g.payoffs, (len(faces) * len(deltas), 3, 2, 2, 2)) for g in games])
    mon = OutsideMassMonitor(outside_mask(games[0], S), len(X0))
    integrate_rowwise(P, scores_from_strategies(X0, games[0].offsets, "entropic"), cfg.cx_horizon, "entropic",
                      batched=True, monitors=[mon], rtol=1e-8, atol=1e-10)
    per = len(faces) * len(deltas)
    exc = np.zeros((len(Gs), len(deltas)))
    fin = np.zeros((len(Gs), len(deltas)))
    for a in range(len(Gs)):
        m = mon.max[a * per:(a + 1) * per].reshape(len(faces), len(deltas))
        f = (mon.last / np.maximum(mon.initial, 1e-300))[a * per:(a + 1) * per].reshape(len(faces), len(deltas))
        exc[a] = m.max(axis=0)
        fin[a] = f.max(axis=0)
    # the general protocol of the subgame study, for the labels
    tasks = [StabilityTask(g, S, label=g.name) for g in games]
    res = stability_experiment(tasks, "entropic", deltas, cfg.cx_horizon, gen, n_face=cfg.n_face,
                               n_generic=cfg.n_generic, max_vertex=cfg.max_vertex)
    rule = StabilityRule()
    unstable = np.array([r.unstable or rule.is_unstable(deltas, exc[a]) for a, r in enumerate(res)])
    labels = ["unstable" if u else r.label for u, r in zip(unstable, res)]
    cce = np.array([cce_leak(g, S).score for g in games])
    l3 = np.array(transverse_rates_many([(g, S) for g in games], gen, horizon=cfg.leak_l3_horizon))
    # escape-rate fits from the centre, delta = 1e-12
    fit_G = np.asarray(cfg.cx_fit_G, dtype=float)
    trace_G = sorted(set(fit_G.tolist()) | {2.0})
    t_eval = np.linspace(0.0, min(cfg.cx_horizon, 300.0), 3001)
    X0 = centre_start(np.full(len(trace_G), 1e-12))
    P = np.stack([leaky_game(G).payoffs for G in trace_G])
    out = integrate_rowwise(P, scores_from_strategies(X0, games[0].offsets, "entropic"), float(t_eval[-1]),
                            "entropic", batched=True, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    traces = {G: (t_eval, out.log_x[:, n, 5]) for n, G in enumerate(trace_G)}
    slopes = np.array([escape_slope(t_eval, traces[G][1], np.log(1e-12) + 2.0, np.log(1e-4)) for G in fit_G])
    return CounterexampleStudy(G=Gs, deltas=deltas, horizon=cfg.cx_horizon, same_graph=same, pref_stable=pref,
                               excursion=exc, final_ratio=fin, label=labels, unstable=unstable, cce_leak=cce,
                               l3_sim=l3, fit_G=fit_G, fit_slope=slopes, fit_predicted=(fit_G - 3.0) / 4.0,
                               traces=traces)


# -- claim 6: leaklessness ------------------------------------------------------------------------
@dataclasses.dataclass
class LeakStudy:
    """Random non-product preferentially stable sets: the four leak scores and the simulated label.

    ``records``: dicts with ``shape, game, S, L1, L2, L3, L3*, label, stable``; certified = score < 0.
    ``controls``: random sets that are *not* preferentially stable (and not products), with their
    simulated label and leaving arcs: by the paper's first result none of their spans can be stable.
    """

    records: list
    deltas: np.ndarray
    horizon: float
    controls: list = dataclasses.field(default_factory=list)

    def confusion(self, criterion: str) -> dict:
        cert = np.array([r[criterion] < 0 for r in self.records], dtype=bool)
        stable = np.array([r["stable"] for r in self.records], dtype=bool)
        return dict(certified=int(cert.sum()), false_certifications=int((cert & ~stable).sum()),
                    stable=int(stable.sum()), missed=int((stable & ~cert).sum()), n=len(self.records))


def leakless_study(cfg: PreferenceConfig, seed: int) -> LeakStudy:
    """Score and simulate random non-product preferentially stable sets (excluding the whole game)."""
    games = random_games(cfg.leak_shapes, cfg.leak_games, seed, "leak", cfg.min_gap)
    gen = rng_stream(seed, STUDY_STREAMS["leak"], 99)
    pairs = []
    for k, g in enumerate(games):
        cands = [S for S in preferentially_stable_sets(g) if not is_product(S) and len(S) < g.n_profiles]
        if len(cands) > cfg.leak_sets_per_game:
            pick = gen.choice(len(cands), size=cfg.leak_sets_per_game, replace=False)
            cands = [cands[j] for j in sorted(pick)]
        pairs.extend((k, g, S) for S in cands)
    controls = []
    for k, g in enumerate(games):
        profs = g.profiles()
        tries = 0
        found = 0
        while found < cfg.control_sets_per_game and tries < 200:
            tries += 1
            size = int(gen.integers(2, g.n_profiles))
            S = frozenset(profs[j] for j in gen.choice(g.n_profiles, size=size, replace=False))
            if is_product(S) or is_preferentially_stable(g, S):
                continue
            controls.append((k, g, S))
            found += 1
    records = []
    if not pairs and not controls:
        return LeakStudy(records, np.asarray(cfg.deltas), cfg.leak_horizon)
    l3 = transverse_rates_many([(g, S) for _, g, S in pairs], gen, horizon=cfg.leak_l3_horizon)
    tasks = [StabilityTask(g, S) for _, g, S in pairs]
    ctrl_tasks = [StabilityTask(g, S, label="control") for _, g, S in controls]
    results = []
    for shape in progress(sorted({g.shape for _, g, _ in pairs + controls}), desc="leaklessness"):
        sub = [t for t in tasks + ctrl_tasks if t.game.shape == shape]
        results.extend(stability_experiment(sub, "entropic", cfg.deltas, cfg.leak_horizon, gen, n_face=cfg.n_face,
                                            n_generic=cfg.n_generic, max_vertex=cfg.max_vertex))
    by_task = {id(r.task): r for r in results}
    control_records = []
    for (k, g, S), task in zip(controls, ctrl_tasks):
        r = by_task[id(task)]
        control_records.append(dict(shape=g.shape, game=k, S=S, size=len(S), label=r.label,
                                    stable=r.asymptotically_stable, leaving=leaving_arcs(g, S),
                                    excursion=r.excursion))
    for (k, g, S), task, s3 in zip(pairs, tasks, l3):
        r = by_task[id(task)]
        records.append(dict(shape=g.shape, game=k, S=S, size=len(S), L1=pointwise_leak(g, S), witness=l1_witness(g, S),
                            L2=sampled_leak(g, S, gen), L3=s3, **{"L3*": cce_leak(g, S).score},
                            label=r.label, stable=r.asymptotically_stable, excursion=r.excursion))
    return LeakStudy(records, np.asarray(cfg.deltas), cfg.leak_horizon, control_records)


def l1_witness(game: NormalFormGame, S) -> tuple | None:
    """Where the pointwise criterion L1 fails: (box, player, exit action, profile, gain) with the largest gain."""
    import itertools

    from .leakless import deviation_gain
    from .preference import boxes as _boxes
    from .stability import exit_moves

    best = None
    for bx in _boxes(game, S, maximal=True):
        for i, b in exit_moves(game, S, bx):
            for beta in itertools.product(*bx):
                gain = deviation_gain(game, i, b, beta)
                if best is None or gain > best[-1]:
                    best = (bx, i, b, beta, gain)
    return best


# -- the playground -------------------------------------------------------------------------------
@dataclasses.dataclass
class PlaygroundRun:
    """A fast run on the counterexample: one trajectory and a small excursion sweep."""

    t: np.ndarray
    outside: np.ndarray        # (T,) D_S along the trajectory started at delta
    x3: np.ndarray             # (T,) player 3's mass on action 1
    face: np.ndarray           # (T, 2) players 1 and 2's mass on action 0
    deltas: np.ndarray
    excursion: np.ndarray      # (nd,)


def playground_run(G: float, delta: float, regulariser: str = "entropic", step_size: float = 0.0,
                   horizon: float = 150.0, x1: float = 0.7, x2: float = 0.4) -> PlaygroundRun:
    """Counterexample with payoff ``G``: continuous FTRL (``step_size == 0``) or discrete FTRL with that
    step; start at (x1, x2) on the face with player 3's mass ``delta`` on the exit. A few hundred ms."""
    check_regulariser(regulariser)
    if not (isinstance(step_size, (int, float)) and step_size >= 0):
        raise ValueError(f"step_size={step_size!r} must be >= 0 (0 = continuous time)")
    if not 0 < delta < 1:
        raise ValueError(f"delta={delta!r} must be in (0, 1)")
    g = leaky_game(float(G))
    deltas = np.unique(np.array([1e-2, 1e-4, 1e-8, 1e-12, delta]))
    X0 = centre_start(deltas, x1, x2)
    Y0 = scores_from_strategies(X0, g.offsets, regulariser)
    mon = OutsideMassMonitor(outside_mask(g, leaky_set()), len(X0))
    t_eval = np.linspace(0.0, horizon, 601)
    if step_size == 0:
        res = integrate_rowwise(g.payoffs, Y0, horizon, regulariser, t_eval=t_eval, monitors=[mon], rtol=1e-8,
                                atol=1e-10)
        t, xs = res.t, res.x
    else:
        n_steps = int(np.ceil(horizon / step_size))
        res = discrete_ftrl(g.payoffs, Y0, step_size, n_steps, regulariser, record_every=max(1, n_steps // 600),
                            monitors=[mon])
        t, xs = res.t, res.x
    row = int(np.where(deltas == delta)[0][0])
    X = xs[:, row]
    mask = outside_mask(g, leaky_set()).astype(float)
    return PlaygroundRun(t=t, outside=g.joint(X) @ mask, x3=X[:, 5], face=X[:, [0, 2]], deltas=deltas,
                         excursion=mon.max.copy())


def hedge_tracking_error(game: NormalFormGame, x0: np.ndarray, horizon: float, steps: Sequence[float]) -> np.ndarray:
    """Max sup-norm gap between discrete Hedge with step gamma and the continuous flow, per gamma."""
    y0 = scores_from_strategies(np.atleast_2d(x0), game.offsets, "entropic")
    out = []
    for gam in steps:
        n = int(round(horizon / gam))
        disc = discrete_ftrl(game.payoffs, y0, gam, n, "entropic")
        cont = integrate_rowwise(game.payoffs, y0, horizon, "entropic", t_eval=disc.t, rtol=1e-10, atol=1e-12)
        out.append(float(np.abs(disc.x - cont.x).max()))
    return np.array(out)


# -- small runs for the teaching figures ----------------------------------------------------------
def classic_trajectories(key: str, regulariser: str, seed: int, n_starts: int = 5, horizon: float = 12.0,
                         n_points: int = 600) -> np.ndarray:
    """Trajectories of a 2x2 classic game from random interior starts: (T, n_starts, 4) strategies."""
    game = classic_game(key)
    gen = rng_stream(seed, STUDY_STREAMS["starts"], 10)
    X0 = np.stack([np.concatenate([gen.dirichlet(np.ones(n) * 2.0) for n in game.shape]) for _ in range(n_starts)])
    Y0 = scores_from_strategies(X0, game.offsets, regulariser)
    res = integrate_rowwise(game.payoffs, Y0, horizon, regulariser, t_eval=np.linspace(0, horizon, n_points),
                            rtol=1e-9, atol=1e-11)
    return res.x


def finite_time_example(delta: float = 0.05, horizon: float = 6.0) -> tuple:
    """Coordination game, S = {(A, A)} (a strict equilibrium, a club face): the outside mass from a
    start at distance about delta, under both regularisers. Returns (t, D entropic, D Euclidean,
    last time with D > 0 for Euclidean)."""
    game = classic_game("coordination")
    S = {(0, 0)}
    x0 = np.array([[1 - delta, delta, 1 - delta, delta]])
    t = np.linspace(0.0, horizon, 1201)
    mask = outside_mask(game, S).astype(float)
    out = []
    for reg in ("entropic", "euclidean"):
        res = integrate_rowwise(game.payoffs, scores_from_strategies(x0, game.offsets, reg), horizon, reg,
                                t_eval=t, rtol=1e-10, atol=1e-12)
        out.append(game.joint(res.x[:, 0]) @ mask)
    pos = np.nonzero(out[1] > 0)[0]
    t_zero = float(t[pos[-1] + 1]) if len(pos) and pos[-1] + 1 < len(t) else float("nan")
    return t, out[0], out[1], t_zero


def cube_traces(Gs: Sequence[float] = (2.0, 5.0), delta: float = 1e-3, horizon: float = 120.0,
                starts: Sequence[tuple[float, float]] = ((0.85, 0.5), (0.65, 0.5))) -> dict:
    """Counterexample trajectories for the 3-D figure: label -> (T, 6) strategies (entropic)."""
    out = {}
    for G, (x1, x2) in zip(Gs, starts):
        g = leaky_game(float(G))
        X0 = centre_start(np.array([delta]), x1, x2)
        res = integrate_rowwise(g.payoffs, scores_from_strategies(X0, g.offsets, "entropic"), horizon, "entropic",
                                t_eval=np.linspace(0, horizon, 2400), rtol=1e-9, atol=1e-11)
        out[f"G = {G:g}" + (" (leaks out, returns to (0,0,1))" if G > 3 else " (stays near the face)")] = res.x[:, 0]
    return out
