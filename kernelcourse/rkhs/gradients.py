"""Functionals and their functional gradients, checked against the definition by finite
differences, and batch functional gradient descent (lecture 5.5-5.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._validation import as_positives, as_rng, check_callable, check_nonnegative, check_positive, check_positive_int
from ..kernels import as_kernel
from .functions import RKHSFunction, _check_function, _data, _point


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



def squared_norm():
    """``E[f] = ||f||^2``, with gradient ``grad E[f] = 2 f``."""
    return Functional("||f||^2", lambda f: f.inner(f), lambda f: 2.0 * f)



def evaluation(x):
    """The evaluation functional ``E_x[f] = f(x)``, with gradient ``K(x, .)``."""
    x = _point(x)
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
    check_callable(C, "C", ", a function R -> R")
    check_callable(dC, "dC", ", the derivative of C")
    _check_functional(G, "G")
    return Functional(name or f"C({G.name})", lambda f: float(C(G(f))),
                      lambda f: float(dC(G(f))) * G.gradient(f))



def _check_functional(E, name):
    """``E``, or a TypeError naming ``name`` when it is no functional with a gradient."""
    if not (callable(E) and callable(getattr(E, "gradient", None))):
        raise TypeError(f"{name} must be a Functional (callable, with a gradient); got {type(E).__name__}")
    return E


def finite_difference_check(E, f, g, eps=(1e-2, 1e-3, 1e-4)):
    """Check a functional gradient against its definition, in the direction ``g``.

    Returns, for each ``eps``, the relative error::

        |(E[f + eps g] - E[f]) - eps <grad E[f], g>| / |eps <grad E[f], g>|

    which is ``O(eps)`` for a correct gradient (and round-off for a linear functional).
    """
    _check_functional(E, "E")
    _check_function(f, "f")
    _check_function(g, "g")
    eps = as_positives(eps, "eps")
    predicted = E.gradient(f).inner(g)
    if predicted == 0.0:
        raise ValueError("the direction g is orthogonal to grad E[f]; pick another g")
    base = E(f)
    errors = []
    for e in eps:
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
    eps = as_positives(eps, "eps")
    n_directions = check_positive_int(n_directions, "n_directions")
    d = check_positive_int(d, "d")
    kernel = as_kernel(kernel, d)
    rng = as_rng(seed, "seed")
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
    _check_functional(E, "E")
    _check_function(f0, "f0")
    eta = check_positive(eta, "eta")
    n_steps = check_positive_int(n_steps, "n_steps")
    f, values = f0, [E(f0)]
    for _ in range(n_steps):
        f = f + (-eta) * E.gradient(f)
        values.append(E(f))
    return f, np.array(values)
