"""Tests of the hh_mea_inference chapter: the simulator against scipy, cable theory and NEURON; the recording
physics against the dipole formula; feature gradients against finite differences; SBC on a conjugate toy;
the stimulation pieces; bad inputs; and each claim rule both ways."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

jax = pytest.importorskip("jax")
pytest.importorskip("jaxley")

import jax.numpy as jnp  # noqa: E402

from icmlbook.papers.hh_mea_inference import biophys, claims, config_for, features, inference, recording, stimulation as st  # noqa: E402
from icmlbook.papers.hh_mea_inference.model import BoxPrior, ForwardModel, triphasic_waveform  # noqa: E402
from icmlbook.runtime.claims import claim_case  # noqa: E402

SMALL = biophys.CellLayout(n_ais=2, n_axon=10, record_frac=0.6)


@functools.lru_cache(maxsize=None)
def small_model(source="point"):
    return ForwardModel(("x", "y", "height", "angle", "gna"), 19, SMALL, dt=0.005, rec_t_max=1.1, stim_t_max=0.6,
                        source=source, chunk=4)


@functools.lru_cache(maxsize=None)
def jitted(name):
    return jax.jit(getattr(small_model(), name))


# -- the simulator ---------------------------------------------------------------------------------------
def test_single_compartment_matches_solve_ivp():
    """One RGC compartment under a current step: Jaxley (1 µs steps) against a stiff scipy integration."""
    from scipy.integrate import solve_ivp

    import jaxley as jx

    comp = jx.Compartment()
    comp.insert(biophys.RGCChannel("RGC"))
    comp.set("v", biophys.V_REST)
    comp.set("length", 20.0)
    comp.set("radius", 5.0)
    comp.record("v", verbose=False)
    area = 2 * np.pi * 5.0 * 20.0 * 1e-8          # cm²
    i_na = 0.3                                      # nA
    t = np.arange(3001) * 0.001
    stim = np.where((t >= 0.5) & (t < 1.5), i_na, 0.0)
    v_jx = np.asarray(jax.jit(lambda s_: jx.integrate(comp, delta_t=0.001, t_max=2.9995, data_stimuli=comp.data_stimulate(s_)))(
        jnp.asarray(stim[:-1])))[0]
    gna, gk, gl = 0.1, 0.05, biophys.G_LEAK
    el = float(biophys.leak_reversal(gna, gk, gl, np_=np))

    def rhs(tt, y):
        v, m, h, n = y
        am, bm, ah, bh, an, bn = biophys.rgc_rates(v, np)
        i_ion = gna * m ** 3 * h * (v - biophys.E_NA) + gk * n ** 4 * (v - biophys.E_K) + gl * (v - el)   # mA/cm²
        i_inj = (i_na if 0.5 <= tt < 1.5 else 0.0) * 1e-6 / area                                     # mA/cm²
        return [1e3 * (-i_ion + i_inj), am * (1 - m) - bm * m, ah * (1 - h) - bh * h, an * (1 - n) - bn * n]

    y0 = [biophys.V_REST, *[float(g) for g in biophys.steady_gates(np.float64(biophys.V_REST), np)]]
    ref = solve_ivp(rhs, (0, 3.0), y0, method="LSODA", t_eval=t, rtol=1e-9, atol=1e-9, max_step=0.0005)
    assert v_jx.max() > 0 and ref.y[0].max() > 0, "the step must evoke a spike"
    ts_jx = biophys.spike_times(v_jx[None], t)[0]
    ts_ref = biophys.spike_times(ref.y[:1], t)[0]
    assert abs(ts_jx - ts_ref) < 0.01                                 # ms
    assert np.sqrt(np.mean((v_jx - ref.y[0]) ** 2)) < 2.0              # mV over the whole trace


def test_passive_cable_length_constant():
    """Steady state of a sealed passive cable under a constant end current: V(x) ∝ cosh((L - x)/λ)."""
    import jaxley as jx

    n, ln, a, ra, gl = 40, 20.0, 1.0, 100.0, biophys.G_LEAK
    cell = jx.Cell(jx.Branch(jx.Compartment(), ncomp=n), parents=[-1])
    cell.insert(biophys.RGCChannel("RGC"))
    cell.set("RGC_gNa", 0.0)
    cell.set("RGC_gK", 0.0)
    cell.set("length", ln)
    cell.set("radius", a)
    cell.set("axial_resistivity", ra)
    cell.set("v", biophys.V_REST)
    cell.record("v", verbose=False)
    dt, steps = 0.5, 120             # backward Euler's steady state is exact whatever the step: 60 ms = 30 τ
    stim = jnp.zeros((n, steps)).at[0].set(0.01)
    v = np.asarray(jax.jit(lambda s_: jx.integrate(cell, delta_t=dt, t_max=(steps - 0.5) * dt,
                                                   data_stimuli=cell.branch(0).data_stimulate(s_)))(stim))[:, -1] - biophys.V_REST
    lam = biophys.passive_length_constant(a, ra, gl)
    x = (np.arange(n) + 0.5) * ln
    L = n * ln
    shape = np.cosh((L - x) / lam)
    fit = shape * (v @ shape) / (shape @ shape)
    assert np.max(np.abs(v - fit)) / v.max() < 0.01
    assert abs(np.log(v[5] / v[30]) - np.log(shape[5] / shape[30])) < 0.01


def test_jaxley_matches_neuron_on_an_hh_cable():
    """Jaxley's HH against NEURON's built-in hh on the same straight cable: spike times within one step and
    conduction velocity within 2 %."""
    neuron = pytest.importorskip("neuron")
    import jaxley as jx
    from jaxley.channels import HH

    h = neuron.h
    h.load_file("stdrun.hoc")
    n, L, diam, ra, dt, tmax = 40, 600.0, 2.0, 100.0, 0.01, 5.0
    sec = h.Section(name="axon")
    sec.L, sec.diam, sec.Ra, sec.nseg, sec.cm = L, diam, ra, n, 1.0
    sec.insert("hh")
    h.celsius = 6.3
    stim = h.IClamp(sec((0.5) / n))
    stim.delay, stim.dur, stim.amp = 1.0, 0.5, 1.0
    rec = {i: h.Vector().record(sec((i + 0.5) / n)._ref_v) for i in (8, 32)}
    tv = h.Vector().record(h._ref_t)
    h.dt = dt
    h.steps_per_ms = 1 / dt
    h.finitialize(-65.0)
    h.continuerun(tmax)
    t_nrn = np.array(tv)
    ts_nrn = {i: biophys.spike_times(np.array(r)[None], t_nrn)[0] for i, r in rec.items()}

    cell = jx.Cell(jx.Branch(jx.Compartment(), ncomp=n), parents=[-1])
    cell.insert(HH())
    cell.set("length", L / n)
    cell.set("radius", diam / 2)
    cell.set("axial_resistivity", ra)
    cell.set("v", -65.0)
    cell.init_states()
    cell.record("v", verbose=False)
    steps = int(round(tmax / dt))
    t = np.arange(steps + 1) * dt
    cur = np.where((t[:-1] >= 1.0) & (t[:-1] < 1.5), 1.0, 0.0)
    s = jnp.zeros((n, steps)).at[0].set(jnp.asarray(cur))
    v = np.asarray(jax.jit(lambda s_: jx.integrate(cell, delta_t=dt, t_max=(steps - 0.5) * dt,
                                                   data_stimuli=cell.branch(0).data_stimulate(s_)))(s))
    ts_jx = {i: biophys.spike_times(v[i:i + 1], t)[0] for i in (8, 32)}
    for i in (8, 32):
        assert abs(ts_jx[i] - ts_nrn[i]) <= dt + 1e-9, (i, ts_jx[i], ts_nrn[i])
    vel = lambda ts: 24 * L / n / (ts[32] - ts[8])
    assert abs(vel(ts_jx) / vel(ts_nrn) - 1) < 0.02


def test_membrane_currents_balance_ionic_plus_capacitive():
    """Current balance from voltages equals ionic + capacitive currents computed from the recorded states,
    and the membrane currents of the whole cell sum to the injected current."""
    m = small_model()
    theta = jnp.asarray(m.prior.mean)
    im, v = jitted("currents")(theta)
    im, v = np.asarray(im), np.asarray(v)
    p = m.full(np.asarray(theta))
    cp = {k: np.asarray(val) for k, val in m.comp_params(p).items()}
    cell = m.rec.cell
    cell.delete_recordings()
    for st_name in ("RGC_m", "RGC_h", "RGC_n"):
        cell.record(st_name, verbose=False)
    ps = None
    ps = cell.data_set("radius", jnp.asarray(cp["radius"]), ps)
    ps = cell.data_set("RGC_gNa", jnp.asarray(cp["gna"]), ps)
    ps = cell.data_set("RGC_gK", jnp.asarray(cp["gk"]), ps)
    ps = cell.data_set("axial_resistivity", jnp.full(m.layout.n_comp, cp["ra"]), ps)
    import jaxley as jx

    gates = np.asarray(jax.jit(lambda: jx.integrate(cell, param_state=ps, data_stimuli=cell.branch(0).data_stimulate(
        m.rec_stimulus()), delta_t=m.dt, t_max=(m.rec.n_steps - 0.5) * m.dt))())
    cell.delete_recordings()
    cell.record("v", verbose=False)
    nc = m.layout.n_comp
    gm, gh, gn = gates[:nc], gates[nc:2 * nc], gates[2 * nc:]
    area = 2 * np.pi * cp["radius"] * m.layout.lengths * 1e-8      # cm²
    el = np.asarray(biophys.leak_reversal(cp["gna"], cp["gk"], biophys.G_LEAK, np_=np))
    i_ion = (cp["gna"][:, None] * gm ** 3 * gh * (v - biophys.E_NA) + cp["gk"][:, None] * gn ** 4 * (v - biophys.E_K)
             + biophys.G_LEAK * (v - el[:, None]))
    i_cap = np.zeros_like(v)
    i_cap[:, 1:] = 1e-3 * np.diff(v, axis=1) / m.dt                   # 1 µF/cm² × 1 mV/ms = 1 µA/cm² = 1e-3 mA/cm²
    total = (i_ion + i_cap) * area[:, None] * 1e6                      # nA
    win = slice(m.pulse_steps + 2, None)
    scale = np.abs(im[:, win]).max()
    assert np.abs(total[:, win] - im[:, win]).max() / scale < 0.05
    assert np.corrcoef(total[:, win].ravel(), im[:, win].ravel())[0, 1] > 0.995
    assert np.abs(im[:, win].sum(0)).max() < 1e-9 * scale              # nothing injected after the pulse
    assert abs(im[:, 2].sum() - m.pulse_na) < 1e-9                     # during the pulse: the injected current


# -- recording -------------------------------------------------------------------------------------------
def test_hex_array_counts_and_pitch():
    for n in (19, 61, 512):
        e = recording.hex_array(n)
        assert e.shape == (n, 2)
        d = np.linalg.norm(e[:, None] - e[None], axis=-1) + np.eye(n) * 1e9
        assert np.allclose(d.min(1), 30.0)
    with pytest.raises(ValueError, match="n_electrodes"):
        recording.hex_array(3)


def test_far_field_is_the_dipole_and_line_source_converges_to_point():
    m = small_model()
    im, _ = jitted("currents")(jnp.asarray(m.prior.mean))
    im = np.asarray(im)
    k = m.pulse_steps + 40                      # a time after the pulse: currents sum to zero
    cur = im[:, k]
    pos = np.asarray(m.centres(m.full(m.prior.mean)))
    far = np.array([[3000.0, 500.0, 200.0], [-2500.0, 1500.0, 100.0], [400.0, -3500.0, 50.0]])
    direct = 10 * recording.RHO_E / (4 * np.pi) * (cur[None] / np.linalg.norm(far[:, None] - pos[None], axis=-1)).sum(1)
    dip = recording.dipole_potential(far, cur, pos)
    assert np.allclose(direct, dip, rtol=0.05)
    starts, ends = pos - np.array([5.0, 0, 0]), pos + np.array([5.0, 0, 0])
    el = np.array([[1000.0, 700.0]])
    P = np.asarray(recording.point_source_matrix(el, jnp.asarray(pos)))
    Lm = np.asarray(recording.line_source_matrix(el, jnp.asarray(starts), jnp.asarray(ends)))
    assert np.allclose(P, Lm, rtol=1e-4)


def test_ei_noise_shrinks_as_one_over_sqrt_n():
    rng = np.random.default_rng(0)
    clean = np.zeros((4, 19, 30))
    for n in (10, 1000):
        e = inference.noisy(clean, n, 10.0, rng)
        assert abs(e.std() / (10 / np.sqrt(n)) - 1) < 0.05
    with pytest.raises(ValueError, match="n_spikes"):
        recording.ei_noise_sigma(0, 10.0)


# -- features --------------------------------------------------------------------------------------------
def test_feature_gradients_match_finite_differences():
    """Gradients of the features w.r.t. the EI, and of the refinement loss w.r.t. θ through the simulator (the
    very function refinement uses), against central finite differences."""
    m = small_model()
    ei = np.asarray(jitted("ei")(jnp.asarray(m.prior.mean)))
    rng = np.random.default_rng(1)
    direction = rng.standard_normal(ei.shape)
    w = rng.standard_normal((19, 6))
    f = jax.jit(lambda e: jnp.sum(features.ei_features(e) * w))
    g = np.asarray(jax.jit(jax.grad(lambda e: jnp.sum(features.ei_features(e) * w)))(jnp.asarray(ei)))
    eps = 1e-4
    fd = (f(jnp.asarray(ei + eps * direction)) - f(jnp.asarray(ei - eps * direction))) / (2 * eps)
    assert abs(float(fd) - float((g * direction).sum())) < 1e-5 * max(1.0, abs(float(fd)))
    # through the simulator
    vg = inference.value_and_grad_fn(_loss())
    f_obs = jnp.asarray(np.repeat(_f_obs(), 2, 0))
    z0 = np.asarray(jax.vmap(m.prior.to_unbounded)(jnp.asarray(_start())))
    val, grad = vg(jnp.asarray(z0), f_obs)
    d = rng.standard_normal(z0.shape)
    h = 1e-5
    vp, _ = vg(jnp.asarray(z0 + h * d), f_obs)
    vm, _ = vg(jnp.asarray(z0 - h * d), f_obs)
    fd = (np.asarray(vp) - np.asarray(vm)) / (2 * h)
    an = (np.asarray(grad) * d).sum(1)
    assert np.allclose(fd, an, rtol=1e-3, atol=1e-6), (fd, an)


@functools.lru_cache(maxsize=None)
def _loss():
    return inference.FeatureLoss(small_model(), np.ones(19 * 6 + 4), 0.5)


def _f_obs():
    m = small_model()
    return np.asarray(features.feature_vector(jitted("ei")(jnp.asarray(m.prior.mean)), m.electrodes))[None]


def _start():
    th = np.array(small_model().prior.mean)
    return np.stack([th + np.array([8.0, -6.0, 3.0, 10.0, 0.01]), th + np.array([-5.0, 4.0, -2.0, -8.0, -0.01])])


def test_feature_values_on_a_known_waveform():
    t = np.arange(30) * 0.05
    wave = -50 * np.exp(-((t - 0.5) / 0.05) ** 2) + 10 * np.exp(-((t - 0.3) / 0.05) ** 2) + 20 * np.exp(-((t - 0.9) / 0.1) ** 2)
    ei = np.tile(wave, (3, 1)) * np.array([[1.0], [0.5], [0.25]])
    f = np.asarray(features.ei_features(jnp.asarray(ei)))
    assert abs(np.sinh(f[0, 0]) - 50) < 2.5 and abs(np.sinh(f[0, 2]) - 20) < 2.5 and abs(np.sinh(f[0, 1]) - 10) < 2.5
    assert abs(f[0, 3] * 0.1 - 0.4) < 0.03 and abs(f[0, 4] * 0.1 - 0.2) < 0.03
    assert np.allclose(f[:, 5], 0, atol=1e-6)          # same timing on every electrode: no delay


def test_features_figure_labels_carry_the_values_their_lines_are_drawn_at():
    """Session 12 (the reader walk): the legend said 'soft Na trough 28.5 µV' beside a line drawn at -28.5. Each soft
    line's label now states the signed value the line sits at, and the caption's numbers are the figure's."""
    from icmlbook.papers.hh_mea_inference import plots

    t = np.arange(30) * 0.05
    wave = -50 * np.exp(-((t - 0.5) / 0.05) ** 2) + 10 * np.exp(-((t - 0.3) / 0.05) ** 2) + 20 * np.exp(-((t - 0.9) / 0.1) ** 2)
    ei = np.tile(wave, (3, 1)) * np.array([[0.5], [1.0], [0.25]])
    m = plots.feature_marks(ei)
    assert m["electrode"] == 1 and m["trough"] < 0 and abs(m["trough"] - m["trough_hard"]) < 2.5
    assert abs(m["cap"] - m["cap_hard"]) < 2.5 and abs(m["k"] - m["k_hard"]) < 2.5
    fig = plots.features_figure(ei)
    soft = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("soft")]
    assert len(soft) == 3
    for ln, v in zip(soft, (m["trough"], m["cap"], m["k"])):
        y = float(np.asarray(ln.get_ydata())[0])
        assert abs(y - v) < 1e-9 and f"{y:.1f} µV" in ln.get_label()


