"""Figures of the grokking chapter (Xu, Vardi & Safran, ICML 2026, arXiv 2601.19791).

Every function takes the result dataclasses of :mod:`.experiments` (or arrays) and returns a figure:
a pyplot-free matplotlib ``Figure`` in the book's style, or a plotly figure for the interactive grid.
Nothing here decides a claim; every title is computed from the data passed in.
"""

from __future__ import annotations

import numpy as np

from ...runtime.style import PALETTE, new_figure
from .analysis import linear_fit, loglog_slope
from .experiments import (ClosedFormCheck, EliminationTradeoff, EtaLamGrid, FitTimeGrid, NNGrid, NuSweep,
                          SampleSizeSweep, StageCurves)


def _fmt(x: float) -> str:
    return f"{x:g}"


def stage_curves_figure(c: StageCurves):
    """Train and test loss against the step (log axis) for each ``(nu, lam)``; measured and predicted
    grokking times marked. Returns a ``Figure``."""
    fig, (ax_tr, ax_te) = new_figure(1, 2, width=10, height=3.9, sharex=True)
    steps = np.maximum(c.steps, 1)
    for k in range(len(c.nus)):
        color = PALETTE[k % len(PALETTE)]
        label = f"ν={_fmt(c.nus[k])}, λ={_fmt(c.lams[k])}"
        ax_tr.loglog(steps, c.train_loss[k], color=color, label=label)
        ax_te.loglog(steps, c.test_loss[k], color=color, label=label)
        ax_te.loglog(steps, c.memorisation[k], color=color, ls=":", lw=1)
        if np.isfinite(c.t_gen[k]):
            ax_te.axvline(c.t_gen[k], color=color, ls="--", lw=0.8)
        if np.isfinite(c.t_gen_pred[k]):
            ax_te.plot([c.t_gen_pred[k]], [c.eps_test], marker="v", color=color, ms=7, ls="none")
    ax_tr.axhline(c.eps_train, color="0.4", lw=0.8, ls="--")
    ax_te.axhline(c.eps_test, color="0.4", lw=0.8, ls="--")
    fit_max = np.nanmax(np.where(np.isfinite(c.t_fit), c.t_fit, np.nan))
    grok = c.t_gen[np.isfinite(c.t_gen)]
    ax_tr.set(xlabel="gradient step t", ylabel="training loss (no penalty)",
              title=f"Training loss: every curve below ε_train by step {fit_max:.0f}")
    ax_te.set(xlabel="gradient step t", ylabel="test (population) loss",
              title=(f"Test loss: below ε_test from step {grok.min():.0f} to {grok.max():.0f}" if grok.size
                     else "Test loss: no curve reaches ε_test"))
    ax_te.legend(loc="lower left", fontsize=7.5)
    ax_tr.text(0.02, 0.03, f"dashed: ε_train = {c.eps_train:g}", transform=ax_tr.transAxes, fontsize=8)
    ax_te.text(0.98, 0.97, "dotted: unseen (null-space) part\n▼ predicted t_gen, dashed line: measured",
               transform=ax_te.transAxes, fontsize=7.5, ha="right", va="top")
    fig.suptitle("Training and test loss of ridge regression trained by gradient descent", fontsize=12)
    return fig


