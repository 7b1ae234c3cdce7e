"""Gaussian process regression (lecture 8.1-8.6): prior and posterior, sampled and exact.

A Gaussian process ``f ~ GP(0, k)`` gives every finite set of values ``f(X)`` the
normal law ``N(0, K)`` with ``K = k(X, X)``. With observations ``y = f(X) + eps``,
``eps ~ N(0, sigma^2 I)`` (``noise = sigma^2``), the values at new points ``X_*`` are,
given ``y``, normal with (Rasmussen and Williams, *Gaussian Processes for Machine
Learning*, 2006, eqs. 2.23-2.24)

    mean  = K_* (K + sigma^2 I)^-1 y
    cov   = K_** - K_* (K + sigma^2 I)^-1 K_*^T

where ``K_*[p, i] = k(x*_p, x_i)`` (the course's ``K_new``, one row per new point).
Everything is computed by their Algorithm 2.1, from one Cholesky factor, never an
inverse:

    L     = cholesky(K + sigma^2 I)                 # (n^3 / 3 flops)
    alpha = L^T \\ (L \\ y)
    mean  = K_* alpha
    v     = L \\ K_*^T                                # (n^2 per new point)
    var   = diag(K_**) - sum(v^2, axis=0)
    log p(y | X) = -1/2 y^T alpha - sum_i log L_ii - n/2 log(2 pi)

The variance is that of ``f(x*)``; an observation ``y* = f(x*) + eps`` has
``var + sigma^2`` (``with_noise=True``). The mean is kernel ridge regression with
``lambda = sigma^2`` (lecture 3.3).

The gradient of the log marginal likelihood in a hyperparameter ``theta_j``
(eq. 5.9) is ``1/2 tr((alpha alpha^T - (K + sigma^2 I)^-1) dK/dtheta_j)``; here every
``theta_j`` is the log of a positive parameter (the kernel's
:meth:`~kernelcourse.kernels.Kernel.hyperparameters`, then ``log(noise)``), as
scikit-learn's ``theta``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._lazy import LazyModule, lazy_function
from .._validation import (as_2d, as_finite, as_rng, as_vector, check_choice, check_nonnegative,
                           check_nonnegative_int, check_positive,
                           check_positive_int, check_square, check_unit_interval, gram)
from ..kernels import Kernel

# imported at their first use, not at a notebook's first check of set 8
linalg = LazyModule("scipy.linalg")
ndtri = lazy_function("scipy.special", "ndtri")  # the standard normal quantile (scipy.stats.norm.ppf's own)

__all__ = ["DEFAULT_JITTER", "cholesky_jittered", "sample_gaussian", "prior_samples", "gp_factor",
           "posterior_mean_var", "posterior_cov", "log_marginal_likelihood",
           "log_marginal_likelihood_gradient", "marginal_likelihood", "Optimum",
           "data_scaled_starts", "maximise_marginal_likelihood", "interval_coverage"]

#: the jitter added to the diagonal before sampling, relative to the mean diagonal entry:
#: numerics (a smooth kernel's K is singular in floating point), not part of the model
DEFAULT_JITTER = 1e-8


def _factor(A, name, what):
    """Lower Cholesky factor of the symmetric ``A``; a clear error when it is not positive definite."""
    try:
        return linalg.cholesky(A, lower=True, check_finite=False)
    except linalg.LinAlgError:
        smallest = float(np.linalg.eigvalsh((A + A.T) / 2.0)[0])
        raise ValueError(
            f"{name} is not positive definite (smallest eigenvalue {smallest:.3g}, shape {A.shape}): "
            f"{what}") from None


def cholesky_jittered(K, jitter=DEFAULT_JITTER):
    """Lower Cholesky factor ``L`` of ``K + jitter * mean(diag K) * I``.

    A Gram matrix of a smooth kernel on many close points is singular in floating point,
    so sampling ``N(0, K)`` adds a small multiple of the identity first: that jitter is
    numerics, not a model (it adds independent noise of standard deviation
    ``sqrt(jitter * mean(diag K))``, 1e-4 of the prior's for the default).
    """
    return _jittered(K, jitter, "K")


def _jittered(K, jitter, name):
    K = check_square(K, name)
    jitter = check_nonnegative(jitter, "jitter")
    scale = max(float(np.mean(np.diag(K))), np.finfo(float).tiny)
    A = K + (jitter * scale) * np.eye(K.shape[0])
    return _factor(A, f"{name} + jitter I", f"raise jitter={jitter!r} or check that {name} is a kernel matrix")


def sample_gaussian(mean, cov, n_samples=1, random_state=None, jitter=DEFAULT_JITTER):
    """Draws from ``N(mean, cov)`` as ``mean + L z`` with ``L L^T = cov + jitter I`` and ``z ~ N(0, I)``.

    Returns an array of shape ``(n, n_samples)``: one sample path per column.
    """
    cov = check_square(cov, "cov")
    mean = as_vector(mean, "mean", cov.shape[0], f"to match cov of shape {cov.shape}")
    n_samples = check_positive_int(n_samples, "n_samples")
    L = _jittered(cov, jitter, "cov")
    Z = as_rng(random_state).standard_normal((cov.shape[0], n_samples))
    return mean[:, None] + L @ Z


def prior_samples(kernel, X, n_samples=1, random_state=None, jitter=DEFAULT_JITTER):
    """Sample paths of ``f ~ GP(0, kernel)`` at the rows of ``X``, shape ``(n, n_samples)`` (8.1)."""
    K = gram(kernel, as_2d(X, "X"))
    return sample_gaussian(np.zeros(K.shape[0]), K, n_samples, random_state, jitter)


def gp_factor(K, y, noise):
    """Algorithm 2.1's first lines: ``L = cholesky(K + noise I)`` and ``alpha = L^T \\ (L \\ y)``.

    Returns ``(L, alpha)``. ``noise = sigma^2 >= 0``; with ``noise = 0`` (interpolation)
    a singular ``K`` (repeated inputs, a smooth kernel on close points) is refused with
    its smallest eigenvalue rather than answered with NaN.
    """
    K = check_square(K, "K")
    y = as_vector(y, "y", K.shape[0], f"to match K of shape {K.shape}")
    noise = check_nonnegative(noise, "noise")
    A = K + noise * np.eye(K.shape[0])
    L = _factor(A, "K + noise I",
                f"noise={noise!r} is too small against the round-off of K (repeated or very close "
                "inputs make K singular): raise noise, e.g. to 1e-8 times the mean of diag K, or "
                "remove the repeated inputs")
    alpha = linalg.cho_solve((L, True), y, check_finite=False)
    return L, alpha


def _new_rows(K_new, n, name="K_new"):
    K_new = as_2d(K_new, name)
    if K_new.shape[1] != n:
        raise ValueError(f"{name} must have one column per training point ({n}); got shape {K_new.shape}")
    return K_new


def posterior_mean_var(K, y, noise, K_new, k_new_diag):
    """Posterior mean and variance of ``f`` at new points (Algorithm 2.1, 8.2).

    Parameters
    ----------
    K : array (n, n)
        ``k(X, X)``.
    y : array (n,)
    noise : float >= 0
        ``sigma^2``.
    K_new : array (m, n)
        ``K_new[p, i] = k(x*_p, x_i)``.
    k_new_diag : array (m,)
        ``k(x*_p, x*_p)``.

    Returns
    -------
    mean, var : arrays (m,)
        ``var`` is the variance of ``f(x*)``; add ``noise`` for that of ``y*``.
    """
    L, alpha = gp_factor(K, y, noise)
    K_new = _new_rows(K_new, len(alpha))
    k_new_diag = as_vector(k_new_diag, "k_new_diag", K_new.shape[0], f"to match K_new of shape {K_new.shape}")
    mean = K_new @ alpha
    v = linalg.solve_triangular(L, K_new.T, lower=True, check_finite=False)
    var = k_new_diag - np.einsum("ij,ij->j", v, v)
    return mean, np.maximum(var, 0.0)


def posterior_cov(K, noise, K_new, K_newnew):
    """Posterior covariance ``K_** - K_* (K + noise I)^-1 K_*^T`` of ``f`` at the new points, ``(m, m)``."""
    K = check_square(K, "K")
    L, _ = gp_factor(K, np.zeros(K.shape[0]), noise)
    K_new = _new_rows(K_new, K.shape[0])
    K_newnew = check_square(K_newnew, "K_newnew")
    if K_newnew.shape[0] != K_new.shape[0]:
        raise ValueError(f"K_newnew must be ({K_new.shape[0]}, {K_new.shape[0]}) to match K_new of "
                         f"shape {K_new.shape}; got shape {K_newnew.shape}")
    v = linalg.solve_triangular(L, K_new.T, lower=True, check_finite=False)
    C = K_newnew - v.T @ v
    return (C + C.T) / 2.0


def log_marginal_likelihood(K, y, noise):
    """``log p(y | X) = -1/2 y^T alpha - sum_i log L_ii - n/2 log(2 pi)`` (eq. 2.30, 8.5).

    ``sum log L_ii`` is half the log-determinant of ``K + noise I``, computed without
    the determinant itself (which over- or underflows for a few hundred points).
    """
    L, alpha = gp_factor(K, y, noise)
    y = np.asarray(y, dtype=float)
    n = len(y)
    return float(-0.5 * y @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * n * math.log(2.0 * math.pi))


def log_marginal_likelihood_gradient(K, dK, y, noise):
    """The log marginal likelihood and its gradient in ``(log theta_1, ..., log theta_p, log noise)``.

    ``dK[:, :, j] = dK / d log theta_j``; the derivative in ``theta_j`` is (eq. 5.9)
    ``1/2 tr((alpha alpha^T - (K + noise I)^-1) dK/dtheta_j)``, and ``d(K + noise I) / d log(noise)
    = noise I``. Returns ``(value, gradient)`` with ``gradient`` of shape ``(p + 1,)``.
    """
    K = check_square(K, "K")
    dK = as_finite(dK, "dK")
    if dK.ndim != 3 or dK.shape[:2] != K.shape:
        raise ValueError(f"dK must have shape {K.shape + ('p',)} to match K; got shape {dK.shape}")
    L, alpha = gp_factor(K, y, noise)
    n = K.shape[0]
    value = float(-0.5 * np.asarray(y, float) @ alpha - np.sum(np.log(np.diag(L)))
                  - 0.5 * n * math.log(2.0 * math.pi))
    # W = alpha alpha^T - (K + noise I)^-1, the inverse by two triangular solves of the factor
    W = np.outer(alpha, alpha) - linalg.cho_solve((L, True), np.eye(n), check_finite=False)
    grad_kernel = 0.5 * np.einsum("ij,jik->k", W, dK)
    grad_noise = 0.5 * noise * np.trace(W)
    return value, np.append(grad_kernel, grad_noise)


def marginal_likelihood(kernel, X, y, noise, eval_gradient=False):
    """``log p(y | X)`` for a kernel object and, with ``eval_gradient``, its gradient in
    ``(kernel.theta, log noise)`` (the kernel's :meth:`~kernelcourse.kernels.Kernel.gram_gradient`)."""
    X = as_2d(X, "X")
    y = as_vector(y, "y", X.shape[0], f"to match X of shape {X.shape}")
    noise = check_nonnegative(noise, "noise")
    if not eval_gradient:
        return log_marginal_likelihood(gram(kernel, X), y, noise)
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a kernelcourse Kernel for the gradient; got {type(kernel).__name__}")
    K, dK = kernel.gram_gradient(X)
    return log_marginal_likelihood_gradient(K, dK, y, noise)


@dataclass
class Optimum:
    """One run of the optimizer: where it started, where it stopped, and the value there."""

    theta_start: np.ndarray
    theta: np.ndarray
    log_marginal_likelihood: float
    kernel: Kernel
    noise: float
    converged: bool


def data_scaled_starts(kernel, X, y, n_starts, random_state=None, noise=True):
    """``n_starts`` starting points ``theta`` (log-parameters, then ``log noise`` when ``noise``)
    drawn log-uniformly in a box set by the data.

    A parameter named ``length_scale`` gets ``[smallest distance, largest distance]`` of the
    inputs; ``gamma`` the same range through ``gamma = 1 / (2 l^2)``; ``c`` (a signal variance)
    ``[0.05, 1] var(y)``; the noise ``[0.01, 1] var(y)``. Any other parameter (a period) keeps
    its given value. Returns an array ``(n_starts, p)``.
    """
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a kernelcourse Kernel; got {type(kernel).__name__}")
    X = as_2d(X, "X")
    y = as_vector(y, "y", X.shape[0], f"to match X of shape {X.shape}")
    n_starts = check_positive_int(n_starts, "n_starts")
    if X.shape[0] < 2:
        raise ValueError(f"a data-scaled box needs at least 2 inputs; got X with shape {X.shape}")
    d = np.sqrt(np.maximum(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1), 0.0))
    d = d[np.triu_indices(len(d), 1)]
    d = d[d > 0]
    v = float(np.var(y))
    if d.size == 0 or v <= 0:
        raise ValueError(f"a data-scaled box needs distinct inputs and targets that vary; got "
                         f"{d.size} positive distances and var(y) = {v!r}")
    lo_l, hi_l = math.log(d.min()), math.log(d.max())
    boxes = []
    for name, t in zip(kernel.hyperparameters(), kernel.theta):
        last = name.split("__")[-1]
        if last == "length_scale":
            boxes.append((lo_l, hi_l))
        elif last == "gamma":
            boxes.append((-math.log(2.0) - 2 * hi_l, -math.log(2.0) - 2 * lo_l))
        elif last == "c":
            boxes.append((math.log(0.05 * v), math.log(v)))
        else:
            boxes.append((t, t))
    if noise:
        boxes.append((math.log(0.01 * v), math.log(v)))
    low, high = np.array(boxes).T
    rng = as_rng(random_state)
    return low + (high - low) * rng.random((n_starts, len(boxes)))


def maximise_marginal_likelihood(kernel, X, y, noise, optimize_noise=True, n_restarts=0,
                                 bounds=(1e-5, 1e5), random_state=None, restart_box="bounds"):
    """Maximise ``log p(y | X)`` over the kernel's log-parameters (and ``log noise``) by L-BFGS-B.

    The first run starts at the given parameters, each of the ``n_restarts`` others at a
    point drawn uniformly in ``log(bounds)`` (``restart_box="bounds"``, as scikit-learn) or in
    the box of :func:`data_scaled_starts` (``"data"``). Returns the list of :class:`Optimum`,
    best first: one per run, where L-BFGS-B stopped. That is a local maximum, or a stall on a
    flat region where the gradient vanishes (a length-scale far outside the inputs'
    distances, a signal variance near 0): ``converged`` does not tell them apart.
    """
    from scipy.optimize import minimize  # imported when first needed, not at a notebook's first check

    X = as_2d(X, "X")
    y = as_vector(y, "y", X.shape[0], f"to match X of shape {X.shape}")
    noise = check_positive(noise, "noise")
    low, high = (check_positive(b, "bounds") for b in bounds)
    if not low < high:
        raise ValueError(f"bounds must be (low, high) with 0 < low < high; got bounds={bounds!r}")
    n_restarts = check_nonnegative_int(n_restarts, "n_restarts")
    theta0 = kernel.theta
    p = len(theta0)
    start = np.append(theta0, math.log(noise)) if optimize_noise else theta0

    def negative(t):
        k = kernel.with_theta(t[:p])
        s2 = math.exp(t[p]) if optimize_noise else noise
        try:
            value, grad = marginal_likelihood(k, X, y, s2, eval_gradient=True)
        except ValueError:          # not positive definite at this point: a wall
            return 1e25, np.zeros_like(t)
        return -value, -(grad if optimize_noise else grad[:p])

    check_choice(restart_box, "restart_box", ("bounds", "data"))
    rng = as_rng(random_state)
    box = [(math.log(low), math.log(high))] * len(start)
    starts = [np.clip(start, math.log(low), math.log(high))]
    if n_restarts and restart_box == "data":
        drawn = data_scaled_starts(kernel, X, y, n_restarts, rng, noise=optimize_noise)
        starts += list(np.clip(drawn, math.log(low), math.log(high)))
    else:
        starts += [rng.uniform(math.log(low), math.log(high), size=len(start)) for _ in range(n_restarts)]
    optima = []
    for t0 in starts:
        result = minimize(negative, t0, jac=True, method="L-BFGS-B", bounds=box)
        t = np.asarray(result.x, dtype=float)
        optima.append(Optimum(t0, t, float(-result.fun), kernel.with_theta(t[:p]),
                              math.exp(t[p]) if optimize_noise else noise, bool(result.success)))
    optima.sort(key=lambda o: -o.log_marginal_likelihood)
    return optima


def interval_coverage(y, mean, std, level=0.95):
    """The fraction of ``y`` inside the central predictive intervals ``mean +- z std`` (8.6).

    ``z`` is the normal quantile of ``(1 + level) / 2`` (1.96 for 95 %). A calibrated
    model covers about ``level`` of held-out points.
    """
    y = as_vector(y, "y")
    mean = as_vector(mean, "mean", len(y), "to match y")
    std = as_vector(std, "std", len(y), "to match y")
    if np.any(std < 0):
        raise ValueError(f"std must be non-negative (a standard deviation, not a variance); got min {std.min()!r}")
    level = check_unit_interval(level, "level")
    z = float(ndtri(0.5 + level / 2.0))
    return float(np.mean(np.abs(y - mean) <= z * std))
