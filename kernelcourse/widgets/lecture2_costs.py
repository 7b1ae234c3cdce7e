"""Lecture 2's cost widget, its measurements: the ways to learn against their time and memory.

What :func:`kernelcourse.widgets.lecture2.cost_widget` shows, computed and drawn here (and
imported from :mod:`kernelcourse.widgets.lecture2` like the rest of the lecture's widgets):

* :data:`COST_PLANS`: for each way and varied size (:data:`COST_VARIES`), the sizes held
  fixed and the five the varied one runs over, large enough for the cost model's growing term
  to show; :func:`cost_plan` reads them;
* :func:`cost_rows`: the measured CPU time and memory at those sizes
  (:func:`kernelcourse.cost_model.measure_way`) beside the model's
  (:func:`kernelcourse.cost_model.predicted_cost`), with the growth exponents fitted over the
  largest :data:`COST_FIT` sizes; :func:`cost_agreement` says in one sentence whether they
  agree;
* :func:`plot_cost` and :func:`cost_picture`: the two panels and their PNG;
* :class:`CostMeasurements`: every (way, size) pair measured ahead of the moves, in worker
  processes (``python -m kernelcourse.widgets.lecture2_costs``) that run in the background.
"""
from __future__ import annotations

import math

import numpy as np

from kernelcourse import cost_model, sgd
from kernelcourse.widgets import figure_png, new_figure

__all__ = ["COST_VARIES", "COST_FIT", "COST_PLANS", "COST_MIN_TOTAL", "COST_FIGSIZE", "COST_MARGINS",
           "WORKER_NICENESS", "cost_plan", "cost_rows", "plot_cost", "cost_picture",
           "measure_and_draw", "CostMeasurements", "cost_agreement"]


def _doubling(first, count=5):
    return tuple(first * 2**i for i in range(count))


#: the sizes the cost widget varies, one at a time
COST_VARIES = ("n", "d", "D", "T")


#: how many of a plan's largest sizes the growth exponents are fitted over
COST_FIT = 3


#: for each (way, varied size): the other three sizes, held fixed, and the five sizes the varied
#: one runs over (each twice the one before). They are chosen, by measuring on a shared 2-core
#: machine, so that over the three largest the term of the cost model that grows with the varied
#: size is what the clock sees, not the fixed costs the model leaves out. Those are two: about
#: 10 microseconds of interpreter work per SGD step on w (one or two per step on u), and,
#: beside every kernel value or random feature, one exp or cos, which costs about as much as a
#: hundred of the d multiplications the model counts. Hence T small where n, d or D vary
#: (fewer steps to pay for), d in the thousands where d varies, and n d small against T where T
#: varies for the ways whose model has a term without T.
COST_PLANS = {
    # n: the features ways do not depend on it (model exponent 0); the cached ones pay n d D
    # for their features, the Gram matrix n^2 d, the kernel n d per step
    ("features", "n"): (dict(d=8, D=200, T=1000), _doubling(250)),
    ("rff", "n"): (dict(d=8, D=200, T=1000), _doubling(250)),
    ("cached_features", "n"): (dict(d=8, D=1000, T=100), _doubling(250)),
    ("rff_cached", "n"): (dict(d=8, D=1000, T=100), _doubling(250)),
    ("kernel", "n"): (dict(d=8, D=200, T=400), _doubling(1000)),
    ("gram", "n"): (dict(d=8, D=200, T=100), _doubling(200)),
    # d: the d multiplications of a feature or a kernel value outgrow its one cos or exp
    # only at d in the thousands (not powers of 2, and D small, so that no matrix strides
    # through the caches in step with their sets, or outgrows them at the largest d only)
    ("features", "d"): (dict(n=100, D=150, T=250), _doubling(300)),
    ("rff", "d"): (dict(n=100, D=150, T=250), _doubling(300)),
    ("cached_features", "d"): (dict(n=200, D=250, T=100), _doubling(300)),
    ("rff_cached", "d"): (dict(n=200, D=250, T=100), _doubling(300)),
    ("kernel", "d"): (dict(n=200, D=200, T=250), _doubling(300)),
    ("gram", "d"): (dict(n=400, D=200, T=200), _doubling(300)),
    # D: a step on w costs d D, beside its fixed interpreter work; the ways on u ignore D
    ("features", "D"): (dict(n=400, d=8, T=250), _doubling(1000)),
    ("rff", "D"): (dict(n=400, d=8, T=250), _doubling(1000)),
    ("cached_features", "D"): (dict(n=400, d=8, T=200), _doubling(500)),
    ("rff_cached", "D"): (dict(n=400, d=8, T=200), _doubling(500)),
    ("kernel", "D"): (dict(n=400, d=8, T=1000), _doubling(100)),
    ("gram", "D"): (dict(n=400, d=8, T=1000), _doubling(100)),
    # T: every way pays per step; the cached ways also pay once for their cache, made small
    ("features", "T"): (dict(n=400, d=8, D=200), _doubling(500)),
    ("rff", "T"): (dict(n=400, d=8, D=200), _doubling(500)),
    ("kernel", "T"): (dict(n=400, d=8, D=200), _doubling(500)),
    ("cached_features", "T"): (dict(n=50, d=2, D=200), _doubling(2000)),
    ("rff_cached", "T"): (dict(n=50, d=2, D=200), _doubling(2000)),
    ("gram", "T"): (dict(n=100, d=2, D=200), _doubling(2000)),
}


