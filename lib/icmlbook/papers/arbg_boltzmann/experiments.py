"""The chapter's experiments, each a function of (config, seed) returning plain dicts of numbers (cached by
the notebook through ``run.cached``).

- :func:`toy_study`: the four-well target; AR against NSF over seeds (ESS, E-W2, basin masses), the grid
  normalisation check, teacher-forced against recorded log q, and the SNIS error against M per temperature.
- :func:`adp_data`: the committed MD, split into train / test by alternating time blocks, standardised.
- :func:`adp_study`: ArBG and the NSF on ADP over seeds, before and after reweighting; chirality; the
  temperature sweep; MD at the same number of energy evaluations.
- :func:`bin_sweep`: the resolution study (bond-length errors and E-W2 against the number of bins), run inside
  :func:`adp_study` (it reuses the seed-0 model when the sweep trains as long as the main runs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

import numpy as np
import torch

from ...runtime.device import cpu_threads, pick_device
from ...runtime.progress import progress
from .ar import ARCoordinateModel
from .config import ArbgConfig
from .data import load_adp_md
from .discretize import Discretizer
from .flows import SplineFlow
from .metrics import dihedrals, energy_w2, subsample_even, torus_w2
from .molecule import build_alanine_dipeptide, chiral_volume
from .snis import ew2_bootstrap, kish_ess, log_weights, resample, snis_mean
from .system import bond_lengths, evaluate_proposal, fix_chirality, propose_ar, propose_flow, representation
from .tica import TicaW2, featurise, fit_tica
from .toy import TEST_FUNCTIONS, FourWells
from .train import FrameBatches, TrainSpec, train_model

__all__ = ["toy_study", "adp_data", "adp_study", "bin_sweep", "md_equal_budget", "playground", "frame_ablation", "smc_study",
           "peptide_data", "peptide_study", "robin_checkpoint"]


def _device(cfg: ArbgConfig) -> torch.device:
    return pick_device(cfg.device)


def _threads(dev: torch.device) -> int | None:
    return 1 if dev.type == "cpu" else None


# -- the 2-D toy -----------------------------------------------------------------------------------------
def _toy_models(cfg: ArbgConfig, seed: int):
    torch.manual_seed(seed)
    ar = ARCoordinateModel(2, cfg.toy_bins, d_model=cfg.toy_width, n_layer=cfg.toy_layers, n_head=2, axes=2)
    fl = SplineFlow(2, transforms=cfg.toy_flow_transforms, hidden=cfg.toy_flow_hidden)
    return ar, fl


def _ar_grid_integral(ar: ARCoordinateModel, disc: Discretizer, n: int, jacobian: bool = True) -> float:
    """Midpoint rule of q(x) = pi(k1) pi(k2 | k1) / Delta^2 over [low, high]^2 with n x n cells. The K x K table of
    log pi(k1) + log pi(k2 | k1) comes from K teacher-forced passes (one per first token); each grid point reads
    its bins' entry. ``jacobian=False`` reads the bin probabilities as a density (no dequantisation width: the
    trivial method of claim 1's test, rule 11)."""
    K = disc.n_bins
    dev = next(ar.parameters()).device
    seqs = torch.stack([torch.arange(K), torch.zeros(K, dtype=torch.long)], 1).to(dev)
    with torch.no_grad():
        lp = torch.log_softmax(ar.logits(seqs).double(), dim=-1).cpu()          # (K, 2, K)
    table = lp[:, 0, :].diagonal()[:, None] + lp[:, 1, :]                        # (k1, k2)
    h = (disc.high - disc.low) / n
    g = torch.tensor(disc.low + (np.arange(n) + 0.5) * h)
    k = disc.encode(g)
    logq = table[k][:, k] + (disc.log_jacobian(2) if jacobian else 0.0)          # (n, n)
    return float(torch.exp(logq).sum() * h * h)


def _flow_grid_integral(fl: SplineFlow, lo: float, hi: float, n: int) -> float:
    h = (hi - lo) / n
    g = lo + (np.arange(n) + 0.5) * h
    dev = next(fl.parameters()).device
    xx = torch.tensor(np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2), dtype=torch.float32, device=dev)
    with torch.no_grad():
        lp = torch.cat([fl.log_prob(b).double().cpu() for b in xx.split(65536)])
    return float(torch.exp(lp).sum() * h * h)


def toy_row(tgt: FourWells, cfg: ArbgConfig, x: np.ndarray, lq: np.ndarray, ref_e: np.ndarray, seed: int,
            name: str) -> dict:
    """One toy row from proposals ``x`` (M, 2) with log q ``lq``: ESS/M, E-W2 before and after SNIS resampling against
    the target's energies ``ref_e``, basin-mass errors and the fraction of proposals between the wells. The trained
    models' rows and the tests' trivial proposals (rule 11) go through this same function."""
    from scipy.stats import norm
    u = tgt.energy(x)
    w = log_weights(u, lq)
    idx = resample(w.log_w, len(x), np.random.default_rng(seed))
    mass_raw = np.bincount(tgt.basin(x), minlength=4) / len(x)
    mass_rw = np.bincount(tgt.basin(x), weights=w.normalised, minlength=4)
    return {"seed": seed, "model": name, "ess": w.ess, "ew2_raw": energy_w2(u, ref_e), "ew2": energy_w2(u[idx], ref_e),
            "mass_err_raw": float(np.abs(mass_raw - tgt.weights).max()), "mass_err": float(np.abs(mass_rw - tgt.weights).max()),
            "between_frac": float((np.abs(x) < cfg.toy_centre - 4 * cfg.toy_sigma).any(1).mean()),
            "between_target": float(1 - (1 - norm.cdf(-4.0)) ** 2), "n": len(x)}


