r"""Paired statistics and the tables behind the chapter's claims (the decision rules are in :mod:`.claims`).

Paper: Batra et al., arXiv 2605.23033. :func:`paired` is the one paired comparison every "A beats B"
claim uses: mean difference, its 95 % t-interval and the paired t-test, with wins / ties / losses.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...runtime.stats import mean_t_interval, ols_slope_interval, paired_t

__all__ = ["paired", "t_interval", "accuracy_table", "depth_gains", "depth_means", "ols_slope", "pair_records",
           "records_by", "PAPER_PER_LAYER"]


def t_interval(d: Sequence[float], alpha: float = 0.05) -> tuple[float, float]:
    """The two-sided (1 - alpha) t-interval of the mean of ``d``; (nan, nan) with fewer than 2 values, the
    point itself when every value is equal."""
    d = np.asarray(d, float)
    if d.size < 2:
        return float("nan"), float("nan")
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
    if se <= 1e-12 * max(1.0, abs(m)):
        return m, m
    ci = mean_t_interval(d, 1 - alpha)             # the shared interval (runtime.stats)
    return ci.lo, ci.hi


def paired(a: Sequence[float], b: Sequence[float], alpha: float = 0.05) -> dict:
    """Paired comparison of a vs b: mean difference (effect size), its (1 - alpha) t-interval ``ci``, the
    two-sided paired t-test ``p`` (0 or 1 when every difference is equal, nan with fewer than 2 pairs),
    the standardised effect (mean / sd), wins / ties / losses: the shared
    :func:`~icmlbook.runtime.stats.paired_t` (scipy's ``ttest_rel``), in this chapter's dict (``ci`` is (nan, nan)
    below two pairs)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples need equal lengths, got {a.shape} and {b.shape}")
    d = a - b
    n = int(d.size)
    if n == 0:
        return {"mean_diff": float("nan"), "sd_diff": float("nan"), "ci": (float("nan"), float("nan")),
                "p": float("nan"), "n": 0, "diffs": d, "effect": float("nan"), "wins": 0, "ties": 0, "losses": 0}
    t = paired_t(a, b, 1 - alpha)
    ci = (t.lo, t.hi) if n >= 2 else (float("nan"), float("nan"))
    effect = t.dz if n >= 2 and t.sd > 0 else float("nan")
    return {"mean_diff": t.mean, "sd_diff": t.sd, "ci": ci, "p": t.p, "n": n, "diffs": d, "effect": effect,
            "wins": t.wins, "ties": t.ties, "losses": t.losses}


def records_by(records, method) -> dict:
    """(label, seed) -> record of ``method``."""
    return {(r["label"], r["seed"]): r for r in records if r["method"] == method}


def pair_records(records, m1, m2, key="test_accuracy", where=None) -> tuple[list, list, list]:
    """Values of ``key`` for methods m1 and m2 on the (label, seed) pairs both ran (optionally only labels
    with ``where(label)``): (keys, values of m1, values of m2)."""
    A, B = records_by(records, m1), records_by(records, m2)
    keys = sorted(k for k in set(A) & set(B) if where is None or where(k[0]))
    return keys, [A[k][key] for k in keys], [B[k][key] for k in keys]


def accuracy_table(records) -> dict:
    """label -> method -> (mean, std) test accuracy over seeds."""
    out: dict = {}
    for r in records:
        out.setdefault(r["label"], {}).setdefault(r["method"], []).append(r["test_accuracy"])
    return {lab: {m: (float(np.mean(v)), float(np.std(v))) for m, v in d.items()} for lab, d in out.items()}


def depth_gains(records, per_backbone: bool = False) -> dict:
    """depth -> mean Δ(LOES − last) over tasks × seeds (and backbones); with ``per_backbone``,
    (depth, backbone_seed) -> the same mean for each encoder."""
    out = {}
    groups = sorted({(r["depth"], r.get("backbone_seed", 0)) if per_backbone else r["depth"] for r in records})
    for g in groups:
        sub = [r for r in records if ((r["depth"], r.get("backbone_seed", 0)) if per_backbone else r["depth"]) == g]
        key = lambda r: (r["label"], r["seed"], r.get("backbone_seed", 0))
        A = {key(r): r["test_accuracy"] for r in sub if r["method"] == "loes"}
        B = {key(r): r["test_accuracy"] for r in sub if r["method"] == "last"}
        ks = sorted(set(A) & set(B))
        out[g] = float(np.mean([A[k] - B[k] for k in ks]))
    return out


def depth_means(records, method: str) -> dict:
    """(depth, backbone_seed) -> mean test accuracy of ``method`` over tasks x seeds on that encoder."""
    out: dict = {}
    for r in records:
        if r["method"] == method:
            out.setdefault((r["depth"], r.get("backbone_seed", 0)), []).append(r["test_accuracy"])
    return {k: float(np.mean(v)) for k, v in sorted(out.items())}


def ols_slope(x: Sequence[float], y: Sequence[float], alpha: float = 0.05) -> dict:
    """Least-squares slope of y on x with its (1 - alpha) t-interval (n - 2 degrees of freedom; the shared
    :func:`~icmlbook.runtime.stats.ols_slope_interval`)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = x.size
    if n < 3 or np.ptp(x) == 0:
        return {"slope": float("nan"), "ci": (float("nan"), float("nan")), "n": int(n)}
    fit = ols_slope_interval(x, y, 1 - alpha)
    return {"slope": fit.slope, "ci": (fit.lo, fit.hi), "n": int(n), "intercept": fit.intercept}


#: The paper's own per-layer LOES scores, as committed in the official repository
#: (experiments/Results_Final/multi_model_analysis_multiseed_Final/per_layer_scores/), read for the chapter:
#: the range over the 12 blocks of the first-step ridge loss ("classification_loss") and of the isotropy.
PAPER_PER_LAYER = {
    "CLIP-B/32, CIFAR-100 (seed 2024)": {"loss": (0.005521, 0.008400), "isotropy": (0.0990, 0.2875),
                                         "file": "per_layer_scores/cifar100/CLIP-B32_layer_scores_seed2024.csv"},
    "DINOv2-S, CUB-200 (seed 42)": {"loss": (0.002424, 0.004267), "isotropy": (0.1391, 0.3520),
                                    "file": "per_layer_scores/caltech-ucsd-birds-200-2011/DINOv2-S_layer_scores_seed42.csv"},
}
