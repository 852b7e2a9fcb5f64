"""The chapter's experiments: train (cached by the notebook), quantise, record, compensate, measure.

:func:`study` returns plain arrays and numbers only, so the whole study caches with ``run.cached``.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch

from ...runtime.device import cpu_threads, pick_device
from ...runtime.progress import progress
from . import metrics as ME
from . import propagation as P
from . import quant as Q
from . import schedules as S
from . import tcec as TC
from .config import TCECConfig, parse_bits
from ...training import PlateauTest
from .models import load_data, make_model, train_denoiser

__all__ = ["training_curve", "snapshot_step", "compared_gain", "metric_curve", "early_model", "early_theory",
           "early_closed", "train", "train_flow", "train_dit", "dit_config", "load_model", "study", "solver_study", "dit_study", "calibration_inputs", "best_lambda",
           "sampler_coefficients", "cell_key", "playground"]


def snapshot_step(steps: int) -> int:
    """The earlier horizon of the compared-metric guard: T / (1 + extend) updates of the same run (extend 50 %, the
    declared plateau test), so that training from there to T is training 50 % longer."""
    return max(1, min(steps - 1, round(steps / (1.0 + PlateauTest().extend))))


def train(cfg: TCECConfig, seed: int) -> dict:
    ab = S.alphas_bar(cfg.T)
    return train_denoiser(cfg.dataset, cfg.width, cfg.train_steps, cfg.batch, cfg.lr, ab, seed,
                          snapshot_at=snapshot_step(cfg.train_steps))


def train_flow(cfg: TCECConfig, seed: int) -> dict:
    """The same architecture trained on the rectified-flow objective (velocity prediction), for flow Euler."""
    ab = S.alphas_bar(cfg.T)
    return train_denoiser(cfg.dataset, cfg.width, cfg.flow_train_steps, cfg.batch, cfg.lr, ab, seed + 11,
                          objective="flow", snapshot_at=snapshot_step(cfg.flow_train_steps))


def dit_config(cfg: TCECConfig) -> TCECConfig:
    """The config the DiT cells run under: the digits, whatever the profile's main dataset."""
    return dataclasses.replace(cfg, dataset="digits")


def train_dit(cfg: TCECConfig, seed: int) -> dict:
    """The tiny DiT (ε-prediction) on the digits, through the shared trainer."""
    ab = S.alphas_bar(cfg.T)
    return train_denoiser("digits", cfg.dit_width, cfg.dit_train_steps, cfg.batch, cfg.lr, ab, seed + 23, arch="dit",
                          snapshot_at=snapshot_step(cfg.dit_train_steps), depth=cfg.dit_depth, heads=cfg.dit_heads,
                          patch=2)


def load_model(cfg: TCECConfig, trained: dict, device: str = "auto") -> torch.nn.Module:
    """The trained denoiser, in eval mode, on ``device`` (CUDA when present with "auto"); the architecture is
    the one recorded by the training run (the config's default one for older records)."""
    dataset = "digits" if trained.get("arch") == "dit" else cfg.dataset
    m = make_model(dataset, trained.get("width", cfg.width), trained.get("arch", "auto"), **trained.get("arch_kw", {}))
    m.load_state_dict(trained["state"])
    return m.eval().to(pick_device(device))


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def training_curve(trained: dict) -> dict:
    """The logged training loss of a trained denoiser, ``{"steps", "loss"}`` (plain arrays): what the claims'
    convergence guard reads."""
    st, lv = trained["loss"]
    return {"steps": np.asarray(st, dtype=float), "loss": np.asarray(lv, dtype=float)}


def _device(model: torch.nn.Module) -> torch.device:
    return next(model.parameters()).device


def sampler_coefficients(cfg: TCECConfig, steps: int, solver: str | None = None) -> S.Coefficients:
    """``(timesteps, a, b, c, d)`` of ``solver`` (the config's main solver by default)."""
    return S.solver_coefficients(solver or cfg.solver, cfg.T, steps)


def _noise(cfg: TCECConfig, n: int, seed: int, device=None) -> torch.Tensor:
    """Initial noise of ``n`` seeds, drawn on the CPU (the same numbers on every device), then moved."""
    shape = (2,) if cfg.dataset == "ring" else (1, 8, 8)
    return torch.randn((n, *shape), generator=torch.Generator().manual_seed(seed)).to(device or "cpu")


