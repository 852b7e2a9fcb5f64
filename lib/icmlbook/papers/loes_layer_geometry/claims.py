r"""The decision rules of the LOES / GeoReg chapter's claims, one function per claim (claims contract:
``/work/shared/design/CLAIMS.md``).

Paper: Batra et al., "Uncovering the Latent Potential of Deep Intermediate Representations", ICML 2026,
arXiv 2605.23033. Each rule reads the experiment's records and the thresholds of the chapter's config
(:class:`~.config.LoesConfig`, fixed before the run) and returns a :class:`ClaimCheck`. Every rule names
the alternative it must reject (``rejects``, declared with :func:`~icmlbook.runtime.claims.claim_rule`); the paper column holds only what was read: the
abstract's words, or the numbers committed in the authors' repository, otherwise "not reached".

Every "A beats B" rule uses :func:`.analysis.paired` (mean paired difference with its t-interval at level
``1 - cfg.alpha_ci``) and decides on the interval, so a difference of zero is rejected.
"""

from __future__ import annotations

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import effect_bound
from .analysis import depth_gains, ols_slope, pair_records, paired

__all__ = ["claim1", "claim2", "claim3", "claim4", "claim5", "claim6", "claim7", "claim7ft", "claim8", "claim9",
           "c1_pairs", "is_pretext_backbone", "AGGREGATIONS", "ABSTRACT"]

#: the abstract's result sentences (arXiv 2605.23033) and the ledger rows that cover each
ABSTRACT = {
    "Contrary to the widespread practice of using only the final layer or shallow mixtures, we show that task-relevant "
    "information is distributed non-monotonically across layers and cannot be recovered by naïve aggregation.":
        ("C1", "C3"),
    "We introduce Layer-wise Optimal Embedding Selection (LOES), a constructive spectral method that identifies "
    "task-discriminative subspaces by minimizing residual error under orthogonality and isotropy constraints.":
        ("C4", "C6"),
    "To align fine-tuning with this selection principle, we further propose Geometric Regularization Loss (GeoReg), "
    "which enforces a simplicial structure on class manifolds and stabilizes representation geometry during "
    "fine-tuning.": ("C7", "C7ft"),
    "Across a wide range of architectures, depths, modalities, and data regimes, LOES consistently outperforms "
    "standard baselines, with gains that grow as model depth increases.": ("C2", "C3", "C5", "C2p"),
    "Beyond accuracy, our method reveals how semantic factors are distributed across layers, thereby enabling "
    "cross-lingual and cross-modal interpretability analyses.": ("C10", "C11"),
}
for _sentence, _ids in ABSTRACT.items():
    abstract_sentence(_sentence, *_ids)

_rule = claim_rule


def _pct(x: float) -> str:
    return f"{100 * x:+.2f}"


def _ci(s: dict) -> str:
    lo, hi = s["ci"]
    return f"[{100 * lo:+.2f}, {100 * hi:+.2f}]"


def _beyond(s: dict, threshold: float, cfg, side: str = "lower") -> bool:
    """The shared rule (:func:`~icmlbook.runtime.stats.effect_bound`) on the paired differences behind ``s``
    (:func:`.analysis.paired`): the (1 - alpha_ci) interval lies above ``threshold`` (``side="lower"``) or below it
    (``"upper"``)."""
    return effect_bound(s["diffs"], threshold, side=side, level=1 - cfg.alpha_ci).passed


def _undecided(measured: str, reason: str, values: dict | None = None) -> ClaimCheck:
    return ClaimCheck(measured, None, values or {}, reason=reason)


def is_pretext_backbone(name: str) -> bool:
    """The digit encoders (trained by us on a rotation pretext) as opposed to a pretrained encoder."""
    return name.startswith("digits-")


