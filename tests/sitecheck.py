"""Open the built site in headless Chromium (Debian's package), served from localhost, at a 1280 px window,
and report what a reader would see: per page the title, images loaded, claims tables, tables wider than
their container, elements only marimo draws, figure cells that show no figure, error outputs, the findings box
at the top of a chapter, and every request that tried to leave the machine (:func:`page_problems` names what is
wrong). Used by tests/test_site.py; also a command: python -m tests.sitecheck [SITE_DIR] [PNG_DIR]."""

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
                # collapsed blocks (the scoreboard's chapters) are opened, so their tables are measured too
                page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
                page.wait_for_timeout(300)
                info = page.evaluate(r"""() => {
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
                    // custom elements only marimo's front end draws: blank on the static site (anywhere in the page)
                    marimo_elements: Array.from(new Set(Array.from(document.querySelectorAll('*'))
                      .map(e => e.tagName.toLowerCase()).filter(t => t.startsWith('marimo-')))),
                    // cells with an error output: a traceback (MyST-NB's error output), an error-classed output, a
                    // stderr stream that reports an exception, or a traceback's text anywhere in the cell's outputs
                    error_outputs: Array.from(document.querySelectorAll('.cell_output')).filter(o =>
                      o.querySelector('.traceback, .output.error, .output_error')
                      || /Traceback \(most recent call last\)/.test(o.textContent)
                      || Array.from(o.querySelectorAll('.stderr')).some(e => /^\s*\w*(Error|Exception)\b/m.test(e.textContent))).length,
                    // a figure cell: the notebook's output was a figure (the post-processing tags the cell), its
                    // output is a figure's text form or a plotly wrapper, or a caption paragraph follows it: it must
                    // show a loaded image, an inline SVG or a drawn plotly figure. A caption in a cell's output
                    // ("*Figure: ...*", computed) needs a drawn figure in that cell or in the cell just before it.
                    blank_figures: (() => {
                      const caption = t => /^\s*Figures?\b\s*[:.(]/.test(t || '');
                      const drawn = cell => {
                        const out = cell && cell.matches('div.cell') && cell.querySelector('.cell_output');
                        return !!out && (
                          Array.from(out.querySelectorAll('img')).some(im => im.complete && im.naturalWidth > 0 && im.getBoundingClientRect().width > 0)
                          || Array.from(out.querySelectorAll('.plotly-graph-div')).some(d => d.querySelector('.main-svg'))
                          || Array.from(out.querySelectorAll('svg')).some(g => !g.closest('mjx-container, .plotly-graph-div')
                               && g.getBoundingClientRect().width > 20 && g.getBoundingClientRect().height > 20));
                      };
                      return Array.from(document.querySelectorAll('article div.cell')).map((cell, i) => {
                        const out = cell.querySelector('.cell_output');
                        const next = cell.nextElementSibling, prev = cell.previousElementSibling;
                        const reasons = [];
                        if (cell.classList.contains('tag_figure-output')) reasons.push('the notebook output a figure');
                        if (next && !next.matches('div.cell') && caption(next.textContent)) reasons.push('a figure caption follows it');
                        if (out && Array.from(out.querySelectorAll('pre, .output.text_plain')).some(e =>
                          /^\s*(<Figure size|<plotly figure|<matplotlib\.figure|Figure\(\{)/.test(e.textContent)))
                          reasons.push('its output is a figure written as text');
                        if (out && out.querySelector('.plotly-output')) reasons.push('it holds a plotly figure');
                        const captioned = out && Array.from(out.querySelectorAll('em, p, figcaption, i'))
                          .some(e => caption(e.textContent));
                        if (drawn(cell)) return null;
                        if (captioned && !drawn(prev)) reasons.push('its output has a figure caption, and no figure is above it');
                        if (!reasons.length) return null;
                        const input = cell.querySelector('.cell_input');
                        return {cell: i, why: reasons.join('; '),
                                source: ((input && input.textContent) || '').trim().slice(0, 120)};
                      }).filter(x => x);
                    })(),
                    findings_boxes: document.querySelectorAll('.findings-box').length,
                    // the box opens the page: after the title, before every section heading
                    findings_first: (() => {
                      const box = document.querySelector('article .findings-box');
                      const h1 = document.querySelector('article h1');
                      if (!box || !h1) return false;
                      const after = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
                      return after(h1, box) && Array.from(document.querySelectorAll('article h2')).every(h => after(box, h));
                    })(),
                    findings_lines: document.querySelectorAll('.findings-box li.findings-claim').length,
                    findings_links_broken: Array.from(document.querySelectorAll('.findings-box a[href^="#"]'))
                      .map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id)),
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


def site_pages(site: Path) -> list[str]:
    """Every HTML page of a built site (not the static assets or the sources' copies)."""
    return [p.relative_to(site).as_posix() for p in sorted(site.rglob("*.html"))
            if not {"_static", "_sources", "_images"} & set(p.relative_to(site).parts)]


def page_problems(info: dict, chapter: bool = False) -> list[str]:
    """What a reader would find wrong on a page, from :func:`inspect_pages`' report (empty when nothing): an element
    only marimo draws (blank here), a figure cell showing no figure, an error output, a broken image, a request
    leaving the machine; on a chapter page also the findings box missing, not at the top, or linking nowhere."""
    out = []
    if info["marimo_elements"]:
        out.append(f"elements only marimo's front end draws (blank here): {info['marimo_elements']}")
    for fig in info["blank_figures"]:
        out.append(f"figure cell #{fig['cell']} shows no image or plotly figure ({fig['why']}): {fig['source']!r}")
    if info["error_outputs"]:
        out.append(f"{info['error_outputs']} cell(s) with an error output")
    if info["images_broken"]:
        out.append(f"images that did not load: {info['images_broken']}")
    if info["external_requests"] or info["failed_requests"]:
        out.append(f"requests off the machine or failed: {info['external_requests'] + info['failed_requests']}")
    if chapter:
        if info["findings_boxes"] != 1:
            out.append(f"{info['findings_boxes']} findings boxes (one at the top of every chapter)")
        elif not info["findings_first"]:
            out.append("the findings box is not at the top (after the title, before the first section)")
        if info["findings_links_broken"]:
            out.append(f"findings box links to rows the page does not have: {info['findings_links_broken']}")
        if info["provenance"] != 1:
            out.append(f"{info['provenance']} provenance boxes")
    return out


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "book/_build/html")
    shots = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    report = inspect_pages(site, site_pages(site), shots)
    for name, info in report.items():
        info["problems"] = page_problems(info, chapter=name.startswith("chapters/"))
    print(json.dumps(report, indent=1))
    sys.exit(1 if any(info["problems"] for info in report.values()) else 0)
