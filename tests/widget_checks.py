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
