r"""H-Net's dynamic chunking (Hwang, Wang & Gu, arXiv 2507.07955), the mechanism dnaHNet (arXiv 2602.10603)
applies to DNA. Written from the equations of H-Net's paper and the semantics of its official MIT code
(goombalab/hnet), read, not copied.

For one stage with encoder output :math:`\hat x \in \mathbb{R}^{B\times L\times D}`:

1. **Routing** (:class:`RoutingModule`): :math:`q_t = W_q\hat x_t`, :math:`k_t = W_k \hat x_t` (both matrices
   initialised to the identity),

   .. math:: p_t = \operatorname{clip}_{[0,1]}\big(\tfrac12(1-\cos(q_{t-1}, k_t))\big),\quad p_1 = 1,
             \qquad b_t = \mathbb{1}[p_t \ge \tfrac12].

2. **Chunking** (:func:`chunk`): the positions with :math:`b_t=1`, in order, gathered by a stable sort that puts
   selected positions first; ``mask`` marks the valid chunk slots of each row.
3. **Smoothing** (:func:`smooth_scan`): :math:`\bar z_c = P_c z_c + (1-P_c)\bar z_{c-1}` with
   :math:`P_c = \operatorname{clip}(p_{t_c}, 10^{-4}, 1-10^{-4})`, vectorised in blocks (a masked matrix product
   per block and a log-depth scan across blocks; :func:`smooth_loop` is the per-position reference).
4. **Upsampling** (:func:`upsample`): position :math:`t` reads chunk :math:`\sum_{k\le t} b_k - 1`.
5. **Confidence-weighted residual** (:func:`ste`): :math:`h_t = \tilde z_t\,\mathrm{STE}(c_t) + W_\mathrm{res}\hat x_t`,
   :math:`c_t = \max(p_t, 1-p_t)`; STE's forward value is 1 and its gradient is the identity.
6. **Ratio loss** (:func:`ratio_loss`): with :math:`F` the fraction of boundaries (no gradient) and :math:`G` the
   mean probability, :math:`\frac{N}{N-1}\big((N-1)FG + (1-F)(1-G)\big)`, equal to 1 at :math:`F=G=1/N`.

Every function is causal: nothing at position :math:`t` reads a position after :math:`t`.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["RoutingModule", "RoutingOutput", "ChunkOutput", "chunk", "fixed_stride_routing", "smooth_scan",
           "smooth_loop", "upsample", "ste", "ratio_loss", "P_CLAMP"]

#: the clamp of the smoothing coefficient P (H-Net's code)
P_CLAMP = 1e-4


@dataclasses.dataclass
class RoutingOutput:
    """``prob`` (B, L): :math:`p_t`; ``boundary`` (B, L) bool: :math:`b_t`; ``confidence`` (B, L): :math:`c_t`."""

    prob: torch.Tensor
    boundary: torch.Tensor
    confidence: torch.Tensor


class RoutingModule(nn.Module):
    r"""Boundary probabilities from the cosine dissimilarity of consecutive projected states (H-Net eq. 4).

    ``forward(x, mask=None)`` with ``x`` (B, L, D) and ``mask`` (B, L) of valid positions -> :class:`RoutingOutput`.
    Invalid positions get :math:`p=0` (no boundary). ``W_q`` and ``W_k`` start at the identity, so at
    initialisation the router measures the raw cosine between neighbouring encoder states.
    """

    def __init__(self, d: int):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        with torch.no_grad():
            self.q.weight.copy_(torch.eye(d))
            self.k.weight.copy_(torch.eye(d))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> RoutingOutput:
        q = F.normalize(self.q(x[:, :-1]), dim=-1)                          # (B, L-1, D): from position t-1
        k = F.normalize(self.k(x[:, 1:]), dim=-1)                           # (B, L-1, D): at position t
        cos = (q * k).sum(-1)                                               # (B, L-1)
        p = torch.clamp(0.5 * (1.0 - cos), 0.0, 1.0)
        p = F.pad(p, (1, 0), value=1.0)                                     # p_1 = 1: a sequence starts a chunk
        if mask is not None:
            p = p * mask.to(p.dtype)
        b = p >= 0.5
        c = torch.maximum(p, 1.0 - p)
        return RoutingOutput(prob=p, boundary=b, confidence=c)


def fixed_stride_routing(batch: int, length: int, stride: int, device=None) -> RoutingOutput:
    """The fixed-stride baseline: a boundary every ``stride`` positions (t = 0, stride, 2 stride, ...), with
    probability 1 there and 0 elsewhere (so the smoothing is the identity and the confidence is 1)."""
    if stride < 1:
        raise ValueError(f"stride={stride!r} is not allowed; it must be an integer >= 1")
    t = torch.arange(length, device=device)
    b = (t % stride == 0).expand(batch, length)
    p = b.float()
    return RoutingOutput(prob=p, boundary=b.clone(), confidence=torch.ones_like(p))


@dataclasses.dataclass
class ChunkOutput:
    """``x`` (B, M, D): the selected states, left-aligned; ``mask`` (B, M): valid chunk slots; ``index`` (B, M):
    the source position of each slot; ``prob`` (B, M): :math:`p` at the selected positions (0 in padding)."""

    x: torch.Tensor
    mask: torch.Tensor
    index: torch.Tensor
    prob: torch.Tensor


def chunk(x: torch.Tensor, routing: RoutingOutput) -> ChunkOutput:
    """Keep the boundary positions of ``x`` (B, L, D), in order, padded to the longest row (M = max count).

    A stable sort of the key ``not b`` puts the selected positions first and keeps their order; the first M
    sorted indices are gathered and ``mask`` marks the ``count`` valid slots of each row."""
    b = routing.boundary
    counts = b.sum(-1)                                                       # (B,)
    M = max(int(counts.max()), 1)
    order = torch.sort((~b).to(torch.int8), dim=-1, stable=True).indices[:, :M]   # (B, M)
    mask = torch.arange(M, device=x.device)[None, :] < counts[:, None]
    gathered = torch.gather(x, 1, order[..., None].expand(-1, -1, x.shape[-1]))
    prob = torch.gather(routing.prob, 1, order) * mask
    return ChunkOutput(x=gathered, mask=mask, index=order, prob=prob)


def smooth_loop(z: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    r"""Reference smoothing, one chunk at a time: :math:`\bar z_c = P_c z_c + (1-P_c)\bar z_{c-1}`,
    :math:`\bar z_0 = P_0 z_0` (``z`` (B, M, D), ``P`` (B, M) already clamped)."""
    out = []
    prev = torch.zeros_like(z[:, 0])
    for c in range(z.shape[1]):
        prev = P[:, c, None] * z[:, c] + (1 - P[:, c, None]) * prev
        out.append(prev)
    return torch.stack(out, 1)


def _affine_prefix(a: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Inclusive Hillis–Steele scan of the maps h -> a_c h + u_c along dim 1 (``a`` (B, n, 1), ``u`` (B, n, D)):
    after the step with offset s every position holds the composition of the 2s maps ending there."""
    s, n = 1, u.shape[1]
    while s < n:
        u = torch.cat([u[:, :s], u[:, s:] + a[:, s:] * u[:, :-s]], 1)
        a = torch.cat([a[:, :s], a[:, s:] * a[:, :-s]], 1)
        s *= 2
    return u


