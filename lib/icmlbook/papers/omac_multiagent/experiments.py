"""The replicate study of the OMAC chapter: every arm the claims compare, on fresh tasks per replicate.

One replicate (:func:`replicate`) draws its own validation and test tasks (:func:`.dsl.make_split`), scores the
default team (DyLAN's defaults) and runs, all on the validation split and reported on the held-out test split:

- ``single:<dim>``: Algorithm 1 on each of the five dimensions alone;
- ``joint:fun1>str2`` and ``joint:str2>fun1``: Algorithm 2, both orders;
- ``fixed:<dim>`` and ``resample:<dim>`` (dim in fun1, str2): the comparator and the resampling actor with the
  tolerance stop off, at exactly the same number of evaluations, from the same initial population;
- ``random:fun1``: random search over the Generalist's configurations at the evaluations single:fun1 used;
- the nearest trivial methods (``trivial_arms``): ``single:null`` (Algorithm 1 on a dimension the engine
  ignores), ``unscored:joint`` (fun1 and str2 drawn at random, no scoring), ``resample_b:<dim>`` (the resampling
  actor from the same initial population under another refinement seed), ``joint_b:fun1>str2`` (the same order
  under another seed), ``clone`` (the pool
  plus an unoptimised copy of the Generalist as the "new" agent).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...runtime import progress
from ...runtime.cache import cached
from ...runtime.stats import paired_t
from . import arith, dsl
from .config import OmacConfig
from .dimensions import DIMENSIONS, Team, default_arith_team, default_team, describe, slot
from .optimizer import EvalResult, Evaluator, SearchTrace, algorithm1, algorithm2, random_search
from ...training import Convergence, PlateauTest, plateau_check

__all__ = ["Arm", "Replicate", "replicate", "study", "ABLATION_DIMS", "JOINT_ORDERS", "arm_table", "Playground",
           "playground_run", "example_query", "StructureScan", "rescored_scan", "structure_scan", "lm_specs", "lm_agents", "lm_study", "lm_convergence"]

ABLATION_DIMS = ("fun1", "str2")
JOINT_ORDERS = (("fun1", "str2"), ("str2", "fun1"))


@dataclasses.dataclass(frozen=True)
class Arm:
    """One team's outcome: validation pass@1 (the score the optimiser saw), test pass@1 per task, calls per task,
    the controllers' fallback rates on test, validation evaluations spent and the best-so-far curve."""

    val: float
    test_correct: np.ndarray
    test_calls: np.ndarray
    fallback_rate: dict
    n_evals: int
    best_so_far: tuple[float, ...]
    described: str

    @property
    def test(self) -> float:
        return float(self.test_correct.mean())

    @property
    def calls(self) -> float:
        return float(self.test_calls.mean())


@dataclasses.dataclass(frozen=True)
class Replicate:
    """All arms of one replicate (by name) and its seed."""

    seed: int
    arms: dict

    def __getitem__(self, name: str) -> Arm:
        return self.arms[name]


def _arm(ev: Evaluator, team: Team, val: float, n_evals: int, curve, described: str) -> Arm:
    r: EvalResult = ev.evaluate(team, "test")
    return Arm(float(val), r.correct, r.calls, r.fallback_rate, int(n_evals), tuple(float(x) for x in curve), described)


def _from_trace(ev: Evaluator, team: Team, tr: SearchTrace) -> Arm:
    return _arm(ev, team.with_slot(tr.dim, tr.best), tr.best_score, tr.n_evals, tr.best_so_far,
                f"{tr.dim}: {describe(tr.dim, tr.best, team.family)}")


# ----------------------------------------------------------------------------------------------- small LMs
def lm_specs(cfg: OmacConfig, seed: int) -> tuple[arith.LMSpec, ...]:
    """The three small LMs of the arithmetic family at this profile (same updates, batch and rate for all)."""
    return tuple(dataclasses.replace(s, lr=cfg.lm_lr, eval_every=cfg.lm_eval_every)
                 for s in arith.model_specs(cfg.lm_d_model, cfg.lm_n_layer, cfg.lm_steps, int(seed), cfg.lm_batch))


