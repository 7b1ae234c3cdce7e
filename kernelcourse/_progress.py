"""A progress display for long loops: a bar in a notebook, a line on stderr elsewhere.

Training loops take ``progress=True`` (off by default, so stored notebook
outputs stay unchanged) and report through :class:`Progress`::

    with Progress(total=len(X), description="online steps", enabled=progress) as bar:
        for x in X:
            ...
            bar.update()

In a Jupyter kernel the bar is an ``ipywidgets.IntProgress`` with a label;
anywhere else it is one line on stderr, redrawn in place with ``\\r``. Redraws
are throttled (at most every 1% of the work), so the display costs nothing
measurable next to the loop it reports on.
"""
from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class Progress:
    """Report ``done`` out of ``total`` steps of work, with the elapsed time."""

    def __init__(self, total: int, description: str = "", enabled: bool = True, stream=None):
        self.total = max(int(total), 0)
        self.description = description
        self.enabled = bool(enabled) and self.total > 0
        self.done = 0
        self._stream = stream
        self._widget = None
        self._label = None
        self._start = time.perf_counter()
        self._step = max(1, -(-self.total // 100))  # ceil: at most one redraw per percent
        self._next_draw = 0
        if self.enabled and stream is None and _in_kernel():
            import ipywidgets as W
            from IPython.display import display

            self._widget = W.IntProgress(value=0, min=0, max=self.total, description=description)
            self._label = W.Label()
            display(W.HBox([self._widget, self._label]))

    def __enter__(self) -> "Progress":
        self._draw()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps done; redraw when another 1% is done."""
        self.done = min(self.done + n, self.total)
        if self.enabled and (self.done >= self._next_draw or self.done == self.total):
            self._draw()
            self._next_draw = self.done + self._step

    def text(self) -> str:
        """The line the display shows, e.g. ``online steps [#####     ]  50% 500/1000 0.4 s``."""
        fraction = self.done / self.total if self.total else 1.0
        filled = int(round(20 * fraction))
        seconds = time.perf_counter() - self._start
        return (f"{self.description} [{'#' * filled}{' ' * (20 - filled)}] {100 * fraction:3.0f}% "
                f"{self.done}/{self.total} {seconds:.1f} s")

    def _draw(self) -> None:
        if not self.enabled:
            return
        if self._widget is not None:
            self._widget.value = self.done
            self._label.value = self.text().split("] ", 1)[1]
            return
        stream = self._stream or sys.stderr
        stream.write("\r" + self.text())
        stream.flush()

    def close(self) -> None:
        """Draw the final state (and end the stderr line)."""
        if not self.enabled:
            return
        self._draw()
        if self._widget is None:
            (self._stream or sys.stderr).write("\n")
