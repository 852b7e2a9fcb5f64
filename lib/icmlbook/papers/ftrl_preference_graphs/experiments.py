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
from .games import (NormalFormGame, averaging_game, averaging_set, classic_game, CLASSIC_GAMES, leaky_game,
                    leaky_set, random_game)
from .leakless import leakless_score
from .preference import (arc_set, is_club, is_preferentially_stable, is_product, leaving_arcs, outside_mask,
                         preference_graph, preferential_margin, preferentially_stable_sets, product_sets,
                         sink_equilibria, split_corners, strict_pure_nash)
from .stability import StabilityTask, sampled_protocol, search_stability

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
    g = averaging_game(5.0)
    pg = preference_graph(g)
    out.append(ClassicFacts("averaging", g, pg.number_of_edges(), sink_equilibria(pg), strict_pure_nash(g),
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
    tol_dossier: float = 1e-3

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
                            for k, v in out.items()}, n_starts=cfg.r1_starts, horizon=cfg.r1_horizon, tol=cfg.r1_tol,
                         tol_dossier=cfg.r1_tol_dossier)


# -- claims 2, 3 and 7: subgames ------------------------------------------------------------------
@dataclasses.dataclass
class SubgameStudy:
    """Every proper product set of random games, labelled by the stability search (claims 2, 3, 7).

    ``records``: one dict per (game, product set): ``shape, game, factors, size, pref_stable, margin,
    label`` ("stable" / "unstable" / "undecided"), ``eps`` (K,), ``final_zero`` (fraction of starts
    that end with :math:`D_S` exactly 0), ``club`` (None where the independent club test was not run),
    ``first_label`` (the label before the re-check of "stable" labels).
    """

    regulariser: str
    levels: np.ndarray
    horizon: float
    starts_per_set: int
    records: list

    def per_class(self) -> dict:
        """For the preferentially stable and the other subgames: n, labelled as predicted, undecided."""
        out = {}
        for cls, want in (("preferentially stable", "stable"), ("not preferentially stable", "unstable")):
            rs = [r for r in self.records if r["pref_stable"] == (want == "stable")]
            out[cls] = dict(n=len(rs), agree=sum(r["label"] == want for r in rs),
                            undecided=sum(r["label"] == "undecided" for r in rs),
                            opposite=sum(r["label"] not in (want, "undecided") for r in rs))
        return out

    @property
    def disagreements(self) -> list:
        return [r for r in self.records if r["label"] != ("stable" if r["pref_stable"] else "unstable")]

    @property
    def club_agreement(self) -> tuple[float, int]:
        pairs = [(r["club"], r["pref_stable"]) for r in self.records if r["club"] is not None]
        return (float(np.mean([a == b for a, b in pairs])) if pairs else float("nan"), len(pairs))


def _labels(tasks, regulariser, settings, gen, rule, desc):
    by_shape: dict[tuple, list[int]] = {}
    for k, t in enumerate(tasks):
        by_shape.setdefault(t.game.shape, []).append(k)
    out = [None] * len(tasks)
    for shape in progress(sorted(by_shape, key=lambda s: (len(s), s)), desc=desc):
        ks = by_shape[shape]
        for k, r in zip(ks, search_stability([tasks[k] for k in ks], regulariser, settings, gen, rule)):
            out[k] = r
    return out


