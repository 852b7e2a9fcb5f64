r"""SSO, MuonSphere and Muon (with the paper's spectral-μP scale), spectral-μP initialisation, and the split of a
model's parameters between them and AdamW.

Paper: Xie et al., arXiv 2601.08393 (dossier sections 3.3-3.8, Algorithm 1). For each hidden 2-D matrix (or
each *atomic block* of it: a head's rows of a q/k/v projection, ``block_rows``) with
:math:`R = c\sqrt{d_\mathrm{out}/d_\mathrm{in}}` (of the block):

1. momentum :math:`M \leftarrow \beta M + (1-\beta)G`; Nesterov uses :math:`(1-\beta)G + \beta M`;
   :math:`\hat M = M/\|M\|_F`;
2. :math:`(\sigma, u, v)` = power iteration on W, warm-started; :math:`\Theta = uv^\top`;
3. retraction: hard :math:`W \leftarrow W R/\sigma`, or dynamic :math:`W \leftarrow (1+\eta\alpha\,\mathrm{sign}(R-\sigma))W`;
4. :math:`\lambda^\star` = root of :math:`h(\lambda)=\langle\Theta,\operatorname{msign}(\hat M+\lambda\Theta)\rangle`
   (:func:`.solver.solve_lambda`, warm-started at the previous root); MuonSphere takes :math:`\lambda = 0`;
5. :math:`W \leftarrow W - \eta R\,\operatorname{msign}(\hat M + \lambda^\star\Theta)`, so
   :math:`\|\Delta W\|_2 = \eta R` and, before the update, :math:`\sigma_\max(W) = R`. No weight decay.

Muon: :math:`W \leftarrow (1-\eta\lambda_{wd})W - \eta\,s\,\operatorname{msign}(\text{Nesterov momentum})` with the
scale s = :math:`\sqrt{d_\mathrm{out}/d_\mathrm{in}}` (spectral μP, the paper's baseline), or torch's
:math:`\sqrt{\max(1, d_\mathrm{out}/d_\mathrm{in})}` ("original") or :math:`0.2\sqrt{\max(d_\mathrm{out}, d_\mathrm{in})}`
("match_rms_adamw").

Choices where paper and released code differ (dossier section 8), taken here: msign in fp32 with the eight
Polar-Express steps (the paper's text; the code casts to bf16), the bracket kept but bisection replaced by
Illinois false position and the first bracketing step sized from the previous slope (``solver="bisect"`` is the
released search), solver tolerance 1e-4 (scripts 2e-4, PyTorch
default 1e-6), power iteration warm-started from the previous vector (the scripts run 100 cold iterations, the
PyTorch default 5): the chapter's runs pass 100 per update since issue 28 (10 before, which left the retraction's
sigma and the top pair inaccurate on near-degenerate spectra), stopped early once the top vector moves by < 1e-6
over 5 iterations (by sigma before issue 28, which settles first); Nesterov momentum 0.9 for SSO.
"""

from __future__ import annotations

import math
from typing import Iterable, Literal

import torch
from torch import nn

from .linalg import POLAR_EXPRESS, msign, power_iteration
from .solver import solve_lambda


def _max_nan(a: float, b: float) -> float:
    """max(a, b), NaN as soon as either is NaN (Python's max keeps its first argument against a NaN)."""
    return float("nan") if math.isnan(a) or math.isnan(b) else max(a, b)

__all__ = ["SSO", "Muon", "spectral_mup_init_", "OptimizerGroup", "split_parameters", "make_optimizer"]


def _blocks(p: torch.Tensor, block_rows: int | None) -> tuple[int, int]:
    if p.dim() != 2:
        raise ValueError(f"a parameter of shape {tuple(p.shape)} is not a 2-D matrix; SSO and Muon take 2-D "
                         "hidden matrices only (train embeddings, the head and 1-D parameters with AdamW)")
    rows = p.shape[0] if block_rows is None else int(block_rows)
    if rows < 1 or p.shape[0] % rows:
        raise ValueError(f"block_rows={block_rows} does not divide the {p.shape[0]} rows of a {tuple(p.shape)} matrix")
    return p.shape[0] // rows, rows


