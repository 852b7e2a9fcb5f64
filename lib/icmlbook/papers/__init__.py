"""One package per paper of the book (``icmlbook.papers.<slug>``), apart from the shared packages above
(``icmlbook.runtime``, ``icmlbook.pipeline``, ``icmlbook.training``, ``icmlbook.lm``).

Import a paper's package by name: ``from icmlbook.papers import grokking as gk``. This module imports
none of them, so loading one chapter never loads the other eighteen.
"""
