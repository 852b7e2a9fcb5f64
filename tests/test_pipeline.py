"""The pipeline: export pass, post-execution pass, execution with injected parameters, run records,
failures, command line, environment files."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from icmlbook.pipeline import paths
from icmlbook.pipeline.execute import execute_one, input_key
from icmlbook.pipeline.export import citations_to_myst, is_import_only, marimo_to_ipynb, prepare_notebook
from icmlbook.pipeline.postprocess import postprocess_notebook, staticize_html
from icmlbook.pipeline.site import build_report_markdown, planned_slugs, scoreboard_markdown, write_toc
from icmlbook.runtime.claims import VERDICTS
from icmlbook.runtime.context import EXECUTOR_ENV, RECORD_ENV

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    raw = tmp / "raw.ipynb"
    marimo_to_ipynb(FIXTURES / "tiny_chapter.py", raw)
    nb = prepare_notebook(nbformat.read(raw, as_version=4), "tiny_chapter")
    path = tmp / "tiny_chapter.ipynb"
    nbformat.write(nb, path)
    return path


def test_export_pass(exported):
    nb = nbformat.read(exported, as_version=4)
    nbformat.validate(nb)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and 'profile = "default"' in tagged[0].source
    assert nb.metadata.kernelspec.name == paths.KERNEL_NAME
    md = [c for c in nb.cells if c.cell_type == "markdown"]
    assert md[0].source.startswith("# A tiny chapter")             # prose became markdown: the page title
    assert "{cite}`xu2026grokking`" in md[0].source                # citations for the bibliography
    assert "make live CHAPTER=tiny_chapter" in md[1].source         # the live box follows the title
    assert "remove-cell" in nb.cells[0].metadata.tags                # kernel set-up hidden
    imports = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("import marimo")]
    assert imports and "remove-cell" in imports[0].metadata.tags
    glue = [c for c in nb.cells if c.cell_type == "code" and "start_run(" in c.source]
    assert "hide-input" in glue[0].metadata.tags
    # the live findings cell runs after the ledger (topological order): off the page, whose box the record gives
    live_box = [c for c in nb.cells if c.metadata.get("marimo", {}).get("name") == "findings"]
    assert len(live_box) == 1 and "remove-cell" in live_box[0].metadata.tags


def test_export_requires_parameters_and_title():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_code_cell("x=1")])
    with pytest.raises(ValueError, match="parameters"):
        prepare_notebook(nb, "x")
    params = nbformat.v4.new_code_cell("profile='default'")
    params.metadata["marimo"] = {"name": "parameters"}
    with pytest.raises(ValueError, match="Title"):
        prepare_notebook(nbformat.v4.new_notebook(cells=[params]), "x")


def test_citations_and_import_detection():
    assert citations_to_myst("see [@a] and [@b; @c:d].") == "see {cite}`a` and {cite}`b,c:d`."
    assert citations_to_myst("a [link](x) [not a cite]") == "a [link](x) [not a cite]"
    assert is_import_only("import a\nfrom b import c")
    assert not is_import_only("import a\nx = 1")


def _slider_html(label="ν (init scale)", value="3"):
    lab = ('&quot;&#92;u003cspan class=&#92;&quot;markdown&#92;&quot;&#92;u003e' + label +
           '&#92;u003c/span&#92;u003e&quot;')
    return (f"<div><marimo-ui-element object-id='a' random-id='a'><marimo-slider data-initial-value='{value}' "
            f"data-label='{lab}' data-start='1' data-stop='10'></marimo-slider></marimo-ui-element></div>")


def test_staticize_ui_elements():
    out, n = staticize_html(_slider_html() + _slider_html("λ", "0.5"))
    assert n == 2 and "marimo-slider" not in out
    assert "ν (init scale): <code>3</code>" in out and "λ: <code>0.5</code>" in out
    dropdown = ("<marimo-ui-element object-id='b' random-id='b'><marimo-dropdown data-initial-value='[&quot;entropic&quot;]' "
                "data-label='null' data-options='[&quot;entropic&quot;, &quot;euclidean&quot;]'></marimo-dropdown>"
                "</marimo-ui-element>")
    out, n = staticize_html(dropdown)
    assert n == 1 and "<code>entropic</code>" in out


def test_postprocess_dedupes_images_and_hides_injected():
    cell = nbformat.v4.new_code_cell("fig")
    img = {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
    cell.outputs = [nbformat.v4.new_output("display_data", data=img),
                    nbformat.v4.new_output("execute_result", data=dict(img), execution_count=1)]
    injected = nbformat.v4.new_code_cell("profile = 'smoke'")
    injected.metadata["tags"] = ["injected-parameters"]
    ui = nbformat.v4.new_code_cell("s")
    ui.outputs = [nbformat.v4.new_output("execute_result", data={"text/html": _slider_html(), "text/markdown": "x"},
                                         execution_count=2)]
    md = nbformat.v4.new_code_cell("mo.md(f'...')")
    md.outputs = [nbformat.v4.new_output("execute_result", execution_count=3, data={
        "text/html": '<span class="markdown prose dark:prose-invert contents">||(x||)</span>',
        "text/markdown": "value $x=1$", "text/plain": "_md()"})]
    nb = postprocess_notebook(nbformat.v4.new_notebook(cells=[cell, injected, ui, md]))
    assert len(nb.cells[0].outputs) == 1
    # a figure's cell is tagged for the site check (its page must show the figure); others are not
    assert "figure-output" in nb.cells[0].metadata.tags
    assert not any("figure-output" in c.metadata.get("tags", []) for c in nb.cells[1:])
    assert "remove-cell" in nb.cells[1].metadata.tags
    assert "icml-static-control" in nb.cells[2].outputs[0].data["text/html"]
    assert "text/markdown" not in nb.cells[2].outputs[0].data
    # computed markdown is published as markdown (MyST renders its math), not marimo's HTML
    assert set(nb.cells[3].outputs[0].data) == {"text/markdown", "text/plain"}


def test_execution_injects_parameters_and_writes_record(exported, tmp_path, monkeypatch):
    record = tmp_path / "rec.json"
    monkeypatch.setenv(EXECUTOR_ENV, "1")
    monkeypatch.setenv(RECORD_ENV, str(record))
    out = tmp_path / "executed.ipynb"
    assert execute_one(exported, out, "smoke", 5) == 0
    nb = nbformat.read(out, as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and 'profile = "smoke"' in injected[0].source and "seed = 5" in injected[0].source
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1                                      # the returned figure appears once
    htmls = " ".join(o.data["text/html"] for o in outputs if "text/html" in o.get("data", {}))
    assert "icml-static-control" in htmls and "<marimo-slider" not in htmls
    assert "claims-table" in htmls and "provenance-box" in htmls
    rec = json.loads(record.read_text())
    assert rec["profile"] == "smoke" and rec["seed"] == 5 and rec["claims"][0]["id"] == "T1"
    # what the run found, from the record, right under the title (the verdicts are computed at the end)
    title = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("# A tiny"))
    assert nb.cells[title + 1].metadata.get("icmlbook") == "findings-box"
    assert [c.metadata.get("icmlbook") for c in nb.cells].count("findings-box") == 1
    box = nb.cells[title + 1].source
    assert '<div class="findings-box"' in box and "\n" not in box and "<b>1</b> reproduced" in box
    assert "profile smoke, seed 5" in box and rec["abstract"] == []


def test_findings_box_goes_under_the_title_once():
    from icmlbook.pipeline.postprocess import insert_findings

    record = {"chapter": "grokking", "profile": "smoke", "seed": 0, "abstract": [{"sentence": "s", "ids": ["C1"]}],
              "claims": [{"id": "C1", "statement": "s", "rule": "r", "measured": "0.5", "verdict": VERDICTS[1]}]}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x"), nbformat.v4.new_markdown_cell("# Title\n\ntext"),
                                         nbformat.v4.new_markdown_cell("live box")])
    nb = postprocess_notebook(nb, record)
    assert [c.metadata.get("icmlbook") for c in nb.cells] == [None, None, "findings-box", None]
    assert 'href="#claim-grokking-C1"' in nb.cells[2].source and "0.5" in nb.cells[2].source
    nb = insert_findings(nb, dict(record, seed=1))               # executed again: replaced, never doubled
    assert [c.metadata.get("icmlbook") for c in nb.cells].count("findings-box") == 1
    assert "seed 1" in nb.cells[2].source
    with pytest.raises(ValueError, match="Title"):
        insert_findings(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("no title")]), record)


def test_failing_chapter_reports_error_and_cell(tmp_path, monkeypatch):
    raw = tmp_path / "raw.ipynb"
    marimo_to_ipynb(FIXTURES / "failing_chapter.py", raw)
    nb = prepare_notebook(nbformat.read(raw, as_version=4), "failing_chapter")
    src = tmp_path / "failing.ipynb"
    nbformat.write(nb, src)
    monkeypatch.setenv(EXECUTOR_ENV, "1")
    err = tmp_path / "err.json"
    assert execute_one(src, tmp_path / "out.ipynb", "smoke", 0, error_file=err) == 1
    info = json.loads(err.read_text())
    assert "ZeroDivisionError" in info["error"]
    assert "/ 0" in info["cell"]


def test_cli_rejects_bogus_profile_and_unknown_chapter():
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "bogus"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "profile='bogus'" in proc.stderr and "smoke, default, full" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--chapters", "no_such_chapter"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode != 0 and "not a chapter" in proc.stderr


def test_input_key_tracks_profile_seed_and_source():
    slug = "grokking"
    assert input_key(slug, "smoke", 0) == input_key(slug, "smoke", 0)
    assert input_key(slug, "smoke", 0) != input_key(slug, "default", 0)
    assert input_key(slug, "smoke", 0) != input_key(slug, "smoke", 1)


def test_generated_pages(tmp_path):
    records = {"grokking": {"chapter": "grokking", "status": "ok", "profile": "smoke", "seed": 0,
                            "wall_seconds": 12.5, "peak_memory_mb": 300.0, "device": "cpu (2 threads)",
                            "commit": "abc", "versions": {"numpy": "2"},
                            "claims": [{"id": "C1", "statement": "s", "rule": "r", "measured": "m",
                                        "verdict": "not reproduced", "paper_value": None, "reason": "why"}]}}
    records["ftrl_preference_graphs"] = dict(records["grokking"], chapter="ftrl_preference_graphs", claims=[
        dict(records["grokking"]["claims"][0], verdict=v, id=f"F{i}") for i, v in enumerate(VERDICTS)])
    records["ftrl_preference_graphs"]["claims"][0]["reconstruction"] = True
    board = scoreboard_markdown(records)
    assert "| [grokking](chapters/grokking) | smoke | " + " | ".join(
        "1" if v == "not reproduced" else "0" for v in VERDICTS) + " |" in board
    # every claim, grouped by chapter: a section each, the table in a block whose heading holds the counts
    assert board.index("### To Grok Grokking") < board.index("### Preference graphs")
    blocks = re.findall(r'^<details class="scoreboard-chapter" data-chapter="(\w+)"><summary>(.*?)</summary>(.*?)</details>$',
                        board, flags=re.M)
    assert [b[0] for b in blocks] == ["grokking", "ftrl_preference_graphs"]
    for slug, summary, table in blocks:
        counts = dict((v, int(n)) for n, v in re.findall(r"<b>(\d+)</b> ([a-z ]+?)</span>", summary))
        claims = records[slug]["claims"]
        assert counts == {v: sum(c["verdict"] == v for c in claims) for v in VERDICTS}
        assert table.count("<tr id=") == len(claims) and f'id="claim-{slug}-{claims[0]["id"]}"' in table
    assert "1 about our reconstruction" in blocks[1][1] and "reconstruction" not in blocks[0][1]
    report = build_report_markdown(records)
    assert "| grokking | ok | smoke, 0 |" in report and "| 12.5 s | 300 MiB | cpu (2 threads) |" in report
    toc = tmp_path / "_toc.yml"
    write_toc(["grokking"], path=toc)
    data = yaml.safe_load(toc.read_text())
    files = [c["file"] for part in data["parts"] for c in part["chapters"]]
    assert "chapters/grokking" in files and "scoreboard" in files and "build-report" in files
    assert "chapters/ftrl_preference_graphs" not in files   # planned, not written
    assert len(set(planned_slugs())) == 19


def _requirements_of_pyproject():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(data["project"]["dependencies"]) | set(data["project"]["optional-dependencies"]["dev"])


def test_environment_yml_matches_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert set(pip_section) == _requirements_of_pyproject()
    py = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert re.sub(r"[^\d.]", "", requires) <= py.split("=")[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and re.search(r"^make test$", ci, flags=re.M)


def test_bibliography_is_merged_and_duplicates_rejected(tmp_path):
    from icmlbook.pipeline.site import write_bibliography

    (tmp_path / "a.bib").write_text("@article{k1,\n title={A}\n}\n")
    (tmp_path / "b.bib").write_text("@book{ k2 ,\n title={B}\n}\n")
    out = tmp_path / "refs.bib"
    assert write_bibliography(tmp_path, out) == 2
    assert "k1" in out.read_text() and "k2" in out.read_text()
    (tmp_path / "c.bib").write_text("@misc{k1,\n title={C}\n}\n")
    with pytest.raises(ValueError, match="'k1'"):
        write_bibliography(tmp_path, out)
    assert write_bibliography(ROOT / "book" / "bib", tmp_path / "real.bib") >= 1


def test_slider_over_explicit_steps_shows_the_value_not_the_index():
    html = ("<marimo-ui-element object-id='c' random-id='c'><marimo-slider data-initial-value='3' "
            "data-label='&quot;λ&quot;' data-steps='[0.001, 0.003, 0.01, 0.03]'></marimo-slider></marimo-ui-element>")
    out, n = staticize_html(html)
    assert n == 1 and "λ: <code>0.03</code>" in out


def test_library_tests_and_chapters_pass_the_linter():
    """Chapters too: a marimo cell that uses a name missing from its signature (F821) still runs, since marimo
    and papermill resolve it from the other cells, but the file no longer says what the cell reads."""
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "lib", "tests", "chapters"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_live_path_run_is_compared_with_the_papermill_run(exported, tmp_path, monkeypatch):
    """The machinery of the chapter tests' second execution, on the fixture chapter: marimo runs it with
    the same seed and the cache off, writes a run record, and its claims equal papermill's."""
    from tests.conftest import RAW_CITATION, assert_same_claims, marimo_outputs, run_under_marimo

    record = tmp_path / "papermill.json"
    monkeypatch.setenv(EXECUTOR_ENV, "1")
    monkeypatch.setenv(RECORD_ENV, str(record))
    assert execute_one(exported, tmp_path / "executed.ipynb", "smoke", 0) == 0
    monkeypatch.delenv(EXECUTOR_ENV)
    live = run_under_marimo("tiny_chapter", FIXTURES / "tiny_chapter.py", tmp_path / "live", threads=1)
    assert live["rc"] == 0, live["log"]
    # the title cell's [@xu2026grokking] reads live as on the site: author-year, linked to the paper
    outputs = marimo_outputs(live["html"].read_text())
    cited = [o for o in outputs if "Xu et al., 2026" in o]
    assert cited and 'href="https://arxiv.org/abs/2601.19791"' in cited[0]
    assert not [o for o in outputs if RAW_CITATION.search(o)]
    assert live["record"]["profile"] == "smoke"
    assert_same_claims(json.loads(record.read_text()), live["record"])
    other = run_under_marimo("tiny_chapter", FIXTURES / "tiny_chapter.py", tmp_path / "live3", threads=1, seed=3)
    with pytest.raises(AssertionError):  # the comparison can fail: another seed gives another mean
        assert_same_claims(json.loads(record.read_text()), other["record"])


