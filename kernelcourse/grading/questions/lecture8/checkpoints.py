"""Lecture 8's checkpoints ``l8.cp1`` and ``l8.cp2`` (in the lecture notebook).

The answers work on plain arrays: a Gram matrix ``K`` of the training inputs, the rows
``K_new[p, i] = k(x*_p, x_i)`` of new points, their prior variances ``k_new_diag``, targets
``y`` and the noise variance ``noise = sigma^2``. The classic mistakes have their diagnoses:
the noise added to the variance of ``f``, a standard deviation returned for a variance, the
noise left out of the factor, ``log(det(...))`` overflowing, and the half of the log-determinant
forgotten.

============  ======================  ====  ==========  ================================================
id            function                pts   kind        syllabus
============  ======================  ====  ==========  ================================================
l8.cp1        posterior_variance      2     derive      8.2 the variance of f(x*) by Algorithm 2.1
l8.cp2        log_evidence            2     derive      8.5 log p(y | X) from the Cholesky factor
============  ======================  ====  ==========  ================================================
"""
from __future__ import annotations

import math

import numpy as np

from ....gaussian_process import log_marginal_likelihood, posterior_mean_var
from ....kernels import RBF, Matern
from ...model import Case, Diagnosis, Question


def _points(rng, n, m, scale=1.0):
    X = np.sort(np.round(rng.uniform(-3, 3, n), 3))[:, None]
    X_new = np.round(rng.uniform(-4, 4, m), 3)[:, None]
    k = scale * Matern(float(np.round(rng.uniform(0.5, 1.5), 2)), 2.5)
    return X, X_new, k


# ===================================================================== l8.cp1
def _variance_case(X, X_new, k, noise, label):
    return Case((k(X), noise, k(X_new, X), k.diag(X_new)), label=label)


def _fixed_variance():
    rng = np.random.default_rng(80)
    X, X_new, k = _points(rng, 8, 5)
    # noise 0.5: adding it, or leaving it out of the factor, moves every variance by more than 0.1;
    # the variances lie well inside (0, 1), where a square root differs from the number
    cases = [_variance_case(X, X_new, k, 0.5, "8 points, noise 0.5")]
    X, X_new, k = _points(rng, 12, 6, scale=2.5)
    cases.append(_variance_case(X, X_new, k, 0.2, "12 points, signal variance 2.5, noise 0.2"))
    return cases


def _cases_variance(rng):
    cases = []
    for n, m in ((6, 4), (10, 5), (15, 7)):
        X, X_new, k = _points(rng, n, m, scale=float(np.round(rng.uniform(0.5, 3.0), 2)))
        noise = float(np.round(rng.uniform(0.05, 0.8), 3))
        cases.append(_variance_case(X, X_new, k, noise, f"{n} points, noise {noise}"))
    return cases


def _reference_variance(K, noise, K_new, k_new_diag):
    return posterior_mean_var(K, np.zeros(len(K)), noise, K_new, k_new_diag)[1]


def _variance_plus_noise(K, noise, K_new, k_new_diag):
    return _reference_variance(K, noise, K_new, k_new_diag) + noise


def _variance_std(K, noise, K_new, k_new_diag):
    return np.sqrt(_reference_variance(K, noise, K_new, k_new_diag))


def _variance_no_noise(K, noise, K_new, k_new_diag):
    A = K + 1e-10 * np.eye(len(K))
    L = np.linalg.cholesky(A)
    v = np.linalg.solve(L, K_new.T)
    return k_new_diag - np.sum(v ** 2, axis=0)


CP1 = Question(
    id="l8.cp1", title="the posterior variance of f", function="posterior_variance", points=2, kind="derive",
    section="8.2", reference=_reference_variance, cases=_cases_variance, fixed_cases=_fixed_variance,
    forbidden=("kernelcourse.gaussian_process.posterior_mean_var", "kernelcourse.gaussian_process.posterior_cov",
               "kernelcourse.gaussian_process.GaussianProcessRegressor"),
    diagnoses=[
        Diagnosis("noise added", "the variance of f(x*) has no sigma^2 term: the noise belongs to y*, "
                  "not to f (add it only for the predictive distribution of y)", _variance_plus_noise),
        Diagnosis("std for variance", "you returned the standard deviation (a square root); the question "
                  "asks for the variance", _variance_std),
        Diagnosis("noise left out", "the factor is that of K + sigma^2 I: the noise enters before the "
                  "solve, not only after", _variance_no_noise),
    ],
    hints=("Algorithm 2.1: one Cholesky factor, then one triangular solve for all new points at once",
           "the prior variance minus what the data explain: the squared norm of each column of "
           "L \\ K_new^T, with L the factor of the noisy Gram matrix"),
)


