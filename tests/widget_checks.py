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


def legibility_problems(fig, min_points=9.0, display_width=None):
    """What makes a widget's figure hard to read, as a list of sentences (empty: none).

    Every visible text has a font of at least ``min_points`` points as the picture is displayed
    (a figure wider than ``display_width`` pixels, JupyterLab's and the site's column, is shown
    scaled down to it, its texts with it) and lies wholly inside
    the figure (no clipped title or label); every axes with data has both axis labels
    (colour bars too: one label); no legend covers a data point of its axes; a figure's
    texts do not overlap one another (a tick label running into an axis label).
    """
    import matplotlib.text as mtext
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D

    from kernelcourse.widgets import DISPLAY_WIDTH

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    shown = min(1.0, (display_width or DISPLAY_WIDTH) / fig.bbox.width)   # as displayed
    fig_box = fig.bbox
    texts = []
    # tick labels: only those of the ticks an axis draws (it makes some beyond its limits)
    all_ticks, drawn_ticks = set(), set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                all_ticks |= {id(tick.label1), id(tick.label2)}
            if ax.get_visible() and ax.axison:
                for tick in axis._update_ticks():
                    drawn_ticks |= {id(tick.label1), id(tick.label2)}
    for text in fig.findobj(mtext.Text):
        if not text.get_visible() or not text.get_text().strip() or text.get_alpha() == 0:
            continue
        if id(text) in all_ticks and id(text) not in drawn_ticks:
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        box = text.get_window_extent(renderer)
        if box.width == 0 or box.height == 0:
            continue
        texts.append((text, box))
        if text.get_fontsize() * shown < min_points - 1e-9:
            problems.append(f"text {text.get_text()!r} is {text.get_fontsize() * shown:.1f} pt as "
                            f"displayed ({text.get_fontsize():.1f} pt in a figure of "
                            f"{fig.bbox.width:.0f} px shown {100 * shown:.0f}% wide)")
        if (box.x0 < fig_box.x0 - 1 or box.x1 > fig_box.x1 + 1
                or box.y0 < fig_box.y0 - 1 or box.y1 > fig_box.y1 + 1):
            problems.append(f"text {text.get_text()!r} is clipped by the figure's edge")
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        is_colourbar = hasattr(ax, "_colorbar") or ax.get_label() == "<colorbar>"
        if is_colourbar:
            if not (ax.get_ylabel() or ax.get_xlabel()):
                problems.append("a colour bar has no label")
            continue
        if not ax.get_xlabel():
            problems.append(f"axes {ax.get_title()!r} has no x label")
        if not ax.get_ylabel():
            problems.append(f"axes {ax.get_title()!r} has no y label")
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            lbox = legend.get_window_extent(renderer)
            covered = 0
            for artist in ax.get_children():
                if not artist.get_visible() or artist is legend:
                    continue
                if isinstance(artist, Line2D):
                    xy = artist.get_xydata()
                elif isinstance(artist, Collection) and hasattr(artist, "get_offsets"):
                    xy = np.asarray(artist.get_offsets())
                    if artist.get_offset_transform() is not ax.transData:
                        continue
                else:
                    continue
                if len(xy) == 0:
                    continue
                trans = artist.get_transform() if isinstance(artist, Line2D) else ax.transData
                pts = trans.transform(np.asarray(xy, dtype=float))
                inside = ((pts[:, 0] > lbox.x0) & (pts[:, 0] < lbox.x1)
                          & (pts[:, 1] > lbox.y0) & (pts[:, 1] < lbox.y1))
                covered += int(inside.sum())
            if covered:
                problems.append(f"the legend of axes {ax.get_title()!r} covers {covered} data points")
    problems += _series_without_legend(fig)
    # a legend's box over a text that is not its own (an axis label under a legend)
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible() or not ax.get_visible():
            continue
        lbox = legend.get_window_extent(renderer)
        own = {id(t) for t in legend.get_texts()}
        for text, box in texts:
            if id(text) not in own and lbox.overlaps(box):
                w = min(lbox.x1, box.x1) - max(lbox.x0, box.x0)
                h = min(lbox.y1, box.y1) - max(lbox.y0, box.y0)
                if w > 1.5 and h > 1.5:
                    problems.append(f"a legend covers the text {text.get_text()!r}")
    # texts that overlap (an axis label and tick labels, two titles)
    for i, (a, abox) in enumerate(texts):
        for b, bbox in texts[i + 1:]:
            if id(a) in all_ticks and id(b) in all_ticks:
                continue              # two tick labels (an x and a y one meet at a corner)
            if abox.overlaps(bbox):
                inter_w = min(abox.x1, bbox.x1) - max(abox.x0, bbox.x0)
                inter_h = min(abox.y1, bbox.y1) - max(abox.y0, bbox.y0)
                if inter_w > 1.5 and inter_h > 1.5:
                    problems.append(f"texts {a.get_text()!r} and {b.get_text()!r} overlap")
    return problems


def _series_without_legend(fig):
    """Axes that show more than one kind of series (lines or point clouds that look different:
    another colour, line style or marker) with no legend to tell them apart, on the axes or
    on the figure. Many lines of one look (the thin fits of resampled data) are one kind."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex
    from matplotlib.lines import Line2D

    problems = []
    figure_legend = any(leg.get_visible() for leg in fig.legends)
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison or hasattr(ax, "_colorbar"):
            continue
        looks = set()
        for artist in ax.get_children():
            if not artist.get_visible() or artist.get_alpha() == 0:
                continue
            if isinstance(artist, Line2D) and len(artist.get_xydata()) >= 2 \
                    and artist.get_linestyle() not in ("None", "", " ", "none"):
                looks.add(("line", to_hex(artist.get_color()), artist.get_linestyle(),
                           artist.get_marker()))
            elif isinstance(artist, PathCollection) and len(artist.get_offsets()) >= 2:
                looks.add(("points",))
        legend = ax.get_legend()
        if len(looks) > 1 and not figure_legend and (legend is None or not legend.get_visible()):
            problems.append(f"axes {ax.get_title()!r} shows {len(looks)} kinds of series "
                            f"and no legend")
    return problems


def count_whole_draws(widget) -> list:
    """Make every figure of ``widget.view`` (each scene of :meth:`FigureView.use` too) record
    its whole-figure draws (``canvas.draw``) in the returned list, from now on."""
    view = widget.view
    figures = [view.fig] + [scene["fig"] for scene in view._scenes.values()]
    draws = []
    for fig in figures:
        draw = fig.canvas.draw

        def recorded(*args, _draw=draw, _fig=fig, **kwargs):
            draws.append(_fig)
            return _draw(*args, **kwargs)

        fig.canvas.draw = recorded
    return draws


def assert_same_as_drawn_anew(widget, what, pixels=6, level=48):
    """The picture ``widget`` shows equals, up to anti-aliasing (at most ``pixels`` pixels
    differ by more than ``level`` of 255 in a channel), its figure drawn anew from scratch."""
    from PIL import Image

    def rgba(png):
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=np.int16)

    shown = rgba(widget.view.image.value)
    drawn = rgba(widget.view.render(full=True, show=False))
    assert shown.shape == drawn.shape, f"{what}: the pictures differ in size"
    count = int((np.abs(shown - drawn).max(axis=-1) > level).sum())
    assert count <= pixels, f"{what}: {count} pixels differ from the picture drawn anew"
