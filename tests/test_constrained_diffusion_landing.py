"""Constrained diffusion with landing: closed forms against the generic solvers, Jacobians against finite
differences, the landing identities, the projection's failure flag, the underdamped update's variance, the
forward process against the uniform law, the losses' gradients by gradcheck, metrics against references,
bad input, and every claim rule both ways."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from icmlbook.constrained_diffusion_landing import claims, config_for
from icmlbook.constrained_diffusion_landing.constraints import (CappedSphere, ConstraintSet, FunctionalSet,
                                                                SpecialOrthogonal, Sphere, Torus)
from icmlbook.constrained_diffusion_landing.experiments import QualityStudy, mmd_permutation_test
from icmlbook.constrained_diffusion_landing.losses import overdamped_loss, underdamped_loss
from icmlbook.constrained_diffusion_landing.metrics import histogram_jsd, mmd2, sliced_wasserstein
from icmlbook.constrained_diffusion_landing.model import DriftNet
from icmlbook.constrained_diffusion_landing.sde import Schedule, forward_paths
from icmlbook.runtime.claims import claim_case

torch.set_default_dtype(torch.float32)
F64 = torch.float64


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_closed_form_projections_match_the_generic_solver():
    g = gen()
    s = Sphere()
    X = 1.3 * s.uniform(50, g)
    assert torch.allclose(s.project(X)[0], ConstraintSet.newton_project(s, X)[0], atol=1e-7)
    so = SpecialOrthogonal(4)
    R = so.uniform(20, g)
    Y = R + 0.05 * torch.randn(R.shape, generator=g, dtype=F64)
    P, _ = so.project(Y)
    Z, failed, _ = ConstraintSet.newton_project(so, Y)
    assert not failed.any() and torch.allclose(P, Z, atol=1e-5)   # Gauss-Newton lands near the polar factor
    assert so.violations(P)["max_abs_h"] < 1e-12
    t = Torus()
    T = t.uniform(50, g) + 0.02 * torch.randn((50, 3), generator=g, dtype=F64)
    assert torch.allclose(t.project_exact(T), ConstraintSet.newton_project(t, T)[0], atol=1e-4)
    V = torch.randn(R.shape, generator=g, dtype=F64)
    assert torch.allclose(so.project_tangent_exact(R, V), ConstraintSet.project_tangent(so, R, V), atol=1e-6)
    W = torch.randn((50, 3), generator=g, dtype=F64)
    assert torch.allclose(s.project_tangent_exact(X, W), s.project_tangent(X, W), atol=1e-6)


@pytest.mark.parametrize("cs", [Torus(halfspace=0.5), CappedSphere(), SpecialOrthogonal(3), Sphere()])
def test_jacobians_against_finite_differences(cs):
    g = gen(1)
    X = cs.uniform(5, g) + 0.01 * torch.randn((5, cs.dim), generator=g, dtype=F64)
    _, J = cs.values_and_jacobian(X)
    eps = 1e-6
    for i in range(cs.dim):
        e = torch.zeros(cs.dim, dtype=F64)
        e[i] = eps
        fd = (cs.values_and_jacobian(X + e)[0] - cs.values_and_jacobian(X - e)[0]) / (2 * eps)
        assert torch.allclose(J[:, :, i], fd, atol=1e-6)


def test_landing_identities():
    s = Sphere()
    g = gen(2)
    X = s.uniform(100, g)
    Y = X + s.project_tangent(X, 0.3 * torch.randn(X.shape, generator=g, dtype=F64))
    # implicit landing = explicit landing at the post-step point with alpha sigma^2 dt = 1
    assert torch.allclose(s.land(Y, mode="implicit"), s.land(Y, Y, mode="explicit", scale=1.0))
    # a noiseless landing step shrinks h by (1 - alpha sigma^2 dt) to first order
    delta = 1e-4
    Z = X * math.sqrt(1 + delta)
    for scale in (0.1, 0.5, 1.5):
        Z2 = Z - scale * s.landing_direction(Z)
        h2 = (Z2 * Z2).sum(1) - 1
        assert torch.allclose(h2, torch.full_like(h2, (1 - scale) * delta), rtol=1e-3, atol=1e-9)
    with pytest.raises(ValueError, match="overshoots"):
        s.land(Y, X, mode="explicit", scale=2.0)


def test_inequalities_land_inside_the_margin():
    cs = CappedSphere(eps=0.05)
    x = torch.tensor([[0.0, math.sqrt(1 - 0.85 ** 2), 0.85]], dtype=F64)   # above the cap
    for _ in range(20):
        x = cs.land(x, mode="implicit")
    vals, _ = cs.values_and_jacobian(x)
    assert abs(float(vals[0, 0])) < 1e-8 and float(vals[0, 1]) <= 0


def test_newton_flags_a_failure():
    t = Torus()
    on_axis = torch.tensor([[0.0, 0.0, 0.05], [1.4, 0.0, 0.0]], dtype=F64)
    Z, failed, _ = ConstraintSet.newton_project(t, on_axis)
    assert failed.tolist() == [True, False]
    assert torch.equal(Z[0], on_axis[0])           # a failed point is reverted
    half = FunctionalSet(2, None, lambda x: (x[0] - 1.0).reshape(1), 0, 1, name="half-plane")
    P, f2, _ = half.newton_project(torch.tensor([[3.0, 2.0], [0.5, 0.5]], dtype=F64))
    assert not f2.any() and torch.allclose(P, torch.tensor([[1.0, 2.0], [0.5, 0.5]], dtype=F64), atol=1e-6)


def test_underdamped_velocity_update_variance():
    a = math.exp(-5.0 * 0.3)
    g = gen(3)
    v = torch.randn((200000,), generator=g, dtype=F64)
    u = a * v + math.sqrt(1 - a * a) * torch.randn((200000,), generator=g, dtype=F64)
    assert abs(float((u - a * v).var()) - (1 - a * a)) < 0.01
    assert abs(float(u.var()) - 1.0) < 0.01       # the unit Gaussian is stationary


def test_forward_process_on_the_sphere_reaches_uniform():
    s = Sphere()
    x0 = torch.tensor([[0.0, 0.0, 1.0]], dtype=F64).repeat(300, 1)
    fp = forward_paths(s, x0, Schedule("constant", 1.0, 1.0, 4.0), 80, "OLLA", gen(4))
    _, p = mmd_permutation_test(fp.x[-1], s.uniform(300, gen(5)), 100, 0)
    assert p > 0.01
    _, p0 = mmd_permutation_test(x0 + 1e-3 * torch.randn(x0.shape, generator=gen(6), dtype=F64), s.uniform(300, gen(5)), 100, 0)
    assert p0 < 0.05


def test_losses_gradcheck():
    s = Sphere()
    sch = Schedule("linear", 0.1, 1.0, 1.0)
    paths = forward_paths(s, s.uniform(3, gen(7)), sch, 4, "OLLA", gen(8)).x
    assert torch.autograd.gradcheck(lambda w: overdamped_loss(lambda x, t: x @ w, s, paths, sch),
                                    (torch.randn((3, 3), dtype=F64, requires_grad=True),))
    upaths = forward_paths(s, s.uniform(3, gen(9)), sch, 4, "ULLA", gen(10)).x
    assert torch.autograd.gradcheck(lambda w: underdamped_loss(lambda x, v, t: x @ w + v, s, upaths, sch, 5.0, gen(1)),
                                    (torch.randn((3, 3), dtype=F64, requires_grad=True),))
    net = DriftNet(3, 8, 2).double()                # the chapter's network in float64 passes it too
    x, t = paths[1], torch.full((3,), 0.5, dtype=F64)
    assert torch.autograd.gradcheck(lambda w: net.net[-1](torch.tanh(net.net[:-1](torch.cat([x @ w, net._time(t)], 1)))).sum(),
                                    (torch.eye(3, dtype=F64, requires_grad=True),))


def test_metrics_against_references():
    g = gen(11)
    s = Sphere()
    a, b = s.uniform(2000, g), s.uniform(2000, g)
    assert histogram_jsd(a, a) == 0.0 and 0 < histogram_jsd(a, b) < math.log(2)
    assert abs(mmd2(a, b)) < 5e-3
    ot = pytest.importorskip("ot")
    x, y = torch.randn((300, 3), generator=g, dtype=F64), torch.randn((300, 3), generator=g, dtype=F64) + 0.5
    ours = sliced_wasserstein(x, y, n_proj=400, seed=1)
    ref = ot.sliced_wasserstein_distance(x.numpy(), y.numpy(), n_projections=4000, seed=1)
    assert abs(ours - ref) / ref < 0.1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="eps"):
        Sphere(eps=-1)
    with pytest.raises(ValueError, match="N="):
        Schedule().grid(0)
    with pytest.raises(ValueError, match="positive"):
        Schedule("linear", 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        forward_paths(Sphere(), Sphere().uniform(2, gen()), Schedule(), 3, "OLLA", gen(), alpha=0)
    with pytest.raises(ValueError, match="allowed values"):
        forward_paths(Sphere(), Sphere().uniform(2, gen()), Schedule(), 3, "DDPM", gen())
    bad_shape = FunctionalSet(3, lambda x: torch.stack([x[0], x[1]]), None, 1, 0, name="bad")
    with pytest.raises(ValueError, match="shape"):
        bad_shape.values_and_jacobian(torch.zeros((2, 3), dtype=F64))
    nan = FunctionalSet(3, lambda x: (x[0] / 0 * 0).reshape(1), None, 1, 0, name="nan")
    with pytest.raises(ValueError, match="not finite"):
        nan.values_and_jacobian(torch.zeros((2, 3), dtype=F64))
    with pytest.raises(ValueError, match="ulla_N"):
        config_for("smoke", ulla_N=40)


# -- claims both ways ------------------------------------------------------------------------------
CFG = config_for("smoke")
METHODS = ("OLLA", "ULLA", "OLLA-P", "ULLA-P")


def _quality(shift: dict, n_seeds: int = 3, noise: float = 0.002, uniform: float = 0.5, trace: float = 1e-4):
    rng = np.random.default_rng(0)
    recs = []
    for s in range(n_seeds):
        base = 0.1 + 0.01 * s
        for m in METHODS:
            recs.append({"seed": s, "method": m, "jsd": base + shift.get(m, 0.0) + noise * rng.standard_normal(),
                         "nfe": 100 if m.startswith("O") else 50, "train_seconds": 10.0 if m.startswith("O") else 5.0,
                         "path_megabytes": 1.0 if m.startswith("O") else 0.5, "dropped_samples": 0, "dropped_paths": 0,
                         "terminal_violation": 1e-15})
    return QualityStudy(recs, {m: np.full(11, trace) for m in METHODS}, [uniform] * n_seeds)


def _forward(trace):
    return {m: {"trace": np.full(11, trace), "terminal": 1e-15, "dropped": 0} for m in ("OLLA", "ULLA")}


@claim_case("constrained_diffusion_landing", "C1", "reproduced")
def _c1_ok():
    return claims.claim1(_forward(2e-4), _quality({}), CFG)


@claim_case("constrained_diffusion_landing", "C1", "not reproduced", alternative="iterates drifting off the set (|h| ~ 0.05)")
def _c1_alt():
    return claims.claim1(_forward(5e-2), _quality({}, trace=5e-2), CFG)


def _drop(last_p):
    rows = [{"sigma_max": s, "dt_sigma2": s * s / 50, "OLLA_drop_rate": 0.0, "OLLA-P_drop_rate": p, "OLLA_max_violation": 1e-3}
            for s, p in ((0.5, 0.0), (1.0, 0.0), (2.0, last_p))]
    return {"rows": rows, "set": "torus"}


@claim_case("constrained_diffusion_landing", "C2", "reproduced")
def _c2_ok():
    return claims.claim2(_drop(0.08), _quality({}))


@claim_case("constrained_diffusion_landing", "C2", "not reproduced", alternative="projections that never fail")
def _c2_alt():
    return claims.claim2(_drop(0.0), _quality({}))


def _prior(p_last, ulla_faster=True):
    return {"rows": [{"N": 5, "OLLA_mmd2": 0.02, "ULLA_mmd2": 0.01 if ulla_faster else 0.03, "OLLA_p": 0.01, "ULLA_p": 0.02},
                     {"N": 100, "OLLA_mmd2": 0.001, "ULLA_mmd2": 0.001, "OLLA_p": p_last, "ULLA_p": p_last}],
            "start_mmd2": 0.06, "set": "torus"}


@claim_case("constrained_diffusion_landing", "C3", "reproduced")
def _c3_ok():
    return claims.claim3(_prior(0.4), CFG)


@claim_case("constrained_diffusion_landing", "C3", "not reproduced", alternative="a forward marginal distinguishable from uniform")
def _c3_alt():
    return claims.claim3(_prior(0.005), CFG)


@claim_case("constrained_diffusion_landing", "C4", "reproduced")
def _c4_ok():
    return claims.claim4(_quality({"ULLA": 0.003, "OLLA-P": -0.002}), CFG)


@claim_case("constrained_diffusion_landing", "C4", "not reproduced", alternative="ULLA worse by 0.05 JSD")
def _c4_alt():
    return claims.claim4(_quality({"ULLA": 0.05, "ULLA-P": 0.05}), CFG)


@claim_case("constrained_diffusion_landing", "C5", "reproduced")
def _c5_ok():
    return claims.claim5(_quality({"ULLA": 0.004}), CFG)


@claim_case("constrained_diffusion_landing", "C5", "not reproduced", alternative="ULLA needs OLLA's N (worse by 0.05 at N/2)")
def _c5_alt():
    return claims.claim5(_quality({"ULLA": 0.05}), CFG)


def _cost(ratio):
    return {"rows": [{"n": n, "newton_seconds": ratio * 1e-3, "landing_seconds": 1e-3, "newton_iterations_mean": 2.0}
                     for n in (3, 6)], "points": 100}


@claim_case("constrained_diffusion_landing", "C6", "reproduced")
def _c6_ok():
    return claims.claim6(_cost(4.0), CFG)


@claim_case("constrained_diffusion_landing", "C6", "not reproduced", alternative="Newton converging in about one step")
def _c6_alt():
    return claims.claim6(_cost(1.1), CFG)


def _mixed(g_after, jsd=0.2):
    v = {"mean_abs_h": 1e-10, "max_abs_h": 1e-9, "mean_relu_g": 0.0, "max_relu_g": g_after, "n": 10}
    return {"before": v, "after": v, "jsd": jsd, "uniform_jsd": 0.45}


@claim_case("constrained_diffusion_landing", "C7", "reproduced")
def _c7_ok():
    return claims.claim7(_mixed(0.0), CFG)


@claim_case("constrained_diffusion_landing", "C7", "not reproduced", alternative="samples inside the removed caps")
def _c7_alt():
    return claims.claim7(_mixed(0.1), CFG)


def _sweep(small, one, imp):
    return {"rows": [{"mode": "explicit", "scale": 0.01, "mean_abs_h": small}, {"mode": "explicit", "scale": 1.0, "mean_abs_h": one},
                     {"mode": "implicit", "scale": float("nan"), "mean_abs_h": imp}]}


@claim_case("constrained_diffusion_landing", "C8", "reproduced")
def _c8_ok():
    return claims.claim8(_sweep(0.5, 0.01, 0.005))


@claim_case("constrained_diffusion_landing", "C8", "not reproduced", alternative="a gain with no effect (flat |h|)")
def _c8_alt():
    return claims.claim8(_sweep(0.02, 0.015, 0.005))


def _earth(ulla):
    return {"n_train": 600, "n_test": 80, "OLLA": {"jsd": 0.2, "nfe": 100}, "ULLA": {"jsd": ulla, "nfe": 50}, "uniform_jsd": 0.5}


@claim_case("constrained_diffusion_landing", "C4e", "reproduced")
def _c4e_ok():
    return claims.claim4e(_earth(0.21), CFG)


@claim_case("constrained_diffusion_landing", "C4e", "not reproduced", alternative="ULLA worse by 0.1 JSD on real data")
def _c4e_alt():
    return claims.claim4e(_earth(0.3), CFG)


def test_earth_data_loads_with_checksums():
    from icmlbook.constrained_diffusion_landing.data import earth_data

    x = earth_data("volcano")
    assert x.shape == (827, 3) and torch.allclose(x.norm(dim=1), torch.ones(827, dtype=F64))
    with pytest.raises(ValueError, match="allowed values"):
        earth_data("moon")


def test_drop_figure_title_states_the_worst_violation():
    from icmlbook.constrained_diffusion_landing.plots import drop_figure

    d = _drop(0.08)
    d["rows"][-1]["OLLA_max_violation"] = 4.7
    assert drop_figure(d).axes[1].get_title() == "Landing's worst violation: 4.7 at the largest step"


def _tiny_trained(method="OLLA"):
    from icmlbook.constrained_diffusion_landing.model import train_model
    s = Sphere()
    data = s.uniform(64, gen(11))
    sch = Schedule("linear", 0.1, 1.0, 1.0)
    tm = train_model(s, data, method, sch, 5, epochs=3, batch_size=32, width=8, depth=1, lr=1e-2, seed=3, ema=0.5)
    return s, sch, tm


def test_sampling_uses_the_ema_weights_and_restores_the_live_ones():
    """``sample`` swaps the EMA weights in through ``EMA.applied``: the samples are those of a network holding
    the averaged weights, and the live weights are back afterwards, bit for bit."""
    import copy

    from icmlbook.constrained_diffusion_landing.model import sample
    from icmlbook.constrained_diffusion_landing.sde import backward_sample

    s, sch, tm = _tiny_trained()
    live = copy.deepcopy(tm.net.state_dict())
    assert any(not torch.equal(p, e) for p, e in zip(tm.net.parameters(), tm.ema.shadow))   # they differ
    out = sample(tm, s, 50, sch, 5, seed=4)
    for k, v in tm.net.state_dict().items():
        assert torch.equal(v, live[k]), k
    averaged = copy.deepcopy(tm.net)                          # an independent network holding the EMA weights
    with torch.no_grad():
        for p, e in zip(averaged.parameters(), tm.ema.shadow):
            p.copy_(e)
    g = gen(4)
    ref = backward_sample(s, averaged, s.uniform(50, g), sch, 5, "OLLA", g)
    assert torch.equal(out["samples"], ref["samples"])


def test_sampling_restores_the_live_weights_after_an_error(monkeypatch):
    import copy

    from icmlbook.constrained_diffusion_landing import model as landing_model

    s, sch, tm = _tiny_trained()
    live = copy.deepcopy(tm.net.state_dict())
    seen = {}

    def failing(cs, net, *args, **kw):
        seen["ema_in"] = all(torch.equal(p, e) for p, e in zip(net.parameters(), tm.ema.shadow))
        raise RuntimeError("sampler failed")

    monkeypatch.setattr(landing_model, "backward_sample", failing)
    with pytest.raises(RuntimeError, match="sampler failed"):
        landing_model.sample(tm, s, 50, sch, 5, seed=4)
    assert seen["ema_in"]
    for k, v in tm.net.state_dict().items():
        assert torch.equal(v, live[k]), k
