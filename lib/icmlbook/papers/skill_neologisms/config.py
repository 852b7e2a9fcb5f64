"""Sizes of the skill-neologisms chapter (Berthon, Astorga & van der Schaar, ICML 2026, arXiv 2605.04970), per
profile.

One frozen config holds every knob: the digit world (operations, lengths, held-out orders), the base GPT trained
from scratch and its pretraining, the adaptation recipe shared by every method (steps, batch, schedule, learning
rates), the experiment grid (skills, held-out partner operations, base seeds), the ablations, the evaluation set
sizes, and the claims' decision thresholds, fixed before the run.

Budgets (2 shared CPU cores under a load of 12-13, so every time below is inflated). ``smoke``: one papermill
execution took 214 s of wall time; the library's work in it (pretraining 300 updates, 18 units of 40 updates, the
evaluations) took 28 s of CPU, and the preset was then cut to 200 + 30 updates; projected at 30-40 s on two quiet
cores, not measured quietly. ``default``: not run (the helpers' rule); projected from the per-update CPU times
measured in development runs (about 0.10 s per pretraining update of the padded d = 64, 2-layer base at batch 128,
0.05 s per adaptation update at batch 64 with its curve evaluations): two bases of 1500 updates side by side
(~150 s), then the oracle's pretraining and the four (seed, skill) studies (~130 s each) on two workers (~400 s),
then compositions, keyword analogue and figures (~30 s): about 9-10 minutes of wall time on two quiet cores.
Measured by the bench (one thread, load 9.5): 655 s of CPU. The training loss then ran each batch at its full padded
width; it now runs it as two width-cut parts (:func:`.training.answer_loss`, the same loss and gradient), measured
at default size 95 -> 64 ms per pretraining update and 30 -> 26 ms per neologism update (load 9-13): projected
about 500-530 s of CPU, not yet measured by the bench.
``full``: the paper's grid (both skills, all six partner operations, three base seeds, ℓ = 20, the complete
ablations) on a larger base; meant for a GPU.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import (Float, Int, IntGrid, OneOf, PositiveFloat, PositiveInt, Probability, ProfileConfig,
                                 TupleOf, profile_config)
from .digits import NEW_OPS, OPS, PRETRAIN_OPS

__all__ = ["SkillConfig", "PRESETS", "config_for", "THRESHOLD_FIELDS"]

_OP = OneOf(*OPS)
_PRE = OneOf(*PRETRAIN_OPS)
_NEW = OneOf(*NEW_OPS)

#: the config fields that are decision thresholds of the claims (fixed before the run; claims.py refuses others)
THRESHOLD_FIELDS = ("ci_level", "competence_single", "competence_multi", "literal_ceiling", "acquisition_bar",
                    "transfer_floor", "transfer_margin", "composition_margin", "length_gap_margin",
                    "ablation_margin", "forgetting_margin", "guard_margin", "gate_single", "plateau_extend",
                    "plateau_share", "base_loss_margin")


@profile_config
class SkillConfig(ProfileConfig):
    """Every size of the skill-neologisms chapter.

    The digit world
    ---------------
    pretrain_ops : the operations the base is pretrained on (the paper's seven; the chapter shrinks this set only
        if the base misses the competence bar, never the bar).
    skills : the new skills trained as neologisms (from SHIFT_RIGHT, INVERT_POLARITY).
    test_ops : the held-out partner operations T of the method grid (each one of ``pretrain_ops``).
    min_len, max_len, heldout_lengths : digit-string lengths; ``heldout_lengths`` never appear in any training
        set (the paper: 2-9 without 5, 7, 9) and are tested.
    max_ops : the largest number of operations per pretraining or skill-centred sample (the paper: 3).
    heldout_order_fraction : share of ordered 3-operation sequences never shown in pretraining (the paper: 25 %).

    The base (a GPT trained from scratch; the paper adapts Qwen2.5-0.5B with LoRA)
    --------------------------------------------------------------------------------
    d_model, n_layer, n_head : its size; tied embeddings (like Qwen2.5-0.5B).
    pre_steps, pre_batch, pre_lr, pre_warmup, pre_weight_decay, phase1_fraction : AdamW pretraining, the first
        ``phase1_fraction`` of the updates on one-operation samples (the paper: 100k of 600k samples).
    pad_left, pad_prob, pad_max : pretraining prompts get up to ``pad_left`` ``<pad>`` tokens after ``<bos>`` and,
        around each operation token with probability ``pad_prob``, 1 to ``pad_max`` of them (the official
        generator's ``random_left_pad`` and ``random_skill_pad``; our GPT has no padding mask, so they are tokens
        the base learns to pass over).
    oracle : also pretrain an oracle base that knows every operation, the new skills included (an upper bound).

    Adaptation (one recipe for every method)
    ----------------------------------------
    ell : tokens per skill neologism and soft tokens of prompt tuning (the paper: 20 and 20).
    adapt_steps, adapt_batch, adapt_warmup : updates (the same for every method), batch, warm-up.
    lr_neologism, lr_prompt_tuning, lr_lora, lr_full_ft : AdamW learning rates (the paper: 5e-3, 5e-3, 1e-4, -);
    lora_r, lora_alpha : LoRA rank and scale (the paper's baseline: 16, 16).
    n_seeds : independent base models (fresh data and initialisation each); every (skill, T) unit is trained on
        each.
    val_size : in-distribution validation items per unit (curves and the in-distribution column).
    n_per_group : test items per (k, length, ordering pattern) of the partner test (the paper: 8).
    forget_size : items of the original operations on which forgetting is measured.
    comp_n_per : zero-shot composition items per (length, order).
    competence_n : items per operation (and per k) of the base-competence table.

    Ablations (on the first skill and the first T)
    ----------------------------------------------
    ablation_ells : the neologism lengths compared (``ell`` is always among them).
    ablation_corrupt : noisy-label ratios (0 is the main run).
    ablation_random_init : also train a randomly initialised neologism.
    keyword_n : items per operation of the keyword analogue.

    Decision thresholds (fixed before the run; the rule texts are written from these defaults)
    ------------------------------------------------------------------------------------------
    ci_level : confidence level of every interval.
    competence_single, competence_multi : the base's bars: one-operation accuracy per operation, and 2- and
        3-operation accuracy (held-out orders included); literal_ceiling : a new skill written literally before
        training must stay below this.
    acquisition_bar : claim 2, in-distribution accuracy the neologism must exceed.
    transfer_floor, transfer_margin : claim 3, the neologism's partner accuracy above the floor and above
        prompt tuning's by the margin (paired over units).
    composition_margin : claim 4, composed accuracy above the better single neologism by this margin.
    length_gap_margin : claim 5, the drop from trained to held-out lengths at most this.
    ablation_margin : claim 6, the non-inferiority / superiority margin of the ablations.
    forgetting_margin : claim 8, the least loss on original operations that counts as forgetting.
    guard_margin : the margin the convergence guard uses for rules decided against a bar (claims 2, 5, 8).
    gate_single : every claim after the first is decided only on bases that do each known operation alone above
        this (interval not wholly below); otherwise it is inconclusive (the base has not converged).
    plateau_extend, plateau_share : the convergence guard (CLAIMS.md rule 10): training ``plateau_extend``
        longer moves the compared metric by less than ``plateau_share`` of the rule's margin.
    base_loss_margin : claim 1's guard on the base (nats per answer token): a base below claim 1's bars counts
        against the claim only when training ``plateau_extend`` longer moves its pretraining answer loss (read back
        along its logged curve, each end averaged over a twentieth of the logged points) by less than
        ``plateau_share`` of this; otherwise the row is inconclusive (not converged).
    """

    # ---- the world ----
    pretrain_ops: TupleOf(_PRE, min_len=3) = PRETRAIN_OPS
    skills: TupleOf(_NEW, min_len=1) = NEW_OPS
    test_ops: TupleOf(_PRE, min_len=1) = ("ADD", "REVERSE")
    min_len: Int(ge=1) = 2
    max_len: Int(ge=2, le=12) = 8
    heldout_lengths: IntGrid(ge=1, min_len=1) = (5, 7)
    max_ops: Int(ge=1, le=3) = 3
    heldout_order_fraction: Float(ge=0, lt=1) = 0.25
    # ---- the base ----
    d_model: Int(ge=8) = 64
    n_layer: Int(ge=1) = 2
    n_head: Int(ge=1) = 4
    pre_steps: Int(ge=10) = 1500
    pre_batch: PositiveInt = 128
    pre_lr: PositiveFloat = 3e-3
    pre_warmup: Int(ge=0) = 100
    pre_weight_decay: Float(ge=0) = 0.1
    phase1_fraction: Float(ge=0, lt=1) = 1 / 6
    pad_left: Int(ge=0) = 4
    pad_prob: Probability = 0.3
    pad_max: Int(ge=0) = 6
    oracle: bool = True
    # ---- adaptation ----
    ell: Int(ge=1) = 4
    adapt_steps: Int(ge=10) = 200
    adapt_batch: PositiveInt = 64
    adapt_warmup: Int(ge=0) = 20
    lr_neologism: PositiveFloat = 5e-3
    lr_prompt_tuning: PositiveFloat = 5e-3
    lr_lora: PositiveFloat = 1e-3
    lr_full_ft: PositiveFloat = 1e-3
    lora_r: PositiveInt = 16
    lora_alpha: PositiveFloat = 16.0
    n_seeds: PositiveInt = 2
    val_size: Int(ge=10) = 300
    n_per_group: PositiveInt = 8
    forget_size: Int(ge=10) = 300
    comp_n_per: PositiveInt = 24
    competence_n: Int(ge=10) = 150
    # ---- ablations ----
    ablation_ells: IntGrid(ge=1, min_len=1) = (1, 4)
    ablation_corrupt: TupleOf(Probability, min_len=1) = (0.0, 0.2)
    ablation_random_init: bool = True
    keyword_n: Int(ge=10) = 100
    # ---- decision thresholds (fixed before the run) ----
    ci_level: Float(gt=0, lt=1) = 0.95
    competence_single: Float(gt=0, lt=1) = 0.95
    competence_multi: Float(gt=0, lt=1) = 0.5
    literal_ceiling: Float(gt=0, lt=1) = 0.05
    acquisition_bar: Float(gt=0, lt=1) = 0.8
    transfer_floor: Float(gt=0, lt=1) = 0.2
    transfer_margin: Float(gt=0, lt=1) = 0.1
    composition_margin: Float(gt=0, lt=1) = 0.3
    length_gap_margin: Float(gt=0, lt=1) = 0.1
    ablation_margin: Float(gt=0, lt=1) = 0.1
    forgetting_margin: Float(gt=0, lt=1) = 0.02
    guard_margin: Float(gt=0, lt=1) = 0.1
    gate_single: Float(gt=0, lt=1) = 0.5
    plateau_extend: Float(gt=0, le=2) = 0.5
    plateau_share: Float(gt=0, le=1) = 1 / 3
    base_loss_margin: Float(gt=0) = 0.1

    def validate(self) -> None:
        """The checks that involve several fields."""
        if not self.min_len < self.max_len:
            raise ValueError(f"max_len={self.max_len!r} is not allowed; it must be > min_len={self.min_len}")
        bad = [v for v in self.heldout_lengths if not self.min_len < v <= self.max_len]
        if bad:
            raise ValueError(f"heldout_lengths={self.heldout_lengths!r} is not allowed; every held-out length must lie "
                             f"above min_len={self.min_len} and at most max_len={self.max_len}")
        missing = [t for t in self.test_ops if t not in self.pretrain_ops]
        if missing:
            raise ValueError(f"test_ops={self.test_ops!r} is not allowed; each held-out partner T must be one of "
                             f"pretrain_ops={self.pretrain_ops!r} (missing: {missing})")
        if self.max_ops > len(self.pretrain_ops):
            raise ValueError(f"max_ops={self.max_ops!r} is not allowed; it must be <= len(pretrain_ops)={len(self.pretrain_ops)}")
        if self.max_ops < 2:
            raise ValueError(f"max_ops={self.max_ops!r} is not allowed; the partner test needs compositions (>= 2)")
        if self.ell not in self.ablation_ells:
            raise ValueError(f"ablation_ells={self.ablation_ells!r} is not allowed; it must contain ell={self.ell}")
        if 0.0 not in self.ablation_corrupt:
            raise ValueError(f"ablation_corrupt={self.ablation_corrupt!r} is not allowed; it must contain 0.0 (the "
                             "clean run)")
        if self.d_model % self.n_head or (self.d_model // self.n_head) % 2:
            raise ValueError(f"n_head={self.n_head!r} is not allowed; d_model={self.d_model} must split into heads of "
                             "an even width (rotary positions)")
        if self.pre_warmup >= self.pre_steps:
            raise ValueError(f"pre_warmup={self.pre_warmup!r} is not allowed; it must be < pre_steps={self.pre_steps}")
        if self.adapt_warmup >= self.adapt_steps:
            raise ValueError(f"adapt_warmup={self.adapt_warmup!r} is not allowed; it must be < adapt_steps="
                             f"{self.adapt_steps}")

    # -- derived ---------------------------------------------------------------------------------------------
    @property
    def train_lengths(self) -> tuple[int, ...]:
        return tuple(v for v in range(self.min_len, self.max_len + 1) if v not in self.heldout_lengths)

    @property
    def all_lengths(self) -> tuple[int, ...]:
        return tuple(range(self.min_len, self.max_len + 1))

    @property
    def ks(self) -> tuple[int, ...]:
        return tuple(range(1, self.max_ops + 1))

    @property
    def partner_ks(self) -> tuple[int, ...]:
        return tuple(range(2, self.max_ops + 1))

    def others(self, test_op: str) -> tuple[str, ...]:
        """Σ: the pretraining operations without the held-out partner ``test_op``."""
        if test_op not in self.pretrain_ops:
            raise ValueError(f"test_op={test_op!r} is not allowed; it must be one of {self.pretrain_ops}")
        return tuple(o for o in self.pretrain_ops if o != test_op)

    def lr_of(self, method: str) -> float:
        return float(getattr(self, f"lr_{method}"))


PRESETS: dict[str, SkillConfig] = {
    "smoke": SkillConfig(
        pretrain_ops=("ADD", "SUB", "REVERSE", "ID"), skills=("SHIFT_RIGHT", "INVERT_POLARITY"), test_ops=("ADD",),
        min_len=2, max_len=6, heldout_lengths=(5,), max_ops=2, d_model=32, n_layer=2, n_head=4, pre_steps=200,
        pre_batch=64, pre_warmup=20, pad_left=2, pad_max=3, oracle=False, ell=2, ablation_ells=(1, 2),
        adapt_steps=30, adapt_batch=32, adapt_warmup=5, n_seeds=1, val_size=60, forget_size=60, comp_n_per=6,
        competence_n=40, keyword_n=30, n_per_group=4,
    ),
    "default": SkillConfig(),
    "full": SkillConfig(
        test_ops=("ADD", "SUB", "ASC", "DESC", "ID", "POLARITY"), max_len=9, heldout_lengths=(5, 7, 9), d_model=128,
        n_layer=4, pre_steps=8000, ell=20, ablation_ells=(1, 2, 5, 10, 20), ablation_corrupt=(0.0, 0.2, 0.4),
        adapt_steps=1500, adapt_warmup=150, n_seeds=3, val_size=1000, forget_size=1000, comp_n_per=50,
        competence_n=400, keyword_n=300,
    ),
}


def config_for(profile: str, **overrides: Any) -> SkillConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return SkillConfig.for_profile(profile, PRESETS, **overrides)
