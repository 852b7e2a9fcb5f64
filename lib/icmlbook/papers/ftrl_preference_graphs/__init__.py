"""What preferences can and cannot predict about FTRL: the library of the ``ftrl_preference_graphs`` chapter.

Paper: "What Preferences Can—and Cannot—Predict in Multi-Agent Online Learning", ICML 2026 (poster page
https://icml.cc/virtual/2026/poster/66240; only its abstract was readable, and it lists no authors).

What is reproduced
    The objects (preference graph, sink equilibria, preferential stability, subgames, skeleton, span,
    outside mass), FTRL dynamics with the entropic and Euclidean regularisers in continuous and
    discrete time, vectorised over many starts, and an adversarial search for the worst start near a
    span (:mod:`.stability`) that labels it stable / unstable / undecided from simulated trajectories
    only. With them we test the abstract's results on random games and on a counterexample.

What is our own reconstruction
    The definition of the span (union of faces), the counterexample (:func:`.games.averaging_game`: one
    preference graph, span unstable for G + h > 2, neutral at G + h = 2, found stable by the search below it with a
    modulus of about d^{|h|/4}: :func:`.experiments.corner_excursion`), the labels' thresholds, and the leaklessness
    certificate (:mod:`.leakless`, defined from the abstract's words). :func:`.games.leaky_game` is the
    chapter's first counterexample: unstable for every G > 0 (a split corner), kept as the search's
    regression case.

Modules: :mod:`.games`, :mod:`.preference`, :mod:`.dynamics` (FTRL, batched integrators),
:mod:`.stability` (the search), :mod:`.leakless`, :mod:`.experiments` (one study per claim),
:mod:`.claims` (the rules), :mod:`.plots`, :mod:`.config` (sizes and thresholds per profile).
"""

from .config import PRESETS, PreferenceConfig, config_for
from .dynamics import (REGULARISERS, FTRLField, OutsideMassMonitor, choice_map, discrete_ftrl, integrate_ftrl,
                       integrate_one_by_one, integrate_rowwise, scores_from_strategies, softmax)
from .experiments import (CounterexampleStudy, LeakStudy, LimitSetStudy, PlaygroundRun, RateStudy, SubgameStudy,
                          centre_start, classic_facts, classic_trajectories, corner_excursion, counterexample_study,
                          cube_traces,
                          finite_time_example, hedge_tracking_error, leakless_study, limit_set_study, playground_run,
                          random_games, rate_study, subgame_study)
from .games import (CLASSIC_GAMES, NormalFormGame, averaging_game, averaging_set, chicken_game, classic_game,
                    coordination_game, edge_gaps, leaky_game, leaky_set, matching_pennies, prisoners_dilemma,
                    random_game, rock_paper_scissors, shapley_game)
from .leakless import LeaklessResult, aggregate_drift, leakless_score
from .preference import (arc_set, boxes, in_span, is_club, is_preferentially_stable, is_product, leaving_arcs,
                         outside_mask, outside_mass, preference_graph, preferential_margin,
                         preferentially_stable_sets, product_sets, sink_equilibria, skeleton, strict_pure_nash)
from .stability import (LABELS, PROBES, SearchResult, SearchSettings, StabilityRule, StabilityTask, sampled_protocol,
                        search_one, search_stability, span_distance, vertex_exits, vertex_move_pairs)
