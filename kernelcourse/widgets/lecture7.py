"""Widgets for lecture 7: the SVM's C and gamma, and SMO step by step.

Colours: class +1 and ``f > 0`` red, class -1 and ``f < 0`` blue.

* :func:`margin_widget` (7.8-7.9): move ``log10 C`` and ``log10 gamma`` of an RBF
  SVM on two overlapping classes; see the decision regions, the boundary ``f = 0``
  and the margin ``f = +-1``, the support vectors ringed (free ones and those at
  the box apart), their counts and the leave-one-out bound ``#SV / n``.
  Computation: :func:`margin_state`; drawing: :func:`plot_margin_state`.
* :func:`smo_widget` (7.6-7.7): a linear SVM solved by SMO; move the step and the
  pair rule; see the multipliers after that step, the pair it changed, the
  hyperplane and margin it gives, and the primal and dual objectives with the gap.
  Computation: :func:`smo_trace` and :func:`smo_state`; drawing: :func:`plot_smo_state`.

Each builder returns an ``ipywidgets.interactive`` whose ``controls`` maps argument
names to the controls, ``view`` is its :class:`~kernelcourse.widgets.FigureView`, and
``result`` the dict the last callback computed. The picture is a function of the
controls' values alone.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import svm
from kernelcourse._validation import check_choice, check_nonnegative_int, check_positive
from kernelcourse.kernels import RBF, Linear
from kernelcourse.widgets import FigureView, interactive_figure

__all__ = ["margin_data", "margin_state", "grid_decision_values", "plot_margin_state", "update_margin_state", "margin_readout",
           "margin_widget", "smo_data", "smo_trace", "smo_state", "plot_smo_state", "update_smo_state",
           "smo_readout", "smo_widget"]

_WIDE = {"description_width": "initial"}
#: the square where the margin widget is drawn
_BOX = (-3.0, 3.0)


# ---------------------------------------------------------------------------
# (a) C and gamma against the boundary, the margin and the support vectors
# ---------------------------------------------------------------------------

def margin_data(n=60, random_state=0):
    """Two overlapping classes in the plane: a ring of -1 around a blob of +1 with noise."""
    rng = np.random.default_rng(random_state)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    radius = np.where(y > 0, rng.uniform(0.0, 1.3, n), rng.uniform(1.2, 2.5, n))
    angle = rng.uniform(0, 2 * np.pi, n)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)] + 0.25 * rng.normal(size=(n, 2))
    return X, y


def margin_state(X, y, C, gamma, grid=150):
    """The RBF SVM with ``C`` and ``gamma`` fitted by SMO, and its decision values on a grid.

    Returns a dict: ``C``, ``gamma``, ``alpha``, ``b``, ``free`` and ``bound`` (masks of
    the support vectors with ``0 < a < C`` and ``a = C``), ``n_sv``, ``loo_bound``
    (``#SV / n``), ``train_error``, ``xx``, ``yy``, ``F`` (decision values on the grid).
    """
    C = check_positive(C, "C")
    gamma = check_positive(gamma, "gamma")
    K = RBF(gamma)(X)
    run = svm.smo(K, y, C=C, tol=1e-3)
    sv = run.alpha > 0
    xs = np.linspace(*_BOX, grid)
    xx, yy = np.meshgrid(xs, xs)
    F = grid_decision_values(xs, X[sv], run.alpha[sv] * y[sv], gamma, run.b)
    f_train = svm.decision_values(run.alpha, K, y, run.b)
    return {"C": C, "gamma": gamma, "alpha": run.alpha, "b": run.b,
            "free": sv & (run.alpha < C), "bound": run.alpha >= C, "n_sv": int(sv.sum()),
            "loo_bound": svm.loo_bound(run.alpha), "train_error": float(np.mean(np.sign(f_train) != y)),
            "xx": xx, "yy": yy, "F": F}


def grid_decision_values(xs, X_sv, coef, gamma, b):
    """``f(x) = sum_s coef_s exp(-gamma ||x - x_s||^2) + b`` on the grid ``xs x xs`` of the plane,
    as an array ``F[i, j] = f(xs[j], xs[i])`` (rows along the second coordinate, as ``meshgrid``).

    The RBF kernel of the plane factorises over the two coordinates,
    ``exp(-gamma ||x - x_s||^2) = exp(-gamma (x_1 - x_s1)^2) exp(-gamma (x_2 - x_s2)^2)``, so the
    grid's values are one matrix product ``E_2 diag(coef) E_1^T`` of two ``(grid, #SV)`` tables of
    exponentials, instead of ``grid^2 #SV`` of them."""
    xs = np.asarray(xs, dtype=float)
    X_sv = np.asarray(X_sv, dtype=float).reshape(-1, 2)
    E1 = np.exp(-gamma * (xs[:, None] - X_sv[None, :, 0]) ** 2)
    E2 = np.exp(-gamma * (xs[:, None] - X_sv[None, :, 1]) ** 2)
    return (E2 * np.asarray(coef, dtype=float)) @ E1.T + b


def plot_margin_state(state, X, y, ax):
    """Draw the data and ``state`` on ``ax``; returns the artists that moves change."""
    a = {"ax": ax}
    a["regions"] = ax.imshow(np.zeros_like(state["F"]), extent=(*_BOX, *_BOX), origin="lower",
                             cmap="RdBu_r", vmin=-2, vmax=2, alpha=0.45, interpolation="bilinear")
    # drawn with the moving artists, in z-order, so that the regions never cover them
    a["classes"] = [ax.scatter(X[y == label, 0], X[y == label, 1], s=14, c=colour, label=f"class {name}",
                               zorder=3) for label, colour, name in ((1, "C3", "+1"), (-1, "C0", "-1"))]
    a["free"] = ax.scatter([], [], s=90, facecolors="none", edgecolors="k", linewidths=1.4,
                           label="support vector, 0 < a < C", zorder=4)
    a["bound"] = ax.scatter([], [], s=90, facecolors="none", edgecolors="darkorange", linewidths=1.4,
                            label="support vector, a = C", zorder=4)
    ax.set_xlim(*_BOX)
    ax.set_ylim(*_BOX)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # beside the axes, never over the data
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    a["title"] = ax.set_title("", fontsize=9)
    a["lines"] = None
    return a


def update_margin_state(artists, state, X, view=None):
    """Move the artists to ``state``; the contour lines are drawn anew (``view`` animates them)."""
    ax = artists["ax"]
    artists["regions"].set_data(np.clip(state["F"], -2, 2))
    artists["free"].set_offsets(X[state["free"]].reshape(-1, 2))
    artists["bound"].set_offsets(X[state["bound"]].reshape(-1, 2))
    if artists["lines"] is not None and view is not None:
        view.forget(artists["lines"])
    artists["lines"] = ax.contour(state["xx"], state["yy"], state["F"], levels=[-1.0, 0.0, 1.0],
                                  colors=["C0", "k", "C3"], linestyles=["--", "-", "--"], linewidths=1.2)
    if view is not None:
        view.animate(artists["lines"])
    n = len(state["alpha"])
    artists["title"].set_text(f"{state['n_sv']} support vectors of {n}: #SV/n = {state['loo_bound']:.2f}")
    return artists


def margin_readout(state) -> str:
    """The counts in words."""
    n = len(state["alpha"])
    return (f"C = {state['C']:.3g}, gamma = {state['gamma']:.3g}: {state['n_sv']} support vectors "
            f"({int(state['free'].sum())} on the margin with 0 < a < C, {int(state['bound'].sum())} at a = C)\n"
            f"leave-one-out bound #SV/n = {state['n_sv']}/{n} = {state['loo_bound']:.2f}; "
            f"training error {state['train_error']:.2f}")


def margin_widget(log_C=0.0, log_gamma=0.0, n=60):
    """Widget: ``log10 C`` and ``log10 gamma`` against the SVM's boundary, margin and support vectors."""
    import ipywidgets as W

    X, y = margin_data(n)
    controls = {
        "log_C": W.FloatSlider(value=log_C, min=-2.0, max=3.0, step=0.25, description="log10 C",
                               continuous_update=False, style=_WIDE),
        "log_gamma": W.FloatSlider(value=log_gamma, min=-1.5, max=1.5, step=0.25,
                                   description="log10 gamma", continuous_update=False, style=_WIDE)}
    view = FigureView(1, 1, figsize=(7.4, 5.0))
    artists = {}

    def update(log_C, log_gamma):
        state = margin_state(X, y, 10.0 ** log_C, 10.0 ** log_gamma)
        if not artists:
            artists.update(plot_margin_state(state, X, y, view.axes))
            view.animate(artists["regions"], *artists["classes"], artists["free"], artists["bound"],
                         artists["title"])
        update_margin_state(artists, state, X, view)
        view.render()
        print(margin_readout(state))
        state["figure"] = view.fig
        return state

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) SMO step by step
# ---------------------------------------------------------------------------

