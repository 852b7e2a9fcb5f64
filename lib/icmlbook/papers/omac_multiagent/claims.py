r"""The claims of the OMAC chapter and the rules that decide them (``shared/design/CLAIMS.md``).

Paper: Shijun Li, Hilaf Hasson, Joydeep Ghosh, "OMAC: A Holistic Optimization Framework for LLM-Based Multi-Agent
Collaboration", ICML 2026, arXiv 2505.11765. We read the abstract and front matter; the method sections and the
result tables were not reached, so both algorithms are our reconstruction from the official code (MIT) and every
``paper=`` text is "not reached" unless it quotes the abstract. The paper's agents, controllers and optimiser
are GPT-3.5 calls; ours are programs (:mod:`.engine`), so every decided row is a claim about **the search
procedure** on program agents, and the LLM versions are declared not testable.

Every rule takes the replicates of :func:`.experiments.study` and the chapter's config (its thresholds are fixed
before the run; a config with other thresholds is refused). Replicates are independent (own validation and test
tasks, own optimiser seed). Comparisons are paired per replicate on the **held-out test split** (the optimiser
only ever sees validation), with a two-sided t-interval over replicates, decided by rule 9's three-way test
(:func:`icmlbook.runtime.stats.decide_interval`). On the list-function family nothing is trained (the agents are search programs), so
rule 10's convergence guard has nothing to guard there; the optimiser's budget is equal wherever two optimisers are
compared.

Rows L1-L7 decide the same seven rules again on the second task family, multi-step arithmetic whose agents are
**small language models trained from scratch** on CPU (:mod:`.arith`; never LLMs). Each rule is one decision
function parameterised by the family (:data:`FAMILIES`: the metric's name, the agents' words, whether a guard
runs), registered once per family. On the arithmetic family the agents are trained models, so each rule first
runs rule 10's guard: every one of the three small LMs must pass the declared plateau test on its held-out answer
loss (training 50 % longer moves it by less than a third of ``lm_loss_margin``), else the row is *inconclusive (not
converged)*. The three models get the same updates, batch and learning rate.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable, refuse_changed_thresholds
from ...runtime.stats import IntervalDecision, decide_interval, decide_within, mean_t_interval
from ...training import Convergence, convergence_guard
from .config import THRESHOLD_FIELDS, OmacConfig
from .experiments import ABLATION_DIMS, Replicate

__all__ = ["THRESHOLDS", "check_thresholds", "interval", "Family", "FAMILIES", "rows_of", "claim1_validation_gain",
           "claim2_test_transfer", "claim3_contrastive", "claim4_structure", "claim5_joint", "claim6_order",
           "claim7_new_agent", "claim_l1_lm_validation_gain", "claim_l2_lm_test_transfer", "claim_l3_lm_contrastive",
           "claim_l4_lm_structure", "claim_l5_lm_joint", "claim_l6_lm_order", "claim_l7_lm_new_agent"]

THRESHOLDS: dict[str, float] = {f: getattr(OmacConfig(), f) for f in THRESHOLD_FIELDS}
_T = THRESHOLDS
_PCT = f"{100 * _T['ci_level']:g}%"


def check_thresholds(cfg: OmacConfig) -> None:
    """Refuse a config whose decision thresholds differ from the declared ones."""
    refuse_changed_thresholds(cfg, _T)


def interval(values) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) of the two-sided t-interval at the declared level ((-inf, inf) below two values)."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size < 2 or not np.all(np.isfinite(v)):
        return (float(v.mean()) if v.size else float("nan")), float("-inf"), float("inf"), int(v.size)
    ci = mean_t_interval(v, _T["ci_level"])
    return ci.mean, ci.lo, ci.hi, ci.n


def _fmt(m, lo, hi, n, f="+.3f") -> str:
    return f"{m:{f}} [{lo:{f}}, {hi:{f}}] ({_PCT} t-interval over n = {n} replicates)"


def _from_decision(d: IntervalDecision, measured: str, values: dict) -> ClaimCheck:
    text = f"{measured}; {d.text}"
    if d.passed is None:
        return ClaimCheck.inconclusive_check(text, "interval spans both",
                                             f"the interval contains the minimum effect (n = {values.get('n')})", values)
    return ClaimCheck(text, d.passed, values)


def _diffs(reps: Sequence[Replicate], a: str, b: str, what: str = "test") -> np.ndarray:
    return np.array([getattr(r[a], what) - getattr(r[b], what) for r in reps], dtype=float)


# ----------------------------------------------------------------------------------------------- the families
@dataclasses.dataclass(frozen=True)
class Family:
    """A task family the rules are decided on: its row prefix, the metric's name, how the agents are named in
    the statements, the prefix of the measured texts, and whether the compared agents are trained models (then
    every rule first runs rule 10's convergence guard on them)."""

    key: str
    prefix: str
    metric: str
    agents: str
    label: str
    tasks: str
    guarded: bool


#: "dsl": list functions answered by program agents (rows C1-C7); "arith": multi-step arithmetic answered by small
#: language models trained from scratch (rows L1-L7, each behind the guard)
FAMILIES: dict[str, Family] = {
    "dsl": Family("dsl", "C", "pass@1", "", "", "test tasks", False),
    "arith": Family("arith", "L", "accuracy", "small language models trained from scratch (not LLMs)", "small-LM ",
                    "arithmetic queries", True),
}
_REGISTERED: dict[str, list[int]] = {k: [] for k in FAMILIES}


def rows_of(family: str) -> str:
    """The ledger rows decided on ``family`` ("C1–C7", "L1–L7"), read from the rules registered (so that a text
    naming them never goes stale when a family gains a row)."""
    p, ns = FAMILIES[family].prefix, sorted(_REGISTERED[family])
    if ns == list(range(ns[0], ns[-1] + 1)) and len(ns) > 2:
        return f"{p}{ns[0]}–{p}{ns[-1]}"
    return ", ".join(f"{p}{n}" for n in ns)


_GUARD = (f"decided only once each of the three small LMs has passed the plateau test (training 50 % longer moves "
          f"its held-out answer loss by less than a third of {_T['lm_loss_margin']:g} nats); otherwise inconclusive "
          "(not converged)")


def _guarded(check: ClaimCheck, convergence: Sequence[Convergence]) -> ClaimCheck:
    guard = convergence_guard(*convergence, measured=check.measured)
    return guard if guard is not None else check


def _register(n: int, family: str, name: str, decide, statement: str, rule: str, rejects: str):
    """Register claim ``n``'s rule on ``family`` as the public function ``name``. One decision (``decide(reps, F,
    **arms)``) serves both families; the texts are the templates filled with the family's words. On a guarded
    family the function takes the compared models' plateau reports (``convergence``) and returns *inconclusive
    (not converged)* unless every one passed."""
    F = FAMILIES[family]
    on = f" on {F.agents}" if F.agents else ""
    words = dict(metric=F.metric, on=on, on_c=f",{on}," if on else ",", tasks=F.tasks,
                 a_team=f"a team of {F.agents}" if F.agents else "a team", c3=f"{F.prefix}3")
    rule_text = rule.format(**words)
    if F.guarded:
        rule_text = f"C{n}'s rule on the arithmetic family: {rule_text}; {_GUARD}"
        rejects = f"{rejects}, or compares models still learning"

        def fn(reps: Sequence[Replicate], cfg: OmacConfig, convergence: Sequence[Convergence], **arms) -> ClaimCheck:
            check_thresholds(cfg)
            return _guarded(decide(reps, F, **arms), convergence)
    else:
        def fn(reps: Sequence[Replicate], cfg: OmacConfig, **arms) -> ClaimCheck:
            check_thresholds(cfg)
            return decide(reps, F, **arms)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Claim {F.prefix}{n} on the {family!r} family (:data:`FAMILIES`): {statement.format(**words)}"
                  + (" ``convergence``: the plateau reports of the compared small LMs (rule 10)." if F.guarded else "")
                  + " Keyword arguments name the compared arms (the tests put the trivial methods' arms there).")
    _REGISTERED[family].append(n)
    return claim_rule(f"{F.prefix}{n}", reconstruction=True, statement=statement.format(**words), rule=rule_text,
                      rejects=rejects)(fn)


