"""OMAC's optimiser: the objective J, the two actors, Algorithm 1 (one dimension) and Algorithm 2 (a sweep).

Reconstructed from the official code (MIT), the paper's method section was not reached (dossier Sec. 3.4-3.5):

- **Objective** ``J(p_d) = mean_q score(MAS(q; p_d, P_-d), y_q)`` on the validation split (:class:`Evaluator`;
  the score is pass@1 on the hidden tests). Agent answers are cached by (agent, layer, received answers, query),
  and whole-team scores by team, so the optimiser's repeated evaluations cost only the new agents' calls.
- **Actors** (the paper's LLMs, here operators in configuration space):
  :class:`DiversityInitializer` (Semantic Initializer: farthest-point sampling, in normalised option distance,
  from the seed and the population), :class:`ContrastiveComparator` (copies from the better parent ``p+``,
  pushes each attribute where ``p+`` and ``p-`` differ one step further in ``p-`` -> ``p+``'s direction with
  probability 1/2, then mutates one attribute where they agree; always a configuration not yet in the
  population), :class:`ResamplingActor` (the ablation: "the Initializer asked for one more").
- **Algorithm 1** (:func:`algorithm1`): ``N - 1`` initial candidates, then up to ``T_max`` contrastive children;
  parents from the top and bottom ``h = h0 + t`` of the population sorted by score (``h = floor(|P|/2)`` when
  ``|P| < 2h``); the tolerance stop after ``kappa`` iterations improving the best by less than ``delta``.
- **Algorithm 2** (:func:`algorithm2`): an ordered sweep over dimensions in rounds, each optimised with the
  previous optima fixed.
- :func:`random_search`: uniform configurations at an equal number of evaluations (a baseline).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from . import dsl
from .dimensions import SLOTS, Slot, Team, slot
from .engine import CONTROLLERS, QueryTrace, query_uniforms, run_query

__all__ = ["Evaluator", "EvalResult", "DiversityInitializer", "ContrastiveComparator", "ResamplingActor", "ACTORS",
           "SearchTrace", "algorithm1", "algorithm2", "random_search", "parent_threshold", "SweepTrace"]

N_UNIFORM_AGENTS = 8


@dataclasses.dataclass(frozen=True)
class EvalResult:
    """A team's run over one split: per query ``correct`` (pass@1) and ``calls``; controllers' fallbacks."""

    correct: np.ndarray
    calls: np.ndarray
    agent_calls: np.ndarray
    fallbacks: dict
    decisions: dict

    @property
    def score(self) -> float:
        return float(self.correct.mean())

    @property
    def fallback_rate(self) -> dict:
        return {k: (self.fallbacks[k] / self.decisions[k] if self.decisions[k] else 0.0) for k in self.fallbacks}


class Evaluator:
    """Scores teams on a split's validation or test tasks (``part``), with the agent-answer and team caches.
    ``n_evals`` counts the distinct validation evaluations (the optimiser's budget)."""

    def __init__(self, split: dsl.Split, n_layers: int = 3):
        self.split = split
        self.u = {part: [query_uniforms(split.seed * 2 + (part == "test"), q, n_layers, N_UNIFORM_AGENTS)
                         for q in range(len(getattr(split, part)))] for part in ("val", "test")}
        self.memo: dict = {"val": {}, "test": {}}
        self.cache: dict = {}
        self.n_evals = 0

    def traces(self, team: Team, part: str = "val") -> list[QueryTrace]:
        if part not in ("val", "test"):
            raise ValueError(f"part={part!r} is not allowed; allowed values: val, test")
        if len(team.pool) > N_UNIFORM_AGENTS:
            raise ValueError(f"a pool of {len(team.pool)} agents is not allowed; at most {N_UNIFORM_AGENTS}")
        tabs = getattr(self.split, part)
        out = []
        for q, tab in enumerate(tabs):
            rng = np.random.default_rng([self.split.seed, q, 11 + (part == "test")])
            out.append(run_query(team, tab, self.u[part][q], rng, self.memo[part], qid=q))
        return out

    def evaluate(self, team: Team, part: str = "val") -> EvalResult:
        key = (team, part)
        if key not in self.cache:
            tr = self.traces(team, part)
            fb = {c: sum(t.fallbacks[c] for t in tr) for c in CONTROLLERS}
            dec = {c: sum(t.decisions[c] for t in tr) for c in CONTROLLERS}
            self.cache[key] = EvalResult(np.array([t.correct for t in tr], dtype=float),
                                         np.array([t.calls for t in tr], dtype=float),
                                         np.array([t.agent_calls for t in tr], dtype=float), fb, dec)
            if part == "val":
                self.n_evals += 1
        return self.cache[key]


# ----------------------------------------------------------------------------------------------- actors
def _dist(s: Slot, a: Sequence[int], b: Sequence[int]) -> float:
    """Normalised option distance between two configurations (ordinal attributes, each in [0, 1])."""
    return float(sum(abs(x - y) / max(n - 1, 1) for x, y, n in zip(a, b, s.sizes)))


class DiversityInitializer:
    """The Semantic Initializer's stand-in: farthest-point sampling from ``m`` random candidates."""

    name = "diversity"

    def __init__(self, m: int = 64):
        self.m = m

    def propose(self, s: Slot, population: Sequence[tuple], rng: np.random.Generator) -> tuple:
        seen = set(population)
        cands = [c for c in (s.random(rng) for _ in range(self.m)) if c not in seen] or [s.random(rng)]
        score = [min(_dist(s, c, p) for p in population) if population else 0.0 for c in cands]
        return cands[int(np.argmax(score))]

    def initialize(self, s: Slot, p0: tuple, n: int, rng: np.random.Generator) -> list[tuple]:
        pop = [p0]
        for _ in range(n - 1):
            pop.append(self.propose(s, pop, rng))
        return pop[1:]


class ContrastiveComparator:
    """The Contrastive Comparator's stand-in (see the module docstring)."""

    name = "contrastive"

    def child(self, s: Slot, plus: tuple, minus: tuple, population: Sequence[tuple], rng: np.random.Generator) -> tuple:
        seen = set(population)
        for _ in range(50):
            c = list(plus)
            for i, (a, b) in enumerate(zip(plus, minus)):
                if a != b and rng.random() < 0.5:
                    c[i] = int(np.clip(a + np.sign(a - b), 0, s.sizes[i] - 1))
            same = [i for i in range(len(c)) if plus[i] == minus[i] and s.sizes[i] > 1] or list(range(len(c)))
            i = int(rng.choice(same))
            c[i] = int(rng.choice([o for o in range(s.sizes[i]) if o != c[i]] or [c[i]]))
            c = tuple(c)
            if c not in seen:
                return c
        return DiversityInitializer().propose(s, list(population), rng)


class ResamplingActor:
    """The ablation: in place of a contrastive child, the Initializer proposes one more candidate."""

    name = "resampling"

    def child(self, s: Slot, plus: tuple, minus: tuple, population: Sequence[tuple], rng: np.random.Generator) -> tuple:
        return DiversityInitializer().propose(s, list(population), rng)


ACTORS = {"contrastive": ContrastiveComparator, "resampling": ResamplingActor}


# ----------------------------------------------------------------------------------------------- Algorithm 1
def parent_threshold(h0: int, t: int, pop_size: int) -> int:
    """Algorithm 1's parent pool size at iteration t: ``h0 + t``, or ``floor(|P|/2)`` when ``|P| < 2(h0 + t)``."""
    h = h0 + t
    return pop_size // 2 if pop_size < 2 * h else h


@dataclasses.dataclass(frozen=True)
class SearchTrace:
    """One run of Algorithm 1: the candidates in evaluation order with their validation scores (the seed
    first), the best configuration and score, the iterations run and why it stopped."""

    dim: str
    actor: str
    configs: tuple[tuple, ...]
    scores: tuple[float, ...]
    best: tuple
    best_score: float
    iterations: int
    stop: str

    @property
    def best_so_far(self) -> np.ndarray:
        return np.maximum.accumulate(np.asarray(self.scores))

    @property
    def n_evals(self) -> int:
        return len(self.scores)


def _check(n: int, t_max: int, delta: float, kappa: int, h0: int) -> None:
    if n < 2:
        raise ValueError(f"N={n!r} is not allowed; N (initialize_num) must be >= 2")
    if t_max < 0:
        raise ValueError(f"T_max={t_max!r} is not allowed; it must be >= 0")
    if not delta >= 0:
        raise ValueError(f"delta={delta!r} is not allowed; it must be >= 0")
    if kappa < 1:
        raise ValueError(f"kappa={kappa!r} is not allowed; it must be >= 1")
    if h0 < 1:
        raise ValueError(f"h0={h0!r} is not allowed; it must be >= 1")


def algorithm1(ev: Evaluator, team: Team, dim: str, *, n: int = 3, t_max: int = 3, delta: float = 0.01,
               kappa: int = 2, h0: int = 1, actor="contrastive", seed: int = 0,
               p0: tuple | None = None, init_seed: int | None = None) -> SearchTrace:
    """Optimise dimension ``dim`` of ``team`` (others fixed) on ``ev``'s validation split (dossier Sec. 3.4).
    ``actor`` is a name of :data:`ACTORS` or an actor object with ``name``, ``child`` and optionally ``initialize``
    (the off-by-default endpoint backend, :class:`.llm.EndpointActors`).
    ``kappa`` larger than ``t_max`` switches the tolerance stop off (a fixed budget of ``n - 1 + t_max``).
    The Initializer draws from ``init_seed`` (default ``seed``), the refinement from ``seed`` and the actor, so
    that two actors given the same ``init_seed`` start from the same population and differ only in refinement."""
    _check(n, t_max, delta, kappa, h0)
    s = slot(dim, team.family)
    if isinstance(actor, str):
        if actor == "endpoint":
            raise ValueError("actor='endpoint' needs an address: pass actor=EndpointActors(base_url=..., model=...) "
                             "(omac_multiagent.llm) for your own OpenAI-compatible server; the book ships none")
        if actor not in ACTORS:
            raise ValueError(f"actor={actor!r} is unknown; allowed: {', '.join(ACTORS)}, or an EndpointActors")
        comparator, initializer, a_id, actor_name = ACTORS[actor](), DiversityInitializer(), list(ACTORS).index(actor), actor
    else:                                   # an actor object (the endpoint backend): its own initializer and child
        comparator, a_id, actor_name = actor, len(ACTORS), actor.name
        initializer = actor if hasattr(actor, "initialize") else DiversityInitializer()
    d_id = 1 + list(SLOTS).index(dim)
    init_rng = np.random.default_rng([int(seed if init_seed is None else init_seed), d_id, 0])
    rng = np.random.default_rng([int(seed), d_id, 1 + a_id])
    p0 = tuple(p0) if p0 is not None else current(team, dim)
    pop = [p0]
    scores = [ev.evaluate(team.with_slot(dim, p0)).score]
    for c in initializer.initialize(s, p0, n, init_rng):
        pop.append(c)
        scores.append(ev.evaluate(team.with_slot(dim, c)).score)
    best, tol, it, stop = max(scores), 0, 0, "T_max reached"
    for t in range(t_max):
        h = parent_threshold(h0, t, len(pop))
        order = np.argsort(-np.asarray(scores), kind="stable")
        plus = pop[int(order[rng.integers(h)])]
        minus = pop[int(order[len(pop) - 1 - rng.integers(h)])]
        c = comparator.child(s, plus, minus, pop, rng)
        pop.append(c)
        scores.append(ev.evaluate(team.with_slot(dim, c)).score)
        it = t + 1
        if max(scores) - best < delta:
            tol += 1
        best = max(scores)
        if tol >= kappa:
            stop = "tolerance"
            break
    i = int(np.argmax(scores))
    return SearchTrace(dim, actor_name, tuple(pop), tuple(float(x) for x in scores), pop[i], float(scores[i]), it,
                       stop)


def current(team: Team, dim: str) -> tuple:
    """The configuration of ``dim`` that ``team`` has now (fun1: its Generalist; fun2: the default new agent)."""
    s = slot(dim, team.family)
    if dim in ("str1", "str2", "str3", "null"):
        return tuple(getattr(team, dim))
    if dim == "fun1":
        v = team.pool[0].p
        return tuple(opts.index(v[name]) for name, opts in s.attrs)
    made = [a for a in team.pool if a.role == "Constructed"]
    if not made:
        return s.default
    v = {"kind": made[0].kind, **dict(zip((n for n, _ in s.attrs), (o[d] for (_, o), d in zip(s.attrs, s.default)))),
         **made[0].p}
    return tuple(opts.index(v[name]) for name, opts in s.attrs)


def random_search(ev: Evaluator, team: Team, dim: str, n_evals: int, seed: int = 0) -> SearchTrace:
    """The seed configuration and ``n_evals - 1`` uniform random distinct ones; the best by validation."""
    if n_evals < 1:
        raise ValueError(f"n_evals={n_evals!r} is not allowed; it must be >= 1")
    s = slot(dim, team.family)
    rng = np.random.default_rng([int(seed), 1 + list(SLOTS).index(dim), 99])
    pop = [current(team, dim)]
    while len(pop) < min(n_evals, s.n_configs):
        c = s.random(rng)
        if c not in pop:
            pop.append(c)
    scores = [ev.evaluate(team.with_slot(dim, c)).score for c in pop]
    i = int(np.argmax(scores))
    return SearchTrace(dim, "random", tuple(pop), tuple(float(x) for x in scores), pop[i], float(scores[i]),
                       0, "budget")


@dataclasses.dataclass(frozen=True)
class SweepTrace:
    """Algorithm 2: the per-dimension traces in sweep order and the final team."""

    order: tuple[str, ...]
    traces: tuple[SearchTrace, ...]
    team: Team

    @property
    def n_evals(self) -> int:
        return sum(t.n_evals for t in self.traces)


def algorithm2(ev: Evaluator, team: Team, order: Sequence[str], rounds: int = 1, seed: int = 0, **kw) -> SweepTrace:
    """Optimise the dimensions ``order`` one after another, ``rounds`` times, each conditioned on the optima
    found before it (dossier Sec. 3.5)."""
    if rounds < 1:
        raise ValueError(f"rounds={rounds!r} is not allowed; it must be >= 1")
    for d in order:
        slot(d, team.family)
    traces = []
    for r in range(rounds):
        for k, d in enumerate(order):
            tr = algorithm1(ev, team, d, seed=seed * 1000 + r * 10 + k, **kw)
            team = team.with_slot(d, tr.best)
            traces.append(tr)
    return SweepTrace(tuple(order), tuple(traces), team)
