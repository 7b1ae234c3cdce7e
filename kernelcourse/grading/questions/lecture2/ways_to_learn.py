"""Lecture 2's questions on the ways to learn (2.1-2.6): one SGD step on u, a whole run
with the cached Gram matrix, and the computation column of the cost table.
"""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ....cost_model import predicted_cost
from ....sgd import WAYS, dual_sgd_step, sgd_gram
from ...model import Case, fixed_draw, Diagnosis, Question, inputs_unchanged, modified_input
from ._common import _dloss, _labels, _points


# ===================================================================== ex2.q1
def _step(u, i, k_row, y_i, alpha):
    """One SGD step on u with the logistic loss: the package's dual_sgd_step."""
    return dual_sgd_step(u, i, k_row, y_i, alpha, loss="logistic")


def _cases_step(rng):
    cases = []
    for n in (4, 6, 9):
        X = _points(rng, n, 2, scale=0.5)
        i = int(rng.integers(n))
        u = np.round(rng.normal(scale=0.5, size=n), 3)
        y_i = float(rng.choice([-1.0, 1.0]))
        alpha = float(np.round(rng.uniform(0.05, 0.5), 3))
        k_row = RBF(1.0)(X[i:i + 1], X)[0]
        cases.append(Case((u, i, k_row, y_i, alpha), label=f"n={n}, i={i}, y_i={y_i:+g}, alpha={alpha}"))
    return cases


def _step_right_side():
    """A positive example already on the right side (y_i = +1, k_row @ u > 0): the branch of
    the logistic derivative for a positive margin, -y e^(-m) / (1 + e^(-m)), whose sign shows
    only when y_i = +1 (the drawn cases above meet it by chance)."""
    X = np.array([[0.1, -0.2], [0.4, 0.3], [-0.3, 0.2], [0.2, 0.5], [-0.1, -0.4]])
    u = np.array([0.6, 0.9, -0.2, 0.4, 0.3])
    k_row = RBF(1.0)(X[1:2], X)[0]
    return [Case((u, 1, k_row, 1.0, 0.25),
                 label="n=5, i=1, y_i=+1, alpha=0.25 (k_row @ u > 0: already on the right side)")]


def _step_in_place(u, i, k_row, y_i, alpha):
    u[i] = u[i] - alpha * _dloss(k_row @ u, y_i)
    return u


def _only_i(u, i, value):
    u = np.array(u, dtype=float)
    u[i] = value
    return u


Q1 = Question(
    id="ex2.q1", title="one SGD step on u", function="dual_sgd_step", points=3,
    forbidden=(
        "kernelcourse.sgd.dual_sgd_step",
        "kernelcourse.sgd.sgd_gram",
        "kernelcourse.sgd.KernelSGD",
    ),
    reference=_step, cases=_cases_step,
    fixed_cases=fixed_draw(_cases_step, 203, extra=_step_right_side),
    constraints=[inputs_unchanged("u")],
    diagnoses=[
        Diagnosis("in place", "you changed the caller's u in place: a step returns a new "
                  "array (copy u first), so the caller's u is still there to compare with",
                  _step_in_place, behaviour=modified_input("u")),
        Diagnosis("sign", "SGD moves against the derivative: u_i <- u_i - alpha * loss'(...)",
                  lambda u, i, k, y, a: _only_i(u, i, u[i] + a * _dloss(k @ u, y))),
        Diagnosis("no kernel sum", "the prediction on x_i is w.phi(x_i) = sum_j K(x_i, x_j) u_j "
                  "(k_row @ u), not u_i alone",
                  lambda u, i, k, y, a: _only_i(u, i, u[i] - a * _dloss(u[i], y))),
        Diagnosis("all coordinates", "only the sampled coordinate u_i changes; moving every u_j by "
                  "K(x_i, x_j) is a step on w written in the wrong coordinates",
                  lambda u, i, k, y, a: np.asarray(u, float) - a * _dloss(k @ u, y) * k),
        Diagnosis("derivative sign inside exp", "the logistic loss's derivative is "
                  "-y / (1 + exp(y z)); with exp(-y z) it is the derivative for the other label",
                  lambda u, i, k, y, a: _only_i(u, i, u[i] + a * y / (1 + np.exp(-y * (k @ u))))),
    ],
    kind="derive", section="2.3",
    hints=("write the SGD step on w for example i, then read off what it does to the "
           "coefficients u when w = sum_j u_j phi(x_j): only one coefficient moves",
           "the prediction on x_i is w . phi(x_i) = k_row @ u; the logistic loss's derivative is "
           "-y / (1 + exp(y z)); work on a copy of u"),
)


