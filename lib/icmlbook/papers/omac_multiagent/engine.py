"""The DyLAN-style collaboration engine that OMAC optimises, with program agents.

One query runs through ``T`` layers (DyLAN's time steps; OMAC's code, ``LLMLP``):

1. **Pre-selection** (Str-1, ``pre-rank``): a controller reads the query and answers an index list of the pool's
   agents that take part (``n`` agents).
2. **Layer t**: the selected agents answer one after another. Agents of layer ``t >= 2`` receive the answers the
   edge controller (Str-3, ``structure``) routes to them from the previous layer's kept answers.
3. **Consensus stop**: once at least ``floor(2n/3)`` agents of the layer have answered, the layer stops as soon
   as the most frequent answer (answers compared by behaviour, :class:`.dsl.TaskTable.sig`) has a count
   ``c > floor(2n/3)``; that answer is final and no further agent is called.
4. **Ranking** (Str-2, ``rank``): without consensus, a controller keeps the best ``k`` answers of the layer; the
   next layer receives only those. After the last layer it picks the final answer (its top-1).

Every controller answers with text, an index list such as ``"[1, 3]"`` (1-based, as the paper's prompts ask);
:func:`parse_index_list` turns it into indices and falls back to a random subset when it cannot (empty,
malformed or out of range), as the official code does; each fallback is counted (:class:`QueryTrace`).

Calls are counted as the paper counts LLM calls: one per agent answer, one per controller decision (pre-selection
once, ranking once per layer that did not stop, the edge controller once per receiving agent).

Agents (:func:`agent_answer`) are programs, never language models:
- an **enumerator** samples ``budget`` programs from its grammar prior (family weights, maximum depth) by inverse
  CDF on the query's common random numbers, and answers the first that passes the visible examples (else the one
  right on most); with peers' answers it ignores them, adopts a passing one when its own fails, or takes the
  majority among passing answers (its ``trust``);
- a **repairer** keeps a received answer that passes the visible examples, else searches the one-edit
  neighbourhood of the received answers (its ``edits``) for one that passes; receiving nothing, it samples
  ``fallback_budget`` programs from the uniform grammar.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

import numpy as np

from . import dsl
from .dimensions import EDGE_ATTRS, PRERANK_ATTRS, RANK_ATTRS, AgentSpec, Team

__all__ = ["parse_index_list", "consensus", "agent_answer", "prerank_text", "rank_text", "edge_text", "QueryTrace",
           "run_query", "query_uniforms", "prior_cdf", "MAX_BUDGET", "CONTROLLERS"]

MAX_BUDGET = 512
CONTROLLERS = ("str1", "str2", "str3")
_FEATURE_FAMILY = ("map", "filter", "order")   # which specialty each task feature favours (slice shares filter's)


# ----------------------------------------------------------------------------------------------- parsing, consensus
def parse_index_list(text: str, n: int, k_fallback: int, rng: np.random.Generator) -> tuple[list[int], bool]:
    """Parse a controller's 1-based index list (``"[2, 5]"``) over ``n`` items into 0-based indices.

    Accepted: one bracketed list of distinct integers in 1..n, at least one. Anything else (no list, an empty
    list, a repeated or out-of-range index, a non-integer) gives a random subset of ``min(k_fallback, n)`` items
    and ``fell_back=True``, the official code's behaviour."""
    if n < 1:
        raise ValueError(f"n={n!r}: nothing to choose from")
    key = (text, n)
    idx = _PARSED.get(key, _MISSING)
    if idx is _MISSING:
        idx = _parse(text, n)
        if len(_PARSED) < 200_000:
            _PARSED[key] = idx
    if idx is not None:
        return list(idx), False
    k = min(max(int(k_fallback), 1), n)
    return sorted(int(i) for i in rng.choice(n, size=k, replace=False)), True


_LIST = re.compile(r"\s*\[\s*([^\[\]]*)\]\s*")
_INT = re.compile(r"\d+")
_MISSING = object()
#: parses by (text, n): a pure function of both (the random fallback is drawn afresh each time)
_PARSED: dict = {}


def _parse(text: str, n: int) -> tuple[int, ...] | None:
    """The 0-based indices of a valid index list, else None."""
    m = _LIST.fullmatch(text or "")
    if m is None:
        return None
    parts = [p.strip() for p in m.group(1).split(",")] if m.group(1).strip() else []
    if not parts or not all(_INT.fullmatch(p) for p in parts):
        return None
    idx = tuple(int(p) - 1 for p in parts)
    if len(set(idx)) != len(idx) or not all(0 <= i < n for i in idx):
        return None
    return idx


