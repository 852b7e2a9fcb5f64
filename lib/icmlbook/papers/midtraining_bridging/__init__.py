"""Midtraining as a distributional bridge (Liu, Neubig, Xiong, ICML 2026, arXiv 2510.14865 v2), on small GPTs
trained from scratch on offline corpora: the corpora (:mod:`.data`), the similarity measures and the proximity
advantage (:mod:`.similarity`), the branch runner (:mod:`.runner`), the analysis (:mod:`.analysis`), the claims
(:mod:`.claims`) and the figures (:mod:`.plots`)."""

from . import data, similarity
from .config import PRESETS, MidtrainConfig, config_for
from .runner import Branch, BranchWeights, Replicate, branch_plan, build_world, run_replicate, sft

__all__ = ["data", "similarity", "PRESETS", "MidtrainConfig", "config_for", "Branch", "BranchWeights", "Replicate",
           "branch_plan", "build_world", "run_replicate", "sft"]
