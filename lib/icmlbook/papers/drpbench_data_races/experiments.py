"""The chapter's experiments: every predictor on the real benchmark and on the generated suite, the
intervals, the failure-mode measures, and ThreadSanitizer. Each returns a plain dataclass (cached by the
notebook through ``run.cached``)."""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ...runtime.stats import percentile_interval
from ...training import PlateauTest
from .config import DRPBenchConfig
from .data import SPLITS, Program, Race, annotation_consistency, clean_non_race_pairs, load_benchmark, split_of
from .frontend import constructs_of
from .generator import generate_suite
from .metrics import (Counts, _resample, bootstrap_f1, f1_replicates, match, micro_f1, paired_bootstrap, per_program, score)
from .predictors import (AllPairsPredictor, LocksetPredictor, cross_validated, predict_all, unparsable)
from .tsan import run_many, tsan_available

__all__ = ["LEARNED_PLATEAU", "split_study", "constant_detector_counts", "detection_gain", "nonrace_pair_coverage", "playground", "score_program", "PLAYGROUND_LEVELS", "scores_table", "fp_shares", "tsan_agreement", "select_real", "generated_suite", "PopulationStudy", "population_study", "TSanStudy", "tsan_study",
           "localisation_gap", "racy_only", "annotated_myopia", "distraction_rates", "distraction_specificity", "stratum_of", "STRATA", "stratum_gap", "RULE_PREDICTORS",
           "construct_counts", "construct_scores", "construct_table", "ACROSS", "DISTRACTOR"]

RULE_PREDICTORS = ("all pairs", "lockset", "lockset (mutex only)")
#: the learned classifier's plateau test (CLAIMS.md rule 10's default: 50 % more boosting iterations move each metric
#: claim 3 compares by less than a third of its margin)
LEARNED_PLATEAU = PlateauTest()
#: program strata of the myopia study, from the constructs detected in the text
STRATA = ("mutex only", "non-mutex synchronisation", "no synchronisation")
NON_MUTEX = ("semaphore", "condvar", "barrier", "atomic_block", "atomic_function", "c11_atomic", "busy_wait")


def select_real(cfg: DRPBenchConfig) -> list[Program]:
    """The real programs of this profile: every ``real_stride``-th racy and race-free program, with DRDBench's
    critical non-race pairs cleaned (:func:`.data.clean_non_race_pairs`)."""
    progs = load_benchmark()
    racy = [p for p in progs if p.racy][:: cfg.real_stride]
    safe = [p for p in progs if not p.racy][:: cfg.real_stride]
    keep = {p.name for p in racy + safe}
    return clean_non_race_pairs([p for p in progs if p.name in keep])[0]


def split_study(study: "PopulationStudy", half: str) -> "PopulationStudy":
    """The study restricted to one declared half of the real benchmark (:func:`.data.split_of`): ``"held-out"``,
    on which the rules are scored, or ``"tuning"``, the only half the front end may be tuned on from the contract's
    second edition on. The predictions are the study's own (the learned classifier's come from its cross-validation
    over the whole population, by category)."""
    if half not in SPLITS:
        raise ValueError(f"half={half!r} is not allowed; allowed values: {', '.join(SPLITS)}")
    return dataclasses.replace(study, programs=[p for p in study.programs if split_of(p) == half],
                               population=f"{study.population} ({half})")


def generated_suite(cfg: DRPBenchConfig, seed: int) -> list[Program]:
    return generate_suite(cfg.n_generated, seed, constructs=cfg.constructs,
                          per_program=(cfg.gen_min_patterns, cfg.gen_max_patterns),
                          distractors=(cfg.gen_min_distractors, cfg.gen_max_distractors))


def stratum_of(program: Program) -> str:
    c = set(constructs_of(program.text))
    if c & set(NON_MUTEX):
        return STRATA[1]
    return STRATA[0] if "mutex" in c else STRATA[2]