def subgame_study(cfg: PreferenceConfig, seed: int, regulariser: str = "entropic", probes: str = "search") -> SubgameStudy:
    """Search every proper product set of ``cfg.r2_games`` (``cfg.r2_games_euclidean``) random games per
    shape for its worst start, and compare the label with preferential stability. ``probes="exits"`` labels them
    with the one-coordinate vertex-exit protocol instead (the trivial method of the tests)."""
    check_regulariser(regulariser)
    n_games = cfg.r2_games if regulariser == "entropic" else cfg.r2_games_euclidean
    games = random_games(cfg.r2_shapes, n_games, seed, "r2", cfg.min_gap)
    gen = rng_stream(seed, STUDY_STREAMS["starts"], 2 if regulariser == "entropic" else 3)
    tasks, meta = [], []
    for k, g in enumerate(games):
        for factors, S in product_sets(g):
            tasks.append(StabilityTask(g, S, label=g.name))
            meta.append((k, factors))
    settings = dataclasses.replace(cfg.random_search(regulariser), probes=probes)
    results = _labels(tasks, regulariser, settings, gen, cfg.rule, f"subgames ({regulariser})")
    club_gen = rng_stream(seed, STUDY_STREAMS["starts"], 4)
    records = []
    for task, (k, factors), r in zip(tasks, meta, results):
        g = task.game
        club = is_club(g, factors, club_gen) if (regulariser == "entropic" and k % n_games < cfg.club_games) else None
        records.append(dict(shape=g.shape, game=k, factors=factors, size=len(task.S),
                            pref_stable=is_preferentially_stable(g, task.S), margin=preferential_margin(g, task.S),
                            label=r.label, eps=r.eps, final_zero=r.final_zero, club=club, first_label=r.first_label))
    return SubgameStudy(regulariser, np.asarray(settings.levels), settings.horizon,
                        int(round(np.mean([r.n_starts for r in results]))) if results else 0, records)


# -- claims 4 and 5: the counterexample -----------------------------------------------------------
@dataclasses.dataclass
class CounterexampleStudy:
    """The averaging game over ``G`` (claims 4, 5) and the earlier leaky game (the search's regression).

    ``G``, ``h``; ``same_graph`` (arcs equal to those at ``G[0]``), ``pref_stable``, ``predicted`` (the
    averaged transverse exponent :math:`(G+h-2)/4`), ``results`` (one :class:`SearchResult` per G),
    ``leaky_G`` / ``leaky`` (the same for :func:`.games.leaky_game`), ``sampled`` (dict G -> the
    excursion curve the one-exit sampling protocol finds, for the two headline G and the leaky games).
    """

    G: np.ndarray
    h: float
    levels: np.ndarray
    horizon: float
    starts_per_set: int
    same_graph: np.ndarray
    pref_stable: np.ndarray
    predicted: np.ndarray
    results: list
    leaky_G: np.ndarray
    leaky_pref_stable: np.ndarray
    leaky: list
    sampled: dict

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.results]

    def result_at(self, G: float):
        """The search result at ``G`` (one of ``self.G``; the nearest other value is never substituted)."""
        hits = np.nonzero(np.isclose(self.G, G))[0]
        if not len(hits):
            raise ValueError(f"G={G!r} is not allowed; the study has G in {self.G.tolist()}")
        return self.results[int(hits[0])]


def counterexample_study(cfg: PreferenceConfig, seed: int, probes: str = "search") -> CounterexampleStudy:
    """Search the span of :func:`.games.averaging_set` at every ``cfg.cx_G`` and of :func:`.games.leaky_set`
    at every ``cfg.cx_leaky_G`` (entropic FTRL), all in one batch per round (``probes="exits"``: the
    one-coordinate protocol instead, the trivial method of the tests)."""
    Gs = np.array(sorted(set(cfg.cx_G) | {cfg.cx_stable_G, cfg.cx_unstable_G}), float)
    S = averaging_set()
    games = [averaging_game(float(G), cfg.cx_h) for G in Gs]
    arcs0 = arc_set(games[0])
    leaky_Gs = np.asarray(cfg.cx_leaky_G, float)
    leaky_games = [leaky_game(float(G)) for G in leaky_Gs]
    tasks = [StabilityTask(g, S, g.name) for g in games] + [StabilityTask(g, leaky_set(), g.name) for g in leaky_games]
    settings = dataclasses.replace(cfg.headline_search, probes=probes)
    gen = rng_stream(seed, STUDY_STREAMS["cx"], 0)
    res = _labels(tasks, "entropic", settings, gen, cfg.rule, "counterexample search")
    sampled = {}
    for G in (cfg.cx_stable_G, cfg.cx_unstable_G):
        sampled[("averaging", float(G))] = sampled_protocol(averaging_game(G, cfg.cx_h), S, settings.levels, settings.horizon)
    for G, g in zip(leaky_Gs, leaky_games):
        sampled[("leaky", float(G))] = sampled_protocol(g, leaky_set(), settings.levels, settings.horizon)
    return CounterexampleStudy(
        G=Gs, h=cfg.cx_h, levels=np.asarray(settings.levels), horizon=settings.horizon,
        starts_per_set=int(round(np.mean([r.n_starts for r in res[:len(Gs)]]))), same_graph=np.array([arc_set(g) == arcs0 for g in games]),
        pref_stable=np.array([is_preferentially_stable(g, S) for g in games]),
        predicted=(Gs + cfg.cx_h - 2.0) / 4.0, results=res[:len(Gs)], leaky_G=leaky_Gs,
        leaky_pref_stable=np.array([is_preferentially_stable(g, leaky_set()) for g in leaky_games]),
        leaky=res[len(Gs):], sampled=sampled)


