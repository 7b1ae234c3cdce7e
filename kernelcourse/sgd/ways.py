"""The six ways to learn with a kernel by SGD, on arrays (lecture 2.1-2.7, 2.10): the losses'
derivatives, the sampled indices, the dual step, and one function per way, as
:mod:`kernelcourse.sgd`'s docstring states them. None imports scikit-learn.
"""
from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from .._validation import (as_2d, as_finite, as_labels, check_callable, check_finite_real, check_positive,
                           check_positive_int, check_square)
from ..kernels import RBF, as_kernel
from ..random_features.approximation import _rng

__all__ = [
    "WAYS", "EXACT_WAYS", "logistic_derivative", "squared_derivative", "sample_indices",
    "dual_sgd_step", "sgd_gram", "sgd_kernel_on_the_fly", "sgd_features_on_the_fly",
    "sgd_cached_features",
]

#: the six ways, in the lecture's order
WAYS = ("features", "cached_features", "kernel", "gram", "rff", "rff_cached")
#: the four that use the kernel exactly
EXACT_WAYS = WAYS[:4]

#: SGD steps taken together by the ways on u (see _dual_sgd)
_BLOCK = 16


# ----------------------------------------------------------------------------- losses

def _logistic_derivative(z, y):
    m = y * z
    if m > 0:
        e = math.exp(-m)
        return -y * e / (1.0 + e)
    return -y / (1.0 + math.exp(m))


def _squared_derivative(z, y):
    return z - y


def logistic_derivative(z: float, y: float) -> float:
    """``d/dz log(1 + exp(-y z)) = -y / (1 + exp(y z))``, written so no exp overflows."""
    return _logistic_derivative(check_finite_real(z, "z"), check_finite_real(y, "y"))


def squared_derivative(z: float, y: float) -> float:
    """``d/dz (z - y)^2 / 2 = z - y``."""
    return _squared_derivative(check_finite_real(z, "z"), check_finite_real(y, "y"))


# the SGD loops call these unchecked versions: their margins and labels are checked once, up front
_LOSSES = {"logistic": _logistic_derivative, "squared": _squared_derivative}


def _loss(loss):
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {sorted(_LOSSES)}; got loss={loss!r}")
    return _LOSSES[loss]


def _labels(y, n, loss):
    return as_labels(y, n, values=(-1, 1) if loss == "logistic" else None)


# ----------------------------------------------------------------------------- index sequence

def sample_indices(n: int, T: int, random_state=None) -> np.ndarray:
    """``T`` indices ``i_t`` drawn uniformly from ``{0, ..., n - 1}`` (with replacement)."""
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    return _rng(random_state).integers(0, n, size=T)


def _indices(indices, n):
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"indices must be a non-empty 1-D array of ints; got shape {idx.shape} "
                         f"and dtype {idx.dtype}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"indices must lie in [0, {n - 1}] for n={n} samples; "
                         f"got values from {idx.min()} to {idx.max()}")
    return idx


def _each(steps, chunk=256):
    """Iterate over the sampled indices as Python ints, a chunk at a time (no list of length T)."""
    for start in range(0, steps.shape[0], chunk):
        yield from steps[start:start + chunk].tolist()


# ----------------------------------------------------------------------------- the update rules

def dual_sgd_step(u, i, k_row, y_i, alpha=0.1, loss="logistic") -> np.ndarray:
    """One SGD step on ``u``: ``u_i <- u_i - alpha * loss'(k_row . u; y_i)``, other entries kept.

    ``k_row`` is ``(K(x_i, x_1), ..., K(x_i, x_n))``, so ``k_row . u = w . phi(x_i)``.
    Returns a new vector; ``u`` is not modified.
    """
    u = np.array(as_finite(u, "u"))
    k_row = as_finite(k_row, "k_row")
    if k_row.shape != u.shape or u.ndim != 1 or u.size == 0:
        raise ValueError(f"k_row and u must be vectors of the same length (at least 1); got shapes "
                         f"{k_row.shape} and {u.shape}")
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < u.shape[0]:
        raise ValueError(f"i must be an integer index in [0, {u.shape[0] - 1}] (u has {u.shape[0]} "
                         f"entries); got i={i!r}")
    y_i = check_finite_real(y_i, "y_i")
    alpha = check_positive(alpha, "alpha")
    u[i] -= alpha * _loss(loss)(float(k_row @ u), y_i)
    return u


def _dual_sgd(kernel_rows, n, y, indices, alpha, dloss, block=_BLOCK):
    """SGD on ``u`` from ``u = 0``, taking the sampled steps ``block`` at a time.

    ``kernel_rows(I)`` returns the rows ``K(x_i, x_j)``, j = 1..n, for the indices
    ``I`` of the next steps. Within a block the margin of step ``t`` is

        K(x_{i_t}, .) . u_t = K(x_{i_t}, .) . u_start + sum_{s < t} K(x_{i_t}, x_{i_s}) delta_s,

    where ``delta_s = -alpha loss'(...)`` are the block's earlier updates: the same
    arithmetic as one step at a time, in another order, so the result agrees to
    round-off, but the ``O(n)`` products run as one matrix product per block
    instead of one small NumPy call per step.
    """
    u = np.zeros(n)
    mul = operator.mul
    for start in range(0, indices.shape[0], block):
        I = indices[start:start + block]
        R = kernel_rows(I)
        margins = R.dot(u).tolist()                # K(x_{i_t}, .) . u_start
        C = R.take(I, axis=1).tolist()             # C[t][s] = K(x_{i_t}, x_{i_s})
        deltas = []
        for z, C_t, i in zip(margins, C, I.tolist()):
            deltas.append(-alpha * dloss(z + sum(map(mul, C_t, deltas)), y[i]))
        np.add.at(u, I, deltas)
    return u


