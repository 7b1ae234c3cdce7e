"""Widgets for lecture 5: functions in an RKHS and functional gradient descent.

Three builders, each wiring controls to plain functions of this module or of
:mod:`kernelcourse.rkhs` (which the tests call and check without a browser):

* :func:`fgd_stepper_widget` (5.4, 5.6, 5.7): step the online kernel machine one
  example at a time on 1-D data and watch the bumps ``alpha_i K(x_i, .)`` being
  added (and shrunk) and their sum ``f``. Computation: :func:`stepper_data`,
  :func:`fgd_path`, :func:`step_view`; drawing: :func:`plot_step`.
* :func:`budget_widget` (5.8): the budget (the largest number of bumps kept)
  against test accuracy and prediction time, for both dropping rules.
  Computation: :func:`budget_rows` (cached :func:`kernelcourse.rkhs.budget_tradeoff`);
  drawing: :func:`plot_budget`.
* :func:`bandwidth_widget` (5.11): the RBF ``gamma`` against bias and variance of
  the regularised least-squares fit over many resampled data sets.
  Computation: :func:`kernelcourse.rkhs.bandwidth_bias_variance`; drawing:
  :func:`plot_bandwidth`.

Each builder returns an ``ipywidgets.interactive``; its ``controls`` attribute
maps argument names to the controls, and ``result`` holds the dict the last
callback computed (with the ``figure``). Each widget draws once on its
:class:`~kernelcourse.widgets.FigureView` (``view``, a figure pyplot never
tracks) and each move updates the drawing in place and renders it once.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets, rkhs
from kernelcourse._validation import as_2d, check_choice, check_positive_int
from kernelcourse.kernels import RBF
from kernelcourse.widgets import FigureView, interactive_figure, new_figure

__all__ = [
    "stepper_data", "fgd_path", "step_view", "plot_step", "step_ylim", "update_step", "fgd_stepper_widget",
    "budget_rows", "plot_budget", "budget_line", "budget_widget",
    "plot_bandwidth", "bandwidth_widget",
]


# ---------------------------------------------------------------------------
# (a) functional gradient descent, one example at a time
# ---------------------------------------------------------------------------

def stepper_data(loss="hinge", n=12, random_state=0):
    """1-D examples for the stepper: ``x ~ U[-3, 3]``, in the order they arrive.

    Targets are ``sin(1.5 x) + 0.1 N(0, 1)`` for the squared loss and the labels
    ``sign(sin(1.5 x))`` for the hinge loss. Returns ``X`` of shape (n, 1) and ``y``.
    """
    check_choice(loss, "loss", rkhs.LOSSES)
    n = check_positive_int(n, "n")
    rng = np.random.default_rng(random_state)
    x = rng.uniform(-3.0, 3.0, size=n)
    clean = np.sin(1.5 * x)
    y = np.where(clean >= 0, 1.0, -1.0) if loss == "hinge" else clean + 0.1 * rng.normal(size=n)
    return x[:, None], y


def fgd_path(kernel, X, y, loss="hinge", eta=0.5, lam=0.05):
    """Every iterate ``f_0 = 0, f_1, ..., f_n`` of the online kernel machine.

    Step ``t`` predicts ``f_{t-1}(x_t)`` and applies :func:`kernelcourse.rkhs.coefficient_update`:
    ``f_t = (1 - 2 eta lam) f_{t-1} + c_t K(x_t, .)``, the bump added only when ``c_t != 0``.

    Returns
    -------
    dict
        ``functions`` (list of n + 1 :class:`~kernelcourse.rkhs.RKHSFunction`), and per step
        ``prediction`` (``f_{t-1}(x_t)``), ``coefficient`` (``c_t``), ``shrink``, ``added``
        (bool), plus ``X``, ``y``, ``loss``.
    """
    X = as_2d(X)
    y = np.asarray(y, dtype=float)
    f = rkhs.RKHSFunction.zero(kernel, X.shape[1])
    out = {"functions": [f], "prediction": [], "coefficient": [], "shrink": [], "added": [],
           "X": X, "y": y, "loss": loss}
    for x, yt in zip(X, y):
        fx = float(f(x[None, :])[0])
        shrink, c = rkhs.coefficient_update(loss, fx, yt, eta, lam)
        f = shrink * f
        if c != 0.0:
            f = f + c * rkhs.kernel_section(kernel, x)
        for key, value in (("prediction", fx), ("coefficient", c), ("shrink", shrink), ("added", c != 0.0)):
            out[key].append(value)
        out["functions"].append(f)
    return out


def step_view(path, t, grid=None):
    """What the stepper shows after ``t`` steps.

    Returns
    -------
    dict
        ``t``, ``grid`` (n_grid,), ``f`` (``f_t`` on the grid), ``bumps`` (one weighted
        bump ``alpha_i K(x_i, .)`` per row, summing to ``f``), ``centres``, ``alpha``;
        for ``t >= 1`` also ``x_t``, ``y_t``, ``prediction`` (``f_{t-1}(x_t)``),
        ``coefficient`` and ``added`` of step ``t``.
    """
    n = len(path["functions"]) - 1
    if not (isinstance(t, (int, np.integer)) and 0 <= t <= n):
        raise ValueError(f"t must be an integer step between 0 and {n}; got t={t!r}")
    grid = np.linspace(-3.5, 3.5, 200) if grid is None else np.asarray(grid, dtype=float)
    f = path["functions"][t]
    view = {"t": int(t), "grid": grid, "f": f(grid[:, None]), "bumps": f.bumps(grid[:, None]),
            "centres": f.centres[:, 0].copy(), "alpha": f.alpha.copy()}
    if t >= 1:
        view.update({"x_t": float(path["X"][t - 1, 0]), "y_t": float(path["y"][t - 1]),
                     "prediction": path["prediction"][t - 1],
                     "coefficient": path["coefficient"][t - 1], "added": path["added"][t - 1]})
    return view


def _step_title(view, loss):
    """Two lines at every step (the figure's top margin holds two): the example, then
    what the step did."""
    if view["t"] == 0:
        return "t = 0: f = 0\nno bumps yet"
    what = (f"added {view['coefficient']:+.3f} K(x_t, .)" if view["added"]
            else "no margin error: nothing added, only shrinking")
    return (f"t = {view['t']}: x_t = {view['x_t']:.2f}, y_t = {view['y_t']:+.2f}, "
            f"f(x_t) = {view['prediction']:+.2f}\n{what}")


def plot_step(view, path, ax=None):
    """Draw the weighted bumps (thin), their sum ``f`` (thick) and the examples seen so far.

    Without ``ax``, draws on a new figure from :func:`~kernelcourse.widgets.new_figure`
    (pyplot does not track it). Returns a dict of the artists :func:`update_step` moves
    to another step or path: ``bumps`` (one line per example of the path, unused ones
    empty), ``f``, ``seen`` (the examples), ``mark`` (the line at ``x_t``), ``zero`` and
    ``margins`` (the lines at 0 and at +-1, the latter shown for the hinge loss only) and
    ``ax``. The vertical range covers every step of the path (:func:`step_ylim`), so
    stepping never rescales it. The legend stands beside the axes, never over the curves.
    """
    if ax is None:
        _, ax = new_figure(figsize=(9.0, 3.6))
    grid = view["grid"]
    n = len(path["functions"]) - 1
    artists = {"ax": ax, "bumps": [ax.plot([], [], lw=0.8, color="#9ecae1",
                                           label=r"bumps $\alpha_i K(x_i, \cdot)$" if i == 0 else None)[0]
                                   for i in range(n)]}
    artists["f"], = ax.plot(grid, view["f"], lw=2.2, color="k", label="f_t = sum of the bumps")
    artists["seen"] = ax.scatter([], [], s=25, color="#d94801", zorder=3, label="examples seen")
    artists["mark"] = ax.axvline(0.0, color="#d94801", ls=":", lw=1, label="x_t")
    artists["margins"] = [ax.axhline(level, color="grey", ls="--", lw=0.6,
                                     label="margins f = +-1 (hinge)" if level > 0 else None)
                          for level in (-1.0, 1.0)]
    artists["zero"] = ax.axhline(0.0, color="grey", lw=0.6)
    ax.set_xlim(grid[0], grid[-1])
    ax.set_ylim(*step_ylim(path, grid))
    ax.set_xlabel("x")
    ax.set_ylabel("f(x) and its bumps")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=9)
    update_step(artists, view, path)
    return artists


def step_ylim(path, grid):
    """A vertical range holding the examples, +-1 and every bump and ``f_t`` of the path."""
    values = [np.asarray(path["y"], dtype=float), np.array([-1.0, 1.0])]
    for f in path["functions"]:
        values += [f(grid[:, None]), f.bumps(grid[:, None]).ravel()]
    lo, hi = min(v.min() for v in values if v.size), max(v.max() for v in values if v.size)
    pad = 0.08 * (hi - lo)
    return lo - pad, hi + pad


def update_step(artists, view, path):
    """Move the artists of :func:`plot_step` to the step of ``view``, in place."""
    grid, t = view["grid"], view["t"]
    for i, line in enumerate(artists["bumps"]):
        if i < len(view["bumps"]):
            line.set_data(grid, view["bumps"][i])
        else:
            line.set_data([], [])
    artists["f"].set_ydata(view["f"])
    X, y = path["X"][:t, 0], path["y"][:t]
    artists["seen"].set_offsets(np.column_stack([X, y]) if t else np.empty((0, 2)))
    colours = np.where(y >= 0, "#d94801", "#08519c") if t else "none"
    artists["seen"].set_facecolors(colours)
    artists["seen"].set_edgecolors(colours)
    artists["mark"].set_xdata([view["x_t"]] * 2 if t >= 1 else [np.nan] * 2)
    for line in artists.get("margins", ()):
        line.set_visible(path["loss"] == "hinge")
    artists["ax"].set_title(_step_title(view, path["loss"]), fontsize=9)
    return artists


def fgd_stepper_widget(loss="hinge", n=12, gamma=1.0, eta=0.5, lam=0.05, random_state=0):
    """Widget: step functional gradient descent one example at a time.

    Controls: ``t`` (the step), ``loss`` (hinge, squared), ``gamma`` of the RBF kernel
    ``exp(-gamma ||x - z||^2)``, the step ``eta`` and ``lam``. The path is recomputed
    when a parameter changes. The frame, the x axis and the legend are drawn once; the
    vertical axis and the lines at 0 and +-1 form a layer drawn anew only when the path
    changes (a parameter or the loss); moving ``t`` only moves the bumps, ``f``, the
    examples and the title in place. No move draws the whole figure.

    Returns
    -------
    ipywidgets.interactive
        With ``controls``, ``view`` and ``result`` (the :func:`step_view` dict plus
        ``path`` and ``figure``).
    """
    import ipywidgets as W

    controls = {
        "t": W.IntSlider(value=0, min=0, max=n, description="step t"),
        "loss": W.Dropdown(options=list(rkhs.LOSSES)[::-1], value=loss, description="loss"),
        "gamma": W.FloatLogSlider(value=gamma, base=10, min=-1, max=1, step=0.1, description="gamma"),
        "eta": W.FloatSlider(value=eta, min=0.05, max=1.0, step=0.05, description="eta"),
        "lam": W.FloatSlider(value=lam, min=0.0, max=0.5, step=0.01, description="lam"),
    }
    cache = {}
    # fixed margins, not a layout of the first state: the room for the y tick labels of
    # every path's range (a diverging one reaches -50), the two-line title and the legend
    fig_view = FigureView(figsize=(9.0, 3.6), layout=None)
    fig_view.fig.subplots_adjust(left=0.08, right=0.76, bottom=0.14, top=0.84)
    artists = {}

    def update(t, loss, gamma, eta, lam):
        key = (loss, gamma, eta, lam)
        if key not in cache:                         # the path of these parameters, once
            cache.clear()
            X, y = stepper_data(loss, n, random_state)
            path = fgd_path(RBF(gamma), X, y, loss, eta, lam)
            cache[key] = path, step_ylim(path, np.linspace(-3.5, 3.5, 200))
        path, ylim = cache[key]
        view = step_view(path, t)
        ax = fig_view.axes
        if not artists:
            artists.update(plot_step(view, path, ax=ax))
            # the background (frame, x axis, legend) is drawn once; what a path fixes (its
            # vertical range, the hinge loss's margins or none) is a layer over it, drawn
            # anew when the parameters move; a step moves only the bumps, f, the examples
            fig_view.animate(*artists["bumps"], artists["f"], artists["seen"], artists["mark"],
                             ax.title)
            fig_view.animate(*artists["margins"], artists["zero"], ax.yaxis, layer=True)
        new_path = artists.get("key") != key
        artists["key"] = key
        ax.set_ylim(*ylim)
        update_step(artists, view, path)
        fig_view.render(layer=new_path)
        view.update({"path": path, "figure": fig_view.fig})
        return view

    return interactive_figure(update, fig_view, controls)


# ---------------------------------------------------------------------------
# (b) the budget against accuracy and prediction time
# ---------------------------------------------------------------------------

_BUDGET_CACHE: dict = {}


#: step sizes that suit each loss on the circles (the squared loss's bumps weigh 2 eta (y - f))
DEFAULT_ETA = {"hinge": 0.5, "squared": 0.1}


def budget_rows(rule="oldest", loss="hinge", budgets=(5, 10, 20, 50, 100), n=400, gamma=2.0,
                eta=None, lam=0.001, repeats=3, random_state=0):
    """:func:`kernelcourse.rkhs.budget_tradeoff` on the circles, cached per argument tuple.

    Trains on ``datasets.circles(n, random_state)`` in the order given and tests on
    ``datasets.circles(n, random_state + 1)``; for the squared loss the labels are the
    regression targets. ``eta=None`` takes :data:`DEFAULT_ETA` of the loss. Returns the
    list of rows (the unlimited machine last).
    """
    eta = DEFAULT_ETA[check_choice(loss, "loss", rkhs.LOSSES)] if eta is None else eta
    key = (rule, loss, tuple(budgets), n, gamma, eta, lam, repeats, random_state)
    if key not in _BUDGET_CACHE:
        X, y = datasets.circles(n, noise=0.1, random_state=random_state)
        X_test, y_test = datasets.circles(n, noise=0.1, random_state=random_state + 1)
        _BUDGET_CACHE[key] = rkhs.budget_tradeoff(RBF(gamma), X, y, X_test, y_test, budgets, loss=loss,
                                                  eta=eta, lam=lam, budget_rule=rule, repeats=repeats)
    return _BUDGET_CACHE[key]


def _budget_label(row):
    return "none" if row["budget"] is None else str(row["budget"])


def plot_budget(rows, selected, loss="hinge", axes=None):
    """Score and prediction-time ratio against the number of bumps kept; ``selected`` is a row index.

    Without ``axes`` (two Axes), draws on a new figure from
    :func:`~kernelcourse.widgets.new_figure` (pyplot does not track it). Returns the axes;
    ``axes[i].lines[1]`` is the ring around the selected row.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.5, 3.2))
    terms = [r["n_terms"] for r in rows]
    score_name = "test accuracy" if loss == "hinge" else "test mean squared error"
    for ax, key, name in ((axes[0], "score", score_name), (axes[1], "time_ratio", "prediction time / unlimited")):
        ax.plot(terms, [r[key] for r in rows], "o-", color="#3182bd")
        ax.plot(terms[selected], rows[selected][key], "o", ms=11, mfc="none", mec="#d94801", mew=2)
        ax.set_xscale("log")
        ax.set_xlabel("bumps kept")
        ax.set_ylabel(name)
    axes[0].set_title(f"budget {_budget_label(rows[selected])}", fontsize=10)
    return axes


