"""Follow-the-regularised-leader (FTRL) dynamics, vectorised over many initial conditions.

Each player :math:`i` keeps a score vector :math:`y_i\\in\\mathbb R^{n_i}` and plays
:math:`x_i=Q_i(y_i)=\\arg\\max_{x_i\\in\\Delta(A_i)}\\{\\langle y_i,x_i\\rangle-h_i(x_i)\\}`:

- entropic :math:`h(x)=\\sum_ax_a\\log x_a`: :math:`Q=\\mathrm{softmax}` (exponential weights / Hedge;
  in continuous time the replicator dynamics in :math:`x`);
- Euclidean :math:`h(x)=\\tfrac12\\lVert x\\rVert^2`: :math:`Q` = Euclidean projection onto the simplex
  (projected-gradient FTRL, which can reach the boundary in finite time).

Continuous time: :math:`\\dot y_i=v_i(Q(y))`. Discrete time:
:math:`y_{i,t+1}=y_{i,t}+\\gamma_t v_i(Q(y_t))`.

We integrate in **score space**, in float64, so that masses of :math:`10^{-16}` (or
:math:`10^{-300}`) are represented exactly by a finite score gap instead of underflowing. A whole batch
of starts (rows of a ``(B, D)`` array, possibly each with its own game) is integrated at once:

- by default with :func:`integrate_rowwise`, a vectorised Dormand-Prince 5(4) pair (scipy's ``RK45``
  tableau) with one adaptive step size per row, so a start in a fast transition (or at a kink of the
  Euclidean projection) does not shrink every other start's step;
- or as one stacked ODE handed to a scipy solver (``method="LSODA"``, which switches between Adams
  and BDF by itself and is told that the Jacobian is banded, since each start only couples to itself;
  ``"Radau"``/``"BDF"`` get the block-diagonal sparsity pattern).

Score-space FTRL is not stiff (its Jacobian is bounded by the payoff range times the Lipschitz
constant of :math:`Q`); the tests check the batched integrator against ``solve_ivp`` with Radau.
"""

from __future__ import annotations

import dataclasses
from typing import Literal, Sequence

import numpy as np
from scipy import integrate, sparse

from .games import NormalFormGame, joint_distribution, payoff_field, player_major

Regulariser = Literal["entropic", "euclidean"]
REGULARISERS: tuple[str, ...] = ("entropic", "euclidean")
METHODS: tuple[str, ...] = ("rowwise", "LSODA", "Radau", "BDF", "RK45", "DOP853")


def check_regulariser(regulariser: str) -> str:
    if regulariser not in REGULARISERS:
        raise ValueError(f"regulariser={regulariser!r} is not allowed; allowed values: {', '.join(REGULARISERS)}")
    return regulariser