# ===================================================================== ex2.q2
def _run(G, y, indices, alpha):
    """SGD on u with the cached Gram matrix: the package's sgd_gram (logistic loss)."""
    return sgd_gram(G, y, indices, alpha, loss="logistic")


def _cases_run(rng):
    cases = []
    for n, T in [(4, 12), (6, 30), (8, 50)]:
        X = _points(rng, n, 2, scale=0.6)
        G = RBF(1.5)(X)
        y = _labels(rng, n)
        indices = rng.integers(0, n, size=T)
        alpha = float(np.round(rng.uniform(0.2, 0.8), 3))
        cases.append(Case((G, y, indices, alpha), label=f"n={n}, T={T}, alpha={alpha}"))
    return cases


def _run_all_coordinates(G, y, indices, alpha):
    u = np.zeros(len(y))
    for i in indices:
        u = u - alpha * _dloss(G[i] @ u, y[i]) * G[i]
    return u


def _run_stale(G, y, indices, alpha):
    margins = G @ np.zeros(len(y))
    u = np.zeros(len(y))
    for i in indices:
        u[i] -= alpha * _dloss(margins[i], y[i])
    return u


def _run_sign(G, y, indices, alpha):
    u = np.zeros(len(y))
    for i in indices:
        u[i] += alpha * _dloss(G[i] @ u, y[i])
    return u


Q2 = Question(
    id="ex2.q2", title="SGD with the cached Gram matrix", function="sgd_gram", points=3,
    forbidden=(
        "kernelcourse.sgd.sgd_gram",
        "kernelcourse.sgd.dual_sgd_step",
        "kernelcourse.sgd.KernelSGD",
    ),
    reference=_run, cases=_cases_run, fixed_cases=fixed_draw(_cases_run, 204),
    diagnoses=[
        Diagnosis("all coordinates", "a step changes only u[i_t]; you moved all of u along the row G[i_t]",
                  _run_all_coordinates),
        Diagnosis("stale margins", "compute G[i_t] @ u at every step with the current u: the "
                  "margins change as u does", _run_stale),
        Diagnosis("sign", "SGD subtracts alpha * loss'(G[i] @ u; y_i) from u[i]", _run_sign),
    ],
    kind="derive", section="2.6",
    hints=("w_0 = 0 means u starts at zero; every step is question 1's step",
           "for each sampled index in turn, use the row G[i] of the cached Gram matrix and the "
           "current u (not the u of the start)"),
)


# ===================================================================== ex2.q5
def _cost(way, n, d, D, T):
    """The computation column of the lecture's table for way 1-4, constants taken as 1."""
    return int(predicted_cost(WAYS[way - 1], n, d, D, T)[0])


def _cases_cost(rng):
    cases = []
    for way in (1, 2, 3, 4):
        n, d = int(rng.integers(50, 500)), int(rng.integers(2, 50))
        D, T = int(rng.integers(100, 5000)), int(rng.integers(1000, 20000))
        cases.append(Case((way, n, d, D, T), label=f"way {way}, n={n}, d={d}, D={D}, T={T}"))
    return cases


def _cost_mistake(changes):
    def mistake(way, n, d, D, T):
        if way in changes:
            return int(changes[way](n, d, D, T))
        return _cost(way, n, d, D, T)
    return mistake


Q5 = Question(
    id="ex2.q5", title="the computation column of the cost table", function="cost_of_way", points=3,
    forbidden=(
        "kernelcourse.cost_model.predicted_cost",
        "kernelcourse.cost_model.cost_table",
        "kernelcourse.cost_model.format_cost_table",
    ),
    reference=_cost, cases=_cases_cost, fixed_cases=fixed_draw(_cases_cost, 207),
    diagnoses=[
        Diagnosis("no precomputation", "count the precomputation too: caching the features costs "
                  "n d D and the Gram matrix n^2 d before the T steps",
                  _cost_mistake({2: lambda n, d, D, T: D * T, 4: lambda n, d, D, T: n * T})),
        Diagnosis("gram entries free", "each of the n^2 Gram entries is a kernel value costing d: "
                  "n^2 d, not n^2", _cost_mistake({4: lambda n, d, D, T: n * n + n * T})),
        Diagnosis("one kernel value per step", "a step on u needs the n kernel values K(x_i, x_j) of "
                  "its row, each costing d: n d per step", _cost_mistake({3: lambda n, d, D, T: d * T})),
        Diagnosis("feature map free", "computing phi(x_i) costs d D at every step: d D T, not D T",
                  _cost_mistake({1: lambda n, d, D, T: D * T})),
    ],
    kind="derive", section="2.6",
    hints=("for each way: the work of one step times T, plus whatever is computed once before "
           "the steps",
           "computing one phi(x) costs d D and one kernel value costs d; a step on w touches D "
           "numbers, a step on u with a cached row touches n"),
)
