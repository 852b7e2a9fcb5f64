"""Tests of icmlbook.grokking (Xu, Vardi & Safran, "To Grok Grokking", arXiv 2601.19791).

Exact checks against independent references: the GD loop, scikit-learn's Ridge, a direct residual
computation, a Monte-Carlo estimate of the population loss, exact integer crossing times; plus
shapes, determinism and parameter validation. Small sizes: the file runs in seconds on one core.
"""

from __future__ import annotations

import dataclasses
import re

import icmlbook.grokking as gk
import numpy as np
import pytest
import torch
from icmlbook.grokking import linear
from icmlbook.grokking import nn as gnn


@pytest.fixture(scope="module")
def small():
    """A small spiked problem (n=40 < m=160, k=4) and a standard normal initial direction."""
    g = np.random.default_rng(7)
    data = gk.spiked_gaussian_design(40, 160, 4, 0.2, g)
    return gk.RidgeProblem(data), g.standard_normal(160)


# ------------------------------------------------------------------------------------------------
# data and problem
# ------------------------------------------------------------------------------------------------
def test_spiked_design_shapes_and_teacher():
    d = gk.spiked_gaussian_design(10, 30, 3, 0.5, np.random.default_rng(0))
    assert d.phi.shape == (10, 30) and d.theta_star.shape == (30,) and d.sigma_diag.shape == (30,)
    assert np.isclose(np.linalg.norm(d.theta_star), 1.0)
    assert np.all(d.theta_star[3:] == 0)
    np.testing.assert_allclose(d.sigma_diag, np.r_[np.ones(3), np.full(27, 0.25)])


def test_unit_sphere_design_rows_have_unit_norm():
    d = gk.unit_sphere_design(8, 20, np.random.default_rng(0))
    np.testing.assert_allclose(np.linalg.norm(d.phi, axis=1), 1.0)
    np.testing.assert_allclose(d.sigma_diag, 1 / 20)


def test_eigenstructure_matches_eigh(small):
    problem, _ = small
    H = problem.phi.T @ problem.phi / problem.n
    assert problem.rank == problem.n  # Gaussian rows: full row rank
    ref = np.linalg.eigvalsh(H)[::-1][: problem.rank]
    np.testing.assert_allclose(problem.eigvals, ref, rtol=1e-10)
    np.testing.assert_allclose(H @ problem.eigvecs, problem.eigvecs * problem.eigvals, atol=1e-12)
    # trace of P_N Sigma from an explicit projector
    P_N = np.eye(problem.m) - problem.eigvecs @ problem.eigvecs.T
    assert np.isclose(problem.null_trace, np.trace(P_N @ np.diag(problem.sigma_diag)), rtol=1e-10)


def test_gram_and_svd_routes_agree(small):
    problem, _ = small
    assert problem.method == "gram"
    svd = gk.RidgeProblem(problem.data, method="svd")
    np.testing.assert_allclose(problem.eigvals, svd.eigvals, rtol=1e-12)
    np.testing.assert_allclose(problem.eigvecs @ problem.eigvecs.T, svd.eigvecs @ svd.eigvecs.T, atol=1e-12)
    np.testing.assert_allclose(problem.eigvecs.T @ problem.eigvecs, np.eye(problem.rank), atol=1e-12)


def test_rank_deficient_data_fall_back_to_svd():
    g = np.random.default_rng(1)
    d = gk.spiked_gaussian_design(12, 40, 3, 0.5, g)
    phi = np.vstack([d.phi, d.phi[:4]])  # four duplicated rows: rank 12 with n = 16
    problem = gk.RidgeProblem(dataclasses.replace(d, phi=phi))
    assert problem.method == "svd" and problem.rank == 12
    z = g.standard_normal(40)
    steps = np.array([0, 5, 200])
    cf = gk.closed_form_trajectory(problem, z, 0.3, 0.01, steps)
    np.testing.assert_allclose(cf, gk.gd_loop(problem, z, 0.3, 0.01, steps), rtol=0, atol=1e-10)


# ------------------------------------------------------------------------------------------------
# closed form against independent references
# ------------------------------------------------------------------------------------------------
def test_closed_form_equals_gd_loop(small):
    problem, z = small
    steps = np.array([0, 1, 2, 7, 50, 400, 1500])
    theta0 = np.stack([3.0 * z, 0.1 * z])
    cf = gk.closed_form_trajectory(problem, theta0, 0.4, 0.01, steps)
    gd = gk.gd_loop(problem, theta0, 0.4, 0.01, steps)
    assert cf.shape == gd.shape == (2, steps.size, problem.m)
    rel = np.linalg.norm(cf - gd, axis=-1) / np.linalg.norm(gd, axis=-1)
    assert rel.max() < 1e-10


