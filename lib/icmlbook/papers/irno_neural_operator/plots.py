"""Figures of the IRNO chapter (pyplot-free matplotlib); titles are computed from the numbers shown."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import torch

from ...runtime import PALETTE, new_figure
from .experiments import Evaluation, SREvaluation
from .metrics import band_edges, shell_errors

__all__ = ["NAMES", "shell_energy", "fields_figure", "spectra_figure", "vrmse_figure", "ratio_figure",
           "contraction_figure", "playground_figure", "sr_fields_figure", "sr_curve_figure"]

NAMES = {"irno": "IRNO", "no_spectral": "no spectral loss", "const_lambda": "constant exponent λ=1",
         "no_fp": "no fixed-point term", "k1": "one-shot corrector (K=1)", "unshared": "unshared K-step stack"}


def shell_energy(f: torch.Tensor) -> np.ndarray:
    """Mean over samples of the shell spectrum sum_{round|k|=r} |f_hat(k)|^2 of fields ``(B, 1, n, n)``."""
    return shell_errors(f, torch.zeros_like(f)).mean(0).numpy()


def _imshow(ax, a, title, vmax=None, cmap="RdBu_r"):
    vmax = float(np.abs(a).max()) if vmax is None else vmax
    im = ax.imshow(a.T, origin="lower", cmap=cmap, vmin=-vmax, vmax=vmax, extent=(0, 2 * np.pi, 0, 2 * np.pi))
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("x (nondimensional, period 2π)")
    ax.set_ylabel("y (nondimensional)")
    return im


def fields_figure(y: torch.Tensor, h0: torch.Tensor, hK: torch.Tensor, K: int, sample: int = 0):
    """Truth, base and IRNO at K for one test sample, full field (top) and the lower-left quarter (bottom)."""
    fig, axes = new_figure(2, 3, width=9.6, height=6.2)
    t, b, r = (z[sample, 0].numpy() for z in (y, h0, hK))
    vmax = float(np.abs(t).max())
    n = t.shape[0]
    q = n // 4
    e0 = float(np.sqrt(((b - t) ** 2).mean()))
    eK = float(np.sqrt(((r - t) ** 2).mean()))
    for j, (a, name) in enumerate(((t, "truth"), (b, f"base FNO (RMS error {e0:.3f})"),
                                   (r, f"IRNO, k = {K} (RMS error {eK:.3f})"))):
        _imshow(axes[0, j], a, name, vmax)
        im = axes[1, j].imshow(a[:q, :q].T, origin="lower", cmap="RdBu_r", vmin=-vmax, vmax=vmax,
                               extent=(0, np.pi / 2, 0, np.pi / 2))
        axes[1, j].set_title(f"zoom: {name.split(' (')[0]}", fontsize=9)
        axes[1, j].set_xlabel("x (nondimensional)")
        axes[1, j].set_ylabel("y (nondimensional)")
    fig.colorbar(im, ax=axes, shrink=0.6, label="vorticity (normalised)")
    fig.suptitle(f"One test sample: the RMS error falls from {e0:.3f} (base) to {eK:.3f} after {K} refinement steps")
    return fig


def spectra_figure(y: torch.Tensor, iterates: Sequence[torch.Tensor], K: int):
    """Shell spectra of the truth, the base and IRNO at K (mean over test samples), and the ratio to the truth."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.8)
    et = shell_energy(y)
    n = y.shape[-1]
    r = np.arange(len(et))
    curves = {"truth": et, "base FNO (k = 0)": shell_energy(iterates[0]), f"IRNO (k = {K})": shell_energy(iterates[K])}
    live = (r >= 1) & (et > 1e-8 * et.max())          # shells where the truth has energy (corners may not)
    for (name, e), c in zip(curves.items(), ("k", PALETTE[3], PALETTE[0])):
        ax.semilogy(r[live], e[live], label=name, color=c)
        if name != "truth":
            ax2.plot(r[live], e[live] / et[live], label=name, color=c)
    for a in (ax, ax2):
        a.axvline(n / 2, color="0.5", ls=":", lw=1)
        a.set_xlabel("radial wavenumber r (cycles per domain)")
    ax.set_ylabel("energy in shell (normalised units²)")
    ax2.set_ylabel("prediction / truth energy (ratio)")
    ax2.axhline(1.0, color="0.5", lw=0.8)
    ax.legend(fontsize=8)
    hi = (r > n / 3) & (r <= n / 2)
    b_hi = float(np.sum(curves["base FNO (k = 0)"][hi]) / np.sum(et[hi]))
    i_hi = float(np.sum(curves[f"IRNO (k = {K})"][hi]) / np.sum(et[hi]))
    fig.suptitle(f"High band: the base carries {b_hi:.0%} of the true energy, IRNO after {K} steps {i_hi:.0%} "
                 "(dotted: axis Nyquist)")
    return fig


