r"""Samplers as affine recursions, the trajectory recorder, and the error-propagation theory.

With :math:`x_{n+1}=a_nx_n+b_n\varepsilon_\theta(x_n,t_n)` for the full-precision (FP) model and
:math:`\hat x_{n+1}=a_n\hat x_n+b_n\hat\varepsilon(\hat x_n,t_n)` for the quantised one from the same
:math:`x_0`, the state error :math:`e_n=\hat x_n-x_n` obeys exactly

.. math:: e_{n+1}=a_ne_n+b_n\,[\varepsilon_\theta(\hat x_n)-\varepsilon_\theta(x_n)]+b_n\delta_n,\qquad
          \delta_n=\hat\varepsilon(\hat x_n)-\varepsilon_\theta(\hat x_n),

and, dropping the network's response (Approximation 1, :math:`J\approx0`), telescopes to the closed form

.. math:: e_k=\sum_{n<k}\Big(\prod_{j=n+1}^{k-1}a_j\Big)b_n\delta_n .

For DDIM the products are :math:`\sqrt{\bar\alpha_{(k)}/\bar\alpha_{(n+1)}}` (ᾱ at the states reached).

Two-step solvers (DPM-Solver++(2M)) take :math:`x_{n+1}=a_nx_n+b_n\hat o_n+c_nx_{n-1}+d_n\hat o_{n-1}`; every
function here takes the optional ``c, d`` (zero by default). The error then obeys
:math:`e_{n+1}=a_ne_n+c_ne_{n-1}+b_n\delta_n+d_n\delta_{n-1}` under :math:`J=0`, still linear in the δ's: the
closed form's weights :math:`W_{k,n}` are the recursion's response at step ``k`` to a unit δ at step ``n``.
(Our reconstruction: the paper's equations were not reached; see the chapter.)
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import torch

__all__ = ["sample", "Record", "record", "propagation_weights", "closed_form", "linearised_error",
           "jacobian_ratio", "variance_law", "step_norms", "cosine"]


def _t(n_batch: int, t, device) -> torch.Tensor:
    """The model's time input: integer DDPM timesteps as long, flow-matching times (1000σ) as float."""
    if isinstance(t, (float, np.floating)):
        return torch.full((n_batch,), float(t), dtype=torch.float32, device=device)
    return torch.full((n_batch,), int(t), dtype=torch.long, device=device)


def _two_step(n: int, c, d) -> tuple[float, float]:
    if c is None or n == 0:
        return 0.0, 0.0
    return float(c[n]), float(d[n])


@torch.no_grad()
def sample(model: Callable, xT: torch.Tensor, timesteps: np.ndarray, a: np.ndarray, b: np.ndarray,
           correction: Callable | None = None, keep: bool = False, c: np.ndarray | None = None,
           d: np.ndarray | None = None, shift_state: Callable | None = None):
    """Run the sampler from ``xT``; ``correction(n, eps, x) -> eps`` replaces the model output at step ``n``
    (the compensation hook; a two-step solver reuses the corrected output at step ``n + 1``), and
    ``shift_state(n, x) -> x`` replaces the state before step ``n`` (network input and carry alike; the kept
    states are those before the shift). Returns the final state, or every state (S+1, ...) with ``keep``."""
    x, x_prev, e_prev = xT, None, None
    states = [x] if keep else None
    for n, t in enumerate(timesteps):
        if shift_state is not None:
            x = shift_state(n, x)
        eps = model(x, _t(x.shape[0], t, x.device))
        if correction is not None:
            eps = correction(n, eps, x)
        cn, dn = _two_step(n, c, d)
        new = float(a[n]) * x + float(b[n]) * eps
        if cn or dn:
            new = new + cn * x_prev + dn * e_prev
        x_prev, e_prev, x = x, eps, new
        if keep:
            states.append(x)
    return torch.stack(states) if keep else x


