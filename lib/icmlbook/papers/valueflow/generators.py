"""Generators for the steering study beyond the small LM (both **off by default**: the book runs neither).

VALUEFLOW steers 10 LLMs with persona prompts (:func:`.steering.strength_prompt`) and value profiles
(:func:`.steering.profile_prompt`). A reader who has a model can run the same protocol here:

- :class:`OpenAICompatibleGenerator`: a chat model behind the reader's own OpenAI-compatible server, through the
  book's one client :class:`icmlbook.lm.ChatEndpoint` (no address: a clear error; the book ships none);
- :class:`LocalTransformersGenerator`: a causal LM saved in a local folder (``save_pretrained``), loaded with
  :func:`icmlbook.lm.load_local_causal_lm` (never downloads) and decoded by :func:`icmlbook.lm.generate_texts`,
  through the tokenizer's chat template when it has one.

Both expose ``generate(prompts) -> list[str]`` and a ``backend`` label that every result carries.
:func:`steering_texts` and :func:`composition_texts` ask a generator for every (value, level) and for a value
pair's grid of targets; scoring is the evaluator's (:func:`.experiments.score_texts`), refusals are counted apart
(:func:`.steering.is_refusal`). The tests run the endpoint generator only against a local stub server (a test
fixture) and the local generator only on a tiny randomly initialised model; neither is ever shown as a result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .steering import LEVEL_WORDS, is_refusal, profile_prompt, strength_prompt

__all__ = ["OpenAICompatibleGenerator", "LocalTransformersGenerator", "steering_texts", "composition_texts"]


class OpenAICompatibleGenerator:
    """A chat model behind the reader's OpenAI-compatible endpoint (:class:`icmlbook.lm.ChatEndpoint`)."""

    def __init__(self, base_url: str | None, model: str, api_key: str | None = None, temperature: float = 0.7,
                 max_tokens: int | None = 200, timeout: float = 60.0):
        from ...lm import ChatEndpoint

        from .replay import endpoint_generator_request

        self.endpoint = ChatEndpoint(base_url, model, api_key=api_key, temperature=temperature,
                                     max_tokens=max_tokens, timeout=timeout)
        #: ``request(prompt)``: the exact chat body sent (the key of :class:`.replay.ReplayGenerator`)
        self.request = endpoint_generator_request(model, temperature, max_tokens)

    @property
    def backend(self) -> str:
        return f"endpoint generator ({self.endpoint.backend})"

    def answer(self, request: dict) -> str:
        """Send the chat body ``request`` (made by :attr:`request`) and return the text."""
        if self.endpoint.request_body(messages=request["messages"]) != request:
            raise ValueError("request was not made for this generator (model, temperature or max_tokens differ)")
        return self.endpoint.complete(messages=request["messages"])

    def generate(self, prompts: Sequence[str]) -> list[str]:
        return [self.answer(self.request(p)) for p in prompts]


class LocalTransformersGenerator:
    """A causal LM in the local folder ``path`` (model and tokenizer saved with ``save_pretrained``)."""

    def __init__(self, path: str | Path, max_new_tokens: int = 160, temperature: float = 0.0, seed: int = 0,
                 device: str = "cpu"):
        import torch
        from transformers import AutoTokenizer

        from ...lm import load_local_causal_lm

        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ValueError(f"max_new_tokens={max_new_tokens!r} is not allowed; it must be an integer >= 1")
        self.path = Path(path)
        self.model = load_local_causal_lm(self.path, device=device)
        self.tok = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.max_new_tokens, self.temperature = max_new_tokens, temperature
        self.gen = torch.Generator(device=device).manual_seed(seed)

    @property
    def backend(self) -> str:
        return f"local transformers generator ({self.path.name})"

    def _text(self, prompt: str) -> str:
        if getattr(self.tok, "chat_template", None):
            return self.tok.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                add_generation_prompt=True)
        return prompt

    def generate(self, prompts: Sequence[str]) -> list[str]:
        from ...lm import generate_texts

        stop = [self.tok.eos_token_id] if self.tok.eos_token_id is not None else []
        pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else (stop[0] if stop else 0)
        return generate_texts(self.model, self.tok, [self._text(p) for p in prompts], self.max_new_tokens,
                              temperature=self.temperature, generator=self.gen, stop=stop, pad_id=pad)


def steering_texts(generator, values: Sequence[str], queries: Sequence[str]) -> tuple[dict, dict]:
    """``({(value, level): answers}, {(value, level): refusals})`` for every value, level in {-2..2} (level 0:
    the query alone, the unsteered default) and query; refused answers are kept out of the texts and counted."""
    texts, refusals = {}, {}
    for v in values:
        for level in (-2, -1, 0, 1, 2):
            prompts = [q if level == 0 else strength_prompt(v, level, q) for q in queries]
            answers = generator.generate(prompts)
            texts[(v, level)] = [a for a in answers if not is_refusal(a)]
            refusals[(v, level)] = len(answers) - len(texts[(v, level)])
    return texts, refusals


def composition_texts(generator, pair: tuple, queries: Sequence[str], levels=tuple(LEVEL_WORDS)) -> tuple[dict, dict]:
    """``({(l1, l2): answers}, {(l1, l2): refusals})`` under the value profile asking ``pair[0]`` at l1 and
    ``pair[1]`` at l2, for every l1, l2 in ``levels`` (score each answer on both values, then
    :func:`.steering.composition_slopes`)."""
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValueError(f"pair={pair!r} must be two different values")
    texts, refusals = {}, {}
    for l1 in levels:
        for l2 in levels:
            answers = generator.generate([profile_prompt({pair[0]: l1, pair[1]: l2}, q) for q in queries])
            texts[(l1, l2)] = [a for a in answers if not is_refusal(a)]
            refusals[(l1, l2)] = len(answers) - len(texts[(l1, l2)])
    return texts, refusals
