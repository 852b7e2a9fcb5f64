"""A seeded generator of pthread programs with ground truth by construction.

A program is composed from pattern instances. Each instance owns its shared variable(s) and contributes
lines to a global section, to one worker thread (``worker``, started once), to main's concurrent region
(between the create and the join) and possibly to main's region after the join; a few patterns add a
helper function or a thread started twice. Every instance comes in a *safe* and a *racy* variant that
differ minimally (one lock, one call, one statement order), so a racy program has a race-free twin.

Semantics are SV-COMP's: sequential consistency; ``__VERIFIER_atomic_begin/end`` blocks and functions
named ``__VERIFIER_atomic*`` run atomically. Safe variants synchronise only in ways ThreadSanitizer also
sees once the atomic conventions are stubbed by one global mutex (:mod:`.tsan`).

Annotations are produced in the benchmark's format (``Race(variable, lineA, lineB)``; races, protected
conflicting pairs as ``critical``), from tags attached to the lines as they are written, so the line
numbers are exact by construction. The text follows the normalised benchmark's layout (Microsoft-style
braces on their own lines, no comments, no empty lines).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from .data import Program, Race

__all__ = ["PATTERNS", "generate_program", "generate_suite", "Instance"]

#: pattern -> (construct it exercises, what the racy variant breaks)
PATTERNS: dict[str, tuple[str, str]] = {
    "mutex_missing": ("mutex", "main forgets the lock"),
    "mutex_mismatched": ("mutex", "main takes another mutex"),
    "atomic_block": ("atomic_block", "main's access is outside the atomic block"),
    "atomic_function": ("atomic_function", "main updates the variable directly, not through the atomic function"),
    "join_order": ("join", "main reads before the join instead of after"),
    "loop_spawn": ("multiplicity", "the thread started twice updates without the lock"),
    "semaphore": ("semaphore", "main skips sem_wait/sem_post"),
    "busy_wait": ("busy_wait", "the flag is raised before the data is written"),
    "condvar": ("condvar", "the thread writes the data after releasing the mutex it signals under"),
    "barrier": ("barrier", "main reads before its barrier wait instead of after"),
    "gcc_atomic": ("c11_atomic", "main updates with a plain write instead of an atomic read-modify-write"),
    "helper_sites": ("mutex", "main calls the shared helper, handed &v, without the lock (list-valued annotation "
                              "lines: the helper's line and the call line of each site)"),
    "helper_global": ("mutex", "main calls the shared helper, which names the variable itself, without the lock "
                               "(annotated on the helper's line alone)"),
    "peterson": ("peterson", "main sets turn before raising its flag (Peterson's two stores swapped)"),
    "pointer_arg": ("pointer", "main updates, through its own pointer, the object the thread reaches through its start "
                               "argument, without the lock"),
    "struct_field": ("field", "main writes the field the worker writes through a struct pointer, not its sibling field"),
}


@dataclasses.dataclass
class Instance:
    pattern: str
    racy: bool
    k: int  # index: names are suffixed with it
    distractor: bool = False  # a protected variable added for the shared-variable distraction


@dataclasses.dataclass
class _Parts:
    includes: set = dataclasses.field(default_factory=set)
    globals: list = dataclasses.field(default_factory=list)
    helpers: list = dataclasses.field(default_factory=list)       # (line, tag) of helper functions
    worker: list = dataclasses.field(default_factory=list)
    extra_threads: list = dataclasses.field(default_factory=list)  # (name, lines, started in a loop, start argument)
    main_pre: list = dataclasses.field(default_factory=list)
    main_conc: list = dataclasses.field(default_factory=list)
    main_post: list = dataclasses.field(default_factory=list)
    races: list = dataclasses.field(default_factory=list)          # (variable, tagA, tagB)
    critical: list = dataclasses.field(default_factory=list)


def _emit(parts: _Parts, inst: Instance) -> None:
    k, racy = inst.k, inst.racy
    v = f"v{k}"
    T, M = f"T{k}", f"M{k}"
    p = inst.pattern
    if p in ("mutex_missing", "mutex_mismatched"):
        parts.globals += [(f"int {v} = 0;", None), (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None)]
        if p == "mutex_mismatched":
            parts.globals.append((f"pthread_mutex_t n{k} = PTHREAD_MUTEX_INITIALIZER;", None))
        parts.worker += [(f"pthread_mutex_lock(&m{k});", None), (f"{v} = {v} + 1;", T),
                         (f"pthread_mutex_unlock(&m{k});", None)]
        main_lock = f"n{k}" if (p == "mutex_mismatched" and racy) else f"m{k}"
        body = [(f"{v} = {v} + 2;", M)]
        if p == "mutex_missing" and racy:
            parts.main_conc += body
        else:
            parts.main_conc += [(f"pthread_mutex_lock(&{main_lock});", None), *body,
                                (f"pthread_mutex_unlock(&{main_lock});", None)]
        (parts.races if racy else parts.critical).append((v, T, M))
    elif p == "atomic_block":
        parts.includes.add("__verifier_atomic")
        parts.globals.append((f"int {v} = 0;", None))
        parts.worker += [("__VERIFIER_atomic_begin();", None), (f"{v} = {v} + 1;", T), ("__VERIFIER_atomic_end();", None)]
        if racy:
            parts.main_conc.append((f"{v} = {v} + 2;", M))
        else:
            parts.main_conc += [("__VERIFIER_atomic_begin();", None), (f"{v} = {v} + 2;", M), ("__VERIFIER_atomic_end();", None)]
        (parts.races if racy else parts.critical).append((v, T, M))
    elif p == "atomic_function":
        parts.globals.append((f"int {v} = 0;", None))
        parts.helpers += [(f"void __VERIFIER_atomic_add_{v}(int d)", None), ("{", None), (f"{v} = {v} + d;", T), ("}", None)]
        parts.worker.append((f"__VERIFIER_atomic_add_{v}(1);", None))
        if racy:
            parts.main_conc.append((f"{v} = {v} + 2;", M))
            parts.races.append((v, T, M))
        else:
            parts.main_conc.append((f"__VERIFIER_atomic_add_{v}(2);", None))
    elif p == "join_order":
        parts.includes.add("stdio.h")
        parts.globals.append((f"int {v} = 0;", None))
        parts.worker.append((f"{v} = 7;", T))
        line = (f'printf("%d\\n", {v});', M)
        (parts.main_conc if racy else parts.main_post).append(line)
        if racy:
            parts.races.append((v, T, M))
    elif p == "loop_spawn":
        parts.globals += [(f"int {v} = 0;", None), (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None)]
        name = f"spawned{k}"
        if racy:
            lines = [(f"{v} = {v} + 1;", T)]
            parts.races.append((v, T, T))
        else:
            lines = [(f"pthread_mutex_lock(&m{k});", None), (f"{v} = {v} + 1;", T), (f"pthread_mutex_unlock(&m{k});", None)]
            parts.critical.append((v, T, T))
        parts.extra_threads.append((name, lines, True, "NULL"))
    elif p == "semaphore":
        parts.includes.add("semaphore.h")
        parts.globals += [(f"int {v} = 0;", None), (f"sem_t s{k};", None)]
        parts.main_pre.append((f"sem_init(&s{k}, 0, 1);", None))
        parts.worker += [(f"sem_wait(&s{k});", None), (f"{v} = {v} + 1;", T), (f"sem_post(&s{k});", None)]
        if racy:
            parts.main_conc.append((f"{v} = {v} + 2;", M))
            parts.races.append((v, T, M))
        else:
            parts.main_conc += [(f"sem_wait(&s{k});", None), (f"{v} = {v} + 2;", M), (f"sem_post(&s{k});", None)]
            parts.critical.append((v, T, M))
    elif p == "busy_wait":
        parts.globals += [(f"int {v} = 0;", None), (f"int flag{k} = 0;", None)]
        parts.helpers += [(f"void __VERIFIER_atomic_raise{k}(void)", None), ("{", None), (f"flag{k} = 1;", None), ("}", None),
                          (f"int __VERIFIER_atomic_seen{k}(void)", None), ("{", None), (f"return flag{k};", None), ("}", None)]
        write = (f"{v} = 42;", T)
        raise_ = (f"__VERIFIER_atomic_raise{k}();", None)
        parts.worker += [raise_, write] if racy else [write, raise_]
        parts.main_conc += [(f"while (!__VERIFIER_atomic_seen{k}())", None), ("{", None), ("}", None),
                            (f"int r{k} = {v};", M)]
        if racy:
            parts.races.append((v, T, M))
        else:
            parts.critical.append((v, T, M))
    elif p == "condvar":
        parts.globals += [(f"int {v} = 0;", None), (f"int ready{k} = 0;", None),
                          (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None),
                          (f"pthread_cond_t c{k} = PTHREAD_COND_INITIALIZER;", None)]
        write = (f"{v} = 1;", T)
        locked = [(f"pthread_mutex_lock(&m{k});", None), (f"ready{k} = 1;", None),
                  (f"pthread_cond_signal(&c{k});", None), (f"pthread_mutex_unlock(&m{k});", None)]
        parts.worker += (locked + [write]) if racy else ([locked[0], write] + locked[1:])
        parts.main_conc += [(f"pthread_mutex_lock(&m{k});", None), (f"while (!ready{k})", None), ("{", None),
                            (f"pthread_cond_wait(&c{k}, &m{k});", None), ("}", None), (f"int r{k} = {v};", M),
                            (f"pthread_mutex_unlock(&m{k});", None)]
        (parts.races if racy else parts.critical).append((v, T, M))
    elif p == "barrier":
        parts.globals += [(f"int {v} = 0;", None), (f"pthread_barrier_t b{k};", None)]
        parts.main_pre.append((f"pthread_barrier_init(&b{k}, NULL, 2);", None))
        parts.worker += [(f"{v} = 1;", T), (f"pthread_barrier_wait(&b{k});", None)]
        read = (f"int r{k} = {v};", M)
        wait = (f"pthread_barrier_wait(&b{k});", None)
        parts.main_conc += [read, wait] if racy else [wait, read]
        (parts.races if racy else parts.critical).append((v, T, M))
    elif p == "gcc_atomic":
        parts.globals.append((f"int {v} = 0;", None))
        parts.worker.append((f"__atomic_fetch_add(&{v}, 1, __ATOMIC_SEQ_CST);", T))
        if racy:
            parts.main_conc.append((f"{v} = {v} + 2;", M))
            parts.races.append((v, T, M))
        else:
            parts.main_conc.append((f"__atomic_fetch_add(&{v}, 2, __ATOMIC_SEQ_CST);", M))
            parts.critical.append((v, T, M))
    elif p in ("helper_sites", "helper_global"):
        # A helper called from two sites (the worker under the lock, main with or without it). How the access is
        # annotated follows the benchmark's annotators (counted on its annotations by .attribution): a helper
        # that reaches the variable through a pointer parameter (bump(&v): *p on the helper's line) gets, per
        # site, the list [helper line, call line]; a helper that names the variable itself gets its own line
        # alone, so the race of its two calls is (helper line, helper line).
        parts.globals += [(f"int {v} = 0;", None), (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None)]
        if p == "helper_sites":
            parts.helpers += [(f"void bump{k}(int *p)", None), ("{", None), ("*p = *p + 1;", f"H{k}"), ("}", None)]
            call_text = f"bump{k}(&{v});"
        else:
            parts.helpers += [(f"void bump{k}(void)", None), ("{", None), (f"{v} = {v} + 1;", f"H{k}"), ("}", None)]
            call_text = f"bump{k}();"
        parts.worker += [(f"pthread_mutex_lock(&m{k});", None), (call_text, T), (f"pthread_mutex_unlock(&m{k});", None)]
        call = (call_text, M)
        parts.main_conc += [call] if racy else [(f"pthread_mutex_lock(&m{k});", None), call, (f"pthread_mutex_unlock(&m{k});", None)]
        ends = ((f"H{k}", T), (f"H{k}", M)) if p == "helper_sites" else (f"H{k}", f"H{k}")
        (parts.races if racy else parts.critical).append((v, *ends))
    elif p == "peterson":
        # Peterson's protocol between the worker (thread 1) and main (thread 0). Flags and turn are read and
        # written only through SV-COMP atomic functions (so they never race, and ThreadSanitizer sees the
        # order through its stub mutex); under sequential consistency the protocol alone excludes the two
        # updates of v. Swapping main's two entry stores (turn before flag) breaks mutual exclusion: the
        # worker can raise its flag, set turn and enter while main's flag is still down, then main raises
        # its flag and enters because turn names the worker.
        want0, want1, turn = f"want0_{k}", f"want1_{k}", f"turn{k}"
        store, load = f"__VERIFIER_atomic_store{k}", f"__VERIFIER_atomic_load{k}"
        parts.globals += [(f"int {v} = 0;", None), (f"int {want0} = 0;", None), (f"int {want1} = 0;", None),
                          (f"int {turn} = 0;", None)]
        parts.helpers += [(f"void {store}(int *p, int x)", None), ("{", None), ("*p = x;", None), ("}", None),
                          (f"int {load}(int *p)", None), ("{", None), ("return *p;", None), ("}", None)]
        parts.worker += [(f"{store}(&{want1}, 1);", None), (f"{store}(&{turn}, 0);", None),
                         (f"while ({load}(&{want0}) == 1 && {load}(&{turn}) == 0)", None), ("{", None), ("}", None),
                         (f"{v} = {v} + 1;", T), (f"{store}(&{want1}, 0);", None)]
        entry = [(f"{store}(&{want0}, 1);", None), (f"{store}(&{turn}, 1);", None)]
        parts.main_conc += (entry[::-1] if racy else entry) + [
            (f"while ({load}(&{want1}) == 1 && {load}(&{turn}) == 1)", None), ("{", None), ("}", None),
            (f"{v} = {v} + 2;", M), (f"{store}(&{want0}, 0);", None)]
        (parts.races if racy else parts.critical).append((v, T, M))
    elif p == "pointer_arg":
        # The shared int is never named at an access: a thread started once with &v reaches it through its start
        # argument, main through a local pointer assigned &v (two different ways the front end must resolve a
        # pointer to one object). Both dereferences are spelt *p<k>, as the benchmark writes an lvalue.
        parts.globals += [(f"int {v} = 0;", None), (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None)]
        ptr = f"p{k}"
        lines = [(f"int *{ptr} = (int *)arg;", None), (f"pthread_mutex_lock(&m{k});", None),
                 (f"*{ptr} = *{ptr} + 1;", T), (f"pthread_mutex_unlock(&m{k});", None)]
        parts.extra_threads.append((f"through{k}", lines, False, f"&{v}"))
        parts.main_pre.append((f"int *{ptr} = &{v};", None))
        body = [(f"*{ptr} = *{ptr} + 2;", M)]
        parts.main_conc += body if racy else [(f"pthread_mutex_lock(&m{k});", None), *body,
                                              (f"pthread_mutex_unlock(&m{k});", None)]
        (parts.races if racy else parts.critical).append((f"*{ptr}", T, M))
    elif p == "struct_field":
        # A struct with three int fields: the worker writes .n (under the lock) and then .a (no lock) through a
        # pointer q<k> = &s<k>; main writes .n under the lock (a protected pair, always) and then one more field
        # without the lock: .a in the racy variant (the worker's field: a race), .b in the race-free one (a
        # distinct memory location in C, so no conflict at all). The twins differ in one field name. The unlocked
        # writes follow the critical sections, so no unlock/lock edge orders them in any interleaving (what
        # ThreadSanitizer needs to see the race on every run).
        st, q = f"S{k}", f"q{k}"
        parts.globals += [(f"struct {st}", None), ("{", None), ("    int a;", None), ("    int b;", None),
                          ("    int n;", None), ("};", None), (f"struct {st} s{k};", None),
                          (f"pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;", None)]
        parts.worker += [(f"struct {st} *{q} = &s{k};", None), (f"pthread_mutex_lock(&m{k});", None),
                         (f"{q}->n = {q}->n + 1;", f"N{k}"), (f"pthread_mutex_unlock(&m{k});", None),
                         (f"{q}->a = 1;", T)]
        parts.main_conc += [(f"pthread_mutex_lock(&m{k});", None), (f"s{k}.n = s{k}.n + 2;", f"O{k}"),
                            (f"pthread_mutex_unlock(&m{k});", None), (f"s{k}.{'a' if racy else 'b'} = 2;", M)]
        parts.critical.append((f"s{k}.n", f"N{k}", f"O{k}"))
        if racy:
            parts.races.append((f"s{k}.a", T, M))
    else:  # pragma: no cover - guarded by generate_program
        raise ValueError(p)


_LISTS = ("globals", "helpers", "worker", "main_pre", "main_conc", "main_post")


def _lengths(parts: _Parts) -> dict:
    out = {name: len(getattr(parts, name)) for name in _LISTS}
    out["extra_threads"] = len(parts.extra_threads)
    return out


def _own(parts: _Parts, before: dict, k: int) -> None:
    """Tag every line instance ``k`` just emitted (untagged ones get ``("own", k, i)``), so that each line
    of the rendered program knows the instance it belongs to (for the per-construct scores)."""
    counter = [0]

    def tag(entries, start):
        for i in range(start, len(entries)):
            line, t = entries[i]
            if t is None and line not in ("{", "}"):
                counter[0] += 1
                entries[i] = (line, ("own", k, counter[0]))

    for name in _LISTS:
        tag(getattr(parts, name), before[name])
    for j in range(before["extra_threads"], len(parts.extra_threads)):
        tname, lines, loop, _ = parts.extra_threads[j]
        tag(lines, 0)


def _render(parts: _Parts, loop_threads: int = 2) -> tuple[str, dict[str, int]]:
    out: list[tuple[str, str | None]] = []
    ind = "    "
    for inc in ["pthread.h", *sorted(i for i in parts.includes if i.endswith(".h"))]:
        out.append((f"#include <{inc}>", None))
    if "__verifier_atomic" in parts.includes:  # SV-COMP declares its atomic-block markers
        out += [("extern void __VERIFIER_atomic_begin(void);", None), ("extern void __VERIFIER_atomic_end(void);", None)]
    out += parts.globals
    body_depth = 0
    for line, tag in parts.helpers:  # helper functions, one level of body
        if line == "{":
            out.append(("{", None)); body_depth = 1
        elif line == "}":
            out.append(("}", None)); body_depth = 0
        else:
            out.append(((ind if body_depth else "") + line, tag))
    for name, lines, _, _ in parts.extra_threads:
        out += [(f"void *{name}(void *arg)", None), ("{", None)]
        out += [(ind + line, tag) for line, tag in lines]
        out += [(ind + "return NULL;", None), ("}", None)]
    out += [("void *worker(void *arg)", None), ("{", None)]
    out += [(ind + line, tag) for line, tag in parts.worker]
    out += [(ind + "return NULL;", None), ("}", None)]
    out += [("int main()", None), ("{", None), (ind + "pthread_t t;", None)]
    for name, _, loop, _ in parts.extra_threads:
        out.append((ind + (f"pthread_t {name}_t[{loop_threads}];" if loop else f"pthread_t {name}_t;"), None))
    out += [(ind + line, tag) for line, tag in parts.main_pre]
    out.append((ind + "pthread_create(&t, NULL, worker, NULL);", None))
    for name, _, loop, arg in parts.extra_threads:
        if loop:
            out += [(ind + f"for (int i = 0; i < {loop_threads}; i++)", None), (ind + "{", None),
                    (ind * 2 + f"pthread_create(&{name}_t[i], NULL, {name}, {arg});", None), (ind + "}", None)]
        else:
            out.append((ind + f"pthread_create(&{name}_t, NULL, {name}, {arg});", None))
    depth = 1
    for line, tag in parts.main_conc:
        if line == "}":
            depth -= 1
        out.append((ind * depth + line, tag))
        if line == "{":
            depth += 1
    out.append((ind + "pthread_join(t, NULL);", None))
    for name, _, loop, _ in parts.extra_threads:
        if loop:
            out += [(ind + f"for (int i = 0; i < {loop_threads}; i++)", None), (ind + "{", None),
                    (ind * 2 + f"pthread_join({name}_t[i], NULL);", None), (ind + "}", None)]
        else:
            out.append((ind + f"pthread_join({name}_t, NULL);", None))
    out += [(ind + line, tag) for line, tag in parts.main_post]
    out += [(ind + "return 0;", None), ("}", None)]
    tags = {tag: i + 1 for i, (_, tag) in enumerate(out) if tag}
    return "\n".join(line for line, _ in out) + "\n", tags


def generate_program(instances: Sequence[Instance], name: str = "generated/p.c", loop_threads: int = 2) -> Program:
    """One program from pattern instances (racy iff one instance is racy), annotated exactly.
    ``loop_threads``: how many copies of each thread main starts in a loop (>= 2: the loop-spawned thread's
    race is with its own copy)."""
    if isinstance(loop_threads, bool) or not isinstance(loop_threads, int) or loop_threads < 2:
        raise ValueError(f"loop_threads={loop_threads!r} is not allowed; it must be an integer >= 2 (a thread "
                         "started once in a loop does not race with itself)")
    parts = _Parts()
    for inst in instances:
        if inst.pattern not in PATTERNS:
            raise ValueError(f"unknown construct {inst.pattern!r}; allowed values: {', '.join(PATTERNS)}")
        before = _lengths(parts)
        _emit(parts, inst)
        _own(parts, before, inst.k)
    text, tags = _render(parts, loop_threads)
    role = {inst.k: ("distractor" if inst.distractor else inst.pattern) for inst in instances}
    n_lines = len(text.splitlines())
    line_patterns = [""] * n_lines
    for tag, line in tags.items():
        k = tag[1] if isinstance(tag, tuple) else int(tag[1:])
        line_patterns[line - 1] = role[k]

    def lines(tag):
        return tuple(tags[t] for t in tag) if isinstance(tag, tuple) else (tags[tag],)

    def races(items):
        return tuple(Race(var, lines(a), lines(b)) for var, a, b in items)

    constructs = tuple(dict.fromkeys(inst.pattern for inst in instances))
    return Program(name=name, text=text, racy=bool(parts.races), races=races(parts.races),
                   critical=races(parts.critical), source="generated", constructs=constructs,
                   line_patterns=tuple(line_patterns))


def generate_suite(n: int, seed: int, *, constructs: Sequence[str] | None = None, per_program: tuple[int, int] = (1, 3),
                   distractors: tuple[int, int] = (0, 3), racy_share: float = 0.5) -> list[Program]:
    """``n`` programs (pairs of a racy program and its race-free twin, so half are racy when n is even).

    Each racy program has ``per_program`` pattern instances drawn from ``constructs`` (at least one of
    them racy) plus a number of safe mutex instances drawn from ``distractors`` (the shared-variable
    distraction: many protected variables beside one that is not)."""
    pool = list(constructs or PATTERNS)
    unknown = [c for c in pool if c not in PATTERNS]
    if unknown:
        raise ValueError(f"unknown construct(s) {unknown}; allowed values: {', '.join(PATTERNS)}")
    if n < 1:
        raise ValueError(f"n={n!r}: at least one program")
    rng = np.random.default_rng(seed)
    out: list[Program] = []
    i = 0
    while len(out) < n:
        m = int(rng.integers(per_program[0], per_program[1] + 1))
        pats = [pool[j] for j in rng.integers(0, len(pool), size=m)]
        flags = rng.random(m) < racy_share
        if not flags.any():
            flags[int(rng.integers(0, m))] = True
        insts = [Instance(p, bool(f), k) for k, (p, f) in enumerate(zip(pats, flags))]
        n_dis = int(rng.integers(distractors[0], distractors[1] + 1))
        insts += [Instance("mutex_missing", False, m + d, distractor=True) for d in range(n_dis)]
        order = rng.permutation(len(insts))
        insts = [insts[j] for j in order]
        out.append(generate_program(insts, name=f"generated/racy_{i:04d}.c"))
        if len(out) < n:
            out.append(generate_program([dataclasses.replace(x, racy=False) for x in insts],
                                        name=f"generated/safe_{i:04d}.c"))
        i += 1
    return out
