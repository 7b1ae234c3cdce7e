"""Lecture 4, sections 4.5 and 4.7: constructing kernels by the rules, and witnesses of functions
that are none (ex4.q7-q11).
"""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ...model import Case, Diagnosis, Property, Question, choice_parts
from ._common import _fixed, _points


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
    fixed_cases=lambda: [Case((name,), label=f"{name} = {CANDIDATES[name]}") for name in CANDIDATES],
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
    kind="witness", section="4.7",
    hints=("for each name in CANDIDATES decide: built by the rules (then the answer is None), or "
           "not (then give a few points whose Gram matrix has a negative determinant)",
           "a distance is 0 on the diagonal; a negative k(x, x) needs only one point; exp of a "
           "non-kernel fails on two opposite points; one function needs three points"),
)


# ===================================================================== ex4.q8
# The statements of ex4.q8 and their options, as students see them ...
QUIZ = {
    "sum": ("k1 + k2, for two kernels k1 and k2, is",
            {"a": "always a kernel",
             "b": "a kernel only when k2 is a positive multiple of k1",
             "c": "not a kernel in general"}),
    "difference": ("k1 - k2, for two kernels k1 and k2, is",
                   {"a": "always a kernel",
                    "b": "never a kernel",
                    "c": "a kernel for some pairs, but not in general"}),
    "product": ("k1 k2 (the product of the two values), for two kernels, is",
                {"a": "always a kernel",
                 "b": "not a kernel in general, since a product K1 @ K2 of PSD matrices need "
                      "not be PSD",
                 "c": "a kernel only when k1 = k2"}),
    "count": ("(x.z)^p on R^m is the inner product of a map with M = C(m + p - 1, p) features",
              {"a": "true: one feature per monomial of degree exactly p",
               "b": "false: it needs m^p features, one per ordered product x_i1 ... x_ip",
               "c": "false: it needs C(m + p, p) features"}),
}

# ... the right options, and the misconception behind each wrong one
_QUIZ_RIGHT = {"sum": "a", "difference": "c", "product": "a", "count": "a"}
_QUIZ_WRONG = {
    ("sum", "b"): ("sum needs related kernels", "z^T (K1 + K2) z = z^T K1 z + z^T K2 z: does "
                   "either term on the right need k2 to be a multiple of k1 to be >= 0?"),
    ("sum", "c"): ("sum breaks PSD", "write z^T (K1 + K2) z as z^T K1 z + z^T K2 z; what sign "
                   "does each term have when k1 and k2 are kernels (rule 3)?"),
    ("difference", "a"): ("difference always a kernel", "subtraction is no rule of 4.5: try "
                          "k2 = 2 k1, where the difference is -k1 and k(x, x) < 0"),
    ("difference", "b"): ("difference never a kernel", "'not a rule' does not mean 'never a "
                          "kernel': look at 2 k - k. The rules only promise, they do not forbid"),
    ("product", "b"): ("matrix product", "the Gram matrix of k1 k2 is the ELEMENTWISE (Schur) "
                       "product K1 * K2, not the matrix product K1 @ K2; what does rule 4 say "
                       "about the Schur product of PSD matrices?"),
    ("product", "c"): ("product needs equal kernels", "rule 4 asks nothing of how k1 and k2 "
                       "relate: the features of k1 k2 are the products of a feature of k1 with "
                       "one of k2, whatever the two kernels are"),
    ("count", "b"): ("ordered products", "m^p counts x1 x2 and x2 x1 apart; the map merges "
                     "equal monomials into one feature (the sqrt(2) of 4.4): count the monomials "
                     "of degree p once each, on m = p = 2 first (3 features)"),
    ("count", "c"): ("all degrees", "C(m + p, p) counts the monomials of every degree up to p: "
                     "the features of (x.z + 1)^p; which degrees does (x.z)^p hold?"),
}


