"""The measured table of chapter executions, kept in the repository (``tests/benchmarks/chapters_measured.json``,
rendered as ``chapters_measured.md``), and the projection of ``make book`` from it.

One row per (chapter, profile): wall and CPU seconds of one execution as ``make book`` runs a chapter (papermill,
a fresh artefact cache, one thread), its status, when and at which commit it was measured, the cores of the
machine and its load average during the run (a wall time measured at load 6 on 2 cores says little about a quiet
machine; the CPU time says more). ``make bench --chapters`` measures and merges: a run of one chapter replaces
that chapter's rows for the profiles it measured and keeps every other row.

The projection of ``make book``: chapters run ``jobs`` at a time (2 on the 2-core machine, one thread each), taken
in the book's order by whichever slot frees first (the local backend's thread pool), so the book's wall time is the
finishing time of the last slot. Chapters of the plan without a measured row are counted at the mean of the
measured ones and, separately, at the profile's whole budget.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLE_JSON = HERE / "chapters_measured.json"
TABLE_MD = HERE / "chapters_measured.md"

#: the fields of a row, in the order of the rendered table
FIELDS = ("chapter", "profile", "wall_seconds", "cpu_seconds", "status", "date", "commit", "load_avg", "load_max",
          "threads", "cores")
#: fields a row may lack (older rows): the longest stretch without progress in the run (the executor's watchdog
#: stops a chapter after --stall-timeout seconds of it, 600 by default), and the run's verdict counts
#: ("R/NR/I/NT": reproduced / not reproduced / inconclusive / not testable), the ledger a default run gave
#: and (session 14) the CPU seconds of the fixed reference workload timed just before the run (reference.py), the
#: machine's speed that day
OPTIONAL = ("longest_silence_seconds", "verdicts", "reference_seconds")
#: budget of one chapter execution per profile (the chapter contract and README: smoke <= 45 s, since the test command
#: executes every chapter twice; default <= 10 min; 90 s for smoke until session 15, README's old "about 2 minutes")
BUDGETS = {"smoke": 45.0, "default": 600.0}
#: what the book at nineteen chapters should take (issue 27 §5), make book on 2 cores
BOOK_TARGET_SECONDS = {"default": 90 * 60.0}


def check_row(row: dict) -> dict:
    """A row with every field; refuses a row that misses one or has a negative time."""
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise ValueError(f"a measured row needs the fields {', '.join(missing)}; got {sorted(row)}")
    for f in ("wall_seconds", "cpu_seconds"):
        if row[f] is not None and not row[f] >= 0:
            raise ValueError(f"{f}={row[f]!r} is not allowed; it must be a number of seconds >= 0")
    return {**{f: row[f] for f in FIELDS}, **{f: row.get(f) for f in OPTIONAL}}


def row_over_budget(row: dict) -> bool:
    """Over its profile's budget: not successful (a timeout, a failure), or its CPU time over the budget (one
    thread: the time a quiet core takes), or its wall time over it on a machine no busier than ``make book`` makes
    it (mean load <= cores; under more load the wall time overstates what a reader's quiet machine takes)."""
    budget = BUDGETS.get(row["profile"])
    if budget is None:
        return False
    if row["status"] != "ok":
        return True
    cpu, wall = row.get("cpu_seconds"), row.get("wall_seconds")
    quiet = row.get("load_avg") is not None and row.get("cores") and row["load_avg"] <= row["cores"]
    return (cpu is not None and cpu > budget) or (bool(quiet) and wall is not None and wall > budget)


def load_rows(path: Path = TABLE_JSON) -> list[dict]:
    if not path.exists():
        return []
    return [check_row(r) for r in json.loads(path.read_text())["rows"]]


def merge_rows(old: list[dict], new: list[dict], order: list[str] | None = None) -> list[dict]:
    """``old`` with each (chapter, profile) of ``new`` replaced (or added), every other row kept; sorted by the
    book's ``order`` of chapters (others after, by name), then by profile."""
    merged = {(r["chapter"], r["profile"]): check_row(r) for r in old}
    for r in new:
        merged[(r["chapter"], r["profile"])] = check_row(r)
    rank = {slug: i for i, slug in enumerate(order or [])}
    profiles = {p: i for i, p in enumerate(("smoke", "default", "full"))}
    return sorted(merged.values(), key=lambda r: (rank.get(r["chapter"], len(rank)), r["chapter"],
                                                  profiles.get(r["profile"], 9), r["profile"]))


def book_seconds(walls: list[float], jobs: int) -> float:
    """Wall time of executing chapters with these wall times ``jobs`` at a time, in the given order, each
    taken by the first slot to free (the local backend's pool)."""
    slots = [0.0] * max(1, jobs)
    for w in walls:
        i = slots.index(min(slots))
        slots[i] += w
    return max(slots)


def project_book(rows: list[dict], planned: list[str], profile: str = "default", jobs: int = 2) -> dict:
    """``make book`` (``profile``) at the ``planned`` chapters, ``jobs`` at a time, from the measured rows: by wall
    time and by CPU time (what a quiet machine gives one thread), unmeasured chapters at the measured mean and at
    the budget. Rows of chapters outside the plan, and rows that did not succeed, are left out of the means (a
    failed row is listed under ``not_ok``)."""
    ok = {r["chapter"]: r for r in rows if r["profile"] == profile and r["status"] == "ok" and r["chapter"] in planned}
    not_ok = sorted(r["chapter"] for r in rows if r["profile"] == profile and r["status"] != "ok")
    out: dict = {"profile": profile, "jobs": jobs, "planned": len(planned), "measured": len(ok), "not_ok": not_ok,
                 "budget_seconds": BUDGETS.get(profile), "target_seconds": BOOK_TARGET_SECONDS.get(profile)}
    if not ok:
        return out
    for kind in ("wall", "cpu"):
        measured = {s: r[f"{kind}_seconds"] for s, r in ok.items() if r[f"{kind}_seconds"] is not None}
        if not measured:
            continue
        mean = sum(measured.values()) / len(measured)
        budget = BUDGETS.get(profile, mean)
        out[kind] = {
            "measured_only_seconds": round(book_seconds([measured[s] for s in planned if s in measured], jobs), 1),
            "at_mean_seconds": round(book_seconds([measured.get(s, mean) for s in planned], jobs), 1),
            "at_budget_seconds": round(book_seconds([measured.get(s, budget) for s in planned], jobs), 1),
            "mean_seconds": round(mean, 1),
            "over_budget": sorted(s for s, v in measured.items() if profile in BUDGETS and v > BUDGETS[profile]),
        }
    return out


def _secs(v: float | None) -> str:
    if v is None:
        return ""
    return f"{v:.1f} s" if v < 120 else f"{v:.0f} s ({v / 60:.1f} min)"


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.1f}"


