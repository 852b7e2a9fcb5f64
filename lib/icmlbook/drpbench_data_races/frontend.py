"""A static front end for pthread C programs, on a real C parser (tree-sitter with tree-sitter-c).

It reads only the C text. From it, it extracts what a lockset / happens-before race analysis needs:

- the shared data: global variables (not the synchronisation objects), and the objects a thread reaches
  through its start argument (``pthread_create(&t, 0, f, &x)`` makes ``*arg`` in ``f`` an alias of ``x``,
  also through local pointer copies such as ``int *p = (int *)arg``);
- every access to shared data: the lvalue as written, its object key (base variable and field path, with
  array indices folded), the line (1-based), read or write;
- the thread contexts: ``main`` and one per ``pthread_create`` start function, with a flag for functions
  started more than once (in a loop, or at two call sites), so that their accesses race with themselves;
- the lockset held at each access (mutexes, spin locks, ``__VERIFIER_atomic_begin/end`` blocks, functions
  whose name starts with ``__VERIFIER_atomic``, and optionally semaphores used as locks), walking each
  function in textual order and inlining calls up to a bounded depth;
- the create/join order of ``main``: accesses before its first ``pthread_create`` and after its joins.

This is a syntactic analysis with the usual approximations (no path sensitivity, textual lock order,
bounded inlining, array elements folded): a baseline of the kind the paper's LLMs compete with, not a
verifier.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterator

__all__ = ["Access", "Analysis", "Options", "analyse", "parse", "constructs_of", "CONSTRUCTS", "ParseError"]

MUTEX_LOCK = {"pthread_mutex_lock", "pthread_spin_lock", "pthread_rwlock_wrlock", "pthread_rwlock_rdlock",
              "pthread_mutex_trylock"}
MUTEX_UNLOCK = {"pthread_mutex_unlock", "pthread_spin_unlock", "pthread_rwlock_unlock"}
SEM_WAIT, SEM_POST = {"sem_wait"}, {"sem_post"}
SYNC_TYPES = re.compile(r"\b(pthread_mutex_t|pthread_spinlock_t|pthread_rwlock_t|pthread_cond_t|"
                        r"pthread_barrier_t|sem_t|pthread_t|pthread_attr_t|pthread_mutexattr_t)\b")
LOOPS = {"for_statement", "while_statement", "do_statement"}
MAX_INLINE = 6


class ParseError(ValueError):
    """The C text does not parse."""


@functools.lru_cache(maxsize=1)
def _parser():
    import tree_sitter as ts
    import tree_sitter_c as tsc

    return ts.Parser(ts.Language(tsc.language()))


def parse(text: str, *, strict: bool = True):
    """The tree-sitter syntax tree of ``text``. ``strict`` raises :class:`ParseError` (with the first bad
    line) when the parser had to recover from an error."""
    tree = _parser().parse(text.encode("utf-8"))
    if strict and tree.root_node.has_error:
        bad = next(_error_nodes(tree.root_node), None)
        line = bad.start_point[0] + 1 if bad is not None else "?"
        raise ParseError(f"the C text does not parse (first error at line {line})")
    return tree


def _error_nodes(node) -> Iterator:
    return (n for n in _walk(node) if n.type == "ERROR" or n.is_missing)


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _walk(node) -> Iterator:
    """Every node under ``node`` (itself first), in document order, without recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _declared_name(decl) -> str | None:
    """The identifier a declarator declares (through pointers, arrays, initialisers, parentheses)."""
    while decl is not None:
        if decl.type == "identifier":
            return _text(decl)
        if decl.type == "function_declarator":
            return None
        decl = decl.child_by_field_name("declarator")
    return None


def _strip(node):
    """Remove parentheses and casts around an expression."""
    while node is not None and node.type in ("parenthesized_expression", "cast_expression"):
        node = node.child_by_field_name("value") if node.type == "cast_expression" else node.named_children[0]
    return node