def cost_plan(way, vary):
    """``(fixed, sizes)`` of :data:`COST_PLANS` for a way and a varied size, checked."""
    if vary not in COST_VARIES:
        raise ValueError(f"vary must be one of {list(COST_VARIES)}; got vary={vary!r}")
    if way not in sgd.WAYS:
        raise ValueError(f"way must be one of {list(sgd.WAYS)}; got way={way!r}")
    fixed, sizes = COST_PLANS[(way, vary)]
    return dict(fixed), tuple(sizes)


def _scaled_to(model, measured, fitted):
    """The model times the constant that best matches the measurement over the fitted sizes
    (least squares on the logarithms: the geometric mean of measured / model there)."""
    return model * np.exp(np.mean(np.log(measured[fitted]) - np.log(model[fitted])))


#: the least CPU seconds the timed runs of one point of the cost widget add up to, over its
#: rounds (see :func:`kernelcourse.cost_model.measure_way`: a run of 10 ms is timed about 15 times,
#: and its best kept; a run of 100 ms three times, once a round)
COST_MIN_TOTAL = 0.15


def cost_rows(way, vary, sizes=None, base=None, repeats=3, clock="cpu", fit=COST_FIT,
              min_total=COST_MIN_TOTAL):
    """Measure ``way`` while ``vary`` runs over ``sizes`` (the other sizes from ``base``).

    ``sizes`` and ``base`` default to the plan :func:`cost_plan` (``base`` may hold
    the varied size too; it is ignored). The sizes are timed in ``repeats`` rounds, each
    running every size in turn (so that a change in the machine's load falls on all sizes
    alike, not on the ones measured while it lasted), a size's runs adding up to at least
    ``min_total`` seconds over the rounds; its best run is kept. Its memory is traced once.
    Returns a dict with the ``sizes``, the measured ``seconds`` and ``bytes``
    (:func:`kernelcourse.cost_model.measure_way`), the model's ``operations`` and ``memory``
    (:func:`kernelcourse.cost_model.predicted_cost`, the memory plus the training set ``n d``),
    ``fitted`` (true at the ``fit`` largest sizes), the growth exponents of all four fitted
    over those sizes only (``seconds_exponent``, ...), the time's exponent over all sizes
    (``seconds_exponent_all``), the model's time and memory scaled to meet the measurement
    over the fitted sizes (``time_model``, ``memory_model``) and the ``fixed`` sizes.
    """
    plan_fixed, plan_sizes = cost_plan(way, vary)
    sizes = tuple(plan_sizes if sizes is None else sizes)
    fixed = plan_fixed if base is None else {k: v for k, v in base.items() if k != vary}
    fit = int(fit)
    if not 2 <= fit <= len(sizes):
        raise ValueError(f"fit must be between 2 and the number of sizes ({len(sizes)}); got fit={fit}")
    out = {"way": way, "vary": vary, "fixed": dict(fixed), "sizes": np.array(sizes, dtype=float),
           "seconds": [math.inf] * len(sizes), "bytes": [None] * len(sizes),
           "operations": [], "memory": []}
    repeats = max(1, int(repeats))
    for round_ in range(repeats):
        for i, s in enumerate(sizes):
            t, m = cost_model.measure_way(way, repeats=1, clock=clock, min_total=min_total / repeats,
                                   memory=round_ == 0, **dict(fixed, **{vary: s}))
            out["seconds"][i] = min(out["seconds"][i], t)
            if round_ == 0:
                out["bytes"][i] = m
    for s in sizes:
        size = dict(fixed, **{vary: s})
        ops, mem = cost_model.predicted_cost(way, **size)
        out["operations"].append(ops)
        out["memory"].append(8.0 * (mem + size["n"] * size["d"]))
    fitted = np.zeros(len(sizes), dtype=bool)
    fitted[np.argsort(out["sizes"], kind="stable")[-fit:]] = True
    out["fitted"] = fitted
    for key in ("seconds", "bytes", "operations", "memory"):
        out[key] = np.array(out[key], dtype=float)
        out[f"{key}_exponent"] = cost_model.growth_exponent(out["sizes"][fitted], out[key][fitted])
    out["seconds_exponent_all"] = cost_model.growth_exponent(out["sizes"], out["seconds"])
    out["time_model"] = _scaled_to(out["operations"], out["seconds"], fitted)
    out["memory_model"] = _scaled_to(out["memory"], out["bytes"], fitted)
    return out