@dataclasses.dataclass
class PopulationStudy:
    population: str                                  # "real benchmark" or "generated suite"
    programs: list[Program]
    predictions: dict[str, dict[str, list[Race]]]    # predictor -> program -> races
    unparsable: list[str]                            # programs read with parser error recovery
    consistency: tuple[int, int, list] | None = None  # real benchmark: annotation endpoints naming their variable
    #: the learned classifier's cross-validated predictions with (1 + LEARNED_PLATEAU.extend) times the boosting
    #: iterations, same folds (claim 3's convergence guard, contract's second edition); None where not trained
    learned_longer: dict[str, list[Race]] | None = None
    #: the two iteration counts (as trained, longer)
    learned_iterations: tuple[int, int] | None = None

    @property
    def predictors(self) -> list[str]:
        return list(self.predictions)

    def scores(self) -> dict[str, dict[str, float]]:
        return {name: score(pred, self.programs) for name, pred in self.predictions.items()}

    def counts(self, predictor: str, level: str) -> list[Counts]:
        return per_program(self.predictions[predictor], self.programs, level)


def population_study(programs: Sequence[Program], cfg: DRPBenchConfig, seed: int, population: str) -> PopulationStudy:
    """Every predictor on one population; the learned classifier cross-validated by group."""
    programs = list(programs)
    preds: dict[str, dict[str, list[Race]]] = {"empty": {p.name: [] for p in programs}}
    for name, predictor in (("all pairs", AllPairsPredictor()), ("lockset", LocksetPredictor()),
                            ("lockset (mutex only)", LocksetPredictor.mutex_only())):
        preds[name] = predict_all(predictor, programs, desc=f"{population}: {name}")
    preds["learned pairs (CV)"] = cross_validated(programs, cfg.cv_folds, seed=seed, max_iter=cfg.gb_iterations)
    # the plateau test of rule 10: the same folds, 50 % more boosting iterations (claim 3 compares the two)
    longer = int(np.ceil(cfg.gb_iterations * (1 + LEARNED_PLATEAU.extend)))
    learned_longer = cross_validated(programs, cfg.cv_folds, seed=seed, max_iter=longer)
    cons = annotation_consistency(programs) if population == "real benchmark" else None
    return PopulationStudy(population, programs, preds, unparsable(programs), cons, learned_longer,
                           (cfg.gb_iterations, longer))


def constant_detector_counts(study: PopulationStudy) -> list[Counts]:
    """Program-level counts of the detector that calls every program racy (the prior), over the study's programs."""
    return [Counts(int(p.racy), int(not p.racy), 0) for p in study.programs]


def detection_gain(study: PopulationStudy, predictor: str, n_boot: int, seed: int) -> tuple[float, float, float]:
    """Program-level F1 of ``predictor`` minus that of the constant "every program racy" detector on the same
    programs, with a paired bootstrap 95% interval: > 0 only for a predictor that detects better than the prior."""
    return paired_bootstrap(study.counts(predictor, "program"), constant_detector_counts(study), n_boot=n_boot, seed=seed)


def localisation_gap(study: PopulationStudy, predictor: str, n_boot: int, seed: int) -> tuple[float, float, float]:
    """Program-level F1 minus line-level F1 of one predictor, with a paired bootstrap 95% interval."""
    return paired_bootstrap(study.counts(predictor, "program"), study.counts(predictor, "line"), n_boot=n_boot, seed=seed)


def _flagged(predictions: dict[str, list[Race]], programs: Sequence[Program]) -> list[Counts]:
    """Per program: annotated non-race pairs flagged (tp) and not flagged (fn), as Counts."""
    out = []
    for prog in programs:
        pred = predictions[prog.name]
        hit = sum(any(match(p, g) for p in pred) for g in prog.critical)
        out.append(Counts(tp=hit, fp=0, fn=len(prog.critical) - hit))
    return out


