"""Lecture 4, sections 4.1-4.3: the dual coefficients of ridge and logistic regression and
predicting in the dual (l4.cp1, ex4.q1-q3).
"""
from __future__ import annotations

import numpy as np

from ....dual import (dual_predict, map_linear_alpha, map_linear_dual, map_logistic_alpha, map_logistic_primal)
from ...model import Case, Diagnosis, Question
from ._common import _fixed, _gram, _pm1, _points, _ratio, _sigma_lam


# ===================================================================== l4.cp1
def _cases_dual(rng):
    cases = []
    for n, d in [(3, 2), (4, 1), (6, 3)]:
        _, _, K = _gram(rng, n, d)
        y = np.round(rng.normal(size=n), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((K, y, sigma, lam), label=f"K of shape {K.shape}, sigma={sigma}, lam={lam}"))
    return cases


def _solve(K, y, r):
    return np.linalg.solve(K + r * np.eye(len(y)), y)


CP1 = Question(
    id="l4.cp1", title="dual MAP coefficients", function="dual_coefficients", points=2,
    forbidden=(
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.MAPRegression",
    ),
    reference=map_linear_dual, cases=_cases_dual, fixed_cases=_fixed(_cases_dual),
    diagnoses=[
        Diagnosis("ratio inverted", "the ratio is inverted: the prior adds sigma^2 / lam^2 "
                  "(noise variance over prior variance) to the diagonal, not lam^2 / sigma^2",
                  lambda K, y, sigma, lam: _solve(K, y, lam ** 2 / sigma ** 2)),
        Diagnosis("not squared", "sigma and lam are standard deviations: the diagonal gets "
                  "sigma^2 / lam^2, not sigma / lam",
                  lambda K, y, sigma, lam: _solve(K, y, sigma / lam)),
        Diagnosis("every entry", "you added sigma^2 / lam^2 to every entry of K (K + r); it goes "
                  "on the diagonal only (K + r * np.eye(n))",
                  lambda K, y, sigma, lam: np.linalg.solve(K + _ratio(sigma, lam), y)),
        Diagnosis("no prior", "the prior's term is missing: solve (K + sigma^2/lam^2 I) alpha = y, "
                  "not K alpha = y", lambda K, y, sigma, lam: np.linalg.solve(K, y)),
    ],
    kind="formula", section="4.3",
    hints=("an n x n linear system: which multiple of the identity does the prior add to K? "
           "(noise variance and prior variance: which goes on top?)",
           "sigma and lam are standard deviations, so the diagonal term is a ratio of their "
           "squares; build K plus that times np.eye(n) and let np.linalg.solve do the rest"),
)


# ===================================================================== ex4.q1
def _cases_residual(rng):
    cases = []
    for n, d in [(3, 2), (5, 3), (8, 2)]:
        X = _points(rng, n, d)
        y = np.round(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n), 3)
        w = np.round(rng.normal(size=d), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((X, y, w, sigma, lam), label=f"X of shape {X.shape}, sigma={sigma}, lam={lam}"))
    return cases


Q1 = Question(
    id="ex4.q1", title="dual coefficients from the residuals", function="residual_alpha",
    forbidden=(
        "kernelcourse.dual.map_linear_alpha",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.dual.MAPRegression",
    ),
    points=2, reference=map_linear_alpha, cases=_cases_residual,
    fixed_cases=_fixed(_cases_residual),
    diagnoses=[
        Diagnosis("ratio inverted", "the factor is lam^2 / sigma^2 (prior variance over noise "
                  "variance), not sigma^2 / lam^2",
                  lambda X, y, w, sigma, lam: _ratio(sigma, lam) * (y - X @ w)),
        Diagnosis("residual sign", "the residual is y_i - w.x_i (target minus prediction): with "
                  "w.x_i - y_i every alpha has the wrong sign",
                  lambda X, y, w, sigma, lam: (X @ w - y) / _ratio(sigma, lam)),
        Diagnosis("not squared", "sigma and lam are standard deviations: the factor is "
                  "lam^2 / sigma^2, not lam / sigma",
                  lambda X, y, w, sigma, lam: lam / sigma * (y - X @ w)),
    ],
    kind="derive", section="4.1",
    hints=("set the gradient of E(w) (4.1) to zero and solve for w: it becomes a combination of "
           "the x_i, and its coefficients are alpha",
           "each alpha_i is the residual of example i (target minus prediction) times a ratio of "
           "the two variances: which one is on top?"),
)


