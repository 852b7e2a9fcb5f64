r"""Training in the digit world, all on the book's one trainer (:mod:`icmlbook.training`): the base model's
pretraining, the skill neologism, and the paper's baselines (prompt tuning, LoRA), plus full fine-tuning and an
oracle base that knows the new skill as a real operation.

Every method sees the same stream of skill-centred batches (:class:`DigitStream`, stateless: batch ``i`` is drawn
from ``(seed, i)``), the same number of updates, the same warm-up + cosine schedule, and the answer-only loss

.. math::  \mathcal L = -\frac{1}{|A|}\sum_{(b,t)\in A}\log p(y_{b,t}\mid y_{b,<t}),

:math:`A` the answer positions (result digits and ``<eos>``; :func:`icmlbook.lm.lm_loss` with the answer mask).
What differs is what is trained and how the new skill is written:

=====================  ======================================  =============================================
method                 trainable                               the skill in the prompt
=====================  ======================================  =============================================
``neologism``          ℓ new rows                              its ℓ new tokens, at the operation's position
``prompt_tuning``      ℓ new rows                              its literal (never trained) op token; the ℓ
                                                               soft tokens after ``<bos>``
``lora``               rank-r adapters on every projection     its literal op token
                       (``peft``; r = 16, α = 16 in the paper)
``full_ft``            every weight                            its literal op token
=====================  ======================================  =============================================

The literal token plays the role of the paper's ``[SHIFT_RIGHT]`` written as text, which the adapted Qwen base had
never seen as an operation name.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Callable, Literal, Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ...lm import GPT, GPTConfig, lm_loss
from ...training import Evaluate, LossLogger, Trainer, TrainerConfig, WarmupCosine
from .digits import (DigitBatch, DigitVocab, EncodedBatch, encode, heldout_orders, random_pads, sample_pretraining,
                     sample_skill_centred)
from .skills import PREFIX, Skill, SkilledLM, init_rows

__all__ = ["METHODS", "DigitStream", "BaseModel", "build_gpt", "pretrain_base", "answer_loss", "teacher_forced_exact",
           "Adapted", "attach_lora", "make_adapter", "train_method", "TrainedMethod", "effective_state"]

METHODS = ("neologism", "prompt_tuning", "lora", "full_ft")
Method = Literal["neologism", "prompt_tuning", "lora", "full_ft"]
LORA_TARGETS = ("q", "k", "v", "o", "up", "gate", "down")


class DigitStream:
    """The trainer's data source: batch ``i`` = ``encode_fn(sampler(rng_i, batch_size, i))`` with
    ``rng_i = numpy.random.default_rng([seed, i])`` (or ``augment(rng_i, items)``, an encoder that draws, e.g.,
    random pads); returns ``(ids, targets, loss_mask)``. Stateless, so a
    resumed or re-run training sees the same batches, and two methods given the same ``seed`` see the same items
    (each written its own way by its ``encode_fn``)."""

    def __init__(self, sampler: Callable[[np.random.Generator, int, int], DigitBatch],
                 encode_fn: Callable[[DigitBatch], EncodedBatch], batch_size: int, seed: int,
                 augment: Callable[[np.random.Generator, DigitBatch], EncodedBatch] | None = None):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size={batch_size!r} is not allowed; it must be an integer >= 1")
        self.sampler, self.encode_fn, self.batch_size, self.seed = sampler, encode_fn, batch_size, int(seed)
        self.augment = augment

    def _rng(self, i: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence([self.seed, int(i)]))

    def batch(self, i: int) -> DigitBatch:
        return self.sampler(self._rng(i), self.batch_size, int(i))

    def __call__(self, i: int, generator: torch.Generator | None = None):
        rng = self._rng(i)
        b = self.sampler(rng, self.batch_size, int(i))
        e = self.encode_fn(b) if self.augment is None else self.augment(rng, b)
        return e.ids, e.targets, e.loss_mask


def answer_loss(model: nn.Module, batch) -> torch.Tensor:
    """Mean cross-entropy over the answer positions (the loss of the paper: prompt and padding masked).

    The batch is right-padded to its longest row, and a third to a half of its positions are padding after the
    rows' answers (mixed lengths and numbers of operations). The model is causal, so the logits at a row's answer
    positions do not depend on what follows them: the rows are split (:func:`_two_width_split`) into the narrower
    and the wider ones, each part is run cut to its own widest row, and the summed answer cross-entropy of the parts
    is divided by the batch's answer positions. That is the full-width pass's loss and gradient (up to float
    rounding: tested), at about two thirds of its cost in pretraining. With one part it is :func:`icmlbook.lm.lm_loss`
    on the batch cut to its widest row."""
    ids, targets, mask = batch
    widths = _loss_widths(mask)
    parts = _two_width_split(widths)
    if len(parts) == 1:
        w = int(widths.max())
        return lm_loss(model(ids[:, :w]), targets[:, :w], mask[:, :w])
    total = 0.0
    for rows in parts:
        w = int(widths[rows].max())
        r = torch.as_tensor(rows)
        logits = model(ids[r, :w])
        flat = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets[r, :w].reshape(-1), reduction="none")
        total = total + (flat * mask[r, :w].reshape(-1).to(flat.dtype)).sum()
    return total / mask.sum().clamp(min=1).to(total.dtype)


def _loss_widths(mask: torch.Tensor) -> np.ndarray:
    """Per row, the positions the loss needs: the last answer position + 1 (at least 1; a row without answer
    positions adds nothing to the loss and keeps one)."""
    m = mask.cpu().numpy()
    T = m.shape[1]
    last = T - 1 - np.argmax(m[:, ::-1], axis=1)
    return np.where(m.any(axis=1), last + 1, 1)


def _two_width_split(widths: np.ndarray, min_saving: float = 0.1) -> list[np.ndarray]:
    """The rows sorted by width and cut once where the positions computed, ``n_1 w_1 + n_2 w_2`` (each part run at
    its widest row), are fewest; one part (all rows) when the cut saves less than ``min_saving`` of the one-part
    ``n w``. A second forward pass has a fixed cost, so one cut (measured: 95 -> 64 ms per pretraining update)
    beats finer buckets on this model."""
    order = np.argsort(widths, kind="stable")
    ws = widths[order]
    n = ws.size
    if n < 2:
        return [order]
    i = np.arange(1, n)
    cost = i * ws[i - 1] + (n - i) * ws[-1]
    best = int(np.argmin(cost))
    if cost[best] > (1.0 - min_saving) * n * ws[-1]:
        return [order]
    cut = int(i[best])
    return [order[:cut], order[cut:]]


def _row_widths(e: EncodedBatch) -> np.ndarray:
    """Per row, the positions a teacher-forced check needs: up to the last position whose target is an answer token
    (the one that predicts ``<eos>``), i.e. the last ``loss_mask`` position + 1; a row with no answer target keeps
    the whole width."""
    T = e.ids.shape[1]
    mask = e.loss_mask.numpy()
    has = mask.any(axis=1)
    last = T - 1 - np.argmax(mask[:, ::-1], axis=1)
    return np.where(has, last + 1, T)


def _width_buckets(widths: np.ndarray, waste: float = 0.25) -> list[np.ndarray]:
    """Rows sorted by width and cut into buckets whose widest row is at most ``1 + waste`` times the narrowest."""
    order = np.argsort(widths, kind="stable")
    out, start = [], 0
    for i in range(1, order.size + 1):
        if i == order.size or widths[order[i]] > widths[order[start]] * (1.0 + waste):
            out.append(order[start:i])
            start = i
    return out


@torch.no_grad()
def teacher_forced_exact(model: nn.Module, e: EncodedBatch, zeroed: Sequence[int] = ()) -> np.ndarray:
    """Per item, whether the argmax at every answer position (given the true answer so far) is the true token.

    This equals exact match of greedy decoding: greedy decoding reproduces the answer token by token exactly
    when each of these argmaxes is right, and leaves it at the first one that is not (the tests check the two
    agree). One forward pass instead of one per generated token, so training curves can afford it. Rows are
    grouped by length (:func:`_width_buckets`) and each group is cut to its widest row: the rows are right-padded
    and the model is causal, so the logits at the kept positions are those of the full-width pass, and the
    padding after a short answer is not computed (about a third of the positions of a mixed-length set)."""
    n = e.ids.shape[0]
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    widths = _row_widths(e)
    zeroed = list(zeroed)
    was = model.training
    model.eval()
    try:
        for rows in _width_buckets(widths):
            w = int(widths[rows].max())
            r = torch.as_tensor(rows)
            logits = model(e.ids[r, :w]).float()
            if zeroed:
                logits[..., zeroed] = 0.0
            ok = (logits.argmax(-1) == e.targets[r, :w]) | ~e.loss_mask[r, :w]
            out[rows] = ok.all(dim=1).cpu().numpy()
        return out
    finally:
        model.train(was)


# ------------------------------------------------------------------------------------------------ the base model
@dataclasses.dataclass
class BaseModel:
    """A pretrained base: its GPT config and weights (CPU), the operations it was trained on, and its curves."""

    config: GPTConfig
    state: dict
    ops: tuple[str, ...]
    steps: np.ndarray
    loss: np.ndarray
    seconds: float

    def model(self) -> GPT:
        m = GPT(self.config)
        m.load_state_dict(self.state)
        m.eval()
        return m


def build_gpt(vocab: DigitVocab, d_model: int, n_layer: int, n_head: int, max_len: int = 64) -> GPT:
    """The base architecture: the lab's GPT with a tied head (as Qwen2.5-0.5B, the paper's base), RoPE, RMSNorm,
    SwiGLU, no biases."""
    return GPT(GPTConfig(vocab_size=vocab.size, n_layer=n_layer, d_model=d_model, n_head=n_head, max_len=max_len,
                         tie_embeddings=True))


def pretrain_base(vocab: DigitVocab, *, ops: Sequence[str], lengths: Sequence[int], ks: Sequence[int],
                  heldout_fraction: float, world_seed: int, d_model: int, n_layer: int, n_head: int, steps: int,
                  phase1_fraction: float, batch_size: int, lr: float, warmup: int, weight_decay: float, seed: int,
                  pad_left: int = 0, pad_prob: float = 0.0, pad_max: int = 0,
                  show_progress: bool = False) -> BaseModel:
    """Pretrain a base GPT from scratch on the digit world (the paper adapts Qwen2.5-0.5B with LoRA instead).

    Phase 1 (the first ``phase1_fraction`` of the updates) shows one operation per sample, phase 2 one to
    ``max(ks)`` distinct operations; ordered 3-operation sequences in :func:`.digits.heldout_orders` (drawn with
    ``world_seed``) are never shown. Prompts get random ``<pad>`` fillers (:func:`.digits.random_pads`: up to
    ``pad_left`` after ``<bos>``; around each operation token with probability ``pad_prob``, 1 to ``pad_max`` of
    them). AdamW, warm-up + cosine to 10 %, gradient clipping at 1."""
    torch.manual_seed(seed)
    model = build_gpt(vocab, d_model, n_layer, n_head)
    held = heldout_orders(ops, heldout_fraction, world_seed) if max(ks) >= 3 else frozenset()
    phase1 = int(round(phase1_fraction * steps))

    def sampler(rng, n, i):
        return sample_pretraining(rng, n, ops, (1,) if i < phase1 else ks, lengths, held)

    stream = DigitStream(sampler, lambda b: encode(b, vocab), batch_size, seed,
                         augment=lambda rng, b: encode(b, vocab, pads=random_pads(rng, b, pad_left, pad_prob, pad_max)))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, betas=(0.9, 0.98))
    trainer = Trainer(model, opt, answer_loss, stream,
                      TrainerConfig(steps=steps, schedule=WarmupCosine(warmup, steps, 0.1), grad_clip=1.0, seed=seed,
                                    device="cpu", threads=1, show_progress=show_progress, desc="pretraining"),
                      callbacks=[LossLogger(every=max(1, steps // 100))])
    trainer.run()
    s, loss = trainer.history("loss")
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return BaseModel(model.cfg, state, tuple(ops), s, loss, trainer.seconds)


# ------------------------------------------------------------------------------------------------ the methods
def attach_lora(base: GPT, r: int, alpha: float, dropout: float = 0.0) -> nn.Module:
    """A copy of ``base`` with ``peft``'s LoRA on every projection (q, k, v, o, up, gate, down):
    :math:`W x + \\frac{\\alpha}{r} B A x`, ``A`` Kaiming-uniform, ``B = 0`` at the start; only ``A`` and ``B``
    train."""
    from peft import LoraConfig, inject_adapter_in_model

    model = copy.deepcopy(base)
    cfg = LoraConfig(r=int(r), lora_alpha=float(alpha), lora_dropout=float(dropout), target_modules=list(LORA_TARGETS),
                     bias="none")
    model = inject_adapter_in_model(cfg, model)
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    return model


@dataclasses.dataclass
class Adapted:
    """A method's model ready to train: the module, its trainable parameters, how it writes a batch
    (``encode_fn(batch, answer=True, require=True)``; ``require`` refuses items without the skill's marker where
    the method inserts tokens for it), and the ids whose logits are zeroed at decoding."""

    method: str
    model: nn.Module
    params: list[nn.Parameter]
    encode_fn: Callable[..., EncodedBatch]
    zeroed: list[int]

    @property
    def n_trainable(self) -> int:
        return int(sum(p.numel() for p in self.params))


def make_adapter(method: Method, base: GPT, vocab: DigitVocab, skill: str, *, length: int,
                 init: str = "mean_ops", lora_r: int = 16, lora_alpha: float = 16.0,
                 generator: torch.Generator | None = None, zero_new_logits: bool = False) -> Adapted:
    """Build ``method`` on a copy of ``base`` for ``skill`` (the base itself is never modified)."""
    if method == "neologism":
        m = SkilledLM(base, [Skill(skill, init_rows(base, vocab, length, init, generator))],
                      zero_new_logits=zero_new_logits)
        return Adapted(method, m, m.trainable(),
                       lambda b, answer=True, require=True: m.encode(b, vocab, answer, require=(skill,) if require else ()),
                       m.new_ids)
    if method == "prompt_tuning":
        m = SkilledLM(base, prefix=Skill(PREFIX, init_rows(base, vocab, length, init, generator)),
                      zero_new_logits=zero_new_logits)
        return Adapted(method, m, m.trainable(), lambda b, answer=True, require=True: m.encode(b, vocab, answer),
                       m.new_ids)
    plain = lambda b, answer=True, require=True: encode(b, vocab, answer=answer)  # noqa: E731
    if method == "lora":
        m = attach_lora(base, lora_r, lora_alpha)
        return Adapted(method, m, [p for p in m.parameters() if p.requires_grad], plain, [])
    if method == "full_ft":
        m = copy.deepcopy(base)
        for p in m.parameters():
            p.requires_grad_(True)
        return Adapted(method, m, list(m.parameters()), plain, [])
    raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(METHODS)}")


@dataclasses.dataclass
class TrainedMethod:
    """A method after training: the adapted model, the validation curve (teacher-forced exact match, equal to
    greedy exact match) at ``curve_steps``, and the loss curve."""

    adapted: Adapted
    curve_steps: np.ndarray
    curve: np.ndarray
    loss_steps: np.ndarray
    loss: np.ndarray
    seconds: float
    extra_curves: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def train_method(adapted: Adapted, *, skill: str, others: Sequence[str], ks: Sequence[int], lengths: Sequence[int],
                 steps: int, batch_size: int, lr: float, warmup: int, weight_decay: float, seed: int,
                 val: DigitBatch, eval_at: Sequence[int], corrupt: float = 0.0,
                 extra_eval: dict[str, EncodedBatch] | None = None, show_progress: bool = False) -> TrainedMethod:
    """Train ``adapted`` on :math:`D(S,\\Sigma)` (``skill``, ``others`` = Σ) for ``steps`` AdamW updates (warm-up +
    cosine to 10 %, clipping at 1), evaluating the validation exact match (and that of each encoded set in
    ``extra_eval``) at the steps ``eval_at``."""
    stream = DigitStream(lambda rng, n, i: sample_skill_centred(rng, n, skill, others, ks, lengths, corrupt),
                         adapted.encode_fn, batch_size, seed)
    val_e = adapted.encode_fn(val)
    opt = torch.optim.AdamW(adapted.params, lr=lr, weight_decay=weight_decay, betas=(0.9, 0.98))
    extra_eval = dict(extra_eval or {})

    def measure(m):
        out = {"val_exact": float(teacher_forced_exact(m, val_e, adapted.zeroed).mean())}
        for name, e in extra_eval.items():
            out[name] = float(teacher_forced_exact(m, e, adapted.zeroed).mean())
        return out

    ev = Evaluate(measure, at=sorted(set(int(s) for s in eval_at)))
    trainer = Trainer(adapted.model, opt, answer_loss, stream,
                      TrainerConfig(steps=steps, schedule=WarmupCosine(min(warmup, steps - 1), steps, 0.1),
                                    grad_clip=1.0, seed=seed, device="cpu", threads=1, show_progress=show_progress,
                                    desc=adapted.method),
                      callbacks=[LossLogger(every=max(1, steps // 50)), ev])
    trainer.run()
    adapted.model.eval()
    cs, cv = trainer.history("val_exact") if "val_exact" in trainer.records() else (np.zeros(0, int), np.zeros(0))
    ls, lv = trainer.history("loss")
    extra = {name: trainer.history(name)[1] for name in extra_eval if name in trainer.records()}
    return TrainedMethod(adapted, cs, cv, ls, lv, trainer.seconds, extra)


@torch.no_grad()
def effective_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The weights ``model`` computes with, under the base model's names: a LoRA layer's ``W + (α/r) B A``
    (``peft``'s ``get_delta_weight``) in place of ``W``, adapters and the skill rows left out. Equal to the base's
    state dict exactly when the method has not changed what the base computes."""
    out: dict[str, torch.Tensor] = {}
    deltas = {}
    for name, mod in model.named_modules():
        if hasattr(mod, "base_layer") and hasattr(mod, "get_delta_weight") and getattr(mod, "active_adapters", None):
            w = mod.base_layer.weight.detach().clone()
            for a in mod.active_adapters:
                w += mod.get_delta_weight(a)
            deltas[f"{name}.weight"] = w
    for name, t in model.state_dict().items():
        if "lora_" in name or name.endswith(("tok.extra", "head_extra")):
            continue
        clean = name.replace(".base_layer", "")
        out[clean] = deltas.get(clean, t)
    return out