def budget_line(row, full, loss="hinge"):
    """One sentence describing a row of :func:`budget_rows` against the unlimited machine ``full``."""
    score = (f"test accuracy {row['score']:.3f}" if loss == "hinge"
             else f"test mean squared error {row['score']:.3f}")
    return (f"budget {_budget_label(row)}: {row['n_terms']} bumps, {score}, prediction takes "
            f"{row['time_ratio']:.2f} x the time of the unlimited machine ({full['n_terms']} bumps)")


def budget_widget(budgets=(5, 10, 20, 50, 100), n=400, rule="oldest", loss="hinge"):
    """Widget: the budget against test accuracy and prediction time.

    Controls: ``budget`` (a selection over ``budgets`` and "none"), ``rule`` (drop the
    oldest or the smallest ``|alpha_i|``), ``loss``. Draws :func:`plot_budget` and prints
    one line (:func:`budget_line`) under it. The times are measured on this machine.
    """
    import ipywidgets as W

    options = [(str(b), i) for i, b in enumerate(budgets)] + [("none", len(budgets))]
    controls = {
        "budget": W.SelectionSlider(options=options, value=len(budgets) // 2, description="budget"),
        "rule": W.Dropdown(options=list(rkhs.BUDGET_RULES), value=rule, description="drop"),
        "loss": W.Dropdown(options=list(rkhs.LOSSES)[::-1], value=loss, description="loss"),
    }
    for r in rkhs.BUDGET_RULES:                        # every run made once, when built
        for lo in rkhs.LOSSES:
            budget_rows(r, lo, tuple(budgets), n)
    view = FigureView(1, 2, figsize=(8.5, 3.2))
    panels = ("score", "time_ratio")

    def draw(budget, rule, loss, show=True):
        rows = budget_rows(rule, loss, tuple(budgets), n)
        if view.use((rule, loss)):          # each run its own figure (curves, scales), drawn whole once
            plot_budget(rows, budget, loss, axes=view.axes)
            view.animate(view.axes[0].lines[1], view.axes[1].lines[1], view.axes[0].title)
        row = rows[budget]
        for ax, key in zip(view.axes, panels):      # the ring around the selected budget
            ax.lines[1].set_data([row["n_terms"]], [row[key]])
        view.axes[0].set_title(f"budget {_budget_label(row)}", fontsize=10)
        view.render(show=show)
        return rows, row

    def update(budget, rule, loss):
        rows, row = draw(budget, rule, loss)
        print(budget_line(row, rows[-1], loss))
        return {"rows": rows, "row": row, "figure": view.fig}

    widget = interactive_figure(update, view, controls)
    start = controls["budget"].value, controls["rule"].value, controls["loss"].value
    view.draw_scenes([(r, lo) for r in rkhs.BUDGET_RULES for lo in rkhs.LOSSES], start[1:],
                     lambda run: draw(start[0], *run, show=False))
    return widget


# ---------------------------------------------------------------------------
# (c) the bandwidth against bias and variance
# ---------------------------------------------------------------------------

def plot_bandwidth(result, gamma, ax=None, n_shown=15):
    """Fits on resampled data (thin), their mean (thick), the truth (dashed).

    Without ``ax``, draws on a new figure from :func:`~kernelcourse.widgets.new_figure`
    (pyplot does not track it). Returns the Axes; its first ``n_shown`` lines are the
    fits and the next one their mean, which :func:`bandwidth_widget` moves in place.
    The legend stands beside the axes.
    """
    if ax is None:
        _, ax = new_figure(figsize=(8.0, 3.4))
    grid = result["grid"]
    for i, fit in enumerate(result["fits"][:n_shown]):
        ax.plot(grid, fit, lw=0.6, color="#bdbdbd", label="fits to resampled data" if i == 0 else None)
    ax.plot(grid, result["fits"].mean(axis=0), lw=2.2, color="#3182bd", label="mean fit")
    ax.plot(grid, result["truth"], "k--", lw=1.2, label="sin(2 pi x)")
    ax.set_ylim(-2.0, 2.0)
    ax.set_xlabel("x")
    ax.set_ylabel("fitted f(x)")
    # beside the axes: at a large gamma the fits fill the whole box
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=9)
    ax.set_title(_bandwidth_title(result, gamma), fontsize=10)
    return ax