Q8 = Question(
    id="ex4.q8", title="sums, differences, products, counts", function="kernel_rules_quiz",
    points=2, kind="choice", section="4.5",
    **choice_parts(_QUIZ_RIGHT, _QUIZ_WRONG, label=lambda name: f"{name}: {QUIZ[name][0]} ..."),
    fixed_cases=lambda: [Case((name,), label=f"{name}: {QUIZ[name][0]} ...") for name in QUIZ],
    hints=("for each statement ask: does every Gram matrix stay PSD? A counterexample settles "
           "'not always', a rule of 4.5 settles 'always'",
           "write the Gram matrix of the combination in terms of K1 and K2 (a sum, a "
           "difference, an elementwise product) and test z^T K z >= 0; count monomials on "
           "m = p = 2"),
)


# ===================================================================== ex4.q9
# The functions of ex4.q9: each breaks a construction rule, with a parameter drawn per case
BROKEN = {
    "negative_coefficient": "(x.z)^2 - a x.z   (a polynomial of x.z with a negative coefficient)",
    "difference": "exp(-a ||x - z||^2) - exp(-2 a ||x - z||^2)   (a difference of kernels)",
    "bilinear": "x^T A z with A = [[1, a], [a, 1]], |a| > 1   (A is not PSD; x in R^2)",
    "sigmoid": "tanh(x.z + a) with a < 0   (the sigmoid with a negative offset)",
}


def _broken_gram(name, a, X):
    X = np.asarray(X, float)
    dot = X @ X.T
    sq = np.maximum(np.diag(dot)[:, None] + np.diag(dot)[None, :] - 2 * dot, 0.0)
    if name == "negative_coefficient":
        return dot ** 2 - a * dot
    if name == "difference":
        return np.exp(-a * sq) - np.exp(-2 * a * sq)
    if name == "bilinear":
        return X @ np.array([[1.0, a], [a, 1.0]]) @ X.T
    return np.tanh(dot + a)


def _non_psd_points(name, a):
    """A witness for each function of BROKEN (the lecture's habits: one point with k(x, x) < 0,
    or two points)."""
    if name == "negative_coefficient":
        return np.array([[np.sqrt(a / 2)]])                 # k(x, x) = -a^2 / 4
    if name == "difference":
        return np.array([[0.0], [1.0 / np.sqrt(a)]])          # zero diagonal, positive off it
    if name == "bilinear":
        return np.array([[1.0, -np.sign(a)]])               # k(x, x) = 2 - 2 |a|
    return np.array([[0.0]])                                # k(0, 0) = tanh(a) < 0


def _cases_broken(rng):
    params = {
        "negative_coefficient": float(np.round(rng.uniform(0.05, 0.6), 3)),
        "difference": float(np.round(rng.uniform(0.3, 3.0), 3)),
        "bilinear": float(np.round(rng.uniform(1.5, 3.0), 3) * rng.choice([-1, 1])),
        "sigmoid": float(np.round(rng.uniform(-1.0, -0.2), 3)),
    }
    names = list(BROKEN)
    rng.shuffle(names)
    return [Case((name, params[name]), label=f"{name} with a = {params[name]}") for name in names]


def _points_of(answer, name):
    X = np.asarray(answer, dtype=float)
    if X.ndim != 2 or not 1 <= X.shape[0] <= 5 or not 1 <= X.shape[1] <= 3:
        return None
    if name == "bilinear" and X.shape[1] != 2:
        return None
    if not np.all(np.isfinite(X)) or np.abs(X).max() > 100:
        return None
    return X


def _negative_eigenvalue(answer, case):
    name, a = case.args
    X = _points_of(answer, name)
    if X is None:
        return False
    K = _broken_gram(name, a, X)
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    return eig[0] < -1e-6 * max(1e-6, float(np.abs(K).max()))


def _broken_mistake(name, wrong):
    def answer(n, a):
        return wrong(a) if n == name else _non_psd_points(n, a)
    return answer


def _fails_on(name, test=lambda X, a: True):
    def detect(answer, case):
        if case.args[0] != name or _negative_eigenvalue(answer, case):
            return False
        X = _points_of(answer, name)
        return X is not None and test(X, case.args[1])
    return detect


def _repeated_rows(X, a):
    return len(X) > 1 and len(np.unique(np.round(X, 12), axis=0)) < len(X)


