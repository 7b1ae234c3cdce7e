"""The estimator of lecture 1.4: :class:`KernelGD`, kernelised gradient descent in
scikit-learn's manner (its base classes come from scikit-learn, so this module is loaded only
when the class is asked for: see :mod:`kernelcourse.gradient_descent`).
"""
from __future__ import annotations

import numpy as np

from kernelcourse._estimator import (Classifier, check_fitted, check_X, decode_binary_labels,
                                     default_kernel, encode_binary_labels)

from .descent import _gram, decision_function, kernel_gradient_descent, largest_stable_step, w_from_alpha

__all__ = ["KernelGD"]


class KernelGD(Classifier):
    """Binary classifier trained by kernelised gradient descent on the squared loss.

    ``fit`` computes the kernel matrix ``K = k(X, X)`` and runs
    ``alpha^{t+1} = alpha^t - 2 s (K alpha^t - y)`` from ``alpha^0 = 0``
    (:func:`kernel_gradient_descent`); ``decision_function`` is
    ``h(x) = sum_j alpha_j k(x_j, x)`` and ``predict`` its sign (+1 at 0).

    The labels ``y`` may be any two values: ``classes_[0]`` becomes the target
    -1 and ``classes_[1]`` the target +1 (labels in {-1, +1} keep their meaning).

    Parameters
    ----------
    kernel : kernel object, default None
        E.g. ``kernelcourse.kernels.RBF(gamma=10.0)``; any callable ``k(X, Z)``
        returning the Gram matrix works. None means ``RBF(gamma=1.0)``.
    step : float or "auto", default "auto"
        Step size ``s``. ``"auto"`` uses ``0.5 / lambda_max(K)``, half the
        largest stable step.
    n_steps : int, default 200
        Number of gradient steps.
    record_path : bool, default False
        Keep ``alpha`` after every step (``alpha_path_``) and, when the kernel
        has a finite feature map, ``w_t = Phi^T alpha_t`` (``w_path_``).
    progress : bool, default False
        Show a progress bar (in a notebook) or line (on stderr) over the steps.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        The final ``alpha``.
    X_fit_ : ndarray of shape (n, d)
        A copy of the training inputs.
    step_ : float
        The step size used.
    loss_path_ : ndarray of shape (n_steps + 1,)
        The squared loss ``||K alpha_t - y||^2`` after each step.
    alpha_path_ : ndarray of shape (n_steps + 1, n) or None
    w_path_ : ndarray of shape (n_steps + 1, D) or None
        Only when ``record_path`` and the kernel has ``features``.
    features_ : ndarray of shape (n, D) or None
        ``Phi``, the explicit features of the training inputs, when recorded.
    kernel_, classes_, n_features_in_ :
        The kernel used, the two labels, ``d``.

    Examples
    --------
    >>> from kernelcourse.kernels import RBF
    >>> from kernelcourse.datasets import circles
    >>> X, y = circles(n=100, random_state=0)
    >>> model = KernelGD(RBF(gamma=2.0), n_steps=300).fit(X, y)
    >>> float((model.predict(X) == y).mean()) > 0.9
    True
    """

    def __init__(self, kernel=None, step="auto", n_steps=200, record_path=False, progress=False):
        self.kernel = kernel
        self.step = step
        self.n_steps = n_steps
        self.record_path = record_path
        self.progress = progress

    @property
    def alpha_(self):
        """The final coefficients (same as ``dual_coef_``)."""
        self._check_fitted()
        return self.dual_coef_

    def fit(self, X, y):
        """Run gradient descent on ``k(X, X)``; returns ``self``."""
        X = check_X(self, X, reset=True).copy()
        y = encode_binary_labels(self, y, X.shape[0])
        self.kernel_ = default_kernel(self.kernel, X.shape[1])
        K = _gram(self.kernel_, X)
        if isinstance(self.step, str):
            if self.step != "auto":
                raise ValueError(f"step must be a positive number or 'auto'; got step={self.step!r}")
            step = 0.5 * largest_stable_step(K)
        else:
            step = self.step
        run = kernel_gradient_descent(K, y, step, self.n_steps, record=self.record_path,
                                      progress=self.progress)
        self.X_fit_ = X
        self.dual_coef_ = run.coef
        self.step_ = run.step
        self.loss_path_ = run.losses
        self.alpha_path_ = run.path
        self.w_path_ = None
        self.features_ = None
        if self.record_path and hasattr(self.kernel_, "features"):
            try:
                Phi = np.asarray(self.kernel_.features(X), dtype=float)
            except NotImplementedError:
                Phi = None
            if Phi is not None:
                self.features_ = Phi
                self.w_path_ = w_from_alpha(Phi, run.path)
        return self

    def _check_fitted(self):
        check_fitted(self, "dual_coef_")

    def decision_function(self, X):
        """``h(x) = sum_j alpha_j k(x_j, x)`` for every row of ``X``."""
        self._check_fitted()
        X = check_X(self, X, reset=False)
        return decision_function(self.kernel_, self.X_fit_, self.dual_coef_, X)

    def predict(self, X):
        """``sign(h(x))`` as labels: ``classes_[1]`` (+1) where ``h(x) >= 0``, else ``classes_[0]``."""
        return decode_binary_labels(self, self.decision_function(X) >= 0)
