"""The SVM as an estimator (lecture 7.8-7.10): :class:`SupportVectorClassifier` (one-vs-rest
or one-vs-one on the course's SMO) and :func:`cross_validate_svm`. Its base classes come from
scikit-learn, so this module is loaded only when one of its names is asked for (see
:mod:`kernelcourse.svm`).
"""
from __future__ import annotations

import itertools

import numpy as np

from .._estimator import Classifier, _as_1d_y, check_fitted, check_X, check_y_given, default_kernel
from .._validation import (as_2d, as_labels, as_positives, as_rng, check_choice, check_nonnegative_int,
                           check_positive, check_positive_int, gram)
from ..kernel_cache import GramRows as _GramRows
from ..kernels import RBF
from .solver import _check_solver_args, _smo

__all__ = ["cross_validate_svm", "SupportVectorClassifier"]


def cross_validate_svm(X, y, Cs, gammas, n_folds=5, tol=1e-3, random_state=0) -> dict:
    """Mean held-out accuracy of the RBF SVM over a grid of ``C`` and ``gamma`` (7.8).

    The rows are shuffled once (``random_state``) and cut into ``n_folds`` folds.
    Returns ``{"accuracy": array (len(Cs), len(gammas)), "n_support": the mean number
    of support vectors, same shape, "C": best C, "gamma": best gamma}``.
    """
    X = as_2d(X, "X")
    y = as_labels(y, X.shape[0], values=None)
    Cs = as_positives(Cs, "Cs", "C")
    gammas = as_positives(gammas, "gammas", "gamma")
    n_folds = check_positive_int(n_folds, "n_folds")
    if not 2 <= n_folds <= X.shape[0]:
        raise ValueError(f"n_folds must lie between 2 and the {X.shape[0]} samples; got n_folds={n_folds}")
    tol = check_positive(tol, "tol")
    order = as_rng(random_state).permutation(X.shape[0])
    folds = np.array_split(order, n_folds)
    acc = np.zeros((len(Cs), len(gammas)))
    nsv = np.zeros_like(acc)
    for a, C in enumerate(Cs):
        for g, gamma in enumerate(gammas):
            for fold in folds:
                train = np.setdiff1d(order, fold)
                model = SupportVectorClassifier(C=C, kernel=RBF(gamma), tol=tol).fit(X[train], y[train])
                acc[a, g] += np.mean(model.predict(X[fold]) == y[fold]) / n_folds
                nsv[a, g] += len(model.support_) / n_folds
    best = np.unravel_index(np.argmax(acc), acc.shape)
    return {"accuracy": acc, "n_support": nsv, "C": Cs[best[0]], "gamma": gammas[best[1]]}


