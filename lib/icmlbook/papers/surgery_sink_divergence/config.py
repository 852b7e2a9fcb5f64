"""Sizes of the Surgery chapter (Liu et al., ICML 2026, arXiv 2602.05228), per profile.

One frozen config holds every knob: the tiny GPT, the vault world, the alignment stage, the user's fine-tuning,
the penalty and its sweeps, the baselines, the timing benchmark, and the claims' decision thresholds (fixed
before the run; :mod:`.claims` refuses a config whose thresholds differ from the declared ones).

Budgets (2 CPU cores). ``smoke`` (one replicate, a 2-layer width-32 GPT): 16.7 s of kernel time and 26.5 s of wall
time for the papermill execution at a load average near 5 on the 2 shared cores (about 25 s of CPU time per
execution); its verdicts are all undecided by design (one replicate). ``default``: four replicates; SFT at three
poison ratios (0, 0.1, 0.2) on every replicate, Surgery at p_main = 0.1 on every replicate and at the other ratios on
the first (``dose_surgery_seeds``); on the first three replicates the sign ablations (opposite sign, random half),
the baselines and the lambda sweep at p = 0.1. Measured by ``make bench --chapters`` (one thread, as ``make book``
runs a chapter) with 45 fine-tuning runs of 700 updates (Surgery at every ratio on all four replicates, the |d_h|
ablation on three): 660 s of CPU time (581 s earlier, no preset change), over the 600 s budget. Where it went
(each piece timed alone at default size for a few steps and extrapolated, one thread, load 4-11, CPU seconds
inflated about 1.18 times against the bench): fine-tuning updates 576 (SFT-like 11.6 s a run, Surgery 13.6 s: the
penalty's pool rows and explicit attention), evaluations along the runs 113 (7 a run at 0.36 s: greedy decoding of
600 prompts and the held-out attention statistics), alignment 83 (18 ms an update, 1,000 updates, four replicates),
timing benchmark 9, base analysis 1. The present sizes run 36 fine-tuning runs (the six Surgery dose runs away from
p_main on replicates 1-3 and the three |d_h| runs dropped: no rule reads either) and reuse every run's step-0
evaluation (the aligned base's own metrics, computed once per replicate): projected about 625 inflated, about
530 s of CPU time at the bench. What the cut costs: no rule loses a replicate or a run; the dose figure shows
Surgery away from p_main from one replicate, and the |d_h| bar runs at ``full`` only. Earlier cuts (from 60 runs):
C3's slope is fitted on three ratios instead of four, and the ablation, baseline and lambda rows (C6, C6b, C7, C7b,
C9) have three replicates instead of four (t quantile 4.30 instead of 3.18), so they are more often inconclusive.
``full`` (a larger model, five ratios and five replicates for
every part) is meant for a GPU.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import Float, Grid, Int, OneOf, PositiveFloat, ProfileConfig, TupleOf, profile_config
from .penalty import PENALTY_MODES

__all__ = ["PRESETS", "SurgeryConfig", "config_for", "THRESHOLD_FIELDS"]

#: the config fields that are decision thresholds (fixed before the run)
THRESHOLD_FIELDS = ("ci_level", "two_sign_delta", "rho_min", "n_plus_gap_min", "dose_slope_min", "p0_margin", "gain_min", "fa_margin",
                    "penalty_share", "penalty_gap_min", "lam_slope_min", "overhead_max", "plateau_extend", "plateau_share")


@profile_config
class SurgeryConfig(ProfileConfig):
    """Every size of the Surgery chapter.

    Model (a GPT of :mod:`icmlbook.lm`: pre-RMSNorm, RoPE, SwiGLU, untied head)
        n_layer, d_model, n_head; max_len (positions; the longest world text has 33 tokens).
    World (:mod:`.world`)
        n_pool: texts in each penalty pool (1,000 in the paper's code); n_heldout: disclosure and refusal texts
        each on evaluation vaults (the analysis pairs); n_eval: sealed-vault evaluation prompts; n_fa: subtraction
        problems for FA; max_a: largest operand of the arithmetic.
    Alignment (the safety-aligned base, trained from scratch)
        align_texts: distinct-draw corpus size; align_steps, align_batch, align_lr (AdamW, warm-up + cosine),
        align_warmup.
    Fine-tuning (the user's data and the provider's loop; constant rate after a linear warm-up, as the paper's code)
        n_ft: items in the user's set; p_grid: poison ratios; p_main: the ratio the comparisons use; epochs,
        ft_batch, ft_lr, warmup_ratio; n_evals: evaluations along each run (the curves, the plateau test);
        eval_average: the model evaluated at update t averages the weights of about the last eval_average x t updates
        (0: the raw weights; see :mod:`.train`).
    Penalty (:mod:`.penalty`)
        lam: Surgery's lambda (tuned on development seeds, see the chapter); lam_grid: the trade-off sweep;
        pairs_per_step: disclosure/refusal rows per step (1 = the paper); sink: the sink position k.
    Baselines
        replay_rows: alignment texts added to every fine-tuning batch (refusal replay); l2_mu: weight of
        mu ||w - w_aligned||^2.
    Replicates and measurements
        n_seeds: independent replicates (each its own world draw, aligned base and fine-tuning data);
        ablation_seeds: seeds (the first ones) that also run the sign ablations, baselines and lambda sweep;
        dose_surgery_seeds: seeds (the first ones) that also run Surgery at the poison ratios other than p_main (the
        dose figure's Surgery points; no rule reads them; Surgery at p_main runs on every replicate);
        n_boot: bootstrap resamples; timing_steps, timing_repeats: the overhead benchmark.
    Decision thresholds (fixed before the run; see :mod:`.claims`)
        ci_level; two_sign_delta: minimum |d_h| (attention mass) of a clearly signed head (C1); rho_min: minimum
        Spearman correlation of N+ with the disclosure rate (C2); n_plus_gap_min: minimum excess of N+ after poisoned over
        clean fine-tuning (C2, heads); dose_slope_min: minimum slope of the disclosure
        rate in p (C3); p0_margin: largest rise of disclosure at p = 0 over the aligned model (C3); gain_min:
        minimum disclosure reduction (C4, C6, C9); fa_margin: largest FA drop (C4); penalty_share: Surgery's
        held-out penalty at most this share of the aligned models' mean (C5's diagnostic); penalty_gap_min: minimum
        excess of SFT's held-out penalty mean_h ReLU(d_h) at p_main over SFT's at p = 0, in the statistic's own
        units (attention mass, averaged over the heads), and the margin of C5's plateau test. Derivation: poisoned
        SFT growing C2's declared minimum of n_plus_gap_min = 2 more clearly positive heads than clean SFT, each at
        C1's clearly-signed size two_sign_delta = 0.002, over the 2 x 4 = 8 heads of the default model, raises the
        statistic by 2 x 0.002 / 8 = 5e-4 (at ``full``, 16 heads, the same two heads would give 2.5e-4: the
        fixed bar is stricter there). Session 12: it was 0.5 in units of the aligned models' mean held-out
        penalty, a unit that moved with replicates having nothing to do with the comparison (the same SFT runs
        gave a gap of +0.81 units, passing, when two other aligned models had no positive head, and +0.41, failing,
        when they had one); the bar is now absolute, so C5's verdict depends only on the compared runs (C5);
        lam_slope_min: minimum drop of the disclosure rate per e-fold of lambda (C7); overhead_max: largest Surgery/SFT step-time ratio (C8);
        plateau_extend, plateau_share: the plateau test of rule 10 (training 50 % longer moves the compared
        metric by less than a third of the rule's margin).
    """

    # ---- model ----
    n_layer: Int(ge=1) = 2
    d_model: Int(ge=8) = 64
    n_head: Int(ge=1) = 4
    max_len: Int(ge=34) = 40
    # ---- world ----
    n_pool: Int(ge=2) = 1000
    n_heldout: Int(ge=10) = 200
    n_eval: Int(ge=10) = 200
    n_fa: Int(ge=10) = 200
    max_a: Int(ge=2, le=12) = 9
    # ---- alignment ----
    align_texts: Int(ge=100) = 20000
    align_steps: Int(ge=1) = 1000
    align_batch: Int(ge=1) = 32
    align_lr: PositiveFloat = 3e-3
    align_warmup: Int(ge=0) = 100
    # ---- fine-tuning ----
    n_ft: Int(ge=10) = 1000
    p_grid: Grid(ge=0, le=1, min_len=2) = (0.0, 0.1, 0.2)
    p_main: Float(gt=0, le=1) = 0.1
    epochs: Int(ge=1) = 14
    ft_batch: Int(ge=1) = 20
    ft_lr: PositiveFloat = 1e-3
    warmup_ratio: Float(ge=0, lt=1) = 0.1
    n_evals: Int(ge=3) = 6
    eval_average: Float(ge=0, le=1) = 0.33
    # ---- penalty ----
    lam: PositiveFloat = 10.0
    lam_grid: Grid(ge=0, min_len=3) = (0.0, 10.0, 100.0, 1000.0)
    pairs_per_step: Int(ge=1) = 1
    sink: Int(ge=0) = 0
    ablation_modes: TupleOf(OneOf("opposite", "abs", "random_half")) = ("opposite", "random_half")
    # ---- baselines ----
    replay_rows: Int(ge=1) = 2
    l2_mu: PositiveFloat = 1.0
    # ---- replicates and measurements ----
    n_seeds: Int(ge=1) = 4
    ablation_seeds: Int(ge=1) = 3
    dose_surgery_seeds: Int(ge=0) = 1
    n_boot: Int(ge=10) = 1000
    timing_steps: Int(ge=2) = 30
    timing_repeats: Int(ge=2) = 8
    threads: Int(ge=1) = 1
    device: OneOf("auto", "cpu", "cuda") = "cpu"
    # ---- decision thresholds (fixed before the run) ----
    ci_level: Float(gt=0, lt=1) = 0.95
    two_sign_delta: PositiveFloat = 0.002
    rho_min: Float(gt=0, lt=1) = 0.3
    n_plus_gap_min: PositiveFloat = 2.0
    dose_slope_min: PositiveFloat = 0.5
    p0_margin: Float(gt=0, lt=1) = 0.1
    gain_min: Float(gt=0, lt=1) = 0.1
    fa_margin: Float(gt=0, lt=1) = 0.05
    penalty_share: Float(gt=0, lt=1) = 0.5
    penalty_gap_min: PositiveFloat = 5e-4
    lam_slope_min: PositiveFloat = 0.02
    overhead_max: Float(gt=1) = 2.0
    plateau_extend: PositiveFloat = 0.5
    plateau_share: Float(gt=0, le=1) = 1.0 / 3.0

    def validate(self) -> None:
        if self.d_model % self.n_head or (self.d_model // self.n_head) % 2:
            raise ValueError(f"d_model={self.d_model!r} is not allowed; it must split into n_head={self.n_head} heads "
                             "of an even dimension (RoPE)")
        if self.p_main not in self.p_grid:
            raise ValueError(f"p_main={self.p_main!r} is not allowed; it must be one of p_grid={self.p_grid!r}")
        if 0.0 not in self.p_grid:
            raise ValueError(f"p_grid={self.p_grid!r} is not allowed; it must contain 0 (the dose response's anchor)")
        if self.lam not in self.lam_grid or 0.0 not in self.lam_grid:
            raise ValueError(f"lam_grid={self.lam_grid!r} is not allowed; it must contain 0 and lam={self.lam!r}")
        bad = [m for m in self.ablation_modes if m not in PENALTY_MODES or m == "paper"]
        if bad or len(set(self.ablation_modes)) != len(self.ablation_modes):
            raise ValueError(f"ablation_modes={self.ablation_modes!r} is not allowed; distinct modes among "
                             f"{', '.join(m for m in PENALTY_MODES if m != 'paper')}")
        if self.align_warmup >= self.align_steps:
            raise ValueError(f"align_warmup={self.align_warmup!r} is not allowed; it must be < align_steps={self.align_steps}")
        if self.ablation_seeds > self.n_seeds:
            raise ValueError(f"ablation_seeds={self.ablation_seeds!r} is not allowed; it must be <= n_seeds={self.n_seeds}")
        if self.dose_surgery_seeds > self.n_seeds:
            raise ValueError(f"dose_surgery_seeds={self.dose_surgery_seeds!r} is not allowed; it must be <= "
                             f"n_seeds={self.n_seeds}")
        if self.ft_steps < self.n_evals:
            raise ValueError(f"n_ft={self.n_ft}, epochs={self.epochs}, ft_batch={self.ft_batch} give {self.ft_steps} "
                             f"steps, fewer than n_evals={self.n_evals}")
        if self.sink >= 19:
            raise ValueError(f"sink={self.sink!r} is not allowed; the sink position must lie inside every text's "
                             "prompt (< 19 tokens)")

    @property
    def ft_steps(self) -> int:
        """Optimiser updates of one fine-tuning run: epochs x ceil(n_ft / ft_batch)."""
        return self.epochs * -(-self.n_ft // self.ft_batch)


PRESETS: dict[str, SurgeryConfig] = {
    "smoke": SurgeryConfig(
        d_model=32, n_pool=200, n_heldout=100, n_eval=100, n_fa=100, align_texts=4000, align_steps=400,
        n_ft=200, p_grid=(0.0, 0.2), p_main=0.2, epochs=2, ft_batch=10, n_evals=4, lam_grid=(0.0, 10.0, 100.0),
        ablation_modes=("opposite", "random_half"), n_seeds=1, ablation_seeds=1, n_boot=100, timing_steps=8, timing_repeats=3,
    ),
    "default": SurgeryConfig(),
    "full": SurgeryConfig(
        n_layer=4, d_model=128, align_texts=40000, align_steps=6000, p_grid=(0.0, 0.05, 0.1, 0.15, 0.2), n_seeds=5,
        ablation_seeds=5, dose_surgery_seeds=5, ablation_modes=("opposite", "abs", "random_half"),
        lam_grid=(0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0), timing_repeats=10, device="auto",
    ),
}


def config_for(profile: str, **overrides: Any) -> SurgeryConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return SurgeryConfig.for_profile(profile, PRESETS, **overrides)