def smo_data(n=24, random_state=1):
    """Two overlapping classes in the plane for the linear SVM of the stepper."""
    rng = np.random.default_rng(random_state)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) * 0.9 + 1.0 * y[:, None] * np.array([1.0, 0.6])
    return X, y


def smo_trace(X, y, C, selection):
    """The recorded SMO run of the linear SVM (tolerance 1e-3) and the multipliers after each step.

    Returns a dict: ``run`` (:class:`~kernelcourse.svm.SMORun` with its steps) and
    ``alphas`` (array (n_iter + 1, n), row k the multipliers after k steps).
    """
    C = check_positive(C, "C")
    check_choice(selection, "selection", svm.SELECTIONS)
    run = svm.smo(Linear()(X), y, C=C, tol=1e-3, selection=selection, record=True)
    alphas = np.zeros((run.n_iter + 1, len(y)))
    for k in range(run.n_iter):
        alphas[k + 1] = alphas[k]
        alphas[k + 1, run.steps["i"][k]] = run.steps["alpha_i"][k]
        alphas[k + 1, run.steps["j"][k]] = run.steps["alpha_j"][k]
    return {"run": run, "alphas": alphas, "C": C, "selection": selection}


def smo_state(trace, X, y, step):
    """The state after ``step`` steps of ``trace`` (the last step when ``step`` is past the end).

    Returns a dict: ``step``, ``alpha``, ``w``, ``b`` (the offset of these multipliers),
    and for ``step >= 1`` the step's record: ``i``, ``j``, ``t_free``, ``t``, ``clipped``,
    ``old_i``, ``old_j``, ``alpha_i``, ``alpha_j``, ``dual``, ``primal``, ``duality_gap``, ``kkt_gap``.
    """
    step = min(check_nonnegative_int(step, "step"), trace["run"].n_iter)
    alpha = trace["alphas"][step]
    K = Linear()(X)
    out = {"step": step, "alpha": alpha, "w": svm.primal_w(alpha, X, y),
           "b": svm.offset(alpha, K, y, trace["C"]) if step else 0.0, "n_iter": trace["run"].n_iter}
    if step:
        s = trace["run"].steps
        out.update({k: s[k][step - 1].item() for k in s})
        out["old_i"] = float(trace["alphas"][step - 1][out["i"]])
        out["old_j"] = float(trace["alphas"][step - 1][out["j"]])
    return out


