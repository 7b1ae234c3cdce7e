"""Mean embeddings (9.1): a sample as the function ``mu_hat(t) = (1/m) sum_i k(x_i, t)`` of the
RKHS, and the witness ``mu_X - mu_Y`` of two samples.

Also what every function of the lecture takes from here: the two samples checked, a Gram
matrix checked for NaN and inf, and the default kernel, the RBF kernel whose ``gamma`` is the
median heuristic on the pooled sample (:func:`pooled_median_gamma`, 9.4).
"""
from __future__ import annotations

import numpy as np

from .._validation import as_pair, as_rng, check_positive_int
from ..kernels import RBF, as_kernel
from ..rkhs.bandwidth import median_heuristic

__all__ = ["mean_embedding", "witness", "pooled_median_gamma"]


def _two_samples(X, Y):
    return as_pair(X, Y, names=("X", "Y"))


def _resolve(kernel, X, Y):
    """The kernel object: None is the RBF kernel with the pooled median heuristic, a name is
    scikit-learn's kernel of that name."""
    if kernel is None:
        return RBF(gamma=pooled_median_gamma(X, Y))
    return as_kernel(kernel, X.shape[1])


def _gram(kernel, A, B=None):
    K = kernel(A) if B is None else kernel(A, B)
    K = np.asarray(K, dtype=float)
    if not np.all(np.isfinite(K)):
        raise ValueError(f"kernel {kernel!r} returned NaN or inf entries")
    return K


def pooled_median_gamma(X, Y, max_points: int = 1000, random_state=0) -> float:
    """The median heuristic (5.11) on the pooled sample ``[X; Y]``: ``1 / median ||z_i - z_j||^2``.

    It is a function of the pooled sample as a set, blind to which point carries which label:
    every relabelling of the permutation test sees the same kernel, so the test stays exact.
    On more than ``max_points`` points, on a random subset of that size (the median of a
    million distances is as good as of all of them), drawn from the pooled rows in sorted
    order, so that the subset too does not depend on the labels.
    """
    X, Y = _two_samples(X, Y)
    Z = np.vstack([X, Y])
    max_points = check_positive_int(max_points, "max_points")
    if Z.shape[0] > max_points:
        Z = Z[np.lexsort(Z.T[::-1])]                  # the rows sorted: positions no longer carry labels
        Z = Z[as_rng(random_state).choice(Z.shape[0], max_points, replace=False)]
    return median_heuristic(Z)


def mean_embedding(X, T, kernel=None) -> np.ndarray:
    """The empirical mean embedding of the sample ``X`` at the points ``T``:
    ``mu_hat(t) = (1/m) sum_i k(x_i, t)``, shape ``(len(T),)``.

    ``kernel=None`` is the RBF kernel with the median heuristic on ``X``.
    """
    X, T = as_pair(X, T, names=("X", "T"))
    kernel = RBF(median_heuristic(X)) if kernel is None else as_kernel(kernel, X.shape[1])
    return _gram(kernel, T, X).mean(axis=1)


def witness(X, Y, T, kernel=None) -> np.ndarray:
    """The (unnormalised) witness function ``mu_X - mu_Y`` at the points ``T``.

    Its RKHS norm is the biased MMD; divided by that norm it is the function of the unit
    ball on which the sample means differ most. ``kernel=None``: RBF, pooled median heuristic.
    """
    X, Y = _two_samples(X, Y)
    _, T = as_pair(X, T, names=("X", "T"))
    kernel = _resolve(kernel, X, Y)
    return _gram(kernel, T, X).mean(axis=1) - _gram(kernel, T, Y).mean(axis=1)
