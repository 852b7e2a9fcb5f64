"""Figures of the ``ts_pairwise_ranking`` chapter: each function returns a pyplot-free matplotlib ``Figure``
in the book's style (or a plotly figure for the interactive noise sweep); nothing is shown or saved here.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026.
"""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .experiments import (AeonResult, AnnotationBudget, CrowdResult, IrregularResult, LipschitzCheck, NoiseSweep,
                          PlaygroundResult, SoftTwedCheck, WellSpecified)

LABELS = {"euclidean": "Euclidean ideal point", "softdtw": "soft-DTW ideal point", "softtwed": "soft-TWED ideal point"}

__all__ = ["why_elastic_figure", "soft_twed_figure", "lipschitz_figure", "noise_figure", "noise_plotly",
           "elastic_vs_rigid_figure", "heldout_figure", "convergence_figure", "crowd_figure", "ideals_figure",
           "aeon_figure", "playground_figure", "annotation_budget_figure", "irregular_figure"]


def why_elastic_figure(demo: dict, align_dtw: np.ndarray, align_twed: np.ndarray):
    fig, ax = new_figure(1, 3, width=12, height=3.6)
    t = demo["t"]
    ax[0].plot(t, demo["ref"], label="reference")
    ax[0].plot(t, demo["shifted"], label="same shape, shifted")
    ax[0].plot(t, demo["other"], label="other shape, aligned")
    ax[0].set(xlabel="time (fraction of the record)", ylabel="amplitude (a.u.)", title="Shift vs change of shape")
    ax[0].legend(fontsize=8)
    ax[1].imshow(align_dtw, origin="lower", cmap="Blues", aspect="auto")
    ax[1].contour(align_twed, levels=[0.5], colors=[PALETTE[3]], linewidths=1)
    ax[1].set(xlabel="index in shifted series", ylabel="index in reference",
              title="DTW path (blue), TWED matches (red)")
    names = list(demo["shifted_dist"])
    x = np.arange(len(names))
    sh = np.array([demo["shifted_dist"][n] for n in names])
    ot = np.array([demo["other_dist"][n] for n in names])
    bars = ax[2].bar(x, sh / ot, 0.5, label="shifted / other shape")
    ax[2].bar_label(bars, fmt="%.2f")
    ax[2].axhline(1, color="k", lw=0.8)
    ax[2].set_xticks(x, names)
    close = [n for n, r in zip(names, sh / ot) if r < 1]
    ax[2].set(ylabel="distance ratio (shifted / other shape)",
              title=f"Shifted copy closer than another shape: {', '.join(close) if close else 'none'}")
    ax[2].legend(fontsize=8)
    return fig


def soft_twed_figure(c: SoftTwedCheck):
    fig, ax = new_figure(1, 1, width=6, height=3.8)
    ax.loglog(c.gammas, c.twed_rel_err, "o-", label="max |soft-TWED − TWED| / TWED (aeon)")
    if c.pytwed_rel_err is not None:
        ax.loglog(c.gammas, c.pytwed_rel_err, "x--", label="the same against pytwed (C, single-precision cells)")
    ax.axhline(1e-3, ls="--", color="gray", label="claim threshold 1e-3")
    g, e = np.asarray(c.gammas, float), np.asarray(c.twed_rel_err, float)
    ok = (g > 0) & (e > 0) & np.isfinite(e)
    slope = np.polyfit(np.log(g[ok]), np.log(e[ok]), 1)[0] if ok.sum() >= 2 else float("nan")
    ax.set(xlabel="soft-min temperature γ", ylabel="relative error vs reference TWED",
           title=f"Soft-TWED vs exact TWED: log-log slope {slope:.2f} in γ")
    ax.legend(fontsize=8)
    return fig


def lipschitz_figure(c: LipschitzCheck):
    fig, ax = new_figure(1, 1, width=7, height=3.8)
    bins = np.linspace(0, 1.05, 43)
    for k, v in c.ratios.items():
        ax.hist(v[np.isfinite(v)], bins=bins, histtype="step", lw=1.5, label=k)
    ax.axvline(1, color="k", ls="--", lw=1)
    finite = [v[np.isfinite(v)] for v in c.ratios.values()]
    m = max((float(v.max()) for v in finite if v.size), default=float("nan"))
    ax.set(xlabel="|d(X,U) − d(X,U')| / Lipschitz bound", ylabel="pairs", yscale="log",
           title=f"max ratio {m:.3f} ({'within' if m <= 1 else 'exceeds'} the bound)")
    ax.legend(fontsize=8)
    return fig


