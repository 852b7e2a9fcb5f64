"""Tests of the OMAC chapter's library: the DSL against Python reference functions and an independent edit
distance, the controllers' index-list parser and its logged fallback, the two-thirds consensus on hand votes, call
counts by closed form, Algorithm 1's parent threshold and tolerance stop on hand traces, regret against exhaustive
search on an objective with a known optimum, determinism, bad inputs; then every claim rule on a world where it
passes (with the spread the run has), a plausible alternative where it fails, and the real output of the nearest
trivial method at smoke size (CLAIMS.md rules 2, 11, 12)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from icmlbook.papers import omac_multiagent as om
from icmlbook.papers.omac_multiagent import claims as C
from icmlbook.papers.omac_multiagent import dsl
from icmlbook.papers.omac_multiagent.engine import query_uniforms
from icmlbook.papers.omac_multiagent.experiments import Arm, Replicate
from icmlbook.runtime.claims import claim_case

CH = "omac_multiagent"
CFG = om.config_for("default")


# ----------------------------------------------------------------------------------------------- DSL
REFERENCE = {
    "add1 | sort": lambda x: sorted(v + 1 for v in x),
    "even | dbl | rev": lambda x: [2 * v for v in x if v % 2 == 0][::-1],
    "dedup | take3": lambda x: list(dict.fromkeys(x))[:3],
    "gt4 | half | drop1": lambda x: [v // 2 for v in x if v > 4][1:],
    "odd | add2": lambda x: [v + 2 for v in x if v % 2 == 1],
}


def test_interpreter_matches_python_reference_functions():
    rng = np.random.default_rng(0)
    for text, ref in REFERENCE.items():
        i = dsl.parse_program(text)
        assert dsl.program_text(i) == text
        for _ in range(20):
            x = [int(v) for v in rng.integers(0, 10, size=rng.integers(0, 9))]
            assert list(dsl.run_program(i, x)) == ref(x)


def test_task_table_matches_direct_interpretation():
    task = dsl.make_tasks(3, seed=4)[2]
    tab = dsl.task_table(task)
    rng = np.random.default_rng(1)
    for i in rng.choice(dsl.N_PROGRAMS, 60, replace=False):
        hits = sum(dsl.run_program(i, x) == y for x, y in task.visible)
        assert tab.vis_hits[i] == hits
        assert tab.hidden_pass[i] == all(dsl.run_program(i, x) == y for x, y in task.hidden)
    assert tab.vis_pass[task.target] and tab.hidden_pass[task.target]
    # equal signatures <=> equal outputs on the visible and probe inputs
    a, b = rng.choice(dsl.N_PROGRAMS, (2, 200))
    inputs = [x for x, _ in task.visible] + list(task.probes)
    for i, j in zip(a, b):
        same = all(dsl.run_program(i, x) == dsl.run_program(j, x) for x in inputs)
        assert (tab.sig[i] == tab.sig[j]) == same


def _edit_distance(a, b):
    d = np.arange(len(b) + 1)
    for i, x in enumerate(a, 1):
        prev, d[0] = d.copy(), i
        for j, y in enumerate(b, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (x != y))
    return int(d[-1])


def test_neighbours_are_exactly_the_programs_one_edit_away():
    for i in (0, 5, 200, 1500):
        nb = set(dsl.neighbours(i, "all").tolist())
        want = {j for j in range(dsl.N_PROGRAMS) if _edit_distance(dsl.PROGRAMS[i], dsl.PROGRAMS[j]) == 1}
        assert nb == want
        sub = set(dsl.neighbours(i, "substitute").tolist())
        assert sub == {j for j in want if len(dsl.PROGRAMS[j]) == len(dsl.PROGRAMS[i])}


# ----------------------------------------------------------------------------------------------- engine
def test_parse_index_list_and_its_logged_fallback():
    rng = np.random.default_rng(0)
    assert om.parse_index_list("[1, 3]", 4, 2, rng) == ([0, 2], False)
    assert om.parse_index_list(" [2] ", 2, 2, rng) == ([1], False)
    bad = ["[]", "1, 3", "[0, 2]", "[5]", "[1, 1]", "[a, 2]", "", "[[1]]", "[1.5]", "choose 1 and 3"]
    out = [om.parse_index_list(t, 4, 2, rng) for t in bad]
    assert all(f for _, f in out)
    assert all(len(ix) == 2 and len(set(ix)) == 2 and all(0 <= i < 4 for i in ix) for ix, _ in out)
    assert om.parse_index_list("[9]", 1, 3, rng) == ([0], True)


def test_fallback_rate_is_logged_per_controller():
    split = dsl.make_split(12, 5, seed=3)
    ev = om.Evaluator(split)
    team = om.default_team()
    # the ranking controller with a visible-pass threshold of 1 answers "[]" whenever no answer passes
    strict = team.with_slot("str2", (0, 1, 2))
    r = ev.evaluate(strict)
    traces = ev.traces(strict)
    empty = 0
    for q, t in enumerate(traces):
        tab = split.val[q]
        for layer in t.layers[: len(t.kept)]:
            empty += not any(tab.vis_pass[a] for _, a in layer)
    assert r.fallbacks["str2"] == empty > 0
    assert r.fallback_rate["str2"] == pytest.approx(empty / r.decisions["str2"])
    assert ev.evaluate(team).fallbacks["str2"] == 0


@pytest.mark.parametrize("sigs,n,want", [
    ([1, 1], 3, None),            # floor(2*3/3) = 2 answered, count 2 is not > 2
    ([1, 1, 1], 3, 0),
    ([2, 1, 1, 1], 4, 1),         # need count > 2
    ([1, 2, 1], 4, None),
    ([1], 2, None), ([1, 1], 2, 0), ([3], 1, 0),
    ([1, 2, 3, 2, 2], 5, None),   # floor(10/3) = 3: count 3 is not > 3
    ([1, 2, 2, 2, 2], 5, 1),
])
def test_two_thirds_consensus_on_hand_votes(sigs, n, want):
    assert om.consensus(sigs, n) == want


def _synthetic_table(same_signature: bool) -> dsl.TaskTable:
    z = np.zeros(dsl.N_PROGRAMS, dtype=np.int64)
    sig = z if same_signature else np.arange(dsl.N_PROGRAMS)
    return dsl.TaskTable(z, z.astype(bool), z.astype(bool), sig, 2, (1, 1, 1))


def _enum_team(n_agents: int, k: int, n_layers: int = 3) -> om.Team:
    pool = tuple(om.AgentSpec(f"E{i}", "enumerator", tuple(dict(w_map=1.0, w_filter=1.0, w_order=1.0, w_slice=1.0,
                                                                  depth=3, budget=16, trust="ignore").items()))
                 for i in range(n_agents))
    s1 = om.slot("str1")
    return om.Team(pool, (s1.attrs[0][1].index("pool-order"), s1.attrs[1][1].index(k), 0), om.slot("str2").default,
                   om.slot("str3").default, n_layers)


@pytest.mark.parametrize("n,layers", [(2, 3), (3, 3), (4, 2), (5, 4)])
def test_call_counts_by_closed_form(n, layers):
    team = _enum_team(6, n, layers)
    u = query_uniforms(0, 0, layers, 8)
    # every answer distinct: no consensus, n agents per layer, pre-selection + a ranking per layer + n edges per
    # later layer
    t = om.run_query(team, _synthetic_table(False), u, np.random.default_rng(0))
    if t.consensus_layer is None:
        assert t.agent_calls == n * layers
        assert t.controller_calls == 1 + layers + n * (layers - 1)
    # every answer equal: consensus in the first layer after floor(2n/3) + 1 answers, one controller call
    t = om.run_query(team, _synthetic_table(True), u, np.random.default_rng(0))
    assert t.consensus_layer == 0
    assert t.agent_calls == (2 * n) // 3 + 1 and t.controller_calls == 1
    assert len(t.selected) == n


def test_engine_call_log_matches_its_counts():
    split = dsl.make_split(15, 5, seed=9)
    ev = om.Evaluator(split)
    team = om.default_team()
    for t in ev.traces(team):
        assert t.agent_calls == sum(len(layer) for layer in t.layers)
        assert t.controller_calls == 1 + len(t.kept) + sum(len(e) for e in t.edges)
        assert t.correct == bool(split.val[ev.traces(team).index(t)].hidden_pass[t.answer])


# ----------------------------------------------------------------------------------------------- optimiser
@pytest.mark.parametrize("h0,t,size,want", [(1, 0, 3, 1), (1, 1, 4, 2), (1, 2, 5, 2), (1, 2, 6, 3), (2, 3, 9, 4),
                                            (1, 0, 1, 0)])
def test_parent_threshold_by_hand(h0, t, size, want):
    assert om.parent_threshold(h0, t, size) == want


class KnownObjective:
    """A synthetic objective with a known optimum (a test fixture, not an agent): minus the option distance of
    str2's configuration to a target, scaled to [0, 1]."""

    def __init__(self, target, flat=False):
        self.target, self.flat, self.calls = tuple(target), flat, []

    def evaluate(self, team, part="val"):
        self.calls.append(team.str2)
        d = 0.0 if self.flat else sum(abs(a - b) for a, b in zip(team.str2, self.target)) / 7.0
        return dataclasses.make_dataclass("R", [("score", float)])(1.0 - d)


