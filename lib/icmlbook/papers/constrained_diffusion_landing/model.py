"""The time-conditioned MLP and its training on the shared trainer (``icmlbook.training``).

``DriftNet`` maps ``[x, (v), time features]`` to a vector of the ambient dimension: twice the score in the
overdamped convention (§3.6), the velocity drift in the underdamped one. Training regenerates the forward
paths from the data every ``regen_every`` epochs with fresh noise (``PathSource``); "-P" variants train on the
paths whose projections all succeeded. Adam, global-norm clipping, EMA weights (the samplers use them). The
baselines (``baselines.BASELINES``: RSGM with exact geodesics, Ambient with a final projection) go through the
same network, source and trainer with their own forward paths and loss.
"""

from __future__ import annotations

import dataclasses
import math
import time

import torch
from torch import nn

from ...training import EMA, Callback, LossLogger, Trainer, TrainerConfig
from .baselines import BASELINES, ambient_loss, baseline_forward_paths, baseline_sample, riemannian_loss
from .constraints import ConstraintSet
from .losses import overdamped_loss, underdamped_loss
from .sde import METHODS, Schedule, backward_sample, forward_paths

__all__ = ["DriftNet", "PathSource", "TrainedModel", "train_model", "sample", "ALL_METHODS"]

ALL_METHODS = METHODS + BASELINES


class DriftNet(nn.Module):
    """MLP with SiLU activations; inputs x (d), optionally v (d), and t as (t/T, sin, cos of a few
    frequencies of t/T)."""

    def __init__(self, dim: int, width: int = 128, depth: int = 3, underdamped: bool = False, T: float = 1.0,
                 n_freq: int = 4):
        super().__init__()
        if depth < 1 or width < 1:
            raise ValueError(f"width={width!r}, depth={depth!r}: both must be >= 1")
        self.dim, self.underdamped, self.T, self.n_freq = dim, underdamped, float(T), n_freq
        n_in = dim * (2 if underdamped else 1) + 1 + 2 * n_freq
        layers: list[nn.Module] = []
        for i in range(depth):
            layers += [nn.Linear(n_in if i == 0 else width, width), nn.SiLU()]
        layers.append(nn.Linear(width, dim))
        self.net = nn.Sequential(*layers)
        self.register_buffer("freqs", torch.pi * torch.arange(1, n_freq + 1, dtype=torch.float64))

    def _time(self, t: torch.Tensor) -> torch.Tensor:
        s = (t / self.T).reshape(-1, 1).to(self.freqs.dtype)
        return torch.cat([s, torch.sin(s * self.freqs), torch.cos(s * self.freqs)], 1)

    def forward(self, x, *rest):
        """The network runs in its own precision (float32 by default; 3x faster on CPU than float64) and
        returns the caller's dtype, so the geometry stays in float64."""
        dt = self.net[0].weight.dtype
        if self.underdamped:
            v, t = rest
            inp = torch.cat([x.to(dt), v.to(dt), self._time(t).to(dt)], 1)
        else:
            (t,) = rest
            inp = torch.cat([x.to(dt), self._time(t).to(dt)], 1)
        return self.net(inp).to(x.dtype)


class PathSource:
    """Mini-batches of forward paths (N+1, b, d), regenerated from all training points every ``regen_every``
    epochs with this source's own generator (so training is reproducible from the seed)."""

    def __init__(self, cs: ConstraintSet, data: torch.Tensor, schedule: Schedule, N: int, method: str, batch_size: int,
                 seed: int, regen_every: int = 1, **kw):
        self.cs, self.data, self.schedule, self.N, self.method = cs, data, schedule, N, method
        self.batch_size, self.regen_every, self.kw = int(batch_size), int(regen_every), kw
        self.generator = torch.Generator().manual_seed(int(seed))
        self.steps_per_epoch = math.ceil(len(data) / self.batch_size)
        self._block = -1
        self._epoch = -1
        self.paths: torch.Tensor | None = None
        self.perm: torch.Tensor | None = None
        self.dropped_total = 0
        self.failed_along = 0
        self.generated = 0
        self._forward = baseline_forward_paths if method in BASELINES else forward_paths
        self.path_seconds = 0.0

    def __call__(self, index: int, generator=None):
        epoch, s = divmod(index, self.steps_per_epoch)
        block = epoch // self.regen_every
        if block != self._block:
            t0 = time.perf_counter()
            fp = self._forward(self.cs, self.data, self.schedule, self.N, self.method, self.generator, **self.kw)
            self.path_seconds += time.perf_counter() - t0
            keep = ~fp.dropped & ~fp.terminal_failed
            self.dropped_total += int((~keep).sum())
            if fp.path_failed is not None:
                self.failed_along += int(fp.path_failed.sum())
            self.generated += len(keep)
            self.paths = fp.x[:, keep]
            self._block = block
        if epoch != self._epoch:
            self.perm = torch.randperm(self.paths.shape[1], generator=self.generator)
            self._epoch = epoch
        n = self.paths.shape[1]
        bs = max(1, math.ceil(n / self.steps_per_epoch))
        idx = self.perm[s * bs:(s + 1) * bs]
        if len(idx) == 0:
            idx = self.perm[:bs]
        return self.paths[:, idx]

    def state_dict(self) -> dict:
        return {"generator": self.generator.get_state(), "block": self._block, "epoch": self._epoch}

    def load_state_dict(self, state: dict) -> None:  # resuming regenerates the current block's paths
        self.generator.set_state(state["generator"])
        self._block, self._epoch = -1, -1