def _positive(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and value > 0):
        raise ValueError(f"{name}={value!r} is not allowed; it must be > 0")


@torch.no_grad()
def spectral_mup_init_(p: torch.Tensor, radius: float = 1.0, std: float = 0.02, block_rows: int | None = None,
                       generator: torch.Generator | None = None) -> torch.Tensor:
    r"""Spectral-μP initialisation in place: :math:`W_k \sim N(0, \mathrm{std}^2)`, then
    :math:`W = c\sqrt{d_\mathrm{out}/d_\mathrm{in}}\,W_k/\|W_k\|_2` for each block (exact spectral norm)."""
    _positive("radius", radius)
    nb, rows = _blocks(p, block_rows)
    w = torch.randn(p.shape, generator=generator, dtype=torch.float64).mul_(std).view(nb, rows, p.shape[1])
    R = radius * math.sqrt(rows / p.shape[1])
    w = w * (R / torch.linalg.matrix_norm(w, ord=2)).view(nb, 1, 1)
    return p.copy_(w.view(p.shape))


class SSO(torch.optim.Optimizer):
    """The Spectral Sphere Optimizer for 2-D hidden matrices (see the module docstring).

    Groups take ``lr``, ``momentum`` (0.9), ``nesterov`` (True), ``radius`` (c, 1.0), ``block_rows`` (None = the
    whole matrix; a head dimension splits q/k/v per head), ``retraction`` ("hard" | "dynamic"), ``alpha``
    (dynamic retraction rate, 0.1), ``solve`` (True; False = MuonSphere, lambda = 0), ``tol`` (1e-4), ``solver``
    ("illinois": the bracket sized from the last slope and false position inside it; "bisect": as released),
    ``msign_steps`` (8), ``power_steps`` (warm-started iterations per update; 10 by default, the chapter's runs pass
    the released scripts' 100), ``power_rtol`` / ``power_stop`` (stop early once the top left vector moved by less
    than 1e-6 over 5 iterations; "sigma": once sigma settled, which stops too early where the top gap is small:
    the default until issue 28). After each step, ``self.stats`` holds per-step totals
    (msign calls and evaluations, solver fallbacks and unconverged blocks, the largest |h| and |lambda|).
    """

    def __init__(self, params, lr: float = 1e-2, momentum: float = 0.9, nesterov: bool = True, radius: float = 1.0,
                 block_rows: int | None = None, retraction: Literal["hard", "dynamic"] = "hard", alpha: float = 0.1,
                 solve: bool = True, tol: float = 1e-4, msign_steps: int = 8, power_steps: int = 10,
                 power_rtol: float | None = 1e-6, max_expand: int = 10, max_bisect: int = 20,
                 solver: Literal["illinois", "bisect"] = "illinois", power_stop: str = "vector"):
        _positive("lr", lr)
        _positive("radius", radius)
        if retraction not in ("hard", "dynamic"):
            raise ValueError(f"retraction={retraction!r} is not allowed; allowed values: hard, dynamic")
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"momentum={momentum!r} is not allowed; it must be in [0, 1)")
        defaults = dict(lr=lr, momentum=momentum, nesterov=nesterov, radius=radius, block_rows=block_rows,
                        retraction=retraction, alpha=alpha, solve=solve, tol=tol, msign_steps=msign_steps,
                        power_steps=power_steps, power_rtol=power_rtol, power_stop=power_stop, max_expand=max_expand,
                        max_bisect=max_bisect, solver=solver)
        super().__init__(params, defaults)
        for group in self.param_groups:
            _positive("lr", group["lr"])
            _positive("radius", group["radius"])
            for p in group["params"]:
                _blocks(p, group["block_rows"])
        self.stats: dict[str, float] = {}

    @staticmethod
    def radius_of(p: torch.Tensor, group: dict) -> float:
        _, rows = _blocks(p, group["block_rows"])
        return group["radius"] * math.sqrt(rows / p.shape[1])

    @torch.no_grad()
    def step(self, closure=None):
        """One update of every matrix; blocks of the same shape (e.g. the heads of every q/k/v projection) are
        processed together: one batched power iteration, one batched solve, one batched msign per evaluation."""
        stats = dict(msign_calls=0, evaluations=0, fallbacks=0, unconverged=0, max_abs_h=0.0, max_abs_lambda=0.0,
                     blocks=0)
        for group in self.param_groups:
            lr, beta = group["lr"], group["momentum"]
            msign_fn = lambda X, s=group["msign_steps"]: msign(X, POLAR_EXPRESS, steps=s)
            buckets: dict[tuple, list] = {}
            for p in group["params"]:
                if p.grad is None:
                    continue
                nb, rows = _blocks(p, group["block_rows"])
                state = self.state[p]
                if not state:
                    state["momentum"] = torch.zeros_like(p)
                    state["u"] = None
                    state["lam"] = torch.zeros(nb, dtype=p.dtype, device=p.device)
                g = p.grad
                buf = state["momentum"]
                buf.lerp_(g, 1 - beta)
                M = (g.lerp(buf, beta) if group["nesterov"] else buf).view(nb, rows, p.shape[1])
                Mh = M / torch.linalg.vector_norm(M, dim=(-2, -1), keepdim=True).clamp(min=1e-12)
                buckets.setdefault((rows, p.shape[1], p.dtype, p.device), []).append((p, nb, Mh))
            for (rows, cols, _, _), items in buckets.items():
                R = group["radius"] * math.sqrt(rows / cols)
                W = torch.cat([p.view(nb, rows, cols) for p, nb, _ in items])         # (n, rows, cols)
                Mh = torch.cat([m for _, _, m in items])
                states = [self.state[p] for p, _, _ in items]
                u0 = None if any(st["u"] is None for st in states) else torch.cat([st["u"] for st in states])
                lam0 = torch.cat([st["lam"] for st in states])
                slopes = [st.get("slope") for st in states]
                slope0 = None if any(x is None for x in slopes) else torch.cat(slopes)
                n = W.shape[0]
                sigma, u, v = power_iteration(W, u0, steps=group["power_steps"], rtol=group["power_rtol"],
                                              stop_on=group["power_stop"])
                Theta = u.unsqueeze(-1) * v.unsqueeze(-2)                          # (n, rows, cols)
                if group["retraction"] == "hard":
                    W.mul_((R / sigma).view(n, 1, 1).to(W.dtype))
                else:
                    W.mul_((1.0 + lr * group["alpha"] * torch.sign(R - sigma)).view(n, 1, 1).to(W.dtype))
                if group["solve"]:
                    sol = solve_lambda(Mh, Theta.to(Mh.dtype), lam0, tol=group["tol"], max_expand=group["max_expand"],
                                       max_bisect=group["max_bisect"], slope0=slope0, method=group["solver"],
                                       msign_fn=msign_fn)
                    lam, Phi, h = sol.lam, sol.Phi, sol.h
                    # keep the last finite slope estimate of each block for the next step's bracketing
                    new_slope = sol.slope if slope0 is None else torch.where(torch.isnan(sol.slope), slope0, sol.slope)
                    stats["msign_calls"] += sol.msign_calls
                    stats["evaluations"] += sol.evaluations
                    stats["fallbacks"] += sol.fallbacks
                    stats["unconverged"] += sol.unconverged
                else:
                    lam, new_slope = lam0, None
                    Phi = msign_fn(Mh)
                    h = (Theta * Phi).sum((-2, -1))
                    stats["msign_calls"] += 1
                    stats["evaluations"] += n
                W.sub_(Phi.to(W.dtype), alpha=lr * R)
                # NaN-propagating maxima (session 6, a second review pass: Python's max(0.0, nan) is 0.0, so a
                # block whose h was NaN was recorded as tangent)
                stats["max_abs_h"] = _max_nan(stats["max_abs_h"], float(h.abs().max()))
                stats["max_abs_lambda"] = _max_nan(stats["max_abs_lambda"], float(lam.abs().max()))
                stats["blocks"] += n
                off = 0
                for (p, nb, _), st in zip(items, states):
                    sl = slice(off, off + nb)
                    p.copy_(W[sl].reshape(p.shape))
                    st["u"], st["lam"], st["h"], st["sigma_before"] = u[sl], lam[sl], h[sl], sigma[sl]
                    if new_slope is not None:
                        st["slope"] = new_slope[sl]
                    off += nb
        self.stats = stats