Q9 = Question(
    id="ex4.q9", title="breaking a rule: find the witness", function="non_psd_points", points=3,
    kind="witness", section="4.7",
    forbidden=(
        "kernelcourse.kernels.find_non_psd_witness",
        "kernelcourse.kernels.is_psd",
        "kernelcourse.kernels.min_eigenvalue",
    ),
    reference=_non_psd_points, cases=_cases_broken, compare_reference=False,
    fixed_cases=_fixed(_cases_broken),
    properties=[Property("negative eigenvalue", _negative_eigenvalue,
                         "return an (n, d) array of points (n <= 5, d <= 3, d = 2 for bilinear) "
                         "whose Gram matrix has a negative eigenvalue")],
    diagnoses=[
        Diagnosis("negative everywhere", "a negative coefficient does not make k negative "
                  "everywhere: k(x, x) = ||x||^4 - a ||x||^2 is negative only when "
                  "0 < ||x||^2 < a, so one point is a witness only if it is short enough",
                  _broken_mistake("negative_coefficient", lambda a: np.array([[1.0]])),
                  detect=_fails_on("negative_coefficient", lambda X, a: len(X) == 1)),
        Diagnosis("repeated point", "repeating a point only repeats a row of K (a zero "
                  "eigenvalue, never a negative one); use two DIFFERENT points",
                  _broken_mistake("difference", lambda a: np.array([[0.5], [0.5]])),
                  detect=_fails_on("difference", _repeated_rows)),
        Diagnosis("sigmoid far from 0", "tanh(x.x + a) is negative only where ||x||^2 < -a; a "
                  "point as long as yours gives k(x, x) > 0, but x = 0 (or any short x) gives "
                  "k(x, x) = tanh(a) < 0",
                  _broken_mistake("sigmoid", lambda a: np.array([[1.0, 1.0]])),
                  detect=_fails_on("sigmoid", lambda X, a: len(X) == 1)),
        Diagnosis("wrong direction", "x^T A x is negative only along a direction where A has a "
                  "negative eigenvalue: for A = [[1, a], [a, 1]] the eigenvalues are 1 + a "
                  "along (1, 1) and 1 - a along (1, -1)",
                  _broken_mistake("bilinear", lambda a: np.array([[1.0, np.sign(a)]])),
                  detect=_fails_on("bilinear")),
    ],
    hints=("try the smallest witness first: one point x with k(x, x) < 0; when the diagonal "
           "cannot be negative, two different points",
           "for each function, write k(x, x) (and for two points the 2 x 2 determinant) as a "
           "function of the point, and choose the point where it is negative"),
)


