"""A content-addressed cache for expensive artefacts (datasets, trained models, long sweeps).

An entry's key is a SHA-256 over

- the producing function's name and source code;
- the source of **every module of the producer's chapter package** (all of ``icmlbook/papers/grokking/**.py``
  for a producer in ``icmlbook.papers.grokking``), of every ``icmlbook`` package the producer refers to
  directly (a function defined in a notebook that calls ``lg.layer_profile`` counts the source of
  ``icmlbook.papers.loes_layer_geometry``), of the chapter named by ``chapter=`` (what ``Run.cached`` passes),
  of ``icmlbook.runtime``, and of every ``icmlbook`` package those import (read from their ``import``
  statements, transitively: ``icmlbook.papers.grokking.nn`` imports ``...training``, so ``icmlbook.training``
  counts); so an edit to any helper module is a different key and a stale artefact is never reused;
- the versions of the numerical libraries (torch, numpy, scipy);
- the artefact's name, the config that produced it (as canonical JSON), the call's arguments and the profile
  (a numeric array or tensor among them by a SHA-256 of its dtype, shape and bytes).

Entries are written atomically (temporary file, then ``os.replace``) beside a manifest that records the
payload's own SHA-256; a read re-hashes the payload and a mismatch (truncated, corrupt, edited) deletes the
entry and rebuilds it. A corrupt entry is never returned.

    sweep = run.cached("grokking-grid", gk.eta_lam_grid, cfg, run.seed)     # in a chapter (see Run.cached)
    sweep = cached("grokking-grid", run_grid, config=cfg, profile=cfg_profile)

Payloads are pickled, and unpickling runs whatever the file says: that is safe only while the cache holds
nothing but what the book's own jobs wrote. A cache folder shared between machines (a cluster's shared disk)
must be writable by the book's jobs alone. The trainer's checkpoints are not pickles of objects: they hold
tensors and plain types only and load with ``torch.load(weights_only=True)`` (``icmlbook.training``).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import importlib.metadata
import inspect
import json
import os
import pickle
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path
from typing import Any, Callable, TypeVar

from .progress import heartbeat

T = TypeVar("T")

CACHE_ENV = "ICMLBOOK_CACHE_DIR"
DISABLE_ENV = "ICMLBOOK_NO_CACHE"

#: the numerical libraries whose versions enter every key (a new torch can change the numbers)
KEY_PACKAGES = ("torch", "numpy", "scipy")

#: the library's top-level package; ``icmlbook.<name>`` is a shared package (runtime, training, lm, pipeline)
BOOK_PACKAGE = "icmlbook"
RUNTIME_PACKAGE = f"{BOOK_PACKAGE}.runtime"
#: the namespace of the paper packages; ``icmlbook.papers.<slug>`` is one chapter's package
PAPERS_PACKAGE = f"{BOOK_PACKAGE}.papers"


def chapter_package(slug: str) -> str:
    """The dotted name of chapter ``slug``'s library package."""
    return f"{PAPERS_PACKAGE}.{slug}"


