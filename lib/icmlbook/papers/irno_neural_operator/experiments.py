"""The chapter's experiments: the Navier–Stokes task, the frozen bases, the IRNO variants, and their evaluation.

Every function returns plain data (tensors, dicts, dataclasses of them) so the notebook can cache it with
``run.cached``; models travel as ``state_dict``s and are rebuilt by :func:`load_base` / :func:`load_irno`.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import torch

from ...runtime.device import pick_device
from ...runtime.stats import mean_t_bound
from . import metrics
from .config import BASES, LONG, VARIANTS, IRNOConfig
from .irno import EARLY, IRNO, LossSpec, base_outputs, make_refiner, train_base, train_irno
from .ns2d import coarsen, make_windows, simulate_dataset, spectral_resample
from .operators import FNO2d, count_parameters
from .well import load_well_fields, well_windows

__all__ = ["Task", "make_task", "base_kwargs", "train_base_operator", "load_base", "variant_spec",
           "train_variant", "load_irno", "EarlyMetric", "Evaluation", "evaluate", "cluster_bootstrap", "relative_gain",
           "paired_difference", "decay_ratio", "study", "STUDY_RUNS", "CORE_BASES", "CORE_RUNS", "study_plan",
           "solver_checks", "SRTask", "make_sr_task",
           "SREvaluation", "evaluate_sr", "sr_study", "load_sr_irno"]


@dataclasses.dataclass
class Task:
    """Normalised (z-score with the training mean and standard deviation, per field) windows: inputs
    ``(N, history * C, n, n)``, targets ``(N, C, n, n)`` (``C = channels``: 1 for our flow, 11 for The Well's
    Active Matter); ``test_traj_id`` is the trajectory of each test sample (for cluster bootstraps);
    ``test_frames`` the normalised test trajectories ``(T, frames, n, n)`` (``(T, frames, C, n, n)`` from The
    Well); ``source`` says where the data come from."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    test_traj_id: torch.Tensor
    test_frames: torch.Tensor
    mean: float
    std: float
    n: int
    n_sim: int
    seconds: float
    channels: int = 1
    source: str = "simulated"


def _well_task(cfg: IRNOConfig, t0: float) -> Task:
    """The task from a local copy of The Well (``cfg.well_path``): the first ``train_traj`` training and
    ``test_traj`` test trajectories, their first ``frames`` time steps, z-scored per field."""
    tr = load_well_fields(cfg.well_path, cfg.well_dataset, "train", max_trajectories=cfg.train_traj)
    te = load_well_fields(cfg.well_path, cfg.well_dataset, "test", max_trajectories=cfg.test_traj)
    n = tr.data.shape[-1]
    if n != cfg.n or te.data.shape[-1] != n:
        raise ValueError(f"n={cfg.n} does not match the grid of {cfg.well_dataset} under well_path "
                         f"({n}x{n}); set n={n}")
    train, test = tr.data[:, :cfg.frames], te.data[:, :cfg.frames]
    mean = train.mean((0, 1, 3, 4), keepdim=True)
    std = train.std((0, 1, 3, 4), keepdim=True).clamp_min(1e-12)
    train, test = (train - mean) / std, (test - mean) / std
    xtr, ytr, _ = well_windows(train, cfg.history)
    xte, yte, ids = well_windows(test, cfg.history)
    return Task(xtr, ytr, xte, yte, ids, test, mean.flatten().tolist(), std.flatten().tolist(), n, n,
                time.perf_counter() - t0, channels=train.shape[2], source=f"The Well: {cfg.well_dataset}")


def make_task(cfg: IRNOConfig, seed: int, show_progress: bool = True) -> Task:
    """Simulate ``train_traj + test_traj`` independent Kolmogorov flows (seeded by ``seed``) and cut windows; with
    ``cfg.well_path`` set, read The Well's data from there instead (``full``; nothing is downloaded)."""
    t0 = time.perf_counter()
    if cfg.well_path:
        return _well_task(cfg, t0)
    data = simulate_dataset(cfg.train_traj + cfg.test_traj, cfg.frames, cfg.n, n_sim=cfg.n_sim, nu=cfg.nu,
                            drag=cfg.drag, forcing_amp=cfg.forcing_amp, forcing_k=cfg.forcing_k, dt=cfg.dt,
                            dt_frame=cfg.dt_frame, spinup=cfg.spinup, seed=1000 + seed,
                            device=pick_device("auto"), show_progress=show_progress)
    f = data.frames
    train, test = f[:cfg.train_traj], f[cfg.train_traj:]
    mean, std = float(train.mean()), float(train.std())
    train, test = (train - mean) / std, (test - mean) / std
    xtr, ytr = make_windows(train, cfg.history)
    xte, yte = make_windows(test, cfg.history)
    ids = torch.arange(xte.shape[0]) % cfg.test_traj
    return Task(xtr, ytr, xte, yte, ids, test, mean, std, cfg.n, cfg.n_sim, time.perf_counter() - t0)