def _both(n: int, names: tuple[str, str], decide, statement: str, rule: str, rejects: str):
    return tuple(_register(n, fam, name, decide, statement, rule, rejects) for fam, name in zip(FAMILIES, names))


# ----------------------------------------------------------------------------------------------- the decisions
def _gain(reps, a, b, what, threshold, label) -> ClaimCheck:
    d = _diffs(reps, a, b, what)
    m, lo, hi, n = interval(d)
    return _from_decision(decide_interval(lo, hi, threshold, side="lower"),
                          f"{label}: {_fmt(m, lo, hi, n)}", dict(diffs=d.tolist(), mean=m, lo=lo, hi=hi, n=n))


def _validation_gain(reps, F: Family, arm: str = "joint:fun1>str2") -> ClaimCheck:
    return _gain(reps, arm, "default", "val", _T["val_gain_min"], f"{F.label}validation gain of {arm}")


def _test_transfer(reps, F: Family, arm: str = "joint:fun1>str2") -> ClaimCheck:
    return _gain(reps, arm, "default", "test", _T["test_gain_min"], f"{F.label}test gain of {arm}")


def _contrastive(reps, F: Family, a: str = "fixed", b: str = "resample", scan=None) -> ClaimCheck:
    d = np.array([np.mean([r[f"{a}:{dim}"].val - r[f"{b}:{dim}"].val for dim in ABLATION_DIMS]) for r in reps])
    dt = np.array([np.mean([r[f"{a}:{dim}"].test - r[f"{b}:{dim}"].test for dim in ABLATION_DIMS]) for r in reps])
    m, lo, hi, n = interval(d)
    mt, lot, hit, _ = interval(dt)
    text = f"{F.label}best validation {F.metric}, {a} minus {b}: {_fmt(m, lo, hi, n)}; on test {_fmt(mt, lot, hit, n)}"
    vals = dict(diffs=d.tolist(), test_diffs=dt.tolist(), mean=m, lo=lo, hi=hi, n=n)
    dec = decide_interval(lo, hi, _T["compare_min"], side="lower")
    if dec.passed is False and scan:
        # a dimension whose default is already its best configuration (structure scan) gives both actors nothing
        # to find: they tie there by design, which pulls the average towards 0. Evidence against needs the
        # average over the dimensions with something to find below the threshold too (stricter only).
        flat = [dim for dim in ABLATION_DIMS if dim in scan and not scan[dim].room > _T["compare_min"] + _EPS]
        if flat:
            live = [dim for dim in ABLATION_DIMS if dim not in flat]
            note = (f"{', '.join(flat)}: the structure scan's best configuration, re-scored on a fresh split, is not "
                    f"above the default by more than {_T['compare_min']:.2f} ({_room(scan, flat)[1]}; both actors "
                    "tie there by design)")
            if not live:
                return ClaimCheck.inconclusive_check(f"{text}; {note}", "noise above effect",
                                                     "no compared dimension has anything to find", vals)
            dl = np.array([np.mean([r[f"{a}:{dim}"].val - r[f"{b}:{dim}"].val for dim in live]) for r in reps])
            ml, lol, hil, _ = interval(dl)
            text += f"; {note}; over {', '.join(live)} alone {_fmt(ml, lol, hil, n)}"
            vals.update(live_diffs=dl.tolist(), live_lo=lol, live_hi=hil)
            if not hil < _T["compare_min"]:
                return ClaimCheck.inconclusive_check(
                    text, "interval spans both", f"the average is below {_T['compare_min']:+.2f} only because "
                    f"{', '.join(flat)} gives both actors nothing to find; over {', '.join(live)} alone the interval "
                    "contains the minimum effect", vals)
    return _from_decision(dec, text, vals)


