"""Lecture 8's questions: the classic mistakes, written as students write them, earn the same
points in every seed and are named (two seeds in the quick loop, 20 in the full run; every
question's own named mistakes, in every seed, and the reference's full marks in 100 seeds, are
tests/test_grading_verdicts.py's); the fixed cases are where the issue says they must be (a determinant that overflows
with a finite log-determinant, a condition number at which an inverse visibly loses to a solve)."""
import math

import numpy as np
import pytest
from scipy import linalg

from kernelcourse.gaussian_process import GaussianProcessRegressor, posterior_mean_var
from kernelcourse.grading.questions import all_questions
from kernelcourse.kernels import Matern
from kernelcourse.grading.questions.lecture8.posterior import RESIDUAL, _relative_residual
from kernelcourse.ridge import KernelRidge

from verdict_support import grade

QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in ("ex8", "l8")}
SEEDS = range(20)


@pytest.fixture(params=[pytest.param((0, 1), id="quick"),
                        pytest.param(SEEDS, id="seeds", marks=pytest.mark.slow)])
def seeds(request):
    """Two seeds in the quick loop, all of SEEDS in the full run."""
    return request.param


def _grade(qid, answer, seeds):
    """The points and the diagnosis name of an answer in every seed (asserting both are the same)."""
    results = [grade(qid, answer, seed) for seed in seeds]
    points = {round(r.points, 9) for r in results}
    named = {r.diagnosis.name if r.diagnosis else None for r in results}
    assert len(points) == 1 and len(named) == 1, (qid, points, named)
    return points.pop(), named.pop()


def test_ex8_has_eight_questions_four_of_kinds_that_need_understanding():
    ex8 = [q for q in QUESTIONS.values() if q.set_name == "ex8"]
    assert len(ex8) >= 8
    assert sum(q.kind in ("predict", "witness", "fix", "parameter", "choice") for q in ex8) >= 4
    assert {q.section.split("-")[0] for q in ex8} >= {"8.1", "8.2", "8.3", "8.5", "8.7"}
    assert all(q.fixed_cases is not None and q.make_fixed_cases() for q in QUESTIONS.values())


# --------------------------------------------------------------------- the mistakes
def test_standard_deviation_for_variance(seeds):
    def band(K, y, noise, K_new, k_new_diag, level, target):
        L = np.linalg.cholesky(K + noise * np.eye(len(K)))
        alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
        v = np.linalg.solve(L, K_new.T)
        var = k_new_diag - (v ** 2).sum(0) + (noise if target == "y" else 0)
        from scipy.stats import norm
        z = norm.ppf(0.5 + level / 2)
        return K_new @ alpha - z * var, K_new @ alpha + z * var        # var where std belongs
    assert _grade("ex8.q2", band, seeds) == (0.0, "variance for standard deviation")

    def duplicate(signal_variance, noise, y1, y2):
        c, s2 = signal_variance, noise
        var = c * s2 / (2 * c + s2)
        return c * (y1 + y2) / (2 * c + s2), var ** 0.5
    assert _grade("ex8.q4", duplicate, seeds) == (0.0, "std for variance")


def test_sigma_squared_added_when_predicting_f(seeds):
    def band(K, y, noise, K_new, k_new_diag, level, target):
        mean, var = posterior_mean_var(K, y, noise, K_new, k_new_diag)
        std = np.sqrt(var + noise)                                     # the noise, also for f
        from scipy.stats import norm
        z = norm.ppf((1 + level) / 2)
        return mean - z * std, mean + z * std
    # right on the two fixed cases for y, wrong on the two for f
    assert _grade("ex8.q2", band, seeds) == (1.5, "noise added for f")

    def duplicate(signal_variance, noise, y1, y2):
        c, s2 = signal_variance, noise
        return c * (y1 + y2) / (2 * c + s2), c * s2 / (2 * c + s2) + s2
    assert _grade("ex8.q4", duplicate, seeds) == (0.0, "noise added")


def test_log_det_that_overflows(seeds):
    def log_det(K, noise):
        return np.log(np.linalg.det(K + noise * np.eye(K.shape[0])))
    # right on the small fixed case only: the other two overflow to inf and underflow to 0
    assert _grade("ex8.q6", log_det, seeds) == (1.0, "log(det) overflows")
    q = QUESTIONS["ex8.q6"]
    big, tiny = q.make_fixed_cases()[1:]
    with np.errstate(all="ignore"):
        assert np.linalg.det(big.args[0] + big.args[1] * np.eye(len(big.args[0]))) == np.inf
        assert np.linalg.det(tiny.args[0] + tiny.args[1] * np.eye(len(tiny.args[0]))) == 0.0
    for case in (big, tiny):
        value = q.reference(*case.args)
        sign, slogdet = np.linalg.slogdet(case.args[0] + case.args[1] * np.eye(len(case.args[0])))
        assert math.isfinite(value) and sign == 1 and value == pytest.approx(slogdet, rel=1e-10)


