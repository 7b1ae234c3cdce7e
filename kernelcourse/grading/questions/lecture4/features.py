"""Lecture 4, sections 4.4 and 4.6: the maps of (x.z)^p, their feature counts and a kernel on sets
(l4.cp2, ex4.q4-q6).
"""
from __future__ import annotations

import math
import numpy as np

from itertools import combinations

from ....features import feature_dim_homogeneous, homogeneous_polynomial_map
from ...model import Case, Diagnosis, Property, Question
from ._common import _fixed, _points


# ===================================================================== l4.cp2
def _lecture_map(X):
    """``(x1^2, sqrt(2) x1 x2, x2^2)`` for every row: the degree-2 homogeneous map in 2-D."""
    return homogeneous_polynomial_map(X, 2)


def _cases_map2(rng):
    return [Case((_points(rng, n, 2),), label=f"X of shape ({n}, 2)") for n in (1, 3, 5)]


def _map2_vec(X):
    return np.column_stack([X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] * X[:, 0], X[:, 1] ** 2])


CP2 = Question(
    id="l4.cp2", title="the lecture's quadratic map", function="lecture_quadratic_map", points=2,
    forbidden=(
        "kernelcourse.features.homogeneous_polynomial_map",
        "kernelcourse.features.quadratic_map",
        "kernelcourse.features.polynomial_map",
    ),
    reference=_lecture_map, cases=_cases_map2, fixed_cases=_fixed(_cases_map2),
    diagnoses=[
        Diagnosis("no sqrt 2", "the middle feature is sqrt(2) x1 x2: (x.z)^2 has the cross term "
                  "2 x1 z1 x2 z2, shared as sqrt(2) x1 x2 times sqrt(2) z1 z2",
                  lambda X: np.column_stack([X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] ** 2])),
        Diagnosis("2 not sqrt 2", "the middle feature is sqrt(2) x1 x2, not 2 x1 x2: phi(x).phi(z) "
                  "multiplies the factor of x with the factor of z",
                  lambda X: np.column_stack([X[:, 0] ** 2, 2 * X[:, 0] * X[:, 1], X[:, 1] ** 2])),
        Diagnosis("vec", "you wrote the four products x_i x_j (vec(x x^T)); that map works too, but "
                  "the lecture's merges x1 x2 and x2 x1 into one feature sqrt(2) x1 x2",
                  _map2_vec, detect=lambda Phi, case: np.shape(Phi) == (len(case.args[0]), 4)),
    ],
    kind="formula", section="4.4",
    hints=("expand (x1 z1 + x2 z2)^2 and split every term into a factor of x times the same "
           "factor of z",
           "three columns, one per term of the expansion; the cross term's 2 is shared between "
           "x and z, so each side carries its square root"),
)


# ===================================================================== ex4.q4
def _quadratic_features(X):
    """The degree-2 homogeneous map in ``m`` dimensions: ``x_i^2`` and ``sqrt(2) x_i x_j`` (i < j)."""
    return homogeneous_polynomial_map(X, 2)


def _cases_quadratic(rng):
    return [Case((_points(rng, n, m),), label=f"X of shape ({n}, {m})")
            for n, m in [(2, 2), (3, 3), (4, 5)]]


def _weighted_pairs(X, cross):
    m = X.shape[1]
    cols = [X[:, i] ** 2 for i in range(m)] + \
        [cross * X[:, i] * X[:, j] for i, j in combinations(range(m), 2)]
    return np.column_stack(cols)


def _rows_sorted(A):
    return np.sort(np.asarray(A, float), axis=1)


def _same_features(Phi, case):
    return np.shape(Phi) == _quadratic_features(case.args[0]).shape and np.allclose(
        _rows_sorted(Phi), _rows_sorted(_quadratic_features(case.args[0])), rtol=1e-5, atol=1e-6)


def _gram_is_squared_dot(Phi, case):
    X = case.args[0]
    Phi = np.asarray(Phi, float)
    want = (X @ X.T) ** 2                  # float32 precision passes: atol scales with the entries
    return np.allclose(Phi @ Phi.T, want, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(want).max())))


def _detect_weights(cross):
    def detect(Phi, case):
        return np.shape(Phi) == _quadratic_features(case.args[0]).shape and np.allclose(
            _rows_sorted(Phi), _rows_sorted(_weighted_pairs(case.args[0], cross)))
    return detect


Q4 = Question(
    id="ex4.q4", title="the quadratic map in m dimensions", function="quadratic_features",
    forbidden=(
        "kernelcourse.features.homogeneous_polynomial_map",
        "kernelcourse.features.quadratic_map",
        "kernelcourse.features.polynomial_map",
    ),
    points=3, reference=_quadratic_features, cases=_cases_quadratic, compare_reference=False,
    fixed_cases=_fixed(_cases_quadratic),
    properties=[
        Property("shape", lambda Phi, case: np.shape(Phi) == (len(case.args[0]),
                 feature_dim_homogeneous(case.args[0].shape[1], 2)),
                 "Phi must have shape (n, m(m+1)/2): the m squares and the m(m-1)/2 products of "
                 "two different coordinates"),
        Property("features", _same_features, "a row must hold x_i^2 for every i and "
                 "sqrt(2) x_i x_j for every pair i < j (in any column order)"),
        Property("kernel", _gram_is_squared_dot, "Phi @ Phi.T must equal (X @ X.T)**2: use the "
                 "same column order in every row"),
    ],
    diagnoses=[
        Diagnosis("no sqrt 2", "the products x_i x_j (i < j) need the weight sqrt(2): each appears "
                  "twice in (x.z)^2 = sum_i sum_j x_i z_i x_j z_j",
                  lambda X: _weighted_pairs(X, 1.0), detect=_detect_weights(1.0)),
        Diagnosis("2 not sqrt 2", "the weight is sqrt(2), not 2: phi(x).phi(z) multiplies x's "
                  "weight by z's", lambda X: _weighted_pairs(X, 2.0), detect=_detect_weights(2.0)),
        Diagnosis("vec", "you returned all m^2 products x_i x_j (vec(x x^T)): a map of the same "
                  "kernel, but the question asks for the m(m+1)/2 distinct monomials",
                  lambda X: (X[:, :, None] * X[:, None, :]).reshape(len(X), -1),
                  detect=lambda Phi, case: np.shape(Phi) == (len(case.args[0]),
                                                             case.args[0].shape[1] ** 2)),
    ],
    kind="derive", section="4.4",
    hints=("expand (x.z)^2 = (sum_i x_i z_i)(sum_j x_j z_j) and group the equal products, as 4.4 "
           "does for m = 2",
           "the terms with i = j appear once, those with i != j twice (as i, j and as j, i); "
           "itertools.combinations lists each pair once"),
)