def calibration_inputs(cfg: TCECConfig, seed: int, n: int = 512, device=None):
    """Noised training data at random timesteps: the inputs for SVDQuant-lite's smoothing statistics."""
    g = torch.Generator().manual_seed(seed + 7)
    x0 = load_data(cfg.dataset, seed=seed)
    x0 = x0[torch.randint(0, len(x0), (n,), generator=g)]
    t = torch.randint(0, cfg.T, (n,), generator=g)
    s = torch.tensor(S.alphas_bar(cfg.T), dtype=torch.float32)[t].view(-1, *([1] * (x0.dim() - 1)))
    x = s.sqrt() * x0 + (1 - s).sqrt() * torch.randn(x0.shape, generator=g)
    return x.to(device or "cpu"), t.to(device or "cpu")


def _memo_tcec(memo: dict | None, tag: str, q, x0, ts, a, b, K, m, lam, c, d, R=None, keep: bool = False) -> torch.Tensor:
    """TCEC samples shared across windows: with λ₁ = 0 every window is the per-step rule (the same operations),
    so those runs are made once per noise set ``tag``. With ``keep`` every state is returned (and kept)."""
    if memo is None:
        return TC.tcec_sample(q, x0, ts, a, b, K, m, lam, c, d, R, keep=keep)
    key = (tag, 0 if float(lam) == 0 else m, float(lam), keep)
    if key not in memo:
        memo[key] = TC.tcec_sample(q, x0, ts, a, b, K, m, lam, c, d, R, keep=keep)
    return memo[key]


def best_lambda(q, xc, ts, a, b, K, m, x_ref, grid, c=None, d=None, memo: dict | None = None,
                R: torch.Tensor | None = None) -> tuple[float, dict]:
    """λ₁ from ``grid`` minimising the mean squared distance to the FP outputs of the calibration seeds (``R``: the
    residual slopes of :func:`~icmlbook.papers.diffusion_ptq_compensation.tcec.fit_R`, needed for λ₁ > 0)."""
    scores = {}
    for lam in grid:
        x = _memo_tcec(memo, "cal", q, xc, ts, a, b, K, m, lam, c, d, R)
        err = (x - x_ref).reshape(x.shape[0], -1).pow(2).sum(1).mean().item()
        scores[float(lam)] = err if np.isfinite(err) else float("inf")
    return min(scores, key=scores.get), scores


def compared_gain(cfg: TCECConfig, fp, bits: str, steps: int, xT, xc, seed: int, solver: str | None = None
                  ) -> np.ndarray:
    """Per-seed PSNR gain (dB) of TCEC (m = 1) over the uncompensated base on the RTN-quantised ``fp``: the rows'
    compared metric, computed as :func:`_cell` computes it (the same fits, λ₁ search and evaluation run), without the
    baselines and distances a cell also measures. The convergence guard reads it at two horizons."""
    co = sampler_coefficients(cfg, steps, solver)
    ts, a, b, c, d = co
    q = _quantised(cfg, fp, bits, "rtn", seed)
    rec = P.record(fp, q, xT, *co)
    rc = P.record(fp, q, xc, *co)
    K = TC.fit_K(rc, cfg.delta_on)
    R = TC.fit_R(q, fp, xc, ts, a, b, K, c, d)
    memo: dict = {}
    lam, _ = best_lambda(q, xc, ts, a, b, K, 1, rc.x_fp[-1], cfg.lambda_grid, c=c, d=d, memo=memo, R=R)
    x = _memo_tcec(memo, "eval", q, xT, ts, a, b, K, 1, lam, c, d, R, keep=True)[-1]
    rng_ = ME.DATA_RANGE[cfg.dataset]
    return ME.psnr(x, rec.x_fp[-1], rng_) - ME.psnr(rec.x_q[-1], rec.x_fp[-1], rng_)


