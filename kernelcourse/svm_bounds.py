"""Margins and generalisation (lecture 7.9): the margin, the leave-one-out bound, the radius of
the smallest ball enclosing the data in feature space and the radius-margin bound, and the
interval of offsets the KKT conditions allow.

* **Leave-one-out** (Vapnik 1995). Leaving out a point with ``a_i = 0`` leaves the other
  multipliers optimal for the smaller problem. When the solution is unique (for instance when
  some ``0 < a_k < C`` fixes the offset) the refit returns the same ``(w, b)`` and the point is
  still classified as before, so the number of leave-one-out errors is at most ``#{a_i > 0}``.
  In expectation over training sets of size ``n`` it holds without uniqueness:
  ``E[err(f_{n-1})] <= E[#SV_n] / n`` (counting the essential support vectors, those with
  ``a_i > 0`` in every solution).
* **Radius and margin** (Vapnik 1998; Chapelle, Vapnik, Bousquet and Mukherjee 2002). For the
  *hard-margin* SVM, the number of leave-one-out errors is at most ``4 R^2 ||w||^2``, with ``R``
  the radius of the smallest ball enclosing the ``phi(x_i)``. It does not hold for the L1 soft
  margin of this lecture (Chung, Kao, Sun, Wang and Lin 2003).
"""
from __future__ import annotations

import numpy as np

from ._validation import (as_labels, as_vector, check_nonnegative, check_positive,
                          check_positive_int, check_square, check_symmetric)

__all__ = ["geometric_margin", "loo_bound", "enclosing_ball_radius", "radius_margin_bound",
           "offset_interval"]

#: a multiplier within ``BOX_RTOL * C`` of 0 or of C is at the bound, not free (7.4): a step
#: clipped at one multiplier's bound can leave the other one a rounding error inside the box
BOX_RTOL = 1e-12


def _up_low(alpha, y, C):
    """``I_up`` and ``I_low`` (7.6), a multiplier within rounding of a bound counted at it."""
    eps = BOX_RTOL * C
    below_C, above_0 = alpha < C - eps, alpha > eps
    up = ((y > 0) & below_C) | ((y < 0) & above_0)
    low = ((y > 0) & above_0) | ((y < 0) & below_C)
    return up, low


def _inputs(alpha, K, y):
    K = check_square(K, "K")
    y = as_labels(y, K.shape[0])
    alpha = as_vector(alpha, "alpha", K.shape[0], f"to match K of shape {K.shape}")
    return alpha, K, y


def geometric_margin(alpha, K, y) -> float:
    """``1 / ||w||`` with ``||w||^2 = a^T Q a`` (7.1): the distance from the hyperplane to the margin."""
    alpha, K, y = _inputs(alpha, K, y)
    ay = alpha * y
    norm_sq = float(ay @ K @ ay)
    if not norm_sq > 0:
        raise ValueError(f"the margin needs w != 0; got ||w||^2 = {norm_sq:.3g} (all alpha zero?)")
    return 1.0 / np.sqrt(norm_sq)


def loo_bound(alpha, atol: float = 0.0) -> float:
    """``#SV / n`` (7.9): the leave-one-out error rate is at most this when the solution is unique
    (only a support vector can be lost when left out), and in expectation always."""
    alpha = as_vector(alpha, "alpha")
    atol = check_nonnegative(atol, "atol")
    return float(np.count_nonzero(alpha > atol) / alpha.shape[0])


def enclosing_ball_radius(K, tol: float = 1e-10, max_iter: int = 100_000) -> float:
    """The squared radius ``R^2`` of the smallest ball enclosing the points ``phi(x_i)`` (7.9).

    ``R^2 = max_beta sum_i beta_i K_ii - beta^T K beta`` over the simplex (``beta >= 0``,
    ``sum_i beta_i = 1``), whose maximiser gives the centre ``sum_i beta_i phi(x_i)``. Solved
    by pairwise steps on the simplex (mass moves from the point of smallest gradient with
    ``beta_j > 0`` to the one of largest), exact along each pair, until the gap between the two
    gradients is below ``tol``. Unlike ``max_i K_ii`` it is invariant under translation.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    d = np.diag(K).copy()
    n = K.shape[0]
    beta = np.zeros(n)
    beta[int(np.argmax(d))] = 1.0
    Kb = K @ beta
    for _ in range(max_iter):
        G = d - 2.0 * Kb                  # the gradient of the concave objective
        i = int(np.argmax(G))
        j = int(np.argmin(np.where(beta > 0, G, np.inf)))
        if G[i] - G[j] <= tol:
            break
        eta = K[i, i] + K[j, j] - 2.0 * K[i, j]
        t = beta[j] if eta <= 0 else min(beta[j], (G[i] - G[j]) / (2.0 * eta))
        beta[i] += t
        beta[j] -= t
        Kb += t * (K[:, i] - K[:, j])
    return float(max(beta @ d - beta @ Kb, 0.0))


def radius_margin_bound(alpha, K, y) -> float:
    """``4 R^2 ||w||^2 / n`` (7.9), ``R`` the radius of the smallest ball enclosing the data.

    For the hard-margin SVM it bounds the leave-one-out error rate (Vapnik 1998; Chapelle et al.
    2002); for the soft margin it is a number, not a bound. Above 1 it says nothing.
    """
    alpha, K, y = _inputs(alpha, K, y)
    return 4.0 * enclosing_ball_radius(K) / geometric_margin(alpha, K, y) ** 2 / K.shape[0]


def offset_interval(alpha, K, y, C) -> tuple[float, float]:
    """The offsets ``b`` the KKT conditions allow for these multipliers (7.4): ``(m, M)`` with
    ``m = max_{I_up} v`` and ``M = min_{I_low} v``, ``v = y - f``.

    A point with ``a_i = 0`` and ``y_i = +1`` needs ``b >= v_i``, with ``y_i = -1`` it needs
    ``b <= v_i``; at the box the inequalities turn; a free point needs ``b = v_i``. At the
    optimum ``m <= M``; with a free multiplier the interval is one point, with none it can
    be wide, and libsvm takes its midpoint. A set that is empty leaves its end infinite.
    """
    alpha, K, y = _inputs(alpha, K, y)
    C = check_positive(C, "C")
    v = y - (alpha * y) @ K
    up, low = _up_low(alpha, y, C)
    return (float(v[up].max()) if up.any() else -np.inf, float(v[low].min()) if low.any() else np.inf)