def test_global_features_grow_with_height_and_match_their_definition():
    m = small_model()
    el = m.electrodes
    ei_fn = jitted("ei")
    g = []
    for h in (12.0, 28.0):
        th = np.array(m.prior.mean)
        th[2] = h
        e = np.asarray(ei_fn(jnp.asarray(th)))
        f = np.asarray(features.ei_features(jnp.asarray(e)))
        gf = np.asarray(features.global_features(jnp.asarray(f), el))
        a = np.sinh(f[:, 0])
        w = a ** 2
        c = (w[:, None] * el).sum(0) / w.sum()
        assert np.isclose(gf[0], np.sqrt((w * ((el - c) ** 2).sum(1)).sum() / w.sum()) / 30)
        top = np.sort(a)[::-1]
        assert np.isclose(gf[1], np.log(top[0] / top[1])) and np.isclose(gf[3], np.log(top[0]))
        g.append(gf)
    assert g[1][0] > g[0][0] and g[1][3] < g[0][3]        # a higher cell: wider, weaker footprint


def test_bad_images_are_refused():
    m = small_model()
    with pytest.raises(ValueError, match="electrodes"):
        features.check_ei(np.zeros((18, 30)), 19)
    bad = np.zeros((19, 30))
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        m.features_of(bad)


# -- inference checks ------------------------------------------------------------------------------------
def test_sbc_on_a_conjugate_gaussian_toy():
    """θ ~ N(0, 1), x ~ N(θ, 0.5²): the exact posterior passes SBC and coverage; an over-confident one fails."""
    rng = np.random.default_rng(0)
    n, L = 400, 200
    theta = rng.standard_normal((n, 1))
    x = theta + 0.5 * rng.standard_normal((n, 1))
    post_var = 1 / (1 + 4)
    post_mean = x * 4 * post_var
    exact = post_mean[:, None] + np.sqrt(post_var) * rng.standard_normal((n, L, 1))
    over = post_mean[:, None] + 0.4 * np.sqrt(post_var) * rng.standard_normal((n, L, 1))
    assert inference.rank_uniformity_p(inference.sbc_ranks(exact, theta), L)[0] > 0.01
    assert abs(inference.coverage(exact, theta)[0] - 0.9) < 0.05
    assert inference.rank_uniformity_p(inference.sbc_ranks(over, theta), L)[0] < 1e-4
    assert inference.coverage(over, theta)[0] < 0.6


def test_refinement_lowers_the_loss_of_a_perturbed_start():
    m = small_model()
    th_true = np.array(m.prior.mean)
    start = _start()
    theta, l0, l1, trace = inference.refine(_loss(), start, np.repeat(_f_obs(), 2, 0), steps=12, lr=0.05)
    assert np.all(l1 < 0.5 * l0)
    assert np.all(np.linalg.norm((theta - th_true)[:, :2], axis=1) < np.linalg.norm((start - th_true)[:, :2], axis=1))


# -- stimulation -----------------------------------------------------------------------------------------
def test_triphasic_pulse_and_its_bad_forms():
    w = triphasic_waveform(0.005, 0.05, 100)
    assert abs(w.sum()) < 1e-12 and w.min() == -1.0 and np.isclose(w.max(), 2 / 3)
    with pytest.raises(ValueError, match="charge balanced"):
        triphasic_waveform(0.005, 0.05, 100, ratios=(1.0, -1.0, 0.5))
    with pytest.raises(ValueError, match="5 µs"):
        triphasic_waveform(0.01, 0.05, 100)


def test_activating_function_sums_to_zero_and_thresholds_converge_in_dt():
    m = small_model()
    th = np.array(m.prior.mean)
    w = m.pattern_from([0, 1], [1.0, -0.5])
    inj = np.asarray(jitted("activating_currents")(jnp.asarray(th), jnp.asarray(w)))
    assert abs(inj.sum()) < 1e-9 * np.abs(inj).max()            # axial exchanges only move charge around
    fine = ForwardModel(m.prior.names, 19, SMALL, dt=0.0025, rec_t_max=1.1, stim_t_max=0.6, chunk=4)
    pats = np.array([m.pattern_from([0], [1.0]), m.pattern_from([0], [-1.0]), m.pattern_from([1, 2], [1.0, -0.7]),
                     m.pattern_from([3], [1.0])])
    thetas = np.tile(th, (4, 1))
    t_coarse = m.thresholds(thetas, pats, a_max=40, iters=12)
    t_fine = fine.thresholds(thetas, pats, a_max=40, iters=12)
    assert np.all(np.isfinite(t_coarse)), t_coarse
    assert np.all(np.abs(np.log(t_coarse / t_fine)) < 0.03)


def test_thresholds_skip_silent_pairs_with_the_numbers_of_bisecting_every_pair():
    """Session 14: only the pairs that spike at a_max are bisected. Reference: the same bisection run on every pair
    (written out here), on a mix of pairs that spike and a pair too weak to spike at a_max (+inf)."""
    m = small_model()
    th = np.array(m.prior.mean)
    pats = np.array([m.pattern_from([0], [1.0]), m.pattern_from([3], [0.02]), m.pattern_from([1, 2], [1.0, -0.7])])
    thetas = np.tile(th, (3, 1))
    a_min, a_max, iters = 0.1, 20.0, 7
    lo, hi = np.full(3, np.log(a_min)), np.full(3, np.log(a_max))
    top = m.spikes(thetas, pats, np.exp(hi))
    for _ in range(iters):
        mid = (lo + hi) / 2
        s = m.spikes(thetas, pats, np.exp(mid))
        hi, lo = np.where(s, mid, hi), np.where(s, lo, mid)
    ref = np.where(top, np.exp((lo + hi) / 2), np.inf)
    got = m.thresholds(thetas, pats, a_min=a_min, a_max=a_max, iters=iters)
    assert np.isinf(got[1]) and np.isfinite(got[[0, 2]]).all(), got    # the mix the test needs
    assert np.array_equal(got, ref)


def test_single_threshold_fit_and_linear_summation():
    rng = np.random.default_rng(0)
    amps = np.exp(np.linspace(np.log(0.5), np.log(12), 16))
    true = np.array([1.7, 4.2, np.inf])
    counts = st.simulate_trials(true, amps, 0.05, 200, rng)
    fit = st.fit_single_thresholds(counts, amps, 200, 0.05)
    assert np.all(np.abs(np.log(fit[:2] / true[:2])) < 0.03) and np.isinf(fit[2])
    W = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, -1.0]])
    p = st.linear_summation_prob(W, np.array([2.0, 2.0]), np.array([4.0, 4.0]), np.array([2.0]), 0.05)
    assert np.isclose(p[0, 0], 0.5) and p[1, 0] > 0.99          # same polarity: the drives add (2/2 + 2/2 = 2)
    assert p[2, 0] < 1e-6               # opposite polarities cancel: max(1/2 - 1/2, -1/4 + 1/4) = 0 (signed summation)
    # one electrode gives back both measured thresholds; a partial cancellation lowers the drive
    assert np.allclose(st.linear_drive(np.array([[1.0, 0], [-1.0, 0], [1.0, -0.5]]), np.array([2.0, 2.0]),
                                       np.array([4.0, 4.0])), [0.5, 0.25, 0.25])
    acc = st.accuracy(np.array([[0.9, 0.1], [0.2, 0.6]]), np.array([[20, 3], [10, 2]]), 25)
    assert np.allclose(acc, [1.0, 0.5])


def test_bad_parameters_are_refused():
    m = small_model()
    prior = m.prior
    bad = np.array(prior.mean)
    bad[2] = 5.0
    with pytest.raises(ValueError, match="closer to the array than the minimum height"):
        prior.check(bad)
    bad = np.array(prior.mean)
    bad[4] = 0.5
    with pytest.raises(ValueError, match="gna=0.5 is outside the prior"):
        prior.check(bad)
    with pytest.raises(ValueError, match="electrode 19 does not exist"):
        m.pattern_from([19], [1.0])
    with pytest.raises(ValueError, match="electrode weights"):
        m.check_pattern(np.zeros(7))
    with pytest.raises(ValueError, match="free parameters"):
        BoxPrior(("x", "speed"))
    with pytest.raises(ValueError, match="dt"):
        config_for("smoke", dt=0.01)
    with pytest.raises(ValueError, match="n_stim_electrodes"):
        config_for("smoke", n_stim_electrodes=40)
    with pytest.raises(ValueError, match="profile"):
        config_for("huge")


# -- claims both ways ------------------------------------------------------------------------------------
CFG = config_for("smoke")
NAMES = ("x", "y", "height", "angle", "gna")