# ===================================================================== ex4.q10
def _direction_kernel(X, Z):
    """A kernel that sees directions only: the normalised linear kernel (the cosine)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return (X @ Z.T) / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(Z, axis=1))


def _direction_case(U, c, label):
    """X = U; Z = c_i U[i] (so Z[:n] points as X does, c_0 = 1) and one point opposite to U[0]."""
    U = np.asarray(U, float)
    Z = np.vstack([np.asarray(c, float)[:, None] * U, -1.5 * U[:1]])
    return Case((U, np.round(Z, 6)), label=label)


def _fixed_directions():
    half = np.arange(8) * np.pi / 8                    # 8 directions, no two opposite
    lengths = np.array([1.0, 2.0, 0.5, 3.0, 1.5, 0.8, 2.2, 4.0])
    U1 = np.round(lengths[:, None] * np.c_[np.cos(half), np.sin(half)], 6)
    full = np.arange(8) * np.pi / 4                    # 8 directions in four opposite pairs
    U2 = np.round(np.c_[np.cos(full), np.sin(full)] * lengths[::-1, None], 6)
    u, v, w = np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 2.0]), np.array([-2.0, 0.3, 0.4])
    U3 = np.array([u, -0.7 * u, 2.5 * u, v, w, -v])   # opposite and same directions in X itself
    return [
        _direction_case(U1, [1, 2, 0.5, 3, 1.5, 0.8, 2.2, 4], "8 directions on a half circle "
                        "(a PSD test on 8 points), Z[i] = c_i X[i] and Z[8] = -1.5 X[0]"),
        _direction_case(U2, [1, 0.5, 2, 0.25, 3, 1.5, 0.7, 5], "8 directions in opposite pairs "
                        "x, -x, Z[i] = c_i X[i] and Z[8] = -1.5 X[0]"),
        _direction_case(U3, [1, 2, 0.4, 3, 0.5, 1.7], "X holds x, -0.7 x, 2.5 x in 3-D: opposite "
                        "and equal directions among the points themselves"),
    ]


def _apart(U):
    """Rows that point different ways differ by a clear angle (cosine below 1 - 1e-2), and no
    row is short (norm at least 0.5). A random pair closer than that asks the right kernel for
    a value within 1e-4 of 1 (a 2-D draw of five points held such a pair in about one seed in
    twenty); a short row, scaled by a small c and rounded to 6 decimals, moves its cosines
    enough to make the right Gram matrix fail the PSD check."""
    n = np.linalg.norm(U, axis=1)
    if np.any(n < 0.5):
        return False
    C = (U @ U.T) / np.outer(n, n)
    return bool(np.all((C > 1 - 1e-9) | (C < 1 - 1e-2)))


def _cases_directions(rng):
    cases = []
    for n, d in [(5, 2), (6, 3)]:
        while True:  # redrawn until the directions that differ differ clearly (see _apart)
            U = np.round(rng.normal(size=(n, d)), 3)
            U[1] = -np.round(rng.uniform(0.3, 3.0), 2) * U[0]      # an opposite direction
            U[2] = np.round(rng.uniform(1.5, 3.0), 2) * U[0]        # the same direction, longer
            if _apart(U):
                break
        c = np.round(rng.uniform(0.2, 5.0, size=n), 2)
        c[0], c[1:][np.abs(c[1:] - 1) < 0.1] = 1.0, 1.5             # Z[0] = X[0], no other c of 1
        cases.append(_direction_case(U, c, f"{n} points in {d}-D with x, -a x, b x among them; "
                                           f"Z[i] = c_i X[i] with c = {c.tolist()}, Z[{n}] = -1.5 X[0]"))
    return cases


def _cosines(case):
    X, Z = (np.asarray(a, float) for a in case.args)
    return _direction_kernel(X, Z)


def _same_way(case):
    """(i, j) where Z[j] is a positive multiple of X[i]: there k must be 1."""
    return _cosines(case) > 1 - 1e-9


def _dir_shape(K, case):
    return np.shape(K) == (len(case.args[0]), len(case.args[1]))


def _dir_bounded(K, case):
    return bool(np.all(np.abs(np.asarray(K, float)) <= 1 + 1e-5))


def _dir_gram(K, case):
    """The first n columns (Z[i] = c_i X[i]) hold the Gram matrix of X: symmetric and PSD."""
    n = len(case.args[0])
    B = np.asarray(K, float)[:, :n]
    return bool(np.allclose(B, B.T, atol=1e-5)
                and np.linalg.eigvalsh((B + B.T) / 2)[0] >= -1e-5 * n)


def _dir_same_way(K, case):
    return bool(np.all(np.abs(np.asarray(K, float)[_same_way(case)] - 1) <= 1e-5))


def _dir_tells_apart(K, case):
    return bool(np.all(np.asarray(K, float)[~_same_way(case)] < 1 - 1e-4))


def _one_side(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return (X @ Z.T) / (np.linalg.norm(X, axis=1)[:, None] ** 2)


def _no_sqrt(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return (X @ Z.T) / np.outer(np.sum(X ** 2, axis=1), np.sum(Z ** 2, axis=1))


def _gaussian(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return np.exp(-np.sum((X[:, None, :] - Z[None, :, :]) ** 2, axis=-1))


def _squared_cosine(X, Z):
    return _direction_kernel(X, Z) ** 2


def _absolute_cosine(X, Z):
    return np.abs(_direction_kernel(X, Z))


def _is(f):
    def detect(K, case):
        try:
            return bool(np.shape(K) == (len(case.args[0]), len(case.args[1])) and
                        np.allclose(np.asarray(K, float), f(*case.args), rtol=1e-5, atol=1e-8))
        except Exception:
            return False
    return detect


def _sees_lengths(K, case):
    """Positive, 1 at Z[0] = X[0], below 1 where Z[j] = c X[i] with c != 1: a kernel of x - z."""
    K = np.asarray(K, float)
    if not _dir_shape(K, case):
        return False
    same = _same_way(case)
    return bool(np.all(K > 0) and abs(K[0, 0] - 1) < 1e-6 and np.any(K[same] < 1 - 1e-4))


Q10 = Question(
    id="ex4.q10", title="build a kernel that sees only directions", function="direction_kernel",
    points=3, kind="witness", section="4.5",
    forbidden=(
        "kernelcourse.kernels.Normalized",
        "kernelcourse.feature_space.normalize_gram",
        "kernelcourse.feature_space.normalize_kernel_rows",
    ),
    reference=_direction_kernel, cases=_cases_directions, fixed_cases=_fixed_directions,
    compare_reference=False,
    properties=[
        Property("shape", _dir_shape, "return an array of shape (len(X), len(Z))"),
        Property("bounded", _dir_bounded, "a kernel with k(x, x) = 1 has |k(x, z)| <= 1 "
                 "(Cauchy-Schwarz); some entry is larger"),
        Property("same direction", _dir_same_way, "k(x, c x) must be 1 for every c > 0: x and "
                 "c x point the same way; some such pair gets another value"),
        Property("kernel", _dir_gram, "the columns of Z[i] = c_i X[i] hold the Gram matrix of X: "
                 "it must be symmetric and PSD (no negative eigenvalue)"),
        Property("directions", _dir_tells_apart, "the kernel must tell directions apart: "
                 "k(x, z) < 1 whenever x and z point different ways, opposite ways included"),
    ],
    diagnoses=[
        Diagnosis("one side", "dividing by ||x||^2 (that is k(x, x)) normalises one argument "
                  "only, and the result is not symmetric; divide by ||phi(x)|| ||phi(z)||",
                  _one_side, detect=_is(_one_side)),
        Diagnosis("no square root", "dividing by k(x, x) k(z, z) leaves k(x, x) = 1 / ||x||^2; "
                  "normalising divides by the NORMS sqrt(k(x, x) k(z, z)) (3.6)",
                  _no_sqrt, detect=_is(_no_sqrt)),
        Diagnosis("not normalised", "x.z grows with the lengths of x and z: k(x, 2 x) = 2 ||x||^2, "
                  "not 1; normalise it (3.6)",
                  lambda X, Z: np.asarray(X, float) @ np.asarray(Z, float).T,
                  detect=_is(lambda X, Z: np.asarray(X, float) @ np.asarray(Z, float).T)),
        Diagnosis("sees lengths", "k(x, x) = 1 is not enough: x and c x point the same way, so "
                  "k(x, c x) must be 1 too. A kernel of x - z (such as the Gaussian) sees "
                  "lengths; normalise a kernel that scales with the length instead",
                  _gaussian, detect=_sees_lengths),
        Diagnosis("squared cosine", "squaring the cosine forgets its sign: k(x, -x) = 1, so x and "
                  "-x, which point opposite ways, look the same; use a kernel that keeps the sign",
                  _squared_cosine, detect=_is(_squared_cosine)),
        Diagnosis("absolute cosine", "|cos| is not built by the rules (no rule takes an absolute "
                  "value), and it fails: on 8 directions of a circle its Gram matrix has a negative "
                  "eigenvalue; it also gives k(x, -x) = 1. Keep the sign of the cosine",
                  _absolute_cosine, detect=_is(_absolute_cosine)),
    ],
    hints=("which construction of 3.6 and 4.5 gives every point the value k(x, x) = 1? Apply it "
           "to a kernel for which k(c x, z) is a multiple of k(x, z)",
           "normalise the linear kernel (or a homogeneous polynomial one): divide x.z by the "
           "product of the two feature norms"),
)


# ===================================================================== ex4.q11
def _gaussian_by_rules(X, Z, sigma):
    """f(x) exp(x.z / sigma^2) f(z), f(x) = exp(-||x||^2 / (2 sigma^2)): the Gaussian kernel."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return RBF(gamma=1.0 / (2 * sigma ** 2))(X, Z)


