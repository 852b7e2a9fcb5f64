"""DRPBench chapter: metrics against hand counts and DRDBench's definition, the vendored data against its
index, the front end and lockset predictor exact on hand-written programs, the generator checked by gcc,
by its own text and by ThreadSanitizer (independent of the generator), and every claim rule both ways."""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import subprocess
import zlib

import numpy as np
import pytest

from icmlbook.papers.drpbench_data_races import claims, config_for
from icmlbook.papers.drpbench_data_races.data import (DATA_DIR, Program, Race, annotation_consistency, load_benchmark,
                                               race_from_dict)
from icmlbook.papers.drpbench_data_races.experiments import (PopulationStudy, generated_suite, select_real, split_study,
                                                             stratum_gap, stratum_of)
from icmlbook.papers.drpbench_data_races.frontend import Frame, Options, ParseError, analyse, constructs_of
from icmlbook.papers.drpbench_data_races.preprocess import Macro, evaluate_condition, preprocess
from icmlbook.papers.drpbench_data_races.generator import PATTERNS, Instance, generate_program, generate_suite
from icmlbook.papers.drpbench_data_races.metrics import (Counts, aggregate_samples, bootstrap_f1, distraction, line_counts,
                                                  match, micro, paired_bootstrap, per_program, score,
                                                  variable_counts)
from icmlbook.papers.drpbench_data_races.predictors import (ConstantRacyPredictor, LearnedPairPredictor, LocksetPredictor,
                                                            make_predictor, predict_all)
from icmlbook.papers.drpbench_data_races.tsan import instrument, run_tsan, tsan_available
from icmlbook.runtime.claims import claim_case

R = Race


# -- metrics ---------------------------------------------------------------------------------------
def test_match_is_drdbench_line_match():
    g = R("x", (3,), (7, 9))
    assert match(R("y", (9,), (3,)), g)           # unordered, any line of a list, variable not checked
    assert match(R("x", (3,), (7,)), g)
    assert not match(R("x", (3,), (8,)), g)
    assert not match(R("x", (7,), (9,)), g)        # both ends in the same list side is not a match


def test_line_counts_by_hand():
    gold = [R("a", (1,), (5,)), R("b", (2,), (6,)), R("c", (3,), (3,))]
    pred = [R("a", (5,), (1,)), R("a", (1,), (5,)), R("z", (4,), (8,)), R("c", (3,), (3,))]
    c = line_counts(pred, gold)
    # hits: a (twice, one TP, no FP), c; misses: b; false: (4, 8)
    assert c == Counts(tp=2, fp=1, fn=1)
    assert c.precision == 2 / 3 and c.recall == 2 / 3 and c.f1 == pytest.approx(2 / 3)
    # micro aggregation over programs: race-free program adds its predictions as false positives
    total = micro([c, line_counts([R("q", (1,), (2,))], [])])
    assert total == Counts(2, 2, 1) and total.f1 == pytest.approx(4 / 7)


def test_metric_invariances():
    rng = np.random.default_rng(0)
    gold = [R("v", (int(a),), (int(b),)) for a, b in rng.integers(1, 40, size=(6, 2))]
    pred = gold[:4] + [R("w", (50,), (51,)), R("w", (52,), (53,))]
    base = line_counts(pred, gold)
    swapped = [R(p.variable, p.b, p.a) for p in pred]
    reordered = [pred[i] for i in rng.permutation(len(pred))]
    duplicated = pred + [pred[0]]
    for variant in (swapped, reordered, duplicated):
        assert line_counts(variant, gold) == base
    worse = line_counts(pred + [R("w", (60,), (61,))], gold)
    assert worse.precision < base.precision and worse.recall == base.recall


def test_variable_levels_and_aggregation():
    gold = [R("x", (1,), (5,)), R("*y", (2,), (6,))]
    pred = [R("x", (1,), (5,)), R("* y", (2,), (6,)), R("z", (2,), (6,))]
    assert line_counts(pred, gold, with_variable=True) == Counts(2, 1, 0)
    assert variable_counts(pred, gold) == Counts(2, 1, 0)
    s1, s2, s3 = [R("x", (1,), (5,))], [R("x", (5,), (1,)), R("y", (2,), (3,))], [R("y", (2,), (3,))]
    keys = lambda rs: sorted(r.key() for r in rs)  # noqa: E731
    assert keys(aggregate_samples([s1, s2, s3], "union")) == [((1,), (5,)), ((2,), (3,))]
    assert keys(aggregate_samples([s1, s2, s3], "majority")) == [((1,), (5,)), ((2,), (3,))]
    assert keys(aggregate_samples([s1, s2, s3], "intersection")) == []
    with pytest.raises(ValueError, match="allowed values"):
        aggregate_samples([s1], "vote")


def test_bootstrap_intervals_contain_the_point_and_pair():
    counts = [Counts(1, 0, 0), Counts(0, 1, 1), Counts(2, 1, 0), Counts(0, 0, 2)] * 10
    f, lo, hi = bootstrap_f1(counts, n_boot=500, seed=1)
    assert lo <= f <= hi and f == pytest.approx(micro(counts).f1)
    d, dlo, dhi = paired_bootstrap(counts, counts, n_boot=200, seed=1)
    assert d == dlo == dhi == 0.0


def test_prediction_format_errors_are_parse_failures():
    assert race_from_dict({"shared_variable": "x", "lineA": 3, "lineB": [4, 5]}) == R("x", (3,), (4, 5))
    for bad in ({"shared_variable": "x", "lineA": 3}, {"shared_variable": "x", "lineA": "3", "lineB": 4},
                {"shared_variable": "x", "lineA": 3.0, "lineB": 4}, {"shared_variable": 1, "lineA": 3, "lineB": 4}):
        with pytest.raises(ValueError):
            race_from_dict(bad)
    p = Program("c/p.c", "int main()\n{\n}\n", True, races=(R("x", (1,), (9,)),))
    with pytest.raises(ValueError, match="names line"):
        p.check_lines()
    with pytest.raises(ValueError, match="no prediction"):
        per_program({}, [p], "line")


# -- the vendored benchmark ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def benchmark():
    return load_benchmark()


def test_vendored_benchmark_matches_its_index(benchmark):
    assert len(benchmark) == 1008 and sum(p.racy for p in benchmark) == 226
    assert sum(len(p.races) for p in benchmark) == 555
    hit, total, misses = annotation_consistency(benchmark)
    assert (hit, total) == (1097, 1110) and len(misses) == 13
    # every racy program is annotated, no race-free one is
    assert all(bool(p.races) == p.racy for p in benchmark)


def test_tampered_program_is_refused(tmp_path):
    root = tmp_path / "drdbench"
    (root / "programs").mkdir(parents=True)
    index = json.loads((DATA_DIR / "index.json").read_text())[:2]
    (root / "index.json").write_text(json.dumps(index))
    for e in index:
        dst = root / "programs" / e["program"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA_DIR / "programs" / e["program"], dst)
    assert len(load_benchmark(root)) == 2
    path = root / "programs" / index[0]["program"]
    path.write_text(path.read_text() + "\n")
    with pytest.raises(ValueError, match="SHA-256"):
        load_benchmark(root)


# -- front end and predictors ----------------------------------------------------------------------
HAND = """#include <pthread.h>
int g = 0;
int h = 0;
int done = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void __VERIFIER_atomic_bump(void)
{
    h = h + 1;
}
void touch(int *p)
{
    *p = 5;
}
void *t_fun(void *arg)
{
    int *q = (int *)arg;
    *q = 1;
    pthread_mutex_lock(&m);
    g = g + 1;
    pthread_mutex_unlock(&m);
    __VERIFIER_atomic_bump();
    touch(&done);
    return NULL;
}
int main()
{
    pthread_t id;
    int local = 0;
    g = 3;
    pthread_create(&id, NULL, t_fun, &local);
    pthread_mutex_lock(&m);
    g = g + 2;
    pthread_mutex_unlock(&m);
    __VERIFIER_atomic_bump();
    local = 2;
    done = 1;
    pthread_join(id, NULL);
    g = 0;
    return 0;
}
"""


def test_lockset_is_exact_on_a_hand_written_program():
    prog = Program("hand/p.c", HAND, True)
    got = sorted(r.key() for r in LocksetPredictor().predict(prog))
    # *q (alias of main's local through the start argument) vs local = 2; *p in touch (alias of done) vs done = 1,
    # placed at the call touch(&done) (a one-statement wrapper handed &done), as the benchmark's annotators do
    assert got == [((17,), (35,)), ((22,), (36,))]
    # an access placed at the call site shows the object as the call site names it
    assert {r.variable for r in LocksetPredictor().predict(prog) if r.key() == ((22,), (36,))} == {"done"}
    at_callee = sorted(r.key() for r in LocksetPredictor(options=Options(call_sites=False)).predict(prog))
    assert at_callee == [((12,), (36,)), ((17,), (35,))]
    # mutex-only: the atomic function's accesses race too
    mutex_only = sorted(r.key() for r in LocksetPredictor.mutex_only().predict(prog))
    assert set(mutex_only) - set(got) == {((8,), (8,))}  # h = h + 1 in the atomic function, from both threads
    # without create/join order, main's g = 3 (before the create) and g = 0 (after the join) race with line 19
    allp = sorted(r.key() for r in make_predictor("all pairs").predict(prog))
    assert ((19,), (29,)) in allp and ((19,), (38,)) in allp and ((19,), (29,)) not in got


def _races_of(text, predictor="lockset", **options):
    pred = LocksetPredictor(options=Options(**options)) if options else make_predictor(predictor)
    return sorted(r.key() for r in pred.predict(Program("hand/x.c", text, True)))


LVALUES = """#include <pthread.h>
struct S
{
    int a;
    int b;
};
struct S s;
int arr[4];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *arg)
{
    struct S *p = (struct S *)arg;
    p->a = 1;
    pthread_mutex_lock(&m);
    (*p).b = 2;
    pthread_mutex_unlock(&m);
    int *q = &arr[1];
    *q = 3;
    return NULL;
}
int main()
{
    pthread_t t;
    pthread_create(&t, NULL, worker, &s);
    s.a = 5;
    pthread_mutex_lock(&m);
    s.b = 6;
    pthread_mutex_unlock(&m);
    arr[2] = 4;
    pthread_join(t, NULL);
    return 0;
}
"""


