"""Lecture 1 (feature expansions and the kernel trick): exercise set ``ex1`` and
the checkpoints ``l1.cp1``, ``l1.cp2`` of the lecture notebook.

A worked example of the question API (:mod:`kernelcourse.grading.core`): each
question names the function the student writes, the package function that is
its reference, a generator of fresh random inputs, and the mistakes we expect,
each written as the function a student with that misconception would write.

============  ======================  ====  ========================================
id            function                pts   syllabus
============  ======================  ====  ========================================
l1.cp1        all_subsets_kernel      2     1.3 the O(d) inner-product shortcut
l1.cp2        kernel_gd_step          2     1.2, 1.4 one step on alpha
ex1.q1        all_subsets_features    3     1.1 the all-subsets map (any column order)
ex1.q2        all_subsets_dim         1     1.1 the lecture's quiz: 2^d
ex1.q3        all_subsets_predict     2     1.3, 1.4 h(x) = sum_j alpha_j k(x_j, x)
ex1.q4        kernel_gd               3     1.2, 1.4 a whole run of kernelised GD
ex1.q5        rbf_gram                2     1.5 the RBF kernel, scikit-learn's gamma
ex1.q6        is_kernel_matrix        2     1.6 valid kernels are the PSD ones
ex1.q7        negative_direction      2     1.6 a witness that a matrix is not PSD
============  ======================  ====  ========================================
"""
from __future__ import annotations

import math

import numpy as np

from ...features import all_subsets_map, feature_dim_all_subsets
from ...gradient_descent import kernel_gd_step, kernel_gradient_descent
from ...kernels import RBF, AllSubsets, is_psd
from ..core import Case, Diagnosis, Property, Question


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _shape(*arrays):
    return ", ".join(f"{name} of shape {a.shape}" for name, a in arrays)


def _stable_step(K, rng):
    """A step size below 1 / (2 lambda_max(K)), so the squared loss decreases."""
    lam_max = float(np.linalg.eigvalsh(K)[-1])
    return float(np.round(rng.uniform(0.2, 0.45) / lam_max, 6))


def _gram_problem(rng, n, d):
    X = _points(rng, n, d, scale=0.7)
    K = AllSubsets()(X)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, K, y


# ===================================================================== l1.cp1
def _all_subsets_kernel(X, Z):
    """``K_ij = prod_k (1 + x_ik z_jk)``: the package's :class:`AllSubsets` kernel."""
    return AllSubsets()(X, Z)


def _cases_kernel(rng):
    cases = []
    for n_x, n_z, d in [(3, 2, 2), (4, 3, 3), (5, 5, 4), (2, 4, 6)]:
        X, Z = _points(rng, n_x, d), _points(rng, n_z, d)
        cases.append(Case((X, Z), label=_shape(("X", X), ("Z", Z))))
    return cases


def _mistake_no_one(X, Z):
    return np.prod(X[:, None, :] * Z[None, :, :], axis=-1)


def _mistake_sum(X, Z):
    return np.sum(1 + X[:, None, :] * Z[None, :, :], axis=-1)


def _mistake_poly(X, Z):
    return (1 + X @ Z.T) ** X.shape[1]


CP1 = Question(
    id="l1.cp1", title="all-subsets kernel", function="all_subsets_kernel", points=2,
    forbidden=("kernelcourse.kernels.AllSubsets", "kernelcourse.features.all_subsets_inner_products",
               "kernelcourse.features.all_subsets_map",),
    reference=_all_subsets_kernel, cases=_cases_kernel,
    diagnoses=[
        Diagnosis("no 1 +", "the factors are (1 + x_k z_k), not x_k z_k: without the 1 only "
                  "the full subset {1..d} is left", _mistake_no_one),
        Diagnosis("sum", "you added the d factors (1 + x_k z_k); the kernel multiplies them",
                  _mistake_sum),
        Diagnosis("polynomial", "you computed (1 + x.z)^d, the polynomial kernel; the all-subsets "
                  "kernel is the product over k of (1 + x_k z_k)", _mistake_poly),
    ],
    hint="K[i, j] is the product over k of (1 + X[i, k] * Z[j, k]); return the (n_X, n_Z) matrix",
)


