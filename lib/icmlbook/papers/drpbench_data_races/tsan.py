"""ThreadSanitizer as a dynamic baseline and as an independent check of the generator.

gcc compiles each program with ``-fsanitize=thread`` and stubs for the SV-COMP conventions, in a separate
translation unit of weak definitions (a program's own definitions win at link time):
``__VERIFIER_atomic_begin/end`` take one global recursive mutex, and so does every function whose name
starts with ``__VERIFIER_atomic`` (a guard added at the start of its body, on the brace's own line, so
that line numbers do not move); ``__VERIFIER_nondet_*`` draw from ``rand()``; ``reach_error`` and
``abort`` stop the run. The program then runs a few times, each under a time limit, and every reported
pair of racing accesses is mapped back to the program's lines.

A dynamic detector sees only the interleavings it happened to run: its reports are *incomplete* (it
misses races) and, with the atomic conventions stubbed, should never be *false*. Wall-clock limits make
its output vary between runs.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from .data import Program, Race

__all__ = ["tsan_available", "TSanResult", "run_tsan", "instrument", "STUBS", "TSanError"]

STUBS = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <stdbool.h>
static pthread_mutex_t sv_atomic_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
int __sv_acquire(void) { pthread_mutex_lock(&sv_atomic_mutex); return 0; }
void __sv_release(int *unused) { (void)unused; pthread_mutex_unlock(&sv_atomic_mutex); }
__attribute__((weak)) void __VERIFIER_atomic_begin(void) { pthread_mutex_lock(&sv_atomic_mutex); }
__attribute__((weak)) void __VERIFIER_atomic_end(void) { pthread_mutex_unlock(&sv_atomic_mutex); }
__attribute__((weak)) int __VERIFIER_nondet_int(void) { return rand() % 8 - 2; }
__attribute__((weak)) unsigned int __VERIFIER_nondet_uint(void) { return (unsigned)(rand() % 8); }
__attribute__((weak)) long __VERIFIER_nondet_long(void) { return rand() % 8 - 2; }
__attribute__((weak)) unsigned long __VERIFIER_nondet_ulong(void) { return (unsigned long)(rand() % 8); }
__attribute__((weak)) char __VERIFIER_nondet_char(void) { return (char)(rand() % 8); }
__attribute__((weak)) _Bool __VERIFIER_nondet_bool(void) { return rand() % 2; }
__attribute__((weak)) void *__VERIFIER_nondet_pointer(void) { return 0; }
__attribute__((weak)) void reach_error(void) { abort(); }
__attribute__((weak)) void assume_abort_if_not(int c) { if (!c) exit(0); }
__attribute__((weak)) void __VERIFIER_assume(int c) { if (!c) exit(0); }
"""
PRELUDE = "int __sv_acquire(void);\nvoid __sv_release(int *);\n"
_ATOMIC_DEF = re.compile(r"^\s*[\w\s\*]*\b(__VERIFIER_atomic\w*)\s*\([^;]*\)\s*$")
_FRAME = re.compile(r"#\d+\s+(\S+)\s+(\S+?):(\d+)")
_SIZE = re.compile(r"^\s*(Previous )?(read|write|atomic \w+) of size \d+", re.I)


class TSanError(RuntimeError):
    """ThreadSanitizer cannot be used here (no gcc, no libtsan, or the program does not compile)."""


@functools.lru_cache(maxsize=8)
def _link_check(gcc: str) -> str | None:
    """None when ``gcc`` links a ThreadSanitizer program, else its first error line."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "t.c"
        src.write_text("int main(void){return 0;}\n")
        r = subprocess.run([gcc, "-fsanitize=thread", str(src), "-o", str(Path(d) / "t")], capture_output=True,
                           text=True)
        if r.returncode == 0:
            return None
        return next((ln.strip() for ln in r.stderr.splitlines() if ln.strip()), f"exit status {r.returncode}")


def tsan_available() -> bool:
    """True when gcc can link a ThreadSanitizer program on this machine."""
    gcc = shutil.which("gcc")
    return gcc is not None and _link_check(gcc) is None


def _require_tsan() -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        raise TSanError("ThreadSanitizer needs gcc, which is not on PATH")
    err = _link_check(gcc)
    if err is not None:
        raise TSanError(f"gcc ({gcc}) cannot link a program with -fsanitize=thread here (is libtsan installed?): {err}")


def instrument(text: str) -> str:
    """The program with a guard at the start of every ``__VERIFIER_atomic*`` function's body, written on the
    line of its opening brace (line numbers unchanged)."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        m = _ATOMIC_DEF.match(line)
        if m and m.group(1) not in ("__VERIFIER_atomic_begin", "__VERIFIER_atomic_end") and lines[i + 1].strip() == "{":
            lines[i + 1] = lines[i + 1].replace("{", "{ int __sv_guard __attribute__((cleanup(__sv_release))) = __sv_acquire();", 1)
    return "\n".join(lines)


