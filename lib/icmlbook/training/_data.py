"""Batch sources with checkpointable state.

The trainer asks its data source for micro-batch ``i`` as ``data(i, generator)`` (``i`` counts micro-batches
from 0; ``generator`` is the trainer's own seeded ``torch.Generator``, saved in its checkpoints). A source
that keeps state of its own implements ``state_dict``/``load_state_dict``; the trainer saves it too.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

__all__ = ["ShuffledBatches", "full_batch"]


class ShuffledBatches:
    """Mini-batches over ``n`` examples: each epoch a fresh permutation from this source's own generator
    (seeded with ``seed``), cut into ``batch_size`` pieces (the last one shorter unless ``drop_last``).

    Returns the index tensor of the batch, or, with ``tensors``, the tuple ``(t[idx] for t in tensors)``.
    Batches must be asked for in order (each once, as the trainer does).
    """

    def __init__(self, n: int, batch_size: int, seed: int, *, tensors: Sequence[torch.Tensor] = (),
                 drop_last: bool = False, device: torch.device | str | None = None):
        for name, v in (("n", n), ("batch_size", batch_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= 1")
        if drop_last and batch_size > n:
            raise ValueError(f"batch_size={batch_size} > n={n} with drop_last leaves no batch")
        bad = [i for i, t in enumerate(tensors) if t.shape[0] != n]
        if bad:
            raise ValueError(f"tensors {bad} do not have n={n} rows")
        self.n, self.batch_size, self.drop_last = n, batch_size, drop_last
        self.tensors = tuple(tensors)
        self.device = torch.device(device) if device is not None else (tensors[0].device if tensors else None)
        self.steps_per_epoch = n // batch_size if drop_last else math.ceil(n / batch_size)
        self.generator = torch.Generator().manual_seed(int(seed))
        self._epoch = -1
        self._perm: torch.Tensor | None = None

    def __call__(self, index: int, generator: torch.Generator | None = None):
        epoch, s = divmod(index, self.steps_per_epoch)
        if epoch < self._epoch:
            raise RuntimeError(f"batch {index} is from epoch {epoch}, already passed (now in epoch {self._epoch})")
        while self._epoch < epoch:
            perm = torch.randperm(self.n, generator=self.generator)
            self._perm = perm.to(self.device) if self.device is not None else perm
            self._epoch += 1
        idx = self._perm[s * self.batch_size:(s + 1) * self.batch_size]
        return idx if not self.tensors else tuple(t[idx] for t in self.tensors)

    def state_dict(self) -> dict:
        return {"generator": self.generator.get_state(), "epoch": self._epoch,
                "perm": None if self._perm is None else self._perm.cpu()}

    def load_state_dict(self, state: dict) -> None:
        self.generator.set_state(state["generator"])
        self._epoch = state["epoch"]
        perm = state["perm"]
        self._perm = None if perm is None else (perm.to(self.device) if self.device is not None else perm)


def full_batch(*tensors: torch.Tensor):
    """A source that returns the same full batch every step: ``tensors`` (one tensor: that tensor)."""
    batch = tensors[0] if len(tensors) == 1 else tuple(tensors)
    return lambda index, generator=None: batch
