"""The committed alanine-dipeptide MD trajectory (``data/arbg_boltzmann/adp_md.npz``), verified by SHA-256
on load. Regenerate with ``PYTHONPATH=lib python -m icmlbook.papers.arbg_boltzmann.make_data`` (about 5 minutes on
one core; see that module for the settings) and update the checksum here and in ``SHA256SUMS``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .molecule import load_trajectory

__all__ = ["ADP_MD_PATH", "ADP_MD_SHA256", "load_adp_md"]

ADP_MD_PATH = Path(__file__).resolve().parents[4] / "data" / "arbg_boltzmann" / "adp_md.npz"
ADP_MD_SHA256 = "99d89af1372c8802ff7da4f20a436e4fef72e4e4996ebb79459b0805df6a8f69"


def load_adp_md(path: Path | None = None) -> tuple[np.ndarray, dict]:
    """(frames (8000, 22, 3) float32 nm, metadata)."""
    p = Path(path) if path is not None else ADP_MD_PATH
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing; regenerate it with `python -m icmlbook.papers.arbg_boltzmann.make_data`")
    frames, meta = load_trajectory(p, ADP_MD_SHA256 if path is None else None)
    return frames, {k: (v.item() if v.ndim == 0 else v.tolist()) for k, v in meta.items()}
