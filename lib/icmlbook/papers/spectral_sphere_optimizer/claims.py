"""The chapter's claims: the dossier's ten claims, each declared once with the alternative world it must reject,
and the paper's results at 1.7B parameters and beyond, declared not testable at this book's scale.

Rules take the chapter's run results (:class:`.experiments.RunResult`) and the chapter's config (thresholds
fixed there before the runs). The paper's column holds its numbers as read in the full text (dossier §4).

Since issue 28 (the contract's second edition): four verdicts (a run that cannot tell is *inconclusive*, with
its kind); every rule that compares trained models first passes the convergence guard declared in the config
(:func:`_guard`: training half as long again must move each compared model's validation loss by less than a
third of ``loss_tie``, read back along the logged curve); the paired intervals come from
:mod:`icmlbook.runtime.stats` and decide three ways (:meth:`~icmlbook.runtime.stats.EffectBound.decision`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import decide_interval, effect_bound
from ...training import convergence_guard, plateau_from_curve
from .config import SSOConfig
from .experiments import (RunResult, activation_growth, best_learning_rates, log2_lr_spread, lr_vertices,
                          power_law_fit, sigma_drift, tuned_losses)


def _label(r: RunResult) -> str:
    return f"{r.spec.optimizer} w{r.spec.width} lr {r.spec.lr:g}" + (f" c {r.spec.radius:g}" if r.spec.radius != 1 else "")


def _guard(runs: Sequence[RunResult], cfg: SSOConfig, measured: str) -> ClaimCheck | None:
    """The convergence guard (contract rule 10) over the compared runs: None when every run's validation loss moved
    by less than ``plateau_share`` x ``loss_tie`` over the last ``plateau_extend`` / (1 + ``plateau_extend``) of its
    updates (the loss at the end against the loss at steps / (1 + extend), linear interpolation between evaluations);
    otherwise the rule's *inconclusive* check (kind "not converged") naming the runs that were still learning."""
    reports = [plateau_from_curve(r.val_steps, r.val_loss, cfg.loss_tie, cfg.plateau, name=_label(r)) for r in runs]
    return convergence_guard(*reports, measured=measured)


def guard_text(runs: Sequence[RunResult], cfg: SSOConfig) -> str:
    """One sentence on the guard over ``runs``: the largest change of the validation loss over the last third of
    training against the tolerance (for the page)."""
    reports = [plateau_from_curve(r.val_steps, r.val_loss, cfg.loss_tie, cfg.plateau, name=_label(r)) for r in runs]
    worst = max(reports, key=lambda c: c.change)
    return (f"{sum(c.converged for c in reports)} of {len(reports)} runs converged by the guard (largest change "
            f"{worst.change:.3f} nats/byte, {worst.name}; tolerance {worst.tolerance:.4f})")


@claim_rule("C1", statement="With the released scripts' power-iteration budget (100 iterations per update, cold at "
            "the first update and warm-started after), SSO's retraction keeps every hidden matrix on its spectral "
            "sphere: before each update sigma_max(W) = R = c sqrt(d_out/d_in), the first update included.",
            rule="largest |sigma_max(retracted W)/R - 1| (exact SVD, every block, the first update and every tracked "
                 "update of every SSO and MuonSphere run) <= the config's sphere tolerance (1e-3); the power-iteration "
                 "study (10, 100 and 1000 iterations on one run) is shown beside it",
            rejects="a retraction by a stale top singular value (one cold power-iteration step per update: "
                    "deviations of 1e-2 and more)",
            paper="sigma_max(W) = R exactly after the retraction (Algorithm 1); 100 power iterations (scripts)")
def claim1(runs: Sequence[RunResult], cfg: SSOConfig) -> ClaimCheck:
    devs = {_label(r): r.sphere_deviation for r in runs if r.sphere_deviation.size}
    if not devs:
        return ClaimCheck("—", None, reason="no SSO or MuonSphere run recorded the sphere invariant")
    worst = max(devs, key=lambda k: float(np.max(devs[k])))
    first = max(float(v[0]) for v in devs.values())
    later = max((float(np.max(v[1:])) for v in devs.values() if v.size > 1), default=float("nan"))
    top = float(np.max(devs[worst]))
    budgets = sorted({r.spec.power_steps for r in runs if r.sphere_deviation.size})
    return ClaimCheck(f"largest deviation {top:.1e} ({worst}) over {len(devs)} runs: at the first update {first:.1e}, "
                      f"after it {later:.1e} (power iterations per update: {', '.join(map(str, budgets))})",
                      bool(top <= cfg.sphere_tol),
                      {"deviation": {k: float(np.max(v)) for k, v in devs.items()}, "first": first, "later": later})


