r"""Noise schedules, the forward processes that make the training paths, and the backward samplers
(dossier §3.3–3.5, §3.7; the official code's conventions).

Overdamped (OLLA), step :math:`k` with :math:`\sigma_k=\sigma(t_k)`:

.. math:: y=x_k+\Pi_{x_k}\big(\sigma_k\sqrt{\Delta t}\,z\big),\qquad x_{k+1}=\mathrm{land}(y)\ \text{or}\ \mathrm{proj}(y).

Underdamped (ULLA), with :math:`a_k=e^{-\gamma\sigma_k^2\Delta t}` and the velocity recovered from the path,
:math:`v_k=\Pi_{x_k}\big[(x_k-x_{k-1})/(\sigma_{k-1}^2\Delta t)\big]`, :math:`v_0=\Pi_{x_0}\xi`:

.. math:: u=a_kv_k+\sqrt{1-a_k^2}\,z,\qquad y=x_k+\sigma_k^2\Delta t\,\Pi_{x_k}u,\qquad x_{k+1}=\mathrm{land}(y).

The "-P" baselines replace the landing by a Newton projection at every step and drop the trajectories whose
projection fails. All variants end with one terminal projection (reported separately: violations before and
after it). The backward samplers run the same integrators backwards with the network's drift.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import torch

from .constraints import ConstraintSet

__all__ = ["Schedule", "ForwardPaths", "forward_paths", "backward_sample", "METHODS"]

METHODS = ("OLLA", "ULLA", "OLLA-P", "ULLA-P")


@dataclasses.dataclass(frozen=True)
class Schedule:
    """:math:`\\sigma(t)` on :math:`[0,T]`: ``linear`` (σ_min → σ_max), ``geometric`` or ``constant`` (σ_max)."""

    kind: str = "linear"
    sigma_min: float = 0.01
    sigma_max: float = 1.0
    T: float = 4.0

    def __post_init__(self):
        if self.kind not in ("linear", "geometric", "constant"):
            raise ValueError(f"kind={self.kind!r} is not allowed; allowed values: linear, geometric, constant")
        if not (self.sigma_min > 0 and self.sigma_max > 0 and self.T > 0):
            raise ValueError(f"the noise schedule must be positive (sigma_min={self.sigma_min!r}, "
                             f"sigma_max={self.sigma_max!r}, T={self.T!r})")

    def __call__(self, t: torch.Tensor | float) -> torch.Tensor:
        t = torch.as_tensor(t, dtype=torch.float64)
        s = t / self.T
        if self.kind == "linear":
            return self.sigma_min + s * (self.sigma_max - self.sigma_min)
        if self.kind == "geometric":
            return self.sigma_min * (self.sigma_max / self.sigma_min) ** s
        return torch.full_like(t, self.sigma_max)

    def grid(self, N: int) -> tuple[torch.Tensor, torch.Tensor, float]:
        """(t_0..t_N, σ(t_0)..σ(t_{N-1}), Δt) on the uniform grid of N steps."""
        if isinstance(N, bool) or not isinstance(N, int) or N < 1:
            raise ValueError(f"N={N!r} is not allowed; the number of steps must be an integer >= 1")
        dt = self.T / N
        t = torch.linspace(0.0, self.T, N + 1, dtype=torch.float64)
        return t, self(t[:-1]), dt


@dataclasses.dataclass
class ForwardPaths:
    x: torch.Tensor              # (N+1, B, d): the path, x[0] the data, x[N] after the terminal projection
    dropped: torch.Tensor        # (B,) a projection failed somewhere along the path ("-P" variants)
    violation: torch.Tensor      # (N+1, B): max constraint violation at each step, before the terminal projection
    terminal_failed: torch.Tensor  # (B,) the terminal projection failed
    method: str
    nfe: int = 0
    path_failed: torch.Tensor | None = None  # (B,) a projection failed at some step or at the end (see check_projection)


def _step(cs: ConstraintSet, x: torch.Tensor, y: torch.Tensor, method: str, landing: str, scale: float,
          overshoot_ok: bool = False):
    if method.endswith("-P"):
        return cs.project(y)
    return cs.land(y, x, mode=landing, scale=scale, overshoot_ok=overshoot_ok), torch.zeros(x.shape[0], dtype=torch.bool)


def _projection_fails(cs: ConstraintSet, x: torch.Tensor) -> torch.Tensor:
    """(B,) whether the set's projection of each point fails (a diagnostic: the point is left as it is)."""
    return cs.project(torch.nan_to_num(x))[1] | ~torch.isfinite(x).all(1)


def _violation(cs: ConstraintSet, x: torch.Tensor) -> torch.Tensor:
    vals, _ = cs.values_and_jacobian(torch.nan_to_num(x))
    v = cs.violation_of(vals)
    return torch.where(torch.isfinite(x).all(1), v, torch.full_like(v, float("inf")))


