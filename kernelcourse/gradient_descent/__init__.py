"""Kernelised gradient descent with the squared loss (lecture 1.2-1.4).

Gradient descent on the squared loss

.. math:: \\ell(w) = \\sum_{i=1}^n (w^\\top \\phi(x_i) - y_i)^2

with step size ``s`` updates

.. math:: w_{t+1} = w_t - s \\sum_{i=1}^n \\gamma_i^t \\phi(x_i),
   \\qquad \\gamma_i^t = 2 (w_t^\\top \\phi(x_i) - y_i).

Started at ``w_0 = 0``, every ``w_t`` is a combination of the inputs,
``w_t = sum_i alpha_i^t phi(x_i)`` (by induction: each step adds a
combination of the ``phi(x_i)``), and since ``w_t . phi(x_i) = (K alpha^t)_i``
with the kernel matrix ``K_ij = phi(x_i) . phi(x_j)``, the same run can be
made on the coefficients alone:

.. math:: \\alpha^{t+1} = \\alpha^t - 2 s (K \\alpha^t - y),

at ``O(n^2)`` per step whatever the dimension of ``phi``. Predictions need only
the kernel: ``h(x) = w^T phi(x) = sum_j alpha_j k(x_j, x)``.

This package holds both runs, so they can be set side by side (the runs in ``descent``, the
estimator in ``estimator``, every name imported from ``kernelcourse.gradient_descent``):

* :func:`kernel_gradient_descent` on a Gram matrix (the dual run, alpha),
* :func:`primal_gradient_descent` on explicit features (the primal run, w),
* :class:`KernelGD`, an estimator in scikit-learn's manner that takes a kernel
  object from :mod:`kernelcourse.kernels`, records the path of ``alpha`` and,
  when the kernel has a finite feature map, the path of ``w_t = Phi^T alpha_t``.

Convergence: the residual ``r_t = K alpha_t - y`` obeys
``r_{t+1} = (I - 2 s K) r_t``, so the run is stable exactly when
``s < 1 / lambda_max(K)`` (:func:`largest_stable_step`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .descent import (GDRun, decision_function, dual_gradient, kernel_gd_step, kernel_gradient_descent,
                      largest_stable_step, primal_gd_step, primal_gradient_descent, squared_loss,
                      w_from_alpha)

__all__ = [
    "squared_loss",
    "dual_gradient",
    "kernel_gd_step",
    "primal_gd_step",
    "largest_stable_step",
    "kernel_gradient_descent",
    "primal_gradient_descent",
    "w_from_alpha",
    "decision_function",
    "GDRun",
    "KernelGD",
]


if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import KernelGD

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes), which the functions (what exercise set 1 checks)
#: never need
_LAZY = {"KernelGD": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
