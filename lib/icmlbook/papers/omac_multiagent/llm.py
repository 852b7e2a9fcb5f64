"""The off-by-default LLM backend of the OMAC chapter: the two actors as a language model writing configurations,
and an LLM agent on task files a reader supplies, both through one OpenAI-compatible chat endpoint
(:class:`icmlbook.lm.endpoint.ChatEndpoint`).

The book never calls an endpoint: no chapter run selects this backend, no number on the page comes from it, and the
tests drive it only against a local stub server that is a test fixture (``tests/stub_endpoint.py``). A reader who
runs a server of their own can pass :class:`EndpointActors` as the ``actor`` of :func:`.optimizer.algorithm1` (and
:func:`.optimizer.algorithm2`), where the paper's GPT-3.5 actors stand: the Semantic Initializer asked for diverse
configurations, the Contrastive Comparator shown a better and a worse one and asked for a new one. The meta-prompts
are our own words (the paper's were not reached). A configuration is written as ``{"attribute": value, ...}`` with
the allowed values listed; an answer that does not parse, names a value that is not allowed, or repeats a
configuration already tried is replaced by the built-in operator's proposal, and every such fallback is counted
(:attr:`EndpointActors.fallbacks`), as the engine counts its controllers' fallbacks.

:func:`run_task_file` runs one LLM agent on a reader's local task file (JSON lines ``{"question": ..., "answer": ...}``)
and scores exact matches; its results are labelled with the endpoint's model and address.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Sequence

import numpy as np

from ...lm.endpoint import ChatEndpoint
from .dimensions import Slot
from .optimizer import ContrastiveComparator, DiversityInitializer

__all__ = ["EndpointActors", "config_text", "parse_config", "parse_configs", "run_task_file", "TaskFileResult",
           "endpoint_for"]

_SYSTEM = ("You tune the settings of one component of a multi-agent system. Settings are given as a JSON object "
           "mapping each attribute to one of its allowed values. Answer with JSON only.")


def endpoint_for(base_url: str | None, model: str | None, api_key: str | None = None,
                 temperature: float = 0.7) -> ChatEndpoint:
    """The chat client of the backend; without an address it raises, saying that the book ships no endpoint."""
    if not base_url:
        raise ValueError("the OMAC endpoint backend was selected without an address: give base_url= of your own "
                         "OpenAI-compatible server (e.g. 'http://localhost:8000/v1') and model=; the book ships no "
                         "endpoint and its pages never use this backend")
    return ChatEndpoint(base_url, model or "", api_key=api_key, temperature=temperature)


def config_text(s: Slot, config: Sequence[int]) -> str:
    """A configuration as the JSON object the meta-prompts show."""
    return json.dumps(s.values(config))


def _options(s: Slot) -> str:
    return "\n".join(f"- {name}: one of {json.dumps(list(opts))}" for name, opts in s.attrs)


def _match(value, opts: tuple) -> int | None:
    for i, o in enumerate(opts):
        if value == o or str(value).strip().lower() == str(o).lower():
            return i
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            try:
                if float(value) == float(o):
                    return i
            except (TypeError, ValueError):
                pass
    return None


def parse_config(s: Slot, obj) -> tuple[int, ...] | None:
    """Option indices of a decoded JSON object naming every attribute of ``s`` with an allowed value, else None."""
    if not isinstance(obj, dict):
        return None
    out = []
    for name, opts in s.attrs:
        if name not in obj:
            return None
        i = _match(obj[name], opts)
        if i is None:
            return None
        out.append(i)
    return tuple(out)


def _json_spans(text: str) -> list:
    """Every JSON value that decodes from a '{' or '[' of ``text`` (an answer may wrap JSON in prose or fences)."""
    dec = json.JSONDecoder()
    found = []
    for m in re.finditer(r"[\[{]", text or ""):
        try:
            val, _ = dec.raw_decode(text[m.start():])
        except ValueError:
            continue
        found.append(val)
    return found


def parse_configs(s: Slot, text: str) -> list[tuple[int, ...]]:
    """Every valid configuration in an answer: a JSON object, or the objects of a JSON list (first found first)."""
    for val in _json_spans(text):
        objs = val if isinstance(val, list) else [val]
        got = [c for c in (parse_config(s, o) for o in objs) if c is not None]
        if got:
            return got
    return []


class EndpointActors:
    """The Semantic Initializer and the Contrastive Comparator as requests to a chat endpoint (off by default).

    ``EndpointActors(base_url=..., model=...)`` or ``EndpointActors(endpoint=ChatEndpoint(...))``. Counts:
    ``requests`` (answered), ``proposals`` (configurations asked for) and ``fallbacks`` (proposals replaced by the
    built-in operator because the answer did not parse, named a value not allowed, or repeated a tried one)."""

    def __init__(self, endpoint: ChatEndpoint | None = None, *, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, temperature: float = 0.7):
        self.endpoint = endpoint if endpoint is not None else endpoint_for(base_url, model, api_key, temperature)
        self.name = f"endpoint:{self.endpoint.model}"
        self.requests = 0
        self.proposals = 0
        self.fallbacks = 0
        self.transcript: list[tuple[str, str]] = []

    @property
    def fallback_rate(self) -> float:
        return self.fallbacks / self.proposals if self.proposals else 0.0

    def _ask(self, prompt: str) -> str:
        text = self.endpoint.complete(prompt, system=_SYSTEM)
        self.requests += 1
        self.transcript.append((prompt, text))
        return text

    def initialize(self, s: Slot, p0: tuple, n: int, rng: np.random.Generator) -> list[tuple]:
        """``n - 1`` configurations unlike the current one and unlike each other (one request)."""
        if n <= 1:
            return []
        prompt = (f"Attributes of the component '{s.name}' ({s.kind}) and their allowed values:\n{_options(s)}\n\n"
                  f"The current settings are {config_text(s, p0)}.\nPropose {n - 1} different settings that are as "
                  f"unlike the current one and each other as you can, as a JSON list of {n - 1} objects.")
        got = parse_configs(s, self._ask(prompt))
        pop, out = [tuple(p0)], []
        for c in got:
            if c not in pop and len(out) < n - 1:
                pop.append(c)
                out.append(c)
        self.proposals += n - 1
        while len(out) < n - 1:
            self.fallbacks += 1
            c = DiversityInitializer().propose(s, pop, rng)
            pop.append(c)
            out.append(c)
        return out

    def child(self, s: Slot, plus: tuple, minus: tuple, population: Sequence[tuple], rng: np.random.Generator) -> tuple:
        """One new configuration from a better and a worse one (one request)."""
        prompt = (f"Attributes of the component '{s.name}' ({s.kind}) and their allowed values:\n{_options(s)}\n\n"
                  f"These settings scored BETTER on the validation tasks:\n{config_text(s, plus)}\n"
                  f"These settings scored WORSE:\n{config_text(s, minus)}\n"
                  "Compare them: keep what seems to make the better one better, change what seems to hold the worse "
                  "one back, and propose one new setting not tried before, as one JSON object.\n"
                  f"Already tried: {json.dumps([s.values(p) for p in population])}")
        got = [c for c in parse_configs(s, self._ask(prompt)) if c not in set(population)]
        self.proposals += 1
        if got:
            return got[0]
        self.fallbacks += 1
        return ContrastiveComparator().child(s, plus, minus, population, rng)


# ----------------------------------------------------------------------------------------------- task files
class TaskFileResult:
    """An LLM agent's answers on a task file: per task the question, reference, answer text and whether it
    matched; labelled with the backend (model and address)."""

    def __init__(self, backend: str, rows: list[dict]):
        self.backend, self.rows = backend, rows

    @property
    def accuracy(self) -> float:
        return float(np.mean([r["correct"] for r in self.rows])) if self.rows else float("nan")


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def run_task_file(path: str | Path, endpoint: ChatEndpoint | None = None, *, base_url: str | None = None,
                  model: str | None = None, api_key: str | None = None, system: str | None = None,
                  limit: int | None = None) -> TaskFileResult:
    """Ask the endpoint each question of a local JSON-lines file (``{"question": str, "answer": str}`` per line)
    and score an exact match of the last line of its reply with the reference (case and spaces ignored)."""
    ep = endpoint if endpoint is not None else endpoint_for(base_url, model, api_key, temperature=0.0)
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"task file {str(p)!r} does not exist")
    rows = []
    for k, line in enumerate(p.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            q, ref = item["question"], item["answer"]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{p}: line {k + 1} is not a JSON object with 'question' and 'answer'") from e
        reply = ep.complete(str(q), system=system or "Answer the question. Put only the final answer on the last line.")
        last = reply.strip().splitlines()[-1] if reply.strip() else ""
        rows.append(dict(question=q, reference=ref, reply=reply, correct=_normalise(last) == _normalise(ref)))
        if limit is not None and len(rows) >= limit:
            break
    return TaskFileResult(ep.backend, rows)
