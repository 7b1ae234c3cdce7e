"""The Nystroem features as an estimator in scikit-learn's manner (lecture 6.2).

Its base classes import scikit-learn, so :mod:`kernelcourse.nystroem` loads this module only
when :class:`Nystroem` is first asked for (PEP 562).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._estimator import check_fitted, check_X, default_kernel
from .._validation import check_positive_int, gram
from ..random_features.approximation import _rng
from .approximation import RCOND, _inverse_sqrt_psd

__all__ = ["Nystroem"]


class Nystroem(TransformerMixin, BaseEstimator):
    """Nystroem features: ``phi(x) = K_mm^{-1/2} k_m(x)`` over ``m`` random landmarks.

    Parameters
    ----------
    kernel : kernel object, default ``kernels.RBF(1.0)``
        Any kernel of :mod:`kernelcourse.kernels`.
    n_components : int, default 100
        The number of landmarks ``m``, drawn uniformly without replacement
        among the training points (all of them when ``m >= n``).
    random_state : None, int or numpy.random.Generator
        Seed for the landmarks.

    Attributes
    ----------
    component_indices_ : ndarray of shape (m,)
        The rows of the training ``X`` used as landmarks.
    components_ : ndarray of shape (m, d)
        The landmarks.
    normalization_ : ndarray of shape (m, m)
        ``K_mm^{-1/2}`` (pseudo-inverse square root when ``K_mm`` is singular).
    rank_ : int
        The number of eigenvalues of ``K_mm`` above ``1e-12`` times the largest.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelcourse.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> Phi = Nystroem(RBF(0.5), n_components=60, random_state=0).fit_transform(X)
    >>> bool(np.abs(Phi @ Phi.T - RBF(0.5)(X)).max() < 0.05)
    True
    """

    def __init__(self, kernel=None, n_components=100, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the landmarks from ``X`` and compute ``K_mm^{-1/2}``; ``y`` is unused."""
        X = check_X(self, X, reset=True)
        m = check_positive_int(self.n_components, "n_components")
        kernel = default_kernel(self.kernel, X.shape[1])
        n = X.shape[0]
        rng = _rng(self.random_state)
        idx = rng.permutation(n)[:m] if m < n else np.arange(n)
        self.component_indices_ = idx
        self.components_ = X[idx]
        self.normalization_, self.rank_ = _inverse_sqrt_psd(gram(kernel, self.components_), RCOND,
                                                            "kernel(landmarks)")
        return self

    def transform(self, X) -> np.ndarray:
        """``Phi = k(X, landmarks) K_mm^{-1/2}``, of shape (n, m)."""
        check_fitted(self, "normalization_", how="fit(X)", use="transform")
        X = check_X(self, X, reset=False)
        return gram(default_kernel(self.kernel, X.shape[1]), X, self.components_) @ self.normalization_
