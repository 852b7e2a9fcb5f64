"""Tests of the SSO library: msign against the SVD polar factor and the composed Newton–Schulz polynomial, power
iteration against matrix_norm, h(lambda) properties and the solver, SSO's invariants (sphere, tangency, update
norm), our Muon against torch.optim.Muon, bad input."""

from __future__ import annotations

import math

import pytest
import torch

from icmlbook import lm
from icmlbook.runtime import cpu_threads
from icmlbook.spectral_sphere_optimizer import (KELLER_QUINTIC, POLAR_EXPRESS, SSO, Muon, h_value, make_optimizer,
                                                msign, msign_svd, power_iteration, solve_lambda, spectral_mup_init_,
                                                split_parameters)
from icmlbook.training import LossLogger, Trainer, TrainerConfig


@pytest.fixture(autouse=True)
def _one_thread():
    """Small matrices: one thread avoids OpenMP start-up and barrier costs (several times faster on 2 cores)."""
    with cpu_threads(1):
        yield


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def with_singular_values(s: torch.Tensor, m: int, n: int, seed: int = 0) -> torch.Tensor:
    g = gen(seed)
    U = torch.linalg.qr(torch.randn(m, len(s), generator=g, dtype=torch.float64)).Q
    V = torch.linalg.qr(torch.randn(n, len(s), generator=g, dtype=torch.float64)).Q
    return (U * s) @ V.T


# -- msign -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(64, 128), (128, 64), (32, 96)])
def test_msign_matches_the_svd_polar_factor_on_rectangular_matrices(shape):
    G = torch.randn(shape, generator=gen(1))
    O, E = msign(G), msign_svd(G)
    assert O.shape == G.shape and O.dtype == torch.float32
    assert float((O - E).norm() / E.norm()) < 1e-4
    s = torch.linalg.svdvals(O)
    assert 0.999 < float(s.min()) and float(s.max()) < 1.0 + 1e-5


def test_msign_applies_the_composed_polar_express_polynomial_to_each_singular_value():
    s = torch.tensor([3.0, 1.0, 0.3, 0.05, 0.01, 1e-5], dtype=torch.float64)
    G = with_singular_values(s, 10, 14)
    x = s / s.norm()                                    # Frobenius normalisation
    for a, b, c in POLAR_EXPRESS:
        x = a * x + b * x ** 3 + c * x ** 5
    out = torch.linalg.svdvals(msign(G, dtype=torch.float64))[:6]
    torch.testing.assert_close(out.sort().values, x.sort().values, rtol=1e-9, atol=1e-12)
    assert float(x.min()) < 0.9                          # the tiny singular value is not reached in 8 steps
    # Keller's quintic, 5 steps: the documented spread, not convergence
    y = s / s.norm()
    for _ in range(5):
        y = KELLER_QUINTIC[0] * y + KELLER_QUINTIC[1] * y ** 3 + KELLER_QUINTIC[2] * y ** 5
    out = torch.linalg.svdvals(msign(G, KELLER_QUINTIC, steps=5, dtype=torch.float64))[:6]
    torch.testing.assert_close(out.sort().values, y.sort().values, rtol=1e-9, atol=1e-12)


def test_msign_batches_over_leading_axes():
    G = torch.randn(4, 16, 40, generator=gen(2))
    batched = msign(G)
    for i in range(4):
        torch.testing.assert_close(batched[i], msign(G[i]), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="matrix"):
        msign(torch.ones(5))


# -- power iteration ---------------------------------------------------------------------------------------
def test_power_iteration_matches_matrix_norm_and_warm_starts():
    s = torch.tensor([2.0, 1.5, 1.0, 0.5], dtype=torch.float64)
    W = with_singular_values(s, 30, 20, seed=3)
    sigma, u, v = power_iteration(W, steps=200, rtol=None)
    assert float(sigma) == pytest.approx(float(torch.linalg.matrix_norm(W, ord=2)), rel=1e-10)
    torch.testing.assert_close(W @ v, sigma * u)
    # from the previous step's vector, a slightly changed matrix needs few iterations
    W2 = W + 1e-3 * torch.randn(W.shape, generator=gen(4), dtype=torch.float64)
    warm, _, _ = power_iteration(W2, u, steps=3, rtol=None)
    assert float(warm) == pytest.approx(float(torch.linalg.matrix_norm(W2, ord=2)), rel=1e-7)
    batch = torch.randn(3, 12, 9, generator=gen(5), dtype=torch.float64)
    sig, _, _ = power_iteration(batch, steps=2000, rtol=None)
    torch.testing.assert_close(sig, torch.linalg.matrix_norm(batch, ord=2), rtol=1e-6, atol=0)


