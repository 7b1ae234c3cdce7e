"""Exercise set 8, the prior and the posterior (8.1-8.3): a length-scale for a correlation, the
predictive band of f and of y, the weights of Algorithm 2.1 without an inverse, a repeated
input, and the ridge parameter of the posterior mean."""
from __future__ import annotations

import math

import numpy as np

from ...._lazy import lazy_function
from ....gaussian_process import gp_factor, posterior_mean_var
from ...model import Case, Diagnosis, Property, Question
from ._common import GP, POSTERIOR, inputs, rough_kernel, smooth_kernel

# the standard normal quantile (scipy.stats.norm.ppf's own), imported at its first call, not at
# set 8's first check
ndtri = lazy_function("scipy.special", "ndtri")


# ===================================================================== ex8.q1
def _reference_length_scale(distance, correlation, signal_variance):
    return float(distance / math.sqrt(-2.0 * math.log(correlation)))


def _length_as_gamma(distance, correlation, signal_variance):
    return float(-math.log(correlation) / distance ** 2)


def _length_no_two(distance, correlation, signal_variance):
    return float(distance / math.sqrt(-math.log(correlation)))


def _length_covariance(distance, correlation, signal_variance):
    return float(distance / math.sqrt(-2.0 * math.log(correlation / signal_variance)))


def _length_not_squared(distance, correlation, signal_variance):
    return float(math.sqrt(distance / (-2.0 * math.log(correlation))))


def _cases_length(rng):
    cases = []
    while len(cases) < 3:
        d = float(np.round(rng.uniform(0.3, 4.0), 2))
        rho = float(np.round(rng.uniform(0.05, 0.95), 2))
        c = float(np.round(rng.uniform(1.5, 4.0), 2))
        if abs(d - 1.0) > 0.1:            # at d = 1 a distance not squared goes unseen
            cases.append(Case((d, rho, c), label=f"distance {d}, correlation {rho}, signal variance {c}"))
    return cases


Q1 = Question(
    id="ex8.q1", title="the length-scale for a correlation", function="length_scale_for_correlation",
    points=2, kind="parameter", section="8.1", reference=_reference_length_scale, cases=_cases_length,
    fixed_cases=lambda: [Case((1.5, 0.6, 2.0), label="distance 1.5, correlation 0.6, signal variance 2"),
                         Case((0.4, 0.9, 3.0), label="distance 0.4, correlation 0.9, signal variance 3"),
                         Case((3.0, 0.1, 1.5), label="distance 3, correlation 0.1, signal variance 1.5")],
    rtol=1e-9, atol=1e-12, forbidden=("kernelcourse.kernels.gamma_from_sigma",),
    diagnoses=[
        Diagnosis("length-scale used as gamma", "this solves exp(-l d^2) = rho, the course's RBF(gamma) "
                  "form with l in gamma's place; the length-scale divides: exp(-d^2 / (2 l^2))",
                  _length_as_gamma),
        Diagnosis("the factor 2", "Matern(l, inf) is exp(-d^2 / (2 l^2)): the 2 in the denominator "
                  "belongs to the length-scale form", _length_no_two),
        Diagnosis("correlation as covariance", "the correlation of f(x) and f(x') is the covariance "
                  "divided by the variance: the signal variance cancels", _length_covariance),
        Diagnosis("distance not squared", "the kernel decays with the squared distance d^2, not d",
                  _length_not_squared),
    ],
    hints=("under the prior c * k, Cov(f(x), f(x')) = c k(x, x') and Var f(x) = c: what is the "
           "correlation?", "set the unit-variance kernel at distance d equal to rho and solve for l"),
)


# ===================================================================== ex8.q2
def _reference_band(K, y, noise, K_new, k_new_diag, level, target):
    mean, var = posterior_mean_var(K, y, noise, K_new, k_new_diag)
    if target == "y":
        var = var + noise
    z = float(ndtri(0.5 + level / 2.0))
    return mean - z * np.sqrt(var), mean + z * np.sqrt(var)


def _band_from(K, y, noise, K_new, k_new_diag, level, spread):
    mean, var = posterior_mean_var(K, y, noise, K_new, k_new_diag)
    return mean - spread(var), mean + spread(var)


def _band_variance(K, y, noise, K_new, k_new_diag, level, target):
    z = float(ndtri(0.5 + level / 2.0))
    extra = noise if target == "y" else 0.0
    return _band_from(K, y, noise, K_new, k_new_diag, level, lambda v: z * (v + extra))


