"""Figures of the LOES / GeoReg chapter (Batra et al., arXiv 2605.23033). Every function returns a
matplotlib Figure built with the book's style, or a plotly Figure; nothing is shown or saved here."""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .analysis import accuracy_table, depth_gains

__all__ = ["layer_curves_figure", "geometry_figure", "centroid_plotly", "methods_figure", "recovery_figure",
           "depth_figure", "georeg_figure", "selection_figure"]


def layer_curves_figure(profiles):
    """Per-layer ridge-probe test accuracy (mean over the seeds' splits, band = min..max over splits),
    depth normalised; the pretrained encoder solid, the rotation-pretext digit encoder dashed."""
    fig, ax = new_figure(1, 1, 7.5, 4.0)
    for i, p in enumerate(profiles):
        L = len(p.probe_accuracy)
        x = np.arange(1, L + 1) / L
        acc = np.asarray(p.seed_test_accuracy)
        c = PALETTE[i % 8]
        ax.plot(x, p.probe_accuracy, marker="o", ms=3, color=c, ls="--" if p.name.startswith("digits-") else "-",
                label=f"{p.name} / {getattr(p, 'label', p.task)}")
        ax.fill_between(x, acc.min(0), acc.max(0), color=c, alpha=0.15, lw=0)
        j = int(np.argmax(p.probe_accuracy))
        ax.plot((j + 1) / L, p.probe_accuracy[j], marker="*", ms=11, color=c)
    ax.set_xlabel("relative depth ℓ / L")
    ax.set_ylabel("ridge-probe test accuracy")
    S = np.asarray(profiles[0].seed_test_accuracy).shape[0]
    n_last = sum(int(np.argmax(p.probe_accuracy)) == len(p.probe_accuracy) - 1 for p in profiles)
    ax.set_title(f"Per-layer probe accuracy over {S} splits: the last layer is the best (★) for {n_last} of "
                 f"{len(profiles)} tasks", fontsize=10)
    ax.legend(ncol=2, fontsize=7)
    return fig


def geometry_figure(profile):
    fig, axes = new_figure(1, 4, 12.0, 3.0)
    L = len(profile.isotropy)
    x = np.arange(1, L + 1)
    for ax, (v, lab) in zip(axes[:3], ((profile.isotropy, r"isotropy $\mathcal{I}$"), (profile.triangle_area, "triangle area / mean sq. norm"),
                                       (profile.within_between, "within / between scatter"))):
        ax.plot(x, v, marker="o")
        ax.set_xlabel("layer")
        ax.set_ylabel(lab)
    for l in range(L):
        axes[3].semilogy(np.arange(1, profile.spectra.shape[1] + 1), profile.spectra[l] + 1e-12,
                         color=PALETTE[0], alpha=0.25 + 0.75 * l / max(L - 1, 1), label=f"layer {l + 1}" if l in (0, L - 1) else None)
    axes[3].set_xlabel("eigenvalue index")
    axes[3].set_ylabel("share of variance")
    axes[3].legend()
    fig.suptitle(f"Geometry per layer: {profile.name}, task {profile.task} (test embeddings)")
    return fig


def centroid_plotly(proj: np.ndarray, class_names, title: str):
    import plotly.graph_objects as go

    L, C, _ = proj.shape
    fig = go.Figure()
    for l in range(L):
        fig.add_trace(go.Scatter(x=proj[l, :, 0], y=proj[l, :, 1], mode="markers+text", text=list(class_names),
                                 textposition="top center", marker=dict(size=12, color=PALETTE[:C] * (C // 8 + 1)),
                                 visible=(l == L - 1), name=f"layer {l + 1}"))
    steps = [dict(method="update", args=[{"visible": [i == l for i in range(L)]}], label=str(l + 1)) for l in range(L)]
    fig.update_layout(title=title, sliders=[dict(active=L - 1, steps=steps, currentvalue={"prefix": "layer "})],
                      xaxis=dict(range=[-1.3, 1.3], title="centroid PC 1 (scaled)"),
                      yaxis=dict(range=[-1.3, 1.3], title="centroid PC 2 (scaled)"), height=460, showlegend=False)
    return fig


def methods_figure(records, methods):
    tab = accuracy_table(records)
    labels = list(tab)
    fig, ax = new_figure(1, 1, 10.0, 3.8)
    w = 0.8 / len(methods)
    for i, m in enumerate(methods):
        d = [100 * (tab[l][m][0] - tab[l]["last"][0]) for l in labels]
        # the palette has 8 colours: past them a hatch keeps every method's bars distinct
        ax.bar(np.arange(len(labels)) + (i - len(methods) / 2) * w, d, width=w, color=PALETTE[i % 8],
               hatch="//" if i >= 8 else None, edgecolor="white" if i >= 8 else None, label=m)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(labels)), labels, rotation=15)
    ax.set_ylabel("test accuracy − last layer (pts)")
    if "loes" in methods:
        above = sum(tab[lab]["loes"][0] > tab[lab]["last"][0] for lab in labels)
        ax.set_title(f"Every method against the last-layer head (mean over seeds): LOES above it on {above} of "
                     f"{len(labels)} tasks")
    else:
        ax.set_title("Every method against the last-layer head (mean over seeds)")
    ax.legend(ncol=5, fontsize=7)
    return fig


