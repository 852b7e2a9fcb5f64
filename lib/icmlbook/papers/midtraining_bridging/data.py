r"""The chapter's offline corpora, one per role of the paper's design (Liu, Neubig, Xiong, "Midtraining Bridges
Pretraining and Posttraining Distributions", ICML 2026, arXiv 2510.14865 v2).

Nothing is downloaded: every corpus is read from the running interpreter's standard library or generated from a
seed. The paper's roles and our stand-ins:

===================  ======================================  =====================================================
role (paper)         ours                                    source
===================  ======================================  =====================================================
general (C4)         English prose: the docstrings of         ``ast`` over the sources of :data:`GENERAL_MODULES`
                     :data:`GENERAL_MODULES`
code midtraining     Python source files of                   :func:`icmlbook.lm.stdlib_corpus`
(StarCoder)          :data:`CODE_MID_MODULES`
code SFT (PyCode)    (docstring summary -> function body)     ``ast`` over :data:`CODE_SFT_MODULES` (held out,
                     pairs                                    disjoint from every other list)
math midtraining     worked multi-step arithmetic             generated (:func:`math_worked`)
math SFT (GSM8K)     word problems with a worked answer       generated from other templates (:func:`math_word`)
general SFT          "What does NAME do?" -> the docstring's  ``ast`` over :data:`GENERAL_SFT_MODULES` (held out)
(LIMA/SciQ-like)     first sentence
===================  ======================================  =====================================================

The issue proposed Debian's Python documentation and fortunes packages for the general text; they are not
installed on the book's machines, so the general corpus is standard-library docstrings alone (always present).
The module lists are pinned and pairwise disjoint (:func:`check_disjoint`); each corpus's SHA-256 goes into the
run record. One byte-level BPE (the lab's :class:`icmlbook.lm.BPETokenizer`) is trained on a balanced sample of
every corpus, so code is not out of vocabulary for the general model (the paper shares Pythia's tokenizer).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import inspect
import re

import numpy as np
import torch

from ...lm import BPETokenizer
from ...lm.corpora import _module_files, stdlib_corpus, stdlib_dir

__all__ = ["GENERAL_MODULES", "CODE_MID_MODULES", "CODE_SFT_MODULES", "GENERAL_SFT_MODULES", "DOMAINS", "TARGETS",
           "check_disjoint", "docstrings", "code_sft_pairs", "general_sft_pairs", "math_worked", "math_word",
           "Corpora", "build_corpora", "make_tokenizer", "SHARD_ROLES", "load_shards"]

#: general text: the docstrings of these modules (English prose)
GENERAL_MODULES: tuple[str, ...] = (
    "argparse", "asyncio", "calendar", "collections", "concurrent", "configparser", "contextlib", "datetime",
    "decimal", "difflib", "email", "enum", "fractions", "ftplib", "functools", "gettext", "http", "imaplib",
    "importlib", "inspect", "ipaddress", "locale", "logging", "mailbox", "multiprocessing", "nntplib", "optparse",
    "pathlib", "pickle", "pydoc", "random", "shutil", "smtplib", "socket", "ssl", "statistics", "subprocess",
    "tarfile", "tempfile", "threading", "typing", "unittest", "urllib", "xml", "zipfile",
)
#: code midtraining: the full source files of these modules
CODE_MID_MODULES: tuple[str, ...] = (
    "ast", "base64", "bisect", "copy", "csv", "dataclasses", "glob", "heapq", "hmac", "html", "json", "numbers",
    "operator", "pprint", "queue", "shlex", "string", "textwrap", "tokenize", "uuid", "warnings", "weakref",
)
#: code SFT: (docstring -> body) pairs from these held-out modules
CODE_SFT_MODULES: tuple[str, ...] = (
    "abc", "codecs", "colorsys", "copyreg", "dis", "filecmp", "fnmatch", "genericpath", "getopt", "graphlib",
    "gzip", "linecache", "mimetypes", "netrc", "ntpath", "opcode", "pkgutil", "platform", "plistlib", "posixpath",
    "quopri", "reprlib", "sched", "secrets", "selectors", "shelve", "stat", "stringprep", "symtable", "sysconfig",
    "tabnanny", "timeit", "token", "trace", "traceback", "tracemalloc", "types", "webbrowser", "zipapp",
    "fileinput", "os", "pickletools", "wsgiref", "xmlrpc", "_pyio",
)
#: general SFT: "what does NAME do?" pairs from these held-out modules
GENERAL_SFT_MODULES: tuple[str, ...] = (
    "aifc", "bdb", "binhex", "cgi", "chunk", "cmd", "code", "codeop", "compileall", "contextvars", "cProfile",
    "crypt", "dbm", "doctest", "formatter", "getpass", "hashlib", "imghdr", "io", "keyword", "lzma", "mailcap",
    "modulefinder", "nturl2path", "pdb", "pipes", "poplib", "profile", "pstats", "pty", "py_compile",
    "pyclbr", "rlcompleter", "runpy", "site", "sndhdr", "socketserver", "sre_compile", "sre_parse",
    "sunau", "telnetlib", "uu", "wave", "xdrlib", "zipimport",
)
#: midtraining domains and SFT targets
DOMAINS: tuple[str, ...] = ("code", "math")
TARGETS: tuple[str, ...] = ("code_sft", "math_sft", "general_sft")


def check_disjoint(**lists: tuple[str, ...]) -> None:
    """Raise naming the overlap when two of the module ``lists`` share a module (no SFT module may leak into the
    midtraining or general corpora)."""
    names = list(lists)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = sorted(set(lists[a]) & set(lists[b]))
            if both:
                raise ValueError(f"module lists {a} and {b} overlap in {both}: SFT modules must be held out of the "
                                 "midtraining and general corpora")


def _available(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of ``modules`` whose Python source this interpreter ships (a few were removed in 3.13)."""
    out = []
    for m in modules:
        try:
            _module_files(stdlib_dir(), m)
        except ValueError:
            continue
        out.append(m)
    return tuple(out)