def test_citations_render_author_year_with_links(tmp_path):
    from icmlbook.pipeline.citations import citations_to_html, install_live_citations, load_bibliography

    (tmp_path / "a.bib").write_text(r"""
@article{one, title={Solo {GPU} Work}, author={M{\"u}ller, Anna}, year={2020}, doi={10.1000/xyz}}
@article{two, title={Pair}, author={Smith, A. and van Dijk, B.}, year={2021}, url={https://example.org/p}}
@misc{three, title={Many}, author={Xu, M. and Vardi, G. and Safran, I.}, year={2026}, note={arXiv:2601.19791}}
@misc{others, title={Some}, author={Xiang, Y. and others}, year={2024}}
""")
    bib = load_bibliography(str(tmp_path))
    assert bib["one"] == {"text": "Müller, 2020", "title": "Solo GPU Work", "url": "https://doi.org/10.1000/xyz"}
    assert bib["two"]["text"] == "Smith and van Dijk, 2021" and bib["two"]["url"] == "https://example.org/p"
    assert bib["three"]["text"] == "Xu et al., 2026" and bib["three"]["url"] == "https://arxiv.org/abs/2601.19791"
    assert bib["others"]["text"] == "Xiang et al., 2024" and bib["others"]["url"] is None
    out = citations_to_html("as shown [@three; @two] and [@missing], not [a link](x)", bib)
    assert out.startswith('as shown [<a class="icml-cite" href="https://arxiv.org/abs/2601.19791"')
    assert ">Xu et al., 2026</a>; <a" in out and ">Smith and van Dijk, 2021</a>]" in out
    assert "@missing?" in out and "[a link](x)" in out        # a missing key is shown, loudly
    assert install_live_citations() is False                # outside marimo: nothing installed
    assert all(e["text"] for e in load_bibliography().values())  # the book's own bib files parse


