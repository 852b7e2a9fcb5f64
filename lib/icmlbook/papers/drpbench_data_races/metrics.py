"""Scores for race predictions, at three granularities.

- **Program level (L1).** A program is predicted racy iff the predictor lists at least one race.
- **Line level (L2), ours: DRDBench's match, read uniformly.** A predicted race ``p`` matches an annotated race
  ``g`` iff the unordered line pairs match, ``(p_A ∈ g_A ∧ p_B ∈ g_B) ∨ (p_A ∈ g_B ∧ p_B ∈ g_A)``, an integer
  annotation line read as a one-line list (the variable is *not* checked). Per program ``TP = #{g : some p
  matches g}``, ``FN = |G| - TP``, ``FP = #{p : p matches no g}`` (so several predictions hitting one race count
  once and are not false positives, and one prediction may cover several races). Counts are summed over programs
  (micro) before precision, recall and F1 are formed. Race-free programs contribute only false positives.
- **DRDBench's own scoring** (:func:`drdbench_counts`, read from its released evaluation code, re-written here):
  the same match, except that an annotation with one integer line and one list line never matches (its code
  compares two integers or two lists, nothing else), and a prediction repeated word for word that hits counts
  as a false positive for every copy after the first (its hit set holds distinct predictions); only racy
  programs are scored. Ours differs on exactly those two points and in scoring the race-free programs too.
- **Variable level** (the paper's second granularity; its exact rule was not reached, so both readings):
  V1 compares the *set* of predicted racy variables with the annotated one per program; V2 is the L2
  match plus equality of the (whitespace-normalised) variable.

Everything takes ``predictions: dict[program name -> list[Race]]`` and a list of :class:`Program`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from ...runtime.stats import bootstrap_indices, percentile_interval
from .data import Program, Race

__all__ = ["Counts", "match", "drdbench_match", "drdbench_counts", "line_counts", "variable_counts", "program_counts", "score", "micro",
           "macro_f1", "micro_f1", "f1_replicates", "bootstrap_f1", "paired_bootstrap", "aggregate_samples", "distraction",
           "normalise_variable", "pass_at_k", "per_program", "LEVELS"]


@dataclasses.dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        d = self.tp + self.fp
        return self.tp / d if d else float("nan")

    @property
    def recall(self) -> float:
        d = self.tp + self.fn
        return self.tp / d if d else float("nan")

    @property
    def f1(self) -> float:
        """2TP / (2TP + FP + FN); 0 when there is nothing to find and nothing predicted is impossible
        here (such a program contributes no counts); NaN only for an empty total."""
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else float("nan")


def match(p: Race, g: Race) -> bool:
    """DRDBench's line-level match (unordered; list-valued annotation lines match any of their lines)."""
    pa, pb = set(p.a), set(p.b)
    ga, gb = set(g.a), set(g.b)
    return bool((pa & ga and pb & gb) or (pa & gb and pb & ga))


def drdbench_match(p: Race, g: Race) -> bool:
    """DRDBench's own line match, as its released code has it: both annotation lines integers, the predicted lines
    equal them in either order; both lists, the predicted lines belong to them in either order; one integer and
    one list (``g.listed`` mixed): never."""
    la, lb = g.listed
    if la != lb:
        return False
    pa, pb = p.a[0], p.b[0]
    if not la:
        return (pa, pb) == (g.a[0], g.b[0]) or (pb, pa) == (g.a[0], g.b[0])
    return (pa in g.a and pb in g.b) or (pb in g.a and pa in g.b)


def drdbench_counts(pred: Sequence[Race], gold: Sequence[Race]) -> Counts:
    """DRDBench's per-program counts: TP the distinct annotated races some prediction hits (:func:`drdbench_match`),
    FN the rest, FP the predictions minus the *distinct* hitting predictions (the same variable and lines in the
    same order count once, so a word-for-word repeated hit is a false positive)."""
    hit_gold = {i for i, g in enumerate(gold) if any(drdbench_match(p, g) for p in pred)}
    hit_pred = {(p.variable, p.a, p.b) for p in pred if any(drdbench_match(p, g) for g in gold)}
    return Counts(len(hit_gold), len(pred) - len(hit_pred), len(gold) - len(hit_gold))


def normalise_variable(v: str) -> str:
    return re.sub(r"\s+", "", v)


