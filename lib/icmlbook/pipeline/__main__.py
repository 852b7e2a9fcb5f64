"""Command line of the book's pipeline.

    python -m icmlbook.pipeline book --profile smoke --chapters grokking --jobs 2
    python -m icmlbook.pipeline book --backend dask --scheduler tcp://HOST:8786   # chapters on a Dask cluster
    python -m icmlbook.pipeline execute --profile default          # no site
    python -m icmlbook.pipeline site                               # site from what was executed
    python -m icmlbook.pipeline list
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..runtime.profiles import PROFILES, check_profile, check_seed
from . import paths
from .execute import CHAPTER_TIMEOUT, STALL_TIMEOUT


def _seconds(minimum: int):
    """argparse type: a whole number of seconds >= ``minimum``, refused with a message naming the rule."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not allowed; it must be >= {minimum} seconds")
        return value
    return parse


def _chapters(arg: str | None) -> list[str]:
    from .site import available_chapters, planned_slugs

    available = available_chapters()
    if not arg or arg == "all":
        return available
    chosen = [s.strip() for s in arg.replace(" ", ",").split(",") if s.strip()]
    unknown = [s for s in chosen if s not in available]
    if unknown:
        planned = set(planned_slugs())
        detail = "; ".join(f"{s!r} is {'planned but not written yet' if s in planned else 'not a chapter'}"
                           for s in unknown)
        raise SystemExit(f"error: chapters={arg!r}: {detail}. Available: {', '.join(available) or 'none'}")
    return chosen


def _report(results, stream=sys.stdout) -> None:
    print("\nRun report", file=stream)
    from ..runtime.claims import VERDICTS

    print(f"{'chapter':32s} {'status':8s} {'wall':>9s}  claims (reproduced / not / inconclusive / not testable)",
          file=stream)
    for r in results:
        claims = r.record.get("claims", [])
        counts = [sum(c["verdict"] == v for c in claims) for v in VERDICTS]
        print(f"{r.slug:32s} {r.status:8s} {r.wall_seconds:8.1f}s  " + " / ".join(map(str, counts)), file=stream)
    for r in results:
        if r.status in ("failed", "stalled", "timeout"):
            print(f"\n=== {r.slug}: {r.status} ===\n{r.error or ''}", file=stream)
            if r.failing_cell:
                print(f"--- failing cell ---\n{r.failing_cell}\n---", file=stream)
            print(f"(full log: {paths.executed_dir() / (r.slug + '.log')}; executed notebook: "
                  f"{paths.executed_dir() / (r.slug + '.ipynb')})", file=stream)


