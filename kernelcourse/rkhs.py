"""Functions in a reproducing kernel Hilbert space, and gradient descent on them.

Lecture 5 (Drew Bagnell's scribed notes on functional gradient descent) learns a function
rather than a weight vector. A function of the RKHS ``H_K`` of a kernel ``K`` is a
weighted sum of kernel "bumps"::

    f(.) = sum_i alpha_i K(x_i, .)

Here such a function is an :class:`RKHSFunction` (centres ``x_i``, coefficients
``alpha``, the kernel). It evaluates, adds, scales and takes inner products
``<f, g> = alpha^T K beta``. Functionals (maps from functions to numbers) and
their functional gradients, defined by::

    E[f + eps g] = E[f] + eps <grad E[f], g> + O(eps^2),

are :class:`Functional` objects whose gradients are again RKHS functions; the
definition itself is checked by :func:`finite_difference_check`.

Functional gradient descent on the regularised squared loss and on the hinge
loss gives the online kernel machine (:class:`OnlineKernelMachine`), with an
optional budget on the number of bumps, its regret, and the representer theorem.

Kernels are any objects ``k(X, Z)`` returning the ``(n_X, n_Z)`` Gram matrix,
e.g. ``kernelcourse.kernels.RBF(gamma)`` = ``exp(-gamma ||x - z||^2)``. The
lecture writes the RBF kernel as ``exp(-||x - z||^2 / gamma_lecture)``, so the
package's ``gamma`` is ``1 / gamma_lecture``.
"""
from __future__ import annotations

import numbers
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.linalg

from ._estimator import (ClassifierOrRegressor, as_real_targets, check_fitted, check_X,
                         decode_binary_labels, default_kernel, encode_binary_labels)
from ._progress import Progress
from ._validation import KERNEL_NAMES, as_2d, as_kernel, check_psd, gram, as_labels, check_nonnegative, check_positive, check_positive_int

__all__ = [
    "RKHSFunction",
    "kernel_section",
    "Functional",
    "squared_norm",
    "evaluation",
    "squared_loss",
    "regularised_squared_loss",
    "hinge_loss",
    "chain",
    "finite_difference_check",
    "gradient_checks",
    "functional_gradient_descent",
    "coefficient_update",
    "fit_online",
    "hinge_kernel_machine",
    "OnlineKernelMachine",
    "budget_tradeoff",
    "comparator_losses",
    "regret_curve",
    "regret_bound",
    "representer_minimiser",
    "orthogonal_to_span",
    "sample_sine",
    "bandwidth_bias_variance",
    "bias_variance_sweep",
]

LOSSES = ("squared", "hinge")
BUDGET_RULES = ("oldest", "smallest")
SCHEDULES = ("constant", "inv_sqrt")


def _check_kernel(kernel):
    if isinstance(kernel, str):
        raise TypeError(
            f"kernel={kernel!r}: this class needs a kernel object, not a name; the names "
            f"{list(KERNEL_NAMES)} map to kernelcourse.kernels objects (e.g. RBF(gamma=...))")
    if not callable(kernel):
        raise TypeError(f"kernel must be callable as kernel(X, Z); got {type(kernel).__name__}")
    return kernel


def _check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {name}={value!r}")
    return value


def _same_kernel(k1, k2):
    """Whether two kernel objects are the same function (same type and parameters, by repr)."""
    if k1 is k2:
        return True
    try:
        if k1 == k2:
            return True
    except Exception:  # an __eq__ that does not return a bool
        pass
    return type(k1) is type(k2) and repr(k1) == repr(k2)


def _k_diag(kernel, X):
    """``K(x_i, x_i)`` for every row of X (uses ``kernel.diag`` when it exists)."""
    diag = getattr(kernel, "diag", None)
    if diag is not None:
        return np.asarray(diag(X), dtype=float)
    return np.array([kernel(x[None, :], x[None, :])[0, 0] for x in X])


