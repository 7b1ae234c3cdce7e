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

from .._lazy import LazyModule
from .._validation import as_2d, as_vector, check_positive

linalg = LazyModule("scipy.linalg")  # imported at its first use, not at a first check of set 8

__all__ = ["weight_space_posterior", "low_rank_log_marginal_likelihood"]


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
