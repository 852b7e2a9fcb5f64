"""Shared fixtures: every test seeded, no network except loopback, GPU tests skipped without CUDA, and
the two executions of every chapter that the test command allows itself:

- ``smoke_book``: one smoke build of the whole book (every chapter executed by papermill, the site
  built), shared by the chapter, pipeline and site tests;
- ``marimo_runs``: every chapter run by marimo itself (``marimo export html``, the live path) with the
  same seed and threads and the artefact cache off, chapters side by side on the cores; its run record
  is compared with the papermill run's (the determinism test and the live-path test in one execution).

No other test executes a real chapter (pipeline tests use the fixture chapters in tests/fixtures)."""

from __future__ import annotations

import concurrent.futures as cf
import ipaddress
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


# -- no network ------------------------------------------------------------------------------------
_real_connect = socket.socket.connect


def _is_loopback(address) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self, address):
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may not use the network (tried to connect to {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture(autouse=True)
def _seeded():
    from icmlbook.runtime.seeding import seed_everything

    seed_everything(1234)


@pytest.hookimpl(tryfirst=True)       # before pytest-xdist's own, which reads the xdist_group marks added here
def pytest_collection_modifyitems(config, items):
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        has_cuda = False
    skip_gpu = pytest.mark.skip(reason="needs CUDA")
    for item in items:
        if "gpu" in item.keywords and not has_cuda:
            item.add_marker(skip_gpu)
    # `make test` runs two pytest-xdist workers with --dist loadgroup: the slow tests (the chapters' two executions,
    # the site build and its browser checks) form one group, so one worker executes every chapter once per path
    # (the session fixtures below are per worker) while the other runs the unit tests beside it. The group comes
    # first, the longest job started first; without xdist the order changes nothing but the order.
    slow = [item for item in items if "slow" in item.keywords]
    for item in slow:
        item.add_marker(pytest.mark.xdist_group(CHAPTER_GROUP))
    items[:] = slow + [item for item in items if "slow" not in item.keywords]


def pytest_collection_finish(session):
    """On a pytest-xdist worker, the slow tests must stay on one worker, or each worker that gets one executes every
    chapter (the session fixtures are per worker). So: the slow tests need ``--dist loadgroup`` (``make test`` passes
    it; ``-n 2`` alone distributes them one by one), and each slow test's id must carry the group (pytest-xdist 3.8
    appends it by setting a private attribute that pytest 9.2 no longer reads: the group then splits silently). Stop
    before anything runs."""
    if not hasattr(session.config, "workerinput"):
        return
    slow = [item.nodeid for item in session.items if "slow" in item.keywords]
    problem = None
    if slow and not getattr(session.config.option, "loadgroup", False):
        problem = (f"{len(slow)} slow tests (e.g. {slow[0]}) under pytest-xdist without --dist loadgroup: each worker "
                   "would execute every chapter; run `make test`, or add --dist loadgroup")
    elif any(not nodeid.endswith(f"@{CHAPTER_GROUP}") for nodeid in slow):
        problem = (f"pytest-xdist did not group the slow tests (e.g. {slow[0]}) with pytest {pytest.__version__}: each "
                   "worker would execute every chapter; install the pytest that pyproject.toml pins")
    if problem:
        # the controller reports a worker's collection error only as a crash; the worker's stderr reaches the terminal
        sys.__stderr__.write(f"\nERROR: {problem}\n")
        sys.__stderr__.flush()
        raise pytest.UsageError(problem)


# -- the chapters' two executions -----------------------------------------------------------------
#: ICMLBOOK_TEST_CHAPTERS=grokking,... restricts the chapter executions to a few chapters (a developer's
#: quick check; the test command runs them all)
TEST_CHAPTERS_ENV = "ICMLBOOK_TEST_CHAPTERS"
#: the pytest-xdist group of every slow test (see pytest_collection_modifyitems)
CHAPTER_GROUP = "chapters"
#: wall times of the execution phases of this session, written to build/test-times.json at the end
#: (`make bench --chapters` reads them to project the test command's time)
PHASES: dict = {}
_SESSION_START = time.perf_counter()
_SESSION_WALL_START = time.time()


def chapters_under_test() -> list[str]:
    from icmlbook.pipeline.site import available_chapters

    chapters = available_chapters()
    chosen = os.environ.get(TEST_CHAPTERS_ENV)
    if not chosen:
        return chapters
    picked = [s.strip() for s in chosen.split(",") if s.strip()]
    unknown = sorted(set(picked) - set(chapters))
    if unknown:
        raise pytest.UsageError(f"{TEST_CHAPTERS_ENV}={chosen!r}: not chapters: {', '.join(unknown)}; "
                                f"available: {', '.join(chapters)}")
    return [s for s in chapters if s in picked]


_PHASES_PART = ROOT / "build" / "test-times.worker.json"   # a pytest-xdist worker's phases, for the controller


def pytest_sessionfinish(session, exitstatus):
    """The phases go to build/test-times.json with the whole session's time and exit status. Under pytest-xdist the
    worker that ran the chapters hands its phases to the controller (a file), which writes them with its own time and
    status: the worker's would leave out the other worker's tests and failures."""
    out = ROOT / "build" / "test-times.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if hasattr(session.config, "workerinput"):
        if PHASES:
            _PHASES_PART.write_text(json.dumps(dict(PHASES, tests_collected=session.testscollected)))
        return
    phases = dict(PHASES)
    if not phases and _PHASES_PART.exists() and _PHASES_PART.stat().st_mtime >= _SESSION_WALL_START:
        phases = json.loads(_PHASES_PART.read_text())
    _PHASES_PART.unlink(missing_ok=True)
    if not phases:
        return
    phases.setdefault("tests_collected", session.testscollected)
    out.write_text(json.dumps(dict(phases, session_seconds=round(time.perf_counter() - _SESSION_START, 1),
                                   chapters=chapters_under_test(), cores=os.cpu_count(), exit_status=int(exitstatus),
                                   finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())), indent=1))


GENERATED = {"chapters", "_build", "_toc.yml", "scoreboard.md", "build-report.md"}


def copy_book_sources(target: Path) -> Path:
    """A throw-away copy of book/ (its own pages only, nothing generated)."""
    src = ROOT / "book"
    target.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.name in GENERATED:
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copy2(item, target / item.name)
    return target


def pipeline_env(book: Path, cache: Path) -> dict[str, str]:
    return dict(os.environ, ICMLBOOK_BOOK_DIR=str(book), ICMLBOOK_CACHE_DIR=str(cache))


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory):
    """Execute every chapter in the smoke profile and build the site, in a temporary copy of the book."""
    base = tmp_path_factory.mktemp("smoke-book")
    book = copy_book_sources(base / "book")
    env = pipeline_env(book, base / "cache")
    t0 = time.perf_counter()
    proc = subprocess.run([PY, "-m", "icmlbook.pipeline", "book", "--profile", "smoke", "--force",
                           "--chapters", ",".join(chapters_under_test())], cwd=ROOT, env=env, capture_output=True, text=True)
    PHASES["papermill_smoke_book_seconds"] = round(time.perf_counter() - t0, 1)  # execution + site build
    took = re.search(r"execution took ([\d.]+) s", proc.stdout)
    if took:
        PHASES["papermill_execution_seconds"] = float(took.group(1))
    if proc.returncode != 0:
        pytest.fail(f"smoke build of the book failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-4000:]}")
    records = {p.name.split(".")[0]: json.loads(p.read_text()) for p in (book / "chapters").glob("*.record.json")}
    return {"book": book, "site": book / "_build" / "html", "records": records, "env": env,
            "stdout": proc.stdout, "base": base}


