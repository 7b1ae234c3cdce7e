"""Exercise set 8, choosing and approximating (8.5, 8.7, 8.8): the gradient of the evidence in a
kernel parameter, one Newton step of the Laplace approximation, and the predictive variance of
inducing points repaired (DTC).

The references are written out with numpy and scipy, each line a step of the lecture's formula,
so that the fixed cases below are a test suite for them: each fixed case is chosen where one of
the named mistakes (and the small slips of the same formula) give another number.
"""
from __future__ import annotations

import numpy as np

from ...._lazy import LazyModule
from ....kernels import Matern
from ...model import Case, Diagnosis, Question
from ._common import GP, POSTERIOR, inputs, rough_kernel, smooth_kernel

linalg = LazyModule("scipy.linalg")  # imported at its first use, not at set 8's first check


# ===================================================================== ex8.q9
def _reference_gradient(K, dK, y, noise):
    n = len(y)
    L = linalg.cholesky(K + noise * np.eye(n), lower=True)
    alpha = linalg.cho_solve((L, True), y)
    K_inv = linalg.cho_solve((L, True), np.eye(n))
    return float(0.5 * np.sum((np.outer(alpha, alpha) - K_inv) * dK.T))


def _gradient_sign(K, dK, y, noise):
    return -_reference_gradient(K, dK, y, noise)


def _gradient_no_half(K, dK, y, noise):
    return 2.0 * _reference_gradient(K, dK, y, noise)


def _gradient_fit_only(K, dK, y, noise):
    alpha = np.linalg.solve(K + noise * np.eye(len(y)), y)
    return float(0.5 * alpha @ dK @ alpha)


def _gradient_complexity_only(K, dK, y, noise):
    return float(-0.5 * np.trace(np.linalg.solve(K + noise * np.eye(len(y)), dK)))


def _gradient_no_noise(K, dK, y, noise):
    return _reference_gradient(K, dK, y, 1e-9 * np.trace(K) / len(y))


def _gradient_case(rng, n, noise, scale, label):
    X = inputs(rng, n)
    ell = float(np.round(rng.uniform(0.6, 1.4), 2))
    K, dK = (scale * Matern(ell, 2.5)).gram_gradient(X)
    # the derivative in log length_scale (the kernel's second parameter after log c)
    y = np.round(np.sin(1.3 * X[:, 0]) + 0.3 * rng.standard_normal(n), 3)
    return Case((K, dK[:, :, 1], y, noise), label=label)


def _fixed_gradient():
    rng = np.random.default_rng(809)
    return [_gradient_case(rng, 8, 0.3, 1.5, "8 points, signal variance 1.5, noise 0.3, d/d log length_scale"),
            _gradient_case(rng, 14, 0.05, 0.7, "14 points, signal variance 0.7, noise 0.05, d/d log length_scale")]


def _cases_gradient(rng):
    return [_gradient_case(rng, int(rng.integers(6, 16)), float(np.round(rng.uniform(0.05, 0.5), 3)),
                           float(np.round(rng.uniform(0.5, 2.0), 2)), "drawn inputs, d/d log length_scale")
            for _ in range(2)]


Q9 = Question(
    id="ex8.q9", title="the gradient of the evidence", function="evidence_gradient", points=3, kind="derive",
    section="8.5", reference=_reference_gradient, cases=_cases_gradient, fixed_cases=_fixed_gradient,
    rtol=1e-7, atol=1e-9,
    forbidden=POSTERIOR + (GP + "log_marginal_likelihood", GP + "log_marginal_likelihood_gradient",
                           GP + "marginal_likelihood", GP + "maximise_marginal_likelihood",
                           GP + "evidence_terms"),
    diagnoses=[
        Diagnosis("sign reversed", "the data-fit part alpha alpha^T enters with a plus and the inverse "
                  "with a minus: the gradient of log p points uphill", _gradient_sign),
        Diagnosis("the 1/2 left out", "log p has -1/2 y^T K_y^-1 y and -1/2 log|K_y|: each derivative "
                  "keeps its 1/2", _gradient_no_half),
        Diagnosis("data fit only", "the derivative of -1/2 log|K_y| is -1/2 tr(K_y^-1 dK): the "
                  "complexity term moves with the parameter too", _gradient_fit_only),
        Diagnosis("complexity only", "the derivative of -1/2 y^T K_y^-1 y is +1/2 alpha^T dK alpha: the "
                  "data-fit term moves with the parameter too", _gradient_complexity_only),
        Diagnosis("noise left out", "K_y = K + sigma^2 I: alpha and the inverse are those of K_y, not of K",
                  _gradient_no_noise),
    ],
    hints=("differentiate y^T A^-1 y and log det A in a parameter of A: d(A^-1) = -A^-1 dA A^-1 and "
           "d log det A = tr(A^-1 dA)",
           "the noise is a constant here: dK_y = dK"),
)


