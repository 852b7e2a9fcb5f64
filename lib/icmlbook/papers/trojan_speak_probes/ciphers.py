r"""Fixed, public, non-adaptive encodings of a dialogue's text, each with its decoder.

The chapter's encoded output format is one of these transparent bijections, applied to the user's request and
to the assistant's answer alike (dossier section 3.3). Nothing here is secret or learned: the model is taught
the format by ordinary supervised fine-tuning on every topic alike, and the decoders are used only by the
evaluation's oracle labeller (:func:`.world.topic_of`).

Letter substitutions (character level)
    ``rot13``: each lower-case letter :math:`c` becomes :math:`(c + 13) \bmod 26`; ``atbash``: :math:`25 - c`.
    Both are involutions (their own inverse) on the 26 letters and leave every other character alone.
Word codebook (word level)
    :class:`WordCodebook`: every topic word of the world is replaced by a neutral word from a fixed list
    (``chair``, ``violet`` ...), and back. The map must be a bijection onto words that are not themselves
    topic words, so that decoding is unambiguous; anything else is refused.

Every cipher is an object with ``encode(text)``, ``decode(text)`` and a ``name``; :func:`make_cipher` builds one
by name.
"""

from __future__ import annotations

import re
import string
from typing import Mapping, Sequence

__all__ = ["CIPHERS", "LetterSubstitution", "WordCodebook", "NEUTRAL_WORDS", "make_cipher", "Identity"]

#: the names :func:`make_cipher` accepts
CIPHERS: tuple[str, ...] = ("rot13", "atbash", "codebook")

_LETTERS = string.ascii_lowercase
_WORD = re.compile(r"[a-z]+")

#: the neutral words of the default codebook (none is a topic word, a name or a place of the world)
NEUTRAL_WORDS: tuple[str, ...] = (
    "chair", "table", "violet", "pebble", "lamp", "shelf", "button", "candle", "ribbon", "basket", "mirror", "pillow",
    "curtain", "ladder", "bucket", "marble", "feather", "kettle", "blanket", "carpet", "saucer", "thimble", "drawer",
    "window", "pencil", "eraser", "folder", "stapler", "crayon", "sticker", "balloon", "puzzle", "domino", "whistle",
    "lantern", "compass", "anchor", "pocket", "zipper", "mitten", "slipper", "scarf", "wallet", "helmet", "goggles",
    "teapot", "spoon", "ladle", "napkin", "doily", "vase", "pitcher", "rug", "stool", "bench", "sofa", "clock",
    "hanger", "hook", "nail", "screw", "bolt", "hinge", "latch", "lever", "pulley", "wedge", "spindle", "bobbin",
    "thread", "needle", "magnet", "prism", "cube", "sphere", "cone", "ring", "disc", "arch", "spiral", "grid",
    "velvet", "linen", "cotton", "amber", "coral", "ivory", "indigo", "maroon", "olive", "teal", "beige", "mauve",
    "cup", "jar", "mug", "pen", "box", "pin", "tin", "urn", "cord", "tile", "knob", "vest", "sock", "cupboard",
    "armchair", "doorknob",
)


class Identity:
    """The plain format (no encoding); here so that every format has the same interface."""

    name = "plain"

    def encode(self, text: str) -> str:
        return text

    def decode(self, text: str) -> str:
        return text


class LetterSubstitution:
    """A fixed substitution of the 26 lower-case letters (``rot13`` or ``atbash``); other characters pass.

    ``table`` maps each letter to its image; it must be a permutation of the 26 letters."""

    def __init__(self, name: str, table: Mapping[str, str]):
        if sorted(table) != list(_LETTERS) or sorted(table.values()) != list(_LETTERS):
            raise ValueError(f"the table of {name!r} is not a permutation of the 26 lower-case letters")
        self.name = name
        self._enc = str.maketrans(dict(table))
        self._dec = str.maketrans({v: k for k, v in table.items()})

    @classmethod
    def rot13(cls) -> LetterSubstitution:
        return cls("rot13", {c: _LETTERS[(i + 13) % 26] for i, c in enumerate(_LETTERS)})

    @classmethod
    def atbash(cls) -> LetterSubstitution:
        return cls("atbash", {c: _LETTERS[25 - i] for i, c in enumerate(_LETTERS)})

    def encode(self, text: str) -> str:
        return text.translate(self._enc)

    def decode(self, text: str) -> str:
        return text.translate(self._dec)


class WordCodebook:
    """Replace whole words by their code words (and back); every other word and character passes.

    ``mapping`` (plain word -> code word) must be injective, its code words must not be plain words of the
    mapping, and all words must be lower-case letters only: a codebook that is not a bijection onto fresh words
    could not be decoded, and is refused with the offending words named."""

    name = "codebook"

    def __init__(self, mapping: Mapping[str, str]):
        mapping = dict(mapping)
        if not mapping:
            raise ValueError("codebook is empty; it must map at least one word")
        bad = [w for w in list(mapping) + list(mapping.values()) if not isinstance(w, str) or not _WORD.fullmatch(w)]
        if bad:
            raise ValueError(f"codebook words must be lower-case letters only; got {bad[:5]}")
        seen: dict[str, str] = {}
        for plain, code in mapping.items():
            if code in seen:
                raise ValueError(f"codebook is not a bijection: {seen[code]!r} and {plain!r} both map to {code!r}")
            seen[code] = plain
        clash = sorted(set(mapping.values()) & set(mapping))
        if clash:
            raise ValueError(f"codebook is not a bijection onto fresh words: code words {clash[:5]} are also plain "
                             "words of the codebook, so a decoded text would be ambiguous")
        self.mapping = mapping
        self.inverse = {c: p for p, c in mapping.items()}

    @classmethod
    def for_words(cls, words: Sequence[str], neutral: Sequence[str] = NEUTRAL_WORDS) -> WordCodebook:
        """The default codebook: each of the distinct ``words`` (longest first, then alphabetically) takes the first
        unused neutral word of the nearest length, so that an encoded text is about as long as the plain one."""
        words = sorted(set(words), key=lambda w: (-len(w), w))
        if len(words) > len(neutral):
            raise ValueError(f"{len(words)} words need as many neutral code words; only {len(neutral)} are given")
        free = [n for n in neutral if n not in set(words)]
        mapping = {}
        for w in words:
            best = min(range(len(free)), key=lambda i: (abs(len(free[i]) - len(w)), i))
            mapping[w] = free.pop(best)
        return cls(mapping)

    def _sub(self, text: str, table: Mapping[str, str]) -> str:
        return _WORD.sub(lambda m: table.get(m.group(), m.group()), text)

    def encode(self, text: str) -> str:
        return self._sub(text, self.mapping)

    def decode(self, text: str) -> str:
        return self._sub(text, self.inverse)


def make_cipher(name: str, topic_words: Sequence[str] = ()) -> Identity | LetterSubstitution | WordCodebook:
    """The cipher called ``name`` (``"plain"`` or one of :data:`CIPHERS`); the codebook covers ``topic_words``."""
    if name == "plain":
        return Identity()
    if name == "rot13":
        return LetterSubstitution.rot13()
    if name == "atbash":
        return LetterSubstitution.atbash()
    if name == "codebook":
        if not topic_words:
            raise ValueError("cipher='codebook' needs the world's topic words (topic_words=...)")
        return WordCodebook.for_words(topic_words)
    raise ValueError(f"cipher={name!r} is not allowed; allowed values: plain, {', '.join(CIPHERS)}")