class RKHSFunction:
    """A function ``f(.) = sum_i alpha_i K(x_i, .)`` of the RKHS of ``kernel``.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z)`` returns the Gram matrix ``K_ij = K(x_i, z_j)``.
    centres : array of shape (m, d)
        The points ``x_i`` the bumps sit on; ``m = 0`` (shape ``(0, d)``) is the zero function.
    alpha : array of shape (m,)
        The weight ``alpha_i`` of each bump.

    Notes
    -----
    Inner product and norm (lecture 5, section 3)::

        <f, g> = sum_i sum_j alpha_i beta_j K(x_i, x'_j) = alpha^T K beta,
        ||f||^2 = alpha^T K alpha.

    Examples
    --------
    >>> from kernelcourse.kernels import RBF
    >>> f = RKHSFunction(RBF(1.0), [[0.0], [1.0]], [1.0, -0.5])
    >>> round(float(f([[0.0]])[0]), 4)
    0.8161
    """

    __array_ufunc__ = None  # so that ``ndarray * f`` defers to RKHSFunction.__rmul__

    def __init__(self, kernel, centres, alpha):
        self.kernel = _check_kernel(kernel)
        centres = np.asarray(centres, dtype=float)
        if centres.ndim == 2 and centres.shape[0] == 0 and centres.shape[1] > 0:
            centres = centres.copy()
        else:
            centres = as_2d(centres, "centres").copy()
        alpha = np.array(alpha, dtype=float)
        if alpha.ndim != 1:
            raise ValueError(f"alpha must be a 1-D array of coefficients; got shape {alpha.shape}")
        if alpha.shape[0] != centres.shape[0]:
            raise ValueError(
                f"centres and alpha do not match: centres has {centres.shape[0]} rows "
                f"(shape {centres.shape}) but alpha has {alpha.shape[0]} coefficients")
        if not np.all(np.isfinite(alpha)):
            raise ValueError("alpha contains NaN or inf")
        self.centres = centres
        self.alpha = alpha

    @classmethod
    def zero(cls, kernel, n_features):
        """The zero function of ``H_K`` on inputs with ``n_features`` features (no bumps)."""
        n_features = check_positive_int(n_features, "n_features")
        return cls(kernel, np.empty((0, n_features)), np.empty(0))

    @property
    def n_features(self):
        return self.centres.shape[1]

    def __len__(self):
        """The number of bumps ``Q`` (what prediction costs: ``O(Q)`` kernel evaluations)."""
        return self.centres.shape[0]

    def __repr__(self):
        return f"RKHSFunction({len(self)} terms, kernel={self.kernel!r})"

    def _as_inputs(self, X, name="X"):
        X = as_2d(X, name)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"{name} must have {self.n_features} features like the centres (shape "
                f"{self.centres.shape}); got {name} with shape {X.shape}")
        return X

    def __call__(self, X):
        """Evaluate ``f(x) = sum_i alpha_i K(x_i, x)`` at every row of X; returns shape (n,)."""
        X = self._as_inputs(X)
        if len(self) == 0:
            return np.zeros(X.shape[0])
        return self.kernel(X, self.centres) @ self.alpha

    def bumps(self, X):
        """The weighted bumps ``alpha_i K(x_i, x)`` one per row, shape (m, n); they sum to f(X)."""
        X = self._as_inputs(X)
        if len(self) == 0:
            return np.zeros((0, X.shape[0]))
        return self.alpha[:, None] * self.kernel(self.centres, X)

    def _check_same_space(self, other):
        if not isinstance(other, RKHSFunction):
            raise TypeError(f"expected an RKHSFunction; got {type(other).__name__}")
        if not _same_kernel(self.kernel, other.kernel):
            raise ValueError(
                f"the two functions live in different RKHSs: kernels {self.kernel!r} and {other.kernel!r}")
        if other.n_features != self.n_features:
            raise ValueError(
                f"the two functions take inputs of different sizes: centres with shapes "
                f"{self.centres.shape} and {other.centres.shape}")

    def __add__(self, other):
        """``f + g``: concatenate the bumps (or add coefficients when the centres coincide)."""
        self._check_same_space(other)
        if self.centres.shape == other.centres.shape and np.array_equal(self.centres, other.centres):
            return RKHSFunction(self.kernel, self.centres, self.alpha + other.alpha)
        return RKHSFunction(self.kernel, np.vstack([self.centres, other.centres]),
                            np.concatenate([self.alpha, other.alpha]))

    def __mul__(self, c):
        """``c f``: scale every coefficient by the real number ``c``."""
        if isinstance(c, RKHSFunction) or isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise TypeError(
                f"an RKHS function can only be multiplied by a real number; got {type(c).__name__}")
        return RKHSFunction(self.kernel, self.centres, float(c) * self.alpha)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-other)

    def inner(self, other):
        """The RKHS inner product ``<f, g> = alpha^T K beta`` with ``K_ij = K(x_i, x'_j)``."""
        self._check_same_space(other)
        if len(self) == 0 or len(other) == 0:
            return 0.0
        return float(self.alpha @ self.kernel(self.centres, other.centres) @ other.alpha)

    def norm(self):
        """The RKHS norm ``||f|| = sqrt(alpha^T K alpha)``."""
        return float(np.sqrt(max(self.inner(self), 0.0)))

    def merged(self):
        """The same function with bumps on identical centres combined into one."""
        if len(self) == 0:
            return self
        unique, inverse = np.unique(self.centres, axis=0, return_inverse=True)
        alpha = np.zeros(unique.shape[0])
        np.add.at(alpha, inverse.ravel(), self.alpha)
        return RKHSFunction(self.kernel, unique, alpha)