# ----------------------------------------------------------------------------------------------
# C1: non-monotone utility
# ----------------------------------------------------------------------------------------------
def c1_pairs(profiles, cfg) -> list:
    """Per (backbone, task): over the seeds' splits, Δ = test accuracy of the *validation-chosen* earlier
    layer minus the last layer's, with its t-interval; kind = "ceiling" (last layer's mean test accuracy
    >= ``cfg.ceiling``), "early" (interval above 0), "last" (below 0) or "tie"."""
    out = []
    for p in profiles:
        val, test = np.asarray(p.seed_val_accuracy), np.asarray(p.seed_test_accuracy)
        S, L = test.shape
        pick = np.argmax(val[:, : L - 1], axis=1)                 # chosen on validation, scored on test
        d = test[np.arange(S), pick] - test[:, L - 1]
        s = paired(test[np.arange(S), pick], test[:, L - 1], cfg.alpha_ci)
        last = float(test[:, L - 1].mean())
        if last >= cfg.ceiling:
            kind = "ceiling"
        elif s["ci"][0] > 0:
            kind = "early"
        elif s["ci"][1] < 0:
            kind = "last"
        else:
            kind = "tie"
        out.append({"name": p.name, "label": getattr(p, "label", p.task), "L": L, "delta": float(d.mean()),
                    "ci": s["ci"], "last": last, "kind": kind, "pretext": is_pretext_backbone(p.name),
                    "chosen": [int(x) + 1 for x in pick]})
    return out


@_rule("C1", statement="Task information is distributed non-monotonically over depth: on most tasks an earlier "
                       "layer beats the last one.",
       rule="per (pretrained encoder, task), over the seeds' splits, the validation-chosen earlier layer's test accuracy "
            "minus the last layer's has a 95% t-interval above 0 on a majority of the non-ceiling tasks (last layer "
            "below the ceiling accuracy) in every class of task (the real data set, Banking77, and the template "
            "sentences, each on its own); ceiling tasks and the rotation-pretext digit encoders are reported, not counted",
       rejects="the last layer is as good as the best earlier one (Δ = 0) on most tasks, or on the real data set while "
               "only our template tasks peak early",
       paper="\"task-relevant information is distributed non-monotonically across layers\" (abstract)")
def claim1(profiles, cfg) -> ClaimCheck:
    pairs = c1_pairs(profiles, cfg)
    counted = [q for q in pairs if not q["pretext"] and q["kind"] != "ceiling"]
    early = sum(q["kind"] == "early" for q in counted)

    def fmt(q):
        lo, hi = q["ci"]
        return f"{q['label']}: Δ {_pct(q['delta'])} pts [{100 * lo:+.2f}, {100 * hi:+.2f}] ({q['kind']})"

    txt = "; ".join(fmt(q) for q in counted) or "none"
    ceil = [q["label"] for q in pairs if not q["pretext"] and q["kind"] == "ceiling"]
    pre = [q for q in pairs if q["pretext"]]
    measured = (f"{early}/{len(counted)} pretrained-encoder tasks below the ceiling peak before the last layer ({txt}); "
                f"at the ceiling, not counted: {', '.join(ceil) or 'none'}; rotation-pretext encoders, not counted: "
                + (", ".join(f"{q['label']} {q['kind']}" for q in pre) or "none"))
    by_class: dict = {}
    for q in counted:
        c = q["label"].split("/")[0]
        e, n = by_class.get(c, (0, 0))
        by_class[c] = (e + (q["kind"] == "early"), n + 1)
    if len(by_class) > 1:
        measured += "; per class of task: " + ", ".join(f"{c} {e}/{n}" for c, (e, n) in by_class.items())
    vals = {"pairs": pairs, "early": early, "n": len(counted), "by_class": by_class}
    if not counted:
        return _undecided(measured, "every pretrained-encoder task is at the ceiling: no layer can beat the last", vals)
    # a majority in every class: template tasks we generated must not outvote the real data set (changed after the
    # default run of 697bb34, where 3 template tasks peaked early and Banking77 at the last layer; see the chapter)
    return ClaimCheck(measured, bool(all(e > n / 2 for e, n in by_class.values())), vals)


