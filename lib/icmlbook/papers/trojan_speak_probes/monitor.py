r"""Output-text monitors: what a deployed output classifier sees (the answer text only).

- :class:`TextMonitor`: TF-IDF over character n-grams (``char_wb``, 2-5) and word n-grams (1-2), then an
  L2-regularised logistic regression (scikit-learn), trained on **plain** answers only, as a monitor that
  predates the format change would be (dossier section 3.3). Its threshold is set on plain negatives at a
  target false-positive rate (:func:`.metrics.threshold_at_fpr`): the deployment threshold.
- :class:`KeywordMonitor`: the count of the monitored topic's words in the text (a keyword list; no training).
- :class:`LengthMonitor`: the answer's length in characters, a monitor that does not read the content (the
  baseline beside the monitor's check on plain answers).
- The **adaptive** monitor is a :class:`TextMonitor` retrained on plain and encoded answers (a check on the page):
  an upper bound that needs examples of the new format, which a deployed monitor does not have.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from .metrics import check_two_classes
from .world import LEXICON, TOPICS, check_topic

__all__ = ["TextMonitor", "KeywordMonitor", "LengthMonitor"]


class TextMonitor:
    """TF-IDF (char 2-5 + word 1-2) -> logistic regression with inverse regularisation ``C``."""

    def __init__(self, C: float = 10.0):
        if not C > 0:
            raise ValueError(f"C={C!r} is not allowed; it must be > 0")
        self.C = float(C)

    def fit(self, texts: Sequence[str], y) -> TextMonitor:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion, make_pipeline

        y = check_two_classes(np.asarray(y).astype(int), "monitor labels")
        features = FeatureUnion([
            ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True)),
            ("word", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), token_pattern=r"[a-z]+", sublinear_tf=True)),
        ])
        self.pipeline_ = make_pipeline(features, LogisticRegression(C=self.C, max_iter=2000))
        self.pipeline_.fit(list(texts), y)
        return self

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """The logit of the monitored class, (N,)."""
        return self.pipeline_.decision_function(list(texts)).astype(float)


class KeywordMonitor:
    """Counts the words of ``topic``'s lexicon in the text (exact lower-case word matches)."""

    def __init__(self, topic: str):
        self.topic = TOPICS[check_topic(topic)]
        self.words = frozenset(LEXICON[self.topic])

    def fit(self, texts=None, y=None) -> KeywordMonitor:
        return self

    def score(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([sum(w in self.words for w in re.findall(r"[a-z]+", t)) for t in texts], dtype=float)


class LengthMonitor:
    """Scores an answer by its length: reads no content (a baseline beside the monitor's plain check)."""

    def fit(self, texts=None, y=None) -> LengthMonitor:
        return self

    def score(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([len(t) for t in texts], dtype=float)
