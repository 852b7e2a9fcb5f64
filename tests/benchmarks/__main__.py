"""Run the benchmarks: ``python -m tests.benchmarks [--only grokking] [--chapters] [--profiles smoke,default]``.

Kernel benchmarks come from ``tests/benchmarks/bench_<slug>.py``; ``--chapters`` also times every chapter's
full execution through the pipeline as ``make book`` runs it (forced, a fresh artefact cache, one thread:
``make book`` runs two chapters at a time on 2 cores) in the given profiles: wall and CPU seconds, status,
commit, and the machine's load average during the run (each run's record is kept in
``build/bench-records/<slug>.<profile>.record.json``). The rows are merged into the committed table
``tests/benchmarks/chapters_measured.json`` (a run of one chapter replaces that chapter's rows) and rendered in
``chapters_measured.md`` with the projection of ``make book`` at the book's planned chapters (``table.py``). It
also names every chapter over its profile's budget and projects the test command's time. Results are printed
and written to build/bench.json."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.table import BUDGETS, row_over_budget, write_table

ROOT = Path(__file__).resolve().parents[2]
# idle OpenMP threads sleep instead of spinning (as under the executor): with two threads on a shared
# 2-core machine, spinning made small-op loops (head training) several times slower and noisy
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def kernel_benchmarks(only: str | None) -> list[dict]:
    out = []
    for path in sorted(Path(__file__).parent.glob("bench_*.py")):
        slug = path.stem[len("bench_"):]
        if only and slug != only:
            continue
        module = importlib.import_module(f"tests.benchmarks.{path.stem}")
        for name in sorted(n for n in dir(module) if n.startswith("bench_")):
            res = getattr(module, name)()
            row = dataclasses.asdict(res) | {"chapter": slug, "speedup": res.speedup}
            out.append(row)
            speed = f"{res.speedup:8.1f}x" if res.speedup else "        "
            verdict = {True: "met", False: "NOT MET", None: ""}[res.met]
            print(f"{slug:24s} {res.name:44s} {res.ours_seconds * 1e3:10.2f} ms {speed}  {res.target or ''} {verdict}"
                  f"  {res.note}", flush=True)
    return out


class LoadSampler:
    """The machine's 1-minute load average, sampled every ``interval`` seconds while a chapter runs."""

    def __init__(self, interval: float = 5.0):
        import threading

        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)

    def _run(self, interval: float) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(interval):
                return

    def __enter__(self) -> "LoadSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    @property
    def mean(self) -> float:
        return round(sum(self.samples) / len(self.samples), 2)

    @property
    def max(self) -> float:
        return round(max(self.samples), 2)


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # every waited-for descendant: pipeline, papermill, kernel
    return usage.ru_utime + usage.ru_stime


def _autogroup_nice(pid: int | str = "self") -> int | None:
    """The nice value of the process's scheduler autogroup (Linux), None where there is none."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text().split("nice")[-1])
    except (OSError, ValueError):
        return None


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(c) for t in Path(f"/proc/{p}/task").iterdir()
                    for c in (t / "children").read_text().split()]
        except OSError:
            continue
        out += kids
        todo += kids
    return out


class _FollowPriority:
    """Keeps every descendant of ``pid`` at this process's autogroup nice value while it runs. A new session starts
    a new autogroup at nice 0: the pipeline runs in its own session (for the timeout's group kill) and papermill
    starts each kernel in another, so raising the bench's priority (``echo -12 > /proc/self/autogroup``, the way to
    measure beside other work on a shared machine) did not reach the kernel doing the work (session 10)."""

    def __init__(self, pid: int, every: float = 2.0):
        import threading

        self.pid, self.every, self.nice = pid, every, _autogroup_nice()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            for p in _descendants(self.pid) + [self.pid]:
                if _autogroup_nice(p) not in (None, self.nice):
                    try:
                        Path(f"/proc/{p}/autogroup").write_text(str(self.nice))
                    except OSError:
                        pass                      # raising a priority needs the right to; the run is timed as it is
            self._stop.wait(self.every)

    def __enter__(self):
        if self.nice not in (None, 0):
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()


def _run_limited(cmd: list[str], env: dict, timeout: float | None) -> tuple[int | None, str]:
    """Run ``cmd`` in its own process group; past ``timeout`` seconds kill the whole group (the pipeline, papermill
    and the kernel) and return (None, output so far). Its processes follow this one's autogroup priority."""
    import signal

    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    with _FollowPriority(proc.pid):
        try:
            out, _ = proc.communicate(timeout=timeout)
            return proc.returncode, out
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return None, out


