"""Ranking time series from pairwise comparisons with elastic ideal points: the library of the
``ts_pairwise_ranking`` chapter.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026 poster
(https://icml.cc/virtual/2026/poster/66190); authors and arXiv id not verified.

What is reproduced
    The building blocks named in the abstract: batched, anti-diagonal-vectorised DTW, soft-DTW (and its
    divergence), TWED and a differentiable soft-TWED in torch (:mod:`.distances`); an ideal point model
    for pairwise comparisons with these distances (:mod:`.model`); Lipschitz checks, recovery,
    robustness to noisy annotation, generalisation to unseen series, pairwise comparisons against
    individual labels at an equal budget, irregularly sampled series with TWED's time stamps
    (:mod:`.experiments`). Exact DTW and TWED without gradients take a lean two-anti-diagonal path
    (:func:`.distances.dtw_nograd`, :func:`.distances.twed_nograd`); with gradients, on the CPU, compiled
    numba kernels (:mod:`.cpu_kernels`).

What is our reconstruction
    Only the abstract was reachable. The likelihood (logistic link on distance differences), the
    soft-TWED construction (soft-min + smoothed norm), the Lipschitz constants, the synthetic warped
    family, the simulated annotators and all decision thresholds (:mod:`.config`, applied in :mod:`.claims`) are ours, following
    the dossier. No expert comparisons exist offline: every comparison is simulated from a latent score.

Modules: :mod:`.config`, :mod:`.distances`, :mod:`.data`, :mod:`.model`, :mod:`.baselines`,
:mod:`.experiments`, :mod:`.claims`, :mod:`.plots`, :mod:`.cpu_kernels`.
"""

from . import baselines, claims, data, distances, experiments, model
from .baselines import RankNet, bradley_terry_scores, noisy_label_classifier_scores, rank_centrality_scores
from .config import AEON_DATASETS, PRESETS, RankingConfig, config_for
from .data import (Comparisons, SeriesSet, borda_scores, ecg_family, load_aeon_series, majority_vote,
                   simulate_comparisons, simulate_from_scores, warped_family)
from .distances import (DISTANCES, distance, dtw, dtw_nograd, euclidean, soft_dtw, soft_dtw_divergence, soft_twed,
                        soft_twed_divergence, twed, twed_nograd)
from .experiments import (aeon_experiment, alignment_matrix, annotation_budget_experiment, crowd_experiment,
                          ecg_experiment, irregular_experiment, lipschitz_check, noise_sweep, playground_fit,
                          shifted_pair_demo, soft_dtw_speed, soft_twed_check, speed_check, tau, well_specified)
from .model import IdealPointFit, IdealPointModel

__all__ = [
    "claims", "baselines", "data", "distances", "experiments", "model",
    "RankingConfig", "PRESETS", "AEON_DATASETS", "config_for",
    "DISTANCES", "distance", "dtw", "soft_dtw", "soft_dtw_divergence", "twed", "soft_twed", "soft_twed_divergence",
    "euclidean", "dtw_nograd", "twed_nograd", "SeriesSet", "warped_family", "ecg_family", "load_aeon_series", "Comparisons", "simulate_comparisons",
    "simulate_from_scores", "majority_vote", "borda_scores", "IdealPointModel", "IdealPointFit",
    "bradley_terry_scores", "rank_centrality_scores", "RankNet", "noisy_label_classifier_scores",
    "tau", "alignment_matrix", "shifted_pair_demo", "soft_twed_check", "lipschitz_check", "noise_sweep",
    "well_specified", "crowd_experiment", "aeon_experiment", "ecg_experiment", "speed_check", "playground_fit",
    "annotation_budget_experiment", "irregular_experiment", "soft_dtw_speed",
]