def test_tolerance_stop_on_a_flat_objective():
    obj = KnownObjective((0, 0, 0), flat=True)
    tr = om.algorithm1(obj, om.default_team(), "str2", n=3, t_max=5, delta=0.01, kappa=2, seed=1)
    assert tr.stop == "tolerance" and tr.iterations == 2 and tr.n_evals == 3 + 2
    tr = om.algorithm1(obj, om.default_team(), "str2", n=4, t_max=5, delta=0.0, kappa=9, seed=1)
    assert tr.stop == "T_max reached" and tr.n_evals == 4 + 5


def test_best_so_far_monotone_and_regret_equals_gap_to_exhaustive_search():
    target = (3, 0, 2)
    s = om.slot("str2")
    exhaustive = max(1.0 - sum(abs(a - b) for a, b in zip(c, target)) / 7.0 for c in s.all_configs())
    for seed in range(5):
        obj = KnownObjective(target)
        tr = om.algorithm1(obj, om.default_team(), "str2", n=3, t_max=6, delta=0.0, kappa=99, seed=seed)
        bsf = tr.best_so_far
        assert np.all(np.diff(bsf) >= 0) and bsf[0] == tr.scores[0] and bsf[-1] == tr.best_score
        assert len(set(tr.configs)) == len(tr.configs)          # never re-evaluates a candidate
        regret = exhaustive - tr.best_score
        assert regret == pytest.approx(sum(abs(a - b) for a, b in zip(tr.best, target)) / 7.0)


def test_contrastive_child_copies_the_better_parent_where_parents_agree():
    s = om.slot("fun1")
    rng = np.random.default_rng(0)
    plus, minus = (3, 3, 0, 0, 2, 4, 1), (0, 3, 0, 1, 2, 1, 1)
    for _ in range(50):
        c = om.ContrastiveComparator().child(s, plus, minus, [plus, minus], rng)
        assert c not in (plus, minus)
        moved = [i for i in range(7) if c[i] != plus[i]]
        agree = [i for i in range(7) if plus[i] == minus[i]]
        # at most one mutation among the agreeing attributes; differing ones stay or step away from minus
        assert sum(i in agree for i in moved) <= 1
        for i in moved:
            if i not in agree:
                assert np.sign(c[i] - plus[i]) == np.sign(plus[i] - minus[i])


def test_algorithm2_conditions_each_dimension_on_the_previous_optimum():
    split = dsl.make_split(20, 5, seed=2)
    ev = om.Evaluator(split)
    sw = om.algorithm2(ev, om.default_team(), ("str2", "str3"), seed=0)
    assert [t.dim for t in sw.traces] == ["str2", "str3"]
    assert sw.team.str2 == sw.traces[0].best and sw.team.str3 == sw.traces[1].best
    assert sw.traces[1].scores[0] == pytest.approx(ev.evaluate(om.default_team().with_slot("str2", sw.traces[0].best)).score)


def test_same_seed_same_replicate():
    cfg = om.config_for("smoke", n_val=10, n_test=10, trivial_arms=False)
    a, b = om.replicate(cfg, 3, 0), om.replicate(cfg, 3, 0)
    for k in a.arms:
        assert a[k].val == b[k].val and np.array_equal(a[k].test_correct, b[k].test_correct)
        assert a[k].described == b[k].described


def test_bad_inputs_name_the_problem():
    team = om.default_team()
    ev = om.Evaluator(dsl.make_split(5, 5, seed=0))
    with pytest.raises(ValueError, match="dimension 'fun9' is unknown"):
        om.algorithm1(ev, team, "fun9")
    with pytest.raises(ValueError, match="pool is empty"):
        om.Team((), team.str1, team.str2, team.str3)
    with pytest.raises(ValueError, match="N=1"):
        om.algorithm1(ev, team, "str2", n=1)
    with pytest.raises(ValueError, match="T_max=-1"):
        om.algorithm1(ev, team, "str2", t_max=-1)
    with pytest.raises(ValueError, match="delta=-0.1"):
        om.algorithm1(ev, team, "str2", delta=-0.1)
    with pytest.raises(ValueError, match="unknown primitive"):
        dsl.parse_program("sort | reverse")
    with pytest.raises(ValueError, match="4 primitives"):
        dsl.parse_program("sort | rev | sort | rev")
    with pytest.raises(ValueError, match="not valid for slot 'str2'"):
        team.with_slot("str2", (9, 0, 0))
    with pytest.raises(ValueError, match="n_seeds"):
        om.config_for("smoke", n_seeds=1)
    with pytest.raises(ValueError, match="val_gain_min"):
        C.claim1_validation_gain([], om.config_for("smoke", val_gain_min=0.5))


# ----------------------------------------------------------------------------------------------- claim worlds
def _arm(val, test, calls=15.0):
    return Arm(float(val), np.array([float(test)]), np.array([float(calls)]), {}, 5, (), "")