def cmd_execute(args) -> int:
    from .execute import ExecutionJob, execute_all, make_backend, source_hash
    from .export import export_chapter
    from .progress import ProgressReporter
    from .site import gpu_profiles

    profile = check_profile(args.profile)
    seed = check_seed(args.seed)
    slugs = _chapters(args.chapters)
    if not slugs:
        print("no chapters to execute", file=sys.stderr)
        return 1
    if args.backend != "dask" and args.scheduler:
        raise ValueError(f"--scheduler is for backend='dask' (backend={args.backend!r})")
    backend = make_backend(args.backend, args.jobs, **({"scheduler": args.scheduler} if args.backend == "dask" else {}))
    print(f"Exporting {len(slugs)} chapter(s) from marimo ...", flush=True)
    notebooks = {s: export_chapter(s) for s in slugs}
    parallel = min(backend.jobs, len(slugs))
    if args.backend == "local":
        threads = args.threads or max(1, (os.cpu_count() or 1) // parallel)
    else:  # a cluster's workers have their own cores: leave the kernel's default unless asked
        threads = args.threads
    jobs = [ExecutionJob(s, profile, seed, notebooks[s], paths.executed_dir(), stall_timeout=args.stall_timeout,
                         chapter_timeout=args.chapter_timeout, force=args.force, threads=threads,
                         source_hash=source_hash(s), gpu=profile in gpu_profiles(s)) for s in slugs]
    where = backend.describe() if hasattr(backend, "describe") else f"jobs={parallel}"
    print(f"Executing with papermill: profile={profile} seed={seed} {where} "
          f"threads per chapter={threads or 'worker default'}; a chapter is stopped after {args.stall_timeout} s "
          f"without progress" + (f" or {args.chapter_timeout} s in all" if args.chapter_timeout else ""), flush=True)
    t0 = time.perf_counter()
    reporter = ProgressReporter()
    try:
        results = execute_all(jobs, backend, on_event=reporter)
    finally:
        reporter.close()
    _report(results)
    print(f"\nexecution took {time.perf_counter() - t0:.1f} s", flush=True)
    args._executed = [r.slug for r in results if r.status in ("ok", "cached")]
    args._failed = [r.slug for r in results if r.status not in ("ok", "cached")]
    return 0 if all(r.status in ("ok", "cached") for r in results) else 1


def cmd_site(args) -> int:
    from .site import build_site, executed_chapters, load_records, source_state

    # every chapter with an executed notebook stays in the book, not only those this command ran
    executed = executed_chapters()
    ran = set(getattr(args, "_executed", None) or [])
    records = load_records()
    earlier = [s for s in executed if s not in ran]
    if ran and earlier:
        print("Chapters kept from earlier runs: " + ", ".join(
            f"{s} ({records[s].get('profile', '?')}, {records[s].get('commit', '?')}"
            + (", source changed since" if source_state(s, records[s]).startswith("**") else "") + ")"
            for s in earlier))
    out = build_site(executed, clean=args.clean)
    print(f"Site built: {out / 'index.html'} ({len(executed)} chapter(s))")
    return 0


def cmd_book(args) -> int:
    """Execute, then build the site from every chapter that has a successful executed notebook, even when a
    chapter failed (a failed chapter does not stop the others, nor the site); the exit code is still non-zero
    when one failed, so that CI notices."""
    rc = cmd_execute(args)
    failed = getattr(args, "_failed", None)
    if rc != 0 and failed is None:  # nothing was executed (no chapters, a bad option)
        return rc
    site_rc = cmd_site(args)
    if failed:
        print(f"\n{len(failed)} chapter(s) failed: {', '.join(failed)}. The site was built from the chapters that "
              "succeeded; the build report lists the failed ones with their errors (see the run report above).",
              file=sys.stderr)
        return 1
    return rc or site_rc


def cmd_list(args) -> int:
    from .site import available_chapters, load_plan

    available = set(available_chapters())
    for part in load_plan()["parts"]:
        print(part["title"])
        for c in part["chapters"]:
            print(f"  {'*' if c['slug'] in available else ' '} {c['slug']:32s} {c['title']}")
    print("(* = written)")
    return 0


def cmd_execute_one(args) -> int:
    from .execute import execute_one, exit_with_parent

    exit_with_parent()  # a killed executor (a Dask worker that died) takes its chapter with it
    return execute_one(Path(args.notebook), Path(args.executed), args.profile, args.seed,
                       Path(args.error_file) if args.error_file else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icmlbook.pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def run_opts(p):
        p.add_argument("--profile", default=os.environ.get("PROFILE") or "default",
                       help=f"one of {', '.join(PROFILES)} (default: default)")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--chapters", default=None, help="comma-separated slugs (default: all written chapters)")
        p.add_argument("--jobs", type=int, default=None, help="chapters executed in parallel (default: cores)")
        p.add_argument("--backend", default="local",
                       help="where chapters execute: local (processes here) or dask (default: local)")
        p.add_argument("--scheduler", default=None,
                       help="the Dask scheduler's address for --backend dask, e.g. tcp://HOST:8786")
        p.add_argument("--stall-timeout", type=_seconds(1), default=STALL_TIMEOUT,
                       help="stop a chapter after this many seconds without progress: no progress tick, no output, "
                            f"no finished cached artefact, no new cell (default: {STALL_TIMEOUT})")
        p.add_argument("--chapter-timeout", type=_seconds(0), default=CHAPTER_TIMEOUT,
                       help=f"seconds per chapter in all, however it progresses; 0: no limit (default: {CHAPTER_TIMEOUT})")
        p.add_argument("--force", action="store_true", help="execute even if nothing changed since the last run")
        p.add_argument("--threads", type=int, default=None,
                       help="BLAS/torch threads per chapter (default: cores / chapters running at once)")

    for name, fn, helptext in (("book", cmd_book, "execute chapters, then build the site"),
                               ("execute", cmd_execute, "execute chapters only")):
        p = sub.add_parser(name, help=helptext)
        run_opts(p)
        p.add_argument("--clean", action="store_true", help="remove the previous site first")
        p.set_defaults(fn=fn)
    p = sub.add_parser("site", help="build the site from the executed chapters")
    p.add_argument("--clean", action="store_true")
    p.set_defaults(fn=cmd_site)
    p = sub.add_parser("list", help="the book's plan and which chapters are written")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("_execute-one", help=argparse.SUPPRESS)
    p.add_argument("notebook")
    p.add_argument("executed")
    p.add_argument("--profile", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--error-file", default=None)
    p.set_defaults(fn=cmd_execute_one)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