def cache_dir() -> Path:
    """``$ICMLBOOK_CACHE_DIR`` if set, else ``data/cache`` at the repository root."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "data" / "cache"


class CorruptEntry(Exception):
    """A cache entry failed verification (missing manifest, hash mismatch, unreadable)."""


def _array_digest(obj: Any) -> dict | None:
    """``{"__array__": dtype, "shape": [...], "sha256": ...}`` of a numeric NumPy array or CPU-convertible torch
    tensor (its C-ordered bytes: equal exactly when dtype, shape and every element are), else ``None``. A cache
    key reads an array this way instead of element by element: a chapter's (L, n, D) embeddings take
    milliseconds, not seconds."""
    np_mod, torch_mod = sys.modules.get("numpy"), sys.modules.get("torch")
    if torch_mod is not None and isinstance(obj, torch_mod.Tensor):
        try:
            obj = obj.detach().cpu().numpy()
        except (TypeError, RuntimeError):   # a dtype NumPy lacks (bfloat16), a sparse layout: element by element
            return None
    if np_mod is None or type(obj) is not np_mod.ndarray or obj.dtype.kind not in "biufc":  # a masked array: below
        return None
    a = np_mod.ascontiguousarray(obj)
    return {"__array__": a.dtype.str, "shape": list(a.shape), "sha256": hashlib.sha256(a.tobytes()).hexdigest()}


def _canonical(obj: Any, digest_arrays: bool = False) -> Any:
    """A JSON-able description of ``obj``. With ``digest_arrays`` (what a cache key uses), a numeric array or
    tensor is described by :func:`_array_digest`; otherwise (the trainer's fingerprints) element by element."""
    if digest_arrays:
        digest = _array_digest(obj)
        if digest is not None:
            return digest
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__dataclass__": type(obj).__qualname__,
                **{k: _canonical(v, digest_arrays) for k, v in dataclasses.asdict(obj).items()}}
    if isinstance(obj, dict):
        return {str(k): _canonical(v, digest_arrays) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v, digest_arrays) for v in obj]
    if isinstance(obj, float):
        return repr(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if hasattr(obj, "tolist"):
        return _canonical(obj.tolist(), digest_arrays)
    raise TypeError(f"cannot build a cache key from an object of type {type(obj).__name__}")


def _source_of(obj: Any) -> str:
    """Source text of a function or a module (what a cache key is taken over)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))


def package_of(module_name: str) -> str:
    """The package whose whole source keys an artefact made by code in ``module_name``: the chapter
    package ``icmlbook.papers.<slug>`` or the shared package ``icmlbook.<name>`` for the library's modules
    (``icmlbook.papers`` alone for the namespace's own ``__init__``), otherwise the module's top-level
    package."""
    parts = module_name.split(".")
    if parts[0] == BOOK_PACKAGE and len(parts) >= 2:
        if ".".join(parts[:2]) == PAPERS_PACKAGE and len(parts) >= 3:
            return ".".join(parts[:3])
        return ".".join(parts[:2])
    return parts[0]


def _package_files(package: str) -> list[tuple[str, Path]]:
    """Every ``*.py`` file of ``package`` (recursively) as ``(path relative to the package, path)``; the
    module's own file when ``package`` is a plain module; nothing when it has no source on disk."""
    module = sys.modules.get(package)
    if module is None:
        try:
            module = importlib.import_module(package)
        except ImportError:
            return []
    roots = [Path(p) for p in getattr(module, "__path__", [])]
    if package == PAPERS_PACKAGE:  # the namespace: its own __init__ only, never the nineteen papers below it
        file = getattr(module, "__file__", None)
        return [("__init__.py", Path(file))] if file and Path(file).exists() else []
    if not roots:
        file = getattr(module, "__file__", None)
        return [(Path(file).name, Path(file))] if file and file.endswith(".py") and Path(file).exists() else []
    out = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            out.append((path.relative_to(root).as_posix(), path))
    return out


def package_digest(package: str) -> str:
    """SHA-256 over the names and bytes of every source file of ``package``."""
    h = hashlib.sha256()
    for rel, path in _package_files(package):
        h.update(rel.encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _referenced_packages(fn: Callable) -> set[str]:
    """The ``icmlbook`` chapter packages a function refers to by name (modules, functions, classes held in
    its globals, closure or defaults), so a producer written in a notebook is keyed over the library code
    it calls."""
    try:
        refs = inspect.getclosurevars(fn)
        values = [*refs.nonlocals.values(), *refs.globals.values()]
    except (TypeError, ValueError):
        values = []
    out = set()
    for value in values:
        name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if isinstance(name, str) and name.split(".")[0] == BOOK_PACKAGE and "." in name:
            out.add(package_of(name))
    return out


_IMPORTS: dict[tuple[str, str], frozenset[str]] = {}  # (module name, sha256 of its source) -> packages


def _module_name(package: str, rel: str) -> tuple[str, bool]:
    """The dotted name of the file ``rel`` of ``package``, and whether it is a package's ``__init__``."""
    parts = rel[:-3].split("/")
    is_init = parts[-1] == "__init__"
    if is_init:
        parts = parts[:-1]
    return ".".join([package, *parts]), is_init


def _book_imports(module: str, is_init: bool, source: bytes) -> frozenset[str]:
    """The ``icmlbook`` packages a module's source imports (absolute or relative, anywhere in the file)."""
    key = (module, hashlib.sha256(source).hexdigest())
    if key in _IMPORTS:
        return _IMPORTS[key]
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:  # relative: from the module's own package, one level up per extra dot
                here = module.split(".") if is_init else module.split(".")[:-1]
                base = here[: len(here) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            names = [target, *(f"{target}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == BOOK_PACKAGE and len(parts) >= 2:
                found.add(package_of(name))
    _IMPORTS[key] = frozenset(found)
    return _IMPORTS[key]


def key_packages(producer: Callable, chapter: str | None = None) -> list[str]:
    """The packages whose source keys ``producer``'s artefacts (sorted): its own, the ``icmlbook`` packages
    it refers to, ``icmlbook.papers.<chapter>`` when ``chapter`` is given, ``icmlbook.runtime``, and every
    ``icmlbook`` package any of these imports (transitively)."""
    module = getattr(producer, "__module__", None) or ""
    packages = {RUNTIME_PACKAGE, *_referenced_packages(producer)}
    if module and module != "__main__":  # a notebook's or script's own code is keyed by its source alone
        packages.add(package_of(module))
    if chapter:
        packages.add(chapter_package(chapter))
    todo = sorted(packages)
    while todo:
        package = todo.pop()
        for rel, path in _package_files(package):
            for dep in _book_imports(*_module_name(package, rel), path.read_bytes()):
                if dep not in packages:
                    packages.add(dep)
                    todo.append(dep)
    return sorted(packages)


def library_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def _module_source(fn: Callable) -> str:
    """The source of a producer's module when it is not a package on disk (a notebook, a script)."""
    module = inspect.getmodule(fn)
    if module is None or module.__name__ == "__main__" or _package_files(package_of(module.__name__)):
        return ""
    return _source_of(module)


def cache_key(name: str, producer: Callable, config: Any = None, profile: str | None = None,
              chapter: str | None = None) -> str:
    """The SHA-256 key of an artefact: ``name``, the producer's own source, the source of every module of
    the packages :func:`key_packages` names, the versions of torch/numpy/scipy, canonical config and profile."""
    h = hashlib.sha256()
    payload = {
        "name": name,
        "producer": f"{producer.__module__}.{getattr(producer, '__qualname__', '')}",
        "code": [_source_of(producer), _module_source(producer)],
        "packages": {p: package_digest(p) for p in key_packages(producer, chapter)},
        "versions": library_versions(),
        "config": _canonical(config, True),
        "profile": profile,
    }
    h.update(json.dumps(payload, sort_keys=True).encode())
    return h.hexdigest()


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclasses.dataclass
class CacheEntry:
    key: str
    directory: Path

    @property
    def payload(self) -> Path:
        return self.directory / f"{self.key}.pkl"

    @property
    def manifest(self) -> Path:
        return self.directory / f"{self.key}.json"

    def load(self) -> Any:
        """Return the stored object, or raise CorruptEntry if anything fails verification."""
        if not self.manifest.exists() or not self.payload.exists():
            raise CorruptEntry(f"entry {self.key[:12]} is incomplete")
        try:
            meta = json.loads(self.manifest.read_text())
        except (OSError, ValueError) as err:
            raise CorruptEntry(f"entry {self.key[:12]}: unreadable manifest ({err})") from err
        if meta.get("sha256") != _sha256_file(self.payload) or meta.get("size") != self.payload.stat().st_size:
            raise CorruptEntry(f"entry {self.key[:12]}: payload does not match its manifest")
        try:
            with open(self.payload, "rb") as f:
                return pickle.load(f)
        except Exception as err:  # a payload that hashes right but does not unpickle
            raise CorruptEntry(f"entry {self.key[:12]}: payload does not unpickle ({err})") from err

    def store(self, value: Any, name: str) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        _atomic_write_bytes(self.payload, data)
        meta = {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        _atomic_write_bytes(self.manifest, json.dumps(meta, indent=1).encode())

    def remove(self) -> None:
        for p in (self.payload, self.manifest):
            if p.exists():
                p.unlink()


def cached(name: str, producer: Callable[..., T], *, config: Any = None, profile: str | None = None,
           args: tuple = (), kwargs: dict | None = None, chapter: str | None = None,
           directory: str | os.PathLike | None = None) -> T:
    """Return ``producer(*args, **kwargs)``, from the cache when a verified entry exists.

    ``config`` and ``profile`` enter the key (``args``/``kwargs`` do too, canonicalised), so a change of
    sizes, of the producer's code or of any module of its chapter package (see :func:`cache_key`) is a
    different entry. ``chapter`` adds ``icmlbook.papers.<chapter>`` to the keyed packages. Set
    ``ICMLBOOK_NO_CACHE=1`` to bypass.
    """
    kwargs = kwargs or {}
    if os.environ.get(DISABLE_ENV) == "1":
        value = producer(*args, **kwargs)
        heartbeat()
        return value
    entry = _entry_for(name, producer, config, profile, args, kwargs, chapter, directory)
    found, value = _lookup(entry)
    if found:
        heartbeat()  # a finished artefact is progress: the executor's watchdog counts it
        return value
    value = producer(*args, **kwargs)
    entry.store(value, name)
    heartbeat()
    return value


def _entry_for(name: str, producer: Callable, config: Any, profile: str | None, args: tuple, kwargs: dict,
               chapter: str | None, directory: str | os.PathLike | None) -> "CacheEntry":
    key = cache_key(name, producer, config={"config": _canonical(config, True),
                                            "args": _canonical(list(args), True),
                                            "kwargs": _canonical(kwargs, True)},
                    profile=profile, chapter=chapter)
    return CacheEntry(key, Path(directory) if directory else cache_dir() / name)


def _lookup(entry: "CacheEntry") -> tuple[bool, Any]:
    """``(True, value)`` for a verified entry; ``(False, None)`` when there is none (a corrupt one is deleted)."""
    if entry.payload.exists() or entry.manifest.exists():
        try:
            return True, entry.load()
        except CorruptEntry as err:
            warnings.warn(f"cache: {err}; rebuilding", RuntimeWarning, stacklevel=3)
            entry.remove()
    return False, None


def allotted_threads() -> int:
    """The CPU threads this process was given: ``$OMP_NUM_THREADS`` when set (the book's executor sets it to the
    cores divided by the chapters it runs side by side), else the cores this process may run on."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) >= 1:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _worker_init(state: dict) -> None:
    """Each worker process of :func:`cached_many`: one thread, and the parent's torch determinism settings."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    if "torch" in state:
        import torch

        torch.set_num_threads(1)
        torch.set_default_dtype(state["torch"]["default_dtype"])
        torch.use_deterministic_algorithms(state["torch"]["deterministic"])


def _worker_job(name: str, producer: Callable, config: Any, profile: str | None, args: tuple,
                chapter: str | None, directory: str | None) -> Any:
    return cached(name, producer, config=config, profile=profile, args=args, chapter=chapter, directory=directory)


def cached_many(jobs: "list[tuple]", *, workers: int | None = None, config: Any = None, profile: str | None = None,
                chapter: str | None = None, directory: str | os.PathLike | None = None) -> list:
    """Several artefacts ``[(name, producer, *args), ...]`` as by :func:`cached`, the missing ones computed in
    parallel: a pool of ``workers`` fresh processes (``spawn``), one thread each, each storing its entry; the
    values come back in the order of ``jobs``. Entries already in the cache are read here and start no process.

    ``workers=None`` takes :func:`allotted_threads` (1 in CI, where chapters run side by side). With one worker, or
    one artefact to compute, every job runs here, one after another, with this process's thread settings: exactly
    :func:`cached` in a loop. A producer must therefore be importable (a module-level function of a package) and
    must seed whatever it draws from its own arguments, so that its value does not depend on where it ran
    (tested: serial and parallel runs return the same values bit for bit). A script (not a notebook) that calls
    it needs Python's ``if __name__ == "__main__":`` guard, since each spawned worker imports the main script.
    """
    jobs = [tuple(j) for j in jobs]
    for j in jobs:
        if len(j) < 2 or not isinstance(j[0], str) or not callable(j[1]):
            raise ValueError(f"a job must be (name, producer, *args) with a str name and a callable producer; got {j!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers={workers!r} is not allowed; it must be None or an integer >= 1")
    workers = allotted_threads() if workers is None else workers
    off = os.environ.get(DISABLE_ENV) == "1"
    values: list[Any] = [None] * len(jobs)
    todo = []
    for i, (name, producer, *args) in enumerate(jobs):
        if not off:
            found, value = _lookup(_entry_for(name, producer, config, profile, tuple(args), {}, chapter, directory))
            if found:
                heartbeat()
                values[i] = value
                continue
        todo.append(i)
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if workers > 1 and len(todo) > 1 and main_file is not None and not os.path.isfile(main_file):
        # a spawned process re-imports the main script by its path; a script read from stdin has none
        warnings.warn(f"cached_many: the main script {main_file!r} is not a file a worker process can import, so "
                      f"the {len(todo)} artefacts are computed here, one after another", RuntimeWarning, stacklevel=2)
        workers = 1
    if workers <= 1 or len(todo) <= 1:
        for i in todo:
            name, producer, *args = jobs[i]
            values[i] = cached(name, producer, config=config, profile=profile, args=tuple(args), chapter=chapter,
                               directory=directory)
        return values
    import concurrent.futures
    import multiprocessing

    state: dict[str, Any] = {}
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        state["torch"] = {"default_dtype": torch.get_default_dtype(),
                          "deterministic": torch.are_deterministic_algorithms_enabled()}
    directory = None if directory is None else str(directory)
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(todo)),
                                                mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_worker_init, initargs=(state,)) as pool:
        futures = {pool.submit(_worker_job, jobs[i][0], jobs[i][1], config, profile, tuple(jobs[i][2:]), chapter,
                               directory): i for i in todo}
        try:
            for fut in concurrent.futures.as_completed(futures):
                i = futures[fut]
                try:
                    values[i] = fut.result()
                    heartbeat()
                except Exception as err:
                    raise RuntimeError(f"cached_many: the artefact {jobs[i][0]!r} failed in its worker process: "
                                       f"{type(err).__name__}: {err}") from err
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
    return values
