"""Figures of the dnaHNet chapter (pyplot-free matplotlib); titles are computed from the numbers they show."""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .chunking import ratio_loss

__all__ = ["ratio_loss_figure", "tokeniser_figure", "track_figure", "curves_figure", "compression_figure",
           "phase_figure", "timing_figure", "zero_shot_figure"]

NAMES = {"dnahnet": "dnaHNet-mini", "transformer": "Transformer", "mamba": "isotropic Mamba", "stride": "fixed stride", "fixed_router": "fixed router",
         "no_smoothing": "no smoothing", "no_ste": "no STE", "two_stage": "two-stage"}


def p_text(p: float) -> str:
    """'p = 3.1e-05', or 'p < 1e-300' where the value underflows to 0."""
    return "p < 1e-300" if p == 0 else f"p = {p:.1e}"


def ratio_loss_figure(N: float):
    """The ratio loss over (F, G) for target N, with its minimum along F = G."""
    import torch
    grid = np.linspace(0.01, 0.99, 99)
    Fm, Gm = np.meshgrid(grid, grid)
    vals = np.array([[float(ratio_loss(torch.tensor([f]), torch.tensor([g]), N)) for f in grid] for g in grid])
    # ratio_loss takes boundaries and probabilities; with one position the means are F and G themselves
    diag = np.array([float(ratio_loss(torch.tensor([f]), torch.tensor([f]), N)) for f in grid])
    fig, (a, b) = new_figure(1, 2, width=9.5, height=3.6)
    cs = a.contourf(Fm, Gm, vals, levels=20, cmap="viridis")
    fig.colorbar(cs, ax=a, label="ratio loss")
    a.plot([1 / N], [1 / N], "w*", ms=12)
    a.set(xlabel="F: fraction of positions that are boundaries", ylabel="G: mean boundary probability",
          title=f"N = {N:g}: the G-gradient changes sign at F = 1/N")
    b.plot(grid, diag, color=PALETTE[0])
    i = int(np.argmin(diag))
    b.axvline(1 / N, color=PALETTE[3], ls="--", label=f"1/N = {1 / N:.3f}")
    b.set(xlabel="F = G", ylabel="ratio loss", title=f"along F = G: minimum {diag[i]:.3f} at {grid[i]:.2f}")
    b.legend()
    return fig


