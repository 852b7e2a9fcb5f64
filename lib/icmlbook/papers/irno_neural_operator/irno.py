r"""IRNO: a frozen base operator and a learned fixed-point iteration (Liu et al., ICML 2026, Sec. 3).

.. math::
    h_0 = \mathcal T_\text{base}(x),\qquad h_{k+1} = \mathcal F_x(h_k) = h_k + \alpha\,\Phi_\theta([x; h_k]),

trained by unrolling K steps with the loss (official code; dossier Sec. 3.3)

.. math::
    \mathcal L = \frac1K\sum_{k=1}^{K}\Big[\operatorname{mean}(h_k-y)^2 + \beta_\text{spec}
    \,\mathcal L_\text{spec}(h_k, y; \lambda_{k-1})\Big] + \beta_\text{fp}\, w(t)\,\operatorname{mean}\,
    \Phi_\theta([x;y])^2,

with the amplitude-only spectral loss :math:`\mathcal L_\text{spec}=\operatorname{mean}\,\tilde\rho\,
(|\hat h|-|\hat y|)^2`, :math:`\rho(\omega)=1+(|\omega|/0.5)^\lambda` normalised to mean one over the ``rfft2``
grid (:math:`|\omega|` in cycles per sample), an exponent rising linearly
:math:`\lambda_j=\lambda_\text{start}+(\lambda_\text{end}-\lambda_\text{start})\,j/(K-1)` over the step index
:math:`j=0..K-1`, and the fixed-point weight warmed up linearly, :math:`w(t)=\min(1,(t+1)/T_\text{warm})`.
Gradients flow through the whole unrolled trajectory; the base runs under ``no_grad``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from ...training import Evaluate, LossLogger, ShuffledBatches, Trainer, TrainerConfig, WarmupCosine
from .operators import RefinementUNet

__all__ = ["IRNO", "spectral_weights", "spectral_loss", "lambda_schedule", "irno_loss", "LossSpec",
           "train_base", "train_irno", "base_outputs", "StepSource", "banach_bound", "make_refiner", "snapshot_step",
           "EARLY"]


def _finite(name: str, t: torch.Tensor) -> None:
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} contains NaN or infinite values")


class IRNO(nn.Module):
    """A frozen base operator ``base`` (``(B, c_x, n, n) -> (B, c_h, n, n)``) and refinement networks.

    refiners : one network (weight sharing, the method) or ``K`` networks (the unshared ablation: step ``k``
        uses ``refiners[min(k, K-1)]``, so steps past K repeat the last one). Each maps ``c_x + c_h`` channels to
        ``c_h``.
    alpha : step size (> 0).
    """

    def __init__(self, base: nn.Module, refiners: nn.Module | Sequence[nn.Module], alpha: float = 0.2):
        super().__init__()
        if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha > 0):
            raise ValueError(f"alpha={alpha!r} is not allowed; the step size must be a finite number > 0")
        trainable = [n for n, p in base.named_parameters() if p.requires_grad]
        if trainable:
            raise ValueError(f"the base operator must be frozen (requires_grad=False on every parameter); "
                             f"{len(trainable)} are trainable, e.g. {trainable[0]!r}: call base.requires_grad_(False)")
        refiners = [refiners] if isinstance(refiners, nn.Module) else list(refiners)
        if not refiners:
            raise ValueError("refiners is empty; give one network (shared) or K networks (unshared)")
        c_x = getattr(base, "in_channels", None)
        c_h = getattr(base, "out_channels", None)
        for r in refiners:
            ci, co = getattr(r, "in_channels", None), getattr(r, "out_channels", None)
            if c_x is not None and c_h is not None and (ci != c_x + c_h or co != c_h):
                raise ValueError(f"the refiner maps {ci} -> {co} channels but the base takes {c_x} and returns "
                                 f"{c_h}: the refiner must map c_x + c_h = {c_x + c_h} -> c_h = {c_h}")
        self.base = base.eval()
        self.refiners = nn.ModuleList(refiners)
        self.alpha = float(alpha)
        self.shared = len(refiners) == 1

    def train(self, mode: bool = True) -> IRNO:
        super().train(mode)
        self.base.eval()
        return self

    def phi(self, x: torch.Tensor, h: torch.Tensor, k: int = 0) -> torch.Tensor:
        r""":math:`\Phi_\theta([x; h])` of step ``k``."""
        net = self.refiners[0] if self.shared else self.refiners[min(k, len(self.refiners) - 1)]
        return net(torch.cat([x, h], dim=1))

    def update(self, x: torch.Tensor, h: torch.Tensor, k: int = 0) -> torch.Tensor:
        r"""The induced map :math:`\mathcal F_x(h) = h + \alpha\Phi_\theta([x;h])`."""
        return h + self.alpha * self.phi(x, h, k)

    def initial(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return self.base(x)

    def forward(self, x: torch.Tensor, steps: int, h0: torch.Tensor | None = None) -> list[torch.Tensor]:
        """The iterates ``[h_0, ..., h_steps]``; ``h0``: the base's prediction when already computed (it is the
        frozen base's output, the same for every refiner on it)."""
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps={steps!r} is not allowed; it must be an integer >= 0")
        _finite("the input field x", x)
        h = self.initial(x) if h0 is None else h0
        out = [h]
        for k in range(steps):
            h = self.update(x, h, k)
            out.append(h)
        return out


