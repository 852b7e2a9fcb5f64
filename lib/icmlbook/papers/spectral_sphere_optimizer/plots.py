"""Figures of the SSO chapter (pyplot-free matplotlib, one plotly figure); titles are computed from the numbers."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...runtime import PALETTE, new_figure
from .experiments import RunResult, best_learning_rates

__all__ = ["COLORS", "NAMES", "width_sweep_plotly", "h_figure", "training_figure", "radius_figure", "overhead_figure"]

COLORS = {"adamw": PALETTE[3], "muon": PALETTE[1], "muonsphere": PALETTE[5], "sso": PALETTE[0]}
NAMES = {"adamw": "AdamW", "muon": "Muon", "muonsphere": "MuonSphere", "sso": "SSO"}


def width_sweep_plotly(results: Sequence[RunResult]):
    """Final validation loss against the peak learning rate, one panel per width, one line per optimiser; the
    argmin of each line is marked."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    widths = sorted({r.spec.width for r in results})
    best = best_learning_rates(list(results))
    fig = make_subplots(rows=1, cols=len(widths), shared_yaxes=True,
                        subplot_titles=[f"width {w} ({sum(r.spec.width == w for r in results)} runs)" for w in widths])
    for j, w in enumerate(widths, 1):
        for opt in ("adamw", "muon", "muonsphere", "sso"):
            pts: dict[float, list[float]] = {}
            for r in results:
                if r.spec.optimizer == opt and r.spec.width == w:
                    pts.setdefault(r.spec.lr, []).append(r.final_val_loss)
            if not pts:
                continue
            lrs = sorted(pts)
            loss = [float(np.mean(pts[lr])) for lr in lrs]
            fig.add_trace(go.Scatter(x=lrs, y=loss, mode="lines+markers", name=NAMES[opt], legendgroup=opt,
                                     showlegend=(j == 1), line=dict(color=COLORS[opt])), row=1, col=j)
            b = best[(opt, w)]
            fig.add_trace(go.Scatter(x=[b], y=[float(np.mean(pts[b]))], mode="markers", legendgroup=opt,
                                     showlegend=False, marker=dict(symbol="star", size=13, color=COLORS[opt]),
                                     hovertext=f"{NAMES[opt]} argmin {b:g}"), row=1, col=j)
        fig.update_xaxes(type="log", title_text="peak learning rate", row=1, col=j)
    fig.update_yaxes(title_text="final validation loss (nats/byte)", row=1, col=1)
    am = "; ".join(f"{NAMES[o]} " + "/".join(f"{best[(o, w)]:g}" for w in widths if (o, w) in best)
                   for o in ("adamw", "muon", "muonsphere", "sso") if any((o, w) in best for w in widths))
    fig.update_layout(title=f"Loss against learning rate per width<br>argmin by width: {am}", height=430,
                      margin=dict(l=60, r=20, t=95, b=50))
    return fig


