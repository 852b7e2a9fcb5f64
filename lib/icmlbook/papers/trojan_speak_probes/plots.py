"""Figures of the ``trojan_speak_probes`` chapter.

Every function takes the study (:class:`.experiments.Study`) or one seed's run and returns a pyplot-free matplotlib
``Figure`` in the book's style. Nothing here decides a claim; every title is computed from the data passed in.
"""

from __future__ import annotations

import numpy as np

from ...runtime.style import PALETTE, new_figure
from .capture import SITE_KINDS
from .experiments import SeedRun, Study
from .metrics import finite_max as _nanmax
from .metrics import finite_mean as _nanmean
from .metrics import rate_above, threshold_at_fpr
from .world import TOPICS

__all__ = ["roc_points", "monitor_roc_figure", "layer_profile_figure", "streaming_figure", "controls_figure",
           "free_choice_figure", "capability_figure", "projection_figure", "fmt_name"]


_KIND_COLOR = {"resid": PALETTE[0], "attn": PALETTE[1], "mlp": PALETTE[2]}


def fmt_name(f: str) -> str:
    return {"plain": "plain", "rot13": "ROT13", "atbash": "atbash", "codebook": "codebook"}.get(f, f)


def roc_points(scores, y) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) at every threshold (flag when score > threshold), from (0, 0) to (1, 1)."""
    s = np.asarray(scores, float)
    y = np.asarray(y, bool)
    thr = np.r_[np.inf, np.unique(s)[::-1], -np.inf]
    fpr = np.array([rate_above(s[~y], t) for t in thr])
    tpr = np.array([rate_above(s[y], t) for t in thr])
    return fpr, tpr


def _mean_band(ax, x, values, color, label, ls="-", marker="o"):
    v = np.asarray(values, float)
    m = _nanmean(v, 0)
    ax.plot(x, m, color=color, ls=ls, marker=marker, ms=4, label=label)
    if v.shape[0] > 1:
        ax.fill_between(x, np.fmin.reduce(v, axis=0), np.fmax.reduce(v, axis=0), color=color, alpha=0.15, lw=0)


def monitor_roc_figure(run: SeedRun, cipher: str, topic: int, fpr_target: float):
    """ROC curves of the text monitor, the keyword list and the adaptive monitor on plain and encoded eval answers
    of one seed, with the deployment threshold's operating point."""
    j = run.topics.index(topic)
    P, E = run.responses["plain"], run.responses[cipher]
    fig, axes = new_figure(1, 2, width=10, height=4.0, sharey=True)
    title_bits = []
    for ax, (resp, f) in zip(axes, ((P, "plain"), (E, cipher))):
        rows = resp.rows("eval")
        y = resp.label[rows] == topic
        for name, scores, color in (("text monitor (plain-trained)", run.monitor[f][:, j], PALETTE[0]),
                                    ("keyword list", run.keyword[f][:, j], PALETTE[1]),
                                    ("adaptive monitor (retrained on encoded: upper bound)", run.adaptive[f][:, j],
                                     PALETTE[2])):
            fpr, tpr = roc_points(scores[rows], y)
            auc = float(np.trapezoid(tpr, fpr)) if 0 < y.sum() < y.size else float("nan")
            ax.plot(fpr, tpr, color=color, label=f"{name}: AUROC {auc:.3f}")
        pc = P.rows("calib")
        thr = threshold_at_fpr(run.monitor["plain"][pc, j][P.label[pc] != topic], fpr_target)
        s = run.monitor[f][rows, j]
        op = (rate_above(s[~y], thr), rate_above(s[y], thr))
        ax.plot(*op, "k*", ms=10, label=f"deployment threshold: TPR {op[1]:.2f} at FPR {op[0]:.3f}")
        title_bits.append(f"{fmt_name(f)} TPR {op[1]:.2f}")
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
        ax.set(xlabel="false-positive rate", title=f"{fmt_name(f)} answers ({int(y.sum())} on {TOPICS[topic]}, "
                                                   f"{int((~y).sum())} not)")
        ax.legend(loc="lower right", fontsize=7.5)
    axes[0].set_ylabel("true-positive rate")
    fig.suptitle(f"Text monitor at its deployment threshold ({100 * fpr_target:g} % FPR on plain negatives): "
                 + ", ".join(title_bits), fontsize=11)
    return fig


