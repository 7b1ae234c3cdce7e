"""Kernel ridge regression as an estimator in scikit-learn's manner (lecture 3.3).

Its base classes import scikit-learn, so :mod:`kernelcourse.ridge` loads this module only when
:class:`KernelRidge` is first asked for (PEP 562); it solves as ``solutions`` does.
"""
from __future__ import annotations

import numpy as np

from .._estimator import Regressor, check_fitted, check_X, check_y_given
from .._validation import as_targets, check_nonnegative, gram
from ..kernels import as_kernel
from .solutions import _solve_regularised

__all__ = ["KernelRidge"]


class KernelRidge(Regressor):
    """Kernel ridge regression, fitted in the dual.

    .. math:: \\alpha = (K + \\lambda I_m)^{-1} y, \\qquad
              g(x) = \\sum_{i=1}^m \\alpha_i \\kappa(x_i, x)

    Parameters
    ----------
    kernel : kernel object, optional
        A ``kernelcourse.kernels`` kernel (``k(X, Z)`` returns the Gram
        matrix). Defaults to ``kernels.Linear()``, which gives ordinary ridge
        regression through the origin.
    lam : float >= 0, default 1.0
        Regularisation ``lambda`` (scikit-learn calls it ``alpha``);
        ``lam = 0`` uses the pseudo-inverse.

    Attributes
    ----------
    X_fit_ : array (m, d)
        The training inputs (a copy).
    dual_coef_ : array (m,) or (m, k)
        The dual coefficients ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelcourse.kernels import RBF
    >>> X = np.linspace(0, 1, 20).reshape(-1, 1); y = np.sin(6 * X[:, 0])
    >>> model = KernelRidge(RBF(gamma=10.0), lam=1e-3).fit(X, y)
    >>> bool(np.abs(model.predict(X) - y).max() < 0.05)
    True
    """

    def __init__(self, kernel=None, lam: float = 1.0):
        self.kernel = kernel
        self.lam = lam

    def _kernel(self, n_features):
        if self.kernel is None:
            from ..kernels import Linear
            return Linear()
        return as_kernel(self.kernel, n_features)

    def fit(self, X, y) -> "KernelRidge":
        """Compute ``K`` on ``X`` and solve ``(K + lam I) alpha = y``; returns ``self``."""
        X = check_X(self, X, reset=True)
        check_y_given(self, y)
        y = as_targets(y, X.shape[0], allow_2d=True)
        lam = check_nonnegative(self.lam, "lam")
        kernel = self._kernel(X.shape[1])
        K = gram(kernel, X)
        if not K.flags.writeable or np.shares_memory(K, X):
            K = K.copy()
        # K is our own array: the solve may overwrite it.
        self.dual_coef_ = _solve_regularised(K, y, lam, "K", original=lambda: gram(kernel, X))
        self.X_fit_ = X.copy()
        return self

    def predict(self, X) -> np.ndarray:
        """Return ``g(x) = sum_i alpha_i k(x_i, x)`` for each row of ``X``."""
        check_fitted(self, "dual_coef_")
        X = check_X(self, X, reset=False)
        return gram(self._kernel(X.shape[1]), X, self.X_fit_) @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True   # y of shape (n, k): one alpha column per output
        return tags
