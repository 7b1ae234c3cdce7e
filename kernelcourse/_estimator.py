"""What every estimator of the course shares: scikit-learn's estimator contract.

The estimators inherit scikit-learn's base classes (``BaseEstimator`` and the
mixins), which give ``get_params``/``set_params``, ``clone``, the estimator
tags and ``fit_transform``; everything they compute is the course's own. The
helpers here are the contract's input side: the checks scikit-learn's estimator
checks expect at ``fit`` and ``predict`` (complex numbers, ``n_features_in_``,
a missing ``y``), and the classifiers' labels, any two distinct values, which
the course's algorithms see as -1 and +1.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.utils import RegressorTags

from ._validation import as_2d, as_targets, check_array_input, check_real
from .kernels import RBF, as_kernel

__all__ = ["check_X", "check_array_input", "check_n_features", "check_real", "check_fitted", "check_y_given", "encode_binary_labels",
           "decode_binary_labels", "as_real_targets", "accuracy", "r2", "Classifier", "Regressor",
           "ClassifierOrRegressor", "default_kernel"]


def default_kernel(kernel, n_features=None):
    """``kernel``, or the course's default ``RBF(gamma=1.0)`` when it is None.

    A kernel name of scikit-learn's (``"rbf"``, ``"linear"``, ...) becomes the
    package's kernel with scikit-learn's defaults, which need ``n_features``
    (:func:`~kernelcourse.kernels.as_kernel`); anything else not callable is
    refused with the list of names.
    """
    if kernel is None:
        return RBF(gamma=1.0)
    if isinstance(kernel, str) and n_features is None:
        as_kernel(kernel, 1)  # an unknown name is refused here with the list of names
        return kernel         # a known one is resolved at fit, when the data say n_features
    return as_kernel(kernel, n_features or 1)


def check_fitted(estimator, attribute, how="fit(X, y)", use="predicting"):
    """Raise when ``attribute`` was not learned yet, naming the estimator.

    The error is scikit-learn's ``NotFittedError``, a ``ValueError`` (and an
    ``AttributeError``), as scikit-learn's tools expect.
    """
    if not hasattr(estimator, attribute):
        raise NotFittedError(f"this {type(estimator).__name__} is not fitted yet: call {how} "
                         f"before {use}")


def check_X(estimator, X, reset, name="X"):
    """``X`` as a finite 2-D float array; sets ``n_features_in_`` (``reset``) or checks it.

    :func:`check_array_input`, then :func:`~kernelcourse._validation.as_2d`.
    """
    X = as_2d(check_array_input(X, name), name)
    if reset:
        estimator.n_features_in_ = X.shape[1]
    else:
        check_n_features(estimator, X, name)
    return X


def check_n_features(estimator, X, name="X", what=""):
    """Raise unless ``X`` has the ``n_features_in_`` columns seen by ``fit``."""
    check_fitted(estimator, "n_features_in_")
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"{what}X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input; got {name} with shape {X.shape}")


def check_y_given(estimator, y):
    """Raise when a supervised estimator gets ``y=None``."""
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target "
                         "y is None")


def encode_binary_labels(estimator, y, n, classes=None):
    """Labels with two distinct values as -1.0 / +1.0; sets ``classes_`` (sorted).

    ``classes_[0]`` becomes -1 and ``classes_[1]`` becomes +1, so labels already
    in {-1, +1} keep their values. ``classes`` fixes the two classes in advance
    (``partial_fit``); once ``classes_`` is set, later calls keep it.
    """
    name = type(estimator).__name__
    y = _as_1d_y(estimator, y, n, "labels")
    if y.dtype.kind == "f":
        if np.any(y != np.round(y)):
            raise ValueError(f"Unknown label type: y holds continuous values; {name} is a "
                             "classifier and needs two class labels")
    if classes is None:
        classes = getattr(estimator, "classes_", None)
    classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
    if len(classes) != 2:
        word = "class" if len(classes) == 1 else "classes"
        only = " Only binary classification is supported." if len(classes) > 2 else ""
        raise ValueError(f"{name} is a binary classifier: y must hold two classes; got "
                         f"{len(classes)} {word}: {classes[:5].tolist()}.{only}")
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(f"y holds labels outside the classes {classes.tolist()}: "
                         f"{np.unique(y[unknown])[:5].tolist()}")
    estimator.classes_ = classes
    return np.where(y == classes[1], 1.0, -1.0)


def _ravel_column(estimator, y, stacklevel=4):
    """A column vector ``(n, 1)`` raveled to ``(n,)`` with scikit-learn's warning."""
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected: "
                      f"{type(estimator).__name__} uses y.ravel()", DataConversionWarning,
                      stacklevel=stacklevel)
        y = y.ravel()
    return y


