"""Lecture 4's widgets: the MAP fit in the primal and the dual (4.1-4.3), and a kernel
builder (4.5-4.7).

:func:`map_dual_widget` moves the prior's ``lambda`` and shows the MAP fit of linear or
logistic regression computed from ``w`` and from the dual coefficients ``alpha``, with
each ``alpha_i`` beside the formula that defines it (computation: :func:`map_dual_data`;
drawing: :func:`plot_map_dual`, :func:`update_map_dual`).

:func:`kernel_builder`: pick two base kernels and a way to combine them; the widget shows the Gram matrix on a
seeded random data set, its eigenvalues, and the verdict: PSD or not, and whether the
lecture's construction rules promised it. Everything it shows comes from
:func:`build_kernel` and :func:`gram_report`, plain functions tested without a browser.

The combinations are the eight rules of the lecture (``c k1``, ``k1 + k2``, ``k1 k2``,
``q(k1)``, ``f(x) k1 f(z)``, ``exp(k1)``, ``x^T A z``, with ``x^T z`` among the bases) plus
normalising, and four that are *not* rules, so that the PSD check has something to catch:
``k1 - k2``, ``-c k1``, a polynomial with a negative coefficient and ``x^T A z`` with an
``A`` that is not PSD. Among the bases, the sigmoid ``tanh(gamma x.z - 1)`` and the metric
``||x - z||`` are no kernels.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable

import numpy as np

from .. import dual, kernels
from .._validation import as_2d, check_positive, check_positive_int, check_square
from . import FigureView, interactive_figure, new_figure

__all__ = ["BASES", "RULES", "BuiltKernel", "build_kernel", "gram_report",
           "smallest_negative_minor", "demo_points", "plot_report", "update_report", "kernel_builder",
           "MAP_MODELS", "map_dual_points", "map_dual_data", "plot_map_dual", "update_map_dual",
           "map_dual_widget"]

A_PSD = np.array([[2.0, 0.5], [0.5, 1.0]])        # eigenvalues 2.21, 0.79
A_NOT_PSD = np.array([[1.0, 0.0], [0.0, -1.0]])   # eigenvalues 1, -1


def _f_scale(X):
    """The function of rule 6: any real function will do, this one changes sign."""
    return np.cos(2.0 * X[:, 0]) + 0.5 * X[:, 1]


class _Metric(kernels.Kernel):
    """``||x - z||``: a distance, used as if it were a similarity. Not a kernel."""

    def _gram(self, X, Z, symmetric):
        return np.sqrt(((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))

    def _diag(self, X):
        return np.zeros(X.shape[0])

    def __repr__(self):
        return "Metric()"


# name -> (label, factory(gamma), is a kernel)
BASES: dict[str, tuple[str, Callable, bool]] = {
    "linear": ("linear  x.z", lambda gamma: kernels.Linear(), True),
    "rbf": ("RBF  exp(-gamma ||x-z||^2)", lambda gamma: kernels.RBF(gamma), True),
    "poly2": ("polynomial  (x.z + 1)^2", lambda gamma: kernels.Polynomial(2), True),
    "laplacian": ("Laplacian  exp(-gamma ||x-z||_1)", lambda gamma: kernels.Laplacian(gamma), True),
    "sigmoid": ("sigmoid  tanh(gamma x.z - 1)  (no kernel)",
                lambda gamma: kernels.Sigmoid(gamma, -1.0), False),
    "metric": ("metric  ||x - z||  (no kernel)", lambda gamma: _Metric(), False),
}


def _gram_of(k1, k2, how):
    """A plain ``func(X, Z=None)`` for combinations that are no Kernel objects."""
    def func(X, Z=None):
        return how(k1(X, Z), None if k2 is None else k2(X, Z))
    return func


def _bilinear(A):
    def func(X, Z=None):
        X = as_2d(X)
        Z = X if Z is None else as_2d(Z, "Z")
        return X @ A @ Z.T
    return func


# name -> (label, rule number or None when it is no rule, uses k2, builder(k1, k2, c))
RULES: dict[str, tuple[str, int | None, bool, Callable]] = {
    "k1": ("k1 alone", None, False, lambda k1, k2, c: k1),
    "scale": ("rule 2: c k1", 2, False, lambda k1, k2, c: c * k1),
    "sum": ("rule 3: k1 + k2", 3, True, lambda k1, k2, c: k1 + k2),
    "product": ("rule 4: k1 k2", 4, True, lambda k1, k2, c: k1 * k2),
    "poly": ("rule 5: q(k1) = 1 + c k1 + k1^2", 5, False,
             lambda k1, k2, c: kernels.PolynomialOf(k1, [1.0, c, 1.0])),
    "fscale": ("rule 6: f(x) k1(x, z) f(z)", 6, False,
               lambda k1, k2, c: kernels.Scaled(k1, _f_scale)),
    "exp": ("rule 7: exp(c k1)", 7, False, lambda k1, k2, c: kernels.Exp(c * k1)),
    "bilinear": ("rule 8: x^T A z, A PSD (ignores k1, k2)", 8, False,
                 lambda k1, k2, c: kernels.Bilinear(A_PSD)),
    "normalize": ("normalise: k1(x,z) / sqrt(k1(x,x) k1(z,z))", 0, False,
                  lambda k1, k2, c: kernels.Normalized(k1)),
    "difference": ("no rule: k1 - k2", None, True,
                   lambda k1, k2, c: _gram_of(k1, k2, lambda K1, K2: K1 - K2)),
    "negative": ("no rule: -c k1", None, False,
                 lambda k1, k2, c: _gram_of(k1, None, lambda K1, _: -c * K1)),
    "negpoly": ("no rule: k1^2 - c k1 (a negative coefficient)", None, False,
                lambda k1, k2, c: _gram_of(k1, None, lambda K1, _: K1 ** 2 - c * K1)),
    "bilinear_bad": ("no rule: x^T A z, A = diag(1, -1)", None, False,
                     lambda k1, k2, c: _bilinear(A_NOT_PSD)),
}


@dataclass
class BuiltKernel:
    """What the builder made: the function, its formula and what the rules promise."""

    func: Callable
    formula: str
    promised: bool          # the rules guarantee a kernel (valid bases, valid rules)
    reason: str


def build_kernel(base1="rbf", base2="linear", rule="sum", gamma=0.5, c=1.0):
    """Combine two base kernels by a rule of lecture 4 (or by a non-rule).

    Parameters
    ----------
    base1, base2 : str
        Keys of :data:`BASES`. ``base2`` is used only by two-kernel rules.
    rule : str
        A key of :data:`RULES`.
    gamma : float > 0
        Width of the RBF and Laplacian bases, slope of the sigmoid.
    c : float > 0
        The constant of rules 2, 5 and 7 and of the non-rules.

    Returns
    -------
    BuiltKernel
        ``promised`` is True when every base used is a kernel and the combination is a
        rule (or normalising, which is rule 6 with ``f = 1/sqrt(k1(x, x))``).
    """
    for name, key, table in (("base1", base1, BASES), ("base2", base2, BASES),
                             ("rule", rule, RULES)):
        if key not in table:
            raise ValueError(f"{name} must be one of {sorted(table)}; got {name}={key!r}")
    gamma = check_positive(gamma, "gamma")
    c = check_positive(c, "c")
    label1, make1, valid1 = BASES[base1]
    label2, make2, valid2 = BASES[base2]
    rule_label, number, two, build = RULES[rule]
    k1 = make1(gamma)
    k2 = make2(gamma) if two else None
    func = build(k1, k2, c)
    used_valid = valid1 and (valid2 or not two)
    if rule in ("bilinear", "bilinear_bad"):          # these ignore the bases
        used_valid = True
    is_rule = number is not None or rule == "k1"
    formula = rule_label.split(": ", 1)[-1]
    formula = f"{formula}   with k1 = {label1.split('  ')[1]}" + \
        (f", k2 = {label2.split('  ')[1]}" if two else "")
    if rule in ("bilinear", "bilinear_bad"):
        formula = rule_label.split(": ", 1)[-1]
    if not used_valid:
        reason = "a base is no kernel, so the rules promise nothing"
    elif not is_rule:
        reason = "this combination is none of the rules, so nothing is promised"
    elif rule == "k1":
        reason = "a valid base kernel"
    elif number == 0:
        reason = "normalising is rule 6 with f(x) = 1/sqrt(k1(x, x))"
    else:
        reason = f"rule {number} applied to valid kernels"
    return BuiltKernel(func, formula, bool(used_valid and is_rule), reason)


def smallest_negative_minor(K, max_size=3, max_points=12):
    """A subset of at most ``max_size`` points whose Gram matrix has a negative determinant.

    The lecture's test: a negative determinant means a negative eigenvalue (the determinant is
    the product of the eigenvalues), so one small data set proves a function is no kernel.
    Searches the first ``max_points`` points, smallest subsets first.

    Returns
    -------
    (indices, det) or None
    """
    K = check_square(K)
    max_size = check_positive_int(max_size, "max_size")
    m = min(K.shape[0], check_positive_int(max_points, "max_points"))
    scale = max(1.0, float(np.abs(K).max()))
    for size in range(1, max_size + 1):
        for idx in combinations(range(m), size):
            det = float(np.linalg.det(K[np.ix_(idx, idx)]))
            if det < -1e-9 * scale ** size:
                return list(idx), det
    return None


def gram_report(built, X):
    """Gram matrix, spectrum and verdict of a built kernel on the points ``X``.

    Returns
    -------
    dict with ``K``, ``eigenvalues`` (ascending), ``min_eigenvalue``, ``psd`` (by
    :func:`kernelcourse.kernels.is_psd`, whose tolerance is relative to the largest
    eigenvalue), ``promised``, ``witness`` (from :func:`smallest_negative_minor` when not
    PSD) and ``verdict``, a one-line summary. When the kernel cannot be evaluated (normalising
    a base with ``k(x, x) <= 0``), ``K`` is None, ``psd`` is None and the verdict says why.
    """
    X = as_2d(X)
    try:
        K = np.asarray(built.func(X), dtype=float)
    except ValueError as exc:
        return {"K": None, "eigenvalues": None, "min_eigenvalue": None, "psd": None,
                "promised": built.promised, "witness": None,
                "verdict": f"cannot evaluate this kernel: {exc}"}
    symmetric = np.allclose(K, K.T, rtol=1e-10, atol=1e-12)
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    psd = kernels.is_psd(K)
    witness = None if psd else smallest_negative_minor(K)
    top = max(float(np.abs(eig).max()), 1e-300)
    if psd:
        verdict = (f"PSD on these {len(X)} points: smallest eigenvalue {eig[0]:.3g}, "
                   f"{eig[0] / top:.2g} of the largest (>= 0 up to rounding)")
    else:
        verdict = f"NOT PSD: smallest eigenvalue {eig[0]:.3g} < 0, so this is no kernel"
        if not symmetric:
            verdict += " (K is not even symmetric)"
        if witness is not None:
            idx, det = witness
            verdict += (f"; point {idx[0]} alone has k(x, x) = {det:.3g} < 0" if len(idx) == 1
                        else f"; the points {idx} alone give det = {det:.3g} < 0")
    verdict += f". Rules: {built.reason}."
    return {"K": K, "eigenvalues": eig, "min_eigenvalue": float(eig[0]), "psd": psd,
            "promised": built.promised, "witness": witness, "verdict": verdict}


def demo_points(n=20, seed=0):
    """The builder's data: ``n`` points in 2-D from ``N(0, I)``, seeded."""
    n = check_positive_int(n, "n")
    return np.random.default_rng(seed).normal(size=(n, 2))