def spectral_weights(n1: int, n2: int, lam: float, dtype=torch.float32, device=None) -> torch.Tensor:
    r""":math:`\tilde\rho = \rho/\operatorname{mean}\rho` on the ``rfft2`` grid ``(n1, n2//2+1)``, with
    :math:`\rho = 1 + (|\omega|/0.5)^\lambda` and :math:`|\omega|` in cycles per sample (Nyquist 0.5)."""
    fx = torch.fft.fftfreq(n1, dtype=torch.float64, device=device).reshape(n1, 1)
    fy = torch.fft.rfftfreq(n2, dtype=torch.float64, device=device).reshape(1, n2 // 2 + 1)
    rho = 1.0 + ((fx ** 2 + fy ** 2).sqrt() / 0.5) ** lam
    return (rho / rho.mean()).to(dtype)


def spectral_loss(h: torch.Tensor, y: torch.Tensor, lam: float) -> torch.Tensor:
    r"""Amplitude-only spectral loss :math:`\operatorname{mean}_{b,c,\omega}\tilde\rho(\omega)
    (|\hat h(\omega)| - |\hat y(\omega)|)^2` (``rfft2``, ortho)."""
    hh, yh = torch.fft.rfft2(h, norm="ortho"), torch.fft.rfft2(y, norm="ortho")
    w = spectral_weights(h.shape[-2], h.shape[-1], lam, dtype=h.dtype, device=h.device)
    return (w * (hh.abs() - yh.abs()) ** 2).mean()


def lambda_schedule(K: int, start: float, end: float) -> list[float]:
    r"""The exponents :math:`\lambda_j` of the losses after updates :math:`j+1`, :math:`j = 0..K-1`."""
    if K == 1:
        return [float(start)]
    return [start + (end - start) * j / (K - 1) for j in range(K)]


@dataclasses.dataclass(frozen=True)
class LossSpec:
    """The training objective of one IRNO variant (the ablations switch its terms)."""

    K: int = 4
    beta_spec: float = 1.0
    lam_start: float = 1.0
    lam_end: float = 2.0
    beta_fp: float = 0.01
    fp_warmup: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.K, bool) or not isinstance(self.K, int) or self.K < 1:
            raise ValueError(f"K={self.K!r} is not allowed; the number of refinement steps must be an integer >= 1")
        for name in ("beta_spec", "beta_fp"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name}={getattr(self, name)!r} is not allowed; it must be >= 0")
        if isinstance(self.fp_warmup, bool) or not isinstance(self.fp_warmup, int) or self.fp_warmup < 1:
            raise ValueError(f"fp_warmup={self.fp_warmup!r} is not allowed; it must be an integer >= 1")