def _as_1d_y(estimator, y, n, what):
    """``y`` as a 1-D array of ``n`` entries; a column vector is raveled with a warning."""
    check_y_given(estimator, y)
    y = _ravel_column(estimator, check_real(np.asarray(y), "y"), stacklevel=5)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of {what}; got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} {what} but there are {n} samples")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or inf")
    return y


def as_real_targets(estimator, y, n):
    """Real targets as a 1-D float array of ``n`` values (a column vector is raveled), checked
    by the package's one :func:`~kernelcourse._validation.as_targets`."""
    check_y_given(estimator, y)
    return as_targets(_ravel_column(estimator, check_real(np.asarray(y), "y")), n)


def decode_binary_labels(estimator, positive):
    """``classes_[1]`` where ``positive`` is true, ``classes_[0]`` elsewhere."""
    return estimator.classes_[np.asarray(positive, dtype=int)]


def accuracy(y_true, y_pred):
    """The fraction of predictions equal to the labels."""
    y_true = np.asarray(y_true)
    if y_true.shape != np.shape(y_pred):
        raise ValueError(f"y must have one label per row of X, shape {np.shape(y_pred)}; "
                         f"got shape {y_true.shape}")
    return float(np.mean(y_true == y_pred))


def r2(y_true, y_pred):
    """The coefficient of determination ``1 - sum (y - f)^2 / sum (y - mean y)^2``.

    For several outputs, the mean over the outputs. A constant ``y`` gives 1.0
    when predicted exactly and 0.0 otherwise.
    """
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y must have the shape of the predictions {y_pred.shape}; "
                         f"got shape {y_true.shape}")
    if y_true.ndim == 1:
        y_true, y_pred = y_true[:, None], y_pred[:, None]
    residual = np.sum((y_true - y_pred) ** 2, axis=0)
    total = np.sum((y_true - y_true.mean(axis=0)) ** 2, axis=0)
    safe = np.where(total > 0, total, 1.0)
    scores = np.where(total > 0, 1.0 - residual / safe, np.where(residual == 0, 1.0, 0.0))
    return float(np.mean(scores))


class Classifier(ClassifierMixin, BaseEstimator):
    """A binary classifier: ``score`` is our accuracy; the tags say two classes only."""

    def score(self, X, y, sample_weight=None):
        """The fraction of rows of ``X`` whose predicted label equals ``y``."""
        if sample_weight is not None:
            raise ValueError(f"{type(self).__name__}.score takes no sample_weight")
        return accuracy(y, self.predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class Regressor(RegressorMixin, BaseEstimator):
    """A regressor: ``score`` is our coefficient of determination R^2."""

    def score(self, X, y, sample_weight=None):
        """R^2 of the predictions for ``X`` against ``y``."""
        if sample_weight is not None:
            raise ValueError(f"{type(self).__name__}.score takes no sample_weight")
        return r2(y, self.predict(X))


class ClassifierOrRegressor(Classifier):
    """A classifier for its classification loss, a regressor for ``loss="squared"``.

    The tags and ``score`` (accuracy or R^2) follow the ``loss`` parameter, so that
    scikit-learn's model selection treats each setting as what it is.
    """

    def _regresses(self):
        return self.loss == "squared"

    def score(self, X, y, sample_weight=None):
        """Accuracy for the classification loss, R^2 for the squared loss."""
        if not self._regresses():
            return super().score(X, y, sample_weight)
        if sample_weight is not None:
            raise ValueError(f"{type(self).__name__}.score takes no sample_weight")
        return r2(y, self.predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self._regresses():
            tags.estimator_type = "regressor"
            tags.classifier_tags = None
            # a constant step / a single online pass: not trained to convergence
            tags.regressor_tags = RegressorTags(poor_score=True)
        return tags
