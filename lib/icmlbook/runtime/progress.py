"""Progress bars that behave in a terminal, in Jupyter, in marimo and under the book's executor.

- marimo: ``mo.status.progress_bar`` (shown above the running cell);
- the book's executor (papermill): a plain text bar appended to the chapter's log file
  (``$ICMLBOOK_PROGRESS_LOG``, set by the executor), so the published page does not fill with bar
  redraws (a kernel's stderr, even at the file-descriptor level, ends up in the notebook);
- Jupyter: ``tqdm.auto`` (a widget when ipywidgets is installed, else text);
- a terminal or script: plain ``tqdm``.

Every item a bar passes (shown or not: ``disable=True`` still counts) is also a **progress tick**
(:func:`heartbeat`): under the book's executor it tells the watchdog that the chapter is alive, so a slow
machine gives a slow chapter, never a stopped one. The executor stops a cell only after a long stretch with no
tick, no output and no finished cached artefact (``--stall-timeout``). A long computation that cannot go
through ``progress`` calls ``heartbeat()`` itself now and then.
"""

from __future__ import annotations

import os
import time
from typing import Iterable, Iterator, TypeVar

from .context import HEARTBEAT_ENV, PROGRESS_LOG_ENV, in_jupyter, in_marimo, under_executor

T = TypeVar("T")

_last_beat = [float("-inf")]


def heartbeat(min_interval: float = 1.0) -> None:
    """Tell the book's executor that this process is making progress: append one byte to
    ``$ICMLBOOK_HEARTBEAT`` (at most once per ``min_interval`` seconds; nothing when the variable is unset,
    i.e. outside the executor). Worker processes started by the chapter inherit the variable, so their
    ticks count too. Never raises."""
    path = os.environ.get(HEARTBEAT_ENV)
    if not path:
        return
    now = time.monotonic()
    if now - _last_beat[0] < min_interval:
        return
    _last_beat[0] = now
    try:
        with open(path, "ab") as f:
            f.write(b".")
    except OSError:
        pass


def _ticking(iterable: Iterable[T]) -> Iterator[T]:
    for item in iterable:
        heartbeat()
        yield item


def progress(iterable: Iterable[T], total: int | None = None, desc: str | None = None,
             disable: bool = False) -> Iterator[T]:
    """Wrap ``iterable`` in the progress bar that suits where the code runs."""
    if total is None:
        try:
            total = len(iterable)  # type: ignore[arg-type]
        except TypeError:
            total = None
    if disable:
        yield from _ticking(iterable)
        return
    if in_marimo():
        import marimo as mo

        yield from mo.status.progress_bar(_ticking(iterable), total=total, title=desc or "working",
                                          remove_on_exit=True)
        return
    if under_executor():
        from tqdm import tqdm

        log = os.environ.get(PROGRESS_LOG_ENV)
        if not log:  # no log to write to: no bar, rather than noise on the page
            yield from _ticking(iterable)
            return
        with open(log, "a", buffering=1) as stream:
            yield from tqdm(_ticking(iterable), total=total, desc=desc, file=stream, mininterval=5.0, ascii=True,
                            dynamic_ncols=False, ncols=100)
        return
    if in_jupyter():
        from tqdm.auto import tqdm as tqdm_auto

        yield from tqdm_auto(_ticking(iterable), total=total, desc=desc)
        return
    from tqdm import tqdm

    yield from tqdm(_ticking(iterable), total=total, desc=desc)
