"""Open the built site in headless Chromium (Debian's package), served from localhost, at a 1280 px window,
and report what a reader would see: per page the title, images loaded, claims tables, tables wider than
their container, and every request that tried to leave the machine. Used by tests/test_site.py; also a command: python -m tests.sitecheck [SITE_DIR] [PNG_DIR]."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@contextlib.contextmanager
def serve(directory: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def inspect_pages(site: Path, pages: list[str], screenshot_dir: Path | None = None) -> dict[str, dict]:
    """Load each page; external requests are recorded and blocked (the site must not need them)."""
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    if exe is None:
        raise RuntimeError("no chromium on PATH (make browser installs Debian's package)")
    results: dict[str, dict] = {}
    with serve(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        try:
            for page_path in pages:
                external: list[str] = []
                failed: list[str] = []
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()

                def route(r, external=external):
                    host = urlparse(r.request.url).hostname or ""
                    if r.request.url.startswith(("data:", "blob:", "about:")) or host in LOCAL_HOSTS:
                        return r.continue_()
                    external.append(r.request.url)
                    return r.abort()

                page.route("**/*", route)
                page.on("requestfailed", lambda req, failed=failed: failed.append(req.url))
                console_errors: list[str] = []
                page.on("console", lambda m, ce=console_errors: ce.append(m.text) if m.type == "error" else None)
                page.goto(f"{base}/{page_path}", wait_until="networkidle", timeout=120_000)
                page.wait_for_function("document.readyState === 'complete'", timeout=60_000)
                if page_path.startswith("chapters/"):
                    # the provenance box is the last output of a chapter: the whole page is there
                    try:
                        page.wait_for_selector(".provenance-box", state="attached", timeout=30_000)
                    except Exception:
                        pass  # reported as missing below
                page.wait_for_timeout(1500)  # MathJax and plotly render after load
                info = page.evaluate("""() => {
                  const imgs = Array.from(document.querySelectorAll('article img'));
                  return {
                    title: document.title,
                    h1: (document.querySelector('article h1') || {}).textContent || '',
                    nav: Array.from(document.querySelectorAll('nav.bd-links a, nav.bd-links .caption-text')).map(a => a.textContent.trim()),
                    images: imgs.length,
                    images_broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80)),
                    claims_tables: document.querySelectorAll('table.claims-table').length,
                    verdict_cells: Array.from(document.querySelectorAll('table.claims-table td b')).map(b => b.textContent),
                    provenance: document.querySelectorAll('.provenance-box').length,
                    plotly_divs: document.querySelectorAll('.plotly-graph-div').length,
                    plotly_rendered: Array.from(document.querySelectorAll('.plotly-graph-div')).filter(d => d.querySelector('.main-svg')).length,
                    math_rendered: document.querySelectorAll('mjx-container').length,
                    static_controls: document.querySelectorAll('.icml-static-control').length,
                    // custom elements only marimo's front end draws: blank on the static site
                    marimo_elements: Array.from(new Set(Array.from(document.querySelectorAll('article *'))
                      .map(e => e.tagName.toLowerCase()).filter(t => t.startsWith('marimo-')))),
                    error_outputs: document.querySelectorAll('.output.traceback, .cell_output .traceback').length,
                    empty_citations: Array.from(document.querySelectorAll('.bibtex-citation')).filter(c => c.textContent.trim() === '[]').length,
                    // a table wider than its container (the nearest horizontal scroll box, else the article's
                    // content box) is clipped for the reader: columns hidden or behind a scrollbar at its foot
                    tables: document.querySelectorAll('article table').length,
                    tables_overflowing: Array.from(document.querySelectorAll('article table')).map(t => {
                      const art = document.querySelector('article');
                      const cs = getComputedStyle(art);
                      const content = art.getBoundingClientRect().right - parseFloat(cs.paddingRight);
                      let box = t.parentElement;
                      while (box && box !== art) {
                        const ox = getComputedStyle(box).overflowX;
                        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden') break;
                        box = box.parentElement;
                      }
                      const limit = (box && box !== art) ? Math.min(box.clientWidth, box.getBoundingClientRect().right - t.getBoundingClientRect().left)
                                                         : content - t.getBoundingClientRect().left;
                      const width = Math.max(t.getBoundingClientRect().width, t.scrollWidth);
                      return {table: (t.className || 'table') + ' #' + Array.from(document.querySelectorAll('article table')).indexOf(t),
                              width: Math.round(width), container: Math.round(limit)};
                    }).filter(x => x.width > x.container + 1),
                  };
                }""")
                info.update(external_requests=external, failed_requests=failed, console_errors=console_errors)
                if screenshot_dir is not None:
                    screenshot_dir.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(screenshot_dir / (page_path.replace("/", "_") + ".png")), full_page=False)
                results[page_path] = info
                context.close()
        finally:
            browser.close()
    return results


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "book/_build/html")
    shots = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    pages = [str(p.relative_to(site)) for p in sorted(site.rglob("*.html")) if "_static" not in p.parts
             and p.name not in ("genindex.html", "search.html")]
    print(json.dumps(inspect_pages(site, pages, shots), indent=1))
