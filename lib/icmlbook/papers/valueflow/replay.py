"""Recorded answers: a JSON-lines file of (request, answer) records keyed by the exact request, so that a run with
an endpoint judge or generator can be executed again **without** the endpoint, bit for bit.

VALUEFLOW scores texts with LLM judges; the book never calls one, but a reader may (:mod:`.judges`,
:mod:`.generators`, the chapter's ``endpoint_url`` parameter). Every answer such a run receives is appended to a
file of records ``{"key", "request", "answer", "backend"}``, one per line, where ``request`` is the exact request
(for an endpoint: the chat body sent, i.e. model, temperature, maximum tokens and messages) and ``key`` the
SHA-256 of its canonical JSON (sorted keys, no spaces). A later run given the same file and no endpoint looks each
request up by its key: a request that was never recorded raises :class:`ReplayMissing` naming the key and the
request, never a silent fallback to some other judge.

- :class:`AnswerLog`: the file (read once, appended to as answers arrive).
- :class:`ReplayJudge`: the book's ranking interface (``rank_texts``, ``rank``) over any judge with a text
  interface, recorded or replayed; the endpoint judge's request is its exact chat body
  (:func:`endpoint_judge_request`), another judge's is ``{"judge": backend, "value", "definition", "texts"}``.
  Raw answers are stored and parsed after replay, so an answer that was not a permutation is dropped and counted
  on replay exactly as it was live.
- :class:`ReplayGenerator`: the same for a chat generator's answers (:func:`endpoint_generator_request`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ...lm.endpoint import chat_messages

__all__ = ["ReplayMissing", "request_key", "AnswerLog", "endpoint_judge_request", "endpoint_generator_request",
           "judge_prompt", "ReplayJudge", "ReplayGenerator", "rank_windows"]


class ReplayMissing(KeyError):
    """A request whose answer is not in the replay file (and no live backend to ask)."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plainly
        return str(self.args[0])


def request_key(request: dict) -> str:
    """SHA-256 (hex) of the request's canonical JSON: sorted keys, compact separators, UTF-8."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AnswerLog:
    """Records ``{"key", "request", "answer", "backend"}`` in the JSON-lines file ``path`` (created on the first
    record). A key recorded twice must carry the same answer (else the file is refused)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.answers: dict[str, object] = {}
        self.requests: dict[str, dict] = {}
        if self.path.exists():
            for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    key, request, answer = rec["key"], rec["request"], rec["answer"]
                except (ValueError, KeyError, TypeError) as e:
                    raise ValueError(f"{self.path}:{n} is not a record with key, request and answer: {line[:120]!r}") from e
                if request_key(request) != key:
                    raise ValueError(f"{self.path}:{n}: key {key} is not the SHA-256 of its request (edited by hand?)")
                if key in self.answers and self.answers[key] != answer:
                    raise ValueError(f"{self.path}:{n}: key {key} was recorded with two different answers")
                self.answers[key], self.requests[key] = answer, request

    def __len__(self) -> int:
        return len(self.answers)

    def __contains__(self, request: dict) -> bool:
        return request_key(request) in self.answers

    def get(self, request: dict):
        """The recorded answer of ``request``; :class:`ReplayMissing` (naming the key) when there is none."""
        key = request_key(request)
        if key not in self.answers:
            raise ReplayMissing(f"no recorded answer for request key {key} in {self.path} ({len(self)} record(s)); "
                                f"request: {_summary(request)}. Replay answers only requests recorded by an earlier "
                                "run: give the endpoint's address to record it, or check the model name and sizes")
        return self.answers[key]

    def record(self, request: dict, answer, backend: str) -> None:
        key = request_key(request)
        if key in self.answers:
            if self.answers[key] != answer:
                raise ValueError(f"request key {key} is already recorded with another answer in {self.path}")
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"key": key, "request": request, "answer": answer, "backend": backend},
                          ensure_ascii=False, sort_keys=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        self.answers[key], self.requests[key] = answer, request