_AGENTS: dict = {}


def lm_agents(cfg: OmacConfig, seed: int) -> arith.LMAgentSet:
    """The trained small LMs of this profile and seed, trained once per process and cached in the book's artefact
    cache (keyed by their specs and this package's source)."""
    specs = lm_specs(cfg, seed)
    if specs not in _AGENTS:
        _AGENTS[specs] = cached("omac-lm-agents", arith.train_lm_agents, args=(specs,), chapter="omac_multiagent")
    return _AGENTS[specs]


def lm_convergence(cfg: OmacConfig, seed: int, test: PlateauTest = PlateauTest()) -> list[Convergence]:
    """Rule 10's guard for the small LMs of this profile, one report per model. First the plateau test read back
    along each model's held-out answer-loss curve (:meth:`.arith.LMAgentSet.plateau`); where every model passes
    it, also the literal test: the same models trained ``1 + test.extend`` times as many updates (their own
    schedule, same seed, batch and rate) and the final held-out losses compared, which then decides. A curve
    read inside one annealed schedule can flatten because the rate was annealed rather than because the model
    converged; the longer run is the test's own definition, so the guard only gets stricter."""
    agents = lm_agents(cfg, seed)
    read = agents.plateau(cfg.lm_loss_margin, test)
    if not all(r.converged for r in read):
        return read
    specs = tuple(dataclasses.replace(s, steps=int(round(s.steps * (1 + test.extend)))) for s in agents.specs)
    if specs not in _AGENTS:
        _AGENTS[specs] = cached("omac-lm-agents", arith.train_lm_agents, args=(specs,), chapter="omac_multiagent")
    longer = _AGENTS[specs]
    return [plateau_check(a[1][-1], b[1][-1], cfg.lm_loss_margin, test,
                          name=f"small LM '{s.name}' ({s.steps} against {ls.steps} updates, read back: passed)")
            for s, ls, a, b in zip(agents.specs, longer.specs, agents.curves, longer.curves)]


def _setup(cfg: OmacConfig, s: int, family: str, agents):
    if family == "dsl":
        return dsl.make_split(cfg.n_val, cfg.n_test, s), default_team(cfg.n_layers)
    if family == "arith":
        if agents is None:
            raise ValueError("the arithmetic family needs the trained small LMs (agents=lm_agents(cfg, seed))")
        return arith.make_arith_split(agents, cfg.lm_n_val, cfg.lm_n_test, s), default_arith_team(cfg.n_layers)
    raise ValueError(f"task family {family!r} is unknown; allowed: dsl, arith")


