"""One figure style for the whole book: a colour-blind-safe palette (Okabe & Ito) and sizes.

Library plotting functions build ``matplotlib.figure.Figure`` objects directly (not through pyplot),
so a figure is displayed exactly once, when a cell returns it, in Jupyter and in marimo alike.
"""

from __future__ import annotations

import matplotlib
from matplotlib.figure import Figure

#: Okabe & Ito (2008), safe for the common forms of colour blindness
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

RC = {
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "figure.constrained_layout.use": True,
}


def apply_style() -> None:
    """Set the book's rcParams for the current process."""
    matplotlib.rcParams.update(RC)


def new_figure(nrows: int = 1, ncols: int = 1, width: float = 6.4, height: float = 3.8, **subplot_kw):
    """A pyplot-free ``Figure`` with the book's style and its axes: ``fig, axes = new_figure(1, 2)``."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes
