"""Exercise set 8, the evidence and beyond (8.4-8.8): the log-determinant without the determinant,
the predictive probability of GP classification, and true or false over the lecture."""
from __future__ import annotations

import math

import numpy as np

from ...._lazy import lazy_function
from ....gaussian_process import gp_factor, probit_average
from ....kernels import RBF
from ...model import Case, Diagnosis, Question, choice_parts
from ._common import GP, POSTERIOR, inputs, rough_kernel

expit = lazy_function("scipy.special", "expit")  # imported at its first call, not at set 8's first check


# ===================================================================== ex8.q6
def _reference_log_det(K, noise):
    L, _ = gp_factor(K, np.zeros(len(K)), noise)
    return float(2.0 * np.sum(np.log(np.diag(L))))


def _log_det_given(K, noise):
    with np.errstate(all="ignore"):
        return float(np.log(np.linalg.det(K + noise * np.eye(len(K)))))


def _log_det_half(K, noise):
    return 0.5 * _reference_log_det(K, noise)


def _log_det_diagonal(K, noise):
    return float(np.sum(np.log(np.diag(K) + noise)))


def _log_det_no_noise(K, noise):
    return float(np.linalg.slogdet(K)[1])


def _overflow_case(rng, n, scale, noise):
    X = np.linspace(-n / 2, n / 2, n)[:, None] + np.round(rng.uniform(-0.1, 0.1, (n, 1)), 3)
    return Case((scale * RBF(0.5)(X), noise),
                label=f"{n} points, signal variance {scale:g}, noise {noise:g}: det(K + noise I) overflows")


def _underflow_case(rng, n, scale, noise):
    X = inputs(rng, n, -10.0, 10.0)
    return Case((rough_kernel(rng, scale)(X), noise),
                label=f"{n} points, signal variance {scale:g}, noise {noise:g}: det(K + noise I) underflows")


def _fixed_log_det():
    rng = np.random.default_rng(806)
    X = inputs(rng, 6)
    return [Case((rough_kernel(rng, 1.5)(X), 0.3), label="6 points, noise 0.3"),
            _overflow_case(rng, 120, 1e7, 1.0), _underflow_case(rng, 150, 1e-3, 1e-4)]


def _cases_log_det(rng):
    return [_overflow_case(rng, int(rng.integers(100, 150)), float(10.0 ** rng.integers(6, 9)), 1.0),
            _underflow_case(rng, int(rng.integers(120, 180)), 1e-3, float(10.0 ** -rng.integers(4, 6)))]


Q6 = Question(
    id="ex8.q6", title="fix the log-determinant", function="log_det", points=3, kind="fix", section="8.5",
    reference=_reference_log_det, cases=_cases_log_det, fixed_cases=_fixed_log_det, rtol=1e-9, atol=1e-8,
    forbidden=POSTERIOR + (GP + "log_marginal_likelihood", GP + "log_marginal_likelihood_gradient",
                           GP + "marginal_likelihood", GP + "cholesky_jittered",
                           GP + "low_rank_log_marginal_likelihood"),
    diagnoses=[
        Diagnosis("log(det) overflows", "this is the given code: det(K + sigma^2 I) is a product of n "
                  "eigenvalues, which overflows to inf (or underflows to 0) for a hundred points; the "
                  "log-determinant is a sum of logs, read off a factor without forming det",
                  _log_det_given),
        Diagnosis("half the log-determinant", "det(K + sigma^2 I) = det(L)^2 = prod L_ii^2: the sum of "
                  "log L_ii is half the log-determinant", _log_det_half),
        Diagnosis("log of the diagonal", "the determinant is the product of the diagonal of a triangular "
                  "factor, not of the matrix itself", _log_det_diagonal),
        Diagnosis("noise left out", "the question asks for log det(K + sigma^2 I): the noise enters the "
                  "matrix", _log_det_no_noise),
    ],
    hints=("log(a b) = log a + log b: which factorisation turns the determinant into a product you "
           "never have to form?", "the determinant of a triangular matrix is the product of its "
           "diagonal; K + noise I = L L^T"),
)


# ===================================================================== ex8.q7
def _reference_probability(mean, var):
    return probit_average(mean, var)


def _probability_plug_in(mean, var):
    return expit(np.asarray(mean, dtype=float))


def _probability_var_as_std(mean, var):
    return probit_average(mean, np.asarray(var, dtype=float) ** 2)


def _probability_probit(mean, var):
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    return expit(mean / np.sqrt(1.0 + math.pi * var / 8.0))


