"""Figures of the midtraining chapter (Liu, Neubig, Xiong, ICML 2026, arXiv 2510.14865 v2).

Every function takes results of :mod:`.analysis` / :mod:`.similarity` and returns a pyplot-free matplotlib
``Figure`` in the book's style, or a plotly figure for the grid heatmaps (hover shows each cell). Titles are
computed from the data passed in; nothing here decides a claim.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from ...runtime.style import PALETTE, new_figure
from . import data as D
from .analysis import Study
from .similarity import PAPER_SIMILARITY, SimilarityResult, paper_similarity

__all__ = ["similarity_figure", "general_loss_figure", "ri_figure", "pa_ri_figure", "grid_figure", "sft_curves_figure"]

LABELS = {"general": "general", "code": "code (mid)", "math": "math (mid)", "code_sft": "code SFT",
          "math_sft": "math SFT", "general_sft": "general SFT"}


def _mean_ci(v: np.ndarray, axis: int = 0):
    v = np.asarray(v, dtype=float)
    n = v.shape[axis]
    m = v.mean(axis)
    if n < 2:
        return m, np.zeros_like(m)
    return m, sps.t.ppf(0.975, n - 1) * v.std(axis, ddof=1) / np.sqrt(n)


def similarity_figure(sim: SimilarityResult):
    """Left: our combined similarity matrix; right: the paper's transcribed pairs (its numbers, labelled)."""
    fig, (a, b) = new_figure(1, 2, width=11.5, height=4.6)
    names = sim.names
    im = a.imshow(sim.sim, vmin=0, vmax=1, cmap="viridis")
    a.set_xticks(range(len(names)), [LABELS[n] for n in names], rotation=40, ha="right")
    a.set_yticks(range(len(names)), [LABELS[n] for n in names])
    for i in range(len(names)):
        for j in range(len(names)):
            a.text(j, i, f"{sim.sim[i, j]:.2f}", ha="center", va="center", fontsize=8,
                   color="white" if sim.sim[i, j] < 0.6 else "black")
    a.set_title(f"Ours: ½({'MiniLM-L6' if sim.embedder == 'minilm' else 'LSA'} centroid cos + char n-gram cos)")
    fig.colorbar(im, ax=a, fraction=0.046, label="similarity")
    pairs = list(PAPER_SIMILARITY)
    vals = [paper_similarity(*p) for p in pairs]
    y = np.arange(len(pairs))
    b.barh(y, vals, color=PALETTE[0])
    b.set_yticks(y, [f"{p[0]} – {p[1]}" for p in pairs])
    b.invert_yaxis()
    b.set_xlim(0, 1)
    b.set_xlabel("combined similarity (paper's numbers)")
    b.set_title("Paper (transcribed in its public code)")
    fig.suptitle(f"Similarity of general text to the SFT targets in our corpora: general SFT "
                 f"{sim.sim[0, names.index('general_sft')]:.2f}, code SFT {sim.sim[0, names.index('code_sft')]:.2f}, "
                 f"math SFT {sim.sim[0, names.index('math_sft')]:.2f}")
    return fig


def general_loss_figure(study: Study, domain: str = "code"):
    """General validation loss along pretraining: general-only, midtraining, CPT and the mixture from step 0 of
    ``domain`` (mean and 95 % interval over replicates), t0 dotted."""
    cfg = study.cfg
    fig, ax = new_figure(1, 1, width=7.5, height=4.2)
    ends = {}
    for key, label, c in ((study.base_key(), "general only", PALETTE[7]),
                          (study.mid_key(domain), f"midtraining ({domain}, w = {cfg.w_main:g})", PALETTE[0]),
                          (study.cpt_key(domain), f"CPT ({domain} only)", PALETTE[3]),
                          (study.mix0_key(domain), f"mixture from step 0 ({domain}, w = {cfg.w_main:g})", PALETTE[4])):
        if key not in study.replicates[0].branches:
            continue
        s, v = study.general_curve(key)
        m, h = _mean_ci(v)
        ax.plot(s, m, color=c, label=label)
        ax.fill_between(s, m - h, m + h, color=c, alpha=0.2)
        ends[label] = m[-1]
    ax.axvline(cfg.t0_main, ls=":", color="grey")
    ax.set_xlabel("update")
    ax.set_ylabel("general validation loss (nats/token)")
    lo = min(np.min(study.general_curve(study.base_key())[1][:, -1]), min(ends.values()))
    ax.set_ylim(lo - 0.3, lo + 2.5)
    ax.legend()
    worst = max(ends, key=ends.get)
    ax.set_title(f"After t0 = {cfg.t0_main}, {worst} ends highest on general text ({ends[worst]:.2f} nats)")
    return fig


