r"""The time-warping ideal point model (our reconstruction of the paper's model; dossier section 3.2).

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026
(https://icml.cc/virtual/2026/poster/66190). Only the abstract was reachable: the likelihood below is the
classical ideal-point (unfolding) model with an elastic distance in place of the Euclidean one.

Given items :math:`X_1,\dots,X_N` and comparisons :math:`(i,j,y)` (``y = 1``: :math:`i\succ j`), the
model has an ideal series :math:`U\in\mathbb R^{T_U\times p}` and a sharpness :math:`\beta>0`,

.. math::
   P(i\succ j\mid U,\beta)=\sigma\big(\beta\,[d(X_j,U)-d(X_i,U)]\big),

and is fitted by minimising the mean negative log-likelihood (plus an optional smoothness penalty
:math:`\rho\sum_t\lVert U_{t+1}-U_t\rVert^2`) with Adam. Each step needs the ``N`` distances
:math:`d(X_i,U)` only, computed in one batched call; the comparisons then index them. Items — seen or
unseen — are ranked by :math:`d(X,\hat U)` in increasing order.

An option that is *not* the paper's model (our repair for annotators who flip answers at a constant rate,
see claim 8 of the chapter): the flip-aware link
:math:`P(i\succ j)=\epsilon+(1-2\epsilon)\,\sigma(\beta[d(X_j,U)-d(X_i,U)])`, with the flip rate
:math:`\epsilon\in[0,\tfrac12)` given or learned (``flip_rate``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
import torch.nn.functional as F

from . import distances as dist
from .data import Comparisons, borda_scores

__all__ = ["IdealPointFit", "IdealPointModel"]


@dataclasses.dataclass
class IdealPointFit:
    """What a fit leaves behind: the ideal ``U`` ``(T_U, p)``, the sharpness ``beta``, the loss per step
    and, if a planted ideal was given, the distance of the iterate to it every ``track_every`` steps."""

    U: np.ndarray
    beta: float
    loss: np.ndarray
    track_steps: np.ndarray
    track_error: np.ndarray
    flip_rate: float | None = None


class IdealPointModel:
    """Ideal point model with an elastic (or Euclidean) distance.

    Parameters
    ----------
    distance : {"euclidean", "dtw", "softdtw", "twed", "softtwed"}
        The discrepancy :math:`d`; the soft ones are divergence-corrected.
    gamma, nu, lam, eps : float
        Soft-min temperature (> 0), TWED stiffness and deletion penalty (>= 0), norm smoothing (>= 0).
    steps, lr : int, float
        Adam steps and learning rate (on ``U`` and :math:`\\log\\beta`).
    ideal_length : int or None
        :math:`T_U` (an integer >= 2); ``None`` = the items' length (required for the Euclidean distance).
    rho : float
        Weight of the smoothness penalty on ``U``.
    top_fraction : float
        ``U`` starts at the mean of this fraction of items with the best win rate (Borda score), a
        start computed from the comparisons only.
    dtype : torch.dtype
        Working precision (float32 is about twice as fast on CPU; float64 for checks).
    flip_rate : None, float in [0, 0.5) or "learn"
        ``None`` (default): the paper's logistic link. A number :math:`\\epsilon` or ``"learn"``: the
        flip-aware link :math:`\\epsilon+(1-2\\epsilon)\\sigma(\\cdot)` with :math:`\\epsilon` fixed or fitted
        (as :math:`\\tfrac12\\sigma(\\theta)`, starting at 0.1) together with ``U`` and :math:`\\beta`.

    Attributes (after :meth:`fit`)
    ------------------------------
    U_ : ndarray ``(T_U, p)``; beta_ : float; fit_ : :class:`IdealPointFit`.
    """

    def __init__(self, distance: str = "softdtw", gamma: float = 0.1, nu: float = 0.001, lam: float = 1.0,
                 eps: float = 1e-3, steps: int = 150, lr: float = 0.05, ideal_length: int | None = None,
                 rho: float = 0.0, top_fraction: float = 0.1, dtype: torch.dtype = torch.float32,
                 flip_rate: float | str | None = None):
        if distance not in dist.DISTANCES:
            raise ValueError(f"distance={distance!r} is not allowed; choose one of {dist.DISTANCES}")
        for name, v in (("gamma", gamma), ("nu", nu), ("lam", lam), ("eps", eps), ("rho", rho)):
            if not np.isfinite(v) or v < 0:
                raise ValueError(f"{name}={v!r} is not allowed; it must be a finite number >= 0")
        if distance in ("softdtw", "softtwed") and gamma <= 0:
            raise ValueError(f"gamma={gamma!r} is not allowed with distance={distance!r}; it must be > 0")
        if int(steps) < 1 or not lr > 0:
            raise ValueError(f"steps={steps!r} must be >= 1 and lr={lr!r} > 0")
        if not 0 < top_fraction <= 1:
            raise ValueError(f"top_fraction={top_fraction!r} must lie in (0, 1]")
        if ideal_length is not None:
            if isinstance(ideal_length, bool) or int(ideal_length) != ideal_length or ideal_length < 2:
                raise ValueError(f"ideal_length={ideal_length!r} is not allowed; it must be an integer >= 2, or "
                                 "None for the items' length")
            ideal_length = int(ideal_length)
        self.distance, self.gamma, self.nu, self.lam, self.eps = distance, gamma, nu, lam, eps
        self.steps, self.lr, self.ideal_length, self.rho = int(steps), float(lr), ideal_length, rho
        if flip_rate is not None and flip_rate != "learn":
            if isinstance(flip_rate, str) or not 0 <= float(flip_rate) < 0.5:
                raise ValueError(f"flip_rate={flip_rate!r} is not allowed; use None (logistic link), 'learn' or a "
                                 "number in [0, 0.5)")
            flip_rate = float(flip_rate)
        self.top_fraction, self.dtype, self.flip_rate = top_fraction, dtype, flip_rate

    # ----------------------------------------------------------------------------- distances
    def _raw(self, X: torch.Tensor, U: torch.Tensor) -> torch.Tensor:
        if self.distance == "euclidean":
            return dist.euclidean(X, U)
        if self.distance in ("dtw", "softdtw"):
            return dist.dtw(X, U, gamma=self.gamma if self.distance == "softdtw" else 0.0)
        return dist.twed(X, U, nu=self.nu, lam=self.lam, gamma=self.gamma if self.distance == "softtwed" else 0.0,
                         eps=self.eps if self.distance == "softtwed" else 0.0)

    def _self_term(self, X: torch.Tensor) -> torch.Tensor:
        if self.distance in ("softdtw", "softtwed"):
            return 0.5 * self._raw(X, X)
        return torch.zeros(X.shape[0], dtype=X.dtype)

    def distances(self, X, U) -> torch.Tensor:
        """:math:`d(X_i,U)` for every row of ``X`` ``(N, T[, p])`` against one ``U`` ``(T_U[, p])``; ``(N,)``."""
        Xb = dist.as_batch(X, "X", self.dtype)
        Ub = dist.as_batch(torch.as_tensor(U).reshape(1, -1, Xb.shape[2]), "U", self.dtype)
        with torch.no_grad():
            selfx = self._self_term(Xb)
        return self._raw(Xb, Ub) - selfx - self._self_term(Ub)

    # ----------------------------------------------------------------------------- fit
    @staticmethod
    def _nll(logits: torch.Tensor, y: torch.Tensor, flip: torch.Tensor | None) -> torch.Tensor:
        r"""Mean negative log-likelihood of labels ``y`` under :math:`\sigma(z)` or, with a flip rate
        :math:`\epsilon`, under :math:`\epsilon+(1-2\epsilon)\sigma(z)` (computed in log space)."""
        if flip is None:
            return F.binary_cross_entropy_with_logits(logits, y)
        log_flip, log_keep = torch.log(flip), torch.log1p(-2.0 * flip)
        log_p = torch.logaddexp(log_flip, log_keep + F.logsigmoid(logits))
        log_q = torch.logaddexp(log_flip, log_keep + F.logsigmoid(-logits))
        return -(y * log_p + (1.0 - y) * log_q).mean()

    def _initial_ideal(self, X: torch.Tensor, comp: Comparisons) -> torch.Tensor:
        wins = borda_scores(comp, X.shape[0])
        k = max(1, int(round(self.top_fraction * X.shape[0])))
        top = np.argsort(-wins, kind="stable")[:k]
        U0 = X[torch.as_tensor(top)].mean(0)                                     # (T, p)
        T_U = X.shape[1] if self.ideal_length is None else self.ideal_length
        if T_U != X.shape[1]:
            if self.distance == "euclidean":
                raise ValueError(f"ideal_length={T_U} must equal the items' length {X.shape[1]} for the "
                                 "Euclidean distance")
            grid = torch.linspace(0, X.shape[1] - 1, T_U, dtype=X.dtype)
            lo = grid.floor().long().clamp(max=X.shape[1] - 2)
            w = (grid - lo)[:, None]
            U0 = (1 - w) * U0[lo] + w * U0[lo + 1]
        return U0

    def fit(self, X, comp: Comparisons, U_init=None, U_true=None, track_every: int = 10,
            seed: int = 0) -> "IdealPointModel":
        """Fit ``U`` and :math:`\\beta` to the comparisons ``comp`` on items ``X`` ``(N, T[, p])``.

        ``U_true`` (optional, ``(T_U[, p])``) is only used to record :math:`d(\\hat U_k, U^*)` along the
        optimisation (convergence plots); it never enters the loss.
        """
        if isinstance(track_every, bool) or int(track_every) != track_every or track_every < 1:
            raise ValueError(f"track_every={track_every!r} is not allowed; it must be an integer >= 1")
        Xb = dist.as_batch(X, "X", self.dtype)
        comp.validate(Xb.shape[0])
        if len(comp) == 0:
            raise ValueError("comp holds no comparisons")
        torch.manual_seed(seed)
        with torch.no_grad():
            selfx = self._self_term(Xb)
        U0 = self._initial_ideal(Xb, comp) if U_init is None else dist.as_batch(
            torch.as_tensor(U_init).reshape(1, -1, Xb.shape[2]), "U_init", self.dtype)[0]
        U = U0.clone().requires_grad_(True)
        with torch.no_grad():
            d0 = self._raw(Xb, U0[None]) - selfx
            spread = float(d0.std()) if Xb.shape[0] > 1 else 1.0
        log_beta = torch.tensor(np.log(4.0 / max(spread, 1e-6)), dtype=self.dtype, requires_grad=True)
        params = [U, log_beta]
        flip_logit = None
        if self.flip_rate == "learn":
            flip_logit = torch.tensor(np.log(0.25), dtype=self.dtype, requires_grad=True)   # 0.5 sigma = 0.1
            params.append(flip_logit)
        elif self.flip_rate:
            flip_fixed = torch.tensor(self.flip_rate, dtype=self.dtype)
        opt = torch.optim.Adam(params, lr=self.lr)
        ii, jj = torch.as_tensor(comp.i), torch.as_tensor(comp.j)
        yy = torch.as_tensor(comp.y, dtype=self.dtype)
        losses, t_steps, t_err = [], [], []
        Ut = None if U_true is None else np.asarray(U_true, float).reshape(-1, Xb.shape[2])
        for step in range(self.steps):
            opt.zero_grad()
            d = self._raw(Xb, U[None]) - selfx - self._self_term(U[None])
            logits = torch.exp(log_beta) * (d[jj] - d[ii])
            flip = (0.5 * torch.sigmoid(flip_logit) if flip_logit is not None else
                    flip_fixed if self.flip_rate else None)
            loss = self._nll(logits, yy, flip)
            if self.rho > 0:
                loss = loss + self.rho * ((U[1:] - U[:-1]) ** 2).sum()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            if Ut is not None and (step % track_every == 0 or step == self.steps - 1):
                t_steps.append(step)
                t_err.append(self.ideal_error(U.detach().numpy(), Ut))
        self.U_ = U.detach().numpy().astype(float)
        self.beta_ = float(torch.exp(log_beta.detach()))
        self.flip_ = (float(0.5 * torch.sigmoid(flip_logit.detach())) if flip_logit is not None else
                      self.flip_rate if self.flip_rate else None)
        self.fit_ = IdealPointFit(self.U_, self.beta_, np.array(losses), np.array(t_steps), np.array(t_err),
                                  self.flip_)
        return self

    @staticmethod
    def ideal_error(U_hat: np.ndarray, U_true: np.ndarray) -> float:
        """DTW (squared cost, so a warping-invariant squared error) between the estimated and the planted
        ideal, normalised by the length: how far :math:`\\hat U` is from :math:`U^*` up to a warp."""
        a = torch.as_tensor(np.asarray(U_hat, float)).reshape(1, -1, 1 if np.ndim(U_hat) == 1 else U_hat.shape[-1])
        b = torch.as_tensor(np.asarray(U_true, float)).reshape(1, -1, a.shape[2])
        with torch.no_grad():
            return float(dist.dtw(a, b)[0]) / a.shape[1]

    # ----------------------------------------------------------------------------- ranking
    def score(self, X) -> np.ndarray:
        """Preference scores :math:`-d(X_i,\\hat U)` ``(N,)`` (higher = closer to the ideal); works for any
        items, seen or unseen."""
        if not hasattr(self, "U_"):
            raise RuntimeError("call fit before score")
        with torch.no_grad():
            return -self.distances(X, self.U_).numpy().astype(float)

    def rank(self, X) -> np.ndarray:
        """Item indices from most to least preferred (increasing :math:`d(X,\\hat U)`)."""
        return np.argsort(-self.score(X), kind="stable")