@dataclasses.dataclass
class RateStudy:
    """Transverse rate of the averaging game along an off-centre orbit of the matching-pennies face.

    ``slope`` (nG,): least-squares slope of :math:`\\log x_{3,1}(t)`; ``predicted`` the averaged exponent
    :math:`(G+h-2)/4`; ``at_start`` the instantaneous rate :math:`u_3(x_1,x_2,1)-u_3(x_1,x_2,0)` at the
    start (what a rate read off one point would give); ``traces`` G -> (t, log x_{3,1}).
    """

    G: np.ndarray
    h: float
    start: tuple
    slope: np.ndarray
    predicted: np.ndarray
    at_start: np.ndarray
    traces: dict


def rate_study(cfg: PreferenceConfig, x10: float = 0.8, x20: float = 0.5, log_x3: float = -140.0) -> RateStudy:
    """Start on the face orbit through (x10, x20) with player 3's exit at mass exp(log_x3) (score space
    keeps it exact), integrate to ``cfg.rate_horizon`` and fit the slope of log x_{3,1} over the second
    90% of the run, while it stays below 1e-3; at every G of ``cfg.rate_G`` and at G = 2 - h, where the averaged
    exponent is zero (a neutral span: added in issue 28)."""
    Gs = np.array(sorted(set(cfg.rate_G) | {2.0 - cfg.cx_h}), float)    # G + h = 2, the neutral span, always in
    T = cfg.rate_horizon
    t_eval = np.linspace(0.0, T, 1501)
    Y0 = np.array([[np.log(x10), np.log(1 - x10), np.log(x20), np.log(1 - x20), 0.0, log_x3]] * len(Gs))
    P = np.stack([averaging_game(float(G), cfg.cx_h).payoffs for G in Gs])
    out = integrate_rowwise(P, Y0, T, "entropic", batched=True, t_eval=t_eval, rtol=1e-8, atol=1e-10)
    slopes, traces = [], {}
    for n, G in enumerate(Gs):
        lx = out.log_x[:, n, 5]
        sel = (t_eval >= 0.1 * T) & (lx <= np.log(1e-3))
        slopes.append(float(np.polyfit(t_eval[sel], lx[sel], 1)[0]) if sel.sum() > 10 else float("nan"))
        traces[float(G)] = (t_eval, lx)
    at_start = np.array([G * x10 * x20 + cfg.cx_h * x10 * (1 - x20) - (1 - x10) for G in Gs])
    return RateStudy(Gs, cfg.cx_h, (x10, x20), np.array(slopes), (Gs + cfg.cx_h - 2.0) / 4.0, at_start, traces)