def ri_figure(study: Study):
    """RI on each SFT target of midtraining on code and math, and on its own target of CPT, of the mixture from step
    0 and (code only) of SFT with replay, mean and 95 % interval over replicates."""
    fig, ax = new_figure(1, 1, width=9.5, height=4.4)
    width = 0.16
    x = np.arange(len(D.TARGETS))
    best = ("", -np.inf)
    for i, d in enumerate(D.DOMAINS):
        vals = np.stack([study.ri(study.mid_key(d), t) for t in D.TARGETS], 1)
        m, h = _mean_ci(vals)
        ax.bar(x + (i - 2) * width, m, width, yerr=h, color=PALETTE[i], label=f"midtraining: {d}")
        for t, mm in zip(D.TARGETS, m):
            if mm > best[1]:
                best = (f"{d} midtraining → {LABELS[t]}", mm)
    own = [D.TARGETS.index(f"{d}_sft") for d in D.DOMAINS]
    anchors = [("CPT (own target)", lambda d: study.cpt_key(d), PALETTE[3], 0),
               ("mixture from step 0 (own target)", lambda d: study.mix0_key(d), PALETTE[4], 1)]
    for label, key, c, off in anchors:
        have = [d for d in D.DOMAINS if (key(d), f"{d}_sft") in study.replicates[0].sft]
        if not have:
            continue
        m, h = _mean_ci(np.stack([study.ri(key(d), f"{d}_sft") for d in have], 1))
        ax.bar([own[D.DOMAINS.index(d)] + off * width for d in have], m, width, yerr=h, color=c, label=label)
    if (study.base_key(), "code_sft+replay") in study.replicates[0].sft:
        m, h = _mean_ci(study.ri(study.base_key(), "code_sft+replay", base_target="code_sft")[:, None])
        ax.bar([D.TARGETS.index("code_sft") + 2 * width], m, width, yerr=h, color=PALETTE[5],
               label="general only, SFT with replay")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, [LABELS[t] for t in D.TARGETS])
    ax.set_ylabel("relative improvement over general-only")
    ax.legend(fontsize=8)
    ax.set_title(f"Largest mean RI of midtraining: {best[0]} ({best[1]:+.3f})")
    return fig


def pa_ri_figure(pa: np.ndarray, ri: np.ndarray, targets, fit=None):
    """RI against PA for every (domain, target, replicate) point, coloured by target, with the mixed model's slope."""
    fig, ax = new_figure(1, 1, width=7, height=4.2)
    targets = np.asarray(targets)
    for i, t in enumerate(D.TARGETS):
        sel = targets == t
        ax.scatter(np.asarray(pa)[sel], np.asarray(ri)[sel], color=PALETTE[i], label=LABELS[t])
    if fit is not None:
        xs = np.linspace(np.min(pa), np.max(pa), 20)
        ax.plot(xs, np.mean(ri) + fit.slope * (xs - np.mean(pa)), color="black", ls="--",
                label=f"mixed-model slope {fit.slope:+.3f}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("proximity advantage PA = dist(general, S) − dist(M, S)")
    ax.set_ylabel("RI after SFT")
    ax.legend(fontsize=8)
    r = np.corrcoef(pa, ri)[0, 1] if np.ptp(pa) > 0 and np.ptp(ri) > 0 else 0.0
    ax.set_title(f"RI against PA, pooled Pearson r = {r:+.2f}")
    return fig


def grid_figure(study: Study, schedules=("cosine", "wsd")):
    """Heatmaps of mean RI on code SFT over the t0 x w grid, one per schedule (plotly)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    have = [s for s in schedules if s == "cosine" or study.cfg.wsd_grid]
    fig = make_subplots(1, len(have), subplot_titles=[f"{s} schedule" for s in have], horizontal_spacing=0.12)
    zs = [study.grid(s).mean(0) for s in have]
    lim = max(1e-6, max(float(np.abs(z).max()) for z in zs))
    for i, (s, z) in enumerate(zip(have, zs)):
        fig.add_trace(go.Heatmap(z=z, x=[f"w={w:g}" for w in study.cfg.grid_w], y=[f"t0={t}" for t in study.cfg.grid_t0],
                                 zmin=-lim, zmax=lim, colorscale="RdBu", showscale=i == len(have) - 1,
                                 text=np.round(z, 3), texttemplate="%{text}",
                                 hovertemplate="%{y}, %{x}: RI %{z:.4f}<extra>" + s + "</extra>"), 1, i + 1)
    best = ", ".join(f"{s}: " + "; ".join(f"t0={t0} → w={w:g}" for t0, w in zip(study.cfg.grid_t0, study.best_w(s)))
                     for s in have)
    # no fixed width: the figure takes its column's width (900 px was clipped on the site's 690 px column)
    fig.update_layout(title=f"Mean RI on code SFT over the t0 × w grid<br>best w per row — {best}", height=400,
                      margin=dict(t=90), template="simple_white")
    return fig


def sft_curves_figure(study: Study, target: str = "code_sft"):
    """The target's validation loss along SFT for the general-only, midtrained, CPT and mixture-from-step-0 models
    (the curves the plateau test reads)."""
    fig, ax = new_figure(1, 1, width=7, height=4)
    dom = target.split("_")[0]
    keys = [(study.base_key(), "general only", PALETTE[7])]
    if dom in D.DOMAINS:
        keys += [(study.mid_key(dom), f"midtraining ({dom})", PALETTE[0]), (study.cpt_key(dom), f"CPT ({dom})", PALETTE[3]),
                 (study.mix0_key(dom), f"mixture from step 0 ({dom})", PALETTE[4])]
        keys = [k for k in keys if (k[0], target) in study.replicates[0].sft]
    finals = {}
    for key, label, c in keys:
        s, v = study.sft_curves(key, target)
        m, h = _mean_ci(v)
        ax.plot(s, m, color=c, label=label, marker="o", ms=3)
        ax.fill_between(s, m - h, m + h, color=c, alpha=0.2)
        finals[label] = m[-1]
    ax.set_xlabel("SFT update")
    ax.set_ylabel(f"{LABELS[target]} validation loss (nats/token)")
    ax.legend()
    best = min(finals, key=finals.get)
    ax.set_title(f"SFT on {LABELS[target]}: {best} ends lowest ({finals[best]:.3f})")
    return fig
