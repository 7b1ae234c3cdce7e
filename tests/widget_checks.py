"""Checks shared by the widget tests: was a plot drawn, and does a move redraw it as it should."""
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


def assert_redraw_shows_a_new_picture(widget, control, value):
    """Moving ``widget.controls[control]`` to ``value`` and back, as a student would.

    The widget's one figure is rendered once per move into the same ``Image`` (which
    stands above the printed output and is never removed, so there is no moment without
    a plot); the new picture is drawn and differs from the first; moving back shows the
    first picture again byte for byte (nothing of the other state is left behind, as a
    stale background would leave it); and pyplot tracks no figure.
    """
    import matplotlib.pyplot as plt

    view = widget.view
    image = view.image
    assert widget.children[-2] is image and widget.children[-1] is widget.out
    first, renders = image.value, view.renders
    assert_drawn(first)
    start = widget.controls[control].value
    widget.controls[control].value = value
    assert view.renders == renders + 1, "one render per move"
    assert widget.children[-2] is image and view.image is image, "the plot is never replaced"
    assert image.value != first
    assert_drawn(image.value)
    widget.controls[control].value = start
    assert view.renders == renders + 2
    assert image.value == first, "moving back must show the first picture again"
    assert plt.get_fignums() == [], "widget figures must not be registered with pyplot"