# ----------------------------------------------------------------------------------------------
# C2, C3, C8: paired accuracy comparisons on the method comparison
# ----------------------------------------------------------------------------------------------
def _classes(records) -> list:
    return sorted({r["label"].split("/")[0] for r in records})


def _compare(records, m1, m2, cfg, key="test_accuracy") -> tuple[dict, dict]:
    """Pooled paired comparison and the same per class of task (banking77, digits, ...)."""
    _, a, b = pair_records(records, m1, m2, key)
    pooled = paired(a, b, cfg.alpha_ci)
    per = {}
    for c in _classes(records):
        _, a, b = pair_records(records, m1, m2, key, where=lambda lab, c=c: lab.split("/")[0] == c)
        if a:
            per[c] = paired(a, b, cfg.alpha_ci)
    return pooled, per


def _per_class_text(per: dict) -> str:
    return "; ".join(f"{c}: {_pct(s['mean_diff'])} pts over {s['n']}" for c, s in per.items())


def _every_class(per: dict) -> bool:
    """The mean paired difference is above 0 in every class of task (banking77, digits, ...): a pooled interval
    carried by one class (our rotation-pretext digit encoders, which claim 1 does not count) does not decide alone
    (changed after the default run of 697bb34; see the chapter)."""
    return bool(per) and all(s["mean_diff"] > 0 for s in per.values())


def _losing_classes(per: dict) -> str:
    bad = [c for c, s in per.items() if not s["mean_diff"] > 0]
    return f"; not above 0 in: {', '.join(bad)}" if bad else ""


@_rule("C2", statement="LOES (k layers) beats last-layer probing with the same head and training budget.",
       rule="mean paired Δ test accuracy (LOES − last layer) over tasks × seeds with a 95% t-interval above 0, and "
            "the mean Δ above 0 in every class of task (Banking77 on the pretrained encoder, digits on ours)",
       rejects="Δ = 0: LOES no better than the last layer (or a pooled gain carried by the rotation-pretext digit "
               "encoders while LOES loses on the pretrained one)",
       paper="\"LOES consistently outperforms standard baselines\" (abstract); official result CSVs, CLIP-B/32, k=3, "
             "5 seeds: CIFAR-100 80.59 vs 75.63, DTD 70.93 vs 62.96, Cars 59.95 vs 50.53 (significant); "
             "CUB-200 20.27 ± 0.67 vs 19.67 ± 0.33, not significant")
def claim2(records, cfg) -> ClaimCheck:
    s, per = _compare(records, "loes", "last", cfg)
    if s["n"] < 2:
        return _undecided(f"{s['n']} pair(s)", "fewer than 2 (task, seed) pairs: no interval", {"pooled": s})
    return ClaimCheck(f"Δ = {_pct(s['mean_diff'])} pts {_ci(s)}, p = {s['p']:.3g}, {s['wins']} wins / {s['ties']} ties / "
                      f"{s['losses']} losses over {s['n']} (task, seed) pairs; per class: {_per_class_text(per)}"
                      + _losing_classes(per), _beyond(s, 0.0, cfg) and _every_class(per), {"pooled": s, "per_class": per})


AGGREGATIONS = ("last_k", "concat_all", "mean_all", "softmax_all")


@_rule("C3", statement="LOES beats naive aggregation (last-k concatenation, concatenate-all, mean-all, learned "
                       "softmax layer weights) with the same head.",
       rule="against each of last-k concat, concat-all, mean-all and softmax-all: mean paired Δ test accuracy over "
            "tasks × seeds with a 95% t-interval above 0, and the mean Δ above 0 in every class of task",
       rejects="Δ = 0 against at least one aggregation (pooled, or in one class of task)",
       paper="\"cannot be recovered by naive aggregation\" (abstract); official MTEB CSVs (1 seed, k=4): ModernBERT-base "
             "Banking77 LOES 58.45 vs last-4 concat 44.67, bert-large Banking77 82.51 vs last-4 75.65, but there the "
             "curvature-selected layers (86.41) beat LOES")
