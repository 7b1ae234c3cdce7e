"""Computing in feature space from kernel values alone.

Lecture 3 (John Shawe-Taylor's slides *Kernel methods*, UCL), sections 3.7-3.9.
Given ``k(x, z) = <phi(x), phi(z)>`` and a sample ``x_1..x_m`` with Gram matrix
``K``, any vector ``w = sum_i alpha_i phi(x_i)`` is known through ``alpha``:

* ``||w||^2 = alpha^T K alpha``;
* ``d(w_a, w_b) = sqrt((alpha - beta)^T K (alpha - beta))``;
* the mean ``phi_S = (1/m) sum_i phi(x_i)`` has norm ``(1/m) sqrt(j^T K j)``;
* the average squared distance to the mean is ``tr(K)/m - j^T K j / m^2``;
* centering ``phi(x) -> phi(x) - phi_S`` turns ``K`` into
  ``K - (1/m)(j j^T K + K j j^T) + (1/m^2)(j^T K j) j j^T``.

Centering here never forms ``j j^T``: it needs only the row and column means
of ``K`` and their mean, so it costs O(m^2). On top of these the module has the
centre-of-mass classifier (with the lecture's offset ``b``) and the novelty
ball around the centre of mass.
"""
from __future__ import annotations

import numpy as np

from sklearn.base import BaseEstimator, TransformerMixin

from ._centering import (_as_float_matrix, _centre_in_blocks, _check_finite_means,
                         center_gram, centre_training_gram)
from ._estimator import (Classifier, check_array_input, check_fitted, check_n_features, check_X,
                         decode_binary_labels, default_kernel, encode_binary_labels)
from ._validation import (as_2d, as_finite, as_labels, as_vector, check_finite_real, check_psd,
                          check_square, gram)

__all__ = [
    "weight_norm_squared",
    "feature_distance",
    "normalize_gram",
    "normalize_kernel_rows",
    "mean_norm",
    "mean_squared_distance_to_mean",
    "center_gram",
    "center_kernel_rows",
    "GramCenterer",
    "centre_of_mass_offset",
    "centre_of_mass_scores",
    "centre_of_mass_weight",
    "CentreOfMassClassifier",
    "squared_distances_to_mean",
    "NoveltyBall",
]


def _coefficients(alpha, m: int, name: str) -> np.ndarray:
    arr = as_finite(alpha, name)
    if arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},) to match K of shape ({m}, {m}); "
                         f"got shape {arr.shape}")
    return arr


# ---------------------------------------------------------------- norms and distances
def weight_norm_squared(K, alpha) -> float:
    """Squared norm of ``w = sum_i alpha_i phi(x_i)``.

    .. math:: \\|w\\|^2 = \\sum_{i,j} \\alpha_i \\alpha_j \\kappa(x_i, x_j) = \\alpha^T K \\alpha
    """
    K = check_square(K, "K")
    alpha = _coefficients(alpha, K.shape[0], "alpha")
    return float(alpha @ K @ alpha)


def feature_distance(K, alpha, beta) -> float:
    """Distance between ``w_a = sum_i alpha_i phi(x_i)`` and ``w_b = sum_i beta_i phi(x_i)``.

    .. math:: d(w_a, w_b) = \\|w_a - w_b\\| = \\sqrt{(\\alpha - \\beta)^T K (\\alpha - \\beta)}

    Round-off can make the quadratic form slightly negative; it is clipped at 0.
    """
    K = check_square(K, "K")
    m = K.shape[0]
    diff = _coefficients(alpha, m, "alpha") - _coefficients(beta, m, "beta")
    return float(np.sqrt(max(diff @ K @ diff, 0.0)))


def _positive_diagonal(diag, name):
    diag = np.asarray(diag, dtype=float)
    if np.any(diag <= 0):
        i = int(np.argmax(diag <= 0))
        raise ValueError(f"cannot normalise: {name}[{i}] = k(x, x) = {float(diag[i])!r} is not positive "
                         f"(phi(x) = 0 has no direction)")
    return diag


