"""Lecture 3, sections 3.6 and 3.7: normalising and centring Gram matrices, for the training
points and for new ones (l3.cp2, ex3.q2, ex3.q3, ex3.q10)."""
from __future__ import annotations

import numpy as np

from ....feature_space import center_gram, center_kernel_rows, normalize_gram
from ...model import Case, Diagnosis, Property, Question, fixed_draw
from .._shared import own_mean as _own_mean
from ._common import _points, _poly_gram


# ===================================================================== l3.cp2
def _cases_center(rng):
    cases = []
    for n, d in [(3, 2), (4, 3), (6, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        cases.append(Case((K,), label=f"K of shape ({n}, {n})"))
    return cases


def _no_grand(K):
    return K - K.mean(axis=1, keepdims=True) - K.mean(axis=0, keepdims=True)


def _rows_only(K):
    return K - K.mean(axis=1, keepdims=True)


def _grand_over_m(K):
    m = K.shape[0]
    return _no_grand(K) + K.sum() / m


def _minus_grand(K):
    return K - K.mean()


def _centred_sum_zero(Kc, case):
    return abs(float(np.sum(Kc))) < 1e-5 * max(1.0, float(np.abs(case.args[0]).sum()))


CP2 = Question(
    id="l3.cp2", title="centering a Gram matrix", function="center_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
    ),
    reference=center_gram, cases=_cases_center, fixed_cases=fixed_draw(_cases_center, 302),
    properties=[Property("mean zero", _centred_sum_zero,
                         "the centred sample has mean zero, so j^T K_hat j = sum of all entries = 0")],
    diagnoses=[
        Diagnosis("missing 1/m^2 term", "the last term (1/m^2)(j^T K j) j j^T is missing: after "
                  "subtracting both the row and the column means, add back the mean of all entries",
                  _no_grand),
        Diagnosis("rows only", "you subtracted the row means only; centering subtracts the row "
                  "means and the column means and adds back the overall mean", _rows_only),
        Diagnosis("1/m instead of 1/m^2", "the last term is (1/m^2) j^T K j, the mean of all "
                  "entries; you divided the total by m only", _grand_over_m),
        Diagnosis("overall mean only", "subtracting the overall mean of K does not centre the "
                  "features: subtract the row and column means, add back the overall mean",
                  _minus_grand),
    ],
    kind="derive", section="3.7",
    hints=("expand <phi(x_i) - phi_S, phi(x_j) - phi_S> with phi_S = (1/m) sum_k phi(x_k): four "
           "terms, each a mean of kernel values",
           "the four terms are K[i, j], the mean of row i, the mean of column j and the mean of "
           "all entries; mind their signs (keepdims=True keeps the means broadcastable)"),
)


# ===================================================================== ex3.q2
def _cases_center_rows(rng):
    cases = []
    for n, p, d in [(4, 3, 2), (5, 2, 3), (7, 4, 2)]:
        X, k, K = _poly_gram(rng, n, d)
        Xt = _points(rng, p, d, shift=-0.5)       # new points elsewhere: their own mean differs
        cases.append(Case((k(Xt, X), K), label=f"K_test of shape ({p}, {n}), K_train ({n}, {n})"))
    return cases


def _center_test_rows(K_test, K_train):
    """Rows ``k(x_a, x_i)`` centred on the training mean: :func:`center_kernel_rows`."""
    return center_kernel_rows(K_test, K_train)


def _rows_no_grand(K_test, K_train):
    return K_test - K_test.mean(axis=1, keepdims=True) - K_train.mean(axis=0)[None, :]


def _rows_train_rows(K_test, K_train):
    return K_test - K_train.mean(axis=1)[None, :] - K_train.mean(axis=0)[None, :] + K_train.mean()


Q2 = Question(
    id="ex3.q2", title="centering new points' kernel rows", function="center_test_rows",
    forbidden=(
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.GramCenterer",
    ),
    points=3, reference=_center_test_rows, cases=_cases_center_rows,
    fixed_cases=fixed_draw(_cases_center_rows, 304),
    diagnoses=[
        Diagnosis("own mean", "you centred the test points on their own mean; new points are "
                  "centred with the TRAINING mean phi_S: subtract the training column means of "
                  "K_train and add back the training grand mean", _own_mean),
        Diagnosis("missing 1/m^2 term", "the term (1/m^2) j^T K j (the mean of all entries of "
                  "K_train) is missing", _rows_no_grand),
        Diagnosis("training row means", "each new point x needs its own (1/m) sum_i k(x, x_i), the "
                  "mean of its row of K_test; you used the training matrix's row means",
                  _rows_train_rows),
    ],
    kind="derive", section="3.7",
    hints=("expand <phi(x_a) - phi_S, phi(x_i) - phi_S> where phi_S is the mean of the TRAINING "
           "points; which kernel values does each of the four terms need?",
           "one term needs the new point's row of K_test (its mean over the training points), "
           "one the training column means of K_train, one the mean of all of K_train"),
)


# ===================================================================== ex3.q3
def _cases_normalized(rng):
    cases = []
    for n, d in [(3, 2), (4, 3), (5, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        cases.append(Case((K,), label=f"K of shape ({n}, {n})"))
    return cases


def _unit_diagonal(Kn, case):
    return np.allclose(np.diag(np.asarray(Kn, float)), 1.0, rtol=1e-5, atol=0)   # float32 passes


Q3 = Question(
    id="ex3.q3", title="the normalised Gram matrix", function="normalized_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.normalize_gram",
        "kernelcourse.feature_space.normalize_kernel_rows",
        "kernelcourse.kernels.Normalized",
    ),
    reference=normalize_gram, cases=_cases_normalized,
    fixed_cases=fixed_draw(_cases_normalized, 305),
    properties=[Property("unit diagonal", _unit_diagonal,
                         "normalised features have unit norm: every k_hat(x, x) must be 1")],
    diagnoses=[
        Diagnosis("no square root", "divide by sqrt(k(x,x) k(z,z)), the product of the two norms; "
                  "you divided by k(x,x) k(z,z)",
                  lambda K: K / np.outer(np.diag(K), np.diag(K))),
        Diagnosis("one side", "divide by both norms ||phi(x)|| ||phi(z)||; you divided each row by "
                  "k(x, x) only", lambda K: K / np.diag(K)[:, None]),
        Diagnosis("one norm only", "divide by both norms ||phi(x)|| ||phi(z)||; you divided "
                  "each row by its own norm sqrt(k(x, x)) only",
                  lambda K: K / np.sqrt(np.diag(K))[:, None]),
        Diagnosis("largest entry", "normalising the features is not dividing K by its largest "
                  "entry: divide K[i, j] by sqrt(K[i, i] K[j, j])", lambda K: K / K.max()),
    ],
    kind="derive", section="3.6",
    hints=("normalising replaces phi(x) by phi(x) / ||phi(x)||; what is ||phi(x)|| in kernel "
           "values?",
           "||phi(x_i)|| is the square root of a diagonal entry of K; divide entry (i, j) by the "
           "product of two such norms (np.outer builds all products at once)"),
)


# ===================================================================== ex3.q10
def _center_new_gram(K_new, K_new_train, K_train):
    """Gram matrix of new points, each feature vector moved by the TRAINING mean phi_S."""
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - r[None, :] + K_train.mean()


def _cases_center_new(rng):
    cases = []
    for n, p, d in [(5, 3, 2), (6, 4, 3), (8, 4, 2)]:
        X, k, K = _poly_gram(rng, n, d)
        Xn = _points(rng, p, d, shift=-0.5)       # new points elsewhere: their own mean differs
        cases.append(Case((k(Xn), k(Xn, X), K),
                          label=f"K_new ({p}, {p}), K_new_train ({p}, {n}), K_train ({n}, {n})"))
    return cases


def _buggy_center_new_gram(K_new, K_new_train, K_train):
    """The function given to students (the bug: the new points' own mean)."""
    return (K_new - K_new.mean(axis=1, keepdims=True) - K_new.mean(axis=0, keepdims=True)
            + K_new.mean())


def _new_no_grand(K_new, K_new_train, K_train):
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - r[None, :]


def _new_grand_over_m(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_train.sum() / len(K_train)


def _new_cross_grand(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_new_train.mean()


def _new_one_side(K_new, K_new_train, K_train):
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - K_new.mean(axis=0, keepdims=True) + K_new.mean()


def _new_own_grand(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_new.mean()


Q10 = Question(
    id="ex3.q10", title="fix: centring the new points' Gram matrix", function="center_new_gram",
    points=2, kind="fix", section="3.7",
    forbidden=(
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
    ),
    reference=_center_new_gram, cases=_cases_center_new,
    fixed_cases=fixed_draw(_cases_center_new, 312),
    diagnoses=[
        Diagnosis("own mean", "the bug is still there: the new points are centred on their own "
                  "mean; the origin must move to the TRAINING mean phi_S, whatever points are "
                  "centred", _buggy_center_new_gram),
        Diagnosis("missing ||phi_S||^2", "the term ||phi_S||^2 = (1/m^2) j^T K_train j (the "
                  "mean of all entries of K_train) is missing", _new_no_grand),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 is the MEAN of all entries of K_train "
                  "(divide the sum by m^2); you divided by m", _new_grand_over_m),
        Diagnosis("mean of the cross block", "you added the mean of K_new_train, which is "
                  "<mean of the new phi(x), phi_S>; the last term is ||phi_S||^2, the mean of "
                  "K_train", _new_cross_grand),
        Diagnosis("one side fixed", "you moved the rows to the training mean but left the "
                  "columns on the new points' own mean: both middle terms are <phi(x), phi_S>, "
                  "from the rows of K_new_train", _new_one_side),
        Diagnosis("own grand mean", "the middle terms are right, but the last one is still the "
                  "new points' own mean K_new.mean(); it must be ||phi_S||^2, a mean over the "
                  "training points", _new_own_grand),
    ],
    hints=("which mean does the given function subtract? The origin must move to the mean of the "
           "training points, so every term must involve training points",
           "expand <phi(x_a) - phi_S, phi(x_b) - phi_S>: the middle terms are means of the rows "
           "of K_new_train, the last is a mean over K_train"),
)
