"""The live playground of the grokking chapter: whole train/test curves from the closed form for any
(ν, λ, η, n, m), fast enough to recompute on every slider move (one eigendecomposition, then
vectorised over a log-spaced step grid)."""

from __future__ import annotations

import dataclasses

import numpy as np

from .config import GrokkingConfig
from .experiments import make_problem
from .linear import log_time_grid, predicted_grokking_time


@dataclasses.dataclass
class PlaygroundCurves:
    """Curves on a log-spaced grid of ``T`` steps.

    Attributes
    ----------
    steps : np.ndarray, shape ``(T,)``
    train, test, memorisation : np.ndarray, shape ``(T,)``
    t_fit, t_gen, t_gen_pred : float
        Measured first steps below ``eps_train`` / ``eps_test`` and the predicted grokking time
        (``inf`` when never reached).
    s_min, stable_eta : float
        Smallest nonzero eigenvalue of H and the largest stable step ``2 / (s_max + lam)``.
    """

    steps: np.ndarray
    train: np.ndarray
    test: np.ndarray
    memorisation: np.ndarray
    t_fit: float
    t_gen: float
    t_gen_pred: float
    s_min: float
    stable_eta: float


def playground_curves(cfg: GrokkingConfig, seed: int, nu: float, lam: float, eta: float, n: int | None = None,
                      m: int | None = None, t_points: int = 160) -> PlaygroundCurves:
    """Closed-form curves for one setting; ``n``/``m`` override the config's sample and feature counts.

    Raises ``ValueError`` naming ``nu`` when it is not a finite number > 0, ``eta`` when the
    step is unstable, and ``n``/``m`` when they
    leave the over-parameterised regime the chapter studies (``k < n < m``).
    """
    if not (isinstance(nu, (int, float, np.floating, np.integer)) and np.isfinite(nu) and nu > 0):
        raise ValueError(f"nu={nu!r} is not allowed; nu must be a finite real number > 0")
    overrides = {k: v for k, v in (("n", n), ("m", m)) if v is not None}
    cfg = dataclasses.replace(cfg, **overrides) if overrides else cfg
    problem, z = make_problem(cfg, seed)
    problem.check_step_size(eta, lam)
    horizon = max(int(cfg.decay_horizon / (eta * lam)), 10)
    steps = log_time_grid(horizon, t_points)
    traj = problem.trajectory(nu * z, eta, lam)
    return PlaygroundCurves(
        steps=steps, train=traj.train_loss(steps), test=traj.test_loss(steps),
        memorisation=0.5 * traj.null_norm(steps),
        t_fit=float(traj.first_time_below("train", cfg.eps_train, steps)),
        t_gen=float(traj.first_time_below("test", cfg.eps_test, steps)),
        t_gen_pred=float(predicted_grokking_time(problem, eta, lam, cfg.eps_test, theta0=nu * z)),
        s_min=float(problem.s_min), stable_eta=float(2.0 / (problem.s_max + lam)))