# -- h(lambda) and the solver --------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_h_is_monotone_bounded_and_its_root_is_bounded(seed):
    g = gen(100 + seed)
    m, n = [int(x) for x in torch.randint(4, 24, (2,), generator=g)]
    G = torch.randn(1, m, n, generator=g, dtype=torch.float64) * float(torch.rand(1, generator=g) * 3 + 0.01)
    W = torch.randn(m, n, generator=g, dtype=torch.float64)
    U, _, Vh = torch.linalg.svd(W)
    Theta = (U[:, :1] @ Vh[:1]).unsqueeze(0)
    nuc = float(torch.linalg.matrix_norm(G[0], ord="nuc"))
    lams = torch.linspace(-3 * nuc, 3 * nuc, 201, dtype=torch.float64)
    h = torch.stack([h_value(G, Theta, lam.view(1), msign_fn=msign_svd)[0] for lam in lams])
    assert bool((h.diff() >= -1e-9).all())                       # non-decreasing
    assert bool((h.abs() <= 1 + 1e-9).all())
    far = h_value(G, Theta, torch.tensor([-1e6 * nuc]), msign_fn=msign_svd)
    assert float(far) < -0.999
    sol = solve_lambda(G, Theta, tol=1e-8, max_expand=40, max_bisect=80, msign_fn=msign_svd)
    assert abs(float(sol.h)) <= 1e-8 and sol.fallbacks == 0
    assert abs(float(sol.lam)) <= 2 * nuc                        # paper, App. A.2
    torch.testing.assert_close(sol.Phi, msign_svd(G + sol.lam.view(-1, 1, 1) * Theta))


def test_solver_warm_start_fallback_and_batch():
    G = torch.randn(5, 16, 24, generator=gen(6))
    W = torch.randn(5, 16, 24, generator=gen(7))
    U, _, Vh = torch.linalg.svd(W)
    Theta = U[..., :, :1] @ Vh[..., :1, :]
    sol = solve_lambda(G / G.norm(dim=(-2, -1), keepdim=True), Theta, tol=1e-4)
    assert bool((sol.h.abs() <= 1e-4).all()) and sol.fallbacks == 0 and sol.unconverged == 0
    Gh = G / G.norm(dim=(-2, -1), keepdim=True)
    again = solve_lambda(Gh, Theta, sol.lam, tol=1e-4)           # at the root already: one evaluation
    assert again.msign_calls == 1 and again.evaluations == 5
    released = solve_lambda(Gh, Theta, tol=1e-4, method="bisect")   # the released bracket + bisection
    assert bool((released.h.abs() <= 1e-4).all())
    torch.testing.assert_close(released.lam, sol.lam, rtol=0, atol=2e-3)
    assert sol.evaluations < released.evaluations                   # false position needs fewer msign calls
    stuck = solve_lambda(Gh, Theta, tol=1e-9, max_expand=0)       # no bracket allowed: counted, warm start kept
    assert stuck.fallbacks == 5 and bool((stuck.lam == 0).all())
    with pytest.raises(ValueError, match="both be"):
        solve_lambda(Gh[0], Theta[0])


# -- SSO -----------------------------------------------------------------------------------------------------
def test_spectral_mup_init_puts_every_block_on_its_sphere():
    W = torch.empty(48, 32)
    spectral_mup_init_(W, radius=2.0, block_rows=16, generator=gen(8))
    norms = torch.linalg.matrix_norm(W.view(3, 16, 32).double(), ord=2)
    torch.testing.assert_close(norms, torch.full((3,), 2.0 * math.sqrt(16 / 32), dtype=torch.float64),
                               rtol=1e-6, atol=0)


