"""Lecture 9, section 9.3: the permutation test, its p-value (ex9.q1), the fewest permutations
that can reject (ex9.q6) and its exact level (ex9.q8)."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ....mean_embeddings import mmd2_from_gram
from ...model import Case, Diagnosis, Question
from ._common import ALL_MMD, MMD, pooled


# ===================================================================== ex9.q1
def _biased_all(K, m):
    """The biased MMD^2 of every split of the pooled sample into m and N - m points."""
    K = np.asarray(K, float)
    N = K.shape[0]
    out = []
    for chosen in itertools.combinations(range(N), m):
        a = np.zeros(N)
        a[list(chosen)] = 1.0
        b = 1.0 - a
        out.append(a @ K @ a / m**2 + b @ K @ b / (N - m) ** 2 - 2 * a @ K @ b / (m * (N - m)))
    return np.array(out)


def _observed(K, m):
    return mmd2_from_gram(K, m, "biased")


def _reference_exact(K, m):
    values, T = _biased_all(K, m), _observed(K, m)
    return float(np.mean(values >= T - 1e-9))


def _exact_plus_one(K, m):
    values, T = _biased_all(K, m), _observed(K, m)
    return float((1 + np.sum(values >= T - 1e-9)) / (1 + values.size))


def _exact_strict(K, m):
    values, T = _biased_all(K, m), _observed(K, m)
    return float(np.mean(values > T + 1e-9))


def _exact_lower_tail(K, m):
    values, T = _biased_all(K, m), _observed(K, m)
    return float(np.mean(values <= T + 1e-9))


def _exact_without_observed(K, m):
    values, T = _biased_all(K, m), _observed(K, m)
    return float((np.sum(values >= T - 1e-9) - 1) / values.size)


def _exact_cases(rng):
    out = []
    for m, n in ((3, 4), (4, 4), (int(rng.integers(2, 5)), 5)):
        out.append(Case(pooled(rng, m, n, shift=float(np.round(rng.uniform(0.3, 1.0), 2))),
                        label=f"m = {m}, n = {n}"))
    return out


Q1 = Question(
    id="ex9.q1", title="the exact p-value over every split", function="exact_p_value", points=2,
    kind="derive", section="9.3", reference=_reference_exact, cases=_exact_cases,
    fixed_cases=lambda: [Case(pooled(np.random.default_rng(190), 3, 3, shift=0.4), label="m = n = 3"),
                         Case(pooled(np.random.default_rng(191), 2, 5, shift=1.5), label="m = 2, n = 5"),
                         Case(pooled(np.random.default_rng(192), 4, 3, shift=0.0), label="m = 4, n = 3, no shift")],
    rtol=1e-9, atol=1e-12, forbidden=(MMD + "permutation_p_value",) + ALL_MMD,
    diagnoses=[
        Diagnosis("+1 on an enumeration", "the observed split is already one of the C(N, m) splits you "
                  "enumerate: the +1 of 9.3 stands for it when the labellings are drawn at random, "
                  "here it would count it twice", _exact_plus_one),
        Diagnosis("strict", "a split whose statistic equals T (the observed split itself, and its "
                  "mirror image when m = n) is as extreme as T: count T_s >= T", _exact_strict),
        Diagnosis("lower tail", "a large MMD is the evidence against P = Q: count the splits at "
                  "least as large as T, not at most", _exact_lower_tail),
        Diagnosis("observed left out", "under the null the observed split is one of the equally "
                  "likely ones: it belongs to the count as well as to the total", _exact_without_observed),
    ],
    hints=("under P = Q every way of choosing which m of the N points are called X is equally likely",
           "loop over the subsets of size m (itertools.combinations), compute the statistic of each, "
           "and compare with the observed one"),
)


# ===================================================================== ex9.q6
def _reference_fewest(alpha):
    return int(math.ceil(1.0 / float(alpha) - 1.0 - 1e-9))


def _alphas(rng):
    out = []
    while len(out) < 3:
        a = float(np.round(rng.uniform(0.005, 0.4), 3))
        if abs(1 / a - round(1 / a)) > 1e-6:            # 1/alpha not an integer
            out.append(a)
    return out


Q6 = Question(
    id="ex9.q6", title="the fewest permutations that can reject", function="fewest_permutations",
    points=2, kind="parameter", section="9.3", reference=_reference_fewest,
    cases=lambda rng: [Case((a,), label=f"alpha = {a}") for a in _alphas(rng)],
    fixed_cases=lambda: [Case((0.05,), label="alpha = 0.05"), Case((0.01,), label="alpha = 0.01"),
                         Case((0.3,), label="alpha = 0.3")],
    forbidden=(MMD + "permutation_p_value",),
    diagnoses=[
        Diagnosis("no +1", "the smallest p-value is 1 / (1 + B), not 1 / B: one permutation fewer "
                  "suffices", lambda alpha: int(math.ceil(1.0 / alpha - 1e-9))),
        Diagnosis("p can be 0", "without the +1 a single permutation could give p = 0; with it the "
                  "smallest p-value is 1 / (1 + B)", lambda alpha: 1),
        Diagnosis("observed twice", "the observed labelling counts once: 1 / (1 + B) <= alpha",
                  lambda alpha: int(math.ceil(1.0 / alpha + 1e-9))),
    ],
    hints=("what is the smallest p-value a test with B permutations can give?",
           "solve 1 / (1 + B) <= alpha for the smallest whole B"),
)


# ===================================================================== ex9.q8
def _splits(m, n):
    return math.comb(int(m) + int(n), int(m))


def _reference_expected(n_tests, alpha, m, n):
    C = _splits(m, n)
    if m == n:            # a split and its mirror image give one value of the statistic
        return float(n_tests) * 2 * math.floor(float(alpha) * C / 2 + 1e-9) / C
    return float(n_tests) * math.floor(float(alpha) * C + 1e-9) / C


def _expected_n_alpha(n_tests, alpha, m, n):
    return float(n_tests) * alpha


def _expected_no_mirror(n_tests, alpha, m, n):
    C = _splits(m, n)
    return float(n_tests) * math.floor(alpha * C + 1e-9) / C


def _expected_plus_one(n_tests, alpha, m, n):
    C = _splits(m, n)
    k = math.floor(alpha * (C + 1) + 1e-9)
    return float(n_tests) * (2 * (k // 2) if m == n else k) / (C + 1)


_MISTAKES8 = (_expected_n_alpha, _expected_no_mirror, _expected_plus_one)


def _cases_expected(rng):
    out = []
    while len(out) < 3:
        m = int(rng.integers(3, 7))
        alpha = float(rng.choice([0.01, 0.02, 0.05, 0.1, 0.15]))
        case = (int(rng.integers(50, 500)), alpha, m, m)
        ref = _reference_expected(*case)
        if all(abs(f(*case) - ref) > 1e-6 * max(1.0, ref) for f in _MISTAKES8):
            out.append(Case(case, label=f"{case[0]} tests, alpha = {alpha}, m = n = {m}"))
    return out


Q8 = Question(
    id="ex9.q8", title="the level of the exact test, ties included", function="expected_rejections",
    points=2, kind="predict", section="9.3", reference=_reference_expected, cases=_cases_expected,
    fixed_cases=lambda: [Case((200, 0.05, 3, 3), label="200 tests, alpha = 0.05, m = n = 3"),
                         Case((1000, 0.15, 3, 3), label="1000 tests, alpha = 0.15, m = n = 3"),
                         Case((350, 0.05, 4, 3), label="350 tests, alpha = 0.05, m = 4, n = 3"),
                         Case((123, 0.1, 4, 4), label="123 tests, alpha = 0.1, m = n = 4")],
    rtol=1e-9, forbidden=ALL_MMD,
    diagnoses=[
        Diagnosis("n alpha", "the p-value of an exact test takes only finitely many values: "
                  "P(p <= alpha) is the largest of them not above alpha, which is alpha only by luck",
                  _expected_n_alpha),
        Diagnosis("mirror ignored", "with m = n, the statistic of a split equals that of its mirror "
                  "image (X and Y swapped): the p-values come in steps of 2 / C(N, m), and the level "
                  "counts whole pairs", _expected_no_mirror),
        Diagnosis("+1 on an enumeration", "the enumeration already holds the observed split: the "
                  "p-values are multiples of 1 / C(N, m), not of 1 / (C(N, m) + 1)", _expected_plus_one),
    ],
    hints=("under the null the observed split is equally likely to be any of the C(N, m) splits; "
           "which of them give the same value of the statistic?",
           "the rank of the observed value among the distinct values is uniform: count how many "
           "ranks give p <= alpha"),
)


