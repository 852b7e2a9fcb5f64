"""Training of the proposals through :mod:`icmlbook.training` (one loop for both models), and the data
sources: shuffled mini-batches, optionally with a uniformly random rotation of each molecule (the paper's
SO(3) augmentation; no reflections).

Shapes: ``frames`` (n, N, 3) standardised coordinates (centred, divided by the global scale s); the
autoregressive model sees them flattened and binned (n, 3N) tokens, the flow flattened (n, 3N) floats.
"""

from __future__ import annotations

import dataclasses

import torch

from ...training import LossLogger, ShuffledBatches, Trainer, TrainerConfig, WarmupCosine
from .discretize import Discretizer

__all__ = ["random_rotations", "FrameBatches", "TrainSpec", "train_model"]


def random_rotations(n: int, generator: torch.Generator, dtype=torch.float64) -> torch.Tensor:
    """``n`` rotation matrices (n, 3, 3) uniform on SO(3) (QR of a Gaussian matrix with the sign fix of
    Mezzadri 2007, then the determinant forced to +1 by flipping one column)."""
    a = torch.randn(n, 3, 3, generator=generator, dtype=torch.float64)
    q, r = torch.linalg.qr(a)
    q = q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))[:, None, :]
    det = torch.linalg.det(q)
    q[:, :, 0] *= det[:, None]
    return q.to(dtype)


class FrameBatches:
    """Mini-batches of standardised frames (n, N, 3): rotated (``rotate``) and, with a discretiser, binned
    into tokens (B, 3N); without one, flattened floats (B, 3N). A planar toy passes (n, 1, 2) frames and
    ``rotate=False``."""

    def __init__(self, frames: torch.Tensor, batch_size: int, seed: int, *, rotate: bool,
                 discretizer: Discretizer | None = None):
        self.frames = frames.double()
        self.rotate, self.disc = rotate, discretizer
        self.batches = ShuffledBatches(len(frames), min(batch_size, len(frames)), seed, drop_last=True)

    def __call__(self, index: int, generator: torch.Generator):
        x = self.frames[self.batches(index)]
        if self.rotate:
            x = x @ random_rotations(len(x), generator).transpose(1, 2)
        x = x.reshape(len(x), -1)
        return self.disc.encode(x) if self.disc is not None else x.float()

    def state_dict(self) -> dict:
        return self.batches.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.batches.load_state_dict(state)


@dataclasses.dataclass(frozen=True)
class TrainSpec:
    steps: int
    batch_size: int
    lr: float
    weight_decay: float = 0.01
    warmup_frac: float = 0.05
    grad_clip: float | None = 1.0
    seed: int = 0
    threads: int | None = None
    desc: str = "training"


def train_model(model: torch.nn.Module, data: FrameBatches, spec: TrainSpec, device: str = "auto") -> dict:
    """AdamW with linear warm-up and cosine decay (the reference's one-cycle shape), loss = ``model.loss(batch)``
    (token cross-entropy, or the flow's negative log-likelihood). Returns {"steps", "loss", "seconds"}."""
    torch.manual_seed(spec.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=spec.weight_decay)
    warm = max(1, int(spec.warmup_frac * spec.steps))
    cfg = TrainerConfig(steps=spec.steps, schedule=WarmupCosine(warmup=warm, total=max(spec.steps, warm + 1)),
                        grad_clip=spec.grad_clip, seed=spec.seed, device=device, threads=spec.threads, desc=spec.desc)
    trainer = Trainer(model, opt, lambda m, b: m.loss(b), data, cfg, callbacks=[LossLogger(every=max(1, spec.steps // 100))])
    trainer.run()
    steps, loss = trainer.history("loss")
    return {"steps": steps, "loss": loss, "seconds": trainer.seconds}
