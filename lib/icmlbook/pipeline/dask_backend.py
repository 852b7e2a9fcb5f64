"""The Dask backend: every chapter is one task (``distributed.Client.submit``) on a Dask cluster.

    python -m icmlbook.pipeline book --backend dask --scheduler tcp://HOST:8786

The client (this process) exports the chapters, checks which are unchanged (the executor's input key,
as locally) and submits the rest, each with its exported notebook. A worker runs the same papermill
execution as the local backend (``run_job``, in a private temporary directory, on the worker's own
checkout and ``icmlbook`` kernel) and returns the executed notebook, the log and the run record; the
client writes them beside its other executed chapters (record first, then the notebook under its
name, each by an atomic rename) and builds the site. Cell-by-cell progress comes back through Dask's
event stream (``Worker.log_event`` -> ``Client.subscribe_topic``).

A chapter that declares a GPU for the profile (``gpu: [full]`` on its entry in book/book.yml) asks
for the worker resource ``GPU=1``: only workers started with ``--resources GPU=1`` take it.

A worker that dies mid-chapter (killed, out of memory, node lost): Dask reports ``KilledWorker`` and
the chapter is reported **failed, not retried** (its record says so, the site hides it; nothing the
dead worker wrote reaches the client). We do not retry because a chapter that kills its worker once
(memory) usually kills the next one too. Dask itself retries a task whose worker died up to
``distributed.scheduler.allowed-failures`` times (default 3): the clusters this module starts set it
to 0, and the README's scheduler command does the same; the client prints a note when the scheduler
it joins retries.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import os
import socket
import tempfile
import uuid
from pathlib import Path
from typing import Any, Callable

from . import paths
from .execute import Event, ExecutionJob, ExecutionResult, cached_result, job_key, run_job, source_hash

TOPIC = "icmlbook-progress"
#: job fields sent to the worker (the notebook travels as text, the output directory is the worker's own)
_SENT = ("slug", "profile", "seed", "stall_timeout", "chapter_timeout", "threads", "key", "source_hash", "gpu")


def execute_on_worker(spec: dict[str, Any], notebook_text: str) -> dict[str, Any]:
    """The task: write the notebook to a private directory, execute it with ``run_job``, return the
    executed notebook and log (bytes) and the result. Runs on a Dask worker."""
    from distributed import get_worker

    try:
        worker = get_worker()
        address = worker.address
    except ValueError:  # called outside a worker (tests of this function alone)
        worker, address = None, None
    slug = spec["slug"]

    def emit(ev: Event) -> None:
        if worker is not None:
            worker.log_event(TOPIC, dict(ev, worker=address))

    with tempfile.TemporaryDirectory(prefix=f"icmlbook-{slug}-") as tmp:
        notebook = Path(tmp) / "in" / f"{slug}.ipynb"
        notebook.parent.mkdir()
        notebook.write_text(notebook_text)
        out = Path(tmp) / "out"
        job = ExecutionJob(notebook=notebook, output_dir=out, force=True, **spec)
        res = run_job(job, emit)
        files = {name: (out / name).read_bytes() for name in (f"{slug}.ipynb", f"{slug}.log")
                 if (out / name).exists()}
    result = dataclasses.asdict(res)
    result["record"].update(worker=address, worker_host=socket.gethostname())
    return {"result": result, "files": files}


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def deliver(job: ExecutionJob, payload: dict[str, Any]) -> ExecutionResult:
    """Write what a worker returned into the client's executed directory; the record goes first so that
    a failed execution hides the chapter before its notebook (if any) arrives."""
    res = ExecutionResult(**payload["result"])
    out = job.output_dir
    out.mkdir(parents=True, exist_ok=True)
    files = payload.get("files", {})
    if f"{job.slug}.log" in files:
        _write_atomic(out / f"{job.slug}.log", files[f"{job.slug}.log"])
    _write_atomic(paths.record_path(job.slug, out), json.dumps(res.record, indent=1).encode())
    if f"{job.slug}.ipynb" in files:
        _write_atomic(out / f"{job.slug}.ipynb", files[f"{job.slug}.ipynb"])
    return res


def lost(job: ExecutionJob, err: BaseException) -> ExecutionResult:
    """The task never returned (its worker died, the scheduler went away): a failed record, no notebook."""
    from distributed.scheduler import KilledWorker

    if isinstance(err, KilledWorker):
        error = (f"the Dask worker running this chapter died mid-chapter ({type(err).__name__}: {err}); "
                 "reported failed, not retried (see icmlbook.pipeline.dask_backend)")
    else:
        error = f"the Dask task did not return: {type(err).__name__}: {err}"
    record = {"chapter": job.slug, "profile": job.profile, "seed": job.seed, "claims": [], "status": "failed",
              "error": error, "input_key": job_key(job), "source_hash": job.source_hash, "wall_seconds": None}
    out = job.output_dir
    out.mkdir(parents=True, exist_ok=True)
    _write_atomic(paths.record_path(job.slug, out), json.dumps(record, indent=1).encode())
    return ExecutionResult(job.slug, "failed", 0.0, record, error)


class DaskBackend:
    """Chapters as tasks on a Dask cluster: ``DaskBackend(scheduler="tcp://host:8786")`` or, in tests,
    ``DaskBackend(client=Client(LocalCluster(...)))``."""

    def __init__(self, jobs: int | None = None, scheduler: str | None = None, client=None,
                 connect_timeout: float = 30, **_):
        try:
            from distributed import Client
        except ImportError as err:  # pragma: no cover - distributed is a dependency
            raise RuntimeError("backend='dask' needs the distributed package (pip install 'dask[distributed]')") from err
        self._own_client = client is None
        if client is None:
            if not scheduler:
                raise ValueError("backend='dask' needs a scheduler address: --scheduler tcp://HOST:8786 "
                                 "(make book BACKEND=dask SCHEDULER=tcp://HOST:8786)")
            try:
                client = Client(scheduler, timeout=connect_timeout)
            except OSError as err:
                raise ValueError(f"scheduler={scheduler!r}: no Dask scheduler answered ({err})") from err
        self.client = client
        self.scheduler = client.scheduler.address
        self.on_event: Callable[[Event], None] | None = None
        nthreads = client.nthreads()
        self.jobs = max(1, sum(nthreads.values())) if jobs is None else max(1, jobs)
        self.workers = len(nthreads)
        try:
            self.allowed_failures = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
        except Exception:  # pragma: no cover - a scheduler that refuses run_on_scheduler
            self.allowed_failures = None
        client.subscribe_topic(TOPIC, self._forward)
        self._pending: list = []

    def describe(self) -> str:
        note = ""
        if self.allowed_failures:
            note = (f"; note: this scheduler re-runs a chapter whose worker died up to {self.allowed_failures} "
                    "time(s) (distributed.scheduler.allowed-failures)")
        return f"Dask scheduler {self.scheduler}, {self.workers} worker(s), {self.jobs} thread(s){note}"

    def _forward(self, event) -> None:
        if self.on_event is not None:
            _, msg = event
            self.on_event(msg)

    def submit(self, job: ExecutionJob) -> "cf.Future[ExecutionResult]":
        fut: cf.Future = cf.Future()
        cached = cached_result(job)
        if cached is not None:
            fut.set_result(cached)
            return fut
        job = dataclasses.replace(job, key=job_key(job), source_hash=job.source_hash or source_hash(job.slug))
        spec = {name: getattr(job, name) for name in _SENT}
        dfut = self.client.submit(execute_on_worker, spec, job.notebook.read_text(), pure=False,
                                  key=f"icmlbook-{job.slug}-{uuid.uuid4().hex[:8]}",
                                  resources={"GPU": 1} if job.gpu else None)

        def done(f) -> None:
            try:
                fut.set_result(deliver(job, f.result()))
            except BaseException as err:  # noqa: BLE001 - every way a task can end is this chapter's result
                try:
                    fut.set_result(lost(job, err))
                except BaseException as err2:  # pragma: no cover
                    fut.set_exception(err2)

        dfut.add_done_callback(done)
        self._pending.append(dfut)
        return fut

    def shutdown(self) -> None:
        try:
            self.client.unsubscribe_topic(TOPIC)
        except Exception:  # pragma: no cover
            pass
        self._pending.clear()
        if self._own_client:
            self.client.close()