def test_gd_loop_records_any_step_order(small):
    problem, z = small
    a = gk.gd_loop(problem, z, 0.4, 0.01, [5, 0, 5, 2])
    b = gk.gd_loop(problem, z, 0.4, 0.01, [0, 2, 5])
    np.testing.assert_array_equal(a[[1, 3, 0]], b)
    np.testing.assert_array_equal(a[0], a[2])


def test_gd_end_point_is_sklearn_ridge(small):
    from sklearn.linear_model import Ridge

    problem, z = small
    lam, eta = 0.05, 1.0 / (problem.s_max + 0.05)
    y = problem.phi @ problem.theta_star
    ref = Ridge(alpha=problem.n * lam, fit_intercept=False, solver="svd").fit(problem.phi, y).coef_
    end = gk.gd_loop(problem, 0.1 * z, eta, lam, [4000])[0]
    assert np.linalg.norm(end - ref) / np.linalg.norm(ref) < 1e-8
    assert np.linalg.norm(problem.ridge_solution(lam) - ref) / np.linalg.norm(ref) < 1e-10


def test_null_space_component_decays_exactly_by_weight_decay(small):
    problem, z = small
    eta, lam = 0.3, 0.02
    steps = np.array([0, 1, 10, 100, 300])
    thetas = gk.gd_loop(problem, 5.0 * z, eta, lam, steps)
    null = problem.null_part(thetas)
    expected = (1 - eta * lam) ** steps[:, None] * problem.null_part(5.0 * z)
    np.testing.assert_allclose(null, expected, rtol=0, atol=1e-11 * np.abs(expected).max())
    # and the data never see it: the residuals do not depend on P_N theta
    assert np.abs(problem.phi @ problem.null_part(z)).max() < 1e-12


def test_train_loss_matches_direct_residuals(small):
    problem, z = small
    steps = np.array([0, 3, 30, 300])
    traj = problem.trajectory(2.0 * z, 0.4, 0.01)
    thetas = gk.gd_loop(problem, 2.0 * z, 0.4, 0.01, steps)
    y = problem.phi @ problem.theta_star
    direct = np.array([0.5 * np.mean((problem.phi @ th - y) ** 2) for th in thetas])
    np.testing.assert_allclose(traj.train_loss(steps), direct, rtol=1e-9)
    np.testing.assert_allclose(problem.train_loss(thetas), direct, rtol=1e-12)
    assert np.isclose(traj.train_loss([10**7]), problem.ridge_train_loss(0.01), rtol=1e-9)


def test_test_loss_matches_monte_carlo(small):
    problem, z = small
    theta = problem.trajectory(z, 0.4, 0.01).theta([25])[0]
    exact = problem.test_loss(theta)
    g = np.random.default_rng(3)
    x = g.standard_normal((200_000, problem.m)) * np.sqrt(problem.sigma_diag)
    samples = 0.5 * (x @ (theta - problem.theta_star)) ** 2
    se = samples.std() / np.sqrt(samples.size)
    assert abs(samples.mean() - exact) < 4 * se
    # closed-form test loss agrees with the direct formula on the same iterate
    assert np.isclose(problem.trajectory(z, 0.4, 0.01).test_loss([25])[0], exact, rtol=1e-10)


def test_curves_batch_over_initialisations(small):
    problem, z = small
    nus = np.array([0.1, 1.0, 10.0])
    steps = gk.log_time_grid(2000, 30)
    batched = problem.trajectory(nus[:, None] * z, 0.4, 0.01).test_loss(steps)
    assert batched.shape == (3, steps.size)
    for i, nu in enumerate(nus):
        np.testing.assert_allclose(batched[i], problem.trajectory(nu * z, 0.4, 0.01).test_loss(steps), rtol=1e-12)