def fake_study(nrmse=0.05, sbc_p=0.4, cov=0.9, logq_gap=2.0, ref_gain=-0.03, loss_ratio=0.3, acc=0.92, oracle=0.95,
               pm=0.80, mixed_gap=0.06, sweep=(0.90, 0.92, 0.93), t_npe=0.01, t_go=2.0, n=8, seed=0, npe_mean=None,
               same_gap=None, n_sbc=100, npe_curve=None):
    rng = np.random.default_rng(seed)
    noise = lambda s=0.01: s * rng.standard_normal(n)
    theta = rng.random((n, 5))
    npe = theta[:, None] + 0.08 * rng.standard_normal((n, 4, 5))
    refined = npe[:, :2] + (theta[:, None] - npe[:, :2]) * (-ref_gain / 0.08)
    A = {"oracle": oracle + noise(), "prior-mean": pm + noise(), "NPE": acc - 0.01 + noise(),
         "NPE + refinement": acc + noise(), "gradient-only": pm + noise(), "linear summation": acc - mixed_gap / 2 + noise()}
    mixed = {k: v.copy() for k, v in A.items()}
    mixed["linear summation"] = A["NPE + refinement"] - mixed_gap + noise()
    same = A if same_gap is None else dict(A, **{"linear summation": A["NPE + refinement"] - same_gap + noise()})
    loss_ref = np.abs(0.1 + noise()[:, None] * np.ones((1, 2)))
    loss_go = loss_ref.min(1) / loss_ratio
    # loss traces over 40 steps: the NPE-started fits flat, the random starts e (2.7) times their final loss until step
    # 20, then flat: both pass the plateau test, and C7 charges the fits 20 of the 40 steps (hence the blocks' 2 t_go)
    steps = np.arange(41)[:, None, None]
    trace_go = loss_go[None, :, None] * np.where(steps < 20, np.e, 1.0)
    # SBC cells whose posterior means miss the truth by about ``nrmse`` of the range per parameter (gna 0.05 more),
    # each posterior narrow around its mean (C1 reads the per-cell errors, C1c the spread)
    sd = np.full(5, nrmse) + [0, 0, 0, 0, 0.05]
    sbc_theta = rng.random((n_sbc, 5))
    err = rng.standard_normal((n_sbc, 5))
    err = err / np.sqrt((err ** 2).mean(0)) * sd                           # RMSE exactly ``sd`` per parameter
    sbc_samples = (sbc_theta + err)[:, None] + 0.01 * rng.standard_normal((n_sbc, 100, 5))
    return SimpleNamespace(names=NAMES, low=np.zeros(5), high=np.ones(5), nrmse=sd,
                           prior_nrmse=0.289, sbc_theta=sbc_theta, n_spikes=300, sbc_p=np.full(5, sbc_p),
                           sbc_ranks=rng.integers(0, 101, (n_sbc, 5)), sbc_samples=sbc_samples,
                           coverage90=np.full(5, cov), logq_designed=-6 + noise(0.5), logq_random=-6 - logq_gap + noise(0.5),
                           test_theta=theta, npe_samples=npe, refined=refined, loss_npe=loss_ref * 2, loss_refined=loss_ref,
                           loss_gradient_only=loss_go, loss_trace=np.repeat(loss_ref[None], 41, 0),
                           loss_trace_gradient_only=trace_go,
                           param_error=lambda th: np.sqrt(((np.asarray(th) - theta) ** 2).mean(-1)),
                           accuracy=A, balanced_accuracy={k: v - 0.05 for k, v in A.items()}, auc={k: 0.9 for k in A},
                           accuracy_mixed=mixed, accuracy_same=same, sweep_n=(30, 1200, 24000),
                           mixed=np.tile([True, False], (n, 6)), amplitudes=np.ones(12),
                           sweep_accuracy=np.array([[s] * n for s in sweep]) + 0.005 * rng.standard_normal((3, n)),
                           seconds_npe_per_cell=t_npe, seconds_gradient_only_per_cell=t_go,
                           seconds_npe_all=(t_npe * n,) * 5, seconds_gradient_only_blocks=(2 * t_go,) * 5,
                           seconds_gradient_only_run=t_go, npe_mean=npe.mean(1) if npe_mean is None else npe_mean,
                           npe_val_loss=dict.fromkeys(("designed", "random"), SETTLED if npe_curve is None else npe_curve))


#: held-out loss curves of the NPE's guard (issue 35, session 12), 50 epochs: one that settles (3 e^(-t/5) above its
#: floor: 0.004 nats between epoch 33 and 50, under the 0.05 allowed) and one still falling 0.02 nats an epoch (0.33)
EPOCHS = np.arange(1, 51)
SETTLED = 6.0 + 3.0 * np.exp(-EPOCHS / 5)
FALLING = 8.0 - 0.02 * EPOCHS

#: the rows behind the NPE's guard, each with a study from its own reproduced case (or, for C1c, a decided world)
GUARDED = {"C1": (claims.claim1, dict(nrmse=0.04)), "C1c": (claims.claim1c, dict(n_sbc=400)),
           "C1d": (claims.claim1d, dict()),
           "C2": (claims.claim2, dict(logq_gap=2.0)), "C3": (claims.claim3, dict(ref_gain=-0.06)),
           "C3b": (claims.claim3b, dict(loss_ratio=0.3)), "C4": (claims.claim4, dict(acc=0.92, oracle=0.95, pm=0.8)),
           "C5": (claims.claim5, dict(mixed_gap=0.06)), "C6": (claims.claim6, dict())}


@pytest.mark.parametrize("row", sorted(GUARDED))
def test_an_npe_still_falling_makes_every_row_that_reads_it_inconclusive(row):
    """Issue 35 (session 12): the NPE's held-out loss still falling 0.33 nats over the last third of its epochs: every
    row reading its posterior is inconclusive (not converged), naming the NPE, and shows the reading."""
    rule, kw = GUARDED[row]
    raw = inspect.unwrap(rule)(fake_study(**kw), CFG)
    assert raw.passed is not None                                  # the world decides without the guard
    c = rule(fake_study(npe_curve=FALLING, **kw), CFG)
    assert c.verdict == "inconclusive at this scale" and c.inconclusive == claims.NOT_CONVERGED
    assert "NPE (held-out loss" in c.reason and "NOT converged" in c.measured and raw.verdict in c.reason
    assert raw.measured in c.measured


@pytest.mark.parametrize("row", sorted(GUARDED))
def test_a_settled_npe_lets_every_row_decide_as_before(row):
    rule, kw = GUARDED[row]
    raw = inspect.unwrap(rule)(fake_study(**kw), CFG)
    c = rule(fake_study(**kw), CFG)
    assert (c.passed, c.inconclusive) == (raw.passed, raw.inconclusive)
    assert c.measured.startswith(raw.measured) and "NPE (held-out loss 6.000 nats after 50 epochs): converged" in c.measured
    assert all(c.values["npe_converged"].values())


def test_c2_guards_both_npes():
    """C2 compares two trained NPEs: the random projection's still falling alone makes it inconclusive."""
    s = fake_study(logq_gap=2.0)
    s.npe_val_loss = {"designed": SETTLED, "random": FALLING}
    c = claims.claim2(s, CFG)
    assert c.inconclusive == claims.NOT_CONVERGED and "NPE on the random projection" in c.reason
    assert "NPE (held-out loss" not in c.reason and "NPE (held-out loss" in c.measured


@pytest.mark.parametrize("row", sorted(GUARDED))
def test_a_study_without_the_npe_curve_is_refused(row):
    rule, kw = GUARDED[row]
    s = fake_study(**kw)
    del s.npe_val_loss
    with pytest.raises(ValueError, match="npe_val_loss"):
        rule(s, CFG)
    s.npe_val_loss = {"designed": SETTLED[:1], "random": SETTLED[:1]}   # one epoch: no earlier horizon to read
    with pytest.raises(ValueError, match="npe_val_loss"):
        rule(s, CFG)


def test_npe_guard_reads_the_best_so_far():
    """sbi keeps the best network: after an early stop the raw held-out loss rises (over-fitting) while the network
    compared is flat; the guard reads the best so far, so this NPE is converged, and one whose best is still falling
    by 0.06 nats over the last third is not (tolerance npe_loss_margin / 3 = 0.05)."""
    rising = np.concatenate([SETTLED[:25], SETTLED[24] + 0.01 * np.arange(1, 26)])
    assert claims.npe_plateau(SimpleNamespace(npe_val_loss={"designed": rising}), CFG).converged
    late = 8.0 - 0.06 * (EPOCHS > 34) * (EPOCHS - 34) / 16
    conv = claims.npe_plateau(SimpleNamespace(npe_val_loss={"designed": late}), CFG)
    assert not conv.converged and abs(conv.change - 0.06) < 1e-9 and abs(conv.tolerance - 0.05) < 1e-12


def test_npe_margin_lies_below_the_width_tolerance_s_kl():
    """The declared margin's reason: a third of it is below the KL divergence of a Gaussian posterior sbc_width_tol
    times too wide on one parameter, ½ (r² − 1 − ln r²), from the right one."""
    for cfg in (CFG, config_for("default"), config_for("full")):
        r2 = cfg.sbc_width_tol ** 2
        assert claims.PLATEAU.tolerance(cfg.npe_loss_margin) < 0.5 * (r2 - 1 - np.log(r2))


def test_train_npe_records_the_held_out_loss_per_epoch():
    """The NPE's training record: sbi's validation and training loss, one per epoch trained (a 2-d conjugate-ish toy,
    300 simulations, a few epochs); the held-out loss falls from the first epoch to the best."""
    rng = np.random.default_rng(0)
    th = rng.random((300, 2))
    x = th + 0.05 * rng.standard_normal((300, 2))
    post = inference.train_npe(th, x, np.zeros(2), np.ones(2), "zuko_maf", 6, 100, 0)
    assert post.val_loss.shape == post.train_loss.shape == (post.epochs,)
    assert np.isfinite(post.val_loss).all() and post.val_loss.min() < post.val_loss[0] - 0.1


@claim_case("hh_mea_inference", "C1", "reproduced")
def _c1_ok():
    return claims.claim1(fake_study(nrmse=0.04), CFG)


@claim_case("hh_mea_inference", "C1", "not reproduced", alternative="height not identified (RMSE 0.28 of the range)")
def _c1_alt():
    s = fake_study(nrmse=0.04)
    m = s.sbc_samples.mean(1, keepdims=True)
    s.sbc_samples[:, :, 2] += 0.5 - m[:, :, 2]            # every posterior mean at the prior mean: RMSE about 0.29
    return claims.claim1(s, CFG)


@claim_case("hh_mea_inference", "C1c", "reproduced")
def _c1c_ok():
    """Calibrated ranks on 400 SBC cells (session 11: at 100 the tolerance-aware spread test has power 0.17 against a
    posterior 1.5× too wide, so a calibrated posterior reads inconclusive there; 400 gives about 0.93)."""
    return claims.claim1c(fake_study(n_sbc=400), CFG)


@claim_case("hh_mea_inference", "C1c", "not reproduced", alternative="an over-confident posterior (0.6× the right "
            "width: coverage about 0.7)")
def _c1c_alt():
    # session 11: was fake_study(cov=0.7, sbc_p=1e-5), a typed χ² p-value beside uniform ranks; the rank tests now read
    # the ranks against the width tolerance, so the over-confident world is simulated (the Gaussian toy below)
    return claims.claim1c(_gaussian_sbc(0.6, 100), CFG)


def _gaussian_sbc(width, n_sbc, seed=1):
    """SBC on a Gaussian toy: per cell a centre μ ~ N(0, 3²), the truth ~ N(μ, 1) per parameter, the 'posterior'
    N(μ, width²) (the second review; the centres since the contract's second edition, so that the calibrated
    posterior is narrower than the prior, a box of variance 10)."""
    rng = np.random.default_rng(seed)
    mu = 3.0 * rng.standard_normal((n_sbc, 1, 5))
    truth = mu[:, 0] + rng.standard_normal((n_sbc, 5))
    samples = mu + width * rng.standard_normal((n_sbc, 100, 5))
    s = fake_study(n_sbc=n_sbc)
    s.sbc_theta, s.sbc_samples = truth, samples
    s.low, s.high = np.full(5, -np.sqrt(30.0)), np.full(5, np.sqrt(30.0))
    s.sbc_ranks = inference.sbc_ranks(samples, truth)
    s.sbc_p = inference.rank_uniformity_p(s.sbc_ranks, 100)
    s.coverage90 = inference.coverage(samples, truth, 0.9)
    return s


@claim_case("hh_mea_inference", "C1c", "not reproduced",
            alternative="a posterior 1.5× too wide on 100 SBC cells (90 % coverage 0.99: the old rule passed it)")
def _c1c_alt_wide():
    return claims.claim1c(_gaussian_sbc(1.5, 100), CFG)


@claim_case("hh_mea_inference", "C1c", "inconclusive at this scale")
def _c1c_calibrated_low_coverage():
    """Session 10 (an outside review): a calibrated posterior on smoke's 40 SBC cells whose y coverage came out 0.775 by
    chance (31 of 40; exact family interval reaching 0.8); the rule said 'not reproduced' on the point coverage."""
    return claims.claim1c(_gaussian_sbc(1.0, 40, seed=18), CFG)


