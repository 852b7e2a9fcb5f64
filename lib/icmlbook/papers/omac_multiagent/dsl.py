"""The list-function task family: a small DSL, our own interpreter, seeded tasks with visible and hidden tests.

A program is a sequence of 1 to 3 primitives applied left to right to a list of small integers (a HumanEval
analogue: the "prompt" is two input/output examples, the hidden tests decide pass@1). Nothing here executes
arbitrary code: :func:`run_program` interprets the twelve primitives below.

Every program of length <= 3 (1,884 of them) is evaluated on every input of a task once
(:func:`task_table`, prefix-shared: a length-3 program reuses its length-2 prefix's outputs), so that agents
and controllers read their answers from arrays: which programs pass the visible examples, which pass the
hidden tests, and a behaviour signature per program (its outputs on the visible and on unlabelled probe inputs,
which is how answers are compared for the consensus, like DyLAN's code-equivalence check).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Callable, Sequence

import numpy as np

__all__ = ["PRIMITIVES", "FAMILIES", "FAMILY_OF", "PROGRAMS", "N_PROGRAMS", "program_index", "parse_program",
           "program_text", "run_program", "Task", "TaskTable", "make_tasks", "task_table", "Split", "make_split",
           "neighbours", "EDIT_SETS", "LENGTHS", "FAMILY_COUNTS", "NAMES"]


def _take3(x):
    return x[:3]


PRIMITIVES: dict[str, Callable[[tuple], tuple]] = {
    # map family: change every element
    "add1": lambda x: tuple(v + 1 for v in x),
    "add2": lambda x: tuple(v + 2 for v in x),
    "dbl": lambda x: tuple(2 * v for v in x),
    "half": lambda x: tuple(v // 2 for v in x),
    # filter family: keep some elements
    "even": lambda x: tuple(v for v in x if v % 2 == 0),
    "odd": lambda x: tuple(v for v in x if v % 2 == 1),
    "gt4": lambda x: tuple(v for v in x if v > 4),
    # order family
    "sort": lambda x: tuple(sorted(x)),
    "rev": lambda x: tuple(reversed(x)),
    # slice family
    "take3": _take3,
    "drop1": lambda x: x[1:],
    "dedup": lambda x: tuple(dict.fromkeys(x)),
}
FAMILIES: tuple[str, ...] = ("map", "filter", "order", "slice")
_FAM = {"add1": "map", "add2": "map", "dbl": "map", "half": "map", "even": "filter", "odd": "filter", "gt4": "filter",
        "sort": "order", "rev": "order", "take3": "slice", "drop1": "slice", "dedup": "slice"}
NAMES: tuple[str, ...] = tuple(PRIMITIVES)
#: family index of each primitive (in NAMES order)
FAMILY_OF = np.array([FAMILIES.index(_FAM[n]) for n in NAMES])
_P = len(NAMES)

#: every program of length 1..3 as a tuple of primitive indices, in a fixed order (by length, then lexicographic)
PROGRAMS: tuple[tuple[int, ...], ...] = tuple(p for L in (1, 2, 3) for p in itertools.product(range(_P), repeat=L))
N_PROGRAMS = len(PROGRAMS)
_INDEX = {p: i for i, p in enumerate(PROGRAMS)}
#: length of each program
LENGTHS = np.array([len(p) for p in PROGRAMS])
#: (N_PROGRAMS, 4) count of primitives of each family in each program
FAMILY_COUNTS = np.zeros((N_PROGRAMS, len(FAMILIES)), dtype=np.int64)
for _i, _p in enumerate(PROGRAMS):
    for _q in _p:
        FAMILY_COUNTS[_i, FAMILY_OF[_q]] += 1


def program_index(prog: Sequence[int]) -> int:
    """Index of a program (a sequence of primitive indices) in :data:`PROGRAMS`."""
    try:
        return _INDEX[tuple(int(q) for q in prog)]
    except KeyError:
        raise ValueError(f"program {tuple(prog)!r} is not in the DSL (1 to 3 primitives among {_P})") from None


def parse_program(text: str) -> int:
    """Parse ``"sort | rev | take3"`` into a program index; an unknown primitive or a bad length raises."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"program text {text!r} does not parse: give 1 to 3 primitives separated by '|'")
    names = [t.strip() for t in text.split("|")]
    bad = [n for n in names if n not in PRIMITIVES]
    if bad:
        raise ValueError(f"program {text!r} does not parse: unknown primitive(s) {bad}; allowed: {', '.join(NAMES)}")
    if not 1 <= len(names) <= 3:
        raise ValueError(f"program {text!r} does not parse: {len(names)} primitives, allowed 1 to 3")
    return _INDEX[tuple(NAMES.index(n) for n in names)]


def program_text(i: int) -> str:
    return " | ".join(NAMES[q] for q in PROGRAMS[int(i)])


def run_program(i: int | Sequence[int], x: Sequence[int]) -> tuple:
    """Interpret program ``i`` (an index or a sequence of primitive indices) on the list ``x``."""
    prog = PROGRAMS[int(i)] if np.isscalar(i) else tuple(i)
    out = tuple(int(v) for v in x)
    for q in prog:
        out = PRIMITIVES[NAMES[q]](out)
    return out


EDIT_SETS = ("substitute", "substitute+delete", "all")
_NEIGH: dict = {}