def claim3(records, cfg) -> ClaimCheck:
    parts, ok, vals = [], True, {}
    for m in AGGREGATIONS:
        s, per = _compare(records, "loes", m, cfg)
        vals[m] = {"pooled": s, "per_class": per}
        if s["n"] < 2:
            return _undecided(f"{s['n']} pair(s) against {m}", "fewer than 2 (task, seed) pairs: no interval", vals)
        ok &= _beyond(s, 0.0, cfg) and _every_class(per)
        parts.append(f"vs {m}: Δ = {_pct(s['mean_diff'])} pts {_ci(s)} ({_per_class_text(per)}{_losing_classes(per)})")
    return ClaimCheck("; ".join(parts), bool(ok), vals)


@_rule("C8", statement="Label-free LOES (isotropy + redundancy, no labels) picks better layers than random ones.",
       rule="mean paired Δ test accuracy (label-free LOES − k random layers) over tasks × seeds with a 95% t-interval "
            "above 0, and the mean Δ above 0 in every class of task",
       rejects="Δ = 0: label-free layers no better than random layers (pooled, or in one class of task)",
       paper="not reached (the official README offers a label-free mode that ranks layers by isotropy and redundancy)")
def claim8(records, cfg) -> ClaimCheck:
    s, per = _compare(records, "label_free", "random_k", cfg)
    if s["n"] < 2:
        return _undecided(f"{s['n']} pair(s)", "fewer than 2 (task, seed) pairs: no interval", {"pooled": s})
    return ClaimCheck(f"Δ = {_pct(s['mean_diff'])} pts {_ci(s)}, {s['wins']} wins / {s['ties']} ties / {s['losses']} "
                      f"losses; per class: {_per_class_text(per)}" + _losing_classes(per),
                      _beyond(s, 0.0, cfg) and _every_class(per), {"pooled": s, "per_class": per})


# ----------------------------------------------------------------------------------------------
# C4: planted layers
# ----------------------------------------------------------------------------------------------
@_rule("C4", statement="Greedy complementarity: LOES recovers planted layers and avoids near-duplicates; top-k by "
                       "individual score does not.",
       rule="LOES mean factor coverage ≥ coverage_min and above top-k-independent's, top-k-independent picks the "
            "duplicate pair in ≥ duplicate_min of the planted stacks and LOES in fewer of them",
       rejects="LOES covers no more planted factors than top-k (both take the near-copy)",
       paper="not reached")
def claim4(rec, cfg) -> ClaimCheck:
    cov = float(np.mean(rec.coverage["loes"]))
    dup_t = float(np.mean(rec.duplicate["topk_independent"]))
    dup_l = float(np.mean(rec.duplicate["loes"]))
    cov_t = float(np.mean(rec.coverage["topk_independent"]))
    # LOES itself must do better than top-k on both counts (changed after the smoke run of 67dd53f: the rule read
    # LOES's coverage and top-k's duplicates only, so LOES taking the near-copy as often as top-k passed)
    ok = cov >= cfg.coverage_min and cov > cov_t and dup_t >= cfg.duplicate_min and dup_l < dup_t
    return ClaimCheck(f"LOES coverage {cov:.2f} (duplicates in {dup_l:.0%} of stacks); top-k-independent coverage "
                      f"{cov_t:.2f}, duplicates in {dup_t:.0%}; {len(rec.planted)} stacks", bool(ok),
                      {"coverage": cov, "coverage_topk": cov_t, "dup_topk": dup_t, "dup_loes": dup_l})