@claim_rule("C2", statement="SSO's direction satisfies the tangent constraint <Theta, Phi> = 0 at the solver's "
            "output, and where the constraint's assumptions hold (a simple top singular value, and Theta the top "
            "pair) the update leaves sigma_max unchanged to first order.",
            rule="largest |h(lambda*)| over every block and update of every SSO run <= the config's tangency "
                 "tolerance (2e-4, the paper's scripts), with no solver fallback; and (rule 14: the theorem on cases "
                 "meeting its assumptions) over every block of every tracked update (the first included) of every "
                 "SSO run, the sweep's and the power-iteration study's, whose top singular value is simple (no other "
                 "within the config's relative gap, 1e-3, of sigma_1) and whose power-iteration vector lies within "
                 "5e-5 (sine of the angle) of the exact top vector: the exact first-order change of sigma_max along "
                 "the applied update (per unit step) <= the same tolerance; the share of blocks meeting the "
                 "assumptions is shown per power-iteration budget, and the blocks outside them apart (since issue "
                 "28; before, all blocks decided the row, and the misses came from the power iteration's budget); a "
                 "non-finite |h| or exact measure fails; no block meeting the assumptions: not testable",
            rejects="the untangent direction of MuonSphere (lambda = 0), a solver that gives up and keeps its "
                    "warm start, or a direction off the exact top pair where the assumptions hold",
            paper="|h| <= 2e-4 (bisection tolerance of the scripts)")
def claim2(sso_runs: Sequence[RunResult], cfg: SSOConfig, muonsphere_runs: Sequence[RunResult] = (),
           study_runs: Sequence[RunResult] = ()) -> ClaimCheck:
    # session 6, a second review pass: SSO runs whose |h| is not finite (the solver's h or the weights went NaN) were
    # dropped, and with every run NaN the row was undecided; they now fail it (every SSO step calls the solver, so
    # a recorded NaN is a numerical failure, not a missing measurement)
    every = list(sso_runs) + [r for r in study_runs if all(r is not x for x in sso_runs)]
    if not every:
        return ClaimCheck("—", None, reason="no SSO run recorded |h|")
    bad = [r for r in every if not np.isfinite(r.max_abs_h)]
    bad_txt = (f"; fails: {len(bad)} of {len(every)} SSO runs with a non-finite |h(lambda*)| (lr "
               + ", ".join(f"{r.spec.lr:g}" for r in bad) + ")") if bad else ""
    runs = [r for r in every if np.isfinite(r.max_abs_h)]
    if not runs:
        return ClaimCheck(bad_txt[2:], False, {"nonfinite_runs": len(bad)})
    h = max(r.max_abs_h for r in runs)
    fb = sum(r.solver_fallbacks for r in runs)
    un = sum(r.solver_unconverged for r in runs)
    ref = [r.max_abs_h for r in muonsphere_runs if np.isfinite(r.max_abs_h)]
    ref_txt = f"; MuonSphere (lambda = 0) reaches |h| = {max(ref):.1e}" if ref else ""
    vals = {"max_abs_h": h, "fallbacks": fb, "unconverged": un, "muonsphere_h": max(ref) if ref else None,
            "nonfinite_runs": len(bad)}
    measured = (f"largest |h(lambda*)| {h:.1e} over {len(runs)} SSO runs, {fb} fallbacks, {un} blocks "
                f"unconverged{ref_txt}")
    tracked = [r for r in runs if getattr(r, "tangency_assumed", np.zeros(0)).size]
    if not tracked:
        if bad:
            return ClaimCheck(measured + bad_txt, False, vals)
        return ClaimCheck(measured, None, vals, reason="no SSO run recorded the exact tangency")
    ta = np.concatenate([r.tangency_assumed for r in tracked])
    all_cl = np.concatenate([r.tangency_cluster for r in tracked])
    nonfinite = bool(np.any(~np.isfinite(all_cl)))
    met = np.isfinite(ta)
    h_met = float(np.max(ta[met])) if met.any() else float("nan")
    share = {ps: float(np.nanmean(np.concatenate([r.assumed_share for r in tracked if r.spec.power_steps == ps])))
             for ps in sorted({r.spec.power_steps for r in tracked})}
    first = [float(r.tangency_assumed[0]) for r in tracked if np.isfinite(r.tangency_assumed[0])]
    vals.update(tangency_assumed=h_met, assumed_share=share, tangency_all=float(np.max(all_cl)),
                updates_with_assumed=int(met.sum()), updates=int(ta.size))
    measured += (f"; exact first-order change of sigma_max along the update where the assumptions hold (sigma_1 "
                 f"simple, the power-iteration vector within {runs[0].spec.pair_tol:g} of the exact one): largest "
                 f"{h_met:.1e} over {int(met.sum())} of {ta.size} tracked updates"
                 + (f" (at the first update {max(first):.1e})" if first else "")
                 + "; share of blocks meeting them by power iterations per update: "
                 + ", ".join(f"{ps}: {v:.0%}" for ps, v in share.items())
                 + f"; over every block, assumptions met or not: largest {float(np.max(all_cl)):.1e}") + bad_txt
    if bad or nonfinite:
        return ClaimCheck(measured + ("; fails: a non-finite exact measure" if nonfinite else ""), False, vals)
    if h > cfg.tangency_tol or fb > cfg.max_fallbacks:
        return ClaimCheck(measured, False, vals)
    if not met.any():
        return ClaimCheck(measured, None, vals, reason="no tracked block meets the constraint's assumptions (a simple "
                          "top singular value and a converged power-iteration pair): its conclusion cannot be checked")
    return ClaimCheck(measured, bool(h_met <= cfg.tangency_tol), vals)