def test_claim1c_coverage_is_decided_on_its_interval():
    c = _c1c_calibrated_low_coverage()
    assert c.inconclusive == "interval spans both" and c.values["parts"]["90 % coverage"] is None
    lo, hi = c.values["coverage_interval"][1]
    assert lo < 0.8 < hi and "y" in c.reason
    # a calibrated posterior is 'not reproduced' only as often as its rank tests reject (family level 0.01 each), not
    # 1 time in 10 (the point coverage: 6 of 60 seeds before session 10)
    verdicts = [claims.claim1c(_gaussian_sbc(1.0, 40, seed=s), CFG).passed for s in range(30)]
    assert verdicts.count(False) <= 2
    # an over-confident posterior (half the width: coverage about 0.6) is still evidence against on 40 cells
    over = claims.claim1c(_gaussian_sbc(0.6, 40), CFG)
    assert over.passed is False and over.values["parts"]["90 % coverage"] is False


def test_claim1c_rejects_a_too_wide_posterior_and_says_when_it_cannot():
    wide = _gaussian_sbc(1.5, 100)
    assert (np.abs(wide.coverage90 - 0.9) <= 0.1).all()              # the coverage half cannot see it
    c = _c1c_alt_wide()
    assert c.passed is False and min(c.values["spread_p_tol"]) < CFG.sbc_alpha / 5 and c.values["power"] < 0.8
    assert c.values["parts"]["rank spread"] is False
    for n in (40, 100):                                     # calibrated, too few cells for the tolerance-aware test
        small = claims.claim1c(_gaussian_sbc(1.0, n), CFG)
        assert small.passed is None and f"{n} SBC cells" in small.reason and small.values["power"] < 0.8
        # rule 12 (session 15): the row says where it is decided: full's 500 cells give the test its power
        assert re.search(r"decided at full \(500 SBC cells: power 0\.9\d\)", small.reason), small.reason
    ok = claims.claim1c(_gaussian_sbc(1.0, 400), CFG)                            # calibrated, 400 cells: passes
    assert ok.passed is True and ok.values["power"] >= 0.8
    assert claims.claim1c(_gaussian_sbc(0.6, 40), CFG).passed is False           # over-confidence still fails there


@claim_case("hh_mea_inference", "C1c", "inconclusive at this scale")
def _c1c_slightly_wide():
    """Session 11 (an outside review): a posterior 1.15× too wide (90 % coverage 0.94, inside coverage_tol, short of the
    declared 1.5×) on 100 cells, seed 0: both rank tests reject exact calibration; before the width tolerance the row
    said 'not reproduced' (16 seeds in 40 did); neither test rejects a posterior 1.25× too wide."""
    return claims.claim1c(_gaussian_sbc(1.15, 100, seed=0), CFG)


@claim_case("hh_mea_inference", "C1c", "not reproduced", alternative="a posterior 2.5× too wide on 100 SBC cells")
def _c1c_alt_very_wide():
    return claims.claim1c(_gaussian_sbc(2.5, 100), CFG)


def test_claim1c_rejection_within_the_width_tolerance_is_inconclusive():
    c = _c1c_slightly_wide()
    assert c.inconclusive == "interval spans both" and "width tolerance" in c.reason
    assert min(c.values["spread_p"]) < CFG.sbc_alpha / 5 and min(c.values["spread_p_tol"]) >= CFG.sbc_alpha / 5
    assert c.values["parts"] == {"rank uniformity (chi-squared)": None, "rank spread": None, "90 % coverage": True}
    v = _c1c_alt_very_wide()
    assert v.values["parts"]["rank spread"] is False and v.values["parts"]["rank uniformity (chi-squared)"] is False
    # too narrow beyond the tolerance is against on the other side of the spread test (large spread)
    narrow = claims.claim1c(_gaussian_sbc(0.5, 100), CFG)
    assert narrow.passed is False and narrow.values["parts"]["rank spread"] is False


def _partly_prior_sbc(learned=("x", "y", "angle"), n_sbc=500, seed=4):
    """Session 12 (an outside review): default's nine parameters on a Gaussian toy whose posterior is calibrated
    everywhere but learned only ``learned`` (centre μ ~ N(0, 3²), truth ~ N(μ, 1), posterior N(μ, 1): contraction 0.9)
    and is the prior itself on the others (truth and samples uniform in the box of variance 10: contraction 0)."""
    names = config_for("default").free
    rng = np.random.default_rng(seed)
    half = np.sqrt(30.0)
    mu = 3.0 * rng.standard_normal((n_sbc, 1, len(names)))
    truth = mu[:, 0] + rng.standard_normal((n_sbc, len(names)))
    samples = mu + rng.standard_normal((n_sbc, 100, len(names)))
    for j, n in enumerate(names):
        if n not in learned:
            truth[:, j] = rng.uniform(-half, half, n_sbc)
            samples[:, :, j] = rng.uniform(-half, half, (n_sbc, 100))
    s = SimpleNamespace(names=names, low=np.full(len(names), -half), high=np.full(len(names), half),
                        sbc_theta=truth, sbc_samples=samples, npe_val_loss=dict.fromkeys(("designed", "random"), SETTLED))
    s.sbc_ranks = inference.sbc_ranks(samples, truth)
    s.sbc_p = inference.rank_uniformity_p(s.sbc_ranks, 100)
    s.coverage90 = inference.coverage(samples, truth, 0.9)
    return s


@claim_case("hh_mea_inference", "C1d", "not reproduced", alternative="a calibrated posterior that learned only x, y "
            "and angle and is the prior on default's six other parameters, 500 SBC cells, no estimator on the features "
            "recovering them (mean contraction 0.30: 'reproduced' under the mean-only rule)")
def _c1d_alt_partly_prior():
    return claims.claim1d(_partly_prior_sbc(), CFG)


@claim_case("hh_mea_inference", "C1c", "reproduced")
def _c1c_ok_partly_prior():
    """Session 13: the same partly-prior world is calibrated on every parameter (the prior's calibration on six of
    them), and calibration is all C1c decides now; 500 SBC cells give the power the row asks."""
    return claims.claim1c(_partly_prior_sbc(), CFG)


def test_calibration_and_informativeness_are_read_apart():
    """Session 13: C1c decided calibration and informativeness in one verdict, so a reader could not tell which half
    failed; the partly-prior world is now C1c reproduced and C1d not reproduced, each naming only its own parts."""
    cal, inf = _c1c_ok_partly_prior(), _c1d_alt_partly_prior()
    assert cal.passed is True and set(cal.values["parts"]) == {"rank uniformity (chi-squared)", "rank spread",
                                                               "90 % coverage"}
    assert cal.values["power"] >= CFG.sbc_power and "row C1d" in cal.measured and "prior-like" not in cal.measured
    assert inf.passed is False and set(inf.values["parts"]) == {"contraction", "each parameter informative"}
    assert "SBC p" not in inf.measured and "prior-like" in inf.measured
    # an over-confident posterior is C1c's to reject; it is narrow, so C1d passes it
    over = _gaussian_sbc(0.6, 100)
    assert claims.claim1c(over, CFG).passed is False and claims.claim1d(over, CFG).passed is True


@claim_case("hh_mea_inference", "C1d", "inconclusive at this scale")
def _c1d_prior_like_ridge_recovers():
    """Default's reading (session 12, record of e2eb8da): the NPE is prior-like on a parameter (here gna) that a ridge
    regression on the same features recovers (error 0.05 of the range): our NPE's miss, not evidence against."""
    names = config_for("default").free
    one = _partly_prior_sbc(learned=tuple(n for n in names if n != "gna"))
    one.prior_nrmse = float(np.sqrt(1 / 12))
    g = np.random.default_rng(11)
    one.sbc_ridge = one.sbc_theta + 0.05 * (one.high - one.low) * g.standard_normal(one.sbc_theta.shape)
    return claims.claim1d(one, CFG)


def test_claim1d_prior_like_parameter_the_features_identify_is_not_evidence_against():
    """Session 12 (the lead, after the default run: our NPE is prior-like on height, which a ridge regression on the
    same features recovers to 0.11 of the range, the audit's finding): a prior-like parameter counts against only when
    the ridge baseline does not recover it either; otherwise the row is undecided (our NPE's miss). In C1c until
    session 13, in C1d since, unchanged."""
    c = _c1d_prior_like_ridge_recovers()
    assert c.values["prior_like"] == ["gna"] and c.values["prior_like_ridge_identifies"] == ["gna"]
    assert c.passed is None and c.inconclusive is not None and c.values["parts"]["each parameter informative"] is None
    assert "ridge regression on the same features recovers" in c.reason and "recovers gna" in c.measured
    # a ridge regression at the prior's lower edge on gna, no better than the prior mean: the parameter counts against
    names = config_for("default").free
    j = names.index("gna")
    one = _partly_prior_sbc(learned=tuple(n for n in names if n != "gna"))
    one.prior_nrmse = float(np.sqrt(1 / 12))
    g = np.random.default_rng(11)
    one.sbc_ridge = one.sbc_theta + 0.05 * (one.high - one.low) * g.standard_normal(one.sbc_theta.shape)
    one.sbc_ridge[:, j] = 0.0
    c = claims.claim1d(one, CFG)
    assert c.values["prior_like_ridge_identifies"] == [] and c.passed is False
    assert c.values["parts"]["each parameter informative"] is False
    # the ridge baseline has no say in C1c: the world is calibrated whatever the ridge recovers
    assert claims.claim1c(one, CFG).passed is True and "ridge" not in claims.claim1c(one, CFG).measured


def _near_far_sbc(near=0.39, n_sbc=100):
    """Default's nine parameters, n_sbc cells: a posterior with contraction ``near`` on every parameter of the even
    cells (cells near the array) and the prior's width on the odd ones (far cells, contraction 0), the samples a fixed
    standardised grid scaled to that variance (each cell's contraction exact)."""
    names = config_for("default").free
    half = np.sqrt(30.0)                                            # a box of variance 10
    z = np.linspace(-1.0, 1.0, 100)
    z = (z - z.mean()) / z.std()
    scale = np.where(np.arange(n_sbc) % 2 == 0, np.sqrt(10.0 * (1 - near)), np.sqrt(10.0))
    samples = scale[:, None, None] * z[None, :, None] * np.ones((1, 1, len(names)))
    return SimpleNamespace(names=names, low=np.full(len(names), -half), high=np.full(len(names), half),
                           sbc_theta=samples[:, 0].copy(), sbc_samples=samples,
                           npe_val_loss=dict.fromkeys(("designed", "random"), SETTLED))


@claim_case("hh_mea_inference", "C1d", "inconclusive at this scale", alternative="a posterior informative on the "
            "cells near the array (contraction 0.39 on every parameter) and the prior on the far ones, 100 SBC cells: "
            "mean contraction 0.195, its 95 % interval [0.16, 0.23] containing min_contraction (read 'not reproduced' "
            "before session 14: the mean was a point test)")
def _c1d_mean_spans():
    return claims.claim1d(_near_far_sbc(), CFG)


def test_claim1d_mean_contraction_is_read_on_its_interval():
    """Session 14 (a review of the recent rules; rule 9): the mean contraction was a point test at min_contraction, so
    a mean of 0.195 whose interval reaches 0.23 was evidence against; it is read on its 95 % t-interval over the SBC
    cells now, and counts against only when that interval lies wholly below."""
    c = _c1d_mean_spans()
    lo, hi = c.values["contraction_mean_interval"]
    assert c.values["contraction_mean"] == pytest.approx(0.195, abs=1e-6)
    assert lo < CFG.min_contraction <= hi and c.values["parts"]["contraction"] is None
    assert c.values["prior_like"] == [] and c.values["parts"]["each parameter informative"] is None
    assert c.passed is None and c.inconclusive == "interval spans both" and "mean contraction" in c.reason
    low = claims.claim1d(_near_far_sbc(near=0.2), CFG)                           # mean 0.10: interval wholly below
    assert low.values["contraction_mean_interval"][1] < CFG.min_contraction and low.passed is False
    assert low.values["parts"]["contraction"] is False


@claim_case("hh_mea_inference", "C1d", "reproduced")
def _c1d_ok_nine():
    """Informative on all nine of default's parameters (contraction about 0.9 each), on default's 100 SBC cells."""
    return claims.claim1d(_partly_prior_sbc(learned=config_for("default").free, n_sbc=config_for("default").n_sbc), CFG)


def test_claim1d_asks_every_parameter_to_be_informative():
    """Session 12 (an outside review): the contraction was averaged over the parameters, so a posterior that is the
    prior on six of nine parameters passed at 500 cells; each parameter is decided on its own interval (C1d since
    session 13)."""
    c = _c1d_alt_partly_prior()
    assert CFG.min_contraction <= c.values["contraction_mean"] < 0.4          # the mean alone still clears its minimum
    assert c.values["parts"]["contraction"] is True
    assert c.passed is False and c.values["parts"]["each parameter informative"] is False
    assert set(c.values["prior_like"]) == set(config_for("default").free) - {"x", "y", "angle"}
    assert "prior-like" in c.measured and "each parameter informative" in c.reason
    ok = _c1d_ok_nine()
    assert ok.passed is True and ok.values["prior_like"] == [] and min(ok.values["contraction"]) > 0.85
    # one prior-like parameter is enough; its interval lies wholly below the minimum
    one = claims.claim1d(_partly_prior_sbc(learned=tuple(n for n in config_for("default").free if n != "gna")), CFG)
    assert one.passed is False and one.values["prior_like"] == ["gna"]
    assert one.values["contraction_interval"][config_for("default").free.index("gna")][1] < CFG.min_param_contraction
    # a parameter whose interval contains the minimum leaves the row undecided: 'height' the prior of a box of variance
    # 8 / 0.99 (the samples' variance, ddof 0 over 100 draws, 8: contraction 0.2 in expectation), truth from the same box
    near = _partly_prior_sbc(learned=config_for("default").free, seed=5)
    j = config_for("default").free.index("height")
    g, half = np.random.default_rng(6), np.sqrt(3 * 8 / 0.99)
    near.sbc_theta[:, j] = g.uniform(-half, half, 500)
    near.sbc_samples[:, :, j] = g.uniform(-half, half, (500, 100))
    u = claims.claim1d(near, CFG)
    lo, hi = u.values["contraction_interval"][j]
    assert lo < CFG.min_param_contraction <= hi and u.values["parts"]["each parameter informative"] is None
    assert u.passed is None and "height" in u.reason and u.inconclusive == "interval spans both"


