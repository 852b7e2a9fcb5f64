"""The chapter's claim rules: each takes an experiment's result and returns a ClaimCheck.

Paper: *On the Identifiability of Poisson Branching Structural Causal Model Under Latent Confounding*
(ICML 2026, poster 66099). Only its abstract was reachable, so the ``paper`` column quotes the abstract
sentence a row covers, and says "not reached" for our extra checks. Thresholds come from
``config.THRESHOLDS`` (fixed before any run, the same for every profile). Each rule names the
alternative it must reject; ``tests/papers/test_pgf_trie_causal.py`` runs every rule on the claimed world, on
that alternative, and on the real output of the nearest trivial method (rule 11).

Rows, abstract first: C12 (sufficient methods are biased by latent confounding), C1 (the PGF), C9 (the
Trie representation: not testable, see below), C10 (completeness of the local condition), C7 and C11 (the
algorithm on synthetic data: arrows and latent marks), C13 (real data: not testable). Our extra checks: C3
(zero-conditioning blocks a path), C6 (over-dispersed nodes: the Trie theorem's consequence on data), C8 (more
samples, better graphs). Former rows C2 (support does not depend on the parameters), C4 (the table's class
counts) and C5 (the three single-edge models, solved to share their coefficients) held by construction; they are
tests now, and so is the former decided C9 (two expansions of one recursion; the contract's second edition).

Four verdicts (``shared/design/CLAIMS.md`` rule 9): a rule says *not reproduced* only when the run measured
evidence against the claim (an interval wholly on the far side of the declared minimum effect, a closed form
rejected by its test); a measurement that cannot tell the claim from its negation is *inconclusive at this
scale*, with its kind. Rows about the learner and the local condition are our reconstruction (rule 13).
"""

from __future__ import annotations

import numpy as np

from ...runtime.claims import INCONCLUSIVE_KINDS, ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import (EffectBound, binomial_interval, bonferroni_z, bootstrap_indices, decide_interval,
                              effect_bound, unit_bootstrap)
from .config import THRESHOLDS as T

__all__ = ["OURS", "PC", "FCI", "SUFFICIENT", "PBSCM", "SUFFICIENT_METHODS", "claim1", "claim3", "claim6", "claim7",
           "claim8", "claim10", "claim11", "claim12", "paired_effect", "combine", "in_place_of_ours"]

OURS = "LC-PB-SCM (ours)"
SUFFICIENT = "PGF, causally sufficient"
PBSCM = "PB-SCM cumulant (sufficient)"
PC = "PC (fisherz)"
FCI = "FCI (fisherz)"

#: the causally sufficient methods of the runs (no latent ingredient): the rows about the latent ingredient compare
#: ours with each of them (C7, C12; changed after the contract's second edition, see the rules)
SUFFICIENT_METHODS = (SUFFICIENT, PBSCM)

_CI = f"{T.ci_level:.0%}"
SPANS, NOISE = INCONCLUSIVE_KINDS[0], INCONCLUSIVE_KINDS[2]


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def paired_effect(diff, side: str = "lower") -> EffectBound:
    """Mean of per-graph differences with its two-sided t interval at ``T.ci_level``
    (:func:`~icmlbook.runtime.stats.effect_bound`, minimum effect 0): ``side="lower"`` passes when the interval
    lies above 0, ``"upper"`` when below. Graphs where a difference is undefined (NaN: e.g. the ablation's recall
    is 0) are left out and counted in ``dropped``; ``mean``, ``lo``, ``hi``, ``n`` as in the ledger."""
    return effect_bound(diff, 0.0, side=side, level=T.ci_level, nonfinite="drop")


