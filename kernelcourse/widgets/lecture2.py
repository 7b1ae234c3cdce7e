"""Widgets for lecture 2: random Fourier features against their error, and the ways to learn
against their cost.

Two builders, each wiring controls to plain functions of this module, of
:mod:`kernelcourse.random_features` and of :mod:`kernelcourse.sgd` (which the tests
call and check without a browser):

* :func:`rff_error_widget` (2.8, 2.9): the number of features ``D`` against the
  error of ``psi(x).psi(y)``: the observed frequency of an error ``>= a`` over
  many independent draws beside Hoeffding's ``2 exp(-D a^2 / 8)``, and the
  largest error over a set of points against ``D`` beside the union bound.
  Computation: :func:`rff_error_data`, :func:`max_error_curve`; drawing:
  :func:`plot_rff_error`.
* :func:`cost_widget` (2.6, 2.10): a way of learning and a size that varies,
  against the measured time and memory beside the cost model's formula, at sizes
  (:data:`COST_PLANS`) large enough for the formula's growing term to show, the
  exponents fitted over the largest of them. Computation: :func:`cost_rows`; drawing:
  :func:`plot_cost`; measuring every pair ahead of the moves, in worker processes:
  :class:`CostMeasurements` (all three in :mod:`kernelcourse.widgets.lecture2_costs`,
  imported here).

:func:`plot_decision` draws lecture 2.7's demo. Each builder returns an
``ipywidgets.interactive``; its ``controls`` attribute maps argument names to the
controls, ``view`` is the widget's :class:`~kernelcourse.widgets.FigureView` (one
figure, updated in place), and ``result`` holds the dict the last callback computed
(with the ``figure``).
"""
from __future__ import annotations

import math
import os
from functools import lru_cache

import numpy as np

from kernelcourse import random_features as rf
from kernelcourse import cost_model, sgd
from kernelcourse._validation import check_positive
from kernelcourse.widgets import FigureView, interactive_figure, new_figure
from kernelcourse.widgets.lecture2_costs import (COST_FIGSIZE, COST_FIT, COST_MARGINS, COST_PLANS,
                                                 COST_VARIES, CostMeasurements, _fixed_text,
                                                 _move_cost_lines, _slope, cost_agreement,
                                                 cost_picture, cost_plan, cost_rows, plot_cost)

__all__ = [
    "rff_error_data", "max_error_curve", "plot_rff_error", "rff_error_widget",
    "cost_rows", "cost_plan", "cost_agreement", "CostMeasurements", "cost_picture", "plot_cost",
    "cost_widget", "plot_decision", "D_CHOICES", "COST_VARIES", "COST_PLANS", "COST_FIT",
]

#: the values of D the error widget offers
D_CHOICES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)



# ---------------------------------------------------------------------------
# (a) D against the approximation error
# ---------------------------------------------------------------------------

_X_PAIR = np.array([0.2, 0.7])
_Y_PAIR = np.array([0.5, 0.45])


def rff_error_data(D, paired=False, gamma=5.0, n_draws=2000, random_state=0):
    """Errors of ``psi(x).psi(y)`` at one pair over ``n_draws`` independent maps of width ``D``.

    The pair is fixed, ``x = (0.2, 0.7)``, ``y = (0.5, 0.45)``, so ``K(x, y) =
    exp(-gamma 0.1525)``. Returns a dict with ``errors``, the grid ``a``, the
    observed frequency ``freq`` of ``|error| >= a``, Hoeffding's ``bound`` at each
    ``a`` (capped at 1), ``K``, the observed variance ``var`` (the mean squared
    error, the estimate being unbiased) and the formula's ``var_formula``.
    """
    gamma = check_positive(gamma, "gamma")
    errors = rf.approximation_errors(_X_PAIR, _Y_PAIR, gamma, D, n_draws, paired, random_state)
    a = np.linspace(0.0, 1.0, 101)
    K = math.exp(-gamma * float(((_X_PAIR - _Y_PAIR) ** 2).sum()))
    return {"D": D, "paired": paired, "errors": errors, "a": a,
            "freq": rf.error_frequency(errors, a),
            "bound": np.minimum(1.0, rf.hoeffding_bound(D, a, paired)),
            "K": K, "var": float(np.mean(errors**2)),
            "var_formula": float(rf.rff_variance(K, D, paired))}


