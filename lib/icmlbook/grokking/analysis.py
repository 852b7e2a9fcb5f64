r"""Scaling fits and the decision rules of the grokking chapter's eight claims.

Paper: Xu, Vardi & Safran, "To Grok Grokking: Provable Grokking in Ridge Regression", ICML 2026,
arXiv 2601.19791. The claims and their rules follow the chapter's dossier (section 5). The paper's
own statements are asymptotic (:math:`O(\cdot)` rates and scaling relations); the numeric tolerances
below are ours and are written next to each rule in :data:`CLAIM_RULES`.

Every ``claimN_*`` function is pure: it reads the arrays of an experiment result from
:mod:`icmlbook.grokking.experiments` and returns a :class:`ClaimCheck`, which unpacks as
``(measured, passed)`` (``measured`` is a short text for the claims ledger) and also carries the
numbers behind it in ``values``. Nothing is hard-coded: change the data and the verdict follows.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats

from ..runtime.claims import ClaimCheck
from .experiments import (
    ClosedFormCheck,
    EliminationTradeoff,
    EtaLamGrid,
    NuSweep,
    SampleSizeSweep,
)
from .nn import NNRun

__all__ = [
    "CLAIM_RULES",
    "CLAIM_STATEMENTS",
    "ClaimCheck",
    "SlopeFit",
    "claim1_early_fit",
    "claim2_plateau",
    "claim3_generalisation",
    "claim4_inverse_eta_lam",
    "claim5_log_nu",
    "claim6_elimination",
    "claim7_closed_form",
    "claim8_nn_transfer",
    "linear_fit",
    "loglog_slope",
    "nn_controls",
    "nn_time_table",
]


# --------------------------------------------------------------------------------------------
# fits
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SlopeFit:
    """A least-squares line ``y = slope * x + intercept`` with its coefficient of determination."""

    slope: float
    intercept: float
    r2: float
    stderr: float


def linear_fit(x, y) -> SlopeFit:
    """Ordinary least squares of ``y`` on ``x`` (``scipy.stats.linregress``); 1-d arrays, >= 3 points."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if x.size != y.size or x.size < 3:
        raise ValueError(f"a line fit needs >= 3 paired points (got {x.size} and {y.size})")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a line fit needs finite values")
    res = stats.linregress(x, y)
    return SlopeFit(slope=float(res.slope), intercept=float(res.intercept), r2=float(res.rvalue**2),
                    stderr=float(res.stderr))


def loglog_slope(x, y) -> SlopeFit:
    """Slope of ``log y`` against ``log x`` (natural logs; the slope does not depend on the base)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("a log-log fit needs positive values")
    return linear_fit(np.log(x), np.log(y))


def _geomean(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """Geometric mean along ``axis``; ``inf`` if any entry is ``inf``."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore"):
        return np.exp(np.mean(np.log(x), axis=axis))


# --------------------------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------------------------
CLAIM_STATEMENTS: dict[str, str] = {
    "1": "Early overfitting: the training loss falls below eps_train within "
         "O(log(1/eps_train) / (eta (s_min + lam))) steps.",
    "2": "Persistent poor generalisation: with a large init the test loss plateaus at a height "
         "proportional to nu^2 tr(P_N Sigma) while the training set is already fit.",
    "3": "Eventual generalisation: the test loss reaches L(theta_lam) + eps, small in the spiked "
         "design, and smaller with more samples.",
    "4": "The grokking time scales as 1/(eta lam).",
    "5": "The grokking time grows linearly in ln(nu), by about 1/(eta lam) steps per e-fold.",
    "6": "Grokking is eliminated by a small init, or by a weight decay near s_min at the price of "
         "larger final training and test errors.",
    "7": "The closed-form trajectory equals gradient descent.",
    "8": "In a non-linear network (modular addition, 2-layer MLP) the grokking time falls roughly "
         "like 1/lam and grows with the init scale.",
}