def test_pointer_field_and_array_lvalues_are_shared_accesses():
    """By hand: p->a (p = the start argument &s) races with s.a; (*p).b and s.b hold m; *q (q = &arr[1])
    and arr[2] are one folded array object; the fields a and b never alias each other."""
    assert _races_of(LVALUES) == [((13,), (25,)), ((18,), (29,))]
    an = analyse(LVALUES)
    keys = {(a.line, a.key) for a in an.accesses}
    assert {(13, ("s", ".a")), (15, ("s", ".b")), (18, ("arr", "[]")), (25, ("s", ".a")), (27, ("s", ".b"))} <= keys
    assert not any(a.line in (12, 17) for a in an.accesses)   # the pointer copies themselves are not shared
    # all pairs also reports the protected pair (15, 27)
    assert ((15,), (27,)) in _races_of(LVALUES, "all pairs")


def test_pointer_loaded_from_shared_data_and_escaped_locals():
    """n = head->next makes n->v the object head->next->v; a local whose address main hands to the thread
    is shared with it, through a helper that receives the pointer (not a wrapper: its own lines)."""
    text = """#include <pthread.h>
struct N
{
    int v;
    struct N *next;
};
struct N *head;
void fill(int *c, int k)
{
    int j = k + 1;
    *c = j;
}
void *worker(void *arg)
{
    struct N *n = head->next;
    n->v = 1;
    fill((int *)arg, 2);
    return NULL;
}
int main()
{
    pthread_t t;
    int count = 0;
    pthread_create(&t, NULL, worker, &count);
    head->next->v = 2;
    count = 3;
    pthread_join(t, NULL);
    return 0;
}
"""
    assert _races_of(text) == [((11,), (26,)), ((16,), (25,))]
    # without resolving pointers through call sites there is nothing to pair on line 11
    keys = {a.key for a in analyse(text).accesses}
    assert ("main:count", "") in keys and ("head", "[].next[].v") in keys


MACROS = """#include <pthread.h>
#define SLOT(i) data[(i)]
#define LOCK pthread_mutex_lock(&m)
#define UNLOCK pthread_mutex_unlock(&m)
#define GUARDED
int data[8];
int other = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *arg)
{
    LOCK;
    SLOT(1) = 1;
    UNLOCK;
#ifdef GUARDED
    LOCK;
#endif
    other = 1;
#ifndef GUARDED
    other = 2;
#endif
    UNLOCK;
    SLOT(2)++;
    return NULL;
}
int main()
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    LOCK;
    SLOT(3) = 2;
    other = 3;
    UNLOCK;
    pthread_join(t, NULL);
    return 0;
}
"""


def test_macros_are_expanded_before_parsing_line_for_line():
    """By hand: SLOT(2)++ (line 22) is the one unprotected access to data, racing with SLOT(3) = 2 (30);
    other is written under m on both sides (the #ifdef branch is taken, the #ifndef one is not)."""
    out = preprocess(MACROS)
    assert len(out.splitlines()) == len(MACROS.splitlines())
    assert "data[(2)]" in out.splitlines()[21] and out.splitlines()[18].strip() == ""
    assert _races_of(MACROS) == [((22,), (30,))]
    # without expansion the front end sees no access to data at all, and other loses its lock
    assert _races_of(MACROS, macros=False) == [((17,), (31,)), ((19,), (31,))]


def test_preprocessor_by_hand():
    src = "#define A 2\n#define F(x, y) ((x) * A + y)\n#define S(x) #x\n#define P(a, b) a##b\nint v = F(1,\n 3);\nP(fo, o) = S(a b);\n"
    lines = preprocess(src).split("\n")
    # directives become empty lines; an invocation over two lines expands on its first, its rest stays put
    assert lines[:4] == ["", "", "", ""] and "((1) *  2  + 3)" in lines[4] and lines[5].strip() == ";"
    assert lines[6].split() == ["foo", "=", '"a', 'b"', ";"]
    assert evaluate_condition("defined(A) && A > 1", {"A": Macro("A", None, "2")})
    assert evaluate_condition("UNDEFINED_NAME", {}) is False
    assert evaluate_condition("sizeof(int) == 4", {}) is None   # beyond the evaluator: the caller keeps the branch


