"""Lecture 5 (RKHS and functional gradient descent): exercise set ``ex5`` and the
checkpoints ``l5.cp1``, ``l5.cp2`` of the lecture notebook.

A function of the RKHS is passed to an answer as its coefficients ``alpha``, its
centres (an ``(m, d)`` array) and the ``gamma`` of the RBF kernel
``exp(-gamma ||x - z||^2)`` (scikit-learn's parametrisation; the lecture's
``exp(-||x - z||^2 / gamma)`` has the reciprocal).

============  ===========================  ====  =========  =======  =================================
id            function                     pts   kind       section  asks for
============  ===========================  ====  =========  =======  =================================
l5.cp1        evaluate_rkhs                2     derive     5.4      f at new points, a sum of bumps
l5.cp2        regularised_gradient         2     derive     5.5      grad of sum (y - f)^2 + lam ||f||^2
ex5.q1        rkhs_norm                    2     derive     5.2      ||f||
ex5.q2        rkhs_inner                   2     derive     5.2      <f, g>, different centres
ex5.q3        squared_loss_step            3     derive     5.6      one online step, squared loss
ex5.q4        hinge_step                   3     derive     5.7      one online step, hinge loss
ex5.q5        reproduce                    2     derive     5.3      <f, K(x, .)> by the inner product
ex5.q6        completion_statements        2     choice     5.12     true or false: well defined?
ex5.q7        another_expansion            2     witness    5.12     a second expansion of one function
ex5.q8        predict_top_eigenvalue       2     predict    5.13     lambda_1 of a bigger Gram matrix
ex5.q9        extend_eigenfunctions        3     fix        5.13     the Nystroem extension, fixed
============  ===========================  ====  =========  =======  =================================

No question text prints its formula: each names the quantity and the section that derives it.
"""
from __future__ import annotations

import numpy as np

from ...kernels import RBF
from ...rkhs import RKHSFunction, coefficient_update, kernel_section
from ..core import Case, Diagnosis, Property, Question, choice_parts


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
    """A gamma away from 1, where exp(-gamma d) and exp(-d / gamma) (the lecture's form) agree."""
    return float(np.round(rng.uniform(0.3, 0.7) if rng.random() < 0.5 else rng.uniform(1.4, 2.5), 2))


def _fixed(cases, seed=20265):
    """Fixed cases: ``cases`` drawn once with a seed of the question's own, the same in every run
    (each of them shows every named mistake: the mistakes fail on every draw)."""
    return lambda: cases(np.random.default_rng(seed))


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
    fixed_cases=_fixed(_cases_gradient),
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
    rtol=2e-5, atol=1e-6, kind="derive", section="5.5",
    hints=("section 5.5's table gives the gradient of each term as a function; write each one "
           "as coefficients on the bumps K(x_i, .) of the training points",
           "the loss term puts a residual-times-constant weight on each bump and the regulariser "
           "adds a multiple of f itself; f's values at the training points come from the Gram "
           "matrix times alpha"),
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
    reference=_rkhs_norm, cases=_cases_norm, fixed_cases=_fixed(_cases_norm),
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
    if hinge:  # every case in a known branch: margin >= 1, 0 < margin < 1 (twice), margin <= 0
        for i, (y_t, target) in enumerate(((1.0, 1.6), (1.0, 0.4), (1.0, -0.5), (-1.0, 0.7))):
            alpha, centres, x_t, _, eta, lam, gamma = cases[i]
            fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
            while abs(fx) < 0.05:                       # too flat to scale: lift x_t's own bump
                alpha = np.append(alpha[:-1], alpha[-1] + 1.0)
                centres = np.vstack([centres[:-1], x_t])
                fx = _f(alpha, centres, gamma)(x_t[None, :])[0]
            alpha = np.round(alpha * (y_t * target / fx), 6)
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
    fixed_cases=_fixed(lambda rng: _cases_step(rng, hinge=False)),
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
    rtol=2e-5, atol=1e-6, kind="derive", section="5.6",
    hints=("take the functional gradient of the single-example loss (y_t - f(x_t))^2 + lam ||f||^2 "
           "(section 5.5) and move f against it with step eta; then read off the coefficients",
           "the regulariser's gradient is a multiple of f, so it rescales every old coefficient; "
           "the loss's gradient is a multiple of the one bump K(x_t, .), so it appends one "
           "coefficient; predict f(x_t) before changing anything"),
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
    fixed_cases=_fixed(lambda rng: _cases_step(rng, hinge=True)),
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
    rtol=2e-5, atol=1e-6, kind="derive", section="5.7",
    hints=("section 5.7: the hinge max(0, 1 - y f(x)) has a subgradient that is zero outside the "
           "margin and a multiple of K(x_t, .) inside it; the regulariser acts on every step",
           "decide first whether (x_t, y_t) is a margin error (compare y_t f(x_t) with 1, not "
           "with 0); the step moves against the subgradient, so the new weight has the sign of y_t"),
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


# ===================================================================== ex5.q6
# The truth of each statement of the exercise notebook, by the argument of 5.12
_COMPLETION_TRUTH = {
    "unique": False,
    "values": True,
    "symmetry": True,
    "zero norm": True,
    "limits": False,
}

Q6 = Question(
    id="ex5.q6", title="is the inner product well defined?", function="completion_statements",
    points=2, kind="choice", section="5.12",
    forbidden=("kernelcourse.rkhs.RKHSFunction",),
    **choice_parts(_COMPLETION_TRUTH, {
        "unique": "one function can have several expansions: split a repeated centre in two, or "
                  "take a kernel of finite rank such as the linear one with more centres than "
                  "dimensions; that is why 5.12 has to show the inner product ignores the expansion",
        "values": "sum over i first: sum_i alpha_i K(x_i, z_j) is f(z_j), whatever expansion of f "
                  "produced it; what is left is sum_j beta_j f(z_j)",
        "symmetry": "g(x_i) = sum_j beta_j K(z_j, x_i) has the centre of g first, while the double "
                    "sum holds K(x_i, z_j); look at what lets you exchange the two arguments",
        "zero norm": "combine the reproducing property with Cauchy-Schwarz: |f(x)| = "
                     "|<f, K(x, .)>| <= ||f|| sqrt(K(x, x)); what does ||f|| = 0 leave of f(x)?",
        "limits": "think of the continuous sum of bumps of 5.12: its Riemann sums are finite sums "
                  "that form a Cauchy sequence, yet their limit has a Fourier transform no finite "
                  "sum has",
    }),
    fixed_cases=lambda: [Case((key,), label=f"statement {key!r}") for key in _COMPLETION_TRUTH],
    hints=("decide each statement with section 5.12's argument: rewrite the double sum of <f, g> "
           "with the reproducing property and see what it depends on",
           "three of the five are true; for 'zero norm' combine the reproducing property with "
           "Cauchy-Schwarz, and for 'unique' try the linear kernel with three centres in the plane"),
)


# ===================================================================== ex5.q7
def _null_direction(X):
    """A unit vector v with X^T v = 0 (X has more rows than columns): sum_i v_i K(x_i, .) = 0."""
    U, _, _ = np.linalg.svd(X, full_matrices=True)
    return U[:, -1]


def _another_expansion(alpha, X):
    """alpha plus a direction whose bumps add up to the zero function of the linear kernel."""
    return np.asarray(alpha, dtype=float) + _null_direction(X)


def _cases_expansion(rng):
    cases = []
    for m, d in [(3, 2), (4, 1), (5, 3), (6, 2)]:
        X, alpha = np.round(rng.normal(size=(m, d)), 3), np.round(rng.normal(size=m), 3)
        cases.append(Case((alpha, X), label=f"{m} centres in {d}-D, linear kernel"))
    return cases


def _same_function(beta, case):
    alpha, X = case.args
    beta = np.asarray(beta, dtype=float)
    scale = 1.0 + np.abs(X).max() * (np.abs(alpha).sum() + np.abs(beta).sum())
    return beta.shape == alpha.shape and bool(np.allclose(X.T @ beta, X.T @ alpha, rtol=0,
                                                          atol=1e-5 * scale))


def _different(beta, case):
    alpha = case.args[0]
    beta = np.asarray(beta, dtype=float)
    return beta.shape == alpha.shape and float(np.max(np.abs(beta - alpha))) >= 0.1


def _shape_of(case):
    return (len(case.args[0]),)


def _is_same(beta, case):
    """beta is alpha itself (to rounding), not merely close to it."""
    alpha = case.args[0]
    beta = np.asarray(beta, dtype=float)
    return beta.shape == alpha.shape and bool(np.allclose(beta, alpha, rtol=1e-9, atol=1e-12))


def _too_small_a_change(beta, case):
    """The same function from another expansion, but no coefficient moved by 0.1."""
    return (np.asarray(beta).shape == _shape_of(case) and not _is_same(beta, case)
            and _same_function(beta, case) and not _different(beta, case))


def _only_the_change(beta, case):
    """sum_i beta_i x_i = 0: the change v returned without alpha."""
    alpha, X = case.args
    beta = np.asarray(beta, dtype=float)
    if beta.shape != alpha.shape or np.linalg.norm(beta) < 1e-6 or _same_function(beta, case):
        return False
    return bool(np.allclose(X.T @ beta, 0.0, atol=1e-6 * (1 + np.abs(X).max() * np.abs(beta).sum())))


def _input_space_length(beta, case):
    alpha, X = case.args
    return np.ndim(beta) == 1 and len(beta) == X.shape[1] != len(alpha)


def _is_rescaled(beta, case):
    alpha, beta = case.args[0], np.asarray(beta, dtype=float)
    if beta.shape != alpha.shape or not _different(beta, case):
        return False
    c = float(beta @ alpha / (alpha @ alpha))
    return abs(c - 1.0) > 0.05 and bool(np.allclose(beta, c * alpha, atol=1e-6))


def _top_eigenvector(X):
    _, U = np.linalg.eigh(X @ X.T)
    return U[:, -1]


def _is_top_direction(beta, case):
    alpha, X = case.args
    v = np.asarray(beta, dtype=float) - alpha
    if v.shape != alpha.shape or np.linalg.norm(v) < 1e-6:
        return False
    u = _top_eigenvector(X)
    return abs(float(u @ v)) / np.linalg.norm(v) > 1 - 1e-6


def _is_orthogonal_to_alpha(beta, case):
    alpha, X = case.args
    v = np.asarray(beta, dtype=float) - alpha
    if v.shape != alpha.shape or np.linalg.norm(v) < 0.1 or _same_function(beta, case):
        return False
    return abs(float(v @ alpha)) < 1e-6 * (1 + np.linalg.norm(alpha) * np.linalg.norm(v))


def _orthogonal_change(alpha, X):
    rng = np.random.default_rng(len(alpha))
    v = rng.normal(size=len(alpha))
    v -= (v @ alpha) / (alpha @ alpha) * alpha
    return alpha + v / np.linalg.norm(v)


Q7 = Question(
    id="ex5.q7", title="two expansions of one function", function="another_expansion", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction", "kernelcourse.rkhs.orthogonal_to_span"),
    kind="witness", section="5.12",
    reference=_another_expansion, cases=_cases_expansion, compare_reference=False,
    fixed_cases=_fixed(_cases_expansion),
    properties=[
        Property("same function", _same_function,
                 "sum_i beta_i K(x_i, .) is not the same function as sum_i alpha_i K(x_i, .): "
                 "with the linear kernel both are x -> (sum_i c_i x_i) . x"),
        Property("different", _different,
                 "beta must differ from alpha by at least 0.1 in some coefficient"),
    ],
    diagnoses=[
        Diagnosis("the same expansion", "you returned alpha itself: look for a change v of the "
                  "coefficients whose bumps add up to the zero function, sum_i v_i K(x_i, .) = 0",
                  lambda alpha, X: np.array(alpha, dtype=float), detect=_is_same),
        Diagnosis("too small a change", "your beta is another expansion of the same function, "
                  "but no coefficient moved by 0.1, the least the question asks; any multiple of "
                  "your change v keeps the function, so scale it up",
                  lambda alpha, X: np.asarray(alpha, dtype=float) + 0.01 * _null_direction(X),
                  detect=_too_small_a_change),
        Diagnosis("only the change", "your beta's bumps add up to the zero function: you "
                  "returned the change v itself; the second expansion of f is alpha + v",
                  lambda alpha, X: _null_direction(X), detect=_only_the_change),
        Diagnosis("input-space length", "beta needs one coefficient per centre (len(alpha)); a "
                  "vector of length d, such as a row of V^T from the SVD, lives in the input space",
                  lambda alpha, X: np.ones(X.shape[1]), detect=_input_space_length),
        Diagnosis("rescaled", "c alpha describes c f, a different function unless c = 1; the "
                  "change must be invisible to the function, not proportional to it",
                  lambda alpha, X: 2.0 * np.asarray(alpha, dtype=float), detect=_is_rescaled),
        Diagnosis("largest eigenvector", "np.linalg.eigh sorts the eigenvalues in increasing order: "
                  "a change v with sum_i v_i K(x_i, .) = 0 has v^T K v = ||sum_i v_i K(x_i, .)||^2 "
                  "= 0, an eigenvalue 0 of K (the first column), not the largest",
                  lambda alpha, X: np.asarray(alpha, dtype=float) + _top_eigenvector(X),
                  detect=_is_top_direction),
        Diagnosis("orthogonal to alpha", "a change orthogonal to alpha still changes the function; "
                  "what must vanish is sum_i v_i x_i, i.e. X^T v = 0",
                  _orthogonal_change, detect=_is_orthogonal_to_alpha),
    ],
    hints=("with the linear kernel, sum_i c_i K(x_i, .) is the function x -> w . x with "
           "w = sum_i c_i x_i: which changes of the coefficients leave w alone?",
           "there are more centres than dimensions, so some non-zero v has sum_i v_i x_i = 0; "
           "the SVD of X, or the eigenvector of K = X X^T for the eigenvalue 0, gives one"),
)


# ===================================================================== ex5.q8
def _top_gram_eigenvalue(X, gamma):
    return float(np.linalg.eigvalsh(_gram(X, X, gamma))[-1])


def _predict_top(X, gamma, N):
    """N/n times the top eigenvalue of the sample's Gram matrix: n mu_1 for the operator's mu_1."""
    return N / len(X) * _top_gram_eigenvalue(X, gamma)


def _cases_top(rng):
    cases = []
    for n, N, gamma, sigma in [(150, 600, 1.0, 1.0), (120, 720, 0.5, 1.5), (100, 500, 2.0, 0.8)]:
        X = np.round(rng.normal(scale=sigma, size=(n, 1)), 4)
        cases.append(Case((X, gamma, N), label=f"{n} points drawn from N(0, {sigma}^2), "
                                               f"gamma={gamma}, N={N}"))
    return cases


