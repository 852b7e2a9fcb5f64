"""Callbacks: what a run does besides the update (logging, evaluation, auxiliary losses, activation
statistics, EMA weights, checkpoints, early stopping).

A callback overrides any of the hooks below; the trainer calls them in list order. A callback with state
that must survive a resume (a generator, collected values, EMA weights) implements ``state_dict`` and
``load_state_dict``; the trainer saves them in its checkpoints.

Values meant for plots go through ``trainer.record(name, value)`` (one row per step and name); tensors are
kept as they are and turned into numbers only when read, so logging every step does not synchronise a GPU.
"""

from __future__ import annotations

import contextlib
import copy
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import torch
from torch import nn

if TYPE_CHECKING:  # pragma: no cover
    from ._trainer import Trainer

__all__ = ["Callback", "LossLogger", "Evaluate", "AuxiliaryLoss", "ActivationStats", "EMA", "Checkpoint",
           "LambdaCallback"]


class Callback:
    """Base class; every hook is optional.

    - ``on_run_start(trainer)`` / ``on_run_end(trainer)``: around :meth:`Trainer.run`;
    - ``on_step_start(trainer)``: before update ``trainer.step`` (0-based) is computed;
    - ``extra_loss(trainer, batch, outputs) -> Tensor | None``: a term added to the loss of this
      micro-batch (``outputs`` is what the loss function returned beside the loss);
    - ``on_after_backward(trainer)``: gradients are in ``.grad``, not yet clipped;
    - ``on_step_end(trainer)``: after the optimiser step; ``trainer.step`` now counts it.
    """

    def on_run_start(self, trainer: Trainer) -> None: ...
    def on_step_start(self, trainer: Trainer) -> None: ...
    def extra_loss(self, trainer: Trainer, batch: Any, outputs: Mapping[str, Any]) -> torch.Tensor | None:
        return None
    def on_after_backward(self, trainer: Trainer) -> None: ...
    def on_step_end(self, trainer: Trainer) -> None: ...
    def on_run_end(self, trainer: Trainer) -> None: ...

    def state_dict(self) -> dict | None:
        return None

    def load_state_dict(self, state: dict) -> None: ...


def _due(step: int, every: int | None, at: frozenset[int] | None) -> bool:
    return (every is not None and step % every == 0) or (at is not None and step in at)


def _check_every(every, at) -> tuple[int | None, frozenset[int] | None]:
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ValueError(f"every={every!r} is not allowed; it must be an integer >= 1 or None")
    if every is None and at is None:
        raise ValueError("give every=N or at=<steps> (or both)")
    return every, (frozenset(int(s) for s in at) if at is not None else None)


