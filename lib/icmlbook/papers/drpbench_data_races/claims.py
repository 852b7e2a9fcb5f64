"""The chapter's claims: each rule declared once, with the alternative world it must reject.

The paper (DRPBench, ICML 2026) was not reached beyond its abstract-level facts (dossier §1, §4): 1,003
SV-COMP programs, 557 annotated races, 15 LLMs, best F1 74.89 % (Gemini 3 with reasoning), Llama 3 70B
8.80 %, and two failure modes (shared-variable distraction, synchronisation-logic myopia). No LLM runs
offline, so the rows about LLMs are declared not testable; the rows about the benchmark and about the
two failure modes are decided with offline predictors on the real programs, and again on the generated
suite as a second population (never merged).

Since the contract's second edition (issue 28): four verdicts (a rule says *not reproduced* only when an interval
lies on the far side of its declared minimum effect; otherwise *inconclusive at this scale*, with the kind); the
rules on the real benchmark are scored on its held-out half (``data.split_of``: the front end was tuned on
programs it was scored on); DRDBench's critical non-race pairs are cleaned (``data.clean_non_race_pairs``) and
called non-race pairs, not protected pairs; the line-level F1 is named ours (``metrics``: it differs from DRDBench's
own scoring on mixed integer/list annotations and on repeated hits).
"""

from __future__ import annotations

from typing import Sequence

import dataclasses


from ...runtime.claims import INCONCLUSIVE_KINDS, ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import binomial_interval, decide_interval
from .config import DRPBenchConfig
from .data import Program
from ...training import Convergence, plateau_check
from .experiments import (LEARNED_PLATEAU, STRATA, PopulationStudy, annotated_myopia, detection_gain, distraction_rates,
                          distraction_specificity, localisation_gap, racy_only, stratum_gap, stratum_of)

SPANS, NOT_CONVERGED, NOISE = INCONCLUSIVE_KINDS


def combine(measured: str, parts: dict[str, bool | None], values: dict | None = None, *, kind: str = SPANS,
            why: str = "") -> ClaimCheck:
    """Rule 9 for a rule made of several conditions (``parts``: True pass, False evidence against, None
    undecided): reproduced when all pass, not reproduced when one is evidence against, inconclusive otherwise."""
    values = dict(values or {}, parts=dict(parts))
    failed = [k for k, v in parts.items() if v is False]
    if failed:
        return ClaimCheck(measured, False, values, reason="evidence against: " + ", ".join(failed))
    if all(v is True for v in parts.values()):
        return ClaimCheck(measured, True, values)
    open_ = [k for k, v in parts.items() if v is None]
    return ClaimCheck.inconclusive_check(measured, kind, "undecided: " + ", ".join(open_) + (f" ({why})" if why else ""),
                                         values)


def _dec(lo: float, hi: float, threshold: float) -> bool | None:
    return decide_interval(lo, hi, threshold).passed

#: the predictors claim 3 is about; all pairs (every conflicting pair, so a huge gap by construction) is shown
#: beside them as a reference
LOCALISING = ("lockset", "learned pairs (CV)")
REFERENCE = "all pairs"


def benchmark_counts(programs: Sequence[Program], cfg: DRPBenchConfig) -> dict:
    """The vendored population's size beside the paper's (a fact about our copy, shown on the page; not a
    claim: the snapshot is committed, so comparing it with typed counts would be decided when it was
    vendored). ``dev_*`` are the relative differences from the paper's counts."""
    n = len(programs)
    races = sum(len(p.races) for p in programs)
    return {"programs": n, "racy": sum(p.racy for p in programs), "races": races,
            "dev_programs": abs(n / cfg.paper_programs - 1), "dev_races": abs(races / cfg.paper_races - 1)}


not_testable("C1", statement="DRPBench's own benchmark: 1,003 SV-COMP programs with 557 races annotated at variable "
             "and line level.", paper="1,003 programs; 557 races (abstract)",
             reason="DRPBench's files and program filter were not reached; the chapter runs DRDBench's snapshot of the "
                    "same SV-COMP set (its counts are on the page; that they are close to the paper's is a check of "
                    "our vendoring, kept in the tests; changed after a review: this row was decided on those typed "
                    "counts)")