def _fmt(idx: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(i) + 1) for i in idx) + "]"


def consensus(sigs: Sequence[int], n: int) -> int | None:
    """DyLAN's two-thirds stop on the answers given so far (their signatures, in answer order) in a layer of
    ``n`` agents: checked once at least ``floor(2n/3)`` have answered; returns the position of the first answer
    of the most frequent signature when its count exceeds ``floor(2n/3)``, else None."""
    need = (2 * n) // 3
    if len(sigs) < need or not sigs:
        return None
    counts: dict = {}
    for s in sigs:
        counts[s] = counts.get(s, 0) + 1
    top, c = max(counts.items(), key=lambda kv: kv[1])     # at most one signature can exceed 2n/3 of n answers
    if c > need:
        return int(list(sigs).index(top))
    return None


# ----------------------------------------------------------------------------------------------- agents
_CDF: dict = {}


def prior_cdf(agent: AgentSpec) -> np.ndarray:
    """Cumulative grammar prior of an agent over :data:`.dsl.PROGRAMS`: lengths 1..depth equally likely, and
    within a length the product of the primitives' family weights (normalised)."""
    p = agent.p
    if agent.kind == "repairer":
        w, depth = np.ones(4), 3
    else:
        w, depth = np.array([p["w_map"], p["w_filter"], p["w_order"], p["w_slice"]], float), int(p["depth"])
    key = (tuple(w), depth)
    if key not in _CDF:
        logw = dsl.FAMILY_COUNTS @ np.log(w)
        z1 = float(np.sum(w[dsl.FAMILY_OF]))          # sum over primitives of their family weight
        prob = np.exp(logw - dsl.LENGTHS * np.log(z1)) / depth
        prob[dsl.LENGTHS > depth] = 0.0
        cdf = np.cumsum(prob)
        _CDF[key] = cdf / cdf[-1]
    return _CDF[key]


def _arith(tab) -> bool:
    return getattr(tab, "family", "dsl") == "arith"


def _sample_answer(agent: AgentSpec, budget: int, tab: dsl.TaskTable, u: np.ndarray) -> int:
    if agent.kind == "lm":
        cdf = tab.cdf(agent.p)
    elif _arith(tab):
        cdf = tab.prior_cdf()
    else:
        cdf = prior_cdf(agent)
    idx = np.minimum(np.searchsorted(cdf, u[:budget], side="right"), len(cdf) - 1)
    if agent.kind == "lm" and agent.p["decode"] == "vote":
        counts: dict = {}
        for i in idx.tolist():
            counts[i] = counts.get(i, 0) + 1
        best = max(counts.values())
        return int(next(i for i in idx.tolist() if counts[i] == best))   # most frequent sample (ties: earliest drawn)
    ok = tab.vis_pass[idx]
    if ok.any():
        return int(idx[int(np.argmax(ok))])
    return int(idx[int(np.argmax(tab.vis_hits[idx]))])


def _majority(cands: Sequence[int], tab: dsl.TaskTable) -> int:
    sigs = [int(tab.sig[c]) for c in cands]
    counts = {s: sigs.count(s) for s in sigs}
    best = max(counts.values())
    return int(next(c for c, s in zip(cands, sigs) if counts[s] == best))