def base_kwargs(cfg: IRNOConfig, kind: str, channels: int = 1) -> dict:
    """Constructor arguments of base ``kind`` (see :data:`.config.BASES`) for fields of ``channels`` channels."""
    common = dict(in_channels=cfg.history * channels, out_channels=channels, layers=cfg.base_layers)
    if kind == "fno":
        return dict(common, width=cfg.base_width, modes=cfg.base_modes, factorization="dense")
    if kind == "tfno":
        return dict(common, width=cfg.base_width, modes=cfg.base_modes, factorization="tucker", rank=cfg.tfno_rank)
    if kind == "fno_many":
        return dict(common, width=cfg.base_width, modes=cfg.many_modes, factorization="dense")
    if kind == "fno_large":
        return dict(common, width=cfg.large_width, modes=cfg.base_modes, factorization="dense")
    if kind in _SHORT:
        return base_kwargs(cfg, _SHORT[kind], channels)
    raise ValueError(f"kind={kind!r} is not allowed; allowed values: {', '.join(BASES)}")


_SHORT = {v: k for k, v in LONG.items()}


def train_base_operator(cfg: IRNOConfig, task: Task, kind: str, seed: int, show_progress: bool = True) -> dict:
    """Train base ``kind`` on the task by MSE. ``fno_large`` and the plateau references ``*_long`` train
    ``base_epochs + irno_epochs`` epochs (the extra budget IRNO gets), the others ``base_epochs``; a ``*_long``
    base starts from its short base's initialisation."""
    init = _SHORT.get(kind, kind)
    torch.manual_seed(10_000 + seed * 10 + BASES.index(init))
    kw = base_kwargs(cfg, kind, task.channels)
    model = FNO2d(**kw)
    epochs = cfg.base_epochs + (cfg.irno_epochs if kind == "fno_large" or kind in _SHORT else 0)
    t0 = time.perf_counter()
    tr = train_base(model, task.x_train, task.y_train, epochs=epochs, batch=cfg.batch, lr=cfg.base_lr, seed=seed,
                    desc=f"base {kind}", show_progress=show_progress)
    _, loss = tr.history("loss")
    return {"kind": kind, "kwargs": kw, "state": {k: v.cpu() for k, v in model.state_dict().items()},
            "seconds": time.perf_counter() - t0, "params": count_parameters(model), "epochs": epochs,
            "loss": loss}


def load_base(rec: dict) -> FNO2d:
    """The frozen base of a :func:`train_base_operator` record (eval mode, no gradients)."""
    model = FNO2d(**rec["kwargs"])
    model.load_state_dict(rec["state"])
    return model.requires_grad_(False).eval()


