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

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .solver import (SELECTIONS, SMORun, TAU, decision_values, dual_objective, duality_gap,
                     enclosing_ball_radius, geometric_margin, kkt_groups, kkt_violations, loo_bound,
                     offset, offset_interval, pair_step, primal_objective, primal_w,
                     radius_margin_bound, smo, smo_kernel, violating_pair_gap)

__all__ = ["dual_objective", "primal_objective", "duality_gap", "decision_values", "kkt_violations",
           "kkt_groups", "violating_pair_gap", "offset", "offset_interval", "pair_step", "primal_w",
           "geometric_margin", "loo_bound", "radius_margin_bound", "enclosing_ball_radius",
           "SMORun", "smo", "smo_kernel", "cross_validate_svm", "SupportVectorClassifier"]


if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import SupportVectorClassifier, cross_validate_svm

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes), which the functions (what exercise set 7 checks)
#: never need
_LAZY = {"cross_validate_svm": "estimator", "SupportVectorClassifier": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
