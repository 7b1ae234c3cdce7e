"""Dual representations of MAP estimates (lecture 4, syllabus 4.1-4.4 and 4.8).

The lecture's parametrisation, used by every function here:

* linear regression: ``P(y | x, w, sigma) = N(y; w^T x, sigma^2)``, so ``sigma`` is the
  noise *standard deviation* and ``sigma**2`` the noise variance;
* the prior: ``P(w | lambda) = prod_j N(w_j; 0, lambda^2)``, so ``lam`` is the prior
  *standard deviation* and ``lam**2`` the prior variance;
* logistic regression: ``P(y | x, w) = 1 / (1 + exp(-y w^T x))`` with labels ``y`` in {-1, +1}
  and the same prior.

The MAP estimate of linear regression minimises

    1/(2 sigma^2) sum_i (w^T x_i - y_i)^2 + 1/(2 lambda^2) w^T w,

which is ridge regression with penalty ``sigma^2 / lambda^2`` (the ``ridge_ratio``). Its
stationarity condition writes ``w = sum_i alpha_i x_i = X^T alpha`` with
``alpha_i = (lambda^2 / sigma^2) (y_i - w^T x_i)``, and minimising the objective over
``alpha`` with ``K = X X^T`` gives ``alpha = (K + sigma^2/lambda^2 I)^-1 y``.

Functions take plain arrays; a Gram matrix ``K`` can come from any kernel object of
``kernelcourse.kernels`` (``K = k(X)``), which is the kernel trick.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .map_estimates import (alpha_sparsity, dual_predict, hinge_objective, kernel_trick_costs,
                            logistic_probability, map_hinge_dual, map_linear_alpha, map_linear_dual,
                            map_linear_dual_objective, map_linear_objective, map_linear_primal,
                            map_logistic_alpha, map_logistic_objective, map_logistic_primal,
                            ridge_ratio)

__all__ = ["ridge_ratio", "map_linear_objective", "map_linear_primal", "map_linear_alpha",
           "map_linear_dual", "map_linear_dual_objective", "dual_predict", "MAPRegression",
           "logistic_probability", "map_logistic_objective", "map_logistic_primal",
           "map_logistic_alpha", "kernel_trick_costs", "hinge_objective", "map_hinge_dual",
           "alpha_sparsity"]


if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import MAPRegression

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes), which the functions (what exercise set 4 checks)
#: never need
_LAZY = {"MAPRegression": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