def agent_answer(agent: AgentSpec, tab: dsl.TaskTable, u: np.ndarray, received: Sequence[int] = (),
                 previous: int | None = None) -> int:
    """The program (index) ``agent`` answers on a task with table ``tab``, common random numbers ``u``
    (``MAX_BUDGET`` uniforms of this query, agent and layer), the peers' answers ``received`` and its own answer
    of the previous layer ``previous`` (an enumerator keeps it when it passes the visible examples, and samples
    afresh otherwise)."""
    p = agent.p
    received = [int(r) for r in received]
    passing = [r for r in received if tab.vis_pass[r]]
    if agent.kind == "lm" and not _arith(tab):
        raise ValueError("a small-LM agent answers arithmetic queries only (task family 'arith')")
    if agent.kind in ("enumerator", "lm"):
        if previous is not None and tab.vis_pass[previous]:
            own = int(previous)
        else:
            own = _sample_answer(agent, int(p["budget"]), tab, u)
        trust = p["trust"]
        if trust == "ignore" or not received:
            return own
        if trust == "adopt-if-failing":
            return own if tab.vis_pass[own] or not passing else passing[0]
        pool = ([own] if tab.vis_pass[own] else []) + passing
        return _majority(pool, tab) if pool else own
    if agent.kind != "repairer":
        raise ValueError(f"agent kind {agent.kind!r} is unknown; allowed: enumerator, lm, repairer")
    if not received:
        if previous is not None and tab.vis_pass[previous]:
            return int(previous)
        return _sample_answer(agent, int(p["fallback_budget"]), tab, u)
    if passing:
        return passing[0]
    for r in sorted(received, key=lambda r: -int(tab.vis_hits[r])):
        nb = tab.neighbours(r, p["edits"]) if _arith(tab) else dsl.neighbours(r, p["edits"])
        good = nb[tab.vis_pass[nb]]
        if good.size:
            if p["prefer"] == "shortest":
                return int(good[0])
            return int(good[min(int(u[0] * good.size), good.size - 1)])
    return max(received, key=lambda r: int(tab.vis_hits[r]))


# ----------------------------------------------------------------------------------------------- controllers
def prerank_text(cfg: Sequence[int], pool: Sequence[AgentSpec], tab: dsl.TaskTable) -> str:
    """The pre-selection controller's answer: an index list of the agents that join this query."""
    score, k, min_score = (PRERANK_ATTRS[a][c] for a, c in zip(PRERANK_ATTRS, cfg))
    if score == "features":
        if _arith(tab):
            fams = tab.favoured
        else:
            feats = tab.features
            fams = {_FEATURE_FAMILY[i] for i, f in enumerate(feats) if f} | ({"slice"} if feats[1] else set())
        s = [2 if a.specialty in fams else (1 if a.specialty in ("general", "repair") else 0) for a in pool]
    elif score == "pool-order":
        s = [len(pool) - i for i in range(len(pool))]
    else:
        s = [a.budget for a in pool]
    order = sorted(range(len(pool)), key=lambda i: (-s[i], i))
    return _fmt([i for i in order if s[i] >= min_score][:k])


def _answer_scores(score: str, answers: Sequence[int], tab: dsl.TaskTable) -> list[float]:
    sigs = [int(tab.sig[a]) for a in answers]
    agree = [sigs.count(s) for s in sigs]
    vis = [int(tab.vis_hits[a]) for a in answers]
    if score == "visible":
        return [float(v) for v in vis]
    if score == "agreement":
        return [float(g) for g in agree]
    if score == "visible+agreement":
        return [10.0 * v + g for v, g in zip(vis, agree)]
    if score == "logprob":
        return [float(tab.rank_score[a]) for a in answers]
    return [-float(dsl.LENGTHS[a]) for a in answers]


def rank_text(cfg: Sequence[int], answers: Sequence[int], tab: dsl.TaskTable, k_override: int | None = None) -> str:
    """The ranking controller's answer: an index list of the answers it keeps (``k_override=1``: the final)."""
    score, k, thr = (RANK_ATTRS[a][c] for a, c in zip(RANK_ATTRS, cfg))
    k = k_override or k
    s = _answer_scores(score, answers, tab)
    order = sorted(range(len(answers)), key=lambda i: (-s[i], i))
    keep = [i for i in order if tab.vis_hits[answers[i]] >= thr * tab.n_visible]
    return _fmt(keep[:k])


def edge_text(cfg: Sequence[int], kept: Sequence[int], tab: dsl.TaskTable, u: float) -> str:
    """The edge controller's answer for one receiving agent: an index list over the kept answers (rank order)."""
    rule, max_in, thr = (EDGE_ATTRS[a][c] for a, c in zip(EDGE_ATTRS, cfg))
    ok = [i for i, a in enumerate(kept) if tab.vis_hits[a] >= thr * tab.n_visible]
    if rule == "best-visible":
        ok = sorted(ok, key=lambda i: (-int(tab.vis_hits[kept[i]]), i))
    elif rule == "agreeing" and ok:
        sigs = [int(tab.sig[kept[i]]) for i in ok]
        top = max(set(sigs), key=lambda s: (sigs.count(s), -sigs.index(s)))
        ok = [i for i, s in zip(ok, sigs) if s == top]
    elif rule == "seeded-random" and ok:
        shift = int(u * len(ok))
        ok = ok[shift:] + ok[:shift]
    return _fmt(ok[:max_in])


