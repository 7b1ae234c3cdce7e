"""Support vector machines: the soft-margin primal and dual, the KKT conditions, and SMO.

Lecture 7, sections 7.1-7.10. With labels ``y_i`` in {-1, +1}, a kernel ``k`` and
the box ``C > 0``, the soft-margin primal is

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i,  y_i (<w, phi(x_i)> + b) >= 1 - xi_i,  xi_i >= 0,

that is ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i))``, a regularised hinge loss.
Its dual, in which the kernel enters through ``Q = (y y^T) o K`` only, is

    max_a  sum_i a_i - 1/2 a^T Q a,   0 <= a_i <= C,   sum_i a_i y_i = 0,

and ``w = sum_i a_i y_i phi(x_i)``. The course writes ``f_i = sum_j a_j y_j k(x_j, x_i)``
(the decision value without its offset) and ``v_i = y_i - f_i``; the offset ``b``
makes ``y_i (f_i + b) = 1`` on the margin, so there ``b = v_i``.

SMO (Platt 1998) changes two multipliers at a time along the one direction that
keeps ``sum_i a_i y_i = 0``: ``a_i += y_i t``, ``a_j -= y_j t``. Along it the dual
is a parabola in ``t`` with curvature ``eta = K_ii + K_jj - 2 K_ij`` whose top is at
``t = (v_i - v_j) / eta``; the step is clipped so both multipliers stay in
``[0, C]``. The pair comes from the sets

    I_up  = {i : y_i = +1, a_i < C} u {i : y_i = -1, a_i > 0}   (a_i y_i can grow)
    I_low = {j : y_j = +1, a_j > 0} u {j : y_j = -1, a_j < C}   (a_j y_j can shrink)

and the KKT conditions hold exactly when ``m(a) = max_{I_up} v <= M(a) = min_{I_low} v``;
the solver stops when ``m(a) - M(a) <= tol`` (libsvm's rule, Fan, Chen and Lin 2005).
The maximal violating pair takes ``i = argmax_{I_up} v`` and ``j = argmin_{I_low} v``;
the second-order choice keeps ``i`` and takes the ``j`` whose step gains the most dual
objective, ``(v_i - v_j)^2 / eta_ij``. The offset is the mean of ``v`` over the free
multipliers (``0 < a_i < C``), or the midpoint of the interval the bounded ones leave
when none is free, as libsvm computes it.
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._estimator import (Classifier, check_fitted, check_X, check_y_given, default_kernel,
                         _as_1d_y)
from ._validation import (as_2d, as_labels, as_positives, as_rng, as_vector, check_choice,
                          check_finite_real, check_nonnegative, check_nonnegative_int, check_positive,
                          check_positive_int, check_square, check_symmetric, gram)
from .kernel_cache import GramRows as _GramRows, MatrixRows as _Matrix
from .kernels import RBF
from .svm_bounds import (BOX_RTOL, _up_low, enclosing_ball_radius, geometric_margin, loo_bound,
                         offset_interval, radius_margin_bound)

__all__ = [
    "dual_objective",
    "primal_objective",
    "duality_gap",
    "decision_values",
    "kkt_violations",
    "kkt_groups",
    "violating_pair_gap",
    "offset",
    "offset_interval",
    "pair_step",
    "primal_w",
    "geometric_margin",
    "loo_bound",
    "radius_margin_bound",
    "enclosing_ball_radius",
    "SMORun",
    "smo",
    "smo_kernel",
    "cross_validate_svm",
    "SupportVectorClassifier",
]

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


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

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
