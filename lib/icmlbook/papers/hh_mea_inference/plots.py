"""Figures of the chapter (pyplot-free matplotlib); every title is computed from the numbers it shows."""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .biophys import spike_times
from .features import ei_features
from .model import PARAMETERS

__all__ = ["cable_figure", "ei_figure", "features_figure", "activating_figure", "calibration_figure", "pair_figure",
           "refinement_figure", "accuracy_figure", "activation_figure", "sweep_figure"]

COLORS = {"oracle": PALETTE[7], "prior-mean": PALETTE[1], "NPE": PALETTE[5], "NPE + refinement": PALETTE[0],
          "gradient-only": PALETTE[4], "linear summation": PALETTE[3], "ridge regression": PALETTE[2]}


def cable_figure(model, theta):
    """Voltage along the cell after the somatic pulse (space–time) and three traces."""
    import jax.numpy as jnp

    _, v = model.currents_jit(jnp.asarray(theta))
    v = np.asarray(v)
    t = model.rec.time
    arc = model.layout.arc
    ts = spike_times(v, t)
    axon = np.arange(1 + model.layout.n_ais, model.layout.n_comp)
    ok = np.isfinite(ts[axon])
    vel = np.polyfit(ts[axon][ok], arc[axon][ok], 1)[0] / 1000.0 if ok.sum() > 3 else float("nan")   # µm/ms -> m/s
    fig, (a0, a1) = new_figure(1, 2, width=9.5, height=3.6)
    im = a0.pcolormesh(t, arc, v, shading="auto", cmap="viridis")
    fig.colorbar(im, ax=a0, label="membrane potential (mV)")
    a0.set(xlabel="time (ms)", ylabel="distance from soma (µm)", title=f"The spike travels down the axon at {vel:.2f} m/s")
    for i, lab in ((0, "soma"), (1 + model.layout.n_ais // 2, "initial segment"), (model.layout.record_index, "distal axon")):
        a1.plot(t, v[i], label=f"{lab} ({arc[i]:.0f} µm)")
    first = "initial segment" if np.nanargmin(ts[:1 + model.layout.n_ais + 1]) > 0 else "soma"
    a1.set(xlabel="time (ms)", ylabel="V (mV)", title=f"It starts in the {first}")
    a1.legend()
    return fig


def ei_figure(electrodes, ei, theta_dict=None, layout=None, title_prefix="Electrical image"):
    """Each electrode's waveform drawn at its position (the classic EI picture), the cell overlaid."""
    fig, ax = new_figure(1, 1, width=6.0, height=5.4)
    ei = np.asarray(ei)
    scale = 22.0 / max(np.abs(ei).max(), 1e-9)
    tt = np.linspace(-11, 11, ei.shape[1])
    trough = -ei.min(1)
    for (x, y), w, a in zip(electrodes, ei, trough):
        ax.plot(x + tt, y + w * scale, color=PALETTE[0], lw=0.6 + 1.5 * a / trough.max())
    ax.scatter(electrodes[:, 0], electrodes[:, 1], s=8, color="0.6", zorder=0)
    if theta_dict is not None and layout is not None:
        a = np.deg2rad(theta_dict["angle"])
        s = layout.arc
        ax.plot(theta_dict["x"] + s * np.cos(a), theta_dict["y"] + s * np.sin(a), color=PALETTE[3], lw=1.5, alpha=0.6,
                label="axon (true)")
        ax.scatter([theta_dict["x"]], [theta_dict["y"]], s=120, color=PALETTE[3], alpha=0.6, label="soma (true)")
        ax.legend(loc="lower right")
    r = np.abs(electrodes).max() + 25
    best = int(trough.argmax())
    ax.set(aspect="equal", xlim=(-r, r), ylim=(-r, r), xlabel="x (µm)", ylabel="y (µm)",
           title=f"{title_prefix}: largest trough {trough[best]:.0f} µV on electrode {best}")
    return fig


def feature_marks(ei, sample_ms=0.05) -> dict:
    """What :func:`features_figure` draws, as numbers (its caption quotes them): the electrode with the largest
    trough, its soft Na trough (negative, µV), capacitive and K peaks (µV), the hard trough's time (ms), the Na→K
    width (ms), and the soft delays (µs) of the 8 electrodes with the largest troughs."""
    import jax.numpy as jnp

    ei = np.asarray(ei)
    f = np.asarray(ei_features(jnp.asarray(ei), sample_ms))
    e = int((-ei.min(1)).argmax())
    order = np.argsort(ei.min(1))[:8]
    i = int(ei[e].argmin())
    return {"electrode": e, "trough_index": i, "trough_hard": float(ei[e, i]),
            "cap_hard": float(ei[e, :i].max()) if i > 0 else float("nan"),
            "k_hard": float(ei[e, i + 1:].max()) if i + 1 < ei.shape[1] else float("nan"),
            "trough": -float(np.sinh(f[e, 0])), "cap": float(np.sinh(f[e, 1])),
            "k": float(np.sinh(f[e, 2])), "t_trough": float(ei[e].argmin() * sample_ms), "width": float(f[e, 3] * 0.1),
            "order": order, "delays": f[order, 5] * 100, "delay_span": float(np.ptp(f[order, 5]) * 100)}


def features_figure(ei, sample_ms=0.05):
    """One electrode's waveform with its soft trough, capacitive and potassium peaks (the designed features)."""
    ei = np.asarray(ei)
    m = feature_marks(ei, sample_ms)
    e = m["electrode"]
    t = np.arange(ei.shape[1]) * sample_ms
    fig, (a0, a1) = new_figure(1, 2, width=9.5, height=3.6)
    a0.plot(t, ei[e], color=PALETTE[0], marker=".", label=f"electrode {e}")
    # the trough is negative: label and line carry the same signed value (the label read +28.5 under a line at -28.5)
    a0.axhline(m["trough"], color=PALETTE[3], ls="--", label=f"soft Na trough {m['trough']:.1f} µV")
    a0.axhline(m["cap"], color=PALETTE[1], ls=":", label=f"soft capacitive peak {m['cap']:.1f} µV")
    a0.axhline(m["k"], color=PALETTE[2], ls="-.", label=f"soft K peak {m['k']:.1f} µV")
    a0.set(xlabel="time after the pulse (ms)", ylabel="φ (µV)",
           title=f"Na→K width {m['width']:.2f} ms, trough at {m['t_trough']:.2f} ms")
    a0.legend(fontsize=7)
    order = m["order"]
    a1.bar(np.arange(len(order)), m["delays"], color=PALETTE[5])
    a1.set_xticks(np.arange(len(order)), [str(i) for i in order])
    a1.set(xlabel="electrode (largest troughs first)", ylabel="soft delay (µs)",
           title=f"Delays span {m['delay_span']:.0f} µs over the 8 largest")
    return fig


def activating_currents(model, theta, weights):
    """The activating-function current into each compartment during the middle phase (nA per µA; positive
    depolarises), and the compartments' distances from the soma (µm): what :func:`activating_figure` draws."""
    import jax.numpy as jnp

    inj = -np.asarray(model.activating_currents(jnp.asarray(theta), jnp.asarray(weights)))    # middle phase: w = -1
    return inj, np.asarray(model.layout.arc)


def activating_figure(model, theta, weights):
    """Extracellular potential along the cell for a unit pattern, and the activating-function currents."""
    inj, arc = activating_currents(model, theta, weights)
    fig, ax = new_figure(1, 1, width=6.4, height=3.4)
    ax.bar(arc, inj, width=8, color=np.where(inj > 0, PALETTE[3], PALETTE[0]))
    k = int(np.argmax(inj))
    ax.set(xlabel="distance from soma (µm)", ylabel="injected current (nA per µA)",
           title=f"Middle phase: largest depolarising current {inj[k]:.2f} nA/µA at {arc[k]:.0f} µm")
    return fig


def calibration_figure(study):
    """SBC rank histograms and the posterior-mean error per parameter."""
    d = len(study.names)
    fig, axes = new_figure(1, d + 1, width=2.0 * (d + 1), height=2.8)
    L = study.sbc_samples.shape[1]
    for j, (ax, n) in enumerate(zip(axes[:d], study.names)):
        ax.hist(study.sbc_ranks[:, j], bins=10, range=(0, L + 1), color=PALETTE[0])
        ax.axhline(len(study.sbc_ranks) / 10, color="0.3", ls="--")
        ax.set(xlabel=f"rank of {n}", ylabel="cells" if j == 0 else None, title=f"p = {study.sbc_p[j]:.2f}")
    ax = axes[d]
    ax.bar(np.arange(d), study.nrmse, color=PALETTE[2])
    ax.axhline(study.prior_nrmse, color="0.3", ls="--", label="prior mean")
    ax.set_xticks(np.arange(d), list(study.names), rotation=60)
    worst = study.names[int(np.argmax(study.nrmse))]
    ax.set(ylabel="RMSE / prior range", title=f"least identified: {worst}")
    ax.legend()
    return fig


def posterior_mean_error(study, cell: int) -> float:
    """RMS over the parameters of the NPE posterior mean's error on one test cell, relative to the prior range."""
    smp = np.asarray(study.npe_samples[cell])
    return float(np.sqrt((((smp.mean(0) - study.test_theta[cell]) / (study.high - study.low)) ** 2).mean()))


def default_pairs(names) -> list[tuple[str, str]]:
    """The parameter pairs :func:`pair_figure` draws unless told otherwise."""
    names = list(names)
    return [(names[0], names[1]), (names[2], names[-1] if len(names) > 4 else names[3]), (names[3], names[4])]


def pair_figure(study, cell: int, pairs=None):
    """Posterior samples of one test cell (pairs of parameters), with the truth and the refined samples."""
    names = study.names
    pairs = pairs or default_pairs(names)
    fig, axes = new_figure(1, len(pairs), width=3.3 * len(pairs), height=3.2)
    smp = study.npe_samples[cell]
    for ax, (a, b) in zip(np.atleast_1d(axes), pairs):
        i, j = names.index(a), names.index(b)
        ax.scatter(smp[:, i], smp[:, j], s=12, alpha=0.6, color=PALETTE[5], label="NPE samples")
        ax.scatter(study.refined[cell, :, i], study.refined[cell, :, j], s=30, marker="^", color=PALETTE[0], label="refined")
        ax.scatter([study.test_theta[cell, i]], [study.test_theta[cell, j]], s=120, marker="*", color=PALETTE[3], label="truth")
        ax.set(xlim=(study.low[i], study.high[i]), ylim=(study.low[j], study.high[j]),
               xlabel=f"{PARAMETERS[a][3]} ({PARAMETERS[a][2]})", ylabel=f"{PARAMETERS[b][3]} ({PARAMETERS[b][2]})")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    err = posterior_mean_error(study, cell)
    fig.suptitle(f"Test cell {cell}: NPE posterior-mean error {err:.3f} of the prior range")
    return fig


def refinement_figure(study):
    """Feature loss along the refinement (NPE starts) and the gradient-only baseline's final losses."""
    fig, (a0, a1) = new_figure(1, 2, width=9.5, height=3.4)
    tr = study.loss_trace.reshape(len(study.loss_trace), -1)
    a0.semilogy(tr, color=PALETTE[0], alpha=0.3)
    a0.semilogy(np.median(tr, 1), color=PALETTE[0], lw=2.5, label="median (NPE starts)")
    a0.axhline(np.median(study.loss_gradient_only), color=PALETTE[4], ls="--", label="gradient-only, best of starts")
    a0.set(xlabel="Adam step", ylabel="feature loss", title=f"Median loss {np.median(tr[0]):.3f} → {np.median(tr[-1]):.3f}")
    a0.legend()
    k = study.refined.shape[1]
    e = {"prior-mean": study.param_error(study.prior_mean_theta), "gradient-only": study.param_error(study.gradient_only),
         "NPE": study.param_error(study.npe_samples[:, :k].mean(1)), "NPE + refinement": study.param_error(study.refined.mean(1))}
    for x, (n, v) in enumerate(e.items()):
        a1.scatter(np.full(len(v), x) + np.linspace(-0.15, 0.15, len(v)), v, color=COLORS[n], s=14)
        a1.bar(x, v.mean(), color=COLORS[n], alpha=0.35)
    a1.set_xticks(np.arange(len(e)), list(e), rotation=15)
    best = min(e, key=lambda n: e[n].mean())
    a1.set(ylabel="parameter error (RMSE / range)", title=f"Lowest parameter error: {best}")
    return fig


def accuracy_figure(study):
    """Accuracy per model on held-out multi-electrode patterns, split by polarity."""
    models = list(study.accuracy)
    fig, (a0, a1) = new_figure(1, 2, width=10, height=3.6)
    for x, m in enumerate(models):
        v = study.accuracy[m]
        a0.bar(x, v.mean(), color=COLORS[m], alpha=0.5)
        a0.scatter(np.full(len(v), x) + np.linspace(-0.2, 0.2, len(v)), v, s=10, color=COLORS[m])
    a0.set_xticks(np.arange(len(models)), models, rotation=25)
    a0.set(ylabel="accuracy (held-out conditions)", ylim=(min(0.5, min(v.mean() for v in study.accuracy.values()) - 0.05), 1.01),
           title=f"NPE + refinement {study.accuracy['NPE + refinement'].mean():.3f}, oracle {study.accuracy['oracle'].mean():.3f}")
    w = 0.38
    for x, m in enumerate(models):
        a1.bar(x - w / 2, study.accuracy_same[m].mean(), w, color=COLORS[m], alpha=0.45, label="same polarity" if x == 0 else None)
        a1.bar(x + w / 2, np.nanmean(study.accuracy_mixed[m]), w, color=COLORS[m], hatch="//", label="mixed" if x == 0 else None)
    a1.set_xticks(np.arange(len(models)), models, rotation=25)
    gap = np.nanmean(study.accuracy_mixed["NPE + refinement"]) - np.nanmean(study.accuracy_mixed["linear summation"])
    a1.set(ylabel="accuracy", ylim=a0.get_ylim(), title=f"Mixed polarity: refined − linear = {gap:+.3f}")
    a1.legend()
    return fig


def activation_figure(study, cell: int, pattern: int):
    """P(spike) against amplitude for one cell and pattern: each model's prediction and the measured fractions."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.8)
    amps = study.amplitudes
    ax.scatter(amps, study.counts[cell, pattern] / study.n_trials, color="black", zorder=3, label="measured (true cell)")
    for m, p in study.pred.items():
        ax.plot(amps, p[cell, pattern], color=COLORS[m], label=m, lw=2 if m == "NPE + refinement" else 1.2)
    w = study.patterns[cell, pattern]
    desc = ", ".join(f"e{e}:{w[e]:+.2f}" for e in np.flatnonzero(w))
    ax.set(xscale="log", xlabel="amplitude of the middle phase (µA)", ylabel="P(spike)",
           title=f"Cell {cell}, pattern {pattern} ({'mixed' if study.mixed[cell, pattern] else 'same'} polarity: {desc})")
    ax.legend(fontsize=7)
    return fig


def sweep_figure(study, rate_hz: float | None = None):
    """Accuracy of NPE predictions against the number of spikes averaged into the EI (with ``rate_hz``, each N's
    recording length at that firing rate under its tick)."""
    fig, ax = new_figure(1, 1, width=5.6, height=3.4)
    acc = np.asarray(study.sweep_accuracy)
    ax.errorbar(study.sweep_n, acc.mean(1), yerr=acc.std(1, ddof=1) / np.sqrt(acc.shape[1]), marker="o", color=PALETTE[5],
                label="NPE")
    ax.axhline(study.accuracy["prior-mean"].mean(), color=COLORS["prior-mean"], ls="--", label="prior-mean cell")
    ax.set(xscale="log", xlabel="spikes averaged into the EI", ylabel="accuracy",
           title=f"Accuracy {acc.mean(1)[0]:.3f} at N={study.sweep_n[0]}, {acc.mean(1)[-1]:.3f} at N={study.sweep_n[-1]}")
    if rate_hz:
        def length(n):
            m = n / rate_hz / 60
            return f"{m:.0f} min" if m >= 1 else f"{m * 60:.0f} s"

        ax.set_xticks(list(study.sweep_n), [f"{n}\n({length(n)})" for n in study.sweep_n])
        ax.minorticks_off()
        ax.set_xlabel(f"spikes averaged into the EI (recording length at {rate_hz:g} Hz)")
    ax.legend()
    return fig
