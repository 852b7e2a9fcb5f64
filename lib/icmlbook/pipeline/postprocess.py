"""Our pass over an executed notebook, before the site is built.

- marimo UI elements (sliders, dropdowns, ...) are custom HTML elements that only marimo's front end
  draws; on the static site they would render as nothing. Each one is replaced by a static box with
  its label and current value and a hint that the control moves in the live notebook.
- a marimo markdown output (``mo.md(f"...")`` with computed numbers) is published from its
  ``text/markdown`` form, parsed as MyST like the prose cells, so its equations and tables render
  (marimo's HTML form marks math for its own front end only);
- a figure inside a marimo layout (``mo.vstack([fig, mo.md(...)])``) is a ``<marimo-mime-renderer>`` element
  holding the image's MIME bundle, which only marimo's front end draws; it is replaced by a plain ``<img>``
  (a bundle holding no image is left as it is).
- a callout (``mo.callout(...)``, a ``<marimo-callout-output>`` holding its content as an attribute) becomes a
  plain box with the same content, so a warning shown at build time is seen on the site.
- an image repeated within one cell's outputs is kept once.
- a cell whose output is a figure is tagged ``figure-output`` (the site check makes sure the page shows it);
- a glue cell with no output is removed from the page (it stays in the downloadable notebook);
- the cell papermill injects with the parameters is removed from the page (the provenance box
  states the profile and seed).
- what the run found (:mod:`icmlbook.runtime.findings`: the verdict counts and the rows answering the abstract,
  linked to the ledger's rows) is inserted right after the title, from the run record the chapter wrote at its
  end: the verdicts are computed last, the reader sees them first.
"""

from __future__ import annotations

import html
import json
import re

import nbformat

_UI = re.compile(
    r"<marimo-ui-element\b[^>]*>\s*<marimo-(?P<kind>[\w-]+)\b(?P<attrs>[^>]*)>.*?</marimo-(?P=kind)>\s*</marimo-ui-element>",
    flags=re.S,
)
_ATTR = re.compile(r"""(data-[\w-]+)=(?:'([^']*)'|"([^"]*)")""")
_TAG = re.compile(r"<[^>]+>")
_MARIMO_MD = re.compile(r'\s*<span class="markdown prose')
LIVE_HINT = "open the chapter live in marimo to move this control"
_MIME = re.compile(r"<marimo-mime-renderer\b(?P<attrs>[^>]*)>\s*</marimo-mime-renderer>", flags=re.S)
_IMAGE_TYPES = ("image/png", "image/svg+xml", "image/jpeg")
_CALLOUT = re.compile(r"<marimo-callout-output\b(?P<attrs>[^>]*)>\s*</marimo-callout-output>", flags=re.S)
_CALLOUT_COLOURS = {"warn": "#b7791f", "danger": "#c53030", "success": "#2f855a", "info": "#2b6cb0"}


def _decode(raw: str):
    text = html.unescape(raw)
    try:
        return json.loads(text)
    except ValueError:
        return text


def _static_control(match: re.Match) -> str:
    attrs = {m.group(1)[5:]: _decode(m.group(2) if m.group(2) is not None else m.group(3))
             for m in _ATTR.finditer(match.group("attrs"))}
    kind = match.group("kind")
    label = attrs.get("label") or kind
    label_text = _TAG.sub("", label if isinstance(label, str) else str(label)).strip() or kind
    value = attrs.get("initial-value", attrs.get("value", ""))
    if isinstance(value, list) and kind == "dropdown" and isinstance(attrs.get("options"), list):
        value = [attrs["options"][int(v)] if str(v).isdigit() and int(v) < len(attrs["options"]) else v
                 for v in value]
    steps = attrs.get("steps")
    if kind == "slider" and isinstance(steps, list) and steps and isinstance(value, int) and 0 <= value < len(steps):
        value = steps[value]  # a slider over explicit steps stores the index of the chosen step
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return (f'<div class="icml-static-control" title="{LIVE_HINT}" style="display:inline-block;margin:2px 8px 2px 0;'
            f'padding:2px 8px;border:1px dashed #999;border-radius:4px;font-size:0.9em">'
            f'{html.escape(label_text)}: <code>{html.escape(shown)}</code> '
            f'<span style="color:#777">({kind}; live in marimo)</span></div>')


def staticize_html(text: str) -> tuple[str, int]:
    """Replace every marimo UI element in ``text``; return the new text and how many were replaced."""
    return _UI.subn(_static_control, text)


def _static_image(match: re.Match) -> str:
    attrs = {m.group(1)[5:]: _decode(m.group(2) if m.group(2) is not None else m.group(3))
             for m in _ATTR.finditer(match.group("attrs"))}
    mime, data = attrs.get("mime"), attrs.get("data")
    if mime == "application/vnd.marimo+mimebundle" and isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return match.group(0)
    elif mime in _IMAGE_TYPES and isinstance(data, str):
        data = {mime: data}
    if not isinstance(data, dict):
        return match.group(0)
    for kind in _IMAGE_TYPES:
        src = data.get(kind)
        if isinstance(src, str):
            if not src.startswith("data:"):
                src = f"data:{kind};base64,{src}" if kind != "image/svg+xml" else None
            if src is None:
                return f'<div class="icml-figure">{data[kind]}</div>'
            size = (data.get("__metadata__") or {}).get(kind) or {}
            width = f' width="{int(size["width"])}"' if isinstance(size.get("width"), (int, float)) else ""
            return f'<img class="icml-figure" alt="figure" style="max-width:100%;height:auto" src="{src}"{width}>'
    return match.group(0)