def snis_error_rows(tgt: FourWells, x: np.ndarray, lw: np.ndarray, tau: float, Ms, reps: int) -> list[dict]:
    """Claim 2's rows at one temperature: ``reps`` disjoint blocks of ``x`` (at least reps * max(Ms) proposals) with
    log-weights ``lw``; per M, the RMSE (relative to the target's spread) and the largest |bias| / standard error of
    the SNIS estimates ("rmse", "bias_z") and of the unweighted averages ("rmse_raw", "bias_z_raw")."""
    truth = tgt.truth()
    fx = tgt.test_values(x)
    Mmax = max(Ms)
    if len(x) < reps * Mmax:
        raise ValueError(f"snis_error_rows needs reps * max(Ms) = {reps * Mmax} proposals, got {len(x)}")
    scale = np.sqrt(np.maximum(tgt.test_values(tgt.sample(20000, np.random.default_rng(3))).var(0), 1e-12))
    rows = []
    for M in Ms:
        est_w, est_raw = [], []
        for r in range(reps):
            sl = slice(r * Mmax, r * Mmax + M)
            est_w.append(snis_mean(fx[sl], lw[sl]))
            est_raw.append(fx[sl].mean(0))
        ew, er = np.array(est_w), np.array(est_raw)
        rmse_w = np.sqrt(((ew - truth) ** 2).mean(0)) / scale
        rmse_r = np.sqrt(((er - truth) ** 2).mean(0)) / scale
        z_w = np.abs(ew.mean(0) - truth) / np.maximum(ew.std(0, ddof=1) / np.sqrt(reps), 1e-300)
        z_r = np.abs(er.mean(0) - truth) / np.maximum(er.std(0, ddof=1) / np.sqrt(reps), 1e-300)
        rows.append({"tau": float(tau), "M": int(M), "rmse": float(rmse_w.mean()), "rmse_raw": float(rmse_r.mean()),
                     "bias_z": float(z_w.max()), "bias_z_raw": float(z_r.max()),
                     "per_f": dict(zip(TEST_FUNCTIONS, rmse_w.tolist()))})
    return rows


def _curve(tr: dict) -> dict:
    """The logged training loss of a row's model (what the claims' convergence guard reads)."""
    return {"loss_steps": np.asarray(tr["steps"], dtype=float), "loss_curve": np.asarray(tr["loss"], dtype=float)}


def toy_study(cfg: ArbgConfig, seed: int) -> dict:
    tgt = FourWells(centre=cfg.toy_centre, sigma=cfg.toy_sigma)
    disc = Discretizer(-cfg.toy_range, cfg.toy_range, cfg.toy_bins)
    dev = _device(cfg)
    truth = tgt.truth()
    rows, models = [], {}
    for s in progress(range(cfg.toy_seeds), desc="toy seeds"):
        rng = np.random.default_rng(1000 * seed + s)
        data = torch.tensor(tgt.sample(cfg.toy_train, rng)).reshape(-1, 1, 2)
        ref_e = tgt.energy(tgt.sample(cfg.toy_proposals, rng))
        ar, fl = _toy_models(cfg, 1000 * seed + s)
        spec = TrainSpec(steps=cfg.toy_steps, batch_size=cfg.toy_batch, lr=cfg.toy_lr, seed=1000 * seed + s,
                         threads=_threads(dev), desc=f"toy AR seed {s}")
        tr_ar = train_model(ar, FrameBatches(data, cfg.toy_batch, s, rotate=False, discretizer=disc), spec, str(dev.type))
        spec = TrainSpec(steps=cfg.toy_steps, batch_size=cfg.toy_batch, lr=cfg.toy_lr, seed=1000 * seed + s,
                         threads=_threads(dev), desc=f"toy NSF seed {s}")
        tr_fl = train_model(fl, FrameBatches(data, cfg.toy_batch, s, rotate=False), spec, str(dev.type))
        g = torch.Generator(device=dev).manual_seed(1000 * seed + s + 1)
        tok, lp = ar.sample(cfg.toy_proposals, generator=g)
        x_ar = disc.decode(tok.cpu(), generator=torch.Generator().manual_seed(s)).numpy()
        lq_ar = lp.cpu().double().numpy() + disc.log_jacobian(2)
        torch.manual_seed(1000 * seed + s + 2)
        xf, lf = fl.sample(cfg.toy_proposals)
        x_fl, lq_fl = xf.cpu().double().numpy(), lf.cpu().double().numpy()
        for name, x, lq, tr in (("ArBG", x_ar, lq_ar, tr_ar), ("NSF", x_fl, lq_fl, tr_fl)):
            rows.append({**toy_row(tgt, cfg, x, lq, ref_e, s, name), "params": (ar if name == "ArBG" else fl).num_parameters(),
                         "train_seconds": tr["seconds"], "final_loss": float(tr["loss"][-1]), **_curve(tr)})
        if s == 0:
            models = {"ar": ar, "flow": fl, "x_ar": x_ar[:3000], "x_fl": x_fl[:3000], "data": data[:3000, 0].numpy()}
            # recorded (sampling) against teacher-forced log pi, at tau = 1 and a tempered tau
            tf_err = 0.0
            for tau in (1.0, max(cfg.snis_taus)):
                tk, lpr = ar.sample(512, temperature=tau, generator=torch.Generator(device=dev).manual_seed(5))
                with torch.no_grad():
                    tf = ar.log_prob_tokens(tk, temperature=tau)
                tf_err = max(tf_err, float((tf.double() - lpr.double()).abs().max()))
            ar_int = _ar_grid_integral(ar, disc, cfg.toy_grid)
            fl_int = _flow_grid_integral(fl, -cfg.toy_range, cfg.toy_range, cfg.toy_grid)
    # SNIS error against M per temperature (seed-0 model; fresh proposals per replicate)
    ar = models["ar"]
    snis_rows = []
    for tau in progress(cfg.snis_taus, desc="SNIS vs M"):
        Mmax = max(cfg.snis_Ms)
        g = torch.Generator(device=dev).manual_seed(77 + int(1000 * tau))
        tok, lp = ar.sample(Mmax * cfg.snis_reps, temperature=tau, generator=g, batch_size=32768)
        x = disc.decode(tok.cpu(), generator=torch.Generator().manual_seed(78)).numpy()
        lq = lp.cpu().double().numpy() + disc.log_jacobian(2)
        snis_rows += snis_error_rows(tgt, x, -tgt.energy(x) - lq, tau, cfg.snis_Ms, cfg.snis_reps)
    K, D = cfg.toy_bins, 2
    return {"rows": rows, "snis": snis_rows, "grid_integral_ar": ar_int, "grid_integral_flow": fl_int,
            "mismatched_width_integral": (K / (K - 1)) ** D, "tf_vs_recorded": tf_err,
            "samples": {k: v for k, v in models.items() if k.startswith(("x_", "data"))},
            "truth": truth.tolist(), "bins": K, "grid": cfg.toy_grid,
            "centre": cfg.toy_centre, "sigma": cfg.toy_sigma, "range": cfg.toy_range}


