r"""Optional, off by default: the same probe analysis on a reader's own local Hugging Face model, for benign
probing only (no fine-tuning, nothing downloaded).

With a model loaded by :func:`icmlbook.lm.load_local_causal_lm` (a folder on this machine), :func:`benign_prompts`
writes harmless topic requests of the world ("Write one short sentence about snow.", optionally "... Write it in
ROT13."), the reader's model answers them with its own generation code, and :func:`capture_answers` reads the
activations at the answer positions (teacher-forced: prompt + answer in one pass, through the lab's hook sites
``blocks.l.resid_post|attn_out|mlp_out``) and mean-pools them, (N, S, d). The probes of :mod:`.probes` then train on
plain answers and test on encoded ones exactly as in the chapter. The book's tests run the capture on a tiny
randomly initialised config only (hooks and shapes); no result of the chapter comes from this path.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from .capture import Site, hook_name
from .world import LEXICON, TOPICS, check_topic

__all__ = ["benign_prompts", "capture_answers"]


def benign_prompts(n: int, seed: int, cipher: str | None = None) -> tuple[list[str], np.ndarray]:
    """``n`` harmless requests about the world's topics (and their topic indices); with ``cipher`` ("rot13" or
    "atbash") the request asks for the answer in that public letter substitution."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be an integer >= 1")
    if cipher not in (None, "rot13", "atbash"):
        raise ValueError(f"cipher={cipher!r} is not allowed; allowed values: None, rot13, atbash")
    g = np.random.default_rng(np.random.SeedSequence([seed, 61]))
    topics = g.integers(len(TOPICS), size=n)
    prompts = []
    for t in topics:
        words = LEXICON[TOPICS[check_topic(TOPICS[int(t)])]]
        w = words[int(g.integers(len(words)))]
        p = f"Write one short sentence about {w}."
        prompts.append(p + (f" Write it in {cipher.upper()}." if cipher else ""))
    return prompts, topics


@torch.no_grad()
def capture_answers(model, prompt_ids: Sequence[Sequence[int]], answer_ids: Sequence[Sequence[int]],
                    sites: Sequence[Site]) -> np.ndarray:
    """(N, S, d) float32: the mean activation over each answer's positions (the positions holding answer tokens)
    at every site, one teacher-forced pass per dialogue (lengths differ; no padding)."""
    if len(prompt_ids) != len(answer_ids):
        raise ValueError(f"prompt_ids and answer_ids need one entry each per dialogue; got {len(prompt_ids)} and "
                         f"{len(answer_ids)}")
    names = [hook_name(s, model.n_hook_layers) for s in sites]
    device = next(model.parameters()).device
    out = []
    for p, a in zip(prompt_ids, answer_ids):
        if len(a) == 0 or len(p) == 0:
            raise ValueError("every prompt and every answer needs at least one token")
        ids = torch.tensor([list(p) + list(a)], dtype=torch.long, device=device)
        with model.hooked(read=names) as cache:
            model(ids)
        out.append(torch.stack([cache[n][0, len(p):].float().mean(0) for n in names]).cpu().numpy())
    return np.stack(out).astype(np.float32)
