"""The site check can fail: small pages shaped like Jupyter Book's (MyST-NB's cell markup), opened in headless
Chromium through tests/sitecheck.py, each with one thing a reader would see wrong: an element only marimo's front
end draws, a figure cell that shows no figure, an error output, a findings box missing, misplaced or linking
nowhere. A clean page of the same shape passes, so the failures come from the defect, not the page."""

from __future__ import annotations

import pytest

from tests.sitecheck import chromium_path, inspect_pages, page_problems, site_pages

#: a 1x1 PNG
PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5Erk"
       "Jggg==")
BOX = ('<div class="findings-box"><b>What this run found</b><ul><li class="findings-claim">'
       '<a href="#claim-demo-C1"><b>C1</b></a> reproduced</li></ul></div>')


def cell(output: str, tags: str = "tag_hide-input", source: str = "plots.figure(x)") -> str:
    return (f'<div class="cell {tags} docutils container"><details class="hide above-input"><summary>Show code</summary>'
            f'<div class="cell_input docutils container"><div class="highlight"><pre>{source}</pre></div></div>'
            f'</details><div class="cell_output docutils container">{output}</div></div>')


def figure_cell() -> str:
    return cell(f'<img alt="figure" src="{PNG}" width="300" height="200">', tags="tag_hide-input tag_figure-output")


def page(body: str, box: str = BOX, box_after_section: bool = False) -> str:
    ledger = ('<table class="claims-table"><tbody><tr id="claim-demo-C1"><td>C1</td><td><b>reproduced</b></td>'
              '</tr></tbody></table><div class="provenance-box">Provenance</div>')
    top, late = ("", box) if box_after_section else (box, "")
    return (f'<!DOCTYPE html><html><head><title>demo</title></head><body><article class="bd-article"><section>'
            f'<h1>A chapter</h1><p>Summary.</p>{top}<section><h2>Experiments</h2>{late}{body}</section>'
            f'<section><h2>Claims ledger</h2>{ledger}</section></section></article></body></html>')


CLEAN = (figure_cell() + "<p><em>Figure: a caption under its figure.</em></p>"
         + figure_cell() + cell("<p><em>Figure: a computed caption in the next cell.</em></p>", source="mo.md(f'...')")
         + cell('<div class="output text_plain"><pre>0.5</pre></div>', source="x.mean()"))

PAGES = {
    "chapters/clean.html": page(CLEAN),
    "chapters/leftover.html": page(CLEAN + cell(
        "<div><marimo-mime-renderer data-mime='image/png' data-data='x'></marimo-mime-renderer><em>under it</em></div>")),
    "chapters/blank.html": page(CLEAN
                                + cell("", tags="tag_hide-input tag_figure-output", source="plots.tagged(x)")
                                + cell("", source="plots.captioned(x)") + "<p><em>Figure: nothing above me.</em></p>"
                                + cell('<div class="output text_plain"><pre>&lt;Figure size 640x480 with 1 Axes&gt;'
                                       '</pre></div>', source="plots.as_text(x)")
                                + cell('<div class="plotly-output"><div>no graph drawn</div></div>', source="plotly(x)")
                                + "<p>Text.</p>" + cell("<p><em>Figure: a computed caption, no figure before it.</em></p>",
                                                         source="mo.md(f'orphan')")),
    "chapters/error.html": page(CLEAN + cell(
        '<div class="output traceback highlight-ipythontb"><pre>ZeroDivisionError: division by zero</pre></div>')
        + cell('<div class="output stderr"><pre>ValueError: x must be positive</pre></div>')
        + cell('<div class="output text_plain"><pre>Traceback (most recent call last):\n  File "x"</pre></div>')),
    "chapters/nobox.html": page(CLEAN, box=""),
    "chapters/late-box.html": page(CLEAN, box_after_section=True),
    "chapters/dead-link.html": page(CLEAN, box=BOX.replace("#claim-demo-C1", "#claim-demo-C9")),
    "other.html": page(CLEAN, box="").replace('<div class="provenance-box">Provenance</div>', ""),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if chromium_path() is None:
        pytest.fail("chromium is not installed: `make browser` installs Debian's package")
    site = tmp_path_factory.mktemp("site")
    for name, text in PAGES.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    (site / "_static").mkdir()
    (site / "_static" / "skip.html").write_text("<p>an asset, not a page</p>")
    assert site_pages(site) == sorted(PAGES)
    return {name: page_problems(info, chapter=name.startswith("chapters/"))
            for name, info in inspect_pages(site, sorted(PAGES)).items()}


def test_a_clean_page_passes(report):
    assert report["chapters/clean.html"] == []
    assert report["other.html"] == []  # a page that is not a chapter needs no findings box


def test_a_leftover_marimo_element_fails(report):
    assert report["chapters/leftover.html"] == [
        "elements only marimo's front end draws (blank here): ['marimo-mime-renderer']"]


def test_a_figure_cell_without_its_figure_fails(report):
    found = report["chapters/blank.html"]
    assert len(found) == 5, found
    for source, why in [("plots.tagged(x)", "the notebook output a figure"),
                        ("plots.captioned(x)", "a figure caption follows it"),
                        ("plots.as_text(x)", "its output is a figure written as text"),
                        ("plotly(x)", "it holds a plotly figure"),
                        ("mo.md(f'orphan')", "its output has a figure caption, and no figure is above it")]:
        assert any(source in p and why in p for p in found), (source, found)


def test_an_error_output_fails(report):
    assert report["chapters/error.html"] == ["3 cell(s) with an error output"]


def test_a_missing_misplaced_or_dead_findings_box_fails(report):
    assert report["chapters/nobox.html"] == ["0 findings boxes (one at the top of every chapter)"]
    assert report["chapters/late-box.html"] == [
        "the findings box is not at the top (after the title, before the first section)"]
    assert report["chapters/dead-link.html"] == ["findings box links to rows the page does not have: ['claim-demo-C9']"]
