"""PSD tools: the smallest eigenvalue of a Gram matrix, the PSD verdict with its stated
tolerance, and a search for points whose Gram matrix is not PSD (lectures 2.4, 3.6)."""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from .._validation import (as_counts, as_rng, asymmetry, check_nonnegative, check_positive, check_positive_int,
                           check_square, psd_tolerance)


# ---------------------------------------------------------------------------
# PSD tools
# ---------------------------------------------------------------------------

def min_eigenvalue(K):
    """Smallest eigenvalue of a symmetric Gram matrix ``K``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Must be symmetric (up to ``1e-10`` relative to its largest entry).

    Returns
    -------
    float
    """
    K = check_square(K)
    ok, asym = asymmetry(K)
    if not ok:
        raise ValueError(f"K must be symmetric; got max |K - K^T| = {asym:.3g} for shape {K.shape}")
    return float(np.linalg.eigvalsh((K + K.T) / 2)[0])


def is_psd(K, tol=None):
    """Whether ``K`` is symmetric positive semi-definite.

    ``K`` passes when it is symmetric (``max |K - K^T| <= 1e-10 max(1, max |K|)``) and
    its smallest eigenvalue is ``>= -tol``.

    Parameters
    ----------
    K : array-like of shape (n, n)
    tol : float >= 0, optional
        Defaults to ``1e-10 * max(1, max |eigenvalue|) * n``, which absorbs the
        rounding of an eigensolver on an ``n x n`` matrix.

    Returns
    -------
    bool
    """
    K = check_square(K)
    if not asymmetry(K)[0]:
        return False
    lam = np.linalg.eigvalsh((K + K.T) / 2)
    tol = psd_tolerance(lam) if tol is None else check_nonnegative(tol, "tol")
    return bool(lam[0] >= -tol)


Witness = namedtuple("Witness", ["X", "K", "min_eigenvalue"])
Witness.__doc__ = ("Points ``X`` whose Gram matrix ``K`` has the negative eigenvalue "
                   "``min_eigenvalue``.")


def find_non_psd_witness(func, d=1, n_points=(2, 3, 4, 5, 6), trials=200, scale=2.0,
                         random_state=0):
    """Search small random point sets for a Gram matrix that is not PSD.

    A function that is a kernel gives a PSD Gram matrix on every finite set; one
    set with a negative eigenvalue proves that ``func`` is no kernel.

    Parameters
    ----------
    func : Kernel or callable ``func(X, Z) -> (n_X, n_Z)`` matrix
        For example ``Sigmoid(gamma=1.0, coef0=-1.0)`` or a distance used as a
        similarity, ``lambda X, Z: cdist(X, Z)``.
    d : int >= 1
        Dimension of the random points.
    n_points : int or sequence of int
        Sizes of the point sets to try, smallest first.
    trials : int >= 1
        Random point sets per size.
    scale : float > 0
        Points are drawn from ``N(0, scale^2 I)``.
    random_state : int or numpy Generator

    Returns
    -------
    Witness or None
        ``Witness(X, K, min_eigenvalue)`` for the first set found whose smallest
        eigenvalue is below ``-tol`` (the default tolerance of :func:`is_psd`),
        or ``None`` when no set was found.
    """
    if not callable(func):
        raise TypeError(f"func must be a kernel or a callable func(X, Z); "
                        f"got {type(func).__name__}")
    d = check_positive_int(d, "d")
    trials = check_positive_int(trials, "trials")
    scale = check_positive(scale, "scale")
    if isinstance(n_points, numbers.Integral) and not isinstance(n_points, bool):
        sizes = [check_positive_int(n_points, "n_points")]
    else:
        sizes = as_counts(n_points, "n_points")
    rng = as_rng(random_state)
    for n in sizes:
        for _ in range(trials):
            X = rng.normal(scale=scale, size=(n, d))
            K = np.asarray(func(X, X), dtype=float)
            if K.shape != (n, n):
                raise ValueError(f"func(X, X) must return shape ({n}, {n}) for X with shape "
                                 f"{X.shape}; got {K.shape}")
            lam = np.linalg.eigvalsh((K + K.T) / 2)
            if lam[0] < -psd_tolerance(lam):
                return Witness(X, K, float(lam[0]))
    return None
