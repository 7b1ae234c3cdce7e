"""Lecture 2 (the six ways to learn with a kernel, random Fourier features, Hoeffding's bound):
exercise set ``ex2`` and the checkpoints ``l2.cp1``, ``l2.cp2`` of the lecture notebook.

============  ======================  ====  ==========================================
id            function                pts   syllabus
============  ======================  ====  ==========================================
l2.cp1        rff_estimate            2     2.8 the single-sample estimator, averaged
l2.cp2        hoeffding_bound         2     2.9 P(|error| >= a) <= 2 exp(-D a^2 / 8)
ex2.q1        dual_sgd_step           3     2.1, 2.3 one SGD step on u (logistic loss)
ex2.q2        sgd_gram                3     2.2, 2.6 a whole run with the cached Gram matrix
ex2.q3        rff_map                 4     2.8 psi(x) = sqrt(2/D) cos(Omega x + b)
ex2.q4        features_needed         2     2.9 the D that Hoeffding's bound asks for
ex2.q5        cost_of_way             3     2.6 the computation column of the cost table
============  ======================  ====  ==========================================

The logistic loss is ``loss(z; y) = log(1 + exp(-y z))`` with ``loss'(z; y) = -y / (1 + exp(y z))``,
as in the lecture's demo. Random draws enter the answers as inputs (standard normal
``G`` and uniform ``U``), so a map that scales them wrongly can be told apart.
"""
from __future__ import annotations

import math

import numpy as np

from ...kernels import RBF
from ...random_features import features_needed, fourier_features, hoeffding_bound, single_sample_estimate
from ...cost_model import predicted_cost
from ...sgd import WAYS, dual_sgd_step, sgd_gram
from ..core import (Case, fixed_draw, Diagnosis, Property, Question, choice_parts, inputs_unchanged,
                    modified_input)