def vrmse_figure(evals: Mapping[str, Evaluation], K: int):
    """Mean test VRMSE against the iteration k for IRNO and its ablations (training horizon marked)."""
    fig, ax = new_figure(width=7.5, height=4.2)
    for (name, ev), c in zip(evals.items(), PALETTE):
        curve = ev.vrmse.mean(1)
        ax.plot(np.arange(len(curve)), curve, marker="o", ms=3, label=NAMES.get(name, name), color=c,
                lw=2.2 if name == "irno" else 1.2)
    ax.axvline(K, color="0.4", ls="--", lw=1)
    ax.text(K, ax.get_ylim()[1], " K (trained)", va="top", fontsize=8)
    ax.set_xlabel("refinement step k (k = 0: the frozen base)")
    ax.set_ylabel("test VRMSE (normalised field)")
    ax.legend(fontsize=8)
    ev = evals["irno"]
    c = ev.vrmse.mean(1)
    fig.suptitle(f"IRNO: VRMSE {c[0]:.3f} at k = 0, {c[K]:.3f} at K = {K}, {c[min(2 * K, len(c) - 1)]:.3f} at 2K")
    return fig


def ratio_figure(ev: Evaluation):
    """Median shell-wise error ratio E_k(r)/E_0(r) for k = 1..2K, with our band edges."""
    fig, ax = new_figure(width=7.5, height=4.2)
    steps = ev.shell.shape[0] - 1
    cmap = __import__("matplotlib").colormaps["viridis"]
    r = np.arange(ev.shell.shape[2])
    for k in range(1, steps + 1):
        ax.semilogy(r[1:], ev.shell_ratio(k)[1:], color=cmap(k / steps), lw=2 if k == ev.K else 1,
                    label=f"k = {k}" if k in (1, ev.K, steps) else None)
    edges = band_edges(ev.n)
    for name in ("low", "mid", "high"):
        ax.axvline(edges[name][1], color="0.5", ls=":", lw=1)
        ax.text(np.mean(edges[name]), ax.get_ylim()[1], name, ha="center", va="top", fontsize=8)
    ax.axvspan(ev.n / 2, r[-1], color="0.9")
    ax.axhline(1.0, color="0.4", lw=0.8)
    ax.set_xlabel("radial wavenumber r (cycles per domain); grey: corner shells beyond the axis Nyquist")
    ax.set_ylabel("median E_k(r) / E_0(r) (ratio)")
    ax.legend(fontsize=8)
    b = {k: float(np.median(v)) for k, v in ev.band(ev.K).items()}
    fig.suptitle(f"Error relative to the base at K = {ev.K}: low {b['low']:.0%}, mid {b['mid']:.0%}, "
                 f"high {b['high']:.0%}, corners {b['corner']:.0%}")
    return fig


