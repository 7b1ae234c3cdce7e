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
  against the measured time and memory beside the cost model's formula.
  Computation: :func:`cost_rows`; drawing: :func:`plot_cost`.

:func:`plot_decision` draws lecture 2.7's demo. Each builder returns an
``ipywidgets.interactive``; its ``controls`` attribute maps argument names to the
controls, ``view`` is the widget's :class:`~kernelcourse.widgets.FigureView` (one
figure, updated in place), and ``result`` holds the dict the last callback computed
(with the ``figure``).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from kernelcourse import random_features as rf
from kernelcourse import sgd
from kernelcourse._validation import check_positive
from kernelcourse.widgets import FigureView, figure_png, interactive_figure, new_figure

__all__ = [
    "rff_error_data", "max_error_curve", "plot_rff_error", "rff_error_widget",
    "cost_rows", "CostMeasurements", "cost_picture", "plot_cost", "cost_widget", "plot_decision", "D_CHOICES", "COST_BASE",
]

#: the values of D the error widget offers
D_CHOICES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)

#: the fixed sizes of the cost widget, and the sizes each varied one runs over
COST_BASE = {"n": 400, "d": 8, "D": 200, "T": 2000}
COST_SIZES = {"n": (100, 200, 400, 800), "d": (4, 8, 16, 32), "D": (100, 200, 400, 800),
              "T": (1000, 2000, 4000, 8000)}


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
        _, axes = new_figure(1, 2, figsize=(10, 3.6))
    left, right = axes
    name = "2 exp(-D a²/4)" if data["paired"] else "2 exp(-D a²/8)"
    left.plot(data["a"], data["freq"], label=f"observed over {len(data['errors'])} draws")
    left.plot(data["a"], data["bound"], "--", label=f"Hoeffding {name}")
    left.set_xlabel("error level a")
    left.set_ylabel("P(|K(x,y) - ψ(x)·ψ(y)| ≥ a)")
    left.set_title(f"one pair, D = {data['D']}")
    left.set_ylim(-0.05, 1.05)
    left.legend(fontsize=8)
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
    view = FigureView(1, 2, figsize=(10, 3.6))
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
# (b) the way of learning against time and memory
# ---------------------------------------------------------------------------

def cost_rows(way, vary, sizes=None, base=None, repeats=1, clock="cpu"):
    """Measure ``way`` while ``vary`` runs over ``sizes`` (the other sizes from ``base``).

    Returns a dict with the ``sizes``, the measured ``seconds`` and ``bytes``
    (:func:`kernelcourse.sgd.measure_way`), the model's ``operations`` and
    ``memory`` (:func:`kernelcourse.sgd.predicted_cost`, the memory plus the
    training set ``n d``), and the fitted growth exponents of all four.
    """
    if vary not in COST_BASE:
        raise ValueError(f"vary must be one of {list(COST_BASE)}; got vary={vary!r}")
    sizes = tuple(COST_SIZES[vary] if sizes is None else sizes)
    base = dict(COST_BASE if base is None else base)
    out = {"way": way, "vary": vary, "sizes": np.array(sizes, dtype=float),
           "seconds": [], "bytes": [], "operations": [], "memory": []}
    for s in sizes:
        size = dict(base, **{vary: s})
        t, m = sgd.measure_way(way, repeats=repeats, clock=clock, **size)
        ops, mem = sgd.predicted_cost(way, **size)
        out["seconds"].append(t)
        out["bytes"].append(m)
        out["operations"].append(ops)
        out["memory"].append(8.0 * (mem + size["n"] * size["d"]))
    for key in ("seconds", "bytes", "operations", "memory"):
        out[key] = np.array(out[key], dtype=float)
        out[f"{key}_exponent"] = sgd.growth_exponent(out["sizes"], out[key])
    return out


def plot_cost(rows, axes=None):
    """Measured time and memory against the varied size, beside the model scaled to the last point."""
    if axes is None:
        _, axes = new_figure(1, 2, figsize=COST_FIGSIZE)
    x = rows["sizes"]
    for ax, measured, model, label in [(axes[0], rows["seconds"], rows["operations"], "time (s)"),
                                       (axes[1], rows["bytes"], rows["memory"], "memory (bytes)")]:
        scaled = model * measured[-1] / model[-1]
        ax.loglog(x, measured, "o-", label="measured")
        ax.loglog(x, scaled, "--", label="cost model (scaled)")
        ax.set_xlabel(rows["vary"])
        ax.set_ylabel(label)
        ax.legend(fontsize=9)
        _at_least_a_decade(ax)
    _cost_titles(rows, axes)
    return axes