def variant_spec(cfg: IRNOConfig, variant: str, n_train: int | None = None) -> tuple[LossSpec, int, int]:
    """``(loss spec, number of refiners, epochs)`` of an IRNO variant (see :data:`.config.VARIANTS`) trained on
    ``n_train`` samples (default: the simulated task's ``train_traj * (frames - history)``)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; allowed values: {', '.join(VARIANTS)}")
    K = 1 if variant == "k1" else cfg.K
    n_train = cfg.train_traj * (cfg.frames - cfg.history) if n_train is None else n_train
    steps = cfg.irno_epochs * math.ceil(n_train / cfg.batch)
    spec = LossSpec(K=K, beta_spec=0.0 if variant == "no_spectral" else cfg.beta_spec, lam_start=cfg.lam_start,
                    lam_end=cfg.lam_start if variant == "const_lambda" else cfg.lam_end,
                    beta_fp=0.0 if variant == "no_fp" else cfg.beta_fp,
                    fp_warmup=max(1, round(cfg.fp_warmup_frac * steps)))
    return spec, (cfg.K if variant == "unshared" else 1), cfg.irno_epochs


@dataclasses.dataclass(frozen=True)
class EarlyMetric:
    """The compared test metric of one trained refiner earlier in its own run (the convergence guard, CLAIMS.md rule
    10; session 12): ``value`` after ``step`` of its ``steps`` updates (``epochs`` epochs in all), from the same
    function of the same test set as the final evaluation (mean test VRMSE at the refiner's K; RFNE at K for
    super-resolution), so the guard compares it with the final value (``Evaluation.compared``)."""

    step: int
    steps: int
    epochs: int
    value: float


def _early_metric(tr, epochs: int) -> EarlyMetric:
    st, v = tr.history(EARLY)
    return EarlyMetric(int(st[0]), int(tr.config.steps), int(epochs), float(v[0]))


def _vrmse_probe(task: Task, K: int):
    """``model -> mean test VRMSE at step K`` (the same numbers as :func:`evaluate`'s ``vrmse[K].mean()``)."""
    def probe(model) -> float:
        dev = next(model.refiners.parameters()).device
        h = model(task.x_test.to(dev), K)[K]
        return float(metrics.vrmse(h, task.y_test.to(dev)).mean(1).mean())
    return probe


def train_variant(cfg: IRNOConfig, task: Task, base_rec: dict, variant: str, seed: int,
                  show_progress: bool = True, h0: torch.Tensor | None = None) -> dict:
    """Train IRNO ``variant`` on the frozen base of ``base_rec``; ``h0``: that base's outputs on the training
    inputs when already computed (:func:`.irno.base_outputs`, shared by every variant on the base). The record's
    ``early`` is the compared metric (mean test VRMSE at the variant's K) of the same run after 2/3 of its updates
    (:class:`EarlyMetric`; one evaluation, no extra training)."""
    spec, n_ref, epochs = variant_spec(cfg, variant, task.x_train.shape[0])
    torch.manual_seed(20_000 + seed * 100 + BASES.index(base_rec["kind"]))     # one init for every variant
    c_x, c_h = base_rec["kwargs"]["in_channels"], base_rec["kwargs"]["out_channels"]
    refiners = [make_refiner(c_x, c_h, cfg.unet_base, cfg.unet_depth) for _ in range(n_ref)]
    model = IRNO(load_base(base_rec), refiners, alpha=cfg.alpha)
    t0 = time.perf_counter()
    tr = train_irno(model, task.x_train, task.y_train, spec, epochs=epochs, batch=cfg.batch, lr=cfg.irno_lr,
                    seed=seed, desc=f"IRNO {variant} on {base_rec['kind']}", show_progress=show_progress, h0=h0,
                    early=_vrmse_probe(task, spec.K), extend=cfg.plateau_extend)
    _, loss = tr.history("loss")
    return {"variant": variant, "base": base_rec["kind"], "spec": dataclasses.asdict(spec), "n_refiners": n_ref,
            "epochs": epochs, "state": {k: v.cpu() for k, v in model.refiners.state_dict().items()},
            "seconds": time.perf_counter() - t0, "params": count_parameters(model.refiners), "loss": loss,
            "early": _early_metric(tr, epochs)}


def load_irno(cfg: IRNOConfig, base_rec: dict, rec: dict, alpha: float | None = None) -> IRNO:
    c_x, c_h = base_rec["kwargs"]["in_channels"], base_rec["kwargs"]["out_channels"]
    refiners = [make_refiner(c_x, c_h, cfg.unet_base, cfg.unet_depth) for _ in range(rec["n_refiners"])]
    model = IRNO(load_base(base_rec), refiners, alpha=cfg.alpha if alpha is None else alpha)
    model.refiners.load_state_dict(rec["state"])
    return model.requires_grad_(False).eval()


@dataclasses.dataclass
class Evaluation:
    """Test metrics of one model along the iteration ``k = 0..steps`` (``k = 0``: the base alone).

    vrmse : ``(steps+1, B)``.  shell : ``(steps+1, B, R)`` shell errors E_k(r).  diffs : ``(steps, B)``
    ``||h_{k+1} - h_k||`` (RMS over the grid).  err : ``(steps+1, B)`` ``||h_k - y||`` (RMS).
    phi_y : ``(B,)`` RMS of Phi([x; y]).  lipschitz : ``{k: (L,)}`` the Lipschitz constant of F_x at h_k for the
    first ``lip_samples`` samples.  traj_id : ``(B,)``.  n : grid.  K : training horizon.
    """

    vrmse: np.ndarray
    shell: np.ndarray
    diffs: np.ndarray
    err: np.ndarray
    phi_y: np.ndarray
    lipschitz: dict
    traj_id: np.ndarray
    n: int
    K: int
    #: the training loss of the evaluated refiner, one value per epoch (the trainer's LossLogger; shown, no longer read
    #: by the convergence guard since session 12); None for a base alone
    loss_curve: np.ndarray | None = None
    #: the compared metric of the same run after 2/3 of its updates (the convergence guard of the claims reads it
    #: against :meth:`compared`: CLAIMS.md rule 10); None for a base alone
    early: EarlyMetric | None = None
    #: the test trajectory of each Lipschitz sample (session 14: claim 7 counts trajectories, since windows of one
    #: trajectory are not independent); None: each sample from its own trajectory
    lip_traj: np.ndarray | None = None

    def compared(self) -> float:
        """The compared metric the convergence guard reads: the mean test VRMSE at the training horizon K."""
        return float(self.vrmse[self.K].mean())

    def band(self, k: int) -> dict[str, np.ndarray]:
        """Per-sample band ratios E_k/E_0 (see :func:`.metrics.band_ratios`)."""
        out = metrics.band_ratios(torch.from_numpy(self.shell[k]), torch.from_numpy(self.shell[0]), self.n)
        return {b: v.numpy() for b, v in out.items()}

    def shell_ratio(self, k: int) -> np.ndarray:
        """Median over samples of E_k(r)/E_0(r), per shell ``r``."""
        return np.median(self.shell[k] / np.maximum(self.shell[0], 1e-300), axis=0)


#: how the Lipschitz estimate forms J v: from the VJP of the pullback (one forward pass for all Lanczos steps; the
#: benchmark measured it about 3x faster than forward mode through the U-Net, with the same values to rounding)
LIP_PRODUCTS = "double_vjp"


@torch.no_grad()
def _iterate(model, x, steps):
    return model(x, steps)


def evaluate(cfg: IRNOConfig, task: Task, model: IRNO | None, steps: int, *, base: torch.nn.Module | None = None,
             K: int | None = None, lip_at: tuple[int, ...] = (), seed: int = 0) -> Evaluation:
    """Evaluate ``model`` (or a ``base`` alone, ``steps`` = 0) on the test windows."""
    x, y = task.x_test, task.y_test
    if model is None:
        with torch.no_grad():
            hs = [base(x)]
        steps = 0
    else:
        hs = _iterate(model, x, steps)
    v = torch.stack([metrics.vrmse(h, y).mean(1) for h in hs]).numpy()
    sh = torch.stack([metrics.shell_errors(h, y) for h in hs]).numpy()
    err = torch.stack([(h - y).pow(2).mean((1, 2, 3)).sqrt() for h in hs]).numpy()
    diffs = (torch.stack([(hs[k + 1] - hs[k]).pow(2).mean((1, 2, 3)).sqrt() for k in range(steps)]).numpy()
             if steps else np.zeros((0, x.shape[0])))
    phi_y = np.zeros(x.shape[0])
    lips = {}
    if model is not None:
        with torch.no_grad():
            phi_y = model.phi(x, y).pow(2).mean((1, 2, 3)).sqrt().numpy()
        pick = torch.from_numpy(lip_windows(task.test_traj_id.numpy(), cfg.lip_samples))
        g = torch.Generator().manual_seed(seed)
        for k in lip_at:
            xs = x[pick]
            lips[k] = metrics.lipschitz_lanczos(lambda h: model.update(xs, h, k), hs[k][pick].clone(),
                                                steps=cfg.lip_iters, generator=g, products=LIP_PRODUCTS).numpy()
    traj = task.test_traj_id.numpy()
    return Evaluation(v, sh, diffs, err, phi_y, lips, traj, task.n, K if K is not None else cfg.K,
                      lip_traj=traj[pick.numpy()] if model is not None else None)


def lip_windows(traj_id: np.ndarray, m: int) -> np.ndarray:
    """The ``m`` test windows claim 7's Lipschitz estimate reads, spread over the trajectories: the first window of
    every trajectory, then the second of every trajectory, and so on (session 14; before, the first ``m`` windows in
    the test set's order). Claim 7 counts trajectories, so as many trajectories as possible is what it needs."""
    traj_id = np.asarray(traj_id)
    rank = np.empty(len(traj_id), int)
    for t in np.unique(traj_id):
        at = np.flatnonzero(traj_id == t)
        rank[at] = np.arange(len(at))
    order = np.lexsort((traj_id, rank))           # by rank within the trajectory, then by trajectory
    return np.sort(order[:min(m, len(traj_id))])


# -- statistics ------------------------------------------------------------------------------------------
def cluster_bootstrap(stat, arrays: list[np.ndarray], clusters: np.ndarray, n_boot: int, seed: int = 0
                      ) -> tuple[float, float, float]:
    """``stat(*arrays)`` and its 95 % interval: the union of the percentile interval from resampling whole
    trajectories (clusters) with replacement (windows of one trajectory are correlated) and the two-sided 95 %
    t-interval over the statistic computed on each trajectory alone (with 4-12 trajectories the percentile
    bootstrap alone undercovers; the union can only be wider than either)."""
    ids = np.unique(clusters)
    members = [np.flatnonzero(clusters == c) for c in ids]
    rng = np.random.default_rng(seed)
    point = float(stat(*arrays))
    boots = np.empty(n_boot)
    for b in range(n_boot):
        pick = np.concatenate([members[i] for i in rng.integers(0, len(ids), len(ids))])
        boots[b] = stat(*[a[..., pick] for a in arrays])
    lo, hi = np.percentile(boots, [2.5, 97.5])
    per = np.array([stat(*[a[..., m] for a in arrays]) for m in members], dtype=float)
    _, t_lo = mean_t_bound(per, 0.975, "lower")
    _, t_hi = mean_t_bound(per, 0.975, "upper")
    return point, float(np.minimum(lo, t_lo)), float(np.maximum(hi, t_hi))


def relative_gain(v0: np.ndarray, vk: np.ndarray, clusters: np.ndarray, n_boot: int, seed: int = 0):
    """``1 - mean(vk)/mean(v0)`` (the paper's improvement) with its cluster-bootstrap 95 % interval."""
    return cluster_bootstrap(lambda a, b: 1.0 - b.mean() / a.mean(), [v0, vk], clusters, n_boot, seed)


def paired_difference(a: np.ndarray, b: np.ndarray, clusters: np.ndarray, n_boot: int, seed: int = 0):
    """``mean(a - b)`` with its cluster-bootstrap 95 % interval (paired: the same test samples)."""
    return cluster_bootstrap(lambda u, w: (u - w).mean(), [a, b], clusters, n_boot, seed)


def decay_ratio(diffs: np.ndarray, clusters: np.ndarray, n_boot: int, seed: int = 0):
    """Geometric rate of ``||h_{k+1} - h_k||``: ``exp`` of the least-squares slope of ``log mean_b diffs[k]`` on
    ``k``, with its cluster-bootstrap interval."""
    k = np.arange(diffs.shape[0])

    def stat(d):
        return float(np.exp(np.polyfit(k, np.log(np.maximum(d.mean(-1), 1e-30)), 1)[0]))

    return cluster_bootstrap(stat, [diffs], clusters, n_boot, seed)


def correction_growth(diffs: np.ndarray, clusters: np.ndarray, n_boot: int, seed: int = 0
                      ) -> list[tuple[float, float, float]]:
    """The step-to-step growth of the mean correction, ``mean_b diffs[k] / mean_b diffs[k-1] - 1`` for each
    ``k = 1..len(diffs)-1``, each with its cluster-bootstrap 95 % interval (:func:`cluster_bootstrap`; claim 2's
    growth test reads it since session 12: a point test at 0 read a correction wobbling by 1 % at a numerical floor
    as growth). A correction that is exactly zero before and after does not grow (0); one that leaves an exact zero
    grows without bound (inf, on the resamples where it does)."""
    def stat(a, b):
        ma, mb = float(a.mean()), float(b.mean())
        if ma > 0:
            return mb / ma - 1.0
        return 0.0 if mb <= 0 else float("inf")

    out = []
    for k in range(1, diffs.shape[0]):
        if float(diffs[k - 1].mean()) <= 0:        # every sample's correction exactly zero: nothing to resample
            g = stat(diffs[k - 1], diffs[k])
            out.append((g, g, g))
        else:
            out.append(cluster_bootstrap(stat, [diffs[k - 1], diffs[k]], clusters, n_boot, seed))
    return out


#: the IRNO runs of the main study: (variant, base)
STUDY_RUNS = tuple((v, "fno") for v in VARIANTS) + (("irno", "tfno"), ("irno", "fno_many"))
#: what the study trains without its control arms (``cfg.controls = False``, ``default``): IRNO on the few-mode and
#: the many-mode FNO (claims 1-4 and 7), the few-mode FNO's plateau reference (claim 3), and nothing else
CORE_BASES = ("fno", "fno_many", "fno_long")
CORE_RUNS = (("irno", "fno"), ("irno", "fno_many"))


def study_plan(cfg: IRNOConfig) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``(bases, runs)`` the main study trains under ``cfg``: everything with ``cfg.controls`` (the default of the
    config, ``smoke`` and ``full``), the core of :data:`CORE_BASES` and :data:`CORE_RUNS` without it."""
    return (BASES, STUDY_RUNS) if cfg.controls else (CORE_BASES, CORE_RUNS)


def study(cfg: IRNOConfig, seed: int, show_progress: bool = True) -> dict:
    """The main study on one seed (the chapter runs it on every seed of :meth:`.config.IRNOConfig.run_seeds`, one
    cached artefact per seed): the task, the bases (:data:`.config.BASES`), IRNO and its ablations on the FNO
    base, IRNO on the TFNO and many-mode bases, and every evaluation (k = 0..eval_steps; Lipschitz at k = 0, K, 2K
    for IRNO). Each base's outputs on the training inputs are computed once and shared by its refiners. Without
    ``cfg.controls`` only :func:`study_plan`'s core is trained (the record's ``bases``, ``runs``, ``evals`` and
    ``alone`` then hold those keys only)."""
    plan_bases, plan_runs = study_plan(cfg)
    task = make_task(cfg, seed, show_progress)
    bases = {k: train_base_operator(cfg, task, k, seed, show_progress) for k in plan_bases}
    h0 = {b: base_outputs(load_base(bases[b]), task.x_train) for b in dict.fromkeys(b for _, b in plan_runs)}
    runs = {(v, b): train_variant(cfg, task, bases[b], v, seed, show_progress, h0=h0[b]) for v, b in plan_runs}
    evals = {}
    for (v, b), rec in runs.items():
        model = load_irno(cfg, bases[b], rec)
        lip = (0, cfg.K, 2 * cfg.K) if (v, b) == ("irno", "fno") else ()
        evals[(v, b)] = evaluate(cfg, task, model, cfg.eval_steps, K=1 if v == "k1" else cfg.K, lip_at=lip,
                                 seed=seed)
        evals[(v, b)].loss_curve = np.asarray(rec["loss"], dtype=float)
        evals[(v, b)].early = rec["early"]
    alone = {k: evaluate(cfg, task, None, 0, base=load_base(bases[k])) for k in plan_bases}
    return {"seed": seed, "task": task, "bases": bases, "runs": runs, "evals": evals, "alone": alone}


def solver_checks(n: int = 32) -> dict:
    """The solver against what is known exactly (float64, a second): the Taylor–Green vortex's viscous decay
    (error at dt and dt/2, so the order shows), energy and enstrophy of an unforced inviscid run (relative drift),
    and the 2/3-rule nonlinear term against its closed form for omega = cos x + cos 2y."""
    from .ns2d import NSSolver, energy, enstrophy, random_vorticity, taylor_green

    nu, t_end = 0.05, 1.0
    w = taylor_green(n)
    tg = {}
    for dt in (0.02, 0.01):
        s = NSSolver(n, nu=nu, dt=dt)
        out = s.run(w, round(t_end / dt))
        tg[dt] = float((out - w * math.exp(-2 * nu * t_end)).abs().max() / w.abs().max())
    s = NSSolver(n, nu=0.0, dt=0.005)
    w0 = s.to_grid(s.to_hat(random_vorticity(2, n, torch.Generator().manual_seed(0))))
    w1 = s.run(w0, 100)
    e_drift = float((energy(w1) / energy(w0) - 1).abs().max())
    z_drift = float((enstrophy(w1) / enstrophy(w0) - 1).abs().max())
    x = torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)
    X, Y = x.reshape(n, 1), x.reshape(1, n)
    s = NSSolver(n, nu=0.0, dt=0.01)
    nl = s.to_grid(s.nonlinear(s.to_hat(torch.cos(X) + torch.cos(2 * Y))))
    nl_err = float((nl - 1.5 * torch.sin(X) * torch.sin(2 * Y)).abs().max())
    return {"tg_error": tg, "tg_order": math.log2(tg[0.02] / tg[0.01]), "energy_drift": e_drift,
            "enstrophy_drift": z_drift, "nonlinear_error": nl_err, "n": n, "nu": nu}


# -- super-resolution (our stand-in for the paper's ERA5 setting) ------------------------------------------
@dataclasses.dataclass
class SRTask:
    """Super-resolution samples, z-scored with the training targets' mean and standard deviation.

    x_* : ``(N, 1, fine, fine)`` the coarse observation (block average to ``coarse^2``) Fourier-interpolated back to
    the fine grid (its band-limited interpolant: modes ``|k_x|, |k_y| < coarse/2``).  y_* : ``(N, 1, fine, fine)``
    the fine field.  coarse_test : ``(N_test, 1, coarse, coarse)`` the coarse observations themselves.
    climatology : ``(1, 1, fine, fine)`` the per-pixel mean of the training targets (normalised units), the
    reference of the anomaly correlation.  test_traj_id : the trajectory of each test sample."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    coarse_test: torch.Tensor
    climatology: torch.Tensor
    test_traj_id: torch.Tensor
    mean: float
    std: float
    coarse: int
    fine: int
    seconds: float


