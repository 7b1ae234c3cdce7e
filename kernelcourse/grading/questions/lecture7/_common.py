"""Helpers shared by lecture 7's question modules: a random SVM problem, its solution, a partly
solved one, the search for a fixed case, the three groups of multipliers."""
from __future__ import annotations

import warnings

import numpy as np

from ....kernels import RBF, Linear
from ....svm import smo


def _problem(rng, n, kernel="rbf"):
    """Points, labels (both present), a Gram matrix and a C."""
    X = np.round(rng.normal(size=(n, 2)), 3)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    X = X + 0.8 * y[:, None]
    K = RBF(0.7)(X) if kernel == "rbf" else Linear()(X)
    C = float(np.round(rng.uniform(0.5, 3.0), 2))
    return X, y, K, C


def _solved(K, y, C):
    return smo(K, y, C=C, tol=1e-10).alpha


def _partial(K, y, C, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return smo(K, y, C=C, tol=1e-10, max_iter=steps, selection="max_violating").alpha


def _fixed(seed, make, accept, label, tries=500):
    """A fixed case: the first draw from ``default_rng(seed)`` that ``accept`` takes (the
    same in every run)."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        case = make(rng)
        if accept(case):
            case.label = label
            return case
    raise RuntimeError(f"no fixed case {label!r} from seed {seed}")


def _groups(alpha, C):
    return (alpha == 0), (alpha > 0) & (alpha < C), (alpha == C)
