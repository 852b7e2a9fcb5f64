"""Iterative Refinement Neural Operators (IRNO; Liu, Shang, Wang, Ren, Yang, ICML 2026, arXiv 2605.24041):
a frozen base neural operator, a weight-shared refinement U-Net iterated as a damped fixed-point map, trained
unrolled with a progressive spectral loss and a fixed-point regulariser; on our own 2-D Navier–Stokes data."""

from .config import BASES, PRESETS, VARIANTS, IRNOConfig, config_for
from .irno import (IRNO, LossSpec, banach_bound, irno_loss, lambda_schedule, make_refiner, snapshot_step,
                   spectral_loss, spectral_weights, train_base, train_irno)
from .metrics import (acc, band_edges, band_ratios, lipschitz_dense, lipschitz_lanczos, lipschitz_power, rfne,
                      shell_errors, shell_index, vrmse)
from .ns2d import (NSSolver, coarsen, energy, enstrophy, make_windows, random_vorticity, simulate_dataset, spectral_resample,
                   taylor_green)
from .operators import FNO2d, RefinementUNet, SpectralConv2d, TuckerSpectralConv2d, count_parameters

__all__ = [
    "BASES", "PRESETS", "VARIANTS", "IRNOConfig", "config_for", "IRNO", "LossSpec", "banach_bound", "irno_loss",
    "lambda_schedule", "make_refiner", "snapshot_step", "spectral_loss", "spectral_weights", "train_base", "train_irno",
    "acc", "rfne", "coarsen", "band_edges", "band_ratios", "lipschitz_dense", "lipschitz_lanczos", "lipschitz_power", "shell_errors", "shell_index", "vrmse",
    "NSSolver", "energy", "enstrophy", "make_windows", "random_vorticity", "simulate_dataset", "spectral_resample",
    "taylor_green", "FNO2d", "RefinementUNet", "SpectralConv2d", "TuckerSpectralConv2d", "count_parameters",
]
