"""The random Fourier features as an estimator in scikit-learn's manner (lecture 2.8).

Its base classes import scikit-learn, so :mod:`kernelcourse.random_features` loads this module
only when :class:`RandomFourierFeatures` is first asked for (PEP 562).
"""
from __future__ import annotations

import math
import os

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._estimator import check_fitted, check_X
from .._validation import as_float_dtype, check_positive, check_positive_int
from .approximation import _check_width, _cos_features, _draw_frequencies, _rng, rbf_gram  # noqa: F401 - rbf_gram: the doctest

__all__ = ["RandomFourierFeatures"]


class RandomFourierFeatures(TransformerMixin, BaseEstimator):
    """Random Fourier features approximating the RBF kernel ``exp(-gamma ||x - y||^2)``.

    ``fit`` draws ``Omega`` (rows ``w_i ~ N(0, 2 gamma I)``) and ``b``
    (``b_i ~ U[0, 2 pi]``); ``transform`` returns ``psi(x) = sqrt(2/D) cos(Omega x + b)``
    for each row, so that ``psi(x).psi(y)`` is an unbiased estimate of ``K(x, y)``.
    With ``paired=True`` it draws ``D / 2`` frequencies and returns
    ``sqrt(2/D) [cos(Omega x), sin(Omega x)]``, whose estimate has lower variance.

    Parameters
    ----------
    gamma : float, default 1.0
        Kernel parameter, > 0 (scikit-learn's ``RBFSampler`` uses the same one).
    n_components : int, default 100
        The number of features ``D`` (even when ``paired``).
    random_state : None, int or numpy.random.Generator
        Seed for the draws: ``Omega = sqrt(2 gamma) G`` and ``b = 2 pi U`` with
        ``G`` standard normal of shape (D, d) and ``U`` uniform on [0, 1).
    paired : bool, default False
        Use the [cos, sin] map instead of the cosine with offsets.
    dtype : numpy float dtype, default float64
        Dtype of the features. ``np.float32`` computes the phases and the cosines
        in single precision: about ten times faster here, with an error near
        ``1e-6 * |phase|``, far below the Monte Carlo error ``~ 1 / sqrt(D)``.
        The default keeps float64 so that results match the formula to round-off.
    n_threads : int or None, default None
        Threads over blocks of rows in ``transform`` (None: one per core).

    Attributes
    ----------
    Omega_ : ndarray of shape (D, d), or (D / 2, d) when paired
    b_ : ndarray of shape (D,), or None when paired
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> rff = RandomFourierFeatures(gamma=0.5, n_components=4000, random_state=0).fit(X)
    >>> Z = rff.transform(X)
    >>> bool(np.abs(Z @ Z.T - rbf_gram(X, gamma=0.5)).max() < 0.1)
    True
    """

    def __init__(self, gamma=1.0, n_components=100, random_state=None, paired=False,
                 dtype=np.float64, n_threads=None):
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.paired = paired
        self.dtype = dtype
        self.n_threads = n_threads

    def fit(self, X, y=None):
        """Draw ``Omega`` and ``b`` for inputs with as many features as ``X`` has; returns self.

        ``y`` is not used; it is accepted so that the map fits in a ``Pipeline``.
        """
        gamma = check_positive(self.gamma, "gamma")
        D = _check_width(self.n_components, self.paired)
        as_float_dtype(self.dtype)
        if self.n_threads is not None:
            check_positive_int(self.n_threads, "n_threads")
        X = check_X(self, X, reset=True)
        self.Omega_, self.b_ = _draw_frequencies(gamma, D, self.paired, X.shape[1], _rng(self.random_state))
        return self

    def transform(self, X) -> np.ndarray:
        """Return ``psi(X)``, of shape (n, D), in ``self.dtype``."""
        check_fitted(self, "Omega_", how="fit(X)", use="transform")
        X = check_X(self, X, reset=False)
        dtype = np.dtype(self.dtype)
        D = self.n_components
        n_threads = self.n_threads if self.n_threads is not None else (os.cpu_count() or 1)
        out = np.empty((X.shape[0], D), dtype=dtype)
        return _cos_features(X, self.Omega_, self.b_, dtype.type(math.sqrt(2.0 / D)), out, n_threads)

    def fit_transform(self, X, y=None) -> np.ndarray:
        return self.fit(X).transform(X)