#: scores are shares of the split's tasks, so a gain of exactly the minimum effect (3 of 150) can come out of the
#: float subtraction a hair above it; "more than the minimum effect" means by more than this
_EPS = 1e-9


def _room(scan, dims) -> tuple[float, str]:
    """How far the best configuration of the dimensions ``dims`` lies above the default (:func:`.experiments.
    structure_scan`), read where the scan's selection cannot inflate it: the scan's best configuration re-scored
    with the default on a fresh split of as many tasks (:attr:`.experiments.StructureScan.room`, a paired difference;
    its paired interval beside it). The scan's own maximum over 48-60 configurations is biased upward and is only
    printed. The largest such room over ``dims``; NaN without a re-scored scan of every dimension."""
    dims = list(dict.fromkeys(dims))
    if not scan or any(d not in scan for d in dims):
        return float("nan"), f"no scan of the configurations of {', '.join(dims)}"
    texts = []
    for d in dims:
        sc, r = scan[d], scan[d].rescore
        fresh = ("not re-scored" if r is None else
                 f"re-scored on a fresh split of {r.n} tasks: {r.mean:+.3f} [{r.lo:+.3f}, {r.hi:+.3f}] "
                 f"(paired {100 * r.level:g}% t-interval)")
        texts.append(f"{d}: best {sc.best_gain:+.3f} over the default on a scan of {sc.describe()} (default's rank "
                     f"{sc.default_rank}), {fresh}")
    return max(scan[d].room for d in dims), "; ".join(texts)