def plot_report(report, title="", axes=None, n_max=None):
    """Gram matrix as an image and the eigenvalues as bars, negative ones in red.

    Draws on ``axes`` (two Axes) or on a new figure from
    :func:`~kernelcourse.widgets.new_figure` (pyplot does not track it). Returns the
    Figure; :func:`update_report` redraws its matrix, bars and title in place, for up to
    ``n_max`` points (default: this report's number).
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(9, 3.4))
    ax1, ax2 = axes
    fig = ax1.figure
    im = ax1.imshow(report["K"], cmap="viridis")
    fig.colorbar(im, ax=ax1, fraction=0.046, label="$K_{ij}$")
    ax1.set_title("Gram matrix K")
    ax1.set_xlabel("point j")
    ax1.set_ylabel("point i")
    ax2.axhline(0.0, color="black", lw=0.8)
    ax2.set_title("eigenvalues of K (red: negative)")
    ax2.set_xlabel("index (ascending)")
    ax2.set_ylabel("eigenvalue")
    n_max = len(report["eigenvalues"]) if n_max is None else n_max
    ax2.bar(np.arange(n_max), np.zeros(n_max), color="tab:blue")   # heights set per report
    update_report(fig, report, title)
    return fig


def update_report(fig, report, title=""):
    """Move a :func:`plot_report` figure to another report: matrix, colour scale, bars, title.

    The bars are the ones :func:`plot_report` made; those beyond this report's number of
    eigenvalues are hidden. When the kernel could not be evaluated (``report["K"]`` is
    None), both panels are hidden and the title says so.
    """
    ax1, ax2 = fig.axes[:2]
    colorbar_ax = fig.axes[2]
    shown = report["K"] is not None
    for ax in (ax1, ax2, colorbar_ax):
        ax.set_visible(shown)
    if not shown:
        fig.suptitle(f"{title}\n{report['verdict']}", fontsize=9)
        return fig
    K = report["K"]
    im = ax1.images[0]
    im.set_data(K)
    im.set_extent((-0.5, K.shape[1] - 0.5, K.shape[0] - 0.5, -0.5))
    lo, hi = float(np.min(K)), float(np.max(K))
    im.set_clim(lo, hi if hi > lo else lo + 1e-12)
    eig = report["eigenvalues"]
    negative = eig < -1e-9 * max(1.0, np.abs(eig).max())
    for i, bar in enumerate(ax2.patches):
        bar.set_visible(i < len(eig))
        if i < len(eig):
            bar.set_height(eig[i])
            bar.set_facecolor("tab:red" if negative[i] else "tab:blue")
    span = max(float(eig.max()), 0.0) - min(float(eig.min()), 0.0) or 1.0
    ax2.set_ylim(min(float(eig.min()), 0.0) - 0.05 * span, max(float(eig.max()), 0.0) + 0.05 * span)
    ax2.set_xlim(-0.7, len(eig) - 0.3)
    fig.suptitle(title, fontsize=9)
    return fig


def kernel_builder(n=20, seed=0):
    """The kernel-builder widget: dropdowns for the bases and the rule, sliders for
    ``gamma``, ``c`` and the number of points.

    Returns the ``ipywidgets.interactive`` object; its ``result`` is the latest
    :func:`gram_report` dict plus ``figure`` (the :func:`plot_report` Figure shown, None
    when the kernel could not be evaluated: the picture then says why), ``view`` its
    :class:`~kernelcourse.widgets.FigureView`, and ``children`` are the controls in the
    order base1, base2, rule, gamma, c, n, followed by the plot and the output.
    """
    from ipywidgets import Dropdown, FloatLogSlider, FloatSlider, IntSlider, Layout

    wide = Layout(width="480px")
    style = {"description_width": "70px"}
    view = FigureView(1, 2, figsize=(9, 3.4), layout=None)
    # room between the colour bar's label and the eigenvalue panel's tick labels for any
    # colour scale (negative entries widen the colour bar's tick labels)
    view.fig.subplots_adjust(left=0.05, right=0.97, bottom=0.15, top=0.8, wspace=0.45)

    drawn = {}

    def show(base1, base2, rule, gamma, c, n):
        built = build_kernel(base1, base2, rule, gamma, c)
        report = gram_report(built, demo_points(n, seed))
        if len(view.fig.axes) == 2 and report["K"] is not None:
            plot_report(report, built.formula, axes=view.axes, n_max=controls["n"].max)
            ax1, ax2, colourbar = view.fig.axes
            # drawn on every move: the matrix, the colour bar (its scale follows the matrix),
            # the bars and the eigenvalue axis, the title; a layer: the axes that follow the
            # number of points; the background: frames, panel titles
            view.animate(ax1.images[0], colourbar, *ax2.patches, *ax2.lines, ax2.yaxis,
                         view.fig._suptitle)
            view.animate(ax1.xaxis, ax1.yaxis, ax2.xaxis, layer=True)
        elif len(view.fig.axes) > 2:
            update_report(view.fig, report, built.formula)
        if len(view.fig.axes) > 2:                   # nothing to show before a first matrix
            shown = report["K"] is not None
            # panels shown or hidden: drawn anew; a new number of points: the layer anew
            view.render(full=drawn.get("shown") != shown, layer=drawn.get("n") != n)
            drawn.update(shown=shown, n=n)
        print(report["verdict"])
        return dict(report, figure=view.fig if report["K"] is not None else None)

    controls = dict(
        base1=Dropdown(options=[(v[0], k) for k, v in BASES.items()], value="rbf",
                       description="k1", layout=wide, style=style),
        base2=Dropdown(options=[(v[0], k) for k, v in BASES.items()], value="linear",
                       description="k2", layout=wide, style=style),
        rule=Dropdown(options=[(v[0], k) for k, v in RULES.items()], value="sum",
                      description="rule", layout=wide, style=style),
        gamma=FloatLogSlider(value=0.5, base=10, min=-2, max=1, step=0.1, description="gamma",
                             style=style),
        c=FloatSlider(value=1.0, min=0.1, max=3.0, step=0.1, description="c", style=style),
        n=IntSlider(value=n, min=2, max=40, description="points", style=style),
    )
    return interactive_figure(show, view, controls)


# ---------------------------------------------------------------------------------------
# 4.1-4.3: lambda against the primal and the dual MAP fits
# ---------------------------------------------------------------------------------------

MAP_MODELS = ("linear", "logistic")


def map_dual_points(model="linear", n=None, random_state=0):
    """The widget's data, seeded.

    ``linear``: ``n = 12`` inputs ``x ~ U[-2, 2]`` with a constant feature, ``X = [x, 1]``
    of shape (n, 2), and targets ``y = 0.8 x + 0.5 + 0.4 N(0, 1)``. ``logistic``:
    ``n = 40`` points ``X ~ N(0, I)`` in 2-D, labelled by the sign of
    ``2 x_1 - x_2 + 0.8 N(0, 1)``.
    """
    if model not in MAP_MODELS:
        raise ValueError(f"model must be one of {list(MAP_MODELS)}; got model={model!r}")
    rng = np.random.default_rng(random_state)
    if model == "linear":
        n = check_positive_int(12 if n is None else n, "n")
        x = np.sort(rng.uniform(-2.0, 2.0, n))
        return np.column_stack([x, np.ones(n)]), 0.8 * x + 0.5 + 0.4 * rng.normal(size=n)
    n = check_positive_int(40 if n is None else n, "n")
    X = rng.normal(size=(n, 2))
    return X, np.where(X @ np.array([2.0, -1.0]) + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)


def map_dual_data(model, X, y, lam, sigma=0.5):
    """The MAP fit of ``model`` at prior standard deviation ``lam``, found both ways.

    ``linear`` (4.1, 4.3): ``w`` from the primal normal equations
    (:func:`kernelcourse.dual.map_linear_primal`), ``alpha = (K + sigma^2/lam^2 I)^-1 y``
    from the Gram matrix ``K = X X^T`` alone (:func:`kernelcourse.dual.map_linear_dual`),
    and ``alpha_identity = (lam^2/sigma^2)(y_i - w.x_i)``, the residual form of 4.1.
    ``logistic`` (4.2): ``w`` by Newton's method
    (:func:`kernelcourse.dual.map_logistic_primal`), and
    ``alpha = alpha_identity = lam^2 y_i (1 - P(y_i | x_i, w))``.

    Returns
    -------
    dict
        ``model``, ``lam``, ``sigma``, ``w``, ``alpha``, ``alpha_identity``,
        ``w_from_alpha`` (``X^T alpha``), ``max_difference`` (largest
        ``|X^T alpha - w|`` and, for ``linear``, ``|alpha - alpha_identity|``),
        ``weight`` (``lam^2/sigma^2`` or ``lam^2``), ``P`` (logistic: ``P(y_i | x_i, w)``;
        linear: None) and ``accuracy`` (logistic) or ``rmse`` (linear) on the data.
    """
    if model not in MAP_MODELS:
        raise ValueError(f"model must be one of {list(MAP_MODELS)}; got model={model!r}")
    X = as_2d(X)
    lam = check_positive(lam, "lam")
    sigma = check_positive(sigma, "sigma")
    out = {"model": model, "lam": lam, "sigma": sigma}
    if model == "linear":
        w = dual.map_linear_primal(X, y, sigma, lam)
        alpha = dual.map_linear_dual(X @ X.T, y, sigma, lam)
        identity = dual.map_linear_alpha(X, y, w, sigma, lam)
        out.update(weight=lam ** 2 / sigma ** 2, P=None,
                   rmse=float(np.sqrt(np.mean((X @ w - y) ** 2))))
    else:
        w = dual.map_logistic_primal(X, y, lam, tol=1e-10)
        alpha = identity = dual.map_logistic_alpha(X, y, w, lam)
        P = dual.logistic_probability(X, y, w)
        out.update(weight=lam ** 2, P=P, accuracy=float(np.mean(np.sign(X @ w) == y)))
    w_from_alpha = X.T @ alpha
    out.update(w=w, alpha=alpha, alpha_identity=identity, w_from_alpha=w_from_alpha,
               max_difference=float(max(np.abs(w_from_alpha - w).max(),
                                        np.abs(alpha - identity).max())))
    return out


def _map_title(data):
    if data["model"] == "linear":
        return (f"lambda = {data['lam']:.3g}, lambda^2/sigma^2 = {data['weight']:.3g}\n"
                f"w = ({data['w'][0]:.3f}, {data['w'][1]:.3f}), RMSE {data['rmse']:.3f}")
    return (f"lambda = {data['lam']:.3g}: w = ({data['w'][0]:.3f}, {data['w'][1]:.3f})\n"
            f"training accuracy {data['accuracy']:.2f}")


def plot_map_dual(data, X, y, axes=None):
    """Left: the data and the MAP fit from ``w`` (solid) and from ``X^T alpha`` (dashed).
    Right: each ``alpha_i`` (bars) and the identity's value for it (dots), both divided by
    the largest ``|alpha_i|`` (given in the title), so the panel keeps its scale while
    ``alpha`` grows like ``lambda^2``.

    For ``linear`` the left panel is the line ``w.x`` over ``x`` (the constant feature
    is the intercept); for ``logistic`` it is the boundary ``w.x = 0`` in the plane.
    Returns a dict of the artists :func:`update_map_dual` moves: ``primal``, ``dual``
    (lines), ``bars``, ``identity`` (dots) and ``axes``.
    """
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(10, 3.8))
    left, right = axes
    y = np.asarray(y, dtype=float)
    if data["model"] == "linear":
        left.scatter(X[:, 0], y, s=18, c="k", zorder=3, label="data")
        left.set_xlim(-2.3, 2.3)
        left.set_ylim(y.min() - 1.0, y.max() + 1.0)
        left.set_xlabel("x")
        left.set_ylabel("y")
    else:
        left.scatter(X[y < 0, 0], X[y < 0, 1], s=14, c="#08519c", label="y = -1")
        left.scatter(X[y > 0, 0], X[y > 0, 1], s=14, c="#d94801", marker="^", label="y = +1")
        lim = 1.1 * float(np.abs(X).max())
        left.set_xlim(-lim, lim)
        left.set_ylim(-lim, lim)
        left.set_aspect("equal")
        left.set_xlabel("$x_1$")
        left.set_ylabel("$x_2$")
    primal, = left.plot([], [], "-", lw=3, alpha=0.5, color="tab:blue", label="from w (primal)")
    dual_line, = left.plot([], [], "--", lw=1.5, color="tab:orange", label=r"from $X^\top\alpha$ (dual)")
    left.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    index = np.arange(len(y))
    bars = right.bar(index, np.zeros(len(y)), color="#9ecae1", label=r"$\alpha_i$")
    identity, = right.plot(index, np.zeros(len(y)), "o", ms=4, color="k", label=(
        r"$(\lambda^2/\sigma^2)(y_i - w^\top x_i)$" if data["model"] == "linear"
        else r"$\lambda^2 y_i (1 - P(y_i \mid x_i, w))$"))
    right.axhline(0.0, color="grey", lw=0.6)
    right.set_ylim(-1.15, 1.9)              # room for the legend above the bars
    right.set_xlabel("example i")
    right.set_ylabel("scaled to the largest")
    right.legend(fontsize=9, loc="upper left")
    artists = {"primal": primal, "dual": dual_line, "bars": bars, "identity": identity,
               "axes": axes, "X": X}
    update_map_dual(artists, data)
    return artists


def update_map_dual(artists, data):
    """Move the artists of :func:`plot_map_dual` to ``data`` (another ``lam``), in place."""
    left, right = artists["axes"]
    X = artists["X"]
    if data["model"] == "linear":
        grid = np.linspace(-2.3, 2.3, 50)
        G = np.column_stack([grid, np.ones_like(grid)])
        artists["primal"].set_data(grid, G @ data["w"])
        artists["dual"].set_data(grid, dual.dual_predict(G @ X.T, data["alpha"]))
    else:
        lim = left.get_xlim()[1]
        for line, w in ((artists["primal"], data["w"]), (artists["dual"], data["w_from_alpha"])):
            u = w / max(np.linalg.norm(w), 1e-300)   # the boundary w.x = 0 runs along (-w2, w1)
            line.set_data([-u[1] * lim * 2, u[1] * lim * 2], [u[0] * lim * 2, -u[0] * lim * 2])
    top = float(np.abs(data["alpha"]).max()) or 1.0     # alpha grows like lambda^2: show its shape
    for bar, a in zip(artists["bars"], data["alpha"]):
        bar.set_height(a / top)
    artists["identity"].set_ydata(data["alpha_identity"] / top)
    right.set_title(f"alpha_i / {top:.3g} (the largest |alpha_i|)\nmax |X^T alpha - w| = "
                    f"{data['max_difference']:.1e}", fontsize=9)
    left.set_title(_map_title(data), fontsize=9)
    return artists


def map_dual_widget(model="linear", log_lam=0.0, sigma=0.5):
    """Widget (4.1-4.3): the prior's ``lambda`` against the MAP fit found in the primal and
    in the dual, and the coefficients ``alpha_i`` beside the identity that defines them.

    Controls: ``model`` (linear regression: ``alpha = (K + sigma^2/lambda^2 I)^-1 y`` from
    the Gram matrix alone, beside ``(lambda^2/sigma^2)`` times the residuals; logistic
    regression: ``alpha_i = lambda^2 y_i (1 - P(y_i | x_i, w))``) and ``log_lam``
    (``log10`` of the prior standard deviation). Small ``lambda`` pulls ``w`` to 0; large
    ``lambda`` lets the data decide. Both fits stay on top of each other: the dual is the
    same estimate written with one weight per example.

    Returns
    -------
    ipywidgets.interactive
        ``controls``, ``view``; ``result`` is the dict of :func:`map_dual_data` plus
        ``figure``.
    """
    import ipywidgets as W

    points = {m: map_dual_points(m) for m in MAP_MODELS}
    controls = {
        "model": W.ToggleButtons(options=list(MAP_MODELS), value=model, description="model"),
        "log_lam": W.FloatSlider(value=log_lam, min=-1.5, max=1.5, step=0.1,
                                 description="log10 lam"),
    }
    view = FigureView(1, 2, figsize=(10, 3.8))
    artists: dict = {}

    def draw(model, log_lam, show=True):
        X, y = points[model]
        data = map_dual_data(model, X, y, 10.0 ** log_lam, sigma)
        if view.use(model):            # each model its own figure, drawn whole once
            drawn = artists[model] = plot_map_dual(data, X, y, axes=view.axes)
            view.animate(drawn["primal"], drawn["dual"], *drawn["bars"], drawn["identity"],
                         *(ax.title for ax in view.axes))
        update_map_dual(artists[model], data)
        view.render(show=show)
        return data

    def update(model, log_lam):
        data = draw(model, log_lam)
        print(f"largest |X^T alpha - w| = {np.abs(data['w_from_alpha'] - data['w']).max():.1e}; "
              f"largest |alpha_i| = {np.abs(data['alpha']).max():.3g}, smallest = "
              f"{np.abs(data['alpha']).min():.3g} (none is 0)")
        data["figure"] = view.fig
        return data

    widget = interactive_figure(update, view, controls)
    view.draw_scenes(MAP_MODELS, model, lambda other: draw(other, log_lam, show=False))
    return widget
