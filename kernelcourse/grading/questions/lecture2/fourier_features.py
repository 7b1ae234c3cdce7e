"""Lecture 2's questions on random Fourier features (2.8, 2.11): the single-sample estimate
of K(x, y), the feature map, its Gram matrix, and Bochner's choice of frequencies.
"""
from __future__ import annotations

import math

import numpy as np

from ....random_features import fourier_features, single_sample_estimate
from ...model import Case, fixed_draw, Diagnosis, Question, choice_parts
from ._common import _points


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