def metric_curve(cfg: TCECConfig, trained: dict, end_cell: dict, bits: str, steps: int, xT, xc, seed: int,
                 solver: str | None = None) -> dict:
    """The compared metric at two horizons of one training run, for the convergence guard (session 11): the mean
    TCEC gain at ``bits`` of the weights after ``trained["early_step"]`` updates (recomputed here) and of the final
    weights (read from the study's own cell ``end_cell``). ``{"steps": [early, T], "gain": [early, end], "bits",
    "solver"}`` (plain numbers, so it caches)."""
    early = compared_gain(cfg, early_model(cfg, trained), bits, steps, xT, xc, seed, solver)
    end = end_cell["psnr"]["tcec_m1"] - end_cell["psnr"]["base"]
    return {"steps": _horizons(trained), "gain": [float(np.mean(early)),
            float(np.mean(end))], "bits": bits, "solver": solver or cfg.solver}


def early_model(cfg: TCECConfig, trained: dict) -> torch.nn.Module:
    """The weights of ``trained`` after 2/3 of its updates (``early_state``), loaded as :func:`load_model` loads the
    final ones: the earlier horizon of the convergence guards."""
    if "early_state" not in trained:
        raise ValueError("the trained model holds no early snapshot ('early_state'): train it with snapshot_at, for the "
                         "convergence guard at two horizons")
    return load_model(cfg, {**trained, "state": trained["early_state"]})


def _horizons(trained: dict) -> list[float]:
    st, _ = trained["loss"]
    return [float(trained["early_step"]), float(np.max(st))]


def early_theory(cfg: TCECConfig, trained: dict, xT: torch.Tensor, seed: int) -> dict:
    """What the theory rows (C1, C1b, C2, C2q, C3, C4) read, recomputed on the weights after 2/3 of the updates
    (session 12, issue 35): per bit width on the RTN base, the main step count's record (the same evaluation seeds
    ``xT``, the same quantiser and seed) through :func:`_theory` and its error curve, and the uncompensated final PSNR
    against FP at the fewest and the most steps. Shaped like the part of :func:`study`'s result those rows read
    (``cells`` with ``err_curve`` and ``psnr["base"]``, ``theory``), with ``steps``: [early, final] updates."""
    fp = early_model(cfg, trained)
    main, few = cfg.steps[-1], cfg.steps[0]
    rng_ = ME.DATA_RANGE[cfg.dataset]
    co_main = sampler_coefficients(cfg, main)
    ts_f, a_f, b_f, _, _ = sampler_coefficients(cfg, few)
    cells, theory, fp_traj, x_fp_few = {}, {}, None, None
    for bits in cfg.bits:
        q = _quantised(cfg, fp, bits, "rtn", seed)
        rec = P.record(fp, q, xT, *co_main, fp_traj=fp_traj)
        fp_traj = (rec.x_fp, rec.eps_fp)                      # the FP trajectory does not depend on the quantiser
        with torch.enable_grad():
            theory[bits] = _theory(cfg, fp, rec, co_main[:3])
        if x_fp_few is None:
            x_fp_few = P.sample(fp, xT, ts_f, a_f, b_f)
        cells[cell_key(bits, main, "rtn")] = {"err_curve": _np(P.step_norms(rec.error).mean(1)),
                                              "psnr": {"base": ME.psnr(rec.x_q[-1], rec.x_fp[-1], rng_)}}
        cells[cell_key(bits, few, "rtn")] = {"psnr": {"base": ME.psnr(P.sample(q, xT, ts_f, a_f, b_f), x_fp_few, rng_)}}
    return {"steps": _horizons(trained), "cells": cells, "theory": theory}


def early_closed(cfg: TCECConfig, jobs, models: dict, xT: torch.Tensor, seed: int) -> dict:
    """C2b's closed-form fits (:func:`_closed_form_fit`) recomputed on the weights after 2/3 of the updates: ``jobs``
    the (solver, bits) pairs of :func:`solver_study`, ``models`` the trained run per prediction type ("eps",
    "velocity"). ``{"closed": {key: fit}, "steps": {key: [early, final] updates}}``."""
    main = cfg.steps[-1]
    early = {k: early_model(cfg, t) for k, t in models.items() if t is not None}
    closed, steps = {}, {}
    for solver, bits in jobs:
        kind = S.PREDICTION[solver]
        co = sampler_coefficients(cfg, main, solver)
        q = _quantised(cfg, early[kind], bits, "rtn", seed)
        key = cell_key(bits, main, "rtn", solver)
        closed[key] = _closed_form_fit(P.record(early[kind], q, xT, *co), co)
        steps[key] = _horizons(models[kind])
    return {"closed": closed, "steps": steps}