def make_sr_task(cfg: IRNOConfig, seed: int, show_progress: bool = True) -> SRTask:
    """Simulate ``sr_train_traj + sr_test_traj`` independent Kolmogorov flows (the chapter's flow parameters) on the
    ``sr_sim`` grid, keep ``sr_frames`` snapshots each at ``sr_fine^2``, and observe each by block averaging to
    ``sr_coarse^2``."""
    t0 = time.perf_counter()
    T = cfg.sr_train_traj + cfg.sr_test_traj
    dt = cfg.dt * min(1.0, cfg.n_sim / cfg.sr_sim)                                # the same CFL number
    dt = cfg.sr_dt_frame / max(1, round(cfg.sr_dt_frame / dt))                     # a divisor of the frame step
    data = simulate_dataset(T, cfg.sr_frames, cfg.sr_fine, n_sim=cfg.sr_sim, nu=cfg.nu, drag=cfg.drag,
                            forcing_amp=cfg.forcing_amp, forcing_k=cfg.forcing_k, dt=dt, dt_frame=cfg.sr_dt_frame,
                            spinup=cfg.spinup, seed=5000 + seed, device=pick_device("auto"),
                            show_progress=show_progress)
    f = data.frames                                                       # (T, frames, fine, fine)
    train, test = f[:cfg.sr_train_traj], f[cfg.sr_train_traj:]
    mean, std = float(train.mean()), float(train.std())

    def samples(frames):
        y = ((frames - mean) / std).reshape(-1, 1, cfg.sr_fine, cfg.sr_fine)
        c = coarsen(y, cfg.sr_coarse)
        return spectral_resample(c, cfg.sr_fine), y, c

    xtr, ytr, _ = samples(train)
    xte, yte, cte = samples(test)
    ids = torch.arange(cfg.sr_test_traj).repeat_interleave(cfg.sr_frames)
    return SRTask(xtr, ytr, xte, yte, cte, ytr.mean(0, keepdim=True), ids, mean, std, cfg.sr_coarse, cfg.sr_fine,
                  time.perf_counter() - t0)


