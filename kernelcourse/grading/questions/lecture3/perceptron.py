"""Lecture 3, sections 3.10 and 3.11: the kernel perceptron and Novikoff's bound (ex3.q6,
ex3.q7)."""
from __future__ import annotations

import numpy as np

from ....datasets import separable_with_margin
from ....kernels import RBF, Linear
from ....perceptron import dual_perceptron, feature_radius, margin_of, novikoff_bound
from ...model import Case, Diagnosis, Question, fixed_draw
from ._common import _signs


# ===================================================================== ex3.q6
def _kernel_perceptron(K, y, max_epochs):
    """``alpha`` of the dual perceptron, visiting examples 0..m-1 in every epoch."""
    return dual_perceptron(K, y, max_epochs=max_epochs).alpha


def _separable(rng, n, d, margin, radius):
    """Rounded points with a unit separator w* and margin about ``margin`` (datasets 3.11)."""
    X, y, w_star = separable_with_margin(n, d, margin=margin, radius=radius, random_state=rng)
    X = np.round(X, 3)
    return X, y, w_star


def _cases_perceptron(rng):
    cases = []
    for n, d in [(6, 2), (8, 3)]:
        X, y, _ = _separable(rng, n, d, margin=0.15, radius=1.5)
        cases.append(Case((Linear()(X), y, 100), label=f"linear kernel on {n} separable points"))
    for n in (6, 9):
        X = np.round(rng.normal(size=(n, 2)), 3)
        y = _signs(rng, n)
        cases.append(Case((RBF(gamma=2.0)(X), y, 100), label=f"RBF kernel on {n} points, random labels"))
    return cases


def _perceptron_late_mistakes():
    """Five separable points (linear kernel) whose epochs make 2, 1, 2, 2 and 0 mistakes, the
    first label +1: an epoch with one mistake is not the last, so only an epoch without
    mistakes may stop the run; and alpha starts at 0 on a positive example, where the test
    y_j f(x_j) <= 0 must read f = 0 as a mistake."""
    X = np.array([[-0.6, 0.9], [0.1, 0.2], [0.8, -0.4], [-1.0, -0.6], [-0.1, -0.7]])
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
    return [Case((Linear()(X), y, 100),
                 label="linear kernel on 5 separable points, epochs of 2, 1, 2, 2, 0 mistakes")]


def _perceptron_with(update, strict=False):
    def run(K, y, max_epochs):
        alpha = np.zeros(len(y))
        for _ in range(max_epochs):
            mistakes = 0
            for j in range(len(y)):
                f = K[j] @ alpha
                wrong = y[j] * f < 0 if strict else y[j] * f <= 0
                if wrong:
                    alpha[j] += update(y[j])
                    mistakes += 1
            if mistakes == 0:
                break
        return alpha
    return run


def _perceptron_batch(K, y, max_epochs):
    alpha = np.zeros(len(y))
    for _ in range(max_epochs):
        wrong = y * (K @ alpha) <= 0
        if not wrong.any():
            break
        alpha = alpha + y * wrong
    return alpha


Q6 = Question(
    id="ex3.q6", title="the kernel perceptron", function="kernel_perceptron", points=3,
    forbidden=(
        "kernelcourse.perceptron.dual_perceptron",
        "kernelcourse.perceptron.KernelPerceptron",
    ),
    reference=_kernel_perceptron, cases=_cases_perceptron,
    fixed_cases=fixed_draw(_cases_perceptron, 308, extra=_perceptron_late_mistakes),
    diagnoses=[
        Diagnosis("strict test", "a point on the boundary (y_j f(x_j) = 0) counts as a mistake: "
                  "update when y_j sum_i alpha_i k(x_i, x_j) <= 0, or nothing moves from alpha = 0",
                  _perceptron_with(lambda yj: yj, strict=True),
                  detect=lambda a, case: np.allclose(np.asarray(a, float), 0.0)),
        Diagnosis("plus one", "the update is alpha_j <- alpha_j + y_j (it adds y_j x_j to w), "
                  "not alpha_j + 1", _perceptron_with(lambda yj: 1.0)),
        Diagnosis("batch", "the perceptron updates after each mistake, one example at a time, "
                  "and the next test uses the new alpha; you updated all mistakes of an epoch at once",
                  _perceptron_batch),
    ],
    kind="derive", section="3.10",
    hints=("write the primal perceptron's test and update with w = sum_i alpha_i phi(x_i): "
           "which alpha changes on a mistake, and by how much?",
           "the test on example j is the sign of y_j times the j-th entry of K times alpha (a "
           "boundary point counts as a mistake); an update adds the label to one coefficient"),
)


# ===================================================================== ex3.q7
def _perceptron_bound(K, y, s):
    """``R^2 / gamma^2`` with ``R = max_i sqrt(K_ii)`` and ``gamma = min_i y_i s_i``."""
    return novikoff_bound(feature_radius(K), margin_of(s, y))


def _cases_bound(rng):
    cases = []
    for n, d, radius in [(5, 2, 2.0), (7, 3, 0.5), (6, 2, 3.0)]:
        X, y, w_star = _separable(rng, n, d, margin=0.2 * radius, radius=radius)
        cases.append(Case((Linear()(X), y, X @ w_star),
                          label=f"linear kernel on {n} points, s_i = <w*, x_i> with ||w*|| = 1"))
    return cases


def _bound_no_sqrt(K, y, s):
    return float(np.max(np.diag(K)) ** 2 / np.min(y * s) ** 2)


Q7 = Question(
    id="ex3.q7", title="Novikoff's bound from the Gram matrix", function="perceptron_bound",
    forbidden=(
        "kernelcourse.perceptron.novikoff_bound",
        "kernelcourse.perceptron.feature_radius",
        "kernelcourse.perceptron.margin_of",
    ),
    points=2, reference=_perceptron_bound, cases=_cases_bound,
    fixed_cases=fixed_draw(_cases_bound, 309),
    diagnoses=[
        Diagnosis("R without the square root", "R = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i)); "
                  "you took max_i k(x_i, x_i), which is already R^2", _bound_no_sqrt),
        Diagnosis("no square", "the bound is (R / gamma)^2, not R / gamma",
                  lambda K, y, s: float(np.sqrt(np.max(np.diag(K))) / np.min(y * s))),
        Diagnosis("mean margin", "gamma is the smallest margin min_i y_i <w*, x_i>, not the average",
                  lambda K, y, s: float(np.max(np.diag(K)) / np.mean(y * s) ** 2)),
    ],
    kind="derive", section="3.11",
    hints=("the bound needs the radius R of the data in feature space and the margin gamma of "
           "w*; both come from the arguments",
           "R is the largest feature norm, and k(x, x) is a SQUARED norm; gamma is the worst "
           "(smallest) margin y_i s_i, not a typical one"),
)