def _cases_gaussian(rng):
    cases = []
    for n, p, d in [(3, 2, 1), (4, 3, 2), (5, 4, 3)]:
        sigma = float(np.round(rng.uniform(0.7, 2.0), 2))
        cases.append(Case((_points(rng, n, d), _points(rng, p, d), sigma),
                          label=f"X ({n}, {d}), Z ({p}, {d}), sigma={sigma}"))
    return cases


def _rules_with(f_div, middle_div, both_sides=True, fz_div=None):
    """f(x) exp(x.z / (middle_div sigma^2)) f(z), f(x) = exp(-||x||^2 / (f_div sigma^2)); f(z)
    with ``fz_div`` when given, left out without ``both_sides``."""
    fz_div = f_div if fz_div is None else fz_div

    def k(X, Z, sigma):
        X, Z = np.asarray(X, float), np.asarray(Z, float)
        f_X = np.exp(-np.sum(X ** 2, axis=1) / (f_div * sigma ** 2))
        f_Z = np.exp(-np.sum(Z ** 2, axis=1) / (fz_div * sigma ** 2)) if both_sides else 1.0
        middle = np.exp(X @ Z.T / (middle_div * sigma ** 2))
        return f_X[:, None] * middle * np.broadcast_to(f_Z, (Z.shape[0],))[None, :]
    return k


