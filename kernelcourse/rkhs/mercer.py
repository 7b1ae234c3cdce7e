"""Mercer's theorem, seen through the Gram matrix (lecture 5.13).

For a continuous kernel ``K`` and a probability measure ``p`` on the inputs, the kernel
operator ``(T f)(x) = E_{t ~ p}[K(x, t) f(t)]`` has eigenfunctions ``phi_k`` (orthonormal
in ``L2(p)``) and eigenvalues ``lambda_1 >= lambda_2 >= ... >= 0`` with

    K(x, z) = sum_k lambda_k phi_k(x) phi_k(z)            (Mercer),

so ``x -> (sqrt(lambda_k) phi_k(x))_k`` is a feature map of ``K``. With ``n`` points drawn
from ``p`` the expectation becomes an average: ``T`` becomes ``K / n`` on the sample, whose
eigenvectors ``u_k`` and eigenvalues ``s_k`` give

    lambda_k ~ s_k / n,   phi_k(x) ~ sqrt(n) / s_k sum_i K(x, x_i) u_ik,

the second being the Nystroem extension of ``sqrt(n) u_k`` to any ``x``. The feature map it
gives, ``sqrt(s_k/n) phi_k(x) = K(x, X) u_k / sqrt(s_k)``, is the Nystroem map of lecture 6.2
with the sample as landmarks (written in the eigenbasis of ``K_mm``).

For the RBF kernel and a Gaussian ``p`` in one dimension the eigenpairs are known in closed
form (Zhu, Williams, Rohwer and Morciniec 1998; Rasmussen and Williams 2006, section 4.3.1):
:func:`gaussian_mercer_eigenvalues`, :func:`gaussian_mercer_eigenfunctions`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_2d, as_real, check_positive, check_positive_int, gram
from ..kernels import as_kernel

__all__ = ["MercerEstimate", "mercer_from_sample", "gaussian_mercer_eigenvalues",
           "gaussian_mercer_eigenfunctions"]


@dataclass
class MercerEstimate:
    """Eigenvalues and eigenfunctions of the kernel operator, estimated from a sample.

    Attributes
    ----------
    kernel : the kernel object
    X : array (n, d), the sample (a copy)
    eigenvalues : array (k,), ``s_k / n``, largest first
    eigenvectors : array (n, k), the unit eigenvectors ``u_k`` of ``K``
    """
    kernel: object
    X: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray

    def eigenfunctions(self, Z):
        """``phi_k(z) = sqrt(n) / s_k sum_i K(z, x_i) u_ik``, shape ``(n_Z, k)``.

        At the sample points it is ``sqrt(n) u_ik``, so ``(1/n) sum_i phi_k(x_i) phi_l(x_i)``
        is 1 for ``k = l`` and 0 otherwise: orthonormal for the sample's measure.
        """
        Z = as_2d(Z, "Z")
        n = self.X.shape[0]
        s = n * self.eigenvalues
        return gram(self.kernel, Z, self.X) @ self.eigenvectors * (np.sqrt(n) / s)

    def features(self, Z):
        """The Mercer feature map ``sqrt(lambda_k) phi_k(z) = K(z, X) u_k / sqrt(s_k)``."""
        return self.eigenfunctions(Z) * np.sqrt(self.eigenvalues)


def mercer_from_sample(kernel, X, n_components=None):
    """Estimate the leading ``n_components`` eigenpairs of the kernel operator from ``X``.

    ``X`` is a sample of the input measure ``p``. The eigenvalues kept are those above
    ``1e-12`` times the largest (the others carry no direction).

    Returns
    -------
    MercerEstimate
    """
    X = as_2d(X).copy()
    kernel = as_kernel(kernel, X.shape[1])
    n = X.shape[0]
    k = n if n_components is None else check_positive_int(n_components, "n_components")
    if k > n:
        raise ValueError(f"n_components must be at most the sample size; got n_components={k} "
                         f"with X of shape {X.shape}")
    K = gram(kernel, X)
    # only the k largest eigenpairs (LAPACK's subset driver is much faster for k << n)
    import scipy.linalg   # at first use: scipy.linalg takes a while to load
    s, U = scipy.linalg.eigh((K + K.T) / 2, subset_by_index=[n - k, n - 1])
    s, U = s[::-1], U[:, ::-1]
    keep = s > 1e-12 * max(s[0], 0.0)
    return MercerEstimate(kernel, X, s[keep] / n, U[:, keep])


def _gaussian_constants(gamma, sigma):
    gamma = check_positive(gamma, "gamma")
    sigma = check_positive(sigma, "sigma")
    a = 1.0 / (4.0 * sigma ** 2)
    b = gamma
    c = np.sqrt(a * a + 2.0 * a * b)
    return a, b, c, a + b + c


def gaussian_mercer_eigenvalues(gamma, sigma, n_eigen):
    """The eigenvalues of ``exp(-gamma (x - z)^2)`` under ``p = N(0, sigma^2)`` on the line.

    ``lambda_k = sqrt(2a / A) B^k`` for ``k = 0, 1, ...`` with ``a = 1/(4 sigma^2)``,
    ``b = gamma``, ``c = sqrt(a^2 + 2ab)``, ``A = a + b + c``, ``B = b / A``: a geometric
    decay, faster for a wide kernel (small ``gamma``) than for a narrow one.
    """
    _, b, c, A = _gaussian_constants(gamma, sigma)
    a = 1.0 / (4.0 * check_positive(sigma, "sigma") ** 2)
    n_eigen = check_positive_int(n_eigen, "n_eigen")
    return np.sqrt(2 * a / A) * (b / A) ** np.arange(n_eigen)


def gaussian_mercer_eigenfunctions(gamma, sigma, n_eigen, x):
    """The eigenfunctions ``phi_k(x) = c_k exp(-(c - a) x^2) H_k(sqrt(2c) x)``, ``k < n_eigen``.

    ``H_k`` is the physicists' Hermite polynomial and ``c_k`` makes
    ``E_p[phi_k^2] = 1``: ``c_k^2 = sqrt(c/a) / (2^k k!)`` (the Gaussian integral of
    ``H_k^2``). The sign is the one with ``phi_k`` positive for large positive ``x``.

    Returns
    -------
    array of shape (len(x), n_eigen)
    """
    from scipy.special import eval_hermite   # at first use, as scipy.linalg in mercer_from_sample
    a, _, c, _ = _gaussian_constants(gamma, sigma)
    n_eigen = check_positive_int(n_eigen, "n_eigen")
    x = as_real(x, "x")
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"x must be a non-empty 1-D array of finite points; got shape {x.shape}")
    from math import factorial

    out = np.empty((x.shape[0], n_eigen))
    for k in range(n_eigen):
        norm = np.sqrt(np.sqrt(c / a) / (2.0 ** k * factorial(k)))
        out[:, k] = norm * np.exp(-(c - a) * x ** 2) * eval_hermite(k, np.sqrt(2 * c) * x)
    return out
