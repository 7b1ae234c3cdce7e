"""Widgets for lecture 3: ridge in the primal and the dual, the perceptron, the novelty ball.

Three builders, each wiring sliders to plain functions of this module (which
the tests call and check without a browser):

* :func:`ridge_lambda_widget` (lecture 3.1-3.3): move ``lambda`` and see the
  primal fit ``<w, phi(x)>`` and the dual fit ``sum_i alpha_i k(x_i, x)`` of a
  polynomial ridge regression drawn on top of each other, with their largest
  difference. Computation: :func:`ridge_fits`; drawing: :func:`plot_ridge_fits`.
* :func:`perceptron_steps_widget` (lecture 3.10-3.11): step a perceptron run one
  update at a time; left the current ``w_t`` with the point it was updated on,
  right both of Novikoff's inequalities ``||w_t||^2 <= t R^2`` and
  ``<w*, w_t> >= t gamma`` up to ``t``. Computation: :func:`perceptron_path`,
  :func:`perceptron_state`; drawing: :func:`plot_perceptron_state`.
* :func:`novelty_ball_widget` (lecture 3.9): move the RBF width ``gamma`` and
  see the ball around the centre of mass, drawn in the input plane as the set
  ``||phi(x) - phi_S|| <= r``. Computation: :func:`novelty_map`; drawing:
  :func:`plot_novelty_map`.

Each builder returns an ``ipywidgets.interactive``; its ``controls`` attribute
maps argument names to the sliders, ``view`` is its
:class:`~kernelcourse.widgets.FigureView` (one figure, updated in place on each
move), and ``result`` holds the dict the last callback computed.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets, kernels
from kernelcourse._validation import as_2d, check_nonnegative, check_positive, check_positive_int
from kernelcourse.feature_space import NoveltyBall
from kernelcourse.perceptron import dual_perceptron
from kernelcourse.ridge import dual_ridge, primal_ridge
from kernelcourse.widgets import FigureView, interactive_figure, new_figure

__all__ = [
    "ridge_data", "ridge_fits", "plot_ridge_fits", "ridge_lambda_widget",
    "perceptron_path", "perceptron_state", "plot_perceptron_state", "update_perceptron_state",
    "perceptron_steps_widget",
    "novelty_data", "novelty_map", "plot_novelty_map", "novelty_ball_widget",
]


# ---------------------------------------------------------------------------
# (a) lambda against the primal and dual ridge fits
# ---------------------------------------------------------------------------

def ridge_data(n=15, noise=0.15, random_state=0):
    """Noisy samples of ``sin(3x)`` on ``[-1, 1]``: ``x`` of shape (n, 1) and ``y`` (n,)."""
    n = check_positive_int(n, "n")
    rng = np.random.default_rng(random_state)
    x = np.sort(rng.uniform(-1, 1, n)).reshape(-1, 1)
    y = np.sin(3 * x[:, 0]) + noise * rng.standard_normal(n)
    return x, y


def ridge_fits(x, y, lam, degree=9, grid_size=200):
    """Fit ridge regression in the primal and in the dual with the polynomial kernel.

    The kernel is ``k(x, z) = (x z + 1)^degree`` (``kernels.Polynomial(degree)``);
    its explicit features ``phi`` (``degree + 1`` of them for 1-D inputs) give
    the primal ``w = (Phi^T Phi + lam I)^-1 Phi^T y``, its Gram matrix the dual
    ``alpha = (K + lam I)^-1 y``.

    Returns
    -------
    dict
        ``grid`` (grid_size, 1), ``primal`` and ``dual`` (fits on the grid),
        ``max_difference`` (largest ``|primal - dual|`` on the grid), ``w``,
        ``alpha``, ``w_from_alpha`` (``Phi^T alpha``), ``norm_w`` and
        ``train_rmse`` (of the dual fit).
    """
    x = as_2d(x, "x")
    y = np.asarray(y, dtype=float)
    lam = check_nonnegative(lam, "lam")
    k = kernels.Polynomial(degree=check_positive_int(degree, "degree"), gamma=1.0, coef0=1.0)
    Phi = k.features(x)
    w = primal_ridge(Phi, y, lam)
    alpha = dual_ridge(k(x), y, lam)
    lo, hi = x.min() - 0.05, x.max() + 0.05
    grid = np.linspace(lo, hi, grid_size).reshape(-1, 1)
    primal = k.features(grid) @ w
    dual = k(grid, x) @ alpha
    return {"grid": grid, "primal": primal, "dual": dual,
            "max_difference": float(np.abs(primal - dual).max()),
            "w": w, "alpha": alpha, "w_from_alpha": Phi.T @ alpha,
            "norm_w": float(np.linalg.norm(w)),
            "train_rmse": float(np.sqrt(np.mean((k(x) @ alpha - y) ** 2)))}


def plot_ridge_fits(fits, x, y, ax=None, title=None):
    """The data, the primal fit (solid) and the dual fit (dashed, on top).

    Returns the Axes; its ``lines[0]`` and ``lines[1]`` are the primal and the dual
    fit, which :func:`ridge_lambda_widget` updates in place. The legend stands beside
    the axes, where no fit (however wild at a small ``lambda``) can run under it.
    """
    if ax is None:
        _, ax = new_figure(figsize=(7.5, 3.6))
    ax.scatter(np.ravel(x), y, s=18, c="k", zorder=3, label="data")
    ax.plot(fits["grid"][:, 0], fits["primal"], "-", lw=3, alpha=0.5, label=r"primal $\langle w, \phi(x)\rangle$")
    ax.plot(fits["grid"][:, 0], fits["dual"], "--", lw=1.5, label=r"dual $\sum_i \alpha_i k(x_i, x)$")
    ax.set_ylim(-2.5, 2.5)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def ridge_lambda_widget(degree=9, n=15, log_lam=-2.0):
    """Widget: ``log10(lambda)`` against the primal and dual fits and their agreement.

    The figure is drawn once; a move refits (a few milliseconds) and moves the two
    curves and the title in place (:class:`~kernelcourse.widgets.FigureView`).

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"log_lam": FloatSlider, "degree": IntSlider}``, ``view``;
        ``result`` is the dict of :func:`ridge_fits` plus ``figure``.
    """
    import ipywidgets as W

    x, y = ridge_data(n=n)
    controls = {
        "log_lam": W.FloatSlider(value=log_lam, min=-8.0, max=3.0, step=0.25,
                                 description="log10 lam"),
        "degree": W.IntSlider(value=degree, min=1, max=15, description="degree"),
    }
    view = FigureView(figsize=(7.5, 3.6))

    def update(log_lam, degree):
        lam = 10.0 ** log_lam
        fits = ridge_fits(x, y, lam, degree=degree)
        # two lines at every lambda, so the first render's layout leaves room for both
        title = (f"lambda = {lam:.2g}: ||w|| = {fits['norm_w']:.3g}, train RMSE {fits['train_rmse']:.3f}\n"
                 f"max |primal - dual| = {fits['max_difference']:.1e}")
        ax = view.axes
        if not ax.lines:
            plot_ridge_fits(fits, x, y, ax=ax)
            view.animate(ax.lines[0], ax.lines[1], ax.title)
        ax.lines[0].set_ydata(fits["primal"])
        ax.lines[1].set_ydata(fits["dual"])
        ax.set_title(title, fontsize=10)
        view.render()
        fits["figure"] = view.fig
        return fits

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) the perceptron, one update at a time, with Novikoff's two inequalities
# ---------------------------------------------------------------------------

def perceptron_path(n=40, margin=0.04, radius=1.0, random_state=3):
    """A separable 2-D data set with a known unit separator, and a full perceptron run on it.

    Returns
    -------
    dict
        ``X``, ``y``, ``w_star`` (from :func:`kernelcourse.datasets.separable_with_margin`)
        and ``run``, the :class:`~kernelcourse.perceptron.PerceptronRun` of the
        dual perceptron with the linear kernel (so ``w_t = X^T alpha_t``).
    """
    X, y, w_star = datasets.separable_with_margin(n, 2, margin=margin, radius=radius,
                                                  random_state=random_state)
    run = dual_perceptron(X @ X.T, y, w_star_projections=X @ w_star)
    return {"X": X, "y": y, "w_star": w_star, "run": run}


def perceptron_state(path, t):
    """The perceptron after ``t`` updates (``0 <= t <= T``).

    Returns
    -------
    dict
        ``t``, ``alpha`` (``alpha^t``), ``w`` (``w_t = X^T alpha^t``), ``j`` (the
        example of update t, None at t = 0), ``norm_sq`` (``||w_t||^2``),
        ``alignment`` (``<w*, w_t>``), ``R``, ``gamma``, ``bound``
        (``R^2/gamma^2``), ``norm_ok`` (``||w_t||^2 <= t R^2``),
        ``alignment_ok`` (``<w*, w_t> >= t gamma``) and ``mistakes`` (training
        points with ``y_i <w_t, x_i> <= 0``).
    """
    run, X, y = path["run"], path["X"], path["y"]
    T = run.n_updates
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t <= T:
        raise ValueError(f"t must be an integer update count between 0 and {T}; got t={t!r}")
    alpha = np.zeros(len(y))
    np.add.at(alpha, run.updates[:t], y[run.updates[:t]])
    w = X.T @ alpha
    norm_sq = float(w @ w)
    alignment = float(path["w_star"] @ w)
    tol = 1e-9 * max(1.0, t)
    return {"t": int(t), "alpha": alpha, "w": w, "j": None if t == 0 else int(run.updates[t - 1]),
            "norm_sq": norm_sq, "alignment": alignment, "R": run.R, "gamma": run.gamma,
            "bound": run.bound, "norm_ok": norm_sq <= t * run.R**2 + tol,
            "alignment_ok": alignment >= t * run.gamma - tol,
            "mistakes": int(np.sum(y * (X @ w) <= 0))}


#: the perceptron widget's figure: three panels at the notebook column's width
PERCEPTRON_FIGSIZE = (8.48, 4.4)


def plot_perceptron_state(path, state, axes=None):
    """Left: data, ``w*`` (dotted) and ``w_t`` (solid boundary). Right: the two inequalities.

    Draws on ``axes`` (three Axes) or on a new figure from
    :func:`~kernelcourse.widgets.new_figure`, and returns a dict of the artists that
    :func:`update_perceptron_state` moves to another ``t``: ``boundary``, ``arrow``,
    ``updated`` (the circled example), ``norm_sq``, ``alignment``, ``norm`` (the
    three curves up to ``t``) and ``figure``.
    """
    X, y, run = path["X"], path["y"], path["run"]
    if axes is None:
        _, axes = new_figure(1, 3, figsize=PERCEPTRON_FIGSIZE)
    ax = axes[0]
    ax.scatter(X[y < 0, 0], X[y < 0, 1], s=14, c="#08519c", label="y = -1")
    ax.scatter(X[y > 0, 0], X[y > 0, 1], s=14, c="#d94801", marker="^", label="y = +1")
    lim = 1.1 * run.R
    line = np.array([-lim, lim])
    ws = path["w_star"]
    ax.plot(-ws[1] * line, ws[0] * line, ":", c="gray", label="w* boundary")
    artists = {"figure": ax.figure, "lim": lim}
    artists["boundary"], = ax.plot([], [], "-", c="k", label="w_t boundary")
    artists["arrow"], = ax.plot([], [], "-", c="k", lw=2.5)
    artists["updated"] = ax.scatter([np.nan], [np.nan], s=120, facecolors="none", edgecolors="red",
                                    label="updated on")
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # under the data, so that the three panels share the column's width
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, borderaxespad=0.0)
    T = np.arange(0, run.n_updates + 1)
    axes[1].plot(T, T * run.R**2, "--", c="gray", label=r"$t R^2$")
    artists["norm_sq"], = axes[1].plot([], [], "o-", ms=3, label=r"$\|w_t\|^2$")
    axes[1].set_xlabel("update t")
    axes[1].set_title(r"$\|w_t\|^2 \leq t R^2$", fontsize=10)
    axes[1].set_ylabel("squared norm")
    axes[1].legend(fontsize=9, loc="upper left")
    axes[2].plot(T, T * run.gamma, "--", c="gray", label=r"$t \gamma$")
    artists["alignment"], = axes[2].plot([], [], "o-", ms=3, label=r"$\langle w^*, w_t\rangle$")
    artists["norm"], = axes[2].plot([], [], "-", lw=1, label=r"$\|w_t\|$")
    axes[2].set_xlabel("update t")
    axes[2].set_title(r"$\|w_t\| \geq \langle w^*, w_t\rangle \geq t\gamma$", fontsize=10)
    axes[2].set_ylabel("length along $w^*$")
    axes[2].legend(fontsize=9, loc="upper left")
    for a in axes[1:]:                       # the curves' full range, so no rescaling per move
        a.set_xlim(-0.5, run.n_updates + 0.5)
    axes[1].set_ylim(0, 1.05 * run.n_updates * run.R**2)
    axes[2].set_ylim(min(0.0, float(np.min(run.alignment))) - 0.05,
                     1.05 * max(float(np.sqrt(np.max(run.norm_sq))), run.n_updates * run.gamma))
    update_perceptron_state(artists, path, state)
    return artists


def update_perceptron_state(artists, path, state):
    """Move the artists of :func:`plot_perceptron_state` to ``state`` (in place)."""
    X, run, t = path["X"], path["run"], state["t"]
    line = np.array([-artists["lim"], artists["lim"]])
    if t > 0 and np.linalg.norm(state["w"]) > 0:
        u = state["w"] / np.linalg.norm(state["w"])
        artists["boundary"].set_data(-u[1] * line, u[0] * line)
        artists["arrow"].set_data([0, 0.5 * u[0]], [0, 0.5 * u[1]])
        artists["updated"].set_offsets([X[state["j"]]])
    else:
        artists["boundary"].set_data([], [])
        artists["arrow"].set_data([], [])
        artists["updated"].set_offsets([[np.nan, np.nan]])
    artists["boundary"].axes.set_title(
        f"t = {t} of {run.n_updates} updates, {state['mistakes']} mistakes", fontsize=10)
    ts = np.arange(1, t + 1)
    artists["norm_sq"].set_data(ts, run.norm_sq[:t])
    artists["alignment"].set_data(ts, run.alignment[:t])
    artists["norm"].set_data(ts, np.sqrt(run.norm_sq[:t]))
    return artists


def perceptron_steps_widget(n=40, margin=0.04, random_state=3, t=0):
    """Widget: a slider over the updates ``t`` of one perceptron run.

    The run is made once; the slider rebuilds ``w_t`` from the first ``t``
    updates and moves the boundary and both of Novikoff's inequalities up to ``t``
    on a figure drawn once (:func:`update_perceptron_state`).

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"t": IntSlider}`` (0 to the number of updates), ``view``;
        ``result`` is the dict of :func:`perceptron_state` plus ``figure``.
    """
    import ipywidgets as W

    path = perceptron_path(n=n, margin=margin, random_state=random_state)
    T = path["run"].n_updates
    controls = {"t": W.IntSlider(value=min(t, T), min=0, max=T, description="update t")}
    view = FigureView(1, 3, figsize=PERCEPTRON_FIGSIZE)
    artists = {}

    def update(t):
        state = perceptron_state(path, t)
        if not artists:
            artists.update(plot_perceptron_state(path, state, axes=view.axes))
            view.animate(*(artists[k] for k in ("boundary", "arrow", "updated", "norm_sq",
                                                "alignment", "norm")), view.axes[0].title)
        update_perceptron_state(artists, path, state)
        view.render()
        print(f"t = {t}: ||w_t||^2 = {state['norm_sq']:.3f} <= t R^2 = {t * state['R'] ** 2:.3f}; "
              f"<w*, w_t> = {state['alignment']:.3f} >= t gamma = {t * state['gamma']:.3f}; "
              f"bound R^2/gamma^2 = {state['bound']:.1f}")
        state["figure"] = view.fig
        return state

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (c) the novelty ball as the kernel width changes
# ---------------------------------------------------------------------------

def novelty_data(n=60, n_test=30, random_state=0):
    """Training points from two blobs, and test points spread over a wider square.

    Returns ``X`` (n, 2) and ``X_test`` (n_test, 2).
    """
    rng = np.random.default_rng(random_state)
    centres = np.array([[-1.0, 0.0], [1.0, 0.5]])
    X = centres[rng.integers(2, size=n)] + 0.35 * rng.standard_normal((n, 2))
    X_test = rng.uniform(-3, 3, size=(n_test, 2))
    return X, X_test


def novelty_map(X, gamma, X_test=None, grid_size=80, pad=0.5):
    """Fit the novelty ball with ``RBF(gamma)`` and evaluate distances on a grid.

    Returns
    -------
    dict
        ``xx``, ``yy`` (the grid, covering ``X`` and ``X_test`` widened by
        ``pad``), ``distance`` (``||phi(x) - phi_S||`` on the grid),
        ``radius``, ``inside_fraction`` (share of the grid inside the ball),
        ``test_novel`` (booleans for ``X_test``, or None), ``model``.
    """
    X = as_2d(X, "X")
    gamma = check_positive(gamma, "gamma")
    model = NoveltyBall(kernels.RBF(gamma=gamma)).fit(X)
    shown = X if X_test is None else np.vstack([X, as_2d(X_test, "X_test")])
    lo, hi = shown.min(axis=0) - pad, shown.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], grid_size), np.linspace(lo[1], hi[1], grid_size))
    dist = model.distance(np.column_stack([xx.ravel(), yy.ravel()])).reshape(xx.shape)
    return {"xx": xx, "yy": yy, "distance": dist, "radius": model.radius_,
            "inside_fraction": float(np.mean(dist <= model.radius_)),
            "test_novel": None if X_test is None else model.predict(X_test), "model": model}


def plot_novelty_map(data, X, X_test=None, ax=None, title=None):
    """Distance to the centre (shaded), the ball's boundary, training and test points.

    Returns the Axes (a new figure from :func:`~kernelcourse.widgets.new_figure` when
    ``ax`` is missing). The shading is an image whose values :func:`novelty_ball_widget`
    replaces in place.
    """
    if ax is None:
        _, ax = new_figure(figsize=(5.0, 4.2))
    extent = (data["xx"][0, 0], data["xx"][0, -1], data["yy"][0, 0], data["yy"][-1, 0])
    # one colour scale for every gamma: an RBF feature map has unit norm, so no point is further
    # than sqrt(2) from the centre of mass, and the colours compare across widths
    im = ax.imshow(data["distance"], origin="lower", extent=extent, cmap="viridis",
                   interpolation="bilinear", aspect="equal", vmin=0.0, vmax=np.sqrt(2.0))
    ax.figure.colorbar(im, ax=ax, label=r"$\|\phi(x) - \phi_S\|$")
    _draw_ball_boundary(ax, data)
    ax.scatter(X[:, 0], X[:, 1], s=10, c="w", edgecolors="k", label="training")
    if X_test is not None and data["test_novel"] is not None:
        novel = data["test_novel"]
        ax.scatter(X_test[novel, 0], X_test[novel, 1], s=30, c="red", marker="x", label="novel")
        ax.scatter(X_test[~novel, 0], X_test[~novel, 1], s=30, c="orange", marker="+", label="inside")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.19), ncol=3,
              borderaxespad=0.0)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _draw_ball_boundary(ax, data):
    d = data["distance"]
    if d.min() < data["radius"] < d.max():
        return ax.contour(data["xx"], data["yy"], d, levels=[data["radius"]], colors="w", linewidths=2)
    return None


def novelty_ball_widget(log_gamma=0.0, n=60):
    """Widget: ``log10(gamma)`` of the RBF kernel against the novelty ball.

    The figure is drawn once; a move replaces the shaded distances (on one colour scale,
    0 to sqrt(2), for every ``gamma``), the ball's boundary, the test points' verdicts
    and the title in place.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"log_gamma": FloatSlider}``, ``view``; ``result`` is the dict
        of :func:`novelty_map` plus ``figure``.
    """
    import ipywidgets as W

    X, X_test = novelty_data(n=n)
    controls = {"log_gamma": W.FloatSlider(value=log_gamma, min=-2.0, max=2.0, step=0.1,
                                           description="log10 gamma")}
    view = FigureView(figsize=(5.0, 4.2))
    drawn = {}

    def update(log_gamma):
        gamma = 10.0 ** log_gamma
        data = novelty_map(X, gamma, X_test)
        title = (f"gamma = {gamma:.3g}: radius {data['radius']:.3f}, {data['test_novel'].sum()} of "
                 f"{len(X_test)} test points novel")
        ax = view.axes
        if not drawn:
            plot_novelty_map(data, X, X_test, ax=ax)
            drawn["image"] = ax.images[0]
            drawn["boundary"] = ax.collections[0] if len(ax.collections) > 3 else None
            drawn["training"], drawn["novel"], drawn["inside"] = ax.collections[-3:]
            view.animate(drawn["image"], drawn["boundary"], drawn["training"], drawn["novel"],
                         drawn["inside"], ax.title)
        else:
            drawn["image"].set_data(data["distance"])
            view.forget(drawn["boundary"])
            drawn["boundary"] = _draw_ball_boundary(ax, data)
            view.animate(drawn["boundary"])
            novel = data["test_novel"]
            drawn["novel"].set_offsets(X_test[novel].reshape(-1, 2))
            drawn["inside"].set_offsets(X_test[~novel].reshape(-1, 2))
        ax.set_title(title, fontsize=10)
        view.render()
        data["figure"] = view.fig
        return data

    return interactive_figure(update, view, controls)