def smooth_scan(z: torch.Tensor, P: torch.Tensor, block: int = 16) -> torch.Tensor:
    r"""The recurrence of :func:`smooth_loop`, vectorised in blocks of ``block`` chunks (Mamba-2's chunked form
    with :math:`A=-1`, written for the CPU). Inside a block,
    :math:`\bar z_i = \sum_{j\le i} \big(\prod_{k=j+1}^{i} a_k\big) u_j + \big(\prod_{k\le i} a_k\big) h`
    with :math:`a_k = 1-P_k`, :math:`u_j = P_j z_j` and :math:`h` the state entering the block: one masked matrix
    product per block, the products taken as exponentials of segment sums of :math:`\log a` (differences of
    non-positive partial sums, never an exponential of a large number). The states entering the blocks come from
    a log-depth parallel scan over the blocks' composed maps. ``z`` (B, M, D), ``P`` (B, M) -> (B, M, D)."""
    B, M, D = z.shape
    K = max(1, min(block, M))
    nb = -(-M // K)
    pad = nb * K - M
    la = torch.log1p(-P.to(z.dtype)).clamp(min=-80.0)                        # log a, a = 1 - P
    u = P.unsqueeze(-1).to(z.dtype) * z
    if pad:
        la = torch.cat([la, la.new_zeros(B, pad)], 1)                         # identity maps: a = 1, u = 0
        u = torch.cat([u, u.new_zeros(B, pad, D)], 1)
    la = la.view(B, nb, K)
    u = u.view(B, nb, K, D)
    tri = torch.ones(K, K, dtype=torch.bool, device=z.device)
    x = la.unsqueeze(-1).expand(B, nb, K, K).masked_fill(~tri.tril(-1), 0.0)   # x[i, j] = log a_i for i > j
    seg = torch.cumsum(x, dim=-2).masked_fill(~tri.tril(0), float("-inf"))      # sum_{k=j+1..i} log a_k
    intra = torch.exp(seg) @ u                                                 # (B, nb, K, D)
    decay = torch.exp(torch.cumsum(la, -1))                                    # prod_{k<=i} a_k within the block
    ends = _affine_prefix(decay[:, :, -1:], intra[:, :, -1])                   # state after each block (B, nb, D)
    h_in = torch.cat([ends.new_zeros(B, 1, D), ends[:, :-1]], 1)               # state entering each block
    out = intra + decay.unsqueeze(-1) * h_in.unsqueeze(2)
    return out.reshape(B, nb * K, D)[:, :M]


def upsample(zbar: torch.Tensor, boundary: torch.Tensor) -> torch.Tensor:
    """Position t takes the smoothed value of its chunk, index ``cumsum(b)_t - 1`` (``zbar`` (B, M, D),
    ``boundary`` (B, L)) -> (B, L, D). Position 0 is always a boundary, so the index is >= 0."""
    idx = (torch.cumsum(boundary.long(), -1) - 1).clamp(min=0)              # (B, L)
    return torch.gather(zbar, 1, idx[..., None].expand(-1, -1, zbar.shape[-1]))


class _STE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, c):
        return torch.ones_like(c)

    @staticmethod
    def backward(ctx, g):
        return g


def ste(c: torch.Tensor) -> torch.Tensor:
    """Straight-through estimator of the confidence: the value 1, the gradient of the identity."""
    return _STE.apply(c)


def ratio_loss(boundary: torch.Tensor, prob: torch.Tensor, N: float, mask: torch.Tensor | None = None) -> torch.Tensor:
    r"""H-Net's ratio loss :math:`\frac{N}{N-1}\big((N-1)FG + (1-F)(1-G)\big)` over the valid positions, with
    :math:`F` the fraction of hard boundaries (no gradient) and :math:`G` the mean boundary probability
    (gradient). ``N`` > 1 is the target downsampling factor (may be fractional)."""
    if not N > 1:
        raise ValueError(f"N={N!r} is not allowed; the target ratio must be > 1")
    if mask is None:
        Fr = boundary.float().mean()
        G = prob.float().mean()
    else:
        m = mask.float()
        n = m.sum().clamp(min=1)
        Fr = (boundary.float() * m).sum() / n
        G = (prob.float() * m).sum() / n
    Fr = Fr.detach()
    return N / (N - 1) * ((N - 1) * Fr * G + (1 - Fr) * (1 - G))
