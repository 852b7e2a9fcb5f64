"""The built site, opened in headless Chromium (Debian's package) from a local server, every page of it: no
element only marimo draws, no figure cell without its figure, no error output, no request leaving the machine
(external requests are recorded and blocked); every chapter page shows its title in the navigation, the findings
box at its top (linked to the ledger's rows), its figures loaded, its claims table and provenance box."""

from __future__ import annotations

import pytest

from icmlbook.pipeline.site import load_plan
from tests.conftest import chapters_under_test
from icmlbook.runtime.findings import abstract_coverage
from tests.sitecheck import chromium_path, inspect_pages, page_problems, site_pages

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pages(smoke_book):
    if chromium_path() is None:
        pytest.fail("chromium is not installed: `make browser` installs Debian's package")
    site = smoke_book["site"]
    names = site_pages(site)
    expected = ["intro.html", "scoreboard.html", "build-report.html", "bibliography.html"]
    expected += [f"parts/{p['slug']}.html" for p in load_plan()["parts"]]
    expected += [f"chapters/{s}.html" for s in chapters_under_test()]
    assert set(expected) <= set(names), set(expected) - set(names)
    return inspect_pages(site, names)


def test_every_page_passes_what_a_reader_would_check(pages):
    """On every page of the site: no marimo element left, no figure cell without a figure, no error output, no
    broken image, nothing fetched from outside; on a chapter page, the findings box at the top."""
    found = {name: page_problems(info, chapter=name.startswith("chapters/")) for name, info in pages.items()}
    assert {k: v for k, v in found.items() if v} == {}


def test_no_request_leaves_the_machine(pages):
    for name, info in pages.items():
        assert info["external_requests"] == [], (name, info["external_requests"])
        assert info["failed_requests"] == [], (name, info["failed_requests"])


def test_site_has_no_cdn_reference(smoke_book):
    import re

    site = smoke_book["site"]
    for html in site.rglob("*.html"):
        text = html.read_text(errors="ignore")
        remote = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert remote == [], (html.name, remote)


@pytest.mark.parametrize("slug", chapters_under_test())
def test_chapter_page(pages, slug, smoke_book):
    info = pages[f"chapters/{slug}.html"]
    assert info["h1"].strip().rstrip("#"), "no title"
    title = info["h1"].strip().rstrip("#").strip()
    assert title in info["nav"], f"chapter title {title!r} missing from the navigation {info['nav']}"
    assert info["images"] >= 2 and info["images_broken"] == []
    assert info["claims_tables"] == 1
    assert len(info["verdict_cells"]) == len(smoke_book["records"][slug]["claims"])
    assert info["provenance"] == 1
    assert info["math_rendered"] > 0
    assert info["plotly_divs"] == info["plotly_rendered"]  # every plotly figure drew itself
    assert page_problems(info, chapter=True) == []
    # the findings box: one line per ledger row that answers a sentence of the abstract
    covering = {i for _, ids in abstract_coverage(slug) for i in ids}
    ledger_ids = {c["id"] for c in smoke_book["records"][slug]["claims"]}
    assert info["findings_lines"] == len(covering) and covering <= ledger_ids
    assert info["empty_citations"] == 0, "a [@key] citation did not resolve (key missing from book/bib/<slug>.bib?)"


def test_generated_pages(pages, smoke_book):
    board = pages["scoreboard.html"]
    assert board["claims_tables"] == len(smoke_book["records"])   # one per chapter, grouped
    total = sum(len(r["claims"]) for r in smoke_book["records"].values())
    assert len(board["verdict_cells"]) == total
    assert pages["build-report.html"]["h1"].startswith("Build report")
    parts = [p["title"] for p in load_plan()["parts"]]
    assert all(p in pages["intro.html"]["nav"] for p in parts)


def test_no_table_overflows_its_container(pages):
    """At a 1280 px window every table on every generated page fits its column (wrapping), none clipped."""
    assert pages["scoreboard.html"]["tables"] >= 2 and pages["build-report.html"]["tables"] >= 1
    clipped = {name: info["tables_overflowing"] for name, info in pages.items() if info["tables_overflowing"]}
    assert clipped == {}, clipped