@dataclasses.dataclass
class SREvaluation:
    """Super-resolution metrics along the iteration ``k = 0..steps`` (``k = 0``: the base): ``rfne``, ``acc``,
    ``vrmse`` ``(steps+1, B)`` (RFNE on physical fields, ACC against the training climatology, VRMSE in the
    normalised space); ``shell`` ``(steps+1, B, R)`` the shell errors; ``traj_id`` ``(B,)``; ``K``, ``n``."""

    rfne: np.ndarray
    acc: np.ndarray
    vrmse: np.ndarray
    shell: np.ndarray
    traj_id: np.ndarray
    n: int
    K: int
    #: the refiner's training loss, one value per epoch (shown; the convergence guard reads ``early``)
    loss_curve: np.ndarray | None = None
    #: the compared metric (mean test RFNE at K) of the same run after 2/3 of its updates (the convergence guard)
    early: EarlyMetric | None = None

    def compared(self) -> float:
        """The compared metric the convergence guard reads: the mean test RFNE at the training horizon K."""
        return float(self.rfne[self.K].mean())


def evaluate_sr(task: SRTask, model: IRNO, steps: int, K: int) -> SREvaluation:
    """The metrics of :class:`SREvaluation` for ``model`` on the test samples of ``task``."""
    with torch.no_grad():
        hs = model(task.x_test, steps)
    y = task.y_test
    phys = lambda z: z * task.std + task.mean  # noqa: E731
    r = torch.stack([metrics.rfne(phys(h), phys(y)) for h in hs]).numpy()
    a = torch.stack([metrics.acc(h, y, task.climatology) for h in hs]).numpy()
    v = torch.stack([metrics.vrmse(h, y).mean(1) for h in hs]).numpy()
    sh = torch.stack([metrics.shell_errors(h, y) for h in hs]).numpy()
    return SREvaluation(r, a, v, sh, task.test_traj_id.numpy(), task.fine, K)