CLAIM_RULES: dict[str, str] = {
    "1": "measured t_fit / predicted t_fit (realised initial loss) within [1/2, 2] in every cell of "
         "the eta x lam grid and every replicate",
    "2": "log-log slope of the plateau (test loss at t_fit, geometric mean over replicates) "
         "against nu within 2 +- 0.2",
    "3": "mean final test loss at the chapter's n below eps_test, and strictly decreasing in n",
    "4": "eta * lam * t_gen (mean over replicates) within +-15% of its grid mean in every cell",
    "5": "slope of mean t_gen against ln(nu), times eta*lam, within 1 +- 0.15, and R^2 > 0.98",
    "6": "small init: t_gen <= 2 t_fit in every replicate; trade-off: mean t_gen/t_fit "
         "non-increasing in lam while the mean final train and test losses are non-decreasing "
         "(and higher at the largest lam than at the smallest)",
    "7": "max relative difference ||theta_CF - theta_GD|| / ||theta_GD|| < 1e-8",
    "8": "within-alpha regression slope of log t_grok (geometric mean over seeds) on log lam in "
         "[-1.3, -0.7], and the mean of log t_grok over the lam grid strictly increasing in alpha",
}


def claim1_early_fit(grid: EtaLamGrid, factor: float = 2.0) -> ClaimCheck:
    """Claim 1: measured over predicted time to fit, over the ``(eta, lam)`` grid."""
    ratio = grid.t_fit / grid.t_fit_pred  # (S, E, L)
    finite = bool(np.all(np.isfinite(ratio)))
    lo, hi = float(np.min(ratio)), float(np.max(ratio))
    passed = finite and lo >= 1.0 / factor and hi <= factor
    measured = (f"t_fit measured/predicted in [{lo:.2f}, {hi:.2f}] over {ratio[0].size} (eta, lam) cells "
                f"x {ratio.shape[0]} replicates (t_fit {np.min(grid.t_fit):.0f}-{np.max(grid.t_fit):.0f} steps)")
    return ClaimCheck(measured, bool(passed), {"ratio": ratio, "min_ratio": lo, "max_ratio": hi})


def claim2_plateau(sweep: NuSweep, target: float = 2.0, tol: float = 0.2) -> ClaimCheck:
    """Claim 2: the plateau height grows like ``nu**2``."""
    plateau = _geomean(sweep.plateau, axis=0)
    fit = loglog_slope(sweep.nus, plateau)
    rel = plateau / _geomean(sweep.plateau_pred, axis=0)
    passed = abs(fit.slope - target) <= tol
    measured = (f"slope {fit.slope:.3f} (R^2 {fit.r2:.4f}) over nu in [{sweep.nus.min():g}, {sweep.nus.max():g}]; "
                f"plateau / (nu^2 tr(P_N Sigma)/2) in [{rel.min():.2f}, {rel.max():.2f}]")
    return ClaimCheck(measured, bool(passed), {"slope": fit.slope, "r2": fit.r2, "plateau": plateau,
                                               "relative_to_prediction": rel})


def claim3_generalisation(sweep: SampleSizeSweep, threshold: float | None = None) -> ClaimCheck:
    """Claim 3: the final test loss is small at the chapter's ``n`` and decreases with ``n``."""
    threshold = sweep.eps_test if threshold is None else threshold
    mean = sweep.final_test.mean(axis=0)  # (N,)
    at_ref = float(mean[list(sweep.ns).index(sweep.n_ref)])
    decreasing = bool(np.all(np.diff(mean) < 0))
    passed = at_ref < threshold and decreasing
    trail = ", ".join(f"{v:.2g}" for v in mean)
    measured = (f"final test loss {at_ref:.2g} at n={sweep.n_ref} (threshold {threshold:g}); "
                f"over n={list(map(int, sweep.ns))}: {trail}")
    return ClaimCheck(measured, bool(passed), {"mean_final_test": mean, "at_n_ref": at_ref,
                                               "decreasing": decreasing})


