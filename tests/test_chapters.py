"""Every chapter, end to end, in two executions (the test command's budget): executed by papermill in the
smoke profile (zero error outputs, a run record with computed verdicts) and run under marimo itself (the
live path) with the same seed and the artefact cache off, whose claims must be the papermill run's; and
checked by `marimo check`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from icmlbook.runtime.claims import VERDICTS
from tests.conftest import RAW_CITATION, assert_same_claims, chapters_under_test, marimo_outputs

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = chapters_under_test()

pytestmark = pytest.mark.slow


def test_there_are_chapters():
    assert CHAPTERS


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_executes_in_smoke(smoke_book, slug):
    rec = smoke_book["records"][slug]
    assert rec["status"] == "ok", rec.get("error")
    assert rec["profile"] == "smoke" and rec["seed"] == 0
    nb = nbformat.read(smoke_book["book"] / "chapters" / f"{slug}.ipynb", as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    # no progress-bar noise on the page (bars go to the chapter's log under the executor)
    streams = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
                      if o.output_type == "stream")
    assert not re.search(r"\d+%\|", streams), streams[:500]
    # nor warnings (a missing glyph, a library's import-time complaint): the reader sees them as clutter
    assert not re.search(r"\w+Warning:", streams), streams[:500]
    # the chapter's prose is markdown, with one title, and what the run found right under it
    titles = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")]
    assert len(titles) == 1
    assert nb.cells[titles[0] + 1].metadata.get("icmlbook") == "findings-box"
    assert 'class="findings-box"' in nb.cells[titles[0] + 1].source
    # claims: present, each verdict one of VERDICTS, computed (the record holds what the kernel decided)
    claims = rec["claims"]
    assert len(claims) >= 3
    assert {c["verdict"] for c in claims} <= set(VERDICTS)
    for c in claims:
        assert c["measured"] and c["rule"] and c["statement"]
        if c["verdict"] in (VERDICTS[2], VERDICTS[3]):
            assert c["reason"], f"claim {c['id']} is {c['verdict']} without a reason"
    for key in ("device", "peak_memory_mb", "versions", "commit", "wall_seconds", "kernel_seconds"):
        assert rec.get(key) is not None, key


def test_unchanged_chapter_is_reused(smoke_book):
    """Re-running an unchanged chapter takes its previous execution (the executor's input key)."""
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--chapters", CHAPTERS[0]], cwd=ROOT, env=smoke_book["env"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert f"{CHAPTERS[0]}: cached" in proc.stdout


def test_marimo_check_passes():
    proc = subprocess.run([sys.executable, "-m", "marimo", "check", *[f"chapters/{s}.py" for s in CHAPTERS]],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_runs_under_marimo_with_the_same_claims(marimo_runs, smoke_book, slug):
    """The live path: marimo itself runs the notebook (smoke profile, same seed, artefact cache off). Its
    claims are the papermill run's, number for number (timed claims: same statement and rule)."""
    run = marimo_runs[slug]
    assert run["rc"] == 0, run["log"]
    text = run["html"].read_text()
    assert "marimo" in text and len(text) > 10_000
    # citations read live as on the site (author-year), none left raw in an output
    raw = [m.group(0) for o in marimo_outputs(text) for m in RAW_CITATION.finditer(o)]
    assert raw == [], f"citations shown raw in the live notebook: {raw[:5]}"
    # what the run found is the first output after the title (the cell named findings, drawn once the ledger exists)
    outputs = marimo_outputs(text)
    boxes = [i for i, o in enumerate(outputs) if 'class="findings-box"' in o]
    title = next((i for i, o in enumerate(outputs) if re.search(r"<h1\b", o)), None)
    assert len(boxes) == 1 and title is not None and boxes[0] == title + 1, (boxes, title)
    assert run["record"] is not None, "the marimo run never called run.finish(): no run record"
    assert run["record"]["profile"] == "smoke" and run["record"]["seed"] == 0
    assert_same_claims(smoke_book["records"][slug], run["record"])
