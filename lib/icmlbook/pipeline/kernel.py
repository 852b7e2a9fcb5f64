"""Run once at the top of every executed chapter (the hidden set-up cell the exporter inserts)."""

from __future__ import annotations

import warnings


def setup_kernel() -> None:
    """Inline PNG figures in the book's style; pyplot does not auto-display figures (so a figure a
    cell returns is shown exactly once)."""
    import matplotlib
    import matplotlib.pyplot as plt

    from icmlbook.runtime.style import apply_style

    apply_style()
    plt.ioff()
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png")
    except ImportError:  # pragma: no cover
        pass
    matplotlib.rcParams["figure.max_open_warning"] = 0
    # libraries that import tqdm.auto (transformers, huggingface_hub) warn at import that ipywidgets is
    # missing; the book's progress bars do not use widgets (they go to the chapter log under the executor)
    warnings.filterwarnings("ignore", message="IProgress not found")