Q8 = Question(
    id="ex5.q8", title="the top eigenvalue of a bigger Gram matrix", function="predict_top_eigenvalue",
    points=2, kind="predict", section="5.13", rtol=0.02, atol=0.0,
    forbidden=("kernelcourse.nystroem.rbf_gram_spectrum", "kernelcourse.kernel_pca.KernelPCA"),
    reference=_predict_top, cases=_cases_top, fixed_cases=_fixed(_cases_top),
    diagnoses=[
        Diagnosis("no scaling", "the eigenvalues of a Gram matrix grow with the number of points: "
                  "lambda_i(K) / n estimates the operator's mu_i (5.13), so N points give about "
                  "N mu_1", lambda X, gamma, N: _top_gram_eigenvalue(X, gamma)),
        Diagnosis("operator eigenvalue", "lambda_1(K) / n is the operator's eigenvalue mu_1; the "
                  "question asks for the top eigenvalue of the N-point Gram matrix, about N mu_1",
                  lambda X, gamma, N: _top_gram_eigenvalue(X, gamma) / len(X)),
        Diagnosis("square root", "the eigenvalues grow linearly in the number of points, not like "
                  "its square root: lambda_i(K_N) is about N mu_i",
                  lambda X, gamma, N: np.sqrt(N / len(X)) * _top_gram_eigenvalue(X, gamma)),
        Diagnosis("ascending", "np.linalg.eigvalsh returns the eigenvalues in increasing order: "
                  "the largest is the last one",
                  lambda X, gamma, N: N / len(X) * float(np.linalg.eigvalsh(_gram(X, X, gamma))[0])),
    ],
    hints=("section 5.13: the Gram matrix's eigenvalues divided by the number of points estimate "
           "the operator's eigenvalues, which do not depend on how many points you drew",
           "estimate mu_1 from the n points you have, then ask what N points would give; the "
           "answer is within 2% of the estimate from your sample, which is what is graded"),
)


# ===================================================================== ex5.q9
_BUGGY_EXTENSION = """\
def extend_eigenfunctions(K_new, K, k):
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]      # the k largest eigenpairs of K
    mu = s                                     # the kernel operator's eigenvalues
    phi_train = np.sqrt(n) * U                 # the eigenfunctions at the training points
    return K_new @ phi_train / (n * mu)        # phi(x) = sum_j K(x, x_j) phi(x_j) / (n mu)
"""


def _given(source, name):
    """The function a fix question hands out, bug included (exec'd from its source)."""
    space = {"np": np}
    exec(compile(source, f"<the given {name}>", "exec"), space)
    return space[name]


def _extend(K_new, K, k):
    """The Nystroem extension sqrt(n) K_new u_i / lambda_i(K) of the top k eigenfunctions."""
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    return np.sqrt(n) * (K_new @ U) / s


def _scaled_extension(factor):
    def mistake(K_new, K, k):
        return _extend(K_new, K, k) * factor(K.shape[0])
    return mistake


def _smallest_pairs(K_new, K, k):
    """The extension with the k SMALLEST eigenpairs (the order of np.linalg.eigh kept)."""
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    return np.sqrt(n) * (K_new @ U[:, :k]) / s[:k]


def _fixed_extend():
    """A seeded draw, and the training points themselves (K_new = K: phi_train comes back)."""
    cases = _cases_extend(np.random.default_rng(20265))
    K = cases[0].args[1]
    return cases + [Case((K.copy(), K, 2), label=f"K_new = K, the {len(K)} training points, k=2")]


def _cases_extend(rng):
    cases = []
    for n, p, k, gamma in [(8, 3, 2, 0.5), (12, 4, 2, 1.0), (15, 5, 3, 0.3)]:
        X = _points(rng, n, 2)
        X_new = _points(rng, p, 2)
        cases.append(Case((_gram(X_new, X, gamma), _gram(X, X, gamma), k),
                          label=f"K_new of shape ({p}, {n}), K ({n}, {n}), k={k}"))
    return cases


def _column_signs(actual, expected):
    """actual with each column's sign turned to match expected (eigenvectors have no sign)."""
    actual = np.array(actual, dtype=float)
    signs = np.sign(np.sum(actual * expected, axis=0))
    signs[signs == 0] = 1.0
    return actual * signs


def _extension_is(factor):
    def detect(actual, case):
        expected = _extend(*case.args) * factor(case.args[1].shape[0])
        actual = np.asarray(actual, dtype=float)
        if actual.shape != expected.shape:
            return False
        return bool(np.allclose(_column_signs(actual, expected), expected, rtol=1e-4,
                                atol=1e-6 * np.abs(expected).max()))
    return detect