def test_progress_plain_lines_and_cell_events(exported, tmp_path):
    """Off a terminal, one plain line per event; the local backend reports each code cell (i of N)."""
    import io

    from icmlbook.pipeline.execute import ExecutionJob, LocalBackend, execute_all
    from icmlbook.pipeline.progress import ProgressReporter

    err, out = io.StringIO(), io.StringIO()
    reporter = ProgressReporter(stream=err, done_stream=out)
    assert reporter.tty is False
    events: list[dict] = []

    def both(ev):
        events.append(ev)
        reporter(ev)

    job = ExecutionJob("tiny_chapter", "smoke", 0, exported, tmp_path, force=True, threads=1,
                       key="fixture")
    (res,) = execute_all([job], LocalBackend(1), on_event=both)
    assert res.status == "ok", res.error
    cells = [e for e in events if e["event"] == "cell"]
    n = cells[0]["cells"]
    assert [e["cell"] for e in cells] == list(range(1, n + 1))   # every code cell, in order, i of N
    assert events[0]["event"] == "start" and events[-1]["event"] == "done"
    lines = err.getvalue().splitlines()
    assert re.match(r"\[\s*[\d.]+ s\] tiny_chapter: started$", lines[0])
    assert re.match(rf"\[\s*[\d.]+ s\] tiny_chapter: cell {n}/{n} \([\d.]+ s in the chapter\)$", lines[-1])
    assert len(lines) == 1 + n
    assert re.match(r"\[\s*[\d.]+ s\] tiny_chapter: ok \([\d.]+ s\)$", out.getvalue().strip())
    # the executed notebook took its final name only at the end; no partial file is left
    assert (tmp_path / "tiny_chapter.ipynb").exists() and not list(tmp_path.glob(".*.part"))
    rec = json.loads((tmp_path / "tiny_chapter.record.json").read_text())
    assert rec["input_key"] == "fixture" and rec["status"] == "ok"