def _bandwidth_title(result, gamma):
    return (f"gamma = {gamma:.3g}: bias^2 = {result['bias2']:.4f}, variance = "
            f"{result['variance']:.4f}")


def bandwidth_widget(gamma=10.0, lam=0.01, n=30, n_datasets=30, n_shown=15):
    """Widget: the RBF ``gamma`` (and ``lam``) against bias and variance (lecture 5.11).

    Each change refits :func:`kernelcourse.rkhs.representer_minimiser` on ``n_datasets``
    fresh samples of ``n`` points (:func:`kernelcourse.rkhs.bandwidth_bias_variance`,
    about ten milliseconds) and moves the fits in place.
    Small ``gamma`` (wide bumps): smooth fits that miss the curve (bias); large
    ``gamma`` (narrow bumps): fits that follow the noise (variance).
    """
    import ipywidgets as W

    controls = {
        "gamma": W.FloatLogSlider(value=gamma, base=10, min=-1, max=3, step=0.25, description="gamma"),
        "lam": W.FloatLogSlider(value=lam, base=10, min=-4, max=0, step=0.5, description="lam"),
    }
    view = FigureView(figsize=(8.0, 3.4))

    def update(gamma, lam):
        result = rkhs.bandwidth_bias_variance(RBF(gamma), lam=lam, n=n, n_datasets=n_datasets)
        ax = view.axes
        shown = min(n_shown, len(result["fits"]))
        if not ax.lines:
            plot_bandwidth(result, gamma, ax=ax, n_shown=shown)
            view.animate(*ax.lines[:shown + 1], ax.title)
        for line, fit in zip(ax.lines[:shown], result["fits"]):
            line.set_ydata(fit)
        ax.lines[shown].set_ydata(result["fits"].mean(axis=0))
        ax.set_title(_bandwidth_title(result, gamma), fontsize=10)
        view.render()
        result["figure"] = view.fig
        return result

    return interactive_figure(update, view, controls)