def recovery_figure(rec):
    fig, axes = new_figure(1, 2, 10.0, 3.4)
    ms = list(rec.coverage)
    axes[0].bar(np.arange(len(ms)) - 0.2, [np.mean(rec.coverage[m]) for m in ms], 0.4, label="factor coverage")
    axes[0].bar(np.arange(len(ms)) + 0.2, [np.mean(rec.duplicate[m]) for m in ms], 0.4, label="picked a duplicate pair")
    axes[0].set_xticks(np.arange(len(ms)), ms)
    axes[0].set_ylabel("fraction of stacks")
    best = max(ms, key=lambda m: np.mean(rec.coverage[m]))
    axes[0].set_title(f"Planted-layer recovery (k = 3): highest coverage {best} ({np.mean(rec.coverage[best]):.2f})",
                      fontsize=10)
    axes[0].legend()
    axes[1].plot(rec.alphas, rec.coverage_vs_alpha.mean(0), marker="o")
    axes[1].set_xscale("symlog", linthresh=0.01)
    axes[1].set_xlabel("isotropy weight α")
    axes[1].set_ylabel("LOES factor coverage")
    cov = rec.coverage_vs_alpha.mean(0)
    axes[1].set_title(f"LOES coverage {cov[0]:.2f} at α={rec.alphas[0]:g}, {cov[-1]:.2f} at α={rec.alphas[-1]:g}",
                      fontsize=10)
    return fig


def depth_figure(records):
    """Gain of LOES over the last layer per encoder (one dot per initialisation) and its mean per depth."""
    g = depth_gains(records)
    per = depth_gains(records, per_backbone=True)
    fig, ax = new_figure(1, 1, 5.5, 3.4)
    ax.scatter([d for d, _ in per], [100 * v for v in per.values()], s=16, color=PALETTE[1], label="one encoder")
    ax.plot(list(g), [100 * v for v in g.values()], marker="o", color=PALETTE[0], label="mean per depth")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(g), [str(d) for d in g])
    ax.minorticks_off()
    ax.set_xlabel("encoder depth L (blocks)")
    ax.set_ylabel("LOES − last layer (pts)")
    n = max(sum(dd == d for dd, _ in per) for d in g)
    ax.set_title(f"Gain over the last layer against depth ({n} encoders per depth, digit tasks)")
    ax.legend(fontsize=7)
    return fig


def georeg_figure(records, title: str = "GeoReg on the fused test embedding"):
    """Each geometry measure and the test accuracy with GeoReg against without, one point per (task, seed);
    the title counts the points above the diagonal (the measure rose with GeoReg)."""
    off = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] == 0}
    on = {(r["label"], r["seed"]): r for r in records if r["georeg_weight"] > 0}
    keys = sorted(set(off) & set(on))
    fig, axes = new_figure(1, 4, 12.0, 3.0)
    pairs = {}
    for ax, (key, lab) in zip(axes, (("isotropy", r"isotropy $\mathcal{I}$"), ("triangle_area_scaled", "scaled triangle area"),
                                     ("within_between", "within / between"), ("acc", "test accuracy"))):
        a = [off[k]["test_accuracy"] if key == "acc" else off[k]["geometry"][key] for k in keys]
        b = [on[k]["test_accuracy"] if key == "acc" else on[k]["geometry"][key] for k in keys]
        pairs[{"acc": "accuracy", "triangle_area_scaled": "triangle area", "within_between": "within/between"}
              .get(key, key)] = list(zip(a, b))
        ax.scatter(a, b, s=14)
        lo, hi = min(a + b), max(a + b)
        ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
        ax.set_xlabel("without GeoReg")
        ax.set_ylabel("with GeoReg")
        ax.set_title(lab)
    rose = {lab: sum(b_ > a_ for a_, b_ in pair) for lab, pair in pairs.items()}
    fig.suptitle(f"{title}: " + ", ".join(f"{lab} rose in {v} of {len(keys)}" for lab, v in rose.items()), fontsize=10)
    return fig


def selection_figure(sel, title: str):
    k, L = sel.scores.shape
    fig, ax = new_figure(1, 1, 7.0, 3.4)
    for s in range(k):
        ax.plot(np.arange(1, L + 1), sel.scores[s], marker="o", ms=3, label=f"step {s + 1}")
        ax.plot(sel.layers[s] + 1, sel.step_scores[s], marker="*", ms=12, color="k")
    ax.set_xlabel("layer")
    ax.set_ylabel("LOES score (lower is better)")
    ax.set_title(title)
    ax.legend()
    return fig