def claim4_inverse_eta_lam(grid: EtaLamGrid, tol: float = 0.15) -> ClaimCheck:
    """Claim 4: ``eta * lam * t_gen`` is constant over the grid."""
    t_gen = grid.t_gen.mean(axis=0)  # (E, L)
    product = grid.etas[:, None] * grid.lams[None, :] * t_gen
    if not np.all(np.isfinite(product)):
        return ClaimCheck("some cell never reached eps_test within the horizon", False, {"product": product})
    dev = np.abs(product / product.mean() - 1.0)
    passed = float(dev.max()) <= tol
    measured = (f"eta*lam*t_gen = {product.mean():.3f} on average, max deviation {100 * dev.max():.1f}% "
                f"over {product.size} cells (t_gen {t_gen.min():.0f}-{t_gen.max():.0f} steps)")
    return ClaimCheck(measured, bool(passed), {"product": product, "max_deviation": float(dev.max())})


def claim5_log_nu(sweep: NuSweep, tol: float = 0.15, min_r2: float = 0.98) -> ClaimCheck:
    """Claim 5: ``t_gen`` is linear in ``ln nu`` with slope ``1/(eta lam)``."""
    t_gen = sweep.t_gen.mean(axis=0)
    if not np.all(np.isfinite(t_gen)):
        return ClaimCheck("some nu never reached eps_test within the horizon", False, {"t_gen": t_gen})
    fit = linear_fit(np.log(sweep.nus), t_gen)
    scaled = fit.slope * sweep.eta * sweep.lam
    passed = abs(scaled - 1.0) <= tol and fit.r2 > min_r2
    measured = (f"slope {fit.slope:.0f} steps per e-fold of nu = {scaled:.3f} / (eta lam), R^2 {fit.r2:.5f}")
    return ClaimCheck(measured, bool(passed), {"slope": fit.slope, "slope_times_eta_lam": scaled,
                                               "r2": fit.r2, "t_gen": t_gen})


def claim6_elimination(res: EliminationTradeoff, factor: float = 2.0) -> ClaimCheck:
    """Claim 6: small init removes the delay; a larger weight decay trades it for error."""
    small_ok = bool(np.all(res.t_gen_small <= factor * res.t_fit_small))
    ratio = (res.t_gen_tradeoff / res.t_fit_tradeoff).mean(axis=0)  # (R,)
    train = res.final_train.mean(axis=0)
    test = res.final_test.mean(axis=0)
    ratio_ok = bool(np.all(np.isfinite(ratio)) and np.all(np.diff(ratio) <= 0))
    cost_ok = bool(np.all(np.diff(train) >= 0) and np.all(np.diff(test) >= 0)
                   and train[-1] > train[0] and test[-1] > test[0])
    passed = small_ok and ratio_ok and cost_ok
    measured = (f"nu={res.nu_small:g}: t_gen/t_fit = {np.max(res.t_gen_small / res.t_fit_small):.2f} (max over "
                f"replicates; nu={res.nu_large:g}: {np.mean(res.t_gen_large / res.t_fit_large):.0f}); "
                f"lam/s_min {res.lam_ratios.min():g}->{res.lam_ratios.max():g}: t_gen/t_fit "
                f"{ratio[0]:.3g}->{ratio[-1]:.3g}, final test {test[0]:.2g}->{test[-1]:.2g}, "
                f"final train {train[0]:.2g}->{train[-1]:.2g}")
    return ClaimCheck(measured, bool(passed), {"small_init_ok": small_ok, "ratio": ratio, "ratio_monotone": ratio_ok,
                                               "final_train": train, "final_test": test, "cost_monotone": cost_ok})


def claim7_closed_form(check: ClosedFormCheck, tol: float = 1e-8) -> ClaimCheck:
    """Claim 7: the closed form matches the float64 GD loop."""
    passed = check.max_rel_error < tol
    # no timings here: the ledger must be identical between two runs with the same seed
    measured = f"max relative error {check.max_rel_error:.1e} over {int(check.steps.max())} GD steps"
    return ClaimCheck(measured, bool(passed), {"max_rel_error": check.max_rel_error})


