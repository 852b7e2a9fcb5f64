r"""The digit world of the paper's controlled experiment (Berthon, Astorga & van der Schaar, "Skill Neologisms",
ICML 2026, arXiv 2605.04970, section 5; the task and its generators follow the official code exactly, except
where a docstring says otherwise).

A sample is ``OPS DIGITS = RESULT``: ``OPS`` is a sequence of operation tokens applied **left to right** to the
digit string ``DIGITS`` = :math:`s_1\dots s_n`. Nine operations, seven known to the base model and two new skills:

=====================  ==========  ================================================================
token                  role        definition
=====================  ==========  ================================================================
``[ASC]``              pretrain    sort the digits ascending
``[DESC]``             pretrain    sort the digits descending
``[ADD]``              pretrain    :math:`s_i \mapsto (s_i + 1) \bmod 10`
``[SUB]``              pretrain    :math:`s_i \mapsto (s_i - 1) \bmod 10`
``[POLARITY]``         pretrain    :math:`s_i \mapsto s_i \bmod 2` (0 if even, 1 if odd)
``[REVERSE]``          pretrain    reverse the string
``[ID]``               pretrain    identity
``[SHIFT_RIGHT]``      new skill   rotate right by one: :math:`s_n s_1 \dots s_{n-1}`
``[INVERT_POLARITY]``  new skill   :math:`s_i \mapsto 1 - (s_i \bmod 2)` (1 if even, 0 if odd)
=====================  ==========  ================================================================

Every operation keeps the length, so the answer has as many digits as the input.

Generators (all vectorised over a batch, all driven by a ``numpy.random.Generator``):

- :func:`sample_pretraining`: the base model's data, ``k`` distinct operations from a pool in random order,
  ``k`` uniform in a range; lengths uniform over the allowed ones (the paper rejects lengths 5, 7, 9 from a
  uniform 2-9 draw, the same distribution); some ordered 3-operation sequences are never produced
  (:func:`heldout_orders`: 25 % of them in the paper).
- :func:`sample_skill_centred`: the skill-centred set :math:`D(S,\Sigma)`: every sample holds the skill ``S``
  exactly once plus ``k - 1`` distinct operations of :math:`\Sigma` (the pretraining operations without the
  held-out operation ``T``), shuffled; ``corrupt`` is the noisy-label ablation (the label says ``S`` but another
  operation of :math:`\Sigma` is applied).
- :func:`partner_test_sets`: compositional transfer to an out-of-distribution partner: ``k`` in {2, 3},
  exactly one ``S`` and one ``T`` per item, the ``k - 2`` others from the pretraining operations without
  ``T``, one set per (k, length, ordering pattern) over **all** lengths. Difference from the released
  generator (which draws the filler ``X`` once per pattern from the first filler tuple, always ``[ASC]`` or
  ``[DESC]``): we draw ``X`` per item.
- :func:`composition_test_set`: the zero-shot composition items, the two new skills in either order.

:class:`DigitVocab` is the character tokenizer of the lab (:class:`icmlbook.lm.CharTokenizer`: one id per digit
and ``=``, ``<bos>``, ``<eos>``, ``<pad>``) with one whole token per operation; :func:`encode` turns a batch into
token ids ``<bos> OPS DIGITS = RESULT <eos>``, with each operation replaced by the ids the caller maps it to
(the insertion function of the skill tokens, :mod:`.skills`).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Mapping, Sequence

import numpy as np
import torch

from ...lm import CharTokenizer

__all__ = [
    "OPS", "PRETRAIN_OPS", "NEW_OPS", "op_index", "op_token", "apply_op", "apply_ops", "apply_ops_str",
    "DigitBatch", "DigitVocab", "heldout_orders", "sample_pretraining", "sample_skill_centred",
    "partner_patterns", "partner_test_sets", "composition_test_set", "EncodedBatch", "PadPlan", "random_pads", "encode", "parse_typed", "parse_text",
]

#: the nine operations, in the order of their token ids
OPS: tuple[str, ...] = ("ASC", "DESC", "ADD", "SUB", "POLARITY", "REVERSE", "ID", "SHIFT_RIGHT", "INVERT_POLARITY")
#: the seven operations the base model is pretrained on
PRETRAIN_OPS: tuple[str, ...] = OPS[:7]
#: the two new skills
NEW_OPS: tuple[str, ...] = OPS[7:]


def op_index(name: str) -> int:
    """The index of operation ``name`` in :data:`OPS` (an error naming the allowed values otherwise)."""
    try:
        return OPS.index(name)
    except ValueError:
        raise ValueError(f"operation {name!r} is not allowed; allowed values: {', '.join(OPS)}") from None


def op_token(name: str) -> str:
    """The text of an operation's token, ``[NAME]``."""
    op_index(name)
    return f"[{name}]"