@dataclasses.dataclass
class Record:
    """FP and quantised trajectories from the same noise (every tensor has the step first).

    x_fp, x_q : (S+1, B, ...) states; eps_fp : FP output on the FP trajectory; eps_q : quantised output on
    the quantised trajectory; eps_fp_on_q : FP output re-evaluated on the quantised trajectory;
    eps_q_on_fp : quantised output on the FP trajectory.
    """

    x_fp: torch.Tensor
    x_q: torch.Tensor
    eps_fp: torch.Tensor
    eps_q: torch.Tensor
    eps_fp_on_q: torch.Tensor
    eps_q_on_fp: torch.Tensor

    def delta(self, on: str = "quantised") -> torch.Tensor:
        """δ_n measured on the quantised trajectory (FP re-evaluated there) or on the FP one."""
        if on == "quantised":
            return self.eps_q - self.eps_fp_on_q
        if on == "fp":
            return self.eps_q_on_fp - self.eps_fp
        raise ValueError(f"delta_on={on!r} is not allowed; allowed values: quantised, fp")

    @property
    def error(self) -> torch.Tensor:
        """e_n = x̂_n − x_n, (S+1, B, ...)."""
        return self.x_q - self.x_fp


@torch.no_grad()
def record(fp: Callable, q: Callable, xT: torch.Tensor, timesteps: np.ndarray, a: np.ndarray, b: np.ndarray,
           c: np.ndarray | None = None, d: np.ndarray | None = None,
           fp_traj: tuple[torch.Tensor, torch.Tensor] | None = None) -> Record:
    """Both samplers from the same ``xT``, with both models evaluated on both trajectories. ``fp_traj``: the FP
    sampler's states and outputs ``(x_fp, eps_fp)`` from this ``xT`` with these coefficients (an earlier record's),
    reused instead of recomputed (they do not depend on the quantised model)."""
    if not torch.isfinite(xT).all():
        raise ValueError("xT contains NaN or inf")
    if fp_traj is not None and (fp_traj[0].shape[0] != len(timesteps) + 1 or not torch.equal(fp_traj[0][0], xT)):
        raise ValueError("fp_traj is not the FP trajectory of this xT and step count")
    x, xh = xT, xT
    xs, xhs, e_fp, e_q, e_fq, e_qf = [x], [xh], [], [], [], []
    for n, t in enumerate(timesteps):
        tt = _t(x.shape[0], t, x.device)
        ef = fp(x, tt) if fp_traj is None else fp_traj[1][n]
        eqf = q(x, tt)
        eq, efq = q(xh, tt), fp(xh, tt)
        cn, dn = _two_step(n, c, d)
        nxh = float(a[n]) * xh + float(b[n]) * eq
        if fp_traj is None:
            nx = float(a[n]) * x + float(b[n]) * ef
            if cn or dn:
                nx = nx + cn * xs[-2] + dn * e_fp[-1]
        else:
            nx = fp_traj[0][n + 1]
        if cn or dn:
            nxh = nxh + cn * xhs[-2] + dn * e_q[-1]
        x, xh = nx, nxh
        xs.append(x); xhs.append(xh); e_fp.append(ef); e_q.append(eq); e_fq.append(efq); e_qf.append(eqf)
    st = torch.stack
    return Record(st(xs), st(xhs), st(e_fp), st(e_q), st(e_fq), st(e_qf))


def propagation_weights(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None,
                        d: np.ndarray | None = None) -> np.ndarray:
    r"""``W[k, n]`` = :math:`(\prod_{j=n+1}^{k-1}a_j)\,b_n` for ``n < k`` (0 otherwise), shape (S+1, S): the
    closed form is ``e_k = Σ_n W[k, n] δ_n``. With ``c, d`` (two-step solvers) ``W[:, n]`` is the response of
    :math:`e_{k+1}=a_ke_k+c_ke_{k-1}+b_k\delta_k+d_k\delta_{k-1}` to a unit δ at step ``n``."""
    S = len(a)
    W = np.zeros((S + 1, S))
    if c is None or not (np.any(c) or np.any(d)):
        for k in range(S + 1):
            for n in range(k):
                W[k, n] = np.prod(a[n + 1:k]) * b[n]
        return W
    for n in range(S):
        for k in range(n, S):                               # e_{k+1} from e_k, e_{k-1} and the unit δ_n
            W[k + 1, n] = (a[k] * W[k, n] + (c[k] * W[k - 1, n] if k > 0 else 0.0)
                           + (b[k] if k == n else 0.0) + (d[k] if k == n + 1 else 0.0))
    return W