@pytest.mark.parametrize("solve", [True, False])
def test_sso_step_keeps_the_sphere_tangency_and_update_norm(solve):
    g = gen(9)
    W = torch.nn.Parameter(torch.empty(64, 96))
    spectral_mup_init_(W, radius=1.5, block_rows=32, generator=g)
    lr, R = 0.03, 1.5 * math.sqrt(32 / 96)
    opt = SSO([W], lr=lr, radius=1.5, block_rows=32, solve=solve, power_steps=400, power_rtol=None, tol=1e-5)
    for _ in range(4):
        W.grad = torch.randn(64, 96, generator=g)
        before = W.detach().clone().view(2, 32, 96)
        opt.step()
        st = opt.state[W]
        retracted = before * (R / st["sigma_before"]).view(2, 1, 1)
        after = W.detach().view(2, 32, 96)
        # sigma_max = R before the update; the update has spectral norm eta R exactly
        torch.testing.assert_close(torch.linalg.matrix_norm(retracted.double(), ord=2),
                                   torch.full((2,), R, dtype=torch.float64), rtol=1e-4, atol=0)
        torch.testing.assert_close(torch.linalg.matrix_norm((after - retracted).double(), ord=2),
                                   torch.full((2,), lr * R, dtype=torch.float64), rtol=1e-4, atol=0)
        # after the update the sphere is left only to second order: |sigma - R|/R <= (eta R)^2-sized
        drift = float(((torch.linalg.matrix_norm(after.double(), ord=2) - R).abs() / R).max())
        assert drift < (10 * lr ** 2 if solve else 10 * lr)       # tangent steps leave only an O(eta^2) drift
        if solve:
            assert float(st["h"].abs().max()) <= 1e-5               # tangency
    assert opt.stats["blocks"] == 2 and opt.stats["msign_calls"] >= 1


def test_muonsphere_direction_is_plain_msign_of_the_normalised_momentum():
    g = gen(10)
    W = torch.nn.Parameter(torch.empty(24, 40))
    spectral_mup_init_(W, generator=g)
    G = torch.randn(24, 40, generator=g)
    W.grad = G
    opt = SSO([W], lr=0.1, solve=False, momentum=0.9, power_steps=400, power_rtol=None)
    before = W.detach().clone()
    opt.step()
    R = math.sqrt(24 / 40)
    sigma = torch.linalg.matrix_norm(before.double(), ord=2).float()
    M = 0.1 * G                                                   # Nesterov: lerp(G, 0.1 G, 0.9) on the first step
    M = G.lerp(M, 0.9)
    expected = before * (R / sigma) - 0.1 * R * msign(M / M.norm())
    torch.testing.assert_close(W.detach(), expected, rtol=1e-4, atol=1e-6)


def test_dynamic_retraction_is_a_soft_spectral_decay():
    W = torch.nn.Parameter(torch.empty(16, 16))
    spectral_mup_init_(W, radius=3.0, generator=gen(11))           # sigma = 3 > R = 1: shrink
    W.grad = torch.zeros(16, 16)
    W.grad[0, 0] = 1.0
    before = W.detach().clone()
    opt = SSO([W], lr=0.05, retraction="dynamic", alpha=0.2, power_steps=400, power_rtol=None)
    opt.step()
    delta = W.detach() - before * (1 - 0.05 * 0.2)                # W <- (1 - eta alpha) W, then - eta R Phi
    assert float(torch.linalg.matrix_norm(delta.double(), ord=2)) == pytest.approx(0.05 * 1.0, rel=1e-4)


# -- Muon ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, mode", [((32, 48), "original"), ((64, 24), "original"), ((40, 40), "match_rms_adamw")])
def test_our_muon_equals_torch_muon(shape, mode):
    g = gen(12)
    W1 = torch.nn.Parameter(torch.randn(shape, generator=g))
    W2 = torch.nn.Parameter(W1.detach().clone())
    ours = Muon([W1], lr=0.02, momentum=0.95, weight_decay=0.1, scale=mode, coefficients=KELLER_QUINTIC,
                ns_steps=5, ns_dtype=torch.bfloat16)
    theirs = torch.optim.Muon([W2], lr=0.02, momentum=0.95, weight_decay=0.1, adjust_lr_fn=mode)
    for _ in range(6):
        grad = torch.randn(shape, generator=g)
        W1.grad, W2.grad = grad.clone(), grad.clone()
        ours.step()
        theirs.step()
    torch.testing.assert_close(W1.detach(), W2.detach(), rtol=0, atol=1e-6)


def test_muon_spectral_mup_scale_and_per_head_blocks():
    g = gen(13)
    W = torch.nn.Parameter(torch.randn(32, 64, generator=g))
    G = torch.randn(32, 64, generator=g)
    W.grad = G
    before = W.detach().clone()
    Muon([W], lr=0.1, momentum=0.9, weight_decay=0.0, block_rows=16).step()
    upd = G.lerp(0.1 * G, 0.9).view(2, 16, 64)
    expected = before - 0.1 * math.sqrt(16 / 64) * msign(upd).view(32, 64)
    torch.testing.assert_close(W.detach(), expected, rtol=1e-5, atol=1e-6)