def kernel_section(kernel, x):
    """The function ``K(x, .)``: one bump of weight 1 on the point ``x``.

    It is the gradient of the evaluation functional ``E_x[f] = f(x)``, and by the
    reproducing property ``<f, K(x, .)> = f(x)``.
    """
    x = np.asarray(x, dtype=float)
    x = as_2d(x.reshape(1, -1) if x.ndim == 1 else x, "x")
    if x.shape[0] != 1:
        raise ValueError(f"x must be a single point; got shape {x.shape}")
    return RKHSFunction(kernel, x, [1.0])


# ----------------------------------------------------------------------------- functionals

@dataclass(frozen=True)
class Functional:
    """A functional ``E: H_K -> R`` with its functional gradient.

    Attributes
    ----------
    name : str
    value : callable
        ``value(f)`` returns ``E[f]``.
    gradient : callable
        ``gradient(f)`` returns ``grad E[f]`` as an :class:`RKHSFunction`, the function with
        ``E[f + eps g] = E[f] + eps <grad E[f], g> + O(eps^2)`` for every ``g``.
    """

    name: str
    value: Callable
    gradient: Callable

    def __call__(self, f):
        return self.value(f)


def _data(X, y, labels):
    X = as_2d(X)
    y = as_labels(y, X.shape[0], values=(-1, 1) if labels else None)
    return X, y


def squared_norm():
    """``E[f] = ||f||^2``, with gradient ``grad E[f] = 2 f``."""
    return Functional("||f||^2", lambda f: f.inner(f), lambda f: 2.0 * f)


def evaluation(x):
    """The evaluation functional ``E_x[f] = f(x)``, with gradient ``K(x, .)``."""
    x = as_2d(np.asarray(x, dtype=float).reshape(1, -1), "x")
    return Functional("f(x)", lambda f: float(f(x)[0]),
                      lambda f: RKHSFunction(f.kernel, x, [1.0]))


def squared_loss(X, y):
    """``E[f] = sum_i (y_i - f(x_i))^2``, with gradient ``-2 sum_i (y_i - f(x_i)) K(x_i, .)``."""
    X, y = _data(X, y, labels=False)

    def gradient(f):
        return RKHSFunction(f.kernel, X, -2.0 * (y - f(X)))

    return Functional("sum (y - f(x))^2", lambda f: float(np.sum((y - f(X)) ** 2)), gradient)


