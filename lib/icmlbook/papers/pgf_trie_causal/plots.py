"""Figures of the chapter (matplotlib, built with the book's ``new_figure``; nothing is shown here)."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import FancyArrowPatch

from icmlbook.runtime import PALETTE, new_figure

from .experiments import METHODS
from .identifiability import LATENT_SETS, NODE_NAMES, IdentifiabilityTable
from .model import PoissonBranchingSCM, true_pair_states
from .pgf import log_pgf_coefficients
from .trie import build_trie, format_monomial, monomial_origins

__all__ = [
    "circle_layout",
    "draw_learned",
    "draw_model",
    "draw_trie",
    "plot_cascade",
    "plot_chain",
    "plot_e2e",
    "plot_identifiability",
    "plot_latent_free_classes",
    "plot_learned_vs_true",
    "plot_local_recovery",
    "plot_monomials",
    "plot_pgf_check",
    "plot_recovery",
    "plot_sink",
]

METHOD_COLORS = dict(zip(METHODS, [PALETTE[0], PALETTE[5], PALETTE[2], PALETTE[4], PALETTE[1], PALETTE[3]]))


def circle_layout(model: PoissonBranchingSCM) -> dict[str, tuple[float, float]]:
    """Observed nodes on a circle, each latent node outside it, near the mean of its children."""
    obs = model.observed_names
    pos = {}
    for k, n in enumerate(obs):
        t = np.pi / 2 - 2 * np.pi * k / max(len(obs), 1)
        pos[n] = (np.cos(t), np.sin(t))
    for v in np.flatnonzero(~model.observed):
        ch = [model.names[c] for c in model.children(v)]
        if ch:
            c = np.mean([pos[n] for n in ch if n in pos], axis=0)
            norm = np.linalg.norm(c)
            c = c / norm * 1.45 if norm > 1e-6 else np.array([0.0, 0.0])
        else:
            c = np.array([1.4, 1.4])
        pos[model.names[v]] = tuple(c)
    return pos


def _arrow(ax, p, q, color="k", style="-|>", ls="-", rad=0.0, lw=1.4, shrink=13, z=2):
    ax.add_patch(FancyArrowPatch(p, q, arrowstyle=style, mutation_scale=12, color=color, lw=lw, ls=ls,
                                 shrinkA=shrink, shrinkB=shrink, connectionstyle=f"arc3,rad={rad}", zorder=z))


def _nodes(ax, pos, latent=(), size=520, fontsize=9):
    for n, (x, y) in pos.items():
        lat = n in latent
        ax.scatter([x], [y], s=size, marker="s" if lat else "o", facecolor="#f3f3f3" if lat else "white",
                   edgecolor="#555" if lat else "k", linestyle="--" if lat else "-", zorder=3, linewidths=1.3)
        ax.text(x, y, n, ha="center", va="center", fontsize=fontsize, zorder=4)
    xs = np.array([p[0] for p in pos.values()])
    ys = np.array([p[1] for p in pos.values()])
    ax.set_xlim(xs.min() - 0.35, xs.max() + 0.35)
    ax.set_ylim(ys.min() - 0.35, ys.max() + 0.35)
    ax.set_aspect("equal")
    ax.axis("off")


def draw_model(ax, model: PoissonBranchingSCM, pos=None, title: str | None = None, edge_labels: bool = False):
    """Draw the DAG: observed nodes as circles, latent nodes as dashed squares with dashed edges."""
    pos = pos or circle_layout(model)
    latent = {model.names[v] for v in np.flatnonzero(~model.observed)}
    for i, j in model.edges():
        u, v = model.names[i], model.names[j]
        lat = u in latent
        _arrow(ax, pos[u], pos[v], color="#777" if lat else "k", ls="--" if lat else "-")
        if edge_labels:
            mx, my = (np.array(pos[u]) + np.array(pos[v])) / 2
            ax.text(mx, my, f"{model.alpha[i, j]:.2f}", fontsize=7, color="#444", ha="center", va="center",
                    bbox={"fc": "white", "ec": "none", "pad": 0.5}, zorder=2.5)
    _nodes(ax, pos, latent)
    if title:
        ax.set_title(title)
    return pos


def draw_learned(ax, learned, pos: dict, model: PoissonBranchingSCM | None = None, title: str | None = None):
    """Draw a learned mixed graph: directed arrows, bidirected dashed arcs (latent confounding),
    grey lines (adjacent, undetermined). With ``model``, correct marks are blue, wrong ones red."""
    truth = true_pair_states(model) if model is not None else None
    names = learned.names
    for (i, j), s in sorted(learned.states.items()):
        if not s.adjacent:
            if truth is not None and truth[(i, j)].adjacent:
                _arrow(ax, pos[names[i]], pos[names[j]], color="#bbb", style="-", ls=":", lw=1.0)
            continue
        t = truth[(i, j)] if truth is not None else None
        u, v = pos[names[i]], pos[names[j]]
        if s.direction in ("->", "<-"):
            ok = t is None or t.direction == s.direction
            a, b = (u, v) if s.direction == "->" else (v, u)
            _arrow(ax, a, b, color=PALETTE[0] if ok else PALETTE[3])
        elif s.direction == "?":
            _arrow(ax, u, v, color="#999", style="-", lw=1.2)
        if s.latent is True:
            ok = t is None or t.latent
            _arrow(ax, u, v, color=PALETTE[0] if ok else PALETTE[3], style="<|-|>", ls="--", rad=0.25, lw=1.1)
    _nodes(ax, {n: pos[n] for n in names})
    if title:
        ax.set_title(title, fontsize=10)


def _trie_positions(trie):
    kids = [trie.children(t) for t in range(len(trie))]
    x = {}
    counter = [0]

    def place(t):
        if not kids[t]:
            x[t] = counter[0]
            counter[0] += 1
        else:
            for c in kids[t]:
                place(c)
            x[t] = float(np.mean([x[c] for c in kids[t]]))

    place(0)
    return {t: (x[t], -trie.depth(t)) for t in range(len(trie))}


def draw_trie(ax, trie, title: str | None = None):
    """Draw the path trie of one source: one box per directed path, labelled by the node it ends at;
    edges labelled by their thinning probability."""
    pos = _trie_positions(trie)
    model = trie.model
    for t in range(1, len(trie)):
        p, q = pos[trie.parent[t]], pos[t]
        ax.plot([p[0], q[0]], [p[1], q[1]], color="#666", lw=1.2, zorder=1)
        ax.text((p[0] + q[0]) / 2, (p[1] + q[1]) / 2, f"α={trie.alpha[t]:.2f}", fontsize=7, ha="center",
                va="center", bbox={"fc": "white", "ec": "none", "pad": 0.3}, zorder=2)
    for t, (x, y) in pos.items():
        v = trie.end(t)
        obs = bool(model.observed[v])
        ax.text(x, y, trie.label(t), ha="center", va="center", fontsize=8, zorder=3,
                bbox={"boxstyle": "round,pad=0.3", "fc": "white" if obs else "#eee", "ec": "k" if obs else "#777",
                          "ls": "-" if obs else "--"})
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ax.set_xlim(min(xs) - 0.9, max(xs) + 0.9)
    ax.set_ylim(min(ys) - 0.5, max(ys) + 0.5)
    ax.axis("off")
    if title:
        ax.set_title(title)


def plot_cascade(model: PoissonBranchingSCM, root: str, pos=None):
    """The graph (left) and the trie of all directed paths from ``root`` (right)."""
    trie = build_trie(model, root)
    fig, (a1, a2) = new_figure(1, 2, width=10, height=3.8, gridspec_kw={"width_ratios": [1, 1.6]})
    draw_model(a1, model, pos=pos, edge_labels=True, title="branching graph (dashed: latent)")
    draw_trie(a2, trie, title=f"trie of the paths from {root}: {len(trie)} paths")
    return fig


def plot_monomials(model: PoissonBranchingSCM, max_paths: int = 3):
    """Every monomial of log G with its coefficient, split by the source whose cascades create it,
    and the activated paths of its largest contribution."""
    coef = log_pgf_coefficients(model)
    origins = monomial_origins(model)
    mons = sorted(coef, key=lambda m: (sum(m), m))
    sources = sorted({o["source"] for m in mons for o in origins[m]}, key=model.names.index)
    colors = {s: PALETTE[k % len(PALETTE)] for k, s in enumerate(sources)}
    fig, ax = new_figure(1, 1, width=10, height=0.36 * len(mons) + 1.2)
    y = np.arange(len(mons))[::-1]
    for yy, m in zip(y, mons):
        left = 0.0
        for s in sources:
            w = sum(o["weight"] for o in origins[m] if o["source"] == s)
            if w > 0:
                ax.barh(yy, w, left=left, color=colors[s], height=0.7)
                left += w
        top = max(origins[m], key=lambda o: o["weight"])
        paths = [p for p in top["paths"] if "→" in p][:max_paths]
        extra = len(origins[m]) - 1
        ax.text(left + 0.01, yy, f"{top['source']}: " + ", ".join(paths or [top["source"]])
                + (f"  (+{extra} more)" if extra else ""), va="center", fontsize=7.5)
    ax.set_yticks(y)
    ax.set_yticklabels(["$" + format_monomial(model, m, latex=True) + "$" for m in mons], fontsize=9)
    ax.set_xlabel("coefficient $c_\\beta$ in $\\log G$ (expected number of cascades with this pattern)")
    ax.set_xlim(0, max(coef.values()) * 2.2)
    from matplotlib.patches import Patch

    handles = [Patch(color=colors[s], label=f"source {s}" + (" (latent)" if not model.observed[model.names.index(s)] else ""))
               for s in sources]
    ax.legend(handles=handles, loc="lower right")
    ax.set_title(f"{len(mons)} monomials of log G: each is a pattern one exogenous unit can leave")
    return fig


def _mini_dag(ax, struct, color="k"):
    pos = {0: (0.0, 1.0), 1: (-0.9, -0.5), 2: (0.9, -0.5)}
    for u, v in struct.edges:
        _arrow(ax, pos[u], pos[v], color=color, shrink=7, lw=1.1)
    for s in struct.latents:
        if len(s) == 2:
            _arrow(ax, pos[s[0]], pos[s[1]], color=PALETTE[3], style="<|-|>", ls="--", rad=0.35, shrink=7, lw=0.9)
        else:
            ax.text(0, 0.1, "L", color=PALETTE[3], ha="center", va="center", fontsize=7)
    for k, (x, y) in pos.items():
        ax.scatter([x], [y], s=90, facecolor="white", edgecolor="k", zorder=3, linewidths=0.8)
        ax.text(x, y, NODE_NAMES[k], fontsize=6, ha="center", va="center", zorder=4)
    ax.set_xlim(-1.4, 1.4)
    ax.set_ylim(-1.0, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")


def plot_latent_free_classes(table: IdentifiabilityTable):
    """The latent-free DAGs over three variables in their monomial-equivalence classes (columns)."""
    classes = table.latent_free_classes()
    rows = max(len(c) for c in classes)
    fig, axes = new_figure(rows, len(classes), width=11, height=1.15 * rows + 0.6)
    for col, members in enumerate(classes):
        for row in range(rows):
            ax = axes[row, col]
            if row < len(members):
                _mini_dag(ax, table.structures[members[row]], color="k" if len(members) > 1 else PALETTE[0])
            else:
                ax.axis("off")
        axes[0, col].set_title("identified" if len(members) == 1 else f"{len(members)} alike", fontsize=8,
                               color=PALETTE[0] if len(members) == 1 else "#333")
    n_dags = sum(len(c) for c in classes)
    fig.suptitle(f"Without latents: {n_dags} DAGs fall into {len(classes)} classes of equal PGF support (columns)",
                 fontsize=11)
    return fig


def plot_identifiability(table: IdentifiabilityTable):
    """Class size of every local structure: rows are the 25 DAGs, columns the 16 latent
    configurations; 1 (dark) = identified up to monomial equivalence."""
    sizes = table.class_size().reshape(25, 16)
    fig, ax = new_figure(1, 1, width=10, height=8.2)
    im = ax.imshow(np.log2(sizes), cmap="viridis_r", aspect="auto", vmin=0, vmax=np.log2(sizes.max()))
    for r in range(25):
        for c in range(16):
            ax.text(c, r, str(sizes[r, c]), ha="center", va="center", fontsize=6.5,
                    color="white" if sizes[r, c] <= 2 else "black")
    labels = []
    for m in range(16):
        lat = [LATENT_SETS[k] for k in range(4) if m >> k & 1]
        labels.append(" ".join("L" + "".join(NODE_NAMES[i] for i in s) for s in lat) or "none")
    ax.set_xticks(range(16))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(25))
    ax.set_yticklabels([table.structures[16 * d].name for d in range(25)], fontsize=7)
    ax.set_xlabel("latent confounders")
    ax.set_ylabel("DAG over the observed A, B, C")
    ax.grid(False)
    cnt = table.counts()
    ax.set_title(f"{cnt['classes']} classes over {cnt['structures']} local structures; "
                 f"{cnt['singletons']} identified (class size 1)")
    cb = fig.colorbar(im, ax=ax, shrink=0.6)
    ticks = [1, 2, 4, 8]
    cb.set_ticks(np.log2(ticks))
    cb.set_ticklabels([str(t) for t in ticks])
    cb.set_label("structures sharing the support")
    return fig


def plot_pgf_check(res, crit: float | None = None):
    """Closed form against samples, and the standardised gaps of the closed form and of the
    latent-ignoring PGF (``crit``: the Bonferroni bound of claim 1)."""
    fig, (a1, a2) = new_figure(1, 2, width=9.5, height=3.6)
    a1.scatter(res.closed.ravel(), res.empirical.ravel(), s=14, label="closed form")
    a1.scatter(res.alternative.ravel(), res.empirical.ravel(), s=10, marker="x", color=PALETTE[3],
               label="latent-ignoring PGF")
    lim = [0, max(res.closed.max(), res.empirical.max()) * 1.05]
    a1.plot(lim, lim, color="#888", lw=1)
    a1.set_xlabel("$G(z)$ from the formula")
    a1.set_ylabel("empirical PGF")
    a1.legend(fontsize=8)
    a1.set_title(f"{res.closed.size} points, N = {res.n:,}")
    z, za = np.abs(res.z).ravel(), np.abs(res.z_alternative).ravel()
    bins = np.logspace(-2, np.log10(max(za.max(), z.max()) * 1.2), 30)
    a2.hist(z, bins=bins, color=PALETTE[0], alpha=0.8, label="closed form")
    a2.hist(za, bins=bins, color=PALETTE[3], alpha=0.6, label="latent-ignoring PGF")
    if crit is not None:
        a2.axvline(crit, color="k", ls="--", lw=1, label=f"Bonferroni bound {crit:.2f}")
    a2.set_xscale("log")
    a2.set_xlabel("|formula − empirical| / standard error")
    a2.set_ylabel("points")
    a2.legend(fontsize=8)
    a2.set_title(f"largest |z|: {z.max():.2f} (closed form), {za.max():.0f} (latent-ignoring)")
    return fig


def plot_chain(res):
    fig, ax = new_figure(1, 1, width=7, height=3.6)
    bins = np.linspace(0, 1, 21)
    ax.hist(res.p_chain, bins=bins, alpha=0.75, label="i→c→j, given $X_c=0$", color=PALETTE[0])
    ax.hist(np.clip(res.p_direct, 0, 1), bins=bins, alpha=0.75, label="with extra edge i→j, given $X_c=0$",
            color=PALETTE[3])
    ax.axvline(res.level, color="k", ls=":", lw=1)
    ax.set_xlabel("p-value of $\\mathrm{Cov}(X_i,X_j\\mid X_c=0)>0$")
    ax.set_ylabel("runs")
    ax.legend()
    ax.set_title(f"given $X_c=0$: {res.accept_rate:.0%} of chains accepted, "
                 f"{res.reject_rate:.0%} rejected with the edge")
    return fig


def plot_sink(res):
    """Per motif: the fraction of runs whose set of nodes called over-dispersed is the true set."""
    motifs = list(dict.fromkeys(res.motif))
    exact = np.asarray(res.exact)
    names = np.asarray(res.motif)
    acc = [float(exact[names == m].mean()) for m in motifs]
    k_true = [int(res.truth[names == m][0].sum()) for m in motifs]
    fig, ax = new_figure(1, 1, width=9, height=3.8)
    colors = [PALETTE[k] for k in k_true]
    ax.barh(np.arange(len(motifs)), acc, color=colors)
    ax.set_yticks(np.arange(len(motifs)))
    ax.set_yticklabels([f"{m}  ({k} over-dispersed)" for m, k in zip(motifs, k_true)], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.02)
    ax.set_xlabel("runs with exactly the true over-dispersed set")
    ax.set_title(f"{len(res.motif)} runs: exact set in {exact.mean():.0%}, lowest motif {min(acc):.0%}")
    return fig


def plot_local_recovery(res):
    fig, (a1, a2) = new_figure(1, 2, width=10, height=3.6)
    ns = np.array(res.ns)
    a1.plot(ns, res.contains_truth, "o-", label="best matches contain the true structure")
    a1.plot(ns, res.exact_class, "s-", label="best matches = the true class")
    a1.set_xscale("log")
    a1.set_ylim(0, 1.02)
    a1.set_xlabel("samples N")
    a1.set_ylabel(f"fraction of {res.n_structures} local structures")
    a1.legend()
    a1.set_title("reading the table from data")
    a2.plot(ns, res.feature_error[:, 0], "o-", color=PALETTE[3], label="present monomial missed")
    a2.plot(ns, res.feature_error[:, 1], "s-", color=PALETTE[2], label="absent monomial detected")
    a2.set_xscale("log")
    a2.set_xlabel("samples N")
    a2.set_ylabel("error rate of a support query")
    a2.legend()
    a2.set_title(f"at N = {ns[-1]:,}: {res.feature_error[-1, 0]:.0%} of present monomials missed, "
                 f"{res.feature_error[-1, 1]:.1%} of absent ones detected", fontsize=9)
    return fig


def plot_recovery(summary: list[dict], x: str, xlabel: str, logx: bool = False):
    """Directed-edge F1, SHD and latent-edge F1 against ``x`` for every method (mean ± s.e.)."""
    fig, axes = new_figure(1, 3, width=13, height=4.6)
    metrics = (("directed_f1", "directed-edge F1"), ("shd", "SHD (mixed graph)"), ("latent_f1", "latent-edge F1"))
    methods = [m for m in METHODS if any(r["method"] == m for r in summary)]
    for ax, (key, label) in zip(axes, metrics):
        for m in methods:
            rows = sorted((r for r in summary if r["method"] == m), key=lambda r: r[x])
            xs = np.array([r[x] for r in rows], dtype=float)
            ys = np.array([r[key] for r in rows])
            se = np.array([r[key + "_se"] for r in rows])
            if np.all(np.isnan(ys)):
                continue
            ax.errorbar(xs, ys, yerr=np.nan_to_num(se), marker="o", ms=4, capsize=2, label=m,
                        color=METHOD_COLORS.get(m), lw=2.2 if m == METHODS[0] else 1.2)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(label)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    axes[0].set_title("directed edges")
    axes[1].set_title("structural Hamming distance")
    axes[2].set_title("latent-confounded pairs")
    top = max(r[x] for r in summary)
    at_top = {r["method"]: r["directed_f1"] for r in summary if r[x] == top and np.isfinite(r["directed_f1"])}
    if METHODS[0] in at_top and len(at_top) > 1:
        rival = max((m for m in at_top if m != METHODS[0]), key=at_top.get)
        fig.suptitle(f"At {xlabel} = {top:g}: directed-edge F1 {at_top[METHODS[0]]:.2f} for {METHODS[0]}, "
                     f"best other {rival} {at_top[rival]:.2f}", fontsize=11)
    return fig


def plot_e2e(summary: list[dict]):
    """Bars per method: directed-edge precision, recall, F1 and spurious directed edges on
    confounded pairs."""
    metrics = (("directed_precision", "precision"), ("directed_recall", "recall"), ("directed_f1", "F1"),
               ("spurious_on_confounded", "spurious edge on\nconfounded pair"))
    methods = [r["method"] for r in summary]
    fig, ax = new_figure(1, 1, width=11, height=4.6)
    w = 0.8 / len(methods)
    for k, r in enumerate(summary):
        xs = np.arange(len(metrics)) + (k - (len(methods) - 1) / 2) * w
        ys = [r[m] for m, _ in metrics]
        es = [r[m + "_se"] for m, _ in metrics]
        ax.bar(xs, ys, width=w, yerr=np.nan_to_num(es), capsize=2, label=r["method"],
               color=METHOD_COLORS.get(r["method"]))
    ax.set_xticks(np.arange(len(metrics)))
    ax.set_xticklabels([lab for _, lab in metrics])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean over graphs")
    ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    ours = next((r for r in summary if r["method"] == METHODS[0]), None)
    best = max(summary, key=lambda r: r["directed_f1"] if np.isfinite(r["directed_f1"]) else -np.inf)
    if ours is not None:
        ax.set_title(f"Directed-edge F1: {METHODS[0]} {ours['directed_f1']:.2f} (spurious arrows on confounded pairs "
                     f"{ours['spurious_on_confounded']:.2f}); highest F1 {best['method']} {best['directed_f1']:.2f}",
                     fontsize=10)
    else:
        ax.set_title("directed edges, and arrows drawn between pairs that only share a latent parent (right)")
    return fig


def plot_learned_vs_true(model: PoissonBranchingSCM, learned: list):
    """The true graph and several learned graphs on the same layout."""
    pos = circle_layout(model)
    fig, axes = new_figure(1, 1 + len(learned), width=3.4 * (1 + len(learned)), height=3.6)
    axes = np.atleast_1d(axes)
    draw_model(axes[0], model, pos=pos, title="truth (dashed: latent)")
    for ax, g in zip(axes[1:], learned):
        draw_learned(ax, g, pos, model=model, title=g.method)
    return fig