def replicate(cfg: OmacConfig, seed: int, index: int, family: str = "dsl",
              agents: arith.LMAgentSet | None = None) -> Replicate:
    """Replicate ``index`` of the study with base seed ``seed`` (its own tasks and optimiser seed), on the
    list-function family (``"dsl"``, program agents) or the arithmetic family (``"arith"``, the small LMs
    ``agents``)."""
    s = int(seed) * 1000 + int(index)
    split, team = _setup(cfg, s, family, agents)
    ev = Evaluator(split, cfg.n_layers)
    kw = dict(n=cfg.n_init, t_max=cfg.t_max, delta=cfg.delta, kappa=cfg.kappa, h0=cfg.h0)
    arms = {}
    d0 = ev.evaluate(team).score
    arms["default"] = _arm(ev, team, d0, 1, (d0,), "DyLAN defaults")
    for dim in DIMENSIONS:
        arms[f"single:{dim}"] = _from_trace(ev, team, algorithm1(ev, team, dim, seed=s, **kw))
    for order in JOINT_ORDERS:
        sw = algorithm2(ev, team, order, rounds=cfg.rounds, seed=s, **kw)
        curve = np.concatenate([t.best_so_far for t in sw.traces])
        arms["joint:" + ">".join(order)] = _arm(
            ev, sw.team, sw.traces[-1].best_score, sw.n_evals, curve,
            "; ".join(f"{t.dim}: {describe(t.dim, t.best, team.family)}" for t in sw.traces))
    abl = dict(kw, t_max=cfg.ablation_iters, kappa=cfg.ablation_iters + 1)
    for dim in ABLATION_DIMS:
        arms[f"fixed:{dim}"] = _from_trace(ev, team, algorithm1(ev, team, dim, seed=s, **abl))
        arms[f"resample:{dim}"] = _from_trace(ev, team, algorithm1(ev, team, dim, seed=s, actor="resampling", **abl))
    arms["random:fun1"] = _from_trace(ev, team, random_search(ev, team, "fun1", arms["single:fun1"].n_evals, seed=s))
    if cfg.trivial_arms:
        arms["single:null"] = _from_trace(ev, team, algorithm1(ev, team, "null", seed=s, **kw))
        rng = np.random.default_rng([s, 5])
        rt = team.with_slot("fun1", slot("fun1", team.family).random(rng)).with_slot(
            "str2", slot("str2", team.family).random(rng))
        arms["unscored:joint"] = _arm(ev, rt, ev.evaluate(rt).score, 0, (), "fun1 and str2 drawn at random")
        for dim in ABLATION_DIMS:
            arms[f"resample_b:{dim}"] = _from_trace(
                ev, team, algorithm1(ev, team, dim, seed=s + 500_000, init_seed=s, actor="resampling", **abl))
        sw = algorithm2(ev, team, JOINT_ORDERS[0], rounds=cfg.rounds, seed=s + 500_000, **kw)
        arms["joint_b:fun1>str2"] = _arm(ev, sw.team, sw.traces[-1].best_score, sw.n_evals, (), "same order, other seed")
        ct = team.with_slot("fun2", slot("fun2", team.family).default)
        arms["clone"] = _arm(ev, ct, ev.evaluate(ct).score, 1, (), "pool + an unoptimised Generalist clone")
    return Replicate(s, arms)


def study(cfg: OmacConfig, seed: int) -> list[Replicate]:
    """Every replicate (a progress loop; the notebook caches each replicate through ``run.cached_many``)."""
    return [replicate(cfg, seed, i) for i in progress(range(cfg.n_seeds), desc="OMAC replicates")]


def lm_study(cfg: OmacConfig, seed: int) -> list[Replicate]:
    """Every replicate of the arithmetic family (``cfg.lm_seeds``), all with the same trained small LMs (the
    agents are fixed programs of the system; each replicate draws its own queries and optimiser seed)."""
    agents = lm_agents(cfg, seed)
    return [replicate(cfg, seed, 500 + i, "arith", agents)
            for i in progress(range(cfg.lm_seeds), desc="OMAC small-LM replicates")]


def arm_table(reps: list[Replicate], names=None) -> list[dict]:
    """Mean validation and test pass@1, calls per task and evaluations of each arm over the replicates."""
    names = names or list(reps[0].arms)
    rows = []
    for n in names:
        a = [r[n] for r in reps]
        rows.append(dict(arm=n, val=float(np.mean([x.val for x in a])), test=float(np.mean([x.test for x in a])),
                         calls=float(np.mean([x.calls for x in a])), evals=float(np.mean([x.n_evals for x in a]))))
    return rows


@dataclasses.dataclass(frozen=True)
class Playground:
    """One live run of Algorithm 2 (the chapter's playground) on a fresh small split: the sweep, the default
    and optimised teams' validation and test pass@1 and calls per test query."""

    sweep: object
    default_val: float
    default_test: float
    default_calls: float
    val: float
    test: float
    calls: float


