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

__all__ = ["ConstraintSet", "Sphere", "CappedSphere", "Torus", "SpecialOrthogonal", "FunctionalSet"]


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
             scale: float | None = None) -> torch.Tensor:
        """The landing correction after a tangent step: ``implicit``: ``Y - dir(Y)`` (one Gauss–Newton step at
        the post-step point); ``explicit``: ``Y - scale * dir(X_prev)`` with ``scale = alpha sigma^2 dt``."""
        if mode == "implicit":
            return Y - self.landing_direction(Y)
        if mode == "explicit":
            if scale is None or X_prev is None:
                raise ValueError("explicit landing needs the previous point and scale = alpha * sigma^2 * dt")
            if not 0 < scale < 2:
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
        finite = torch.isfinite(Z).all(1)
        vals = self.values_and_jacobian(torch.nan_to_num(Z))[0]
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
        return ConstraintSet.values_and_jacobian(self, X)

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
