"""Tests of the ftrl_preference_graphs library: exact facts, independent references, bad input, determinism."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from icmlbook import ftrl_preference_graphs as fp
from icmlbook.ftrl_preference_graphs import claims as fc
from icmlbook.ftrl_preference_graphs.games import NormalFormGame, payoff_field


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
    x = fp.choice_map(y, g.offsets, "entropic")
    np.testing.assert_allclose(fp.entropic_strategy_velocity(g, y), fp.replicator_velocity(g, x), atol=1e-12)
    # and along a trajectory: score-space solution vs the replicator ODE integrated in x
    x0 = _random_x(g, rng, 1)[0]
    t_eval = np.linspace(0, 5, 11)
    res = fp.integrate_ftrl(g.payoffs, np.log(x0)[None], 5.0, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(lambda t, z: fp.replicator_velocity(g, z[None])[0], (0, 5), x0, t_eval=t_eval,
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
        np.testing.assert_allclose(rowwise.x_final[b], fp.choice_map(ref.y[:, -1][None], g.offsets, regulariser)[0],
                                   atol=2e-5)
        np.testing.assert_allclose(stacked.x_final[b], rowwise.x_final[b], atol=2e-5)


def test_simplex_projection_matches_bisection():
    rng = np.random.default_rng(0)
    for n in (2, 3, 5):
        y = rng.normal(size=(50, n)) * 2
        x = fp.project_simplex(y)
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


# -- the counterexample ---------------------------------------------------------------------------
def test_counterexample_graph_does_not_depend_on_G():
    S = fp.leaky_set()
    arcs = {fp.arc_set(fp.leaky_game(G)) for G in (0.5, 2.0, 3.5, 7.0)}
    assert len(arcs) == 1
    for G in (0.5, 2.0, 3.5, 7.0):
        g = fp.leaky_game(G)
        assert fp.is_preferentially_stable(g, S)
        assert fp.cce_leak(g, S).score == pytest.approx((G - 3) / 4, abs=1e-9)


def test_escape_rate_from_the_centre():
    G = 5.0
    g = fp.leaky_game(G)
    t = np.linspace(0, 80, 801)
    x0 = fp.centre_start(np.array([1e-12]))
    res = fp.integrate_ftrl(g.payoffs, fp.scores_from_strategies(x0, g.offsets, "entropic"), 80.0, t_eval=t,
                            rtol=1e-10, atol=1e-12)
    slope = fp.escape_slope(t, res.log_x[:, 0, 5], np.log(1e-12) + 2, np.log(1e-4))
    assert slope == pytest.approx((G - 3) / 4, rel=0.01)


# -- stability protocol and leak criteria ---------------------------------------------------------
@pytest.mark.parametrize("regulariser", ["entropic", "euclidean"])
def test_protocol_labels_coordination_sets(regulariser):
    g = fp.coordination_game()
    tasks = [fp.StabilityTask(g, {(0, 0)}), fp.StabilityTask(g, {(0, 1)}), fp.StabilityTask(g, {(0, 0), (0, 1)})]
    res = fp.stability_experiment(tasks, regulariser, [1e-2, 1e-6, 1e-10], 100.0, np.random.default_rng(0))
    assert [r.asymptotically_stable for r in res] == [True, False, False]
    if regulariser == "euclidean":
        assert res[0].all_hit_zero.all()


def test_protocol_is_deterministic():
    g = fp.random_game((2, 2, 2), np.random.default_rng(9), min_gap=0.15)
    tasks = [fp.StabilityTask(g, S) for _, S in fp.product_sets(g)[:6]]
    a = fp.stability_experiment(tasks, "entropic", [1e-2, 1e-8], 60.0, np.random.default_rng(3))
    b = fp.stability_experiment(tasks, "entropic", [1e-2, 1e-8], 60.0, np.random.default_rng(3))
    for ra, rb in zip(a, b):
        np.testing.assert_array_equal(ra.excursion, rb.excursion)
    g1 = fp.random_games(((3, 3),), 3, 11, "r2", 0.15)
    g2 = fp.random_games(((3, 3),), 3, 11, "r2", 0.15)
    assert all(np.array_equal(x.payoffs, y.payoffs) for x, y in zip(g1, g2))


def test_leak_criteria_reduce_to_preferential_stability_on_products():
    rng = np.random.default_rng(12)
    g = fp.random_game((2, 2, 3), rng, min_gap=0.15)
    for _, S in fp.product_sets(g):
        pref = fp.is_preferentially_stable(g, S)
        assert (fp.pointwise_leak(g, S) < 0) == pref
        assert (fp.cce_leak(g, S).score < 0) == pref


def test_claim_rules_on_synthetic_results():
    lk = fp.LeakStudy(records=[dict(L1=-1.0, L2=1.0, L3=-1.0, **{"L3*": -1.0}, stable=True),
                               dict(L1=1.0, L2=1.0, L3=-1.0, **{"L3*": -1.0}, stable=False)],
                      deltas=np.array([1e-2, 1e-6]), horizon=10.0)
    assert fc.claim6(lk, "L1").passed is True
    assert fc.claim6(lk, "L3*").passed is False


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
    with pytest.raises(ValueError, match="step_size"):
        fp.discrete_ftrl(g.payoffs, np.zeros((1, 4)), lambda t: -0.1, 10)
    with pytest.raises(ValueError, match="regulariser"):
        fp.integrate_ftrl(g.payoffs, np.zeros((1, 4)), 1.0, "tsallis")
    with pytest.raises(ValueError, match="G="):
        fp.leaky_game(-1.0)
    with pytest.raises(ValueError, match="profile"):
        fp.config_for("huge")
    with pytest.raises(ValueError, match="r2_games"):
        fp.config_for("smoke", r2_games=0)
    with pytest.raises(ValueError, match="deltas"):
        fp.config_for("smoke", deltas=(1e-2, 2.0))
    with pytest.raises(ValueError, match="r1_shapes"):
        fp.config_for("smoke", r1_shapes=((1, 3),))


def test_presets_validate():
    for profile in ("smoke", "default", "full"):
        cfg = fp.config_for(profile)
        assert cfg.deltas[0] > cfg.deltas[-1] > 0