def _needs_room(measured: str, finding: str, vals: dict, scan, dims, threshold: float) -> ClaimCheck:
    """Rule 9 for an optimisation of ``dims`` that found no effect (``finding``): evidence against the claim only
    where the scan's best configuration of the dimensions, re-scored on a fresh split (:func:`_room`), lies above
    the default by more than ``threshold``, so that there was something to find; otherwise *inconclusive*:
    Algorithm 1 keeps a seed nothing beats, so 'no effect' is what the defaults and the search space force, not
    evidence about the method (stricter only). The room is read on the fresh split because the scan's own best is
    a maximum over many configurations scored once: configurations no better than the default that flip 5 % of
    the task outcomes clear 0.02 there in every draw."""
    room, room_text = _room(scan, dims)
    vals["room"] = room
    if not room > threshold + _EPS:
        return ClaimCheck.inconclusive_check(
            f"{measured}; {finding}; {room_text}", "noise above effect",
            f"the best configuration of {', '.join(dict.fromkeys(dims))} on a scan of the dimension, re-scored on a "
            f"fresh split, is not above the default by more than {threshold:.2f}, so optimising it has nothing "
            "shown to find: 'no effect' is forced by the defaults, not evidence against the claim", vals)
    return ClaimCheck(f"{measured}; {finding} although {room_text}", False, vals)


def _structure(reps, F: Family, arms: tuple[str, str] = ("single:str2", "single:str3"), scan=None) -> ClaimCheck:
    parts, texts, vals = [], [], {}
    for arm in arms:
        for what, lim in (("test", _T["acc_change_min"]), ("calls", _T["calls_change_min"])):
            d = _diffs(reps, arm, "default", what)
            m, lo, hi, n = interval(d)
            w = decide_within(lo, hi, -lim, lim)
            parts.append(w.passed)
            texts.append(f"{F.label}{arm} {F.metric if what == 'test' else 'calls'}: {_fmt(m, lo, hi, n, '+.3f')}")
            vals[f"{arm}:{what}"] = dict(mean=m, lo=lo, hi=hi, n=n, diffs=d.tolist())
    measured = "; ".join(texts)
    if any(p is False for p in parts):
        return ClaimCheck(measured + "; an interval lies wholly outside its no-change window", True, vals)
    if all(p is True for p in parts):
        return _needs_room(measured, "every interval lies inside its no-change window", vals, scan,
                           [a.split(":", 1)[1] for a in arms], _T["acc_change_min"])
    return ClaimCheck.inconclusive_check(measured, "interval spans both",
                                         "an interval crosses the end of its no-change window", vals)


