r"""Data and small ε-prediction denoisers, trained with the book's shared trainer.

* ``ring``: a 2-D mixture of eight Gaussians on a circle (our own generator), for an MLP denoiser;
* ``digits``: scikit-learn's bundled 8×8 digits (1,797 images, shipped in its wheel), scaled to
  :math:`[-1, 1]`, for a small two-resolution U-Net with a sinusoidal time embedding, or a tiny DiT
  (Peebles & Xie 2023: patchify, transformer blocks conditioned by adaLN-zero, unpatchify) standing in for
  PixArt.

Both are trained on the DDPM objective :math:`\|\varepsilon-\varepsilon_\theta(\sqrt{\bar\alpha_t}x_0+
\sqrt{1-\bar\alpha_t}\varepsilon,t)\|^2`, or (``objective="flow"``) on the rectified-flow objective
:math:`\|(\varepsilon-x_0)-v_\theta((1-\sigma)x_0+\sigma\varepsilon,1000\sigma)\|^2` with :math:`\sigma\sim U(0,1)`,
with :class:`icmlbook.training.Trainer`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from ...training import LambdaCallback, LossLogger, ShuffledBatches, Trainer, TrainerConfig, WarmupCosine

__all__ = ["DATASETS", "OBJECTIVES", "load_data", "MLPDenoiser", "TinyUNet", "TinyDiT", "make_model", "train_denoiser", "time_embedding"]

DATASETS = ("ring", "digits")
OBJECTIVES = ("eps", "flow")


def load_data(name: str, n: int = 4096, seed: int = 0) -> torch.Tensor:
    """Training data of ``name``: (n, 2) ring points, or the (1797, 1, 8, 8) digits in [-1, 1]."""
    if name == "ring":
        g = np.random.default_rng(seed)
        k = g.integers(0, 8, n)
        centres = np.stack([np.cos(2 * np.pi * k / 8), np.sin(2 * np.pi * k / 8)], 1) * 1.5
        x = centres + 0.12 * g.standard_normal((n, 2))
        return torch.tensor(x, dtype=torch.float32)
    if name == "digits":
        from sklearn.datasets import load_digits
        img = load_digits().images.astype(np.float32) / 16.0
        return torch.tensor(img * 2 - 1).unsqueeze(1)
    raise ValueError(f"dataset={name!r} is not allowed; allowed values: {', '.join(DATASETS)}")


def time_embedding(t: torch.Tensor, dim: int, T: int = 1000) -> torch.Tensor:
    """Sinusoidal embedding of integer timesteps ``t`` (shape (B,)) into ``dim`` features."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    ang = (t.float() / T * 1000.0)[:, None] * freqs[None]
    return torch.cat([torch.sin(ang), torch.cos(ang)], 1)


class MLPDenoiser(nn.Module):
    """ε_θ(x, t) for 2-D data: the input and a time embedding through ``depth`` SiLU layers of ``width``."""

    def __init__(self, dim: int = 2, width: int = 128, depth: int = 3, temb: int = 32):
        super().__init__()
        self.temb = temb
        layers: list[nn.Module] = [nn.Linear(dim + temb, width), nn.SiLU()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.SiLU()]
        layers.append(nn.Linear(width, dim))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([x, time_embedding(t, self.temb)], 1))


class _Block(nn.Module):
    def __init__(self, cin: int, cout: int, temb: int):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.t = nn.Linear(temb, cout)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()
        self.n1 = nn.GroupNorm(8, cout)
        self.n2 = nn.GroupNorm(8, cout)
        self.act = nn.SiLU()

    def forward(self, x, e):
        h = self.act(self.n1(self.c1(x)))
        h = h + self.t(e)[:, :, None, None]
        h = self.act(self.n2(self.c2(h)))
        return h + self.skip(x)


class TinyUNet(nn.Module):
    """A two-resolution U-Net for (B, 1, 8, 8) images: 8×8 → 4×4 → 8×8, a skip connection, and a time
    embedding added in every block."""

    def __init__(self, ch: int = 32, temb: int = 64):
        super().__init__()
        self.temb = temb
        self.tmlp = nn.Sequential(nn.Linear(temb, temb), nn.SiLU(), nn.Linear(temb, temb))
        self.inp = nn.Conv2d(1, ch, 3, padding=1)
        self.d1 = _Block(ch, ch, temb)
        self.down = nn.Conv2d(ch, 2 * ch, 3, stride=2, padding=1)
        self.mid = _Block(2 * ch, 2 * ch, temb)
        self.up = nn.ConvTranspose2d(2 * ch, ch, 2, stride=2)
        self.u1 = _Block(2 * ch, ch, temb)
        self.out = nn.Conv2d(ch, 1, 3, padding=1)

    def forward(self, x, t):
        e = self.tmlp(time_embedding(t, self.temb))
        h0 = self.d1(self.inp(x), e)
        h = self.mid(self.down(h0), e)
        h = self.u1(torch.cat([self.up(h), h0], 1), e)
        return self.out(h)