def _band_noise_on_f(K, y, noise, K_new, k_new_diag, level, target):
    return _reference_band(K, y, noise, K_new, k_new_diag, level, "y")


def _band_no_noise_on_y(K, y, noise, K_new, k_new_diag, level, target):
    return _reference_band(K, y, noise, K_new, k_new_diag, level, "f")


def _band_one_sided(K, y, noise, K_new, k_new_diag, level, target):
    z = float(ndtri(level))
    extra = noise if target == "y" else 0.0
    return _band_from(K, y, noise, K_new, k_new_diag, level, lambda v: z * np.sqrt(v + extra))


def _band_case(rng, n, m, scale, noise, level, target):
    X = inputs(rng, n)
    # new points inside the data and beyond it, so the variances spread over (0, scale)
    X_new = np.round(np.concatenate([rng.uniform(-3, 3, m - 2), rng.choice([-1, 1], 2) * rng.uniform(4, 6, 2)]),
                     3)[:, None]
    k = smooth_kernel(rng, scale)
    y = np.round(np.sin(X[:, 0]) + math.sqrt(noise) * rng.standard_normal(n), 3)
    return Case((k(X), y, noise, k(X_new, X), k.diag(X_new), level, target),
                label=f"{n} points, noise {noise}, level {level}, target {target!r}")


def _fixed_band():
    rng = np.random.default_rng(801)
    return [_band_case(rng, 8, 6, 2.5, 0.5, 0.95, "f"), _band_case(rng, 10, 6, 2.5, 0.3, 0.9, "y"),
            _band_case(rng, 6, 5, 0.5, 0.2, 0.8, "f"), _band_case(rng, 7, 5, 1.8, 0.4, 0.95, "y")]


def _cases_band(rng):
    return [_band_case(rng, int(rng.integers(5, 12)), 5, float(np.round(rng.uniform(1.5, 3.0), 2)),
                       float(np.round(rng.uniform(0.2, 0.6), 2)), float(rng.choice([0.8, 0.9, 0.95])), target)
            for target in ("f", "y")]


Q2 = Question(
    id="ex8.q2", title="the predictive band of f and of y", function="predictive_band", points=3,
    kind="derive", section="8.2", reference=_reference_band, cases=_cases_band, fixed_cases=_fixed_band,
    rtol=1e-7, atol=1e-9, forbidden=POSTERIOR + (GP + "interval_coverage",),
    diagnoses=[
        Diagnosis("variance for standard deviation", "the band is mean +- z times the standard deviation, "
                  "the square root of the variance", _band_variance),
        Diagnosis("noise added for f", "f(x*) is the noise-free function: its variance has no sigma^2; "
                  "the noise belongs to an observation y*", _band_noise_on_f),
        Diagnosis("noise left out for y", "a new observation y* = f(x*) + eps has the variance of f(x*) "
                  "plus sigma^2", _band_no_noise_on_y),
        Diagnosis("one-sided quantile", "a central interval leaves (1 - level) / 2 on each side: z is "
                  "the normal quantile of (1 + level) / 2", _band_one_sided),
    ],
    hints=("first the posterior of f(x*) by Algorithm 2.1; then ask what changes for an observation y*",
           "the band is symmetric about the mean; its half-width is a normal quantile times a spread "
           "(which one, and with which quantile?)"),
)


# ===================================================================== ex8.q3
#: the largest relative residual ||(K + noise I) alpha - y|| / ||y|| accepted: a solve through a
#: factor reaches 1e-10 on these cases, an explicit inverse stays above 1e-5
RESIDUAL = 1e-6


def _relative_residual(alpha, case):
    K, y, noise = case.args
    alpha = np.asarray(alpha, dtype=float)
    if alpha.shape != y.shape or not np.all(np.isfinite(alpha)):
        return math.inf
    return float(np.linalg.norm(K @ alpha + noise * alpha - y) / np.linalg.norm(y))


def _reference_weights(K, y, noise):
    return gp_factor(K, y, noise)[1]


def _weights_inverse(K, y, noise):
    return np.linalg.inv(K + noise * np.eye(len(K))) @ y


def _weights_everywhere(K, y, noise):
    return np.linalg.solve(K + noise, y)


def _weights_no_noise(K, y, noise):
    return np.linalg.solve(K, y)


def _weights_sigma(K, y, noise):
    return np.linalg.solve(K + math.sqrt(noise) * np.eye(len(K)), y)


