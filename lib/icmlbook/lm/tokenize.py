"""Tokenisers of the language-model lab: bytes, characters, and byte-level BPE trained offline.

All three share one interface: ``encode(text) -> list[int]``, ``decode(ids) -> str``, ``vocab_size``,
``token_to_id(token)``, named special tokens (``special["eos"]`` ...) and ``add_tokens(tokens) -> new ids``
(new whole tokens appended at the end of the vocabulary: skill tokens, operation tokens, neologisms).
Special and added tokens are matched in the text before the ordinary tokenisation, so ``"<eos>"`` in a string
is one token. Ids outside the vocabulary are refused by ``decode`` with a message naming them.

ByteTokenizer
    Ids 0-255 are the UTF-8 bytes, special and added tokens follow. Lossless for any text.
CharTokenizer
    One id per character of a fixed alphabet (built from a corpus or given), then special/added tokens; a
    character outside the alphabet is an error (or ``unk`` if the tokenizer has one).
BPETokenizer
    Byte-level BPE (GPT-2's pre-tokenisation) trained with the ``tokenizers`` library on local text, no
    download; lossless like the byte tokenizer.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

__all__ = ["ByteTokenizer", "CharTokenizer", "BPETokenizer"]


class _SpecialMixin:
    """Special and added whole tokens, matched before the base tokenisation."""

    def _init_specials(self, special: Sequence[str]) -> None:
        names = list(special)
        if len(set(names)) != len(names):
            raise ValueError(f"special tokens {names} contain duplicates")
        self._whole: dict[str, int] = {}
        self.special: dict[str, int] = {}
        for tok in names:
            self.special[tok.strip("<>|")] = self._append_whole(tok)
        self._pattern = None

    def _append_whole(self, tok: str) -> int:
        if not tok:
            raise ValueError("an added token cannot be the empty string")
        if tok in self._whole:
            raise ValueError(f"token {tok!r} is already in the vocabulary (id {self._whole[tok]})")
        self._whole[tok] = self._base_size() + len(self._whole)
        self._pattern = None
        return self._whole[tok]

    def add_tokens(self, tokens: Iterable[str]) -> list[int]:
        """Append whole tokens to the vocabulary; returns their ids (in order)."""
        return [self._append_whole(t) for t in tokens]

    @property
    def vocab_size(self) -> int:
        return self._base_size() + len(self._whole)

    def _split(self, text: str) -> list[tuple[bool, str]]:
        if not self._whole:
            return [(False, text)]
        if self._pattern is None:
            alts = sorted(self._whole, key=len, reverse=True)  # longest first: "<eos2>" before "<eos>"
            self._pattern = re.compile("|".join(re.escape(a) for a in alts))
        out, pos = [], 0
        for m in self._pattern.finditer(text):
            if m.start() > pos:
                out.append((False, text[pos:m.start()]))
            out.append((True, m.group()))
            pos = m.end()
        if pos < len(text):
            out.append((False, text[pos:]))
        return out

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for whole, piece in self._split(text):
            ids.extend([self._whole[piece]] if whole else self._encode_base(piece))
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < self.vocab_size]
        if bad:
            raise ValueError(f"token ids {bad[:10]} are outside the vocabulary 0..{self.vocab_size - 1}")
        inverse = {v: k for k, v in self._whole.items()}
        out, run = [], []
        for i in ids:
            if i in inverse:
                if run:
                    out.append(self._decode_base(run))
                    run = []
                out.append(inverse[i])
            else:
                run.append(i)
        if run:
            out.append(self._decode_base(run))
        return "".join(out)

    def token_to_id(self, token: str) -> int:
        if token in self._whole:
            return self._whole[token]
        ids = self._encode_base(token)
        if len(ids) != 1:
            raise KeyError(f"{token!r} is not a single token (it encodes to {ids})")
        return ids[0]


class ByteTokenizer(_SpecialMixin):
    """UTF-8 bytes (ids 0-255), then the special tokens (default ``<bos>``, ``<eos>``, ``<pad>``)."""

    def __init__(self, special: Sequence[str] = ("<bos>", "<eos>", "<pad>")):
        self._init_specials(special)

    def _base_size(self) -> int:
        return 256

    def _encode_base(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def _decode_base(self, ids: list[int]) -> str:
        return bytes(ids).decode("utf-8", errors="replace")


class CharTokenizer(_SpecialMixin):
    """One id per character of ``alphabet`` (sorted, distinct), then the special tokens. With ``"<unk>"`` among
    the special tokens an unknown character maps to it, otherwise encoding it is an error."""

    def __init__(self, alphabet: Iterable[str], special: Sequence[str] = ("<bos>", "<eos>", "<pad>")):
        chars = sorted(set(alphabet))
        if not chars:
            raise ValueError("the alphabet is empty")
        bad = [c for c in chars if len(c) != 1]
        if bad:
            raise ValueError(f"alphabet entries must be single characters; got {bad[:5]}")
        self.alphabet = chars
        self._ids = {c: i for i, c in enumerate(chars)}
        self._init_specials(special)

    @classmethod
    def from_text(cls, text: str, special: Sequence[str] = ("<bos>", "<eos>", "<pad>")) -> CharTokenizer:
        return cls(set(text), special)

    def _base_size(self) -> int:
        return len(self.alphabet)

    def _encode_base(self, text: str) -> list[int]:
        unk = self.special.get("unk")
        out = []
        for c in text:
            i = self._ids.get(c, unk)
            if i is None:
                raise ValueError(f"character {c!r} is not in the alphabet (and there is no <unk> token)")
            out.append(i)
        return out

    def _decode_base(self, ids: list[int]) -> str:
        return "".join(self.alphabet[i] for i in ids)


class BPETokenizer(_SpecialMixin):
    """Byte-level BPE of ``vocab_size`` ids (including the 256 byte symbols), trained on ``texts`` with the
    ``tokenizers`` library (offline; deterministic for the same texts), then the special tokens."""

    def __init__(self, texts: Iterable[str], vocab_size: int = 1024, min_frequency: int = 2,
                 special: Sequence[str] = ("<bos>", "<eos>", "<pad>")):
        from tokenizers import ByteLevelBPETokenizer

        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 257:
            raise ValueError(f"vocab_size={vocab_size!r} is not allowed; a byte-level BPE needs >= 257 ids")
        self._bpe = ByteLevelBPETokenizer()
        self._bpe.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=min_frequency,
                                      show_progress=False)
        self._init_specials(special)

    def _base_size(self) -> int:
        return self._bpe.get_vocab_size()

    def _encode_base(self, text: str) -> list[int]:
        return self._bpe.encode(text).ids

    def _decode_base(self, ids: list[int]) -> str:
        return self._bpe.decode(ids)

    def to_json(self) -> str:
        """The trained BPE model (the ``tokenizers`` JSON), e.g. for a checksum in a run record."""
        return self._bpe._tokenizer.to_str()
