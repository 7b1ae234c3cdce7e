"""Reading the marginal likelihood (lecture 8.4-8.5): its terms, its landscape, its restarts,
leave-one-out, and the RKHS norms of sample paths.

* :func:`evidence_terms` splits ``log p(y | X)`` into the data fit ``-1/2 y^T alpha``, the
  complexity penalty ``-1/2 log |K + sigma^2 I| = -sum_i log L_ii`` and the constant
  ``-n/2 log 2 pi``. When the kernel has a free signal variance ``c`` and the noise is free,
  scaling both by ``s`` gives ``d log p / d log s = 1/2 y^T alpha - n/2``: at every stationary
  point the fit term is exactly ``-n/2``, and optima differ by their log-determinant alone.
* :func:`~kernelcourse.gaussian_process.regression.data_scaled_starts` draws restarts where the data say the parameters can be: a
  length-scale between the smallest and the largest distance of the inputs, a signal
  variance and a noise as fractions of ``var(y)``. Starts drawn ten decades wide stall
  on flat regions (a length-scale far below the spacing makes ``K = c I``, far above the
  range makes ``K`` constant; both give a zero gradient), which are not local maxima.
* :func:`grid_local_maxima` lists the interior local maxima of a landscape on a grid, the
  starting points for a refinement by the optimizer.
* :func:`loo_predictive`: leave-one-out predictions in closed form (Rasmussen and Williams
  2006, eqs. 5.10-5.12): ``mu_i = y_i - [K_y^-1 y]_i / [K_y^-1]_ii`` and
  ``sigma_i^2 = 1 / [K_y^-1]_ii``, with ``K_y = K + sigma^2 I``, from one factor.
* :func:`interpolant_norms`: the squared RKHS norm of the smallest interpolant of values on
  nested point sets, ``f_S^T K_S^+ f_S``, computed without jitter.
"""
from __future__ import annotations

import math

import numpy as np

from .._lazy import LazyModule
from .._validation import as_finite, as_vector, check_nonnegative, check_positive_int, check_square
from .regression import gp_factor

linalg = LazyModule("scipy.linalg")  # imported at its first use, not at a first check of set 8

__all__ = ["evidence_terms", "grid_local_maxima", "loo_predictive", "interpolant_norms"]


def evidence_terms(K, y, noise):
    """The three terms of ``log p(y | X)``: ``{"fit", "complexity", "constant"}``, summing to it.

    ``fit = -1/2 y^T (K + noise I)^-1 y``, ``complexity = -1/2 log |K + noise I|`` (read off
    the Cholesky factor), ``constant = -n/2 log(2 pi)``.
    """
    L, alpha = gp_factor(K, y, noise)
    y = np.asarray(y, float)
    return {"fit": float(-0.5 * y @ alpha), "complexity": float(-np.sum(np.log(np.diag(L)))),
            "constant": float(-0.5 * len(y) * math.log(2.0 * math.pi))}


def grid_local_maxima(Z, x=None, y=None):
    """The interior local maxima of ``Z`` (rows along ``y``, columns along ``x``): the points
    greater than all 8 neighbours, as ``(x, y, value)``, largest first (indices when ``x`` or
    ``y`` is None)."""
    Z = as_finite(Z, "Z")
    if Z.ndim != 2 or min(Z.shape) < 3:
        raise ValueError(f"Z must be a 2-D grid of at least 3 x 3 values; got shape {Z.shape}")
    x = np.arange(Z.shape[1]) if x is None else as_vector(x, "x", Z.shape[1], f"to match Z of shape {Z.shape}")
    y = np.arange(Z.shape[0]) if y is None else as_vector(y, "y", Z.shape[0], f"to match Z of shape {Z.shape}")
    inner = Z[1:-1, 1:-1]
    is_max = np.ones(inner.shape, bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di or dj:
                is_max &= inner > Z[1 + di:Z.shape[0] - 1 + di, 1 + dj:Z.shape[1] - 1 + dj]
    rows, cols = np.nonzero(is_max)
    found = [(float(x[j + 1]), float(y[i + 1]), float(Z[i + 1, j + 1])) for i, j in zip(rows, cols)]
    return sorted(found, key=lambda p: -p[2])


def loo_predictive(K, y, noise):
    """Leave-one-out predictive means, variances (of ``y_i``) and log densities, in closed form.

    Rasmussen and Williams (2006), eqs. 5.10-5.12: with ``K_y = K + noise I``,
    ``mu_i = y_i - [K_y^-1 y]_i / [K_y^-1]_ii``, ``var_i = 1 / [K_y^-1]_ii`` and
    ``log p(y_i | y_-i) = -1/2 log var_i - (y_i - mu_i)^2 / (2 var_i) - 1/2 log 2 pi``,
    all from one Cholesky factor, equal to ``n`` refits without point ``i``.

    Returns
    -------
    mean, var, log_density : arrays (n,)
    """
    L, alpha = gp_factor(K, y, noise)
    y = np.asarray(y, float)
    inv_diag = np.sum(linalg.solve_triangular(L, np.eye(len(y)), lower=True, check_finite=False) ** 2, axis=0)
    var = 1.0 / inv_diag
    mean = y - alpha * var
    log_density = -0.5 * np.log(var) - 0.5 * (y - mean) ** 2 / var - 0.5 * math.log(2.0 * math.pi)
    return mean, var, log_density


def interpolant_norms(K, F, sizes, rcond=1e-12):
    """``f_S^T K_S^+ f_S`` for the columns ``f`` of ``F`` on nested subsets ``S`` of the rows.

    ``S`` is every ``step``-th point of the ``n`` rows, with ``step`` chosen so that ``|S|`` is
    each of ``sizes`` (``(n - 1) / (|S| - 1)`` must be a whole number). ``K_S^+`` is the
    pseudo-inverse (eigenvalues below ``rcond`` times the largest are dropped), computed with no
    jitter: for a strictly positive definite kernel with well-conditioned ``K_S`` it is the
    inverse, the squared RKHS norm of the smallest interpolant of ``f_S``.

    Returns
    -------
    norms : array (len(sizes), n_columns)
    condition : array (len(sizes),), the condition numbers of the ``K_S`` (inf when singular)
    """
    K = check_square(K, "K")
    F = as_finite(F, "F")
    if F.ndim == 1:
        F = F[:, None]
    if F.ndim != 2 or F.shape[0] != K.shape[0]:
        raise ValueError(f"F must be a vector or a matrix with one row per row of K ({K.shape[0]}); "
                         f"got shape {F.shape}")
    rcond = check_nonnegative(rcond, "rcond")
    n = K.shape[0]
    norms, condition = [], []
    for size in sizes:
        size = check_positive_int(size, "size")
        if size < 2 or (n - 1) % (size - 1):
            raise ValueError(f"every size must be 1 + a divisor of n - 1 = {n - 1}; got {size}")
        S = np.arange(0, n, (n - 1) // (size - 1))
        s, U = np.linalg.eigh(K[np.ix_(S, S)])
        keep = s > rcond * s[-1]
        coef = U[:, keep].T @ F[S]
        norms.append(np.sum(coef ** 2 / s[keep][:, None], axis=0))
        condition.append(s[-1] / s[0] if s[0] > 0 else math.inf)
    return np.array(norms), np.array(condition)
