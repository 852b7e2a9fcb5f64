"""ICML 2026, reimplemented: the shared library behind the book's chapters.

``icmlbook.runtime`` holds what every chapter uses (profiles, device, seeding, progress bars, the
content-addressed cache, the claims ledger, figure style, run records); ``icmlbook.pipeline`` turns
marimo chapters into executed notebooks and a static site; one subpackage per paper holds that
paper's method (``icmlbook.papers.grokking``, ...).
"""

__version__ = "0.1.0"


def _live_citations() -> None:
    """Inside a running marimo notebook, ``[@key]`` citations render author–year as on the site
    (icmlbook.pipeline.citations); elsewhere nothing happens."""
    import sys

    if "marimo" in sys.modules:
        from .pipeline.citations import install_live_citations

        install_live_citations()


_live_citations()
