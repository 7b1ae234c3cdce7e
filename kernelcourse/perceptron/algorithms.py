"""The perceptron on arrays (lecture 3.10-3.11): the primal and the dual runs, the radius, the
margin and Novikoff's bound, as :mod:`kernelcourse.perceptron`'s docstring states them. None
imports scikit-learn.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import (as_2d, as_finite, as_labels, as_rng, as_vector, check_finite_real, check_nonnegative,
                           check_positive_int, check_square)

__all__ = [
    "feature_radius",
    "margin_of",
    "novikoff_bound",
    "PerceptronRun",
    "dual_perceptron",
    "primal_perceptron",
]


def feature_radius(K) -> float:
    """``R = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i))`` from the Gram matrix (or its diagonal).

    Parameters
    ----------
    K : array (m, m) Gram matrix, or array (m,) holding its diagonal.
    """
    K = as_finite(K, "K")
    diag = np.diag(check_square(K, "K")) if K.ndim == 2 else K
    if diag.ndim != 1 or diag.size == 0:
        raise ValueError(f"K must be a square Gram matrix or its diagonal; got shape {K.shape}")
    if np.any(diag < 0):
        raise ValueError(f"k(x, x) must be non-negative for a kernel; got min {diag.min()!r}")
    return float(np.sqrt(diag.max()))


def margin_of(projections, y) -> float:
    """``gamma = min_i y_i <w*, phi(x_i)>`` from the projections ``s_i = <w*, phi(x_i)>``.

    ``w*`` must have unit norm for ``gamma`` to be the geometric margin.
    """
    s = as_vector(projections, "projections")
    y = as_labels(y, s.shape[0])
    return float(np.min(y * s))


def novikoff_bound(R: float, gamma: float) -> float:
    """Novikoff's bound ``R^2 / gamma^2`` on the number of perceptron updates.

    Parameters
    ----------
    R : float
        ``max_i ||phi(x_i)||``, i.e. ``max_i sqrt(k(x_i, x_i))`` (note the square root).
    gamma : float > 0
        Margin of a unit-norm separator: ``y_i <w*, phi(x_i)> >= gamma`` for all i.
    """
    R = check_nonnegative(R, "R")
    if not check_finite_real(gamma, "gamma") > 0:
        raise ValueError(f"Novikoff's bound needs a positive margin; got gamma={gamma!r} "
                         f"(the data are not separated by the given w*)")
    return R ** 2 / float(gamma) ** 2


@dataclass
class PerceptronRun:
    """What a run of the (dual) perceptron did, update by update.

    Attributes
    ----------
    alpha : array (m,)
        Dual coefficients: ``w = sum_i alpha_i phi(x_i)``; each ``alpha_i`` is
        ``y_i`` times the number of updates on example i.
    updates : array (T,)
        Index j of the example used at update t = 1..T.
    norm_sq : array (T,)
        ``||w_t||^2`` after update t.
    alignment : array (T,) or None
        ``<w*, w_t>`` after update t, when the projections on ``w*`` were given.
    R, gamma : float
        ``max_i sqrt(k(x_i, x_i))`` and (when ``w*`` was given) ``min_i y_i <w*, phi(x_i)>``.
    converged : bool
        True when the last epoch made no mistake.
    epochs : int
        Passes over the data.
    """

    alpha: np.ndarray
    updates: np.ndarray
    norm_sq: np.ndarray
    alignment: np.ndarray | None
    R: float
    gamma: float | None
    converged: bool
    epochs: int
    t: np.ndarray = field(init=False)

    def __post_init__(self):
        self.t = np.arange(1, len(self.updates) + 1)

    @property
    def n_updates(self) -> int:
        return int(len(self.updates))

    @property
    def bound(self) -> float | None:
        """``R^2 / gamma^2``, or None without a separator."""
        return None if self.gamma is None else novikoff_bound(self.R, self.gamma)

    def norm_inequality_holds(self, rtol: float = 1e-9) -> bool:
        """``||w_t||^2 <= t R^2`` at every update."""
        return bool(np.all(self.norm_sq <= self.t * self.R**2 * (1 + rtol) + rtol))

    def alignment_inequality_holds(self, rtol: float = 1e-9) -> bool:
        """``<w*, w_t> >= t gamma`` at every update (needs the separator)."""
        if self.alignment is None:
            raise ValueError("no separator was given: pass w_star_projections to the run")
        return bool(np.all(self.alignment >= self.t * self.gamma * (1 - rtol) - rtol))


def _epoch_orders(m, max_epochs, order, random_state):
    if order is not None:
        order = np.asarray(order)
        if order.dtype.kind not in "iu" or order.ndim != 1 or sorted(order.tolist()) != list(range(m)):
            raise ValueError(f"order must be a permutation of range({m}), as integers; got dtype "
                             f"{order.dtype} and shape {order.shape}: {order.ravel()[:10].tolist()}...")
    rng = None if random_state is None else as_rng(random_state)
    for _ in range(max_epochs):
        if rng is not None:
            yield rng.permutation(m)
        else:
            yield np.arange(m) if order is None else order


def dual_perceptron(K, y, max_epochs: int = 1000, order=None, random_state=None,
                    w_star_projections=None) -> PerceptronRun:
    """Run the dual (kernel) perceptron on a Gram matrix, recording every update.

    ``alpha = 0``; for each example j in turn, if
    ``y_j sum_i alpha_i k(x_i, x_j) <= 0`` then ``alpha_j <- alpha_j + y_j``.
    Epochs repeat until one makes no mistake or ``max_epochs`` is reached.

    Parameters
    ----------
    K : array (m, m)
        Gram matrix ``k(x_i, x_j)``.
    y : array (m,)
        Labels in {-1, +1}.
    max_epochs : int, default 1000
    order : array (m,), optional
        The permutation of the examples used in every epoch (default 0..m-1).
    random_state : int or Generator, optional
        If given, each epoch uses a fresh random permutation (``order`` is ignored).
    w_star_projections : array (m,), optional
        ``s_i = <w*, phi(x_i)>`` for a unit-norm separator ``w*``; then the run
        records ``<w*, w_t> = sum_i alpha_i s_i`` and ``gamma = min_i y_i s_i``.

    Returns
    -------
    PerceptronRun
    """
    K = check_square(K, "K")
    m = K.shape[0]
    y = as_labels(y, m)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    s = None
    if w_star_projections is not None:
        s = as_finite(w_star_projections, "w_star_projections")
        if s.shape != (m,):
            raise ValueError(f"w_star_projections must have shape ({m},); got {s.shape}")
    alpha = np.zeros(m)
    f = np.zeros(m)            # f = K alpha: the current outputs <w_t, phi(x_i)>
    norm_sq, updates, norms, aligns = 0.0, [], [], []
    converged, epochs = False, 0
    for idx in _epoch_orders(m, max_epochs, order, random_state):
        epochs += 1
        mistakes = 0
        for j in idx:
            if y[j] * f[j] > 0:
                continue
            # ||w + y_j phi_j||^2 = ||w||^2 + 2 y_j <w, phi_j> + k(x_j, x_j)
            norm_sq += 2 * y[j] * f[j] + K[j, j]
            alpha[j] += y[j]
            f += y[j] * K[:, j]
            mistakes += 1
            updates.append(j)
            norms.append(norm_sq)
            if s is not None:
                aligns.append(alpha @ s)
        if mistakes == 0:
            converged = True
            break
    return PerceptronRun(
        alpha=alpha, updates=np.array(updates, dtype=int), norm_sq=np.array(norms),
        alignment=None if s is None else np.array(aligns), R=feature_radius(K),
        gamma=None if s is None else margin_of(s, y), converged=converged, epochs=epochs)


def primal_perceptron(X, y, max_epochs: int = 1000, order=None, random_state=None):
    """The primal perceptron: ``w <- w + y_j x_j`` whenever ``y_j <w, x_j> <= 0``.

    Returns
    -------
    w : array (d,)
    updates : array (T,) of example indices, one per update
    converged : bool
    """
    X = as_2d(X, "X")
    y = as_labels(y, X.shape[0])
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    w = np.zeros(X.shape[1])
    updates, converged = [], False
    for idx in _epoch_orders(X.shape[0], max_epochs, order, random_state):
        mistakes = 0
        for j in idx:
            if y[j] * (X[j] @ w) <= 0:
                w += y[j] * X[j]
                updates.append(j)
                mistakes += 1
        if mistakes == 0:
            converged = True
            break
    return w, np.array(updates, dtype=int), converged