def _trees(modules: tuple[str, ...]):
    stdlib = stdlib_dir()
    for name in sorted(set(_available(modules))):
        for path in _module_files(stdlib, name):
            src = path.read_text(encoding="utf-8", errors="replace")
            try:
                yield path.relative_to(stdlib).as_posix(), src, ast.parse(src)
            except SyntaxError:
                continue


_NODES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _defs(tree: ast.AST):
    """The module node and every class and function definition in it, in source order (statement bodies only:
    much faster than :func:`ast.walk`, which visits every expression)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        body = getattr(node, "body", None)
        children = []
        if isinstance(body, list):
            children += body
        for field in ("orelse", "finalbody", "handlers"):
            children += getattr(node, field, None) or []
        stack.extend(reversed([c for c in children if hasattr(c, "body")]))


def prose(doc: str) -> str:
    """The prose of a docstring: its paragraphs with no indented line, no ``>>>`` example and mostly letters and
    spaces (code examples, tables and signatures dropped), each joined onto one line."""
    keep = []
    for para in inspect.cleandoc(doc).split("\n\n"):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if not lines or any(ln[:1].isspace() or ln.lstrip().startswith((">>>", "...")) for ln in lines):
            continue
        text = " ".join(ln.strip() for ln in lines)
        letters = sum(c.isalpha() or c == " " for c in text)
        if "." in text and letters >= 0.85 * len(text):
            keep.append(text)
    return "\n".join(keep)


@functools.lru_cache(maxsize=8)
def docstrings(modules: tuple[str, ...], min_chars: int = 40) -> tuple[str, ...]:
    """The prose (:func:`prose`) of every docstring (module, class, function) of ``modules``, where it has at least
    ``min_chars`` characters, in file and source order."""
    out = []
    for _, _, tree in _trees(modules):
        for node in _defs(tree):
            if isinstance(node, _NODES):
                doc = ast.get_docstring(node, clean=True)
                text = prose(doc) if doc else ""
                if len(text) >= min_chars:
                    out.append(text)
    return tuple(out)


def _summary(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line."""
    para = doc.strip().split("\n\n")[0]
    para = re.sub(r"\s+", " ", para)
    m = re.match(r"(.+?[.!?])(\s|$)", para)
    return (m.group(1) if m else para).strip()