def test_rank_tolerance_test_holds_its_level_at_the_edge_and_its_power_matches_a_direct_simulation():
    level, tol = 0.01 / 5, 1.25
    assert np.allclose(stats.chi2.sf(inference.rank_chi2(_gaussian_sbc(1.0, 60).sbc_ranks, 100), 9),
                       _gaussian_sbc(1.0, 60).sbc_p)                               # the χ² statistic of the χ² test
    g = np.random.default_rng(7)
    for w in (tol, 1 / tol):                 # a posterior exactly at the tolerance's edge: rejected about ``level``
        r = inference._gaussian_ranks(g, (100, 400), 100, w)                       # 400 sets of 100 cells
        ps, pc = inference.rank_tolerance_p(r, 100, tol)
        assert (ps < 0.05).mean() < 0.1 and (pc < 0.05).mean() < 0.1
    direct = np.mean([(inference.rank_tolerance_p(_gaussian_sbc(1.5, 100, seed=s).sbc_ranks, 100, tol)[0] < level)
                      .mean() for s in range(40)])
    assert abs(inference.tolerance_power(100, 100, 1.5, tol, level) - direct) < 0.1


def test_rank_spread_test_is_calibrated_and_its_power_matches_a_direct_simulation():
    g = np.random.default_rng(5)
    p = np.concatenate([inference.rank_spread_p(g.integers(0, 101, (60, 10)), 100, draws=4000, seed=s)
                        for s in range(20)])                               # 200 calibrated parameters
    assert stats.kstest(p, "uniform").pvalue > 0.01
    level = 0.01 / 5
    direct = np.mean([(inference.rank_spread_p(_gaussian_sbc(1.5, 100, seed=s).sbc_ranks, 100, draws=4000)
                       < level).mean() for s in range(40)])
    assert abs(inference.rank_spread_power(100, 100, 1.5, level) - direct) < 0.12


@claim_case("hh_mea_inference", "C2", "reproduced")
def _c2_ok():
    return claims.claim2(fake_study(logq_gap=2.0), CFG)


@claim_case("hh_mea_inference", "C2", "not reproduced", alternative="random projection as informative")
def _c2_alt():
    return claims.claim2(fake_study(logq_gap=-0.3), CFG)


@claim_case("hh_mea_inference", "C3", "reproduced")
def _c3_ok():
    return claims.claim3(fake_study(ref_gain=-0.06), CFG)


@claim_case("hh_mea_inference", "C3", "not reproduced", alternative="refinement moving θ away from the truth")
def _c3_alt():
    return claims.claim3(fake_study(ref_gain=0.03), CFG)


@claim_case("hh_mea_inference", "C3", "not reproduced",
            alternative="refinement that beats the mean of its 2 starting samples but not NPE's posterior mean (review)")
def _c3_alt_posterior_mean():
    s = fake_study(ref_gain=-0.06)
    rng = np.random.default_rng(3)
    s.npe_mean = s.test_theta + 0.003 * rng.standard_normal(s.test_theta.shape)   # a sharp, well-centred posterior
    return claims.claim3(s, CFG)


@claim_case("hh_mea_inference", "C3", "not reproduced",
            alternative="a 'refinement' that only averages NPE samples, no simulator (second review)")
def _c3_alt_averaging():
    s = fake_study(ref_gain=0.0)
    s.refined = np.repeat(s.npe_samples.mean(1, keepdims=True), s.refined.shape[1], axis=1)
    return claims.claim3(s, CFG)


def test_claim3_compares_with_the_posterior_mean_and_the_starting_samples():
    ok = _c3_ok()
    assert ok.passed is True and "NPE posterior mean" in ok.measured
    # as good as the 4-sample posterior mean, within noise: not passed; undecided since rule 9 (it failed before)
    assert claims.claim3(fake_study(ref_gain=-0.03), CFG).inconclusive == "interval spans both"
    c = _c3_alt_posterior_mean()
    assert c.passed is False and c.values["diff"] > 0 and c.values["diff_k"] < 0
    st = fake_study()
    st.npe_mean = None
    assert claims.claim3(st, CFG).passed is None


@claim_case("hh_mea_inference", "C3b", "reproduced")
def _c3b_ok():
    return claims.claim3b(fake_study(loss_ratio=0.3), CFG)


@claim_case("hh_mea_inference", "C3b", "not reproduced", alternative="random restarts reaching the same loss")
def _c3b_alt():
    return claims.claim3b(fake_study(loss_ratio=1.0), CFG)


@claim_case("hh_mea_inference", "C3b", "not reproduced",
            alternative="random restarts that fit 3 of 8 cells exactly (loss 0) while the refined fit does not")
def _c3b_alt_exact():
    s = fake_study(loss_ratio=0.3)
    s.loss_gradient_only = s.loss_gradient_only.copy()
    s.loss_gradient_only[:3] = 0.0                 # log-ratio +inf: evidence against the claim, formerly dropped
    return claims.claim3b(s, CFG)


def test_paired_rules_count_non_finite_cells_and_fail_past_the_limit():
    """C3b and C4 left non-finite cells out silently; now they are counted in the measured text, and past
    max_dropped_frac of the cells the rule fails (whichever way the left-out cells point)."""
    assert CFG.max_dropped_frac == 0.2
    ok = claims.claim3b(fake_study(loss_ratio=0.3), CFG)
    assert ok.passed is True and "left out" not in ok.measured and ok.values["dropped"] == 0
    one = fake_study(loss_ratio=0.3)
    one.loss_gradient_only = one.loss_gradient_only.copy()
    one.loss_gradient_only[0] = 0.0                # 1 of 8 cells: within the limit, decided on the other 7
    c = claims.claim3b(one, CFG)
    assert c.passed is True and "1 of 8 cells non-finite, left out" in c.measured and c.values["n"] == 7
    c = _c3b_alt_exact()
    assert c.passed is False and "3 of 8 cells non-finite" in c.measured and "max_dropped_frac" in c.reason
    many = fake_study(loss_ratio=0.3)              # refined fits at loss 0 (-inf: for the claim) count the same
    many.loss_refined = many.loss_refined.copy()
    many.loss_refined[:3] = 0.0
    assert claims.claim3b(many, CFG).passed is False
    # C4: cells whose measured responses are all one class have no balanced accuracy
    st = fake_study(acc=0.92, oracle=0.95, pm=0.8)
    st.balanced_accuracy = {k: v.copy() for k, v in st.balanced_accuracy.items()}
    for k in st.balanced_accuracy:
        st.balanced_accuracy[k][0] = np.nan
    c = claims.claim4(st, CFG)
    assert c.passed is True and "1 of 8 cells non-finite, left out" in c.measured
    for k in st.balanced_accuracy:
        st.balanced_accuracy[k][:3] = np.nan
    c = claims.claim4(st, CFG)
    assert c.passed is False and "3 of 8" in c.measured and "max_dropped_frac" in c.reason
    # a stricter config limit makes the one-cell case fail too (the limit is the config's, not a constant)
    strict = dataclasses.replace(CFG, max_dropped_frac=0.1)
    assert claims.claim3b(one, strict).passed is False


@claim_case("hh_mea_inference", "C4", "reproduced")
def _c4_ok():
    return claims.claim4(fake_study(acc=0.92, oracle=0.95, pm=0.8), CFG)


@claim_case("hh_mea_inference", "C4", "not reproduced", alternative="no better than the prior-mean cell")
def _c4_alt():
    return claims.claim4(fake_study(acc=0.86, oracle=0.88, pm=0.86), CFG)


@claim_case("hh_mea_inference", "C5", "reproduced")
def _c5_ok():
    return claims.claim5(fake_study(mixed_gap=0.06), CFG)


@claim_case("hh_mea_inference", "C5", "not reproduced", alternative="linear summation as accurate on mixed polarity")
def _c5_alt():
    return claims.claim5(fake_study(mixed_gap=-0.01), CFG)


@claim_case("hh_mea_inference", "C5", "not reproduced",
            alternative="a model better than linear summation by the same 0.06 on same- and mixed-polarity patterns "
                        "(no non-additive part; review)")
def _c5_alt_additive():
    return claims.claim5(fake_study(mixed_gap=0.06, same_gap=0.06), CFG)


@claim_case("hh_mea_inference", "C5", "not reproduced",
            alternative="linear summation uniformly worse, no polarity interaction (second review's input)")
def _c5_alt_uniformly_worse():
    s = fake_study(mixed_gap=0.06)
    s.accuracy_same = {k: v.copy() for k, v in s.accuracy_same.items()}
    s.accuracy_same["linear summation"] = (s.accuracy_mixed["linear summation"]
                                           + s.accuracy_same["NPE + refinement"] - s.accuracy_mixed["NPE + refinement"])
    return claims.claim5(s, CFG)


@claim_case("hh_mea_inference", "C5", "not reproduced",
            alternative="a gain of one condition in 144 on every cell (zero-width interval; second review, minor)")
def _c5_alt_tiny():
    return claims.claim5(_tiny_c5_study(), CFG)


def _tiny_c5_study():
    s = fake_study(mixed_gap=0.06)
    s.accuracy_mixed = {k: v.copy() for k, v in s.accuracy_mixed.items()}
    s.accuracy_mixed["NPE + refinement"] = np.full(8, 0.9)
    s.accuracy_mixed["linear summation"] = np.full(8, 0.9 - 1 / 144)
    s.accuracy_same = {k: v.copy() for k, v in s.accuracy_same.items()}
    s.accuracy_same["NPE + refinement"] = np.full(8, 0.9)
    s.accuracy_same["linear summation"] = np.full(8, 0.9 + 0.05)
    return s


@claim_case("hh_mea_inference", "C3", "not reproduced",
            alternative="refinement that lowers the parameter error by 0.002 of the prior range (second review, minor)")
def _c3_alt_tiny():
    s = fake_study(ref_gain=-0.002)
    s.npe_mean = s.npe_samples[:, :2].mean(1)
    return claims.claim3(s, CFG)


def test_paired_rules_ask_for_a_minimum_effect():
    assert _c5_alt_tiny().values["interaction"] > 0.04 and _c5_alt_tiny().passed is False     # DiD large, gain tiny
    c = _c3_alt_tiny()
    assert c.values["diff"] < 0 and c.passed is False
    loose = dataclasses.replace(CFG, min_acc_gain=0.0, min_theta_gain=0.0)         # the session-4 rules
    assert claims.claim5(_tiny_c5_study(), loose).passed is True
    assert _c3_ok().passed is True and _c5_ok().passed is True and _c4_ok().passed is True and _c6_ok().passed is True


def _half_the_errors_everywhere():
    """The second pass's world: a better cell model that removes half of linear summation's errors on every pattern
    (linear 0.70 on mixed, 0.90 on same polarity): +0.15 and +0.05 in accuracy, no interaction of any kind."""
    s = fake_study(n=8)
    g = np.random.default_rng(3)
    lin_s, lin_m = 0.90 + g.normal(0, 0.01, 8), 0.70 + g.normal(0, 0.02, 8)
    s.accuracy_same, s.accuracy_mixed = dict(s.accuracy_same), dict(s.accuracy_mixed)
    s.accuracy_same["linear summation"], s.accuracy_mixed["linear summation"] = lin_s, lin_m
    s.accuracy_same["NPE + refinement"] = lin_s + 0.5 * (1 - lin_s) + g.normal(0, 0.005, 8)
    s.accuracy_mixed["NPE + refinement"] = lin_m + 0.5 * (1 - lin_m) + g.normal(0, 0.005, 8)
    return s


@claim_case("hh_mea_inference", "C5", "not reproduced",
            alternative="a model that removes half of linear summation's errors on every pattern (second pass)")
def _c5_alt_same_share():
    return claims.claim5(_half_the_errors_everywhere(), CFG)


def test_claim5_interaction_is_also_decided_on_error_counts():
    c = _c5_alt_same_share()
    assert c.values["interaction"] > 0.05 and abs(c.values["log_ratio_interaction"]) < 0.2 and c.passed is False
    ok = _c5_ok()
    assert ok.passed is True and ok.values["log_ratio_interaction"] < 0
    st = fake_study()
    del st.mixed
    assert claims.claim5(st, CFG).passed is None


def test_claim5_needs_the_gain_to_be_larger_on_mixed_polarity():
    ok = _c5_ok()                                           # mixed gain 0.06, same gain 0.03
    assert ok.passed is True and ok.values["interaction"] > 0
    c = _c5_alt_additive()
    assert c.passed is False and c.values["diff"] > 0.04 and abs(c.values["interaction"]) < 0.03


