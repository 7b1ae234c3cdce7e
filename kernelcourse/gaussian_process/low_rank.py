"""A Gaussian process with a low-rank covariance (lecture 8.8): computed in weight space.

When ``K ~ Phi Phi^T`` for ``D`` features per point (``D << n``), the GP is Bayesian linear
regression ``f(x) = phi(x)^T w`` with ``w ~ N(0, I_D)`` (Rasmussen and Williams 2006,
section 2.1.2): with ``A = Phi^T Phi + sigma^2 I_D``,

    mean(x*) = phi(x*)^T A^-1 Phi^T y
    var(x*)  = sigma^2 phi(x*)^T A^-1 phi(x*)

one ``D x D`` Cholesky factor, ``O(n D^2)`` time instead of ``O(n^3)``. The log marginal
likelihood follows from the matrix determinant lemma and Woodbury's identity:
``log |Phi Phi^T + sigma^2 I| = (n - D) log sigma^2 + log |A|`` and
``y^T (Phi Phi^T + sigma^2 I)^-1 y = (y^T y - y^T Phi A^-1 Phi^T y) / sigma^2``.

Two sources of features, both from lecture 6 / 2:

* ``"nystroem"``: ``m`` inducing points ``Z`` drawn among the inputs,
  ``phi(x) = K_mm^-1/2 k_m(x)`` (:func:`kernelcourse.nystroem.nystroem_features`):
  the subset-of-regressors GP, whose prior covariance ``K_nm K_mm^-1 K_mn`` agrees with ``K``
  on the inducing points (Quinonero-Candela and Rasmussen 2005);
* ``"fourier"``: ``D`` random Fourier features of an RBF kernel (2.8,
  :class:`kernelcourse.random_features.RandomFourierFeatures`).

With all ``n`` points as inducing points the posterior mean is the exact one, and so is the
variance at the training points; at a new point ``x`` the prior variance of the subset of
regressors is ``k_m(x)^T K_mm^-1 k_m(x) <= k(x, x)``, so its predictive variance is too
small away from the inducing points (its known overconfidence): far from every inducing point
``k_m(x) -> 0``, and SoR's variance falls to 0 where the exact GP's returns to ``k(x, x)``.

The sparse approximations of Quinonero-Candela and Rasmussen (2005) differ in what they keep
of ``K``, with ``Q = K_nm K_mm^-1 K_mn``:

* SoR (subset of regressors): ``Q`` everywhere, training and test (the model above);
* DTC (deterministic training conditional): the same mean and training model, but the test
  point keeps its exact prior variance: the predictive variance gains
  ``k(x, x) - q(x, x) >= 0``, one line (``predict(..., variance="dtc")``), at no cost;
* FITC (fully independent training conditional): also puts ``diag(K - Q)`` back on the
  training points, as heteroscedastic noise;
* VFE (Titsias 2009): DTC's predictions, with the parameters and inducing points chosen by a
  lower bound on the evidence, ``log N(y | 0, Q + sigma^2 I) - tr(K - Q) / (2 sigma^2)``.

All cost ``O(n m^2)`` time and ``O(n m)`` memory against the exact ``O(n^3)`` and ``O(n^2)``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .._estimator import Regressor, as_real_targets, check_fitted, check_X, default_kernel
from .._validation import as_2d, as_rng, as_vector, check_choice, check_positive, check_positive_int, gram
from ..kernels import RBF
from ..nystroem import inverse_sqrt_psd
from ..random_features import RandomFourierFeatures

__all__ = ["weight_space_posterior", "low_rank_log_marginal_likelihood", "LowRankGaussianProcess"]


def _check_features(Phi, y, noise):
    Phi = as_2d(Phi, "Phi")
    y = as_vector(y, "y", Phi.shape[0], f"to match Phi of shape {Phi.shape}")
    noise = check_positive(noise, "noise")
    return Phi, y, noise


def _factor_A(Phi, noise):
    D = Phi.shape[1]
    A = Phi.T @ Phi
    A.flat[:: D + 1] += noise
    return linalg.cholesky(A, lower=True, check_finite=False)


def weight_space_posterior(Phi, y, noise, Phi_new):
    """Posterior mean and variance of ``f`` at new points for the GP with covariance ``Phi Phi^T``.

    Parameters
    ----------
    Phi : array (n, D)
        Features of the training inputs.
    y : array (n,)
    noise : float > 0
        ``sigma^2``.
    Phi_new : array (m, D)
        Features of the new points.

    Returns
    -------
    mean, var : arrays (m,)
        Those of ``f(x*)``; add ``noise`` for an observation ``y*``.
    """
    Phi, y, noise = _check_features(Phi, y, noise)
    Phi_new = as_2d(Phi_new, "Phi_new")
    if Phi_new.shape[1] != Phi.shape[1]:
        raise ValueError(f"Phi_new must have the {Phi.shape[1]} features of Phi; got Phi_new with shape "
                         f"{Phi_new.shape} and Phi with shape {Phi.shape}")
    L = _factor_A(Phi, noise)
    w_mean = linalg.cho_solve((L, True), Phi.T @ y, check_finite=False)
    V = linalg.solve_triangular(L, Phi_new.T, lower=True, check_finite=False)
    return Phi_new @ w_mean, noise * np.einsum("ij,ij->j", V, V)


def low_rank_log_marginal_likelihood(Phi, y, noise):
    """``log N(y | 0, Phi Phi^T + noise I)`` in ``O(n D^2)`` (determinant lemma and Woodbury)."""
    Phi, y, noise = _check_features(Phi, y, noise)
    n, D = Phi.shape
    L = _factor_A(Phi, noise)
    u = linalg.solve_triangular(L, Phi.T @ y, lower=True, check_finite=False)
    quad = (y @ y - u @ u) / noise
    logdet = (n - D) * math.log(noise) + 2.0 * np.sum(np.log(np.diag(L)))
    return float(-0.5 * quad - 0.5 * logdet - 0.5 * n * math.log(2.0 * math.pi))


class LowRankGaussianProcess(Regressor):
    """GP regression on ``D`` features: Nystroem's inducing points or random Fourier features.

    Parameters
    ----------
    kernel : Kernel, optional
        ``None`` is ``RBF(gamma=1.0)``; ``method="fourier"`` needs an :class:`~kernelcourse.kernels.RBF`.
    n_components : int, default 100
        The number ``m`` of inducing points (at most ``n``) or ``D`` of random features.
    method : {"nystroem", "fourier"}, default "nystroem"
    noise : float > 0, default 0.01
        ``sigma^2``.
    random_state : None, int or Generator
        Draws the inducing points or the frequencies.

    Attributes
    ----------
    components_ : the inducing points (``nystroem``); ``features_`` the fitted random map (``fourier``)
    weight_mean_ : ``A^-1 Phi^T y``; ``L_`` the Cholesky factor of ``A = Phi^T Phi + noise I``
    log_marginal_likelihood_ : float
    """

    def __init__(self, kernel=None, n_components=100, method="nystroem", noise=0.01, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.method = method
        self.noise = noise
        self.random_state = random_state

    def _features(self, X):
        if self.method == "fourier":
            return self.features_.transform(X)
        return gram(self.kernel_, X, self.components_) @ self.normalization_

    def fit(self, X, y):
        """Draw the features, then solve the ``D x D`` system; returns self."""
        X = check_X(self, X, reset=True)
        y = as_real_targets(self, y, X.shape[0])
        noise = check_positive(self.noise, "noise")
        m = check_positive_int(self.n_components, "n_components")
        check_choice(self.method, "method", ("nystroem", "fourier"))
        self.kernel_ = default_kernel(self.kernel)
        rng = as_rng(self.random_state)
        if self.method == "fourier":
            if not isinstance(self.kernel_, RBF):
                raise ValueError(f"method='fourier' draws the random features of an RBF kernel; got kernel "
                                 f"{self.kernel_!r}: use method='nystroem'")
            self.features_ = RandomFourierFeatures(gamma=self.kernel_.gamma, n_components=m,
                                                   random_state=rng).fit(X)
        else:
            chosen = rng.choice(X.shape[0], size=min(m, X.shape[0]), replace=False)
            self.components_ = X[np.sort(chosen)].copy()
            self.normalization_, self.rank_ = inverse_sqrt_psd(gram(self.kernel_, self.components_))
        Phi = self._features(X)
        self.L_ = _factor_A(Phi, noise)
        self.weight_mean_ = linalg.cho_solve((self.L_, True), Phi.T @ y, check_finite=False)
        self.noise_ = noise
        self.log_marginal_likelihood_ = low_rank_log_marginal_likelihood(Phi, y, noise)
        return self

    def predict(self, X, return_std=False, with_noise=False, variance="sor"):
        """Posterior mean of ``f`` at the rows of ``X``; with ``return_std`` also its standard
        deviation (of ``y`` with ``with_noise=True``).

        ``variance="sor"``: that of the low-rank model, ``sigma^2 phi^T A^-1 phi``, too small away
        from the inducing points; ``"dtc"``: plus ``k(x, x) - phi(x)^T phi(x)``, the prior variance
        the features miss (the deterministic training conditional's predictive variance).
        """
        check_fitted(self, "weight_mean_")
        check_choice(variance, "variance", ("sor", "dtc"))
        X = check_X(self, X, reset=False)
        Phi_new = self._features(X)
        mean = Phi_new @ self.weight_mean_
        if not return_std:
            return mean
        V = linalg.solve_triangular(self.L_, Phi_new.T, lower=True, check_finite=False)
        var = self.noise_ * np.einsum("ij,ij->j", V, V)
        if variance == "dtc":
            var = var + np.maximum(self.kernel_.diag(X) - np.einsum("ij,ij->i", Phi_new, Phi_new), 0.0)
        return mean, np.sqrt(var + (self.noise_ if with_noise else 0.0))