def layer_profile_figure(study: Study, cipher: str):
    """Probe AUROC against layer for each site: plain → plain and plain → encoded (mean over seeds, band = range),
    with the untrained model's probes (dotted)."""
    sums = study.summaries
    sites = sums[0].sites
    layers = sorted({int(s.split(".")[0][1:]) for s in sites})
    fig, axes = new_figure(1, 3, width=12, height=3.8, sharey=True)
    best_enc = max(((_nanmean([s.probe_auroc_cipher[i] for s in sums]), sites[i]) for i in range(len(sites))))
    for ax, kind in zip(axes, SITE_KINDS):
        idx = [sites.index(f"L{layer}.{kind}") for layer in layers]
        _mean_band(ax, layers, [s.probe_auroc_plain[idx] for s in sums], _KIND_COLOR[kind], "plain → plain")
        _mean_band(ax, layers, [s.probe_auroc_cipher[idx] for s in sums], _KIND_COLOR[kind],
                   f"plain → {fmt_name(cipher)}", ls="--", marker="s")
        _mean_band(ax, layers, [s.untrained_auroc_cipher[idx] for s in sums], "0.5",
                   f"untrained model, plain → {fmt_name(cipher)}", ls=":", marker=".")
        ax.axhline(0.5, color="0.7", lw=0.8)
        ax.set(xlabel="layer", title=f"site: {kind}", xticks=layers, ylim=(0.3, 1.02))
        ax.legend(loc="lower right", fontsize=7.5)
    axes[0].set_ylabel("AUROC on eval answers")
    fig.suptitle(f"Probes trained on plain answers: best {fmt_name(cipher)} AUROC {best_enc[0]:.3f} at {best_enc[1]} "
                 f"(mean over {len(sums)} seeds)", fontsize=11)
    return fig


def streaming_figure(study: Study, cipher: str, fpr_target: float):
    """TPR at the deployment (and oracle) threshold of the k-of-n rule against k, at each seed's chosen site, with
    mean pooling as a horizontal line."""
    sums = study.summaries
    ks = np.array(sums[0].stream_ks)
    dep = np.array([s.stream_tpr_cipher[s.chosen_site] for s in sums])
    orc = np.array([s.stream_tpr_cipher_oracle[s.chosen_site] for s in sums])
    mean_dep = np.array([s.mean_tpr_cipher[s.chosen_site] for s in sums])
    mean_orc = np.array([s.probe_tpr_cipher_oracle[s.chosen_site] for s in sums])
    fig, ax = new_figure(1, 1, width=6.4, height=3.8)
    _mean_band(ax, ks, dep, PALETTE[0], "k-of-n, deployment threshold (plain negatives)")
    _mean_band(ax, ks, orc, PALETTE[3], "k-of-n, oracle threshold (encoded negatives)", ls="--", marker="s")
    ax.axhline(_nanmean(mean_dep), color=PALETTE[0], lw=1.0, ls=":", label="mean pooling, deployment")
    ax.axhline(_nanmean(mean_orc), color=PALETTE[3], lw=1.0, ls="-.", label="mean pooling, oracle")
    m = _nanmean(dep, 0)
    best = ks[int(np.argmax(np.where(np.isfinite(m), m, -1.0)))]
    ax.set(xlabel="k (tokens that must score above τ)", ylabel=f"TPR at {100 * fpr_target:g} % FPR",
           xscale="log", xticks=ks, xticklabels=[str(k) for k in ks], ylim=(-0.02, 1.02),
           title=f"{fmt_name(cipher)} answers: deployment TPR {_nanmean(dep[:, 0]):.2f} at k=1, "
                 f"{_nanmax(_nanmean(dep, 0)):.2f} at k={best}; mean pooling {_nanmean(mean_dep):.2f}")
    ax.legend(fontsize=7.5)
    return fig


def controls_figure(study: Study, cipher: str):
    """Encoded eval AUROC at the chosen site: the topic probe, its controls and the baselines (one dot per seed)."""
    sums = study.summaries
    rows = [("topic probe", "probe_auroc_cipher"), ("shuffled labels", "shuffled_auroc_cipher"),
            ("control task (word types)", "control_auroc_cipher"), ("pretrained-only model", "pretrained_auroc_cipher"),
            ("untrained model", "untrained_auroc_cipher")]
    fig, ax = new_figure(1, 1, width=6.8, height=3.6)
    vals = []
    for i, (name, field) in enumerate(rows):
        v = np.array([getattr(s, field)[s.chosen_site] for s in sums])
        vals.append(_nanmean(v))
        ax.barh(i, _nanmean(v), color=PALETTE[i % len(PALETTE)], alpha=0.8)
        ax.plot(v, np.full(v.size, i), "k.", ms=6)
    mon = _nanmean([s.monitor_auroc_cipher for s in sums])
    ax.axvline(mon, color="k", ls="--", lw=1, label=f"text monitor: {mon:.3f}")
    ax.axvline(0.5, color="0.6", lw=0.8)
    ax.set(yticks=range(len(rows)), yticklabels=[r[0] for r in rows], xlim=(0, 1.02),
           xlabel=f"AUROC on {fmt_name(cipher)} eval answers (at each seed's chosen site)",
           title=f"Topic probe {vals[0]:.3f} vs shuffled {vals[1]:.3f}, control task {vals[2]:.3f}, "
                 f"untrained {vals[4]:.3f}")
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize=7.5)
    return fig


