"""Lecture 1, sections 1.2 and 1.4: kernelised gradient descent, one step and a whole run
(l1.cp2, ex1.q4)."""
from __future__ import annotations

import numpy as np

from ....gradient_descent import kernel_gd_step, kernel_gradient_descent
from ...model import Case, Diagnosis, Question, fixed_draw, inputs_unchanged, modified_input
from ._common import _gram_problem, _stable_step


# ===================================================================== l1.cp2
def _cases_step(rng):
    cases = []
    for n in (3, 4, 6):
        _, K, y = _gram_problem(rng, n, 2)
        alpha = np.round(rng.normal(scale=0.3, size=n), 3)
        step = _stable_step(K, rng)
        cases.append(Case((K, y, alpha, step), label=f"n={n}, step={step:g}"))
    return cases


def _mistake_step_sign(K, y, alpha, step):
    return alpha + step * 2 * (K @ alpha - y)


def _mistake_step_no_two(K, y, alpha, step):
    return alpha - step * (K @ alpha - y)


def _mistake_step_residual(K, y, alpha, step):
    return alpha - step * 2 * (alpha - y)


def _mistake_step_in_place(K, y, alpha, step):
    alpha -= step * 2 * (K @ alpha - y)
    return alpha


CP2 = Question(
    id="l1.cp2", title="one step of kernelised gradient descent", function="kernel_gd_step",
    forbidden=(
        "kernelcourse.gradient_descent.kernel_gd_step",
        "kernelcourse.gradient_descent.dual_gradient",
        "kernelcourse.gradient_descent.kernel_gradient_descent",
        "kernelcourse.gradient_descent.KernelGD",
    ),
    points=2, reference=kernel_gd_step, cases=_cases_step, fixed_cases=fixed_draw(_cases_step, 102),
    diagnoses=[
        Diagnosis("sign", "the sign is flipped: gradient descent subtracts step * gamma", _mistake_step_sign),
        Diagnosis("factor 2", "the factor 2 from differentiating the square is missing: "
                  "gamma_i = 2 (sum_j alpha_j K_ij - y_i)", _mistake_step_no_two),
        Diagnosis("no K", "the prediction on x_i is sum_j alpha_j K_ij (K @ alpha), not alpha_i",
                  _mistake_step_residual),
        Diagnosis("in place", "you changed the caller's alpha in place; return a new array and "
                  "leave alpha as it was", _mistake_step_in_place,
                  behaviour=modified_input("alpha")),
    ],
    kind="formula", section="1.4",  # the lecture's checkpoint text prints the step
    constraints=[inputs_unchanged("alpha")],
    hints=("differentiate the squared loss with respect to w = sum_j alpha_j phi(x_j): the "
           "gradient is a combination of the phi(x_i), so the step is a step on alpha",
           "the coefficient of phi(x_i) in the gradient is twice the residual of example i, and "
           "the prediction on x_i is row i of K times alpha; move against it, on a copy"),
)


# ===================================================================== ex1.q4
def _kernel_gd(K, y, step, n_steps):
    """``alpha`` after ``n_steps`` steps of kernelised gradient descent from zero."""
    return kernel_gradient_descent(K, y, step, n_steps, record=False).coef


def _cases_gd(rng):
    cases = []
    for n, t in [(3, 1), (4, 3), (6, 8)]:
        _, K, y = _gram_problem(rng, n, 3)
        step = _stable_step(K, rng)
        cases.append(Case((K, y, step, t), label=f"n={n}, step={step:g}, n_steps={t}"))
    return cases


def _gd_mistake(update):
    def run(K, y, step, n_steps):
        alpha = np.zeros(len(y))
        for _ in range(n_steps):
            alpha = update(K, y, alpha, step)
        return alpha
    return run


def _gauss_seidel(K, y, alpha, step):
    alpha = alpha.copy()
    for i in range(len(y)):
        alpha[i] -= step * 2 * (K[i] @ alpha - y[i])
    return alpha


def _off_by_one(K, y, step, n_steps):
    return _kernel_gd(K, y, step, n_steps + 1)


def _detect_off_by_one(alpha, case):
    K, y, step, n_steps = case.args
    if np.shape(alpha) != np.shape(y):
        return False
    return any(np.allclose(np.asarray(alpha, float), _kernel_gd(K, y, step, t), rtol=1e-7,
                           atol=1e-9) for t in (n_steps - 1, n_steps + 1) if t >= 0)


Q4 = Question(
    id="ex1.q4", title="kernelised gradient descent", function="kernel_gd", points=3,
    forbidden=(
        "kernelcourse.gradient_descent.kernel_gradient_descent",
        "kernelcourse.gradient_descent.kernel_gd_step",
        "kernelcourse.gradient_descent.dual_gradient",
        "kernelcourse.gradient_descent.KernelGD",
    ),
    reference=_kernel_gd, cases=_cases_gd, fixed_cases=fixed_draw(_cases_gd, 106),
    diagnoses=[
        Diagnosis("sign", "the sign is flipped: each step subtracts step * gamma",
                  _gd_mistake(_mistake_step_sign)),
        Diagnosis("factor 2", "the factor 2 of the squared loss's derivative is missing",
                  _gd_mistake(_mistake_step_no_two)),
        Diagnosis("in place", "you updated alpha one coordinate at a time and used the new values "
                  "within the same step; compute every gamma_i from the old alpha first",
                  _gd_mistake(_gauss_seidel)),
        Diagnosis("solved the system", "you returned where the descent is heading (the alpha "
                  "that solves K alpha = y); the question asks for alpha after n_steps steps from "
                  "zero", lambda K, y, step, n_steps: np.linalg.lstsq(K, y, rcond=None)[0]),
        Diagnosis("steps off by one", "you took one step too many or too few: alpha starts at "
                  "zero and n_steps steps follow, so n_steps = 1 is exactly one step",
                  _off_by_one, detect=_detect_off_by_one),
    ],
    kind="derive", section="1.4",
    hints=("w_0 = 0 means alpha starts at zero; each step is the step of the lecture's "
           "checkpoint, repeated n_steps times",
           "compute the whole gradient vector from the old alpha before changing any entry "
           "(twice the residuals K alpha - y), then take one step against it"),
)
