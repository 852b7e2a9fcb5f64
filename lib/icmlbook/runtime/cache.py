"""A content-addressed cache for expensive artefacts (datasets, trained models, long sweeps).

An entry's key is a SHA-256 over the producing function's source code, its name, the config that
produced it (as canonical JSON) and the profile. Entries are written atomically (temporary file,
then ``os.replace``) beside a manifest that records the payload's own SHA-256; a read re-hashes the
payload and a mismatch (truncated, corrupt, edited) deletes the entry and rebuilds it. A corrupt
entry is never returned.

    sweep = cached("grokking-grid", run_grid, config=cfg, profile=cfg_profile)

Payloads are pickled; that is safe here because the cache only ever holds what this project wrote.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import pickle
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, TypeVar

T = TypeVar("T")

CACHE_ENV = "ICMLBOOK_CACHE_DIR"
DISABLE_ENV = "ICMLBOOK_NO_CACHE"


def cache_dir() -> Path:
    """``$ICMLBOOK_CACHE_DIR`` if set, else ``data/cache`` at the repository root."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "data" / "cache"


class CorruptEntry(Exception):
    """A cache entry failed verification (missing manifest, hash mismatch, unreadable)."""


def _canonical(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__dataclass__": type(obj).__qualname__, **{k: _canonical(v) for k, v in dataclasses.asdict(obj).items()}}
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, float):
        return repr(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if hasattr(obj, "tolist"):
        return _canonical(obj.tolist())
    raise TypeError(f"cannot build a cache key from an object of type {type(obj).__name__}")


def _source_of(obj: Any) -> str:
    """Source text of a function or a module (what a cache key is taken over)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))


def _module_source(fn: Callable) -> str:
    module = inspect.getmodule(fn)
    return _source_of(module) if module is not None else ""


def cache_key(name: str, producer: Callable, config: Any = None, profile: str | None = None,
              extra_sources: tuple[Any, ...] = ()) -> str:
    """The SHA-256 key of an artefact: the producer's code (its whole module, so a change to a helper
    beside it counts) and the functions or modules named in ``extra_sources`` (code it calls from
    elsewhere), ``name``, canonical config and profile."""
    h = hashlib.sha256()
    payload = {
        "name": name,
        "producer": f"{producer.__module__}.{getattr(producer, '__qualname__', '')}",
        "code": [_source_of(producer), _module_source(producer), *[_source_of(f) for f in extra_sources]],
        "config": _canonical(config),
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
           args: tuple = (), kwargs: dict | None = None, extra_sources: tuple[Any, ...] = (),
           directory: str | os.PathLike | None = None) -> T:
    """Return ``producer(*args, **kwargs)``, from the cache when a verified entry exists.

    ``config`` and ``profile`` enter the key (``args``/``kwargs`` do too, canonicalised), so a change of
    sizes or of the producer's code is a different entry. Set ``ICMLBOOK_NO_CACHE=1`` to bypass.
    """
    kwargs = kwargs or {}
    if os.environ.get(DISABLE_ENV) == "1":
        return producer(*args, **kwargs)
    key = cache_key(name, producer, config={"config": _canonical(config), "args": _canonical(list(args)),
                                            "kwargs": _canonical(kwargs)},
                    profile=profile, extra_sources=extra_sources)
    entry = CacheEntry(key, Path(directory) if directory else cache_dir() / name)
    if entry.payload.exists() or entry.manifest.exists():
        try:
            return entry.load()
        except CorruptEntry as err:
            warnings.warn(f"cache: {err}; rebuilding", RuntimeWarning, stacklevel=2)
            entry.remove()
    value = producer(*args, **kwargs)
    entry.store(value, name)
    return value