def contraction_figure(ev: Evaluation, rate: float):
    """||h_{k+1} - h_k|| against k (log) and the Lipschitz constants at the recorded iterates."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.8)
    d = ev.diffs.mean(1)
    k = np.arange(len(d))
    ax.semilogy(k, d, marker="o", color=PALETTE[0], label="measured (mean over test samples)")
    ax.semilogy(k, d[0] * rate ** k, ls="--", color="0.4", label=f"fitted geometric rate {rate:.3f}")
    ax.axvline(ev.K, color="0.4", ls=":", lw=1)
    ax.set_xlabel("refinement step k")
    ax.set_ylabel("RMS of h_(k+1) − h_k (normalised vorticity)")
    ax.legend(fontsize=8)
    for (kk, L), c in zip(sorted(ev.lipschitz.items()), PALETTE[1:]):
        ax2.scatter(np.full(len(L), kk), L, color=c, s=14)
    ax2.axhline(1.0, color="0.4", lw=0.8)
    ax2.set_xlabel("iterate k at which the Jacobian is taken")
    ax2.set_ylabel("Lipschitz constant ‖∂F_x/∂h‖₂ (dimensionless)")
    allL = np.concatenate([v for v in ev.lipschitz.values()]) if ev.lipschitz else np.array([np.nan])
    verb = "shrink" if rate < 1 else "grow" if rate > 1 else "change"
    fig.suptitle(f"Corrections {verb} by a factor {rate:.3f} per step; Lipschitz constants {np.nanmin(allL):.3f}–"
                 f"{np.nanmax(allL):.3f}")
    return fig


def playground_figure(y: torch.Tensor, iterates: Sequence[torch.Tensor], k: int, sample: int = 0):
    """Field, error and spectrum at step ``k`` for one test sample."""
    fig, axes = new_figure(1, 3, width=11, height=3.6)
    t = y[sample, 0].numpy()
    h = iterates[k][sample, 0].numpy()
    vmax = float(np.abs(t).max())
    _imshow(axes[0], h, f"prediction at k = {k}", vmax)
    err = h - t
    _imshow(axes[1], err, f"error at k = {k} (RMS {np.sqrt((err ** 2).mean()):.3f}; own colour scale)")
    et = shell_energy(y[sample:sample + 1])
    eh = shell_energy(iterates[k][sample:sample + 1])
    e0 = shell_energy(iterates[0][sample:sample + 1])
    r = np.arange(len(et))
    live = (r >= 1) & (et > 1e-8 * et.max())
    axes[2].semilogy(r[live], et[live], color="k", label="truth")
    axes[2].semilogy(r[live], e0[live], color=PALETTE[3], lw=1, label="base (k = 0)")
    axes[2].semilogy(r[live], eh[live], color=PALETTE[0], label=f"k = {k}")
    axes[2].set_xlabel("radial wavenumber r (cycles per domain)")
    axes[2].set_ylabel("shell energy (normalised units²)")
    axes[2].legend(fontsize=8)
    fig.suptitle(f"Step k = {k}: RMS error {np.sqrt((err ** 2).mean()):.3f}")
    return fig


def sr_fields_figure(coarse: torch.Tensor, y: torch.Tensor, h0: torch.Tensor, hK: torch.Tensor, K: int,
                     sample: int = 0):
    """Super-resolution on one test sample: the coarse observation, the base's and IRNO's fine fields, the truth,
    and the two errors (own colour scale)."""
    fig, axes = new_figure(2, 3, width=9.6, height=7.0)  # room between the rows: titles clear the x labels
    c, t, b, r = (z[sample, 0].numpy() for z in (coarse, y, h0, hK))
    vmax = float(np.abs(t).max())
    e0, eK = float(np.sqrt(((b - t) ** 2).mean())), float(np.sqrt(((r - t) ** 2).mean()))
    _imshow(axes[0, 0], c, f"coarse input ({c.shape[0]}×{c.shape[0]} block averages)", vmax)
    _imshow(axes[0, 1], b, f"base FNO (RMS error {e0:.3f})", vmax)
    im = _imshow(axes[0, 2], r, f"IRNO, k = {K} (RMS error {eK:.3f})", vmax)
    _imshow(axes[1, 0], t, f"truth ({t.shape[0]}×{t.shape[0]})", vmax)
    emax = float(max(np.abs(b - t).max(), np.abs(r - t).max()))
    _imshow(axes[1, 1], b - t, "base error", emax)
    ime = _imshow(axes[1, 2], r - t, f"IRNO error at k = {K}", emax)
    fig.colorbar(im, ax=axes[0], shrink=0.8, label="vorticity (normalised)")
    fig.colorbar(ime, ax=axes[1], shrink=0.8, label="error (normalised vorticity)")
    fig.suptitle(f"Super-resolution {c.shape[0]}² → {t.shape[0]}², one test sample: RMS error {e0:.3f} (base), "
                 f"{eK:.3f} after {K} refinement steps")
    return fig


def sr_curve_figure(ev: SREvaluation):
    """Mean test RFNE and ACC against the refinement step k (k = 0: the base), the training horizon marked."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.8)
    k = np.arange(ev.rfne.shape[0])
    r, a = ev.rfne.mean(1), ev.acc.mean(1)
    ax.plot(k, r, marker="o", ms=3, color=PALETTE[0])
    ax2.plot(k, a, marker="o", ms=3, color=PALETTE[1])
    for axis, lab in ((ax, "test RFNE ‖h − y‖/‖y‖ (dimensionless)"), (ax2, "test ACC (dimensionless)")):
        axis.axvline(ev.K, color="0.4", ls="--", lw=1)
        axis.set_xlabel("refinement step k (k = 0: the frozen base)")
        axis.set_ylabel(lab)
    K = ev.K
    fig.suptitle(f"Super-resolution: RFNE {r[0]:.3f} → {r[K]:.3f} and ACC {a[0]:.3f} → {a[K]:.3f} from the base "
                 f"to K = {K} (dashed)")
    return fig
