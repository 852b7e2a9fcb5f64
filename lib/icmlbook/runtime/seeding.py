"""Seeding: one call seeds python, numpy and torch and asks torch for deterministic kernels."""

from __future__ import annotations

import os
import random

import numpy as np

from .profiles import check_seed


def seed_everything(seed: int, deterministic: bool = True) -> np.random.Generator:
    """Seed ``random``, numpy's legacy global state and torch; return a fresh numpy Generator.

    With ``deterministic`` torch uses deterministic algorithms (warn-only, so an op without a
    deterministic kernel still runs) and cuBLAS gets the workspace setting it needs.
    """
    check_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        torch = None
    if torch is not None:
        torch.manual_seed(seed)
        if deterministic:
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
            torch.use_deterministic_algorithms(True, warn_only=True)
            torch.backends.cudnn.benchmark = False
    return np.random.default_rng(seed)


def rng(seed: int, *stream: int) -> np.random.Generator:
    """An independent numpy Generator for ``seed`` and a sub-stream index (e.g. (seed, run_id))."""
    check_seed(seed)
    return np.random.default_rng(np.random.SeedSequence([seed, *stream]))
