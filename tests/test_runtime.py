"""The shared runtime: profiles, seeding, device, cache, claims ledger, run records, progress."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re

import numpy as np
import pytest

from icmlbook.runtime import (ConfigError, Float, Grid, Int, IntGrid, OneOf, PositiveFloat, Probability, TupleOf,
                              profile_config)
from icmlbook.runtime import (ClaimsLedger, ProfileConfig, cached, check_profile, check_seed, pick_device,
                              progress, rng, seed_everything, start_run,
                              verdict_from)
from icmlbook.runtime.cache import CacheEntry, cache_key
from icmlbook.runtime.context import RECORD_ENV


# -- profiles ---------------------------------------------------------------------------------------
@profile_config
class _Cfg(ProfileConfig):
    n: Int(ge=2) = 10
    lr: PositiveFloat = 0.1


_PRESETS = {"smoke": _Cfg(n=3), "default": _Cfg(), "full": _Cfg(n=100)}


def test_bogus_profile_names_allowed_values():
    with pytest.raises(ValueError, match=r"profile='bogus'.*smoke, default, full"):
        check_profile("bogus")
    with pytest.raises(ValueError, match="profile"):
        _Cfg.for_profile("fast", _PRESETS)


def test_profile_presets_and_overrides():
    assert _Cfg.for_profile("smoke", _PRESETS).n == 3
    assert _Cfg.for_profile("default", _PRESETS, n=7).n == 7
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['m'\]"):
        _Cfg.for_profile("default", _PRESETS, m=1)


@pytest.mark.parametrize("kwargs, field", [({"n": 1}, "n"), ({"n": 2.5}, "n"), ({"lr": 0.0}, "lr"),
                                           ({"lr": float("nan")}, "lr"), ({"n": True}, "n")])
def test_nonsensical_sizes_name_the_parameter(kwargs, field):
    with pytest.raises(ValueError, match=rf"^{field}="):
        _Cfg(**kwargs)


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "0", True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        check_seed(seed)


# -- seeding and device -----------------------------------------------------------------------------
def test_seed_everything_is_reproducible():
    import torch

    g1 = seed_everything(7)
    a = (g1.normal(size=3), np.random.rand(3), torch.randn(3))
    g2 = seed_everything(7)
    b = (g2.normal(size=3), np.random.rand(3), torch.randn(3))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert torch.equal(a[2], b[2])
    assert not np.array_equal(rng(7, 0).normal(size=3), rng(7, 1).normal(size=3))


def test_cpu_threads_scopes_and_restores_the_thread_count():
    import torch

    from icmlbook.runtime import cpu_threads
    before = torch.get_num_threads()
    with cpu_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError):                     # restored on an error too
        with cpu_threads(1):
            raise RuntimeError("boom")
    assert torch.get_num_threads() == before
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="thread count"):
            with cpu_threads(bad):
                pass


_JAX_PROBE = """
import os, sys, threading, time
from icmlbook.runtime.device import start_jax_cpu
cores = os.sched_getaffinity(0)
ready, done = threading.Event(), threading.Event()
own = {}
def pinned():                                   # a thread with cores of its own keeps them
    own["tid"] = threading.get_native_id()
    os.sched_setaffinity(0, {max(cores)})
    ready.set()
    done.wait()
th = threading.Thread(target=pinned)
th.start()
ready.wait()
print(start_jax_cpu())
print(os.sched_getaffinity(own["tid"]) == {max(cores)})
done.set()
th.join()
import jax, jax.numpy as jnp
f = jax.jit(lambda a: (a @ a).sum())
a = jnp.ones((1200, 1200))
f(a).block_until_ready()
w, c = time.perf_counter(), time.process_time()
for _ in range(4):
    f(a).block_until_ready()
print((time.process_time() - c) / (time.perf_counter() - w))
print(all(os.sched_getaffinity(int(t)) == cores for t in os.listdir("/proc/self/task")))
"""


def test_start_jax_cpu_keeps_xla_to_the_allotted_threads():
    """XLA sizes its pool from the cores it may use at start-up: with one thread allotted, a multi-threaded matrix
    product takes no more CPU time than wall time (two threads take about twice), and afterwards every thread of the
    process may run on every core again (the scheduler still balances it)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("jax")
    from icmlbook.runtime.device import start_jax_cpu

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _JAX_PROBE], env=env, capture_output=True, text=True, check=True)
    started, kept, ratio, restored = out.stdout.split()
    assert started == "1" and kept == "True" and restored == "True"
    assert float(ratio) < 1.3, f"CPU/wall {ratio}: XLA ran on more than the one thread allotted"
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="thread count"):
            start_jax_cpu(bad)


def test_device_choice():
    import torch

    assert pick_device("cpu").type == "cpu"
    assert pick_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="allowed values: auto, cpu, cuda"):
        pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA"):
            pick_device("cuda")


# -- cache ------------------------------------------------------------------------------------------
def _produce(n):
    _produce.calls += 1
    return np.arange(n) ** 2


_produce.calls = 0


def test_cache_hits_and_keys(tmp_path):
    _produce.calls = 0
    a = cached("squares", _produce, config={"n": 5}, profile="smoke", args=(5,), directory=tmp_path)
    b = cached("squares", _produce, config={"n": 5}, profile="smoke", args=(5,), directory=tmp_path)
    np.testing.assert_array_equal(a, b)
    assert _produce.calls == 1
    cached("squares", _produce, config={"n": 5}, profile="default", args=(5,), directory=tmp_path)
    assert _produce.calls == 2  # the profile is part of the key
    k1 = cache_key("x", _produce, {"n": 1})
    assert k1 != cache_key("x", _produce, {"n": 2}) and k1 != cache_key("x", rng, {"n": 1})



def test_cache_key_reads_arrays_by_digest(tmp_path):
    """A numeric array or tensor in a key's arguments is read by a digest of dtype, shape and bytes: equal
    contents agree (a copy, a Fortran-ordered copy, a tensor), any change of an element, dtype or shape
    does not: the key tells apart every pair the element-by-element description told apart, and dtypes too."""
    import torch

    from icmlbook.runtime.cache import _canonical

    x = np.random.default_rng(0).normal(size=(3, 5, 4)).astype(np.float32)
    base = cache_key("x", _produce, {"a": x, "n": 1})
    assert cache_key("x", _produce, {"a": x.copy(), "n": 1}) == base
    assert cache_key("x", _produce, {"a": np.asfortranarray(x), "n": 1}) == base
    assert cache_key("x", _produce, {"a": torch.from_numpy(x.copy()), "n": 1}) == base
    changed = x.copy()
    changed[2, 4, 3] = np.nextafter(changed[2, 4, 3], np.float32(np.inf))
    variants = [changed, x.astype(np.float64), x.reshape(5, 3, 4), x[:, :4]]
    keys = {cache_key("x", _produce, {"a": v, "n": 1}) for v in variants}
    assert base not in keys and len(keys) == len(variants)
    for a, b in [(x, changed), (x, x.reshape(5, 3, 4)), (x, x[:, :4]), (x, x.copy())]:
        assert (_canonical(a) == _canonical(b)) == (_canonical(a, True) == _canonical(b, True))
    # stricter in one respect: the same values in another dtype are another key (element by element they were one)
    assert _canonical(x) == _canonical(x.astype(np.float64)) and _canonical(x, True) != _canonical(x.astype(np.float64), True)
    # inside dataclasses and dicts too; what NumPy cannot hold (bfloat16) and non-numeric arrays element by element
    assert _canonical({"k": [x]}, True)["k"][0]["__array__"] == "<f4"
    bf = torch.ones(3, dtype=torch.bfloat16)
    assert _canonical(bf, True) == ["1.0", "1.0", "1.0"] == _canonical(bf)
    assert _canonical(np.array(["a", "b"]), True) == ["a", "b"]
    # the trainer's fingerprints keep the element-by-element description
    assert _canonical(np.arange(3)) == [0, 1, 2]
    # a cached call with array arguments hits on equal contents and misses on a changed one
    _produce.calls = 0
    for arr in (x, x.copy(), changed):
        cached("arr", _produce, config={"a": arr}, profile="smoke", args=(3,), directory=tmp_path)
    assert _produce.calls == 2