# ------------------------------------------------------------------------------------------------
# crossing times and theory
# ------------------------------------------------------------------------------------------------
def test_first_crossing_time_is_exact_on_a_monotone_curve():
    f = lambda t: 1000.0 / (1.0 + np.asarray(t, float))
    grid = np.array([0, 1, 10, 100, 1000, 10000])
    assert gk.first_crossing_time(grid, f(grid), 3.3, evaluate=f) == 303
    assert gk.first_crossing_time(grid, f(grid), 3.3) == 1000  # grid point only
    assert gk.first_crossing_time(grid, f(grid), 5000.0, evaluate=f) == 0
    assert np.isinf(gk.first_crossing_time(grid, f(grid), 0.01, evaluate=f))
    # vectorised over curves with their own thresholds
    curves = np.stack([f(grid), 2 * f(grid)])
    out = gk.first_crossing_time(grid, curves, np.array([3.3, 3.3]),
                                 evaluate=lambda t: np.stack([f(t[0]), 2 * f(t[1])]))
    np.testing.assert_array_equal(out, [303, 606])


def test_measured_crossing_is_first_integer_below(small):
    problem, z = small
    traj = problem.trajectory(z, 0.4, 0.01)
    grid = gk.log_time_grid(5000, 40)
    t = int(traj.first_time_below("test", 0.05, grid))
    vals = traj.test_loss([t - 1, t])
    assert vals[0] > 0.05 >= vals[1]


def test_predicted_grokking_time_close_to_measured():
    g = np.random.default_rng(11)
    problem = gk.RidgeProblem(gk.spiked_gaussian_design(60, 600, 6, 0.1, g))
    theta0 = 1.0 * g.standard_normal(600)
    eta, lam, eps = 0.5, 2e-3, 2e-2
    assert problem.ridge_test_loss(lam) < eps / 2
    measured = problem.trajectory(theta0, eta, lam).first_time_below("test", eps, gk.log_time_grid(20000, 60))
    realised = gk.predicted_grokking_time(problem, eta, lam, eps, theta0=theta0)
    expected = gk.predicted_grokking_time(problem, eta, lam, eps, nu=1.0)
    assert measured > 500  # a real plateau
    assert 1 / 1.5 < measured / realised < 1.5
    assert 1 / 1.5 < measured / expected < 1.5
    # the fit-time prediction is an upper bound on the measured time
    t_fit = problem.trajectory(theta0, eta, lam).first_time_below("train", 1e-3, gk.log_time_grid(20000, 60))
    assert t_fit <= gk.predicted_fit_time(problem, eta, lam, 1e-3, theta0=theta0)
    # eliminated: a tiny init has no plateau to wait out
    assert gk.predicted_grokking_time(problem, eta, lam, eps, nu=1e-3) == 0.0
    assert np.isinf(gk.predicted_grokking_time(problem, eta, lam, 1e-6, nu=1.0))


def test_unstable_step_size_raises_naming_eta(small):
    problem, z = small
    bound = 2 / (problem.s_max + 0.01)
    with pytest.raises(ValueError, match="eta="):
        problem.trajectory(z, 1.01 * bound, 0.01)
    with pytest.raises(ValueError, match="eta="):
        gk.gd_loop(problem, z, 1.01 * bound, 0.01, [1])
    with pytest.raises(ValueError, match="lam="):
        problem.ridge_solution(-1.0)


# ------------------------------------------------------------------------------------------------
# configuration
# ------------------------------------------------------------------------------------------------
def test_presets_are_valid_and_overridable():
    for profile in ("smoke", "default", "full"):
        cfg = gk.config_for(profile)
        assert isinstance(cfg, gk.GrokkingConfig)
    assert gk.config_for("smoke", n_seeds=1).n_seeds == 1
    with pytest.raises(ValueError, match="not_a_field"):
        gk.config_for("smoke", not_a_field=1)
    with pytest.raises(ValueError, match="profile"):
        gk.config_for("huge")


@pytest.mark.parametrize("field, value", [
    ("n", 0), ("k", 500), ("m", 50), ("sigma", -1.0), ("eta", 0.0), ("eps_test", 0.0), ("nu_grid", (1.0,)),
    ("lam_grid", (1e-3, -1e-3)), ("n_grid", (5, 100)), ("nn_optimizer", "sgd"), ("nn_loss", "hinge"),
    ("nn_train_fraction", 1.0), ("nn_lams", ()), ("nn_width", 0), ("curve_nus", [1.0]),
])
def test_bad_config_values_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"^{field}={re.escape(repr(value))} is not allowed; "):
        gk.config_for("default", **{field: value})