def eta_lam_figure(g: EtaLamGrid):
    """Left: measured against predicted grokking time over the (η, λ) grid. Right: η λ t_gen per cell,
    which the theory says is constant."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.9)
    meas = g.t_gen.mean(axis=0)          # (E, L)
    pred = g.t_gen_pred.mean(axis=0)
    for i, eta in enumerate(g.etas):
        ax.loglog(pred[i], meas[i], "o", color=PALETTE[i], label=f"η={_fmt(eta)}")
    lo, hi = np.nanmin([meas.min(), pred.min()]) / 1.5, np.nanmax([meas.max(), pred.max()]) * 1.5
    ax.loglog([lo, hi], [lo, hi], color="0.5", lw=0.8, ls="--", label="measured = predicted")
    rel = meas / pred
    ax.set(xlabel="predicted grokking time (steps)", ylabel="measured grokking time (steps)",
           title=f"Measured / predicted t_gen: {np.nanmin(rel):.2f} to {np.nanmax(rel):.2f}")
    ax.legend(fontsize=8)
    prod = (g.etas[:, None] * g.lams[None, :]) * meas
    width = 0.8 / len(g.lams)
    x = np.arange(len(g.etas))
    for j, lam in enumerate(g.lams):
        ax2.bar(x + (j - (len(g.lams) - 1) / 2) * width, prod[:, j], width, color=PALETTE[j + 3],
                label=f"λ={_fmt(lam)}")
    ax2.axhline(prod.mean(), color="0.3", lw=0.8, ls="--")
    ax2.set_xticks(x, [f"η={_fmt(e)}" for e in g.etas])
    dev = np.max(np.abs(prod / prod.mean() - 1))
    ax2.set(ylabel="η · λ · t_gen (dimensionless)",
            title=f"η λ t_gen per cell (largest deviation from the mean {dev:.1%})")
    ax2.legend(fontsize=8, ncol=len(g.lams))
    return fig


def fit_time_figure(f: FitTimeGrid):
    """Measured time to fit against the predicted scale ln(L_n(θ₀)/ε)/(2η(s_min+λ)), coloured by λ/s_min."""
    fig, ax = new_figure(width=6.6, height=3.9)
    ratio = f.lams / f.s_min[:, None]  # (S, L)
    for j in range(ratio.shape[1]):
        ax.loglog(f.scale[:, :, j].ravel(), f.t_fit[:, :, j].ravel(), "o", ms=4, color=PALETTE[j % len(PALETTE)],
                  label=f"λ/s_min ≈ {np.mean(ratio[:, j]):.2g}")
    lo, hi = min(f.scale.min(), f.t_fit.min()) / 1.3, max(f.scale.max(), f.t_fit.max()) * 1.3
    ax.loglog([lo, hi], [lo, hi], color="0.5", lw=0.8, ls="--", label="measured = predicted scale")
    r = f.t_fit / f.scale
    ax.set(xlabel="ln(L_n(θ₀)/ε_train) / (2η(s_min+λ))  (steps)", ylabel="measured t_fit (steps)",
           title=f"t_fit / predicted scale from {r.min():.2f} to {r.max():.2f}")
    ax.legend(fontsize=7, ncol=2)
    return fig


def nu_figure(s: NuSweep):
    """Left: the plateau height against ν (log-log, slope 2 expected). Right: t_gen against ln ν
    with the least-squares line (slope 1/(η λ) expected)."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.9)
    plateau = np.exp(np.log(s.plateau).mean(axis=0))
    fit = loglog_slope(s.nus, plateau)
    ax.loglog(s.nus, plateau, "o-", color=PALETTE[0], label="measured (test loss at t_fit)")
    ax.loglog(s.nus, s.plateau_pred.mean(axis=0), "--", color=PALETTE[1], label="½ ν² tr(P_N Σ)")
    ax.set(xlabel="initial scale ν", ylabel="plateau test loss",
           title=f"The plateau grows like ν^{fit.slope:.2f}")
    ax.legend(fontsize=8)
    t_gen = s.t_gen.mean(axis=0)
    ok = np.isfinite(t_gen)
    ax2.plot(np.log(s.nus[ok]), t_gen[ok], "o", color=PALETTE[2], label="measured")
    if ok.sum() >= 2:
        lf = linear_fit(np.log(s.nus[ok]), t_gen[ok])
        xs = np.log(s.nus[ok])
        ax2.plot(xs, lf.intercept + lf.slope * xs, color=PALETTE[2], lw=1,
                 label=f"fit: slope × ηλ = {lf.slope * s.eta * s.lam:.2f}, R² = {lf.r2:.3f}")
    ax2.plot(np.log(s.nus), s.t_gen_pred.mean(axis=0), "--", color=PALETTE[3], lw=1, label="predicted")
    ax2.set(xlabel="ln ν", ylabel="grokking time t_gen (steps)",
            title=(f"Steps per e-fold of ν: {lf.slope:.0f} (1/(ηλ) = {1 / (s.eta * s.lam):.0f})" if ok.sum() >= 2
                   else "Grokking time against ln ν"))
    ax2.legend(fontsize=8)
    return fig


def sample_size_figure(s: SampleSizeSweep):
    """Final test loss (and its ridge limit) against the number of samples n."""
    fig, ax = new_figure(width=6.4, height=3.8)
    ax.loglog(s.ns, s.final_test.mean(axis=0), "o-", color=PALETTE[0], label="final test loss (simulated)")
    ax.loglog(s.ns, s.test_floor.mean(axis=0), "s--", color=PALETTE[1], ms=4, label="L(θ_λ), the ridge limit")
    ax.loglog(s.ns, s.final_train.mean(axis=0), "^:", color=PALETTE[2], ms=4, label="final training loss")
    ax.axhline(s.eps_test, color="0.5", lw=0.8, ls="--")
    ax.axvline(s.n_ref, color="0.7", lw=0.8)
    end = s.final_test.mean(axis=0)
    ax.set(xlabel="number of training samples n", ylabel="loss at the end of training",
           title=f"Final test loss from {end[0]:.2g} (n={s.ns[0]}) to {end[-1]:.2g} (n={s.ns[-1]})")
    ax.legend(fontsize=8)
    return fig


