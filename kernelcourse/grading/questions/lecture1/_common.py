"""Helpers shared by the questions of lecture 1: rounded points, shapes, step sizes."""
from __future__ import annotations

import numpy as np

from ....kernels import AllSubsets


def _points(rng, n, d, scale=1.0):
    return np.round(rng.normal(scale=scale, size=(n, d)), 3)


def _shape(*arrays):
    return ", ".join(f"{name} of shape {a.shape}" for name, a in arrays)


def _stable_step(K, rng):
    """A step size below 1 / (2 lambda_max(K)), so the squared loss decreases."""
    lam_max = float(np.linalg.eigvalsh(K)[-1])
    return float(np.round(rng.uniform(0.2, 0.45) / lam_max, 6))


def _gram_problem(rng, n, d):
    X = _points(rng, n, d, scale=0.7)
    K = AllSubsets()(X)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, K, y


def _sqdist(X, Z):
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


def _sym(A):
    return (A + A.T) / 2