def _joint(reps, F: Family, joint: str = "joint:fun1>str2", singles: tuple[str, str] = ("single:fun1", "single:str2")
           ) -> ClaimCheck:
    d, g = [], []
    for r in reps:
        best = max(singles, key=lambda s: (r[s].val, -singles.index(s)))
        d.append(r[joint].test - r[best].test)
        g.append(r[best].test - r["default"].test)
    d, g = np.array(d), np.array(g)
    m, lo, hi, n = interval(d)
    mg, log_, hig, _ = interval(g)
    vals = dict(diffs=d.tolist(), mean=m, lo=lo, hi=hi, n=n, single_gains=g.tolist(), single_gain_lo=log_)
    text = (f"{F.label}test {F.metric}, {joint} minus the better single: {_fmt(m, lo, hi, n)}; the better single's "
            f"own gain over the default: {_fmt(mg, log_, hig, n)}")
    check = _from_decision(decide_interval(lo, hi, -_T["joint_margin"], side="lower"), text, vals)
    if check.passed and not log_ > _T["joint_margin"]:
        # non-inferiority within the margin says nothing when the singles themselves are not shown to beat the
        # default by more than the margin: the unoptimised default would pass too (found on the small-LM family)
        return ClaimCheck.inconclusive_check(
            text, "interval spans both", f"the better single's gain over the default is not shown to exceed the "
            f"non-inferiority margin {_T['joint_margin']:.2f} (lower end {log_:+.3f}), so the unoptimised default "
            "team would pass the non-inferiority test as well", vals)
    return check


def _order(reps, F: Family, a: str = "joint:fun1>str2", b: str = "joint:str2>fun1") -> ClaimCheck:
    d = _diffs(reps, a, b, "test")
    m, lo, hi, n = interval(d)
    w = decide_within(lo, hi, -_T["order_min"], _T["order_min"])
    vals = dict(diffs=d.tolist(), mean=m, lo=lo, hi=hi, n=n)
    text = f"{F.label}test {F.metric}, {a} minus {b}: {_fmt(m, lo, hi, n)}"
    if w.passed is False:
        return ClaimCheck(text + "; wholly outside the no-effect window", True, vals)
    if w.passed is True:
        return ClaimCheck(text + "; wholly inside the no-effect window", False, vals)
    return ClaimCheck.inconclusive_check(text, "interval spans both", "the interval crosses an end of the window", vals)


def _new_agent(reps, F: Family, arm: str = "single:fun2", scan=None) -> ClaimCheck:
    check = _gain(reps, arm, "default", "test", _T["new_agent_min"], f"{F.label}test gain of {arm}")
    if check.passed is False:
        # as claim 4's: 'no gain' is evidence against Fun-2 only where some new agent would have gained (found on
        # the small-LM family at default: 60 random Fun-2 configurations peaked +0.000 to +0.007 above the default
        # pool, while the program agents' scan finds +0.047)
        measured, _, finding = check.measured.partition("; ")
        return _needs_room(measured, finding, dict(check.values), scan, ("fun2",), _T["new_agent_min"])
    return check


# ----------------------------------------------------------------------------------------------- the rules
claim1_validation_gain, claim_l1_lm_validation_gain = _both(
    1, ("claim1_validation_gain", "claim_l1_lm_validation_gain"), _validation_gain,
    statement="Our reconstruction of OMAC's search (Algorithm 2, Fun-1 then Str-2) finds {a_team} that scores higher "
              f"than the default team on the validation split it optimises, by more than the declared minimum effect "
              f"({_T['val_gain_min']:+.2f} {{metric}}). The row credits search with selection on the validation "
              "split, not OMAC's actors in particular: resampling the Initializer at the same budget also scores "
              "its candidates, and claim {c3} decides whether the Contrastive Comparator adds to that.",
    rule=f"per replicate, validation {{metric}} of the optimised team minus the default's; the lower end of the "
         f"{_PCT} t-interval over replicates is above {_T['val_gain_min']:+.2f}; not reproduced when the whole "
         "interval lies below it",
    rejects="a search that finds nothing better than its seed (the default already optimal, or candidates no "
            "better than chance)")