@dataclasses.dataclass(frozen=True)
class Access:
    """One access to shared data in one thread context."""

    key: tuple[str, str]     # (base shared variable, field path with indices folded to [])
    variable: str            # the lvalue as written
    line: int                # 1-based line in the program
    write: bool
    context: str             # "main" or the thread's start function
    multi: bool              # the context runs more than once concurrently
    locks: frozenset[str]    # locks held (mutex names, "atomic", "sem:<name>")
    phase: str               # main only: "pre" (before any create), "post" (after the joins), "" otherwise
    function: str            # the function whose body holds the access


@dataclasses.dataclass
class Analysis:
    accesses: list[Access]
    threads: dict[str, bool]          # start function -> started more than once
    globals: set[str]
    has_main: bool
    recovered: bool = False           # the parser recovered from a syntax error (non-strict parsing only)


@dataclasses.dataclass(frozen=True)
class Options:
    """What the analysis honours (the ablations of the myopia study switch these off)."""

    atomic: bool = True          # SV-COMP atomic blocks and __VERIFIER_atomic* functions
    semaphores: bool = True      # sem_wait/sem_post pairs as a lock
    create_join: bool = True     # main's accesses before the first create / after the joins
    multiplicity: bool = True    # a start function run twice races with itself


def _functions(root) -> dict[str, object]:
    out = {}
    for node in root.children:
        if node.type == "function_definition":
            d = node.child_by_field_name("declarator")
            while d is not None and d.type != "function_declarator":
                d = d.child_by_field_name("declarator")
            if d is not None:
                name = d.child_by_field_name("declarator")
                if name is not None and name.type == "identifier":
                    out[_text(name)] = node
    return out


def _params(fn) -> list[str]:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    names = []
    if d is not None:
        for p in d.child_by_field_name("parameters").named_children:
            if p.type == "parameter_declaration":
                n = _declared_name(p.child_by_field_name("declarator"))
                if n:
                    names.append(n)
    return names


def _globals(root) -> set[str]:
    names = set()
    for node in root.children:
        if node.type != "declaration":
            continue
        if SYNC_TYPES.search(_text(node.child_by_field_name("type") or node)):
            continue
        if any(c.type == "storage_class_specifier" and _text(c) == "extern" for c in node.children) and "(" in _text(node):
            continue
        for d in node.children_by_field_name("declarator"):
            n = _declared_name(d)
            if n:
                names.add(n)
    return names


def _callee(call) -> str | None:
    f = _strip(call.child_by_field_name("function"))
    return _text(f) if f is not None and f.type == "identifier" else None


def _args(call) -> list:
    return list(call.child_by_field_name("arguments").named_children)


def _lock_name(arg) -> str:
    a = _strip(arg)
    if a is not None and a.type == "pointer_expression" and _text(a).startswith("&"):
        a = a.child_by_field_name("argument")
    return re.sub(r"\[[^\]]*\]", "[]", re.sub(r"\s+", "", _text(a))) if a is not None else "?"


def _in_loop(node) -> bool:
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in LOOPS:
            return True
        p = p.parent
    return False


def _lvalue_chain(ident):
    """The largest lvalue expression rooted at ``ident`` (through *, ->, ., [] and parentheses)."""
    node = ident
    while node.parent is not None:
        par = node.parent
        if par.type == "field_expression" and par.child_by_field_name("argument") == node:
            node = par
        elif par.type == "subscript_expression" and par.child_by_field_name("argument") == node:
            node = par
        elif par.type == "pointer_expression" and _text(par).startswith("*"):
            node = par
        elif par.type in ("parenthesized_expression",):
            node = par
        elif par.type == "cast_expression" and par.child_by_field_name("value") == node:
            node = par
        else:
            break
    return node


def _path(lv, base) -> str:
    """The field path of lvalue ``lv`` relative to its base identifier, indices folded to []."""
    parts = []
    node = lv
    while node is not None and node != base:
        if node.type == "field_expression":
            op = _text(node.child_by_field_name("operator"))
            parts.append(op + _text(node.child_by_field_name("field")))
            node = node.child_by_field_name("argument")
        elif node.type == "subscript_expression":
            parts.append("[]")
            node = node.child_by_field_name("argument")
        elif node.type == "pointer_expression":
            parts.append("*")
            node = node.child_by_field_name("argument")
        elif node.type == "parenthesized_expression":
            node = node.named_children[0]
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            break
    return "".join(reversed(parts))