def _ref(v: float | None) -> str:
    return "" if v is None else f"{v:.2f} s"


def render_markdown(rows: list[dict], projections: list[dict]) -> str:
    lines = ["# Chapter executions, measured", "",
             "Generated by `make bench --chapters` (`python -m tests.benchmarks --chapters`) from "
             "`chapters_measured.json`; do not edit by hand. One execution per row, as `make book` runs a chapter: "
             "papermill, a fresh artefact cache, one thread. *load* is the machine's 1-minute load average during "
             "the run (mean / max) on *cores* cores: a wall time measured under load overstates a quiet machine's, "
             "the CPU time much less (but not nothing: on this machine one chapter took 9.6 min of CPU quiet and 11.9 "
             "min at a load near 10, 1.24x; a CPU time over the budget at a load far above the cores is an upper "
             "bound, to be re-measured quietly). *longest silence*: the longest stretch of the run without a progress tick, "
             "output or new cell (the executor stops a chapter after 600 s of it by default).", "",
             "*verdicts*: the run's ledger, reproduced / not reproduced / inconclusive at this scale / not testable at "
             "this profile. A row is over budget when its CPU time is (one thread: what a quiet core takes) or, on a "
             "machine no busier than `make book` makes it (load <= cores), its wall time is.", "",
             "*reference*: the CPU seconds of a fixed workload (`tests/benchmarks/reference.py`: small torch training, "
             "numpy, a Python loop; one thread, best of five) timed just before the row's run (since session 14; "
             "empty for older rows). This machine's speed varies from day to day (the same chapter at the same commit "
             "took 99.7 s of CPU on 2026-12-05 and 197 s on 2026-12-06), so two rows compare only with their "
             "reference times beside them; the budget is read on the measured times as they are.", "",
             "| chapter | profile | wall | CPU | status | verdicts | date (UTC) | commit | load (mean / max) | threads "
             "| cores | longest silence | reference |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        over = " **over budget**" if row_over_budget(r) else ""
        lines.append(f"| {r['chapter']} | {r['profile']} | {_secs(r['wall_seconds'])}{over} | "
                     f"{_secs(r['cpu_seconds'])} | {r['status']} | {r.get('verdicts') or ''} | {r['date']} | `{r['commit']}` | "
                     f"{_num(r['load_avg'])} / {_num(r['load_max'])} | {r['threads']} | {r['cores']} | "
                     f"{_secs(r['longest_silence_seconds'])} | {_ref(r.get('reference_seconds'))} |")
    for p in projections:
        lines += ["", f"## `make book` ({p['profile']}) at {p['planned']} chapters, {p['jobs']} at a time, projected", ""]
        if "wall" not in p:
            lines.append(f"No successful `{p['profile']}` row yet.")
            continue
        lines.append(f"{p['measured']} of {p['planned']} planned chapters measured"
                     + (f"; not successful: {', '.join(p['not_ok'])}" if p["not_ok"] else "") + ".")
        target = p.get("target_seconds")
        lines += ["", "| from | measured chapters only | the rest at the measured mean | the rest at the budget |",
                  "|---|---|---|---|"]
        for kind, label in (("wall", "wall times"), ("cpu", "CPU times (a quiet machine)")):
            if kind in p:
                k = p[kind]
                lines.append(f"| {label} | {_secs(k['measured_only_seconds'])} | {_secs(k['at_mean_seconds'])} | "
                             f"{_secs(k['at_budget_seconds'])} |")
        lines.append("")
        if p.get("budget_seconds"):
            over = sorted(r["chapter"] for r in rows if r["profile"] == p["profile"] and row_over_budget(r))
            lines.append(f"Over the {p['budget_seconds']:.0f} s budget: {', '.join(over)}." if over else
                         f"Every measured chapter within the {p['budget_seconds']:.0f} s budget.")
        if target:
            lines.append(f"Target: {target / 60:.0f} min for the whole book (the site build comes on top).")
    return "\n".join(lines).rstrip() + "\n"


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_table(new: list[dict], planned: list[str], json_path: Path = TABLE_JSON, md_path: Path = TABLE_MD,
                jobs: int = 2) -> tuple[list[dict], list[dict]]:
    """Merge ``new`` rows into the table at ``json_path``, write it and its Markdown rendering with the
    projections of ``make book`` (smoke and default); return (rows, projections)."""
    rows = merge_rows(load_rows(json_path), new, planned)
    projections = [project_book(rows, planned, profile, jobs) for profile in ("default", "smoke")]
    _atomic_write(json_path, json.dumps({"about": "chapter executions measured by `make bench --chapters`; "
                                                  "see chapters_measured.md", "rows": rows}, indent=1) + "\n")
    _atomic_write(md_path, render_markdown(rows, projections))
    return rows, projections
