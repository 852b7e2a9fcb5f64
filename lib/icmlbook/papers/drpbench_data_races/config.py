"""Sizes and decision thresholds of the DRPBench chapter, per profile.

The thresholds of the claims are fixed here, before any run, and never moved to turn a row green.
``smoke`` runs a fixed subset of the real benchmark (every ``real_stride``-th racy and race-free program
in index order) and a small generated suite; ``default`` runs all 1,008 real programs and 1,000
generated ones; ``full`` is ``default`` with more bootstrap resamples and ThreadSanitizer runs (nothing
here needs a GPU).

Measured end to end on the 2 shared cores (the code of main at 5b3048a, other sessions running): ``smoke`` 57-69 s of
wall time and 21-22 s of CPU time (user + sys) at loads 7-10; ``default`` 4.6-5.6 min of wall time and
1.5 min of CPU time at loads 7.5-10.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import Float, Int, PositiveFloat, PositiveInt, Probability, ProfileConfig, TupleOf, OneOf, profile_config
from .generator import PATTERNS

__all__ = ["DRPBenchConfig", "PRESETS", "config_for"]


@profile_config
class DRPBenchConfig(ProfileConfig):
    """Every knob of the chapter.

    real_stride : use every ``real_stride``-th racy and every ``real_stride``-th race-free program of the
        real benchmark (1 = all 1,008).
    n_generated : programs of the generated suite (racy programs and their race-free twins).
    gen_min_patterns, gen_max_patterns : pattern instances per generated program.
    gen_min_distractors, gen_max_distractors : extra protected variables per generated program.
    constructs : the patterns the generator draws from.
    cv_folds : folds of the learned pair classifier, whole benchmark categories per fold.
    gb_iterations : boosting iterations of that classifier.
    n_boot : bootstrap resamples (programs resampled) for every interval.
    tsan_generated, tsan_real : programs checked by ThreadSanitizer from each population (0 = skip).
    tsan_runs, tsan_timeout : runs per program and the time limit of each run (s).
    paper_programs, paper_races : the paper's benchmark size (abstract), shown beside our snapshot's.
    count_tolerance : relative difference allowed from the paper's counts in the vendoring test (it decided
        claim 1 until a review found that row decided by the committed snapshot; claim 1 is not testable now).
    consistency_min : claim 2: share of annotated race endpoints that must name their variable.
    localisation_margin : claim 3: the lower 95% bound of (program F1 - line F1) must exceed this.
    myopia_margin : claim 6: the lower 95% bounds of the mutex-only analyser's F1 gap between the strata, and of
        that gap minus the full lockset's, must exceed this ("much worse"; added in session 6, after a second
        review: the rule asked only for bounds above 0).
    specificity_margin : claims 5 and 6: the minimum effect of "withdraws more non-race pairs than races" (the share of
        the races kept minus the share of the non-race pairs kept); the lower 95% bound must exceed it, and a
        rule is not reproduced when the upper bound stays below it (declared in the contract's second edition, before
        the runs that use it: with a minimum effect of 0 a lock-blind analyser, whose difference is exactly 0, could
        only come out inconclusive; stricter only).
    distraction_min : the former claim-5 rule (shown on the page for the record, no longer deciding the row):
        the lower 95% bound of the share of protected pairs all pairs flags had to exceed this.
    """

    real_stride: PositiveInt = 1
    n_generated: Int(ge=2) = 1000
    gen_min_patterns: PositiveInt = 1
    gen_max_patterns: PositiveInt = 3
    gen_min_distractors: Int(ge=0) = 0
    gen_max_distractors: Int(ge=0) = 3
    constructs: TupleOf(OneOf(*PATTERNS)) = tuple(PATTERNS)
    cv_folds: Int(ge=2) = 5
    gb_iterations: PositiveInt = 200
    n_boot: Int(ge=100) = 1000
    tsan_generated: Int(ge=0) = 60
    tsan_real: Int(ge=0) = 60
    tsan_runs: PositiveInt = 3
    tsan_timeout: PositiveFloat = 2.0
    paper_programs: PositiveInt = 1003
    paper_races: PositiveInt = 557
    count_tolerance: Float(gt=0, lt=1) = 0.02
    consistency_min: Probability = 0.95
    localisation_margin: Float(ge=0, lt=1) = 0.1
    myopia_margin: Float(ge=0, lt=1) = 0.1
    specificity_margin: Float(ge=0, lt=1) = 0.1
    distraction_min: Probability = 0.5

    def validate(self) -> None:
        if self.gen_min_patterns > self.gen_max_patterns:
            raise ValueError(f"gen_min_patterns={self.gen_min_patterns!r} is not allowed; it must be <= "
                             f"gen_max_patterns={self.gen_max_patterns}")
        if self.gen_min_distractors > self.gen_max_distractors:
            raise ValueError(f"gen_min_distractors={self.gen_min_distractors!r} is not allowed; it must be <= "
                             f"gen_max_distractors={self.gen_max_distractors}")
        if not self.constructs:
            raise ValueError(f"constructs=() is not allowed; name at least one of: {', '.join(PATTERNS)}")


PRESETS: dict[str, DRPBenchConfig] = {
    "smoke": DRPBenchConfig(real_stride=4, n_generated=60, cv_folds=4, gb_iterations=60, n_boot=200,
                            tsan_generated=8, tsan_real=0, tsan_runs=2, tsan_timeout=1.0),
    "default": DRPBenchConfig(),
    "full": DRPBenchConfig(n_boot=5000, tsan_generated=200, tsan_real=200, tsan_runs=5),
}


def config_for(profile: str, **overrides: Any) -> DRPBenchConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return DRPBenchConfig.for_profile(profile, PRESETS, **overrides)
