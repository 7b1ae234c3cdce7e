"""Lecture 1, sections 1.5 and 1.6: the RBF Gram matrix, fast squared distances, and which
functions are kernels (ex1.q5 to ex1.q9, ex1.q11)."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF, AllSubsets, is_psd
from ...model import Case, Diagnosis, Property, Question, choice_parts, fixed_draw
from ._common import _points, _shape, _sqdist, _sym


# ===================================================================== ex1.q5
def _rbf_gram(X, Z, gamma):
    """``exp(-gamma ||x - z||^2)`` for every pair: the package's :class:`RBF`."""
    return RBF(gamma=gamma)(X, Z)


def _cases_rbf(rng):
    cases = []
    for n_x, n_z, d, gamma in [(3, 3, 2, 0.8), (4, 2, 3, 0.3), (2, 5, 1, 2.0)]:
        X, Z = _points(rng, n_x, d), _points(rng, n_z, d)
        cases.append(Case((X, Z, gamma), label=_shape(("X", X), ("Z", Z)) + f", gamma={gamma}"))
    return cases


Q5 = Question(
    id="ex1.q5", title="an RBF Gram matrix", function="rbf_gram", points=2,
    forbidden=("kernelcourse.kernels.RBF", "kernelcourse.kernels._fast_rbf._rbf_gram",
               "kernelcourse.random_features.rbf_gram",),
    reference=_rbf_gram, cases=_cases_rbf, fixed_cases=fixed_draw(_cases_rbf, 107),
    properties=[Property("range", lambda K, c: np.all((np.asarray(K) > 0) & (np.asarray(K) <= 1)),
                         "every RBF value lies in (0, 1]")],
    diagnoses=[
        Diagnosis("gamma as sigma", "you used gamma as the lecture's sigma, exp(-||x-z||^2 / gamma^2); "
                  "here gamma multiplies: exp(-gamma ||x-z||^2)",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / gamma ** 2),
                  hint="work one entry by hand: for ||x - z||^2 = 1 and gamma = 2 the kernel is "
                       "exp(-2), about 0.135; does your function give that?"),
        Diagnosis("gamma as 2 sigma^2", "you used gamma as sigma in exp(-||x-z||^2 / (2 sigma^2)); "
                  "here gamma multiplies: exp(-gamma ||x-z||^2)",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / (2 * gamma ** 2)),
                  hint="work one entry by hand: for ||x - z||^2 = 1 and gamma = 2 the kernel is "
                       "exp(-2), about 0.135; does your function give that?"),
        Diagnosis("gamma divides", "gamma multiplies the squared distance, it does not divide it",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / gamma),
                  hint="work one entry by hand: for ||x - z||^2 = 1 and gamma = 2 the kernel is "
                       "exp(-2), about 0.135; does your function give that?"),
        Diagnosis("no square", "the RBF kernel uses the squared distance ||x - z||^2",
                  lambda X, Z, gamma: np.exp(-gamma * np.sqrt(_sqdist(X, Z)))),
        Diagnosis("no minus", "the exponent is negative, -gamma ||x - z||^2: the kernel is 1 at "
                  "x = z and falls with the distance",
                  lambda X, Z, gamma: np.exp(gamma * _sqdist(X, Z))),
    ],
    kind="formula", section="1.5", rtol=1e-7,
    hints=("first the (n_X, n_Z) matrix of squared distances, then the kernel of each entry",
           "broadcast X[:, None, :] against Z[None, :, :] and sum the squares over the last axis"),
)


# ===================================================================== ex1.q6
def _psd_with_spectrum(rng, lam):
    Q, _ = np.linalg.qr(rng.normal(size=(len(lam), len(lam))))
    return _sym(Q @ np.diag(lam) @ Q.T)


