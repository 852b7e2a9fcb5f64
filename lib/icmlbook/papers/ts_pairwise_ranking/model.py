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

Items may have unequal lengths and their own time stamps (irregular sampling): pass a list of series and a
list of stamps; the elastic distances are computed group by group of equal length, and TWED uses the stamps.

The model can also be fitted to *individual* annotations (:meth:`IdealPointModel.fit_labels`: item ``i``
labelled abnormal with :math:`P=\sigma(\beta[c-d(X_i,U)])`, one threshold :math:`c` for all annotators or
one per annotator), the "individual annotation" route the paper compares pairwise comparisons with.

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
from torch import nn

from ...training import Evaluate, LossLogger, Trainer, TrainerConfig
from . import distances as dist
from .data import Comparisons, PointLabels, borda_scores

__all__ = ["IdealPointFit", "IdealPointModel"]


@dataclasses.dataclass
class IdealPointFit:
    """What a fit leaves behind: the ideal ``U`` ``(T_U, p)``, the sharpness ``beta``, the loss per step,
    the starting ideal ``U0`` and how well it agreed with the annotations (``init_agreement``: the fraction
    of comparisons it orders as annotated, or the AUC of its distances for individual labels) and, if a
    planted ideal was given, the distance of the iterate to it every ``track_every`` steps."""

    U: np.ndarray
    beta: float
    loss: np.ndarray
    track_steps: np.ndarray
    track_error: np.ndarray
    flip_rate: float | None = None
    U0: np.ndarray | None = None
    init_agreement: float = float("nan")
    thresholds: np.ndarray | None = None


INITS = ("agreement", "top-mean")