@claim_case("hh_mea_inference", "C6", "reproduced")
def _c6_ok():
    return claims.claim6(fake_study(sweep=(0.90, 0.92, 0.93)), CFG)


@claim_case("hh_mea_inference", "C6", "not reproduced", alternative="accuracy from two minutes of recording well below "
            "forty minutes' (0.80 vs 0.93)")
def _c6_alt():
    return claims.claim6(fake_study(sweep=(0.70, 0.80, 0.93)), CFG)


@claim_case("hh_mea_inference", "C6", "not reproduced",
            alternative="NPE from two minutes no better than the prior-mean cell, within 0.05 of forty minutes (second "
                        "review)")
def _c6_alt_prior_level():
    return claims.claim6(fake_study(pm=0.86, sweep=(0.80, 0.86, 0.90)), CFG)


def test_claim6_uses_paired_bounds():
    assert _c6_ok().passed is True and _c6_alt_prior_level().passed is False
    st = fake_study(sweep=(0.90, 0.92, 0.93))               # a mean drop of 0.03, but 0.12 on half the cells
    st.sweep_accuracy = st.sweep_accuracy.copy()
    st.sweep_accuracy[1] = st.sweep_accuracy[2] - np.r_[np.full(4, 0.12), np.full(4, -0.06)]
    c = claims.claim6(st, CFG)
    # the lower bound is past the limit, the upper bound inside it: the interval spans both (rule 9; it failed
    # before the contract's second edition)
    assert c.values["drop_lo"] < -CFG.mild_drop and c.passed is None and c.inconclusive == "interval spans both"


@claim_case("hh_mea_inference", "C7", "reproduced")
def _c7_ok():
    return claims.claim7(fake_study(t_npe=0.01, t_go=2.0), CFG)


@claim_case("hh_mea_inference", "C7", "not reproduced", alternative="inference as slow as per-cell fitting (10x)")
def _c7_alt():
    return claims.claim7(fake_study(t_npe=0.2, t_go=2.0), CFG)


@claim_case("hh_mea_inference", "C7", "not reproduced",
            alternative="fits 50x slower than NPE on a quiet machine, 300x in their one run under load (session 5)")
def _c7_alt_loaded_run():
    s = fake_study(t_npe=0.01, t_go=0.5)                  # every interleaved round: 0.5 s against 0.01 s, 50x
    s.seconds_gradient_only_blocks = (6.0, 1.0, 5.0, 6.0, 1.2)    # load on some rounds of the fits (40 steps; 20 charged)
    s.seconds_gradient_only_run = 3.0                     # the old rule's numerator: 300x
    return claims.claim7(s, CFG)


def test_claim7_times_both_sides_in_the_same_interleaved_rounds():
    c = _c7_alt_loaded_run()
    assert c.passed is False and c.values["ratio"] == pytest.approx(50) and "whole run 3.00 s" in c.measured
    ok = _c7_ok()
    assert ok.passed is True and ok.values["ratio"] == pytest.approx(200)
    st = fake_study()
    st.seconds_gradient_only_blocks = (2.0,)              # one side timed in another number of rounds: undecided
    assert claims.claim7(st, CFG).passed is None


def test_refine_interleaves_a_callback_and_times_each_step():
    """The C7 protocol's hooks: ``between(i)`` before step i (untimed), one wall time per step."""
    from icmlbook.papers.hh_mea_inference.inference import refine
    from icmlbook.papers.hh_mea_inference.model import BoxPrior

    prior = BoxPrior(("x", "y"))

    class Quadratic:                                       # stands in for the feature loss (hashable, jit-able)
        model = SimpleNamespace(prior=prior)

        def __call__(self, theta, f):
            return (((theta - f) / (prior.high - prior.low)) ** 2).sum()

    at = lambda u: np.tile(prior.low + u * (prior.high - prior.low), (3, 1))
    calls, secs = [], []
    th, l0, l1, trace = refine(Quadratic(), at(0.3), at(0.6), 6, 0.05, between=calls.append, step_seconds=secs)
    assert calls == list(range(6)) and len(secs) == 6 and all(s >= 0 for s in secs)
    assert trace.shape == (7, 3) and (l1 < l0).all()


def test_npe_timing_fastest_of_repeats_resists_a_load_burst():
    """C7's NPE time is a few ms: one scheduler slice on a loaded machine could triple it. The fastest of
    the repeated (same-seed) calls decides; a fake clock plays a burst on the first call."""
    from icmlbook.papers.hh_mea_inference.experiments import fastest_of

    ticks = iter([0.0, 0.018, 1.0, 1.006, 2.0, 2.007])          # start/stop of three calls: 18, 6, 7 ms
    calls = []
    out, times = fastest_of(lambda: calls.append(1) or len(calls), 3, clock=lambda: next(ticks))
    assert out == 1 and len(calls) == 3 and times == pytest.approx([0.018, 0.006, 0.007])
    n_test, t_go = 5, 0.23                                       # smoke's cells and gradient-only time per cell
    assert claims.claim7(fake_study(t_npe=min(times) / n_test, t_go=t_go), CFG).passed is True      # 192x
    assert claims.claim7(fake_study(t_npe=times[0] / n_test, t_go=t_go), CFG).passed is False       # one burst: 64x
    with pytest.raises(ValueError, match="repeats"):
        fastest_of(lambda: None, 0)


CASES = [(f, o) for f, o in [(_c1_ok, True), (_c1_alt, False), (_c1c_ok, True), (_c1c_alt, False), (_c2_ok, True),
                             (_c2_alt, False), (_c3_ok, True), (_c3_alt, False), (_c3_alt_posterior_mean, False), (_c3_alt_averaging, False),
                             (_c3b_ok, True), (_c3b_alt, False), (_c3b_alt_exact, False),
                             (_c4_ok, True), (_c4_alt, False), (_c5_ok, True), (_c5_alt, False), (_c5_alt_additive, False), (_c5_alt_uniformly_worse, False), (_c5_alt_tiny, False), (_c5_alt_same_share, False),
                             (_c3_alt_tiny, False),
                             (_c6_ok, True), (_c6_alt, False), (_c6_alt_prior_level, False), (_c1c_alt_wide, False), (_c1c_alt_very_wide, False), (_c1c_slightly_wide, None), (_c7_ok, True), (_c7_alt, False),
                             (_c7_alt_loaded_run, False)]]


@pytest.mark.parametrize("case,expected", CASES, ids=[f.__name__ for f, _ in CASES])
def test_claim_cases(case, expected):
    assert case().passed is expected


def test_config_presets_are_valid_and_distinct():
    s, d = config_for("smoke"), config_for("default")
    assert s.n_electrodes < d.n_electrodes and len(s.free) < len(d.free)
    assert dataclasses.replace(s, n_test=4).n_test == 4


def test_claim1_fails_when_a_geometric_parameter_was_not_inferred():
    st = fake_study(nrmse=0.04)
    keep = [i for i, n in enumerate(st.names) if n not in ("height", "angle")]
    st.names = tuple(st.names[i] for i in keep)
    st.nrmse = np.asarray(st.nrmse)[keep]
    st.sbc_theta, st.sbc_samples = st.sbc_theta[:, keep], st.sbc_samples[:, :, keep]
    st.low, st.high = st.low[keep], st.high[keep]
    check = claims.claim1(st, CFG)
    assert check.passed is False and "not inferred: height, angle" in check.measured


def test_claim6_reads_the_sweep_by_spike_count_not_by_position():
    st = fake_study(sweep=(0.93, 0.80, 0.70))     # accuracy grows with N when the sweep is given in descending N
    st.sweep_n = (24000, 1200, 30)
    assert claims.claim6(st, CFG).passed is False
    st.sweep_accuracy = st.sweep_accuracy[::-1].copy()
    st.sweep_n = (30, 1200, 24000)
    assert claims.claim6(st, CFG).passed is False


@pytest.mark.parametrize("kwargs, name", [({"sigma": -0.1}, "sigma"), ({"sigma": 0.0}, "sigma"),
                                          ({"n_trials": 0}, "n_trials")])
def test_simulate_trials_refuses_bad_values_naming_them(kwargs, name):
    from icmlbook.papers.hh_mea_inference import stimulation

    args = dict(sigma=0.05, n_trials=10) | kwargs
    with pytest.raises(ValueError, match=f"{name}="):
        stimulation.simulate_trials(np.ones(3), np.linspace(0.5, 2.0, 5), args["sigma"], args["n_trials"],
                                    np.random.default_rng(0))


# -- rule 11: the nearest trivial methods' real output through the rules (CLAIMS.md, second edition) -----------------
@functools.lru_cache(maxsize=None)
def _prior_world(n_sbc=200, n_test=20, draws=100, seed=0):
    """The prior itself as the posterior, on the smoke profile's free parameters: real draws of the box prior as the
    SBC truths, the test cells and every 'posterior' sample; the checks computed as run_study computes them."""
    prior = BoxPrior(NAMES)
    rng = np.random.default_rng(seed)
    truth = prior.sample(n_sbc, rng)
    samples = prior.sample(n_sbc * draws, rng).reshape(n_sbc, draws, -1)
    span = prior.high - prior.low
    ranks = inference.sbc_ranks(samples, truth)
    test = prior.sample(n_test, rng)
    logq = np.full(n_sbc, -float(np.log(span).sum()))                 # the box prior's log density at every truth
    # C1's ridge baseline, fitted for real on features that carry nothing about θ (500 prior draws, 24 noise features)
    from icmlbook.papers.hh_mea_inference.experiments import RidgeBaseline

    ridge = RidgeBaseline.fit(rng.standard_normal((500, 24)), prior.sample(500, rng), prior.low, prior.high)
    return SimpleNamespace(
        names=prior.names, low=prior.low, high=prior.high, sbc_theta=truth, sbc_samples=samples, sbc_ranks=ranks,
        sbc_p=inference.rank_uniformity_p(ranks, draws), coverage90=inference.coverage(samples, truth, 0.9),
        nrmse=np.sqrt((((samples.mean(1) - truth) / span) ** 2).mean(0)), prior_nrmse=float(np.sqrt(1 / 12)),
        n_spikes=CFG.n_spikes, logq_designed=logq, logq_random=logq.copy(), test_theta=test,
        sbc_ridge=ridge.predict(rng.standard_normal((n_sbc, 24))),
        npe_samples=prior.sample(n_test * 4, rng).reshape(n_test, 4, -1),
        npe_mean=prior.sample(n_test * draws, rng).reshape(n_test, draws, -1).mean(1),
        param_error=lambda th: np.sqrt((((np.asarray(th) - test) / span) ** 2).mean(-1)), npe_val_loss=_untrained(prior))


def _untrained(prior, epochs=50):
    """The NPE guard's curves of a method that trains nothing in NPE's place (the prior, the prior-mean cell, an
    additive model): its held-out −log q is the box prior's log volume at every epoch."""
    return dict.fromkeys(("designed", "random"), np.full(epochs, float(np.log(prior.high - prior.low).sum())))


@claim_case("hh_mea_inference", "C1", "not reproduced", trivial="the prior itself as the posterior")
def _c1_trivial():
    return claims.claim1(_prior_world(), CFG)


@claim_case("hh_mea_inference", "C1c", "not reproduced", trivial="a point estimator on the same features (a ridge "
            "regression, fitted for real) with its estimate reported as the posterior: every sample at it")
def _c1c_trivial():
    """Session 13: the prior itself is calibrated by construction, so it is C1d's trivial method, not C1c's; the
    nearest method without an amortised posterior that a calibration rule must reject is a point estimator."""
    return claims.claim1c(_point_estimate_world(), CFG)


def _point_estimate_world(n_sbc=200, n_train=500, draws=100, seed=0):
    """A ridge regression (experiments.RidgeBaseline, C1's baseline) fitted on 500 prior draws of 24 features linear in
    θ plus noise (features that identify θ), predicting fresh prior cells; its point estimate is the 'posterior' (all
    ``draws`` samples equal to it), on the smoke profile's free parameters."""
    from icmlbook.papers.hh_mea_inference.experiments import RidgeBaseline

    prior = BoxPrior(NAMES)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((len(NAMES), 24))
    feats = lambda th: (th - prior.low) / (prior.high - prior.low) @ W + 0.3 * rng.standard_normal((len(th), 24))
    train = prior.sample(n_train, rng)
    ridge = RidgeBaseline.fit(feats(train), train, prior.low, prior.high)
    truth = prior.sample(n_sbc, rng)
    est = ridge.predict(feats(truth))
    samples = np.repeat(est[:, None], draws, 1)
    ranks = inference.sbc_ranks(samples, truth)
    return SimpleNamespace(names=prior.names, low=prior.low, high=prior.high, sbc_theta=truth, sbc_samples=samples,
                           sbc_ranks=ranks, sbc_p=inference.rank_uniformity_p(ranks, draws),
                           coverage90=inference.coverage(samples, truth, 0.9), prior_nrmse=float(np.sqrt(1 / 12)),
                           sbc_ridge=est, npe_val_loss=_untrained(prior))


