"""TCEC chapter: solver coefficients against independent derivations, the fake quantiser against a
hand-written one, the closed form equal to the recursion for a denoiser with zero Jacobian, the JVP
linearisation against finite differences, K against numpy's lstsq, the oracle, PSNR against its formula,
bad parameters, and every claim rule both ways."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from icmlbook.papers.diffusion_ptq_compensation import claims, config_for
from icmlbook.papers.diffusion_ptq_compensation import metrics as ME
from icmlbook.papers.diffusion_ptq_compensation import models as M
from icmlbook.papers.diffusion_ptq_compensation import propagation as P
from icmlbook.papers.diffusion_ptq_compensation import quant as Q
from icmlbook.papers.diffusion_ptq_compensation import schedules as S
from icmlbook.papers.diffusion_ptq_compensation import tcec as TC
from icmlbook.papers.diffusion_ptq_compensation.experiments import cell_key, sampler_coefficients
from icmlbook.runtime.claims import claim_case
from icmlbook.runtime.profiles import ConfigError

SLUG = "diffusion_ptq_compensation"


# -- schedules ---------------------------------------------------------------------------------------
def _ddim_step_reference(x, eps, abar_t, abar_prev):
    """DDIM (η = 0) exactly as Song et al. write it: predict x0, then re-noise to the previous level."""
    x0 = (x - np.sqrt(1 - abar_t) * eps) / np.sqrt(abar_t)
    return np.sqrt(abar_prev) * x0 + np.sqrt(1 - abar_prev) * eps


@pytest.mark.parametrize("steps", [1, 4, 10, 50])
def test_ddim_coefficients_match_the_x0_form(steps):
    ab = S.alphas_bar(1000)
    ts = S.sampling_timesteps(1000, steps)
    a, b = S.step_coefficients("ddim", ab, ts)
    rng = np.random.default_rng(0)
    for n, t in enumerate(ts):
        x, eps = rng.standard_normal(5), rng.standard_normal(5)
        prev = ab[ts[n + 1]] if n + 1 < len(ts) else 1.0
        np.testing.assert_allclose(a[n] * x + b[n] * eps, _ddim_step_reference(x, eps, ab[t], prev), atol=1e-9)


def test_dpmpp1_derived_separately_equals_ddim_and_ddim_products_telescope():
    for kind in ("linear", "cosine"):
        ab = S.alphas_bar(1000, kind=kind)
        ts = S.sampling_timesteps(1000, 20)
        a1, b1 = S.step_coefficients("ddim", ab, ts)
        a2, b2 = S.step_coefficients("dpmpp1", ab, ts)
        np.testing.assert_allclose(a1, a2, rtol=1e-9)
        np.testing.assert_allclose(b1, b2, rtol=1e-9, atol=1e-12)
        assert (b1 < 0).all()                                 # the sign is not assumed anywhere; DDIM's b is < 0
        W = P.propagation_weights(a1, b1)
        reached = np.append(ab[ts[1:]], 1.0)                  # ᾱ of the state after each step
        for k, n in [(20, 0), (20, 7), (13, 4)]:
            np.testing.assert_allclose(W[k, n], np.sqrt(reached[k - 1] / reached[n]) * b1[n], rtol=1e-9)


def test_timesteps_and_solver_errors():
    np.testing.assert_array_equal(S.sampling_timesteps(1000, 4), [750, 500, 250, 0])
    with pytest.raises(ValueError, match="steps=1001"):
        S.sampling_timesteps(1000, 1001)
    with pytest.raises(ValueError, match="solver='heun'"):
        S.step_coefficients("heun", S.alphas_bar(10), np.arange(3)[::-1])
    with pytest.raises(ValueError, match="kind='sigmoid'"):
        S.alphas_bar(10, kind="sigmoid")


# -- fake quantisation -----------------------------------------------------------------------------
def test_weight_and_activation_quantisers_match_hand_written_ones():
    torch.manual_seed(0)
    w = torch.randn(6, 5, 3, 3)
    for bits in (2, 4, 8):
        q = 2 ** (bits - 1) - 1
        s = w.reshape(6, -1).abs().amax(1).view(6, 1, 1, 1) / q
        ref = torch.clamp(torch.round(w / s), -q, q) * s
        torch.testing.assert_close(Q.fake_quant_weight(w, bits), ref, atol=1e-6, rtol=0)
        assert len(torch.unique(Q.fake_quant_weight(w, bits)[0])) <= 2 * q + 1
    x = torch.randn(4, 3, 2, 2)
    s = x.reshape(4, -1).abs().amax(1).view(4, 1, 1, 1) / 7
    torch.testing.assert_close(Q.fake_quant_act(x, 4, "tensor"), torch.clamp(torch.round(x / s), -7, 7) * s, atol=1e-6, rtol=0)
    st = x.abs().amax(1, keepdim=True) / 7                     # per token = per pixel of each image
    torch.testing.assert_close(Q.fake_quant_act(x, 4, "token"), torch.clamp(torch.round(x / st), -7, 7) * st, atol=1e-6, rtol=0)


def test_activation_quantiser_is_torchs_fake_quantiser_bit_for_bit():
    # the fast path (session 9) must give the numbers of torch.fake_quantize_per_channel_affine, ties included
    torch.manual_seed(1)
    x = torch.randn(64, 8, 4, 4)
    x[:, 0, 0, 0] = 3.5                                   # every row's max is 3.5: k/2 multiples of s = 0.5 tie
    x[:, 0, 0, 1:4] = torch.tensor([0.25, -0.75, 1.25])
    for bits in (3, 4, 8):
        q = 2 ** (bits - 1) - 1
        for mode, rows in (("tensor", x.reshape(64, -1)), ("token", x.permute(0, 2, 3, 1).reshape(-1, 8))):
            scale = (rows.abs().amax(1) / q).clamp_min(1e-12).float()
            ref = torch.fake_quantize_per_channel_affine(rows, scale, torch.zeros(rows.shape[0], dtype=torch.int32), 0, -q, q)
            got = Q.fake_quant_act(x, bits, mode)
            got = got.reshape(64, -1) if mode == "tensor" else got.permute(0, 2, 3, 1).reshape(-1, 8)
            assert torch.equal(got, ref), (bits, mode)


def test_quantised_model_errors_shrink_with_bits_and_svd_lite_is_exact_at_full_rank():
    torch.manual_seed(0)
    m = M.TinyUNet(ch=8).eval()
    x, t = torch.randn(4, 1, 8, 8), torch.randint(0, 1000, (4,))
    ref = m(x, t)
    errs = [(Q.quantize_model(m, b, b)(x, t) - ref).norm().item() for b in (3, 4, 8)]
    assert errs[0] > errs[1] > errs[2] > 0
    # with a full-rank FP branch, the residual is zero: only the smoothed-input path's rounding remains,
    # and it multiplies a zero weight, so the layer is the smoothed FP layer = the FP layer exactly
    full = Q.quantize_model(m, 4, 4, "svd", rank=10_000, calib=(x, t))
    torch.testing.assert_close(full(x, t), ref, atol=1e-4, rtol=1e-4)
    assert all(isinstance(full.get_submodule(n), Q.QuantLayer) for n in Q.quantizable_layers(m))
    assert not any(isinstance(mod, Q.QuantLayer) for n, mod in full.named_modules() if n.startswith("tmlp"))


@pytest.mark.parametrize("kw, match", [(dict(w_bits=1, a_bits=8), "w_bits=1"), (dict(w_bits=4, a_bits=9), "a_bits=9"),
                                       (dict(w_bits=4, a_bits=4, base="gptq"), "base='gptq'"),
                                       (dict(w_bits=4, a_bits=4, base="svd"), "calib")])
def test_quantiser_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        Q.quantize_model(M.MLPDenoiser(width=8), **kw)


# -- propagation ------------------------------------------------------------------------------------
class _TimeOnly(torch.nn.Module):
    """A denoiser whose output does not depend on x (zero Jacobian), plus a fixed per-step offset."""

    def __init__(self, offset: float = 0.0):
        super().__init__()
        self.offset = offset

    def forward(self, x, t):
        tf = t.to(x.dtype)
        return torch.sin(tf / 100)[:, None].expand_as(x) + self.offset * torch.cos(tf)[:, None]


def _coeffs(steps=25):
    ab = S.alphas_bar(1000)
    ts = S.sampling_timesteps(1000, steps)
    return (ts, *S.step_coefficients("ddim", ab, ts))


def test_closed_form_equals_recursion_for_zero_jacobian():
    ts, a, b = _coeffs()
    xT = torch.randn(7, 2, dtype=torch.float64)
    rec = P.record(_TimeOnly(), _TimeOnly(0.3), xT, ts, a, b)
    pred = P.closed_form(rec.delta(), a, b)
    torch.testing.assert_close(pred, rec.error, atol=1e-10, rtol=1e-8)
    assert rec.error[-1].abs().max() > 1e-3


def test_linearised_error_matches_finite_difference():
    torch.manual_seed(0)
    fp = M.MLPDenoiser(width=16).double().eval()
    ts, a, b = _coeffs(10)
    xT = torch.randn(5, 2, dtype=torch.float64)
    delta = torch.randn(len(ts), 5, 2, dtype=torch.float64)
    traj = P.sample(fp, xT, ts, a, b, keep=True)
    lin = P.linearised_error(fp, traj, delta, ts, a, b)[-1]
    h = 1e-5
    pert = P.sample(fp, xT, ts, a, b, correction=lambda n, eps, x: eps + h * delta[n])
    torch.testing.assert_close((pert - traj[-1]) / h, lin, atol=1e-4, rtol=1e-4)


def test_variance_law_is_exact_for_independent_per_step_noise():
    ts, a, b = _coeffs(8)
    g = torch.Generator().manual_seed(1)
    noise = torch.randn(len(ts), 20000, 2, generator=g, dtype=torch.float64) * torch.linspace(0.1, 1, len(ts)).view(-1, 1, 1).double()

    rec = P.Record(x_fp=torch.zeros(len(ts) + 1, 20000, 2, dtype=torch.float64),
                   x_q=P.closed_form(noise, a, b), eps_fp=torch.zeros_like(noise), eps_q=noise,
                   eps_fp_on_q=torch.zeros_like(noise), eps_q_on_fp=noise)
    v = P.variance_law(rec, a, b)
    assert v["measured"].mean() / v["independent"].mean() == pytest.approx(1.0, abs=0.03)



# -- TCEC ---------------------------------------------------------------------------------------------
def _toy_record():
    torch.manual_seed(0)
    fp = M.MLPDenoiser(width=32).eval()
    q = Q.quantize_model(fp, 3, 4)
    ts, a, b = _coeffs(12)
    return fp, q, (ts, a, b), P.record(fp, q, torch.randn(64, 2), ts, a, b)


def test_K_is_the_least_squares_slope():
    _, _, (ts, _, _), rec = _toy_record()
    K = TC.fit_K(rec)
    d, e = rec.delta().numpy(), rec.eps_q.numpy()
    for n in (0, 5, 11):
        for c in range(2):
            sol = np.linalg.lstsq(e[n, :, c:c + 1], d[n, :, c], rcond=None)[0][0]
            assert K[n, c].item() == pytest.approx(sol, rel=1e-4, abs=1e-7)
    with pytest.raises(ValueError, match="fewer than the 2 channels"):
        TC.fit_K(P.Record(*(getattr(rec, f)[:, :1] for f in ("x_fp", "x_q", "eps_fp", "eps_q", "eps_fp_on_q", "eps_q_on_fp"))))


def test_oracles_and_identity_compensation():
    fp, q, (ts, a, b), rec = _toy_record()
    xT = rec.x_fp[0]
    x_full = TC.oracle_sample(q, fp, xT, ts, a, b, x_fp=rec.x_fp)
    assert (x_full - rec.x_fp[-1]).abs().max() < 1e-4 * rec.error[-1].abs().max() + 1e-6
    x_step = TC.oracle_sample(q, fp, xT, ts, a, b)
    assert (x_step - rec.x_fp[-1]).norm() < 1e-3 * rec.error[-1].norm()
    zero = TC.tcec_sample(q, xT, ts, a, b, torch.zeros(len(ts), 2), m=1, lambda1=0.7, R=torch.zeros(len(ts), 2))
    torch.testing.assert_close(zero, rec.x_q[-1])          # K = R = 0: no correction at all


def test_window_one_uses_the_previous_residual_with_the_derived_weight():
    ts, a, b = _coeffs(5)
    K, R = torch.full((5, 2), 0.1), torch.full((5, 2), 0.03)
    hook = TC.TCEC(K, a, b, m=1, lambda1=0.5, R=R)
    e0, e1 = torch.ones(1, 2), 2 * torch.ones(1, 2)
    hook(0, e0, None)
    out = hook(1, e1, None)
    expected = e1 - 0.1 * e1 - 0.5 * (a[1] / b[1]) * b[0] * 0.03 * e0      # R, not K: K ε̂_0 left at step 0
    torch.testing.assert_close(out, expected.float())


@pytest.mark.parametrize("kw, match", [(dict(m=-1), "m=-1"), (dict(lambda1=-0.1), "lambda1=-0.1"),
                                       (dict(lambda1=float("nan")), "lambda1=nan"),
                                       (dict(lambda1=0.5), "needs the residual slopes"),
                                       (dict(lambda1=0.5, R=torch.zeros(4, 2)), "R has shape")])
def test_tcec_bad_parameters(kw, match):
    ts, a, b = _coeffs(5)
    with pytest.raises(ValueError, match=match):
        TC.TCEC(torch.zeros(5, 2), a, b, **kw)


def test_psnr_against_its_formula_and_nan():
    x, ref = torch.rand(3, 1, 8, 8), torch.rand(3, 1, 8, 8)
    mse = ((x - ref) ** 2).reshape(3, -1).mean(1).numpy()
    np.testing.assert_allclose(ME.psnr(x, ref, 2.0), 10 * np.log10(4.0 / mse), rtol=1e-6)
    with pytest.raises(ValueError, match="NaN"):
        ME.psnr(x * float("nan"), ref, 2.0)
    with pytest.raises(ValueError, match="NaN"):
        P.record(M.MLPDenoiser(width=4), M.MLPDenoiser(width=4), torch.full((2, 2), float("nan")), *_coeffs(3))


def test_record_with_a_shared_fp_trajectory_is_the_same_record():
    # session 9: the FP trajectory of one noise set is reused across the cells (it does not depend on the quantised
    # model); the record must be the one computed from scratch, for one- and two-step solvers
    torch.manual_seed(0)
    fp = M.MLPDenoiser(width=16).eval()
    xT = torch.randn(8, 2)
    for solver in ("ddim", "dpmpp2m"):
        co = S.solver_coefficients(solver, 100, 6)
        first = P.record(fp, Q.quantize_model(fp, 4, 8), xT, *co)
        q2 = Q.quantize_model(fp, 4, 4)
        ref = P.record(fp, q2, xT, *co)
        got = P.record(fp, q2, xT, *co, fp_traj=(first.x_fp, first.eps_fp))
        for f in ("x_fp", "x_q", "eps_fp", "eps_q", "eps_fp_on_q", "eps_q_on_fp"):
            assert torch.equal(getattr(got, f), getattr(ref, f)), (solver, f)
    with pytest.raises(ValueError, match="fp_traj"):
        P.record(fp, q2, xT + 1, *co, fp_traj=(first.x_fp, first.eps_fp))


def test_frechet_distance_of_gaussians_closed_form():
    g = np.random.default_rng(0)
    f1 = g.standard_normal((40000, 2))
    f2 = g.standard_normal((40000, 2)) * 2 + 1
    # N(0, I) vs N(1, 4I): |Δμ|² = 2, tr(I + 4I − 2·2I) = 2
    assert ME.frechet_distance(f1, f2) == pytest.approx(4.0, abs=0.1)


def test_training_through_the_shared_trainer_lowers_the_loss():
    out = M.train_denoiser("ring", 32, 150, 128, 3e-3, S.alphas_bar(1000), 0, show_progress=False)
    loss = out["loss"][1]
    assert loss[-5:].mean() < 0.8 * loss[:3].mean()


def test_config_errors():
    with pytest.raises(ConfigError, match="bits"):
        config_for("smoke", bits=("W1A8",))
    with pytest.raises(ValueError, match="steps"):
        config_for("smoke", steps=(10, 2000))
    with pytest.raises(ValueError, match="lambda_grid"):
        config_for("smoke", lambda_grid=(0.5, 1.0))
    with pytest.raises(ValueError, match="dataset"):
        M.load_data("cifar10")


# -- claim rules, both ways ------------------------------------------------------------------------
CFG = config_for("smoke")


def _cell(gain_m1=0.5, gain_full=0.55, base=30.0, oracle=200.0, fd_base=0.02, fd_tcec=0.015, n=200, seed=0,
          curve=None, gain_m0=None, tac=0.2, qncd=0.1):
    g = np.random.default_rng(seed)
    b = base + g.normal(0, 1.0, n)
    noise = lambda: g.normal(0, 0.3, n)  # noqa: E731
    gm0 = gain_m1 - 0.2 if gain_m0 is None else gain_m0      # the carried term adds 0.2 dB (second edition, rule 11)
    return {"psnr": {"base": b, "tcec_m1": b + gain_m1 + noise(), "tcec_full": b + gain_full + noise(),
                     "tcec_m0": b + gm0 + noise(), "oracle": np.full(n, oracle), "ptqd": b,
                     "tac": b + tac + noise(), "qncd": b + qncd + noise()},
            "fd": {"fp": 0.005, "base": fd_base, "tcec_m1": fd_tcec}, "lambda": {"tcec_m1": 0.25, "tcec_full": 0.25},
            "err_curve": np.linspace(0, 1, 51) if curve is None else curve}


def _theory(cos=0.95, rel=0.2, jac=0.1, var=1.1, corr=1.05, cos_cum=0.97, rel_cum=0.3):
    g = np.random.default_rng(1)
    return {"cos": np.full(64, cos), "relerr": np.full(64, rel), "cos_lin": np.full(64, cos), "relerr_lin": np.full(64, rel),
            "jac_jvp": np.abs(g.normal(jac, jac / 5, 49)), "var_measured": np.full(64, var), "var_independent": np.ones(64),
            "var_full": np.full(64, corr), "cos_j0_lin": np.clip(g.normal(cos_cum, 0.01, 64), -1, 1),
            "relerr_j0_lin": np.abs(g.normal(rel_cum, 0.05, 64)),
            # C2q at the smoke run's spread (ring, W4A4: cosine 0.999 ± 0.001, relative error 0.11 ± 0.06 over 64 seeds)
            "cos_lin_q": np.clip(g.normal(0.995, 0.005, 64), -1, 1), "relerr_lin_q": np.abs(g.normal(0.11, 0.06, 64))}


def train_curve(converged: bool = True, seed: int = 0) -> dict:
    """A logged training loss (100 points over 1,500 updates, mini-batch noise 2 %): on its plateau (an exponential
    fall with a time constant of 150 updates), or still falling (a time constant of 1,500 updates: the last third of
    training still takes about 15 % of the whole fall)."""
    steps = np.arange(15, 1501, 15, dtype=float)
    tau = 150.0 if converged else 1500.0
    loss = 0.3 + 0.7 * np.exp(-steps / tau)
    return {"steps": steps, "loss": loss * (1 + 0.02 * np.random.default_rng(seed).normal(size=steps.size))}


def metric_curve(gain: float = 0.5, moved: float = 0.0, steps=(1000.0, 1500.0), bits: str = "W4A4") -> dict:
    """The compared metric at two horizons of one run (what :func:`ex.metric_curve` returns): the mean TCEC gain of
    the weights after ``steps[0]`` updates and of the final ones, ``moved`` dB apart."""
    return {"steps": [float(steps[0]), float(steps[1])], "gain": [gain - moved, gain], "bits": bits, "solver": "ddim"}


def make_result(*, gain_m1=0.5, gain_full=0.55, gain_few=None, fd_tcec=0.015, curve=None, psnr_drop=-1.0, svd_gain=0.4,
                theory=None, overhead=0.002, tac=0.2, qncd=0.1, converged=True):
    cells = {}
    for i, bits in enumerate(CFG.bits):
        for st in CFG.steps:
            few = st == CFG.steps[0]
            g = (gain_m1 / 3 if gain_few is None else gain_few) if few else gain_m1
            cells[cell_key(bits, st, "rtn")] = _cell(gain_m1=g, gain_full=gain_full if not few else g,
                                                     base=30.0 if few else 30.0 + psnr_drop, fd_tcec=fd_tcec,
                                                     curve=curve, seed=i, tac=tac, qncd=qncd)
        if bits in CFG.svd_bits:
            cells[cell_key(bits, CFG.steps[-1], "svd")] = _cell(gain_m1=svd_gain, seed=10 + i)
    # the PSNR of the fewest-step cell and the main one share their seed draws: pair them
    for bits in CFG.bits:
        few, main = cells[cell_key(bits, CFG.steps[0], "rtn")], cells[cell_key(bits, CFG.steps[-1], "rtn")]
        for k in main["psnr"]:
            main["psnr"][k] = main["psnr"][k] - main["psnr"]["base"] + few["psnr"]["base"] + psnr_drop
    base_t = np.full(20, 1.0)
    th = {b: (theory or _theory()) for b in CFG.bits}
    return {"cells": cells, "theory": th,
            "overhead": {"base": base_t, "tcec": base_t * (1 + overhead)},
            "train_curves": {"ε-denoiser": train_curve(converged)}, "metric_curves": {"ε-denoiser": metric_curve()},
            # the theory rows' statistics after 2/3 of training: by default the same objects (settled; an edit of the
            # result's arrays edits both horizons), replaced by the tests of the two-horizon guard
            "early": {"steps": [1000.0, 1500.0], "cells": cells, "theory": th}}


@claim_case(SLUG, "C1", "reproduced")
def _c1_ok():
    return claims.claim1(make_result(curve=np.sqrt(np.linspace(0, 1, 51))), CFG)


@claim_case(SLUG, "C1", "not reproduced", alternative="error injected then damped (peaks mid-trajectory)")
def _c1_alt():
    return claims.claim1(make_result(curve=np.sin(np.linspace(0, np.pi, 51))), CFG)


@claim_case(SLUG, "C1b", "reproduced")
def _c1b_ok():
    return claims.claim1b(make_result(psnr_drop=-1.0), CFG, 0)


@claim_case(SLUG, "C1b", "not reproduced", alternative="more steps give a better final PSNR (+1 dB)")
def _c1b_alt():
    return claims.claim1b(make_result(psnr_drop=1.0), CFG, 0)


@claim_case(SLUG, "C2", "reproduced")
def _c2_ok():
    return claims.claim2(make_result(), CFG)


@claim_case(SLUG, "C2", "not reproduced", alternative="the closed form overshoots the norm 30-fold (Jacobian damping)")
def _c2_alt():
    return claims.claim2(make_result(theory=_theory(cos=0.93, rel=30.0)), CFG)


@claim_case(SLUG, "C3", "reproduced")
def _c3_ok():
    return claims.claim3(make_result(), CFG)


@claim_case(SLUG, "C3", "not reproduced", alternative="Jacobian term half the carry")
def _c3_alt():
    return claims.claim3(make_result(theory=_theory(jac=0.5)), CFG)


@claim_case(SLUG, "C4", "reproduced")
def _c4_ok():
    return claims.claim4(make_result(), CFG)


@claim_case(SLUG, "C4", "not reproduced", alternative="errors damped by the network (ratio 0.01)")
def _c4_alt():
    return claims.claim4(make_result(theory=_theory(var=0.01)), CFG)


@claim_case(SLUG, "C5", "reproduced")
def _c5_ok():
    return claims.claim5(make_result(), CFG, 0)


@claim_case(SLUG, "C5", "not reproduced", alternative="no PSNR gain (ΔPSNR 0)")
def _c5_alt():
    return claims.claim5(make_result(gain_m1=0.0, gain_full=0.0), CFG, 0)


@claim_case(SLUG, "C6", "reproduced")
def _c6_ok():
    return claims.claim6(make_result(gain_m1=0.5, gain_full=0.55), CFG)


@claim_case(SLUG, "C6", "not reproduced", alternative="the full sum needed: m=1 gets 40% of its gain")
def _c6_alt():
    return claims.claim6(make_result(gain_m1=0.4, gain_full=1.0), CFG)


@claim_case(SLUG, "C7", "reproduced")
def _c7_ok():
    return claims.claim7(make_result(gain_m1=0.6, gain_few=0.1), CFG, 0)


@claim_case(SLUG, "C7", "not reproduced", alternative="the same gain at 10 and 50 steps")
def _c7_alt():
    return claims.claim7(make_result(gain_m1=0.6, gain_few=0.6), CFG, 0)


@claim_case(SLUG, "C8", "reproduced")
def _c8_ok():
    return claims.claim8(make_result(overhead=0.002), CFG)


@claim_case(SLUG, "C8", "not reproduced", alternative="a 3% overhead")
def _c8_alt():
    return claims.claim8(make_result(overhead=0.03), CFG)


@claim_case(SLUG, "C9", "reproduced")
def _c9_ok():
    return claims.claim9(make_result(svd_gain=0.4), CFG, 0)


@claim_case(SLUG, "C9", "not reproduced", alternative="no gain on the stronger base")
def _c9_alt():
    return claims.claim9(make_result(svd_gain=0.0), CFG, 0)


def make_solver_result(*, gains=None, cos=0.95, rel=0.2, rel_one_step=1.5, flow_converged=True):
    """Other-sampler cells: ``gains`` maps a solver to its TCEC gain (dB) at every bit width of CFG.solver_bits;
    ``cos``/``rel`` a number (every seed alike) or a per-seed array; ``rel_one_step`` the one-step form's relative
    error on DPM-Solver++(2M)."""
    gains = gains or {"dpmpp2m": 0.5, "flow_euler": 0.8}
    cells, closed = {}, {}
    for i, (solver, g) in enumerate(gains.items()):
        for j, bits in enumerate(CFG.solver_bits):
            key = cell_key(bits, CFG.steps[-1], "rtn", solver)
            cells[key] = _cell(gain_m1=g, seed=20 + 3 * i + j)
            closed[key] = {"cos": np.broadcast_to(cos, (64,)).copy(), "relerr": np.broadcast_to(rel, (64,)).copy()}
            if solver == "dpmpp2m":
                jitter = np.random.default_rng(j).normal(0, 0.02, 64)
                closed[key]["relerr_one_step"] = np.broadcast_to(rel_one_step, (64,)) + jitter
                closed[key]["cos_one_step"] = np.full(64, 0.5)
    return {"cells": cells, "closed": closed, "samples": {},
            "train_curves": {"ε-denoiser": train_curve(), "flow model": train_curve(flow_converged, 1)},
            "metric_curves": {"ε-denoiser": metric_curve(), "flow model": metric_curve()},
            "early": {"closed": closed, "steps": {k: [1000.0, 1500.0] for k in closed}}}


_HALF = np.r_[np.full(32, 0.99), np.full(32, 0.83)]     # mean 0.91 over 64 seeds: half the trajectories predicted


@claim_case(SLUG, "C2b", "not reproduced",
            alternative="the one-step closed form predicts DPM-Solver++(2M)'s error as well as the two-step one")
def _c2b_alt_one_step():
    return claims.claim2b(make_solver_result(cos=0.96, rel=0.15, rel_one_step=0.15), CFG)


@claim_case(SLUG, "C2b", "not reproduced",
            alternative="mean cosine 0.91 from half the trajectories at 0.99 and half at 0.83 (lower bound below 0.9)")
def _c2b_alt_half():
    return claims.claim2b(make_solver_result(cos=_HALF, rel=0.15), CFG)


@claim_case(SLUG, "C2", "not reproduced",
            alternative="mean cosine 0.91 from half the trajectories at 0.99 and half at 0.83 (lower bound below 0.9)")
def _c2_alt_half():
    th = _theory()
    th["cos"] = _HALF.copy()
    return claims.claim2(make_result(theory=th), CFG)


def test_closed_form_rules_use_bounds_over_seeds_and_fail_on_nan():
    assert _c2b_alt_half().passed is False and claims.claim2b(make_solver_result(cos=_HALF, rel=0.15),
                                                              config_for("smoke", cos_min=0.85)).passed is True
    c = _c2b_alt_one_step()
    assert c.passed is False and all(up > 0 for _, _, up in c.values["two_step"].values())
    assert "one-step form's relative error" in _c2b_ok().measured
    bad = make_solver_result(cos=0.96, rel=0.15)
    next(iter(bad["closed"].values()))["cos"][3] = np.nan
    assert claims.claim2b(bad, CFG).passed is False
    old = make_solver_result(cos=0.96, rel=0.15)
    for v in old["closed"].values():
        v.pop("relerr_one_step", None)
    assert claims.claim2b(old, CFG).passed is None
    assert _c2_alt_half().passed is False


def test_two_step_weights_against_finite_differences_of_the_sampler():
    """An independent check of the closed form used on DPM-Solver++(2M) (and by TCEC's carried term): a δ injected
    at step n through the sampler's own correction hook (the solver reuses the corrected output at step n + 1),
    the response of every later state by finite differences of :func:`propagation.sample`, against the weights
    W[k, n]; the one-step weights (c = d = 0) differ from it by far more than the tolerance."""
    ts, a, b, c, d = S.solver_coefficients("dpmpp2m", 1000, 10)
    fp = _TimeOnly()
    xT = torch.randn(3, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    u = torch.randn(3, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    base = P.sample(fp, xT, ts, a, b, c=c, d=d, keep=True)
    W2, W1 = P.propagation_weights(a, b, c, d), P.propagation_weights(a, b)
    h, worst_one = 1e-3, 0.0
    for n in range(len(ts)):
        hit = P.sample(fp, xT, ts, a, b, c=c, d=d, keep=True,
                       correction=lambda i, eps, x, n=n: eps + h * u if i == n else eps)
        fd = (hit - base) / h                                           # (S+1, B, 2): response to δ_n = u
        for k in range(len(ts) + 1):
            torch.testing.assert_close(fd[k], W2[k, n] * u, atol=1e-7, rtol=1e-6)
            worst_one = max(worst_one, float((fd[k] - W1[k, n] * u).abs().max()))
        # TCEC's carried term uses these weights at λ₁ = 0 (closed_loop_weights; test_closed_loop_weights_...)
    assert worst_one > 1e-2


class _Scaled(torch.nn.Module):
    """A quantised stand-in with J = 0: (1 + κ_n) × the time-only FP output, so δ_n = κ_n/(1 + κ_n) ε̂_n exactly."""

    def __init__(self, ts, kappa):
        super().__init__()
        self.ts, self.kappa = list(ts), kappa

    def forward(self, x, t):
        return (1 + float(self.kappa[self.ts.index(int(t[0]))])) * _TimeOnly()(x, t)


@pytest.mark.parametrize("solver", ["ddim", "dpmpp2m"])
def test_carried_term_leaves_an_exactly_corrected_trajectory_alone(solver):
    """The bug of issue 35: the carried term subtracted at step n the estimate K_{n−1} ε̂_{n−1} that step n − 1 had
    already removed. With exact per-step estimates (δ = K ε̂, J = 0) the per-step term alone lands on the FP
    trajectory; a carried term must then carry nothing, whatever λ₁ and the window. (The old rule moved it by
    λ₁ (a_n/b_n) b_{n−1} δ_{n−1} per step.)"""
    ts, a, b, c, d = S.solver_coefficients(solver, 1000, 8)
    kappa = np.linspace(0.05, 0.2, 8)
    fp, q = _TimeOnly(), _Scaled(ts, kappa)
    xT = torch.randn(6, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    x_fp = P.sample(fp, xT, ts, a, b, c=c, d=d)
    K = torch.tensor(np.repeat((kappa / (1 + kappa))[:, None], 2, 1), dtype=torch.float64)
    R = TC.fit_R(q, fp, xT, ts, a, b, K, c, d)
    assert R.abs().max() < 1e-12                          # nothing left for the carried term
    for m in (1, 3, None):
        for lam in (0.25, 1.0):
            torch.testing.assert_close(TC.tcec_sample(q, xT, ts, a, b, K, m, lam, c, d, R), x_fp, atol=1e-12, rtol=0)


def test_optimal_lambda_is_known_in_closed_form_and_nonzero():
    """A linear toy (J = 0) where the per-step term removes all of δ in channel 0 but only half of it in channel 1
    (K_1 = K*/2), and δ vanishes at the last step. What each step leaves, r_n = (K* − K_n) ε̂_n, is exactly linear in
    ε̂_n, so fit_R recovers R = K* − K; the compensated error then obeys e_{n+1} = (1 − λ₁) a_n e_n + b_n r_n, whose
    final value (computed here from that formula) is zero at λ₁ = 1 and at no other λ₁ of the grid: calibration
    must pick λ₁ = 1 for both windows, and the two windows coincide there (the older terms carry (1 − λ₁))."""
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    S_ = 10
    ts, a, b = _coeffs(S_)
    kappa = np.r_[np.linspace(0.05, 0.3, S_ - 1), 0.0]
    fp, q = _TimeOnly(), _Scaled(ts, kappa)
    xT = torch.randn(8, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
    x_fp = P.sample(fp, xT, ts, a, b)
    kstar = np.repeat((kappa / (1 + kappa))[:, None], 2, 1)
    K = torch.tensor(kstar * np.array([1.0, 0.5]), dtype=torch.float64)
    R = TC.fit_R(q, fp, xT, ts, a, b, K)
    torch.testing.assert_close(R, torch.tensor(kstar, dtype=torch.float64) - K, atol=1e-10, rtol=0)
    eh = np.stack([q(xT, torch.full((8,), int(t))).numpy() for t in ts])       # ε̂_n (independent of the state)
    r = (kstar - K.numpy())[:, None, :] * eh

    def final_error(lam):
        e = np.zeros_like(eh[0])
        for n in range(S_):
            e = (1 - lam) * a[n] * e + b[n] * r[n]
        return e
    grid = (0.0, 0.25, 0.5, 1.0)
    for lam in grid:
        got = TC.tcec_sample(q, xT, ts, a, b, K, None, lam, R=R) - x_fp
        torch.testing.assert_close(got, torch.tensor(final_error(lam)), atol=1e-10, rtol=1e-8)
    assert np.abs(final_error(1.0)).max() < 1e-12 and min(np.abs(final_error(lam)).max() for lam in grid[:-1]) > 1e-4
    for m in (1, None):
        lam, scores = ex.best_lambda(q, xT, ts, a, b, K, m, x_fp, grid, R=R)
        assert lam == 1.0 and scores[1.0] < 1e-20 < scores[0.0]
    torch.testing.assert_close(TC.tcec_sample(q, xT, ts, a, b, K, 1, 1.0, R=R),
                               TC.tcec_sample(q, xT, ts, a, b, K, None, 1.0, R=R), atol=1e-12, rtol=0)


def test_closed_loop_weights_against_the_open_loop_ones():
    ts, a, b = _coeffs(7)
    W = P.propagation_weights(a, b)
    P0 = TC.closed_loop_weights(a, b, 0.0)
    for n in range(7):
        for i in range(n):
            assert P0[n, i] == pytest.approx(W[n + 1, i], rel=1e-12)
    P1 = TC.closed_loop_weights(a, b, 0.4)
    for n in range(1, 7):
        for i in range(n):
            assert P1[n, i] == pytest.approx(a[n] * np.prod(0.6 * a[i + 1:n]) * b[i], rel=1e-12)
    assert np.all(np.triu(P1) == 0)


@claim_case(SLUG, "C2b", "reproduced")
def _c2b_ok():
    return claims.claim2b(make_solver_result(cos=0.96, rel=0.15), CFG)


@claim_case(SLUG, "C2b", "not reproduced", alternative="the two-step closed form overshoots 30-fold (Jacobian damping)")
def _c2b_alt():
    return claims.claim2b(make_solver_result(cos=0.85, rel=30.0), CFG)


@claim_case(SLUG, "C10", "reproduced")
def _c10_ok():
    return claims.claim10(make_solver_result(gains={"dpmpp2m": 0.4, "flow_euler": 1.0}), CFG, 0)


@claim_case(SLUG, "C10", "not reproduced", alternative="a gain on flow Euler but none on DPM-Solver++(2M)")
def _c10_alt():
    return claims.claim10(make_solver_result(gains={"dpmpp2m": 0.0, "flow_euler": 1.0}), CFG, 0)


def make_dit_result(gains=(0.6, 0.4), converged=True):
    cells = {cell_key(b, CFG.steps[-1], "rtn", "dit"): _cell(gain_m1=g, seed=40 + i)
             for i, (b, g) in enumerate(zip(("W4A8", "W4A4"), gains))}
    return {"cells": cells, "closed": {}, "samples": {}, "train_curves": {"DiT": train_curve(converged, 2)},
            "metric_curves": {"DiT": metric_curve()}}


@claim_case(SLUG, "C11", "reproduced")
def _c11_ok():
    return claims.claim11(make_dit_result((0.6, 0.4)), CFG, 0)


@claim_case(SLUG, "C11", "not reproduced", alternative="a gain at W4A8 but none at W4A4 on the DiT")
def _c11_alt():
    return claims.claim11(make_dit_result((0.6, 0.0)), CFG, 0)


@claim_case(SLUG, "C12", "reproduced")
def _c12_ok():
    return claims.claim12(make_result(gain_m1=0.5, tac=0.2, qncd=0.1), CFG, 0)


@claim_case(SLUG, "C12", "not reproduced", alternative="TAC as good as TCEC (its NER is TCEC's per-step term)")
def _c12_alt():
    return claims.claim12(make_result(gain_m1=0.5, tac=0.5, qncd=0.1), CFG, 0)


CASES = [(f, True) for f in (_c1_ok, _c1b_ok, _c2_ok, _c3_ok, _c4_ok, _c5_ok, _c6_ok, _c7_ok, _c8_ok, _c9_ok, _c2b_ok,
                             _c10_ok, _c11_ok, _c12_ok)] + \
        [(f, False) for f in (_c1_alt, _c1b_alt, _c2_alt, _c3_alt, _c4_alt, _c5_alt, _c6_alt, _c7_alt, _c8_alt, _c9_alt,
                              _c2b_alt, _c10_alt, _c11_alt, _c12_alt, _c2b_alt_one_step, _c2b_alt_half, _c2_alt_half)]


@pytest.mark.parametrize("make, expected", CASES, ids=[f.__name__ for f, _ in CASES])
def test_claim_cases(make, expected):
    check = make()
    assert check.passed is expected, check.measured


def test_claim6_undecided_when_the_carried_term_is_off():
    r = make_result()
    for c in r["cells"].values():
        c["lambda"] = {"tcec_m1": 0.0, "tcec_full": 0.0}
    assert claims.claim6(r, CFG).passed is None


def test_solver_claims_undecided_without_other_samplers():
    empty = {"cells": {}, "closed": {}, "samples": {}}
    assert claims.claim2b(empty, CFG).passed is None and claims.claim10(empty, CFG, 0).passed is None
    assert claims.claim11(empty, CFG, 0).passed is None


def test_other_sampler_and_dit_studies_run_end_to_end_at_a_tiny_size():
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    cfg = config_for("smoke", train_steps=30, flow_train_steps=30, dit_train_steps=30, dit_width=16, dit_depth=1,
                     dit_heads=2, steps=(3, 6), n_eval=16, n_cal=16, n_boot=100, lambda_grid=(0.0, 0.5),
                     solver_bits=("W4A4",), dit_bits=("W4A4",))
    tr = ex.train(cfg, 0)
    sr = ex.solver_study(cfg, tr, ex.train_flow(cfg, 0), 0)
    assert set(sr["cells"]) == {"W4A4/6/rtn/dpmpp2m", "W4A4/6/rtn/flow_euler"}
    dr = ex.dit_study(cfg, ex.train_dit(cfg, 0), 0)
    for c in list(sr["cells"].values()) + list(dr["cells"].values()):
        assert c["psnr"]["oracle"].mean() > c["psnr"]["base"].mean() + 20      # the oracle follows the FP trajectory
        assert "tac" in c["psnr"]
    assert "qncd" in sr["cells"]["W4A4/6/rtn/dpmpp2m"]["psnr"] and "qncd" not in sr["cells"]["W4A4/6/rtn/flow_euler"]["psnr"]
    assert sr["cells"]["W4A4/6/rtn/dpmpp2m"]["qncd_fp_psnr"].shape == (16,)
    assert sr["cells"]["W4A4/6/rtn/flow_euler"]["qncd_fp_psnr"] is None
    assert dr["samples"]["W4A4/6/rtn/dit"]["fp"].shape == (16, 1, 8, 8)
    with pytest.raises(ValueError, match="needs the flow-matching model"):
        ex.solver_study(cfg, tr, None, 0)


def test_claim9_undecided_without_svd_cells():
    r = make_result()
    r["cells"] = {k: v for k, v in r["cells"].items() if not k.endswith("/svd")}
    assert claims.claim9(r, CFG, 0).passed is None



def test_a_pure_noise_jacobian_turns_the_carry_into_the_noise_ratio():
    # the chapter's argument: with J = I/sigma_n (a network that knows nothing about x0), a + b/sigma = sigma'/sigma
    ab = S.alphas_bar(1000)
    ts = S.sampling_timesteps(1000, 20)
    a, b = S.step_coefficients("ddim", ab, ts)
    sig = np.sqrt(1 - ab[ts])
    sig_next = np.sqrt(1 - np.append(ab[ts[1:]], 1.0))
    np.testing.assert_allclose(a + b / sig, sig_next / sig, atol=1e-12)


@pytest.mark.parametrize("steps", [10, 50])
def test_steps_match_diffusers_schedulers(steps):
    diffusers = pytest.importorskip("diffusers")
    kw = dict(num_train_timesteps=1000, beta_start=1e-4, beta_end=0.02, beta_schedule="linear")
    ab = S.alphas_bar(1000)
    ts = S.sampling_timesteps(1000, steps)
    a, b = S.step_coefficients("ddim", ab, ts)
    ddim = diffusers.DDIMScheduler(**kw, set_alpha_to_one=True, steps_offset=0, clip_sample=False,
                                   timestep_spacing="leading")
    ddim.set_timesteps(steps)
    np.testing.assert_array_equal(ddim.timesteps.numpy(), ts)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 2, generator=g, dtype=torch.float64)
    for n, t in enumerate(ts):
        eps = torch.randn(3, 2, generator=g, dtype=torch.float64)
        ref = ddim.step(eps, int(t), x, eta=0.0).prev_sample   # the last step goes to alpha_prod = 1, as ours
        torch.testing.assert_close(a[n] * x + b[n] * eps, ref, atol=1e-6, rtol=1e-6)
        x = ref
    # DPM-Solver++ first order (data prediction, the same visited timesteps)
    dpm = diffusers.DPMSolverMultistepScheduler(**kw, solver_order=1, algorithm_type="dpmsolver++",
                                                timestep_spacing="leading", steps_offset=0, final_sigmas_type="zero",
                                                lower_order_final=True)
    dpm.set_timesteps(steps)
    a2, b2 = S.step_coefficients("dpmpp1", ab, dpm.timesteps.numpy())
    x = torch.randn(3, 2, generator=g, dtype=torch.float64)
    for n, t in enumerate(dpm.timesteps):
        eps = torch.randn(3, 2, generator=g, dtype=torch.float64)
        ref = dpm.step(eps, t, x).prev_sample
        torch.testing.assert_close(a2[n] * x + b2[n] * eps, ref.to(torch.float64), atol=1e-5, rtol=1e-5)
        x = ref.to(torch.float64)


def test_fused_one_window_path_equals_the_general_sum():
    ts, a, b = _coeffs(8)
    g = torch.Generator().manual_seed(3)
    K, R = torch.rand(8, 2, generator=g) * 0.2, torch.rand(8, 2, generator=g) * 0.1
    eps = [torch.randn(4, 2, generator=g) for _ in range(8)]
    fused = TC.TCEC(K, a, b, m=1, lambda1=0.6, R=R)
    general = TC.TCEC(K, a, b, m=2, lambda1=0.6, R=R)
    general.m = 1                                     # force the general loop with a window of one
    general.__class__ = type("General", (TC.TCEC,), {"__call__": _general_call})
    for n in range(8):
        torch.testing.assert_close(fused(n, eps[n], None), general(n, eps[n], None), atol=1e-6, rtol=1e-5)


def _general_call(self, n, eps, x):
    """The one-step rule written out: the residuals r̂_i = R_i ε̂_i of the window, each carried to step n through
    (1 − λ₁) a_j per step in between (the carried term removed a λ₁ share at each)."""
    if n == 0:
        self.history = []
    out = eps - self.K[n].view(1, -1) * eps
    lo = max(0, n - self.m)
    lam = self.lambda1
    e_hat = sum((float(np.prod((1 - lam) * self.a[i + 1:n]) * self.b[i]) * self.history[i] for i in range(lo, n)),
                torch.zeros_like(eps))
    out = out - lam * float(self.a[n] / self.b[n]) * e_hat
    self.history.append(self.R[n].view(1, -1) * eps)
    return out


# -- second-order DPM-Solver++ and flow-matching Euler --------------------------------------------------
@pytest.mark.parametrize("steps", [10, 50])
def test_dpmpp2m_and_flow_euler_match_diffusers(steps):
    diffusers = pytest.importorskip("diffusers")
    kw = dict(num_train_timesteps=1000, beta_start=1e-4, beta_end=0.02, beta_schedule="linear")
    dpm = diffusers.DPMSolverMultistepScheduler(**kw, solver_order=2, algorithm_type="dpmsolver++",
                                                solver_type="midpoint", timestep_spacing="leading", steps_offset=0,
                                                final_sigmas_type="zero", lower_order_final=True)
    dpm.set_timesteps(steps)
    a, b, c, d = S.multistep_coefficients("dpmpp2m", S.alphas_bar(1000), dpm.timesteps.numpy())
    assert c[0] == d[0] == c[-1] == d[-1] == 0 and np.all(c[1:-1] != 0)   # first order at both ends only
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 2, generator=g, dtype=torch.float64)
    x_prev = e_prev = None
    for n, t in enumerate(dpm.timesteps):
        eps = torch.randn(3, 2, generator=g, dtype=torch.float64)
        ref = dpm.step(eps, t, x).prev_sample.to(torch.float64)
        ours = a[n] * x + b[n] * eps + (c[n] * x_prev + d[n] * e_prev if n else 0)
        torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)
        x_prev, e_prev, x = x, eps, ref
    for shift in (1.0, 3.0):
        fm = diffusers.FlowMatchEulerDiscreteScheduler(num_train_timesteps=1000, shift=shift)
        fm.set_timesteps(steps)
        co = S.solver_coefficients("flow_euler", 1000, steps, shift=shift)
        np.testing.assert_allclose(co.timesteps, fm.timesteps.numpy(), rtol=1e-6)
        x = torch.randn(3, 2, generator=g)
        for n, t in enumerate(fm.timesteps):
            v = torch.randn(3, 2, generator=g)
            ref = fm.step(v, t, x).prev_sample
            torch.testing.assert_close(float(co.a[n]) * x + float(co.b[n]) * v, ref, atol=1e-6, rtol=1e-6)
            x = ref


def test_dpmpp2m_is_second_order_and_flow_euler_first_order_on_a_gaussian():
    from icmlbook.papers.diffusion_ptq_compensation import gaussian as G
    mu, s = 0.5, 0.3
    xT = torch.randn(500, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))

    def ddpm_err(solver, steps):                  # steps uniform in λ = log(α/σ) from −3 to 3
        ab = 1 / (1 + np.exp(-2 * np.linspace(-3, 3, steps)))[::-1].copy()
        ts = np.arange(steps)[::-1].copy()
        a, b, c, d = S.multistep_coefficients(solver, ab, ts)
        x = P.sample(G.GaussianEps(ab, mu, s), xT, ts, a, b, c=c, d=d, keep=True)[-2]   # before the jump to σ = 0
        return (x - G.ode_solution_ddpm(xT, ab[ts[0]], ab[ts[-1]], mu, s)).abs().max().item()

    def flow_err(steps):
        co = S.solver_coefficients("flow_euler", 1000, steps)
        x = P.sample(G.GaussianVelocity(mu, s), xT, *co[:3])
        return (x - G.ode_solution_flow(xT, 1.0, 0.0, mu, s)).abs().max().item()

    assert ddpm_err("dpmpp2m", 40) / ddpm_err("dpmpp2m", 80) == pytest.approx(4.0, rel=0.1)
    assert ddpm_err("ddim", 40) / ddpm_err("ddim", 80) == pytest.approx(2.0, rel=0.05)
    assert ddpm_err("dpmpp2m", 40) < 0.05 * ddpm_err("ddim", 40)
    assert flow_err(40) / flow_err(80) == pytest.approx(2.0, rel=0.05)
    assert flow_err(80) < 0.03


def test_two_step_closed_form_equals_recursion_for_zero_jacobian_and_reduces_to_one_step():
    co = S.solver_coefficients("dpmpp2m", 1000, 12)
    xT = torch.randn(7, 2, dtype=torch.float64)
    rec = P.record(_TimeOnly(), _TimeOnly(0.3), xT, *co)
    torch.testing.assert_close(P.closed_form(rec.delta(), *co[1:]), rec.error, atol=1e-10, rtol=1e-8)
    assert rec.error[-1].abs().max() > 1e-3
    # with c = d = 0 the impulse-response weights are the one-step products
    ts, a, b = _coeffs(9)
    W1 = P.propagation_weights(a, b)
    W2 = P.propagation_weights(a, b, np.where(np.arange(9) > 0, 1e-30, 0.0), 0 * a)   # forces the impulse loop
    np.testing.assert_allclose(W1, W2, rtol=1e-12)


def test_linear_gaussian_error_recursion_with_the_jacobian_is_exact():
    """For the exact Gaussian ε-predictor the network is affine in x, so e_{n+1} = (a_n + b_n J_n) e_n + b_n δ_n
    holds exactly with the scalar J_n = σ_n/(ᾱ_n s² + σ_n²): the JVP linearisation must reproduce it."""
    from icmlbook.papers.diffusion_ptq_compensation import gaussian as G
    ab = S.alphas_bar(1000)
    ts, a, b = _coeffs(10)
    fp = G.GaussianEps(ab, 0.5, 0.3)
    xT = torch.randn(4, 2, dtype=torch.float64)
    delta = torch.randn(10, 4, 2, dtype=torch.float64)
    traj = P.sample(fp, xT, ts, a, b, keep=True)
    lin = P.linearised_error(fp, traj, delta, ts, a, b)
    e = torch.zeros_like(xT)
    for n, t in enumerate(ts):
        J = 0.0 if n == 0 else np.sqrt(1 - ab[t]) / (ab[t] * 0.09 + 1 - ab[t])   # linearised_error skips J at n = 0
        e = (a[n] + b[n] * J) * e + b[n] * delta[n]
    torch.testing.assert_close(lin[-1], e)


def test_generalised_tcec_equals_the_one_step_rule_and_uses_the_two_step_weights():
    ts, a, b = _coeffs(8)
    g = torch.Generator().manual_seed(5)
    K, R = torch.rand(8, 2, generator=g) * 0.2, torch.rand(8, 2, generator=g) * 0.1
    eps = [torch.randn(4, 2, generator=g) for _ in range(8)]
    zero = np.zeros(8)
    for m in (1, 3, None):
        h1, h2 = TC.TCEC(K, a, b, m, 0.6, R=R), TC.TCEC(K, a, b, m, 0.6, zero, zero, R)
        for n in range(8):
            torch.testing.assert_close(h1(n, eps[n], None), h2(n, eps[n], None), atol=1e-6, rtol=1e-5)
    _, a2, b2, c2, d2 = S.solver_coefficients("dpmpp2m", 1000, 8)
    hook = TC.TCEC(K, a2, b2, 1, 0.5, c2, d2, R)
    hook(0, eps[0], None)
    out = hook(1, eps[1], None)
    w = a2[1] * b2[0] + d2[1]                    # a unit r_0 reaches e_2 through x_1 (a_1 b_0) and directly (d_1)
    expected = eps[1] * (1 - K[1]) - 0.5 * w / b2[1] * R[0] * eps[0]
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="one-step solvers"):
        TC.oracle_sample(None, None, torch.zeros(1, 2), ts, a2, b2, x_fp=torch.zeros(9, 1, 2), c=c2, d=d2)


def test_flow_objective_trains_and_solver_errors():
    tr = M.train_denoiser("ring", 32, 60, 128, 2e-3, S.alphas_bar(100), 0, show_progress=False, objective="flow")
    _, lv = tr["loss"]
    assert lv[-1] < lv[0]
    with pytest.raises(ValueError, match="objective='score'"):
        M.train_denoiser("ring", 32, 5, 16, 1e-3, S.alphas_bar(100), 0, objective="score")
    with pytest.raises(ValueError, match="solver='heun'"):
        S.solver_coefficients("heun", 1000, 10)
    with pytest.raises(ValueError, match="shift=0"):
        S.flow_sigmas(1000, 10, shift=0)
    with pytest.raises(ValueError, match="steps=2000"):
        S.flow_sigmas(1000, 2000)


# -- tiny DiT -------------------------------------------------------------------------------------------
def test_dit_starts_as_zero_with_identity_blocks_and_unpatchifies_pixel_by_pixel():
    torch.manual_seed(0)
    m = M.TinyDiT(dim=32, depth=2, heads=4, patch=2).eval()
    x, t = torch.randn(3, 1, 8, 8), torch.randint(0, 1000, (3,))
    assert m(x, t).abs().max() == 0                          # adaLN-zero: the output layer starts at zero
    h, c = torch.randn(3, 16, 32), torch.randn(3, 32)
    torch.testing.assert_close(m.blocks[0](h, c), h)          # ... and every block as the identity
    tok = torch.randn(2, 16, 4)
    img = m.unpatchify(tok)
    for b in range(2):
        for gy in range(4):
            for gx in range(4):
                for j in range(4):
                    assert img[b, 0, gy * 2 + j // 2, gx * 2 + j % 2] == tok[b, gy * 4 + gx, j]
    # the patch embedding sees the same pixels: a conv with stride = kernel = patch is a linear map per patch
    w = m.embed.weight.reshape(32, 4)
    patches = torch.stack([x[:, 0, gy * 2:gy * 2 + 2, gx * 2:gx * 2 + 2].reshape(3, 4) for gy in range(4) for gx in range(4)], 1)
    torch.testing.assert_close(m.embed(x).flatten(2).transpose(1, 2), patches @ w.T + m.embed.bias, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="patch=3"):
        M.TinyDiT(dim=32, patch=3)


def test_dit_trains_and_quantises_like_the_unet():
    tr = M.train_denoiser("digits", 16, 40, 64, 2e-3, S.alphas_bar(1000), 0, show_progress=False, arch="dit", depth=1,
                          heads=2)
    assert tr["arch"] == "dit" and tr["loss"][1][-1] < tr["loss"][1][0]
    m = M.make_model("digits", 16, "dit", depth=1, heads=2)
    m.load_state_dict(tr["state"])
    m.eval()
    names = Q.quantizable_layers(m)
    assert "embed" in names and "blocks.0.qkv" in names and "out" in names
    assert not any(n.split(".")[-1].startswith("ada") or n.startswith("tmlp") for n in names)   # time path stays FP
    x, t = torch.randn(8, 1, 8, 8), torch.randint(0, 1000, (8,))
    ref = m(x, t)
    errs = [(Q.quantize_model(m, b, b, act_mode="token")(x, t) - ref).norm().item() for b in (3, 4, 8)]
    assert errs[0] > errs[1] > errs[2] > 0
    full = Q.quantize_model(m, 4, 4, "svd", rank=10_000, calib=(x, t))
    torch.testing.assert_close(full(x, t), ref, atol=1e-4, rtol=1e-4)
    with pytest.raises(ValueError, match="arch='dit' is not allowed for dataset='ring'"):
        M.make_model("ring", 16, "dit")


def test_token_activation_quantiser_on_transformer_inputs():
    x = torch.randn(2, 5, 6)
    st = x.abs().amax(2, keepdim=True) / 7                    # one scale per token (B, N)
    torch.testing.assert_close(Q.fake_quant_act(x, 4, "token"), torch.clamp(torch.round(x / st), -7, 7) * st, atol=1e-6,
                               rtol=0)


# -- TAC and QNCD baselines -------------------------------------------------------------------------------
def test_tac_ner_is_the_masked_least_squares_factor_and_unmasked_it_is_tcec_per_step():
    fp, q, (ts, a, b), rec = _toy_record()
    K = TC.fit_K(rec)
    k1 = TC.fit_tac_ner(rec, mask_quantile=1.0)
    torch.testing.assert_close(k1, 1 - K, atol=1e-5, rtol=1e-5)          # the same estimator, reparametrised
    xT = rec.x_fp[0]
    torch.testing.assert_close(TC.tac_sample(q, xT, ts, a, b, k1), TC.tcec_sample(q, xT, ts, a, b, K, 0, 0.0),
                               atol=1e-5, rtol=1e-5)
    k9 = TC.fit_tac_ner(rec, mask_quantile=0.8)
    eh, ef = rec.eps_q.numpy(), rec.eps_fp_on_q.numpy()
    for n in (0, 6, 11):
        for ch in range(2):
            e, f = eh[n, :, ch], ef[n, :, ch]
            rel = np.abs(e - f) / np.maximum(np.abs(f), 1e-12)
            keep = rel <= np.quantile(rel, 0.8)
            sol = np.linalg.lstsq(e[keep, None], f[keep], rcond=None)[0][0]
            assert k9[n, ch].item() == pytest.approx(sol, rel=1e-4)
    with pytest.raises(ValueError, match="mask_quantile=0"):
        TC.fit_tac_ner(rec, mask_quantile=0)


def test_tac_ibc_zeroes_the_mean_input_bias_on_the_calibration_seeds():
    fp, q, (ts, a, b), rec = _toy_record()
    k = TC.fit_tac_ner(rec)
    beta = TC.calibrate_tac_ibc(q, rec.x_fp[0], rec.x_fp, ts, a, b, k)
    traj = TC.tac_sample(q, rec.x_fp[0], ts, a, b, k, beta, keep=True)
    inputs = traj[:-1] - beta[:, None, :]                                 # the states after the IBC shift
    torch.testing.assert_close((inputs - rec.x_fp[:-1]).mean(1), torch.zeros(len(ts), 2), atol=1e-5, rtol=0)
    assert beta[1:].abs().max() > 1e-4                                    # a real bias was there to remove


def test_qncd_estimate_recovers_a_constant_output_offset_on_the_forward_marginal():
    """Its defining property: on states drawn from the forward marginal at t (Gaussian data, exact ε*), the
    back-diffusion estimate is the quantised model's mean output offset, and 0 for the exact model."""
    from icmlbook.papers.diffusion_ptq_compensation import gaussian as G
    ab = S.alphas_bar(1000)
    fp = G.GaussianEps(ab, 0.5, 0.3)
    g = torch.Generator().manual_seed(2)
    for t_from, t_back in ((600, 640), (200, 240), (40, 80)):
        x = np.sqrt(ab[t_from]) * (0.5 + 0.3 * torch.randn(20000, 2, generator=g, dtype=torch.float64)) + \
            np.sqrt(1 - ab[t_from]) * torch.randn(20000, 2, generator=g, dtype=torch.float64)
        assert TC.qncd_estimate(lambda x, t: fp(x, t) + 0.05, x, t_from, t_back, ab, g) == pytest.approx(0.05, abs=0.01)
        assert abs(TC.qncd_estimate(fp, x, t_from, t_back, ab, g)) < 0.01


def test_qncd_sampler_estimates_on_its_cadence_and_removes_the_offset():
    ab = S.alphas_bar(1000)
    ts, a, b = _coeffs(25)

    def fp(x, t):                                                        # zero Jacobian: the state plays no role
        return torch.zeros_like(x)

    def q(x, t):
        return fp(x, t) + 0.05
    xT = torch.randn(40000, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    x, est = TC.qncd_sample(q, xT, ts, a, b, ab, interval=5, return_estimates=True)
    assert [n for n, _ in est] == [3, 8, 13, 18, 23]                      # the public sampler's cadence
    assert all(abs(m - 0.05) < 0.011 for _, m in est)                     # 3 standard errors of a mean of 80000 N(0,1)
    # zero Jacobian: the final error is the closed form of the per-step residual offsets 0.05 − μ (μ = 0 up to
    # the first estimate and at every reverse step itself, else the latest estimate)
    mu = np.zeros(25)
    for n, m in est:
        mu[n + 1:] = m
    mu[[n for n, _ in est]] = 0.0
    W = P.propagation_weights(a, b)[-1]
    torch.testing.assert_close(x - P.sample(fp, xT, ts, a, b), torch.full_like(xT, float(W @ (0.05 - mu))))
    assert abs(W[4:] @ (0.05 - mu[4:])) < 0.3 * abs(W[4:].sum() * 0.05)    # after the first estimate
    with pytest.raises(ValueError, match="interval=0"):
        TC.qncd_sample(q, xT, ts, a, b, ab, interval=0)


# -- optimum-quanto cross-check (dev extra; no weights, no network) ---------------------------------------
def test_quantiser_matches_optimum_quanto_at_8_bits():
    quanto = pytest.importorskip("optimum.quanto")
    import copy
    import torch.nn.functional as F
    torch.manual_seed(0)
    for layer, x in ((torch.nn.Linear(24, 16), torch.randn(1, 24)), (torch.nn.Conv2d(3, 8, 3, padding=1), torch.randn(1, 3, 6, 6))):
        scale = quanto.AbsmaxOptimizer()(layer.weight.detach(), quanto.qint8, axis=0)
        qw = quanto.quantize_weight(layer.weight.detach(), qtype=quanto.qint8, axis=0, scale=scale)
        torch.testing.assert_close(Q.fake_quant_weight(layer.weight, 8), qw.dequantize(), atol=0, rtol=0)
        m = torch.nn.Sequential(copy.deepcopy(layer))
        quanto.quantize(m, weights=quanto.qint8, activations=quanto.qint8)
        with quanto.Calibration(momentum=0.9, streamline=False):
            m(x)                                             # one batch of one: the input scale is absmax/127
        quanto.freeze(m)
        xq = quanto.quantize_activation(x, qtype=quanto.qint8, scale=m[0].input_scale).dequantize()
        torch.testing.assert_close(Q.fake_quant_act(x, 8, "tensor"), xq, atol=1e-7, rtol=0)
        ours = Q.QuantLayer(layer, 8, 8, "tensor")(x)
        wq = m[0].qweight.dequantize()
        ref = F.linear(xq, wq, layer.bias) if isinstance(layer, torch.nn.Linear) else F.conv2d(xq, wq, layer.bias, padding=1)
        torch.testing.assert_close(ours, ref, atol=1e-6, rtol=1e-6)
        if isinstance(layer, torch.nn.Linear):              # quanto also rounds the module's output to int8
            out = m(x).dequantize()
            assert (out - ours).abs().max() <= 0.5 * m[0].output_scale + 1e-6


def test_playground_runs_on_the_second_order_solver_and_rejects_flow():
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    cfg = config_for("smoke", train_steps=20)
    fp = ex.load_model(cfg, ex.train(cfg, 0))
    out = ex.playground(cfg, fp, "W4A4", 6, "rtn", 1, 0.25, 0, n=16, solver="dpmpp2m")
    assert out["x_fp"].shape == (16, 2) and np.isfinite(out["tcec"]).all()
    with pytest.raises(ValueError, match="solver='flow_euler'"):
        ex.playground(cfg, fp, "W4A4", 6, "rtn", 1, 0.25, 0, n=16, solver="flow_euler")


def test_lambda_zero_runs_are_shared_exactly_across_windows():
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    fp, q, (ts, a, b), rec = _toy_record()
    K = TC.fit_K(rec)
    xT = rec.x_fp[0]
    for m in (1, None, 3):
        torch.testing.assert_close(TC.tcec_sample(q, xT, ts, a, b, K, m, 0.0), TC.tcec_sample(q, xT, ts, a, b, K, 0, 0.0),
                                   atol=0, rtol=0)
    R = TC.fit_R(q, fp, xT, ts, a, b, K)
    memo: dict = {}
    lam1, s1 = ex.best_lambda(q, xT, ts, a, b, K, 1, rec.x_fp[-1], (0.0, 0.5), memo=memo, R=R)
    lamf, sf = ex.best_lambda(q, xT, ts, a, b, K, None, rec.x_fp[-1], (0.0, 0.5), memo=memo, R=R)
    assert len(memo) == 3 and s1[0.0] == sf[0.0]
    assert (lam1, s1) == ex.best_lambda(q, xT, ts, a, b, K, 1, rec.x_fp[-1], (0.0, 0.5), R=R)


def test_solver_and_bit_width_rules_are_not_decided_on_part_of_what_they_name():
    # C2b and C10 name both samplers, C12 both low bit widths: a run missing one is undecided, never a pass
    full = make_solver_result(cos=0.96, rel=0.15)
    only_dpm = {**full, "closed": {k: v for k, v in full["closed"].items() if k.endswith("/dpmpp2m")}}
    check = claims.claim2b(only_dpm, CFG)
    assert check.passed is None and "flow Euler" in check.reason
    res = make_solver_result(gains={"dpmpp2m": 0.4, "flow_euler": 1.0})
    only_flow = {**res, "cells": {k: v for k, v in res["cells"].items() if k.endswith("/flow_euler")}}
    check = claims.claim10(only_flow, CFG, 0)
    assert check.passed is None and "DPM-Solver++(2M)" in check.reason
    narrow = config_for("smoke", bits=("W8A8", "W4A8"), svd_bits=("W4A8",), solver_bits=("W4A8",), dit_bits=())
    check = claims.claim12(make_result(gain_m1=0.5, tac=0.2, qncd=0.1), narrow, 0)
    assert check.passed is None and "W4A4" in check.reason


# -- session 5: the second review's worlds (/work/review/diffusion_ptq_compensation.md), each now rejected -------
def _jacobian_world(r: float, alternate: bool, B: int = 64) -> dict:
    """A world with a known Jacobian: J_n = s_n (a_n / b_n) I for n >= 1, so the per-step ratio ‖b_n J_n e‖/‖a_n e‖
    is |s_n| = r exactly, and the error with J kept is e_{n+1} = a_n (1 + s_n) e_n + b_n δ_n (i.i.d. δ's); the J = 0
    closed form of the same δ's against it, per seed, as the study computes it. ``alternate``: signs + − + ...
    (the factors cancel in pairs), else s_n = −r at every step (a damping that compounds)."""
    ts, a, b, _, _ = sampler_coefficients(CFG, CFG.steps[-1])
    delta = torch.randn(len(a), B, 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    pred = P.closed_form(delta, a, b)[-1]
    e = torch.zeros(B, 2, dtype=torch.float64)
    for n in range(len(a)):
        sn = 0.0 if n == 0 else (r * (-1) ** n if alternate else -r)
        e = a[n] * (1 + sn) * e + b[n] * delta[n]
    th = _theory()
    th["jac_jvp"] = np.full(len(a) - 1, r)
    th["cos_j0_lin"] = P.cosine(pred, e).numpy()
    th["relerr_j0_lin"] = ((pred - e).norm(dim=1) / e.norm(dim=1)).numpy()
    return th


@claim_case(SLUG, "C3", "reproduced")
def _c3_ok_cancelling():
    return claims.claim3(make_result(theory=_jacobian_world(0.1, alternate=True)), CFG)


@claim_case(SLUG, "C3", "not reproduced", alternative="ratio 0.2 at every step, compounding over 49 steps")
def _c3_alt_compounding():
    return claims.claim3(make_result(theory=_jacobian_world(0.2, alternate=False)), CFG)


def _ar1_world(rho: float, damping: float, B: int = 4000) -> dict:
    """The review's C4 world: AR(1) per-step errors (correlation ``rho`` across steps) and J = damping·I."""
    ts, a, b, _, _ = sampler_coefficients(CFG, CFG.steps[-1])
    S_ = len(a)
    z = torch.randn(S_, B, 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    delta = torch.zeros_like(z)
    delta[0] = z[0]
    for n in range(1, S_):
        delta[n] = rho * delta[n - 1] + np.sqrt(1 - rho ** 2) * z[n]
    rec_q = P.closed_form(delta, a, b)[-1]
    W = torch.tensor(P.propagation_weights(a, b)[-1])
    e = torch.zeros(B, 2, dtype=torch.float64)
    for n in range(S_):
        e = (a[n] + damping * b[n]) * e + b[n] * delta[n]
    th = _theory()
    th["var_measured"] = e.pow(2).sum(1).numpy()
    th["var_independent"] = (W[:, None] ** 2 * delta.pow(2).sum(2)).sum(0).numpy()
    th["var_full"] = rec_q.pow(2).sum(1).numpy()
    return th


@claim_case(SLUG, "C4", "reproduced")
def _c4_ok_independent():
    return claims.claim4(make_result(theory=_ar1_world(0.0, 0.0)), CFG)


@claim_case(SLUG, "C4", "not reproduced", alternative="correlated errors (×3) masked by a mild Jacobian damping")
def _c4_alt_masked():
    return claims.claim4(make_result(theory=_ar1_world(0.6, 0.1)), CFG)


def _tight(r: dict, gain_db: float, keys, method: str = "tcec_m1") -> dict:
    """Set ``method``'s PSNR in the cells ``keys`` to the base + ``gain_db`` + N(0, 0.05²): a small gain with a
    tight interval (the review's construction)."""
    for k in keys:
        c = r["cells"][k]
        c["psnr"][method] = c["psnr"]["base"] + gain_db + np.random.default_rng(5).normal(0, 0.05, len(c["psnr"]["base"]))
    return r


_SMALL = "a 0.03 dB gain with a tight interval (1/40 of the paper's 1.2 dB; within any visible difference)"


@claim_case(SLUG, "C5", "not reproduced", alternative=_SMALL)
def _c5_alt_small():
    return claims.claim5(_tight(make_result(gain_m1=0.03, gain_full=0.03), 0.03,
                                [cell_key(b, CFG.steps[-1], "rtn") for b in CFG.bits]), CFG, 0)


@claim_case(SLUG, "C9", "not reproduced", alternative=_SMALL + " on SVDQuant-lite")
def _c9_alt_small():
    return claims.claim9(_tight(make_result(), 0.03, [cell_key(b, CFG.steps[-1], "svd") for b in CFG.svd_bits]), CFG, 0)


@claim_case(SLUG, "C10", "not reproduced", alternative=_SMALL + " on both other samplers")
def _c10_alt_small():
    r = make_solver_result()
    return claims.claim10(_tight(r, 0.03, list(r["cells"])), CFG, 0)


@claim_case(SLUG, "C11", "not reproduced", alternative=_SMALL + " on the DiT")
def _c11_alt_small():
    r = make_dit_result()
    return claims.claim11(_tight(r, 0.03, list(r["cells"])), CFG, 0)


@claim_case(SLUG, "C6", "not reproduced", alternative="both windows hurt (m = 1 −1.1 dB, full sum −1.0 dB): no gain to share")
def _c6_alt_losses():
    return claims.claim6(make_result(gain_m1=-1.1, gain_full=-1.0), CFG, 0)


@claim_case(SLUG, "C7", "not reproduced", alternative="losses at both step counts (−1.0 dB at 10 steps, −0.2 dB at 50)")
def _c7_alt_losses():
    return claims.claim7(make_result(gain_m1=-0.2, gain_few=-1.0), CFG, 0)


@claim_case(SLUG, "C12", "not reproduced",
            alternative="TCEC +0.1 dB 'beating' TAC at −3 dB and QNCD at −5 dB, both worse than no correction")
def _c12_alt_broken():
    return claims.claim12(make_result(gain_m1=0.1, gain_full=0.1, tac=-3.0, qncd=-5.0), CFG, 0)


CASES_S5 = [(f, True) for f in (_c3_ok_cancelling, _c4_ok_independent)] + \
    [(f, False) for f in (_c3_alt_compounding, _c4_alt_masked, _c5_alt_small, _c9_alt_small, _c10_alt_small,
                          _c11_alt_small, _c6_alt_losses, _c7_alt_losses, _c12_alt_broken)]


@pytest.mark.parametrize("make, expected", CASES_S5, ids=[f.__name__ for f, _ in CASES_S5])
def test_second_review_cases(make, expected):
    check = make()
    assert check.passed is expected, check.measured


def test_second_review_details():
    # C3: the compounding world passes the per-step half (ratio 0.2 < 0.25 everywhere): the cumulative half rejects it
    c3 = _c3_alt_compounding()
    assert c3.values["share"] == 1.0 and c3.values["rel_hi"] > CFG.relerr_max
    # C4: the review's world keeps the measured/predicted ratio inside the window; the correlation ratio is ~3
    c4 = _c4_alt_masked()
    assert all(1 / 1.5 <= r <= 1.5 for r in c4.values["ratio"].values())
    assert all(r > 2 for r in c4.values["correlation"].values())
    # C5: the small gain's interval is above 0 (the old rule passed) but below the minimum effect
    c5 = _c5_alt_small()
    assert all(0 < r["lo"] < CFG.min_gain_db for r in c5.values["rows"].values())
    # C12: TCEC beats working corrections by a margin but one comparator is worse than no correction: undecided
    r = make_result(gain_m1=0.8, tac=0.2, qncd=-1.0)
    c12 = claims.claim12(r, CFG, 0)
    assert c12.passed is None and "QNCD" in c12.reason
    assert claims.claim12(make_result(gain_m1=0.5, tac=0.5, qncd=-1.0), CFG, 0).passed is False   # TAC not beaten
    # C9: a gain on an SVDQuant-lite base 3 dB worse than RTN: undecided (not a stronger base)
    r = make_result(svd_gain=0.5)
    for b in CFG.svd_bits:
        c = r["cells"][cell_key(b, CFG.steps[-1], "svd")]
        for k in c["psnr"]:
            c["psnr"][k] = c["psnr"][k] - 3.0
    c9 = claims.claim9(r, CFG, 0)
    assert c9.passed is None and "not a stronger base" in c9.reason
    # C8: a 0.2 % overhead under timing noise of 30 % (bursty load) is undecided, not a pass; a 3 % one still fails
    bursts = 1 + np.r_[0.0, 0.04, 0.09, 0.2, 0.3, 0.35, 0.5, 0.6, 0.8, 1.1]   # the two fastest 4 % apart
    noisy = {"overhead": {"base": bursts, "tcec": 1.002 * bursts[::-1]}}
    c8 = claims.claim8(noisy, CFG)
    assert c8.passed is None and c8.values["noise"] == pytest.approx(0.04)
    assert _c8_alt().passed is False
    # C6: the oracle check is a code check: an oracle below m = 1 fails with that reason
    r = make_result()
    for c in r["cells"].values():
        c["psnr"]["oracle"] = c["psnr"]["base"]
    assert "implementation" in claims.claim6(r, CFG, 0).reason


def test_variance_law_full_moment_and_the_cumulative_comparison_in_the_study():
    """``variance_law``'s ``full`` is ‖Σ W δ‖² of the same δ's: equal to ``measured`` for a zero-Jacobian denoiser
    (closed form exact), and the study's C3 arrays equal the closed form against the linearised product."""
    ts, a, b = _coeffs(12)
    xT = torch.randn(9, 2, dtype=torch.float64)
    rec = P.record(_TimeOnly(), _TimeOnly(0.3), xT, ts, a, b)
    v = P.variance_law(rec, a, b)
    np.testing.assert_allclose(v["full"], v["measured"], rtol=1e-9)
    assert not np.allclose(v["full"], v["independent"])          # the offset is the same at every step: correlated
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    cfg = config_for("smoke", n_theory=8)
    th = ex._theory(cfg, _TimeOnly(), rec, (ts, a, b))               # J = 0: the linearised product is the closed form
    np.testing.assert_allclose(th["cos_j0_lin"], 1.0, atol=1e-9)
    np.testing.assert_allclose(th["relerr_j0_lin"], 0.0, atol=1e-9)
    np.testing.assert_allclose(th["var_full"], v["full"])
    torch.manual_seed(0)
    fp = M.MLPDenoiser(width=16).eval()                              # a real Jacobian: the two differ
    rec2 = P.record(fp, Q.quantize_model(fp, 3, 4), xT.float(), ts, a, b)
    th2 = ex._theory(cfg, fp, rec2, (ts, a, b))
    assert th2["cos_j0_lin"].shape == (8,) and th2["relerr_j0_lin"].max() > 1e-3


def _with_recal(r: dict, gains) -> dict:
    """Add further calibrations to the main low-bit RTN cells: ``gains`` (dB) per calibration, seed noise 0.3 dB."""
    for i, b in enumerate(("W4A8", "W4A4")):
        c = r["cells"][cell_key(b, CFG.steps[-1], "rtn")]
        base = c["psnr"]["base"]
        c["recal"] = {"psnr": [base + g + np.random.default_rng(60 + 7 * i + j).normal(0, 0.3, len(base))
                               for j, g in enumerate(gains)], "lambda": [0.25] * len(gains)}
    return r


@claim_case(SLUG, "C5", "reproduced")
def _c5_ok_recal():
    return claims.claim5(_with_recal(make_result(), (0.45, 0.55)), CFG, 0)


@claim_case(SLUG, "C5", "not reproduced",
            alternative="a gain from one lucky calibration: none on a second calibration set (K, λ₁ fitted again)")
def _c5_alt_lucky():
    return claims.claim5(_with_recal(make_result(), (0.5, 0.0)), CFG, 0)


def test_c5_over_calibrations_and_the_study_runs_them():
    assert _c5_ok_recal().passed is True and "on 2 more calibrations" in _c5_ok_recal().measured
    assert _c5_alt_lucky().passed is False
    assert "one calibration" in _c5_ok().measured
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    cfg = config_for("smoke", train_steps=30, steps=(3, 6), bits=("W8A8", "W4A4"), svd_bits=(), solver_bits=(),
                     n_eval=16, n_cal=16, n_theory=8, n_boot=100, lambda_grid=(0.0, 0.5), overhead_repeats=1,
                     cal_repeats=3)
    res = ex.study(cfg, ex.train(cfg, 0), 0)
    main = res["cells"]["W4A4/6/rtn"]
    assert len(main["recal"]["psnr"]) == 2 and main["recal"]["psnr"][0].shape == (16,)
    assert not np.array_equal(main["recal"]["psnr"][0], main["recal"]["psnr"][1])   # fresh calibration noise each
    assert "recal" not in res["cells"]["W8A8/6/rtn"] and "recal" not in res["cells"]["W4A4/3/rtn"]
    assert claims.claim5(res, cfg, 0).values["recal"]["W4A4"]


@claim_case(SLUG, "C1", "not reproduced", alternative="all the error injected in the last 5 steps (monotone, ρ = 1)")
def _c1_alt_late():
    return claims.claim1(make_result(curve=np.r_[np.linspace(0, 1e-3, 46), [0.2, 0.4, 0.6, 0.8, 1.0]]), CFG)


def test_c1_late_error_is_not_accumulation():
    c = _c1_alt_late()
    assert c.passed is False and all(r > 0.99 for r in c.values["rho"].values())
    assert _c1_ok().passed is True and all(e > 0.8 for e in _c1_ok().values["early"].values())


def test_seed_robustness_flags_a_near_zero_seed():
    # session 5's review (C2/C2b, minor, reverse): one seed of 64 with a near-zero final error fails an otherwise exact
    # closed form; the rule is kept (a median would loosen it) and the page reports whether a verdict rests on it
    th = _theory(cos=0.99, rel=0.05)
    th["relerr"] = th["relerr"].copy()
    th["relerr"][0] = 1e3
    th["e_norm"] = np.r_[1e-5, np.ones(63)]
    assert claims.claim2(make_result(theory=th), CFG).passed is False
    rob = claims.seed_robustness({"W4A4": th}, CFG)["W4A4"]
    assert rob["median"] == np.median(th["relerr"]) == 0.05 and rob["max"] == 1e3
    assert np.isclose(rob["e_norm_at_max"], 1e-5) and rob["same_side"] is False
    text = claims.seed_robustness_sentence({"W4A4": th}, CFG)
    assert "different sides" in text and "W4A4" in text
    ok = claims.seed_robustness({"W4A4": _theory(rel=0.05)}, CFG)["W4A4"]
    assert ok["same_side"] and np.isnan(ok["e_norm_at_max"])                     # no e_norm: not reported
    assert "same side" in claims.seed_robustness_sentence({"W4A4": _theory(rel=2.0)}, CFG)
    key = cell_key("W4A8", 10, "rtn", "dpmpp2m")
    assert list(claims.seed_robustness({key: _theory()}, CFG)) == ["DPM-Solver++(2M) W4A8"]


# -- the nearest trivial methods, run for real at a tiny size (CLAIMS.md rule 11, second edition) -----------------------
# One tiny ring study: the MLP trained 400 updates, 48 evaluation and 24 calibration seeds, 5 and 20 DDIM steps. The
# trivial methods are real outputs of that study: TCEC with its carried term switched off (λ₁ grid {0}: the one-shot
# per-step correction, the cells' "tcec_m1" is then the per-step rule for real, FD included), predictors of the error
# without the sampler's carry (only the last step's injected error b_{S-1} δ_{S-1}), the injected per-step errors not
# carried (C1), the one-step closed form on the two-step sampler (C2b), and QNCD's run-time estimate (one extra network
# call per step) timed in place of the calibrated correction (C8).
import functools  # noqa: E402

TINY = dict(width=64, train_steps=400, flow_train_steps=400, dit_train_steps=200, dit_width=16, dit_depth=1, dit_heads=2,
            n_eval=48, n_cal=24, n_theory=16, steps=(5, 20), bits=("W8A8", "W4A8", "W4A4"), svd_bits=("W4A4",),
            solver_bits=("W4A4",), dit_bits=("W4A4",), n_boot=200, overhead_repeats=4, lambda_grid=(0.0,))


@functools.lru_cache(maxsize=None)
def tiny_world() -> dict:
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    cfg = config_for("smoke", **TINY)
    tr, flow, dit = ex.train(cfg, 0), ex.train_flow(cfg, 0), ex.train_dit(cfg, 0)
    res = ex.study(cfg, tr, 0)
    sol = ex.solver_study(cfg, tr, flow, 0)
    dres = ex.dit_study(cfg, dit, 0)
    fp = ex.load_model(cfg, tr)
    ts, a, b, _, _ = ex.sampler_coefficients(cfg, cfg.steps[-1])
    xT = ex._noise(cfg, cfg.n_eval, 1000)
    recs = {bits: P.record(fp, ex._quantised(cfg, fp, bits, "rtn", 0), xT, ts, a, b) for bits in cfg.bits}
    return {"cfg": cfg, "fp": fp, "res": res, "sol": sol, "dit": dres, "recs": recs, "coeffs": (ts, a, b), "xT": xT,
            "tr": tr, "flow": flow}


def _one_shot(rec, b) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
    """The error predicted without the sampler's carry: only the last step's injected error b_{S-1} δ_{S-1}."""
    e = rec.error[-1]
    pred = float(b[-1]) * rec.delta("quantised")[-1]
    B = e.shape[0]
    rel = (pred - e).reshape(B, -1).norm(dim=1) / e.reshape(B, -1).norm(dim=1).clamp_min(1e-30)
    return P.cosine(pred, e).numpy(), rel.numpy(), pred


def _settled(res: dict, key: str = "res") -> dict:
    """A trivial method's result read behind the theory rows' two-horizon guard (session 12): its own statistics
    taken at both horizons (the early horizon's steps those of the tiny study). The guard can only turn a verdict
    inconclusive, never into a pass, so rule 11 is read on the rule itself, as ``still`` does for the metric guard."""
    steps = tiny_world()[key]["early"]["steps"]
    return {**res, "early": {**res, "steps": steps}}


def _main_cells(res, cfg):
    return {k: c for k, c in res["cells"].items() if k.split("/")[1] == str(cfg.steps[-1])}


@claim_case(SLUG, "C1", "not reproduced", trivial="errors injected at each step and not carried (‖b_n δ_n‖ of the real "
            "quantised model, no accumulation)")
def _c1_trivial():
    w = tiny_world()
    res, cfg, b = dict(w["res"]), w["cfg"], torch.as_tensor(w["coeffs"][2], dtype=torch.float32)
    res["cells"] = {k: dict(c) for k, c in res["cells"].items()}
    for bits, rec in w["recs"].items():
        d = rec.delta("quantised")
        inj = (b.view(-1, *([1] * (d.dim() - 1))) * d).reshape(d.shape[0], d.shape[1], -1).norm(dim=2).mean(1).numpy()
        res["cells"][cell_key(bits, cfg.steps[-1], "rtn")]["err_curve"] = np.r_[0.0, inj]
    return claims.claim1(_settled(res), cfg)


@claim_case(SLUG, "C1b", "not reproduced", trivial="the one-shot per-step correction's output in place of the base "
            "(TCEC with λ₁ = 0)")
def _c1b_trivial():
    w = tiny_world()
    res = {"cells": {k: dict(c, psnr=dict(c["psnr"], base=c["psnr"]["tcec_m1"])) for k, c in w["res"]["cells"].items()}}
    return claims.claim1b(_settled(res), w["cfg"], 0)


def _theory_with(pred_of) -> dict:
    """The study's theory dicts with the closed form replaced by ``pred_of(rec, b)`` -> (cos, rel)."""
    w = tiny_world()
    out = {}
    for bits, t in w["res"]["theory"].items():
        cos, rel = pred_of(w["recs"][bits], w["coeffs"][2])[:2]
        out[bits] = dict(t, cos=cos, relerr=rel)
    return {"theory": out}


@claim_case(SLUG, "C2", "not reproduced", trivial="a one-shot predictor (only the last step's error b_{S-1} δ_{S-1}, "
            "nothing carried)")
def _c2_trivial():
    return claims.claim2(_settled(_theory_with(_one_shot)), tiny_world()["cfg"])


@claim_case(SLUG, "C2b", "not reproduced", trivial="the one-step closed form on DPM-Solver++(2M) (no two-step terms)")
def _c2b_trivial():
    sol = tiny_world()["sol"]
    closed = {k: (dict(v, cos=v["cos_one_step"], relerr=v["relerr_one_step"]) if "relerr_one_step" in v else v)
              for k, v in sol["closed"].items()}
    return claims.claim2b(_settled(dict(sol, closed=closed), "sol"), tiny_world()["cfg"])


@claim_case(SLUG, "C3", "not reproduced", trivial="the one-shot predictor (carry and Jacobian both dropped) against the "
            "linearised product with J kept")
def _c3_trivial():
    w = tiny_world()
    cfg, fp, (ts, a, b) = w["cfg"], w["fp"], w["coeffs"]
    bits = cfg.bits[-1]
    rec = w["recs"][bits]
    n = cfg.n_theory
    sub = P.Record(*(getattr(rec, f)[:, :n] for f in ("x_fp", "x_q", "eps_fp", "eps_q", "eps_fp_on_q", "eps_q_on_fp")))
    with torch.enable_grad():
        lin = P.linearised_error(fp, sub.x_fp, sub.delta("fp"), ts, a, b)[-1].detach()
    pred = float(b[-1]) * sub.delta("fp")[-1]
    rel = (pred - lin).reshape(n, -1).norm(dim=1) / lin.reshape(n, -1).norm(dim=1).clamp_min(1e-30)
    theory = dict(w["res"]["theory"])
    theory[bits] = dict(theory[bits], cos_j0_lin=P.cosine(pred, lin).numpy(), relerr_j0_lin=rel.numpy())
    return claims.claim3(_settled({"theory": theory}), cfg)


@claim_case(SLUG, "C4", "not reproduced", trivial="the one-shot variance (only E‖b_{S-1} δ_{S-1}‖², nothing carried)")
def _c4_trivial():
    w = tiny_world()
    out = {}
    for bits, t in w["res"]["theory"].items():
        pred = _one_shot(w["recs"][bits], w["coeffs"][2])[2]
        v = pred.reshape(pred.shape[0], -1).pow(2).sum(1).numpy()
        out[bits] = dict(t, var_independent=v, var_full=v)
    return claims.claim4(_settled({"theory": out}), w["cfg"])


def _tiny(key: str, still: bool = False) -> dict:
    """A study result of the tiny world; with ``still`` its compared metric taken as settled (the end value at both
    horizons), to read the rule behind the metric guard. The tiny models' compared gain moves by 0.2-2 dB between 2/3
    of training and the end (the ring's W4A4 gain moved 2.4 dB between 4,000 and 6,000 updates too), so the guard
    answers first on them."""
    res = tiny_world()[key]
    if not still:
        return res
    return {**res, "metric_curves": {n: dict(c, gain=[c["gain"][1], c["gain"][1]])
                                     for n, c in res["metric_curves"].items()}}


def _tiny_case(cid: str, rule, key: str, trivial: str):
    """Declare rule ``cid``'s trivial case, inconclusive at this scale: ``rule`` on the tiny world's study ``key``
    (:func:`_tiny`, ``still`` as there), the case named ``_<cid>_trivial``."""
    def case(still=False):
        return rule(_tiny(key, still), tiny_world()["cfg"], 0)

    case.__name__ = case.__qualname__ = f"_{cid.lower()}_trivial"
    return claim_case(SLUG, cid, "inconclusive at this scale", trivial=trivial)(case)


_c5_trivial = _tiny_case("C5", claims.claim5, "res",
                         "the one-shot per-step correction (TCEC with its carried term off, λ₁ = 0)")
_c6_trivial = _tiny_case("C6", claims.claim6, "res", "the one-shot per-step correction (λ₁ = 0 for both windows)")
_c7_trivial = _tiny_case("C7", claims.claim7, "res", "the one-shot per-step correction (λ₁ = 0)")
_c9_trivial = _tiny_case("C9", claims.claim9, "res", "the one-shot per-step correction on SVDQuant-lite (λ₁ = 0)")
_c11_trivial = _tiny_case("C11", claims.claim11, "dit", "the one-shot per-step correction on a tiny DiT (λ₁ = 0)")
_c12_trivial = _tiny_case("C12", claims.claim12, "res", "the one-shot per-step correction (λ₁ = 0) against TAC and QNCD")


@claim_case(SLUG, "C10", "inconclusive at this scale", trivial="the one-shot per-step correction on the other samplers "
            "(λ₁ = 0)")
def _c10_trivial(still=False):
    sol = _tiny("sol", still)       # the ε-denoiser's compared metric is the main study's, merged in as the chapter does
    return claims.claim10({**sol, "metric_curves": {**_tiny("res", still)["metric_curves"], **sol["metric_curves"]}},
                          tiny_world()["cfg"], 0)


@claim_case(SLUG, "C8", "not reproduced", trivial="QNCD's run-time estimate every step (one extra network call per "
            "step) timed in place of the calibrated correction")
def _c8_trivial():
    import time
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    w = tiny_world()
    cfg, (ts, a, b), xT = w["cfg"], w["coeffs"], w["xT"]
    q = ex._quantised(cfg, w["fp"], cfg.bits[-1], "rtn", 0)
    base, comp = [], []
    # twelve interleaved repeats, not the tiny world's four: the rule's noise floor is the second-fastest repeat's
    # distance from the fastest, and with four repeats one load burst on two of them read 'noise above effect'
    # (a CI run in session 13, the machine shared with a benchmark)
    with torch.no_grad():
        for _ in range(max(cfg.overhead_repeats, 12)):
            t0 = time.perf_counter()
            P.sample(q, xT, ts, a, b)
            base.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            TC.qncd_sample(q, xT, ts, a, b, S.alphas_bar(cfg.T), 1, 0)
            comp.append(time.perf_counter() - t0)
    return claims.claim8({"overhead": {"base": np.array(base), "tcec": np.array(comp)}}, cfg)


TRIVIAL_CASES = [(_c1_trivial, "not reproduced"), (_c1b_trivial, "not reproduced"), (_c2_trivial, "not reproduced"),
                 (_c2b_trivial, "not reproduced"), (_c3_trivial, "not reproduced"), (_c4_trivial, "not reproduced"),
                 (_c5_trivial, "not reproduced"), (_c6_trivial, "inconclusive at this scale"),
                 (_c7_trivial, "not reproduced"), (_c8_trivial, "not reproduced"),
                 (_c9_trivial, "inconclusive at this scale"), (_c10_trivial, "inconclusive at this scale"),
                 (_c11_trivial, "not reproduced"), (_c12_trivial, "not reproduced")]


@pytest.mark.parametrize("make, expected", TRIVIAL_CASES, ids=[f.__name__ for f, _ in TRIVIAL_CASES])
def test_the_nearest_trivial_method_does_not_pass(make, expected):
    """``expected``: the verdict behind the guards. Where the metric guard answers first on the tiny models (session
    11), the row is inconclusive (not converged), and read with their compared metric taken as settled it is still
    ``expected``."""
    check = make()
    if check.inconclusive == "not converged" and "compared metric" in check.reason:
        check = make(still=True)
    assert check.verdict == expected, check.measured


def test_bootstrap_mean_is_runtime_stats_with_the_old_numbers():
    """Issue 27 §3: the chapter's bootstrap is icmlbook.runtime.stats.unit_bootstrap; the numbers are those of the
    private copy it replaced (written out here: the same draws, the same quantiles), for the same seed."""
    rng = np.random.default_rng(1)
    for t in range(5):
        v = rng.normal(size=int(rng.integers(2, 300))) * rng.uniform(0.01, 10)
        g = np.random.default_rng(t)
        means = v[g.integers(0, len(v), (400, len(v)))].mean(1)
        lo, hi = np.quantile(means, [(1 - 0.95) / 2, (1 + 0.95) / 2])     # as the old copy wrote the level
        assert claims.bootstrap_mean(v, 400, t) == (v.mean(), lo, hi)
    assert all(np.isnan(claims.bootstrap_mean(np.array([1.0, np.nan, 2.0]), 100, 0)))


# -- the convergence guard (CLAIMS.md rule 10; issue 35, session 8) --------------------------------------------------
def test_training_convergence_reads_the_fall_of_the_loss():
    ok = claims.training_convergence(train_curve(True), CFG, "m")
    slow = claims.training_convergence(train_curve(False), CFG, "m")
    assert ok.converged and ok.change < 0.02
    assert not slow.converged and slow.change > 0.1                    # the last third still takes ~15 % of the fall
    flat = {"steps": np.arange(1.0, 101.0), "loss": np.full(100, 0.5)}
    assert not claims.training_convergence(flat, CFG, "m").converged   # a loss that never fell: nothing learned
    rising = {"steps": np.arange(1.0, 101.0), "loss": np.linspace(0.5, 1.0, 100)}
    assert not claims.training_convergence(rising, CFG, "m").converged
    with pytest.raises(ValueError, match="training curves"):
        claims.claim5({k: v for k, v in make_result().items() if k != "train_curves"}, CFG, 0)
    chk = claims.claim5(make_result(), CFG, 0)
    assert "convergence: ε-denoiser: converged" in chk.measured and chk.values["convergence"][0]["converged"]


def _not_converged_case(cid: str, rule, world, flag: str):
    """Declare rule ``cid``'s case on an unconverged world (``world(<flag>=False)``), inconclusive at this scale; the
    case named ``_<cid>_not_converged``."""
    def case():
        return rule(world(**{flag: False}), CFG, 0)

    case.__name__ = case.__qualname__ = f"_{cid.lower()}_not_converged"
    return claim_case(SLUG, cid, "inconclusive at this scale")(case)


_c5_not_converged = _not_converged_case("C5", claims.claim5, make_result, "converged")
_c6_not_converged = _not_converged_case("C6", claims.claim6, make_result, "converged")
_c7_not_converged = _not_converged_case("C7", claims.claim7, make_result, "converged")
_c9_not_converged = _not_converged_case("C9", claims.claim9, make_result, "converged")
_c10_not_converged = _not_converged_case("C10", claims.claim10, make_solver_result, "flow_converged")
_c11_not_converged = _not_converged_case("C11", claims.claim11, make_dit_result, "converged")
_c12_not_converged = _not_converged_case("C12", claims.claim12, make_result, "converged")


def test_not_converged_rows_say_so():
    for chk in (_c5_not_converged(), _c10_not_converged(), _c11_not_converged()):
        assert chk.inconclusive == "not converged" and "NOT converged" in chk.reason


# -- the guard on the compared metric (session 11) --------------------------------------------------------------------
# The loss guard passed the 1,500-update ε-denoiser of the default (its loss moved 0.028 of its fall in the last third)
# while the compared W4A4 TCEC gain moved from -1.23 dB to -2.22 dB when the same seed trained 3,000 updates. The guard
# now also reads the compared metric at two horizons of the same run (2/3 of the updates against the end).
def test_metric_convergence_reads_the_compared_gain_at_two_horizons():
    tol = CFG.min_gain_db / 3
    moved = claims.metric_convergence(metric_curve(-1.23, moved=1.0), CFG, "ε-denoiser")
    still = claims.metric_convergence(metric_curve(0.40, moved=0.02, steps=(2000, 3000)), CFG, "ε-denoiser")
    assert not moved.converged and moved.change == pytest.approx(1.0) and moved.tolerance == pytest.approx(tol)
    assert still.converged and still.change == pytest.approx(0.02)
    assert still.test.extend == pytest.approx(0.5)                        # 2,000 -> 3,000: training 50 % longer
    edge = claims.metric_convergence(metric_curve(0.4, moved=1.01 * tol), CFG, "m")
    assert not edge.converged                                           # just above a third of the margin fails
    assert claims.metric_convergence(metric_curve(0.4, moved=-0.99 * tol), CFG, "m").converged   # either direction
    assert not claims.metric_convergence(metric_curve(float("nan")), CFG, "m").converged
    with pytest.raises(ValueError, match="compared metric at two horizons"):
        claims.claim5({k: v for k, v in make_result().items() if k != "metric_curves"}, CFG, 0)


@claim_case(SLUG, "C5", "inconclusive at this scale")
def _c5_loss_flat_metric_moving():
    """The 1,500-update ε-denoiser's shape: the training loss on its plateau (the loss guard passes) while its
    compared gain still moves by 1 dB between 2/3 of training and the end."""
    res = make_result()
    res["metric_curves"] = {"ε-denoiser": metric_curve(0.5, moved=1.0)}
    return claims.claim5(res, CFG, 0)


@claim_case(SLUG, "C11", "inconclusive at this scale")
def _c11_loss_flat_metric_moving():
    res = make_dit_result()
    res["metric_curves"] = {"DiT": metric_curve(0.4, moved=-0.3)}
    return claims.claim11(res, CFG, 0)


def test_the_metric_guard_catches_what_the_loss_guard_passes():
    for chk in (_c5_loss_flat_metric_moving(), _c11_loss_flat_metric_moving()):
        assert chk.inconclusive == "not converged" and "compared metric" in chk.reason and "NOT converged" in chk.reason
        conv = chk.values["convergence"]
        assert conv[0]["converged"] and not conv[1]["converged"]       # the loss passes, the compared metric fails
    assert claims.claim5(make_result(), CFG, 0).passed is True           # the same rows with the metric still: decided


def test_compared_gain_is_the_rows_metric_on_a_real_tiny_model():
    """The guard's lean recomputation of the gain equals the study cell's gain on the same final weights (the same
    fits, λ₁ search and evaluation run), and the study records both horizons of the real run."""
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    w = tiny_world()
    cfg = w["cfg"]
    main, bits = cfg.steps[-1], cfg.bits[-1]
    cell = w["res"]["cells"][cell_key(bits, main, "rtn")]
    xT, xc = ex._noise(cfg, cfg.n_eval, 1000), ex._noise(cfg, cfg.n_cal, 2000)
    g = ex.compared_gain(cfg, w["fp"], bits, main, xT, xc, 0)
    np.testing.assert_allclose(g, claims.gain(cell), rtol=0, atol=1e-9)
    mc = w["res"]["metric_curves"]["ε-denoiser"]
    assert mc["steps"] == [float(ex.snapshot_step(cfg.train_steps)), float(cfg.train_steps)] and mc["bits"] == bits
    assert mc["gain"][1] == pytest.approx(float(np.mean(claims.gain(cell))))
    assert set(w["sol"]["metric_curves"]) == {"flow model"} and set(w["dit"]["metric_curves"]) == {"DiT"}


def test_the_snapshot_is_the_same_run_after_fewer_updates():
    """The early weights are those of the same run (not a second run): training to the snapshot step alone, with its
    own schedule, gives other weights, and the final weights do not depend on whether a snapshot was kept."""
    ab = S.alphas_bar(100)
    a = M.train_denoiser("ring", 16, 30, 64, 2e-3, ab, 0, show_progress=False, snapshot_at=20)
    b = M.train_denoiser("ring", 16, 30, 64, 2e-3, ab, 0, show_progress=False)
    assert a["early_step"] == 20 and "early_state" not in b
    for k in b["state"]:
        assert torch.equal(a["state"][k], b["state"][k])
    assert any(not torch.equal(a["early_state"][k], a["state"][k]) for k in a["state"])
    with pytest.raises(ValueError, match="snapshot_at"):
        M.train_denoiser("ring", 16, 30, 64, 2e-3, ab, 0, show_progress=False, snapshot_at=30)


# -- C2q: the per-step propagation equation on the quantised trajectory (session 8) -----------------------------------
@claim_case(SLUG, "C2q", "reproduced")
def _c2q_ok():
    return claims.claim2q(make_result(), CFG)


@claim_case(SLUG, "C2q", "not reproduced", alternative="the recursion fed the δ's of the FP trajectory (the smoke run's "
            "W4A4 numbers: cosine 0.74 ± 0.37, relative error 1.2 ± 1.0)")
def _c2q_alt():
    g = np.random.default_rng(3)
    th = _theory()
    th["cos_lin_q"], th["relerr_lin_q"] = np.clip(g.normal(0.74, 0.37, 64), -1, 1), np.abs(g.normal(1.2, 1.0, 64))
    return claims.claim2q(make_result(theory=th), CFG)


def _lin_q_with(delta_of) -> dict:
    """The tiny world's theory with C2q's recursion fed ``delta_of(rec)`` in place of the quantised trajectory's δ's
    (J by JVPs at the FP states, as the study does), against the simulated final error of the same seeds."""
    w = tiny_world()
    ts, a, b = w["coeffs"]
    out = {}
    for bits, t in w["res"]["theory"].items():
        rec = w["recs"][bits]
        with torch.enable_grad():
            pred = P.linearised_error(w["fp"], rec.x_fp, delta_of(rec), ts, a, b)[-1]
        e = rec.error[-1]
        rel = (pred - e).reshape(e.shape[0], -1).norm(dim=1) / e.reshape(e.shape[0], -1).norm(dim=1).clamp_min(1e-30)
        out[bits] = dict(t, cos_lin_q=P.cosine(pred, e).numpy(), relerr_lin_q=rel.numpy())
    return {"theory": out}


@claim_case(SLUG, "C2q", "not reproduced", trivial="independent per-step errors of the same size (each seed's recursion "
            "fed another seed's δ's: the i.i.d. error model)")
def _c2q_trivial_iid():
    return claims.claim2q(_settled(_lin_q_with(lambda rec: rec.delta("quantised").roll(1, dims=1))), tiny_world()["cfg"])


@claim_case(SLUG, "C2q", "not reproduced", trivial="no propagation: the last step's injected error b_{S-1} δ_{S-1} alone")
def _c2q_trivial_one_shot():
    w = tiny_world()
    out = {}
    for bits, t in w["res"]["theory"].items():
        cos, rel, _ = _one_shot(w["recs"][bits], w["coeffs"][2])
        out[bits] = dict(t, cos_lin_q=cos, relerr_lin_q=rel)
    return claims.claim2q(_settled({"theory": out}), w["cfg"])


def test_c2q_on_the_tiny_world_and_its_inputs():
    """The real recursion on the tiny world passes (what the row claims holds at any size with J kept), and a study
    without the quantised-trajectory recursion is refused."""
    w = tiny_world()
    assert claims.claim2q(w["res"], w["cfg"]).passed is True
    with pytest.raises(ValueError, match="cos_lin_q"):
        claims.claim2q({"theory": {"W4A4": {"cos": np.ones(4)}}}, CFG)


def _timed(overhead: float, noise: float) -> dict:
    """Ten interleaved repeats: the fastest of each sampler 1.0 and 1 + overhead, the second-fastest ``noise`` above."""
    base = np.r_[1.0, 1.0 + noise, np.full(8, 1.2)]
    return {"overhead": {"base": base, "tcec": base * (1 + overhead)}}


@claim_case(SLUG, "C8", "inconclusive at this scale")
def _c8_within_noise_below():
    return claims.claim8(make_result() | _timed(0.009, 0.005), CFG)


def test_c8_guard_is_symmetric():
    assert claims.claim8(make_result() | _timed(0.003, 0.004), CFG).passed is True       # 0.7 % with the noise
    assert claims.claim8(make_result() | _timed(0.009, 0.005), CFG).inconclusive == "noise above effect"
    assert claims.claim8(make_result() | _timed(0.012, 0.005), CFG).inconclusive == "noise above effect"
    assert claims.claim8(make_result() | _timed(0.02, 0.005), CFG).passed is False


@claim_case(SLUG, "C8", "inconclusive at this scale", alternative="the default run of e2eb8da: TCEC's fastest repeat "
            "5.81 % below the base's (1752.5 -> 1650.7 ms, six repeats each) with timing noise 5.62 %, read "
            "'reproduced' before session 14 (the negative overhead offset the noise)")
def _c8_negative_overhead_in_noise():
    base = np.r_[1.7525, 1.7525 * 1.0562, 1.90, 1.95, 2.00, 2.10]
    tcec = np.r_[1.6507, 1.6507 * 1.03, 1.80, 1.85, 1.90, 2.00]
    return claims.claim8(make_result() | {"overhead": {"base": base, "tcec": tcec}}, CFG)


def test_c8_passes_only_when_the_noise_itself_is_below_the_threshold():
    """Session 14 (a review of the recent rules): the session-8 rewrite (overhead plus noise below 1 %) dropped the
    session-5 condition that the noise itself be below 1 %, so a negative overhead offset any noise. The default record
    of e2eb8da read -5.81 % with 5.62 % noise 'reproduced'; a clean timing below the bar still passes."""
    c = _c8_negative_overhead_in_noise()
    assert c.values["overhead"] == pytest.approx(-0.0581, abs=1e-4)
    assert c.values["gap"] == pytest.approx(0.0562, abs=1e-4)
    assert c.values["overhead"] + c.values["gap"] < CFG.overhead_max <= c.values["gap"]       # the old pass
    assert c.passed is None and c.inconclusive == "noise above effect"
    assert claims.claim8(make_result() | _timed(-0.003, 0.004), CFG).passed is True           # quiet timings pass
    assert claims.claim8(make_result() | _timed(-0.02, 0.012), CFG).passed is None            # noisy ones do not


def test_c8_reads_a_negative_overhead_beyond_the_gap_as_noise():
    """Session 15 (a review): the sampler with the correction does strictly more work, so a negative overhead
    beyond the repeat-to-repeat gap is drift between the samplers; -2 % with a 0.4 % gap passed before."""
    c = claims.claim8(make_result() | _timed(-0.02, 0.004), CFG)
    assert c.passed is None and c.inconclusive == "noise above effect"
    assert c.values["noise"] == pytest.approx(0.02, rel=1e-6) and c.values["gap"] == pytest.approx(0.004, rel=1e-6)
    assert "the negative overhead itself" in c.measured
    assert claims.claim8(make_result() | _timed(-0.008, 0.004), CFG).passed is True           # -0.8 %: 0.8 % noise, below 1 %
    assert claims.claim8(make_result() | _timed(-0.011, 0.004), CFG).passed is None           # -1.1 %: noise above 1 %
    assert claims.claim8(make_result() | _timed(0.02, 0.004), CFG).passed is False            # a positive one still fails


# -- the theory rows' guard at two horizons (issue 35, session 12) -----------------------------------------------------
def _theory_q(cos=0.995, rel=0.11):
    """C2q's statistics (the recursion fed the quantised trajectory's δ's) at the smoke spread, or moved."""
    g = np.random.default_rng(3)
    return dict(_theory(), cos_lin_q=np.clip(g.normal(cos, 0.005, 64), -1, 1), relerr_lin_q=np.abs(g.normal(rel, 0.06, 64)))


#: per theory row: the rule on a result, a result it reproduces, one it does not (the alternative world of its cases)
HORIZON_ROWS = {
    "C1": (lambda r: claims.claim1(r, CFG), lambda: make_result(curve=np.sqrt(np.linspace(0, 1, 51))),
           lambda: make_result(curve=np.sin(np.linspace(0, np.pi, 51)))),
    "C1b": (lambda r: claims.claim1b(r, CFG, 0), lambda: make_result(psnr_drop=-1.0), lambda: make_result(psnr_drop=1.0)),
    "C2": (lambda r: claims.claim2(r, CFG), make_result, lambda: make_result(theory=_theory(cos=0.93, rel=30.0))),
    "C2q": (lambda r: claims.claim2q(r, CFG), lambda: make_result(theory=_theory_q()),
            lambda: make_result(theory=_theory_q(cos=0.7, rel=0.9))),
    "C2b": (lambda r: claims.claim2b(r, CFG), lambda: make_solver_result(cos=0.95, rel=0.2),
            lambda: make_solver_result(cos=0.96, rel=0.15, rel_one_step=0.15)),
    "C3": (lambda r: claims.claim3(r, CFG), make_result, lambda: make_result(theory=_theory(jac=0.5))),
    "C4": (lambda r: claims.claim4(r, CFG), make_result, lambda: make_result(theory=_theory(var=0.01))),
}


def _horizons(end: dict, early: dict) -> dict:
    """``end`` with ``early``'s statistics as those of the weights after 2/3 of the updates (1,000 of 1,500)."""
    if "closed" in end:
        return {**end, "early": {"closed": early["closed"], "steps": {k: [1000.0, 1500.0] for k in early["closed"]}}}
    return {**end, "early": {"steps": [1000.0, 1500.0], "cells": early["cells"], "theory": early["theory"]}}


@pytest.mark.parametrize("rid", list(HORIZON_ROWS))
def test_theory_row_whose_decision_flips_between_horizons_is_inconclusive(rid):
    rule, ok, alt = HORIZON_ROWS[rid]
    assert rule(ok()).passed is True and rule(alt()).passed is False          # the two worlds, each settled
    for end, early, word in ((ok, alt, "not reproduced after 1000"), (alt, ok, "reproduced after 1000")):
        c = rule(_horizons(end(), early()))
        assert c.verdict == "inconclusive at this scale" and c.inconclusive == "not converged", c.measured
        assert "decision differs" in c.reason and word in c.reason
        assert "at two horizons (1000 → 1500 updates)" in c.measured and c.values["horizons"]["parts"]


@pytest.mark.parametrize("rid", list(HORIZON_ROWS))
def test_theory_row_stable_across_horizons_keeps_its_verdict(rid):
    rule, ok, alt = HORIZON_ROWS[rid]
    for make, verdict in ((ok, "reproduced"), (alt, "not reproduced")):
        c = rule(_horizons(make(), make()))            # fresh, equal statistics at both horizons
        assert c.verdict == verdict, c.measured
        assert "at two horizons (1000 → 1500 updates)" in c.measured
        assert all(p["change"] == 0 for p in c.values["horizons"]["parts"])


@pytest.mark.parametrize("rid", list(HORIZON_ROWS))
def test_theory_row_without_the_early_statistics_is_refused(rid):
    rule, ok, _ = HORIZON_ROWS[rid]
    r = ok()
    r.pop("early")
    with pytest.raises(ValueError, match=rf"rule {rid} .*statistics at the earlier horizon \('early'"):
        rule(r)


def test_theory_guard_reads_the_move_against_the_distance_from_the_threshold():
    rule, _, _ = HORIZON_ROWS["C4"]
    # both horizons pass (ratio 1.12 -> 1.1): |log| moves 0.018, a third of the end's distance to log 1.5 is 0.10
    c = rule(_horizons(make_result(theory=_theory(var=1.1)), make_result(theory=_theory(var=1.12))))
    assert c.passed is True and c.values["horizons"]["parts"][0]["converged"]
    # both pass, but the ratio moved 1.4 -> 1.1 (0.24 > 0.10): a pass still on the move is not kept
    c = rule(_horizons(make_result(theory=_theory(var=1.1)), make_result(theory=_theory(var=1.4))))
    assert c.inconclusive == "not converged" and "moved by a third" in c.reason and "W4A4 |log(measured" in c.reason
    rule2 = HORIZON_ROWS["C2"][0]
    # C2 fails on the relative error at both horizons: 28 -> 30 holds (2 < 29.5 / 3), 5 -> 30 does not
    held = rule2(_horizons(make_result(theory=_theory(cos=0.93, rel=30.0)), make_result(theory=_theory(cos=0.93, rel=28.0))))
    assert held.passed is False
    moved = rule2(_horizons(make_result(theory=_theory(cos=0.93, rel=30.0)), make_result(theory=_theory(cos=0.93, rel=5.0))))
    assert moved.inconclusive == "not converged"
    # a fail that rests on one statistic that holds is kept even where a passing statistic moved
    c = rule2(_horizons(make_result(theory=_theory(cos=0.95, rel=30.0)), make_result(theory=_theory(cos=0.99, rel=29.0))))
    assert c.passed is False
    tab = claims.horizon_table({"C2": c, "C4": claims.claim2b(make_solver_result() | {"closed": {}}, CFG)})
    assert "| C2 | W4A4 relative error upper bound | 29 | 30 |" in tab and "not decided" in tab
    assert "| C2 | W4A4 cosine lower bound | 0.99 | 0.95 | 0.04 | 0.0167 | no | passes |" in tab
    c4 = claims.horizon_table({"C4": rule(_horizons(make_result(theory=_theory(var=1.1)), make_result()))})
    assert all(line.replace("\\|", "").count("|") == 9 for line in c4.splitlines())     # C4's |log| escaped


def test_early_theory_on_the_final_weights_is_the_studys_own_theory():
    """The early horizon is computed by the study's own code on the same seeds, quantiser and inputs: given the final
    weights as its snapshot it returns the study's statistics exactly (and on the real snapshot, other numbers)."""
    from icmlbook.papers.diffusion_ptq_compensation import experiments as ex
    w = tiny_world()
    cfg, res = w["cfg"], w["res"]
    same = ex.early_theory(cfg, {**w["tr"], "early_state": w["tr"]["state"]}, w["xT"], 0)
    for bits, t in res["theory"].items():
        for k in ("cos", "relerr", "cos_lin_q", "relerr_lin_q", "jac_jvp", "var_measured", "cos_j0_lin"):
            np.testing.assert_array_equal(same["theory"][bits][k], t[k])
        for st in cfg.steps:
            key = cell_key(bits, st, "rtn")
            np.testing.assert_allclose(same["cells"][key]["psnr"]["base"], res["cells"][key]["psnr"]["base"], rtol=1e-6)
        key = cell_key(bits, cfg.steps[-1], "rtn")
        np.testing.assert_allclose(same["cells"][key]["err_curve"], res["cells"][key]["err_curve"], rtol=1e-6)
    assert res["early"]["steps"] == [float(w["tr"]["early_step"]), float(cfg.train_steps)]
    assert not np.array_equal(res["early"]["theory"][cfg.bits[-1]]["cos"], res["theory"][cfg.bits[-1]]["cos"])
    sol = w["sol"]
    assert set(sol["early"]["closed"]) == set(sol["closed"]) and all(
        len(v) == 2 for v in sol["early"]["steps"].values())
