"""Lecture 5 (RKHS and functional gradient descent): exercise set ``ex5`` and the
checkpoints ``l5.cp1``, ``l5.cp2`` of the lecture notebook.

A function of the RKHS is passed to an answer as its coefficients ``alpha``, its
centres (an ``(m, d)`` array) and the ``gamma`` of the RBF kernel
``exp(-gamma ||x - z||^2)`` (scikit-learn's parametrisation; the lecture's
``exp(-||x - z||^2 / gamma)`` has the reciprocal).

============  ======================  ====  ========================================
id            function                pts   syllabus
============  ======================  ====  ========================================
l5.cp1        evaluate_rkhs           2     5.1, 5.4 f(x) = sum_i alpha_i K(x_i, x)
l5.cp2        regularised_gradient    2     5.5, 5.6 grad of sum (y - f)^2 + lam ||f||^2
ex5.q1        rkhs_norm               2     5.2 ||f|| = sqrt(alpha^T K alpha)
ex5.q2        rkhs_inner              2     5.2 <f, g> = alpha^T K beta
ex5.q3        squared_loss_step       3     5.6 one online step, squared loss
ex5.q4        hinge_step              3     5.7 one online step, hinge loss
ex5.q5        reproduce               2     5.3 <f, K(x, .)> = f(x)
============  ======================  ====  ========================================
"""
from __future__ import annotations

import numpy as np

from ...kernels import RBF
from ...rkhs import RKHSFunction, coefficient_update, kernel_section
from ..core import Case, Diagnosis, Question


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _f(alpha, centres, gamma):
    return RKHSFunction(RBF(gamma), centres, alpha)


def _gram(X, Z, gamma):
    return RBF(gamma)(X, Z)


def _gram_divides(X, Z, gamma):
    """The lecture's form exp(-||x - z||^2 / gamma) read with the package's gamma."""
    return np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / gamma)


def _gamma(rng):
    return float(np.round(rng.uniform(0.3, 2.5), 2))


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
    reference=_evaluate, cases=_cases_evaluate,
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
    hint="build the (n, m) matrix exp(-gamma ||x - x_i||^2) and multiply it by alpha",
)


# ===================================================================== l5.cp2
def _regularised_gradient(alpha, X, y, lam, gamma):
    """Coefficients on X of ``grad L[f] = -2 sum_i (y_i - f(x_i)) K(x_i, .) + 2 lam f``, f on X."""
    return -2.0 * (y - _gram(X, X, gamma) @ alpha) + 2.0 * lam * alpha


def _cases_gradient(rng):
    cases = []
    for n, d in [(3, 1), (5, 2), (6, 3)]:
        X, alpha = _points(rng, n, d), np.round(rng.normal(size=n), 3)
        y, lam, gamma = np.round(rng.normal(size=n), 3), float(np.round(rng.uniform(0.2, 2.0), 2)), _gamma(rng)
        cases.append(Case((alpha, X, y, lam, gamma), label=f"n={n}, d={d}, lam={lam}, gamma={gamma}"))
    return cases