def closed_form(delta: torch.Tensor, a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None,
                d: np.ndarray | None = None) -> torch.Tensor:
    """Predicted e_k for every k (S+1, B, ...) from per-step errors δ (S, B, ...) under J = 0."""
    W = torch.tensor(propagation_weights(a, b, c, d), dtype=delta.dtype, device=delta.device)
    return torch.einsum("kn,n...->k...", W, delta)


def linearised_error(fp: torch.nn.Module, x_fp: torch.Tensor, delta: torch.Tensor, timesteps: np.ndarray,
                     a: np.ndarray, b: np.ndarray) -> torch.Tensor:
    r"""e_k with the Jacobian kept: :math:`e_{n+1}=(a_nI+b_nJ_n)e_n+b_n\delta_n`, :math:`J_n` the FP network's
    Jacobian at the FP state :math:`x_n`, applied by ``torch.func.jvp``."""
    from torch.func import jvp
    e = torch.zeros_like(x_fp[0])
    out = [e]
    for n, t in enumerate(timesteps):
        tt = _t(e.shape[0], t, e.device)
        if n == 0:
            je = torch.zeros_like(e)
        else:
            _, je = jvp(lambda x: fp(x, tt), (x_fp[n],), (e,))
        e = (float(a[n]) * e + float(b[n]) * je + float(b[n]) * delta[n]).detach()
        out.append(e)
    return torch.stack(out)


def step_norms(traj: torch.Tensor) -> torch.Tensor:
    """Per-step, per-sample Euclidean norms of a (S, B, ...) tensor: (S, B)."""
    return traj.reshape(traj.shape[0], traj.shape[1], -1).norm(dim=2)


def cosine(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Per-sample cosine between (B, ...) tensors."""
    u, v = u.reshape(u.shape[0], -1), v.reshape(v.shape[0], -1)
    return (u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1)).clamp_min(1e-30)


def jacobian_ratio(fp: torch.nn.Module, rec: Record, timesteps: np.ndarray, a: np.ndarray, b: np.ndarray) -> dict:
    r"""Per step n ≥ 1, the size of the dropped term against the kept one, over the batch:
    ``jvp`` = :math:`\|b_nJ_ne_n\|/\|a_ne_n\|` (linearised, J at the FP state) and ``exact`` =
    :math:`\|b_n[\varepsilon_\theta(\hat x_n)-\varepsilon_\theta(x_n)]\|/\|a_ne_n\|` (norms summed over the batch)."""
    from torch.func import jvp
    jv, ex = [], []
    for n in range(1, len(timesteps)):
        tt = _t(rec.x_fp.shape[1], timesteps[n], rec.x_fp.device)
        e = rec.error[n]
        _, je = jvp(lambda x: fp(x, tt), (rec.x_fp[n],), (e,))
        den = (float(a[n]) * e).norm().item()
        jv.append(abs(float(b[n])) * je.norm().item() / max(den, 1e-30))
        ex.append(abs(float(b[n])) * (rec.eps_fp_on_q[n] - rec.eps_fp[n]).norm().item() / max(den, 1e-30))
    return {"jvp": np.array(jv), "exact": np.array(ex)}


def variance_law(rec: Record, a: np.ndarray, b: np.ndarray, on: str = "quantised") -> dict:
    r"""Per sample: the measured :math:`\|e_S\|^2` (``measured``), the independent-errors prediction
    :math:`\sum_n W_{S,n}^2\|\delta_n\|^2` (``independent``) and the full second moment of the J = 0 closed form
    :math:`\|\sum_nW_{S,n}\delta_n\|^2` (``full``, the same δ's with their cross-step correlations). Their means
    over samples estimate the expectations: ``full / independent`` tests the independence assumption alone,
    ``measured / full`` the dropped Jacobian alone."""
    d = rec.delta(on)
    B = d.shape[1]
    dflat = d.reshape(d.shape[0], B, -1).double()
    w = torch.tensor(propagation_weights(a, b)[-1], dtype=torch.float64, device=d.device)
    measured = rec.error[-1].reshape(B, -1).double().pow(2).sum(1)
    independent = (w[:, None] ** 2 * dflat.pow(2).sum(2)).sum(0)
    full = torch.einsum("n,nbk->bk", w, dflat).pow(2).sum(1)          # ‖Σ_n W_{S,n} δ_n‖², the same δ's, J = 0
    return {"measured": measured.cpu().numpy(), "independent": independent.cpu().numpy(), "full": full.cpu().numpy()}
