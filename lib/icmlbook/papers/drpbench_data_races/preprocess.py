"""A small C preprocessor for the static front end, keeping every line where it was.

tree-sitter parses the raw text: a macro's use is an unknown call or identifier to it, and the access a
macro body makes (``#define INDIR(p, i) memory[(p) + (i)]``) is invisible. This module expands the
program's own macros before parsing:

- object-like (``#define N 4``) and function-like (``#define F(a, b) ...``, with ``#`` stringification,
  ``##`` pasting and ``...``/``__VA_ARGS__``) definitions, and ``#undef``, in textual order;
- conditional inclusion (``#if``, ``#ifdef``, ``#ifndef``, ``#elif``, ``#else``, ``#endif``) on what it
  can evaluate: ``defined``, integer arithmetic and comparisons, identifiers the program does not define
  read as 0 (as C does); an ``#if`` it cannot evaluate keeps its first branch.

Macros from headers (``assert`` from ``<assert.h>``, ...) are not known and stay as written; the
kernel idiom ``container_of`` is kept for the front end to model (``MODELLED``). Every
directive line (and its backslash continuations) becomes an empty line, and an expansion stays on the
line of its invocation (the newlines of an invocation spread over several lines follow it), so the
output has exactly the lines of the input and line numbers keep their meaning.
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["Macro", "preprocess", "evaluate_condition"]

_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\b(.*)$", re.S)
_DEFINE = re.compile(r"^([A-Za-z_]\w*)(\(([^)]*)\))?(.*)$", re.S)
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/|[A-Za-z_]\w*|##|#', re.S)
MAX_DEPTH = 32


@dataclasses.dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None   # None: object-like
    body: str
    variadic: bool = False


def _parse_define(rest: str) -> Macro | None:
    m = _DEFINE.match(rest.strip())
    if m is None:
        return None
    name, has_params, params, body = m.group(1), m.group(2), m.group(3), m.group(4)
    if has_params is None:
        return Macro(name, None, body.strip())
    names = [p.strip() for p in params.split(",") if p.strip()]
    variadic = bool(names) and names[-1].endswith("...")
    if variadic:
        names[-1] = names[-1][:-3].strip() or "__VA_ARGS__"
    return Macro(name, tuple(names), body.strip(), variadic)


def _invocation_args(s: str, j: int) -> tuple[list[str], int] | None:
    """The arguments of a function-like macro invocation whose name ends at ``j``: (args, end) or None."""
    k = j
    while k < len(s) and s[k] in " \t\n":
        k += 1
    if k >= len(s) or s[k] != "(":
        return None
    depth, args, start, k = 0, [], k + 1, k
    while k < len(s):
        c = s[k]
        if c in "\"'":  # skip a literal
            q, k = c, k + 1
            while k < len(s) and s[k] != q:
                k += 2 if s[k] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(s[start:k])
                return args, k + 1
        elif c == "," and depth == 1:
            args.append(s[start:k])
            start = k + 1
        k += 1
    return None


def _substitute(m: Macro, args: list[str], macros: dict[str, Macro], hide: frozenset, depth: int) -> str:
    params = list(m.params or ())
    if m.variadic:
        fixed = len(params) - 1
        args = args[:fixed] + [",".join(args[fixed:])] if len(args) > fixed else args + [""]
    if params and len(args) == 1 and not args[0].strip() and len(params) == 1:
        args = [""]
    raw = {p: (args[i].strip() if i < len(args) else "") for i, p in enumerate(params)}
    expanded: dict[str, str] = {}
    out: list[str] = []
    body = m.body
    toks = list(_TOKEN.finditer(body))
    pos = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        out.append(body[pos:t.start()])
        tok = t.group()
        pos = t.end()
        if tok == "#" and i + 1 < len(toks) and toks[i + 1].group() in raw:  # stringify
            nxt = toks[i + 1]
            out.append('"' + raw[nxt.group()].replace("\\", "\\\\").replace('"', '\\"') + '"')
            pos = nxt.end()
            i += 2
            continue
        if tok == "##":  # paste: drop the spaces around it
            while out and out[-1].endswith((" ", "\t")):
                out[-1] = out[-1].rstrip()
            if i + 1 < len(toks):
                nxt = toks[i + 1]
                gap = body[pos:nxt.start()]
                if not gap.strip():
                    pos = nxt.start()
            i += 1
            continue
        if tok in raw:
            pasted = (i > 0 and toks[i - 1].group() == "##" and not body[toks[i - 1].end():t.start()].strip()) or (
                i + 1 < len(toks) and toks[i + 1].group() == "##" and not body[t.end():toks[i + 1].start()].strip())
            if pasted:
                out.append(raw[tok])
            else:
                if tok not in expanded:
                    expanded[tok] = _expand(raw[tok], macros, hide, depth + 1)
                out.append(expanded[tok])
        else:
            out.append(tok)
        i += 1
    out.append(body[pos:])
    return "".join(out)


#: macros the front end models itself instead of expanding them (when the program defines them): the
#: kernel's ``container_of(ptr, type, member)`` becomes ``container_of(ptr, member)`` (its GNU statement
#: expression does not parse, and the front end resolves the pointer: ptr = &s.member gives &s)
MODELLED = ("container_of",)


def _expand(s: str, macros: dict[str, Macro], hide: frozenset = frozenset(), depth: int = 0) -> str:
    if depth > MAX_DEPTH or not macros or not any(name in s for name in macros):
        return s
    out: list[str] = []
    pos = 0
    for t in _TOKEN.finditer(s):
        if t.start() < pos:  # inside an invocation already consumed
            continue
        tok = t.group()
        m = macros.get(tok)
        if m is None or tok in hide:
            continue
        if m.params is None:
            out.append(s[pos:t.start()])
            out.append(" " + _expand(m.body, macros, hide | {tok}, depth + 1) + " ")
            pos = t.end()
            continue
        inv = _invocation_args(s, t.end())
        if inv is None:
            continue
        args, end = inv
        newlines = s.count("\n", t.start(), end)
        args = [a.replace("\n", " ") for a in args]
        out.append(s[pos:t.start()])
        if tok in MODELLED and len(args) == 3:
            out.append(f"{tok}({_expand(args[0], macros, hide, depth + 1)}, {args[2].strip()})" + "\n" * newlines)
            pos = end
            continue
        body = _substitute(m, args, macros, hide | {tok}, depth)
        out.append(" " + _expand(body, macros, hide | {tok}, depth + 1).replace("\n", " ") + " " + "\n" * newlines)
        pos = end
    out.append(s[pos:])
    return "".join(out)


_INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")


def evaluate_condition(expr: str, macros: dict[str, Macro]) -> bool | None:
    """The value of an ``#if`` expression, or None when it is outside what this evaluator reads."""
    e = re.sub(r"\bdefined\s*\(\s*([A-Za-z_]\w*)\s*\)|\bdefined\s+([A-Za-z_]\w*)",
               lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", expr)
    e = _expand(e, macros)
    e = re.sub(r"\bdefined\s*\(\s*([A-Za-z_]\w*)\s*\)|\bdefined\s+([A-Za-z_]\w*)",
               lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", e)
    if re.search(r"[A-Za-z_]\w*\s*\(", e):       # a call (sizeof, a macro from a header): not evaluable here
        return None
    e = _INT.sub(lambda m: str(int(m.group(1), 0)), e)
    e = re.sub(r"[A-Za-z_]\w*", "0", e)           # identifiers the program does not define are 0
    if re.search(r"[^0-9\s()+\-*/%<>=!&|^~]", e):
        return None
    e = e.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    e = re.sub(r"!(?!=)", " not ", e)
    try:
        return bool(eval(compile(e, "<#if>", "eval"), {"__builtins__": {}}, {}))  # digits and operators only
    except Exception:
        return None


def preprocess(text: str) -> str:
    """``text`` with its own macros expanded and inactive conditional branches blanked, line for line."""
    lines = text.split("\n")
    out = [""] * len(lines)
    macros: dict[str, Macro] = {}
    stack: list[list[bool]] = []          # per open conditional: [active, a branch was taken, parent active]
    segment: list[int] = []               # indices of the active code lines since the last directive

    def active() -> bool:
        return all(frame[0] for frame in stack)

    def flush() -> None:
        if not segment:
            return
        block = "\n".join(lines[i] for i in segment)
        expanded = _expand(block, macros).split("\n")
        if len(expanded) != len(segment):  # cannot happen by construction; keep the text rather than shift lines
            expanded = [lines[i] for i in segment]
        for i, line in zip(segment, expanded):
            out[i] = line
        segment.clear()

    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if m is None:
            if active():
                segment.append(i)
            i += 1
            continue
        flush()
        start = i
        logical = lines[i]
        while logical.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical.rstrip()[:-1] + " " + lines[i]
        m = _DIRECTIVE.match(logical)
        name, rest = m.group(1), m.group(2).strip()
        if name in ("if", "ifdef", "ifndef"):
            if not active():
                stack.append([False, True])
            else:
                if name == "if":
                    v = evaluate_condition(rest, macros)
                    v = True if v is None else v
                else:
                    ident = rest.split()[0] if rest.split() else ""
                    v = (ident in macros) == (name == "ifdef")
                stack.append([v, v])
        elif name == "elif" and stack:
            frame = stack[-1]
            parent = all(f[0] for f in stack[:-1])
            if frame[1] or not parent:
                frame[0] = False
            else:
                v = evaluate_condition(rest, macros)
                v = True if v is None else v
                frame[0] = frame[1] = v
        elif name == "else" and stack:
            frame = stack[-1]
            frame[0] = not frame[1]
            frame[1] = True
        elif name == "endif" and stack:
            stack.pop()
        elif active() and name == "define":
            mac = _parse_define(rest)
            if mac is not None:
                macros[mac.name] = mac
        elif active() and name == "undef":
            macros.pop(rest.split()[0] if rest.split() else "", None)
        for j in range(start, i + 1):
            out[j] = ""
        i += 1
    flush()
    return "\n".join(out)