def _cases_verdict(rng):
    X = _points(rng, 5, 2)
    dist = np.sqrt(_sqdist(X, X))
    rounding = _psd_with_spectrum(rng, [3.0, 1.0, 0.5, 0.0, -1e-13])
    upper = np.triu(rng.uniform(0.5, 1.0, size=(4, 4)))      # eigenvalues > 0, not symmetric
    # off-diagonal entries larger than the diagonal: q = e_1 - e_2 gives q^T K q < 0
    positive_entries = _sym(rng.uniform(1.0, 2.0, size=(3, 3)))
    np.fill_diagonal(positive_entries, rng.uniform(0.1, 0.5, size=3))
    return [
        Case((RBF(gamma=0.5)(_points(rng, 4, 2)),), label="an RBF Gram matrix"),
        Case((dist,), label="distances ||x_i - x_j|| used as a similarity"),
        Case((rounding,), label="a PSD matrix with an eigenvalue -1e-13 from rounding"),
        Case((upper,), label="an upper-triangular matrix with positive eigenvalues"),
        Case((positive_entries,), label="a symmetric matrix with positive entries"),
        Case((AllSubsets()(_points(rng, 4, 3)),), label="an all-subsets Gram matrix"),
        Case((_psd_with_spectrum(rng, [2.0, 1.0, -0.5]),),
             label="a symmetric matrix with one negative eigenvalue"),
    ]


def _mistake_entries(K):
    return bool(np.all(K >= 0))


def _mistake_symmetry_only(K):
    return bool(np.allclose(K, K.T))


def _mistake_no_symmetry(K):
    return bool(np.all(np.linalg.eigvals(K).real >= -1e-8))


def _mistake_determinant(K):
    return bool(np.allclose(K, K.T) and np.linalg.det(K) >= 0)


def _mistake_no_tol(K):
    return bool(np.allclose(K, K.T) and np.linalg.eigvalsh(K)[0] >= 0)


Q6 = Question(
    id="ex1.q6", title="is it a kernel matrix?", function="is_kernel_matrix", points=2,
    forbidden=(
        "kernelcourse.kernels.is_psd",
        "kernelcourse.kernels.min_eigenvalue",
        "kernelcourse.kernels.find_non_psd_witness",
    ),
    reference=is_psd, cases=_cases_verdict, fixed_cases=fixed_draw(_cases_verdict, 108),
    diagnoses=[
        Diagnosis("entries", "non-negative entries do not make a kernel matrix: look at the "
                  "eigenvalues", _mistake_entries),
        Diagnosis("symmetry only", "symmetry is needed but not enough: the eigenvalues must be "
                  ">= 0 too", _mistake_symmetry_only),
        Diagnosis("no symmetry", "a kernel matrix must be symmetric, whatever its eigenvalues",
                  _mistake_no_symmetry),
        Diagnosis("no tolerance", "eigenvalues computed in floating point can be -1e-13 for a PSD "
                  "matrix: allow a small tolerance relative to the largest eigenvalue",
                  _mistake_no_tol,
                  hint="print the smallest eigenvalue of the Gram matrix of three points that "
                       "coincide: it is PSD, yet the number printed may be just below 0"),
        Diagnosis("determinant", "a non-negative determinant does not make a matrix PSD: two "
                  "negative eigenvalues multiply to a positive number; look at every eigenvalue",
                  _mistake_determinant,
                  hint="try the diagonal matrix with entries -1, -1 and 1: its determinant is "
                       "positive; is it PSD?"),
    ],
    kind="derive", section="1.6",
    hints=("a kernel matrix is an inner-product matrix Phi Phi^T: which two properties does "
           "such a matrix always have?",
           "test symmetry first; then the eigenvalues of a symmetric matrix (np.linalg.eigvalsh), "
           "with the stated tolerance for rounding"),
)


# ===================================================================== ex1.q7
def _min_eigenvector(K):
    """The eigenvector of the smallest eigenvalue: ``q^T K q = lambda_min < 0``."""
    return np.linalg.eigh(_sym(np.asarray(K, float)))[1][:, 0]


def _cases_witness(rng):
    cases = []
    for n, d in [(3, 1), (4, 2), (6, 3)]:
        X = _points(rng, n, d)
        cases.append(Case((np.sqrt(_sqdist(X, X)),),
                          label=f"distances between {n} points in {d}-D"))
    K = np.tanh(0.5 * (X @ X.T) - 1.0)          # the sigmoid 'kernel' with a negative offset
    if np.linalg.eigvalsh(K)[0] < -1e-3:
        cases.append(Case((K,), label="tanh(0.5 x.z - 1) on 6 points"))
    return cases