def _at_least_a_decade(ax):
    """Widen a log axis' vertical range to at least a factor 10 around its data (a flat
    curve then looks flat, and the axis has round major ticks only: no long minor labels)."""
    from matplotlib.ticker import NullFormatter

    lo, hi = ax.get_ylim()
    if lo > 0 and hi / lo < 10.0:
        middle = np.sqrt(lo * hi)
        ax.set_ylim(middle / np.sqrt(10.0), middle * np.sqrt(10.0))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _cost_titles(rows, axes):
    axes[0].set_title(f"{rows['way']}: time exponent {rows['seconds_exponent']:.2f} "
                      f"(model {rows['operations_exponent']:.2f})", fontsize=10)
    axes[1].set_title(f"memory exponent {rows['bytes_exponent']:.2f} "
                      f"(model {rows['memory_exponent']:.2f})", fontsize=10)


def _move_cost_lines(rows, axes):
    """Put the rows of another (way, size) on the axes :func:`plot_cost` drew."""
    x = rows["sizes"]
    for ax, measured, model in [(axes[0], rows["seconds"], rows["operations"]),
                                (axes[1], rows["bytes"], rows["memory"])]:
        ax.lines[0].set_data(x, measured)
        ax.lines[1].set_data(x, model * measured[-1] / model[-1])
        ax.set_xlabel(rows["vary"])
        ax.set_autoscale_on(True)            # _at_least_a_decade's limits were for other rows
        ax.relim()
        ax.autoscale_view()
        _at_least_a_decade(ax)
    _cost_titles(rows, axes)


#: the cost widget's figure: its size and fixed margins (the same for every picture, so that
#: switching pictures does not move the axes)
COST_FIGSIZE = (10, 3.4)
COST_MARGINS = dict(left=0.08, right=0.985, bottom=0.16, top=0.89, wspace=0.28)


def cost_picture(rows, dpi=100) -> bytes:
    """The PNG of :func:`plot_cost` for these rows, on the cost widget's figure."""
    fig, axes = new_figure(1, 2, figsize=COST_FIGSIZE)
    fig.subplots_adjust(**COST_MARGINS)
    plot_cost(rows, axes=axes)
    return figure_png(fig, dpi=dpi, tight=False)


def _plain(rows):
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in rows.items()}


def _arrays(rows):
    return {k: (np.array(v, dtype=float) if isinstance(v, list) else v) for k, v in rows.items()}


def measure_and_draw(keys):
    """Yield ``(key, rows, png)`` for each ``(way, vary)`` key: :func:`cost_rows` with BLAS on
    one thread, and its :func:`cost_picture` (what a worker of :class:`CostMeasurements` does)."""
    from threadpoolctl import threadpool_limits

    for way, vary in keys:
        with threadpool_limits(1):
            rows = cost_rows(way, vary)
        yield (way, vary), rows, cost_picture(rows)


def _worker_main(argv) -> int:
    """``python -m kernelcourse.widgets.lecture2 KEYS_JSON``: one JSON line per key on stdout
    (a worker of :class:`CostMeasurements`)."""
    import base64
    import json
    import sys

    for key, rows, png in measure_and_draw([tuple(k) for k in json.loads(argv[0])]):
        sys.stdout.write(json.dumps({"key": key, "rows": _plain(rows),
                                     "png": base64.b64encode(png).decode()}) + "\n")
        sys.stdout.flush()
    return 0