def _matches(mistake):
    def detect(actual, case):
        expected = mistake(*case.args)
        actual = np.asarray(actual, dtype=float)
        return actual.shape == expected.shape and bool(np.allclose(
            _column_signs(actual, expected), expected, rtol=1e-4, atol=1e-6 * np.abs(expected).max()))
    return detect


def _constant_multiple(actual, case):
    """actual = c times the extension (up to column signs), for one c other than 1."""
    expected = _extend(*case.args)
    actual = np.asarray(actual, dtype=float)
    if actual.shape != expected.shape:
        return False
    aligned = _column_signs(actual, expected)
    c = float(np.sum(aligned * expected) / np.sum(expected * expected))
    return abs(c - 1) > 1e-3 and bool(np.allclose(aligned, c * expected, rtol=1e-4,
                                                  atol=1e-6 * abs(c) * np.abs(expected).max()))


def _matches_up_to_sign(actual, case):
    return _extension_is(lambda n: 1.0)(actual, case)


Q9 = Question(
    id="ex5.q9", title="fix the Nystroem extension of the eigenfunctions",
    function="extend_eigenfunctions", points=3, kind="fix", section="5.13",
    forbidden=("kernelcourse.nystroem.Nystroem", "kernelcourse.kernel_pca.KernelPCA"),
    reference=_extend, cases=_cases_extend, compare_reference=False,
    fixed_cases=_fixed_extend,
    properties=[Property("the extension", _matches_up_to_sign,
                         "the values differ from the eigenfunctions' extension (each column is "
                         "compared up to its sign, to 4 significant digits)")],
    diagnoses=[
        Diagnosis("operator eigenvalue as lambda(K)", "the bug is still there: the operator's "
                  "eigenvalue mu_i is lambda_i(K) / n (5.13), not lambda_i(K); with mu = s the "
                  "values are n times too small",
                  _given(_BUGGY_EXTENSION, "extend_eigenfunctions"),
                  detect=_extension_is(lambda n: 1.0 / n)),
        Diagnosis("mu = n lambda", "the Gram matrix's eigenvalues grow with n, so the operator's "
                  "are lambda_i(K) divided by n, not multiplied",
                  _scaled_extension(lambda n: 1.0 / n**2), detect=_extension_is(lambda n: 1.0 / n**2)),
        Diagnosis("fixed the wrong line", "phi_train = sqrt(n) U was right (the eigenfunctions "
                  "are normalised in L2(p), so their values at the n points are sqrt(n) u_i); the "
                  "bug is in the line of mu, which is still lambda_i(K)",
                  _scaled_extension(lambda n: n ** -1.5), detect=_extension_is(lambda n: n ** -1.5)),
        Diagnosis("sqrt(n) short", "the values are sqrt(n) times too small: mu_i = lambda_i(K) / n "
                  "(divide by n, not by sqrt(n)), and the values at the training points are "
                  "sqrt(n) u_i, not the unit eigenvector u_i",
                  _scaled_extension(lambda n: 1.0 / np.sqrt(n)),
                  detect=_extension_is(lambda n: 1.0 / np.sqrt(n))),
        Diagnosis("smallest eigenpairs", "the reversal [::-1] was right: np.linalg.eigh sorts "
                  "the eigenvalues in increasing order, and the leading eigenfunctions belong to "
                  "the LARGEST ones", _smallest_pairs, detect=_matches(_smallest_pairs)),
        Diagnosis("a constant factor", "the values are a constant multiple of the extension: "
                  "check the scaling against the training points, where K_new = K must give back "
                  "phi_train = sqrt(n) u_i", _scaled_extension(lambda n: 3.0),
                  detect=_constant_multiple),
    ],
    hint="delete this line; the code below has one bug: find it and fix it",
    hints=("at the training points (K_new = K) the extension must give back the eigenfunctions' "
           "values phi_train; try it, and compare the two",
           "section 5.13 relates the eigenvalues of the Gram matrix to those of the kernel "
           "operator: one grows with the number of points, the other does not"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
