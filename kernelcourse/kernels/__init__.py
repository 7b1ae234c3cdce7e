"""Kernels as objects, the rules that build new kernels, and PSD tools.

A kernel ``k`` is called as ``k(X, Z=None)`` and returns the Gram matrix
``K[i, j] = k(x_i, z_j)`` of shape ``(n_X, n_Z)``; ``Z`` defaults to ``X``.
``k.diag(X)`` gives ``k(x_i, x_i)`` without the full matrix, and where a
finite feature map exists ``k.features(X)`` returns it, so that
``k.features(X) @ k.features(Z).T`` equals ``k(X, Z)``.

Parameters follow scikit-learn's names and formulas (``gamma``, ``degree``,
``coef0``):

=============================  ==========================================
``Linear()``                   ``x . z``
``Polynomial(degree, gamma,``  ``(gamma x . z + coef0) ** degree``
``coef0)``
``RBF(gamma)``                 ``exp(-gamma ||x - z||^2)``
``Laplacian(gamma)``           ``exp(-gamma ||x - z||_1)``
``Exponential(gamma)``         ``exp(-gamma ||x - z||)``
``Sigmoid(gamma, coef0)``      ``tanh(gamma x . z + coef0)`` (not PSD in general)
``Delta()``                    ``1 if x == z else 0``
``AllSubsets()``               ``prod_k (1 + x_k z_k)``
``SetKernel()``                ``exp(|S n T|)`` on Python sets
``Matern(length_scale, nu)``   the Matern family, ``nu`` in {0.5, 1.5, 2.5, inf}
``ExpSineSquared(length_scale,``  ``exp(-2 sin^2(pi ||x - z|| / periodicity) / length_scale^2)``
``periodicity)``
=============================  ==========================================

The construction rules of the lectures are code: ``k1 + k2``, ``k1 * k2``,
``c * k`` (``c > 0``), :class:`Exp`, :class:`PolynomialOf`,
:class:`Scaled` (``f(x) k(x, z) f(z)``), :class:`Bilinear` (``x^T A z``),
:class:`Composed` (``k(phi(x), phi(z))``) and :class:`Normalized`.

The lectures' width parameters
------------------------------
The lecture notes write the Gaussian kernel's width in several ways;
:func:`gamma_from_sigma` turns each into scikit-learn's ``gamma`` of :class:`RBF`:

* ``'sigma2'``: ``exp(-||x - z||^2 / sigma^2)``, so ``gamma = 1 / sigma^2``.
  Lecture 1 (Weinberger's notes on kernels) writes the RBF kernel so.
* ``'two_sigma2'``: ``exp(-||x - z||^2 / (2 sigma^2))``, so
  ``gamma = 1 / (2 sigma^2)``. Lecture 3 (Shawe-Taylor's slides, the proof by
  normalising ``exp(<x, z> / sigma^2)``) and lecture 4 (the CIS 520 notes,
  ``f(x) exp(x^T x' / sigma^2) f(x')``) write it so.
  Lecture 1's exponential kernel ``exp(-||x - z|| / (2 sigma^2))`` takes the
  same conversion: ``Exponential(gamma=gamma_from_sigma(sigma, 'two_sigma2'))``.
* ``'gamma_divides'``: ``exp(-||x - z||^2 / gamma_lecture)``, the lecture's own
  ``gamma`` dividing the squared distance, so ``gamma = 1 / gamma_lecture``.
  Lecture 5 (Bagnell's scribed notes) writes it so.
* ``'sigma'``: ``exp(-dist / sigma)``, so ``gamma = 1 / sigma``: lecture 1's
  Laplacian kernel ``exp(-|x - z| / sigma)`` is
  ``Laplacian(gamma=gamma_from_sigma(sigma, 'sigma'))``.

Lecture 2 (De Sa's notes) already writes scikit-learn's forms,
``exp(-gamma ||x - z||^2)``, ``(gamma x^T y + r)^d`` and ``tanh(gamma x^T y + r)``:
its ``gamma`` and ``r`` are ``gamma`` and ``coef0`` here, unchanged.

The PSD tools are :func:`is_psd`, :func:`min_eigenvalue` and
:func:`find_non_psd_witness`.

Where each part lives
---------------------
``base``
    :class:`Kernel` and its algebra: ``k1 + k2`` (:class:`Sum`), ``k1 * k2``
    (:class:`Product`), ``c * k`` (:class:`ConstantScaled`).
``zoo``
    The kernels on vectors and sets, :func:`gamma_from_sigma`, and :func:`as_kernel`
    (scikit-learn's kernel names, :data:`KERNEL_NAMES`, as kernel objects).
``stationary``
    The Gaussian-process kernels of lecture 8 named as scikit-learn names them:
    :class:`Matern` and :class:`ExpSineSquared` (``length_scale``, ``nu``, ``periodicity``).
    Kernels built from them, :class:`RBF`, :class:`Laplacian`, :class:`Exponential`,
    :class:`Linear` and :class:`Delta` with ``+``, ``*`` and ``c *`` give the derivatives of
    their Gram matrix in the log of each parameter (``k.hyperparameters()``, ``k.theta``,
    ``k.with_theta(theta)``, ``k.gram_gradient(X)``), for lecture 8.5's marginal likelihood.
``rules``
    The other construction rules: :class:`Exp`, :class:`PolynomialOf`, :class:`Scaled`,
    :class:`Bilinear`, :class:`Composed`, :class:`Normalized`.
``psd``
    :func:`is_psd`, :func:`min_eigenvalue`, :func:`find_non_psd_witness`.
``_fast_rbf``
    The tiled, multithreaded RBF Gram matrix behind :class:`RBF`.

Every public name is imported from ``kernelcourse.kernels`` itself.
"""

from .base import ConstantScaled, Kernel, Product, Sum
from .psd import Witness, find_non_psd_witness, is_psd, min_eigenvalue
from .rules import Bilinear, Composed, Exp, FunctionScaled, Normalized, PolynomialOf, Scaled
from .stationary import ExpSineSquared, Matern
from .zoo import (KERNEL_NAMES, RBF, AllSubsets, Delta, Exponential, Laplacian, Linear, Polynomial,
                  SetKernel, Sigmoid, as_kernel, gamma_from_sigma)

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Laplacian", "Exponential",
    "Sigmoid", "Delta", "AllSubsets", "SetKernel",
    "Sum", "Product", "ConstantScaled", "Exp", "PolynomialOf", "Scaled",
    "FunctionScaled", "Bilinear", "Composed", "Normalized",
    "gamma_from_sigma", "is_psd", "min_eigenvalue", "find_non_psd_witness",
    "Witness", "as_kernel", "KERNEL_NAMES", "Matern", "ExpSineSquared",
]
