"""Benchmarks of the hh_mea_inference chapter: a vmapped Jaxley batch of 1,000 HH cables against NEURON run one
simulation at a time on the same cable (target >= 2x; float64 both), and amortised NPE inference per cell
against a gradient-only fit per cell through the simulator (target >= 100x)."""

from __future__ import annotations

import time

import numpy as np

from .common import BenchResult, best_time

N_COMP, LENGTH, DIAM, RA, DT, T_MAX = 100, 1000.0, 2.0, 100.0, 0.005, 1.5


def _jaxley_batch(n: int):
    import jax
    import jax.numpy as jnp
    import jaxley as jx
    from jaxley.channels import HH

    jax.config.update("jax_enable_x64", True)
    cell = jx.Cell(jx.Branch(jx.Compartment(), ncomp=N_COMP), parents=[-1])
    cell.insert(HH())
    cell.set("length", LENGTH / N_COMP)
    cell.set("radius", DIAM / 2)
    cell.set("axial_resistivity", RA)
    cell.set("v", -65.0)
    cell.init_states()
    cell.record("v", verbose=False)
    steps = int(round(T_MAX / DT))
    stim = jnp.zeros((N_COMP, steps)).at[0, :20].set(1.0)

    def one(gna):
        ps = cell.data_set("HH_gNa", gna, None)
        return jx.integrate(cell, param_state=ps, data_stimuli=cell.branch(0).data_stimulate(stim), delta_t=DT,
                            t_max=(steps - 0.5) * DT)[-1]

    f = jax.jit(jax.vmap(one))
    g = jnp.linspace(0.1, 0.14, n)
    f(g).block_until_ready()
    return lambda: f(g).block_until_ready()


def _neuron_one():
    from neuron import h

    h.load_file("stdrun.hoc")
    sec = h.Section(name="bench")
    sec.L, sec.diam, sec.Ra, sec.nseg = LENGTH, DIAM, RA, N_COMP
    sec.insert("hh")
    h.celsius = 6.3
    stim = h.IClamp(sec(0.5 / N_COMP))
    stim.delay, stim.dur, stim.amp = 0.0, 0.1, 1.0
    rec = h.Vector().record(sec(1 - 0.5 / N_COMP)._ref_v)
    h.dt = DT

    def run(gna=0.12):
        for seg in sec:
            seg.hh.gnabar = gna
        h.finitialize(-65.0)
        h.continuerun(T_MAX)
        return rec.max()

    return run, stim


def bench_jaxley_batch_vs_neuron() -> BenchResult:
    n = 1000
    jx_run = _jaxley_batch(n)
    t_jx = best_time(jx_run, repeat=2)
    nrn, _keep = _neuron_one()
    t0 = time.perf_counter()
    for g in np.linspace(0.1, 0.14, 50):
        nrn(float(g))
    t_nrn = (time.perf_counter() - t0) / 50 * n
    return BenchResult(f"HH cable ({N_COMP} compartments, {T_MAX} ms at {DT * 1000:g} µs), {n} parameter sets: "
                       "Jaxley vmap", t_jx, t_nrn, "NEURON, one at a time (50 timed, scaled)", ">= 2x faster",
                       t_nrn / t_jx >= 2)


def bench_amortised_vs_gradient_fit() -> BenchResult:
    from icmlbook.papers.hh_mea_inference import config_for
    from icmlbook.papers.hh_mea_inference.experiments import build_model
    from icmlbook.papers.hh_mea_inference.inference import FeatureLoss, noisy, refine, train_npe

    cfg = config_for("smoke")
    fit = config_for("default")          # the gradient-only baseline's starts and steps as in the default profile
    m = build_model(cfg)
    rng = np.random.default_rng(0)
    th = m.prior.sample(600, rng)
    n = np.full(len(th), 300.0)
    x = np.concatenate([m.features_of(noisy(m.simulate_eis(th), n, cfg.sigma_single, rng)), np.log10(n)[:, None]], 1)
    post = train_npe(th[:500], x[:500], m.prior.low, m.prior.high, cfg.flow, 20, 200, 0)
    t_npe = best_time(lambda: post.sample(x[500:501], cfg.n_post, 0), repeat=3)
    loss = FeatureLoss(m, x[:500, :-1].std(0), cfg.sigma_single / np.sqrt(300))
    f_obs = x[500:501, :-1]
    starts = m.prior.sample(fit.refine_samples, rng)
    f_rep = np.repeat(f_obs, fit.refine_samples, 0)
    refine(loss, starts, f_rep, 1, fit.refine_lr)                       # compile
    t_fit = best_time(lambda: refine(loss, starts, f_rep, fit.refine_steps, fit.refine_lr), repeat=1)
    return BenchResult(f"posterior for one cell ({cfg.n_post} samples, amortised NPE, smoke array)", t_npe, t_fit,
                       f"gradient-only fit of one cell ({fit.refine_samples} starts x {fit.refine_steps} steps)",
                       ">= 100x faster", t_fit / t_npe >= 100)
