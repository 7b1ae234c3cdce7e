"""MMD with random Fourier features (9.7, on lecture 2.8's map): the squared distance of the
features' means, O((m + n) D) instead of O((m + n)^2), and its permutation test, which needs
no N x N matrix.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_choice, check_positive, check_positive_int
from ..random_features import RandomFourierFeatures
from .embeddings import _two_samples, pooled_median_gamma
from .mmd import ESTIMATORS
from .two_sample_test import _BLOCK, TestResult, _label_columns, _one_blas_thread, permutation_p_value

__all__ = ["mmd2_rff", "rff_permutation_test"]


def _features(X, Y, gamma, n_components, random_state):
    X, Y = _two_samples(X, Y)
    gamma = pooled_median_gamma(X, Y) if gamma is None else check_positive(gamma, "gamma")
    rff = RandomFourierFeatures(gamma=gamma, n_components=n_components, random_state=random_state)
    Phi = rff.fit_transform(np.vstack([X, Y]))
    return Phi, X.shape[0]


def mmd2_rff(X, Y, gamma=None, n_components: int = 500, estimator: str = "biased",
             random_state=0) -> float:
    """MMD^2 under the RBF kernel ``exp(-gamma ||x - z||^2)`` from ``D`` random Fourier features:
    O((m + n) D) instead of O((m + n)^2).

    biased: ``||mean psi(X) - mean psi(Y)||^2``; unbiased: the same without the ``i = j`` terms.
    ``gamma=None``: the pooled median heuristic.
    """
    check_positive_int(n_components, "n_components")
    estimator = check_choice(estimator, "estimator", ESTIMATORS)
    Phi, m = _features(X, Y, gamma, n_components, random_state)
    n = Phi.shape[0] - m
    if estimator == "unbiased" and min(m, n) < 2:
        raise ValueError(f"the unbiased estimate needs at least two points in each sample; got "
                         f"{m} and {n}")
    sx, sy = Phi[:m].sum(axis=0), Phi[m:].sum(axis=0)
    if estimator == "biased":
        return float(np.sum((sx / m - sy / n) ** 2))
    qx, qy = float(np.sum(Phi[:m] ** 2)), float(np.sum(Phi[m:] ** 2))
    return float((sx @ sx - qx) / (m * (m - 1)) + (sy @ sy - qy) / (n * (n - 1))
                 - 2.0 * (sx @ sy) / (m * n))


def rff_permutation_test(X, Y, gamma=None, n_components: int = 500, n_permutations: int = 1000,
                         random_state=0) -> TestResult:
    """The two-sample test on the biased MMD^2 of random Fourier features: each labelling's
    statistic is ``||Phi^T w||^2`` with ``w = a/m - (1 - a)/n``, all of them from ``Phi^T W``:
    O(N D B), no N x N matrix."""
    check_positive_int(n_components, "n_components")
    B = check_positive_int(n_permutations, "n_permutations")
    Phi, m = _features(X, Y, gamma, n_components, random_state)
    N, n = Phi.shape[0], Phi.shape[0] - m
    rng = as_rng(random_state)
    w = np.r_[np.full(m, 1.0 / m), np.full(n, -1.0 / n)]
    statistic = float(np.sum((Phi.T @ w) ** 2))
    null = np.empty(B)
    with _one_blas_thread(N):
        for s in range(0, B, _BLOCK):
            A = _label_columns(N, m, min(_BLOCK, B - s), rng)
            W = A / m - (1.0 - A) / n
            null[s:s + A.shape[1]] = np.sum((Phi.T @ W) ** 2, axis=0)
    return TestResult(statistic, null, permutation_p_value(statistic, null))
