"""Execute: run exported chapters with papermill, each in its own process, watched for progress.

Where a chapter executes is pluggable (``Backend``): the local backend runs chapters as parallel
processes on this machine; the Dask backend (``dask_backend``) sends each chapter as one task to a
Dask cluster and brings the executed notebook, log and run record back. A backend provides
``submit(job) -> Future[ExecutionResult]``; progress events (which chapter runs, cell i of N) go to
the ``on_event`` callback set on it.

Every execution leaves, beside the executed notebook, a run record (``<slug>.record.json``): the
chapter's own facts (profile, seed, device, peak memory, versions, commit, claims ledger, written by
the chapter through ``Run.finish``) plus the executor's (status, wall time, input key, error).

An unchanged chapter (same source, same library code, same profile and seed) whose last execution
succeeded is not executed again: its input key matches and the executed notebook is reused.

A slow machine gives a slow chapter, never a failed one: there is no time limit per cell. A **watchdog**
(:class:`Watchdog`) stops a chapter only when it has shown no sign of progress for ``stall_timeout`` seconds
(default 10 minutes): no progress tick (``icmlbook.runtime.progress`` and ``heartbeat``, which the trainer's
loop, every progress bar and every finished cached artefact send), no output (text a cell prints, anything the
kernel writes to the chapter's log) and no new cell. The message names the cell and the time it was silent
(status ``stalled``). A generous limit on the whole chapter (``chapter_timeout``, default 4 hours, 0 for none)
still catches a chapter that ticks forever (status ``timeout``).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Protocol

import nbformat

from typing import Callable

from ..runtime.context import EXECUTOR_ENV, HEARTBEAT_ENV, PROGRESS_LOG_ENV, RECORD_ENV
from ..runtime.profiles import check_profile, check_seed
from . import paths
from .postprocess import postprocess_notebook


@dataclasses.dataclass(frozen=True)
class ExecutionJob:
    slug: str
    profile: str
    seed: int
    notebook: Path            # exported, unexecuted
    output_dir: Path          # where the executed notebook and its record go
    stall_timeout: int = 600  # seconds without any progress before the chapter is stopped (the watchdog)
    chapter_timeout: int = 14400  # seconds for the whole chapter, however it progresses (0: no limit)
    force: bool = False
    threads: int | None = None  # BLAS/torch threads of the chapter's kernel (None: leave the default)
    key: str | None = None      # input key, computed where the sources are (None: computed by run_job)
    source_hash: str | None = None  # hash of the chapter's own sources (see source_hash)
    gpu: bool = False           # the chapter asks for a GPU in this profile (a cluster backend honours it)


@dataclasses.dataclass
class ExecutionResult:
    slug: str
    status: str               # "ok", "cached", "failed", "stalled" (no progress), "timeout" (whole chapter)
    wall_seconds: float
    record: dict
    error: str | None = None
    failing_cell: str | None = None


def input_key(slug: str, profile: str, seed: int) -> str:
    """Hash of everything that decides a chapter's output: its source, the library, the sizes."""
    h = hashlib.sha256()
    h.update(f"{slug}|{profile}|{seed}".encode())
    h.update(paths.chapter_source(slug).read_bytes())
    lib = paths.ROOT / "lib" / "icmlbook"
    for f in sorted(lib.rglob("*.py")):
        h.update(str(f.relative_to(lib)).encode())
        h.update(f.read_bytes())
    for extra in (paths.ROOT / "pyproject.toml",):
        if extra.exists():
            h.update(extra.read_bytes())
    return h.hexdigest()


