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
the last callback computed. The drawing functions put their plots on figures
made by :func:`kernelcourse.widgets.new_figure`, which pyplot never tracks;
the callbacks show them with :func:`kernelcourse.widgets.show_figure` (a PNG
rendered on the spot), so no redraw depends on the inline backend's flush.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets, features, kernels
from kernelcourse._validation import as_2d, as_labels, check_positive, check_positive_int
from kernelcourse.gradient_descent import KernelGD
from kernelcourse.widgets import new_figure, show_figure

__all__ = [
    "KERNEL_NAMES", "DATASET_NAMES",
    "make_kernel", "make_dataset", "grid_for", "boundary_data", "plot_boundary",
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


def boundary_data(kernel, X, y, n_steps=300, X_test=None, y_test=None, grid_size=60):
    """Train :class:`~kernelcourse.gradient_descent.KernelGD` and evaluate it on a grid.

    Parameters
    ----------
    kernel : kernel object
    X, y : training points (n, 2) and labels in {-1, +1}
    n_steps : int
        Gradient descent steps (step size ``"auto"``: half the largest stable step).
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
    model = KernelGD(kernel, n_steps=n_steps).fit(X, y)
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
    """
    if ax is None:
        _, ax = new_figure(figsize=(4.2, 4.0))
    xx, yy, h = data["xx"], data["yy"], data["h"]
    ax.contourf(xx, yy, np.sign(h), levels=[-1.5, 0, 1.5], colors=["#c6dbef", "#fdd0a2"], alpha=0.8)
    if h.min() < 0 < h.max():
        ax.contour(xx, yy, h, levels=[0.0], colors="k", linewidths=1.2)
    y = np.asarray(y)
    ax.scatter(X[y < 0, 0], X[y < 0, 1], s=12, c="#08519c", label="y = -1")
    ax.scatter(X[y > 0, 0], X[y > 0, 1], s=12, c="#d94801", marker="^", label="y = +1")
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


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
        "gamma": W.FloatLogSlider(value=gamma, base=10, min=-2, max=2, step=0.1, description="gamma",
                                  continuous_update=False),
        "degree": W.IntSlider(value=degree, min=1, max=8, description="degree", continuous_update=False),
        "n_steps": W.IntSlider(value=n_steps, min=10, max=1000, step=10, description="steps",
                               continuous_update=False),
    }

    def update(dataset, kernel, gamma, degree, n_steps):
        X, y = make_dataset(dataset, n=n, random_state=0)
        X_test, y_test = make_dataset(dataset, n=n, random_state=1)
        data = boundary_data(make_kernel(kernel, gamma, degree), X, y, n_steps,
                             X_test, y_test, grid_size=grid_size)
        ax = plot_boundary(data, X, y, title=(
            f"{_describe(kernel, gamma, degree)}: train {data['train_accuracy']:.2f}, "
            f"test {data['test_accuracy']:.2f}"))
        show_figure(ax.figure)
        data["figure"] = ax.figure
        return data

    widget = W.interactive(update, **controls)
    widget.controls = controls
    return widget


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


def plot_all_subsets_costs(costs, axes=None):
    """Left: the map's dimension ``2^d`` against the kernel's ``d`` products (log scale).
    Right: measured seconds for the Gram matrix, explicit map against kernel.

    ``axes`` (two Axes) are made with :func:`~kernelcourse.widgets.new_figure`
    when missing (a figure pyplot does not track).

    Returns
    -------
    ndarray of two matplotlib Axes
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.5, 3.2))
    d = costs["d"]
    axes[0].semilogy(d, costs["dim"], "o-", label="features $2^d$")
    axes[0].semilogy(d, d, "s-", label="kernel factors $d$")
    axes[0].set_xlabel("d")
    axes[0].set_title("size per inner product", fontsize=10)
    axes[0].legend(fontsize=8)
    axes[1].semilogy(d, costs["map_seconds"], "o-", label=r"$\phi(X)\phi(X)^\top$")
    axes[1].semilogy(d, costs["kernel_seconds"], "s-", label=r"$\prod_k (1 + x_k z_k)$")
    axes[1].set_xlabel("d")
    axes[1].set_title("seconds for the Gram matrix", fontsize=10)
    axes[1].legend(fontsize=8)
    axes[0].figure.tight_layout()
    return axes


def all_subsets_widget(d=8, d_max=14, n=40):
    """Widget: move ``d`` and compare the ``2^d`` map with the ``O(d)`` kernel.

    Returns
    -------
    ipywidgets.interactive
        With ``controls`` (``{"d": IntSlider}``) and ``result`` (the dict of
        :func:`all_subsets_costs` plus ``figure``).
    """
    import ipywidgets as W

    controls = {"d": W.IntSlider(value=d, min=1, max=d_max, description="d", continuous_update=False)}

    def update(d):
        costs = all_subsets_costs(d, n=n)
        axes = plot_all_subsets_costs(costs)
        # The plot first: the output is cleared when the first new output arrives, so a
        # line printed first would leave the widget without a plot while the PNG renders.
        show_figure(axes[0].figure)
        print(f"d = {d}: the map has 2^{d} = {costs['dim'][-1]} features, the kernel multiplies {d} "
              f"factors; explicit map / kernel time = {costs['ratio'][-1]:.1f}x")
        costs["figure"] = axes[0].figure
        return costs

    widget = W.interactive(update, **controls)
    widget.controls = controls
    return widget


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


def plot_gd_step(path_data, step_data, X, y):
    """The boundary after ``t`` steps (left) and the loss curve with ``t`` marked (right).

    Returns the Figure, made with :func:`~kernelcourse.widgets.new_figure` (pyplot does not track it).
    """
    fig, axes = new_figure(1, 2, figsize=(8.5, 3.6))
    t = step_data["t"]
    plot_boundary(step_data, X, y, ax=axes[0],
                  title=f"after t = {t} steps: train accuracy {step_data['train_accuracy']:.2f}")
    losses = path_data["losses"]
    axes[1].semilogy(np.arange(len(losses)), losses, "-")
    axes[1].semilogy([t], [losses[t]], "o")
    axes[1].set_xlabel("step t")
    axes[1].set_title(r"loss $\|K\alpha^t - y\|^2$", fontsize=10)
    fig.tight_layout()
    return fig


def gd_steps_widget(kernel=None, dataset="circles", n=120, n_steps=200, grid_size=50):
    """Widget: a slider over the steps ``t`` of one kernelised gradient descent run.

    The run is made once (RBF with ``gamma = 2`` by default); the slider
    only picks ``alpha^t`` from the recorded path.

    Returns
    -------
    ipywidgets.interactive
        With ``controls`` (``{"t": IntSlider}``), ``path_data`` and ``result``
        (the dict of :func:`boundary_at_step` plus ``figure``).
    """
    import ipywidgets as W

    kernel = kernels.RBF(gamma=2.0) if kernel is None else kernel
    check_positive(n_steps, "n_steps")
    X, y = make_dataset(dataset, n=n, random_state=0)
    path_data = gd_path_data(kernel, X, y, n_steps=n_steps, grid_size=grid_size)
    controls = {"t": W.IntSlider(value=0, min=0, max=n_steps, description="step t",
                                 continuous_update=False)}

    def update(t):
        step_data = boundary_at_step(path_data, t)
        step_data["figure"] = plot_gd_step(path_data, step_data, X, y)
        show_figure(step_data["figure"])
        return step_data

    widget = W.interactive(update, **controls)
    widget.controls = controls
    widget.path_data = path_data
    return widget