def playground_run(cfg: OmacConfig, seed: int, order: tuple[str, ...], n: int, t_max: int, delta: float,
                   family: str = "dsl", search_seed: int | None = None) -> Playground:
    """Algorithm 2 over ``order`` with the reader's N, T_max and delta (the other settings from ``cfg``) on the
    task family ``family`` ("dsl" or "arith": the small LMs of :func:`lm_agents`, trained with ``seed``).
    ``search_seed`` (default ``seed``) seeds the split and the search, so a reader can draw another split and
    search without retraining the small LMs."""
    s = seed if search_seed is None else search_seed
    if isinstance(s, bool) or not isinstance(s, int) or s < 0:
        raise ValueError(f"search_seed={search_seed!r} is not allowed; it must be an integer >= 0")
    split, team = _setup(cfg, int(s) * 1000 + 999, family, lm_agents(cfg, seed) if family == "arith" else None)
    ev = Evaluator(split, cfg.n_layers)
    sw = algorithm2(ev, team, order, rounds=cfg.rounds, seed=s, n=n, t_max=t_max, delta=delta, kappa=cfg.kappa,
                    h0=cfg.h0)
    d, dt, o, ot = ev.evaluate(team), ev.evaluate(team, "test"), ev.evaluate(sw.team), ev.evaluate(sw.team, "test")
    return Playground(sw, d.score, dt.score, float(dt.calls.mean()), o.score, ot.score, float(ot.calls.mean()))


def example_query(seed: int, n_tasks: int = 12):
    """An example query for the network figure: the first of ``n_tasks`` fresh tasks on which the default team
    does not stop in its first layer (else the first task); returns (trace, team, table, task)."""
    tasks = dsl.make_tasks(n_tasks, int(seed) * 1000 + 777)
    split = dsl.Split(tuple(dsl.task_table(t) for t in tasks), (), int(seed) * 1000 + 777)
    ev = Evaluator(split)
    team = default_team()
    traces = ev.traces(team)
    q = next((i for i, t in enumerate(traces) if t.consensus_layer != 0 and t.correct), 0)
    return traces[q], team, split.val[q], tasks[q]


@dataclasses.dataclass(frozen=True)
class StructureScan:
    """Configurations of one dimension scored on one fresh validation split: ``scores`` and ``calls`` per
    configuration (rows of ``configs``: every configuration of the slot, or a seeded random sample of them where
    the slot is too large to score whole), and the default team's score and rank. For Fun-2 the default is the
    team without a constructed agent (what claim 7 compares with).

    The scan's best is the maximum over many configurations, each scored once on one split, so ``best_gain`` is
    biased upward (configurations no better than the default that flip 5 % of the task outcomes reach +0.04 over
    it at the median of 48-60 of them). The room a rule reads is therefore ``room``: the best configuration and the
    default **re-scored on a second fresh split of as many tasks** (disjoint draws of the same seeded generator,
    never seen by the scan), per task (``fresh_best``, ``fresh_default``: 1 for a solved task), and their paired
    mean difference there, an unbiased estimate of the selected configuration's gain."""

    dim: str
    scores: np.ndarray
    calls: np.ndarray
    default_score: float
    n_total: int | None = None
    configs: np.ndarray | None = None
    fresh_best: np.ndarray | None = None
    fresh_default: np.ndarray | None = None

    @property
    def default_rank(self) -> int:
        """1 + the number of configurations scoring strictly higher than the default."""
        return 1 + int(np.sum(self.scores > self.default_score))

    @property
    def sampled(self) -> bool:
        """Whether only a random sample of the slot's configurations was scored."""
        return self.n_total is not None and self.n_total > len(self.scores)

    @property
    def best_index(self) -> int:
        """Row of the best scored configuration (the first of ties), the one re-scored on the fresh split."""
        return int(np.argmax(self.scores))

    @property
    def best_gain(self) -> float:
        """How far the best scored configuration lies above the default on the scan's own split (the maximum over
        the scan: biased upward, see the class; the rules read :attr:`room`)."""
        return float(np.max(self.scores) - self.default_score)

    @property
    def rescore(self):
        """The paired comparison of the best configuration with the default on the fresh split
        (:func:`icmlbook.runtime.stats.paired_t` of the per-task outcomes), or None without a re-score."""
        if self.fresh_best is None or self.fresh_default is None:
            return None
        return paired_t(self.fresh_best, self.fresh_default)

    @property
    def room(self) -> float:
        """The best configuration's gain over the default re-scored on the fresh split (NaN without a re-score):
        the room optimising the dimension has, free of the scan's selection (a lower bound on it where the scan
        is a sample)."""
        r = self.rescore
        return float("nan") if r is None else float(r.mean)

    def describe(self) -> str:
        """"all 48 configurations" or "60 random configurations of 129,600"."""
        n = len(self.scores)
        return f"{n} random configurations of {self.n_total:,}" if self.sampled else f"all {n} configurations"


