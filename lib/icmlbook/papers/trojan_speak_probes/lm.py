r"""The chapter's language model: the lab's character tokenizer and GPT, the dialogue layout, pretraining and
format fine-tuning through the book's trainer, and the capability measures.

Layout of one dialogue (token ids of the lab's byte-level BPE or character tokenizer, all rows of one width so that a batch of prompts decodes in one call)::

    <pad> ... <pad> <bos> <fmt:F> r e q u e s t <sep> | a n s w e r <eos> <pad> ...
    '---------------- prompt: prompt_width ----------' '-- answer: answer_width --'

The prompt is left-padded to ``prompt_width`` (so every prompt ends at the same position and the answer starts
there); the answer and its ``<eos>`` are right-padded to ``answer_width``. The language-model loss is the mean
next-token cross-entropy over every non-pad target after ``<bos>`` (request and answer alike: plain supervised
learning, nothing else). ``F`` is ``plain`` or a cipher name (:mod:`.ciphers`); in an encoded dialogue the
answer is written in the cipher (the request stays plain: an output format).

Training (:func:`pretrain`, :func:`format_finetune`) goes through :class:`icmlbook.training.Trainer` with AdamW
and a warm-up + cosine schedule; no reinforcement learning, no reward, no monitor in the loop. Format
fine-tuning teaches every cipher of the config on all topics alike, either **abrupt** (format data only) or
**mixed** (a fraction ``mix_fraction`` of every batch is ordinary pretraining data), with the same number of
updates, batch size and learning rate.

Capability (:func:`capability`): exact-match accuracy on arithmetic ("what is 12+7?" -> "19."), on operand pairs
held out of all training and on the trained pairs, and the mean next-token loss on fresh plain dialogues' answers.
Exact match is read from one teacher-forced pass: greedy decoding reproduces an answer exactly when every answer
token (and the ``<eos>``) is the arg-max given the correct prefix.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

import numpy as np
import torch

from ...lm import GPT, BPETokenizer, CharTokenizer, GPTConfig, lm_loss
from ...training import Evaluate, LossLogger, ShuffledBatches, Trainer, TrainerConfig, WarmupCosine
from .ciphers import CIPHERS
from .world import ALPHABET, Dialogue, World

__all__ = ["FORMAT_TAGS", "SPECIAL_TOKENS", "TOKENIZERS", "tokenizer_corpus", "make_tokenizer", "DialogueCodec", "build_model", "TrainCurves", "pretrain",
           "format_finetune", "capability", "Capability", "lm_batch_loss", "pretrain_mixture", "format_data"]

#: the format tags, one special token each
FORMAT_TAGS: dict[str, str] = {f: f"<fmt:{f}>" for f in ("plain",) + CIPHERS}


SPECIAL_TOKENS: tuple[str, ...] = ("<bos>", "<eos>", "<pad>", "<sep>", *FORMAT_TAGS.values())
TOKENIZERS: tuple[str, ...] = ("bpe", "char")


def tokenizer_corpus(world: World, n: int = 6000) -> list[str]:
    """The fixed corpus a BPE tokenizer is trained on: ``n`` dialogues (seeded with 0, independent of the run's
    seed) written in plain and in every cipher, and every arithmetic dialogue. The tokenizer is fixed before any
    model is trained, like a real model's tokenizer; it knows the ciphers' strings but nothing about topics."""
    g = np.random.default_rng(np.random.SeedSequence([0, 2024]))
    texts = []
    for d in world.draw(n, g, free_fraction=0.2):
        for f in ("plain",) + CIPHERS:
            texts.extend(world.render(d, f))
    for a in range(world.arith_max):
        for b in range(world.arith_max):
            texts.extend(world.render(world.arith_dialogue(a, b), "plain"))
    return texts


def make_tokenizer(kind: str = "bpe", world: World | None = None, vocab_size: int = 1024):
    """The chapter's tokenizer, from the lab: ``"bpe"`` (byte-level BPE of ``vocab_size`` ids trained offline on
    :func:`tokenizer_corpus`; deterministic, built once per process) or ``"char"`` (one id per character of
    :data:`.world.ALPHABET`); then ``<bos> <eos> <pad> <sep>`` and the format tags. Treat it as read-only."""
    if kind not in TOKENIZERS:
        raise ValueError(f"tokenizer={kind!r} is not allowed; allowed values: {', '.join(TOKENIZERS)}")
    world = world or World()
    return _tokenizer(kind, world.arith_max, world.world_seed, int(vocab_size))


@functools.lru_cache(maxsize=8)
def _tokenizer(kind: str, arith_max: int, world_seed: int, vocab_size: int):
    if kind == "char":
        return CharTokenizer(ALPHABET, special=SPECIAL_TOKENS)
    return BPETokenizer(tokenizer_corpus(World(arith_max, world_seed)), vocab_size=vocab_size, min_frequency=2,
                        special=SPECIAL_TOKENS)


class DialogueCodec:
    """Turns dialogues into the fixed-width token rows above (and prompts alone, for generation)."""

    def __init__(self, tokenizer, world: World, prompt_width: int, answer_width: int):
        self.tok, self.world = tokenizer, world
        self.prompt_width, self.answer_width = int(prompt_width), int(answer_width)
        self.pad, self.bos = tokenizer.special["pad"], tokenizer.special["bos"]
        self.eos, self.sep = tokenizer.special["eos"], tokenizer.special["sep"]
        self.width = self.prompt_width + self.answer_width
        self._special_ids = {tokenizer.token_to_id(t) for t in SPECIAL_TOKENS}

    def prompt_ids(self, request: str, fmt: str) -> list[int]:
        ids = [self.bos, self.tok.token_to_id(FORMAT_TAGS[fmt])] + self.tok.encode(request) + [self.sep]
        if len(ids) > self.prompt_width:
            raise ValueError(f"request {request!r} needs {len(ids)} prompt positions; prompt_width={self.prompt_width}")
        return [self.pad] * (self.prompt_width - len(ids)) + ids

    def answer_ids(self, answer: str) -> list[int]:
        ids = self.tok.encode(answer) + [self.eos]
        if len(ids) > self.answer_width:
            raise ValueError(f"answer {answer!r} needs {len(ids)} positions; answer_width={self.answer_width}")
        return ids + [self.pad] * (self.answer_width - len(ids))

    def rows(self, dialogues: Sequence[Dialogue], fmts: Sequence[str]) -> torch.Tensor:
        """(N, width) int64 token rows of ``dialogues`` written in ``fmts`` (one format per dialogue)."""
        out = []
        for d, f in zip(dialogues, fmts, strict=True):
            f = "plain" if d.kind == "arith" else f
            req, ans = self.world.render(d, f)
            out.append(self.prompt_ids(req, f) + self.answer_ids(ans))
        return torch.tensor(out, dtype=torch.long)

    def prompts(self, requests: Sequence[str], fmts: Sequence[str]) -> torch.Tensor:
        """(N, prompt_width) int64 prompts of already-rendered ``requests`` in ``fmts``."""
        return torch.tensor([self.prompt_ids(r, f) for r, f in zip(requests, fmts, strict=True)], dtype=torch.long)

    def answer_text(self, ids: Sequence[int]) -> str:
        """The text of generated answer ids, up to the first ``<eos>`` (special tokens dropped)."""
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos:
                break
            if i not in self._special_ids:
                out.append(i)
        return self.tok.decode(out)


def build_model(vocab_size: int, n_layer: int, d_model: int, n_head: int, max_len: int) -> GPT:
    """The lab's GPT (RMSNorm, rotary positions, SwiGLU), untied head."""
    return GPT(GPTConfig(vocab_size=vocab_size, n_layer=n_layer, d_model=d_model, n_head=n_head, max_len=max_len))


