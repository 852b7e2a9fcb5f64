"""Figures of the skill-neologisms chapter (Berthon, Astorga & van der Schaar, ICML 2026, arXiv 2605.04970).

Every function takes results of :mod:`.experiments` (or a model and items) and returns a pyplot-free matplotlib
``Figure`` in the book's style. Nothing here decides a claim; every title is computed from the data passed in.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from ...runtime.style import PALETTE, new_figure
from .digits import OPS, DigitBatch, DigitVocab, apply_ops, op_token
from .evaluate import Accuracy
from .experiments import Competence, Composition, KeywordAnalogue, SkillStudy, UnitResult

METHOD_LABEL = {"base": "frozen base (literal token)", "neologism": "neologism", "prompt_tuning": "prompt tuning",
                "lora": "LoRA", "full_ft": "full fine-tuning", "oracle": "oracle (pretrained with S)"}
METHOD_COLOR = {"neologism": PALETTE[0], "prompt_tuning": PALETTE[1], "lora": PALETTE[2], "full_ft": PALETTE[3],
                "oracle": PALETTE[4], "base": "0.6"}


def _pooled(accs: Sequence[Accuracy]) -> float:
    n = sum(a.n for a in accs)
    return sum(a.k for a in accs) / n if n else float("nan")


# ------------------------------------------------------------------------------------------------ teaching figures
def ops_example_figure(ops: Sequence[str], digits: str):
    """The digit string after each operation, left to right (a worked example of the task)."""
    fig, ax = new_figure(1, 1, width=7.5, height=0.7 + 0.45 * (len(ops) + 1))
    x = np.array([[int(c) for c in digits]])
    lens = np.array([len(digits)])
    rows = [("input", digits)]
    for i, name in enumerate(ops):
        x = apply_ops(np.array([[OPS.index(name)]]), x, lens)
        rows.append((op_token(name), "".join(map(str, x[0]))))
    ax.set_axis_off()
    for r, (label, s) in enumerate(rows):
        y = len(rows) - 1 - r
        ax.text(0.0, y, label, ha="left", va="center", fontsize=10, family="monospace", color=PALETTE[0] if r else "0.2")
        for j, ch in enumerate(s):
            ax.text(0.42 + 0.06 * j, y, ch, ha="center", va="center", fontsize=12, family="monospace",
                    bbox=dict(boxstyle="round,pad=0.25", fc="#eef4fa" if r else "#f2f2f2", ec="0.7"))
    ax.set_xlim(-0.02, 0.5 + 0.06 * len(digits))
    ax.set_ylim(-0.7, len(rows) - 0.3)
    prompt = "".join(op_token(o) for o in ops) + digits + "=" + rows[-1][1]
    ax.set_title(f"The sample {prompt}: operations applied left to right", fontsize=10)
    return fig


def placement_figure(ell: int, example_ops: Sequence[str] = ("ADD", "SHIFT_RIGHT"), digits: str = "3141"):
    """Where the trainable tokens sit: the neologism in place of the skill's name, prompt tuning's prefix after
    ``<bos>`` with the name written literally, LoRA/full fine-tuning with the literal name and changed weights."""
    skill = example_ops[-1]
    rows = {
        "neologism": ["<bos>"] + [op_token(o) if o != skill else None for o in example_ops] + list(digits) + ["="],
        "prompt tuning": ["<bos>", "PREFIX"] + [op_token(o) for o in example_ops] + list(digits) + ["="],
        "LoRA / full FT": ["<bos>"] + [op_token(o) for o in example_ops] + list(digits) + ["="],
    }
    fig, ax = new_figure(1, 1, width=9.5, height=2.4)
    ax.set_axis_off()
    for r, (name, toks) in enumerate(rows.items()):
        y = 2 - r
        ax.text(-0.2, y, name, ha="right", va="center", fontsize=10)
        x = 0.0
        for tok in toks:
            if tok is None:                                   # the neologism's ℓ tokens
                for j in range(ell):
                    ax.text(x, y, f"s{j + 1}", ha="center", va="center", fontsize=9, family="monospace", color="white",
                            bbox=dict(boxstyle="round,pad=0.3", fc=PALETTE[0], ec=PALETTE[0]))
                    x += 0.55
                continue
            if tok == "PREFIX":
                for j in range(ell):
                    ax.text(x, y, f"p{j + 1}", ha="center", va="center", fontsize=9, family="monospace", color="white",
                            bbox=dict(boxstyle="round,pad=0.3", fc=PALETTE[1], ec=PALETTE[1]))
                    x += 0.55
                continue
            lit = tok == op_token(skill)
            w = 0.3 + 0.085 * len(tok)
            ax.text(x + w / 2 - 0.25, y, tok, ha="center", va="center", fontsize=9, family="monospace",
                    bbox=dict(boxstyle="round,pad=0.3", fc="#fde3e1" if lit else "#f2f2f2", ec="0.6"))
            x += w + 0.1
    ax.set_xlim(-2.4, 12.5)
    ax.set_ylim(-0.6, 2.6)
    ax.set_title(f"Trainable tokens: ℓ = {ell} neologism rows at the skill's position (blue), ℓ = {ell} prefix rows "
                 f"(orange); red: {op_token(skill)} written literally", fontsize=10)
    return fig


@torch.no_grad()
def attention_figure(model, items: DigitBatch, encode_fn, vocab: DigitVocab, skill_ids: Sequence[int]):
    """Attention of the answer positions to every prompt position, averaged over heads and over ``items`` (which
    must share one prompt length), per layer; the skill tokens' columns marked. Teacher-forced on the true
    answer."""
    e = encode_fn(items)
    gpt = model.gpt if hasattr(model, "gpt") else model
    _, probs = gpt(e.ids, attn="explicit", return_attn=True)
    P = int(e.prompt_len[0])
    L = int(items.lengths[0])
    rows = slice(P - 1, P - 1 + L + 1)                    # the positions that predict the answer and <eos>
    fig, axes = new_figure(1, len(probs), width=4.2 * len(probs), height=3.2)
    axes = np.atleast_1d(axes)
    ids = e.ids[0].tolist()
    labels = [vocab.tokenizer.decode([t]) if t < vocab.size else "s" for t in ids[:P + L]]
    shares = []
    for layer, (ax, p) in enumerate(zip(axes, probs)):
        a = p.mean(dim=(0, 1))[rows, :P + L].numpy()      # (answer positions, keys)
        ax.imshow(a, aspect="auto", cmap="Blues", vmin=0, vmax=max(1e-6, float(a.max())))
        ax.set_xticks(range(P + L))
        ax.set_xticklabels(labels, rotation=90, fontsize=7, family="monospace")
        ax.set_yticks(range(L + 1))
        ax.set_yticklabels([f"→{c}" for c in labels[P:P + L]] + ["→eos"], fontsize=7, family="monospace")
        cols = [i for i, t in enumerate(ids[:P]) if t in set(skill_ids)]
        for c in cols:
            ax.axvline(c, color=PALETTE[3], lw=0.6, alpha=0.6)
        share = float(a[:, cols].sum(axis=1).mean()) if cols else 0.0
        shares.append(share)
        ax.set(xlabel="attended position", ylabel="predicting", title=f"layer {layer + 1}: {share:.0%} of attention on skill tokens")
        ax.grid(False)
    fig.suptitle(f"Answer positions attend to the skill tokens: up to {max(shares):.0%} of their attention in one layer "
                 f"(mean over heads and {len(items)} items)", fontsize=11)
    return fig


def embedding_projection_figure(base_model, vocab: DigitVocab, skill_rows: dict[str, torch.Tensor], ops: Sequence[str],
                                init_row: torch.Tensor | None = None):
    """The learned skill rows projected on the first two principal components of the operation embeddings,
    beside the operation tokens themselves (and the mean-operation initial row)."""
    W = base_model.tok.weight.detach()
    op_rows = torch.stack([W[vocab.op_id(o)] for o in ops]).numpy()
    mu = op_rows.mean(0)
    _, _, vt = np.linalg.svd(op_rows - mu, full_matrices=False)
    proj = lambda x: (np.atleast_2d(x) - mu) @ vt[:2].T  # noqa: E731
    fig, ax = new_figure(1, 1, width=6.4, height=4.4)
    p = proj(op_rows)
    ax.scatter(p[:, 0], p[:, 1], color="0.35", s=30)
    for (x, y), o in zip(p, ops):
        ax.annotate(op_token(o), (x, y), fontsize=8, xytext=(3, 3), textcoords="offset points")
    nearest = {}
    for i, (name, rows) in enumerate(skill_rows.items()):
        q = proj(rows.numpy())
        ax.scatter(q[:, 0], q[:, 1], color=PALETTE[i % len(PALETTE)], marker="*", s=80, label=f"{name} rows")
        d = np.linalg.norm(rows.numpy()[:, None, :] - op_rows[None], axis=-1).mean(0)
        nearest[name] = ops[int(np.argmin(d))]
    if init_row is not None:
        q = proj(init_row.numpy())
        ax.scatter(q[:, 0], q[:, 1], color="k", marker="x", s=60, label="initial row (mean of ops)")
    ax.set(xlabel="PC 1 of the operation rows", ylabel="PC 2")
    ax.legend(fontsize=8)
    ax.set_title("Learned skill rows vs the operation tokens; nearest op: "
                 + ", ".join(f"{k} → {op_token(v)}" for k, v in nearest.items()), fontsize=10)
    return fig


# ------------------------------------------------------------------------------------------------ experiments
def competence_figure(comps: Sequence[Competence]):
    """The bases' exact match per operation alone (trained and held-out lengths), per number of operations, on
    held-out orders, and on the new skills written literally."""
    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=3.6, gridspec_kw={"width_ratios": [2.2, 1]})
    ops = list(comps[0].single)
    x = np.arange(len(ops))
    for j, (field, label) in enumerate((("single", "trained lengths"), ("single_heldout", "held-out lengths"))):
        vals = np.array([[getattr(c, field)[o].value for o in ops] for c in comps])
        ax.bar(x + (j - 0.5) * 0.38, vals.mean(0), 0.38, yerr=vals.std(0) if len(comps) > 1 else None,
               label=label, color=PALETTE[j])
    ax.set_xticks(x)
    ax.set_xticklabels([op_token(o) for o in ops], rotation=30, fontsize=8)
    ax.set(ylabel="exact match", ylim=(0, 1.05))
    ax.legend(fontsize=8, loc="lower left")
    cells = {f"{k} ops": [c.multi[k].value for c in comps] for k in comps[0].multi}
    if comps[0].heldout_orders is not None:
        cells["held-out\n3-op orders"] = [c.heldout_orders.value for c in comps]
    for s in comps[0].literal_new:
        cells[f"{s}\n(literal)"] = [c.literal_new[s].value for c in comps]
    keys = list(cells)
    ax2.bar(range(len(keys)), [np.mean(cells[k]) for k in keys], color=[PALETTE[2]] * (len(keys) - len(comps[0].literal_new))
            + ["0.6"] * len(comps[0].literal_new))
    ax2.set_xticks(range(len(keys)))
    ax2.set_xticklabels(keys, rotation=30, fontsize=7.5)
    ax2.set(ylim=(0, 1.05))
    worst = min(min(c.single[o].value for o in ops) for c in comps)
    multi = min(min(v) for k, v in cells.items() if "literal" not in k)
    lit = max((max(v) for k, v in cells.items() if "literal" in k), default=0.0)
    fig.suptitle(f"The base: every operation alone at ≥ {worst:.0%}, compositions at ≥ {multi:.0%}, the new skills "
                 f"written literally at ≤ {lit:.0%} ({len(comps)} base(s))", fontsize=11)
    return fig


def method_table(studies: Sequence[SkillStudy], oracle: dict | None = None) -> list[dict]:
    """One row per method: in-distribution, partner k = 2 and k = 3, held-out lengths, change on original
    operations (mean over units), trainable parameters, weights unchanged on every unit."""
    methods = ["base", "neologism", "prompt_tuning", "lora", "full_ft"]
    rows = []
    for m in methods:
        units = [u for st in studies for (mm, _), u in st.units.items() if mm == m]
        if units:
            rows.append(_row(m, units))
    if oracle:
        rows.append(_row("oracle", list(oracle.values())))
    return rows


def _row(method: str, units: Sequence[UnitResult]) -> dict:
    return {"method": METHOD_LABEL[method], "key": method, "units": len(units),
            "in_dist": float(np.mean([u.in_dist_all.value for u in units])),
            "partner_k2": float(np.mean([u.partner_k(2).value for u in units])),
            "partner_k3": float(np.mean([u.partner_k(3).value for u in units])) if units[0].partner_k(3).n else float("nan"),
            "heldout_len": float(np.mean([u.heldout_len.value for u in units])),
            "orig_change": float(np.mean([u.original_change for u in units])),
            "trainable": int(units[0].n_trainable),
            "unchanged": all(u.weights_unchanged for u in units)}


def method_figure(rows: Sequence[dict]):
    """Grouped bars of the method table."""
    cols = [("in_dist", "in-distribution"), ("partner_k2", "partner, k = 2"), ("partner_k3", "partner, k = 3"),
            ("heldout_len", "held-out lengths")]
    fig, (ax, ax2) = new_figure(1, 2, width=11, height=3.9, gridspec_kw={"width_ratios": [3, 1.2]})
    w = 0.8 / len(rows)
    for i, r in enumerate(rows):
        vals = [r[c] for c, _ in cols]
        ax.bar(np.arange(len(cols)) + (i - (len(rows) - 1) / 2) * w, vals, w, label=r["method"],
               color=METHOD_COLOR[r["key"]])
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([c for _, c in cols])
    ax.set(ylabel="exact match (mean over units)", ylim=(0, 1.05))
    ax.legend(fontsize=7.5, ncol=2)
    ax2.bar(range(len(rows)), [r["orig_change"] for r in rows], color=[METHOD_COLOR[r["key"]] for r in rows])
    ax2.axhline(0, color="0.3", lw=0.8)
    ax2.set_xticks(range(len(rows)))
    ax2.set_xticklabels([r["key"] for r in rows], rotation=35, fontsize=7.5)
    ax2.set(ylabel="change on original ops")
    by = {r["key"]: r for r in rows}
    best = max((r for r in rows if r["key"] not in ("oracle",)), key=lambda r: r["partner_k2"])
    title = f"Partner test (k = 2): best non-oracle method is {best['method']} at {best['partner_k2']:.2f}"
    if "neologism" in by and "prompt_tuning" in by:
        title += (f"; neologism {by['neologism']['partner_k2']:.2f} vs prompt tuning "
                  f"{by['prompt_tuning']['partner_k2']:.2f}")
    fig.suptitle(title, fontsize=11)
    return fig


def pattern_figure(studies: Sequence[SkillStudy], methods: Sequence[str] = ("neologism", "prompt_tuning", "lora", "full_ft")):
    """Partner accuracy per ordering pattern (rows: methods), pooled over units and lengths."""
    cells: dict[str, dict[tuple[int, str], list[Accuracy]]] = {}
    for st in studies:
        for (m, _), u in st.units.items():
            if m in methods:
                for key, a in u.partner_by_pattern().items():
                    cells.setdefault(m, {}).setdefault(key, []).append(a)
    keys = sorted({k for d in cells.values() for k in d})
    M = np.array([[_pooled(cells[m].get(k, [])) for k in keys] for m in methods if m in cells])
    names = [m for m in methods if m in cells]
    fig, ax = new_figure(1, 1, width=8.5, height=0.9 + 0.45 * len(names))
    im = ax.imshow(M, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"k={k}\n{p}" for k, p in keys], fontsize=7.5)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([METHOD_LABEL[m] for m in names], fontsize=8)
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", fontsize=7, color="w" if M[i, j] < 0.6 else "k")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="exact match")
    worst = keys[int(np.argmin(M[0]))] if M.size else None
    ax.set_title(f"Partner accuracy by ordering pattern (S = skill, T = held-out op, X = other); the "
                 f"{METHOD_LABEL[names[0]]}'s weakest pattern: k={worst[0]} {worst[1]}" if worst else "", fontsize=10)
    return fig


def curves_figure(studies: Sequence[SkillStudy], methods: Sequence[str] = ("neologism", "prompt_tuning", "lora", "full_ft")):
    """Validation (left) and partner (right) exact match during training, mean over units, per method."""
    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=3.6, sharey=True)
    finals = {}
    for m in methods:
        units = [u for st in studies for (mm, _), u in st.units.items() if mm == m and u.curve_steps.size]
        if not units:
            continue
        s = units[0].curve_steps
        ci = np.mean([u.curve_in for u in units], axis=0)
        cp = np.mean([u.curve_partner for u in units], axis=0)
        ax.plot(s, ci, marker="o", ms=3, color=METHOD_COLOR[m], label=METHOD_LABEL[m])
        ax2.plot(s, cp, marker="o", ms=3, color=METHOD_COLOR[m], label=METHOD_LABEL[m])
        finals[m] = cp[-1]
    ax.set(xlabel="update", ylabel="exact match (teacher-forced = greedy)", title="in-distribution validation", ylim=(0, 1.02))
    ax2.set(xlabel="update", title="partner test (held-out T)")
    ax.legend(fontsize=8)
    best = max(finals, key=finals.get) if finals else None
    fig.suptitle(f"Training curves at equal updates; at the end the partner test is led by "
                 f"{METHOD_LABEL.get(best, '—')} ({finals.get(best, float('nan')):.2f})", fontsize=11)
    return fig


def composition_figure(comps: Sequence[Composition]):
    """Zero-shot composition per length: both neologisms loaded vs each alone."""
    fig, ax = new_figure(1, 1, width=7.5, height=3.6)
    lengths = sorted({L for c in comps for (L, _) in c.both})
    both = [_pooled([a for c in comps for (L, _), a in c.both.items() if L == LL]) for LL in lengths]
    ax.plot(lengths, both, marker="o", color=PALETTE[0], label="both neologisms loaded")
    names = list(comps[0].alone)
    for i, name in enumerate(names):
        vals = [_pooled([a for c in comps for (L, _), a in c.alone[name].items() if L == LL]) for LL in lengths]
        ax.plot(lengths, vals, marker="s", ls="--", color=PALETTE[i + 1], label=f"{name} alone (other literal)")
    ax.set(xlabel="digit-string length", ylabel="exact match", ylim=(0, 1.02))
    ax.legend(fontsize=8)
    tb = _pooled([a for c in comps for a in c.both.values()])
    ta = max(_pooled([a for c in comps for a in c.alone[n].values()]) for n in names)
    ax.set_title(f"Zero-shot composition: {tb:.2f} with both loaded, at most {ta:.2f} with one", fontsize=10)
    return fig


def ablation_figure(studies: Sequence[SkillStudy], cfg):
    """Partner accuracy of the ablations on the first T: ℓ, initialisation, noisy labels; and the curves of the
    two initialisations."""
    t0 = cfg.test_ops[0]
    names = ["untrained"] + [f"ell={e}" for e in cfg.ablation_ells if e != cfg.ell] + ["main"]
    if cfg.ablation_random_init:
        names.append("init=random")
    names += [f"corrupt={c:g}" for c in cfg.ablation_corrupt if c > 0]

    def get(st, n):
        return st.units[("neologism", t0)] if n == "main" else st.ablations[n]

    vals = {n: [get(st, n).partner_k().value for st in studies] for n in names}
    labels = {"main": f"ℓ={cfg.ell}, mean init, clean", "untrained": "mean init, untrained"}
    fig, (ax, ax2) = new_figure(1, 2, width=11, height=3.7, gridspec_kw={"width_ratios": [1.4, 1]})
    ax.bar(range(len(names)), [np.mean(vals[n]) for n in names], color=[PALETTE[0] if n == "main" else "0.6" for n in names])
    for i, n in enumerate(names):
        ax.scatter([i] * len(vals[n]), vals[n], color="k", s=10, zorder=3)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([labels.get(n, n.replace("ell", "ℓ")) for n in names], rotation=25, fontsize=7.5)
    ax.set(ylabel="partner exact match", ylim=(0, 1.02))
    if cfg.ablation_random_init:
        for n, color in (("main", PALETTE[0]), ("init=random", PALETTE[3])):
            us = [get(st, n) for st in studies]
            ax2.plot(us[0].curve_steps, np.mean([u.curve_partner for u in us], axis=0), marker="o", ms=3, color=color,
                     label="mean-of-ops init" if n == "main" else "random init")
        ax2.set(xlabel="update", ylabel="partner exact match", ylim=(0, 1.02))
        ax2.legend(fontsize=8)
    best = max(names, key=lambda n: np.mean(vals[n]))
    fig.suptitle(f"Ablations on T = {t0} (dots: units): the best variant is {labels.get(best, best)} at "
                 f"{np.mean(vals[best]):.2f}", fontsize=11)
    return fig


def keyword_figure(kws: Sequence[KeywordAnalogue]):
    """One-operation accuracy with the op token, with its row replaced by the mean op row, and by a random row."""
    ops = list(kws[0].with_token)
    fig, ax = new_figure(1, 1, width=8.5, height=3.5)
    x = np.arange(len(ops))
    for j, (field, label) in enumerate((("with_token", "the operation's token"), ("mean_row", "mean operation row"),
                                        ("random_row", "random row, same norm"))):
        v = np.array([[getattr(k, field)[o].value for o in ops] for k in kws]).mean(0)
        ax.bar(x + (j - 1) * 0.27, v, 0.27, label=label, color=PALETTE[j])
    ax.set_xticks(x)
    ax.set_xticklabels([op_token(o) for o in ops], rotation=25, fontsize=8)
    ax.set(ylabel="exact match", ylim=(0, 1.05))
    ax.legend(fontsize=8)
    w = np.mean([[k.with_token[o].value for o in ops] for k in kws])
    m = np.mean([[k.mean_row[o].value for o in ops] for k in kws])
    r = np.mean([[k.random_row[o].value for o in ops] for k in kws])
    ax.set_title(f"Keyword analogue: {w:.2f} with the token, {m:.2f} with the mean row, {r:.2f} with a random row",
                 fontsize=10)
    return fig