# ----------------------------------------------------------------------------------------------- one query
@dataclasses.dataclass
class QueryTrace:
    """What happened on one query: the final ``answer`` (program index) and whether it passes the hidden tests,
    the agents selected, per layer the (agent, answer) pairs, the kept answers and the edges, the layer that
    reached consensus (or None), the calls made (agents, controllers) and the controllers' fallbacks
    (``fallbacks[name]`` counts, ``decisions[name]`` counts every decision)."""

    answer: int
    correct: bool
    selected: list[int]
    layers: list[list[tuple[int, int]]]
    kept: list[list[int]]
    edges: list[dict[int, list[int]]]
    consensus_layer: int | None
    agent_calls: int
    controller_calls: int
    fallbacks: dict[str, int]
    decisions: dict[str, int]

    @property
    def calls(self) -> int:
        return self.agent_calls + self.controller_calls


def query_uniforms(seed: int, query: int, n_layers: int, n_agents: int) -> np.ndarray:
    """(n_layers, n_agents, MAX_BUDGET + 1) common random numbers of one query (the last column drives the
    controllers' seeded choices); the same for every team, so that configurations are compared on equal luck."""
    return np.random.default_rng([int(seed), int(query), 7]).random((n_layers, n_agents, MAX_BUDGET + 1))


def run_query(team: Team, tab: dsl.TaskTable, u: np.ndarray, rng: np.random.Generator, memo: dict | None = None,
              qid: int = 0) -> QueryTrace:
    """Run ``team`` on one query (table ``tab``); ``u`` from :func:`query_uniforms` (at least as many agents as
    the pool), ``rng`` for the controllers' random fallbacks, ``memo`` caching agent answers by (agent, layer,
    received, previous answer, query ``qid``) across teams."""
    pool = team.pool
    fb = dict.fromkeys(CONTROLLERS, 0)
    dec = dict.fromkeys(CONTROLLERS, 0)
    ctrl = 1
    sel, f = parse_index_list(prerank_text(team.str1, pool, tab), len(pool), team.fallback_k + 2, rng)
    fb["str1"] += f
    dec["str1"] += 1
    n = len(sel)
    layers, kept_all, edges_all = [], [], []
    kept_answers: list[int] = []
    prev: dict[int, int] = {}
    calls = 0
    cons_layer = None
    final = None
    for t in range(team.n_layers):
        layer: list[tuple[int, int]] = []
        edges: dict[int, list[int]] = {}
        for j, ai in enumerate(sel):
            received: list[int] = []
            if t > 0 and kept_answers:
                ix, f = parse_index_list(edge_text(team.str3, kept_answers, tab, float(u[t, ai, -1])),
                                         len(kept_answers), team.fallback_k, rng)
                fb["str3"] += f
                dec["str3"] += 1
                ctrl += 1
                received = [kept_answers[i] for i in ix]
                edges[ai] = ix
            key = None if memo is None else (qid, pool[ai], t, ai, tuple(received), prev.get(ai))
            if memo is not None and key in memo:
                ans = memo[key]
            else:
                ans = agent_answer(pool[ai], tab, u[t, ai, :-1], received, prev.get(ai))
                if memo is not None:
                    memo[key] = ans
            prev[ai] = ans
            calls += 1
            layer.append((ai, ans))
            pos = consensus([int(tab.sig[a]) for _, a in layer], n)
            if pos is not None:
                final, cons_layer = layer[pos][1], t
                break
        layers.append(layer)
        edges_all.append(edges)
        if final is not None:
            break
        answers = [a for _, a in layer]
        last = t == team.n_layers - 1
        ix, f = parse_index_list(rank_text(team.str2, answers, tab, 1 if last else None), len(answers),
                                 1 if last else team.fallback_k, rng)
        fb["str2"] += f
        dec["str2"] += 1
        ctrl += 1
        kept_answers = [answers[i] for i in ix]
        kept_all.append(ix)
        if last:
            final = kept_answers[0]
    return QueryTrace(int(final), bool(tab.hidden_pass[final]), sel, layers, kept_all, edges_all, cons_layer, calls,
                      ctrl, fb, dec)
