"""Functions in a reproducing kernel Hilbert space, and gradient descent on them.

Lecture 5 (Drew Bagnell's scribed notes on functional gradient descent) learns a function
rather than a weight vector. The functions it computes with are weighted sums of kernel
"bumps"::

    f(.) = sum_i alpha_i K(x_i, .)

whose completion under the norm ``sqrt(alpha^T K alpha)`` is the RKHS ``H_K`` of the
kernel ``K`` (Moore-Aronszajn, 5.12).

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

Where each part lives: ``functions`` (the functions of the RKHS, the representer
theorem: 5.1-5.4, 5.9), ``gradients`` (functionals, functional gradients, batch
functional gradient descent: 5.5-5.6), ``updates`` (the coefficient update and training with it:
5.7-5.8), ``online`` (the online kernel machine, budgets, regret: 5.7-5.8, 5.10), ``bandwidth`` (bias and variance against the bandwidth: 5.11),
``mercer`` (the kernel operator's eigenfunctions from the Gram matrix: 5.13); the RKHS as a
completion (5.12) is in ``functions``.
Every public name is imported from ``kernelcourse.rkhs`` itself; ``online``'s are loaded when first
asked for (PEP 562), since its estimator's base class imports scikit-learn.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .bandwidth import bandwidth_bias_variance, bias_variance_sweep, median_heuristic, sample_sine
# the choices are shared with the lecture 5 widgets
from .functions import (BUDGET_RULES, LOSSES, SCHEDULES, RKHSFunction, evaluation_bound, inner_by_evaluation,
                        kernel_section, orthogonal_to_span, projection_onto_span, rbf_bump_integral,
                        rbf_bump_integral_norm, representer_minimiser, riemann_bumps)
from .updates import coefficient_update, fit_online, hinge_kernel_machine
from .mercer import (MercerEstimate, gaussian_mercer_eigenfunctions, gaussian_mercer_eigenvalues,
                     mercer_from_sample)
from .gradients import (Functional, chain, evaluation, finite_difference_check, functional_gradient_descent,
                        gradient_checks, hinge_loss, regularised_squared_loss, squared_loss, squared_norm)

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
    "median_heuristic",
    "projection_onto_span",
    "inner_by_evaluation",
    "evaluation_bound",
    "riemann_bumps",
    "rbf_bump_integral",
    "rbf_bump_integral_norm",
    "MercerEstimate",
    "mercer_from_sample",
    "gaussian_mercer_eigenvalues",
    "gaussian_mercer_eigenfunctions",
]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .online import OnlineKernelMachine, budget_tradeoff, comparator_losses, regret_bound, regret_curve

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (OnlineKernelMachine's base classes), which the bandwidth and the
#: functions of the RKHS (what lectures 5 and 9 check first) never need
_LAZY = dict.fromkeys(("OnlineKernelMachine", "budget_tradeoff", "comparator_losses",
                       "regret_bound", "regret_curve"), "online")

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
