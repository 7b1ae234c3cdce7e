"""Goodness of fit without samples from the model (9.8): the kernel Stein discrepancy.

A model density ``p`` known only up to its normalising constant still has a computable
**score** ``s_p(x) = grad log p(x)`` (the constant drops out of the logarithm's gradient).
For a smooth function ``f`` with enough decay, Stein's identity ``E_p[s_p(X) f(X) + grad f(X)] = 0``
holds; the Stein operator applied to the RKHS of a base kernel ``k`` turns this into a new
kernel, the **Stein kernel**

    u_p(x, y) = s_p(x)^T s_p(y) k(x, y) + s_p(x)^T grad_y k(x, y)
                + grad_x k(x, y)^T s_p(y) + tr(grad_x grad_y k(x, y)),

whose mean under ``q x q`` is ``KSD^2(q, p)``, zero when ``q = p`` and, for a characteristic
``k`` such as the RBF kernel and smooth ``p``, only then (Chwialkowski, Strathmann and Gretton,
*A kernel test of goodness of fit*, ICML 2016; Liu, Lee and Jordan, *A kernelized Stein
discrepancy for goodness-of-fit tests*, ICML 2016). For ``k(x, y) = exp(-gamma ||x - y||^2)``,
with ``r = x - y`` in ``d`` dimensions,

    u_p(x, y) = k(x, y) [ s(x)^T s(y) + 2 gamma (s(x) - s(y))^T r + 2 gamma d - 4 gamma^2 ||r||^2 ].

From a sample ``x_1..x_n`` of ``q``: the U-statistic averages ``u_p(x_i, x_j)`` over ``i != j``
(unbiased, can be negative), the V-statistic over all pairs (``>= 0``: it is a squared RKHS
norm). The test's null law of ``n`` times the statistic is a weighted sum of chi-squares; the
**wild bootstrap** draws it by multiplying the rows and columns of ``U`` by random signs
``w_i``: ``T_b = w^T U_0 w / (n (n - 1))`` with ``U_0`` the Stein Gram matrix without its
diagonal. Unlike the permutation test of 9.3 it is only asymptotically exact.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_2d, as_rng, check_callable, check_choice, check_positive, check_positive_int
from .two_sample_test import _BLOCK, TestResult, _one_blas_thread, permutation_p_value

__all__ = ["stein_kernel_rbf", "ksd", "ksd_test", "gaussian_score"]


def gaussian_score(mean, cov):
    """The score ``x -> -(x - mean) Sigma^{-1}`` of ``N(mean, cov)``, as a function of an
    (n, d) array (rows are points)."""
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    cov = np.atleast_2d(np.asarray(cov, dtype=float))
    if cov.shape != (mean.size, mean.size):
        raise ValueError(f"cov must be {mean.size} x {mean.size} to match mean of shape {mean.shape}; "
                         f"got cov with shape {cov.shape}")
    P = np.linalg.inv(cov)
    return lambda X: -(np.asarray(X, dtype=float) - mean) @ P


def _scores(X, score):
    X = as_2d(X, "X")
    check_callable(score, "score", "score(X) -> (n, d) array of grad log p at the rows of X")
    S = np.asarray(score(X), dtype=float)
    if S.shape != X.shape:
        raise ValueError(f"score(X) must have X's shape {X.shape} (one gradient per row); got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("score(X) returned NaN or inf entries")
    return X, S


def stein_kernel_rbf(X, score, gamma) -> np.ndarray:
    """The (n, n) Gram matrix ``U[i, j] = u_p(x_i, x_j)`` of the Stein kernel of ``p`` with the
    base kernel ``exp(-gamma ||x - y||^2)``; ``score(X)`` returns the (n, d) scores ``grad log p``.
    """
    X, S = _scores(X, score)
    gamma = check_positive(gamma, "gamma")
    d = X.shape[1]
    sq = np.sum(X * X, axis=1)
    R2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0)     # ||x_i - x_j||^2
    K = np.exp(-gamma * R2)
    SX = np.sum(S * X, axis=1)                                          # s_i . x_i
    # (s_i - s_j) . (x_i - x_j) = s_i.x_i - s_i.x_j - s_j.x_i + s_j.x_j
    cross = SX[:, None] + SX[None, :] - S @ X.T - (S @ X.T).T
    return K * (S @ S.T + 2.0 * gamma * cross + 2.0 * gamma * d - 4.0 * gamma**2 * R2)


def ksd(X, score, gamma, estimator: str = "unbiased") -> float:
    """KSD^2 of the sample ``X`` against the model with score ``score``, RBF base kernel.

    unbiased: the mean of ``u_p(x_i, x_j)`` over ``i != j``; biased: over all pairs.
    """
    estimator = check_choice(estimator, "estimator", ("biased", "unbiased"))
    U = stein_kernel_rbf(X, score, gamma)
    n = U.shape[0]
    if estimator == "biased":
        return float(U.mean())
    if n < 2:
        raise ValueError(f"the unbiased KSD needs at least two points; got X with {n} rows")
    return float((U.sum() - np.trace(U)) / (n * (n - 1)))


def ksd_test(X, score, gamma, n_bootstrap: int = 1000, random_state=None) -> TestResult:
    """The KSD goodness-of-fit test of ``H0: X ~ p`` by the wild bootstrap (Rademacher signs).

    The statistic is the U-statistic; each bootstrap value is ``w^T U_0 w / (n (n - 1))``, all
    ``B`` from one product ``U_0 W``. The p-value is ``(1 + #{T_b >= T}) / (1 + B)``.
    """
    U = stein_kernel_rbf(X, score, gamma)
    n = U.shape[0]
    if n < 2:
        raise ValueError(f"the KSD test needs at least two points; got X with {n} rows")
    B = check_positive_int(n_bootstrap, "n_bootstrap")
    rng = as_rng(random_state)
    np.fill_diagonal(U, 0.0)
    statistic = float(U.sum() / (n * (n - 1)))
    null = np.empty(B)
    with _one_blas_thread(n):
        for s in range(0, B, _BLOCK):
            W = rng.choice(np.array([-1.0, 1.0]), size=(n, min(_BLOCK, B - s)))
            null[s:s + W.shape[1]] = np.einsum("ib,ib->b", W, U @ W) / (n * (n - 1))
    return TestResult(statistic, null, permutation_p_value(statistic, null))
