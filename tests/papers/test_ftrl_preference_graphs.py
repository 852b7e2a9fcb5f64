"""Tests of the ftrl_preference_graphs library: exact facts, independent references, bad input, determinism."""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from icmlbook.papers import ftrl_preference_graphs as fp
from icmlbook.papers.ftrl_preference_graphs import claims as fc
from icmlbook.papers.ftrl_preference_graphs import dynamics as dyn
from icmlbook.papers.ftrl_preference_graphs import stability as st
from icmlbook.papers.ftrl_preference_graphs.games import NormalFormGame, payoff_field
from icmlbook.runtime.claims import claim_case

SLUG = "ftrl_preference_graphs"


def _random_x(game, rng, n=5):
    return np.stack([np.concatenate([rng.dirichlet(np.ones(k)) for k in game.shape]) for _ in range(n)])


# -- games and the payoff field -------------------------------------------------------------------
def test_payoff_field_matches_brute_force():
    rng = np.random.default_rng(0)
    g = fp.random_game((2, 3, 2), rng, min_gap=0.0)
    x = _random_x(g, rng, 4)
    v = g.payoff_vectors(x)
    blocks = g.split(x)
    for b in range(4):
        for i in range(3):
            for a in range(g.shape[i]):
                ref = 0.0
                for prof in itertools.product(*(range(n) for n in g.shape)):
                    if prof[i] != a:
                        continue
                    w = np.prod([blocks[j][b, prof[j]] for j in range(3) if j != i])
                    ref += g.payoffs[(i, *prof)] * w
                assert v[i][b, a] == pytest.approx(ref, abs=1e-12)
    # batched form (one game per row) gives the same numbers
    P = np.broadcast_to(g.payoffs, (4, *g.payoffs.shape))
    vb = payoff_field(P, blocks, batched=True)
    for i in range(3):
        np.testing.assert_allclose(vb[i], v[i], atol=1e-13)


def test_random_game_is_generic_and_seeded():
    g1 = fp.random_game((3, 3), np.random.default_rng(5), min_gap=0.2)
    g2 = fp.random_game((3, 3), np.random.default_rng(5), min_gap=0.2)
    np.testing.assert_array_equal(g1.payoffs, g2.payoffs)
    assert fp.edge_gaps(g1).min() >= 0.2
    assert not fp.preference_graph(g1).graph["ties"]


# -- preference graphs of the classic games -------------------------------------------------------
def test_matching_pennies_graph_is_a_four_cycle():
    g = fp.matching_pennies()
    assert fp.arc_set(g) == {((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 1), (1, 0)), ((1, 0), (0, 0))}
    assert fp.sink_equilibria(g) == [frozenset(g.profiles())]
    assert fp.strict_pure_nash(g) == set()


def test_coordination_and_dilemma_sinks():
    g = fp.coordination_game()
    assert fp.arc_set(g) == {((0, 1), (0, 0)), ((0, 1), (1, 1)), ((1, 0), (0, 0)), ((1, 0), (1, 1))}
    assert fp.sink_equilibria(g) == [frozenset({(0, 0)}), frozenset({(1, 1)})]
    pd = fp.prisoners_dilemma()
    assert fp.sink_equilibria(pd) == [frozenset({(1, 1)})]
    assert fp.strict_pure_nash(pd) == {(1, 1)}


def test_rps_and_shapley_sinks():
    rps = fp.rock_paper_scissors()
    assert fp.sink_equilibria(rps) == [frozenset(rps.profiles())]
    assert fp.preference_graph(rps).number_of_edges() == 18
    sh = fp.shapley_game()
    sinks = fp.sink_equilibria(sh)
    assert sinks == [frozenset({(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 0)})]
    assert len(fp.preference_graph(sh).graph["ties"]) == 6


def test_singleton_sinks_are_strict_nash_and_match_nashpy():
    nash = pytest.importorskip("nashpy")
    rng = np.random.default_rng(1)
    for _ in range(25):
        g = fp.random_game((3, 3), rng, min_gap=0.1)
        singles = {next(iter(c)) for c in fp.sink_equilibria(g) if len(c) == 1}
        assert singles == fp.strict_pure_nash(g)
        pure = set()
        for s1, s2 in nash.Game(g.payoffs[0], g.payoffs[1]).support_enumeration():
            if (s1 > 1 - 1e-9).sum() == 1 and (s2 > 1 - 1e-9).sum() == 1:
                pure.add((int(np.argmax(s1)), int(np.argmax(s2))))
        assert pure == singles


def test_preferentially_stable_sets_enumeration_is_exact():
    g = fp.random_game((2, 2, 2), np.random.default_rng(3), min_gap=0.1)
    found = set(fp.preferentially_stable_sets(g))
    profs = g.profiles()
    brute = set()
    for r in range(1, len(profs) + 1):
        for S in itertools.combinations(profs, r):
            if fp.is_preferentially_stable(g, S):
                brute.add(frozenset(S))
    assert found == brute
    assert frozenset(profs) in found


def test_club_test_agrees_with_preferential_stability_on_products():
    rng = np.random.default_rng(4)
    for shape in [(3, 3), (2, 2, 2)]:
        g = fp.random_game(shape, rng, min_gap=0.15)
        for factors, S in fp.product_sets(g):
            assert fp.is_club(g, factors, rng, n_samples=2000) == fp.is_preferentially_stable(g, S)


def test_outside_mass_span_and_skeleton():
    g = fp.leaky_game(2.0)
    S = fp.leaky_set()
    face = np.array([[0.3, 0.7, 0.6, 0.4, 1.0, 0.0]])
    assert fp.outside_mass(g, S, face)[0] == 0.0 and fp.in_span(g, S, face)[0]
    assert fp.outside_mass(g, S, g.vertex((1, 1, 1))[None])[0] == 1.0
    x = _random_x(g, np.random.default_rng(0), 6)
    inside = g.joint(x) @ (~fp.outside_mask(g, S)).astype(float)
    np.testing.assert_allclose(fp.outside_mass(g, S, x), 1.0 - inside, atol=1e-14)
    pts = np.stack([g.vertex((0, 0, 1)), face[0], 0.9995 * g.vertex((1, 0, 0)) + 0.0005 * g.uniform()])
    assert fp.skeleton(g, pts, tol=1e-3) == {(0, 0, 1), (1, 0, 0)}
    assert fp.skeleton(g, pts, tol=0.0) == {(0, 0, 1)}
    assert not fp.is_product(S) and fp.is_product({(0, 0, 0), (1, 0, 0)})