def test_progress_bars_on_a_terminal():
    import io

    from icmlbook.pipeline.progress import ProgressReporter

    err, out = io.StringIO(), io.StringIO()
    reporter = ProgressReporter(stream=err, tty=True, done_stream=out)
    for ev in ({"chapter": "a", "event": "start"}, {"chapter": "b", "event": "start"},
               {"chapter": "a", "event": "cell", "cell": 3, "cells": 10}):
        reporter(ev)
    assert "cell 3/10" in err.getvalue() and reporter._slots == {"a": 0, "b": 1}
    reporter({"chapter": "a", "event": "done", "status": "ok", "wall": 1.5})
    assert "a: ok (1.5 s)" in out.getvalue() and "a" not in reporter._bars
    reporter.close()


def test_site_keeps_every_executed_chapter_and_marks_changed_sources(tmp_path, monkeypatch):
    """`make book CHAPTERS=x` builds the site with every chapter that has a successful executed notebook;
    the build report says where each came from and marks a source that changed since its run."""
    from icmlbook.pipeline.execute import source_hash
    from icmlbook.pipeline.site import available_chapters, executed_chapters

    a, b, c = available_chapters()[:3]
    for slug, status, sha in ((a, "ok", source_hash(a)), (b, "cached", "0" * 64), (c, "failed", source_hash(c))):
        (tmp_path / f"{slug}.ipynb").write_text("{}")
        (tmp_path / f"{slug}.record.json").write_text(json.dumps(
            {"chapter": slug, "status": status, "profile": "smoke", "seed": 0, "commit": f"commit-{slug}",
             "started": "2026-12-01T08:00:00Z", "source_hash": sha, "claims": []}))
    assert executed_chapters(tmp_path) == [a, b]          # the failed one is left out, whichever run
    from icmlbook.pipeline.site import load_records

    report = build_report_markdown(load_records(tmp_path))
    row = {line.split("|")[1].strip(): line for line in report.splitlines() if line.startswith("| ")}
    assert f"| smoke, 0 | 2026-12-01 08:00:00 | `commit-{a}` | unchanged |" in row[a]
    assert "**changed since this run**" in row[b]
    written_not_run = [s for s in available_chapters() if s not in (a, b, c)]
    if written_not_run:
        assert "| not executed |" in row[written_not_run[0]]


