"""The estimators of feature space (lecture 3.7-3.9), in scikit-learn's manner: the Gram
matrix centerer, the centre-of-mass classifier and the novelty ball.

Their base classes import scikit-learn, so :mod:`kernelcourse.feature_space` loads this module
only when one of them is first asked for (PEP 562); what they compute comes from
:mod:`kernelcourse.feature_space.geometry`.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._centering import centre_training_gram
from .._estimator import (Classifier, check_fitted, check_n_features, check_X, decode_binary_labels,
                          default_kernel, encode_binary_labels)
from .._validation import gram
from .geometry import (_centre_new_rows, _new_rows, _square_gram, _training_means, centre_of_mass_offset,
                       centre_of_mass_scores, squared_distances_to_mean)

__all__ = ["GramCenterer", "CentreOfMassClassifier", "NoveltyBall"]


# ---------------------------------------------------------------- centering
class GramCenterer(TransformerMixin, BaseEstimator):
    """Centre kernel values on the training sample's mean in feature space.

    Centering maps ``phi(x) -> phi(x) - phi_S`` with ``phi_S = (1/m) sum_i phi(x_i)``:

    .. math:: \\hat\\kappa(x, z) = \\kappa(x, z)
              - \\frac1m \\sum_{i=1}^m (\\kappa(x, x_i) + \\kappa(z, x_i))
              + \\frac1{m^2} j^T K j

    ``fit`` keeps the training statistics, the column means
    ``c_i = (1/m) sum_k K[k, i]`` and the grand mean ``g = j^T K j / m^2``;
    ``transform`` applies them to any rows ``K_new[a, i] = k(x_a, x_i)``.
    The training matrix itself is ``transform(K)``. O(m^2): no ``j j^T`` is formed.

    Its input is a Gram matrix, not data: in a scikit-learn ``Pipeline`` it
    follows a step that returns kernel values (its ``pairwise`` tag says so).

    Attributes
    ----------
    column_means_ : array (m,)
    grand_mean_ : float
    n_features_in_ : int
        ``m``, the number of training points (the columns of ``K``).
    """

    def _fit_matrix(self, K, name="K"):
        K = _square_gram(K, name)
        self.n_features_in_ = K.shape[1]
        return K

    def fit(self, K, y=None) -> "GramCenterer":
        """Store the column means and the grand mean of the training Gram matrix ``K``.

        ``y`` is not used; it is accepted so that the centerer fits in a ``Pipeline``.
        """
        self.column_means_, self.grand_mean_ = _training_means(self._fit_matrix(K), "K")
        return self

    def transform(self, K_new) -> np.ndarray:
        """Centre rows ``K_new[a, i] = k(x_a, x_i)`` (shape (p, m)) with the training statistics.

        The row means of ``K_new`` are each new point's own ``(1/m) sum_i k(x_a, x_i)``;
        the column means and the grand mean are the training sample's, never the new points'.
        """
        check_fitted(self, "column_means_", how="fit(K_train)", use="transform")
        m = self.column_means_.shape[0]
        K_new = _new_rows(K_new, m)
        # the columns of K_new are the scikit-learn "features": one per training point
        check_n_features(self, K_new, "K_new", what=f"K_new must have one column per training "
                                                    f"point ({m}): ")
        return _centre_new_rows(K_new, self.column_means_, self.grand_mean_)

    def fit_transform(self, K, y=None) -> np.ndarray:
        """``fit(K)`` then ``transform(K)``: the centered training Gram matrix.

        Same result, but the row and the column means come from one read of ``K``.
        """
        K = self._fit_matrix(K)
        centred, self.column_means_, self.grand_mean_ = centre_training_gram(K)
        return centred

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True   # fit takes a square Gram matrix, transform (p, m) rows
        return tags


# ---------------------------------------------------------------- centre-of-mass classifier
class _Fitted:
    def _rows(self, X):
        check_fitted(self, "X_fit_", how="fit")
        X = check_X(self, X, reset=False)
        return X, gram(self.kernel_, X, self.X_fit_)


class CentreOfMassClassifier(_Fitted, Classifier):
    """Classify by the nearer class centre of mass in feature space.

    .. math:: h(x) = \\mathrm{sgn}\\Big(\\frac1{m_+}\\sum_{S_+} \\kappa(x, x_i)
              - \\frac1{m_-}\\sum_{S_-} \\kappa(x, x_i) - b\\Big)

    with ``b`` from :func:`centre_of_mass_offset`.

    Parameters
    ----------
    kernel : kernel object, default None
        ``kernel(X, Z)`` returns the Gram matrix; None means ``RBF(gamma=1.0)``.

    The labels ``y`` may be any two values: ``classes_[0]`` is the class
    ``S_-`` and ``classes_[1]`` the class ``S_+`` (labels in {-1, +1} keep their meaning).

    Attributes
    ----------
    X_fit_, y_fit_ : training inputs and labels in {-1, +1}
    b_ : float
    kernel_, classes_, n_features_in_ : the kernel used, the two labels, ``d``
    """

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y) -> "CentreOfMassClassifier":
        X = check_X(self, X, reset=True)
        y = encode_binary_labels(self, y, X.shape[0])
        self.kernel_ = default_kernel(self.kernel, X.shape[1])
        self.b_ = centre_of_mass_offset(gram(self.kernel_, X), y)
        self.X_fit_, self.y_fit_ = X.copy(), y.copy()
        return self

    def decision_function(self, X) -> np.ndarray:
        _, K_new = self._rows(X)
        return centre_of_mass_scores(K_new, self.y_fit_, self.b_)

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` (the label +1) where the decision value is ``>= 0``, else ``classes_[0]``."""
        return decode_binary_labels(self, self.decision_function(X) >= 0)