# ===================================================================== l1.cp2
def _cases_step(rng):
    cases = []
    for n in (3, 4, 6):
        _, K, y = _gram_problem(rng, n, 2)
        alpha = np.round(rng.normal(scale=0.3, size=n), 3)
        step = _stable_step(K, rng)
        cases.append(Case((K, y, alpha, step), label=f"n={n}, step={step:g}"))
    return cases


def _mistake_step_sign(K, y, alpha, step):
    return alpha + step * 2 * (K @ alpha - y)


def _mistake_step_no_two(K, y, alpha, step):
    return alpha - step * (K @ alpha - y)


def _mistake_step_residual(K, y, alpha, step):
    return alpha - step * 2 * (alpha - y)


CP2 = Question(
    id="l1.cp2", title="one step of kernelised gradient descent", function="kernel_gd_step",
    forbidden=(
        "kernelcourse.gradient_descent.kernel_gd_step",
        "kernelcourse.gradient_descent.dual_gradient",
        "kernelcourse.gradient_descent.kernel_gradient_descent",
        "kernelcourse.gradient_descent.KernelGD",
    ),
    points=2, reference=kernel_gd_step, cases=_cases_step,
    diagnoses=[
        Diagnosis("sign", "the sign is flipped: gradient descent subtracts step * gamma", _mistake_step_sign),
        Diagnosis("factor 2", "the factor 2 from differentiating the square is missing: "
                  "gamma_i = 2 (sum_j alpha_j K_ij - y_i)", _mistake_step_no_two),
        Diagnosis("no K", "the prediction on x_i is sum_j alpha_j K_ij (K @ alpha), not alpha_i",
                  _mistake_step_residual),
    ],
    hint="alpha_i <- alpha_i - step * 2 * (sum_j alpha_j K[i, j] - y_i); return a new array",
)


# ===================================================================== ex1.q1
def _cases_features(rng):
    cases = []
    for n, d in [(2, 1), (3, 2), (3, 3), (2, 5)]:
        X = _points(rng, n, d)
        cases.append(Case((X,), label=f"X of shape {X.shape}"))
    return cases


def _phi_shape(Phi, case):
    n, d = case.args[0].shape
    return np.shape(Phi) == (n, 2 ** d)


def _phi_same_features(Phi, case):
    """Each row holds the 2^d subset products, in any column order."""
    expected = all_subsets_map(case.args[0])
    return np.allclose(np.sort(np.asarray(Phi, float), axis=1), np.sort(expected, axis=1),
                       rtol=1e-7, atol=1e-9)


def _phi_same_order_in_every_row(Phi, case):
    """The same column order for every row: Phi Phi^T is the all-subsets Gram matrix."""
    X = case.args[0]
    Phi = np.asarray(Phi, float)
    return np.allclose(Phi @ Phi.T, AllSubsets()(X), rtol=1e-7, atol=1e-9)


def _mistake_no_constant(X):
    return all_subsets_map(X)[:, 1:]


def _mistake_pairs_only(X):
    n, d = X.shape
    pairs = [X[:, i] * X[:, j] for i in range(d) for j in range(i + 1, d)]
    return np.column_stack([np.ones(n), X, *pairs]) if pairs else np.column_stack([np.ones(n), X])


def _mistake_sums(X):
    """Sums x_a + x_b + ... over subsets instead of products."""
    n, d = X.shape
    cols = [np.array([sum(row[k] for k in range(d) if mask >> k & 1) for row in X])
            for mask in range(2 ** d)]
    return np.column_stack(cols)


def _detect_no_constant(Phi, case):
    n, d = case.args[0].shape
    return np.shape(Phi) == (n, 2 ** d - 1)


