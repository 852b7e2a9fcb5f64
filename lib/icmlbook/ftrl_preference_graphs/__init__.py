"""What preferences can and cannot predict about FTRL: the library of the ``ftrl_preference_graphs`` chapter.

Paper: Omar Abbadi, Rida Laraki, Panayotis Mertikopoulos, "What Preferences Can—and Cannot—Predict
in Multi-Agent Online Learning", ICML 2026 (spotlight; OpenReview 5W30WwL8wt).

What is reproduced
    The objects (preference graph, sink equilibria, preferential stability, subgames, skeleton, span,
    outside mass), FTRL dynamics with the entropic and Euclidean regularisers in continuous and
    discrete time, vectorised over many starts, and a perturbation protocol that labels the span of
    a set stable/unstable from simulated trajectories only. With them we test the paper's three
    results on random games: the skeleton of a dynamically stable set is preferentially stable;
    for subgames, preferential stability is equivalent to asymptotic stability of the span; beyond
    subgames it is not.

What is our own reconstruction
    The paper's body was not reachable. The definition of the span (union of faces), the three-player
    counterexample (:func:`.games.leaky_game`: a matching-pennies face plus one vertex, unstable for
    G > 3), the numerical stability rule (:mod:`.stability`) and every candidate for the paper's
    leaklessness / "resilience to aggregate deviations" (:mod:`.leakless`, where L3* — aggregate
    exit gains over coarse correlated equilibria of the span's faces — stands in for it) are ours.

Modules: :mod:`.games` (payoff tensors, random and classic games), :mod:`.preference` (graph,
sinks, stable sets, span), :mod:`.dynamics` (FTRL, batched integrators), :mod:`.stability`
(perturbation protocol), :mod:`.leakless` (certificates), :mod:`.experiments` (one study per claim),
:mod:`.plots` (figures), :mod:`.config` (sizes per profile).
"""

from .config import PRESETS, PreferenceConfig, config_for
from .dynamics import (REGULARISERS, FTRLField, OutsideMassMonitor, VertexProximityMonitor, choice_map,
                       discrete_ftrl, entropic_strategy_velocity, integrate_ftrl, integrate_one_by_one,
                       integrate_rowwise, log_softmax, project_simplex, replicator_velocity,
                       scores_from_strategies, softmax)
from .experiments import (classic_trajectories, cube_traces, finite_time_example, CounterexampleStudy, LeakStudy, LimitSetStudy, PlaygroundRun, SubgameStudy,
                          centre_start, classic_facts, counterexample_study, escape_slope, hedge_tracking_error,
                          l1_witness, leakless_study, limit_set_study, playground_run, random_games,
                          subgame_study)
from .games import (CLASSIC_GAMES, NormalFormGame, classic_game, coordination_game, edge_gaps, leaky_game,
                    leaky_set, matching_pennies, prisoners_dilemma, random_game, rock_paper_scissors, shapley_game)
from .leakless import (CRITERIA, cce_leak, leak_rate, leak_scores, pointwise_leak, sampled_leak, transverse_rates,
                       transverse_rates_many)
from .preference import (arc_set, boxes, in_span, is_club, is_preferentially_stable, is_product, leaving_arcs,
                         outside_mask, outside_mass, preference_graph, preferential_margin,
                         preferentially_stable_sets, product_sets, sink_equilibria, skeleton, strict_pure_nash)
from .stability import (StabilityResult, StabilityRule, StabilityTask, exit_moves, perturbation_starts,
                        stability_experiment)

__all__ = [
    "arc_set", "boxes", "cce_leak", "centre_start", "choice_map", "classic_facts", "classic_game",
    "CLASSIC_GAMES", "classic_trajectories", "config_for", "coordination_game", "counterexample_study",
    "CounterexampleStudy", "CRITERIA", "cube_traces", "discrete_ftrl", "edge_gaps",
    "entropic_strategy_velocity", "escape_slope", "exit_moves", "finite_time_example", "FTRLField",
    "hedge_tracking_error", "in_span", "integrate_ftrl", "integrate_one_by_one", "integrate_rowwise",
    "is_club", "is_preferentially_stable", "is_product", "l1_witness", "leak_rate", "leak_scores",
    "leakless_study", "LeakStudy", "leaky_game", "leaky_set", "leaving_arcs", "limit_set_study",
    "LimitSetStudy", "log_softmax", "matching_pennies", "NormalFormGame", "outside_mask", "outside_mass",
    "OutsideMassMonitor", "perturbation_starts", "playground_run", "PlaygroundRun", "pointwise_leak",
    "preference_graph", "PreferenceConfig", "preferential_margin", "preferentially_stable_sets", "PRESETS",
    "prisoners_dilemma", "product_sets", "project_simplex", "random_game", "random_games", "REGULARISERS",
    "replicator_velocity", "rock_paper_scissors", "sampled_leak", "scores_from_strategies", "shapley_game",
    "sink_equilibria", "skeleton", "softmax", "stability_experiment", "StabilityResult", "StabilityRule",
    "StabilityTask", "strict_pure_nash", "subgame_study", "SubgameStudy", "transverse_rates",
    "transverse_rates_many", "VertexProximityMonitor",
]
