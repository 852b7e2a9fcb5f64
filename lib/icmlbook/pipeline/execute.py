"""Execute: run exported chapters with papermill, each in its own process with its own timeout.

Where a chapter executes is pluggable (``Backend``): the local backend runs chapters as parallel
processes on this machine; a cluster backend (Ray, Dask or Slurm through submitit) only needs to
provide ``submit(job) -> Future[ExecutionResult]``.

Every execution leaves, beside the executed notebook, a run record (``<slug>.record.json``): the
chapter's own facts (profile, seed, device, peak memory, versions, commit, claims ledger, written by
the chapter through ``Run.finish``) plus the executor's (status, wall time, input key, error).

An unchanged chapter (same source, same library code, same profile and seed) whose last execution
succeeded is not executed again: its input key matches and the executed notebook is reused.
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

from ..runtime.context import EXECUTOR_ENV, PROGRESS_LOG_ENV, RECORD_ENV
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
    cell_timeout: int = 1800  # seconds per cell
    chapter_timeout: int = 3600
    force: bool = False
    threads: int | None = None  # BLAS/torch threads of the chapter's kernel (None: leave the default)


@dataclasses.dataclass
class ExecutionResult:
    slug: str
    status: str               # "ok", "cached", "failed", "timeout"
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


def run_job(job: ExecutionJob) -> ExecutionResult:
    """Execute one chapter in a child process (``python -m icmlbook.pipeline _execute-one``)."""
    check_profile(job.profile)
    check_seed(job.seed)
    key = input_key(job.slug, job.profile, job.seed)
    cached = _cached_result(job, key)
    if cached is not None:
        return cached
    job.output_dir.mkdir(parents=True, exist_ok=True)
    executed = job.output_dir / f"{job.slug}.ipynb"
    log = job.output_dir / f"{job.slug}.log"
    with tempfile.TemporaryDirectory() as tmp:
        kernel_record = Path(tmp) / "kernel-record.json"
        error_file = Path(tmp) / "error.json"
        env = dict(os.environ, **{EXECUTOR_ENV: "1", RECORD_ENV: str(kernel_record), PROGRESS_LOG_ENV: str(log),
                                   "PYTHONHASHSEED": "0", "MPLBACKEND": "module://matplotlib_inline.backend_inline"})
        # idle OpenMP workers sleep instead of spinning: on shared cores spinning threads starve the
        # thread doing the work (measured: 98 s -> 10 s on an anti-diagonal DTW sweep)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        if job.threads:
            # chapters running side by side share the cores: oversubscribed BLAS threads are many
            # times slower than one thread each
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                env[var] = str(job.threads)
        cmd = [sys.executable, "-m", "icmlbook.pipeline", "_execute-one", str(job.notebook), str(executed),
               "--profile", job.profile, "--seed", str(job.seed), "--cell-timeout", str(job.cell_timeout),
               "--error-file", str(error_file)]
        t0 = time.perf_counter()
        status, error, failing = "ok", None, None
        with open(log, "w") as logf:
            try:
                proc = subprocess.run(cmd, env=env, cwd=paths.ROOT, stdout=logf, stderr=subprocess.STDOUT,
                                      timeout=job.chapter_timeout)
                if proc.returncode != 0:
                    status = "failed"
            except subprocess.TimeoutExpired:
                status, error = "timeout", f"chapter exceeded its timeout of {job.chapter_timeout} s"
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
                   "executed_notebook": executed.name, "error": error})
    tmp_record = paths.record_path(job.slug, job.output_dir).with_suffix(".tmp")
    tmp_record.write_text(json.dumps(record, indent=1))
    os.replace(tmp_record, paths.record_path(job.slug, job.output_dir))
    return ExecutionResult(job.slug, status, wall, record, error, failing)


def execute_one(notebook: Path, executed: Path, profile: str, seed: int, cell_timeout: int,
                error_file: Path | None = None) -> int:
    """Child-process entry: papermill, then our post-execution pass. Returns an exit code."""
    import papermill as pm

    try:
        pm.execute_notebook(str(notebook), str(executed), parameters={"profile": profile, "seed": seed},
                            kernel_name=paths.KERNEL_NAME, execution_timeout=cell_timeout,
                            progress_bar=False, cwd=str(paths.ROOT), log_output=False)
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
    nb = postprocess_notebook(nb)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    nbformat.write(nb, executed)
    if errors:
        if error_file is not None:
            error_file.write_text(json.dumps({"error": f"{len(errors)} error output(s) in the executed notebook",
                                              "cell": None}))
        return 1
    return 0


class Backend(Protocol):
    def submit(self, job: ExecutionJob) -> "cf.Future[ExecutionResult]": ...
    def shutdown(self) -> None: ...


class LocalBackend:
    """Chapters run as parallel child processes on this machine (``jobs`` at a time)."""

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool = cf.ThreadPoolExecutor(max_workers=self.jobs)

    def submit(self, job: ExecutionJob) -> "cf.Future[ExecutionResult]":
        return self._pool.submit(run_job, job)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


BACKENDS = {"local": LocalBackend}


def make_backend(name: str = "local", jobs: int | None = None) -> Backend:
    if name not in BACKENDS:
        raise ValueError(f"backend={name!r} is not available; allowed values: {', '.join(BACKENDS)}")
    return BACKENDS[name](jobs)


def execute_all(jobs_: list[ExecutionJob], backend: Backend, on_done=None) -> list[ExecutionResult]:
    """Run every job; return results in the order of ``jobs_`` (whatever the completion order)."""
    futures = {backend.submit(j): j for j in jobs_}
    results: dict[str, ExecutionResult] = {}
    for fut in cf.as_completed(futures):
        job = futures[fut]
        try:
            res = fut.result()
        except Exception as err:  # the executor itself broke: report it as this chapter's failure
            res = ExecutionResult(job.slug, "failed", 0.0, {"chapter": job.slug, "claims": []},
                                  f"{type(err).__name__}: {err}")
        results[job.slug] = res
        if on_done:
            on_done(res)
    backend.shutdown()
    return [results[j.slug] for j in jobs_]