def _sincos_2d(n_side: int, dim: int) -> torch.Tensor:
    """Fixed 2-D sine-cosine position embeddings (n_side², dim), half the features per axis (as DiT)."""
    q = dim // 4
    freqs = 1.0 / (10000 ** (torch.arange(q, dtype=torch.float32) / q))
    ys, xs = torch.meshgrid(torch.arange(n_side, dtype=torch.float32), torch.arange(n_side, dtype=torch.float32),
                            indexing="ij")
    parts = []
    for pos in (ys.reshape(-1), xs.reshape(-1)):
        ang = pos[:, None] * freqs[None]
        parts += [torch.sin(ang), torch.cos(ang)]
    return torch.cat(parts, 1)


class _DiTBlock(nn.Module):
    r"""Pre-LN transformer block with adaLN-zero: from the condition :math:`c`, one linear layer (``ada``,
    zero-initialised) gives shift, scale and gate for the attention and the MLP branches, so every block
    starts as the identity."""

    def __init__(self, dim: int, heads: int, mlp_ratio: int):
        super().__init__()
        self.heads = heads
        self.n1 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.n2 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.fc1 = nn.Linear(dim, mlp_ratio * dim)
        self.fc2 = nn.Linear(mlp_ratio * dim, dim)
        self.act = nn.GELU(approximate="tanh")
        self.ada = nn.Linear(dim, 6 * dim)
        nn.init.zeros_(self.ada.weight)
        nn.init.zeros_(self.ada.bias)

    def forward(self, x, c):
        B, N, D = x.shape
        sh1, sc1, g1, sh2, sc2, g2 = self.ada(c).unsqueeze(1).chunk(6, dim=2)
        h = self.n1(x) * (1 + sc1) + sh1
        q, k, v = self.qkv(h).view(B, N, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + g1 * self.proj(att.transpose(1, 2).reshape(B, N, D))
        h = self.n2(x) * (1 + sc2) + sh2
        return x + g2 * self.fc2(self.act(self.fc1(h)))


class TinyDiT(nn.Module):
    """A tiny diffusion transformer for (B, C, H, W) images: ``patch``×``patch`` patches embedded by a strided
    convolution plus fixed 2-D sine-cosine positions, ``depth`` adaLN-zero blocks conditioned on the time
    embedding, a final adaLN (shift, scale) and a zero-initialised linear layer back to patches."""

    def __init__(self, dim: int = 64, depth: int = 3, heads: int = 4, patch: int = 2, mlp_ratio: int = 2,
                 size: int = 8, channels: int = 1, temb: int = 64):
        super().__init__()
        if size % patch or dim % heads or dim % 4:
            raise ValueError(f"size={size}, patch={patch}, dim={dim}, heads={heads} are not allowed; patch must divide "
                             "size, and heads and 4 must divide dim")
        self.patch, self.size, self.channels, self.temb = patch, size, channels, temb
        self.tmlp = nn.Sequential(nn.Linear(temb, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.embed = nn.Conv2d(channels, dim, patch, stride=patch)
        self.register_buffer("pos", _sincos_2d(size // patch, dim))
        self.blocks = nn.ModuleList([_DiTBlock(dim, heads, mlp_ratio) for _ in range(depth)])
        self.n_out = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, patch * patch * channels)
        for layer in (self.ada_out, self.out):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, x, t):
        c = nn.functional.silu(self.tmlp(time_embedding(t, self.temb)))
        h = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        for blk in self.blocks:
            h = blk(h, c)
        sh, sc = self.ada_out(c).unsqueeze(1).chunk(2, dim=2)
        return self.unpatchify(self.out(self.n_out(h) * (1 + sc) + sh))

    def unpatchify(self, h: torch.Tensor) -> torch.Tensor:
        """(B, N, p·p·C) tokens, row-major over the patch grid, each feature ordered (row in patch, column in
        patch, channel) → (B, C, H, W) images."""
        B, g, p = h.shape[0], self.size // self.patch, self.patch
        h = h.view(B, g, g, p, p, self.channels).permute(0, 5, 1, 3, 2, 4)
        return h.reshape(B, self.channels, self.size, self.size)


def make_model(dataset: str, width: int, arch: str = "auto", **arch_kw) -> nn.Module:
    """The denoiser for ``dataset``: ``arch="auto"`` is the MLP for the ring and the U-Net for the digits."""
    if dataset not in DATASETS:
        raise ValueError(f"dataset={dataset!r} is not allowed; allowed values: {', '.join(DATASETS)}")
    if arch == "auto":
        arch = "mlp" if dataset == "ring" else "unet"
    if arch == "mlp" and dataset == "ring":
        return MLPDenoiser(width=width)
    if arch == "unet" and dataset == "digits":
        return TinyUNet(ch=width)
    if arch == "dit" and dataset == "digits":
        return TinyDiT(dim=width, **arch_kw)
    raise ValueError(f"arch={arch!r} is not allowed for dataset={dataset!r}; allowed values: "
                     f"{'auto, mlp' if dataset == 'ring' else 'auto, unet, dit'}")


def train_denoiser(dataset: str, width: int, steps: int, batch: int, lr: float, abar: np.ndarray, seed: int,
                   show_progress: bool = True, objective: str = "eps", arch: str = "auto", snapshot_at: int | None = None,
                   **arch_kw) -> dict:
    """Train an ε-prediction (``objective="eps"``) or flow-matching velocity (``"flow"``) denoiser on
    ``dataset``; returns ``{"state": state_dict, "loss": (steps, values), "seconds": s}`` (plain tensors and
    arrays, so the result caches). ``snapshot_at``: also keep the weights after that many updates of the same run
    (``"early_state"``, ``"early_step"``), for the convergence guard on the compared metric (session 11)."""
    if snapshot_at is not None and not 0 < snapshot_at < steps:
        raise ValueError(f"snapshot_at={snapshot_at!r} is not allowed; it must lie in (0, steps={steps})")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r} is not allowed; allowed values: {', '.join(OBJECTIVES)}")
    torch.manual_seed(seed)
    data = load_data(dataset, seed=seed)
    model = make_model(dataset, width, arch, **arch_kw)
    ab = torch.tensor(abar, dtype=torch.float32)
    T = len(abar)
    src = ShuffledBatches(len(data), batch, seed, tensors=(data,), drop_last=True)

    def batches(i, g):                      # noise and timesteps from the trainer's (checkpointed) generator
        (x0,) = src(i)
        if objective == "flow":
            return x0, torch.rand(x0.shape[0], generator=g), torch.randn(x0.shape, generator=g)
        return x0, torch.randint(0, T, (x0.shape[0],), generator=g), torch.randn(x0.shape, generator=g)

    def loss_fn(m, b):
        x0, t, eps = b
        view = (-1, *([1] * (x0.dim() - 1)))
        if objective == "flow":
            sig = t.view(view)
            return ((m((1 - sig) * x0 + sig * eps, 1000.0 * t) - (eps - x0)) ** 2).mean()
        s = ab.to(x0.device)[t].view(view)
        xt = s.sqrt() * x0 + (1 - s).sqrt() * eps
        return ((m(xt, t) - eps) ** 2).mean()

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    cfg = TrainerConfig(steps=steps, schedule=WarmupCosine(min(100, steps // 10), steps), grad_clip=1.0, seed=seed,
                        device="auto", threads=1, show_progress=show_progress, desc=f"training the {dataset} {'velocity' if objective == 'flow' else 'denoiser'} "
                        f"({arch if arch != 'auto' else 'default'})")
    early: dict = {}

    def keep(trainer):
        if trainer.step == snapshot_at:
            early["state"] = {k: v.detach().cpu().clone() for k, v in trainer.model.state_dict().items()}
    callbacks = [LossLogger(every=max(1, steps // 100))]
    if snapshot_at is not None:
        callbacks.append(LambdaCallback(on_step_end=keep))
    tr = Trainer(model, opt, loss_fn, batches, cfg, callbacks=callbacks)
    tr.run()
    st, lv = tr.history("loss")
    extra = {"early_state": early["state"], "early_step": int(snapshot_at)} if snapshot_at is not None else {}
    return {**extra, "state": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}, "loss": (st, lv),
            "seconds": tr.seconds, "arch": arch, "width": width, "arch_kw": dict(arch_kw), "objective": objective,
            "n_params": sum(p.numel() for p in model.parameters())}