def _slope(p) -> str:
    """An exponent to two decimals, never "-0.00"."""
    return f"{round(float(p), 2) + 0.0:.2f}"


def _fixed_text(rows):
    return ", ".join(f"{k} = {v}" for k, v in rows["fixed"].items())


def _cost_panels(rows, axes):
    return [(axes[0], rows["seconds"], rows["time_model"]),
            (axes[1], rows["bytes"], rows["memory_model"])]


def plot_cost(rows, axes=None):
    """Measured time and memory against the varied size, beside the cost model.

    On each panel ``ax.lines`` are: the measurement at every size (open circles), the
    sizes the exponent is fitted over (filled), and the model's formula scaled to meet the
    measurement over those sizes (dashed), drawn over every size, so that below the fitted
    sizes the gap between the two is what the model leaves out.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=COST_FIGSIZE)
    x, fitted = rows["sizes"], rows["fitted"]
    for (ax, measured, model), label in zip(_cost_panels(rows, axes), ("time (CPU s)", "memory (bytes)")):
        ax.loglog(x, measured, "o-", color="tab:blue", mfc="white", label="measured")
        ax.loglog(x[fitted], measured[fitted], "o", color="tab:blue", label="sizes fitted")
        ax.loglog(x, model, "--", color="tab:orange", label="cost model, scaled")
        ax.set_ylabel(label)
        ax.legend(fontsize=9, loc="upper left")
        _cost_limits(ax, x, measured, model)
    _cost_labels(rows, axes)
    return axes


def _cost_limits(ax, x, measured, model):
    """Log axes over the sizes and over the data and the model, at least a factor 10 high (a
    flat curve then looks flat), with room above for the legend; the sizes as the horizontal
    ticks; on the vertical axis labelled ticks at 1, 2 and 5 times the powers of ten when the
    axis spans under three decades (so it always shows at least two labels, never one alone
    on an axis more than a decade high), at the powers of ten above that."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator, NullFormatter, NullLocator

    lo = min(measured.min(), model.min())
    hi = max(measured.max(), model.max())
    if hi / lo < 10.0:
        middle = np.sqrt(lo * hi)
        lo, hi = middle / np.sqrt(10.0), middle * np.sqrt(10.0)
    span = np.log10(hi / lo)
    bottom, top = lo / 10 ** (0.08 * span), hi * 10 ** (0.45 * span)
    ax.set_ylim(bottom, top)
    subs = (1.0, 2.0, 5.0) if np.log10(top / bottom) < 3.0 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10.0, subs=subs))
    # every major tick labelled (the formatter's own thinning would leave 2 and 5 bare)
    ax.yaxis.set_major_formatter(LogFormatterSciNotation(base=10.0, labelOnlyBase=False,
                                                         minor_thresholds=(np.inf, np.inf)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(x.min() / 1.3, x.max() * 1.3)
    ax.set_xticks(x, [f"{s:.0f}" for s in x])
    ax.xaxis.set_minor_locator(NullLocator())


def _cost_labels(rows, axes):
    axes[0].set_title(f"{rows['way']}: time slope {_slope(rows['seconds_exponent'])} "
                      f"(model {_slope(rows['operations_exponent'])})", fontsize=10)
    axes[1].set_title(f"memory slope {_slope(rows['bytes_exponent'])} "
                      f"(model {_slope(rows['memory_exponent'])})", fontsize=10)
    for ax in axes:
        ax.set_xlabel(f"{rows['vary']}   ({_fixed_text(rows)})")


def _move_cost_lines(rows, axes):
    """Put the rows of another (way, size) on the axes :func:`plot_cost` drew."""
    x, fitted = rows["sizes"], rows["fitted"]
    for ax, measured, model in _cost_panels(rows, axes):
        ax.lines[0].set_data(x, measured)
        ax.lines[1].set_data(x[fitted], measured[fitted])
        ax.lines[2].set_data(x, model)
        _cost_limits(ax, x, measured, model)
    _cost_labels(rows, axes)


#: the cost widget's figure: its size and fixed margins (the same for every picture, so that
#: switching pictures does not move the axes)
COST_FIGSIZE = (8.48, 3.6)


COST_MARGINS = dict(left=0.115, right=0.985, bottom=0.165, top=0.89, wspace=0.38)


def cost_picture(rows, dpi=100) -> bytes:
    """The PNG of :func:`plot_cost` for these rows, on the cost widget's figure."""
    fig, axes = new_figure(1, 2, figsize=COST_FIGSIZE)
    fig.subplots_adjust(**COST_MARGINS)
    plot_cost(rows, axes=axes)
    return figure_png(fig, dpi=dpi, tight=False)


def _plain(rows):
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in rows.items()}


def _arrays(rows):
    out = {k: (np.array(v, dtype=float) if isinstance(v, list) else v) for k, v in rows.items()}
    out["fitted"] = out["fitted"].astype(bool)
    return out


def measure_and_draw(keys):
    """Yield ``(key, rows, png)`` for each ``(way, vary)`` key: :func:`cost_rows` with BLAS on
    one thread, and its :func:`cost_picture` (what a worker of :class:`CostMeasurements` does)."""
    from threadpoolctl import threadpool_limits

    for way, vary in keys:
        with threadpool_limits(1):
            rows = cost_rows(way, vary)
        yield (way, vary), rows, cost_picture(rows)


#: how much lower a worker of :class:`CostMeasurements` runs than the notebook's kernel (its
#: ``nice`` increment: the kernel goes on with the next cells at full speed; the CPU seconds
#: a worker measures are its own whatever its priority)
WORKER_NICENESS = 10


def _worker_main(argv) -> int:
    """``python -m kernelcourse.widgets.lecture2_costs KEYS_JSON``: one JSON line per key on stdout
    (a worker of :class:`CostMeasurements`)."""
    import base64
    import json
    import os
    import sys

    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):         # no nice on this system: run at the same priority
        pass
    for key, rows, png in measure_and_draw([tuple(k) for k in json.loads(argv[0])]):
        sys.stdout.write(json.dumps({"key": key, "rows": _plain(rows),
                                     "png": base64.b64encode(png).decode()}) + "\n")
        sys.stdout.flush()
    return 0


