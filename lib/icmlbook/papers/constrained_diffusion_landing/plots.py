"""Figures of the constrained-diffusion chapter (pyplot-free matplotlib, one plotly globe); titles computed."""

from __future__ import annotations

import numpy as np
import torch

from ...runtime import PALETTE, new_figure
from .constraints import Sphere
from .data import xyz_to_latlon

__all__ = ["landing_vs_projection_figure", "feasibility_figure", "drop_figure", "prior_figure", "quality_figure",
           "globe_plotly", "cost_figure", "sweep_figure", "mixed_figure", "nfe_figure", "fewest_steps", "benchmarks_figure"]

COLORS = {"OLLA": PALETTE[0], "ULLA": PALETTE[1], "OLLA-P": PALETTE[2], "ULLA-P": PALETTE[3], "RSGM": PALETTE[4],
          "Ambient": PALETTE[5]}
ORDER = ("OLLA", "ULLA", "OLLA-P", "ULLA-P", "RSGM", "Ambient")


def landing_vs_projection_figure(step: float = 0.9, seed: int = 0):
    """On the unit circle: one tangent step from a point, then the exact projection and one implicit landing
    step (a Gauss–Newton correction at the post-step point)."""
    cs = Sphere(2)
    x = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    y = x + cs.project_tangent(x, torch.tensor([[0.0, step]], dtype=torch.float64))
    proj, _ = cs.project(y)
    land = cs.land(y, mode="implicit")
    fig, ax = new_figure(1, 1, width=4.8, height=4.4)
    th = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(th), np.sin(th), color="0.6", lw=1, label="the set |x| = 1")
    for pt, lab, c in ((x, "start", "black"), (y, "after the tangent step", PALETTE[3]),
                       (proj, "projection", PALETTE[2]), (land, "landing (one solve)", PALETTE[0])):
        ax.scatter(*pt[0].numpy(), color=c, zorder=3, label=lab)
    ax.annotate("", y[0].numpy(), x[0].numpy(), arrowprops=dict(arrowstyle="->", color=PALETTE[3]))
    ax.annotate("", land[0].numpy(), y[0].numpy(), arrowprops=dict(arrowstyle="->", color=PALETTE[0]))
    h_land = float(land.norm() ** 2 - 1)
    ax.set(aspect="equal", xlim=(-0.2, 1.6), ylim=(-0.4, 1.3), xlabel="x₁", ylabel="x₂",
           title=f"Landing leaves h = {h_land:.3f} after one solve (tangent step {step})")
    ax.legend(fontsize=7, loc="lower left")
    return fig


def feasibility_figure(forward: dict, backward: dict):
    fig, ax = new_figure(1, 2, width=10, height=3.6)
    for m, r in forward.items():
        ax[0].semilogy(np.maximum(r["trace"], 1e-17), color=COLORS[m], label=m)
    for m, tr in backward.items():
        if m in ("OLLA", "ULLA"):
            ax[1].semilogy(np.maximum(tr, 1e-17), color=COLORS[m], label=m)
    fw = max(float(np.max(r["trace"])) for r in forward.values())
    bw = max([float(np.max(tr)) for m, tr in backward.items() if m in ("OLLA", "ULLA")] or [float("nan")])
    ax[0].set(xlabel="forward step k", ylabel="mean |h| over paths (dimensionless)",
              title=f"Forward paths (training data): at most {fw:.1e}")
    ax[1].set(xlabel="backward step", ylabel="mean |h| over samples (dimensionless)",
              title=f"Backward paths (generation, seed 0): at most {bw:.1e}")
    for a in ax:
        a.legend(fontsize=8)
    return fig


