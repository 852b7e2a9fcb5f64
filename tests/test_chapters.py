"""Every chapter, end to end: executed by papermill in the smoke profile (zero error outputs, a run record
with computed verdicts), run again with the same seed (identical claims), checked by `marimo check`, and
run under marimo itself (the live path)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from icmlbook.pipeline.site import available_chapters
from icmlbook.runtime.claims import VERDICTS

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = available_chapters()

pytestmark = pytest.mark.slow


def test_there_are_chapters():
    assert "grokking" in CHAPTERS


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
    # the chapter's prose is markdown, with one title
    titles = [c for c in nb.cells if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")]
    assert len(titles) == 1
    # claims: present, each verdict one of the three, computed (the record holds what the kernel decided)
    claims = rec["claims"]
    assert len(claims) >= 3
    assert {c["verdict"] for c in claims} <= set(VERDICTS)
    for c in claims:
        assert c["measured"] and c["rule"] and c["statement"]
        if c["verdict"] == VERDICTS[2]:
            assert c["reason"], f"claim {c['id']} is not testable without a reason"
    for key in ("device", "peak_memory_mb", "versions", "commit", "wall_seconds", "kernel_seconds"):
        assert rec.get(key) is not None, key


@pytest.mark.parametrize("slug", CHAPTERS)
def test_same_seed_same_claims(smoke_book, slug):
    """A second execution (forced, artefact cache off) gives the same claims, number for number."""
    book = smoke_book["book"]
    env = dict(smoke_book["env"], ICMLBOOK_NO_CACHE="1")
    out_dir = smoke_book["base"] / f"rerun-{slug}"
    out_dir.mkdir()
    first = smoke_book["records"][slug]
    threads = ["--threads", str(first["threads"])] if first.get("threads") else []
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--chapters", slug, "--force", "--jobs", "1", *threads],
                          cwd=ROOT, env=dict(env, ICMLBOOK_BOOK_DIR=str(_copy_for_rerun(book, out_dir))),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    again = json.loads((out_dir / "book" / "chapters" / f"{slug}.record.json").read_text())
    assert [c["id"] for c in again["claims"]] == [c["id"] for c in first["claims"]]
    for a, b in zip(first["claims"], again["claims"]):
        if a.get("timed"):  # decided by wall-clock time: same claim and rule, numbers may differ
            assert (a["statement"], a["rule"]) == (b["statement"], b["rule"])
        else:
            assert a == b


def _copy_for_rerun(book: Path, out_dir: Path) -> Path:
    from tests.conftest import copy_book_sources

    return copy_book_sources(out_dir / "book")


def test_unchanged_chapter_is_reused(smoke_book):
    """Re-running an unchanged chapter takes its previous execution (the executor's input key)."""
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--chapters", "grokking"], cwd=ROOT, env=smoke_book["env"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "grokking: cached" in proc.stdout


def test_marimo_check_passes():
    proc = subprocess.run([sys.executable, "-m", "marimo", "check", *[f"chapters/{s}.py" for s in CHAPTERS]],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("slug", CHAPTERS)
def test_chapter_runs_under_marimo(slug, tmp_path):
    """The live path: marimo itself runs the notebook (smoke profile via its CLI arguments)."""
    out = tmp_path / f"{slug}.html"
    proc = subprocess.run([sys.executable, "-m", "marimo", "export", "html", f"chapters/{slug}.py", "-o", str(out),
                           "--", "--profile", "smoke"], cwd=ROOT, capture_output=True, text=True,
                          env=_marimo_env(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = out.read_text()
    assert "marimo" in text and len(text) > 10_000


def _marimo_env(tmp_path):
    import os

    return dict(os.environ, ICMLBOOK_CACHE_DIR=str(tmp_path / "cache"), OMP_WAIT_POLICY="PASSIVE")