def noise_figure(s: NoiseSweep):
    fig, ax = new_figure(1, 2, width=11, height=3.8, sharey=True)
    for d, name in enumerate(s.distances):
        for k, (arr, a) in enumerate(((s.tau_train, ax[0]), (s.tau_test, ax[1]))):
            m, sd = np.nanmean(arr[:, :, d], 0), np.nanstd(arr[:, :, d], 0)
            a.errorbar(s.flips, m, sd, marker="o", capsize=3, label=LABELS[name], color=PALETTE[d])
    for b, name in enumerate(s.baseline_names):
        for arr, a in ((s.baseline_train, ax[0]), (s.baseline_test, ax[1])):
            if np.all(np.isnan(arr[:, :, b])):
                continue
            m = np.nanmean(arr[:, :, b], 0)
            a.plot(s.flips, m, ls="--", marker="s", ms=4, color=PALETTE[3 + b], label=name)
    ax[0].set(xlabel="flip probability p", ylabel="Kendall τ with the latent score", title="Compared items")
    ax[1].set(xlabel="flip probability p", title="Held-out items (never compared)")
    ax[0].legend(fontsize=7, loc="lower left")
    e = s.distances.index("euclidean")
    el = [k for k, n in enumerate(s.distances) if n != "euclidean"]
    best = np.max([np.nanmean(s.tau_train[:, :, k], 0) for k in el], 0) if el else np.full(len(s.flips), np.nan)
    ahead = np.mean(best > np.nanmean(s.tau_train[:, :, e], 0))
    fig.suptitle(f"Compared items: best elastic ideal point ahead of Euclidean at {ahead:.0%} of flip levels")
    return fig


def noise_plotly(s: NoiseSweep):
    import plotly.graph_objects as go
    fig = go.Figure()
    for d, name in enumerate(s.distances):
        fig.add_trace(go.Scatter(x=s.flips, y=np.nanmean(s.tau_train[:, :, d], 0), mode="lines+markers",
                                 name=LABELS[name], line={"color": PALETTE[d]},
                                 hovertemplate="p=%{x}<br>τ=%{y:.3f}<extra>" + name + "</extra>"))
    for b, name in enumerate(s.baseline_names):
        fig.add_trace(go.Scatter(x=s.flips, y=np.nanmean(s.baseline_train[:, :, b], 0), mode="lines+markers",
                                 name=name, line={"dash": "dash", "color": PALETTE[3 + b]}))
    last = {LABELS[name]: float(np.nanmean(s.tau_train[:, -1, d])) for d, name in enumerate(s.distances)}
    last.update({name: float(np.nanmean(s.baseline_train[:, -1, b])) for b, name in enumerate(s.baseline_names)})
    best = max(last, key=lambda k: last[k] if np.isfinite(last[k]) else -np.inf)
    title = (f"Kendall τ on compared items (mean over seeds); at p={s.flips[-1]:g} best: {best} "
             f"({last[best]:.2f})")
    fig.update_layout(title=title, xaxis_title="flip probability p",
                      yaxis_title="Kendall τ", height=380, template="simple_white")
    return fig


def elastic_vs_rigid_figure(s: NoiseSweep):
    fig, ax = new_figure(1, 1, width=5, height=4.2)
    e = s.distances.index("euclidean")
    for d in ("softdtw", "softtwed"):
        k = s.distances.index(d)
        ax.scatter(s.tau_train[:, :, e].ravel(), s.tau_train[:, :, k].ravel(), label=LABELS[d], color=PALETTE[k])
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    eu = s.tau_train[:, :, e]
    el = np.max([s.tau_train[:, :, s.distances.index(d)] for d in ("softdtw", "softtwed")], 0)
    ax.set(xlabel="τ, Euclidean ideal point", ylabel="τ, elastic ideal point", xlim=(0, 1), ylim=(0, 1),
           title=f"{np.mean(el > eu):.0%} of (seed, noise) cells above the diagonal (best elastic)")
    ax.legend(fontsize=8)
    return fig


def heldout_figure(s: NoiseSweep):
    """Accuracy on held-out comparisons between unseen series, against the true scores' accuracy on the
    same comparisons, one point per (data set, flip) cell; all comparisons and the hard half."""
    fig, ax = new_figure(1, 2, width=10, height=4.0, sharey=True)
    gaps = []
    for a, acc, oracle, title in ((ax[0], s.acc_heldout, s.acc_oracle, "All held-out comparisons"),
                                  (ax[1], s.acc_heldout_hard, s.acc_oracle_hard, "Hard half (small latent gap)")):
        for d, name in enumerate(s.distances):
            a.scatter(oracle.ravel(), acc[:, :, d].ravel(), label=LABELS[name], color=PALETTE[d])
        lo = float(np.nanmin([np.nanmin(acc), np.nanmin(oracle)])) - 0.05
        a.plot([lo, 1], [lo, 1], color="k", lw=0.8)
        a.set(xlabel="accuracy of the true scores", title=title)
        el = [s.distances.index(d) for d in ("softdtw", "softtwed")]
        gaps.append(float(np.nanmean(acc[:, :, el]) - np.nanmean(oracle)))
    ax[0].set(ylabel="accuracy of the model")
    ax[0].legend(fontsize=7)
    fig.suptitle(f"Elastic models vs the true scores on unseen series: {gaps[0]:+.3f} (all), {gaps[1]:+.3f} (hard half)")
    return fig


