"""Citations ``[@key]`` (``[@a; @b]``) rendered live in marimo as they read on the site.

On the site, the exporter turns ``[@key]`` into MyST ``{cite}`` roles and sphinxcontrib-bibtex prints
them author–year (``[Xu et al., 2026]``, book/_config.yml). Live in marimo nothing would: the reader
saw ``[@xu2026grokking]``. When a chapter imports ``icmlbook`` inside a running marimo notebook,
``install_live_citations`` adds an inline pattern to marimo's markdown renderer (the one ``mo.md``
uses) that writes the same author–year text from the same ``book/bib/*.bib``, each name a link to the
paper (its ``url``, ``doi`` or arXiv identifier; the title as a tooltip). A key missing from the bib
files shows as ``[@key?]`` in red, as loudly as the site check fails on it.

marimo draws a cell that is only ``mo.md(...)`` when the kernel starts, before any cell runs (so
before a chapter imports ``icmlbook``); the install therefore also re-renders those prose cells that
cite and sends their output again, as marimo itself sends it. Edited later, a prose cell runs through
the renderer and its citations render by themselves.

marimo has no public hook for markdown extensions: this registers on the renderer marimo caches
(``marimo._output.md._get_markdown``) and re-sends outputs the way marimo's runtime does
(``CellNotificationUtils.broadcast_output``). If a marimo release moves them, the chapter still runs and
a warning says that citations are shown raw; ``tests/test_pipeline.py`` pins it for the installed marimo.
"""

from __future__ import annotations

import functools
import html
import re
import warnings
from pathlib import Path

from . import paths

CITE_PATTERN = r"\[(@[\w:.\-]+(?:\s*;\s*@[\w:.\-]+)*)\]"
_ARXIV = re.compile(r"(?:arXiv:?\s*|arxiv\.org/abs/)(\d{4}\.\d{4,5})(?:v\d+)?", re.I)
_INSTALLED = "icmlbook_citations"


def _plain(text: str) -> str:
    """BibTeX field text without braces and with LaTeX accents decoded."""
    import codecs

    import latexcodec  # noqa: F401  (registers the "ulatex" codec; pybtex depends on it)

    text = re.sub(r"\{(\\[^{}]+)\}", r"\1", text)  # {\"u} -> \"u, which the codec decodes
    try:
        text = codecs.decode(text, "ulatex")
    except ValueError:
        pass
    return re.sub(r"[{}]", "", text).strip()


@functools.lru_cache(maxsize=4)
def load_bibliography(bib_dir: str | None = None) -> dict[str, dict]:
    """key -> {"text": "Xu et al., 2026", "url": ..., "title": ...} for every entry of ``bib_dir/*.bib``
    (default book/bib)."""
    from pybtex.database import parse_string

    entries: dict[str, dict] = {}
    for f in sorted(Path(bib_dir or paths.ROOT / "book" / "bib").glob("*.bib")):
        db = parse_string(f.read_text(), "bibtex")
        for key, entry in db.entries.items():
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            last = [_plain(" ".join(p.prelast_names + p.last_names)) for p in people]
            truncated = bool(last) and last[-1].lower() == "others"   # "A and others": et al.
            last = [n for n in last if n.lower() != "others"]
            if not last:
                who = _plain(entry.fields.get("title", key))
            elif len(last) == 1 and not truncated:
                who = last[0]
            elif len(last) == 2 and not truncated:
                who = f"{last[0]} and {last[1]}"
            else:
                who = f"{last[0]} et al."
            year = entry.fields.get("year", "n.d.")
            entries[key] = {"text": f"{who}, {year}", "title": _plain(entry.fields.get("title", "")),
                            "url": paper_url(entry.fields)}
    return entries


def paper_url(fields) -> str | None:
    """Where the paper is: its url, else its DOI, else its arXiv identifier (eprint, note or journal)."""
    if fields.get("url"):
        return fields["url"]
    if fields.get("doi"):
        return f"https://doi.org/{fields['doi']}"
    if fields.get("eprint") and str(fields.get("archiveprefix", fields.get("archivePrefix", "arXiv"))).lower() == "arxiv":
        return f"https://arxiv.org/abs/{fields['eprint']}"
    for name in ("note", "journal", "howpublished", "eprint"):
        m = _ARXIV.search(str(fields.get(name, "")))
        if m:
            return f"https://arxiv.org/abs/{m.group(1)}"
    return None