def test_phases_follow_the_outermost_call_site_in_main():
    """main's create/join phase of an access inlined through nested helpers is that of main's call: the
    explicit Frame carries it (no walker state survives a call)."""
    text = """#include <pthread.h>
int g = 0;
void inner(void)
{
    g = g + 1;
}
void outer(void)
{
    inner();
    g = 2;
}
void *worker(void *arg)
{
    outer();
    return NULL;
}
int main()
{
    pthread_t t;
    outer();
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    outer();
    return 0;
}
"""
    an = analyse(text)
    main_phases = {(a.line, a.phase) for a in an.accesses if a.context == "main"}
    assert main_phases == {(5, "pre"), (10, "pre"), (5, "post"), (10, "post")}
    assert {a.phase for a in an.accesses if a.context == "worker"} == {""}
    assert _races_of(text) == []           # every main access is before the create or after the join
    assert ((5,), (10,)) in _races_of(text, create_join=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Frame("main", "main", False).depth = 3


CONTAINER = """#include <pthread.h>
#include <stddef.h>
#define container_of(ptr, type, member) \\
    ({ \\
        const typeof(((type *)0)->member) *__mptr = (ptr); \\
        (type *)((char *)__mptr - offsetof(type, member)); \\
    })
pthread_t t1, t2;
struct dev
{
    int id;
};
struct data
{
    pthread_mutex_t lock;
    struct dev d;
    int a;
    int b;
};
void *callback(void *arg)
{
    struct dev *d = (struct dev *)arg;
    struct data *x = container_of(d, struct data, d);
    x->a = 1;
    pthread_mutex_lock(&x->lock);
    x->b = x->b + 1;
    pthread_mutex_unlock(&x->lock);
    return 0;
}
int probe(struct data *x)
{
    x->a = 0;
    pthread_create(&t1, NULL, callback, (void *)&x->d);
    pthread_create(&t2, NULL, callback, (void *)&x->d);
    return 0;
}
void disconnect(void)
{
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
}
int main(void)
{
    struct data s;
    probe(&s);
    s.b = 5;
    disconnect();
    s.a = -1;
    return 0;
}
"""


def test_container_of_and_threads_started_by_helpers_of_main():
    """By hand (the kernel driver idiom of ldv-races): each callback thread reaches main's local s through
    container_of(&s.d, struct data, d); x->a = 1 races with itself (two threads) but not with probe's
    x->a = 0 (before the first create, inside the helper that creates) nor with s.a = -1 (after disconnect
    joined both); x->b is locked in the threads, and main's s.b = 5 between probe and disconnect races with it."""
    assert _races_of(CONTAINER) == [((24,), (24,)), ((26,), (46,))]
    an = analyse(CONTAINER)
    phases = {(a.line, a.phase) for a in an.accesses if a.context == "main"}
    assert phases == {(32, "pre"), (46, ""), (48, "post")}
    assert {a.key for a in an.accesses if a.line == 24} == {("main:s", ".a")}
    # the same program without the macro expansion does not parse around container_of's statement expression
    assert analyse(CONTAINER, Options(macros=False), strict=False).recovered


FLAG_LOCKS = """#include <pthread.h>
void assume_abort_if_not(int cond);
int MTX = 0;
int m2 = 0;
int x = 0;
int y = 0;
void __VERIFIER_atomic_acquire(void)
{
    assume_abort_if_not(MTX == 0);
    MTX = 1;
}
void __VERIFIER_atomic_release(void)
{
    MTX = 0;
}
void __VERIFIER_atomic_lock(int *m)
{
    assume_abort_if_not(*m == 0);
    *m = 1;
}
void __VERIFIER_atomic_unlock(int *m)
{
    assume_abort_if_not(*m == 1);
    *m = 0;
}
void *worker(void *arg)
{
    __VERIFIER_atomic_acquire();
    x = x + 1;
    __VERIFIER_atomic_release();
    __VERIFIER_atomic_lock(&m2);
    y = y + 1;
    __VERIFIER_atomic_unlock(&m2);
    return 0;
}
int main()
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    __VERIFIER_atomic_acquire();
    x = 2;
    if (MTX == 1)
        x = 3;
    __VERIFIER_atomic_release();
    __VERIFIER_atomic_lock(&m2);
    y = 2;
    __VERIFIER_atomic_unlock(&m2);
    x = 4;
    pthread_join(t, NULL);
    return 0;
}
"""


def test_custom_flag_locks_from_atomic_functions():
    """By hand: acquire waits for MTX == 0 and sets it, release clears it (and the same through a pointer
    parameter for m2): x and y are protected except main's x = 4 (line 48); reading MTX while holding it
    (line 42) races with nothing. The mutex-only analyser sees none of it."""
    assert _races_of(FLAG_LOCKS) == [((29,), (48,))]
    mutex_only = _races_of(FLAG_LOCKS, "lockset (mutex only)")
    assert {((29,), (41,)), ((32,), (46,)), ((29,), (48,))} <= set(mutex_only)
    locks = {a.line: a.locks for a in analyse(FLAG_LOCKS).accesses if a.context == "main"}
    assert locks[42] >= {"flag:MTX"} and locks[46] >= {"flag:m2"} and "flag:MTX" not in locks[48]


def test_atomic_builtins_and_external_calls_handed_an_address():
    text = """#include <pthread.h>
#include <stdio.h>
int v = 0;
int w = 0;
void *worker(void *arg)
{
    __atomic_fetch_add(&v, 1, __ATOMIC_SEQ_CST);
    scanf("%d", &w);
    return NULL;
}
int main()
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    __atomic_fetch_add(&v, 2, __ATOMIC_SEQ_CST);
    v = 3;
    printf("%d\\n", w);
    pthread_join(t, NULL);
    return 0;
}
"""
    # two atomic updates do not race; the plain write does; scanf writes w at its call line
    assert _races_of(text) == [((7,), (16,)), ((8,), (17,))]
    assert ((7,), (15,)) in _races_of(text, atomic=False)


def test_frontend_errors_and_constructs():
    with pytest.raises(ParseError, match="line"):
        analyse("int main( {\n  return 0;\n}\n")
    assert analyse("int main( {\n return 0;\n}\n", strict=False).recovered
    assert constructs_of("sem_wait(&s); __VERIFIER_atomic_begin(); while (flag)\n{\n}\n") == (
        "semaphore", "atomic_block", "busy_wait")
    with pytest.raises(ValueError, match="allowed values"):
        make_predictor("oracle")


# -- the generator ---------------------------------------------------------------------------------
def test_generated_annotations_hold_their_variable_and_twins_differ():
    suite = generate_suite(40, seed=3)
    hit, total, _ = annotation_consistency(suite)
    assert hit == total > 0
    for racy, safe in zip(suite[::2], suite[1::2]):
        assert racy.racy and not safe.racy and not safe.races
        assert racy.text != safe.text
        racy_lines, safe_lines = racy.text.splitlines(), safe.text.splitlines()
        assert abs(len(racy_lines) - len(safe_lines)) <= 2 * len(racy.races)
    assert generate_suite(10, 1)[0].text == generate_suite(10, 1)[0].text
    with pytest.raises(ValueError, match="unknown construct"):
        generate_suite(4, 0, constructs=("deadlock",))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_every_pattern_compiles_with_gcc(tmp_path):
    from icmlbook.papers.drpbench_data_races.tsan import STUBS

    (tmp_path / "stubs.c").write_text(STUBS)
    for racy in (True, False):
        prog = generate_program([Instance(p, racy, k) for k, p in enumerate(PATTERNS)])
        src = tmp_path / f"p{int(racy)}.c"
        src.write_text(prog.text)
        r = subprocess.run(["gcc", "-Wall", "-Wno-unused-variable", "-Werror", "-pthread", str(src), str(tmp_path / "stubs.c"),
                            "-o", str(tmp_path / "p")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


@pytest.mark.skipif(not tsan_available(), reason="needs gcc with ThreadSanitizer")
def test_threadsanitizer_agrees_with_the_generator():
    """Independent of the generator's bookkeeping: TSan's reports fall on annotated races, and it reports
    nothing on the race-free twins."""
    suite = generate_suite(8, seed=5)
    for prog in suite:
        res = run_tsan(prog, runs=2, timeout=2.0)
        assert res.compiled, res.error
        c = line_counts(res.races, prog.races)
        assert c.fp == 0, (prog.name, res.races, prog.races)
        if not prog.racy:
            assert res.races == []
    assert "__sv_acquire" in instrument("void __VERIFIER_atomic_f(void)\n{\n}\n").splitlines()[1]


def test_learned_predictor_learns_locks():
    suite = generate_suite(60, seed=2, constructs=("mutex_missing", "mutex_mismatched"))
    model = LearnedPairPredictor(max_iter=50).fit(suite[:40])
    preds = predict_all(model, suite[40:])
    s = score(preds, suite[40:])
    assert s["line_f1"] > 0.8
    with pytest.raises(RuntimeError):
        LearnedPairPredictor().predict(suite[0])


def test_config_errors_name_the_parameter():
    with pytest.raises(ValueError, match="cv_folds"):
        config_for("smoke", cv_folds=1)
    with pytest.raises(ValueError, match="gen_min_patterns"):
        config_for("smoke", gen_min_patterns=4, gen_max_patterns=2)
    with pytest.raises(ValueError, match="allowed"):
        config_for("huge")


# -- the claim rules, both ways --------------------------------------------------------------------
CFG = config_for("smoke", n_boot=200)
_SUITE = generate_suite(60, seed=11)


def _converged(preds: dict) -> dict:
    """A test world's learned classifier is converged by its definition: trained 50 % longer it predicts the same
    (the guard of rule 10 then passes; the unconverged world is _c3_not_converged)."""
    learned = preds.get("learned pairs (CV)")
    return {} if learned is None else {"learned_longer": dict(learned), "learned_iterations": (60, 90)}


def _study(predictions: dict, programs=_SUITE, consistency=None) -> PopulationStudy:
    preds = {name: {p.name: list(fn(p)) for p in programs} for name, fn in predictions.items()}
    return PopulationStudy("test world", list(programs), preds, [], consistency, **_converged(preds))


@functools.lru_cache(maxsize=None)
def _real_held_out() -> tuple:
    """The smoke profile's real programs (every 4th racy and race-free one, non-race pairs cleaned), held-out half:
    the programs, their number and their mix are the real run's at smoke, so a world built on them carries the
    sampling noise the real run has (rule 12; the analysers are deterministic: there is no seed-to-seed spread)."""
    return tuple(split_study(PopulationStudy("real", select_real(config_for("smoke")), {}, []), "held-out").programs)


@functools.lru_cache(maxsize=None)
def _real_outputs(name: str) -> dict:
    """A real predictor's output on the smoke held-out programs (a few seconds each, computed once)."""
    return predict_all(make_predictor(name), _real_held_out(), desc=name)


def _real_study(predictions: dict) -> PopulationStudy:
    """A study on the smoke held-out programs: each predictor either a real output (dict) or a world (function)."""
    progs = list(_real_held_out())
    preds = {name: (dict(fn) if isinstance(fn, dict) else {p.name: list(fn(p)) for p in progs})
             for name, fn in predictions.items()}
    return PopulationStudy("real (held-out)", progs, preds, [], **_converged(preds))


def _coin(tag: str, p: Program, k: int = 0) -> float:
    """A reproducible uniform draw per (world, program, item) (crc32: Python's str hash changes per process)."""
    return float(np.random.default_rng(zlib.crc32(f"{tag}|{p.name}|{k}".encode())).random())


def _localising(share: float):
    """Detects every racy program; names its races right with probability ``share``, else a wrong pair."""
    rng = np.random.default_rng(0)
    flips = {p.name: rng.random() < share for p in _SUITE}
    return lambda p: (list(p.races) if flips[p.name] else [R("x", (1,), (2,))]) if p.racy else []


def _c3_world(share):
    f = _localising(share)
    return _study({"all pairs": f, "lockset": f, "learned pairs (CV)": f})


def test_vendored_snapshot_has_the_size_it_should():
    """A check of our vendoring, not a claim (C1 is not testable: DRPBench's own files were not reached):
    DRDBench's snapshot as its README counts it, within 2 % of the paper's size; its racy-only subset is not."""
    n = claims.benchmark_counts(load_benchmark(), CFG)
    assert (n["programs"], n["racy"], n["races"]) == (1008, 226, 555)
    assert n["dev_programs"] <= CFG.count_tolerance and n["dev_races"] <= CFG.count_tolerance
    racy = claims.benchmark_counts([p for p in load_benchmark() if p.racy], CFG)
    assert racy["dev_programs"] > CFG.count_tolerance and racy["races"] == 555


@claim_case("drpbench_data_races", "C2", "reproduced")
def _c2_ok():
    return claims.claim2(_study({}, consistency=annotation_consistency(load_benchmark())), CFG)


@claim_case("drpbench_data_races", "C2", "not reproduced", alternative="annotations one line off")
def _c2_alt():
    return claims.claim2(_study({}, consistency=annotation_consistency(load_benchmark(), shift=1)), CFG)


@claim_case("drpbench_data_races", "C2", "not reproduced",
            trivial="no normalisation: the programs as SV-COMP ships them (data/drdbench/original)")
def _c2_trivial():
    raw = [dataclasses.replace(p, text=(DATA_DIR / "original" / p.name).read_text(errors="replace"))
           for p in load_benchmark() if p.racy]
    return claims.claim2(_study({}, consistency=annotation_consistency(raw)), CFG)


def _real_localising(tag: str, detect: float, false_alarm: float, localise: float):
    """On the real programs: flags a racy program with probability ``detect`` (naming each of its races right with
    probability ``localise``, else a wrong pair), a race-free one with probability ``false_alarm`` (one wrong pair)."""
    def f(p):
        if p.racy and _coin(tag, p) < detect:
            return [g if _coin(tag, p, k + 1) < localise else R("x", (1,), (2,)) for k, g in enumerate(p.races)]
        return [R("x", (1,), (2,))] if not p.racy and _coin(tag, p) < false_alarm else []
    return f


@claim_case("drpbench_data_races", "C3", "reproduced")
def _c3_ok():
    """Good detectors (90 % of racy programs found, 10 % false alarms) that localise 40 % of the races, on the real
    held-out programs of the smoke profile."""
    return claims.claim3(_real_study({"lockset": _real_localising("a", 0.9, 0.1, 0.4),
                                      "learned pairs (CV)": _real_localising("b", 0.9, 0.1, 0.4)}), CFG, 0)


@claim_case("drpbench_data_races", "C3", "not reproduced", alternative="every detected race localised")
def _c3_alt():
    return claims.claim3(_c3_world(1.0), CFG, 0)


def _false_alarms(k: int):
    """Names exactly the annotated races of every racy program, and ``k`` spurious pairs on every race-free one."""
    return lambda p: list(p.races) if p.racy else [R("x", (900 + i,), (901 + i,)) for i in range(k)]


@claim_case("drpbench_data_races", "C3", "not reproduced",
            alternative="every race localised, with false alarms on the race-free programs")
def _c3_false_alarms():
    """The second review's world (session 6): a false alarm counts once per race-free program at program level
    and once per pair at line level, so 8 spurious pairs per race-free program open a gap without any
    mislocalised race; the racy programs alone show none."""
    return claims.claim3(_study({"lockset": _false_alarms(8), "learned pairs (CV)": _false_alarms(8)}), CFG, 0)


@claim_case("drpbench_data_races", "C3", "inconclusive at this scale",
            trivial="the constant detector: every program racy, always its first two lines (real output)")
def _c3_trivial():
    const = predict_all(ConstantRacyPredictor(), _real_held_out())
    return claims.claim3(_real_study({"lockset": const, "learned pairs (CV)": const}), CFG, 0)


@claim_case("drpbench_data_races", "C3", "inconclusive at this scale")
def _c3_not_converged():
    """_c3_ok's world, except that the learned classifier trained 50 % longer localises 90 % of the races instead of
    40 %: its gap moves by far more than a third of the margin, so it is compared with nothing (rule 10)."""
    good = _real_study({"lockset": _real_localising("a", 0.9, 0.1, 0.4),
                        "learned pairs (CV)": _real_localising("b", 0.9, 0.1, 0.4)})
    longer = _real_study({"x": _real_localising("b", 0.9, 0.1, 0.9)}).predictions["x"]
    return claims.claim3(dataclasses.replace(good, learned_longer=longer), CFG, 0)


def test_claim3_compares_the_learned_classifier_only_once_converged():
    c = _c3_not_converged()
    assert c.inconclusive == "not converged" and c.values["learned_converged"] is False
    assert all(v is None for k, v in c.values["parts"].items() if k.startswith("learned"))
    assert all(v is True for k, v in c.values["parts"].items() if k.startswith("lockset:"))
    ok = _c3_ok()
    assert ok.passed is True and ok.values["learned_converged"] is True
    # no longer-trained predictions: the classifier's convergence is unknown, the row cannot pass
    bare = dataclasses.replace(_real_study({"lockset": _real_localising("a", 0.9, 0.1, 0.4),
                                            "learned pairs (CV)": _real_localising("b", 0.9, 0.1, 0.4)}),
                               learned_longer=None)
    assert claims.claim3(bare, CFG, 0).inconclusive == "not converged"


def test_claim3_the_constant_detector_passed_the_former_rule():
    """Rule 11: before the detection condition, the constant detector passed C3 (a large gap, since it localises
    nothing); it is the detection condition that stops it now (a detector no better than the prior: its difference
    from the constant detector is exactly 0)."""
    c = _c3_trivial()
    parts = c.values["parts"]
    assert all(v is True for k, v in parts.items() if "gap" in k)
    assert all(v is None for k, v in parts.items() if "prior" in k) and c.passed is None


def test_claim3_racy_half_is_what_fails_the_false_alarm_world():
    c = _c3_false_alarms()
    assert c.passed is False
    assert all(lo > CFG.localisation_margin for _, lo, _ in c.values["gaps"].values())     # the former rule passed it
    assert all(g == lo == hi == 0 for g, lo, hi in c.values["racy_gaps"].values())
    assert _c3_ok().passed is True and all(lo > CFG.localisation_margin for _, lo, _ in _c3_ok().values["racy_gaps"].values())


def test_claim3_all_pairs_is_a_reference_only():
    """All pairs' gap (large by construction) is reported but does not decide: with the lockset and the learned
    classifier localising everything they detect, the rule fails even though all pairs' gap is large."""
    st = _study({"all pairs": _localising(0.4), "lockset": _localising(1.0), "learned pairs (CV)": _localising(1.0)})
    check = claims.claim3(st, CFG, 0)
    assert check.passed is False and "reference, not in the rule: all pairs" in check.measured
    assert check.values["reference"]["all pairs"][1] > CFG.localisation_margin
    assert set(check.values["gaps"]) == {"lockset", "learned pairs (CV)"}


def _c5_world(lock_aware: bool):
    flag_all = lambda p: list(p.races) + list(p.critical)  # noqa: E731
    return _study({"all pairs": flag_all, "lockset": (lambda p: list(p.races)) if lock_aware else flag_all})


@claim_case("drpbench_data_races", "C5", "reproduced")
def _c5_ok():
    """On the real held-out programs: a reader blind to synchronisation flags every annotated race and non-race
    pair; a lock-aware one keeps 90 % of the races and 30 % of the non-race pairs (drawn per pair)."""
    def lock_aware(p):
        return ([g for k, g in enumerate(p.races) if _coin("r", p, k) < 0.9]
                + [g for k, g in enumerate(p.critical) if _coin("c", p, k) < 0.3])
    return claims.claim5(_real_study({"all pairs": lambda p: list(p.races) + list(p.critical),
                                      "lockset": lock_aware}), CFG, 0)


@claim_case("drpbench_data_races", "C5", "not reproduced", alternative="locks do not explain the non-race pairs")
def _c5_alt():
    return claims.claim5(_c5_world(False), CFG, 0)


@claim_case("drpbench_data_races", "C5", "not reproduced",
            trivial="all pairs in the lockset's place (the analyser without the lock ingredient; real output)")
def _c5_trivial():
    ap = _real_outputs("all pairs")
    return claims.claim5(_real_study({"all pairs": ap, "lockset": ap}), CFG, 0)


def _c5_half_world(share: float = 0.53):
    """All pairs finds every race and flags each non-race pair with probability ``share`` (seeded); the
    lockset flags none: a lock-aware analyser, beside an over-reporting one that flags only about half."""
    rng = np.random.default_rng(1)
    keep = {(p.name, i): rng.random() < share for p in _SUITE for i in range(len(p.critical))}
    half = lambda p: list(p.races) + [g for i, g in enumerate(p.critical) if keep[(p.name, i)]]  # noqa: E731
    return _study({"all pairs": half, "lockset": lambda p: list(p.races)})


def _thinning(keep):
    """A lock-aware predictor that is no such thing: it keeps a random share ``keep`` of all pairs' output
    (seeded), whatever the pair; ``None`` keeps nothing (an abstaining analyser)."""
    rng = np.random.default_rng(2)
    flags = {p.name: rng.random(len(p.races) + len(p.critical)) for p in _SUITE}
    if keep is None:
        return lambda p: []
    return lambda p: [r for r, u in zip(list(p.races) + list(p.critical), flags[p.name]) if u < keep]


@claim_case("drpbench_data_races", "C5", "inconclusive at this scale")
def _c5_thin():
    """A lock-aware analyser that only thins its output at random: not reproduced before the contract's second
    edition; on 60 programs its interval spans the minimum effect (never reproduced)."""
    return claims.claim5(_study({"all pairs": lambda p: list(p.races) + list(p.critical),
                                 "lockset": _thinning(0.5)}), CFG, 0)


@claim_case("drpbench_data_races", "C5", "not reproduced", alternative="an abstaining lock-aware analyser")
def _c5_abstain():
    return claims.claim5(_study({"all pairs": lambda p: list(p.races) + list(p.critical),
                                 "lockset": _thinning(None)}), CFG, 0)


def test_claim5_is_not_decided_by_the_front_ends_coverage():
    """The review's world: the front end sees only about half of the non-race pairs (all pairs flags 53 % of
    them) and the lockset withdraws every one it sees. The former rule failed it on coverage; the current
    rule passes it (coverage is reported, not decided on), and fails a lockset that thins at random or
    abstains."""
    st = _c5_half_world()
    check = claims.claim5(st, CFG, 0)
    v = check.values
    assert check.passed is True and v["keep_nonrace"] == 0 and v["keep_races"] == 1
    assert 0.45 < v["coverage"] < 0.6 and v["seen_nonrace"] < v["nonrace_pairs"]
    assert claims.former_distraction_rule(st, CFG, 0).passed is False
    thin = _c5_thin().values
    assert abs(thin["keep_races"] - 0.5) < 0.15 and abs(thin["keep_nonrace"] - 0.5) < 0.15
    assert thin["lo"] <= 0 <= thin["hi"] and _c5_thin().passed is None   # spans the minimum effect: inconclusive
    assert _c5_abstain().values["keep_races"] == _c5_abstain().values["keep_nonrace"] == 0


def test_former_claim5_rule_decided_more_than_half_on_the_interval():
    """The former rule (shown on the page for the record): a world flagging about half the non-race pairs
    has a point estimate above 50 % but an interval reaching below it, so it fails; one flagging clearly
    more than half passes, and the interval holds the point estimate."""
    check = claims.former_distraction_rule(_c5_half_world(), CFG, 0)
    v = check.values
    assert 0.5 <= v["rate_a"] < 0.6 and v["rate_a_lo"] < 0.5 < v["rate_a_hi"] and v["lo"] > 0
    assert check.passed is False
    ok = claims.former_distraction_rule(_c5_half_world(0.8), CFG, 0)
    assert ok.passed is True and 0.5 < ok.values["rate_a_lo"] <= ok.values["rate_a"] <= ok.values["rate_a_hi"]
    assert claims.former_distraction_rule(_c5_world(True), CFG, 0).passed is True


def _c6_world(myopic: bool, harder_stratum: bool = False, unannotated: bool = False):
    """The full lockset analyser names every race, except (``harder_stratum``) on the non-mutex stratum, where
    it misses the first race of each program; the mutex-only one does the same and, if ``myopic``, also reports
    the annotated non-race pairs of the non-mutex programs as races (it cannot see their synchronisation), or,
    with ``unannotated``, loses there as much F1 through wrong pairs that no annotation marks."""
    def degraded(p):
        return [R("x", (1,), (2,))] + list(p.races[1:])

    def full(p):
        return degraded(p) if harder_stratum and stratum_of(p) != "mutex only" else list(p.races)

    def mutex_only(p):
        if stratum_of(p) == "mutex only" or not (myopic or harder_stratum):
            return list(p.races)
        if myopic and not unannotated:
            return full(p) + list(p.critical)
        return degraded(p)
    return _study({"lockset (mutex only)": mutex_only, "lockset": full})


@claim_case("drpbench_data_races", "C6", "reproduced")
def _c6_ok():
    """On the real held-out programs: the full lockset names each race with probability 0.8; the mutex-only one
    reports the same and, on programs with non-mutex synchronisation, 70 % of the annotated non-race pairs and a
    spurious pair on half of the race-free ones (the pairs it cannot see protected)."""
    def full(p):
        return [g for k, g in enumerate(p.races) if _coin("f", p, k) < 0.8]

    def mutex_only(p):
        out = full(p)
        if stratum_of(p) == "non-mutex synchronisation":
            out += [g for k, g in enumerate(p.critical) if _coin("m", p, k) < 0.7]
            if not p.racy and _coin("s", p) < 0.5:
                out.append(R("x", (1,), (2,)))
        return out
    return claims.claim6(_real_study({"lockset (mutex only)": mutex_only, "lockset": full}), CFG, 0)


@claim_case("drpbench_data_races", "C6", "not reproduced", alternative="the same F1 on both strata")
def _c6_alt():
    return claims.claim6(_c6_world(False), CFG, 0)


@claim_case("drpbench_data_races", "C6", "not reproduced",
            alternative="a non-mutex stratum harder for every analyser (the full lockset loses as much)")
def _c6_harder():
    return claims.claim6(_c6_world(False, harder_stratum=True), CFG, 0)


@claim_case("drpbench_data_races", "C6", "inconclusive at this scale")
def _c6_unannotated():
    """The second review's world (session 6): the mutex-only analyser loses F1 on the non-mutex stratum (each
    program's first race replaced by a pair nobody annotated), the full lockset does not; the F1 halves pass, the
    annotated halves cannot (no non-race pair flagged by either: a difference of exactly 0, which a minimum effect
    of 0 cannot place on either side): not reproduced before the contract's second edition, never reproduced."""
    return claims.claim6(_c6_world(True, unannotated=True), CFG, 0)


@functools.lru_cache(maxsize=None)
def _large_suite():
    return tuple(generate_suite(800, seed=12))


@claim_case("drpbench_data_races", "C6", "not reproduced",
            alternative="a non-mutex ingredient that withdraws races as readily as non-race pairs")
def _c6_random_withdrawal():
    """On 800 generated programs: the mutex-only analyser reports every race, and on the non-mutex programs every
    annotated non-race pair and six spurious pairs; the 'full' analyser drops every spurious pair but withdraws the
    races and the non-race pairs alike (each kept with probability 0.7): its F1 rises, the nested halves pass, what
    it withdraws is not what the annotations mark as not racing."""
    prog = list(_large_suite())

    def mutex_only(p):
        extra = (list(p.critical) + [R("x", (900 + i,), (901 + i,)) for i in range(6)]
                 if stratum_of(p) != "mutex only" else [])
        return list(p.races) + extra

    def full(p):
        if stratum_of(p) == "mutex only":
            return list(p.races)
        return [g for k, g in enumerate(list(p.races) + list(p.critical)) if _coin("w", p, k) < 0.7]
    return claims.claim6(_study({"lockset (mutex only)": mutex_only, "lockset": full}, programs=prog), CFG, 0)


@claim_case("drpbench_data_races", "C6", "not reproduced",
            trivial="the mutex-only analyser in the full lockset's place (the analyser without the non-mutex "
                    "ingredient; real output)")
def _c6_trivial():
    mo = _real_outputs("lockset (mutex only)")
    return claims.claim6(_real_study({"lockset (mutex only)": mo, "lockset": mo}), CFG, 0)


def _slight_world():
    """The mutex-only analyser reports one annotated non-race pair as a race in every third racy program with
    non-mutex synchronisation, and is otherwise exact (as is the full lockset): myopic, a little."""
    cand = [p for p in _SUITE if stratum_of(p) == "non-mutex synchronisation" and p.critical and p.racy]
    pick = {p.name for p in cand[::3]}
    mutex_only = lambda p: list(p.races) + (list(p.critical[:1]) if p.name in pick else [])  # noqa: E731
    return _study({"lockset (mutex only)": mutex_only, "lockset": lambda p: list(p.races)})


@claim_case("drpbench_data_races", "C6", "inconclusive at this scale")
def _c6_slight():
    """A slightly myopic analyser (one non-race pair reported in a third of the racy non-mutex programs): a gap
    not shown to exceed 0.1; not reproduced before the contract's second edition, its interval spans the margin."""
    return claims.claim6(_slight_world(), CFG, 0)


def test_claim6_margin_is_what_stops_the_slight_world():
    """The second review's world (session 6): with the margins at 0 (the rule before) it passes; with 0.1 not."""
    c = _c6_slight()
    v = c.values
    assert c.passed is None and 0 < v["lo"] < CFG.myopia_margin and 0 < v["did_lo"] < CFG.myopia_margin
    assert v["annotated"]["lo"] > 0
    assert claims.claim6(_slight_world(), config_for("smoke", n_boot=200, myopia_margin=0.0), 0).passed is True


def test_claim6_the_nested_halves_cannot_fail_and_the_specificity_half_can():
    """The audit's finding: the mutex-only analyser's reports contain the full lockset's, so the difference in
    differences and the annotated difference are never below 0 on its real output; the random-withdrawal world
    passes those halves and fails on what the ingredient withdraws."""
    mo, full = _real_outputs("lockset (mutex only)"), _real_outputs("lockset")
    for p in _real_held_out():
        assert {r.key() for r in full[p.name]} <= {r.key() for r in mo[p.name]}
    c = _c6_random_withdrawal()
    parts = c.values["parts"]
    assert parts["what the non-mutex ingredient withdraws"] is False
    assert parts["annotated non-race pairs flagged"] is True and parts["difference in differences"] is True


def test_claim6_annotated_half_is_what_stops_the_unannotated_world():
    c = _c6_unannotated()
    g = c.values
    assert c.passed is None and g["lo"] > 0 and g["did_lo"] > 0           # the former F1 halves passed it
    assert g["annotated"]["flagged"] == g["annotated"]["ref_flagged"] == 0 and g["annotated"]["programs"] > 0
    ok = _c6_world(True)
    okv = claims.claim6(ok, CFG, 0).values["annotated"]
    assert okv["flagged"] == okv["nonrace"] > 0 and okv["ref_flagged"] == 0 and okv["lo"] > 0
    # no racy non-mutex program holding non-race pairs: NaN, and the row is not reproduced... never: inconclusive
    bare = [dataclasses.replace(p, critical=()) if stratum_of(p) != "mutex only" else p for p in _SUITE]
    c = claims.claim6(PopulationStudy("w", bare, ok.predictions, []), CFG, 0)
    assert c.passed is None and c.values["annotated"]["programs"] == 0


def test_claim6_stratum_difficulty_alone_is_rejected():
    """Before the difference in differences, a stratum that is harder for every analyser passed C6 (the
    mutex-only gap alone is positive); on the real benchmark the all-pairs predictor, which understands no
    synchronisation, also shows a positive stratum gap, so the gap alone does not isolate the mutex-only view."""
    st = _c6_world(False, harder_stratum=True)
    g = stratum_gap(st, "lockset (mutex only)", 200, 0, reference="lockset")
    assert g["lo"] > 0 and abs(g["did"]) < 1e-12 and g["did_lo"] <= 0
    assert claims.claim6(st, CFG, 0).passed is False
    g = stratum_gap(_c6_world(True), "lockset (mutex only)", 200, 0, reference="lockset")
    assert g["ref_diff"] == 0 and g["did"] == g["diff"] > 0


def test_claim_worlds_are_what_they_say():
    """The test worlds above are built as described (their numbers, not just their verdicts)."""
    st = _c3_world(1.0)
    s = st.scores()["lockset"]
    assert s["program_f1"] == s["line_f1"] == 1.0
    assert stratum_of(generated_suite(config_for("smoke", n_generated=20), 0)[0]) in (
        "mutex only", "non-mutex synchronisation", "no synchronisation")
    d = distraction({p.name: list(p.races) + list(p.critical) for p in _SUITE}, _SUITE)
    assert d["false_positives"] == sum(len(p.critical) for p in _SUITE if p.racy)
    assert dataclasses.is_dataclass(st)


def test_tsan_figure_title_states_the_measured_recall():
    from icmlbook.papers.drpbench_data_races.experiments import TSanStudy
    from icmlbook.papers.drpbench_data_races.plots import tsan_figure
    from icmlbook.papers.drpbench_data_races.tsan import TSanResult

    racy = [p for p in _SUITE if p.racy][:2]
    res = {p.name: TSanResult(p.name, True, 2, list(p.races), [[], list(p.races)] if k == 0 else [list(p.races), []])
           for k, p in enumerate(racy)}
    fig = tsan_figure(TSanStudy(True, res, {}, racy, []), runs=2)
    title = fig.axes[0].get_title()
    n0 = len(racy[1].races) / (len(racy[0].races) + len(racy[1].races))
    assert f"generated suite {n0:.0%} after 1 run, 100% after 2" in title


def test_generated_suite_checks_pin_the_generator():
    """On the generated suite the three measurements follow from how the suite is built (not claims): the
    lockset analyser localises what it detects, flags few protected pairs, and only the mutex-only
    analyser loses F1 on the non-mutex patterns."""
    from icmlbook.papers.drpbench_data_races.experiments import population_study

    cfg = config_for("smoke", cv_folds=2, gb_iterations=20, n_boot=200)
    study = population_study(generate_suite(40, seed=4), cfg, 0, "generated suite")
    # the plateau test's second training: the same folds, 30 boosting iterations, a prediction for every program
    assert study.learned_iterations == (20, 30) and set(study.learned_longer) == {p.name for p in study.programs}
    dis = claims.GENERATED_CHECKS["distraction"](study, cfg, 0).values
    # all pairs sees every protected pair; the lockset keeps few of them (the safe busy-wait and Peterson
    # patterns, its myopia) and every race
    assert dis["coverage"] >= 0.9 and dis["keep_nonrace"] < 0.2 and dis["keep_races"] == 1.0
    s = study.scores()["lockset"]
    assert s["line_f1"] > 0.7 and abs(s["program_f1"] - s["line_f1"]) < 0.1
    assert claims.GENERATED_CHECKS["myopia"](study, cfg, 0).passed


# -- the pluggable LLM predictor, against a local stub server (a test fixture, never a result) -----------
def test_llm_predictor_against_a_local_stub(tmp_path):
    from icmlbook.papers.drpbench_data_races.llm import AnswerError, LLMRacePredictor, ReplayPredictor, parse_answer
    from tests.stub_endpoint import stub_server

    answers = ["I think there is a race.",                                         # no JSON: a failure
               '```json\n{"races": [{"shared_variable": "x", "lineA": "3", "lineB": 4}]}\n```',  # bad type
               '```json\n{"races": [{"shared_variable": "*y", "lineA": 24, "lineB": 11}]}\n```']
    with stub_server(lambda body: answers[min(len(seen) - 1, 2)]) as (url, seen):
        prog = [p for p in load_benchmark() if p.name == "goblint-regression/02-base_24-malloc_races.c"][0]
        cache = tmp_path / "answers.jsonl"
        llm = LLMRacePredictor(url, "stub", cache_path=cache)
        races = llm.predict(prog)
        assert [r.key() for r in races] == [((11,), (24,))] and llm.failures == 2
        assert seen[0]["messages"][0]["role"] == "system" and seen[0]["messages"][1]["content"].startswith("1: #include")
        assert line_counts(races, prog.races).tp == 1
        again = LLMRacePredictor(url, "stub", cache_path=cache)
        assert [r.key() for r in again.predict(prog)] == [((11,), (24,))] and len(seen) == 3   # from the cache
        never = LLMRacePredictor(url, "stub-2", max_retries=0)
        answers[2] = "no idea"
        assert never.predict(prog) == [] and never.parse_failures == [prog.name]
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"program": prog.name, "races": [{"shared_variable": "*y", "lineA": 11, "lineB": 24}]}) + "\n")
    assert line_counts(ReplayPredictor(replay).predict(prog), prog.races).tp == 1
    with pytest.raises(AnswerError, match="outside"):
        parse_answer('{"races": [{"shared_variable": "x", "lineA": 1, "lineB": 99}]}', n_lines=20)
    with pytest.raises(AnswerError, match="one integer"):
        parse_answer('{"races": [{"shared_variable": "x", "lineA": [1, 2], "lineB": 3}]}')