def cell_key(bits: str, steps: int, base: str, solver: str | None = None) -> str:
    """``bits/steps/base`` for the main solver, ``bits/steps/base/solver`` for the others."""
    return f"{bits}/{steps}/{base}" + (f"/{solver}" if solver else "")


def _cell(cfg, fp, q, steps, xT, xc, feats, real_feats, solver: str | None = None, shared: dict | None = None) -> dict:
    """One quantised sampler (bits × steps × base × solver): records, fits, every compensation and baseline, measured
    against FP. ``shared``: a dict kept across the cells of one FP model and noise sets, holding what does not depend
    on the quantised model (the FP trajectories of the evaluation and calibration seeds, and QNCD's FP control), so
    it is computed once per step count and solver (session 9: the same numbers, fewer network calls)."""
    co = sampler_coefficients(cfg, steps, solver)
    ts, a, b, c, d = co
    two = dict(c=c, d=d)
    shared = {} if shared is None else shared
    fkey = (steps, solver or cfg.solver)
    rec = P.record(fp, q, xT, *co, fp_traj=shared.get(("fp_eval",) + fkey))
    rc = P.record(fp, q, xc, *co, fp_traj=shared.get(("fp_cal",) + fkey))
    shared[("fp_eval",) + fkey] = (rec.x_fp, rec.eps_fp)
    shared[("fp_cal",) + fkey] = (rc.x_fp, rc.eps_fp)
    K = TC.fit_K(rc, cfg.delta_on)
    R = TC.fit_R(q, fp, xc, ts, a, b, K, c, d)
    k_ptqd = TC.fit_ptqd(rc)
    x_fp = rec.x_fp[-1]
    rng_ = ME.DATA_RANGE[cfg.dataset]
    out: dict = {"K": _np(K), "R": _np(R)}
    memo: dict = {}
    outs = {"base": rec.x_q[-1], "tcec_m0": _memo_tcec(memo, "eval", q, xT, ts, a, b, K, 0, 0.0, c, d, keep=True)[-1]}
    lam, traj = {}, {}
    for name, m in (("tcec_m1", 1), ("tcec_full", None)):
        lam[name], _ = best_lambda(q, xc, ts, a, b, K, m, rc.x_fp[-1], cfg.lambda_grid, **two, memo=memo, R=R)
        traj[name] = _memo_tcec(memo, "eval", q, xT, ts, a, b, K, m, lam[name], c, d, R, keep=True)
        outs[name] = traj[name][-1]
    outs["oracle"] = TC.oracle_sample(q, fp, xT, ts, a, b, **two)
    outs["ptqd"] = TC.ptqd_sample(q, xT, ts, a, b, k_ptqd, **two)
    k_tac = TC.fit_tac_ner(rc, cfg.delta_on, cfg.tac_mask_quantile)
    beta = TC.calibrate_tac_ibc(q, xc, rc.x_fp, ts, a, b, k_tac, **two)
    outs["tac"] = TC.tac_sample(q, xT, ts, a, b, k_tac, beta, **two)
    out["qncd_fp_psnr"] = None
    if S.PREDICTION[solver or cfg.solver] == "eps":               # QNCD's back-diffusion needs the DDPM schedule
        outs["qncd"] = TC.qncd_sample(q, xT, ts, a, b, S.alphas_bar(cfg.T), cfg.qncd_interval, 0, **two)
        # control: QNCD run on the FP model itself (an unbiased estimator leaves it in place); it does not depend on
        # the quantised model, so it runs once per step count and solver
        if ("qncd_fp",) + fkey not in shared:
            qncd_fp = TC.qncd_sample(fp, xT, ts, a, b, S.alphas_bar(cfg.T), cfg.qncd_interval, 0, **two)
            shared[("qncd_fp",) + fkey] = ME.psnr(qncd_fp, x_fp, rng_)
        out["qncd_fp_psnr"] = shared[("qncd_fp",) + fkey]
    out["psnr"] = {k: ME.psnr(v, x_fp, rng_) for k, v in outs.items()}
    out["lambda"] = lam
    out["fd"] = {k: ME.frechet_distance(feats(v), real_feats) for k, v in
                 (("fp", x_fp), ("base", outs["base"]), ("tcec_m1", outs["tcec_m1"]))}
    out["err_curve"] = _np(P.step_norms(rec.error).mean(1))
    out["err_curve_tcec"] = _np(P.step_norms(traj["tcec_m1"] - rec.x_fp).mean(1))   # the evaluation run's own states
    return out, rec, (ts, a, b), outs


