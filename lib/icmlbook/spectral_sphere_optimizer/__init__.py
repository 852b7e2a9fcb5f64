"""Controlled LLM Training on Spectral Sphere (SSO; Xie et al., arXiv 2601.08393): msign by Newton–Schulz with the
Polar-Express schedule, warm-started power iteration, the tangent-constraint multiplier, and the SSO, MuonSphere
and Muon optimisers (library; the chapter is not written yet)."""

from .linalg import KELLER_QUINTIC, POLAR_EXPRESS, msign, msign_svd, power_iteration
from .optim import SSO, Muon, OptimizerGroup, make_optimizer, spectral_mup_init_, split_parameters
from .solver import LambdaSolution, h_value, solve_lambda

__all__ = [
    "KELLER_QUINTIC", "POLAR_EXPRESS", "msign", "msign_svd", "power_iteration",
    "h_value", "LambdaSolution", "solve_lambda",
    "SSO", "Muon", "OptimizerGroup", "make_optimizer", "spectral_mup_init_", "split_parameters",
]
