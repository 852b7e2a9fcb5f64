"""Figures of the ArBG chapter (pyplot-free matplotlib); every title is computed from the numbers shown."""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .toy import FourWells

__all__ = ["toy_figure", "snis_figure", "ramachandran_figure", "energy_figure", "temperature_figure", "bins_figure",
           "loss_figure", "tica_figure"]

C = {"ArBG": PALETTE[0], "NSF": PALETTE[1], "MD": "0.3", "raw": PALETTE[2]}


def toy_figure(toy: dict):
    """Target density and the two proposals' samples (seed 0)."""
    tgt = FourWells(centre=toy["centre"], sigma=toy["sigma"])
    L = toy["range"]
    fig, axes = new_figure(1, 3, width=11, height=3.7)
    g = np.linspace(-L, L, 300)
    xx = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    axes[0].contourf(g, g, np.exp(tgt.log_density(xx)).reshape(300, 300), levels=20, cmap="Greys")
    axes[0].set(title="target μ (four wells, weights " + "/".join(f"{w:g}" for w in tgt.weights) + ")")
    rows = {(r["model"], r["seed"]): r for r in toy["rows"]}
    for ax, key, name in ((axes[1], "x_ar", "ArBG"), (axes[2], "x_fl", "NSF")):
        x = toy["samples"][key]
        ax.scatter(x[:, 0], x[:, 1], s=2, alpha=0.4, color=C[name])
        r = rows[(name, 0)]
        ax.set(title=f"{name} proposals: ESS {r['ess']:.3f}, {100 * r['between_frac']:.2f}% between wells")
    for ax in axes:
        ax.set(xlim=(-L, L), ylim=(-L, L), xlabel="x₁", ylabel="x₂", aspect="equal")
    return fig


def snis_figure(snis_rows: list[dict], slopes: dict):
    fig, ax = new_figure(1, 1, width=6.4, height=4.0)
    taus = sorted({r["tau"] for r in snis_rows})
    for i, t in enumerate(taus):
        rr = sorted((r for r in snis_rows if r["tau"] == t), key=lambda r: r["M"])
        M = [r["M"] for r in rr]
        ax.loglog(M, [r["rmse"] for r in rr], "o-", color=PALETTE[i], label=f"SNIS, τ={t:g} (slope {slopes[t]:.2f})")
        ax.loglog(M, [r["rmse_raw"] for r in rr], "x--", color=PALETTE[i], alpha=0.6, label=f"unweighted, τ={t:g}")
    ax.set(xlabel="proposals M", ylabel="RMSE / target sd (mean of 4 test functions)",
           title=f"log-log slope of the SNIS error: {min(slopes.values()):.2f} to {max(slopes.values()):.2f} (√M law: -0.5)")
    ax.legend(fontsize=7, ncol=2)
    return fig


def _rama(ax, ang, title):
    ax.hist2d(np.degrees(ang[:, 0]), np.degrees(ang[:, 1]), bins=60, range=[[-180, 180], [-180, 180]], cmap="viridis",
              cmin=1)
    ax.set(xlim=(-180, 180), ylim=(-180, 180), xlabel="φ (degrees)", ylabel="ψ (degrees)", title=title, aspect="equal")


def ramachandran_figure(adp: dict):
    keep = adp["keep"]
    r0 = {r["model"]: r for r in adp["rows"] if r["seed"] == 0}
    fig, axes = new_figure(1, 4, width=14, height=3.9)
    _rama(axes[0], adp["ref_angles"], f"reference MD ({adp['n_test']} frames)")
    _rama(axes[1], keep["ArBG"]["angles_raw"], f"ArBG proposals (T-W2 {r0['ArBG']['tw2_raw']:.2f})")
    _rama(axes[2], keep["ArBG"]["angles_rw"], f"ArBG reweighted (T-W2 {r0['ArBG']['tw2']:.2f})")
    _rama(axes[3], keep["NSF"]["angles_rw"], f"NSF reweighted (T-W2 {r0['NSF']['tw2']:.2f})")
    return fig


def energy_figure(adp: dict):
    keep = adp["keep"]
    r0 = {r["model"]: r for r in adp["rows"] if r["seed"] == 0}
    fig, ax = new_figure(1, 1, width=6.8, height=4.0)
    ref = adp["ref_u"]
    lo, hi = np.percentile(ref, 0.1) - 5, np.percentile(ref, 99.9) + 60
    bins = np.linspace(lo, hi, 80)
    ax.hist(ref, bins=bins, density=True, color=C["MD"], alpha=0.5, label="MD reference")
    raw = keep["ArBG"]["u_raw"]
    ax.hist(raw[np.isfinite(raw)].clip(lo, hi), bins=bins, density=True, histtype="step", color=C["raw"],
            label=f"ArBG proposals ({np.mean(raw > hi):.0%} above {hi:.0f} kT, piled at the edge)")
    ax.hist(keep["ArBG"]["u_rw"].clip(lo, hi), bins=bins, density=True, histtype="step", lw=2, color=C["ArBG"],
            label="ArBG reweighted")
    ax.hist(keep["NSF"]["u_rw"].clip(lo, hi), bins=bins, density=True, histtype="step", color=C["NSF"],
            label="NSF reweighted")
    ax.set(xlabel="reduced energy u (kT)", ylabel="density",
           title=f"E-W2 after reweighting: ArBG {r0['ArBG']['ew2']:.3g} kT, NSF {r0['NSF']['ew2']:.3g} kT")
    ax.legend(fontsize=7)
    return fig