def _recalibrated(cfg, fp, q, steps, xT, x_fp, seed: int, shared: dict | None = None) -> dict:
    """TCEC (m = 1) calibrated again on ``cfg.cal_repeats - 1`` further calibration sets (fresh noise, disjoint from
    the evaluation seeds and from the study's own calibration seeds): K refitted and λ₁ chosen on each, then the
    same evaluation seeds sampled. Per-seed PSNR against ``x_fp`` per calibration, so C5 can ask for the gain on
    every calibration (the randomness the one-calibration interval leaves out)."""
    ts, a, b, c, d = sampler_coefficients(cfg, steps)
    rng_ = ME.DATA_RANGE[cfg.dataset]
    psnrs, lams = [], []
    for r in range(1, cfg.cal_repeats):
        xc = _noise(cfg, cfg.n_cal, seed + 2000 + 97 * r, xT.device)
        key = ("fp_recal", r, steps)                  # the same calibration noise for every bit width
        rc = P.record(fp, q, xc, ts, a, b, c, d, fp_traj=None if shared is None else shared.get(key))
        if shared is not None:
            shared[key] = (rc.x_fp, rc.eps_fp)
        K = TC.fit_K(rc, cfg.delta_on)
        R = TC.fit_R(q, fp, xc, ts, a, b, K, c, d)
        lam, _ = best_lambda(q, xc, ts, a, b, K, 1, rc.x_fp[-1], cfg.lambda_grid, c, d, R=R)
        psnrs.append(ME.psnr(TC.tcec_sample(q, xT, ts, a, b, K, 1, lam, c, d, R), x_fp, rng_))
        lams.append(lam)
    return {"psnr": psnrs, "lambda": lams}


def _closed_form_fit(rec: P.Record, co: S.Coefficients) -> dict:
    """The J = 0 closed form (two-step weights where the solver has them) against the measured final error."""
    e = rec.error[-1]
    B = e.shape[0]

    def fit(pred):
        rel = (pred - e).reshape(B, -1).norm(dim=1) / e.reshape(B, -1).norm(dim=1).clamp_min(1e-30)
        return _np(P.cosine(pred, e)), _np(rel)

    delta = rec.delta("quantised")
    cos, rel = fit(P.closed_form(delta, *co[1:])[-1])
    out = {"cos": cos, "relerr": rel}
    c, d = co[3], co[4]
    if c is not None and (np.any(c) or np.any(d)):       # the one-step form on the same δ's, for comparison (C2b)
        out["cos_one_step"], out["relerr_one_step"] = fit(P.closed_form(delta, co[1], co[2])[-1])
    return out