def test_explicit_inverse_instead_of_a_solve(seeds):
    def gp_weights(K, y, noise):
        A_inv = np.linalg.inv(K + noise * np.eye(len(K)))
        return A_inv.dot(y)
    # passes the two noisy fixed cases, fails the two at condition number 1e12 and 1e13
    assert _grade("ex8.q3", gp_weights, seeds) == (1.5, "explicit inverse")
    # the separation is wide on both sides: a solve through a factor (the reference), LU and
    # an eigendecomposition stay 100 times below the bar, the inverse 100 times above it
    q = QUESTIONS["ex8.q3"]
    for case in [c for seed in (0, 1, 2) for c in q.make_cases(seed) if c.args[2] < 1e-9]:
        K, y, noise = case.args
        A = K + noise * np.eye(len(K))
        w, V = np.linalg.eigh(A)
        assert np.linalg.cond(A) > 1e11
        for honest in (q.reference(*case.args), np.linalg.solve(A, y), linalg.solve(A, y, assume_a="pos"),
                       V @ ((V.T @ y) / w)):
            assert _relative_residual(honest, case) < RESIDUAL / 100
        for inverse in (np.linalg.inv(A) @ y, linalg.inv(A) @ y):
            assert _relative_residual(inverse, case) > 100 * RESIDUAL


def test_length_scale_used_as_gamma(seeds):
    def length_scale_for_correlation(distance, correlation, signal_variance):
        return -np.log(correlation) / distance ** 2         # exp(-l d^2) = rho solved for l
    assert _grade("ex8.q1", length_scale_for_correlation, seeds) == (0.0, "length-scale used as gamma")
    # the reference meets its target: Matern(l, inf) at that distance is the correlation
    q = QUESTIONS["ex8.q1"]
    for case in q.make_cases(0):
        d, rho, c = case.args
        l = q.reference(*case.args)
        k = c * Matern(l, math.inf)
        cov = k(np.array([[0.0], [d]]))
        assert cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1]) == pytest.approx(rho, rel=1e-12)


@pytest.mark.parametrize("wrong, points, name", [
    (lambda c, sd, n: sd / c, 0.0, "lambda = sigma"),
    (lambda c, sd, n: n * sd ** 2 / c, 0.0, "lambda = n sigma^2"),
    (lambda c, sd, n: sd ** 2, 2 / 3, "signal variance forgotten"),   # right when c = 1
])
def test_the_posterior_mean_is_kernel_ridge_with_lambda_sigma_squared(wrong, points, name, seeds):
    points_got, named = _grade("ex8.q5", lambda signal_variance, noise_std, n_samples:
                               wrong(signal_variance, noise_std, n_samples), seeds)
    assert (round(points_got, 6), named) == (round(points, 6), name)
    # the reference against the course's KernelRidge and GP, fitted
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (15, 1))
    y = np.sin(X[:, 0]) + 0.3 * rng.standard_normal(15)
    X_new = np.linspace(-4, 4, 9)[:, None]
    q = QUESTIONS["ex8.q5"]
    for c, sd in ((4.0, 0.5), (0.25, 0.3)):
        gp_mean = GaussianProcessRegressor(c * Matern(1.0, 2.5), noise=sd ** 2, optimizer=None).fit(X, y).predict(X_new)
        ridge = KernelRidge(Matern(1.0, 2.5), lam=q.reference(c, sd, 15)).fit(X, y).predict(X_new)
        assert np.allclose(gp_mean, ridge, atol=1e-10)


def test_more_wrong_answers_as_students_write_them(seeds):
    def probability(mean, var):
        return 1 / (1 + np.exp(-mean))                      # sigma of the mean
    assert _grade("ex8.q7", probability, seeds) == (0.0, "plug-in")

    def duplicate(signal_variance, noise, y1, y2):
        ybar = (y1 + y2) / 2
        return signal_variance * ybar / (signal_variance + noise), \
            signal_variance * noise / (signal_variance + noise)
    assert _grade("ex8.q4", duplicate, seeds) == (0.0, "one observation")

    def gp_weights(K, y, noise):
        return np.linalg.solve(K + noise, y)                 # noise on every entry
    assert _grade("ex8.q3", gp_weights, seeds)[1] == "noise on every entry"

    def log_det(K, noise):
        L = np.linalg.cholesky(K + noise * np.eye(len(K)))
        return np.log(np.diag(L)).sum()
    assert _grade("ex8.q6", log_det, seeds) == (0.0, "half the log-determinant")


def test_honest_answers_by_other_routes_earn_full_marks(seeds):
    """Other right methods than the reference's pass every case in every seed: an adaptive
    quadrature for the probability, slogdet (LU) for the log-determinant, an LU solve and an
    eigendecomposition for the weights."""
    from scipy import integrate, stats
    from scipy.special import expit

    def predictive_probability(mean, var):
        return np.array([expit(m) if v == 0 else integrate.quad(
            lambda z: expit(z) * stats.norm.pdf(z, m, math.sqrt(v)), -np.inf, np.inf,
            epsabs=1e-13, epsrel=1e-12)[0] for m, v in zip(mean, var)])

    def log_det(K, noise):
        return np.linalg.slogdet(K + noise * np.eye(len(K)))[1]

    def gp_weights_lu(K, y, noise):
        return np.linalg.solve(K + noise * np.eye(len(K)), y)

    def gp_weights_eigh(K, y, noise):
        w, V = np.linalg.eigh(K + noise * np.eye(len(K)))
        return V @ ((V.T @ y) / w)

    for qid, answer in (("ex8.q7", predictive_probability), ("ex8.q6", log_det),
                        ("ex8.q3", gp_weights_lu), ("ex8.q3", gp_weights_eigh)):
        assert _grade(qid, answer, seeds) == (QUESTIONS[qid].points, None), qid
