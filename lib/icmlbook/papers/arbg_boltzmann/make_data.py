"""Regenerate the committed alanine-dipeptide trajectory (``data/arbg_boltzmann/adp_md.npz``).

    PYTHONPATH=lib python -m icmlbook.papers.arbg_boltzmann.make_data [--frames 8000] [--seed 0]

Builds ACE-ALA-NME with :func:`~icmlbook.papers.arbg_boltzmann.molecule.build_alanine_dipeptide`, runs Langevin MD
(amber99sbildn + OBC, no constraints, 1 fs, friction 1/ps, 300 K, Reference platform, 10 ps equilibration,
frames every 1 ps) and writes the frames (float32, nm) with the settings; prints the file's SHA-256, to be
copied into ``data/arbg_boltzmann/SHA256SUMS`` and ``data.py``. OpenMM's Reference platform is deterministic
for a fixed seed on one machine; across machines the last digits may differ, so the checksum is the file's."""

from __future__ import annotations

import argparse
from pathlib import Path

from .molecule import MDConfig, build_alanine_dipeptide, save_trajectory, simulate


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--frames", type=int, default=8000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[4] / "data" / "arbg_boltzmann" / "adp_md.npz")
    a = p.parse_args(argv)
    mol = build_alanine_dipeptide()
    cfg = MDConfig(n_frames=a.frames, steps_per_frame=1000, dt_fs=1.0, friction_per_ps=1.0, equilibrate=10000,
                   seed=a.seed, platform="Reference")
    frames = simulate(mol, cfg, progress_desc="ADP MD")
    import openmm
    sha = save_trajectory(a.out, frames, {"seed": cfg.seed, "dt_fs": cfg.dt_fs, "steps_per_frame": cfg.steps_per_frame,
                                          "friction_per_ps": cfg.friction_per_ps, "equilibrate": cfg.equilibrate,
                                          "temperature": mol.temperature, "force_field": mol.force_field,
                                          "openmm": openmm.__version__, "atom_names": mol.atom_names()})
    print(f"{sha}  {a.out.name}")


if __name__ == "__main__":
    main()