def _theory(cfg, fp, rec, coeffs) -> dict:
    ts, a, b = coeffs
    n = min(cfg.n_theory, rec.x_fp.shape[1])
    sub = P.Record(*(getattr(rec, f)[:, :n] for f in ("x_fp", "x_q", "eps_fp", "eps_q", "eps_fp_on_q", "eps_q_on_fp")))
    e = rec.error[-1]
    pred = P.closed_form(rec.delta("quantised"), a, b)[-1]
    pred_fp = P.closed_form(rec.delta("fp"), a, b)[-1]
    lin = P.linearised_error(fp, sub.x_fp, sub.delta("fp"), ts, a, b)[-1]
    # the per-step propagation equation (Jacobian kept, J at the FP states) fed the δ's measured on the quantised
    # trajectory, the errors the quantised sampler actually injects (claim C2q; session 8)
    lin_q = P.linearised_error(fp, sub.x_fp, sub.delta("quantised"), ts, a, b)[-1]
    rel_lin_q = ((lin_q - sub.error[-1]).reshape(n, -1).norm(dim=1) / sub.error[-1].reshape(n, -1).norm(dim=1).clamp_min(1e-30))
    rel = ((pred - e).reshape(e.shape[0], -1).norm(dim=1) / e.reshape(e.shape[0], -1).norm(dim=1).clamp_min(1e-30))
    rel_lin = ((lin - sub.error[-1]).reshape(n, -1).norm(dim=1) / sub.error[-1].reshape(n, -1).norm(dim=1).clamp_min(1e-30))
    # what Approximation 1 is used for: the J = 0 closed form against the linearised product with J kept, fed with
    # the same δ's along the same FP trajectories (C3's cumulative test; no network call beyond the JVPs above)
    pred_sub = P.closed_form(sub.delta("fp"), a, b)[-1]
    rel_j0 = ((pred_sub - lin).reshape(n, -1).norm(dim=1) / lin.reshape(n, -1).norm(dim=1).clamp_min(1e-30))
    jr = P.jacobian_ratio(fp, sub, ts, a, b)
    vl = P.variance_law(rec, a, b)
    return {"cos": _np(P.cosine(pred, e)), "cos_fpdelta": _np(P.cosine(pred_fp, e)),
            "cos_lin": _np(P.cosine(lin, sub.error[-1])), "relerr": _np(rel), "relerr_lin": _np(rel_lin),
            "cos_lin_q": _np(P.cosine(lin_q, sub.error[-1])), "relerr_lin_q": _np(rel_lin_q),
            "jac_jvp": jr["jvp"], "jac_exact": jr["exact"], "var_measured": vl["measured"],
            "var_independent": vl["independent"], "var_full": vl["full"], "cos_j0_lin": _np(P.cosine(pred_sub, lin)),
            "relerr_j0_lin": _np(rel_j0), "timesteps": ts, "e_norm": _np(e.reshape(e.shape[0], -1).norm(dim=1)),
            "pred_norm": _np(pred.reshape(e.shape[0], -1).norm(dim=1))}


def _overhead(cfg, q, K, xT, coeffs, lam, R) -> dict:
    ts, a, b = coeffs
    base, comp = [], []
    sync = torch.cuda.synchronize if xT.is_cuda else (lambda: None)
    for _ in range(cfg.overhead_repeats):       # interleaved, so load changes hit both alike
        sync()
        t0 = time.perf_counter()
        P.sample(q, xT, ts, a, b)
        sync()
        base.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        TC.tcec_sample(q, xT, ts, a, b, K, 1, lam, R=R)
        sync()
        comp.append(time.perf_counter() - t0)
    return {"base": np.array(base), "tcec": np.array(comp)}


@torch.no_grad()
def _quantised(cfg, fp, bits, base, seed):
    w, ab = parse_bits(bits)
    calib = calibration_inputs(cfg, seed, device=_device(fp)) if base == "svd" else None
    return Q.quantize_model(fp, w, ab, base, act_mode=cfg.act_mode, rank=cfg.svd_rank, alpha=cfg.svd_alpha, calib=calib)


