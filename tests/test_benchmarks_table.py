"""The measured table of `make bench --chapters` (tests/benchmarks/table.py): rows merged per chapter and profile,
the Markdown rendering, and the projection of `make book` (two chapters at a time, in the book's order), on small
made-up rows whose projections are computed by hand here. No chapter is executed."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks import table


def row(chapter, profile="default", wall=100.0, cpu=90.0, status="ok", commit="abc123", load=1.0):
    return {"chapter": chapter, "profile": profile, "wall_seconds": wall, "cpu_seconds": cpu, "status": status,
            "date": "2026-12-05 08:00", "commit": commit, "load_avg": load, "load_max": load + 0.5, "threads": 1,
            "cores": 2}


PLAN = ["a", "b", "c", "d"]


def test_rows_merge_per_chapter_and_profile_in_book_order():
    old = [row("c"), row("a"), row("a", "smoke", wall=30.0)]
    new = [row("a", wall=250.0, commit="def456"), row("b", "smoke", wall=20.0), row("zz")]
    merged = table.merge_rows(old, new, PLAN)
    assert [(r["chapter"], r["profile"]) for r in merged] == [("a", "smoke"), ("a", "default"), ("b", "smoke"),
                                                             ("c", "default"), ("zz", "default")]
    a_default = next(r for r in merged if (r["chapter"], r["profile"]) == ("a", "default"))
    assert a_default["wall_seconds"] == 250.0 and a_default["commit"] == "def456"   # replaced, not duplicated
    assert next(r for r in merged if r["profile"] == "smoke" and r["chapter"] == "a")["wall_seconds"] == 30.0
    with pytest.raises(ValueError, match="needs the fields load_avg"):
        table.check_row({k: v for k, v in row("a").items() if k != "load_avg"})
    with pytest.raises(ValueError, match="cpu_seconds=-1.0 is not allowed"):
        table.check_row(row("a", cpu=-1.0))


def test_book_time_is_the_last_slot_to_finish_taking_chapters_in_order():
    # two slots, first free slot takes the next chapter: [10] [3] -> [10] [3+4] -> [10] [7+5] -> 12
    assert table.book_seconds([10, 3, 4, 5], jobs=2) == 12
    assert table.book_seconds([10, 3, 4, 5], jobs=1) == 22
    assert table.book_seconds([5, 4, 3, 10], jobs=2) == 15   # order matters: [5] [4+3] -> [5+10] [7]
    assert table.book_seconds([], jobs=2) == 0


def test_make_book_projection_from_the_table():
    rows = [row("a", wall=600.0, cpu=500.0), row("b", wall=300.0, cpu=200.0), row("c", wall=900.0, status="stalled"),
            row("a", "smoke", wall=60.0, cpu=50.0), row("outside", wall=5000.0)]
    p = table.project_book(rows, PLAN, "default", jobs=2)
    assert p["measured"] == 2 and p["not_ok"] == ["c"] and p["planned"] == 4
    # wall: a=600, b=300 measured; c and d at the mean 450: slots [600] [300] -> [600] [750] -> [1050] [750] = 1050
    assert p["wall"]["mean_seconds"] == 450.0
    assert p["wall"]["measured_only_seconds"] == 600.0
    assert p["wall"]["at_mean_seconds"] == 1050.0
    # at the 600 s budget: [600] [300] -> [600] [900] -> [1200] [900] = 1200
    assert p["wall"]["at_budget_seconds"] == 1200.0
    # CPU: a=500, b=200, mean 350: [500] [200] -> [500] [550] -> [850] [550] = 850
    assert p["cpu"]["at_mean_seconds"] == 850.0
    assert p["wall"]["over_budget"] == [] and p["target_seconds"] == 90 * 60
    assert table.project_book([row("a", wall=700.0)], PLAN)["wall"]["over_budget"] == ["a"]
    assert "wall" not in table.project_book([row("a", "smoke")], PLAN, "default")


def test_the_table_files_are_written_and_merged(tmp_path):
    js, md = tmp_path / "t.json", tmp_path / "t.md"
    table.write_table([row("a", wall=600.0), row("b", wall=300.0, load=5.5)], PLAN, js, md)
    rows, projections = table.write_table([row("b", wall=200.0, load=0.5, commit="new")], PLAN, js, md)
    stored = json.loads(js.read_text())["rows"]
    assert stored == rows and [(r["chapter"], r["wall_seconds"], r["commit"]) for r in stored] == [
        ("a", 600.0, "abc123"), ("b", 200.0, "new")]                       # b's row replaced, a's kept
    text = md.read_text()
    assert "| b | default | 200 s (3.3 min) | 90.0 s | ok |  | 2026-12-05 08:00 | `new` | 0.5 / 1.0 | 1 | 2 |  |  |" in text
    assert stored[0]["longest_silence_seconds"] is None                  # an optional field, absent here
    table.write_table([dict(row("c"), longest_silence_seconds=432.1)], PLAN, js, md)
    assert "| c | default | 100.0 s | 90.0 s | ok |  | 2026-12-05 08:00 | `abc123` | 1.0 / 1.5 | 1 | 2 | 432 s (7.2 min) |  |" \
        in md.read_text()
    table.write_table([dict(row("d"), reference_seconds=0.5814)], PLAN, js, md)      # the machine's speed (session 14)
    assert "| d | default | 100.0 s | 90.0 s | ok |  | 2026-12-05 08:00 | `abc123` | 1.0 / 1.5 | 1 | 2 |  | 0.58 s |" \
        in md.read_text()
    assert "5.5" not in text                                               # the old row of b is gone
    # the projection at four chapters: a=600, b=200, c and d at the mean 400: [600] [200] -> [600] [600] -> 1000
    assert projections[0]["wall"]["at_mean_seconds"] == 1000.0
    assert "| wall times | 600 s (10.0 min) | 1000 s (16.7 min) |" in text
    assert "## `make book` (smoke)" in text and "No successful `smoke` row yet." in text


def test_the_committed_table_reads_back():
    from icmlbook.pipeline.site import planned_slugs

    rows = table.load_rows()
    assert all(r["chapter"] in planned_slugs() and r["profile"] in ("smoke", "default", "full") for r in rows)
    if rows:
        projections = [table.project_book(rows, planned_slugs(), p) for p in ("default", "smoke")]
        assert table.TABLE_MD.read_text() == table.render_markdown(rows, projections)


def test_the_reference_workload_is_fixed_work():
    """The same seed gives the same checksum (the work does not depend on the machine), another seed another; the
    timer refuses a bad repeat count."""
    from tests.benchmarks.reference import reference_seconds, reference_workload

    assert reference_workload(0) == reference_workload(0) != reference_workload(1)
    assert reference_seconds(1) > 0
    with pytest.raises(ValueError, match="repeat"):
        reference_seconds(0)


def test_verdict_counts_of_a_record():
    """The bench row's ledger counts, in the order of VERDICTS, from a run record's claims."""
    from icmlbook.runtime.claims import VERDICTS
    from tests.benchmarks.__main__ import verdict_counts

    rec = {"claims": [{"verdict": VERDICTS[0]}, {"verdict": VERDICTS[2]}, {"verdict": VERDICTS[2]},
                      {"verdict": VERDICTS[3]}]}
    assert verdict_counts(rec) == "1/0/2/1"
    assert verdict_counts({"status": "failed"}) is None


def test_over_budget_is_judged_on_cpu_time_and_on_wall_time_only_when_the_machine_was_not_busier_than_make_book():
    base = {"chapter": "c", "profile": "default", "status": "ok", "cores": 2}
    assert not table.row_over_budget({**base, "wall_seconds": 900.0, "cpu_seconds": 500.0, "load_avg": 5.0})
    assert table.row_over_budget({**base, "wall_seconds": 900.0, "cpu_seconds": 500.0, "load_avg": 2.0})
    assert table.row_over_budget({**base, "wall_seconds": 700.0, "cpu_seconds": 650.0, "load_avg": 6.0})
    assert not table.row_over_budget({**base, "wall_seconds": 590.0, "cpu_seconds": 580.0, "load_avg": 1.0})
    assert table.row_over_budget({**base, "status": "timeout", "wall_seconds": 100.0, "cpu_seconds": None,
                                  "load_avg": 1.0})
    assert not table.row_over_budget({**base, "profile": "full", "wall_seconds": 1e5, "cpu_seconds": 1e5,
                                      "load_avg": 1.0})


def test_the_bench_kernels_follow_its_autogroup_priority(tmp_path):
    """A process started in a new session (the pipeline; papermill's kernel) gets its own autogroup at nice 0; the
    bench keeps its descendants at its own autogroup priority. Checked in a child process that lowers its own
    priority to nice 5 (always allowed) and starts a two-level process tree in a new session."""
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/proc/self/autogroup").exists():
        pytest.skip("no scheduler autogroups on this kernel")
    script = tmp_path / "follow.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "from pathlib import Path\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from tests.benchmarks.__main__ import _FollowPriority, _autogroup_nice, _descendants\n"
        "try:\n"
        "    Path('/proc/self/autogroup').write_text('5')\n"
        "except OSError:\n"
        "    sys.exit(3)\n"
        "p = subprocess.Popen(['bash', '-c', 'setsid sleep 4 & sleep 4'], start_new_session=True)\n"
        "time.sleep(0.5)\n"
        "before = [_autogroup_nice(q) for q in _descendants(p.pid) + [p.pid]]\n"
        "with _FollowPriority(p.pid, every=0.2):\n"
        "    time.sleep(1.0)\n"
        "    after = [_autogroup_nice(q) for q in _descendants(p.pid) + [p.pid]]\n"
        "for q in _descendants(p.pid):\n"
        "    subprocess.run(['kill', str(q)])\n"
        "p.kill()\n"
        "print(before, after)\n")
    out = subprocess.run([sys.executable, str(script), str(Path(__file__).resolve().parents[1])], capture_output=True,
                         text=True, timeout=60)
    if out.returncode == 3:
        pytest.skip("this machine does not let a process change its autogroup priority")
    assert out.returncode == 0, out.stderr
    before, after = out.stdout.strip().split("] [")
    assert "0" in before                                   # the new sessions started at nice 0
    assert set(after.strip("[]").split(", ")) == {"5"}     # every process of the tree now at the bench's nice 5