def _cases_probability(rng):
    # variances up to 6: there the reference's 64-node quadrature is exact to 2e-8, relative
    cases = []
    for m in (5, 7):
        mean = np.round(rng.choice([-1, 1], m) * rng.uniform(0.5, 3.0, m), 2)
        var = np.round(rng.choice([rng.uniform(0.1, 0.6), rng.uniform(2.0, 6.0)], m), 2)
        cases.append(Case((mean, var), label=f"{m} latent means and variances"))
    return cases


Q7 = Question(
    id="ex8.q7", title="the predictive probability of GP classification", function="predictive_probability",
    points=2, kind="derive", section="8.7", reference=_reference_probability, cases=_cases_probability,
    fixed_cases=lambda: [Case((np.array([2.0, -1.0, 0.5, 0.0, 3.0]), np.array([4.0, 0.25, 6.0, 2.0, 0.0])),
                              label="five points, one with mean 0 and one with variance 0"),
                         Case((np.array([1.5, -2.5]), np.array([5.0, 0.5])), label="two points"),
                         Case((np.array([0.5, 2.0, 1.0]), np.array([3.0, 0.2, 1.5])),
                              label="three points, positive means")],
    rtol=1e-6, atol=1e-9, forbidden=(GP + "probit_average", GP + "GaussianProcessClassifier",
                                     GP + "laplace_latent", GP + "laplace_mode"),
    diagnoses=[
        Diagnosis("plug-in", "sigma(mean) ignores the latent variance: the prediction averages sigma "
                  "over N(mean, var), which pulls it towards 1/2", _probability_plug_in),
        Diagnosis("variance as standard deviation", "var is the variance of the latent value: the normal "
                  "law's standard deviation is its square root", _probability_var_as_std),
        Diagnosis("probit approximation", "sigma(mean / sqrt(1 + pi var / 8)) approximates the integral "
                  "to about 1e-2; the question asks for the integral to 1e-6 (quadrature)",
                  _probability_probit),
    ],
    hints=("the probability of class +1 is the average of sigma(f) over the latent law of f(x*)",
           "an integral of a smooth function against a normal density: Gauss-Hermite nodes (numpy) or "
           "scipy's quad"),
)


# ===================================================================== ex8.q8
STATEMENTS = {
    "jitter": ("The jitter added to K before a Cholesky factor, to sample the prior, is a model of the "
               "noise, like sigma^2.", False),
    "f or y": ("The predictive variance of a new observation y* is that of f(x*) plus sigma^2.", True),
    "ridge": ("The posterior mean is kernel ridge regression (K + lam I) alpha = y with lam = sigma^2.",
              True),
    "rkhs": ("A sample path of a GP with the RBF kernel lies in that kernel's RKHS.", False),
    "optima": ("The log marginal likelihood over (length-scale, noise) can have more than one local "
               "maximum.", True),
    "coverage": ("95 % predictive intervals that hold 60 % of held-out points are too wide.", False),
    "inducing": ("Far from its inducing points, the subset-of-regressors GP gives a predictive variance "
                 "of f below the exact GP's.", True),
}

Q8 = Question(
    id="ex8.q8", title="true or false: Gaussian processes", function="gp_true_or_false", points=2,
    kind="choice", section="8.1",
    fixed_cases=lambda: [Case((key,), label=key) for key in STATEMENTS],
    **choice_parts({key: truth for key, (_, truth) in STATEMENTS.items()}, {
        "jitter": ("jitter is a model", "the jitter is numerics: a smooth kernel's K is singular in "
                   "floating point, and a tiny multiple of I lets the factor exist"),
        "f or y": ("y has f's variance", "y* = f(x*) + eps with independent eps: the variances add"),
        "ridge": ("ridge is another lam", "both solve (K + sigma^2 I) alpha = y and predict K_new alpha"),
        "rkhs": ("samples in the RKHS", "the norms of growing truncations of a sample path grow without "
                 "bound: the samples are rougher than every function of the RKHS"),
        "optima": ("one maximum", "a short length-scale with little noise and a long one with much "
                   "noise can both explain the data: 8.5's seven points have two genuine local maxima "
                   "(zero gradient, negative definite Hessian), not only stalls on flat regions"),
        "coverage": ("60 % is too wide", "intervals that hold fewer points than their level are too "
                     "narrow: the model is overconfident"),
        "inducing": ("inducing points overstate", "its prior variance k_m(x)^T K_mm^-1 k_m(x) falls to 0 "
                     "away from the inducing points, below k(x, x): it is overconfident there"),
    }, label=str, argument="key"),
    hints=("for each statement, find the lecture section it comes from and the claim it checks",
           "four of the seven statements are true"),
)

QUESTIONS = [Q6, Q7, Q8]
