"""Explicit feature maps: the kernel trick written out.

Each map here is the ``phi`` of a kernel in :mod:`kernelcourse.kernels`, so
that ``phi(X) @ phi(Z).T`` equals the kernel's Gram matrix:

* :func:`all_subsets_map`: one feature ``prod_{k in A} x_k`` per subset ``A``
  of the ``d`` coordinates, ``2^d`` of them; the kernel
  ``prod_k (1 + x_k z_k)`` computes their inner product in ``O(d)``
  (lecture 1.1 and 1.3).
* :func:`polynomial_map`: all monomials of degree ``<= p`` weighted so that
  their inner product is ``(gamma x . z + coef0)^p``, ``C(d + p, p)`` of them.
* :func:`homogeneous_polynomial_map`: the monomials of degree exactly ``p``
  with weights ``sqrt(p! / (a_1! ... a_d!))``, whose inner product is
  ``(x . z)^p``; for ``d = p = 2`` it is ``(x1^2, sqrt(2) x1 x2, x2^2)``.
* :func:`quadratic_map`: ``vec(x x^T)``, ``d^2`` features with inner
  product ``(x . z)^2``.

:func:`all_subsets_inner_products` is the kernel trick for the first map:
``prod_k (1 + x_k z_k)`` for all pairs, without the ``2^d`` features (the
kernel :class:`kernelcourse.kernels.AllSubsets` computes its Gram matrix with
it), and :func:`time_all_subsets` measures the explicit map against it, for
lecture 1.3's comparison.

This module needs no kernel object; the kernels call these maps.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from ._validation import as_2d, as_counts, as_pair, as_rng, check_nonnegative, check_positive, check_positive_int

__all__ = [
    "all_subsets_map", "all_subsets_inner_products", "polynomial_map", "homogeneous_polynomial_map", "quadratic_map",
    "feature_dim_all_subsets", "feature_dim_polynomial", "feature_dim_homogeneous",
    "time_all_subsets",
]

# An explicit map larger than this many entries (8 bytes each, 2 GB) is refused.
_MAX_ENTRIES = 2 ** 28


def _check_size(n, D, what):
    if n * D > _MAX_ENTRIES:
        raise ValueError(f"{what} would have shape ({n}, {D}), more than {_MAX_ENTRIES} entries; "
                         "use the kernel instead of the explicit map")


def feature_dim_all_subsets(d):
    """Number of all-subsets features for ``d`` inputs: ``2^d``."""
    return 2 ** check_positive_int(d, "d")


def feature_dim_polynomial(d, p):
    """Number of monomials of degree ``<= p`` in ``d`` variables: ``C(d + p, p)``."""
    d, p = check_positive_int(d, "d"), check_positive_int(p, "p")
    return math.comb(d + p, p)


def feature_dim_homogeneous(d, p):
    """Number of monomials of degree exactly ``p`` in ``d`` variables: ``C(d + p - 1, p)``."""
    d, p = check_positive_int(d, "d"), check_positive_int(p, "p")
    return math.comb(d + p - 1, p)


def all_subsets_map(X):
    """All-subsets features ``phi_A(x) = prod_{k in A} x_k`` for every ``A`` in ``{1..d}``.

    ``phi(x) . phi(z) = sum_A prod_{k in A} x_k z_k = prod_k (1 + x_k z_k)``.

    Parameters
    ----------
    X : array-like of shape (n, d)

    Returns
    -------
    ndarray of shape (n, 2^d)
        Columns ordered by subset size, then lexicographically: the empty set
        (the constant 1) first, then ``x_1, ..., x_d``, then ``x_1 x_2``, ...
    """
    X = as_2d(X)
    n, d = X.shape
    _check_size(n, 2 ** d, "the all-subsets map")
    # columns of the subsets of one size, keyed by the subset; grow by one larger index
    level = {(): np.ones(n)}
    columns = [level[()]]
    for _ in range(d):
        nxt = {}
        for A, col in level.items():
            start = A[-1] + 1 if A else 0
            for k in range(start, d):
                nxt[A + (k,)] = col * X[:, k]
        columns.extend(nxt[A] for A in sorted(nxt))
        level = nxt
    return np.column_stack(columns)


def all_subsets_inner_products(X, Z=None):
    """``phi(x) . phi(z) = prod_k (1 + x_k z_k)`` for all pairs: the kernel trick of lecture 1.3.

    Equals ``all_subsets_map(X) @ all_subsets_map(Z).T`` in ``O(d)`` per pair instead
    of ``O(2^d)``.

    Parameters
    ----------
    X : array-like of shape (n_X, d)
    Z : array-like of shape (n_Z, d), default X

    Returns
    -------
    ndarray of shape (n_X, n_Z)
    """
    X, Z = as_pair(X, Z)
    K = np.ones((X.shape[0], Z.shape[0]))
    for k in range(X.shape[1]):
        K *= 1.0 + np.outer(X[:, k], Z[:, k])
    return K


def _monomial(X, combo):
    """``prod_{k in combo} x_k`` (with repeats) for every row."""
    col = np.ones(X.shape[0])
    for k in combo:
        col = col * X[:, k]
    return col


def _multinomial(p, counts):
    out = math.factorial(p)
    for c in counts:
        out //= math.factorial(c)
    return out


def polynomial_map(X, degree, gamma=1.0, coef0=1.0):
    """Features of the polynomial kernel ``(gamma x . z + coef0)^p``.

    Expanding by the multinomial theorem with ``coef0`` as an extra coordinate,

        (gamma x . z + c)^p = sum_{|a| <= p} p! / ((p - |a|)! a_1! ... a_d!)
                              c^(p - |a|) gamma^|a| x^a z^a,

    so the feature of the monomial ``x^a = x_1^a_1 ... x_d^a_d`` is
    ``sqrt(p! / ((p - |a|)! a!) c^(p - |a|) gamma^|a|) x^a``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    degree : int >= 1
    gamma : float > 0, default 1.0
    coef0 : float >= 0, default 1.0

    Returns
    -------
    ndarray of shape (n, C(d + p, p))
        Columns ordered by total degree (the constant first), then as
        ``itertools.combinations_with_replacement`` lists the monomials.
    """
    X = as_2d(X)
    p = check_positive_int(degree, "degree")
    gamma = check_positive(gamma, "gamma")
    coef0 = check_nonnegative(coef0, "coef0")
    n, d = X.shape
    _check_size(n, math.comb(d + p, p), "the polynomial map")
    columns = []
    for m in range(p + 1):
        for combo in itertools.combinations_with_replacement(range(d), m):
            counts = [combo.count(k) for k in set(combo)] + [p - m]
            weight = _multinomial(p, counts) * coef0 ** (p - m) * gamma ** m
            columns.append(math.sqrt(weight) * _monomial(X, combo))
    return np.column_stack(columns)


def homogeneous_polynomial_map(X, degree):
    """Features of ``(x . z)^p``: the monomials of degree exactly ``p``.

    The feature of ``x^a`` (``|a| = p``) is ``sqrt(p! / (a_1! ... a_d!)) x^a``; for
    ``d = 2, p = 2`` this is ``(x1^2, sqrt(2) x1 x2, x2^2)``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    degree : int >= 1

    Returns
    -------
    ndarray of shape (n, C(d + p - 1, p))
    """
    X = as_2d(X)
    p = check_positive_int(degree, "degree")
    n, d = X.shape
    _check_size(n, math.comb(d + p - 1, p), "the homogeneous polynomial map")
    columns = []
    for combo in itertools.combinations_with_replacement(range(d), p):
        counts = [combo.count(k) for k in set(combo)]
        columns.append(math.sqrt(_multinomial(p, counts)) * _monomial(X, combo))
    return np.column_stack(columns)


def quadratic_map(X):
    """Quadratic map ``phi(x) = vec(x x^T)``: ``phi(x) . phi(z) = (x . z)^2``.

    The ``d^2`` products ``x_i x_j`` (lecture 3.4), each pair ``i != j`` twice.

    Parameters
    ----------
    X : array-like of shape (n, d)

    Returns
    -------
    ndarray of shape (n, d^2)
        Column ``i * d + j`` holds ``x_i x_j``.
    """
    X = as_2d(X)
    n, d = X.shape
    _check_size(n, d * d, "the quadratic map")
    return (X[:, :, None] * X[:, None, :]).reshape(n, d * d)


def _best_time(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def time_all_subsets(ds, n=50, repeat=3, random_state=0):
    """Time the explicit all-subsets map against the ``O(d)`` kernel (lecture 1.3).

    For each ``d``, both compute the ``(n, n)`` Gram matrix of ``n`` random
    points: once as ``phi(X) phi(X)^T`` with the ``2^d`` features, once as
    ``prod_k (1 + x_k z_k)``.

    Parameters
    ----------
    ds : sequence of int >= 1
        The dimensions to try (the map has ``2^d`` columns: keep ``d <= 20``).
    n : int >= 1
    repeat : int >= 1
        Each time is the best of ``repeat`` runs.
    random_state : int or numpy Generator

    Returns
    -------
    dict of ndarray
        ``'d'``, ``'dim'`` (``2^d``), ``'map_seconds'``, ``'kernel_seconds'``
        and ``'max_abs_diff'`` (between the two Gram matrices).
    """
    ds = as_counts(ds, "ds")
    n, repeat = check_positive_int(n, "n"), check_positive_int(repeat, "repeat")
    rng = as_rng(random_state)
    out = {key: [] for key in ("d", "dim", "map_seconds", "kernel_seconds", "max_abs_diff")}
    for d in ds:
        X = rng.uniform(-1.0, 1.0, size=(n, d))

        def explicit():
            F = all_subsets_map(X)
            return F @ F.T

        out["d"].append(d)
        out["dim"].append(2 ** d)
        out["map_seconds"].append(_best_time(explicit, repeat))
        out["kernel_seconds"].append(_best_time(lambda: all_subsets_inner_products(X), repeat))
        out["max_abs_diff"].append(float(np.abs(explicit() - all_subsets_inner_products(X)).max()))
    return {key: np.asarray(val) for key, val in out.items()}
