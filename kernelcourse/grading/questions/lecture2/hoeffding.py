"""Lecture 2's questions on how close random features come (2.9): Hoeffding's bound, the D it
asks for, the D that meets a target error, and the error D features guarantee.
"""
from __future__ import annotations

import math

import numpy as np

from ....kernels import RBF
from ....random_features import features_needed, hoeffding_bound
from ...model import Case, fixed_draw, Diagnosis, Property, Question
from ._common import _points


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


def _loose_target():
    """A loose target that the first feature already meets, and then D = 3 and 4 miss: the
    error does not shrink steadily, so only the first D that meets the target is at most twice
    the smallest (a later one that meets it, or the first from which on all do, is not)."""
    rng = np.random.default_rng(2090)
    X = _points(rng, 5, 2, scale=0.5)
    G = np.round(rng.standard_normal((400, 2)), 4)
    U = np.round(rng.random(400), 4)
    return [Case((X, 1.0, G, U, 1.0), label="n=5, d=2, gamma=1.0, 400 draws, target 1.0 (met by "
                 "D = 1 and 2, missed by D = 3 and 4)")]


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
    fixed_cases=fixed_draw(_cases_choose_D, 209, extra=_loose_target),
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