# ------------------------------------------------------------------------------------------------ operations
def apply_op(name: str, digits: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Apply operation ``name`` to each row of ``digits`` (n, L_max) int, row ``i`` holding ``lengths[i]`` digits
    (the rest is padding, left as it is). Returns a new (n, L_max) array."""
    x = np.asarray(digits, dtype=np.int64)
    n, width = x.shape
    lengths = np.asarray(lengths, dtype=np.int64)
    j = np.arange(width)[None, :]
    valid = j < lengths[:, None]
    if name == "ASC":
        out = np.sort(np.where(valid, x, 10), axis=1)
    elif name == "DESC":
        out = -np.sort(np.where(valid, -x, 1), axis=1)
    elif name == "ADD":
        out = (x + 1) % 10
    elif name == "SUB":
        out = (x - 1) % 10
    elif name == "POLARITY":
        out = x % 2
    elif name == "INVERT_POLARITY":
        out = 1 - x % 2
    elif name == "ID":
        out = x.copy()
    elif name == "REVERSE":
        idx = np.where(valid, lengths[:, None] - 1 - j, j)
        out = np.take_along_axis(x, idx, axis=1)
    elif name == "SHIFT_RIGHT":
        idx = np.where(valid, np.where(j == 0, lengths[:, None] - 1, j - 1), j)
        out = np.take_along_axis(x, idx, axis=1)
    else:
        op_index(name)  # raises with the allowed values
        raise AssertionError(name)
    return np.where(valid, out, x)


def apply_ops(ops: np.ndarray, digits: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Apply per-row operation sequences ``ops`` (n, K) of indices into :data:`OPS` (-1 = none), left to right."""
    ops = np.asarray(ops, dtype=np.int64)
    out = np.asarray(digits, dtype=np.int64).copy()
    for col in range(ops.shape[1]):
        for o in np.unique(ops[:, col]):
            if o < 0:
                continue
            rows = ops[:, col] == o
            out[rows] = apply_op(OPS[o], out[rows], lengths[rows])
    return out


def apply_ops_str(names: Sequence[str], digits: str) -> str:
    """The answer for one item given as strings: ``apply_ops_str(["ADD", "REVERSE"], "3141") == "2524"``."""
    if not digits or not digits.isdigit() or not digits.isascii():
        raise ValueError(f"digits={digits!r} is not allowed; it must be a non-empty string of the digits 0-9")
    x = np.array([[int(c) for c in digits]])
    ops = np.array([[op_index(n) for n in names]], dtype=np.int64).reshape(1, -1)
    out = apply_ops(ops, x, np.array([len(digits)]))
    return "".join(str(int(v)) for v in out[0])


# ------------------------------------------------------------------------------------------------ batches
@dataclasses.dataclass(frozen=True)
class DigitBatch:
    """Items of the digit world as arrays.

    ops : (n, K) int, the operations written in the prompt (indices into :data:`OPS`, -1 = none), left to right
    digits : (n, L_max) int, the input digits (row i holds ``lengths[i]`` of them, then zeros)
    lengths : (n,) int
    results : (n, L_max) int, the answer (the operations **applied**, which differ from ``ops`` only in the
        noisy-label ablation)
    """

    ops: np.ndarray
    digits: np.ndarray
    lengths: np.ndarray
    results: np.ndarray

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    @property
    def n_ops(self) -> np.ndarray:
        return (self.ops >= 0).sum(axis=1)

    def texts(self) -> list[str]:
        """``[ADD][REVERSE]3141=2524`` per item."""
        out = []
        for i in range(len(self)):
            L = int(self.lengths[i])
            ops = "".join(op_token(OPS[o]) for o in self.ops[i] if o >= 0)
            out.append(ops + "".join(map(str, self.digits[i, :L])) + "=" + "".join(map(str, self.results[i, :L])))
        return out

    def select(self, rows) -> DigitBatch:
        return DigitBatch(self.ops[rows], self.digits[rows], self.lengths[rows], self.results[rows])

    @staticmethod
    def concat(batches: Sequence[DigitBatch]) -> DigitBatch:
        K = max(b.ops.shape[1] for b in batches)
        L = max(b.digits.shape[1] for b in batches)
        pad = lambda a, w, v: np.pad(a, ((0, 0), (0, w - a.shape[1])), constant_values=v)  # noqa: E731
        return DigitBatch(np.concatenate([pad(b.ops, K, -1) for b in batches]),
                          np.concatenate([pad(b.digits, L, 0) for b in batches]),
                          np.concatenate([b.lengths for b in batches]),
                          np.concatenate([pad(b.results, L, 0) for b in batches]))


def _check_lengths(lengths: Sequence[int]) -> np.ndarray:
    arr = np.asarray(sorted(set(int(v) for v in lengths)), dtype=np.int64)
    if arr.size == 0 or arr.min() < 1:
        raise ValueError(f"lengths={tuple(lengths)!r} is not allowed; give at least one digit-string length >= 1")
    return arr


def _digits(rng: np.random.Generator, n: int, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    L = rng.choice(lengths, size=n)
    width = int(lengths.max())
    d = rng.integers(0, 10, size=(n, width))
    d[np.arange(width)[None, :] >= L[:, None]] = 0
    return d, L


def _check_count(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n={n!r} is not allowed; it must be an integer >= 0")
    return int(n)


def heldout_orders(pool: Sequence[str], fraction: float, seed: int) -> frozenset[tuple[str, ...]]:
    """The ordered 3-operation sequences of distinct operations from ``pool`` never shown in pretraining: a
    ``fraction`` of all of them (rounded), drawn with ``seed`` (the paper holds out 25 %)."""
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction={fraction!r} is not allowed; it must lie in [0, 1)")
    perms = list(itertools.permutations(pool, 3))
    m = int(round(fraction * len(perms)))
    pick = np.random.default_rng(np.random.SeedSequence([seed, 3])).choice(len(perms), size=m, replace=False)
    return frozenset(perms[i] for i in sorted(pick))


def _distinct_ops(rng: np.random.Generator, n: int, pool_idx: np.ndarray, k: int) -> np.ndarray:
    """(n, k) rows of k distinct entries of ``pool_idx`` in random order."""
    keys = rng.random((n, pool_idx.size))
    return pool_idx[np.argsort(keys, axis=1)[:, :k]]


def sample_pretraining(rng: np.random.Generator, n: int, pool: Sequence[str], ks: Sequence[int],
                       lengths: Sequence[int], heldout: frozenset[tuple[str, ...]] = frozenset()) -> DigitBatch:
    """``n`` pretraining items: ``k`` uniform over ``ks``, ``k`` distinct operations of ``pool`` in random
    order (a 3-operation order in ``heldout`` is redrawn), digit lengths uniform over ``lengths``."""
    n = _check_count(n)
    lens = _check_lengths(lengths)
    pool_idx = np.array([op_index(p) for p in pool], dtype=np.int64)
    ks = np.asarray(sorted(set(int(k) for k in ks)), dtype=np.int64)
    if ks.size == 0 or ks.min() < 1 or ks.max() > min(3, pool_idx.size):
        raise ValueError(f"ks={tuple(ks)!r} is not allowed; operation counts must lie in 1..{min(3, pool_idx.size)}")
    K = int(ks.max())
    k = rng.choice(ks, size=n)
    ops = np.full((n, K), -1, dtype=np.int64)
    held = {tuple(op_index(o) for o in h) for h in heldout}
    for kk in ks:
        rows = np.flatnonzero(k == kk)
        draw = _distinct_ops(rng, rows.size, pool_idx, int(kk))
        if kk == 3 and held:
            for _ in range(1000):
                bad = np.array([tuple(r) in held for r in draw.tolist()], dtype=bool)
                if not bad.any():
                    break
                draw[bad] = _distinct_ops(rng, int(bad.sum()), pool_idx, 3)
        ops[rows, :kk] = draw
    digits, L = _digits(rng, n, lens)
    return DigitBatch(ops, digits, L, apply_ops(ops, digits, L))


def sample_skill_centred(rng: np.random.Generator, n: int, skill: str, others: Sequence[str],
                         ks: Sequence[int], lengths: Sequence[int], corrupt: float = 0.0) -> DigitBatch:
    r"""``n`` items of :math:`D(S,\Sigma)`: the skill once plus ``k - 1`` distinct operations of ``others``
    (:math:`\Sigma`), shuffled, ``k`` uniform over ``ks``. With probability ``corrupt`` per item the skill's
    position applies a random operation of ``others`` instead (the label still names the skill)."""
    n = _check_count(n)
    lens = _check_lengths(lengths)
    s = op_index(skill)
    other_idx = np.array([op_index(o) for o in others], dtype=np.int64)
    if s in other_idx:
        raise ValueError(f"others={tuple(others)!r} is not allowed; it must not contain the skill {skill!r}")
    if not 0 <= corrupt < 1:
        raise ValueError(f"corrupt={corrupt!r} is not allowed; it must lie in [0, 1)")
    ks = np.asarray(sorted(set(int(k) for k in ks)), dtype=np.int64)
    if ks.size == 0 or ks.min() < 1 or ks.max() > other_idx.size + 1 or ks.max() > 3:
        raise ValueError(f"ks={tuple(ks)!r} is not allowed; operation counts must lie in 1..{min(3, other_idx.size + 1)}")
    K = int(ks.max())
    k = rng.choice(ks, size=n)
    ops = np.full((n, K), -1, dtype=np.int64)
    for kk in ks:
        rows = np.flatnonzero(k == kk)
        row_ops = np.concatenate([_distinct_ops(rng, rows.size, other_idx, int(kk) - 1),
                                  np.full((rows.size, 1), s)], axis=1) if kk > 1 else np.full((rows.size, 1), s)
        perm = np.argsort(rng.random(row_ops.shape), axis=1)
        ops[rows, :kk] = np.take_along_axis(row_ops, perm, axis=1)
    digits, L = _digits(rng, n, lens)
    applied = ops.copy()
    if corrupt > 0:
        hit = rng.random(n) < corrupt
        repl = other_idx[rng.integers(0, other_idx.size, size=n)]
        applied = np.where((ops == s) & hit[:, None], repl[:, None], ops)
    return DigitBatch(ops, digits, L, apply_ops(applied, digits, L))


def partner_patterns(k: int) -> list[str]:
    """The ordering patterns of a test item with one skill S, one held-out op T and ``k - 2`` fillers X,
    written like ``"S_T"``, ``"X_T_S"`` (all distinct arrangements, sorted)."""
    if k not in (2, 3):
        raise ValueError(f"k={k!r} is not allowed; allowed values: 2, 3")
    return sorted({"_".join(p) for p in itertools.permutations(["S", "T"] + ["X"] * (k - 2))})


def partner_test_sets(rng: np.random.Generator, skill: str, test_op: str, fillers: Sequence[str],
                      lengths: Sequence[int], n_per: int, ks: Sequence[int] = (2, 3)) -> dict[tuple[int, int, str], DigitBatch]:
    """One batch of ``n_per`` items per (k, length, pattern): exactly one ``skill``, one ``test_op`` and
    ``k - 2`` fillers drawn **per item** from ``fillers`` (with repetition)."""
    s, t = op_index(skill), op_index(test_op)
    if s == t:
        raise ValueError(f"test_op={test_op!r} is not allowed; it must differ from the skill {skill!r}")
    filler_idx = np.array([op_index(f) for f in fillers], dtype=np.int64)
    if s in filler_idx or t in filler_idx:
        raise ValueError(f"fillers={tuple(fillers)!r} is not allowed; they must exclude {skill!r} and {test_op!r}")
    n_per = _check_count(n_per)
    out: dict[tuple[int, int, str], DigitBatch] = {}
    for k in ks:
        for L in _check_lengths(lengths):
            for pat in partner_patterns(int(k)):
                ops = np.empty((n_per, int(k)), dtype=np.int64)
                for col, sym in enumerate(pat.split("_")):
                    ops[:, col] = s if sym == "S" else t if sym == "T" else filler_idx[rng.integers(0, filler_idx.size,
                                                                                                     size=n_per)]
                digits = rng.integers(0, 10, size=(n_per, int(L)))
                lens = np.full(n_per, int(L))
                out[(int(k), int(L), pat)] = DigitBatch(ops, digits, lens, apply_ops(ops, digits, lens))
    return out


def composition_test_set(rng: np.random.Generator, first: str, second: str, lengths: Sequence[int],
                         n_per: int) -> dict[tuple[int, str], DigitBatch]:
    """Items with exactly the two operations ``first`` and ``second`` in either order, ``n_per`` per
    (length, order), keyed ``(length, "A_B")`` with A, B the operation names."""
    a, b = op_index(first), op_index(second)
    if a == b:
        raise ValueError(f"second={second!r} is not allowed; it must differ from first={first!r}")
    n_per = _check_count(n_per)
    out = {}
    for L in _check_lengths(lengths):
        for order in ((a, b), (b, a)):
            ops = np.tile(np.array(order, dtype=np.int64), (n_per, 1))
            digits = rng.integers(0, 10, size=(n_per, int(L)))
            lens = np.full(n_per, int(L))
            out[(int(L), f"{OPS[order[0]]}_{OPS[order[1]]}")] = DigitBatch(ops, digits, lens,
                                                                            apply_ops(ops, digits, lens))
    return out


# ------------------------------------------------------------------------------------------------ tokens
class DigitVocab:
    """The digit world's vocabulary: the lab's :class:`~icmlbook.lm.CharTokenizer` over ``0123456789=`` with
    ``<bos>``, ``<eos>``, ``<pad>``, and one whole token per operation (``[ASC]`` ... ``[INVERT_POLARITY]``,
    all nine, so the new operations have ids the base never trained: the "literal name" of a new skill)."""

    def __init__(self) -> None:
        self.tokenizer = CharTokenizer("0123456789=", special=("<bos>", "<eos>", "<pad>"))
        self.op_ids = tuple(self.tokenizer.add_tokens([op_token(o) for o in OPS]))
        self.digit_ids = tuple(self.tokenizer.token_to_id(str(d)) for d in range(10))
        self.eq = self.tokenizer.token_to_id("=")
        self.bos, self.eos, self.pad = (self.tokenizer.special[k] for k in ("bos", "eos", "pad"))
        self.size = self.tokenizer.vocab_size
        self._digit_of = np.full(self.size, -1, dtype=np.int64)
        self._digit_of[list(self.digit_ids)] = np.arange(10)

    def op_id(self, name: str) -> int:
        return self.op_ids[op_index(name)]

    def digits_of(self, ids: np.ndarray) -> np.ndarray:
        """Map token ids to digit values (-1 for any id that is not a digit)."""
        ids = np.asarray(ids)
        out = np.full(ids.shape, -1, dtype=np.int64)
        inside = (ids >= 0) & (ids < self.size)
        out[inside] = self._digit_of[ids[inside]]
        return out


@dataclasses.dataclass(frozen=True)
class PadPlan:
    """Filler ``<pad>`` tokens written into prompts during pretraining: ``left`` (n,) after ``<bos>``,
    ``before`` / ``after`` (n, K) around each operation token. The official code offers both
    (``random_left_pad``, ``random_skill_pad``); our GPT has no padding mask, so the pads are tokens the base learns
    to pass over, which makes it robust to extra tokens at the start and inside the operation segment."""

    left: np.ndarray
    before: np.ndarray
    after: np.ndarray


def random_pads(rng: np.random.Generator, batch: DigitBatch, left_max: int, op_prob: float, op_max: int) -> PadPlan:
    """Left pads uniform in 0..``left_max``; each operation token padded with probability ``op_prob`` by N
    uniform in 1..``op_max`` pads split at random between its two sides (the official ``random_skill_pad`` with
    1-20 pads and probability 0.3)."""
    n, K = batch.ops.shape
    left = rng.integers(0, left_max + 1, size=n) if left_max > 0 else np.zeros(n, dtype=np.int64)
    before = np.zeros((n, K), dtype=np.int64)
    after = np.zeros((n, K), dtype=np.int64)
    if op_max > 0 and op_prob > 0:
        hit = (rng.random((n, K)) < op_prob) & (batch.ops >= 0)
        total = rng.integers(1, op_max + 1, size=(n, K))
        split = np.floor(rng.random((n, K)) * (total + 1)).astype(np.int64)
        before = np.where(hit, split, 0)
        after = np.where(hit, total - split, 0)
    return PadPlan(left, before, after)


@dataclasses.dataclass(frozen=True)
class EncodedBatch:
    """Token ids of a batch, right-padded: ``ids`` (n, T) int64; ``targets`` (n, T) the next token at each
    position; ``loss_mask`` (n, T) bool, true where the target is an answer token (the result digits and
    ``<eos>``: the loss of the paper is on the answer only); ``prompt_len`` (n,) the positions up to and
    including ``=``."""

    ids: torch.Tensor
    targets: torch.Tensor
    loss_mask: torch.Tensor
    prompt_len: torch.Tensor


def _op_map(vocab: DigitVocab, insert: Mapping[str, Sequence[int]] | None) -> list[list[int]]:
    out = [[vocab.op_ids[i]] for i in range(len(OPS))]
    for name, ids in (insert or {}).items():
        ids = [int(i) for i in ids]
        if not ids:
            raise ValueError(f"the insertion of {name!r} is empty; a skill needs at least one token")
        out[op_index(name)] = ids
    return out


def encode(batch: DigitBatch, vocab: DigitVocab, insert: Mapping[str, Sequence[int]] | None = None,
           prefix: Sequence[int] = (), answer: bool = True, pads: PadPlan | None = None) -> EncodedBatch:
    """Token ids of every item: ``<bos> prefix OPS DIGITS = [RESULT <eos>]``.

    ``insert`` maps an operation name to the ids written in its place (the insertion function
    :math:`\\iota_S` of the skill tokens, :func:`.skills.insertion`); other operations keep their one token.
    ``prefix`` ids follow ``<bos>`` (prompt tuning's soft tokens). With ``answer=False`` only the prompt is
    encoded (for decoding); rows then have equal lengths only if their prompts do.
    """
    ops_map = _op_map(vocab, insert)
    prefix = [int(p) for p in prefix]
    rows = []
    plen = []
    for i in range(len(batch)):
        L = int(batch.lengths[i])
        seq = [vocab.bos, *prefix]
        if pads is not None:
            seq.extend([vocab.pad] * int(pads.left[i]))
        for j, o in enumerate(batch.ops[i]):
            if o >= 0:
                if pads is not None:
                    seq.extend([vocab.pad] * int(pads.before[i, j]))
                seq.extend(ops_map[o])
                if pads is not None:
                    seq.extend([vocab.pad] * int(pads.after[i, j]))
        seq.extend(vocab.digit_ids[d] for d in batch.digits[i, :L])
        seq.append(vocab.eq)
        plen.append(len(seq))
        if answer:
            seq.extend(vocab.digit_ids[d] for d in batch.results[i, :L])
            seq.append(vocab.eos)
        rows.append(seq)
    T = max(len(r) for r in rows) if rows else 0
    table = np.full((len(rows), T), vocab.pad, dtype=np.int64)     # filled in numpy: one tensor, not one per row
    for i, r in enumerate(rows):
        table[i, :len(r)] = r
    ids = torch.from_numpy(table)
    targets = torch.full_like(ids, vocab.pad)
    targets[:, :-1] = ids[:, 1:]
    pos = torch.arange(T)[None, :]
    lens = torch.tensor([len(r) for r in rows], dtype=torch.long)
    plen_t = torch.tensor(plen, dtype=torch.long)
    # targets at positions plen-1 .. len-2 are the answer digits and <eos>
    loss_mask = (pos >= plen_t[:, None] - 1) & (pos <= lens[:, None] - 2) if answer else torch.zeros_like(ids, dtype=torch.bool)
    return EncodedBatch(ids, targets, loss_mask, plen_t)


def parse_text(text: str, lengths: Sequence[int] | None = None) -> DigitBatch:
    """One item from a typed prompt like ``"[ADD][SHIFT_RIGHT]3141"`` (an optional ``=`` and answer after it are
    ignored): operation tokens, then the digits."""
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} is not allowed; type operation tokens and digits, e.g. [ADD][REVERSE]3141")
    body = text.strip().split("=")[0].replace(" ", "")
    ops = []
    while body.startswith("["):
        end = body.find("]")
        if end < 0:
            raise ValueError(f"text={text!r}: an operation token is not closed with ']'")
        ops.append(body[1:end].upper())
        body = body[end + 1:]
    return parse_typed(ops, body, lengths)


def parse_typed(ops: Sequence[str], digits: str, lengths: Sequence[int] | None = None) -> DigitBatch:
    """One item from a reader's input: operation names and a typed digit string. Refuses non-digits and a
    length outside ``lengths`` (the range the model was built for) with an error naming the problem."""
    if not isinstance(digits, str) or not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError(f"digits={digits!r} is not allowed; type a string of the digits 0-9 only")
    if lengths is not None and len(digits) not in set(int(v) for v in lengths):
        lo, hi = min(lengths), max(lengths)
        raise ValueError(f"digits={digits!r} has length {len(digits)}, which is not allowed; the models here read "
                         f"lengths {lo} to {hi}")
    if not ops:
        raise ValueError("ops is empty; name at least one operation")
    idx = np.array([[op_index(o) for o in ops]], dtype=np.int64)
    d = np.array([[int(c) for c in digits]], dtype=np.int64)
    lens = np.array([len(digits)])
    return DigitBatch(idx, d, lens, apply_ops(idx, d, lens))