def normalize_gram(K) -> np.ndarray:
    """Gram matrix of the normalised features ``phi(x)/||phi(x)||``.

    .. math:: \\hat K_{ij} = \\frac{K_{ij}}{\\sqrt{K_{ii} K_{jj}}}
    """
    K = check_square(K, "K")
    s = 1.0 / np.sqrt(_positive_diagonal(np.diag(K), "diag(K)"))
    return K * s[:, None] * s[None, :]


def normalize_kernel_rows(K_new, diag_new, diag_train) -> np.ndarray:
    """Normalised kernel values ``k(x, z) / sqrt(k(x, x) k(z, z))`` between new and training points.

    Parameters
    ----------
    K_new : array (p, m)
        ``K_new[a, i] = k(x_a, x_i)``.
    diag_new : array (p,)
        ``k(x_a, x_a)`` for the new points.
    diag_train : array (m,)
        ``k(x_i, x_i)`` for the training points.
    """
    K_new = as_2d(K_new, "K_new")
    p, m = K_new.shape
    diag_new = _positive_diagonal(as_vector(diag_new, "diag_new"), "diag_new")
    diag_train = _positive_diagonal(as_vector(diag_train, "diag_train"), "diag_train")
    if diag_new.shape != (p,) or diag_train.shape != (m,):
        raise ValueError(f"K_new has shape {K_new.shape} but diag_new has {diag_new.shape[0]} "
                         f"entries and diag_train {diag_train.shape[0]}")
    return K_new / np.sqrt(diag_new)[:, None] / np.sqrt(diag_train)[None, :]


def mean_norm(K) -> float:
    """Norm of the sample mean in feature space.

    .. math:: \\|\\phi_S\\| = \\Big\\|\\frac1m \\sum_i \\phi(x_i)\\Big\\| = \\frac1m \\sqrt{j^T K j}
    """
    K = check_square(K, "K")
    return float(np.sqrt(max(K.sum(), 0.0)) / K.shape[0])


def mean_squared_distance_to_mean(K) -> float:
    """Average squared distance of the sample to its mean in feature space.

    .. math:: \\hat E\\,\\|\\phi(x) - \\phi_S\\|^2 = \\frac1m \\mathrm{tr}(K) - \\frac1{m^2} j^T K j
    """
    K = check_psd(K, "K")
    m = K.shape[0]
    return float(np.trace(K) / m - K.sum() / m**2)


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
        K = _as_float_matrix(check_array_input(K, name), name)
        if K.shape[0] != K.shape[1]:
            bad = "" if np.all(np.isfinite(K)) else " that contains NaN or inf"
            raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {K.shape}{bad}")
        self.n_features_in_ = K.shape[1]
        return K

    def fit(self, K, y=None) -> "GramCenterer":
        """Store the column means and the grand mean of the training Gram matrix ``K``.

        ``y`` is not used; it is accepted so that the centerer fits in a ``Pipeline``.
        """
        return self._fit(K, "K")

    def _fit(self, K, name):
        K = self._fit_matrix(K, name)
        m = K.shape[0]
        column_means = np.ones(m) @ K / m        # one BLAS pass over K
        _check_finite_means(column_means, K, name)
        self.column_means_ = column_means
        self.grand_mean_ = float(column_means.sum() / m)
        return self

    def transform(self, K_new) -> np.ndarray:
        """Centre rows ``K_new[a, i] = k(x_a, x_i)`` (shape (p, m)) with the training statistics.

        The row means of ``K_new`` are each new point's own ``(1/m) sum_i k(x_a, x_i)``;
        the column means and the grand mean are the training sample's, never the new points'.
        """
        check_fitted(self, "column_means_", how="fit(K_train)", use="transform")
        K_new = _as_float_matrix(check_array_input(K_new, "K_new"), "K_new")
        m = self.column_means_.shape[0]
        if K_new.shape[1] != m and not np.all(np.isfinite(K_new)):
            raise ValueError(f"K_new contains NaN or inf (and has {K_new.shape[1]} columns, "
                             f"not one per training point ({m}))")
        # the columns of K_new are the scikit-learn "features": one per training point
        check_n_features(self, K_new, "K_new", what=f"K_new must have one column per training "
                                                    f"point ({m}): ")
        row_means = K_new @ np.ones(m) / m
        _check_finite_means(row_means, K_new, "K_new")
        # K - r_a - c_i + g, with g folded into the row shift: one blocked pass writing K.
        return _centre_in_blocks(K_new, row_means - self.grand_mean_, self.column_means_)

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