class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_step_end=lambda tr: ...)``."""

    def __init__(self, **hooks: Callable):
        allowed = {"on_run_start", "on_step_start", "extra_loss", "on_after_backward", "on_step_end", "on_run_end"}
        bad = set(hooks) - allowed
        if bad:
            raise ValueError(f"unknown hooks {sorted(bad)}; allowed: {sorted(allowed)}")
        for name, fn in hooks.items():
            setattr(self, name, fn)


class LossLogger(Callback):
    """Records the training loss (and each auxiliary term) every ``every`` updates, as ``"loss"``,
    ``"loss/<name>"``, the learning-rate factor as ``"lr_factor"`` and, with clipping on, ``"grad_norm"``."""

    def __init__(self, every: int = 1):
        self.every, _ = _check_every(every, None)

    def on_step_end(self, trainer: Trainer) -> None:
        if trainer.step % self.every == 0:
            trainer.record("loss", trainer.last_loss)
            for name, value in trainer.last_terms.items():
                trainer.record(f"loss/{name}", value)
            trainer.record("lr_factor", trainer.last_lr_factor)
            if trainer.last_grad_norm is not None:
                trainer.record("grad_norm", trainer.last_grad_norm)


class Evaluate(Callback):
    """Calls ``fn(model) -> {name: value}`` in eval mode without gradients every ``every`` updates and/or at
    the steps in ``at`` (step 0 = before training, when ``at`` holds 0 or ``at_start``), and records each value
    as ``"<prefix><name>"``.

    ``keep_best="name"`` keeps a copy of the model's state at the best value of that metric (``mode`` "max" or
    "min"; ties keep the earlier one) in ``best_state``, its step in ``best_step``, its value in ``best_value``.
    ``stop_when(values, trainer) -> bool`` ends the run after this evaluation.
    """

    def __init__(self, fn: Callable[[nn.Module], Mapping[str, Any]], every: int | None = None,
                 at: Iterable[int] | None = None, *, prefix: str = "", at_start: bool = False,
                 keep_best: str | None = None, mode: str = "max", extra_state: Callable[[], Any] | None = None,
                 stop_when: Callable[[Mapping[str, Any], Trainer], bool] | None = None):
        if mode not in ("max", "min"):
            raise ValueError(f"mode={mode!r} is not allowed; allowed values: max, min")
        self.fn, self.prefix, self.at_start = fn, prefix, at_start
        self.every, self.at = _check_every(every, at)
        self.keep_best, self.mode, self.extra_state, self.stop_when = keep_best, mode, extra_state, stop_when
        self.best_value: float | None = None
        self.best_step: int | None = None
        self.best_state: Any = None
        self.last: Mapping[str, Any] = {}

    def evaluate(self, trainer: Trainer) -> Mapping[str, Any]:
        with trainer.eval_mode():
            values = self.fn(trainer.model)
        for name, value in values.items():
            trainer.record(f"{self.prefix}{name}", value)
        self.last = values
        if self.keep_best is not None:
            v = float(values[self.keep_best])
            better = self.best_value is None or (v > self.best_value if self.mode == "max" else v < self.best_value)
            if better:
                self.best_value, self.best_step = v, trainer.step
                state = copy.deepcopy(trainer.model.state_dict())
                self.best_state = state if self.extra_state is None else (state, copy.deepcopy(self.extra_state()))
        if self.stop_when is not None and self.stop_when(values, trainer):
            trainer.request_stop()
        return values

    def on_run_start(self, trainer: Trainer) -> None:
        if trainer.step == 0 and (self.at_start or (self.at is not None and 0 in self.at)):
            self.evaluate(trainer)

    def on_step_end(self, trainer: Trainer) -> None:
        if _due(trainer.step, self.every, self.at):
            self.evaluate(trainer)

    def state_dict(self) -> dict:
        return {"best_value": self.best_value, "best_step": self.best_step, "best_state": self.best_state,
                "last": dict(self.last)}

    def load_state_dict(self, state: dict) -> None:
        self.best_value, self.best_step, self.best_state = state["best_value"], state["best_step"], state["best_state"]
        self.last = state["last"]


class AuxiliaryLoss(Callback):
    """Adds ``weight * fn(model, batch, outputs)`` to the loss of every micro-batch, recorded as term ``name``
    (``outputs`` is the dict the loss function returned beside its loss, e.g. features). ``generator``: a
    ``torch.Generator`` the term draws from; its state is checkpointed."""

    def __init__(self, name: str, fn: Callable[..., torch.Tensor], weight: float = 1.0,
                 generator: torch.Generator | None = None):
        self.name, self.fn, self.weight, self.generator = name, fn, float(weight), generator

    def extra_loss(self, trainer: Trainer, batch: Any, outputs: Mapping[str, Any]) -> torch.Tensor | None:
        if self.weight == 0.0:
            return None
        term = self.fn(trainer.model, batch, outputs)
        return term if self.weight == 1.0 else self.weight * term

    def state_dict(self) -> dict | None:
        return {"generator": self.generator.get_state()} if self.generator is not None else None

    def load_state_dict(self, state: dict) -> None:
        if self.generator is not None and state:
            self.generator.set_state(state["generator"])


class ActivationStats(Callback):
    """Root-mean-square and largest absolute value of the outputs of named sub-modules, every ``every``
    updates (on the training forward pass of that update), recorded as ``"act_rms/<name>"`` and
    ``"act_absmax/<name>"``. ``modules``: names in ``model.named_modules()`` (default: every ``nn.Linear``).
    The hooks are registered for the run and removed after it; they do nothing on the other steps."""

    def __init__(self, every: int = 10, modules: Iterable[str] | None = None):
        self.every, _ = _check_every(every, None)
        self.names = list(modules) if modules is not None else None
        self._handles: list = []
        self._active = False
        self._trainer: Trainer | None = None

    def on_run_start(self, trainer: Trainer) -> None:
        self._trainer = trainer
        named = dict(trainer.model.named_modules())
        names = self.names if self.names is not None else [n for n, m in named.items() if isinstance(m, nn.Linear)]
        missing = [n for n in names if n not in named]
        if missing:
            raise ValueError(f"modules {missing} are not in the model; it has {sorted(n for n in named if n)[:20]}...")
        for n in names:
            self._handles.append(named[n].register_forward_hook(self._hook(n)))

    def _hook(self, name: str):
        def hook(module, inputs, output):
            if self._active and isinstance(output, torch.Tensor):
                with torch.no_grad():
                    x = output.detach().float()
                    self._trainer.record(f"act_rms/{name}", x.pow(2).mean().sqrt(), step=self._trainer.step + 1)
                    self._trainer.record(f"act_absmax/{name}", x.abs().max(), step=self._trainer.step + 1)
        return hook

    def on_step_start(self, trainer: Trainer) -> None:
        self._active = (trainer.step + 1) % self.every == 0

    def on_after_backward(self, trainer: Trainer) -> None:
        self._active = False

    def on_run_end(self, trainer: Trainer) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()
        self._active = False


class EMA(Callback):
    r"""An exponential moving average of the parameters, updated after every optimiser step:

    .. math::  \bar\theta_t = \beta\,\bar\theta_{t-1} + (1-\beta)\,\theta_t, \qquad \bar\theta_0 = \theta_0,

    with :math:`\beta` = ``decay`` (with ``warmup=True``, :math:`\beta_t = \min(\beta, (1+t)/(10+t))`, so
    early averages are not dominated by the initialisation). Buffers are copied, not averaged.
    ``with ema.applied(model):`` swaps the averaged weights in (for evaluation) and restores the live ones.
    """

    def __init__(self, decay: float = 0.999, warmup: bool = False):
        if not 0.0 <= decay < 1.0:
            raise ValueError(f"decay={decay!r} is not allowed; it must be in [0, 1)")
        self.decay, self.warmup = float(decay), bool(warmup)
        self.shadow: list[torch.Tensor] | None = None
        self.updates = 0

    def _params(self, model: nn.Module) -> list[torch.Tensor]:
        return [p for p in model.parameters() if p.requires_grad]

    def on_run_start(self, trainer: Trainer) -> None:
        if self.shadow is None:
            self.shadow = [p.detach().clone() for p in self._params(trainer.model)]

    def current_decay(self) -> float:
        if self.warmup:
            return min(self.decay, (1.0 + self.updates) / (10.0 + self.updates))
        return self.decay

    @torch.no_grad()
    def on_step_end(self, trainer: Trainer) -> None:
        self.updates += 1
        beta = self.current_decay()
        params = self._params(trainer.model)
        torch._foreach_mul_(self.shadow, beta)
        torch._foreach_add_(self.shadow, params, alpha=1.0 - beta)

    @contextlib.contextmanager
    def applied(self, model: nn.Module):
        params = self._params(model)
        if self.shadow is None or len(params) != len(self.shadow):
            raise RuntimeError("the EMA has no averaged weights for this model (was it part of the run?)")
        live = [p.detach().clone() for p in params]
        with torch.no_grad():
            for p, s in zip(params, self.shadow):
                p.copy_(s)
        try:
            yield model
        finally:
            with torch.no_grad():
                for p, v in zip(params, live):
                    p.copy_(v)

    def state_dict(self) -> dict:
        return {"shadow": self.shadow, "updates": self.updates}

    def load_state_dict(self, state: dict) -> None:
        self.shadow, self.updates = state["shadow"], state["updates"]


class Checkpoint(Callback):
    """Saves the trainer's checkpoint (:meth:`Trainer.save_checkpoint`) every ``every`` updates and/or at the
    steps in ``at``, and at the end of the run when ``at_end``."""

    def __init__(self, every: int | None = None, at: Iterable[int] | None = None, at_end: bool = True):
        self.every, self.at = _check_every(every, at)
        self.at_end = at_end

    def on_step_end(self, trainer: Trainer) -> None:
        if _due(trainer.step, self.every, self.at):
            trainer.save_checkpoint()

    def on_run_end(self, trainer: Trainer) -> None:
        if self.at_end and trainer.step > 0 and trainer.latest_checkpoint_step() != trainer.step:
            trainer.save_checkpoint()
