"""The MiniLM encoder now lives in the language-model lab (:mod:`icmlbook.lm.minilm`), shared with the midtraining
chapter's embedding similarity; this module re-exports it for the valueflow chapter."""

from ...lm.minilm import MiniLM, load_minilm, minilm_folder

__all__ = ["minilm_folder", "MiniLM", "load_minilm"]
