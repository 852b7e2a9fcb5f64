r"""Skill neologisms: new vocabulary rows, the only trainable parameters of a frozen language model (the paper's
section 3; Berthon, Astorga & van der Schaar, ICML 2026, arXiv 2605.04970).

For a skill :math:`S` we add :math:`\ell` token ids :math:`v^S_1\dots v^S_\ell` with rows
:math:`e^S_1\dots e^S_\ell\in\mathbb R^d`, kept in their own parameter and joined to the frozen embedding table
:math:`E\in\mathbb R^{V\times d}` at lookup (the lab's :meth:`icmlbook.lm.GPT.add_embedding_rows`: the table is
:math:`[E; e^S_1;\dots;e^S_\ell]`, ``E`` without gradient). The insertion function :math:`\iota_S` writes the
:math:`\ell` ids wherever a sample names the skill (in the digit world: in place of the operation token), and the
objective is the answer's negative log-likelihood over the skill-centred set :math:`D(S,\Sigma)`,

.. math::  \min_{\phi_S}\;\mathbb E_{(x,y)\sim D(S,\Sigma)}\Big[-\sum_{t\in\mathrm{answer}(y)}
           \log p_\theta\big(y_t\mid\iota_S(x),y_{<t};\,E\cup\phi_S\big)\Big],\qquad \phi_S=\{e^S_j\}.

Initialisation (the paper's default ``from_pretrain_skills``): every new row is the mean of the input embeddings of
the known operation tokens; the ablation draws :math:`\mathcal N(0,\sigma^2)` with :math:`\sigma` the model's
initialisation scale. With a tied head the new rows are also output rows; at decoding their logits are set to 0
(the paper zeroes their unembedding rows on a cloned head), so the model does not emit them.

:class:`SkilledLM` is the frozen base with any number of skills attached (one for training, several for zero-shot
composition) and optionally a prefix of soft tokens after ``<bos>``: prompt tuning is the same mechanism placed at
the start of the sequence instead of at the skill's name (the official code trains it the same way).
:class:`Skill` carries a skill's rows alone (``save``/``load``).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
import torch
from torch import nn

from ...lm import GPT
from .digits import PRETRAIN_OPS, DigitBatch, DigitVocab, EncodedBatch, encode, op_index

__all__ = ["Skill", "SkilledLM", "INITS", "init_rows", "mean_op_embedding", "weights_digest", "check_markers"]

INITS = ("mean_ops", "random")
PREFIX = "PREFIX"


@dataclasses.dataclass(frozen=True)
class Skill:
    """A skill's rows alone: ``name`` (the operation it stands for, or ``"PREFIX"`` for prompt tuning's soft
    prefix) and ``rows`` (ℓ, d), detached, on the CPU."""

    name: str
    rows: torch.Tensor

    def __post_init__(self) -> None:
        if self.name != PREFIX:
            op_index(self.name)
        if not isinstance(self.rows, torch.Tensor) or self.rows.dim() != 2 or self.rows.shape[0] < 1:
            shape = tuple(self.rows.shape) if isinstance(self.rows, torch.Tensor) else type(self.rows).__name__
            raise ValueError(f"rows of skill {self.name!r} must be a (length >= 1, d) tensor; got {shape}")
        object.__setattr__(self, "rows", self.rows.detach().to("cpu", torch.float32).clone())

    @property
    def length(self) -> int:
        return int(self.rows.shape[0])

    @property
    def width(self) -> int:
        return int(self.rows.shape[1])

    def save(self, path: str | Path) -> Path:
        """Write the rows (and nothing of the base model) to ``path``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"format": 1, "name": self.name, "rows": self.rows}, path)
        return path

    @classmethod
    def load(cls, path: str | Path, width: int | None = None) -> Skill:
        """Read a skill saved by :meth:`save`; with ``width`` the rows must have that many columns (the model's
        d)."""
        state = torch.load(Path(path), map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or state.get("format") != 1:
            raise ValueError(f"{path} is not a saved skill (format 1)")
        skill = cls(state["name"], state["rows"])
        if width is not None and skill.width != width:
            raise ValueError(f"skill {skill.name!r} in {path} has rows of width {skill.width}; this model needs "
                             f"width {width}")
        return skill


def weights_digest(model: nn.Module | dict, skip: Sequence[str] = ("tok.extra", "head_extra")) -> str:
    """SHA-256 over every parameter and buffer of ``model`` (a module, or a state dict; names, shapes and bytes)
    except those whose name ends with one of ``skip`` (the skill rows): the check that a base model is bitwise
    unchanged."""
    h = hashlib.sha256()
    state = model if isinstance(model, dict) else model.state_dict()
    for name, t in sorted(state.items()):
        if any(name.endswith(s) for s in skip):
            continue
        h.update(name.encode())
        h.update(str(tuple(t.shape)).encode())
        h.update(t.detach().to("cpu").contiguous().numpy().tobytes())
    return h.hexdigest()


def mean_op_embedding(model: GPT, vocab: DigitVocab, ops: Sequence[str] = PRETRAIN_OPS) -> torch.Tensor:
    """The mean of the input rows of the operation tokens ``ops`` (d,): the paper's ``from_pretrain_skills``
    initialisation (each name is one token here, so no sub-token averaging is needed)."""
    ids = [vocab.op_id(o) for o in ops]
    return model.tok.weight.detach()[ids].mean(0)


def init_rows(model: GPT, vocab: DigitVocab, length: int, init: Literal["mean_ops", "random"] = "mean_ops",
              generator: torch.Generator | None = None) -> torch.Tensor:
    """Initial rows (length, d) of a new skill: all equal to :func:`mean_op_embedding` (``"mean_ops"``), or
    :math:`\\mathcal N(0,\\sigma^2)` with :math:`\\sigma` the model's ``init_std`` (``"random"``)."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise ValueError(f"length={length!r} is not allowed; a skill needs an integer number of tokens >= 1")
    d = model.cfg.d_model
    if init == "mean_ops":
        return mean_op_embedding(model, vocab).expand(int(length), d).clone()
    if init == "random":
        return torch.randn(int(length), d, generator=generator) * model.cfg.init_std
    raise ValueError(f"init={init!r} is not allowed; allowed values: {', '.join(INITS)}")


def check_markers(batch: DigitBatch, names: Sequence[str]) -> None:
    """Refuse a batch in which some item does not name every skill in ``names`` (a skill-centred sample
    without the skill's marker cannot train or test that skill)."""
    for name in names:
        o = op_index(name)
        missing = np.flatnonzero(~(batch.ops == o).any(axis=1))
        if missing.size:
            raise ValueError(f"{missing.size} sample(s) do not contain the skill marker [{name}] (first: item "
                             f"{int(missing[0])}); every sample must name the skill it trains or tests")


class SkilledLM(nn.Module):
    """A frozen copy of ``base`` with ``skills`` attached as new trainable rows (ids ``V, V+1, ...`` in the
    order given) and optionally a soft ``prefix`` written after ``<bos>``.

    ``forward(idx, cache=None, **kw)`` is the base's forward on the enlarged table. Only the new rows
    (``self.gpt.tok.extra``, :meth:`trainable`) require gradients; the base's parameters are copies with
    ``requires_grad=False``, so an optimiser given :meth:`trainable` never touches them (weight decay included).
    With an untied head the head's new rows are set to zero and frozen (only input rows are trained, as in
    the paper).
    """

    def __init__(self, base: GPT, skills: Sequence[Skill] = (), prefix: Skill | None = None,
                 zero_new_logits: bool = False):
        super().__init__()
        self.zero_new_logits = bool(zero_new_logits)
        names = [s.name for s in skills]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"two skills under one name: {dup}; load each skill once")
        if PREFIX in names:
            raise ValueError("a skill named PREFIX must be given as prefix=, not among skills")
        if prefix is not None and prefix.name != PREFIX:
            raise ValueError(f"prefix= must be a Skill named {PREFIX!r}; got {prefix.name!r}")
        d = base.cfg.d_model
        blocks = list(skills) + ([prefix] if prefix is not None else [])
        bad = [(s.name, s.width) for s in blocks if s.width != d]
        if bad:
            raise ValueError(f"skill rows of the wrong width {bad}; this model's rows have width d={d}")
        if not blocks:
            raise ValueError("give at least one skill or a prefix")
        self.gpt = copy.deepcopy(base)
        for p in self.gpt.parameters():
            p.requires_grad_(False)
        self.base_vocab = self.gpt.vocab_size
        ids = self.gpt.add_embedding_rows(sum(s.length for s in blocks), init=torch.cat([s.rows for s in blocks]),
                                          freeze_base=True)
        if self.gpt.head_extra is not None:
            self.gpt.head_extra.data.zero_()
            self.gpt.head_extra.requires_grad_(False)
        self.ids: dict[str, list[int]] = {}
        start = 0
        for s in blocks:
            self.ids[s.name] = ids[start:start + s.length]
            start += s.length
        self.skill_names = tuple(names)

    # -- the model -------------------------------------------------------------------------------------------
    @property
    def blocks(self):  # for the lab's KV-cache decoding
        return self.gpt.blocks

    @property
    def cfg(self):
        return self.gpt.cfg

    def forward(self, idx: torch.Tensor, cache=None, **kwargs):
        out = self.gpt(idx, cache=cache, **kwargs)
        if not self.zero_new_logits:
            return out
        logits, rest = (out[0], out[1:]) if isinstance(out, tuple) else (out, None)
        keep = torch.ones(logits.shape[-1], dtype=logits.dtype, device=logits.device)
        keep[self.base_vocab:] = 0.0
        logits = logits * keep                       # the new ids' logits are 0 in training too
        return (logits, *rest) if rest is not None else logits

    def trainable(self) -> list[nn.Parameter]:
        """The only trainable parameter: the new rows, (Σ ℓ, d)."""
        return [self.gpt.tok.extra]

    @property
    def new_ids(self) -> list[int]:
        """Every added id (skills and prefix): their logits are zeroed at decoding."""
        return [i for v in self.ids.values() for i in v]

    def insertion(self) -> dict[str, list[int]]:
        """The insertion function :math:`\\iota`: operation name -> the ids written in its place."""
        return {n: self.ids[n] for n in self.skill_names}

    def prefix_ids(self) -> list[int]:
        return list(self.ids.get(PREFIX, []))

    def encode(self, batch: DigitBatch, vocab: DigitVocab, answer: bool = True,
               require: Sequence[str] = ()) -> EncodedBatch:
        """Token ids of ``batch`` with each attached skill inserted and the prefix after ``<bos>``; every item
        must name each skill in ``require`` (:func:`check_markers`)."""
        check_markers(batch, require)
        return encode(batch, vocab, insert=self.insertion(), prefix=self.prefix_ids(), answer=answer)

    def rows(self, name: str) -> torch.Tensor:
        """The current rows of skill ``name`` (a view of the trainable parameter)."""
        if name not in self.ids:
            raise KeyError(f"no skill {name!r} here; attached: {sorted(self.ids)}")
        lo = self.ids[name][0] - self.base_vocab
        return self.gpt.tok.extra[lo:lo + len(self.ids[name])]

    def export(self, name: str) -> Skill:
        """Skill ``name`` as it is now (its rows alone, detached)."""
        return Skill(name, self.rows(name))

    def base_digest(self) -> str:
        """:func:`weights_digest` of the frozen part."""
        return weights_digest(self.gpt)