def _summary(request: dict) -> str:
    text = json.dumps(request, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 240 else text[:240] + "…"


def judge_prompt(value: str, definition: str, texts: Sequence[str]) -> str:
    """The ranking question put to an LLM judge (one value, ``k`` numbered texts)."""
    lines = "\n".join(f"{i + 1}. {t}" for i, t in enumerate(texts))
    return (f"Value: {value} ({definition}).\nOrder the texts from the one that most strongly supports this "
            f"value to the one that most strongly opposes it. Answer with a list of numbers only.\n{lines}")


def _chat_body(model: str, temperature: float, max_tokens: int | None, prompt: str) -> dict:
    """The body :meth:`icmlbook.lm.ChatEndpoint.request_body` sends for ``prompt`` (tested equal)."""
    body = {"model": model, "temperature": temperature, "messages": chat_messages(prompt)}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


def endpoint_judge_request(model: str, temperature: float = 0.0, max_tokens: int | None = None) -> Callable:
    """``request(value, definition, texts) -> chat body`` of the endpoint judge (no network)."""
    if not model:
        raise ValueError("model is required: the name the endpoint knows the judge model by")
    return lambda value, definition, texts: _chat_body(model, temperature, max_tokens,
                                                       judge_prompt(value, definition, texts))


def endpoint_generator_request(model: str, temperature: float = 0.7, max_tokens: int | None = 200) -> Callable:
    """``request(prompt) -> chat body`` of the endpoint generator (no network)."""
    if not model:
        raise ValueError("model is required: the name the endpoint knows the generator model by")
    return lambda prompt: _chat_body(model, temperature, max_tokens, prompt)


def rank_windows(rank_texts: Callable, value: str, definition: str, windows) -> tuple[list[int], np.ndarray]:
    """The book's ranking interface over a text judge: positions (0 = most supporting) of every window with a
    valid answer; returns (indices of the windows kept, positions (kept, k))."""
    if not len(windows) or len({len(t) for t in windows}) != 1 or len(windows[0]) < 2:
        raise ValueError(f"windows must be a non-empty list of windows of equal size k >= 2 texts; got sizes "
                         f"{[len(t) for t in windows]}")
    kept, rows = [], []
    for w, texts in enumerate(windows):
        perm = rank_texts(value, definition, texts)
        if perm is not None:
            pos = np.empty(len(texts), dtype=np.int64)
            pos[np.asarray(perm, dtype=np.int64) - 1] = np.arange(len(texts))
            kept.append(w)
            rows.append(pos)
    return kept, np.array(rows, dtype=np.int64).reshape(len(rows), len(windows[0]))


class ReplayJudge:
    """A judge's answers, recorded to or replayed from the JSON-lines file ``path``.

    - ``ReplayJudge(path, judge)``: **record**. A request already in the file is answered from it; any other is
      put to ``judge`` and its raw answer appended. ``judge`` is the endpoint judge
      (:class:`.judges.OpenAICompatibleJudge`, keyed by its exact chat body) or any object with ``backend`` and
      ``rank_texts(value, definition, texts) -> list | None`` (keyed by backend, value, definition and texts).
    - ``ReplayJudge(path, request=endpoint_judge_request(model))`` or ``ReplayJudge(path, backend=label)``:
      **replay only**. A request not in the file raises :class:`ReplayMissing` naming its key.

    Answers are parsed (:func:`.judges.parse_permutation`) after lookup; those that are not a permutation are
    dropped and counted in ``invalid``. ``asked`` counts answers taken from the live judge, ``replayed`` those
    read from the file."""

    def __init__(self, path: str | Path, judge=None, *, request: Callable | None = None, backend: str | None = None):
        self.log = AnswerLog(path)
        self.judge = judge
        if request is None:
            if judge is not None and hasattr(judge, "request"):
                request = judge.request
            else:
                label = backend or getattr(judge, "backend", None)
                if not label:
                    raise ValueError("give the judge to record, or request= / backend= to replay "
                                     "(the backend label is part of a non-endpoint judge's request)")
                request = lambda value, definition, texts: {"judge": label, "value": value, "definition": definition,
                                                            "texts": list(texts)}
        self.request = request
        recorded = sorted({r.get("model", r.get("judge", "?")) for r in self.log.requests.values()})
        live = getattr(judge, "backend", None)
        self.backend = (f"{live}, recorded to {self.log.path.name}" if live else
                        f"replay of {self.log.path.name} ({', '.join(recorded) or 'empty'})")
        self.invalid = self.asked = self.replayed = 0

    def _answer(self, request: dict, value: str, definition: str, texts):
        if request in self.log:
            self.replayed += 1
            return self.log.get(request)
        if self.judge is None:
            return self.log.get(request)          # raises ReplayMissing with the key
        raw = self.judge.answer(request) if hasattr(self.judge, "answer") else self.judge.rank_texts(value, definition, texts)
        self.asked += 1
        self.log.record(request, raw, getattr(self.judge, "backend", "?"))
        return raw

    def rank_texts(self, value: str, definition: str, texts) -> list[int] | None:
        from .judges import parse_permutation

        raw = self._answer(self.request(value, definition, list(texts)), value, definition, texts)
        perm = None if raw is None else parse_permutation(raw, len(texts))
        if perm is None:
            self.invalid += 1
        return perm

    def rank(self, value: str, definition: str, windows) -> tuple[list[int], np.ndarray]:
        return rank_windows(self.rank_texts, value, definition, windows)


class ReplayGenerator:
    """A chat generator's answers recorded to (``ReplayGenerator(path, generator)``, the endpoint generator) or
    replayed from (``ReplayGenerator(path, request=endpoint_generator_request(model))``) the file ``path``;
    ``generate(prompts) -> list[str]`` as every generator of :mod:`.generators`."""

    def __init__(self, path: str | Path, generator=None, *, request: Callable | None = None):
        self.log = AnswerLog(path)
        self.generator = generator
        if request is None:
            if generator is None or not hasattr(generator, "request"):
                raise ValueError("give the endpoint generator to record, or request=endpoint_generator_request(model) "
                                 "to replay")
            request = generator.request
        self.request = request
        live = getattr(generator, "backend", None)
        recorded = sorted({r.get("model", "?") for r in self.log.requests.values()})
        self.backend = (f"{live}, recorded to {self.log.path.name}" if live else
                        f"replay of {self.log.path.name} ({', '.join(recorded) or 'empty'})")
        self.asked = self.replayed = 0

    def generate(self, prompts: Sequence[str]) -> list[str]:
        out = []
        for p in prompts:
            req = self.request(p)
            if req in self.log or self.generator is None:
                out.append(self.log.get(req))
                self.replayed += 1
                continue
            text = self.generator.answer(req)
            self.asked += 1
            self.log.record(req, text, self.generator.backend)
            out.append(text)
        return out