# ----------------------------------------------------------------------------------------------
# C5: depth
# ----------------------------------------------------------------------------------------------
@_rule("C5", statement="Gains over the last layer grow with backbone depth.",
       rule="least-squares slope of the gain (LOES − last, mean over tasks × seeds) on log2(depth), one point per "
            "encoder (several initialisations per depth), with a 95% t-interval above 0",
       rejects="slope 0: the gain does not change with depth",
       paper="\"gains that grow as model depth increases\" (abstract); official CSVs: bert-base (12 blocks) Emotion "
             "LOES k=3 61.53 vs last 61.13; ModernBERT-base (22 blocks) Emotion LOES k=4 56.85 vs last 48.39")
def claim5(records, cfg) -> ClaimCheck:
    g = depth_gains(records, per_backbone=True)
    depth = np.array([d for d, _ in g], float)
    gain = np.array(list(g.values()))
    fit = ols_slope(np.log2(depth), gain, cfg.alpha_ci)
    by_depth = depth_gains(records)
    n_per = {d: sum(dd == d for dd, _ in g) for d in by_depth}
    txt = ", ".join(f"L={d}: {_pct(v)} ({n_per[d]} encoders)" for d, v in by_depth.items())
    if fit["n"] < 3 or len(by_depth) < 2:
        return _undecided(f"gain (pts) {txt}", "fewer than 3 encoders or 2 depths: no slope interval", {"gains": g})
    lo, hi = fit["ci"]
    return ClaimCheck(f"gain (pts) {txt}; slope {100 * fit['slope']:+.2f} pts per doubling [{100 * lo:+.2f}, {100 * hi:+.2f}] "
                      f"over {fit['n']} encoders", bool(lo > 0), {"gains": g, "fit": fit, "by_depth": by_depth})


# ----------------------------------------------------------------------------------------------
# C6: orthogonalisation, against LOES's own ablation
# ----------------------------------------------------------------------------------------------
@_rule("C6", statement="The orthogonalisation (residualisation) matters: without it the chosen layers are more "
                       "redundant and accuracy drops.",
       rule="LOES against its own ablation without residualisation (everything else equal), over real (task, seed) "
            "pairs and planted stacks: mean paired Δ test accuracy with a 95% t-interval above 0, and mean paired Δ of "
            "the chosen layers' linear CKA on held-out embeddings (not the penalty LOES minimises) with a 95% interval below 0",
       rejects="Δ = 0: residualisation changes neither the accuracy nor the redundancy of the chosen layers",
       paper="\"minimizing residual error under orthogonality and isotropy constraints\" (abstract); the ablation's "
             "numbers not reached")
def claim6(records, rec, cfg) -> ClaimCheck:
    _, a, b = pair_records(records, "loes", "loes_no_ortho")
    _, ca, cb = pair_records(records, "loes", "loes_no_ortho", key="cka")
    sa, sb = list(rec.accuracy["loes"]), list(rec.accuracy["loes_no_ortho"])
    ka, kb = list(rec.cka["loes"]), list(rec.cka["loes_no_ortho"])
    acc = paired(list(a) + sa, list(b) + sb, cfg.alpha_ci)
    cka = paired(list(ca) + ka, list(cb) + kb, cfg.alpha_ci)
    real_acc, syn_acc = paired(a, b, cfg.alpha_ci), paired(sa, sb, cfg.alpha_ci)
    real_cka, syn_cka = paired(ca, cb, cfg.alpha_ci), paired(ka, kb, cfg.alpha_ci)
    _, la, lb = pair_records(records, "loes", "loes_no_ortho", key="layers")
    same = sum(sorted(x) == sorted(y) for x, y in zip(la, lb)) + sum(
        sorted(x) == sorted(y) for x, y in zip(rec.choices["loes"], rec.choices["loes_no_ortho"]))
    vals = {"acc": acc, "cka": cka, "real_acc": real_acc, "synthetic_acc": syn_acc, "real_cka": real_cka,
            "synthetic_cka": syn_cka, "same_sets": same}
    measured = (f"Δacc (LOES − no residualisation) {_pct(acc['mean_diff'])} pts {_ci(acc)} over {acc['n']} pairs "
                f"(real {_pct(real_acc['mean_diff'])} over {real_acc['n']}, planted {_pct(syn_acc['mean_diff'])} over "
                f"{syn_acc['n']}); ΔCKA {cka['mean_diff']:+.3f} [{cka['ci'][0]:+.3f}, {cka['ci'][1]:+.3f}] (real "
                f"{real_cka['mean_diff']:+.3f}, planted {syn_cka['mean_diff']:+.3f}); same layer set in {same} of {acc['n']}")
    if acc["n"] < 2:
        return _undecided(measured, "fewer than 2 pairs: no interval", vals)
    return ClaimCheck(measured, _beyond(acc, 0.0, cfg) and _beyond(cka, 0.0, cfg, "upper"), vals)