@functools.lru_cache(maxsize=8)
def code_sft_pairs(modules: tuple[str, ...] = CODE_SFT_MODULES, max_chars: int = 900) -> tuple[str, ...]:
    """CodeSearchNet-like SFT texts from ``modules``: for every function with a docstring, ``# <summary>`` on
    one line, then the function with its docstring removed (``ast.unparse``: comments dropped); functions
    longer than ``max_chars`` are skipped."""
    out = []
    for _, _, tree in _trees(modules):
        for node in _defs(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if not doc or len(node.body) < 2:
                    continue
                node.body = node.body[1:]
                body = ast.unparse(node)
                if len(body) <= max_chars:
                    out.append(f"# {_summary(doc)}\n{body}\n")
    return tuple(out)


@functools.lru_cache(maxsize=8)
def general_sft_pairs(modules: tuple[str, ...] = GENERAL_SFT_MODULES) -> tuple[str, ...]:
    """Instruction-style SFT texts over general prose (LIMA-like): ``Explain what NAME does.`` and, as the answer,
    the prose of NAME's docstring (:func:`prose`; functions and classes of ``modules`` with at least 60
    characters of it)."""
    out = []
    for _, _, tree in _trees(modules):
        for node in _defs(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                doc = ast.get_docstring(node)
                text = prose(doc) if doc else ""
                if len(text) >= 60:
                    out.append(f"Explain what {node.name} does.\n{text}\n")
    return tuple(out)


_NAMES = ("Ada", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Mo", "Nia")
_ITEMS = ("apples", "books", "coins", "stamps", "shells", "pencils", "marbles", "cards")


def math_worked(n: int, seed: int) -> list[str]:
    """``n`` worked multi-step arithmetic solutions (the math midtraining data)::

        Compute (a + b) * c.
        Step 1: a + b = s.
        Step 2: s * c = r.
        Answer: r.
    """
    g = np.random.default_rng(np.random.SeedSequence([seed, 71]))
    out = []
    for _ in range(n):
        a, b, c = (int(v) for v in g.integers(2, 60, 3))
        op1, op2 = g.choice(["+", "-", "*"], 2)
        s = eval(f"{a}{op1}{b}")                                          # noqa: S307 (our own integers)
        r = eval(f"{s}{op2}{c}")                                          # noqa: S307
        out.append(f"Compute ({a} {op1} {b}) {op2} {c}.\nStep 1: {a} {op1} {b} = {s}.\n"
                   f"Step 2: {s} {op2} {c} = {r}.\nAnswer: {r}.\n")
    return out


def math_word(n: int, seed: int) -> list[str]:
    """``n`` GSM8K-like word problems with a worked answer (the math SFT target; templates disjoint from
    :func:`math_worked`)."""
    g = np.random.default_rng(np.random.SeedSequence([seed, 73]))
    out = []
    for _ in range(n):
        who = str(g.choice(_NAMES))
        item = str(g.choice(_ITEMS))
        a, b, c = (int(v) for v in g.integers(2, 40, 3))
        kind = int(g.integers(3))
        if kind == 0:
            q = f"{who} has {a} {item} and gets {b} more, then gives away {min(c, a + b)}."
            s, r = a + b, a + b - min(c, a + b)
            ans = f"{a} + {b} = {s}. {s} - {min(c, a + b)} = {r}."
        elif kind == 1:
            q = f"{who} buys {a} boxes with {b} {item} in each, and {c} {item} more."
            s, r = a * b, a * b + c
            ans = f"{a} * {b} = {s}. {s} + {c} = {r}."
        else:
            q = f"{who} had {a + b} {item}, lost {b}, and then found {c}."
            s, r = a, a + c
            ans = f"{a + b} - {b} = {s}. {s} + {c} = {r}."
        out.append(f"Question: {q} How many {item} does {who} have now?\nAnswer: {ans} The answer is {r}.\n")
    return out


@dataclasses.dataclass(frozen=True)
class Corpora:
    """The texts of every role: ``general`` (train and validation texts), ``code``, ``math`` (midtraining) and the
    three SFT targets (train and validation texts each), with the SHA-256 of each role's joined text."""

    general_train: tuple[str, ...]
    general_val: tuple[str, ...]
    mid: dict[str, tuple[str, ...]]
    sft_train: dict[str, tuple[str, ...]]
    sft_val: dict[str, tuple[str, ...]]
    sha256: dict[str, str]

    def texts(self, role: str) -> tuple[str, ...]:
        """The texts of ``role``: general, code, math, or an SFT target (train and validation joined)."""
        if role == "general":
            return self.general_train + self.general_val
        if role in self.mid:
            return self.mid[role]
        if role in self.sft_train:
            return self.sft_train[role] + self.sft_val[role]
        raise ValueError(f"role={role!r} is not allowed; allowed values: general, "
                         f"{', '.join(self.mid)}, {', '.join(self.sft_train)}")


def _split(texts, n_val: int, seed: int, stream: int):
    g = np.random.default_rng(np.random.SeedSequence([seed, stream]))
    idx = g.permutation(len(texts))
    texts = [texts[i] for i in idx]
    return tuple(texts[n_val:]), tuple(texts[:n_val])


def _sha(texts) -> str:
    return hashlib.sha256("\x1e".join(texts).encode("utf-8")).hexdigest()


def _nonempty(name: str, texts) -> None:
    if not texts:
        raise ValueError(f"the {name} corpus is empty after extraction (check the module list / Python version)")


def _first(modules: tuple[str, ...], n: int | None) -> tuple[str, ...]:
    mods = _available(modules)
    return mods if n is None else mods[:n]


def build_corpora(n_math_mid: int, n_sft_train: int, n_sft_val: int, n_general_val: int, seed: int = 0,
                  code_mid_files: int | None = None, n_modules: int | None = None) -> Corpora:
    """Every corpus of the chapter. The general docstrings and the SFT pools are split by the ``seed``
    (validation texts held out of training); SFT train sets are the first ``n_sft_train`` texts of each target
    after the split (the same count per target); ``code_mid_files`` keeps that many source files (None: all);
    ``n_modules`` reads only the first that many modules of each pinned list (None: all; small profiles)."""
    check_disjoint(general=GENERAL_MODULES, code_mid=CODE_MID_MODULES, code_sft=CODE_SFT_MODULES,
                   general_sft=GENERAL_SFT_MODULES)
    general = list(docstrings(_first(GENERAL_MODULES, n_modules)))
    _nonempty("general", general)
    g_train, g_val = _split(general, n_general_val, seed, 1)
    code = stdlib_corpus(_first(CODE_MID_MODULES, n_modules))
    files = [f for f in code.text.split("\n# ---- file: ") if f.strip()]
    if code_mid_files is not None:
        files = files[:code_mid_files]
    code_texts = tuple("# ---- file: " + f for f in files)
    _nonempty("code midtraining", code_texts)
    mid = {"code": code_texts, "math": tuple(math_worked(n_math_mid, seed))}
    pools = {"code_sft": list(code_sft_pairs(_first(CODE_SFT_MODULES, n_modules))),
             "math_sft": math_word(n_sft_train + n_sft_val, seed),
             "general_sft": list(general_sft_pairs(_first(GENERAL_SFT_MODULES, n_modules)))}
    sft_train, sft_val = {}, {}
    for k, pool in pools.items():
        _nonempty(k, pool)
        if len(pool) < n_sft_train + n_sft_val:
            raise ValueError(f"the {k} pool holds {len(pool)} texts; n_sft_train + n_sft_val = "
                             f"{n_sft_train + n_sft_val} asked")
        tr, va = _split(pool, n_sft_val, seed, 2 + len(k))
        sft_train[k], sft_val[k] = tr[:n_sft_train], va
    sha = {"general": _sha(general), "code": code.sha256, "math": _sha(mid["math"])}
    sha.update({k: _sha(v) for k, v in pools.items()})
    return Corpora(g_train, g_val, mid, sft_train, sft_val, sha)


#: the files a user data folder holds (``full`` profile): one JSON object per line with a ``text`` field
SHARD_ROLES: tuple[str, ...] = ("general", "code", "math", "code_sft", "math_sft", "general_sft")


def load_shards(data_dir, n_sft_train: int, n_sft_val: int, n_general_val: int, seed: int = 0,
                max_texts: int | None = None) -> Corpora:
    """The corpora of every role read from the reader's local shards (the ``full`` profile's ``data_dir``; nothing
    is downloaded): ``<data_dir>/<role>.jsonl`` for each role of :data:`SHARD_ROLES` (C4, StarCoder, a math mix,
    PyCode, GSM8K, a general SFT set in the paper's design), one JSON object per line with a ``text`` field.
    Split by ``seed`` as :func:`build_corpora` does; ``max_texts`` reads at most that many lines per file."""
    import json
    from pathlib import Path

    root = Path(data_dir).expanduser()
    if not root.is_dir():
        raise ValueError(f"data_dir={str(data_dir)!r} is not allowed; the directory does not exist")
    texts: dict[str, list[str]] = {}
    for role in SHARD_ROLES:
        path = root / f"{role}.jsonl"
        if not path.is_file():
            raise ValueError(f"data_dir={str(data_dir)!r} holds no {role}.jsonl; a user data folder needs "
                             f"{', '.join(r + '.jsonl' for r in SHARD_ROLES)}")
        out = []
        with path.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if max_texts is not None and len(out) >= max_texts:
                    break
                if not line.strip():
                    continue
                try:
                    t = json.loads(line)["text"]
                except (json.JSONDecodeError, KeyError, TypeError) as err:
                    raise ValueError(f"{path} line {i + 1} is not a JSON object with a 'text' field") from err
                if isinstance(t, str) and t.strip():
                    out.append(t)
        _nonempty(f"{role} ({path})", out)
        texts[role] = out
    g_train, g_val = _split(texts["general"], n_general_val, seed, 1)
    if not g_train:
        raise ValueError(f"general.jsonl holds {len(texts['general'])} texts; n_general_val = {n_general_val} "
                         "leaves none for training")
    sft_train, sft_val = {}, {}
    for k in TARGETS:
        if len(texts[k]) < n_sft_train + n_sft_val:
            raise ValueError(f"the {k} shard holds {len(texts[k])} texts; n_sft_train + n_sft_val = "
                             f"{n_sft_train + n_sft_val} asked")
        tr, va = _split(texts[k], n_sft_val, seed, 2 + len(k))
        sft_train[k], sft_val[k] = tr[:n_sft_train], va
    mid = {"code": tuple(texts["code"]), "math": tuple(texts["math"])}
    return Corpora(g_train, g_val, mid, sft_train, sft_val, {k: _sha(v) for k, v in texts.items()})


def tokenizer_sample(corpora: Corpora, chars_per_role: int = 200_000) -> list[str]:
    """A balanced sample for the tokenizer: about ``chars_per_role`` characters of every role's texts (in
    their fixed order, never the validation texts of the general corpus)."""
    out = []
    roles = {"general": corpora.general_train, **corpora.mid, **corpora.sft_train}
    for texts in roles.values():
        n = 0
        for t in texts:
            out.append(t)
            n += len(t)
            if n >= chars_per_role:
                break
    return out


@functools.lru_cache(maxsize=4)
def _tokenizer_cached(key: str, texts: tuple[str, ...], vocab_size: int) -> BPETokenizer:
    return BPETokenizer(texts, vocab_size=vocab_size, min_frequency=2, special=("<bos>", "<eos>", "<pad>"))


def make_tokenizer(corpora: Corpora, vocab_size: int, chars_per_role: int = 200_000) -> BPETokenizer:
    """The chapter's byte-level BPE (``vocab_size`` ids plus ``<bos> <eos> <pad>``), trained offline on
    :func:`tokenizer_sample` (deterministic; built once per process). Treat it as read-only."""
    texts = tuple(tokenizer_sample(corpora, chars_per_role))
    return _tokenizer_cached(_sha(texts), texts, int(vocab_size))


def token_stream(tok: BPETokenizer, texts, max_tokens: int | None = None) -> torch.Tensor:
    """The texts encoded and joined, each followed by ``<eos>`` (1-D int64), cut at ``max_tokens``."""
    eos = tok.special["eos"]
    ids: list[int] = []
    for t in texts:
        ids.extend(tok.encode(t))
        ids.append(eos)
        if max_tokens is not None and len(ids) >= max_tokens:
            break
    if max_tokens is not None:
        ids = ids[:max_tokens]
    return torch.tensor(ids, dtype=torch.long)


def sft_rows(tok: BPETokenizer, texts, width: int) -> torch.Tensor:
    """(N, width + 1) rows of SFT examples: ``<bos>`` text ``<eos>``, cut at ``width + 1`` tokens and padded
    with ``<pad>`` (the loss is taken on every non-pad target: unmasked, as the paper's PyCode and LIMA runs)."""
    bos, eos, pad = tok.special["bos"], tok.special["eos"], tok.special["pad"]
    rows = []
    for t in texts:
        ids = ([bos] + tok.encode(t) + [eos])[: width + 1]
        rows.append(ids + [pad] * (width + 1 - len(ids)))
    return torch.tensor(rows, dtype=torch.long)
