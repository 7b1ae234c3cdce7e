"""Independence (9.5): the Hilbert-Schmidt independence criterion, its biased estimate
HSIC_b = tr(K H L H) / n^2, the squared MMD between the joint distribution and the product of
its marginals under the product kernel, and its permutation test.

Two conventions are in use. Gretton, Bousquet, Smola and Schoelkopf (ALT 2005, Definition 2)
divide the trace by (n - 1)^2; the V-statistic with 1 / n^2 is the one of Gretton, Fukumizu,
Teo, Song, Schoelkopf and Smola (*A kernel statistical test of independence*, NIPS 2007). Both
are biased by O(1/n); the package uses 1 / n^2, the form for which HSIC_b is exactly an MMD_b^2
(9.5) and 4 HSIC_b exactly the distance covariance (9.6). A permutation test gives the same
p-value under either, since the constant divides every permuted value too.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_2d, as_rng, check_positive_int, check_square
from .._centering import center_gram
from ..kernels import RBF, as_kernel
from ..rkhs.bandwidth import median_heuristic
from .embeddings import _gram
from .two_sample_test import TestResult, permutation_p_value

__all__ = ["hsic_from_gram", "hsic_biased", "hsic_test"]


def hsic_from_gram(K, L) -> float:
    """HSIC_b = tr(K H L H) / n^2 from the two Gram matrices of the paired sample.

    Computed as ``sum((H K H) * L) / n^2``: since ``H`` is idempotent, centring one of the two
    matrices on both sides is enough.
    """
    K, L = check_square(K, "K"), check_square(L, "L")
    if K.shape != L.shape:
        raise ValueError(f"K and L must be Gram matrices of the same paired sample; got K with "
                         f"shape {K.shape} and L with shape {L.shape}")
    return float(np.sum(center_gram(K) * L) / K.shape[0] ** 2)


def _paired(X, Y):
    X, Y = as_2d(X, "X"), as_2d(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must hold the same number of paired observations; got X with "
                         f"shape {X.shape} and Y with shape {Y.shape}")
    if X.shape[0] < 2:
        raise ValueError(f"HSIC needs at least two observations; got X with shape {X.shape}")
    return X, Y


def _grams_xy(X, Y, kernel_x, kernel_y):
    X, Y = _paired(X, Y)
    kx = RBF(median_heuristic(X)) if kernel_x is None else as_kernel(kernel_x, X.shape[1], "kernel_x")
    ky = RBF(median_heuristic(Y)) if kernel_y is None else as_kernel(kernel_y, Y.shape[1], "kernel_y")
    return _gram(kx, X), _gram(ky, Y)


def hsic_biased(X, Y, kernel_x=None, kernel_y=None) -> float:
    """HSIC_b of the paired sample ``(x_i, y_i)``; ``None`` kernels are RBF kernels with the
    median heuristic on ``X`` and on ``Y``, each on its own variable."""
    return hsic_from_gram(*_grams_xy(X, Y, kernel_x, kernel_y))


def hsic_test(X, Y, kernel_x=None, kernel_y=None, n_permutations: int = 1000,
              random_state=None) -> TestResult:
    """The HSIC test of independence: permuting the ``y_i`` against the ``x_i`` breaks any
    dependence, and each permutation's HSIC_b is ``sum((H K H) * L[p][:, p]) / n^2``."""
    K, L = _grams_xy(X, Y, kernel_x, kernel_y)
    B = check_positive_int(n_permutations, "n_permutations")
    rng = as_rng(random_state)
    n = K.shape[0]
    Kc = center_gram(K)
    statistic = float(np.sum(Kc * L) / n**2)
    null = np.empty(B)
    for b in range(B):
        p = rng.permutation(n)
        null[b] = np.sum(Kc * L[np.ix_(p, p)]) / n**2
    return TestResult(statistic, null, permutation_p_value(statistic, null))
