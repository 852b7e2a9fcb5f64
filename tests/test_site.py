"""The built site, opened in headless Chromium (Debian's package) from a local server: every chapter page
shows its title in the navigation, its figures loaded, its claims table and provenance box, and no
request leaves the machine (external requests are recorded and blocked)."""

from __future__ import annotations

import pytest

from icmlbook.pipeline.site import load_plan
from tests.conftest import chapters_under_test
from tests.sitecheck import chromium_path, inspect_pages

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pages(smoke_book):
    if chromium_path() is None:
        pytest.fail("chromium is not installed: `make browser` installs Debian's package")
    site = smoke_book["site"]
    names = ["intro.html", "scoreboard.html", "build-report.html", "bibliography.html"]
    names += [f"parts/{p['slug']}.html" for p in load_plan()["parts"]]
    names += [f"chapters/{s}.html" for s in chapters_under_test()]
    return inspect_pages(site, names)


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
    assert info["error_outputs"] == 0
    assert info["marimo_elements"] == [], f"elements only marimo's front end draws (blank here): {info['marimo_elements']}"
    assert info["empty_citations"] == 0, "a [@key] citation did not resolve (key missing from book/bib/<slug>.bib?)"


def test_generated_pages(pages, smoke_book):
    board = pages["scoreboard.html"]
    assert board["claims_tables"] == 1
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