def staticize_figures(text: str) -> tuple[str, int]:
    """Replace every marimo MIME renderer holding an image by an ``<img>``; return the text and the count."""
    count = 0

    def replace(match: re.Match) -> str:
        nonlocal count
        new = _static_image(match)
        count += new != match.group(0)
        return new

    return _MIME.sub(replace, text), count


def _static_callout(match: re.Match) -> str:
    attrs = {m.group(1)[5:]: _decode(m.group(2) if m.group(2) is not None else m.group(3))
             for m in _ATTR.finditer(match.group("attrs"))}
    content = attrs.get("html")
    if not isinstance(content, str):
        return match.group(0)
    kind = attrs.get("kind") if isinstance(attrs.get("kind"), str) else "neutral"
    colour = _CALLOUT_COLOURS.get(kind, "#718096")
    return (f'<div class="icml-callout icml-callout-{html.escape(kind)}" style="border-left:4px solid {colour};'
            f'padding:4px 10px;margin:6px 0;background:#f7f7f7">{content}</div>')


def staticize_callouts(text: str) -> tuple[str, int]:
    """Replace every marimo callout by a plain box with its content; return the text and the count."""
    return _CALLOUT.subn(_static_callout, text)


FINDINGS_MARK = "findings-box"
#: the tag of a cell whose output is a figure: the site shows it as the class ``tag_figure-output``, and the site
#: check (tests/sitecheck.py) fails a page where such a cell shows no image or plotly figure
FIGURE_TAG = "figure-output"
_PLOTLY_TYPES = ("application/vnd.plotly.v1+json",)
_FIGURE_HTML = re.compile(r"<img\b|plotly-graph-div")


def is_figure_output(out: dict) -> bool:
    """True when a cell's output is (or holds) a figure: an image, a plotly figure, or HTML holding either."""
    data = out.get("data", {})
    if any(k in data for k in _IMAGE_TYPES + _PLOTLY_TYPES):
        return True
    text = data.get("text/html", "")
    return bool(_FIGURE_HTML.search("".join(text) if isinstance(text, list) else text))


def add_tag(cell, tag: str) -> None:
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def insert_findings(nb: nbformat.NotebookNode, record: dict) -> nbformat.NotebookNode:
    """Put the findings box of ``record`` (a run record: chapter, profile, seed, claims, abstract) in a markdown
    cell right after the title cell, replacing one inserted before."""
    from ..runtime.findings import findings_from_record

    nb.cells = [c for c in nb.cells if c.metadata.get("icmlbook") != FINDINGS_MARK]
    title = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
                  and re.search(r"^#\s+\S", c.source, flags=re.M)), None)
    if title is None:
        raise ValueError("the notebook has no '# Title' markdown cell to put the findings box under")
    # one line of raw HTML: a markdown parser passes an HTML block through up to the first blank line
    box = nbformat.v4.new_markdown_cell(findings_from_record(record).replace("\n", " "))
    box.metadata["icmlbook"] = FINDINGS_MARK
    box["id"] = "findings-box"
    nb.cells.insert(title + 1, box)
    return nb


def postprocess_notebook(nb: nbformat.NotebookNode, record: dict | None = None) -> nbformat.NotebookNode:
    """Our pass (the module docstring); with the chapter's run ``record``, the findings box under the title."""
    if record is not None:
        insert_findings(nb, record)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell.metadata.setdefault("tags", []).append("remove-cell")
        seen_images: set[str] = set()
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data:
                text = data["text/html"]
                text = "".join(text) if isinstance(text, list) else text
                if "text/markdown" in data and _MARIMO_MD.match(text):
                    from .export import separate_display_math

                    md = data["text/markdown"]
                    data["text/markdown"] = separate_display_math("".join(md) if isinstance(md, list) else md)
                    data.pop("text/html")
                    kept.append(out)
                    continue
                text, n_fig = staticize_figures(text)
                text, n_callout = staticize_callouts(text)
                if n_fig or n_callout:
                    data["text/html"] = text
                new, n = staticize_html(text)
                if n:
                    data["text/html"] = new + (
                        '<div class="icml-live-hint" style="font-size:0.8em;color:#666">'
                        'These are the values this page was built with; open the chapter live in marimo to move them.</div>')
                    data.pop("text/markdown", None)
            image = data.get("image/png") or data.get("image/svg+xml")
            if image is not None:
                key = "".join(image) if isinstance(image, list) else image
                if key in seen_images:
                    continue
                seen_images.add(key)
            kept.append(out)
        cell["outputs"] = kept
        if any(is_figure_output(o) for o in kept):
            add_tag(cell, FIGURE_TAG)
        tags = cell.metadata.get("tags", [])
        if not kept and "hide-input" in tags:
            tags.append("remove-cell")  # glue without output: in the notebook download, not on the page
    return nb