def line_counts(pred: Sequence[Race], gold: Sequence[Race], *, with_variable: bool = False) -> Counts:
    """L2 counts of one program (``with_variable=True``: V2, the match also needs the same variable)."""
    def m(p: Race, g: Race) -> bool:
        return match(p, g) and (not with_variable or normalise_variable(p.variable) == normalise_variable(g.variable))

    tp = sum(any(m(p, g) for p in pred) for g in gold)
    fp = sum(not any(m(p, g) for g in gold) for p in pred)
    return Counts(tp, fp, len(gold) - tp)


def variable_counts(pred: Sequence[Race], gold: Sequence[Race]) -> Counts:
    """V1 counts of one program: the sets of racy variables."""
    ps = {normalise_variable(p.variable) for p in pred}
    gs = {normalise_variable(g.variable) for g in gold}
    return Counts(len(ps & gs), len(ps - gs), len(gs - ps))


def program_counts(pred: Sequence[Race], racy: bool) -> tuple[Counts, bool]:
    """L1 counts of one program and whether its verdict is right."""
    said = len(pred) > 0
    return Counts(int(said and racy), int(said and not racy), int(racy and not said)), said == racy


LEVELS: dict[str, Callable[[Sequence[Race], Program], Counts]] = {
    "program": lambda pred, prog: program_counts(pred, prog.racy)[0],
    "line": lambda pred, prog: line_counts(pred, prog.races),
    "variable_set": lambda pred, prog: variable_counts(pred, prog.races),
    "line_variable": lambda pred, prog: line_counts(pred, prog.races, with_variable=True),
}


def per_program(predictions: Mapping[str, Sequence[Race]], programs: Sequence[Program], level: str) -> list[Counts]:
    if level not in LEVELS:
        raise ValueError(f"level={level!r}; allowed values: {', '.join(LEVELS)}")
    fn = LEVELS[level]
    missing = [p.name for p in programs if p.name not in predictions]
    if missing:
        raise ValueError(f"no prediction for {len(missing)} program(s), e.g. {missing[0]!r} "
                         "(a predictor that fails on a program must say so, not be skipped)")
    return [fn(predictions[p.name], p) for p in programs]


def micro(counts: Iterable[Counts]) -> Counts:
    total = Counts()
    for c in counts:
        total = total + c
    return total


def macro_f1(counts: Sequence[Counts]) -> float:
    """Mean per-program F1 over the programs that have something to find or predicted something."""
    vals = [c.f1 for c in counts if c.tp + c.fp + c.fn]
    return float(np.mean(vals)) if vals else float("nan")


def score(predictions: Mapping[str, Sequence[Race]], programs: Sequence[Program]) -> dict[str, float]:
    """Every headline number of a predictor on a population."""
    out: dict[str, float] = {}
    for level in LEVELS:
        c = micro(per_program(predictions, programs, level))
        out[f"{level}_precision"], out[f"{level}_recall"], out[f"{level}_f1"] = c.precision, c.recall, c.f1
    out["program_accuracy"] = float(np.mean([program_counts(predictions[p.name], p.racy)[1] for p in programs]))
    racy = [p for p in programs if p.racy]
    drd = micro(drdbench_counts(predictions[p.name], p.races) for p in racy)
    out["drdbench_precision"], out["drdbench_recall"], out["drdbench_f1"] = drd.precision, drd.recall, drd.f1
    out["line_macro_f1"] = macro_f1(per_program(predictions, programs, "line"))
    out["n_predicted"] = float(sum(len(predictions[p.name]) for p in programs))
    return out


def _count_matrix(counts: Sequence[Counts]) -> np.ndarray:
    return np.array([[c.tp, c.fp, c.fn] for c in counts], dtype=float).reshape(-1, 3)


def _f1_rows(summed: np.ndarray) -> np.ndarray:
    tp, fp, fn = summed[..., 0], summed[..., 1], summed[..., 2]
    d = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, 2 * tp / np.where(d > 0, d, 1), np.nan)


def _resample(n: int, n_boot: int, seed: int) -> np.ndarray:
    """The bootstrap resamples of ``n`` programs: :func:`icmlbook.runtime.stats.bootstrap_indices` (scipy's draw)."""
    return bootstrap_indices(n, n_boot, seed)


def micro_f1(counts: Sequence[Counts]) -> float:
    """Micro F1 of the summed counts, 2TP / (2TP + FP + FN) (NaN when the sum is empty)."""
    return float(_f1_rows(_count_matrix(counts).sum(0)))