def temperature_figure(temp_rows: list[dict]):
    fig, (a, b) = new_figure(1, 2, width=10, height=3.6)
    t = [r["tau"] for r in temp_rows]
    a.semilogy(t, [r["ew2"] for r in temp_rows], "o-", color=PALETTE[0], label="after SNIS")
    a.semilogy(t, [r["ew2_clip"] for r in temp_rows], "s--", color=PALETTE[1], label="after SNIS, top 0.2% clipped")
    b.semilogy(t, [r["ess"] for r in temp_rows], "o-", color=PALETTE[0], label="ESS / M")
    best = min(temp_rows, key=lambda r: r["ew2"])
    a.set(xlabel="sampling temperature τ", ylabel="E-W2 (kT)", title=f"lowest E-W2 at τ = {best['tau']:g}")
    best_e = max(temp_rows, key=lambda r: r["ess"])
    b.set(xlabel="sampling temperature τ", ylabel="ESS / M", title=f"highest ESS at τ = {best_e['tau']:g}")
    a.legend(fontsize=7)
    return fig


def bins_figure(bin_rows: list[dict]):
    rows = sorted(bin_rows, key=lambda r: r["bins"])
    K = [r["bins"] for r in rows]
    fig, (a, b) = new_figure(1, 2, width=10, height=3.6)
    a.loglog(K, [10 * r["quant_bond_err_nm"] for r in rows], "o-", color="0.4", label="rounding the MD frames alone")
    a.loglog(K, [10 * r["bond_mean_err_nm"] for r in rows], "s-", color=PALETTE[0], label="ArBG proposals (mean bond)")
    a.set(xlabel="bins K", ylabel="bond-length error (Å)",
          title=f"bond error {10 * rows[0]['bond_mean_err_nm']:.3f} Å at K={K[0]}, "
                f"{10 * rows[-1]['bond_mean_err_nm']:.3f} Å at K={K[-1]}")
    a.legend(fontsize=7)
    b.loglog(K, [r["ew2"] for r in rows], "o-", color=PALETTE[0], label="after SNIS")
    b.loglog(K, [r["ew2_raw"] for r in rows], "x--", color=PALETTE[2], label="raw proposals")
    b.set(xlabel="bins K", ylabel="E-W2 (kT)", title=f"E-W2 after SNIS {rows[0]['ew2']:.3g} → {rows[-1]['ew2']:.3g} kT")
    b.legend(fontsize=7)
    return fig


def loss_figure(adp: dict):
    """ArBG's training cross-entropy (seed 0) with its training-set and held-out values after training."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    k = adp["keep"]["ArBG"]
    r = next(r for r in adp["rows"] if r["model"] == "ArBG" and r["seed"] == 0)
    ax.plot(k["loss_steps"], k["loss"], color=PALETTE[0], label="training batches")
    ax.axhline(r["ce_test"], color=PALETTE[1], ls="--", label=f"held-out MD after training ({r['ce_test']:.3f})")
    ax.axhline(r["ce_train"], color=PALETTE[2], ls=":", label=f"training MD after training ({r['ce_train']:.3f})")
    ax.set(xlabel="update", ylabel="cross-entropy per token (nats)",
           title=f"ArBG training: {k['loss'][0]:.2f} → {k['loss'][-1]:.2f} nats per token "
                 f"({r['loss_last_quarter']:.3f} in the last quarter)")
    ax.legend(fontsize=8)
    return fig


def tica_figure(adp: dict):
    """The reference MD, ArBG (raw and reweighted) and the NSF (reweighted), seed 0, on the two slowest TICA
    coordinates."""
    t = adp["tica"]
    r0 = {r["model"]: r for r in adp["rows"] if r["seed"] == 0}
    ref = t["test"]
    lo, hi = np.percentile(ref, 0.5, axis=0), np.percentile(ref, 99.5, axis=0)
    pad = 0.3 * (hi - lo)
    rng = [[lo[0] - pad[0], hi[0] + pad[0]], [lo[1] - pad[1], hi[1] + pad[1]]]
    fig, axes = new_figure(1, 4, width=15, height=3.9)
    panels = [(ref, "reference MD"), (adp["keep"]["ArBG"]["tica_raw"], f"ArBG raw: TICA-W2 {r0['ArBG']['ticaw2_raw']:.3g}"),
              (adp["keep"]["ArBG"]["tica_rw"], f"ArBG reweighted: TICA-W2 {r0['ArBG']['ticaw2']:.3g}"),
              (adp["keep"]["NSF"]["tica_rw"], f"NSF reweighted: TICA-W2 {r0['NSF']['ticaw2']:.3g}")]
    for ax, (y, title) in zip(axes, panels):
        ax.hist2d(y[:, 0], y[:, 1], bins=50, range=rng, cmap="viridis", cmin=1)
        ax.set(xlabel=f"TIC 1 (λ = {t['eigenvalues'][0]:.2f} at lag {t['lag']} ps)",
               ylabel=f"TIC 2 (λ = {t['eigenvalues'][1]:.2f})", title=title)
    return fig
