"""MAP regression as an estimator (lecture 4.3): :class:`MAPRegression`, solved in the dual
with any kernel. Its base classes come from scikit-learn, so this module is loaded only when
the class is asked for (see :mod:`kernelcourse.dual`).
"""
from __future__ import annotations

from kernelcourse._estimator import Regressor, as_real_targets, check_fitted, check_X
from kernelcourse._validation import gram
from kernelcourse.kernels import as_kernel

from .map_estimates import _linear_kernel, dual_predict, map_linear_dual

__all__ = ["MAPRegression"]


class MAPRegression(Regressor):
    """MAP regression with a Gaussian prior, solved in the dual with any kernel.

    ``fit`` stores ``alpha = (K + sigma^2/lambda^2 I)^-1 y`` as ``dual_coef_``; ``predict``
    returns ``k(x)^T alpha``. With the default linear kernel ``k(x, z) = x^T z`` the model is
    the lecture's MAP linear regression and ``coef_ = X^T alpha`` is its weight vector.

    A scikit-learn estimator: ``get_params``/``set_params``, ``clone`` and ``GridSearchCV``
    work on it, and ``score`` is our own ``R^2``.

    Parameters
    ----------
    sigma : float, default 1.0
        Noise standard deviation.
    lam : float, default 1.0
        Prior standard deviation.
    kernel : callable, optional
        A kernel object, ``kernel(X, Z) -> (n_X, n_Z)``; ``None`` means ``x^T z``.

    Attributes
    ----------
    X_fit_ : array (n, d)
        The training inputs (a copy: changing the caller's array later changes nothing).
    dual_coef_ : array (n,)
    coef_ : array (d,)
        Only with the linear kernel (``kernel=None``).
    """

    def __init__(self, sigma=1.0, lam=1.0, kernel=None):
        self.sigma = sigma
        self.lam = lam
        self.kernel = kernel

    def _k(self, X, Z=None):
        if self.kernel is None:
            return _linear_kernel(X, Z)
        return gram(as_kernel(self.kernel, X.shape[1]), X, Z)

    def fit(self, X, y):
        """Solve ``(K + sigma^2/lambda^2 I) alpha = y``; returns ``self``."""
        X = check_X(self, X, reset=True)
        y = as_real_targets(self, y, X.shape[0])
        if hasattr(self, "coef_"):
            del self.coef_
        self.dual_coef_ = map_linear_dual(self._k(X), y, self.sigma, self.lam)
        self.X_fit_ = X.copy()
        if self.kernel is None:
            self.coef_ = X.T @ self.dual_coef_
        return self

    def predict(self, X):
        """Return ``k(x)^T alpha`` for each row of ``X``."""
        check_fitted(self, "dual_coef_")
        X = check_X(self, X, reset=False)
        return dual_predict(self._k(X, self.X_fit_), self.dual_coef_)