def f1_replicates(counts: Sequence[Counts], n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Micro F1 of each of ``n_boot`` bootstrap resamples of the programs (the entries of ``counts``),
    ``(n_boot,)`` (NaN for a resample with nothing to find and nothing predicted).

    The resampled indices depend only on ``(len(counts), n_boot, seed)``: two predictors' counts over the
    same programs with the same seed are resampled alike (a paired bootstrap; their replicates can be
    subtracted), and :func:`bootstrap_f1` with the same seed takes its interval from these replicates."""
    m = _count_matrix(counts)
    if len(m) == 0:
        raise ValueError("counts holds no programs; there is nothing to resample")
    return _f1_rows(m[_resample(len(m), n_boot, seed)].sum(1))


def bootstrap_f1(counts: Sequence[Counts], n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[float, float, float]:
    """Micro F1 and its percentile bootstrap interval, resampling programs (:func:`f1_replicates`)."""
    if len(counts) == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi, _ = percentile_interval(f1_replicates(counts, n_boot, seed), level)
    return micro_f1(counts), lo, hi


def paired_bootstrap(a: Sequence[Counts], b: Sequence[Counts], n_boot: int = 1000, seed: int = 0,
                     level: float = 0.95, stat: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[float, float, float]:
    """Difference stat(a) - stat(b) (default micro F1) over the same programs, with a paired percentile
    bootstrap interval (both resampled with the same program indices; runtime.stats's resamples and percentile
    interval, resamples where the difference is undefined left out)."""
    if len(a) != len(b):
        raise ValueError(f"paired_bootstrap needs counts over the same programs ({len(a)} vs {len(b)})")
    stat = stat or _f1_rows
    ma, mb = _count_matrix(a), _count_matrix(b)
    point = float(stat(ma.sum(0)) - stat(mb.sum(0)))
    idx = _resample(len(ma), n_boot, seed)
    lo, hi, _ = percentile_interval(stat(ma[idx].sum(1)) - stat(mb[idx].sum(1)), level)
    return point, lo, hi


def aggregate_samples(samples: Sequence[Sequence[Race]], rule: str) -> list[Race]:
    """Combine several sampled answers for one program, keyed by the sorted line pair (DRDBench):
    ``union`` (any sample), ``intersection`` (all), ``majority`` (more than half)."""
    if rule not in ("union", "intersection", "majority"):
        raise ValueError(f"rule={rule!r}; allowed values: union, intersection, majority")
    k = len(samples)
    seen: dict[tuple, Race] = {}
    votes: dict[tuple, int] = {}
    for s in samples:
        for key in {r.key() for r in s}:
            votes[key] = votes.get(key, 0) + 1
        for r in s:
            seen.setdefault(r.key(), r)
    need = {"union": 1, "intersection": k, "majority": k // 2 + 1}[rule]
    return [seen[key] for key in seen if votes[key] >= need]


def pass_at_k(samples_per_program: Mapping[str, Sequence[Sequence[Race]]], programs: Sequence[Program]) -> float:
    """Share of programs where some sample is exactly right at line level (no FN and no FP)."""
    ok = []
    for p in programs:
        ok.append(any(line_counts(s, p.races).fp == 0 and line_counts(s, p.races).fn == 0
                      for s in samples_per_program[p.name]))
    return float(np.mean(ok)) if ok else float("nan")


def distraction(predictions: Mapping[str, Sequence[Race]], programs: Sequence[Program]) -> dict[str, float]:
    """Where the false positives fall: the share that hit an annotated *non-race* pair (DRDBench's critical non-race pairs, cleaned)
    (``critical``: the shared-variable distraction) and the share that hit another annotated non-racing
    pair (``plain``), over the racy programs, which are the ones annotated."""
    fp = crit = plain = 0
    for prog in programs:
        if not prog.racy:
            continue
        for p in predictions[prog.name]:
            if any(match(p, g) for g in prog.races):
                continue
            fp += 1
            if any(match(p, g) for g in prog.critical):
                crit += 1
            elif any(match(p, g) for g in prog.plain):
                plain += 1
    return {"false_positives": fp, "critical": crit, "plain": plain,
            "critical_share": crit / fp if fp else float("nan"),
            "plain_share": plain / fp if fp else float("nan")}
