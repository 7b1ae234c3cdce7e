"""Energy distance and distance covariance (9.6): with the distance-induced kernel
``(|x| + |z| - |x - z|) / 2``, 2 MMD^2 is the energy distance and 4 HSIC the distance covariance
(Sejdinovic, Sriperumbudur, Gretton and Fukumizu, Ann. Statist. 2013).
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from ..kernels import Kernel
from .embeddings import _two_samples
from .hsic import _paired

__all__ = ["DistanceKernel", "energy_distance", "distance_covariance"]


class DistanceKernel(Kernel):
    """The distance-induced kernel ``k(x, z) = (||x|| + ||z|| - ||x - z||) / 2`` (centred at 0).

    With it, 2 MMD^2 (biased) is the energy distance and 4 HSIC_b the distance covariance
    (Sejdinovic et al. 2013). It is positive definite on the data (the Euclidean distance is
    of negative type), but not a kernel of the RBF family: it grows with the points.
    """

    def _gram(self, X, Z, symmetric):
        nx = np.sqrt((X * X).sum(axis=1))
        nz = nx if symmetric else np.sqrt((Z * Z).sum(axis=1))
        return 0.5 * (nx[:, None] + nz[None, :] - cdist(X, X if symmetric else Z))

    def _diag(self, X):
        return np.sqrt((X * X).sum(axis=1))


def energy_distance(X, Y) -> float:
    """The squared energy distance ``2 E||X - Y|| - E||X - X'|| - E||Y - Y'||`` of two samples
    (V-statistics: every pair, i = j included)."""
    X, Y = _two_samples(X, Y)
    return float(2 * cdist(X, Y).mean() - cdist(X, X).mean() - cdist(Y, Y).mean())


def distance_covariance(X, Y) -> float:
    """The squared distance covariance dCov_n^2 (Szekely, Rizzo and Bakirov 2007): the mean of
    the products of the double-centred distance matrices of ``X`` and of ``Y``."""
    X, Y = _paired(X, Y)
    A, B = cdist(X, X), cdist(Y, Y)
    A = A - A.mean(axis=0) - A.mean(axis=1)[:, None] + A.mean()
    B = B - B.mean(axis=0) - B.mean(axis=1)[:, None] + B.mean()
    return float((A * B).mean())