def study(cfg: TCECConfig, trained: dict, seed: int) -> dict:
    """Every cell (bits × steps on the RTN base, plus ``svd_bits`` at the main step count on SVDQuant-lite),
    the theory checks at the main step count, and the measured overhead."""
    with cpu_threads(1):
        fp = load_model(cfg, trained)
        dev = _device(fp)
        xT = _noise(cfg, cfg.n_eval, seed + 1000, dev)
        xc = _noise(cfg, cfg.n_cal, seed + 2000, dev)      # calibration seeds, disjoint from the evaluation ones
        if cfg.dataset == "digits":
            fe = ME.digits_features(seed=seed)
            feats, real = fe, fe(load_data("digits"))
        else:
            def feats(x):
                return _np(x.double())
            real = load_data("ring", n=4096, seed=seed + 5).double().numpy()
        main = cfg.steps[-1]
        jobs = [(bits, st, "rtn") for bits in cfg.bits for st in cfg.steps] + [(bits, main, "svd") for bits in cfg.svd_bits]
        cells, theory, samples, overhead, shared = {}, {}, {}, None, {}
        for bits, st, base in progress(jobs, total=len(jobs), desc="quantised samplers"):
            q = _quantised(cfg, fp, bits, base, seed)
            cell, rec, coeffs, outs = _cell(cfg, fp, q, st, xT, xc, feats, real, shared=shared)
            cells[cell_key(bits, st, base)] = cell
            if st == main and base == "rtn" and bits in ("W4A8", "W4A4") and cfg.cal_repeats > 1:
                cell["recal"] = _recalibrated(cfg, fp, q, st, xT, rec.x_fp[-1], seed, shared)
            if st == main and base == "rtn":
                with torch.enable_grad():
                    theory[bits] = _theory(cfg, fp, rec, coeffs)
                samples[bits] = {k: _np(outs[k][:16]) for k in ("base", "tcec_m1")}
                samples["fp"] = _np(rec.x_fp[-1][:16])
                if bits == cfg.bits[-1]:
                    overhead = _overhead(cfg, q, torch.tensor(cell["K"], device=dev), xT, coeffs, cell["lambda"]["tcec_m1"],
                                         torch.tensor(cell["R"], device=dev))
        if cfg.dataset == "ring":
            samples["fp_all"] = _np(P.sample(fp, xT, *sampler_coefficients(cfg, main)[:3]))
            samples["data"] = real[:2000]
        gb = cfg.bits[-1]                                    # the lowest bit width: the headline W4A4
        metric = {"ε-denoiser": metric_curve(cfg, trained, cells[cell_key(gb, main, "rtn")], gb, main, xT, xc, seed)}
        early = early_theory(cfg, trained, xT, seed)          # the theory rows' two-horizon guard (session 12)
        return {"cells": cells, "theory": theory, "samples": samples, "overhead": overhead,
                "feature_accuracy": getattr(feats, "train_accuracy", None),
                "train_curves": {"ε-denoiser": training_curve(trained)}, "metric_curves": metric, "early": early}


def playground(cfg: TCECConfig, fp: torch.nn.Module, bits: str, steps: int, base: str, m: int | None, lambda1: float,
               seed: int, n: int = 64, solver: str | None = None) -> dict:
    """One small live cell: PSNR of the base and of TCEC(m, λ₁) against FP from the same noise (``solver``: the
    config's main one, or another ε-prediction solver such as ``"dpmpp2m"``)."""
    if solver is not None and S.PREDICTION.get(solver) != "eps":
        raise ValueError(f"solver={solver!r} is not allowed here; the playground's model predicts ε: use ddim, dpmpp1 "
                         "or dpmpp2m")
    with cpu_threads(1):
        q = _quantised(cfg, fp, bits, base, seed)
        ts, a, b, c, d = sampler_coefficients(cfg, steps, solver)
        dev = _device(fp)
        xc, xT = _noise(cfg, max(n, 16), seed + 2000, dev), _noise(cfg, n, seed + 1000, dev)
        rc = P.record(fp, q, xc, ts, a, b, c, d)
        K = TC.fit_K(rc, cfg.delta_on)
        R = TC.fit_R(q, fp, xc, ts, a, b, K, c, d)
        x_fp = P.sample(fp, xT, ts, a, b, c=c, d=d)
        xb = P.sample(q, xT, ts, a, b, c=c, d=d)
        xt = TC.tcec_sample(q, xT, ts, a, b, K, m, lambda1, c, d, R)
        r = ME.DATA_RANGE[cfg.dataset]
        return {"base": ME.psnr(xb, x_fp, r), "tcec": ME.psnr(xt, x_fp, r), "x_fp": _np(x_fp), "x_base": _np(xb),
                "x_tcec": _np(xt)}


def _features(cfg: TCECConfig, seed: int):
    if cfg.dataset == "digits":
        fe = ME.digits_features(seed=seed)
        return fe, fe(load_data("digits"))

    def feats(x):
        return _np(x.double())
    return feats, load_data("ring", n=4096, seed=seed + 5).double().numpy()


