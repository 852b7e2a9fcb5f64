r"""The book's one training loop, generic over model, loss and optimiser (minGPT's shape).

    trainer = Trainer(model, optimizer, loss_fn, data, TrainerConfig(steps=2000, schedule=WarmupCosine(100, 2000),
                      grad_clip=1.0), callbacks=[LossLogger(), Evaluate(val_fn, every=100)])
    trainer.run()
    steps, loss = trainer.history("loss")

The loop knows nothing of the model: ``loss_fn(model, batch)`` returns the loss (a scalar tensor), or
``(loss, outputs)`` with a dict of things auxiliary-loss callbacks may read (features, logits). One update
``t`` (0-based) is

1. every callback's ``on_step_start``;
2. each group's learning rate set to its base rate times ``schedule(t)`` (a pure function of ``t``);
3. for each of ``accumulate`` micro-batches ``i = t*accumulate + j``: ``batch = data(i, generator)``, the loss
   plus every callback's ``extra_loss``, backward (divided by ``accumulate`` when it is > 1);
4. ``on_after_backward``; gradient clipping to global norm ``grad_clip`` (:func:`clip_grad_norm`);
5. ``optimizer.step()`` (and a torch LR scheduler's ``step()`` if one was given instead of a schedule);
6. ``trainer.step`` becomes ``t+1``; ``on_step_end`` (logging, evaluation, EMA, checkpoints, stopping).

Checkpoints (:meth:`Trainer.save_checkpoint`) live in the book's cache directory
(``icmlbook.runtime.cache.cache_dir()/checkpoints/<name>/``), written atomically beside a manifest holding the
payload's SHA-256, and verified on load. They hold the model, the optimiser, the step, every random state
the loop can touch (torch CPU and CUDA, numpy's and Python's global states, the trainer's generator), the
data source's and the callbacks' states, and the records so far, so that :meth:`Trainer.resume` (same
configuration, checked by a fingerprint) and :meth:`Trainer.branch_from` (another run's checkpoint) continue
the same curve bit for bit, on the same device and thread count.

A checkpoint holds only tensors and plain types (dicts, lists, tuples, sets, strings, bytes, numbers, ``None``) and
is read with ``torch.load(weights_only=True)``, which builds no other object: loading one runs no code from the
file. NumPy arrays and scalars (numpy's random state, a data source's row counters, the records) are written as
their raw bytes, dtype and shape in a tagged dict (:func:`checkpoint_safe`) and rebuilt exactly on load
(:func:`from_checkpoint_safe`); a state holding anything else is refused when the checkpoint is written, with its
place in the state named.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import io
import json
import pickle
import random
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import torch
from torch import nn

from ..runtime.cache import _atomic_write_bytes, _canonical, cache_dir
from ..runtime.device import cpu_threads, pick_device
from ..runtime.progress import progress
from ._callbacks import Callback
from ._schedules import Constant

__all__ = ["TrainerConfig", "Trainer", "clip_grad_norm", "CheckpointMismatch", "checkpoint_safe",
           "from_checkpoint_safe"]

#: the version of the checkpoint format (2: tensors and plain types only, read with weights_only=True)
CHECKPOINT_FORMAT = 2


class CheckpointMismatch(ValueError):
    """A checkpoint was written by a run with another configuration than the one resuming it."""


_NUMPY_TAG = "__icmlbook_numpy__"
_PLAIN = (str, bytes, bytearray, int, float, complex, bool, type(None), torch.dtype, torch.device, torch.Size)  # exact types


_DICTS = (dict, collections.OrderedDict, collections.Counter)


def _rebuilt_dict(obj: dict, values: dict) -> dict:
    """``obj`` itself when no value changed, else a dict of its type with ``values`` (and its ``_metadata``, which a
    module's ``state_dict`` carries)."""
    if all(values[k] is v for k, v in obj.items()):
        return obj
    new = type(obj)(values)
    if hasattr(obj, "_metadata"):
        new._metadata = obj._metadata
    return new


def checkpoint_safe(obj: Any, where: str = "state") -> Any:
    """``obj`` with every NumPy array or scalar replaced by ``{"__icmlbook_numpy__": kind, "dtype", "shape",
    "bytes"}`` (exact: the raw bytes), so that ``torch.load(weights_only=True)`` reads it back. Containers
    without NumPy values are returned as they are (a model's ``state_dict`` keeps its ``OrderedDict`` and
    metadata). Raises ``TypeError`` naming the place (``where``) of anything that is not a tensor or a plain
    type, since such a value could only be loaded by unpickling arbitrary objects."""
    if isinstance(obj, (np.ndarray, np.generic)):  # first: np.float64 is also a float
        if obj.dtype.hasobject:
            raise TypeError(f"{where}: a NumPy array of Python objects cannot go into a checkpoint")
        arr = np.asarray(obj)
        return {_NUMPY_TAG: "array" if isinstance(obj, np.ndarray) else "scalar", "dtype": arr.dtype.str,
                "shape": list(arr.shape), "bytes": arr.tobytes(order="C")}
    if isinstance(obj, torch.Tensor) or type(obj) in _PLAIN:
        return obj
    if isinstance(obj, dict):
        if type(obj) not in _DICTS:
            raise TypeError(f"{where} is a {type(obj).__qualname__}: a checkpoint holds plain dicts (dict, "
                            "OrderedDict, Counter), which torch.load(weights_only=True) reads")
        if _NUMPY_TAG in obj:
            raise TypeError(f"{where}: a dict with the reserved key {_NUMPY_TAG!r}")
        return _rebuilt_dict(obj, {k: checkpoint_safe(v, f"{where}[{k!r}]") for k, v in obj.items()})
    if type(obj) in (list, tuple, set):
        items = list(obj)
        out = [checkpoint_safe(v, f"{where}[{i}]") for i, v in enumerate(items)]
        if all(a is b for a, b in zip(out, items)):
            return obj
        if isinstance(obj, set):
            raise TypeError(f"{where}: a set holding NumPy values cannot go into a checkpoint")
        return out if isinstance(obj, list) else tuple(out)
    raise TypeError(f"{where} is a {type(obj).__module__}.{type(obj).__qualname__}: a checkpoint holds only "
                    "tensors, NumPy arrays and plain types (dict, list, tuple, set, str, bytes, numbers, None), "
                    "so that it loads with torch.load(weights_only=True)")


def from_checkpoint_safe(obj: Any) -> Any:
    """The inverse of :func:`checkpoint_safe`: tagged dicts become NumPy arrays and scalars again."""
    if isinstance(obj, dict):
        if obj.get(_NUMPY_TAG) in ("array", "scalar"):
            arr = np.frombuffer(obj["bytes"], dtype=np.dtype(obj["dtype"])).reshape(obj["shape"]).copy()
            return arr if obj[_NUMPY_TAG] == "array" else arr[()]
        return _rebuilt_dict(obj, {k: from_checkpoint_safe(v) for k, v in obj.items()})
    if type(obj) in (list, tuple):
        out = [from_checkpoint_safe(v) for v in obj]
        if all(a is b for a, b in zip(out, obj)):
            return obj
        return out if isinstance(obj, list) else tuple(out)
    return obj


@torch.no_grad()
def clip_grad_norm(parameters: Iterable[torch.Tensor], max_norm: float, eps: float = 1e-6) -> torch.Tensor:
    r"""Scale all gradients by :math:`\min(1, c/(\|g\|_2 + \epsilon))`, with :math:`\|g\|_2` the norm of all
    gradients taken together (as one vector) and :math:`c` = ``max_norm``; returns :math:`\|g\|_2` before
    clipping (a tensor, no synchronisation). The same rule as ``torch.nn.utils.clip_grad_norm_``."""
    if not max_norm > 0:
        raise ValueError(f"max_norm={max_norm!r} is not allowed; it must be > 0")
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    device = grads[0].device
    norms = [n.to(device) for n in torch._foreach_norm(grads)]
    total = torch.linalg.vector_norm(torch.stack(norms))
    coef = torch.clamp(max_norm / (total + eps), max=1.0)
    by_device: dict[torch.device, list[torch.Tensor]] = {}
    for g in grads:
        by_device.setdefault(g.device, []).append(g)
    for dev, gs in by_device.items():
        torch._foreach_mul_(gs, coef.to(dev))
    return total


@dataclasses.dataclass(frozen=True)
class TrainerConfig:
    """How to train (the model, loss, optimiser and data are the trainer's arguments).

    steps : int
        Number of optimiser updates of :meth:`Trainer.run` (a resumed run continues up to it).
    schedule : callable or None
        Learning-rate factor of update ``t`` (see :mod:`icmlbook.training.schedules`); ``None`` leaves the
        optimiser's rates alone (use it with a torch LR scheduler, or an optimiser that sets its own).
    grad_clip : float or None
        Clip the global gradient norm to this value (``None``: no clipping, no norm computed).
    accumulate : int
        Micro-batches per update (gradients summed, each loss divided by ``accumulate``).
    seed : int
        Seed of the trainer's generator (handed to the data source).
    device : {"auto", "cpu", "cuda"}
        Where the model is moved (CUDA when present with "auto").
    autocast : {None, "bfloat16"}
        Mixed precision for the forward pass (CUDA only).
    name : str or None
        Checkpoint folder under the cache (default: the first 16 hex digits of the run's fingerprint).
    show_progress : bool, desc : str
        A progress bar (:func:`icmlbook.runtime.progress`) named ``desc``.
    threads : int or None
        On the CPU, run the loop with this many intra-op torch threads (:func:`icmlbook.runtime.cpu_threads`);
        1 is several times faster for small models on 2 shared cores (OpenMP start-up and barriers cost more
        than the kernels). ``None`` keeps the current count.
    """

    steps: int
    schedule: Callable[[int], float] | None = Constant()
    grad_clip: float | None = None
    accumulate: int = 1
    seed: int = 0
    device: str = "auto"
    autocast: str | None = None
    name: str | None = None
    show_progress: bool = True
    desc: str = "training"
    threads: int | None = None

    def __post_init__(self) -> None:
        for field, minimum in (("steps", 0), ("accumulate", 1), ("seed", 0)):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
                raise ValueError(f"{field}={v!r} is not allowed; it must be an integer >= {minimum}")
        if self.grad_clip is not None and not self.grad_clip > 0:
            raise ValueError(f"grad_clip={self.grad_clip!r} is not allowed; it must be > 0 or None")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device={self.device!r} is not allowed; allowed values: auto, cpu, cuda")
        if self.autocast not in (None, "bfloat16"):
            raise ValueError(f"autocast={self.autocast!r} is not allowed; allowed values: None, bfloat16")
        if self.threads is not None and (isinstance(self.threads, bool) or not isinstance(self.threads, int)
                                         or self.threads < 1):
            raise ValueError(f"threads={self.threads!r} is not allowed; it must be an integer >= 1 or None")
        if self.schedule is not None and not callable(self.schedule):
            raise ValueError(f"schedule={self.schedule!r} is not allowed; it must be a callable of the step or None")


def _describe(obj: Any) -> Any:
    """A canonical, JSON-able description of a configuration object (for fingerprints)."""
    try:
        return _canonical(obj)
    except TypeError:
        return f"{type(obj).__module__}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"


def _to_device(batch: Any, device: torch.device) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_device(b, device) for b in batch)
    if isinstance(batch, dict):
        return {k: _to_device(v, device) for k, v in batch.items()}
    return batch


