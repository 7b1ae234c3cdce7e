"""The maximum mean discrepancy (9.2): ``MMD^2(P, Q) = ||mu_P - mu_Q||^2`` by its three
estimators, from the samples or from the pooled Gram matrix, and in closed form for two
Gaussians under the RBF kernel.

* the biased (V) estimate puts every pair, ``i = j`` included, into the three means;
* the unbiased (U) estimate leaves out the ``i = j`` terms of ``K_XX`` and ``K_YY``, dividing
  by ``m (m - 1)`` and ``n (n - 1)``;
* the linear-time estimate averages ``k(x1, x2) + k(y1, y2) - k(x1, y2) - k(x2, y1)`` over
  disjoint pairs: O(n) kernel values, a larger variance.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_real, check_choice, check_positive, check_positive_int, check_square
from .embeddings import _gram, _resolve, _two_samples

__all__ = ["mmd2_biased", "mmd2_unbiased", "mmd2_linear", "mmd2_from_gram", "gaussian_mmd2"]


ESTIMATORS = ("biased", "unbiased")


def mmd2_from_gram(K, m: int, estimator: str = "unbiased") -> float:
    """MMD^2 from the pooled Gram matrix ``K`` of ``[X; Y]``, ``X`` its first ``m`` rows.

    biased:   mean K_XX + mean K_YY - 2 mean K_XY (every pair, i = j included);
    unbiased: the sums of K_XX and K_YY without their diagonals over m (m - 1) and n (n - 1).
    """
    K = check_square(K, "K")
    m = check_positive_int(m, "m")
    estimator = check_choice(estimator, "estimator", ESTIMATORS)
    N = K.shape[0]
    n = N - m
    if n < 1:
        raise ValueError(f"m must leave at least one row of K for Y; got m={m} with K of shape {K.shape}")
    if estimator == "unbiased" and min(m, n) < 2:
        raise ValueError(f"the unbiased estimate needs at least two points in each sample; got "
                         f"m={m} and n={n}")
    a = np.zeros((N, 1))
    a[:m] = 1.0
    return float(_mmd2_labellings(K, a, m, estimator)[0])


def _mmd2_labellings(K, A, m, estimator, row_sums=None, diag=None, total=None):
    """MMD^2 for every column of ``A`` (N x B, 1 on the rows called X, 0 on Y).

    With ``c = a^T K a``, ``f = a^T K (1 - a) = a^T K 1 - c`` and ``e = 1^T K 1 - c - 2 f``,
    the three block sums come from one quadratic form per column: one product ``K A``.
    """
    N = K.shape[0]
    n = N - m
    row_sums = K.sum(axis=1) if row_sums is None else row_sums
    total = float(row_sums.sum()) if total is None else total
    c = np.einsum("ib,ib->b", A, K @ A)
    f = row_sums @ A - c
    e = total - c - 2.0 * f
    if estimator == "biased":
        return c / m**2 + e / n**2 - 2.0 * f / (m * n)
    diag = np.diag(K) if diag is None else diag
    dx = diag @ A
    dy = float(diag.sum()) - dx
    return (c - dx) / (m * (m - 1)) + (e - dy) / (n * (n - 1)) - 2.0 * f / (m * n)


def _pooled(X, Y, kernel):
    X, Y = _two_samples(X, Y)
    kernel = _resolve(kernel, X, Y)
    return _gram(kernel, np.vstack([X, Y])), X.shape[0], kernel


def mmd2_biased(X, Y, kernel=None) -> float:
    """The biased (V-statistic) estimate of MMD^2, ``||mu_hat_X - mu_hat_Y||^2`` (never negative).

    .. math:: \\frac1{m^2}\\sum_{i,j} k(x_i, x_j) + \\frac1{n^2}\\sum_{i,j} k(y_i, y_j)
              - \\frac2{mn}\\sum_{i,j} k(x_i, y_j)
    """
    K, m, _ = _pooled(X, Y, kernel)
    return mmd2_from_gram(K, m, "biased")


def mmd2_unbiased(X, Y, kernel=None) -> float:
    """The unbiased (U-statistic) estimate of MMD^2 (may be negative).

    .. math:: \\frac1{m(m-1)}\\sum_{i \\ne j} k(x_i, x_j) + \\frac1{n(n-1)}\\sum_{i \\ne j} k(y_i, y_j)
              - \\frac2{mn}\\sum_{i,j} k(x_i, y_j)
    """
    K, m, _ = _pooled(X, Y, kernel)
    return mmd2_from_gram(K, m, "unbiased")


def _paired_values(kernel, A, B, block: int = 64) -> np.ndarray:
    """``k(a_i, b_i)`` for every row pair, from small diagonal blocks: O(n) kernel values."""
    out = np.empty(A.shape[0])
    for s in range(0, A.shape[0], block):
        out[s:s + block] = np.diag(_gram(kernel, A[s:s + block], B[s:s + block]))
    return out


def mmd2_linear(X, Y, kernel=None) -> float:
    """The linear-time estimate of MMD^2 over disjoint pairs (samples of one size ``n >= 2``).

    .. math:: \\frac1{\\lfloor n/2 \\rfloor}\\sum_{i} k(x_{2i-1}, x_{2i}) + k(y_{2i-1}, y_{2i})
              - k(x_{2i-1}, y_{2i}) - k(x_{2i}, y_{2i-1})

    Unbiased, with O(n) kernel evaluations instead of O(n^2); an odd last point is left out.
    """
    X, Y = _two_samples(X, Y)
    if X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ValueError(f"the linear-time estimate pairs X and Y row by row: they need the same "
                         f"number of rows, at least 2; got X with shape {X.shape} and Y with shape {Y.shape}")
    kernel = _resolve(kernel, X, Y)
    h = len(X) // 2
    x1, x2, y1, y2 = X[0:2 * h:2], X[1:2 * h:2], Y[0:2 * h:2], Y[1:2 * h:2]
    terms = (_paired_values(kernel, x1, x2) + _paired_values(kernel, y1, y2)
             - _paired_values(kernel, x1, y2) - _paired_values(kernel, x2, y1))
    return float(terms.mean())


def _gaussian(mean, cov, name):
    """A Gaussian's mean (a number or a 1-D vector) and covariance (a number times the identity
    or a d x d symmetric PSD matrix), checked."""
    mean = as_real(mean, f"mean_{name}")
    mean = mean.reshape(1) if mean.ndim == 0 else mean
    if mean.ndim != 1 or mean.size == 0 or not np.all(np.isfinite(mean)):
        raise ValueError(f"mean_{name} must be a finite number or a non-empty finite 1-D vector; "
                         f"got shape {mean.shape}")
    d = mean.shape[0]
    cov = as_real(cov, f"cov_{name}")
    cov = cov * np.eye(d) if cov.ndim == 0 else cov
    if cov.shape != (d, d):
        raise ValueError(f"cov_{name} must be a number or a ({d}, {d}) matrix to match mean_{name} of "
                         f"shape ({d},); got shape {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"cov_{name} contains NaN or inf")
    eig = np.linalg.eigvalsh(0.5 * (cov + cov.T))
    if not np.allclose(cov, cov.T) or eig[0] < -1e-12 * max(1.0, eig[-1]):
        raise ValueError(f"cov_{name} must be a symmetric positive semi-definite covariance; its "
                         f"smallest eigenvalue is {eig[0]:.3g}")
    return mean, cov


def _expected_kernel(a, A, b, B, gamma):
    """E exp(-gamma ||X - Y||^2) for independent X ~ N(a, A), Y ~ N(b, B)."""
    d = a.shape[0]
    S = np.eye(d) + 2.0 * gamma * (A + B)
    delta = a - b
    quad = float(delta @ np.linalg.solve(S, delta))
    return math.exp(-gamma * quad) / math.sqrt(np.linalg.det(S))


def gaussian_mmd2(mean_p, cov_p, mean_q, cov_q, gamma) -> float:
    """The population MMD^2 between ``N(mean_p, cov_p)`` and ``N(mean_q, cov_q)`` under the RBF
    kernel ``exp(-gamma ||x - z||^2)``, in closed form.

    ``E exp(-gamma ||X - Y||^2) = det(I + 2 gamma (A + B))^(-1/2)
    exp(-gamma (a - b)^T (I + 2 gamma (A + B))^(-1) (a - b))`` for independent Gaussians,
    used three times. A covariance may be a number (times the identity).
    """
    gamma = check_positive(gamma, "gamma")
    a, A = _gaussian(mean_p, cov_p, "p")
    b, B = _gaussian(mean_q, cov_q, "q")
    if a.shape != b.shape:
        raise ValueError(f"mean_p and mean_q must have the same dimension; got {a.shape[0]} and {b.shape[0]}")
    return (_expected_kernel(a, A, a, A, gamma) + _expected_kernel(b, B, b, B, gamma)
            - 2.0 * _expected_kernel(a, A, b, B, gamma))