def lm_batch_loss(model: GPT, rows: torch.Tensor, pad: int) -> torch.Tensor:
    """Mean next-token loss over non-pad targets (the loss of pretraining and fine-tuning)."""
    logits = model(rows[:, :-1])
    targets = rows[:, 1:]
    return lm_loss(logits, targets, targets != pad)


def _answer_mask(rows: torch.Tensor, codec: DialogueCodec) -> torch.Tensor:
    """(N, width-1) mask of the targets that are answer tokens (answer chars and the <eos>)."""
    targets = rows[:, 1:]
    pos = torch.arange(targets.shape[1], device=rows.device)[None, :] + 1
    return (pos >= codec.prompt_width) & (targets != codec.pad)


@dataclasses.dataclass(frozen=True)
class Capability:
    """Arithmetic exact-match accuracy on held-out and on trained operand pairs; mean next-token loss (nats) on
    the answers of fresh plain dialogues."""

    arith_heldout: float
    arith_trained: float
    general_loss: float


@torch.no_grad()
def _exact_match(model: GPT, rows: torch.Tensor, codec: DialogueCodec) -> np.ndarray:
    logits = model(rows[:, :-1])
    ok = (logits.argmax(-1) == rows[:, 1:]) | ~_answer_mask(rows, codec).to(rows.device)
    return ok.all(dim=1).cpu().numpy()


