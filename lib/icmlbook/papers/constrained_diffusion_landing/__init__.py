"""Constrained diffusion with landing (OLLA / ULLA), after Jeon, Muehlebach & Tao (ICML 2026, arXiv 2604.17838).

Feasible sets with batched Jacobians, tangent projection, explicit and implicit landing, Newton projection;
overdamped and underdamped forward processes and backward samplers; the path-matching losses; a
time-conditioned MLP trained on ``icmlbook.training``; sample-quality metrics; the chapter's studies.
"""

from . import claims  # noqa: F401  (declares the chapter's claim rules)
from .config import PRESETS, LandingConfig, config_for
from .constraints import CappedSphere, ConstraintSet, SpecialOrthogonal, Sphere, Torus
from .sde import METHODS, Schedule, backward_sample, forward_paths

__all__ = ["PRESETS", "LandingConfig", "config_for", "CappedSphere", "ConstraintSet", "SpecialOrthogonal", "Sphere",
           "Torus", "METHODS", "Schedule", "backward_sample", "forward_paths"]
