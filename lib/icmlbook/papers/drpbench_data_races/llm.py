"""A pluggable LLM predictor (off by default; the book never runs it): an OpenAI-compatible chat endpoint
that a reader points at their own server or a local model.

Our own prompt (paraphrasing the task: list every data race as a shared variable and a line pair, with
SV-COMP's synchronisation semantics) and the numbered program go out; the answer must contain a JSON
object ``{"races": [{"shared_variable": str, "lineA": int, "lineB": int}, ...]}`` (fenced or bare).
Answers that do not parse or do not validate are re-asked up to ``max_retries`` times, and the failures
are counted; an answer that never validates is recorded as a parse failure (never silently dropped).
Every validated answer is cached in a JSONL file keyed by (model, prompt hash, sample index), so a run
can be re-scored without calling the model again (:class:`ReplayPredictor` reads such a file).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Sequence

from icmlbook.lm.endpoint import ChatEndpoint

from .data import Program, Race, race_from_dict

__all__ = ["SYSTEM_PROMPT", "numbered", "parse_answer", "LLMRacePredictor", "ReplayPredictor", "AnswerError"]

SYSTEM_PROMPT = (
    "You analyse C programs that use POSIX threads. List every data race: two accesses to the same shared "
    "memory location from threads that may run concurrently, at least one of them a write, not ordered by "
    "synchronisation. Accesses cannot race when both hold the same mutex, when both are inside atomic "
    "sections (__VERIFIER_atomic_begin/__VERIFIER_atomic_end, or a function whose name starts with "
    "__VERIFIER_atomic), when a semaphore excludes them, or when thread creation and joining order them. "
    "__VERIFIER_nondet_* returns an arbitrary value. Each line of the program starts with its number. "
    'Answer with JSON only: {"races": [{"shared_variable": "<lvalue>", "lineA": <int>, "lineB": <int>}]}, '
    'and {"races": []} for a race-free program.')


class AnswerError(ValueError):
    """A model answer that does not contain a valid race list."""


def numbered(program: Program) -> str:
    return "\n".join(f"{i}: {line}" for i, line in enumerate(program.lines, 1))


def parse_answer(text: str, n_lines: int | None = None) -> list[Race]:
    """The races of a model answer. Raises AnswerError on anything but a valid race list (missing keys,
    non-integer lines, lines outside the program)."""
    m = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S) or re.search(r"(\{.*\})", text, re.S)
    if m is None:
        raise AnswerError("no JSON object in the answer")
    try:
        obj = json.loads(m.group(1))
    except json.JSONDecodeError as e:
        raise AnswerError(f"the JSON does not parse: {e.msg}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("races"), list):
        raise AnswerError('the answer must be an object with a "races" list')
    out = []
    for i, item in enumerate(obj["races"]):
        if isinstance(item, dict) and any(isinstance(item.get(k), list) for k in ("lineA", "lineB")):
            raise AnswerError(f"race {i}: a predicted line must be one integer")
        try:
            race = race_from_dict(item, f"race {i}")
        except ValueError as e:
            raise AnswerError(str(e)) from None
        if n_lines is not None and not all(1 <= x <= n_lines for x in race.a + race.b):
            raise AnswerError(f"race {i}: line outside the program (1..{n_lines})")
        out.append(race)
    return out


@dataclasses.dataclass
class LLMRacePredictor:
    """Ask an OpenAI-compatible ``/chat/completions`` endpoint (``base_url`` e.g. ``http://localhost:8000/v1``)."""

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    max_retries: int = 3
    cache_path: str | Path | None = None
    timeout: float = 120.0
    sample: int = 0

    def __post_init__(self):
        self._endpoint = ChatEndpoint(self.base_url, self.model, api_key=self.api_key, temperature=self.temperature,
                                      timeout=self.timeout)
        self.name = f"LLM: {self.model}"
        self.failures = 0          # answers that did not validate (each retry counts)
        self.parse_failures: list[str] = []   # programs whose answers never validated
        self._cache: dict[str, list[dict]] = {}
        if self.cache_path is not None and Path(self.cache_path).exists():
            for line in Path(self.cache_path).read_text().splitlines():
                rec = json.loads(line)
                self._cache[rec["key"]] = rec["races"]

    def _key(self, prompt: str) -> str:
        h = hashlib.sha256((SYSTEM_PROMPT + "\n" + prompt).encode()).hexdigest()
        return f"{self.model}:{h}:{self.sample}"

    def _ask(self, prompt: str) -> str:
        return self._endpoint.complete(prompt, system=SYSTEM_PROMPT)

    def predict(self, program: Program) -> list[Race]:
        prompt = numbered(program)
        key = self._key(prompt)
        if key in self._cache:
            return [race_from_dict(d) for d in self._cache[key]]
        for _ in range(self.max_retries + 1):
            try:
                races = parse_answer(self._ask(prompt), len(program.lines))
            except AnswerError:
                self.failures += 1
                continue
            recs = [{"shared_variable": r.variable, "lineA": r.a[0], "lineB": r.b[0]} for r in races]
            self._cache[key] = recs
            if self.cache_path is not None:
                with open(self.cache_path, "a") as f:
                    f.write(json.dumps({"key": key, "program": program.name, "races": recs}) + "\n")
            return races
        self.parse_failures.append(program.name)
        return []


@dataclasses.dataclass
class ReplayPredictor:
    """Re-score saved answers: a JSONL file of ``{"program": name, "races": [...]}`` lines."""

    path: str | Path
    name: str = "replay"

    def __post_init__(self):
        self._answers: dict[str, list[Race]] = {}
        for i, line in enumerate(Path(self.path).read_text().splitlines(), 1):
            rec = json.loads(line)
            self._answers[rec["program"]] = [race_from_dict(d, f"{self.path}:{i}") for d in rec["races"]]

    def predict(self, program: Program) -> list[Race]:
        if program.name not in self._answers:
            raise KeyError(f"no saved answer for {program.name!r} in {self.path}")
        return list(self._answers[program.name])


def load_benchmark_copy(root: str | Path, names: Sequence[str] | None = None) -> list[Program]:
    """Another copy of the benchmark at a user's local path (same layout: ``index.json`` + ``programs/``),
    checked against its own index."""
    from .data import load_benchmark

    return load_benchmark(root, names=names)