claim2_test_transfer, claim_l2_lm_test_transfer = _both(
    2, ("claim2_test_transfer", "claim_l2_lm_test_transfer"), _test_transfer,
    statement="The gain of our reconstruction of OMAC's search{on} transfers to held-out {tasks} the optimiser never "
              f"saw, by more than the declared minimum effect ({_T['test_gain_min']:+.2f} {{metric}}).",
    rule=f"per replicate, test {{metric}} of the optimised team (Fun-1 then Str-2) minus the default's; the lower "
         f"end of the {_PCT} t-interval over replicates is above {_T['test_gain_min']:+.2f}; not reproduced "
         "when the whole interval lies below it",
    rejects="a validation gain that is selection noise (the winner's curse): no test gain")

claim3_contrastive, claim_l3_lm_contrastive = _both(
    3, ("claim3_contrastive", "claim_l3_lm_contrastive"), _contrastive,
    statement="In our reconstruction{on_c} the Contrastive Comparator finds better configurations than resampling the "
              "Initializer at the same number of evaluations, by more than the declared minimum effect "
              f"({_T['compare_min']:+.2f} {{metric}}).",
    rule=f"per replicate, the best validation {{metric}} of the comparator minus the resampler's (both from the "
         f"same initial population, N - 1 + {OmacConfig().ablation_iters} candidates, tolerance stop off), "
         "averaged over Fun-1 and Str-2; the "
         f"lower end of the {_PCT} t-interval is above {_T['compare_min']:+.2f}; the matching held-out test "
         "difference is reported beside it; not reproduced when the whole interval lies below, and also the "
         "interval averaged over only the dimensions where the structure scan's best configuration, re-scored with the "
         f"default on a fresh split of as many tasks, lies above the default by more than {_T['compare_min']:.2f} (a "
         "dimension with nothing to find makes both actors tie by design); otherwise inconclusive",
    rejects="contrastive refinement no better than asking the initializer for more candidates")

claim4_structure, claim_l4_lm_structure = _both(
    4, ("claim4_structure", "claim_l4_lm_structure"), _structure,
    statement="In our reconstruction{on_c} optimising a structural dimension alone (Str-2 ranking or Str-3 edges) "
              "changes held-out accuracy or the number of calls per query relative to the default team.",
    rule=f"per replicate, the change of test {{metric}} and of calls per test query for Str-2 and for Str-3 alone "
         f"({_PCT} t-intervals); reproduced when one interval lies wholly beyond ±{_T['acc_change_min']:.2f} "
         f"({{metric}}) or ±{_T['calls_change_min']:.1f} (calls); not reproduced when all four lie inside those "
         f"windows and a scan of every configuration of the dimension (one fresh validation split, the rest of the "
         f"team at its defaults) finds one that, re-scored with the default on a second fresh split of as many "
         f"tasks, lies above the default by more than {_T['acc_change_min']:.2f}, so that there was something to "
         "find; otherwise inconclusive",
    rejects="structural controllers whose optimisation changes nothing although better configurations exist, and "
            "a dimension the engine ignores (a null controller: nothing to find, so never 'not reproduced')")

claim5_joint, claim_l5_lm_joint = _both(
    5, ("claim5_joint", "claim_l5_lm_joint"), _joint,
    statement="In our reconstruction{on_c} optimising two dimensions jointly (Algorithm 2, Fun-1 then Str-2) is at "
              "least as good on held-out tasks as the better of the two optimised alone.",
    rule=f"per replicate, test {{metric}} of the joint sweep minus that of the single-dimension optimum with the "
         f"higher validation score (chosen without the test split); reproduced when the {_PCT} t-interval's "
         f"lower end is above -{_T['joint_margin']:.2f} (non-inferiority); not reproduced when the whole "
         "interval lies below it; inconclusive when the better single's own test gain over the default is not shown "
         f"(lower end of its interval) to exceed that margin, since the unoptimised default would then pass as well",
    rejects="a sequential sweep that loses what the single dimensions found (joint clearly worse), and the "
            "unoptimised default team")