def combine(measured: str, parts: dict[str, bool | None], values: dict | None = None, *, kind: str = SPANS,
            why: str = "", fail_reason: str | None = None) -> ClaimCheck:
    """Rule 9 for a rule made of several conditions (``parts``: name -> True pass, False evidence against, None
    undecided): reproduced when all pass, not reproduced when any is evidence against, otherwise inconclusive of
    ``kind``, the reason naming the undecided conditions (and ``why``)."""
    values = dict(values or {}, parts=dict(parts))
    failed = [k for k, v in parts.items() if v is False]
    if failed:
        return ClaimCheck(measured, False, values, reason=fail_reason or ("evidence against: " + ", ".join(failed)))
    if all(v is True for v in parts.values()):
        return ClaimCheck(measured, True, values)
    open_ = [k for k, v in parts.items() if v is None]
    return ClaimCheck.inconclusive_check(measured, kind, "undecided: " + ", ".join(open_) + (f" ({why})" if why else ""),
                                         values)


def _kind(lo: float, hi: float, threshold: float) -> str:
    """Why an undecided interval is undecided: it spans the threshold, or (decisive on its own) it stands on fewer
    replicates than the rule requires."""
    return SPANS if (np.isnan(lo) or np.isnan(hi) or lo <= threshold <= hi) else NOISE


def in_place_of_ours(records: list[dict], method: str) -> list[dict]:
    """The records with ``method``'s output standing in for ours (ours dropped): how a rule is run on a method
    without the paper's ingredient (rule 11; the chapter shows it, the tests require it not to pass)."""
    return [r for r in records if r["method"] != OURS] + [dict(r, method=OURS) for r in records if r["method"] == method]


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
         f"level {T.pgf_family_level} over all graphs × points, and the latent-ignoring PGF exceeds that bound; a "
         "closed form over the bound is evidence against (not reproduced), a latent-ignoring PGF under it means the "
         "samples cannot tell the two apart (inconclusive: noise above effect)",
    rejects="the PGF that ignores latent confounding (each latent replaced by independent noise with the same means); "
            "independent Poisson marginals with the same means (no structure at all)",
    paper="“We leverage Probability Generating Functions (PGFs) to characterize the complex dependencies introduced "
          "by latent confounding.”")
def claim1(res) -> ClaimCheck:
    z, za = np.abs(res.z), np.abs(res.z_alternative)
    crit = bonferroni_z(T.pgf_family_level, z.size)
    measured = (f"largest |z| {z.max():.2f} (bound {crit:.2f}, {z.size} points, N = {res.n:,}; largest gap "
                f"{res.max_abs_error:.1e}); latent-ignoring PGF: largest |z| {za.max():.1f}")
    values = {"max_z": float(z.max()), "max_z_alt": float(za.max()), "crit": crit}
    if not z.max() <= crit:   # NaN included: never accepted
        return ClaimCheck(measured, False, values, reason="the closed form is rejected by its own test")
    if not za.max() > crit:
        return ClaimCheck.inconclusive_check(measured, NOISE, "the latent-ignoring PGF is not rejected either: the "
                                             "samples cannot tell the two apart at this N", values)
    return ClaimCheck(measured, True, values)


not_testable(
    "C9", statement="Trie representation theorem: each monomial of log G is an activation pattern of a source's path "
                    "trie, the exponent of z_j counting the active paths that end at j",
    paper="“we establish a Trie representation theorem that maps the branching causal mechanisms to the algebraic "
          "properties of PGF monomials.”",
    reason="a theorem whose proof was not reached; what a run can compute here (the coefficients assembled from the "
           "tries against the expanded PGF) compares two expansions of one recursion, so it holds by construction: a "
           "test of our code now (tests/papers/test_pgf_trie_causal.py; it was a decided row until the contract's "
           "second edition). Its consequence on sampled counts, two directed paths ⇒ over-dispersion, is row C6")


