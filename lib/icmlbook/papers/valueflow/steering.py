"""Steering: prompt builders, a small conditional language model trained from scratch, the steering effect
table, refusal detection and the planted-asymmetry corpus (VALUEFLOW's steering study, on a CPU surrogate).

The paper prompts 10 LLMs to express a value at levels {-2, -1, +1, +2} and scores the answers with its
evaluator; :func:`strength_prompt`, :func:`user_text_prompt` and :func:`profile_prompt` build prompts of the
three kinds for a reader's own generator (the book calls none); :func:`composition_slopes` reads a multi-value
steering run (achieved effects of each value of a pair against what additivity predicts). Offline, :func:`train_steering_lm` trains a GPT of
:mod:`icmlbook.lm` on texts prefixed by control tokens ``<v:value> <l:level>``; a **planted asymmetry** makes
the negative-level training texts of some values weak (only "slightly" opposing), so a working measurement
protocol must find a muted negative steering effect for exactly those values. That validates the pipeline; it
is not evidence about LLMs.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import torch

from ...lm import GPT, GPTConfig, CharTokenizer, generate_texts, lm_loss
from ...training import LossLogger, Trainer, TrainerConfig, WarmupCosine
from .synthetic import MODIFIERS, generate_corpus, level_of
from .taxonomy import DEFINITIONS

__all__ = ["LEVEL_WORDS", "strength_prompt", "user_text_prompt", "profile_prompt", "is_refusal", "steering_corpus",
           "SteeringLM", "train_steering_lm", "steer", "delta_table", "asymmetry", "control_prefix",
           "CompositionFit", "composition_slopes"]

LEVEL_WORDS = {2: "strongly values", 1: "slightly values", -1: "slightly rejects", -2: "strongly rejects"}
_REFUSAL = re.compile(r"\b(I can(?:no|')t|I won't|I am unable|as an AI|I'm not able)\b", re.IGNORECASE)


def strength_prompt(value: str, level: int, query: str) -> str:
    """Intensity-anchor prompt: the value's persona definition with a strength cue, then the query."""
    if level not in LEVEL_WORDS:
        raise ValueError(f"level={level!r} is not allowed; allowed values: -2, -1, 1, 2 (0 is the unsteered default)")
    return (f"You are a person who {LEVEL_WORDS[level]} {value} ({DEFINITIONS[value]}). "
            f"Answer in at most 100 words.\n{query}")


def user_text_prompt(examples, query: str) -> str:
    """User-text prompt: three database texts of the target bin shown as things the user said."""
    if len(examples) != 3:
        raise ValueError(f"give exactly three example texts, got {len(examples)}")
    said = "\n".join(f"- {e}" for e in examples)
    return f"The user said or agreed with:\n{said}\nAnswer as this user would, in at most 100 words.\n{query}"


def profile_prompt(targets: dict, query: str) -> str:
    """Multi-value profile prompt (the paper's multi-value steering): one bullet per (value, level), each the
    value's definition with its strength cue, then the query. ``targets`` maps value -> level in {-2, -1, 1, 2}."""
    if not targets:
        raise ValueError("targets is empty: give at least one value -> level")
    for v, lv in targets.items():
        if v not in DEFINITIONS:
            raise ValueError(f"value={v!r} is not a steered value of the four theories")
        if lv not in LEVEL_WORDS:
            raise ValueError(f"level={lv!r} for {v!r} is not allowed; allowed values: -2, -1, 1, 2")
    lines = "\n".join(f"- {LEVEL_WORDS[lv]} {v}: {DEFINITIONS[v]}" for v, lv in targets.items())
    return f"Your value profile:\n{lines}\nAnswer in at most 100 words.\n{query}"


def is_refusal(text: str) -> bool:
    """Keyword refusal detector (refusals are reported apart, never scored as neutral)."""
    return bool(_REFUSAL.search(text))


def control_prefix(value: str, level: int) -> str:
    return f"<v:{value}><l:{level:+d}>"


def steering_corpus(values, planted, n_per_level: int, seed: int) -> list[tuple[str, int, str]]:
    """(value, level, text) rows: ``n_per_level`` texts of every value and level in {-2..2}; for values in
    ``planted`` the texts of levels -1 and -2 are replaced by texts that only *slightly* oppose (intensity -2)."""
    rng = np.random.default_rng(seed)
    rows = []
    for v in values:
        c = generate_corpus(max(40, 8 * n_per_level), int(rng.integers(2**31)), values=[v], neutral_share=0.2)
        lv = level_of(c.intensity)
        for level in (-2, -1, 0, 1, 2):
            if v in planted and level < 0:
                pool = np.flatnonzero(np.isclose(c.intensity, -MODIFIERS["slightly"]))
            else:
                pool = np.flatnonzero(lv == level)
            if pool.size == 0:
                raise ValueError(f"no text of level {level} for value {v!r}: raise the corpus size")
            for i in rng.choice(pool, size=n_per_level, replace=pool.size < n_per_level):
                rows.append((v, level, c.texts[i]))
    return rows


