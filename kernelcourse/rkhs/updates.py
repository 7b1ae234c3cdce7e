"""The online kernel machine's coefficient update for the squared and hinge losses, and the
functions that train with it (lecture 5.7-5.8): apart from :mod:`.online`, whose estimator class
imports scikit-learn, so that a check of these functions never loads it."""

from __future__ import annotations

import numpy as np

from .._validation import (as_rng, gram, check_choice, check_finite_real, check_nonnegative,
                           check_positive, check_positive_int)
from ..kernels import as_kernel
from .functions import LOSSES, RKHSFunction, _data

__all__ = ["coefficient_update", "fit_online", "hinge_kernel_machine"]


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
    check_choice(loss, "loss", LOSSES)
    eta, lam = _check_step(eta, lam)
    _, dl = _loss_and_derivative(loss, check_finite_real(fx, "fx"), check_finite_real(y, "y"))
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
    check_choice(loss, "loss", LOSSES)
    X, y = _data(X, y, labels=(loss == "hinge"))
    eta, lam = _check_step(eta, lam)
    n_epochs = check_positive_int(n_epochs, "n_epochs")
    kernel = as_kernel(kernel, X.shape[1])
    K = gram(kernel, X, X)
    alpha = np.zeros(X.shape[0])
    rng = None if seed is None else as_rng(seed, "seed")
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
