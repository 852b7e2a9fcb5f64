"""Live progress of an execution: which chapters run, the cell each is at (i of N) and the time.

On a terminal, one tqdm bar per running chapter (``grokking  cell 12/40 |####    | 00:31``) and a line
when a chapter ends; elsewhere (a CI log, a pipe), one plain line per event:

    [   31.2 s] grokking: cell 12/40 (31.0 s in the chapter)

Events come from the executor's backends (``execute_all(..., on_event=reporter)``), possibly from
several threads at once (local chapters side by side, Dask's event stream).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO


class ProgressReporter:
    """Callable on executor events: ``{"chapter", "event": "start" | "cell" | "done", ...}``."""

    def __init__(self, stream: IO[str] | None = None, tty: bool | None = None, done_stream: IO[str] | None = None):
        self.stream = stream or sys.stderr
        self.done_stream = done_stream or sys.stdout
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)()) if tty is None else tty
        self.t0 = time.perf_counter()
        self._started: dict[str, float] = {}
        self._bars: dict[str, object] = {}
        self._slots: dict[str, int] = {}
        self._lock = threading.Lock()
        self.lines: list[str] = []   # the plain lines written (for tests and logs)

    # -- plain lines -------------------------------------------------------------------------------
    def _line(self, text: str, stream: IO[str] | None = None) -> None:
        line = f"[{time.perf_counter() - self.t0:8.1f} s] {text}"
        self.lines.append(line)
        print(line, file=stream or self.stream, flush=True)

    def _in_chapter(self, slug: str) -> str:
        start = self._started.get(slug)
        return "" if start is None else f" ({time.perf_counter() - start:.1f} s in the chapter)"

    # -- terminal bars -----------------------------------------------------------------------------
    def _bar(self, slug: str, total: int | None):
        from tqdm import tqdm

        bar = self._bars.get(slug)
        if bar is None:
            slot = min(set(range(len(self._slots) + 1)) - set(self._slots.values()))
            self._slots[slug] = slot
            bar = tqdm(total=total, desc=f"{slug:28.28s}", position=slot, file=self.stream, leave=False,
                       bar_format="{desc} cell {n_fmt}/{total_fmt} |{bar:20}| {elapsed}", dynamic_ncols=True)
            self._bars[slug] = bar
        elif total and bar.total != total:
            bar.total = total
        return bar

    def _close_bar(self, slug: str) -> None:
        bar = self._bars.pop(slug, None)
        self._slots.pop(slug, None)
        if bar is not None:
            bar.close()

    # -- events ------------------------------------------------------------------------------------
    def __call__(self, event: dict) -> None:
        slug, kind = event.get("chapter", "?"), event.get("event")
        where = f" on {event['worker']}" if event.get("worker") else ""
        with self._lock:
            if kind == "start":
                self._started[slug] = time.perf_counter()
                if self.tty:
                    self._bar(slug, None).refresh()
                else:
                    self._line(f"{slug}: started{where}")
            elif kind == "cell":
                self._started.setdefault(slug, time.perf_counter())
                i, n = event.get("cell"), event.get("cells")
                if self.tty:
                    bar = self._bar(slug, n)
                    bar.n = i or 0
                    bar.refresh()
                else:
                    self._line(f"{slug}: cell {i}/{n}{self._in_chapter(slug)}")
            elif kind == "done":
                status, wall = event.get("status"), event.get("wall") or 0.0
                text = f"  {slug}: {status} ({wall:.1f} s)"
                if self.tty:
                    from tqdm import tqdm

                    self._close_bar(slug)
                    tqdm.write(text, file=self.done_stream)
                    self.done_stream.flush()
                else:
                    self._line(text.strip(), stream=self.done_stream)

    def close(self) -> None:
        with self._lock:
            for slug in list(self._bars):
                self._close_bar(slug)