def test_f1_replicates_are_the_bootstrap_resamples_of_micro_f1():
    """The public resampling API against a direct computation: replicate b is the micro F1 of the programs
    drawn by numpy's generator with that seed; counts over the same number of programs are drawn alike."""
    from icmlbook.papers.drpbench_data_races.metrics import f1_replicates, micro_f1

    rng = np.random.default_rng(5)
    counts = [Counts(*map(int, rng.integers(0, 4, 3))) for _ in range(17)]
    other = [Counts(c.fp, c.tp, c.fn) for c in counts]
    reps = f1_replicates(counts, n_boot=50, seed=9)
    draws = np.random.default_rng(9).integers(0, len(counts), size=(50, len(counts)))
    direct = [micro(counts[i] for i in row).f1 for row in draws]
    assert reps.shape == (50,) and np.allclose(reps, direct, rtol=0, atol=1e-15)
    assert np.allclose(f1_replicates(other, 50, 9), [micro(other[i] for i in row).f1 for row in draws], atol=1e-15)
    assert micro_f1(counts) == pytest.approx(micro(counts).f1, abs=1e-15)
    assert np.isnan(micro_f1([Counts(0, 0, 0)]))
    f, lo, hi = bootstrap_f1(counts, n_boot=50, seed=9)
    assert (lo, hi) == tuple(np.nanquantile(reps, [(1 - 0.95) / 2, (1 + 0.95) / 2])) and f == micro_f1(counts)
    with pytest.raises(ValueError, match="no programs"):
        f1_replicates([], 10, 0)


