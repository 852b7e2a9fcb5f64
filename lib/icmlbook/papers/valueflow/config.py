"""Sizes of the VALUEFLOW chapter (Kim et al., ICML 2026, arXiv 2602.03160), per profile, and the claims'
decision thresholds (fixed before the run; :mod:`.claims` refuses a config whose thresholds differ).

Budgets (2 CPU cores; the machine was shared by up to eight jobs, load 8-15, so wall times are inflated).
``smoke``: one HiVES seed of 5 texts per leaf, two simulation replicates, two values in the evaluator and the
small LM, so the seed-interval rows are *inconclusive* by design; one papermill execution took 44 s of wall time
and 24 s of CPU time at load ~4 (83 s wall at load ~12). ``default``: three HiVES seeds (fresh corpus of 30 texts per leaf and batches each; heads 600 + 450 updates,
held-out metrics on up to 512 anchors logged 8 times per stage), eight simulation replicates, 16 values in the
evaluator study, the small LM on 8 of them with 64 generations per value and level. Measured by parts at load
~9-12: two HiVES seeds at 600 + 300 updates 38 s of CPU time (247 s wall); the simulations 30 s wall; the evaluator
on 8 values 27-50 s wall; the small LM with its steering run 230-270 s wall. In that development run (two seeds)
the stage-1 and stage-2 heads passed the plateau test on ranking accuracy, similarity correlation and the
direction gap; cross-theory precision of stage 2 missed it by 0.002 (hence 450 stage-2 updates). The whole
chapter at ``default`` (papermill, one thread) then took 209 s of wall time and 136 s of CPU time at load 2-4
(seed 0: 5 reproduced, 2 inconclusive, 3 not testable). Session 10 added a sixth head per seed (flat SupCon on
leaf + direction, claim 3f: stage1_steps updates): the three default HiVES seeds with every head took 64 s of CPU
time (niced, load 12-15), and gave C3 reproduced (ranking gain 0.089 [0.053, 0.124], correlation gain 0.334
[0.316, 0.353]) and C3f not reproduced (stage 1 - flat SupCon: ranking accuracy -0.052 [-0.091, -0.014],
correlation +0.132 [0.084, 0.181]; every head passed the plateau test). ``full``: more
seeds, texts and updates (CUDA when present for the small LM).
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import Float, Int, IntGrid, OneOf, PositiveFloat, ProfileConfig, profile_config

__all__ = ["PRESETS", "ValueflowConfig", "config_for", "THRESHOLD_FIELDS"]

#: the config fields that are decision thresholds (fixed before the run)
THRESHOLD_FIELDS = ("ci_level", "rho_min", "mae_max", "m_gain_min", "var_ratio_max", "flip_gain_min", "err_gain_min",
                    "rank_gain_min", "corr_gain_min", "dir_gap_min", "cross_gain_min", "bin_step_min",
                    "asym_min", "c7_delta_min", "dom_min", "plateau_extend", "plateau_share")


@profile_config
class ValueflowConfig(ProfileConfig):
    """Every size of the VALUEFLOW chapter.

    HiVES (:mod:`.hives`)
        hives_seeds: independent replicates (fresh corpus draw and batches); n_per_leaf: texts per leaf of the
        48 leaves (subjects 0-8 train, 9-11 held out); stage1_steps, stage2_steps, hives_batch, hives_lr, tau,
        lam_dir, lam_indiv, lam_theory; n_evals: held-out evaluations along each run; eval_anchors: anchors of the ranking accuracy
        (the paper's evaluator: up to 512); max_length: MiniLM tokens.
    Database and estimator (:mod:`.pl`, :mod:`.judges`)
        sim_reps: independent simulation replicates; vidb_items, vidb_windows (pairwise windows per item, k = 2),
        n_panel: simulated judges building the database; n_query: new items scored; k_grid, m_grid: the
        recovery sweep; k_main, m_main: the paper's script default (k = 6, m = 3); judge_noise, gamma_spread,
        offset_sd: the simulated judges' noise and distortions; n_judges: judges of the ranking-vs-rating
        comparison; temperature: anchor utilities u_a = I_a / temperature.
    Evaluator on texts (claim 6)
        eval_values: the steered values scored (interleaved across theories); vidb_per_value: database texts per
        value; n_eval_texts: held-out
        texts per value.
    Small LM and steering (claim 8)
        lm_values: values of the corpus; planted: how many of them get the planted asymmetry; lm_texts: texts per
        (value, level); lm_steps, lm_batch, lm_lr, lm_layers, lm_width; n_gen: generations per (value, level).
    A reader's LLM (claim 7; run only when the chapter's endpoint parameters are set)
        c7_values: prosocial values steered; c7_queries: queries per (value, level) and per profile.
    Thresholds (fixed before the run; see :mod:`.claims`)
        ci_level; rho_min, mae_max, m_gain_min (C1); var_ratio_max, flip_gain_min, err_gain_min (C2); rank_gain_min,
        corr_gain_min (C3); dir_gap_min (C4); cross_gain_min (C5); bin_step_min (C6); asym_min (C7, C8);
        c7_delta_min, dom_min (C7);
        plateau_extend, plateau_share (rule 10).
    """

    # ---- HiVES ----
    hives_seeds: Int(ge=1) = 3
    n_per_leaf: Int(ge=2) = 30
    stage1_steps: Int(ge=2) = 600
    stage2_steps: Int(ge=2) = 450
    hives_batch: Int(ge=8) = 32
    hives_lr: PositiveFloat = 1e-3
    tau: PositiveFloat = 0.1
    lam_dir: Float(ge=0) = 1.0
    lam_indiv: Float(ge=0) = 0.5
    lam_theory: Float(ge=0) = 1.0
    n_evals: Int(ge=3) = 8
    eval_anchors: Int(ge=8) = 512
    max_length: Int(ge=8) = 48
    # ---- database and estimator ----
    sim_reps: Int(ge=1) = 8
    vidb_items: Int(ge=20) = 200
    vidb_windows: Int(ge=1) = 10
    n_panel: Int(ge=1) = 3
    n_query: Int(ge=10) = 300
    k_grid: IntGrid(ge=2, min_len=1) = (3, 6)
    m_grid: IntGrid(ge=1, min_len=2) = (1, 3, 5, 10)
    k_main: Int(ge=2) = 6
    m_main: Int(ge=1) = 3
    judge_noise: PositiveFloat = 1.5
    gamma_spread: Float(ge=1) = 2.0
    offset_sd: Float(ge=0) = 2.0
    n_judges: Int(ge=2) = 5
    temperature: PositiveFloat = 1.0
    # ---- evaluator on texts ----
    eval_values: Int(ge=1, le=32) = 16
    vidb_per_value: Int(ge=8) = 160
    n_eval_texts: Int(ge=8) = 24
    # ---- small LM ----
    lm_values: Int(ge=2, le=32) = 8
    planted: Int(ge=1) = 4
    lm_texts: Int(ge=2) = 40
    lm_steps: Int(ge=10) = 1500
    lm_batch: Int(ge=4) = 32
    lm_lr: PositiveFloat = 3e-3
    lm_layers: Int(ge=1) = 2
    lm_width: Int(ge=16) = 64
    n_gen: Int(ge=2) = 64
    device: OneOf("auto", "cpu", "cuda") = "cpu"
    # ---- a reader's LLM (claim 7) ----
    c7_values: Int(ge=1, le=6) = 4
    c7_queries: Int(ge=2, le=12) = 8
    # ---- thresholds ----
    ci_level: Float(gt=0, lt=1) = 0.95
    rho_min: Float(gt=0, lt=1) = 0.9
    mae_max: PositiveFloat = 1.5
    m_gain_min: Float(ge=0) = 0.0
    var_ratio_max: Float(gt=0, lt=1) = 0.5
    flip_gain_min: Float(ge=0) = 0.05
    err_gain_min: Float(ge=0) = 0.0
    rank_gain_min: PositiveFloat = 0.02
    corr_gain_min: PositiveFloat = 0.05
    dir_gap_min: PositiveFloat = 0.25
    cross_gain_min: PositiveFloat = 0.03
    bin_step_min: PositiveFloat = 0.5
    asym_min: PositiveFloat = 2.0
    c7_delta_min: PositiveFloat = 2.0
    dom_min: PositiveFloat = 0.5
    plateau_extend: PositiveFloat = 0.5
    plateau_share: Float(gt=0, le=1) = 1.0 / 3.0

    def validate(self) -> None:
        if self.k_main not in self.k_grid or self.m_main not in self.m_grid:
            raise ValueError(f"k_main={self.k_main!r}, m_main={self.m_main!r} must be in k_grid={self.k_grid!r} "
                             f"and m_grid={self.m_grid!r}")
        if self.lm_values > self.eval_values:
            raise ValueError(f"lm_values={self.lm_values!r} is not allowed; it must be <= eval_values={self.eval_values}")
        if self.planted >= self.lm_values:
            raise ValueError(f"planted={self.planted!r} is not allowed; it must be < lm_values={self.lm_values}")
        if self.lm_width % 16:
            raise ValueError(f"lm_width={self.lm_width!r} is not allowed; it must be a multiple of 16")


PRESETS: dict[str, ValueflowConfig] = {
    "smoke": ValueflowConfig(
        hives_seeds=1, n_per_leaf=5, stage1_steps=100, stage2_steps=40, n_evals=3, eval_anchors=128, sim_reps=2, vidb_items=120,
        vidb_windows=6, n_query=150, m_grid=(1, 3, 10), eval_values=2, vidb_per_value=80, n_eval_texts=12,
        lm_values=2, planted=1, lm_texts=20, lm_steps=150, lm_width=32, n_gen=10,
    ),
    "default": ValueflowConfig(),
    "full": ValueflowConfig(
        hives_seeds=5, n_per_leaf=60, stage1_steps=3000, stage2_steps=1500, sim_reps=20, vidb_items=500,
        n_query=1000, lm_values=16, planted=8, lm_texts=100, lm_steps=6000, lm_layers=4, lm_width=128, n_gen=128,
        device="auto",
    ),
}


def config_for(profile: str, **overrides: Any) -> ValueflowConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return ValueflowConfig.for_profile(profile, PRESETS, **overrides)
