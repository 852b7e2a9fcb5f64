"""Figures of the DRPBench chapter (pyplot-free matplotlib figures and one plotly figure); titles are
computed from the numbers they show."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...runtime import PALETTE, new_figure
from .data import Program, Race
from .experiments import ACROSS, DISTRACTOR, STRATA, PopulationStudy, stratum_of
from .metrics import bootstrap_f1, match, per_program

__all__ = ["listing_figure", "granularity_figure", "distraction_figure", "construct_figure", "tsan_figure",
           "listing_text", "per_construct_figure"]


def listing_text(program: Program, predicted: Sequence[Race] = (), width: int = 70) -> str:
    """The numbered listing, each line marked: ``R`` annotated racy line, ``P`` a line of an annotated non-race pair,
    ``*`` a line the predictor names."""
    racy = {x for r in program.races for x in r.a + r.b}
    prot = {x for r in program.critical for x in r.a + r.b}
    pred = {x for r in predicted for x in r.a + r.b}
    out = []
    for i, line in enumerate(program.lines, 1):
        mark = ("R" if i in racy else "P" if i in prot else " ") + ("*" if i in pred else " ")
        out.append(f"{mark} {i:3d}: {line[:width]}")
    return "\n".join(out)


def listing_figure(program: Program, predicted: Sequence[Race] = (), title: str | None = None, max_lines: int = 45):
    """A program with numbered lines: annotated racy lines in vermilion, lines of annotated non-race pairs in green,
    lines a predictor names marked with an arrow."""
    lines = program.lines[:max_lines]
    racy = {x for r in program.races for x in r.a + r.b}
    prot = {x for r in program.critical for x in r.a + r.b}
    pred = {x for r in predicted for x in r.a + r.b}
    fig, ax = new_figure(1, 1, width=7.5, height=0.19 * len(lines) + 0.9)
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(len(lines) + 0.5, 0.3)
    for i, line in enumerate(lines, 1):
        colour = PALETTE[3] if i in racy else (PALETTE[2] if i in prot else "black")
        if i in racy or i in prot:
            ax.axhspan(i - 0.45, i + 0.45, color=colour, alpha=0.12, lw=0)
        ax.text(0.06, i, f"{i:3d}: {line}", family="monospace", fontsize=7.5, va="center", color=colour)
        if i in pred:
            ax.text(0.0, i, "→", fontsize=9, va="center", color=PALETTE[0])
    n_r, n_p = len(program.races), len(program.critical)
    ax.set_title(title or f"{program.name}: {n_r} annotated race(s) (vermilion), {n_p} non-race pair(s) (green)"
                 + (f"; → = {len(predicted)} predicted" if predicted else ""), fontsize=9)
    return fig


def granularity_figure(studies: Sequence[PopulationStudy], predictors: Sequence[str], n_boot: int, seed: int):
    """Program-level against line-level F1 (bars with bootstrap 95 % intervals), per predictor and population."""
    fig, axes = new_figure(1, len(studies), width=5.2 * len(studies), height=3.8, squeeze=False)
    for ax, st in zip(axes[0], studies):
        x = np.arange(len(predictors))
        point = {}
        for j, (level, label) in enumerate((("program", "program level"), ("line", "line level (DRDBench)"),
                                            ("line_variable", "line + variable"))):
            vals = [bootstrap_f1(st.counts(p, level), n_boot=n_boot, seed=seed) for p in predictors]
            f = np.array([v[0] for v in vals])
            err = np.array([[v[0] - v[1], v[2] - v[0]] for v in vals]).T
            ax.bar(x + (j - 1) * 0.27, np.nan_to_num(f), 0.27, yerr=np.nan_to_num(err), capsize=2, label=label,
                   color=PALETTE[j])
            point[level] = f
        gap = point["program"] - point["line"]
        ax.set_xticks(x, [p.replace(" (", "\n(") for p in predictors], fontsize=8)
        ax.set(ylabel="F1 (micro over programs)", ylim=(0, 1.05))
        gap_txt = (f"from {np.nanmin(gap):+.2f} to {np.nanmax(gap):+.2f}" if np.isfinite(gap).any()
                   else "undefined (nothing to find)")
        ax.set_title(f"{st.population} ({len(st.programs)} programs):\nprogram F1 − line F1 {gap_txt}", fontsize=9)
        ax.legend(fontsize=7.5, loc="upper right")
    return fig


def distraction_figure(studies: Sequence[PopulationStudy], predictors: Sequence[str]):
    """Share of annotated non-race pairs (DRDBench's critical non-race pairs, cleaned) each predictor flags (the shared-variable distraction)."""
    fig, ax = new_figure(1, 1, width=6.8, height=3.6)
    x = np.arange(len(predictors))
    parts = []
    for j, st in enumerate(studies):
        rates = []
        for name in predictors:
            hit = tot = 0
            for prog in st.programs:
                pred = st.predictions[name][prog.name]
                hit += sum(any(match(p, g) for p in pred) for g in prog.critical)
                tot += len(prog.critical)
            rates.append(hit / tot if tot else np.nan)
        bars = ax.bar(x + (j - 0.5) * 0.38, rates, 0.38, label=st.population, color=PALETTE[j])
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
        r = np.array(rates, dtype=float)
        if np.isfinite(r).any():
            hi, lo = int(np.nanargmax(r)), int(np.nanargmin(r))
            parts.append(f"{st.population}: {predictors[hi]} {r[hi]:.0%}, {predictors[lo]} {r[lo]:.0%}")
    ax.set_xticks(x, [p.replace(" (", "\n(") for p in predictors], fontsize=8)
    ax.set(ylabel="share of non-race pairs flagged", ylim=(0, 1.1))
    ax.set_title("Protected pairs flagged, most and fewest: " + ("\n" + "; ".join(parts) if parts else "none annotated"),
                 fontsize=9)
    ax.legend(fontsize=8)
    return fig


def construct_figure(study: PopulationStudy, predictors: Sequence[str], n_boot: int, seed: int):
    """Line-level F1 per synchronisation stratum (constructs detected in the text), per predictor."""
    fig, ax = new_figure(1, 1, width=7.0, height=3.8)
    x = np.arange(len(STRATA))
    strata = [stratum_of(p) for p in study.programs]
    first = None
    for j, name in enumerate(predictors):
        counts = per_program(study.predictions[name], study.programs, "line")
        vals = [bootstrap_f1([c for c, s in zip(counts, strata) if s == st], n_boot=n_boot, seed=seed) for st in STRATA]
        f = np.array([v[0] for v in vals])
        err = np.array([[v[0] - v[1], v[2] - v[0]] for v in vals]).T
        ax.bar(x + (j - (len(predictors) - 1) / 2) * 0.8 / len(predictors), np.nan_to_num(f), 0.8 / len(predictors),
               yerr=np.nan_to_num(err), capsize=2, label=name, color=PALETTE[j])
        first = f if first is None else first
    n = [strata.count(s) for s in STRATA]
    ax.set_xticks(x, [f"{s}\n({k} programs)" for s, k in zip(STRATA, n)], fontsize=8)
    ax.set(ylabel="line-level F1 (95% CI)", ylim=(0, 1.05))
    ax.set_title(f"{study.population}: {predictors[0]} line F1 {first[0]:.2f} on {STRATA[0]} programs, "
                 f"{first[1]:.2f} with {STRATA[1]}", fontsize=9)
    ax.legend(fontsize=7.5)
    return fig


def tsan_figure(tsan, runs: int):
    """ThreadSanitizer: annotated races found after each run (generated racy programs and real ones), and
    its reports on the race-free twins."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    from .metrics import line_counts

    finals = []
    for j, (label, results, progs) in enumerate((("generated suite", tsan.generated, tsan.generated_programs),
                                                 ("real benchmark", tsan.real, tsan.real_programs))):
        racy = [p for p in progs if p.racy and results[p.name].compiled]
        if not racy:
            continue
        curve = []
        for k in range(runs):
            tp = fn = 0
            for p in racy:
                r = results[p.name]
                c = line_counts(r.found_after(k + 1), p.races)
                tp, fn = tp + c.tp, fn + c.fn
            curve.append(tp / (tp + fn) if tp + fn else np.nan)
        ax.plot(np.arange(1, runs + 1), curve, "o-", color=PALETTE[j], label=f"{label} ({len(racy)} racy programs)")
        finals.append(f"{label} {curve[0]:.0%} after 1 run, {curve[-1]:.0%} after {runs}")
    ax.set(xlabel="runs of the instrumented program", ylabel="annotated races reported (recall)", ylim=(0, 1.05),
           title="ThreadSanitizer recall: " + ("; ".join(finals) if finals else "no racy program compiled"))
    ax.set_xticks(np.arange(1, runs + 1))
    ax.legend(fontsize=8)
    return fig


def per_construct_figure(scores: dict, predictors: Sequence[str], population: str = "generated suite",
                         focus: str = "lockset"):
    """Line F1 per construct (one group of bars per pattern, one bar per predictor, bootstrap 95% CIs),
    from :func:`experiments.construct_scores`. The title names the constructs where ``focus`` does worst."""
    constructs = sorted({c for n in predictors for c, r in scores[n].items() if r["f1"] == r["f1"]} - {ACROSS, DISTRACTOR})
    fig, ax = new_figure(1, 1, width=7.5, height=0.42 * len(constructs) + 1.6)
    y = np.arange(len(constructs))
    h = 0.8 / len(predictors)
    for j, name in enumerate(predictors):
        rows = [scores[name].get(c, {"f1": np.nan, "lo": np.nan, "hi": np.nan}) for c in constructs]
        f = np.array([r["f1"] for r in rows])
        err = np.array([[r["f1"] - r["lo"], r["hi"] - r["f1"]] for r in rows]).T
        ax.barh(y + (j - (len(predictors) - 1) / 2) * h, np.nan_to_num(f), h, xerr=np.nan_to_num(err), capsize=1.5,
                label=name, color=PALETTE[j])
    n = [max(scores[p].get(c, {"programs": 0})["programs"] for p in predictors) for c in constructs]
    ax.set_yticks(y, [f"{c} ({k})" for c, k in zip(constructs, n)], fontsize=8)
    ax.invert_yaxis()
    ax.set(xlabel="line-level F1 on the programs holding the construct (95% CI)", xlim=(0, 1.05))
    ranked = sorted(((scores[focus][c]["f1"], c) for c in constructs if c in scores[focus]))
    worst = ", ".join(f"{c} ({f:.2f})" for f, c in ranked[:2])
    ax.set_title(f"F1 per construct, {population}: {focus} lowest on {worst}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
