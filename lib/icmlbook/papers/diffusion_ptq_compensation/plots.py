"""Figures of the TCEC chapter (pyplot-free matplotlib); titles are computed from the numbers shown."""

from __future__ import annotations

import numpy as np

from ...runtime import PALETTE, new_figure
from .claims import bootstrap_mean, gain
from .config import TCECConfig
from .experiments import cell_key

__all__ = ["error_curves", "closed_form_scatter", "jacobian_figure", "gain_figure", "samples_figure", "playground_figure",
           "solver_error_curves"]

METHODS = {"tcec_m0": "TCEC m=0", "tcec_m1": "TCEC m=1", "tcec_full": "TCEC full sum", "ptqd": "PTQD-style",
           "tac": "TAC", "qncd": "QNCD"}


def error_curves(result: dict, cfg: TCECConfig):
    """Mean ‖x̂_n − x_n‖ against the step, per bit width, without (solid) and with TCEC m=1 (dashed)."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    st = cfg.steps[-1]
    finals = {}
    for i, bits in enumerate(cfg.bits):
        c = result["cells"][cell_key(bits, st, "rtn")]
        ax.plot(c["err_curve"], color=PALETTE[i], label=f"{bits}")
        ax.plot(c["err_curve_tcec"], color=PALETTE[i], ls="--", label=f"{bits} + TCEC")
        finals[bits] = c["err_curve"][-1]
    ax.set_yscale("log")
    ax.set_xlabel(f"sampling step n (of {st}, DDIM)")
    ax.set_ylabel("mean ‖x̂_n − x_n‖ (data units)")
    lo, hi = min(finals, key=finals.get), max(finals, key=finals.get)
    ax.set_title(f"Final error: {finals[hi] / finals[lo]:.0f}× larger at {hi} than at {lo}")
    ax.legend(fontsize=7, ncol=2)
    return fig


def closed_form_scatter(result: dict, cfg: TCECConfig):
    """Per seed: the closed form's ‖e_S‖ (Jacobian dropped) against the measured ‖e_S‖."""
    fig, ax = new_figure(1, 1, width=5.0, height=4.0)
    ratios = []
    for i, (bits, t) in enumerate(result["theory"].items()):
        ax.scatter(t["e_norm"], t["pred_norm"], s=6, alpha=0.6, color=PALETTE[i], label=bits)
        ratios.append(np.median(t["pred_norm"] / t["e_norm"]))
    lim = [min(ax.get_xlim()[0], ax.get_ylim()[0]), max(ax.get_xlim()[1], ax.get_ylim()[1])]
    ax.plot(lim, lim, color="k", lw=0.8, label="prediction = measurement")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured ‖e_S‖ (final state error)")
    ax.set_ylabel("closed-form ‖e_S‖ with J = 0")
    r = float(np.median(ratios))
    word = "overshoots" if r > 1 else "undershoots"
    ax.set_title(f"The J = 0 closed form {word} the final error\nby a median factor {max(r, 1 / r):.1f}")
    ax.legend(fontsize=7)
    return fig


