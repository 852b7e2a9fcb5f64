"""Shared fixtures: every test seeded, no network except loopback, GPU tests skipped without CUDA, and
one smoke build of the whole book (every chapter executed by papermill, the site built) shared by the
chapter and site tests."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


# -- no network ------------------------------------------------------------------------------------
_real_connect = socket.socket.connect


def _is_loopback(address) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self, address):
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may not use the network (tried to connect to {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture(autouse=True)
def _seeded():
    from icmlbook.runtime.seeding import seed_everything

    seed_everything(1234)


def pytest_collection_modifyitems(config, items):
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        has_cuda = False
    skip_gpu = pytest.mark.skip(reason="needs CUDA")
    for item in items:
        if "gpu" in item.keywords and not has_cuda:
            item.add_marker(skip_gpu)


# -- one smoke build of the book -------------------------------------------------------------------
GENERATED = {"chapters", "_build", "_toc.yml", "scoreboard.md", "build-report.md"}


def copy_book_sources(target: Path) -> Path:
    """A throw-away copy of book/ (its own pages only, nothing generated)."""
    src = ROOT / "book"
    target.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.name in GENERATED:
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copy2(item, target / item.name)
    return target


def pipeline_env(book: Path, cache: Path) -> dict[str, str]:
    return dict(os.environ, ICMLBOOK_BOOK_DIR=str(book), ICMLBOOK_CACHE_DIR=str(cache))


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory):
    """Execute every chapter in the smoke profile and build the site, in a temporary copy of the book."""
    base = tmp_path_factory.mktemp("smoke-book")
    book = copy_book_sources(base / "book")
    env = pipeline_env(book, base / "cache")
    proc = subprocess.run([PY, "-m", "icmlbook.pipeline", "book", "--profile", "smoke", "--force"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"smoke build of the book failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-4000:]}")
    records = {p.name.split(".")[0]: json.loads(p.read_text()) for p in (book / "chapters").glob("*.record.json")}
    return {"book": book, "site": book / "_build" / "html", "records": records, "env": env,
            "stdout": proc.stdout, "base": base}