def _interpolation_case(rng, n, noise):
    """Noise-free data from a smooth function, a smooth kernel and a jitter: K + noise I has a
    condition number near 1 / noise, and y lies along its large eigenvalues."""
    X = inputs(rng, n)
    a, b = (float(v) for v in np.round(rng.uniform(0.5, 1.5, 2), 2))
    y = np.sin(a * X[:, 0]) + 0.5 * np.cos(b * X[:, 0])
    return Case((smooth_kernel(rng)(X), y, noise), label=f"{n} noise-free values, jitter {noise:g}")


def _noisy_case(rng, n, noise):
    X = inputs(rng, n)
    y = np.round(np.sin(X[:, 0]) + math.sqrt(noise) * rng.standard_normal(n), 3)
    return Case((rough_kernel(rng)(X), y, noise), label=f"{n} noisy values, noise {noise}")


def _fixed_weights():
    rng = np.random.default_rng(803)
    return [_interpolation_case(rng, 50, 1e-12), _interpolation_case(rng, 40, 1e-13),
            _noisy_case(rng, 8, 0.3), _noisy_case(rng, 12, 0.05)]


def _cases_weights(rng):
    return [_interpolation_case(rng, int(rng.integers(35, 60)), 1e-12),
            _noisy_case(rng, int(rng.integers(6, 15)), float(np.round(rng.uniform(0.05, 0.5), 2)))]


def _is_inverse(alpha, case):
    """Close to a solution, but further from one than a solve through a factor ever is."""
    return RESIDUAL < _relative_residual(alpha, case) <= 1e-2 and case.args[2] < 1e-9


Q3 = Question(
    id="ex8.q3", title="fix the weights of Algorithm 2.1", function="gp_weights", points=3, kind="fix",
    section="8.2", reference=_reference_weights, cases=_cases_weights, fixed_cases=_fixed_weights,
    compare_reference=False, forbidden=POSTERIOR + (GP + "log_marginal_likelihood",
                                                      "kernelcourse.ridge.dual_ridge", "kernelcourse.ridge.KernelRidge"),
    properties=[Property("residual", lambda alpha, case: _relative_residual(alpha, case) <= RESIDUAL,
                         f"the weights must solve (K + noise I) alpha = y: "
                         f"||(K + noise I) alpha - y|| / ||y|| is above {RESIDUAL:g}")],
    diagnoses=[
        Diagnosis("explicit inverse", "this is the given code: an explicit inverse of a matrix with "
                  "condition number 1e12 multiplies y with an error of that size times the round-off; "
                  "solve the system (a Cholesky factor, then two triangular solves)", _weights_inverse,
                  detect=_is_inverse),
        Diagnosis("noise on every entry", "K + noise adds sigma^2 to every entry of K; the noise is "
                  "independent per observation, so it adds to the diagonal only", _weights_everywhere),
        Diagnosis("noise left out", "the observations have covariance K + sigma^2 I: the noise enters the "
                  "system", _weights_no_noise),
        Diagnosis("sigma for sigma^2", "noise is the variance sigma^2 already: add it as it is, not its "
                  "square root", _weights_sigma),
    ],
    hints=("a product with an inverse loses what a solve keeps: look at the residual of each for a "
           "matrix with condition number 1e12", "factor K + noise I once, then solve two triangular systems"),
)


# ===================================================================== ex8.q4
def _reference_duplicate(signal_variance, noise, y1, y2):
    K = signal_variance * np.ones((2, 2))
    mean, var = posterior_mean_var(K, np.array([y1, y2]), noise, K[:1], np.array([signal_variance]))
    return float(mean[0]), float(var[0])


def _duplicate_one(signal_variance, noise, y1, y2):
    c, s2 = signal_variance, noise
    return float(c * (y1 + y2) / 2 / (c + s2)), float(c * s2 / (c + s2))


def _duplicate_noise_added(signal_variance, noise, y1, y2):
    mean, var = _reference_duplicate(signal_variance, noise, y1, y2)
    return mean, var + noise


def _duplicate_std(signal_variance, noise, y1, y2):
    mean, var = _reference_duplicate(signal_variance, noise, y1, y2)
    return mean, math.sqrt(var)


def _duplicate_interpolated(signal_variance, noise, y1, y2):
    return float((y1 + y2) / 2), 0.0


