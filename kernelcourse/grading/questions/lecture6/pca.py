"""Lecture 6, section 6.4: kernel PCA, its explained variance and the projection of new points
(l6.cp2, ex6.q3, ex6.q9).
"""
from __future__ import annotations

import numpy as np

from ....feature_space import center_gram, center_kernel_rows
from ....kernel_pca import explained_variance_ratio
from ....kernels import RBF
from ...model import Case, Diagnosis, Property, Question
from .._shared import given as _given, own_mean as _own_mean
from ._common import _fixed, _points


# ===================================================================== l6.cp2
def _cases_variance(rng):
    cases = []
    for n, d, gamma in [(4, 2, 0.5), (6, 2, 1.0), (8, 3, 0.3)]:
        X = _points(rng, n, d, shift=1.0)
        cases.append(Case((RBF(gamma)(X),), label=f"RBF Gram matrix of shape ({n}, {n}), gamma={gamma}"))
    return cases


def _sums_to_one(r, case):
    return abs(float(np.sum(r)) - 1.0) < 1e-6


def _eig_desc(K):
    return np.linalg.eigvalsh(K)[::-1]


CP2 = Question(
    id="l6.cp2", title="kernel PCA's explained variance", function="explained_variance", points=2,
    forbidden=(
        "kernelcourse.kernel_pca.explained_variance_ratio",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=explained_variance_ratio, cases=_cases_variance, fixed_cases=_fixed(_cases_variance),
    properties=[Property("sums to one", _sums_to_one,
                         "the shares of the variance add up to 1: divide by the sum of all eigenvalues")],
    diagnoses=[
        Diagnosis("not centred", "kernel PCA works on centred features: centre K first "
                  "(row means, column means, overall mean), then take its eigenvalues",
                  lambda K: _eig_desc(K) / np.trace(K)),
        Diagnosis("ascending", "np.linalg.eigvalsh returns the eigenvalues in increasing order; "
                  "the largest share comes first", lambda K: explained_variance_ratio(K)[::-1]),
        Diagnosis("divided by m", "the share of the variance is lambda_k / trace(K_c); dividing by "
                  "the number of points gives the variance itself, not its share",
                  lambda K: _eig_desc(center_gram(K)) / K.shape[0]),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.4",
    hints=("section 6.4: kernel PCA diagonalises the Gram matrix of the centred features, so "
           "centre K first (section 3.7's double centring), then look at its eigenvalues",
           "each component's share is its eigenvalue over the total variance, the trace of the "
           "centred matrix; order them from the largest, and rounding can leave tiny negative "
           "eigenvalues that are really zero"),
)


# ===================================================================== ex6.q3
def _kpca_project(K_new, K_train, U, eigenvalues):
    return center_kernel_rows(K_new, K_train) @ (U / np.sqrt(eigenvalues))


def _cases_project(rng):
    cases = []
    for n, p, k in [(6, 2, 2), (8, 3, 2), (10, 4, 3)]:
        X = _points(rng, n, 2, shift=1.0)
        X_new = _points(rng, p, 2, shift=-0.5)       # elsewhere: their own mean differs
        kern = RBF(0.4)
        s, U = np.linalg.eigh(center_gram(kern(X)))
        s, U = np.round(s[::-1][:k], 8), U[:, ::-1][:, :k]
        cases.append(Case((kern(X_new, X), kern(X), U, s),
                          label=f"K_new of shape ({p}, {n}), K_train ({n}, {n}), {k} components"))
    return cases


def _proj_own_mean(K_new, K_train, U, eigenvalues):
    return _own_mean(K_new, K_train) @ (U / np.sqrt(eigenvalues))


Q3 = Question(
    id="ex6.q3", title="projecting new points with kernel PCA", function="kpca_project", points=3,
    forbidden=(
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=_kpca_project, cases=_cases_project, fixed_cases=_fixed(_cases_project),
    diagnoses=[
        Diagnosis("own mean", "new points are centred with the TRAINING mean phi_S: subtract each "
                  "new row's own mean, the training column means of K_train, and add back the mean "
                  "of K_train; you centred the new points on their own mean", _proj_own_mean),
        Diagnosis("not centred", "the components live in centred feature space: centre the new "
                  "kernel rows with the training statistics before projecting",
                  lambda K_new, K_train, U, eigenvalues: K_new @ (U / np.sqrt(eigenvalues))),
        Diagnosis("times sqrt(lambda)", "the direction v_k = sum_i alpha_ik phi(x_i) has unit norm "
                  "for alpha_k = u_k / sqrt(lambda_k): divide by sqrt(lambda_k), do not multiply",
                  lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U * np.sqrt(eigenvalues))),
        Diagnosis("divided by lambda", "alpha_k = u_k / sqrt(lambda_k), the square root of the "
                  "eigenvalue", lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U / eigenvalues)),
    ],
    rtol=1e-4, atol=1e-6, kind="derive", section="6.4",
    hints=("section 6.4: a new point is centred with the TRAINING mean in feature space; write "
           "<phi(x) - phi_mean, phi(x_i) - phi_mean> with kernel values only",
           "four terms: the kernel value, the new row's mean over the training points, the "
           "training columns' means, the training matrix's overall mean; then each component "
           "direction is its eigenvector scaled so that it has unit norm in feature space"),
)


# ===================================================================== ex6.q9
_BUGGY_TRANSFORM = """\
def kpca_transform(K_new, K_train, k):
    m = K_train.shape[0]
    J = np.eye(m) - np.ones((m, m)) / m
    s, U = np.linalg.eigh(J @ K_train @ J)              # the centred training Gram matrix
    s, U = s[::-1][:k], U[:, ::-1][:, :k]               # its k leading eigenpairs
    K_c = K_new - K_new.mean(axis=1, keepdims=True) - K_new.mean(axis=0) + K_new.mean()
    return K_c @ U / np.sqrt(s)
"""


def _kpca_transform(K_new, K_train, k):
    s, U = np.linalg.eigh(center_gram(K_train))
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    return center_kernel_rows(K_new, K_train) @ U / np.sqrt(s)


def _transform_with(centre, power=0.5, centred=True):
    def mistake(K_new, K_train, k):
        s, U = np.linalg.eigh(center_gram(K_train) if centred else K_train)
        s, U = s[::-1][:k], U[:, ::-1][:, :k]
        return centre(K_new, K_train) @ U / s**power
    return mistake


def _cases_transform(rng):
    cases = []
    for n, p, k in [(8, 3, 2), (10, 4, 2), (12, 5, 3)]:
        X = _points(rng, n, 2, shift=1.0)
        X_new = _points(rng, p, 2, shift=-0.5)       # elsewhere: their own mean differs
        kern = RBF(0.4)
        cases.append(Case((kern(X_new, X), kern(X), k),
                          label=f"K_new of shape ({p}, {n}), K_train ({n}, {n}), k={k}"))
    return cases


def _transform_is(centre, power=0.5, centred=True):
    def detect(actual, case):
        expected = _transform_with(centre, power, centred)(*case.args)
        actual = np.asarray(actual, dtype=float)
        if actual.shape != expected.shape:
            return False
        signs = np.sign(np.sum(actual * expected, axis=0))
        signs[signs == 0] = 1.0
        return bool(np.allclose(actual * signs, expected, rtol=1e-4,
                                atol=1e-6 * max(np.abs(expected).max(), 1e-12)))
    return detect


def _training_centring(K_new, K_train):
    return center_kernel_rows(K_new, K_train)


Q9 = Question(
    id="ex6.q9", title="fix kernel PCA's projection of new points", function="kpca_transform",
    points=3, kind="fix", section="6.4",
    forbidden=("kernelcourse.feature_space.center_kernel_rows",
               "kernelcourse.feature_space.GramCenterer",
               "kernelcourse.kernel_pca.KernelPCA"),
    reference=_kpca_transform, cases=_cases_transform, compare_reference=False,
    fixed_cases=_fixed(_cases_transform),
    properties=[Property("the projection", _transform_is(_training_centring),
                         "the projections differ from kernel PCA's (each component compared up "
                         "to its sign, to 4 significant digits)")],
    diagnoses=[
        Diagnosis("own mean", "the bug is still there: the new rows are centred with the new "
                  "points' own means; kernel PCA's components live around the TRAINING mean, so "
                  "the column means and the overall mean must come from K_train",
                  _given(_BUGGY_TRANSFORM, "kpca_transform"), detect=_transform_is(_own_mean)),
        Diagnosis("fixed the scaling", "dividing by sqrt(lambda_k) was right (it gives each "
                  "direction unit norm in feature space); the bug is in how the new rows are "
                  "centred: with the new points' own means instead of the training ones",
                  _transform_with(_own_mean, power=1.0),
                  detect=_transform_is(_own_mean, power=1.0)),
        Diagnosis("not centred", "the components were found for centred features: the new "
                  "kernel rows need centring too, with the training statistics",
                  _transform_with(lambda K_new, K_train: K_new),
                  detect=_transform_is(lambda K_new, K_train: K_new)),
        Diagnosis("uncentred training", "the line that centres K_train (J K_train J) was right: "
                  "kernel PCA's components are eigenvectors of the CENTRED Gram matrix; the bug "
                  "is in how the new rows are centred",
                  _transform_with(_own_mean, centred=False),
                  detect=_transform_is(_own_mean, centred=False)),
    ],
    hint="delete this line; the code below has one bug: find it and fix it",
    hints=("the training Gram matrix is centred on the training mean in feature space; ask which "
           "mean the line that centres the new rows subtracts",
           "of the four terms that centre a new kernel row, the first two are right; the other "
           "two must be statistics of the training points, which the components were built on"),
)