def elimination_figure(e: EliminationTradeoff):
    """Left: grokking delay t_gen − t_fit for a small and a large init. Right: the weight-decay trade-off:
    the delay ratio t_gen/t_fit falls as λ approaches s_min while the final losses rise."""
    fig, (ax, ax2) = new_figure(1, 2, width=10, height=3.9)
    labels = [f"small init ν={_fmt(e.nu_small)}", f"large init ν={_fmt(e.nu_large)}"]
    fits = [e.t_fit_small.mean(), e.t_fit_large.mean()]
    gens = [e.t_gen_small.mean(), e.t_gen_large.mean()]
    x = np.arange(2)
    ax.bar(x - 0.2, fits, 0.4, color=PALETTE[0], label="t_fit (train ≤ ε_train)")
    ax.bar(x + 0.2, gens, 0.4, color=PALETTE[1], label="t_gen (test ≤ ε_test)")
    ax.set_yscale("log")
    ax.set_xticks(x, labels)
    ax.set(ylabel="steps", title=f"t_gen / t_fit: {gens[0] / fits[0]:.2g} (small init), {gens[1] / fits[1]:.0f} (large)")
    ax.legend(fontsize=8)
    ratio = (e.t_gen_tradeoff / e.t_fit_tradeoff).mean(axis=0)
    ax2.semilogx(e.lam_ratios, ratio, "o-", color=PALETTE[2], label="t_gen / t_fit")
    ax2.set(xlabel="weight decay λ / s_min", ylabel="t_gen / t_fit",
            title=f"t_gen / t_fit from {ratio[0]:.3g} to {ratio[-1]:.3g} as λ grows")
    twin = ax2.twinx()
    twin.loglog(e.lam_ratios, e.final_test.mean(axis=0), "s--", color=PALETTE[3], ms=4, label="final test loss")
    twin.loglog(e.lam_ratios, e.final_train.mean(axis=0), "^:", color=PALETTE[4], ms=4, label="final train loss")
    twin.set_ylabel("final loss")
    twin.grid(False)
    h1, l1 = ax2.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    ax2.legend(h1 + h2, l1 + l2, fontsize=7.5, loc="center left")
    return fig


def closed_form_figure(c: ClosedFormCheck):
    """Relative difference between the closed form and the GD loop along the trajectory."""
    fig, ax = new_figure(width=6.4, height=3.4)
    ax.loglog(np.maximum(c.steps, 1), np.maximum(c.rel_error, 1e-18), "o-", color=PALETTE[0], ms=3,
              label="‖θ_CF − θ_GD‖ / ‖θ_GD‖")
    ax.loglog(np.maximum(c.steps, 1), np.maximum(c.test_rel_error, 1e-18), "s:", color=PALETTE[1], ms=3,
              label="test loss, relative difference")
    ax.axhline(1e-8, color="0.5", ls="--", lw=0.8)
    speed = c.gd_seconds / max(c.closed_form_seconds, 1e-9)
    ax.set(xlabel="gradient step t", ylabel="relative difference",
           title=f"Closed form vs GD loop: largest difference {c.max_rel_error:.0e} ({speed:.0f}× faster)")
    ax.legend(fontsize=8)
    return fig


