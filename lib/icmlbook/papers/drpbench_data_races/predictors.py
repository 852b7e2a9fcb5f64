"""Offline race predictors, each reading only the C text (never an annotation or a generator's metadata).

- :class:`EmptyPredictor`: says "race-free" everywhere (the floor; perfect on race-free programs).
- :class:`ConstantRacyPredictor`: says "racy" everywhere, always with the program's first two lines.
- :class:`AllPairsPredictor`: every conflicting pair (same object, at least one write, two threads or a
  thread started twice), ignoring all synchronisation: the recall ceiling of the front end.
- :class:`LocksetPredictor`: Eraser-style lockset analysis plus main's create/join order; each ingredient
  switchable (``mutex_only()`` keeps plain mutexes alone: the "myopic" analyser).
- :class:`LearnedPairPredictor`: gradient boosting over static features of the candidate pairs, trained
  on one population and applied to programs held out by category (cross-validation by family).

A predictor maps a :class:`Program` to a list of :class:`Race` (one line per side); ``predict_all`` runs
it over a population and returns ``(predictions, failures)`` where failures are the programs whose text
did not parse cleanly (they are analysed on tree-sitter's recovered tree and counted, never dropped).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ...runtime.progress import progress
from .data import Program, Race
from .frontend import Access, Analysis, CONSTRUCTS, Options, analyse, constructs_of
from .metrics import match

__all__ = ["EmptyPredictor", "ConstantRacyPredictor", "AllPairsPredictor", "LocksetPredictor", "LearnedPairPredictor", "predict_all",
           "candidate_pairs", "PREDICTORS", "make_predictor", "unparsable", "cross_validated"]


def _concurrent(a: Access, b: Access) -> bool:
    if a.context != b.context:
        return True
    return a.multi  # the same start function, started more than once


def candidate_pairs(an: Analysis) -> list[tuple[Access, Access]]:
    """Every pair of accesses to one object, at least one a write, in two concurrent thread contexts."""
    by_key: dict[tuple, list[Access]] = {}
    for acc in an.accesses:
        by_key.setdefault(acc.key, []).append(acc)
    out = []
    for accs in by_key.values():
        # unique (line, write, context, locks, phase) accesses: the same line seen twice adds nothing
        uniq = list(dict.fromkeys(accs))
        for i, a in enumerate(uniq):
            for b in uniq[i:]:
                if (a.write or b.write) and _concurrent(a, b) and (a is not b or a.multi):
                    out.append((a, b))
    return out


def _races(pairs: Sequence[tuple[Access, Access]]) -> list[Race]:
    seen: dict[tuple, Race] = {}
    for a, b in pairs:
        la, lb = sorted((a.line, b.line))
        seen.setdefault((la, lb, a.variable), Race(a.variable, (la,), (lb,)))
    return list(seen.values())


class EmptyPredictor:
    name = "empty"

    def predict(self, program: Program) -> list[Race]:
        return []


class ConstantRacyPredictor:
    """Says "racy" for every program and names the same pair every time, its first two lines: detection by the
    prior and no localisation at all (the trivial alternative of the localisation claim)."""

    name = "every program racy"

    def predict(self, program: Program) -> list[Race]:
        return [Race("?", (1,), (2,))]


@dataclasses.dataclass
class AllPairsPredictor:
    name: str = "all pairs"
    options: Options = dataclasses.field(default_factory=lambda: Options(create_join=False))

    def analyse(self, program: Program) -> Analysis:
        return analyse(program.text, self.options, strict=False)

    def predict(self, program: Program) -> list[Race]:
        return _races(candidate_pairs(self.analyse(program)))


@dataclasses.dataclass
class LocksetPredictor:
    """Report conflicting pairs whose locksets are disjoint and that main's create/join order does not
    separate."""

    name: str = "lockset"
    options: Options = dataclasses.field(default_factory=Options)

    @classmethod
    def mutex_only(cls) -> "LocksetPredictor":
        return cls(name="lockset (mutex only)", options=Options(atomic=False, semaphores=False))

    def analyse(self, program: Program) -> Analysis:
        return analyse(program.text, self.options, strict=False)

    def predict(self, program: Program) -> list[Race]:
        pairs = [(a, b) for a, b in candidate_pairs(self.analyse(program))
                 if not (a.locks & b.locks) and not (a.phase or b.phase)]
        return _races(pairs)


# -- the learned pair classifier ------------------------------------------------------------------
FEATURES = ("mutex_common", "atomic_both", "atomic_one", "sem_common", "ordered_by_main", "write_write",
            "same_function", "same_context", "started_twice", "one_in_main", "line_distance", "n_accesses_key",
            "n_threads", "deref", "field", "indexed", "n_locks_a", "n_locks_b") + tuple(f"has_{c}" for c in CONSTRUCTS)


def pair_features(a: Access, b: Access, an: Analysis, constructs: tuple[str, ...], n_key: int) -> list[float]:
    mutex_a = {x for x in a.locks if x != "atomic" and not x.startswith("sem:")}
    mutex_b = {x for x in b.locks if x != "atomic" and not x.startswith("sem:")}
    sem_a = {x for x in a.locks if x.startswith("sem:")}
    sem_b = {x for x in b.locks if x.startswith("sem:")}
    path = a.key[1]
    f = [float(bool(mutex_a & mutex_b)), float("atomic" in a.locks and "atomic" in b.locks),
         float(("atomic" in a.locks) != ("atomic" in b.locks)), float(bool(sem_a & sem_b)),
         float(bool(a.phase or b.phase)), float(a.write and b.write), float(a.function == b.function),
         float(a.context == b.context), float(a.multi or b.multi), float((a.context == "main") != (b.context == "main")),
         float(np.log1p(abs(a.line - b.line))), float(np.log1p(n_key)), float(len(an.threads)),
         float("*" in path), float("." in path or "->" in path), float("[]" in path),
         float(len(a.locks)), float(len(b.locks))]
    return f + [float(c in constructs) for c in CONSTRUCTS]


@dataclasses.dataclass
class _Candidates:
    program: Program
    pairs: list[tuple[Access, Access]]
    X: np.ndarray
    y: np.ndarray


def _candidates(program: Program, options: Options) -> _Candidates:
    an = analyse(program.text, options, strict=False)
    pairs = candidate_pairs(an)
    constructs = constructs_of(program.text)
    counts: dict[tuple, int] = {}
    for acc in an.accesses:
        counts[acc.key] = counts.get(acc.key, 0) + 1
    X = np.array([pair_features(a, b, an, constructs, counts[a.key]) for a, b in pairs], dtype=float).reshape(-1, len(FEATURES))
    races = [Race(a.variable, (a.line,), (b.line,)) for a, b in pairs]
    y = np.array([any(match(r, g) for g in program.races) for r in races], dtype=int)
    return _Candidates(program, pairs, X, y)


@dataclasses.dataclass
class LearnedPairPredictor:
    """Gradient boosting on static pair features. ``fit`` on labelled programs; ``predict`` keeps the
    candidates with probability >= ``threshold``. Labels are the annotations (a pair is positive when it
    matches an annotated race at line level)."""

    name: str = "learned pairs"
    threshold: float = 0.5
    seed: int = 0
    max_iter: int = 200
    options: Options = dataclasses.field(default_factory=lambda: Options(create_join=True))

    def __post_init__(self) -> None:
        self.model = None
        self._cache: dict[str, _Candidates] = {}

    def candidates(self, program: Program) -> _Candidates:
        if program.name not in self._cache:
            self._cache[program.name] = _candidates(program, self.options)
        return self._cache[program.name]

    def fit(self, programs: Sequence[Program]) -> "LearnedPairPredictor":
        from sklearn.ensemble import HistGradientBoostingClassifier

        cs = [self.candidates(p) for p in programs]
        X = np.concatenate([c.X for c in cs]) if cs else np.zeros((0, len(FEATURES)))
        y = np.concatenate([c.y for c in cs]) if cs else np.zeros(0, int)
        if len(set(y.tolist())) < 2:
            raise ValueError("the training programs give candidate pairs of one class only; add racy and "
                             "race-free programs")
        self.model = HistGradientBoostingClassifier(max_iter=self.max_iter, random_state=self.seed,
                                                    learning_rate=0.1, max_leaf_nodes=15)
        self.model.fit(X, y)
        return self

    def predict(self, program: Program) -> list[Race]:
        if self.model is None:
            raise RuntimeError("LearnedPairPredictor.predict before fit")
        c = self.candidates(program)
        if len(c.pairs) == 0:
            return []
        p = self.model.predict_proba(c.X)[:, 1]
        return _races([pair for pair, keep in zip(c.pairs, p >= self.threshold) if keep])


def group_of(program: Program) -> str:
    """The cross-validation group: the benchmark category, or for a generated program its twin pair
    (a racy program and its race-free twin always fall in the same fold)."""
    if program.source == "generated":
        return "pair-" + program.name.rsplit("_", 1)[-1].split(".")[0]
    return program.category


def cross_validated(programs: Sequence[Program], n_folds: int, seed: int = 0, **kwargs) -> dict[str, list[Race]]:
    """Predictions of :class:`LearnedPairPredictor` for every program from a model that never saw its
    group (:func:`group_of`: folds hold whole benchmark categories, so near-duplicate families never
    straddle training and testing)."""
    groups = sorted({group_of(p) for p in programs})
    if len(groups) < 2:
        raise ValueError(f"cross-validation by group needs at least 2 groups, got {groups}")
    n_folds = min(n_folds, len(groups))
    rng = np.random.default_rng(seed)
    order = list(rng.permutation(groups))
    fold_of = {c: i % n_folds for i, c in enumerate(order)}
    out: dict[str, list[Race]] = {}
    shared = LearnedPairPredictor(seed=seed, **kwargs)
    for k in progress(range(n_folds), desc="learned pairs: folds"):
        train = [p for p in programs if fold_of[group_of(p)] != k]
        test = [p for p in programs if fold_of[group_of(p)] == k]
        model = LearnedPairPredictor(seed=seed, **kwargs)
        model._cache = shared._cache
        model.fit(train)
        for p in test:
            out[p.name] = model.predict(p)
    return out


PREDICTORS = ("empty", "all pairs", "lockset", "lockset (mutex only)")


def make_predictor(name: str):
    """A rule-based predictor by name (the learned one needs training: see :func:`cross_validated`)."""
    if name == "empty":
        return EmptyPredictor()
    if name == "all pairs":
        return AllPairsPredictor()
    if name == "lockset":
        return LocksetPredictor()
    if name == "lockset (mutex only)":
        return LocksetPredictor.mutex_only()
    raise ValueError(f"predictor={name!r}; allowed values: {', '.join(PREDICTORS)}")


def predict_all(predictor, programs: Sequence[Program], desc: str | None = None) -> dict[str, list[Race]]:
    """Run a predictor over a population: predictions by program name (every program gets an entry)."""
    return {p.name: predictor.predict(p) for p in progress(programs, desc=desc or predictor.name)}


def unparsable(programs: Sequence[Program]) -> list[str]:
    """The programs tree-sitter reads only with error recovery (GNU extensions, unexpanded macros): the
    static predictors analyse the recovered tree; the chapter reports how many there are."""
    from .frontend import ParseError

    bad = []
    for p in programs:
        try:
            analyse(p.text, strict=True)
        except ParseError:
            bad.append(p.name)
    return bad
