"""Lecture 4 (dual representations and constructing kernels): exercise set ``ex4`` and the
checkpoints ``l4.cp1``, ``l4.cp2`` of the lecture notebook.

The lecture's parametrisation (see :mod:`kernelcourse.dual`): ``sigma`` is the noise standard
deviation, ``lam`` the prior standard deviation, so the prior adds ``sigma^2 / lam^2`` to the
diagonal of ``K``. Every case uses ``sigma != lam`` so that an inverted ratio shows.

============  ======================  ====  ==============================================
id            function                pts   syllabus
============  ======================  ====  ==============================================
l4.cp1        dual_coefficients       2     4.3 alpha = (K + sigma^2/lam^2 I)^-1 y
l4.cp2        lecture_quadratic_map   2     4.4 (x1^2, sqrt2 x1 x2, x2^2)
ex4.q1        residual_alpha          2     4.1 alpha_i = (lam^2/sigma^2)(y_i - w.x_i)
ex4.q2        logistic_alpha          2     4.2 alpha_i = lam^2 y_i (1 - P(y_i | x_i, w))
ex4.q3        dual_prediction         2     4.3 k(x)^T (K + sigma^2/lam^2 I)^-1 y
ex4.q4        quadratic_features      3     4.4 the map of (x.z)^2 in m dimensions
ex4.q5        poly_feature_count      1     4.4 M = C(m + p - 1, p) = O(m^p)
ex4.q6        set_kernel              2     4.6 exp(|S n T|)
ex4.q7        kernel_or_witness       3     4.5, 4.7 a kernel by the rules, or a small
                                            data set with a negative determinant
============  ======================  ====  ==============================================
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ...dual import (dual_predict, map_linear_alpha, map_linear_dual, map_logistic_alpha,
                     map_logistic_primal)
from ...features import feature_dim_homogeneous, homogeneous_polynomial_map
from ...kernels import RBF, Polynomial
from ..core import Case, Diagnosis, Property, Question


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _sigma_lam(rng):
    """A noise and a prior standard deviation, far enough apart that swapping them shows."""
    sigma = float(np.round(rng.uniform(0.3, 0.8), 2))
    lam = float(np.round(rng.uniform(1.2, 2.5), 2))
    return (sigma, lam) if rng.random() < 0.5 else (lam, sigma)


def _ratio(sigma, lam):
    return sigma ** 2 / lam ** 2


def _gram(rng, n, d):
    """A Gram matrix (RBF or polynomial) on n random points, positive definite."""
    X = _points(rng, n, d)
    k = RBF(gamma=0.5) if rng.random() < 0.5 else Polynomial(2, gamma=0.5, coef0=1.0)
    return X, k, k(X)


def _pm1(rng, n):
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0                      # both classes present
    return y


# ===================================================================== l4.cp1
def _cases_dual(rng):
    cases = []
    for n, d in [(3, 2), (4, 1), (6, 3)]:
        _, _, K = _gram(rng, n, d)
        y = np.round(rng.normal(size=n), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((K, y, sigma, lam), label=f"K of shape {K.shape}, sigma={sigma}, lam={lam}"))
    return cases


def _solve(K, y, r):
    return np.linalg.solve(K + r * np.eye(len(y)), y)


CP1 = Question(
    id="l4.cp1", title="dual MAP coefficients", function="dual_coefficients", points=2,
    forbidden=(
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.MAPRegression",
    ),
    reference=map_linear_dual, cases=_cases_dual,
    diagnoses=[
        Diagnosis("ratio inverted", "the ratio is inverted: the prior adds sigma^2 / lam^2 "
                  "(noise variance over prior variance) to the diagonal, not lam^2 / sigma^2",
                  lambda K, y, sigma, lam: _solve(K, y, lam ** 2 / sigma ** 2)),
        Diagnosis("not squared", "sigma and lam are standard deviations: the diagonal gets "
                  "sigma^2 / lam^2, not sigma / lam",
                  lambda K, y, sigma, lam: _solve(K, y, sigma / lam)),
        Diagnosis("every entry", "you added sigma^2 / lam^2 to every entry of K (K + r); it goes "
                  "on the diagonal only (K + r * np.eye(n))",
                  lambda K, y, sigma, lam: np.linalg.solve(K + _ratio(sigma, lam), y)),
        Diagnosis("no prior", "the prior's term is missing: solve (K + sigma^2/lam^2 I) alpha = y, "
                  "not K alpha = y", lambda K, y, sigma, lam: np.linalg.solve(K, y)),
    ],
    hint="solve (K + sigma**2 / lam**2 * I) alpha = y, e.g. with np.linalg.solve",
)


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
    reference=_lecture_map, cases=_cases_map2,
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
    hint="return np.column_stack([x1**2, np.sqrt(2) * x1 * x2, x2**2]) with x1 = X[:, 0], x2 = X[:, 1]",
)


# ===================================================================== ex4.q1
def _cases_residual(rng):
    cases = []
    for n, d in [(3, 2), (5, 3), (8, 2)]:
        X = _points(rng, n, d)
        y = np.round(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n), 3)
        w = np.round(rng.normal(size=d), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((X, y, w, sigma, lam), label=f"X of shape {X.shape}, sigma={sigma}, lam={lam}"))
    return cases


Q1 = Question(
    id="ex4.q1", title="dual coefficients from the residuals", function="residual_alpha",
    forbidden=(
        "kernelcourse.dual.map_linear_alpha",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.dual.MAPRegression",
    ),
    points=2, reference=map_linear_alpha, cases=_cases_residual,
    diagnoses=[
        Diagnosis("ratio inverted", "the factor is lam^2 / sigma^2 (prior variance over noise "
                  "variance), not sigma^2 / lam^2",
                  lambda X, y, w, sigma, lam: _ratio(sigma, lam) * (y - X @ w)),
        Diagnosis("residual sign", "the residual is y_i - w.x_i (target minus prediction): with "
                  "w.x_i - y_i every alpha has the wrong sign",
                  lambda X, y, w, sigma, lam: (X @ w - y) / _ratio(sigma, lam)),
        Diagnosis("not squared", "sigma and lam are standard deviations: the factor is "
                  "lam^2 / sigma^2, not lam / sigma",
                  lambda X, y, w, sigma, lam: lam / sigma * (y - X @ w)),
    ],
    hint="alpha_i = lam**2 / sigma**2 * (y_i - w . x_i); return the n values as an array",
)


# ===================================================================== ex4.q2
def _cases_logistic(rng):
    cases = []
    for n, d in [(4, 2), (6, 3), (10, 2)]:
        X = _points(rng, n, d)
        y = _pm1(rng, n)
        lam = float(np.round(rng.uniform(0.5, 2.0), 2))
        w = np.round(map_logistic_primal(X, y, lam), 6)
        cases.append(Case((X, y, w, lam), label=f"X of shape {X.shape}, lam={lam}, w the MAP fit"))
    return cases


def _sigm(t):
    return 1 / (1 + np.exp(-t))


Q2 = Question(
    id="ex4.q2", title="the dual view of logistic regression", function="logistic_alpha",
    forbidden=("kernelcourse.dual.map_logistic_alpha", "kernelcourse.dual.logistic_probability",),
    points=2, reference=map_logistic_alpha, cases=_cases_logistic,
    diagnoses=[
        Diagnosis("P not 1 - P", "the weight is 1 - P(y_i | x_i, w), the probability of the "
                  "*wrong* label: well explained examples weigh little",
                  lambda X, y, w, lam: lam ** 2 * y * _sigm(y * (X @ w))),
        Diagnosis("P(y=+1)", "P(y_i | x_i, w) = 1 / (1 + exp(-y_i w.x_i)) depends on the label "
                  "y_i; you used P(y = +1 | x_i, w) for every example",
                  lambda X, y, w, lam: lam ** 2 * y * (1 - _sigm(X @ w))),
        Diagnosis("no y", "each alpha_i carries the sign of its label: alpha_i = lam^2 y_i (1 - P)",
                  lambda X, y, w, lam: lam ** 2 * (1 - _sigm(y * (X @ w)))),
        Diagnosis("1/lam^2", "the factor is lam^2 (the prior variance), not 1 / lam^2",
                  lambda X, y, w, lam: y * (1 - _sigm(y * (X @ w))) / lam ** 2),
    ],
    hint="P_i = 1 / (1 + exp(-y_i w . x_i)); alpha_i = lam**2 * y_i * (1 - P_i); "
         "at the MAP w, X.T @ alpha gives w back",
)


# ===================================================================== ex4.q3
def _dual_prediction(K, y, K_test, sigma, lam):
    """``k(x)^T (K + sigma^2/lambda^2 I)^-1 y`` for every row ``k(x)^T`` of ``K_test``."""
    return dual_predict(K_test, map_linear_dual(K, y, sigma, lam))


def _cases_prediction(rng):
    cases = []
    for n, m, d in [(3, 2, 2), (5, 4, 1), (7, 3, 3)]:
        X, k, K = _gram(rng, n, d)
        X_test = _points(rng, m, d)
        y = np.round(rng.normal(size=n), 3)
        sigma, lam = _sigma_lam(rng)
        cases.append(Case((K, y, k(X_test, X), sigma, lam),
                          label=f"K {K.shape}, K_test {(m, n)}, sigma={sigma}, lam={lam}"))
    return cases


Q3 = Question(
    id="ex4.q3", title="predicting in the dual", function="dual_prediction", points=2,
    forbidden=(
        "kernelcourse.dual.dual_predict",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.MAPRegression",
    ),
    reference=_dual_prediction, cases=_cases_prediction,
    diagnoses=[
        Diagnosis("ratio inverted", "the diagonal gets sigma^2 / lam^2, not lam^2 / sigma^2",
                  lambda K, y, K_test, sigma, lam: K_test @ _solve(K, y, lam ** 2 / sigma ** 2)),
        Diagnosis("no prior", "the prior's sigma^2/lam^2 I is missing from (K + sigma^2/lam^2 I)",
                  lambda K, y, K_test, sigma, lam: K_test @ np.linalg.solve(K, y)),
        Diagnosis("training rows", "you predicted on the training points (K @ alpha); the "
                  "predictions at the new points use K_test, one row k(x)^T per new point",
                  lambda K, y, K_test, sigma, lam: K @ _solve(K, y, _ratio(sigma, lam)),
                  detect=lambda out, case: np.shape(out) == (len(case.args[1]),)
                  and len(case.args[1]) != len(case.args[2])),
    ],
    hint="alpha = solve(K + sigma**2 / lam**2 * I, y), then return K_test @ alpha",
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
        _rows_sorted(Phi), _rows_sorted(_quadratic_features(case.args[0])), rtol=1e-7, atol=1e-9)


def _gram_is_squared_dot(Phi, case):
    X = case.args[0]
    Phi = np.asarray(Phi, float)
    return np.allclose(Phi @ Phi.T, (X @ X.T) ** 2, rtol=1e-7, atol=1e-9)


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
    hint="columns x_i**2 for each i, then np.sqrt(2) * x_i * x_j for each pair i < j "
         "(itertools.combinations(range(m), 2))",
)


# ===================================================================== ex4.q5
def _cases_count(rng):
    pairs = [(2, 2), (5, 3), (10, 2), (int(rng.integers(3, 30)), int(rng.integers(2, 6)))]
    return [Case((m, p), label=f"m={m}, p={p}") for m, p in pairs]


Q5 = Question(
    id="ex4.q5", title="how many features has (x.z)^p", function="poly_feature_count", points=1,
    forbidden=(
        "kernelcourse.features.feature_dim_homogeneous",
        "kernelcourse.features.feature_dim_polynomial",
    ),
    reference=feature_dim_homogeneous, cases=_cases_count,
    diagnoses=[
        Diagnosis("ordered", "m^p counts ordered products (x1 x2 and x2 x1 apart); the features "
                  "are the distinct monomials of degree p", lambda m, p: m ** p),
        Diagnosis("no repeats", "C(m, p) leaves out monomials with a repeated factor such as x1^2; "
                  "count multisets: C(m + p - 1, p)", lambda m, p: math.comb(m, p)),
        Diagnosis("all degrees", "C(m + p, p) counts the monomials of every degree up to p, the "
                  "features of (x.z + 1)^p; (x.z)^p has those of degree exactly p",
                  lambda m, p: math.comb(m + p, p)),
    ],
    hint="one feature per monomial x1^a1 ... xm^am with a1 + ... + am = p (stars and bars)",
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


Q6 = Question(
    id="ex4.q6", title="a kernel on sets", function="set_kernel", points=2,
    forbidden=("kernelcourse.kernels.SetKernel",),
    reference=_set_kernel, cases=_cases_sets,
    diagnoses=[
        Diagnosis("union", "the kernel counts the shared elements, |S n T| (s & t), not the union",
                  lambda S, T: np.array([[math.exp(len(s | t)) for t in T] for s in S])),
        Diagnosis("no exp", "|S n T| alone is a kernel too, but the lecture's is exp(|S n T|)",
                  lambda S, T: np.array([[float(len(s & t)) for t in T] for s in S])),
        Diagnosis("difference", "|S xor T| measures how *different* two sets are: it behaves like "
                  "a metric, and a metric is no kernel",
                  lambda S, T: np.array([[math.exp(len(s ^ t)) for t in T] for s in S])),
    ],
    hint="K[i, j] = exp(len(S[i] & T[j])); return a (len(S), len(T)) array",
)


# ===================================================================== ex4.q7
# The functions of ex4.q7, by name: what students see ...
CANDIDATES = {
    "distance": "||x - z||",
    "squared_distance": "||x - z||^2",
    "exp_dot": "exp(x.z)",
    "exp_minus_dot": "exp(-x.z)",
    "rbf_times_poly": "exp(-||x - z||^2) (1 + x.z)^2",
    "dot_minus_one": "x.z - 1",
    "square_plus_dot": "(x.z)^2 + 3 x.z",
    "exp_quartic": "exp(-||x - z||^4)",
}

# ... and the answers: (is a kernel, a witness with a negative determinant when it is not)
_ANSWERS = {
    "distance": (False, [[0.0], [1.0]]),
    "squared_distance": (False, [[0.0], [1.0]]),
    "exp_dot": (True, None),                      # rule 7 on rule 1
    "exp_minus_dot": (False, [[1.0], [-1.0]]),    # det = e^-2 - e^2
    "rbf_times_poly": (True, None),               # rules 4, 5, 6 (f = exp(-||x||^2)), 7
    "dot_minus_one": (False, [[0.0]]),            # k(0, 0) = -1
    "square_plus_dot": (True, None),              # rule 5
    "exp_quartic": (False, [[0.0], [0.6], [1.2]]),  # det = -0.365; every pair passes
}


def _candidate_gram(name, X):
    X = np.asarray(X, float)
    dot = X @ X.T
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return {
        "distance": lambda: np.sqrt(sq),
        "squared_distance": lambda: sq,
        "exp_dot": lambda: np.exp(dot),
        "exp_minus_dot": lambda: np.exp(-dot),
        "rbf_times_poly": lambda: np.exp(-sq) * (1 + dot) ** 2,
        "dot_minus_one": lambda: dot - 1.0,
        "square_plus_dot": lambda: dot ** 2 + 3 * dot,
        "exp_quartic": lambda: np.exp(-sq ** 2),
    }[name]()


def _kernel_or_witness(name):
    """None when ``name`` is a kernel by the rules, else points with a negative determinant."""
    witness = _ANSWERS[name][1]
    return None if witness is None else np.array(witness)


def _cases_candidates(rng):
    names = list(CANDIDATES)
    rng.shuffle(names)
    return [Case((name,), label=f"{name} = {CANDIDATES[name]}") for name in names]


def _verdict_right(answer, case):
    return (answer is None) == _ANSWERS[case.args[0]][0]


def _witness_right(answer, case):
    if answer is None:
        return True                                   # judged by _verdict_right
    X = np.asarray(answer, float)
    if X.ndim != 2 or not 1 <= X.shape[0] <= 5 or not 1 <= X.shape[1] <= 3:
        return False
    if not np.all(np.isfinite(X)) or np.abs(X).max() > 100:
        return False
    K = _candidate_gram(case.args[0], X)
    return float(np.linalg.det(K)) < -1e-9 * max(1.0, float(np.abs(K).max())) ** X.shape[0]


def _answer_with(wrong):
    """The reference, except on the names in ``wrong`` (name -> answer)."""
    def answer(name):
        return wrong[name] if name in wrong else _kernel_or_witness(name)
    return answer


def _said_kernel(names):
    return lambda answer, case: case.args[0] in names and answer is None


Q7 = Question(
    id="ex4.q7", title="kernel or not?", function="kernel_or_witness", points=3,
    forbidden=(
        "kernelcourse.kernels.find_non_psd_witness",
        "kernelcourse.kernels.is_psd",
        "kernelcourse.kernels.min_eigenvalue",
    ),
    reference=_kernel_or_witness, cases=_cases_candidates, compare_reference=False,
    properties=[
        Property("verdict", _verdict_right, "return None exactly when the function is a kernel "
                 "(built from x.z by the construction rules); otherwise return a small data set "
                 "that proves it is not"),
        Property("witness", _witness_right, "the points you returned (an (n, d) array, n <= 5, "
                 "d <= 3) must give a Gram matrix with a negative determinant"),
    ],
    diagnoses=[
        Diagnosis("metric", "a distance is no kernel: it is 0 for identical points and large for "
                  "different ones, so two points at distance d give K = [[0, d], [d, 0]] with "
                  "det = -d^2 < 0",
                  _answer_with({"distance": None, "squared_distance": None}),
                  detect=_said_kernel({"distance", "squared_distance"})),
        Diagnosis("exp of a non-kernel", "rule 7 needs exp(k) with k a kernel; -x.z is not one "
                  "(x = 1, z = -1 gives det = e^-2 - e^2 < 0)",
                  _answer_with({"exp_minus_dot": None}), detect=_said_kernel({"exp_minus_dot"})),
        Diagnosis("two points", "every two-point data set passes for exp(-||x - z||^4) "
                  "(det = 1 - exp(-2 d^4) >= 0); a witness needs three points",
                  _answer_with({"exp_quartic": None}),
                  detect=lambda answer, case: case.args[0] == "exp_quartic"
                  and (answer is None or np.ndim(answer) == 2 and np.shape(answer)[0] <= 2)),
        Diagnosis("k(x, x) < 0", "x.z - 1 can be negative on the diagonal: k(0, 0) = -1, so the "
                  "single point x = 0 is a witness",
                  _answer_with({"dot_minus_one": None}), detect=_said_kernel({"dot_minus_one"})),
        Diagnosis("valid rejected", "this function is built by the rules (products, sums with "
                  "positive coefficients, exp of a kernel), so every Gram matrix is PSD and no "
                  "witness exists: return None",
                  _answer_with({"exp_dot": np.array([[1.0], [-1.0]])}),
                  detect=lambda answer, case: _ANSWERS[case.args[0]][0] and answer is not None),
    ],
    hint="for each name in CANDIDATES decide: built by the rules (return None) or not (return "
         "an (n, d) array of points on which det(K) < 0)",
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7]