def corner_excursion(G: float, h: float, levels: Sequence[float], s: float = 0.7, horizon: float = 200.0) -> np.ndarray:
    r"""The excursion that sets the modulus of stability of the averaging game's span below the threshold
    (G + h < 2): start on the face :math:`F'=\{a_1=0\}` next to the vertex (0, 1, 0), player 3 at
    :math:`p_3=s`, player 1 at :math:`p_1=d/s` (so :math:`D_S=p_1p_3=d`). There player 1's move is *inside* the
    face F (rate :math:`4-5p_3>0` while :math:`p_3<4/5`) and player 3's mass decays at :math:`|h|`: when
    :math:`p_1` reaches order one, after :math:`\log(s/d)/4`, :math:`p_3\approx s(d/s)^{|h|/4}`, so
    :math:`\max_tD_S\propto d^{|h|/4}` (then the orbit runs round F, where the exit decays when G + h < 2).
    Returns :math:`\max_{t\le T}D_S` per level (entropic FTRL in score space)."""
    if not 0 < s < 0.8:
        raise ValueError(f"s={s!r} must lie in (0, 0.8): player 1's move into F needs p_3 < 4/5")
    ds = np.asarray(levels, float)
    g = averaging_game(float(G), float(h))
    X0 = np.array([[1 - d / s, d / s, 1e-12, 1 - 1e-12, 1 - s, s] for d in ds])
    mon = OutsideMassMonitor(outside_mask(g, averaging_set()), len(X0))
    integrate_rowwise(g.payoffs, scores_from_strategies(X0, g.offsets, "entropic", floor=1e-300), horizon, "entropic",
                      monitors=[mon], rtol=1e-9, atol=1e-11)
    return mon.max.copy()


# -- claims 2 and 6: leaklessness on non-product sets ---------------------------------------------
@dataclasses.dataclass
class LeakStudy:
    """Random non-product preferentially stable sets: the leaklessness score and the search's label.

    ``records``: dicts with ``shape, game, S, size, score`` (largest aggregate drift found),
    ``certified`` (score < -margin), ``label``, ``eps``, ``split_corner`` (:func:`.preference.split_corners`). ``controls``: random non-product sets that are
    *not* preferentially stable, with their label (claim 2 says none can be stable).
    """

    records: list
    controls: list
    levels: np.ndarray
    horizon: float
    margin: float

    def confusion(self) -> dict:
        cert = [r for r in self.records if r["certified"]]
        return dict(n=len(self.records), certified=len(cert),
                    false=sum(r["label"] == "unstable" for r in cert),
                    certified_undecided=sum(r["label"] == "undecided" for r in cert),
                    certified_stable=sum(r["label"] == "stable" for r in cert),
                    stable=sum(r["label"] == "stable" for r in self.records),
                    unstable=sum(r["label"] == "unstable" for r in self.records),
                    undecided=sum(r["label"] == "undecided" for r in self.records))

    def by_corner(self) -> dict:
        """Search labels of the sets with and without a split corner."""
        out = {}
        for has in (True, False):
            rs = [r for r in self.records if r.get("split_corner") == has]
            out["split corner" if has else "no split corner"] = {lab: sum(r["label"] == lab for r in rs)
                                                                 for lab in ("stable", "unstable", "undecided")}
        return out


