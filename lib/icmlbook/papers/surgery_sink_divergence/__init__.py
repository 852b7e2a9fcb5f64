"""Attention-sink divergence as a fine-tuning-stage defence: the library of the ``surgery_sink_divergence`` chapter.

Paper: Guozhi Liu, Weiwei Lin, Tiansheng Huang, Ruichao Mo, Qi Mu, Xiumin Wang, Li Shen, "Surgery: Mitigating
Harmful Fine-Tuning for Large Language Models via Attention Sink", ICML 2026, arXiv 2602.05228
(https://arxiv.org/abs/2602.05228); official code https://github.com/Lslland/Surgery (no licence: read to
understand the method, never copied).

What is reproduced
    The method as the official code implements it: the sink attention of every head (mean attention of query
    positions 1..T-1 to the sink key, :mod:`.stats`), the sink divergence between a harmful and a safe sample,
    the count N+ of positive heads, and the Surgery objective, the fine-tuning loss plus
    lambda * mean_h ReLU(d_h) computed every step from one pair drawn from fixed pools, differentiable through
    the attention (:mod:`.penalty`, :mod:`.train`); constant learning rate after a warm-up.

What is a substitution or our reconstruction
    The models (small GPTs of :mod:`icmlbook.lm` trained from scratch on a CPU, not Llama-3-8B), the data (the
    fictional vault world of :mod:`.world`: sealed vaults whose code must not be disclosed, instead of harmful
    prompts), the metric (the disclosure rate by an exact rule, instead of a moderation model's harmful score),
    refusals as the safe samples, the tuned lambda, the baselines (refusal replay, an L2 anchor), and the
    analysis protocol behind the abstract's observations (the paper's body was not reached). Nothing here
    measures harmfulness.

Modules: :mod:`.config` (sizes per profile, thresholds), :mod:`.world` (the vault world and its judge),
:mod:`.stats` (sink attention, divergence, bootstrap), :mod:`.penalty` (the regulariser and its ablations),
:mod:`.train` (alignment, fine-tuning on the shared trainer, evaluation), :mod:`.experiments` (replicates),
:mod:`.hf` (the statistic on a reader's local Hugging Face model), :mod:`.plots`, :mod:`.claims`.
"""

from . import claims, world
from .config import PRESETS, SurgeryConfig, config_for
from .experiments import (BaseAnalysis, ReplicateStudy, Study, Timing, analyse_base, replicate_seed, replicate_study,
                          playground_runs, premise_texts, replicate_world, run_key, specs_for, summary_texts,
                          timing_study)
from .penalty import PENALTY_MODES, SinkPenalty, head_terms, penalty_value, random_half_mask
from .stats import (DivergenceCI, MissingAttention, bootstrap_divergence, count_positive, empirical_sink,
                    key_attention_profile, model_sink_attention, null_relabel, query_weights, sink_attention,
                    sink_divergence, stack_attention, uniform_profile)
from .train import (METHODS, RUN_METRICS, AlignedBase, RefusingModel, attention_stats, behaviour, FineTuneBatches, FineTuneRun, FineTuneSpec, WorldTensors,
                    align_base, evaluate, finetune, ft_loss, load_model, make_world, model_config, time_steps,
                    world_tensors)

__all__ = [
    "SurgeryConfig", "PRESETS", "config_for", "world", "claims",
    "sink_attention", "query_weights", "stack_attention", "key_attention_profile", "empirical_sink",
    "sink_divergence", "count_positive", "null_relabel", "uniform_profile", "bootstrap_divergence", "DivergenceCI",
    "model_sink_attention", "MissingAttention",
    "PENALTY_MODES", "SinkPenalty", "head_terms", "penalty_value", "random_half_mask",
    "METHODS", "RUN_METRICS", "RefusingModel", "attention_stats", "behaviour", "AlignedBase", "FineTuneBatches", "FineTuneRun", "FineTuneSpec", "WorldTensors",
    "align_base", "evaluate", "finetune", "ft_loss", "load_model", "make_world", "model_config", "time_steps",
    "world_tensors",
    "BaseAnalysis", "ReplicateStudy", "Study", "Timing", "analyse_base", "replicate_seed", "replicate_study",
    "replicate_world", "run_key", "specs_for", "summary_texts", "timing_study", "playground_runs", "premise_texts",
]