# ===================================================================== ex8.q10
def _sigmoid(f):
    return 1.0 / (1.0 + np.exp(-f))


def _reference_newton(K, y, f):
    t = (np.asarray(y, float) + 1.0) / 2.0
    pi = _sigmoid(f)
    W = pi * (1.0 - pi)
    b = W * f + (t - pi)
    # (K^-1 + W)^-1 b = K (I + W K)^-1 b
    return K @ np.linalg.solve(np.eye(len(f)) + W[:, None] * K, b)


def _newton_labels(K, y, f):
    pi = _sigmoid(f)
    W = pi * (1.0 - pi)
    return K @ np.linalg.solve(np.eye(len(f)) + W[:, None] * K, W * f + (np.asarray(y, float) - pi))


def _newton_fixed_point(K, y, f):
    return K @ ((np.asarray(y, float) + 1.0) / 2.0 - _sigmoid(f))


def _newton_no_Wf(K, y, f):
    t = (np.asarray(y, float) + 1.0) / 2.0
    pi = _sigmoid(f)
    W = pi * (1.0 - pi)
    return K @ np.linalg.solve(np.eye(len(f)) + W[:, None] * K, t - pi)


def _newton_increment(K, y, f):
    return _reference_newton(K, y, f) - f


def _newton_case(rng, n, scale, label, f=None):
    X = inputs(rng, n)
    K = rough_kernel(rng, scale)(X)
    y = np.where(np.sin(1.7 * X[:, 0]) + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    if f is None:
        f = np.round(rng.normal(0.0, 1.0, n), 2)
    return Case((K, y, f), label=label)


def _fixed_newton():
    rng = np.random.default_rng(810)
    return [_newton_case(rng, 6, 2.0, "6 points, from f = 0", f=np.zeros(6)),
            _newton_case(rng, 9, 1.2, "9 points, from a latent f of both signs")]


def _cases_newton(rng):
    return [_newton_case(rng, int(rng.integers(5, 13)), float(np.round(rng.uniform(0.8, 3.0), 2)),
                         "drawn points and latent f") for _ in range(2)]


Q10 = Question(
    id="ex8.q10", title="one Newton step of the Laplace approximation", function="newton_step", points=3,
    kind="derive", section="8.7", reference=_reference_newton, cases=_cases_newton, fixed_cases=_fixed_newton,
    rtol=1e-8, atol=1e-10,
    forbidden=(GP + "laplace_newton_step", GP + "laplace_mode", GP + "laplace_gradient",
               GP + "GaussianProcessClassifier", GP + "laplace_latent"),
    diagnoses=[
        Diagnosis("labels for targets", "the logistic gradient is t - pi with t = (y + 1) / 2 in {0, 1}: "
                  "the labels are -1 and +1", _newton_labels),
        Diagnosis("the mode condition as an update", "f = K grad log p(y|f) holds at the mode, but "
                  "iterating it is not Newton's method: the step divides by the curvature K^-1 + W",
                  _newton_fixed_point),
        Diagnosis("W f left out", "Newton's step is f - H^-1 grad Psi; with H = -(K^-1 + W) it becomes "
                  "(K^-1 + W)^-1 (W f + grad log p): the W f term stays", _newton_no_Wf),
        Diagnosis("the increment, not the new f", "the question asks for the new latent values, the "
                  "current f plus the step", _newton_increment),
    ],
    hints=("Psi(f) = log p(y|f) - 1/2 f^T K^-1 f: write its gradient and its Hessian, then Newton's "
           "update f - H^-1 grad Psi, and simplify until K^-1 f cancels",
           "W is the diagonal of -d^2 log p(y|f) / df^2 for the logistic likelihood; avoid inverting K "
           "with (K^-1 + W)^-1 = K (I + W K)^-1"),
)


# ===================================================================== ex8.q11
def _reference_dtc(K_mm, K_mn, K_new_m, k_new_diag, noise):
    s, U = np.linalg.eigh(K_mm)
    R = U / np.sqrt(s)                       # K_mm^-1/2 = R U^T, applied on the right
    Phi = K_mn.T @ R                         # features of the training points, n x m
    Phi_new = K_new_m @ R                    # features of the new points
    A = Phi.T @ Phi + noise * np.eye(len(s))
    sor = noise * np.sum(Phi_new * np.linalg.solve(A, Phi_new.T).T, axis=1)
    return sor + k_new_diag - np.sum(Phi_new ** 2, axis=1)


def _dtc_sor(K_mm, K_mn, K_new_m, k_new_diag, noise):
    s, U = np.linalg.eigh(K_mm)
    R = U / np.sqrt(s)
    Phi, Phi_new = K_mn.T @ R, K_new_m @ R
    A = Phi.T @ Phi + noise * np.eye(len(s))
    return noise * np.sum(Phi_new * np.linalg.solve(A, Phi_new.T).T, axis=1)


def _dtc_prior_added(K_mm, K_mn, K_new_m, k_new_diag, noise):
    return _dtc_sor(K_mm, K_mn, K_new_m, k_new_diag, noise) + k_new_diag


def _dtc_of_y(K_mm, K_mn, K_new_m, k_new_diag, noise):
    return _reference_dtc(K_mm, K_mn, K_new_m, k_new_diag, noise) + noise


def _dtc_std(K_mm, K_mn, K_new_m, k_new_diag, noise):
    return np.sqrt(_reference_dtc(K_mm, K_mn, K_new_m, k_new_diag, noise))


def _dtc_case(rng, n, m, noise, label):
    X = inputs(rng, n, -3.0, 3.0)
    Z = np.linspace(-2.0, 2.0, m)[:, None]
    X_new = np.array([[-4.5], [-2.2], [0.3], [1.1], [3.6], [6.0]])
    k = smooth_kernel(rng)
    return Case((k(Z), k(Z, X), k(X_new, Z), k.diag(X_new), noise), label=label)


def _fixed_dtc():
    rng = np.random.default_rng(811)
    return [_dtc_case(rng, 40, 4, 0.2, "40 points, 4 inducing points on [-2, 2], new points to x = 6"),
            _dtc_case(rng, 60, 6, 0.05, "60 points, 6 inducing points, noise 0.05")]


def _cases_dtc(rng):
    return [_dtc_case(rng, int(rng.integers(20, 60)), int(rng.integers(3, 7)),
                      float(np.round(rng.uniform(0.05, 0.4), 3)), "drawn points and noise") for _ in range(2)]


Q11 = Question(
    id="ex8.q11", title="repair the inducing-point variance", function="inducing_variance", points=3, kind="fix",
    section="8.8", reference=_reference_dtc, cases=_cases_dtc, fixed_cases=_fixed_dtc, rtol=1e-7, atol=1e-9,
    forbidden=POSTERIOR + (GP + "low_rank_log_marginal_likelihood",),
    diagnoses=[
        Diagnosis("the subset of regressors (the given code)", "this is the low-rank model's own variance: it "
                  "falls to 0 where the features k_m(x) vanish, far from the inducing points, while the "
                  "exact GP's returns to k(x, x)", _dtc_sor),
        Diagnosis("k(x, x) added whole", "the features already carry q(x, x) = phi(x)^T phi(x) of the prior "
                  "variance: only the part they miss, k(x, x) - q(x, x), is added back", _dtc_prior_added),
        Diagnosis("the variance of y", "the question asks for the variance of f(x*); sigma^2 belongs to a new "
                  "observation y*", _dtc_of_y),
        Diagnosis("standard deviation for variance", "return the variance, not its square root", _dtc_std),
    ],
    hints=("compare the prior variance of the low-rank model at x, phi(x)^T phi(x), with the kernel's "
           "k(x, x): which one goes to 0 far from the inducing points?",
           "the repair adds what the features miss and changes nothing at the inducing points"),
)

QUESTIONS = [Q9, Q10, Q11]
