"""The real benchmark: SV-COMP NoDataRace-Main programs with DRDBench's line-level race annotations.

Vendored in ``data/drdbench/`` (see its README: 1,008 programs, 226 racy, 555 annotated races; programs
normalised the way the annotations expect, licences and originals kept). The loader checks every
normalised program against the SHA-256 in ``index.json`` and never reads anything else from disk.

A race is ``Race(variable, a, b)`` with ``a`` and ``b`` tuples of 1-based line numbers (a list-valued
annotation line, an access attributable to several lines, is a tuple of length > 1). Pairs are unordered.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["Race", "Program", "DATA_DIR", "load_benchmark", "annotation_consistency", "race_from_dict", "base_identifier",
           "clean_non_race_pairs", "NonRaceCleaning", "line_role", "split_of", "SPLITS"]

DATA_DIR = Path(__file__).resolve().parents[4] / "data" / "drdbench"
ANNOTATION_KINDS = ("race_label", "critical_non_race_pairs", "plain_non_race_pairs")


@dataclasses.dataclass(frozen=True)
class Race:
    """A (predicted or annotated) race: the shared lvalue as written and two unordered line sets.

    ``listed`` records, for an annotation read from the benchmark, whether ``lineA`` and ``lineB`` were written as
    lists (DRDBench's own scoring treats an integer and a list differently: ``metrics.drdbench_counts``); it does
    not take part in equality or hashing."""

    variable: str
    a: tuple[int, ...]
    b: tuple[int, ...]
    listed: tuple[bool, bool] = dataclasses.field(default=(False, False), compare=False)

    def key(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The unordered line pair (what DRDBench's line-level match compares)."""
        return tuple(sorted((self.a, self.b)))  # type: ignore[return-value]


def _lines(value, where: str) -> tuple[int, ...]:
    vals = value if isinstance(value, (list, tuple)) else [value]
    if not vals or any(isinstance(v, bool) or not isinstance(v, int) for v in vals):
        raise ValueError(f"{where}: a line must be an integer or a non-empty list of integers, got {value!r}")
    return tuple(int(v) for v in vals)


def race_from_dict(d: dict, where: str = "race") -> Race:
    """Read ``{"shared_variable", "lineA", "lineB"}`` (the benchmark's and the predictions' format)."""
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object with shared_variable, lineA, lineB; got {d!r}")
    missing = [k for k in ("shared_variable", "lineA", "lineB") if k not in d]
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    var = d["shared_variable"]
    if not isinstance(var, str):
        raise ValueError(f"{where}: shared_variable must be a string, got {var!r}")
    return Race(var, _lines(d["lineA"], where + ".lineA"), _lines(d["lineB"], where + ".lineB"),
                listed=(isinstance(d["lineA"], (list, tuple)), isinstance(d["lineB"], (list, tuple))))


@dataclasses.dataclass(frozen=True)
class Program:
    """One benchmark program (normalised text) and its annotations."""

    name: str                 # "<category>/<file>.c"
    text: str
    racy: bool                # SV-COMP expected verdict of no-data-race is false
    races: tuple[Race, ...] = ()
    critical: tuple[Race, ...] = ()   # DRDBench's "critical non-race pairs": pairs the annotators marked as not racing
    plain: tuple[Race, ...] = ()      # other non-racing access pairs
    source: str = "drdbench"          # "drdbench" or "generated"
    constructs: tuple[str, ...] = ()  # generated programs: the patterns they were composed from
    line_patterns: tuple[str, ...] = ()  # generated programs: per line, the pattern (or "distractor") it belongs to

    @property
    def category(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def check_lines(self) -> None:
        """Raise if an annotation names a line beyond the file."""
        n = len(self.lines)
        for kind, items in (("races", self.races), ("critical", self.critical), ("plain", self.plain)):
            for r in items:
                bad = [x for x in r.a + r.b if not 1 <= x <= n]
                if bad:
                    raise ValueError(f"{self.name}: {kind} annotation of {r.variable!r} names line(s) {bad}, "
                                     f"but the program has {n} lines")


def _sha256(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


def load_benchmark(root: str | Path | None = None, *, verify: bool = True,
                   names: Sequence[str] | None = None) -> list[Program]:
    """Every program of the vendored benchmark (or those in ``names``), in ``index.json``'s order.

    ``verify`` checks the SHA-256 of each normalised program against the index (a mismatch raises:
    line numbers would no longer match the annotations)."""
    root = Path(root) if root is not None else DATA_DIR
    index_path = root / "index.json"
    if not index_path.exists():
        raise FileNotFoundError(f"no benchmark index at {index_path} (the vendored data/drdbench/ is missing)")
    index = json.loads(index_path.read_text())
    wanted = set(names) if names is not None else None
    out = []
    for entry in index:
        name = entry["program"]
        if wanted is not None and name not in wanted:
            continue
        raw = (root / "programs" / name).read_bytes()
        if verify and _sha256(raw) != entry["sha256_normalised"]:
            raise ValueError(f"{name}: SHA-256 of the normalised program does not match index.json "
                             "(the file changed; its annotations' line numbers would be wrong)")
        ann = entry.get("annotations") or {}
        parsed = {k: tuple(race_from_dict(d, f"{name}:{k}[{i}]") for i, d in enumerate(ann.get(k, [])))
                  for k in ANNOTATION_KINDS}
        prog = Program(name=name, text=raw.decode("utf-8"), racy=bool(entry["racy"]), races=parsed["race_label"],
                       critical=parsed["critical_non_race_pairs"], plain=parsed["plain_non_race_pairs"])
        prog.check_lines()
        out.append(prog)
    if wanted is not None and len(out) != len(wanted):
        raise ValueError(f"unknown program(s): {sorted(wanted - {p.name for p in out})[:5]}")
    return out


def base_identifier(variable: str) -> str:
    """The base identifier of an lvalue as annotated: ``*y`` -> ``y``, ``d->y`` -> ``d``,
    ``cache[5].refs`` -> ``cache``, ``(*p).x`` -> ``p``."""
    import re

    m = re.search(r"[A-Za-z_]\w*", variable)
    return m.group(0) if m else variable


def annotation_consistency(programs: Iterable[Program], shift: int = 0) -> tuple[int, int, list[tuple[str, int, str]]]:
    """How many annotated race endpoints name their variable: (endpoints that do, endpoints, the misses as
    (program, first line, variable)).

    An endpoint is a race's ``lineA`` or ``lineB`` (a line or a list of lines); it names its variable when
    one of its lines contains one of the identifiers of the annotated lvalue as a whole word (``d->y``
    names ``d`` and ``y``). ``shift`` reads every annotation that many lines off (what a different
    formatter version would do to the line numbers), for the test of the check itself."""
    import re

    hit = total = 0
    misses = []
    for p in programs:
        lines = p.lines
        n = len(lines)
        for r in p.races:
            idents = re.findall(r"[A-Za-z_]\w*", r.variable) or [r.variable]
            pats = [re.compile(rf"(?<!\w){re.escape(i)}(?!\w)") for i in idents]
            for side in (r.a, r.b):
                total += 1
                rows = [lines[x - 1 + shift] for x in side if 1 <= x + shift <= n]
                if any(pt.search(row) for pt in pats for row in rows):
                    hit += 1
                else:
                    misses.append((p.name, side[0], r.variable))
    return hit, total, misses


# -- DRDBench's critical non-race pairs, cleaned -----------------------------------------------------------------
_ASSIGN = re.compile(r"(?:(?<![=!<>])=(?!=)|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\+\+|--)")


def line_role(line: str, variable: str) -> str | None:
    """How one source line uses the annotated lvalue ``variable``, read from the text alone (no analyser of this
    chapter): ``"write"`` when some occurrence is assigned, incremented, decremented or has its address taken,
    ``"argument"`` when it is handed bare to a call (the callee may write through it), ``"read"`` when every
    occurrence is otherwise read, ``None`` when the lvalue as written does not occur on the line (a macro, a
    pointer spelt differently, a helper's line): undetermined."""
    text, var = re.sub(r"\s+", "", line), re.sub(r"\s+", "", variable)
    if not var:
        return None
    hits = list(re.finditer(r"(?<![\w.>])" + re.escape(var) + r"(?![\w\[(])", text))
    if not hits:
        return None
    role = "read"
    for m in hits:
        before, after = text[: m.start()], text[m.end():]
        if _ASSIGN.match(after) or before.endswith(("++", "--", "&")):
            return "write"
        if before.endswith(("(", ",")) and after.startswith((")", ",")):
            role = "argument"
    return role


@dataclasses.dataclass(frozen=True)
class NonRaceCleaning:
    """What :func:`clean_non_race_pairs` removed from DRDBench's critical non-race pairs: entries whose unordered
    line pair is the line pair of an annotated race of the same program (``same_as_race``), entries whose every
    line only reads the variable on both sides (``read_read``: no conflict, so not a pair a race detector could
    report), and how many remain (``kept``) of ``total``."""

    total: int
    same_as_race: int
    read_read: int
    kept: int
    examples: tuple[tuple[str, str, str, str], ...] = ()   # (program, variable, line A text, line B text) read/read


def clean_non_race_pairs(programs: Iterable[Program]) -> tuple[list[Program], NonRaceCleaning]:
    """DRDBench's ``critical_non_race_pairs`` without the entries that cannot be non-race *conflicting* pairs: those
    identical (same unordered line pair) to an annotated race of the program, and read/read pairs (every line of
    both sides only reads the annotated lvalue, by :func:`line_role`; a side with an undetermined line is kept).
    Returns the programs with ``critical`` cleaned (nothing else changes) and the counts."""
    out, total, same, rr, examples = [], 0, 0, 0, []
    for p in programs:
        race_pairs = {r.key() for r in p.races}
        lines = p.lines
        keep = []
        for g in p.critical:
            total += 1
            if g.key() in race_pairs:
                same += 1
                continue
            roles = [[line_role(lines[x - 1], g.variable) for x in side] for side in (g.a, g.b)]
            if all(r == "read" for side in roles for r in side):
                rr += 1
                if len(examples) < 5:
                    examples.append((p.name, g.variable, lines[g.a[0] - 1].strip(), lines[g.b[0] - 1].strip()))
                continue
            keep.append(g)
        out.append(dataclasses.replace(p, critical=tuple(keep)) if len(keep) != len(p.critical) else p)
    return out, NonRaceCleaning(total, same, rr, total - same - rr, tuple(examples))


# -- the declared tuning split -----------------------------------------------------------------------------------
#: the two halves of the real benchmark: the front end may be tuned on the first only; the rules are scored on the
#: second (declared in the contract's second edition, after an audit found the front end tuned on the programs it is
#: scored on)
SPLITS = ("tuning", "held-out")


def split_of(program: Program | str) -> str:
    """The declared half of a real program, from the SHA-256 of its name alone (content-blind, stable): the parity
    of the hash's first byte. About half of the racy and half of the race-free programs fall in each."""
    name = program if isinstance(program, str) else program.name
    return SPLITS[hashlib.sha256(name.encode("utf-8")).digest()[0] % 2]
