"""Helpers shared by the question modules of lecture5 (its sets' inputs and fixed cases)."""
from __future__ import annotations

import numpy as np

from ...model.question import fixed_draw
from ....kernels import RBF
from ....rkhs import RKHSFunction


def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _f(alpha, centres, gamma):
    return RKHSFunction(RBF(gamma), centres, alpha)


def _gram(X, Z, gamma):
    return RBF(gamma)(X, Z)


def _gram_divides(X, Z, gamma):
    """The lecture's form exp(-||x - z||^2 / gamma) read with the package's gamma."""
    return np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / gamma)


def _gamma(rng):
    """A gamma away from 1, where exp(-gamma d) and exp(-d / gamma) (the lecture's form) agree."""
    return float(np.round(rng.uniform(0.3, 0.7) if rng.random() < 0.5 else rng.uniform(1.4, 2.5), 2))


def _fixed(cases, seed=20265, extra=None):
    """Fixed cases: ``cases`` drawn once with this lecture's own seed, the same in every run,
    then ``extra()``'s cases written out (:func:`~kernelcourse.grading.model.question.fixed_draw`)."""
    return fixed_draw(cases, seed, extra)