@claim_rule("C2", statement="The line-level annotations refer to the normalised program text as we vendor it (each "
            "race endpoint names its variable): a check of our normalisation against DRDBench's annotations.",
            rule="share of annotated race endpoints whose line(s) contain an identifier of the annotated lvalue >= 95 %; "
                 "not reproduced when its exact 95 % interval lies below 95 %, inconclusive when the share misses it "
                 "but the interval reaches it",
            rejects="annotations read one line off (a formatter-version drift); the programs as SV-COMP ships them "
                    "(not normalised)",
            paper="not reached (DRDBench's format; dossier §3.2)")
def claim2(study: PopulationStudy, cfg: DRPBenchConfig) -> ClaimCheck:
    if study.consistency is None:
        return ClaimCheck("—", None, reason="only the real benchmark carries DRDBench's annotations")
    hit, total, misses = study.consistency
    share = hit / total if total else float("nan")
    lo, hi = binomial_interval(hit, total) if total else (0.0, 1.0)
    values = {"hit": hit, "total": total, "misses": misses, "ci": (lo, hi)}
    measured = f"{hit:,} of {total:,} endpoints ({share:.1%}, 95% CI [{lo:.1%}, {hi:.1%}]); {len(misses)} do not"
    part = True if total and share >= cfg.consistency_min else (False if hi < cfg.consistency_min else None)
    return combine(measured, {"share naming the variable": part}, values)


LEARNED = "learned pairs (CV)"


def learned_convergence(study: PopulationStudy, cfg: DRPBenchConfig, seed: int) -> Convergence | None:
    """Rule 10 for the learned pair classifier (added under the contract's second edition): the three metrics claim 3
    compares (program F1 − line F1, the same on racy programs, program F1 − the constant detector's) at the trained
    iterations against the same folds trained (1 + extend) times longer (``study.learned_longer``); each may move by
    less than a third of localisation_margin. None when the study has no longer-trained predictions (then the
    classifier's convergence is unknown)."""
    longer = getattr(study, "learned_longer", None)
    if longer is None or LEARNED not in study.predictions:
        return None
    other = dataclasses.replace(study, predictions=dict(study.predictions, **{LEARNED: longer}))

    def metrics(s):
        return [localisation_gap(s, LEARNED, cfg.n_boot, seed)[0], localisation_gap(racy_only(s), LEARNED, cfg.n_boot, seed)[0],
                detection_gain(s, LEARNED, cfg.n_boot, seed)[0]]

    its = getattr(study, "learned_iterations", None)
    name = LEARNED + (f" ({its[0]} → {its[1]} boosting iterations)" if its else "")
    return plateau_check(metrics(study), metrics(other), cfg.localisation_margin, LEARNED_PLATEAU, name=name)