@claim_case("hh_mea_inference", "C1d", "not reproduced", trivial="the prior itself as the posterior (calibrated, "
            "uninformative)")
def _c1d_trivial():
    return claims.claim1d(_prior_world(), CFG)


@claim_case("hh_mea_inference", "C2", "not reproduced", trivial="the prior itself as the posterior for both summaries")
def _c2_trivial():
    return claims.claim2(_prior_world(), CFG)


@claim_case("hh_mea_inference", "C3", "not reproduced", trivial="prior draws as NPE's samples, refined for zero steps "
            "(no gradient refinement)")
def _c3_trivial():
    w = _prior_world()
    k = 2
    s = SimpleNamespace(**vars(w))
    s.refined = w.npe_samples[:, :k].copy()                   # zero steps: the starting samples themselves
    s.loss_npe = s.loss_refined = np.full((len(w.test_theta), k), np.nan)   # not simulated; the rule does not read them
    return claims.claim3(s, CFG)


def test_the_prior_as_posterior_is_calibrated_but_fails_the_contraction():
    """Session 13: C1c and C1d together reject both trivial methods; each half rejects one. The prior is calibrated
    (C1c does not say 'not reproduced' on it) and uninformative (C1d: not reproduced); the point estimate is as narrow
    as can be (C1d passes it) and over-confident (C1c: not reproduced)."""
    c = _c1d_trivial()
    assert max(abs(v) for v in c.values["contraction"]) < 0.1 and c.passed is False
    assert c.values["prior_like_ridge_identifies"] == []          # the ridge on features carrying nothing recovers none
    w = _prior_world()
    assert (np.abs(w.coverage90 - 0.9) <= CFG.coverage_tol).all()      # the old rule's coverage half passed it
    cal = claims.claim1c(w, CFG)
    assert cal.passed is not False and all(v is True for v in cal.values["parts"].values())
    point = _point_estimate_world()
    assert claims.claim1d(point, CFG).passed is True
    c = _c1c_trivial()
    assert c.passed is False and (c.values["coverage_interval"][0][1] < 0.8)
    assert c.values["parts"] == {"rank uniformity (chi-squared)": False, "rank spread": False, "90 % coverage": False}
    for world in (w, point):                                             # never both rows reproduced
        assert not (claims.claim1c(world, CFG).passed and claims.claim1d(world, CFG).passed)


# -- rule 11 for C3b-C7 (issue 35): real outputs of the trivial methods on the small cell at smoke sizes ---------------
TINY = dataclasses.replace(CFG, n_test=5, n_patterns=12, n_amplitudes=12, bisect_iters=8, n_spikes_sweep=(1200, 24000))


@functools.lru_cache(maxsize=None)
def _tiny_world(seed=3):
    """Five fresh prior cells of the small model observed with N = 300 (and the sweep's N), stimulated as run_study
    stimulates smoke's test cells (experiments.stimulation_study: 12 patterns, 12 amplitudes, 25 trials): the true
    cell (oracle) and the prior-mean cell placed at the centroid of each EI, also at every N of the sweep."""
    from icmlbook.papers.hh_mea_inference import experiments as ex

    m = small_model()
    rng = np.random.default_rng(seed)
    theta = m.prior.sample(TINY.n_test, rng)
    clean = m.simulate_eis(theta, desc="tiny world")
    obs = inference.noisy(clean, TINY.n_spikes, TINY.sigma_single, rng)
    pm = ex.prior_mean_cells(m, obs)
    sweep = {n: ex.prior_mean_cells(m, inference.noisy(clean, n, TINY.sigma_single, rng))[:, None]
             for n in TINY.n_spikes_sweep}
    stim = ex.stimulation_study(TINY, m, obs, theta, {"oracle": theta[:, None], "prior-mean": pm[:, None]}, sweep, rng)
    return SimpleNamespace(theta=theta, obs=obs, features=m.features_of(obs), **stim)


def test_a_sweep_level_sharing_a_models_samples_reuses_its_thresholds():
    """Session 14: a sweep level whose samples are a model's own (run_study: N = n_spikes is the NPE's) is not searched
    again; its accuracy is that model's, and the threshold search sees each sample once."""
    from icmlbook.papers.hh_mea_inference import experiments as ex

    cfg = dataclasses.replace(TINY, n_test=3, n_patterns=4, bisect_iters=4)
    m = small_model()
    rng = np.random.default_rng(0)
    theta = m.prior.sample(cfg.n_test, rng)
    obs = inference.noisy(m.simulate_eis(theta, desc="tiny"), cfg.n_spikes, cfg.sigma_single, rng)
    pm = ex.prior_mean_cells(m, obs)[:, None]
    other = ex.prior_mean_cells(m, inference.noisy(obs, 24000, cfg.sigma_single, rng))[:, None]
    rows = []
    search = m.thresholds
    m.thresholds = lambda t, w, **kw: rows.append(len(t)) or search(t, w, **kw)
    stim = ex.stimulation_study(cfg, m, obs, theta, {"oracle": theta[:, None], "prior-mean": pm},
                                {cfg.n_spikes: pm, 24000: other}, np.random.default_rng(1))
    singles = cfg.n_test * 2 * cfg.n_stim_electrodes
    assert rows == [3 * cfg.n_test * cfg.n_patterns + singles]          # oracle, prior-mean, the 24000 level: once each
    assert stim["sweep_n"] == (cfg.n_spikes, 24000)
    assert np.array_equal(stim["sweep_accuracy"][0], stim["accuracy"]["prior-mean"])


def _as_main(w, name):
    """A study whose "NPE + refinement" (and every other model the rules read) is model ``name`` of the world."""
    acc = lambda d: {k: d[name] for k in ("oracle", "prior-mean", "NPE", claims.MAIN, "gradient-only",
                                          "linear summation")} | {"oracle": d["oracle"], "prior-mean": d["prior-mean"],
                                                                  "linear summation": d["linear summation"]}
    return SimpleNamespace(accuracy=acc(w.accuracy), balanced_accuracy=acc(w.balanced_accuracy), auc=acc(w.auc),
                           accuracy_mixed=acc(w.accuracy_mixed), accuracy_same=acc(w.accuracy_same), mixed=w.mixed,
                           amplitudes=w.amplitudes, sweep_n=w.sweep_n, sweep_accuracy=w.sweep_accuracy,
                           npe_val_loss=_untrained(small_model().prior))


@claim_case("hh_mea_inference", "C4", "not reproduced", trivial="the prior-mean cell (population average at the EI's "
            "centroid) as the model")
def _c4_trivial():
    return claims.claim4(_as_main(_tiny_world(), "prior-mean"), TINY)


def _additive_exact():
    """Linear summation of the true cell's exact single-electrode thresholds (no trial noise): an additive model as
    good as single-electrode testing can make it, scored on the same measured trials."""
    w = _tiny_world()
    ne = TINY.n_electrodes
    p = np.zeros((len(w.theta),) + w.counts.shape[1:])
    for i in range(len(w.theta)):
        tp, tn = np.full(ne, np.inf), np.full(ne, np.inf)
        tp[w.stim_electrodes[i]], tn[w.stim_electrodes[i]] = w.single_thresholds_true[i, 0], w.single_thresholds_true[i, 1]
        p[i] = st.linear_summation_prob(w.patterns[i], tp, tn, w.amplitudes, TINY.threshold_sigma)
    agree = (p > 0.5) == (w.counts * 2 > TINY.n_trials)
    s = _as_main(w, "oracle")
    s.accuracy_mixed = dict(s.accuracy_mixed, **{claims.MAIN: np.array([a[m].mean() for a, m in zip(agree, w.mixed)])})
    s.accuracy_same = dict(s.accuracy_same, **{claims.MAIN: np.array([a[~m].mean() for a, m in zip(agree, w.mixed)])})
    return s


@claim_case("hh_mea_inference", "C5", "inconclusive at this scale", trivial="an additive model: linear summation of the "
            "true cell's exact single-electrode thresholds in the biophysical model's place")
def _c5_trivial():
    return claims.claim5(_additive_exact(), TINY)


@claim_case("hh_mea_inference", "C6", "inconclusive at this scale", trivial="the prior-mean cell at the centroid of the "
            "EI of every N of the sweep in NPE's place (five cells: its gain over the prior-mean cell, 0, cannot be told "
            "from 0.01)")
def _c6_trivial():
    return claims.claim6(_as_main(_tiny_world(), "prior-mean"), TINY)


@functools.lru_cache(maxsize=None)
def _prior_started_fits(steps=20, k=2, seed=4):
    """C3b's trivial world: the prior in NPE's place. Both arms start from prior draws (k per cell of the tiny world)
    and take smoke's 20 Adam steps on the feature loss of the small model, one cell (k rows) per call; per call the
    wall time of every step."""
    m = small_model()
    rng = np.random.default_rng(seed)
    f = _tiny_world().features
    out = {}
    for arm in ("prior-started", "gradient-only"):
        loss, trace, secs = [], [], []
        for i in range(len(f)):
            s_ = []
            _, _, l1, tr = inference.refine(_loss(), m.prior.sample(k, rng), np.repeat(f[i:i + 1], k, 0), steps, 0.05,
                                            step_seconds=s_)
            loss.append(l1)
            trace.append(tr)
            secs.append(s_)
        out[arm] = (np.array(loss), np.stack(trace, 1), np.array(secs))
    return out


@claim_case("hh_mea_inference", "C3b", "inconclusive at this scale", trivial="the prior in NPE's place: prior draws "
            "refined with the same steps as the random starts")
def _c3b_trivial():
    f = _prior_started_fits()
    (l_ref, tr_ref, _), (l_go, tr_go, _) = f["prior-started"], f["gradient-only"]
    return claims.claim3b(SimpleNamespace(loss_refined=l_ref, loss_trace=tr_ref, loss_gradient_only=l_go.min(1),
                                          loss_trace_gradient_only=tr_go, npe_val_loss=_untrained(small_model().prior)),
                          TINY)


@claim_case("hh_mea_inference", "C7", "inconclusive at this scale", trivial="per-cell gradient fits in NPE's place (no "
            "amortisation), timed in the same interleaved rounds as the fits")
def _c7_trivial():
    f = _prior_started_fits()
    (_, _, s_fit), (_, tr_go, s_go) = f["prior-started"], f["gradient-only"]
    steps = s_go.shape[1]
    # one round per cell: the 'amortised' call is a whole fit of that cell, the fits' block that cell's steps.
    # The per-cell speed limit (speed_s, 1 s) is lifted here: a whole fit's wall time crosses it or not with the
    # machine's load (1.6 s at load 13, session 10), which flipped the verdict between inconclusive and not
    # reproduced; what the trivial method lacks is the amortisation ratio (a fit against a fit, < 10x), and that
    # alone decides the case.
    return claims.claim7(SimpleNamespace(test_theta=np.zeros((1, 5)), seconds_npe_all=tuple(s_fit.sum(1)),
                                         seconds_gradient_only_blocks=tuple(s_go.mean(1) * steps),
                                         seconds_gradient_only_run=float(s_go.sum(1).mean()),
                                         loss_trace_gradient_only=tr_go), dataclasses.replace(TINY, speed_s=1e9))


def _c7_trivial_study(npe_scale=1.0, fit_scale=1.0):
    """The C7 trivial case's study (per-cell fits in NPE's place), with the 'NPE' side's and the fits' wall times
    multiplied by ``npe_scale`` and ``fit_scale`` (a slower or loaded machine)."""
    f = _prior_started_fits()
    (_, _, s_fit), (_, tr_go, s_go) = f["prior-started"], f["gradient-only"]
    steps = s_go.shape[1]
    return SimpleNamespace(test_theta=np.zeros((1, 5)), seconds_npe_all=tuple(npe_scale * s_fit.sum(1)),
                           seconds_gradient_only_blocks=tuple(fit_scale * s_go.mean(1) * steps),
                           seconds_gradient_only_run=float(fit_scale * s_go.sum(1).mean()),
                           loss_trace_gradient_only=tr_go)


@pytest.mark.parametrize("npe_scale,fit_scale", [(1, 1), (3, 3), (30, 30), (3, 1), (1, 3)])
def test_c7_trivial_never_passes_on_a_slow_or_loaded_machine(npe_scale, fit_scale):
    """Session 11 (an outside review of the session-10 change that lifts speed_s in the trivial case): the trivial
    method's real timings, on a machine 3 or 30 times slower, or with load on one side only, never pass the rule with
    its declared speed limit (1 s per cell: a whole fit crosses it with the load, so the verdict may move between
    inconclusive and not reproduced, never to reproduced), and with the limit lifted its verdict does not move at
    all (the ratio, a fit against a fit, stays below 10x)."""
    st = _c7_trivial_study(npe_scale, fit_scale)
    real = claims.claim7(st, TINY)
    assert real.passed is not True and real.values["ratio"] < 10
    lifted = claims.claim7(st, dataclasses.replace(TINY, speed_s=1e9))
    assert lifted.verdict == _c7_trivial().verdict