CP2 = Question(
    id="l5.cp2", title="the functional gradient of the regularised squared loss",
    forbidden=(
        "kernelcourse.rkhs.regularised_squared_loss",
        "kernelcourse.rkhs.squared_loss",
        "kernelcourse.rkhs.RKHSFunction",
    ),
    function="regularised_gradient", points=2, reference=_regularised_gradient, cases=_cases_gradient,
    diagnoses=[
        Diagnosis("lam without 2", "grad ||f||^2 = 2 f, so the regulariser contributes 2 lam alpha",
                  lambda alpha, X, y, lam, gamma: -2.0 * (y - _gram(X, X, gamma) @ alpha) + lam * alpha),
        Diagnosis("sign", "the loss term is -2 (y_i - f(x_i)) K(x_i, .): the residual enters with a minus",
                  lambda alpha, X, y, lam, gamma: 2.0 * (y - _gram(X, X, gamma) @ alpha) + 2.0 * lam * alpha),
        Diagnosis("alpha as f", "f(x_i) is (K alpha)_i, not alpha_i",
                  lambda alpha, X, y, lam, gamma: -2.0 * (y - alpha) + 2.0 * lam * alpha),
        Diagnosis("no regulariser", "the gradient of lam ||f||^2 (2 lam f) is missing",
                  lambda alpha, X, y, lam, gamma: -2.0 * (y - _gram(X, X, gamma) @ alpha)),
    ],
    hint="with f = sum_i alpha_i K(x_i, .) on the training points, the gradient's coefficients are "
         "-2 (y - K @ alpha) + 2 lam alpha",
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


Q1 = Question(
    id="ex5.q1", title="the RKHS norm", function="rkhs_norm", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction", "kernelcourse.rkhs.squared_norm",),
    reference=_rkhs_norm, cases=_cases_norm,
    diagnoses=[
        Diagnosis("squared", "that is ||f||^2 = alpha^T K alpha; the norm is its square root",
                  lambda alpha, centres, gamma: float(alpha @ _gram(centres, centres, gamma) @ alpha)),
        Diagnosis("euclidean", "the RKHS norm weighs pairs of bumps by K: sqrt(alpha^T K alpha), "
                  "not the length of alpha", lambda alpha, centres, gamma: float(np.linalg.norm(alpha))),
        Diagnosis("gamma divides", "the package's gamma multiplies: exp(-gamma ||x - z||^2)",
                  lambda alpha, centres, gamma: float(np.sqrt(alpha @ _gram_divides(centres, centres, gamma) @ alpha))),
    ],
    hint="K = exp(-gamma * squared distances between the centres); return sqrt(alpha @ K @ alpha)",
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


Q2 = Question(
    id="ex5.q2", title="the RKHS inner product", function="rkhs_inner", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction",),
    reference=_rkhs_inner, cases=_cases_inner,
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
    hint="K = exp(-gamma ||x_i - z_j||^2) is (m, p); return alpha @ K @ beta",
)


# ===================================================================== ex5.q3
def _squared_loss_step(alpha, centres, x_t, y_t, eta, lam, gamma):
    """``f <- (1 - 2 eta lam) f + 2 eta (y_t - f(x_t)) K(x_t, .)``: new alpha, new bump last."""
    fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
    shrink, c = coefficient_update("squared", fx, y_t, eta, lam)
    return np.append(shrink * alpha, c)


def _cases_step(rng, hinge):
    cases = []
    for m, d in [(2, 1), (4, 2), (5, 2), (6, 3)]:
        centres, alpha = _points(rng, m, d, scale=0.6), np.round(rng.normal(size=m), 3)
        x_t = _points(rng, 1, d, scale=0.6)[0]
        y_t = float(rng.choice([-1.0, 1.0])) if hinge else float(np.round(rng.normal(), 3))
        eta, lam = float(np.round(rng.uniform(0.05, 0.5), 2)), float(np.round(rng.uniform(0.1, 0.9), 2))
        cases.append((alpha, centres, x_t, y_t, eta, lam, _gamma(rng)))
    if hinge:  # make sure every branch shows up: margin >= 1, 0 < margin < 1, margin <= 0
        for i, target in enumerate((1.6, 0.4, -0.5)):
            alpha, centres, x_t, _, eta, lam, gamma = cases[i]
            fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
            alpha = np.round(alpha * target / fx, 4) if abs(fx) > 1e-3 else alpha
            y_t = 1.0
            cases[i] = (alpha, centres, x_t, y_t, eta, lam, gamma)
    return [Case(c, label=f"m={len(c[0])} bumps in {c[1].shape[1]}-D, y_t={c[3]}, eta={c[4]}, "
                          f"lam={c[5]}, gamma={c[6]}") for c in cases]


def _sq_mistake(shrink_of, new_of, f_after_shrink=False):
    def step(alpha, centres, x_t, y_t, eta, lam, gamma):
        s = shrink_of(eta, lam)
        fx = _f(s * alpha if f_after_shrink else alpha, centres, gamma)(x_t[None, :])[0]
        return np.append(s * alpha, new_of(eta, y_t, fx))
    return step


def _two_eta_residual(eta, y, fx):
    return 2 * eta * (y - fx)


Q3 = Question(
    id="ex5.q3", title="one functional gradient step, squared loss", function="squared_loss_step",
    forbidden=(
        "kernelcourse.rkhs.coefficient_update",
        "kernelcourse.rkhs.RKHSFunction",
        "kernelcourse.rkhs.OnlineKernelMachine",
        "kernelcourse.rkhs.fit_online",
        "kernelcourse.rkhs.functional_gradient_descent",
    ),
    points=3, reference=_squared_loss_step, cases=lambda rng: _cases_step(rng, hinge=False),
    diagnoses=[
        Diagnosis("no shrink", "the old coefficients must shrink by (1 - 2 eta lam): that is the "
                  "gradient 2 lam f of the regulariser",
                  _sq_mistake(lambda eta, lam: 1.0, _two_eta_residual)),
        Diagnosis("shrink without 2", "the shrink factor is 1 - 2 eta lam (grad ||f||^2 = 2 f)",
                  _sq_mistake(lambda eta, lam: 1 - eta * lam, _two_eta_residual)),
        Diagnosis("weight without 2", "the new bump's weight is 2 eta (y_t - f(x_t)): the square's "
                  "derivative brings a 2", _sq_mistake(lambda eta, lam: 1 - 2 * eta * lam,
                                                       lambda eta, y, fx: eta * (y - fx))),
        Diagnosis("residual sign", "the new weight is 2 eta (y_t - f(x_t)), target minus prediction",
                  _sq_mistake(lambda eta, lam: 1 - 2 * eta * lam, lambda eta, y, fx: 2 * eta * (fx - y))),
        Diagnosis("predict after shrinking", "predict f(x_t) with the old f, before shrinking it",
                  _sq_mistake(lambda eta, lam: 1 - 2 * eta * lam, _two_eta_residual, f_after_shrink=True)),
    ],
    hint="f(x_t) = sum_i alpha_i exp(-gamma ||x_i - x_t||^2); return "
         "np.append((1 - 2 eta lam) * alpha, 2 eta (y_t - f(x_t)))",
)


# ===================================================================== ex5.q4
def _hinge_step(alpha, centres, x_t, y_t, eta, lam, gamma):
    """Shrink by ``1 - 2 eta lam``; append ``eta y_t`` on a margin error (``y_t f(x_t) < 1``), else 0."""
    fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
    shrink, c = coefficient_update("hinge", fx, y_t, eta, lam)
    return np.append(shrink * alpha, c)


def _hinge_mistake(new_of, shrink_of=lambda eta, lam, error: 1 - 2 * eta * lam):
    def step(alpha, centres, x_t, y_t, eta, lam, gamma):
        fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
        error = y_t * fx < 1
        return np.append(shrink_of(eta, lam, error) * alpha, new_of(eta, y_t, fx))
    return step


Q4 = Question(
    id="ex5.q4", title="one functional gradient step, hinge loss", function="hinge_step",
    forbidden=(
        "kernelcourse.rkhs.coefficient_update",
        "kernelcourse.rkhs.RKHSFunction",
        "kernelcourse.rkhs.OnlineKernelMachine",
        "kernelcourse.rkhs.fit_online",
        "kernelcourse.rkhs.hinge_kernel_machine",
    ),
    points=3, reference=_hinge_step, cases=lambda rng: _cases_step(rng, hinge=True),
    diagnoses=[
        Diagnosis("sign", "the hinge step adds +eta y_t K(x_t, .): moving against the subgradient "
                  "-y_t K(x_t, .) pushes y_t f(x_t) up",
                  _hinge_mistake(lambda eta, y, fx: -eta * y if y * fx < 1 else 0.0)),
        Diagnosis("no shrink", "every step shrinks the old coefficients by (1 - 2 eta lam), margin "
                  "error or not", _hinge_mistake(lambda eta, y, fx: eta * y if y * fx < 1 else 0.0,
                                                 lambda eta, lam, error: 1.0)),
        Diagnosis("shrink only on errors", "the regulariser's gradient 2 lam f acts on every step: "
                  "shrink also when there is no margin error",
                  _hinge_mistake(lambda eta, y, fx: eta * y if y * fx < 1 else 0.0,
                                 lambda eta, lam, error: 1 - 2 * eta * lam if error else 1.0)),
        Diagnosis("mistakes only", "a margin error is y_t f(x_t) < 1, not only a wrong sign "
                  "(y_t f(x_t) <= 0): correct points inside the margin also add a bump",
                  _hinge_mistake(lambda eta, y, fx: eta * y if y * fx <= 0 else 0.0)),
        Diagnosis("always add", "without a margin error the subgradient of the hinge is 0: append 0",
                  _hinge_mistake(lambda eta, y, fx: eta * y)),
    ],
    hint="f(x_t) as a sum of bumps; new = eta * y_t if y_t * f(x_t) < 1 else 0; return "
         "np.append((1 - 2 eta lam) * alpha, new)",
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
    reference=_reproduce, cases=_cases_reproduce,
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
    hint="K(x, .) has centres [x] and coefficients [1]; <f, g> = alpha^T K beta gives "
         "sum_i alpha_i exp(-gamma ||x_i - x||^2)",
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5]