def _localisation(study: PopulationStudy, cfg: DRPBenchConfig, seed: int) -> ClaimCheck:
    gaps = {name: localisation_gap(study, name, cfg.n_boot, seed) for name in LOCALISING}
    racy = racy_only(study)
    racy_gaps = {name: localisation_gap(racy, name, cfg.n_boot, seed) for name in LOCALISING}
    gains = {name: detection_gain(study, name, cfg.n_boot, seed) for name in LOCALISING}
    conv = learned_convergence(study, cfg, seed)
    unconverged = LEARNED in LOCALISING and (conv is None or not conv.converged)
    parts = {}
    for n in LOCALISING:
        parts[f"{n}: gap"] = _dec(gaps[n][1], gaps[n][2], cfg.localisation_margin)
        parts[f"{n}: gap on racy programs"] = _dec(racy_gaps[n][1], racy_gaps[n][2], cfg.localisation_margin)
        parts[f"{n}: detects better than the prior"] = _dec(gains[n][1], gains[n][2], 0.0)
        if n == LEARNED and unconverged:      # an unconverged model is compared with nothing (rule 10)
            for k in [k for k in parts if k.startswith(n)]:
                parts[k] = None
    text = "; ".join(f"{n}: {g:+.2f} [{lo:+.2f}, {hi:+.2f}] (on the {len(racy.programs):,} racy programs alone "
                     f"{rg:+.2f} [{rlo:+.2f}, {rhi:+.2f}]; its program F1 minus the constant detector's "
                     f"{gains[n][0]:+.2f} [{gains[n][1]:+.2f}, {gains[n][2]:+.2f}])"
                     for (n, (g, lo, hi)), (rg, rlo, rhi) in zip(gaps.items(), racy_gaps.values()))
    ref = {}
    if REFERENCE in study.predictions:
        ref = {REFERENCE: localisation_gap(study, REFERENCE, cfg.n_boot, seed)}
        g, lo, hi = ref[REFERENCE]
        text += f" (reference, not in the rule: {REFERENCE} {g:+.2f} [{lo:+.2f}, {hi:+.2f}])"
    conv_text = (conv.text if conv is not None else f"{LEARNED}: convergence unknown (no longer-trained predictions)")
    return combine(f"program F1 − line F1 (95% CI) over {len(study.programs):,} programs: {text}; plateau test: "
                   f"{conv_text}", parts,
                   {"gaps": gaps, "racy_gaps": racy_gaps, "gains": gains, "reference": ref,
                    "learned_converged": None if conv is None else conv.converged},
                   kind=NOT_CONVERGED if unconverged else SPANS,
                   why=f"{LEARNED} not shown converged: {conv_text}" if unconverged else "")


_C3 = dict(statement="Localising a race (the two lines) is much harder than detecting that a program is racy (for our "
                     "offline predictors, on the held-out half of the real benchmark).",
           rule="on the held-out half of the real benchmark (a declared split by the hash of each program's name; the "
                "front end may be tuned on the other half only, since an audit found it tuned on the programs it is "
                "scored on), for the lockset analyser and the learned pair classifier, the paired-bootstrap 95 % CI of "
                "program-level F1 minus line-level F1 lies above 0.1 (all pairs, whose gap holds by construction, is "
                "shown as a reference; it was one of the rule's predictors until a review after the first default "
                "run, a change that cannot alter the verdict); and the same gap over the racy programs alone also "
                "lies above 0.1 (added in session 6 after a second review: a false alarm on a race-free program counts "
                "once at program level and once per predicted pair at line level, so a predictor that localises every "
                "race it detects passed with 8 spurious pairs on each race-free program); and each one's program-level "
                "F1 beats the constant detector that calls every program racy (paired-bootstrap CI above 0; added "
                "after the contract's second edition, because that trivial detector, naming one fixed pair, passed the "
                "rule: its gap is large since it localises nothing, not since localising is harder); not reproduced "
                "when one of these intervals lies below its threshold, inconclusive when one spans it. The learned "
                "classifier is compared only once it passes the plateau test (rule 10, added after the contract's "
                "second edition): trained on the same folds with 50 % more boosting iterations, each of its three "
                "measures (the gap, the gap on racy programs, the gain over the constant detector) moves by less than "
                "a third of 0.1; otherwise its three conditions are undecided and the row is at best inconclusive (not "
                "converged)",
           rejects="a predictor that localises every race it detects (line F1 = program F1 on the racy programs), "
                   "whatever it reports on race-free ones; a detector no better than calling every program racy; a learned "
                   "classifier whose measures still move with more boosting iterations (not converged)",
           paper="not reached (the abstract's motivation for fine-grained prediction)")
claim3 = claim_rule("C3", **_C3)(_localisation)


