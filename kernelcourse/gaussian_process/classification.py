"""Binary classification with a Gaussian process: the Laplace approximation (lecture 8.7).

Labels ``y_i`` in {-1, +1} (``t_i = (y_i + 1) / 2`` in {0, 1}) and a latent function
``f ~ GP(0, k)`` with the logistic likelihood ``p(y_i | f_i) = sigma(y_i f_i)``. The
posterior of ``f`` at the training points is not normal; the Laplace approximation
replaces it by the normal law at its mode ``f_hat`` with the curvature there
(Rasmussen and Williams, *Gaussian Processes for Machine Learning*, 2006, section 3.4):

* Algorithm 3.1, Newton's method on ``Psi(f) = log p(y | f) - 1/2 f^T K^-1 f``, written
  with ``B = I + W^1/2 K W^1/2`` (well conditioned, eigenvalues >= 1), ``W = pi (1 - pi)``:

      b = W f + (t - pi);   a = b - W^1/2 B^-1 W^1/2 K b;   f = K a

  and the approximate log marginal likelihood
  ``-1/2 a^T f + log p(y | f_hat) - sum_i log L_ii`` with ``L L^T = B``.
* Algorithm 3.2, predictions: the latent mean ``k_*^T (t - pi)``, the latent variance
  ``k(x*, x*) - v^T v`` with ``v = L \\ (W^1/2 k_*)``, and the probability
  ``int sigma(z) N(z | mean, var) dz``, here by Gauss-Hermite quadrature.
* Algorithm 5.1, the gradient of the approximate log marginal likelihood in the kernel's
  log-parameters, for choosing them.

The mode maximises the same objective as the MAP logistic regression of lecture 4.2 in
its dual form: ``f = K a`` with ``a = t - pi`` at the optimum, the representer theorem.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._lazy import LazyModule, lazy_function
from .._validation import (as_2d, as_finite, as_labels, as_vector, check_positive, check_positive_int,
                           check_square)

# imported at their first use, not at a notebook's first check of set 8
linalg = LazyModule("scipy.linalg")
expit, log_expit = lazy_function("scipy.special", "expit"), lazy_function("scipy.special", "log_expit")

__all__ = ["LaplaceMode", "laplace_newton_step", "laplace_mode", "laplace_latent", "probit_average", "laplace_gradient"]

_HERMITE = np.polynomial.hermite.hermgauss(64)


@dataclass
class LaplaceMode:
    """The Laplace approximation at the mode: ``f`` (the mode ``f_hat``), ``a`` (``K^-1 f_hat``),
    ``pi = sigma(f_hat)``, ``sqrt_W``, ``L`` (``L L^T = I + W^1/2 K W^1/2``), the approximate
    log marginal likelihood and the number of Newton steps."""

    f: np.ndarray
    a: np.ndarray
    pi: np.ndarray
    sqrt_W: np.ndarray
    L: np.ndarray
    log_marginal_likelihood: float
    n_iter: int


def _newton_step(K, t, f):
    pi = expit(f)
    sqrt_W = np.sqrt(pi * (1.0 - pi))
    B = np.eye(len(f)) + sqrt_W[:, None] * K * sqrt_W[None, :]
    L = linalg.cholesky(B, lower=True, check_finite=False)
    b = sqrt_W ** 2 * f + (t - pi)
    a = b - sqrt_W * linalg.cho_solve((L, True), sqrt_W * (K @ b), check_finite=False)
    return K @ a, a


def laplace_newton_step(K, y, f):
    """One Newton step on ``Psi(f) = log p(y | f) - 1/2 f^T K^-1 f`` (Algorithm 3.1, lines 4-8).

    ``f_new = (K^-1 + W)^-1 (W f + grad log p(y | f))``, with ``grad log p = t - pi`` and
    ``W = diag(pi (1 - pi))``, ``pi = sigma(f)``, ``t = (y + 1) / 2``; computed as ``K a`` with
    ``b = W f + grad log p`` and ``a = b - W^1/2 B^-1 W^1/2 K b``, ``B = I + W^1/2 K W^1/2``
    (Woodbury: ``(K^-1 + W)^-1 = K - K W^1/2 B^-1 W^1/2 K``), so that ``K`` is never inverted.

    Parameters
    ----------
    K : array (n, n)
    y : array (n,), labels in {-1, +1}
    f : array (n,), the current latent values

    Returns
    -------
    f_new : array (n,)
    """
    K = check_square(K, "K")
    y = as_labels(y, K.shape[0], "y")
    f = as_vector(f, "f", K.shape[0], f"to match K of shape {K.shape}")
    return _newton_step(K, (y + 1.0) / 2.0, f)[0]


def laplace_mode(K, y, tol=1e-10, max_iter=100):
    """Newton's method for the mode of the latent posterior (Algorithm 3.1).

    Parameters
    ----------
    K : array (n, n)
        The Gram matrix of the training inputs.
    y : array (n,)
        Labels in {-1, +1}.
    tol : float > 0
        Stop when no latent value moves by more than ``tol``.
    max_iter : int >= 1

    Returns
    -------
    LaplaceMode
    """
    K = check_square(K, "K")
    y = as_labels(y, K.shape[0], "y")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    t = (y + 1.0) / 2.0
    n = K.shape[0]
    f = np.zeros(n)
    for step in range(1, max_iter + 1):
        f_new, a = _newton_step(K, t, f)
        moved = float(np.max(np.abs(f_new - f)))
        f = f_new
        if moved <= tol:
            break
    # the factor and the weights at the mode itself
    pi = expit(f)
    sqrt_W = np.sqrt(pi * (1.0 - pi))
    L = linalg.cholesky(np.eye(n) + sqrt_W[:, None] * K * sqrt_W[None, :], lower=True, check_finite=False)
    lml = float(-0.5 * a @ f + np.sum(log_expit(y * f)) - np.sum(np.log(np.diag(L))))
    return LaplaceMode(f, a, pi, sqrt_W, L, lml, step)


def laplace_latent(mode, y, K_new, k_new_diag):
    """The latent mean and variance at new points (Algorithm 3.2, lines 4-6).

    ``K_new[p, i] = k(x*_p, x_i)``; ``mean = K_new (t - pi)`` and
    ``var = k(x*, x*) - v^T v`` with ``v = L \\ (W^1/2 k_*)``.
    """
    if not isinstance(mode, LaplaceMode):
        raise TypeError(f"mode must be the LaplaceMode that laplace_mode returns; got {type(mode).__name__}")
    n = len(mode.f)
    y = as_labels(y, n, "y")
    K_new = as_2d(K_new, "K_new")
    if K_new.shape[1] != n:
        raise ValueError(f"K_new must have one column per training point ({n}); got shape {K_new.shape}")
    k_new_diag = as_vector(k_new_diag, "k_new_diag", K_new.shape[0], f"to match K_new of shape {K_new.shape}")
    t = (y + 1.0) / 2.0
    mean = K_new @ (t - mode.pi)
    v = linalg.solve_triangular(mode.L, mode.sqrt_W[:, None] * K_new.T, lower=True, check_finite=False)
    var = np.maximum(k_new_diag - np.einsum("ij,ij->j", v, v), 0.0)
    return mean, var


def probit_average(mean, var):
    """``int sigma(z) N(z | mean, var) dz``, the predictive probability of the class +1.

    Gauss-Hermite quadrature with 64 nodes; the average of the sigmoid over the latent
    uncertainty, closer to 1/2 than ``sigma(mean)`` when ``var > 0``.
    """
    mean = as_vector(mean, "mean")
    var = as_vector(var, "var", len(mean), "to match mean")
    if np.any(var < 0):
        raise ValueError(f"var must be non-negative; got min {var.min()!r}")
    nodes, weights = _HERMITE
    z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes[None, :]
    return expit(z) @ weights / math.sqrt(math.pi)


def laplace_gradient(K, dK, y, tol=1e-10, max_iter=100):
    """The approximate log marginal likelihood and its gradient in the kernel's log-parameters
    (Algorithm 5.1); ``dK[:, :, j] = dK / d log theta_j``. Returns ``(value, gradient)``."""
    K = check_square(K, "K")
    dK = as_finite(dK, "dK")
    if dK.ndim != 3 or dK.shape[:2] != K.shape:
        raise ValueError(f"dK must have shape {K.shape + ('p',)} to match K; got shape {dK.shape}")
    mode = laplace_mode(K, y, tol, max_iter)
    t = (np.asarray(y, float) + 1.0) / 2.0
    sW, L, pi = mode.sqrt_W, mode.L, mode.pi
    R = sW[:, None] * linalg.cho_solve((L, True), np.diag(sW), check_finite=False)
    C = linalg.solve_triangular(L, sW[:, None] * K, lower=True, check_finite=False)
    # the mode moves with theta; s2 is -1/2 diag((K^-1 + W)^-1) times dW/df, which for the
    # logistic likelihood is pi (1 - pi) (1 - 2 pi) (W = -d^2 log p / df^2)
    dW = pi * (1.0 - pi) * (1.0 - 2.0 * pi)
    s2 = -0.5 * (np.diag(K) - np.einsum("ij,ij->j", C, C)) * dW
    grad_log_p = t - pi
    grad = np.empty(dK.shape[2])
    for j in range(dK.shape[2]):
        Cj = dK[:, :, j]
        s1 = 0.5 * mode.a @ Cj @ mode.a - 0.5 * np.sum(R * Cj.T)
        b = Cj @ grad_log_p
        s3 = b - K @ (R @ b)
        grad[j] = s1 + s2 @ s3
    return mode.log_marginal_likelihood, grad