def nn_time_table(run: NNRun, which: str = "t_grok") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seed-averaged (geometric mean) times of the runs with weight decay, as a ``(L, A)`` table.

    Returns
    -------
    lams : np.ndarray, shape ``(L,)``
    alphas : np.ndarray, shape ``(A,)``
    table : np.ndarray, shape ``(L, A)``; ``inf`` where some seed never reached the threshold.
    """
    times = getattr(run, which)
    decayed = run.lam > 0
    lams, alphas = np.unique(run.lam[decayed]), np.unique(run.alpha[decayed])
    table = np.full((lams.size, alphas.size), np.nan)
    for i, lam in enumerate(lams):
        for j, alpha in enumerate(alphas):
            sel = decayed & (run.lam == lam) & (run.alpha == alpha)
            if sel.any():
                table[i, j] = _geomean(times[sel])
    return lams, alphas, table


def claim8_nn_transfer(run: NNRun, slope_range: tuple[float, float] = (-1.3, -0.7)) -> ClaimCheck:
    """Claim 8: ``t_grok`` of the MLP against weight decay and initial scale."""
    lams, alphas, table = nn_time_table(run, "t_grok")
    if lams.size < 2:
        return ClaimCheck("needs at least two weight decays", False, {"table": table})
    if not np.all(np.isfinite(table)):
        missing = int(np.sum(~np.isfinite(table)))
        return ClaimCheck(f"{missing} of {table.size} (lam, alpha) settings did not reach "
                          f"{run.grok_accuracy:.0%} test accuracy within {int(run.steps.max())} steps",
                          False, {"table": table, "lams": lams, "alphas": alphas})
    x = np.log(lams)[:, None] - np.log(lams).mean()  # (L, 1): within-alpha centring
    y = np.log(table) - np.log(table).mean(axis=0, keepdims=True)  # (L, A)
    pooled = float(np.sum(x * y) / (np.sum(x * x) * alphas.size))
    resid = y - pooled * x
    r2 = float(1.0 - np.sum(resid**2) / np.sum(y**2)) if np.sum(y**2) > 0 else 1.0
    per_alpha = [float(np.polyfit(np.log(lams), np.log(table[:, j]), 1)[0]) for j in range(alphas.size)]
    slope_ok = slope_range[0] <= pooled <= slope_range[1]
    mean_log = np.log(table).mean(axis=0)  # (A,): log t_grok averaged over the lam grid
    alpha_ok = bool(alphas.size >= 2 and np.all(np.diff(mean_log) > 0))
    per_lam_monotone = bool(np.all(np.diff(table, axis=1) >= 0))
    passed = slope_ok and alpha_ok
    slopes = ", ".join(f"{s:.2f}" for s in per_alpha)
    measured = (f"slope {pooled:.2f} (R^2 {r2:.3f}; per alpha {slopes}); t_grok at alpha="
                f"{alphas[0]:g}->{alphas[-1]:g}: " + ", ".join(
                    f"{table[i, 0]:.0f}->{table[i, -1]:.0f}" for i in range(lams.size))
                + f" ({run.optimizer}, steps)")
    return ClaimCheck(measured, bool(passed), {"slope": pooled, "r2": r2, "per_alpha_slopes": per_alpha,
                                               "alpha_monotone": alpha_ok, "per_lam_monotone": per_lam_monotone,
                                               "mean_log_t_grok": mean_log, "table": table, "lams": lams,
                                               "alphas": alphas})


def nn_controls(run: NNRun) -> ClaimCheck:
    """The control without weight decay (``lam = 0``) should not generalise within the same budget.

    ``passed`` is True when no control reached the test-accuracy threshold; ``measured`` also gives
    the controls' final test accuracy. Not testable (``passed`` False) when the run has no control.
    """
    control = run.lam == 0
    if not control.any():
        return ClaimCheck("no control without weight decay was run", False, {})
    grokked = int(np.sum(np.isfinite(run.t_grok[control])))
    final = run.test_acc[control, -1]
    measured = (f"{grokked}/{int(control.sum())} networks without weight decay reached "
                f"{run.grok_accuracy:.0%} test accuracy within {int(run.steps.max())} steps "
                f"(final test accuracy {', '.join(f'{a:.2f}' for a in final)})")
    return ClaimCheck(measured, grokked == 0, {"final_test_acc": final, "grokked": grokked})