def _write_package(root, name, files):
    pkg = root / name
    pkg.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    return pkg


@pytest.fixture
def fixture_packages(tmp_path, monkeypatch):
    """Two throwaway packages on ``sys.path``: ``kchapter`` (a producer in ``experiments.py`` calling a helper
    in ``helpers.py``, plus a subpackage) and an unrelated ``kother``."""
    import importlib
    import sys

    chapter = _write_package(tmp_path, "kchapter", {
        "__init__.py": "",
        "helpers.py": "def scale(x):\n    return 2 * x\n",
        "sub/__init__.py": "",
        "sub/deep.py": "OFFSET = 0\n",
        "experiments.py": "from .helpers import scale\n\ndef produce(n):\n    return [scale(i) for i in range(n)]\n",
    })
    other = _write_package(tmp_path, "kother", {"__init__.py": "", "tools.py": "A = 1\n", "labels.py": (
        "CALLS = []\n\ndef labelled(n, label='none'):\n    CALLS.append(n)\n    return {'n': n, 'label': label}\n")})
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield chapter, other
    for mod in [m for m in sys.modules if m.split(".")[0] in ("kchapter", "kother")]:
        del sys.modules[mod]


def test_cache_key_covers_every_module_of_the_package(fixture_packages):
    import importlib

    chapter, other = fixture_packages
    produce = importlib.import_module("kchapter.experiments").produce
    importlib.import_module("kother")
    k0 = cache_key("x", produce, {"n": 3})
    assert cache_key("x", produce, {"n": 3}) == k0  # deterministic
    # an unrelated package changing is not a new key
    (other / "tools.py").write_text("A = 2\n")
    (other / "new.py").write_text("B = 3\n")
    assert cache_key("x", produce, {"n": 3}) == k0
    # a helper the producer's module imports, never named anywhere, is
    (chapter / "helpers.py").write_text("def scale(x):\n    return 3 * x\n")
    k1 = cache_key("x", produce, {"n": 3})
    assert k1 != k0
    # so is a module deep in a subpackage, and a new module of the package
    (chapter / "sub" / "deep.py").write_text("OFFSET = 1\n")
    k2 = cache_key("x", produce, {"n": 3})
    (chapter / "added.py").write_text("")
    k3 = cache_key("x", produce, {"n": 3})
    assert len({k0, k1, k2, k3}) == 4
    # and naming the package as a chapter adds it to a producer from elsewhere
    labelled = importlib.import_module("kother.labels").labelled
    assert cache_key("x", labelled, {"n": 3}, chapter="grokking") != cache_key("x", labelled, {"n": 3})


def test_cache_key_packages_and_versions(monkeypatch):
    from icmlbook.papers.grokking import experiments, linear
    from icmlbook.runtime import cache as cache_mod

    assert cache_mod.package_of("icmlbook.papers.grokking.linear") == "icmlbook.papers.grokking"
    assert cache_mod.package_of("icmlbook.runtime.cache") == "icmlbook.runtime"
    assert cache_mod.package_of("kchapter.sub.deep") == "kchapter"
    # grokking imports icmlbook.training (its network's trainer); LOES does too
    assert cache_mod.key_packages(experiments.eta_lam_grid) == ["icmlbook.papers.grokking", "icmlbook.runtime",
                                                                "icmlbook.training"]
    assert cache_mod.key_packages(linear.spiked_gaussian_design, chapter="loes_layer_geometry") == [
        "icmlbook.papers.grokking", "icmlbook.papers.loes_layer_geometry", "icmlbook.runtime", "icmlbook.training"]
    files = {rel for rel, _ in cache_mod._package_files("icmlbook.papers.grokking")}
    assert {"linear.py", "config.py", "__init__.py"} <= files

    # a function defined in a notebook is keyed over the chapter packages it refers to
    import icmlbook.papers.grokking as gk

    def notebook_producer(n):
        return gk.config_for("smoke") if n else None

    notebook_producer.__module__ = "__main__"
    assert "icmlbook.papers.grokking" in cache_mod.key_packages(notebook_producer)
    # the numerical libraries' versions are part of the key
    k0 = cache_key("x", _produce, {"n": 1})
    real = cache_mod.library_versions()
    assert set(real) == {"torch", "numpy", "scipy"} and all(real.values())
    monkeypatch.setattr(cache_mod, "library_versions", lambda: {**real, "numpy": "0.0.0"})
    assert cache_key("x", _produce, {"n": 1}) != k0


def test_cache_key_follows_the_book_packages_a_package_imports(fixture_packages, monkeypatch):
    import importlib

    from icmlbook.runtime import cache as cache_mod

    # relative and absolute imports, at the top or inside a function, resolve to the packages they name
    src = b"from ...training import Trainer\nfrom . import linear\ndef f():\n    from ... import lm\n    import icmlbook.pipeline.site\n"
    assert cache_mod._book_imports("icmlbook.papers.grokking.nn", False, src) == {
        "icmlbook.training", "icmlbook.papers.grokking", "icmlbook.lm", "icmlbook.pipeline"}
    assert cache_mod._book_imports("icmlbook.papers.grokking", True, b"from .linear import x\nfrom ...runtime import y\n") == {
        "icmlbook.papers.grokking", "icmlbook.runtime"}
    # the real tree: grokking's network trains with icmlbook.training, so the shared trainer keys its artefacts
    from icmlbook.papers.grokking import experiments

    assert "icmlbook.training" in cache_mod.key_packages(experiments.nn_grid)
    # a package whose helper imports a book package is keyed over it (transitively), and only over it
    chapter, _ = fixture_packages
    (chapter / "helpers.py").write_text("from icmlbook.papers.grokking import linear\n\ndef scale(x):\n    return 2 * x\n")
    produce = importlib.import_module("kchapter.experiments").produce
    assert cache_mod.key_packages(produce) == ["icmlbook.papers.grokking", "icmlbook.runtime", "icmlbook.training", "kchapter"]
    digests = {}
    real = cache_mod.package_digest
    monkeypatch.setattr(cache_mod, "package_digest", lambda pkg: digests.get(pkg, "") + real(pkg))
    k0 = cache_key("x", produce, {"n": 1})
    digests["icmlbook.lm"] = "edited"
    assert cache_key("x", produce, {"n": 1}) == k0
    digests["icmlbook.training"] = "edited"
    assert cache_key("x", produce, {"n": 1}) != k0


def test_cache_rebuilds_after_a_helper_changes(fixture_packages, tmp_path):
    import importlib

    chapter, _ = fixture_packages
    produce = importlib.import_module("kchapter.experiments").produce
    calls = []

    def counted(n):
        calls.append(n)
        return produce(n)

    counted.__module__ = "kchapter.experiments"  # a producer of that package
    cached("fx", counted, config={"n": 2}, args=(2,), directory=tmp_path / "c")
    cached("fx", counted, config={"n": 2}, args=(2,), directory=tmp_path / "c")
    assert len(calls) == 1
    (chapter / "helpers.py").write_text("def scale(x):\n    return 5 * x\n")
    cached("fx", counted, config={"n": 2}, args=(2,), directory=tmp_path / "c")
    assert len(calls) == 2