@dataclasses.dataclass
class TSanResult:
    program: str
    compiled: bool
    runs: int
    races: list[Race]                  # distinct line pairs reported over all runs (variable unknown: "?")
    per_run: list[list[Race]]          # the distinct pairs reported in each run
    error: str | None = None

    def found_after(self, k: int) -> list[Race]:
        """The distinct pairs reported by the first ``k`` runs together."""
        seen: dict = {}
        for run in self.per_run[:k]:
            for r in run:
                seen.setdefault(r.key(), r)
        return list(seen.values())


def _parse(report: str, filename: str) -> set[tuple[int, int]]:
    pairs = set()
    for block in report.split("WARNING: ThreadSanitizer: data race")[1:]:
        block = block.split("SUMMARY:")[0]
        lines_found = []
        current = None
        for line in block.splitlines():
            if _SIZE.match(line):
                current = []
                lines_found.append(current)
            m = _FRAME.search(line)
            if m and current is not None and not current and os.path.basename(m.group(2)) == filename:
                current.append(int(m.group(3)))
        got = [x[0] for x in lines_found if x]
        if len(got) >= 2:
            pairs.add(tuple(sorted(got[:2])))
    return pairs


def run_tsan(program: Program, runs: int = 3, timeout: float = 2.0, workdir: str | os.PathLike | None = None) -> TSanResult:
    """Compile ``program`` with ThreadSanitizer and run it ``runs`` times (each at most ``timeout`` s).

    Raises :class:`TSanError` when gcc is missing or cannot link ``-fsanitize=thread`` at all (a machine
    without libtsan); a program that does not compile with the stubs is a result (``compiled=False`` with the
    compiler's first error), not an exception."""
    if runs < 1:
        raise ValueError(f"runs={runs!r}: at least 1")
    _require_tsan()
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        d = Path(d)
        src, stubs, exe = d / "prog.c", d / "sv_stubs.c", d / "prog"
        src.write_text(instrument(program.text))
        stubs.write_text(STUBS)
        (d / "sv_prelude.h").write_text(PRELUDE)
        cmd = ["gcc", "-g", "-O0", "-w", "-fsanitize=thread", "-pthread", "-include", str(d / "sv_prelude.h"),
               str(src), str(stubs), "-o", str(exe), "-lm"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr[:200])
            return TSanResult(program.name, False, 0, [], [], error=first.strip())
        found: set[tuple[int, int]] = set()
        per_run = []
        env = dict(os.environ, TSAN_OPTIONS="halt_on_error=0 report_thread_leaks=0 report_signal_unsafe=0 exitcode=0")
        for k in range(runs):
            try:
                p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout, env=env,
                                   stdin=subprocess.DEVNULL)
                err = p.stderr
            except subprocess.TimeoutExpired as e:
                err = (e.stderr or b"").decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            got = _parse(err, "prog.c")
            per_run.append([Race("?", (a,), (b,)) for a, b in sorted(got)])
            found |= got
    return TSanResult(program.name, True, runs, [Race("?", (a,), (b,)) for a, b in sorted(found)], per_run)


def run_many(programs: Sequence[Program], runs: int = 3, timeout: float = 2.0) -> dict[str, TSanResult]:
    from ...runtime.progress import progress

    return {p.name: run_tsan(p, runs=runs, timeout=timeout) for p in progress(programs, desc="ThreadSanitizer")}
