"""Where the benchmark's annotators put an access made inside a helper: on the helper's line, on the call
line, or on a list of both.

DRDBench's format lets a race endpoint be a *list* of lines ("the access can be attributed to any of several
lines, e.g. through a helper function called from different sites"), but says nothing about which lines go
in it. A generator that writes annotations in that format, and a metric that scores predictions against
them, have to follow what the annotators actually did. This module counts it on the annotated programs,
from their text alone:

- a **helper** is a function the program defines that is neither ``main`` nor a thread's start function
  (the third argument of a ``pthread_create``), or a function-like macro it ``#define``s;
- a **call line** is a line holding a call of a helper; a **helper line** is a line inside a helper's body
  (or its ``#define``);
- each endpoint (``lineA`` or ``lineB``, a line or a list) of an annotated race that has a helper line or a
  call line among its lines is classified as one of :data:`FORMS`, together with the number of distinct
  lines from which its helper is called (``sites``).

Function-like macros count as helpers, and so do object-like macros whose body is a statement (``;``, an
assignment, ``++``/``--``; a constant such as ``#define N 10`` does not). A single call line counts as "call
line only" only when the annotated variable is not named on that line except as an address handed on
(``f(&x)``): ``assert(x > 0)`` or ``x = f(y)`` with ``x`` racing is a direct access on the call line.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from .data import Program
from .frontend import _callee, _functions, _text, _walk, parse

__all__ = ["FORMS", "Endpoint", "helper_endpoints", "attribution_summary", "majority_form"]

#: how an endpoint that involves a helper is written
FORMS = ("helper line + one call line", "helper line + several call lines", "helper line only", "call line only",
         "other list")
_MACRO = re.compile(r"^\s*#\s*define\s+(\w+)(\(?)(.*)$")
_STATEMENT_LIKE = re.compile(r";|[^=!<>]=[^=]|\+\+|--")


@dataclasses.dataclass(frozen=True)
class Endpoint:
    program: str
    variable: str
    lines: tuple[int, ...]
    form: str            # one of FORMS
    helper: str          # the helper the endpoint is attributed to
    sites: int           # distinct lines calling that helper in the program
    through_parameter: bool  # the helper's line(s) of the endpoint do not name the variable (``*v`` for ``&x``)


def _structure(text: str):
    """(helper -> (first, last) line of its body or definition, helper -> lines calling it,
    line -> [(helper, call text)] of the calls on that line)."""
    root = parse(text, strict=False).root_node
    funcs = _functions(root)
    threads = set()
    for n in _walk(root):
        if n.type == "call_expression" and _callee(n) == "pthread_create":
            args = n.child_by_field_name("arguments").named_children
            if len(args) >= 3:
                threads.add(re.sub(r"^[&(\s]*|[)\s]*$", "", _text(args[2])))
    spans = {name: (node.start_point[0] + 1, node.end_point[0] + 1) for name, node in funcs.items()
             if name != "main" and name not in threads}
    lines = text.split("\n")
    objects: set[str] = set()
    i = 0
    while i < len(lines):
        m = _MACRO.match(lines[i])
        start = i
        while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
        if m and (m.group(2) or _STATEMENT_LIKE.search(" ".join(lines[start:i + 1])[m.end(1):])):
            spans.setdefault(m.group(1), (start + 1, i + 1))
            if not m.group(2):
                objects.add(m.group(1))
        i += 1
    calls: dict[str, set[int]] = {h: set() for h in spans}
    on_line: dict[int, list[tuple[str, str]]] = {}

    def site(h: str, line: int, text: str) -> None:
        if h in spans and not spans[h][0] <= line <= spans[h][1]:
            calls[h].add(line)
            on_line.setdefault(line, []).append((h, text))

    for n in _walk(root):
        if n.type == "call_expression":
            site(_callee(n), n.start_point[0] + 1, _text(n))
        elif n.type == "identifier" and _text(n) in objects:      # a statement-like object macro used
            site(_text(n), n.start_point[0] + 1, _text(n))
    return spans, calls, on_line


def helper_endpoints(programs: Iterable[Program]) -> list[Endpoint]:
    """Every annotated race endpoint that involves a helper, classified (see the module docstring)."""
    out = []
    for prog in programs:
        if not prog.races:
            continue
        spans, calls, on_line = _structure(prog.text)
        text_lines = prog.text.split("\n")

        def owner(line: int) -> str | None:
            return next((h for h, (a, b) in spans.items() if a <= line <= b), None)

        for race in prog.races:
            idents = re.findall(r"[A-Za-z_]\w*", race.variable)
            for side in (race.a, race.b):
                helper_lines = [(ln, owner(ln)) for ln in side if owner(ln)]
                call_lines = [ln for ln in side if ln in on_line]
                if not helper_lines and not call_lines:
                    continue
                if len(side) == 1 and helper_lines:
                    form, helper = FORMS[2], helper_lines[0][1]
                elif len(side) == 1:
                    ln = side[0]
                    helper = on_line[ln][0][0]
                    rest = re.sub(r"&\s*[\w.\[\]>-]+", " ", text_lines[ln - 1])    # addresses handed on
                    if any(re.search(rf"(?<!\w){re.escape(i)}(?!\w)", rest) for i in idents):
                        continue          # a direct access (an argument's value read) on a line calling a helper
                    form = FORMS[3]
                elif helper_lines and call_lines:
                    helper = helper_lines[0][1]
                    form = FORMS[0] if len(call_lines) == 1 else FORMS[1]
                else:
                    helper = helper_lines[0][1] if helper_lines else on_line[call_lines[0]][0][0]
                    form = FORMS[4]
                a, b = spans[helper]
                inside = [text_lines[ln - 1] for ln in side if a <= ln <= b]
                named = any(re.search(rf"(?<!\w){re.escape(i)}(?!\w)", row) for row in inside for i in idents)
                out.append(Endpoint(prog.name, race.variable, tuple(side), form, helper, len(calls[helper]),
                                    through_parameter=not named))
    return out


def attribution_summary(endpoints: Iterable[Endpoint], min_sites: int = 1,
                        through_parameter: bool | None = None) -> dict[str, int]:
    """Endpoints per form, over those whose helper is called from at least ``min_sites`` lines (and, when
    ``through_parameter`` is given, only those whose helper reaches the variable through a parameter, or
    only those that name it)."""
    out = {f: 0 for f in FORMS}
    for e in endpoints:
        if e.sites >= min_sites and (through_parameter is None or e.through_parameter == through_parameter):
            out[e.form] += 1
    return out


def majority_form(endpoints: Iterable[Endpoint], min_sites: int = 2, through_parameter: bool | None = None) -> str:
    """The most frequent form among the selected endpoints (see :func:`attribution_summary`)."""
    counts = attribution_summary(endpoints, min_sites, through_parameter)
    if not sum(counts.values()):
        raise ValueError("no endpoint attributed to a helper in the selection")
    return max(counts, key=counts.get)