class CostMeasurements:
    """Rows and pictures of every (way, vary) pair of the cost widget, measured in the background.

    The pair ``(first, vary)`` is measured and drawn in this process when this is made; then
    the others in ``processes`` fresh Python processes
    (``python -m kernelcourse.widgets.lecture2_costs``, so nothing of this process is copied or
    re-run; each measures the CPU time and memory of its own, with BLAS on one thread, as
    this process does, at a lower priority: :data:`WORKER_NICENESS`), those varying ``vary`` first (a move of the ``way`` control), then
    the other sizes of ``first``. A thread per worker collects what it sends. :meth:`get`
    waits for a pair that is still being measured; a pair no worker returned (no processes
    here, a worker that failed) is measured here and has no picture yet.

    ``pairs`` are the ``(way, vary)`` pairs measured ahead, by default every pair of
    :data:`COST_PLANS`; a pair left out is measured here when first asked for, as the
    pairs of a worker that failed are.
    """

    def __init__(self, first="gram", vary="n", processes=2, pairs=None):
        import threading

        if first not in sgd.WAYS:
            raise ValueError(f"way must be one of {list(sgd.WAYS)}; got way={first!r}")
        if vary not in COST_VARIES:
            raise ValueError(f"vary must be one of {list(COST_VARIES)}; got vary={vary!r}")
        if pairs is None:
            pairs = [(w, v) for w in sgd.WAYS for v in COST_VARIES]
        pairs = [tuple(pair) for pair in pairs]
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError(f"each of pairs must be a (way, vary) pair; got {pair!r}")
            cost_plan(*pair)
        self.measured, self.pictures = {}, {}
        self._done = threading.Condition()
        others = sorted(set(pairs) - {(first, vary)},
                        key=lambda key: (key[1] != vary, key[0] != first,
                                         sgd.WAYS.index(key[0]), COST_VARIES.index(key[1])))
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
                [sys.executable, "-m", "kernelcourse.widgets.lecture2_costs", json.dumps(keys)],
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


