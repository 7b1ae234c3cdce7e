"""Lecture 5, sections 5.5-5.7: functional gradients and one online step for the squared and the
hinge loss (l5.cp2, ex5.q3, ex5.q4).
"""
from __future__ import annotations

import numpy as np

from ....rkhs import coefficient_update
from ...model import Case, Diagnosis, Question
from ._common import _f, _fixed, _gamma, _gram, _points


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