def test_stratum_gap_on_the_public_api_equals_the_former_private_helpers():
    """stratum_gap reached into metrics' private helpers; on the public API (f1_replicates, micro_f1, and
    bootstrap_f1 now built on them) it gives the same numbers, bit for bit (the former bodies are written out
    here as the reference)."""
    from icmlbook.papers.drpbench_data_races.experiments import STRATA

    def former(study, predictor, n_boot, seed, level="line", reference=None):
        def count_matrix(counts):
            return np.array([[c.tp, c.fp, c.fn] for c in counts], dtype=float).reshape(-1, 3)

        def f1_rows(summed):
            tp, fp, fn = summed[..., 0], summed[..., 1], summed[..., 2]
            d = 2 * tp + fp + fn
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(d > 0, 2 * tp / np.where(d > 0, d, 1), np.nan)

        def resample(n, seed_):
            return np.random.default_rng(seed_).integers(0, n, size=(n_boot, n))

        def former_bootstrap_f1(counts, seed_, level=0.95):
            m = count_matrix(counts)
            point = float(f1_rows(m.sum(0)))
            if len(m) == 0:
                return float("nan"), float("nan"), float("nan")
            f = f1_rows(m[resample(len(m), seed_)].sum(1))
            lo, hi = np.nanquantile(f, [(1 - level) / 2, (1 + level) / 2])
            return point, float(lo), float(hi)

        def strata(name):
            counts = study.counts(name, level)
            return {s: [c for c, p in zip(counts, study.programs) if stratum_of(p) == s] for s in STRATA}

        groups = strata(predictor)
        a, b = groups[STRATA[0]], groups[STRATA[1]]
        fa, la, ha = former_bootstrap_f1(a, seed)
        fb, lb, hb = former_bootstrap_f1(b, seed + 1)
        ma, mb = count_matrix(a), count_matrix(b)
        ia, ib = resample(len(ma), seed), resample(len(mb), seed + 1)
        d = f1_rows(ma[ia].sum(1)) - f1_rows(mb[ib].sum(1))
        # the numbers the former body put in its result (the rest are sums and differences of these)
        out = dict(zip(("f1_mutex", "f1_mutex_ci", "f1_other", "f1_other_ci"), (fa, (la, ha), fb, (lb, hb))))
        out["lo"], out["hi"] = map(float, np.nanquantile(d, [0.025, 0.975]))
        if reference is not None:
            ref = strata(reference)
            ra, rb = count_matrix(ref[STRATA[0]]), count_matrix(ref[STRATA[1]])
            rd = f1_rows(ra[ia].sum(1)) - f1_rows(rb[ib].sum(1))
            out["ref_f1_mutex"], out["ref_f1_other"] = float(f1_rows(ra.sum(0))), float(f1_rows(rb.sum(0)))
            out["did_lo"], out["did_hi"] = map(float, np.nanquantile(d - rd, [0.025, 0.975]))
        return out

    rng = np.random.default_rng(2)
    keep = {p.name: rng.random(8) for p in _SUITE}

    def noisy(share):       # names each race with probability share, plus a spurious pair on some programs
        def predict(p):
            out = [r for r, u in zip(p.races, keep[p.name]) if u < share]
            return out + ([R("x", (1,), (2,))] if keep[p.name][-1] < 0.3 else [])
        return predict

    st = _study({"lockset (mutex only)": noisy(0.6), "lockset": noisy(0.85)})
    for reference in (None, "lockset"):
        got = stratum_gap(st, "lockset (mutex only)", 300, 4, reference=reference)
        ref = former(st, "lockset (mutex only)", 300, 4, reference=reference)
        assert len(ref) == (10 if reference else 6)
        for k in ref:
            assert got[k] == ref[k] or (np.isnan(got[k]) and np.isnan(ref[k])), k
        assert got["diff"] == got["f1_mutex"] - got["f1_other"]
    assert 0 < got["f1_mutex"] < 1 and got["lo"] < got["hi"]          # a world with spread, not a degenerate one


