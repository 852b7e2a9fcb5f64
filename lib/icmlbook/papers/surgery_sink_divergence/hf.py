"""The sink statistic and the Surgery penalty on a reader's own local Hugging Face causal LM (off by default).

Load a model saved on this machine with :func:`icmlbook.lm.load_local_causal_lm` (eager attention, never a
download), render the vault world's texts as plain chat text (:func:`plain_text`), tokenise them with the model's
own tokenizer (:func:`encode_with`), then:

* :func:`hf_sink_attention`: sink attention (N, L, H) of every text, as :func:`.stats.model_sink_attention`;
* :func:`hf_penalty`: the differentiable penalty :math:`\\mathrm{mean}_h\\,\\mathrm{term}(d_h)` on one batch of
  disclosure and refusal rows, for a reader's own fine-tuning loop.

A model loaded with a fused attention kernel (SDPA, flash) returns no probabilities: both functions raise
:class:`.stats.MissingAttention` instead of returning a silent zero. The book's tests run this path only on a
tiny randomly initialised config (shapes, gradients reaching the query and key projections, equality with the
statistic computed from the same attention tensors); no result on the page comes from it, and the book ships
no harmful-content data, loader or judge for it.
"""

from __future__ import annotations

from typing import Sequence

import torch

from .penalty import penalty_value
from .stats import model_sink_attention, sink_attention, stack_attention

__all__ = ["plain_text", "encode_with", "hf_sink_attention", "hf_penalty"]

_MARKERS = (("<bos>", ""), ("<user>", "User:"), ("<asst>", "\nAssistant:"), ("<eos>", ""), ("<pad>", ""))


def plain_text(text: str) -> str:
    """A vault-world text with its markers rendered as plain chat text (``User: ... Assistant: ...``)."""
    for marker, plain in _MARKERS:
        text = text.replace(marker, plain)
    return text


def encode_with(tokenizer, texts: Sequence[str], bos_id: int | None = None, pad_id: int = 0,
                max_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ids (N, T) and lengths (N,) of ``texts`` by ``tokenizer.encode`` (a list of ids per text);
    ``bos_id`` is put at position 0 of every row when given (the sink of the paper's chat template)."""
    rows = []
    for t in texts:
        ids = list(tokenizer.encode(t))
        if bos_id is not None and (not ids or ids[0] != bos_id):
            ids = [bos_id] + ids
        rows.append(ids[:max_len] if max_len else ids)
    if not rows or min(len(r) for r in rows) < 2:
        raise ValueError("every text must encode to at least 2 tokens")
    T = max(len(r) for r in rows)
    out = torch.full((len(rows), T), pad_id, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r)
    return out, torch.tensor([len(r) for r in rows])


def hf_sink_attention(model, tokens: torch.Tensor, lengths: torch.Tensor, sink: int = 0, batch: int = 16) -> torch.Tensor:
    """Sink attention (N, L, H) of an :class:`icmlbook.lm.HFCausalLM` on right-padded rows (no gradients)."""
    return model_sink_attention(model, tokens, lengths, sink, batch=batch)


def hf_penalty(model, disclose: tuple[torch.Tensor, torch.Tensor], refuse: tuple[torch.Tensor, torch.Tensor],
               sink: int = 0, mode: str = "paper", mask: torch.Tensor | None = None) -> torch.Tensor:
    """The penalty (without lambda) on ``disclose = (tokens, lengths)`` and ``refuse = (tokens, lengths)`` rows,
    in one forward pass of an :class:`icmlbook.lm.HFCausalLM`, differentiable through its attention."""
    (tm, lm_), (tr, lr) = disclose, refuse
    T = max(tm.shape[1], tr.shape[1])
    pad = lambda t: torch.nn.functional.pad(t, (0, T - t.shape[1]))
    x = torch.cat([pad(tm), pad(tr)])
    lengths = torch.cat([lm_, lr])
    _, probs = model(x.to(next(model.parameters()).device), return_attn=True)
    A = stack_attention(probs)
    alpha = sink_attention(A, lengths.to(A.device), sink)
    d = alpha[: tm.shape[0]].mean(0) - alpha[tm.shape[0]:].mean(0)
    return penalty_value(d, mode, mask)
