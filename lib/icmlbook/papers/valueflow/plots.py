"""Figures of the VALUEFLOW chapter (Kim et al., ICML 2026, arXiv 2602.03160). Each function takes results of
:mod:`.experiments` and returns a matplotlib ``Figure`` in the book's style (plotly where hovering helps);
titles are computed from the data passed in; nothing here decides a claim."""

from __future__ import annotations

import numpy as np

from ...runtime.style import PALETTE, new_figure
from .metrics import unit
from .taxonomy import THEORIES

__all__ = ["hierarchy_figure", "embedding_figure", "hives_metrics_figure", "recovery_figure", "rank_rate_figure",
           "monotone_figure", "steering_figure", "playground_figure", "baseline_table", "RUN_LABELS"]

RUN_LABELS = {"base": "untuned MiniLM", "stage1": "HiVES stage 1", "stage2": "HiVES stage 1+2",
              "flat": "flat SupCon (leaf only)", "flat_dir": "flat SupCon (leaf + direction)", "shuffled": "shuffled labels", "stage1_more": "stage 1 continued",
              "stage2_no_theory": "stage 2 without theory anchors"}


def hierarchy_figure():
    """The four value hierarchies as a plotly sunburst (theory -> level 1 -> level 2 -> level 3)."""
    import plotly.graph_objects as go

    ids, labels, parents = [], [], []
    for t, tree in THEORIES.items():
        ids.append(t), labels.append(t), parents.append("")
        for h1, sub in tree.items():
            ids.append(f"{t}/{h1}"), labels.append(h1), parents.append(t)
            for h2, h3s in sub.items():
                ids.append(f"{t}/{h1}/{h2}"), labels.append(h2), parents.append(f"{t}/{h1}")
                for h3 in h3s:
                    ids.append(f"{t}/{h1}/{h2}/{h3}"), labels.append(h3), parents.append(f"{t}/{h1}/{h2}")
    fig = go.Figure(go.Sunburst(ids=ids, labels=labels, parents=parents, maxdepth=3))
    fig.update_layout(title=f"Four value theories, {sum(p == '' for p in parents)} roots and {len(ids)} nodes "
                            "(click a sector to zoom)", height=520, margin=dict(t=50, l=10, r=10, b=10))
    return fig


def _pca2(z):
    z = z - z.mean(0)
    _, _, vt = np.linalg.svd(z, full_matrices=False)
    return z @ vt[:2].T