def test_run_cached_keys_profile_seed_and_the_chapter_package(fixture_packages, tmp_path, monkeypatch):
    import importlib

    from icmlbook.runtime import Run
    from icmlbook.runtime import cache as cache_mod

    labels = importlib.import_module("kother.labels")  # a producer in a package that imports no book package

    monkeypatch.setenv("ICMLBOOK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ICMLBOOK_NO_CACHE", raising=False)
    digests = {}
    real_digest = cache_mod.package_digest
    monkeypatch.setattr(cache_mod, "package_digest", lambda pkg: digests.get(pkg, "") + real_digest(pkg))
    run = Run("grokking", "smoke", 0)
    # name and fn are positional-only: a keyword called ``name`` goes to fn
    assert run.cached("lab", labels.labelled, 3, label="a") == {"n": 3, "label": "a"}
    assert run.cached("lab", labels.labelled, 3, label="a") == {"n": 3, "label": "a"}
    assert len(labels.CALLS) == 1
    run.cached("lab", labels.labelled, 3, label="b")
    run.cached("lab", labels.labelled, 4, label="a")
    assert len(labels.CALLS) == 3  # arguments are in the key
    Run("grokking", "smoke", 1).cached("lab", labels.labelled, 3, label="a")
    Run("grokking", "default", 0).cached("lab", labels.labelled, 3, label="a")
    assert len(labels.CALLS) == 5  # so are the seed and the profile
    digests["icmlbook.papers.ftrl_preference_graphs"] = "edited"  # another chapter's package changes: still a hit
    run.cached("lab", labels.labelled, 3, label="a")
    assert len(labels.CALLS) == 5
    digests["icmlbook.papers.grokking"] = "edited"  # this chapter's package changes: computed again
    run.cached("lab", labels.labelled, 3, label="a")
    assert len(labels.CALLS) == 6
    assert len(list((tmp_path / "lab").glob("*.pkl"))) == 6
    # the off switch the executor and the tests use
    monkeypatch.setenv("ICMLBOOK_NO_CACHE", "1")
    run.cached("lab", labels.labelled, 3, label="a")
    run.cached("lab", labels.labelled, 3, label="a")
    assert len(labels.CALLS) == 8 and len(list((tmp_path / "lab").glob("*.pkl"))) == 6


_DRAWS = """
import os

import torch


def seeded_draw(seed, n):
    # seeded draws through a BLAS product, and where and how they ran
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, n, generator=g, dtype=torch.float64)
    return {"x": (a @ a.T).sum(0), "pid": os.getpid(), "threads": torch.get_num_threads()}


def fails(seed):
    raise ValueError(f"seed {seed} is cursed")
"""


@pytest.fixture
def draws(tmp_path, monkeypatch):
    """A throwaway package ``kdraw`` on ``sys.path`` (a spawned worker process imports it from there)."""
    import importlib
    import sys

    _write_package(tmp_path / "pkgs", "kdraw", {"__init__.py": "", "draws.py": _DRAWS})
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    importlib.invalidate_caches()
    yield importlib.import_module("kdraw.draws")
    for mod in [m for m in sys.modules if m.split(".")[0] == "kdraw"]:
        del sys.modules[mod]


def test_cached_many_parallel_equals_serial_and_fills_the_cache(draws, tmp_path, monkeypatch):
    import os

    import torch

    from icmlbook.runtime import Run, cached_many

    monkeypatch.delenv("ICMLBOOK_NO_CACHE", raising=False)
    jobs = [("draw", draws.seeded_draw, s, 40) for s in (0, 1, 2)]
    serial = cached_many(jobs, workers=1, directory=tmp_path / "serial")
    assert {v["pid"] for v in serial} == {os.getpid()}                 # one worker: run here, in order
    par = cached_many(jobs, workers=2, directory=tmp_path / "par")
    assert all(v["pid"] != os.getpid() and v["threads"] == 1 for v in par)  # fresh processes, one thread each
    assert len({v["pid"] for v in par}) <= 2                           # at most two workers
    for a, b, s in zip(serial, par, (0, 1, 2)):
        assert torch.equal(a["x"], b["x"]) and torch.equal(a["x"], draws.seeded_draw(s, 40)["x"])
    assert len(list((tmp_path / "par").glob("*.pkl"))) == 3            # each worker stored its entry
    again = cached_many(jobs, workers=2, directory=tmp_path / "par")   # all cached: read here, no process
    assert [v["pid"] for v in again] == [v["pid"] for v in par]
    # one missing entry: computed here even with two workers (no pool for a single job)
    gone = next((tmp_path / "par").glob("*.pkl"))
    gone.unlink()
    gone.with_suffix(".json").unlink()
    mixed = cached_many(jobs, workers=2, directory=tmp_path / "par")
    assert sum(v["pid"] == os.getpid() for v in mixed) == 1
    # Run.cached_many keys like Run.cached: same entries, same values
    monkeypatch.setenv("ICMLBOOK_CACHE_DIR", str(tmp_path / "run"))
    run = Run("grokking", "smoke", 0)
    one = run.cached("draw", draws.seeded_draw, 5, 30)
    both = run.cached_many([("draw", draws.seeded_draw, 5, 30), ("draw", draws.seeded_draw, 6, 30)], workers=2)
    assert both[0]["pid"] == one["pid"] == os.getpid() and both[1]["pid"] == os.getpid()


def test_cached_many_names_the_failing_artefact_and_refuses_bad_input(draws, tmp_path, monkeypatch):
    from icmlbook.runtime import cached_many
    from icmlbook.runtime.cache import allotted_threads

    monkeypatch.setenv("ICMLBOOK_NO_CACHE", "1")    # the off switch holds in the workers too: nothing stored
    with pytest.raises(RuntimeError, match="'bad'.*ValueError: seed 3 is cursed"):
        cached_many([("ok", draws.seeded_draw, 0, 4), ("bad", draws.fails, 3)], workers=2, directory=tmp_path / "o")
    assert not (tmp_path / "o").exists()
    with pytest.raises(ValueError, match="seed 3 is cursed"):            # serially: the producer's own error
        cached_many([("bad", draws.fails, 3)], workers=1, directory=tmp_path)
    for workers in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="workers="):
            cached_many([("ok", draws.seeded_draw, 0, 4)], workers=workers)
    with pytest.raises(ValueError, match="a job must be"):
        cached_many([("ok", 3)])
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert allotted_threads() == 3
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    assert allotted_threads() >= 1


_SWEEP = """
import os
import time

import numpy as np


def item(i, seed):
    # one item of a sweep: leaves a marker per execution (KSWEEP_LOG), fails at item KSWEEP_FAIL_AT, sleeps
    # KSWEEP_SLEEP seconds; its value depends only on its arguments
    log = os.environ.get("KSWEEP_LOG")
    if log:
        open(os.path.join(log, f"ran-{i}-{os.getpid()}-{time.perf_counter_ns()}"), "w").close()
    if os.environ.get("KSWEEP_FAIL_AT") == str(i):
        raise RuntimeError(f"interrupted at item {i}")
    time.sleep(float(os.environ.get("KSWEEP_SLEEP", "0")))
    return {"i": i, "value": np.random.default_rng([seed, i]).normal(size=4)}
"""


@pytest.fixture
def sweep(tmp_path, monkeypatch):
    """A throwaway package ``ksweep`` (a spawned worker or a child process imports it from ``sys.path``)."""
    import importlib
    import sys

    _write_package(tmp_path / "pkgs", "ksweep", {"__init__.py": "", "items.py": _SWEEP})
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.delenv("ICMLBOOK_NO_CACHE", raising=False)
    importlib.invalidate_caches()
    yield importlib.import_module("ksweep.items")
    for mod in [m for m in sys.modules if m.split(".")[0] == "ksweep"]:
        del sys.modules[mod]


def _ran(log) -> list[int]:
    return sorted(int(p.name.split("-")[1]) for p in log.glob("ran-*"))