# ===================================================================== ex4.q5
def _cases_count(rng):
    pairs = [(2, 2), (5, 3), (10, 2), (int(rng.integers(3, 30)), int(rng.integers(2, 6)))]
    return [Case((m, p), label=f"m={m}, p={p}") for m, p in pairs]


def _fixed_count():
    """The lecture's m = p = 2, and the corners where the wrong counts part: p = 1 (every count
    but C(m + p, p) gives m), m = 1 (one monomial x^p; C(1, p) = 0)."""
    pairs = [(2, 2), (5, 3), (10, 2), (1, 3), (4, 1), (3, 4)]
    return [Case((m, p), label=f"m={m}, p={p}") for m, p in pairs]


Q5 = Question(
    id="ex4.q5", title="how many features has (x.z)^p", function="poly_feature_count", points=1,
    forbidden=(
        "kernelcourse.features.feature_dim_homogeneous",
        "kernelcourse.features.feature_dim_polynomial",
    ),
    reference=feature_dim_homogeneous, cases=_cases_count, fixed_cases=_fixed_count,
    diagnoses=[
        Diagnosis("ordered", "m^p counts ordered products (x1 x2 and x2 x1 apart); the features "
                  "are the distinct monomials of degree p", lambda m, p: m ** p),
        Diagnosis("no repeats", "C(m, p) leaves out monomials with a repeated factor such as x1^2; "
                  "count multisets: C(m + p - 1, p)", lambda m, p: math.comb(m, p)),
        Diagnosis("all degrees", "C(m + p, p) counts the monomials of every degree up to p, the "
                  "features of (x.z + 1)^p; (x.z)^p has those of degree exactly p",
                  lambda m, p: math.comb(m + p, p)),
    ],
    kind="derive", section="4.4",
    hints=("count the monomials x1^a1 ... xm^am of total degree exactly p; check your count on "
           "m = p = 2, where the map has 3 features",
           "choosing the exponents is placing p identical balls into m boxes (stars and bars); "
           "math.comb counts the placements"),
)


# ===================================================================== ex4.q6
def _set_kernel(S, T):
    """``K[i, j] = exp(|S_i n T_j|)``."""
    return np.array([[math.exp(len(s & t)) for t in T] for s in S])


def _random_sets(rng, n, universe=8):
    return [set(int(u) for u in rng.choice(universe, size=int(rng.integers(0, 5)), replace=False))
            for _ in range(n)]


def _cases_sets(rng):
    cases = []
    for n_s, n_t in [(2, 2), (3, 4), (5, 3)]:
        S, T = _random_sets(rng, n_s), _random_sets(rng, n_t)
        S[0] = {0, 1, 2}
        T[0] = {1, 2, 5}                             # an overlap and a difference in every case
        cases.append(Case((S, T), label=f"{n_s} sets S and {n_t} sets T"))
    return cases


def _fixed_sets():
    """Empty sets (exp(0) = 1), equal sets, disjoint sets and an overlap with a difference."""
    S = [{0, 1, 2}, set(), {3, 4}]
    T = [{1, 2, 5}, set(), {0, 1, 2}, {6}]
    return [Case((S, T), label="S = [{0, 1, 2}, {}, {3, 4}], T = [{1, 2, 5}, {}, {0, 1, 2}, {6}]"),
            Case(([{7}], [{7}, set()]), label="S = [{7}], T = [{7}, {}]")]


Q6 = Question(
    id="ex4.q6", title="a kernel on sets", function="set_kernel", points=2,
    forbidden=("kernelcourse.kernels.SetKernel",),
    reference=_set_kernel, cases=_cases_sets, fixed_cases=_fixed_sets,
    diagnoses=[
        Diagnosis("union", "the kernel counts the shared elements, |S n T| (s & t), not the union",
                  lambda S, T: np.array([[math.exp(len(s | t)) for t in T] for s in S])),
        Diagnosis("no exp", "|S n T| alone is a kernel too, but the lecture's is exp(|S n T|)",
                  lambda S, T: np.array([[float(len(s & t)) for t in T] for s in S])),
        Diagnosis("difference", "|S xor T| measures how *different* two sets are: it behaves like "
                  "a metric, and a metric is no kernel",
                  lambda S, T: np.array([[math.exp(len(s ^ t)) for t in T] for s in S])),
    ],
    kind="formula", section="4.6",
    hints=("Python's set operators give the shared elements of two sets; count them",
           "one entry per pair (S[i], T[j]): the exponential of the size of their intersection, "
           "in an array of shape (len(S), len(T))"),
)