def nn_curves_figure(res: NNGrid, max_curves: int = 6):
    """Train and test accuracy of the first seed's networks at the reference step size, and its control."""
    run = res.run_at(res.lr_ref)
    fig, ax = new_figure(width=10, height=4.0)
    first_seed = run.seed.min()
    idx = [k for k in range(len(run.lam)) if run.seed[k] == first_seed][:max_curves]
    curves = [(run, k, f"λ={_fmt(run.lam[k])}, α={_fmt(run.alpha[k])}") for k in idx]
    if res.control is not None:
        k0 = int(np.flatnonzero(res.control.seed == res.control.seed.min())[0])
        curves.append((res.control, k0, f"λ=0, α={_fmt(res.control.alpha[k0])} (control)"))
    for n, (r, k, lab) in enumerate(curves):
        color = PALETTE[n % len(PALETTE)]
        steps = np.maximum(r.steps, 1)
        ax.semilogx(steps, r.train_acc[k], color=color, ls=":", lw=1)
        ax.semilogx(steps, r.test_acc[k], color=color, label=lab)
    ax.axhline(run.grok_accuracy, color="0.5", lw=0.8, ls="--")
    fit, grok = run.t_fit[idx], run.t_grok[idx]
    ax.set(xlabel="training step", ylabel="accuracy", ylim=(-0.02, 1.02),
           title=f"Modular addition (p={run.p}, η={_fmt(run.lr)}): train accuracy (dotted) ≥ {run.fit_accuracy:.0%} at "
                 f"steps {np.min(fit):.0f}-{np.max(fit):.0f}, test (solid) ≥ {run.grok_accuracy:.0%} at "
                 f"{np.min(grok):.0f}-{np.max(grok):.0f}")
    ax.legend(fontsize=7.5, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def nn_scaling_figure(res: NNGrid):
    """Grokking time of the networks against η·λ (log-log), one colour per initial scale, one marker per
    step size; geometric means over seeds."""
    t = res.table()
    fig, ax = new_figure(width=6.8, height=4.0)
    markers = "os^vD"
    alphas, lrs, lams = np.unique(t["alpha"]), np.unique(t["lr"]), np.unique(t["lam"])
    for j, alpha in enumerate(alphas):
        for i, lr in enumerate(lrs):
            x, y = [], []
            for lam in lams:
                sel = (t["alpha"] == alpha) & (t["lr"] == lr) & (t["lam"] == lam)
                if sel.any() and np.all(np.isfinite(t["t_grok"][sel])):
                    x.append(lr * lam)
                    y.append(np.exp(np.mean(np.log(t["t_grok"][sel]))))
            ax.loglog(x, y, marker=markers[i % len(markers)], ls="-", lw=0.6, color=PALETTE[j],
                      label=f"α={_fmt(alpha)}" if i == 0 else None)
    prod = t["lr"] * t["lam"]
    ok = np.isfinite(t["t_grok"])
    if ok.sum() >= 2:
        xs = np.geomspace(prod.min(), prod.max(), 2)
        c = np.exp(np.mean(np.log(t["t_grok"][ok] * prod[ok])))
        ax.loglog(xs, c / xs, color="0.5", ls="--", lw=0.8, label="∝ 1/(ηλ)")
    ax.set(xlabel="η · λ (AdamW step size × weight decay)", ylabel="grokking time t_grok (steps)",
           title=f"t_grok over {ok.sum()} networks: {np.min(t['t_grok'][ok]):.0f}-{np.max(t['t_grok'][ok]):.0f} steps")
    ax.legend(fontsize=8, title="markers: η = " + ", ".join(_fmt(v) for v in lrs), title_fontsize=7)
    return fig


def grid_heatmap(g: EtaLamGrid):
    """Interactive plotly heat map of the measured grokking time over (η, λ), hover shows the prediction."""
    import plotly.graph_objects as go

    meas = g.t_gen.mean(axis=0)
    pred = g.t_gen_pred.mean(axis=0)
    text = [[f"η={_fmt(e)}, λ={_fmt(l)}<br>measured {meas[i, j]:.0f} steps<br>predicted {pred[i, j]:.0f} steps"
             f"<br>η·λ·t_gen = {e * l * meas[i, j]:.2f}" for j, l in enumerate(g.lams)] for i, e in enumerate(g.etas)]
    fig = go.Figure(go.Heatmap(z=np.log10(meas), x=[_fmt(l) for l in g.lams], y=[_fmt(e) for e in g.etas],
                               text=text, hoverinfo="text", colorscale="Viridis",
                               colorbar=dict(title="log₁₀ t_gen")))
    i_lo, j_lo = np.unravel_index(np.nanargmin(meas), meas.shape)
    i_hi, j_hi = np.unravel_index(np.nanargmax(meas), meas.shape)
    title = (f"Grokking time from {meas[i_lo, j_lo]:.0f} steps (η={_fmt(g.etas[i_lo])}, λ={_fmt(g.lams[j_lo])}) "
             f"to {meas[i_hi, j_hi]:.0f} (η={_fmt(g.etas[i_hi])}, λ={_fmt(g.lams[j_hi])}); hover for numbers")
    fig.update_layout(title=title,
                      xaxis_title="weight decay λ", yaxis_title="step size η", height=420,
                      margin=dict(l=60, r=20, t=60, b=50))
    return fig


def playground_figure(steps, train, test, memorisation, eps_test, title: str):
    """The live playground's curves (closed form, recomputed for every slider move)."""
    fig, ax = new_figure(width=7.5, height=3.8)
    steps = np.maximum(steps, 1)
    ax.loglog(steps, train, color=PALETTE[0], label="training loss")
    ax.loglog(steps, test, color=PALETTE[1], label="test loss")
    ax.loglog(steps, memorisation, color=PALETTE[1], ls=":", lw=1, label="unseen part of the test loss")
    ax.axhline(eps_test, color="0.5", ls="--", lw=0.8)
    ax.set(xlabel="gradient step t", ylabel="loss", title=title)
    ax.legend(fontsize=8)
    return fig
