"""Sizes of the grokking chapter (Xu, Vardi & Safran, ICML 2026, arXiv 2601.19791), per profile.

One frozen dataclass holds every knob of the chapter: the ridge-regression part (spiked Gaussian
design, GD step, weight decay, initial scale and the grids the claims sweep) and the modular-addition
network part. ``PRESETS`` gives the three profiles; :func:`config_for` applies overrides.

Budgets (measured on 2 shared CPU cores, see the chapter's provenance box): ``smoke`` runs the whole
chapter in well under a minute and a half, ``default`` in a few minutes, ``full`` is larger and
meant for a GPU (the network part uses CUDA when present; the linear part is numpy).
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import Float, Grid, Int, IntGrid, OneOf, PositiveFloat, PositiveInt, ProfileConfig, profile_config

__all__ = ["PRESETS", "GrokkingConfig", "config_for"]


@profile_config
class GrokkingConfig(ProfileConfig):
    """Every size of the grokking chapter.

    Linear part (ridge regression by GD; dossier sections 3.2-3.4)
    ---------------------------------------------------------------
    n, m, k : int
        Training samples, features (``m > n``: over-parameterised) and spiked coordinates
        (``k < n``); the teacher lives on the ``k`` spiked coordinates.
    sigma : float
        Standard deviation of the ``m - k`` non-spiked feature coordinates.
    eta, lam, nu : float
        The base step size, weight decay and initial scale (:math:`\\theta_0=\\nu z`,
        :math:`z\\sim\\mathcal N(0,I_m)`).
    eps_train, eps_test : float
        Thresholds defining :math:`t_{\\rm fit}` (training loss) and :math:`t_{\\rm gen}` (test loss);
        ``eps_test`` must lie above the floor :math:`L(\\theta_\\lambda)`.
    n_seeds : int
        Independent data sets and initial directions per experiment.
    t_points : int
        Length of the log-spaced step grid of the curves (crossing times are then refined to the
        exact integer).
    decay_horizon : float
        Curves run to ``decay_horizon / (eta * lam)`` steps (that many e-folds of the null space).
    curve_nus, curve_lams : tuple of float
        Settings of the three-stage curves (every pair is run).
    eta_grid, lam_grid : tuple of float
        The grid of claims 1 and 4 (at ``nu``).
    nu_grid : tuple of float
        Initial scales of claims 2 and 5 (at ``eta``, ``lam``); keep them in the grokking regime.
    n_grid : tuple of int
        Sample sizes of claim 3 (each ``> k`` and ``< m``).
    nu_small : float
        The small initial scale that eliminates grokking (claim 6).
    tradeoff_lam_ratios : tuple of float
        Weight decays of the trade-off curve, as multiples of :math:`s_{\\min}` (claim 6).
    gd_check_steps : int
        Length of the plain GD loop that checks the closed form (a test of our code, not a claim).
    fit_lam_ratios : tuple of float
        Extra weight decays of the fit-time grid of claim 1, as multiples of :math:`s_{\\min}` (so that
        the :math:`\\lambda` in :math:`1/(\\eta(s_{\\min}+\\lambda))` matters); the grid is ``eta_grid`` x
        (``lam_grid`` + these).
    persist_c : float
        Claim 2 reads the test loss at :math:`t=c/(\\eta\\lambda)` with this ``c``.

    Network part (modular addition, "in the spirit of" the paper; claim 8)
    -----------------------------------------------------------------------
    nn_p, nn_train_fraction, nn_width : modulus, fraction of pairs used for training, hidden width.
    nn_lams, nn_alphas, nn_lrs : weight decays, initial scales and step sizes; every triple is trained.
    nn_steps : maximum number of full-batch steps (the control without weight decay always runs all of them).
    nn_lr : the step size of the control and of the figures' first-seed curves (must be one of ``nn_lrs``).
    nn_optimizer, nn_loss, nn_activation : see :mod:`icmlbook.papers.grokking.nn`.
    nn_n_eval, nn_eval_every : log-spaced evaluation points, plus an evaluation every that many steps.
    nn_n_seeds : seeds (split and initial draw).
    nn_fit_accuracy, nn_grok_accuracy : train / test accuracy defining t_fit and t_grok.
    nn_baseline : also train one network per seed without weight decay (the control).

    Decision thresholds (fixed before the run; the claims' rule texts are written from these defaults,
    and :mod:`.claims` refuses a config whose thresholds differ from them)
    ------------------------------------------------------------------------------------------------
    ci_level : confidence level of the intervals over replicates (t distribution).
    exponent_margin : claims 4 and 5: the 95 % interval must lie within this distance of the claimed
        exponent (-1) or slope (1), so exponents -0.9 and -1.1 are rejected.
    fit_margin : claim 1: the same for the slope of log t_fit against log of the predicted fit scale.
    plateau_slope_margin, plateau_ratio_window : claim 2: interval of the log-log plateau slope within
        ``2 +- plateau_slope_margin``; every plateau / prediction within ``[1/window, window]``.
    persist_factor : claim 2: at t = persist_c/(eta lam) the test loss must still exceed this multiple
        of ``eps_test``.
    small_init_factor : claim 6: with the small init, t_gen <= this multiple of t_fit.
    nn_exponent_margin : claim 8: the intervals of the network's exponents in eta and lam within this
        distance of -1.
    nn_plateau_extend, nn_plateau_share : claim 8's plateau test (CLAIMS.md rule 10): training ``extend`` longer
        must move each network's log grokking time by less than ``share`` of ``nn_exponent_margin`` (read on the
        run's curve cut at T / (1 + extend); see :func:`.claims.nn_convergence`).
    """

    # ---- linear part ----
    n: Int(ge=2) = 200
    m: Int(ge=3) = 2000
    k: Int(ge=1) = 20
    sigma: PositiveFloat = 0.1
    eta: PositiveFloat = 0.5
    lam: PositiveFloat = 1e-3
    nu: PositiveFloat = 1.0
    eps_train: PositiveFloat = 1e-3
    eps_test: PositiveFloat = 1e-2
    n_seeds: PositiveInt = 3
    t_points: Int(ge=10) = 200
    decay_horizon: Float(ge=1) = 15.0
    curve_nus: Grid(gt=0) = (0.01, 1.0, 10.0)
    curve_lams: Grid(gt=0) = (1e-3, 3e-3)
    eta_grid: Grid(gt=0, min_len=2) = (0.125, 0.25, 0.5)
    lam_grid: Grid(gt=0, min_len=2) = (1e-3, 2e-3, 4e-3)
    nu_grid: Grid(gt=0, min_len=3) = (0.3, 0.6, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    n_grid: IntGrid(ge=1, min_len=2) = (50, 100, 200, 400, 800)
    nu_small: PositiveFloat = 0.01
    tradeoff_lam_ratios: Grid(gt=0, min_len=3) = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
    gd_check_steps: PositiveInt = 3000
    fit_lam_ratios: Grid(gt=0) = (0.3, 1.0, 3.0)
    persist_c: PositiveFloat = 0.5
    # ---- network part ----
    nn_p: Int(ge=3) = 23
    nn_train_fraction: Float(gt=0, lt=1) = 0.5
    nn_width: PositiveInt = 128
    # the eta and lambda grids span 4x each (issue 28: at 2.25x an exponent of -1 could not be told from -0.7)
    nn_lams: Grid(gt=0) = (0.45, 0.9, 1.8)
    nn_alphas: Grid(gt=0) = (1.0, 2.0, 4.0)
    nn_lrs: Grid(gt=0) = (1.5e-3, 3e-3, 6e-3)
    nn_steps: PositiveInt = 12000
    nn_lr: PositiveFloat = 3e-3
    nn_optimizer: OneOf("adamw", "gd") = "adamw"
    nn_loss: OneOf("cross_entropy", "mse") = "cross_entropy"
    nn_activation: OneOf("quadratic", "relu", "gelu") = "quadratic"
    nn_n_eval: Int(ge=2) = 160
    nn_eval_every: PositiveInt = 20
    nn_n_seeds: PositiveInt = 3
    nn_fit_accuracy: Float(gt=0, le=1) = 0.99
    nn_grok_accuracy: Float(gt=0, le=1) = 0.9
    nn_baseline: bool = True
    # ---- decision thresholds (fixed before the run) ----
    ci_level: Float(gt=0, lt=1) = 0.95
    exponent_margin: Float(gt=0, lt=1) = 0.1
    fit_margin: Float(gt=0, lt=1) = 0.2
    plateau_slope_margin: Float(gt=0, lt=1) = 0.1
    plateau_ratio_window: Float(gt=1) = 1.2
    persist_factor: Float(gt=1) = 10.0
    small_init_factor: Float(ge=1) = 2.0
    nn_exponent_margin: Float(gt=0, lt=1) = 0.3
    nn_plateau_extend: Float(gt=0, le=2) = 0.5
    nn_plateau_share: Float(gt=0, le=1) = 1.0 / 3.0

    def validate(self) -> None:
        """The checks that involve several fields (each field's own bounds are declared on it)."""
        if not self.k < self.n:
            raise ValueError(f"k={self.k!r} is not allowed; it must be < n={self.n} (the teacher must be learnable)")
        if not self.n < self.m:
            raise ValueError(f"m={self.m!r} is not allowed; it must be > n={self.n} (over-parameterised)")
        if not all(self.k < v < self.m for v in self.n_grid):
            raise ValueError(f"n_grid={self.n_grid!r} is not allowed; every entry must be > k={self.k} and < m={self.m}")
        if self.nn_lr not in self.nn_lrs:
            raise ValueError(f"nn_lr={self.nn_lr!r} is not allowed; it must be one of nn_lrs={self.nn_lrs!r}")
        for eta in self.eta_grid + (self.eta,):
            for lam in self.lam_grid + self.curve_lams + (self.lam,):
                if eta * lam >= 1.0:
                    raise ValueError(f"eta={eta!r} with lam={lam!r} is not allowed; eta*lam must be < 1 "
                                     "(the null space must shrink, not flip sign)")


PRESETS: dict[str, GrokkingConfig] = {
    "smoke": GrokkingConfig(
        n=150, m=1500, k=10, n_seeds=2, t_points=120,
        curve_nus=(0.01, 1.0, 10.0), curve_lams=(1e-3,),
        nu_grid=(0.3, 1.0, 3.0, 10.0, 30.0), n_grid=(50, 150, 400),
        tradeoff_lam_ratios=(0.01, 0.1, 1.0, 3.0), gd_check_steps=1000,
        nn_lams=(0.9, 1.35), nn_alphas=(1.0, 2.0), nn_lrs=(3e-3, 4.5e-3), nn_steps=3000, nn_n_eval=100,
        nn_n_seeds=1,
    ),
    "default": GrokkingConfig(),
    "full": GrokkingConfig(
        n=1000, m=10000, k=50, n_seeds=5, t_points=400,
        curve_nus=(0.01, 0.1, 1.0, 10.0), curve_lams=(1e-3, 3e-3),
        nu_grid=(0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        n_grid=(200, 500, 1000, 2000, 4000),
        tradeoff_lam_ratios=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0), gd_check_steps=5000,
        nn_lams=(0.3, 0.4, 0.6, 0.9, 1.35, 2.0), nn_alphas=(1.0, 2.0, 4.0, 8.0),
        nn_lrs=(1.5e-3, 3e-3, 6e-3), nn_steps=30000,
        nn_n_eval=300, nn_n_seeds=5,
    ),
}


def config_for(profile: str, **overrides: Any) -> GrokkingConfig:
    """The preset of ``profile`` (``"smoke"``, ``"default"`` or ``"full"``) with ``overrides`` applied."""
    return GrokkingConfig.for_profile(profile, PRESETS, **overrides)
