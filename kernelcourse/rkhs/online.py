"""The online kernel machine as an estimator, budgets on the number of bumps, and the regret
against a fixed function (lecture 5.7-5.8, 5.10); its coefficient update for the squared and
hinge losses is in :mod:`.updates`."""

from __future__ import annotations

import time

import numpy as np
from sklearn.exceptions import NotFittedError

from .._estimator import (ClassifierOrRegressor, as_real_targets, check_fitted, check_X,
                          decode_binary_labels, default_kernel, encode_binary_labels)
from .._progress import Progress
from .._validation import as_counts, check_choice, check_nonnegative, check_positive_int
from .functions import (BUDGET_RULES, LOSSES, SCHEDULES, RKHSFunction, _check_function,
                        _check_kernel, _data, _k_diag)
from .updates import _check_step, _loss_and_derivative


class OnlineKernelMachine(ClassifierOrRegressor):
    """The online kernel machine of lecture 5, section 6, with an optional budget.

    Starting from ``f = 0``, for each example ``(x_t, y_t)`` in turn: predict
    ``f_t(x_t) = sum_i alpha_i K(x_i, x_t)``, suffer the loss, then step
    ``f_{t+1} = f_t - eta_t grad C_t[f_t]`` on ``C_t[f] = l(f(x_t), y_t) + lam ||f||^2``
    (see :func:`coefficient_update`). Every step adds one new bump (the hinge loss
    only on margin errors), so prediction costs ``O(t)``; a ``budget`` keeps at most
    that many bumps by dropping the oldest or the smallest ``|alpha_i|`` (the idea of
    Dekel, Shalev-Shwartz and Singer's Forgetron, 2007).

    Parameters
    ----------
    kernel : callable, default None
        None means ``RBF(gamma=1.0)``.
    loss : {"hinge", "squared"}
    eta : float > 0
        Step size; ``eta_t = eta`` ("constant") or ``eta / sqrt(t)`` ("inv_sqrt").
    lam : float >= 0
        Regularisation weight, with ``2 eta lam <= 1``.
    budget : int >= 1 or None
        Largest number of bumps kept (None: no limit).
    budget_rule : {"oldest", "smallest"}
    schedule : {"constant", "inv_sqrt"}
    progress : bool, default False
        Show a progress bar (in a notebook) or line (on stderr) over the steps.

    With the hinge loss it is a classifier whose labels may be any two values
    (``classes_[0]`` plays -1, ``classes_[1]`` plays +1); with the squared loss
    it is a regressor.

    Attributes
    ----------
    centres_, alpha_ : the current bumps and their weights.
    kernel_, n_features_in_ : the kernel used, ``d``.
    classes_ : the two labels (hinge loss only).
    added_at_ : ndarray of int, the step at which each kept bump was added.
    losses_ : l(f_t(x_t), y_t) at each step, before the update.
    objective_ : C_t[f_t] = losses_ + lam ||f_t||^2.
    grad_norms_ : ||grad C_t[f_t]|| in the RKHS.
    mistakes_ : 1 where the prediction's sign was wrong (hinge loss).
    n_terms_ : number of bumps after each step.
    """

    def __init__(self, kernel=None, loss="hinge", eta=0.1, lam=0.0, budget=None,
                 budget_rule="oldest", schedule="constant", progress=False):
        self.kernel = kernel
        self.progress = progress
        self.loss = loss
        self.eta = eta
        self.lam = lam
        self.budget = budget
        self.budget_rule = budget_rule
        self.schedule = schedule

    def _validate(self):
        kernel = default_kernel(self.kernel)   # a name: resolved at fit (unknown names refused here)
        if not isinstance(kernel, str):
            _check_kernel(kernel)
        check_choice(self.loss, "loss", LOSSES)
        check_choice(self.budget_rule, "budget_rule", BUDGET_RULES)
        check_choice(self.schedule, "schedule", SCHEDULES)
        _check_step(self.eta, self.lam)
        if self.budget is not None:
            check_positive_int(self.budget, "budget")

    def _reset(self, d):
        self.centres_ = np.empty((0, d))
        self.alpha_ = np.empty(0)
        self.added_at_ = np.empty(0, dtype=int)
        self.norm2_ = 0.0
        self.t_ = 0
        self._history = {k: [] for k in ("losses_", "objective_", "grad_norms_", "mistakes_", "n_terms_")}

    def fit(self, X, y):
        """Start from ``f = 0`` and take one online step per row of X, in order."""
        self._validate()
        X = check_X(self, X, reset=True)
        self._reset(X.shape[1])
        for name in ("classes_", "kernel_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X, y)

    def partial_fit(self, X, y, classes=None):
        """Continue the stream with the rows of X (starting from ``f = 0`` on first use).

        ``classes`` (hinge loss): the two labels of the whole stream, needed on the
        first call when its ``y`` may hold only one of them; labels in {-1, +1}
        need none (the classes are then -1 and +1).
        """
        self._validate()
        first = not hasattr(self, "centres_")
        X = check_X(self, X, reset=first)
        if self.loss == "hinge":
            y_arr = np.asarray(y) if y is not None else None
            if (classes is None and not hasattr(self, "classes_") and y_arr is not None
                    and y_arr.dtype.kind in "iuf" and np.isin(y_arr, (-1, 1)).all()):
                # the lecture's labels: a stream may start with only one of -1 and +1
                classes = np.array([-1, 1], dtype=y_arr.dtype)
            y = encode_binary_labels(self, y, X.shape[0], classes=classes)
        else:
            y = as_real_targets(self, y, X.shape[0])
        if first:
            self._reset(X.shape[1])
        if not hasattr(self, "kernel_"):
            self.kernel_ = default_kernel(self.kernel, X.shape[1])
        kxx = _k_diag(self.kernel_, X)
        with Progress(len(X), "online steps", enabled=self.progress) as bar:
            for x, yt, k in zip(X, y, kxx):
                self._step(x, float(yt), float(k))
                bar.update()
        for key, values in self._history.items():
            setattr(self, key, np.array(values))
        return self

    def _step(self, x, y, kxx):
        self.t_ += 1
        eta = self.eta if self.schedule == "constant" else self.eta / np.sqrt(self.t_)
        fx = float((self.kernel_(x[None, :], self.centres_) @ self.alpha_)[0]) if len(self.alpha_) else 0.0
        loss, dl = _loss_and_derivative(self.loss, fx, y)
        lam, n2 = self.lam, self.norm2_
        grad2 = dl ** 2 * kxx + 4 * lam * dl * fx + 4 * lam ** 2 * n2
        h = self._history
        h["losses_"].append(loss)
        h["objective_"].append(loss + lam * n2)
        h["grad_norms_"].append(np.sqrt(max(grad2, 0.0)))
        h["mistakes_"].append(int(np.sign(fx) != y) if self.loss == "hinge" else 0)
        shrink, c = 1.0 - 2.0 * eta * lam, -eta * dl
        self.alpha_ = shrink * self.alpha_
        # ||s f + c K(x, .)||^2 = s^2 ||f||^2 + 2 s c f(x) + c^2 K(x, x)
        self.norm2_ = shrink ** 2 * n2 + 2 * shrink * c * fx + c ** 2 * kxx
        if c != 0.0:
            self.centres_ = np.vstack([self.centres_, x[None, :]])
            self.alpha_ = np.append(self.alpha_, c)
            self.added_at_ = np.append(self.added_at_, self.t_)
            self._enforce_budget()
        h["n_terms_"].append(len(self.alpha_))

    def _enforce_budget(self):
        while self.budget is not None and len(self.alpha_) > self.budget:
            j = 0 if self.budget_rule == "oldest" else int(np.argmin(np.abs(self.alpha_)))
            a, xj = self.alpha_[j], self.centres_[j:j + 1]
            fxj = float((self.kernel_(xj, self.centres_) @ self.alpha_)[0])
            kjj = float(_k_diag(self.kernel_, xj)[0])
            # ||f - a K(x_j, .)||^2 = ||f||^2 - 2 a f(x_j) + a^2 K(x_j, x_j)
            self.norm2_ = max(self.norm2_ - 2 * a * fxj + a ** 2 * kjj, 0.0)
            keep = np.arange(len(self.alpha_)) != j
            self.centres_, self.alpha_ = self.centres_[keep], self.alpha_[keep]
            self.added_at_ = self.added_at_[keep]

    def _check_fitted(self):
        check_fitted(self, "centres_")

    @property
    def function_(self):
        """The current ``f`` as an :class:`RKHSFunction`."""
        self._check_fitted()
        return RKHSFunction(self.kernel_, self.centres_, self.alpha_)

    def decision_function(self, X):
        """``f(x) = sum_i alpha_i K(x_i, x)`` for each row of X."""
        self._check_fitted()
        return self.function_(check_X(self, X, reset=False))

    def predict(self, X):
        """``sign f(x)`` for the hinge loss (``classes_[1]``, i.e. +1, where ``f(x) >= 0``),
        ``f(x)`` for the squared loss."""
        fx = self.decision_function(X)
        return decode_binary_labels(self, fx >= 0) if self.loss == "hinge" else fx



def _score(machine, X, y):
    if machine.loss == "hinge":
        return float(np.mean(machine.predict(X) == y))
    return float(np.mean((machine.predict(X) - y) ** 2))



def _time_prediction(f, X, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        f(X)
        best = min(best, time.perf_counter() - start)
    return best



def budget_tradeoff(kernel, X_train, y_train, X_test, y_test, budgets, loss="hinge", eta=0.5,
                    lam=0.001, budget_rule="oldest", repeats=5):
    """Measure what a budget costs in accuracy and saves in prediction time.

    Trains one :class:`OnlineKernelMachine` per budget (and one without) on the same
    stream, then scores it on the test set and times ``f(X_test)`` (best of ``repeats``).

    Returns
    -------
    list of dict
        One per budget, the unlimited machine last (``budget`` None), with keys
        ``budget``, ``n_terms``, ``score`` (test accuracy for the hinge loss, test mean
        squared error for the squared loss), ``online_mistakes`` (hinge),
        ``predict_seconds`` and ``time_ratio`` (against the unlimited machine,
        measured in the same run).
    """
    check_choice(loss, "loss", LOSSES)
    labels = loss == "hinge"
    X_train, y_train = _data(X_train, y_train, labels, names=("X_train", "y_train"))
    X_test, y_test = _data(X_test, y_test, labels, names=("X_test", "y_test"))
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test must have the {X_train.shape[1]} features of X_train; got X_test with "
                         f"shape {X_test.shape} and X_train with shape {X_train.shape}")
    budgets = as_counts(budgets, "budgets")
    repeats = check_positive_int(repeats, "repeats")
    rows = []
    for budget in budgets + [None]:
        m = OnlineKernelMachine(kernel, loss=loss, eta=eta, lam=lam, budget=budget,
                                budget_rule=budget_rule).fit(X_train, y_train)
        rows.append({"budget": budget, "n_terms": len(m.alpha_), "score": _score(m, X_test, y_test),
                     "online_mistakes": int(m.mistakes_.sum()),
                     "predict_seconds": _time_prediction(m.function_, X_test, repeats)})
    full = rows[-1]["predict_seconds"]
    for row in rows:
        row["time_ratio"] = row["predict_seconds"] / full
    return rows



def comparator_losses(f_star, X, y, loss="hinge", lam=0.0):
    """``C_t[f*] = l(f*(x_t), y_t) + lam ||f*||^2`` for each example of the stream."""
    check_choice(loss, "loss", LOSSES)
    _check_function(f_star, "f_star")
    X, y = _data(X, y, labels=(loss == "hinge"))
    lam = check_nonnegative(lam, "lam")
    fx = f_star(X)
    losses = (y - fx) ** 2 if loss == "squared" else np.maximum(0.0, 1.0 - y * fx)
    return losses + lam * f_star.inner(f_star)



def _check_machine(machine):
    if not isinstance(machine, OnlineKernelMachine):
        raise TypeError(f"machine must be a fitted OnlineKernelMachine; got {type(machine).__name__}")
    if not hasattr(machine, "centres_"):
        raise NotFittedError("machine is not fitted yet: call machine.fit(X, y) on the stream first")


def regret_curve(machine, f_star, X, y):
    """Cumulative regret ``sum_{s <= t} (C_s[f_s] - C_s[f*])`` of a machine fitted on (X, y)."""
    _check_machine(machine)
    theirs = comparator_losses(f_star, X, y, machine.loss, machine.lam)
    if theirs.shape[0] != machine.objective_.shape[0]:
        raise ValueError(f"the machine took {machine.objective_.shape[0]} steps but the stream "
                         f"has {theirs.shape[0]} examples")
    return np.cumsum(machine.objective_ - theirs)



def regret_bound(machine, f_star):
    """The online gradient descent bound on the regret after each step (constant step).

    For convex ``C_t``, starting at ``f_1 = 0`` with a constant step ``eta`` and no
    budget, for every comparator ``f*`` in the RKHS::

        sum_{s <= t} (C_s[f_s] - C_s[f*]) <= ||f*||^2 / (2 eta) + (eta / 2) sum_{s <= t} ||grad C_s[f_s]||^2.

    With ``||grad C_s|| <= G`` and ``eta = ||f*|| / (G sqrt(T))`` this is
    ``||f*|| G sqrt(T)``, the lecture's bound.
    """
    _check_machine(machine)
    _check_function(f_star, "f_star")
    if machine.schedule != "constant" or machine.budget is not None:
        raise ValueError("the bound is stated for a constant step and no budget; got "
                         f"schedule={machine.schedule!r}, budget={machine.budget!r}")
    eta = float(machine.eta)
    return f_star.inner(f_star) / (2 * eta) + eta / 2 * np.cumsum(machine.grad_norms_ ** 2)