def test_gpu_declaration_and_dask_cli_errors(tmp_path):
    from icmlbook.pipeline.site import gpu_profiles

    plan = {"parts": [{"slug": "p", "title": "P", "chapters": [{"slug": "big", "title": "B", "gpu": ["full"]},
                                                               {"slug": "small", "title": "S"}]}]}
    assert gpu_profiles("big", plan) == ["full"] and gpu_profiles("small", plan) == []
    from tests.conftest import copy_book_sources

    book = copy_book_sources(tmp_path / "book")
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke", "--chapters",
                           "grokking", "--backend", "dask"], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, ICMLBOOK_BOOK_DIR=str(book)))
    assert proc.returncode == 2 and "--scheduler tcp://HOST:8786" in proc.stderr
    from icmlbook.pipeline.dask_backend import DaskBackend

    with pytest.raises(ValueError, match="scheduler='tcp://127.0.0.1:9': no Dask scheduler answered"):
        DaskBackend(scheduler="tcp://127.0.0.1:9", connect_timeout=2)
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--backend", "ray"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "allowed values: local, dask" in proc.stderr


def test_display_math_is_separated_from_prose():
    from icmlbook.pipeline.export import separate_display_math

    text = "A match,\n$$\nx = 1,\n$$\nwith text after.\n\n$$\ny\n$$\n"
    assert separate_display_math(text) == "A match,\n\n$$\nx = 1,\n$$\n\nwith text after.\n\n$$\ny\n$$\n"
    assert separate_display_math("inline $x$ and $$x$$ stay") == "inline $x$ and $$x$$ stay"


