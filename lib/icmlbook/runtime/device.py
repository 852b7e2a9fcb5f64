"""Device and dtype choice: CUDA when present, else the CPU; never a silent fallback when asked."""

from __future__ import annotations

import contextlib
from typing import Iterator, Literal

DeviceRequest = Literal["auto", "cpu", "cuda"]


def pick_device(request: str = "auto"):
    """Return a ``torch.device``.

    ``"auto"`` takes CUDA when available, else the CPU. ``"cuda"`` raises if no GPU is present
    (rather than quietly running on the CPU); ``"cpu"`` always works.
    """
    import torch

    if request not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device={request!r} is not allowed; allowed values: auto, cpu, cuda")
    if request == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device='cuda' was requested but torch sees no CUDA device")
    if request == "auto":
        request = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(request)


def describe_device(device=None) -> str:
    """A human-readable device name for run records ("cpu (2 threads)" or the GPU's name)."""
    import torch

    device = pick_device() if device is None else torch.device(device)
    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    return f"cpu ({torch.get_num_threads()} threads)"


def default_dtype(device=None):
    """float64 on the CPU (exact checks are cheap there), float32 on a GPU."""
    import torch

    device = pick_device() if device is None else torch.device(device)
    return torch.float32 if device.type == "cuda" else torch.float64


@contextlib.contextmanager
def cpu_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` intra-op torch threads on the CPU, then restore the previous count.

    For loops of many small kernels (training a small head on mini-batches): each multi-threaded kernel
    opens an OpenMP region whose start-up and barrier cost more than the work, so one thread is several
    times faster there (measured: 2.5x for the LOES head on 2 cores), while large matrix products in the
    same chapter still use every thread the executor gave it.
    """
    import torch

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n={n!r} is not allowed; the thread count must be an integer >= 1")
    before = torch.get_num_threads()
    if before != n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def start_jax_cpu(threads: int | None = None) -> int | None:
    """Start JAX's CPU backend with at most ``threads`` compute threads (default: :func:`allotted_threads`, the
    executor's ``$OMP_NUM_THREADS``); returns the pool's thread count, or None where nothing was done.

    XLA's CPU client sizes its thread pool from the cores the process may run on when the client is created and
    reads no thread variable (measured with jax 0.10.2: ``OMP_NUM_THREADS=1`` and the ``XLA_FLAGS`` thread options
    left a jitted 1500x1500 matrix product at twice as much CPU time as wall time). So the calling thread's cores are
    narrowed to the first ``threads`` while the client is created; then every thread that existed before gets its
    own cores back and every thread the client started gets all of the process's cores: the pool keeps its size and
    the scheduler still places it on any core. Does nothing (None) when the backend already exists (it cannot be
    resized), ``threads`` covers every core, or the platform cannot set a thread's cores (not Linux).
    """
    import os

    import jax

    from .cache import allotted_threads

    threads = allotted_threads() if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads={threads!r} is not allowed; the thread count must be an integer >= 1")
    from jax._src import xla_bridge

    if not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task"):
        return None
    cores = os.sched_getaffinity(0)
    if xla_bridge.backends_are_initialized() or threads >= len(cores):
        return None

    def tids() -> set[int]:
        return {int(t) for t in os.listdir("/proc/self/task")}

    before = {t: os.sched_getaffinity(t) for t in tids()}
    os.sched_setaffinity(0, set(sorted(cores)[:threads]))
    try:
        jax.devices("cpu")
    finally:
        for tid in tids():
            try:
                os.sched_setaffinity(tid, before.get(tid, cores))
            except (ProcessLookupError, PermissionError):  # a thread that ended meanwhile
                pass
    return threads
