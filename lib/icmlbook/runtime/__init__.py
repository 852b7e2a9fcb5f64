"""The shared runtime every chapter uses: profiles, device, seeding, progress, cache, claims ledger,
figure style, run records, display helpers and the claim rules' small statistics."""

from .cache import cached, cached_many, cache_key, CorruptEntry
from .claims import (INCONCLUSIVE, INCONCLUSIVE_KINDS, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, VERDICTS, Claim,
                     ClaimCheck, ClaimRule, ClaimsLedger, abstract_sentence, claim_case, claim_rule, claim_sentence,
                     claims_table_html, not_testable, verdict_from)
from .chapter import open_chapter
from .context import in_jupyter, in_marimo, under_executor
from .device import cpu_threads, default_dtype, describe_device, pick_device
from .display import show_plotly
from .findings import Findings, findings_html
from .profiles import (PROFILES, ConfigError, Float, Grid, Int, IntAtLeast, IntGrid, NonNegativeFloat, NonNegativeInt,
                       OneOf, PositiveFloat, PositiveInt, Probability, ProfileConfig, TupleOf, check_profile,
                       check_seed, profile_config)
from .progress import heartbeat, progress
from .records import Run, start_run
from .seeding import rng, seed_everything
from .stats import decide_interval, effect_bound, mean_t_bound, mean_t_interval, ols_slope_interval
from .style import PALETTE, apply_style, new_figure

__all__ = [
    "cached", "cached_many", "cache_key", "CorruptEntry", "Claim", "ClaimCheck", "ClaimRule", "ClaimsLedger", "abstract_sentence", "claim_case", "claim_rule",
    "not_testable", "VERDICTS", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE", "NOT_TESTABLE", "INCONCLUSIVE_KINDS", "claim_sentence", "claims_table_html",
    "verdict_from", "in_jupyter", "in_marimo", "under_executor", "cpu_threads", "default_dtype", "describe_device",
    "pick_device", "show_plotly", "PROFILES", "ProfileConfig", "check_profile", "check_seed", "ConfigError",
    "Float", "Grid", "Int", "IntAtLeast", "IntGrid", "NonNegativeFloat", "NonNegativeInt", "OneOf", "PositiveFloat",
    "PositiveInt", "Probability", "TupleOf", "profile_config",
    "progress", "heartbeat", "Run", "start_run", "open_chapter", "Findings", "findings_html", "rng",
    "seed_everything", "decide_interval", "mean_t_bound", "mean_t_interval", "ols_slope_interval", "effect_bound", "PALETTE", "apply_style", "new_figure",
]