def _stored(jobs, directory) -> set[int]:
    from icmlbook.runtime.cache import _entry_for

    return {i for i, (name, fn, *args) in enumerate(jobs)
            if _entry_for(name, fn, None, None, tuple(args), {}, None, directory).payload.exists()}


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_sweep_resumes_where_it_stopped(sweep, tmp_path, monkeypatch, workers):
    """A sweep whose item k fails (an exception) keeps every item that finished; the re-run computes only the
    missing ones, and its values equal an uninterrupted run's."""
    from icmlbook.runtime import cached_many

    n, k = 8, 5
    jobs = [("sweep-item", sweep.item, i, 7) for i in range(n)]
    reference = cached_many(jobs, workers=1, directory=tmp_path / "reference")
    log = tmp_path / f"log{workers}"
    log.mkdir()
    monkeypatch.setenv("KSWEEP_LOG", str(log))
    monkeypatch.setenv("KSWEEP_FAIL_AT", str(k))
    with pytest.raises(RuntimeError, match=f"interrupted at item {k}"):
        cached_many(jobs, workers=workers, directory=tmp_path / "sweep")
    stored = _stored(jobs, tmp_path / "sweep")
    assert k not in stored and len(stored) >= (k if workers == 1 else 1)
    if workers == 1:
        assert stored == set(range(k)) and _ran(log) == list(range(k + 1))   # in order, up to the failure
    for f in log.iterdir():
        f.unlink()
    monkeypatch.delenv("KSWEEP_FAIL_AT")
    resumed = cached_many(jobs, workers=workers, directory=tmp_path / "sweep")
    assert _ran(log) == sorted(set(range(n)) - stored)                    # only the missing items ran
    assert [r["i"] for r in resumed] == list(range(n))
    for a, b in zip(resumed, reference):
        assert np.array_equal(a["value"], b["value"])


