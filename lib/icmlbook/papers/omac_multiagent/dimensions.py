"""OMAC's five optimisation dimensions as typed slots, the agents and controllers they configure, and the team.

In the paper every dimension is a natural-language prompt (an agent's instructions, a new agent's role, or a
controller's selection prompt), written and rewritten by GPT-3.5. Here the agents are programs (seeded
program-synthesis solvers over the DSL of :mod:`.dsl`) and a "prompt" is a **configuration** of such a
program: a tuple of discrete attributes, each with an ordered list of options. The five slots (OMAC, Sec. 3;
the code's identifiers in parentheses):

- ``fun1`` (``<AgentName>``): the configuration of an existing agent of the pool (the Generalist);
- ``fun2`` (``construct-role``): a new agent, its solver type and configuration, added to the pool;
- ``str1`` (``pre-rank``): the controller choosing which agents of the pool join a query at all;
- ``str2`` (``rank``): the controller keeping the best answers after each layer (and picking the final one);
- ``str3`` (``structure``): the controller choosing, for each agent, which kept answers it receives (edges).

A ``null`` slot (a controller whose output the engine ignores) exists for the trivial-method tests only.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

__all__ = ["Slot", "SLOTS", "DIMENSIONS", "slot", "AgentSpec", "Team", "default_team", "ENUM_ATTRS", "REPAIR_ATTRS",
           "PRERANK_ATTRS", "RANK_ATTRS", "EDGE_ATTRS", "WEIGHT_LEVELS", "BUDGETS", "describe", "LM_ATTRS", "LM_SLOTS",
           "FAMILIES", "default_arith_team"]

#: grammar-weight levels an enumerator may give a primitive family
WEIGHT_LEVELS = (0.25, 1.0, 4.0, 16.0)
#: sample budgets (programs drawn per call)
BUDGETS = (16, 32, 64, 128, 256, 512)

#: enumerator agent: family weights (map, filter, order, slice), maximum depth, budget, trust in peers' answers
ENUM_ATTRS: dict[str, tuple] = {
    "w_map": WEIGHT_LEVELS, "w_filter": WEIGHT_LEVELS, "w_order": WEIGHT_LEVELS, "w_slice": WEIGHT_LEVELS,
    "depth": (1, 2, 3), "budget": BUDGETS, "trust": ("ignore", "adopt-if-failing", "majority"),
}
#: repairing agent: the edits it tries, which repair it prefers, its budget when it receives nothing
REPAIR_ATTRS: dict[str, tuple] = {
    "edits": ("substitute", "substitute+delete", "all"), "prefer": ("shortest", "seeded-random"),
    "fallback_budget": BUDGETS,
}
#: pre-selection controller (Str-1): scoring of the pool, how many agents, minimum score
PRERANK_ATTRS: dict[str, tuple] = {"score": ("features", "pool-order", "budget"), "k": (2, 3, 4, 5, 6),
                                   "min_score": (0, 1)}
#: ranking controller (Str-2): scoring of a layer's answers, how many it keeps, minimum visible pass fraction
RANK_ATTRS: dict[str, tuple] = {"score": ("visible", "agreement", "visible+agreement", "shortest"),
                                "k": (1, 2, 3, 4), "threshold": (0.0, 0.5, 1.0)}
#: edge controller (Str-3): which kept answers an agent receives, at most how many, minimum visible fraction
EDGE_ATTRS: dict[str, tuple] = {"rule": ("rank-order", "best-visible", "agreeing", "seeded-random"),
                                "max_in": (1, 2, 3), "threshold": (0.0, 0.5, 1.0)}
NEW_AGENT_ATTRS: dict[str, tuple] = {"kind": ("enumerator", "repairer"), **ENUM_ATTRS, **REPAIR_ATTRS}
NULL_ATTRS: dict[str, tuple] = {"a": (0, 1, 2, 3), "b": (0, 1, 2, 3), "c": (0, 1, 2)}

#: small-LM agent (the arithmetic family, :mod:`.arith`): which trained model, how many worked examples before the
#: query and which (random, or of the query's shape), decoding temperature, samples, how one answer is chosen from
#: the samples (majority vote, or the first passing the residue checks), trust in peers' answers
LM_ATTRS: dict[str, tuple] = {
    "model": ("general", "sums", "products"), "shots": (0, 1, 2), "demos": ("random", "same-shape"),
    "temperature": (0.25, 0.5, 1.0, 1.5), "budget": (1, 2, 4, 8, 16), "decode": ("vote", "check"),
    "trust": ("ignore", "adopt-if-failing", "majority"),
}
#: small-budget repairer of the arithmetic family (one-digit edits of received answers)
LM_REPAIR_ATTRS: dict[str, tuple] = {
    "edits": ("substitute", "substitute+delete", "all"), "prefer": ("shortest", "seeded-random"),
    "fallback_budget": (1, 2, 4, 8, 16),
}
LM_NEW_AGENT_ATTRS: dict[str, tuple] = {"kind": ("lm", "repairer"), **LM_ATTRS, **LM_REPAIR_ATTRS}
#: the arithmetic family's ranker scores answers by the general model's log-probability where the DSL's prefers
#: the shortest program
LM_RANK_ATTRS: dict[str, tuple] = {"score": ("visible", "agreement", "visible+agreement", "logprob"),
                                   "k": (1, 2, 3, 4), "threshold": (0.0, 0.5, 1.0)}
FAMILIES: tuple[str, ...] = ("dsl", "arith")


@dataclasses.dataclass(frozen=True)
class Slot:
    """One optimisation dimension: named attributes with ordered options, a default (option indices) and the
    kind of thing it configures. A configuration is a tuple of option indices, one per attribute."""

    name: str
    kind: str
    attrs: tuple[tuple[str, tuple], ...]
    default: tuple[int, ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(o) for _, o in self.attrs)

    @property
    def n_configs(self) -> int:
        return int(np.prod(self.sizes))

    def values(self, config: Sequence[int]) -> dict:
        """The attribute values of a configuration (option indices -> values); an index out of range raises."""
        config = tuple(int(c) for c in config)
        if len(config) != len(self.attrs) or any(not 0 <= c < s for c, s in zip(config, self.sizes)):
            raise ValueError(f"configuration {config!r} is not valid for slot {self.name!r} "
                             f"(one option index per attribute, sizes {self.sizes})")
        return {name: opts[c] for (name, opts), c in zip(self.attrs, config)}

    def random(self, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple(int(rng.integers(s)) for s in self.sizes)

    def all_configs(self) -> np.ndarray:
        """(n_configs, n_attrs) every configuration (for exhaustive search on small slots)."""
        grids = np.meshgrid(*[np.arange(s) for s in self.sizes], indexing="ij")
        return np.stack([g.ravel() for g in grids], axis=1)


def _idx(attrs: dict, **vals) -> tuple[int, ...]:
    return tuple(attrs[k].index(vals[k]) for k in attrs)


_ENUM_DEFAULT = dict(w_map=1.0, w_filter=1.0, w_order=1.0, w_slice=1.0, depth=2, budget=16, trust="adopt-if-failing")
_REPAIR_DEFAULT = dict(edits="substitute", prefer="shortest", fallback_budget=16)

SLOTS: dict[str, Slot] = {
    "fun1": Slot("fun1", "agent", tuple(ENUM_ATTRS.items()), _idx(ENUM_ATTRS, **_ENUM_DEFAULT)),
    "fun2": Slot("fun2", "new-agent", tuple(NEW_AGENT_ATTRS.items()),
                 _idx(NEW_AGENT_ATTRS, kind="enumerator", **_ENUM_DEFAULT, **_REPAIR_DEFAULT)),
    "str1": Slot("str1", "prerank", tuple(PRERANK_ATTRS.items()), _idx(PRERANK_ATTRS, score="features", k=3, min_score=1)),
    "str2": Slot("str2", "rank", tuple(RANK_ATTRS.items()), _idx(RANK_ATTRS, score="visible", k=2, threshold=0.0)),
    "str3": Slot("str3", "edges", tuple(EDGE_ATTRS.items()), _idx(EDGE_ATTRS, rule="rank-order", max_in=2, threshold=0.0)),
    "null": Slot("null", "null", tuple(NULL_ATTRS.items()), (0, 0, 0)),
}
#: the paper's five dimensions, in its order
DIMENSIONS: tuple[str, ...] = ("fun1", "fun2", "str1", "str2", "str3")

_LM_DEFAULT = dict(model="general", shots=0, demos="random", temperature=1.0, budget=1, decode="vote",
                   trust="adopt-if-failing")
_LM_REPAIR_DEFAULT = dict(edits="substitute", prefer="shortest", fallback_budget=1)
#: the slots of the arithmetic family (same names and controllers; the agents are small LMs)
LM_SLOTS: dict[str, Slot] = {
    **SLOTS,
    "fun1": Slot("fun1", "agent", tuple(LM_ATTRS.items()), _idx(LM_ATTRS, **_LM_DEFAULT)),
    "fun2": Slot("fun2", "new-agent", tuple(LM_NEW_AGENT_ATTRS.items()),
                 _idx(LM_NEW_AGENT_ATTRS, kind="lm", **_LM_DEFAULT, **_LM_REPAIR_DEFAULT)),
    "str2": Slot("str2", "rank", tuple(LM_RANK_ATTRS.items()), SLOTS["str2"].default),
}


def slot(name: str, family: str = "dsl") -> Slot:
    """The slot called ``name`` of task family ``family``; an unknown dimension or family raises naming the
    allowed ones."""
    if family not in FAMILIES:
        raise ValueError(f"task family {family!r} is unknown; allowed: {', '.join(FAMILIES)}")
    slots = SLOTS if family == "dsl" else LM_SLOTS
    if name not in slots:
        raise ValueError(f"dimension {name!r} is unknown; allowed: {', '.join(slots)}")
    return slots[name]


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """One agent of the pool: a role name, a solver kind ("enumerator" or "repairer") and its attribute values."""

    role: str
    kind: str
    params: tuple[tuple[str, object], ...]

    @property
    def p(self) -> dict:
        return dict(self.params)

    @property
    def specialty(self) -> str:
        """The family an enumerator weights most ("map", ...), a small-LM agent's model's data mix ("sums",
        "products", or "general"), or "repair" (the pre-selection reads it)."""
        if self.kind == "repairer":
            return "repair"
        if self.kind == "lm":
            return str(self.p["model"])
        w = [self.p[f"w_{f}"] for f in ("map", "filter", "order", "slice")]
        return ("map", "filter", "order", "slice")[int(np.argmax(w))] if max(w) > min(w) else "general"

    @property
    def budget(self) -> int:
        return int(self.p["fallback_budget"] if self.kind == "repairer" else self.p["budget"])


def _enum(role: str, **kw) -> AgentSpec:
    vals = {**_ENUM_DEFAULT, **kw}
    return AgentSpec(role, "enumerator", tuple(vals.items()))


def agent_from(slot_: Slot, config: Sequence[int], role: str) -> AgentSpec:
    """The agent a fun1/fun2 configuration describes."""
    v = slot_.values(config)
    lm = "model" in v
    kind = v.pop("kind", "lm" if lm else "enumerator")
    keys = {"enumerator": ENUM_ATTRS, "lm": LM_ATTRS}.get(kind, LM_REPAIR_ATTRS if lm else REPAIR_ATTRS)
    return AgentSpec(role, kind, tuple((k, v[k]) for k in keys))


@dataclasses.dataclass(frozen=True)
class Team:
    """A whole multi-agent system: the pool of agents and the three controllers' configurations (option
    indices into :data:`SLOTS`), the number of layers, and the optional new agent (fun2) and null config."""

    pool: tuple[AgentSpec, ...]
    str1: tuple[int, ...]
    str2: tuple[int, ...]
    str3: tuple[int, ...]
    n_layers: int = 3
    fallback_k: int = 2
    null: tuple[int, ...] = (0, 0, 0)
    family: str = "dsl"

    def __post_init__(self):
        if len(self.pool) == 0:
            raise ValueError("the agent pool is empty; give at least one agent")
        if self.n_layers < 1:
            raise ValueError(f"n_layers={self.n_layers!r} is not allowed; it must be >= 1")
        if self.family not in FAMILIES:
            raise ValueError(f"task family {self.family!r} is unknown; allowed: {', '.join(FAMILIES)}")

    def with_slot(self, name: str, config: Sequence[int]) -> "Team":
        """This team with dimension ``name`` set to ``config`` (fun1 replaces the Generalist, index 0 of the
        pool; fun2 appends a new agent, replacing an earlier constructed one)."""
        s = slot(name, self.family)
        config = tuple(int(c) for c in config)
        s.values(config)
        if name == "fun1":
            return dataclasses.replace(self, pool=(agent_from(s, config, self.pool[0].role),) + self.pool[1:])
        if name == "fun2":
            base = tuple(a for a in self.pool if a.role != "Constructed")
            return dataclasses.replace(self, pool=base + (agent_from(s, config, "Constructed"),))
        return dataclasses.replace(self, **{name: config})


def default_team(n_layers: int = 3) -> Team:
    """DyLAN's default analogue: five agents (a Generalist, which fun1 optimises, and four specialists, each
    weighting one family of primitives), the controllers at their default configurations."""
    pool = (_enum("Generalist"),
            _enum("Mapper", w_map=4.0, depth=3, budget=32),
            _enum("Filterer", w_filter=4.0, depth=3, budget=32),
            _enum("Orderer", w_order=4.0, depth=3, budget=32),
            AgentSpec("Repairer", "repairer", tuple(_REPAIR_DEFAULT.items())))
    return Team(pool, SLOTS["str1"].default, SLOTS["str2"].default, SLOTS["str3"].default, n_layers)


def _lm(role: str, **kw) -> AgentSpec:
    vals = {**_LM_DEFAULT, **kw}
    return AgentSpec(role, "lm", tuple(vals.items()))


def default_arith_team(n_layers: int = 3) -> Team:
    """The arithmetic family's default team: four small-LM agents (a Generalist on the general model, which fun1
    optimises; a Summer and a Multiplier on the specialist models; a Sampler drawing four samples at T = 1.5 and
    keeping one that passes the checks) and a Repairer, the controllers at their defaults."""
    pool = (_lm("Generalist"),
            _lm("Summer", model="sums", temperature=0.5, budget=2),
            _lm("Multiplier", model="products", temperature=0.5, budget=2),
            _lm("Sampler", temperature=1.5, budget=4, decode="check"),
            AgentSpec("Repairer", "repairer", tuple(_LM_REPAIR_DEFAULT.items())))
    return Team(pool, SLOTS["str1"].default, SLOTS["str2"].default, SLOTS["str3"].default, n_layers, family="arith")


def describe(name: str, config: Sequence[int], family: str = "dsl") -> str:
    """A short text of a configuration (for tables and the page)."""
    return ", ".join(f"{k}={v}" for k, v in slot(name, family).values(config).items())