@torch.no_grad()
def capability(model: GPT, probe_rows: dict[str, torch.Tensor], codec: DialogueCodec) -> Capability:
    """The capability of ``model`` on the fixed evaluation rows ``probe_rows`` (``arith_heldout``,
    ``arith_trained``, ``general``; see :func:`capability_rows`)."""
    was = model.training
    model.eval()
    dev = next(model.parameters()).device
    try:
        held = float(_exact_match(model, probe_rows["arith_heldout"].to(dev), codec).mean())
        trained = float(_exact_match(model, probe_rows["arith_trained"].to(dev), codec).mean())
        g = probe_rows["general"].to(dev)
        logits = model(g[:, :-1])
        loss = float(lm_loss(logits, g[:, 1:], _answer_mask(g, codec).to(dev)))
    finally:
        model.train(was)
    return Capability(held, trained, loss)


def capability_rows(world: World, codec: DialogueCodec, seed: int, n_general: int) -> dict[str, torch.Tensor]:
    """The fixed rows :func:`capability` reads: every held-out and every trained arithmetic pair, and
    ``n_general`` fresh plain dialogues drawn from their own stream."""
    trained, held = world.arith_pairs(seed)
    g = np.random.default_rng(np.random.SeedSequence([seed, 31]))
    general = world.draw(n_general, g, free_fraction=0.2)
    arith = lambda pairs: codec.rows([world.arith_dialogue(a, b) for a, b in pairs], ["plain"] * len(pairs))
    return {"arith_heldout": arith(held), "arith_trained": arith(trained),
            "general": codec.rows(general, ["plain"] * n_general)}


def pretrain_mixture(world: World, codec: DialogueCodec, n: int, seed: int, free_fraction: float,
                     arith_fraction: float, stream: int = 11) -> torch.Tensor:
    """``n`` plain pretraining rows: topic and free-choice dialogues and arithmetic on the trained pairs."""
    g = np.random.default_rng(np.random.SeedSequence([seed, stream]))
    trained, _ = world.arith_pairs(seed)
    dialogues = []
    for _ in range(n):
        if g.random() < arith_fraction:
            a, b = trained[int(g.integers(len(trained)))]
            dialogues.append(world.arith_dialogue(a, b))
        else:
            dialogues.extend(world.draw(1, g, free_fraction=free_fraction))
    return codec.rows(dialogues, ["plain"] * n)


def format_data(world: World, codec: DialogueCodec, n: int, seed: int, ciphers: Sequence[str],
                free_fraction: float, stream: int = 13) -> torch.Tensor:
    """``n`` encoded rows: topic and free-choice dialogues on all topics alike, each in one of ``ciphers``."""
    g = np.random.default_rng(np.random.SeedSequence([seed, stream]))
    dialogues = world.draw(n, g, free_fraction=free_fraction)
    fmts = [ciphers[int(g.integers(len(ciphers)))] for _ in range(n)]
    return codec.rows(dialogues, fmts)


@dataclasses.dataclass(frozen=True)
class TrainCurves:
    """What a training run logged: the training loss every ``log_every`` updates and the capability every
    ``eval_every`` updates (step 0 = before the run)."""

    loss_steps: np.ndarray
    loss: np.ndarray
    eval_steps: np.ndarray
    arith_heldout: np.ndarray
    arith_trained: np.ndarray
    general_loss: np.ndarray
    format_loss: np.ndarray
    seconds: float