def convergence_figure(w: WellSpecified):
    fig, ax = new_figure(1, 3, width=13, height=3.6)
    for k, (m, c) in enumerate(zip(w.n_comparisons, w.loss_curves)):
        ax[0].plot(c, color=PALETTE[k % len(PALETTE)], label=f"{m} comparisons")
        st, er = w.error_curves[k]
        ax[1].plot(st, er, color=PALETTE[k % len(PALETTE)])
    ax[0].set(xlabel="Adam step", ylabel="mean negative log-likelihood", title="Training loss (first data set)")
    ax[0].legend(fontsize=7)
    ax[1].set(xlabel="Adam step", ylabel="DTW(Û, U*) / T", title="Distance of the iterate to the planted ideal")
    err = np.maximum(1.0 - np.atleast_2d(w.tau_test), 1e-3)
    for r, e in enumerate(err):
        ax[2].loglog(w.n_comparisons, e, "o-", color="lightgray", lw=0.8, label="one data set" if r == 0 else None)
    gm = np.exp(np.log(err).mean(0))
    ax[2].loglog(w.n_comparisons, gm, "o-", color=PALETTE[0], label="geometric mean")
    slope = np.polyfit(np.log(w.n_comparisons), np.log(gm), 1)[0]
    ax[2].loglog(w.n_comparisons, gm[0] * (w.n_comparisons / w.n_comparisons[0]) ** -0.5, "--", color="gray",
                 label="slope −1/2 (reference)")
    ax[2].set(xlabel="number of comparisons", ylabel="1 − τ on held-out series",
              title=f"Ranking error vs budget: slope {slope:.2f}")
    ax[2].legend(fontsize=7)
    return fig


def annotation_budget_figure(a: AnnotationBudget):
    """Paired τ per data set: individual labels (pooled threshold, and one per annotator) against pairwise
    comparisons, at the same number of annotations."""
    fig, ax = new_figure(1, 1, width=5.2, height=4.4)
    ax.scatter(a.tau_pointwise, a.tau_pairwise, color=PALETTE[0], label="individual labels, one threshold")
    ax.scatter(a.tau_pointwise_per_annotator, a.tau_pairwise, color=PALETTE[1], marker="s",
               label="individual labels, one threshold per annotator")
    vals = np.concatenate([a.tau_pointwise, a.tau_pointwise_per_annotator, a.tau_pairwise])
    lo, hi = float(vals.min()) - 0.05, min(1.0, float(vals.max()) + 0.05)
    ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
    gain = float(np.mean(a.tau_pairwise - a.tau_pointwise))
    above = int(np.sum(a.tau_pairwise > a.tau_pointwise))
    ax.set(xlabel="τ from individual labels", ylabel="τ from pairwise comparisons", xlim=(lo, hi), ylim=(lo, hi),
           title=f"Same budget: pairwise ahead on {above} of {a.tau_pairwise.size} data sets (mean {gain:+.3f})")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def irregular_figure(ir: IrregularResult):
    fig, ax = new_figure(1, 2, width=11, height=3.6)
    for x, t in zip(ir.example_X, ir.example_stamps):
        ax[0].plot(t, x, ".-", color="lightgray", lw=0.6, ms=4)
    grid = np.arange(1, ir.length + 1)
    ax[0].plot(grid, ir.true_ideal, color="k", lw=2, label="planted ideal U*")
    for d, (name, (tu, u)) in enumerate(ir.ideal_hat.items()):
        ax[0].plot(tu, u, color=PALETTE[d], label=name)
    ax[0].set(xlabel="time stamp (grid units)", ylabel="amplitude (a.u.)",
              title=f"Items of lengths {', '.join(str(v) for v in ir.lengths)}, irregular times")
    ax[0].legend(fontsize=7)
    names = list(ir.tau)
    x = np.arange(len(names))
    ax[1].bar(x - 0.2, [ir.tau[n] for n in names], 0.4, label="compared items")
    ax[1].bar(x + 0.2, [ir.tau_test[n] for n in names], 0.4, label="held-out items")
    ax[1].set_xticks(x, [n.replace(", ", ",\n") for n in names], fontsize=7)
    best = max(names, key=lambda n: ir.tau_test[n])
    ax[1].set(ylabel="Kendall τ", title=f"Best on held-out items: {best}")
    ax[1].legend(fontsize=8)
    return fig