# -- Peterson's protocol and the per-construct scores ---------------------------------------------------
def _peterson_mutual_exclusion(main_turn_first: bool) -> bool:
    """An explicit-state check, independent of the generator: every sequentially consistent interleaving
    of the two threads of Peterson's protocol (the worker is thread 1, main thread 0; main's entry stores
    swapped when ``main_turn_first``). True iff no state has both threads in the critical section."""
    def program(me: int, turn_first: bool):
        other = 1 - me
        entry = [("store", f"want{me}", 1), ("store", "turn", other)]
        return (entry[::-1] if turn_first else entry) + [("wait", other), ("cs",), ("store", f"want{me}", 0)]

    progs = (program(0, main_turn_first), program(1, False))
    start = ((0, 0), (("turn", 0), ("want0", 0), ("want1", 0)))
    seen, todo = {start}, [start]
    while todo:
        pcs, mem = todo.pop()
        if all(pc < len(progs[t]) and progs[t][pc] == ("cs",) for t, pc in enumerate(pcs)):
            return False
        m = dict(mem)
        for t in (0, 1):
            if pcs[t] >= len(progs[t]):
                continue
            op, m2 = progs[t][pcs[t]], dict(m)
            if op[0] == "store":
                m2[op[1]] = op[2]
            elif op[0] == "wait" and m[f"want{op[1]}"] == 1 and m["turn"] == op[1]:
                continue   # blocked: the other thread wants in and it is its turn
            nxt = (tuple(pc + (i == t) for i, pc in enumerate(pcs)), tuple(sorted(m2.items())))
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return True


def test_peterson_pattern_ground_truth_and_what_lockset_sees():
    assert _peterson_mutual_exclusion(False) and not _peterson_mutual_exclusion(True)
    safe, racy = (generate_program([Instance("peterson", r, 0)]) for r in (False, True))
    assert not safe.races and len(safe.critical) == 1 and len(racy.races) == 1
    # the generated texts are the model's: main raises its flag before (safe) or after (racy) setting turn
    main_lines = lambda p: p.text[p.text.index("int main"):].splitlines()  # noqa: E731
    flag_first = [ln for ln in main_lines(safe) if "atomic_store0" in ln][:2]
    assert "want0_0, 1" in flag_first[0] and "turn0, 1" in flag_first[1]
    assert [ln for ln in main_lines(racy) if "atomic_store0" in ln][:2] == flag_first[::-1]
    # the lockset analyser cannot see the protocol: it reports the protected update in the safe twin too
    ls = LocksetPredictor()
    assert [r.key() for r in ls.predict(safe)] == [g.key() for g in safe.critical]
    assert [r.key() for r in ls.predict(racy)] == [g.key() for g in racy.races]
    # the protocol variables themselves are accessed only atomically: no race among them for the lockset
    assert len(make_predictor("all pairs").predict(safe)) > 1


@pytest.mark.skipif(not tsan_available(), reason="needs gcc with ThreadSanitizer")
def test_threadsanitizer_sees_the_correct_peterson_protocol_as_race_free():
    res = run_tsan(generate_program([Instance("peterson", False, 0), Instance("mutex_missing", False, 1)]),
                   runs=3, timeout=2.0)
    assert res.compiled and res.races == []


def test_construct_counts_by_hand():
    from icmlbook.papers.drpbench_data_races.experiments import ACROSS, DISTRACTOR, construct_counts

    prog = generate_program([Instance("mutex_missing", True, 0), Instance("peterson", False, 1),
                             Instance("mutex_missing", False, 2, distractor=True)])
    lp = prog.line_patterns
    assert len(lp) == len(prog.text.splitlines()) and set(lp) == {"", "mutex_missing", "peterson", DISTRACTOR}
    race, = prog.races
    pet = next(g for g in prog.critical if lp[g.a[0] - 1] == "peterson")
    dis = next(g for g in prog.critical if lp[g.a[0] - 1] == DISTRACTOR)
    scaffold = prog.text.splitlines().index("int main()") + 1
    preds = {prog.name: [race, pet, dis, R("x", (race.a[0],), (scaffold,))]}
    got = {c: v for c, v in construct_counts(preds, [prog]).items()}
    assert got == {"mutex_missing": [Counts(1, 0, 0)], "peterson": [Counts(0, 1, 0)], DISTRACTOR: [Counts(0, 1, 0)],
                   ACROSS: [Counts(0, 1, 0)]}
    # nothing predicted: the race is missed, and every construct present still gets its (empty) counts
    got = construct_counts({prog.name: []}, [prog])
    assert got["mutex_missing"] == [Counts(0, 0, 1)] and got["peterson"] == [Counts()] and ACROSS not in got
    with pytest.raises(ValueError, match="generated programs"):
        construct_counts({"hand/p.c": []}, [Program("hand/p.c", HAND, True)])


def test_per_construct_figure_and_table_state_their_numbers():
    from icmlbook.papers.drpbench_data_races.experiments import construct_scores, construct_table
    from icmlbook.papers.drpbench_data_races.plots import per_construct_figure

    suite = generate_suite(40, seed=6, constructs=("mutex_missing", "peterson", "semaphore"))
    preds = {name: predict_all(make_predictor(name), suite) for name in ("lockset", "lockset (mutex only)")}
    study = PopulationStudy("generated suite", suite, preds, [])
    sc = construct_scores(study, list(preds), 200, 0)
    pet, mut = sc["lockset"]["peterson"], sc["lockset"]["mutex_missing"]
    assert mut["f1"] == 1.0 and mut["fp"] == 0 and pet["fp"] > 0 and pet["f1"] < 1.0
    assert pet["f1"] == pytest.approx(2 * pet["tp"] / (2 * pet["tp"] + pet["fp"] + pet["fn"]))
    assert pet["lo"] <= pet["f1"] <= pet["hi"]
    assert sc["lockset (mutex only)"]["semaphore"]["f1"] < sc["lockset"]["semaphore"]["f1"] == 1.0
    title = per_construct_figure(sc, list(preds)).axes[0].get_title()
    assert f"lockset lowest on peterson ({pet['f1']:.2f})" in title
    assert f"| peterson | {pet['programs']} | {pet['f1']:.2f} [{pet['lo']:.2f}, {pet['hi']:.2f}]" in construct_table(sc, list(preds))