class _Items:
    """Items as groups of equal length: ``groups`` is a list of ``(index (n_g,), X (n_g, L, p), stamps
    (n_g, L) or None)``; ``n`` items in all, ``p`` channels."""

    def __init__(self, X, stamps, dtype):
        ragged = isinstance(X, (list, tuple))
        if not ragged:
            Xb = dist.as_batch(X, "X", dtype)
            st = None if stamps is None else torch.as_tensor(np.asarray(stamps, float), dtype=dtype)
            if st is not None and st.ndim == 1:
                st = st[None].expand(Xb.shape[0], -1)
            if st is not None and tuple(st.shape) != tuple(Xb.shape[:2]):
                raise ValueError(f"stamps must have shape {tuple(Xb.shape[:2])} (or ({Xb.shape[1]},)); got "
                                 f"{tuple(st.shape)}")
            self.groups = [(torch.arange(Xb.shape[0]), Xb, st)]
            self.n, self.p, self.lengths = Xb.shape[0], Xb.shape[2], np.full(Xb.shape[0], Xb.shape[1])
            self.rectangular = True
        else:
            if len(X) == 0:
                raise ValueError("X holds no series")
            if stamps is not None and len(stamps) != len(X):
                raise ValueError(f"stamps must hold one array per series ({len(X)}); got {len(stamps)}")
            series = [dist.as_batch(np.asarray(x, float)[None], f"X[{k}]", dtype)[0] for k, x in enumerate(X)]
            self.p = series[0].shape[1]
            if any(x.shape[1] != self.p for x in series):
                raise ValueError("every series must have the same number of channels")
            self.lengths = np.array([x.shape[0] for x in series])
            self.n, self.groups = len(series), []
            for L in np.unique(self.lengths):
                idx = np.flatnonzero(self.lengths == L)
                st = None
                if stamps is not None:
                    st = torch.as_tensor(np.stack([np.asarray(stamps[k], float) for k in idx]), dtype=dtype)
                    if st.shape != (idx.size, L):
                        raise ValueError(f"stamps[k] must have the length of X[k] ({L})")
                self.groups.append((torch.as_tensor(idx), torch.stack([series[k] for k in idx]), st))
            self.rectangular = len(self.groups) == 1 and stamps is None
        self.has_stamps = any(g[2] is not None for g in self.groups)

    def item(self, k: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        for idx, Xg, st in self.groups:
            hit = torch.nonzero(idx == k)
            if hit.numel():
                m = int(hit[0, 0])
                return Xg[m], (None if st is None else st[m])
        raise IndexError(k)


class _IdealPointParameters(nn.Module):
    """What the fit optimises, as one module for the shared trainer: the ideal ``U`` ``(T_U, p)``,
    :math:`\\log\\beta`, and, when the fit has them, the thresholds ``thr`` and the flip logit
    :math:`\\theta` (:math:`\\epsilon=\\tfrac12\\sigma(\\theta)`); absent ones are ``None``."""

    def __init__(self, U0: torch.Tensor, log_beta: torch.Tensor, thr: torch.Tensor | None,
                 flip_logit: torch.Tensor | None):
        super().__init__()
        self.U = nn.Parameter(U0.detach().clone())
        self.log_beta = nn.Parameter(log_beta)
        self.register_parameter("thr", None if thr is None else nn.Parameter(thr))
        self.register_parameter("flip_logit", None if flip_logit is None else nn.Parameter(flip_logit))


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
        :math:`T_U` (an integer >= 2); ``None`` = the items' length (the median length for items of
        unequal lengths; required equal for the Euclidean distance).
    ideal_stamps : array ``(T_U,)`` or None
        Time stamps of ``U`` for TWED; ``None`` = ``1..T_U`` for regular items, or evenly spaced over the
        items' time span when the items carry stamps.
    rho : float
        Weight of the smoothness penalty on ``U``.
    top_fraction : float
        Size of the pool of starting candidates: this fraction of items with the best win rate (Borda
        score, or fraction of "abnormal" labels).
    init : {"agreement", "top-mean"}
        ``"top-mean"``: ``U`` starts at the mean of the pool. ``"agreement"`` (default): among the pool's
        items and their mean, the candidate whose distances order the training annotations best (the
        fraction of comparisons it orders as annotated); computed from the annotations only. The mean of
        warped items is a blurred shape that can sit closer to the low-severity items than to the
        high-severity ones, so that ``"top-mean"`` may start with the ranking reversed.
    dtype : torch.dtype
        Working precision (float32 is about twice as fast on CPU; float64 for checks).
    flip_rate : None, float in [0, 0.5) or "learn"
        ``None`` (default): the paper's logistic link. A number :math:`\\epsilon` or ``"learn"``: the
        flip-aware link :math:`\\epsilon+(1-2\\epsilon)\\sigma(\\cdot)` with :math:`\\epsilon` fixed or fitted
        (as :math:`\\tfrac12\\sigma(\\theta)`, starting at 0.1) together with ``U`` and :math:`\\beta`.

    Attributes (after :meth:`fit` or :meth:`fit_labels`)
    ----------------------------------------------------
    U_ : ndarray ``(T_U, p)``; beta_ : float; fit_ : :class:`IdealPointFit`.
    """

    def __init__(self, distance: str = "softdtw", gamma: float = 0.1, nu: float = 0.001, lam: float = 1.0,
                 eps: float = 1e-3, steps: int = 150, lr: float = 0.05, ideal_length: int | None = None,
                 rho: float = 0.0, top_fraction: float = 0.1, dtype: torch.dtype = torch.float32,
                 flip_rate: float | str | None = None, init: str = "agreement", ideal_stamps=None):
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
        if init not in INITS:
            raise ValueError(f"init={init!r} is not allowed; choose one of {INITS}")
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
        self.top_fraction, self.dtype, self.flip_rate, self.init = top_fraction, dtype, flip_rate, init
        self.ideal_stamps = None if ideal_stamps is None else np.asarray(ideal_stamps, float)

    # ----------------------------------------------------------------------------- distances
    def _pair_distance(self, X: torch.Tensor, U: torch.Tensor, tx=None, tu=None) -> torch.Tensor:
        if self.distance == "euclidean":
            return dist.euclidean(X, U)
        if self.distance in ("dtw", "softdtw"):
            return dist.dtw(X, U, gamma=self.gamma if self.distance == "softdtw" else 0.0)
        return dist.twed(X, U, nu=self.nu, lam=self.lam, gamma=self.gamma if self.distance == "softtwed" else 0.0,
                         eps=self.eps if self.distance == "softtwed" else 0.0, tx=tx, ty=tu)

    def _soft(self) -> bool:
        return self.distance in ("softdtw", "softtwed")

    def _raw(self, items: _Items, U: torch.Tensor, tu=None) -> torch.Tensor:
        """Raw distances of every item to ``U`` ``(1, T_U, p)``, ``(n,)``."""
        if self.distance == "euclidean" and not items.rectangular:
            raise ValueError("the Euclidean distance needs items of equal length without time stamps; use an "
                             "elastic distance")
        if len(items.groups) == 1:
            idx, Xg, st = items.groups[0]
            return self._pair_distance(Xg, U, st, tu)
        parts = [self._pair_distance(Xg, U, st, tu) for _, Xg, st in items.groups]
        order = torch.cat([g[0] for g in items.groups])
        return torch.empty(items.n, dtype=parts[0].dtype).index_copy(0, order, torch.cat(parts))

    def _self_items(self, items: _Items) -> torch.Tensor:
        """:math:`\\tfrac12 s(X_i,X_i)` for the soft distances (0 otherwise), ``(n,)``, without gradient."""
        if not self._soft():
            return torch.zeros(items.n, dtype=self.dtype)
        with torch.no_grad():
            out = torch.empty(items.n, dtype=self.dtype)
            for idx, Xg, st in items.groups:
                out[idx] = (0.5 * self._pair_distance(Xg, Xg, st, st)).to(self.dtype)
        return out

    def _self_ideal(self, U: torch.Tensor, tu=None) -> torch.Tensor:
        if not self._soft():
            return torch.zeros((), dtype=U.dtype)
        return 0.5 * self._pair_distance(U, U, tu, tu)[0]

    def _ideal_length(self, items: _Items) -> int:
        if self.ideal_length is not None:
            return self.ideal_length
        return int(np.median(items.lengths)) if not items.rectangular else int(items.lengths[0])

    def _ideal_stamps(self, items: _Items, T_U: int):
        if self.ideal_stamps is not None:
            if self.ideal_stamps.shape != (T_U,):
                raise ValueError(f"ideal_stamps must have shape ({T_U},); got {self.ideal_stamps.shape}")
            return torch.as_tensor(self.ideal_stamps, dtype=self.dtype)
        if not items.has_stamps:
            return None
        lo = min(float(st[:, 0].min()) for _, _, st in items.groups)
        hi = max(float(st[:, -1].max()) for _, _, st in items.groups)
        return torch.linspace(lo, hi, T_U, dtype=self.dtype)

    def distances(self, X, U, stamps=None) -> torch.Tensor:
        """:math:`d(X_i,U)` for every series of ``X`` (``(N, T[, p])``, or a list of series of unequal
        lengths with ``stamps``) against one ``U`` ``(T_U[, p])``; ``(N,)``."""
        items = _Items(X, stamps, self.dtype)
        Ub = dist.as_batch(torch.as_tensor(U).reshape(1, -1, items.p), "U", self.dtype)
        tu = self._ideal_stamps(items, Ub.shape[1]) if items.has_stamps or self.ideal_stamps is not None else None
        if tu is None and hasattr(self, "tu_"):
            tu = self.tu_
        with torch.no_grad():
            return self._raw(items, Ub, tu) - self._self_items(items) - self._self_ideal(Ub, tu)

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

    def _to_ideal(self, x: torch.Tensor, st, T_U: int, tu) -> torch.Tensor:
        """A series ``(L, p)`` (stamps ``st`` or None) brought onto the ideal's ``T_U`` points."""
        L = x.shape[0]
        if st is not None and tu is not None:
            xn = x.numpy().astype(float)
            return torch.as_tensor(np.stack([np.interp(tu.numpy(), st.numpy(), xn[:, c]) for c in range(x.shape[1])],
                                            1), dtype=self.dtype)
        if L == T_U:
            return x
        grid = torch.linspace(0, L - 1, T_U, dtype=x.dtype)
        lo = grid.floor().long().clamp(max=max(L - 2, 0))
        if L == 1:
            return x.expand(T_U, -1)
        w = (grid - lo)[:, None]
        return (1 - w) * x[lo] + w * x[lo + 1]

    def _initial_ideal(self, items: _Items, merit: np.ndarray, agreement, T_U: int, tu) -> tuple:
        """The starting ideal and its agreement with the annotations (see ``init``)."""
        k = max(1, int(round(self.top_fraction * items.n)))
        top = np.argsort(-merit, kind="stable")[:k]
        cands = [self._to_ideal(*items.item(int(t)), T_U, tu) for t in top]
        mean = torch.stack(cands).mean(0)
        if self.init == "top-mean":
            with torch.no_grad():
                d = self._raw(items, mean[None], tu) - self._self_items(items) - self._self_ideal(mean[None], tu)
            return mean, float(agreement(d.numpy().astype(float)))
        best, best_score = None, -np.inf
        for c in [mean] + cands:
            with torch.no_grad():
                d = self._raw(items, c[None], tu) - self._self_items(items) - self._self_ideal(c[None], tu)
            sc = float(agreement(d.numpy().astype(float)))
            if sc > best_score:
                best, best_score = c, sc
        return best, best_score

    def fit(self, X, comp: Comparisons, U_init=None, U_true=None, track_every: int = 10,
            seed: int = 0, stamps=None) -> "IdealPointModel":
        """Fit ``U`` and :math:`\\beta` to the comparisons ``comp`` on items ``X`` (``(N, T[, p])``, or a list
        of series with ``stamps``).

        ``U_true`` (optional, ``(T_U[, p])``) is only used to record :math:`d(\\hat U_k, U^*)` along the
        optimisation (convergence plots); it never enters the loss.
        """
        items = _Items(X, stamps, self.dtype)
        comp.validate(items.n)
        if len(comp) == 0:
            raise ValueError("comp holds no comparisons")
        ii, jj = torch.as_tensor(comp.i), torch.as_tensor(comp.j)
        yy = torch.as_tensor(comp.y, dtype=self.dtype)
        merit = borda_scores(comp, items.n)
        sign = 2 * comp.y - 1

        def agreement(d):                               # fraction of comparisons ordered as annotated
            return np.mean(np.sign(d[comp.j] - d[comp.i]) == sign)

        def logits(d, log_beta, extra):
            return torch.exp(log_beta) * (d[jj] - d[ii])

        return self._optimise(items, merit, agreement, logits, yy, U_init, U_true, track_every, seed, None)

    def fit_labels(self, X, labels: PointLabels, per_annotator: bool = False, U_init=None, seed: int = 0,
                   stamps=None) -> "IdealPointModel":
        """Fit ``U``, :math:`\\beta` and a threshold to individual labels: :math:`P(y=1\\mid i,r)=
        \\sigma(\\beta[c_r-d(X_i,U)])` with one threshold :math:`c` for all annotators (the usual pooled
        classification) or, with ``per_annotator``, one :math:`c_r` per annotator."""
        items = _Items(X, stamps, self.dtype)
        labels.validate(items.n)
        if len(labels) == 0:
            raise ValueError("labels holds no annotations")
        it = torch.as_tensor(labels.item)
        ann = torch.as_tensor(labels.annotator if per_annotator else np.zeros(len(labels), int))
        n_thr = int(ann.max()) + 1
        yy = torch.as_tensor(labels.y, dtype=self.dtype)
        pos = np.bincount(labels.item, weights=labels.y, minlength=items.n)
        cnt = np.bincount(labels.item, minlength=items.n)
        merit = np.where(cnt > 0, pos / np.maximum(cnt, 1), 0.5)
        yl = labels.y

        def agreement(d):                               # AUC of -d for the labels
            from scipy.stats import rankdata
            r = rankdata(-d[labels.item])
            n1 = yl.sum()
            n0 = yl.size - n1
            return 0.5 if n1 == 0 or n0 == 0 else float((r[yl == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))

        def logits(d, log_beta, thr):
            return torch.exp(log_beta) * (thr[ann] - d[it])

        return self._optimise(items, merit, agreement, logits, yy, U_init, None, 10, seed, n_thr)

    def _start(self, items, merit, agreement, U_init) -> tuple:
        """What the optimisation starts from: the ideal's stamps ``tu``, the items' self-terms, the starting
        ideal ``U0`` ``(T_U, p)`` (``U_init`` or :meth:`_initial_ideal`) and its agreement."""
        T_U = self._ideal_length(items)
        if self.distance == "euclidean" and (not items.rectangular or T_U != int(items.lengths[0])):
            raise ValueError(f"ideal_length={T_U} must equal the items' length {int(items.lengths[0])} for the "
                             "Euclidean distance, and the items must have equal lengths")
        tu = self._ideal_stamps(items, T_U)
        selfx = self._self_items(items)
        if U_init is None:
            U0, agree0 = self._initial_ideal(items, merit, agreement, T_U, tu)
        else:
            U0 = dist.as_batch(torch.as_tensor(U_init).reshape(1, -1, items.p), "U_init", self.dtype)[0]
            with torch.no_grad():
                d = self._raw(items, U0[None], tu) - selfx - self._self_ideal(U0[None], tu)
            agree0 = float(agreement(d.numpy().astype(float)))
        return tu, selfx, U0, agree0

    def _optimise(self, items, merit, agreement, logits_fn, yy, U_init, U_true, track_every, seed, n_thr):
        if isinstance(track_every, bool) or int(track_every) != track_every or track_every < 1:
            raise ValueError(f"track_every={track_every!r} is not allowed; it must be an integer >= 1")
        torch.manual_seed(seed)
        tu, selfx, U0, agree0 = self._start(items, merit, agreement, U_init)
        with torch.no_grad():
            d0 = self._raw(items, U0[None], tu) - selfx
            spread = float(d0.std()) if items.n > 1 else 1.0
        log_beta = torch.tensor(np.log(4.0 / max(spread, 1e-6)), dtype=self.dtype)
        thr = None
        if n_thr is not None:
            thr = torch.full((n_thr,), float(torch.median(d0 - self._self_ideal(U0[None], tu).detach())),
                             dtype=self.dtype)
        learn_flip = self.flip_rate == "learn"
        flip_logit = torch.tensor(np.log(0.25), dtype=self.dtype) if learn_flip else None   # 0.5 sigma = 0.1
        flip_fixed = torch.tensor(self.flip_rate, dtype=self.dtype) if self.flip_rate and not learn_flip else None
        params = _IdealPointParameters(U0, log_beta, thr, flip_logit)

        def loss_fn(m: _IdealPointParameters, batch) -> torch.Tensor:   # the data live in the closure
            d = self._raw(items, m.U[None], tu) - selfx - self._self_ideal(m.U[None], tu)
            z = logits_fn(d, m.log_beta, m.thr)
            flip = 0.5 * torch.sigmoid(m.flip_logit) if m.flip_logit is not None else flip_fixed
            loss = self._nll(z, yy, flip)
            if self.rho > 0:
                loss = loss + self.rho * ((m.U[1:] - m.U[:-1]) ** 2).sum()
            return loss

        callbacks: list = [LossLogger()]
        Ut = None if U_true is None else np.asarray(U_true, float).reshape(-1, items.p)
        if Ut is not None:      # d(U_k, U*) after updates k = 0, track_every, 2 track_every, ... and the last
            tracked = [k + 1 for k in range(self.steps) if k % track_every == 0 or k == self.steps - 1]
            callbacks.append(Evaluate(lambda m: {"ideal_error": self.ideal_error(m.U.detach().numpy(), Ut)},
                                      at=tracked))
        trainer = Trainer(params, torch.optim.Adam(params.parameters(), lr=self.lr), loss_fn, None,
                          TrainerConfig(steps=self.steps, schedule=None, device="cpu", show_progress=False),
                          callbacks=callbacks)
        trainer.run()
        _, losses = trainer.history("loss")
        t_steps, t_err = trainer.history("ideal_error") if Ut is not None else (np.array([]), np.array([]))
        t_steps = t_steps - 1                   # recorded after update k (the trainer's step k + 1): update k
        U, log_beta, thr, flip_logit = params.U, params.log_beta, params.thr, params.flip_logit
        self.U_ = U.detach().numpy().astype(float)
        self.tu_ = tu
        self.beta_ = float(torch.exp(log_beta.detach()))
        self.flip_ = (float(0.5 * torch.sigmoid(flip_logit.detach())) if flip_logit is not None else
                      self.flip_rate if self.flip_rate else None)
        self.fit_ = IdealPointFit(self.U_, self.beta_, losses, t_steps, t_err,
                                  self.flip_, U0.detach().numpy().astype(float), agree0,
                                  None if thr is None else thr.detach().numpy().astype(float))
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
    def score(self, X, stamps=None, U=None) -> np.ndarray:
        """Preference scores :math:`-d(X_i,\\hat U)` ``(N,)`` (higher = closer to the ideal); works for any
        items, seen or unseen (``stamps`` for irregularly sampled ones). ``U`` scores with another ideal
        (e.g. the starting one, ``fit_.U0``)."""
        if not hasattr(self, "U_"):
            raise RuntimeError("call fit before score")
        return -self.distances(X, self.U_ if U is None else U, stamps).numpy().astype(float)

    def rank(self, X, stamps=None) -> np.ndarray:
        """Item indices from most to least preferred (increasing :math:`d(X,\\hat U)`)."""
        return np.argsort(-self.score(X, stamps), kind="stable")
