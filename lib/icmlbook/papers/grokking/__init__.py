"""Grokking in ridge regression, and in a small network: the library of the ``grokking`` chapter.

Paper: Mingyue Xu, Gal Vardi, Itay Safran, "To Grok Grokking: Provable Grokking in Ridge
Regression", ICML 2026, arXiv 2601.19791 (https://arxiv.org/abs/2601.19791).

What is reproduced
    The paper's setting: a linear student over fixed features, a realisable noiseless teacher, the
    ridge objective :math:`\\frac1{2n}\\lVert\\Phi(\\theta-\\theta^*)\\rVert^2+\\frac\\lambda2\\lVert\\theta\\rVert^2`,
    full-batch GD from :math:`\\mathcal N(0,\\nu^2I)`; the three stages (fast fit, memorisation
    plateau, late generalisation) and how the grokking time depends on :math:`\\eta`, :math:`\\lambda`
    and :math:`\\nu` (:mod:`.linear`, :mod:`.experiments`).

What is our own derivation or reconstruction
    The paper's theorem statements, constants and figures were not reachable. The exact trajectory
    (closed form in the eigenbasis of :math:`H=\\Phi^\\top\\Phi/n`), the predicted fit and grokking
    times, the spiked Gaussian design that makes the end state generalise, the numeric tolerances
    of the claims (:mod:`.claims`) and the whole network part (:mod:`.nn`: modular addition with
    a two-layer quadratic-activation MLP, AdamW with decoupled weight decay, init scaled by
    :math:`\\alpha`, "in the spirit of" the paper's non-linear experiments) are ours.

Modules: :mod:`.config` (sizes per profile), :mod:`.linear` (data, exact dynamics, theory),
:mod:`.nn` (batched MLPs on modular addition), :mod:`.experiments` (one function per claim,
returning arrays), :mod:`.analysis` (fits), :mod:`.claims` (the claims' decision rules, registered).
"""

from .analysis import SlopeFit, linear_fit, loglog_slope, nn_time_table
from . import claims
from .config import PRESETS, GrokkingConfig, config_for
from .experiments import (
                       ClosedFormCheck,
                       FitTimeGrid,
                       NNGrid,
                       fit_time_grid,
                       EliminationTradeoff,
                       EtaLamGrid,
                       NuSweep,
                       SampleSizeSweep,
                       StageCurves,
                       closed_form_vs_gd,
                       elimination_tradeoff,
                       eta_lam_grid,
                       make_problem,
                       nn_grid,
                       nu_sweep,
                       sample_size_sweep,
                       three_stage_curves,
)
from .linear import (
                       GDTrajectory,
                       LinearData,
                       RidgeProblem,
                       closed_form_trajectory,
                       expected_initial_train_loss,
                       first_crossing_time,
                       gd_loop,
                       log_time_grid,
                       predicted_fit_time,
                       predicted_grokking_time,
                       slowest_row_contraction,
                       spiked_gaussian_design,
                       unit_sphere_design,
)
from .nn import (
                       BatchedMLP,
                       ModularAdditionData,
                       NNRun,
                       modular_addition_data,
                       per_model_loss,
                       train_modular_grid,
                       train_modular_mlps,
)

__all__ = [
    # config
    "GrokkingConfig", "PRESETS", "config_for",
    # linear theory
    "LinearData", "spiked_gaussian_design", "unit_sphere_design", "RidgeProblem", "GDTrajectory",
    "closed_form_trajectory", "gd_loop", "first_crossing_time", "log_time_grid", "predicted_fit_time",
    "predicted_grokking_time", "expected_initial_train_loss", "slowest_row_contraction",
    # network
    "ModularAdditionData", "modular_addition_data", "BatchedMLP", "per_model_loss", "NNRun",
    "train_modular_mlps", "train_modular_grid",
    # experiments
    "make_problem", "StageCurves", "three_stage_curves", "EtaLamGrid", "eta_lam_grid", "NuSweep", "nu_sweep",
    "SampleSizeSweep", "sample_size_sweep", "EliminationTradeoff", "elimination_tradeoff", "ClosedFormCheck",
    "closed_form_vs_gd", "nn_grid", "FitTimeGrid", "fit_time_grid", "NNGrid",
    # analysis (the claims' rules: icmlbook.papers.grokking.claims)
    "SlopeFit", "linear_fit", "loglog_slope", "nn_time_table", "claims",
]
