"""Stationary kernels for Gaussian processes (lecture 8.1): the Matern family and the
periodic kernel, with scikit-learn's parameter names and formulas.

Both depend on ``x`` and ``z`` only through the Euclidean distance ``d = ||x - z||``
(Rasmussen and Williams, *Gaussian Processes for Machine Learning*, 2006, section 4.2):

* :class:`Matern` ``(length_scale, nu)`` with ``r = d / length_scale``:

  - ``nu = 0.5``: ``exp(-r)`` (the exponential kernel, whose samples are rough),
  - ``nu = 1.5``: ``(1 + sqrt(3) r) exp(-sqrt(3) r)`` (once differentiable samples),
  - ``nu = 2.5``: ``(1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)`` (twice),
  - ``nu = inf``: ``exp(-r^2 / 2)``, the RBF kernel ``RBF(gamma=1 / (2 length_scale^2))``.

* :class:`ExpSineSquared` ``(length_scale, periodicity)``:
  ``exp(-2 sin^2(pi d / periodicity) / length_scale^2)``, periodic with period ``periodicity``.

Each kernel also gives its derivatives in ``log(length_scale)`` (and ``log(periodicity)``),
which the log marginal likelihood's gradient needs (:meth:`Kernel.gram_gradient`).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive
from .base import Kernel, _cdist, _fmt

__all__ = ["Matern", "ExpSineSquared"]

_NUS = (0.5, 1.5, 2.5, math.inf)


class _Stationary(Kernel):
    """A kernel ``k(x, z) = profile(||x - z||)``: unit diagonal, Gram matrix from distances."""

    def _gram(self, X, Z, symmetric):
        return self._profile(_cdist(X, Z, "euclidean"))

    def _diag(self, X):
        return np.ones(X.shape[0])

    def _gram_gradient(self, X):
        D = _cdist(X, X, "euclidean")
        return self._profile(D), self._profile_gradient(D)


class Matern(_Stationary):
    """Matern kernel of smoothness ``nu`` and length-scale ``length_scale`` (scikit-learn's form).

    With ``r = ||x - z|| / length_scale``:

    ============  ==========================================
    ``nu``        ``k(x, z)``
    ============  ==========================================
    ``0.5``       ``exp(-r)``
    ``1.5``       ``(1 + sqrt(3) r) exp(-sqrt(3) r)``
    ``2.5``       ``(1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)``
    ``inf``       ``exp(-r^2 / 2)``
    ============  ==========================================

    A GP with this kernel has sample paths ``ceil(nu) - 1`` times differentiable
    (Rasmussen and Williams 2006, section 4.2.1); ``nu = 0.5`` is the exponential
    kernel ``Exponential(gamma=1 / length_scale)`` and ``nu = inf`` the Gaussian
    ``RBF(gamma=1 / (2 length_scale^2))``.

    Parameters
    ----------
    length_scale : float > 0, default 1.0
    nu : {0.5, 1.5, 2.5, inf}, default 1.5
        The closed forms above; other values (Bessel functions) are not provided.

    Examples
    --------
    >>> import numpy as np
    >>> Matern(length_scale=1.0, nu=0.5)(np.array([[0.0], [1.0]])).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """

    _theta = ("length_scale",)

    def __init__(self, length_scale=1.0, nu=1.5):
        self.length_scale = length_scale
        self.nu = nu
        self._check_params()

    def _check_params(self):
        check_positive(self.length_scale, "length_scale")
        if isinstance(self.nu, bool) or not isinstance(self.nu, (int, float)) or self.nu not in _NUS:
            raise ValueError(f"nu must be one of 0.5, 1.5, 2.5 or inf (the Matern kernels with a "
                             f"closed form); got nu={self.nu!r}")

    def _profile(self, D):
        r = D / self.length_scale
        if self.nu == 0.5:
            return np.exp(-r)
        if self.nu == 1.5:
            s = math.sqrt(3.0) * r
            return (1.0 + s) * np.exp(-s)
        if self.nu == 2.5:
            s = math.sqrt(5.0) * r
            return (1.0 + s + s * s / 3.0) * np.exp(-s)
        return np.exp(-0.5 * r * r)

    def _profile_gradient(self, D):
        # dk / d log(l) = -r dk/dr, since dr / d log(l) = -r
        r = D / self.length_scale
        if self.nu == 0.5:
            g = r * np.exp(-r)
        elif self.nu == 1.5:
            g = 3.0 * r * r * np.exp(-math.sqrt(3.0) * r)
        elif self.nu == 2.5:
            s = math.sqrt(5.0) * r
            g = (5.0 / 3.0) * r * r * (1.0 + s) * np.exp(-s)
        else:
            g = r * r * np.exp(-0.5 * r * r)
        return g[:, :, None]

    def __repr__(self):
        return f"Matern(length_scale={_fmt(self.length_scale)}, nu={_fmt(self.nu)})"


class ExpSineSquared(_Stationary):
    """Periodic kernel ``k(x, z) = exp(-2 sin^2(pi ||x - z|| / periodicity) / length_scale^2)``.

    scikit-learn's ``ExpSineSquared`` (MacKay's periodic kernel, Rasmussen and Williams
    2006, eq. 4.31): ``k(x, z) = 1`` whenever ``||x - z||`` is a multiple of the period,
    and ``length_scale`` sets how fast the similarity falls within one period.

    It is positive semi-definite on the line (``d = 1``), where
    ``4 sin^2(pi (x - z) / p)`` is the squared distance between the points
    ``(cos, sin)(2 pi x / p)`` of a circle, so the kernel is an RBF of that map; with the
    Euclidean distance in two or more dimensions its Gram matrices can have negative
    eigenvalues (as scikit-learn's can): for several input dimensions, multiply periodic
    kernels of one coordinate each.

    Parameters
    ----------
    length_scale : float > 0, default 1.0
    periodicity : float > 0, default 1.0
    """

    _theta = ("length_scale", "periodicity")

    def __init__(self, length_scale=1.0, periodicity=1.0):
        self.length_scale = length_scale
        self.periodicity = periodicity
        self._check_params()

    def _check_params(self):
        check_positive(self.length_scale, "length_scale")
        check_positive(self.periodicity, "periodicity")

    def _profile(self, D):
        s = np.sin(np.pi * D / self.periodicity)
        return np.exp(-2.0 * s * s / self.length_scale ** 2)

    def _profile_gradient(self, D):
        l2 = self.length_scale ** 2
        angle = np.pi * D / self.periodicity
        s, c = np.sin(angle), np.cos(angle)
        K = np.exp(-2.0 * s * s / l2)
        d_log_l = 4.0 * s * s / l2 * K                    # d/d log(l) of -2 s^2 / l^2 is 4 s^2 / l^2
        d_log_p = 4.0 * angle * s * c / l2 * K            # d angle / d log(p) = -angle
        return np.stack([d_log_l, d_log_p], axis=2)

    def __repr__(self):
        return (f"ExpSineSquared(length_scale={_fmt(self.length_scale)}, "
                f"periodicity={_fmt(self.periodicity)})")
