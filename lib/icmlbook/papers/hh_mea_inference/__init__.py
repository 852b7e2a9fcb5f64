"""Biophysical (Hodgkin–Huxley) models of cells above a multielectrode array, inferred from their
electrical images, used to predict responses to multi-electrode stimulation (ICML 2026 chapter
``hh_mea_inference``)."""

from .config import HHMEAConfig, PRESETS, config_for

__all__ = ["HHMEAConfig", "PRESETS", "config_for"]