def chapter_times(profiles: list[str], only: str | None, threads: int = 1,
                  timeout: float | None = None) -> list[dict]:
    sys.path.insert(0, str(ROOT / "lib"))
    from .reference import reference_seconds
    from icmlbook.pipeline.site import available_chapters
    from icmlbook.runtime.records import git_commit

    rows = []
    for profile in profiles:
        for slug in available_chapters():
            if only and slug != only:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                book = Path(tmp) / "book"
                from tests.conftest import copy_book_sources

                copy_book_sources(book)
                # as make book on a fresh clone: the chapter's artefacts are computed once, in an empty cache
                env = dict(os.environ, ICMLBOOK_BOOK_DIR=str(book), ICMLBOOK_CACHE_DIR=str(Path(tmp) / "cache"))
                env.pop("ICMLBOOK_NO_CACHE", None)
                date = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
                ref = reference_seconds(5)           # the machine's speed today, just before the run
                cpu0, t0 = _children_cpu(), time.perf_counter()
                with LoadSampler() as load:
                    rc, _ = _run_limited([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", profile,
                                          "--chapters", slug, "--force", "--jobs", "1", "--threads", str(threads)],
                                         env, timeout)
                wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
                rec_file = book / "chapters" / f"{slug}.record.json"
                rec = json.loads(rec_file.read_text()) if rec_file.exists() and rc is not None else {}
                if rec:  # the run record (its claims: measured values, intervals, guard readings) outlives the tmp dir
                    keep = ROOT / "build" / "bench-records" / f"{slug}.{profile}.record.json"
                    keep.parent.mkdir(parents=True, exist_ok=True)
                    keep.write_text(rec_file.read_text())
                if rc is None:  # stopped at --timeout: the wall time is a lower bound, the CPU time of the killed
                    rec = {"status": "timeout"}  # group is not collected (it was never waited for by this process)
                    cpu = None
                # re-running the unchanged chapter: the executor reuses its execution (target <= 5 s)
                t1 = time.perf_counter()
                again = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", profile,
                                        "--chapters", slug, "--jobs", "1", "--threads", str(threads)], cwd=ROOT,
                                       env=env, capture_output=True, text=True)
                rerun = time.perf_counter() - t1
                reused = f"{slug}: cached" in again.stdout
            rows.append({"chapter": slug, "profile": profile, "status": rec.get("status", "failed"),
                         "wall_seconds": round(wall, 1), "cpu_seconds": None if cpu is None else round(cpu, 1), "date": date,
                         "commit": rec.get("commit") or git_commit(ROOT), "load_avg": load.mean, "load_max": load.max,
                         "threads": threads, "cores": os.cpu_count(),
                         **({"timeout_seconds": timeout} if rc is None else {}),
                         "longest_silence_seconds": (rec.get("longest_silence") or {}).get("seconds"),
                         "reference_seconds": round(ref, 3),
                         "verdicts": verdict_counts(rec),
                         "kernel_seconds": rec.get("kernel_seconds"),
                         "peak_memory_mb": rec.get("peak_memory_mb"), "rc": rc,
                         "rerun_seconds": round(rerun, 2), "rerun_reused": reused, "rerun_target_met": reused and rerun <= 5})
            print(f"{slug:24s} profile={profile:8s} {rows[-1]['status']:7s} wall {wall:7.1f} s  CPU {rows[-1]['cpu_seconds']} s  "
                  f"load {load.mean:.1f} (max {load.max:.1f}); longest silence "
                  f"{(rec.get('longest_silence') or {}).get('seconds')} s; peak {rec.get('peak_memory_mb')} MiB; unchanged re-run "
                  f"{rerun:.1f} s ({'reused' if reused else 'NOT reused'}, target <= 5 s)", flush=True)
    return rows


def verdict_counts(record: dict) -> str | None:
    """The run's ledger as "R/NR/I/NT" (reproduced / not reproduced / inconclusive at this scale / not testable
    at this profile), None for a run with no claims (a failed one)."""
    from icmlbook.runtime.claims import VERDICTS

    claims = record.get("claims") or []
    if not claims:
        return None
    return "/".join(str(sum(c.get("verdict") == v for c in claims)) for v in VERDICTS)


EXECUTIONS_PER_CHAPTER = 2   # the test command: the papermill smoke run and the marimo run


def over_budget(rows: list[dict]) -> list[dict]:
    return [r for r in rows if row_over_budget(r)]


def parallel_phase_seconds(walls: list[float], cores: int) -> float:
    """Wall time of running these chapter executions ``cores`` at a time (longest first onto the least
    loaded core). Assumes a chapter on one core of a busy machine takes what it took alone with all cores:
    the bench times chapters as ``make book`` runs one, the test command runs them side by side at one
    thread each, so this is a lower bound when a chapter's own threads speed it up."""
    loads = [0.0] * max(1, cores)
    for w in sorted(walls, reverse=True):
        loads[loads.index(min(loads))] += w
    return max(loads)


