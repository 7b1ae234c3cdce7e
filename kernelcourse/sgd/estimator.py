"""Kernel SGD as an estimator in scikit-learn's manner (lecture 2.1-2.7, 2.10).

Its base classes import scikit-learn, so :mod:`kernelcourse.sgd` loads this module only when
:class:`KernelSGD` is first asked for (PEP 562); it runs the functions of ``ways``.
"""
from __future__ import annotations

import numpy as np

from .._estimator import (ClassifierOrRegressor, as_real_targets, check_fitted, check_X, decode_binary_labels,
                          default_kernel, encode_binary_labels)
from .._validation import check_positive, check_positive_int
from ..kernels import RBF, Kernel
from ..random_features import RandomFourierFeatures
from ..random_features.approximation import _rng
from .ways import (WAYS, _loss, _primal_sgd, _rff_row_function, sgd_cached_features, sgd_features_on_the_fly,
                   sgd_gram, sgd_kernel_on_the_fly)

__all__ = ["KernelSGD"]


class KernelSGD(ClassifierOrRegressor):
    """Kernel logistic (or least-squares) regression trained by SGD, in one of the six ways.

    Minimises ``(1/n) sum_i loss(w . phi(x_i); y_i)`` by ``n_iter`` SGD steps of
    size ``alpha`` from ``w = 0``, with ``w = sum_i u_i phi(x_i)``. The prediction
    is ``f(x) = sum_i u_i K(x, x_i)`` (= ``w . phi(x)`` for the ways on ``w``).

    Parameters
    ----------
    kernel : Kernel, default RBF(gamma=1.0)
        A :mod:`kernelcourse.kernels` object. The ways ``'features'`` and
        ``'cached_features'`` need a finite ``kernel.features``; ``'rff'`` and
        ``'rff_cached'`` need an RBF kernel.
    way : one of WAYS, default 'gram'
    loss : {'logistic', 'squared'}, default 'logistic'
    alpha : float, default 0.1
        Constant step size.
    n_iter : int or None, default None
        Number of steps ``T``; None means ``20 n`` as in the lecture's demo.
    n_components : int, default 100
        ``D`` for the random-feature ways.
    random_state : None, int or Generator
        Seeds the sampled indices, then the random features.

    With the logistic loss it is a classifier whose labels ``y`` may be any two
    values (``classes_[0]`` plays -1, ``classes_[1]`` plays +1); with the squared
    loss it is a regressor.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        ``u``.
    coef_ : ndarray of shape (D,) or None
        ``w``, for the ways that run SGD on ``w``.
    X_fit_ : ndarray of shape (n, d)
    indices_ : ndarray of shape (T,)
        The sampled indices.
    random_features_ : RandomFourierFeatures or None
    kernel_, n_features_in_ : the kernel used, ``d``
    classes_ : the two labels (logistic loss only)
    """

    def __init__(self, kernel=None, way="gram", loss="logistic", alpha=0.1, n_iter=None,
                 n_components=100, random_state=None):
        self.kernel = kernel
        self.way = way
        self.loss = loss
        self.alpha = alpha
        self.n_iter = n_iter
        self.n_components = n_components
        self.random_state = random_state

    def _check_params(self, n_features):
        if self.way not in WAYS:
            raise ValueError(f"way must be one of {WAYS}; got way={self.way!r}")
        _loss(self.loss)
        check_positive(self.alpha, "alpha")
        check_positive_int(self.n_components, "n_components")
        kernel = default_kernel(self.kernel, n_features)
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a kernelcourse.kernels.Kernel; got {type(kernel).__name__}")
        if self.way in ("rff", "rff_cached") and not isinstance(kernel, RBF):
            raise ValueError(f"way={self.way!r} approximates an RBF kernel; got kernel={kernel!r}")
        if self.way in ("features", "cached_features"):
            try:
                kernel.feature_dim(1)
            except NotImplementedError:
                raise ValueError(
                    f"way={self.way!r} needs a finite feature map, and {kernel!r} has none; "
                    "use way='kernel' or 'gram', or the approximate 'rff' / 'rff_cached'") from None
        return kernel

    def fit(self, X, y, indices=None):
        """Run the SGD steps; ``indices`` (the sampled ``i_t``) overrides ``n_iter`` and the seed."""
        X = check_X(self, X, reset=True)
        kernel = self._check_params(X.shape[1])
        if self.loss == "logistic":
            y = encode_binary_labels(self, y, X.shape[0])
        else:
            y = as_real_targets(self, y, X.shape[0])
        rng = _rng(self.random_state)
        if indices is None:
            T = 20 * X.shape[0] if self.n_iter is None else check_positive_int(self.n_iter, "n_iter")
            indices = rng.integers(0, X.shape[0], size=T)
        self.indices_ = np.asarray(indices)
        self.X_fit_, self.kernel_ = X.copy(), kernel
        self.coef_, self.random_features_ = None, None
        way, args = self.way, (self.indices_, self.alpha, self.loss)
        if way == "gram":
            self.dual_coef_ = sgd_gram(kernel(X), y, *args)
        elif way == "kernel":
            self.dual_coef_ = sgd_kernel_on_the_fly(X, y, kernel, *args)
        elif way == "features":
            self.coef_, self.dual_coef_ = sgd_features_on_the_fly(X, y, kernel.features, *args)
        elif way == "cached_features":
            self.coef_, self.dual_coef_ = sgd_cached_features(kernel.features(X), y, *args)
        else:
            rff = RandomFourierFeatures(kernel.gamma, self.n_components, rng).fit(X)
            self.random_features_ = rff
            if way == "rff":
                self.coef_, self.dual_coef_ = _primal_sgd(
                    _rff_row_function(X, rff), X.shape[0], y.tolist(), self.indices_,
                    check_positive(self.alpha, "alpha"), _loss(self.loss), rff.n_components)
            else:
                self.coef_, self.dual_coef_ = sgd_cached_features(rff.transform(X), y, *args)
        return self

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = w . phi(x)``, computed as ``sum_i u_i K(x, x_i)`` or from the features."""
        check_fitted(self, "dual_coef_")
        X = check_X(self, X, reset=False)
        if self.random_features_ is not None:
            return self.random_features_.transform(X) @ self.coef_
        if self.coef_ is not None:
            return self.kernel_.features(X) @ self.coef_
        return self.kernel_(X, self.X_fit_) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        """Labels ``sign f(x)`` for the logistic loss (``classes_[1]``, i.e. +1, where
        ``f(x) >= 0``), ``f(x)`` for the squared loss."""
        f = self.decision_function(X)
        return decode_binary_labels(self, f >= 0) if self.loss == "logistic" else f