@claim_rule("C3", statement="h(lambda) = <Theta, msign(G + lambda Theta)> is non-decreasing, lies in [-1, 1], "
            "tends to -1 and +1, its root satisfies |lambda*| <= 2 ||G||_*, and the direction at the root is the "
            "steepest tangent direction (it reaches the duality bound min_lambda ||G + lambda Theta||_*).",
            rule="on every random (G, W) pair with the exact polar factor: no decrease of h between grid points larger "
                 "than round-off (1e-9), |h| <= 1, h <= -0.99 at lambda = -100||G||_* and >= 0.99 at +100||G||_*, "
                 "the bisection root within 2||G||_*, and (since issue 28) the descent rate <G, Phi>/||Phi||_2 at "
                 "the root within the config's tolerance (1e-6, relative) of min_lambda ||G + lambda Theta||_* "
                 "(a bounded scalar minimisation, independent of h)",
            rejects="an h that decreases somewhere or a root outside the bound (as an inexact msign can give), or a "
                    "tangent direction that is not the steepest one (the normalised matrix G + lambda Theta itself: "
                    "its h is monotone with the same bounds, and its rate is a third below the bound)",
            paper="monotone, |h| <= 1, |lambda*| <= 2||G||_* (App. A.2); roots of order 1e-5 to 1e-4 (Fig. 3)")
def claim3(study: dict, cfg: SSOConfig) -> ClaimCheck:
    h, nuc, root = study["h_exact"], study["nuclear"], study["root"]
    decrease = float(np.max(-np.diff(h, axis=1)))
    bound = float(np.max(np.abs(h)))
    lo_end, hi_end = float(np.max(h[:, 0])), float(np.min(h[:, -1]))
    root_ratio = float(np.max(np.abs(root) / (2 * nuc)))
    ns = study.get("h_ns")
    ns_decrease = float(np.nanmax(-np.diff(ns, axis=1))) if ns is not None and np.isfinite(ns).any() else float("nan")
    gap = float(np.max(np.abs(study["rate"] / study["dual"] - 1))) if "rate" in study else float("nan")
    ok = decrease <= cfg.monotone_tol and bound <= 1 + 1e-9 and lo_end <= -0.99 and hi_end >= 0.99 and \
        root_ratio <= 1 and gap <= cfg.steepest_tol
    return ClaimCheck(f"{h.shape[0]} pairs: largest decrease {max(decrease, 0.0):.1e}, max |h| {bound:.6f}, ends "
                      f"{lo_end:+.4f} / {hi_end:+.4f}, |lambda*| / 2||G||_* <= {root_ratio:.1e} (largest |lambda*| "
                      f"{float(np.max(np.abs(root))):.1e}); descent rate at the root against the duality bound: largest "
                      f"|rate/bound - 1| {gap:.1e}; our Newton–Schulz h decreases by up to {max(ns_decrease, 0.0):.1e}",
                      bool(ok), {"decrease": decrease, "bound": bound, "ends": (lo_end, hi_end),
                                 "root_ratio": root_ratio, "ns_decrease": ns_decrease, "steepest_gap": gap})


