"""Widgets for lecture 1: feature expansions and the kernel trick.

Three builders, each wiring sliders to plain functions of this module (which
the tests call and check without a browser):

* :func:`kernel_boundary_widget` (lecture 1.5, 1.7): pick the data (circles or
  XOR), the kernel and its ``gamma`` or degree, and see the decision boundary
  that kernelised gradient descent learns, with train and test accuracy.
  Computation: :func:`make_kernel`, :func:`make_dataset`, :func:`boundary_data`;
  drawing: :func:`plot_boundary`.
* :func:`all_subsets_widget` (lecture 1.1, 1.3): move ``d`` and watch the
  all-subsets map grow as ``2^d`` while the kernel ``prod_k (1 + x_k z_k)``
  stays ``O(d)``, with measured times. Computation: :func:`all_subsets_costs`;
  drawing: :func:`plot_all_subsets_costs`.
* :func:`gd_steps_widget` (lecture 1.2, 1.4): move the step ``t`` of a
  gradient descent run and see the boundary of ``alpha^t`` and the loss so
  far. Computation: :func:`gd_path_data`, :func:`boundary_at_step`; drawing:
  :func:`plot_gd_step`.

Each builder returns an ``ipywidgets.interactive``; its ``controls`` attribute
maps argument names to the slider or dropdown, and ``result`` holds the dict
the last callback computed. Each widget draws once on its
:class:`~kernelcourse.widgets.FigureView` (a figure pyplot never tracks) and each
move updates the drawing in place and renders it once; the drawing functions
also draw on a new figure of their own when given no axes.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets, features, kernels
from kernelcourse._validation import as_2d, as_labels, check_positive, check_positive_int, check_square
from kernelcourse.gradient_descent import KernelGD
from kernelcourse.widgets import FigureView, interactive_figure, new_figure

__all__ = [
    "KERNEL_NAMES", "DATASET_NAMES",
    "make_kernel", "make_dataset", "grid_for", "half_stable_step", "boundary_data", "plot_boundary", "update_boundary",
    "kernel_boundary_widget",
    "all_subsets_costs", "plot_all_subsets_costs", "all_subsets_widget",
    "gd_path_data", "boundary_at_step", "plot_gd_step", "gd_steps_widget",
]

KERNEL_NAMES = ("rbf", "polynomial", "linear", "laplacian")
DATASET_NAMES = ("circles", "xor")


# ---------------------------------------------------------------------------
# (a) kernel and its parameter against the decision boundary
# ---------------------------------------------------------------------------

def make_kernel(name, gamma=1.0, degree=2):
    """The kernel object for a widget's choice.

    Parameters
    ----------
    name : {"rbf", "polynomial", "linear", "laplacian"}
        ``rbf`` is ``exp(-gamma ||x - z||^2)``, ``polynomial`` is
        ``(x . z + 1)^degree`` (the lecture's ``(1 + x^T z)^d``), ``laplacian``
        is ``exp(-gamma ||x - z||_1)``.
    gamma : float
        Used by ``rbf`` and ``laplacian``.
    degree : int
        Used by ``polynomial``.
    """
    if name == "rbf":
        return kernels.RBF(gamma=gamma)
    if name == "polynomial":
        return kernels.Polynomial(degree=degree)
    if name == "linear":
        return kernels.Linear()
    if name == "laplacian":
        return kernels.Laplacian(gamma=gamma)
    raise ValueError(f"kernel name must be one of {list(KERNEL_NAMES)}; got {name!r}")


def make_dataset(name, n=200, noise=0.1, random_state=0):
    """``circles`` or ``xor`` from :mod:`kernelcourse.datasets`, as ``(X, y)``."""
    if name == "circles":
        return datasets.circles(n=n, noise=noise, random_state=random_state)
    if name == "xor":
        return datasets.xor(n=n, noise=noise, random_state=random_state)
    raise ValueError(f"dataset name must be one of {list(DATASET_NAMES)}; got {name!r}")


def grid_for(X, grid_size=60, pad=0.25):
    """A square grid over the bounding box of the 2-D points ``X``, widened by ``pad``.

    Returns
    -------
    xx, yy : ndarray of shape (grid_size, grid_size)
        Coordinates of the grid points (``np.meshgrid`` layout).
    points : ndarray of shape (grid_size**2, 2)
        The same points as rows.
    """
    X = as_2d(X)
    if X.shape[1] != 2:
        raise ValueError(f"decision boundaries are drawn for 2-D points; got X with shape {X.shape}")
    grid_size = check_positive_int(grid_size, "grid_size")
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], grid_size), np.linspace(lo[1], hi[1], grid_size))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def half_stable_step(K):
    """``0.5 / lambda_max(K)``, the step ``KernelGD(step="auto")`` takes, by Lanczos iteration.

    Only the largest eigenvalue is computed (``scipy.sparse.linalg.eigsh``, started
    from the vector of ones, so the result is deterministic), several times faster
    than the full spectrum on the widget's 200 points, which matters when every
    slider move retrains; it agrees with the full eigensolver to round-off.
    """
    from scipy.sparse.linalg import eigsh

    K = check_square(K)
    K = (K + K.T) / 2.0
    lam_max = float(eigsh(K, k=1, which="LA", return_eigenvectors=False, v0=np.ones(len(K)))[0])
    if lam_max <= 0:
        raise ValueError(f"K has no positive eigenvalue (largest {lam_max:.3g}); no step makes progress")
    return 0.5 / lam_max


def boundary_data(kernel, X, y, n_steps=300, X_test=None, y_test=None, grid_size=60, step="auto"):
    """Train :class:`~kernelcourse.gradient_descent.KernelGD` and evaluate it on a grid.

    Parameters
    ----------
    kernel : kernel object
    X, y : training points (n, 2) and labels in {-1, +1}
    n_steps : int
        Gradient descent steps.
    step : float or "auto"
        Step size; ``"auto"`` is half the largest stable step, ``0.5 / lambda_max(K)``.
    X_test, y_test : optional
        A test set for the test accuracy.
    grid_size : int
        Grid points per axis.

    Returns
    -------
    dict
        ``xx``, ``yy`` (the grid), ``h`` (``h(x) = sum_j alpha_j k(x_j, x)`` on
        the grid, shape (grid_size, grid_size)), ``train_accuracy``,
        ``test_accuracy`` (None without a test set), ``loss`` (final squared
        loss), ``step`` and ``model``.
    """
    X = as_2d(X)
    y = as_labels(y, n=X.shape[0])
    model = KernelGD(kernel, step=step, n_steps=n_steps).fit(X, y)
    xx, yy, points = grid_for(X, grid_size)
    h = model.decision_function(points).reshape(xx.shape)
    test_accuracy = None if X_test is None else model.score(X_test, y_test)
    return {"xx": xx, "yy": yy, "h": h, "train_accuracy": model.score(X, y),
            "test_accuracy": test_accuracy, "loss": float(model.loss_path_[-1]),
            "step": model.step_, "model": model}


def plot_boundary(data, X, y, ax=None, title=None):
    """Draw ``sign(h)`` on the grid, the boundary ``h = 0`` and the points.

    Parameters
    ----------
    data : dict
        Output of :func:`boundary_data` (or anything with ``xx``, ``yy``, ``h``).
    X, y : the points to show and their labels.
    ax : matplotlib Axes, optional
        When missing, drawn on a new figure from :func:`~kernelcourse.widgets.new_figure`
        (not tracked by pyplot: show ``ax.figure`` yourself).
    title : str, optional

    Returns
    -------
    matplotlib Axes
        Its ``images[0]`` shows the two regions (values ``h >= 0``), which
        :func:`update_boundary` replaces in place.
    """
    from matplotlib.colors import ListedColormap

    if ax is None:
        _, ax = new_figure(figsize=(4.2, 4.0))
    xx, yy = data["xx"], data["yy"]
    ax.imshow((data["h"] >= 0).astype(float), origin="lower", interpolation="nearest",
              extent=(xx[0, 0], xx[0, -1], yy[0, 0], yy[-1, 0]), vmin=0.0, vmax=1.0,
              cmap=ListedColormap(["#c6dbef", "#fdd0a2"]), alpha=0.8)
    _zero_level(ax, data)
    y = np.asarray(y)
    ax.scatter(X[y < 0, 0], X[y < 0, 1], s=12, c="#08519c", label="y = -1")
    ax.scatter(X[y > 0, 0], X[y > 0, 1], s=12, c="#d94801", marker="^", label="y = +1")
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _zero_level(ax, data):
    """The line ``h = 0`` (a contour set), or None when ``h`` keeps one sign on the grid."""
    h = data["h"]
    if h.min() < 0 < h.max():
        return ax.contour(data["xx"], data["yy"], h, levels=[0.0], colors="k", linewidths=1.2)
    return None


def update_boundary(view, ax, data, drawn):
    """Move a :func:`plot_boundary` drawing on ``view`` (a FigureView) to ``data``, in place.

    ``drawn`` keeps the moving artists between calls (pass an empty dict the first time,
    after :func:`plot_boundary` drew on ``ax``): the regions' image, the zero level and
    the title.
    """
    if not drawn:
        drawn["regions"] = ax.images[0]
        drawn["level"] = ax.collections[0] if len(ax.collections) > 2 else None
        points = ax.collections[-2:]            # drawn over the regions, as plot_boundary does
        view.animate(drawn["regions"], *points, drawn["level"], ax.title)
    drawn["regions"].set_data((data["h"] >= 0).astype(float))
    view.forget(drawn["level"])
    drawn["level"] = _zero_level(ax, data)
    view.animate(drawn["level"])


def _describe(kernel_name, gamma, degree):
    if kernel_name in ("rbf", "laplacian"):
        return f"{kernel_name}, gamma={gamma:.3g}"
    if kernel_name == "polynomial":
        return f"polynomial, degree={degree}"
    return kernel_name


def kernel_boundary_widget(dataset="circles", kernel="rbf", gamma=1.0, degree=2, n_steps=300,
                           n=200, grid_size=60):
    """Widget: the kernel and its ``gamma`` or degree against the decision boundary.

    Controls: ``dataset`` (circles, xor), ``kernel`` (rbf, polynomial, linear,
    laplacian), ``gamma`` (log slider, used by rbf and laplacian), ``degree``
    (used by polynomial), ``n_steps``. Each change retrains kernelised gradient
    descent (:func:`boundary_data`) on ``n`` training points and redraws; the
    title gives train and test accuracy (test: ``n`` fresh points).

    Returns
    -------
    ipywidgets.interactive
        With ``controls`` (dict of the widgets) and ``result`` (the dict of
        :func:`boundary_data` plus ``figure``).
    """
    import ipywidgets as W

    controls = {
        "dataset": W.Dropdown(options=list(DATASET_NAMES), value=dataset, description="data"),
        "kernel": W.Dropdown(options=list(KERNEL_NAMES), value=kernel, description="kernel"),
        "gamma": W.FloatLogSlider(value=gamma, base=10, min=-2, max=2, step=0.1, description="gamma"),
        "degree": W.IntSlider(value=degree, min=1, max=8, description="degree"),
        "n_steps": W.IntSlider(value=n_steps, min=10, max=1000, step=10, description="steps"),
    }

    view = FigureView(figsize=(4.6, 4.3))
    drawn: dict = {}
    shown: dict = {}

    def update(dataset, kernel, gamma, degree, n_steps):
        X, y = make_dataset(dataset, n=n, random_state=0)
        X_test, y_test = make_dataset(dataset, n=n, random_state=1)
        k = make_kernel(kernel, gamma, degree)
        data = boundary_data(k, X, y, n_steps, X_test, y_test, grid_size=grid_size,
                             step=half_stable_step(k(X)))
        title = (f"{_describe(kernel, gamma, degree)}: train {data['train_accuracy']:.2f}, "
                 f"test {data['test_accuracy']:.2f}")
        ax = view.axes
        full = shown.get("dataset") != dataset       # new points and extent: draw all anew
        if full:
            view.restart()
            drawn.clear()
            plot_boundary(data, X, y, ax=ax)
            shown["dataset"] = dataset
        update_boundary(view, ax, data, drawn)
        ax.set_title(title, fontsize=10)
        view.render(full=full)
        data["figure"] = view.fig
        return data

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) d against the size of the all-subsets map and the O(d) kernel
# ---------------------------------------------------------------------------

_COST_CACHE: dict = {}


def all_subsets_costs(d, n=40, repeat=3, random_state=0):
    """Size and measured cost of the all-subsets map for ``1..d`` inputs (lecture 1.3).

    For each ``d' = 1..d``: the map's dimension ``2^d'``, the time to build the
    ``(n, n)`` Gram matrix through the explicit map (``phi(X) phi(X)^T``) and
    through the kernel ``prod_k (1 + x_k z_k)``, their ratio, and the largest
    difference between the two matrices (round-off only). Times come from
    :func:`kernelcourse.features.time_all_subsets` and are cached per
    ``(d', n, repeat, random_state)``, so moving a slider back is instant.

    Parameters
    ----------
    d : int
        Largest number of inputs, 1 <= d <= 16.
    n : int
        Number of points.
    repeat : int
        Each time is the best of ``repeat`` runs.

    Returns
    -------
    dict of ndarray
        ``d``, ``dim``, ``map_seconds``, ``kernel_seconds``, ``ratio``
        (``map_seconds / kernel_seconds``) and ``max_abs_diff``.
    """
    d = check_positive_int(d, "d")
    if d > 16:
        raise ValueError(f"d must be at most 16 here (the map would have 2^{d} = {2 ** d} columns); got d={d}")
    rows = []
    for dd in range(1, d + 1):
        key = (dd, n, repeat, random_state)
        if key not in _COST_CACHE:
            one = features.time_all_subsets([dd], n=n, repeat=repeat, random_state=random_state)
            _COST_CACHE[key] = {name: float(values[0]) for name, values in one.items()}
        rows.append(_COST_CACHE[key])
    out = {name: np.array([row[name] for row in rows]) for name in rows[0]}
    out["d"] = out["d"].astype(int)
    out["dim"] = out["dim"].astype(int)
    out["ratio"] = out["map_seconds"] / out["kernel_seconds"]
    return out


def plot_all_subsets_costs(costs, axes=None, d_max=None):
    """Left: the map's dimension ``2^d`` against the kernel's ``d`` products (log scale).
    Right: measured seconds for the Gram matrix, explicit map against kernel.

    ``axes`` (two Axes) are made with :func:`~kernelcourse.widgets.new_figure`
    when missing (a figure pyplot does not track). ``d_max`` fixes the axes' range
    to ``d = 1..d_max`` (the widget's), so the curves can grow without rescaling.

    Returns
    -------
    ndarray of two matplotlib Axes
        ``axes[i].lines`` are the two curves of each panel.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.5, 3.2))
    d = costs["d"]
    axes[0].semilogy(d, costs["dim"], "o-", label="features $2^d$")
    axes[0].semilogy(d, d, "s-", label="kernel factors $d$")
    axes[0].set_xlabel("d")
    axes[0].set_title("size per inner product", fontsize=10)
    axes[0].set_ylabel("numbers per point")
    axes[0].legend(fontsize=8, loc="upper left")
    axes[1].semilogy(d, costs["map_seconds"], "o-", label=r"$\phi(X)\phi(X)^\top$")
    axes[1].semilogy(d, costs["kernel_seconds"], "s-", label=r"$\prod_k (1 + x_k z_k)$")
    axes[1].set_xlabel("d")
    axes[1].set_title("seconds for the Gram matrix", fontsize=10)
    axes[1].set_ylabel("seconds")
    axes[1].legend(fontsize=8, loc="upper left")
    if d_max is not None:
        full = all_subsets_costs(d_max, n=int(costs.get("n", 40)))
        axes[0].set_ylim(0.5, 2.0 * 2.0 ** d_max)
        lo = min(full["map_seconds"].min(), full["kernel_seconds"].min())
        hi = max(full["map_seconds"].max(), full["kernel_seconds"].max())
        axes[1].set_ylim(lo / 2, hi * 2)
        for ax in axes:
            ax.set_xlim(0.5, d_max + 0.5)
    return axes


def all_subsets_widget(d=8, d_max=14, n=40):
    """Widget: move ``d`` and compare the ``2^d`` map with the ``O(d)`` kernel.

    The costs for every ``d <= d_max`` are measured once, when the widget is built
    (a couple of seconds); moving ``d`` then only shows the curves up to ``d``.

    Returns
    -------
    ipywidgets.interactive
        With ``controls`` (``{"d": IntSlider}``), ``view`` and ``result`` (the dict of
        :func:`all_subsets_costs` plus ``figure``).
    """
    import ipywidgets as W

    all_subsets_costs(d_max, n=n)                     # measured once, cached per d
    controls = {"d": W.IntSlider(value=d, min=1, max=d_max, description="d")}
    view = FigureView(1, 2, figsize=(8.5, 3.2))
    curves = []

    def update(d):
        costs = all_subsets_costs(d, n=n)
        costs["n"] = n
        if not curves:
            axes = plot_all_subsets_costs(costs, axes=view.axes, d_max=d_max)
            curves.extend([*axes[0].lines, *axes[1].lines])
            view.animate(*curves)
        for line, values in zip(curves, ("dim", "d", "map_seconds", "kernel_seconds")):
            line.set_data(costs["d"], costs[values])
        view.render()
        print(f"d = {d}: the map has 2^{d} = {costs['dim'][-1]} features, the kernel multiplies {d} "
              f"factors; explicit map / kernel time = {costs['ratio'][-1]:.1f}x")
        costs["figure"] = view.fig
        return costs

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (c) a gradient descent run, step by step
# ---------------------------------------------------------------------------

def gd_path_data(kernel, X, y, n_steps=200, step="auto", grid_size=50):
    """Run kernelised gradient descent recording ``alpha^t``, and the kernel between grid and data.

    Returns
    -------
    dict
        ``model`` (a fitted ``KernelGD`` with ``alpha_path_``), ``xx``, ``yy``,
        ``K_grid`` (``k(grid point, x_j)``, shape (grid_size**2, n)), ``K``
        (the training Gram matrix), ``y`` and ``losses``.
    """
    X = as_2d(X)
    y = as_labels(y, n=X.shape[0])
    model = KernelGD(kernel, step=step, n_steps=n_steps, record_path=True).fit(X, y)
    xx, yy, points = grid_for(X, grid_size)
    return {"model": model, "xx": xx, "yy": yy, "K_grid": kernel(points, X), "K": kernel(X),
            "y": y, "losses": model.loss_path_}


def boundary_at_step(path_data, t):
    """``h_t(x) = sum_j alpha_j^t k(x_j, x)`` on the grid after ``t`` steps.

    Returns
    -------
    dict
        ``xx``, ``yy``, ``h`` (grid values), ``t``, ``alpha`` (``alpha^t``),
        ``loss`` (after ``t`` steps) and ``train_accuracy`` (of
        ``sign(K alpha^t)``, +1 at 0).
    """
    model = path_data["model"]
    n_steps = model.alpha_path_.shape[0] - 1
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t <= n_steps:
        raise ValueError(f"t must be an integer step between 0 and {n_steps}; got t={t!r}")
    alpha_t = model.alpha_path_[t]
    h = (path_data["K_grid"] @ alpha_t).reshape(path_data["xx"].shape)
    train_pred = np.where(path_data["K"] @ alpha_t >= 0, 1.0, -1.0)
    return {"xx": path_data["xx"], "yy": path_data["yy"], "h": h, "t": int(t), "alpha": alpha_t,
            "loss": float(path_data["losses"][t]),
            "train_accuracy": float(np.mean(train_pred == path_data["y"]))}


def plot_gd_step(path_data, step_data, X, y, axes=None):
    """The boundary after ``t`` steps (left) and the loss curve with ``t`` marked (right).

    Draws on ``axes`` (two Axes) or on a new figure from
    :func:`~kernelcourse.widgets.new_figure` (pyplot does not track it). Returns the
    Figure; ``axes[1].lines[1]`` is the marker at ``t``.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.5, 3.6))
    t = step_data["t"]
    plot_boundary(step_data, X, y, ax=axes[0],
                  title=f"after t = {t} steps: train accuracy {step_data['train_accuracy']:.2f}")
    losses = path_data["losses"]
    axes[1].semilogy(np.arange(len(losses)), losses, "-")
    axes[1].semilogy([t], [losses[t]], "o")
    axes[1].set_xlabel("step t")
    axes[1].set_title(r"loss $\|K\alpha^t - y\|^2$", fontsize=10)
    axes[1].set_ylabel("training loss")
    return axes[0].figure


def gd_steps_widget(kernel=None, dataset="circles", n=120, n_steps=200, grid_size=50):
    """Widget: a slider over the steps ``t`` of one kernelised gradient descent run.

    The run is made once (RBF with ``gamma = 2`` by default); the slider
    only picks ``alpha^t`` from the recorded path, and moves the boundary and the
    marker on the loss curve in place.

    Returns
    -------
    ipywidgets.interactive
        With ``controls`` (``{"t": IntSlider}``), ``path_data``, ``view`` and ``result``
        (the dict of :func:`boundary_at_step` plus ``figure``).
    """
    import ipywidgets as W

    kernel = kernels.RBF(gamma=2.0) if kernel is None else kernel
    check_positive(n_steps, "n_steps")
    X, y = make_dataset(dataset, n=n, random_state=0)
    path_data = gd_path_data(kernel, X, y, n_steps=n_steps, grid_size=grid_size)
    controls = {"t": W.IntSlider(value=0, min=0, max=n_steps, description="step t")}
    view = FigureView(1, 2, figsize=(8.5, 3.6))
    drawn: dict = {}
    boundary: dict = {}

    def update(t):
        step_data = boundary_at_step(path_data, t)
        left, right = view.axes
        if not drawn:
            plot_gd_step(path_data, step_data, X, y, axes=view.axes)
            drawn["marker"] = right.lines[1]
            view.animate(drawn["marker"])
        update_boundary(view, left, step_data, boundary)
        left.set_title(f"after t = {t} steps: train accuracy {step_data['train_accuracy']:.2f}",
                       fontsize=10)
        drawn["marker"].set_data([t], [path_data["losses"][t]])
        view.render()
        step_data["figure"] = view.fig
        return step_data

    return interactive_figure(update, view, controls, path_data=path_data)
