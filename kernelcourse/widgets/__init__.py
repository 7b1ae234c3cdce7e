"""Widget builders for the lecture notebooks, one module per lecture.

Each builder wires ipywidgets controls to plain package functions that are
unit-tested without a browser; the notebooks only call the builders.

Figures inside widgets are drawn with :func:`new_figure` and shown with
:func:`show_figure`: each redraw gets its own figure, unknown to pyplot, which
is rendered to PNG right there. Nothing is shared between two redraws (no
pyplot figure registry, no canvas renderer), so a slider moved while a redraw
is under way cannot blank the other redraw's image, which pyplot figures shown
by the inline backend's flush were seen to do in JupyterLab.
"""
from __future__ import annotations

import io

__all__ = ["new_figure", "show_figure", "figure_png"]


def new_figure(nrows: int = 1, ncols: int = 1, figsize=(6.0, 4.0), **subplot_kw):
    """Return ``(fig, axes)`` like ``plt.subplots``, on a figure pyplot does not track.

    ``axes`` is one Axes for a 1x1 grid, else an array of Axes, as in
    ``plt.subplots``; ``subplot_kw`` goes to ``Figure.subplots``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


def figure_png(fig, dpi: int = 100) -> bytes:
    """Render ``fig`` to PNG bytes (tight bounding box, white background)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    return buffer.getvalue()


def show_figure(fig, dpi: int = 100) -> None:
    """Display ``fig`` as a PNG image in the current output (e.g. a widget's Output)."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig, dpi=dpi), format="png"))
