"""Skill neologisms in a digit world: the library of the ``skill_neologisms`` chapter.

Paper: Antonin Berthon, Nicolas Astorga, Mihaela van der Schaar, "Skill Neologisms: Towards Skill-based Continual
Learning", ICML 2026, arXiv 2605.04970 (https://arxiv.org/abs/2605.04970); official code (Apache-2.0, read, not
copied): github.com/antoninbrthn/skill-neologisms.

What is reproduced
    The paper's controlled experiment (its section 5) end to end, at CPU scale: the digit world with its nine
    operations and its generators (:mod:`.digits`, exact to the official code except that the filler operation of
    3-operation test items is drawn per item); skill neologisms as new trainable vocabulary rows joined to a frozen
    model, the insertion function, mean-of-operations or random initialisation, zero logits for the new ids of a
    tied head, save/load of the rows alone, several skills loaded at once (:mod:`.skills`); the baselines on the
    book's one trainer: prompt tuning (the same rows as a prefix), LoRA through ``peft``, full fine-tuning, and an
    oracle pretrained with the new skills (:mod:`.training`); batched greedy exact-match evaluation
    (:mod:`.evaluate`); the method grid, zero-shot composition, the ablations and the tiny model's analogue of
    the keyword experiment (:mod:`.experiments`); the claims' rules (:mod:`.claims`); figures (:mod:`.plots`).

What is not, and what is ours
    The base is a small GPT trained from scratch (the paper adapts Qwen2.5-0.5B to the digit world with LoRA); the
    sizes are the profile's. The paper's large-model experiments (the XOR keyword study on 7-8B models, Skill-Mix
    graded by GPT-5) and its in-context-learning baseline cannot run here and are declared not testable. The
    pluggable path :mod:`.hf_path` puts the same mechanism on a reader's local Hugging Face model (off by
    default; tested only on a tiny random config).
"""

from . import claims, digits, evaluate, experiments, plots, skills, training
from .config import PRESETS, SkillConfig, config_for
from .digits import NEW_OPS, OPS, PRETRAIN_OPS, DigitBatch, DigitVocab
from .skills import Skill, SkilledLM

__all__ = ["claims", "digits", "evaluate", "experiments", "plots", "skills", "training", "PRESETS", "SkillConfig",
           "config_for", "NEW_OPS", "OPS", "PRETRAIN_OPS", "DigitBatch", "DigitVocab", "Skill", "SkilledLM"]