# ===================================================================== l8.cp2
def _evidence_case(X, y, k, noise, label):
    return Case((k(X), y, noise), label=label)


def _fixed_evidence():
    rng = np.random.default_rng(81)
    X, _, k = _points(rng, 10, 1)
    y = np.round(np.sin(X[:, 0]) + 0.3 * rng.standard_normal(10), 3)
    cases = [_evidence_case(X, y, k, 0.3, "10 points, noise 0.3")]
    # 120 points with a signal variance of 1e7: det(K + sigma^2 I) ~ 1e840 overflows a float
    X = np.linspace(-120, 120, 120)[:, None]
    y = np.round(3000 * np.sin(X[:, 0] / 3) + rng.standard_normal(120), 3)
    cases.append(_evidence_case(X, y, 1e7 * RBF(0.5), 1.0, "120 points, signal variance 1e7"))
    # four points far apart: K is nearly 2 I, so K - sigma^2 I is positive definite as well, and
    # a sign slip on the noise gives a number, not an error
    X = np.array([[-4.5], [-1.0], [2.5], [6.0]])
    cases.append(_evidence_case(X, np.array([1.2, -0.7, 0.4, 2.1]), 2.0 * Matern(0.6, 2.5), 0.3,
                                "4 points far apart, noise 0.3"))
    return cases


def _cases_evidence(rng):
    cases = []
    for n in (5, 9, 14):
        X, _, k = _points(rng, n, 1, scale=float(np.round(rng.uniform(0.5, 2.0), 2)))
        y = np.round(np.cos(X[:, 0]) + 0.2 * rng.standard_normal(n), 3)
        noise = float(np.round(rng.uniform(0.05, 0.5), 3))
        cases.append(_evidence_case(X, y, k, noise, f"{n} points, noise {noise}"))
    return cases


def _reference_evidence(K, y, noise):
    return log_marginal_likelihood(K, y, noise)


def _evidence_det(K, y, noise):
    A = K + noise * np.eye(len(K))
    with np.errstate(all="ignore"):
        return float(-0.5 * y @ np.linalg.solve(A, y) - 0.5 * np.log(np.linalg.det(A))
                     - 0.5 * len(y) * math.log(2 * math.pi))


def _evidence_full_logdet(K, y, noise):
    L = np.linalg.cholesky(K + noise * np.eye(len(K)))
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return float(-0.5 * y @ alpha - 2 * np.sum(np.log(np.diag(L))) - 0.5 * len(y) * math.log(2 * math.pi))


def _evidence_no_noise(K, y, noise):
    L = np.linalg.cholesky(K + 1e-10 * np.eye(len(K)))
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return float(-0.5 * y @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * len(y) * math.log(2 * math.pi))


CP2 = Question(
    id="l8.cp2", title="the log marginal likelihood", function="log_evidence", points=2, kind="derive",
    section="8.5", reference=_reference_evidence, cases=_cases_evidence, fixed_cases=_fixed_evidence,
    rtol=1e-8, atol=1e-8,
    forbidden=("kernelcourse.gaussian_process.log_marginal_likelihood",
               "kernelcourse.gaussian_process.log_marginal_likelihood_gradient",
               "kernelcourse.gaussian_process.marginal_likelihood",
               "kernelcourse.gaussian_process.GaussianProcessRegressor",
               "kernelcourse.gaussian_process.low_rank_log_marginal_likelihood"),
    diagnoses=[
        Diagnosis("log(det) overflows", "det(K + sigma^2 I) overflows (or underflows) for a few hundred "
                  "points; half its log is sum_i log L_ii of the Cholesky factor, which never forms it",
                  _evidence_det),
        Diagnosis("whole log-determinant", "the density has -1/2 log det(K + sigma^2 I), which is "
                  "-sum_i log L_ii: you subtracted twice that", _evidence_full_logdet),
        Diagnosis("noise left out", "y has covariance K + sigma^2 I, not K: the noise enters the factor",
                  _evidence_no_noise),
    ],
    hints=("the log of a normal density at y, with covariance K + sigma^2 I; the factor gives both the "
           "solve and the determinant",
           "a data-fit term, a complexity term from the diagonal of the factor, and a constant in n"),
)

QUESTIONS = [CP1, CP2]