# -- alanine dipeptide -----------------------------------------------------------------------------------
def adp_data(cfg: ArbgConfig) -> dict:
    frames, meta = load_adp_md()
    if cfg.adp_frames > len(frames):
        raise ValueError(f"adp_frames={cfg.adp_frames} is not allowed; the committed trajectory has {len(frames)} frames")
    frames = frames[: cfg.adp_frames].astype(np.float64)
    block = np.arange(len(frames)) // cfg.adp_block
    train, test = frames[block % 2 == 0], frames[block % 2 == 1]
    mol = build_alanine_dipeptide()
    rep = representation(cfg.frame, train, mol)
    train_blocks = [frames[block == b] for b in np.unique(block) if b % 2 == 0]
    tica = TicaW2(mol, train_blocks, test, lag=cfg.tica_lag, dim=cfg.tica_dim, n_ref=cfg.n_torus)
    return {"train": train, "test": test, "rep": rep, "mol": mol, "meta": meta, "tica": tica,
            "max_abs": max(rep.max_abs(train), rep.max_abs(test))}


def _adp_models(cfg: ArbgConfig, rep, seed: int, n_bins: int | None = None):
    torch.manual_seed(seed)
    ar = ARCoordinateModel(rep.dim, n_bins or cfg.adp_bins, d_model=cfg.adp_width, n_layer=cfg.adp_layers,
                           n_head=cfg.adp_heads, axes=3, axis_ids=rep.axis_ids, atom_ids=rep.atom_ids)
    fl = SplineFlow(rep.dim, transforms=cfg.flow_transforms, hidden=cfg.flow_hidden, passes=cfg.flow_passes)
    return ar, fl


def _train_ar(cfg, data, disc, seed, steps, dev, tag):
    rep = data["rep"]
    ar, _ = _adp_models(cfg, rep, seed, disc.n_bins)
    z = torch.tensor(rep.training_frames(data["train"]))
    spec = TrainSpec(steps=steps, batch_size=cfg.adp_batch, lr=cfg.adp_lr, seed=seed, threads=_threads(dev), desc=tag)
    tr = train_model(ar, FrameBatches(z, cfg.adp_batch, seed, rotate=rep.rotate, discretizer=disc), spec, str(dev.type))
    return ar, tr


PAPER_TICA_LAG = 100          # frames: the lag of the reference code's TICA (its frame spacing not read)


def _tica_at(data: dict, cfg: ArbgConfig, lag: int) -> list[float] | None:
    """Leading TICA eigenvalues of the training blocks at another lag (None if the blocks are too short)."""
    if lag >= cfg.adp_block:
        return None
    tw = data["tica"]
    blocks = [featurise(data["train"][i:i + cfg.adp_block], tw.atoms, tw.quads)
              for i in range(0, len(data["train"]), cfg.adp_block)]
    return fit_tica(blocks, lag, cfg.tica_dim).eigenvalues.tolist()