# ===================================================================== ex4.q2
def _cases_logistic(rng):
    cases = []
    for n, d in [(4, 2), (6, 3), (10, 2)]:
        X = _points(rng, n, d)
        y = _pm1(rng, n)
        lam = float(np.round(rng.uniform(0.5, 2.0), 2))
        w = np.round(map_logistic_primal(X, y, lam), 6)
        cases.append(Case((X, y, w, lam), label=f"X of shape {X.shape}, lam={lam}, w the MAP fit"))
    return cases


def _sigm(t):
    return 1 / (1 + np.exp(-t))


Q2 = Question(
    id="ex4.q2", title="the dual view of logistic regression", function="logistic_alpha",
    forbidden=("kernelcourse.dual.map_logistic_alpha", "kernelcourse.dual.logistic_probability",),
    points=2, reference=map_logistic_alpha, cases=_cases_logistic,
    fixed_cases=_fixed(_cases_logistic),
    diagnoses=[
        Diagnosis("P not 1 - P", "the weight is 1 - P(y_i | x_i, w), the probability of the "
                  "*wrong* label: well explained examples weigh little",
                  lambda X, y, w, lam: lam ** 2 * y * _sigm(y * (X @ w))),
        Diagnosis("P(y=+1)", "P(y_i | x_i, w) = 1 / (1 + exp(-y_i w.x_i)) depends on the label "
                  "y_i; you used P(y = +1 | x_i, w) for every example",
                  lambda X, y, w, lam: lam ** 2 * y * (1 - _sigm(X @ w))),
        Diagnosis("no y", "each alpha_i carries the sign of its label: alpha_i = lam^2 y_i (1 - P)",
                  lambda X, y, w, lam: lam ** 2 * (1 - _sigm(y * (X @ w)))),
        Diagnosis("1/lam^2", "the factor is lam^2 (the prior variance), not 1 / lam^2",
                  lambda X, y, w, lam: y * (1 - _sigm(y * (X @ w))) / lam ** 2),
    ],
    kind="derive", section="4.2",
    hints=("differentiate log(1 + exp(-y_i w.x_i)) with respect to w and set the gradient of "
           "the whole objective to zero, as in 4.2",
           "alpha_i carries the label's sign, the prior variance and the probability the model "
           "gives to the WRONG label of example i; X.T @ alpha must give w back"),
)


# ===================================================================== ex4.q3
def _dual_prediction(K, y, K_test, sigma, lam):
    """``k(x)^T (K + sigma^2/lambda^2 I)^-1 y`` for every row ``k(x)^T`` of ``K_test``."""
    return dual_predict(K_test, map_linear_dual(K, y, sigma, lam))


def _cases_prediction(rng):
    cases = []
    for n, m, d in [(3, 2, 2), (5, 4, 1), (7, 3, 3)]:
        X, k, K = _gram(rng, n, d)
        X_test = _points(rng, m, d)
        y = np.round(rng.normal(size=n), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((K, y, k(X_test, X), sigma, lam),
                          label=f"K {K.shape}, K_test {(m, n)}, sigma={sigma}, lam={lam}"))
    return cases


Q3 = Question(
    id="ex4.q3", title="predicting in the dual", function="dual_prediction", points=2,
    forbidden=(
        "kernelcourse.dual.dual_predict",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.MAPRegression",
    ),
    reference=_dual_prediction, cases=_cases_prediction,
    fixed_cases=_fixed(_cases_prediction),
    diagnoses=[
        Diagnosis("ratio inverted", "the diagonal gets sigma^2 / lam^2, not lam^2 / sigma^2",
                  lambda K, y, K_test, sigma, lam: K_test @ _solve(K, y, lam ** 2 / sigma ** 2)),
        Diagnosis("no prior", "the prior's sigma^2/lam^2 I is missing from (K + sigma^2/lam^2 I)",
                  lambda K, y, K_test, sigma, lam: K_test @ np.linalg.solve(K, y)),
        Diagnosis("training rows", "you predicted on the training points (K @ alpha); the "
                  "predictions at the new points use K_test, one row k(x)^T per new point",
                  lambda K, y, K_test, sigma, lam: K @ _solve(K, y, _ratio(sigma, lam)),
                  detect=lambda out, case: np.shape(out) == (len(case.args[1]),)
                  and len(case.args[1]) != len(case.args[2])),
    ],
    kind="derive", section="4.3",
    hints=("substitute w = X^T alpha into the objective (4.3), find the alpha that minimises it, "
           "then predict with w^T x written in kernel values",
           "the coefficients solve an n x n system built from K and the ratio of noise to prior "
           "variance; a new point's prediction uses its own row of K_test"),
)