# -- on a GPT, through the trainer --------------------------------------------------------------------------
def test_make_optimizer_splits_a_gpt_and_sso_trains_on_the_sphere():
    torch.manual_seed(0)
    model = lm.GPT(lm.GPTConfig(vocab_size=32, n_layer=2, d_model=64, d_head=32, max_len=16, qk_norm=True))
    hidden, rest = split_parameters(model)
    assert {n.split(".")[-2] for n, _ in hidden} == {"q", "k", "v", "o", "gate", "up", "down"}
    assert {n for n, _ in rest} >= {"tok.weight", "head.weight", "norm.weight"}
    for name, p in hidden:
        spectral_mup_init_(p, block_rows=32 if name.endswith(("q.weight", "k.weight", "v.weight")) else None,
                           generator=gen(14))
    opt = make_optimizer(model, "sso", lr=0.02, adamw_lr=3e-3, power_steps=50)
    src = lm.MarkovSource(32, alpha=0.2, seed=0)
    data = lm.MixtureSampler({"m": src.sample(5000, seed=1)}, lm.constant_weights({"m": 1.0}), 8, 16, seed=0)
    tr = Trainer(model, opt, lambda m, b: lm.lm_loss(m(b[0]), b[1]), data,
                 TrainerConfig(steps=15, device="cpu", show_progress=False), [LossLogger()])
    tr.run()
    _, loss = tr.history("loss")
    assert loss[-3:].mean() < loss[0]
    sso = opt.optimizers[0]
    assert isinstance(sso, SSO) and sso.stats["fallbacks"] == 0
    q = model.blocks[0].attn.q.weight.detach().view(2, 32, 64)
    sigma_before = sso.state[model.blocks[0].attn.q.weight]["sigma_before"]
    assert float((sigma_before / (math.sqrt(32 / 64)) - 1).abs().max()) < 0.05   # near the sphere before retraction
    assert q.shape == (2, 32, 64)
    for kind in ("adamw", "muon", "muonsphere"):
        assert make_optimizer(model, kind, lr=0.01).param_groups


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="not a 2-D matrix"):
        SSO([torch.nn.Parameter(torch.ones(5))])
    with pytest.raises(ValueError, match="radius"):
        SSO([torch.nn.Parameter(torch.ones(4, 4))], radius=0.0)
    with pytest.raises(ValueError, match="lr"):
        SSO([torch.nn.Parameter(torch.ones(4, 4))], lr=-1.0)
    with pytest.raises(ValueError, match="block_rows"):
        SSO([torch.nn.Parameter(torch.ones(6, 4))], block_rows=4)
    with pytest.raises(ValueError, match="retraction"):
        SSO([torch.nn.Parameter(torch.ones(4, 4))], retraction="soft")
    with pytest.raises(ValueError, match="scale"):
        Muon([torch.nn.Parameter(torch.ones(4, 4))], scale="kaiming")
    with pytest.raises(ValueError, match="kind"):
        make_optimizer(torch.nn.Linear(2, 2), "lion", lr=0.1)


# -- the chapter's instrumented training runs ---------------------------------------------------------------
def test_train_run_measures_the_sphere_and_the_drift():
    from icmlbook.spectral_sphere_optimizer.experiments import TrainSpec, code_data, train_run

    data = code_data(modules=("json", "textwrap", "string"))
    assert data.val.numel() > 1000 and data.vocab_size == 259 and data.n_files == 7
    small = dict(width=64, n_layer=1, steps=12, warmup=2, seq_len=16, batch=4, track_every=4, val_batches=2)
    sso = train_run(TrainSpec("sso", lr=2e-2, **small), data)
    again = train_run(TrainSpec("sso", lr=2e-2, **small), data)
    assert (sso.loss == again.loss).all() and (sso.val_loss == again.val_loss).all()       # same seed, same run
    assert list(sso.val_steps) == [0, 4, 8, 12] and sso.loss.shape == (12,)
    assert sso.val_loss[-1] < sso.val_loss[0]
    for ratios in sso.sigma_ratio.values():                    # the weights stay on the sphere (c = 1)
        assert float(abs(ratios - 1).max()) < 2e-2
    assert sso.sphere_deviation.max() < 2e-2 and sso.update_ratio.max() < 1e-3
    assert sso.msign_calls_per_step >= 4 and sso.solver_fallbacks == 0
    assert set(sso.act_rms) == {"blocks.0.attn_out", "blocks.0.mlp_out"}
    adamw = train_run(TrainSpec("adamw", lr=3e-3, **small), data)
    drift = max(float(abs(r[-1] / r[0] - 1)) for r in adamw.sigma_ratio.values())
    assert drift > 0.05 and adamw.sphere_deviation.size == 0          # AdamW's spectral norms move
    with pytest.raises(ValueError, match="divisible by the head dimension"):
        TrainSpec("sso", width=48, lr=1e-2)
    with pytest.raises(ValueError, match="radius"):
        TrainSpec("sso", width=64, lr=1e-2, radius=0.0)
    with pytest.raises(ValueError, match="optimizer"):
        TrainSpec("lion", width=64, lr=1e-2)