def _distraction(study: PopulationStudy, cfg: DRPBenchConfig, seed: int) -> ClaimCheck:
    r = distraction_specificity(study, "all pairs", "lockset", cfg.n_boot, seed)
    measured = (f"in the {r['programs']:,} programs where all pairs flags both a non-race pair and a race: of the "
                f"{r['seen_nonrace']:,} non-race pairs all pairs flags, lockset still flags {r['keep_nonrace']:.1%}; of "
                f"the {r['seen_races']:,} races all pairs finds, {r['keep_races']:.1%} (difference {r['diff']:+.1%}, "
                f"95% CI [{r['lo']:+.1%}, {r['hi']:+.1%}]); all pairs reaches {r['coverage']:.1%} of the "
                f"{r['nonrace_pairs']:,} non-race pairs (front-end coverage, not part of the rule)")
    # NaN (no program holds both kinds) is inconclusive
    return combine(measured, {"races kept − non-race pairs kept": _dec(r["lo"], r["hi"], cfg.specificity_margin)}, r,
                   why="no program where all pairs flags both kinds" if r["programs"] == 0 else "")


_C5 = dict(statement="Shared-variable distraction is measurable (our operationalisation: our reconstruction of the "
                     "failure mode with offline analysers): of the annotated non-race pairs (DRDBench's critical "
                     "non-race pairs, cleaned) that a reader blind to synchronisation flags as races, a lock-aware "
                     "analysis withdraws a larger share than of the annotated races it flags.",
           rule="on the held-out half of the real benchmark, in the programs where all pairs flags both a non-race pair "
                "and a race, over those pairs and races: (share of the races lockset still finds) − (share of the "
                "non-race pairs lockset still flags): paired-bootstrap 95 % CI (programs resampled) above "
                "specificity_margin (0.1; 0 before the contract's second edition); not reproduced when the CI lies "
                "below it, inconclusive when it spans it (changed after the first default run, following a review: "
                "the former rule also asked all pairs to flag more than half of all protected pairs, which measures "
                "our front end's coverage; restricted to programs holding both after a second review, since pooled "
                "shares let a difference in program mix pass as a lock effect). The non-race pairs are DRDBench's "
                "critical non-race pairs without the entries identical to an annotated race and without read/read "
                "pairs (they were called protected pairs, and those entries distorted both shares, until an audit)",
           rejects="non-race pairs that locks do not explain (lockset keeps as many as it keeps races); a lock-aware "
                   "analyser that merely thins its output (a random subset, or nothing at all, also only on the "
                   "programs that use locks); all pairs itself in the lockset's place",
           paper="not reached (the abstract names shared-variable distraction as a failure mode of LLMs)")
claim5 = claim_rule("C5", reconstruction=True, **_C5)(_distraction)


def former_distraction_rule(study: PopulationStudy, cfg: DRPBenchConfig, seed: int) -> ClaimCheck:
    """Claim 5's rule before the review (shown on the page for the record, never in the ledger): all pairs
    flags more than half of the protected pairs (bootstrap lower bound above ``distraction_min``) and flags
    more of them than lockset (paired-bootstrap interval above 0)."""
    r = distraction_rates(study, "all pairs", "lockset", cfg.n_boot, seed)
    ok = r["rate_a_lo"] > cfg.distraction_min and r["lo"] > 0
    return ClaimCheck(f"non-race pairs flagged: all pairs {r['rate_a']:.1%} (95% CI [{r['rate_a_lo']:.1%}, "
                      f"{r['rate_a_hi']:.1%}]), lockset {r['rate_b']:.1%} "
                      f"(difference {r['diff']:+.1%}, 95% CI [{r['lo']:+.1%}, {r['hi']:+.1%}]; "
                      f"{r['nonrace_pairs']:,} non-race pairs)", bool(ok), r)


FORMER_C5_RULE = ("all-pairs flags more than half of the annotated non-race pairs (bootstrap 95 % CI of its share "
                  "above 50 %), and the paired-bootstrap 95 % CI of (all pairs − lockset) lies above 0")