@lru_cache(maxsize=8)
def max_error_curve(paired=False, gamma=5.0, n_points=40, delta=0.05, random_state=0):
    """The largest error over all pairs of ``n_points`` points in the unit square, for each D.

    Returns a dict with ``D`` (:data:`D_CHOICES`), ``max_error`` (a fresh draw
    per ``D``), the union bound's level ``union_level`` (the error all pairs stay
    below with probability ``>= 1 - delta``) and ``n_pairs``.
    """
    X = np.random.default_rng(random_state).uniform(size=(n_points, 2))
    Ds = np.array(D_CHOICES)
    n_pairs = n_points * (n_points + 1) // 2
    return {"D": Ds, "n_pairs": n_pairs, "delta": delta,
            "max_error": rf.max_error_over_points(X, gamma, Ds, paired, random_state),
            "union_level": rf.union_error_level(Ds, n_pairs, delta, paired)}


def plot_rff_error(data, curve, axes=None):
    """Left: observed frequency of ``|error| >= a`` and Hoeffding's bound; right: largest error against D.

    Draws on ``axes`` (two Axes) or on a new figure from
    :func:`~kernelcourse.widgets.new_figure`; returns the axes. ``axes[0].lines`` are
    the observed frequency and the bound, ``axes[1].lines`` the largest error, the
    union level and the mark at ``D``: :func:`rff_error_widget` moves them in place.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.48, 4.3))
    left, right = axes
    name = "2 exp(-D a²/4)" if data["paired"] else "2 exp(-D a²/8)"
    left.plot(data["a"], data["freq"], label=f"observed over {len(data['errors'])} draws")
    left.plot(data["a"], data["bound"], "--", label=f"Hoeffding {name}")
    left.set_xlabel("error level a")
    left.set_ylabel("P(|K(x,y) - ψ(x)·ψ(y)| ≥ a)")
    left.set_title(f"one pair, D = {data['D']}")
    left.set_ylim(-0.05, 1.05)
    # under the axes: the bound sweeps across the panel as D moves
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1)
    right.loglog(curve["D"], curve["max_error"], "o-", label="largest error, all pairs")
    right.loglog(curve["D"], curve["union_level"], "--",
                 label=f"union bound, {curve['n_pairs']} pairs, δ = {curve['delta']}")
    right.axvline(data["D"], color="grey", lw=0.8)
    right.set_xlabel("number of features D")
    right.set_ylabel("error")
    right.legend(fontsize=8)
    return axes


def rff_error_widget(D=64, paired=False, gamma=5.0, n_draws=2000):
    """Widget: ``D`` (and the paired variant) against the approximation error.

    Controls: ``D`` (a selection over :data:`D_CHOICES`) and ``paired`` (the
    [cos, sin] map). Prints the kernel value, the observed and the predicted
    variance, and draws :func:`plot_rff_error`. The errors for every ``D`` and both
    maps are drawn once, when the widget is built (about a second); a move of ``D``
    then moves the curves and the mark in place; a switch of the map also replaces the
    right panel's curves and the bound's name, with a full render.
    """
    import ipywidgets as W

    table = {(d, p): rff_error_data(d, p, gamma, n_draws) for d in D_CHOICES for p in (False, True)}
    controls = {
        "D": W.SelectionSlider(options=list(D_CHOICES), value=D, description="D"),
        "paired": W.Checkbox(value=paired, description="paired [cos, sin]"),
    }
    view = FigureView(1, 2, figsize=(8.48, 4.3))
    shown: dict = {}

    def update(D, paired):
        data = dict(table[(D, paired)])
        curve = max_error_curve(paired, gamma)
        left, right = view.axes
        full = shown.get("paired") != paired          # other curves and legends: a full render
        if not shown:
            plot_rff_error(data, curve, axes=view.axes)
            view.animate(*left.lines, left.title, right.lines[-1])
            both = [max_error_curve(p, gamma) for p in (False, True)]
            right.set_ylim(0.5 * min(c["max_error"].min() for c in both),
                           2.0 * max(c["union_level"].max() for c in both))
        elif full:
            right.lines[0].set_ydata(curve["max_error"])
            right.lines[1].set_ydata(curve["union_level"])
            name = "2 exp(-D a²/4)" if paired else "2 exp(-D a²/8)"
            left.get_legend().get_texts()[1].set_text(f"Hoeffding {name}")
        shown["paired"] = paired
        left.lines[0].set_ydata(data["freq"])
        left.lines[1].set_ydata(data["bound"])
        left.set_title(f"one pair, D = {D}")
        right.lines[-1].set_xdata([D, D])
        view.render(full=full)
        print(f"K(x, y) = {data['K']:.3f}; variance of psi(x).psi(y): observed {data['var']:.5f}, "
              f"formula {data['var_formula']:.5f}; D for error <= 0.1 with probability 0.95: "
              f"{rf.features_needed(0.1, 0.05, paired)}")
        data.update({"curve": curve, "figure": view.fig})
        return data

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) the way of learning against time and memory (measured and drawn in lecture2_costs)
# ---------------------------------------------------------------------------

#: how many worker processes measure the cost widget's pairs in the background (0: all here)
DEFAULT_COST_PROCESSES = 2

#: the environment variable that, when set, says how many instead (``tools/execute_notebooks.py``
#: sets it to 0: a notebook executed without a reader never moves a control, so the other 23
#: pairs, some 40 CPU seconds, would be measured for no one, on the cores its cells need)
COST_PROCESSES_VARIABLE = "KERNELCOURSE_COST_PROCESSES"


def _cost_processes(processes=None) -> int:
    """``processes``, else the environment variable :data:`COST_PROCESSES_VARIABLE`, else
    :data:`DEFAULT_COST_PROCESSES`."""
    if processes is not None:
        return processes
    raw = os.environ.get(COST_PROCESSES_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_COST_PROCESSES
    if not raw.isdigit():
        raise ValueError(f"{COST_PROCESSES_VARIABLE} must be a number of processes (0 or more); "
                         f"got {raw!r}")
    return int(raw)


def cost_widget(way="gram", vary="n", processes=None):
    """Widget: the way of learning and the varied size against measured time and memory.

    Controls: ``way`` (the six ways of :data:`kernelcourse.sgd.WAYS`) and ``vary``
    (n, d, D or T; the others fixed as :data:`COST_PLANS` says for the pair). Prints the
    table's row for the way, the sizes and the exponents fitted over the largest
    :data:`COST_FIT` of them, beside the model's, and :func:`cost_agreement`; draws
    :func:`plot_cost`. The times are CPU seconds measured on this machine. Every (way,
    vary) pair is measured and drawn ahead of the moves (:class:`CostMeasurements`: the
    first pair while the widget is built, the other 23, each training its way at five sizes,
    in two worker processes in the background, done some seconds later), so a move only
    shows its picture; a move to a pair still being measured waits for it.
    ``widget.costs.wait()`` waits for all of them. ``processes`` (default: the environment
    variable :data:`COST_PROCESSES_VARIABLE`, else :data:`DEFAULT_COST_PROCESSES`) is the number
    of workers; with 0 each pair is measured here when first shown.
    """
    import ipywidgets as W

    controls = {
        "way": W.Dropdown(options=list(sgd.WAYS), value=way, description="way"),
        "vary": W.ToggleButtons(options=list(COST_VARIES), value=vary, description="vary"),
    }
    table = {r["way"]: r for r in cost_model.cost_table()}
    costs = CostMeasurements(first=way, vary=vary, processes=_cost_processes(processes))
    view = FigureView(1, 2, figsize=COST_FIGSIZE, layout=None)
    view.fig.subplots_adjust(**COST_MARGINS)

    def update(way, vary):
        rows, png = costs.get(way, vary)
        rows = dict(rows)
        axes = view.axes
        if not axes[0].lines:
            plot_cost(rows, axes=axes)
        else:                                         # the figure follows the picture shown
            _move_cost_lines(rows, axes)
        if png is not None:                           # drawn at the build or before
            view.show(png)
        else:
            costs.pictures[(way, vary)] = view.render(full=True)   # new scales: a full render
        r = table[way]
        sizes, fitted = rows["sizes"], rows["fitted"]
        print(f"{r['description']}: computation {r['computation']}, memory {r['memory']}")
        print(f"varying {vary} over {[int(s) for s in sizes]}, with {_fixed_text(rows)}")
        print(f"fitted over {vary} = {int(sizes[fitted].min())} to {int(sizes[fitted].max())}: "
              f"time ~ {vary}^{_slope(rows['seconds_exponent'])} (model {_slope(rows['operations_exponent'])}), "
              f"memory ~ {vary}^{_slope(rows['bytes_exponent'])} (model {_slope(rows['memory_exponent'])})")
        print(cost_agreement(rows))
        rows["figure"] = view.fig
        return rows

    return interactive_figure(update, view, controls, costs=costs)


# ---------------------------------------------------------------------------
# lecture 2.7's demo
# ---------------------------------------------------------------------------

def plot_decision(model, X, y, ax=None, resolution=120):
    """The sign of a fitted classifier's ``decision_function`` over the unit square, and the points."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 4.2))
    g = np.linspace(0.0, 1.0, resolution)
    G1, G2 = np.meshgrid(g, g)
    F = model.decision_function(np.column_stack([G1.ravel(), G2.ravel()])).reshape(G1.shape)
    ax.contourf(G1, G2, np.sign(F), levels=[-2, 0, 2], colors=["#c6d4f0", "#d8f0c6"])
    ax.contour(G1, G2, F, levels=[0.0], colors="k", linewidths=0.8)
    ax.scatter(X[:, 0], X[:, 1], c=np.where(y > 0, "tab:green", "tab:blue"), s=6)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return ax
