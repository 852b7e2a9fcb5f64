"""Export: a marimo chapter becomes a Jupyter notebook ready for papermill and Jupyter Book.

``marimo export ipynb --sort topological`` does the conversion (it keeps each cell's name in
``metadata.marimo.name`` and turns a cell that is only a ``mo.md(r"...")`` literal into a markdown
cell). Our pass over the cells then:

- inserts a hidden kernel set-up cell (inline figures, the book's style, no auto-displayed pyplot
  figures, so a figure appears once);
- tags the cell named ``parameters`` for papermill (it stays visible: it is the chapter's knob panel);
- rewrites ``[@key]`` citations in prose cells as MyST ``{cite}`` roles for the bibliography;
- inserts, after the title cell, a box with the command that opens the chapter live;
- removes from the page the cell named ``findings`` (the live notebook's box of verdicts: the site's comes from
  the run record, see :mod:`icmlbook.pipeline.postprocess`);
- hides the input of code cells (a "show code" toggle on the site) and removes import-only cells.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from . import paths

#: the name of the chapter's cell that shows what the run found (live in marimo, right after the title)
FINDINGS_CELL = "findings"
SETUP_SOURCE = "%matplotlib inline\nfrom icmlbook.pipeline.kernel import setup_kernel\nsetup_kernel()"

_CITE = re.compile(r"\[(@[\w:.\-]+(?:\s*;\s*@[\w:.\-]+)*)\]")


def separate_display_math(text: str) -> str:
    """Put a blank line before a ``$$`` block that follows text and after one that text follows: MyST reads
    ``$$`` inside a paragraph as inline math, which swallows the prose after it."""
    lines = text.split("\n")
    out: list[str] = []
    inside = False
    for i, line in enumerate(lines):
        fence = line.strip() == "$$"
        if fence and not inside:
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            inside = True
            continue
        if fence and inside:
            out.append(line)
            inside = False
            if i + 1 < len(lines) and lines[i + 1].strip():
                out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def citations_to_myst(text: str) -> str:
    """``[@a]`` -> ``{cite}`a` `` and ``[@a; @b]`` -> ``{cite}`a,b` ``."""
    def repl(m: re.Match) -> str:
        keys = [k.strip().lstrip("@") for k in m.group(1).split(";")]
        return "{cite}`" + ",".join(keys) + "`"
    return _CITE.sub(repl, text)


def is_import_only(source: str) -> bool:
    """True for a cell made only of import statements (nothing worth showing on the page)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return bool(tree.body) and all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in tree.body)


def live_box(slug: str) -> str:
    return (
        "```{tip}\n"
        "**Read this chapter live.** In a clone of the book's repository, "
        f"`make live CHAPTER={slug}` (or `marimo edit chapters/{slug}.py`) opens it as a reactive "
        "notebook whose sliders re-run the cells they affect. Run it as the site did with "
        f"`make book CHAPTERS={slug}`; the download button at the top of this page gives the executed "
        "notebook.\n"
        "```"
    )


def add_tags(cell, *tags: str) -> None:
    existing = cell.metadata.setdefault("tags", [])
    for t in tags:
        if t not in existing:
            existing.append(t)


def marimo_to_ipynb(source: Path, target: Path) -> None:
    """Run marimo's exporter (topological order) from ``source`` to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "marimo", "export", "ipynb", str(source), "-o", str(target),
         "--sort", "topological", "--force"],
        capture_output=True, text=True,
    )
    if proc.returncode != 0 or not target.exists():
        raise RuntimeError(f"marimo export of {source} failed:\n{proc.stdout}\n{proc.stderr}")


def prepare_notebook(nb: nbformat.NotebookNode, slug: str) -> nbformat.NotebookNode:
    """Our pass over an exported notebook (see the module docstring). Returns ``nb`` modified."""
    nb.metadata["kernelspec"] = {"name": paths.KERNEL_NAME, "display_name": "ICML book (Python 3)",
                                 "language": "python"}
    nb.metadata["icmlbook"] = {"chapter": slug}
    n_params = 0
    title_index = None
    for i, cell in enumerate(nb.cells):
        name = cell.metadata.get("marimo", {}).get("name")
        if cell.cell_type == "markdown":
            cell.source = separate_display_math(citations_to_myst(cell.source))
            if title_index is None and re.search(r"^#\s+\S", cell.source, flags=re.M):
                title_index = i
            continue
        if name == "parameters":
            add_tags(cell, "parameters")
            n_params += 1
        elif name == FINDINGS_CELL:
            # the live notebook's box of verdicts; on the site the post-processing puts the same box, from the
            # run record, under the title (this cell runs after the ledger, at the end of the executed notebook)
            add_tags(cell, "remove-cell")
        elif is_import_only(cell.source):
            add_tags(cell, "remove-cell")
        else:
            add_tags(cell, "hide-input")
    if n_params != 1:
        raise ValueError(f"chapter {slug!r} must have exactly one cell named 'parameters' (found {n_params})")
    if title_index is None:
        raise ValueError(f"chapter {slug!r} has no '# Title' markdown cell: the page would have no title")
    box = nbformat.v4.new_markdown_cell(live_box(slug))
    box.metadata["icmlbook"] = "live-box"
    nb.cells.insert(title_index + 1, box)
    setup = nbformat.v4.new_code_cell(SETUP_SOURCE)
    add_tags(setup, "remove-cell")
    setup.metadata["icmlbook"] = "kernel-setup"
    nb.cells.insert(0, setup)
    # nbformat wants ids; marimo's export may omit them
    for j, cell in enumerate(nb.cells):
        cell.setdefault("id", f"cell-{j}")
    return nb


def export_chapter(slug: str, out_dir: Path | None = None) -> Path:
    """Export ``chapters/<slug>.py`` to ``out_dir/<slug>.ipynb`` with our pass applied."""
    source = paths.chapter_source(slug)
    if not source.exists():
        raise FileNotFoundError(f"no chapter source {source}")
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / f"{slug}.ipynb"
        marimo_to_ipynb(source, raw)
        nb = nbformat.read(raw, as_version=4)
    nb = prepare_notebook(nb, slug)
    target = (out_dir or paths.exported_dir()) / f"{slug}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    nbformat.write(nb, target)
    return target