def irno_loss(model: IRNO, x: torch.Tensor, y: torch.Tensor, spec: LossSpec, step: int = 10 ** 12,
              h0: torch.Tensor | None = None) -> tuple[torch.Tensor, dict]:
    """The unrolled objective of the module docstring; returns ``(loss, terms)``. ``h0``: the frozen base's
    prediction on ``x`` when already computed (:func:`base_outputs`), else the base is run here."""
    _finite("the target y", y)
    lams = lambda_schedule(spec.K, spec.lam_start, spec.lam_end)
    h = model.initial(x) if h0 is None else h0
    sp = h.new_zeros(())
    sl = h.new_zeros(())
    for k in range(spec.K):
        h = model.update(x, h, k)
        sp = sp + F.mse_loss(h, y)
        if spec.beta_spec > 0:
            sl = sl + spectral_loss(h, y, lams[k])
    loss = (sp + spec.beta_spec * sl) / spec.K
    fp = h.new_zeros(())
    if spec.beta_fp > 0:
        fp = sum(model.phi(x, y, k).pow(2).mean() for k in range(len(model.refiners))) / len(model.refiners)
        loss = loss + spec.beta_fp * min(1.0, (step + 1) / spec.fp_warmup) * fp
    return loss, {"spatial": (sp / spec.K).detach(), "spectral": (sl / spec.K).detach(), "fp": fp.detach()}


class StepSource:
    """A batch source that hands the trainer ``(*batch, i)``: the batch of ``inner`` (``x, y`` or ``x, y, h0``)
    and its index (the step, with one micro-batch per update), which the fixed-point warm-up reads."""

    def __init__(self, inner: ShuffledBatches):
        self.inner = inner

    def __call__(self, i: int, generator=None):
        return (*self.inner(i, generator), i)

    def state_dict(self) -> dict:
        return self.inner.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.inner.load_state_dict(state)


def _schedule(steps: int, lr: float, final_lr: float) -> WarmupCosine:
    return WarmupCosine(warmup=0, total=steps, final=final_lr / lr)


def train_base(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, epochs: int, batch: int, lr: float,
               seed: int, weight_decay: float = 1e-5, device: str = "auto", desc: str = "base operator",
               show_progress: bool = True) -> Trainer:
    """Train a base operator on ``(x, y)`` by MSE (Adam, cosine decay, clip 1.0), on ``icmlbook.training``."""
    src = ShuffledBatches(x.shape[0], batch, seed, tensors=(x, y))
    steps = epochs * src.steps_per_epoch
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)

    def loss_fn(m, b):
        return F.mse_loss(m(b[0]), b[1])

    tr = Trainer(model, opt, loss_fn, src, TrainerConfig(steps=steps, schedule=_schedule(steps, lr, lr * 1e-2),
                                                         grad_clip=1.0, seed=seed, device=device, desc=desc,
                                                         show_progress=show_progress),
                 callbacks=[LossLogger(every=max(1, src.steps_per_epoch))])
    tr.run()
    return tr


@torch.no_grad()
def base_outputs(base: nn.Module, x: torch.Tensor, chunk: int = 64) -> torch.Tensor:
    """The frozen base's predictions on ``x`` ``(N, c_x, n, n) -> (N, c_h, n, n)``, in chunks of ``chunk``
    samples (eval mode, no gradients). Computed once per base and training set, they serve every refiner trained
    on that base (the ablations of one seed share them) instead of a base forward pass in every update."""
    if any(p.requires_grad for p in base.parameters()):
        raise ValueError("the base operator must be frozen (requires_grad=False) before its outputs are cached")
    was = base.training
    base.eval()
    try:
        return torch.cat([base(x[i:i + chunk]) for i in range(0, x.shape[0], chunk)])
    finally:
        base.train(was)


#: the record name under which :func:`train_irno` logs its ``early`` probe
EARLY = "early_metric"


