"""ICML 2026, reimplemented: the shared library behind the book's chapters.

``icmlbook.runtime`` holds what every chapter uses (profiles, device, seeding, progress bars, the
content-addressed cache, the claims ledger, figure style, run records); ``icmlbook.pipeline`` turns
marimo chapters into executed notebooks and a static site; one subpackage per paper holds that
paper's method (``icmlbook.grokking``, ...).
"""

__version__ = "0.1.0"
