"""Sizes of the ``ts_pairwise_ranking`` chapter, per profile.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026
(https://icml.cc/virtual/2026/poster/66190). One frozen dataclass holds every knob; ``PRESETS`` gives
the three profiles (``smoke`` ≲ 90 s and ``default`` ≲ 10 min for the whole chapter on 2 CPU cores,
``full`` for a GPU) and :func:`config_for` applies overrides. A profile changes sizes only.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import (Float, Grid, Int, IntGrid, NonNegativeFloat, OneOf, PositiveFloat, PositiveInt,
                                Probability, ProfileConfig, profile_config)
from .distances import DISTANCES

__all__ = ["RankingConfig", "PRESETS", "config_for", "AEON_DATASETS"]

AEON_DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "ACSF1")


@profile_config
class RankingConfig(ProfileConfig):
    """Every size of the chapter, and the thresholds of the claim rules (fixed before the run).

    Data
    ----
    n_items : int
        Series compared by the annotators (the training items).
    n_test : int
        Held-out series, never compared, ranked by :math:`d(X,\\hat U)` (claim 6).
    length : int
        Length of the synthetic series (and of the ideal series :math:`U`).
    noise, warp, shift : float
        Additive noise, log-slope of the random monotone time warp, maximal random time shift
        (fraction of the duration) of the synthetic family.
    comparisons_per_item : int
        Comparisons per item (``n_items * comparisons_per_item`` in all) in claims 3-6 (and annotations
        per item in the annotation-budget experiment).
    beta_true : float
        Sharpness of the simulated annotators' logistic link on the latent scores.
    flips : tuple of float
        Flip probabilities of the robustness sweep (claim 4).
    n_seeds : int
        Independent data sets of the noise sweep (claims 4-6) and the crowd (claim 8).
    budget_seeds : int
        Independent data sets of the budget study (claims 3 and 7). Its own count, larger than ``n_seeds``
        (issue 28: with three data sets the interval of claim 7's slope could not tell a fall from a floor).
    budget_grid : tuple of int
        Comparisons per item of the convergence study (claim 7).
    n_annotators, annotator_flip : int, float
        The crowd of claim 8.
    motive_seeds, motive_annotators, motive_thresholds, motive_flip : int, int, (float, float), float
        The annotation-budget experiment (claim C0): independent data sets, annotators, the interval their
        private thresholds on the latent severity are drawn from, and their flip rate.

    Model and fit
    -------------
    distance : str
        Elastic distance of the main model (``"softdtw"`` or ``"softtwed"``; see :data:`DISTANCES`).
    gamma, nu, lam, eps : float
        Soft-min temperature, TWED stiffness and deletion penalty, norm smoothing.
    steps, lr : int, float
        Adam steps and step size of the ideal-point fit.
    n_pairs_check : int
        Random pairs of the soft-TWED and Lipschitz checks (claims 1 and 2).
    check_length : int
        Length of the series in those checks.
    aeon_dataset : str
        The aeon dataset of the real-shape experiment.
    aeon_length, ecg_length : int
        Length of the aeon series and of the simulated ECGs (2.5 s of signal, neurokit2).
    tslearn_reference : bool
        Compare soft-DTW with tslearn on the page (values and speed). tslearn compiles its numba kernels
        afresh in every process (about 20 s on a loaded 2-core machine), so the smoke profile leaves it to
        the tests and the benchmark.

    Rule thresholds (see :mod:`.claims`)
    ------------------------------------
    c1_twed_rtol, c1_grad_rtol : relative errors of soft-TWED (at the smallest gamma) and of its gradient.
    c2_slack : numerical slack on the Lipschitz ratio 1.
    c3_min_tau : recovery threshold on the well-specified data.
    c4_min_tau, c4_at_flip, c4_mono_tol : robustness threshold, the flip it applies at, and the largest rise of
        tau allowed between consecutive flips.
    c6_max_gap : largest shortfall of the held-out comparison accuracy below the planted ideal's own accuracy under
        the same distance (what the model family can reach; the true scores were the reference until issue 28).
    c7_max_slope : the upper end of the 95% interval of the error's log-log slope must lie below this.
    c8_margin : non-inferiority margin of the full likelihood against majority vote.
    c0_min_gain, c5_min_margin : the lower end of the 95% interval of the paired gains must lie above these.
    """

    n_items: Int(ge=10) = 100
    n_test: Int(ge=5) = 50
    length: Int(ge=8) = 32
    noise: NonNegativeFloat = 0.1
    warp: NonNegativeFloat = 0.3
    shift: Float(ge=0, le=0.4) = 0.12
    comparisons_per_item: PositiveInt = 5
    beta_true: PositiveFloat = 12.0
    flips: Grid(ge=0, le=0.5) = (0.0, 0.1, 0.2, 0.3)
    n_seeds: PositiveInt = 3
    budget_seeds: PositiveInt = 6
    budget_grid: IntGrid(ge=1, min_len=2) = (1, 2, 5, 10, 20)
    n_annotators: PositiveInt = 5
    annotator_flip: Float(ge=0, le=0.5) = 0.3
    motive_seeds: Int(ge=2) = 8
    motive_annotators: PositiveInt = 5
    motive_thresholds: Grid(ge=0, le=1, min_len=2) = (0.2, 0.8)
    motive_flip: Float(ge=0, le=0.5) = 0.1
    distance: OneOf("softdtw", "softtwed") = "softdtw"
    gamma: PositiveFloat = 0.1
    nu: NonNegativeFloat = 0.001
    lam: NonNegativeFloat = 1.0
    eps: NonNegativeFloat = 1e-3
    steps: PositiveInt = 100
    lr: PositiveFloat = 0.05
    n_pairs_check: Int(ge=10) = 1000
    check_length: Int(ge=4) = 50
    aeon_dataset: OneOf(*AEON_DATASETS) = "GunPoint"
    aeon_length: Int(ge=8) = 50
    ecg_length: Int(ge=8) = 48
    tslearn_reference: bool = True
    # ---- rule thresholds, fixed before the run ----
    c1_twed_rtol: PositiveFloat = 1e-3
    c1_grad_rtol: PositiveFloat = 1e-4
    c2_slack: NonNegativeFloat = 1e-9
    c3_min_tau: Float(ge=-1, le=1) = 0.9
    c4_min_tau: Float(ge=-1, le=1) = 0.75
    c4_at_flip: Probability = 0.2
    c4_mono_tol: NonNegativeFloat = 0.05
    c5_min_margin: Float(ge=-1, le=1) = 0.0
    c6_max_gap: NonNegativeFloat = 0.05
    c7_max_slope: Float(le=0) = 0.0
    c8_margin: NonNegativeFloat = 0.01
    c0_min_gain: Float(ge=-1, le=1) = 0.0

    def validate(self) -> None:
        """The checks that involve several fields."""
        lo, hi = self.motive_thresholds[0], self.motive_thresholds[-1]
        if len(self.motive_thresholds) != 2 or not lo < hi:
            raise ValueError(f"motive_thresholds={self.motive_thresholds!r} is not allowed; give (low, high) with "
                             "low < high in [0, 1]")
        if self.distance not in DISTANCES:  # pragma: no cover - OneOf already restricts it
            raise ValueError(f"distance={self.distance!r} is not allowed; choose one of {DISTANCES}")


PRESETS: dict[str, RankingConfig] = {
    "smoke": RankingConfig(n_items=50, n_test=30, length=28, n_seeds=2, budget_seeds=3, flips=(0.0, 0.2),
                           budget_grid=(2, 5, 10), steps=60, n_pairs_check=200, check_length=24,
                           aeon_length=32, ecg_length=32, motive_seeds=4,
                           tslearn_reference=False),
    "default": RankingConfig(),
    "full": RankingConfig(n_items=1000, n_test=500, length=128, n_seeds=10, budget_seeds=10, budget_grid=(1, 2, 5, 10, 20, 50),
                          steps=400, n_pairs_check=5000, check_length=150, aeon_length=150,
                          ecg_length=160, motive_seeds=20),
}


def config_for(profile: str, **overrides: Any) -> RankingConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return RankingConfig.for_profile(profile, PRESETS, **overrides)