@claim_rule(
    "C10", statement="Complete local identifiability condition (our reconstruction: the paper's statement was not "
                     "reached): a 3-variable local structure is identified up to monomial equivalence exactly when no "
                     "other structure gives the same answers to the local-PGF queries, read off the graph as path "
                     "counts (at most one variable zeroed, degree ≤ 4)",
    reconstruction=True,
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
    "C7", statement="End to end (10 nodes, in-degree 1.5, 2 latents, N = 30k) our reconstruction of the learner "
                    "recovers directed edges better than PC and FCI, and better than the causally sufficient methods "
                    "(the PGF learner without latents, the PB-SCM cumulant method)",
    rule=f"paired {_CI} t-interval over ≥ {T.e2e_min_graphs} graphs of directed-edge F1, ours − each of PC, FCI, the "
         "causally sufficient PGF ablation and the PB-SCM cumulant method, lies above 0 (each comparison on ≥ that "
         "many graphs where both methods ran); not reproduced when a comparison's interval lies below 0; inconclusive "
         "otherwise, or on fewer graphs (the two causally sufficient methods added after the contract's second "
         "edition: the PB-SCM cumulant method, which has no latent ingredient, passed the rule against PC and FCI "
         "alone on 12 real graphs)",
    rejects="ours no better than PC, FCI or a causally sufficient method (a paired difference ≤ 0); the causally "
            "sufficient ablation in place of ours",
    paper="“we propose a practical algorithm to learn causal structures under latent confounding and demonstrate "
          "its effectiveness through experiments on both synthetic and real-world datasets.” (synthetic part)",
    reconstruction=True)
def claim7(records: list[dict]) -> ClaimCheck:
    methods = {r["method"] for r in records}
    if PC not in methods or FCI not in methods:
        return ClaimCheck(measured="PC/FCI did not run", passed=None, reason="causal-learn is not installed")
    graphs = _graphs(records, OURS)
    parts, texts, kinds, short_pairs = {}, [], [], []
    for other in (PC, FCI, *SUFFICIENT_METHODS):
        d = _paired(records, "directed_f1", OURS, other)
        e = paired_effect(d)
        short = len(d) < graphs
        texts.append(f"ours − {_short(other)} {e.mean:+.2f} [{e.lo:+.2f}, {e.hi:+.2f}]"
                     + (f" (on the {len(d)} graphs where both ran)" if short else "")
                     + (f" ({e.dropped} graph(s) with F1 undefined left out)" if e.dropped else ""))
        # a comparison on fewer paired graphs than the rule needs cannot be decided (changed after the runs at 67dd53f:
        # only our own graphs were counted; since the contract's second edition it is inconclusive, not a failure)
        enough = e.n >= T.e2e_min_graphs
        if not enough:
            short_pairs.append(_short(other))
        parts[f"ours − {_short(other)}"] = e.decision().passed if enough else None
        kinds.append(_kind(e.lo, e.hi, 0.0) if enough or e.decision().passed is None else NOISE)
    f1 = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "directed_f1").items()}
    measured = (f"directed F1 ours {f1[OURS]:.2f}, " + ", ".join(f"{_short(m)} {f1[m]:.2f}" for m in
                                                               (PC, FCI, *SUFFICIENT_METHODS) if m in f1)
                + "; paired differences " + "; ".join(texts) + f" ({graphs} graphs)")
    kind = SPANS if SPANS in kinds else NOISE
    why = (f"{graphs} graph(s) < {T.e2e_min_graphs} at this profile" if graphs < T.e2e_min_graphs else
           f"fewer than {T.e2e_min_graphs} paired graphs with {', '.join(short_pairs)}" if short_pairs else "")
    return combine(measured, parts, kind=kind, why=why)


def _short(method: str) -> str:
    return {PC: "PC", FCI: "FCI", SUFFICIENT: "PGF sufficient", PBSCM: "PB-SCM cumulant"}.get(method, method)


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


_LATENT_MIN = 0.5 + T.latent_min_gain


