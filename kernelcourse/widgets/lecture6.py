"""Widgets for lecture 6: approximation error against the number of components, kernel PCA's gamma.

Two builders, each wiring sliders to plain functions of this module (which the
tests call and check without a browser):

* :func:`components_widget` (lecture 6.3): move the number of components ``m``
  and the RBF width ``gamma``; left, the relative error ``||K - Phi Phi^T||_F / ||K||_F``
  of Nystroem and of random Fourier features against ``m``, with the best
  rank-``m`` error beneath them; right, the spectrum of ``K`` with the first
  ``m`` eigenvalues marked. Computation: :func:`components_state`; drawing:
  :func:`plot_components_state`.
* :func:`kpca_gamma_widget` (lecture 6.4): move ``gamma`` and see the circles
  data projected on kernel PCA's first two components, with the share of the
  variance they explain and how well the first one alone separates the rings.
  Computation: :func:`kpca_projection`; drawing: :func:`plot_kpca_projection`.

Each builder returns an ``ipywidgets.interactive``; its ``controls`` attribute
maps argument names to the sliders, ``view`` is its
:class:`~kernelcourse.widgets.FigureView` (one figure, updated in place on each
move), and ``result`` holds the dict the last callback computed.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets
from kernelcourse._validation import as_2d, check_positive, check_positive_int
from kernelcourse.kernel_pca import KernelPCA
from kernelcourse.kernels import RBF
from kernelcourse.nystroem import errors_against_components, rbf_gram_spectrum
from kernelcourse.widgets import FigureView, interactive_figure, new_figure

__all__ = [
    "components_data", "components_state", "plot_components_state", "update_components_state",
    "components_widget",
    "kpca_projection", "threshold_accuracy", "plot_kpca_projection", "update_kpca_projection",
    "kpca_gamma_widget",
]

#: slider style showing the whole description
_WIDE = {"description_width": "initial"}

#: the numbers of components on the error curves
CURVE_COMPONENTS = (2, 5, 10, 20, 40, 80, 160, 300)


# ---------------------------------------------------------------------------
# (a) number of components against the approximation error
# ---------------------------------------------------------------------------

def components_data(n=300, random_state=0):
    """Points in the plane from three blobs: ``X`` of shape (n, 2)."""
    n = check_positive_int(n, "n")
    rng = np.random.default_rng(random_state)
    centres = np.array([[-1.5, 0.0], [1.0, 1.0], [0.8, -1.2]])
    return centres[rng.integers(3, size=n)] + 0.5 * rng.standard_normal((n, 2))


def components_state(X, gamma, m, curve=CURVE_COMPONENTS, random_state=0):
    """Errors of both approximations at ``m`` components, and along the curve of ``curve`` values.

    Returns
    -------
    dict
        ``m``, ``gamma``; ``at_m``: the dict of
        :func:`kernelcourse.nystroem.errors_against_components` at ``[m]``;
        ``curve``: the same dict over ``curve`` (values above ``n`` left out).
    """
    X = as_2d(X, "X")
    gamma = check_positive(gamma, "gamma")
    m = check_positive_int(m, "m")
    if m > X.shape[0]:
        raise ValueError(f"m must be at most the number of points n = {X.shape[0]}; got m={m}")
    points = [c for c in curve if c <= X.shape[0]]
    return {"m": m, "gamma": gamma,
            "at_m": errors_against_components(X, gamma, [m], random_state=random_state),
            "curve": errors_against_components(X, gamma, points, random_state=random_state)}


def plot_components_state(state, axes=None):
    """Left the error curves with ``m`` marked; right the spectrum of ``K`` (log scale).

    Draws on ``axes`` (two Axes) or on a new figure, and returns a dict of the artists
    :func:`update_components_state` moves: ``nystroem``, ``random_features``, ``best``
    (the curves), ``segment``, ``at_nystroem``, ``at_random`` (the marks at ``m``),
    ``spectrum``, ``first_m`` (the first ``m`` eigenvalues), ``title`` and ``figure``.
    The axes' limits do not depend on the state (the spectrum's top is ``n``, the trace
    of an RBF Gram matrix), so a move never rescales them.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(10.0, 4.2))
    ax, ax2 = axes
    n = len(state["curve"]["spectrum"])
    a = {"figure": ax.figure}
    a["nystroem"], = ax.loglog([], [], "o-", label="Nystroem")
    a["random_features"], = ax.loglog([], [], "s-", label="random Fourier features")
    a["best"], = ax.loglog([], [], "k:", label="best rank m (eigenvectors)")
    a["segment"], = ax.plot([], [], "r-", lw=1, label="both errors at this m")
    a["at_nystroem"], = ax.plot([], [], "ro")
    a["at_random"], = ax.plot([], [], "rs")
    ax.set_xlim(1.5, 1.1 * max(CURVE_COMPONENTS[-1], n))
    ax.set_ylim(1e-6, 20.0)            # random features reach 7.5 at m = 2, gamma = 10^1.5
    ax.set_xlabel("number of components m")
    ax.set_ylabel(r"$\|K - \Phi\Phi^\top\|_F \,/\, \|K\|_F$")
    # the legends stand above the axes: curves reach every corner of the boxes (at a
    # small gamma the errors fall through the bottom left within a few components)
    ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), borderaxespad=0.0,
              ncol=2)
    a["spectrum"], = ax2.semilogy([], [], "-", color="0.4", label="every eigenvalue")
    a["first_m"], = ax2.semilogy([], [], "-", color="C0", lw=3, label="the first m")
    ax2.set_xlim(0, n + 1)
    ax2.set_ylim(1e-12, 2.0 * n)
    ax2.set_xlabel("index i")
    ax2.set_ylabel(r"eigenvalue $s_i$ of $K$")
    ax2.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), borderaxespad=0.0,
               ncol=2)
    a["title"] = ax.figure.suptitle("", fontsize=10)
    update_components_state(a, state)
    return a


