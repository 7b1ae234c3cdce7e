"""FigureView, the figure every widget keeps for its life: one draw per move at most."""
import io

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np

from kernelcourse.widgets import FigureView, figure_png, interactive_figure
from kernelcourse.widgets import lecture3
from widget_checks import assert_drawn


def _count_draws(fig):
    calls = []
    draw = fig.canvas.draw

    def counted(*args, **kwargs):
        calls.append(1)
        return draw(*args, **kwargs)

    fig.canvas.draw = counted
    return calls


def test_a_blitted_move_draws_no_full_figure_and_a_full_render_draws_once():
    w = lecture3.ridge_lambda_widget()                     # curves and title animated
    draws = _count_draws(w.view.fig)
    for value in (-4.0, 0.0, 2.0):
        w.controls["log_lam"].value = value
    assert draws == [] and w.view.renders == 4
    w.view.render(full=True)
    assert draws == [1]
    view = FigureView(figsize=(3, 2))                        # nothing animated: a full draw per render
    view.axes.plot([0, 1], [0, 1])
    draws = _count_draws(view.fig)
    view.render()
    view.render()
    assert draws == [1, 1]


def test_render_shows_the_png_in_the_image_and_draws_a_blank_figure_white():
    view = FigureView(figsize=(3, 2))
    view.axes.plot([0, 1], [0, 1])
    png = view.render()
    assert view.image.value == png and view.image.format == "png" and view.renders == 1
    img = matplotlib.image.imread(io.BytesIO(png))
    assert img.shape[:2] == (200, 300)                       # the figure's own size: no tight crop
    assert np.allclose(img[0, 0, :3], 1.0)                   # a white background
    assert_drawn(png)
    tight = matplotlib.image.imread(io.BytesIO(figure_png(view.fig, tight=True)))
    assert tight.shape[:2] != img.shape[:2]
    assert plt.get_fignums() == []


def test_interactive_figure_puts_the_image_between_the_controls_and_the_output():
    import ipywidgets as W

    view = FigureView(figsize=(3, 2))
    line, = view.axes.plot([0, 1], [0, 0])
    view.animate(line)

    def update(a):
        line.set_ydata([0, a])
        view.render()
        return a

    w = interactive_figure(update, view, {"a": W.FloatSlider(value=0.5, min=0, max=1)}, extra=3)
    assert w.children == (w.controls["a"], view.image, w.out)
    assert w.view is view and w.extra == 3 and w.result == 0.5
    first = view.image.value
    w.controls["a"].value = 1.0
    assert view.image.value != first and view.renders == 2


def test_show_puts_an_earlier_picture_back_without_drawing():
    view = FigureView(figsize=(3, 2))
    line, = view.axes.plot([0, 1], [0, 1])
    first = view.render()
    line.set_ydata([1, 0])
    second = view.render(full=True)
    draws = _count_draws(view.fig)
    assert view.show(first) == first and view.image.value == first
    assert draws == [] and view.renders == 3 and second != first


def test_a_layer_is_kept_until_a_render_draws_it_anew():
    view = FigureView(figsize=(3, 2))
    ax = view.axes
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    moving, = ax.plot([0, 1], [0.2, 0.8], lw=2)
    level = ax.axhline(0.5, color="k")
    view.animate(moving)
    view.animate(level, ax.yaxis, layer=True)
    draws = _count_draws(view.fig)
    first = view.render()
    assert draws == [1]
    moving.set_ydata([0.8, 0.2])                 # a move of the moving artist only
    moved = view.render()
    assert draws == [1] and moved != first
    level.set_ydata([0.1, 0.1])                  # the layer changes: drawn anew, no full draw
    ax.set_ylim(-1, 2)
    relayered = view.render(layer=True)
    assert draws == [1] and relayered != moved
    assert relayered == view.render(full=True)   # the same picture as one drawn from scratch
    assert draws == [1, 1]


def test_scenes_keep_a_figure_each_and_coming_back_draws_none_whole():
    view = FigureView(figsize=(3, 2))
    first = view.fig
    assert view.use("a") and view.fig is first            # the first scene adopts the figure
    line_a, = view.axes.plot([0, 1], [0, 1], "b-")
    view.animate(line_a)
    a_png = view.render()
    assert view.use("b") and view.fig is not first         # a new scene: a new, empty figure
    assert len(view.axes.lines) == 0
    line_b, = view.axes.plot([0, 1], [1, 0], "r-")
    view.animate(line_b)
    hidden = view.render(show=False)                      # drawn ahead, not shown, not counted
    assert view.image.value == a_png and view.renders == 1 and hidden != a_png
    draws = [_count_draws(first), _count_draws(view.fig)]
    assert not view.use("a") and view.fig is first and list(view.axes.lines) == [line_a]
    assert view.render() == a_png
    assert not view.use("b")
    assert view.render() == hidden and view.renders == 3
    assert draws == [[], []]                               # no figure drawn whole again
    assert not view.use("b")                               # the same scene: nothing changes
    assert plt.get_fignums() == []


def test_map_dual_widget_moves_between_models_without_a_full_draw():
    from kernelcourse.widgets import lecture4

    w = lecture4.map_dual_widget()
    start = w.view.image.value
    figures = {}
    for model in ("logistic", "linear"):
        w.controls["model"].value = model
        figures[model] = w.view.fig
    draws = [_count_draws(fig) for fig in figures.values()]
    w.controls["model"].value = "logistic"
    w.controls["log_lam"].value = 1.0
    w.controls["model"].value = "linear"
    w.controls["log_lam"].value = 0.0
    assert draws == [[], []] and w.view.image.value == start


def test_the_legibility_check_wants_a_legend_for_series_that_look_different():
    from kernelcourse.widgets import new_figure
    from widget_checks import legibility_problems

    fig, ax = new_figure(figsize=(4, 3))
    x = np.linspace(0, 1, 5)
    for k in range(4):                                    # four fits of one look: one kind
        ax.plot(x, x * k, color="0.6", lw=0.8)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    fig.subplots_adjust(left=0.2, bottom=0.2, right=0.6)
    assert legibility_problems(fig) == []
    ax.plot(x, 1 - x, "r--")                              # a second kind, not told apart
    assert any("2 kinds of series and no legend" in p for p in legibility_problems(fig))
    ax.lines[0].set_label("fits")
    ax.lines[-1].set_label("truth")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    assert not any("series" in p for p in legibility_problems(fig))