def crowd_figure(c: CrowdResult):
    fig, ax = new_figure(1, 1, width=6, height=3.8)
    x = np.arange(len(c.seeds))
    aware = c.tau_full_flip_aware is not None
    w = 0.27 if aware else 0.4
    ax.bar(x - w / 2 * (2 if aware else 1), c.tau_majority, w, label="majority vote")
    ax.bar(x + (0 if aware else w / 2), c.tau_full, w, label="all raw labels (paper's logistic link)")
    if aware:
        ax.bar(x + w, c.tau_full_flip_aware, w, label="all raw labels, flip-aware link (our repair)")
    ax.set_xticks(x, [f"seed {s}" for s in c.seeds])
    ahead = int(np.sum(np.asarray(c.tau_majority) > np.asarray(c.tau_full)))
    ax.set(ylabel="Kendall τ with the latent score",
           title=f"{c.n_annotators} annotators, flip {c.flip:g}: majority vote ahead of all raw labels "
                 f"in {ahead} of {len(c.seeds)} seeds")
    ax.legend(fontsize=8)
    return fig


def ideals_figure(s: NoiseSweep):
    fig, ax = new_figure(1, 1, width=7, height=3.6)
    t = np.linspace(0, 1, len(s.true_ideal))
    ax.plot(t, s.true_ideal, color="k", lw=2, label="planted ideal U*")
    for d, name in enumerate(s.distances):
        ax.plot(np.linspace(0, 1, len(s.ideals[d])), s.ideals[d], color=PALETTE[d], label=LABELS[name])
    ax.set(xlabel="time (fraction of the record)", ylabel="amplitude (a.u.)",
           title="Learned ideals (first seed, no label noise)")
    ax.legend(fontsize=8)
    return fig


def aeon_figure(a: AeonResult, reference_label: str = "hidden ideal series",
                title: str = "Ranking real shapes (simulated comparisons)"):
    fig, ax = new_figure(1, 2, width=11, height=3.6)
    t = np.linspace(0, 1, a.length)
    for x in a.X[:6]:
        ax[0].plot(t, x, color="lightgray", lw=0.8)
    ax[0].plot(t, a.ideal_true, color="k", lw=2, label=reference_label)
    for d, (name, u) in enumerate(a.ideal_hat.items()):
        ax[0].plot(np.linspace(0, 1, len(u)), u, color=PALETTE[d], label=LABELS[name])
    ax[0].set(xlabel="time (fraction of the record)", ylabel="z-score", title=f"{a.dataset} series and ideals")
    ax[0].legend(fontsize=7)
    names = list(a.tau)
    x = np.arange(len(names))
    ax[1].bar(x - 0.2, [a.tau[n] for n in names], 0.4, label="compared items")
    held = [n for n in names if not np.isnan(a.tau_test[n])]
    ax[1].bar(np.array([names.index(n) for n in held]) + 0.2, [a.tau_test[n] for n in held], 0.4,
              label="held-out items")
    for n in names:
        if n not in held:
            ax[1].text(names.index(n) + 0.2, 0, "n/a", ha="center", va="bottom", fontsize=7)
    ax[1].set_xticks(x, [n.replace("Bradley-Terry", "BT") for n in names])
    ax[1].set_xlim(-0.6, len(names) - 0.4)  # room for the "n/a" mark of a method without held-out items
    if held:
        top = max(held, key=lambda n: a.tau_test[n])
        title = f"{title}\nbest on held-out items: {top.replace('Bradley-Terry', 'BT')} (τ {a.tau_test[top]:.2f})"
    ax[1].set(ylabel="Kendall τ", title=title)
    ax[1].legend(fontsize=8)
    return fig


def playground_figure(p: PlaygroundResult):
    fig, ax = new_figure(1, 2, width=11, height=3.4)
    t = np.linspace(0, 1, len(p.true_ideal))
    order = np.argsort(p.score)
    for k, i in enumerate(order[:: max(1, len(order) // 8)]):
        ax[0].plot(t, p.X[i], color="lightgray", lw=0.8)
    ax[0].plot(t, p.true_ideal, color="k", lw=2, label="planted ideal")
    ax[0].plot(t, p.U, color=PALETTE[0], lw=2, label="learned ideal Û")
    ax[0].set(xlabel="time (fraction of the record)", ylabel="amplitude (a.u.)", title=f"τ seen {p.tau_train:.2f}, unseen {p.tau_test:.2f}")
    ax[0].legend(fontsize=8)
    ax[1].plot(p.loss)
    ax[1].set(xlabel="Adam step", ylabel="negative log-likelihood", title="Training loss")
    return fig
