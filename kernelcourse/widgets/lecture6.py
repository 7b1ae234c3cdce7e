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
maps argument names to the sliders, and ``result`` holds the dict the last
callback computed.
"""
from __future__ import annotations

import numpy as np

from kernelcourse import datasets
from kernelcourse._validation import as_2d, check_positive, check_positive_int
from kernelcourse.kernel_pca import KernelPCA
from kernelcourse.kernels import RBF
from kernelcourse.nystroem import errors_against_components
from kernelcourse.widgets import new_figure, show_figure

__all__ = [
    "components_data", "components_state", "plot_components_state", "components_widget",
    "kpca_projection", "threshold_accuracy", "plot_kpca_projection", "kpca_gamma_widget",
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


def plot_components_state(state):
    """Left the error curves with ``m`` marked; right the spectrum of ``K`` (log scale)."""
    fig, (ax, ax2) = new_figure(1, 2, figsize=(10.0, 3.6))
    c, a = state["curve"], state["at_m"]
    ax.loglog(c["components"], c["nystroem"], "o-", label="Nystroem")
    ax.loglog(c["components"], c["random_features"], "s-", label="random Fourier features")
    best = np.maximum(c["best_rank"], 1e-16)
    ax.loglog(c["components"], best, "k:", label="best rank m (eigenvectors)")
    ax.plot([state["m"]] * 2, [a["nystroem"][0], a["random_features"][0]], "r-", lw=1)
    ax.plot([state["m"]], a["nystroem"], "ro")
    ax.plot([state["m"]], a["random_features"], "rs")
    ax.set_ylim(1e-6, 2.0)
    ax.set_xlabel("number of components m")
    ax.set_ylabel(r"$\|K - \Phi\Phi^\top\|_F \,/\, \|K\|_F$")
    ax.legend(fontsize=8, loc="lower left")
    s = np.maximum(c["spectrum"], 1e-16)
    ranks = np.arange(1, len(s) + 1)
    ax2.semilogy(ranks, s, "-", color="0.4")
    ax2.semilogy(ranks[: state["m"]], s[: state["m"]], "-", color="C0", lw=3, label=f"first m = {state['m']}")
    ax2.set_ylim(1e-12, s[0] * 2)
    ax2.set_xlabel("index i")
    ax2.set_ylabel(r"eigenvalue $s_i$ of $K$")
    ax2.legend(fontsize=8)
    fig.suptitle(f"gamma = {state['gamma']:.3g}, m = {state['m']}: Nystroem error "
                 f"{a['nystroem'][0]:.2e}, random features {a['random_features'][0]:.2e}", fontsize=10)
    return fig


def components_widget(m=20, log_gamma=0.0, n=300):
    """Widget: the number of components and ``log10(gamma)`` against both approximations' errors.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"m": IntSlider, "log_gamma": FloatSlider}``; ``result``
        is the dict of :func:`components_state` plus ``figure``.
    """
    import ipywidgets as W

    X = components_data(n=n)
    controls = {
        "m": W.IntSlider(value=m, min=2, max=n, step=1, description="components m",
                         continuous_update=False, style=_WIDE),
        "log_gamma": W.FloatSlider(value=log_gamma, min=-1.5, max=1.5, step=0.1,
                                   description="log10 gamma", continuous_update=False, style=_WIDE),
    }

    def update(m, log_gamma):
        state = components_state(X, 10.0 ** log_gamma, m)
        fig = plot_components_state(state)
        show_figure(fig)
        state["figure"] = fig
        return state

    widget = W.interactive(update, **controls)
    widget.controls = controls
    return widget


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


def plot_kpca_projection(data, X, y):
    """Left the data in the input plane; right its projection on components 1 and 2."""
    fig, (ax, ax2) = new_figure(1, 2, figsize=(9.0, 3.8))
    for label, colour in ((-1, "C0"), (1, "C3")):
        ax.scatter(X[y == label, 0], X[y == label, 1], s=10, c=colour)
        ax2.scatter(data["Z"][y == label, 0], data["Z"][y == label, 1], s=10, c=colour,
                    label="outer ring" if label < 0 else "inner ring")
    ax.set_aspect("equal")
    ax.set_title("input space", fontsize=10)
    r = data["ratio"]
    ax2.set_xlabel(f"component 1 ({100 * r[0]:.1f}% of the variance)")
    ax2.set_ylabel(f"component 2 ({100 * r[1]:.1f}%)")
    ax2.set_title(f"gamma = {data['gamma']:.3g}: one threshold on component 1 is right for "
                  f"{100 * data['accuracy']:.0f}%", fontsize=10)
    ax2.legend(fontsize=8)
    return fig


def kpca_gamma_widget(log_gamma=0.5, n=300):
    """Widget: ``log10(gamma)`` of the RBF kernel against kernel PCA's projection of the circles.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"log_gamma": FloatSlider}``; ``result`` is the dict of
        :func:`kpca_projection` plus ``figure``.
    """
    import ipywidgets as W

    X, y = datasets.circles(n, noise=0.05, factor=0.3, random_state=0)
    controls = {"log_gamma": W.FloatSlider(value=log_gamma, min=-2.0, max=2.0, step=0.1,
                                           description="log10 gamma", continuous_update=False,
                                           style=_WIDE)}

    def update(log_gamma):
        data = kpca_projection(X, y, 10.0 ** log_gamma)
        fig = plot_kpca_projection(data, X, y)
        show_figure(fig)
        data["figure"] = fig
        return data

    widget = W.interactive(update, **controls)
    widget.controls = controls
    return widget
