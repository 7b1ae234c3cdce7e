"""Lecture 4's widget: a kernel builder (syllabus 4.5-4.7).

Pick two base kernels and a way to combine them; the widget shows the Gram matrix on a
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

from .. import kernels
from .._validation import as_2d, check_positive, check_positive_int, check_square
from . import new_figure, show_figure

__all__ = ["BASES", "RULES", "BuiltKernel", "build_kernel", "gram_report",
           "smallest_negative_minor", "demo_points", "plot_report", "kernel_builder"]

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


def plot_report(report, title=""):
    """Gram matrix as an image and the eigenvalues as bars, negative ones in red.

    Returns the Figure, made with :func:`~kernelcourse.widgets.new_figure` (pyplot does not
    track it; the widget shows it with :func:`~kernelcourse.widgets.show_figure`).
    """
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(9, 3.4))
    im = ax1.imshow(report["K"], cmap="viridis")
    fig.colorbar(im, ax=ax1, fraction=0.046)
    ax1.set_title("Gram matrix K")
    eig = report["eigenvalues"]
    colors = ["tab:red" if v < -1e-9 * max(1.0, abs(eig).max()) else "tab:blue" for v in eig]
    ax2.bar(np.arange(len(eig)), eig, color=colors)
    ax2.axhline(0.0, color="black", lw=0.8)
    ax2.set_title("eigenvalues of K (red: negative)")
    ax2.set_xlabel("index (ascending)")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def kernel_builder(n=20, seed=0):
    """The kernel-builder widget: dropdowns for the bases and the rule, sliders for
    ``gamma``, ``c`` and the number of points.

    Returns the ``ipywidgets.interactive`` object; its ``result`` is the latest
    :func:`gram_report` dict plus ``figure`` (the :func:`plot_report` Figure shown, None
    when the kernel could not be evaluated), and ``children`` are the controls in the
    order base1, base2, rule, gamma, c, n, followed by the output.
    """
    from ipywidgets import Dropdown, FloatLogSlider, FloatSlider, IntSlider, Layout, interactive

    wide = Layout(width="480px")
    style = {"description_width": "70px"}

    def show(base1, base2, rule, gamma, c, n):
        built = build_kernel(base1, base2, rule, gamma, c)
        report = gram_report(built, demo_points(n, seed))
        fig = None
        if report["K"] is not None:
            fig = plot_report(report, built.formula)
            show_figure(fig)
        print(report["verdict"])
        return dict(report, figure=fig)

    return interactive(
        show,
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