def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _labels(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def _dloss(z, y):
    return -y / (1.0 + np.exp(y * z))


# ===================================================================== l2.cp1
def _rff_estimate(x, y, w, b):
    """Mean over the rows ``w_k`` of ``2 cos(w_k.x + b_k) cos(w_k.y + b_k)``."""
    return float(np.mean(single_sample_estimate(x, y, w, b)))


def _cases_estimate(rng):
    cases = []
    for d, m in [(2, 5), (3, 8), (4, 20)]:
        x, y = np.round(rng.uniform(size=d), 3), np.round(rng.uniform(size=d), 3)
        w = np.round(rng.normal(scale=1.5, size=(m, d)), 3)
        b = np.round(rng.uniform(0, 2 * np.pi, size=m), 3)
        cases.append(Case((x, y, w, b), label=f"d={d}, {m} draws (w of shape {w.shape})"))
    return cases


CP1 = Question(
    id="l2.cp1", title="the random Fourier estimate of K(x, y)", function="rff_estimate", points=2,
    forbidden=(
        "kernelcourse.random_features.single_sample_estimate",
        "kernelcourse.random_features.monte_carlo_kernel",
        "kernelcourse.random_features.fourier_features",
        "kernelcourse.random_features.RandomFourierFeatures",
    ),
    reference=_rff_estimate, cases=_cases_estimate, fixed_cases=fixed_draw(_cases_estimate, 201),
    diagnoses=[
        Diagnosis("no factor 2", "each term is 2 cos(w.x + b) cos(w.y + b): without the 2 the "
                  "estimate is half the kernel", lambda x, y, w, b: _rff_estimate(x, y, w, b) / 2),
        Diagnosis("no offset", "the offset b belongs inside both cosines: cos(w.x + b), cos(w.y + b)",
                  lambda x, y, w, b: float(np.mean(2 * np.cos(w @ x) * np.cos(w @ y)))),
        Diagnosis("offset in one cosine", "the offset b_k enters both cosines: "
                  "cos(w_k.x + b_k) cos(w_k.y + b_k); you added it to one of them only",
                  lambda x, y, w, b: float(np.mean(2 * np.cos(w @ x + b) * np.cos(w @ y)))),
        Diagnosis("sum", "average over the draws (divide the sum by their number); the sum grows "
                  "with the number of draws",
                  lambda x, y, w, b: float(np.sum(single_sample_estimate(x, y, w, b)))),
    ],
    kind="formula", section="2.8",  # the lecture's checkpoint text prints the term
    hints=("one draw (w_k, b_k) gives one unbiased estimate of K(x, y): which product of two "
           "cosines has the kernel as its mean?",
           "w @ x gives one phase per draw (one per row of w); form the single-draw estimates "
           "as a vector and average them"),
)


# ===================================================================== l2.cp2
def _cases_bound(rng):
    cases = []
    for D in (int(rng.integers(10, 100)), int(rng.integers(100, 1000)), int(rng.integers(1000, 5000))):
        a = float(np.round(rng.uniform(0.05, 0.4), 3))
        cases.append(Case((D, a), label=f"D={D}, a={a}"))
    return cases


CP2 = Question(
    id="l2.cp2", title="Hoeffding's bound for random Fourier features", function="hoeffding_bound",
    forbidden=(
        "kernelcourse.random_features.hoeffding_bound",
        "kernelcourse.random_features.features_needed",
    ),
    points=2, reference=lambda D, a: float(hoeffding_bound(D, a)), cases=_cases_bound,
    fixed_cases=fixed_draw(_cases_bound, 202),
    rtol=1e-9,
    diagnoses=[
        Diagnosis("range 2", "each term 2 cos() cos() lies in [-2, 2], a range of 4: the exponent is "
                  "-2 D a^2 / 4^2 = -D a^2 / 8", lambda D, a: 2 * math.exp(-D * a**2 / 2)),
        Diagnosis("one-sided", "the bound is on |error| >= a, both sides: 2 exp(-D a^2 / 8)",
                  lambda D, a: math.exp(-D * a**2 / 8)),
        Diagnosis("a not squared", "Hoeffding's exponent has the square of the error level a",
                  lambda D, a: 2 * math.exp(-D * a / 8)),
    ],
    kind="derive", section="2.9",
    hints=("Hoeffding's inequality for the mean of D independent terms that each lie in an "
           "interval [lo, hi]: the exponent is -2 D a^2 / (hi - lo)^2",
           "each term 2 cos() cos() lies in [-2, 2]; the bound is two-sided"),
)


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
    fixed_cases=fixed_draw(_cases_step, 203),
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


# ===================================================================== ex2.q3
def _rff_map(X, gamma, G, U):
    """psi(X) with Omega = sqrt(2 gamma) G and b = 2 pi U: the package's fourier_features."""
    return fourier_features(X, math.sqrt(2 * gamma) * np.asarray(G), 2 * math.pi * np.asarray(U))


def _cases_map(rng):
    cases = []
    for n, d, D in [(3, 2, 4), (4, 3, 6), (5, 2, 10)]:
        X = _points(rng, n, d, scale=0.8)
        gamma = float(np.round(rng.uniform(0.3, 3.0), 2))
        G = np.round(rng.standard_normal((D, d)), 4)
        U = np.round(rng.random(D), 4)
        cases.append(Case((X, gamma, G, U), label=f"X of shape {X.shape}, gamma={gamma}, D={D}"))
    return cases


def _map_with(omega_scale, feature_scale, offset_scale=2 * math.pi):
    def mistake(X, gamma, G, U):
        D = len(U)
        Omega = omega_scale(gamma) * np.asarray(G)
        return feature_scale(D) * np.cos(np.asarray(X) @ Omega.T + offset_scale * np.asarray(U))
    return mistake


Q3 = Question(
    id="ex2.q3", title="the random Fourier feature map", function="rff_map", points=4,
    forbidden=(
        "kernelcourse.random_features.fourier_features",
        "kernelcourse.random_features.RandomFourierFeatures",
    ),
    reference=_rff_map, cases=_cases_map, fixed_cases=fixed_draw(_cases_map, 205),
    diagnoses=[
        Diagnosis("variance gamma", "the frequencies have variance 2 gamma, so Omega = sqrt(2 gamma) G; "
                  "with variance gamma the features approximate exp(-gamma ||x - y||^2 / 2)",
                  _map_with(lambda g: math.sqrt(g), lambda D: math.sqrt(2 / D))),
        Diagnosis("no sqrt(2/D)", "each feature carries the factor sqrt(2/D), so that psi(x).psi(y) "
                  "averages the D terms 2 cos() cos()",
                  _map_with(lambda g: math.sqrt(2 * g), lambda D: 1.0)),
        Diagnosis("sqrt(1/D)", "the factor is sqrt(2/D): the 2 of 2 cos() cos() is split between the "
                  "two features", _map_with(lambda g: math.sqrt(2 * g), lambda D: math.sqrt(1 / D))),
        Diagnosis("standard deviation 2 gamma", "2 gamma is the variance of each frequency; the "
                  "standard deviation is sqrt(2 gamma)",
                  _map_with(lambda g: 2 * g, lambda D: math.sqrt(2 / D))),
        Diagnosis("offset in [0, 1)", "the offsets are uniform on [0, 2 pi]: b = 2 pi U",
                  _map_with(lambda g: math.sqrt(2 * g), lambda D: math.sqrt(2 / D), offset_scale=1.0)),
    ],
    kind="formula", section="2.8",
    hints=("turn the standard normal G into frequencies of the stated variance and U into "
           "offsets on the stated range, then apply psi",
           "a normal of variance v is sqrt(v) times a standard normal; the scale of psi makes "
           "psi(x) . psi(y) the average of the D terms 2 cos() cos()"),
)


# ===================================================================== ex2.q4
def _cases_needed(rng):
    cases = []
    for lo, hi in [(0.05, 0.1), (0.1, 0.3), (0.3, 0.6)]:
        a = float(np.round(rng.uniform(lo, hi), 3))
        delta = float(np.round(rng.uniform(0.001, 0.2), 4))
        cases.append(Case((a, delta), label=f"a={a}, delta={delta}"))
    return cases


def _boundary_cases():
    """8 ln(2 / delta) / a^2 just above an integer (118.04, 2951.10: rounding to the nearest
    integer goes down there) and with a fraction above one half (460.52, 470.96)."""
    return [Case((a, delta), label=f"a={a}, delta={delta}")
            for a, delta in [(0.5, 0.05), (0.1, 0.05), (0.2, 0.2), (0.3, 0.01)]]


Q4 = Question(
    id="ex2.q4", title="how many random features", function="features_needed", points=2,
    forbidden=(
        "kernelcourse.random_features.features_needed",
        "kernelcourse.random_features.hoeffding_bound",
    ),
    reference=lambda a, delta: features_needed(a, delta), cases=_cases_needed,
    fixed_cases=fixed_draw(_cases_needed, 206, extra=_boundary_cases),
    diagnoses=[
        Diagnosis("no factor 2", "the bound is 2 exp(-D a^2 / 8) <= delta, so D >= 8 ln(2 / delta) / a^2",
                  lambda a, delta: math.ceil(8 * math.log(1 / delta) / a**2)),
        Diagnosis("range 2", "the terms 2 cos() cos() range over [-2, 2] (width 4), which gives the 8 "
                  "in 8 ln(2 / delta) / a^2", lambda a, delta: math.ceil(2 * math.log(2 / delta) / a**2)),
        Diagnosis("rounded down", "D must be an integer at least 8 ln(2 / delta) / a^2: round up",
                  lambda a, delta: math.floor(8 * math.log(2 / delta) / a**2)),
        Diagnosis("rounded to nearest", "you rounded 8 ln(2 / delta) / a^2 to the nearest integer; "
                  "when its fraction is below one half that D is too small for the bound: round up",
                  lambda a, delta: round(8 * math.log(2 / delta) / a**2)),
        Diagnosis("a not squared", "solve 2 exp(-D a^2 / 8) <= delta: the error level enters squared",
                  lambda a, delta: math.ceil(8 * math.log(2 / delta) / a)),
    ],
    kind="derive", section="2.9",
    hints=("set the bound of the lecture's checkpoint equal to delta and solve for D",
           "D is an integer and the bound must hold, so round in the safe direction"),
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


# ===================================================================== ex2.q6
def _rff_gram(X, Z, gamma, G, U):
    """psi(X) psi(Z)^T with the random Fourier features of question 3."""
    return _rff_map(X, gamma, G, U) @ _rff_map(Z, gamma, G, U).T


def _cases_rff_gram(rng):
    cases = []
    for n_x, n_z, d, D in [(3, 3, 2, 8), (4, 2, 3, 12), (2, 5, 2, 20)]:
        X, Z = _points(rng, n_x, d, scale=0.8), _points(rng, n_z, d, scale=0.8)
        gamma = float(np.round(rng.uniform(0.3, 2.0), 2))
        G = np.round(rng.standard_normal((D, d)), 4)
        U = np.round(rng.random(D), 4)
        cases.append(Case((X, Z, gamma, G, U),
                          label=f"X of shape {X.shape}, Z of shape {Z.shape}, gamma={gamma}, D={D}"))
    return cases


def _gram_with(omega_scale, feature_scale, offset_scale=2 * math.pi):
    psi = _map_with(omega_scale, feature_scale, offset_scale)
    return lambda X, Z, gamma, G, U: psi(X, gamma, G, U) @ psi(Z, gamma, G, U).T


Q6 = Question(
    id="ex2.q6", title="fix the random-feature Gram matrix", function="rff_gram", points=3,
    forbidden=(
        "kernelcourse.random_features.fourier_features",
        "kernelcourse.random_features.RandomFourierFeatures",
    ),
    reference=_rff_gram, cases=_cases_rff_gram, fixed_cases=fixed_draw(_cases_rff_gram, 208),
    diagnoses=[
        Diagnosis("bug kept", "the frequencies must have variance 2 gamma: Omega = sqrt(2 gamma) G. "
                  "With sqrt(gamma) G the features approximate exp(-gamma ||x - y||^2 / 2)",
                  _gram_with(lambda g: math.sqrt(g), lambda D: math.sqrt(2 / D))),
        Diagnosis("standard deviation 2 gamma", "2 gamma is the variance of each frequency; "
                  "multiply G by its square root", _gram_with(lambda g: 2 * g,
                                                              lambda D: math.sqrt(2 / D))),
        Diagnosis("no sqrt(2/D)", "keep the factor sqrt(2/D) of each feature: psi(x) . psi(y) "
                  "averages the D terms 2 cos() cos()",
                  _gram_with(lambda g: math.sqrt(2 * g), lambda D: 1.0)),
        Diagnosis("offset in [0, 1)", "the offsets are uniform on [0, 2 pi]: b = 2 pi U",
                  _gram_with(lambda g: math.sqrt(2 * g), lambda D: math.sqrt(2 / D),
                             offset_scale=1.0)),
        Diagnosis("square root of 2 only", "the square root covers 2 gamma, the whole variance: "
                  "sqrt(2 gamma) G, not sqrt(2) gamma G",
                  _gram_with(lambda g: math.sqrt(2) * g, lambda D: math.sqrt(2 / D))),
        Diagnosis("variance gamma / 2", "you divided gamma by 2; the frequencies need a LARGER "
                  "variance than the given code's gamma, not a smaller one: the features should "
                  "approximate exp(-gamma ||x - y||^2)",
                  _gram_with(lambda g: math.sqrt(g / 2), lambda D: math.sqrt(2 / D))),
    ],
    kind="fix", section="2.8",
    hints=("compare psi(x) . psi(y) from the given code with exp(-gamma ||x - y||^2) for a "
           "large D: which kernel does it approximate instead?",
           "the Fourier transform of exp(-gamma ||delta||^2) is a normal density of variance "
           "2 gamma; check how the code scales G"),
)


# ===================================================================== ex2.q7
def _rff_errors(X, gamma, G, U):
    """The largest |K - psi_D psi_D^T| over the pairs, for every D = 1 .. len(U), where
    psi_D uses the first D draws."""
    X = np.asarray(X, float)
    K = RBF(gamma)(X)
    C = np.cos(X @ (math.sqrt(2 * gamma) * np.asarray(G)).T + 2 * math.pi * np.asarray(U))
    terms = 2 * C[:, None, :] * C[None, :, :]                      # (n, n, D_max)
    D = np.arange(1, len(U) + 1)
    approx = np.cumsum(terms, axis=-1) / D
    return np.abs(approx - K[:, :, None]).max(axis=(0, 1))


def _smallest_D(X, gamma, G, U, target):
    """The smallest D whose first D draws approximate K within target (max over pairs)."""
    ok = np.flatnonzero(_rff_errors(X, gamma, G, U) <= target)
    return int(ok[0] + 1) if ok.size else len(U)


def _cases_choose_D(rng):
    cases = []
    for n, d, target in [(6, 2, 0.3), (8, 3, 0.25), (10, 2, 0.2)]:
        X = _points(rng, n, d, scale=0.5)
        gamma = float(np.round(rng.uniform(0.5, 1.5), 2))
        G = np.round(rng.standard_normal((400, d)), 4)
        U = np.round(rng.random(400), 4)
        cases.append(Case((X, gamma, G, U, target),
                          label=f"n={n}, d={d}, gamma={gamma}, 400 draws, target {target}"))
    return cases


def _meets_target(D, case):
    X, gamma, G, U, target = case.args
    if isinstance(D, (bool, np.bool_)) or not float(D).is_integer():
        return False
    D = int(D)
    if not 1 <= D <= len(U):
        return False
    best = _smallest_D(X, gamma, G, U, target)
    return bool(_rff_errors(X, gamma, G, U)[D - 1] <= target) and D <= 2 * best


def _mistake_hoeffding(X, gamma, G, U, target):
    return int(math.ceil(8 * math.log(2 / 0.05) / target ** 2))


def _mistake_all_draws(X, gamma, G, U, target):
    return len(U)


def _mistake_mean_error(X, gamma, G, U, target):
    X = np.asarray(X, float)
    K = RBF(gamma)(X)
    C = np.cos(X @ (math.sqrt(2 * gamma) * np.asarray(G)).T + 2 * math.pi * np.asarray(U))
    approx = np.cumsum(2 * C[:, None, :] * C[None, :, :], axis=-1) / np.arange(1, len(U) + 1)
    mean = np.abs(approx - K[:, :, None]).mean(axis=(0, 1))
    return int(np.flatnonzero(mean <= target)[0] + 1) if np.any(mean <= target) else 1


Q7 = Question(
    id="ex2.q7", title="choose D for a target error", function="choose_D", points=3,
    forbidden=("kernelcourse.random_features.features_needed",),
    reference=_smallest_D, cases=_cases_choose_D,
    fixed_cases=fixed_draw(_cases_choose_D, 209),
    compare_reference=False,
    properties=[Property("meets the target", _meets_target,
                         "D must be an integer from 1 to len(U) for which the largest error "
                         "|K - psi psi^T| over the pairs is at most the target, using at most "
                         "twice the features of the smallest such D")],
    diagnoses=[
        Diagnosis("Hoeffding's D", "Hoeffding's bound is a worst case for one pair at a time; on "
                  "these points far fewer features meet the target: measure the error for each D",
                  _mistake_hoeffding),
        Diagnosis("all the draws", "all the draws meet the target, but the question asks for few "
                  "features (at most twice the smallest D that works): each feature costs time",
                  _mistake_all_draws),
        Diagnosis("average error", "the target is on the largest error over the pairs, not the "
                  "average one", _mistake_mean_error),
    ],
    kind="parameter", section="2.9",
    hints=("for each candidate D, build psi from the first D draws, compare psi psi^T with the "
           "exact RBF Gram matrix, and keep the largest error over the pairs",
           "the error does not shrink steadily with D; take the first D that meets the target "
           "(a cumulative sum over the draws computes every D at once)"),
)


# ===================================================================== ex2.q8
def _largest_error(D, delta):
    """The a for which 2 exp(-D a^2 / 8) = delta: the error Hoeffding guarantees."""
    return math.sqrt(8 * math.log(2 / delta) / D)


def _cases_error(rng):
    cases = []
    for lo, hi in [(50, 200), (500, 3000), (5000, 50000)]:
        D = int(rng.integers(lo, hi))
        delta = float(np.round(rng.uniform(0.001, 0.2), 4))
        cases.append(Case((D, delta), label=f"D={D}, delta={delta}"))
    return cases


Q8 = Question(
    id="ex2.q8", title="the error D features guarantee", function="guaranteed_error", points=2,
    forbidden=("kernelcourse.random_features.features_needed",
               "kernelcourse.random_features.hoeffding_bound"),
    reference=_largest_error, cases=_cases_error,
    fixed_cases=fixed_draw(_cases_error, 210),
    rtol=1e-3, atol=0.0,
    diagnoses=[
        Diagnosis("one-sided", "the bound on |error| >= a has the factor 2 (both sides): "
                  "2 exp(-D a^2 / 8) = delta", lambda D, delta: math.sqrt(8 * math.log(1 / delta) / D)),
        Diagnosis("range 2", "each term 2 cos() cos() ranges over [-2, 2], a width of 4: the "
                  "exponent is -D a^2 / 8", lambda D, delta: math.sqrt(2 * math.log(2 / delta) / D)),
        Diagnosis("no square root", "the error level enters the bound squared: solve for a, not "
                  "a^2", lambda D, delta: 8 * math.log(2 / delta) / D),
    ],
    kind="predict", section="2.9",
    hints=("set Hoeffding's bound for D features equal to delta and solve for the error level a",
           "take logarithms; the level a appears squared"),
)


# ===================================================================== ex2.q9
Q9 = Question(
    id="ex2.q9", title="Bochner: which frequencies give the RBF kernel?",
    function="rbf_frequencies", points=2,
    **choice_parts("b", {
        "a": "with variance gamma the average of cos(w . delta) is exp(-gamma ||delta||^2 / 2), "
             "half the exponent asked for: compute E[cos(w . delta)] for w ~ N(0, s^2 I) and "
             "match it with the kernel",
        "c": "1 / (2 gamma) is the variance of the kernel itself read as a Gaussian bump; its "
             "Fourier transform is the inverse width: a narrow kernel needs wide frequencies",
        "d": "Bochner's theorem draws w from the kernel's spectral density, here a Gaussian; "
             "frequencies of one fixed length give a different (oscillating) kernel",
    }),
    kind="choice", section="2.11",
    hints=("Bochner: K(x - y) = E[cos(w . (x - y))] for w drawn from the kernel's spectral "
           "density, its Fourier transform; a Gaussian's transform is a Gaussian",
           "E[cos(w . delta)] for w ~ N(0, s^2 I) is exp(-s^2 ||delta||^2 / 2); match it with "
           "exp(-gamma ||delta||^2)"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
