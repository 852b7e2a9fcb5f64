r"""The claim rules of the ``ts_pairwise_ranking`` chapter, declared with the claims registry.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026. Only the abstract was
reachable: the paper column holds its words ("not reached" where it says nothing), and every threshold is
ours, in :class:`.config.RankingConfig` (fields ``c*_``), fixed before the run. Each rule reads an
experiment's result and the config and returns a :class:`ClaimCheck`; nothing is hard-coded.

C0 is the abstract's motivating claim (pairwise comparisons against individual annotation at an equal
budget); C1-C4 and C7 cover its other result sentences; C5, C6 and C8 are our extra checks.

Four verdicts (``shared/design/CLAIMS.md``, rule 9; issue 28): every rule decided on replicates reads the 95 %
t-interval over independent data sets against its declared minimum effect with
:func:`~icmlbook.runtime.stats.decide_interval` (reproduced beyond it, *not reproduced* only when the whole interval
lies on the far side, *inconclusive at this scale* when it spans both). C1 and C2 are deterministic numerical checks
(no replicates). Every rule's test runs the nearest trivial method's real output through it (rule 11).
"""

from __future__ import annotations

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule
from ...runtime.stats import IntervalDecision, decide_interval, mean_t_interval, paired_t
from .config import RankingConfig
from .experiments import (LIPSCHITZ_CONSTANTS, AnnotationBudget, CrowdResult, LipschitzCheck, NoiseSweep, SoftTwedCheck,
                          WellSpecified)

__all__ = ["paired_summary", "slope_summary", "late_budgets", "decide", "claim0", "claim1", "claim2", "claim3", "claim4", "claim5", "claim6",
           "claim7", "claim8"]

_T = RankingConfig()          # the thresholds in the rule texts are the config's (profiles do not change them)

ABSTRACT_RESULTS = {
    "motivation": ("Expert-annotated time series datasets often suffer from low agreement, especially in medical "
                   "applications where decisions rely on subjective criteria and inconsistent thresholds. Such "
                   "variability degrades annotation quality and thus limits the reliability of supervised "
                   "classification models.", ("C0",)),
    "pairwise": ("To address this, we propose to rely on a pairwise comparison-based approach, which provides a "
                 "more robust alternative to individual annotation, since relative judgments are typically easier "
                 "and yield higher consistency.", ("C0",)),
    "theory": ("We prove Lipschitz continuity of these distances and demonstrate several convergence guarantees "
               "for this model.", ("C2", "C7")),
    "soft-twed": ("To facilitate gradient-based optimization, we also introduce a differentiable version of the "
                  "TWED.", ("C1",)),
    "experiments": ("Finally, we show through multiple experiments that our approach produces accurate and robust "
                    "rankings under noisy annotation conditions.", ("C3", "C4")),
}
for _sentence, _ids in ABSTRACT_RESULTS.values():
    abstract_sentence(_sentence, *_ids)