@pytest.mark.parametrize("field, value, allowed", [
    ("n", True, "n must be an integer >= 2; got bool"),
    ("eta", "0.5", "eta must be a finite real number > 0; got str"),
    ("nn_train_fraction", 1.0, "nn_train_fraction must be a finite real number in (0, 1)"),
    ("nn_optimizer", "sgd", "nn_optimizer must be one of 'adamw', 'gd'"),
    ("nu_grid", (1.0, 2.0), "nu_grid must be a tuple of at least 3 distinct entries, each a finite real number > 0"),
    ("n_grid", (5, 100), "every entry must be > k=20 and < m=2000"),
    ("lam", 3.0, "eta*lam must be < 1"),
])
def test_bad_config_values_say_what_is_allowed(field, value, allowed):
    with pytest.raises(ValueError) as err:
        gk.config_for("default", **{field: value})
    assert allowed in str(err.value)


# ------------------------------------------------------------------------------------------------
# network
# ------------------------------------------------------------------------------------------------
def test_modular_addition_data():
    d = gk.modular_addition_data(7, 0.5, 0)
    assert d.a.shape == d.b.shape == d.y.shape == (49,)
    assert torch.equal(d.y, (d.a + d.b) % 7)
    assert d.n_train == 24 or d.n_train == 25
    assert torch.equal(d.train_mask, gk.modular_addition_data(7, 0.5, 0).train_mask)
    with pytest.raises(ValueError, match="train_fraction"):
        gk.modular_addition_data(7, 1.5, 0)


def test_mlp_forward_shapes_and_one_hot_equivalence():
    p, K, width = 5, 3, 8
    model = gk.BatchedMLP(K, p, width).init_scaled([1, 1, 2], [1.0, 2.0, 1.0])
    a = torch.tensor([0, 1, 4, 2])
    b = torch.tensor([3, 3, 0, 1])
    out = model(a, b)
    assert out.shape == (K, 4, p)
    assert model(a.expand(K, -1), b.expand(K, -1)).shape == (K, 4, p)
    # the row lookup is W1^T [e_a; e_b]
    x = torch.cat([torch.nn.functional.one_hot(a, p), torch.nn.functional.one_hot(b, p)], 1).float()
    ref = ((x @ model.w1[0]) ** 2) @ model.w2[0]
    torch.testing.assert_close(out[0], ref)
    # alpha scales the shared base draw; a degree-3 network's output scales as alpha^3
    torch.testing.assert_close(model.w1[1], 2.0 * model.w1[0])
    torch.testing.assert_close(out[1], 8.0 * out[0])
    assert model.weight_norm().shape == (K,)


def _tiny_run(settings, **kw):
    args = {"p": 7, "train_fraction": 0.6, "width": 16, "steps": 40, "lr": 1e-2, "n_eval": 10,
            "show_progress": False}
    args.update(kw)
    return gk.train_modular_mlps(settings, **args)


def test_tiny_nn_run_is_deterministic_and_models_are_independent():
    settings = [(0, 0.5, 1.0), (0, 1.0, 2.0), (1, 0.0, 1.0)]
    r1, r2 = _tiny_run(settings), _tiny_run(settings)
    for field in ("train_loss", "test_loss", "train_acc", "test_acc", "weight_norm"):
        np.testing.assert_array_equal(getattr(r1, field), getattr(r2, field))
        assert getattr(r1, field).shape == (3, r1.steps.size)
    # batching does not couple the models: model 1 alone follows the same curve
    alone = _tiny_run([settings[1]])
    np.testing.assert_allclose(alone.train_loss[0], r1.train_loss[1], rtol=1e-4)
    np.testing.assert_allclose(alone.weight_norm[0], r1.weight_norm[1], rtol=1e-4)
    assert r1.optimizer == "adamw" and r1.steps[0] == 0 and r1.steps[-1] == 40


def test_gd_optimizer_and_dense_evaluation_grid():
    run = gk.train_modular_mlps([(0, 1.0, 1.0), (0, 0.0, 1.0)], p=5, train_fraction=0.4, width=4, steps=3,
                                lr=0.1, optimizer="gd", n_eval=3, eval_every=1, show_progress=False,
                                stop_factor=None)
    assert run.optimizer == "gd" and run.steps.tolist() == [0, 1, 2, 3]
    assert np.all(np.isfinite(run.train_loss))
    assert gnn.log_step_grid(100, 5, every=40).tolist() == [0, 1, 3, 10, 32, 40, 80, 100]


