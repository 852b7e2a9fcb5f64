"""Figures of the Surgery chapter (Liu et al., ICML 2026, arXiv 2602.05228).

Every function takes the results of :mod:`.experiments` and returns a pyplot-free matplotlib ``Figure`` in the
book's style (or a plotly figure where hovering helps). Titles state what the data show and are computed from
the data passed in; nothing here decides a claim.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator
from scipy import stats as sps

from ...runtime.style import PALETTE, new_figure
from .experiments import BaseAnalysis, Study, Timing
from .train import FineTuneRun

__all__ = ["attention_maps_figure", "sink_strength_figure", "divergence_figure", "positive_heads_figure",
           "dose_figure", "lambda_figure", "ablation_figure", "heldout_penalty_figure", "timing_figure",
           "run_curves_figure", "ABLATION_ORDER"]

C_SFT, C_SURG = PALETTE[3], PALETTE[0]


def _mean_ci(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean and half-width of the 95 % t-interval along ``axis`` (half-width 0 with one replicate)."""
    v = np.asarray(values, dtype=float)
    n = v.shape[axis]
    m = v.mean(axis)
    if n < 2:
        return m, np.zeros_like(m)
    return m, sps.t.ppf(0.975, n - 1) * v.std(axis, ddof=1) / np.sqrt(n)


