"""Benchmarks (``make bench``), never part of the tests. One module per chapter, ``bench_<slug>.py``,
each defining functions named ``bench_*`` that return a ``BenchResult``."""