def _line(w, b, level, xs):
    """Points of ``w.x + b = level`` across ``xs`` (a vertical line when ``w_1 = 0``)."""
    if abs(w[1]) > 1e-12:
        return xs, (level - b - w[0] * xs) / w[1]
    if abs(w[0]) > 1e-12:
        return np.full(2, (level - b) / w[0]), np.array([-10.0, 10.0])
    return np.array([np.nan]), np.array([np.nan])


def _smo_limits(trace):
    """The right panel's limits for ``trace``: every step of the run across, and the whole of
    both curves (objectives over the run's optimal dual value) up and down."""
    s = trace["run"].steps
    n = max(trace["run"].n_iter, 1)
    top = s["dual"][-1] if len(s["dual"]) else 1.0
    high = max(float(np.max(s["primal"] / top)) if len(s["primal"]) else 1.0, 1.0)
    low = min(float(np.min(s["dual"] / top)) if len(s["dual"]) else 0.0, 0.0)
    return (0, n + 0.5), (low - 0.04 * (high - low), high + 0.06 * (high - low))


#: the colours of the classes in the stepper (``coolwarm`` at the ends, as the points are drawn)
_SMO_CLASSES = ((1, 1.0, "class +1"), (-1, 0.0, "class -1"))
#: the stepper's figure: its size and fixed margins, with the legend under both panels
SMO_FIGSIZE = (8.48, 5.8)
SMO_MARGINS = dict(left=0.08, right=0.985, bottom=0.31, top=0.93, wspace=0.30)


