r"""Grokking in ridge regression trained by gradient descent: data, exact dynamics, theory.

Paper: Xu, Vardi & Safran, "To Grok Grokking: Provable Grokking in Ridge Regression", ICML 2026,
arXiv 2601.19791. The setting is the paper's (a linear student over fixed features, a realisable
noiseless teacher, the :math:`\ell_2`-regularised square loss, full-batch GD from
:math:`\theta_0\sim\mathcal N(0,\nu^2 I_m)`); the closed form and the predicted times below are our
own derivation of its dynamics (the theorem statements and constants were not reachable), and the
spiked design is our choice of a data distribution for which the end state generalises.

Objective and GD (features :math:`\Phi\in\mathbb R^{n\times m}`, :math:`H=\Phi^\top\Phi/n`)

.. math::

    L_n(\theta;\lambda) = \tfrac{1}{2n}\lVert\Phi(\theta-\theta^*)\rVert^2 + \tfrac\lambda2\lVert\theta\rVert^2,
    \qquad
    \theta_{t+1} = \theta_t - \eta\,[H(\theta_t-\theta^*) + \lambda\theta_t].

Exact trajectory. With the ridge fixed point :math:`\theta_\lambda=(H+\lambda I)^{-1}H\theta^*` and the
eigen-decomposition :math:`H=\sum_{k\le r}s_k v_kv_k^\top` (:math:`r=\operatorname{rank}H`),

.. math::

    \theta_t = \theta_\lambda + \sum_{k\le r}(1-\eta(s_k+\lambda))^t\,v_kv_k^\top(\theta_0-\theta_\lambda)
               + (1-\eta\lambda)^t P_N\theta_0 ,                                        \tag{CF}

where :math:`P_N` projects onto :math:`\ker H`. The null-space part is untouched by the data and
only shrinks through weight decay, by :math:`1-\eta\lambda` per step: this is the slow mode behind
grokking. We compute only the row-space eigenpairs (from the :math:`n\times n` Gram matrix, or a
thin SVD of :math:`\Phi/\sqrt n` when the spectrum is ill-conditioned), so the null space is
represented implicitly (as :math:`x - VV^\top x`) and the roughly ``1e-16`` eigenvalues that a
full ``eigh`` of :math:`H` would return for it never enter a power; eigenvalues below a rank
tolerance are treated as exactly zero and their contraction is exactly :math:`1-\eta\lambda`.

Losses

* training loss (**without** the penalty): :math:`\tfrac{1}{2n}\lVert\Phi(\theta-\theta^*)\rVert^2
  = \tfrac12(\theta-\theta^*)^\top H(\theta-\theta^*)`;
* test (population) loss, exact: :math:`\tfrac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)`
  with :math:`\Sigma=\mathbb E[\phi\phi^\top]` diagonal here (stored as its diagonal).

Predicted times (our derivation; see :func:`predicted_fit_time` and
:func:`predicted_grokking_time`)

.. math::

    t_{\rm fit}\approx\frac{\ln(L_n(\theta_0)/\epsilon_{\rm tr})}{-2\ln(1-\eta(s_{\min}+\lambda))},\qquad
    t_{\rm gen}\approx\frac{1}{-2\ln(1-\eta\lambda)}
        \ln\frac{\nu^2\operatorname{tr}(P_N\Sigma)}{2(\epsilon-L(\theta_\lambda))}.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal

import numpy as np

__all__ = [
    "GDTrajectory",
    "LinearData",
    "RidgeProblem",
    "closed_form_trajectory",
    "expected_initial_train_loss",
    "first_crossing_time",
    "gd_loop",
    "log_time_grid",
    "predicted_fit_time",
    "predicted_grokking_time",
    "slowest_row_contraction",
    "spiked_gaussian_design",
    "unit_sphere_design",
]


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class LinearData:
    r"""A realisable linear regression problem.

    Attributes
    ----------
    phi : np.ndarray, shape ``(n, m)``
        Feature matrix, one row :math:`\phi(x_i)^\top` per training input.
    theta_star : np.ndarray, shape ``(m,)``
        Teacher weights; labels are :math:`y_i=\langle\theta^*,\phi(x_i)\rangle` (noiseless).
    sigma_diag : np.ndarray, shape ``(m,)``
        Diagonal of the population covariance :math:`\Sigma=\mathbb E[\phi\phi^\top]`.
    """

    phi: np.ndarray
    theta_star: np.ndarray
    sigma_diag: np.ndarray


def spiked_gaussian_design(n: int, m: int, k: int, sigma: float, rng: np.random.Generator) -> LinearData:
    r"""Spiked Gaussian features :math:`\phi(x)\sim\mathcal N(0,\operatorname{diag}(1_k,\sigma^21_{m-k}))`.

    The teacher :math:`\theta^*` is a random unit vector supported on the first ``k`` (spiked)
    coordinates, so the ridge solution generalises once :math:`n\gg k` while the :math:`m-n`
    unseen directions still carry a memorisation plateau of height about
    :math:`\tfrac12\nu^2\sigma^2(m-n)` (dossier section 3.3, our choice of design).

    Parameters
    ----------
    n, m, k : int
        Samples, features, spiked coordinates; ``1 <= k <= m``.
    sigma : float
        Standard deviation of the non-spiked coordinates, ``> 0``.
    rng : np.random.Generator

    Returns
    -------
    LinearData
        ``phi`` of shape ``(n, m)``, ``theta_star`` and ``sigma_diag`` of shape ``(m,)``.
    """
    if not 1 <= k <= m:
        raise ValueError(f"k={k!r} is not allowed; it must satisfy 1 <= k <= m={m}")
    if n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be >= 1")
    if not sigma > 0:
        raise ValueError(f"sigma={sigma!r} is not allowed; it must be > 0")
    scale = np.concatenate([np.ones(k), np.full(m - k, float(sigma))])
    phi = rng.standard_normal((n, m)) * scale
    theta_star = np.zeros(m)
    direction = rng.standard_normal(k)
    theta_star[:k] = direction / np.linalg.norm(direction)
    return LinearData(phi=phi, theta_star=theta_star, sigma_diag=scale**2)


def unit_sphere_design(n: int, m: int, rng: np.random.Generator) -> LinearData:
    r"""Bounded features: :math:`\phi(x)` uniform on the unit sphere of :math:`\mathbb R^m`.

    Then :math:`\Sigma=I/m` and :math:`\operatorname{tr}(P_N\Sigma)=(m-r)/m`. The teacher is a random
    unit vector. With isotropic features the end state does not generalise to a small *absolute*
    error when :math:`m>n` (its relative error is about :math:`1-n/m`), so measure errors relative
    to the trivial predictor's :math:`\tfrac{1}{2m}`.

    Returns
    -------
    LinearData
        ``phi`` of shape ``(n, m)``, ``theta_star`` and ``sigma_diag`` of shape ``(m,)``.
    """
    x = rng.standard_normal((n, m))
    phi = x / np.linalg.norm(x, axis=1, keepdims=True)
    theta_star = rng.standard_normal(m)
    theta_star /= np.linalg.norm(theta_star)
    return LinearData(phi=phi, theta_star=theta_star, sigma_diag=np.full(m, 1.0 / m))


# --------------------------------------------------------------------------------------------
# the problem: eigen-structure of H, computed once and reused for every (eta, lam, theta0)
# --------------------------------------------------------------------------------------------
class RidgeProblem:
    r"""Eigen-structure of :math:`H=\Phi^\top\Phi/n` for one data set.

    One decomposition (``eigh`` of the :math:`n\times n` Gram matrix, or a thin SVD
    :math:`\Phi/\sqrt n = U\,\mathrm{diag}(\sqrt{s})\,V^\top`) serves every step size, weight decay
    and initialisation.

    Parameters
    ----------
    data : LinearData
    rank_tol : float, optional
        Eigenvalues of :math:`H` at or below ``rank_tol * s_max`` count as zero (their directions join
        the null space). Default: numpy's ``matrix_rank`` rule on the singular values of
        :math:`\Phi`, i.e. ``(max(n, m) * eps)**2`` on the eigenvalues.
    method : {"auto", "gram", "svd"}
        ``"svd"``: thin SVD of :math:`\Phi/\sqrt n` (robust for any spectrum). ``"gram"``: ``eigh``
        of the smaller of :math:`\Phi\Phi^\top/n` and :math:`\Phi^\top\Phi/n`, with
        :math:`v_k=\Phi^\top u_k/\sqrt{ns_k}` (several times faster, and much faster when other
        processes compete for the cores, but its eigenvectors lose accuracy like
        :math:`\epsilon_{\rm mach}s_{\max}/s_k`). ``"auto"``: the Gram route when every kept eigenvalue
        is above ``1e-4 * s_max`` (error below about 1e-12), else the SVD.

    Attributes
    ----------
    n, m, rank : int
    method : str
        The route actually taken, ``"gram"`` or ``"svd"``.
    eigvals : np.ndarray, shape ``(r,)``
        Nonzero eigenvalues :math:`s_k` of :math:`H`, descending.
    eigvecs : np.ndarray, shape ``(m, r)``
        Their orthonormal eigenvectors :math:`V`.
    s_min, s_max : float
        Smallest nonzero and largest eigenvalue of :math:`H`.
    null_trace : float
        :math:`\operatorname{tr}(P_N\Sigma)`, the weight of the unseen directions in the test loss.
    """

    def __init__(self, data: LinearData, rank_tol: float | None = None,
                 method: Literal["auto", "gram", "svd"] = "auto"):
        phi = np.asarray(data.phi, dtype=np.float64)
        if phi.ndim != 2:
            raise ValueError(f"phi must be a matrix (n, m); got shape {phi.shape}")
        self.data = data
        self.phi = phi
        self.n, self.m = phi.shape
        self.theta_star = np.asarray(data.theta_star, dtype=np.float64)
        self.sigma_diag = np.asarray(data.sigma_diag, dtype=np.float64)
        if rank_tol is None:
            rank_tol = (max(self.n, self.m) * np.finfo(np.float64).eps) ** 2
        self.rank_tol = float(rank_tol)
        self.eigvals, self.eigvecs, self.method = _eigen_structure(phi, self.rank_tol, method)
        self.rank = int(self.eigvals.size)
        if self.rank == 0:
            raise ValueError("the feature matrix phi is zero; H has no nonzero eigenvalue")
        self.s_max = float(self.eigvals[0])
        self.s_min = float(self.eigvals[-1])
        # Projections of the teacher; Sigma restricted to the row space.
        self.beta_star = self.eigvecs.T @ self.theta_star  # (r,)
        self.null_star = self.null_part(self.theta_star)  # (m,)
        self.gram_sigma = (self.eigvecs * self.sigma_diag[:, None]).T @ self.eigvecs  # (r, r) V^T Sigma V
        self.null_trace = float(self.sigma_diag.sum() - np.einsum("ir,i,ir->", self.eigvecs,
                                                                  self.sigma_diag, self.eigvecs))

    # ---- geometry ----------------------------------------------------------------------------
    def null_part(self, x: np.ndarray) -> np.ndarray:
        r""":math:`P_N x = x - VV^\top x` for ``x`` of shape ``(..., m)``."""
        x = np.asarray(x, dtype=np.float64)
        return x - (x @ self.eigvecs) @ self.eigvecs.T

    def ridge_solution(self, lam: float) -> np.ndarray:
        r"""The fixed point :math:`\theta_\lambda=(H+\lambda I)^{-1}H\theta^*`, shape ``(m,)``."""
        _check_lam(lam)
        return self.eigvecs @ (self.eigvals / (self.eigvals + lam) * self.beta_star)

    def check_step_size(self, eta: float, lam: float) -> None:
        r"""Raise ValueError unless :math:`0<\eta<2/(s_{\max}+\lambda)` (GD is then stable)."""
        _check_lam(lam)
        bound = 2.0 / (self.s_max + lam)
        if not (np.isfinite(eta) and 0.0 < eta < bound):
            raise ValueError(f"eta={eta!r} is not allowed: GD on this problem is stable only for "
                             f"0 < eta < 2/(s_max + lam) = {bound:.6g} (s_max={self.s_max:.6g}, lam={lam!r})")

    # ---- losses (direct) ---------------------------------------------------------------------
    def train_loss(self, theta: np.ndarray) -> np.ndarray:
        r"""Training loss :math:`\tfrac{1}{2n}\lVert\Phi(\theta-\theta^*)\rVert^2` **without** the
        :math:`\tfrac\lambda2\lVert\theta\rVert^2` penalty; ``theta`` of shape ``(..., m)`` gives ``(...)``."""
        resid = (np.asarray(theta) - self.theta_star) @ self.phi.T  # (..., n)
        return 0.5 * np.mean(resid**2, axis=-1)

    def test_loss(self, theta: np.ndarray) -> np.ndarray:
        r"""Exact population loss :math:`\tfrac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)`;
        ``theta`` of shape ``(..., m)`` gives ``(...)``."""
        d = np.asarray(theta) - self.theta_star
        return 0.5 * np.sum(d * d * self.sigma_diag, axis=-1)

    def ridge_train_loss(self, lam: float) -> float:
        r"""Training loss of :math:`\theta_\lambda`:
        :math:`\tfrac12\sum_k s_k(\lambda/(s_k+\lambda))^2\langle v_k,\theta^*\rangle^2`."""
        _check_lam(lam)
        return float(0.5 * np.sum(self.eigvals * (lam / (self.eigvals + lam) * self.beta_star) ** 2))

    def ridge_test_loss(self, lam: float) -> float:
        r""":math:`L(\theta_\lambda)`, the floor that the test loss converges to."""
        return float(self.test_loss(self.ridge_solution(lam)))

    def trajectory(self, theta0: np.ndarray, eta: float, lam: float) -> GDTrajectory:
        r"""The closed-form GD trajectory from ``theta0`` (shape ``(m,)`` or ``(B, m)``)."""
        return GDTrajectory(self, theta0, eta, lam)


_GRAM_MIN_RATIO = 1e-4  # the Gram route is used only when s_min / s_max is above this


def _eigen_structure(phi: np.ndarray, rank_tol: float, method: str) -> tuple[np.ndarray, np.ndarray, str]:
    """Nonzero eigenvalues (descending, shape ``(r,)``) and eigenvectors (``(m, r)``) of ``phi.T phi / n``."""
    if method not in ("auto", "gram", "svd"):
        raise ValueError(f"method={method!r} is not allowed; allowed values: auto, gram, svd")
    n, m = phi.shape
    if method in ("auto", "gram"):
        if n <= m:
            w, u = np.linalg.eigh(phi @ phi.T / n)  # (n,), (n, n)
        else:
            w, u = np.linalg.eigh(phi.T @ phi / n)  # (m,), (m, m)
        w, u = w[::-1], u[:, ::-1]
        keep = w > rank_tol * w[0] if w[0] > 0 else np.zeros(w.size, bool)
        if keep.any() and (method == "gram" or w[keep][-1] >= _GRAM_MIN_RATIO * w[0]):
            if n <= m:
                vecs = phi.T @ u[:, keep] / np.sqrt(n * w[keep])
            else:
                vecs = u[:, keep].copy()
            return w[keep], vecs, "gram"
    _, sv, vt = np.linalg.svd(phi / np.sqrt(n), full_matrices=False)
    eig = sv**2
    keep = eig > rank_tol * eig[0] if eig.size and eig[0] > 0 else np.zeros(eig.size, bool)
    return eig[keep], vt[keep].T.copy(), "svd"


def _check_lam(lam: float) -> None:
    if not (np.isfinite(lam) and lam >= 0.0):
        raise ValueError(f"lam={lam!r} is not allowed; the weight decay must be a finite number >= 0")


# --------------------------------------------------------------------------------------------
# closed-form trajectory (CF), batched over initialisations and over time
# --------------------------------------------------------------------------------------------
class GDTrajectory:
    r"""GD on the ridge objective from a batch of ``B`` initialisations, in closed form (CF).

    In the eigenbasis, :math:`\theta_t-\theta^* = V\rho_t + (1-\eta\lambda)^t P_N\theta_0 - P_N\theta^*`
    with row-space coordinates :math:`\rho_t = -\tfrac{\lambda}{s+\lambda}\beta^* + c^t\odot a_0`,
    :math:`c=1-\eta(s+\lambda)`, :math:`\beta^*=V^\top\theta^*`,
    :math:`a_0=V^\top\theta_0-\tfrac{s}{s+\lambda}\beta^*`. Both losses are quadratic forms in these
    coordinates, so a curve costs :math:`O(Tr^2)` and never forms :math:`\theta_t`.

    Parameters
    ----------
    problem : RidgeProblem
    theta0 : np.ndarray, shape ``(m,)`` or ``(B, m)``
    eta, lam : float
        Step size and weight decay; the step size is checked against :math:`2/(s_{\max}+\lambda)`.

    Notes
    -----
    Every method takes integer ``steps`` of shape ``(T,)`` (shared by the batch) or ``(B, T)`` (one
    row per initialisation) and returns arrays with a leading batch axis ``B`` (dropped again if
    ``theta0`` was a single vector).
    """

    def __init__(self, problem: RidgeProblem, theta0: np.ndarray, eta: float, lam: float):
        problem.check_step_size(eta, lam)
        theta0 = np.asarray(theta0, dtype=np.float64)
        self.single = theta0.ndim == 1
        self.theta0 = np.atleast_2d(theta0)  # (B, m)
        if self.theta0.shape[-1] != problem.m:
            raise ValueError(f"theta0 has {self.theta0.shape[-1]} coordinates; the problem has m={problem.m}")
        self.problem, self.eta, self.lam = problem, float(eta), float(lam)
        s = problem.eigvals
        self.contraction = 1.0 - eta * (s + lam)  # (r,) c_k
        self.null_contraction = 1.0 - eta * lam  # q
        self.ridge_coords = s / (s + lam) * problem.beta_star  # (r,) V^T theta_lam
        self.bias_coords = -lam / (s + lam) * problem.beta_star  # (r,) V^T (theta_lam - theta*)
        self.a0 = self.theta0 @ problem.eigvecs - self.ridge_coords  # (B, r)
        self.w0 = problem.null_part(self.theta0)  # (B, m)  P_N theta0
        sig = problem.sigma_diag
        V = problem.eigvecs
        # cross terms of the test quadratic form
        self._g_w = (self.w0 * sig) @ V  # (B, r)  V^T Sigma P_N theta0
        self._g_star = (problem.null_star * sig) @ V  # (r,)    V^T Sigma P_N theta*
        self._ww = np.sum(self.w0 * self.w0 * sig, axis=1)  # (B,)  ||Sigma^1/2 P_N theta0||^2
        self._ws = self.w0 @ (sig * problem.null_star)  # (B,)
        self._ss = float(problem.null_star @ (sig * problem.null_star))

    # ---- helpers -----------------------------------------------------------------------------
    def _steps(self, steps) -> np.ndarray:
        t = np.asarray(steps)
        if not np.issubdtype(t.dtype, np.integer):
            if not np.all(t == np.round(t)):
                raise ValueError("steps must be integers")
            t = t.astype(np.int64)
        if np.any(t < 0):
            raise ValueError("steps must be >= 0")
        B = self.theta0.shape[0]
        if t.ndim == 0:
            t = t[None]
        if t.ndim == 1:
            t = np.broadcast_to(t, (B, t.size))
        if t.shape[0] != B:
            raise ValueError(f"steps of shape {t.shape} do not match the batch of {B} initialisations")
        return t

    def _out(self, x: np.ndarray) -> np.ndarray:
        return x[0] if self.single else x

    def _rho(self, t: np.ndarray) -> np.ndarray:
        r"""Row-space coordinates of theta_t - theta*, shape (B, T, r)."""
        powers = np.power(self.contraction[None, None, :], t[:, :, None].astype(np.float64))
        return self.bias_coords + powers * self.a0[:, None, :]

    def _null_factor(self, t: np.ndarray) -> np.ndarray:
        return np.power(self.null_contraction, t.astype(np.float64))  # (B, T)

    # ---- public ------------------------------------------------------------------------------
    def theta(self, steps) -> np.ndarray:
        r""":math:`\theta_t` by (CF); shape ``(B, T, m)`` (``(T, m)`` for a single ``theta0``)."""
        t = self._steps(steps)
        powers = np.power(self.contraction[None, None, :], t[:, :, None].astype(np.float64))
        row = self.ridge_coords + powers * self.a0[:, None, :]  # (B, T, r)
        theta = row @ self.problem.eigvecs.T + self._null_factor(t)[:, :, None] * self.w0[:, None, :]
        return self._out(theta)

    def train_loss(self, steps) -> np.ndarray:
        r"""Training loss (no penalty) :math:`\tfrac12\sum_k s_k\rho_{t,k}^2`; shape ``(B, T)``."""
        rho = self._rho(self._steps(steps))
        return self._out(0.5 * np.einsum("btr,r->bt", rho * rho, self.problem.eigvals))

    def test_loss(self, steps) -> np.ndarray:
        r"""Exact population loss :math:`\tfrac12(\theta_t-\theta^*)^\top\Sigma(\theta_t-\theta^*)`;
        shape ``(B, T)``."""
        t = self._steps(steps)
        rho = self._rho(t)  # (B, T, r)
        q = self._null_factor(t)  # (B, T)
        quad = np.sum((rho @ self.problem.gram_sigma) * rho, axis=-1)
        cross_w = np.sum(rho * self._g_w[:, None, :], axis=-1) * q
        cross_s = rho @ self._g_star
        null = q * q * self._ww[:, None] - 2.0 * q * self._ws[:, None] + self._ss
        return self._out(0.5 * (quad + 2.0 * cross_w - 2.0 * cross_s + null))

    def null_norm(self, steps) -> np.ndarray:
        r""":math:`\lVert\Sigma^{1/2}P_N\theta_t\rVert^2=(1-\eta\lambda)^{2t}\lVert\Sigma^{1/2}P_N\theta_0\rVert^2`;
        shape ``(B, T)``."""
        t = self._steps(steps)
        return self._out(self._null_factor(t) ** 2 * self._ww[:, None])

    def first_time_below(self, which: Literal["train", "test"], threshold, t_grid) -> np.ndarray:
        r"""Exact first integer step at which the ``which`` loss is ``<= threshold``.

        The loss is evaluated on ``t_grid`` (increasing integers) and the first bracketing interval
        is bisected on integers with the closed form (:func:`first_crossing_time`).

        Parameters
        ----------
        which : {"train", "test"}
        threshold : float or np.ndarray of shape ``(B,)``
        t_grid : np.ndarray, shape ``(T,)``, int

        Returns
        -------
        np.ndarray, shape ``(B,)`` (a float for a single ``theta0``); ``inf`` where the loss stays
        above the threshold on the whole grid.
        """
        if which not in ("train", "test"):
            raise ValueError(f"which={which!r} is not allowed; allowed values: train, test")
        loss = self.train_loss if which == "train" else self.test_loss
        single, self.single = self.single, False
        try:
            curve = loss(t_grid)  # (B, T)
            evaluate = lambda t: loss(t[:, None])[:, 0]
            out = first_crossing_time(t_grid, curve, threshold, evaluate=evaluate)
        finally:
            self.single = single
        return float(out[0]) if single else out


def closed_form_trajectory(problem: RidgeProblem, theta0: np.ndarray, eta: float, lam: float,
                           steps) -> np.ndarray:
    r"""GD iterates :math:`\theta_t` at the given step counts, by the closed form (CF).

    Parameters
    ----------
    problem : RidgeProblem
    theta0 : np.ndarray, shape ``(m,)`` or ``(B, m)``
    eta, lam : float
    steps : array of int, shape ``(T,)``

    Returns
    -------
    np.ndarray, shape ``(T, m)`` or ``(B, T, m)``
    """
    return GDTrajectory(problem, theta0, eta, lam).theta(steps)


def gd_loop(problem: RidgeProblem, theta0: np.ndarray, eta: float, lam: float, steps) -> np.ndarray:
    r"""Plain GD, :math:`\theta\leftarrow\theta-\eta[\Phi^\top\Phi(\theta-\theta^*)/n+\lambda\theta]`,
    in float64, recording the iterates at the requested steps (the independent check of (CF)).

    Parameters
    ----------
    problem : RidgeProblem
    theta0 : np.ndarray, shape ``(m,)`` or ``(B, m)``
    eta, lam : float
    steps : array of int, shape ``(T,)``, non-negative (any order; duplicates allowed)

    Returns
    -------
    np.ndarray, shape ``(T, m)`` or ``(B, T, m)``, iterates in the order of ``steps``.
    """
    problem.check_step_size(eta, lam)
    steps = np.asarray(steps, dtype=np.int64)
    if steps.ndim != 1 or np.any(steps < 0):
        raise ValueError("steps must be a 1-d array of non-negative integers")
    theta = np.array(theta0, dtype=np.float64, ndmin=2)  # (B, m)
    phi, star, n = problem.phi, problem.theta_star, problem.n
    out = np.empty((theta.shape[0], steps.size, problem.m))
    order = np.argsort(steps, kind="stable")
    t = 0
    for idx in order:
        while t < steps[idx]:
            grad = ((theta - star) @ phi.T) @ phi / n + lam * theta
            theta = theta - eta * grad
            t += 1
        out[:, idx] = theta
    return out[0] if np.ndim(theta0) == 1 else out


# --------------------------------------------------------------------------------------------
# measuring times
# --------------------------------------------------------------------------------------------
def log_time_grid(t_max: int, n_points: int) -> np.ndarray:
    r"""Distinct integers from 0 to ``t_max``, about ``n_points`` of them, log-spaced from 1."""
    if t_max < 1 or n_points < 2:
        raise ValueError(f"need t_max >= 1 and n_points >= 2 (got t_max={t_max}, n_points={n_points})")
    grid = np.unique(np.round(np.geomspace(1, t_max, n_points)).astype(np.int64))
    return np.concatenate([[0], grid])


def first_crossing_time(t_grid, curve, threshold, evaluate: Callable[[np.ndarray], np.ndarray] | None = None):
    r"""First time a curve is at or below a threshold.

    Parameters
    ----------
    t_grid : np.ndarray, shape ``(T,)``
        Increasing times.
    curve : np.ndarray, shape ``(..., T)``
        Values of the curve(s) on ``t_grid``.
    threshold : float or np.ndarray broadcastable to ``curve.shape[:-1]``
    evaluate : callable, optional
        Maps integer times of shape ``curve.shape[:-1]`` (one per curve) to the curves' values there.
        If given, ``t_grid`` must hold integers and the crossing is refined by bisection on integers
        inside the first grid interval ``(t_{j-1}, t_j]`` where the curve goes from above to at-or-below
        the threshold, so the result is an exact integer time (exactly the first crossing if the curve
        is monotone inside that interval). Without it, the result is the grid point ``t_j``.

    Returns
    -------
    np.ndarray, shape ``curve.shape[:-1]`` (float; ``inf`` where the curve never reaches the threshold)
    """
    t_grid = np.asarray(t_grid)
    curve = np.asarray(curve, dtype=np.float64)
    if t_grid.ndim != 1 or curve.shape[-1] != t_grid.size:
        raise ValueError(f"curve's last axis ({curve.shape[-1]}) must match t_grid ({t_grid.shape})")
    if np.any(np.diff(t_grid) <= 0):
        raise ValueError("t_grid must be strictly increasing")
    thr = np.broadcast_to(np.asarray(threshold, dtype=np.float64), curve.shape[:-1])
    below = curve <= thr[..., None]
    hit = below.any(axis=-1)
    j = np.argmax(below, axis=-1)  # first index at or below
    result = np.where(hit, t_grid[j].astype(np.float64), np.inf)
    if evaluate is None:
        return result
    if not np.issubdtype(t_grid.dtype, np.integer):
        raise ValueError("exact refinement needs an integer t_grid")
    hi = t_grid[j].astype(np.int64)
    lo = np.where(j > 0, t_grid[np.maximum(j - 1, 0)], hi).astype(np.int64)  # value above thr at lo
    lo = np.where(hit, lo, hi)
    # invariant: curve(lo) > thr (or lo == hi), curve(hi) <= thr
    while np.any(hi - lo > 1):
        mid = np.where(hi - lo > 1, (lo + hi) // 2, hi)
        ok = np.asarray(evaluate(mid), dtype=np.float64) <= thr
        active = hi - lo > 1
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid, lo)
    return np.where(hit, hi.astype(np.float64), np.inf)


# --------------------------------------------------------------------------------------------
# theory
# --------------------------------------------------------------------------------------------
def slowest_row_contraction(problem: RidgeProblem, eta: float, lam: float) -> float:
    r"""The slowest per-step contraction of the row space, :math:`\max_k|1-\eta(s_k+\lambda)|`
    (it is :math:`1-\eta(s_{\min}+\lambda)` unless the step is close to the stability limit)."""
    problem.check_step_size(eta, lam)
    return max(abs(1.0 - eta * (problem.s_min + lam)), abs(1.0 - eta * (problem.s_max + lam)))


def expected_initial_train_loss(problem: RidgeProblem, nu: float) -> float:
    r""":math:`\mathbb E_{\theta_0\sim\mathcal N(0,\nu^2I)}L_n(\theta_0)=\tfrac12(\nu^2\operatorname{tr}H+\theta^{*\top}H\theta^*)`."""
    return 0.5 * (nu**2 * float(problem.eigvals.sum()) + float(np.sum(problem.eigvals * problem.beta_star**2)))


def predicted_fit_time(problem: RidgeProblem, eta: float, lam: float, eps_train: float, *,
                       nu: float | None = None, theta0: np.ndarray | None = None) -> np.ndarray | float:
    r"""Predicted time to fit the training set to ``eps_train`` (claim 1, our derivation).

    .. math::  t_{\rm fit}=\frac{\ln(L_n(\theta_0)/\epsilon_{\rm tr})}{-2\ln\max_k|1-\eta(s_k+\lambda)|},

    i.e. :math:`\ln(L_n(\theta_0)/\epsilon_{\rm tr})/(2\eta(s_{\min}+\lambda))` to first order: the
    initial training loss decays no slower than the slowest row-space mode.

    Parameters
    ----------
    problem : RidgeProblem
    eta, lam, eps_train : float
    nu : float, optional
        Use the expectation over :math:`\theta_0\sim\mathcal N(0,\nu^2 I)` of :math:`L_n(\theta_0)`.
    theta0 : np.ndarray, shape ``(m,)`` or ``(B, m)``, optional
        Use the realised :math:`L_n(\theta_0)` instead. Exactly one of ``nu``, ``theta0``.

    Returns
    -------
    float or np.ndarray of shape ``(B,)``; 0 where the initial loss is already below ``eps_train``.
    """
    if (nu is None) == (theta0 is None):
        raise ValueError("give exactly one of nu (expected version) or theta0 (realised version)")
    if not eps_train > 0:
        raise ValueError(f"eps_train={eps_train!r} is not allowed; it must be > 0")
    rate = slowest_row_contraction(problem, eta, lam)
    init = expected_initial_train_loss(problem, nu) if nu is not None else problem.train_loss(theta0)
    with np.errstate(divide="ignore"):
        t = np.log(np.asarray(init) / eps_train) / (-2.0 * np.log(rate))
    return _as_out(np.maximum(t, 0.0))


def predicted_grokking_time(problem: RidgeProblem, eta: float, lam: float, eps_test: float, *,
                            nu: float | None = None, theta0: np.ndarray | None = None) -> np.ndarray | float:
    r"""Predicted first time the test loss reaches ``eps_test`` (claims 4-5, our derivation).

    Late in training the row space has converged and the test loss is
    :math:`L(\theta_\lambda)+\tfrac12(1-\eta\lambda)^{2t}\lVert\Sigma^{1/2}P_N\theta_0\rVert^2` up to a
    cross term that vanishes in expectation, hence

    .. math::  t_{\rm gen}=\frac{1}{-2\ln(1-\eta\lambda)}\ln\frac{N_0}{2(\epsilon-L(\theta_\lambda))},

    with :math:`N_0=\nu^2\operatorname{tr}(P_N\Sigma)` (expectation over the initialisation, ``nu``)
    or the realised :math:`N_0=\lVert\Sigma^{1/2}P_N\theta_0\rVert^2` (``theta0``).

    Returns
    -------
    float or np.ndarray of shape ``(B,)``: ``inf`` if ``eps_test <= L(theta_lam)`` (the floor is
    never crossed, or ``lam == 0``), 0 if the unseen part is already below the margin (no
    memorisation plateau: grokking is eliminated).
    """
    if (nu is None) == (theta0 is None):
        raise ValueError("give exactly one of nu (expected version) or theta0 (realised version)")
    problem.check_step_size(eta, lam)
    margin = eps_test - problem.ridge_test_loss(lam)
    if nu is not None:
        null0 = np.asarray(nu**2 * problem.null_trace)
    else:
        w = problem.null_part(theta0)
        null0 = np.sum(w * w * problem.sigma_diag, axis=-1)
    if margin <= 0:
        return _as_out(np.full(np.shape(null0), np.inf))
    ratio = null0 / (2.0 * margin)
    if lam == 0:
        return _as_out(np.where(ratio > 1, np.inf, 0.0))
    with np.errstate(divide="ignore"):
        t = np.log(ratio) / (-2.0 * np.log1p(-eta * lam))
    return _as_out(np.maximum(t, 0.0))


def _as_out(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x) if x.ndim == 0 else x
