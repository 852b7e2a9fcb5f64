r"""The two contrastive losses of HiVES (VALUEFLOW, section "Extraction"; formulas from the official code,
MIT, re-derived and written by us).

**Hierarchical supervised contrastive loss** (HMCE-style). With unit embeddings ``z`` (B, D), temperature
:math:`\tau`, base temperature :math:`\tau_b` and direction penalty :math:`\lambda_{dir}`:

.. math::

    s_{ij} = z_i^\top z_j/\tau - \max_k z_i^\top z_k/\tau - \lambda_{dir}\,[d_i\ne d_j],\quad s_{ii}=-\infty,\qquad
    \log p_{ij} = s_{ij} - \log\sum_{k\ne i} e^{s_{ik}}

(the row maximum is detached). Level :math:`\ell` positives: :math:`P_\ell(i)=\{j\ne i: h_{i,1:\ell}=h_{j,1:\ell},
d_i=d_j\}`, where a padded level (code -1) never matches. The level loss averages
:math:`-\frac{\tau}{\tau_b}\frac{1}{|P_\ell(i)|}\sum_{j\in P_\ell(i)}\log p_{ij}` over anchors with a positive;
the hierarchy constraint takes :math:`\tilde L_\ell=\max(L_\ell, \max_{\ell'<\ell}\tilde L_{\ell'})` (running max
detached); level weights :math:`w_\ell=2^{1/\ell}`; the total is :math:`\frac1{\#\text{levels used}}\sum_\ell
w_\ell\tilde L_\ell`.

**Anchor loss** (supervised InfoNCE): :math:`s_{ij}=z_i^\top z_j/\tau`, positives share the id (ids < 0 are
never positive), :math:`L=-\frac1{|V|}\sum_{i\in V}\frac1{|P(i)|}\sum_{j\in P(i)}(s_{ij}-\log\sum_{k\ne i}e^{s_{ik}})`.
"""

from __future__ import annotations

import torch

__all__ = ["hier_supcon_loss", "anchor_supcon_loss", "level_weights"]


def level_weights(n_levels: int) -> torch.Tensor:
    """:math:`w_\\ell = 2^{1/\\ell}`, ell = 1..n_levels (shallow levels weigh more)."""
    return torch.tensor([2.0 ** (1.0 / ell) for ell in range(1, n_levels + 1)])


def _log_prob(z: torch.Tensor, tau: float, penalty: torch.Tensor | None) -> torch.Tensor:
    logits = z @ z.T / tau
    logits = logits - logits.max(dim=1, keepdim=True).values.detach()
    if penalty is not None:
        logits = logits - penalty
    eye = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    logits = logits.masked_fill(eye, float("-inf"))
    return logits - torch.logsumexp(logits, dim=1, keepdim=True)


def hier_supcon_loss(z: torch.Tensor, paths: torch.Tensor, direction: torch.Tensor, tau: float = 0.1,
                     base_tau: float = 0.1, lam_dir: float = 1.0, hierarchy_constraint: bool = True) -> torch.Tensor:
    """The HiVES hierarchical loss of a batch. ``z`` (B, D) unit rows; ``paths`` (B, L) integer codes, -1 =
    padded level; ``direction`` (B,). ``hierarchy_constraint=False`` drops the running max (an ablation)."""
    if z.dim() != 2 or paths.shape[0] != z.shape[0] or direction.shape[0] != z.shape[0]:
        raise ValueError(f"shapes z {tuple(z.shape)}, paths {tuple(paths.shape)}, direction {tuple(direction.shape)} "
                         "must agree on the batch size")
    same_dir = direction[:, None] == direction[None, :]
    logp = _log_prob(z, tau, lam_dir * (~same_dir).to(z.dtype))
    eye = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    weights = level_weights(paths.shape[1]).to(z)
    match = torch.ones_like(same_dir)
    total, used, running = z.new_zeros(()), 0, None
    for lvl in range(paths.shape[1]):
        col = paths[:, lvl]
        match = match & (col[:, None] == col[None, :]) & (col[:, None] >= 0) & (col[None, :] >= 0)
        pos = match & same_dir & ~eye
        n_pos = pos.sum(1)
        has = n_pos > 0
        if not bool(has.any()):
            continue
        mean_logp = torch.where(pos, logp, torch.zeros_like(logp)).sum(1)[has] / n_pos[has]
        level_loss = -(tau / base_tau) * mean_logp.mean()
        if hierarchy_constraint and running is not None:
            level_loss = torch.maximum(level_loss, running)
        running = level_loss.detach() if running is None else torch.maximum(running, level_loss.detach())
        total = total + weights[lvl] * level_loss
        used += 1
    return total / max(used, 1)


def anchor_supcon_loss(z: torch.Tensor, ids: torch.Tensor, tau: float = 0.07) -> torch.Tensor:
    """Supervised InfoNCE over ``ids`` (B,) (positives: same id >= 0, self excluded); 0 when no row has a positive."""
    logp = _log_prob(z, tau, None)
    eye = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    pos = (ids[:, None] == ids[None, :]) & (ids[:, None] >= 0) & ~eye
    n_pos = pos.sum(1)
    has = n_pos > 0
    if not bool(has.any()):
        return z.new_zeros(())
    return -(torch.where(pos, logp, torch.zeros_like(logp)).sum(1)[has] / n_pos[has]).mean()