def _is_write(lv) -> bool:
    par = lv.parent
    while par is not None and par.type == "parenthesized_expression":
        lv, par = par, par.parent
    if par is None:
        return False
    if par.type == "assignment_expression" and par.child_by_field_name("left") == lv:
        return True
    if par.type == "update_expression":
        return True
    return False


def _address_taken(lv) -> bool:
    par = lv.parent
    return par is not None and par.type == "pointer_expression" and _text(par).startswith("&")


class _Walker:
    def __init__(self, text: str, options: Options, strict: bool = True):
        self.tree = parse(text, strict=strict)
        self.recovered = self.tree.root_node.has_error
        root = self.tree.root_node
        self.opts = options
        self.funcs = _functions(root)
        self.globals = _globals(root)
        self.calls: dict[str, list] = {}
        self.locals: dict[str, set[str]] = {}
        for name, fn in self.funcs.items():
            calls, local = [], set()
            for node in _walk(fn.child_by_field_name("body")):
                if node.type == "call_expression":
                    calls.append((_callee(node), node))
                elif node.type == "declaration":
                    for d in node.children_by_field_name("declarator"):
                        n = _declared_name(d)
                        if n:
                            local.add(n)
            self.calls[name], self.locals[name] = calls, local
        self.params = {name: _params(fn) for name, fn in self.funcs.items()}
        self.accesses: list[Access] = []
        self._anchor: int | None = None
        self.threads: dict[str, bool] = {}
        self.thread_args: dict[str, list[str]] = {}
        self.escaped: dict[str, set[str]] = {}   # locals whose address a function passes to pthread_create
        self._find_threads()
        self.main_first_create, self.main_last_join = self._main_order()

    # -- thread structure --------------------------------------------------------------------------
    def _find_threads(self) -> None:
        counts: dict[str, int] = {}
        for fname in self.funcs:
            for callee, node in self.calls[fname]:
                if callee == "pthread_create":
                    args = _args(node)
                    if len(args) < 3:
                        continue
                    start = _strip(args[2])
                    if start is not None and start.type == "pointer_expression":
                        start = _strip(start.child_by_field_name("argument"))
                    if start is None or start.type != "identifier" or _text(start) not in self.funcs:
                        continue
                    name = _text(start)
                    counts[name] = counts.get(name, 0) + (2 if _in_loop(node) else 1)
                    if len(args) >= 4:
                        target = self._arg_target(args[3])
                        self.thread_args.setdefault(name, []).append(target)
                        if target.startswith("&") and target[1:] in self.locals[fname]:
                            self.escaped.setdefault(fname, set()).add(target[1:])
        self.threads = {n: c > 1 for n, c in counts.items()}

    def _arg_target(self, arg) -> str:
        """What a start argument points at, as an alias prefix: "&x" -> "x", "x" -> "*x"-style pointer."""
        a = _strip(arg)
        if a is None:
            return ""
        if a.type == "pointer_expression" and _text(a).startswith("&"):
            inner = _strip(a.child_by_field_name("argument"))
            base = inner
            while base is not None and base.type in ("subscript_expression", "field_expression"):
                base = base.child_by_field_name("argument")
            return "&" + (_text(base) if base is not None and base.type == "identifier" else "")
        if a.type == "identifier":
            return "*" + _text(a)
        return ""

    def _main_order(self) -> tuple[int, int]:
        main = self.funcs.get("main")
        if main is None:
            return 0, 10**9
        create_nodes = [n for c, n in self.calls["main"] if c == "pthread_create"]
        joins = [n for c, n in self.calls["main"] if c == "pthread_join"]
        first = min(n.start_point[0] + 1 for n in create_nodes) if create_nodes else 10**9
        # "after the joins" only when main joins at least as many threads as it creates (loops count alike)
        n_create = sum(2 if _in_loop(n) else 1 for n in create_nodes)
        n_join = sum(2 if _in_loop(n) else 1 for n in joins)
        last = max(n.end_point[0] + 1 for n in joins) if joins and n_join >= n_create else 10**9
        return first, last

    # -- accesses ----------------------------------------------------------------------------------
    def run(self) -> None:
        if "main" in self.funcs:
            self._visit_function("main", "main", False, frozenset(), {}, 0)
        for t, multi in self.threads.items():
            aliases = {}
            targets = set(self.thread_args.get(t, []))
            params = self.params.get(t, [])
            if params and len(targets) == 1 and next(iter(targets)):
                aliases[params[0]] = next(iter(targets))
            self._visit_function(t, t, multi and self.opts.multiplicity, frozenset(), aliases, 0)

    def _visit_function(self, fname: str, ctx: str, multi: bool, locks: frozenset, aliases: dict, depth: int,
                        anchor: int | None = None) -> None:
        """Walk ``fname`` in thread context ``ctx``; ``anchor`` is the line in main of the outermost call
        (main's create/join phase of an inlined helper's accesses is that of its call site)."""
        self._anchor = anchor
        fn = self.funcs[fname]
        held = set(locks)
        if self.opts.atomic and fname.startswith("__VERIFIER_atomic"):
            held.add("atomic")
        local_alias = dict(aliases)
        escaped = self.escaped.get(fname, set())
        shadow = (self.locals[fname] - escaped) | (set(self.params[fname]) - set(aliases))
        self._walk_body(fn.child_by_field_name("body"), fname, ctx, multi, held, local_alias, shadow, depth)

    def _walk_body(self, node, fname, ctx, multi, held: set, aliases: dict, shadow: set, depth: int) -> None:
        # statements in textual order; a call updates the held set before later statements are seen
        if node.type == "call_expression":
            name = _callee(node)
            args = _args(node)
            for a in args:  # the arguments are evaluated first
                self._walk_body(a, fname, ctx, multi, held, aliases, shadow, depth)
            self._call(node, name, args, fname, ctx, multi, held, aliases, depth)
            return
        if node.type == "declaration":
            self._alias_from_declaration(node, aliases, shadow)
        if node.type == "assignment_expression":
            self._alias_from_assignment(node, aliases, shadow)
        if node.type == "identifier":
            self._access(node, fname, ctx, multi, held, aliases, shadow)
            return
        for c in node.children:
            self._walk_body(c, fname, ctx, multi, held, aliases, shadow, depth)

    def _alias_target(self, expr, aliases) -> str | None:
        e = _strip(expr)
        if e is not None and e.type == "identifier" and _text(e) in aliases:
            return aliases[_text(e)]
        return None

    def _alias_from_declaration(self, node, aliases, shadow) -> None:
        for d in node.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                name = _declared_name(d)
                tgt = self._alias_target(d.child_by_field_name("value"), aliases)
                if name and tgt:
                    aliases[name] = tgt
                    shadow.discard(name)

    def _alias_from_assignment(self, node, aliases, shadow) -> None:
        left = _strip(node.child_by_field_name("left"))
        if left is not None and left.type == "identifier":
            tgt = self._alias_target(node.child_by_field_name("right"), aliases)
            if tgt:
                aliases[_text(left)] = tgt
                shadow.discard(_text(left))

    def _call(self, node, name, args, fname, ctx, multi, held: set, aliases, depth) -> None:
        if name is None:
            return
        if name in MUTEX_LOCK and args:
            held.add(_lock_name(args[0]))
        elif name in MUTEX_UNLOCK and args:
            held.discard(_lock_name(args[0]))
        elif name == "__VERIFIER_atomic_begin" and self.opts.atomic:
            held.add("atomic")
        elif name == "__VERIFIER_atomic_end" and self.opts.atomic:
            held.discard("atomic")
        elif name in SEM_WAIT and args and self.opts.semaphores:
            held.add("sem:" + _lock_name(args[0]))
        elif name in SEM_POST and args and self.opts.semaphores:
            held.discard("sem:" + _lock_name(args[0]))
        elif name in self.funcs and name != "main" and name not in self.threads and depth < MAX_INLINE:
            callee_aliases = {}
            params = self.params.get(name, [])
            for p, a in zip(params, args):
                tgt = self._alias_target(a, aliases) or self._arg_target(a)
                if tgt and (tgt.lstrip("&*") in self.globals or tgt.lstrip("&*") in aliases.values()
                            or tgt in aliases.values()):
                    callee_aliases[p] = tgt
            anchor = self._anchor if self._anchor is not None else node.start_point[0] + 1
            self._visit_function(name, ctx, multi, frozenset(held), callee_aliases, depth + 1, anchor)
            self._anchor = None if depth == 0 else anchor

    def _access(self, ident, fname, ctx, multi, held, aliases, shadow) -> None:
        name = _text(ident)
        par = ident.parent
        if par is not None and par.type == "call_expression" and par.child_by_field_name("function") == ident:
            return
        if name in aliases:
            target = aliases[name]
            base_name = target.lstrip("&*")
            if not base_name:
                return
            lv = _lvalue_chain(ident)
            path = _path(lv, ident)
            if not path:  # the pointer itself (a copy of the argument), not shared data
                return
            if target.startswith("&"):  # p == &x: *p is x, p->f is x.f
                path = path[1:] if path.startswith("*") else ("." + path[2:] if path.startswith("->") else path)
            else:
                path = path  # p == x (a pointer): *p is *x
        elif (name in self.globals or name in self.escaped.get(fname, ())) and name not in shadow:
            base_name = name
            lv = _lvalue_chain(ident)
            path = _path(lv, ident)
        else:
            return
        if _address_taken(lv):
            return  # &x passes the object on; the access happens where it is dereferenced
        line = ident.start_point[0] + 1
        phase = ""
        if ctx == "main" and self.opts.create_join:
            where = self._anchor if self._anchor is not None else line
            if where < self.main_first_create:
                phase = "pre"
            elif where > self.main_last_join:
                phase = "post"
        self.accesses.append(Access(key=(base_name, path), variable=re.sub(r"\s+", "", _text(lv)), line=line,
                                    write=_is_write(lv), context=ctx, multi=multi, locks=frozenset(held),
                                    phase=phase, function=fname))


