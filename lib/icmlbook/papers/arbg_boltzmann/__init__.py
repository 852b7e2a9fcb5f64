"""Autoregressive Boltzmann generators (Rehman, Tan, Bengio, Bose, Tong; ICML 2026, arXiv 2606.27361).

Coordinates as tokens (:mod:`.discretize`), a causal transformer proposal built on :mod:`icmlbook.lm`
(:mod:`.ar`), self-normalised importance sampling (:mod:`.snis`), the four-well toy (:mod:`.toy`), capped
alanine dipeptide with OpenMM energies and our own MD (:mod:`.molecule`, :mod:`.data`), the flow baseline
(:mod:`.flows`), metrics (:mod:`.metrics`), experiments and claims.
"""

from .config import PRESETS, ArbgConfig, config_for

__all__ = ["ArbgConfig", "PRESETS", "config_for"]