def sgd_gram(G, y, indices, alpha=0.1, loss="logistic") -> np.ndarray:
    """Way 4: SGD on ``u`` reading rows of a precomputed Gram matrix ``G_ij = K(x_i, x_j)``.

    Each step costs ``O(n)``: ``u_i <- u_i - alpha loss'(G_i . u; y_i)``, only the
    sampled coordinate changing. Returns ``u`` after ``len(indices)`` steps from ``u = 0``.
    """
    G = check_square(G, "G")
    y = _labels(y, G.shape[0], loss).tolist()
    steps = _indices(indices, G.shape[0])
    return _dual_sgd(lambda I: G.take(I, axis=0), G.shape[0], y, steps, check_positive(alpha, "alpha"), _loss(loss))


def _kernel_rows_function(X, kernel):
    """A function ``I -> K(x_i, x_j)`` (rows i in ``I``, j = 1..n) computed afresh at each call.

    For the RBF kernel, ``-gamma ||x_i - x_j||^2 = [x_i, 1, gamma ||x_i||^2] .
    [2 gamma x_j, -gamma ||x_j||^2, -1]``: one product of the block's rows with a
    stored ``(d + 2, n)`` matrix (two scaled copies of the training set are kept) and one
    exponential, ``O(n d)`` work per row. Other kernels are called on ``(X[I], X)``.
    """
    if isinstance(kernel, RBF):
        g = kernel.gamma
        sq = np.einsum("ij,ij->i", X, X)[:, None]
        A = np.hstack([2.0 * g * X, -g * sq, -np.ones_like(sq)]).T.copy()
        Q = np.hstack([X, np.ones_like(sq), g * sq])

        def rows(I):
            E = Q[I] @ A
            np.minimum(E, 0.0, out=E)                # a squared distance is never negative
            return np.exp(E, out=E)
        return rows
    return lambda I: kernel(X[I], X)


def sgd_kernel_on_the_fly(X, y, kernel, indices, alpha=0.1, loss="logistic") -> np.ndarray:
    """Way 3: SGD on ``u``, computing the kernel values ``K(x_i, x_j)``, j = 1..n, at every step.

    Each step costs ``O(n d)`` and nothing of size ``n^2`` is stored. Returns ``u``
    after ``len(indices)`` steps from ``u = 0``.
    """
    X = as_2d(X, "X")
    y = _labels(y, X.shape[0], loss).tolist()
    steps = _indices(indices, X.shape[0])
    kernel = as_kernel(kernel, X.shape[1])
    return _dual_sgd(_kernel_rows_function(X, kernel), X.shape[0], y, steps,
                     check_positive(alpha, "alpha"), _loss(loss), block=2 * _BLOCK)


def _primal_sgd(phi, n, y, indices, alpha, dloss, D):
    """SGD on ``w`` with ``phi(i)`` the feature vector of example ``i``; tracks ``u`` as well."""
    w = np.zeros(D)
    u = np.zeros(n)
    for i in _each(_indices(indices, n)):
        p = phi(i)
        g = alpha * dloss(float(p @ w), y[i])
        w -= g * p
        u[i] -= g
    return w, u


def sgd_features_on_the_fly(X, y, feature_map, indices, alpha=0.1, loss="logistic"):
    """Way 1 (and 5): SGD on ``w``, computing ``phi(x_i)`` at every step.

    Parameters
    ----------
    feature_map : callable
        ``feature_map(X)`` returns ``phi(X)`` of shape (m, D) (a kernel's ``features``,
        or a fitted :class:`RandomFourierFeatures`' ``transform``).

    Returns
    -------
    w : ndarray of shape (D,)
    u : ndarray of shape (n,)
        The dual coefficients of the same run (``w = sum_i u_i phi(x_i)``).
    """
    X = as_2d(X, "X")
    y = _labels(y, X.shape[0], loss).tolist()
    check_callable(feature_map, "feature_map", ", mapping X of shape (m, d) to phi(X) of shape (m, D)")
    D = feature_map(X[:1]).shape[1]
    return _primal_sgd(lambda i: feature_map(X[i:i + 1])[0], X.shape[0], y, indices,
                       check_positive(alpha, "alpha"), _loss(loss), D)


def sgd_cached_features(Z, y, indices, alpha=0.1, loss="logistic"):
    """Way 2 (and 6): SGD on ``w`` reading rows of precomputed features ``Z[i] = phi(x_i)``.

    Returns ``w`` and the dual coefficients ``u`` of the same run.
    """
    Z = as_2d(Z, "Z")
    y = _labels(y, Z.shape[0], loss).tolist()
    rows = list(Z)
    return _primal_sgd(rows.__getitem__, Z.shape[0], y, indices,
                       check_positive(alpha, "alpha"), _loss(loss), Z.shape[1])


def _rff_row_function(X, rff):
    """``i -> psi(x_i) = sqrt(2/D) cos(Omega x_i + b)`` computed afresh (``O(d D)``)."""
    Omega, b = rff.Omega_, rff.b_
    scale = math.sqrt(2.0 / rff.n_components)
    buf = np.empty(Omega.shape[0])

    def psi(i):
        np.matmul(Omega, X[i], out=buf)
        np.add(buf, b, out=buf)
        np.cos(buf, out=buf)
        return buf * scale
    return psi


# ----------------------------------------------------------------------------- the estimator