@claim_rule("C4", statement="(Ours; the bounds the dossier proposed are not the paper's) msign by Newton–Schulz "
            "with the Polar-Express schedule (fp32, 8 steps) is accurate enough on the momenta it orthogonalises: "
            "its result loses less than 1 % of the ideal descent rate.",
            rule="on every momentum block of the trained SSO run (q/k/v per head): the share of the ideal descent rate "
                 "lost, 1 - <M, O>/(||M||_* ||O||_2), below the minimum effect declared in the config before the "
                 "re-run (1e-2: a 1 % smaller first-order step is far inside the learning-rate grid's factor 3); the "
                 "dossier's bounds (relative error <= 1e-2 against the SVD polar factor, singular values in "
                 "[0.7, 1.2]) are reported, no longer decided on (issue 28: they failed on blocks that kept 0.99998 "
                 "of the rate)",
            rejects="Keller Jordan's quintic (5 steps), whose singular values stay spread (a loss of about 10 % of "
                    "the rate), or no orthogonalisation at all",
            paper="8 Polar-Express iterations in FP32 (Sec. 5)")
def claim4(acc: dict, cfg: SSOConfig) -> ClaimCheck:
    err, lo, hi = acc["rel_error"], acc["s_min"], acc["s_max"]
    if err.size == 0:
        return ClaimCheck("—", None, reason="no momentum blocks were kept")
    loss = acc["rate_loss"]
    worst = float(loss.max())
    dossier = int(np.sum((err > cfg.msign_err_max) | (lo < cfg.msign_s_low) | (hi > cfg.msign_s_high)))
    return ClaimCheck(f"{err.size} blocks: descent rate lost, largest {worst:.1e} (median {np.median(loss):.1e}); "
                      f"relative error median {np.median(err):.1e}, largest {err.max():.1e}; singular values in "
                      f"[{lo.min():.3f}, {hi.max():.4f}] ({dossier} blocks outside the dossier's bounds)",
                      bool(worst < cfg.msign_rate_loss),
                      {"max_loss": worst, "max_error": float(err.max()), "s_min": float(lo.min()),
                       "s_max": float(hi.max()), "outside_dossier": dossier})


@claim_rule("C5", statement="SSO's update has the μP size: ||W_{t+1} - W_t||_2 = eta R (after the retraction).",
            rule="largest | ||dW||_2/(eta R) - 1 | over every block and tracked update (the first included) of every "
                 "SSO and MuonSphere run <= the config's tolerance (1e-2)",
            rejects="an update whose direction is not on the unit spectral sphere (Keller's quintic leaves "
                    "||Phi||_2 up to about 1.2; a one-step msign far more)",
            paper="||dW||_2 = eta R (Sec. 3)")
def claim5(runs: Sequence[RunResult], cfg: SSOConfig) -> ClaimCheck:
    devs = {_label(r): float(np.max(r.update_ratio)) for r in runs if r.update_ratio.size}
    if not devs:
        return ClaimCheck("—", None, reason="no SSO or MuonSphere run recorded its update norm")
    worst = max(devs, key=devs.get)
    return ClaimCheck(f"largest deviation {devs[worst]:.1e} ({worst}) over {len(devs)} runs",
                      bool(devs[worst] <= cfg.update_tol), {"deviation": devs})


@claim_rule("C6", statement="The optimal learning rate of the spectral-sphere optimiser is the same at every width "
            "(μP transfer); AdamW's and Muon's drift more.",
            rule="after the convergence guard (every run of the compared grids converged, else inconclusive): the "
                 "optimiser named by the config (SSO, or MuonSphere where SSO runs near its optimum only): "
                 "log2 spread of the argmin over widths <= 0.5 (the same grid point) with the argmin inside the grid "
                 "at every width (an argmin on the grid's edge does not locate the optimum: inconclusive), the log2 "
                 "spread of the optimum located between grid points (vertex of the parabola in log lr through the "
                 "argmin and its neighbours) <= 0.5 too, and AdamW's and Muon's spreads (located optimum where inside "
                 "their grid, argmin otherwise) larger than its own",
            rejects="an optimum that moves by a factor 3 across the widths (even inside one grid cell), or AdamW's "
                    "and Muon's optima as stable",
            paper="SSO: 1e-2 at widths 256-2048; Muon 9e-3 to 1.5e-2; AdamW 3e-3 then 5e-3 (Fig. 2)")
