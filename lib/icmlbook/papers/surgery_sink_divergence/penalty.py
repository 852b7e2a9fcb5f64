r"""The Surgery regulariser and its ablations (arXiv 2602.05228; the objective as in the official training code,
read, not copied):

.. math::  \min_w\; f(w) + \lambda\,\frac{1}{|\mathcal H|}\sum_{h\in\mathcal H}\mathrm{ReLU}\bigl(d_h(w)\bigr),

with :math:`f` the user's fine-tuning loss and :math:`d_h` the sink divergence of head :math:`h` between a
disclosure sample and a refusal sample drawn afresh at every step from two fixed pools (one pair per step in
the paper; ``pairs_per_step > 1`` averages :math:`\alpha_h` over several rows per side first, a documented
deviation that lowers the estimate's variance). The hinge leaves heads already in the negative group alone and
pushes the positive ones down, through the attention probabilities (gradients reach the query and key
projections and everything upstream).

Modes (the sign ablations of the dossier's claim 6 and the random-head control):

* ``"paper"``: :math:`\mathrm{ReLU}(d_h)`, Surgery;
* ``"opposite"``: :math:`\mathrm{ReLU}(-d_h)`, pushes heads toward the *positive* group;
* ``"abs"``: :math:`|d_h|`, pushes every head toward zero divergence;
* ``"random_half"``: :math:`\mathrm{ReLU}(d_h)` on a fixed random half of the heads only (the others get no
  term; the sum is still divided by :math:`|\mathcal H|`, so each penalised head has the paper's weight).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from .stats import sink_attention, stack_attention

__all__ = ["PENALTY_MODES", "head_terms", "penalty_value", "random_half_mask", "SinkPenalty"]

PENALTY_MODES = ("paper", "opposite", "abs", "random_half")


def _check_mode(mode: str) -> str:
    if mode not in PENALTY_MODES:
        raise ValueError(f"mode={mode!r} is not allowed; allowed penalty modes: {', '.join(PENALTY_MODES)}")
    return mode


def head_terms(d: torch.Tensor, mode: str = "paper", mask: torch.Tensor | None = None) -> torch.Tensor:
    """The per-head term (L, H) of the penalty for divergences ``d`` (L, H) in ``mode``; ``mask`` (L, H) bool
    selects the heads of ``"random_half"`` (required there, refused elsewhere)."""
    _check_mode(mode)
    if mode == "paper":
        return torch.relu(d)
    if mode == "opposite":
        return torch.relu(-d)
    if mode == "abs":
        return d.abs()
    if mask is None or mask.shape != d.shape:
        raise ValueError(f"mode='random_half' needs a boolean head mask of shape {tuple(d.shape)}")
    return torch.relu(d) * mask.to(d.dtype)


def penalty_value(d: torch.Tensor, mode: str = "paper", mask: torch.Tensor | None = None) -> torch.Tensor:
    r""":math:`\frac{1}{|\mathcal H|}\sum_h \mathrm{term}(d_h)` (without :math:`\lambda`)."""
    return head_terms(d, mode, mask).sum() / d.numel()


def random_half_mask(n_layer: int, n_head: int, seed: int) -> torch.Tensor:
    """A fixed random half of the heads, (L, H) bool with exactly floor(L H / 2) entries true."""
    g = np.random.default_rng(np.random.SeedSequence([seed, 61]))
    flat = np.zeros(n_layer * n_head, dtype=bool)
    flat[g.choice(flat.size, size=flat.size // 2, replace=False)] = True
    return torch.from_numpy(flat.reshape(n_layer, n_head))


@dataclasses.dataclass(frozen=True)
class SinkPenalty:
    r"""The penalty term as the shared trainer's auxiliary loss reads it (:class:`icmlbook.training.AuxiliaryLoss`
    calls ``penalty(model, batch, outputs)``; the weight :math:`\lambda` is the callback's).

    ``outputs`` must hold ``"attn"`` (per-layer attention of the joint forward pass), ``"n_loss"`` (how many
    leading rows are the user's batch), ``"pool_lengths"`` (real tokens of the 2k pool rows that follow: k
    disclosure rows, then k refusal rows). A forward pass without attention probabilities is an error, never a
    zero penalty.
    """

    mode: str = "paper"
    sink: int = 0
    mask: torch.Tensor | None = None

    def __post_init__(self) -> None:
        _check_mode(self.mode)
        if (self.mode == "random_half") != (self.mask is not None):
            raise ValueError("a head mask is given exactly for mode='random_half'")

    def divergence(self, outputs) -> torch.Tensor:
        if "attn" not in outputs or outputs["attn"] is None:
            raise ValueError("the loss function returned no attention probabilities for the penalty; it must run "
                             "the pool rows through the explicit attention path (return_attn=True)")
        n = int(outputs["n_loss"])
        lengths = outputs["pool_lengths"]
        k2 = int(lengths.shape[0])
        if k2 < 2 or k2 % 2:
            raise ValueError(f"the batch holds {k2} pool rows; it needs k disclosure and k refusal rows (k >= 1)")
        A = stack_attention([p[n:n + k2] for p in outputs["attn"]])
        alpha = sink_attention(A, lengths.to(A.device), self.sink)          # (2k, L, H)
        k = k2 // 2
        return alpha[:k].mean(0) - alpha[k:].mean(0)

    def __call__(self, model, batch, outputs) -> torch.Tensor:
        d = self.divergence(outputs)
        return penalty_value(d, self.mode, None if self.mask is None else self.mask.to(d.device))
