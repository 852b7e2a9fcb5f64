"""Where the pipeline reads and writes.

Sources are read from the repository; generated output goes under ``book/`` (executed chapters, the
generated pages, the site) unless ``ICMLBOOK_BOOK_DIR`` points to another copy of the book's pages,
which the tests use to build a throw-away site without touching the reader's one.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHAPTERS = ROOT / "chapters"            # marimo sources, the only source of a chapter
CONFIG = ROOT / "_config.yml"
KERNEL_NAME = "icmlbook"
BOOK_ENV = "ICMLBOOK_BOOK_DIR"


def book_dir() -> Path:
    return Path(os.environ.get(BOOK_ENV) or ROOT / "book")


def build_dir() -> Path:
    return book_dir().parent / "build" if os.environ.get(BOOK_ENV) else ROOT / "build"


def exported_dir() -> Path:
    return build_dir() / "notebooks"     # unexecuted notebooks exported from marimo


def executed_dir() -> Path:
    return book_dir() / "chapters"       # executed notebooks and their run records (generated)


def static_dir() -> Path:
    return book_dir() / "_static"


def vendor_dir() -> Path:
    """Third-party assets served by the site (MathJax): not under _static, whose .js files Jupyter Book
    includes in every page."""
    return book_dir() / "_vendor"


def site_dir() -> Path:
    return book_dir() / "_build" / "html"


def toc_path() -> Path:
    return book_dir() / "_toc.yml"       # generated from book/book.yml and the executed chapters


def plan_path() -> Path:
    return book_dir() / "book.yml"       # the parts and the order of chapters


def chapter_source(slug: str) -> Path:
    return CHAPTERS / f"{slug}.py"


def record_path(slug: str, directory: Path | None = None) -> Path:
    return (directory or executed_dir()) / f"{slug}.record.json"