def claim6(results: Sequence[RunResult], cfg: SSOConfig) -> ClaimCheck:
    opt = cfg.transfer_optimizer
    best = best_learning_rates(list(results))
    grid = sorted({r.spec.lr for r in results if r.spec.optimizer == opt})
    mine = {w: lr for (o, w), lr in best.items() if o == opt}
    if len(mine) < 2 or len(grid) < 3:
        return ClaimCheck("—", None, reason=f"{opt} needs >= 2 widths and >= 3 rates; got {len(mine)} and {len(grid)}")
    spread = log2_lr_spread(best, opt)
    others = {o: log2_lr_spread(best, o) for o in ("adamw", "muon", "sso", "muonsphere")
              if o != opt and sum(k[0] == o for k in best) >= 2 and
              len({r.spec.lr for r in results if r.spec.optimizer == o}) >= 2}

    def located_spread(o):
        v = lr_vertices(list(results), o)
        if len(v) < 2 or any(x is None for x in v.values()):
            return None, v
        logs = np.log2(list(v.values()))
        return float(logs.max() - logs.min()), v

    v_spread, v_mine = located_spread(opt)
    drift = {}
    for o in ("adamw", "muon"):
        if o in others:
            vs, _ = located_spread(o)
            drift[o] = (vs, "located") if vs is not None else (others[o], "argmin")
    text = (f"{opt}: argmin " + ", ".join(f"w{w} {lr:g}" for w, lr in sorted(mine.items()))
            + f" (log2 spread {spread:.2f})"
            + ("; located optimum " + ", ".join(f"w{w} {v:.3g}" for w, v in sorted(v_mine.items()))
               + f" (log2 spread {v_spread:.2f})" if v_spread is not None else "")
            + "".join(f"; {o} spread {s:.2f}" for o, s in others.items() if o not in drift)
            + "".join(f"; {o} spread {s:.2f} ({how})" for o, (s, how) in drift.items()))
    edge = [w for w, lr in mine.items() if lr in (grid[0], grid[-1])]
    values = {"argmin": mine, "spread": spread, "others": others, "edge_widths": edge, "located": v_mine,
              "located_spread": v_spread, "drift": drift}
    compared = [r for r in results if r.spec.optimizer in (opt, "adamw", "muon")]
    guard = _guard(compared, cfg, text)
    if guard is not None:
        return guard
    if edge:
        return ClaimCheck.inconclusive_check(text, "interval spans both", f"the argmin lies on the edge of {opt}'s "
                                             f"grid at width(s) {sorted(edge)}: the grid does not locate the optimum, "
                                             "which may lie inside or beyond it", values=values)
    if not drift:
        return ClaimCheck(text, None, values, reason="neither AdamW nor Muon ran at >= 2 widths and >= 2 rates: their "
                          "drift, which the statement contrasts, is not measured")
    ok = spread <= cfg.transfer_max_log2 and v_spread <= cfg.transfer_max_log2 and \
        all(s > v_spread for s, _ in drift.values())
    return ClaimCheck(text, bool(ok), values)


def _late(cfg: SSOConfig) -> float:
    """The start of the late window, as a fraction of the updates: steps / (1 + plateau_extend)."""
    return 1.0 / (1.0 + cfg.plateau_extend)


def _growth_rule(runs: dict[str, RunResult], cfg: SSOConfig, kind: str, sites: str, what: str) -> ClaimCheck:
    if "sso" not in runs or "adamw" not in runs:
        return ClaimCheck("—", None, reason="needs an SSO and an AdamW run")
    since = _late(cfg)
    growth = {o: max(activation_growth(r, kind, sites, since=since).values()) for o, r in runs.items()}
    whole = {o: max(activation_growth(r, kind, sites).values()) for o, r in runs.items()}
    text = (f"{what} growth over the last {1 - since:.0%} of training (from update "
            f"{since * runs['sso'].spec.steps:.0f}): " + ", ".join(f"{o} {g:.2f}x" for o, g in growth.items())
            + "; from the end of warm-up: " + ", ".join(f"{o} {g:.2f}x" for o, g in whole.items()))
    values = {"growth": growth, "from_warmup": whole}
    guard = _guard([runs["sso"], runs["adamw"]], cfg, text)
    if guard is not None:
        return guard
    ok = growth["sso"] <= cfg.act_flat_max and growth["adamw"] >= cfg.act_growth_factor * growth["sso"]
    return ClaimCheck(text, bool(ok), values)


@claim_rule("C7", statement="SSO keeps hidden activations bounded over training (RMS roughly flat), while AdamW's "
            "grow.",
            rule="after the convergence guard (the SSO and AdamW runs compared converged, else inconclusive): growth "
                 "of the attention and MLP output RMS over the late window (the last third of training, the guard's "
                 "window; from the end of warm-up until issue 28, which measured the early transient from two "
                 "different initialisations), largest over sites, each optimiser at its tuned rate on the widest "
                 "model: SSO's <= 1.5 and AdamW's >= 1.5 x SSO's",
            rejects="activations that grow as much under SSO as under AdamW",
            paper="SSO constant; Muon drifts mildly; AdamW about 100x larger (Fig. 1, 1.7B)")
def claim7(runs: dict[str, RunResult], cfg: SSOConfig) -> ClaimCheck:
    return _growth_rule(runs, cfg, "rms", "", "RMS")


