"""The perceptrons as estimators in scikit-learn's manner (lecture 3.4-3.6).

Their base classes import scikit-learn, so :mod:`kernelcourse.perceptron` loads this module only
when one of them is first asked for (PEP 562); they run the functions of ``algorithms``.
"""
from __future__ import annotations

import numpy as np

from .._estimator import Classifier, check_fitted, check_X, decode_binary_labels, default_kernel, encode_binary_labels
from .._validation import check_psd, gram
from .algorithms import dual_perceptron, primal_perceptron

__all__ = ["Perceptron", "KernelPerceptron"]


class Perceptron(Classifier):
    """Primal perceptron ``sgn(<w, x>)`` (no offset, as in the lecture).

    The labels ``y`` may be any two values: ``classes_[0]`` plays -1 and
    ``classes_[1]`` plays +1 (labels in {-1, +1} keep their meaning).

    Parameters
    ----------
    max_epochs : int, default 1000
    random_state : int, optional
        Shuffle the examples afresh each epoch.

    Attributes
    ----------
    coef_ : array (d,), n_updates_ : int, converged_ : bool, classes_ : array (2,),
    n_features_in_ : int
    """

    def __init__(self, max_epochs: int = 1000, random_state=None):
        self.max_epochs = max_epochs
        self.random_state = random_state

    def fit(self, X, y) -> "Perceptron":
        X = check_X(self, X, reset=True)
        y = encode_binary_labels(self, y, X.shape[0])
        self.coef_, upd, self.converged_ = primal_perceptron(
            X, y, self.max_epochs, random_state=self.random_state)
        self.n_updates_ = len(upd)
        return self

    def decision_function(self, X) -> np.ndarray:
        """``<w, x>`` for each row of ``X``: positive for ``classes_[1]``."""
        check_fitted(self, "coef_")
        return check_X(self, X, reset=False) @ self.coef_

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``<w, x> > 0``, else ``classes_[0]``."""
        return decode_binary_labels(self, self.decision_function(X) > 0)


class KernelPerceptron(Classifier):
    """The kernel perceptron: the dual perceptron with ``k(x_i, x_j)`` for ``<x_i, x_j>``.

    .. math:: h(x) = \\mathrm{sgn}\\Big(\\sum_i \\alpha_i \\kappa(x_i, x)\\Big)

    Parameters
    ----------
    kernel : kernel object, default None
        None means ``RBF(gamma=1.0)``.
    max_epochs : int, default 1000
    random_state : int, optional
        Shuffle the examples afresh each epoch.

    The labels ``y`` may be any two values: ``classes_[0]`` plays -1 and
    ``classes_[1]`` plays +1 (labels in {-1, +1} keep their meaning).

    Attributes
    ----------
    dual_coef_ : array (m,), X_fit_ : array (m, d), run_ : PerceptronRun, n_updates_ : int,
    kernel_ : the kernel used, classes_ : array (2,), n_features_in_ : int
    """

    def __init__(self, kernel=None, max_epochs: int = 1000, random_state=None):
        self.kernel = kernel
        self.max_epochs = max_epochs
        self.random_state = random_state

    def fit(self, X, y, w_star_projections=None) -> "KernelPerceptron":
        X = check_X(self, X, reset=True)
        y = encode_binary_labels(self, y, X.shape[0])
        self.kernel_ = default_kernel(self.kernel, X.shape[1])
        K = check_psd(gram(self.kernel_, X), "kernel(X, X)")  # before any training
        self.run_ = dual_perceptron(K, y, self.max_epochs,
                                    random_state=self.random_state,
                                    w_star_projections=w_star_projections)
        self.dual_coef_ = self.run_.alpha
        self.n_updates_ = self.run_.n_updates
        self.X_fit_ = X.copy()
        return self

    def decision_function(self, X) -> np.ndarray:
        """``sum_i alpha_i k(x_i, x)`` for each row of ``X``: positive for ``classes_[1]``."""
        check_fitted(self, "dual_coef_")
        return gram(self.kernel_, check_X(self, X, reset=False), self.X_fit_) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where the decision value is ``> 0``, else ``classes_[0]``."""
        return decode_binary_labels(self, self.decision_function(X) > 0)
