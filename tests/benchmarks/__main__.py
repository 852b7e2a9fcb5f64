"""Run the benchmarks: ``python -m tests.benchmarks [--only grokking] [--chapters] [--profiles smoke,default]``.

Kernel benchmarks come from ``tests/benchmarks/bench_<slug>.py``; ``--chapters`` also times every chapter's
full execution through the pipeline (forced, artefact cache off) in the given profiles. Results are printed
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


def chapter_times(profiles: list[str], only: str | None) -> list[dict]:
    sys.path.insert(0, str(ROOT / "lib"))
    from icmlbook.pipeline.site import available_chapters

    rows = []
    for profile in profiles:
        for slug in available_chapters():
            if only and slug != only:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                book = Path(tmp) / "book"
                from tests.conftest import copy_book_sources

                copy_book_sources(book)
                env = dict(os.environ, ICMLBOOK_BOOK_DIR=str(book), ICMLBOOK_NO_CACHE="1")
                t0 = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", profile,
                                       "--chapters", slug, "--force", "--jobs", "1"], cwd=ROOT, env=env,
                                      capture_output=True, text=True)
                wall = time.perf_counter() - t0
                rec_file = book / "chapters" / f"{slug}.record.json"
                rec = json.loads(rec_file.read_text()) if rec_file.exists() else {}
                # re-running the unchanged chapter: the executor reuses its execution (target <= 5 s)
                t1 = time.perf_counter()
                again = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", profile,
                                        "--chapters", slug, "--jobs", "1"], cwd=ROOT, env=env,
                                       capture_output=True, text=True)
                rerun = time.perf_counter() - t1
                reused = f"{slug}: cached" in again.stdout
            rows.append({"chapter": slug, "profile": profile, "status": rec.get("status", "failed"),
                         "wall_seconds": round(wall, 1), "kernel_seconds": rec.get("kernel_seconds"),
                         "peak_memory_mb": rec.get("peak_memory_mb"), "rc": proc.returncode,
                         "rerun_seconds": round(rerun, 2), "rerun_reused": reused, "rerun_target_met": reused and rerun <= 5})
            print(f"{slug:24s} profile={profile:8s} {rows[-1]['status']:7s} wall {wall:7.1f} s  "
                  f"peak {rec.get('peak_memory_mb')} MiB; unchanged re-run {rerun:.1f} s "
                  f"({'reused' if reused else 'NOT reused'}, target <= 5 s)", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default=None, help="one chapter slug")
    parser.add_argument("--chapters", action="store_true", help="also time whole chapter executions")
    parser.add_argument("--profiles", default="smoke,default")
    args = parser.parse_args()
    results = {"kernels": kernel_benchmarks(args.only)}
    if args.chapters:
        results["chapters"] = chapter_times(args.profiles.split(","), args.only)
    out = ROOT / "build" / "bench.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