def test_a_killed_sweep_resumes_where_it_stopped(sweep, tmp_path, monkeypatch):
    """The same after a SIGKILL mid-sweep (the process gets no chance to clean up): finished items are kept."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from icmlbook.runtime import cached_many

    n = 10
    jobs = [("sweep-item", sweep.item, i, 7) for i in range(n)]
    reference = cached_many(jobs, workers=1, directory=tmp_path / "reference")
    log = tmp_path / "log"
    log.mkdir()
    script = ("import sys\nfrom icmlbook.runtime import cached_many\nimport ksweep.items as s\n"
              f"cached_many([('sweep-item', s.item, i, 7) for i in range({n})], workers=1, directory=sys.argv[1])\n")
    env = dict(os.environ, KSWEEP_LOG=str(log), KSWEEP_SLEEP="0.4",
               PYTHONPATH=os.pathsep.join([str(tmp_path / "pkgs"), *sys.path]))
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "sweep")], env=env)
    deadline = time.monotonic() + 120
    while len(_ran(log)) < 4 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    stored = _stored(jobs, tmp_path / "sweep")
    assert 3 <= len(stored) < n and stored == set(range(len(stored)))       # the items before the kill
    for f in log.iterdir():
        f.unlink()
    monkeypatch.setenv("KSWEEP_LOG", str(log))
    resumed = cached_many(jobs, workers=1, directory=tmp_path / "sweep")
    assert _ran(log) == sorted(set(range(n)) - stored)
    for a, b in zip(resumed, reference):
        assert np.array_equal(a["value"], b["value"])


def test_progress_and_finished_artefacts_tick_the_executor_heartbeat(tmp_path, monkeypatch):
    """Under the executor, every item a progress bar passes (shown or not), every finished cached artefact and
    every printed line (pipeline) append to $ICMLBOOK_HEARTBEAT, at most once a second; outside, nothing."""
    import importlib

    from icmlbook.runtime import heartbeat

    progress_mod = importlib.import_module("icmlbook.runtime.progress")  # the module, not the function

    beats = tmp_path / "beats"
    monkeypatch.delenv("ICMLBOOK_HEARTBEAT", raising=False)
    progress_mod._last_beat[0] = float("-inf")
    list(progress(range(3), disable=True))
    assert not beats.exists()
    monkeypatch.setenv("ICMLBOOK_HEARTBEAT", str(beats))
    assert list(progress(range(50), disable=True)) == list(range(50))
    assert beats.read_bytes() == b"."                                   # throttled: one tick within a second
    progress_mod._last_beat[0] = float("-inf")
    assert list(progress(iter(range(3)), desc="x")) == [0, 1, 2]
    assert beats.read_bytes() == b".."
    progress_mod._last_beat[0] = float("-inf")
    cached("ticked", _produce, args=(3,), directory=tmp_path / "c")
    assert beats.read_bytes() == b"..."                                 # a stored artefact
    progress_mod._last_beat[0] = float("-inf")
    cached("ticked", _produce, args=(3,), directory=tmp_path / "c")
    assert beats.read_bytes() == b"...."                                # and one read back
    for _ in range(5):
        heartbeat(min_interval=0)
    assert len(beats.read_bytes()) == 9
    monkeypatch.setenv("ICMLBOOK_HEARTBEAT", str(tmp_path / "no" / "such" / "dir" / "beats"))
    heartbeat(min_interval=0)                                           # never raises


@pytest.mark.parametrize("damage", ["truncate", "flip", "manifest", "delete_manifest"])
def test_corrupt_entry_is_rebuilt_never_used(tmp_path, damage):
    _produce.calls = 0
    cached("squares", _produce, config={"n": 6}, args=(6,), directory=tmp_path)
    payload = next(tmp_path.glob("*.pkl"))
    manifest = next(tmp_path.glob("*.json"))
    if damage == "truncate":
        payload.write_bytes(payload.read_bytes()[:10])
    elif damage == "flip":
        data = bytearray(payload.read_bytes())
        data[-5] ^= 0xFF
        payload.write_bytes(bytes(data))
    elif damage == "manifest":
        manifest.write_text("{not json")
    else:
        manifest.unlink()
    with pytest.warns(RuntimeWarning, match="rebuilding"):
        again = cached("squares", _produce, config={"n": 6}, args=(6,), directory=tmp_path)
    np.testing.assert_array_equal(again, np.arange(6) ** 2)
    assert _produce.calls == 2
    # and the rebuilt entry verifies
    entry = CacheEntry(payload.stem, tmp_path)
    np.testing.assert_array_equal(entry.load(), np.arange(6) ** 2)


def test_cache_write_is_atomic(tmp_path, monkeypatch):
    """A crash while writing leaves no entry behind (no temporary file taken for an entry)."""
    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pickle, "dumps", lambda *a, **k: b"x" * 100)
    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        cached("squares", _produce, config={"n": 2}, args=(2,), directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


# -- claims ledger ----------------------------------------------------------------------------------
def test_verdicts_are_computed():
    assert verdict_from(True) == "reproduced"
    assert verdict_from(False) == "not reproduced"
    assert verdict_from(None) == "not testable at this profile"
    ledger = ClaimsLedger("demo", "smoke")
    ledger.add("A", statement="s", rule="x > 1", measured="2", passed=2 > 1)
    ledger.add("B", statement="s", rule="x > 3", measured="2", passed=bool(np.float64(2) > 3))
    ledger.add("C", statement="s", rule="needs a GPU", measured="—", passed=None, reason="paper scale")
    assert [c.verdict for c in ledger.claims] == ["reproduced", "not reproduced", "not testable at this profile"]
    assert ledger.counts() == {"reproduced": 1, "not reproduced": 1, "inconclusive at this scale": 0,
                               "not testable at this profile": 1}
    html = ledger._repr_html_()
    assert html.count("<tr") == 4 and html.count('<tr id="claim-demo-') == 3 and "claims-table" in html
    assert json.loads(ledger.to_json())["claims"][1]["verdict"] == "not reproduced"
    assert ledger.to_markdown().count("\n") == 4
    timed = ledger.add("D", statement="s", rule="t < 1 s", measured="0.3 s", passed=True, timed=True)
    assert timed.timed and "varies between runs" in timed.measured


def test_claims_ledger_rejects_bad_input():
    ledger = ClaimsLedger("demo")
    ledger.add("A", statement="s", rule="r", measured="m", passed=np.bool_(True))
    with pytest.raises(ValueError, match="already"):
        ledger.add("A", statement="s", rule="r", measured="m", passed=True)
    with pytest.raises(ValueError, match="reason"):
        ledger.add("B", statement="s", rule="r", measured="m", passed=None)
    with pytest.raises(TypeError):
        ledger.add("C", statement="s", rule="r", measured="m", passed="yes")


# -- run records ------------------------------------------------------------------------------------
def test_run_record_written_for_the_executor(tmp_path, monkeypatch):
    target = tmp_path / "rec.json"
    monkeypatch.setenv(RECORD_ENV, str(target))
    run = start_run("demo", profile="smoke", seed=3)
    ledger = ClaimsLedger("demo", "smoke")
    ledger.add("A", statement="s", rule="r", measured="1", passed=True)
    run.finish(ledger)
    rec = json.loads(target.read_text())
    for key in ("chapter", "profile", "seed", "device", "kernel_seconds", "peak_memory_mb", "versions", "commit",
                "claims"):
        assert key in rec
    assert rec["profile"] == "smoke" and rec["seed"] == 3 and rec["peak_memory_mb"] > 10
    assert rec["versions"]["numpy"] == np.__version__
    assert rec["claims"][0]["verdict"] == "reproduced"
    assert "Provenance" in run.provenance()._repr_html_()
    with pytest.raises(ValueError, match="profile"):
        start_run("demo", profile="huge", seed=0)


def test_progress_yields_everything(capsys):
    assert list(progress(range(5), desc="counting")) == [0, 1, 2, 3, 4]
    assert list(progress(iter([1, 2]), disable=True)) == [1, 2]


# -- declarative configs ---------------------------------------------------------------------------


@profile_config
class _Decl(ProfileConfig):
    n: Int(ge=2) = 10
    k: Int(ge=1, le=9) = 1
    lr: PositiveFloat = 0.1
    drop: Probability = 0.0
    frac: Float(gt=0, lt=1) = 0.5
    grid: Grid(gt=0, min_len=2) = (0.5, 1.0)
    sizes: IntGrid(ge=3, unique=False) = (3, 3)
    opt: OneOf("adamw", "gd") = "adamw"
    tasks: TupleOf(OneOf("a", "b")) = ("a",)
    flag: bool = True
    path: str = ""

    def validate(self):
        if not self.k < self.n:
            raise ValueError(f"k={self.k!r} is not allowed; it must be < n={self.n}")


_DECL_PRESETS = {"smoke": _Decl(n=3), "default": _Decl(), "full": _Decl(n=100)}


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 1}, "n=1 is not allowed; n must be an integer >= 2"),
    ({"n": True}, "n=True is not allowed; n must be an integer >= 2; got bool"),
    ({"n": 2.0}, "n=2.0 is not allowed; n must be an integer >= 2; got float"),
    ({"n": "3"}, "n='3' is not allowed; n must be an integer >= 2; got str"),
    ({"k": 10}, "k=10 is not allowed; k must be an integer in [1, 9]"),
    ({"lr": 0.0}, "lr=0.0 is not allowed; lr must be a finite real number > 0"),
    ({"lr": float("nan")}, "lr=nan is not allowed; lr must be a finite real number > 0"),
    ({"lr": float("inf")}, "lr=inf is not allowed; lr must be a finite real number > 0"),
    ({"lr": "0.1"}, "lr='0.1' is not allowed; lr must be a finite real number > 0; got str"),
    ({"lr": False}, "lr=False is not allowed; lr must be a finite real number > 0; got bool"),
    ({"drop": 1.5}, "drop=1.5 is not allowed; drop must be a finite real number in [0, 1]"),
    ({"frac": 1.0}, "frac=1.0 is not allowed; frac must be a finite real number in (0, 1)"),
    ({"grid": (1.0,)}, "grid=(1.0,) is not allowed; grid must be a tuple of at least 2 distinct entries, "
                       "each a finite real number > 0; it has 1"),
    ({"grid": (1.0, -1.0)}, "grid=(1.0, -1.0) is not allowed; grid must be a tuple of at least 2 distinct "
                            "entries, each a finite real number > 0; entry 1 is -1.0"),
    ({"grid": (1.0, 1.0)}, "grid=(1.0, 1.0) is not allowed; grid must be a tuple of at least 2 distinct entries, "
                           "each a finite real number > 0; it repeats 1.0"),
    ({"grid": [1.0, 2.0]}, "grid=[1.0, 2.0] is not allowed; grid must be a tuple of at least 2 distinct entries, "
                           "each a finite real number > 0; got list"),
    ({"sizes": (3, 2.5)}, "sizes=(3, 2.5) is not allowed; sizes must be a tuple of one or more entries, "
                          "each an integer >= 3; entry 1 is 2.5"),
    ({"opt": "sgd"}, "opt='sgd' is not allowed; opt must be one of 'adamw', 'gd'"),
    ({"tasks": ("a", "c")}, "tasks=('a', 'c') is not allowed; tasks must be a tuple of one or more distinct "
                            "entries, each one of 'a', 'b'; entry 1 is 'c'"),
    ({"flag": 1}, "flag=1 is not allowed; flag must be True or False; got int"),
    ({"path": 3}, "path=3 is not allowed; path must be a string; got int"),
    ({"k": 5, "n": 4}, "k=5 is not allowed; it must be < n=4"),
])
def test_declared_constraints_raise_plain_messages(kwargs, message):
    with pytest.raises(ValueError) as err:
        _Decl(**kwargs)
    assert str(err.value) == message
    assert isinstance(err.value, ConfigError)
    with pytest.raises(ConfigError) as again:  # the same through dataclasses.replace and for_profile
        dataclasses.replace(_DECL_PRESETS["default"], **kwargs)
    assert str(again.value) == message
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        _Decl.for_profile("default", _DECL_PRESETS, **kwargs)


def test_declared_config_reports_every_bad_field_and_checks_defaults():
    with pytest.raises(ConfigError) as err:
        _Decl(n=1, lr=-1.0)
    assert str(err.value).splitlines() == ["n=1 is not allowed; n must be an integer >= 2",
                                           "lr=-1.0 is not allowed; lr must be a finite real number > 0"]
    with pytest.raises(ConfigError, match=r"^unknown parameter 'm' for _Decl; allowed: drop, flag"):
        _Decl(m=3)
    with pytest.raises(ConfigError, match=r"^n=1 is not allowed"):
        @profile_config
        class _BadDefault(ProfileConfig):
            n: Int(ge=2) = 1

        _BadDefault()


def test_nested_tuples_and_optional_fields_are_described():
    @profile_config
    class _Shapes(ProfileConfig):
        shapes: TupleOf(TupleOf(Int(ge=2), min_len=2, unique=False)) = ((3, 3), (2, 2, 2))
        cap: Int(ge=1) | None = None

    assert _Shapes(cap=4).cap == 4 and _Shapes().shapes == ((3, 3), (2, 2, 2))
    with pytest.raises(ConfigError) as err:
        _Shapes(shapes=((3, 3), (2, 1)))
    assert str(err.value) == ("shapes=((3, 3), (2, 1)) is not allowed; shapes must be a tuple of one or more distinct "
                              "entries, each a tuple of at least 2 entries, each an integer >= 2; entry 1[1] is 1")
    with pytest.raises(ConfigError, match=r"; it repeats \(3, 3\)$"):
        _Shapes(shapes=((3, 3), (3, 3)))
    with pytest.raises(ConfigError, match=r"^cap=0 is not allowed; cap must be an integer >= 1, or None"):
        _Shapes(cap=0)


def test_declared_config_is_a_frozen_dataclass():
    cfg = _Decl.for_profile("smoke", _DECL_PRESETS, lr=1)
    assert cfg.n == 3 and cfg.lr == 1.0 and isinstance(cfg.lr, float)  # an int is a fine float
    from_numpy = _Decl(n=np.int64(4), lr=np.float64(0.5), sizes=tuple(np.arange(3, 5)))
    assert (from_numpy.n, from_numpy.lr, from_numpy.sizes) == (4, 0.5, (3, 4))
    assert type(from_numpy.n) is int and type(from_numpy.sizes[0]) is int and type(from_numpy.lr) is float
    with pytest.raises(ConfigError, match=r"^flag=np.True_ is not allowed"):
        _Decl(flag=np.bool_(True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.n = 4
    assert dataclasses.replace(cfg, n=7).n == 7 and cfg.n == 3
    assert [f.name for f in dataclasses.fields(cfg)][:3] == ["n", "k", "lr"]
    assert cfg.as_dict() == {"n": 3, "k": 1, "lr": 1.0, "drop": 0.0, "frac": 0.5, "grid": (0.5, 1.0),
                             "sizes": (3, 3), "opt": "adamw", "tasks": ("a",), "flag": True, "path": ""}
    assert pickle.loads(pickle.dumps(cfg)) == cfg
    assert cache_key("c", _produce, cfg) == cache_key("c", _produce, dataclasses.replace(cfg))
    assert cache_key("c", _produce, cfg) != cache_key("c", _produce, dataclasses.replace(cfg, n=4))
    with pytest.raises(ValueError, match="profile='huge'"):
        _Decl.for_profile("huge", _DECL_PRESETS)


def test_a_config_not_declared_with_profile_config_refuses_to_build():
    @dataclasses.dataclass(frozen=True)
    class Plain(ProfileConfig):
        n: int = 1

    with pytest.raises(TypeError, match="Plain must be declared with @profile_config"):
        Plain()

    @dataclasses.dataclass(frozen=True)
    class Sub(_Cfg):  # a subclass that adds fields without declaring them
        extra: int = 0

    with pytest.raises(TypeError, match="Sub must be declared with @profile_config"):
        Sub()


def test_every_chapter_config_is_declarative():
    import importlib
    import inspect
    from pathlib import Path

    import icmlbook

    found = []
    for config in sorted(Path(icmlbook.__file__).parent.glob("papers/*/config.py")):
        module = importlib.import_module(f"icmlbook.papers.{config.parent.name}.config")
        for cls in vars(module).values():
            if inspect.isclass(cls) and issubclass(cls, ProfileConfig) and cls.__module__ == module.__name__:
                assert "__pydantic_fields__" in vars(cls), f"{cls.__qualname__} is not declared with @profile_config"
                found.append(cls.__qualname__)
    assert "GrokkingConfig" in found and len(found) >= 5


# -- the claims registry -----------------------------------------------------------------------------
def _exponent_rule():
    """A throw-away rule declared under a fixture chapter name (not a real chapter)."""
    from icmlbook.runtime.claims import ClaimCheck, claim_rule

    @claim_rule("X1", statement="t scales as 1/(eta*lam)", rule="95% CI of the exponent contains -1 and excludes -0.9",
                rejects="exponent -0.9", paper="not reached", chapter="_registry_fixture")
    def exponent(lo: float, hi: float) -> ClaimCheck:
        ok = lo <= -1.0 <= hi and not lo <= -0.9 <= hi
        return ClaimCheck(f"[{lo}, {hi}]", bool(ok))

    return exponent


def test_registered_rule_fills_the_ledger_row():
    from icmlbook.runtime.claims import ClaimCheck, ClaimsLedger, rule_for

    exponent = _exponent_rule()
    check = exponent(-1.02, -0.98)
    assert check.rule_id == "_registry_fixture:X1" and check.verdict == "reproduced"
    ledger = ClaimsLedger("_registry_fixture")
    row = ledger.add_check(check)
    assert (row.statement, row.rejects, row.paper_value) == ("t scales as 1/(eta*lam)", "exponent -0.9", "not reached")
    assert ledger.unregistered() == []
    assert "rejects:" in ledger._repr_html_() and "exponent -0.9" in ledger.to_markdown()
    assert rule_for("_registry_fixture:X1").testable
    assert "rejects: exponent -0.9" in check.sentence()
    # a row added by hand is visible as unregistered; another chapter's check is refused
    ledger.add("Y", statement="s", rule="r", measured="m", passed=True)
    assert ledger.unregistered() == ["Y"]
    with pytest.raises(ValueError, match="belongs to chapter"):
        ClaimsLedger("other").add_check(check)
    with pytest.raises(ValueError, match="registered rule"):
        ledger.add_check(ClaimCheck("m", True))


def test_case_problems_catch_an_untested_or_wrong_rule():
    from icmlbook.runtime.claims import CASES, case_problems, claim_case, rule_for

    exponent = _exponent_rule()
    rule = rule_for("_registry_fixture:X1")
    CASES.pop(rule.key, None)
    assert len(case_problems(rule, require_trivial=False)) == 2  # neither case declared
    assert len(case_problems(rule)) == 3  # nor the trivial method's case

    @claim_case("_registry_fixture", "X1", "reproduced")
    def ok():
        return exponent(-1.05, -0.95)

    @claim_case("_registry_fixture", "X1", "not reproduced", alternative="exponent -0.9")
    def alt():
        return exponent(-1.05, -0.95)  # a case that does not actually reach the alternative world

    problems = case_problems(rule, require_trivial=False)
    assert len(problems) == 1 and "alt" in problems[0] and "expected 'not reproduced'" in problems[0]

    @claim_case("_registry_fixture", "X1", "not reproduced", alternative="exponent -0.9")
    def alt():  # noqa: F811  (re-declaring a case replaces it)
        return exponent(-0.92, -0.88)

    assert case_problems(rule, require_trivial=False) == []
    assert any("trivial" in p for p in case_problems(rule))

    # rule 11: the nearest trivial method's real output is run through the rule and must not pass
    @claim_case("_registry_fixture", "X1", "not reproduced", trivial="a least-squares fit of pure noise")
    def trivial():
        rng = np.random.default_rng(0)
        x = np.log(np.arange(1, 41.0))
        y = rng.normal(size=x.size)  # no scaling law at all: the slope's interval sits near 0
        from icmlbook.runtime.stats import ols_slope_interval
        fit = ols_slope_interval(x, y)
        return exponent(fit.lo, fit.hi)

    assert case_problems(rule) == []

    @claim_case("_registry_fixture", "X1", "not reproduced", trivial="a method that passes")
    def trivial():  # noqa: F811  (a trivial method the rule wrongly passes is found)
        return exponent(-1.05, -0.95)

    assert any("trivial" in p or "expected 'not reproduced'" in p for p in case_problems(rule))
    with pytest.raises(ValueError, match="must not pass"):
        claim_case("_registry_fixture", "X1", "reproduced", trivial="chance")
    with pytest.raises(ValueError, match="trivial= must name"):
        claim_case("_registry_fixture", "X1", "not reproduced", trivial=" ")
    with pytest.raises(ValueError, match="alternative"):
        claim_case("_registry_fixture", "X1", "not reproduced")
    with pytest.raises(ValueError, match="allowed values"):
        claim_case("_registry_fixture", "X1", "passes")
    CASES.pop(rule.key, None)


def test_inconclusive_is_a_fourth_verdict_with_a_declared_kind():
    from icmlbook.runtime.claims import (INCONCLUSIVE, INCONCLUSIVE_KINDS, NOT_TESTABLE, VERDICTS, ClaimCheck,
                                         ClaimsLedger, claim_rule, claim_sentence)

    assert len(VERDICTS) == 4 and INCONCLUSIVE == "inconclusive at this scale"
    assert verdict_from(None, "not converged") == INCONCLUSIVE and verdict_from(None) == NOT_TESTABLE
    with pytest.raises(ValueError, match="allowed values"):
        verdict_from(None, "too noisy")
    with pytest.raises(ValueError, match="cannot also be inconclusive"):
        verdict_from(False, "not converged")
    check = ClaimCheck.inconclusive_check("gap +0.01 [-0.2, +0.2]", "interval spans both", "3 data sets")
    assert check.verdict == INCONCLUSIVE and check.passed is None
    with pytest.raises(ValueError, match="needs a reason"):
        ClaimCheck("m", None, inconclusive="not converged")
    with pytest.raises(ValueError, match="passed=None"):
        ClaimCheck("m", False, reason="r", inconclusive="not converged")
    assert set(INCONCLUSIVE_KINDS) == {"interval spans both", "not converged", "noise above effect"}

    @claim_rule("X4", statement="our reconstruction of the corrector beats one shot", rule="r", rejects="a",
                reconstruction=True, chapter="_registry_fixture")
    def undecided():
        return ClaimCheck.inconclusive_check("m", "not converged", "loss still falling")

    ledger = ClaimsLedger("_registry_fixture")
    row = ledger.add_check(undecided())
    assert row.verdict == INCONCLUSIVE and row.inconclusive == "not converged" and row.reconstruction
    assert ledger.counts()[INCONCLUSIVE] == 1
    html = ledger._repr_html_()
    assert "verdict-inconclusive" in html and "our reconstruction" in html and "not converged: loss" in html
    assert "≈" in claim_sentence("C", "m", None, inconclusive="noise above effect")
    with pytest.raises(ValueError, match="must say so"):
        claim_rule("X5", statement="the corrector beats one shot", rule="r", rejects="a", reconstruction=True,
                   chapter="_registry_fixture")(lambda: ClaimCheck("m", True))


def test_claim_sentence_takes_measured_and_rule_text_literally():
    """A measured or rule text with markdown's emphasis characters (a nuclear norm ‖G‖_*, a config name
    plateau_margin, a product a * b) renders as written, checked with an independent markdown renderer;
    math and code spans are left untouched."""
    from markdown_it import MarkdownIt

    from icmlbook.runtime.claims import claim_sentence, md_literal

    md = MarkdownIt()
    text = "‖G‖_* * 2 at plateau_margin_x and a*b*c"
    assert md.render(text) != f"<p>{text}</p>\n"                 # unescaped, markdown would italicise parts of it
    assert md.render(md_literal(text)) == f"<p>{text}</p>\n"
    assert md_literal("$x_1 * y_2$ and `a_b*`") == "$x_1 * y_2$ and `a_b*`"
    assert md_literal("a\\_b") == "a\\_b"                      # already escaped: unchanged
    sentence = claim_sentence("Claim 3", "‖G‖_* = 2", True, rule="ratio_min * 2")
    rendered = md.render(sentence)
    assert "<em>" not in rendered and "‖G‖_* = 2" in rendered and "ratio_min * 2" in rendered
    assert "<strong>Claim 3</strong>" in rendered and "<strong>reproduced</strong>" in rendered


def test_not_testable_rows_and_bad_declarations():
    from icmlbook.runtime.claims import ClaimCheck, ClaimsLedger, claim_rule, not_testable

    not_testable("X9", statement="works at 1.7B", reason="needs a 1.7B model", paper="19% fewer steps",
                 chapter="_registry_fixture")
    ledger = ClaimsLedger("_registry_fixture")
    rows = ledger.add_not_testable()
    assert [r.id for r in rows] == ["X9"] and rows[0].verdict == "not testable at this profile"
    assert rows[0].reason == "needs a 1.7B model"
    with pytest.raises(ValueError, match="rejects"):
        claim_rule("X2", statement="s", rule="r", rejects="", chapter="_registry_fixture")(lambda: ClaimCheck("m", True))
    with pytest.raises(ValueError, match="reason"):
        not_testable("X8", statement="s", reason=" ", chapter="_registry_fixture")

    @claim_rule("X3", statement="s", rule="r", rejects="a", chapter="_registry_fixture")
    def undecided():
        return ClaimCheck("m", None)

    with pytest.raises(ValueError, match="without a reason"):
        undecided()


# ---------------------------------------------------------------------------------------------- stats
@pytest.mark.parametrize("n, level", [(2, 0.95), (5, 0.9), (12, 0.95), (40, 0.99)])
def test_mean_t_bound_is_scipys_one_sided_paired_bound(n, level):
    from scipy import stats

    from icmlbook.runtime import mean_t_bound

    rng = np.random.default_rng(n)
    a, b = rng.normal(0.3, 1.0, n), rng.normal(0.0, 1.0, n)
    mean, up = mean_t_bound(a - b, level)
    ci_up = stats.ttest_rel(a, b, alternative="less").confidence_interval(level)
    assert np.isclose(mean, np.mean(a - b), rtol=0, atol=1e-15)
    assert np.isneginf(ci_up.low) and np.isclose(up, ci_up.high, rtol=1e-12, atol=1e-14)
    mean_lo, lo = mean_t_bound(a - b, level, side="lower")
    ci_lo = stats.ttest_rel(a, b, alternative="greater").confidence_interval(level)
    assert mean_lo == mean and np.isposinf(ci_lo.high) and np.isclose(lo, ci_lo.low, rtol=1e-12, atol=1e-14)
    # the two one-sided bounds at level are the two-sided interval at 2*level - 1
    two = stats.t.interval(2 * level - 1, n - 1, loc=mean, scale=np.std(a - b, ddof=1) / np.sqrt(n))
    assert np.allclose([lo, up], two, rtol=1e-12, atol=1e-14)


def test_mean_t_bound_is_bit_for_bit_the_landing_chapters_former_helper():
    """The landing chapter's claims had this private helper; the shared one gives the same floats."""
    from scipy import stats

    from icmlbook.runtime import mean_t_bound

    def former_upper(diffs, level=0.95):
        d = np.asarray(diffs, dtype=float)
        if len(d) < 2:
            return float(d.mean()), float("inf")
        se = d.std(ddof=1) / np.sqrt(len(d))
        return float(d.mean()), float(d.mean() + stats.t.ppf(level, len(d) - 1) * se)

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 8, 30):
        d = rng.normal(0.01, 0.02, n)
        assert mean_t_bound(d) == former_upper(d)