def _detect_pairs_only(Phi, case):
    n, d = case.args[0].shape
    return d > 2 and np.shape(Phi) == (n, 1 + d + d * (d - 1) // 2)


def _detect_sums(Phi, case):
    if not _phi_shape(Phi, case):
        return False
    return np.allclose(np.sort(np.asarray(Phi, float), axis=1),
                       np.sort(_mistake_sums(case.args[0]), axis=1))


Q1 = Question(
    id="ex1.q1", title="the all-subsets feature map", function="all_subsets_features", points=3,
    forbidden=("kernelcourse.features.all_subsets_map", "kernelcourse.kernels.AllSubsets",
               "kernelcourse.features.all_subsets_inner_products",),
    reference=all_subsets_map, cases=_cases_features, compare_reference=False,
    properties=[
        Property("shape", _phi_shape, "Phi must have shape (n, 2^d): one column per subset of "
                 "the d coordinates, the empty subset included"),
        Property("features", _phi_same_features, "a row must hold the product of x_k over every "
                 "subset of the coordinates (the empty product is 1)"),
        Property("order", _phi_same_order_in_every_row, "every row must use the same column order "
                 "(Phi @ Phi.T should be the all-subsets Gram matrix)"),
    ],
    diagnoses=[
        Diagnosis("no constant", "the empty subset is missing: its feature is the constant 1",
                  _mistake_no_constant, detect=_detect_no_constant),
        Diagnosis("pairs only", "you stopped at pairs x_i x_j; the map has a product for every "
                  "subset, up to x_1 x_2 ... x_d", _mistake_pairs_only, detect=_detect_pairs_only),
        Diagnosis("sums", "a feature is the product of the x_k in a subset, not their sum",
                  _mistake_sums, detect=_detect_sums),
    ],
    hint="loop over the 2^d subsets (e.g. itertools.combinations for each size) and multiply "
         "the chosen columns of X; return an (n, 2^d) array",
)


# ===================================================================== ex1.q2
def _cases_dim(rng):
    ds = [1, 2, int(rng.integers(3, 12)), int(rng.integers(12, 40))]
    return [Case((d,), label=f"d={d}") for d in ds]


Q2 = Question(
    id="ex1.q2", title="dimension of the all-subsets map", function="all_subsets_dim", points=1,
    forbidden=(
        "kernelcourse.features.feature_dim_all_subsets",
        "kernelcourse.features.all_subsets_map",
        "kernelcourse.kernels.AllSubsets",
        "kernelcourse.features.all_subsets_inner_products",
    ),
    reference=feature_dim_all_subsets, cases=_cases_dim,
    diagnoses=[
        Diagnosis("minus one", "you left out the empty subset (the constant feature 1)",
                  lambda d: 2 ** d - 1),
        Diagnosis("d squared", "there is one feature per subset of {1..d}, not per pair",
                  lambda d: d ** 2),
        Diagnosis("d factorial", "subsets are not orderings: count subsets, 2 choices per coordinate",
                  lambda d: math.factorial(d)),
    ],
    hint="each coordinate is either in a subset or not",
)


# ===================================================================== ex1.q3
def _predict(X_train, alpha, X_test):
    """``h(x_t) = sum_j alpha_j prod_k (1 + x_jk x_tk)`` for every row of X_test."""
    return AllSubsets()(X_test, X_train) @ alpha


def _cases_predict(rng):
    cases = []
    for n, m, d in [(3, 2, 2), (5, 4, 3), (4, 1, 5)]:
        X_train, X_test = _points(rng, n, d), _points(rng, m, d)
        alpha = np.round(rng.normal(size=n), 3)
        cases.append(Case((X_train, alpha, X_test),
                          label=_shape(("X_train", X_train), ("X_test", X_test))))
    return cases


Q3 = Question(
    id="ex1.q3", title="predicting with the all-subsets kernel", function="all_subsets_predict",
    forbidden=(
        "kernelcourse.kernels.AllSubsets",
        "kernelcourse.features.all_subsets_inner_products",
        "kernelcourse.features.all_subsets_map",
        "kernelcourse.gradient_descent.decision_function",
        "kernelcourse.gradient_descent.KernelGD",
    ),
    points=2, reference=_predict, cases=_cases_predict,
    diagnoses=[
        Diagnosis("linear", "you used the plain inner product x_j . x_t; the prediction uses the "
                  "kernel k(x_j, x_t) = prod_k (1 + x_jk x_tk)",
                  lambda X_train, alpha, X_test: X_test @ X_train.T @ alpha),
        Diagnosis("no 1 +", "the kernel's factors are (1 + x_jk x_tk), not x_jk x_tk",
                  lambda X_train, alpha, X_test: _mistake_no_one(X_test, X_train) @ alpha),
        Diagnosis("no alpha", "each k(x_j, x_t) must be weighted by alpha_j",
                  lambda X_train, alpha, X_test: AllSubsets()(X_test, X_train).sum(axis=1)),
    ],
    hint="build the (m, n) matrix k(x_t, x_j) and multiply it by alpha",
)


# ===================================================================== ex1.q4
def _kernel_gd(K, y, step, n_steps):
    """``alpha`` after ``n_steps`` steps of kernelised gradient descent from zero."""
    return kernel_gradient_descent(K, y, step, n_steps, record=False).coef


def _cases_gd(rng):
    cases = []
    for n, t in [(3, 1), (4, 3), (6, 8)]:
        _, K, y = _gram_problem(rng, n, 3)
        step = _stable_step(K, rng)
        cases.append(Case((K, y, step, t), label=f"n={n}, step={step:g}, n_steps={t}"))
    return cases


def _gd_mistake(update):
    def run(K, y, step, n_steps):
        alpha = np.zeros(len(y))
        for _ in range(n_steps):
            alpha = update(K, y, alpha, step)
        return alpha
    return run


def _gauss_seidel(K, y, alpha, step):
    alpha = alpha.copy()
    for i in range(len(y)):
        alpha[i] -= step * 2 * (K[i] @ alpha - y[i])
    return alpha


Q4 = Question(
    id="ex1.q4", title="kernelised gradient descent", function="kernel_gd", points=3,
    forbidden=(
        "kernelcourse.gradient_descent.kernel_gradient_descent",
        "kernelcourse.gradient_descent.kernel_gd_step",
        "kernelcourse.gradient_descent.dual_gradient",
        "kernelcourse.gradient_descent.KernelGD",
    ),
    reference=_kernel_gd, cases=_cases_gd,
    diagnoses=[
        Diagnosis("sign", "the sign is flipped: each step subtracts step * gamma",
                  _gd_mistake(_mistake_step_sign)),
        Diagnosis("factor 2", "the factor 2 of the squared loss's derivative is missing",
                  _gd_mistake(_mistake_step_no_two)),
        Diagnosis("in place", "you updated alpha one coordinate at a time and used the new values "
                  "within the same step; compute every gamma_i from the old alpha first",
                  _gd_mistake(_gauss_seidel)),
    ],
    hint="start from alpha = zeros(n) (w_0 = 0) and repeat alpha = alpha - step * 2 * (K @ alpha - y)",
)


# ===================================================================== ex1.q5
def _rbf_gram(X, Z, gamma):
    """``exp(-gamma ||x - z||^2)`` for every pair: the package's :class:`RBF`."""
    return RBF(gamma=gamma)(X, Z)


def _sqdist(X, Z):
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


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
    reference=_rbf_gram, cases=_cases_rbf,
    properties=[Property("range", lambda K, c: np.all((np.asarray(K) > 0) & (np.asarray(K) <= 1)),
                         "every RBF value lies in (0, 1]")],
    diagnoses=[
        Diagnosis("gamma as sigma", "you used gamma as the lecture's sigma, exp(-||x-z||^2 / gamma^2); "
                  "here gamma multiplies: exp(-gamma ||x-z||^2)",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / gamma ** 2)),
        Diagnosis("gamma as 2 sigma^2", "you used gamma as sigma in exp(-||x-z||^2 / (2 sigma^2)); "
                  "here gamma multiplies: exp(-gamma ||x-z||^2)",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / (2 * gamma ** 2))),
        Diagnosis("gamma divides", "gamma multiplies the squared distance, it does not divide it",
                  lambda X, Z, gamma: np.exp(-_sqdist(X, Z) / gamma)),
        Diagnosis("no square", "the RBF kernel uses the squared distance ||x - z||^2",
                  lambda X, Z, gamma: np.exp(-gamma * np.sqrt(_sqdist(X, Z)))),
    ],
    hint="K[i, j] = exp(-gamma * ||X[i] - Z[j]||^2)",
)