def jacobian_figure(result: dict, cfg: TCECConfig):
    """Per step: ‖b_n J_n e_n‖/‖a_n e_n‖ (JVP) and the exact nonlinear version."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.4)
    for i, (bits, t) in enumerate(result["theory"].items()):
        ax.plot(np.arange(1, len(t["jac_jvp"]) + 1), t["jac_jvp"], color=PALETTE[i], label=f"{bits}, JVP")
        ax.plot(np.arange(1, len(t["jac_exact"]) + 1), t["jac_exact"], color=PALETTE[i], ls=":", label=f"{bits}, exact")
    ax.axhline(cfg.jac_ratio_max, color="k", lw=0.8, ls="--", label=f"claim 3 threshold {cfg.jac_ratio_max}")
    ax.set_xlabel("sampling step n")
    ax.set_ylabel("‖b_n J_n e_n‖ / ‖a_n e_n‖")
    t = result["theory"][cfg.bits[-1]]
    ax.set_title(f"{cfg.bits[-1]}: per-step ratio median {np.median(t['jac_jvp']):.2f}, max {t['jac_jvp'].max():.2f}")
    ax.legend(fontsize=7, ncol=2)
    return fig


def gain_figure(result: dict, cfg: TCECConfig, seed: int, xlabel: str = "bits / steps / base PTQ"):
    """ΔPSNR against the base (mean, 95% bootstrap CI) of each correction, per cell."""
    keys = list(result["cells"])
    fig, ax = new_figure(1, 1, width=7.5, height=3.8)
    methods = {m: lab for m, lab in METHODS.items() if any(m in result["cells"][k]["psnr"] for k in keys)}
    w = 0.8 / len(methods)
    best = (None, -np.inf)
    for j, (m, label) in enumerate(methods.items()):
        means, errs = [], []
        for k in keys:
            if m not in result["cells"][k]["psnr"]:          # QNCD is not defined for flow matching
                means.append(np.nan)
                errs.append((0.0, 0.0))
                continue
            mu, lo, hi = bootstrap_mean(gain(result["cells"][k], m), cfg.n_boot, seed)
            means.append(mu)
            errs.append((mu - lo, hi - mu))
            if m == "tcec_m1" and mu > best[1]:
                best = (k, mu)
        x = np.arange(len(keys)) + (j - len(methods) / 2 + 0.5) * w
        ax.bar(x, means, w, yerr=np.array(errs).T, color=PALETTE[j], label=label, capsize=2)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(keys)), [k.replace("/", "\n") for k in keys], fontsize=7)
    ax.set_ylabel("ΔPSNR vs the base (dB)")
    ax.set_xlabel(xlabel)
    ax.set_title(f"Largest TCEC (m=1) gain: {best[1]:+.2f} dB at {best[0]}")
    ax.legend(fontsize=7, ncol=4)
    return fig


def samples_figure(result: dict, cfg: TCECConfig):
    """FP, quantised and compensated samples from the same noise (lowest bit width, main steps)."""
    s = result["samples"]
    bits = cfg.bits[-1]
    if cfg.dataset == "digits":
        rows = [("FP", s["fp"]), (f"{bits}", s[bits]["base"]), (f"{bits} + TCEC", s[bits]["tcec_m1"])]
        fig, axes = new_figure(3, 8, width=7.5, height=3.2)
        for r, (name, imgs) in enumerate(rows):
            for c in range(8):
                ax = axes[r, c]
                ax.imshow(imgs[c, 0], cmap="gray", vmin=-1, vmax=1)
                ax.set_xticks([])
                ax.set_yticks([])
                ax.grid(False)
            axes[r, 0].set_ylabel(name, fontsize=7)
        mse = {n: float(np.mean((i - s["fp"]) ** 2)) for n, i in rows[1:]}
        fig.suptitle("Same noise, same sampler: MSE to FP " + ", ".join(f"{n} {v:.2g}" for n, v in mse.items()), fontsize=9)
        return fig
    fig, ax = new_figure(1, 1, width=5.0, height=4.6)
    ax.scatter(*s["data"][:, :2].T, s=2, color="0.8", label="training data")
    ax.scatter(*s["fp_all"].T, s=3, color=PALETTE[0], label="FP samples")
    for n, (name, pts) in enumerate(((f"{bits}", s[bits]["base"]), (f"{bits} + TCEC", s[bits]["tcec_m1"]))):
        ax.scatter(*pts.T, s=14, marker="x" if n == 0 else "+", color=PALETTE[1 + n], label=name)
    ax.scatter(*s["fp"].T, s=14, facecolors="none", edgecolors="k", label="FP (same 16 seeds)")
    ax.set_xlabel("x₁")
    ax.set_ylabel("x₂")
    d = {n: float(np.mean(np.linalg.norm(s[bits][k] - s["fp"], axis=1))) for n, k in (("base", "base"), ("TCEC", "tcec_m1"))}
    ax.set_title(f"{bits}: mean distance to the FP sample, base {d['base']:.3f}, TCEC {d['TCEC']:.3f}")
    ax.legend(fontsize=7)
    return fig


def playground_figure(out: dict, label: str):
    """PSNR of each seed: base against TCEC."""
    fig, ax = new_figure(1, 1, width=5.0, height=3.6)
    ax.scatter(out["base"], out["tcec"], s=8, color=PALETTE[0])
    lim = [min(out["base"].min(), out["tcec"].min()), max(out["base"].max(), out["tcec"].max())]
    ax.plot(lim, lim, color="k", lw=0.8)
    ax.set_xlabel("PSNR of the base vs FP (dB)")
    ax.set_ylabel("PSNR with TCEC vs FP (dB)")
    better = float(np.mean(out["tcec"] > out["base"]))
    ax.set_title(f"{label}: TCEC better on {better:.0%} of seeds, mean Δ {np.mean(out['tcec'] - out['base']):+.2f} dB")
    return fig


def solver_error_curves(solver_result: dict, cfg: TCECConfig):
    """Mean ‖x̂_n − x_n‖ per step on the other samplers, without (solid) and with TCEC m=1 (dashed)."""
    from .claims import SOLVER_NAMES
    fig, ax = new_figure(1, 1, width=6.4, height=3.6)
    ratios = {}
    for i, (k, c) in enumerate(solver_result["cells"].items()):
        bits, _, _, solver = k.split("/")
        name = f"{SOLVER_NAMES.get(solver, solver)} {bits}"
        ax.plot(c["err_curve"], color=PALETTE[i % len(PALETTE)], label=name)
        ax.plot(c["err_curve_tcec"], color=PALETTE[i % len(PALETTE)], ls="--", label=f"{name} + TCEC")
        ratios[name] = c["err_curve_tcec"][-1] / c["err_curve"][-1]
    ax.set_yscale("log")
    ax.set_xlabel(f"sampling step n (of {cfg.steps[-1]})")
    ax.set_ylabel("mean ‖x̂_n − x_n‖ (data units)")
    best = min(ratios, key=ratios.get)
    ax.set_title(f"TCEC's final error relative to the base: {min(ratios.values()):.2f}× ({best}) to "
                 f"{max(ratios.values()):.2f}×")
    ax.legend(fontsize=7, ncol=2)
    return fig