def solver_study(cfg: TCECConfig, trained: dict, trained_flow: dict | None, seed: int) -> dict:
    """The same cells on the other samplers (``cfg.other_solvers``) at the main step count, RTN base, for
    ``cfg.solver_bits``: DPM-Solver++(2M) on the ε-model, flow-matching Euler on the velocity model; with the
    two-step closed form against the measured final error. Same evaluation and calibration seeds as
    :func:`study`."""
    with cpu_threads(1):
        fp_eps = load_model(cfg, trained)
        fp_flow = load_model(cfg, trained_flow) if trained_flow is not None else None
        dev = _device(fp_eps)
        xT = _noise(cfg, cfg.n_eval, seed + 1000, dev)
        xc = _noise(cfg, cfg.n_cal, seed + 2000, dev)
        feats, real = _features(cfg, seed)
        main = cfg.steps[-1]
        jobs = [(solver, bits) for solver in cfg.other_solvers for bits in cfg.solver_bits]
        cells, closed, samples, shared = {}, {}, {}, {}
        for solver, bits in progress(jobs, total=len(jobs), desc="other samplers"):
            fp = fp_flow if S.PREDICTION[solver] == "velocity" else fp_eps
            if fp is None:
                raise ValueError(f"solver={solver!r} needs the flow-matching model: pass trained_flow")
            q = _quantised(cfg, fp, bits, "rtn", seed)
            cell, rec, _, outs = _cell(cfg, fp, q, main, xT, xc, feats, real, solver, shared=shared)
            key = cell_key(bits, main, "rtn", solver)
            cells[key] = cell
            closed[key] = _closed_form_fit(rec, sampler_coefficients(cfg, main, solver))
            samples[key] = {k: _np(outs[k][:16]) for k in ("base", "tcec_m1")} | {"fp": _np(rec.x_fp[-1][:16])}
        curves = {"ε-denoiser": training_curve(trained)}
        metric = {}
        if trained_flow is not None and any(S.PREDICTION[s] == "velocity" for s in cfg.other_solvers):
            curves["flow model"] = training_curve(trained_flow)
            fs = next(s for s in cfg.other_solvers if S.PREDICTION[s] == "velocity")
            gb = cfg.solver_bits[-1]
            metric["flow model"] = metric_curve(cfg, trained_flow, cells[cell_key(gb, main, "rtn", fs)], gb, main, xT,
                                                xc, seed, fs)
        # the ε-denoiser's compared-metric reading is the main study's (metric_curves of :func:`study`), merged in by
        # the chapter, so that it is not computed twice
        early = early_closed(cfg, jobs, {"eps": trained, "velocity": trained_flow}, xT, seed)   # C2b's guard
        return {"cells": cells, "closed": closed, "samples": samples, "train_curves": curves, "metric_curves": metric,
                "early": early}


def dit_study(cfg: TCECConfig, trained_dit: dict, seed: int) -> dict:
    """The main-solver cells (main step count, RTN) on the tiny DiT for ``cfg.dit_bits``, on the digits, with the
    closed form against the measured final error; same seed offsets as :func:`study`."""
    dcfg = dit_config(cfg)
    with cpu_threads(1):
        fp = load_model(dcfg, trained_dit)
        dev = _device(fp)
        xT = _noise(dcfg, dcfg.n_eval, seed + 1000, dev)
        xc = _noise(dcfg, dcfg.n_cal, seed + 2000, dev)
        feats, real = _features(dcfg, seed)
        main = cfg.steps[-1]
        cells, closed, samples, shared = {}, {}, {}, {}
        for bits in progress(list(cfg.dit_bits), total=len(cfg.dit_bits), desc="DiT cells"):
            q = _quantised(dcfg, fp, bits, "rtn", seed)
            cell, rec, _, outs = _cell(dcfg, fp, q, main, xT, xc, feats, real, shared=shared)
            key = cell_key(bits, main, "rtn", "dit")
            cells[key] = cell
            closed[key] = _closed_form_fit(rec, sampler_coefficients(dcfg, main))
            samples[key] = {k: _np(outs[k][:16]) for k in ("base", "tcec_m1")} | {"fp": _np(rec.x_fp[-1][:16])}
        gb = cfg.dit_bits[-1]
        metric = {"DiT": metric_curve(dcfg, trained_dit, cells[cell_key(gb, main, "rtn", "dit")], gb, main, xT, xc,
                                      seed)}
        return {"cells": cells, "closed": closed, "samples": samples,
                "feature_accuracy": getattr(feats, "train_accuracy", None),
                "train_curves": {"DiT": training_curve(trained_dit)}, "metric_curves": metric}
