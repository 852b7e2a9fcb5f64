"""Tests of icmlbook.loes_layer_geometry (Batra et al., "Uncovering the Latent Potential of Deep
Intermediate Representations", arXiv 2605.23033).

Independent references: scikit-learn's Ridge, the Marchenko-Pastur value of the isotropy of a Gaussian,
orthogonality of residualised features, the cross-product / Heron area of a triangle, eigvalsh for the
eigenvalue variance, finite differences for GeoReg's gradient, planted layers for the selector."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

import icmlbook.loes_layer_geometry as lg


@pytest.fixture(autouse=True)
def _threads():
    from icmlbook.runtime import cpu_threads
    with cpu_threads(1):                       # restored afterwards: later tests see the process's count
        yield


def test_ridge_matches_sklearn():
    g = np.random.default_rng(0)
    X, Y = g.standard_normal((80, 12)), g.standard_normal((80, 3))
    W, b = lg.ridge_fit(X, Y, lam=0.7)
    ref = Ridge(alpha=0.7, fit_intercept=True).fit(X, Y)
    np.testing.assert_allclose(W.numpy(), ref.coef_.T, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(b.numpy(), ref.intercept_, rtol=1e-8, atol=1e-10)


def test_ridge_dual_route_equals_primal():
    g = np.random.default_rng(1)
    X, Y = g.standard_normal((30, 70)), g.standard_normal((30, 2))          # D > n: dual route
    W, b = lg.ridge_fit(X, Y, lam=0.3)
    ref = Ridge(alpha=0.3).fit(X, Y)
    np.testing.assert_allclose(W.numpy(), ref.coef_.T, rtol=1e-7, atol=1e-9)


def test_isotropy_of_gaussian_matches_marchenko_pastur():
    g = np.random.default_rng(2)
    n, d = 4000, 40
    X = 3.0 * g.standard_normal((n, d))
    assert lg.isotropy(X) == pytest.approx(np.sqrt(n / d), rel=0.08)
    # scale invariance and the svd route (D > 512) agree with the eig route on the same data
    assert lg.isotropy(5 * X) == pytest.approx(lg.isotropy(X), rel=1e-6)
    assert lg.isotropy(X, svd_above=10) == pytest.approx(lg.isotropy(X), rel=1e-4)


def test_isotropy_wide_route_equals_numpy_svd():
    g = np.random.default_rng(21)
    low_rank = g.standard_normal((80, 3)) @ g.standard_normal((3, 20))      # most eigenvalues clamped
    cases = [g.standard_normal((n, d)) @ np.diag(np.linspace(0.1, 3.0, d)) for n, d in ((60, 30), (40, 90))]
    for X in cases + [low_rank]:                              # D <= n, D > n (clamped zero), rank-deficient
        n = X.shape[0]
        Xc = X - X.mean(0)
        lam = np.maximum(np.linalg.svd(Xc, compute_uv=False) ** 2 / n, 1e-6)
        ref = lam.mean() / (lam.std() + 1e-6)
        assert lg.isotropy(X, svd_above=10) == pytest.approx(ref, rel=1e-9)
    for X in cases[:1] + [low_rank]:                          # the covariance route against numpy's eigvalsh
        n, d = X.shape
        Xc = X - X.mean(0)
        lam = np.linalg.eigvalsh(Xc.T @ Xc / n + 1e-6 * np.eye(d))
        assert lg.isotropy(X) == pytest.approx(lam.mean() / (lam.std() + 1e-6), rel=1e-9)


@pytest.mark.parametrize("n,d,svd_above", [(120, 20, 512), (120, 40, 10), (30, 50, 512), (30, 50, 10)])
def test_probe_and_isotropy_equals_the_separate_functions(n, d, svd_above):
    g = np.random.default_rng(n + d)
    X, y = g.standard_normal((n, d)), g.integers(0, 4, n)
    Y = lg.one_hot(y)
    iso, mse, pred = lg.probe_and_isotropy(X, Y, lam=0.05, svd_above=svd_above)
    mse_ref, pred_ref, _, _ = lg.ridge_mse(X, Y, lam=0.05)
    assert iso == pytest.approx(lg.isotropy(X, svd_above=svd_above), rel=1e-10)
    assert mse == pytest.approx(mse_ref, rel=1e-10)
    np.testing.assert_allclose(pred.numpy(), pred_ref.numpy(), atol=1e-10)


def test_residualised_features_orthogonal_to_selected():
    g = np.random.default_rng(3)
    S = g.standard_normal((200, 10))
    X = S @ g.standard_normal((10, 8)) + 0.5 * g.standard_normal((200, 8)) + 2.0
    Xt = lg.residualise(X, S).numpy()
    Sc = S - S.mean(0)
    assert np.abs(Sc.T @ (Xt - Xt.mean(0))).max() < 1e-6 * np.abs(Sc.T @ (X - X.mean(0))).max()
    np.testing.assert_allclose(Xt.mean(0), X.mean(0), atol=1e-10)      # mean restored
    from icmlbook.loes_layer_geometry.scores import Residualiser
    np.testing.assert_allclose(Residualiser(S)(X).numpy(), Xt, atol=1e-8)
    wide = g.standard_normal((200, 300))                                   # D_S > n: dual route
    np.testing.assert_allclose(Residualiser(wide)(X).numpy(), lg.residualise(X, wide).numpy(), atol=1e-6)
    tall = S @ g.standard_normal((10, 40))                                # rank-deficient selected set
    np.testing.assert_allclose(Residualiser(tall)(X).numpy(), lg.residualise(X, tall).numpy(), atol=1e-6)


def test_triangle_area_against_cross_product_and_heron():
    a, b, c = torch.tensor([0., 0, 0]), torch.tensor([3., 0, 0]), torch.tensor([0., 4, 0])
    assert float(lg.triangle_area(a, b, c)) == pytest.approx(6.0)
    g = np.random.default_rng(4)
    P = g.standard_normal((3, 3))
    cross = 0.5 * np.linalg.norm(np.cross(P[1] - P[0], P[2] - P[0]))
    assert float(lg.triangle_area(*map(torch.tensor, P))) == pytest.approx(cross, rel=1e-10)
    # in 7 dimensions: Heron's formula
    Q = g.standard_normal((3, 7))
    la, lb, lc = (np.linalg.norm(Q[i] - Q[j]) for i, j in ((0, 1), (1, 2), (0, 2)))
    s = (la + lb + lc) / 2
    heron = np.sqrt(s * (s - la) * (s - lb) * (s - lc))
    assert float(lg.triangle_area(*map(torch.tensor, Q))) == pytest.approx(heron, rel=1e-8)


def test_triangle_score_exact_mean_and_errors():
    Z = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], float)
    y = np.array([0, 1, 2, 3])
    # 4 triangles of the unit square, each of area 1/2
    assert lg.triangle_score(Z, y, n_triples=0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least 3 classes"):
        lg.triangle_score(Z[:2], y[:2])
    with pytest.raises(ValueError, match="same examples"):
        lg.triangle_score(Z, y[:3])


def test_redundancy_bounds():
    g = np.random.default_rng(5)
    X = g.standard_normal((50, 6))
    r1 = np.outer(g.standard_normal(50), g.standard_normal(6))
    assert lg.redundancy(r1, [2 * r1]) == pytest.approx(1.0)                # rank one: maximal
    # ||X^T X||_F / ||X||_F^2 = ||Sigma||_F / tr(Sigma) (uncentred second moment)
    M = X.T @ X
    assert lg.redundancy(X, [X]) == pytest.approx(np.linalg.norm(M) / np.trace(M))
    assert 0 <= lg.redundancy(X, [g.standard_normal((50, 4))]) < lg.redundancy(X, [X])
    assert lg.redundancy(X, []) == 0.0


def test_greedy_selector_recovers_planted_layers_without_isotropy():
    st = lg.planted_stack(800, 10, 32, planted=[2, 5, 8], strengths=[1.5, 1.2, 1.0], seed=0)
    sel = lg.loes_select(st.layers, st.y, 3, alpha=0.0)
    covered = {2 if l == 3 else l for l in sel.layers}
    assert covered == {2, 5, 8}
    assert not {2, 3} <= set(sel.layers)                                   # never both copy and original
    assert {2, 3} <= set(lg.topk_independent(st.layers, st.y, 3, alpha=0.0))  # the ablation takes the copy
    assert sel.scores.shape == (3, 10) and len(sel.step_scores) == 3


def test_selector_deterministic_and_variants():
    st = lg.planted_stack(300, 8, 16, planted=[1, 4, 6], seed=1)
    a = lg.loes_select(st.layers, st.y, 3, seed=3)
    b = lg.loes_select(st.layers, st.y, 3, seed=3)
    assert a.layers == b.layers and a.step_scores == b.step_scores
    lf = lg.loes_label_free(st.layers, 3)
    assert len(set(lf.layers)) == 3
    reg = lg.loes_select(st.layers, st.y.astype(float), 2, task="regression")
    assert np.all(np.isnan(reg.components["triangle"][1]) | (reg.components["triangle"][1] == 0))


def test_bad_inputs():
    st = lg.planted_stack(100, 6, 8, planted=[1, 3], seed=0)
    with pytest.raises(ValueError, match="larger than the number of layers"):
        lg.loes_select(st.layers, st.y, 7)
    with pytest.raises(ValueError, match="same examples"):
        lg.loes_select(st.layers, st.y[:50], 2)
    with pytest.raises(ValueError, match="at least 3 classes"):
        lg.loes_select(st.layers, (st.y % 2).astype(np.int64), 2)
    lg.loes_select(st.layers, (st.y % 2).astype(np.int64), 2, eta=0.0)      # allowed without the triangle
    with pytest.raises(FileNotFoundError, match="backbone_path"):
        lg.load_text_encoder("/nonexistent/encoder")
    with pytest.raises(ValueError, match="profile"):
        lg.config_for("huge")
    with pytest.raises(ValueError, match="main_depth"):
        lg.config_for("smoke", main_depth=5)
    with pytest.raises(ValueError, match="pooling"):
        lg.config_for("smoke", pooling="max")


def test_eigenvalue_variance_identity():
    g = torch.Generator().manual_seed(0)
    f = torch.randn(40, 12, generator=g, dtype=torch.float64)
    a = lg.eigenvalue_variance(f, method="frobenius")
    b = lg.eigenvalue_variance(f, method="eig")
    assert float(a) == pytest.approx(float(b), rel=1e-9)


def test_georeg_gradient_finite_differences():
    g = torch.Generator().manual_seed(1)
    f = torch.randn(24, 5, generator=g, dtype=torch.float64, requires_grad=True)
    y = torch.arange(24) % 4
    fn = lambda x: lg.georeg_loss(x, y, weight=0.3, triple=(0, 1, 3))
    assert torch.autograd.gradcheck(fn, (f,), eps=1e-6, atol=1e-6)
    assert float(lg.georeg_loss(f, y % 2)) == 0.0                           # < 3 classes: no term


def test_geometry_metrics_invariants():
    g = np.random.default_rng(6)
    y = np.repeat(np.arange(4), 50)
    Z = g.standard_normal((200, 6)) + 5 * np.eye(6)[y]
    m, m2 = lg.geometry_metrics(Z, y), lg.geometry_metrics(3 * Z, y)
    assert m2.triangle_area == pytest.approx(9 * m.triangle_area)            # area scales with the square
    assert m2.triangle_area_scaled == pytest.approx(m.triangle_area_scaled)
    assert m2.within_between == pytest.approx(m.within_between)
    assert 1 <= m.effective_rank <= 6
    # the identity's rows, centred, span 4 dimensions with equal singular values: effective rank exactly 4
    assert lg.effective_rank(np.eye(5)) == pytest.approx(4.0, rel=1e-9)


def test_head_capacity_and_training_deterministic():
    g = np.random.default_rng(7)
    y = g.integers(0, 3, 120)
    layers = [g.standard_normal((120, 10)).astype(np.float32) + y[:, None] * (i == 1) for i in range(4)]
    kw = dict(fused_width=12, epochs=3, batch_size=32, seed=0)
    r1 = lg.train_head(layers, y, layers, y, layers, y, 3, layers=[1, 2], **kw)
    r2 = lg.train_head(layers, y, layers, y, layers, y, 3, layers=[1, 2], **kw)
    assert r1.test_accuracy == r2.test_accuracy and r1.test_embedding.shape == (120, 12)
    assert lg.LayerFusionHead([10] * 4, 3, 12, "concat").out_width == 12
    assert lg.LayerFusionHead([10] * 4, 3, 12, "softmax").out_width == 12
    with pytest.raises(ValueError, match="labels"):
        lg.train_head(layers, y[:5], layers, y, layers, y, 3)
    with pytest.raises(ValueError, match="epochs"):
        lg.train_head(layers, y, layers, y, layers, y, 3, epochs=0)
    with pytest.raises(ValueError, match=r"outside 0\.\.3"):
        lg.train_head(layers, y, layers, y, layers, y, 3, layers=[1, 4])


def test_hook_extraction_matches_manual_forward():
    net = lg.ResidualMLP(3, 8).eval()
    x = torch.randn(10, 64)
    out = lg.extract_layer_embeddings(net, list(net.blocks), [(x[:4], None), (x[4:], None)], "identity")
    h = net.stem(x)
    for i, b in enumerate(net.blocks):
        h = b(h)
        np.testing.assert_allclose(out[i], h.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_layer_outputs_match_hooks_and_reject_bad_layers():
    net = lg.ResidualMLP(4, 8).eval()
    x = torch.randn(12, 64)
    hooked = lg.extract_layer_embeddings(net, list(net.blocks), [(x, None)], "identity")
    outs = net.layer_outputs(x, [2, 0])
    np.testing.assert_allclose(outs[0].detach().numpy(), hooked[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1].detach().numpy(), hooked[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="0..3"):
        net.layer_outputs(x, [4])


def test_finetuning_with_frozen_encoder_equals_the_frozen_head():
    """encoder_lr = 0 leaves the encoder as it is, so the fine-tuning loop must give the frozen-head result
    on the encoder's own embeddings; with encoder_lr > 0 the copy moves and the caller's encoder does not."""
    torch.manual_seed(0)
    net = lg.ResidualMLP(3, 8).eval()
    g = np.random.default_rng(5)
    x = g.random((90, 64)).astype(np.float32)
    y = g.integers(0, 3, 90)
    emb = lg.extract_layer_embeddings(net, list(net.blocks), [(torch.as_tensor(x), None)], "identity")
    kw = dict(layers=[0, 2], fused_width=8, epochs=4, batch_size=32, seed=1, georeg_weight=0.1)
    frozen = lg.train_head(list(emb), y, list(emb), y, list(emb), y, 3, **kw)
    tuned0 = lg.train_head(x, y, x, y, x, y, 3, encoder=net, encoder_lr=0.0, **kw)
    np.testing.assert_allclose(tuned0.test_embedding, frozen.test_embedding, rtol=1e-4, atol=1e-5)
    assert tuned0.test_accuracy == frozen.test_accuracy
    before = {k: v.clone() for k, v in net.state_dict().items()}
    tuned = lg.train_head(x, y, x, y, x, y, 3, encoder=net, encoder_lr=1e-2, **kw)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    assert not np.allclose(tuned.test_embedding, frozen.test_embedding, atol=1e-3)
    with pytest.raises(ValueError, match="layers"):
        lg.train_head(x, y, x, y, x, y, 3, encoder=net)


def test_text_tasks_offline_and_deterministic():
    a, b = lg.make_text_tasks(50, seed=0), lg.make_text_tasks(50, seed=0)
    assert a.texts == b.texts and set(a.labels) == set(lg.TEXT_TASKS)
    assert all(len(np.unique(v)) >= 3 for v in a.labels.values())