@claim_rule("C11", statement="SSO suppresses activation outliers (attention-output AbsMax roughly flat over "
            "training), while AdamW's grow.",
            rule="C7's rule on the largest absolute attention output (AbsMax): after the convergence guard, its growth "
                 "over the last third of training, largest over layers, at each optimiser's tuned rate on the widest "
                 "model: SSO's <= 1.5 and AdamW's >= 1.5 x SSO's (added in issue 28: the page printed AbsMax but no "
                 "rule decided it)",
            rejects="outliers that grow as much under SSO as under AdamW",
            paper="'suppressed outliers' (abstract); attention AbsMax constant under SSO, about 100x larger under "
                  "AdamW (Fig. 1, 1.7B)")
def claim11(runs: dict[str, RunResult], cfg: SSOConfig) -> ClaimCheck:
    return _growth_rule(runs, cfg, "absmax", "attn_out", "attention AbsMax")


def _drift_rule(runs: dict[str, RunResult], cfg: SSOConfig, other: str) -> ClaimCheck:
    missing = [o for o in ("sso", other) if o not in runs]
    if missing:
        return ClaimCheck("—", None, reason=f"needs runs of {missing}")
    s = runs["sso"]
    sso_dev = max(float(np.max(np.abs(v / s.spec.radius - 1))) for v in s.sigma_ratio.values())
    drift = max(sigma_drift(runs[other]).values())
    late = max(sigma_drift(runs[other], since=0.5).values())
    text = (f"SSO largest |sigma/R - 1| {sso_dev:.3f}; {other}'s sigma_max changes {drift:.0%} from start to end, "
            f"{late:.0%} over the second half")
    values = {"sso_deviation": sso_dev, "drift": drift, "late_drift": late}
    guard = _guard([runs["sso"], runs[other]], cfg, text)
    if guard is not None:
        return guard
    ok = sso_dev <= cfg.sigma_fixed_tol and drift >= cfg.drift_min and late >= cfg.drift_min
    return ClaimCheck(text, bool(ok), values)


@claim_rule("C8", statement="SSO's weights do not drift (sigma_max = R throughout), while Muon's spectral norms "
            "change over training (Muon is 'half-aligned': it controls updates but lets weights drift).",
            rule="after the convergence guard (the SSO and Muon runs compared converged, else inconclusive): SSO's "
                 "largest |sigma_max/R - 1| over matrices and tracked steps <= 0.05; Muon's largest relative change "
                 "of sigma_max over matrices >= 0.1 both from start to end and over the second half of training "
                 "(AdamW's half moved to C8b in issue 28: the abstract names Muon)",
            rejects="Muon's weights held in place by weight decay (a change below 10 %), or weights that grow from "
                    "the small initialisation and then settle (a change below 10 % over the second half)",
            paper="Muon: 'they control updates but allow weights to drift' (abstract)")
def claim8(runs: dict[str, RunResult], cfg: SSOConfig) -> ClaimCheck:
    return _drift_rule(runs, cfg, "muon")


@claim_rule("C8b", statement="(Ours) AdamW's weights drift too: their spectral norms change over training.",
            rule="C8's rule with AdamW in Muon's place: after the convergence guard, SSO's largest |sigma_max/R - 1| "
                 "<= 0.05 and AdamW's largest relative change of sigma_max >= 0.1 from start to end and over the "
                 "second half",
            rejects="AdamW's weights held in place by weight decay, or grown from the initialisation and settled",
            paper="not reached (our extra check: the abstract names Muon only)")
def claim8b(runs: dict[str, RunResult], cfg: SSOConfig) -> ClaimCheck:
    return _drift_rule(runs, cfg, "adamw")


@claim_rule("C9", statement="The radius c controls the activation scale: MLP output RMS grows as a power law in c "
            "and AbsMax grows monotonically.",
            rule="least-squares slope of log(final MLP output RMS, mean over layers) on log c with its 95% t-interval "
                 "(runtime.stats): reproduced when the interval lies above the minimum exponent declared in the config "
                 "(0.1; above 0 until issue 28), R^2 >= 0.95 and the final MLP output AbsMax (mean over layers) "
                 "strictly increases in c; not reproduced when the interval lies below 0.1, or R^2 < 0.95 or AbsMax "
                 "not increasing with the interval above it; otherwise inconclusive (the interval contains 0.1)",
            rejects="an activation scale the radius does not set (slope 0, the norms absorbing c)",
            paper="AbsMax follows c monotonically; RMS a power law in c (Sec. 4.3); best loss at c = 2")