def plot_smo_state(trace, state, X, y, axes):
    """Left the data, multipliers and hyperplane; right the objectives against the step (the
    x axis across the run's steps, the objectives divided by the run's optimal dual value,
    the y axis over both curves: :func:`_smo_limits`). One legend, under both panels."""
    from matplotlib.lines import Line2D
    import matplotlib

    ax, ax2 = axes
    a = {"ax": ax, "ax2": ax2}
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    a["xs"] = np.linspace(lo[0], hi[0], 2)
    a["points"] = ax.scatter(X[:, 0], X[:, 1], s=30, c=y, cmap="coolwarm", edgecolors="k", linewidths=0.3,
                             zorder=3)
    a["pair"], = ax.plot([], [], "o-", color="gold", ms=14, mfc="none", mew=2.5, lw=2, zorder=4,
                         label="the pair (i, j) of this step")
    a["boundary"], = ax.plot([], [], "k-", lw=1.5, label="f = 0")
    a["plus"], = ax.plot([], [], "--", color="C3", lw=1, label="f = +1")
    a["minus"], = ax.plot([], [], "--", color="C0", lw=1, label="f = -1")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    a["title"] = ax.set_title("", fontsize=9, loc="left")
    a["dual"], = ax2.plot([], [], "C2-", label="dual objective")
    a["primal"], = ax2.plot([], [], "C1-", label="primal objective")
    a["now"] = ax2.axvline(0, color="gray", lw=1, label="this step")
    ax2.set_xlabel("SMO step")
    ax2.set_ylabel("objective / the optimal dual objective")
    a["one"] = ax2.axhline(1.0, color="gray", lw=0.6, ls=":")
    a["title2"] = ax2.set_title("", fontsize=9, loc="left")
    cmap = matplotlib.colormaps["coolwarm"]
    marks = [Line2D([], [], ls="none", marker="o", ms=6, mfc=cmap(at), mec="k", mew=0.3, label=name)
             for _, at, name in _SMO_CLASSES]
    marks.append(Line2D([], [], ls="none", marker="o", ms=11, mfc="lightgray", mec="k", mew=1.5,
                        label="support vector (a_i > 0), area growing with a_i"))
    handles = [*marks, a["pair"], a["boundary"], a["plus"], a["minus"], a["dual"], a["primal"], a["now"]]
    # under both panels, never over the data or the curves
    a["legend"] = ax.figure.legend(handles=handles, loc="lower center", ncol=3, fontsize=9,
                                   bbox_to_anchor=(0.5, 0.0), frameon=False)
    a["limits"] = None
    return a


def update_smo_state(artists, trace, state, X, y):
    """Move the artists to ``state``: the curves of ``trace`` scaled by its last dual value.
    Returns True when the right panel's limits changed (a new run: its axes are drawn anew)."""
    s = trace["run"].steps
    t = np.arange(1, len(s["dual"]) + 1)
    top = s["dual"][-1] if len(t) else 1.0
    artists["dual"].set_data(t, s["dual"] / top)
    artists["primal"].set_data(t, s["primal"] / top)
    limits = _smo_limits(trace)
    changed = limits != artists["limits"]
    if changed:
        artists["ax2"].set_xlim(*limits[0])
        artists["ax2"].set_ylim(*limits[1])
        artists["limits"] = limits
    C = trace["C"]
    alpha = state["alpha"]
    artists["points"].set_sizes(20 + 180 * alpha / C)
    artists["points"].set_linewidths(np.where(alpha > 0, 1.5, 0.3))
    for name, level in (("boundary", 0.0), ("plus", 1.0), ("minus", -1.0)):
        artists[name].set_data(*_line(state["w"], state["b"], level, artists["xs"]))
    artists["now"].set_xdata([state["step"], state["step"]])
    if state["step"]:
        i, j = state["i"], state["j"]
        artists["pair"].set_data(X[[i, j], 0], X[[i, j], 1])
        artists["title"].set_text(f"step {state['step']} of {state['n_iter']}: pair ({i}, {j})"
                                  f"{', clipped' if state['clipped'] else ''}")
        artists["title2"].set_text(f"duality gap {max(state['duality_gap'], 0.0):.4f}")
    else:
        artists["pair"].set_data([], [])
        artists["title"].set_text(f"step 0 of {state['n_iter']}: every a_i = 0")
        artists["title2"].set_text("duality gap C n")
    return changed