def _myopia(study: PopulationStudy, cfg: DRPBenchConfig, seed: int) -> ClaimCheck:
    sizes = {s: sum(stratum_of(p) == s for p in study.programs) for s in STRATA[:2]}
    if not all(sizes.values()):
        return ClaimCheck.inconclusive_check("—", NOISE, "a stratum holds no program at this size ("
                                             + ", ".join(f"{s}: {n}" for s, n in sizes.items()) + ")")
    g = stratum_gap(study, "lockset (mutex only)", cfg.n_boot, seed, reference="lockset")
    a = annotated_myopia(study, "lockset (mutex only)", "lockset", cfg.n_boot, seed)
    sub = dataclasses.replace(study, programs=[p for p in study.programs if p.racy and stratum_of(p) == STRATA[1]])
    sp = distraction_specificity(sub, "lockset (mutex only)", "lockset", cfg.n_boot, seed)
    g["annotated"], g["specificity"] = a, sp
    parts = {"mutex-only F1 gap": _dec(g["lo"], g["hi"], cfg.myopia_margin),
             "difference in differences": _dec(g["did_lo"], g["did_hi"], cfg.myopia_margin),
             "annotated non-race pairs flagged": _dec(a["lo"], a["hi"], 0.0),
             "what the non-mutex ingredient withdraws": _dec(sp["lo"], sp["hi"], cfg.specificity_margin)}
    measured = (f"mutex-only analyser, line F1: {g['f1_mutex']:.2f} on {g['n_mutex']} mutex-only programs vs "
                f"{g['f1_other']:.2f} on {g['n_other']} with other synchronisation (difference {g['diff']:+.2f}, "
                f"95% CI [{g['lo']:+.2f}, {g['hi']:+.2f}]); full lockset {g['ref_f1_mutex']:.2f} vs "
                f"{g['ref_f1_other']:.2f} (difference {g['ref_diff']:+.2f}); difference in differences "
                f"{g['did']:+.2f}, 95% CI [{g['did_lo']:+.2f}, {g['did_hi']:+.2f}]; of the {a['nonrace']:,} "
                f"annotated non-race pairs of the {a['programs']} racy programs with other synchronisation, the "
                f"mutex-only analyser flags {a['flagged']:,}, the full lockset {a['ref_flagged']:,} (difference "
                f"of shares {a['diff']:+.1%}, 95% CI [{a['lo']:+.1%}, {a['hi']:+.1%}]); of what the mutex-only analyser "
                f"flags there ({sp['programs']} programs holding both kinds), the full lockset keeps "
                f"{sp['keep_races']:.1%} of the {sp['seen_races']} races and {sp['keep_nonrace']:.1%} of the "
                f"{sp['seen_nonrace']} non-race pairs (difference {sp['diff']:+.1%}, 95% CI [{sp['lo']:+.1%}, "
                f"{sp['hi']:+.1%}])")
    return combine(measured, parts, g)


_C6 = dict(statement="Synchronisation-logic myopia is measurable (our operationalisation: our reconstruction of the "
                     "failure mode with offline analysers): an analyser that only understands mutexes does much worse "
                     "on programs synchronised otherwise (atomics, semaphores, flags, barriers), and what the non-mutex "
                     "synchronisation it ignores protects is, by the benchmark's annotations, non-race pairs rather "
                     "than races. Our mutex-only analyser is the full lockset without its non-mutex ingredients, so its "
                     "reports contain the full lockset's: that it flags more on those programs holds by construction; "
                     "what the row tests is whether the extra reports fall on annotated non-race pairs rather than on "
                     "races.",
           rule="on the held-out half of the real benchmark: line-level F1 of the mutex-only lockset analyser on "
                "mutex-only programs minus its F1 on programs with non-mutex synchronisation: bootstrap 95 % CI above "
                "myopia_margin (0.1); and that gap minus the full lockset analyser's gap (same resampled programs): "
                "95 % CI above myopia_margin (both margins 0 until a second review in session 6); and, over the racy "
                "programs with non-mutex synchronisation that hold annotated non-race pairs, the share of those pairs "
                "the mutex-only analyser flags minus the share the full lockset flags: paired-bootstrap 95 % CI above 0 "
                "(added in session 6 after a second review); these three cannot come out negative, since the "
                "analysers are nested (an audit's finding), so, added after the contract's second edition: over those "
                "programs where the mutex-only analyser flags both a race and a non-race pair, (share of its races the "
                "full lockset keeps) − (share of its non-race pairs the full lockset keeps): paired-bootstrap 95 % CI "
                "above specificity_margin (0.1). Not reproduced when one interval lies below its threshold; "
                "inconclusive when one spans it",
           rejects="no myopia, or a little (the same F1 on both strata, or a gap not shown to exceed 0.1); strata that "
                   "differ in difficulty for every analyser (the full lockset analyser loses as much); a loss on the "
                   "non-mutex stratum through pairs the annotators did not mark as non-race; a non-mutex ingredient "
                   "that withdraws races as readily as non-race pairs (random thinning); the mutex-only analyser in the "
                   "full lockset's place",
           paper="not reached (the abstract names synchronisation-logic myopia as a failure mode of LLMs)")
