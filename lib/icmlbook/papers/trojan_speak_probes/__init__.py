"""Output classifiers vs activation probes when a model writes in a cipher: the library of the
``trojan_speak_probes`` chapter.

Source: the ICML 2026 paper known as "Trojan-Speak" (full title, authors and arXiv id not found; only a secondary
summary was reached, see ``shared/papers/trojan_speak_probes.md``). Its finding, as summarised: fine-tuning can
teach a model an encoded output format that output-text classifiers miss, at little capability cost, and
probes on the model's activations restore detection.

**A defence-only, benign reimplementation.** No attack is reimplemented: no real classifier, no reinforcement
learning, no optimisation against any monitor, no harmful topic. A small GPT from the book's language-model lab
(:mod:`icmlbook.lm`) is pretrained on plain dialogues about six harmless topics and then taught a fixed, public,
simple cipher (ROT13 / atbash letter substitution, or a word codebook) by ordinary supervised fine-tuning on
every topic alike (:mod:`icmlbook.training`). We then measure what an output-text monitor and linear probes on
the activations see.

What is our reconstruction
    The paper's probe method was not reached. The probes (logistic regression on mean-pooled activations at
    response positions, per layer and site; a k-of-n streaming rule; shuffled-label and control-task probes) are
    reconstructed from related public defence papers (arXiv 2601.04603, 2604.14865). The topic world, the
    ciphers, the model sizes and every threshold are ours.

Modules: :mod:`.world` (topics, templates, oracle labeller), :mod:`.ciphers` (encoders and decoders),
:mod:`.lm` (tokenizer, dialogue layout, pretraining and format fine-tuning, capability), :mod:`.capture`
(activations during generation), :mod:`.metrics`, :mod:`.monitor` (text monitors), :mod:`.probes`,
:mod:`.experiments` (one seed's pipeline, the study, summaries), :mod:`.claims`, :mod:`.plots`,
:mod:`.playground` (the live controls' recomputation), :mod:`.hf_probe` (optional: a reader's local Hugging Face
model, benign probing only).
"""

from . import claims
from .capture import SITE_KINDS, Capture, Site, all_sites, capture_teacher_forced, generate_with_capture, mean_pool
from .ciphers import CIPHERS, LetterSubstitution, WordCodebook, make_cipher
from .config import PRESETS, TrojanProbesConfig, config_for
from .experiments import (SPLITS, Responses, SeedRun, SeedSummary, Study, assemble, run_seed, run_study, seed_of,
                          summarise, train_models)
from .metrics import auroc, threshold_at_fpr, tpr_at_fpr
from .monitor import KeywordMonitor, LengthMonitor, TextMonitor
from .probes import fit_probe, streaming_scores
from .world import TOPICS, World, topic_of

__all__ = [
    "claims", "SITE_KINDS", "Capture", "Site", "all_sites", "capture_teacher_forced", "generate_with_capture",
    "mean_pool", "CIPHERS", "LetterSubstitution", "WordCodebook", "make_cipher", "PRESETS", "TrojanProbesConfig",
    "config_for", "SPLITS", "Responses", "SeedRun", "SeedSummary", "Study", "assemble", "run_seed", "run_study",
    "seed_of", "summarise", "train_models", "auroc", "threshold_at_fpr", "tpr_at_fpr", "KeywordMonitor",
    "LengthMonitor", "TextMonitor", "fit_probe", "streaming_scores", "TOPICS", "World", "topic_of",
]