def neighbours(i: int, edits: str = "all") -> np.ndarray:
    """Programs one edit away from program ``i`` (sorted indices): a primitive substituted; with
    ``"substitute+delete"`` also one deleted; with ``"all"`` also one inserted (lengths stay 1..3)."""
    key = (int(i), edits)
    if key in _NEIGH:
        return _NEIGH[key]
    if edits not in EDIT_SETS:
        raise ValueError(f"edits={edits!r} is not allowed; allowed values: {', '.join(EDIT_SETS)}")
    p = PROGRAMS[int(i)]
    out = set()
    for k in range(len(p)):
        for q in range(_P):
            if q != p[k]:
                out.add(p[:k] + (q,) + p[k + 1:])
        if len(p) > 1 and edits != "substitute":
            out.add(p[:k] + p[k + 1:])
    if len(p) < 3 and edits == "all":
        for k in range(len(p) + 1):
            for q in range(_P):
                out.add(p[:k] + (q,) + p[k:])
    _NEIGH[key] = np.array(sorted(_INDEX[o] for o in out), dtype=np.int64)
    return _NEIGH[key]


@dataclasses.dataclass(frozen=True)
class Task:
    """One query: the target program (hidden), visible examples, hidden tests and unlabelled probe inputs."""

    target: int
    visible: tuple[tuple[tuple, tuple], ...]
    hidden: tuple[tuple[tuple, tuple], ...]
    probes: tuple[tuple, ...]

    @property
    def features(self) -> tuple[int, int, int]:
        """What the visible examples show (the pre-selection controller reads these): (values changed, length
        changed, every output sorted)."""
        changed = any(not set(o) <= set(i) for i, o in self.visible)
        shorter = any(len(o) != len(i) for i, o in self.visible)
        ordered = all(list(o) == sorted(o) for _, o in self.visible)
        return int(changed), int(shorter), int(ordered)


#: how the task generator draws each primitive's family (map, filter, order, slice)
TASK_FAMILY_P = (0.4, 0.25, 0.2, 0.15)


def _random_list(rng: np.random.Generator) -> tuple:
    return tuple(int(v) for v in rng.integers(0, 10, size=int(rng.integers(4, 8))))


def make_tasks(n: int, seed: int, n_visible: int = 2, n_hidden: int = 6, n_probe: int = 3,
               family_p: Sequence[float] = TASK_FAMILY_P) -> list[Task]:
    """``n`` seeded tasks. The target has 2 or 3 primitives (families drawn with ``family_p``); targets whose
    output is empty on a visible input, or that act as the identity on every visible input, are redrawn."""
    if n < 1:
        raise ValueError(f"n={n!r} is not allowed; it must be >= 1")
    rng = np.random.default_rng(seed)
    fam_members = [np.flatnonzero(FAMILY_OF == f) for f in range(len(FAMILIES))]
    out = []
    while len(out) < n:
        length = int(rng.choice([2, 3], p=[0.6, 0.4]))
        prog = tuple(int(rng.choice(fam_members[int(rng.choice(len(FAMILIES), p=family_p))])) for _ in range(length))
        xs = [_random_list(rng) for _ in range(n_visible + n_hidden)]
        ys = [run_program(prog, x) for x in xs]
        vis = tuple(zip(xs[:n_visible], ys[:n_visible]))
        if any(len(y) == 0 for _, y in vis) or all(x == y for x, y in vis):
            continue
        out.append(Task(program_index(prog), vis, tuple(zip(xs[n_visible:], ys[n_visible:])),
                        tuple(_random_list(rng) for _ in range(n_probe))))
    return out


@dataclasses.dataclass(frozen=True)
class TaskTable:
    """Every program's behaviour on one task, as arrays over :data:`PROGRAMS`.

    vis_hits: (N_PROGRAMS,) visible examples right; vis_pass: all visible right; hidden_pass: all hidden tests
    right (pass@1); sig: behaviour signature id (equal ids = equal outputs on visible and probe inputs)."""

    vis_hits: np.ndarray
    vis_pass: np.ndarray
    hidden_pass: np.ndarray
    sig: np.ndarray
    n_visible: int
    features: tuple[int, int, int]


def _outputs_all(x: tuple) -> list[tuple]:
    """Outputs of every program on input ``x`` (PROGRAMS order), sharing prefixes."""
    fns = [PRIMITIVES[n] for n in NAMES]
    one = [f(x) for f in fns]
    two = [f(y) for y in one for f in fns]
    three = [f(y) for y in two for f in fns]
    return one + two + three


def task_table(task: Task) -> TaskTable:
    """The arrays of :class:`TaskTable` for ``task`` (all 1,884 programs on all its inputs)."""
    nv = len(task.visible)
    vis_hits = np.zeros(N_PROGRAMS, dtype=np.int64)
    for x, y in task.visible:
        vis_hits += np.fromiter((o == y for o in _outputs_all(x)), dtype=bool, count=N_PROGRAMS)
    hidden = np.ones(N_PROGRAMS, dtype=bool)
    for x, y in task.hidden:
        hidden &= np.fromiter((o == y for o in _outputs_all(x)), dtype=bool, count=N_PROGRAMS)
    keys = list(zip(*[_outputs_all(x) for x, _ in task.visible], *[_outputs_all(p) for p in task.probes]))
    ids: dict = {}
    sig = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), dtype=np.int64, count=N_PROGRAMS)
    return TaskTable(vis_hits, vis_hits == nv, hidden, sig, nv, task.features)


@dataclasses.dataclass(frozen=True)
class Split:
    """Validation and test tasks of one replicate, with their tables."""

    val: tuple[TaskTable, ...]
    test: tuple[TaskTable, ...]
    seed: int


def make_split(n_val: int, n_test: int, seed: int) -> Split:
    """Fresh validation and test tasks (disjoint draws of one seeded generator) and their tables."""
    tasks = make_tasks(n_val + n_test, seed)
    tabs = tuple(task_table(t) for t in tasks)
    return Split(tabs[:n_val], tabs[n_val:], seed)