def drop_figure(drop: dict):
    rows = drop["rows"]
    x = [r["dt_sigma2"] for r in rows]
    fig, ax = new_figure(1, 2, width=10, height=3.6)
    ax[0].plot(x, [r["OLLA-P_drop_rate"] for r in rows], "o-", color=COLORS["OLLA-P"], label="OLLA-P (Newton)")
    ax[0].plot(x, [r["OLLA_drop_rate"] for r in rows], "s--", color=COLORS["OLLA"], label="OLLA (landing)")
    top = max(rows, key=lambda r: r["dt_sigma2"])
    ax[0].set(xscale="log", xlabel="Δt · σ_max² (dimensionless)", ylabel="fraction of trajectories dropped",
              title=f"{drop['set']}: OLLA-P drops {top['OLLA-P_drop_rate']:.1%} at the largest step, landing "
                    f"{top['OLLA_drop_rate']:.1%}")
    ax[1].loglog(x, [max(r["OLLA_max_violation"], 1e-17) for r in rows], "s-", color=COLORS["OLLA"])
    worst = max(r["OLLA_max_violation"] for r in rows)
    ax[1].set(xlabel="Δt · σ_max² (dimensionless)", ylabel="worst violation |h| or g⁺ along the path",
              title=f"Landing's worst violation: {worst:.2g} at the largest step" if worst == rows[-1]["OLLA_max_violation"]
              else f"Landing's worst violation: up to {worst:.2g}")
    ax[0].legend(fontsize=8)
    return fig


def prior_figure(prior: dict):
    rows = prior["rows"]
    Ns = sorted({r["N"] for r in rows})
    fig, ax = new_figure(1, 1, width=6, height=3.6)
    for m in ("OLLA", "ULLA"):
        per = [[r[f"{m}_mmd2"] for r in rows if r["N"] == n] for n in Ns]
        ax.plot(Ns, [np.mean(v) for v in per], "o-", color=COLORS[m], label=f"{m} (mean; dots: seeds)")
        for n, v in zip(Ns, per):
            ax.scatter(np.full(len(v), n), v, color=COLORS[m], s=8, alpha=0.6)
    ax.axhline(prior["start_mmd2"], color="0.5", ls=":", label="the data (t = 0)")
    lo = {m: np.mean([r[f"{m}_mmd2"] for r in rows if r["N"] == Ns[0]]) for m in ("OLLA", "ULLA")}
    ax.set(xscale="log", xlabel="steps N", ylabel="MMD² to the uniform law (Gaussian kernel)",
           title=f"{prior['set']}: at N={Ns[0]} MMD² OLLA {lo['OLLA']:.4f}, ULLA {lo['ULLA']:.4f}")
    ax.legend(fontsize=8)
    return fig


def quality_figure(quality):
    present = {r["method"] for r in quality.records}
    methods = [m for m in ORDER if m in present]
    k = len(methods)
    fig, ax = new_figure(1, 2, width=11, height=3.8)
    j = [quality.values(m, "jsd") for m in methods]
    ax[0].bar(range(k), [v.mean() for v in j], yerr=[v.std(ddof=1) if len(v) > 1 else 0 for v in j],
              color=[COLORS[m] for m in methods], capsize=3)
    for i, v in enumerate(j):
        ax[0].scatter(np.full(len(v), i), v, color="black", s=8, zorder=3)
    ax[0].axhline(np.mean(quality.uniform_jsd), color="0.5", ls=":", label="uniform law")
    ax[0].set_xticks(range(k), methods, fontsize=8)
    best = methods[int(np.argmin([v.mean() for v in j]))]
    ax[0].set(ylabel="JSD to held-out data (nats, 30×30 lat/lon bins)",
              title=f"Lowest mean JSD: {best} {min(v.mean() for v in j):.4f} (uniform {np.mean(quality.uniform_jsd):.4f})")
    ax[0].legend(fontsize=8)
    t = [quality.values(m, "train_seconds").mean() for m in methods]
    nfe = [quality.values(m, "nfe")[0] for m in methods]
    ax[1].bar(range(k), t, color=[COLORS[m] for m in methods])
    for i, (tt, n) in enumerate(zip(t, nfe)):
        ax[1].text(i, tt, f"NFE {n:.0f}", ha="center", va="bottom", fontsize=8)
    ax[1].set_xticks(range(k), methods, fontsize=8)
    ax[1].set(ylabel="training time per run (s, wall clock)",
              title=f"Fastest to train: {methods[int(np.argmin(t))]} ({min(t):.1f} s)")
    return fig


