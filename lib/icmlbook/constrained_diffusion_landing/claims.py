"""The chapter's claims, each rule declared once with the alternative it must reject.

The paper's text was not reached (dossier §1): its claims are the abstract's qualitative ones (sample
quality comparable to baselines, substantially fewer function evaluations and less memory in training and
inference, no projection failures, equality and inequality constraints on nonconvex sets). Its tables were
not read, so the paper column never holds a number. Thresholds are in the config.
"""

from __future__ import annotations

import numpy as np

from ..runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ..runtime.stats import mean_t_bound
from .config import PRESETS, LandingConfig
from .experiments import QualityStudy


@claim_rule("C1", statement="Landing keeps forward and backward paths near the feasible set without projecting, and "
            "the terminal projection lands exactly on it.",
            rule="max over steps of the mean |h| along OLLA's and ULLA's forward and backward paths <= 1e-3, and the "
                 "violation after the terminal projection <= 1e-6",
            rejects="iterates that drift off the set between projections (mean |h| of order sigma^2 dt)",
            paper="no projection failures; feasibility through landing (abstract; no number given)")
def claim1(forward: dict, quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    fw = {m: float(np.max(forward[m]["trace"])) for m in ("OLLA", "ULLA")}
    bw = {m: float(np.max(quality.backward_traces[m])) for m in ("OLLA", "ULLA") if m in quality.backward_traces}
    term = max([forward[m]["terminal"] for m in forward] +
               [r["terminal_violation"] for r in quality.records if r["method"] in ("OLLA", "ULLA")])
    worst = max(list(fw.values()) + list(bw.values()))
    ok = worst <= cfg.feas_mean_h and term <= cfg.terminal_tol
    return ClaimCheck("max mean |h| along paths: forward " + ", ".join(f"{m} {v:.1e}" for m, v in fw.items())
                      + "; backward " + ", ".join(f"{m} {v:.1e}" for m, v in bw.items())
                      + f"; after the terminal projection {term:.1e}", bool(ok), {"forward": fw, "backward": bw, "terminal": term})


@claim_rule("C2", statement="Landing never fails, while projection-based variants drop trajectories when steps are large.",
            rule="no landing trajectory has a failed projection anywhere along it (every intermediate iterate's projection, "
                 "tried on the side, and the terminal one; OLLA on every step size of the torus study, OLLA and ULLA "
                 "training paths and samples on S²), and OLLA-P drops some at the largest step of the torus study",
            rejects="projections that never fail on the set (no failure for landing to avoid), or landing iterates that "
                    "drift where the set's projection fails before the terminal step",
            paper="no projection failures (abstract)")
def claim2(drop: dict, quality: QualityStudy) -> ClaimCheck:
    rows = drop["rows"]
    land = [r for r in quality.records if r["method"] in ("OLLA", "ULLA")]
    torus_fail = sum(r["OLLA_drop_rate"] for r in rows)
    s2_fail = sum(r["failed_along_paths"] + r["failed_along_samples"] for r in land)
    proj_last = rows[-1]["OLLA-P_drop_rate"]
    ok = torus_fail == 0 and s2_fail == 0 and proj_last > 0
    return ClaimCheck("landing trajectories with a failed projection along the path: torus " + ", ".join(
        f"{r['OLLA_drop_rate']:.1%}" for r in rows) + f", S² {s2_fail:g}; OLLA-P drop rate " + ", ".join(
        f"{r['OLLA-P_drop_rate']:.1%} at Δtσ²={r['dt_sigma2']:.3g}" for r in rows) + "; landing's worst violation "
        + ", ".join(f"{r['OLLA_max_violation']:.2g}" for r in rows), bool(ok),
        {"rows": rows, "torus_fail": torus_fail, "s2_fail": s2_fail})


@claim_rule("C3", statement="The forward process reaches the prior (uniform on the set), and the underdamped one gets "
            "there in fewer steps.",
            rule="at the largest N, no seed's MMD permutation test rejects uniformity for OLLA or ULLA at the Bonferroni "
                 "level 0.05 / (2 × seeds); at the smallest N, the one-sided 95 % upper t-bound of the paired difference "
                 "MMD²(ULLA) − MMD²(OLLA) over seeds is below 0",
            rejects="a forward marginal that stays distinguishable from uniform, or ULLA no closer to uniform than OLLA "
                    "at few steps (paired difference >= 0 within its interval)",
            paper="not reached (the abstract claims fewer function evaluations, not a mixing rate)")
def claim3(prior: dict, cfg: LandingConfig) -> ClaimCheck:
    rows = prior["rows"]
    Ns = sorted({r["N"] for r in rows})
    last = [r for r in rows if r["N"] == Ns[-1]]
    first = [r for r in rows if r["N"] == Ns[0]]
    bonf = cfg.prior_alpha / (2 * len(last))
    p_min = {m: min(r[f"{m}_p"] for r in last) for m in ("OLLA", "ULLA")}
    diff = np.array([r["ULLA_mmd2"] - r["OLLA_mmd2"] for r in first])
    mean, up = mean_t_bound(diff, cfg.level)
    ok = min(p_min.values()) >= bonf and up < 0
    mm = {m: float(np.mean([r[f"{m}_mmd2"] for r in last])) for m in ("OLLA", "ULLA")}
    return ClaimCheck(f"on the {prior['set']}, {len(last)} seeds: at N={Ns[-1]}, smallest p OLLA {p_min['OLLA']:.3f}, "
                      f"ULLA {p_min['ULLA']:.3f} (Bonferroni level {bonf:.4f}; mean MMD² {mm['OLLA']:.4f}, "
                      f"{mm['ULLA']:.4f}); at N={Ns[0]}, MMD²(ULLA) − MMD²(OLLA) {mean:+.4f} (upper {up:+.4f}) "
                      f"(data at t=0: {prior['start_mmd2']:.4f})", bool(ok),
                     {"p_min": p_min, "diff_mean": mean, "diff_upper": up, "bonferroni": bonf})


@claim_rule("C4", statement="Sample quality is comparable across the landing and projection variants.",
            rule="for ULLA, OLLA-P and ULLA-P, the one-sided 95 % upper t-bound of the paired JSD difference to OLLA over "
                 "seeds is <= 0.02, and every variant's JSD is below the uniform law's on every seed",
            rejects="a variant worse by more than 0.02 JSD, or variants that all fail to learn (no better than uniform)",
            paper="comparable sample quality to baselines (abstract; no number given)")
def claim4(quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    base = quality.values("OLLA", "jsd")
    parts, ok = [], True
    for m in ("ULLA", "OLLA-P", "ULLA-P"):
        mean, up = mean_t_bound(quality.values(m, "jsd") - base, cfg.level)
        parts.append(f"{m} − OLLA {mean:+.4f} (upper {up:+.4f})")
        ok &= up <= cfg.parity_margin
    unif = np.asarray(quality.uniform_jsd)
    learned = all((quality.values(m, "jsd") < unif).all() for m in ("OLLA", "ULLA", "OLLA-P", "ULLA-P"))
    ok &= learned
    return ClaimCheck(f"JSD OLLA {base.mean():.4f} over {len(base)} seeds (uniform law {unif.mean():.4f}); " + "; ".join(parts),
                      bool(ok), {"learned": learned})


@claim_rule("C5", statement="The underdamped variant needs about half the function evaluations of the overdamped one "
            "for similar quality, with less training time and memory.",
            rule="ULLA at N/2 steps: one-sided 95 % upper t-bound of JSD(ULLA) − JSD(OLLA) <= 0.02, and its measured "
                 "training time per run below OLLA's on every seed",
            rejects="ULLA needing OLLA's number of steps for the same quality (worse by > 0.02 JSD at N/2)",
            paper="substantially fewer function evaluations, lower memory (abstract; no number given)", timed=True)
def claim5(quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    mean, up = mean_t_bound(quality.values("ULLA", "jsd") - quality.values("OLLA", "jsd"), cfg.level)
    to, tu = quality.values("OLLA", "train_seconds"), quality.values("ULLA", "train_seconds")
    mo, mu = quality.values("OLLA", "path_megabytes"), quality.values("ULLA", "path_megabytes")
    nfe_o, nfe_u = quality.values("OLLA", "nfe")[0], quality.values("ULLA", "nfe")[0]
    ok = up <= cfg.parity_margin and bool((tu < to).all())
    return ClaimCheck(f"NFE {nfe_u:.0f} vs {nfe_o:.0f}; JSD difference {mean:+.4f} (upper {up:+.4f}); training "
                      f"{tu.mean():.1f} s vs {to.mean():.1f} s; stored paths {mu.mean():.1f} vs {mo.mean():.1f} MiB",
                      bool(ok), {"upper": up})


@claim_rule("C6", statement="A landing step costs one small linear solve, less than a Newton projection, on SO(n) "
            "with tens of constraints.",
            rule="at every SO(n) of the study, Newton's operations per point (constraint-and-Jacobian evaluations plus "
                 "p×p solves, each point stopped at its own tolerance) over landing's (one of each) >= 2; the wall-clock "
                 "ratio (fastest of interleaved repeats) is reported beside, not decided on",
            rejects="a Newton projection that converges in about one iteration (1.5× landing's operations: no cost "
                    "advantage), at any n of the sweep",
            paper="not reached (the abstract's efficiency argument)", timed=True)
def claim6(cost: dict, cfg: LandingConfig) -> ClaimCheck:
    """Changed after the session-3 runs: the rule was the wall-clock ratio Newton/landing >= 2, which swung from 0×
    to 103× under load in a smoke run. Operation counts are deterministic for a seed; the wall time (now the
    fastest of interleaved repeats) is reported beside."""
    rows = cost["rows"]
    ratios = {r["n"]: r["newton_operations"] / r["landing_operations"] for r in rows}
    wall = {r["n"]: r["newton_seconds"] / r["landing_seconds"] if r["landing_seconds"] > 0 else float("inf") for r in rows}
    worst = min(ratios, key=ratios.get)
    return ClaimCheck("Newton / landing operations per point: " + ", ".join(
        f"SO({r['n']}) {ratios[r['n']]:.2f}× ({r['newton_iterations_mean']:.2f} iterations)" for r in rows)
        + f"; smallest at SO({worst}); wall clock (fastest of {cost.get('repeat', 1)} interleaved repeats): "
        + ", ".join(f"SO({n}) {w:.1f}×" for n, w in wall.items()), bool(min(ratios.values()) >= cfg.cost_ratio),
        {"ratios": ratios, "wall_ratios": wall, "worst_n": worst})


@claim_rule("C7", statement="Equality and inequality constraints are handled together on a nonconvex set: samples "
            "satisfy both and follow the data inside.",
            rule="on the capped sphere with a bite, every sample satisfies |h| <= 1e-6 and g <= 1e-6 after the terminal "
                 "projection, and the samples' JSD to the test data is below the uniform law's on the set",
            rejects="samples outside the caps or the bite, or a model no better than uniform on the set",
            paper="equality and inequality constraints on nonconvex sets (abstract)")
def claim7(mixed: dict, cfg: LandingConfig) -> ClaimCheck:
    a = mixed["after"]
    ok = a["max_abs_h"] <= cfg.terminal_tol and a["max_relu_g"] <= cfg.terminal_tol and mixed["jsd"] < mixed["uniform_jsd"]
    b = mixed["before"]
    return ClaimCheck(f"after the terminal projection: max |h| {a['max_abs_h']:.1e}, max g⁺ {a['max_relu_g']:.1e} (before: "
                      f"{b['max_abs_h']:.1e}, {b['max_relu_g']:.1e}); JSD {mixed['jsd']:.4f} vs uniform-on-set "
                      f"{mixed['uniform_jsd']:.4f}", bool(ok))


@claim_rule("C8", statement="The landing gain trades off: too small lets paths drift off the set, while the implicit "
            "form is stable.",
            rule="explicit landing at the smallest gain has mean |h| >= 10x that at gain 1, and implicit landing's mean |h| "
                 "is no larger than explicit landing's at gain 1",
            rejects="a gain with no effect on feasibility (mean |h| flat across gains)",
            paper="not reached")
def claim8(sweep: dict) -> ClaimCheck:
    rows = sweep["rows"]
    expl = [r for r in rows if r["mode"] == "explicit"]
    small = expl[0]
    one = min(expl, key=lambda r: abs(r["scale"] - 1.0))
    imp = next(r for r in rows if r["mode"] == "implicit")
    ok = small["mean_abs_h"] >= 10 * one["mean_abs_h"] and imp["mean_abs_h"] <= one["mean_abs_h"]
    return ClaimCheck("mean |h|: explicit " + ", ".join(f"gain {r['scale']:g}: {r['mean_abs_h']:.2e}" for r in expl)
                      + f"; implicit {imp['mean_abs_h']:.2e}", bool(ok))


@claim_rule("C4e", statement="On the paper's own S² data (volcano catalogue), ULLA at half the steps matches OLLA.",
            rule="JSD(ULLA) <= JSD(OLLA) + 0.02 and both below the uniform law's JSD",
            rejects="ULLA worse by more than 0.02 JSD on real data, or models no better than uniform",
            paper="comparable quality on the earth-science data sets (abstract's benchmark; table not reached)")
def claim4e(earth: dict | None, cfg: LandingConfig) -> ClaimCheck:
    if earth is None:
        return ClaimCheck("—", None, reason="this profile does not train on the earth catalogues")
    o, u, un = earth["OLLA"]["jsd"], earth["ULLA"]["jsd"], earth["uniform_jsd"]
    ok = u <= o + cfg.parity_margin and o < un and u < un
    return ClaimCheck(f"volcano ({earth['n_train']} train / {earth['n_test']} test points): JSD OLLA {o:.4f} "
                      f"(NFE {earth['OLLA']['nfe']}), ULLA {u:.4f} (NFE {earth['ULLA']['nfe']}), uniform {un:.4f}", bool(ok))


@claim_rule("C9", statement="Landing's sample quality is comparable to a Riemannian score-based model that uses the "
            "sphere's exact exponential map (the same network, trainer, loss family, schedule and N as OLLA).",
            rule="for OLLA and ULLA, the one-sided 95 % upper t-bound of the paired JSD difference to RSGM over seeds is "
                 "<= 0.02, and RSGM's JSD is below the uniform law's on every seed",
            rejects="landing worse than exact geodesic steps by more than 0.02 JSD (the price of leaving the set between "
                    "corrections), or a reference model that did not learn",
            paper="comparable sample quality to state-of-the-art baselines (abstract; the baselines' list and numbers "
                  "not reached)")
def claim9(quality: QualityStudy, cfg: LandingConfig) -> ClaimCheck:
    ref = quality.values("RSGM", "jsd")
    parts, ok = [], True
    for m in ("OLLA", "ULLA"):
        mean, up = mean_t_bound(quality.values(m, "jsd") - ref, cfg.level)
        parts.append(f"{m} − RSGM {mean:+.4f} (upper {up:+.4f})")
        ok &= up <= cfg.parity_margin
    unif = np.asarray(quality.uniform_jsd)
    learned = bool((ref < unif).all())
    amb = quality.values("Ambient", "jsd")
    extra = f"; ambient diffusion + final projection {amb.mean():.4f}" if len(amb) else ""
    return ClaimCheck(f"JSD RSGM {ref.mean():.4f} over {len(ref)} seeds (uniform law {unif.mean():.4f}); "
                      + "; ".join(parts) + extra, bool(ok and learned), {"learned": learned})


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
    rows = result["rows"]
    ok, parts = True, []
    for r in rows:
        feas = (r["after"]["max_abs_h"] <= cfg.terminal_tol and r["after"]["max_relu_g"] <= cfg.terminal_tol
                and r["terminal_failed"] == 0 and r["non_finite"] == 0)
        better = r["jsd"] < r["prior_jsd"]
        ok &= feas and better
        parts.append(f"{r['method']} seed {r['seed']} (N={r['N']}): JSD {r['jsd']:.4f} vs prior {r['prior_jsd']:.4f}, "
                     f"max |h| {r['after']['max_abs_h']:.1e}, max g⁺ {r['after']['max_relu_g']:.1e}"
                     + (f", {r['terminal_failed']} failed terminal projections" if r["terminal_failed"] else ""))
    return ClaimCheck(f"{result['set']} ({result['n_eq']} equalities, {result['n_ineq']} inequalities, {result['dim']} "
                      f"coordinates; {result['n_train']} train / {result['n_test']} test): " + "; ".join(parts), bool(ok))


_BENCH_RULE = ("for OLLA and ULLA on every seed: after the terminal projection max |h| and max g⁺ <= 1e-6 with no "
               "failed or non-finite sample, and the samples' JSD to held-out data below that of the prior's points")
_BENCH_REJECTS = "a model no better than its prior (one that learned nothing), or samples the projection cannot bring onto the set"


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
abstract_sentence("Substantially fewer function evaluations and lower memory in training and inference.", "C5", "C6")
abstract_sentence("Benchmarks: S² earth data, mesh surfaces, SO(10), a dipeptide and a robot arm.", "C4e", "P1", "C10",
                  "C11", "C12")