# -- pointer and struct-field lvalues in the generator ---------------------------------------------------
@pytest.mark.parametrize("pattern", ["pointer_arg", "struct_field"])
def test_pointer_and_field_patterns_ground_truth_and_the_lockset_view(pattern):
    """Both twins: the annotations name their lvalue as written on each line (the benchmark's convention:
    ``*p0``, ``s0.a``), no shared int is ever named at a pointer access, and the lockset analyser (reading
    only the text) reports exactly the annotated race and nothing on the race-free twin; all pairs also
    reports the protected pairs (the locked update through the pointer), never the sibling field."""
    racy, safe = (generate_program([Instance(pattern, r, 0), Instance("mutex_missing", False, 1, distractor=True)])
                  for r in (True, False))
    assert len(racy.races) == 1 and not safe.races and racy.constructs == (pattern, "mutex_missing")
    for prog in (racy, safe):
        hit, total, _ = annotation_consistency([prog])
        assert hit == total
        assert {r.key() for r in make_predictor("lockset").predict(prog)} == {g.key() for g in prog.races}
        flagged = {r.key() for r in make_predictor("all pairs").predict(prog)}
        assert {g.key() for g in prog.races + prog.critical} == flagged
    race, = racy.races
    lines = racy.text.splitlines()
    a, b = lines[race.a[0] - 1], lines[race.b[0] - 1]
    if pattern == "pointer_arg":
        assert race.variable == "*p0" and a.strip() == "*p0 = *p0 + 1;" and b.strip() == "*p0 = *p0 + 2;"
        assert "pthread_create(&through0_t, NULL, through0, &v0);" in racy.text and "int *p0 = &v0;" in racy.text
        assert not any(ln.strip().startswith("v0") for ln in lines)   # v0 is only reached through pointers
    else:
        assert race.variable == "s0.a" and a.strip() == "q0->a = 1;" and b.strip() == "s0.a = 2;"
        # the race-free twin writes the sibling field instead: one token apart, a distinct memory location
        diff = [(x, y) for x, y in zip(racy.text.splitlines(), safe.text.splitlines()) if x != y]
        assert diff == [("    s0.a = 2;", "    s0.b = 2;")]


@pytest.mark.skipif(not tsan_available(), reason="needs gcc with ThreadSanitizer")
@pytest.mark.parametrize("pattern", ["pointer_arg", "struct_field"])
def test_threadsanitizer_agrees_on_the_pointer_and_field_patterns(pattern):
    """Independent of the generator: ThreadSanitizer finds the race of the racy twin on its annotated lines
    and reports nothing on the race-free one (distinct fields are distinct locations for it too)."""
    for racy in (True, False):
        prog = generate_program([Instance(pattern, racy, 0), Instance("join_order", False, 1)])
        res = run_tsan(prog, runs=2, timeout=2.0)
        assert res.compiled, res.error
        assert {r.key() for r in res.races} == {g.key() for g in prog.races}


# -- helper line or call line: what the annotators do, and the generator and metric following it ---------
ATTRIBUTION = """#include <pthread.h>
#define N 10
#define BUMP(x) x = x + 1
#define TOUCH g = g - 1
int g = 0;
int h = 0;
void addp(int *p)
{
    *p = *p + 1;
}
void addg(void)
{
    g = g + 2;
}
int check(int v)
{
    return v > N;
}
void *worker(void *arg)
{
    addp(&g);
    addg();
    TOUCH;
    BUMP(h);
    return NULL;
}
int main()
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    addp(&g);
    addg();
    TOUCH;
    check(h);
    pthread_join(t, NULL);
    return 0;
}
"""


def test_attribution_forms_by_hand():
    """Each form on a hand program: a pointer-parameter helper listed with its call line, a helper naming the
    variable alone, an object-like statement macro listed with two uses, a call line alone (the address
    handed on), a function-like macro's line; ``check(h)`` reads h on the call line itself (a direct access,
    not an attribution), and the constant ``N`` is no helper."""
    from icmlbook.papers.drpbench_data_races.attribution import attribution_summary, helper_endpoints, majority_form

    races = (R("g", (9, 21), (9, 31)), R("g", (13,), (13,)), R("g", (3 + 1, 23, 33), (13,)), R("g", (21,), (31,)),
             R("h", (3, 24), (34,)))
    prog = Program("hand/attr.c", ATTRIBUTION, True, races=races)
    got = [(e.lines, e.form, e.helper, e.sites, e.through_parameter) for e in helper_endpoints([prog])]
    assert got == [((9, 21), "helper line + one call line", "addp", 2, True),
                   ((9, 31), "helper line + one call line", "addp", 2, True),
                   ((13,), "helper line only", "addg", 2, False), ((13,), "helper line only", "addg", 2, False),
                   ((4, 23, 33), "helper line + several call lines", "TOUCH", 2, False),
                   ((13,), "helper line only", "addg", 2, False),
                   ((21,), "call line only", "addp", 2, True), ((31,), "call line only", "addp", 2, True),
                   ((3, 24), "helper line + one call line", "BUMP", 1, True)]
    s = attribution_summary(helper_endpoints([prog]), min_sites=2)
    assert s == {"helper line + one call line": 2, "helper line + several call lines": 1, "helper line only": 3,
                 "call line only": 2, "other list": 0}
    assert majority_form(helper_endpoints([prog]), through_parameter=False) == "helper line only"
    with pytest.raises(ValueError, match="no endpoint"):
        majority_form([], 2)


def test_generator_annotates_helpers_as_the_benchmark_does(benchmark):
    """The two helper patterns take the form the benchmark's annotators use most for helpers called from
    several sites, counted on the real annotations: through a pointer parameter, and naming the variable."""
    from icmlbook.papers.drpbench_data_races.attribution import helper_endpoints, majority_form

    real = helper_endpoints(benchmark)
    for pattern, through in (("helper_sites", True), ("helper_global", False)):
        prog = generate_program([Instance(pattern, True, 0)])
        eps = helper_endpoints([prog])
        assert len(eps) == 2 and all(e.through_parameter == through and e.sites == 2 for e in eps)
        assert {e.form for e in eps} == {majority_form(real, 2, through)}
    # the helper's own line is in every real endpoint attributed to a helper called from several sites
    multi = [e for e in real if e.sites >= 2]
    assert multi and sum(e.form == "call line only" for e in multi) == 0


def test_line_match_on_the_two_helper_forms():
    """DRDBench's match (any line of a list) on both forms: a prediction naming the helper's line matches
    either; one naming the two call lines matches the listed form only (the benchmark lists the call line for
    a helper reached through a pointer parameter, not for one naming the variable)."""
    listed = generate_program([Instance("helper_sites", True, 0)])
    alone = generate_program([Instance("helper_global", True, 0)])
    for prog in (listed, alone):
        (race,) = prog.races
        helper_line = next(i + 1 for i, ln in enumerate(prog.text.splitlines()) if "+ 1;" in ln and "bump" not in ln)
        calls = [i + 1 for i, ln in enumerate(prog.text.splitlines()) if ln.strip().startswith("bump0(")]
        assert line_counts([R("v0", (helper_line,), (helper_line,))], prog.races) == Counts(1, 0, 0)
        expect = Counts(1, 0, 0) if prog is listed else Counts(0, 1, 1)
        assert line_counts([R("v0", (calls[0],), (calls[1],))], prog.races) == expect
        assert len(calls) == 2


# -- bad input: clear errors -----------------------------------------------------------------------------
def test_threadsanitizer_where_gcc_cannot_link_it_is_a_clear_error(tmp_path, monkeypatch):
    """A gcc that cannot link -fsanitize=thread (here a stand-in script that fails like a gcc without
    libtsan) and no gcc at all both raise TSanError naming the cause; neither becomes a silent
    'not compiled' for every program."""
    from icmlbook.papers.drpbench_data_races.tsan import TSanError

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gcc").write_text("#!/bin/sh\necho '/usr/bin/ld: cannot find -ltsan: No such file or directory' >&2\nexit 1\n")
    (fake / "gcc").chmod(0o755)
    prog = generate_program([Instance("mutex_missing", True, 0)])
    monkeypatch.setenv("PATH", str(fake))
    assert not tsan_available()
    with pytest.raises(TSanError, match=r"cannot link .*-fsanitize=thread.*cannot find -ltsan"):
        run_tsan(prog)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(TSanError, match="needs gcc"):
        run_tsan(prog)
    with pytest.raises(ValueError, match="runs=0"):
        run_tsan(prog, runs=0)


def test_unknown_constructs_and_bad_c_are_refused():
    with pytest.raises(ValueError, match="constructs"):
        config_for("smoke", constructs=("mutex_missing", "deadlock"))
    with pytest.raises(ValueError, match="unknown construct 'deadlock'; allowed values"):
        generate_program([Instance("deadlock", True, 0)])
    with pytest.raises(ParseError, match="first error at line 2"):
        analyse("int x;\nint main( {\n")


def test_figure_titles_state_their_numbers():
    """The granularity, distraction and myopia figures' titles are computed from the study they draw (here
    test worlds whose numbers are known: a perfect localiser has no gap; an all-flagging predictor flags
    every protected pair, a lock-aware one none; the myopic analyser loses the non-mutex stratum)."""
    from icmlbook.papers.drpbench_data_races.plots import construct_figure, distraction_figure, granularity_figure

    st = _c3_world(0.4)
    sc = st.scores()
    gaps = [sc[n]["program_f1"] - sc[n]["line_f1"] for n in ("all pairs", "lockset")]
    title = granularity_figure([st], ["all pairs", "lockset"], 200, 0).axes[0].get_title()
    assert f"program F1 − line F1 from {min(gaps):+.2f} to {max(gaps):+.2f}" in title and min(gaps) > 0.2
    assert "from +0.00 to +0.00" in granularity_figure([_c3_world(1.0)], ["all pairs", "lockset"], 200, 0).axes[0].get_title()
    title = distraction_figure([_c5_world(True)], ["all pairs", "lockset"]).axes[0].get_title()
    assert "test world: all pairs 100%, lockset 0%" in title
    st6 = _c6_world(True)
    counts = st6.counts("lockset (mutex only)", "line")
    f = {s: micro([c for c, p in zip(counts, st6.programs) if stratum_of(p) == s]).f1
         for s in ("mutex only", "non-mutex synchronisation")}
    title = construct_figure(st6, ["lockset (mutex only)", "lockset"], 200, 0).axes[0].get_title()
    assert (f"lockset (mutex only) line F1 {f['mutex only']:.2f} on mutex only programs, "
            f"{f['non-mutex synchronisation']:.2f} with non-mutex synchronisation") in title
    assert f["mutex only"] == 1.0 > f["non-mutex synchronisation"]


