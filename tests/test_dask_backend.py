"""The Dask backend on a real two-worker cluster on this machine (loopback only): a
``distributed.LocalCluster`` worker (processes) and a second worker started as the README says
(``dask worker ... --resources GPU=1``). Fixture chapters keep this cheap (no real chapter executes
here: the test command's budget is two executions per chapter): a chapter that asks for a GPU goes to
the GPU worker and gives the local backend's claims, a failing chapter is reported with its cell, and a
worker killed mid-chapter leaves a failed record and nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from icmlbook.pipeline.execute import ExecutionJob, LocalBackend, execute_all
from icmlbook.pipeline.export import marimo_to_ipynb, prepare_notebook

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
pytestmark = pytest.mark.slow


def _export(slug: str, out: Path) -> Path:
    raw = out / f"{slug}.raw.ipynb"
    marimo_to_ipynb(FIXTURES / f"{slug}.py", raw)
    path = out / f"{slug}.ipynb"
    nbformat.write(prepare_notebook(nbformat.read(raw, as_version=4), slug), path)
    return path


def _job(slug: str, notebook: Path, out: Path, **kw) -> ExecutionJob:
    return ExecutionJob(slug, "smoke", 0, notebook, out, stall_timeout=300, chapter_timeout=600, force=True,
                        threads=1, key=f"fixture-{slug}", **kw)


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    out = tmp_path_factory.mktemp("dask-notebooks")
    return {s: _export(s, out) for s in ("tiny_chapter", "failing_chapter", "slow_chapter")}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
        gpu_worker = subprocess.Popen(
            [str(Path(sys.executable).parent / "dask"), "worker", cluster.scheduler_address, "--nthreads", "1",
             "--resources", "GPU=1", "--host", "127.0.0.1", "--no-dashboard", "--name", "gpu-worker"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(2, timeout=120)
            gpu_address = next(a for a, w in client.scheduler_info()["workers"].items() if w.get("name") == "gpu-worker")
            yield {"client": client, "gpu_worker": gpu_address}
        finally:
            client.close()
            cluster.close()
            gpu_worker.send_signal(signal.SIGINT)
            try:
                gpu_worker.wait(30)
            except subprocess.TimeoutExpired:
                gpu_worker.kill()


def _backend(cluster):
    from icmlbook.pipeline.dask_backend import DaskBackend

    return DaskBackend(client=cluster["client"])


def test_chapters_on_the_cluster_match_the_local_backend(cluster, notebooks, tmp_path):
    events: list[dict] = []
    out = tmp_path / "dask"
    jobs = [_job("tiny_chapter", notebooks["tiny_chapter"], out, gpu=True),
            _job("failing_chapter", notebooks["failing_chapter"], out)]
    tiny, failing = execute_all(jobs, _backend(cluster), on_event=events.append)
    # the chapter that asks for a GPU ran on the worker that has one, and came back whole
    assert tiny.status == "ok", tiny.error
    assert tiny.record["worker"] == cluster["gpu_worker"]
    on_disk = json.loads((out / "tiny_chapter.record.json").read_text())
    assert on_disk["status"] == "ok" and on_disk["claims"] == tiny.record["claims"]
    nb = nbformat.read(out / "tiny_chapter.ipynb", as_version=4)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert (out / "tiny_chapter.log").exists()
    # the failing chapter: reported with its error and its cell, as the local backend reports it
    assert failing.status == "failed"
    assert "ZeroDivisionError" in failing.error and "/ 0" in failing.failing_cell
    assert json.loads((out / "failing_chapter.record.json").read_text())["status"] == "failed"
    # progress came back from the workers: start, cell i of N, done
    tiny_events = [e for e in events if e["chapter"] == "tiny_chapter"]
    assert tiny_events[0]["event"] == "start" and tiny_events[0]["worker"] == cluster["gpu_worker"]
    cells = [e for e in tiny_events if e["event"] == "cell"]
    assert cells and cells[-1]["cell"] == cells[-1]["cells"]
    assert tiny_events[-1] == {"chapter": "tiny_chapter", "event": "done", "status": "ok", "wall": tiny.wall_seconds}
    # the same claims as the local backend, number for number
    local_out = tmp_path / "local"
    (local,) = execute_all([_job("tiny_chapter", notebooks["tiny_chapter"], local_out)], LocalBackend(1))
    assert local.status == "ok"
    assert local.record["claims"] == tiny.record["claims"]


def _chapter_processes(marker: str) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="ignore")
            except OSError:
                continue
            if "_execute-one" in cmd and marker in cmd:
                pids.append(int(proc.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to find the chapter's processes")
def test_worker_killed_mid_chapter_is_reported_failed(cluster, notebooks, tmp_path):
    client = cluster["client"]
    out = tmp_path / "dask"
    out.mkdir()
    # an earlier good execution of the chapter is on disk: the failure must hide it, not leave it shown
    (out / "slow_chapter.ipynb").write_text("{}")
    started = threading.Event()
    where: dict = {}

    def on_event(ev):
        if ev["chapter"] == "slow_chapter" and ev["event"] == "cell" and ev["cell"] >= 3:
            where["worker"] = ev["worker"]
            started.set()

    backend = _backend(cluster)
    backend.on_event = on_event
    fut = backend.submit(_job("slow_chapter", notebooks["slow_chapter"], out))
    assert started.wait(180), "the slow chapter never reached its slow cell"
    running = _chapter_processes("slow_chapter")
    assert running, "no papermill process of the slow chapter"
    pid = client.run(os.getpid, workers=[where["worker"]])[where["worker"]]
    os.kill(pid, signal.SIGKILL)
    res = fut.result(timeout=120)
    backend.shutdown()
    assert res.status == "failed"
    assert "died" in res.error and "KilledWorker" in res.error
    record = json.loads((out / "slow_chapter.record.json").read_text())
    assert record["status"] == "failed" and record["claims"] == []
    assert not list(out.glob("*.part")) and not list(out.glob(".*.part"))
    assert (out / "slow_chapter.ipynb").read_text() == "{}"  # nothing from the dead worker was written
    from icmlbook.pipeline.site import load_records

    assert load_records(out)["slow_chapter"]["status"] == "failed"  # so the site leaves it out
    # the chapter's process went with its worker (it watches its parent), not left running
    deadline = time.time() + 30
    while time.time() < deadline and any(p in running for p in _chapter_processes("slow_chapter")):
        time.sleep(0.5)
    assert not [p for p in _chapter_processes("slow_chapter") if p in running]
    client.wait_for_workers(2, timeout=120)  # the nanny restarted the worker; the cluster carries on