MARIMO_TIMEOUT = 1800  # seconds per chapter: a hung chapter fails its test instead of hanging the suite


def marimo_env(base: Path, slug: str, threads: int | None) -> dict[str, str]:
    """The environment of a live-path run: the executor's determinism settings (hash seed, threads), no
    artefact cache (the run shares nothing with the papermill run but the seed), a run record to compare."""
    env = dict(os.environ, ICMLBOOK_NO_CACHE="1", ICMLBOOK_CACHE_DIR=str(base / "cache" / slug),
               ICMLBOOK_RECORD=str(base / f"{slug}.record.json"), PYTHONHASHSEED="0")
    env.pop("ICMLBOOK_EXECUTOR", None)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
    return env


def run_under_marimo(slug: str, source: Path, base: Path, threads: int | None, profile: str = "smoke",
                     seed: int = 0) -> dict:
    """``marimo export html`` executes every cell of the notebook in marimo's own runtime."""
    out = base / f"{slug}.html"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([PY, "-m", "marimo", "export", "html", str(source), "-o", str(out), "--",
                               "--profile", profile, "--seed", str(seed)], cwd=ROOT, capture_output=True,
                              text=True, env=marimo_env(base, slug, threads), timeout=MARIMO_TIMEOUT)
        rc, log = proc.returncode, proc.stdout[-3000:] + proc.stderr[-3000:]
    except subprocess.TimeoutExpired:
        rc, log = None, f"marimo run of {slug} exceeded {MARIMO_TIMEOUT} s"
    record = base / f"{slug}.record.json"
    return {"rc": rc, "log": log, "html": out, "wall_seconds": time.perf_counter() - t0,
            "record": json.loads(record.read_text()) if record.exists() else None}


@pytest.fixture(scope="session")
def marimo_runs(smoke_book, tmp_path_factory):
    """Every chapter run once by marimo, as many at a time as there are cores (as the executor runs them),
    each with the thread count its papermill run had."""
    base = tmp_path_factory.mktemp("marimo-runs")
    slugs = chapters_under_test()
    t0 = time.perf_counter()
    records = smoke_book["records"]
    with cf.ThreadPoolExecutor(max_workers=max(1, min(len(slugs), os.cpu_count() or 1))) as pool:
        futures = {s: pool.submit(run_under_marimo, s, ROOT / "chapters" / f"{s}.py", base,
                                  records.get(s, {}).get("threads")) for s in slugs}
        runs = {s: f.result() for s, f in futures.items()}
    PHASES["marimo_runs_seconds"] = round(time.perf_counter() - t0, 1)
    PHASES["marimo_chapter_seconds"] = {s: round(r["wall_seconds"], 1) for s, r in runs.items()}
    return runs


def assert_same_claims(first: dict, again: dict) -> None:
    """Same seed, same claims, number for number; a claim decided by wall-clock time (``timed``) keeps its
    statement and rule, its numbers may differ."""
    assert [c["id"] for c in again["claims"]] == [c["id"] for c in first["claims"]]
    for a, b in zip(first["claims"], again["claims"]):
        if a.get("timed"):
            assert (a["statement"], a["rule"]) == (b["statement"], b["rule"])
        else:
            assert a == b


def marimo_outputs(html_text: str) -> list[str]:
    """The cell outputs (markdown/HTML strings) embedded in a ``marimo export html`` page."""
    found = re.findall(r'"text/(?:markdown|html)": "((?:[^"\\]|\\.)*)"', html_text)
    return [json.loads(f'"{s}"') for s in found]


RAW_CITATION = re.compile(r"\[@[\w:.\-]+")
