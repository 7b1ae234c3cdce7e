"""Helpers shared by the questions of lecture 3: points off the origin, Gram matrices, targets."""
from __future__ import annotations

import numpy as np

from ....kernels import Polynomial


def _points(rng, n, d, shift=0.8):
    """Rounded Gaussian points, shifted off the origin so their mean is not zero."""
    return np.round(rng.normal(size=(n, d)) + shift, 3)


def _poly_gram(rng, n, d):
    """``(x.z / 2 + 1)^2`` on n points: positive definite enough, with an uneven diagonal."""
    X = _points(rng, n, d)
    k = Polynomial(2, gamma=0.5, coef0=1.0)
    return X, k, k(X)


def _targets(rng, n):
    return np.round(rng.normal(size=n), 3)


def _signs(rng, n):
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1] = 1.0, -1.0                      # both classes always present
    return rng.permutation(y)


def _solve(A, b):
    return np.linalg.solve(A, b)