@claim_rule(
    "C11", statement="Our reconstruction of the learner puts latent marks (↔: a common latent parent) that are right "
                     "more often than chance on the pairs where it decides them",
    rule=f"over ≥ {T.e2e_min_graphs} graphs and ≥ {T.latent_min_decided} decided marks on pairs adjacent in truth "
         f"and output, the balanced accuracy (mean of the rates on confounded and on unconfounded pairs) has a "
         f"{_CI} graph-bootstrap interval above {_LATENT_MIN:g} (chance 0.5 plus the minimum effect "
         f"{T.latent_min_gain:g}, declared after the contract's second edition: the rule asked for > 0.5, so a "
         "marker exactly at chance could only be inconclusive); not reproduced when the interval lies below it; a "
         "resample in which a class has no decided mark counts as 0 (a failure), never left out; fewer graphs or "
         "marks: inconclusive",
    rejects="marks unrelated to the truth (every pair marked unconfounded: balanced accuracy 0.5; or marks at random "
            "with a confounded class that rests on one lucky mark), or no marks",
    paper="“we propose a practical algorithm to learn causal structures under latent confounding …” (the latent part)",
    reconstruction=True)
def claim11(records: list[dict], method: str = OURS) -> ClaimCheck:
    a = _latent_rates(records, method)
    if len(a) == 0:
        return ClaimCheck(measured=f"{method} did not run", passed=None, reason=f"no records of {method}")
    decided, adjacent = a[:, 1].sum() + a[:, 3].sum(), a[:, 4].sum()
    bal = _balanced(a)

    def stat(idx):  # balanced accuracy per resample of graphs; a class without decided marks counts as 0
        s = a[idx].sum(-2)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = 0.5 * (s[..., 0] / s[..., 1] + s[..., 2] / s[..., 3])
        return np.where((s[..., 1] == 0) | (s[..., 3] == 0), 0.0, v)

    def undefined(idx):
        s = a[idx].sum(-2)
        return ((s[..., 1] == 0) | (s[..., 3] == 0)).astype(float)

    # the percentile graph bootstrap of runtime.stats (its resamples are the former private loop's, draw for draw)
    b = unit_bootstrap(stat, len(a), n_boot=T.bootstrap, seed=0, level=T.ci_level)
    n_undef = int(undefined(bootstrap_indices(len(a), T.bootstrap, 0)).sum())
    lo, hi = b.lo, b.hi
    pos = f"{int(a[:, 0].sum())}/{int(a[:, 1].sum())}"
    neg = f"{int(a[:, 2].sum())}/{int(a[:, 3].sum())}"
    fci = _latent_rates(records, FCI) if method != FCI else np.zeros((0, 5))
    context = f"; FCI for comparison: balanced accuracy {_balanced(fci):.2f}" if len(fci) else ""
    measured = (f"decided {int(decided)}/{int(adjacent)} marks; right on confounded {pos}, on unconfounded {neg}; "
                f"balanced accuracy {bal:.2f} [{lo:.2f}, {hi:.2f}] ({len(a)} graphs"
                + (f"; {n_undef} of {T.bootstrap} resamples with a class undecided, counted as failures"
                   if n_undef else "") + f"){context}")
    values = {"balanced": bal, "low": float(lo), "high": float(hi), "undefined_resamples": n_undef}
    if len(a) < T.e2e_min_graphs:
        return ClaimCheck.inconclusive_check(measured, _kind(lo, hi, _LATENT_MIN),
                                             f"{len(a)} graph(s) < {T.e2e_min_graphs} at this profile", values)
    if decided < T.latent_min_decided or not np.isfinite(bal):
        return ClaimCheck.inconclusive_check(
            measured, NOISE, (f"fewer than {T.latent_min_decided} decided marks" if decided < T.latent_min_decided
                              else "no decided mark in one of the two classes"), values)
    dec = decide_interval(lo, hi, _LATENT_MIN)
    if dec.passed is None:
        return ClaimCheck.inconclusive_check(measured, SPANS, dec.text, values)
    return ClaimCheck(measured=measured, passed=dec.passed, values=values,
                      reason=None if dec.passed else dec.text)