def _cases_duplicate(rng):
    cases = []
    while len(cases) < 3:
        c = float(np.round(rng.uniform(0.3, 3.0), 2))
        s2 = float(np.round(rng.uniform(0.1, 2.0), 2))
        y1, y2 = (float(v) for v in np.round(rng.uniform(-2, 2, 2), 2))
        var = c * s2 / (s2 + 2 * c)
        if abs(var - 1) > 0.05 and abs(y1 + y2) > 0.2:
            cases.append(Case((c, s2, y1, y2), label=f"signal variance {c}, noise {s2}, y = {y1}, {y2}"))
    return cases


Q4 = Question(
    id="ex8.q4", title="the posterior at a repeated input", function="duplicate_posterior", points=2,
    kind="predict", section="8.2", reference=_reference_duplicate, cases=_cases_duplicate,
    fixed_cases=lambda: [Case((2.0, 0.5, 1.0, 2.0), label="signal variance 2, noise 0.5, y = 1, 2"),
                         Case((0.5, 1.5, -0.4, 1.2), label="signal variance 0.5, noise 1.5, y = -0.4, 1.2"),
                         Case((1.0, 0.2, 0.7, 0.7), label="signal variance 1, noise 0.2, y = 0.7, 0.7")],
    rtol=1e-9, atol=1e-12, forbidden=POSTERIOR,
    diagnoses=[
        Diagnosis("one observation", "two noisy observations of the same f(x0) carry more than one: "
                  "their mean has noise variance sigma^2 / 2", _duplicate_one),
        Diagnosis("noise added", "the question asks for f(x0), which has no noise term; sigma^2 belongs "
                  "to a new observation y", _duplicate_noise_added),
        Diagnosis("std for variance", "the second value is the variance, not its square root",
                  _duplicate_std),
        Diagnosis("interpolated", "with noise the posterior mean does not pass through the data, and "
                  "the variance stays positive", _duplicate_interpolated),
    ],
    hints=("K for the two observations is c times a matrix of ones; conditioning on both is the same as "
           "conditioning on one number", "the average of y1 and y2 is one observation of f(x0) with a "
           "smaller noise variance: which?"),
)


# ===================================================================== ex8.q5
def _reference_lambda(signal_variance, noise_std, n_samples):
    return float(noise_std ** 2 / signal_variance)


def _cases_lambda(rng):
    cases = []
    for _ in range(3):
        c = float(np.round(rng.uniform(1.5, 5.0) if rng.random() < 0.5 else rng.uniform(0.1, 0.6), 2))
        sd = float(np.round(rng.uniform(0.05, 0.7), 2))
        n = int(rng.integers(5, 200))
        cases.append(Case((c, sd, n), label=f"signal variance {c}, noise std {sd}, n = {n}"))
    return cases


Q5 = Question(
    id="ex8.q5", title="the ridge parameter of the posterior mean", function="ridge_lambda", points=2,
    kind="parameter", section="8.3", reference=_reference_lambda, cases=_cases_lambda,
    fixed_cases=lambda: [Case((4.0, 0.5, 20), label="signal variance 4, noise std 0.5, n = 20"),
                         Case((0.25, 0.3, 50), label="signal variance 0.25, noise std 0.3, n = 50"),
                         Case((1.0, 0.2, 10), label="signal variance 1, noise std 0.2, n = 10")],
    rtol=1e-9, atol=1e-12, forbidden=POSTERIOR + ("kernelcourse.ridge.KernelRidge",),
    diagnoses=[
        Diagnosis("lambda = sigma", "the ridge parameter plays the noise variance sigma^2, not the "
                  "standard deviation", lambda c, sd, n: float(sd / c)),
        Diagnosis("signal variance forgotten", "the GP's prior is c k; dividing (c K + sigma^2 I) by c "
                  "gives the ridge system of k with lambda = sigma^2 / c", lambda c, sd, n: float(sd ** 2)),
        Diagnosis("lambda = n sigma^2", "the course's KernelRidge solves (K + lam I) alpha = y, the sum "
                  "of squared errors with no 1/n: no factor n", lambda c, sd, n: float(n * sd ** 2 / c)),
        Diagnosis("multiplied by the signal variance", "c K + sigma^2 I = c (K + (sigma^2 / c) I): divide "
                  "by c", lambda c, sd, n: float(sd ** 2 * c)),
    ],
    hints=("write both predictions as K_new times a solve, and make the two systems the same",
           "the GP solves (c K + sigma^2 I) a = y; the ridge solves (K + lam I) alpha = y"),
)

QUESTIONS = [Q1, Q2, Q3, Q4, Q5]