claim6 = claim_rule("C6", reconstruction=True, **_C6)(_myopia)

not_testable("P1", statement="The best of 15 LLMs (Gemini 3 with reasoning) reaches 74.89 % F1.",
             paper="74.89 % F1 (abstract)", reason="no LLM is available offline; the pluggable predictor is off by default")
not_testable("P2", statement="Llama 3 70B reaches 8.80 % F1.", paper="8.80 % F1 (abstract)",
             reason="no LLM is available offline")
not_testable("C7", statement="Frontier reasoning models rank far above Llama-3-70B-class models on line-level F1.",
             paper="74.89 % vs 8.80 % (abstract)", reason="needs the 15 LLMs (or a user-supplied endpoint)")
not_testable("C8", statement="Majority voting over samples has higher precision than their union, which has "
             "higher recall.", paper="not reached", reason="needs sampled LLM answers")
not_testable("C9", statement="Shared-variable distraction and synchronisation-logic myopia are the LLMs' dominant "
             "failure modes.", paper="the two failure modes named in the abstract",
             reason="needs LLM answers; rows C5 and C6 show only that both are measurable on this benchmark")
not_testable("P3", statement="Most of the 15 models stay below 60 % F1.",
             paper="not reached (a secondary note on the paper: most models below 60 % F1)",
             reason="no LLM is available offline (added after an audit: the statement had no row)")
not_testable("C10", statement="Distraction grows with the dose: the more shared variables that are in fact protected a "
             "program holds, the more of them the LLMs report as races.",
             paper="not reached (the distraction dose-response)",
             reason="needs LLM answers on programs with a controlled number of protected distractors; our offline "
                    "analysers respond to that dose by construction (all pairs flags every distractor the generator "
                    "adds, the lockset none), so running them would test our code, not the models (added after an "
                    "audit: the statement had no row)")

abstract_sentence("DRPBench: 1,003 SV-COMP programs with 557 races annotated at variable and line level.", "C1", "C2")
abstract_sentence("Fine-grained prediction of the racing variable and line pair, beyond yes/no detection.", "C3")
abstract_sentence("The best model (Gemini 3 with reasoning) reaches only 74.89 % F1; Llama 3 70B gets 8.80 %.",
                  "P1", "P2", "C7", "P3")
abstract_sentence("Dominant failure modes: shared-variable distraction and synchronisation-logic myopia.",
                  "C5", "C6", "C9", "C10")


#: The same three measurements on the generated suite. They are *not* claims: the suite's patterns, its
#: protected pairs and its race-free twins are built from the constructs the analysers model, so the
#: outcomes there follow from how the suite is made (a check of the generator and the analysers, shown on
#: the page and pinned by tests), never a verdict on the paper.
GENERATED_CHECKS = {"localisation": _localisation, "distraction": _distraction, "myopia": _myopia}
RULE_TEXT = {"localisation": _C3["rule"], "distraction": _C5["rule"], "myopia": _C6["rule"]}