def test_command_projection(rows: list[dict], n_planned: int, cores: int, times_file: Path) -> dict:
    """Projected test-command time: the fixed part (unit tests, site build, browser checks; from the last
    test command's build/test-times.json when there is one) plus two execution phases of the chapters. Since
    session 15 the test command runs the unit tests on a second worker beside the executions, so the fixed part
    overlaps them and this sum is an upper bound."""
    smoke = {r["chapter"]: r["wall_seconds"] for r in rows if r["profile"] == "smoke"}
    if not smoke:
        return {}
    fixed = None
    last = json.loads(times_file.read_text()) if times_file.exists() else {}
    if last.get("session_seconds") and last.get("papermill_execution_seconds") and last.get("marimo_runs_seconds"):
        # everything but the two execution phases (the smoke book's site build included) is fixed
        fixed = last["session_seconds"] - last["marimo_runs_seconds"] - last["papermill_execution_seconds"]
    phase = parallel_phase_seconds(list(smoke.values()), cores)
    present = EXECUTIONS_PER_CHAPTER * phase
    mean = sum(smoke.values()) / len(smoke)
    at_plan = EXECUTIONS_PER_CHAPTER * parallel_phase_seconds([mean] * n_planned, cores)
    at_budget = EXECUTIONS_PER_CHAPTER * parallel_phase_seconds([BUDGETS["smoke"]] * n_planned, cores)
    return {"chapters": len(smoke), "cores": cores, "executions_seconds": round(present, 1),
            "fixed_seconds": None if fixed is None else round(fixed, 1), "fixed_from": str(times_file) if fixed else None,
            "planned_chapters": n_planned, "planned_at_mean_seconds": round(at_plan, 1),
            "planned_at_budget_seconds": round(at_budget, 1)}


def print_projection(p: dict) -> None:
    if not p:
        return
    fixed = p["fixed_seconds"]
    fx = f"{fixed:.0f} s fixed (unit tests, site build, browser; from {p['fixed_from']})" if fixed is not None else \
        "the fixed part unknown (run the test command once: it writes build/test-times.json)"
    tot = lambda x: f"~{(x + (fixed or 0)) / 60:.1f} min" + ("" if fixed is not None else " + fixed part")
    print(f"\nProjected test command on {p['cores']} cores: {p['chapters']} chapter(s) x {EXECUTIONS_PER_CHAPTER} "
          f"executions = {p['executions_seconds']:.0f} s, {fx}: {tot(p['executions_seconds'])}")
    print(f"  at the {p['planned_chapters']} planned chapters: {tot(p['planned_at_mean_seconds'])} if each smoke "
          f"takes this mean; {tot(p['planned_at_budget_seconds'])} if each uses its whole {BUDGETS['smoke']:.0f} s budget")


def print_book_projection(projections: list[dict]) -> None:
    for p in projections:
        if "wall" not in p:
            continue
        w, c = p["wall"], p.get("cpu", {})
        print(f"\nProjected make book ({p['profile']}) at {p['planned']} chapters, {p['jobs']} at a time "
              f"({p['measured']} measured): {w['at_mean_seconds'] / 60:.1f} min from wall times "
              f"({c.get('at_mean_seconds', float('nan')) / 60:.1f} min from CPU times), the unmeasured at the mean; "
              f"{w['at_budget_seconds'] / 60:.1f} min with the unmeasured at the {p['budget_seconds']:.0f} s budget"
              + (f"; target {p['target_seconds'] / 60:.0f} min" if p.get("target_seconds") else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default=None, help="one chapter slug")
    parser.add_argument("--chapters", action="store_true", help="also time whole chapter executions")
    parser.add_argument("--profiles", default="smoke,default")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per chapter (default 1: make book runs two chapters at a time on 2 cores)")
    parser.add_argument("--no-kernels", action="store_true", help="skip the kernel benchmarks")
    parser.add_argument("--timeout", type=float, default=None,
                        help="stop a chapter execution after this many seconds (its row: status 'timeout', the wall "
                             "time a lower bound); default: no limit")
    args = parser.parse_args()
    results = {"kernels": [] if args.no_kernels else kernel_benchmarks(args.only)}
    if args.chapters:
        from icmlbook.pipeline.site import planned_slugs

        rows = chapter_times(args.profiles.split(","), args.only, args.threads, args.timeout)
        results["chapters"] = rows
        import fcntl

        # two bench runs side by side (as make book runs two chapters) merge into the same table one at a time
        (ROOT / "build").mkdir(exist_ok=True)
        with open(ROOT / "build" / ".bench-table.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            table, projections = write_table(rows, planned_slugs())
        results["book_projection"] = projections
        print_book_projection(projections)
        print(f"measured table: {len(table)} row(s) in tests/benchmarks/chapters_measured.json (.md)")
        for r in over_budget(rows):
            print(f"OVER BUDGET: {r['chapter']} in {r['profile']}: {r['status']}, {r['wall_seconds']:.1f} s "
                  f"(budget {BUDGETS[r['profile']]:.0f} s)", flush=True)
        if not over_budget(rows):
            print("every chapter within its budget (" + ", ".join(f"{k} <= {v:.0f} s" for k, v in BUDGETS.items()) + ")")
        results["test_command_projection"] = test_command_projection(
            rows, len(planned_slugs()), os.cpu_count() or 1, ROOT / "build" / "test-times.json")
        print_projection(results["test_command_projection"])
    out = ROOT / "build" / "bench.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