def _cross_entropy(ar, disc: Discretizer, rep, frames: np.ndarray, n: int = 1000) -> float:
    """Teacher-forced cross-entropy (nats per token) of the binned frames (``n`` evenly spaced; unrotated)."""
    z = disc.encode(torch.tensor(rep.encode(subsample_even(frames, n))))
    dev = next(ar.parameters()).device
    with torch.no_grad():
        return float(-ar.log_prob_tokens(z.to(dev)).double().mean().cpu()) / rep.dim


def adp_study(cfg: ArbgConfig, seed: int) -> dict:
    data = adp_data(cfg)
    mol, rep = data["mol"], data["rep"]
    if data["max_abs"] >= cfg.adp_range:
        raise ValueError(f"a training or test coordinate reaches {data['max_abs']:.2f} standardised units (after any "
                         f"rotation), beyond the clamp range {cfg.adp_range}: it would be clamped; widen adp_range")
    dev = _device(cfg)
    disc = Discretizer(-cfg.adp_range, cfg.adp_range, cfg.adp_bins)
    energy = mol.energy("Reference")
    ref_u = energy.reduced(data["test"])
    quads = list(mol.backbone_dihedral_atoms().values())
    ref_t = dihedrals(data["test"], quads)
    train_t = dihedrals(data["train"], quads)
    centre = mol.chiral_centre()
    ref_sign = float(np.sign(chiral_volume(mol.positions[None], centre)[0]))
    kw = dict(n_eval=cfg.n_eval, n_torus=cfg.n_torus, clip=cfg.clip, tica=data["tica"])
    rows, keep = [], {}
    z = torch.tensor(rep.training_frames(data["train"]))
    for s in progress(range(cfg.n_seeds), desc="ADP seeds"):
        sd = 1000 * seed + s
        ar, tr_ar = _train_ar(cfg, data, disc, sd, cfg.adp_steps, dev, f"ADP ArBG seed {s}")
        _, fl = _adp_models(cfg, rep, sd)
        spec = TrainSpec(steps=cfg.adp_steps, batch_size=cfg.adp_batch, lr=cfg.adp_lr, seed=sd, threads=_threads(dev),
                         desc=f"ADP NSF seed {s}")
        tr_fl = train_model(fl, FrameBatches(z, cfg.adp_batch, sd, rotate=rep.rotate), spec, str(dev.type))
        with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
            p_ar = fix_chirality(propose_ar(ar, disc, rep, cfg.proposals, cfg.temperature, sd + 1), centre, ref_sign)
            p_fl = fix_chirality(propose_flow(fl, rep, cfg.proposals, sd + 2), centre, ref_sign)
        ce = {"ce_train": _cross_entropy(ar, disc, rep, data["train"]), "ce_test": _cross_entropy(ar, disc, rep, data["test"])}
        for name, p, tr, m in (("ArBG", p_ar, tr_ar, ar), ("NSF", p_fl, tr_fl, fl)):
            ev = evaluate_proposal(p, mol, energy, ref_u, ref_t, seed=sd + 3, **kw)
            rows.append({"seed": s, "model": name, "params": m.num_parameters(), "train_seconds": tr["seconds"],
                         "final_loss": float(tr["loss"][-1]), **(ce if name == "ArBG" else {}),
                         "loss_last_quarter": float(tr["loss"][(3 * len(tr["loss"])) // 4] - tr["loss"][-1]), **_curve(tr),
                         **{k: v for k, v in ev.items()
                                                                  if k not in ("energies", "resampled_idx")}})
            if s == 0:
                idx = ev["resampled_idx"]
                keep[name] = {"angles_raw": dihedrals(p.frames[:3000], quads), "angles_rw": dihedrals(p.frames[idx[:3000]], quads),
                              "u_raw": ev["energies"], "u_rw": ev["energies"][idx], "loss": tr["loss"], "loss_steps": tr["steps"],
                              "tica_raw": data["tica"].project(p.frames[:3000]),
                              "tica_rw": data["tica"].project(p.frames[idx[:3000]])}
        if s == 0:
            ar0, loss0 = ar, float(tr_ar["loss"][-1])
    # temperature sweep (seed-0 model; new proposals per temperature)
    temp_rows = []
    for tau in progress(cfg.temps, desc="temperature sweep"):
        with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
            p = fix_chirality(propose_ar(ar0, disc, rep, cfg.temp_proposals, float(tau), 4242), centre, ref_sign)
        n_ev = min(cfg.n_eval, cfg.temp_proposals)
        ev = evaluate_proposal(p, mol, energy, ref_u, ref_t, seed=4243, n_eval=n_ev,
                               n_torus=min(cfg.n_torus, cfg.temp_proposals), clip=cfg.clip, tica=data["tica"])
        # bootstrap replicates of this temperature's E-W2 (proposals resampled; claim 6 compares the sweep's ends
        # with its best temperature on them, a second review of session 6)
        boot = ew2_bootstrap(ev["energies"], log_weights(ev["energies"], p.log_q).log_w, subsample_even(ref_u, n_ev),
                             n_eval=n_ev, n_boot=cfg.temp_boot, seed=4244 + int(1000 * tau))
        temp_rows.append({"tau": float(tau), "ew2_boot": boot.tolist(),
                          **{k: v for k, v in ev.items() if k not in ("energies", "resampled_idx")}})
    md = md_equal_budget(data, ref_u, energy, cfg)
    smc = smc_study(cfg, ar0, disc, data, energy, ref_u, ref_t) if cfg.frame == "canonical" else None
    reuse = {cfg.adp_bins: (ar0, loss0)} if cfg.sweep_steps == cfg.adp_steps and cfg.adp_bins in cfg.bin_sweep else {}
    bins = bin_sweep(cfg, seed, data, reuse)
    return {"rows": rows, "temps": temp_rows, "md": md, "bins": bins, "smc": smc, "keep": keep, "ref_angles": ref_t[:3000],
            "train_angles": train_t[:3000], "ref_u": ref_u, "n_train": len(data["train"]), "n_test": len(data["test"]),
            "scale": rep.scale, "max_abs": data["max_abs"], "n_bins": cfg.adp_bins, "frame": cfg.frame,
            "tica": {"lag": data["tica"].model.lag, "eigenvalues": data["tica"].model.eigenvalues.tolist(),
                     "n_features": data["tica"].n_features, "n_pairs": data["tica"].model.n_pairs,
                     "timescales": (-data["tica"].model.lag / np.log(np.abs(data["tica"].model.eigenvalues))).tolist(),
                     "paper_lag": PAPER_TICA_LAG, "paper_lag_eigenvalues": _tica_at(data, cfg, PAPER_TICA_LAG),
                     "test": data["tica"].project(subsample_even(data["test"], 3000))},
            "ar_model_state": {k: v.cpu() for k, v in ar0.state_dict().items()},
            "energy_evaluations": energy.evaluations, "energy_timing": energy_timing(mol, data["test"][:500])}


def energy_timing(mol, frames: np.ndarray, n_contexts: int = 100, platform: str = "Reference") -> dict:
    """Seconds per frame of an energy through one Context (setPositions + getState) and through a new Context per frame
    (same System, same platform object; creation included); CPU with one thread. ``context_s`` is the difference."""
    import openmm
    system = mol.system()
    plat = openmm.Platform.getPlatformByName(platform)
    props = {"Threads": "1"} if platform == "CPU" else {}
    ctx = openmm.Context(system, openmm.VerletIntegrator(0.001), plat, props)
    t0 = time.perf_counter()
    for f in frames:
        ctx.setPositions(f)
        ctx.getState(getEnergy=True)
    ev = (time.perf_counter() - t0) / len(frames)
    del ctx
    t0 = time.perf_counter()
    for f in frames[:n_contexts]:
        c = openmm.Context(system, openmm.VerletIntegrator(0.001), plat, props)
        c.setPositions(f)
        c.getState(getEnergy=True)
        del c
    make = (time.perf_counter() - t0) / n_contexts - ev
    return {"evaluation_s": ev, "context_s": make, "ratio": 1 + make / ev, "n_atoms": mol.n_atoms}


def md_equal_budget(data: dict, ref_u: np.ndarray, energy, cfg: ArbgConfig, record_every: int = 10) -> dict:
    """E-W2 of plain MD given the same number of energy evaluations as the proposals: one force evaluation per 1-fs
    step, so M evaluations buy M steps. ``md_windows`` independent Langevin runs (the energy's force field, 1 fs,
    friction 1/ps, Reference platform), each from the minimised structure with fresh velocities and M steps, burn-in
    included; the potential energy is recorded every ``record_every`` steps (bookkeeping, not counted) and the E-W2
    of each run's recorded energies against the reference is reported."""
    from .molecule import MDConfig, simulate
    mol = data["mol"]
    n_rec = max(2, cfg.proposals // record_every)
    ref = subsample_even(ref_u, cfg.n_eval)
    w2 = []
    for k in progress(range(cfg.md_windows), desc="MD at equal cost"):
        md = MDConfig(n_frames=n_rec, steps_per_frame=record_every, dt_fs=1.0, friction_per_ps=1.0, equilibrate=0,
                      seed=10_000 + k, platform="Reference")
        u = energy.reduced(simulate(mol, md, progress_desc=None))
        w2.append(energy_w2(u[np.isfinite(u)], ref))
    return {"runs": cfg.md_windows, "evaluations": n_rec * record_every, "record_every": record_every, "ew2": w2,
            "ew2_median": float(np.median(w2))}


def bin_sweep(cfg: ArbgConfig, seed: int, data: dict | None = None, trained: dict | None = None) -> dict:
    """Resolution: for each K, the quantisation error alone (test frames rounded to bin centres) and a model
    trained for ``sweep_steps``: bond-length errors of its raw proposals and E-W2 before/after reweighting.
    ``trained`` {K: model} reuses models already trained with the same steps (the main study's seed 0)."""
    data = data or adp_data(cfg)
    mol, rep = data["mol"], data["rep"]
    dev = _device(cfg)
    energy = mol.energy("Reference")
    ref_u = energy.reduced(data["test"])
    quads = list(mol.backbone_dihedral_atoms().values())
    ref_t = dihedrals(data["test"], quads)
    bonds = mol.bonds()
    ref_len = bond_lengths(data["test"], bonds)
    centre = mol.chiral_centre()
    ref_sign = float(np.sign(chiral_volume(mol.positions[None], centre)[0]))
    rows = []
    zt = rep.encode(data["test"][: cfg.n_eval])
    for K in progress(cfg.bin_sweep, desc="bin sweep"):
        disc = Discretizer(-cfg.adp_range, cfg.adp_range, int(K))
        rounded = rep.decode(disc.centres(disc.encode(torch.tensor(zt))).numpy())[0]
        q_err = np.abs(bond_lengths(rounded, bonds) - bond_lengths(data["test"][: cfg.n_eval], bonds))
        t0 = time.perf_counter()
        if trained and int(K) in trained:
            ar, loss = trained[int(K)]
        else:
            ar, tr = _train_ar(cfg, data, disc, 1000 * seed + int(K), cfg.sweep_steps, dev, f"ADP ArBG K={K}")
            loss = float(tr["loss"][-1])
        with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
            p = fix_chirality(propose_ar(ar, disc, rep, cfg.temp_proposals, 1.0, 99 + int(K)), centre, ref_sign)
        ev = evaluate_proposal(p, mol, energy, ref_u, ref_t, seed=98, n_eval=min(cfg.n_eval, cfg.temp_proposals),
                               n_torus=min(cfg.n_torus, cfg.temp_proposals), clip=cfg.clip, tica=data["tica"])
        pl = bond_lengths(p.frames, bonds)
        b_err = np.abs(pl.mean(0) - ref_len.mean(0))
        b_se = float(np.sqrt((pl.var(0, ddof=1) / len(pl) + ref_len.var(0, ddof=1) / len(ref_len)).sum()) / len(b_err))
        b_sd = pl.std(0) / ref_len.std(0)
        rows.append({"bins": int(K), "delta_nm": disc.delta * rep.scale, "quant_bond_err_nm": float(q_err.mean()),
                     "bond_mean_err_nm": float(b_err.mean()), "bond_mean_err_se_nm": b_se,
                     "bond_sd_ratio": float(np.median(b_sd)),
                     "seconds": time.perf_counter() - t0, "final_loss_per_token": loss,
                     **{k: v for k, v in ev.items() if k not in ("energies", "resampled_idx")}})
    return {"rows": rows}


def playground(adp: dict, cfg: ArbgConfig, temperature: float, n: int, clip: float) -> dict:
    """Rebuild the seed-0 ArBG model from the study's state, draw ``n`` proposals at ``temperature`` and reweight
    them with clipping ``clip`` (the live controls)."""
    data = adp_data(cfg)
    mol, rep = data["mol"], data["rep"]
    disc = Discretizer(-cfg.adp_range, cfg.adp_range, cfg.adp_bins)
    ar, _ = _adp_models(cfg, rep, 0)
    ar.load_state_dict(adp["ar_model_state"])
    centre = mol.chiral_centre()
    ref_sign = float(np.sign(chiral_volume(mol.positions[None], centre)[0]))
    with cpu_threads(1):
        p = fix_chirality(propose_ar(ar, disc, rep, int(n), float(temperature), 31337), centre, ref_sign)
    quads = list(mol.backbone_dihedral_atoms().values())
    energy = mol.energy("Reference")
    ev = evaluate_proposal(p, mol, energy, adp["ref_u"], dihedrals(data["test"], quads), n_eval=min(int(n), cfg.n_eval),
                           n_torus=min(int(n), cfg.n_torus), clip=float(clip) if clip > 0 else cfg.clip, seed=5)
    w = log_weights(ev["energies"], p.log_q, clip=float(clip))
    return {"ess": w.ess, "ew2": ev["ew2_clip"] if clip > 0 else ev["ew2"], "tw2": ev["tw2_clip"] if clip > 0 else ev["tw2"],
            "clipped": w.n_clipped, "nonfinite": ev["nonfinite"]}


def frame_ablation(cfg: ArbgConfig, seed: int) -> dict:
    """The paper's representation at our budget: the same ArBG (size, bins, steps, batch, seed 0) trained on
    centred, randomly rotated frames (``frame="augmented"``) instead of the canonical frame; one seed."""
    acfg = dataclasses.replace(cfg, frame="augmented")
    data = adp_data(acfg)
    mol, rep = data["mol"], data["rep"]
    if data["max_abs"] >= acfg.adp_range:
        raise ValueError(f"a rotated coordinate reaches {data['max_abs']:.2f} > adp_range {acfg.adp_range}")
    dev = _device(acfg)
    disc = Discretizer(-acfg.adp_range, acfg.adp_range, acfg.adp_bins)
    energy = mol.energy("Reference")
    ref_u = energy.reduced(data["test"])
    quads = list(mol.backbone_dihedral_atoms().values())
    ref_t = dihedrals(data["test"], quads)
    centre = mol.chiral_centre()
    ref_sign = float(np.sign(chiral_volume(mol.positions[None], centre)[0]))
    sd = 1000 * seed
    ar, tr = _train_ar(acfg, data, disc, sd, acfg.adp_steps, dev, "ADP ArBG, augmented frames")
    with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
        p = fix_chirality(propose_ar(ar, disc, rep, acfg.proposals, acfg.temperature, sd + 1), centre, ref_sign)
    ev = evaluate_proposal(p, mol, energy, ref_u, ref_t, seed=sd + 3, n_eval=acfg.n_eval, n_torus=acfg.n_torus,
                           clip=acfg.clip, tica=data["tica"])
    return {"model": "ArBG (augmented)", "params": ar.num_parameters(), "train_seconds": tr["seconds"],
            "final_loss": float(tr["loss"][-1]), **{k: v for k, v in ev.items() if k not in ("energies", "resampled_idx")}}


def smc_study(cfg: ArbgConfig, ar, disc: Discretizer, data: dict, energy, ref_u: np.ndarray, ref_t: np.ndarray) -> dict:
    """Plain SNIS against autoregressive twisted SMC (our reconstruction, :mod:`.smc`) with the same model,
    temperature and number of particles (= energy evaluations): clash fraction of the final particles, ESS of the
    final weights, surviving lineages, E-W2 / T-W2 after resampling, wall time. When both final weightings keep
    ``ess_min`` effective samples and twisted SMC keeps ``ess_min`` lineages, ``bias`` holds the bootstrap of the
    differences twisted − plain (:func:`~.smc.paired_w2_bootstrap`, lineages resampled; T-W2 on at most
    ``smc_boot_torus`` points a side); otherwise None (the rule does not read it then)."""
    from .smc import ClashTwist, paired_w2_bootstrap, twisted_smc
    mol, rep = data["mol"], data["rep"]
    twist = ClashTwist.for_molecule(mol.n_atoms, mol.bonds(), strength=cfg.smc_strength)
    quads = list(mol.backbone_dihedral_atoms().values())
    dev = next(ar.parameters()).device
    n = cfg.smc_particles
    rows = []
    with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
        t0 = time.perf_counter()
        p = propose_ar(ar, disc, rep, n, cfg.temperature, 777)
        u = energy.reduced(p.frames)
        plain_s = time.perf_counter() - t0
        out = twisted_smc(ar, disc, rep, energy, twist, n, cfg.temperature, 778, ess_threshold=cfg.smc_threshold)
    rng = np.random.default_rng(779)
    sides = {}
    for name, frames, lw, uu, secs, clash, extra in (
            ("SNIS", p.frames, log_weights(u, p.log_q).log_w, u, plain_s,
             float((twist.score(p.frames, np.ones(mol.n_atoms, dtype=bool)) > 0).mean()), {}),
            ("twisted SMC", out["frames"], out["log_w"], out["energies"], out["seconds"], out["clash_frac"],
             {"resampling_events": out["n_resample"], "lineages": out["unique"]})):
        sides[name] = {"energies": uu, "log_w": lw, "frames": frames,
                       "clusters": out["ancestry"] if name == "twisted SMC" else np.arange(n)}
        fin = np.isfinite(lw)
        if not fin.any():
            rows.append({"method": name, "ess": 0.0, "ew2": float("inf"), "tw2": float("inf"), "clash_frac": clash,
                         "seconds": secs, **extra})
            continue
        idx = resample(lw, min(n, cfg.n_eval), rng)
        rows.append({"method": name, "ess": kish_ess(lw) / n, "clash_frac": clash, "seconds": secs,
                     "ew2": energy_w2(uu[idx], subsample_even(ref_u, len(idx))),
                     "tw2": torus_w2(dihedrals(frames[idx[: cfg.n_torus]], quads), subsample_even(ref_t, min(len(idx), cfg.n_torus))),
                     "unique_resampled": int(len(np.unique(idx))), **extra})
    healthy = (all(r["ess"] * n >= cfg.ess_min for r in rows) and out["unique"] >= cfg.ess_min)
    bias = None
    if healthy:
        n_t = min(cfg.n_torus, cfg.smc_boot_torus)
        for v in sides.values():
            v["angles"] = dihedrals(v.pop("frames"), quads)
        bias = paired_w2_bootstrap(sides["SNIS"], sides["twisted SMC"], subsample_even(ref_u, min(n, cfg.n_eval)),
                                   subsample_even(ref_t, n_t), n_eval=min(n, cfg.n_eval), n_torus=n_t,
                                   n_boot=cfg.smc_boot, seed=780)
    return {"rows": rows, "particles": n, "strength": cfg.smc_strength, "threshold": cfg.smc_threshold, "bias": bias}


# -- larger peptides (the full profile) ------------------------------------------------------------------
def peptide_data(cfg: ArbgConfig, name: str, seed: int) -> dict:
    """Build the peptide (amber14 + OBC1 at ``peptide_temperature``), run our own Langevin MD and split it into
    alternating blocks of ``peptide_block`` frames (train / test), like :func:`adp_data`."""
    from .molecule import MDConfig, build_alanine_peptide, simulate
    mol = build_alanine_peptide(name, "amber14-obc1", cfg.peptide_temperature)
    md = MDConfig(n_frames=cfg.peptide_frames, steps_per_frame=cfg.peptide_steps_per_frame, dt_fs=1.0,
                  friction_per_ps=1.0, equilibrate=cfg.peptide_equilibrate, seed=seed, platform=cfg.peptide_platform)
    frames = simulate(mol, md, progress_desc=f"{name} MD").astype(np.float64)
    block = np.arange(len(frames)) // cfg.peptide_block
    train, test = frames[block % 2 == 0], frames[block % 2 == 1]
    rep = representation(cfg.frame, train, mol)
    blocks = [frames[block == b] for b in np.unique(block) if b % 2 == 0]
    tica = TicaW2(mol, blocks, test, lag=cfg.tica_lag, dim=cfg.tica_dim, n_ref=cfg.n_torus)
    return {"train": train, "test": test, "rep": rep, "mol": mol, "tica": tica, "md": md,
            "max_abs": max(rep.max_abs(train), rep.max_abs(test))}


def peptide_study(cfg: ArbgConfig, seed: int) -> dict:
    """ArBG and the NSF on each of ``cfg.peptides`` (one seed; the ADP model and training sizes, ``peptide_bins``
    bins): E-W2, T-W2 over every backbone torsion, TICA-W2 and ESS before and after reweighting, and the fraction of
    proposals with every stereocentre right after mirroring on the first. Empty when ``cfg.peptides`` is."""
    rows = []
    dev = _device(cfg)
    for name in progress(cfg.peptides, desc="peptides"):
        data = peptide_data(cfg, name, seed)
        mol, rep = data["mol"], data["rep"]
        if data["max_abs"] >= cfg.adp_range:
            raise ValueError(f"{name}: a coordinate reaches {data['max_abs']:.2f} standardised units, beyond the clamp "
                             f"range {cfg.adp_range}: widen adp_range")
        disc = Discretizer(-cfg.adp_range, cfg.adp_range, cfg.peptide_bins)
        energy = mol.energy(cfg.peptide_platform)
        ref_u = energy.reduced(data["test"])
        quads = list(mol.backbone_dihedral_atoms().values())
        ref_t = dihedrals(data["test"], quads)
        centres = mol.chiral_centres()
        signs = [float(np.sign(chiral_volume(mol.positions[None], c)[0])) for c in centres]
        ar, tr_ar = _train_ar(cfg, data, disc, 1000 * seed, cfg.adp_steps, dev, f"{name} ArBG")
        _, fl = _adp_models(cfg, rep, 1000 * seed)
        z = torch.tensor(rep.training_frames(data["train"]))
        spec = TrainSpec(steps=cfg.adp_steps, batch_size=cfg.adp_batch, lr=cfg.adp_lr, seed=1000 * seed,
                         threads=_threads(dev), desc=f"{name} NSF")
        tr_fl = train_model(fl, FrameBatches(z, cfg.adp_batch, 1000 * seed, rotate=rep.rotate), spec, str(dev.type))
        with cpu_threads(1) if dev.type == "cpu" else contextlib.nullcontext():
            p_ar = fix_chirality(propose_ar(ar, disc, rep, cfg.proposals, cfg.temperature, 1000 * seed + 1), centres[0],
                                 signs[0])
            p_fl = fix_chirality(propose_flow(fl, rep, cfg.proposals, 1000 * seed + 2), centres[0], signs[0])
        for model, p, tr, m in (("ArBG", p_ar, tr_ar, ar), ("NSF", p_fl, tr_fl, fl)):
            ev = evaluate_proposal(p, mol, energy, ref_u, ref_t, n_eval=cfg.n_eval, n_torus=cfg.n_torus, clip=cfg.clip,
                                   seed=1000 * seed + 3, tica=data["tica"])
            all_ok = np.all([np.sign(chiral_volume(p.frames, c)) == s for c, s in zip(centres, signs)], axis=0)
            rows.append({"peptide": name, "model": model, "atoms": mol.n_atoms, "tokens": rep.dim,
                         "params": m.num_parameters(), "train_seconds": tr["seconds"], "final_loss": float(tr["loss"][-1]),
                         "md_ns": cfg.peptide_frames * cfg.peptide_steps_per_frame * 1e-6,
                         "all_centres_right": float(all_ok.mean()),
                         **{k: v for k, v in ev.items() if k not in ("energies", "resampled_idx")}})
    return {"rows": rows, "temperature": cfg.peptide_temperature, "force_field": "amber14-obc1"}


def robin_checkpoint(path: str | None) -> dict | None:
    """The transferable model Robin is never downloaded: given a local copy of its checkpoint (``robin_path``), count
    its parameters (the paper: 132M); running it needs the authors' architecture, which this book does not carry.
    None when no path is given; a clear error when the path does not exist."""
    if path is None:
        return None
    from pathlib import Path
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(f"robin_path={str(path)!r} does not exist. The book never downloads Robin's weights "
                                "(Hugging Face danyalrehman17/robin-transferable) or ManyPeptidesMD; fetch them yourself "
                                "and pass the local checkpoint file, or leave robin_path=None")
    files = sorted(p.rglob("*.ckpt")) + sorted(p.rglob("*.pt")) + sorted(p.rglob("*.pth")) if p.is_dir() else [p]
    if not files:
        raise FileNotFoundError(f"robin_path={str(path)!r} holds no .ckpt, .pt or .pth file")
    state = torch.load(files[0], map_location="cpu", weights_only=True)
    state = state.get("state_dict", state) if isinstance(state, dict) else state
    n = sum(int(v.numel()) for v in state.values() if isinstance(v, torch.Tensor))
    return {"file": str(files[0]), "parameters": n}
