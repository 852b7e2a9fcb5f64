"""Judges behind one ranking interface: ``judge.rank(items) -> positions`` (0 = most strongly supports).

- :class:`SimulatedJudge` is a **statistical simulator**, not a model: it sees the items' latent intensities
  through its own monotone distortion ``g(I) = 20 ((I + 10) / 20)^gamma - 10 + offset`` and adds noise of
  standard deviation ``noise`` on that scale, then orders them (Thurstone: Gaussian noise; PL: Gumbel noise of
  the same standard deviation), or, asked for a **direct rating**, rounds ``g(I) + noise`` to the 21-point
  scale [-10, 10]. Used to validate the estimators, never called an LLM.
- :class:`ProjectionJudge` is the **MiniLM projection judge**: a real, deterministic ranking model that orders
  texts by the projection of their MiniLM embedding on a per-value direction fitted by ridge regression on the
  database's ratings (never called an LLM judge).
- :class:`KeywordJudge` reads only the support/oppose verb of a text (the direction-only trivial judge).
- :class:`OpenAICompatibleJudge`: off by default; needs the reader's own endpoint (through :class:`icmlbook.lm.ChatEndpoint`)
  and is never run by the book.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .synthetic import MODIFIERS, NEUTRAL_FRAME, OPPOSE_VERBS, SUPPORT_VERBS

__all__ = ["SimulatedJudge", "judge_panel", "ProjectionJudge", "KeywordJudge", "TemplateReader", "OpenAICompatibleJudge",
           "positions_from_scores", "parse_permutation"]


def positions_from_scores(scores: np.ndarray) -> np.ndarray:
    """Positions (0 = highest score) along the last axis."""
    order = np.argsort(-scores, axis=-1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(scores.shape[-1]), axis=-1)
    return pos


@dataclasses.dataclass(frozen=True)
class SimulatedJudge:
    """A simulated judge (see the module docstring). ``kind`` "thurstone" or "pl"."""

    noise: float = 1.0
    gamma: float = 1.0
    offset: float = 0.0
    kind: str = "thurstone"

    def __post_init__(self) -> None:
        if self.kind not in ("thurstone", "pl"):
            raise ValueError(f"kind={self.kind!r} is not allowed; allowed values: thurstone, pl")
        if not self.noise >= 0 or not self.gamma > 0:
            raise ValueError(f"noise={self.noise!r} must be >= 0 and gamma={self.gamma!r} > 0")

    def distort(self, latent) -> np.ndarray:
        x = np.asarray(latent, dtype=float)
        if np.any(np.abs(x) > 10 + 1e-9):
            raise ValueError("latent intensities must lie in [-10, 10]")
        return 20 * ((x + 10) / 20) ** self.gamma - 10 + self.offset

    def _noise(self, shape, rng) -> np.ndarray:
        if self.kind == "thurstone":
            return self.noise * rng.standard_normal(shape)
        return self.noise * np.sqrt(6) / np.pi * rng.gumbel(size=shape)

    def rank(self, latent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Positions of the items along the last axis of ``latent`` (each window judged independently)."""
        return positions_from_scores(self.distort(latent) + self._noise(np.shape(latent), rng))

    def rate(self, latent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Direct ratings on the 21-point scale [-10, 10]."""
        x = self.distort(latent) + self.noise * rng.standard_normal(np.shape(latent))
        return np.clip(np.round(x), -10, 10)


def judge_panel(n: int, rng: np.random.Generator, noise: float, gamma_spread: float, offset_sd: float,
                kind: str = "thurstone") -> list[SimulatedJudge]:
    """``n`` simulated judges with log-uniform gamma in [1/gamma_spread, gamma_spread] and Gaussian offsets."""
    if gamma_spread < 1:
        raise ValueError(f"gamma_spread={gamma_spread!r} is not allowed; it must be >= 1")
    g = np.exp(rng.uniform(-np.log(gamma_spread), np.log(gamma_spread), n))
    return [SimulatedJudge(noise, float(gi), float(oi), kind) for gi, oi in zip(g, offset_sd * rng.standard_normal(n))]


class ProjectionJudge:
    """The MiniLM projection judge of one value: ``score(z) = (z - mean) . w`` with ``w`` the ridge regression of
    ``ratings`` on embeddings ``z`` (n, D), its penalty chosen by leave-one-out among ``ridges`` (``ridge`` fixes
    it); ranks windows by score (deterministic; ties by slot order)."""

    backend = "MiniLM projection judge (all-MiniLM-L6-v2 embeddings, ridge direction)"

    def __init__(self, z: np.ndarray, ratings: np.ndarray, ridge: float | None = None,
                 ridges=(1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0)):
        z = np.asarray(z, dtype=float)
        y = np.asarray(ratings, dtype=float) - np.mean(ratings)
        self.mu = z.mean(0)
        zc = z - self.mu
        if ridge is None:
            # leave-one-out error of ridge regression in closed form (hat matrix diagonal)
            U, s, _ = np.linalg.svd(zc, full_matrices=False)
            uty = U.T @ y
            best = None
            for lam in ridges:
                f = s**2 / (s**2 + lam)
                fit = U @ (f * uty)
                h = (U**2 * f).sum(1)
                loo = np.mean(((y - fit) / np.maximum(1 - h, 1e-9)) ** 2)
                if best is None or loo < best[0]:
                    best = (loo, lam)
            ridge = best[1]
        self.ridge = float(ridge)
        self.w = np.linalg.solve(zc.T @ zc + self.ridge * np.eye(z.shape[1]), zc.T @ y)

    def score(self, z: np.ndarray) -> np.ndarray:
        return (np.asarray(z, dtype=float) - self.mu) @ self.w

    def rank(self, z_windows: np.ndarray, rng=None) -> np.ndarray:
        """Positions for windows of embeddings (..., k, D)."""
        return positions_from_scores(self.score(z_windows))


class TemplateReader:
    """Reads the latent intensity a text states in this book's template grammar (verb direction x modifier
    magnitude; 0 for neutral or unreadable text). Paired with a :class:`SimulatedJudge` it is the steering
    study's judge: an exact reader plus a simulated judge's noise and distortion, named as such (the analogue of
    an exact-rule metric); it knows the grammar, so it is never used where reading the grammar is the question."""

    backend = "template reader + simulated judge"

    @staticmethod
    def latent(texts) -> np.ndarray:
        out = np.zeros(len(texts))
        for i, t in enumerate(texts):
            d = KeywordJudge.direction(t)
            mag = next((v for w, v in MODIFIERS.items() if f" {w} " in t), 0.0)
            out[i] = d * mag
        return out


class KeywordJudge:
    """Orders texts by the direction its verb states (+1 support, -1 oppose, 0 neutral) and nothing else; ties
    broken at random. The trivial judge that ignores intensity words."""

    backend = "keyword judge (support/oppose verb only)"

    @staticmethod
    def direction(text: str) -> int:
        if any(f" {v} " in text for v in SUPPORT_VERBS):
            return 1
        if any(f" {v} " in text for v in OPPOSE_VERBS):
            return -1
        if any(f" {v} " in text for v in NEUTRAL_FRAME):
            return 0
        return 0

    def scores(self, texts) -> np.ndarray:
        return np.array([self.direction(t) for t in texts], dtype=float)

    def rank_scores(self, scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return positions_from_scores(scores + 1e-3 * rng.random(scores.shape))

    def rank_texts(self, value: str, definition: str, texts) -> list[int]:
        """The text interface of a judge (1-based text numbers, most supporting first; ties in slot order)."""
        return (np.argsort(-self.scores(list(texts)), kind="stable") + 1).tolist()


def parse_permutation(answer, k: int) -> list[int] | None:
    """A judge's answer as a permutation of 1..k (a list or text such as "[3,1,2]"), or None when it is not
    one (the caller drops and counts it)."""
    import re

    vals = answer if isinstance(answer, (list, tuple)) else [int(t) for t in re.findall(r"-?\d+", str(answer))]
    try:
        vals = [int(v) for v in vals]
    except (TypeError, ValueError):
        return None
    return vals if sorted(vals) == list(range(1, k + 1)) else None


class OpenAICompatibleJudge:
    """An LLM judge behind an OpenAI-compatible endpoint (off by default: the book never calls one), through the
    book's one client :class:`icmlbook.lm.ChatEndpoint`. Asks for the order of ``k`` numbered texts from most
    supporting to most opposing the value; answers that are not a permutation are dropped and counted in
    ``invalid``. ``request(value, definition, texts)`` is the exact chat body it sends (the key under which
    :class:`.replay.ReplayJudge` records the answer); ``answer(request)`` sends it and returns the raw text."""

    def __init__(self, base_url: str | None, model: str, api_key: str | None = None, timeout: float = 60.0):
        from ...lm import ChatEndpoint
        from .replay import endpoint_judge_request

        if not base_url:
            raise ValueError("base_url is required for the endpoint judge (the book ships no endpoint; give your own)")
        self.endpoint = ChatEndpoint(base_url, model, api_key=api_key, temperature=0.0, timeout=timeout)
        self.request = endpoint_judge_request(model, self.endpoint.temperature, self.endpoint.max_tokens)
        self.invalid = 0
        self.backend = f"endpoint judge ({self.endpoint.backend})"

    def prompt(self, value: str, definition: str, texts) -> str:
        from .replay import judge_prompt

        return judge_prompt(value, definition, texts)

    def answer(self, request: dict) -> str:
        """Send the chat body ``request`` (made by :attr:`request` for this judge's model) and return the text."""
        body = self.endpoint.request_body(messages=request["messages"])
        if body != request:
            raise ValueError("request was not made for this judge (model, temperature or max_tokens differ)")
        return self.endpoint.complete(messages=request["messages"])

    def rank_texts(self, value: str, definition: str, texts) -> list[int] | None:
        """The judge's order (1-based text numbers, most supporting first), or None (dropped, counted)."""
        perm = parse_permutation(self.answer(self.request(value, definition, list(texts))), len(texts))
        if perm is None:
            self.invalid += 1
        return perm

    def rank(self, value: str, definition: str, windows) -> tuple[list[int], np.ndarray]:
        """Positions (0 = most supporting) of every window of texts that got a valid answer, the book's ranking
        interface; returns (indices of the windows kept, positions (kept, k)). Dropped windows are counted in
        ``invalid``."""
        from .replay import rank_windows

        return rank_windows(self.rank_texts, value, definition, windows)