def cost_agreement(rows, tolerance=0.25) -> str:
    """One honest sentence: do the measured growth exponents agree with the model's here?

    They agree when both (time and memory), fitted over the largest sizes only, are within
    ``tolerance`` of the model's over the same sizes. When they agree and the time's
    exponent over all sizes is clearly lower than a growing model's, the sentence says why: at
    the small sizes fixed costs that the model leaves out flatten the curve. When they do not agree, it says
    so, with the gaps.
    """
    gaps = {"time": rows["seconds_exponent"] - rows["operations_exponent"],
            "memory": rows["bytes_exponent"] - rows["memory_exponent"]}
    off = [f"{what} ({round(gap, 2) + 0.0:+.2f})" for what, gap in gaps.items() if abs(gap) > tolerance]
    k = int(np.count_nonzero(rows["fitted"]))
    if off:
        return (f"here the measurement does not follow the model for {' and '.join(off)}, even "
                f"over the {k} largest sizes: costs the model leaves out (the interpreter, "
                f"caches, other jobs on this machine) still weigh there")
    sentence = (f"here the measurement follows the model: over the {k} largest sizes both "
                f"exponents are within {tolerance} of the model's")
    flattened = rows["seconds_exponent"] - rows["seconds_exponent_all"]
    if rows["operations_exponent"] >= 0.5 and flattened > 0.15:
        sentence += (f"; over all sizes the time's is {_slope(rows['seconds_exponent_all'])}, as "
                     f"below them fixed costs the model leaves out (the interpreter's work per "
                     f"step, allocation) flatten the curve")
    return sentence


if __name__ == "__main__":          # a worker of CostMeasurements
    import sys

    sys.exit(_worker_main(sys.argv[1:]))
