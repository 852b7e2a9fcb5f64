r"""Offline corpora: the Python standard library's own source, and a seeded Markov source with a known entropy.

Standard-library code
    The source files of a pinned list of modules (:data:`STDLIB_MODULES`; a package contributes its ``.py``
    files, never a ``test``/``tests``/``idle_test`` folder), read from the running interpreter in sorted order
    and joined with a file separator. Its SHA-256 goes into the run record; another Python version ships other
    sources, so a chapter can pin the hash it was calibrated on (``expected_sha256``) and is refused otherwise.
Markov source
    A first-order chain on ``vocab_size`` symbols whose transition rows are drawn from a Dirichlet distribution
    (concentration ``alpha``; small = predictable). Its entropy rate

    .. math::  H = -\sum_i \pi_i \sum_j P_{ij}\log P_{ij}\quad\text{nats/token},

    with :math:`\pi` the stationary distribution, is the lowest cross-entropy any model can reach on it (a model
    seeing the previous token reaches it exactly), so it is a loss floor for training curves.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import sysconfig
from pathlib import Path

import numpy as np
import torch

__all__ = ["STDLIB_MODULES", "StdlibCorpus", "stdlib_corpus", "MarkovSource"]

#: modules whose sources make the code corpus (pure-Python modules present in CPython 3.10-3.13)
STDLIB_MODULES: tuple[str, ...] = (
    "abc", "argparse", "ast", "base64", "bisect", "calendar", "collections", "configparser", "contextlib", "copy",
    "csv", "dataclasses", "difflib", "email", "enum", "fractions", "functools", "gettext", "glob", "heapq", "hmac",
    "html", "http", "inspect", "ipaddress", "json", "logging", "numbers", "operator", "optparse", "pprint",
    "queue", "random", "shlex", "shutil", "statistics", "string", "textwrap", "threading", "tokenize", "typing",
    "unittest", "urllib", "uuid", "warnings", "weakref", "xml",
)
_EXCLUDED_DIRS = {"test", "tests", "idle_test", "__pycache__"}
SEPARATOR = "\n# ---- file: {name} ----\n"


@dataclasses.dataclass(frozen=True)
class StdlibCorpus:
    """text (the joined sources), files (their paths relative to the stdlib), sha256 (of the UTF-8 text),
    python (the interpreter version the sources came from)."""

    text: str
    files: tuple[str, ...]
    sha256: str
    python: str

    @property
    def n_bytes(self) -> int:
        return len(self.text.encode("utf-8"))


def stdlib_dir() -> Path:
    """The folder of the running interpreter's standard-library sources."""
    return Path(sysconfig.get_paths()["stdlib"])


def _module_files(stdlib: Path, name: str) -> list[Path]:
    single, package = stdlib / f"{name}.py", stdlib / name
    if single.is_file():
        return [single]
    if (package / "__init__.py").is_file():
        return sorted(p for p in package.rglob("*.py") if not (_EXCLUDED_DIRS & set(p.relative_to(package).parts)))
    raise ValueError(f"module {name!r} has no Python source under {stdlib}")


def stdlib_corpus(modules: tuple[str, ...] = STDLIB_MODULES, expected_sha256: str | None = None) -> StdlibCorpus:
    """Read the sources of ``modules`` (see the module docstring); raise if ``expected_sha256`` is given and differs."""
    if not modules:
        raise ValueError("give at least one module")
    stdlib = stdlib_dir()
    parts, files = [], []
    for name in sorted(set(modules)):
        for path in _module_files(stdlib, name):
            rel = path.relative_to(stdlib).as_posix()
            files.append(rel)
            parts.append(SEPARATOR.format(name=rel) + path.read_text(encoding="utf-8"))
    text = "".join(parts)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise ValueError(f"the standard-library corpus hashes to {digest[:16]}..., not the expected "
                         f"{expected_sha256[:16]}... (Python {sys.version.split()[0]} ships other sources); "
                         "pass expected_sha256=None to accept it")
    return StdlibCorpus(text, tuple(files), digest, sys.version.split()[0])


class MarkovSource:
    """A seeded first-order Markov chain on ``vocab_size`` symbols (see the module docstring).

    Attributes: ``transition`` (V, V) row-stochastic, ``stationary`` (V,), ``entropy_rate`` (nats/token)."""

    def __init__(self, vocab_size: int, alpha: float = 0.1, seed: int = 0):
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 2:
            raise ValueError(f"vocab_size={vocab_size!r} is not allowed; it must be an integer >= 2")
        if not alpha > 0:
            raise ValueError(f"alpha={alpha!r} is not allowed; it must be > 0")
        rng = np.random.default_rng(np.random.SeedSequence([seed, 4099]))
        P = rng.dirichlet(np.full(vocab_size, alpha), size=vocab_size)
        P = np.maximum(P, 1e-12)
        self.transition = P / P.sum(1, keepdims=True)
        self.vocab_size, self.alpha, self.seed = vocab_size, alpha, seed
        evals, evecs = np.linalg.eig(self.transition.T)
        pi = np.real(evecs[:, np.argmin(np.abs(evals - 1.0))])
        self.stationary = pi / pi.sum()
        logP = np.log(self.transition)
        self.entropy_rate = float(-(self.stationary[:, None] * self.transition * logP).sum())

    def sample(self, n_tokens: int, seed: int = 0) -> torch.Tensor:
        """``n_tokens`` symbols (int64), the first drawn from the stationary distribution."""
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, seed, 7]))
        cdf = np.cumsum(self.transition, axis=1)
        u = rng.random(n_tokens)
        out = np.empty(n_tokens, dtype=np.int64)
        out[0] = int(np.searchsorted(np.cumsum(self.stationary), u[0] * np.cumsum(self.stationary)[-1]))
        for t in range(1, n_tokens):
            row = cdf[out[t - 1]]
            out[t] = min(int(np.searchsorted(row, u[t] * row[-1])), self.vocab_size - 1)
        return torch.from_numpy(out)

    def cross_entropy(self, tokens: torch.Tensor) -> float:
        """The chain's own mean negative log-likelihood of ``tokens`` after the first (nats/token)."""
        t = np.asarray(tokens)
        return float(-np.log(self.transition[t[:-1], t[1:]]).mean())
