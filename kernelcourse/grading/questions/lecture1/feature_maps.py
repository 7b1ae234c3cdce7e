"""Lecture 1, sections 1.1 and 1.3: the all-subsets map, its dimension and memory, the
kernel it gives and predictions with it (l1.cp1, ex1.q1, ex1.q2, ex1.q3, ex1.q10)."""
from __future__ import annotations

import math

import numpy as np

from ....features import all_subsets_map, feature_dim_all_subsets
from ....kernels import AllSubsets
from ...model import Case, Diagnosis, Property, Question, fixed_draw
from ._common import _points, _shape


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
    reference=_all_subsets_kernel, cases=_cases_kernel, fixed_cases=fixed_draw(_cases_kernel, 101),
    diagnoses=[
        Diagnosis("no 1 +", "the factors are (1 + x_k z_k), not x_k z_k: without the 1 only "
                  "the full subset {1..d} is left", _mistake_no_one),
        Diagnosis("sum", "you added the d factors (1 + x_k z_k); the kernel multiplies them",
                  _mistake_sum),
        Diagnosis("polynomial", "you computed (1 + x.z)^d, the polynomial kernel; the all-subsets "
                  "kernel is the product over k of (1 + x_k z_k)", _mistake_poly),
    ],
    kind="formula", section="1.3",  # the lecture's checkpoint text prints K_ij
    hints=("expand the product over the coordinates: every subset A of {1..d} appears once, as "
           "phi_A(x) phi_A(z); so the kernel is a product of d simple factors, one per coordinate",
           "start from a matrix of ones of shape (n_X, n_Z) and, for each coordinate k, multiply "
           "it by the factor that coordinate contributes (an outer product of column k of X "
           "and column k of Z, plus one)"),
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


def _missing_one_column(Phi, case, which) -> bool:
    """Phi holds every subset feature but the one ``which`` picks (any column order)."""
    X = case.args[0]
    n, d = X.shape
    if np.shape(Phi) != (n, 2 ** d - 1):
        return False
    full = all_subsets_map(X)
    keep = [j for j in range(2 ** d) if j != which(d)]
    return np.allclose(np.sort(np.asarray(Phi, float), axis=1), np.sort(full[:, keep], axis=1))


def _detect_no_constant(Phi, case):
    return _missing_one_column(Phi, case, lambda d: 0)


def _mistake_no_full_product(X):
    return all_subsets_map(X)[:, :-1]


def _detect_no_full_product(Phi, case):
    return case.args[0].shape[1] > 1 and _missing_one_column(Phi, case, lambda d: 2 ** d - 1)


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
    reference=all_subsets_map, cases=_cases_features,
    fixed_cases=fixed_draw(_cases_features, 103),
    compare_reference=False,
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
        Diagnosis("no full product", "the subset of all d coordinates is missing: its feature is "
                  "the product x_1 x_2 ... x_d (range(d + 1) in the subset sizes, not range(d))",
                  _mistake_no_full_product, detect=_detect_no_full_product),
        Diagnosis("pairs only", "you stopped at pairs x_i x_j; the map has a product for every "
                  "subset, up to x_1 x_2 ... x_d", _mistake_pairs_only, detect=_detect_pairs_only),
        Diagnosis("sums", "a feature is the product of the x_k in a subset, not their sum",
                  _mistake_sums, detect=_detect_sums),
    ],
    kind="formula", section="1.1",
    hints=("one column per subset of the coordinates, the empty subset and the full one "
           "included; itertools can list the subsets of each size",
           "for each size s from 0 to d and each subset of that size, the column is the "
           "product of the chosen columns of X (np.prod over an empty selection is 1)"),
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
    reference=feature_dim_all_subsets, cases=_cases_dim, fixed_cases=fixed_draw(_cases_dim, 104),
    diagnoses=[
        Diagnosis("minus one", "you left out the empty subset (the constant feature 1)",
                  lambda d: 2 ** d - 1),
        Diagnosis("d squared", "there is one feature per subset of {1..d}, not per pair",
                  lambda d: d ** 2),
        Diagnosis("d factorial", "subsets are not orderings: count subsets, 2 choices per coordinate",
                  lambda d: math.factorial(d)),
        Diagnosis("2 d", "each new coordinate doubles the number of subsets (every old subset "
                  "with and without it); it does not add 2", lambda d: 2 * d),
    ],
    kind="derive", section="1.1",
    hints=("count the subsets of {1, ..., d}: try d = 1, 2, 3 by hand",
           "each coordinate is either in a subset or not, independently of the others"),
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
    points=2, reference=_predict, cases=_cases_predict, fixed_cases=fixed_draw(_cases_predict, 105),
    diagnoses=[
        Diagnosis("linear", "you used the plain inner product x_j . x_t; the prediction uses the "
                  "kernel k(x_j, x_t) = prod_k (1 + x_jk x_tk)",
                  lambda X_train, alpha, X_test: X_test @ X_train.T @ alpha),
        Diagnosis("no 1 +", "the kernel's factors are (1 + x_jk x_tk), not x_jk x_tk",
                  lambda X_train, alpha, X_test: _mistake_no_one(X_test, X_train) @ alpha),
        Diagnosis("no alpha", "each k(x_j, x_t) must be weighted by alpha_j",
                  lambda X_train, alpha, X_test: AllSubsets()(X_test, X_train).sum(axis=1)),
    ],
    kind="derive", section="1.3",
    hints=("w is a combination of the phi(x_j), so w . phi(x) is the same combination of inner "
           "products phi(x_j) . phi(x): use the O(d) shortcut of section 1.3 for each",
           "build the (m, n) matrix of kernel values between the test rows and the training "
           "rows, then weight its columns by alpha"),
)


# ===================================================================== ex1.q10
def _gigabytes(d):
    """Memory of one float64 vector phi(x) of the all-subsets map, in gigabytes (10^9 bytes)."""
    return 2.0 ** d * 8 / 1e9


def _cases_memory(rng):
    return [Case((d,), label=f"d={d}") for d in
            (int(rng.integers(20, 28)), int(rng.integers(30, 36)), int(rng.integers(38, 45)))]


Q10 = Question(
    id="ex1.q10", title="how much memory one phi(x) takes", function="phi_gigabytes", points=1,
    reference=_gigabytes, cases=_cases_memory,
    fixed_cases=fixed_draw(_cases_memory, 111),
    rtol=1e-2, atol=0.0,
    forbidden=("kernelcourse.features.feature_dim_all_subsets",),
    diagnoses=[
        Diagnosis("one byte per feature", "a float64 number takes 8 bytes, not 1",
                  lambda d: 2.0 ** d / 1e9),
        Diagnosis("bits", "8 bytes per number is 64 bits: you counted bits, the question asks "
                  "for bytes", lambda d: 2.0 ** d * 64 / 1e9),
        Diagnosis("megabytes", "a gigabyte is 10^9 bytes; dividing by 10^6 gives megabytes",
                  lambda d: 2.0 ** d * 8 / 1e6),
        Diagnosis("gibibytes", "a gigabyte here is 10^9 bytes; you divided by 2^30 (a "
                  "gibibyte, 7% more)", lambda d: 2.0 ** d * 8 / 2 ** 30),
        Diagnosis("d features", "phi has one feature per subset of the coordinates, not one per "
                  "coordinate", lambda d: d * 8 / 1e9),
    ],
    kind="predict", section="1.1",
    hints=("first the number of features (question 2), then the bytes of one float64",
           "one float64 takes 8 bytes; a gigabyte here is 10^9 bytes"),
)