def update_components_state(artists, state):
    """Move the artists of :func:`plot_components_state` to ``state`` (in place)."""
    c, a, m = state["curve"], state["at_m"], state["m"]
    artists["nystroem"].set_data(c["components"], c["nystroem"])
    artists["random_features"].set_data(c["components"], c["random_features"])
    artists["best"].set_data(c["components"], np.maximum(c["best_rank"], 1e-16))
    artists["segment"].set_data([m, m], [a["nystroem"][0], a["random_features"][0]])
    artists["at_nystroem"].set_data([m], a["nystroem"])
    artists["at_random"].set_data([m], a["random_features"])
    s = np.maximum(c["spectrum"], 1e-16)
    ranks = np.arange(1, len(s) + 1)
    artists["spectrum"].set_data(ranks, s)
    artists["first_m"].set_data(ranks[:m], s[:m])
    artists["title"].set_text(f"gamma = {state['gamma']:.3g}, m = {m}: Nystroem error "
                              f"{a['nystroem'][0]:.2e}, "
                              f"random features {a['random_features'][0]:.2e}")
    return artists


def components_widget(m=20, log_gamma=0.0, n=300):
    """Widget: the number of components and ``log10(gamma)`` against both approximations' errors.

    The figure is drawn once (:class:`~kernelcourse.widgets.FigureView`); a move changes
    the curves, the marks at ``m``, the spectrum and the title in place. What a move
    computes is kept: the curve and spectrum per ``gamma``, the errors per ``(gamma, m)``,
    so coming back to a setting computes nothing. The errors themselves (fits of both
    approximations) are the slow part of a move to a new setting; the sliders answer on
    release (``continuous_update=False``).

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"m": IntSlider, "log_gamma": FloatSlider}``, ``view``;
        ``result`` is the dict of :func:`components_state` plus ``figure``.
    """
    import ipywidgets as W

    X = components_data(n=n)
    controls = {
        "m": W.IntSlider(value=m, min=2, max=n, step=1, description="components m",
                         continuous_update=False, style=_WIDE),
        "log_gamma": W.FloatSlider(value=log_gamma, min=-1.5, max=1.5, step=0.1,
                                   description="log10 gamma", continuous_update=False, style=_WIDE),
    }
    view = FigureView(1, 2, figsize=(10.0, 4.2))
    points = [c for c in CURVE_COMPONENTS if c <= n]
    grams, curves, at = {}, {}, {}
    artists = {}

    def update(m, log_gamma):
        gamma = 10.0 ** log_gamma
        key = round(float(log_gamma), 6)
        if key not in grams:  # K and its spectrum once per gamma; a move of m fits two maps only
            grams[key] = rbf_gram_spectrum(X, gamma)
            curves[key] = errors_against_components(X, gamma, points, random_state=0,
                                                    gram_spectrum=grams[key])
        if (key, m) not in at:
            at[key, m] = errors_against_components(X, gamma, [m], random_state=0,
                                                   gram_spectrum=grams[key])
        state = {"m": int(m), "gamma": gamma, "at_m": at[key, m], "curve": curves[key]}
        if not artists:
            artists.update(plot_components_state(state, axes=view.axes))
            view.animate(*(artists[k] for k in ("nystroem", "random_features", "best", "segment",
                                                "at_nystroem", "at_random", "spectrum", "first_m",
                                                "title")))
        update_components_state(artists, state)
        view.render()
        state["figure"] = view.fig
        return state

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) kernel PCA's gamma against the projected data
# ---------------------------------------------------------------------------

def threshold_accuracy(z, y) -> float:
    """The best accuracy of one threshold on ``z`` (either direction) for labels ``y`` in {-1, +1}."""
    z = np.asarray(z, dtype=float)
    y = np.asarray(y, dtype=float)
    if z.shape != y.shape or z.ndim != 1:
        raise ValueError(f"z and y must be 1-D of the same length; got shapes {z.shape} and {y.shape}")
    order = np.argsort(z, kind="stable")
    ys = y[order]
    # predicting +1 above cut k: correct = negatives below + positives above
    neg_below = np.concatenate([[0], np.cumsum(ys < 0)])
    pos_above = np.concatenate([[0], np.cumsum((ys > 0)[::-1])])[::-1]
    correct = neg_below + pos_above
    n = len(y)
    return float(max(correct.max(), n - correct.min()) / n)


