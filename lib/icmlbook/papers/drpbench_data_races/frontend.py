"""A static front end for pthread C programs, on a real C parser (tree-sitter with tree-sitter-c).

It reads only the C text. The program's own macros are expanded first, line for line
(:mod:`.preprocess`), so that an access written through a macro is seen where the macro is used. From
the parsed text it extracts what a lockset / happens-before race analysis needs:

- the shared data: global variables (not the synchronisation objects), locals whose address or pointer
  value a function passes to ``pthread_create``, locals of ``main`` whose address it takes, and everything
  reached from them through pointers the front end resolves (below);
- every access to shared data: the lvalue as written, its object key (base object and a canonical
  accessor path: ``*p``, ``p[i]`` and ``p->`` are all one dereference ``[]``, array indices folded, so
  ``p->f``, ``(*p).f`` and ``p[0].f`` name one object), the line (1-based), read or write;
- the thread contexts: ``main`` and one per ``pthread_create`` start function, with a flag for functions
  started more than once (in a loop, or at two call sites), so that their accesses race with themselves;
- the lockset held at each access (mutexes, spin locks, ``__VERIFIER_atomic_begin/end`` blocks, functions
  whose name starts with ``__VERIFIER_atomic``, C11/GCC atomic builtins, custom flag locks built from
  atomic functions (``assume(m == 0); m = 1;`` acquires ``m``, ``m = 0;`` releases it), and optionally
  semaphores used as locks), walking each function in textual order and inlining calls up to a bounded
  depth;
- the create/join order of ``main``: accesses before its first ``pthread_create`` and after its joins.

**The aliasing assumption.** A pointer designates shared memory only when the front end resolves it: a
thread's start argument (``pthread_create(&t, 0, f, &x)`` makes ``*arg`` in ``f`` the object ``x``), a
parameter bound at an inlined call (``g(&s.f)``, ``g(p)``), or a local assigned from one of those or from
shared data (``int *p = &x;``, ``Node *n = q->head;``: ``n->next`` is ``q->head->next``; the kernel's
``container_of(&s.member, type, member)`` is ``&s``), accumulated
over the function in textual order (may-alias: a pointer keeps every target it was given). A pointer the
front end cannot resolve (``malloc``'s result, a global pointer copied into another global, arithmetic
beyond ``p + k``) is assumed to point to memory no other thread reaches: its dereferences are not shared
accesses. Two lvalues alias iff their base objects and canonical paths are equal; distinct globals never
alias. This is a syntactic analysis with the usual approximations (no path sensitivity, textual lock
order, bounded inlining, array elements folded): a baseline of the kind the paper's LLMs compete with,
not a verifier.

**Where an access is placed.** At its own line, except that an access a callee makes through a pointer
parameter whose argument was ``&lvalue`` at a call site is placed at that call site when the callee is
an atomic function (``__VERIFIER_atomic*``) or a wrapper of at most ``WRAPPER_STATEMENTS`` statements
(``readV(&q.tail)``), as the benchmark's annotators do (``Options.call_sites``). A call to a function the
program does not define (``scanf("%d", &x)``) that receives ``&lvalue`` writes it at the call line, and a
C11/GCC atomic builtin (``__atomic_fetch_add(&v, 1, ...)``) accesses it atomically there.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterator

from .preprocess import preprocess

__all__ = ["Access", "Analysis", "Options", "Target", "Frame", "analyse", "parse", "constructs_of", "CONSTRUCTS",
           "ParseError"]

MUTEX_LOCK = {"pthread_mutex_lock", "pthread_spin_lock", "pthread_rwlock_wrlock", "pthread_rwlock_rdlock",
              "pthread_mutex_trylock"}
MUTEX_UNLOCK = {"pthread_mutex_unlock", "pthread_spin_unlock", "pthread_rwlock_unlock"}
SEM_WAIT, SEM_POST = {"sem_wait"}, {"sem_post"}
SYNC_TYPES = re.compile(r"\b(pthread_mutex_t|pthread_spinlock_t|pthread_rwlock_t|pthread_cond_t|"
                        r"pthread_barrier_t|sem_t|pthread_t|pthread_attr_t|pthread_mutexattr_t)\b")
#: calls whose ``&x`` arguments are synchronisation objects or thread handles, never data accesses
API = re.compile(r"^(pthread_\w+|sem_\w+|container_of|__VERIFIER_atomic_begin|__VERIFIER_atomic_end|__VERIFIER_assume|"
                 r"assume_abort_if_not|free|printf|fprintf|sprintf|puts|memcmp|strlen|sizeof)$")
ATOMIC_BUILTIN = re.compile(r"^(atomic_\w+|__atomic_\w+|__sync_\w+|__c11_atomic_\w+)$")
LOOPS = {"for_statement", "while_statement", "do_statement"}
MAX_INLINE = 6
WRAPPER_STATEMENTS = 3


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


def _is_addr(node) -> bool:
    return node is not None and node.type == "pointer_expression" and _text(node).startswith("&")


def _is_deref(node) -> bool:
    return node is not None and node.type == "pointer_expression" and _text(node).startswith("*")


@dataclasses.dataclass(frozen=True)
class Access:
    """One access to shared data in one thread context."""

    key: tuple[str, str]     # (base shared object, canonical accessor path)
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

    atomic: bool = True          # SV-COMP atomic blocks, __VERIFIER_atomic* functions, C11/GCC atomic builtins
    semaphores: bool = True      # sem_wait/sem_post pairs as a lock
    create_join: bool = True     # main's accesses before the first create / after the joins
    multiplicity: bool = True    # a start function run twice races with itself
    macros: bool = True          # expand the program's own #defines (and its #if branches) before parsing
    call_sites: bool = True      # accesses through &lvalue arguments of wrappers/atomic functions at the call line


@dataclasses.dataclass(frozen=True)
class Target:
    """What a pointer may designate. ``addr``: it holds the address of the object ``base`` + ``path``
    (``p = &s.f``); otherwise it holds the *value* of that lvalue, itself a pointer (``n = q->head``).
    ``site``: the call-site line its dereferences are placed at (None: their own line)."""

    base: str
    path: str
    addr: bool
    site: int | None = None
    label: str | None = None     # the call site's lvalue as written (what an access placed there shows)

    def resolve(self, path: str) -> tuple[str, str] | None:
        """The object that the lvalue ``<pointer><path>`` designates, or None for the pointer itself."""
        if not path:
            return None
        if self.addr:
            return (self.base, self.path + path[2:]) if path.startswith("[]") else None
        return self.base, self.path + path


@dataclasses.dataclass
class MainOrder:
    """main's progress along its walk (textual order, helpers inlined): the threads it has started and
    joined so far, each call weighted by the loops around it and around the calls that lead to it.
    ``total`` is what the whole of main starts. An access of main is ``pre`` while nothing was started,
    ``post`` once at least ``total`` joins were passed."""

    total: int
    created: int = 0
    joined: int = 0

    def phase(self) -> str:
        if self.created == 0:
            return "pre"
        return "post" if self.joined >= self.total > 0 else ""


@dataclasses.dataclass(frozen=True)
class Frame:
    """The explicit walking state of one function body (immutable; a call makes a new frame).

    ``weight`` is the product of 2 for every call in a loop on the way from the thread's start function
    to this body; ``order`` is main's progress (shared by the frames of main's context, None elsewhere)."""

    function: str
    context: str
    multi: bool
    depth: int = 0
    weight: int = 1
    order: MainOrder | None = dataclasses.field(default=None, compare=False)


@dataclasses.dataclass
class _Env:
    """The mutable part of walking one function body: locks held, pointer targets, shadowed names."""

    held: set
    aliases: dict       # local name -> frozenset[Target]
    shadow: set         # locals and unbound parameters (they hide globals of the same name)


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


def _statements(fn) -> int:
    body = fn.child_by_field_name("body")
    return sum(1 for n in _walk(body) if n.type.endswith("_statement") and n.type != "compound_statement"
               or n.type == "declaration")


def _callee(call) -> str | None:
    f = _strip(call.child_by_field_name("function"))
    return _text(f) if f is not None and f.type == "identifier" else None


def _args(call) -> list:
    return list(call.child_by_field_name("arguments").named_children)


def _lock_name(arg) -> str:
    a = _strip(arg)
    if _is_addr(a):
        a = a.child_by_field_name("argument")
    return re.sub(r"\[[^\]]*\]", "[]", re.sub(r"\s+", "", _text(a))) if a is not None else "?"


def _in_loop(node) -> bool:
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in LOOPS:
            return True
        p = p.parent
    return False


def _is_declared_name(ident) -> bool:
    """``ident`` is the name a declaration or parameter declares (not a use)."""
    n, p = ident, ident.parent
    while p is not None and p.type.endswith("_declarator") and p.type != "init_declarator" \
            and p.child_by_field_name("declarator") == n:
        n, p = p, p.parent
    if p is None:
        return False
    if p.type == "init_declarator":
        return p.child_by_field_name("declarator") == n
    return p.type in ("declaration", "parameter_declaration", "field_declaration") and n in p.children_by_field_name("declarator")


def _lvalue_chain(ident):
    """The largest lvalue expression rooted at ``ident`` (through *, ->, ., [] and parentheses)."""
    node = ident
    while node.parent is not None:
        par = node.parent
        if par.type in ("field_expression", "subscript_expression") and par.child_by_field_name("argument") == node:
            node = par
        elif _is_deref(par) or par.type == "parenthesized_expression":
            node = par
        elif par.type == "cast_expression" and par.child_by_field_name("value") == node:
            node = par
        else:
            break
    while node.type == "parenthesized_expression" and node.named_children:  # (x) in if (x) is x
        node = node.named_children[0]
    return node


def _root_and_path(lv):
    """The root identifier of lvalue ``lv`` and its canonical accessor path (``*``, ``[i]`` and the
    dereference of ``->`` all ``[]``; ``.f`` and ``->f`` keep the field): (identifier node, path) or None."""
    parts = []
    node = lv
    while node is not None:
        if node.type == "identifier":
            return node, "".join(reversed(parts))
        if node.type == "field_expression":
            op = _text(node.child_by_field_name("operator"))
            parts.append(("[]." if op == "->" else ".") + _text(node.child_by_field_name("field")))
            node = node.child_by_field_name("argument")
        elif node.type == "subscript_expression" or _is_deref(node):
            parts.append("[]")
            node = node.child_by_field_name("argument")
        elif node.type == "parenthesized_expression":
            node = node.named_children[0] if node.named_children else None
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            return None
    return None


ASSUME = {"assume", "assume_abort_if_not", "__VERIFIER_assume"}


def _flag_lock_role(fn):
    """("acquire", lvalue) for an atomic function that waits for a flag to be 0 and sets it to 1
    (``assume(m == 0); m = 1;``: SV-COMP's custom spin locks), ("release", lvalue) for one that sets it
    back to 0 without setting it to 1, None otherwise. The lvalue node is the flag as the body writes it."""
    stores: dict[str, tuple[set, object]] = {}
    waits_free: set[str] = set()
    for n in _walk(fn.child_by_field_name("body")):
        if n.type == "assignment_expression" and _text(n.child_by_field_name("operator")) == "=":
            right = _strip(n.child_by_field_name("right"))
            if right is not None and _text(right) in ("0", "1", "true", "false"):
                left = _strip(n.child_by_field_name("left"))
                key = re.sub(r"\s+", "", _text(left))
                stores.setdefault(key, (set(), left))[0].add(_text(right) in ("1", "true"))
        elif n.type == "call_expression" and _callee(n) in ASSUME and _args(n):
            c = _strip(_args(n)[0])
            if c is not None and c.type == "binary_expression" and _text(c.child_by_field_name("operator")) == "==" \
                    and _text(_strip(c.child_by_field_name("right"))) in ("0", "false"):
                waits_free.add(re.sub(r"\s+", "", _text(_strip(c.child_by_field_name("left")))))
            elif c is not None and c.type == "unary_expression" and _text(c).startswith("!"):
                waits_free.add(re.sub(r"\s+", "", _text(_strip(c.child_by_field_name("argument")))))
    for key, (values, node) in stores.items():
        if key in waits_free and True in values:
            return "acquire", node
    for key, (values, node) in stores.items():
        if values == {False}:
            return "release", node
    return None


def _is_write(lv) -> bool:
    par = lv.parent
    while par is not None and par.type == "parenthesized_expression":
        lv, par = par, par.parent
    if par is None:
        return False
    if par.type == "assignment_expression" and par.child_by_field_name("left") == lv:
        return True
    return par.type == "update_expression"


class _Walker:
    """Walks every thread context of one program and collects its shared accesses. All state that
    varies along the walk is explicit: an immutable :class:`Frame` per inlined function and an
    :class:`_Env` per function body, passed down the calls; the walker itself holds only what the whole
    program determines (functions, globals, thread structure) and the output."""

    def __init__(self, text: str, options: Options, strict: bool = True):
        self.opts = options
        source = preprocess(text) if options.macros else text
        self.tree = parse(source, strict=strict)
        self.recovered = self.tree.root_node.has_error
        root = self.tree.root_node
        self.funcs = _functions(root)
        self.globals = _globals(root)
        self.calls: dict[str, list] = {}
        self.locals: dict[str, set[str]] = {}
        self.sync_locals: dict[str, set[str]] = {}    # locals of synchronisation types (thread handles, ...)
        for name, fn in self.funcs.items():
            calls, local = [], set()
            for node in _walk(fn.child_by_field_name("body")):
                if node.type == "call_expression":
                    calls.append((_callee(node), node))
                elif node.type == "declaration":
                    sync = bool(SYNC_TYPES.search(_text(node.child_by_field_name("type") or node)))
                    for d in node.children_by_field_name("declarator"):
                        n = _declared_name(d)
                        if n:
                            local.add(n)
                            if sync:
                                self.sync_locals.setdefault(name, set()).add(n)
            self.calls[name], self.locals[name] = calls, local
        self.params = {name: _params(fn) for name, fn in self.funcs.items()}
        self.flag_roles = {name: role for name, fn in self.funcs.items()
                           if name.startswith("__VERIFIER_atomic") and (role := _flag_lock_role(fn)) is not None}
        self.wrappers = {name for name, fn in self.funcs.items()
                         if name.startswith("__VERIFIER_atomic") or _statements(fn) <= WRAPPER_STATEMENTS}
        self.accesses: list[Access] = []
        self.threads: dict[str, bool] = {}
        self.thread_args: dict[str, set] = {}       # start function -> targets of its argument, bound as created
        self.escaped: dict[str, set[str]] = {}      # function -> locals whose address it passes to pthread_create
        self.escaped_value: dict[str, set[str]] = {}  # function -> local pointers whose value it passes
        self._find_threads()
        self.main_creates = self._spawns("main", "pthread_create") if "main" in self.funcs else 0

    # -- thread structure --------------------------------------------------------------------------
    def _find_threads(self) -> None:
        counts: dict[str, int] = {}
        for fname in self.funcs:
            for callee, node in self.calls[fname]:
                if callee != "pthread_create":
                    continue
                args = _args(node)
                name = self._start_function(args)
                if name is None:
                    continue
                counts[name] = counts.get(name, 0) + (2 if _in_loop(node) else 1)
                if len(args) >= 4:
                    a = _strip(args[3])
                    if _is_addr(a):
                        rp = _root_and_path(a.child_by_field_name("argument"))
                        if rp is not None and _text(rp[0]) in self.locals[fname]:
                            self.escaped.setdefault(fname, set()).add(_text(rp[0]))
                    elif a is not None and a.type == "identifier" and _text(a) in self.locals[fname]:
                        self.escaped_value.setdefault(fname, set()).add(_text(a))
        self.threads = {n: c > 1 for n, c in counts.items()}
        # main runs once: a local of main whose address it takes (hands to a helper that starts the
        # threads, to a thread, to a wrapper) is one object that the pointers resolved from it designate
        if "main" in self.funcs:
            for node in _walk(self.funcs["main"].child_by_field_name("body")):
                if _is_addr(node):
                    rp = _root_and_path(node.child_by_field_name("argument"))
                    name = _text(rp[0]) if rp is not None else ""
                    if name in self.locals["main"] and name not in self.sync_locals.get("main", ()):
                        self.escaped.setdefault("main", set()).add(name)

    def _start_function(self, args) -> str | None:
        if len(args) < 3:
            return None
        start = _strip(args[2])
        if _is_addr(start):
            start = _strip(start.child_by_field_name("argument"))
        if start is None or start.type != "identifier" or _text(start) not in self.funcs:
            return None
        return _text(start)

    def _spawns(self, fname: str, api: str, stack: tuple = ()) -> int:
        """How many ``api`` calls (pthread_create or pthread_join) a call of ``fname`` makes, through the
        functions it calls (a call in a loop counts twice)."""
        if fname in stack or len(stack) > MAX_INLINE:
            return 0
        total = 0
        for callee, node in self.calls[fname]:
            k = 1 if callee == api else (self._spawns(callee, api, stack + (fname,))
                                         if callee in self.funcs and callee not in self.threads else 0)
            total += 2 * k if _in_loop(node) else k
        return total


    # -- names and targets -------------------------------------------------------------------------
    def _base(self, name: str, frame: Frame, env: _Env) -> str | None:
        """The shared object an identifier names directly (a global, or an escaped local), or None."""
        if name in self.escaped.get(frame.function, ()) or name in self.escaped_value.get(frame.function, ()):
            return f"{frame.function}:{name}"
        if name in self.globals and name not in env.shadow:
            return name
        return None

    def _objects(self, lv, frame: Frame, env: _Env) -> list[tuple[str, str, int | None, str | None]]:
        """The shared objects lvalue ``lv`` may designate: (base, path, site line or None, the lvalue as
        written at that site or None)."""
        rp = _root_and_path(lv)
        if rp is None:
            return []
        ident, path = rp
        name = _text(ident)
        if name in env.aliases:
            return [(obj[0], obj[1], t.site, t.label and t.label + path[2:].replace("[].", "->"))
                    for t in env.aliases[name] if (obj := t.resolve(path)) is not None]
        base = self._base(name, frame, env)
        if base is None or (not path and name in self.escaped_value.get(frame.function, ())):
            return []   # a local pointer whose value escaped: only what it points to is shared
        return [(base, path, None, None)]

    def _targets(self, expr, frame: Frame, env: _Env) -> frozenset:
        """What the value of ``expr`` may point to (see the module's aliasing assumption)."""
        e = _strip(expr)
        if e is None:
            return frozenset()
        if _is_addr(e):
            return frozenset(Target(b, p, True, s, lab) for b, p, s, lab in self._objects(e.child_by_field_name("argument"), frame, env))
        if e.type == "conditional_expression":
            return (self._targets(e.child_by_field_name("consequence"), frame, env)
                    | self._targets(e.child_by_field_name("alternative"), frame, env))
        if e.type == "binary_expression" and _text(e.child_by_field_name("operator")) in ("+", "-"):
            return self._targets(e.child_by_field_name("left"), frame, env)   # p + k: the same (folded) array
        if e.type == "assignment_expression":
            return self._targets(e.child_by_field_name("right"), frame, env)
        if e.type == "call_expression" and _callee(e) == "container_of" and len(_args(e)) == 2:
            ptr, member = _args(e)   # the preprocessor's container_of(ptr, member): &s.member -> &s
            suffix = "." + _text(member).strip()
            return frozenset(Target(t.base, t.path[: -len(suffix)], True, t.site, t.label)
                             for t in self._targets(ptr, frame, env) if t.addr and t.path.endswith(suffix))
        rp = _root_and_path(e)
        if rp is None:
            return frozenset()
        ident, path = rp
        name = _text(ident)
        if name in env.aliases and not path:
            return env.aliases[name]        # a copy of a pointer
        if name in self.escaped_value.get(frame.function, ()) and not path:
            return frozenset({Target(f"{frame.function}:{name}", "", False)})
        return frozenset(Target(b, p, False, s, lab) for b, p, s, lab in self._objects(e, frame, env))

    def _bind(self, name: str, targets: frozenset, env: _Env) -> None:
        if targets:
            env.aliases[name] = env.aliases.get(name, frozenset()) | targets
            env.shadow.discard(name)

    # -- accesses ----------------------------------------------------------------------------------
    def run(self) -> None:
        if "main" in self.funcs:
            order = MainOrder(self.main_creates) if self.opts.create_join else None
            self._visit("main", Frame("main", "main", False, order=order), frozenset(), {})
        for t, multi in self.threads.items():
            params = self.params.get(t, [])
            aliases = {params[0]: frozenset(self.thread_args[t])} if params and self.thread_args.get(t) else {}
            self._visit(t, Frame(t, t, multi and self.opts.multiplicity), frozenset(), aliases)

    def _visit(self, fname: str, frame: Frame, locks: frozenset, aliases: dict) -> set[str]:
        """Walk one function body; returns the flag locks it acquires or releases (a custom lock's
        atomic function, see :func:`_flag_lock_role`), for the caller to update its lockset."""
        fn = self.funcs[fname]
        held = set(locks)
        if self.opts.atomic and fname.startswith("__VERIFIER_atomic"):
            held.add("atomic")
        escaped = self.escaped.get(fname, set()) | self.escaped_value.get(fname, set())
        shadow = (self.locals[fname] - escaped) | (set(self.params[fname]) - set(aliases))
        env = _Env(held, dict(aliases), shadow)
        flags: set[str] = set()
        if self.opts.atomic and fname in self.flag_roles:
            flags = {f"flag:{b}{p}" for b, p, *_ in self._objects(self.flag_roles[fname][1], frame, env)}
            held |= flags        # the lock variable's own accesses in its acquire/release are the lock's
        self._walk_body(fn.child_by_field_name("body"), frame, env)
        return flags

    def _walk_body(self, node, frame: Frame, env: _Env) -> None:
        # statements in textual order; a call updates the held set before later statements are seen
        if node.type == "call_expression":
            args = _args(node)
            if _callee(node) == "container_of":
                args = args[:1]     # its second argument names a member, not a value
            for a in args:  # the arguments are evaluated first
                self._walk_body(a, frame, env)
            self._call(node, _callee(node), args, frame, env)
            return
        if node.type == "identifier":
            self._access(node, frame, env)
            return
        for c in node.children:
            self._walk_body(c, frame, env)
        # bindings take effect after the initialiser / right-hand side was read
        if node.type == "init_declarator":
            name = _declared_name(node)
            if name:
                self._bind(name, self._targets(node.child_by_field_name("value"), frame, env), env)
        elif node.type == "assignment_expression":
            left = _strip(node.child_by_field_name("left"))
            if left is not None and left.type == "identifier" and self._base(_text(left), frame, env) is None:
                self._bind(_text(left), self._targets(node.child_by_field_name("right"), frame, env), env)

    def _call(self, node, name, args, frame: Frame, env: _Env) -> None:
        if name is None:
            return
        held = env.held
        line = node.start_point[0] + 1
        if name in ("pthread_create", "pthread_join") and frame.order is not None:
            k = frame.weight * (2 if _in_loop(node) else 1)   # main (or a helper of main) starts/joins threads
            if name == "pthread_create":
                frame.order.created += k
            else:
                frame.order.joined += k
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
        elif name == "pthread_create":
            start = self._start_function(args)
            if start is not None and len(args) >= 4:
                self.thread_args.setdefault(start, set()).update(self._targets(args[3], frame, env))
        elif name in self.funcs:
            if name == "main" or name in self.threads or frame.depth >= MAX_INLINE:
                return
            wrapper = self.opts.call_sites and name in self.wrappers
            callee_aliases = {}
            for p, a in zip(self.params.get(name, []), args):
                tg = self._targets(a, frame, env)
                if wrapper and _is_addr(_strip(a)):
                    shown = re.sub(r"\s+", "", _text(_strip(a).child_by_field_name("argument")))
                    tg = frozenset(dataclasses.replace(t, site=t.site or line, label=t.label or shown) for t in tg)
                if tg:
                    callee_aliases[p] = tg
            weight = frame.weight * (2 if _in_loop(node) else 1)
            flags = self._visit(name, Frame(name, frame.context, frame.multi, frame.depth + 1, weight, frame.order),
                                frozenset(held), callee_aliases)
            if flags and self.flag_roles[name][0] == "acquire":
                held |= flags
            elif flags:
                held -= flags
        elif not API.match(name):
            atomic = bool(ATOMIC_BUILTIN.match(name))
            for a in args:  # an undefined function or an atomic builtin handed &lvalue accesses it here
                a = _strip(a)
                if _is_addr(a):
                    lv = a.child_by_field_name("argument")
                    locks = held | {"atomic"} if atomic and self.opts.atomic else held
                    for base, path, site, shown in self._objects(lv, frame, env):
                        self._record(base, path, shown or _text(lv), site or line,
                                     not atomic or _text(node).find("load") < 0, frame, locks)

    def _access(self, ident, frame: Frame, env: _Env) -> None:
        par = ident.parent
        if par is not None and par.type == "call_expression" and par.child_by_field_name("function") == ident:
            return
        if _is_declared_name(ident):
            return
        lv = _lvalue_chain(ident)
        if _is_addr(lv.parent):
            return  # &x passes the object on; the access happens where it is dereferenced
        for base, path, site, shown in self._objects(lv, frame, env):
            self._record(base, path, shown or _text(lv), site or ident.start_point[0] + 1, _is_write(lv), frame,
                         env.held)

    def _record(self, base, path, variable: str, line, write, frame: Frame, held) -> None:
        phase = frame.order.phase() if frame.order is not None else ""
        self.accesses.append(Access(key=(base, path), variable=re.sub(r"\s+", "", variable), line=line,
                                    write=write, context=frame.context, multi=frame.multi,
                                    locks=frozenset(held), phase=phase, function=frame.function))


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
