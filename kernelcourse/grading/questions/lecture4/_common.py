"""Helpers shared by the question modules of lecture4 (its sets' inputs and fixed cases)."""
from __future__ import annotations

import numpy as np

from ...model.question import fixed_draw
from ....kernels import Polynomial, RBF


def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _sigma_lam(rng):
    """A noise and a prior standard deviation, far enough apart that swapping them shows."""
    sigma = float(np.round(rng.uniform(0.3, 0.8), 2))
    lam = float(np.round(rng.uniform(1.2, 2.5), 2))
    return (sigma, lam) if rng.random() < 0.5 else (lam, sigma)


def _ratio(sigma, lam):
    return sigma ** 2 / lam ** 2


def _gram(rng, n, d):
    """A Gram matrix (RBF or polynomial) on n random points, positive definite."""
    X = _points(rng, n, d)
    k = RBF(gamma=0.5) if rng.random() < 0.5 else Polynomial(2, gamma=0.5, coef0=1.0)
    return X, k, k(X)


def _fixed(cases, seed=20260):
    """Fixed cases: ``cases`` drawn once with this lecture's own seed, the same in every run
    (:func:`~kernelcourse.grading.model.question.fixed_draw`)."""
    return fixed_draw(cases, seed)


def _pm1(rng, n):
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0                      # both classes present
    return y
