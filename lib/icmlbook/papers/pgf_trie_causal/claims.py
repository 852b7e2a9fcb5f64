"""The chapter's claim rules: each takes an experiment's result and returns a ClaimCheck.

Paper: *On the Identifiability of Poisson Branching Structural Causal Model Under Latent Confounding*
(ICML 2026, poster 66099). Only its abstract was reachable, so the ``paper`` column quotes the abstract
sentence a row covers, and says "not reached" for our extra checks. Thresholds come from
``config.THRESHOLDS`` (fixed before any run, the same for every profile). Each rule names the
alternative it must reject; ``tests/test_pgf_trie_causal.py`` runs every rule on the claimed world and
on that alternative.

Rows, abstract first: C12 (sufficient methods are biased by latent confounding), C1 (the PGF), C9 (the
Trie representation), C10 (completeness of the local condition), C7 and C11 (the algorithm on
synthetic data: arrows and latent marks), C13 (real data: not testable). Our extra checks: C3
(zero-conditioning blocks a path), C6 (over-dispersed nodes), C8 (more samples, better graphs).
Former rows C2 (support does not depend on the parameters), C4 (the table's class counts) and C5 (the
three single-edge models, solved to share their coefficients) held by construction; they are tests now.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import EffectBound, effect_bound
from .config import THRESHOLDS as T

__all__ = ["OURS", "PC", "FCI", "SUFFICIENT", "PBSCM", "claim1", "claim3", "claim6", "claim7", "claim8", "claim9",
           "claim10", "claim11", "claim12", "paired_effect"]

OURS = "LC-PB-SCM (ours)"
SUFFICIENT = "PGF, causally sufficient"
PBSCM = "PB-SCM cumulant (sufficient)"
PC = "PC (fisherz)"
FCI = "FCI (fisherz)"

_CI = f"{T.ci_level:.0%}"


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def paired_effect(diff, side: str = "lower") -> EffectBound:
    """Mean of per-graph differences with its two-sided t interval at ``T.ci_level``
    (:func:`~icmlbook.runtime.stats.effect_bound`, minimum effect 0): ``side="lower"`` passes when the interval
    lies above 0, ``"upper"`` when below. Graphs where a difference is undefined (NaN: e.g. the ablation's recall
    is 0) are left out and counted in ``dropped``; ``mean``, ``lo``, ``hi``, ``n`` as in the ledger."""
    return effect_bound(diff, 0.0, side=side, level=T.ci_level, nonfinite="drop")


def _by_method(records: list[dict], metric: str) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for r in records:
        out.setdefault(r["method"], {})[r["seed"]] = float(r[metric])
    return out


def _paired(records: list[dict], metric: str, a: str, b: str) -> np.ndarray:
    """Per graph: metric(a) - metric(b), over the graphs both methods ran on."""
    by = _by_method(records, metric)
    seeds = sorted(set(by.get(a, {})) & set(by.get(b, {})))
    return np.array([by[a][s] - by[b][s] for s in seeds])


def _graphs(records: list[dict], method: str) -> int:
    return len({r["seed"] for r in records if r["method"] == method})


# --------------------------------------------------------------------------------------------------
# the abstract's rows
# --------------------------------------------------------------------------------------------------
@claim_rule(
    "C1", statement="The joint PGF of the observed counts has the closed form exp(Σ_v μ_v (g_v − 1)), latent "
                    "sources included: it characterises the dependence latent confounders create",
    rule=f"every standardised gap |closed form − empirical PGF| / s.e. stays below the Bonferroni bound of family "
         f"level {T.pgf_family_level} over all graphs × points, and the latent-ignoring PGF exceeds that bound",
    rejects="the PGF that ignores latent confounding (each latent replaced by independent noise with the same means)",
    paper="“We leverage Probability Generating Functions (PGFs) to characterize the complex dependencies introduced "
          "by latent confounding.”")
def claim1(res) -> ClaimCheck:
    z, za = np.abs(res.z), np.abs(res.z_alternative)
    crit = float(stats.norm.isf(T.pgf_family_level / (2 * z.size)))
    passed = bool(z.max() <= crit and za.max() > crit)
    return ClaimCheck(
        measured=f"largest |z| {z.max():.2f} (bound {crit:.2f}, {z.size} points, N = {res.n:,}; largest gap "
                 f"{res.max_abs_error:.1e}); latent-ignoring PGF: largest |z| {za.max():.1f}",
        passed=passed, values={"max_z": float(z.max()), "max_z_alt": float(za.max()), "crit": crit})


@claim_rule(
    "C9", statement="Trie representation: each monomial of log G is an activation pattern of a source's path trie, "
                    "the exponent of z_j counting the active paths that end at j",
    rule=f"on ≥ {T.trie_min_graphs} random LC-PB-SCMs, coefficients assembled from the tries equal those of the "
         f"expanded PGF (relative gap ≤ {T.trie_rel_tol:g}, same support), on structures with two paths to a node "
         "among them, where the reached-nodes reading must fail",
    rejects="exponents that count reached nodes instead of paths",
    paper="“we establish a Trie representation theorem that maps the branching causal mechanisms to the algebraic "
          "properties of PGF monomials.”")
def claim9(res) -> ClaimCheck:
    n = len(res.rel_error)
    multi = res.multi_path
    if n < T.trie_min_graphs or not multi.any():
        return ClaimCheck(measured=f"{n} structures, {int(multi.sum())} with two paths to a node", passed=None,
                          reason=f"needs ≥ {T.trie_min_graphs} structures, some with two paths to a node")
    ok = bool(res.rel_error.max() <= T.trie_rel_tol and res.support_equal.all())
    alt_fails = bool(((res.alt_rel_error > T.trie_rel_tol) | ~res.alt_support_equal)[multi].all())
    return ClaimCheck(
        measured=f"{n} structures ({int(multi.sum())} with two paths to a node; up to {int(res.n_monomials.max())} "
                 f"monomials, {int(res.patterns.max())} activation patterns): largest relative gap "
                 f"{res.rel_error.max():.1e}, supports equal in {int(res.support_equal.sum())}/{n}; reached-nodes "
                 f"reading: supports equal in {int(res.alt_support_equal[multi].sum())}/{int(multi.sum())} of the "
                 "multi-path structures",
        passed=ok and alt_fails,
        values={"max_rel_error": float(res.rel_error.max()), "alt_fails": alt_fails})


@claim_rule(
    "C10", statement="Complete local identifiability condition: a 3-variable local structure is identified up to "
                     "monomial equivalence exactly when no other structure gives the same answers to the local-PGF "
                     "queries, read off the graph as path counts (at most one variable zeroed, degree ≤ 4)",
    rule="over the 400 local structures, the graphical answers equal the support's for every structure, the "
         "condition's classes are exactly the monomial-equivalence classes (sympy), and it calls identified exactly "
         "the singleton classes (no disagreement)",
    rejects="the same condition with queries of degree ≤ 3, or without zeroed variables (the global PGF only)",
    paper="“Based on local PGFs, we establish a complete identifiability condition for local 3-variables that covers "
          "all causal patterns distinguishable up to monomial equivalence.”")
def claim10(res) -> ClaimCheck:
    n = len(res.singleton)
    passed = bool(res.profile_matches_support == n and res.same_partition and res.disagreements == 0)
    return ClaimCheck(
        measured=f"graphical answers equal the support's for {res.profile_matches_support}/{n} structures; "
                 f"{res.condition_classes} condition classes vs {res.support_classes} monomial classes; identified: "
                 f"{int(res.identified_by_condition.sum())} by the condition, {int(res.singleton.sum())} singletons, "
                 f"{res.disagreements} disagreements ({res.n_features} queries, degree ≤ {res.max_degree})",
        passed=passed, values={"disagreements": res.disagreements, "classes": res.condition_classes})


@claim_rule(
    "C7", statement="End to end (10 nodes, in-degree 1.5, 2 latents, N = 30k) the learner recovers directed edges "
                    "better than PC and FCI",
    rule=f"paired {_CI} t-interval over ≥ {T.e2e_min_graphs} graphs of directed-edge F1 (ours − PC) and "
         "(ours − FCI) lies above 0 (each comparison on ≥ that many graphs where both methods ran)",
    rejects="ours no better than PC or FCI (a paired difference ≤ 0)",
    paper="“we propose a practical algorithm to learn causal structures under latent confounding and demonstrate "
          "its effectiveness through experiments on both synthetic and real-world datasets.” (synthetic part)")
def claim7(records: list[dict]) -> ClaimCheck:
    methods = {r["method"] for r in records}
    if PC not in methods or FCI not in methods:
        return ClaimCheck(measured="PC/FCI did not run", passed=None, reason="causal-learn is not installed")
    parts, ok = [], True
    for other in (PC, FCI):
        d = _paired(records, "directed_f1", OURS, other)
        e = paired_effect(d)
        short = len(d) < _graphs(records, OURS)
        parts.append(f"ours − {other.split()[0]} {e.mean:+.2f} [{e.lo:+.2f}, {e.hi:+.2f}]"
                     + (f" (on the {len(d)} graphs where both ran)" if short else "")
                     + (f" ({e.dropped} graph(s) with F1 undefined left out)" if e.dropped else ""))
        # a comparison on fewer paired graphs than the rule needs cannot pass (changed after the runs at 67dd53f:
        # only our own graphs were counted; a second review's world, PC on 3 of 10 graphs, now a test case)
        ok &= e.passed and len(d) >= T.e2e_min_graphs
    f1 = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "directed_f1").items()}
    measured = (f"directed F1 ours {f1[OURS]:.2f}, PC {f1[PC]:.2f}, FCI {f1[FCI]:.2f}; paired differences "
                + "; ".join(parts) + f" ({_graphs(records, OURS)} graphs)")
    if _graphs(records, OURS) < T.e2e_min_graphs:
        return ClaimCheck(measured=measured, passed=None,
                          reason=f"{_graphs(records, OURS)} graph(s) < {T.e2e_min_graphs} at this profile")
    return ClaimCheck(measured=measured, passed=ok)


def _latent_rates(records: list[dict], method: str):
    """Per graph: (confounded marked True, confounded decided, unconfounded marked False, unconfounded
    decided, adjacent pairs in both)."""
    rows = [r for r in records if r["method"] == method]
    return np.array([[r["latent_pos_correct"], r["latent_pos_decided"], r["latent_neg_correct"],
                      r["latent_neg_decided"], r["latent_pos"] + r["latent_neg"]] for r in rows], dtype=float)


def _balanced(a: np.ndarray) -> float:
    tp, pd, tn, nd = a[:, 0].sum(), a[:, 1].sum(), a[:, 2].sum(), a[:, 3].sum()
    if pd == 0 or nd == 0:
        return float("nan")
    return 0.5 * (tp / pd + tn / nd)


@claim_rule(
    "C11", statement="The learner's latent marks (↔: a common latent parent) are right more often than chance on "
                     "the pairs where it decides them",
    rule=f"over ≥ {T.e2e_min_graphs} graphs and ≥ {T.latent_min_decided} decided marks on pairs adjacent in truth "
         f"and output, the balanced accuracy (mean of the rates on confounded and on unconfounded pairs) has a "
         f"{_CI} graph-bootstrap interval above 0.5; a resample in which a class has no decided mark counts as 0 "
         "(a failure), never left out",
    rejects="marks unrelated to the truth (every pair marked unconfounded: balanced accuracy 0.5; or marks at random "
            "with a confounded class that rests on one lucky mark), or no marks",
    paper="“we propose a practical algorithm to learn causal structures under latent confounding …” (the latent part)")
def claim11(records: list[dict], method: str = OURS) -> ClaimCheck:
    a = _latent_rates(records, method)
    if len(a) == 0:
        return ClaimCheck(measured=f"{method} did not run", passed=None, reason=f"no records of {method}")
    decided, adjacent = a[:, 1].sum() + a[:, 3].sum(), a[:, 4].sum()
    bal = _balanced(a)
    gen = np.random.default_rng(0)
    boot = np.array([_balanced(a[gen.integers(0, len(a), len(a))]) for _ in range(T.bootstrap)])
    # a resample where one class has no decided mark cannot show better than chance: it counts as 0 (the worst
    # balanced accuracy), it is not dropped (dropping it let one lucky confounded mark decide the row: a second
    # review's world, now a test case)
    undefined = int(np.isnan(boot).sum())
    boot = np.where(np.isnan(boot), 0.0, boot)
    lo, hi = np.quantile(boot, [0.5 - T.ci_level / 2, 0.5 + T.ci_level / 2])
    pos = f"{int(a[:, 0].sum())}/{int(a[:, 1].sum())}"
    neg = f"{int(a[:, 2].sum())}/{int(a[:, 3].sum())}"
    fci = _latent_rates(records, FCI) if method != FCI else np.zeros((0, 5))
    context = f"; FCI for comparison: balanced accuracy {_balanced(fci):.2f}" if len(fci) else ""
    measured = (f"decided {int(decided)}/{int(adjacent)} marks; right on confounded {pos}, on unconfounded {neg}; "
                f"balanced accuracy {bal:.2f} [{lo:.2f}, {hi:.2f}] ({len(a)} graphs"
                + (f"; {undefined} of {T.bootstrap} resamples with a class undecided, counted as failures"
                   if undefined else "") + f"){context}")
    if len(a) < T.e2e_min_graphs:
        return ClaimCheck(measured=measured, passed=None, reason=f"{len(a)} graph(s) < {T.e2e_min_graphs} at this profile")
    if decided < T.latent_min_decided or not np.isfinite(bal):
        return ClaimCheck(measured=measured, passed=False, values={"balanced": bal, "undefined_resamples": undefined},
                          reason=(f"fewer than {T.latent_min_decided} decided marks" if decided < T.latent_min_decided
                                  else "no decided mark in one of the two classes"))
    return ClaimCheck(measured=measured, passed=bool(lo > 0.5),
                      values={"balanced": bal, "low": float(lo), "undefined_resamples": undefined})


@claim_rule(
    "C12", statement="Methods that assume causal sufficiency put arrows between confounded pairs that share no edge; "
                     "allowing latents removes them at a comparable directed-edge recall",
    rule=f"over ≥ {T.e2e_min_graphs} graphs, the paired {_CI} interval of the spurious-arrow rate on confounded pairs "
         f"(causally sufficient PGF ablation − ours) lies above 0, so does the interval of the excess reduction "
         f"(the ablation's rate scaled by our recall over its recall, per graph, − ours), and our directed-edge "
         f"recall is ≥ {T.recall_ratio_min:g} × the ablation's",
    rejects="a learner that outputs nothing (no spurious arrow, recall 0), the ablation with arrows dropped at random "
            "(spurious rate and recall fall together), or no difference in spurious arrows",
    paper="“existing approaches based on PB-SCM rely on the restrictive assumption of causal sufficiency, failing to "
          "account for ubiquitous latent confounders that can bias estimation.”")
def claim12(records: list[dict], method: str = OURS, ablation: str = SUFFICIENT) -> ClaimCheck:
    if _graphs(records, method) == 0 or _graphs(records, ablation) == 0:
        return ClaimCheck(measured="the learners did not run", passed=None, reason=f"no records of {method}/{ablation}")
    e, x = (paired_effect(_paired(records, "spurious_on_confounded", ablation, method)),
            paired_effect(_excess_reduction(records, method, ablation)))
    m, lo, hi, n = e.mean, e.lo, e.hi, e.n
    xm, xlo, xhi = x.mean, x.lo, x.hi
    sp = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "spurious_on_confounded").items()}
    rec = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "directed_recall").items()}
    extra = f", PB-SCM cumulant {sp[PBSCM]:.2f} (recall {rec[PBSCM]:.2f})" if PBSCM in sp else ""
    measured = (f"spurious-arrow rate on confounded pairs: ablation {sp[ablation]:.2f} (recall {rec[ablation]:.2f}), "
                f"ours {sp[method]:.2f} (recall {rec[method]:.2f}){extra}; paired difference {m:+.2f} "
                f"[{lo:+.2f}, {hi:+.2f}] over {n} graphs with such pairs; beyond dropping arrows at random "
                f"{xm:+.2f} [{xlo:+.2f}, {xhi:+.2f}]"
                + (f" ({x.dropped} graph(s) where the ablation's recall is 0 left out)" if x.dropped else ""))
    if _graphs(records, method) < T.e2e_min_graphs:
        return ClaimCheck(measured=measured, passed=None,
                          reason=f"{_graphs(records, method)} graph(s) < {T.e2e_min_graphs} at this profile")
    recall_ok = bool(rec[method] >= T.recall_ratio_min * rec[ablation])
    excess_ok = x.passed
    reason = ("our recall is below the required fraction of the ablation's" if not recall_ok else
              None if excess_ok else "the spurious arrows fall no more than the recall does (as if dropped at random)")
    return ClaimCheck(measured=measured, passed=bool(e.passed and excess_ok and recall_ok),
                      values={"diff": m, "low": lo, "excess": xm, "excess_low": xlo, "recall_ok": recall_ok,
                              "excess_dropped": x.dropped},
                      reason=reason)


def _excess_reduction(records: list[dict], method: str, ablation: str) -> np.ndarray:
    """Per graph: the ablation's spurious-arrow rate scaled by min(1, our recall / its recall), minus ours.

    A learner that is the ablation with each arrow kept at random with probability q has recall q times the
    ablation's and (in expectation) q times its spurious rate, so this difference is 0 for it; it is > 0 only
    when the spurious arrows fall faster than the true ones (NaN where the ablation's recall is 0)."""
    sp, rec = _by_method(records, "spurious_on_confounded"), _by_method(records, "directed_recall")
    seeds = sorted(set(sp.get(method, {})) & set(sp.get(ablation, {})) & set(rec.get(method, {})) & set(rec.get(ablation, {})))
    out = []
    for s in seeds:
        ra, ro = rec[ablation][s], rec[method][s]
        ratio = min(1.0, ro / ra) if ra > 0 else float("nan")
        out.append(sp[ablation][s] * ratio - sp[method][s])
    return np.array(out, dtype=float)


not_testable(
    "C13", statement="The learner is effective on real-world count data",
    paper="“… demonstrate its effectiveness through experiments on both synthetic and real-world datasets.” "
          "(real-world part)",
    reason="the only real table of this line of work (the PB-SCM repository's football events) has no licence, and "
           "no other multivariate branching count data ship with a package; nothing is downloaded at run time")


# --------------------------------------------------------------------------------------------------
# our extra checks
# --------------------------------------------------------------------------------------------------
@claim_rule(
    "C3", statement="Zero-conditioning blocks paths: for i→c→j, Cov(X_i, X_j | X_c = 0) = 0; with an extra edge "
                    "i→j it is > 0",
    rule=f"the test accepts 0 in ≥ {T.chain_min_rate:.0%} of chain runs and rejects it in ≥ {T.chain_min_rate:.0%} "
         "of runs with the extra edge",
    rejects="a dependence the zero set does not block (a latent parent of i and j): acceptance far below the rate")
def claim3(res) -> ClaimCheck:
    passed = bool(res.accept_rate >= T.chain_min_rate and res.reject_rate >= T.chain_min_rate)
    return ClaimCheck(measured=f"accepted {res.accept_rate:.1%} of {len(res.p_chain)} runs, rejected "
                               f"{res.reject_rate:.1%} with the edge (about {np.mean(res.n_eff):,.0f} rows with X_c = 0)",
                      passed=passed)


@claim_rule(
    "C6", statement="Over-dispersion (a z_j² monomial) marks exactly the nodes that two directed paths from one "
                    "source reach (the sink of a triangle), however many such nodes there are",
    rule=f"each node tested on its own; the called set equals the true set in ≥ {T.sink_min_accuracy:.0%} of runs "
         f"within every class (0, 1 and 2 over-dispersed nodes, ≥ {T.sink_min_runs_per_class} runs each)",
    rejects="the argmax rule that always names exactly one sink")
def claim6(res) -> ClaimCheck:
    exact, n_true = np.asarray(res.exact), np.asarray(res.n_true)
    parts, ok, enough = [], True, True
    for k in (0, 1, 2):
        sel = np.minimum(n_true, 2) == k
        runs = int(sel.sum())
        acc = float(exact[sel].mean()) if runs else float("nan")
        parts.append(f"{k} over-dispersed: {acc:.0%} of {runs}")
        enough &= runs >= T.sink_min_runs_per_class
        ok &= bool(runs and acc >= T.sink_min_accuracy)
    measured = "exact set " + "; ".join(parts)
    if not enough:
        return ClaimCheck(measured=measured, passed=None,
                          reason=f"fewer than {T.sink_min_runs_per_class} runs in a class at this profile")
    return ClaimCheck(measured=measured, passed=ok)


def _slopes(records: list[dict], method: str, metric: str, sizes=None) -> tuple[np.ndarray, list, int, int]:
    """Per-graph OLS slope of ``metric`` in log10 N over the graph's finite points (only the sample sizes in
    ``sizes`` when given); also the sample sizes, the number of (graph, N) points left out as non-finite (a graph
    with fewer than 2 finite points loses all of them) and the number of points in all."""
    rows = [r for r in records if r["method"] == method and (sizes is None or r["n"] in sizes)]
    ns = sorted({r["n"] for r in rows})
    out, dropped = [], 0
    for s in sorted({r["seed"] for r in rows}):
        mine = [r for r in rows if r["seed"] == s]
        pts = [(np.log10(r["n"]), r[metric]) for r in mine if np.isfinite(r[metric])]
        if len(pts) >= 2:
            x, y = np.array(pts).T
            out.append(float(np.polyfit(x, y, 1)[0]))
            dropped += len(mine) - len(pts)
        else:
            dropped += len(mine)
    return np.array(out), ns, dropped, len(rows)


@claim_rule(
    "C8", statement="Directed-edge F1 rises and SHD falls as N grows",
    rule=f"over ≥ {T.trend_min_sizes} sample sizes and ≥ {T.trend_min_graphs} graphs (the same graphs at every N), "
         f"the {_CI} t-interval of the per-graph slope in log10 N is above 0 for F1 and below 0 for SHD, and over "
         f"the larger half of the sample sizes it does not lie below 0 for F1 (above 0 for SHD: no significant "
         f"decline at the top of the range); at most {T.trend_max_dropped_frac:.0%} of the (graph, N) points may "
         f"have F1 or SHD undefined (left out, counted)",
    rejects="a flat curve (slope 0), or a curve that rises and then declines at the largest N")
def claim8(records: list[dict], method: str = OURS) -> ClaimCheck:
    f1, ns, d1, total = _slopes(records, method, "directed_f1")
    shd, _, d2, _ = _slopes(records, method, "shd")
    e1, e2 = paired_effect(f1), paired_effect(shd, side="upper")
    m1, lo1, hi1, n1 = e1.mean, e1.lo, e1.hi, e1.n
    m2, lo2, hi2 = e2.mean, e2.lo, e2.hi
    by_n = {n: np.nanmean([r["directed_f1"] for r in records if r["method"] == method and r["n"] == n]) for n in ns}
    frac = max(d1, d2) / total if total else 0.0
    # the larger half of the sizes (>= 2 of them once there are >= 3): a significant decline there fails the row,
    # however the whole range slopes (added after the session-4 runs, because a rise-then-fall passed: a second
    # review's world, now a not-reproduced case)
    top = ns[len(ns) // 2:]
    t1 = paired_effect(_slopes(records, method, "directed_f1", top)[0], side="upper")
    t2 = paired_effect(_slopes(records, method, "shd", top)[0], side="lower")
    declines = bool(t1.passed or t2.passed)
    measured = ("F1 " + ", ".join(f"{n // 1000}k: {v:.2f}" for n, v in by_n.items())
                + f"; slope per decade: F1 {m1:+.2f} [{lo1:+.2f}, {hi1:+.2f}], SHD {m2:+.1f} [{lo2:+.1f}, {hi2:+.1f}]"
                + (f"; over {top[0] // 1000}k-{top[-1] // 1000}k: F1 {t1.mean:+.2f} [{t1.lo:+.2f}, {t1.hi:+.2f}], "
                   f"SHD {t2.mean:+.1f} [{t2.lo:+.1f}, {t2.hi:+.1f}]" if len(top) >= 2 else "")
                + f"; undefined points left out: F1 {d1}, SHD {d2} of {total}")
    values = {"dropped_f1": d1, "dropped_shd": d2, "points": total, "dropped_frac": frac, "declines_at_top": declines}
    if len(ns) < T.trend_min_sizes or n1 < T.trend_min_graphs:
        return ClaimCheck(measured=measured, passed=None, values=values,
                          reason=f"{len(ns)} sample sizes × {n1} graphs at this profile")
    if frac > T.trend_max_dropped_frac:
        return ClaimCheck(measured=measured + f" ({frac:.0%}, over the {T.trend_max_dropped_frac:.0%} limit)",
                          passed=False, values=values)
    return ClaimCheck(measured=measured, passed=bool(e1.passed and e2.passed and not declines), values=values,
                      reason=("F1 falls (or SHD rises) significantly over the larger sample sizes" if declines else None))


abstract_sentence("However, existing approaches based on PB-SCM rely on the restrictive assumption of causal "
                  "sufficiency, failing to account for ubiquitous latent confounders that can bias estimation.", "C12")
abstract_sentence("We leverage Probability Generating Functions (PGFs) to characterize the complex dependencies "
                  "introduced by latent confounding.", "C1")
abstract_sentence("Then, we establish a Trie representation theorem that maps the branching causal mechanisms to the "
                  "algebraic properties of PGF monomials.", "C9")
abstract_sentence("Based on local PGFs, we establish a complete identifiability condition for local 3-variables that "
                  "covers all causal patterns distinguishable up to monomial equivalence.", "C10")
abstract_sentence("Finally, we propose a practical algorithm to learn causal structures under latent confounding and "
                  "demonstrate its effectiveness through experiments on both synthetic and real-world datasets.",
                  "C7", "C11", "C13")