class Trainer:
    """Train ``model`` with ``optimizer`` on ``loss_fn(model, data(i, generator))``.

    Parameters
    ----------
    model : nn.Module
        Moved to the configured device.
    optimizer : torch.optim.Optimizer
        Built on the model's parameters; the base rate of each group is its ``lr`` at construction.
    loss_fn : callable
        ``loss_fn(model, batch) -> loss`` or ``-> (loss, outputs)``.
    data : callable or None
        ``data(i, generator) -> batch`` for micro-batch ``i`` (``None``: the batch is ``None``, for a loss
        that closes over its data). Tensors in the batch are moved to the device.
    config : TrainerConfig
    callbacks : sequence of Callback
    scheduler : torch.optim.lr_scheduler.LRScheduler, optional
        A torch scheduler stepped after every update (checkpointed), instead of ``config.schedule``.
    fingerprint : object, optional
        What else identifies the run (e.g. the chapter's config); enters the checkpoint fingerprint.
    """

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable, data: Callable | None,
                 config: TrainerConfig, callbacks: Sequence[Callback] = (), *, scheduler: Any = None,
                 fingerprint: Any = None):
        if not isinstance(config, TrainerConfig):
            raise TypeError(f"config must be a TrainerConfig, not {type(config).__name__}")
        if scheduler is not None and config.schedule is not None:
            raise ValueError("give either config.schedule or a torch scheduler, not both (set schedule=None)")
        bad = [type(c).__name__ for c in callbacks if not isinstance(c, Callback)]
        if bad:
            raise TypeError(f"callbacks must be Callback instances; got {bad}")
        self.config = config
        self.device = pick_device(config.device)
        self.model = model.to(self.device)
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.data = data
        self.callbacks = list(callbacks)
        self.scheduler = scheduler
        self.schedule = config.schedule
        self.base_lrs = [float(g["lr"]) for g in optimizer.param_groups] if config.schedule is not None else None
        self.generator = torch.Generator().manual_seed(config.seed)
        self.params = [p for g in optimizer.param_groups for p in g["params"]]
        self.step = 0
        self.last_loss: torch.Tensor | None = None
        self.last_terms: dict[str, torch.Tensor] = {}
        self.last_grad_norm: torch.Tensor | None = None
        self.last_lr_factor: float = 1.0
        self.branched_from: str | None = None
        self.seconds = 0.0
        self._log: dict[str, tuple[list[int], list[Any]]] = {}
        self._stop = False
        self._fingerprint_payload = self._fingerprint_payload_of(fingerprint)
        self.fingerprint = hashlib.sha256(json.dumps(self._fingerprint_payload, sort_keys=True).encode()).hexdigest()
        self.name = config.name or self.fingerprint[:16]
        self._move_to_device = self.device.type != "cpu"
        self._autocast = config.autocast == "bfloat16" and self.device.type == "cuda"

    # -- identity ---------------------------------------------------------------------------------------
    def _fingerprint_payload_of(self, fingerprint: Any) -> dict:
        cfg = {f.name: _describe(getattr(self.config, f.name)) for f in dataclasses.fields(self.config)
               if f.name not in ("steps", "name", "show_progress", "desc", "device", "threads")}
        groups = [{k: _describe(v) for k, v in g.items() if k != "params"} for g in self.optimizer.param_groups]
        return {"trainer": cfg, "model": type(self.model).__qualname__,
                "parameters": [[n, list(p.shape), str(p.dtype)] for n, p in self.model.named_parameters()],
                "optimizer": type(self.optimizer).__qualname__, "groups": groups,
                "scheduler": None if self.scheduler is None else type(self.scheduler).__qualname__,
                "callbacks": [type(c).__qualname__ for c in self.callbacks], "user": _describe(fingerprint)}

    # -- records ----------------------------------------------------------------------------------------
    def record(self, name: str, value: Any, step: int | None = None) -> None:
        """Append ``value`` (a number or tensor, detached) to the record ``name`` at ``step`` (default: now)."""
        steps, values = self._log.setdefault(name, ([], []))
        steps.append(self.step if step is None else int(step))
        values.append(value.detach() if isinstance(value, torch.Tensor) else value)

    def history(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(steps, values)`` of the record ``name`` as numpy arrays (values in float64, stacked)."""
        if name not in self._log:
            raise KeyError(f"no record {name!r}; recorded: {sorted(self._log)}")
        steps, values = self._log[name]
        return np.asarray(steps, dtype=np.int64), self._materialise(values)

    @staticmethod
    def _materialise(values: list) -> np.ndarray:
        tensors = [i for i, v in enumerate(values) if isinstance(v, torch.Tensor)]
        out: list[Any] = list(values)
        if tensors:
            stacked = torch.stack([values[i].to(torch.float64) for i in tensors]).cpu().numpy()
            for j, i in enumerate(tensors):
                out[i] = stacked[j]
        return np.asarray([np.asarray(v, dtype=np.float64) for v in out])

    def records(self) -> list[str]:
        return sorted(self._log)

    def history_steps(self, name: str) -> list[int]:
        return list(self._log.get(name, ([], []))[0])

    # -- control ----------------------------------------------------------------------------------------
    def request_stop(self) -> None:
        """End the run after the current hook (the step in progress is complete)."""
        self._stop = True

    @contextlib.contextmanager
    def eval_mode(self):
        """The model in eval mode without gradients, restored afterwards."""
        was = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                yield self.model
        finally:
            self.model.train(was)

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self, until: int | None = None) -> Trainer:
        """Train from ``self.step`` to ``until`` (default ``config.steps``) updates, or until a callback stops."""
        end = self.config.steps if until is None else int(until)
        if end < self.step:
            raise ValueError(f"until={end} is before the current step {self.step}")
        if self.config.threads is not None and self.device.type == "cpu":
            with cpu_threads(self.config.threads):
                return self._run(end)
        return self._run(end)

    def _run(self, end: int) -> Trainer:
        self._stop = False
        self.model.train()
        t0 = time.perf_counter()
        for cb in self.callbacks:
            cb.on_run_start(self)
        try:
            loop = range(self.step, end)
            for _ in progress(loop, total=len(loop), desc=self.config.desc, disable=not self.config.show_progress):
                if self._stop:
                    break
                self._update()
        finally:
            for cb in self.callbacks:
                cb.on_run_end(self)
            self.seconds += time.perf_counter() - t0
        return self

    def _update(self) -> None:
        t = self.step
        callbacks = self.callbacks
        for cb in callbacks:
            cb.on_step_start(self)
        if self.schedule is not None:
            factor = float(self.schedule(t))
            for group, base in zip(self.optimizer.param_groups, self.base_lrs):
                group["lr"] = base * factor
            self.last_lr_factor = factor
        self.optimizer.zero_grad(set_to_none=True)
        acc = self.config.accumulate
        total = None
        terms: dict[str, torch.Tensor] = {}
        for j in range(acc):
            batch = None if self.data is None else self.data(t * acc + j, self.generator)
            if self._move_to_device:
                batch = _to_device(batch, self.device)
            with torch.autocast("cuda", dtype=torch.bfloat16) if self._autocast else contextlib.nullcontext():
                out = self.loss_fn(self.model, batch)
                loss, outputs = out if isinstance(out, tuple) else (out, {})
                for cb in callbacks:
                    extra = cb.extra_loss(self, batch, outputs)
                    if extra is not None:
                        name = getattr(cb, "name", type(cb).__name__)
                        terms[name] = extra.detach() if name not in terms else terms[name] + extra.detach()
                        if "main" not in terms:
                            terms["main"] = loss.detach()
                        loss = loss + extra
            (loss / acc if acc > 1 else loss).backward()
            total = loss.detach() if total is None else total + loss.detach()
        self.last_loss = total / acc if acc > 1 else total
        self.last_terms = {k: v / acc for k, v in terms.items()} if acc > 1 else terms
        for cb in callbacks:
            cb.on_after_backward(self)
        if self.config.grad_clip is not None:
            self.last_grad_norm = clip_grad_norm(self.params, self.config.grad_clip)
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        self.step = t + 1
        for cb in callbacks:
            cb.on_step_end(self)

    # -- checkpoints ------------------------------------------------------------------------------------
    @property
    def checkpoint_dir(self) -> Path:
        return cache_dir() / "checkpoints" / self.name

    def checkpoint_path(self, step: int) -> Path:
        return self.checkpoint_dir / f"step{step:09d}.pt"

    def checkpoints(self, directory: Path | None = None) -> list[int]:
        """Steps of the checkpoints saved under ``directory`` (default: this run's), sorted."""
        d = self.checkpoint_dir if directory is None else Path(directory)
        return sorted(int(p.stem[4:]) for p in d.glob("step*.pt")) if d.exists() else []

    def latest_checkpoint_step(self) -> int | None:
        steps = self.checkpoints()
        return steps[-1] if steps else None

    def state_dict(self) -> dict:
        """Everything a resume needs (see the module docstring)."""
        rng = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
               "generator": self.generator.get_state()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            rng["cuda"] = torch.cuda.get_rng_state_all()
        return {
            "format": CHECKPOINT_FORMAT, "step": self.step, "fingerprint": self.fingerprint, "config": self._fingerprint_payload,
            "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
            "scheduler": None if self.scheduler is None else self.scheduler.state_dict(),
            "rng": rng, "data": self.data.state_dict() if hasattr(self.data, "state_dict") else None,
            "callbacks": [cb.state_dict() for cb in self.callbacks],
            "log": {k: (list(s), [self._materialise([v])[0] for v in vals]) for k, (s, vals) in self._log.items()},
            "seconds": self.seconds,
        }

    def load_state_dict(self, state: Mapping, check_config: bool = True) -> None:
        if check_config and state["fingerprint"] != self.fingerprint:
            ours, theirs = self._fingerprint_payload, state["config"]
            diff = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
            detail = {k: (theirs.get(k), ours.get(k)) for k in diff if k in ("trainer", "user", "groups")}
            raise CheckpointMismatch(f"the checkpoint at step {state['step']} was written with another configuration "
                                     f"(differs in: {', '.join(diff)}; checkpoint vs now: {detail}); "
                                     "branch_from() starts a new run from it")
        if len(state["callbacks"]) != len(self.callbacks):
            raise CheckpointMismatch(f"the checkpoint has {len(state['callbacks'])} callback states, "
                                     f"this trainer {len(self.callbacks)} callbacks")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if self.scheduler is not None:
            self.scheduler.load_state_dict(state["scheduler"])
        if state["data"] is not None and hasattr(self.data, "load_state_dict"):
            self.data.load_state_dict(state["data"])
        for cb, cb_state in zip(self.callbacks, state["callbacks"]):
            if cb_state is not None:
                cb.load_state_dict(cb_state)
        rng = state["rng"]
        torch.set_rng_state(rng["torch"])
        np.random.set_state(rng["numpy"])
        random.setstate(rng["python"])
        self.generator.set_state(rng["generator"])
        if "cuda" in rng and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
        self._log = {k: (list(s), list(v)) for k, (s, v) in state["log"].items()}
        self.step = int(state["step"])
        self.seconds = float(state.get("seconds", 0.0))

    def save_checkpoint(self) -> Path:
        """Write this run's checkpoint at the current step (atomically, with a SHA-256 manifest)."""
        buf = io.BytesIO()
        torch.save(checkpoint_safe(self.state_dict()), buf)
        data = buf.getvalue()
        path = self.checkpoint_path(self.step)
        _atomic_write_bytes(path, data)
        manifest = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "step": self.step,
                    "fingerprint": self.fingerprint, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        _atomic_write_bytes(path.with_suffix(".json"), json.dumps(manifest, indent=1).encode())
        return path

    def _read_checkpoint(self, path: Path) -> dict:
        manifest = path.with_suffix(".json")
        if not path.exists() or not manifest.exists():
            raise FileNotFoundError(f"no checkpoint at {path}")
        data = path.read_bytes()
        meta = json.loads(manifest.read_text())
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            raise ValueError(f"checkpoint {path} does not match its manifest (corrupt or edited)")
        try:
            state = torch.load(io.BytesIO(data), map_location=self.device, weights_only=True)
        except pickle.UnpicklingError as err:
            raise ValueError(f"checkpoint {path} holds objects other than tensors and plain types (an older "
                             f"format, or not written by this trainer); it is not loaded: {err}") from err
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            found = state.get("format") if isinstance(state, dict) else type(state).__name__
            raise ValueError(f"checkpoint {path} has format {found!r}; this trainer reads format {CHECKPOINT_FORMAT}")
        return from_checkpoint_safe(state)

    def resume(self, step: int | None = None) -> bool:
        """Load this run's checkpoint at ``step`` (default: the latest); ``False`` if there is none.

        Raises :class:`CheckpointMismatch` if the checkpoint came from another configuration."""
        steps = self.checkpoints()
        if not steps:
            return False
        if step is None:
            step = steps[-1]
        elif step not in steps:
            raise ValueError(f"step={step!r}: no checkpoint there; saved steps: {steps}")
        self.load_state_dict(self._read_checkpoint(self.checkpoint_path(step)))
        return True

    def branch_from(self, source: str | Path, step: int | None = None) -> None:
        """Start this run from another run's checkpoint (its name or folder), at ``step`` (default: latest).

        The configuration may differ (e.g. a decay branch of a WSD run); the model and optimiser must match.
        This run's own checkpoints go to its own folder."""
        directory = Path(source) if Path(source).is_dir() else cache_dir() / "checkpoints" / str(source)
        steps = self.checkpoints(directory)
        if not steps:
            raise FileNotFoundError(f"no checkpoints in {directory}")
        step = steps[-1] if step is None else step
        if step not in steps:
            raise ValueError(f"step={step!r}: no checkpoint there; saved steps: {steps}")
        self.load_state_dict(self._read_checkpoint(directory / f"step{step:09d}.pt"), check_config=False)
        self.branched_from = f"{directory.name}@{step}"
