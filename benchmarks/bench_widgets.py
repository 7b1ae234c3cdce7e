"""Every lecture widget, moved like a hand on a slider: update time per control move.

Each widget is built with the arguments its notebook uses, then every control is moved to
several values in turn (each setting of ``control.value`` runs the widget's callback in this
process, the kernel's side of a slider move). Printed per widget: the median and the worst
update time (every control is also moved to both ends of its range, where the slow
moves are), the ratio to the reference measured in the same run, and the median when the
same moves are made once more (a widget that keeps what it computed answers faster then).

The reference is the figure-per-move way the widgets had before issue 10: a new matplotlib
figure per move, rendered to PNG with ``bbox_inches="tight"`` (two draws) and displayed. Its
code is read from git at ``REFERENCE_COMMIT`` (``kernelcourse/widgets/`` only; the rest of the
package is today's), so the old path is timed as it was written, not re-imagined. Both ways
run the same moves, taken in turns widget by widget. Without git (or that commit) only
today's widgets are timed. ``--reference COMMIT`` takes the widgets of another commit as the
reference (every module of ``kernelcourse/widgets/`` there): a change to the widgets timed
before and after, move by move, in one run.

``build`` is the time until the widget is ready to move: for lecture 2's cost widget, which
measures the ways to learn in worker processes in the background, until those are in.

Limits (issue 10), kernel side: median <= 100 ms and worst <= 250 ms per move, every widget.
Timings are wall-clock and noisy on a shared machine: compare ratios within one run. On a busy
machine, ``--cpu`` times each move by this process's CPU time (every thread of it) instead: what
a move costs when nothing else waits for the cores, the quiet machine's wall time or a little
more (numpy's threads count in full). ``--no-reference`` skips the old widgets.
Run: .venv/bin/python benchmarks/bench_widgets.py  (or python3 tasks.py bench widgets)
"""
from __future__ import annotations

import argparse
import contextlib
import io
import logging
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import IPython.display  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_COMMIT = "40c7faf22f83cb679b6b1b39147b3e633bfea42f"
REFERENCE_PACKAGE = "kc_figure_per_move"
MEDIAN_LIMIT, WORST_LIMIT = 0.100, 0.250

# (label, lecture module, builder, keyword arguments as in the notebook)
WIDGETS = [
    ("1 all_subsets_widget", "lecture1", "all_subsets_widget", dict(d=8, d_max=14)),
    ("1 gd_steps_widget", "lecture1", "gd_steps_widget", dict(dataset="circles", n_steps=200)),
    ("1 kernel_boundary_widget", "lecture1", "kernel_boundary_widget",
     dict(dataset="circles", kernel="rbf", gamma=2.0)),
    ("2 cost_widget", "lecture2", "cost_widget", dict(way="gram", vary="n")),
    ("2 rff_error_widget", "lecture2", "rff_error_widget", dict(D=64)),
    ("3 ridge_lambda_widget", "lecture3", "ridge_lambda_widget", dict(degree=9, log_lam=-2.0)),
    ("3 novelty_ball_widget", "lecture3", "novelty_ball_widget", dict(log_gamma=0.0)),
    ("3 perceptron_steps_widget", "lecture3", "perceptron_steps_widget", dict(t=5)),
    ("4 kernel_builder", "lecture4", "kernel_builder", dict(n=20)),
    ("4 map_dual_widget", "lecture4", "map_dual_widget", dict()),
    ("5 fgd_stepper_widget", "lecture5", "fgd_stepper_widget",
     dict(loss="squared", n=12, gamma=1.0, eta=0.3, lam=0.05)),
    ("5 budget_widget", "lecture5", "budget_widget", dict(budgets=(5, 10, 20, 50, 100), n=400)),
    ("5 bandwidth_widget", "lecture5", "bandwidth_widget", dict(gamma=10.0, lam=0.01)),
    ("6 components_widget", "lecture6", "components_widget", dict(m=20, log_gamma=0.0)),
    ("6 kpca_gamma_widget", "lecture6", "kpca_gamma_widget", dict(log_gamma=0.5)),
    ("7 margin_widget", "lecture7", "margin_widget", dict(log_C=0.0, log_gamma=0.0)),
    ("7 smo_widget", "lecture7", "smo_widget", dict(step=0, selection="second_order", log_C=0.0)),
]