@pytest.mark.parametrize("scale", [1, 10, 100])
def test_c7_reproduced_survives_a_uniformly_slower_machine(scale):
    """C7's ratio is of two sides timed in the same interleaved rounds, so a uniformly slower machine leaves it as it
    is; the speed limit (1 s per cell) is 500 times the default run's NPE time (2.0 ms per cell, its record)."""
    st = fake_study(t_npe=0.002, t_go=2.0)
    st.seconds_npe_all = tuple(scale * np.asarray(st.seconds_npe_all))
    st.seconds_gradient_only_blocks = tuple(scale * np.asarray(st.seconds_gradient_only_blocks))
    c = claims.claim7(st, CFG)
    assert c.passed is True and c.values["ratio"] == pytest.approx(1000)


def test_trivial_worlds_are_what_they_claim():
    w = _tiny_world()
    assert set(w.accuracy) == {"oracle", "prior-mean", "linear summation"} and w.sweep_accuracy.shape == (2, 5)
    assert w.accuracy["oracle"].mean() > w.accuracy["prior-mean"].mean()        # the true cell predicts its own trials
    c4 = _c4_trivial()
    assert c4.values["accuracy"] == pytest.approx(w.accuracy["prior-mean"].mean())
    # the trivial methods' verdicts (the contract test checks them too): none passes
    assert _c4_trivial().passed is False
    assert _c5_trivial().inconclusive == "interval spans both" and _c6_trivial().inconclusive == "interval spans both"
    assert _c6_trivial().values["over_prior_mean_lo"] < CFG.min_acc_gain
    assert _c3b_trivial().inconclusive == "not converged"
    c7 = _c7_trivial()
    assert c7.values["ratio"] < 10                                 # a fit against a fit: no amortisation (100x asked)


# -- issue 35: the NPE artefact (C1, C4), the fits' convergence (C3b, C7) ------------------------------------------
def _height_world(ridge_height_sd, n_sbc=100, seed=7):
    """SBC cells in the unit box; NPE's posterior mean within 0.05 of every parameter but the height, which it puts at
    the prior mean (RMSE 0.29: the audit's artefact); the ridge regression within 0.05, its height within
    ``ridge_height_sd``."""
    rng = np.random.default_rng(seed)
    theta = rng.random((n_sbc, 5))
    post_mean = theta + 0.05 * rng.standard_normal(theta.shape)
    post_mean[:, 2] = 0.5
    ridge = theta + 0.05 * rng.standard_normal(theta.shape)
    ridge[:, 2] = theta[:, 2] + ridge_height_sd * rng.standard_normal(n_sbc)
    s = fake_study(n_sbc=n_sbc)
    s.sbc_theta, s.sbc_samples, s.sbc_ridge = theta, post_mean[:, None] + 0.01 * rng.standard_normal((n_sbc, 20, 5)), ridge
    s.nrmse = np.sqrt(((s.sbc_samples.mean(1) - theta) ** 2).mean(0))
    return s


@claim_case("hh_mea_inference", "C1", "inconclusive at this scale")
def _c1_npe_artefact():
    """The audit's finding: NPE misses the height (0.29), a ridge regression on the same features halves it (0.14)."""
    return claims.claim1(_height_world(0.14), CFG)


@claim_case("hh_mea_inference", "C1", "reproduced")
def _c1_ridge_recovers():
    """NPE misses the height, a ridge regression on the same features recovers it within 0.1: identifiable."""
    return claims.claim1(_height_world(0.05), CFG)


@claim_case("hh_mea_inference", "C1", "not reproduced", alternative="the height missed by NPE and by the ridge "
            "regression alike (both at the prior's error)")
def _c1_both_miss():
    s = _height_world(0.14)
    s.sbc_ridge[:, 2] = 0.5 + 0.005 * np.random.default_rng(1).standard_normal(len(s.sbc_theta))
    return claims.claim1(s, CFG)


def test_claim1_tells_the_npe_artefact_from_non_identifiability():
    a = _c1_npe_artefact()
    assert a.inconclusive == "not converged" and a.values["ridge_beats_npe"] == ["height"]
    assert 0.1 < a.values["nrmse_ridge"]["height"] < 0.2 and a.values["nrmse"]["height"] > 0.25
    assert _c1_ridge_recovers().passed is True and _c1_both_miss().passed is False


@claim_case("hh_mea_inference", "C3b", "inconclusive at this scale")
def _c3b_still_descending():
    """Random starts 3x worse at the end of the budget but still descending (their log loss falls 0.3 over the last
    third of the steps): 'stuck' is not shown."""
    s = fake_study(loss_ratio=0.3)
    s.loss_trace_gradient_only = s.loss_gradient_only[None, :, None] * np.exp(0.02 * (40 - np.arange(41)))[:, None, None]
    return claims.claim3b(s, CFG)


def test_claim3b_needs_both_fits_converged():
    c = _c3b_still_descending()
    assert c.inconclusive == "not converged" and c.values["converged"] == {"NPE-started fits": True,
                                                                           "random-start fits": False}
    assert _c3b_ok().passed is True and _c3b_ok().values["converged"]["random-start fits"] is True


@claim_case("hh_mea_inference", "C4", "inconclusive at this scale")
def _c4_npe_artefact():
    """NPE + refinement 0.06 below the oracle while the ridge regression's cell is within 0.02 of it."""
    s = fake_study(acc=0.89, oracle=0.95, pm=0.80)
    s.accuracy = dict(s.accuracy, **{claims.RIDGE: s.accuracy["oracle"] - 0.02})
    return claims.claim4(s, CFG)


def test_claim4_miss_is_evidence_only_when_the_ridge_cell_does_not_do_better():
    assert _c4_npe_artefact().inconclusive == "not converged"
    s = fake_study(acc=0.86, oracle=0.95, pm=0.80)           # 0.09 below the oracle, the ridge cell no better
    s.accuracy = dict(s.accuracy, **{claims.RIDGE: s.accuracy[claims.MAIN] - 0.01})
    assert claims.claim4(s, CFG).passed is False
    s.accuracy = dict(s.accuracy, oracle=s.accuracy[claims.MAIN] + 0.05 + 0.02 * np.r_[1, -1, 1, -1, 1, -1, 1, -1])
    assert claims.claim4(s, CFG).inconclusive == "interval spans both"          # a gap of 0.05 +- 0.02: undecided


def test_claim7_charges_the_steps_the_fits_need_not_the_budget():
    """Converged fits given four times the steps they need: the ratio does not grow with the budget."""
    a = fake_study(t_npe=0.01, t_go=2.0)
    b = fake_study(t_npe=0.01, t_go=2.0)
    b.loss_trace_gradient_only = np.concatenate([b.loss_trace_gradient_only,
                                                 np.repeat(b.loss_trace_gradient_only[-1:], 120, 0)])
    b.seconds_gradient_only_blocks = tuple(4 * np.asarray(b.seconds_gradient_only_blocks))  # 160 steps' time
    ca, cb = claims.claim7(a, CFG), claims.claim7(b, CFG)
    assert ca.values["steps_charged"] == cb.values["steps_charged"] == 20
    assert cb.values["ratio"] == pytest.approx(ca.values["ratio"])
    slow = fake_study(t_npe=0.2, t_go=2.0)                  # 10x on a budget the fits had not finished: a lower bound
    slow.loss_trace_gradient_only = slow.loss_trace_gradient_only * np.exp(0.02 * (40 - np.arange(41)))[:, None, None]
    assert claims.claim7(slow, CFG).inconclusive == "not converged"


# -- session 9 (issue 35): C1's errors and C4's target as intervals ---------------------------------------------------
@claim_case("hh_mea_inference", "C1", "inconclusive at this scale")
def _c1_interval_spans():
    """Twelve SBC cells with errors of RMSE 0.09 (the point below 0.1, its bootstrap interval across it): passed as a
    point before session 9."""
    return claims.claim1(fake_study(nrmse=0.09, n_sbc=12), CFG)


def test_claim1_decides_on_the_rmse_interval():
    c = _c1_interval_spans()
    lo, hi = c.values["nrmse_interval"]["height"]
    assert c.values["nrmse"]["height"] == pytest.approx(0.09, abs=0.005) and lo < CFG.geom_nrmse < hi
    assert c.inconclusive == "interval spans both" and "height" in c.values["undecided"]
    # the same errors on many cells: the interval closes below 0.1
    assert claims.claim1(fake_study(nrmse=0.06, n_sbc=200), CFG).passed is True
    # and the interval is the bootstrap's over the cells, as scipy computes it
    from scipy import stats as sst

    e = np.random.default_rng(5).standard_normal(30) * 0.1
    b = claims.rmse_interval(e)
    ref = sst.bootstrap((e,), lambda x, axis=-1: np.sqrt((x ** 2).mean(axis)), n_resamples=claims.RMSE_BOOT,
                        method="percentile", rng=np.random.default_rng(claims.RMSE_SEED), vectorized=True)
    assert b.estimate == pytest.approx(np.sqrt((e ** 2).mean()))
    assert (b.lo, b.hi) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))


@claim_case("hh_mea_inference", "C4", "not reproduced", alternative="accuracy well below the target with the oracle "
            "close and the prior-mean cell far below (0.78 against 0.85)")
def _c4_below_target():
    return claims.claim4(fake_study(acc=0.78, oracle=0.80, pm=0.65), CFG)


@claim_case("hh_mea_inference", "C4", "inconclusive at this scale")
def _c4_target_spans():
    """Accuracy 0.87 ± 0.06 over eight cells: the mean above 0.85 (passed before session 9), the interval across it."""
    s = fake_study(acc=0.87, oracle=0.90, pm=0.70)
    wobble = 0.06 * np.r_[1, -1, 1, -1, 1, -1, 1, -1]
    s.accuracy = dict(s.accuracy, **{claims.MAIN: s.accuracy[claims.MAIN] + wobble,
                                     "oracle": s.accuracy["oracle"] + wobble})
    return claims.claim4(s, CFG)


def test_claim4_target_is_an_interval():
    c = _c4_target_spans()
    lo, hi = c.values["accuracy_interval"]
    assert c.values["accuracy"] > CFG.acc_target and lo < CFG.acc_target < hi
    assert c.inconclusive == "interval spans both"
    b = _c4_below_target()
    assert b.passed is False and b.values["accuracy_interval"][1] < CFG.acc_target
    assert _c4_ok().values["accuracy_interval"][0] > CFG.acc_target


# -- session 9 (issue 35): C6 compares a few minutes of recording with a long one, not 30 spikes with 3000 ----------------
@claim_case("hh_mea_inference", "C6", "reproduced")
def _c6_seconds_collapse():
    """Accuracy collapses from 3 s of recording (30 spikes: 0.75) but two minutes are within 0.01 of forty: what the
    abstract claims holds; the former rule (fewest against most) failed this world."""
    return claims.claim6(fake_study(sweep=(0.75, 0.92, 0.93)), CFG)


def test_claim6_reads_a_few_minutes_against_a_long_recording():
    c = _c6_seconds_collapse()
    assert (c.values["n_few"], c.values["n_long"]) == (CFG.spikes_in(2), CFG.spikes_in(40)) == (1200, 24000)
    assert c.values["fewest_minus_long"] < -0.15 and "3 s" in c.measured and "2 min" in c.measured
    # a sweep without the few-minutes point cannot decide the row: not testable at this profile, with the reason
    st = fake_study(sweep=(0.90, 0.92, 0.93))
    st.sweep_n = (30, 300, 3000)
    out = claims.claim6(st, CFG)
    assert out.verdict == "not testable at this profile" and "N = 1200 (2 min)" in out.reason
    # the lengths are the config's: a faster cell puts two minutes at another spike count
    fast = dataclasses.replace(CFG, firing_rate_hz=20.0)
    assert fast.spikes_in(2) == 2400 and claims.claim6(fake_study(), fast).passed is None
    with pytest.raises(ValueError, match="few_minutes"):
        dataclasses.replace(CFG, few_minutes=50.0)


@pytest.mark.slow
def test_claim1c_verdict_frequencies_on_the_gaussian_toy():
    """The outside review's table (session 11), 40 seeds at 100 cells: a posterior 1.15× too wide was 'not reproduced'
    16 times and 0.9× 10 times before the width tolerance; now neither is (both inconclusive), while 2.5× is always
    and 1.5× mostly 'not reproduced' (25 of 40 when measured), and a calibrated posterior is never."""
    def count(w, n=100):
        return [claims.claim1c(_gaussian_sbc(w, n, seed=s), CFG).passed for s in range(40)]
    for w in (1.0, 1.15, 0.9):
        assert count(w).count(False) <= 1
    assert count(2.5).count(False) == 40 and count(1.5).count(False) >= 15
    assert count(1.0, 400).count(True) >= 36


@pytest.mark.slow
def test_the_cells_the_page_says_c1c_needs():
    """The page: the tolerance-aware spread test has power about 1 in 6 against a posterior 1.5× too wide at default's
    100 SBC cells (200 samples, nine parameters) and reaches sbc_power from about 300 cells; full's 500 suffice."""
    d, f = config_for("default"), config_for("full")
    level = d.sbc_alpha / len(d.free)
    power = lambda n, c: inference.tolerance_power(n, c.sbc_samples, c.sbc_wide, c.sbc_width_tol, level)
    assert 0.08 < power(d.n_sbc, d) < 0.25
    assert 0.7 < power(300, d) < 0.9 and power(250, d) < d.sbc_power < power(350, d)
    assert power(f.n_sbc, f) >= f.sbc_power