@claim_rule(
    "C12", statement="Methods that assume causal sufficiency put arrows between confounded pairs that share no edge; "
                     "allowing latents (our reconstruction of the learner) removes them at a comparable directed-edge "
                     "recall",
    rule=f"over ≥ {T.e2e_min_graphs} graphs and against each causally sufficient method (the PGF ablation and the "
         f"PB-SCM cumulant method), three paired {_CI} t-intervals lie above 0: the spurious-arrow rate on confounded "
         f"pairs (that method − ours), the excess reduction (its rate scaled by our recall over its recall, per graph, "
         f"− ours), and our directed-edge recall − {T.recall_ratio_min:g} × its recall; not reproduced when one of them "
         "lies below 0; inconclusive otherwise, or on fewer graphs (changed after the contract's second edition: the "
         "PB-SCM cumulant method, causally sufficient, could pass the rule against the PGF ablation alone (the tests run its real "
         "output), so every sufficient method is compared; the recall condition was a comparison of means, now an "
         "interval)",
    rejects="a learner that outputs nothing (no spurious arrow, recall 0), the ablation with arrows dropped at random "
            "(spurious rate and recall fall together), a causally sufficient method that is merely cautious (the PB-SCM "
            "cumulant method in place of ours), or no difference in spurious arrows",
    paper="“existing approaches based on PB-SCM rely on the restrictive assumption of causal sufficiency, failing to "
          "account for ubiquitous latent confounders that can bias estimation.”",
    reconstruction=True)
def claim12(records: list[dict], method: str = OURS, ablations: tuple[str, ...] = SUFFICIENT_METHODS) -> ClaimCheck:
    if _graphs(records, method) == 0 or any(_graphs(records, a) == 0 for a in ablations):
        return ClaimCheck(measured="the learners did not run", passed=None,
                          reason=f"no records of {method} or of {', '.join(ablations)}")
    sp = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "spurious_on_confounded").items()}
    rec = {k: np.nanmean(list(v.values())) for k, v in _by_method(records, "directed_recall").items()}
    parts, texts, kinds, values = {}, [], [], {}
    graphs = _graphs(records, method)
    for abl in ablations:
        name = _short(abl)
        e = paired_effect(_paired(records, "spurious_on_confounded", abl, method))
        x = paired_effect(_excess_reduction(records, method, abl))
        by = _by_method(records, "directed_recall")
        seeds = sorted(set(by.get(method, {})) & set(by.get(abl, {})))
        r = paired_effect(np.array([by[method][s] - T.recall_ratio_min * by[abl][s] for s in seeds]))
        for label, eb in ((f"spurious ({name} − ours)", e), (f"excess reduction vs {name}", x),
                          (f"recall (ours − {T.recall_ratio_min:g} × {name})", r)):
            enough = graphs >= T.e2e_min_graphs and eb.n >= 2
            parts[label] = eb.decision().passed if enough else None
            kinds.append(_kind(eb.lo, eb.hi, 0.0) if enough or eb.decision().passed is None else NOISE)
        texts.append(f"vs {name} {sp[abl]:.2f} (recall {rec[abl]:.2f}): difference {e.mean:+.2f} [{e.lo:+.2f}, "
                     f"{e.hi:+.2f}] over {e.n} graphs with such pairs, beyond dropping arrows at random {x.mean:+.2f} "
                     f"[{x.lo:+.2f}, {x.hi:+.2f}]"
                     + (f" ({x.dropped} graph(s) where its recall is 0 left out)" if x.dropped else "")
                     + f", recall margin {r.mean:+.2f} [{r.lo:+.2f}, {r.hi:+.2f}]")
        values[abl] = {"diff": e.mean, "low": e.lo, "excess": x.mean, "excess_low": x.lo, "excess_high": x.hi,
                       "excess_dropped": x.dropped, "recall_margin": r.mean, "recall_low": r.lo, "recall_high": r.hi}
    measured = (f"spurious-arrow rate on confounded pairs: ours {sp[method]:.2f} (recall {rec[method]:.2f}); "
                + "; ".join(texts))
    why = (f"{graphs} graph(s) < {T.e2e_min_graphs} at this profile" if graphs < T.e2e_min_graphs else "")
    return combine(measured, parts, values, kind=SPANS if SPANS in kinds else NOISE, why=why)


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
def _rate_part(k: int, n: int, threshold: float) -> tuple[bool | None, tuple[float, float]]:
    """A rate of ``k`` successes in ``n`` runs against a declared minimum rate: passes on the point rate (as the
    rule was declared), is evidence against only when the exact 95 % interval lies wholly below the minimum
    (rule 9), undecided otherwise."""
    lo, hi = binomial_interval(k, n, T.ci_level) if n else (0.0, 1.0)
    if n and k / n >= threshold:
        return True, (lo, hi)
    return (False if hi < threshold else None), (lo, hi)