def _all_widgets():
    """WIDGETS, then every other builder :func:`kernelcourse.widgets.widget_builders` finds
    (a new lecture's widgets, with their default arguments)."""
    from kernelcourse.widgets import widget_builders

    listed = {(module, builder) for _, module, builder, _ in WIDGETS}
    extra = []
    for name in widget_builders():
        module, builder = name.split(".")
        if (module, builder) not in listed:
            extra.append((f"{module[len('lecture'):]} {builder}", module, builder, {}))
    return WIDGETS + extra


def _quiet_display(*objs, **kwargs):
    """Outside a kernel ``display`` would print reprs; the PNG was rendered before this call."""


def load_reference(commit=REFERENCE_COMMIT):
    """The widget package as of ``commit``, importable as REFERENCE_PACKAGE, or None."""
    try:
        listing = subprocess.run(
            ["git", "ls-tree", "--name-only", f"{commit}:kernelcourse/widgets/"], cwd=ROOT,
            check=True, capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    files = [name for name in listing if name.endswith(".py")]
    folder = Path(tempfile.mkdtemp(prefix="kc-bench-widgets-")) / REFERENCE_PACKAGE
    folder.mkdir()
    for name in files:
        try:
            source = subprocess.run(
                ["git", "show", f"{commit}:kernelcourse/widgets/{name}"], cwd=ROOT,
                check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
        source = (source.replace("from kernelcourse.widgets.", f"from {REFERENCE_PACKAGE}.")
                  .replace("from kernelcourse.widgets import", f"from {REFERENCE_PACKAGE} import")
                  .replace("from . import", f"from {REFERENCE_PACKAGE} import")
                  .replace("from .._validation import", "from kernelcourse._validation import")
                  .replace("from .. import", "from kernelcourse import"))
        (folder / name).write_text(source)
    sys.path.insert(0, str(folder.parent))
    return importlib.import_module(REFERENCE_PACKAGE)


def control_values(control, n_values):
    """Up to ``n_values`` values to move ``control`` to, none equal to its current value."""
    current = control.value
    if hasattr(control, "options") and control.options:
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        if hasattr(control, "index"):                       # Dropdown, ToggleButtons, SelectionSlider
            options = [control.options[i] for i in range(len(control.options))]
            options = [o[1] if isinstance(o, tuple) else o for o in options]
        others = [o for o in options if o != current]
        step = max(1, len(others) // n_values)
        return others[::step][:n_values]
    if isinstance(current, bool):
        return [not current, current]
    lo, hi = control.min, control.max
    if type(control).__name__ == "FloatLogSlider":
        exps = [lo + (hi - lo) * (i + 0.5) / n_values for i in range(n_values)]
        values = [control.base ** (round(e / control.step) * control.step) for e in exps]
    else:
        values = [lo + (hi - lo) * (i + 0.5) / n_values for i in range(n_values)]
        step = control.step or 1
        values = [type(current)(round(v / step) * step) for v in values]
    return [v for v in values if v != current][:n_values]


def ends(control):
    """Both ends of a control's range: a slider's min and max, a selection's first and last option."""
    if hasattr(control, "options") and control.options:
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return [options[0], options[-1]]
    if isinstance(control.value, bool):
        return [False, True]
    if type(control).__name__ == "FloatLogSlider":
        return [control.base ** control.min, control.base ** control.max]
    return [control.min, control.max]


def moves(widget, n_values):
    """(control, value) pairs: every control of ``widget`` to ``n_values`` values inside its
    range, then to both of its ends and back to where it started, in turn. Each pair is a
    real move (the value differs from the one before it)."""
    plan = []
    for c in widget.kwargs_widgets:
        start = current = c.value
        for v in [*control_values(c, n_values), *ends(c), start]:
            if v != current:
                plan.append((c, v))
                current = v
    return plan


class _CallbackErrors(logging.Handler):
    """ipywidgets logs (does not raise) an exception in an interact callback outside a kernel."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


#: the clock of a move: wall time, or this process's CPU time with ``--cpu``
CLOCK = time.perf_counter


def time_moves(widget, plan):
    times = []
    for control, value in plan:
        start = CLOCK()
        control.value = value
        times.append(CLOCK() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=4, help="values per control (default 4)")
    parser.add_argument("-k", default="", help="only widgets whose label contains this")
    parser.add_argument("--cpu", action="store_true",
                        help="time moves by this process's CPU time (a busy machine)")
    parser.add_argument("--no-reference", action="store_true", help="time today's widgets only")
    parser.add_argument("--reference", default=REFERENCE_COMMIT, metavar="COMMIT",
                        help="the commit whose widgets are the reference (default: the "
                             "figure-per-move widgets of issue 10); e.g. the branch's base, to "
                             "time a change before and after in one run")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
        print("moves timed by this process's CPU time (--cpu); build by wall time")
    IPython.display.display = _quiet_display
    import kernelcourse.widgets  # noqa: F401

    reference = None if args.no_reference else load_reference(args.reference)
    if reference is None and not args.no_reference:
        print(f"git or commit {args.reference[:10]} unavailable: timing today's widgets only")
    elif reference is not None:
        print(f"reference: the widgets of {args.reference[:10]}")
    print(f"{'widget':28s} {'moves':>5s} {'build':>7s} {'median':>8s} {'worst':>8s}   "
          f"{'reference median / worst':>26s} {'ratio':>7s}  limits   again (median)")
    failed = []
    errors = _CallbackErrors()
    logging.getLogger("traitlets").addHandler(errors)
    for label, module, builder, kwargs in _all_widgets():
        if args.k not in label:
            continue
        ours = getattr(importlib.import_module(f"kernelcourse.widgets.{module}"), builder, None)
        if ours is None:
            print(f"{label:28s} (not in this version)")
            continue
        printed = io.StringIO()        # what the callbacks print (their readouts) is not shown
        with contextlib.redirect_stdout(printed):
            start = time.perf_counter()
            widget = ours(**kwargs)
            if hasattr(widget, "costs"):          # measured in the background: wait for it
                widget.costs.wait()
            build = time.perf_counter() - start
            plan = moves(widget, args.values)
            old_widget = None
            in_reference = reference is not None and (
                Path(reference.__file__).parent / f"{module}.py").exists()
            if in_reference:                  # lecture 6 came after the reference commit
                old_module = importlib.import_module(f"{REFERENCE_PACKAGE}.{module}")
                if hasattr(old_module, builder):
                    seen = len(errors.messages)
                    old_widget = getattr(old_module, builder)(**kwargs)
                    del errors.messages[seen:]         # the reference's own failures are not ours
            ours_t, old_t = [], []
            reference_failed = None
            for control, value in plan:           # the same move, each way in turn
                ours_t += time_moves(widget, [(control, value)])
                if old_widget is not None:
                    index = widget.kwargs_widgets.index(control)
                    seen = len(errors.messages)
                    old_t += time_moves(old_widget, [(old_widget.kwargs_widgets[index], value)])
                    if len(errors.messages) > seen:   # the reference failed, not ours: say so once
                        reference_failed = errors.messages[seen]
                        del errors.messages[seen:]
            again = time_moves(widget, plan)      # the same moves once more: what caches give
        med, worst = statistics.median(ours_t), max(ours_t)
        ok = med <= MEDIAN_LIMIT and worst <= WORST_LIMIT and not errors.messages
        for message in errors.messages:
            print(f"  callback raised: {message}")
        errors.messages.clear()
        if not ok:
            failed.append(label)
        if reference_failed is not None:     # old code against today's package: no reference
            print(f"  the reference raised ({reference_failed.splitlines()[-1][:90]}): not compared")
            old_t = []
        if old_t:
            old_med = statistics.median(old_t)
            ref = f"{1e3 * old_med:8.1f} / {1e3 * max(old_t):7.1f} ms"
            ratio = f"{med / old_med:6.2f}x"
        else:
            ref, ratio = f"{'(new widget)':>26s}", f"{'-':>7s}"
        print(f"{label:28s} {len(plan):5d} {build:6.2f}s {1e3 * med:6.1f}ms {1e3 * worst:6.1f}ms   "
              f"{ref:>26s} {ratio}  {'ok' if ok else 'OVER'}   "
              f"{1e3 * statistics.median(again):6.1f}ms", flush=True)
    print("every widget within the limits" if not failed else f"over the limits: {', '.join(failed)}")


if __name__ == "__main__":
    main()