def test_playground_controls():
    """The playground's program and scores: a loop-spawned thread started ``threads`` times, the chosen
    scoring rule's counts, and clear errors for a bad rule or a thread started once."""
    from icmlbook.papers.drpbench_data_races.experiments import PLAYGROUND_LEVELS, playground

    prog, pred, sc = playground(["loop_spawn", "mutex_missing"], [True, False], 1, "lockset", threads=4,
                                level="line + variable")
    assert "for (int i = 0; i < 4; i++)" in prog.text and "pthread_t spawned0_t[4];" in prog.text
    assert sc["chosen"] == sc["line_variable"] == line_counts(pred, prog.races, with_variable=True)
    assert sc["line"] == Counts(1, 0, 0) and sc["program_right"]
    assert playground(["mutex_missing"], [True], 0, "all pairs", level="variable set")[2]["chosen"] == Counts(1, 0, 0)
    assert set(PLAYGROUND_LEVELS.values()) == {"line", "drdbench", "line_variable", "variable_set"}
    with pytest.raises(ValueError, match="level='pair'.*allowed values"):
        playground(["mutex_missing"], [True], 0, "lockset", level="pair")
    with pytest.raises(ValueError, match="loop_threads=1"):
        playground(["loop_spawn"], [True], 0, "lockset", threads=1)


def test_full_profile_path_at_tiny_sizes():
    """The full profile's code path (more resamples and ThreadSanitizer runs than default, nothing else)
    runs end to end with its sizes overridden down: the generated suite, the study, every claim rule."""
    from icmlbook.papers.drpbench_data_races.experiments import population_study, tsan_study

    full = config_for("full")
    assert (full.n_boot, full.tsan_runs, full.real_stride) == (5000, 5, 1)
    cfg = config_for("full", n_generated=8, n_boot=100, cv_folds=2, gb_iterations=5, tsan_generated=2,
                     tsan_real=0, tsan_runs=1, tsan_timeout=1.0)
    suite = generated_suite(cfg, 0)
    study = population_study(suite, cfg, 0, "generated suite")
    for rule in (claims.claim3, claims.claim5, claims.claim6):
        assert rule(study, cfg, 0).passed in (True, False, None)
    # a stratum with no program leaves claim 6 undecided, with the reason, instead of failing to resample
    only_mutex = PopulationStudy("w", [p for p in study.programs if stratum_of(p) == "mutex only"] or study.programs[:1],
                                 study.predictions, [])
    c6 = claims.claim6(only_mutex, cfg, 0)
    assert c6.passed is None and "holds no program" in c6.reason
    if tsan_available():
        ts = tsan_study(suite, [], cfg, 0)
        assert ts.available and len(ts.generated) == 2 and all(r.runs == 1 for r in ts.generated.values())


def test_playground_real_population():
    """The playground's real-benchmark branch scores a vendored program against its own annotations: the
    same counts as the metric applied directly, every annotated race of the shipped example found by the
    all-pairs predictor (its recall ceiling), and the bad-rule error as for generated programs."""
    from icmlbook.papers.drpbench_data_races.data import load_benchmark
    from icmlbook.papers.drpbench_data_races.experiments import score_program
    from icmlbook.papers.drpbench_data_races.predictors import make_predictor

    prog = next(p for p in load_benchmark() if p.name == "goblint-regression/02-base_24-malloc_races.c")
    _, pred, sc = score_program(prog, "all pairs", level="line (ours)")
    assert pred == make_predictor("all pairs").predict(prog)
    assert sc["chosen"] == sc["line"] == line_counts(pred, prog.races)
    assert sc["line"].tp == len(prog.races) and sc["line"].fn == 0
    _, pred_l, sc_l = score_program(prog, "lockset", level="variable set")
    assert sc_l["chosen"] == sc_l["variable_set"]
    with pytest.raises(ValueError, match="level='pair'.*allowed values"):
        score_program(prog, "lockset", level="pair")


@claim_case("drpbench_data_races", "C5", "not reproduced",
            alternative="an analyser that abstains on every program with a non-race pair and keeps the others' races")
def _c5_mix():
    """The second review's world: pooled shares read 0 % non-race pairs kept against the lock-free programs' races
    kept, although inside the programs with locks the lockset withdrew races and non-race pairs alike."""
    flag_all = lambda p: list(p.races) + list(p.critical)  # noqa: E731
    return claims.claim5(_study({"all pairs": flag_all,
                                 "lockset": lambda p: [] if p.critical else list(p.races)}), CFG, 0)


# -- the contract's second edition: DRDBench's own scoring, the cleaned non-race pairs, the declared split -----------
def test_drdbench_scoring_by_hand_and_where_ours_differs():
    """DRDBench's released scoring (re-written): an annotation mixing an integer and a list never matches, and a hit
    repeated word for word is a false positive for each extra copy; ours reads the integer as a one-line list and
    does not count the repeat. Elsewhere the two agree."""
    from icmlbook.papers.drpbench_data_races.metrics import drdbench_counts, drdbench_match

    ints = race_from_dict({"shared_variable": "x", "lineA": 3, "lineB": 7})
    lists = race_from_dict({"shared_variable": "x", "lineA": [3, 4], "lineB": [7]})
    mixed = race_from_dict({"shared_variable": "x", "lineA": 3, "lineB": [7, 9]})
    assert ints.listed == (False, False) and lists.listed == (True, True) and mixed.listed == (False, True)
    p, q = R("x", (7,), (3,)), R("x", (4,), (7,))
    assert drdbench_match(p, ints) and match(p, ints) and not drdbench_match(q, ints)
    assert drdbench_match(q, lists) and drdbench_match(p, lists)
    assert not drdbench_match(p, mixed) and match(p, mixed)                  # the mixed form: ours matches, theirs never
    assert drdbench_counts([p], [mixed]) == Counts(0, 1, 1) and line_counts([p], [mixed]) == Counts(1, 0, 0)
    assert drdbench_counts([p, p], [ints]) == Counts(1, 1, 0) and line_counts([p, p], [ints]) == Counts(1, 0, 0)
    swapped = R("x", (3,), (7,))                                             # same lines, other order: distinct
    assert drdbench_counts([p, swapped], [ints]) == Counts(1, 0, 0)
    assert drdbench_counts([p, q], [ints, lists]) == line_counts([p, q], [ints, lists]) == Counts(2, 0, 0)


def test_drdbench_scoring_counts_on_the_benchmark():
    """The benchmark holds annotations of the mixed form (which DRDBench's own scoring can never match); an oracle
    that names every annotated race by its first lines scores 1 under ours and misses exactly those under theirs."""
    from icmlbook.papers.drpbench_data_races.metrics import drdbench_counts

    racy = [p for p in load_benchmark() if p.racy]
    mixed = sum(r.listed[0] != r.listed[1] for p in racy for r in p.races)
    assert mixed > 0
    oracle = {p.name: [R(g.variable, g.a[:1], g.b[:1]) for g in p.races] for p in racy}
    ours = micro(line_counts(oracle[p.name], p.races) for p in racy)
    theirs = micro(drdbench_counts(oracle[p.name], p.races) for p in racy)
    assert ours.f1 == 1.0 and theirs.fn == mixed and theirs.tp == sum(len(p.races) for p in racy) - mixed


def test_line_role_by_hand():
    from icmlbook.papers.drpbench_data_races.data import line_role

    assert line_role("x = x + 1;", "x") == "write" and line_role("y = x + 1;", "x") == "read"
    assert line_role("if (x == 0)", "x") == "read" and line_role("x++;", "x") == "write"
    assert line_role("--x;", "x") == "write" and line_role("scanf(\"%d\", &x);", "x") == "write"
    assert line_role("strcpy(v, \"a\");", "v") == "argument" and line_role("*y = 8;", "*y") == "write"
    assert line_role("d->y += 2;", "d->y") == "write" and line_role("int z = d->y;", "d->y") == "read"
    assert line_role("printf(\"%d\", xx);", "x") is None and line_role("r = a[i];", "a[i]") == "read"


def test_clean_non_race_pairs_by_hand_and_on_the_benchmark():
    """Entries identical to an annotated race and read/read entries leave; a pair with a write, or a line the text
    does not decide, stays. On the vendored benchmark: 262 entries share an annotated race's line pair (the count
    an outside audit found independently)."""
    from icmlbook.papers.drpbench_data_races.data import clean_non_race_pairs

    text = "\n".join(["int x;", "x = 1;", "if (x > 0)", "y = x;", "f(&x);", "g();"])
    prog = Program("c/p.c", text, True, races=(R("x", (2,), (4,)),),
                   critical=(R("x", (4,), (2,)), R("x", (3,), (4,)), R("x", (2,), (3,)), R("x", (3,), (6,)),
                             R("x", (3,), (5,))))
    (out,), rep = clean_non_race_pairs([prog])
    assert (rep.total, rep.same_as_race, rep.read_read, rep.kept) == (5, 1, 1, 3)
    assert [g.key() for g in out.critical] == [((2,), (3,)), ((3,), (6,)), ((3,), (5,))]
    assert out.races == prog.races and out.text == prog.text
    _, full = clean_non_race_pairs(load_benchmark())
    assert full.total == 2114 and full.same_as_race == 262 and 0 < full.read_read < full.total - 262


def test_the_declared_split_is_content_blind_stable_and_balanced():
    from icmlbook.papers.drpbench_data_races.data import SPLITS, split_of

    progs = load_benchmark()
    assert {split_of(p) for p in progs} == set(SPLITS)
    assert all(split_of(p) == split_of(p.name) == split_of(dataclasses.replace(p, text="")) for p in progs[:50])
    for racy in (True, False):
        group = [p for p in progs if p.racy == racy]
        share = sum(split_of(p) == "held-out" for p in group) / len(group)
        assert 0.4 < share < 0.6
    st = PopulationStudy("real", progs[:40], {}, [])
    held, tune = split_study(st, "held-out"), split_study(st, "tuning")
    assert len(held.programs) + len(tune.programs) == 40 and held.population == "real (held-out)"
    with pytest.raises(ValueError, match="allowed values"):
        split_study(st, "train")
