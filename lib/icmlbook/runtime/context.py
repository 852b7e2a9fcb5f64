"""Where is this code running? marimo, a Jupyter kernel (papermill or a person), or a terminal."""

from __future__ import annotations

import os
import sys

#: set by the book's executor in the environment of every kernel it starts
EXECUTOR_ENV = "ICMLBOOK_EXECUTOR"
#: path of the JSON file a chapter writes its run facts (claims, peak memory) to
RECORD_ENV = "ICMLBOOK_RECORD"
#: file the executor's kernels append progress bars to (the chapter's log)
PROGRESS_LOG_ENV = "ICMLBOOK_PROGRESS_LOG"
#: file a chapter's processes append a byte to as they make progress (see ``runtime.progress.heartbeat``); the
#: executor's watchdog stops a chapter only when no progress has reached it for its stall timeout
HEARTBEAT_ENV = "ICMLBOOK_HEARTBEAT"


def in_marimo() -> bool:
    """True inside a running marimo notebook (edit, run, or script mode)."""
    mo = sys.modules.get("marimo")
    if mo is None:
        return False
    try:
        return bool(mo.running_in_notebook())
    except Exception:  # pragma: no cover - older marimo
        return False


def in_jupyter() -> bool:
    """True inside an IPython kernel (Jupyter, papermill)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"


def under_executor() -> bool:
    """True when the book's executor (papermill, non-interactive) runs this kernel."""
    return os.environ.get(EXECUTOR_ENV) == "1"
