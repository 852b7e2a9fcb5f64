"""Progress bars that behave in a terminal, in Jupyter, in marimo and under the book's executor.

- marimo: ``mo.status.progress_bar`` (shown above the running cell);
- the book's executor (papermill): a plain text bar appended to the chapter's log file
  (``$ICMLBOOK_PROGRESS_LOG``, set by the executor), so the published page does not fill with bar
  redraws (a kernel's stderr, even at the file-descriptor level, ends up in the notebook);
- Jupyter: ``tqdm.auto`` (a widget when ipywidgets is installed, else text);
- a terminal or script: plain ``tqdm``.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, TypeVar

from .context import PROGRESS_LOG_ENV, in_jupyter, in_marimo, under_executor

T = TypeVar("T")


def progress(iterable: Iterable[T], total: int | None = None, desc: str | None = None,
             disable: bool = False) -> Iterator[T]:
    """Wrap ``iterable`` in the progress bar that suits where the code runs."""
    if total is None:
        try:
            total = len(iterable)  # type: ignore[arg-type]
        except TypeError:
            total = None
    if disable:
        yield from iterable
        return
    if in_marimo():
        import marimo as mo

        yield from mo.status.progress_bar(iterable, total=total, title=desc or "working",
                                          remove_on_exit=True)
        return
    if under_executor():
        from tqdm import tqdm

        log = os.environ.get(PROGRESS_LOG_ENV)
        if not log:  # no log to write to: no bar, rather than noise on the page
            yield from iterable
            return
        with open(log, "a", buffering=1) as stream:
            yield from tqdm(iterable, total=total, desc=desc, file=stream, mininterval=5.0, ascii=True,
                            dynamic_ncols=False, ncols=100)
        return
    if in_jupyter():
        from tqdm.auto import tqdm as tqdm_auto

        yield from tqdm_auto(iterable, total=total, desc=desc)
        return
    from tqdm import tqdm

    yield from tqdm(iterable, total=total, desc=desc)
