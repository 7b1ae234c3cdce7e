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
from scipy import linalg, optimize
from scipy.special import expit, log_expit

from .._estimator import (Classifier, check_fitted, check_X, decode_binary_labels, default_kernel,
                          encode_binary_labels)
from .._validation import as_2d, as_finite, as_labels, as_rng, as_vector, check_nonnegative_int, check_positive, \
    check_positive_int, check_square, gram
from ..kernels import Kernel

__all__ = ["LaplaceMode", "laplace_newton_step", "laplace_mode", "laplace_latent", "probit_average", "laplace_gradient",
           "GaussianProcessClassifier"]

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


class GaussianProcessClassifier(Classifier):
    """Binary GP classification by the Laplace approximation (Algorithms 3.1, 3.2, 5.1).

    Parameters
    ----------
    kernel : Kernel, optional
        ``None`` is ``RBF(gamma=1.0)``; ``c * k`` lets the optimizer learn the latent scale.
    optimizer : {"lbfgs", None}, default "lbfgs"
        Maximise the approximate log marginal likelihood over the kernel's log-parameters.
    n_restarts_optimizer : int >= 0, default 0
    bounds : (float, float), default (1e-5, 1e5)
    random_state : None, int or Generator
    max_iter : int, default 100
        Newton steps for the mode.

    Attributes
    ----------
    classes_, kernel_, X_fit_, mode_ (:class:`LaplaceMode`), n_iter_ (Newton steps at the end),
    log_marginal_likelihood_,
    optima_ (list of ``(theta, log marginal likelihood)`` per run, best first)
    """

    def __init__(self, kernel=None, optimizer="lbfgs", n_restarts_optimizer=0, bounds=(1e-5, 1e5),
                 random_state=None, max_iter=100):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.bounds = bounds
        self.random_state = random_state
        self.max_iter = max_iter

    def fit(self, X, y):
        """Find the mode (after choosing the kernel's parameters unless ``optimizer=None``); returns self."""
        X = check_X(self, X, reset=True)
        y = encode_binary_labels(self, y, X.shape[0])
        max_iter = check_positive_int(self.max_iter, "max_iter")
        if self.optimizer not in ("lbfgs", None):
            raise ValueError(f"optimizer must be 'lbfgs' or None; got optimizer={self.optimizer!r}")
        kernel = default_kernel(self.kernel)
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a kernel object; got {kernel!r}: build it, e.g. RBF(gamma=1.0)")
        self.optima_ = []
        if self.optimizer == "lbfgs" and kernel.hyperparameters():
            low, high = (math.log(check_positive(b, "bounds")) for b in self.bounds)
            n_restarts = check_nonnegative_int(self.n_restarts_optimizer, "n_restarts_optimizer")

            def negative(theta):
                K, dK = kernel.with_theta(theta).gram_gradient(X)
                value, grad = laplace_gradient(K, dK, y, max_iter=max_iter)
                return -value, -grad

            rng = as_rng(self.random_state)
            theta0 = np.clip(kernel.theta, low, high)
            starts = [theta0] + [rng.uniform(low, high, len(theta0)) for _ in range(n_restarts)]
            for start in starts:
                res = optimize.minimize(negative, start, jac=True, method="L-BFGS-B",
                                        bounds=[(low, high)] * len(start))
                self.optima_.append((np.asarray(res.x, float), float(-res.fun)))
            self.optima_.sort(key=lambda o: -o[1])
            kernel = kernel.with_theta(self.optima_[0][0])
        self.kernel_ = kernel
        self.X_fit_, self.y_fit_ = X.copy(), y
        self.mode_ = laplace_mode(gram(kernel, X), y, max_iter=max_iter)
        self.log_marginal_likelihood_ = self.mode_.log_marginal_likelihood
        self.n_iter_ = self.mode_.n_iter
        return self

    def latent_mean_and_variance(self, X):
        """The latent ``f(x*)``'s approximate mean and variance at the rows of ``X``."""
        check_fitted(self, "mode_")
        X = check_X(self, X, reset=False)
        return laplace_latent(self.mode_, self.y_fit_, gram(self.kernel_, X, self.X_fit_), self.kernel_.diag(X))

    def decision_function(self, X):
        """The log-odds ``log(p / (1 - p))`` of the predictive probability ``p`` of ``classes_[1]``.

        Positive exactly where the latent mean is (averaging the sigmoid over a normal law
        centred at the mean keeps it on the same side of 1/2), and ordered as ``predict_proba``;
        ``p`` and ``1 - p`` are both averaged, so neither is lost to rounding.
        """
        mean, var = self.latent_mean_and_variance(X)
        return np.log(probit_average(mean, var)) - np.log(probit_average(-mean, var))

    def predict_proba(self, X):
        """``[P(classes_[0]), P(classes_[1])]`` per row, shape ``(m, 2)``, averaged over the latent law."""
        mean, var = self.latent_mean_and_variance(X)
        p = probit_average(mean, var)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """The class whose probability exceeds 1/2, i.e. the sign of the latent mean."""
        return decode_binary_labels(self, self.decision_function(X) > 0)

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """The approximate ``log p(y | X)`` at ``theta`` (the kernel's log-parameters; default the
        fitted ones); with ``eval_gradient`` also its gradient."""
        check_fitted(self, "mode_")
        if theta is None and not eval_gradient:
            return self.log_marginal_likelihood_
        kernel = self.kernel_ if theta is None else self.kernel_.with_theta(theta)
        K, dK = kernel.gram_gradient(self.X_fit_)
        value, grad = laplace_gradient(K, dK, self.y_fit_, max_iter=self.max_iter)
        return (value, grad) if eval_gradient else value
