r"""The isotropic Mamba baseline: a stack of Mamba (selective state-space, S6) blocks on single nucleotides, with
no chunking, written for the CPU.

Mamba (Gu & Dao, arXiv 2312.00752, Algorithm 2 and §3.4). For one block with input :math:`u\in\mathbb{R}^{L\times d}`
and inner width :math:`E = \mathrm{expand}\cdot d`:

.. math::
    [x; z] = W_\mathrm{in} u,\qquad x \leftarrow \mathrm{silu}(\mathrm{conv}_k(x))\ \text{(causal, depthwise)},\\
    [\delta; B; C] = W_x x,\qquad \Delta = \mathrm{softplus}(W_\Delta \delta + b_\Delta),\qquad A = -\exp(A_\mathrm{log}),\\
    h_t = \exp(\Delta_t A)\odot h_{t-1} + \Delta_t B_t x_t,\qquad y_t = C_t h_t + D\odot x_t,\qquad
    \mathrm{out}_t = W_\mathrm{out}\big(y_t\odot\mathrm{silu}(z_t)\big),

with :math:`h_t \in\mathbb{R}^{E\times N}` (``d_state`` = N), :math:`A` diagonal (one value per channel and state),
:math:`\Delta_t\in\mathbb{R}^E`, :math:`B_t, C_t\in\mathbb{R}^N`. Initialisation as in the paper: :math:`A_{e,n} = n`
(S4D-real), :math:`\Delta` between 1e-3 and 0.1 (log-uniform) through the bias of :math:`W_\Delta`, :math:`D = 1`.
Parameter names follow the paper's reference layout (``in_proj``, ``conv1d``, ``x_proj``, ``dt_proj``, ``A_log``,
``D``, ``out_proj``), so a state dict loads into ``mambapy``'s ``MambaBlock`` for the reference test.

The recurrence (:func:`selective_scan`) is computed in blocks of ``block`` positions: a short loop inside all blocks
at once, the blocks' composed maps scanned in log depth (:func:`~.chunking._affine_prefix`), and each block's
states corrected by the decay from its start, the running product of :math:`\exp(\Delta_s A)\in[0,1]` within the
block (it can underflow to 0, never overflow). :func:`selective_scan_loop` is the per-position
reference. Work is :math:`O(L E N)` with about :math:`2\sqrt L` Python steps instead of :math:`L`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ...lm import RMSNorm
from .chunking import _affine_prefix

__all__ = ["MambaConfig", "MambaBlock", "IsotropicMamba", "selective_scan", "selective_scan_loop"]


def selective_scan_loop(log_a: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    r"""Reference recurrence :math:`h_t = e^{\log a_t}\odot h_{t-1} + u_t`, :math:`h_{-1}=0`, one position at a time.
    ``log_a``, ``u`` (B, L, ...) of one shape -> ``h`` (B, L, ...)."""
    h = torch.zeros_like(u[:, 0])
    out = []
    for t in range(u.shape[1]):
        h = torch.exp(log_a[:, t]) * h + u[:, t]
        out.append(h)
    return torch.stack(out, 1)


def _scan_blocks(a: torch.Tensor, u: torch.Tensor, block: int) -> torch.Tensor:
    """h_t = a_t h_{t-1} + u_t in blocks (no graph): ``a`` (B, L, ...) the decays in [0, 1], ``u`` the inputs."""
    B, L = u.shape[:2]
    rest = u.shape[2:]
    K = max(1, min(block, L))
    nb = -(-L // K)
    pad = nb * K - L
    if pad:
        a = torch.cat([a, a.new_ones(B, pad, *rest)], 1)                        # identity maps: a = 1, u = 0
        u = torch.cat([u, u.new_zeros(B, pad, *rest)], 1)
    ab = a.reshape(B, nb, K, *rest)
    ub = u.reshape(B, nb, K, *rest)
    out = torch.empty_like(ub)
    h = torch.zeros_like(ub[:, :, 0])
    for k in range(K):                                                         # inside every block at once, h_in = 0
        h = ab[:, :, k] * h + ub[:, :, k]
        out[:, :, k] = h
    decay = torch.cumprod(ab, 2)                                               # prod_{s<=k} a_s inside the block
    ends = _affine_prefix(decay[:, :, -1], out[:, :, -1])                      # state after each block (B, nb, ...)
    h_in = torch.cat([torch.zeros_like(ends[:, :1]), ends[:, :-1]], 1)          # state entering each block
    out += decay * h_in.unsqueeze(2)
    return out.reshape(B, nb * K, *rest)[:, :L]


class _Scan(torch.autograd.Function):
    r"""Forward: :func:`_scan_blocks` on :math:`a = e^{\log a}` without a graph. Backward: the gradient
    :math:`g_t = \partial\mathcal L/\partial h_t` (through every later state) obeys
    :math:`g_t = \bar g_t + a_{t+1} g_{t+1}` (:math:`\bar g` the incoming gradient), the same recurrence run backwards
    in time, so :math:`\partial\mathcal L/\partial u_t = g_t` and
    :math:`\partial\mathcal L/\partial \log a_t = g_t\, a_t h_{t-1}`."""

    @staticmethod
    def forward(ctx, log_a, u, block):
        a = torch.exp(log_a)
        h = _scan_blocks(a, u, block)
        ctx.save_for_backward(a, h)
        ctx.block = block
        return h

    @staticmethod
    def backward(ctx, gh):
        a, h = ctx.saved_tensors
        a_next = torch.cat([a[:, 1:], torch.ones_like(a[:, :1])], 1)              # a_{t+1} (a_L unused: g_L = 0)
        g = _scan_blocks(a_next.flip(1), gh.flip(1), ctx.block).flip(1)
        h_prev = torch.cat([torch.zeros_like(h[:, :1]), h[:, :-1]], 1)
        return g * a * h_prev, g, None


def selective_scan(log_a: torch.Tensor, u: torch.Tensor, block: int = 8) -> torch.Tensor:
    r"""The recurrence of :func:`selective_scan_loop`, vectorised in blocks of ``block`` positions, with its backward
    pass written as the reverse recurrence (:class:`_Scan`). ``log_a`` (B, L, ...) holds :math:`\Delta_t A \le 0`,
    ``u`` (B, L, ...) the inputs :math:`\Delta_t B_t x_t`; returns ``h`` (B, L, ...)."""
    if log_a.shape != u.shape:
        raise ValueError(f"log_a {tuple(log_a.shape)} and u {tuple(u.shape)} must have one shape")
    return _Scan.apply(log_a, u, int(block))


@dataclasses.dataclass(frozen=True)
class MambaConfig:
    """Sizes of the isotropic Mamba: width ``d_model``, ``n_layer`` blocks, state size ``d_state`` (N), inner width
    ``expand`` x ``d_model``, causal convolution of width ``d_conv``, ``dt_rank`` (default ceil(d_model / 16)),
    ``block`` positions per block of the scan (16: the square root of the default training context of 256, where the
    Python steps of :func:`selective_scan` are fewest; it was 8 before, about 15 % more CPU per update, the same
    recurrence up to rounding)."""

    d_model: int = 64
    n_layer: int = 2
    d_state: int = 8
    expand: int = 2
    d_conv: int = 4
    dt_rank: int = 0
    block: int = 16

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layer", "d_state", "expand", "d_conv", "block"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)!r} is not allowed; it must be a positive integer")
        if self.dt_rank < 0:
            raise ValueError(f"dt_rank={self.dt_rank!r} is not allowed; 0 (automatic) or a positive integer")

    @property
    def d_inner(self) -> int:
        return self.expand * self.d_model

    @property
    def rank(self) -> int:
        return self.dt_rank or math.ceil(self.d_model / 16)


class MambaBlock(nn.Module):
    """One Mamba mixer (the equations of the module docstring). (B, L, d_model) -> (B, L, d_model)."""

    def __init__(self, cfg: MambaConfig, dt_min: float = 1e-3, dt_max: float = 0.1):
        super().__init__()
        E, N, R = cfg.d_inner, cfg.d_state, cfg.rank
        self.cfg = cfg
        self.in_proj = nn.Linear(cfg.d_model, 2 * E, bias=False)
        self.conv1d = nn.Conv1d(E, E, cfg.d_conv, groups=E, padding=cfg.d_conv - 1)
        self.x_proj = nn.Linear(E, R + 2 * N, bias=False)
        self.dt_proj = nn.Linear(R, E, bias=True)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, N + 1, dtype=torch.float32)).repeat(E, 1))   # (E, N)
        self.D = nn.Parameter(torch.ones(E))
        self.out_proj = nn.Linear(E, cfg.d_model, bias=False)
        with torch.no_grad():
            nn.init.uniform_(self.dt_proj.weight, -R ** -0.5, R ** -0.5)
            dt = torch.exp(torch.rand(E) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)).clamp(min=1e-4)
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))            # softplus(bias) = dt

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        L = u.shape[1]
        N, R = self.cfg.d_state, self.cfg.rank
        x, z = self.in_proj(u).chunk(2, dim=-1)                                  # (B, L, E) each
        x = F.silu(self.conv1d(x.transpose(1, 2))[..., :L].transpose(1, 2))    # causal: left padding only
        delta, Bm, Cm = torch.split(self.x_proj(x), [R, N, N], dim=-1)
        delta = F.softplus(self.dt_proj(delta))                                  # (B, L, E)
        A = -torch.exp(self.A_log.float())                                       # (E, N)
        log_a = delta.unsqueeze(-1) * A                                          # (B, L, E, N), <= 0
        inp = (delta * x).unsqueeze(-1) * Bm.unsqueeze(2)                        # Delta_t B_t x_t
        h = selective_scan(log_a, inp, self.cfg.block)
        y = torch.einsum("blen,bln->ble", h, Cm) + self.D * x
        return self.out_proj(y * F.silu(z))


class IsotropicMamba(nn.Module):
    r"""The isotropic Mamba baseline on the 5-letter alphabet: embedding -> ``n_layer`` pre-norm residual blocks
    :math:`x + \mathrm{Mamba}(\mathrm{RMSNorm}(x))` -> RMSNorm -> head. ``forward(idx)`` with ``idx`` (B, L) ->
    ``(logits (B, L, vocab), [])`` (no chunking stages); the logit at t predicts the nucleotide at t + 1."""

    def __init__(self, cfg: MambaConfig, vocab: int = 5):
        super().__init__()
        self.cfg = cfg
        self.emb = nn.Embedding(vocab, cfg.d_model)
        self.norms = nn.ModuleList(RMSNorm(cfg.d_model) for _ in range(cfg.n_layer))
        self.blocks = nn.ModuleList(MambaBlock(cfg) for _ in range(cfg.n_layer))
        self.norm = RMSNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, vocab, bias=False)
        with torch.no_grad():
            nn.init.normal_(self.emb.weight, std=0.02)
            nn.init.normal_(self.head.weight, std=0.02)
            for b in self.blocks:                                                # GPT-2-style residual scaling
                nn.init.normal_(b.out_proj.weight, std=0.02 / math.sqrt(2 * cfg.n_layer))

    def forward(self, idx: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, list]:
        x = self.emb(idx)
        for n, b in zip(self.norms, self.blocks):
            x = x + b(n(x))
        return self.head(self.norm(x)), []

    def param_groups(self, lr: float, multipliers: Sequence[float] = (1.0,), weight_decay: float = 0.0) -> list[dict]:
        """Weight decay on the projection and embedding matrices only (not on A_log, D, biases, norms, the conv)."""
        decay, rest = [], []
        for name, p in self.named_parameters():
            (decay if p.dim() == 2 and not name.endswith("A_log") else rest).append(p)
        return [{"params": decay, "lr": lr * multipliers[0], "weight_decay": weight_decay},
                {"params": rest, "lr": lr * multipliers[0], "weight_decay": 0.0}]