def test_figures_inside_marimo_layouts_become_images():
    """mo.vstack([fig, ...]) publishes the figure as a <marimo-mime-renderer> that only marimo's front end
    draws; the static page must carry it as an <img> with the same base64 payload (a non-image bundle stays)."""
    import html as _html

    from icmlbook.pipeline.postprocess import staticize_figures

    payload = "iVBORw0KGgoAAAANSUhEUg=="
    bundle = json.dumps({"image/png": f"data:image/png;base64,{payload}",
                         "__metadata__": {"image/png": {"width": 640, "height": 480}}})
    attr = _html.escape(json.dumps(bundle), quote=True).replace("'", "&#x27;")
    el = (f"<marimo-mime-renderer data-mime='{_html.escape(json.dumps('application/vnd.marimo+mimebundle'))}' "
          f"data-data='{attr}'></marimo-mime-renderer>")
    text = f"<div style='display: flex'>{el}<span>caption</span></div>"
    out, n = staticize_figures(text)
    assert n == 1 and "marimo-mime-renderer" not in out
    assert f'src="data:image/png;base64,{payload}"' in out and 'width="640"' in out and "<span>caption</span>" in out
    other = el.replace("image/png", "text/plain")
    assert staticize_figures(other) == (other, 0)


def test_callouts_become_plain_boxes():
    """mo.callout keeps its content in an attribute only marimo's front end reads; the page gets it as a box."""
    import marimo as mo

    from icmlbook.pipeline.postprocess import staticize_callouts

    text = mo.callout(mo.md("**Not allowed:** k=0 is below 1"), kind="warn").text
    assert text.startswith("<marimo-callout-output")
    out, n = staticize_callouts(f"<div>{text}</div>")
    assert n == 1 and "marimo-" not in out
    assert "<strong>Not allowed:</strong>" in out and "k=0 is below 1" in out and "icml-callout-warn" in out
    assert staticize_callouts("<p>plain</p>") == ("<p>plain</p>", 0)