def leakless_study(cfg: PreferenceConfig, seed: int, probes: str = "search") -> LeakStudy:
    """Score and search random non-product preferentially stable sets (not the whole game), with
    random non-preferentially-stable non-product controls (``probes="exits"``: labelled by the one-coordinate
    protocol instead, the trivial method of the tests)."""
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
        tries = found = 0
        while found < cfg.control_sets_per_game and tries < 200:
            tries += 1
            size = int(gen.integers(2, g.n_profiles))
            S = frozenset(profs[j] for j in gen.choice(g.n_profiles, size=size, replace=False))
            if is_product(S) or is_preferentially_stable(g, S):
                continue
            controls.append((k, g, S))
            found += 1
    settings = dataclasses.replace(cfg.leak_search, probes=probes)
    tasks = [StabilityTask(g, S) for _, g, S in pairs] + [StabilityTask(g, S, "control") for _, g, S in controls]
    res = _labels(tasks, "entropic", settings, gen, cfg.rule, "leaklessness") if tasks else []
    records = []
    for (k, g, S), r in zip(pairs, res[:len(pairs)]):
        sc = leakless_score(g, S, gen, levels=cfg.leak_levels, n_random=cfg.leak_points)
        records.append(dict(shape=g.shape, game=k, S=S, size=len(S), score=sc.score,
                            certified=sc.certified(cfg.leak_margin), label=r.label, eps=r.eps,
                            split_corner=bool(split_corners(g, S)), first_label=r.first_label))
    control_records = [dict(shape=g.shape, game=k, S=S, size=len(S), label=r.label, eps=r.eps,
                            leaving=leaving_arcs(g, S), first_label=r.first_label)
                       for (k, g, S), r in zip(controls, res[len(pairs):])]
    return LeakStudy(records, control_records, np.asarray(settings.levels), settings.horizon, cfg.leak_margin)


# -- the playground -------------------------------------------------------------------------------
def centre_start(deltas: np.ndarray, x1: float = 0.5, x2: float = 0.5) -> np.ndarray:
    """Profiles with players 1, 2 at (x1, x2) on the matching-pennies face and player 3's exit at mass delta.

    Returns (len(deltas), 6)."""
    d = np.asarray(deltas, dtype=float)
    out = np.zeros((len(d), 6))
    out[:, 0], out[:, 1] = x1, 1 - x1
    out[:, 2], out[:, 3] = x2, 1 - x2
    out[:, 4], out[:, 5] = 1 - d, d
    return out


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
    """The averaging counterexample (h = -1) with payoff ``G``: continuous FTRL (``step_size == 0``) or discrete FTRL with that
    step; start at (x1, x2) on the face with player 3's mass ``delta`` on the exit. A few hundred ms."""
    check_regulariser(regulariser)
    if not (isinstance(step_size, (int, float)) and step_size >= 0):
        raise ValueError(f"step_size={step_size!r} must be >= 0 (0 = continuous time)")
    if not 0 < delta < 1:
        raise ValueError(f"delta={delta!r} must be in (0, 1)")
    g = averaging_game(float(G))
    deltas = np.unique(np.array([1e-2, 1e-4, 1e-8, 1e-12, delta]))
    X0 = centre_start(deltas, x1, x2)
    Y0 = scores_from_strategies(X0, g.offsets, regulariser)
    mon = OutsideMassMonitor(outside_mask(g, averaging_set()), len(X0))
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
    mask = outside_mask(g, averaging_set()).astype(float)
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
                                t_eval=t, rtol=1e-8, atol=1e-10)
        out.append(game.joint(res.x[:, 0]) @ mask)
    pos = np.nonzero(out[1] > 0)[0]
    t_zero = float(t[pos[-1] + 1]) if len(pos) and pos[-1] + 1 < len(t) else float("nan")
    return t, out[0], out[1], t_zero


def cube_traces(Gs: Sequence[float] = (1.0, 5.0), delta: float = 1e-3, horizon: float = 120.0,
                starts: Sequence[tuple[float, float]] = ((0.7, 0.5), (0.7, 0.5))) -> dict:
    """Averaging-game trajectories for the 3-D figure: label -> (T, 6) strategies (entropic)."""
    out = {}
    for G, (x1, x2) in zip(Gs, starts):
        g = averaging_game(float(G))
        X0 = centre_start(np.array([delta]), x1, x2)
        res = integrate_rowwise(g.payoffs, scores_from_strategies(X0, g.offsets, "entropic"), horizon, "entropic",
                                t_eval=np.linspace(0, horizon, 1200), rtol=1e-7, atol=1e-9)
        D = g.joint(res.x[:, 0]) @ outside_mask(g, averaging_set()).astype(float)
        out[f"G = {G:g} (largest outside mass {D.max():.2g})"] = res.x[:, 0]
    return out