def analyse(text: str, options: Options | None = None, *, strict: bool = True) -> Analysis:
    """Parse ``text`` and extract the shared accesses of every thread context (see the module doc).
    ``strict=False`` analyses what tree-sitter recovers around syntax it cannot read (GNU extensions,
    macros it does not expand) and marks the result ``recovered``; ``strict=True`` raises ParseError."""
    w = _Walker(text, options or Options(), strict=strict)
    w.run()
    return Analysis(accesses=w.accesses, threads=w.threads, globals=w.globals, has_main="main" in w.funcs,
                    recovered=bool(w.recovered))


#: synchronisation constructs detected in the text (for the per-construct study; syntax only)
CONSTRUCTS: dict[str, re.Pattern] = {
    "mutex": re.compile(r"\bpthread_(mutex|spin|rwlock)_(lock|unlock|wrlock|rdlock|trylock)\b"),
    "semaphore": re.compile(r"\bsem_(wait|post)\b"),
    "condvar": re.compile(r"\bpthread_cond_(wait|signal|broadcast|timedwait)\b"),
    "barrier": re.compile(r"\bpthread_barrier_wait\b"),
    "atomic_block": re.compile(r"\b__VERIFIER_atomic_(begin|end)\s*\("),
    "atomic_function": re.compile(r"\b__VERIFIER_atomic_(?!begin\b|end\b)\w+\s*\("),
    "c11_atomic": re.compile(r"\b(atomic_\w+|__atomic_\w+|__sync_\w+)\s*\("),
    "busy_wait": re.compile(r"\bwhile\s*\([^;{}]*\)\s*(;|\{\s*\})"),
}


def constructs_of(text: str) -> tuple[str, ...]:
    """The synchronisation constructs a program uses (syntactic detection), in CONSTRUCTS order."""
    return tuple(name for name, pat in CONSTRUCTS.items() if pat.search(text))