def center_kernel_rows(K_new, K_train) -> np.ndarray:
    """Centre new points' kernel rows ``K_new[a, i] = k(x_a, x_i)`` with the training statistics."""
    return GramCenterer()._fit(K_train, "K_train").transform(K_new)


# ---------------------------------------------------------------- centre-of-mass classifier
def _class_masks(y):
    pos, neg = y > 0, y < 0
    if not pos.any() or not neg.any():
        raise ValueError(f"the centre-of-mass classifier needs both classes; got "
                         f"{int(pos.sum())} positive and {int(neg.sum())} negative labels")
    return pos, neg


def centre_of_mass_offset(K, y) -> float:
    """The offset ``b`` of the centre-of-mass classifier.

    .. math:: b = \\frac{1}{2 m_+^2} \\sum_{i,j \\in S_+} \\kappa(x_i, x_j)
                - \\frac{1}{2 m_-^2} \\sum_{i,j \\in S_-} \\kappa(x_i, x_j)
              = \\tfrac12 (\\|\\phi_{S_+}\\|^2 - \\|\\phi_{S_-}\\|^2)
    """
    K = check_square(K, "K")
    y = as_labels(y, K.shape[0])
    pos, neg = _class_masks(y)
    return float(K[np.ix_(pos, pos)].mean() / 2 - K[np.ix_(neg, neg)].mean() / 2)


def centre_of_mass_scores(K_new, y, b: float) -> np.ndarray:
    """Decision values ``(1/m_+) sum_{S+} k(x, x_i) - (1/m_-) sum_{S-} k(x, x_i) - b``.

    ``K_new[a, i] = k(x_a, x_i)`` against the training points with labels ``y``.
    The classifier is ``h(x) = sgn`` of this value; it equals
    ``(||phi(x) - phi_S-||^2 - ||phi(x) - phi_S+||^2) / 2``.
    """
    K_new = as_2d(K_new, "K_new")
    y = as_labels(y, K_new.shape[1], name="y")
    b = check_finite_real(b, "b")
    pos, neg = _class_masks(y)
    return K_new[:, pos].mean(axis=1) - K_new[:, neg].mean(axis=1) - b


def centre_of_mass_weight(Phi, y) -> np.ndarray:
    """The hyperplane's normal with explicit features: ``w = phi_S+ - phi_S-``.

    ``h(x) = sgn(<w, phi(x)> - b)`` is the centre-of-mass classifier.
    """
    Phi = as_2d(Phi, "Phi")
    y = as_labels(y, Phi.shape[0])
    pos, neg = _class_masks(y)
    return Phi[pos].mean(axis=0) - Phi[neg].mean(axis=0)


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
def squared_distances_to_mean(K_new, diag_new, K_train) -> np.ndarray:
    """``||phi(x) - phi_S||^2`` for new points, from kernel values only.

    .. math:: \\|\\phi(x) - \\phi_S\\|^2 = \\kappa(x, x) - \\frac2m \\sum_i \\kappa(x, x_i)
              + \\frac1{m^2} j^T K j

    Parameters
    ----------
    K_new : array (p, m), ``k(x_a, x_i)``
    diag_new : array (p,), ``k(x_a, x_a)``
    K_train : array (m, m), the training Gram matrix
    """
    K_train = check_square(K_train, "K_train")
    K_new = as_2d(K_new, "K_new")
    m = K_train.shape[0]
    diag_new = as_vector(diag_new, "diag_new")
    if K_new.shape[1] != m or diag_new.shape[0] != K_new.shape[0]:
        raise ValueError(f"K_new must have shape (p, {m}) and diag_new (p,); got K_new "
                         f"{K_new.shape} and diag_new {diag_new.shape}")
    d2 = diag_new - 2 * K_new.mean(axis=1) + K_train.sum() / m**2
    return np.maximum(d2, 0.0)


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