def _gives_one_of(*mistakes):
    """For ``Diagnosis(detect=...)``: the answer's values are those of one of ``mistakes``."""
    def detect(K, case):
        K = np.asarray(K, float)
        return any(K.shape == m(*case.args).shape and np.allclose(K, m(*case.args), rtol=1e-6,
                                                                 atol=1e-12) for m in mistakes)
    return detect


Q11 = Question(
    id="ex4.q11", title="fix: the Gaussian kernel from the rules", function="gaussian_by_rules",
    points=2, kind="fix", section="4.5",
    forbidden=("kernelcourse.kernels.RBF", "kernelcourse.kernels.Scaled", "kernelcourse.kernels.Exp"),
    reference=_gaussian_by_rules, cases=_cases_gaussian, fixed_cases=_fixed(_cases_gaussian),
    diagnoses=[
        Diagnosis("f with sigma^2", "the bug is still there: f(x) = exp(-||x||^2 / (2 sigma^2)); "
                  "with sigma^2 alone the three factors do not add up to -||x - z||^2 / (2 sigma^2)",
                  _rules_with(1.0, 1.0)),
        Diagnosis("middle halved", "the middle factor is exp(x.z / sigma^2): expanding "
                  "||x - z||^2 = ||x||^2 - 2 x.z + ||z||^2 gives 2 x.z / (2 sigma^2)",
                  _rules_with(2.0, 2.0)),
        Diagnosis("f on one side", "rule 6 multiplies by f(x) AND f(z); with one factor the "
                  "kernel is not even symmetric", _rules_with(2.0, 1.0, both_sides=False)),
        Diagnosis("half fixed", "the bug sits in two lines: f(x) AND f(z) divide by sigma^2; you "
                  "fixed one of them, so the kernel is not even symmetric",
                  _rules_with(2.0, 1.0, fz_div=1.0),
                  detect=_gives_one_of(_rules_with(2.0, 1.0, fz_div=1.0),
                                       _rules_with(1.0, 1.0, fz_div=2.0))),
        Diagnosis("fixed the middle", "the middle factor exp(x.z / sigma^2) was right (the cross "
                  "term of ||x - z||^2 is 2 x.z); the bug is in the outer factors f, which must "
                  "carry 2 sigma^2", _rules_with(1.0, 2.0)),
    ],
    hints=("expand the exponent -||x - z||^2 / (2 sigma^2) and compare it, term by term, with "
           "the sum of the three exponents the given function uses",
           "||x - z||^2 = ||x||^2 - 2 x.z + ||z||^2: each squared norm carries 1 / (2 sigma^2), "
           "the cross term 2 / (2 sigma^2)"),
)