@claim_rule(
    "C3", statement="Zero-conditioning blocks paths: for i→c→j, Cov(X_i, X_j | X_c = 0) = 0; with an extra edge "
                    "i→j it is > 0",
    rule=f"the test accepts 0 in ≥ {T.chain_min_rate:.0%} of chain runs and rejects it in ≥ {T.chain_min_rate:.0%} "
         f"of runs with the extra edge; not reproduced when the exact {_CI} interval of either rate lies below "
         f"{T.chain_min_rate:.0%}, inconclusive when a rate misses it but its interval reaches it (the contract's "
         "second edition: a miss was a failure)",
    rejects="a dependence the zero set does not block (a latent parent of i and j): acceptance far below the rate; "
            "the same test without the zero-conditioning")
def claim3(res) -> ClaimCheck:
    n_c, n_d = len(res.p_chain), len(res.p_direct)
    k_acc, k_rej = int(np.sum(np.asarray(res.p_chain) > res.level)), int(np.sum(np.asarray(res.p_direct) <= res.level))
    acc, acc_ci = _rate_part(k_acc, n_c, T.chain_min_rate)
    rej, rej_ci = _rate_part(k_rej, n_d, T.chain_min_rate)
    measured = (f"accepted {res.accept_rate:.1%} of {n_c} runs [{acc_ci[0]:.1%}, {acc_ci[1]:.1%}], rejected "
                f"{res.reject_rate:.1%} with the edge [{rej_ci[0]:.1%}, {rej_ci[1]:.1%}] (about "
                f"{np.mean(res.n_eff):,.0f} rows with X_c = 0)")
    return combine(measured, {"acceptance on chains": acc, "rejection with the edge": rej},
                   {"accept_ci": acc_ci, "reject_ci": rej_ci})


@claim_rule(
    "C6", statement="Over-dispersion (a z_j² monomial) marks exactly the nodes that two directed paths from one "
                    "source reach (the sink of a triangle), however many such nodes there are: the Trie "
                    "representation's consequence, checked on sampled counts (the true set counted on the graph)",
    rule=f"each node tested on its own; the called set equals the true set (the nodes some source reaches by ≥ 2 "
         f"directed paths, counted on the graph) in ≥ {T.sink_min_accuracy:.0%} of runs within every class (0, 1 and "
         f"2 over-dispersed nodes, ≥ {T.sink_min_runs_per_class} runs each); not reproduced when a class's exact "
         f"{_CI} interval lies below {T.sink_min_accuracy:.0%}, inconclusive when a class misses it but its interval "
         "reaches it, or has too few runs (the contract's second edition: a miss was a failure, too few runs "
         "'not testable')",
    rejects="the argmax rule that always names exactly one sink; the all-Poisson reading (no node over-dispersed)")
