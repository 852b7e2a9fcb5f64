"""Controlled LLM Training on Spectral Sphere (SSO; Xie et al., arXiv 2601.08393): msign by Newton–Schulz with the
Polar-Express schedule, warm-started power iteration, the tangent-constraint multiplier, the SSO, MuonSphere
and Muon optimisers, instrumented tiny-GPT training runs, the chapter's config and claims."""

from .config import PRESETS, SSOConfig, config_for
from .linalg import KELLER_QUINTIC, POLAR_EXPRESS, msign, msign_svd, power_iteration, sigma_max_derivative
from .optim import SSO, Muon, OptimizerGroup, make_optimizer, spectral_mup_init_, split_parameters
from .solver import LambdaSolution, h_value, solve_lambda

__all__ = [
    "KELLER_QUINTIC", "POLAR_EXPRESS", "msign", "msign_svd", "power_iteration", "sigma_max_derivative",
    "h_value", "LambdaSolution", "solve_lambda",
    "SSO", "Muon", "OptimizerGroup", "make_optimizer", "spectral_mup_init_", "split_parameters",
    "SSOConfig", "PRESETS", "config_for",
]