def snapshot_step(steps: int, extend: float) -> int:
    """The earlier horizon of the compared-metric guard (CLAIMS.md rule 10): ``steps / (1 + extend)`` updates of the
    same run (2/3 of it for the declared 50 %), so that training on from there to ``steps`` is training ``extend``
    longer; at least one update and at most ``steps - 1`` (0, the initialisation, for a run of one update)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be an integer >= 1")
    if not extend > 0:
        raise ValueError(f"extend={extend!r} is not allowed; it must be > 0")
    return 0 if steps == 1 else max(1, min(steps - 1, round(steps / (1.0 + extend))))


def train_irno(model: IRNO, x: torch.Tensor, y: torch.Tensor, spec: LossSpec, *, epochs: int, batch: int,
               lr: float, seed: int, weight_decay: float = 1e-5, device: str = "auto", desc: str = "IRNO",
               show_progress: bool = True, h0: torch.Tensor | None = None, early=None,
               extend: float = 0.5) -> Trainer:
    """Train the refiners of ``model`` (the base stays frozen) by the unrolled objective, on
    ``icmlbook.training`` (Adam, cosine decay to 1 % of ``lr``, gradient clip 1.0). ``h0``: the base's outputs on
    ``x`` (:func:`base_outputs`), batched with ``x`` and ``y``; ``None`` runs the base in every update (the same
    values up to rounding). ``early``: a probe ``model -> float`` (the compared test metric) run once, in eval mode
    without gradients, after :func:`snapshot_step` ``(steps, extend)`` updates of this run (the trainer's
    ``Evaluate`` callback; recorded as :data:`EARLY`), for the convergence guard; it draws no random numbers, so the
    training is the same with or without it."""
    if any(p.requires_grad for p in model.base.parameters()):
        raise ValueError("the base operator was made trainable after IRNO was built; freeze it")
    if h0 is not None and (h0.shape[0] != x.shape[0] or h0.shape[1:] != y.shape[1:]):
        raise ValueError(f"h0 has shape {tuple(h0.shape)}; it must be the base's outputs on x, shaped like y "
                         f"{tuple(y.shape)}")
    tensors = (x, y) if h0 is None else (x, y, h0)
    src = StepSource(ShuffledBatches(x.shape[0], batch, seed, tensors=tensors))
    steps = epochs * src.inner.steps_per_epoch
    opt = torch.optim.Adam(model.refiners.parameters(), lr=lr, weight_decay=weight_decay)

    def loss_fn(m, b):
        loss, terms = irno_loss(m, b[0], b[1], spec, step=b[-1], h0=b[2] if len(b) == 4 else None)
        return loss, terms

    callbacks = [LossLogger(every=max(1, src.inner.steps_per_epoch))]
    if early is not None:
        callbacks.append(Evaluate(lambda m: {EARLY: float(early(m))}, at=[snapshot_step(steps, extend)]))
    tr = Trainer(model, opt, loss_fn, src, TrainerConfig(steps=steps, schedule=_schedule(steps, lr, lr * 1e-2),
                                                         grad_clip=1.0, seed=seed, device=device, desc=desc,
                                                         show_progress=show_progress),
                 callbacks=callbacks, fingerprint=dataclasses.asdict(spec))
    tr.run()
    return tr


def banach_bound(q: float, d0: float, phi_y: float, alpha: float, k: int) -> float:
    r"""The error bound of a :math:`q`-contraction :math:`\mathcal F_x(h) = h + \alpha\Phi([x;h])` (dossier Sec. 3.5,
    our derivation): :math:`\|h_k - y\| \le q^k\|h_0 - h^\star\| + \alpha\|\Phi([x;y])\|/(1-q)`, with
    ``d0`` = :math:`\|h_0 - h^\star\|` and ``phi_y`` = :math:`\|\Phi([x;y])\|`."""
    if not 0 <= q < 1:
        raise ValueError(f"q={q!r} is not allowed; the bound needs a contraction, 0 <= q < 1")
    return q ** k * d0 + alpha * phi_y / (1 - q)


def make_refiner(c_x: int, c_h: int, base: int, depth: int) -> RefinementUNet:
    return RefinementUNet(c_x + c_h, c_h, base=base, depth=depth)