@dataclasses.dataclass
class TrainedModel:
    method: str
    net: DriftNet
    ema: EMA                 # the run's EMA callback: its averaged weights, swapped in by ``ema.applied(net)``
    losses: list
    train_seconds: float
    path_seconds: float
    dropped_paths: int
    generated_paths: int
    peak_path_bytes: int
    failed_along_paths: int = 0      # training paths with a failed projection anywhere (see sde.forward_paths)
    #: the EMA weights at update ``early_step`` (the convergence guard's earlier horizon, CLAIMS.md rule 10:
    #: sampled by :func:`sample` with ``early=True``); None when no snapshot was asked for
    early_shadow: list | None = None
    early_step: int = 0


class _EMASnapshot(Callback):
    """Copies the EMA's averaged weights after update ``at`` (it runs after the EMA callback)."""

    def __init__(self, ema: EMA, at: int):
        self.ema, self.at, self.shadow = ema, int(at), None

    def on_step_end(self, trainer: Trainer) -> None:
        if self.ema.updates == self.at:
            self.shadow = [t.detach().clone() for t in self.ema.shadow]


def train_model(cs: ConstraintSet, data: torch.Tensor, method: str, schedule: Schedule, N: int, *, epochs: int,
                batch_size: int, width: int, depth: int, lr: float, seed: int, gamma: float = 5.0, alpha: float = 50.0,
                landing: str = "implicit", regen_every: int = 1, ema: float = 0.99, grad_clip: float = 10.0,
                desc: str | None = None, check_projection: bool = False, data_tol: float = 1e-4,
                early_fraction: float | None = None) -> TrainedModel:
    """Train one variant (ALL_METHODS) on ``data`` (n, d) and return the EMA network and its costs. Training
    points farther than ``data_tol`` from the set (largest |h| or g⁺) are refused."""
    if method not in ALL_METHODS:
        raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(ALL_METHODS)}")
    off = float(cs.violation_of(cs.values_and_jacobian(data)[0]).max()) if len(data) else 0.0
    if not off <= data_tol:
        raise ValueError(f"data: training points are off the set {cs.name} (largest violation {off:.3g} > data_tol="
                         f"{data_tol:g}); project them first")
    torch.manual_seed(seed)
    under = method.startswith("ULLA")
    net = DriftNet(cs.dim, width, depth, underdamped=under, T=schedule.T)
    kw = dict(alpha=alpha, landing=landing, gamma=gamma)
    if check_projection:
        kw["check_projection"] = True
    src = PathSource(cs, data, schedule, N, method, batch_size, seed + 1, regen_every, **kw)
    gen = torch.Generator().manual_seed(seed + 2)
    if method == "RSGM":
        def loss_fn(model, batch):
            return riemannian_loss(model, cs, batch, schedule)
    elif method == "Ambient":
        def loss_fn(model, batch):
            return ambient_loss(model, cs, batch, schedule)
    elif under:
        def loss_fn(model, batch):
            return underdamped_loss(model, cs, batch, schedule, gamma, generator=gen)
    else:
        def loss_fn(model, batch):
            return overdamped_loss(model, cs, batch, schedule)
    ema_cb = EMA(ema, warmup=True)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * src.steps_per_epoch
    callbacks = [LossLogger(every=src.steps_per_epoch), ema_cb]
    snap = None
    if early_fraction is not None:
        if not 0 < early_fraction < 1:
            raise ValueError(f"early_fraction={early_fraction!r} is not allowed; it must lie in (0, 1)")
        snap = _EMASnapshot(ema_cb, max(1, round(early_fraction * steps)))
        callbacks.append(snap)
    trainer = Trainer(net, opt, loss_fn, src, TrainerConfig(steps=steps, grad_clip=grad_clip,
                                                             seed=seed, device="cpu", desc=desc or f"training {method}"),
                      callbacks=callbacks)
    trainer.run()
    _, loss = trainer.history("loss")
    path_bytes = src.paths.element_size() * src.paths.numel() if src.paths is not None else 0
    return TrainedModel(method, net, ema_cb, loss.tolist(), trainer.seconds - src.path_seconds,
                        src.path_seconds, src.dropped_total, src.generated, int(path_bytes), src.failed_along,
                        early_shadow=snap.shadow if snap else None, early_step=snap.at if snap else 0)


def sample(model: TrainedModel, cs: ConstraintSet, n: int, schedule: Schedule, N: int, seed: int,
           prior: torch.Tensor | None = None, early: bool = False, **kw) -> dict:
    """Generate ``n`` points with the model's EMA weights from the uniform prior on the set, or from the given
    ``prior`` points (n, d) where the set has no uniform law (the dipeptide and the arm: the forward process's
    end points, as in the official code); the baselines from their own priors; ``kw`` is for the landing
    samplers."""
    gen = torch.Generator().manual_seed(seed)
    if prior is not None:
        if model.method in BASELINES:
            raise ValueError(f"prior points are not allowed for {model.method}; it samples its own prior")
        if prior.shape != (n, cs.dim):
            raise ValueError(f"prior has shape {tuple(prior.shape)}, expected ({n}, {cs.dim})")
    elif model.method not in BASELINES:
        prior = cs.uniform(n, gen)
    if early:       # the same model at its earlier horizon (the convergence guard): its EMA snapshot swapped in
        if model.early_shadow is None:
            raise ValueError("the model kept no early snapshot (train_model(..., early_fraction=...))")
        final = model.ema.shadow
        model.ema.shadow = model.early_shadow
        try:
            return sample(model, cs, n, schedule, N, seed, prior, early=False, **kw)
        finally:
            model.ema.shadow = final
    with model.ema.applied(model.net) as net:        # the live weights come back even if sampling fails
        t0 = time.perf_counter()
        if prior is None:
            out = baseline_sample(cs, net, n, schedule, N, model.method, gen)
        else:
            out = backward_sample(cs, net, prior, schedule, N, model.method, gen, **kw)
        out["seconds"] = time.perf_counter() - t0
    return out