# ----------------------------------------------------------------------------------------------
# C7: GeoReg
# ----------------------------------------------------------------------------------------------
def _georeg(records, cfg) -> ClaimCheck:
    off = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] == 0}
    on = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] > 0}
    keys = sorted(set(off) & set(on))
    g = lambda side, m: [side[k]["geometry"][m] for k in keys]
    wb = paired(g(on, "within_between"), g(off, "within_between"), cfg.alpha_ci)
    acc = paired([on[k]["test_accuracy"] for k in keys], [off[k]["test_accuracy"] for k in keys], cfg.alpha_ci)
    iso = paired(g(on, "isotropy"), g(off, "isotropy"), cfg.alpha_ci)
    tri = paired(g(on, "triangle_area_scaled"), g(off, "triangle_area_scaled"), cfg.alpha_ci)
    vals = {"within_between": wb, "acc": acc, "isotropy": iso, "triangle": tri, "n": len(keys)}
    measured = (f"with GeoReg, within/between ratio Δ {wb['mean_diff']:+.4f} [{wb['ci'][0]:+.4f}, {wb['ci'][1]:+.4f}] "
                f"(lower in {wb['losses']} of {wb['n']}); Δacc {_pct(acc['mean_diff'])} pts {_ci(acc)}; the terms GeoReg "
                f"optimises, for reference: isotropy up in {iso['wins']}, scaled triangle area up in {tri['wins']} of {len(keys)}")
    if len(keys) < 2:
        return _undecided(measured, "fewer than 2 (task, seed) pairs: no interval", vals)
    return ClaimCheck(measured, _beyond(wb, 0.0, cfg, "upper") and _beyond(acc, -cfg.acc_margin, cfg), vals)


_C7_RULE = ("on held-out fused embeddings, mean paired Δ (GeoReg on − off) of the within/between class scatter ratio, "
            "which GeoReg does not optimise, with a 95% t-interval below 0, and the Δaccuracy interval above −acc_margin")
_C7_REJECTS = "Δ = 0: GeoReg leaves the class geometry unchanged (or costs more than acc_margin of accuracy)"


@_rule("C7", statement="GeoReg improves the held-out class geometry (tighter, better separated classes) without "
                       "losing accuracy (frozen backbone, the official default).",
       rule=_C7_RULE, rejects=_C7_REJECTS,
       paper="\"enforces a simplicial structure on class manifolds\" (abstract); GeoReg's numbers not reached")
def claim7(records, cfg) -> ClaimCheck:
    return _georeg(records, cfg)


@_rule("C7ft", statement="GeoReg improves the held-out class geometry without losing accuracy when the backbone "
                         "is fine-tuned with the head.",
       rule=_C7_RULE, rejects=_C7_REJECTS,
       paper="\"stabilizes representation geometry during fine-tuning\" (abstract); numbers not reached")
def claim7ft(records, cfg) -> ClaimCheck:
    return _georeg(records, cfg)