def source_hash(slug: str) -> str | None:
    """Hash of the chapter's own sources: its notebook and its library package (``lib/icmlbook/papers/<slug>/``).
    The build report compares it with the run record's to mark a chapter whose source changed since the
    execution the site shows. None when the chapter has no source here."""
    src = paths.chapter_source(slug)
    if not src.exists():
        return None
    h = hashlib.sha256(src.read_bytes())
    package = paths.ROOT / "lib" / "icmlbook" / "papers" / slug
    for f in sorted(package.rglob("*.py")) if package.is_dir() else []:
        h.update(str(f.relative_to(package)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _cached_result(job: ExecutionJob, key: str) -> ExecutionResult | None:
    record_file = paths.record_path(job.slug, job.output_dir)
    executed = job.output_dir / f"{job.slug}.ipynb"
    if job.force or not record_file.exists() or not executed.exists():
        return None
    try:
        record = json.loads(record_file.read_text())
    except ValueError:
        return None
    if record.get("input_key") != key or record.get("status") != "ok":
        return None
    try:
        nbformat.read(executed, as_version=4)
    except Exception:
        return None
    return ExecutionResult(job.slug, "cached", 0.0, record)


#: file the executor's papermill child appends one JSON line to as each code cell starts
CELL_PROGRESS_ENV = "ICMLBOOK_CELL_PROGRESS"
#: the watchdog's defaults (seconds): no progress for this long stops a chapter; no chapter runs longer
STALL_TIMEOUT = 600
CHAPTER_TIMEOUT = 14400
#: statuses of an execution that did not succeed (the chapter is left out of the site, the run fails)
FAILED_STATUSES = ("failed", "stalled", "timeout")
Event = dict  # {"chapter": slug, "event": "start" | "cell" | "done", ...}


def job_key(job: ExecutionJob) -> str:
    return job.key or input_key(job.slug, job.profile, job.seed)


def cached_result(job: ExecutionJob) -> ExecutionResult | None:
    """The previous execution of an unchanged chapter, if it succeeded and its notebook is intact."""
    check_profile(job.profile)
    check_seed(job.seed)
    return _cached_result(job, job_key(job))


def _read_cell_events(path: Path, offset: int) -> tuple[list[dict], int]:
    """The cell events appended to ``path`` since ``offset`` (complete lines only), and the new offset."""
    try:
        with open(path) as f:
            f.seek(offset)
            chunk = f.read()
    except FileNotFoundError:
        return [], offset
    complete = chunk[: chunk.rfind("\n") + 1]  # a line still being written waits for the next poll
    events = []
    for line in complete.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events, offset + len(complete)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


class Watchdog:
    """Decides when a running chapter is stopped: after ``stall_timeout`` seconds in which none of the
    ``signals`` (files that grow as the chapter progresses: its heartbeat, its cell events, its log) grew, or
    after ``chapter_timeout`` seconds in all (0: never). ``check()`` returns ``None`` while the chapter may go on,
    else ``"stalled"`` or ``"timeout"``; ``clock`` is injectable for tests.

    It also keeps the longest silence the chapter went through (``longest_silence``, with the ``where`` given to
    ``check`` when that silence began): the run record carries it, so a chapter that came close to the stall
    limit is seen before a slower machine stops it."""

    def __init__(self, signals: list[Path], stall_timeout: float, chapter_timeout: float = 0,
                 clock: Callable[[], float] = time.monotonic):
        if not stall_timeout > 0:
            raise ValueError(f"stall_timeout={stall_timeout!r} is not allowed; it must be > 0 seconds")
        if not chapter_timeout >= 0:
            raise ValueError(f"chapter_timeout={chapter_timeout!r} is not allowed; it must be >= 0 seconds (0: none)")
        self.signals, self.stall_timeout, self.chapter_timeout, self.clock = signals, stall_timeout, chapter_timeout, clock
        self.started = self.last_progress = clock()
        self._sizes = [_size(p) for p in signals]
        self.longest_silence, self.longest_where = 0.0, None
        self._where = None

    def _silence_ends(self, now: float) -> None:
        if now - self.last_progress > self.longest_silence:
            self.longest_silence, self.longest_where = now - self.last_progress, self._where

    def check(self, where: str | None = None) -> str | None:
        """``where``: what the chapter is doing now (its cell), remembered for the longest silence."""
        now = self.clock()
        sizes = [_size(p) for p in self.signals]
        if sizes != self._sizes:
            self._silence_ends(now)
            self._sizes, self.last_progress, self._where = sizes, now, where
        elif self._where is None:
            self._where = where
        if self.chapter_timeout and now - self.started > self.chapter_timeout:
            return "timeout"
        if now - self.last_progress > self.stall_timeout:
            return "stalled"
        return None

    @property
    def silent_for(self) -> float:
        return self.clock() - self.last_progress

    def finish(self) -> dict:
        """The chapter has ended (its end is progress too): the longest silence, in seconds, and where."""
        self._silence_ends(self.clock())
        return {"seconds": round(self.longest_silence, 1), "where": self.longest_where}


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    return f"{seconds} s ({seconds / 60:.0f} min)" if seconds < 7200 else f"{seconds} s ({seconds / 3600:.1f} h)"


def _where(cell: dict | None) -> str:
    """``cell 12/40 (`its first line`)``, or the kernel's start-up before the first cell."""
    if not cell:
        return "the kernel's start-up (before its first cell)"
    where = f"cell {cell.get('cell')}/{cell.get('cells')}"
    first = next((ln for ln in cell.get("source", "").splitlines() if ln.strip()), "")
    return where + (f" (`{first.strip()[:100]}`)" if first else "")


def stop_message(status: str, job: ExecutionJob, cell: dict | None, wall: float) -> str:
    """What the run report and the record say when the watchdog stopped a chapter."""
    where = _where(cell)
    if status == "stalled":
        return (f"stalled: {where} reported no progress for {_duration(job.stall_timeout)} (no progress tick, no "
                f"output, no finished cached artefact, no new cell), after {_duration(wall)} in the chapter; "
                "stopped by the watchdog (--stall-timeout). A cell that works silently for long loops through "
                "icmlbook.runtime.progress or calls icmlbook.runtime.heartbeat(); a re-run resumes from the "
                "artefacts already cached.")
    return (f"timeout: the chapter ran past its limit of {_duration(job.chapter_timeout)} (--chapter-timeout), "
            f"at {where}, still making progress; a re-run resumes from the artefacts already cached.")


def run_job(job: ExecutionJob, on_event: Callable[[Event], None] | None = None) -> ExecutionResult:
    """Execute one chapter in a child process (``python -m icmlbook.pipeline _execute-one``).

    The executed notebook is written beside its final name and moved there when the child has exited,
    after the run record: a killed or crashed execution never leaves a half-written notebook under the
    name the site reads. ``on_event`` receives ``start`` and ``cell`` (i of N) events."""
    cached = cached_result(job)
    if cached is not None:
        return cached
    key = job_key(job)
    job.output_dir.mkdir(parents=True, exist_ok=True)
    executed = job.output_dir / f"{job.slug}.ipynb"
    partial = job.output_dir / f".{job.slug}.ipynb.part"
    log = job.output_dir / f"{job.slug}.log"
    with tempfile.TemporaryDirectory() as tmp:
        kernel_record = Path(tmp) / "kernel-record.json"
        error_file = Path(tmp) / "error.json"
        cells_file = Path(tmp) / "cells.jsonl"
        beats = Path(tmp) / "heartbeat"
        env = dict(os.environ, **{EXECUTOR_ENV: "1", RECORD_ENV: str(kernel_record), PROGRESS_LOG_ENV: str(log),
                                   CELL_PROGRESS_ENV: str(cells_file), HEARTBEAT_ENV: str(beats),
                                   "PYTHONHASHSEED": "0", "MPLBACKEND": "module://matplotlib_inline.backend_inline"})
        # idle OpenMP workers sleep instead of spinning: on shared cores spinning threads starve the
        # thread doing the work (measured: 98 s -> 10 s on an anti-diagonal DTW sweep)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        if job.threads:
            # chapters running side by side share the cores: oversubscribed BLAS threads are many
            # times slower than one thread each
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                env[var] = str(job.threads)
        cmd = [sys.executable, "-m", "icmlbook.pipeline", "_execute-one", str(job.notebook), str(partial),
               "--profile", job.profile, "--seed", str(job.seed), "--error-file", str(error_file)]
        t0 = time.perf_counter()
        status, error, failing = "ok", None, None
        if on_event:
            on_event({"chapter": job.slug, "event": "start"})
        with open(log, "w") as logf:
            proc = subprocess.Popen(cmd, env=env, cwd=paths.ROOT, stdout=logf, stderr=subprocess.STDOUT)
            offset, cell = 0, None
            watchdog = Watchdog([beats, cells_file, log], job.stall_timeout, job.chapter_timeout)
            try:
                while True:
                    try:
                        proc.wait(timeout=0.5)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    events, offset = _read_cell_events(cells_file, offset)
                    for ev in events:
                        cell = ev
                        if on_event:
                            on_event({"chapter": job.slug, "event": "cell", "cell": ev.get("cell"),
                                      "cells": ev.get("cells")})
                    stop = watchdog.check(_where(cell))
                    if stop:
                        proc.kill()
                        proc.wait()
                        status, failing = stop, (cell or {}).get("source")
                        error = stop_message(stop, job, cell, time.perf_counter() - t0)
                        with open(log, "a") as f:
                            f.write(f"\n[icmlbook executor] {error}\n")
                        break
            except BaseException:  # interrupted (Ctrl-C, the worker shutting down): no orphaned child
                proc.kill()
                proc.wait()
                raise
            if status == "ok" and proc.returncode != 0:
                status = "failed"
            silence = watchdog.finish()
        wall = time.perf_counter() - t0
        if status == "failed":
            if error_file.exists():
                info = json.loads(error_file.read_text())
                error, failing = info.get("error"), info.get("cell")
            else:
                error = f"executor process failed; see {log}"
        record = json.loads(kernel_record.read_text()) if kernel_record.exists() else {
            "chapter": job.slug, "profile": job.profile, "seed": job.seed, "claims": []}
        if status == "ok" and not kernel_record.exists():
            status, error = "failed", "the chapter never called run.finish(): no run record was written"
    record.update({"status": status, "wall_seconds": round(wall, 2), "input_key": key, "threads": job.threads,
                   "longest_silence": silence, "stall_timeout": job.stall_timeout,
                   "source_hash": job.source_hash or source_hash(job.slug),
                   "executed_notebook": executed.name, "error": error})
    # record first (a failed status hides the chapter from the site), then the notebook under its name
    tmp_record = paths.record_path(job.slug, job.output_dir).with_suffix(".tmp")
    tmp_record.write_text(json.dumps(record, indent=1))
    os.replace(tmp_record, paths.record_path(job.slug, job.output_dir))
    if partial.exists():
        os.replace(partial, executed)
    return ExecutionResult(job.slug, status, wall, record, error, failing)


class _OutputTicks:
    """papermill's ``stdout_file``/``stderr_file``: each piece of text a cell prints is a progress tick (the text
    itself is already in the notebook)."""

    def write(self, text: str) -> int:
        from ..runtime.progress import heartbeat

        heartbeat()
        return len(text)

    def flush(self) -> None:
        pass


def execute_one(notebook: Path, executed: Path, profile: str, seed: int, error_file: Path | None = None) -> int:
    """Child-process entry: papermill (no time limit per cell: the parent's watchdog decides), then our
    post-execution pass. Returns an exit code."""
    import papermill as pm

    hooks = {}
    cells_file = os.environ.get(CELL_PROGRESS_ENV)
    if cells_file:
        source = nbformat.read(notebook, as_version=4)
        # the code cells papermill runs: the notebook's, plus the injected-parameters cell
        n_cells = sum(c.cell_type == "code" and bool(c.source.strip()) for c in source.cells) + 1
        started = [0]

        def on_cell_execute(cell=None, cell_index=None, **_):
            started[0] += 1
            with open(cells_file, "a") as f:
                f.write(json.dumps({"cell": min(started[0], n_cells), "cells": n_cells,
                                    "source": (cell.source if cell is not None else "")[:4000]}) + "\n")

        hooks["on_cell_execute"] = on_cell_execute
    if os.environ.get(HEARTBEAT_ENV):
        hooks["stdout_file"] = hooks["stderr_file"] = _OutputTicks()
    try:
        pm.execute_notebook(str(notebook), str(executed), parameters={"profile": profile, "seed": seed},
                            kernel_name=paths.KERNEL_NAME, execution_timeout=None,
                            progress_bar=False, cwd=str(paths.ROOT), log_output=False, **hooks)
    except Exception as err:  # papermill re-raises the cell's exception; keep what the reader needs
        failing = None
        if executed.exists():
            nb = nbformat.read(executed, as_version=4)
            for cell in nb.cells:
                if cell.cell_type == "code" and any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
                    failing = cell.source
                    break
        if error_file is not None:
            error_file.write_text(json.dumps({"error": f"{type(err).__name__}: {err}"[:4000], "cell": failing}))
        print(f"chapter failed: {err}", file=sys.stderr)
        return 1
    nb = nbformat.read(executed, as_version=4)
    # the chapter's run record (written by run.finish at its end) gives the findings box under the title
    record_file = os.environ.get(RECORD_ENV)
    record = json.loads(Path(record_file).read_text()) if record_file and Path(record_file).exists() else None
    nb = postprocess_notebook(nb, record)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    nbformat.write(nb, executed)
    if errors:
        if error_file is not None:
            error_file.write_text(json.dumps({"error": f"{len(errors)} error output(s) in the executed notebook",
                                              "cell": None}))
        return 1
    return 0


def exit_with_parent(interval: float = 1.0) -> None:
    """In the papermill child: exit when the process that started it has died (a Dask worker killed
    mid-chapter takes its chapter with it; the kernel follows, it polls its own parent)."""
    import threading

    parent = os.getppid()

    def watch():
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class Backend(Protocol):
    jobs: int
    on_event: Callable[[Event], None] | None

    def submit(self, job: ExecutionJob) -> "cf.Future[ExecutionResult]": ...
    def shutdown(self) -> None: ...


class LocalBackend:
    """Chapters run as parallel child processes on this machine (``jobs`` at a time)."""

    def __init__(self, jobs: int | None = None, **_):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool = cf.ThreadPoolExecutor(max_workers=self.jobs)
        self.on_event: Callable[[Event], None] | None = None

    def submit(self, job: ExecutionJob) -> "cf.Future[ExecutionResult]":
        return self._pool.submit(lambda: run_job(job, self.on_event))

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


def _dask_backend(jobs: int | None = None, scheduler: str | None = None, **kw):
    from .dask_backend import DaskBackend

    return DaskBackend(jobs, scheduler=scheduler, **kw)


BACKENDS = {"local": LocalBackend, "dask": _dask_backend}


def make_backend(name: str = "local", jobs: int | None = None, **options) -> Backend:
    """``local`` (processes on this machine) or ``dask`` (``scheduler="tcp://host:8786"``: one task per chapter
    on a Dask cluster)."""
    if name not in BACKENDS:
        raise ValueError(f"backend={name!r} is not available; allowed values: {', '.join(BACKENDS)}")
    return BACKENDS[name](jobs, **options)


def execute_all(jobs_: list[ExecutionJob], backend: Backend, on_done=None,
                on_event: Callable[[Event], None] | None = None) -> list[ExecutionResult]:
    """Run every job; return results in the order of ``jobs_`` (whatever the completion order).
    ``on_event`` receives progress events (``start``, ``cell``, ``done``) from every backend."""
    backend.on_event = on_event
    futures = {}
    results: dict[str, ExecutionResult] = {}
    try:
        for j in jobs_:
            futures[backend.submit(j)] = j
        for fut in cf.as_completed(futures):
            job = futures[fut]
            try:
                res = fut.result()
            except Exception as err:  # the executor itself broke: report it as this chapter's failure
                res = ExecutionResult(job.slug, "failed", 0.0, {"chapter": job.slug, "claims": []},
                                      f"{type(err).__name__}: {err}")
            results[job.slug] = res
            if on_event:
                on_event({"chapter": job.slug, "event": "done", "status": res.status, "wall": res.wall_seconds})
            if on_done:
                on_done(res)
    finally:
        backend.shutdown()
    return [results[j.slug] for j in jobs_]
