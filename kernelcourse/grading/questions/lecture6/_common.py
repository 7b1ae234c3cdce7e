"""Helpers shared by the question modules of lecture6 (its sets' inputs and fixed cases)."""
from __future__ import annotations

import numpy as np

from ...model.question import fixed_draw
from ....kernels import RBF


def _points(rng, n, d, shift=0.3):
    return np.round(rng.normal(size=(n, d)) + shift, 3)


def _landmark_case(rng, n, m, d=2, gamma=0.5):
    """Kernel values of n points against m landmarks (the first m points), an invertible K_mm."""
    X = _points(rng, n, d)
    k = RBF(gamma)
    Z = X[:m]
    return k(X, Z), k(Z)


def _fixed(cases, seed=20266):
    """Fixed cases: ``cases`` drawn once with this lecture's own seed, the same in every run
    (:func:`~kernelcourse.grading.model.question.fixed_draw`)."""
    return fixed_draw(cases, seed)


def _sym_power(K, p):
    s, U = np.linalg.eigh(K)
    return (U * s**p) @ U.T