def claim9(runs: Sequence[RunResult], cfg: SSOConfig) -> ClaimCheck:
    runs = sorted(runs, key=lambda r: r.spec.radius)
    if len(runs) < 3:
        return ClaimCheck("—", None, reason=f"the radius sweep needs >= 3 radii; got {len(runs)}")
    c = np.array([r.spec.radius for r in runs])
    rms = np.array([np.mean([v[-1] for k, v in r.act_rms.items() if "mlp_out" in k]) for r in runs])
    amax = np.array([np.mean([v[-1] for k, v in r.act_absmax.items() if "mlp_out" in k]) for r in runs])
    lx, ly = np.log(c), np.log(rms)
    # an RMS that does not move with c at all is an exact zero slope (linregress's interval is 0/0 there)
    slope, lo, hi = power_law_fit(c, rms) if np.ptp(ly) > 0 else (0.0, 0.0, 0.0)
    r2 = float(np.corrcoef(lx, ly)[0, 1] ** 2) if np.ptp(ly) > 0 else 0.0
    mono = bool(np.all(np.diff(amax) > 0))
    text = (f"RMS exponent {slope:.2f} [{lo:.2f}, {hi:.2f}], R^2 {r2:.3f}; AbsMax "
            + ", ".join(f"{a:.2f}" for a in amax) + " at c = " + ", ".join(f"{x:g}" for x in c))
    values = {"exponent": (slope, lo, hi), "r2": r2, "rms": rms, "absmax": amax, "c": c}
    dec = decide_interval(lo, hi, cfg.radius_min_exponent, side="lower")
    if dec.passed is None:
        return ClaimCheck.inconclusive_check(text, "interval spans both", dec.text, values=values)
    return ClaimCheck(text, bool(dec.passed and r2 >= cfg.radius_r2_min and mono), values)


@claim_rule("C10", statement="At tuned learning rates, SSO <= MuonSphere ≈ Muon < AdamW in final validation loss.",
            rule="after the convergence guard (every tuned run compared converged, else inconclusive): at every width, "
                 "with the paired 95% t-intervals of runtime.stats (over seeds with >= 2 seeds; with one seed over "
                 "the validation sequences, which all runs share: evaluation noise only): SSO - Muon and SSO - "
                 "MuonSphere below the tie band 0.02 nats/byte (upper end below 0.02), AdamW - each of the other "
                 "three above it (lower end above 0.02); not reproduced when an interval lies wholly on the far side "
                 "of 0.02, inconclusive when one contains it (since issue 28; the point means are shown)",
            rejects="AdamW as good as the spectral methods at toy scale, SSO behind Muon, or an ordering within the "
                    "noise of the evaluation",
            paper="SSO lowest at every width (Fig. 2); 1.7B: SSO 19% and Muon 12% fewer steps than AdamW")
def claim10(results: Sequence[RunResult], cfg: SSOConfig) -> ClaimCheck:
    results = list(results)
    tuned = tuned_losses(results)
    widths = sorted({w for (_, w) in tuned})
    names = ("adamw", "muon", "muonsphere", "sso")
    rows, decisions, bounds, unit, compared = [], [], {}, "", []
    for w in widths:
        loss = {o: tuned[(o, w)][1] for o in names if (o, w) in tuned}
        if len(loss) < 4:
            return ClaimCheck("—", None, reason=f"width {w} lacks runs of {sorted(set(names) - set(loss))}")
        at = {o: {r.spec.seed: r for r in results if (r.spec.optimizer, r.spec.width, r.spec.lr) == (o, w, tuned[(o, w)][0])}
              for o in names}
        compared += [r for o in names for r in at[o].values()]
        parts = []
        for a, b, side in (("sso", "muon", "upper"), ("sso", "muonsphere", "upper"), ("adamw", "muon", "lower"),
                           ("adamw", "muonsphere", "lower"), ("adamw", "sso", "lower")):
            d, unit = _paired_differences(at[a], at[b])
            if d is None:
                return ClaimCheck("; ".join(rows) or "—", None, {"tuned": tuned},
                                  reason=f"width {w}: {a} and {b} share no seed with per-sequence validation losses")
            eb = effect_bound(d, cfg.loss_tie, side=side)
            bounds[(w, a, b)] = eb
            decisions.append(eb.decision())
            parts.append(f"{a}-{b} {eb.mean:+.3f} [{eb.lo:+.3f}, {eb.hi:+.3f}]")
        rows.append(f"w{w}: " + ", ".join(f"{o} {v:.3f}" for o, v in loss.items()) + "; paired " + ", ".join(parts))
    text = "; ".join(rows) + f"; 95% t-intervals over {unit}"
    values = {"tuned": tuned, "bounds": bounds}
    guard = _guard(compared, cfg, text)
    if guard is not None:
        return guard
    if any(dc.passed is False for dc in decisions):
        return ClaimCheck(text, False, values)
    if any(dc.passed is None for dc in decisions):
        spans = [dc.text for dc in decisions if dc.passed is None]
        return ClaimCheck.inconclusive_check(text, "interval spans both", "; ".join(spans), values=values)
    return ClaimCheck(text, True, values)