def regularised_squared_loss(X, y, lam):
    """``L[f] = sum_i (y_i - f(x_i))^2 + lam ||f||^2``.

    Its gradient is ``-2 sum_i (y_i - f(x_i)) K(x_i, .) + 2 lam f``.
    """
    lam = check_nonnegative(lam, "lam")
    loss, norm = squared_loss(X, y), squared_norm()
    return Functional("sum (y - f(x))^2 + lam ||f||^2",
                      lambda f: loss(f) + lam * norm(f),
                      lambda f: loss.gradient(f) + lam * norm.gradient(f))


def hinge_loss(X, y, lam=0.0):
    """``L[f] = sum_i max(0, 1 - y_i f(x_i)) + lam ||f||^2`` (the SVM objective).

    A subgradient is ``-sum_{i: y_i f(x_i) < 1} y_i K(x_i, .) + 2 lam f``: only the
    margin errors contribute.
    """
    X, y = _data(X, y, labels=True)
    lam = check_nonnegative(lam, "lam")

    def value(f):
        return float(np.sum(np.maximum(0.0, 1.0 - y * f(X))) + lam * f.inner(f))

    def gradient(f):
        errors = y * f(X) < 1.0
        return RKHSFunction(f.kernel, X, -y * errors) + 2.0 * lam * f

    return Functional("sum max(0, 1 - y f(x)) + lam ||f||^2", value, gradient)


def chain(C, dC, G, name=None):
    """The chain rule: ``grad C(G[f]) = C'(G[f]) grad G[f]`` for ``C: R -> R``.

    Parameters
    ----------
    C, dC : callable
        The outer function and its derivative.
    G : Functional
        The inner functional.

    Examples
    --------
    The lecture's example ``(||f||^2)^3`` has gradient ``3 (||f||^2)^2 (2 f)``:
    ``chain(lambda u: u ** 3, lambda u: 3 * u ** 2, squared_norm())``.
    """
    return Functional(name or f"C({G.name})", lambda f: float(C(G(f))),
                      lambda f: float(dC(G(f))) * G.gradient(f))


def finite_difference_check(E, f, g, eps=(1e-2, 1e-3, 1e-4)):
    """Check a functional gradient against its definition, in the direction ``g``.

    Returns, for each ``eps``, the relative error::

        |(E[f + eps g] - E[f]) - eps <grad E[f], g>| / |eps <grad E[f], g>|

    which is ``O(eps)`` for a correct gradient (and round-off for a linear functional).
    """
    predicted = E.gradient(f).inner(g)
    if predicted == 0.0:
        raise ValueError("the direction g is orthogonal to grad E[f]; pick another g")
    base = E(f)
    errors = []
    for e in eps:
        e = check_positive(e, "eps")
        errors.append(abs((E(f + e * g) - base) - e * predicted) / abs(e * predicted))
    return np.array(errors)


def _random_function(kernel, rng, m, d):
    return RKHSFunction(kernel, rng.normal(size=(m, d)), rng.normal(size=m))