class SupportVectorClassifier(Classifier):
    """The soft-margin SVM solved by the course's SMO (lecture 7).

    .. math:: f(x) = \\sum_{i \\in SV} a_i y_i k(x_i, x) + b

    Parameters
    ----------
    C : float > 0, default 1.0
        The box: the price of each unit of slack.
    kernel : kernel object or scikit-learn's kernel name, default None
        None means ``RBF(gamma=1.0)``.
    tol : float > 0, default 1e-3
        SMO stops when ``m(a) - M(a) <= tol`` (libsvm's stopping rule and default).
    max_iter : int, default 1000000
        Most SMO steps per binary machine.
    selection : {"second_order", "max_violating"}, default "second_order"
    multiclass : {"ovr", "ovo"}, default "ovr"
        For more than two classes: one machine per class against the rest, or one
        per pair of classes (prediction by votes).
    cache_bytes : int, default 400000000
        Kernel rows are computed when SMO first needs them; all of them are kept when the
        Gram matrix's ``8 n^2`` bytes fit, else the last 256 (an LRU cache).

    Attributes
    ----------
    classes_ : array (n_classes,)
    support_ : array (n_SV,)
        Indices of the training points that are support vectors of some machine.
    support_vectors_ : array (n_SV, d)
    dual_coef_ : array (n_machines, n_SV)
        ``a_i y_i`` of each machine (0 where a point is not in that machine).
    intercept_ : array (n_machines,)
        The offsets ``b``.
    runs_ : list of :class:`SMORun`, n_iter_ : array (n_machines,)

    Two classes make one machine in which ``classes_[1]`` plays +1 and the decision
    values are positive for it. For ``"ovr"``, machine ``k`` has class ``k`` as +1;
    for ``"ovo"``, the machine of the pair ``(k, l)``, ``k < l`` (in the order of
    ``itertools.combinations``), has ``l`` as +1.
    """

    def __init__(self, C=1.0, kernel=None, tol=1e-3, max_iter=1_000_000, selection="second_order",
                 multiclass="ovr", cache_bytes=400_000_000):
        self.C = C
        self.kernel = kernel
        self.tol = tol
        self.max_iter = max_iter
        self.selection = selection
        self.multiclass = multiclass
        self.cache_bytes = cache_bytes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _machines(self, labels):
        k = len(self.classes_)
        if k == 2:
            return [(np.arange(labels.shape[0]), np.where(labels == 1, 1.0, -1.0))]
        if self.multiclass == "ovr":
            return [(np.arange(labels.shape[0]), np.where(labels == c, 1.0, -1.0)) for c in range(k)]
        out = []
        for a, c in itertools.combinations(range(k), 2):
            idx = np.flatnonzero((labels == a) | (labels == c))
            out.append((idx, np.where(labels[idx] == c, 1.0, -1.0)))
        return out

    def fit(self, X, y) -> "SupportVectorClassifier":
        X = check_X(self, X, reset=True)
        check_y_given(self, y)
        y = _as_1d_y(self, y, X.shape[0], "labels")
        if y.dtype.kind == "f" and np.any(y != np.round(y)):
            raise ValueError("Unknown label type: y holds continuous values; SupportVectorClassifier "
                             "is a classifier and needs class labels")
        C, tol, max_iter = _check_solver_args(self.C, self.tol, self.max_iter, self.selection)
        check_choice(self.multiclass, "multiclass", ("ovr", "ovo"))
        cache_bytes = check_nonnegative_int(self.cache_bytes, "cache_bytes")
        self.classes_, labels = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"SupportVectorClassifier needs at least two classes in y; got 1 class: "
                             f"{self.classes_.tolist()}")
        self.kernel_ = default_kernel(self.kernel, X.shape[1])
        n = X.shape[0]
        machines = self._machines(labels)
        coef = np.zeros((len(machines), n))
        self.runs_ = []
        shared = None                              # one row cache for the machines on all points
        for row, (idx, ym) in enumerate(machines):
            if len(idx) == n:
                shared = shared or _GramRows(self.kernel_, X, cache_bytes, 256)
                rows = shared
            else:
                rows = _GramRows(self.kernel_, X[idx], cache_bytes, 256)
            run = _smo(rows, ym, C, tol, max_iter, self.selection, False)
            coef[row, idx] = run.alpha * ym
            self.runs_.append(run)
        self.support_ = np.flatnonzero(np.any(coef != 0, axis=0))
        self.support_vectors_ = X[self.support_].copy()
        self.dual_coef_ = coef[:, self.support_]
        self.intercept_ = np.array([run.b for run in self.runs_])
        self.n_iter_ = np.array([run.n_iter for run in self.runs_])
        return self

    def machine_values(self, X) -> np.ndarray:
        """``f(x)`` of each machine, shape (n, n_machines): for ``"ovo"``, one column per pair."""
        check_fitted(self, "dual_coef_")
        X = check_X(self, X, reset=False)
        if not len(self.support_):
            return np.tile(self.intercept_, (X.shape[0], 1))
        return gram(self.kernel_, X, self.support_vectors_) @ self.dual_coef_.T + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """Shape (n,) for two classes: ``f(x)``, positive for ``classes_[1]``. Otherwise
        (n, n_classes): for ``"ovr"`` each class's ``f(x)``; for ``"ovo"`` each class's votes
        plus its summed pairwise values squashed into (-1/3, 1/3), so the largest entry is
        the class with most votes, ties going to the larger total confidence."""
        values = self.machine_values(X)
        k = len(self.classes_)
        if k == 2:
            return values[:, 0]
        if self.multiclass == "ovr":
            return values
        votes = np.zeros((values.shape[0], k))
        confidence = np.zeros_like(votes)
        for col, (a, c) in enumerate(itertools.combinations(range(k), 2)):
            votes[:, c] += values[:, col] > 0
            votes[:, a] += values[:, col] <= 0
            confidence[:, c] += values[:, col]
            confidence[:, a] -= values[:, col]
        return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))

    def predict(self, X) -> np.ndarray:
        """The class of each row: the sign of ``f`` for two classes, the largest decision
        value for more (the largest ``f`` for ``"ovr"``, the most votes for ``"ovo"``)."""
        values = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(values > 0).astype(int)]
        return self.classes_[np.argmax(values, axis=1)]
