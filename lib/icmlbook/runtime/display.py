"""Outputs that render the same on the static site, in Jupyter and in marimo."""

from __future__ import annotations

import json

from .context import in_marimo


class PlotlyOutput:
    """A plotly figure for Jupyter and the static site.

    The HTML part references a global ``Plotly`` instead of embedding plotly.js (3 MB per figure) or
    loading it from a CDN: the site serves plotly.js from its own static files.
    """

    def __init__(self, fig):
        self.fig = fig

    def _repr_mimebundle_(self, include=None, exclude=None):
        div = self.fig.to_html(full_html=False, include_plotlyjs=False, config={"responsive": True})
        return {
            "text/html": f'<div class="plotly-output">{div}</div>',
            "application/vnd.plotly.v1+json": json.loads(self.fig.to_json()),
            "text/plain": f"<plotly figure: {self.fig.layout.title.text or 'untitled'}>",
        }


def show_plotly(fig):
    """Return what displays ``fig`` here: the figure itself in marimo, a site-friendly bundle elsewhere."""
    return fig if in_marimo() else PlotlyOutput(fig)
