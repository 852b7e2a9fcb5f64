"""The chapter's claims, each rule declared once with the alternative it must reject.

The paper's text was not reached (dossier §1): its claims are the abstract's qualitative ones (sample
quality comparable to baselines, substantially fewer function evaluations and less memory in training and
inference, no projection failures, equality and inequality constraints on nonconvex sets). Its tables were
not read, so the paper column never holds a number. Thresholds are in the config.
"""

from __future__ import annotations

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import effect_bound, mean_t_bound
from ...training import convergence_guard, plateau_check
from .config import PRESETS, LandingConfig
from .experiments import QualityStudy


# CHANGED: rules C1-C5, C7-C9 were made stricter in session 4, after a rule-breaking review found them passable by
# construction or blind to a failure (and before any result of the session-4 default run was seen); the changes can
# only turn rows red. The chapter's "How this differs" lists them.
# CHANGED in session 6 (a second rule-breaking pass, /work/review/constrained_diffusion_landing.md, after the
# session-5 runs and before the session-6 default run): C8 checks the upper side of the trade-off (a gain beyond the
# stability limit), C5's control asks for more than the parity margin, C3 and C4e check every seed's number and
# count. Stricter only.


def _learned(jsd, oracle, uniform, f: float) -> np.ndarray:
    """Per seed: JSD at most oracle + f × (uniform − oracle) (the oracle: a fresh draw of the true law)."""
    jsd, oracle, uniform = (np.asarray(v, dtype=float) for v in (jsd, oracle, uniform))
    return np.isfinite(jsd) & (jsd <= oracle + f * (uniform - oracle))


_GUARD = (" Converged before compared (contract rule 10, second edition): every model the rule compares must pass "
          "the declared plateau test (config quality_plateau: the same model at 2/3 of its updates, its EMA weights "
          "kept and sampled, differs in JSD from the final one by less than a third of the parity margin on every "
          "seed); otherwise the row is inconclusive at this scale (not converged). Not reproduced only on evidence "
          "against: a parity difference whose 95 % lower t-bound exceeds the margin, or a converged model that has "
          "not learned; a difference whose interval straddles the margin is inconclusive (interval spans both).")


#: the earliest update at which the plateau test's earlier horizon may lie (a shorter run never counts as converged)
_MIN_EARLY = 7


def _guard(cfg: LandingConfig, methods, measured: str, quality: QualityStudy | None = None, earth: dict | None = None
           ) -> tuple[ClaimCheck | None, str]:
    """The convergence guard over ``methods``: JSD at the earlier horizon (``jsd_early``) against the final JSD,
    per seed, from the quality study's records or the volcano study's rows; a record without ``jsd_early`` is
    refused (the guard cannot be skipped). Returns the guard's *inconclusive* check (None when every model passed)
    and ``measured`` with every compared model's plateau reading appended (session 12, issue 35: the page shows the
    guard's measurement per compared model, the converged ones too, not only the failures in the reason)."""
    reports = []
    for m in methods:
        if quality is not None:
            recs = [r for r in quality.records if r["method"] == m]
            at = [r.get("jsd_early") for r in recs]
            later = [r["jsd"] for r in recs]
        else:
            at = [r[m].get("jsd_early") for r in earth["rows"]]
            later = [r[m]["jsd"] for r in earth["rows"]]
        if not at or any(a is None for a in at):
            raise ValueError(f"{m}: no JSD at the earlier horizon (jsd_early) to run the convergence guard on")
        rows = quality.records if quality is not None else [r[m] for r in earth["rows"]]
        few = min((r["early_step"] for r in rows if (quality is None or r["method"] == m) and "early_step" in r),
                  default=None)
        if few is not None and few < _MIN_EARLY:     # too few updates to show a plateau: never counted as converged
            reports.append(plateau_check([np.inf], [0.0], cfg.parity_margin, cfg.quality_plateau,
                                         name=f"{m} (its earlier horizon at update {few}, before {_MIN_EARLY})"))
            continue
        reports.append(plateau_check(at, later, cfg.parity_margin, cfg.quality_plateau, name=m))
    text = f"{measured}; plateau test: " + "; ".join(r.text for r in reports)
    return convergence_guard(*reports, measured=text), text


def _four(measured: str, ok: bool, against: bool, values: dict) -> ClaimCheck:
    if ok:
        return ClaimCheck(measured, True, values)
    if against:
        return ClaimCheck(measured, False, values)
    return ClaimCheck.inconclusive_check(measured, "interval spans both", "the parity difference's 95 % interval "
                                         "straddles the margin: this size cannot tell comparable from worse", values)


def _lower(values, cfg: LandingConfig) -> float:
    return mean_t_bound(values, cfg.level, side="lower")[1]


def _oracle(quality: QualityStudy) -> np.ndarray:
    if len(quality.oracle_jsd) != len(quality.uniform_jsd):
        raise ValueError("the quality study has no oracle JSD per seed (QualityStudy.oracle_jsd)")
    return np.asarray(quality.oracle_jsd, dtype=float)


@claim_rule("C1", statement="Landing keeps forward and backward paths near the feasible set without projecting, and "
            "the terminal projection lands exactly on it (on S² with our constraint h = |x|² − 1; the official code "
            "uses |x| − 1, about half of ours near the set).",
            rule="max over steps of the mean |h| (h = |x|² − 1, ours) along OLLA's and ULLA's forward paths and along "
                 "their backward paths on every seed <= 1e-3 (our threshold, from the dossier's example; not the "
                 "paper's number), and the violation after the terminal projection <= 1e-6 on every seed; any "
                 "non-finite value fails",
            rejects="iterates that drift off the set between projections (mean |h| of order sigma^2 dt), or a sampler "
                    "that diverges on one seed",
            paper="no projection failures; feasibility through landing (abstract; no number given)")