class Muon(torch.optim.Optimizer):
    """Muon for 2-D hidden matrices: Nesterov momentum, Newton–Schulz msign, decoupled weight decay, update scale
    ``scale`` ("spectral_mup" = sqrt(d_out/d_in), the paper's baseline; "original" and "match_rms_adamw" are
    torch.optim.Muon's). ``coefficients``: Polar-Express (default) or :data:`.linalg.KELLER_QUINTIC`;
    ``ns_dtype``: the msign arithmetic; ``block_rows`` splits a matrix into atomic blocks (per head)."""

    def __init__(self, params, lr: float = 1e-2, momentum: float = 0.9, nesterov: bool = True,
                 weight_decay: float = 0.1, scale: Literal["spectral_mup", "original", "match_rms_adamw"] = "spectral_mup",
                 coefficients=POLAR_EXPRESS, ns_steps: int | None = None, ns_dtype: torch.dtype = torch.float32,
                 eps: float = 1e-7, block_rows: int | None = None):
        _positive("lr", lr)
        if scale not in ("spectral_mup", "original", "match_rms_adamw"):
            raise ValueError(f"scale={scale!r} is not allowed; allowed values: spectral_mup, original, match_rms_adamw")
        defaults = dict(lr=lr, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay, scale=scale,
                        coefficients=coefficients, ns_steps=ns_steps, ns_dtype=ns_dtype, eps=eps,
                        block_rows=block_rows)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                _blocks(p, group["block_rows"])

    @staticmethod
    def scale_of(rows: int, cols: int, scale: str) -> float:
        if scale == "spectral_mup":
            return math.sqrt(rows / cols)
        if scale == "original":
            return math.sqrt(max(1.0, rows / cols))
        return 0.2 * math.sqrt(max(rows, cols))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            lr, beta = group["lr"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                nb, rows = _blocks(p, group["block_rows"])
                state = self.state[p]
                if not state:
                    state["momentum"] = torch.zeros_like(p)
                g = p.grad
                buf = state["momentum"]
                buf.lerp_(g, 1 - beta)
                upd = g.lerp(buf, beta) if group["nesterov"] else buf
                if nb > 1:
                    upd = upd.view(nb, rows, p.shape[1])
                O = msign(upd, group["coefficients"], steps=group["ns_steps"], dtype=group["ns_dtype"],
                          eps=group["eps"]).reshape(p.shape)
                p.mul_(1 - lr * group["weight_decay"])
                p.add_(O, alpha=-lr * self.scale_of(rows, p.shape[1], group["scale"]))


class OptimizerGroup:
    """Several optimisers stepped as one (e.g. SSO for hidden matrices, AdamW for the rest); ``param_groups`` is
    the concatenation of theirs (the trainer's schedule reaches all), ``state_dict`` holds all."""

    def __init__(self, optimizers: Iterable[torch.optim.Optimizer]):
        self.optimizers = [o for o in optimizers if o is not None]
        if not self.optimizers:
            raise ValueError("give at least one optimiser")

    @property
    def param_groups(self) -> list[dict]:
        return [g for o in self.optimizers for g in o.param_groups]

    @property
    def defaults(self) -> dict:
        return {type(o).__name__: {k: v for k, v in o.defaults.items() if not isinstance(v, torch.Tensor)}
                for o in self.optimizers}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for o in self.optimizers:
            o.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        for o in self.optimizers:
            o.step()

    def state_dict(self) -> dict:
        return {"optimizers": [o.state_dict() for o in self.optimizers]}

    def load_state_dict(self, state: dict) -> None:
        for o, s in zip(self.optimizers, state["optimizers"]):
            o.load_state_dict(s)


def split_parameters(model: nn.Module) -> tuple[list[tuple[str, nn.Parameter]], list[tuple[str, nn.Parameter]]]:
    """(hidden 2-D matrices, everything else) of an :class:`icmlbook.lm.GPT`: attention q/k/v/o and MLP
    gate/up/down go to the matrix optimiser; embeddings, positions, the head and 1-D parameters to AdamW."""
    hidden, rest = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        is_hidden = p.dim() == 2 and name.startswith("blocks.") and name.endswith(
            tuple(f"{k}.weight" for k in ("q", "k", "v", "o", "gate", "up", "down")))
        (hidden if is_hidden else rest).append((name, p))
    return hidden, rest


def make_optimizer(model: nn.Module, kind: Literal["adamw", "muon", "sso", "muonsphere"], lr: float, *,
                   adamw_lr: float | None = None, weight_decay: float = 0.1, radius: float = 1.0,
                   per_head: bool = True, betas: tuple[float, float] = (0.9, 0.95), weight_decay_1d: float = 0.0,
                   **matrix_kwargs):
    """The optimiser of the paper's protocol for ``model`` (a GPT): ``kind="adamw"`` trains everything with AdamW
    at ``lr``; otherwise hidden matrices get Muon/SSO/MuonSphere at ``lr`` (q/k/v split per head when
    ``per_head``) and the rest AdamW at ``adamw_lr`` (default ``lr``) with weight decay ``weight_decay``
    (``weight_decay_1d`` for 1-D parameters: the paper's 0.1 is what the chapter's runs pass since issue 28)."""
    if kind not in ("adamw", "muon", "sso", "muonsphere"):
        raise ValueError(f"kind={kind!r} is not allowed; allowed values: adamw, muon, sso, muonsphere")
    _positive("lr", lr)
    hidden, rest = split_parameters(model)
    if kind == "adamw":
        rest, hidden = rest + hidden, []
    decay = [p for n, p in rest if p.dim() >= 2]
    no_decay = [p for n, p in rest if p.dim() < 2]
    a_lr = lr if adamw_lr is None else adamw_lr
    if weight_decay_1d < 0:
        raise ValueError(f"weight_decay_1d={weight_decay_1d!r} is not allowed; it must be >= 0")
    groups = [g for g in ({"params": decay, "weight_decay": weight_decay},
                          {"params": no_decay, "weight_decay": weight_decay_1d})
              if g["params"]]
    adamw = torch.optim.AdamW(groups, lr=a_lr, betas=betas, eps=1e-8)
    if kind == "adamw":
        return OptimizerGroup([adamw])
    d_head = getattr(getattr(model, "cfg", None), "d_head", None)

    def block_rows(name):
        return d_head if per_head and d_head and name.endswith(("q.weight", "k.weight", "v.weight")) else None

    by_rows: dict[int | None, list] = {}
    for name, p in hidden:
        by_rows.setdefault(block_rows(name), []).append(p)
    mgroups = [{"params": ps, "block_rows": r} for r, ps in by_rows.items()]
    if kind == "muon":
        matrix = Muon(mgroups, lr=lr, weight_decay=weight_decay, **matrix_kwargs)
    else:
        matrix = SSO(mgroups, lr=lr, radius=radius, solve=(kind == "sso"), **matrix_kwargs)
    return OptimizerGroup([matrix, adamw])