def test_nn_rejects_bad_options():
    with pytest.raises(ValueError, match="optimizer"):
        _tiny_run([(0, 1.0, 1.0)], optimizer="sgd")
    with pytest.raises(ValueError, match="activation"):
        gk.BatchedMLP(1, 5, 4, activation="sine")


# ------------------------------------------------------------------------------------------------
# experiments and claims (smoke sizes shrunk further)
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_cfg():
    return gk.config_for("smoke", n=60, m=600, k=6, n_seeds=2, n_grid=(30, 60, 150), gd_check_steps=200,
                         t_points=60)


def test_linear_experiments_and_claims_run(tiny_cfg):
    grid = gk.eta_lam_grid(tiny_cfg, 0, show_progress=False)
    assert grid.t_gen.shape == (2, 3, 3)
    sweep = gk.nu_sweep(tiny_cfg, 0, show_progress=False)
    assert sweep.t_gen.shape == (2, len(tiny_cfg.nu_grid))
    n_sweep = gk.sample_size_sweep(tiny_cfg, 0, show_progress=False)
    elim = gk.elimination_tradeoff(tiny_cfg, 0, show_progress=False)
    check = gk.closed_form_vs_gd(tiny_cfg, 0)
    curves = gk.three_stage_curves(tiny_cfg, 0)
    assert curves.test_loss.shape == (len(tiny_cfg.curve_nus) * len(tiny_cfg.curve_lams), curves.steps.size)
    # deterministic for a fixed seed
    np.testing.assert_array_equal(gk.eta_lam_grid(tiny_cfg, 0, show_progress=False).t_gen, grid.t_gen)
    # measured times are integers
    assert np.all(grid.t_gen == np.round(grid.t_gen))
    for result in (gk.claim1_early_fit(grid), gk.claim2_plateau(sweep), gk.claim3_generalisation(n_sweep),
                   gk.claim4_inverse_eta_lam(grid), gk.claim5_log_nu(sweep), gk.claim6_elimination(elim),
                   gk.claim7_closed_form(check)):
        measured, passed = result
        assert isinstance(measured, str) and isinstance(passed, bool)
    assert gk.claim4_inverse_eta_lam(grid).passed and gk.claim5_log_nu(sweep).passed
    assert gk.claim7_closed_form(check).passed


def test_claim_rules_follow_the_data(tiny_cfg):
    grid = gk.eta_lam_grid(tiny_cfg, 0, show_progress=False)
    broken = dataclasses.replace(grid, t_gen=grid.t_gen * grid.etas[None, :, None])  # t_gen ~ 1/lam only
    assert not gk.claim4_inverse_eta_lam(broken).passed
    check = gk.closed_form_vs_gd(tiny_cfg, 0)
    assert not gk.claim7_closed_form(dataclasses.replace(check, max_rel_error=1e-3)).passed


def test_loglog_slope_recovers_a_power_law():
    x = np.geomspace(0.1, 100, 9)
    fit = gk.loglog_slope(x, 3.0 * x**2)
    assert np.isclose(fit.slope, 2.0) and np.isclose(fit.r2, 1.0)


def test_claim8_on_a_synthetic_run():
    lam = np.repeat([0.5, 1.0, 2.0], 2)
    alpha = np.tile([1.0, 2.0], 3)
    t_grok = 1000.0 / lam * (1 + 0.2 * np.log(alpha))
    run = gnn.NNRun(lam=lam, alpha=alpha, seed=np.zeros(6, int), steps=np.array([0, 10]),
                    train_acc=np.ones((6, 2)), test_acc=np.ones((6, 2)), train_loss=np.zeros((6, 2)),
                    test_loss=np.zeros((6, 2)), weight_norm=np.ones((6, 2)), t_fit=np.full(6, 50.0),
                    t_grok=t_grok, optimizer="adamw", loss="cross_entropy", activation="quadratic", lr=1e-3,
                    fit_accuracy=0.99, grok_accuracy=0.9, p=7, width=8, n_train=20, device="cpu")
    res = gk.claim8_nn_transfer(run)
    assert res.passed and np.isclose(res.values["slope"], -1.0)
    flat = dataclasses.replace(run, t_grok=np.full(6, 1000.0))
    assert not gk.claim8_nn_transfer(flat).passed


def test_linear_module_exports():
    assert set(linear.__all__) <= set(dir(linear))
    assert set(gk.__all__) <= set(dir(gk))
