"""Tests of the ts_pairwise_ranking library: exact agreement with aeon and tslearn, soft-TWED limits,
finite-difference gradients, Lipschitz bounds, recovery of a planted ideal, bad inputs, determinism."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from icmlbook.ts_pairwise_ranking import data as D
from icmlbook.ts_pairwise_ranking import distances as dist
from icmlbook.ts_pairwise_ranking import experiments as E
from icmlbook.ts_pairwise_ranking.config import config_for
from icmlbook.ts_pairwise_ranking.model import IdealPointModel

aeon_distances = pytest.importorskip("aeon.distances")


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _series(seed, n, T, S, p=None):
    r = np.random.default_rng(seed)
    shape_x = (n, T) if p is None else (n, T, p)
    shape_y = (n, S) if p is None else (n, S, p)
    return r.normal(size=shape_x), r.normal(size=shape_y)


@pytest.mark.parametrize("T,S", [(1, 1), (5, 9), (17, 12), (30, 30)])
def test_dtw_and_twed_match_aeon(T, S):
    x, y = _series(T * 100 + S, 12, T, S)
    ours_dtw = dist.dtw(torch.as_tensor(x), torch.as_tensor(y)).numpy()
    for nu, lam in ((0.001, 1.0), (0.5, 0.0), (0.0, 0.3)):
        ours = dist.twed(torch.as_tensor(x), torch.as_tensor(y), nu=nu, lam=lam).numpy()
        ref = [aeon_distances.twe_distance(x[b], y[b], nu=nu, lmbda=lam) for b in range(len(x))]
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    ref = [aeon_distances.dtw_distance(x[b], y[b]) for b in range(len(x))]
    np.testing.assert_allclose(ours_dtw, ref, rtol=1e-12, atol=1e-12)


def test_multivariate_matches_aeon():
    x, y = _series(3, 6, 11, 8, p=3)
    ours = dist.twed(torch.as_tensor(x), torch.as_tensor(y)).numpy()
    ref = [aeon_distances.twe_distance(x[b].T, y[b].T) for b in range(len(x))]
    np.testing.assert_allclose(ours, ref, rtol=1e-12)
    ours = dist.dtw(torch.as_tensor(x), torch.as_tensor(y)).numpy()
    ref = [aeon_distances.dtw_distance(x[b].T, y[b].T) for b in range(len(x))]
    np.testing.assert_allclose(ours, ref, rtol=1e-12)


def test_soft_dtw_matches_tslearn():
    ts = pytest.importorskip("tslearn.metrics")
    x, y = _series(4, 8, 14, 10)
    for gamma in (0.01, 0.1, 1.0, 10.0):
        ours = dist.soft_dtw(torch.as_tensor(x), torch.as_tensor(y), gamma).numpy()
        ref = [ts.soft_dtw(x[b][:, None], y[b][:, None], gamma=gamma) for b in range(len(x))]
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


def test_soft_twed_tends_to_twed_within_bounds():
    x, y = _series(5, 10, 15, 12)
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    exact = dist.twed(xt, yt).numpy()
    errs = []
    for gamma in (1.0, 0.1, 0.01, 1e-3, 1e-4):
        soft = dist.soft_twed(xt, yt, gamma=gamma, eps=0.0).numpy()
        assert np.all(soft <= exact + 1e-10)
        assert np.all(soft >= exact - gamma * (15 + 12) * np.log(3) - 1e-10)
        errs.append(np.max(np.abs(soft - exact) / exact))
    assert errs[-1] < 1e-4
    assert np.all(np.diff(errs) < 0)


def test_gradcheck_float64():
    x, y = _series(6, 2, 6, 5)
    xt = torch.as_tensor(x).requires_grad_(True)
    yt = torch.as_tensor(y).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a, b: dist.soft_twed_divergence(a, b, nu=0.1, lam=0.5, gamma=0.2, eps=0.05),
                                    (xt, yt))
    assert torch.autograd.gradcheck(lambda a, b: dist.soft_dtw_divergence(a, b, gamma=0.3), (xt, yt))
    assert torch.autograd.gradcheck(lambda a, b: dist.dtw(a, b, gamma=0.5, cost="euclidean", eps=0.1), (xt, yt))


def test_hard_dtw_alignment_is_a_monotone_path():
    x, y = _series(7, 1, 9, 13)
    A = E.alignment_matrix(x[0], y[0], "dtw")
    assert set(np.unique(A)) <= {0.0, 1.0}
    cells = np.argwhere(A == 1)
    assert tuple(cells[0]) == (0, 0) and tuple(cells[-1]) == (8, 12)
    steps = np.diff(cells, axis=0)
    assert np.all(steps >= 0) and np.all(steps.sum(1) >= 1) and np.all(steps.max(1) == 1)
    # the path's cost is the DTW value
    c = dist.pointwise_cost(dist.as_batch(x[:1]), dist.as_batch(y[:1]))[0].numpy()
    assert np.isclose((A * c).sum(), float(dist.dtw(x[:1], y[:1])[0]))
    # soft-DTW's expected alignment has the right marginals: row sums >= 1
    As = E.alignment_matrix(x[0], y[0], "dtw", gamma=1.0)
    assert np.all(As.sum(1) >= 1 - 1e-9)


def test_lipschitz_bounds_hold():
    cfg = config_for("smoke", n_pairs_check=100)
    res = E.lipschitz_check(cfg, 0)
    for k, v in res.ratios.items():
        assert np.all(v <= 1 + 1e-9), k


def test_comparison_simulator_and_majority_vote():
    r = np.random.default_rng(0)
    score = np.arange(20.0)
    comp = D.simulate_comparisons(score, 2000, r, beta=100.0, flip=0.0)
    assert np.all(comp.y == (score[comp.i] > score[comp.j]))
    noisy = D.simulate_comparisons(score, 4000, r, beta=100.0, flip=0.25)
    assert abs(np.mean(noisy.y != (score[noisy.i] > score[noisy.j])) - 0.25) < 0.03
    raw = D.Comparisons(np.array([0, 0, 0, 1, 1]), np.array([1, 1, 1, 2, 2]), np.array([1, 0, 1, 0, 0]),
                        np.array([0, 1, 2, 0, 1]))
    mv = D.majority_vote(raw, r)
    got = {(int(a), int(b)): int(c) for a, b, c in zip(mv.i, mv.j, mv.y)}
    assert got == {(0, 1): 1, (1, 2): 0}


def test_ideal_point_recovers_planted_ideal():
    r = np.random.default_rng(1)
    s = D.warped_family(60, 20, r, noise=0.05, warp=0.2, shift=0.08)
    model = IdealPointModel("softdtw", gamma=0.1, steps=60, lr=0.08, dtype=torch.float64)
    d = model.distances(s.X, s.ideal).numpy()
    comp = D.simulate_from_scores(-d, D.random_pairs(60, 600, r), r, beta=20.0 / d.std())
    model.fit(s.X, comp, seed=0, U_true=s.ideal)
    assert E.tau(model.score(s.X), -d) > 0.85
    assert model.fit_.loss[-1] < model.fit_.loss[0]


def test_fit_is_deterministic():
    r = np.random.default_rng(2)
    s = D.warped_family(30, 16, r)
    comp = D.simulate_comparisons(s.score, 120, r)
    a = IdealPointModel("softtwed", steps=10).fit(s.X, comp, seed=3).U_
    b = IdealPointModel("softtwed", steps=10).fit(s.X, comp, seed=3).U_
    np.testing.assert_array_equal(a, b)


def test_bad_inputs():
    x = np.random.default_rng(0).normal(size=(3, 10))
    bad = x.copy()
    bad[0, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dist.twed(bad, x)
    with pytest.raises(ValueError, match="equal lengths"):
        dist.euclidean(x, x[:, :7])
    with pytest.raises(ValueError, match="gamma"):
        dist.dtw(x, x, gamma=-1.0)
    with pytest.raises(ValueError, match="nu"):
        dist.twed(x, x, nu=-0.1)
    with pytest.raises(ValueError, match="lam"):
        dist.twed(x, x, lam=-1)
    with pytest.raises(ValueError, match="distance"):
        IdealPointModel("cosine")
    with pytest.raises(ValueError, match="gamma"):
        IdealPointModel("softtwed", gamma=-0.5)
    comp = D.Comparisons(np.array([0, 5]), np.array([1, 2]), np.array([1, 0]), np.zeros(2, int))
    with pytest.raises(ValueError, match="unknown item 5"):
        IdealPointModel("softdtw", steps=1).fit(x, comp)
    with pytest.raises(ValueError, match="profile"):
        config_for("huge")
    with pytest.raises(ValueError, match="distance"):
        config_for("smoke", distance="manhattan")
    with pytest.raises(ValueError, match="n_items"):
        config_for("smoke", n_items=2)


def test_claim_rules_follow_the_numbers():
    from icmlbook.ts_pairwise_ranking import analysis as A
    w = E.WellSpecified("softdtw", np.array([1, 5]), np.array([10, 50]), np.array([0.5, 0.95]), np.array([0.5, 0.9]),
                        np.array([1.0, 0.4]), [np.linspace(1, 0, 50)] * 2, [], 5, 0.95, 10)
    assert A.claim3(w).passed is True
    w.tau_main = 0.8
    assert A.claim3(w).passed is False
    assert A.claim7(w).passed is True
