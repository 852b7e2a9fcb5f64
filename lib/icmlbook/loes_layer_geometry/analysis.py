r"""Paired statistics and the decision rules of the chapter's nine claims (dossier section 5).

Paper: Batra et al., arXiv 2605.23033. Every ``claimN`` function reads experiment records and returns a
:class:`ClaimCheck` (``measured`` text, ``passed`` bool); thresholds are ours and are stated in
:data:`CLAIM_RULES`. Nothing is hard-coded: the verdict follows the numbers.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats

from ..runtime.claims import ClaimCheck

__all__ = ["ClaimCheck", "CLAIM_STATEMENTS", "CLAIM_RULES", "PAPER_VALUES", "paired", "accuracy_table",
           "claim1_non_monotone", "claim2_vs_last", "claim3_vs_aggregation", "claim4_recovery", "claim5_depth",
           "claim6_orthogonalisation", "claim7_georeg", "claim8_label_free", "claim9_cost", "depth_gains"]


CLAIM_STATEMENTS = {
    "1": "Task information is non-monotone over depth: the best single layer is often not the last.",
    "2": "LOES (k layers) beats last-layer probing with the same head and training budget.",
    "3": "LOES beats naive aggregation (concatenate-all, mean-all, learned softmax layer weights) at equal head capacity.",
    "4": "Greedy complementarity: LOES recovers planted layers and avoids near-duplicates; top-k by individual score does not.",
    "5": "Gains over the last layer grow with backbone depth.",
    "6": "The orthogonalisation (residualisation) matters: without it the chosen layers are more redundant and accuracy drops.",
    "7": "GeoReg improves held-out geometry (higher isotropy, larger centroid triangles, smaller within/between ratio) without losing accuracy.",
    "8": "Label-free LOES (isotropy + redundancy) beats the last layer more often than random layers do.",
    "9": "Selection is cheap: seconds, negligible next to training the head.",
}

CLAIM_RULES = {
    "1": "argmax of the per-layer ridge-probe accuracy is before the last layer for a majority of real (backbone, task) pairs",
    "2": "mean paired Δ(LOES − last) > 0 over tasks × seeds and paired t-test p < 0.05",
    "3": "mean paired Δ > 0 against each of the three aggregations, with p < 0.05 for each",
    "4": "LOES mean factor coverage ≥ 0.8 and top-k-independent picks a duplicate pair in ≥ half of the stacks",
    "5": "Spearman correlation between depth and mean Δ(LOES − last) > 0",
    "6": "LOES chosen sets less redundant than top-k-independent ones, and mean Δaccuracy(LOES − top-k) ≥ 0 pooled over real and synthetic (task, seed) pairs",
    "7": "GeoReg raises isotropy and the scaled triangle area and lowers the within/between ratio in a majority of (task, seed) pairs, and mean Δaccuracy ≥ 0",
    "8": "win rate of label-free LOES over the last layer > win rate of random-k over the last layer",
    "9": "LOES selection time < 5 s and < the LOES head's training time",
}

PAPER_VALUES = {
    "1": "optimum often before the last layer (per-layer curves for CLIP, DINO, ViT, BERT...)",
    "2": "CLIP-B/32, k=3: CIFAR-100 80.59 vs 75.63, DTD 70.93 vs 62.96, Cars 59.95 vs 50.53 (5 seeds)",
    "3": "beats last-4 concat and layer-scoring baselines on MTEB (e.g. ModernBERT Banking77 58.45 vs 44.67)",
    "4": "— (the paper motivates the greedy residual step; no planted-layer test)",
    "5": "larger gains for deeper models (ModernBERT-22L ≫ BERT-base-12L)",
    "6": "— (motivated; orthogonality named in the abstract)",
    "7": "GeoReg yields simplex-like, more isotropic geometry",
    "8": "label-free variant exists in the official package",
    "9": "selection uses closed-form ridge only, no training",
}


def paired(a: Sequence[float], b: Sequence[float]) -> dict:
    """Paired comparison of a vs b: mean difference, its std, paired t-test p (two-sided; nan with
    fewer than 2 pairs or no variation), wins/ties/losses."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    p = float("nan")
    if d.size >= 2 and np.std(d) > 0:
        p = float(stats.ttest_rel(a, b).pvalue)
    return {"mean_diff": float(d.mean()), "std_diff": float(d.std()), "p": p, "n": int(d.size),
            "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum())}


def _by(records, method):
    return {(r["label"], r["seed"]): r for r in records if r["method"] == method}


def _pair(records, m1, m2, key="test_accuracy"):
    A, B = _by(records, m1), _by(records, m2)
    keys = sorted(set(A) & set(B))
    return [A[k][key] for k in keys], [B[k][key] for k in keys]


def accuracy_table(records) -> dict:
    """label -> method -> (mean, std) test accuracy over seeds."""
    out: dict = {}
    for r in records:
        out.setdefault(r["label"], {}).setdefault(r["method"], []).append(r["test_accuracy"])
    return {lab: {m: (float(np.mean(v)), float(np.std(v))) for m, v in d.items()} for lab, d in out.items()}


def claim1_non_monotone(profiles) -> ClaimCheck:
    pairs = [(p.name, p.task, int(np.argmax(p.probe_accuracy)), len(p.probe_accuracy)) for p in profiles]
    early = sum(a < L - 1 for _, _, a, L in pairs)
    txt = "; ".join(f"{n}/{t}: best layer {a + 1} of {L}" for n, t, a, L in pairs)
    return ClaimCheck(f"{early}/{len(pairs)} pairs peak before the last layer ({txt})", early > len(pairs) / 2,
                      {"early": early, "n": len(pairs)})


def claim2_vs_last(records) -> ClaimCheck:
    s = paired(*_pair(records, "loes", "last"))
    ok = s["mean_diff"] > 0 and s["p"] == s["p"] and s["p"] < 0.05
    return ClaimCheck(f"Δ = {100 * s['mean_diff']:+.2f} pts (±{100 * s['std_diff']:.2f}), p = {s['p']:.3g}, "
                      f"{s['wins']} wins / {s['losses']} losses over {s['n']} (task, seed) pairs", bool(ok), s)


def claim3_vs_aggregation(records) -> ClaimCheck:
    parts, ok = [], True
    vals = {}
    for m in ("concat_all", "mean_all", "softmax_all"):
        s = paired(*_pair(records, "loes", m))
        vals[m] = s
        ok &= s["mean_diff"] > 0 and s["p"] == s["p"] and s["p"] < 0.05
        parts.append(f"vs {m}: Δ = {100 * s['mean_diff']:+.2f} pts, p = {s['p']:.3g}")
    return ClaimCheck("; ".join(parts), bool(ok), vals)


def claim4_recovery(rec) -> ClaimCheck:
    cov = float(np.mean(rec.coverage["loes"]))
    dup_t = float(np.mean(rec.duplicate["topk_independent"]))
    dup_l = float(np.mean(rec.duplicate["loes"]))
    ok = cov >= 0.8 and dup_t >= 0.5
    return ClaimCheck(f"LOES coverage {cov:.2f} (duplicates in {dup_l:.0%} of stacks); top-k-independent coverage "
                      f"{np.mean(rec.coverage['topk_independent']):.2f}, duplicates in {dup_t:.0%}; "
                      f"{len(rec.planted)} stacks", bool(ok), {"coverage": cov, "dup_topk": dup_t})


def depth_gains(records) -> dict:
    """depth -> mean Δ(LOES − last) over tasks × seeds."""
    out = {}
    for d in sorted({r["depth"] for r in records}):
        sub = [r for r in records if r["depth"] == d]
        a, b = _pair(sub, "loes", "last")
        out[d] = float(np.mean(np.asarray(a) - np.asarray(b)))
    return out


def claim5_depth(records) -> ClaimCheck:
    g = depth_gains(records)
    d, v = np.array(list(g)), np.array(list(g.values()))
    rho = float(stats.spearmanr(d, v).statistic) if len(d) > 2 else float(np.sign(v[-1] - v[0]))
    txt = ", ".join(f"L={k}: {100 * x:+.1f}" for k, x in g.items())
    return ClaimCheck(f"gain (pts) {txt}; Spearman ρ = {rho:.2f}", bool(rho > 0), {"rho": rho, "gains": g})


def claim6_orthogonalisation(records, rec) -> ClaimCheck:
    ra, rb = _pair(records, "loes", "topk_independent", key="redundancy")
    ra = list(ra) + list(rec.redundancy["loes"])
    rb = list(rb) + list(rec.redundancy["topk_independent"])
    acc = paired(*_pair(records, "loes", "topk_independent"))
    sacc = paired(rec.accuracy["loes"], rec.accuracy["topk_independent"])
    a1, b1 = _pair(records, "loes", "topk_independent")
    pooled = paired(list(a1) + list(rec.accuracy["loes"]), list(b1) + list(rec.accuracy["topk_independent"]))
    ok = np.mean(ra) < np.mean(rb) and pooled["mean_diff"] >= 0
    return ClaimCheck(f"mean redundancy of the chosen set {np.mean(ra):.3f} (LOES) vs {np.mean(rb):.3f} (top-k); "
                      f"Δacc real tasks {100 * acc['mean_diff']:+.2f} pts (p = {acc['p']:.3g}), synthetic "
                      f"{100 * sacc['mean_diff']:+.2f} pts; pooled {100 * pooled['mean_diff']:+.2f} pts", bool(ok),
                      {"acc": acc, "synthetic": sacc, "pooled": pooled})


def claim7_georeg(records) -> ClaimCheck:
    off = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] == 0}
    on = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] > 0}
    keys = sorted(set(off) & set(on))
    iso = np.mean([on[k]["geometry"]["isotropy"] > off[k]["geometry"]["isotropy"] for k in keys])
    tri = np.mean([on[k]["geometry"]["triangle_area_scaled"] > off[k]["geometry"]["triangle_area_scaled"] for k in keys])
    wb = np.mean([on[k]["geometry"]["within_between"] < off[k]["geometry"]["within_between"] for k in keys])
    acc = paired([on[k]["test_accuracy"] for k in keys], [off[k]["test_accuracy"] for k in keys])
    ok = iso > 0.5 and tri > 0.5 and wb > 0.5 and acc["mean_diff"] >= 0
    return ClaimCheck(f"with GeoReg: isotropy up in {iso:.0%}, scaled triangle area up in {tri:.0%}, within/between "
                      f"down in {wb:.0%} of {len(keys)} pairs; Δacc {100 * acc['mean_diff']:+.2f} pts (p = {acc['p']:.3g})",
                      bool(ok), {"iso": iso, "tri": tri, "wb": wb, "acc": acc})


def claim8_label_free(records) -> ClaimCheck:
    a, b = _pair(records, "label_free", "last")
    c, d = _pair(records, "random_k", "last")
    w_lf = float(np.mean(np.asarray(a) > np.asarray(b)))
    w_r = float(np.mean(np.asarray(c) > np.asarray(d)))
    return ClaimCheck(f"label-free LOES beats the last layer in {w_lf:.0%} of pairs, random-k in {w_r:.0%}",
                      bool(w_lf > w_r), {"label_free": w_lf, "random": w_r})


def claim9_cost(cost: dict) -> ClaimCheck:
    s, t = cost["select_seconds"], cost["train_seconds"]
    return ClaimCheck(f"selection {s:.2f} s (L={cost['n_layers']}, n_cal={cost['n_cal']}, D={cost['dim']}) vs "
                      f"head training {t:.2f} s", bool(s < 5 and s < t), cost)