def _paired_differences(a: dict, b: dict) -> tuple[np.ndarray | None, str]:
    """Paired differences of final validation loss between two optimisers' runs keyed by seed: one per shared seed
    where >= 2 seeds are shared; with one, per validation sequence (the same sequences: same seed and protocol)."""
    seeds = sorted(set(a) & set(b))
    if len(seeds) >= 2:
        return np.array([a[s].final_val_loss - b[s].final_val_loss for s in seeds]), f"{len(seeds)} seeds"
    if not seeds:
        return None, ""
    x, y = a[seeds[0]].val_per_seq, b[seeds[0]].val_per_seq
    if x.size < 2 or x.shape != y.shape:
        return None, ""
    return x - y, f"{x.size} validation sequences of one seed (evaluation noise only)"


not_testable("P1", statement="Dense 1.7B on 100B tokens: Muon reaches AdamW's final validation loss (2.588) in 12% "
             "fewer steps, SSO in 19% fewer.", paper="12% and 19% fewer steps (Sec. 6.2)",
             reason="needs a 1.7B-parameter model and 100B tokens of OLMo-Mix; this chapter trains 0.1-2M parameters "
                    "on a few hundred thousand bytes (C10 asks the same ordering question at that scale)")
not_testable("P2", statement="SSO's optimal learning rate is 1e-2 at widths 256, 512, 1024 and 2048 and its loss "
             "the lowest at every width.", paper="1e-2 at every width; 3.4578 / 3.1119 / 2.8383 / 2.6481 (Fig. 2)",
             reason="70M-1.8B parameters on 30B tokens per point of a nine-point grid; C6 and C10 test the same "
                    "shape at widths 64-256")
not_testable("P3", statement="MoE 8B-A1B: SSO has the lowest validation loss and the lowest router MaxVio (best load "
             "balance); AdamW's MaxVio is large and spiky.", paper="lowest loss and MaxVio (Fig. 9)",
             reason="needs an 8B mixture-of-experts model with a router; the tiny GPT here is dense")
not_testable("P4", statement="A 200-layer DeepNet trains stably with SSO (lowest loss), while AdamW shows loss "
             "spikes.", paper="AdamW spikes; SSO lowest and most stable (Fig. 10)",
             reason="needs a 200-layer model at 1.7B scale; the CPU runs here have 2 layers")
not_testable("P5", statement="Downstream zero/few-shot average of the 1.7B models: SSO 56.35, MuonSphere 56.19, "
             "Muon 55.26, AdamW 54.75.", paper="56.35 vs 54.75 (Table 3)",
             reason="needs the 1.7B models and nine downstream benchmarks; byte-level models of 2M parameters score "
                    "at chance on them")
not_testable("P6", statement="The Megatron implementation costs 11.5% more per step than Muon on B200 "
             "(7666 vs 6879 ms at 4M tokens).", paper="+11.5% (Table 2)",
             reason="a distributed Megatron implementation on B200 GPUs; the chapter measures SSO's CPU overhead on "
                    "its own small matrices, which is not comparable")

abstract_sentence("Emerging optimizers like Muon are only 'half-aligned' with these constraints: they control "
                  "updates but allow weights to drift.", "C8")
abstract_sentence("We introduce the Spectral Sphere Optimizer (SSO), which enforces strict module-wise spectral "
                  "constraints on both weights and their updates.", "C1", "C5", "C8")
abstract_sentence("By deriving the steepest descent direction on the spectral sphere, SSO realizes a fully "
                  "μP-aligned optimization process.", "C2", "C3", "C4", "C6")
abstract_sentence("To enable large-scale training, we implement SSO as an efficient parallel algorithm within "
                  "Megatron.", "P6")
abstract_sentence("Through extensive pretraining on diverse architectures, including Dense 1.7B, MoE 8B-A1B, and "
                  "200-layer DeepNet models, SSO consistently outperforms AdamW and Muon.",
                  "P1", "P2", "P3", "P4", "P5", "C10")
abstract_sentence("Furthermore, we observe significant practical stability benefits, including improved MoE router "
                  "load balancing, suppressed outliers, and strictly bounded activations.", "P3", "C7", "C9", "C11")