def render_citation(keys: list[str], bib: dict[str, dict]) -> str:
    """``[Xu et al., 2026; Power et al., 2022]`` as HTML, each name linked to its paper."""
    parts = []
    for key in keys:
        e = bib.get(key)
        if e is None:
            parts.append(f'<span class="icml-cite-missing" style="color:#b00" title="{html.escape(key)} is not in '
                         f'book/bib/*.bib">@{html.escape(key)}?</span>')
        elif e["url"]:
            parts.append(f'<a class="icml-cite" href="{html.escape(e["url"])}" target="_blank" rel="noopener" '
                         f'title="{html.escape(e["title"])}">{html.escape(e["text"])}</a>')
        else:
            parts.append(f'<span class="icml-cite" title="{html.escape(e["title"])}">{html.escape(e["text"])}</span>')
    return "[" + "; ".join(parts) + "]"


def citations_to_html(text: str, bib: dict[str, dict] | None = None) -> str:
    """Replace every ``[@key]`` in ``text`` by its rendered citation (the pattern the renderer uses)."""
    bib = load_bibliography() if bib is None else bib
    return re.sub(CITE_PATTERN, lambda m: render_citation(_keys(m.group(1)), bib), text)


def _keys(group: str) -> list[str]:
    return [k.strip().lstrip("@") for k in group.split(";")]


def _extension():
    import markdown
    from markdown.inlinepatterns import InlineProcessor

    class CitationProcessor(InlineProcessor):
        def handleMatch(self, m, data):  # noqa: N802 - markdown's API
            html_text = render_citation(_keys(m.group(1)), load_bibliography())
            return self.md.htmlStash.store(html_text), m.start(0), m.end(0)

    class CitationExtension(markdown.Extension):
        def extendMarkdown(self, md):  # noqa: N802
            # before markdown's reference links ("[text]", priority 170) and links (160); code spans
            # (190) come first, so a citation inside backticks stays code
            md.inlinePatterns.register(CitationProcessor(CITE_PATTERN, md), _INSTALLED, 175)

    return CitationExtension()


def _rerender_prose_cells() -> None:
    """Send again the output of every pure-markdown cell that cites: marimo drew those at kernel start,
    before the pattern existed, and does not keep them in its graph. They are read back from the
    notebook's file; marimo's cell ids are deterministic (seeded, in file order), the loader's carry a
    prefix that is stripped."""
    from marimo._ast.load import load_app
    from marimo._messaging.cell_output import CellChannel
    from marimo._messaging.notification_utils import CellNotificationUtils
    from marimo._output.md import md
    from marimo._runtime.context import get_context

    filename = getattr(get_context(), "filename", None)
    if not filename:
        return
    app = load_app(filename)
    if app is None:
        return
    manager = app._cell_manager
    pattern = re.compile(CITE_PATTERN)
    for data in manager.cell_data():
        text = getattr(getattr(data.cell, "_cell", None), "markdown", None)
        if text and pattern.search(text):
            mimetype, html_text = md(text)._mime_()
            CellNotificationUtils.broadcast_output(channel=CellChannel.OUTPUT, mimetype=mimetype, data=html_text,
                                                   cell_id=data.cell_id[len(manager.prefix):], status="idle")


def install_live_citations() -> bool:
    """Register the citation pattern on marimo's markdown renderer, once per process. True if it is
    (now or already) installed; False outside a running marimo notebook."""
    from ..runtime.context import in_marimo

    if not in_marimo():
        return False
    try:
        from marimo._output import md as marimo_md

        renderer, lock = marimo_md._get_markdown()
        with lock:
            fresh = _INSTALLED not in renderer.inlinePatterns
            if fresh:
                _extension().extendMarkdown(renderer)
        if fresh:
            _rerender_prose_cells()
        return True
    except Exception as err:  # a marimo release that moved its renderer: say so, do not break the chapter
        warnings.warn(f"citations [@key] are shown raw in this marimo version ({type(err).__name__}: {err})",
                      stacklevel=2)
        return False