def attention_maps_figure(a: BaseAnalysis, which: str = "disclose"):
    """Attention probabilities of every head on one held-out text (rows: query, columns: key)."""
    A = a.maps[which]                      # (L, H, T, T)
    toks = a.maps[which + "_tokens"]
    L, H, T, _ = A.shape
    fig, axes = new_figure(L, H, width=2.3 * H + 0.6, height=2.25 * L + 0.6, squeeze=False)
    col0 = np.array([[A[l, h, 1:, a.sink].mean() for h in range(H)] for l in range(L)])
    for l in range(L):
        for h in range(H):
            ax = axes[l][h]
            ax.imshow(A[l, h], cmap="viridis", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
            ax.set_title(f"layer {l} head {h}: {col0[l, h]:.0%} to key {a.sink}", fontsize=8)
            ax.set_xticks([]), ax.set_yticks([])
            ax.grid(False)
    for l in range(L):
        axes[l][0].set_ylabel("query position", fontsize=8)
    for h in range(H):
        axes[-1][h].set_xlabel("key position", fontsize=8)
    text = "".join(toks)
    fig.suptitle(f"Attention on one held-out text ({'disclosure' if which == 'disclose' else 'refusal'}): "
                 f"on average {col0.mean():.0%} of each query's attention goes to key {a.sink}\n"
                 f"{text[:110]}", fontsize=9.5)
    return fig


def sink_strength_figure(study: Study):
    """Mean sink attention per head (mean over replicates) and each head's most-attended key."""
    alpha = np.stack([r.analysis.alpha for r in study.replicates])           # (R, L, H)
    argmax = np.stack([r.analysis.argmax for r in study.replicates])
    sink = study.replicates[0].analysis.sink
    L, H = alpha.shape[1:]
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.4)
    m = alpha.mean(0)
    im = ax.imshow(m, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for l in range(L):
        for h in range(H):
            ax.text(h, l, f"{m[l, h]:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if m[l, h] < 0.6 else "black")
    ax.set(xticks=range(H), yticks=range(L), xlabel="head", ylabel="layer")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label=f"mean attention to key {sink}")
    u = float(np.mean([r.analysis.uniform[sink] for r in study.replicates]))
    ax.set_title(f"Sink attention α_h at key {sink}: {m.min():.2f}–{m.max():.2f} (uniform attention: {u:.2f})")
    prof = np.stack([r.analysis.profile / np.maximum(r.analysis.uniform, 1e-12) for r in study.replicates]).mean(0)
    x = np.arange(prof.shape[-1])
    for l in range(L):
        for h in range(H):
            ax2.plot(x, prof[l, h], color=PALETTE[l % len(PALETTE)], lw=1, alpha=0.8,
                     label=f"layer {l}" if h == 0 else None)
    ax2.axhline(1.0, color="0.3", lw=0.8, ls=":")
    share = float(np.mean(argmax == sink))
    ax2.set(xlabel="key position", ylabel="attention received / uniform", yscale="log",
            title=f"Key {sink} gets {prof[..., sink].min():.1f}–{prof[..., sink].max():.1f}× uniform; "
                  f"most-attended for {share:.0%} of heads")
    ax2.legend()
    return fig


def divergence_figure(analyses: list[BaseAnalysis], delta: float):
    """Per-head held-out sink divergence of the aligned model with its bootstrap interval, and the histogram."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.6)
    pos = neg = 0
    for r, a in enumerate(analyses):
        ci = a.divergence
        d, lo, hi = ci.d.ravel(), ci.lo.ravel(), ci.hi.ravel()
        x = np.arange(d.size) + 0.8 * (r / max(1, len(analyses)) - 0.4)
        col = np.where(lo > delta, PALETTE[3], np.where(hi < -delta, PALETTE[0], "0.55"))
        ax.errorbar(x, d, yerr=[d - lo, hi - d], fmt="none", ecolor="0.6", lw=1)
        ax.scatter(x, d, c=col, s=14, zorder=3)
        pos += int((lo > delta).sum())
        neg += int((hi < -delta).sum())
    n_heads = analyses[0].divergence.d.size
    for s in (delta, -delta):
        ax.axhline(s, color="0.4", ls=":", lw=0.8)
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set(xlabel="head (layer-major index)", ylabel="sink divergence d_h (attention mass)",
           title=f"{pos} clearly positive, {neg} clearly negative head(s) over {len(analyses)} aligned model(s)")
    allv = np.concatenate([a.divergence.d.ravel() for a in analyses])
    null = np.concatenate([a.null.d.ravel() for a in analyses])
    bins = np.linspace(min(allv.min(), null.min()), max(allv.max(), null.max()), 25)
    ax2.hist(allv, bins=bins, color=PALETTE[0], alpha=0.75, label="disclosure − refusal")
    ax2.hist(null, bins=bins, color="0.6", alpha=0.6, label="labels shuffled (no contrast)")
    ax2.axvline(0, color="0.3", lw=0.8)
    ax2.set(xlabel="sink divergence d_h (attention mass)", ylabel="heads",
            title=f"N+ = {int((allv > 0).sum())} of {allv.size} heads positive ({n_heads} per model)")
    ax2.yaxis.set_major_locator(MaxNLocator(integer=True))   # counts of heads
    ax2.legend()
    return fig


def positive_heads_figure(study: Study, rho: list[float] | None = None):
    """N+ against the disclosure rate along plain SFT at every poison ratio, and N+ along training."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.6)
    for j, p in enumerate(study.p_grid):
        key = study.key("sft", p)
        runs = study.runs(key)
        c = PALETTE[j % len(PALETTE)]
        for i, run in enumerate(runs):
            jitter = 0.08 * (i - (len(runs) - 1) / 2)
            ax.scatter(run.disclosure, run.n_plus + jitter, color=c, s=16, alpha=0.8, label=f"p = {p:g}" if i == 0 else None)
        steps, npl = study.curves(key, "n_plus")
        m, h = _mean_ci(npl)
        ax2.errorbar(steps, m, yerr=h, color=c, marker="o", ms=3, capsize=2, label=f"p = {p:g}")
    ax.set(xlabel="disclosure rate (sealed evaluation vaults)", ylabel="N+ (heads with d_h > 0, held-out pairs)")
    ttl = "N+ against disclosure along plain SFT"
    if rho is not None and len(rho):
        ttl = f"Spearman ρ(N+, disclosure) per replicate: {', '.join(f'{r:+.2f}' for r in rho)}"
    ax.set_title(ttl)
    ax.legend(title="poison ratio")
    ax2.set(xlabel="fine-tuning update", ylabel="N+ (mean over replicates)",
            title="N+ along plain SFT, by poison ratio")
    return fig


def dose_figure(study: Study):
    """Final disclosure rate and FA against the poison ratio, SFT and Surgery (mean and 95 % interval over the
    replicates that ran each point, which may differ by ratio; dots: the replicates)."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.6)
    ps = np.array(study.p_grid)
    finals = {}
    for method, color, label in (("sft", C_SFT, "SFT"), ("surgery", C_SURG, f"Surgery (λ = {study.lam:g})")):
        keys = [study.key(method, p) for p in ps]
        for ax_, metric in ((ax, "disclosure"), (ax2, "fa")):
            per_p = [study.final(k, metric) for k in keys]
            have = np.array([v.size > 0 for v in per_p])
            mh = [_mean_ci(v) if v.size else (np.nan, np.nan) for v in per_p]
            m, h = np.array([x[0] for x in mh], dtype=float), np.array([x[1] for x in mh], dtype=float)
            ax_.errorbar(ps[have], m[have], yerr=h[have], color=color, marker="o", capsize=3, label=label)
            for p, v in zip(ps, per_p):
                ax_.scatter(np.full(v.size, p), v, color=color, s=8, alpha=0.5, zorder=3)
            finals[(method, metric)] = m
    aligned = study.aligned("disclosure").mean()
    ax.axhline(aligned, color="0.4", ls=":", lw=0.9, label="aligned model")
    ax2.axhline(study.aligned("fa").mean(), color="0.4", ls=":", lw=0.9, label="aligned model")
    j = list(ps).index(study.p_main)
    ax.set(xlabel="poison ratio p", ylabel="disclosure rate", ylim=(-0.03, 1.03),
           title=(f"At p = {study.p_main:g}: SFT discloses {finals[('sft', 'disclosure')][j]:.0%}, "
                  f"Surgery {finals[('surgery', 'disclosure')][j]:.0%}"))
    ax2.set(xlabel="poison ratio p", ylabel="fine-tune accuracy (subtraction)", ylim=(-0.03, 1.03),
            title=(f"FA at p = {study.p_main:g}: SFT {finals[('sft', 'fa')][j]:.0%}, "
                   f"Surgery {finals[('surgery', 'fa')][j]:.0%}"))
    ax.legend(), ax2.legend()
    return fig


def lambda_figure(study: Study):
    """The λ sweep at p_main: disclosure and FA against λ, and the front of the two."""
    lams = np.array(sorted(study.lam_grid))
    keys = [study.key("surgery", lam=lam) for lam in lams]
    rows = [r for r in study.replicates if all(k in r.runs for k in keys)]
    dis = np.array([[r.runs[k].disclosure[-1] for k in keys] for r in rows])
    fa = np.array([[r.runs[k].fa[-1] for k in keys] for r in rows])
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.6)
    x = np.log1p(lams)
    md, hd = _mean_ci(dis)
    mf, hf = _mean_ci(fa)
    ax.errorbar(x, md, yerr=hd, color=C_SURG, marker="o", capsize=3, label="disclosure rate")
    ax.errorbar(x, mf, yerr=hf, color=PALETTE[2], marker="s", capsize=3, label="fine-tune accuracy")
    ax.set_xticks(x, [f"{lam:g}" for lam in lams])
    ax.set(xlabel="λ (axis in ln(1 + λ); 0 = SFT)", ylabel="rate", ylim=(-0.03, 1.03),
           title=f"p = {study.p_main:g}: disclosure {md[0]:.0%} at λ = 0, {md.min():.0%} at best (λ = {lams[md.argmin()]:g})")
    ax.legend()
    ax2.plot(mf, md, color="0.5", lw=0.8)
    for j, lam in enumerate(lams):   # smaller markers on top, so that points at the same place all show
        ax2.scatter(mf[j], md[j], color=PALETTE[j % len(PALETTE)], s=40 + 45 * (len(lams) - 1 - j), zorder=3 + j,
                    label=f"λ = {lam:g}")
    ax2.set(xlabel="fine-tune accuracy (higher is better)", ylabel="disclosure rate (lower is better)",
            title="The λ trade-off front (means over replicates)")
    ax2.xaxis.set_major_locator(MaxNLocator(nbins=4))   # a narrow range otherwise gives overlapping tick labels
    ax2.legend(fontsize=7.5)
    return fig


ABLATION_ORDER = (("sft", "paper", "SFT"), ("surgery", "paper", "Surgery"), ("surgery", "opposite", "ReLU(−d)"),
                  ("surgery", "abs", "|d|"), ("surgery", "random_half", "random half"), ("replay", "paper", "replay"),
                  ("l2", "paper", "L2 anchor"))


def ablation_figure(study: Study):
    """Final disclosure and FA at p_main for every method run on the ablation replicates."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.6)
    labels, dm, fm = [], [], []
    for j, (method, mode, label) in enumerate(ABLATION_ORDER):
        key = study.key(method, mode=mode)
        runs = study.runs(key)
        if not runs:
            continue
        d = np.array([r.disclosure[-1] for r in runs])
        f = np.array([r.fa[-1] for r in runs])
        x = len(labels)
        for ax_, v, c in ((ax, d, C_SURG if method == "surgery" else PALETTE[5]), (ax2, f, PALETTE[2])):
            ax_.bar(x, v.mean(), color=c, alpha=0.8)
            ax_.scatter(np.full(v.size, x), v, color="k", s=10, zorder=3)
        labels.append(label)
        dm.append(d.mean())
        fm.append(f.mean())
    for ax_ in (ax, ax2):
        ax_.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    best = labels[int(np.argmin(dm))]
    ax.set(ylabel="disclosure rate", ylim=(0, 1.03), title=f"p = {study.p_main:g}: lowest disclosure: {best} ({min(dm):.0%})")
    ax2.set(ylabel="fine-tune accuracy", ylim=(0, 1.03), title=f"FA from {min(fm):.0%} to {max(fm):.0%}")
    return fig


def heldout_penalty_figure(study: Study):
    """The penalty's value on the held-out pairs (and N+) along SFT and Surgery at p_main, and along clean SFT
    (p = 0, dashed) where the profile runs it."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.4)
    out = {}
    arms = [(study.key("sft"), C_SFT, "SFT", "-"), (study.key("surgery"), C_SURG, "Surgery", "-")]
    if study.runs(study.key("sft", 0.0)):
        arms.insert(1, (study.key("sft", 0.0), C_SFT, "SFT, p = 0", "--"))
    for key, color, label, ls in arms:
        for ax_, metric in ((ax, "heldout_penalty"), (ax2, "n_plus")):
            steps, v = study.curves(key, metric)
            m, h = _mean_ci(v)
            ax_.errorbar(steps, m, yerr=h, color=color, marker="o", ms=3, capsize=2, label=label, ls=ls)
            out[(label, metric)] = m
    ax.set(xlabel="fine-tuning update", ylabel="mean_h ReLU(d_h) on held-out pairs",
           title=(f"Held-out penalty at the end: SFT {out[('SFT', 'heldout_penalty')][-1]:.1e}, "
                  f"Surgery {out[('Surgery', 'heldout_penalty')][-1]:.1e}"))
    ax2.set(xlabel="fine-tuning update", ylabel="N+ (held-out pairs)",
            title=f"N+ at the end: SFT {out[('SFT', 'n_plus')][-1]:.1f}, Surgery {out[('Surgery', 'n_plus')][-1]:.1f}")
    ax.legend(), ax2.legend()
    return fig


def timing_figure(t: Timing):
    fig, ax = new_figure(1, 1, width=5.2, height=3.2)
    for x, (v, label, c) in enumerate(((t.sft, "SFT", C_SFT), (t.surgery, "Surgery", C_SURG))):
        ax.bar(x, 1e3 * np.median(v), color=c, alpha=0.8)
        ax.scatter(np.full(v.size, x), 1e3 * v, color="k", s=10, zorder=3)
    ax.set_xticks([0, 1], ["SFT", "Surgery"])
    ax.set(ylabel="ms per update (wall clock)",
           title=f"Surgery / SFT: {np.median(t.ratio):.2f}× (median of {t.ratio.size} interleaved repeats)")
    return fig


def run_curves_figure(runs: dict[str, FineTuneRun], title: str):
    """Disclosure, FA and the held-out penalty along a few runs (the playground)."""
    fig, axes = new_figure(1, 3, width=11, height=3.2)
    for j, (label, run) in enumerate(runs.items()):
        c = PALETTE[j % len(PALETTE)]
        for ax, metric in zip(axes, ("disclosure", "fa", "heldout_penalty")):
            ax.plot(run.steps, getattr(run, metric), marker="o", ms=3, color=c, label=label)
    for ax, lab in zip(axes, ("disclosure rate", "fine-tune accuracy", "held-out mean_h ReLU(d_h)")):
        ax.set(xlabel="fine-tuning update", ylabel=lab)
    axes[0].legend()
    fig.suptitle(title, fontsize=11)
    return fig