def smo_readout(state, y) -> str:
    """The step's numbers in words: the pair, the clipped update, the objectives and the gaps."""
    if not state["step"]:
        return (f"step 0 of {state['n_iter']}: every multiplier is 0, w = 0; the dual objective is 0 and "
                "the primal C n (every point pays hinge 1)")
    i, j = state["i"], state["j"]
    clip = "clipped to the box" if state["clipped"] else "inside the box, not clipped"
    return (f"step {state['step']} of {state['n_iter']}: pair (i, j) = ({i}, {j}) with y = ({y[i]:+.0f}, {y[j]:+.0f})\n"
            f"  step t = {state['t']:.4f} (unclipped {state['t_free']:.4f}, {clip})\n"
            f"  a_i: {state['old_i']:.4f} -> {state['alpha_i']:.4f}    a_j: {state['old_j']:.4f} -> "
            f"{state['alpha_j']:.4f}\n"
            f"  dual {state['dual']:.4f}   primal {state['primal']:.4f}   duality gap "
            f"{state['duality_gap']:.4f}   KKT gap m - M = {state['kkt_gap']:.4f}")


def smo_widget(step=0, selection="second_order", log_C=0.0, n=24):
    """Widget: SMO's steps on a linear SVM; the step, the pair rule and ``log10 C``."""
    import ipywidgets as W

    X, y = smo_data(n)
    # every run the controls reach, solved once: a move only looks its state up
    traces = {(round(c, 6), rule): smo_trace(X, y, 10.0 ** c, rule)
              for c in np.arange(-1.0, 1.01, 0.5) for rule in svm.SELECTIONS}
    longest = max(t["run"].n_iter for t in traces.values())   # the step slider reaches every run's end
    controls = {
        "step": W.IntSlider(value=min(step, longest), min=0, max=longest, description="step",
                            continuous_update=False, style=_WIDE),
        "selection": W.Dropdown(options=list(svm.SELECTIONS), value=selection, description="pair rule",
                                style=_WIDE),
        "log_C": W.FloatSlider(value=log_C, min=-1.0, max=1.0, step=0.5, description="log10 C",
                               continuous_update=False, style=_WIDE)}
    view = FigureView(1, 2, figsize=SMO_FIGSIZE, layout=None)
    view.fig.subplots_adjust(**SMO_MARGINS)
    artists = {}

    def update(step, selection, log_C):
        trace = traces[(round(log_C, 6), selection)]
        state = smo_state(trace, X, y, step)
        if not artists:
            artists.update(plot_smo_state(trace, state, X, y, view.axes))
            view.animate(*(artists[k] for k in ("points", "pair", "boundary", "plus", "minus", "now",
                                                "title", "title2", "dual", "primal")))
            # what a run fixes (the right panel's limits: its axes and the line at 1 placed on
            # them) is a layer over the kept background, drawn anew when the run changes; a
            # step moves only the artists above it
            ax2 = artists["ax2"]
            view.animate(ax2.xaxis, ax2.yaxis, artists["one"], layer=True)
        new_run = update_smo_state(artists, trace, state, X, y)
        view.render(layer=new_run)
        print(smo_readout(state, y))
        state["figure"] = view.fig
        state["trace"] = trace
        return state

    return interactive_figure(update, view, controls)