def test_mean_t_bound_refuses_bad_arguments_and_is_uninformative_below_two_values():
    from icmlbook.runtime import mean_t_bound

    assert mean_t_bound([0.5]) == (0.5, float("inf"))
    assert mean_t_bound([0.5], side="lower") == (0.5, float("-inf"))
    with pytest.raises(ValueError, match="side"):
        mean_t_bound([1.0, 2.0], side="two-sided")
    for level in (0.0, 1.0, 1.5, True):
        with pytest.raises(ValueError, match="level"):
            mean_t_bound([1.0, 2.0], level=level)
    with pytest.raises(ValueError, match="no numbers"):
        mean_t_bound([])


# -- the chapter preamble ---------------------------------------------------------------------------
def test_open_chapter_starts_the_run_and_builds_the_chapters_config():
    from icmlbook.papers import grokking as gk
    from icmlbook.papers import loes_layer_geometry as lg
    from icmlbook.runtime import Run, open_chapter

    run, cfg = open_chapter("grokking", "smoke", 3)
    assert isinstance(run, Run) and (run.chapter, run.profile, run.seed) == ("grokking", "smoke", 3)
    assert cfg == gk.config_for("smoke") and cfg != gk.config_for("default")
    assert run.computed_with() == "This page was computed with profile **smoke** and seed **3**"
    # knobs go to the chapter's config_for, validated there
    _, cfg = open_chapter("loes_layer_geometry", "default", 0, k=2, georeg_weight=0.3)
    assert cfg == lg.config_for("default", k=2, georeg_weight=0.3) and (cfg.k, cfg.georeg_weight) == (2, 0.3)