class CostMeasurements:
    """Rows and pictures of every (way, vary) pair of the cost widget, measured in the background.

    The pair ``(first, vary)`` is measured and drawn in this process when this is made; then
    the others in ``processes`` fresh Python processes
    (``python -m kernelcourse.widgets.lecture2``, so nothing of this process is copied or
    re-run; each measures the CPU time and memory of its own, with BLAS on one thread, as
    this process does), those varying ``vary`` first (a move of the ``way`` control), then
    the other sizes of ``first``. A thread per worker collects what it sends. :meth:`get`
    waits for a pair that is still being measured; a pair no worker returned (no processes
    here, a worker that failed) is measured here and has no picture yet.
    """

    def __init__(self, first="gram", vary="n", processes=2):
        import threading

        if first not in sgd.WAYS:
            raise ValueError(f"way must be one of {list(sgd.WAYS)}; got way={first!r}")
        if vary not in COST_BASE:
            raise ValueError(f"vary must be one of {list(COST_BASE)}; got vary={vary!r}")
        self.measured, self.pictures = {}, {}
        self._done = threading.Condition()
        others = sorted(((w, v) for w in sgd.WAYS for v in COST_BASE if (w, v) != (first, vary)),
                        key=lambda key: (key[1] != vary, key[0] != first))
        self._pending = set(others)
        self.workers, self._running = [], 0
        for key, rows, png in measure_and_draw([(first, vary)]):   # before the workers start
            self.measured[key], self.pictures[key] = rows, png
        n = int(processes)
        for part in range(n):
            self._start_worker(others[part::n])
        with self._done:
            if not self.workers:
                self._pending.clear()

    def _start_worker(self, keys):
        import json
        import subprocess
        import sys
        import threading

        if not keys:
            return
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "kernelcourse.widgets.lecture2", json.dumps(keys)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        except OSError:
            return
        self.workers.append(proc)
        with self._done:
            self._running += 1
        threading.Thread(target=self._collect, args=(proc, keys), daemon=True,
                         name="kernelcourse-cost-widget").start()

    def _collect(self, proc, keys):
        import base64
        import json

        try:
            for line in proc.stdout:
                try:
                    item = json.loads(line)
                    key = tuple(item["key"])
                    rows, png = _arrays(item["rows"]), base64.b64decode(item["png"])
                except (ValueError, KeyError, TypeError):  # a cut line: measured on demand
                    continue
                with self._done:
                    self.measured[key], self.pictures[key] = rows, png
                    self._pending.discard(key)
                    self._done.notify_all()
        finally:
            proc.stdout.close()
            proc.wait()
            with self._done:                              # what it did not send: measured here
                self._pending.difference_update(keys)
                self._running -= 1
                self._done.notify_all()

    def get(self, way, vary):
        """``(rows, png or None)`` of a pair, waiting while a worker still measures it."""
        key = (way, vary)
        with self._done:
            self._done.wait_for(lambda: key not in self._pending)
            rows = self.measured.get(key)
        if rows is None:
            rows = self.measured[key] = cost_rows(way, vary)
        return rows, self.pictures.get(key)

    def close(self) -> None:
        """Stop the workers; the pairs they had not sent are measured here when asked for."""
        for proc in self.workers:
            if proc.poll() is None:
                proc.kill()

    def wait(self, timeout=None) -> bool:
        """Wait until the workers have sent all and ended; whether they have."""
        with self._done:
            return self._done.wait_for(lambda: not self._pending and not self._running, timeout)


def cost_agreement(rows, tolerance=0.3) -> str:
    """One honest sentence: do the measured growth exponents agree with the model's here?

    They agree when both (time and memory) are within ``tolerance`` of the model's. When
    they do not, the sentence says why that happens at small sizes: fixed costs (the
    interpreter, allocation, caches) that the cost model leaves out dominate what is
    measured until the asymptotic term outgrows them.
    """
    gaps = {"time": rows["seconds_exponent"] - rows["operations_exponent"],
            "memory": rows["bytes_exponent"] - rows["memory_exponent"]}
    off = [f"{what} ({gap:+.2f})" for what, gap in gaps.items() if abs(gap) > tolerance]
    if not off:
        return (f"here the measurement follows the model: both exponents within {tolerance} "
                f"of the model's")
    return (f"here the measurement does not follow the model for {' and '.join(off)}: at "
            f"these sizes fixed costs that the model leaves out (the interpreter, allocation, "
            f"caches) still outweigh the growing term; the model describes large sizes")


#: how many worker processes measure the cost widget's pairs in the background (0: all here)
DEFAULT_COST_PROCESSES = 2


def cost_widget(way="gram", vary="n", processes=None):
    """Widget: the way of learning and the varied size against measured time and memory.

    Controls: ``way`` (the six ways of :data:`kernelcourse.sgd.WAYS`) and ``vary``
    (n, d, D or T; the others fixed at :data:`COST_BASE`). Prints the table's row
    for the way and the fitted exponents; draws :func:`plot_cost`. The times are
    CPU seconds measured on this machine. Every (way, vary) pair is measured and drawn
    ahead of the moves (:class:`CostMeasurements`: the first pair while the widget is
    built, the other 23, each training its way four times over, in two worker processes
    in the background, done some seconds later), so a move only shows its
    picture; a move to a pair still being measured waits for it. ``widget.costs.wait()``
    waits for all of them.
    """
    import ipywidgets as W

    controls = {
        "way": W.Dropdown(options=list(sgd.WAYS), value=way, description="way"),
        "vary": W.ToggleButtons(options=list(COST_BASE), value=vary, description="vary"),
    }
    table = {r["way"]: r for r in sgd.cost_table()}
    costs = CostMeasurements(first=way, vary=vary,
                             processes=DEFAULT_COST_PROCESSES if processes is None else processes)
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
        print(f"{r['description']}: computation {r['computation']}, memory {r['memory']}")
        print(f"varying {vary} over {[int(s) for s in rows['sizes']]}: time ~ {vary}^"
              f"{rows['seconds_exponent']:.2f} (model {rows['operations_exponent']:.2f}), memory ~ "
              f"{vary}^{rows['bytes_exponent']:.2f} (model {rows['memory_exponent']:.2f})")
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


if __name__ == "__main__":          # a worker of CostMeasurements
    import sys

    sys.exit(_worker_main(sys.argv[1:]))
