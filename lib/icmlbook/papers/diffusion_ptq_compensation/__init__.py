"""TCEC (arXiv 2508.12094): error propagation in quantised diffusion samplers and timestep-aware cumulative
error compensation, reimplemented at small scale (2-D data and 8×8 digits)."""

from .config import PRESETS, TCECConfig, config_for, parse_bits

__all__ = ["TCECConfig", "PRESETS", "config_for", "parse_bits"]
