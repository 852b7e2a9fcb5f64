r"""The pluggable path, off by default: skill neologisms on a reader's own local Hugging Face causal LM (the
paper's setting: Qwen2.5-0.5B, Llama-3.2-3B). Nothing here runs in the chapter; the book's tests run it only on
a tiny randomly initialised ``transformers`` config, and no result comes from it.

The mechanism is the one of :mod:`.skills`, on a ``transformers`` model:

1. the skill's ℓ tokens are added to the reader's tokenizer (when one is given) and the model's embeddings are
   resized (``resize_token_embeddings``), so the vocabulary and a tied head know the new ids;
2. the new input rows move into their own parameter, joined to the frozen table at lookup
   (:class:`JoinedEmbedding`), initialised to the mean of the embeddings of given "known skill" tokens (the
   paper's ``from_pretrain_skills``) or :math:`\mathcal N(0,\sigma^2)` with the config's ``initializer_range``;
3. every weight of the model is frozen; the output rows of the new ids are zero (the paper zeroes the skill
   tokens' unembedding at decoding; here they are zero throughout, so the model never emits them and the
   skill rows are trained through the input side only).

Load a model with :func:`icmlbook.lm.load_local_causal_lm` (never downloads) and pass its ``.hf``.
"""

from __future__ import annotations

from typing import Literal, Sequence

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["JoinedEmbedding", "HFSkillAdapter"]


class JoinedEmbedding(nn.Module):
    """Lookup in ``[base.weight[:n_base]; extra]``: the frozen rows of ``base`` (an ``nn.Embedding``, shared with
    a tied head) followed by the trainable ``extra`` rows (n, d)."""

    def __init__(self, base: nn.Embedding, n_base: int):
        super().__init__()
        self.base = base
        self.n_base = int(n_base)
        self.extra = nn.Parameter(torch.empty(0, base.weight.shape[1], dtype=base.weight.dtype,
                                              device=base.weight.device))

    @property
    def weight(self) -> torch.Tensor:  # what transformers reads for shapes and dtype
        return self.base.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        table = torch.cat([self.base.weight[: self.n_base], self.extra], dim=0)
        return F.embedding(ids, table)


class HFSkillAdapter:
    """Skill neologisms on a ``transformers`` causal LM ``model`` (and optionally its ``tokenizer``)."""

    def __init__(self, model: nn.Module, tokenizer=None):
        self.model = model
        self.tokenizer = tokenizer
        emb = model.get_input_embeddings()
        if isinstance(emb, JoinedEmbedding):
            raise ValueError("this model already carries an adapter's joined embedding")
        self.n_base = int(emb.weight.shape[0])
        self.joined = JoinedEmbedding(emb, self.n_base)
        model.set_input_embeddings(self.joined)
        for p in model.parameters():
            p.requires_grad_(False)
        self.joined.extra.requires_grad_(True)
        self.skills: dict[str, list[int]] = {}

    def _vocab_end(self) -> int:
        return self.n_base + self.joined.extra.shape[0]

    def add_skill(self, name: str, length: int, init: Literal["mean", "random"] = "mean",
                  init_ids: Sequence[int] = (), generator: torch.Generator | None = None) -> list[int]:
        """Add skill ``name`` with ``length`` tokens; returns their ids. ``init="mean"`` starts every row at the
        mean input embedding of ``init_ids`` (the known skills' tokens)."""
        if name in self.skills:
            raise ValueError(f"two skills under one name: {name!r} is already added")
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"length={length!r} is not allowed; a skill needs an integer number of tokens >= 1")
        start = self._vocab_end()
        if self.tokenizer is not None:
            added = self.tokenizer.add_tokens([f"<|{name}-{j}|>" for j in range(length)], special_tokens=True)
            if added != length:
                raise ValueError(f"the tokenizer added {added} of the {length} tokens of {name!r}")
        base_w = self.joined.base.weight
        d = base_w.shape[1]
        if init == "mean":
            if not init_ids:
                raise ValueError("init='mean' needs init_ids, the token ids of the known skills to average")
            rows = base_w.detach()[list(init_ids)].mean(0, keepdim=True).expand(length, d).clone()
        elif init == "random":
            std = float(getattr(self.model.config, "initializer_range", 0.02))
            rows = torch.randn(length, d, generator=generator).to(base_w) * std
        else:
            raise ValueError(f"init={init!r} is not allowed; allowed values: mean, random")
        self._grow(rows)
        ids = list(range(start, start + length))
        self.skills[name] = ids
        return ids

    def _grow(self, rows: torch.Tensor) -> None:
        old = self.joined.extra.detach()
        new_total = self._vocab_end() + rows.shape[0]
        # the reader's model learns the new vocabulary size (a tied head gets the rows); the table we look up in
        # stays the joined one
        self.model.set_input_embeddings(self.joined.base)
        self.model.resize_token_embeddings(new_total, mean_resizing=False)
        self.joined.base = self.model.get_input_embeddings()
        self.model.set_input_embeddings(self.joined)
        out = self.model.get_output_embeddings()
        with torch.no_grad():
            if out is not None and out.weight.shape[0] >= new_total:
                out.weight[self.n_base:new_total] = 0.0
            self.joined.base.weight[self.n_base:new_total] = 0.0
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.joined.extra = nn.Parameter(torch.cat([old, rows.to(old)], dim=0))

    def trainable(self) -> list[nn.Parameter]:
        """The only trainable parameter: the skill rows."""
        return [self.joined.extra]

    def insert(self, text: str, name: str, marker: str) -> str:
        """Write skill ``name``'s tokens in place of every occurrence of ``marker`` in ``text`` (the insertion
        function); the text must contain the marker."""
        if marker not in text:
            raise ValueError(f"the sample does not contain the skill marker {marker!r}")
        if self.tokenizer is None:
            raise ValueError("insert() needs the tokenizer; with ids, put self.skills[name] in place of the marker")
        return text.replace(marker, "".join(f"<|{name}-{j}|>" for j in range(len(self.skills[name]))))

    def rows(self, name: str) -> torch.Tensor:
        """The current rows of skill ``name`` (ℓ, d), detached (save them with ``torch.save``)."""
        if name not in self.skills:
            raise KeyError(f"no skill {name!r}; added: {sorted(self.skills)}")
        ids = self.skills[name]
        return self.joined.extra[ids[0] - self.n_base: ids[-1] + 1 - self.n_base].detach().clone()

    def load_rows(self, name: str, rows: torch.Tensor) -> None:
        """Set the rows of an added skill (e.g. trained elsewhere); the width must match the model's."""
        ids = self.skills.get(name)
        if ids is None:
            raise KeyError(f"no skill {name!r}; add it first")
        d = self.joined.extra.shape[1]
        if rows.shape != (len(ids), d):
            raise ValueError(f"skill rows of the wrong width: got {tuple(rows.shape)}, need ({len(ids)}, {d})")
        with torch.no_grad():
            self.joined.extra[ids[0] - self.n_base: ids[-1] + 1 - self.n_base] = rows.to(self.joined.extra)