# ===================================================================== ex1.q6
def _sym(A):
    return (A + A.T) / 2


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
    ]


def _mistake_entries(K):
    return bool(np.all(K >= 0))


def _mistake_symmetry_only(K):
    return bool(np.allclose(K, K.T))


def _mistake_no_symmetry(K):
    return bool(np.all(np.linalg.eigvals(K).real >= -1e-8))


def _mistake_no_tol(K):
    return bool(np.allclose(K, K.T) and np.linalg.eigvalsh(K)[0] >= 0)


Q6 = Question(
    id="ex1.q6", title="is it a kernel matrix?", function="is_kernel_matrix", points=2,
    forbidden=(
        "kernelcourse.kernels.is_psd",
        "kernelcourse.kernels.min_eigenvalue",
        "kernelcourse.kernels.find_non_psd_witness",
    ),
    reference=is_psd, cases=_cases_verdict,
    diagnoses=[
        Diagnosis("entries", "non-negative entries do not make a kernel matrix: look at the "
                  "eigenvalues", _mistake_entries),
        Diagnosis("symmetry only", "symmetry is needed but not enough: the eigenvalues must be "
                  ">= 0 too", _mistake_symmetry_only),
        Diagnosis("no symmetry", "a kernel matrix must be symmetric, whatever its eigenvalues",
                  _mistake_no_symmetry),
        Diagnosis("no tolerance", "eigenvalues computed in floating point can be -1e-13 for a PSD "
                  "matrix: allow a small tolerance relative to the largest eigenvalue",
                  _mistake_no_tol),
    ],
    hint="check symmetry, then that the smallest eigenvalue (np.linalg.eigvalsh) is >= "
         "-1e-10 times the largest absolute eigenvalue",
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


def _negative(q, case):
    K = np.asarray(case.args[0], float)
    q = np.asarray(q, float)
    if q.shape != (K.shape[0],) or not np.all(np.isfinite(q)):
        return False
    return float(q @ K @ q) < -1e-6 * float(q @ q)


Q7 = Question(
    id="ex1.q7", title="a witness that a matrix is not PSD", function="negative_direction",
    forbidden=("kernelcourse.kernels.find_non_psd_witness", "kernelcourse.kernels.Witness",),
    points=2, reference=_min_eigenvector, cases=_cases_witness, compare_reference=False,
    properties=[Property("negative", _negative, "the answer must be a vector q of length n with "
                         "q^T K q < 0")],
    diagnoses=[
        Diagnosis("largest", "you took the eigenvector of the largest eigenvalue; the one of the "
                  "smallest (negative) eigenvalue gives q^T K q < 0",
                  lambda K: np.linalg.eigh(K)[1][:, -1],
                  detect=lambda q, case: np.ndim(q) == 1 and len(q) == len(case.args[0])
                  and float(np.asarray(q) @ case.args[0] @ np.asarray(q)) > 0),
        Diagnosis("eigenvalue", "return the direction q (an eigenvector), not the eigenvalue",
                  lambda K: float(np.linalg.eigvalsh(K)[0]),
                  detect=lambda q, case: np.ndim(q) == 0),
    ],
    hint="np.linalg.eigh(K) returns eigenvalues in increasing order and eigenvectors as columns",
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7]