def rescored_scan(dim: str, configs: np.ndarray, score, default, n_total: int | None = None) -> StructureScan:
    """A :class:`StructureScan` of ``configs`` from two scorers: ``score(config, part)`` and ``default(part)`` give
    the per-task outcomes (solved 1, else 0) and calls of a configuration and of the default team on ``part``
    ("val": the scan's split; "test": the fresh split of as many tasks). Every configuration is scored on "val";
    only the best one (and the default) again on "test": one extra candidate per scan."""
    res = [score(tuple(int(v) for v in c), "val") for c in configs]
    scores = np.array([float(np.mean(r[0])) for r in res])
    calls = np.array([float(np.mean(r[1])) for r in res])
    best = tuple(int(v) for v in configs[int(np.argmax(scores))])
    fresh_best, fresh_default = score(best, "test")[0], default("test")[0]
    return StructureScan(dim, scores, calls, float(np.mean(default("val")[0])), n_total, configs,
                         np.asarray(fresh_best, dtype=float), np.asarray(fresh_default, dtype=float))


def structure_scan(cfg: OmacConfig, seed: int, dims=("str2", "str3"), family: str = "dsl",
                   sample: int | None = None) -> dict:
    """Scores of each dimension's configurations (all other settings at their defaults) on one fresh split of
    ``cfg.n_val`` tasks (``family="arith"``: ``cfg.lm_n_val`` queries answered by the small LMs of
    :func:`lm_agents`): how much the dimension can move pass@1 and calls, and where the default stands; the best
    configuration and the default are re-scored on a second fresh split of as many tasks, disjoint from the first
    (:class:`StructureScan`'s ``room``). A slot with more than ``sample`` configurations (Fun-1 and Fun-2 have
    thousands) is scored on ``sample`` of them drawn at random without replacement (seeded by ``seed`` and the
    dimension); ``None`` scores every one."""
    if family == "arith":
        split = arith.make_arith_split(lm_agents(cfg, seed), cfg.lm_n_val, cfg.lm_n_val, int(seed) * 1000 + 555)
        team = default_arith_team(cfg.n_layers)
    elif family == "dsl":
        split = dsl.make_split(cfg.n_val, cfg.n_val, int(seed) * 1000 + 555)
        team = default_team(cfg.n_layers)
    else:
        raise ValueError(f"task family {family!r} is unknown; allowed: dsl, arith")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise ValueError(f"sample={sample!r} is not allowed; it must be an integer >= 1 or None")
    ev = Evaluator(split, cfg.n_layers)

    def outcome(t: Team, part: str):
        r = ev.evaluate(t, part)
        return r.correct, r.calls

    out = {}
    for d in dims:
        s = slot(d, family)
        n_total = s.n_configs
        if sample is not None and n_total > sample:
            rng = np.random.default_rng([int(seed), 556, DIMENSIONS.index(d) if d in DIMENSIONS else 9])
            idx = np.sort(rng.choice(n_total, sample, replace=False))
            configs = np.stack(np.unravel_index(idx, s.sizes), axis=1)
        else:
            configs = s.all_configs()
        out[d] = rescored_scan(d, configs, lambda c, part, d=d: outcome(team.with_slot(d, c), part),
                               lambda part: outcome(team, part), n_total)
    return out