def test_open_chapter_names_what_is_wrong():
    from icmlbook.runtime import open_chapter

    with pytest.raises(ValueError, match=r"chapter='no_such_paper' is not a paper package.*allowed values: .*grokking"):
        open_chapter("no_such_paper", "smoke", 0)
    with pytest.raises(ValueError, match=r"profile='huge' is not a profile; allowed values: smoke, default, full"):
        open_chapter("grokking", "huge", 0)
    with pytest.raises(ValueError, match=r"seed=-1"):
        open_chapter("grokking", "smoke", -1)
    with pytest.raises(ConfigError, match=r"unknown parameter\(s\) \['bogus'\] for GrokkingConfig"):
        open_chapter("grokking", "smoke", 0, bogus=1)
    with pytest.raises(ValueError, match=r"^n=1 is not allowed"):
        open_chapter("grokking", "smoke", 0, n=1)


def test_open_chapter_seeds_everything_from_the_runs_seed():
    import random

    import torch

    from icmlbook.runtime import open_chapter

    def draws(seed):
        open_chapter("ftrl_preference_graphs", "smoke", seed)
        return random.random(), np.random.rand(3), torch.randn(3)

    a, b, c = draws(11), draws(11), draws(12)
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and torch.equal(a[2], b[2])
    assert a[0] != c[0] and not np.array_equal(a[1], c[1]) and not torch.equal(a[2], c[2])
    seed_everything(11)  # the same state as seed_everything with the run's seed, nothing else drawn before
    assert random.random() == a[0]


