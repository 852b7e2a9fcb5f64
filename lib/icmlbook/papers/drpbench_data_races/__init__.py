"""DRPBench (ICML 2026): fine-grained data-race prediction, reimplemented offline.

The real benchmark (SV-COMP NoDataRace-Main with DRDBench's line-level annotations, vendored in
``data/drdbench/``), DRDBench's metrics, a tree-sitter front end with lockset / create-join predictors,
a learned pair classifier, a seeded generator of annotated pthread programs, and ThreadSanitizer.
"""

from . import claims  # noqa: F401  (declares the chapter's claim rules)
from .config import PRESETS, DRPBenchConfig, config_for
from .data import Program, Race, annotation_consistency, load_benchmark
from .experiments import (fp_shares, generated_suite, playground, population_study, scores_table, select_real,
                          tsan_agreement, tsan_study)
from .generator import PATTERNS, generate_program, generate_suite

__all__ = ["PRESETS", "DRPBenchConfig", "config_for", "Program", "Race", "annotation_consistency", "load_benchmark",
           "fp_shares", "generated_suite", "playground", "population_study", "scores_table", "select_real",
           "tsan_agreement", "tsan_study", "PATTERNS", "generate_program", "generate_suite"]
