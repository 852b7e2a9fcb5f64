r"""A mixture of token streams with step-dependent weights and exact token accounting.

Each training batch has ``batch_size`` rows of ``seq_len + 1`` tokens (inputs and shifted targets), each row a
window of one stream. At step :math:`t` the weights :math:`w_s(t)` (a function of the step, normalised) set how
many rows each stream gets: the rows are apportioned so that every stream's *cumulative* row count stays within
one row of its target :math:`B\sum_{u\le t} w_s(u)` (largest-remainder rounding of the running deficit), so a
schedule such as "10% math from step 500 on" is met exactly over any stretch of training, not only in
expectation. Windows start at uniform positions of their stream, drawn from the sampler's own generator.
``tokens_seen[s]`` counts the tokens of stream ``s`` handed out (rows x seq_len, the predicted positions).
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import torch

__all__ = ["MixtureSampler", "constant_weights", "switch_weights"]


def constant_weights(weights: Mapping[str, float]) -> Callable[[int], dict[str, float]]:
    return lambda step: dict(weights)


def switch_weights(before: Mapping[str, float], after: Mapping[str, float], at: int) -> Callable[[int], dict]:
    """``before`` for steps < ``at``, then ``after`` (a mid-training switch)."""
    return lambda step: dict(before if step < at else after)


class MixtureSampler:
    """Batches (inputs, targets), each (batch_size, seq_len), from ``streams`` (name -> 1-D int64 tokens) mixed by
    ``weights(step) -> {name: weight}``. Use it as a trainer data source: ``sampler(step)``; steps in order."""

    def __init__(self, streams: Mapping[str, torch.Tensor], weights: Callable[[int], Mapping[str, float]],
                 batch_size: int, seq_len: int, seed: int = 0, device: torch.device | str = "cpu"):
        if not streams:
            raise ValueError("give at least one stream")
        for name, v in (("batch_size", batch_size), ("seq_len", seq_len)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= 1")
        self.names = list(streams)
        self.streams = {k: torch.as_tensor(v, dtype=torch.long).reshape(-1) for k, v in streams.items()}
        short = [k for k, v in self.streams.items() if v.numel() < seq_len + 1]
        if short:
            raise ValueError(f"streams {short} are shorter than seq_len + 1 = {seq_len + 1} tokens")
        self.weights, self.batch_size, self.seq_len = weights, batch_size, seq_len
        self.device = torch.device(device)
        self.generator = torch.Generator().manual_seed(int(seed))
        self.target_rows = np.zeros(len(self.names))       # B * sum of normalised weights so far
        self.rows = np.zeros(len(self.names), dtype=np.int64)
        self.tokens_seen = {k: 0 for k in self.names}
        self.next_step = 0
        self.last_sources: list[str] = []

    def _weights(self, step: int) -> np.ndarray:
        w = self.weights(step)
        unknown = sorted(set(w) - set(self.names))
        if unknown:
            raise ValueError(f"weights name streams {unknown} that do not exist; streams: {self.names}")
        vec = np.array([float(w.get(k, 0.0)) for k in self.names])
        if (vec < 0).any() or not vec.sum() > 0:
            raise ValueError(f"weights at step {step} must be >= 0 with a positive sum; got {dict(w)}")
        return vec / vec.sum()

    def allocate(self, step: int) -> np.ndarray:
        """Rows per stream at ``step`` (advances the running totals)."""
        self.target_rows = self.target_rows + self.batch_size * self._weights(step)
        deficit = self.target_rows - self.rows
        counts = np.floor(deficit).clip(min=0).astype(np.int64)
        short = self.batch_size - counts.sum()
        if short > 0:
            order = np.argsort(-(deficit - counts), kind="stable")       # largest remainders first
            counts[order[:short]] += 1
        elif short < 0:
            order = np.argsort(deficit - counts, kind="stable")
            for i in order:
                take = min(counts[i], -short)
                counts[i] -= take
                short += take
                if short == 0:
                    break
        self.rows += counts
        return counts

    def __call__(self, step: int, generator: torch.Generator | None = None):
        if step != self.next_step:
            raise RuntimeError(f"batch {step} asked for, but the sampler is at step {self.next_step} (steps in order)")
        counts = self.allocate(step)
        xs, sources = [], []
        for name, c in zip(self.names, counts):
            if c == 0:
                continue
            s = self.streams[name]
            starts = torch.randint(0, s.numel() - self.seq_len, (int(c),), generator=self.generator)
            xs.append(s[starts[:, None] + torch.arange(self.seq_len + 1)])
            sources += [name] * int(c)
            self.tokens_seen[name] += int(c) * self.seq_len
        rows = torch.cat(xs).to(self.device)
        self.next_step += 1
        self.last_sources = sources
        return rows[:, :-1], rows[:, 1:]

    def state_dict(self) -> dict:
        return {"generator": self.generator.get_state(), "target_rows": self.target_rows.copy(),
                "rows": self.rows.copy(), "tokens_seen": dict(self.tokens_seen), "next_step": self.next_step}

    def load_state_dict(self, state: dict) -> None:
        self.generator.set_state(state["generator"])
        self.target_rows, self.rows = state["target_rows"].copy(), state["rows"].copy()
        self.tokens_seen, self.next_step = dict(state["tokens_seen"]), state["next_step"]
