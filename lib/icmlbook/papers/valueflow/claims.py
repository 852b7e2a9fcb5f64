r"""The claims of the ``valueflow`` chapter and the rules that decide them (``shared/design/CLAIMS.md``).

Source: VALUEFLOW (Kim, Hyeon, Oh, Do; ICML 2026, arXiv 2602.03160). The arXiv copy gave back only the abstract
and the start of the introduction; the method comes from the official code (MIT) and the headline numbers from
the project page, both as recorded in the chapter's dossier. The paper's LLM results (human agreement, the
steerability of 10 LLMs, OpinionQA profiling) are rows P1-P3 and C7, quoted and *not testable at this profile*.
Rows C1-C6 and C8 are the dossier's checklist, decided by this run on CPU surrogates: simulated judges (C1,
C2), MiniLM with a trained head (C3-C5), the MiniLM projection judge (C6), a small LM with a planted asymmetry
(C8). Thresholds are config fields fixed before the run (:data:`.config.THRESHOLD_FIELDS`).

Decisions use two-sided t intervals over independent replicates at ``ci_level`` (C1-C5), Welch intervals over
held-out texts (C6) and normal intervals over generations (C8) (:func:`icmlbook.runtime.stats.decide_interval`):
*reproduced* when the interval clears the declared threshold, *not reproduced* when it lies wholly on the far
side, *inconclusive at this scale* otherwise. Rules comparing trained heads (C3-C5) first apply the plateau test
(rule 10) along the logged held-out curves.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
from scipy import stats as sps

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable, refuse_changed_thresholds
from ...runtime.stats import decide_interval, decide_within, finite_values, mean_t_interval, normal_interval, welch_interval
from ...training import PlateauTest, convergence_guard, plateau_from_curve
from .config import THRESHOLD_FIELDS, ValueflowConfig

__all__ = ["THRESHOLDS", "check_thresholds", "HivesSummary", "summarise_hives", "claim1_recovery",
           "claim2_rank_vs_rate", "claim3_structure", "claim3_flat", "claim4_direction", "claim5_cross_theory",
           "claim6_monotone", "claim7_llm_steering", "claim8_planted", "C7_NOT_RUN"]

THRESHOLDS: dict[str, float] = {f: getattr(ValueflowConfig(), f) for f in THRESHOLD_FIELDS}
_T = THRESHOLDS
_PCT = f"{100 * _T['ci_level']:g} %"
PLATEAU = PlateauTest(extend=_T["plateau_extend"], share=_T["plateau_share"])


def check_thresholds(cfg: ValueflowConfig) -> None:
    """Refuse a config whose decision thresholds differ from the declared ones."""
    refuse_changed_thresholds(cfg, _T)


@dataclasses.dataclass(frozen=True)
class _Part:
    name: str
    passed: bool | None
    text: str


def _t_part(name: str, values, threshold: float, side: str = "lower", fmt: str = ".3f") -> _Part:
    v, dropped = finite_values(values)
    if v.size == 0:
        return _Part(name, None, f"{name}: no finite value")
    ci = mean_t_interval(v, _T["ci_level"])
    d = decide_interval(ci.lo, ci.hi, threshold, side=side)
    ends = f"[{ci.lo:{fmt}}, {ci.hi:{fmt}}]" if np.isfinite(ci.lo) else "(one replicate: no interval)"
    sign = "≥" if side == "lower" else "≤"
    return _Part(name, d.passed, f"{name} {ci.mean:{fmt}} {ends} (n = {ci.n}; claim {sign} {threshold:g})")


def _combine(parts: Sequence[_Part], values: dict, extra: str = "") -> ClaimCheck:
    measured = "; ".join(p.text for p in parts) + (f"; {extra}" if extra else "")
    if any(p.passed is False for p in parts):
        bad = [p.name for p in parts if p.passed is False]
        return ClaimCheck(measured + f" — against the claim: {', '.join(bad)}", False, values)
    if all(p.passed for p in parts):
        return ClaimCheck(measured, True, values)
    open_ = [p.name for p in parts if p.passed is None]
    return ClaimCheck.inconclusive_check(measured, "interval spans both",
                                         f"the {_PCT} interval of {', '.join(open_)} contains the threshold "
                                         "(or one replicate gives no interval)", values)


# ------------------------------------------------------------------------------------------------ not testable
_PAGE = "project page (via the dossier):"
not_testable("P1", statement="The anchor-based evaluator agrees with humans: 85.3 % human-model pairwise consistency "
                             "and a mean absolute deviation of 1.4 from human scalar ratings; ranking raises "
                             "pairwise human alignment from 77.4 % to 84.2 % and wins 60-79 % against rating "
                             "baselines.",
             paper=f"{_PAGE} 85.3 %; MAD 1.4; 77.4 % → 84.2 %; 60-79 % win rate",
             reason="needs the paper's LLM judges and human annotations; this book has neither (C1, C2 and C6 test "
                    "the estimator's mechanism with simulated and MiniLM judges instead)")
not_testable("P3", statement="Value profiles built with HiVES and VIDB improve demographic alignment on OpinionQA "
                             "over default prompting and Modular Pluralism on every attribute.",
             paper=f"{_PAGE} t ≈ 16-20, p < 1e-60; e.g. Phi-4 Religion 44.5 % → 57.4 %",
             reason="needs OpinionQA and LLMs; neither is available offline here")

# The abstract's sentences as arXiv 2602.03160v1 prints them (CC BY 4.0); the OpinionQA result (P3) is not in the
# abstract but on the project page, so it is declared as a row without an abstract sentence.
abstract_sentence("(i) HiVES, a hierarchical value embedding space that captures intra- and cross-theory value "
                  "structure", "C3", "C4", "C5")
abstract_sentence("(ii) the Value Intensity DataBase (VIDB), a large-scale resource of value-labeled texts with "
                  "intensity estimates derived from ranking-based aggregation", "C1", "C2", "P1")
abstract_sentence("(iii) an anchor-based evaluator that produces consistent intensity scores for model outputs by "
                  "ranking them against VIDB panels.", "C1", "C6", "P1")
abstract_sentence("Using VALUEFLOW, we conduct a comprehensive large-scale study across ten models and four value "
                  "theories, identifying asymmetries in steerability and composition laws for multi-value control.",
                  "C7", "C8")


# ------------------------------------------------------------------------------------------------ C1
@claim_rule(
    "C1",
    statement="The anchored single-item Plackett-Luce estimator recovers the latent intensity of new items "
              "(our bar, from the dossier's plan: Spearman ≥ 0.9 at k = 6, m = 3) and gets better with more "
              "windows m.",
    rule=f"{_PCT} t intervals over simulation replicates (fresh database, judges and items each): Spearman of the "
         f"estimate with the latent at (k, m) = (6, 3) has its lower end > {_T['rho_min']:g}; the gain in Spearman "
         f"from m = 1 to the largest m has its lower end > {_T['m_gain_min']:g} at every k of the sweep; against when "
         "an interval lies wholly on the far side",
    rejects="an estimator that ignores the judge's answers (the mean of the anchors it was shown: Spearman ≈ 0), "
            "or a judge too noisy to recover intensity (Spearman ≈ 0.7)",
    paper="not reached",
)
def claim1_recovery(reps, cfg: ValueflowConfig, method: str = "anchored PL") -> ClaimCheck:
    check_thresholds(cfg)
    reps = list(reps)
    if not reps:
        raise ValueError("reps is empty: the rule needs at least one replicate")
    k0, m0 = cfg.k_main, cfg.m_main
    rho = [r.spearman[method][(k0, m0)] for r in reps]
    parts = [_t_part(f"Spearman at (k, m) = ({k0}, {m0})", rho, _T["rho_min"])]
    for k in cfg.k_grid:
        gain = [r.spearman[method][(k, max(cfg.m_grid))] - r.spearman[method][(k, min(cfg.m_grid))] for r in reps]
        parts.append(_t_part(f"gain m = {min(cfg.m_grid)} → {max(cfg.m_grid)} at k = {k}", gain, _T["m_gain_min"]))
    mae = np.mean([r.mae[method][(k0, m0)] for r in reps])
    return _combine(parts, {"spearman": np.array(rho)}, f"{method}; MAE on [-10, 10] at ({k0}, {m0}) {mae:.2f}")


# ------------------------------------------------------------------------------------------------ C2
@claim_rule(
    "C2",
    statement="Ranking is more robust than rating to judge-specific scale distortions: anchored Plackett-Luce "
              "scores vary much less across judges and flip sign less often than direct ratings (the mechanism, "
              "with simulated judges).",
    rule=f"{_PCT} t intervals over simulation replicates, judges with random monotone distortions, offsets and "
         f"noise, equal judge calls (m windows against m ratings averaged): the ratio of across-judge variances "
         f"(ranking / rating) has its upper end < {_T['var_ratio_max']:g}, the drop in the sign-flip rate "
         f"(rating − ranking) its lower end > {_T['flip_gain_min']:g}, and the drop in mean absolute error against "
         f"the latent intensity (rating − ranking, consistency must not be bought with accuracy) its lower end > "
         f"{_T['err_gain_min']:g}; against when an interval lies wholly on the far side",
    rejects="a second rating pipeline in place of ranking (variance ratio ≈ 1, no drop in sign flips); an "
            "abstaining scorer that says 0 for every item (no variance and no sign flips, but no information: its "
            "error is larger than rating's)",
    paper=f"{_PAGE} mean variance 12.6 → 2.1, sign-flip rate 48 % → 29 % (LLM judges; not compared)",
)
def claim2_rank_vs_rate(reps, cfg: ValueflowConfig, arm: str = "ranking") -> ClaimCheck:
    check_thresholds(cfg)
    reps = list(reps)
    if not reps:
        raise ValueError("reps is empty: the rule needs at least one replicate")
    ratio = [r.var[arm] / r.var["rating"] for r in reps]
    drop = [r.flip["rating"] - r.flip[arm] for r in reps]
    err = [r.err["rating"] - r.err[arm] for r in reps]
    parts = [_t_part("variance ratio", ratio, _T["var_ratio_max"], side="upper"),
             _t_part("sign-flip drop", drop, _T["flip_gain_min"]),
             _t_part("error drop", err, _T["err_gain_min"], fmt=".2f")]
    extra = (f"{arm}: variance {np.mean([r.var[arm] for r in reps]):.2f} vs rating "
             f"{np.mean([r.var['rating'] for r in reps]):.2f}; sign flips {np.mean([r.flip[arm] for r in reps]):.0%} "
             f"vs {np.mean([r.flip['rating'] for r in reps]):.0%}; mean absolute error "
             f"{np.mean([r.err[arm] for r in reps]):.2f} vs {np.mean([r.err['rating'] for r in reps]):.2f}")
    return _combine(parts, {"ratio": np.array(ratio), "drop": np.array(drop), "err_drop": np.array(err)}, extra)


# ------------------------------------------------------------------------------------------------ HiVES rows
@dataclasses.dataclass
class HivesSummary:
    """One HiVES replicate as the rules read it: the base encoder's held-out metrics, and each run's logged
    held-out curve (``steps`` from the start of that run, ``metrics`` name -> values)."""

    base: dict
    curves: dict

    def final(self, run: str, metric: str) -> float:
        return float(self.curves[run][1][metric][-1])


def summarise_hives(hs) -> HivesSummary:
    """The :class:`HivesSummary` of an :class:`.experiments.HivesSeed`. A run continued from stage 1 keeps its own
    curve (step 0 = the end of stage 1), so its plateau test asks whether *that stage* trained 50 % longer would
    still move the metric, not whether switching objectives moved it."""
    curves = {}
    for name, run in hs.runs.items():
        curves[name] = (np.array(run.steps, dtype=float), {k: np.array([c[k] for c in run.curve]) for k in run.curve[0]})
    return HivesSummary(dict(hs.base), curves)


def _plateau(summaries, run: str, metric: str, margin: float):
    steps = summaries[0].curves[run][0]
    values = np.array([s.curves[run][1][metric] for s in summaries])
    return plateau_from_curve(steps, values, margin, PLATEAU, name=f"{run} ({metric})", window=3 if len(steps) >= 7 else 2)


@claim_rule(
    "C3",
    statement="Hierarchical contrastive training (HiVES: stage 1 and the anchor stage) improves the structure of the "
              "embedding space over the base encoder on held-out texts: higher pairwise hierarchical ranking "
              "accuracy and similarity correlation.",
    rule=f"plateau test on both metrics first; {_PCT} t intervals over replicates of the gain over untuned "
         f"MiniLM: ranking accuracy lower end > {_T['rank_gain_min']:g} and similarity correlation lower end > "
         f"{_T['corr_gain_min']:g}; against when an interval lies wholly below",
    rejects="a head of the same size trained on shuffled labels (no label information: gains ≤ 0)",
    paper=f"{_PAGE} +20 % hierarchical ranking accuracy and +50 % similarity correlation relative to the base "
          "Qwen3-Embedding (not compared)",
)
def claim3_structure(summaries: Sequence[HivesSummary], cfg: ValueflowConfig, run: str = "stage2") -> ClaimCheck:
    check_thresholds(cfg)
    summaries = list(summaries)
    dr = [s.final(run, "rank_pairwise") - s.base["rank_pairwise"] for s in summaries]
    dc = [s.final(run, "sim_corr") - s.base["sim_corr"] for s in summaries]
    parts = [_t_part("ranking-accuracy gain", dr, _T["rank_gain_min"]),
             _t_part("similarity-correlation gain", dc, _T["corr_gain_min"])]
    measured = "; ".join(p.text for p in parts)
    guard = convergence_guard(_plateau(summaries, run, "rank_pairwise", _T["rank_gain_min"]),
                              _plateau(summaries, run, "sim_corr", _T["corr_gain_min"]), measured=measured)
    if guard is not None:
        return guard
    base_r = np.mean([s.base["rank_pairwise"] for s in summaries])
    base_c = np.mean([s.base["sim_corr"] for s in summaries])
    return _combine(parts, {"rank_gain": np.array(dr), "corr_gain": np.array(dc)},
                    f"{run} head; base MiniLM: ranking accuracy {base_r:.3f}, similarity correlation {base_c:.3f} "
                    f"(relative gains {np.mean(dr) / base_r:+.0%}, {np.mean(dc) / max(base_c, 1e-9):+.0%})")


@claim_rule(
    "C3f",
    statement="(ours) The hierarchy in the loss is what improves the structure: at equal updates, sampler and "
              "seed, the HiVES stage-1 head beats a head trained with flat supervised contrastive loss on the "
              "finest label (leaf and direction as one class, the same direction penalty) on held-out texts, in "
              "hierarchical ranking accuracy and similarity correlation.",
    rule=f"plateau test on both heads and both metrics first; {_PCT} t intervals over replicates of the paired "
         f"difference (stage 1 − flat SupCon): ranking accuracy lower end > {_T['rank_gain_min']:g} and similarity "
         f"correlation lower end > {_T['corr_gain_min']:g} (claim 3's margins); against when an interval lies "
         "wholly below",
    rejects="flat SupCon on the same labels (a leaf names its ancestors, so a flat loss may order the hierarchy as "
            "well: differences ≈ 0)",
    paper="not reached (the dossier lists MiniLM + flat SupCon among the embedding baselines; the project page "
          "compares HiVES with UniVar and the base encoder)",
)
def claim3_flat(summaries: Sequence[HivesSummary], cfg: ValueflowConfig, run: str = "stage1",
                flat: str = "flat_dir") -> ClaimCheck:
    check_thresholds(cfg)
    summaries = list(summaries)
    dr = [s.final(run, "rank_pairwise") - s.final(flat, "rank_pairwise") for s in summaries]
    dc = [s.final(run, "sim_corr") - s.final(flat, "sim_corr") for s in summaries]
    parts = [_t_part("ranking-accuracy difference", dr, _T["rank_gain_min"]),
             _t_part("similarity-correlation difference", dc, _T["corr_gain_min"])]
    measured = "; ".join(p.text for p in parts)
    guard = convergence_guard(*(_plateau(summaries, r, m, thr) for r in (run, flat)
                                for m, thr in (("rank_pairwise", _T["rank_gain_min"]),
                                               ("sim_corr", _T["corr_gain_min"]))), measured=measured)
    if guard is not None:
        return guard
    mean = {r: (np.mean([s.final(r, "rank_pairwise") for s in summaries]),
                np.mean([s.final(r, "sim_corr") for s in summaries])) for r in (run, flat)}
    return _combine(parts, {"rank_diff": np.array(dr), "corr_diff": np.array(dc)},
                    f"{run} head: ranking accuracy {mean[run][0]:.3f}, similarity correlation {mean[run][1]:.3f}; "
                    f"{flat} head: {mean[flat][0]:.3f}, {mean[flat][1]:.3f}")


@claim_rule(
    "C4",
    statement="Direction is encoded: after HiVES training, texts on the same value path with opposite directions "
              "lie clearly farther apart than texts with the same direction.",
    rule=f"plateau test first; {_PCT} t interval over replicates of the gap (mean cosine distance of same-path "
         f"opposite-direction pairs minus that of same-path same-direction pairs, both over the mean distance of "
         f"pairs from different top-level values) with its lower end > {_T['dir_gap_min']:g}; against when it "
         "lies wholly below",
    rejects="the untuned MiniLM encoder (its verbs already separate the directions a little: gap 0.1-0.15)",
)
def claim4_direction(summaries: Sequence[HivesSummary], cfg: ValueflowConfig, run: str | None = "stage2") -> ClaimCheck:
    check_thresholds(cfg)
    summaries = list(summaries)
    gap = [s.base["dir_gap"] if run is None else s.final(run, "dir_gap") for s in summaries]
    parts = [_t_part("direction gap", gap, _T["dir_gap_min"])]
    if run is not None:
        guard = convergence_guard(_plateau(summaries, run, "dir_gap", _T["dir_gap_min"]), measured=parts[0].text)
        if guard is not None:
            return guard
    base = np.mean([s.base["dir_gap"] for s in summaries])
    return _combine(parts, {"gap": np.array(gap)}, f"{run or 'untuned MiniLM'}; untuned MiniLM gap {base:.3f}")


@claim_rule(
    "C5",
    statement="The anchor stage aligns theories: after stage 2, texts sharing a cross-theory concept are nearer "
              "neighbours across theories than after the same number of further stage-1 updates.",
    rule=f"plateau test on both runs first; {_PCT} t interval over replicates of the paired difference in "
         f"cross-theory precision@5 (stage 2 − stage 1 continued for the same updates), lower end > "
         f"{_T['cross_gain_min']:g}; against when it lies wholly below",
    rejects="stage 2 without its theory-anchor term (same sampler and updates: no gain)",
    paper="not reached (the project page reports the 274 cross-theory anchors, not a retrieval number)",
)
def claim5_cross_theory(summaries: Sequence[HivesSummary], cfg: ValueflowConfig, run: str = "stage2") -> ClaimCheck:
    check_thresholds(cfg)
    summaries = list(summaries)
    diff = [s.final(run, "cross_theory_p5") - s.final("stage1_more", "cross_theory_p5") for s in summaries]
    parts = [_t_part("precision@5 gain", diff, _T["cross_gain_min"])]
    guard = convergence_guard(_plateau(summaries, run, "cross_theory_p5", _T["cross_gain_min"]),
                              _plateau(summaries, "stage1_more", "cross_theory_p5", _T["cross_gain_min"]),
                              measured=parts[0].text)
    if guard is not None:
        return guard
    p2 = np.mean([s.final(run, "cross_theory_p5") for s in summaries])
    p1 = np.mean([s.final("stage1_more", "cross_theory_p5") for s in summaries])
    return _combine(parts, {"gain": np.array(diff)}, f"{run} {p2:.3f} vs stage 1 continued {p1:.3f}")


# ------------------------------------------------------------------------------------------------ C6
def _welch(a, b) -> tuple[float, float, float]:
    return welch_interval(a, b, _T["ci_level"])


@claim_rule(
    "C6",
    statement="The anchor-based evaluator is monotone in intensity: held-out texts of the four intensity bins get "
              "strictly ordered mean scores, Ī(−2) < Ī(−1) < Ī(+1) < Ī(+2) (here with the MiniLM projection judge).",
    rule=f"Welch {_PCT} intervals over texts of each step between neighbouring bins (−2→−1, −1→+1, +1→+2), every "
         f"lower end > {_T['bin_step_min']:g} intensity points; against when any interval lies wholly below",
    rejects="a judge that reads only the direction (the keyword judge: −2 and −1 texts get the same scores)",
)
def claim6_monotone(level, scores, cfg: ValueflowConfig, judge: str = "MiniLM projection judge") -> ClaimCheck:
    check_thresholds(cfg)
    level, scores = np.asarray(level), np.asarray(scores, float)
    bins = (-2, -1, 1, 2)
    counts = [int((level == b).sum()) for b in bins]
    if min(counts) < 2:
        return ClaimCheck.inconclusive_check(f"texts per bin {counts}", "noise above effect",
                                             "a bin has fewer than two texts")
    parts, steps = [], []
    for a, b in zip(bins[:-1], bins[1:]):
        d, lo, hi = _welch(scores[level == a], scores[level == b])
        dec = decide_interval(lo, hi, _T["bin_step_min"])
        parts.append(_Part(f"step {a:+d}→{b:+d}", dec.passed, f"step {a:+d}→{b:+d} {d:+.2f} [{lo:+.2f}, {hi:+.2f}]"))
        steps.append(d)
    means = ", ".join(f"Ī({b:+d}) = {scores[level == b].mean():+.2f}" for b in bins)
    rho = sps.spearmanr(level[np.isin(level, bins)], scores[np.isin(level, bins)])[0]
    return _combine(parts, {"steps": np.array(steps)}, f"{judge}; {means}; Spearman with the bin {rho:.2f}; "
                    f"texts per bin {counts}")


# ------------------------------------------------------------------------------------------------ C7
#: why C7 is not testable when no endpoint is given
C7_NOT_RUN = ("needs an LLM: the book ships none and calls none. Set the chapter's endpoint_url and endpoint_model "
              "parameters (your own OpenAI-compatible server) or endpoint_replay (answers recorded by such a run) to "
              "decide this row on that model; C8 validates the measurement protocol on a small LM with a planted "
              "asymmetry")


@claim_rule(
    "C7",
    statement="Steering LLMs: positive steering is reliable, negative steering is systematically harder for "
              "prosocial values, and in conflicting value pairs the value asked at a positive level dominates "
              "(strong-anchor dominance). Decided only on a reader's own LLM, with our reconstruction of the "
              "steering protocol, and then about that model.",
    rule=f"the reader's model generates and judges (anchored evaluator, the model ranking each answer among "
         f"database anchors); over the prosocial values, normal {_PCT} intervals of the mean Δ(+2) (lower end > "
         f"{_T['c7_delta_min']:g}), of the mean asymmetry a = Δ(+2) + Δ(−2) (lower end > {_T['asym_min']:g}), and, "
         f"over the conflicting targets of one value pair's 16 profiles, of the anchor's composition slope minus the "
         f"other value's (lower end > {_T['dom_min']:g}); against when an interval lies wholly on the far side. "
         "Refused answers are kept out of the scores, so the asymmetry is decided only in the direction its "
         "refusals allow: more refusals at −2 than at +2 (pooled over the values) are themselves muted negative "
         "steering, so its interval below the threshold is then inconclusive, not against; more refusals at +2 "
         "than at −2 make an interval above it inconclusive. No part counts against the claim unless the judge "
         "orders the database anchors in its windows better than chance (lower end of the t interval over windows "
         "of the share of anchor pairs in the database's order > 0.5); otherwise inconclusive",
    rejects="a generator that ignores the steering instruction (Δ ≈ 0 at every level); one that steers both ways "
            "alike (a ≈ 0) and composes additively (both slopes ≈ 1); and the scored answers alone of a model that "
            "refuses half its negative requests (a ≈ 0 on what it agreed to write); a judge that ignores the texts "
            "(always the same order: every score near the middle, Δ ≈ 0 for a generator that steers)",
    paper=f"{_PAGE} weak: Phi-4, Claude-4; moderate: Qwen3, GPT-4.1, Mistral-3.1; strong: Grok-4, Gemma-3, "
          "Gemini-2.5; Conformity |Δ| ≈ 0; Hedonism and most rights polarity-asymmetric; conflicting pairs: the +2 "
          "target governs",
    reconstruction=True,
)
def claim7_llm_steering(study, cfg: ValueflowConfig) -> ClaimCheck:
    """``study``: an :class:`.llm_study.LLMSteeringStudy`, or None when the chapter ran without an endpoint (then
    *not testable at this profile*, with :data:`C7_NOT_RUN`)."""
    check_thresholds(cfg)
    if study is None:
        return ClaimCheck(measured="not run (no endpoint given)", passed=None, reason=C7_NOT_RUN)
    d2, se2, a, sea = [], [], [], []
    for v in study.values:
        p, n, z = (study.clean((v, lv)) for lv in (2, -2, 0))
        if min(p.size, n.size, z.size) < 2:
            return ClaimCheck.inconclusive_check(f"{study.generator}: {v} has fewer than two scored answers at "
                                                 "level +2, -2 or 0", "noise above effect",
                                                 "too few scored answers for an interval (refusals or invalid "
                                                 "judge answers)")
        d2.append(p.mean() - z.mean())
        se2.append(p.var(ddof=1) / p.size + z.var(ddof=1) / z.size)
        a.append(p.mean() + n.mean() - 2 * z.mean())
        sea.append(p.var(ddof=1) / p.size + n.var(ddof=1) / n.size + 4 * z.var(ddof=1) / z.size)
    V = len(study.values)
    parts = []
    # refusals are kept out of the scores: at -2 beyond those at +2 they are muted negative steering themselves
    # (the claimed asymmetry), so the scored answers alone cannot count against it (and vice versa)
    r_neg = sum(int(study.refusals.get((v, -2), 0)) for v in study.values)
    r_pos = sum(int(study.refusals.get((v, 2), 0)) for v in study.values)
    held = []                                     # why a part's interval was not allowed to decide
    for name, est, var, thr in (("mean Δ(+2)", np.mean(d2), np.sum(se2) / V**2, _T["c7_delta_min"]),
                                ("mean asymmetry", np.mean(a), np.sum(sea) / V**2, _T["asym_min"])):
        lo, hi = normal_interval(est, np.sqrt(var), _T["ci_level"])
        passed = decide_interval(lo, hi, thr).passed
        text = f"{name} {est:+.2f} [{lo:+.2f}, {hi:+.2f}] (claim > {thr:g})"
        if name == "mean asymmetry" and ((passed is False and r_neg > r_pos) or (passed is True and r_pos > r_neg)):
            passed = None
            held.append("refusals")
            text += (f", undecided: {r_neg} refusal(s) at −2 against {r_pos} at +2 (refused answers are not "
                     "scored, and a refusal is itself a failure to steer)")
        parts.append(_Part(name, passed, text))
    comp = study.composition
    dom = comp.slope_conflict_anchor - comp.slope_conflict_other
    se = float(np.hypot(comp.se_conflict_anchor, comp.se_conflict_other))
    if np.isfinite(dom) and np.isfinite(se):
        lo, hi = normal_interval(dom, se, _T["ci_level"])
        parts.append(_Part("dominance", decide_interval(lo, hi, _T["dom_min"]).passed,
                           f"dominance (anchor − other slope) {dom:+.2f} [{lo:+.2f}, {hi:+.2f}] "
                           f"(claim > {_T['dom_min']:g})"))
    else:
        parts.append(_Part("dominance", None, "dominance: no slope (no effect to compose)"))
    # the judge must read intensity before a small effect can count against the generator: its order of the
    # database anchors in the windows it ranked (no extra request), against chance (0.5)
    conc = np.asarray(getattr(study, "anchor_concordance", ()), dtype=float)
    if conc.size >= 2:
        cc = mean_t_interval(conc, _T["ci_level"])
        judge_reads = bool(cc.lo > 0.5)
        judge_text = (f"judge's order of the database anchors {cc.mean:.2f} [{cc.lo:.2f}, {cc.hi:.2f}] concordant "
                      f"over {cc.n} windows (0.5 = chance)")
    else:
        judge_reads, judge_text = False, "judge's order of the database anchors: fewer than two windows"
    if not judge_reads and any(p.passed is False for p in parts):
        held.append("judge")
        parts = [_Part(p.name, None, p.text + ", undecided: the judge does not order the database anchors better "
                       "than chance") if p.passed is False else p for p in parts]
    nref = sum(study.refusals.values())
    values = {"delta2": np.array(d2), "asymmetry": np.array(a), "dominance": dom, "refusals_neg2": r_neg,
              "refusals_pos2": r_pos, "anchor_concordance": float(conc.mean()) if conc.size else float("nan")}
    check = _combine(parts, values,
                     f"generator {study.generator}; judge {study.judge}; {V} prosocial value(s) × "
                     f"{len(study.queries)} queries; pair {' + '.join(study.pair)}: anchor slope "
                     f"{comp.slope_conflict_anchor:.2f}, other {comp.slope_conflict_other:.2f}; {nref} refusal(s); "
                     f"{study.dropped} judge answer(s) dropped, {study.unscored} answer(s) unscored; {judge_text}")
    if check.inconclusive and "judge" in held:
        return ClaimCheck.inconclusive_check(
            check.measured, "noise above effect",
            "the judge does not order the database anchors it was shown better than chance, so the scores cannot "
            "tell a generator that does not steer from a judge that does not read", values)
    if check.inconclusive and "refusals" in held:
        return ClaimCheck.inconclusive_check(
            check.measured, "interval spans both",
            f"the asymmetry of the scored answers points against the refusals ({r_neg} at −2, {r_pos} at +2): the "
            "refused answers are not scored, and a refusal to steer is itself the asymmetry the claim is about",
            values)
    return check


# ------------------------------------------------------------------------------------------------ C8
@claim_rule(
    "C8",
    statement="Planted-effect recovery (pipeline validation, not evidence about LLMs): steering a small LM whose "
              "training texts for some values hold only weak negative examples, the measurement protocol finds a "
              "muted negative steering effect for exactly those values and a symmetric one elsewhere.",
    rule=f"per value, the asymmetry a = Δ(+2) + Δ(−2) with a normal {_PCT} interval over generations; planted "
         f"values: lower end > {_T['asym_min']:g}; other values: interval inside ±{_T['asym_min']:g}; against when "
         "any planted value's interval lies wholly below, or another value's wholly outside",
    rejects="a scorer that reads only the direction of a text (it sees the planted weak negatives as fully "
            "negative: a ≈ 0 everywhere)",
)
def claim8_planted(scores: dict, values, planted, cfg: ValueflowConfig, scorer: str = "anchored evaluator") -> ClaimCheck:
    check_thresholds(cfg)
    from .steering import asymmetry

    a_min = _T["asym_min"]
    parts = []
    for v in values:
        a, se = asymmetry(scores, v)
        lo, hi = normal_interval(a, se, _T["ci_level"])
        if v in planted:
            dec = decide_interval(lo, hi, a_min).passed
        else:
            w = decide_within(lo, hi, -a_min, a_min)
            dec = w.passed
        parts.append(_Part(v, dec, f"{v}{' (planted)' if v in planted else ''} a = {a:+.2f} [{lo:+.2f}, {hi:+.2f}]"))
    return _combine(parts, {"asymmetry": {p.name: p.text for p in parts}}, scorer)