claim6_order, claim_l6_lm_order = _both(
    6, ("claim6_order", "claim_l6_lm_order"), _order,
    statement="In our reconstruction{on_c} the order of a two-dimension sweep (Fun-1 then Str-2, or Str-2 then "
              "Fun-1) changes the held-out outcome.",
    rule=f"per replicate, test {{metric}} of one order minus the other; reproduced when the {_PCT} t-interval lies "
         f"wholly outside (-{_T['order_min']:.2f}, +{_T['order_min']:.2f}); not reproduced when it lies wholly "
         "inside; otherwise inconclusive",
    rejects="order-free optimisation (both orders reach the same teams up to noise)")

claim7_new_agent, claim_l7_lm_new_agent = _both(
    7, ("claim7_new_agent", "claim_l7_lm_new_agent"), _new_agent,
    statement="In our reconstruction{on_c} Fun-2 (constructing a new agent for the pool) adds a useful agent: the "
              "pool with the constructed agent scores higher on held-out tasks than without it, by more than the "
              f"declared minimum effect ({_T['new_agent_min']:+.2f} {{metric}}).",
    rule=f"per replicate, test {{metric}} with the constructed agent minus the default pool's; the lower end of "
         f"the {_PCT} t-interval is above {_T['new_agent_min']:+.2f}; not reproduced when the whole interval "
         "lies below and a scan of Fun-2 (randomly drawn new agents, each added to the default pool, on one fresh "
         f"validation split) finds one that, re-scored with the default pool on a second fresh split of as many "
         f"tasks, lies above it by more than {_T['new_agent_min']:.2f}, so that there was something to find; "
         "otherwise inconclusive",
    rejects="a constructed agent that adds nothing (a copy of an agent already in the pool) although a useful "
            "one exists; where no new agent would help (nothing to find), never 'not reproduced'")


# ----------------------------------------------------------------------------------------------- not testable
not_testable("A1", statement="OMAC, with GPT-3.5 agents, controllers and optimiser, outperforms state-of-the-art "
                             "approaches on code generation (HumanEval), arithmetic reasoning (MATH) and general "
                             "reasoning (MMLU).",
             paper="\"superior performance of OMAC on code generation, arithmetic reasoning, and general reasoning "
                   "tasks against state-of-the-art approaches\" (abstract); the numbers: not reached",
             reason="needs GPT-3.5 (an external LLM) for every agent, controller and optimiser call; our agents are "
                    f"search programs on our own list-function tasks (rows {rows_of('dsl')}) and small language models "
                    f"trained from scratch here on our own arithmetic queries (rows {rows_of('arith')}); no LLM runs "
                    "in this book")
not_testable("A2", statement="OMAC's Semantic Initializer and Contrastive Comparator, as LLM actors writing prompts, "
                             "improve the five dimensions of an LLM multi-agent system (the dossier's claims 1-7 for "
                             "LLM agents).",
             reason="the actors and agents are LLMs in the paper; here the actors are configuration-space operators "
                    f"and the agents are program agents (rows {rows_of('dsl')}) or small language models trained from "
                    f"scratch here, not LLMs (rows {rows_of('arith')}); those rows test the search procedure only")

abstract_sentence("Extensive experiments demonstrate the superior performance of OMAC on code generation, arithmetic "
                  "reasoning, and general reasoning tasks against state-of-the-art approaches.", "A1", "C2", "L2")
abstract_sentence("Building upon these dimensions, we first propose a general algorithm, utilizing two actors termed the "
                  "Semantic Initializer and the Contrastive Comparator, to optimize any single dimension.",
                  "A2", "C1", "C3", "C4", "C7", "L1", "L3", "L4", "L7")
abstract_sentence("Then, we present an algorithm for joint optimization across multiple dimensions.", "A2", "C5", "C6", "L5", "L6")