def gradient_checks(kernel, eps=(1e-2, 1e-3, 1e-4), n_directions=5, d=2, seed=0):
    """Finite-difference checks of every functional gradient of the lecture.

    For each functional (``||f||^2``, ``f(x)``, the squared loss, the regularised
    squared loss, the hinge loss, the chain-rule example ``(||f||^2)^3``), draws a
    random ``f`` and ``n_directions`` random directions ``g`` (with their own centres,
    so ``g`` leaves the span of ``f``) and returns the largest relative error at
    each ``eps``.

    Returns
    -------
    dict
        name -> array of shape (len(eps),) of largest relative errors.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(8, d))
    y_real = rng.normal(size=8)
    y_sign = np.where(rng.random(8) < 0.5, -1.0, 1.0)
    functionals = [
        squared_norm(),
        evaluation(rng.normal(size=d)),
        squared_loss(X, y_real),
        regularised_squared_loss(X, y_real, lam=0.5),
        hinge_loss(X, y_sign, lam=0.5),
        chain(lambda u: u ** 3, lambda u: 3 * u ** 2, squared_norm(), name="(||f||^2)^3"),
    ]
    f = _random_function(kernel, rng, 6, d)
    results = {}
    for E in functionals:
        worst = np.zeros(len(eps))
        for _ in range(n_directions):
            g = _random_function(kernel, rng, 4, d)
            worst = np.maximum(worst, finite_difference_check(E, f, g, eps))
        results[E.name] = worst
    return results


def functional_gradient_descent(E, f0, eta, n_steps):
    """Batch functional gradient descent ``f <- f - eta grad E[f]``.

    Returns
    -------
    f : RKHSFunction
        The last iterate.
    values : ndarray of shape (n_steps + 1,)
        ``E[f_t]`` for ``t = 0 .. n_steps``.
    """
    eta = check_positive(eta, "eta")
    n_steps = check_positive_int(n_steps, "n_steps")
    f, values = f0, [E(f0)]
    for _ in range(n_steps):
        f = f + (-eta) * E.gradient(f)
        values.append(E(f))
    return f, np.array(values)


# ----------------------------------------------------------------------------- online machine

def _loss_and_derivative(loss, fx, y):
    """``l(f(x), y)`` and ``dl/df`` for the squared loss ``(y - f)^2`` or the hinge ``max(0, 1 - y f)``."""
    if loss == "squared":
        return (y - fx) ** 2, -2.0 * (y - fx)
    margin_error = y * fx < 1.0
    return max(0.0, 1.0 - y * fx), (-y if margin_error else 0.0)


def coefficient_update(loss, fx, y, eta, lam):
    """One online functional gradient step, as (shrink factor, weight of the new bump).

    The step ``f <- f - eta (l'(f(x_t), y_t) K(x_t, .) + 2 lam f)`` is::

        squared loss: f <- (1 - 2 eta lam) f + 2 eta (y_t - f(x_t)) K(x_t, .)
        hinge loss:   f <- (1 - 2 eta lam) f + eta y_t K(x_t, .)   if y_t f(x_t) < 1
                      f <- (1 - 2 eta lam) f                       otherwise

    Returns
    -------
    shrink : float
        ``1 - 2 eta lam``, multiplying every existing coefficient.
    c : float
        The coefficient of the new bump ``K(x_t, .)`` (0 when nothing is added).
    """
    _check_choice(loss, "loss", LOSSES)
    eta, lam = _check_step(eta, lam)
    _, dl = _loss_and_derivative(loss, float(fx), float(y))
    return 1.0 - 2.0 * eta * lam, -eta * dl


def _check_step(eta, lam):
    eta = check_positive(eta, "eta")
    lam = check_nonnegative(lam, "lam")
    if 2.0 * eta * lam > 1.0:
        raise ValueError(
            f"the shrink factor 1 - 2 eta lam must stay in [0, 1]; got eta={eta!r}, lam={lam!r} "
            f"(1 - 2 eta lam = {1 - 2 * eta * lam:.4g})")
    return eta, lam


def fit_online(kernel, X, y, loss="hinge", eta=0.1, lam=0.01, n_epochs=1, seed=None):
    """Online functional gradient descent over a fixed training set, one example at a time.

    Each visit of example ``t`` shrinks ``f`` by ``1 - 2 eta lam`` and adds the new bump
    to the coefficient ``alpha_t`` of ``K(x_t, .)`` (see :func:`coefficient_update`).
    Repeated visits of the same example accumulate on the same coefficient, so the
    result is a function on the training points whose ``alpha_t`` is exactly 0 for every
    example that never caused a step (for the hinge loss: never a margin error).

    Parameters
    ----------
    kernel : callable
    X : array (n, d)
    y : array (n,)
        Labels in {-1, +1} for the hinge loss, real targets for the squared loss.
    loss : {"hinge", "squared"}
    eta : float > 0
        Step size.
    lam : float >= 0
        Regularisation weight, with ``2 eta lam <= 1``.
    n_epochs : int >= 1
        Passes over the data.
    seed : int or None
        Visit the examples in a fresh random order each epoch (None: in order).

    Returns
    -------
    RKHSFunction
        Centres ``X`` and coefficients ``alpha`` (many zeros for the hinge loss).
    """
    _check_choice(loss, "loss", LOSSES)
    X, y = _data(X, y, labels=(loss == "hinge"))
    eta, lam = _check_step(eta, lam)
    n_epochs = check_positive_int(n_epochs, "n_epochs")
    kernel = as_kernel(kernel, X.shape[1])
    K = gram(kernel, X, X)
    alpha = np.zeros(X.shape[0])
    rng = None if seed is None else np.random.default_rng(seed)
    for _ in range(n_epochs):
        order = np.arange(X.shape[0]) if rng is None else rng.permutation(X.shape[0])
        for t in order:
            shrink, c = coefficient_update(loss, K[t] @ alpha, y[t], eta, lam)
            alpha *= shrink
            alpha[t] += c
    return RKHSFunction(kernel, X, alpha)


def hinge_kernel_machine(kernel, X, y, lam=0.01, eta=0.1, n_epochs=5, seed=0):
    """Hinge-loss (SVM) functional gradient descent; see :func:`fit_online`.

    Returns an :class:`RKHSFunction` on the training points; ``np.count_nonzero(f.alpha)``
    counts the examples that were ever margin errors, the rest have ``alpha_i = 0``.
    """
    return fit_online(kernel, X, y, loss="hinge", eta=eta, lam=lam, n_epochs=n_epochs, seed=seed)


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
        _check_kernel(default_kernel(self.kernel))
        _check_choice(self.loss, "loss", LOSSES)
        _check_choice(self.budget_rule, "budget_rule", BUDGET_RULES)
        _check_choice(self.schedule, "schedule", SCHEDULES)
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
    X_train, X_test = as_2d(X_train, "X_train"), as_2d(X_test, "X_test")
    rows = []
    for budget in list(budgets) + [None]:
        m = OnlineKernelMachine(kernel, loss=loss, eta=eta, lam=lam, budget=budget,
                                budget_rule=budget_rule).fit(X_train, y_train)
        rows.append({"budget": budget, "n_terms": len(m.alpha_), "score": _score(m, X_test, y_test),
                     "online_mistakes": int(m.mistakes_.sum()),
                     "predict_seconds": _time_prediction(m.function_, X_test, repeats)})
    full = rows[-1]["predict_seconds"]
    for row in rows:
        row["time_ratio"] = row["predict_seconds"] / full
    return rows


# ----------------------------------------------------------------------------- regret

def comparator_losses(f_star, X, y, loss="hinge", lam=0.0):
    """``C_t[f*] = l(f*(x_t), y_t) + lam ||f*||^2`` for each example of the stream."""
    _check_choice(loss, "loss", LOSSES)
    X, y = _data(X, y, labels=(loss == "hinge"))
    lam = check_nonnegative(lam, "lam")
    fx = f_star(X)
    losses = (y - fx) ** 2 if loss == "squared" else np.maximum(0.0, 1.0 - y * fx)
    return losses + lam * f_star.inner(f_star)


def regret_curve(machine, f_star, X, y):
    """Cumulative regret ``sum_{s <= t} (C_s[f_s] - C_s[f*])`` of a machine fitted on (X, y)."""
    machine._check_fitted()
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
    machine._check_fitted()
    if machine.schedule != "constant" or machine.budget is not None:
        raise ValueError("the bound is stated for a constant step and no budget; got "
                         f"schedule={machine.schedule!r}, budget={machine.budget!r}")
    eta = float(machine.eta)
    return f_star.inner(f_star) / (2 * eta) + eta / 2 * np.cumsum(machine.grad_norms_ ** 2)


# ----------------------------------------------------------------------------- representer theorem

def representer_minimiser(kernel, X, y, lam):
    """The minimiser of ``sum_i (y_i - f(x_i))^2 + lam ||f||^2`` over the whole RKHS.

    By the representer theorem it is ``f* = sum_i alpha_i K(x_i, .)`` with
    ``alpha = (K + lam I)^-1 y``: kernel ridge regression.
    """
    X, y = _data(X, y, labels=False)
    lam = check_positive(lam, "lam")
    kernel = as_kernel(kernel, X.shape[1])
    K = check_psd(gram(kernel, X, X), "kernel(X, X)")
    alpha = scipy.linalg.solve(K + lam * np.eye(X.shape[0]), y, assume_a="pos")
    return RKHSFunction(kernel, X, alpha)


def orthogonal_to_span(g, X):
    """The part of ``g`` orthogonal to ``span{K(x_i, .)}``: ``g - P g``.

    ``P g = sum_i beta_i K(x_i, .)`` with ``K beta = g(X)``, so the remainder vanishes at
    every ``x_i`` (``<g - P g, K(x_i, .)> = g(x_i) - (K beta)_i = 0``): it changes no loss
    term and only adds to ``||f||^2``.
    """
    X = g._as_inputs(X)
    beta = scipy.linalg.lstsq(g.kernel(X, X), g(X))[0]  # least squares: K may be near-singular
    return g - RKHSFunction(g.kernel, X, beta)


# ----------------------------------------------------------------------------- bandwidth (5.11)

def sample_sine(n, noise=0.3, rng=None):
    """``n`` points ``x ~ U[0, 1]`` with ``y = sin(2 pi x) + noise * N(0, 1)``; X has shape (n, 1)."""
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    rng = np.random.default_rng(rng)
    x = rng.uniform(0.0, 1.0, size=n)
    return x[:, None], np.sin(2 * np.pi * x) + noise * rng.normal(size=n)


def bandwidth_bias_variance(kernel, lam=0.01, n=30, noise=0.3, n_datasets=40, n_grid=100, seed=0):
    """Squared bias and variance of the regularised least-squares fit over many data sets.

    Fits :func:`representer_minimiser` to ``n_datasets`` fresh samples of
    :func:`sample_sine` and compares the fits on a grid of ``[0, 1]`` with the truth::

        bias^2   = mean_x (mean_D f_D(x) - sin(2 pi x))^2
        variance = mean_x var_D f_D(x)

    Returns
    -------
    dict
        ``grid`` (n_grid,), ``truth`` (n_grid,), ``fits`` (n_datasets, n_grid), ``bias2``, ``variance``.
    """
    n_datasets = check_positive_int(n_datasets, "n_datasets")
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.0, 1.0, check_positive_int(n_grid, "n_grid"))
    fits = np.array([representer_minimiser(kernel, *sample_sine(n, noise, rng), lam)(grid[:, None])
                     for _ in range(n_datasets)])
    truth = np.sin(2 * np.pi * grid)
    return {"grid": grid, "truth": truth, "fits": fits,
            "bias2": float(np.mean((fits.mean(axis=0) - truth) ** 2)),
            "variance": float(np.mean(fits.var(axis=0)))}


def bias_variance_sweep(gammas, lam=0.01, **kwargs):
    """:func:`bandwidth_bias_variance` for the RBF kernel at each ``gamma`` (same data sets).

    Returns
    -------
    dict of ndarray
        ``gamma``, ``bias2``, ``variance`` and ``total`` (``bias2 + variance``: the mean
        squared distance of the fits from the truth).
    """
    from .kernels import RBF

    gammas = np.array([check_positive(float(g), "gamma") for g in gammas])
    rows = [bandwidth_bias_variance(RBF(g), lam=lam, **kwargs) for g in gammas]
    bias2 = np.array([r["bias2"] for r in rows])
    variance = np.array([r["variance"] for r in rows])
    return {"gamma": gammas, "bias2": bias2, "variance": variance, "total": bias2 + variance}