def _rate(summed: np.ndarray) -> np.ndarray:
    tp, fn = summed[..., 0], summed[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (tp + fn)


def distraction_rates(study: PopulationStudy, a: str, b: str, n_boot: int, seed: int) -> dict[str, float]:
    """Share of the annotated non-race pairs that predictors ``a`` and ``b`` flag as races (the
    shared-variable distraction), the percentile bootstrap interval of ``a``'s share (``rate_a_lo``,
    ``rate_a_hi``) and the paired bootstrap interval of ``a``'s minus ``b``'s (``lo``, ``hi``); programs are
    resampled, with the same indices for all three (those of :func:`.metrics.paired_bootstrap`)."""
    fa, fb = _flagged(study.predictions[a], study.programs), _flagged(study.predictions[b], study.programs)
    diff, lo, hi = paired_bootstrap(fa, fb, n_boot=n_boot, seed=seed, stat=_rate)
    total = sum(c.tp + c.fn for c in fa)
    # the share a flags, with the percentile interval over the same resampled programs
    ma = np.array([[c.tp, c.fp, c.fn] for c in fa], dtype=float).reshape(-1, 3)
    a_lo, a_hi, _ = percentile_interval(_rate(ma[_resample(len(ma), n_boot, seed)].sum(1)))
    return {"rate_a": float(_rate(ma.sum(0))), "rate_a_lo": float(a_lo), "rate_a_hi": float(a_hi),
            "rate_b": float(_rate(np.array([sum(c.tp for c in fb), 0, sum(c.fn for c in fb)]))),
            "diff": diff, "lo": lo, "hi": hi, "nonrace_pairs": int(total)}


def distraction_specificity(study: PopulationStudy, a: str, b: str, n_boot: int, seed: int) -> dict[str, float]:
    """What a lock-aware predictor ``b`` withdraws of what a synchronisation-blind one ``a`` flags.

    Over the annotated non-race pairs that ``a`` flags (``seen_nonrace``; the rest its front end never
    extracted) and the annotated races ``a`` matches (``seen_races``): the share of each that ``b`` still
    flags, ``keep_nonrace`` and ``keep_races``, and ``diff = keep_races - keep_nonrace`` with a paired
    percentile bootstrap 95% interval (programs resampled, the same indices for both shares, those of
    :func:`.metrics.paired_bootstrap`). ``diff`` is 0 when ``b`` thins ``a``'s output without regard to
    the annotations (a random subset, or nothing at all) and > 0 only when it withdraws non-race pairs more than
    races. ``coverage`` is the share of all annotated non-race pairs that ``a`` flags (a property of the
    front end, reported beside)."""
    rows = []
    for prog in study.programs:
        pa, pb = study.predictions[a][prog.name], study.predictions[b][prog.name]
        seen_p = [g for g in prog.critical if any(match(x, g) for x in pa)]
        seen_r = [g for g in prog.races if any(match(x, g) for x in pa)]
        rows.append([len(seen_p), sum(any(match(x, g) for x in pb) for g in seen_p),
                     len(seen_r), sum(any(match(x, g) for x in pb) for g in seen_r), len(prog.critical)])
    allm = np.array(rows, dtype=float).reshape(-1, 5)
    # within programs only: a program with seen races but no seen non-race pair (or the reverse) would let a
    # difference in program mix pass as a lock effect (abstain on every program that uses locks, keep the races
    # of the lock-free ones), so both shares are taken over the programs that hold both
    m = allm[(allm[:, 0] > 0) & (allm[:, 2] > 0)]

    def shares(summed):
        with np.errstate(invalid="ignore", divide="ignore"):
            return summed[..., 1] / summed[..., 0], summed[..., 3] / summed[..., 2]

    if len(m) == 0:
        kp = kr = lo = hi = float("nan")
    else:
        kp, kr = shares(m.sum(0))
        rp, rr = shares(m[_resample(len(m), n_boot, seed)].sum(1))
        d = rr - rp  # every resampled program holds both kinds, so neither share is undefined
        lo, hi, _ = percentile_interval(d)
    tot, all_tot = m.sum(0), allm.sum(0)
    return {"keep_nonrace": float(kp), "keep_races": float(kr), "diff": float(kr - kp), "lo": float(lo),
            "hi": float(hi), "seen_nonrace": int(tot[0]), "seen_races": int(tot[2]), "programs": int(len(m)),
            "nonrace_pairs": int(all_tot[4]),
            "coverage": float(all_tot[0] / all_tot[4]) if all_tot[4] else float("nan")}


def annotated_myopia(study: PopulationStudy, predictor: str, reference: str, n_boot: int, seed: int) -> dict[str, float]:
    """On the racy programs with non-mutex synchronisation that hold annotated non-race pairs (``programs``; only
    racy programs carry DRDBench's non-race-pair annotations): the share of those pairs (``nonrace``) that
    ``predictor`` flags as races minus the share ``reference`` flags (``flagged``, ``ref_flagged``), with a paired
    percentile bootstrap 95% interval (programs resampled, the same indices for both, those of
    :func:`.metrics.paired_bootstrap`). It is > 0 only when ``predictor``'s extra reports on that stratum fall on
    pairs the annotators marked as not racing; NaN when no program qualifies."""
    progs = [p for p in study.programs if p.racy and p.critical and stratum_of(p) == STRATA[1]]
    if not progs:
        return {"programs": 0, "nonrace": 0, "flagged": 0, "ref_flagged": 0, "diff": float("nan"),
                "lo": float("nan"), "hi": float("nan")}
    fa, fb = _flagged(study.predictions[predictor], progs), _flagged(study.predictions[reference], progs)
    diff, lo, hi = paired_bootstrap(fa, fb, n_boot=n_boot, seed=seed, stat=_rate)
    return {"programs": len(progs), "nonrace": sum(c.tp + c.fn for c in fa), "flagged": sum(c.tp for c in fa),
            "ref_flagged": sum(c.tp for c in fb), "diff": diff, "lo": lo, "hi": hi}


def racy_only(study: PopulationStudy) -> PopulationStudy:
    """The same study restricted to its racy programs (where program-level precision is 1, so every line-level
    false positive is a mislocalised or extra pair in a racy program)."""
    return dataclasses.replace(study, programs=[p for p in study.programs if p.racy])


def stratum_gap(study: PopulationStudy, predictor: str, n_boot: int, seed: int, level: str = "line",
                reference: str | None = None) -> dict[str, float]:
    """F1 of ``predictor`` on mutex-only programs minus its F1 on programs with non-mutex
    synchronisation, with a 95% interval from resampling programs within each stratum.

    With ``reference`` (another predictor on the same programs), also the difference in differences:
    ``predictor``'s gap minus ``reference``'s gap, resampled with the same program indices for both
    (keys ``ref_*`` and ``did*``). It is 0 when the strata differ in difficulty for every analyser alike,
    and > 0 only when ``predictor`` loses more than ``reference`` on the non-mutex stratum."""
    def strata(name):
        counts = study.counts(name, level)
        return {s: [c for c, p in zip(counts, study.programs) if stratum_of(p) == s] for s in STRATA}

    groups = strata(predictor)
    a, b = groups[STRATA[0]], groups[STRATA[1]]
    fa, la, ha = bootstrap_f1(a, n_boot=n_boot, seed=seed)
    fb, lb, hb = bootstrap_f1(b, n_boot=n_boot, seed=seed + 1)
    d = f1_replicates(a, n_boot, seed) - f1_replicates(b, n_boot, seed + 1)     # each stratum resampled on its own
    lo, hi, _ = percentile_interval(d)
    out = {"f1_mutex": fa, "f1_mutex_ci": (la, ha), "f1_other": fb, "f1_other_ci": (lb, hb),
           "diff": fa - fb, "lo": float(lo), "hi": float(hi), "n_mutex": len(a), "n_other": len(b),
           "n_none": len(groups[STRATA[2]])}
    if reference is not None:
        ref = strata(reference)
        ra, rb = ref[STRATA[0]], ref[STRATA[1]]
        rd = f1_replicates(ra, n_boot, seed) - f1_replicates(rb, n_boot, seed + 1)   # the same programs drawn
        rfa, rfb = micro_f1(ra), micro_f1(rb)
        dlo, dhi, _ = percentile_interval(d - rd)
        out.update({"reference": reference, "ref_f1_mutex": rfa, "ref_f1_other": rfb, "ref_diff": rfa - rfb,
                    "did": (fa - fb) - (rfa - rfb), "did_lo": float(dlo), "did_hi": float(dhi)})
    return out


@dataclasses.dataclass
class TSanStudy:
    available: bool
    generated: dict          # name -> TSanResult
    real: dict
    generated_programs: list[Program]
    real_programs: list[Program]


def tsan_study(generated: Sequence[Program], real: Sequence[Program], cfg: DRPBenchConfig, seed: int) -> TSanStudy:
    """ThreadSanitizer on a seeded sample of each population (racy programs and their race-free twins in
    the generated suite; racy programs only in the real one, where it measures recall)."""
    if not tsan_available():
        return TSanStudy(False, {}, {}, [], [])
    rng = np.random.default_rng(seed)
    gen = list(generated)[: 2 * (cfg.tsan_generated // 2)]
    racy_real = [p for p in real if p.racy]
    pick = sorted(rng.choice(len(racy_real), size=min(cfg.tsan_real, len(racy_real)), replace=False).tolist()) if cfg.tsan_real else []
    real_sample = [racy_real[i] for i in pick]
    return TSanStudy(True, run_many(gen, cfg.tsan_runs, cfg.tsan_timeout), run_many(real_sample, cfg.tsan_runs, cfg.tsan_timeout),
                     gen, real_sample)


#: the playground's scoring rules: our line level (DRDBench's match, integer lines read as one-line lists), DRDBench's
#: own scoring (metrics.drdbench_counts), and the two variable-level readings
PLAYGROUND_LEVELS = {"line (ours)": "line", "line (DRDBench's own scoring)": "drdbench", "line + variable": "line_variable",
                     "variable set": "variable_set"}


def playground(constructs: Sequence[str], racy: Sequence[bool], distractors: int, predictor: str,
               threads: int = 2, level: str = "line (ours)"):
    """One generated program from the chosen constructs (each racy or safe) plus protected distractor
    variables, with ``threads`` copies of a loop-spawned thread, and what the chosen rule-based predictor
    says about it: (program, predicted, scores), scores holding every level's counts, ``"chosen"`` (the
    counts at ``level``, one of :data:`PLAYGROUND_LEVELS`) and whether the program verdict is right."""
    if level not in PLAYGROUND_LEVELS:
        raise ValueError(f"level={level!r} is not allowed; allowed values: {', '.join(PLAYGROUND_LEVELS)}")
    from .generator import Instance, generate_program

    if len(constructs) != len(racy):
        raise ValueError(f"constructs and racy must have the same length ({len(constructs)} vs {len(racy)})")
    insts = [Instance(c, bool(r), k) for k, (c, r) in enumerate(zip(constructs, racy))]
    insts += [Instance("mutex_missing", False, len(insts) + d) for d in range(int(distractors))]
    prog = generate_program(insts, name="generated/playground.c", loop_threads=threads)
    return score_program(prog, predictor, level)


def score_program(prog: Program, predictor: str, level: str = "line (ours)"):
    """What the rule-based ``predictor`` says about one program (generated or from the real benchmark) and
    its scores against the program's annotations: (program, predicted, scores) as :func:`playground`."""
    if level not in PLAYGROUND_LEVELS:
        raise ValueError(f"level={level!r} is not allowed; allowed values: {', '.join(PLAYGROUND_LEVELS)}")
    from .metrics import drdbench_counts, line_counts, program_counts, variable_counts
    from .predictors import make_predictor

    pred = make_predictor(predictor).predict(prog)
    out = {"line": line_counts(pred, prog.races), "drdbench": drdbench_counts(pred, prog.races), "line_variable": line_counts(pred, prog.races, with_variable=True),
           "variable_set": variable_counts(pred, prog.races), "program_right": program_counts(pred, prog.racy)[1]}
    out["chosen"] = out[PLAYGROUND_LEVELS[level]]
    return prog, pred, out


def scores_table(studies: Sequence[PopulationStudy], n_boot: int, seed: int) -> str:
    """A markdown table: every predictor's headline scores on each population, with 95% intervals."""
    rows = ["| population | predictor | program acc. | program F1 | line P | line R | line F1 (ours) [95% CI] | line+var F1 | "
            "var-set F1 | line macro F1 | DRDBench's scoring F1 (racy only) |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for st in studies:
        sc = st.scores()
        for name in st.predictors:
            s = sc[name]
            f, lo, hi = bootstrap_f1(st.counts(name, "line"), n_boot=n_boot, seed=seed)

            def fmt(x):
                return "—" if x != x else f"{x:.3f}"

            rows.append(f"| {st.population} | {name} | {fmt(s['program_accuracy'])} | {fmt(s['program_f1'])} | "
                        f"{fmt(s['line_precision'])} | {fmt(s['line_recall'])} | {fmt(f)} [{fmt(lo)}, {fmt(hi)}] | "
                        f"{fmt(s['line_variable_f1'])} | {fmt(s['variable_set_f1'])} | {fmt(s['line_macro_f1'])} | "
                        f"{fmt(s['drdbench_f1'])} |")
    return "\n".join(rows)


def fp_shares(study: PopulationStudy, predictors: Sequence[str]) -> dict[str, dict[str, float]]:
    """Where each predictor's false positives fall on the annotated (racy) programs (DRDBench's pairs)."""
    from .metrics import distraction

    return {name: distraction(study.predictions[name], study.programs) for name in predictors}


def tsan_agreement(tsan: TSanStudy) -> dict[str, float]:
    """On the generated sample: how many ThreadSanitizer reports fall outside the annotations (racy
    programs) and how many reports it makes on the race-free twins, and its recall."""
    from .metrics import line_counts

    out = {"racy": 0, "safe": 0, "outside": 0, "on_safe": 0, "tp": 0, "fn": 0, "not_compiled": 0}
    for p in tsan.generated_programs:
        r = tsan.generated[p.name]
        if not r.compiled:
            out["not_compiled"] += 1
            continue
        c = line_counts(r.races, p.races)
        if p.racy:
            out["racy"] += 1
            out["outside"] += c.fp
            out["tp"] += c.tp
            out["fn"] += c.fn
        else:
            out["safe"] += 1
            out["on_safe"] += len(r.races)
    real = {"compiled": 0, "not_compiled": 0, "tp": 0, "fn": 0, "fp": 0}
    for p in tsan.real_programs:
        r = tsan.real[p.name]
        if not r.compiled:
            real["not_compiled"] += 1
            continue
        real["compiled"] += 1
        c = line_counts(r.races, p.races)
        real["tp"] += c.tp; real["fn"] += c.fn; real["fp"] += c.fp
    out.update({f"real_{k}": v for k, v in real.items()})
    return out


def nonrace_pair_coverage(study: PopulationStudy, predictor: str = "all pairs") -> dict[str, int]:
    """Why non-race pairs go unflagged by ``predictor``: for every annotated non-race pair, whether it was
    flagged, whether the front end extracted no access on one of its lines (macro bodies, accesses through
    pointers it cannot resolve), or whether both lines hold accesses that it did not pair (thread
    structure it did not see)."""
    from .frontend import analyse

    out = {"flagged": 0, "line not extracted": 0, "extracted, not paired": 0}
    for prog in study.programs:
        if not prog.critical:
            continue
        pred = study.predictions[predictor][prog.name]
        lines = {a.line for a in analyse(prog.text, strict=False).accesses}
        for g in prog.critical:
            if any(match(p, g) for p in pred):
                out["flagged"] += 1
            elif not (set(g.a) & lines and set(g.b) & lines):
                out["line not extracted"] += 1
            else:
                out["extracted, not paired"] += 1
    return out


#: per-construct buckets that are not patterns: a prediction whose lines belong to different instances
#: (or to the program's scaffolding), and the protected distractor variables
ACROSS, DISTRACTOR = "across instances", "distractor"


def construct_counts(predictions: dict[str, list[Race]], programs: Sequence[Program]) -> dict[str, list[Counts]]:
    """Line-level counts per construct on generated programs, from the generator's line ownership
    (``Program.line_patterns``; the predictors never see it). An annotated race belongs to the pattern
    instance that wrote its lines; a false positive to the pattern owning both its lines, else to
    ``ACROSS`` (or ``DISTRACTOR`` when it falls on a distractor). Every program that contains a construct
    contributes one Counts to it (zero when it got nothing there), so resampling programs is well defined."""
    out: dict[str, list[Counts]] = {}
    for prog in programs:
        if not prog.line_patterns:
            raise ValueError(f"construct_counts needs generated programs (line ownership); {prog.name!r} has none")
        lp = prog.line_patterns

        def owner(r: Race) -> str:
            pats = {lp[ln - 1] if 0 < ln <= len(lp) else "" for ln in (*r.a, *r.b)}
            return pats.pop() if len(pats) == 1 and "" not in pats else ACROSS

        per: dict[str, Counts] = {c: Counts() for c in set(lp) - {""}}
        pred = predictions[prog.name]
        for g in prog.races:
            hit = any(match(p, g) for p in pred)
            c = owner(g)
            per[c] = per.get(c, Counts()) + Counts(tp=int(hit), fn=int(not hit))
        for p in pred:
            if not any(match(p, g) for g in prog.races):
                c = owner(p)
                per[c] = per.get(c, Counts()) + Counts(fp=1)
        for c, counts in per.items():
            out.setdefault(c, []).append(counts)
    return out


def construct_scores(study: PopulationStudy, predictors: Sequence[str], n_boot: int, seed: int) -> dict:
    """Per predictor and construct: line F1 with its bootstrap 95% interval (programs containing the
    construct resampled), the number of such programs and the summed counts. Constructs with no annotated
    race (the distractors, predictions across instances) have no F1; their false positives are kept."""
    out: dict[str, dict[str, dict]] = {}
    for name in predictors:
        rows = {}
        for c, counts in sorted(construct_counts(study.predictions[name], study.programs).items()):
            total = sum(counts, Counts())
            f, lo, hi = bootstrap_f1(counts, n_boot=n_boot, seed=seed) if total.tp + total.fn else (float("nan"),) * 3
            rows[c] = {"f1": f, "lo": lo, "hi": hi, "programs": len(counts), "tp": total.tp, "fp": total.fp,
                       "fn": total.fn}
        out[name] = rows
    return out


def construct_table(scores: dict, predictors: Sequence[str]) -> str:
    """A markdown table of :func:`construct_scores`: one row per construct, F1 [95% CI] per predictor."""
    constructs = sorted({c for name in predictors for c in scores[name]} - {ACROSS, DISTRACTOR})
    head = "| construct | programs | " + " | ".join(predictors) + " |"
    rows = [head, "|" + "---|" * (len(predictors) + 2)]

    def cell(r):
        return "—" if r["f1"] != r["f1"] else f"{r['f1']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]"

    for c in constructs:
        first = next(scores[n][c] for n in predictors if c in scores[n])
        rows.append(f"| {c} | {first['programs']} | " + " | ".join(cell(scores[n][c]) if c in scores[n] else "—"
                                                               for n in predictors) + " |")
    for c in (DISTRACTOR, ACROSS):
        if any(c in scores[n] for n in predictors):
            rows.append(f"| {c} (false positives) | {max(scores[n].get(c, {'programs': 0})['programs'] for n in predictors)} | "
                        + " | ".join(str(scores[n].get(c, {"fp": 0})["fp"]) for n in predictors) + " |")
    return "\n".join(rows)