# ----------------------------------------------------------------------------------------------
# C9: cost
# ----------------------------------------------------------------------------------------------
@_rule("C9", statement="Selection is cheap: seconds, less than training the head.",
       rule="fastest of cost_repeats interleaved timings each: LOES selection (closed-form scores on the n_cal "
            "calibration examples) < max_select_seconds and < training the LOES head (the comparison's head, "
            "epochs on the training split), in wall-clock seconds and in CPU seconds of the process (every thread "
            "counted) alike",
       rejects="selection costs as much as training the head (or looks cheaper only because load slowed the "
               "head's wall clock)",
       paper="not reached", timed=True)
def claim9(cost: dict, cfg) -> ClaimCheck:
    s, t = float(cost["select_seconds"]), float(cost["train_seconds"])
    sel, trn = np.asarray(cost["select_all"], float), np.asarray(cost["train_all"], float)
    if sel.size == 0 or trn.size == 0 or not (np.isfinite(sel).all() and np.isfinite(trn).all()):
        return ClaimCheck("—", None, reason="no finite timing of selection and head training was recorded")
    if "select_cpu_seconds" not in cost or "train_cpu_seconds" not in cost:
        return ClaimCheck("—", None, reason="no CPU-time measurement of selection and head training was recorded")
    sc, tc = float(cost["select_cpu_seconds"]), float(cost["train_cpu_seconds"])
    if not (np.isfinite(sc) and np.isfinite(tc) and tc > 0):
        return ClaimCheck("—", None, reason="no finite CPU timing of selection and head training was recorded")
    # CPU seconds as well as wall clock (changed after smoke runs of 67dd53f where the head's fastest wall time
    # rose from 0.13 s to 0.44 s with the machine's load and turned the row to reproduced): both must pass
    passed = bool(s < cfg.max_select_seconds and s < t and sc < tc)
    return ClaimCheck(f"selection {s:.2f} s vs head training {t:.2f} s, ratio {s / t:.2f}; in CPU seconds {sc:.2f} vs "
                      f"{tc:.2f}, ratio {sc / tc:.2f} (fastest of {sel.size} interleaved repeats each; wall spread "
                      f"{sel.min():.2f}-{sel.max():.2f} s and {trn.min():.2f}-{trn.max():.2f} s; L={cost['n_layers']}, "
                      f"n_cal={cost['n_cal']}, D={cost['dim']})", passed, {**cost, "ratio": s / t, "cpu_ratio": sc / tc})


# ----------------------------------------------------------------------------------------------
# not testable here
# ----------------------------------------------------------------------------------------------
not_testable("C2p", statement="The paper's headline accuracies on large pretrained backbones across modalities "
                               "(vision, text, audio) and data regimes.",
              paper="official result CSVs, CLIP-B/32, k=3: CIFAR-100 80.59 ± 0.24 vs 75.63 ± 0.31; DTD 70.93 vs 62.96",
              reason="needs the paper's pretrained weights and data sets (hub downloads) and a GPU; the full profile "
                     "accepts a local encoder folder (backbone_path)")
not_testable("C10", statement="LOES reveals how semantic factors are distributed across layers in a cross-lingual "
                               "analysis.",
              paper="\"enabling cross-lingual ... interpretability analyses\" (abstract); the analysis itself not reached",
              reason="needs a multilingual encoder and parallel text in several languages; the only pretrained encoder "
                     "available offline (all-MiniLM-L6-v2) and Banking77 are English-only")
not_testable("C11", statement="LOES reveals how semantic factors are distributed across layers in a cross-modal "
                               "analysis.",
              paper="\"enabling ... cross-modal interpretability analyses\" (abstract); the analysis itself not reached",
              reason="needs a paired image-text (or audio-text) encoder such as CLIP and paired data; none is available "
                     "offline here (our vision encoders are trained by us on digits, with no text side)")