def _unit_overlap(q, v) -> float:
    q = np.asarray(q, float)
    return abs(float(q @ v)) / max(float(np.linalg.norm(q)), 1e-300)


def _detect_top_eigenvector(q, case):
    K = _sym(np.asarray(case.args[0], float))
    if np.shape(q) != (len(K),):
        return False
    return _unit_overlap(q, np.linalg.eigh(K)[1][:, -1]) > 1 - 1e-6


def _detect_eigenvector_row(q, case):
    K = _sym(np.asarray(case.args[0], float))
    if np.shape(q) != (len(K),):
        return False
    row = np.linalg.eigh(K)[1][0]
    return np.allclose(np.asarray(q, float), row, atol=1e-8) and \
        _unit_overlap(q, np.linalg.eigh(K)[1][:, 0]) < 1 - 1e-6


def _negative(q, case):
    K = np.asarray(case.args[0], float)
    q = np.asarray(q, float)
    if q.shape != (K.shape[0],) or not np.all(np.isfinite(q)):
        return False
    return float(q @ K @ q) < -1e-6 * float(q @ q)


Q7 = Question(
    id="ex1.q7", title="a witness that a matrix is not PSD", function="negative_direction",
    forbidden=("kernelcourse.kernels.find_non_psd_witness", "kernelcourse.kernels.Witness",),
    points=2, reference=_min_eigenvector, cases=_cases_witness,
    fixed_cases=fixed_draw(_cases_witness, 109),
    compare_reference=False,
    properties=[Property("negative", _negative, "the answer must be a vector q of length n with "
                         "q^T K q < 0")],
    diagnoses=[
        Diagnosis("largest", "you took the eigenvector of the largest eigenvalue; the one of the "
                  "smallest (negative) eigenvalue gives q^T K q < 0",
                  lambda K: np.linalg.eigh(K)[1][:, -1], detect=_detect_top_eigenvector),
        Diagnosis("eigenvalue", "return the direction q (an eigenvector), not the eigenvalue",
                  lambda K: float(np.linalg.eigvalsh(K)[0]),
                  detect=lambda q, case: np.ndim(q) == 0),
        Diagnosis("eigenvalues", "you returned the eigenvalues; the witness is a direction q, "
                  "the eigenvector of the negative eigenvalue", lambda K: np.linalg.eigvalsh(K),
                  detect=lambda q, case: np.shape(q) == (len(case.args[0]),) and np.allclose(
                      np.sort(np.asarray(q, float)), np.linalg.eigvalsh(_sym(
                          np.asarray(case.args[0], float))), atol=1e-8)),
        Diagnosis("row", "np.linalg.eigh returns the eigenvectors as the columns of its second "
                  "result: V[:, k], not the row V[k]", lambda K: np.linalg.eigh(K)[1][0],
                  detect=_detect_eigenvector_row),
    ],
    kind="witness", section="1.6",
    hints=("q^T K q for a unit eigenvector q is its eigenvalue: which eigenvalue is negative?",
           "np.linalg.eigh returns the eigenvalues in increasing order, and the eigenvectors as "
           "columns of its second result"),
)


# ===================================================================== ex1.q8
#: the options of ex1.q8: is exp(-||x - z||) a kernel? (the plain, not squared, distance)
LAPLACE_OPTIONS = {
    "a": "No: it is not differentiable where x = z, and a kernel must be smooth.",
    "b": "No: only the squared distance gives a kernel; with the plain distance some Gram "
         "matrices have a negative eigenvalue.",
    "c": "Yes: every Gram matrix it produces is symmetric positive semi-definite.",
    "d": "Yes: its values lie in (0, 1] and the diagonal is 1, which is what makes a kernel.",
}