def forward_paths(cs: ConstraintSet, x0: torch.Tensor, schedule: Schedule, N: int, method: str, generator: torch.Generator,
                  *, alpha: float = 50.0, landing: str = "implicit", gamma: float = 5.0, terminal: bool = True,
                  check_projection: bool = False, overshoot_ok: bool = False) -> ForwardPaths:
    """Whole forward paths from the data points ``x0`` (B, d) with one of METHODS.

    ``path_failed`` marks the trajectories where a projection failed anywhere along the path: for "-P" the
    step's own projection, for every variant the terminal one, and, with ``check_projection``, for landing a
    projection of each intermediate iterate tried on the side (a diagnostic that leaves the path unchanged:
    would the iterate still be projectable onto the set?). ``overshoot_ok`` lets explicit landing run with
    alpha sigma^2 dt >= 2, beyond its stability limit (claim 8's diagnostic; refused otherwise)."""
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(METHODS)}")
    if not alpha > 0:
        raise ValueError(f"alpha={alpha!r} is not allowed; it must be > 0")
    t, sig, dt = schedule.grid(N)
    B, d = x0.shape
    xs = [x0]
    viol = [_violation(cs, x0)]
    dropped = torch.zeros(B, dtype=torch.bool)
    along = torch.zeros(B, dtype=torch.bool)
    x = x0
    under = method.startswith("ULLA")
    if under:
        v = cs.project_tangent(x, torch.randn((B, d), generator=generator, dtype=x.dtype))
    for k in range(N):
        s = float(sig[k])
        z = torch.randn((B, d), generator=generator, dtype=x.dtype)
        if under:
            a = math.exp(-gamma * s * s * dt)
            u = a * v + math.sqrt(1.0 - a * a) * z
            y = x + s * s * dt * cs.project_tangent(x, u)
        else:
            y = x + cs.project_tangent(x, s * math.sqrt(dt) * z)
        x_new, failed = _step(cs, x, y, method, landing, alpha * s * s * dt, overshoot_ok)
        dropped = dropped | failed
        if check_projection and not method.endswith("-P"):
            along = along | _projection_fails(cs, x_new)
        if under:
            v = cs.project_tangent(x_new, (x_new - x) / (s * s * dt))
        x = x_new
        xs.append(x)
        viol.append(_violation(cs, x))
    term_failed = torch.zeros(B, dtype=torch.bool)
    if terminal:
        xT, term_failed = cs.project(x)
        xs[-1] = xT
    return ForwardPaths(torch.stack(xs), dropped, torch.stack(viol), term_failed, method,
                        path_failed=dropped | along | term_failed)


@torch.no_grad()
def backward_sample(cs: ConstraintSet, net: Callable, prior: torch.Tensor, schedule: Schedule, N: int, method: str,
                    generator: torch.Generator, *, alpha: float = 50.0, landing: str = "implicit", gamma: float = 5.0,
                    terminal: bool = True, record: bool = False, check_projection: bool = False) -> dict:
    """Generate from the prior points (B, d) by the backward integrator with the network's drift.

    ``net(x, t)`` (overdamped) or ``net(x, v, t)`` (underdamped) returns (B, d): twice the score in the
    overdamped convention. Returns the samples before and after the terminal projection, the per-step
    violation trace, the dropped mask ("-P": a projection failed), ``path_failed`` (as in
    :func:`forward_paths`, with ``check_projection`` for landing's intermediate iterates) and the NFE."""
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(METHODS)}")
    t, sig, dt = schedule.grid(N)
    x = prior.clone()
    B, d = x.shape
    dropped = torch.zeros(B, dtype=torch.bool)
    along = torch.zeros(B, dtype=torch.bool)
    viol = [_violation(cs, x)]
    under = method.startswith("ULLA")
    x_prev = None
    nfe = 0
    for k in range(N, 0, -1):
        s = float(sig[k - 1])                      # σ(t - Δt), the forward step's noise level
        tk = torch.full((B,), float(t[k]), dtype=x.dtype)
        z = torch.randn((B, d), generator=generator, dtype=x.dtype)
        if under:
            if x_prev is None:
                v = cs.project_tangent(x, torch.randn((B, d), generator=generator, dtype=x.dtype))
            else:
                v = cs.project_tangent(x, (x_prev - x) / (float(sig[k]) ** 2 * dt))
            a = math.exp(-gamma * s * s * dt)
            u = a * v + s * s * dt * net(x, v, tk) + math.sqrt(1.0 - a * a) * z
            y = x - s * s * dt * cs.project_tangent(x, u)
        else:
            y = x + cs.project_tangent(x, 0.5 * s * s * dt * net(x, tk) + s * math.sqrt(dt) * z)
        nfe += 1
        x_new, failed = _step(cs, x, y, method, landing, alpha * s * s * dt)
        dropped = dropped | failed
        if check_projection and not method.endswith("-P"):
            along = along | _projection_fails(cs, x_new)
        x_prev, x = x, x_new
        viol.append(_violation(cs, x))
    before = x.clone()
    term_failed = torch.zeros(B, dtype=torch.bool)
    if terminal:
        x, term_failed = cs.project(x)
    return {"samples": x, "before_terminal": before, "violation": torch.stack(viol), "dropped": dropped,
            "terminal_failed": term_failed, "path_failed": dropped | along | term_failed, "nfe": nfe}