def _reps(arms: dict, n=12, seed=0, sd=0.0):
    """n replicates; arms maps name -> (val, test[, calls]) means; sd: per-replicate noise on every arm."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a = {k: _arm(*(np.asarray(v, float) + rng.normal(0, sd, len(v)) * (np.arange(len(v)) < 2)))
             for k, v in arms.items()}
        out.append(Replicate(i, a))
    return out


# measured at default (12 replicates, development run): sd over replicates of the joint sweep's test gain 0.099 and
# of its validation gain about 0.07; of the comparator-minus-resampler difference on Fun-1 about 0.08 (about 0.04
# averaged with Str-2). The worlds put independent noise of sd SD / sqrt(2) on each arm (differences of sd SD).
SD = 0.10
ARM_SD = SD / np.sqrt(2)


@claim_case(CH, "C1", "reproduced")
def _c1_gain():
    return C.claim1_validation_gain(_reps({"default": (0.52, 0.54), "joint:fun1>str2": (0.63, 0.64)}, sd=0.07 / np.sqrt(2)),
                                    CFG)


@claim_case(CH, "C1", "not reproduced", alternative="the search finds nothing better than its seed")
def _c1_nothing():
    return C.claim1_validation_gain(_reps({"default": (0.55, 0.55), "joint:fun1>str2": (0.552, 0.55)}, sd=0.003), CFG)


@claim_case(CH, "C2", "reproduced")
def _c2_transfer():
    return C.claim2_test_transfer(_reps({"default": (0.52, 0.54), "joint:fun1>str2": (0.63, 0.64)}, sd=ARM_SD), CFG)


@claim_case(CH, "C2", "not reproduced", alternative="winner's curse: the validation gain does not reach test")
def _c2_curse():
    return C.claim2_test_transfer(_reps({"default": (0.52, 0.54), "joint:fun1>str2": (0.63, 0.44)}, sd=ARM_SD), CFG)


def _abl(fix, res, sd=0.0):
    return _reps({f"{a}:{d}": (v, v) for a, v in (("fixed", fix), ("resample", res)) for d in om.ABLATION_DIMS}, sd=sd)


@claim_case(CH, "C3", "reproduced")
def _c3_better():
    return C.claim3_contrastive(_abl(0.70, 0.62, sd=SD / 3), CFG)


@claim_case(CH, "C3", "not reproduced", alternative="resampling finds better configurations than the comparator")
def _c3_worse():
    return C.claim3_contrastive(_abl(0.60, 0.68, sd=SD / 3), CFG)


def _struct(acc2, calls2, acc3, calls3, sd=0.0):
    return _reps({"default": (0.5, 0.5, 15.0), "single:str2": (0.5, 0.5 + acc2, 15.0 + calls2),
                  "single:str3": (0.5, 0.5 + acc3, 15.0 + calls3)}, sd=sd)


def _abl_flat_str2(fun1_gain: float, sd: float, n: int = 12, seed: int = 3) -> list[Replicate]:
    """The actor ablation where Str-2 has nothing to find (both actors keep the default: exactly 0 there, as on
    both families' real default runs) and the comparator beats resampling on Fun-1 by ``fun1_gain``."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        g = fun1_gain + rng.normal(0, sd)
        out.append(Replicate(i, {"fixed:fun1": _arm(0.70 + g, 0.70 + g), "resample:fun1": _arm(0.70, 0.70),
                                 "fixed:str2": _arm(0.60, 0.60), "resample:str2": _arm(0.60, 0.60)}))
    return out


@claim_case(CH, "C3", "inconclusive at this scale", alternative="a comparator +0.024 better on Fun-1 where Str-2 gives "
            "both actors nothing to find (the scan's default is first): the average over both, +0.012, lay wholly "
            "below +0.02 ('not reproduced' before the fix); over Fun-1 alone the interval contains it")
def _c3_diluted():
    return C.claim3_contrastive(_abl_flat_str2(0.024, 0.016), CFG, scan=_room_scan(0.0))


def test_c3_against_still_decided_where_the_live_dimension_is_below_too():
    reps = _abl_flat_str2(0.004, 0.016)
    assert C.claim3_contrastive(reps, CFG, scan=_room_scan(0.0)).verdict == "not reproduced"
    assert C.claim3_contrastive(_abl_flat_str2(0.024, 0.016), CFG).verdict == "not reproduced"     # without a scan


@claim_case(CH, "C4", "reproduced")
def _c4_changes():
    return C.claim4_structure(_struct(0.10, 0.0, 0.0, -3.0, sd=SD / 3), CFG)


def _room_scan(room: float, default: float = 0.5, dims=("str2", "str3"), n_fresh: int = 1000) -> dict:
    """A scan of each dimension in ``dims`` whose best configuration lies ``room`` above the default, on the scan
    and re-scored on a fresh split of ``n_fresh`` tasks (the default solving a share ``default`` of them, the best
    configuration those and ``room`` x ``n_fresh`` more); every configuration scored for Str-2 and Str-3, a sample
    of the 129,600 for Fun-2."""
    fresh_default = (np.arange(n_fresh) < round(default * n_fresh)).astype(float)
    fresh_best = (np.arange(n_fresh) < round((default + room) * n_fresh)).astype(float)
    return {d: om.experiments.StructureScan(d, np.array([default - 0.2, default, default + room]), np.full(3, 15.0),
                                            default, 129_600 if d == "fun2" else 3, np.arange(3)[:, None],
                                            fresh_best, fresh_default)
            for d in dims}


def _noise_scan(seed: int, n_configs: int = 48, n: int = 150, flip: float = 0.05, better: float = 0.0):
    """The structure scan (:func:`.experiments.rescored_scan`, the code the page runs) of a world where every
    configuration is the default plus outcome noise: on each split, each configuration's per-task outcome is the
    default's flipped with probability ``flip`` (its own draw per split). With ``better`` > 0 the first
    configuration is genuinely better: it also solves a share 2 x ``better`` of the tasks the default fails
    (about ``better`` above it)."""
    rng = np.random.default_rng(seed)
    base = {part: (rng.random(n) < 0.5).astype(float) for part in ("val", "test")}
    table = {}
    for c in range(n_configs):
        for part in ("val", "test"):
            y = np.abs(base[part] - (rng.random(n) < flip))
            if c == 0 and better:
                y = np.maximum(y, (base[part] == 0) & (rng.random(n) < 2 * better))
            table[(c, part)] = y.astype(float)
    return om.experiments.rescored_scan("str2", np.arange(n_configs)[:, None],
                                        lambda c, part: (table[(c[0], part)], np.full(n, 15.0)),
                                        lambda part: (base[part], np.full(n, 15.0)))


def test_room_is_read_on_a_fresh_split():
    # the outside review (Session 12): configurations no better than the default that flip 5 % of the outcomes
    # put the scan's own best above +0.02 in every draw (median +0.04), so a room read off the scan let C4/C7 say
    # 'not reproduced' where there was nothing to find. Re-scored on the fresh split, the same configurations
    # give no room in most draws, while a genuinely better configuration (+0.10) keeps its room
    null = [_noise_scan(s) for s in range(200)]
    assert np.mean([sc.best_gain > 0.02 for sc in null]) > 0.95 and np.median([sc.best_gain for sc in null]) > 0.03
    assert np.mean([sc.room > 0.02 for sc in null]) < 0.2
    good = [_noise_scan(s, better=0.10) for s in range(200)]
    assert np.mean([sc.room > 0.02 for sc in good]) > 0.85
    sc = good[0]
    assert sc.room == pytest.approx(np.mean(sc.fresh_best - sc.fresh_default)) == pytest.approx(sc.rescore.mean)


def test_c4_and_c7_null_world_scan_gives_no_room():
    # one fixed draw of the null world whose scan's own best clears +0.02 ('not reproduced' before the fix)
    scan = _noise_scan(1)
    assert scan.best_gain > 0.02 and not scan.room > 0.02
    flat = _struct(0.002, 0.05, -0.001, 0.0, sd=0.004)
    check = C.claim4_structure(flat, CFG, scan={"str2": scan, "str3": scan})
    assert check.verdict == "inconclusive at this scale" and "re-scored on a fresh split of 150 tasks" in check.measured
    assert check.values["room"] == pytest.approx(scan.room)
    assert C.claim7_new_agent(_no_gain(), CFG, scan={"fun2": scan}).verdict == "inconclusive at this scale"
    # and the world with a genuinely better configuration keeps its room: evidence against
    good = _noise_scan(1, better=0.10)
    assert good.room > 0.02
    assert C.claim4_structure(flat, CFG, scan={"str2": good, "str3": good}).verdict == "not reproduced"
    assert C.claim7_new_agent(_no_gain(), CFG, scan={"fun2": good}).verdict == "not reproduced"


@claim_case(CH, "C4", "not reproduced", alternative="structural optimisation that changes neither accuracy nor calls "
            "although a scan finds configurations 0.10 above the default")
def _c4_nothing():
    return C.claim4_structure(_struct(0.002, 0.05, -0.001, 0.0, sd=0.004), CFG, scan=_room_scan(0.10))


@claim_case(CH, "C4", "inconclusive at this scale", alternative="the same 'no change' where the default is already the "
            "best configuration (scan: nothing above it), as on the real default scans of both families")
def _c4_nothing_to_find():
    return C.claim4_structure(_struct(0.002, 0.05, -0.001, 0.0, sd=0.004), CFG, scan=_room_scan(0.0))


def _joint(j, f1, s2, sd=0.0, d0=0.50, n=12):
    return _reps({"default": (0.5, d0), "joint:fun1>str2": (0.7, j), "single:fun1": (0.68, f1),
                  "single:str2": (0.6, s2)}, sd=sd, n=n)


@claim_case(CH, "C5", "reproduced")
def _c5_ok():
    return C.claim5_joint(_joint(0.66, 0.62, 0.55, sd=SD / 2), CFG)


@claim_case(CH, "C5", "inconclusive at this scale", alternative="singles that do not beat the default by more than the "
            "margin (the small-LM default run: +0.013 over the default), so that the unoptimised default would pass")
def _c5_singles_within_margin():
    return C.claim5_joint(_joint(0.62, 0.62, 0.55, sd=0.01, d0=0.60), CFG)


def test_c5_rejects_the_unoptimised_default_when_singles_gain_more_than_the_margin():
    # the trivial method (the default team in place of the joint sweep) on a world where optimisation matters
    reps = _joint(0.66, 0.62, 0.55, sd=SD / 2)
    assert C.claim5_joint(reps, CFG, joint="default").verdict == "not reproduced"


@claim_case(CH, "C5", "not reproduced", alternative="the sweep loses what Fun-1 alone found")
def _c5_loses():
    return C.claim5_joint(_joint(0.50, 0.62, 0.55, sd=SD / 2), CFG)


@claim_case(CH, "C6", "reproduced")
def _c6_matters():
    return C.claim6_order(_reps({"joint:fun1>str2": (0.7, 0.66), "joint:str2>fun1": (0.65, 0.58)}, sd=SD / 2), CFG)


@claim_case(CH, "C6", "not reproduced", alternative="order-free: both orders reach the same team")
def _c6_free():
    return C.claim6_order(_reps({"joint:fun1>str2": (0.7, 0.66), "joint:str2>fun1": (0.7, 0.66)}, sd=0.002), CFG)


@claim_case(CH, "C7", "reproduced")
def _c7_useful():
    return C.claim7_new_agent(_reps({"default": (0.55, 0.55), "single:fun2": (0.62, 0.63)}, sd=SD / 2), CFG)


@claim_case(CH, "C7", "not reproduced", alternative="the constructed agent crowds out a better one, although a scan "
            "finds new agents 0.08 above the default pool")
def _c7_harm():
    return C.claim7_new_agent(_reps({"default": (0.55, 0.55), "single:fun2": (0.56, 0.45)}, sd=SD / 2), CFG,
                              scan=_room_scan(0.08, 0.55, ("fun2",)))


def _no_gain(n=12, d0=0.55):
    """Fun-2 that changes nothing: the constructed agent adds exactly +0.000 in every replicate (as on the small-LM
    family's default run)."""
    return _reps({"default": (d0, d0), "single:fun2": (d0, d0)}, n=n, sd=0.0)


@claim_case(CH, "C7", "not reproduced", alternative="Fun-2 adds nothing (+0.000 in every replicate) although a scan "
            "finds new agents 0.05 above the default pool: there was something to find")
def _c7_no_gain_with_room():
    return C.claim7_new_agent(_no_gain(), CFG, scan=_room_scan(0.05, 0.55, ("fun2",)))


@claim_case(CH, "C7", "inconclusive at this scale", alternative="the same +0.000 where the best new agent of the scan "
            "is +0.007 over the default pool (the small-LM family's default: nothing to find); 'not reproduced' "
            "before the fix")
def _c7_no_gain_no_room():
    return C.claim7_new_agent(_no_gain(), CFG, scan=_room_scan(0.007, 0.55, ("fun2",)))


def test_c7_without_a_scan_is_never_against():
    check = C.claim7_new_agent(_no_gain(), CFG)
    assert check.verdict == "inconclusive at this scale" and "no scan" in check.measured
    assert C.claim7_new_agent(_no_gain(), CFG, scan=_room_scan(0.05, 0.55, ("fun2",))).values["room"] == \
        pytest.approx(0.05)


# ----------------------------------------------------------------------------------------------- trivial methods
@functools.lru_cache(maxsize=1)
def _smoke_study() -> list[Replicate]:
    """The real smoke-size study with the nearest trivial methods' arms (trivial_arms=True)."""
    return om.study(om.config_for("smoke", trivial_arms=True), 0)


SMOKE = om.config_for("smoke")


@claim_case(CH, "C1", "inconclusive at this scale", trivial="fun1 and str2 configurations drawn at random, "
            "unscored (no search), in place of the optimised team")
def _c1_trivial():
    return C.claim1_validation_gain(_smoke_study(), SMOKE, arm="unscored:joint")


@claim_case(CH, "C2", "inconclusive at this scale", trivial="fun1 and str2 configurations drawn at random, "
            "unscored (no search), in place of the optimised team")
def _c2_trivial():
    return C.claim2_test_transfer(_smoke_study(), SMOKE, arm="unscored:joint")


@claim_case(CH, "C3", "not reproduced", trivial="the resampling actor (same initial population, another "
            "refinement seed) in place of the comparator")
def _c3_trivial():
    return C.claim3_contrastive(_smoke_study(), SMOKE, a="resample_b")


@claim_case(CH, "C4", "inconclusive at this scale", trivial="Algorithm 1 on a dimension the engine ignores (a null "
            "controller; its scan of every configuration finds nothing above the default)")
def _c4_trivial():
    scan = om.structure_scan(om.config_for("smoke", n_val=20), 0, dims=("null",))
    return C.claim4_structure(_smoke_study(), SMOKE, arms=("single:null", "single:null"), scan=scan)


@claim_case(CH, "C5", "inconclusive at this scale", trivial="the unoptimised default team in place of the joint sweep")
def _c5_trivial():
    return C.claim5_joint(_smoke_study(), SMOKE, joint="default")


@claim_case(CH, "C6", "inconclusive at this scale", trivial="the same order under another optimiser seed")
def _c6_trivial():
    return C.claim6_order(_smoke_study(), SMOKE, b="joint_b:fun1>str2")


@claim_case(CH, "C7", "not reproduced", trivial="an unoptimised copy of the Generalist as the new agent")
def _c7_trivial():
    return C.claim7_new_agent(_smoke_study(), SMOKE, arm="clone", scan=_smoke_fun2_scan("dsl"))


@functools.lru_cache(maxsize=2)
def _smoke_fun2_scan(family: str) -> dict:
    """The real smoke-size scan of Fun-2 (SMOKE.scan_sample random new agents) that the page passes to claim 7."""
    return om.structure_scan(SMOKE, 0, dims=("fun2",), family=family, sample=SMOKE.scan_sample)


def test_every_claim_case_gives_its_verdict():
    from icmlbook.runtime.claims import CASES as REG
    from icmlbook.runtime.claims import case_problems, rules_for
    rules = rules_for(CH)
    assert {r.id for r in rules if r.testable} == {f"{p}{i}" for p in "CL" for i in range(1, 8)}
    for r in rules:
        assert case_problems(r) == [], r.id
    assert sum(len(REG.get(r.key, [])) for r in rules) == 26 + 28


def test_structure_scan_scores_every_configuration():
    cfg = om.config_for("smoke", n_val=8)
    scan = om.structure_scan(cfg, 1, dims=("str3",))["str3"]
    configs = om.slot("str3").all_configs()
    assert scan.scores.shape == (len(configs),) == (om.slot("str3").n_configs,)
    ev = om.Evaluator(dsl.make_split(8, 1, 1 * 1000 + 555))
    i = 7
    assert scan.scores[i] == ev.evaluate(om.default_team().with_slot("str3", tuple(configs[i]))).score
    assert scan.default_rank == 1 + sum(s > scan.default_score for s in scan.scores)
    # the best configuration and the default re-scored on a fresh split of as many tasks (the next draws of the
    # scan's generator, never seen by the scan)
    fresh = om.Evaluator(dsl.make_split(8, 8, 1 * 1000 + 555))
    assert fresh.evaluate(om.default_team()).score == scan.default_score == ev.evaluate(om.default_team()).score
    best = om.default_team().with_slot("str3", tuple(configs[int(np.argmax(scan.scores))]))
    assert np.array_equal(scan.fresh_best, fresh.evaluate(best, "test").correct)
    assert np.array_equal(scan.fresh_default, fresh.evaluate(om.default_team(), "test").correct)
    assert scan.fresh_best.shape == (8,) and scan.room == pytest.approx(np.mean(scan.fresh_best - scan.fresh_default))


def test_structure_scan_samples_large_slots():
    cfg = om.config_for("smoke", n_val=8)
    scan = om.structure_scan(cfg, 1, dims=("fun2", "str3"), sample=40)
    f2, s3 = scan["fun2"], scan["str3"]
    assert f2.sampled and f2.n_total == om.slot("fun2").n_configs and f2.scores.shape == (40,)
    assert not s3.sampled and s3.scores.shape == (om.slot("str3").n_configs,) == (36,)     # small: scored whole
    assert len({tuple(c) for c in f2.configs}) == 40                                  # without replacement
    team = om.default_team()
    ev = om.Evaluator(dsl.make_split(8, 1, 1 * 1000 + 555))
    assert f2.default_score == ev.evaluate(team).score                                # the pool without a new agent
    assert f2.scores[3] == ev.evaluate(team.with_slot("fun2", tuple(f2.configs[3]))).score
    assert f2.best_gain == pytest.approx(f2.scores.max() - f2.default_score)
    again = om.structure_scan(cfg, 1, dims=("fun2",), sample=40)["fun2"]
    assert np.array_equal(again.configs, f2.configs) and np.array_equal(again.scores, f2.scores)
    assert f2.describe() == f"40 random configurations of {om.slot('fun2').n_configs:,}"
    with pytest.raises(ValueError, match="sample"):
        om.structure_scan(cfg, 1, dims=("fun2",), sample=0)


# ----------------------------------------------------------------------------------------------- arithmetic family
from icmlbook.papers.omac_multiagent import arith as ar  # noqa: E402
from icmlbook.training import plateau_check  # noqa: E402


def _py_value(text: str) -> int:
    """Python's own evaluation of one of our expressions (digits, '+' and '*' only, checked first)."""
    assert set(text) <= set("0123456789+*") and len(text) == 5
    return int(eval(text, {"__builtins__": {}}))   # noqa: S307 - our own 5-character arithmetic string


def test_arith_values_pools_and_checks():
    for p in ar.ALL_PROBLEMS[::37]:
        assert ar.value(*p) == _py_value(ar.problem_text(*p)[:-1])
    assert len(ar.ALL_PROBLEMS) == 3000 and ar.VALUES.max() < ar.N_ANSWERS
    key = lambda a: {tuple(r) for r in a}  # noqa: E731
    assert not key(ar.TRAIN_POOL) & key(ar.TASK_POOL)
    assert key(ar.TRAIN_POOL) | key(ar.TASK_POOL) == key(ar.ALL_PROBLEMS)
    for t in (0, 17, 90):
        h = ar.residue_hits(t)
        assert h[t] == 2
        both = [a for a in range(100) if a % 3 == t % 3 and a % 2 == t % 2]
        assert np.flatnonzero(h == 2).tolist() == both and 16 <= len(both) <= 17


def test_arith_training_batches_are_correct_sums_with_answer_mask():
    spec = ar.LMSpec("products", 16, 1, 10, batch=8, seed=3)
    x, y, m = ar._batch_source(spec)(4)
    assert x.shape == y.shape == m.shape == (8, 27)
    for row_x, row_y, row_m in zip(x, y, m):
        text = ar.TOKENIZER.decode(row_x.tolist() + [int(row_y[-1])])
        probs = [p for p in text.split(";") if p]
        assert len(probs) == 3
        for p in probs:
            expr, ans = p.split("=")
            assert int(ans) == _py_value(expr) and len(ans) == 2
        # the masked targets are exactly the answer digits
        masked = ar.TOKENIZER.decode(row_y[row_m].tolist())
        assert masked == "".join(p.split("=")[1] for p in probs)


@functools.lru_cache(maxsize=1)
def _tiny_agents() -> ar.LMAgentSet:
    return ar.train_lm_agents(ar.model_specs(16, 1, 40, 0, batch=16))


def test_exact_answer_distribution_matches_teacher_forced_scoring():
    import torch
    agents = _tiny_agents()
    model = agents.model("general")
    probs = ar.TASK_POOL[:6]
    l1, l2 = ar.digit_logits(model, probs)
    lp = ar.answer_logprobs(l1, l2, 1.0)
    np.testing.assert_allclose(np.exp(lp).sum(1), 1.0, atol=1e-9)
    digits = torch.tensor([ar.TOKENIZER.token_to_id(str(d)) for d in range(10)])
    for q, p in enumerate(probs):
        for ans in (0, 37, 90):
            ids = torch.tensor([ar.TOKENIZER.encode(";" + ar.problem_text(*p) + f"{ans:02d}")])
            with torch.no_grad():
                logits = model(ids[:, :-1])[0, -2:][:, digits].double()
            want = sum(float(torch.log_softmax(logits[k], 0)[int(f"{ans:02d}"[k])]) for k in range(2))
            assert lp[q, ans] == pytest.approx(want, abs=1e-5)
    # lower temperature sharpens: the argmax keeps its place and gains mass
    cold = ar.answer_logprobs(l1, l2, 0.25)
    assert (cold.max(1) >= lp.max(1) - 1e-12).all()


def test_batched_answers_equal_one_query_at_a_time_and_the_full_forward():
    """The benchmark's batched path (chunks of queries, only the eleven read positions through the last layer)
    gives the digit logits and answer log-probabilities of one query at a time, and of the full tree-attention
    forward read at the prompt's last position and the ten digits (the path before the last layer was pruned)."""
    import torch
    model = _tiny_agents().model("general")
    probs = ar.TASK_POOL[np.random.default_rng(1).choice(len(ar.TASK_POOL), 70, replace=False)]
    demos = ar.TRAIN_POOL[np.random.default_rng(2).integers(len(ar.TRAIN_POOL), size=(70, 2))]
    l1, l2 = ar.digit_logits(model, probs, demos)                      # 70 queries: two chunks of 64 and 6
    assert l1.shape == (70, 10) and l2.shape == (70, 10, 10)
    one = [ar.digit_logits(model, probs[q:q + 1], demos[q:q + 1]) for q in range(70)]
    np.testing.assert_allclose(l1, np.concatenate([o[0] for o in one]), atol=1e-5)
    np.testing.assert_allclose(l2, np.concatenate([o[1] for o in one]), atol=1e-5)
    prompts = ar._prompts(probs, demos)
    length = prompts.shape[1]
    pos, mask = ar._tree_layout(length)
    with torch.no_grad():
        full = model(torch.cat([prompts, ar._DIGITS.expand(70, -1)], 1), positions=pos, attn_mask=mask)
    full = full[:, :, ar._DIGITS].double().numpy()
    np.testing.assert_allclose(l1, full[:, length - 1], atol=1e-5)
    np.testing.assert_allclose(l2, full[:, length:], atol=1e-5)
    for t in (0.5, 1.0):
        np.testing.assert_allclose(ar.answer_logprobs(l1, l2, t), ar.answer_logprobs(full[:, length - 1],
                                                                                    full[:, length:], t), atol=1e-4)


def test_arith_neighbours_are_one_digit_edits():
    tab = ar.make_arith_split(_tiny_agents(), 3, 2, 5).val[0]
    for a in (0, 7, 42, 99):
        sub = {b for b in range(100) if sum(x != y for x, y in zip(f"{a:02d}", f"{b:02d}")) == 1}
        assert set(tab.neighbours(a, "substitute").tolist()) == sub
        assert set(tab.neighbours(a, "substitute+delete").tolist()) == sub | {(a + 1) % 100, (a - 1) % 100}
        assert set(tab.neighbours(a, "all").tolist()) == (sub | {(a + 1) % 100, (a - 1) % 100, int(f"{a:02d}"[::-1])}) - {a}


def test_lm_agent_answers_by_vote_or_check_from_its_samples():
    from icmlbook.papers.omac_multiagent.engine import agent_answer
    split = ar.make_arith_split(_tiny_agents(), 6, 2, 9)
    base = dict(om.dimensions._LM_DEFAULT, temperature=1.5, budget=16)
    u = np.random.default_rng(0).random(om.engine.MAX_BUDGET)
    for tab in split.val:
        cdf = tab.cdf(base)
        samples = np.minimum(np.searchsorted(cdf, u[:16], side="right"), 99)
        vote = om.AgentSpec("G", "lm", tuple(dict(base, decode="vote").items()))
        check = om.AgentSpec("G", "lm", tuple(dict(base, decode="check").items()))
        vals, counts = np.unique(samples, return_counts=True)
        got = agent_answer(vote, tab, u)
        assert counts[vals.tolist().index(got)] == counts.max()
        passing = [s for s in samples if tab.vis_pass[s]]
        assert agent_answer(check, tab, u) == (passing[0] if passing else samples[np.argmax(tab.vis_hits[samples])])
    dsl_tab = dsl.task_table(dsl.make_tasks(1, 0)[0])
    with pytest.raises(ValueError, match="arithmetic"):
        agent_answer(vote, dsl_tab, u)


def test_arith_family_slots_team_and_bad_inputs():
    team = om.default_arith_team()
    assert team.family == "arith" and all(a.kind in ("lm", "repairer") for a in team.pool)
    s = om.slot("fun1", "arith")
    cfg = s.random(np.random.default_rng(1))
    t2 = team.with_slot("fun1", cfg)
    assert t2.pool[0].kind == "lm" and t2.pool[0].p == s.values(cfg) and t2.pool[1:] == team.pool[1:]
    assert om.slot("str2", "arith").values((3, 0, 0))["score"] == "logprob"
    with pytest.raises(ValueError, match="task family 'text' is unknown"):
        om.slot("fun1", "text")
    with pytest.raises(ValueError, match="needs the trained small LMs"):
        om.replicate(SMOKE, 0, 0, family="arith")
    with pytest.raises(ValueError, match="each must be >= 1"):
        ar.make_arith_split(_tiny_agents(), 0, 3, 1)


def test_arith_replicate_runs_is_seeded_and_counts_its_evaluations():
    cfg = om.config_for("smoke", lm_n_val=10, lm_n_test=10)
    r1 = om.replicate(cfg, 0, 1, "arith", _tiny_agents())
    r2 = om.replicate(cfg, 0, 1, "arith", _tiny_agents())
    for k in r1.arms:
        assert r1[k].val == r2[k].val and np.array_equal(r1[k].test_correct, r2[k].test_correct)
        assert r1[k].best_so_far == tuple(np.maximum.accumulate(r1[k].best_so_far))
    assert r1["fixed:fun1"].n_evals == r1["resample:fun1"].n_evals == cfg.n_init + cfg.ablation_iters
    assert r1["single:fun1"].val >= r1["default"].val


def test_small_lm_plateau_report_reads_the_logged_curve():
    agents = _tiny_agents()
    steps, loss = agents.curves[0]
    assert steps[0] == 0 and steps[-1] == 40 and loss[-1] < loss[0]     # training lowered the held-out loss
    rep = agents.plateau(0.15)[0]
    assert rep.tolerance == pytest.approx(0.05)
    assert rep.converged == (rep.change < 0.05)


def test_lm_guard_trains_longer_once_the_read_back_passes():
    """Rule 10 on the small LMs: a curve read back inside one annealed schedule is only a pre-filter; where it
    passes, the models trained 50 % longer decide (final held-out losses compared, independently of the curve)."""
    tiny = dict(lm_d_model=16, lm_n_layer=1, lm_steps=40, lm_batch=16, lm_eval_every=10)
    strict = om.lm_convergence(om.config_for("smoke", lm_loss_margin=1e-4, **tiny), 0)
    assert all(not r.converged and "against" not in r.text for r in strict)          # read-back fails: no retrain
    loose_cfg = om.config_for("smoke", lm_loss_margin=50.0, **tiny)
    loose = om.lm_convergence(loose_cfg, 0)
    longer = om.lm_agents(dataclasses.replace(loose_cfg, lm_steps=60), 0)
    base = om.lm_agents(loose_cfg, 0)
    for r, b, lg in zip(loose, base.curves, longer.curves):
        assert "40 against 60 updates" in r.text
        assert r.change == pytest.approx(abs(lg[1][-1] - b[1][-1]))
        assert lg[0][-1] == 60 and b[0][-1] == 40


# claim worlds for L1-L7: the guard satisfied (tested on its own below) or failed on real unconverged curves
CONVERGED = [plateau_check(1.40, 1.40 + 0.01 * i, CFG.lm_loss_margin, name=f"lm{i}") for i in range(3)]
# Rule 12 on the small-LM family's own spread, measured at default (8 replicates of 150 + 150 queries, seed 0, this
# session): sd over replicates of the joint sweep's validation gain 0.007 and test gain 0.033; of the comparator-
# minus-resampler difference averaged over Fun-1 and Str-2 0.007 (Str-2's part is exactly 0 on this family); of the
# structural arms' accuracy change 0.0024 (calls: 0); of the order difference 0.022; of the joint sweep minus the
# better single 0.035; of the better single's gain 0.014. The worlds put SD / sqrt(2) on each arm (differences of
# sd SD) with n = 8 replicates, as at default.
LM = dict(val=0.007, test=0.033, abl=0.007, struct=0.0024, order=0.022, joint=0.035)
N_LM = 8


def _lm(arms, key, n=N_LM):
    return _reps(arms, n=n, sd=LM[key] / np.sqrt(2))


@claim_case(CH, "L1", "reproduced")
def _l1_gain():
    return C.claim_l1_lm_validation_gain(_lm({"default": (0.89, 0.87), "joint:fun1>str2": (0.93, 0.90)}, "val"),
                                         CFG, CONVERGED)


@claim_case(CH, "L1", "not reproduced", alternative="a search that finds less than the minimum effect (the small-LM "
            "default run measured +0.011 [+0.005, +0.017])")
def _l1_nothing():
    return C.claim_l1_lm_validation_gain(_lm({"default": (0.89, 0.87), "joint:fun1>str2": (0.90, 0.88)}, "val"),
                                         CFG, CONVERGED)


@claim_case(CH, "L1", "inconclusive at this scale", alternative="small LMs still learning (real unconverged curves)")
def _l1_unconverged():
    return C.claim_l1_lm_validation_gain(_lm({"default": (0.89, 0.87), "joint:fun1>str2": (0.93, 0.90)}, "val"),
                                         CFG, _tiny_agents().plateau(CFG.lm_loss_margin))


@claim_case(CH, "L2", "reproduced")
def _l2_transfer():
    return C.claim_l2_lm_test_transfer(_lm({"default": (0.89, 0.87), "joint:fun1>str2": (0.93, 0.94)}, "test"),
                                       CFG, CONVERGED)


@claim_case(CH, "L2", "not reproduced", alternative="winner's curse: the small-LM validation gain does not reach test")
def _l2_curse():
    return C.claim_l2_lm_test_transfer(_lm({"default": (0.89, 0.87), "joint:fun1>str2": (0.93, 0.80)}, "test"),
                                       CFG, CONVERGED)


def _lm_abl(fix, res):
    return _lm({f"{a}:{d}": (v, v) for a, v in (("fixed", fix), ("resample", res)) for d in om.ABLATION_DIMS}, "abl")


@claim_case(CH, "L3", "reproduced")
def _l3_better():
    return C.claim_l3_lm_contrastive(_lm_abl(0.95, 0.91), CFG, CONVERGED)


@claim_case(CH, "L3", "not reproduced", alternative="resampling finds better small-LM configurations")
def _l3_worse():
    return C.claim_l3_lm_contrastive(_lm_abl(0.91, 0.93), CFG, CONVERGED)


def _lm_struct(acc2, calls2, acc3, calls3):
    return _lm({"default": (0.89, 0.87, 8.9), "single:str2": (0.89, 0.87 + acc2, 8.9 + calls2),
                "single:str3": (0.89, 0.87 + acc3, 8.9 + calls3)}, "struct")


@claim_case(CH, "L4", "reproduced")
def _l4_changes():
    return C.claim_l4_lm_structure(_lm_struct(0.0, -1.5, 0.0, 0.0), CFG, CONVERGED)


@claim_case(CH, "L4", "not reproduced", alternative="structural optimisation of small-LM teams that changes neither "
            "accuracy nor calls (as the default run measured) although a scan finds configurations 0.05 above the "
            "default")
def _l4_nothing():
    return C.claim_l4_lm_structure(_lm_struct(0.001, 0.0, -0.001, 0.0), CFG, CONVERGED, scan=_room_scan(0.05, 0.87))


@claim_case(CH, "L4", "inconclusive at this scale", alternative="the default run's small-LM numbers (no change) where "
            "the default controllers are the best configurations, as the default scan of the arithmetic family "
            "found (Str-2: 48 configurations 0.74-0.913, the default 0.913, first; Str-3: 36, 0.900-0.913, first); "
            "before the fix 'not reproduced' with the guard satisfied")
def _l4_nothing_to_find():
    return C.claim_l4_lm_structure(_lm_struct(0.001, 0.0, -0.001, 0.0), CFG, CONVERGED, scan=_room_scan(0.0, 0.913))


@claim_case(CH, "L4", "inconclusive at this scale", alternative="small LMs still learning (real unconverged curves)")
def _l4_unconverged():
    return C.claim_l4_lm_structure(_lm_struct(0.0, -1.5, 0.0, 0.0), CFG, _tiny_agents().plateau(CFG.lm_loss_margin))


def _lm_joint(j, f1, s2, d0=0.80):
    return _lm({"default": (0.80, d0), "joint:fun1>str2": (0.93, j), "single:fun1": (0.92, f1),
                "single:str2": (0.85, s2)}, "joint")


@claim_case(CH, "L5", "reproduced")
def _l5_ok():
    return C.claim_l5_lm_joint(_lm_joint(0.92, 0.92, 0.84), CFG, CONVERGED)


@claim_case(CH, "L5", "not reproduced", alternative="the sweep loses what Fun-1 alone found on small-LM teams")
def _l5_loses():
    return C.claim_l5_lm_joint(_lm_joint(0.82, 0.92, 0.84), CFG, CONVERGED)


@claim_case(CH, "L5", "inconclusive at this scale", trivial="the unoptimised default team in place of the joint "
            "sweep, on a world with the default run's numbers (singles +0.013 over the default, spread 0.014): "
            "before the fix this passed the non-inferiority test at default")
def _l5_default_world():
    w = _lm({"default": (0.89, 0.873), "joint:fun1>str2": (0.90, 0.888), "single:fun1": (0.907, 0.887),
             "single:str2": (0.893, 0.874)}, "joint")
    return C.claim_l5_lm_joint(w, CFG, CONVERGED, joint="default")


@claim_case(CH, "L6", "reproduced")
def _l6_matters():
    return C.claim_l6_lm_order(_lm({"joint:fun1>str2": (0.93, 0.93), "joint:str2>fun1": (0.90, 0.87)}, "order"),
                               CFG, CONVERGED)


@claim_case(CH, "L6", "not reproduced", alternative="order-free: both orders reach the same small-LM team")
def _l6_free():
    return C.claim_l6_lm_order(_reps({"joint:fun1>str2": (0.9, 0.88), "joint:str2>fun1": (0.9, 0.88)}, n=N_LM,
                                     sd=0.002), CFG, CONVERGED)


@claim_case(CH, "L7", "reproduced")
def _l7_useful():
    return C.claim_l7_lm_new_agent(_lm({"default": (0.89, 0.87), "single:fun2": (0.93, 0.94)}, "test"), CFG,
                                   CONVERGED)


@claim_case(CH, "L7", "not reproduced", alternative="the constructed small-LM agent crowds out a better one, "
            "although a scan finds new agents 0.05 above the default pool")
def _l7_harm():
    return C.claim_l7_lm_new_agent(_lm({"default": (0.89, 0.87), "single:fun2": (0.89, 0.78)}, "test"), CFG,
                                   CONVERGED, scan=_room_scan(0.05, 0.87, ("fun2",)))


@claim_case(CH, "L7", "not reproduced", alternative="the default run's small-LM numbers (+0.000 in every replicate) "
            "with the guard satisfied where a scan finds new agents 0.05 above the default pool")
def _l7_no_gain_with_room():
    return C.claim_l7_lm_new_agent(_no_gain(N_LM, 0.87), CFG, CONVERGED, scan=_room_scan(0.05, 0.87, ("fun2",)))


@claim_case(CH, "L7", "inconclusive at this scale", alternative="the default run's small-LM numbers (+0.000 in every "
            "replicate) where 60 random new agents peak +0.007 over the default pool, as on the default scan of the "
            "arithmetic family: nothing to find ('not reproduced' with the guard satisfied before the fix)")
def _l7_no_gain_no_room():
    return C.claim_l7_lm_new_agent(_no_gain(N_LM, 0.87), CFG, CONVERGED, scan=_room_scan(0.007, 0.87, ("fun2",)))


@functools.lru_cache(maxsize=1)
def _smoke_lm_study() -> list[Replicate]:
    """The real smoke-size study of the arithmetic family (smoke's small LMs, trivial arms on)."""
    return om.lm_study(om.config_for("smoke", trivial_arms=True), 0)


@claim_case(CH, "L1", "inconclusive at this scale", trivial="fun1 and str2 drawn at random, unscored, in place of the "
            "optimised small-LM team (guard satisfied, so that the decision itself is tested)")
def _l1_trivial():
    return C.claim_l1_lm_validation_gain(_smoke_lm_study(), SMOKE, CONVERGED, arm="unscored:joint")


@claim_case(CH, "L2", "inconclusive at this scale", trivial="fun1 and str2 drawn at random, unscored, in place of the "
            "optimised small-LM team (guard satisfied, so that the decision itself is tested)")
def _l2_trivial():
    return C.claim_l2_lm_test_transfer(_smoke_lm_study(), SMOKE, CONVERGED, arm="unscored:joint")


@claim_case(CH, "L3", "inconclusive at this scale", trivial="the resampling actor under another refinement seed in "
            "place of the comparator (guard satisfied, so that the decision itself is tested)")
def _l3_trivial():
    return C.claim_l3_lm_contrastive(_smoke_lm_study(), SMOKE, CONVERGED, a="resample_b")


@claim_case(CH, "L4", "inconclusive at this scale", trivial="Algorithm 1 on a dimension the engine ignores (a null "
            "controller), small-LM team (guard satisfied, so that the decision itself is tested; its scan of every "
            "configuration finds nothing above the default)")
def _l4_trivial():
    scan = om.structure_scan(SMOKE, 0, dims=("null",), family="arith")
    return C.claim_l4_lm_structure(_smoke_lm_study(), SMOKE, CONVERGED, arms=("single:null", "single:null"), scan=scan)


@claim_case(CH, "L5", "inconclusive at this scale", trivial="the unoptimised default small-LM team in place of the "
            "joint sweep (guard satisfied)")
def _l5_trivial():
    return C.claim_l5_lm_joint(_smoke_lm_study(), SMOKE, CONVERGED, joint="default")


@claim_case(CH, "L6", "inconclusive at this scale", trivial="the same order under another optimiser seed, small-LM "
            "team (guard satisfied)")
def _l6_trivial():
    return C.claim_l6_lm_order(_smoke_lm_study(), SMOKE, CONVERGED, b="joint_b:fun1>str2")


@claim_case(CH, "L7", "not reproduced", trivial="an unoptimised copy of the small-LM Generalist as the new "
            "agent (guard satisfied)")
def _l7_trivial():
    return C.claim_l7_lm_new_agent(_smoke_lm_study(), SMOKE, CONVERGED, arm="clone", scan=_smoke_fun2_scan("arith"))


@claim_case(CH, "L2", "inconclusive at this scale", alternative="the real smoke small LMs, not converged")
def _l2_smoke_unconverged():
    return C.claim_l2_lm_test_transfer(_smoke_lm_study(), SMOKE,
                                       om.lm_agents(om.config_for("smoke", trivial_arms=True), 0).plateau(
                                           SMOKE.lm_loss_margin))


# ----------------------------------------------------------------------------------------------- endpoint backend
def test_endpoint_backend_needs_an_address():
    from icmlbook.papers.omac_multiagent import llm
    with pytest.raises(ValueError, match="without an address"):
        llm.EndpointActors(model="m")
    with pytest.raises(ValueError, match="without an address"):
        llm.run_task_file("tasks.jsonl", model="m")
    ev = om.Evaluator(dsl.make_split(4, 1, 3))
    with pytest.raises(ValueError, match="needs an address"):
        om.algorithm1(ev, om.default_team(), "str2", actor="endpoint")


def test_endpoint_actors_against_the_stub_server():
    """The actors' requests and the parsing of answers, against the local stub server (a test fixture, not an
    LLM): the stub answers by a fixed rule on the request, so every parsed proposal can be checked."""
    from tests.stub_endpoint import stub_server

    from icmlbook.papers.omac_multiagent import llm
    s = om.slot("str2")
    answers = iter([
        # initializer: one valid, one with a value not allowed, prose around the JSON
        'Sure: [{"score": "agreement", "k": 3, "threshold": 0.5}, {"score": "best", "k": 9, "threshold": 0}]',
        '```json\n{"score": "shortest", "k": 1, "threshold": 1.0}\n```',   # child 1: valid
        "no idea",                                                          # child 2: falls back
        '{"score": "visible", "k": 2, "threshold": 0.0}',                   # child 3: the seed again: falls back
    ])
    with stub_server(lambda body: next(answers)) as (url, seen):
        actors = llm.EndpointActors(base_url=url, model="stub-fixture")
        ev = om.Evaluator(dsl.make_split(6, 2, 4))
        tr = om.algorithm1(ev, om.default_team(), "str2", n=3, t_max=3, kappa=9, actor=actors, seed=1)
    assert tr.actor == "endpoint:stub-fixture" and tr.n_evals == 6
    assert tr.configs[0] == s.default
    assert tr.configs[1] == (1, 2, 1)                        # agreement, k=3, threshold 0.5
    assert tr.configs[3] == (3, 0, 2)                        # the child the stub wrote
    assert len(set(tr.configs)) == 6                         # fallbacks never repeat a tried configuration
    assert actors.requests == 4 and actors.proposals == 5 and actors.fallbacks == 3
    assert len(seen) == 4 and all(b["model"] == "stub-fixture" for b in seen)
    first = seen[0]["messages"][-1]["content"]
    assert "Propose 2 different settings" in first and '- threshold: one of [0.0, 0.5, 1.0]' in first
    child = seen[1]["messages"][-1]["content"]
    assert "BETTER" in child and "WORSE" in child and "Already tried" in child


def test_task_file_agent_against_the_stub_server(tmp_path):
    from tests.stub_endpoint import stub_server

    from icmlbook.papers.omac_multiagent import llm
    f = tmp_path / "tasks.jsonl"
    f.write_text('{"question": "2+3*4=", "answer": "14"}\n{"question": "1+1+1=", "answer": "3"}\n')
    with stub_server(lambda body: "Working...\n14") as (url, seen):
        res = llm.run_task_file(f, base_url=url, model="stub-fixture")
    assert res.backend == f"stub-fixture at {url}"
    assert [r["correct"] for r in res.rows] == [True, False] and res.accuracy == 0.5
    assert seen[0]["messages"][-1]["content"] == "2+3*4="
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"q": 1}\n')
    with stub_server(lambda body: "x") as (url, _), pytest.raises(ValueError, match="line 1"):
        llm.run_task_file(bad, base_url=url, model="stub-fixture")