Q8 = Question(
    id="ex1.q8", title="is exp(-||x - z||) a kernel?", function="laplace_is_kernel", points=2,
    **choice_parts("c", {
        "a": "smoothness is not what section 1.6 asks of a kernel: it asks one property of "
             "every Gram matrix, and a function with a kink can have it or not; test that "
             "property on a few point sets with your is_kernel_matrix",
        "b": "that claim about negative eigenvalues can be tested before you rely on it: build "
             "the Gram matrix of exp(-||x - z||) on a few random point sets and look at its "
             "smallest eigenvalue",
        "d": "that reason does not make a kernel: exp(-||x - z||^4) also has values in (0, 1] and "
             "a unit diagonal, yet some of its Gram matrices have a negative eigenvalue",
    }),
    kind="choice", section="1.6",
    hints=("a kernel is a function whose every Gram matrix is symmetric PSD (section 1.6); "
           "which option states a property that decides that?",
           "test it: draw a few point sets, build the Gram matrix of exp(-||x - z||) and look "
           "at its smallest eigenvalue with your is_kernel_matrix"),
)


# ===================================================================== ex1.q9
def _sigmoid_gram(X, a, c):
    X = np.atleast_2d(np.asarray(X, float))
    return np.tanh(a * (X @ X.T) + c)


def _sigmoid_witness(a, c, d):
    """One point at the origin: its 1 x 1 Gram matrix tanh(c) is negative when c < 0."""
    return np.zeros((1, d))


def _cases_sigmoid(rng):
    cases = []
    for d in (3, 4, 5):
        a = float(np.round(rng.uniform(0.2, 2.0), 2))
        c = float(np.round(-rng.uniform(0.3, 2.0), 2))
        cases.append(Case((a, c, d), label=f"a={a}, c={c}, d={d}"))
    return cases


def _not_psd(X, case):
    a, c, d = case.args
    X = np.asarray(X, float)
    if X.ndim != 2 or X.shape[1] != d or not 1 <= X.shape[0] <= 50 or not np.all(np.isfinite(X)):
        return False
    lam = np.linalg.eigvalsh(_sigmoid_gram(X, a, c))
    return float(lam[0]) < -1e-6 * max(1.0, float(np.abs(lam).max()))


def _mistake_points_as_columns(a, c, d):
    return np.full((d, d + 1), 0.1)


def _mistake_gram_not_points(a, c, d):
    return _sigmoid_gram(np.eye(2, d), a, c)


def _mistake_saturated(a, c, d):
    return np.full((3, d), 10.0)


def _detect_columns(X, case):
    d = case.args[2]
    return np.ndim(X) == 2 and np.shape(X)[0] == d and np.shape(X)[1] != d


def _detect_gram(X, case):
    d = case.args[2]
    shape = np.shape(X)
    return len(shape) == 2 and shape[0] == shape[1] != d


#: the corners of the box the cases come from (a in [0.2, 2], c in [-2, -0.3]): a set of points
#: chosen without a and c is a witness at some corners only
_SIGMOID_CORNERS = [(2.0, -0.3), (0.2, -2.0), (2.0, -2.0), (0.2, -0.3)]


def _fixed_sigmoid():
    return [Case((a, c, d), label=f"a={a}, c={c}, d={d}")
            for (a, c), d in zip(_SIGMOID_CORNERS, (3, 5, 1, 4))]


def _mistake_same_points(a, c, d):
    """Two unit vectors whatever a and c: a witness only while a < 2 |c|."""
    return np.eye(2, d)


def _detect_same_points(X, case):
    a, c, d = case.args
    if _not_psd(X, case) or np.ndim(X) != 2 or np.shape(X)[1] != d:
        return False
    return any(_not_psd(X, Case((a2, c2, d))) for a2, c2 in _SIGMOID_CORNERS)


def _detect_saturated(X, case):
    a, c, d = case.args
    X = np.asarray(X, float)
    if X.ndim != 2 or X.shape[1] != d:
        return False
    return bool(np.all(np.abs(a * (X @ X.T) + c) > 3))