# -- dynamics -------------------------------------------------------------------------------------
def test_replicator_identity():
    rng = np.random.default_rng(2)
    g = fp.random_game((2, 3, 2), rng, min_gap=0.0)
    y = rng.normal(size=(6, g.dim))
    x = dyn.choice_map(y, g.offsets, "entropic")
    np.testing.assert_allclose(dyn.entropic_strategy_velocity(g, y), dyn.replicator_velocity(g, x), atol=1e-12)
    # and along a trajectory: score-space solution vs the replicator ODE integrated in x
    x0 = _random_x(g, rng, 1)[0]
    t_eval = np.linspace(0, 5, 11)
    res = fp.integrate_ftrl(g.payoffs, np.log(x0)[None], 5.0, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(lambda t, z: dyn.replicator_velocity(g, z[None])[0], (0, 5), x0, t_eval=t_eval,
                    method="DOP853", rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(res.x[:, 0].T, ref.y, atol=1e-7)


@pytest.mark.parametrize("regulariser", ["entropic", "euclidean"])
def test_batched_integrator_matches_solve_ivp(regulariser):
    rng = np.random.default_rng(7)
    g = fp.random_game((2, 2, 2), rng, min_gap=0.1)
    X0 = _random_x(g, rng, 16)
    Y0 = fp.scores_from_strategies(X0, g.offsets, regulariser)
    rowwise = fp.integrate_ftrl(g.payoffs, Y0, 20.0, regulariser, rtol=1e-9, atol=1e-11)
    stacked = fp.integrate_ftrl(g.payoffs, Y0, 20.0, regulariser, method="LSODA", rtol=1e-9, atol=1e-11)
    field = fp.FTRLField(g.payoffs, regulariser)
    for b in range(0, 16, 5):
        ref = solve_ivp(field, (0, 20.0), Y0[b], method="Radau", rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(rowwise.x_final[b], dyn.choice_map(ref.y[:, -1][None], g.offsets, regulariser)[0],
                                   atol=2e-5)
        np.testing.assert_allclose(stacked.x_final[b], rowwise.x_final[b], atol=2e-5)


def test_simplex_projection_matches_bisection():
    rng = np.random.default_rng(0)
    for n in (2, 3, 5):
        y = rng.normal(size=(50, n)) * 2
        x = dyn.project_simplex(y)
        for row, xr in zip(y, x):
            lo, hi = row.min() - 1, row.max()
            for _ in range(200):
                tau = (lo + hi) / 2
                lo, hi = (tau, hi) if np.maximum(row - tau, 0).sum() > 1 else (lo, tau)
            np.testing.assert_allclose(xr, np.maximum(row - tau, 0), atol=1e-10)


def test_euclidean_ftrl_reaches_the_face_in_finite_time():
    g_gap = 0.5     # player 1's action 0 beats action 1 by g_gap whatever player 2 does
    U = np.zeros((2, 2, 2))
    U[0, 0, :] = g_gap
    g = NormalFormGame(U, "dominance")
    x0 = np.array([[0.3, 0.7, 0.5, 0.5]])
    t_star = (1.0 - (0.3 - 0.7)) / g_gap          # y_0 - y_1 grows from -0.4 at rate g_gap to 1
    t = np.linspace(0, 2 * t_star, 401)
    res = fp.integrate_ftrl(g.payoffs, fp.scores_from_strategies(x0, g.offsets, "euclidean"), t[-1], "euclidean",
                            t_eval=t, rtol=1e-10, atol=1e-12)
    D = fp.outside_mass(g, {(0, 0), (0, 1)}, res.x[:, 0])
    assert np.all(D[t > t_star + 1e-6] == 0.0)
    assert np.all(D[t < t_star - 1e-6] > 0.0)
    ent = fp.integrate_ftrl(g.payoffs, np.log(x0), t[-1], "entropic")
    assert 0 < fp.outside_mass(g, {(0, 0), (0, 1)}, ent.x_final)[0] < 0.7   # entropic: positive forever


def test_discrete_hedge_tracks_the_flow():
    g = fp.matching_pennies()
    err = fp.hedge_tracking_error(g, np.array([0.7, 0.3, 0.4, 0.6]), 5.0, [0.1, 0.05, 0.025])
    assert err[0] > err[1] > err[2]
    assert err[2] < 0.02 and err[1] / err[2] == pytest.approx(2.0, rel=0.3)   # first order in the step


# -- the counterexample (averaging game) ----------------------------------------------------------
def test_averaging_game_is_preferentially_stable_with_one_graph():
    S = fp.averaging_set()
    arcs = {fp.arc_set(fp.averaging_game(G)) for G in (0.3, 1.0, 3.0, 5.0, 9.0)}
    assert len(arcs) == 1
    for G in (0.3, 1.0, 5.0):
        g = fp.averaging_game(G)
        assert fp.is_preferentially_stable(g, S) and not fp.is_product(S)
        assert not fp.preference_graph(g).graph["ties"]
        x = _random_x(g, np.random.default_rng(1), 8)
        np.testing.assert_allclose(fp.outside_mass(g, S, x), x[:, 1] * x[:, 5], atol=1e-15)   # D_S = x_11 x_31
    assert sorted(fp.boxes(fp.averaging_game(1.0), S, maximal=True)) == [((0,), (0, 1), (0, 1)), ((0, 1), (0, 1), (0,))]


def test_exit_rates_of_the_averaging_game_match_the_field():
    # the chapter's formulas: d/dt log D_S = x_10 * Delta1(x2, x3) + x_30 * Delta3(x1, x2)
    G, h = 4.0, -1.0
    g = fp.averaging_game(G, h)
    S = fp.averaging_set()
    x = _random_x(g, np.random.default_rng(3), 20)
    p1, p2, p3 = x[:, 1], x[:, 3], x[:, 5]
    delta1 = 4 * (1 - p3) * (2 * p2 - 1) - p3
    delta3 = G * (1 - p1) * (1 - p2) + h * (1 - p1) * p2 - p1
    formula = (1 - p1) * delta1 + (1 - p3) * delta3
    np.testing.assert_allclose(fp.aggregate_drift(g, S, x), formula, atol=1e-12)
    # and against a finite difference of log D_S along the replicator field (an independent route)
    eps = 1e-6
    v = dyn.replicator_velocity(g, x)
    fd = (np.log(fp.outside_mass(g, S, x + eps * v)) - np.log(fp.outside_mass(g, S, x - eps * v))) / (2 * eps)
    np.testing.assert_allclose(fd, formula, rtol=1e-5, atol=1e-7)


def test_face_averages_give_the_transverse_rate():
    cfg = fp.config_for("smoke", rate_G=(2.0, 4.0), rate_horizon=120.0)
    r = fp.rate_study(cfg)
    np.testing.assert_allclose(r.slope, (np.array([2.0, 3.0, 4.0]) - 1.0 - 2.0) / 4, atol=5e-3)
    assert np.all(np.abs(r.at_start - r.predicted) > 0.1)       # one point of the orbit would mislead


# -- the stability search -------------------------------------------------------------------------
REGRESSION = st.SearchSettings(levels=(1e-4, 1e-9, 1e-14), horizon=200.0, n_random=32, n_rounds=3, n_elite=4,
                               n_children=6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_finds_the_leaky_game_unstable_at_every_G(seed):
    tasks = [fp.StabilityTask(fp.leaky_game(G), fp.leaky_set()) for G in (1.0, 2.0, 5.0)]
    res = fp.search_stability(tasks, "entropic", REGRESSION, np.random.default_rng(seed))
    assert [r.label for r in res] == ["unstable"] * 3, [r.eps for r in res]


def test_search_finds_the_edge_construction_unaided():
    G = 2.0
    r = fp.search_one(fp.leaky_game(G), fp.leaky_set(), settings=REGRESSION, seed=4)
    assert np.all(r.eps > 0.1)
    # the worst start pushes at least two players off, at scales decades apart (two exits tuned to arrive
    # together); with one exit only the excursion would not grow at all (below)
    for m in r.worst_scales:
        assert (m > 1e-30).sum() >= 2, m
    pushed = np.sort(np.log10(r.worst_scales[-1][r.worst_scales[-1] > 1e-30]))
    assert pushed[-1] - pushed[0] >= 2, r.worst_scales[-1]
    # the one-coordinate protocol does not see it: no excursion at all from vertex-exit starts
    sampled = fp.sampled_protocol(fp.leaky_game(G), fp.leaky_set(), REGRESSION.levels, REGRESSION.horizon)
    assert np.all(sampled[1:] < 1e-3)


@pytest.mark.parametrize("regulariser", ["entropic", "euclidean"])
def test_search_labels_strict_equilibria_and_potential_sinks_stable(regulariser):
    levels = (1e-4, 1e-9, 1e-14) if regulariser == "entropic" else (1e-3, 1e-5, 1e-7)
    settings = st.SearchSettings(levels=levels, horizon=100.0, n_random=16, n_rounds=1, n_elite=2, n_children=4,
                                 rtol=1e-7 if regulariser == "entropic" else 1e-6)
    rng = np.random.default_rng(5)
    phi = rng.standard_normal((2, 2, 2))
    pot = NormalFormGame(np.stack([phi] * 3), "potential")
    tasks = [fp.StabilityTask(fp.coordination_game(), {(0, 0)}), fp.StabilityTask(fp.prisoners_dilemma(), {(1, 1)})]
    tasks += [fp.StabilityTask(pot, sink) for sink in fp.sink_equilibria(pot)]
    assert all(len(t.S) == 1 for t in tasks[2:])
    res = fp.search_stability(tasks, regulariser, settings, np.random.default_rng(0))
    assert [r.label for r in res] == ["stable"] * len(tasks), [r.eps for r in res]
    if regulariser == "euclidean":
        assert res[0].final_zero == 1.0                     # finite-time convergence onto a strict equilibrium
    # not preferentially stable sets of the same games: unstable
    bad = fp.search_stability([fp.StabilityTask(fp.coordination_game(), {(0, 1)}),
                               fp.StabilityTask(fp.coordination_game(), {(0, 0), (0, 1)})], regulariser, settings,
                              np.random.default_rng(0))
    assert [r.label for r in bad] == ["unstable", "unstable"]


def test_search_finds_the_split_corner_of_chicken():
    r = fp.search_one(fp.chicken_game(), {(0, 0), (1, 0), (0, 1)}, settings=REGRESSION, seed=0)
    assert fp.is_preferentially_stable(fp.chicken_game(), {(0, 0), (1, 0), (0, 1)})
    assert r.label == "unstable"


def test_averaging_game_labels_on_either_side_of_the_threshold():
    tasks = [fp.StabilityTask(fp.averaging_game(G), fp.averaging_set()) for G in (1.0, 5.0)]
    res = fp.search_stability(tasks, "entropic", REGRESSION, np.random.default_rng(0))
    assert [r.label for r in res] == ["stable", "unstable"]
    assert np.all(np.diff(np.log(res[0].eps)) < 0)          # epsilon(d) falls with d


def test_starts_sit_at_their_level_and_span_distance_is_exact():
    g, S = fp.averaging_game(2.0), fp.averaging_set()
    rng = np.random.default_rng(0)
    starts = st._random_starts(g, S, 50, 3, 12.0, rng)
    levels = np.array([1e-3, 1e-8, 1e-13])
    x0 = st.place_starts(g, S, starts, levels)
    D = fp.outside_mass(g, S, x0)
    ok = np.isclose(D, levels[starts.level], rtol=1e-6) | (D < levels[starts.level])
    assert ok.all() and np.isclose(D, levels[starts.level], rtol=1e-6).mean() > 0.5
    # distance to the span by brute force over the two faces, against span_distance
    x = _random_x(g, rng, 10)
    masks = st.box_masks(g, S)
    face_a1 = np.maximum(x[:, 1], 0)                        # face a1 = 0: player 1 must move x_11
    face_a3 = x[:, 5]                                       # face a3 = 0: player 3 must move x_31
    np.testing.assert_allclose(st.span_distance(x, masks, g.offsets), np.minimum(face_a1, face_a3), atol=1e-15)


def test_search_is_deterministic():
    g = fp.random_game((2, 2, 2), np.random.default_rng(9), min_gap=0.15)
    tasks = [fp.StabilityTask(g, S) for _, S in fp.product_sets(g)[:4]]
    settings = st.SearchSettings(levels=(1e-3, 1e-8), horizon=60.0, n_random=6, n_rounds=1, n_elite=2, n_children=2)
    a = fp.search_stability(tasks, "entropic", settings, np.random.default_rng(3))
    b = fp.search_stability(tasks, "entropic", settings, np.random.default_rng(3))
    for ra, rb in zip(a, b):
        np.testing.assert_array_equal(ra.eps, rb.eps)
    g1 = fp.random_games(((3, 3),), 3, 11, "r2", 0.15)
    g2 = fp.random_games(((3, 3),), 3, 11, "r2", 0.15)
    assert all(np.array_equal(x.payoffs, y.payoffs) for x, y in zip(g1, g2))


def test_rule_labels():
    rule = st.StabilityRule()
    lv = np.array([1e-4, 1e-8, 1e-12])
    assert rule.label(lv, np.array([0.3, 0.3, 0.2]), 1.0) == "unstable"
    assert rule.label(lv, np.array([1e-4, 1e-8, 1e-12]), 1e-5) == "stable"
    assert rule.label(lv, np.array([1e-4, 1e-8, 1e-12]), 10.0) == "undecided"      # still growing at T
    assert rule.label(lv, np.array([0.3, 0.01, 0.01]), 1e-5) == "undecided"        # flat at the small end
    assert rule.label(lv, np.array([0.3, 0.3, 1e-3]), 1e-5) == "undecided"


# -- leaklessness ---------------------------------------------------------------------------------
def test_leaklessness_reduces_to_preferential_stability_on_products():
    rng = np.random.default_rng(12)
    g = fp.random_game((2, 2, 3), rng, min_gap=0.15)
    for _, S in fp.product_sets(g):
        r = fp.leakless_score(g, S, rng, n_random=96, n_rounds=2)
        assert r.certified(1e-3) == fp.is_preferentially_stable(g, S)


def test_leaklessness_does_not_certify_the_counterexample():
    rng = np.random.default_rng(0)
    for G in (1.0, 5.0):       # the stable variant is not certified either: the certificate is only sufficient
        r = fp.leakless_score(fp.averaging_game(G), fp.averaging_set(), rng, n_random=128, n_rounds=2)
        assert r.score == pytest.approx(3.0, abs=1e-3)       # at (0,1,0): 4 + h along the corner
    assert fp.leakless_score(fp.coordination_game(), {(0, 0)}, rng).certified(1e-3)


# -- claim rules, both ways -----------------------------------------------------------------------
def _res(label, eps=(1e-4, 1e-8)):
    return st.SearchResult(task=None, regulariser="entropic", horizon=1.0, levels=np.array([1e-4, 1e-8]),
                           eps=np.array(eps, float), eps_dist=np.zeros(2), random_eps=np.zeros(2), final_ratio=0.0,
                           worst_x0=np.zeros((2, 6)), worst_scales=np.zeros((2, 3)), worst_time=np.zeros(2),
                           n_starts=10, label=label)


def _subgames(stable_labels, unstable_labels, games=None, sizes=None, regulariser="entropic"):
    """A subgame study; ``games`` gives each record's game (default: every set from its own game), ``sizes`` each
    record's number of profiles (default 2: a face, not a pure equilibrium)."""
    recs = [dict(pref_stable=True, label=lab, club=None) for lab in stable_labels]
    recs += [dict(pref_stable=False, label=lab, club=None) for lab in unstable_labels]
    for k, r in enumerate(recs):
        r["game"] = k if games is None else games[k]
        r["size"] = 2 if sizes is None else sizes[k]
    return fp.SubgameStudy(regulariser, np.array([1e-4, 1e-8]), 10.0, 20, recs)


def _leak(records, controls=()):
    return fp.LeakStudy(list(records), list(controls), np.array([1e-4, 1e-8]), 10.0, 1e-3)


def _cx(labels_by_G, same=True):
    G = np.array(sorted(labels_by_G))
    eps = {"stable": (1e-4, 1e-8), "unstable": (0.3, 0.3), "undecided": (0.3, 1e-3)}
    return fp.CounterexampleStudy(G=G, h=-1.0, levels=np.array([1e-4, 1e-8]), horizon=10.0, starts_per_set=10,
                                  same_graph=np.full(len(G), same), pref_stable=np.ones(len(G), bool),
                                  predicted=(G - 3) / 4, results=[_res(labels_by_G[g], eps[labels_by_G[g]]) for g in G],
                                  leaky_G=np.array([2.0]), leaky_pref_stable=np.array([True]),
                                  leaky=[_res("unstable", (0.3, 0.3))], sampled={})


def _limit(naive):
    naive = np.array(naive)
    return fp.LimitSetStudy(shapes=[], strict_nash=[], singleton_sinks=[], sinks=[], skeleton=[], skeleton_stable=naive,
                            leaving=[], clusters=[], one_to_one=naive, empty_fraction=np.zeros(len(naive)),
                            naive_skeleton=[frozenset({(0, 0)})] * len(naive), naive_stable=naive, n_starts=4,
                            horizon=1.0, tol=1e-6)


# -- the nearest trivial methods, run for real at a tiny size (CLAIMS.md rule 11) ----------------------
TINY = dict(r1_games=2, r1_starts=4, r2_shapes=((2, 2, 2),), r2_games=2, r2_games_euclidean=2, club_games=0,
            cx_G=(1.0, 5.0), cx_leaky_G=(2.0,), rate_G=(4.0, 5.0), rate_horizon=120.0, leak_games=4,
            leak_sets_per_game=3, control_sets_per_game=1, leak_points=48)


@functools.lru_cache(maxsize=None)
def _tiny(study: str, probes: str = "search"):
    """One study of the chapter at a tiny size (smoke's search budgets, fewer games), cached per test session."""
    cfg = fp.config_for("smoke", **TINY)
    if study == "limit-short":          # exponential weights stopped at T = 2: no long-run limit reached
        return fp.limit_set_study(fp.config_for("smoke", **dict(TINY, r1_horizon=2.0)), 0)
    if study in ("entropic", "euclidean"):
        return fp.subgame_study(cfg, 0, study, probes)
    if study == "cx":
        return fp.counterexample_study(cfg, 0, probes)
    if study == "rate":
        return fp.rate_study(cfg)
    if study == "leak":
        return fp.leakless_study(cfg, 3, probes)
    raise ValueError(study)


def _naive_prediction(st_: fp.SubgameStudy) -> fp.SubgameStudy:
    """The naive sink labelling as the predictor: a subgame is predicted stable iff it contains a strict pure Nash
    equilibrium (no closure under profitable deviations); the search's labels are the real ones."""
    games = fp.random_games(TINY["r2_shapes"], TINY["r2_games" if st_.regulariser == "entropic" else
                                                   "r2_games_euclidean"], 0, "r2", 0.15)
    recs = []
    for r in st_.records:
        S = set(itertools.product(*r["factors"]))
        recs.append(dict(r, pref_stable=bool(S & fp.strict_pure_nash(games[r["game"]]))))
    return fp.SubgameStudy(st_.regulariser, st_.levels, st_.horizon, st_.starts_per_set, recs)


def test_search_never_labels_an_open_set_stable():
    """Formerly claim C2 (issue 28 moved it here: it holds by how the search is built). On real random games the
    search labels no set left by a profitable arc stable, and it does label preferentially stable faces stable."""
    ent, euc, lk = _tiny("entropic"), _tiny("euclidean"), _tiny("leak")
    out = fc.open_set_check([ent, euc], lk)
    assert out["ok"], out["text"]
    assert all(v["n"] > 0 for v in out["counts"].values()), out["text"]
    assert out["counts"]["subgames"]["power"] > 0 and out["counts"]["non-product sets"]["power"] > 0, out["text"]
    for study in (ent, euc):
        assert any(r["pref_stable"] and r["size"] >= 2 and r["label"] == "stable" for r in study.records)
    # the same check on the one-coordinate protocol's labels: it calls open sets stable? It must not either, since
    # an open set's profitable arc is a one-coordinate exit; what it misses are split corners (claim 8's trivial case)
    assert fc.open_set_check([_tiny("entropic", "exits")], lk)["ok"]


@claim_case(SLUG, "C2b", "reproduced")
def _c2b_ok():
    return fc.claim2b(_limit([True] * 10))


@claim_case(SLUG, "C2b", "not reproduced", alternative="trajectories winding around part of a cyclic sink in one game")
def _c2b_alt():
    return fc.claim2b(_limit([True] * 9 + [False]))


@claim_case(SLUG, "C2b", "inconclusive at this scale", trivial="exponential weights stopped at T = 2, before any "
                                                               "long-run limit (no skeleton: vacuously closed)")
def _c2b_trivial():
    r1 = _tiny("limit-short")
    assert not any(r1.naive_skeleton) and r1.naive_stable.all()     # the old rule passed this vacuously
    return fc.claim2b(r1)


def test_claim2b_needs_a_non_empty_skeleton():
    lim = _limit([True] * 3 + [False])
    lim.naive_skeleton = [frozenset({(0, 0)})] * 3 + [frozenset()]
    assert fc.claim2b(lim).passed is True and "3 games with a non-empty" in fc.claim2b(lim).measured


# -- claims 3 and 7 -------------------------------------------------------------------------------
@claim_case(SLUG, "C3", "reproduced")
def _c3_ok():
    # the noise of a real run: the search leaves a few sets of the easy class undecided (1 of 61 here)
    return fc.claim3(_subgames(["stable"] * 20, ["unstable"] * 60 + ["undecided"]), 0.95)


@claim_case(SLUG, "C3", "not reproduced", alternative="every span labelled unstable (the easy class carries the pool)")
def _c3_alt():
    return fc.claim3(_subgames(["unstable"] * 3 + ["stable"] * 1, ["unstable"] * 96), 0.95)


@claim_case(SLUG, "C3", "inconclusive at this scale", alternative="the smoke profile's classes: one game with "
                                                                  "preferentially stable sets (too few games)")
def _c3_few_games():
    return fc.claim3(_subgames(["stable", "stable"], ["unstable"] * 72, games=[0, 0] + [0] * 26 + [1] * 46), 0.95)


@claim_case(SLUG, "C3", "not reproduced", trivial="the naive sink labelling as predictor (a subgame is stable iff it "
                                                  "contains a strict pure equilibrium), on the search's real labels")
def _c3_trivial():
    return fc.claim3(_naive_prediction(_tiny("entropic")), 0.95)


@claim_case(SLUG, "C7", "not reproduced", trivial="the naive sink labelling as predictor, on Euclidean FTRL's real "
                                                  "labels")
def _c7_trivial():
    return fc.claim7(_naive_prediction(_tiny("euclidean")), 0.95)


def _one_game_carries_the_pool():
    """Review rev_a: 40 nested stable sets of game 0 agree; of 4 other games with one preferentially stable set
    each, 2 are labelled unstable. 42/44 = 95.5 % of sets agree (the former rule passed); 3/5 games do: the
    interval of the games' share spans 0.5 (inconclusive since issue 28; it failed before)."""
    stable = ["stable"] * 40 + ["stable", "stable", "unstable", "unstable"]
    games = [0] * 40 + [1, 2, 3, 4] + list(range(5, 5 + 60))
    return _subgames(stable, ["unstable"] * 60, games=games)


@claim_case(SLUG, "C3", "inconclusive at this scale", alternative="preferences right in one game whose 40 nested "
                                                                  "sets carry the pool, wrong in 2 of the 4 others")
def _c3_one_game():
    return fc.claim3(_one_game_carries_the_pool(), 0.95)


@claim_case(SLUG, "C7", "inconclusive at this scale", alternative="the Euclidean characterisation right in one "
                                                                  "game's nested sets only (2 of 4 others wrong)")
def _c7_one_game():
    return fc.claim7(_one_game_carries_the_pool(), 0.95)


def _fails_in_games(n_games: int, bad: int):
    """Second review rev2 (session 5): the preferentially stable class comes from one game, while in the other
    class one set in each of ``bad`` of ``n_games`` games is labelled stable (the opposite way)."""
    labels = ["unstable"] * (6 * n_games)
    for k in range(bad):
        labels[6 * k] = "stable"
    return _subgames(["stable"] * 2, labels, games=[100, 100] + [k // 6 for k in range(6 * n_games)])


@claim_case(SLUG, "C3", "not reproduced", alternative="preferences fail in 9 of 12 games of the class that has "
                                                      "enough games (games' upper bound below 0.5)")
def _c3_escape_by_the_small_class():
    return fc.claim3(_fails_in_games(12, 9), 0.95)


@claim_case(SLUG, "C7", "not reproduced", alternative="the Euclidean characterisation fails in 9 of 12 games of the "
                                                      "class that has enough games")
def _c7_escape_by_the_small_class():
    return fc.claim7(_fails_in_games(12, 9), 0.95)


def test_subgame_rules_decide_three_ways_with_fixed_thresholds():
    # smoke's preferentially stable class: two nested sets of one game, both labelled stable -> inconclusive
    st_ = _subgames(["stable", "stable"], ["unstable"] * 72, games=[0, 0] + [0] * 26 + [1] * 46)
    for rule in (fc.claim3, fc.claim7):
        res = rule(st_, 0.95)
        assert res.verdict == "inconclusive at this scale" and res.inconclusive == "interval spans both"
        assert "5 needed" in res.reason
    assert fc.games_needed() == 5
    assert fc.claim3(_subgames(["stable"] * 5, ["unstable"] * 10), 0.95).passed is True
    assert fc.claim3(_subgames(["stable"] * 4, ["unstable"] * 10), 0.95).verdict == "inconclusive at this scale"
    # 3 of 12 games with one set the opposite way: 69/72 sets agree but at most 95.8 % can -> not below 95 %;
    # the games' upper bound (9/12 with none opposite) is 0.93 > 0.5: not evidence against -> inconclusive
    assert fc.claim3(_fails_in_games(12, 3), 0.95).verdict == "inconclusive at this scale"
    # undecided sets only: inconclusive; the same sets labelled the opposite way: not reproduced
    assert fc.claim7(_subgames(["stable"] * 5 + ["undecided"] * 5, ["unstable"] * 40), 0.95).passed is None
    assert fc.claim7(_subgames(["stable"] * 5 + ["unstable"] * 5, ["unstable"] * 40), 0.95).passed is False
    with pytest.raises(ValueError, match="agree_min"):
        fc.claim3(_subgames(["stable"] * 5 + ["unstable"] * 5, ["unstable"] * 72), 0.5)
    with pytest.raises(ValueError, match="rate_tol"):
        fc.claim5(_rate([-0.2501, 0.0001, 0.2499, 0.5002]), _cx({1.0: "stable", 2.5: "stable", 3.5: "unstable"}), 0.5)


def test_clopper_pearson_bounds():
    from scipy.stats import beta

    for k, n in ((5, 5), (7, 9), (23, 23)):
        assert fc.agreement_lower_bound(k, n) == pytest.approx(beta.ppf(0.05, k, n - k + 1), rel=1e-9)
    assert fc.agreement_lower_bound(5, 5) > 0.5 > fc.agreement_lower_bound(4, 4)
    for k, n in ((0, 5), (3, 12), (8, 9)):
        assert fc.agreement_upper_bound(k, n) == pytest.approx(beta.ppf(0.95, k + 1, n - k), rel=1e-9)
        lo, hi = fc.proportion_interval(k, n)
        assert lo == pytest.approx(beta.ppf(0.025, k, n - k + 1) if k else 0.0, abs=1e-12)
        assert hi == pytest.approx(beta.ppf(0.975, k + 1, n - k), rel=1e-9)


def test_counterexample_result_at_never_substitutes_a_neighbour():
    cx = _cx({1.0: "stable", 4.0: "unstable"})
    with pytest.raises(ValueError, match="G=5"):
        fc.claim4(cx, 1.0, 5.0)


# -- claims 4 and 5 -------------------------------------------------------------------------------
@claim_case(SLUG, "C4", "reproduced")
def _c4_ok():
    return fc.claim4(_cx({1.0: "stable", 5.0: "unstable"}), 1.0, 5.0)


@claim_case(SLUG, "C4", "not reproduced", alternative="both variants stable (what one-exit sampling reports)")
def _c4_alt():
    return fc.claim4(_cx({1.0: "stable", 5.0: "stable"}), 1.0, 5.0)


@claim_case(SLUG, "C4", "inconclusive at this scale", alternative="the search leaves the unstable variant undecided")
def _c4_undecided():
    return fc.claim4(_cx({1.0: "stable", 5.0: "undecided"}), 1.0, 5.0)


@claim_case(SLUG, "C4", "not reproduced", trivial="the one-coordinate vertex-exit protocol as the stability label "
                                                  "(the search's machinery and labels, exits only)")
def _c4_trivial():
    return fc.claim4(_tiny("cx", "exits"), 1.0, 5.0)


def _rate(slopes):
    G = np.array([2.0, 3.0, 4.0, 5.0])
    return fp.RateStudy(G, -1.0, (0.8, 0.5), np.array(slopes), (G - 3) / 4, G * 0.4 - 0.4 - 0.2, {})


@claim_case(SLUG, "C5", "reproduced")
def _c5_ok():
    return fc.claim5(_rate([-0.2501, 0.0001, 0.2499, 0.5002]), _cx({1.0: "stable", 2.5: "stable", 3.5: "unstable"}),
                     0.02)


@claim_case(SLUG, "C5", "not reproduced", alternative="the rate read at the orbit's start (G*0.4 - 0.6)")
def _c5_alt():
    G = np.array([2.0, 3.0, 4.0, 5.0])
    return fc.claim5(_rate(list(G * 0.4 - 0.6)), _cx({1.0: "stable", 2.5: "stable", 3.5: "unstable"}), 0.02)


@claim_case(SLUG, "C5", "not reproduced", alternative="a span that still escapes at G + h = 2 (slope 0.05 there)")
def _c5_alt_neutral():
    return fc.claim5(_rate([-0.2501, 0.05, 0.2499, 0.5002]), _cx({1.0: "stable", 2.5: "stable", 3.5: "unstable"}),
                     0.02)


@claim_case(SLUG, "C5", "not reproduced", trivial="the rate read at the orbit's start and the one-coordinate "
                                                  "protocol's labels, both computed")
def _c5_trivial():
    rate = _tiny("rate")
    one_point = fp.RateStudy(rate.G, rate.h, rate.start, rate.at_start, rate.predicted, rate.at_start, {})
    return fc.claim5(one_point, _tiny("cx", "exits"), 0.02)


def test_rate_study_includes_the_neutral_span():
    r = _tiny("rate")
    assert 3.0 in r.G                                           # G + h = 2 with h = -1, added whatever the config
    np.testing.assert_allclose(r.slope, r.predicted, atol=5e-3)


def test_corner_excursion_has_modulus_d_to_the_h_over_4():
    d = np.array([1e-4, 1e-8, 1e-12])
    for h in (-1.0, -2.0):
        eps = fp.corner_excursion(1.0, h, d)
        slope = np.polyfit(np.log(d), np.log(eps), 1)[0]
        assert slope == pytest.approx(abs(h) / 4, abs=0.01), (h, eps)


# -- claim 6 --------------------------------------------------------------------------------------
def _cert(certified_stable=0, certified_undecided=0, certified_unstable=0, stable=0, undecided=0, unstable=0):
    recs = ([dict(certified=True, label="stable")] * certified_stable
            + [dict(certified=True, label="undecided")] * certified_undecided
            + [dict(certified=True, label="unstable")] * certified_unstable
            + [dict(certified=False, label="stable")] * stable
            + [dict(certified=False, label="undecided")] * undecided
            + [dict(certified=False, label="unstable")] * unstable)
    return _leak(recs)


@claim_case(SLUG, "C6", "reproduced")
def _c6_ok():
    # the counts of a default-sized run (80 sets, 39 labelled stable): 18 certified, 17 stable, 1 undecided
    return fc.claim6(_cert(certified_stable=17, certified_undecided=1, stable=22, undecided=5, unstable=35))


@claim_case(SLUG, "C6", "not reproduced", alternative="a certificate that certifies an unstable span "
                                                      "(preferential stability certifies the counterexample)")
def _c6_alt():
    return fc.claim6(_cert(certified_stable=5, certified_unstable=1, stable=3, unstable=4))


@claim_case(SLUG, "C6", "inconclusive at this scale", alternative="the smoke profile's counts: 3 certified of 12")
def _c6_small():
    return fc.claim6(_cert(certified_stable=3, stable=6, undecided=1, unstable=2))


@claim_case(SLUG, "C6", "not reproduced", trivial="the ordinal certificate: certify every preferentially stable set "
                                                  "(on the search's real labels)")
def _c6_trivial():
    lk = _tiny("leak")
    ordinal = fp.LeakStudy([dict(r, certified=True) for r in lk.records], lk.controls, lk.levels, lk.horizon, lk.margin)
    return fc.claim6(ordinal)


def test_claim6_abstaining_certificate_does_not_pass():
    c = fc.claim6(_cert(stable=20, unstable=10))
    assert c.verdict == "inconclusive at this scale" and "no set certified" in c.reason


# -- claim 7 --------------------------------------------------------------------------------------
@claim_case(SLUG, "C7", "reproduced")
def _c7_ok():
    return fc.claim7(_subgames(["stable"] * 10, ["unstable"] * 40), 0.95)


@claim_case(SLUG, "C7", "not reproduced", alternative="Euclidean FTRL labels half the club faces unstable")
def _c7_alt():
    return fc.claim7(_subgames(["stable"] * 5 + ["unstable"] * 5, ["unstable"] * 40), 0.95)


# -- claim 8 --------------------------------------------------------------------------------------
@claim_case(SLUG, "C8", "reproduced")
def _c8_ok():
    return fc.claim8(_leak([dict(split_corner=True, label="unstable"), dict(split_corner=False, label="stable"),
                            dict(split_corner=False, label="unstable")]))


@claim_case(SLUG, "C8", "not reproduced", alternative="a split-corner set whose span is stable")
def _c8_alt():
    return fc.claim8(_leak([dict(split_corner=True, label="unstable"), dict(split_corner=True, label="stable")]))


@claim_case(SLUG, "C8", "inconclusive at this scale", alternative="the search leaves one split-corner set undecided")
def _c8_undecided():
    return fc.claim8(_leak([dict(split_corner=True, label="unstable"), dict(split_corner=True, label="undecided")]))


@claim_case(SLUG, "C8", "not reproduced", trivial="the one-coordinate vertex-exit protocol as the stability label")
def _c8_trivial():
    lk = _tiny("leak", "exits")
    assert lk.by_corner()["split corner"]["stable"] >= 1       # the tiny study has a split corner, and exits miss it
    return fc.claim8(lk)


def test_search_finds_the_audits_split_corner():
    """Issue 28: the default leak study's set of game 30 ("2x2x3 #14", one split corner at (1, 0, 2)) was labelled
    stable when the pair seeds were a random draw; every pair is now enumerated."""
    cfg = fp.config_for("default")
    g = fp.random_games(cfg.leak_shapes, cfg.leak_games, 0, "leak", cfg.min_gap)[30]
    S = frozenset({(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 1), (0, 1, 2), (1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 1, 1),
                   (1, 1, 2)})
    from icmlbook.papers.ftrl_preference_graphs.preference import split_corners

    assert g.name == "2x2x3 #14" and fp.is_preferentially_stable(g, S)
    assert split_corners(g, S) == [((1, 0, 2), 1, 1, 2, 0)]
    for seed in (0, 1):
        r = fp.search_stability([fp.StabilityTask(g, S)], "entropic", cfg.leak_search, np.random.default_rng(seed),
                                cfg.rule)[0]
        assert r.label == "unstable", r.eps


def test_pair_seeds_enumerate_every_pair_at_every_level():
    g, S = fp.averaging_game(2.0), fp.averaging_set()
    pairs = st.vertex_move_pairs(g, S)
    assert len(pairs) == len(S) * 3                          # 3 players with 2 actions: 3 pairs per vertex
    levels = np.array([1e-4, 1e-8])
    seeds = st._pair_seeds(g, S, 5, levels, 1, 12.0, np.random.default_rng(0))
    assert len(seeds.level) == len(pairs) * 6 * 2
    x0 = st.place_starts(g, S, seeds, levels)
    D = fp.outside_mass(g, S, x0)
    assert np.all(np.isclose(D, levels[seeds.level], rtol=1e-6) | (D < levels[seeds.level]))
    assert np.isclose(D, levels[seeds.level], rtol=1e-6).mean() > 0.5    # pairs whose joint move leaves S
    # the ratio tunings: log delta_i / log delta_j on the grid (before the shift, which is ~0 here)
    first = seeds.lam[:5]
    used = first[first > st.KAPPA_FLOOR + 1].reshape(5, 2)
    np.testing.assert_allclose(used[:, 0] / used[:, 1], st.pair_ratio_grid(5))


def test_recheck_only_lowers_stable_labels():
    settings = st.SearchSettings(levels=(1e-4, 1e-9), horizon=80.0, n_random=6, n_rounds=1, n_elite=2, n_children=2,
                                 pair_ratios=3)
    tasks = [fp.StabilityTask(fp.coordination_game(), {(0, 0)}), fp.StabilityTask(fp.averaging_game(1.0),
                                                                                 fp.averaging_set())]
    res = fp.search_stability(tasks, "entropic", settings, np.random.default_rng(0))
    for r in res:
        assert r.rechecked == (r.first_label == "stable")
        assert r.label == r.first_label or (r.first_label == "stable" and r.label != "stable")
    off = fp.search_stability(tasks, "entropic", dataclasses.replace(settings, recheck=False), np.random.default_rng(0))
    assert not any(r.rechecked for r in off)


def test_split_corners():
    from icmlbook.papers.ftrl_preference_graphs.preference import split_corners

    assert split_corners(fp.leaky_game(2.0), fp.leaky_set()) == [((0, 0, 0), 1, 1, 2, 1)]
    assert split_corners(fp.chicken_game(), {(0, 0), (1, 0), (0, 1)}) == [((0, 0), 0, 1, 1, 1)]
    assert split_corners(fp.averaging_game(2.0), fp.averaging_set()) == []
    assert split_corners(fp.chicken_game(), {(0, 0), (1, 0), (0, 1), (1, 1)}) == []      # the whole game


def test_claim_cases_give_their_verdicts():
    from icmlbook.runtime import claims as registry

    for key, cases in registry.CASES.items():
        if not key.startswith(SLUG + ":"):
            continue
        for case in cases:
            assert case.make().verdict == case.expected, case.name
    declared = {r.id for r in registry.rules_for(SLUG) if r.testable}
    tested = {k.split(":")[1] for k in registry.CASES if k.startswith(SLUG + ":")}
    assert declared == tested


# -- bad input ------------------------------------------------------------------------------------
def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="wrong shape"):
        NormalFormGame(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        NormalFormGame(np.array([[[np.nan, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]))
    g = fp.matching_pennies()
    with pytest.raises(ValueError, match="outside the game"):
        fp.is_preferentially_stable(g, {(0, 0), (2, 0)})
    with pytest.raises(ValueError, match="step_size"):
        fp.discrete_ftrl(g.payoffs, np.zeros((1, 4)), 0.0, 10)
    with pytest.raises(ValueError, match="regulariser"):
        fp.integrate_ftrl(g.payoffs, np.zeros((1, 4)), 1.0, "tsallis")
    with pytest.raises(ValueError, match="G="):
        fp.leaky_game(-1.0)
    with pytest.raises(ValueError, match="h="):
        fp.averaging_game(2.0, h=0.5)
    with pytest.raises(ValueError, match="log_span"):
        st.SearchSettings(log_span=4.0)
    with pytest.raises(ValueError, match="levels"):
        st.SearchSettings(levels=(1e-3,))
    with pytest.raises(ValueError, match="profile"):
        fp.config_for("huge")
    with pytest.raises(ValueError, match="r2_games"):
        fp.config_for("smoke", r2_games=0)
    with pytest.raises(ValueError, match="cx_stable_G"):
        fp.config_for("smoke", cx_stable_G=4.0)
    with pytest.raises(ValueError, match="r1_shapes"):
        fp.config_for("smoke", r1_shapes=((1, 3),))


def test_presets_validate():
    for profile in ("smoke", "default", "full"):
        cfg = fp.config_for(profile)
        assert cfg.headline_search.log_span >= 10 and min(cfg.cx_levels) <= 1e-14 or profile == "smoke"
