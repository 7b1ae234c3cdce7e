"""Checks shared by the widget tests: was a plot drawn, and what did a callback display."""
import io

import matplotlib.image
import numpy as np


def assert_drawn(png):
    """``png`` decodes to an image with a plot on it, not a blank page of one colour."""
    img = matplotlib.image.imread(io.BytesIO(png))
    pixels = img.reshape(-1, img.shape[-1])
    assert img.shape[0] > 100 and img.shape[1] > 100
    assert len(np.unique(pixels, axis=0)) > 20, "a blank image (one colour, or nearly)"
    assert np.mean(np.any(pixels[:, :3] < 0.9, axis=1)) > 0.01   # over 1% of the pixels are ink


def assert_redraw_shows_a_new_picture(widget, control, value, shown_pngs):
    """Moving ``widget.controls[control]`` to ``value`` shows one new, drawn picture, outside pyplot.

    ``shown_pngs`` is the conftest fixture that collects the PNGs widget callbacks display.
    """
    import matplotlib.pyplot as plt

    before = len(shown_pngs)
    widget.controls[control].value = value
    assert len(shown_pngs) == before + 1, "one new picture per redraw"
    assert_drawn(shown_pngs[-1])
    assert shown_pngs[-1] != shown_pngs[-2]
    assert plt.get_fignums() == [], "widget figures must not be registered with pyplot"
