"""Causal discovery in Poisson branching SCMs with latent confounders: PGF, trie, local identifiability.

Paper: *On the Identifiability of Poisson Branching Structural Causal Model Under Latent Confounding*
(ICML 2026, poster 66099; no arXiv id found). The paper's text was not reachable: the closed-form PGF,
the trie map, the enumeration of local structures, the support tests and the learner are our
reconstructions from its abstract and its predecessors (Qiao et al., AAAI 2024, arXiv 2403.16523;
Xiang et al., NeurIPS 2024), and are labelled as such in each module.

Modules, in reading order: ``model`` (the LC-PB-SCM and its sampler), ``pgf`` (closed form, symbolic,
empirical), ``trie`` (paths and monomials), ``identifiability`` (the 400 local structures),
``support_tests`` (factorial-cumulant tests under zero-conditioning), ``learn`` (the algorithm),
``baselines`` (PC, FCI, PB-SCM cumulant), ``metrics``, ``config``, ``experiments``, ``plots``.
"""

from .baselines import (
    causal_learn_available,
    fci_baseline,
    pbscm_cumulant_baseline,
    pc_baseline,
)
from .config import PRESETS, PGFTrieConfig, config_for
from .identifiability import (
    IdentifiabilityTable,
    LocalStructure,
    build_identifiability_table,
    identifiability_table,
    local_structures,
    signature_features,
)
from .learn import LearnedGraph, LearnerConfig, learn_lc_pbscm, learn_skeleton
from .metrics import GraphScores, score_graph
from .model import (
    PairState,
    PoissonBranchingSCM,
    check_counts,
    moments_closed_form,
    random_lc_pbscm,
    true_pair_states,
)
from .pgf import (
    cascade_pgfs,
    empirical_pgf,
    exact_pmf,
    factorial_cumulant_closed_form,
    local_support,
    log_pgf,
    log_pgf_coefficients,
    pgf,
    support,
    support_sympy,
    symbolic_log_pgf,
)
from .support_tests import (
    ZeroConditionedCounts,
    factorial_cumulant_test,
    two_sample_pmf_test,
)
from .trie import (
    build_trie,
    monomial_origins,
    path_counts,
    path_counts_from_monomials,
    trie_monomials,
)

__all__ = [
    "PRESETS",
    "config_for",
    "GraphScores",
    "IdentifiabilityTable",
    "LearnedGraph",
    "LearnerConfig",
    "LocalStructure",
    "PGFTrieConfig",
    "PairState",
    "PoissonBranchingSCM",
    "ZeroConditionedCounts",
    "build_identifiability_table",
    "build_trie",
    "cascade_pgfs",
    "causal_learn_available",
    "check_counts",
    "empirical_pgf",
    "exact_pmf",
    "factorial_cumulant_closed_form",
    "factorial_cumulant_test",
    "fci_baseline",
    "identifiability_table",
    "learn_lc_pbscm",
    "learn_skeleton",
    "local_structures",
    "local_support",
    "log_pgf",
    "log_pgf_coefficients",
    "moments_closed_form",
    "monomial_origins",
    "path_counts",
    "path_counts_from_monomials",
    "pbscm_cumulant_baseline",
    "pc_baseline",
    "pgf",
    "random_lc_pbscm",
    "score_graph",
    "signature_features",
    "support",
    "support_sympy",
    "symbolic_log_pgf",
    "trie_monomials",
    "true_pair_states",
    "two_sample_pmf_test",
]
