"""One client for an OpenAI-compatible chat endpoint, behind every chapter's off-by-default LLM backend.

The book never calls an endpoint: no chapter ships one, and none is reached at run time. A reader who runs
a server of their own (vLLM, llama.cpp's server, Ollama, a hosted API) points a chapter's endpoint backend at
it with ``base_url`` (e.g. ``http://localhost:8000/v1``); every answer is then labelled with the model's name
and the address it came from. The tests drive this client only against a local stub server
(``tests/stub_endpoint.py``), which is a test fixture and never a result.

Errors name what went wrong: a missing or non-HTTP address, an HTTP error with its status and the start of the
server's answer, an unreachable server, a payload without ``choices[0].message.content``.
"""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Sequence

__all__ = ["ChatEndpoint", "EndpointError", "chat_messages"]


class EndpointError(RuntimeError):
    """The endpoint could not be reached or did not answer as an OpenAI-compatible chat endpoint does."""


def chat_messages(prompt: str | None = None, *, system: str | None = None,
                  messages: Sequence[dict] | None = None) -> list[dict]:
    """The ``messages`` list of a chat request: either ``messages`` as given, or an optional system message
    followed by the user's ``prompt``; exactly one of ``prompt`` and ``messages``."""
    if (prompt is None) == (messages is None):
        raise ValueError("give exactly one of prompt= (a user message) and messages= (a full chat list)")
    if messages is not None:
        out = [dict(m) for m in messages]
        for i, m in enumerate(out):
            if m.get("role") not in ("system", "user", "assistant") or not isinstance(m.get("content"), str):
                raise ValueError(f"messages[{i}]={m!r}: each message needs role in ('system', 'user', 'assistant') "
                                 "and a string content")
        return out
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]


@dataclasses.dataclass
class ChatEndpoint:
    """``POST {base_url}/chat/completions`` with ``model``, ``messages`` and ``temperature``; returns the first
    choice's text. ``calls`` counts requests that returned an answer."""

    base_url: str | None
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0

    def __post_init__(self):
        if not self.base_url:
            raise ValueError("base_url is required for an endpoint backend: the book ships no endpoint and never "
                             "calls one; give the address of your own OpenAI-compatible server, e.g. "
                             "'http://localhost:8000/v1'")
        scheme = urllib.parse.urlparse(self.base_url).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"base_url={self.base_url!r}: the address must start with http:// or https://")
        if not self.model:
            raise ValueError("model is required: the name your server knows the model by")
        if not self.timeout > 0:
            raise ValueError(f"timeout={self.timeout!r}: must be a number of seconds > 0")
        self.base_url = self.base_url.rstrip("/")
        self.calls = 0

    @property
    def backend(self) -> str:
        """How results from this endpoint are labelled."""
        return f"{self.model} at {self.base_url}"

    def request_body(self, prompt: str | None = None, *, system: str | None = None,
                     messages: Sequence[dict] | None = None) -> dict:
        body = {"model": self.model, "temperature": self.temperature,
                "messages": chat_messages(prompt, system=system, messages=messages)}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def complete(self, prompt: str | None = None, *, system: str | None = None,
                 messages: Sequence[dict] | None = None) -> str:
        """The endpoint's answer to one chat request (see :func:`chat_messages` for the arguments)."""
        data = json.dumps(self.request_body(prompt, system=system, messages=messages)).encode()
        url = self.base_url + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(url, data=data, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", errors="replace")[:300] if e.fp else ""
            raise EndpointError(f"{url} answered HTTP {e.code} ({e.reason}): {detail}") from e
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            raise EndpointError(f"could not reach {url}: {getattr(e, 'reason', e)}") from e
        try:
            text = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise EndpointError(f"{url} did not answer as an OpenAI-compatible chat endpoint (no "
                                f"choices[0].message.content): {raw[:300]!r}") from e
        if not isinstance(text, str):
            raise EndpointError(f"{url}: choices[0].message.content is {type(text).__name__}, not text")
        self.calls += 1
        return text