Q9 = Question(
    id="ex1.q9", title="points where the sigmoid is not a kernel", function="sigmoid_witness",
    points=2, reference=_sigmoid_witness, cases=_cases_sigmoid,
    fixed_cases=fixed_draw(_cases_sigmoid, 110, extra=_fixed_sigmoid), compare_reference=False,
    forbidden=("kernelcourse.kernels.find_non_psd_witness", "kernelcourse.kernels.Witness"),
    properties=[Property("not PSD", _not_psd, "the answer must be points X of shape (n, d), "
                         "1 <= n <= 50, whose Gram matrix tanh(a X X^T + c) has a negative "
                         "eigenvalue")],
    diagnoses=[
        Diagnosis("points as columns", "return the points as the rows of X, shape (n, d); your "
                  "array has d rows", _mistake_points_as_columns, detect=_detect_columns),
        Diagnosis("a Gram matrix", "return the points X (shape (n, d)), not their Gram matrix: the "
                  "check builds tanh(a X X^T + c) itself", _mistake_gram_not_points,
                  detect=_detect_gram),
        Diagnosis("saturated", "with large inputs tanh is 1 everywhere and the Gram matrix is the "
                  "all-ones matrix, which is PSD: look near the origin, where the offset c < 0 "
                  "decides the sign", _mistake_saturated, detect=_detect_saturated),
        Diagnosis("ignores a and c", "your points are a witness for some a and c but not for "
                  "these: whether tanh(a X X^T + c) has a negative eigenvalue depends on a and c, "
                  "so choose the points from them (look at the sign of the diagonal)",
                  _mistake_same_points, detect=_detect_same_points),
    ],
    kind="witness", section="1.6",
    hints=("a Gram matrix of a kernel has a non-negative diagonal: k(x, x) >= 0 for every x. "
           "Can you make k(x, x) negative?",
           "the smallest witness is a single point: its Gram matrix is the 1 x 1 matrix "
           "tanh(a ||x||^2 + c); what happens at x = 0 when c < 0?"),
)


# ===================================================================== ex1.q11
def _squared_distances(X, Z):
    """``||x_i - z_j||^2`` for every pair, by the slow loop's formula (broadcast)."""
    return _sqdist(np.asarray(X, float), np.asarray(Z, float))


def _cases_sqdist(rng):
    cases = []
    for n_x, n_z, d in [(3, 4, 2), (4, 4, 3), (5, 2, 4)]:
        X, Z = _points(rng, n_x, d), _points(rng, n_z, d)
        cases.append(Case((X, Z), label=_shape(("X", X), ("Z", Z))))
    return cases


def _expansion(cross, square=True):
    def mistake(X, Z):
        X, Z = np.asarray(X, float), np.asarray(Z, float)
        sx, sz = (X ** 2).sum(1), (Z ** 2).sum(1)
        out = sx[:, None] + sz[None, :] + cross * (X @ Z.T)
        return out if square else np.sqrt(np.maximum(out, 0.0))
    return mistake


def _halved_norms(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return ((X ** 2).sum(1)[:, None] + (Z ** 2).sum(1)[None, :]) / 2 - X @ Z.T


def _norms_not_squared(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return (np.linalg.norm(X, axis=1)[:, None] + np.linalg.norm(Z, axis=1)[None, :]
            - 2 * X @ Z.T)


Q11 = Question(
    id="ex1.q11", title="fix the fast squared distances", function="squared_distances",
    points=2, reference=_squared_distances, cases=_cases_sqdist,
    fixed_cases=fixed_draw(_cases_sqdist, 112),
    atol=1e-9,
    forbidden=("kernelcourse.kernels.RBF", "kernelcourse.kernels._fast_rbf._rbf_gram"),
    diagnoses=[
        Diagnosis("bug kept", "the cross term: ||x - z||^2 = ||x||^2 + ||z||^2 - 2 x.z; the given "
                  "code subtracts x.z only once", _expansion(-1.0)),
        Diagnosis("sign of the cross term", "the cross term is subtracted: ||x - z||^2 = "
                  "||x||^2 + ||z||^2 - 2 x.z, not + 2 x.z", _expansion(2.0)),
        Diagnosis("square root", "the function returns squared distances; you took the square "
                  "root (the distances themselves)", _expansion(-2.0, square=False)),
        Diagnosis("halved the norms", "you changed the line of the norms instead: halving them "
                  "gives ||x - z||^2 / 2; the norms were right, the inner-product term is the one "
                  "that needs its factor", _halved_norms),
        Diagnosis("norms not squared", "the expansion has the squared norms ||x||^2 and "
                  "||z||^2; you used the norms ||x||, ||z||", _norms_not_squared),
    ],
    kind="fix", section="1.5",
    hints=("expand ||x - z||^2 = (x - z).(x - z) by hand and compare term by term with the code",
           "the norms are right; look at the coefficient of the inner-product term"),
)