# -- a slow machine gives a slow book, never a failed one --------------------------------------------------------
def _export_fixture(slug: str, out: Path) -> Path:
    raw = out / f"{slug}.raw.ipynb"
    marimo_to_ipynb(FIXTURES / f"{slug}.py", raw)
    path = out / f"{slug}.ipynb"
    nbformat.write(prepare_notebook(nbformat.read(raw, as_version=4), slug), path)
    return path


def test_watchdog_stops_only_after_a_silence(tmp_path):
    """Any growing signal file resets the stall clock; silence longer than the stall timeout stops the chapter;
    the whole-chapter limit holds however it progresses (a fake clock, so the test takes no time)."""
    from icmlbook.pipeline.execute import Watchdog

    now = [0.0]
    beats, log = tmp_path / "beats", tmp_path / "log"
    dog = Watchdog([beats, log], stall_timeout=600, chapter_timeout=3000, clock=lambda: now[0])
    # a tick about every 5 minutes: never stalled, 35 min past the stall limit; the one after cell 3 comes 7 s late
    for i, t in enumerate((0, 300, 600, 900, 1207, 1500, 1800, 2100)):
        now[0] = float(t)
        with open(beats if i % 2 else log, "a") as f:
            f.write(".")
        assert dog.check(f"cell {i}") is None, t
    assert dog.longest_silence == 307 and dog.longest_where == "cell 3"
    now[0] = 2100 + 600                    # the last tick was at 2100 s: exactly the limit is still allowed
    assert dog.check("cell 7") is None
    now[0] = 2100 + 601
    assert dog.check("cell 7") == "stalled" and dog.silent_for == 601
    assert dog.finish() == {"seconds": 601, "where": "cell 7"}
    ticking = Watchdog([beats], stall_timeout=600, chapter_timeout=3000, clock=lambda: now[0])
    start = int(now[0])
    statuses = []
    for t in range(start + 100, start + 3200, 100):
        now[0] = float(t)
        beats.write_text("." * (t - start))
        statuses.append(ticking.check())
    assert statuses[:30] == [None] * 30    # up to 3000 s in the chapter
    assert statuses[30] == "timeout"       # still ticking, but past the whole-chapter limit
    unlimited = Watchdog([beats], stall_timeout=5, chapter_timeout=0, clock=lambda: now[0])
    now[0] += 10**6
    assert unlimited.check() == "stalled"  # no chapter limit, the stall limit still holds
    with pytest.raises(ValueError, match="stall_timeout=0 is not allowed"):
        Watchdog([beats], stall_timeout=0)
    with pytest.raises(ValueError, match="chapter_timeout=-1 is not allowed"):
        Watchdog([beats], stall_timeout=1, chapter_timeout=-1)


def test_a_silent_cell_is_stopped_with_a_message_naming_it(tmp_path):
    """A cell that hangs (no tick, no output) is stopped after the stall timeout, not after an hour; the record
    and the run report name the cell and the time it was silent. (20 s: the kernel's start-up and imports, silent
    too, stay well below it on a loaded 2-core machine.)"""
    import time

    from icmlbook.pipeline.execute import ExecutionJob, run_job

    nb = _export_fixture("stalling_chapter", tmp_path)
    job = ExecutionJob("stalling_chapter", "smoke", 0, nb, tmp_path / "out", stall_timeout=20, force=True, threads=1,
                       key="fixture-stall")
    t0 = time.perf_counter()
    res = run_job(job)
    assert res.status == "stalled"
    assert 20 <= res.wall_seconds < 150 and time.perf_counter() - t0 < 180
    assert re.search(r"^stalled: cell (\d+)/\1 \(`print\(\"about to hang\", flush=True\)`\) reported no progress "
                     r"for 20 s", res.error), res.error
    assert "time.sleep(3600)" in res.failing_cell
    record = json.loads((tmp_path / "out" / "stalling_chapter.record.json").read_text())
    assert record["status"] == "stalled" and record["error"] == res.error
    assert record["longest_silence"]["seconds"] >= 20 and "about to hang" in record["longest_silence"]["where"]
    assert "[icmlbook executor] stalled: cell" in (tmp_path / "out" / "stalling_chapter.log").read_text()