def test_sweep_summaries_fits_and_msign_on_real_momenta(tmp_path, monkeypatch):
    import numpy as np

    from icmlbook.spectral_sphere_optimizer import experiments as ex

    monkeypatch.setenv("ICMLBOOK_CACHE_DIR", str(tmp_path))
    data = ex.code_data(modules=("json", "textwrap"))
    spec = ex.TrainSpec("muonsphere", width=64, lr=1e-2, n_layer=1, steps=6, warmup=1, seq_len=16, batch=4,
                        track_every=3, val_batches=1, keep_momenta=True)
    first = ex.run_sweep([spec], data, show_progress=False)[0]
    assert list(tmp_path.glob("sso-run/*.pkl"))                             # cached
    again = ex.run_sweep([spec], data, show_progress=False)[0]
    assert np.array_equal(first.loss, again.loss) and again.seconds_per_step == first.seconds_per_step
    acc = ex.msign_accuracy(first.momentum_blocks())                         # claim 4 on real momenta
    assert len(first.momenta) == 7 and acc["rel_error"].shape == (3 * 2 + 4,)  # q/k/v in 2 heads, o/gate/up/down
    assert (acc["s_max"] < 1 + 1e-4).all() and (acc["s_min"] > 0).all()
    # summaries on hand-made results
    def fake(opt, width, lr, loss):
        return dataclasses.replace(first, spec=dataclasses.replace(spec, optimizer=opt, width=width, lr=lr),
                                   val_loss=np.array([9.0, loss]))
    import dataclasses
    runs = [fake("sso", 64, 1e-2, 2.0), fake("sso", 64, 3e-2, 2.5), fake("sso", 128, 1e-2, 1.9),
            fake("sso", 128, 3e-2, 1.95), fake("adamw", 64, 3e-3, 2.2), fake("adamw", 128, 1e-3, 2.1),
            fake("adamw", 128, 3e-3, 2.3)]
    best = ex.best_learning_rates(runs)
    assert best == {("sso", 64): 1e-2, ("sso", 128): 1e-2, ("adamw", 64): 3e-3, ("adamw", 128): 1e-3}
    assert ex.log2_lr_spread(best, "sso") == 0.0
    assert ex.log2_lr_spread(best, "adamw") == pytest.approx(math.log2(3))
    with pytest.raises(ValueError, match="no runs"):
        ex.log2_lr_spread(best, "muon")
    c = np.array([0.5, 1.0, 2.0, 4.0])
    k, lo, hi = ex.power_law_fit(c, 3.0 * c ** 0.7 * np.array([1.01, 0.99, 1.0, 1.005]))
    assert lo < 0.7 < hi and k == pytest.approx(0.7, abs=0.02)
    with pytest.raises(ValueError, match=">= 3 points"):
        ex.power_law_fit([1, 2], [1, 2])


def test_h_curve_newton_schulz_follows_the_exact_one():
    import numpy as np

    from icmlbook.spectral_sphere_optimizer.experiments import h_curve

    G, W = torch.randn(24, 40, generator=gen(20)), torch.randn(24, 40, generator=gen(21))
    lams = np.linspace(-2, 2, 21)
    ns, exact = h_curve(G, W, lams)
    assert (np.diff(exact) >= -1e-9).all() and exact[0] < 0 < exact[-1]
    assert np.abs(ns - exact).max() < 1e-3
