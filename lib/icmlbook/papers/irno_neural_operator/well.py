r"""Reading a local copy of The Well (Ohana et al., NeurIPS 2024) for the ``full`` profile: nothing is downloaded.

The Well stores each dataset as HDF5 files under ``<base>/datasets/<name>/data/<split>/*.hdf5`` (``split`` one of
``train``, ``valid``, ``test``). Each file's root carries ``n_spatial_dims`` and ``n_trajectories``; its groups
``t0_fields`` (scalars, ``(trajectories, time, H, W)``), ``t1_fields`` (vectors, ``(..., H, W, 2)``) and
``t2_fields`` (tensors, ``(..., H, W, 2, 2)``) list their datasets in the attribute ``field_names``; fields that
do not vary over samples or time are skipped here. Every component becomes one channel, in the order t0, t1, t2 and
``field_names`` (Active Matter: concentration, velocity x/y, D and E with four components each: 11 channels).

``well_path`` may be that base folder, a dataset's folder (holding ``data/<split>``), or the split folder's parent
``data``. A missing or malformed path raises an error that names ``well_path`` and what was looked for.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import torch

__all__ = ["WELL_DATASETS", "WellFields", "well_split_dir", "load_well_fields", "well_windows"]

#: the datasets of the paper that this chapter can read (square grids only: the band metrics assume one)
WELL_DATASETS = ("active_matter",)


def well_split_dir(well_path: str, dataset: str, split: str) -> Path:
    """The folder of ``split`` files of ``dataset`` under ``well_path`` (see the module docstring)."""
    if dataset not in WELL_DATASETS:
        raise ValueError(f"well_dataset={dataset!r} is not allowed; allowed values: {', '.join(WELL_DATASETS)} "
                         "(turbulent_radiative_layer_2D is 384x128: the chapter's spectral bands need a square grid)")
    if split not in ("train", "valid", "test"):
        raise ValueError(f"split={split!r} is not allowed; allowed values: train, valid, test")
    root = Path(well_path).expanduser()
    if not well_path or not root.is_dir():
        raise FileNotFoundError(f"well_path={well_path!r} does not exist or is not a folder; give a local copy of "
                                "The Well (the folder holding datasets/<name>/data/<split>/*.hdf5); nothing is "
                                "downloaded")
    tried = [root / "datasets" / dataset / "data" / split, root / dataset / "data" / split, root / "data" / split,
             root / split]
    for d in tried:
        if d.is_dir() and any(d.glob("*.hdf5")) or d.is_dir() and any(d.glob("*.h5")):
            return d
    raise FileNotFoundError(f"well_path={well_path!r} holds no valid files of {dataset}'s {split} split: no "
                            "*.hdf5 in " + ", ".join(str(d) for d in tried))


@dataclasses.dataclass
class WellFields:
    """Trajectories ``data`` ``(trajectories, time, channels, H, W)`` (float32) and the channel names."""

    data: torch.Tensor
    channels: list[str]
    dataset: str
    files: list[str]


def _components(name: str, arr: np.ndarray, order: int) -> tuple[np.ndarray, list[str]]:
    """``(B, T, C, H, W)`` of a field of tensor order ``order`` and its component names."""
    if order == 0:
        return arr[:, :, None], [name]
    k = arr.shape[4:]
    flat = arr.reshape(*arr.shape[:4], -1)
    names = [f"{name}_{''.join('xy'[i] for i in np.unravel_index(j, k))}" for j in range(flat.shape[-1])]
    return np.moveaxis(flat, -1, 2), names


def load_well_fields(well_path: str, dataset: str, split: str, *, max_trajectories: int | None = None
                     ) -> WellFields:
    """The time-varying fields of ``split`` of ``dataset`` from a local copy of The Well (at most
    ``max_trajectories`` trajectories, files in name order)."""
    try:
        import h5py
    except ImportError as err:                                          # a dependency of the book, pinned
        raise ImportError("reading The Well needs h5py (pip install 'h5py==3.16.0')") from err
    folder = well_split_dir(well_path, dataset, split)
    files = sorted([*folder.glob("*.hdf5"), *folder.glob("*.h5")])
    parts, names, used = [], None, []
    have = 0
    for f in files:
        if max_trajectories is not None and have >= max_trajectories:
            break
        try:
            h = h5py.File(f, "r")
        except OSError as err:
            raise ValueError(f"well_path={well_path!r}: {f.name} is not a readable HDF5 file ({err})") from None
        with h:
            dims = h.attrs.get("n_spatial_dims")
            dims = None if dims is None else int(dims)
            if dims != 2:
                raise ValueError(f"well_path={well_path!r}: {f.name} is not a 2-D dataset of The Well "
                                 f"(root attribute n_spatial_dims={dims!r}, expected 2)")
            chans, comp = [], []
            for order, group in enumerate(("t0_fields", "t1_fields", "t2_fields")):
                if group not in h:
                    raise ValueError(f"well_path={well_path!r}: {f.name} has no group {group!r} (not in The Well's "
                                     "layout)")
                g = h[group]
                for name in [n.decode() if isinstance(n, bytes) else str(n) for n in g.attrs.get("field_names", [])]:
                    ds = g[name]
                    if not (bool(ds.attrs.get("sample_varying", True)) and bool(ds.attrs.get("time_varying", True))):
                        continue
                    arr = np.asarray(ds[()], dtype=np.float32)
                    if arr.ndim != 4 + order:
                        raise ValueError(f"well_path={well_path!r}: {f.name}:{group}/{name} has shape {arr.shape}; "
                                         f"expected (trajectories, time, H, W{', 2' * order})")
                    a, n = _components(name, arr, order)
                    chans.append(a)
                    comp += n
            if not chans:
                raise ValueError(f"well_path={well_path!r}: {f.name} holds no time-varying field")
            try:
                block = np.concatenate(chans, axis=2)
            except ValueError:
                raise ValueError(f"well_path={well_path!r}: the fields of {f.name} do not share one grid and time "
                                 "axis") from None
        if names is not None and (comp != names or block.shape[1:] != parts[0].shape[1:]):
            raise ValueError(f"well_path={well_path!r}: {f.name} has other fields or another shape than "
                             f"{used[0]} ({comp} {block.shape[1:]} against {names} {parts[0].shape[1:]})")
        names = comp
        parts.append(block)
        used.append(f.name)
        have += block.shape[0]
    data = torch.from_numpy(np.concatenate(parts))
    if max_trajectories is not None:
        data = data[:max_trajectories]
    if not torch.isfinite(data).all():
        raise ValueError(f"well_path={well_path!r}: the {split} fields of {dataset} contain NaN or infinite values")
    H, W = data.shape[-2:]
    if H != W:
        raise ValueError(f"well_path={well_path!r}: the grid of {dataset} is {H}x{W}; the chapter needs a square one")
    return WellFields(data, names, dataset, used)


def well_windows(data: torch.Tensor, history: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Inputs ``(N, history * C, H, W)`` (``history`` frames flattened time-major, "(T F)" as the paper's code),
    targets ``(N, C, H, W)`` (the next frame), and each sample's trajectory, from ``data`` ``(B, T, C, H, W)``."""
    B, T, C, H, W = data.shape
    if T <= history:
        raise ValueError(f"{T} time steps per trajectory leave no window of history={history} plus a target")
    xs = [data[:, s:s + history].reshape(B, history * C, H, W) for s in range(T - history)]
    ys = [data[:, s + history] for s in range(T - history)]
    ids = torch.arange(B).repeat(T - history)
    return torch.cat(xs), torch.cat(ys), ids
