"""Sizes of the ``ts_pairwise_ranking`` chapter, per profile.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026
(https://icml.cc/virtual/2026/poster/66190). One frozen dataclass holds every knob; ``PRESETS`` gives
the three profiles (``smoke`` ≲ 90 s and ``default`` ≲ 10 min for the whole chapter on 2 CPU cores,
``full`` for a GPU) and :func:`config_for` applies overrides. A profile changes sizes only.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..runtime.profiles import ProfileConfig, require_choice, require_float, require_grid, require_int
from .distances import DISTANCES

__all__ = ["RankingConfig", "PRESETS", "config_for"]


@dataclasses.dataclass(frozen=True)
class RankingConfig(ProfileConfig):
    """Every size of the chapter.

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
        Comparisons per item (``n_items * comparisons_per_item`` in all) in claims 3-6.
    beta_true : float
        Sharpness of the simulated annotators' logistic link on the latent scores.
    flips : tuple of float
        Flip probabilities of the robustness sweep (claim 4).
    n_seeds : int
        Independent data sets for the elastic-vs-rigid comparison (claim 5) and the noise sweep.
    budget_grid : tuple of int
        Comparisons per item of the convergence study (claim 7).
    n_annotators, annotator_flip : int, float
        The crowd of claim 8.

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
    """

    n_items: int = 100
    n_test: int = 50
    length: int = 32
    noise: float = 0.1
    warp: float = 0.3
    shift: float = 0.12
    comparisons_per_item: int = 5
    beta_true: float = 12.0
    flips: tuple = (0.0, 0.1, 0.2, 0.3)
    n_seeds: int = 3
    budget_grid: tuple = (1, 2, 5, 10, 20)
    n_annotators: int = 5
    annotator_flip: float = 0.3
    distance: str = "softdtw"
    gamma: float = 0.1
    nu: float = 0.001
    lam: float = 1.0
    eps: float = 1e-3
    steps: int = 100
    lr: float = 0.05
    n_pairs_check: int = 1000
    check_length: int = 50
    aeon_dataset: str = "GunPoint"
    aeon_length: int = 50
    ecg_length: int = 48

    def validate(self) -> None:
        require_int(self, "n_items", minimum=10)
        require_int(self, "n_test", minimum=5)
        require_int(self, "length", minimum=8)
        require_float(self, "noise", minimum=0.0)
        require_float(self, "warp", minimum=0.0)
        require_float(self, "shift", minimum=0.0, maximum=0.4)
        require_int(self, "comparisons_per_item", minimum=1)
        require_float(self, "beta_true", minimum=0.0, strict_minimum=True)
        require_grid(self, "flips", 0.0, 0.5, unique=False)
        require_int(self, "n_seeds", minimum=1)
        require_grid(self, "budget_grid", 1, integer=True, unique=False)
        require_int(self, "n_annotators", minimum=1)
        require_float(self, "annotator_flip", minimum=0.0, maximum=0.5)
        require_choice(self, "distance", DISTANCES)
        require_float(self, "gamma", minimum=0.0, strict_minimum=True)
        require_float(self, "nu", minimum=0.0)
        require_float(self, "lam", minimum=0.0)
        require_float(self, "eps", minimum=0.0)
        require_int(self, "steps", minimum=1)
        require_float(self, "lr", minimum=0.0, strict_minimum=True)
        require_int(self, "n_pairs_check", minimum=10)
        require_int(self, "check_length", minimum=4)
        require_choice(self, "aeon_dataset", tuple(AEON_DATASETS))
        require_int(self, "aeon_length", minimum=8)
        require_int(self, "ecg_length", minimum=8)


AEON_DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "ACSF1")

PRESETS: dict[str, RankingConfig] = {
    "smoke": RankingConfig(n_items=50, n_test=30, length=28, n_seeds=2, flips=(0.0, 0.2),
                           budget_grid=(2, 5, 10), steps=60, n_pairs_check=200, check_length=24,
                           aeon_length=32, ecg_length=32),
    "default": RankingConfig(),
    "full": RankingConfig(n_items=1000, n_test=500, length=128, n_seeds=10, budget_grid=(1, 2, 5, 10, 20, 50),
                          steps=400, n_pairs_check=5000, check_length=150, aeon_length=150,
                          ecg_length=160),
}


def config_for(profile: str, **overrides: Any) -> RankingConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return RankingConfig.for_profile(profile, PRESETS, **overrides)