# -- choice maps ----------------------------------------------------------------------------------
def softmax(y: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (B, n) scores, shifted by the row max (no overflow)."""
    z = y - y.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(y: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax: exact log-masses even where the mass underflows to 0."""
    z = y - y.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def project_simplex(y: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row of ``y`` (B, n) onto the simplex (sort-based, exact).

    :math:`\\Pi(y)_a=\\max(y_a-\\tau,0)` with the threshold :math:`\\tau` that makes the row sum to 1.
    """
    y = np.asarray(y, dtype=float)
    n = y.shape[-1]
    if n == 1:
        return np.ones_like(y)
    if n == 2:                                   # closed form: x_0 = clip((1 + y_0 - y_1) / 2, 0, 1)
        x0 = np.clip(0.5 * (1.0 + y[..., 0] - y[..., 1]), 0.0, 1.0)
        return np.stack([x0, 1.0 - x0], axis=-1)
    u = -np.sort(-y, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    k = np.arange(1, n + 1)
    cond = u - css / k > 0
    rho = n - 1 - np.argmax(cond[..., ::-1], axis=-1)        # last index where cond holds
    tau = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1.0)
    return np.maximum(y - tau, 0.0)


def choice_map(y: np.ndarray, offsets: Sequence[int], regulariser: str) -> np.ndarray:
    """:math:`x=Q(y)` block by block: ``y`` (B, D) -> ``x`` (B, D)."""
    fn = softmax if regulariser == "entropic" else project_simplex
    out = np.empty_like(y, dtype=float)
    for i in range(len(offsets) - 1):
        out[:, offsets[i]:offsets[i + 1]] = fn(y[:, offsets[i]:offsets[i + 1]])
    return out


def scores_from_strategies(x: np.ndarray, offsets: Sequence[int], regulariser: str,
                           floor: float = 1e-300, far: float = 0.0) -> np.ndarray:
    """A score vector :math:`y` with :math:`Q(y)=x`.

    Entropic: :math:`y=\\log x` (masses below ``floor`` are raised to it, so an unused action sits
    :math:`\\log(1/\\text{floor})` below the others). Euclidean: :math:`y=x` on the used actions and
    :math:`-`\\ ``far`` on the unused ones (``far=0``: exactly on the projection's threshold, the
    smallest preimage; a large ``far`` keeps an unused action out for about ``far``/rate time units,
    the analogue of a tiny entropic floor).
    """
    check_regulariser(regulariser)
    x = np.atleast_2d(np.asarray(x, dtype=float))
    if regulariser == "euclidean":
        return np.where(x > 0, x, -float(far))
    return np.log(np.maximum(x, floor))


# -- the vector field -----------------------------------------------------------------------------
class FTRLField:
    """The score-space vector field :math:`\\dot y=v(Q(y))` of a batch of starts.

    Parameters
    ----------
    payoffs : ndarray, shape (N, n_1..n_N) or (B, N, n_1..n_N)
        One game for the whole batch, or one game per row (``batched=True``).
    regulariser : {"entropic", "euclidean"}
    """

    def __init__(self, payoffs: np.ndarray, regulariser: str = "entropic", batched: bool = False):
        self.regulariser = check_regulariser(regulariser)
        self.payoffs = np.asarray(payoffs, dtype=float)
        self.batched = batched
        self.shape = tuple(self.payoffs.shape[2:] if batched else self.payoffs.shape[1:])
        self.offsets = np.concatenate([[0], np.cumsum(self.shape)]).astype(int)
        self.dim = int(self.offsets[-1])
        self.major = player_major(self.payoffs, batched)
        self.n_calls = 0

    def blocks(self, x: np.ndarray) -> list[np.ndarray]:
        return [x[:, self.offsets[i]:self.offsets[i + 1]] for i in range(len(self.shape))]

    def strategies(self, y: np.ndarray) -> np.ndarray:
        """``y`` (B, D) -> ``x`` (B, D)."""
        return choice_map(y, self.offsets, self.regulariser)

    def velocity(self, y: np.ndarray) -> np.ndarray:
        """:math:`\\dot y=v(Q(y))` for ``y`` (B, D) -> (B, D)."""
        x = self.strategies(y)
        v = payoff_field(self.payoffs, self.blocks(x), self.major, self.batched)
        self.n_calls += 1
        return np.concatenate(v, axis=1)

    def __call__(self, t: float, yflat: np.ndarray) -> np.ndarray:
        return self.velocity(yflat.reshape(-1, self.dim)).ravel()


def replicator_velocity(game: NormalFormGame, x: np.ndarray) -> np.ndarray:
    """Closed-form replicator field :math:`\\dot x_{ia}=x_{ia}(v_{ia}(x)-\\langle x_i,v_i(x)\\rangle)`.

    ``x`` (B, D) -> (B, D). The entropic FTRL flow in scores maps to this field in strategies.
    """
    x = np.atleast_2d(x)
    out = []
    for xi, vi in zip(game.split(x), game.payoff_vectors(x)):
        out.append(xi * (vi - (xi * vi).sum(-1, keepdims=True)))
    return np.concatenate(out, axis=1)


def entropic_strategy_velocity(game: NormalFormGame, y: np.ndarray) -> np.ndarray:
    """:math:`\\dot x=DQ(y)\\,\\dot y` for the entropic map, computed through the softmax Jacobian.

    Used to check the replicator identity: it must equal :func:`replicator_velocity` at
    :math:`x=Q(y)`.
    """
    field = FTRLField(game.payoffs, "entropic")
    x = field.strategies(np.atleast_2d(y))
    ydot = field.velocity(np.atleast_2d(y))
    out = []
    for xi, gi in zip(field.blocks(x), field.blocks(ydot)):
        J = np.einsum("ba,ac->bac", xi, np.eye(xi.shape[1])) - xi[:, :, None] * xi[:, None, :]
        out.append(np.einsum("bac,bc->ba", J, gi))
    return np.concatenate(out, axis=1)


# -- monitors -------------------------------------------------------------------------------------
class OutsideMassMonitor:
    """Tracks :math:`D_S(x(t))` at every solver step for every row of the batch.

    Keeps ``initial`` (at t=0), ``max`` (running maximum over the steps, the *excursion*),
    ``argmax_t``, ``last`` (at the final time) and ``last_positive_t`` (the last step time at which
    :math:`D_S>0`; with Euclidean FTRL :math:`D_S` can hit exactly 0 in finite time).

    ``masks``: (n_profiles,) or (B, n_profiles) booleans, True outside :math:`S` (C order).
    """

    def __init__(self, masks: np.ndarray, n_rows: int):
        m = np.asarray(masks, dtype=float)
        self.masks = np.broadcast_to(m, (n_rows, m.shape[-1])) if m.ndim == 1 else m
        if self.masks.shape[0] != n_rows:
            raise ValueError(f"masks have {self.masks.shape[0]} rows, the batch has {n_rows}")
        self.initial = np.zeros(n_rows)
        self.max = np.zeros(n_rows)
        self.argmax_t = np.zeros(n_rows)
        self.last = np.zeros(n_rows)
        self.last_positive_t = np.zeros(n_rows)

    def update(self, t, blocks: list[np.ndarray], rows=slice(None), first: bool = False) -> None:
        d = np.einsum("bk,bk->b", joint_distribution(blocks), self.masks[rows])
        if first:
            self.initial[rows] = d
        better = d > self.max[rows]
        self.max[rows] = np.where(better, d, self.max[rows])
        self.argmax_t[rows] = np.where(better, t, self.argmax_t[rows])
        self.last[rows] = d
        self.last_positive_t[rows] = np.where(d > 0, t, self.last_positive_t[rows])


class VertexProximityMonitor:
    """Smallest sup-norm distance to every vertex :math:`e_\\alpha` within time windows.

    ``windows``: sequence of (t_start, t_end); ``min_dist`` has shape (n_windows, B, n_profiles).
    For :math:`x\\in X`, :math:`\\lVert x-e_\\alpha\\rVert_\\infty=\\max_i(1-x_{i\\alpha_i})`. Comparing two
    late windows tells a vertex the trajectory keeps approaching (in its omega-limit) from one that a
    closed orbit merely passes near.
    """

    def __init__(self, shape: Sequence[int], n_rows: int, windows: Sequence[tuple[float, float]]):
        self.shape = tuple(shape)
        self.windows = [(float(a), float(b)) for a, b in windows]
        self.min_dist = np.full((len(self.windows), n_rows, int(np.prod(self.shape))), np.inf)

    def update(self, t, blocks: list[np.ndarray], rows=slice(None), first: bool = False) -> None:
        t = np.broadcast_to(np.asarray(t, dtype=float), (blocks[0].shape[0],))
        inside = [(t >= a) & (t <= b) for a, b in self.windows]
        if not any(w.any() for w in inside):
            return
        N = len(self.shape)
        n_rows = blocks[0].shape[0]
        d = None
        for i, xi in enumerate(blocks):
            shp = [n_rows] + [1] * N
            shp[1 + i] = xi.shape[1]
            term = (1.0 - xi).reshape(shp)
            d = term if d is None else np.maximum(d, term)
        d = np.broadcast_to(d, (n_rows, *self.shape)).reshape(n_rows, -1)
        for w, sel in enumerate(inside):
            if sel.any():
                self.min_dist[w, rows] = np.minimum(self.min_dist[w, rows], np.where(sel[:, None], d, np.inf))


@dataclasses.dataclass
class FlowResult:
    """What one batched integration returns.

    Attributes
    ----------
    t : (T,) sample times (``t_eval``; empty when none were asked for)
    x : (T, B, D) strategies at the sample times (or None)
    log_x : (T, B, D) log-strategies at the sample times (entropic only; exact below underflow)
    y_final : (B, D) final scores;  x_final : (B, D) final strategies
    n_steps : solver steps taken (the largest over chunks); n_calls : right-hand-side calls
    """

    t: np.ndarray
    x: np.ndarray | None
    log_x: np.ndarray | None
    y_final: np.ndarray
    x_final: np.ndarray
    n_steps: int
    n_calls: int
    steps_per_row: np.ndarray | None = None


def _jac_sparsity(n_rows: int, dim: int):
    block = np.ones((dim, dim))
    return sparse.block_diag([block] * n_rows, format="csr")


def integrate_ftrl(payoffs: np.ndarray, y0: np.ndarray, t_final: float, regulariser: str = "entropic", *,
                   batched: bool = False, method: str = "rowwise", rtol: float = 1e-8, atol: float = 1e-10,
                   max_step: float = np.inf, t_eval: np.ndarray | None = None,
                   monitors: Sequence = (), chunk: int = 20_000) -> FlowResult:
    """Integrate continuous-time FTRL for a batch of starts as one stacked ODE in score space.

    Parameters
    ----------
    payoffs : ndarray (N, n_1..n_N), or (B, N, n_1..n_N) with ``batched=True``
    y0 : ndarray (B, D)
        Initial scores (see :func:`scores_from_strategies`).
    t_final : float
        Horizon, > 0.
    regulariser : {"entropic", "euclidean"}
    method : {"rowwise", "LSODA", "Radau", "BDF", "RK45", "DOP853"}
        ``"rowwise"`` (default): our vectorised Dormand-Prince 5(4) pair with one adaptive step size
        *per start* (:func:`integrate_rowwise`), so a start in a fast transition does not slow the
        others down. The other names hand the whole stacked batch to that scipy solver as one ODE
        with a single step size: LSODA gets the band width of the block-diagonal Jacobian, Radau and
        BDF its sparsity pattern.
    t_eval : ndarray, optional
        Times at which to return :math:`x` (interpolated with the solver's dense output).
    monitors : sequence
        Objects with ``update(t, blocks, rows, first=False)``, called at t=0 and after every accepted
        solver step (see :class:`OutsideMassMonitor`, :class:`VertexProximityMonitor`); they hold
        state for all rows, and ``rows`` says which chunk ``blocks`` belongs to (the batch is
        integrated in chunks of ``chunk`` rows).

    Returns
    -------
    FlowResult
    """
    check_regulariser(regulariser)
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(METHODS)}")
    if not (isinstance(t_final, (int, float)) and t_final > 0):
        raise ValueError(f"t_final={t_final!r} must be a positive number")
    y0 = np.atleast_2d(np.asarray(y0, dtype=np.float64))
    payoffs = np.asarray(payoffs, dtype=np.float64)
    B, D = y0.shape
    shape = payoffs.shape[2:] if batched else payoffs.shape[1:]
    if D != sum(shape):
        raise ValueError(f"y0 has width {D}, the game's profiles have width {sum(shape)}")
    if batched and payoffs.shape[0] != B:
        raise ValueError(f"batched payoffs have {payoffs.shape[0]} rows, y0 has {B}")
    t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
    if method == "rowwise":
        return integrate_rowwise(payoffs, y0, float(t_final), regulariser, batched=batched, rtol=rtol, atol=atol,
                                 max_step=max_step, t_eval=t_eval, monitors=monitors)
    xs = None if t_eval is None else np.empty((len(t_eval), B, D))
    logs = None if (t_eval is None or regulariser != "entropic") else np.empty((len(t_eval), B, D))
    y_final = np.empty((B, D))
    n_steps = 0
    n_calls = 0
    for lo in range(0, B, chunk):
        hi = min(B, lo + chunk)
        rows = slice(lo, hi)
        field = FTRLField(payoffs[rows] if batched else payoffs, regulariser, batched)
        x_start = field.strategies(y0[rows])
        for m in monitors:
            m.update(0.0, field.blocks(x_start), rows, first=True)
        kwargs = dict(rtol=rtol, atol=atol, max_step=max_step)
        if method == "LSODA":
            kwargs.update(lband=D - 1, uband=D - 1)
        elif method in ("Radau", "BDF"):
            kwargs["jac_sparsity"] = _jac_sparsity(hi - lo, D)
        solver = getattr(integrate, method)(field, 0.0, y0[rows].ravel(), float(t_final), **kwargs)
        k_eval = 0
        if t_eval is not None:
            while k_eval < len(t_eval) and t_eval[k_eval] <= 0.0:
                _store(field, y0[rows], xs, logs, k_eval, rows, regulariser)
                k_eval += 1
        steps = 0
        while solver.status == "running":
            solver.step()
            if solver.status == "failed":
                raise RuntimeError(f"{method} failed at t={solver.t:.4g}: {getattr(solver, 'message', '')}")
            steps += 1
            Y = solver.y.reshape(-1, D)
            X = field.strategies(Y)
            for m in monitors:
                m.update(solver.t, field.blocks(X), rows)
            if t_eval is not None and k_eval < len(t_eval) and t_eval[k_eval] <= solver.t:
                dense = solver.dense_output()
                while k_eval < len(t_eval) and t_eval[k_eval] <= solver.t:
                    tk = t_eval[k_eval]
                    Yk = Y if tk == solver.t else dense(tk).reshape(-1, D)
                    _store(field, Yk, xs, logs, k_eval, rows, regulariser)
                    k_eval += 1
        y_final[rows] = solver.y.reshape(-1, D)
        n_steps = max(n_steps, steps)
        n_calls += field.n_calls
    x_final = choice_map(y_final, np.concatenate([[0], np.cumsum(shape)]).astype(int), regulariser)
    return FlowResult(t=np.array([]) if t_eval is None else t_eval, x=xs, log_x=logs, y_final=y_final,
                      x_final=x_final, n_steps=n_steps, n_calls=n_calls)


# Dormand-Prince 5(4) tableau (the pair behind scipy's RK45), taken from scipy's public class
_DP_A = integrate.RK45.A
_DP_B = integrate.RK45.B
_DP_C = integrate.RK45.C
_DP_E = integrate.RK45.E


def integrate_rowwise(payoffs: np.ndarray, y0: np.ndarray, t_final: float, regulariser: str = "entropic", *,
                      batched: bool = False, rtol: float = 1e-8, atol: float = 1e-10, max_step: float = np.inf,
                      first_step: float = 1e-2, t_eval: np.ndarray | None = None, monitors: Sequence = (),
                      max_iterations: int = 2_000_000) -> FlowResult:
    r"""Vectorised Dormand-Prince 5(4) with one adaptive step size per row of the batch.

    Every row (start) keeps its own time :math:`t_b` and step :math:`h_b`; one iteration evaluates
    the six new stages for all unfinished rows at once (first-same-as-last), accepts the rows whose
    scaled RMS error is <= 1 and adapts each :math:`h_b` by :math:`0.9\,\mathrm{err}^{-1/5}`
    (clipped to [0.2, 10]), exactly the controller of ``scipy.integrate.RK45`` but per row. Steps
    are shortened to land on the ``t_eval`` times. Monitors see every accepted step of every row
    (``t`` is then an array of the rows' times). Agreement with ``solve_ivp`` is checked in the tests.

    Score-space FTRL is not stiff (the Jacobian of :math:`y\mapsto v(Q(y))` is bounded by the
    payoff range times the Lipschitz constant of :math:`Q`), so an explicit pair is safe; the
    Euclidean map :math:`Q` has kinks where a support changes, which the per-row controller
    resolves locally instead of shrinking every row's step.
    """
    y = np.atleast_2d(np.asarray(y0, dtype=np.float64)).copy()
    B, D = y.shape
    shape = payoffs.shape[2:] if batched else payoffs.shape[1:]
    offsets = np.concatenate([[0], np.cumsum(shape)]).astype(int)
    t = np.zeros(B)
    h = np.full(B, min(first_step, max_step, t_final))
    evals = np.zeros(0) if t_eval is None else np.asarray(t_eval, dtype=float)
    xs = None if t_eval is None else np.empty((len(evals), B, D))
    logs = None if (t_eval is None or regulariser != "entropic") else np.empty((len(evals), B, D))
    k_eval = np.zeros(B, dtype=int)

    def record(rows: np.ndarray, Y: np.ndarray) -> None:
        # store every eval time that rows have reached exactly
        nonlocal k_eval
        if xs is None or len(rows) == 0:
            return
        while True:
            pending = k_eval[rows] < len(evals)
            if not pending.any():
                return
            hit = pending & (np.abs(t[rows] - evals[np.minimum(k_eval[rows], len(evals) - 1)]) <= 1e-12 * max(1.0, t_final))
            if not hit.any():
                return
            r, Yr = rows[hit], Y[hit]
            X = choice_map(Yr, offsets, regulariser)
            xs[k_eval[r], r] = X
            if logs is not None:
                logs[k_eval[r], r] = np.concatenate([log_softmax(Yr[:, offsets[i]:offsets[i + 1]])
                                                     for i in range(len(shape))], axis=1)
            k_eval[r] += 1

    work = np.arange(B)                      # rows the current field covers
    field = FTRLField(payoffs[work] if batched else payoffs, regulariser, batched)
    K1 = field.velocity(y[work])
    x_start = field.strategies(y)
    for m in monitors:
        m.update(np.zeros(B), [x_start[:, offsets[i]:offsets[i + 1]] for i in range(len(shape))],
                 np.arange(B), first=True)
    record(np.arange(B), y)
    n_calls = 1
    iterations = 0
    steps = np.zeros(B, dtype=int)
    while True:
        active = t[work] < t_final
        if not active.any():
            break
        if active.sum() < 0.8 * len(work):   # compact the working set
            keep = active
            work, K1 = work[keep], K1[keep]
            field = FTRLField(payoffs[work] if batched else payoffs, regulariser, batched)
            active = np.ones(len(work), dtype=bool)
        iterations += 1
        if iterations > max_iterations:
            raise RuntimeError(f"integrate_rowwise: more than {max_iterations} iterations")
        Y = y[work]
        T = t[work]
        target = np.full(len(work), float(t_final))
        if len(evals):
            nxt = evals[np.minimum(k_eval[work], len(evals) - 1)]
            target = np.where((k_eval[work] < len(evals)) & (nxt < t_final), np.maximum(nxt, T), target)
        h_full = h[work]
        h_step = np.where(active, np.minimum(h_full, target - T), 0.0)
        clipped = h_step < h_full
        hs = h_step[:, None]
        K = [K1]
        for s in range(1, 6):
            dy = sum(_DP_A[s, j] * K[j] for j in range(s) if _DP_A[s, j] != 0.0)
            K.append(field.velocity(Y + hs * dy))
        y_new = Y + hs * sum(_DP_B[j] * K[j] for j in range(6) if _DP_B[j] != 0.0)
        K7 = field.velocity(y_new)
        n_calls += 6
        K.append(K7)
        err = hs * sum(_DP_E[j] * K[j] for j in range(7) if _DP_E[j] != 0.0)
        scale = atol + rtol * np.maximum(np.abs(Y), np.abs(y_new))
        err_norm = np.sqrt(np.mean((err / scale) ** 2, axis=1))
        accept = active & (err_norm <= 1.0)
        with np.errstate(divide="ignore"):
            factor = np.where(err_norm == 0.0, 10.0, 0.9 * err_norm ** -0.2)
        factor = np.where(accept, np.minimum(10.0, factor), np.clip(factor, 0.2, 1.0))
        h_new = np.minimum(max_step, h_step * factor)
        h_new = np.where(accept & clipped, np.maximum(h_new, h_full), h_new)
        h_new = np.where(active, np.maximum(h_new, 1e-14 * max(1.0, t_final)), h_full)
        h[work] = h_new
        acc_rows = work[accept]
        if len(acc_rows):
            t_new = np.where(clipped, target, T + h_step)[accept]
            t[acc_rows] = np.minimum(t_new, t_final)
            y[acc_rows] = y_new[accept]
            K1 = np.where(accept[:, None], K7, K1)
            steps[acc_rows] += 1
            if monitors:
                X = field.strategies(y_new[accept])
                blocks = [X[:, offsets[i]:offsets[i + 1]] for i in range(len(shape))]
                for m in monitors:
                    m.update(t[acc_rows], blocks, acc_rows)
            record(acc_rows, y_new[accept])
    x_final = choice_map(y, offsets, regulariser)
    return FlowResult(t=evals if t_eval is not None else np.array([]), x=xs, log_x=logs, y_final=y,
                      x_final=x_final, n_steps=int(steps.max(initial=0)), n_calls=n_calls, steps_per_row=steps)


def _store(field: FTRLField, Y: np.ndarray, xs, logs, k: int, rows: slice, regulariser: str) -> None:
    xs[k, rows] = field.strategies(Y)
    if logs is not None:
        logs[k, rows] = np.concatenate([log_softmax(b) for b in field.blocks(Y)], axis=1)


# -- discrete time --------------------------------------------------------------------------------
def step_schedule(step_size, n_steps: int) -> np.ndarray:
    """Step sizes :math:`\\gamma_t` for ``n_steps`` steps: a positive float (constant), an array, or a
    callable ``t -> gamma_t``. Non-positive or non-finite steps raise ValueError."""
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise ValueError(f"n_steps={n_steps!r} must be a positive integer")
    if callable(step_size):
        gam = np.array([float(step_size(t)) for t in range(n_steps)])
    else:
        gam = np.broadcast_to(np.asarray(step_size, dtype=float), (n_steps,)).copy()
    if not np.all(np.isfinite(gam)) or np.any(gam <= 0):
        bad = gam[~(np.isfinite(gam) & (gam > 0))][0]
        raise ValueError(f"step_size must be > 0 at every step; got {bad!r}")
    return gam


@dataclasses.dataclass
class DiscreteResult:
    """Discrete FTRL: times :math:`\\tau_t=\\sum_{s<t}\\gamma_s` (T,), strategies (T, B, D), final scores."""

    t: np.ndarray
    x: np.ndarray
    y_final: np.ndarray


def discrete_ftrl(payoffs: np.ndarray, y0: np.ndarray, step_size, n_steps: int,
                  regulariser: str = "entropic", *, batched: bool = False, record_every: int = 1,
                  monitors: Sequence = ()) -> DiscreteResult:
    """Discrete-time FTRL :math:`y_{t+1}=y_t+\\gamma_t v(Q(y_t))` for a batch of starts (Hedge when entropic).

    ``y0`` (B, D); records every ``record_every`` steps (and the last). Monitors see every step.
    """
    gam = step_schedule(step_size, n_steps)
    if isinstance(record_every, bool) or not isinstance(record_every, (int, np.integer)) or record_every < 1:
        raise ValueError(f"record_every={record_every!r} must be a positive integer")
    field = FTRLField(payoffs, regulariser, batched)
    y = np.atleast_2d(np.asarray(y0, dtype=float)).copy()
    times, frames = [0.0], [field.strategies(y)]
    for m in monitors:
        m.update(0.0, field.blocks(frames[0]), slice(None), first=True)
    tau = 0.0
    for t in range(n_steps):
        y = y + gam[t] * field.velocity(y)
        tau += gam[t]
        need = monitors or (t + 1) % record_every == 0 or t == n_steps - 1
        if need:
            x = field.strategies(y)
            for m in monitors:
                m.update(tau, field.blocks(x), slice(None))
            if (t + 1) % record_every == 0 or t == n_steps - 1:
                times.append(tau)
                frames.append(x)
    return DiscreteResult(t=np.array(times), x=np.stack(frames), y_final=y)


def integrate_one_by_one(payoffs: np.ndarray, y0: np.ndarray, t_final: float, regulariser: str = "entropic",
                         method: str = "LSODA", rtol: float = 1e-8, atol: float = 1e-10) -> np.ndarray:
    """Baseline: ``scipy.integrate.solve_ivp`` once per start (no batching). Returns final scores (B, D)."""
    y0 = np.atleast_2d(y0)
    field = FTRLField(payoffs, regulariser)
    out = np.empty_like(y0)
    for b in range(y0.shape[0]):
        sol = integrate.solve_ivp(field, (0.0, t_final), y0[b], method=method, rtol=rtol, atol=atol)
        out[b] = sol.y[:, -1]
    return out

