"""Tests of the paper packages, one file per paper (``tests/papers/test_<slug>.py``)."""