def claim1(forward: dict, quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    # Backward part on every seed's records (not seed 0's trace only) and NaN-safe maxima: see CHANGED above.
    fw = {m: float(np.max(np.asarray(forward[m]["trace"], dtype=float))) for m in ("OLLA", "ULLA")}
    land = [r for r in quality.records if r["method"] in ("OLLA", "ULLA")]
    bw = {m: float(np.max(np.asarray([r["max_mean_violation_backward"] for r in land if r["method"] == m], dtype=float)))
          for m in ("OLLA", "ULLA") if any(r["method"] == m for r in land)}
    terms = np.asarray([forward[m]["terminal"] for m in forward] + [r["terminal_violation"] for r in land], dtype=float)
    term = float(np.max(terms))
    vals = np.asarray(list(fw.values()) + list(bw.values()) + [term], dtype=float)
    finite = bool(np.isfinite(vals).all())
    worst = max(list(fw.values()) + list(bw.values()))
    ok = finite and len(bw) == 2 and worst <= cfg.feas_mean_h and term <= cfg.terminal_tol
    return ClaimCheck("max mean |h| along paths: forward " + ", ".join(f"{m} {v:.1e}" for m, v in fw.items())
                      + "; backward (every seed) " + ", ".join(f"{m} {v:.1e}" for m, v in bw.items())
                      + f"; after the terminal projection {term:.1e}" + ("" if finite else "; non-finite values"),
                      bool(ok), {"forward": fw, "backward": bw, "terminal": term})


def claim1_in_code_parameterisation(forward: dict, check1: ClaimCheck, cfg: LandingConfig) -> str:
    """Whether claim 1's verdict rests on our parameterisation (the audit: h = |x|² − 1 where the official code uses
    |x| − 1, and the 1e-3 bar is the dossier's example): one computed sentence. The forward paths' largest mean
    ||x| − 1| is measured on the same iterates (``trace_code``); on the backward paths it is at most ours, since
    ||x| − 1| = |h| / (|x| + 1) <= |h|. So a pass in ours is a pass in the code's; a failure carries over only when a
    forward value in the code's parameterisation is still above the bar (otherwise the sentence says it is open)."""
    if not all(isinstance(forward.get(m), dict) and "trace_code" in forward[m] for m in ("OLLA", "ULLA")):
        return ("The code's parameterisation was not measured in this run (an old cache): whether claim 1's verdict "
                "depends on ours is not shown.")
    code = {m: float(np.max(np.asarray(forward[m]["trace_code"], dtype=float))) for m in ("OLLA", "ULLA")}
    text = ("In the code's parameterisation |x| − 1 the same forward paths' largest mean violation is "
            + ", ".join(f"{m} {v:.1e}" for m, v in code.items()) + f" (bar {cfg.feas_mean_h:g}); on the backward "
            "paths it is at most ours, since ||x| − 1| = |h| / (|x| + 1) ≤ |h|.")
    if check1.passed:
        return text + " So claim 1 would pass in the code's parameterisation too."
    above = [m for m, v in code.items() if not v <= cfg.feas_mean_h]
    if above:
        return (text + f" So claim 1 would fail there too: {', '.join(above)}'s forward paths stay above the bar in "
                "either parameterisation; the verdict does not rest on ours.")
    return (text + " Every forward value passes there, and the backward paths' values in the code's parameterisation "
            "are not recorded: whether claim 1 fails there too is open, so its failure may rest on our "
            "parameterisation.")


def _updates(cfg: LandingConfig) -> int:
    """Updates of one S² sampler: epochs x mini-batches per epoch (one when the batch holds every point)."""
    return cfg.epochs * max(1, -(-cfg.n_train // cfg.batch_size))


def full_needs(checks: dict, cfg: LandingConfig, full: LandingConfig) -> str:
    """One computed sentence for the page (issue 35: where convergence cannot fit the profile's budget, the row is
    inconclusive there and decided at ``full``, and the page says what ``full`` needs): the rows of ``checks`` (id ->
    check) that came out *inconclusive, not converged*, this profile's training and the ``full`` preset's, read from
    the two configs. Empty when no row is stopped by the guard."""
    rows = [cid for cid, c in checks.items() if getattr(c, "inconclusive", None) == "not converged"]
    if not rows:
        return ""
    return (f"Claim(s) {', '.join(rows)} stop at the convergence guard at this profile: its samplers train "
            f"{_updates(cfg):,} updates ({cfg.epochs:,} epochs of {cfg.n_train:,} points in batches of "
            f"{min(cfg.batch_size, cfg.n_train):,}, a {cfg.depth}×{cfg.width} network, {cfg.n_seeds} seeds). They are "
            f"decided at `full`, which trains {_updates(full):,} updates ({full.epochs:,} epochs of {full.n_train:,} "
            f"points in batches of {min(full.batch_size, full.n_train):,}, a {full.depth}×{full.width} network, "
            f"{full.n_seeds} seeds) and runs the same plateau test; whether its models pass it is for that run to show "
            "(`full` has not been run on this machine).")


@claim_rule("C2", statement="Landing never fails, while projection-based variants drop trajectories when steps are large.",
            rule="no landing trajectory has a failed projection anywhere along it (every intermediate iterate's projection, "
                 "tried on the side, and the terminal one; OLLA on every step size of the torus study, OLLA and ULLA "
                 "training paths and samples on S²) and landing's largest violation along its paths is <= 0.1 at every "
                 "step size; OLLA-P drops at least 1 % of its trajectories at the largest step, more than at the smallest",
            rejects="projections that never fail on the set (no failure for landing to avoid), drops that do not grow "
                    "with the step, or landing iterates that drift far off the set (or where its projection fails)",
            paper="no projection failures (abstract)")
def claim2(drop: dict, quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    # Landing's violation bound and OLLA-P's minimum, growing drop rate: see CHANGED above.
    rows = sorted(drop["rows"], key=lambda r: r["dt_sigma2"])
    land = [r for r in quality.records if r["method"] in ("OLLA", "ULLA")]
    torus_fail = sum(r["OLLA_drop_rate"] for r in rows)
    s2_fail = sum(r["failed_along_paths"] + r["failed_along_samples"] for r in land)
    viol = np.asarray([r["OLLA_max_violation"] for r in rows], dtype=float)
    viol_ok = bool(np.isfinite(viol).all() and (viol <= cfg.drop_violation_tol).all())
    first, last = rows[0]["OLLA-P_drop_rate"], rows[-1]["OLLA-P_drop_rate"]
    ok = torus_fail == 0 and s2_fail == 0 and viol_ok and last >= cfg.drop_min_rate and last > first
    return ClaimCheck("landing trajectories with a failed projection along the path: torus " + ", ".join(
        f"{r['OLLA_drop_rate']:.1%}" for r in rows) + f", S² {s2_fail:g}; OLLA-P drop rate " + ", ".join(
        f"{r['OLLA-P_drop_rate']:.1%} at Δtσ²={r['dt_sigma2']:.3g}" for r in rows) + "; landing's worst violation "
        + ", ".join(f"{v:.2g}" for v in viol) + f" (limit {cfg.drop_violation_tol:g})", bool(ok),
        {"rows": rows, "torus_fail": torus_fail, "s2_fail": s2_fail, "violation_ok": viol_ok})


@claim_rule("C3", statement="The forward process reaches the prior (uniform on the set), and the underdamped one gets "
            "there in fewer steps.",
            rule="the MMD permutation test rejects uniformity for the data at t=0 on every seed and, at the largest N, "
                 "rejects it for no seed of OLLA or ULLA (Bonferroni level 0.05 / (2 × seeds)), with no point lost; at "
                 "the smallest N, the one-sided 95 % upper t-bounds of MMD²(ULLA) − MMD²(OLLA) and of MMD²(ULLA) − "
                 "MMD²(OLLA on ULLA's schedule) over seeds are both below 0",
            rejects="a forward marginal that stays distinguishable from uniform, a test too weak to tell the data from "
                    "uniform, or ULLA no closer to uniform than the overdamped process at few steps (on either schedule)",
            paper="not reached (the abstract claims fewer function evaluations, not a mixing rate)")
def claim3(prior: dict, cfg: LandingConfig) -> ClaimCheck:
    # Power check at t=0, lost points and the same-schedule control: see CHANGED above.
    rows = prior["rows"]
    Ns = sorted({r["N"] for r in rows})
    last = [r for r in rows if r["N"] == Ns[-1]]
    first = [r for r in rows if r["N"] == Ns[0]]
    bonf = cfg.prior_alpha / (2 * len(last))
    # Session 6: NumPy over every seed (Python's min/max skipped a NaN p-value not in first place) and one start
    # p-value per seed of the study.
    p_min = {m: float(np.min(np.asarray([r[f"{m}_p"] for r in last], dtype=float))) for m in ("OLLA", "ULLA")}
    lost = sum(int(r.get(f"{m}_lost", 0)) for r in rows for m in ("OLLA", "ULLA", "OLLA@U"))
    start_p = prior.get("start_p")
    sp = np.asarray(start_p if start_p is not None else [], dtype=float)
    power = len(sp) == len(last) and len(sp) > 0 and bool((sp <= bonf).all())
    diff = np.array([r["ULLA_mmd2"] - r["OLLA_mmd2"] for r in first])
    mean, up = mean_t_bound(diff, cfg.level)
    have_ctrl = all("OLLA@U_mmd2" in r for r in first)
    if have_ctrl:
        mean_c, up_c = mean_t_bound(np.array([r["ULLA_mmd2"] - r["OLLA@U_mmd2"] for r in first]), cfg.level)
    else:
        mean_c, up_c = float("nan"), float("inf")
    ok = all(v >= bonf for v in p_min.values()) and up < 0 and up_c < 0 and lost == 0 and power
    mm = {m: float(np.mean([r[f"{m}_mmd2"] for r in last])) for m in ("OLLA", "ULLA")}
    return ClaimCheck(f"on the {prior['set']}, {len(last)} seeds: at t=0 largest p "
                      + (f"{float(np.max(sp)):.3f}" if len(sp) else "not computed")
                      + f"; at N={Ns[-1]}, smallest p OLLA {p_min['OLLA']:.3f}, ULLA {p_min['ULLA']:.3f} (Bonferroni level "
                      f"{bonf:.4f}; mean MMD² {mm['OLLA']:.4f}, {mm['ULLA']:.4f}); at N={Ns[0]}, MMD²(ULLA) − MMD²(OLLA) "
                      f"{mean:+.4f} (upper {up:+.4f}), − MMD²(OLLA on ULLA's schedule) {mean_c:+.4f} (upper {up_c:+.4f}); "
                      f"points lost {lost} (data at t=0: MMD² {prior['start_mmd2']:.4f})", bool(ok),
                      {"p_min": p_min, "diff_mean": mean, "diff_upper": up, "control_upper": up_c, "bonferroni": bonf,
                       "lost": lost, "power": power})


@claim_rule("C4", statement="Sample quality is comparable between the underdamped and overdamped landing samplers, "
            "and every variant learns the data.",
            rule="the one-sided 95 % upper t-bound of the paired JSD difference ULLA − OLLA over seeds is <= 0.02; OLLA, "
                 "ULLA, OLLA-P and ULLA-P each have JSD <= oracle + 0.5 × (uniform − oracle) on every seed (the oracle a "
                 "fresh draw of the true mixture); the projection variants drop at most 1 % of their samples. On S² the "
                 "projection variants' JSD differences are reported, not decided (landing and projection are both radial "
                 "there: the same samples up to a fraction of a degree)" + _GUARD,
            rejects="ULLA worse than OLLA by more than 0.02 JSD, or models that closed less than half the gap from the "
                    "uniform law to the oracle",
            paper="comparable sample quality to baselines (abstract; no number given)")
def claim4(quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    # ULLA vs OLLA decided, -P parity reported only, learned against the oracle, dropped samples: see CHANGED above.
    base = quality.values("OLLA", "jsd")
    mean, up = mean_t_bound(quality.values("ULLA", "jsd") - base, cfg.level)
    parts = [f"ULLA − OLLA {mean:+.4f} (upper {up:+.4f})"]
    for m in ("OLLA-P", "ULLA-P"):
        mm, uu = mean_t_bound(quality.values(m, "jsd") - base, cfg.level)
        parts.append(f"{m} − OLLA {mm:+.4f} (upper {uu:+.4f}; reported)")
    unif, orc = np.asarray(quality.uniform_jsd, dtype=float), _oracle(quality)
    learned = {m: bool(_learned(quality.values(m, "jsd"), orc, unif, cfg.learned_fraction).all())
               for m in ("OLLA", "ULLA", "OLLA-P", "ULLA-P")}
    dropped = {m: float(np.max(quality.values(m, "dropped_samples"))) / cfg.n_test for m in ("OLLA-P", "ULLA-P")}
    ok = up <= cfg.parity_margin and all(learned.values()) and max(dropped.values()) <= cfg.max_dropped
    against = (_lower(quality.values("ULLA", "jsd") - base, cfg) > cfg.parity_margin or not all(learned.values())
               or max(dropped.values()) > cfg.max_dropped)
    measured = (f"JSD OLLA {base.mean():.4f} over {len(base)} seeds (uniform law {unif.mean():.4f}, oracle "
                f"{orc.mean():.4f}, learned below {np.mean(orc + cfg.learned_fraction * (unif - orc)):.4f}); "
                + "; ".join(parts) + "; learned: " + ", ".join(f"{m} {'yes' if v else 'no'}" for m, v in learned.items())
                + "; dropped samples " + ", ".join(f"{m} {v:.1%}" for m, v in dropped.items()))
    vals = {"learned": learned, "upper": up, "dropped": dropped}
    guard, measured = _guard(cfg, ("OLLA", "ULLA", "OLLA-P", "ULLA-P"), measured, quality=quality)
    return guard or _four(measured, ok, against, vals)


@claim_rule("C5", statement="The underdamped variant needs about half the function evaluations of the overdamped one "
            "for similar quality, with less training time and memory.",
            rule="on every seed ULLA's NFE <= OLLA's / 2 + 1, its stored paths and its measured training time below "
                 "OLLA's; the one-sided 95 % upper t-bound of JSD(ULLA) − JSD(OLLA) <= 0.02; and, as the control, the "
                 "lower t-bound of JSD(OLLA sampled at ULLA's N) − JSD(ULLA) over seeds above the same 0.02 (OLLA at "
                 "half its steps is not of similar quality: underdamping, not the step count, buys the parity)" + _GUARD,
            rejects="ULLA needing OLLA's number of steps for the same quality (worse by > 0.02 JSD at N/2), or OLLA within "
                    "0.02 JSD of ULLA at N/2 (OLLA of similar quality at half its steps too: no gain from underdamping)",
            paper="substantially fewer function evaluations, lower memory (abstract; no number given)", timed=True)
def claim5(quality: QualityStudy, nfe: dict, cfg: LandingConfig) -> ClaimCheck:
    # NFE and memory checked on every seed and the OLLA-at-N/2 control (from the NFE curve): see CHANGED above.
    # Session 6: the control's bound must clear the parity margin, not 0 (a review found OLLA at N/2 only 0.004 worse
    # than ULLA passing, while by the rule's own margin that is "similar quality" at half the steps for OLLA too).
    mean, up = mean_t_bound(quality.values("ULLA", "jsd") - quality.values("OLLA", "jsd"), cfg.level)
    to, tu = quality.values("OLLA", "train_seconds"), quality.values("ULLA", "train_seconds")
    mo, mu = quality.values("OLLA", "path_megabytes"), quality.values("ULLA", "path_megabytes")
    no, nu = quality.values("OLLA", "nfe"), quality.values("ULLA", "nfe")
    n_half = int(nu[0])
    ctrl = {m: {r["seed"]: r["jsd"] for r in nfe["rows"] if r["method"] == m and r["N"] == n_half} for m in ("OLLA", "ULLA")}
    seeds = sorted(set(ctrl["OLLA"]) & set(ctrl["ULLA"]))
    if seeds:
        cm, clo = mean_t_bound([ctrl["OLLA"][s] - ctrl["ULLA"][s] for s in seeds], cfg.level, side="lower")
    else:
        cm, clo = float("nan"), float("-inf")
    ok = (up <= cfg.parity_margin and bool((nu <= no / 2 + 1).all()) and bool((mu < mo).all()) and bool((tu < to).all())
          and clo > cfg.parity_margin)
    cup = (mean_t_bound([ctrl["OLLA"][s] - ctrl["ULLA"][s] for s in seeds], cfg.level)[1] if seeds else float("inf"))
    against = (_lower(quality.values("ULLA", "jsd") - quality.values("OLLA", "jsd"), cfg) > cfg.parity_margin
               or not bool((nu <= no / 2 + 1).all()) or not bool((mu < mo).all()) or cup < cfg.parity_margin)
    return _c5_out(quality, cfg, ok, against, f"NFE {nu.mean():.0f} vs {no.mean():.0f}; JSD difference {mean:+.4f} (upper {up:+.4f}); training "
                      f"{tu.mean():.1f} s vs {to.mean():.1f} s; stored paths {mu.mean():.1f} vs {mo.mean():.1f} MiB; control "
                      f"JSD(OLLA at N={n_half}) − JSD(ULLA at N={n_half}) {cm:+.4f} (lower {clo:+.4f}, {len(seeds)} seeds; needs > "
                      f"{cfg.parity_margin:g})", {"upper": up, "control_lower": clo})


def _c5_out(quality, cfg, ok, against, measured, vals):
    guard, measured = _guard(cfg, ("OLLA", "ULLA"), measured, quality=quality)
    return guard or _four(measured, ok, against, vals)


@claim_rule("C6", statement="A landing step costs less than a Newton projection (the projection the baselines use), "
            "on SO(n) with tens of constraints: fewer constraint evaluations and linear solves per point.",
            rule="at every SO(n) of the study, from points one OLLA mid-schedule step σ(T/2)·√Δt off the group, the "
                 "operations per point counted on the real code (a counter wrapped around the constraint set's "
                 "evaluation-with-Jacobian and its p×p solve; landing's step as the samplers call it, Newton with each "
                 "point stopped at its own tolerance, the count most favourable to Newton): Newton ÷ landing >= "
                 "cost_ratio (2); the wall-clock ratio (fastest of interleaved repeats) is reported beside, not decided on "
                 "(second edition: landing's side was a typed constant before)",
            rejects="a Newton projection that converges in about one iteration (a one-shot corrector: 1.5× landing's "
                    "operations), at any n of the sweep, or a landing step that costs as much as the projection",
            paper="not reached (the abstract's efficiency argument)", timed=True)
def claim6(cost: dict, cfg: LandingConfig) -> ClaimCheck:
    """Changed after the session-3 runs: the rule was the wall-clock ratio Newton/landing >= 2, which swung from 0×
    to 103× under load in a smoke run. Operation counts are deterministic for a seed; the wall time (now the
    fastest of interleaved repeats) is reported beside. Changed in the second edition (issue 35): both sides are
    counted on the real code (:func:`~.experiments.counted_operations`); a study without the counts is refused."""
    rows = cost["rows"]
    if not cost.get("counted") or any("landing_evaluations" not in r for r in rows):
        return ClaimCheck("—", None, reason="the cost study predates the counted operations (an old cache; rerun)")
    ratios = {r["n"]: r["newton_operations"] / r["landing_operations"] for r in rows}
    wall = {r["n"]: r["newton_seconds"] / r["landing_seconds"] if r["landing_seconds"] > 0 else float("inf") for r in rows}
    worst = min(ratios, key=ratios.get)
    return ClaimCheck("operations per point, counted (evaluations + solves), Newton / landing: " + ", ".join(
        f"SO({r['n']}) {r['newton_operations']:.2f} / {r['landing_operations']:.2f} = {ratios[r['n']]:.2f}× "
        f"({r['newton_iterations_mean']:.2f} Newton iterations)" for r in rows)
        + f"; smallest at SO({worst}); wall clock (fastest of {cost.get('repeat', 1)} interleaved repeats): "
        + ", ".join(f"SO({n}) {w:.1f}×" for n, w in wall.items()),
        bool(np.isfinite(list(ratios.values())).all() and min(ratios.values()) >= cfg.cost_ratio),
        {"ratios": ratios, "wall_ratios": wall, "worst_n": worst})


@claim_rule("C6s", statement="Where the set has a closed-form projection, a landing step still costs less than "
            "projecting (at most half as much, claim 6's margin): on SO(n), landing's step (the generic Gauss-Newton "
            "correction the samplers use, and the same step written for SO(n)) against the polar factor by SVD (our "
            "check beyond the abstract: the abstract's baselines were not reached).",
            rule="at every SO(n) of the cost study, from the same points one OLLA mid-schedule step off the group, the "
                 "wall time of landing's step and of the SVD projection timed back to back in each of the study's "
                 "interleaved rounds; per n, the paired log ratio log(SVD time / landing time) over the rounds with its "
                 "95 % t-interval against log cost_ratio (2, the same minimum effect as claim 6): reproduced when the "
                 "lower end is above it at every n, not reproduced when the whole interval lies below it at some n "
                 "(evidence that landing is not 2x cheaper there), inconclusive (interval spans both) otherwise; not "
                 "testable with fewer than two rounds. Wall time, since the SVD evaluates no constraint and solves no "
                 "p x p system: operation counts do not compare across the two. Evidence against the step, not against "
                 "one way of computing it (session 10, an outside review: the same step written for SO(n), from one n x n "
                 "symmetric eigendecomposition, cost 4-16x less than the generic one from SO(6) up in its study at load 5): not reproduced at "
                 "an n only when the interval of that SO(n) form of the step, timed in the same rounds, lies below "
                 "cost_ratio too; where only the generic step's does, inconclusive (interval spans both); a study "
                 "without that timing is not testable (an old cache)",
            rejects="a projection in landing's place (the Newton projection of the baselines, timed in the same rounds), "
                    "or a landing step no cheaper than the closed-form projection at some n, computed either way",
            paper="not reached (the abstract's efficiency argument; no closed-form baseline named)", timed=True)
def claim6s(cost: dict, cfg: LandingConfig) -> ClaimCheck:
    """Added in session 9 (issue 35): the cost row against SO(n)'s closed-form projection, which claim 6 (against an
    iterated Newton projection) does not answer."""
    rows = cost["rows"]
    if not cost.get("svd_timed") or any("round_seconds" not in r for r in rows):
        return ClaimCheck("—", None, reason="the cost study predates the SVD projection's timing (an old cache; rerun)")
    if not cost.get("eigh_timed") or any("landing_eigh" not in r["round_seconds"] for r in rows):
        return ClaimCheck("—", None, reason="the cost study predates the timing of landing's step written for SO(n) "
                                            "(an old cache; rerun)")
    repeat = min(len(r["round_seconds"]["landing"]) for r in rows)
    if repeat < 2:
        return ClaimCheck(f"{repeat} timed round per n", None,
                          reason="one timed round per n: the paired ratio has no interval at this profile")
    thr = float(np.log(cfg.cost_ratio))

    def ratio(r, side):
        with np.errstate(divide="ignore", invalid="ignore"):
            return effect_bound(np.log(np.asarray(r["round_seconds"]["svd"], float)
                                       / np.asarray(r["round_seconds"][side], float)), thr, side="lower",
                                nonfinite="drop")

    parts, parts_eigh, texts, ratios, ratios_eigh = {}, {}, [], {}, {}
    for r in rows:
        e, f = ratio(r, "landing"), ratio(r, "landing_eigh")
        parts[r["n"]] = e.decision().passed if e.n >= 2 else None
        parts_eigh[r["n"]] = f.decision().passed if f.n >= 2 else None
        ratios[r["n"]], ratios_eigh[r["n"]] = float(np.exp(e.mean)), float(np.exp(f.mean))
        texts.append(f"SO({r['n']}) {np.exp(e.mean):.2f}x [{np.exp(e.lo):.2f}, {np.exp(e.hi):.2f}], written for SO(n) "
                     f"{np.exp(f.mean):.2f}x [{np.exp(f.lo):.2f}, {np.exp(f.hi):.2f}] (fastest: landing "
                     f"{1e3 * r['landing_seconds']:.2f} ms, for SO(n) {1e3 * r['landing_eigh_seconds']:.2f} ms, SVD "
                     f"{1e3 * r['svd_seconds']:.2f} ms)")
    measured = (f"SVD projection time / landing step time (the generic step the samplers use, and the same step written "
                f"for SO(n)), geometric mean over {repeat} interleaved rounds with its 95 % interval (limit "
                f"{cfg.cost_ratio:g}x), {cost['points']} points: " + "; ".join(texts))
    values = {"ratios": ratios, "ratios_eigh": ratios_eigh, "parts": {str(k): v for k, v in parts.items()},
              "parts_eigh": {str(k): v for k, v in parts_eigh.items()}}
    # session 10 (an outside review): evidence against the step needs both ways of computing it below the limit
    against = [n for n, v in parts.items() if v is False and parts_eigh[n] is False]
    if against:
        return ClaimCheck(measured, False, values, reason="evidence against at " + ", ".join(f"SO({n})" for n in against)
                          + f": the interval lies below {cfg.cost_ratio:g}x, for the generic step and for the step "
                            "written for SO(n)")
    if all(v is True for v in parts.values()):
        return ClaimCheck(measured, True, values)
    open_ = [n for n, v in parts.items() if v is not True]
    return ClaimCheck.inconclusive_check(measured, "interval spans both", "undecided at " + ", ".join(
        f"SO({n})" + (" (the generic step below the limit, the same step written for SO(n) not)" if parts[n] is False
                      else "") for n in open_) + f": an interval contains {cfg.cost_ratio:g}x", values)


@claim_rule("C7", statement="Equality and inequality constraints are handled together on a nonconvex set: samples "
            "satisfy both and follow the data inside.",
            rule="on the capped sphere with a bite, landing's samples before the terminal projection have max |h| and max "
                 "g⁺ <= 1e-3 and all lie inside the caps and the bite; after it |h| and g⁺ <= 1e-6; and the samples' JSD "
                 "is at most oracle + 0.5 × (uniform-on-set − oracle)",
            rejects="landing samples outside the caps or the bite (which the terminal projection would hide), or a model "
                    "that closed less than half the gap from the uniform law to the oracle",
            paper="equality and inequality constraints on nonconvex sets (abstract)")
def claim7(mixed: dict, cfg: LandingConfig) -> ClaimCheck:
    # Feasibility decided before the terminal projection, learned against the oracle: see CHANGED above.
    a, b = mixed["after"], mixed["before"]
    inside = mixed.get("inside_before", float("nan"))
    oracle = mixed.get("oracle_jsd", float("nan"))
    learned = bool(_learned([mixed["jsd"]], [oracle], [mixed["uniform_jsd"]], cfg.learned_fraction)[0])
    ok = (b["max_abs_h"] <= cfg.feas_mean_h and b["max_relu_g"] <= cfg.feas_mean_h and inside == 1.0
          and a["max_abs_h"] <= cfg.terminal_tol and a["max_relu_g"] <= cfg.terminal_tol and learned)
    return ClaimCheck(f"before the terminal projection: max |h| {b['max_abs_h']:.1e}, max g⁺ {b['max_relu_g']:.1e}, inside "
                      f"{inside:.1%}; after: {a['max_abs_h']:.1e}, {a['max_relu_g']:.1e}; JSD {mixed['jsd']:.4f} vs "
                      f"uniform-on-set {mixed['uniform_jsd']:.4f}, oracle {oracle:.4f}", bool(ok), {"learned": learned})


def gain_diagnostic(sweep: dict) -> str:
    """The landing gain sweep, described (a labelled diagnostic, not a claim of the ledger). Second edition (issue
    35): this was claim 8, "the gain trades off", decided on the explicit sides and implicit landing's stability.
    Beyond explicit landing's stability limit the divergence, and implicit landing's stability at every gain, are the
    identity |1 − s| of the update's linearisation (a check of our code, kept in the tests against an independent
    computation on sampled paths); the small-gain side is not the paper's claim either (its text was not reached).
    So no verdict: the numbers are shown as what they are."""
    rows = sweep["rows"]
    expl = sorted((r for r in rows if r["mode"] == "explicit" and not r.get("unstable", False)), key=lambda r: r["scale"])
    unstable = [r for r in rows if r["mode"] == "explicit" and r.get("unstable", False)]
    imps = [r for r in rows if r["mode"] == "implicit"]
    text = "mean |h| along the forward paths: explicit " + ", ".join(
        f"gain {r['scale']:g}: {r['mean_abs_h']:.2e}" for r in expl)
    if unstable:
        text += f"; beyond the stability limit, gain {unstable[0]['scale']:g}: {unstable[0]['mean_abs_h']:.2e}"
    if imps:
        text += f"; implicit {imps[0]['mean_abs_h']:.2e}"
    flips = ", ".join(f"gain {r['scale']:g} {r['sign_changes']:.0%}" for r in expl + unstable if "sign_changes" in r)
    return text + (f"; steps where h changes sign: {flips}" if flips else "")


@claim_rule("C4e", statement="On the paper's own S² data (volcano catalogue), ULLA at half the steps matches OLLA.",
            rule="over earth_seeds training seeds on one split: the one-sided 95 % upper t-bound of the paired JSD "
                 "difference ULLA − OLLA <= 0.02, and OLLA and ULLA on every seed at most floor + 0.5 × (uniform − "
                 "floor), the floor being 2000 draws of the training points scored the same way" + _GUARD,
            rejects="ULLA worse by more than 0.02 JSD on real data, or models that closed less than half the gap from the "
                    "uniform law to the training data's own score",
            paper="comparable quality on the earth-science data sets (abstract's benchmark; table not reached)")
def claim4e(earth: dict | None, cfg: LandingConfig) -> ClaimCheck:
    """Changed in session 5 (the session-4 review, "real at default"): the rule was a point comparison
    JSD(ULLA) <= JSD(OLLA) + 0.02 on one training seed, with "learned" meaning below the uniform law; on 84 test
    points the sampling noise of a JSD difference alone is about a third of the margin. Stricter only."""
    if earth is None:
        return ClaimCheck("—", None, reason="this profile does not train on the earth catalogues")
    rows = earth.get("rows") or []
    if len(rows) < cfg.earth_seeds:      # session 6: a count the rule names (was: fewer than 2 rows "not testable")
        return ClaimCheck("—", False, reason=f"{len(rows)} training seeds on the volcano catalogue, fewer than "
                                             f"earth_seeds={cfg.earth_seeds}")
    o = np.array([r["OLLA"]["jsd"] for r in rows], dtype=float)
    u = np.array([r["ULLA"]["jsd"] for r in rows], dtype=float)
    un = np.array([r["uniform_jsd"] for r in rows], dtype=float)
    fl = np.array([r["floor_jsd"] for r in rows], dtype=float)
    mean, up = mean_t_bound(u - o, cfg.level)
    learned = {m: bool(_learned(v, fl, un, cfg.learned_fraction).all()) for m, v in (("OLLA", o), ("ULLA", u))}
    ok = up <= cfg.parity_margin and all(learned.values())           # NaN: bound NaN, not learned: fails
    against = _lower(u - o, cfg) > cfg.parity_margin or not all(learned.values())
    return _c4e_out(earth, cfg, ok, against, f"volcano ({earth['n_train']} train / {earth['n_test']} test points, {len(rows)} seeds): JSD OLLA "
                      f"{o.mean():.4f} (NFE {rows[0]['OLLA']['nfe']}), ULLA {u.mean():.4f} (NFE {rows[0]['ULLA']['nfe']}), "
                      f"uniform {un.mean():.4f}, floor {fl.mean():.4f} (learned below "
                      f"{np.mean(fl + cfg.learned_fraction * (un - fl)):.4f}); ULLA − OLLA {mean:+.4f} (upper {up:+.4f}); "
                      "learned: " + ", ".join(f"{m} {'yes' if v else 'no'}" for m, v in learned.items()),
                      {"upper": up, "learned": learned})


def _c4e_out(earth, cfg, ok, against, measured, vals):
    if not np.isfinite(vals["upper"]):          # a non-finite JSD is a broken sampler: it fails, guard or not
        return ClaimCheck(measured, False, vals)
    guard, measured = _guard(cfg, ("OLLA", "ULLA"), measured, earth=earth)
    return guard or _four(measured, ok, against, vals)


@claim_rule("C9", statement="Landing's sample quality is comparable to a Riemannian score-based model that uses the "
            "sphere's exact exponential map (the same network, trainer, loss family, schedule and N as OLLA).",
            rule="for OLLA and ULLA, the one-sided 95 % upper t-bound of the paired JSD difference to RSGM over seeds is "
                 "<= 0.02, and RSGM, OLLA and ULLA each have JSD <= oracle + 0.5 × (uniform − oracle) on every seed" + _GUARD,
            rejects="landing worse than exact geodesic steps by more than 0.02 JSD (the price of leaving the set between "
                    "corrections), or models that closed less than half the gap from the uniform law to the oracle (parity "
                    "between models that hardly learned)",
            paper="comparable sample quality to state-of-the-art baselines (abstract; the baselines' list and numbers "
                  "not reached)")
def claim9(quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    ref = quality.values("RSGM", "jsd")
    parts, ok, against = [], True, False
    for m in ("OLLA", "ULLA"):
        mean, up = mean_t_bound(quality.values(m, "jsd") - ref, cfg.level)
        parts.append(f"{m} − RSGM {mean:+.4f} (upper {up:+.4f})")
        ok &= up <= cfg.parity_margin
        against |= _lower(quality.values(m, "jsd") - ref, cfg) > cfg.parity_margin
    # Learned against the oracle, for every model compared: see CHANGED above.
    unif, orc = np.asarray(quality.uniform_jsd, dtype=float), _oracle(quality)
    learned = all(bool(_learned(quality.values(m, "jsd"), orc, unif, cfg.learned_fraction).all())
                  for m in ("RSGM", "OLLA", "ULLA"))
    amb = quality.values("Ambient", "jsd")
    extra = f"; ambient diffusion + final projection {amb.mean():.4f}" if len(amb) else ""
    measured = (f"JSD RSGM {ref.mean():.4f} over {len(ref)} seeds (uniform law {unif.mean():.4f}, oracle "
                f"{orc.mean():.4f}); " + "; ".join(parts) + extra)
    guard, measured = _guard(cfg, ("RSGM", "OLLA", "ULLA"), measured, quality=quality)
    return guard or _four(measured, bool(ok and learned), bool(against or not learned), {"learned": learned})


not_testable("P1", statement="Mesh surfaces (Stanford bunny, Spot) with learned signed-distance constraints.",
             paper="part of the paper's benchmark (configs)", reason="needs the repository's learned SDF networks (pickles), not vendored")
def _benchmark_check(result: dict | None, name: str, cfg: LandingConfig) -> ClaimCheck:
    if result is None:
        why = {"so10": "100 coordinates and 55 constraints per point",
               "dipeptide": "the path-matching training on 30 coordinates",
               "robot": "106 constraints on 140 coordinates, autodiff kinematics at every step"}[name]
        where = [p for p, c in PRESETS.items() if name in c.benchmarks]
        return ClaimCheck("—", None, reason=f"not run at this profile (cost: {why}); it runs in "
                          + (", ".join(f"`{p}`" for p in where) or "no profile"))
    rows = list(result.get("rows") or [])
    # An empty study, a method or seed missing, or non-finite numbers fail with their reason (found in session 5:
    # `ok` started True, so a study with no rows passed; stricter only).
    seeds = sorted({r["seed"] for r in rows})
    missing = [f"{m} seed {s}" for s in seeds for m in ("OLLA", "ULLA")
               if not any(r["seed"] == s and r["method"] == m for r in rows)]
    problems = []
    if not rows:
        problems.append("the study returned no rows")
    elif len(seeds) < cfg.bench_seeds:
        problems.append(f"{len(seeds)} seeds, fewer than bench_seeds={cfg.bench_seeds}")
    if missing:
        problems.append("missing " + ", ".join(missing))
    nonfinite = [f"{r['method']} seed {r['seed']}" for r in rows if not np.isfinite(np.asarray(
        [r["jsd"], r["prior_jsd"], r.get("oracle_jsd", float("nan")), r["before"]["max_abs_h"], r["before"]["max_relu_g"],
         r["after"]["max_abs_h"], r["after"]["max_relu_g"]], dtype=float)).all()]
    if nonfinite:
        problems.append("non-finite values in " + ", ".join(nonfinite))
    ok, parts = not problems, []
    for r in rows:
        # Feasibility before the terminal projection and "learned" against the data's own floor, after the review
        # of C10-C12 (the C7 pattern): see CHANGED above.
        feas = (r["before"]["max_abs_h"] <= cfg.feas_mean_h and r["before"]["max_relu_g"] <= cfg.feas_mean_h
                and r["after"]["max_abs_h"] <= cfg.terminal_tol and r["after"]["max_relu_g"] <= cfg.terminal_tol
                and r["terminal_failed"] == 0 and r["non_finite"] == 0)
        oracle = r.get("oracle_jsd", float("nan"))
        learned = bool(_learned([r["jsd"]], [oracle], [r["prior_jsd"]], cfg.learned_fraction)[0])
        ok &= feas and learned
        parts.append(f"{r['method']} seed {r['seed']} (N={r['N']}): JSD {r['jsd']:.4f} vs prior {r['prior_jsd']:.4f}, "
                     f"floor {oracle:.4f}; before the terminal projection max |h| {r['before']['max_abs_h']:.1e}, max g⁺ "
                     f"{r['before']['max_relu_g']:.1e}; after {r['after']['max_abs_h']:.1e}, {r['after']['max_relu_g']:.1e}"
                     + (f", {r['terminal_failed']} failed terminal projections" if r["terminal_failed"] else ""))
    why = "; ".join(problems) or None
    return ClaimCheck(f"{result['set']} ({result['n_eq']} equalities, {result['n_ineq']} inequalities, {result['dim']} "
                      f"coordinates; {result['n_train']} train / {result['n_test']} test): " + ("; ".join(parts) or "no rows"),
                      bool(ok), {"problems": problems}, reason=why)


_BENCH_RULE = ("for OLLA and ULLA on every seed (at least bench_seeds seeds; an empty study, a missing method or a non-finite "
               "number fails): before the terminal projection max |h| and max g⁺ <= 1e-3, after it "
               "<= 1e-6, with no failed or non-finite sample; and the samples' JSD to held-out data at most floor + 0.5 × "
               "(prior − floor), the floor being training points scored the same way")
_BENCH_REJECTS = ("a model that closed less than half the gap from its prior (what a model that learned nothing returns) to "
                  "the data's floor, or landing samples off the set that only the terminal projection brings onto it")


@claim_rule("C10", statement="On SO(10) (55 equality constraints), landing models learn a rotation mixture and their "
            "samples lie on the group.", rule=_BENCH_RULE, rejects=_BENCH_REJECTS,
            paper="SO(10) mixtures in the benchmark (configs; numbers not reached)")
def claim10(result: dict | None, cfg: LandingConfig) -> ClaimCheck:
    """Quality: mean JSD of the trace-of-powers histograms; prior: Haar-uniform rotations."""
    return _benchmark_check(result, "so10", cfg)


@claim_rule("C11", statement="On the alanine dipeptide (φ fixed, ψ in a window: mixed equality and inequality "
            "constraints), landing models follow the data's ψ and RMSD distributions and satisfy both constraints.",
            rule=_BENCH_RULE, rejects=_BENCH_REJECTS,
            paper="alanine dipeptide with mixed constraints in the benchmark (configs; numbers not reached)")
def claim11(result: dict | None, cfg: LandingConfig) -> ClaimCheck:
    """Quality: mean JSD of the ψ and RMSD histograms; prior: the forward process's end points."""
    return _benchmark_check(result, "dipeptide", cfg)


@claim_rule("C12", statement="On 7-DOF arm trajectories (end-effector and joint equalities, obstacle inequalities), "
            "landing models generate feasible trajectories that follow the data.",
            rule=_BENCH_RULE, rejects=_BENCH_REJECTS,
            paper="7-DOF robot-arm planning in the benchmark (configs; numbers not reached)")
def claim12(result: dict | None, cfg: LandingConfig) -> ClaimCheck:
    """Quality: JSD of the 2-D principal-component histograms; prior: the forward process's end points."""
    return _benchmark_check(result, "robot", cfg)


abstract_sentence("Landing keeps iterates feasible on nonconvex sets with equality and inequality constraints, without "
                  "projection failures.", "C1", "C2", "C7")
abstract_sentence("Comparable sample quality to state-of-the-art baselines.", "C4", "C4e", "C9")
not_testable("C5m", statement="Lower memory and cost in inference than the state-of-the-art baselines the abstract "
             "compares against.", paper="lower memory in training and inference (abstract; no number given)",
             reason="the baselines the abstract names and its numbers were not reached (the paper's text was not read); "
                    "our samplers keep no path at inference (backward_sample records none), so inference memory is "
                    "the batch of points and one network at every N for every method alike and is not measured; "
                    "inference cost per sample is the NFE, which claim 5 decides for ULLA against OLLA only")

abstract_sentence("Substantially fewer function evaluations and lower memory in training and inference.", "C5", "C6",
                  "C5m")
abstract_sentence("Benchmarks: S² earth data, mesh surfaces, SO(10), a dipeptide and a robot arm.", "C4e", "P1", "C10",
                  "C11", "C12")
