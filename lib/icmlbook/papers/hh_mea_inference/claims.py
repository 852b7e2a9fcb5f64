"""The chapter's claims, each rule declared once with the alternative it must reject.

Only the paper's abstract was reached (ICML 2026 poster page): its result sentences are quoted below and
mapped to rows. Its numbers beyond the headline 90.4 % were not read, so the paper column holds the
abstract's words or "not reached". Every rule runs on synthetic ground truth; thresholds are in the config.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ...runtime.claims import INCONCLUSIVE_KINDS, ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import (BootstrapInterval, EffectBound, binomial_interval, effect_bound, mean_t_interval,
                              unit_bootstrap)
from ...training import PlateauTest, plateau_from_curve
from .config import PRESETS, HHMEAConfig
from .inference import rank_spread_p, rank_tolerance_p, tolerance_power

GEOMETRY = ("x", "y", "height", "angle")
SPANS, NOT_CONVERGED = INCONCLUSIVE_KINDS[0], INCONCLUSIVE_KINDS[1]
RIDGE = "ridge regression"
#: the plateau test of the gradient fits (C3b, C7): 50 % more steps move the mean log best loss by less than a third
#: of min_log_loss_gain (CLAIMS.md rule 10's default), read back along the logged loss curve
PLATEAU = PlateauTest()

_DROPS = ("cells whose difference is not finite (a fit at loss 0 has log loss -inf, a cell whose measured responses "
          "are all spikes or all non-spikes has no balanced accuracy) are left out and counted; with more than "
          f"max_dropped_frac ({HHMEAConfig().max_dropped_frac:g}) of the cells left out the rule fails")


def paired_effect(d, side: str, level: float = 0.95, threshold: float = 0.0) -> EffectBound:
    """Mean of paired differences over test cells with its two-sided t-interval
    (:func:`~icmlbook.runtime.stats.effect_bound`, minimum effect ``threshold``): ``side="lower"`` passes when the
    interval lies above ``threshold``, ``"upper"`` when below. Non-finite differences are left out and counted
    (``dropped``)."""
    return effect_bound(d, threshold, side=side, level=level, nonfinite="drop")


def _decide(e: EffectBound, cfg: HHMEAConfig, measured: str, values: dict) -> ClaimCheck:
    """The check of a paired rule: its measured text with the count of cells left out (when any), failed with the
    reason when more than ``cfg.max_dropped_frac`` of the cells were."""
    total = e.n + e.dropped
    values = dict(values, dropped=e.dropped, n=e.n)
    if not e.dropped:
        return ClaimCheck(measured, e.passed, values)
    measured += f"; {e.dropped} of {total} cells non-finite, left out"
    if e.dropped > cfg.max_dropped_frac * total:
        return ClaimCheck(measured, False, values,
                          reason=f"{e.dropped} of {total} cells have a non-finite difference, more than "
                                 f"max_dropped_frac = {cfg.max_dropped_frac:g} of them: the interval would stand on a "
                                 "selected subset")
    return ClaimCheck(measured, e.passed, values)


def _decide3(e: EffectBound, cfg: HHMEAConfig) -> bool | None:
    """Rule 9 on a paired interval whose cells left out are within the limit: True when the bound clears the minimum
    effect, False when the whole interval lies on the far side of it, None (interval spans both) otherwise; False
    past max_dropped_frac (the count of cells left out is the rule's own failure, as in :func:`_decide`)."""
    if e.dropped and e.dropped > cfg.max_dropped_frac * (e.n + e.dropped):
        return False
    return e.decision().passed


def _three_way(measured: str, parts: dict, values: dict, kind: str = SPANS, why: str = "") -> ClaimCheck:
    """A rule of several parts (True pass, False evidence against, None undecided): reproduced when all pass, not
    reproduced when one is evidence against, inconclusive (``kind``) otherwise."""
    values = dict(values, parts=dict(parts))
    failed = [k for k, v in parts.items() if v is False]
    if failed:
        return ClaimCheck(measured, False, values, reason="evidence against: " + ", ".join(failed))
    if all(v is True for v in parts.values()):
        return ClaimCheck(measured, True, values)
    open_ = [k for k, v in parts.items() if v is None]
    return ClaimCheck.inconclusive_check(measured, kind, "undecided: " + ", ".join(open_) + (f" ({why})" if why else ""),
                                         values)


def fits_plateau(trace, cfg: HHMEAConfig, name: str):
    """The plateau test of a set of gradient fits from their loss trace (steps + 1, n_cells, k starts): the mean over
    cells of the log of the best start's loss, at the last step against 1/(1 + 0.5) of the way (PLATEAU), margin
    min_log_loss_gain. A loss of 0 is clipped to 1e-12 (log -27.6)."""
    tr = np.asarray(trace, float)
    curve = np.log(np.maximum(tr.reshape(tr.shape[0], tr.shape[1], -1).min(2), 1e-12)).mean(1)
    return plateau_from_curve(np.arange(len(curve)), curve, cfg.min_log_loss_gain, PLATEAU, name=name), curve


#: the NPEs a study trains, by the key of their held-out curves (Study.npe_val_loss), as the rows name them
NPE_NAMES = {"designed": "NPE", "random": "NPE on the random projection"}
NPE_GUARD_RULE = (" NPE's convergence guard (issue 35, session 12; rule 10): the row first reads the held-out loss of "
                  "every NPE it reads (sbi's −log q on its validation simulations, best so far, per epoch) at the last "
                  "epoch against 2/3 of them (PlateauTest, margin npe_loss_margin: a change below 0.05 nats); an NPE "
                  "that fails makes the row inconclusive (not converged) whatever it decided; the reading is in the "
                  "measured text")


def npe_plateau(study, cfg: HHMEAConfig, which: str = "designed"):
    """The plateau test of one NPE (``which``: "designed" or "random") on its held-out loss per epoch
    (``study.npe_val_loss[which]``): the best so far (the network sbi keeps; an early stop leaves it flat), at the last
    epoch against 1/(1 + 0.5) of the epochs (PLATEAU, the fits' test), margin npe_loss_margin. A study without the
    curve is refused (ValueError naming npe_val_loss): a row that reads the NPE cannot show its convergence."""
    curves = getattr(study, "npe_val_loss", None)
    v = None if curves is None or curves.get(which) is None else np.asarray(curves[which], float)
    if v is None or v.ndim != 1 or v.size < 2 or not np.isfinite(v).all():
        raise ValueError(f"the study has no usable npe_val_loss[{which!r}] (the held-out loss of {NPE_NAMES[which]} per "
                         "epoch, >= 2 finite values): the NPE's convergence guard cannot be read")
    best = np.minimum.accumulate(v)
    conv = plateau_from_curve(np.arange(1, v.size + 1), best, cfg.npe_loss_margin, PLATEAU,
                              name=f"{NPE_NAMES[which]} (held-out loss {best[-1]:.3f} nats after {v.size} epochs)")
    return conv


def npe_guarded(*which: str):
    """Put a rule behind the NPE's convergence guard (:func:`npe_plateau` for each NPE in ``which``): the rule's
    measured text gains each reading; when an NPE fails, a decided or inconclusive outcome becomes inconclusive (not
    converged), naming the NPE and what the rule alone said (a row not testable stays so)."""
    def decorate(fn):
        @functools.wraps(fn)
        def guarded(study, cfg: HHMEAConfig) -> ClaimCheck:
            conv = [npe_plateau(study, cfg, w) for w in which]
            check = fn(study, cfg)
            reading = "; ".join(c.text for c in conv)
            measured = reading if check.measured in ("", "—") else f"{check.measured}; {reading}"
            values = dict(check.values, npe_converged={c.name: c.converged for c in conv},
                          npe_loss_change={c.name: c.change for c in conv})
            failed = [c for c in conv if not c.converged]
            if not failed or (check.passed is None and check.inconclusive is None):
                return dataclasses.replace(check, measured=measured, values=values)
            alone = check.verdict + (f": {check.reason}" if check.reason else "")
            return ClaimCheck.inconclusive_check(measured, NOT_CONVERGED, "; ".join(c.text for c in failed)
                                                 + f" (the rule on this NPE alone: {alone})", values)
        return guarded
    return decorate


def _ci_text(e: EffectBound, fmt=".3f"):
    return f"{e.mean:+{fmt}} [{e.lo:+{fmt}}, {e.hi:+{fmt}}]"


#: C1's interval of a root-mean-square error: percentile bootstrap over the SBC cells (resamples, seed)
RMSE_BOOT, RMSE_SEED = 2000, 0


def _ridge_identifies(study, cfg: HHMEAConfig, names: list[str]) -> list[str]:
    """Those of ``names`` that the ridge regression of θ on the designed features (``study.sbc_ridge``, C1's baseline)
    recovers on the SBC cells: the upper end of its error's bootstrap interval (:func:`rmse_interval`, relative to the
    prior range) below sqrt(1 - min_param_contraction) times the prior mean's error (``study.prior_nrmse``), i.e. an
    error variance the contraction minimum would accept of a posterior. Empty without a ridge baseline."""
    ridge = getattr(study, "sbc_ridge", None)
    if ridge is None or not names:
        return []
    span = np.asarray(study.high, float) - np.asarray(study.low, float)
    e_r = (np.asarray(ridge, float) - np.asarray(study.sbc_theta, float)) / span
    limit = np.sqrt(1 - cfg.min_param_contraction) * study.prior_nrmse
    return [n for j, n in enumerate(study.names) if n in names and rmse_interval(e_r[:, j]).hi < limit]


def rmse_interval(err) -> BootstrapInterval:
    """Root-mean-square of per-cell errors ``err`` (n_cells,) with its 95 % percentile bootstrap interval over the
    cells (:func:`~icmlbook.runtime.stats.unit_bootstrap`, RMSE_BOOT resamples, seed RMSE_SEED)."""
    e2 = np.asarray(err, float) ** 2
    return unit_bootstrap(lambda idx: np.sqrt(e2[idx].mean(1)), len(e2), n_boot=RMSE_BOOT, seed=RMSE_SEED)


def _rmse_text(b: BootstrapInterval) -> str:
    return f"{b.estimate:.3f} [{b.lo:.3f}, {b.hi:.3f}]"


@claim_rule("C1", statement="The cell's geometry relative to the array (soma position, height, axon direction) is "
            "identifiable from the designed features of its electrical image.",
            rule="on fresh prior cells observed with the test N, the error (RMSE / prior range) of NPE's posterior mean and "
                 "of a plain ridge regression of θ on the same designed features (trained on the same simulations), each "
                 "with its 95 % percentile bootstrap interval over the cells; a geometric parameter (x, y, height, angle) "
                 "is recovered when the upper end of either estimator's interval is below geom_nrmse (0.1), missed when "
                 "the lower ends of both are above it, undecided otherwise (channel densities reported, not required). "
                 "Reproduced when all four are recovered; a missed parameter is evidence against only when NPE is not "
                 "significantly worse than the ridge regression there (paired over the cells, squared error of NPE minus "
                 "of the ridge regression, 95 % CI lower bound > 0); when it is, the row is inconclusive (not converged: "
                 "the estimator, not the features, failed); with none missed and one undecided, inconclusive (interval "
                 "spans both). The ridge baseline was added under the contract's second edition (an audit found it "
                 "recovers the height with about half NPE's error), the intervals after it (a point RMSE against 0.1 "
                 "before)" + NPE_GUARD_RULE,
            rejects="a posterior that does not concentrate on some geometric parameter (RMSE near the prior's 0.29) while "
                    "no simpler estimator on the same features does better; the prior itself as the posterior",
            paper="infers HH parameters (abstract; per-parameter errors not reached)")
@npe_guarded("designed")
def claim1(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Changed in session 9 (issue 35): each error is an interval (bootstrap over the SBC cells) decided three-way
    # against geom_nrmse; a point RMSE passed at 0.099 on 40 cells. Stricter or inconclusive only.
    names = tuple(study.names)
    missing = [n for n in GEOMETRY if n not in names]  # a geometric parameter not inferred is not shown identifiable
    span = np.asarray(study.high, float) - np.asarray(study.low, float)
    truth = np.asarray(study.sbc_theta, float)
    e_n = (np.asarray(study.sbc_samples, float).mean(1) - truth) / span
    npe = {n: rmse_interval(e_n[:, j]) for j, n in enumerate(names)}
    ridge = getattr(study, "sbc_ridge", None)
    r_b, beaten = {}, {}
    if ridge is not None:
        e_r = (np.asarray(ridge, float) - truth) / span
        for j, n in enumerate(names):
            r_b[n] = rmse_interval(e_r[:, j])
            beaten[n] = effect_bound(e_n[:, j] ** 2 - e_r[:, j] ** 2, 0.0, side="lower")
    geo = [n for n in GEOMETRY if n in names]
    other = [n for n in names if n not in GEOMETRY]

    def status(n):
        ds = [b.decision(cfg.geom_nrmse, side="upper").passed for b in (npe[n], r_b.get(n)) if b is not None]
        return True if any(d is True for d in ds) else (False if all(d is False for d in ds) else None)

    state = {n: status(n) for n in geo}
    missed = [n for n, v in state.items() if v is False]
    undecided = [n for n, v in state.items() if v is None]
    artefact = [n for n in missed if n in beaten and beaten[n].passed]
    txt = ("error / prior range with 95 % bootstrap intervals: geometry "
           + ", ".join(f"{n} {_rmse_text(npe[n])}" + (f" (ridge {_rmse_text(r_b[n])})" if n in r_b else "") for n in geo)
           + (f" (not inferred: {', '.join(missing)})" if missing else "") + "; others "
           + ", ".join(f"{n} {npe[n].estimate:.3f}" for n in other) + f" (prior mean: {study.prior_nrmse:.3f}; "
           f"{len(truth)} cells, N = {study.n_spikes}; limit {cfg.geom_nrmse:g})"
           + ("" if ridge is not None else "; no ridge baseline in this study"))
    values = {"nrmse": {n: b.estimate for n, b in npe.items()}, "nrmse_ridge": {n: b.estimate for n, b in r_b.items()},
              "nrmse_interval": {n: (b.lo, b.hi) for n, b in npe.items()},
              "nrmse_ridge_interval": {n: (b.lo, b.hi) for n, b in r_b.items()},
              "missed": missed, "undecided": undecided, "ridge_beats_npe": artefact}
    if missing:
        return ClaimCheck(txt, False, values, reason=f"not inferred: {', '.join(missing)}")
    if not missed and not undecided:
        return ClaimCheck(txt, True, values)
    against = [n for n in missed if n not in artefact]
    if against:
        return ClaimCheck(txt, False, values, reason=f"{', '.join(against)} missed by NPE and by the ridge regression "
                          f"(both intervals above {cfg.geom_nrmse:g}), NPE not worse than the ridge there")
    if artefact:
        return ClaimCheck.inconclusive_check(
            txt, NOT_CONVERGED, f"{', '.join(artefact)} above {cfg.geom_nrmse:g} for both estimators, but NPE is "
            "significantly worse than a ridge regression on the same features there ("
            + ", ".join(f"{n}: squared-error difference {beaten[n].mean:+.4f} [{beaten[n].lo:+.4f}, {beaten[n].hi:+.4f}]"
                        for n in artefact) + "): the miss is the estimator's, not shown to be the features'", values)
    return ClaimCheck.inconclusive_check(txt, SPANS, f"{', '.join(undecided)}: the error's interval contains "
                                         f"{cfg.geom_nrmse:g} ({len(truth)} cells)", values)


@functools.lru_cache(maxsize=8)
def _full_power(n_obs: int, n_samples: int, wide: float, tol: float, level: float) -> float:
    """:func:`tolerance_power` at ``full``'s size, a projection for the page: 300 simulated rank sets (about +-0.03 near
    0.98) and 5,000 Monte Carlo sets in the test (p-values to 2e-4, below full's level of 1.1e-3); about 1.5 s of CPU
    where the run's own test, 20,000 sets at 500 cells, would take 6."""
    return tolerance_power(n_obs, n_samples, wide, tol, level, reps=300, draws=5000)


def _decided_at_full(cfg: HHMEAConfig) -> str:
    """Where this profile's SBC cells are too few for C1c's power (CLAIMS.md rule 12, session 15): the power of the same
    test at ``full``'s cells, samples per cell and level (its sbc_alpha over its free parameters), so the row says where
    it is decided."""
    full = PRESETS["full"]
    if full.n_sbc <= cfg.n_sbc:
        return ""
    p_full = _full_power(full.n_sbc, full.sbc_samples, full.sbc_wide, full.sbc_width_tol, full.sbc_alpha / len(full.free))
    if p_full >= full.sbc_power:
        return f"; decided at full ({full.n_sbc} SBC cells: power {p_full:.2f})"
    return f"; full's {full.n_sbc} SBC cells reach power {p_full:.2f} only"


@claim_rule("C1c", statement="The amortised posterior is calibrated.",
            rule="SBC ranks uniform by a χ² test, and their spread (variance of the normalised ranks) not different from "
                 "uniform ranks' by a two-sided Monte Carlo test, each at level sbc_alpha (0.01) Bonferroni-divided over "
                 "the parameters; every parameter's 90 % central-interval coverage within coverage_tol (0.1) of 0.9; "
                 "inconclusive (noise above effect) when the tolerance-aware spread test below would reject a posterior "
                 "sbc_wide (1.5) times too wide with probability below sbc_power (0.8) at this number of SBC cells. "
                 "Not reproduced only on evidence against (session 10, an outside review: a calibrated posterior failed "
                 "the point coverage 1 time in 10 on smoke's 40 cells): a rank test rejecting beyond the width "
                 "tolerance, or a parameter whose coverage's exact (Clopper-Pearson) interval, at family level 95 % "
                 "Bonferroni-divided over the parameters, lies wholly outside 0.9 ± coverage_tol; a coverage outside the "
                 "window whose interval reaches into it is inconclusive (interval spans both). Width tolerance (session "
                 "11, an outside review: a posterior 1.15 times too wide, inside the coverage tolerance, was 'not "
                 "reproduced' 16 times in 40 at 100 cells, because both rank tests test exact calibration): a rank test "
                 "rejecting exact calibration counts against only when, at the same level, it also rejects a Gaussian "
                 "posterior sbc_width_tol (1.25) times too wide or 1/sbc_width_tol too narrow (Monte Carlo on the "
                 "Gaussian toy: the spread two-sided on the side the data fall, too small a spread beyond 1.25 times too "
                 "wide or too large beyond 1/1.25; the χ² statistic larger than both edges make it); a rejection within "
                 "the tolerance is inconclusive (interval spans both). 1.25 times too wide gives 90 % coverage 0.96, "
                 "1/1.25 0.81: inside coverage_tol, and short of the declared alternative 1.5. Changed in session 13: "
                 "calibration only. Until then the row also decided whether the posterior is informative (the mean "
                 "contraction, added under the contract's second edition, and each parameter's, session 12), so an "
                 "'inconclusive' did not say which half was open; those parts, the ridge baseline's reading included, "
                 "moved unchanged to row C1d. The prior itself as the posterior is calibrated by construction and may "
                 "pass this row; it fails C1d, and the claim of a calibrated posterior that says something about the "
                 "cell needs both rows" + NPE_GUARD_RULE,
            rejects="an over- or under-confident posterior (U- or ∩-shaped ranks, too large or too small a rank spread, "
                    "coverage off by more than 0.1), e.g. a posterior 1.5 times too wide; as the trivial method, a point "
                    "estimator on the same features (the ridge regression) with its estimate reported as the posterior, "
                    "the most over-confident posterior there is (the prior itself, calibrated by construction, is not "
                    "rejected here but by C1d)",
            paper="not reached")
@npe_guarded("designed")
def claim1c(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Changed in session 5 (the second review): a posterior too wide could not fail (90 % coverage <= 1.0 is always
    # within 0.1 of 0.9, and the 10-bin χ² has little power); the rank-spread test and its power check added.
    # Changed in session 11 (an outside review; CLAIMS.md rule 9): a rank test's rejection is evidence against only
    # beyond the width tolerance sbc_width_tol; the power check refers to that test. Stricter or inconclusive only.
    # Changed in session 13: calibration only; the informativeness parts (mean and per-parameter contraction, the ridge
    # baseline's reading) are row C1d (claim1d), unchanged.
    p = np.asarray(study.sbc_p)
    cov = np.asarray(study.coverage90)
    ranks = np.asarray(study.sbc_ranks)
    n_obs, L = ranks.shape[0], np.asarray(study.sbc_samples).shape[1]
    level = cfg.sbc_alpha / len(p)
    ps = rank_spread_p(ranks, L)
    ps_tol, pc_tol = rank_tolerance_p(ranks, L, cfg.sbc_width_tol)
    power = tolerance_power(n_obs, L, cfg.sbc_wide, cfg.sbc_width_tol, level)
    # session 10 (an outside review): the coverage decided three-way on its exact interval; a point coverage of 0.78
    # on 40 cells (interval [0.62, 0.89]) was 'not reproduced' although a calibrated posterior gives it 1 time in 10
    cov_ci = [binomial_interval(int(round(c * n_obs)), n_obs, 1 - 0.05 / len(cov)) for c in cov]
    lo_ok, hi_ok = 0.9 - cfg.coverage_tol, 0.9 + cfg.coverage_tol
    cov_against = [n for n, (a, b) in zip(study.names, cov_ci) if b < lo_ok or a > hi_ok]

    def rank_part(p_exact, p_tol):
        return True if (p_exact >= level).all() else (False if (p_tol < level).any() else None)

    parts = {"rank uniformity (chi-squared)": rank_part(p, pc_tol),
             "rank spread": rank_part(ps, ps_tol),
             "90 % coverage": True if (np.abs(cov - 0.9) <= cfg.coverage_tol).all() else (False if cov_against else None)}
    ok = all(v is True for v in parts.values())
    txt = ("SBC p " + ", ".join(f"{n} {v:.3f}" for n, v in zip(study.names, p)) + "; rank-spread p "
           + ", ".join(f"{n} {v:.3f}" for n, v in zip(study.names, ps)) + "; 90 % coverage "
           + ", ".join(f"{n} {v:.2f}" for n, v in zip(study.names, cov))
           + (f"; against a posterior {cfg.sbc_width_tol:g}× too wide or 1/{cfg.sbc_width_tol:g} too narrow (the width "
              "tolerance): spread p " + ", ".join(f"{n} {v:.3f}" for n, v in zip(study.names, ps_tol)) + ", χ² p "
              + ", ".join(f"{n} {v:.3f}" for n, v in zip(study.names, pc_tol)) if not ((p >= level).all() and
                                                                                    (ps >= level).all()) else "")
           + f"; power against a posterior {cfg.sbc_wide:g}× too wide, beyond the tolerance, {power:.2f} ({n_obs} "
           f"cells; level {level:.4f} per parameter); whether the posterior is narrower than the prior: row C1d")
    values = {"spread_p": ps.tolist(), "spread_p_tol": ps_tol.tolist(), "chi2_p_tol": pc_tol.tolist(), "power": power,
              "coverage_interval": [list(c) for c in cov_ci]}
    if parts["90 % coverage"] is not True:
        txt += ("; coverage's exact intervals (family 95 %) " + ", ".join(f"{n} [{a:.2f}, {b:.2f}]" for n, (a, b) in
                                                                        zip(study.names, cov_ci)))
    if ok and power < cfg.sbc_power:
        return ClaimCheck.inconclusive_check(txt, "noise above effect", f"{n_obs} SBC cells: the rank-spread test "
                                             f"shows a posterior {cfg.sbc_wide:g}× too wide to lie beyond the width "
                                             f"tolerance ({cfg.sbc_width_tol:g}×) with probability {power:.2f} only "
                                             f"(below {cfg.sbc_power:g}){_decided_at_full(cfg)}",
                                             dict(values, parts=dict(parts)))
    if ok:
        return ClaimCheck(txt, True, dict(values, parts=dict(parts)))
    why = []
    if parts["90 % coverage"] is None:
        why.append(f"the coverage outside {lo_ok:g}-{hi_ok:g} at "
                   + ", ".join(n for n, c in zip(study.names, cov) if abs(c - 0.9) > cfg.coverage_tol)
                   + ", but its interval reaches into the window")
    for k in ("rank uniformity (chi-squared)", "rank spread"):
        if parts[k] is None:
            why.append(f"{k} rejects exact calibration but not a posterior within the width tolerance "
                       f"({cfg.sbc_width_tol:g}× too wide to 1/{cfg.sbc_width_tol:g})")
    return _three_way(txt, parts, values, why="; ".join(why) + f" ({n_obs} SBC cells)")


@claim_rule("C1d", statement="The amortised posterior is informative: narrower than the prior on average and on every "
            "inferred parameter (without it, C1c's calibration is the prior's, not the network's).",
            rule="the posterior's contraction, 1 - posterior variance / the box prior's variance on the SBC cells (fresh "
                 "prior cells, the test N): averaged over the parameters, >= min_contraction (0.2) (added to C1c under "
                 "the contract's second edition: the prior itself, calibrated by construction, passed the calibration "
                 "rule); and on every parameter the claim covers (all free parameters; added to C1c in session 12, an "
                 "outside review: a posterior learning x, y and angle and returning the prior on the other six, mean "
                 "contraction 0.34, read 'reproduced' at 500 cells): each parameter's contraction, a mean over the SBC "
                 "cells, >= min_param_contraction (0.2) on its t-interval at family level 95 % Bonferroni-divided over "
                 "the parameters; a parameter whose interval lies wholly below is prior-like (its calibration is the "
                 "prior's) and counts against, one whose interval contains the minimum is undecided (interval spans "
                 "both); a prior-like parameter that a ridge regression on the same features recovers (its error's "
                 "bootstrap upper end below sqrt(1 - min_param_contraction) of the prior mean's) is undecided too, our "
                 "NPE's miss rather than evidence against (session 12). Not reproduced on the mean contraction's "
                 "95 % t-interval over the SBC cells (of each cell's contraction averaged over the parameters) lying "
                 "wholly below its minimum, or a prior-like parameter the ridge does not recover; inconclusive (interval "
                 "spans both) when neither and the mean's interval contains its minimum or some parameter is undecided "
                 "(changed in session 14: the mean was a point test, so a posterior informative on the cells near the "
                 "array and prior-like on the far ones, mean 0.195 on an interval reaching 0.23, read 'not "
                 "reproduced'). Changed in session 13: these parts were decided inside C1c together with calibration "
                 "until then; split into this row, their logic unchanged, so that each row's 'inconclusive' names one "
                 "question. A posterior as narrow as a point passes this row and is judged by "
                 "C1c" + NPE_GUARD_RULE,
            rejects="the prior itself as the posterior (contraction 0 on every parameter: the trivial method), or a "
                    "posterior that is the prior on some of the parameters while the features do not identify them "
                    "either (a ridge regression on them no better than the prior mean); an over-confident posterior "
                    "(narrow but wrong) is not rejected here but by C1c",
            paper="infers HH parameters (abstract; posterior widths not reached)")
@npe_guarded("designed")
def claim1d(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Session 13: split from C1c (its informativeness parts, unchanged: the mean contraction of the contract's second
    # edition, the per-parameter interval and the ridge baseline's reading of session 12).
    names = list(study.names)
    samples = np.asarray(study.sbc_samples, float)
    var_prior = (np.asarray(study.high, float) - np.asarray(study.low, float)) ** 2 / 12
    contraction = 1 - samples.var(1).mean(0) / var_prior
    # session 12 (an outside review): each parameter decided on its own, on the t-interval of the per-cell contraction
    # (its mean is ``contraction``) at family level 95 %, so a posterior that is the prior on some parameters fails
    per_cell = 1 - samples.var(1) / var_prior
    con_ci = [mean_t_interval(per_cell[:, j], 1 - 0.05 / len(names)) for j in range(per_cell.shape[1])]
    prior_like = [n for n, c in zip(names, con_ci) if c.hi < cfg.min_param_contraction]
    con_open = [n for n, c in zip(names, con_ci) if c.lo < cfg.min_param_contraction <= c.hi]
    # session 12 (the lead, after the default run): a prior-like parameter counts against only when the features do not
    # identify it either: a ridge regression of θ on the same designed features (C1's baseline) whose error, upper end
    # of its bootstrap interval, is below what min_param_contraction asks of a posterior (error variance at most
    # 1 - min_param_contraction of the prior's) shows the information is in the features and our NPE misses it (the
    # audit's finding for height: NPE 0.26 of the range, ridge 0.11) - inconclusive, not evidence against the claim
    ridge_finds = _ridge_identifies(study, cfg, prior_like)
    prior_like_against = [n for n in prior_like if n not in ridge_finds]
    # session 14 (a review of the recent rules; CLAIMS.md rule 9): the mean contraction on its 95 % t-interval over the
    # SBC cells (each cell's contraction averaged over the parameters; its mean is the mean of ``contraction``),
    # three-way: a point test read a mean of 0.195 whose interval reached 0.23 as evidence against
    mean_ci = mean_t_interval(per_cell.mean(1), 0.95)
    parts = {"contraction": (True if mean_ci.lo >= cfg.min_contraction else
                             (False if mean_ci.hi < cfg.min_contraction else None)),
             "each parameter informative": (False if prior_like_against else
                                            (None if con_open or ridge_finds else True))}
    txt = ("posterior contraction " + ", ".join(f"{n} {v:.2f}" for n, v in zip(names, contraction))
           + f" (mean {contraction.mean():.2f} [{mean_ci.lo:.2f}, {mean_ci.hi:.2f}], at least {cfg.min_contraction:g} "
             f"asked; each parameter at least {cfg.min_param_contraction:g}: "
           + (f"prior-like, its interval below, {', '.join(prior_like)}"
              + (f" (of which a ridge regression on the same features recovers {', '.join(ridge_finds)})"
                 if ridge_finds else "") + "; " if prior_like else "")
           + (f"undecided, its interval containing it, {', '.join(con_open)}; " if con_open else "")
           + ("informative " + (", ".join(n for n in names if n not in prior_like + con_open) or "none"))
           + f"; {len(samples)} SBC cells, {samples.shape[1]} samples each)")
    values = {"contraction": contraction.tolist(), "contraction_mean": float(contraction.mean()),
              "contraction_mean_interval": [mean_ci.lo, mean_ci.hi],
              "contraction_interval": [[c.lo, c.hi] for c in con_ci], "prior_like": prior_like,
              "prior_like_ridge_identifies": ridge_finds}
    why = []
    if parts["contraction"] is None:
        why.append(f"the mean contraction's 95 % interval [{mean_ci.lo:.2f}, {mean_ci.hi:.2f}] contains min_contraction "
                   f"({cfg.min_contraction:g})")
    if parts["each parameter informative"] is None and con_open:
        why.append(f"the contraction's interval contains min_param_contraction ({cfg.min_param_contraction:g}) at "
                   + ", ".join(con_open))
    if parts["each parameter informative"] is None and ridge_finds:
        why.append("the posterior is prior-like at " + ", ".join(ridge_finds) + ", which a ridge regression on the same "
                   "features recovers: our NPE's miss, not evidence against the claim")
    return _three_way(txt, parts, values, why="; ".join(why) + f" ({len(samples)} SBC cells)")


@claim_rule("C2", statement="Designed features carry more information about θ than an equal-dimension summary of "
            "the raw image.",
            rule="paired over the SBC cells, log q(θ_true | designed features) - log q(θ_true | random projection of the "
                 "z-scored EI, same dimension, same simulations and training): 95 % CI lower bound > 0; " + _DROPS + NPE_GUARD_RULE,
            rejects="a random projection of the raw image that is as informative (difference <= 0)",
            paper="designed features of extracellular MEA measurements (abstract; no comparison reached)")
@npe_guarded("designed", "random")
def claim2(study, cfg: HHMEAConfig) -> ClaimCheck:
    e = paired_effect(np.asarray(study.logq_designed) - np.asarray(study.logq_random), "lower")
    return _decide(e, cfg, f"mean log q: designed {np.mean(study.logq_designed):.2f}, random projection "
                           f"{np.mean(study.logq_random):.2f}; difference {_ci_text(e, '.2f')} nats",
                   {"diff": e.mean, "lo": e.lo})


@claim_rule("C3", statement="Gradient refinement through the differentiable simulator improves NPE's parameter "
            "estimates.",
            rule="paired over test cells, parameter error (RMSE / prior range) of the refined samples' mean minus that of "
                 "NPE's own estimate, its posterior mean (sbc_samples draws), and minus that of the mean of the same k "
                 "NPE samples before refinement: both 95 % CI upper bounds < −min_theta_gain (0.01 of the prior range); "
                 "not reproduced when one interval lies wholly above it, inconclusive (interval spans both) otherwise "
                 "(three-way since the contract's second edition); " + _DROPS + NPE_GUARD_RULE,
            rejects="refinement that fits the noise without moving θ closer to the truth, or that only beats the mean of "
                    "its k starting samples while NPE's posterior mean is as good (a difference >= 0)",
            paper="leveraging differentiable biophysical simulation (abstract; no number)")
@npe_guarded("designed")
def claim3(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Changed in session 5 (an earlier review): the baseline was the mean of the k refined starting samples only, a
    # noisier estimate than NPE's posterior mean; now refinement must beat both (stricter only).
    k = study.refined.shape[1]
    e_k = study.param_error(study.npe_samples[:, :k].mean(1))
    e_ref = study.param_error(study.refined.mean(1))
    pm = getattr(study, "npe_mean", None)
    if pm is None:
        return ClaimCheck("—", None, reason="the study has no NPE posterior mean (npe_mean) to compare with")
    e_pm = study.param_error(pm)
    e = paired_effect(e_ref - e_pm, "upper", threshold=-cfg.min_theta_gain)
    ek = paired_effect(e_ref - e_k, "upper", threshold=-cfg.min_theta_gain)
    c_pm = _decide(e, cfg, "", {})
    c_k = _decide(ek, cfg, "", {})
    notes = "".join(dict.fromkeys(c.measured for c in (c_pm, c_k) if c.measured))
    measured = (f"parameter error: NPE posterior mean {e_pm.mean():.3f}, mean of the {k} starting samples "
                f"{e_k.mean():.3f} → refined {e_ref.mean():.3f}; difference to the posterior mean {_ci_text(e)}, to "
                f"the starting samples {_ci_text(ek)}{notes}; feature loss {np.mean(study.loss_npe):.3f} → "
                f"{np.mean(study.loss_refined):.3f}")
    values = {"diff": e.mean, "diff_k": ek.mean, "dropped": e.dropped}
    if c_pm.reason or c_k.reason:                 # too many cells left out: the rule's own failure
        return ClaimCheck(measured, False, values, reason=c_pm.reason or c_k.reason)
    # three-way since the contract's second edition (rule 9): an interval spanning −min_theta_gain is inconclusive
    return _three_way(measured, {"refined minus the posterior mean": _decide3(e, cfg),
                                 "refined minus the starting samples": _decide3(ek, cfg)}, values,
                      why=f"{len(e_ref)} test cells")


@claim_rule("C3b", statement="Starting gradient fits from the amortised posterior beats gradient-only fitting from "
            "random starts (which gets stuck).",
            rule="paired over test cells, log of the refined fit's best feature loss minus log of the gradient-only best "
                 "of as many random prior starts with the same steps: 95 % CI upper bound < −min_log_loss_gain (0.1), not "
                 "reproduced when the CI lies above it, inconclusive (interval spans both) otherwise; " + _DROPS + ". "
                 "Both sets of fits must first pass the plateau test (added under the contract's second edition: with "
                 "the same 40 steps for both, 'gets stuck' could not be told from 'not converged'): the mean over cells "
                 "of the log best loss moves by less than min_log_loss_gain / 3 between 1/1.5 of the steps and the last; "
                 "otherwise the row is inconclusive (not converged)" + NPE_GUARD_RULE,
            rejects="random-restart gradient fits that reach the same loss (a difference above −0.1); random starts that "
                    "are still descending when the budget ends (not stuck: inconclusive); the prior in NPE's place",
            paper="not reached")
@npe_guarded("designed")
def claim3b(study, cfg: HHMEAConfig) -> ClaimCheck:
    best_ref = np.min(study.loss_refined, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):     # a loss of 0 gives -inf: counted by _decide
        d = np.log(best_ref) - np.log(study.loss_gradient_only)
    e = paired_effect(d, "upper", threshold=-cfg.min_log_loss_gain)
    check = _decide(e, cfg, f"best feature loss: NPE-initialised {np.median(best_ref):.3f}, gradient-only "
                            f"{np.median(study.loss_gradient_only):.3f} (medians); log-ratio {_ci_text(e, '.2f')} "
                            f"(minimum effect −{cfg.min_log_loss_gain:g})", {"diff": e.mean})
    traces = (getattr(study, "loss_trace", None), getattr(study, "loss_trace_gradient_only", None))
    if any(t is None for t in traces):
        return ClaimCheck.inconclusive_check(check.measured, NOT_CONVERGED, "the study has no loss traces of both "
                                             "sets of fits: their convergence cannot be checked", check.values)
    conv = [fits_plateau(t, cfg, n)[0] for t, n in zip(traces, ("NPE-started fits", "random-start fits"))]
    measured = check.measured + "; " + "; ".join(c.text for c in conv)
    values = dict(check.values, converged={c.name: c.converged for c in conv})
    if check.reason:                               # too many cells left out: the rule's own failure
        return ClaimCheck(measured, False, values, reason=check.reason)
    failed = [c for c in conv if not c.converged]
    if failed:
        return ClaimCheck.inconclusive_check(measured, NOT_CONVERGED, "; ".join(c.text for c in failed), values)
    return _three_way(measured, {"log loss ratio": _decide3(e, cfg)}, values)


MAIN = "NPE + refinement"


@claim_rule("C4", statement="Models inferred from the electrical image alone predict spike / no spike for held-out "
            "multi-electrode patterns accurately.",
            rule="accuracy of NPE + refinement (mean over test cells, 95 % t-interval over the cells) above acc_target "
                 "(0.85): lower end > 0.85 (upper end < 0.85 is evidence against, between inconclusive; a point mean "
                 "against 0.85 before session 9), within oracle_gap (0.05) of the "
                 "true-θ oracle (paired over cells, oracle minus model: 95 % CI upper bound < 0.05; lower bound > 0.05 "
                 "is evidence against, between inconclusive; a point comparison before the contract's second "
                 "edition), and above the prior-mean cell: paired 95 % CI lower bound of the balanced-accuracy "
                 "difference > min_acc_gain (0.01); " + _DROPS + ". A miss of the target or of the oracle gap is evidence "
                 "against only when the cell a ridge regression on the same features infers is not significantly more "
                 "accurate (paired over cells, ridge cell minus NPE + refinement, 95 % CI lower bound > 0); when it is, "
                 "the miss is NPE's (an audit found NPE's height error twice the ridge's) and the row is inconclusive "
                 "(not converged; added under the contract's second edition); the paired gain decided three-way (interval "
                 "spans both: inconclusive)" + NPE_GUARD_RULE,
            rejects="a model no better than the population-average cell placed at the EI's centre; the prior-mean cell "
                    "itself in the model's place",
            paper="90.4% accuracy on unseen multi-electrode patterns (macaque retina; not comparable to synthetic cells)")
@npe_guarded("designed")
def claim4(study, cfg: HHMEAConfig) -> ClaimCheck:
    acc = study.accuracy
    a, o = acc[MAIN].mean(), acc["oracle"].mean()
    e = paired_effect(study.balanced_accuracy[MAIN] - study.balanced_accuracy["prior-mean"], "lower",
                      threshold=cfg.min_acc_gain)
    others = ", ".join(f"{k} {v.mean():.3f}" for k, v in acc.items() if k != MAIN)
    check = _decide(e, cfg, f"accuracy {a:.3f} (balanced {np.nanmean(study.balanced_accuracy[MAIN]):.3f}, AUC "
                            f"{study.auc[MAIN]:.3f}); {others}; gap to the oracle {o - a:+.3f}; balanced-accuracy gain "
                            f"over prior-mean {_ci_text(e)}", {"accuracy": a, "oracle": o})
    values = dict(check.values)
    if check.reason:                              # too many cells left out: the rule's own failure
        return ClaimCheck(check.measured, False, values, reason=check.reason)
    eg = effect_bound(np.asarray(acc["oracle"]) - np.asarray(acc[MAIN]), cfg.oracle_gap, side="upper")
    gap = eg.decision().passed
    # session 9 (issue 35): the target is an interval too (a mean of 0.851 on five cells passed before)
    et = effect_bound(np.asarray(acc[MAIN]), cfg.acc_target, side="lower", nonfinite="drop")
    target = et.decision().passed
    level = False if False in (target, gap) else (True if target is True and gap is True else None)
    values["accuracy_interval"] = (et.lo, et.hi)
    kind, measured = SPANS, (check.measured + f"; accuracy {_ci_text(et)} (target {cfg.acc_target:g}); oracle minus "
                             f"model, paired {_ci_text(eg)} (limit {cfg.oracle_gap:g})")
    if level is not True and RIDGE in acc:
        er = paired_effect(np.asarray(acc[RIDGE]) - np.asarray(acc[MAIN]), "lower")
        values["ridge_minus_model"] = er.mean
        measured += f"; ridge-regression cell minus NPE + refinement {_ci_text(er)}"
        if er.passed:                             # the miss is NPE's: the ridge regression's cell does better
            level, kind = None, NOT_CONVERGED
    return _three_way(measured, {"accuracy target and oracle gap": level,
                                 "balanced-accuracy gain over the prior-mean cell": _decide3(e, cfg)}, values, kind=kind,
                      why="the cell a ridge regression on the same features infers is significantly more accurate than "
                          "NPE + refinement: the miss is NPE's" if kind == NOT_CONVERGED else
                          f"{len(acc[MAIN])} test cells")


@claim_rule("C5", statement="The biophysical model captures non-additive interactions of opposite-polarity "
            "electrodes that a linear-summation model fitted to single-electrode responses misses.",
            rule="paired over test cells: on mixed-polarity patterns, accuracy of NPE + refinement minus that of linear "
                 "summation, 95 % CI lower bound > min_acc_gain (0.01); and that gain minus the same gain on same-polarity "
                 "patterns (the non-additive part), 95 % CI lower bound > min_acc_gain; and the same interaction on the "
                 "scale of error counts, where removing the same share of linear summation's errors on every pattern "
                 "scores 0: log((model's errors + ½) / (linear summation's errors + ½)) on mixed minus on same-polarity "
                 "patterns, 95 % CI upper bound < −min_log_error_ratio (0.1); " + _DROPS + ". Not reproduced when one "
                 "interval lies wholly on the far side of its minimum effect, inconclusive (interval spans both) when "
                 "none does and one spans it (three-way since the contract's second edition). Linear summation is "
                 "signed: each polarity's drive is linear in the signed currents, max(Σ c/T⁺, Σ −c/T⁻), so opposite "
                 "currents cancel (an audit found the former baseline, Σ |c|/T^sign(c), could never cancel)" + NPE_GUARD_RULE,
            rejects="linear summation of single-electrode thresholds being as accurate on mixed polarities, or a model that "
                    "beats it by as much on same-polarity patterns, or that removes the same share of its errors on both "
                    "(a better cell model, not non-additive interactions)",
            paper="not reached")
@npe_guarded("designed")
def claim5(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Changed in session 5 (an earlier review): the rule asked only for a gain on mixed patterns, which a model
    # better everywhere also has; the gain must now be larger on mixed than on same-polarity patterns (stricter only).
    gm = study.accuracy_mixed[MAIN] - study.accuracy_mixed["linear summation"]
    gs = study.accuracy_same[MAIN] - study.accuracy_same["linear summation"]
    e = paired_effect(gm, "lower", threshold=cfg.min_acc_gain)
    es = paired_effect(gs, "lower")                                                     # reported
    ed = paired_effect(gm - gs, "lower", threshold=cfg.min_acc_gain)
    # The interaction on the scale of error counts (a third session-5 change, after a second pass of the review: in
    # accuracy a uniformly better model gains more where linear summation errs more, which is on mixed patterns).
    mixed, amps = getattr(study, "mixed", None), getattr(study, "amplitudes", None)
    if mixed is None or amps is None:
        return ClaimCheck("—", None, reason="the study lacks the pattern polarities or amplitudes (condition counts)")
    n_m = np.asarray(mixed).sum(1) * len(amps)
    n_s = (~np.asarray(mixed, bool)).sum(1) * len(amps)

    def log_ratio(acc, n):
        return (np.log((1 - np.asarray(acc[MAIN])) * n + 0.5) - np.log((1 - np.asarray(acc["linear summation"])) * n + 0.5))

    er = paired_effect(log_ratio(study.accuracy_mixed, n_m) - log_ratio(study.accuracy_same, n_s), "upper",
                       threshold=-cfg.min_log_error_ratio)
    checks = [_decide(x, cfg, "", {}) for x in (e, ed, er)]
    notes = "".join(dict.fromkeys(c.measured for c in checks if c.measured))
    parts = {"mixed-polarity gain": _decide3(e, cfg), "gain interaction": _decide3(ed, cfg),
             "error-ratio interaction": _decide3(er, cfg)}
    return _three_way(f"mixed polarity: {study.accuracy_mixed[MAIN].mean():.3f} vs linear "
                      f"{study.accuracy_mixed['linear summation'].mean():.3f}, difference {_ci_text(e)}; same polarity: "
                      f"{study.accuracy_same[MAIN].mean():.3f} vs {study.accuracy_same['linear summation'].mean():.3f}, "
                      f"{_ci_text(es)}; mixed gain minus same gain {_ci_text(ed)}; log error ratio (model / linear) on "
                      f"mixed minus on same {_ci_text(er, '.2f')} (minimum effect −{cfg.min_log_error_ratio:g}){notes}",
                      parts, {"diff": e.mean, "interaction": ed.mean, "log_ratio_interaction": er.mean,
                              "dropped": ed.dropped},
                      why=f"{len(study.accuracy_mixed[MAIN])} test cells")


@claim_rule("C6", statement="A few minutes of recording suffice: the accuracy of models fit from a few minutes' "
            "electrical image is only mildly below that from a much longer recording (recording length read as spikes "
            "at a firing rate of ours).",
            rule="spike counts from recording lengths at firing_rate_hz (10 Hz, ours): a few minutes read at the low end, "
                 "few_minutes (2 min: 1200 spikes), against long_minutes (40 min: 24,000 spikes); paired over test "
                 "cells: NPE accuracy from the few minutes minus from the long recording, 95 % CI lower bound > "
                 "−mild_drop (0.05); and NPE accuracy from the few minutes minus the prior-mean cell's, 95 % CI lower "
                 "bound > min_acc_gain (0.01); " + _DROPS + ". Not reproduced when an interval lies wholly on the far "
                 "side of its limit, inconclusive (interval spans both) when none does and one spans it; not testable "
                 "when the sweep has no point at either length. The sweep's fewest spikes (300: 30 s at default since session 14; 30: 3 s at full) are "
                 "reported, not decided (session 9, issue 35: the row compared 30 spikes with 3000, and 3 s of recording "
                 "is not what the abstract claims to suffice)" + NPE_GUARD_RULE,
            rejects="accuracy that falls by more than 0.05 from a long recording to a few minutes, or an NPE from a few "
                    "minutes no better than the population-average cell (the EI then carries nothing)",
            paper="HH models fit from only a few minutes of recording (abstract)")
@npe_guarded("designed")
def claim6(study, cfg: HHMEAConfig) -> ClaimCheck:
    # Changed in session 5 (the second review): a point comparison of means on 5-20 cells, and mild_drop larger than
    # the whole informative range at smoke (prior-mean cell 0.860 vs NPE 0.892); now paired bounds, and the fewest
    # spikes must still beat the prior-mean cell (stricter only). Changed in session 9 (issue 35): the compared
    # lengths are a few minutes against a long recording, as spike counts at a declared firing rate, not the sweep's
    # ends (30 spikes, 3 s, against 3000, 5 min).
    sweep = np.asarray(study.sweep_accuracy)
    ns = [int(n) for n in study.sweep_n]
    acc = sweep.mean(1)
    n_few, n_long = cfg.spikes_in(cfg.few_minutes), cfg.spikes_in(cfg.long_minutes)

    def minutes(n):
        m = n / cfg.firing_rate_hz / 60
        return f"{m:.0f} min" if m >= 1 else f"{m * 60:.0f} s"

    curve = ("NPE accuracy " + ", ".join(f"N={n} ({minutes(n)}): {a:.3f}" for n, a in zip(ns, acc))
             + f" (at {cfg.firing_rate_hz:g} Hz, ours)")
    absent = [n for n in (n_few, n_long) if n not in ns]
    if absent:
        return ClaimCheck(curve, None, {"acc": acc.tolist()},
                          reason=f"the sweep has no point at {' or '.join(f'N = {n} ({minutes(n)})' for n in absent)}: "
                                 "a few minutes against a long recording cannot be read at this profile")
    few, long_ = sweep[ns.index(n_few)], sweep[ns.index(n_long)]
    e_drop = effect_bound(few - long_, -cfg.mild_drop, side="lower", nonfinite="drop")
    e_pm = paired_effect(few - np.asarray(study.accuracy["prior-mean"]), "lower", threshold=cfg.min_acc_gain)
    c_d, c_p = _decide(e_drop, cfg, "", {}), _decide(e_pm, cfg, "", {})
    i0 = int(np.argmin(ns))
    fewest = effect_bound(sweep[i0] - long_, -cfg.mild_drop, side="lower", nonfinite="drop")
    return _three_way(curve + f"; {minutes(n_few)} minus {minutes(n_long)} {_ci_text(e_drop)} (limit "
                      f"−{cfg.mild_drop:g}); {minutes(n_few)} minus the prior-mean cell {_ci_text(e_pm)}; reported, not "
                      f"decided: {minutes(ns[i0])} (N = {ns[i0]}) minus {minutes(n_long)} {_ci_text(fewest)}"
                      + (c_d.measured or c_p.measured),
                      {f"drop from {minutes(n_long)} to {minutes(n_few)}": _decide3(e_drop, cfg),
                       "gain over the prior-mean cell": _decide3(e_pm, cfg)},
                      {"acc": acc.tolist(), "drop_lo": e_drop.lo, "over_prior_mean_lo": e_pm.lo, "n_few": n_few,
                       "n_long": n_long, "fewest_minus_long": fewest.mean},
                      why=f"{sweep.shape[1]} test cells")


@claim_rule("C7", statement="Amortised inference is rapid: well under a second per cell, orders of magnitude faster "
            "than fitting each cell by gradient descent.",
            rule="NPE wall time per cell (posterior samples for all test cells at once, divided by their number) < "
                 "speed_s (1 s) and >= 100x below the gradient-only fits' time per cell (also batched over cells), both "
                 "timed the same way: npe_timing_repeats interleaved rounds of one NPE call and one block of the fits' "
                 "steps, the fastest round of each deciding (a block's time per step). The fits are charged the steps "
                 "they need, not the budget we chose (changed under the contract's second edition: the ratio grew with "
                 "the chosen budget): when the fits pass their plateau test (as in C3b), the first step from which the "
                 "mean log best loss stays within the test's tolerance of its final value; when they do not, the whole "
                 "budget, a lower bound on what fitting needs (a ratio that passes on it passes a fortiori; one that "
                 "misses it is inconclusive, not converged)",
            rejects="inference as slow as per-cell optimisation (ratio < 100), a ratio that only load on the fits' single "
                    "run made large, or one made large by a fit budget beyond what the fits need; per-cell gradient fits "
                    "in NPE's place",
            paper="rapidly infers HH parameters (abstract)", timed=True)
def claim7(study, cfg: HHMEAConfig) -> ClaimCheck:
    """Changed in session 5: the fits were timed once and the NPE call as the fastest of back-to-back calls, so
    load inflated only the numerator (a tilt towards passing); both sides are now the fastest of the same number
    of interleaved rounds, computed here from the raw timings. Changed under the contract's second edition: the fits
    are charged the steps their loss curve needs (see the rule)."""
    calls = np.asarray(getattr(study, "seconds_npe_all", ()), float)
    blocks = np.asarray(getattr(study, "seconds_gradient_only_blocks", ()), float)
    if calls.size < 2 or calls.size != blocks.size or not (np.isfinite(calls).all() and np.isfinite(blocks).all()):
        return ClaimCheck(f"{calls.size} NPE calls, {blocks.size} blocks of the fits timed", None,
                          reason="the two sides were not timed in the same number (>= 2) of interleaved rounds")
    trace = getattr(study, "loss_trace_gradient_only", None)
    if trace is None:
        return ClaimCheck.inconclusive_check(f"{calls.size} NPE calls, {blocks.size} blocks of the fits timed",
                                             NOT_CONVERGED, "the study has no loss trace of the fits: the steps they "
                                             "need cannot be read")
    conv, curve = fits_plateau(trace, cfg, "gradient-only fits")
    budget = len(curve) - 1
    if conv.converged:
        far = np.abs(curve - curve[-1]) >= conv.tolerance
        needed = int(np.flatnonzero(far).max() + 1) if far.any() else 0
        needed = max(needed, 1)
    else:
        needed = budget
    a = float(calls.min()) / len(study.test_theta)
    g_budget = float(blocks.min())
    g = g_budget * needed / budget
    ok = a < cfg.speed_s and g / a >= 100
    run = float(getattr(study, "seconds_gradient_only_run", float("nan")))
    measured = (f"NPE {a * 1e3:.1f} ms per cell, gradient-only {g:.2f} s per cell ({g / a:.0f}x; {needed} of the "
                f"{budget} steps charged, {conv.text}; fastest of {calls.size} interleaved rounds each; slowest round "
                f"{calls.max() / calls.min():.1f}x and {blocks.max() / blocks.min():.1f}x the fastest; the fits' whole run "
                f"{run:.2f} s per cell)")
    values = {"ratio": g / a, "npe": a, "gradient_only": g, "steps_charged": needed, "converged": conv.converged}
    if not ok and not conv.converged and a < cfg.speed_s:
        return ClaimCheck.inconclusive_check(measured, NOT_CONVERGED, f"the ratio {g / a:.0f}x on the whole budget is a "
                                             "lower bound (the fits had not converged), below 100x", values)
    return ClaimCheck(measured, bool(ok), values)


not_testable("P1", statement="Validated on hundreds of hours of stimulation and recording from isolated macaque retina "
             "on a 30 µm-pitch 512-electrode array.",
             paper="hundreds of hours of data, macaque retina, 512 electrodes (abstract)",
             reason="the recordings are not public and no retina data exist offline; every cell here is synthetic")
not_testable("P2", statement="90.4 % accuracy on previously unseen multi-electrode stimulation patterns of recorded cells.",
             paper="90.4% (abstract)",
             reason="a number about recorded macaque RGCs; our synthetic accuracies (C4) are not a reproduction of it")

abstract_sentence("Here, we introduce a framework that rapidly infers HH parameters from designed features of "
                  "extracellular MEA measurements by leveraging differentiable biophysical simulation and "
                  "simulation-based inference, unlocking a wide range of downstream applications.",
                  "C1", "C1c", "C1d", "C2", "C3", "C3b", "C7")
abstract_sentence("In this work, we focus on a central goal of translational neuroengineering: predicting neural spiking "
                  "responses to candidate neurostimulation patterns that would take hours to measure clinically.", "C4")
abstract_sentence("To validate our approach, we collected hundreds of hours of stimulation and recording data from "
                  "isolated macaque retina with a 30 µm-pitch 512-electrode array.", "P1")
abstract_sentence("Our framework predicted previously unseen multi-electrode stimulation responses with 90.4% accuracy "
                  "using HH models fit from only a few minutes of recording, replacing hours of stimulus testing.",
                  "P2", "C4", "C5", "C6")
