"""Sizes of the chapter's experiments, one preset per profile (a profile changes sizes only)."""

from __future__ import annotations

import dataclasses

from icmlbook.runtime import ProfileConfig, require_float, require_grid, require_int

__all__ = ["PRESETS", "PGFTrieConfig", "config_for"]


@dataclasses.dataclass(frozen=True)
class PGFTrieConfig(ProfileConfig):
    """Every size of the chapter (see ``experiments.py`` for what each experiment does).

    Generator (all experiments): thinning ~ U(alpha_low, alpha_high); observed rates ~
    U(mu_low, mu_high); latent rates ~ U(latent_mu_low, latent_mu_high).
    """

    alpha_low: float = 0.3
    alpha_high: float = 0.7
    mu_low: float = 0.1
    mu_high: float = 0.5
    latent_mu_low: float = 0.5
    latent_mu_high: float = 1.0
    # claim 1: closed-form PGF vs empirical PGF
    pgf_graphs: int = 10
    pgf_nodes: int = 6
    pgf_samples: int = 400_000
    pgf_points: int = 5
    # claim 2: support invariance (sympy)
    support_graphs: int = 3
    support_draws: int = 20
    # claim 3: zero-conditioning blocks a chain
    chain_reps: int = 200
    chain_n: int = 30_000
    # claim 5: single-edge non-identifiability
    pair_n: int = 50_000
    # claim 6: sink of a triangle
    sink_reps: int = 100
    sink_n: int = 30_000
    # local (3-variable) recovery from data
    local_structures: int = 60
    local_ns: tuple = (5_000, 30_000, 100_000)
    # claim 7: end-to-end on 10-node graphs
    e2e_nodes: int = 10
    e2e_in_degree: float = 1.5
    e2e_latents: int = 2
    e2e_n: int = 30_000
    e2e_seeds: int = 10
    # claim 8 and graph size
    sweep_ns: tuple = (5_000, 15_000, 30_000, 50_000)
    sweep_seeds: int = 5
    size_nodes: tuple = (6, 10, 14)
    size_seeds: int = 3
    # learner
    level: float = 0.01
    max_cond: int = 3
    max_degree: int = 3
    min_rows: int = 100

    def validate(self) -> None:
        require_float(self, "alpha_low", 0.0, 1.0)
        require_float(self, "alpha_high", self.alpha_low, 1.0)
        require_float(self, "mu_low", 0.0)
        require_float(self, "mu_high", self.mu_low)
        require_float(self, "latent_mu_low", 0.0)
        require_float(self, "latent_mu_high", self.latent_mu_low)
        for name, lo in (("pgf_graphs", 1), ("pgf_nodes", 2), ("pgf_samples", 1000), ("pgf_points", 1),
                         ("support_graphs", 1), ("support_draws", 2), ("chain_reps", 5), ("chain_n", 1000),
                         ("pair_n", 1000), ("sink_reps", 5), ("sink_n", 1000), ("local_structures", 1),
                         ("e2e_nodes", 3), ("e2e_n", 1000), ("e2e_seeds", 1), ("sweep_seeds", 1),
                         ("size_seeds", 1), ("max_cond", 0), ("min_rows", 2)):
            require_int(self, name, minimum=lo)
        require_int(self, "e2e_latents", minimum=0)
        require_int(self, "max_degree", minimum=2, maximum=4)
        require_float(self, "e2e_in_degree", 0.0)
        require_float(self, "level", 0.0, 0.5, strict_minimum=True)
        require_grid(self, "local_ns", 1000, integer=True, unique=False)
        require_grid(self, "sweep_ns", 1000, integer=True, unique=False)
        require_grid(self, "size_nodes", 3, integer=True, unique=False)

    @property
    def alpha_range(self) -> tuple[float, float]:
        return (self.alpha_low, self.alpha_high)

    @property
    def mu_range(self) -> tuple[float, float]:
        return (self.mu_low, self.mu_high)

    @property
    def latent_mu_range(self) -> tuple[float, float]:
        return (self.latent_mu_low, self.latent_mu_high)


PRESETS = {
    "smoke": PGFTrieConfig(pgf_graphs=4, pgf_samples=100_000, support_graphs=1, support_draws=5,
                           chain_reps=40, sink_reps=30, local_structures=16, local_ns=(5_000, 30_000),
                           e2e_seeds=3, sweep_ns=(5_000, 30_000), sweep_seeds=2, size_nodes=(6, 10),
                           size_seeds=1),
    "default": PGFTrieConfig(local_structures=120, local_ns=(5_000, 30_000, 100_000, 300_000),
                             sweep_ns=(5_000, 15_000, 30_000, 50_000, 100_000), sweep_seeds=8,
                             size_nodes=(6, 10, 14, 18), size_seeds=5),
    "full": PGFTrieConfig(pgf_graphs=20, pgf_samples=2_000_000, support_draws=20, support_graphs=5,
                          chain_reps=1000, sink_reps=500, local_structures=400,
                          local_ns=(5_000, 30_000, 100_000, 300_000), e2e_seeds=20,
                          sweep_ns=(5_000, 15_000, 30_000, 50_000, 100_000, 200_000), sweep_seeds=20,
                          size_nodes=(6, 10, 14, 20), size_seeds=10),
}


def config_for(profile: str, **overrides) -> PGFTrieConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return PGFTrieConfig.for_profile(profile, PRESETS, **overrides)