@dataclasses.dataclass
class SteeringLM:
    """The trained small LM and its tokenizer; ``loss`` the training curve."""

    model: GPT
    tok: CharTokenizer
    loss: np.ndarray
    backend: str = "small GPT trained from scratch (icmlbook.lm)"


def _tokenizer(rows) -> CharTokenizer:
    words = sorted({" " + w for _, _, t in rows for w in t.split(" ")} | {t.split(" ")[0] for _, _, t in rows})
    ctrl = sorted({control_prefix(v, lv)[:control_prefix(v, lv).index(">") + 1] for v, lv, _ in rows}
                  | {f"<l:{lv:+d}>" for lv in (-2, -1, 0, 1, 2)})
    tok = CharTokenizer(set("".join(t for _, _, t in rows)), special=("<bos>", "<eos>", "<pad>"))
    tok.add_tokens(ctrl + words)
    return tok


def train_steering_lm(rows, *, steps: int, batch: int, lr: float, n_layer: int, d_model: int, seed: int,
                      device: str = "cpu") -> SteeringLM:
    """Train a GPT (``n_layer`` blocks, width ``d_model``) on ``<v:..><l:..> text<eos>`` rows."""
    tok = _tokenizer(rows)
    seqs = [tok.encode(control_prefix(v, lv) + t) + [tok.special["eos"]] for v, lv, t in rows]
    T = max(len(s) for s in seqs)
    pad = tok.special["pad"]
    X = torch.full((len(seqs), T), pad, dtype=torch.long)
    for i, s in enumerate(seqs):
        X[i, : len(s)] = torch.tensor(s)
    torch.manual_seed(seed)
    model = GPT(GPTConfig(vocab_size=tok.vocab_size, n_layer=n_layer, d_model=d_model, n_head=max(1, d_model // 32),
                          max_len=T + 32))

    def data(i, gen):
        return X[torch.randint(len(X), (batch,), generator=gen)]

    def loss_fn(m, b):
        # the two control tokens are given, never predicted
        mask = (b[:, 1:] != pad).clone()
        mask[:, :1] = False
        return lm_loss(m(b[:, :-1]), b[:, 1:], mask)

    trainer = Trainer(model, torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01), loss_fn, data,
                      callbacks=[LossLogger(every=max(1, steps // 50))], config=TrainerConfig(steps=steps, schedule=WarmupCosine(max(1, steps // 20), steps, 0.1), seed=seed,
                                    grad_clip=1.0, device=device, threads=1, show_progress=True,
                                    desc="small LM (steering)"))
    trainer.run()
    steps_, loss = trainer.history("loss")
    return SteeringLM(model.cpu().eval(), tok, np.asarray(loss, dtype=float))


def steer(lm: SteeringLM, values, n_gen: int, seed: int, temperature: float = 1.0, max_new: int = 24) -> dict:
    """``{(value, level): [texts]}``: ``n_gen`` samples per value and level in {-2..2}."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    eos = lm.tok.special["eos"]
    for v in values:
        for level in (-2, -1, 0, 1, 2):
            prompts = [control_prefix(v, level)] * n_gen
            out[(v, level)] = [t.strip() for t in generate_texts(lm.model, lm.tok, prompts, max_new,
                                                                 temperature=temperature, generator=g, stop=[eos],
                                                                 pad_id=lm.tok.special["pad"])]
    return out


def delta_table(scores: dict) -> dict:
    """``{(value, level): (mean, sd, n)}`` of scores and the steering effects Delta = mean(level) - mean(0)."""
    out = {}
    for (v, level), s in scores.items():
        s = np.asarray(s, dtype=float)
        base = np.asarray(scores[(v, 0)], dtype=float)
        out[(v, level)] = {"mean": float(s.mean()), "sd": float(s.std(ddof=1)) if s.size > 1 else 0.0, "n": s.size,
                           "delta": float(s.mean() - base.mean())}
    return out


def asymmetry(scores: dict, value: str, level: int = 2) -> tuple[float, float]:
    """Asymmetry a = Delta(+level) + Delta(-level) of ``value`` and its standard error (independent samples):
    a > 0 when negative steering is muted; 0 for symmetric steering."""
    p, n, z = (np.asarray(scores[(value, s)], dtype=float) for s in (level, -level, 0))
    a = p.mean() + n.mean() - 2 * z.mean()
    se = np.sqrt(p.var(ddof=1) / p.size + n.var(ddof=1) / n.size + 4 * z.var(ddof=1) / z.size)
    return float(a), float(se)


@dataclasses.dataclass
class CompositionFit:
    """Composition slopes of one value pair (see :func:`composition_slopes`). ``targets`` (T, 2) the requested
    levels; ``achieved`` (T, 2) the steering effects measured under the profile; ``predicted`` (T, 2) what
    additivity predicts (each value's single-value effect at its level); ``slope``/``se`` per value over all
    targets; ``slope_similar``/``slope_conflict`` per value over the targets whose two levels have the same /
    opposite signs (NaN where there are none); in a conflicting target, the value with the positive level is the
    strong anchor."""

    pair: tuple
    targets: np.ndarray
    achieved: np.ndarray
    predicted: np.ndarray
    slope: np.ndarray
    se: np.ndarray
    slope_similar: np.ndarray
    slope_conflict: np.ndarray
    slope_conflict_anchor: float
    slope_conflict_other: float
    #: standard errors of the two pooled conflicting-target slopes (residual spread about each fit)
    se_conflict_anchor: float = float("nan")
    se_conflict_other: float = float("nan")


def _slope(x, y) -> tuple[float, float]:
    """Least-squares slope through the origin of y on x and its standard error (NaN when undefined)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    sxx = float(x @ x)
    if x.size == 0 or sxx == 0:
        return float("nan"), float("nan")
    b = float(x @ y) / sxx
    se = float(np.sqrt(((y - b * x) ** 2).sum() / (x.size - 1) / sxx)) if x.size > 1 else float("nan")
    return b, se


def composition_slopes(pair_scores: dict, single_scores: dict, pair: tuple) -> CompositionFit:
    """Composition slopes of multi-value steering (VALUEFLOW's composition study; our reconstruction of "the
    slope shows additivity"). ``single_scores[(value, level)]``: evaluator scores of single-value steering, level 0
    the unsteered default; ``pair_scores[(l1, l2)] = (scores of value 1, scores of value 2)`` under the profile
    asking value 1 at l1 and value 2 at l2. The achieved effect of a value is its mean score under the profile
    minus its default mean; additivity predicts its single-value effect at the same level. Each value's slope is
    the least-squares slope (through the origin) of achieved on predicted effects: 1 when composing leaves every
    effect as it was, below 1 when it attenuates; in conflicting targets (levels of opposite signs), strong-anchor
    dominance is a slope near 1 for the positive-level value and near 0 for the other."""
    c1, c2 = pair
    base = [np.mean(single_scores[(c, 0)]) for c in pair]
    single = {(c, lv): np.mean(single_scores[(c, lv)]) - b for c, b in zip(pair, base) for lv in LEVEL_WORDS
              if (c, lv) in single_scores}
    targets, ach, pred = [], [], []
    for (l1, l2), (s1, s2) in sorted(pair_scores.items()):
        for c, lv in ((c1, l1), (c2, l2)):
            if (c, lv) not in single:
                raise ValueError(f"single_scores has no ({c!r}, {lv}) to predict the additive effect")
        targets.append((l1, l2))
        ach.append((np.mean(s1) - base[0], np.mean(s2) - base[1]))
        pred.append((single[(c1, l1)], single[(c2, l2)]))
    if not targets:
        raise ValueError("pair_scores is empty")
    T, A, P = np.array(targets), np.array(ach), np.array(pred)
    fits = [_slope(P[:, j], A[:, j]) for j in range(2)]
    same = np.sign(T[:, 0]) == np.sign(T[:, 1])
    sim = np.array([_slope(P[same, j], A[same, j])[0] for j in range(2)])
    con = np.array([_slope(P[~same, j], A[~same, j])[0] for j in range(2)])
    # pooled over conflicting targets: the value asked at a positive level (the anchor) and the other one
    anchor_j = (T[~same, 1] > 0).astype(int)
    rows = np.arange(anchor_j.size)
    P_c, A_c = P[~same], A[~same]
    anchor = _slope(P_c[rows, anchor_j], A_c[rows, anchor_j])
    other = _slope(P_c[rows, 1 - anchor_j], A_c[rows, 1 - anchor_j])
    return CompositionFit(tuple(pair), T, A, P, np.array([f[0] for f in fits]), np.array([f[1] for f in fits]),
                          sim, con, anchor[0], other[0], anchor[1], other[1])
