"""Training throughput of the lab's standard model sizes, which sets every LM chapter's budgets.

``measure_throughput(cfg, batch, seq_len)`` times full AdamW training steps (forward, backward, update) of a
:class:`~icmlbook.lm.model.GPT` on random tokens, through the shared trainer, and returns tokens per second.
:data:`STANDARD_SIZES` are the three sizes of the lab's dossier (layers x width, context): 2x64 at 32 tokens,
4x128 at 64, 6x256 at 128. The rule of thumb it is compared with: training costs about 6N FLOPs per token for N
non-embedding parameters, plus about 12 L d T for attention.
"""

from __future__ import annotations

import dataclasses
import time

import torch

from ..training import Trainer, TrainerConfig
from .model import GPT, GPTConfig, lm_loss

__all__ = ["STANDARD_SIZES", "Throughput", "measure_throughput", "calibrate"]

#: (n_layer, d_model, context) of the lab's three standard sizes
STANDARD_SIZES: tuple[tuple[int, int, int], ...] = ((2, 64, 32), (4, 128, 64), (6, 256, 128))


@dataclasses.dataclass(frozen=True)
class Throughput:
    n_layer: int
    d_model: int
    seq_len: int
    batch: int
    tokens_per_second: float
    seconds_per_step: float
    non_embedding_parameters: int
    flops_per_token: float          # 6N + 12 L d T (the rule of thumb)

    @property
    def achieved_gflops(self) -> float:
        return self.flops_per_token * self.tokens_per_second / 1e9


def measure_throughput(cfg: GPTConfig, batch: int, seq_len: int, steps: int = 10, warmup: int = 3,
                       device: str = "cpu", seed: int = 0) -> Throughput:
    """Tokens per second of AdamW training steps (best of ``steps`` timed steps after ``warmup``)."""
    torch.manual_seed(seed)
    model = GPT(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, cfg.vocab_size, (batch, seq_len + 1), generator=g)
    times: list[float] = []
    state = {"t": None}

    def loss_fn(m, b):
        x, y = b
        return lm_loss(m(x), y)

    def tick(trainer):
        now = time.perf_counter()
        if state["t"] is not None and trainer.step > warmup:
            times.append(now - state["t"])
        if device == "cuda":
            torch.cuda.synchronize()
            now = time.perf_counter()
        state["t"] = now

    from ..training import LambdaCallback

    trainer = Trainer(model, opt, loss_fn, lambda i, gen: (tokens[:, :-1], tokens[:, 1:]),
                      TrainerConfig(steps=steps + warmup + 1, device=device, show_progress=False, schedule=None),
                      [LambdaCallback(on_step_end=tick)])
    trainer.run()
    best = min(times)
    n = model.num_parameters(non_embedding=True)
    return Throughput(cfg.n_layer, cfg.d_model, seq_len, batch, batch * seq_len / best, best, n,
                      6.0 * n + 12.0 * cfg.n_layer * cfg.d_model * seq_len)


def calibrate(batch: int = 8, vocab_size: int = 512, steps: int = 8, device: str = "cpu") -> list[Throughput]:
    """:func:`measure_throughput` at every standard size (pre-RMSNorm, RoPE, SwiGLU, head dimension 32)."""
    return [measure_throughput(GPTConfig(vocab_size=vocab_size, n_layer=L, d_model=d, d_head=32, max_len=T),
                               batch, T, steps=steps, device=device) for L, d, T in STANDARD_SIZES]
