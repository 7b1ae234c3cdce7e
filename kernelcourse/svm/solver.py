"""The soft-margin SVM's math (lecture 7.1-7.7): the primal and dual objectives, the KKT
conditions, the offset, Platt's clipped pair step and SMO on a Gram matrix or on kernel rows
(the lecture's account is in :mod:`kernelcourse.svm`). The estimator and the cross-validation
that fits it are in :mod:`.estimator`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import (as_2d, as_labels, as_vector, check_choice, check_finite_real, check_nonnegative,
                           check_nonnegative_int, check_positive, check_positive_int, check_square,
                           check_symmetric)
from ..kernel_cache import GramRows as _GramRows, MatrixRows as _Matrix
from ..svm_bounds import (BOX_RTOL, _up_low, enclosing_ball_radius, geometric_margin, loo_bound,
                          offset_interval, radius_margin_bound)

__all__ = ["dual_objective", "primal_objective", "duality_gap", "decision_values", "kkt_violations",
           "kkt_groups", "violating_pair_gap", "offset", "offset_interval", "pair_step", "primal_w",
           "geometric_margin", "loo_bound", "radius_margin_bound", "enclosing_ball_radius",
           "SMORun", "smo", "smo_kernel"]

#: the curvature used when ``K_ii + K_jj - 2 K_ij`` is not positive (libsvm's TAU)
TAU = 1e-12
#: the selection rules of the pair
SELECTIONS = ("second_order", "max_violating")


# ---------------------------------------------------------------------------
# objectives, KKT conditions, offset
# ---------------------------------------------------------------------------

def _dual_inputs(alpha, K, y, C=None):
    K = check_square(K, "K")
    n = K.shape[0]
    y = as_labels(y, n)
    alpha = as_vector(alpha, "alpha", n, f"to match K of shape {K.shape}")
    if C is not None:
        C = check_positive(C, "C")
        if np.any(alpha < -1e-12) or np.any(alpha > C * (1 + 1e-12) + 1e-12):
            raise ValueError(f"alpha must lie in the box [0, C] = [0, {C:g}]; got min "
                             f"{alpha.min():.6g} and max {alpha.max():.6g}")
    return alpha, K, y, C


def dual_objective(alpha, K, y) -> float:
    """``sum_i a_i - 1/2 a^T Q a`` with ``Q = (y y^T) o K`` (7.3)."""
    alpha, K, y, _ = _dual_inputs(alpha, K, y)
    ay = alpha * y
    return float(alpha.sum() - 0.5 * ay @ K @ ay)


def decision_values(alpha, K, y, b=0.0) -> np.ndarray:
    """``f(x_i) = sum_j a_j y_j K_ji + b`` for the columns of ``K`` (training: ``K`` square).

    ``K`` has one row per training point; its columns are the points where ``f`` is read.
    """
    K = as_2d(K, "K")
    y = as_labels(y, K.shape[0])
    alpha = as_vector(alpha, "alpha", K.shape[0], f"to match the {K.shape[0]} rows of K")
    return (alpha * y) @ K + check_finite_real(b, "b")


_real = check_finite_real


def primal_objective(alpha, b, K, y, C) -> float:
    """``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i))`` at ``w = sum_i a_i y_i phi(x_i)`` (7.2)."""
    alpha, K, y, C = _dual_inputs(alpha, K, y, C)
    b = _real(b, "b")
    ay = alpha * y
    f = ay @ K
    return float(0.5 * ay @ f + C * np.maximum(0.0, 1.0 - y * (f + b)).sum())


def duality_gap(alpha, b, K, y, C) -> float:
    """Primal minus dual objective: ``>= 0`` for a feasible ``alpha``, ``0`` at the solution."""
    return primal_objective(alpha, b, K, y, C) - dual_objective(alpha, K, y)


def kkt_groups(alpha, C, atol: float = 0.0) -> np.ndarray:
    """Each multiplier's group: 0 for ``a_i = 0``, 1 for ``0 < a_i < C`` (free), 2 for ``a_i = C``.

    ``atol`` widens the bounds: ``a_i <= atol`` counts as 0 and ``a_i >= C - atol`` as C.
    """
    alpha = as_vector(alpha, "alpha")
    C = check_positive(C, "C")
    atol = check_nonnegative(atol, "atol")
    return np.where(alpha <= atol, 0, np.where(alpha >= C - atol, 2, 1))


def kkt_violations(alpha, b, K, y, C) -> np.ndarray:
    """How far each point is from its KKT condition (7.4), ``>= 0``, 0 where it holds.

    With the margin ``m_i = y_i f(x_i)``: ``a_i = 0`` needs ``m_i >= 1`` (violation
    ``max(0, 1 - m_i)``); ``0 < a_i < C`` needs ``m_i = 1`` (``|1 - m_i|``); ``a_i = C``
    needs ``m_i <= 1`` (``max(0, m_i - 1)``).
    """
    alpha, K, y, C = _dual_inputs(alpha, K, y, C)
    b = _real(b, "b")
    margin = y * ((alpha * y) @ K + b)
    group = np.where(alpha <= 0, 0, np.where(alpha >= C, 2, 1))
    return np.choose(group, [np.maximum(0.0, 1.0 - margin), np.abs(1.0 - margin),
                             np.maximum(0.0, margin - 1.0)])


def violating_pair_gap(alpha, K, y, C) -> float:
    """``m(a) - M(a) = max_{I_up} v - min_{I_low} v`` with ``v = y - f`` (libsvm's KKT gap).

    ``alpha`` satisfies the KKT conditions exactly when this is ``<= 0``; SMO stops
    when it is ``<= tol``. ``-inf`` when one of the sets is empty.
    """
    alpha, K, y, C = _dual_inputs(alpha, K, y, C)
    v = y - (alpha * y) @ K
    return _gap_from(v, *_up_low(alpha, y, C))


def _gap_from(v, up, low):
    if not up.any() or not low.any():
        return -np.inf
    return float(v[up].max() - v[low].min())


def _offset_from(v, alpha, y, C):
    eps = BOX_RTOL * C                      # within rounding of a bound is at the bound
    free = (alpha > eps) & (alpha < C - eps)
    if free.any():
        return float(v[free].mean())
    up, low = _up_low(alpha, y, C)
    # no free multiplier: b anywhere in [max_{I_up} v, min_{I_low} v] keeps the KKT
    # conditions; libsvm takes the midpoint
    hi = v[up].max() if up.any() else v[low].min()
    lo = v[low].min() if low.any() else v[up].max()
    return float(0.5 * (hi + lo))


def offset(alpha, K, y, C) -> float:
    """The offset ``b``: the mean of ``v_i = y_i - f_i`` over the free multipliers (7.4).

    With no free multiplier, the midpoint of ``max_{I_up} v`` and ``min_{I_low} v``,
    the interval of offsets that the bounded multipliers allow (libsvm's rule).
    """
    alpha, K, y, C = _dual_inputs(alpha, K, y, C)
    return _offset_from(y - (alpha * y) @ K, alpha, y, C)


def pair_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    """SMO's analytic step on the pair ``(i, j)`` in Platt's notation (7.6).

    ``E = f(x) + b - y`` are the errors, ``eta = K_ii + K_jj - 2 K_ij``. The new
    ``a_j = a_j + y_j (E_i - E_j) / eta`` is clipped to ``[L, H]``, the part of
    ``[0, C]`` where ``a_i`` too stays in the box along ``a_i y_i + a_j y_j = const``;
    then ``a_i`` moves by ``y_i y_j (a_j^old - a_j^new)``. Returns ``(a_i, a_j)``.
    """
    C = check_positive(C, "C")
    a_i, a_j = _real(alpha_i, "alpha_i"), _real(alpha_j, "alpha_j")
    y_i, y_j = (float(as_labels([v], 1, name)[0]) for v, name in ((y_i, "y_i"), (y_j, "y_j")))
    E_i, E_j = _real(E_i, "E_i"), _real(E_j, "E_j")
    eta = max(_real(eta, "eta"), TAU)
    if y_i != y_j:
        L, H = max(0.0, a_j - a_i), min(C, C + a_j - a_i)
    else:
        L, H = max(0.0, a_i + a_j - C), min(C, a_i + a_j)
    new_j = min(H, max(L, a_j + y_j * (E_i - E_j) / eta))
    return a_i + y_i * y_j * (a_j - new_j), new_j


def primal_w(alpha, X, y) -> np.ndarray:
    """``w = sum_i a_i y_i x_i`` for the linear kernel (7.3)."""
    X = as_2d(X, "X")
    y = as_labels(y, X.shape[0])
    alpha = as_vector(alpha, "alpha", X.shape[0], f"to match X of shape {X.shape}")
    return (alpha * y) @ X


# ---------------------------------------------------------------------------
# SMO
# ---------------------------------------------------------------------------

@dataclass
class SMORun:
    """What an SMO run found, and (with ``record=True``) what each step did.

    Attributes
    ----------
    alpha : array (n,), b : float
        The multipliers and the offset: ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``.
    n_iter : int
        Steps taken. ``converged``: the KKT gap reached ``tol`` within ``max_iter`` steps.
    gap : float
        ``m(a) - M(a)`` at the end.
    steps : dict of arrays or None
        With ``record=True``, one entry per step: ``i``, ``j`` (the pair), ``t_free``
        (the unclipped step), ``t`` (the step taken), ``clipped`` (whether the box cut it),
        ``alpha_i``, ``alpha_j`` (the new values), ``dual``, ``primal`` (objectives after the
        step, the primal with the offset of the current multipliers), ``duality_gap``,
        ``kkt_gap`` (``m - M`` after the step).
    """

    alpha: np.ndarray
    b: float
    n_iter: int
    converged: bool
    gap: float
    selection: str
    tol: float
    steps: dict | None = None
    kernel_rows: int = field(default=0)

    def support(self) -> np.ndarray:
        """Indices of the support vectors (``alpha_i > 0``)."""
        return np.flatnonzero(self.alpha > 0)


def _check_solver_args(C, tol, max_iter, selection):
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    check_choice(selection, "selection", SELECTIONS)
    return C, tol, max_iter


def smo(K, y, C=1.0, tol=1e-3, max_iter=1_000_000, selection="second_order", record=False) -> SMORun:
    """Solve the SVM dual on the Gram matrix ``K`` by SMO (7.6); returns an :class:`SMORun`.

    ``selection`` is ``"second_order"`` (Fan, Chen and Lin's choice of ``j``) or
    ``"max_violating"``; the run stops when ``m(a) - M(a) <= tol`` or after
    ``max_iter`` steps (with a warning). ``record=True`` keeps every step.
    ``K`` must be symmetric; it is not checked for positive semi-definiteness (an
    eigensolve would cost more than the solve): as in libsvm, a pair with
    ``eta <= 0`` takes the curvature ``TAU``, and an indefinite ``K`` gives a
    stationary point of a dual that is no longer concave.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    y = as_labels(y, K.shape[0])
    C, tol, max_iter = _check_solver_args(C, tol, max_iter, selection)
    return _smo(_Matrix(K), y, C, tol, max_iter, selection, bool(record))


def smo_kernel(kernel, X, y, C=1.0, tol=1e-3, max_iter=1_000_000, selection="second_order",
               record=False, cache_bytes=400_000_000, row_cache=256) -> SMORun:
    """SMO on ``kernel`` and the points ``X`` without a Gram matrix given (7.6).

    The solver asks for kernel rows as it needs them (rows of points that never enter
    a pair are never computed); all of them are kept when the Gram matrix's ``8 n^2``
    bytes fit ``cache_bytes``, otherwise the last ``row_cache`` in an LRU cache. Both
    take the same steps. ``kernel_rows`` of the result counts the rows computed.
    """
    from .._estimator import default_kernel  # with scikit-learn's base classes: only when called

    X = as_2d(X, "X")
    y = as_labels(y, X.shape[0])
    kernel = default_kernel(kernel, X.shape[1])
    C, tol, max_iter = _check_solver_args(C, tol, max_iter, selection)
    cache_bytes = check_nonnegative_int(cache_bytes, "cache_bytes")
    row_cache = check_positive_int(row_cache, "row_cache")
    rows = _GramRows(kernel, X, cache_bytes, max(2, row_cache))
    return _smo(rows, y, C, tol, max_iter, selection, bool(record))


def _smo(rows, y, C, tol, max_iter, selection, record):
    n = y.shape[0]
    alpha = np.zeros(n)
    v = y.copy()                 # v = y - f with f = sum_j a_j y_j K_j.: f = 0 at a = 0
    diag = rows.diag
    up = y > 0                   # I_up at a = 0: y = +1
    low = ~up                    # I_low at a = 0: y = -1
    second = selection == "second_order"
    steps = {k: [] for k in ("i", "j", "t_free", "t", "clipped", "alpha_i", "alpha_j", "dual",
                             "primal", "duality_gap", "kkt_gap")} if record else None
    converged = False
    gap = -np.inf
    it = 0
    if not up.any() or not low.any():
        raise ValueError(f"y must hold both labels -1 and +1; got only {np.unique(y).tolist()}")
    # work arrays, reused by every step (no allocation inside the loop)
    minus_inf, plus_inf = np.full(n, -np.inf), np.full(n, np.inf)
    vu, vl, work, eta = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    while True:
        np.copyto(vu, minus_inf)
        np.copyto(vu, v, where=up)           # v on I_up, -inf elsewhere
        i = int(vu.argmax())
        m = vu[i]
        np.copyto(vl, plus_inf)
        np.copyto(vl, v, where=low)          # v on I_low, +inf elsewhere
        j = int(vl.argmin())
        M = vl[j]
        gap = float(m - M)
        if gap <= tol:
            converged = True
            break
        if it >= max_iter:
            break
        K_i = rows.row(i)
        if second:
            # j maximises the gain (v_i - v_j)^2 / eta_ij over the j of I_low with v_j < v_i
            np.multiply(K_i, -2.0, out=eta)
            eta += diag
            eta += diag[i]
            np.maximum(eta, TAU, out=eta)    # a curvature <= 0 (TAU at most) becomes TAU
            np.subtract(m, vl, out=work)     # v_i - v_j; -inf outside I_low
            np.maximum(work, 0.0, out=work)  # no gain where v_j >= v_i
            work *= work
            work /= eta
            j = int(work.argmax())
        K_j = rows.row(j)
        eta_ij = diag[i] + diag[j] - 2.0 * K_i[j]
        if eta_ij <= 0:
            eta_ij = TAU
        t_free = (m - v[j]) / eta_ij
        # the box: a_i + y_i t in [0, C] and a_j - y_j t in [0, C], t >= 0
        bound_i = C - alpha[i] if y[i] > 0 else alpha[i]
        bound_j = alpha[j] if y[j] > 0 else C - alpha[j]
        t = t_free
        if t >= bound_i or t >= bound_j:
            t = min(bound_i, bound_j)
        ai = alpha[i] + y[i] * t
        aj = alpha[j] - y[j] * t
        if t == bound_i:
            ai = C if y[i] > 0 else 0.0
        if t == bound_j:
            aj = 0.0 if y[j] > 0 else C
        # a multiplier a rounding error from a bound is put on it (libsvm's is_upper_bound)
        snap = BOX_RTOL * C
        ai = 0.0 if ai <= snap else C if ai >= C - snap else ai
        aj = 0.0 if aj <= snap else C if aj >= C - snap else aj
        alpha[i], alpha[j] = ai, aj
        np.subtract(K_i, K_j, out=work)
        work *= t
        v -= work
        for k, a in ((i, ai), (j, aj)):
            up[k] = (a < C) if y[k] > 0 else (a > 0)
            low[k] = (a > 0) if y[k] > 0 else (a < C)
        it += 1
        if record:
            _record(steps, alpha, v, y, C, up, low, i, j, t_free, t, ai, aj)
    b = _offset_from(v, alpha, y, C)
    if not converged:
        warnings.warn(f"SMO stopped after max_iter={max_iter} steps with the KKT gap m - M = "
                      f"{gap:.3g} > tol = {tol:g}", RuntimeWarning, stacklevel=3)
    if record:
        steps = {k: np.asarray(val, dtype=int if k in ("i", "j") else bool if k == "clipped" else float)
                 for k, val in steps.items()}
    return SMORun(alpha=alpha, b=b, n_iter=it, converged=converged, gap=gap, selection=selection,
                  tol=tol, steps=steps, kernel_rows=rows.computed)


def _record(steps, alpha, v, y, C, up, low, i, j, t_free, t, ai, aj):
    """Objectives after a step in O(n), from v = y - f: a^T Q a = sum_i a_i y_i f_i."""
    f = y - v
    ay = alpha * y
    wsq = float(ay @ f)
    dual = float(alpha.sum() - 0.5 * wsq)
    b = _offset_from(v, alpha, y, C)
    primal = 0.5 * wsq + C * float(np.maximum(0.0, 1.0 - y * (f + b)).sum())
    for k, val in (("i", i), ("j", j), ("t_free", t_free), ("t", t), ("clipped", t != t_free),
                   ("alpha_i", ai), ("alpha_j", aj), ("dual", dual), ("primal", primal),
                   ("duality_gap", primal - dual), ("kkt_gap", _gap_from(v, up, low))):
        steps[k].append(val)


# ---------------------------------------------------------------------------
# model selection (7.8)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------
