"""Lecture 5, sections 5.2-5.4: functions of the RKHS, their norm, inner product and values
(l5.cp1, ex5.q1, ex5.q2, ex5.q5).
"""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ....rkhs import kernel_section
from ...model import Case, Diagnosis, Question
from ._common import _f, _fixed, _gamma, _gram, _gram_divides, _points


# ===================================================================== l5.cp1
def _evaluate(alpha, centres, X, gamma):
    """``f(x) = sum_i alpha_i exp(-gamma ||x_i - x||^2)`` for every row of X."""
    return _f(alpha, centres, gamma)(X)


def _cases_evaluate(rng):
    cases = []
    for m, n, d in [(3, 2, 1), (4, 5, 2), (6, 3, 3)]:
        alpha, centres, X, gamma = np.round(rng.normal(size=m), 3), _points(rng, m, d), _points(rng, n, d), _gamma(rng)
        cases.append(Case((alpha, centres, X, gamma), label=f"m={m} bumps, {n} points in {d}-D, gamma={gamma}"))
    return cases


CP1 = Question(
    id="l5.cp1", title="evaluating a sum of bumps", function="evaluate_rkhs", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction", "kernelcourse.rkhs.kernel_section",),
    reference=_evaluate, cases=_cases_evaluate, fixed_cases=_fixed(_cases_evaluate),
    diagnoses=[
        Diagnosis("gamma divides", "the package's gamma multiplies: exp(-gamma ||x - z||^2), not "
                  "exp(-||x - z||^2 / gamma) as the lecture writes it",
                  lambda alpha, centres, X, gamma: _gram_divides(X, centres, gamma) @ alpha),
        Diagnosis("no alpha", "each bump K(x_i, .) is weighted by alpha_i",
                  lambda alpha, centres, X, gamma: _gram(X, centres, gamma).sum(axis=1)),
        Diagnosis("no square", "the RBF kernel uses the squared distance ||x - z||^2",
                  lambda alpha, centres, X, gamma: np.exp(-gamma * np.sqrt(
                      ((X[:, None, :] - centres[None, :, :]) ** 2).sum(-1))) @ alpha),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="5.4",
    hints=("f is a weighted sum of bumps, one per centre: evaluate every bump at every point of X "
           "(section 5.4), then weigh and add",
           "an (n, m) table of kernel values, point a against centre i, turns the weighted sum "
           "into one matrix-vector product; mind that gamma multiplies the squared distance"),
)


# ===================================================================== ex5.q1
def _rkhs_norm(alpha, centres, gamma):
    """``||f|| = sqrt(alpha^T K alpha)``."""
    return _f(alpha, centres, gamma).norm()


def _cases_norm(rng):
    cases = []
    for m, d in [(1, 2), (3, 1), (5, 2), (7, 3)]:
        alpha, centres, gamma = np.round(rng.normal(size=m), 3), _points(rng, m, d), _gamma(rng)
        if m == 1:
            alpha = np.array([-1.7])  # ||f|| = |alpha| sqrt(K(x, x)) = 1.7, not its square
        cases.append(Case((alpha, centres, gamma), label=f"m={m} bumps in {d}-D, gamma={gamma}"))
    return cases


def _small_norm():
    """Two bumps of opposite sign close together: ||f||^2 = 0.04, far below one half, where
    a floor under alpha^T K alpha other than 0 (it is clamped only against rounding) shows."""
    return [Case((np.array([0.4, -0.3]), np.array([[0.2], [0.5]]), 1.5),
                 label="m=2 bumps in 1-D, gamma=1.5, opposite signs: a small norm")]


Q1 = Question(
    id="ex5.q1", title="the RKHS norm", function="rkhs_norm", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction", "kernelcourse.rkhs.squared_norm",),
    reference=_rkhs_norm, cases=_cases_norm,
    fixed_cases=_fixed(_cases_norm, extra=_small_norm),
    diagnoses=[
        Diagnosis("squared", "that is ||f||^2 = alpha^T K alpha; the norm is its square root",
                  lambda alpha, centres, gamma: float(alpha @ _gram(centres, centres, gamma) @ alpha)),
        Diagnosis("euclidean", "the RKHS norm weighs pairs of bumps by K: sqrt(alpha^T K alpha), "
                  "not the length of alpha", lambda alpha, centres, gamma: float(np.linalg.norm(alpha))),
        Diagnosis("gamma divides", "the package's gamma multiplies: exp(-gamma ||x - z||^2)",
                  lambda alpha, centres, gamma: float(np.sqrt(alpha @ _gram_divides(centres, centres, gamma) @ alpha))),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="5.2",
    hints=("section 5.2 defines the norm from the inner product <f, f>; expand it bump by bump",
           "every pair of centres contributes its two coefficients times the kernel between them; "
           "that double sum is a quadratic form in the Gram matrix of the centres, and the norm is "
           "not the quadratic form itself"),
)


# ===================================================================== ex5.q2
def _rkhs_inner(alpha, X, beta, Z, gamma):
    """``<f, g> = alpha^T K beta`` with ``K_ij = exp(-gamma ||x_i - z_j||^2)``."""
    return _f(alpha, X, gamma).inner(_f(beta, Z, gamma))


def _cases_inner(rng):
    cases = []
    for m, p, d in [(2, 3, 1), (4, 2, 2), (3, 3, 2), (5, 4, 3)]:
        alpha, X = np.round(rng.normal(size=m), 3), _points(rng, m, d)
        beta, Z = np.round(rng.normal(size=p), 3), _points(rng, p, d)
        gamma = _gamma(rng)
        cases.append(Case((alpha, X, beta, Z, gamma), label=f"f with {m} bumps, g with {p}, {d}-D, gamma={gamma}"))
    return cases


def _fixed_inner():
    """A seeded draw, and f, g with as many bumps each on near centres and a small gamma (there
    K(X, X) is far from I, so pairing f's centres with themselves shows)."""
    near = Case((np.array([1.0, -2.0, 0.5]), np.array([[0.0], [0.5], [1.0]]),
                 np.array([0.7, 1.1, -0.4]), np.array([[0.2], [0.9], [1.5]]), 0.5),
                label="f and g with 3 bumps each on the line, near centres, gamma=0.5")
    return _fixed(_cases_inner)() + [near]


Q2 = Question(
    id="ex5.q2", title="the RKHS inner product", function="rkhs_inner", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction",),
    reference=_rkhs_inner, cases=_cases_inner, fixed_cases=_fixed_inner,
    diagnoses=[
        Diagnosis("coefficients only", "<f, g> is not alpha . beta: each pair of bumps is weighted by "
                  "K(x_i, z_j)", lambda alpha, X, beta, Z, gamma: float(alpha @ beta)),
        Diagnosis("one set of centres", "K pairs the centres of f with the centres of g: K_ij = K(x_i, z_j)",
                  lambda alpha, X, beta, Z, gamma: float(alpha @ _gram(X, X, gamma) @ beta)),
        Diagnosis("gamma divides", "the package's gamma multiplies: exp(-gamma ||x - z||^2)",
                  lambda alpha, X, beta, Z, gamma: float(alpha @ _gram_divides(X, Z, gamma) @ beta)),
        Diagnosis("no weights", "each K(x_i, z_j) is weighted by alpha_i beta_j",
                  lambda alpha, X, beta, Z, gamma: float(_gram(X, Z, gamma).sum())),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="5.2",
    hints=("section 5.2: the inner product is bilinear, so expand <f, g> over the bumps of f and "
           "the bumps of g and use <K(x, .), K(z, .)> = K(x, z)",
           "the kernel matrix you need is rectangular, centres of f against centres of g; the "
           "answer is one number, a bilinear form in alpha and beta"),
)


# ===================================================================== ex5.q5
def _reproduce(alpha, centres, x, gamma):
    """``<f, K(x, .)>`` by the inner-product formula, which equals ``f(x)``."""
    return _f(alpha, centres, gamma).inner(kernel_section(RBF(gamma), x))


def _cases_reproduce(rng):
    cases = []
    for m, d in [(3, 1), (4, 2), (6, 3)]:
        alpha, centres, x, gamma = np.round(rng.normal(size=m), 3), _points(rng, m, d), _points(rng, 1, d)[0], _gamma(rng)
        cases.append(Case((alpha, centres, x, gamma), label=f"m={m} bumps in {d}-D, gamma={gamma}"))
    return cases


Q5 = Question(
    id="ex5.q5", title="the reproducing property", function="reproduce", points=2,
    forbidden=(
        "kernelcourse.rkhs.RKHSFunction",
        "kernelcourse.rkhs.kernel_section",
        "kernelcourse.rkhs.evaluation",
    ),
    reference=_reproduce, cases=_cases_reproduce, fixed_cases=_fixed(_cases_reproduce),
    diagnoses=[
        Diagnosis("K(x, x)", "K(x, .) has the single coefficient 1 on the centre x; pair it with the "
                  "centres of f: sum_i alpha_i K(x_i, x)",
                  lambda alpha, centres, x, gamma: float(alpha.sum() * _gram(x[None, :], x[None, :], gamma)[0, 0])),
        Diagnosis("no alpha", "the bumps of f carry their weights alpha_i",
                  lambda alpha, centres, x, gamma: float(_gram(centres, x[None, :], gamma).sum())),
        Diagnosis("gamma divides", "the package's gamma multiplies: exp(-gamma ||x - z||^2)",
                  lambda alpha, centres, x, gamma: float(alpha @ _gram_divides(centres, x[None, :], gamma)[:, 0])),
        Diagnosis("norm", "<f, K(x, .)> is an inner product, not ||f|| ||K(x, .)||",
                  lambda alpha, centres, x, gamma: _f(alpha, centres, gamma).norm()),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="5.3",
    hints=("treat K(x, .) as a function of the RKHS in its own right: which centres and which "
           "coefficients does it have? Then use your inner product from ex5.q2",
           "the second function has one centre, x, with coefficient 1; the kernel matrix between "
           "the centres of f and it has a single column"),
)