# -- what the run found, at the top of the page ------------------------------------------------------
def _rows_with_every_verdict() -> list[dict]:
    """Row i+1..: verdict VERDICTS[k] on k+1 rows (so every count differs), ids R0, R1, ..."""
    from icmlbook.runtime.claims import VERDICTS

    verdicts = [v for k, v in enumerate(VERDICTS) for _ in range(k + 1)]
    return [{"id": f"R{i}", "statement": "s", "rule": "r", "measured": f"value {i}", "verdict": v}
            for i, v in enumerate(verdicts)]


def test_findings_box_counts_each_verdict_apart_and_links_the_abstracts_rows():
    from icmlbook.runtime.claims import INCONCLUSIVE, VERDICTS, claims_table_html
    from icmlbook.runtime.findings import findings_html

    rows = _rows_with_every_verdict()
    rows[2]["reconstruction"] = True
    inconclusive = next(r for r in rows if r["verdict"] == INCONCLUSIVE)
    inconclusive["inconclusive"] = "not converged"
    rows[3]["measured"] = "<b>" + "long " * 100
    rows[0].update(measured="—", reason="needs the 1.7B model")      # nothing measured: the reason is shown
    box = findings_html("demo_box", rows, abstract=[("We show X.", ("R2", "R3", inconclusive["id"])),
                                                    ("And Y.", ("R0", "R_gone"))],
                        profile="smoke", seed=4)
    for k, verdict in enumerate(VERDICTS):
        assert re.search(rf'data-verdict="{verdict}"[^>]*><b>{k + 1}</b> {verdict}</span>', box), verdict
    # one line per row covering the abstract, in ledger order, linked to the row's anchor; no other row
    lines = re.findall(r'<li class="findings-claim"[^>]*><a href="#([^"]+)"><b>(\w+)</b></a>', box)
    ids = sorted({"R0", "R2", "R3", inconclusive["id"]}, key=lambda i: int(i[1:]))
    assert lines == [(f"claim-demo_box-{i}", i) for i in ids]
    assert box.count('class="findings-inconclusive">(not converged)') == 1  # an inconclusive row says which kind
    assert "R1" not in re.sub(r"R_gone", "", box.split("findings-abstract")[1])
    assert "R_gone" in box and "not in this run's ledger" in box       # named by the abstract, missing: said so
    assert box.count('class="findings-reconstruction"') == 1    # the flag, on R2's line only
    assert "&lt;b&gt;long" in box and "<b>long" not in box and " …" in box  # escaped, shortened
    assert "<i>needs the 1.7B model</i>" in box and "—" not in box
    assert "profile smoke, seed 4" in box and f"{len(rows)} claims" in box
    # the anchors exist in the ledger's table
    table = claims_table_html(rows, chapter="demo_box")
    for anchor, _ in lines:
        assert f'<tr id="{anchor}">' in table
    assert 'id="ledger-demo_box"' in table and 'href="#ledger-demo_box"' in box


def test_run_findings_and_record_carry_the_abstract(tmp_path, monkeypatch):
    from icmlbook.runtime.claims import abstract_sentence
    from icmlbook.runtime.findings import findings_from_record

    abstract_sentence("Demo result one.", "A", chapter="demo_rec")
    target = tmp_path / "rec.json"
    monkeypatch.setenv(RECORD_ENV, str(target))
    run = start_run("demo_rec", profile="smoke", seed=2)
    ledger = ClaimsLedger("demo_rec", "smoke")
    ledger.add("A", statement="s", rule="r", measured="1.5", passed=False)
    ledger.add("B", statement="s", rule="r", measured="2", passed=True)
    live = run.findings(ledger)._repr_html_()
    assert 'href="#claim-demo_rec-A"' in live and 'href="#claim-demo_rec-B"' not in live
    assert 'id="claim-demo_rec-A"' in ledger._repr_html_()
    run.finish(ledger)
    rec = json.loads(target.read_text())
    assert rec["abstract"] == [{"sentence": "Demo result one.", "ids": ["A"]}]
    assert findings_from_record(rec) == live                          # the site's box is the live one
    with pytest.raises(ValueError, match="ledger"):
        run.findings(ClaimsLedger("other", "smoke"))


def test_run_records_the_time_of_each_cached_stage(monkeypatch):
    """Session 15: the run record's ``stages`` give each cached artefact's wall and CPU seconds in this run (a bench
    row then says where a chapter's time went); a cache_many call's names share its time and say so."""
    import time

    from icmlbook.runtime import records

    def spin(seconds: float):
        t = time.process_time()
        while time.process_time() - t < seconds:
            pass
        return "done"

    monkeypatch.setattr(records, "_cached", lambda name, fn, **kw: spin(0.2))
    monkeypatch.setattr(records, "_cached_many", lambda jobs, **kw: [spin(0.1) for _ in jobs])
    monkeypatch.delenv(records.RECORD_ENV, raising=False)
    run = records.Run("grokking", "smoke", 0)
    assert run.cached("a-stage", spin, 9.0) == "done"
    run.cached_many([("b-one", spin, 9.0), ("b-two", spin, 9.0)])
    rec = run.finish()
    st = rec["stages"]
    assert set(st) == {"a-stage", "b-one", "b-two"}
    assert 0.19 <= st["a-stage"]["cpu_seconds"] <= st["a-stage"]["wall_seconds"] + 0.05
    assert "together_with" not in st["a-stage"] and st["a-stage"]["calls"] == 1
    assert st["b-one"] == st["b-two"] and st["b-one"]["together_with"] == 1 and st["b-one"]["cpu_seconds"] >= 0.19
    # a name called again adds its time and counts the call (a review: a per-n sweep kept only its last call);
    # a name repeated within one cached_many call (one job per seed) gets the call's time once, its jobs counted
    st = run.stages
    run.cached("a-stage", spin, 9.0)
    assert st["a-stage"]["calls"] == 2 and st["a-stage"]["cpu_seconds"] >= 0.39
    run.cached_many([("c-seed", spin, 0), ("c-seed", spin, 1)])
    assert st["c-seed"]["calls"] == 2 and 0.19 <= st["c-seed"]["cpu_seconds"] < 0.39 and "together_with" not in st["c-seed"]
    monkeypatch.setattr(records, "_cached", lambda name, fn, **kw: fn())
    with pytest.raises(RuntimeError, match="boom"):        # a failing stage is still timed, and the error goes on
        run.cached("c-fails", lambda: (_ for _ in ()).throw(RuntimeError("boom")))
    assert run.stages["c-fails"]["calls"] == 1