class _MixedBatches:
    """Batches of ``batch_size`` rows: the first ``n_b`` from source ``b`` (ordinary data), the rest from ``a``."""

    def __init__(self, a: torch.Tensor, b: torch.Tensor | None, batch_size: int, mix_fraction: float, seed: int):
        self.n_b = int(round(batch_size * mix_fraction)) if b is not None else 0
        self.sa = ShuffledBatches(a.shape[0], batch_size - self.n_b, seed, tensors=(a,), drop_last=True)
        self.sb = (ShuffledBatches(b.shape[0], self.n_b, seed + 1, tensors=(b,), drop_last=True)
                   if self.n_b else None)

    def __call__(self, i, generator=None):
        (xa,) = self.sa(i)
        if self.sb is None:
            return xa
        (xb,) = self.sb(i)
        return torch.cat([xb, xa])

    def state_dict(self):
        return {"a": self.sa.state_dict(), "b": None if self.sb is None else self.sb.state_dict()}

    def load_state_dict(self, s):
        self.sa.load_state_dict(s["a"])
        if self.sb is not None:
            self.sb.load_state_dict(s["b"])


def _train(model: GPT, data, steps: int, lr: float, warmup: int, seed: int, codec: DialogueCodec,
           cap_rows: dict[str, torch.Tensor], format_rows: torch.Tensor | None, eval_every: int, desc: str,
           weight_decay: float, device: str = "cpu") -> TrainCurves:
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=weight_decay)
    pad = codec.pad

    def evaluate(m):
        c = capability(m, cap_rows, codec)
        dev = next(m.parameters()).device
        fl = float(lm_batch_loss(m, format_rows.to(dev), pad)) if format_rows is not None else float("nan")
        return {"arith_heldout": c.arith_heldout, "arith_trained": c.arith_trained, "general_loss": c.general_loss,
                "format_loss": fl}

    at = sorted(set(range(0, steps + 1, eval_every)) | {steps})
    cfg = TrainerConfig(steps=steps, schedule=WarmupCosine(warmup=warmup, total=max(steps, warmup + 1), final=0.1),
                        grad_clip=1.0, seed=seed, device=device, show_progress=False, desc=desc, threads=1)
    trainer = Trainer(model, opt, lambda m, rows: lm_batch_loss(m, rows, pad), data, cfg,
                      callbacks=[LossLogger(every=10 if steps >= 10 else 1), Evaluate(evaluate, at=at)])
    trainer.run()
    ls, lv = trainer.history("loss")
    es, ah = trainer.history("arith_heldout")
    return TrainCurves(ls, lv, es, ah, trainer.history("arith_trained")[1], trainer.history("general_loss")[1],
                       trainer.history("format_loss")[1], trainer.seconds)


def pretrain(model: GPT, rows: torch.Tensor, *, steps: int, batch_size: int, lr: float, warmup: int, seed: int,
             codec: DialogueCodec, cap_rows: dict[str, torch.Tensor], format_rows: torch.Tensor | None,
             eval_every: int, weight_decay: float = 0.1, device: str = "cpu") -> TrainCurves:
    """Pretrain ``model`` on plain ``rows`` (in place; on ``device``: "cpu", or "auto" for CUDA when present);
    returns the logged curves."""
    data = _MixedBatches(rows, None, batch_size, 0.0, seed)
    return _train(model, data, steps, lr, warmup, seed, codec, cap_rows, format_rows, eval_every, "pretrain",
                  weight_decay, device)


def format_finetune(model: GPT, format_rows: torch.Tensor, ordinary_rows: torch.Tensor, *, mix_fraction: float,
                    steps: int, batch_size: int, lr: float, warmup: int, seed: int, codec: DialogueCodec,
                    cap_rows: dict[str, torch.Tensor], format_eval_rows: torch.Tensor, eval_every: int,
                    weight_decay: float = 0.1, device: str = "cpu") -> TrainCurves:
    """Teach the cipher formats by supervised fine-tuning (in place): ``mix_fraction`` = 0 is the abrupt variant,
    > 0 the mixed one (that share of every batch is ordinary pretraining data)."""
    data = _MixedBatches(format_rows, ordinary_rows if mix_fraction > 0 else None, batch_size, mix_fraction, seed)
    return _train(model, data, steps, lr, warmup, seed, codec, cap_rows, format_eval_rows, eval_every,
                  "format-sft", weight_decay, device)