def globe_plotly(samples: np.ndarray, test: np.ndarray, title: str):
    import plotly.graph_objects as go

    fig = go.Figure()
    for pts, name, c in ((test, "held-out data", PALETTE[7]), (samples, "generated", PALETTE[0])):
        p = np.asarray(pts)[:1500]
        fig.add_trace(go.Scatter3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], mode="markers", name=name,
                                   marker=dict(size=2, color=c, opacity=0.6)))
    fig.update_layout(title=title, height=480, scene=dict(aspectmode="cube"), margin=dict(l=0, r=0, t=40, b=0))
    return fig


def cost_figure(cost: dict):
    """Left: operations per point (what claim 6 decides on); right: wall time per step, fastest of the
    interleaved repeats. Title from the numbers."""
    rows = cost["rows"]
    p = [r["constraints"] for r in rows]
    fig, (ax, bx) = new_figure(1, 2, width=10, height=3.6)
    ax.plot(p, [r["landing_operations"] for r in rows], "o-", color=COLORS["OLLA"], label="landing (counted)")
    ax.plot(p, [r["newton_operations"] for r in rows], "s-", color=COLORS["OLLA-P"], label="Newton, per point (counted)")
    ax.plot(p, [r["newton_batched_operations"] for r in rows], "s--", color=COLORS["OLLA-P"], alpha=0.5,
            label="Newton, batched (to the slowest point)")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    for r in rows:
        ax.annotate(f"SO({r['n']}), {r['newton_iterations_mean']:.2f} it.", (r["constraints"], r["newton_operations"]),
                    fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set(xlabel="number of equality constraints n(n+1)/2", ylabel="operations per point (evaluations + solves)")
    ax.legend(fontsize=7)
    bx.loglog(p, [r["landing_seconds"] * 1e3 for r in rows], "o-", color=COLORS["OLLA"], label="landing")
    bx.loglog(p, [r["newton_seconds"] * 1e3 for r in rows], "s-", color=COLORS["OLLA-P"], label="Newton projection")
    if all("svd_seconds" in r for r in rows):
        bx.loglog(p, [r["svd_seconds"] * 1e3 for r in rows], "^:", color="0.35", label="SVD projection (closed form)")
    bx.set(xlabel="number of equality constraints n(n+1)/2",
           ylabel=f"wall time per step (ms, {cost['points']} points)")
    bx.legend(fontsize=8)
    ops = min(r["newton_operations"] / r["landing_operations"] for r in rows)
    wall = [r["newton_seconds"] / r["landing_seconds"] for r in rows if r["landing_seconds"] > 0]
    fig.suptitle(f"Newton costs at least {ops:.2f}x landing's operations per point; wall clock "
                 f"{min(wall):.1f}x to {max(wall):.1f}x (fastest of {cost.get('repeat', 1)} interleaved repeats)",
                 fontsize=10)
    return fig


def sweep_figure(sweep: dict):
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    for i, r in enumerate(sweep["rows"]):
        lab = (f"explicit, gain {r['scale']:g}" + (" (beyond the limit)" if r.get("unstable") else "")
               if r["mode"] == "explicit" else "implicit")
        ax.semilogy(np.maximum(r["trace"], 1e-17), color=PALETTE[i % len(PALETTE)], label=lab)
    means = {(r["mode"], r["scale"]): float(np.mean(r["trace"][1:])) for r in sweep["rows"]}
    worst = max(means, key=means.get)
    ax.set(xlabel="forward step k", ylabel="mean |h| over paths (dimensionless)",
           title=(f"S²: largest drift {means[worst]:.1e} (" + ("implicit" if worst[0] == "implicit" else f"gain {worst[1]:g}")
                  + ")") if len(means) > 1 else f"S²: mean |h| {means[worst]:.1e}")
    ax.legend(fontsize=7)
    return fig


def mixed_figure(mixed: dict, cap: float = 0.8):
    fig, ax = new_figure(1, 2, width=10, height=3.6, sharey=True)
    for a, pts, name in ((ax[0], mixed["test"], "held-out data"), (ax[1], mixed["samples"], "generated (OLLA)")):
        la, lo = xyz_to_latlon(torch.as_tensor(pts))
        a.scatter(lo, la, s=3, alpha=0.5, color=PALETTE[0] if "gen" in name else PALETTE[7])
        lim = np.degrees(np.arcsin(cap))
        for s in (1, -1):
            a.axhspan(s * lim, s * 90, color=PALETTE[3], alpha=0.08)
        a.set(xlabel="longitude (°)", title=name, xlim=(-180, 180), ylim=(-90, 90))
    ax[0].set_ylabel("latitude (°)")
    if "inside" in mixed:
        fig.suptitle(f"{mixed['inside']:.1%} of the samples inside the set after the terminal projection"
                     + (f", {mixed['inside_before']:.1%} before it" if "inside_before" in mixed else ""), fontsize=10)
    return fig


def fewest_steps(nfe: dict, margin: float) -> dict:
    """Per method: the smallest N of the curve whose mean JSD over seeds is within ``margin`` of the mean JSD at
    the largest N (how far the step count can drop before the quality does)."""
    Ns = sorted(nfe["Ns"])
    out = {}
    present = {r["method"] for r in nfe["rows"]}
    for m in (m for m in ORDER if m in present):
        means = {n: np.mean([r["jsd"] for r in nfe["rows"] if r["method"] == m and r["N"] == n]) for n in Ns}
        out[m] = next(n for n in Ns if means[n] <= means[Ns[-1]] + margin)
    return out


def nfe_figure(nfe: dict, margin: float = 0.02):
    """JSD against the number of sampling steps (= NFE) for every trained model, mean over seeds."""
    Ns = sorted(nfe["Ns"])
    fig, ax = new_figure(1, 1, width=7, height=4)
    for m in ORDER:
        per = [[r["jsd"] for r in nfe["rows"] if r["method"] == m and r["N"] == n] for n in Ns]
        if not per[0]:
            continue
        ax.plot(Ns, [np.mean(v) for v in per], "o-", color=COLORS[m], label=m)
    few = fewest_steps(nfe, margin)
    ax.set(xscale="log", xlabel="sampling steps N (= NFE)", ylabel="JSD to held-out data (nats)",
           title="Fewest steps within %.2g JSD of N=%d: " % (margin, Ns[-1])
           + ", ".join(f"{m} {n}" for m, n in few.items() if m in ("OLLA", "ULLA", "RSGM")))
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.legend(fontsize=8)
    return fig


def benchmarks_figure(results: dict):
    """One panel per benchmark that ran: JSD to held-out data of OLLA's and ULLA's samples and of the prior's
    points (dots: seeds; bars: means). Title from the numbers. ``results``: name -> benchmark_study output."""
    ran = {k: v for k, v in results.items() if v is not None}
    if not ran:
        raise ValueError("benchmarks_figure needs at least one benchmark that ran")
    fig, axes = new_figure(1, len(ran), width=4.2 * len(ran), height=3.6)
    axes = np.atleast_1d(axes)
    beaten = 0
    total = 0
    for ax, (name, res) in zip(axes, ran.items()):
        labels = ["OLLA", "ULLA", "prior"]
        for i, m in enumerate(labels):
            if m == "prior":
                vals = [r["prior_jsd"] for r in res["rows"]]
            else:
                vals = [r["jsd"] for r in res["rows"] if r["method"] == m]
            ax.bar(i, np.mean(vals), color=COLORS.get(m, "0.7"), alpha=0.8)
            ax.plot([i] * len(vals), vals, "k.", ms=4)
        for r in res["rows"]:
            total += 1
            beaten += r["jsd"] < r["prior_jsd"]
        ax.set_xticks(range(3), labels)
        ax.set(ylabel="JS divergence to held-out data (nats)", title=f"{res['set']}\n({res['n_eq']} eq., {res['n_ineq']} ineq.)")
    fig.suptitle(f"Models beat their prior in {beaten} of {total} runs", fontsize=10)
    return fig