def h_figure(study: dict, show: int = 4):
    """h(lambda) on the inner grid (lambda in units of ||G||_*) for a few random pairs: the exact polar factor
    (lines) and our Newton–Schulz msign (dots), with the roots."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    n = min(show, study["h_exact"].shape[0])
    for i in range(n):
        x = study["lams"][i, 1:-1] / study["nuclear"][i]
        ax.plot(x, study["h_exact"][i, 1:-1], color=PALETTE[i], lw=1.5)
        ax.plot(x[::4], study["h_ns"][i, 1:-1][::4], "o", ms=3, color=PALETTE[i])
        ax.axvline(study["root"][i] / study["nuclear"][i], color=PALETTE[i], lw=0.6, ls=":")
    ax.axhline(0, color="black", lw=0.5)
    worst = float(np.max(np.abs(study["root"]) / study["nuclear"]))
    drop = max(float(np.max(-np.diff(study["h_exact"], axis=1))), 0.0)
    ax.set(xlabel=r"$\lambda / \|\hat G\|_*$", ylabel=r"$h(\lambda)=\langle\Theta,\mathrm{msign}(\hat G+\lambda\Theta)\rangle$",
           title=(("h never decreases on the grid" if drop == 0 else f"largest decrease of h {drop:.1e}")
                  + f"; largest root $|\\lambda^\\star|$ = {worst:.1e} $\\|\\hat G\\|_*$ (bound: 2)"))
    return fig


def _mean_site(stats: dict, key: str) -> np.ndarray:
    return np.mean([v for k, v in stats.items() if key in k], axis=0)


def training_figure(runs: dict[str, RunResult]):
    """Over training, each optimiser at its tuned rate: MLP-output RMS and attention-output AbsMax (mean over
    layers), and the largest sigma_max / sqrt(d_out/d_in) over hidden matrices."""
    fig, axes = new_figure(1, 3, width=11.5, height=3.9)
    for opt, r in runs.items():
        kw = dict(color=COLORS[opt], label=f"{NAMES[opt]} (lr {r.spec.lr:g})")
        axes[0].plot(r.act_steps, _mean_site(r.act_rms, "mlp_out"), **kw)
        axes[1].plot(r.act_steps, _mean_site(r.act_absmax, "attn_out"), **kw)
        axes[2].plot(r.sigma_steps, np.max(np.stack(list(r.sigma_ratio.values())), axis=0), **kw)
    end = {o: float(_mean_site(r.act_rms, "mlp_out")[-1]) for o, r in runs.items()}
    axes[0].set(yscale="log", xlabel="update", ylabel="MLP output RMS")
    axes[0].set_title("MLP output RMS at the end:\n" + ", ".join(f"{NAMES[o]} {v:.2g}" for o, v in end.items()),
                      fontsize=9)
    amax = {o: float(_mean_site(r.act_absmax, "attn_out")[-1]) for o, r in runs.items()}
    sig = {o: float(np.max([v[-1] for v in r.sigma_ratio.values()])) for o, r in runs.items()}
    axes[1].set(yscale="log", xlabel="update", ylabel="attention output AbsMax")
    axes[1].set_title("attention AbsMax at the end:\n" + ", ".join(f"{NAMES[o]} {v:.2g}" for o, v in amax.items()),
                      fontsize=9)
    axes[2].set(yscale="log", xlabel="update", ylabel=r"max $\sigma_\max/\sqrt{d_{out}/d_{in}}$")
    axes[2].set_title("σ_max / μP scale at the end:\n" + ", ".join(f"{NAMES[o]} {v:.2g}" for o, v in sig.items()),
                      fontsize=9)
    axes[0].legend(fontsize=7)
    return fig


def radius_figure(check9) -> object:
    """Final MLP-output RMS and AbsMax against the radius scale c (log-log), with the fitted power law."""
    v = check9.values
    c, rms, amax = v["c"], v["rms"], v["absmax"]
    k, lo, hi = v["exponent"]
    fig, ax = new_figure(1, 1, width=6.0, height=3.6)
    ax.loglog(c, rms, "o", color=PALETTE[0], label="RMS")
    ax.loglog(c, amax, "s", color=PALETTE[3], label="AbsMax")
    a = np.exp(np.mean(np.log(rms)) - k * np.mean(np.log(c)))
    cc = np.geomspace(c.min(), c.max(), 50)
    ax.loglog(cc, a * cc ** k, "-", color=PALETTE[0], lw=1, label=f"fit: RMS ∝ c^{k:.2f}")
    ax.set(xlabel="radius scale c", ylabel="MLP output (mean over layers)",
           title=f"RMS exponent {k:.2f} (95% CI [{lo:.2f}, {hi:.2f}])")
    ax.legend(fontsize=8)
    return fig


def overhead_figure(results: Sequence[RunResult]):
    """Wall-clock seconds per update against width, per optimiser (median over its runs), and SSO's msign
    evaluations per update."""
    widths = sorted({r.spec.width for r in results})
    fig, ax = new_figure(1, 1, width=6.0, height=3.6)
    per = {}
    for opt in ("adamw", "muon", "muonsphere", "sso"):
        ys = [np.median([r.seconds_per_step for r in results if r.spec.optimizer == opt and r.spec.width == w] or [np.nan])
              for w in widths]
        per[opt] = ys
        ax.plot(widths, np.array(ys) * 1e3, "o-", color=COLORS[opt], label=NAMES[opt])
    ratio = per["sso"][-1] / per["muon"][-1]
    ax.set(xscale="log", yscale="log", xlabel="width (d_model)", ylabel="ms per update (wall clock, CPU)",
           title=f"SSO costs {ratio:.1f}x Muon per update at width {widths[-1]}")
    ax.set_xticks(widths, [str(w) for w in widths])
    ax.legend(fontsize=8)
    return fig