# ---------------------------------------------------------------- novelty detection
class NoveltyBall(_Fitted, BaseEstimator):
    """Novelty detection with a ball around the centre of mass in feature space.

    ``x`` is novel when ``||phi(x) - phi_S|| > r`` with the radius
    ``r = max_i ||phi(x_i) - phi_S||`` over the training sample, every distance
    computed by :func:`squared_distances_to_mean`.

    Parameters
    ----------
    kernel : kernel object, default None
        None means ``RBF(gamma=1.0)``.

    Attributes
    ----------
    radius_ : float
    train_distances_ : array (m,)
    kernel_, n_features_in_ : the kernel used, ``d``
    """

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y=None) -> "NoveltyBall":
        """Store the training points and the radius; ``y`` is not used (unsupervised)."""
        X = check_X(self, X, reset=True)
        self.kernel_ = default_kernel(self.kernel, X.shape[1])
        K = gram(self.kernel_, X)
        self._sum_K = float(K.sum())
        self.train_distances_ = np.sqrt(squared_distances_to_mean(K, np.diag(K), K))
        self.radius_ = float(self.train_distances_.max())
        self.X_fit_ = X.copy()
        return self

    def distance(self, X) -> np.ndarray:
        """``||phi(x) - phi_S||`` for each row of ``X``."""
        X, K_new = self._rows(X)
        m = self.X_fit_.shape[0]
        d2 = self.kernel_.diag(X) - 2 * K_new.mean(axis=1) + self._sum_K / m**2
        return np.sqrt(np.maximum(d2, 0.0))

    def novelty_score(self, X) -> np.ndarray:
        """Novelty score ``||phi(x) - phi_S|| - r`` for each row: positive means novel."""
        return self.distance(X) - self.radius_

    def score(self, X, y=None) -> float:
        """One number for model selection (higher is better).

        With ``y`` (true where a row is novel): the fraction of rows that
        :meth:`predict` gets right. Without: the fraction of ``X`` inside the
        ball, for ``X`` held out from the same distribution as the training set.
        """
        novel = self.predict(X)
        if y is None:
            return float(np.mean(~novel))
        y = np.asarray(y)
        if y.shape != novel.shape:
            raise ValueError(f"y must have one entry per row of X ({novel.shape[0]}); "
                             f"got shape {y.shape}")
        return float(np.mean((y != 0) == novel))

    def predict(self, X) -> np.ndarray:
        """``True`` where ``x`` lies outside the ball (novel).

        A relative slack of 1e-9 of the radius keeps round-off from flagging the
        training point that defines the radius.
        """
        return self.novelty_score(X) > 1e-9 * self.radius_