def claim6(res) -> ClaimCheck:
    exact, n_true = np.asarray(res.exact), np.asarray(res.n_true)
    texts, parts, cis = [], {}, {}
    for k in (0, 1, 2):
        sel = np.minimum(n_true, 2) == k
        runs, right = int(sel.sum()), int(exact[sel].sum())
        part, ci = _rate_part(right, runs, T.sink_min_accuracy)
        parts[f"{k} over-dispersed"] = part if runs >= T.sink_min_runs_per_class else None
        cis[k] = ci
        texts.append(f"{k} over-dispersed: {right / runs if runs else float('nan'):.0%} of {runs} "
                     f"[{ci[0]:.0%}, {ci[1]:.0%}]")
    measured = "exact set " + "; ".join(texts)
    few = [k for k in (0, 1, 2) if int((np.minimum(n_true, 2) == k).sum()) < T.sink_min_runs_per_class]
    return combine(measured, parts, {"ci": cis}, kind=NOISE if few else SPANS,
                   why=f"fewer than {T.sink_min_runs_per_class} runs in class(es) {few}" if few else "")


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
    "C8", statement="Our reconstruction of the learner: directed-edge F1 rises and SHD falls as N grows",
    rule=f"over ≥ {T.trend_min_sizes} sample sizes and ≥ {T.trend_min_graphs} graphs (the same graphs at every N), "
         f"the {_CI} t-interval of the per-graph slope in log10 N is above 0 for F1 and below 0 for SHD, and over "
         f"the larger half of the sample sizes it does not lie below 0 for F1 (above 0 for SHD: no significant "
         f"decline at the top of the range); at most {T.trend_max_dropped_frac:.0%} of the (graph, N) points may "
         f"have F1 or SHD undefined (left out, counted); not reproduced when a slope's interval lies on the wrong "
         f"side of 0 or the top half declines significantly; inconclusive when an interval spans 0, or with fewer "
         f"sizes, graphs or defined points (the contract's second edition: those were 'not testable' or failures)",
    rejects="a curve that falls as N grows, or rises and then declines at the largest N; a learner that ignores the "
            "data (flat in N)",
    reconstruction=True)
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
        return ClaimCheck.inconclusive_check(measured, NOISE, f"{len(ns)} sample sizes × {n1} graphs at this profile "
                                             f"(the rule needs ≥ {T.trend_min_sizes} × ≥ {T.trend_min_graphs})", values)
    if frac > T.trend_max_dropped_frac:
        return ClaimCheck.inconclusive_check(measured + f" ({frac:.0%}, over the {T.trend_max_dropped_frac:.0%} limit)",
                                             NOISE, "too many (graph, N) points with F1 or SHD undefined", values)
    return combine(measured, {"F1 slope": e1.decision().passed, "SHD slope": e2.decision().passed,
                              "no decline at the top": False if declines else True}, values,
                   fail_reason=("F1 falls (or SHD rises) significantly over the larger sample sizes" if declines
                                else None))


abstract_sentence("However, existing approaches based on PB-SCM rely on the restrictive assumption of causal "
                  "sufficiency, failing to account for ubiquitous latent confounders that can bias estimation.", "C12")
abstract_sentence("We leverage Probability Generating Functions (PGFs) to characterize the complex dependencies "
                  "introduced by latent confounding.", "C1")
abstract_sentence("Then, we establish a Trie representation theorem that maps the branching causal mechanisms to the "
                  "algebraic properties of PGF monomials.", "C9", "C6")
abstract_sentence("Based on local PGFs, we establish a complete identifiability condition for local 3-variables that "
                  "covers all causal patterns distinguishable up to monomial equivalence.", "C10")
abstract_sentence("Finally, we propose a practical algorithm to learn causal structures under latent confounding and "
                  "demonstrate its effectiveness through experiments on both synthetic and real-world datasets.",
                  "C7", "C11", "C13")