def sr_study(cfg: IRNOConfig, seed: int, show_progress: bool = True) -> dict:
    """The super-resolution experiment on one seed: the task, a few-mode FNO base trained by MSE on it and frozen,
    the same base trained from the same start with IRNO's extra epochs too (``long_rfne``: its test RFNE, the
    plateau reference of claims 10 and 11), the test RFNE of the Fourier-interpolated observation itself
    (``interp_rfne``, the trivial super-resolution the base must beat), IRNO trained on the base with the main recipe (``K``, ``alpha``, the
    progressive spectral loss and the fixed-point term), and its evaluation to ``eval_steps``."""
    task = make_sr_task(cfg, seed, show_progress)
    torch.manual_seed(30_000 + seed)
    kw = dict(in_channels=1, out_channels=1, layers=cfg.base_layers, width=cfg.base_width, modes=cfg.sr_base_modes,
              factorization="dense")
    base = FNO2d(**kw)
    t0 = time.perf_counter()
    train_base(base, task.x_train, task.y_train, epochs=cfg.sr_base_epochs, batch=cfg.sr_batch, lr=cfg.base_lr,
               seed=seed, desc="SR base FNO", show_progress=show_progress)
    base_s = time.perf_counter() - t0
    base.requires_grad_(False).eval()
    torch.manual_seed(30_000 + seed)                         # the same base from the same start, with the extra epochs
    long = FNO2d(**kw)
    train_base(long, task.x_train, task.y_train, epochs=cfg.sr_base_epochs + cfg.sr_irno_epochs, batch=cfg.sr_batch,
               lr=cfg.base_lr, seed=seed, desc="SR base FNO, extra epochs", show_progress=show_progress)
    phys = lambda z: z * task.std + task.mean  # noqa: E731
    with torch.no_grad():
        long_rfne = metrics.rfne(phys(long(task.x_test)), phys(task.y_test)).numpy()
    interp_rfne = metrics.rfne(phys(task.x_test), phys(task.y_test)).numpy()     # the interpolated observation
    steps = cfg.sr_irno_epochs * math.ceil(task.x_train.shape[0] / cfg.sr_batch)
    spec = LossSpec(K=cfg.K, beta_spec=cfg.beta_spec, lam_start=cfg.lam_start, lam_end=cfg.lam_end,
                    beta_fp=cfg.beta_fp, fp_warmup=max(1, round(cfg.fp_warmup_frac * steps)))
    torch.manual_seed(40_000 + seed)
    model = IRNO(base, make_refiner(1, 1, cfg.unet_base, cfg.unet_depth), alpha=cfg.alpha)

    def rfne_at_k(m) -> float:                     # the same numbers as evaluate_sr's rfne[K].mean()
        dev = next(m.refiners.parameters()).device
        h = m(task.x_test.to(dev), cfg.K)[cfg.K]
        return float(metrics.rfne(phys(h), phys(task.y_test.to(dev))).mean())

    t0 = time.perf_counter()
    tr = train_irno(model, task.x_train, task.y_train, spec, epochs=cfg.sr_irno_epochs, batch=cfg.sr_batch,
                    lr=cfg.irno_lr, seed=seed, desc="SR IRNO", show_progress=show_progress,
                    h0=base_outputs(base, task.x_train), early=rfne_at_k, extend=cfg.plateau_extend)
    irno_s = time.perf_counter() - t0
    model.requires_grad_(False).eval()
    ev = evaluate_sr(task, model, cfg.eval_steps, cfg.K)
    ev.loss_curve = np.asarray(tr.history("loss")[1], dtype=float)
    ev.early = _early_metric(tr, cfg.sr_irno_epochs)
    return {"seed": seed, "task": task, "base_kwargs": kw,
            "base_state": {k: v.cpu() for k, v in base.state_dict().items()},
            "refiner_state": {k: v.cpu() for k, v in model.refiners.state_dict().items()},
            "eval": ev, "long_rfne": long_rfne, "interp_rfne": interp_rfne, "base_seconds": base_s, "irno_seconds": irno_s, "base_params": count_parameters(base),
            "refiner_params": count_parameters(model.refiners)}


def load_sr_irno(cfg: IRNOConfig, rec: dict) -> IRNO:
    """The frozen IRNO of an :func:`sr_study` record."""
    base = FNO2d(**rec["base_kwargs"])
    base.load_state_dict(rec["base_state"])
    model = IRNO(base.requires_grad_(False).eval(), make_refiner(1, 1, cfg.unet_base, cfg.unet_depth), alpha=cfg.alpha)
    model.refiners.load_state_dict(rec["refiner_state"])
    return model.requires_grad_(False).eval()
