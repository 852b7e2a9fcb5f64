r"""Feasible sets :math:`\Sigma=\{x\in\mathbb R^d: h(x)=0,\ g(x)\le 0\}` and the two ways of staying on them.

Following the official code of Jeon, Muehlebach & Tao (ICML 2026) as described in the dossier (§3.1):

- **active set**: every equality, and the inequalities with :math:`g_j(x)\ge 0`;
- **stacked constraints** :math:`\tilde J(x)=[h(x);\ g_{\mathcal A}(x)+\varepsilon]` with the Jacobian rows
  :math:`\nabla J(x)` of the active constraints (inactive rows zero), and the damped Gram matrix
  :math:`G=\nabla J\,\nabla J^\top+\delta I`;
- **tangent projection** :math:`\Pi_x v=v-\nabla J^\top G^{-1}\nabla J\,v`;
- **landing**: the normal correction :math:`-\nabla J^\top G^{-1}\tilde J` (scaled by :math:`\alpha\sigma^2\Delta t`
  when explicit; unscaled at the post-step point when implicit), one small :math:`p\times p` solve per point,
  which attracts the iterate to :math:`\Sigma` (inequalities to :math:`g=-\varepsilon`, slightly inside);
- **Newton projection** (the baselines' retraction): Gauss–Newton iterations on the active constraints with
  an active-set update, at most ``max_iter`` steps to tolerance ``tol``; points that do not converge (or
  become non-finite) are reverted and flagged as failed.

Shapes: points ``x`` are ``(B, d)``; values ``(B, p)``; Jacobians ``(B, p, d)``. Jacobians come from
``torch.func.vmap(jacrev(...))`` unless a subclass gives them in closed form (the sphere, SO(n), the torus).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch.func import jacrev, vmap

__all__ = ["ConstraintSet", "Sphere", "CappedSphere", "Torus", "SpecialOrthogonal", "FunctionalSet", "Dipeptide", "RobotArm",
           "dihedral", "dihedral_gradient", "panda_positions"]


class ConstraintSet:
    """Base class: subclasses define ``dim``, ``n_eq``, ``n_ineq`` and ``constraint_values(x)`` for one
    point ``x`` of shape ``(d,)`` (returning the ``n_eq + n_ineq`` values, equalities first)."""

    dim: int
    n_eq: int
    n_ineq: int = 0
    name: str = "set"

    def __init__(self, eps: float = 0.1, damping: float = 1e-6):
        if not eps >= 0:
            raise ValueError(f"eps={eps!r} is not allowed; the boundary margin must be >= 0")
        if not damping > 0:
            raise ValueError(f"damping={damping!r} is not allowed; it must be > 0")
        self.eps, self.damping = float(eps), float(damping)

    # -- values and Jacobians --------------------------------------------------------------------------
    def constraint_values(self, x: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def values_and_jacobian(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """All constraint values ``(B, p)`` and their Jacobian ``(B, p, d)`` (generic: autodiff)."""
        self._check_points(X)
        vals = vmap(self.constraint_values)(X)
        jac = vmap(jacrev(self.constraint_values))(X)
        if vals.shape != (X.shape[0], self.n_eq + self.n_ineq):
            raise ValueError(f"{self.name}: constraint_values returned shape {tuple(vals.shape[1:])}, expected "
                             f"({self.n_eq + self.n_ineq},)")
        if not torch.isfinite(vals).all():
            raise ValueError(f"{self.name}: constraint values are not finite at {int((~torch.isfinite(vals)).any(1).sum())} point(s)")
        return vals, jac

    def _check_points(self, X: torch.Tensor) -> None:
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"{self.name}: points must have shape (B, {self.dim}), got {tuple(X.shape)}")

    def active(self, vals: torch.Tensor) -> torch.Tensor:
        """Mask ``(B, p)`` of active constraints: equalities always, inequalities where g >= 0."""
        mask = torch.ones_like(vals, dtype=torch.bool)
        if self.n_ineq:
            mask[:, self.n_eq:] = vals[:, self.n_eq:] >= 0
        return mask

    def stacked(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        r""":math:`\tilde J` ``(B, p)`` and the active Jacobian ``(B, p, d)`` (inactive rows zeroed)."""
        vals, jac = self.values_and_jacobian(X)
        mask = self.active(vals)
        target = vals.clone()
        if self.n_ineq:
            target[:, self.n_eq:] = vals[:, self.n_eq:] + self.eps
        target = torch.where(mask, target, torch.zeros_like(target))
        jac = jac * mask.unsqueeze(-1).to(jac.dtype)
        return target, jac

    @staticmethod
    def _solve(G: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """``G^{-1} b`` for a batch of small SPD matrices ``G`` (B, p, p) and ``b`` (B, p, k): closed forms for
        p = 1 and 2 (batched LAPACK calls cost milliseconds per batch there), ``torch.linalg.solve`` above."""
        p = G.shape[-1]
        if p == 1:
            return b / G
        if p == 2:
            a, c, d = G[:, 0:1, 0:1], G[:, 0:1, 1:2], G[:, 1:2, 1:2]
            det = a * d - c * c
            b0, b1 = b[:, 0:1], b[:, 1:2]
            return torch.cat([d * b0 - c * b1, a * b1 - c * b0], 1) / det
        return torch.linalg.solve(G, b)

    def _gram(self, jac: torch.Tensor) -> torch.Tensor:
        p = jac.shape[1]
        return jac @ jac.transpose(1, 2) + self.damping * torch.eye(p, dtype=jac.dtype, device=jac.device)

    # -- tangent projection and landing ----------------------------------------------------------------
    def project_tangent(self, X: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        r""":math:`\Pi_x v=v-\nabla J^\top G^{-1}\nabla J v` for every row."""
        _, jac = self.stacked(X)
        coef = self._solve(self._gram(jac), (jac @ V.unsqueeze(-1)))
        return V - (jac.transpose(1, 2) @ coef).squeeze(-1)

    def landing_direction(self, X: torch.Tensor) -> torch.Tensor:
        r""":math:`\nabla J^\top G^{-1}\tilde J` (the landing step is minus a multiple of it)."""
        target, jac = self.stacked(X)
        coef = self._solve(self._gram(jac), target.unsqueeze(-1))
        return (jac.transpose(1, 2) @ coef).squeeze(-1)

    def land(self, Y: torch.Tensor, X_prev: torch.Tensor | None = None, *, mode: str = "implicit",
             scale: float | None = None, overshoot_ok: bool = False) -> torch.Tensor:
        """The landing correction after a tangent step: ``implicit``: ``Y - dir(Y)`` (one Gauss–Newton step at
        the post-step point); ``explicit``: ``Y - scale * dir(X_prev)`` with ``scale = alpha sigma^2 dt``.
        ``overshoot_ok`` lets an explicit scale of 2 or more through (claim 8's instability diagnostic only)."""
        if mode == "implicit":
            return Y - self.landing_direction(Y)
        if mode == "explicit":
            if scale is None or X_prev is None:
                raise ValueError("explicit landing needs the previous point and scale = alpha * sigma^2 * dt")
            if not (0 < scale < 2 or (overshoot_ok and scale >= 2)):
                raise ValueError(f"explicit landing with alpha*sigma^2*dt = {scale:.3g} is not allowed; it must be in "
                                 "(0, 2) (at >= 2 the correction overshoots and diverges)")
            return Y - scale * self.landing_direction(X_prev)
        raise ValueError(f"mode={mode!r} is not allowed; allowed values: implicit, explicit")

    # -- projection (the baselines) --------------------------------------------------------------------
    def newton_project(self, X: torch.Tensor, max_iter: int = 30, tol: float = 1e-6,
                       fail_threshold: float = 1e-3) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Gauss–Newton projection onto h = 0, g <= 0 with an active-set update (an inequality enters when
        violated and leaves when its multiplier turns negative). Returns ``(points, failed, iterations)``;
        failed points (violation above ``fail_threshold`` after ``max_iter`` steps, or non-finite) are
        returned unchanged."""
        Z = X.clone()
        done = torch.zeros(X.shape[0], dtype=torch.bool, device=X.device)
        iters = torch.zeros(X.shape[0], dtype=torch.long, device=X.device)
        held = torch.zeros((X.shape[0], self.n_ineq), dtype=torch.bool, device=X.device)
        vals = None                     # the constraint values at the current Z, when known (None after a step)
        for _ in range(max_iter):
            vals, jac = self.values_and_jacobian(torch.nan_to_num(Z))
            viol = self.violation_of(vals)
            done = done | (viol <= tol)
            if bool(done.all()):
                break
            mask = torch.ones_like(vals, dtype=torch.bool)
            if self.n_ineq:
                mask[:, self.n_eq:] = (vals[:, self.n_eq:] >= 0) | held
            target = torch.where(mask, vals, torch.zeros_like(vals))
            J = jac * mask.unsqueeze(-1).to(jac.dtype)
            lam = self._solve(self._gram(J), target.unsqueeze(-1)).squeeze(-1)
            if self.n_ineq:
                held = mask[:, self.n_eq:] & (lam[:, self.n_eq:] >= 0)
            step = (J.transpose(1, 2) @ lam.unsqueeze(-1)).squeeze(-1)
            move = ~done
            Z = torch.where(move.unsqueeze(1), Z - step, Z)
            iters = iters + move.long()
            vals = None
        finite = torch.isfinite(Z).all(1)
        if vals is None:                # the loop ran out of iterations after a step: evaluate once more (issue 35:
            vals = self.values_and_jacobian(torch.nan_to_num(Z))[0]   # not again when the last check saw Z already)
        failed = ~finite | (self.violation_of(vals) > fail_threshold)
        Z = torch.where(failed.unsqueeze(1), X, Z)
        return Z, failed, iters

    def project(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The projection used by the baselines and the terminal clean-up: ``(points, failed)``."""
        Z, failed, _ = self.newton_project(X)
        return Z, failed

    # -- measures --------------------------------------------------------------------------------------
    def violation_of(self, vals: torch.Tensor) -> torch.Tensor:
        """Per point: max |h| and max relu(g) (the larger of the two)."""
        out = vals[:, : self.n_eq].abs().amax(1) if self.n_eq else torch.zeros(vals.shape[0], dtype=vals.dtype)
        if self.n_ineq:
            out = torch.maximum(out, torch.relu(vals[:, self.n_eq:]).amax(1))
        return out

    def violations(self, X: torch.Tensor) -> dict[str, float]:
        """Mean |h| and mean relu(g) over the points (the paper's code's measures), and the maxima."""
        vals = vmap(self.constraint_values)(X)
        h = vals[:, : self.n_eq].abs()
        g = torch.relu(vals[:, self.n_eq:]) if self.n_ineq else torch.zeros((X.shape[0], 1), dtype=X.dtype)
        return {"mean_abs_h": float(h.mean()) if self.n_eq else 0.0, "max_abs_h": float(h.max()) if self.n_eq else 0.0,
                "mean_relu_g": float(g.mean()), "max_relu_g": float(g.max()), "n": int(X.shape[0])}

    def uniform(self, n: int, generator: torch.Generator) -> torch.Tensor:  # pragma: no cover - abstract
        """``n`` points uniform on the set (the forward process's stationary law, the sampler's prior)."""
        raise NotImplementedError


# -- the sphere ----------------------------------------------------------------------------------------
class Sphere(ConstraintSet):
    r"""The unit sphere :math:`S^{d-1}`, :math:`h(x)=\|x\|^2-1`, with closed forms."""

    n_ineq = 0

    def __init__(self, dim: int = 3, **kw):
        super().__init__(**kw)
        self.dim, self.n_eq, self.name = int(dim), 1, f"S^{dim - 1}"

    def constraint_values(self, x):
        return (x @ x - 1.0).reshape(1)

    def values_and_jacobian(self, X):
        self._check_points(X)
        return ((X * X).sum(1, keepdim=True) - 1.0), (2.0 * X).unsqueeze(1)

    def project(self, X):
        r = X.norm(dim=1, keepdim=True)
        failed = ~(r.squeeze(1) > 0) | ~torch.isfinite(r.squeeze(1))
        return torch.where(failed.unsqueeze(1), X, X / r.clamp_min(1e-30)), failed

    def project_tangent_exact(self, X, V):
        return V - ((V * X).sum(1, keepdim=True) / (X * X).sum(1, keepdim=True)) * X

    def project_tangent(self, X, V):
        """Closed form of the generic rule for the single equality (Gram = 4|x|^2 + damping)."""
        if type(self) is not Sphere:
            return super().project_tangent(X, V)
        r2 = (X * X).sum(1, keepdim=True)
        return V - (4.0 * (V * X).sum(1, keepdim=True) / (4.0 * r2 + self.damping)) * X

    def landing_direction(self, X):
        if type(self) is not Sphere:
            return super().landing_direction(X)
        r2 = (X * X).sum(1, keepdim=True)
        return 2.0 * X * (r2 - 1.0) / (4.0 * r2 + self.damping)

    def uniform(self, n, generator):
        z = torch.randn((n, self.dim), generator=generator, dtype=torch.float64)
        return z / z.norm(dim=1, keepdim=True)


class CappedSphere(Sphere):
    r"""The sphere with both polar caps removed (:math:`|x_3|\le c`, two inequalities) and a nonconvex "bite"
    (:math:`\langle x,b\rangle\le\beta` for a unit vector :math:`b` on the equator)."""

    def __init__(self, cap: float = 0.8, bite_dir: tuple = (1.0, 0.0, 0.0), bite: float = 0.7, **kw):
        super().__init__(3, **kw)
        self.cap, self.bite = float(cap), float(bite)
        b = torch.tensor(bite_dir, dtype=torch.float64)
        self.bite_dir = b / b.norm()
        self.n_ineq, self.name = 3, "capped S^2"

    def constraint_values(self, x):
        b = self.bite_dir.to(x.dtype)
        return torch.stack([x @ x - 1.0, x[2] - self.cap, -x[2] - self.cap, x @ b - self.bite])

    def values_and_jacobian(self, X):
        r"""Closed form (session 11; autodiff's ``vmap(jacrev)`` took about two thirds of the capped-sphere study's
        time): rows :math:`2x`, :math:`e_3`, :math:`-e_3` and :math:`b`; the values as :meth:`constraint_values`."""
        self._check_points(X)
        b = self.bite_dir.to(X.dtype)
        x3 = X[:, 2]
        vals = torch.stack([(X * X).sum(1) - 1.0, x3 - self.cap, -x3 - self.cap, X @ b - self.bite], 1)
        if not torch.isfinite(vals).all():
            raise ValueError(f"{self.name}: constraint values are not finite at {int((~torch.isfinite(vals)).any(1).sum())} point(s)")
        e3 = torch.zeros(3, dtype=X.dtype, device=X.device)
        e3[2] = 1.0
        rows = torch.stack([e3, -e3, b.to(X.device)]).expand(X.shape[0], 3, 3)
        return vals, torch.cat([(2.0 * X).unsqueeze(1), rows], 1)

    def project(self, X):
        return ConstraintSet.project(self, X)

    def inside(self, X: torch.Tensor) -> torch.Tensor:
        return (X[:, 2].abs() <= self.cap) & (X @ self.bite_dir.to(X.dtype) <= self.bite)

    def uniform(self, n, generator):
        out = []
        got = 0
        while got < n:
            z = Sphere.uniform(self, 2 * n, generator)
            z = z[self.inside(z)]
            out.append(z)
            got += len(z)
        return torch.cat(out)[:n]


# -- the torus -----------------------------------------------------------------------------------------
class Torus(ConstraintSet):
    r"""The torus :math:`(\sqrt{x^2+y^2}-R)^2+z^2=r^2` in :math:`\mathbb R^3`, optionally cut by the half-space
    :math:`x\le c` (a nonconvex set with a boundary). The equality is written with the squared radius so it
    is smooth away from the axis; its gradient blows up on the axis, where projections can fail."""

    def __init__(self, R: float = 1.0, r: float = 0.4, halfspace: float | None = None, **kw):
        super().__init__(**kw)
        if not 0 < r < R:
            raise ValueError(f"r={r!r} is not allowed; it must be in (0, R={R})")
        self.R, self.r, self.halfspace = float(R), float(r), halfspace
        self.dim, self.n_eq, self.n_ineq = 3, 1, 0 if halfspace is None else 1
        self.name = "torus" if halfspace is None else f"torus with x <= {halfspace:g}"

    def constraint_values(self, x):
        rho = torch.sqrt(x[0] ** 2 + x[1] ** 2)
        h = (rho - self.R) ** 2 + x[2] ** 2 - self.r ** 2
        if self.halfspace is None:
            return h.reshape(1)
        return torch.stack([h, x[0] - self.halfspace])

    def values_and_jacobian(self, X):
        r"""Closed form: :math:`\nabla h=(2(\rho-R)x/\rho,\ 2(\rho-R)y/\rho,\ 2z)` (not defined on the axis
        :math:`\rho=0`, where it is NaN as autodiff's is), and :math:`\nabla g=e_1` for the half-space."""
        self._check_points(X)
        rho = torch.sqrt(X[:, 0] ** 2 + X[:, 1] ** 2)
        h = (rho - self.R) ** 2 + X[:, 2] ** 2 - self.r ** 2
        c = 2 * (rho - self.R) / rho
        dh = torch.stack([c * X[:, 0], c * X[:, 1], 2 * X[:, 2]], 1)
        if self.halfspace is None:
            vals, jac = h.unsqueeze(1), dh.unsqueeze(1)
        else:
            vals = torch.stack([h, X[:, 0] - self.halfspace], 1)
            jac = torch.stack([dh, torch.zeros_like(dh).index_fill_(1, torch.tensor([0]), 1.0)], 1)
        if not torch.isfinite(vals).all():
            raise ValueError(f"{self.name}: constraint values are not finite at {int((~torch.isfinite(vals)).any(1).sum())} point(s)")
        return vals, jac

    def project_exact(self, X: torch.Tensor) -> torch.Tensor:
        """The nearest point of the (uncut) torus: the tube's centre circle point, then the tube radius."""
        rho = torch.sqrt(X[:, 0] ** 2 + X[:, 1] ** 2).clamp_min(1e-30)
        c = torch.stack([self.R * X[:, 0] / rho, self.R * X[:, 1] / rho, torch.zeros_like(rho)], 1)
        d = X - c
        return c + self.r * d / d.norm(dim=1, keepdim=True)

    def angles(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(u, v): the angle around the axis and the angle around the tube."""
        u = torch.atan2(X[:, 1], X[:, 0])
        rho = torch.sqrt(X[:, 0] ** 2 + X[:, 1] ** 2)
        v = torch.atan2(X[:, 2], rho - self.R)
        return u, v

    def from_angles(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        rho = self.R + self.r * torch.cos(v)
        return torch.stack([rho * torch.cos(u), rho * torch.sin(u), self.r * torch.sin(v)], 1)

    def uniform(self, n, generator):
        """Area-uniform points: u uniform, v with density proportional to R + r cos v (by rejection)."""
        out, got = [], 0
        while got < n:
            u = 2 * math.pi * torch.rand(2 * n, generator=generator, dtype=torch.float64)
            v = 2 * math.pi * torch.rand(2 * n, generator=generator, dtype=torch.float64)
            keep = torch.rand(2 * n, generator=generator, dtype=torch.float64) * (self.R + self.r) <= self.R + self.r * torch.cos(v)
            x = self.from_angles(u[keep], v[keep])
            if self.halfspace is not None:
                x = x[x[:, 0] <= self.halfspace]
            out.append(x)
            got += len(x)
        return torch.cat(out)[:n]


# -- SO(n) ---------------------------------------------------------------------------------------------
class SpecialOrthogonal(ConstraintSet):
    r""":math:`SO(n)` as :math:`\{X\in\mathbb R^{n\times n}: X^\top X=I\}` (the component of det = +1), points
    flattened row-major to :math:`d=n^2`; the :math:`n(n+1)/2` equalities are the upper triangle of
    :math:`X^\top X-I`. Closed forms: the projection is the polar factor :math:`UV^\top` of the SVD, the tangent
    projection :math:`\tfrac12(U-XU^\top X)`."""

    def __init__(self, n: int = 3, **kw):
        super().__init__(**kw)
        if n < 2:
            raise ValueError(f"n={n!r} is not allowed; SO(n) needs n >= 2")
        self.n = int(n)
        self.dim, self.n_eq, self.name = self.n * self.n, self.n * (self.n + 1) // 2, f"SO({n})"
        self._iu = torch.triu_indices(self.n, self.n)

    def constraint_values(self, x):
        M = x.reshape(self.n, self.n)
        E = M.T @ M - torch.eye(self.n, dtype=x.dtype)
        return E[self._iu[0], self._iu[1]]

    def values_and_jacobian(self, X):
        self._check_points(X)
        B, n = X.shape[0], self.n
        M = X.reshape(B, n, n)
        E = M.transpose(1, 2) @ M - torch.eye(n, dtype=X.dtype)
        vals = E[:, self._iu[0], self._iu[1]]
        # d(M^T M)_{ij}/dM_{kl} = delta_{jl} M_{ki} + delta_{il} M_{kj}
        i, j = self._iu[0], self._iu[1]
        eye = torch.eye(n, dtype=X.dtype)
        jac = (M[:, :, i].permute(0, 2, 1).unsqueeze(-1) * eye[j].unsqueeze(0).unsqueeze(2)
               + M[:, :, j].permute(0, 2, 1).unsqueeze(-1) * eye[i].unsqueeze(0).unsqueeze(2))
        return vals, jac.reshape(B, -1, n * n)

    def project(self, X):
        B, n = X.shape[0], self.n
        U, _, Vh = torch.linalg.svd(X.reshape(B, n, n))
        P = U @ Vh
        flip = torch.det(P) < 0
        if bool(flip.any()):
            U2 = U.clone()
            U2[flip, :, -1] = -U2[flip, :, -1]
            P = torch.where(flip.view(-1, 1, 1), U2 @ Vh, P)
        return P.reshape(B, -1), torch.zeros(B, dtype=torch.bool)

    def project_tangent_exact(self, X, V):
        B, n = X.shape[0], self.n
        M, U = X.reshape(B, n, n), V.reshape(B, n, n)
        return (0.5 * (U - M @ U.transpose(1, 2) @ M)).reshape(B, -1)

    def landing_direction_eigh(self, X):
        r"""Landing's correction :math:`\nabla J^\top G^{-1}\tilde J` written for :math:`SO(n)` (session 10, an outside
        review of claim 6s): the same step as the generic :meth:`ConstraintSet.landing_direction` up to its damping,
        without the :math:`n(n+1)/2\times n^2` Jacobian. It is the least-norm :math:`V` with
        :math:`M^\top V+V^\top M=E` (:math:`E=M^\top M-I`, the upper triangle being the constraints), i.e.
        :math:`V=MS` with :math:`CS+SC=E`, :math:`C=M^\top M=Q\Lambda Q^\top`:
        :math:`S=Q\,[(Q^\top EQ)_{ij}/(\lambda_i+\lambda_j)]\,Q^\top`, one symmetric eigendecomposition of an
        :math:`n\times n` matrix. The samplers keep the generic step; claim 6s times this one beside it."""
        B, n = X.shape[0], self.n
        M = X.reshape(B, n, n)
        C = M.transpose(1, 2) @ M
        lam, Q = torch.linalg.eigh(C)
        Et = Q.transpose(1, 2) @ (C - torch.eye(n, dtype=X.dtype)) @ Q
        S = Q @ (Et / (lam.unsqueeze(-1) + lam.unsqueeze(-2))) @ Q.transpose(1, 2)
        return (M @ S).reshape(B, -1)

    def uniform(self, n, generator):
        """Haar-uniform rotations (QR of a Gaussian matrix with the sign fix, then det +1)."""
        A = torch.randn((n, self.n, self.n), generator=generator, dtype=torch.float64)
        Q, R = torch.linalg.qr(A)
        Q = Q * torch.sign(torch.diagonal(R, dim1=1, dim2=2)).unsqueeze(1)
        neg = torch.det(Q) < 0
        Q[neg, :, 0] = -Q[neg, :, 0]
        return Q.reshape(n, -1)


class FunctionalSet(ConstraintSet):
    """A set from user functions ``h(x) -> (m,)`` and ``g(x) -> (l,)`` of one point (autodiff Jacobians)."""

    def __init__(self, dim: int, h: Callable | None, g: Callable | None, n_eq: int, n_ineq: int, name: str = "set",
                 sampler: Callable | None = None, **kw):
        super().__init__(**kw)
        self.dim, self.n_eq, self.n_ineq, self.name = int(dim), int(n_eq), int(n_ineq), name
        self._h, self._g, self._sampler = h, g, sampler

    def constraint_values(self, x):
        parts = []
        if self.n_eq:
            parts.append(self._h(x).reshape(-1))
        if self.n_ineq:
            parts.append(self._g(x).reshape(-1))
        return torch.cat(parts)

    def uniform(self, n, generator):
        if self._sampler is None:
            raise NotImplementedError(f"{self.name}: no uniform sampler given")
        return self._sampler(n, generator)


# -- the alanine dipeptide (mixed constraints on a molecule) -------------------------------------------
def dihedral(p: torch.Tensor) -> torch.Tensor:
    r"""The dihedral angle of four points ``p`` (..., 4, 3) in the IUPAC convention: with bonds
    :math:`b_1=p_1-p_0,\ b_2=p_2-p_1,\ b_3=p_3-p_2`, :math:`\phi=\operatorname{atan2}(|b_2|\,b_1\cdot(b_2\times b_3),\
    (b_1\times b_2)\cdot(b_2\times b_3))` in :math:`(-\pi,\pi]`."""
    b1, b2, b3 = p[..., 1, :] - p[..., 0, :], p[..., 2, :] - p[..., 1, :], p[..., 3, :] - p[..., 2, :]
    n1, n2 = torch.linalg.cross(b1, b2), torch.linalg.cross(b2, b3)
    return torch.atan2(b2.norm(dim=-1) * (b1 * n2).sum(-1), (n1 * n2).sum(-1))


def dihedral_gradient(p: torch.Tensor) -> torch.Tensor:
    r"""Closed-form gradient of :func:`dihedral` with respect to the four points, ``(B, 4, 3)`` for ``p`` (B, 4, 3)
    (Blondel & Karplus, J. Comput. Chem. 17, 1996): with :math:`F=p_0-p_1`, :math:`G=p_1-p_2`, :math:`H=p_3-p_2`,
    :math:`A=F\times G`, :math:`B=H\times G`,
    :math:`\partial_0=-\frac{|G|}{|A|^2}A`, :math:`\partial_3=\frac{|G|}{|B|^2}B`,
    :math:`\partial_1=\frac{|G|}{|A|^2}A+\frac{F\cdot G}{|A|^2|G|}A-\frac{H\cdot G}{|B|^2|G|}B`,
    :math:`\partial_2=-\frac{|G|}{|B|^2}B-\frac{F\cdot G}{|A|^2|G|}A+\frac{H\cdot G}{|B|^2|G|}B`
    (the four sum to zero: a translation leaves the angle unchanged)."""
    F, G, H = p[:, 0] - p[:, 1], p[:, 1] - p[:, 2], p[:, 3] - p[:, 2]
    A, Bv = torch.linalg.cross(F, G), torch.linalg.cross(H, G)
    a2, b2 = (A * A).sum(1, keepdim=True), (Bv * Bv).sum(1, keepdim=True)
    g = G.norm(dim=1, keepdim=True)
    fg, hg = (F * G).sum(1, keepdim=True), (H * G).sum(1, keepdim=True)
    d0 = -g / a2 * A
    d3 = g / b2 * Bv
    d1 = g / a2 * A + fg / (a2 * g) * A - hg / (b2 * g) * Bv
    d2 = -g / b2 * Bv - fg / (a2 * g) * A + hg / (b2 * g) * Bv
    return torch.stack([d0, d1, d2, d3], 1)


def _wrap(a: torch.Tensor) -> torch.Tensor:
    """An angle difference brought to (-pi, pi], smoothly away from the antipode."""
    return torch.atan2(torch.sin(a), torch.cos(a))


class Dipeptide(ConstraintSet):
    r"""Alanine dipeptide's ten heavy atoms, flattened to :math:`d=30` (Å), with the backbone dihedral
    :math:`\phi` (atoms 1, 3, 4, 6) fixed to :math:`\phi_0` (one equality) and :math:`\psi` (atoms 3, 4, 6, 8)
    kept in a window :math:`[\psi_{lo},\psi_{hi}]` (two inequalities, written on the wrapped distance to the
    window's centre so that they are smooth across :math:`\pm180^\circ`). The official code's setting:
    :math:`\phi_0=-70^\circ`, window :math:`[130^\circ,170^\circ]`, :math:`\varepsilon=0.05`; its code folds the
    window into one inequality (the larger of the two sides); two sides are equivalent on the set and smooth.
    Jacobians in closed form (:func:`dihedral_gradient`)."""

    PHI, PSI = (1, 3, 4, 6), (3, 4, 6, 8)

    def __init__(self, phi0: float = -70.0, psi_window: tuple[float, float] = (130.0, 170.0), **kw):
        kw.setdefault("eps", 0.05)
        super().__init__(**kw)
        lo, hi = psi_window
        if not lo < hi:
            raise ValueError(f"psi_window={psi_window!r} is not allowed; it must be (low, high) with low < high")
        self.dim, self.n_eq, self.n_ineq, self.name = 30, 1, 2, "alanine dipeptide (phi fixed, psi window)"
        self.phi0 = math.radians(phi0)
        self.centre, self.half = math.radians(0.5 * (lo + hi)), math.radians(0.5 * (hi - lo))
        self.psi_window = (float(lo), float(hi))

    def angles(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(phi, psi) in radians for points (B, 30)."""
        P = X.reshape(-1, 10, 3)
        return dihedral(P[:, list(self.PHI)]), dihedral(P[:, list(self.PSI)])

    def constraint_values(self, x):
        P = x.reshape(10, 3)
        d = _wrap(dihedral(P[list(self.PSI)]) - self.centre)
        return torch.stack([_wrap(dihedral(P[list(self.PHI)]) - self.phi0), d - self.half, -d - self.half])

    def values_and_jacobian(self, X):
        self._check_points(X)
        phi, psi = self.angles(X)
        d = _wrap(psi - self.centre)
        vals = torch.stack([_wrap(phi - self.phi0), d - self.half, -d - self.half], 1)
        if not torch.isfinite(vals).all():
            raise ValueError(f"{self.name}: constraint values are not finite at {int((~torch.isfinite(vals)).any(1).sum())} point(s)")
        P = X.reshape(-1, 10, 3)
        jac = torch.zeros((X.shape[0], 3, 10, 3), dtype=X.dtype, device=X.device)
        jac[:, 0, list(self.PHI)] = dihedral_gradient(P[:, list(self.PHI)])
        gp = dihedral_gradient(P[:, list(self.PSI)])
        jac[:, 1, list(self.PSI)] = gp
        jac[:, 2, list(self.PSI)] = -gp
        return vals, jac.reshape(X.shape[0], 3, 30)


# -- the 7-DOF arm (mixed constraints on a trajectory) -------------------------------------------------
# The Franka Emika Panda's modified Denavit-Hartenberg table (alpha, a, d) per joint, from the maker's public
# documentation, and the flange offset d = 0.107 m.
PANDA_DH = ((0.0, 0.0, 0.333), (-math.pi / 2, 0.0, 0.0), (math.pi / 2, 0.0, 0.316), (math.pi / 2, 0.0825, 0.0),
            (-math.pi / 2, -0.0825, 0.384), (math.pi / 2, 0.0, 0.0), (math.pi / 2, 0.088, 0.0))
PANDA_FLANGE = 0.107


def _mdh(alpha: float, a: float, d: float, theta: torch.Tensor) -> torch.Tensor:
    """Modified-DH link transform(s) ``(..., 4, 4)`` for joint angle(s) ``theta`` (...)."""
    c, s = torch.cos(theta), torch.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    z, o = torch.zeros_like(c), torch.ones_like(c)
    rows = [torch.stack([c, -s, z, z + a], -1), torch.stack([s * ca, c * ca, z - sa, z - d * sa], -1),
            torch.stack([s * sa, c * sa, z + ca, z + d * ca], -1), torch.stack([z, z, z, o], -1)]
    return torch.stack(rows, -2)


def panda_positions(q: torch.Tensor) -> torch.Tensor:
    """Positions (..., 9, 3) of the base, the seven joint frames and the flange for joint angles q (..., 7)."""
    T = torch.eye(4, dtype=q.dtype, device=q.device).expand(*q.shape[:-1], 4, 4)
    out = [T[..., :3, 3]]
    for i, (alpha, a, d) in enumerate(PANDA_DH):
        T = T @ _mdh(alpha, a, d, q[..., i])
        out.append(T[..., :3, 3])
    T = T @ _mdh(0.0, 0.0, PANDA_FLANGE, torch.zeros_like(q[..., 0]))
    out.append(T[..., :3, 3])
    return torch.stack(out, -2)


class RobotArm(ConstraintSet):
    r"""A 7-DOF Panda trajectory of ``waypoints`` configurations, each joint as (cos, sin): a point is
    ``(waypoints, 14)`` flattened (the seven cosines, then the seven sines). Equalities, per waypoint: the seven
    identities :math:`c_i^2+s_i^2=1` and the end effector's height :math:`z=z_0`; and the end effector at the
    start and end positions (3 + 3). Inequalities, per waypoint and obstacle: the joint frames 1-7 stay at least
    ``radius + margin`` from the obstacle's centre (the nearest frame's distance). The official code's setting:
    two spheres of radius 0.1 at (0.4, ±0.3, 0.205), margin 0.01, height 0.205, start (0.4, −0.5, 0.205), end
    (0.4, 0.5, 0.205), ε = 0.001. Its code sums the squares of all equalities into one constraint and the
    obstacle violations into one inequality; a sum of squares has a zero gradient on the set (a singular Gram
    matrix), so the constraints are kept separate here: 8 × waypoints + 6 equalities, 2 × waypoints inequalities.
    Jacobians by autodiff."""

    def __init__(self, waypoints: int = 10, height: float = 0.205,
                 obstacles: tuple = ((0.4, -0.3, 0.205), (0.4, 0.3, 0.205)), radius: float = 0.1, margin: float = 0.01,
                 start: tuple = (0.4, -0.5, 0.205), end: tuple = (0.4, 0.5, 0.205), **kw):
        kw.setdefault("eps", 0.001)
        super().__init__(**kw)
        if waypoints < 2:
            raise ValueError(f"waypoints={waypoints!r} is not allowed; a trajectory needs >= 2")
        self.waypoints, self.height, self.clearance = int(waypoints), float(height), float(radius + margin)
        self.obstacles = torch.tensor(obstacles, dtype=torch.float64).reshape(-1, 3)
        self.start, self.end = torch.tensor(start, dtype=torch.float64), torch.tensor(end, dtype=torch.float64)
        self.dim = 14 * self.waypoints
        self.n_eq = 8 * self.waypoints + 6
        self.n_ineq = len(self.obstacles) * self.waypoints
        self.name = f"7-DOF arm, {self.waypoints} waypoints"

    def joint_angles(self, X: torch.Tensor) -> torch.Tensor:
        """(B, waypoints, 7) joint angles from the (cos, sin) coordinates."""
        Q = X.reshape(-1, self.waypoints, 14)
        return torch.atan2(Q[..., 7:], Q[..., :7])

    def end_effector(self, X: torch.Tensor) -> torch.Tensor:
        """(B, waypoints, 3) end-effector path."""
        return panda_positions(self.joint_angles(X))[..., -1, :]

    def constraint_values(self, x):
        Q = x.reshape(self.waypoints, 14)
        c, s = Q[:, :7], Q[:, 7:]
        pos = panda_positions(torch.atan2(s, c))                        # (W, 9, 3)
        ee = pos[:, -1]
        links = pos[:, 1:8]                                             # joint frames 1..7
        obs = self.obstacles.to(x.dtype)
        dist = (links.unsqueeze(1) - obs.view(1, -1, 1, 3)).norm(dim=-1)   # (W, n_obs, 7)
        g = self.clearance - dist.amin(-1)                              # (W, n_obs)
        h = torch.cat([(c * c + s * s - 1.0).reshape(-1), ee[:, 2] - self.height, ee[0] - self.start.to(x.dtype),
                       ee[-1] - self.end.to(x.dtype)])
        return torch.cat([h, g.reshape(-1)])

    def _per_waypoint(self, q: torch.Tensor) -> torch.Tensor:
        """One waypoint's (14,) coordinates -> the 7 identities, the end effector's (x, y, z) and the obstacle
        clearances (10 + n_obstacles,): every constraint of a trajectory is one of these."""
        c, s = q[:7], q[7:]
        pos = panda_positions(torch.atan2(s, c))
        dist = (pos[1:8].unsqueeze(0) - self.obstacles.to(q.dtype).unsqueeze(1)).norm(dim=-1)   # (n_obs, 7)
        return torch.cat([c * c + s * s - 1.0, pos[-1], self.clearance - dist.amin(-1)])

    def values_and_jacobian(self, X):
        """Block-sparse: each constraint depends on one waypoint's 14 coordinates (the start and end positions on
        the first and last), so the Jacobian is assembled from per-waypoint autodiff Jacobians (13 × 14 each),
        the same values as ``constraint_values`` and its full Jacobian (tested), about ten times cheaper."""
        self._check_points(X)
        B, W, no = X.shape[0], self.waypoints, len(self.obstacles)
        Q = X.reshape(B * W, 14)
        vw = vmap(self._per_waypoint)(Q).reshape(B, W, 10 + no)
        jw = vmap(jacrev(self._per_waypoint))(Q).reshape(B, W, 10 + no, 14)
        vals = torch.cat([vw[:, :, :7].reshape(B, -1), vw[:, :, 9] - self.height,
                          vw[:, 0, 7:10] - self.start.to(X.dtype), vw[:, -1, 7:10] - self.end.to(X.dtype),
                          vw[:, :, 10:].reshape(B, -1)], 1)
        if not torch.isfinite(vals).all():
            raise ValueError(f"{self.name}: constraint values are not finite at {int((~torch.isfinite(vals)).any(1).sum())} point(s)")
        J = X.new_zeros((B, self.n_eq + self.n_ineq, W, 14))
        w = torch.arange(W)
        J[:, w[:, None] * 7 + torch.arange(7)[None, :], w[:, None]] = jw[:, :, :7]
        J[:, 7 * W + w, w] = jw[:, :, 9]
        J[:, 8 * W + torch.arange(3), 0] = jw[:, 0, 7:10]
        J[:, 8 * W + 3 + torch.arange(3), W - 1] = jw[:, W - 1, 7:10]
        J[:, self.n_eq + w[:, None] * no + torch.arange(no)[None, :], w[:, None]] = jw[:, :, 10:]
        return vals, J.reshape(B, -1, self.dim)