@pytest.mark.slow
def test_a_slow_cell_that_ticks_runs_past_the_stall_timeout(tmp_path, monkeypatch):
    """One cell of 3 x 25 s, with a stall timeout of 20 s: progress ticks, printed output and finished cached
    artefacts each keep it alive (the phase with only one kind of signal lasts longer than the timeout)."""
    from icmlbook.pipeline.execute import ExecutionJob, run_job

    monkeypatch.setenv("ICMLBOOK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ICMLBOOK_NO_CACHE", raising=False)
    nb = _export_fixture("ticking_chapter", tmp_path)
    job = ExecutionJob("ticking_chapter", "smoke", 0, nb, tmp_path / "out", stall_timeout=20, force=True, threads=1,
                       key="fixture-tick")
    res = run_job(job)
    assert res.status == "ok", res.error
    assert res.wall_seconds > 75
    assert res.record["squares"] == [i * i for i in range(50)]
    assert res.record["longest_silence"]["seconds"] <= 20 and res.record["stall_timeout"] == 20
    assert len(list((tmp_path / "cache").glob("ticking-square-*/*.pkl"))) == 50


def test_a_failed_chapter_does_not_stop_the_others(exported, tmp_path):
    """Chapters one at a time, the failing one first: the next still runs and succeeds; the build report lists
    the failed one with its error, and the site would show only the successful one."""
    from icmlbook.pipeline.execute import ExecutionJob, LocalBackend, execute_all
    from icmlbook.pipeline.site import load_records

    failing = _export_fixture("failing_chapter", tmp_path)
    out = tmp_path / "out"
    jobs = [ExecutionJob("failing_chapter", "smoke", 0, failing, out, force=True, threads=1, key="f"),
            ExecutionJob("tiny_chapter", "smoke", 0, exported, out, force=True, threads=1, key="t")]
    res = execute_all(jobs, LocalBackend(1))
    assert [r.status for r in res] == ["failed", "ok"]
    assert "ZeroDivisionError" in res[0].error
    records = load_records(out)
    plan = {"parts": [{"slug": "p", "title": "P", "chapters": [{"slug": "failing_chapter", "title": "F"},
                                                               {"slug": "tiny_chapter", "title": "T"}]}]}
    report = build_report_markdown(records, plan)
    assert "## Chapters that failed" in report
    failed_section = report.split("## Chapters that failed")[1]
    assert "**failing_chapter** (failed, profile smoke" in failed_section and "ZeroDivisionError" in failed_section
    assert "tiny_chapter" not in failed_section


def test_make_book_builds_the_site_when_a_chapter_failed(monkeypatch):
    """`book` = execute, then the site from what succeeded, whatever failed; the exit code is non-zero when a
    chapter failed (CI notices), zero when none did."""
    from icmlbook.pipeline import __main__ as cli

    calls = []

    def execute(args, failed):
        args._executed, args._failed = ["tiny_chapter"], failed
        calls.append("execute")
        return 1 if failed else 0

    monkeypatch.setattr(cli, "cmd_site", lambda args: calls.append(("site", list(args._executed))) or 0)
    for failed, rc in ((["failing_chapter"], 1), ([], 0)):
        calls.clear()
        monkeypatch.setattr(cli, "cmd_execute", lambda args, f=failed: execute(args, f))
        assert cli.main(["book", "--profile", "smoke"]) == rc
        assert calls == ["execute", ("site", ["tiny_chapter"])]


def test_cli_timeouts_are_checked():
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--stall-timeout", "0"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "--stall-timeout: 0 is not allowed; it must be >= 1 seconds" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "icmlbook.pipeline", "execute", "--profile", "smoke",
                           "--chapter-timeout", "soon"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "'soon' is not a whole number of seconds" in proc.stderr