def test_playground_search_seed_defaults_to_seed_changes_the_split_and_is_checked():
    cfg = om.config_for("smoke", n_val=10, n_test=10, trivial_arms=False)
    args = (cfg, 0, ("fun1",), 2, 1, 0.01)
    a, b = om.playground_run(*args), om.playground_run(*args, search_seed=0)
    assert (a.default_val, a.val, a.calls) == (b.default_val, b.val, b.calls)   # default: the run's seed
    other = [om.playground_run(*args, search_seed=s) for s in (1, 2, 3)]
    # another seed draws another split: the default team's validation score is not the same on all of them
    assert len({round(p.default_val, 9) for p in [a, *other]}) > 1
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="search_seed"):
            om.playground_run(*args, search_seed=bad)


def test_prompts_from_the_token_tables_equal_the_encoded_text():
    """Session 15: the prompts are looked up in per-expression token tables; the same ids as encoding each prompt's
    text (with and without demonstrations, one and several queries)."""
    rng = np.random.default_rng(7)
    probs = ar.ALL_PROBLEMS[rng.choice(len(ar.ALL_PROBLEMS), 50, replace=False)]
    for k in (0, 1, 2, 3):
        demos = ar.TRAIN_POOL[rng.integers(len(ar.TRAIN_POOL), size=(50, k))]
        text = [(ar._line(demos[q]) if k else ";") + ar.problem_text(*probs[q]) for q in range(50)]
        want = np.array([ar.TOKENIZER.encode(x) for x in text])
        np.testing.assert_array_equal(ar._prompts(probs, demos if k else None).numpy(), want)
        np.testing.assert_array_equal(ar._prompts(probs[:1], demos[:1] if k else None).numpy(), want[:1])
    assert ar.TOKENIZER.decode(ar._prompts(np.array([[1, 2, 3, 4]]), np.array([[[0, 1, 2, 3]]]))[0].tolist()) \
        == ";1+2+3=06;2*3+4="
    with pytest.raises(ValueError, match="problems must be"):
        ar._prompts(np.array([[3, 1, 2, 3]]))
    # a review (session 15): shapes the text encoder refused are refused by name, never reshaped into other prompts
    with pytest.raises(ValueError, match="demos has 1 rows for 2 problems"):
        ar._prompts(probs[:2], demos[:1])
    for bad, name in ((probs[:, :3], "problems"), (probs.astype(float), "problems"), (probs[0], "problems"),
                      (None, "demos")):
        with pytest.raises(ValueError, match=name):
            ar._prompts(bad, None) if bad is not None else ar._prompts(probs[:2], probs[:2])
    assert ar._prompts(probs[:0], demos[:0]).shape == (0, 1 + 9 * 3 + 6)