def embedding_figure(hs, values=None):
    """Held-out embeddings of one replicate before (untuned MiniLM) and after HiVES, projected on their first two
    principal components; colour = value (a few), filled = supports, open = opposes (plotly, hover shows the text)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    lab = hs.labels
    values = values or list(dict.fromkeys(lab["value"]))[:6]
    fig = make_subplots(1, 2, subplot_titles=("untuned MiniLM", "HiVES (stage 1 + 2 head)"))
    for col, z in ((1, hs.z_base), (2, hs.z_hives)):
        keep = np.isin(lab["value"], values) & (lab["direction"] != 0)
        p = _pca2(unit(z[keep]))
        for i, v in enumerate(values):
            for d, sym in ((1, "circle"), (-1, "circle-open")):
                sel = (lab["value"][keep] == v) & (lab["direction"][keep] == d)
                fig.add_trace(go.Scatter(x=p[sel, 0], y=p[sel, 1], mode="markers", text=lab["text"][keep][sel],
                                         marker=dict(symbol=sym, color=PALETTE[i % len(PALETTE)], size=7),
                                         name=f"{v} ({'+' if d > 0 else '−'})", legendgroup=v, showlegend=col == 1),
                              row=1, col=col)
        fig.update_xaxes(title_text="PC 1", row=1, col=col)
        fig.update_yaxes(title_text="PC 2", row=1, col=col)
    g0, g1 = hs.base["dir_gap"], hs.runs["stage2"].curve[-1]["dir_gap"]
    fig.update_layout(title=f"Held-out texts before and after HiVES (direction gap of this replicate {g0:.2f} → {g1:.2f})",
                      height=460, margin=dict(t=70))
    return fig


def hives_metrics_figure(summaries):
    """Held-out metrics by training objective (bars: mean over replicates; dots: replicates)."""
    runs = ["base", "stage1", "stage2", "flat", "flat_dir", "shuffled"]
    metrics = [("rank_pairwise", "hierarchical ranking accuracy"), ("sim_corr", "similarity correlation"),
               ("dir_gap", "direction gap"), ("cross_theory_p5", "cross-theory precision@5")]
    fig, axes = new_figure(1, 4, width=13, height=3.6)
    for ax, (m, label) in zip(axes, metrics):
        vals = [[s.base[m] if r == "base" else s.final(r, m) for s in summaries] for r in runs]
        ax.bar(range(len(runs)), [np.mean(v) for v in vals], color=[PALETTE[i] for i in range(len(runs))], alpha=0.75)
        for i, v in enumerate(vals):
            ax.plot([i] * len(v), v, "k.", ms=4)
        ax.set_xticks(range(len(runs)), [RUN_LABELS[r] for r in runs], rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(label)
    s2 = np.mean([s.final("stage2", "rank_pairwise") for s in summaries])
    b = np.mean([s.base["rank_pairwise"] for s in summaries])
    fig.suptitle(f"HiVES moves ranking accuracy {b:.3f} → {s2:.3f}; metrics by objective on held-out texts "
                 f"({len(summaries)} replicate(s))", fontsize=10)
    return fig


def recovery_figure(reps, cfg):
    """Spearman and MAE of each estimator against the latent intensity, against m, for each k (mean over replicates)."""
    methods = ["anchored PL", "Bradley-Terry", "TrueSkill", "mean rank", "direct rating"]
    fig, axes = new_figure(1, 2, width=11, height=3.8)
    ms = list(cfg.m_grid)
    for j, meth in enumerate(methods):
        for k, ls in zip(cfg.k_grid, ("-", "--", ":")):
            rho = [np.mean([r.spearman[meth][(k, m)] for r in reps]) for m in ms]
            mae = [np.mean([r.mae[meth][(k, m)] for r in reps]) for m in ms]
            lab = f"{meth}, k = {k}" if meth != "direct rating" else (f"{meth} (m prompts)" if k == cfg.k_grid[0] else None)
            if meth == "direct rating" and k != cfg.k_grid[0]:
                continue
            axes[0].plot(ms, rho, ls, marker="o", color=PALETTE[j], label=lab)
            axes[1].plot(ms, mae, ls, marker="o", color=PALETTE[j], label=lab)
    axes[0].axhline(cfg.rho_min, color="grey", lw=0.8)
    axes[0].set(xlabel="windows per item m", ylabel="Spearman with the latent intensity", xscale="log")
    axes[1].set(xlabel="windows per item m", ylabel="mean absolute error (intensity points)", xscale="log")
    axes[1].legend(fontsize=7, ncol=2)
    r = np.mean([x.spearman["anchored PL"][(cfg.k_main, cfg.m_main)] for x in reps])
    m0, m1 = min(ms), max(ms)
    up = sum(np.mean([x.spearman[meth][(k, m1)] - x.spearman[meth][(k, m0)] for x in reps]) > 0
             for meth in methods for k in cfg.k_grid)
    fig.suptitle(f"Anchored estimator: Spearman {r:.3f} at (k, m) = ({cfg.k_main}, {cfg.m_main}); mean Spearman higher "
                 f"at m = {m1} than at m = {m0} for {up} of {len(methods) * len(cfg.k_grid)} estimator × k curves "
                 f"({len(reps)} replicate(s), simulated judges)", fontsize=10)
    return fig


def baseline_table(reps, cfg) -> str:
    """Markdown table of every intensity estimator at (k_main, m_main) and at (k_main, max m): Spearman with the
    latent intensity and mean absolute error, means over replicates with their range (same windows, same judge)."""
    k0, m0, m1 = cfg.k_main, cfg.m_main, max(cfg.m_grid)
    head = (f"| estimator | Spearman, m = {m0} | MAE, m = {m0} | Spearman, m = {m1} | MAE, m = {m1} |\n"
            "|---|---|---|---|---|\n")

    def cell(d, m, fmt):
        v = np.array([r_[(k0, m)] for r_ in d])
        return f"{v.mean():{fmt}} ({v.min():{fmt}}–{v.max():{fmt}})" if v.size > 1 else f"{v.mean():{fmt}}"

    rows = []
    for meth in reps[0].spearman:
        rho = [r.spearman[meth] for r in reps]
        mae = [r.mae[meth] for r in reps]
        rows.append(f"| {meth} | {cell(rho, m0, '.3f')} | {cell(mae, m0, '.2f')} | {cell(rho, m1, '.3f')} | "
                    f"{cell(mae, m1, '.2f')} |")
    return head + "\n".join(rows)


def rank_rate_figure(reps):
    """Left: scores of the same items by every simulated judge (one replicate), rating against ranking; right:
    across-judge variance and sign-flip rate per replicate."""
    ex = reps[0].example
    fig, axes = new_figure(1, 3, width=13, height=3.8)
    order = np.argsort(ex["latent"])
    for j in range(ex["rating"].shape[0]):
        axes[0].plot(ex["latent"][order], ex["rating"][j][order], ".", ms=4, color=PALETTE[j % 8])
        axes[1].plot(ex["latent"][order], ex["ranking"][j][order], ".", ms=4, color=PALETTE[j % 8])
    for ax, t in ((axes[0], "direct rating"), (axes[1], "anchored ranking")):
        ax.plot([-10, 10], [-10, 10], "k-", lw=0.6)
        ax.set(xlabel="latent intensity", ylabel=f"score ({t})", title=f"{t}: one colour per judge")
    names = ["rating", "ranking"]
    var = np.array([[r.var[n] for n in names] for r in reps])
    flip = np.array([[r.flip[n] for n in names] for r in reps])
    x = np.arange(2)
    axes[2].bar(x - 0.2, var.mean(0), 0.4, color=PALETTE[3], label="across-judge variance")
    ax2 = axes[2].twinx()
    ax2.bar(x + 0.2, flip.mean(0), 0.4, color=PALETTE[0], label="sign-flip rate")
    axes[2].set_xticks(x, names)
    axes[2].set_ylabel("variance (points²)")
    ax2.set_ylabel("sign-flip rate")
    # one legend above both bar pairs, with headroom, so that it covers no bar
    axes[2].set_ylim(0, 1.35 * max(float(var.mean(0).max()), 1e-9))
    ax2.set_ylim(0, 1.35 * max(float(flip.mean(0).max()), 1e-9))
    handles = axes[2].get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    axes[2].legend(handles=handles, loc="upper center", ncol=2, fontsize=7, frameon=False)
    fig.suptitle(f"Ranking against anchors: variance {var[:, 0].mean():.1f} → {var[:, 1].mean():.1f}, sign flips "
                 f"{flip[:, 0].mean():.0%} → {flip[:, 1].mean():.0%} (simulated judges, {len(reps)} replicate(s))",
                 fontsize=10)
    return fig


def monotone_figure(es):
    """Evaluator scores of held-out texts by their true level, for the MiniLM projection judge and the keyword judge."""
    fig, axes = new_figure(1, 2, width=11, height=3.6, sharey=True)
    bins = (-2, -1, 1, 2)
    for ax, (name, s) in zip(axes, (("MiniLM projection judge", es.score), ("keyword judge (direction only)", es.keyword))):
        data = [s[es.level == b] for b in bins]
        ax.boxplot(data, positions=range(4), widths=0.5, showfliers=False)
        rng = np.random.default_rng(0)
        for i, d in enumerate(data):
            ax.plot(i + rng.uniform(-0.15, 0.15, d.size), d, ".", ms=3, alpha=0.5, color=PALETTE[i])
        ax.plot(range(4), [d.mean() for d in data], "k-o", ms=4)
        ax.set_xticks(range(4), [f"{b:+d}" for b in bins])
        ax.set(xlabel="true intensity level of the text", title=name)
    axes[0].set_ylabel("anchored score (−10 … 10)")
    m = [es.score[es.level == b].mean() for b in bins]
    fig.suptitle("Mean score by level (MiniLM judge): " + ", ".join(f"{b:+d}: {v:+.1f}" for b, v in zip(bins, m)),
                 fontsize=10)
    return fig


def steering_figure(ss):
    """Steering effect Δ by requested level for every value of the small LM (planted values in vermillion)."""
    fig, axes = new_figure(1, 2, width=12, height=3.8)
    levels = (-2, -1, 0, 1, 2)
    labelled = set()
    for v in ss.values:
        d = [ss.table[(v, lv)]["delta"] for lv in levels]
        kind = "planted (weak negatives)" if v in ss.planted else "other values"
        axes[0].plot(levels, d, "-o", ms=3, color=PALETTE[3] if v in ss.planted else PALETTE[0], alpha=0.8,
                     label=None if kind in labelled else kind)
        labelled.add(kind)
    axes[0].plot([-2, 2], [-7, 7], "k:", lw=0.6)
    axes[0].set(xlabel="requested level", ylabel="Δ = mean score − mean score at level 0 (points)",
                title="dose response (vermillion: planted weak negatives)")
    axes[0].legend(loc="upper left", fontsize=7)
    a = np.array([ss.asym[v][0] for v in ss.values])
    se = np.array([ss.asym[v][1] for v in ss.values])
    colors = [PALETTE[3] if v in ss.planted else PALETTE[0] for v in ss.values]
    axes[1].bar(range(len(a)), a, yerr=1.96 * se, color=colors, alpha=0.8)
    axes[1].axhline(0, color="k", lw=0.6)
    axes[1].set_xticks(range(len(a)), ss.values, rotation=35, ha="right", fontsize=8)
    axes[1].set_ylabel("asymmetry a = Δ(+2) + Δ(−2) (points)")
    fig.suptitle(f"Small LM steered on {len(ss.values)} values: planted values a = "
                 f"{np.mean([ss.asym[v][0] for v in ss.planted]):+.1f}, others "
                 f"{np.mean([ss.asym[v][0] for v in ss.values if v not in ss.planted]):+.1f} ({ss.backend})",
                 fontsize=10)
    return fig


def playground_figure(q, estimate, rating, k, m, noise, temperature):
    """Anchored estimate and direct rating of items against their latent intensity (the live playground)."""
    from scipy.stats import spearmanr

    fig, ax = new_figure(1, 1, width=6.4, height=4.0)
    ax.plot(q, rating, ".", ms=3, color=PALETTE[3], label=f"direct rating (MAE {np.abs(rating - q).mean():.2f})")
    ax.plot(q, estimate, ".", ms=3, color=PALETTE[0], label=f"anchored PL (MAE {np.abs(estimate - q).mean():.2f})")
    ax.plot([-10, 10], [-10, 10], "k-", lw=0.6)
    ax.set(xlabel="latent intensity", ylabel="estimate")
    ax.legend(fontsize=8)
    ax.set_title(f"k = {k}, m = {m}, judge noise {noise:g}, temperature {temperature:g}: Spearman "
                 f"{spearmanr(estimate, q)[0]:.3f} (anchored) vs {spearmanr(rating, q)[0]:.3f} (rating)", fontsize=9)
    return fig
