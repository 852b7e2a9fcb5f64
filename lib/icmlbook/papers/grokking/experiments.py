r"""The experiments of the grokking chapter, one function per claim; each returns arrays, never plots.

Paper: Xu, Vardi & Safran, "To Grok Grokking: Provable Grokking in Ridge Regression", ICML 2026,
arXiv 2601.19791. Claims are numbered as in the chapter's ledger (dossier section 5):

1. early overfitting, :math:`t_{\rm fit}\sim\frac{1}{\eta(s_{\min}+\lambda)}\log\frac{L_n(\theta_0)}{\epsilon}`
   with :math:`\lambda` up to a few :math:`s_{\min}`: :func:`fit_time_grid`;
2. a memorisation plateau of height :math:`\tfrac12\nu^2\operatorname{tr}(P_N\Sigma)`, still there at
   :math:`t=c/(\eta\lambda)`: :func:`nu_sweep`;
3. eventual generalisation, better with more data: :func:`sample_size_sweep`;
4. :math:`t_{\rm gen}\propto 1/(\eta\lambda)`: :func:`eta_lam_grid`;
5. :math:`t_{\rm gen}` linear in :math:`\ln\nu` with slope :math:`1/(\eta\lambda)`: :func:`nu_sweep`;
6. elimination by a small init, and the weight-decay trade-off: :func:`elimination_tradeoff`;
8. the same dependence on the step size, the weight decay and the initial scale in a non-linear network,
   and a control without weight decay: :func:`nn_grid`.

:func:`closed_form_vs_gd` checks our closed form against a plain GD loop (a test of our code, shown on
the page but not a claim of the paper).

:func:`three_stage_curves` gives the picture of the three stages (fit, plateau, generalisation).

Every function takes the :class:`~icmlbook.papers.grokking.config.GrokkingConfig` and a seed and is
deterministic for a given seed. Replicate ``r`` of a linear experiment uses the data set and initial
direction :math:`z` drawn from ``rng(seed, r, n)``; so the same replicate is the same problem in
every experiment, and :math:`\theta_0=\nu z` differs between settings only through the knobs.
All times are *measured* on simulated trajectories (exact integer first-crossing steps); the
predictions of :mod:`icmlbook.papers.grokking.linear` are returned beside them, never in their place.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from ...runtime.progress import progress
from ...runtime.seeding import rng
from .config import GrokkingConfig
from .linear import (
    RidgeProblem,
    gd_loop,
    log_time_grid,
    predicted_fit_time,
    predicted_grokking_time,
    spiked_gaussian_design,
)
from .nn import NNRun, train_modular_grid, train_modular_mlps

__all__ = [
    "ClosedFormCheck",
    "EliminationTradeoff",
    "EtaLamGrid",
    "NuSweep",
    "SampleSizeSweep",
    "StageCurves",
    "closed_form_vs_gd",
    "elimination_tradeoff",
    "eta_lam_grid",
    "FitTimeGrid",
    "NNGrid",
    "fit_time_grid",
    "make_problem",
    "nn_grid",
    "nu_sweep",
    "sample_size_sweep",
    "three_stage_curves",
]


def make_problem(cfg: GrokkingConfig, seed: int, replicate: int = 0, n: int | None = None
                 ) -> tuple[RidgeProblem, np.ndarray]:
    """Replicate ``replicate`` of the spiked design: the problem and the initial direction.

    Returns
    -------
    problem : RidgeProblem
        ``n`` (default ``cfg.n``) samples of the spiked design with ``cfg.m``, ``cfg.k``, ``cfg.sigma``.
    z : np.ndarray, shape ``(m,)``
        Standard normal; the initialisation is :math:`\\theta_0=\\nu z`.
    """
    n = cfg.n if n is None else int(n)
    g = rng(seed, replicate, n)
    data = spiked_gaussian_design(n, cfg.m, cfg.k, cfg.sigma, g)
    z = g.standard_normal(cfg.m)
    return RidgeProblem(data), z


def _horizon(cfg: GrokkingConfig, eta: float, lam: float) -> int:
    """Last step of a curve: ``decay_horizon`` e-folds of the null space."""
    return math.ceil(cfg.decay_horizon / (eta * lam))


def _grid(cfg: GrokkingConfig, eta: float, lam: float) -> np.ndarray:
    return log_time_grid(_horizon(cfg, eta, lam), cfg.t_points)


# --------------------------------------------------------------------------------------------
# (a) the three stages
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class StageCurves:
    """Training and test curves for ``S`` settings ``(nu, lam)`` at step size ``eta`` (replicate 0).

    Attributes
    ----------
    nus, lams : np.ndarray, shape ``(S,)``
    eta, eps_train, eps_test : float
    steps : np.ndarray, shape ``(T,)``, int
        Common log-spaced grid, up to ``decay_horizon / (eta * min(lams))``.
    train_loss, test_loss : np.ndarray, shape ``(S, T)``
        Training loss (no penalty) and exact population loss.
    memorisation : np.ndarray, shape ``(S, T)``
        :math:`\\tfrac12\\lVert\\Sigma^{1/2}P_N\\theta_t\\rVert^2`, the unseen part of the test loss.
    train_floor, test_floor : np.ndarray, shape ``(S,)``
        Losses of the ridge solution :math:`\\theta_\\lambda` (where the curves end up).
    t_fit, t_gen : np.ndarray, shape ``(S,)``
        Measured first steps with training loss <= ``eps_train`` / test loss <= ``eps_test``.
    t_fit_pred, t_gen_pred : np.ndarray, shape ``(S,)``
        Predictions using the realised initialisation.
    s_min, null_trace : float
    """

    nus: np.ndarray
    lams: np.ndarray
    eta: float
    eps_train: float
    eps_test: float
    steps: np.ndarray
    train_loss: np.ndarray
    test_loss: np.ndarray
    memorisation: np.ndarray
    train_floor: np.ndarray
    test_floor: np.ndarray
    t_fit: np.ndarray
    t_gen: np.ndarray
    t_fit_pred: np.ndarray
    t_gen_pred: np.ndarray
    s_min: float
    null_trace: float


def three_stage_curves(cfg: GrokkingConfig, seed: int) -> StageCurves:
    """Curves of every ``(nu, lam)`` in ``cfg.curve_nus x cfg.curve_lams`` at ``cfg.eta``."""
    problem, z = make_problem(cfg, seed)
    settings = [(nu, lam) for lam in cfg.curve_lams for nu in cfg.curve_nus]
    steps = _grid(cfg, cfg.eta, min(cfg.curve_lams))
    out = {k: [] for k in ("train", "test", "mem", "trf", "tef", "tf", "tg", "tfp", "tgp")}
    for nu, lam in settings:
        traj = problem.trajectory(nu * z, cfg.eta, lam)
        out["train"].append(traj.train_loss(steps))
        out["test"].append(traj.test_loss(steps))
        out["mem"].append(0.5 * traj.null_norm(steps))
        out["trf"].append(problem.ridge_train_loss(lam))
        out["tef"].append(problem.ridge_test_loss(lam))
        out["tf"].append(traj.first_time_below("train", cfg.eps_train, steps))
        out["tg"].append(traj.first_time_below("test", cfg.eps_test, steps))
        out["tfp"].append(predicted_fit_time(problem, cfg.eta, lam, cfg.eps_train, theta0=nu * z))
        out["tgp"].append(predicted_grokking_time(problem, cfg.eta, lam, cfg.eps_test, theta0=nu * z))
    a = {k: np.asarray(v) for k, v in out.items()}
    return StageCurves(nus=np.array([s[0] for s in settings]), lams=np.array([s[1] for s in settings]),
                       eta=cfg.eta, eps_train=cfg.eps_train, eps_test=cfg.eps_test, steps=steps,
                       train_loss=a["train"], test_loss=a["test"], memorisation=a["mem"],
                       train_floor=a["trf"], test_floor=a["tef"], t_fit=a["tf"], t_gen=a["tg"],
                       t_fit_pred=a["tfp"], t_gen_pred=a["tgp"], s_min=problem.s_min,
                       null_trace=problem.null_trace)


# --------------------------------------------------------------------------------------------
# (b) claims 1 and 4: the (eta, lam) grid
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class EtaLamGrid:
    """Measured and predicted times over ``S`` replicates x ``E`` step sizes x ``L`` weight decays.

    Attributes
    ----------
    etas : np.ndarray, shape ``(E,)``
    lams : np.ndarray, shape ``(L,)``
    nu, eps_train, eps_test : float
    t_fit, t_gen : np.ndarray, shape ``(S, E, L)``
        Measured exact first-crossing steps.
    t_fit_pred, t_gen_pred : np.ndarray, shape ``(S, E, L)``
        Predictions with the realised initial loss / realised unseen component.
    t_gen_pred_expected : np.ndarray, shape ``(S, E, L)``
        Prediction with the expectation over the initialisation (:math:`\\nu^2\\operatorname{tr}(P_N\\Sigma)`).
    s_min, s_max : np.ndarray, shape ``(S,)``
    """

    etas: np.ndarray
    lams: np.ndarray
    nu: float
    eps_train: float
    eps_test: float
    t_fit: np.ndarray
    t_gen: np.ndarray
    t_fit_pred: np.ndarray
    t_gen_pred: np.ndarray
    t_gen_pred_expected: np.ndarray
    s_min: np.ndarray
    s_max: np.ndarray


def eta_lam_grid(cfg: GrokkingConfig, seed: int, show_progress: bool = True) -> EtaLamGrid:
    """Times to fit and to generalise over ``cfg.eta_grid x cfg.lam_grid`` at ``cfg.nu``."""
    S, E, L = cfg.n_seeds, len(cfg.eta_grid), len(cfg.lam_grid)
    names = ("t_fit", "t_gen", "t_fit_pred", "t_gen_pred", "t_gen_pred_expected")
    res = {k: np.empty((S, E, L)) for k in names}
    s_min, s_max = np.empty(S), np.empty(S)
    for r in progress(range(S), desc="eta x lam grid", disable=not show_progress):
        problem, z = make_problem(cfg, seed, r)
        theta0 = cfg.nu * z
        s_min[r], s_max[r] = problem.s_min, problem.s_max
        for i, eta in enumerate(cfg.eta_grid):
            for j, lam in enumerate(cfg.lam_grid):
                traj = problem.trajectory(theta0, eta, lam)
                steps = _grid(cfg, eta, lam)
                res["t_fit"][r, i, j] = traj.first_time_below("train", cfg.eps_train, steps)
                res["t_gen"][r, i, j] = traj.first_time_below("test", cfg.eps_test, steps)
                res["t_fit_pred"][r, i, j] = predicted_fit_time(problem, eta, lam, cfg.eps_train, theta0=theta0)
                res["t_gen_pred"][r, i, j] = predicted_grokking_time(problem, eta, lam, cfg.eps_test, theta0=theta0)
                res["t_gen_pred_expected"][r, i, j] = predicted_grokking_time(problem, eta, lam, cfg.eps_test,
                                                                             nu=cfg.nu)
    return EtaLamGrid(etas=np.asarray(cfg.eta_grid, float), lams=np.asarray(cfg.lam_grid, float), nu=cfg.nu,
                      eps_train=cfg.eps_train, eps_test=cfg.eps_test, s_min=s_min, s_max=s_max, **res)


@dataclasses.dataclass
class FitTimeGrid:
    """Measured times to fit the training set over ``S`` replicates x ``E`` step sizes x ``L`` weight decays.

    The weight decays are ``cfg.lam_grid`` followed by ``cfg.fit_lam_ratios`` times each replicate's
    :math:`s_{\\min}`, so :math:`\\lambda` ranges from far below to above :math:`s_{\\min}`. Because the
    training loss then tends to a floor that rises with :math:`\\lambda`, ``t_fit`` is the first step at
    which the training loss is within ``eps_train`` of its limit.

    Attributes
    ----------
    etas : np.ndarray, shape ``(E,)``
    lams : np.ndarray, shape ``(S, L)``
    nu, eps_train : float
    t_fit : np.ndarray, shape ``(S, E, L)``
        Measured exact first-crossing steps.
    scale : np.ndarray, shape ``(S, E, L)``
        The predicted fit scale :math:`\\ln(L_n(\\theta_0)/\\epsilon_{tr})/(2\\eta(s_{\\min}+\\lambda))`
        (realised initial loss): a rate, not a bound we force the data under.
    scale_lam_free : np.ndarray, shape ``(S, E, L)``
        The same without :math:`\\lambda` (:math:`\\ln(\\cdot)/(2\\eta s_{\\min})`), the competing law in
        which weight decay does not speed up fitting.
    s_min : np.ndarray, shape ``(S,)``
    """

    etas: np.ndarray
    lams: np.ndarray
    nu: float
    eps_train: float
    t_fit: np.ndarray
    scale: np.ndarray
    scale_lam_free: np.ndarray
    s_min: np.ndarray


def fit_time_grid(cfg: GrokkingConfig, seed: int, show_progress: bool = True) -> FitTimeGrid:
    """Times to fit over ``cfg.eta_grid`` x (``cfg.lam_grid`` + ``cfg.fit_lam_ratios * s_min``) at ``cfg.nu``."""
    S, E = cfg.n_seeds, len(cfg.eta_grid)
    L = len(cfg.lam_grid) + len(cfg.fit_lam_ratios)
    lams = np.empty((S, L))
    out = {k: np.empty((S, E, L)) for k in ("t_fit", "scale", "scale_lam_free")}
    s_min = np.empty(S)
    for r in progress(range(S), desc="fit-time grid", disable=not show_progress):
        problem, z = make_problem(cfg, seed, r)
        theta0 = cfg.nu * z
        s_min[r] = problem.s_min
        lams[r] = np.r_[np.asarray(cfg.lam_grid, float), np.asarray(cfg.fit_lam_ratios, float) * problem.s_min]
        log_init = np.log(float(problem.train_loss(theta0)) / cfg.eps_train)
        for i, eta in enumerate(cfg.eta_grid):
            for j, lam in enumerate(lams[r]):
                traj = problem.trajectory(theta0, eta, lam)
                # the fit happens on the row-space time scale; 40 e-folds of the slowest mode is ample
                steps = log_time_grid(math.ceil(40.0 / (eta * (problem.s_min + lam))), cfg.t_points)
                out["t_fit"][r, i, j] = traj.first_time_below(
                    "train", problem.ridge_train_loss(lam) + cfg.eps_train, steps)
                out["scale"][r, i, j] = log_init / (2.0 * eta * (problem.s_min + lam))
                out["scale_lam_free"][r, i, j] = log_init / (2.0 * eta * problem.s_min)
    return FitTimeGrid(etas=np.asarray(cfg.eta_grid, float), lams=lams, nu=cfg.nu, eps_train=cfg.eps_train,
                       s_min=s_min, **out)


# --------------------------------------------------------------------------------------------
# (c) claims 2 and 5: the initial scale
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class NuSweep:
    """Plateau heights and grokking times over ``S`` replicates x ``V`` initial scales.

    Attributes
    ----------
    nus : np.ndarray, shape ``(V,)``
    eta, lam, eps_train, eps_test : float
    t_fit, t_gen : np.ndarray, shape ``(S, V)``
        Measured exact first-crossing steps.
    t_gen_pred, t_gen_pred_expected : np.ndarray, shape ``(S, V)``
        Predicted grokking times (realised / expected unseen component).
    plateau : np.ndarray, shape ``(S, V)``
        Test loss at the moment the training set is fit (step ``t_fit``): the memorisation plateau.
    plateau_pred : np.ndarray, shape ``(S, V)``
        :math:`\\tfrac12\\nu^2\\operatorname{tr}(P_N\\Sigma)`, its expected height from the unseen part.
    test_floor : np.ndarray, shape ``(S,)``
        :math:`L(\\theta_\\lambda)`.
    t_persist : int
        :math:`\\lceil c/(\\eta\\lambda)\\rceil` with ``c = cfg.persist_c``.
    persist_test : np.ndarray, shape ``(S, V)``
        Test loss at ``t_persist``.
    """

    nus: np.ndarray
    eta: float
    lam: float
    eps_train: float
    eps_test: float
    t_fit: np.ndarray
    t_gen: np.ndarray
    t_gen_pred: np.ndarray
    t_gen_pred_expected: np.ndarray
    plateau: np.ndarray
    plateau_pred: np.ndarray
    test_floor: np.ndarray
    t_persist: int
    persist_test: np.ndarray


def nu_sweep(cfg: GrokkingConfig, seed: int, show_progress: bool = True) -> NuSweep:
    """Sweep :math:`\\theta_0=\\nu z` over ``cfg.nu_grid`` at ``cfg.eta``, ``cfg.lam`` (batched over nu)."""
    nus = np.asarray(cfg.nu_grid, dtype=float)
    S, V = cfg.n_seeds, nus.size
    res = {k: np.empty((S, V)) for k in ("t_fit", "t_gen", "t_gen_pred", "t_gen_pred_expected", "plateau",
                                          "plateau_pred", "persist_test")}
    t_persist = math.ceil(cfg.persist_c / (cfg.eta * cfg.lam))
    floor = np.empty(S)
    steps = _grid(cfg, cfg.eta, cfg.lam)
    for r in progress(range(S), desc="nu sweep", disable=not show_progress):
        problem, z = make_problem(cfg, seed, r)
        theta0 = nus[:, None] * z  # (V, m)
        traj = problem.trajectory(theta0, cfg.eta, cfg.lam)
        res["t_fit"][r] = traj.first_time_below("train", cfg.eps_train, steps)
        res["t_gen"][r] = traj.first_time_below("test", cfg.eps_test, steps)
        res["t_gen_pred"][r] = predicted_grokking_time(problem, cfg.eta, cfg.lam, cfg.eps_test, theta0=theta0)
        res["t_gen_pred_expected"][r] = [predicted_grokking_time(problem, cfg.eta, cfg.lam, cfg.eps_test, nu=nu)
                                         for nu in nus]
        t_fit = res["t_fit"][r]
        at = np.where(np.isfinite(t_fit), t_fit, steps[-1]).astype(np.int64)
        res["plateau"][r] = traj.test_loss(at[:, None])[:, 0]
        res["plateau_pred"][r] = 0.5 * nus**2 * problem.null_trace
        res["persist_test"][r] = traj.test_loss(np.array([t_persist]))[:, 0]
        floor[r] = problem.ridge_test_loss(cfg.lam)
    return NuSweep(nus=nus, eta=cfg.eta, lam=cfg.lam, eps_train=cfg.eps_train, eps_test=cfg.eps_test,
                   test_floor=floor, t_persist=t_persist, **res)


# --------------------------------------------------------------------------------------------
# (d) claim 3: the end state and the sample size
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SampleSizeSweep:
    """The end of training for ``S`` replicates x ``N`` sample sizes (at ``eta``, ``lam``, ``nu``).

    Attributes
    ----------
    ns : np.ndarray, shape ``(N,)``, int
        ``cfg.n_grid`` with the chapter's ``cfg.n`` added if it is missing.
    n_ref : int
        The chapter's ``n``.
    eta, lam, nu, eps_test : float
    t_end : int
        The step at which the final losses are measured (``decay_horizon / (eta * lam)``).
    final_test, final_train : np.ndarray, shape ``(S, N)``
        Losses of the simulated iterate at ``t_end``.
    test_floor : np.ndarray, shape ``(S, N)``
        :math:`L(\\theta_\\lambda)`, the limit of the test loss.
    t_gen : np.ndarray, shape ``(S, N)``
        Measured grokking time (``inf`` where the floor stays above ``eps_test``).
    """

    ns: np.ndarray
    n_ref: int
    eta: float
    lam: float
    nu: float
    eps_test: float
    t_end: int
    final_test: np.ndarray
    final_train: np.ndarray
    test_floor: np.ndarray
    t_gen: np.ndarray


def sample_size_sweep(cfg: GrokkingConfig, seed: int, show_progress: bool = True) -> SampleSizeSweep:
    """Final test and training loss as the number of samples grows (``cfg.n_grid``)."""
    ns = np.unique(np.asarray(cfg.n_grid + (cfg.n,), dtype=np.int64))
    S, N = cfg.n_seeds, ns.size
    res = {k: np.empty((S, N)) for k in ("final_test", "final_train", "test_floor", "t_gen")}
    steps = _grid(cfg, cfg.eta, cfg.lam)
    jobs = [(r, j) for r in range(S) for j in range(N)]
    for r, j in progress(jobs, desc="sample sizes", disable=not show_progress):
        problem, z = make_problem(cfg, seed, r, n=int(ns[j]))
        traj = problem.trajectory(cfg.nu * z, cfg.eta, cfg.lam)
        res["final_test"][r, j] = traj.test_loss(steps[-1:])[0]
        res["final_train"][r, j] = traj.train_loss(steps[-1:])[0]
        res["test_floor"][r, j] = problem.ridge_test_loss(cfg.lam)
        res["t_gen"][r, j] = traj.first_time_below("test", cfg.eps_test, steps)
    return SampleSizeSweep(ns=ns, n_ref=cfg.n, eta=cfg.eta, lam=cfg.lam, nu=cfg.nu, eps_test=cfg.eps_test,
                           t_end=int(steps[-1]), **res)


# --------------------------------------------------------------------------------------------
# (e) claim 6: elimination by a small init; the weight-decay trade-off
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class EliminationTradeoff:
    """Two ways to remove grokking, over ``S`` replicates.

    Small initialisation (at ``eta``, ``lam``; absolute thresholds ``eps_train``, ``eps_test``):

    Attributes
    ----------
    nu_small, nu_large : float
    t_fit_small, t_gen_small, t_fit_large, t_gen_large : np.ndarray, shape ``(S,)``
    memorisation_small : np.ndarray, shape ``(S,)``
        :math:`\\tfrac12\\nu_{\\rm small}^2\\operatorname{tr}(P_N\\Sigma)`; elimination is predicted
        when it is below ``eps_test``.

    Weight decay raised towards :math:`s_{\\min}` (at ``eta``, ``nu_large``), with thresholds
    *relative to the floors* (``t_fit``: training loss <= its limit + ``eps_train``; ``t_gen``: test
    loss <= :math:`L(\\theta_\\lambda)` + ``eps_test``), because the floors themselves rise with
    :math:`\\lambda` and would otherwise never be crossed:

    lam_ratios : np.ndarray, shape ``(R,)``
        :math:`\\lambda/s_{\\min}`.
    lams : np.ndarray, shape ``(S, R)``
    s_min : np.ndarray, shape ``(S,)``
    t_fit_tradeoff, t_gen_tradeoff : np.ndarray, shape ``(S, R)``
    final_train, final_test : np.ndarray, shape ``(S, R)``
        Losses of the simulated iterate after ``decay_horizon`` e-folds of the null space.
    eta, lam, eps_train, eps_test : float
    """

    nu_small: float
    nu_large: float
    t_fit_small: np.ndarray
    t_gen_small: np.ndarray
    t_fit_large: np.ndarray
    t_gen_large: np.ndarray
    memorisation_small: np.ndarray
    lam_ratios: np.ndarray
    lams: np.ndarray
    s_min: np.ndarray
    t_fit_tradeoff: np.ndarray
    t_gen_tradeoff: np.ndarray
    final_train: np.ndarray
    final_test: np.ndarray
    eta: float
    lam: float
    eps_train: float
    eps_test: float


def elimination_tradeoff(cfg: GrokkingConfig, seed: int, show_progress: bool = True) -> EliminationTradeoff:
    """Small init (``cfg.nu_small``) vs ``cfg.nu``; weight decay ``cfg.tradeoff_lam_ratios * s_min``."""
    S = cfg.n_seeds
    ratios = np.asarray(cfg.tradeoff_lam_ratios, dtype=float)
    R = ratios.size
    small = {k: np.empty(S) for k in ("t_fit_small", "t_gen_small", "t_fit_large", "t_gen_large",
                                      "memorisation_small", "s_min")}
    trade = {k: np.empty((S, R)) for k in ("lams", "t_fit_tradeoff", "t_gen_tradeoff", "final_train",
                                           "final_test")}
    steps = _grid(cfg, cfg.eta, cfg.lam)
    for r in progress(range(S), desc="elimination", disable=not show_progress):
        problem, z = make_problem(cfg, seed, r)
        traj = problem.trajectory(np.stack([cfg.nu_small * z, cfg.nu * z]), cfg.eta, cfg.lam)
        t_fit = traj.first_time_below("train", cfg.eps_train, steps)
        t_gen = traj.first_time_below("test", cfg.eps_test, steps)
        small["t_fit_small"][r], small["t_fit_large"][r] = t_fit
        small["t_gen_small"][r], small["t_gen_large"][r] = t_gen
        small["memorisation_small"][r] = 0.5 * cfg.nu_small**2 * problem.null_trace
        small["s_min"][r] = problem.s_min
        for j, ratio in enumerate(ratios):
            lam = float(ratio * problem.s_min)
            tr = problem.trajectory(cfg.nu * z, cfg.eta, lam)
            grid = _grid(cfg, cfg.eta, lam)
            trade["lams"][r, j] = lam
            trade["t_fit_tradeoff"][r, j] = tr.first_time_below(
                "train", problem.ridge_train_loss(lam) + cfg.eps_train, grid)
            trade["t_gen_tradeoff"][r, j] = tr.first_time_below(
                "test", problem.ridge_test_loss(lam) + cfg.eps_test, grid)
            trade["final_train"][r, j] = tr.train_loss(grid[-1:])[0]
            trade["final_test"][r, j] = tr.test_loss(grid[-1:])[0]
    return EliminationTradeoff(nu_small=cfg.nu_small, nu_large=cfg.nu, lam_ratios=ratios, eta=cfg.eta,
                               lam=cfg.lam, eps_train=cfg.eps_train, eps_test=cfg.eps_test, **small, **trade)


# --------------------------------------------------------------------------------------------
# (f) claim 7: closed form against the GD loop
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class ClosedFormCheck:
    """The closed form (CF) against a plain float64 GD loop, from one initialisation.

    Attributes
    ----------
    steps : np.ndarray, shape ``(T,)``, int
    rel_error : np.ndarray, shape ``(T,)``
        :math:`\\lVert\\theta^{\\rm CF}_t-\\theta^{\\rm GD}_t\\rVert/\\lVert\\theta^{\\rm GD}_t\\rVert`.
    train_rel_error, test_rel_error : np.ndarray, shape ``(T,)``
        Relative differences of the losses (CF formulas against direct evaluation on the GD iterate).
    max_rel_error : float
    eta, lam, nu : float
    gd_seconds, closed_form_seconds : float
        Wall time of the loop and of the closed form for the same steps.
    """

    steps: np.ndarray
    rel_error: np.ndarray
    train_rel_error: np.ndarray
    test_rel_error: np.ndarray
    max_rel_error: float
    eta: float
    lam: float
    nu: float
    gd_seconds: float
    closed_form_seconds: float


def closed_form_vs_gd(cfg: GrokkingConfig, seed: int) -> ClosedFormCheck:
    """Run ``cfg.gd_check_steps`` GD steps at ``cfg.eta``, ``cfg.lam``, ``cfg.nu``; compare with (CF)."""
    problem, z = make_problem(cfg, seed)
    theta0 = cfg.nu * z
    steps = log_time_grid(cfg.gd_check_steps, 25)
    t0 = time.perf_counter()
    traj = problem.trajectory(theta0, cfg.eta, cfg.lam)
    cf = traj.theta(steps)
    cf_train, cf_test = traj.train_loss(steps), traj.test_loss(steps)
    t1 = time.perf_counter()
    gd = gd_loop(problem, theta0, cfg.eta, cfg.lam, steps)
    t2 = time.perf_counter()
    rel = np.linalg.norm(cf - gd, axis=1) / np.linalg.norm(gd, axis=1)
    gd_train, gd_test = problem.train_loss(gd), problem.test_loss(gd)
    return ClosedFormCheck(steps=steps, rel_error=rel,
                           train_rel_error=np.abs(cf_train - gd_train) / np.abs(gd_train),
                           test_rel_error=np.abs(cf_test - gd_test) / np.abs(gd_test),
                           max_rel_error=float(rel.max()), eta=cfg.eta, lam=cfg.lam, nu=cfg.nu,
                           gd_seconds=t2 - t1, closed_form_seconds=t1 - t0)


# --------------------------------------------------------------------------------------------
# (g) claim 8: the modular-addition network
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class NNGrid:
    """The modular-addition networks of claim 8: one batched run per step size, and the control.

    Attributes
    ----------
    lrs : np.ndarray, shape ``(R,)``
        Step sizes :math:`\\eta` (``cfg.nn_lrs``).
    runs : tuple of NNRun, length ``R``
        ``runs[i]`` trains every ``(seed, lam, alpha)`` of ``cfg.nn_lams x cfg.nn_alphas`` at ``lrs[i]``
        (it stops once all its models have grokked and it has gone on 1.5 times as long).
    control : NNRun or None
        One network per seed without weight decay at the smallest initial scale and step size
        ``cfg.nn_lr``, trained for all ``cfg.nn_steps`` steps (no early stop); None without
        ``cfg.nn_baseline``.
    lr_ref : float
        ``cfg.nn_lr``.
    """

    lrs: np.ndarray
    runs: tuple
    control: NNRun | None
    lr_ref: float

    def run_at(self, lr: float) -> NNRun:
        """The run at step size ``lr`` (one of ``lrs``)."""
        hits = [r for r in self.runs if np.isclose(r.lr, lr)]
        if not hits:
            raise ValueError(f"lr={lr!r} is not allowed; the grid has lrs={self.lrs.tolist()}")
        return hits[0]

    def table(self) -> dict[str, np.ndarray]:
        """Every trained network with weight decay as flat arrays of length ``K_total``: ``lr``, ``lam``,
        ``alpha``, ``seed``, ``t_fit``, ``t_grok``."""
        cols = {k: [] for k in ("lr", "lam", "alpha", "seed", "t_fit", "t_grok")}
        for r in self.runs:
            cols["lr"].append(np.full(r.lam.size, r.lr))
            for k in ("lam", "alpha", "seed", "t_fit", "t_grok"):
                cols[k].append(np.asarray(getattr(r, k)))
        return {k: np.concatenate(v) for k, v in cols.items()}


def nn_grid(cfg: GrokkingConfig, seed: int, device=None, show_progress: bool = True) -> NNGrid:
    """Train the modular-addition MLPs of ``cfg.nn_lrs x cfg.nn_lams x cfg.nn_alphas`` for ``cfg.nn_n_seeds``
    seeds (one batched run per step size), and the controls without weight decay (``cfg.nn_baseline``).

    Seeds are ``seed, seed+1, ...``; a seed fixes the split and the base initial draw, shared by every
    setting of that seed.

    Parameters
    ----------
    device : torch.device or str, optional
        Default: :func:`icmlbook.runtime.device.pick_device` (CUDA when present).
    """
    if device is None:
        from ...runtime.device import pick_device

        device = pick_device("auto")
    seeds = [seed + i for i in range(cfg.nn_n_seeds)]
    common = dict(p=cfg.nn_p, train_fraction=cfg.nn_train_fraction, width=cfg.nn_width, steps=cfg.nn_steps,
                  optimizer=cfg.nn_optimizer, loss=cfg.nn_loss, activation=cfg.nn_activation, n_eval=cfg.nn_n_eval,
                  eval_every=cfg.nn_eval_every, fit_accuracy=cfg.nn_fit_accuracy,
                  grok_accuracy=cfg.nn_grok_accuracy, device=device, show_progress=show_progress)
    runs = tuple(train_modular_grid(lams=cfg.nn_lams, alphas=cfg.nn_alphas, seeds=seeds, lr=lr, **common)
                 for lr in cfg.nn_lrs)
    control = None
    if cfg.nn_baseline:
        # the control runs the whole budget: it must not stop when the decayed networks have grokked
        control = train_modular_mlps([(s, 0.0, min(cfg.nn_alphas)) for s in seeds], lr=cfg.nn_lr,
                                     stop_factor=None, **common)
    return NNGrid(lrs=np.asarray(cfg.nn_lrs, float), runs=runs, control=control, lr_ref=float(cfg.nn_lr))