def kpca_projection(X, y, gamma, n_components=2):
    """Kernel PCA with ``RBF(gamma)`` on ``X``: projections, variance shares, separation.

    Returns
    -------
    dict
        ``Z`` (n, n_components) the training projections; ``ratio`` the
        explained-variance shares of the components; ``accuracy`` the best
        threshold accuracy on the first component alone (0.5 means no separation);
        ``model`` the fitted :class:`kernelcourse.kernel_pca.KernelPCA`.
    """
    X = as_2d(X, "X")
    gamma = check_positive(gamma, "gamma")
    model = KernelPCA(RBF(gamma), n_components)
    Z = model.fit_transform(X)
    return {"Z": Z, "ratio": model.explained_variance_ratio_, "gamma": gamma,
            "accuracy": threshold_accuracy(Z[:, 0], y), "model": model}


def plot_kpca_projection(data, X, y, axes=None):
    """Left the data in the input plane; right its projection on components 1 and 2.

    Draws on ``axes`` (two Axes) or on a new figure, and returns a dict of the artists
    :func:`update_kpca_projection` moves: ``outer`` and ``inner`` (the projected rings),
    ``title``, ``xlabel``, ``ylabel`` and ``figure``. The right panel's limits are
    ``[-1.05, 1.05]`` on both axes: each projection is drawn scaled by the largest
    absolute value of its components (:func:`_scaled`), so no move rescales the axes.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(9.0, 3.8))
    ax, ax2 = axes
    a = {"figure": ax.figure}
    for label, colour in ((-1, "C0"), (1, "C3")):
        ax.scatter(X[y == label, 0], X[y == label, 1], s=10, c=colour)
        a["outer" if label < 0 else "inner"] = ax2.scatter(
            np.zeros(int(np.sum(y == label))), np.zeros(int(np.sum(y == label))), s=10, c=colour,
            label="outer ring" if label < 0 else "inner ring")
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("input space", fontsize=10)
    ax2.set_xlim(-1.05, 1.05)
    ax2.set_ylim(-1.05, 1.05)
    ax2.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    a["title"] = ax2.set_title("", fontsize=10)
    a["xlabel"] = ax2.xaxis.label
    a["ylabel"] = ax2.yaxis.label
    update_kpca_projection(a, data, y)
    return a


def _scaled(Z):
    """``Z`` divided by the largest absolute value of each column (a zero column stays zero)."""
    top = np.abs(Z).max(axis=0)
    return Z / np.where(top > 0, top, 1.0)


def update_kpca_projection(artists, data, y):
    """Move the artists of :func:`plot_kpca_projection` to ``data`` (in place)."""
    Z = _scaled(data["Z"][:, :2])
    artists["outer"].set_offsets(Z[y < 0])
    artists["inner"].set_offsets(Z[y > 0])
    r = data["ratio"]
    artists["xlabel"].set_text(f"component 1 ({100 * r[0]:.1f}% of the variance), scaled to 1")
    artists["ylabel"].set_text(f"component 2 ({100 * r[1]:.1f}%), scaled to 1")
    artists["title"].set_text(f"gamma = {data['gamma']:.3g}: one cut on component 1 is "
                              f"right for {100 * data['accuracy']:.0f}%")
    return artists


def kpca_gamma_widget(log_gamma=0.5, n=300):
    """Widget: ``log10(gamma)`` of the RBF kernel against kernel PCA's projection of the circles.

    The figure is drawn once (:class:`~kernelcourse.widgets.FigureView`); a move refits
    kernel PCA and moves the projected points, the axis labels and the title in place.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"log_gamma": FloatSlider}``, ``view``; ``result`` is the dict
        of :func:`kpca_projection` plus ``figure``.
    """
    import ipywidgets as W

    X, y = datasets.circles(n, noise=0.05, factor=0.3, random_state=0)
    controls = {"log_gamma": W.FloatSlider(value=log_gamma, min=-2.0, max=2.0, step=0.1,
                                           description="log10 gamma", continuous_update=False,
                                           style=_WIDE)}
    view = FigureView(1, 2, figsize=(9.0, 3.8))
    artists = {}

    def update(log_gamma):
        data = kpca_projection(X, y, 10.0 ** log_gamma)
        if not artists:
            artists.update(plot_kpca_projection(data, X, y, axes=view.axes))
            view.animate(*(artists[k] for k in ("outer", "inner", "title", "xlabel", "ylabel")))
        update_kpca_projection(artists, data, y)
        view.render()
        data["figure"] = view.fig
        return data

    return interactive_figure(update, view, controls)