def tokeniser_figure(seq: str, gene_start: int, k: int = 6):
    """A stretch of a gene with its codons, cut into fixed k-mers: how many k-mer cuts fall inside a codon."""
    n = len(seq)
    fig, ax = new_figure(1, 1, width=9.5, height=1.8)
    for i, ch in enumerate(seq):
        ax.text(i + 0.5, 0.5, ch, ha="center", va="center", family="monospace", fontsize=9)
    cut_codon = [gene_start + 3 * j for j in range((n - gene_start) // 3 + 1)]
    cut_kmer = list(range(0, n + 1, k))
    for c in cut_codon:
        ax.plot([c, c], [0.0, 0.45], color=PALETTE[2], lw=2)
    for c in cut_kmer:
        ax.plot([c, c], [0.55, 1.0], color=PALETTE[3], lw=2)
    inside = sum(1 for c in cut_kmer if c > gene_start and (c - gene_start) % 3)
    ax.set(xlim=(0, n), ylim=(0, 1), yticks=[0.25, 0.75], yticklabels=["codons", f"{k}-mers"],
           xlabel="position in the stretch (nt)",
           title=f"{inside} of {sum(1 for c in cut_kmer if c > gene_start)} fixed {k}-mer cuts inside the gene split a codon")
    return fig


def track_figure(p: np.ndarray, b: np.ndarray, genes, lo: int, hi: int, title_extra: str = ""):
    """p_t along [lo, hi) with boundaries as ticks and genes as bars (forward strand above, reverse below)."""
    fig, (a, g) = new_figure(2, 1, width=9.5, height=3.8, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    t = np.arange(lo, hi)
    a.plot(t, p[lo:hi], color=PALETTE[0], lw=0.8, label="p_t")
    bt = t[b[lo:hi]]
    a.vlines(bt, 1.02, 1.1, color=PALETTE[3], lw=0.6, label="boundary")
    a.axhline(0.5, color="grey", lw=0.6, ls=":")
    a.set(ylabel="boundary probability p_t", ylim=(0, 1.12),
          title=f"{len(bt)} boundaries in {hi - lo} nt (L/L′ = {(hi - lo) / max(len(bt), 1):.2f}){title_extra}")
    for gene in genes:
        if gene.end < lo or gene.begin > hi:
            continue
        y = 0.6 if gene.strand == 1 else 0.2
        g.barh(y, min(gene.end, hi) - max(gene.begin, lo), left=max(gene.begin, lo), height=0.3,
               color=PALETTE[2] if gene.strand == 1 else PALETTE[1], edgecolor="white", linewidth=1.5)
    g.set(yticks=[0.2, 0.6], yticklabels=["− strand", "+ strand"], ylim=(0, 0.9), xlabel="position in held-out region (nt)")
    return fig


def curves_figure(arms: dict):
    """Held-out bits per nucleotide against training FLOPs, every replicate of dnaHNet-mini, the Transformer, the
    isotropic Mamba (when trained) and fixed stride."""
    fig, ax = new_figure(1, 1, width=7, height=4)
    final = {}
    for i, arm in enumerate(a for a in ("dnahnet", "transformer", "mamba", "stride") if a in arms):
        for j, r in enumerate(arms[arm]):
            pos = r.curve["flops"] > 0                                   # the log axis leaves out the start
            ax.plot(r.curve["flops"][pos], r.curve["bpn"][pos], color=PALETTE[i], alpha=0.8, marker="o", ms=3,
                    label=NAMES[arm] if j == 0 else None)
        final[arm] = np.mean([r.bpn for r in arms[arm]])
    ax.set_xscale("log")
    best = min(final, key=final.get)
    ax.set(xlabel="training FLOPs (analytic)", ylabel="held-out bits per nucleotide",
           title=f"at the shared budget {NAMES[best]} is lowest ({final[best]:.4f} bits, mean of {len(arms[best])})")
    ax.legend()
    return fig


def compression_figure(arms: dict, ratio: float, ratios2):
    """Realised compression L/L′ on held-out DNA along training, per stage, with the targets."""
    fig, ax = new_figure(1, 1, width=7, height=3.8)
    for j, r in enumerate(arms["dnahnet"]):
        ax.plot(r.curve["step"], r.curve["compression0"], color=PALETTE[0], label="one-stage" if j == 0 else None)
    for j, r in enumerate(arms.get("two_stage", [])):
        for s in range(2):
            ax.plot(r.curve["step"], r.curve[f"compression{s}"], color=PALETTE[1 + s], ls="--",
                    label=f"two-stage, stage {s}" if j == 0 else None)
    for N in {ratio, *ratios2}:
        ax.axhline(N, color="grey", lw=0.8, ls=":")
    last = np.mean([r.compression[0] for r in arms["dnahnet"]])
    ax.set(xlabel="update", ylabel="held-out compression L/L′",
           title=f"one-stage compression ends at {last:.2f} (target {ratio:g})")
    ax.legend()
    return fig


def phase_figure(phase: dict, enrichment: dict):
    """Boundary rate by codon phase, and enrichment at start and stop codons."""
    fig, (a, b) = new_figure(1, 2, width=9.5, height=3.5)
    a.bar(["1st", "2nd", "3rd"], phase["rates"], color=PALETTE[0])
    a.set(xlabel="codon position (forward-strand genes)", ylabel="boundary rate",
          title=f"max/min {phase['ratio']:.2f}, χ² {p_text(phase['p'])}")
    vals = [enrichment[k]["ratio"] for k in ("start", "stop")]
    err = np.array([[enrichment[k]["ratio"] - enrichment[k]["lo"], enrichment[k]["hi"] - enrichment[k]["ratio"]]
                    for k in ("start", "stop")]).T
    b.bar(["start codons", "stop codons"], vals, yerr=err, color=PALETTE[2], capsize=4)
    b.axhline(1, color="grey", ls=":")
    b.set(ylabel="boundary rate ÷ region rate", title=f"enrichment {vals[0]:.2f} at starts, {vals[1]:.2f} at stops")
    return fig


def timing_figure(timing):
    """Forward wall time per nucleotide against L, and the analytic FLOPs (the two-stage model too when timed)."""
    L = 2 ** np.array(timing.log2_lengths)
    fig, (a, b) = new_figure(1, 2, width=9.5, height=3.6)
    for i, arm in enumerate(a_ for a_ in ("dnahnet", "transformer", "two_stage") if a_ in timing.seconds):
        a.plot(L, np.array(timing.seconds[arm]) / L * 1e6, marker="o", color=PALETTE[i],
               label=f"{NAMES[arm]} ({timing.params[arm] / 1e3:.0f}k params)")
        b.plot(L, np.array(timing.flops[arm]) / L, marker="o", color=PALETTE[i], label=NAMES[arm])
    r = np.array(timing.seconds["transformer"]) / np.array(timing.seconds["dnahnet"])
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.legend()
    a.set(xlabel="sequence length L (nt)", ylabel="forward time per nt (µs)",
          title=f"speed-up {r[0]:.2f}× at 2^{timing.log2_lengths[0]}, {r[-1]:.2f}× at 2^{timing.log2_lengths[-1]}")
    b.set(xlabel="sequence length L (nt)", ylabel="forward FLOPs per nt",
          title=f"FLOP ratio {timing.flops['transformer'][-1] / timing.flops['dnahnet'][-1]:.2f}× at the longest L")
    return fig


def zero_shot_figure(analyses):
    """ΔLL distributions: knockout proxy (coding vs intergenic) and SNV classes, both models."""
    fig, (a, b) = new_figure(1, 2, width=9.5, height=3.6)
    pos = 0
    ticks, labels = [], []
    for i, arm in enumerate(("dnahnet", "transformer")):
        s, lab = analyses.ko_scores[arm], analyses.ko_labels
        for j, k in enumerate(("coding", "intergenic")):
            a.boxplot([s[lab == k]], positions=[pos], widths=0.6, patch_artist=True,
                      boxprops={"facecolor": PALETTE[i]}, showfliers=False)
            ticks.append(pos), labels.append(f"{NAMES[arm]}\n{k}")
            pos += 1
        pos += 0.5
    a.set_xticks(ticks, labels, fontsize=7)
    a.set(ylabel="LL(WT) − LL(cassette) (bits)", title="stop-cassette knockouts")
    pos, ticks, labels = 0, [], []
    means = []
    for i, arm in enumerate(("dnahnet", "transformer")):
        s, lab = analyses.snv_scores[arm], analyses.snv_labels
        for k in ("synonymous", "missense", "nonsense"):
            b.bar(pos, s[lab == k].mean(), color=PALETTE[i])
            means.append(s[lab == k].mean())
            ticks.append(pos), labels.append(f"{k[:3]}")
            pos += 1
        pos += 0.5
    b.set_xticks(ticks, labels)
    b.set(ylabel="mean LL(WT) − LL(SNV) (bits)",
          title=f"dnaHNet-mini: nonsense {means[2]:.2f}, missense {means[1]:.2f}, synonymous {means[0]:.2f}")
    return fig
