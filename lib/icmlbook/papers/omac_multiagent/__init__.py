"""OMAC, optimising a multi-agent system along five dimensions: the library of the ``omac_multiagent`` chapter.

Paper: Shijun Li, Hilaf Hasson, Joydeep Ghosh, "OMAC: A Holistic Optimization Framework for LLM-Based Multi-Agent
Collaboration", ICML 2026 (oral), arXiv 2505.11765 (https://arxiv.org/abs/2505.11765); official code
https://github.com/xiwenchao/OMAC (MIT), built on DyLAN (MIT). Read to reconstruct the algorithms; the code here is
our own.

What is reproduced
    The optimisation procedure: the five dimensions (:mod:`.dimensions`), the DyLAN-style collaboration engine
    with pre-selection, per-layer ranking, communication edges, the two-thirds consensus stop and call counts
    (:mod:`.engine`), Algorithm 1 (Semantic Initializer, Contrastive Comparator, parent threshold h0 + t, tolerance
    stop) and Algorithm 2 (ordered sweeps in rounds) (:mod:`.optimizer`), scored on validation, reported on test.

What is a substitution or our reconstruction
    Two task families. In the first the agents are **programs**: seeded program-synthesis solvers (enumerators with grammar
    weights, depth, budget and a peer-trust rule; a repairer searching one-edit neighbourhoods) over our own
    list-function DSL (:mod:`.dsl`, a HumanEval analogue scored by pass@1 on hidden tests); a "prompt" is a
    configuration of such a program. In the second (:mod:`.arith`) the agents are **small language models trained
    from scratch** on CPU (never LLMs) answering multi-step arithmetic; a "prompt" is the model, few-shot choice,
    decoding temperature, samples and answer rule. The controllers are scoring rules that answer index lists; the
    two LLM actors are configuration-space operators. Both algorithms are reconstructed from the code (the paper's method
    section was not reached).

Off by default, :mod:`.llm` drives the two actors (and an agent on a reader's task file) through a reader's own
OpenAI-compatible endpoint (:class:`icmlbook.lm.endpoint.ChatEndpoint`); no page uses it.

Modules: :mod:`.config`, :mod:`.dsl`, :mod:`.arith`, :mod:`.llm`, :mod:`.dimensions`, :mod:`.engine`, :mod:`.optimizer`, :mod:`.experiments`,
:mod:`.plots`, :mod:`.claims`.
"""

from . import arith, claims, dsl, llm
from .config import PRESETS, OmacConfig, config_for
from .dimensions import (DIMENSIONS, FAMILIES, LM_SLOTS, SLOTS, AgentSpec, Slot, Team, default_arith_team, default_team,
                         describe, slot)
from .engine import QueryTrace, agent_answer, consensus, parse_index_list, run_query
from .experiments import (ABLATION_DIMS, JOINT_ORDERS, Arm, Playground, Replicate, arm_table, example_query,
                          lm_agents, lm_convergence, lm_specs, lm_study, playground_run, replicate,
                          structure_scan, study)
from .optimizer import (ACTORS, ContrastiveComparator, DiversityInitializer, EvalResult, Evaluator, ResamplingActor,
                        SearchTrace, SweepTrace, algorithm1, algorithm2, parent_threshold, random_search)

__all__ = ["OmacConfig", "PRESETS", "config_for", "claims", "dsl", "arith", "llm", "DIMENSIONS", "SLOTS", "AgentSpec", "Slot",
           "Team", "default_team", "describe", "slot", "FAMILIES", "LM_SLOTS", "default_arith_team", "lm_agents",
           "lm_specs", "lm_study", "lm_convergence", "QueryTrace", "agent_answer", "consensus", "parse_index_list",
           "run_query", "ABLATION_DIMS", "JOINT_ORDERS", "Arm", "Replicate", "arm_table", "replicate", "study",
           "Playground", "playground_run", "example_query", "structure_scan",
           "ACTORS", "ContrastiveComparator", "DiversityInitializer", "EvalResult", "Evaluator", "ResamplingActor",
           "SearchTrace", "SweepTrace", "algorithm1", "algorithm2", "parent_threshold", "random_search"]