# ---------------------------------------------------------------------------------------------- statistics
def paired_summary(a, b) -> dict:
    """Paired comparison of ``a`` and ``b`` (one value per independent replicate): the mean difference
    ``a - b``, its 95 % t-interval, the standardised effect size :math:`d_z` (mean / sd of the
    differences), the two-sided paired t-test's p-value and ``n``, all from the shared
    :func:`~icmlbook.runtime.stats.paired_t` (scipy's ``ttest_rel``); a non-finite difference or fewer than two
    pairs makes every entry but ``n`` (and the mean) NaN."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = d.size
    mean = float(d.mean())
    if n < 2 or not np.all(np.isfinite(d)):
        sd = float(d.std(ddof=1)) if n > 1 else float("nan")
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "sd": sd, "dz": float("nan"),
                "p": float("nan"), "n": n}
    t = paired_t(a, b, 0.95)
    return {"mean": t.mean, "lo": t.lo, "hi": t.hi, "sd": t.sd, "dz": t.dz, "p": t.p, "n": t.n}


def decide(s: dict, threshold: float, side: str = "lower") -> IntervalDecision:
    """Rule 9 on the interval of a summary (:func:`paired_summary`, :func:`slope_summary`, :func:`mean_summary`):
    :func:`~icmlbook.runtime.stats.decide_interval` against the declared minimum effect ``threshold``; a NaN end
    (one data set, a non-finite value) is inconclusive."""
    return decide_interval(s["lo"], s["hi"], threshold, side=side)


def mean_summary(values) -> dict:
    """The mean of one value per independent data set with its 95 % t-interval (the shared
    :func:`~icmlbook.runtime.stats.mean_t_interval`); NaN ends with fewer than two values or a non-finite one."""
    v = np.asarray(values, float).ravel()
    if v.size < 2 or not np.all(np.isfinite(v)):
        return {"mean": float(np.mean(v)) if v.size else float("nan"), "lo": float("nan"), "hi": float("nan"),
                "n": int(v.size)}
    ci = mean_t_interval(v, 0.95)
    return {"mean": ci.mean, "lo": ci.lo, "hi": ci.hi, "n": ci.n}


def _combine(decisions: dict[str, IntervalDecision]) -> bool | None:
    """Several parts that must all hold: reproduced when every part is, not reproduced when one part shows
    evidence against (its interval on the far side), inconclusive otherwise."""
    out = [d.passed for d in decisions.values()]
    return True if all(o is True for o in out) else (False if any(o is False for o in out) else None)


def _check(measured: str, passed: bool | None, values: dict, decisions: dict[str, IntervalDecision],
           reason: str | None = None, kind: str = "interval spans both") -> ClaimCheck:
    """The ClaimCheck of a three-way outcome; an inconclusive one names the parts whose interval spans both."""
    if passed is None:
        why = reason or "; ".join(f"{k}: {d.text}" for k, d in decisions.items() if d.passed is None)
        return ClaimCheck.inconclusive_check(measured, kind, why, values)
    return ClaimCheck(measured, bool(passed), values)


def _fmt_paired(s: dict) -> str:
    return (f"{s['mean']:+.3f} [{s['lo']:+.3f}, {s['hi']:+.3f}] (95% t-interval, n = {s['n']}), "
            f"d_z = {s['dz']:.2f}, paired t-test p = {s['p']:.2g}")


def slope_summary(x, Y, floor: float = 1e-3) -> dict:
    """Log-log slope of ``Y`` ``(R, K)`` (one row per independent replicate, clipped below at ``floor``)
    against ``x`` ``(K,)``: one least-squares slope per row, their mean and 95 % t-interval (the shared
    :func:`~icmlbook.runtime.stats.mean_t_interval`)."""
    lx = np.log(np.asarray(x, float))
    slopes = np.array([np.polyfit(lx, np.log(np.maximum(np.asarray(y, float), floor)), 1)[0] for y in Y])
    n = slopes.size
    mean = float(slopes.mean())
    if n < 2:
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "slopes": slopes, "n": n}
    ci = mean_t_interval(slopes, 0.95)
    return {"mean": mean, "lo": ci.lo, "hi": ci.hi, "slopes": slopes, "n": n}


# ---------------------------------------------------------------------------------------------- rules
@claim_rule(
    "C0", statement="At an equal annotation budget, pairwise comparisons rank series better than individual "
                    "annotations when annotators use inconsistent thresholds (our reconstruction of the paper's model: only its "
                    "abstract was reached).", reconstruction=True,
    rule=f"paired over independent data sets, 95% t-interval of tau(pairwise) - tau(individual labels, one pooled "
         f"threshold) lies above {_T.c0_min_gain:g} (reproduced), wholly below it (not reproduced), or spans it "
         "(inconclusive); same ideal point model, same number of annotations, same annotators' noise",
    rejects="individual labels rank as well or better at the same budget (mean paired gain <= 0)",
    paper="“a more robust alternative to individual annotation, since relative judgments are typically easier "
          "and yield higher consistency” (no number reached)")
def claim0(a: AnnotationBudget, cfg: RankingConfig = _T) -> ClaimCheck:
    s = paired_summary(a.tau_pairwise, a.tau_pointwise)
    s_r = paired_summary(a.tau_pairwise, a.tau_pointwise_per_annotator)
    s_te = paired_summary(a.tau_pairwise_test, a.tau_pointwise_test)
    dec = decide(s, cfg.c0_min_gain)
    text = (f"tau pairwise {a.tau_pairwise.mean():.3f} vs individual labels {a.tau_pointwise.mean():.3f}: gain "
            f"{_fmt_paired(s)}; {a.n_annotations} annotations each, {a.n_annotators} annotators with thresholds "
            f"in [{a.thresholds.min():.2f}, {a.thresholds.max():.2f}], flip {a.flip:g}. Against one threshold per "
            f"annotator (a stronger baseline, not in the verdict): {s_r['mean']:+.3f} [{s_r['lo']:+.3f}, "
            f"{s_r['hi']:+.3f}]; on held-out series: {s_te['mean']:+.3f} [{s_te['lo']:+.3f}, {s_te['hi']:+.3f}]")
    return _check(text, dec.passed, {"paired": s, "per_annotator": s_r, "heldout": s_te, "decision": dec},
                  {"gain": dec})


@claim_rule(
    "C1", statement="Our reconstruction of the soft-TWED (the paper's own was not reached) tends to exact TWED as "
                    "gamma -> 0, and its autograd gradient matches finite differences.", reconstruction=True,
    rule=f"max relative error to aeon's TWED < {_T.c1_twed_rtol:g} at gamma = 1e-4, and gradient relative error "
         f"< {_T.c1_grad_rtol:g} (float64)",
    rejects="a relaxation that does not converge to TWED (error >= 1e-3 at gamma = 1e-4) or a wrong gradient",
    paper="“we also introduce a differentiable version of the TWED”")
def claim1(c: SoftTwedCheck, cfg: RankingConfig = _T) -> ClaimCheck:
    err = float(c.twed_rel_err[np.argmin(c.gammas)])
    ok = err < cfg.c1_twed_rtol and c.grad_rel_err < cfg.c1_grad_rtol
    return ClaimCheck(f"rel. error {err:.1e} at gamma={c.gammas.min():g} (gap bound holds: {c.twed_gap_bound_ok}); "
                      f"gradient rel. error {c.grad_rel_err:.1e}; exact TWED vs aeon {c.exact_vs_aeon:.0e}",
                      bool(ok), {"err": err})


@claim_rule(
    "C2", statement="The distances are Lipschitz in the ideal series U: DTW (L1 cost), TWED and the two the model "
                    "fits (squared-cost soft-DTW divergence, soft-TWED divergence), each with its own constant (the constants "
                    "and the divergences are our reconstruction).", reconstruction=True,
    rule="max ratio |d(X,U)-d(X,U')| / bound <= 1 (+ numerical slack) over all random pairs, for each of the six "
         "distances with its constant (section 'Lipschitz bounds'); a non-finite ratio (NaN or inf), a missing "
         "distance or a distance without one ratio per pair fails",
    rejects="a distance that breaks its bound (e.g. TWED's constant 1 instead of 2: ratios up to 2), or one that is "
            "undefined (NaN) on some pairs",
    paper="“We prove Lipschitz continuity of these distances” (constants not reached)")
def claim2(c: LipschitzCheck, cfg: RankingConfig = _T) -> ClaimCheck:
    # non-finite ratios are counted and fail the row (changed after the runs at 67dd53f: np.nanmax used to drop
    # NaN ratios silently, so a distance undefined on half of the pairs passed; a second review's world, now a test)
    # every one of the six distances, with one ratio per pair (a second pass, session 5: the distances present were
    # checked, so two of six, or none, passed "over all random pairs")
    missing = [k for k in LIPSCHITZ_CONSTANTS if k not in c.ratios]
    short = [k for k, v in c.ratios.items() if np.size(v) != len(c.scales)]
    bad = {k: int(np.sum(~np.isfinite(np.asarray(v, float)))) for k, v in c.ratios.items()}
    maxes = {k: float(np.max(np.asarray(v, float)[np.isfinite(v)])) if bad[k] < np.size(v) else float("nan")
             for k, v in c.ratios.items()}
    ok = (all(m <= 1 + cfg.c2_slack for m in maxes.values()) and not any(bad.values()) and not missing
          and not short)
    text = "; ".join(f"{k} max {m:.3f}" + (f" ({bad[k]} non-finite)" if bad[k] else "") for k, m in maxes.items())
    text += (f"; missing: {', '.join(missing)}" if missing else "") + (
        f"; not one ratio per pair: {', '.join(short)}" if short else "")
    return ClaimCheck(f"{text} over {len(c.scales)} pairs", bool(ok), {**maxes, "non_finite": bad})


@claim_rule(
    "C3", statement="On well-specified data the ideal point model (our reconstruction) recovers the ranking.",
    reconstruction=True,
    rule=f"95% t-interval over independent data sets of the in-sample Kendall tau at comparisons_per_item = 5 lies "
         f"above {_T.c3_min_tau:g} (reproduced), wholly below it (not reproduced), or spans it (inconclusive)",
    rejects="a ranking only partly recovered (tau 0.8)",
    paper="“our approach produces accurate ... rankings” (no number reached)")
def claim3(w: WellSpecified, cfg: RankingConfig = _T) -> ClaimCheck:
    # changed in issue 28 (rule 9): the mean of the data sets' taus against the threshold became its 95% interval
    # (stricter to pass: the lower end must clear it; "not reproduced" only when the whole interval is below)
    main = int(np.flatnonzero(w.budgets == w.main_budget)[0])
    taus = np.atleast_2d(w.tau_train)[:, main]
    s = mean_summary(taus)
    dec = decide(s, cfg.c3_min_tau)
    t0 = "" if w.tau_init is None else f"; tau of the starting ideal {np.atleast_2d(w.tau_init)[:, main].mean():.3f}"
    text = (f"tau = {taus.mean():.3f} [{s['lo']:.3f}, {s['hi']:.3f}] (95% t-interval over {taus.size} data sets: "
            f"{', '.join(f'{t:.3f}' for t in taus)}) with {w.main_budget}N = {w.main_budget * w.n_items} comparisons "
            f"({w.distance}, N = {w.n_items}){t0}")
    return _check(text, dec.passed, {"tau": float(taus.mean()), "interval": s, "decision": dec}, {"tau": dec})


@claim_rule(
    "C4", statement="Rankings of the ideal point model (our reconstruction) degrade gracefully as annotation "
                    "noise grows.", reconstruction=True,
    rule=f"for the best elastic model (by mean tau), the 95% t-interval over independent data sets of tau at flip "
         f"{_T.c4_at_flip:g} lies above {_T.c4_min_tau:g} (reproduced; wholly below: not reproduced; spanning it: "
         f"inconclusive), and the mean tau is non-increasing in the flip within {_T.c4_mono_tol:g} (a larger rise: "
         "inconclusive, noise above the flips' effect)",
    rejects="a ranking that collapses under noise (tau < 0.75 at flip 0.2)",
    paper="“robust rankings under noisy annotation conditions” (no number reached)")
def claim4(s: NoiseSweep, cfg: RankingConfig = _T) -> ClaimCheck:
    mean = np.nanmean(s.tau_train, axis=0)                   # (F, D)
    elastic = [s.distances.index(d) for d in ("softdtw", "softtwed")]
    at = np.isclose(s.flips, cfg.c4_at_flip)
    if not np.any(at):
        return ClaimCheck(f"flip {cfg.c4_at_flip:g} not in this profile's sweep", None,
                          reason=f"the sweep has no flip {cfg.c4_at_flip:g}")
    f = int(np.flatnonzero(at)[0])
    k = elastic[int(np.argmax(mean[f, elastic]))]           # the best elastic model at that flip, by its mean
    best = mean[:, elastic].max(1)
    summ = mean_summary(s.tau_train[:, f, k])
    dec = decide(summ, cfg.c4_min_tau)
    mono = bool(np.all(np.diff(best) <= cfg.c4_mono_tol))
    text = (", ".join(f"p={p:g}: {b:.2f}" for p, b in zip(s.flips, best)))
    text = (f"best elastic tau {text}; at p={cfg.c4_at_flip:g} ({s.distances[k]}) {summ['mean']:.3f} "
            f"[{summ['lo']:.3f}, {summ['hi']:.3f}] (95% t-interval over {summ['n']} data sets)")
    values = {"best": best, "interval": summ, "decision": dec, "monotone": mono}
    if dec.passed and not mono:
        return _check(text, None, values, {"tau": dec}, kind="noise above effect",
                      reason=f"tau rises with the flip probability by more than {cfg.c4_mono_tol:g}: the sweep's noise "
                             "is above the effect of the flips")
    return _check(text, dec.passed, values, {"tau": dec})


@claim_rule(
    "C5", statement="Under time shifts and warps, elastic ideal points rank better than the Euclidean ideal point "
                    "(our reconstruction of the model).", reconstruction=True,
    rule=f"for soft-DTW and soft-TWED: paired over independent data sets (mean over flips), the 95% t-interval of "
         f"tau(elastic) - tau(Euclidean) lies above {_T.c5_min_margin:g} for both (reproduced), wholly below it for "
         "one (not reproduced), otherwise inconclusive",
    rejects="the rigid Euclidean ideal point ranks as well (paired gain <= 0)")
def claim5(s: NoiseSweep, cfg: RankingConfig = _T) -> ClaimCheck:
    e = s.distances.index("euclidean")
    out, parts, decs = {}, [], {}
    for d in ("softdtw", "softtwed"):
        k = s.distances.index(d)
        elastic, euclid = np.nanmean(s.tau_train[:, :, k], 1), np.nanmean(s.tau_train[:, :, e], 1)
        summ = paired_summary(elastic, euclid)
        cells = s.tau_train[:, :, k] - s.tau_train[:, :, e]
        summ["cells_won"] = int(np.sum(cells > 0))
        out[d] = summ
        decs[d] = decide(summ, cfg.c5_min_margin)
        parts.append(f"{d} - Euclidean: {_fmt_paired(summ)}; ahead in {summ['cells_won']} of {cells.size} "
                     "(data set, flip) cells")
    return _check("; ".join(parts), _combine(decs), dict(out, decisions=decs), decs)


@claim_rule(
    "C6", statement="The learned ideal (our reconstruction of the model) predicts comparisons between unseen "
                    "series (never compared in training).", reconstruction=True,
    rule=f"for soft-DTW and soft-TWED: paired over independent data sets (mean over flips), the 95% t-interval of the "
         f"accuracy on held-out comparisons between held-out series (non-flipping annotators) minus the planted "
         f"ideal's own accuracy under the same distance on the same comparisons (what the model family reaches) lies "
         f"above -{_T.c6_max_gap:g} for both (reproduced), wholly below it for one (not reproduced), otherwise "
         "inconclusive",
    rejects="a ranker that does not transfer to unseen series (held-out accuracy near chance, 0.5; Bradley-Terry "
            "item scores cannot rank them at all)")
def claim6(s: NoiseSweep, cfg: RankingConfig = _T) -> ClaimCheck:
    # changed in issue 28 (the outside audit): the reference was the accuracy of the true latent scores, which no
    # ideal point under these distances reaches (the planted ideal itself scored below the margin); it is now the
    # planted ideal's own accuracy under the same distance, and the gap is decided on its interval over data sets
    if s.acc_heldout is None or s.acc_planted is None:
        return ClaimCheck("no held-out comparisons (or no planted-ideal reference) in this result", None,
                          reason="held-out comparisons not simulated")
    oracle, oracle_h = float(np.nanmean(s.acc_oracle)), float(np.nanmean(s.acc_oracle_hard))
    out, parts, decs = {}, [], {}
    for d in ("softdtw", "softtwed"):
        k = s.distances.index(d)
        acc, planted = np.nanmean(s.acc_heldout[:, :, k], 1), np.nanmean(s.acc_planted[:, :, k], 1)
        summ = paired_summary(acc, planted)
        decs[d] = decide(summ, -cfg.c6_max_gap)
        acc_h, planted_h = float(np.nanmean(s.acc_heldout_hard[:, :, k])), float(np.nanmean(s.acc_planted_hard[:, :, k]))
        out[d] = {"acc": float(acc.mean()), "planted": float(planted.mean()), "gap": summ, "acc_hard": acc_h,
                  "planted_hard": planted_h, "gap_oracle": float(acc.mean()) - oracle}
        parts.append(f"{d} {acc.mean():.3f} vs its planted ideal {planted.mean():.3f}: {_fmt_paired(summ)} (hard half "
                     f"{acc_h:.3f} vs {planted_h:.3f})")
    rn = s.acc_baseline[:, :, s.baseline_names.index("RankNet")]
    rn_text = f"{np.nanmean(rn):.3f}" if np.any(np.isfinite(rn)) else "N/A"
    text = (f"held-out accuracy {'; '.join(parts)}. For reference, the true scores {oracle:.3f} (hard half "
            f"{oracle_h:.3f}), RankNet {rn_text}, Bradley-Terry N/A; "
            f"{s.n_heldout_pairs} held-out comparisons per (data set, flip) cell, "
            f"{s.tau_train.shape[0] * s.tau_train.shape[1]} cells")
    out["oracle"], out["oracle_hard"], out["decisions"] = oracle, oracle_h, decs
    return _check(text, _combine(decs), out, decs)


@claim_rule(
    "C7", statement="The estimate (our reconstruction of the model; the paper's guarantees were not reached) "
                    "converges: its ranking error on held-out series falls as the number of comparisons grows.",
    reconstruction=True,
    rule=f"log-log slope of 1 - tau(held-out) against the number of comparisons, fitted per independent data set, "
         f"over all budgets and over the larger half of them (from the median budget up, at least two); reproduced "
         f"when the upper end of both slopes' 95% t-intervals lies below {_T.c7_max_slope:g}, not reproduced when the "
         f"lower end of one lies above it (the error grows), inconclusive otherwise (a floor is not told from a slow "
         "fall)",
    rejects="no convergence: the error plateaus (slope 0), also after a first fall (a floor at the larger budgets), "
            "or grows",
    paper="“demonstrate several convergence guarantees for this model” (statements not reached)")
def claim7(w: WellSpecified, cfg: RankingConfig = _T) -> ClaimCheck:
    # Changed in session 6 (a minor review finding, /work/review/ts_pairwise_ranking.md): an error that fell once and
    # then stayed on a floor passed on the slope over all budgets (-0.19 [-0.20, -0.18]), the rule's own rejected
    # alternative; the slope over the larger half of the budgets must now fall too (stricter only: both must pass).
    # Changed in issue 28 (rule 9): a slope whose interval contains 0 is inconclusive, not "not reproduced"; the
    # budget study runs on its own, larger number of data sets (budget_seeds) so that the interval can decide
    err = 1.0 - np.atleast_2d(w.tau_test)
    s = slope_summary(w.n_comparisons, err)
    top = late_budgets(w.n_comparisons)
    s_top = slope_summary(np.asarray(w.n_comparisons)[top], err[:, top])
    s_ideal = slope_summary(w.n_comparisons, np.atleast_2d(w.ideal_error))
    decs = {"all budgets": decide(s, cfg.c7_max_slope, side="upper"),
            "larger half": decide(s_top, cfg.c7_max_slope, side="upper")}
    m = np.asarray(w.n_comparisons)
    text = (f"slope of 1 - tau(held-out): {s['mean']:.2f} [{s['lo']:.2f}, {s['hi']:.2f}] (95% t-interval, "
            f"{s['n']} data sets, {m.min()} to {m.max()} comparisons), over the larger half ({m[top].min()} to "
            f"{m[top].max()}) {s_top['mean']:.2f} [{s_top['lo']:.2f}, {s_top['hi']:.2f}]; error "
            f"{err[:, 0].mean():.3f} -> {err[:, -1].mean():.3f}. The distance of U_hat to U* (not in the verdict): "
            f"slope {s_ideal['mean']:.2f} [{s_ideal['lo']:.2f}, {s_ideal['hi']:.2f}]")
    values = {"slope": s, "slope_top": s_top, "ideal": s_ideal, "ok_all": decs["all budgets"].passed is True,
              "ok_top": decs["larger half"].passed is True, "decisions": decs}
    if s["n"] < 2:
        return ClaimCheck.inconclusive_check(text, "interval spans both", "one data set: no interval", values)
    reason = None
    if values["ok_all"] and decs["larger half"].passed is None:
        reason = (f"the error falls over all budgets but not clearly over the larger half ({m[top].min()} to "
                  f"{m[top].max()} comparisons): not told apart from a floor ({decs['larger half'].text})")
    return _check(text, _combine(decs), values, decs, reason=reason)


def late_budgets(n_comparisons) -> np.ndarray:
    """Indices of the larger half of the budgets, in ascending order of budget: from the median budget up, at least
    two (budgets 100, 250, 500 give the last two; 100, ..., 2000 in five steps the last three)."""
    order = np.argsort(np.asarray(n_comparisons), kind="stable")
    k = len(order)
    if k < 2:
        raise ValueError(f"n_comparisons has {k} budget(s); a slope needs at least 2")
    return order[min(k // 2, k - 2):]


@claim_rule(
    "C8", statement="With several noisy annotators, the full likelihood over raw labels is at least as good as "
                    "majority vote (our reconstruction of the likelihood).", reconstruction=True,
    rule=f"paired over independent data sets, the 95% t-interval of tau(full likelihood) - tau(majority vote) lies "
         f"above -{_T.c8_margin:g} (non-inferiority: reproduced), wholly below it (not reproduced), or spans it "
         "(inconclusive)",
    rejects="majority vote ranks better by more than the margin")
def claim8(c: CrowdResult, cfg: RankingConfig = _T) -> ClaimCheck:
    # non-inferiority on the interval's lower end (changed after the runs at 67dd53f: the rule compared the two
    # means, so with 2-3 data sets a majority vote better by 3x the margin passed in a fifth of the draws; a
    # second review's world, now a test case; stricter only: lo >= -margin implies mean >= -margin).
    # Changed in issue 28 (rule 9): an interval that spans -margin is inconclusive, not "not reproduced"
    mf, mm = float(c.tau_full.mean()), float(c.tau_majority.mean())
    s = paired_summary(c.tau_full, c.tau_majority)
    dec = decide(s, -cfg.c8_margin)
    return _check(f"full likelihood tau {mf:.3f} vs majority vote {mm:.3f}: paired difference {_fmt_paired(s)} "
                  f"({c.n_annotators} annotators, flip {c.flip:g}, {c.n_pairs} pairs)", dec.passed,
                  {"full": mf, "majority": mm, "paired": s, "decision": dec,   # the flip-aware fit: reported, never used
                   "full_flip_aware": None if c.tau_full_flip_aware is None else float(c.tau_full_flip_aware.mean())},
                  {"difference": dec})
