"""Run records: what produced a chapter's numbers (profile, seed, device, time, memory, versions,
commit, claims). A chapter opens a run at its top (through :func:`icmlbook.runtime.open_chapter`, which also
seeds and builds the config) and closes it at its end:

    run, cfg = open_chapter("grokking", profile, seed)
    ...
    grid = run.cached("grokking-eta-lam-grid", gk.eta_lam_grid, cfg, run.seed)   # an expensive artefact
    run.findings(ledger)        # the box of verdicts at the top of the page (the cell named `findings`)
    run.finish(ledger)          # writes the record when the book's executor runs the chapter
    run.provenance()            # an HTML box for the page

The executor adds what only it knows (status, wall time of the whole execution) and writes the final
record beside the executed notebook.
"""

from __future__ import annotations

import html
import importlib.metadata
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from .cache import cached as _cached
from .cache import cached_many as _cached_many
from .claims import ClaimsLedger
from .context import RECORD_ENV, in_marimo, under_executor
from .device import describe_device
from .findings import Findings, record_abstract
from .profiles import check_profile, check_seed

T = TypeVar("T")

#: the packages whose versions a run record lists
TRACKED_PACKAGES = ("numpy", "scipy", "torch", "scikit-learn", "matplotlib", "plotly", "networkx",
                    "marimo", "papermill", "jupyter-book", "icmlbook")


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_commit(root: str | os.PathLike | None = None) -> str:
    """The commit of the repository holding this package, with ``+dirty`` for uncommitted changes."""
    root = Path(root) if root else Path(__file__).resolve().parents[3]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not sha:
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def peak_memory_mb() -> float:
    """Peak resident memory of this process in MiB (Linux reports ru_maxrss in KiB)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 if sys.platform != "darwin" else rss / 2**20


def _marimo_cli_overrides() -> dict[str, Any]:
    """``marimo edit chapters/x.py -- --profile smoke --seed 3`` overrides the parameters cell live."""
    if not in_marimo():
        return {}
    import marimo as mo

    args = mo.cli_args()
    out: dict[str, Any] = {}
    if "profile" in args:
        out["profile"] = str(args["profile"])
    if "seed" in args:
        out["seed"] = int(args["seed"])
    return out


class Run:
    """One execution of one chapter."""

    def __init__(self, chapter: str, profile: str, seed: int, device: str | None = None):
        overrides = _marimo_cli_overrides()
        self.chapter = chapter
        self.profile = check_profile(overrides.get("profile", profile))
        self.seed = check_seed(overrides.get("seed", seed))
        self.device = device or describe_device()
        self.started = time.time()
        self.started_perf = time.perf_counter()
        self.record: dict[str, Any] | None = None
        #: per artefact name, the time its :meth:`cached` / :meth:`cached_many` calls took in this run, added up over
        #: the calls (a cache hit takes about nothing), with their count: the record's ``stages``, so a bench row says
        #: where a chapter's time went
        self.stages: dict[str, dict[str, float]] = {}

    def _timed(self, names: list[str], call: Callable[[], T]) -> T:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return call()
        finally:
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu   # CPU: this process, not cached_many's workers
            distinct = list(dict.fromkeys(names))
            for name in distinct:                     # a cached_many call's time goes to each of its names once
                st = self.stages.setdefault(name, {"wall_seconds": 0.0, "cpu_seconds": 0.0, "calls": 0})
                st["wall_seconds"] = round(st["wall_seconds"] + wall, 2)
                st["cpu_seconds"] = round(st["cpu_seconds"] + cpu, 2)
                st["calls"] += names.count(name)
                if len(distinct) > 1:                 # shared with other names: the time is the call's, not its own
                    st["together_with"] = max(st.get("together_with", 0), len(distinct) - 1)

    def cached(self, name: str, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` through the artefact cache (:func:`icmlbook.runtime.cached`).

        The key holds what this run knows: its profile and seed, the source of every module of the
        chapter's package ``icmlbook.papers.<chapter>`` (and of ``fn``'s own package, and of ``icmlbook.runtime``),
        the torch/numpy/scipy versions, ``name``, ``fn``'s source and the canonical arguments. So a
        notebook writes ``run.cached("grokking-nu-sweep", gk.nu_sweep, cfg, run.seed)`` and nothing else;
        ``ICMLBOOK_NO_CACHE=1`` (the executor's and the tests' off switch) still computes afresh.
        """
        return self._timed([name], lambda: _cached(name, fn, config={"seed": self.seed}, profile=self.profile,
                                                   args=args, kwargs=kwargs, chapter=self.chapter))

    def cached_many(self, jobs: list[tuple], /, workers: int | None = None) -> list:
        """Several artefacts at once: ``[(name, fn, *args), ...]``, each as :meth:`cached` would give it, the ones
        not in the cache computed in parallel worker processes (one thread each; see
        :func:`icmlbook.runtime.cache.cached_many`). ``workers=None``: this chapter's thread allotment
        (``$OMP_NUM_THREADS``, which the book's executor sets; else the cores), so two chapters run side by side in
        CI get one worker each and run their jobs one after another in the kernel, as :meth:`cached` would::

            study, rep = run.cached_many([("irno-study", ex.study, cfg, run.seed),
                                          ("irno-replicate", ex.run_seed, cfg, 1)])

        Each ``fn`` must be a module-level function of a package and seed what it draws from its arguments, so a
        value does not depend on the process that computed it. A worker's progress bars go to the kernel's
        stderr, not to the page.
        """
        return self._timed([str(job[0]) for job in jobs],
                           lambda: _cached_many(jobs, workers=workers, config={"seed": self.seed}, profile=self.profile,
                                                chapter=self.chapter))

    def computed_with(self) -> str:
        """The start of the sentence every chapter page states its run with (markdown): "This page was computed
        with profile **smoke** and seed **0**"; the chapter appends its own sizes
        (``mo.md(f"{run.computed_with()}: {cfg.n} samples ...")``)."""
        return f"This page was computed with profile **{self.profile}** and seed **{self.seed}**"

    def findings(self, ledger: ClaimsLedger) -> "Findings":
        """What the run found, for the top of the page (:mod:`icmlbook.runtime.findings`): the verdict counts and
        one line per ledger row covering a sentence of the abstract, each linked to its row. A chapter shows it in
        its cell named ``findings``, right after the title (marimo runs that cell once the ledger exists)."""
        if ledger.chapter != self.chapter:
            raise ValueError(f"the ledger is chapter {ledger.chapter!r}'s, this run is {self.chapter!r}'s")
        return Findings(self.chapter, ledger.as_records(), profile=self.profile, seed=self.seed)

    def finish(self, ledger: ClaimsLedger | None = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Close the run; write the record to ``$ICMLBOOK_RECORD`` when the executor asked for one."""
        peak_gpu = None
        try:
            import torch

            if torch.cuda.is_available():
                peak_gpu = torch.cuda.max_memory_allocated() / 2**20
        except ImportError:  # pragma: no cover
            pass
        self.record = {
            "chapter": self.chapter,
            "profile": self.profile,
            "seed": self.seed,
            "device": self.device,
            "kernel_seconds": round(time.perf_counter() - self.started_perf, 2),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "peak_memory_mb": round(peak_memory_mb(), 1),
            "peak_gpu_memory_mb": None if peak_gpu is None else round(peak_gpu, 1),
            "versions": package_versions(),
            "commit": git_commit(),
            "platform": f"{platform.system()} {platform.machine()}",
            "claims": ledger.as_records() if ledger is not None else [],
            # the abstract's result sentences and the rows covering each (the page's findings box)
            "abstract": record_abstract(self.chapter),
            # the time of each cached artefact in this run (wall and this process's CPU seconds; ~0 on a cache hit)
            "stages": {name: dict(st) for name, st in self.stages.items()},
            **(extra or {}),
        }
        target = os.environ.get(RECORD_ENV)
        if target:
            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.record, indent=1))
            os.replace(tmp, path)
        return self.record

    def provenance(self) -> "Provenance":
        if self.record is None:
            self.finish()
        return Provenance(self.record)


class Provenance:
    """The provenance box shown at the end of every chapter."""

    def __init__(self, record: dict[str, Any]):
        self.record = record

    def _repr_html_(self) -> str:
        r = self.record
        v = r["versions"]
        how = "executed by the book's pipeline (papermill)" if under_executor() else (
            "run live in marimo" if in_marimo() else "run interactively")
        rows = [
            ("chapter", r["chapter"]), ("profile", r["profile"]), ("seed", r["seed"]),
            ("device", r["device"]), ("time in kernel", f'{r["kernel_seconds"]:.1f} s'),
            ("peak memory", f'{r["peak_memory_mb"]:.0f} MiB'), ("commit", r["commit"]),
            ("started (UTC)", r["started"]), ("how", how),
            ("versions", ", ".join(f"{k} {val}" for k, val in v.items())),
        ]
        body = "".join(f'<tr><th style="text-align:left;padding:2px 10px 2px 0">{html.escape(str(k))}</th>'
                       f'<td style="padding:2px 0">{html.escape(str(val))}</td></tr>' for k, val in rows)
        return (f'<div class="provenance-box" style="border:1px solid #bbb;border-radius:6px;padding:8px 12px;'
                f'background:#f7f7f7;font-size:0.85em"><b>Provenance</b><table>{body}</table></div>')


def start_run(chapter: str, profile: str, seed: int) -> Run:
    """Open a run (validates ``profile`` and ``seed``; marimo CLI args may override them live)."""
    return Run(chapter, profile, seed)