def free_choice_figure(study: Study, cipher: str):
    """AUROC at the chosen site on requested-topic and on free-choice answers, plain and encoded; and the topics the
    model picked when free to choose (first seed)."""
    sums = study.summaries
    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=3.6)
    groups = [("requested, plain", "probe_auroc_plain"), (f"requested, {fmt_name(cipher)}", "probe_auroc_cipher"),
              ("free choice, plain", "free_auroc_plain"), (f"free choice, {fmt_name(cipher)}", "free_auroc_cipher")]
    means = []
    for i, (name, field) in enumerate(groups):
        v = np.array([getattr(s, field)[s.chosen_site] for s in sums])
        means.append(_nanmean(v))
        ax.bar(i, _nanmean(v), color=PALETTE[i], alpha=0.8)
        ax.plot(np.full(v.size, i), v, "k.", ms=6)
    ax.axhline(0.5, color="0.6", lw=0.8)
    ax.set(xticks=range(4), xticklabels=[g[0] for g in groups], ylim=(0, 1.02), ylabel="AUROC (eval answers)",
           title=f"Free choice, {fmt_name(cipher)}: AUROC {means[3]:.3f} (requested: {means[1]:.3f})")
    ax.tick_params(axis="x", labelsize=7.5)
    run = study.runs[0]
    for k, f in enumerate(("plain", cipher)):
        r = run.responses[f]
        rows = r.rows("eval", "free", labelled=False)
        counts = np.array([np.sum(r.label[rows] == t) for t in range(len(TOPICS))] + [np.sum(r.label[rows] < 0)])
        ax2.bar(np.arange(len(TOPICS) + 1) + (k - 0.5) * 0.4, counts / max(counts.sum(), 1), width=0.4,
                color=PALETTE[k * 3], label=fmt_name(f))
    ax2.set(xticks=range(len(TOPICS) + 1), xticklabels=list(TOPICS) + ["none/mixed"], ylabel="share of answers",
            title="Topics the model picked when free to choose (seed 1)")
    ax2.tick_params(axis="x", labelsize=7.5)
    ax2.legend(fontsize=7.5)
    return fig


def capability_figure(study: Study):
    """Held-out arithmetic accuracy and general loss during abrupt and mixed format fine-tuning (every seed)."""
    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=3.6)
    finals = {}
    for name, color in (("abrupt", PALETTE[3]), ("mixed", PALETTE[0])):
        for i, run in enumerate(study.runs):
            c = run.curves[name]
            ax.plot(c.eval_steps, c.arith_heldout, color=color, alpha=0.8, label=name if i == 0 else None)
            ax2.plot(c.eval_steps, c.general_loss, color=color, alpha=0.8, label=name if i == 0 else None)
        finals[name] = np.mean([r.capability[name].arith_heldout for r in study.runs])
    before = np.mean([r.capability["before"].arith_heldout for r in study.runs])
    ax.set(xlabel="format fine-tuning update", ylabel="held-out arithmetic accuracy",
           title=f"Held-out arithmetic: {before:.2f} before, {finals['abrupt']:.2f} abrupt, {finals['mixed']:.2f} mixed")
    ax2.set(xlabel="format fine-tuning update", ylabel="loss on fresh plain answers (nats/token)",
            title="General next-token loss during format fine-tuning")
    ax.legend(fontsize=7.5)
    ax2.legend(fontsize=7.5)
    return fig


def projection_figure(run: SeedRun, fmts: tuple[str, ...]):
    """The first two principal components of the mean-pooled activations at the chosen site (eval answers of the
    first seed): colour = topic, marker = format."""
    p = run.pca
    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=4.0, sharex=True, sharey=True)
    markers = ["o", "x", "^", "s"]
    for t in range(len(TOPICS)):
        for k, f in enumerate(fmts):
            sel = (p["topic"] == t) & (p["fmt"] == k)
            ax.scatter(p["coords"][sel, 0], p["coords"][sel, 1], s=8, marker=markers[k], color=PALETTE[t],
                       alpha=0.6, label=TOPICS[t] if k == 0 else None)
    for k, f in enumerate(fmts):
        sel = p["fmt"] == k
        ax2.scatter(p["coords"][sel, 0], p["coords"][sel, 1], s=8, marker=markers[k], color=(PALETTE[0], PALETTE[3],
                    PALETTE[2], PALETTE[4])[k % 4],
                    alpha=0.5, label=fmt_name(f))
    # how much of the spread is topic vs format: share of variance explained by the group means
    c = p["coords"]
    keep = p["topic"] >= 0
    tot = np.sum((c[keep] - c[keep].mean(0)) ** 2)

    def share(groups):
        g = groups[keep]
        return sum(np.sum(g == v) * np.sum((c[keep][g == v].mean(0) - c[keep].mean(0)) ** 2) for v in np.unique(g)) / tot

    st, sf = share(p["topic"]), share(p["fmt"])
    ax.set(xlabel="PC 1", ylabel="PC 2", title=f"coloured by topic (topic explains {st:.0%} of the PC variance)")
    ax2.set(xlabel="PC 1", title=f"coloured by format (format explains {sf:.0%})")
    ax.legend(fontsize=7, markerscale=2)
    ax2.legend(fontsize=7, markerscale=2)
    site = run.sites[int(p["site"])].label
    fig.suptitle(f"Mean-pooled activations at {site} (seed 1): topic explains {st:.0%}, format {sf:.0%} of the "
                 "first two components' variance", fontsize=11)
    return fig
