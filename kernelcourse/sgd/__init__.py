"""Kernel SGD in the dual and the six ways to learn with a kernel (lecture 2.1-2.7, 2.10).

SGD on ``f(w) = (1/n) sum_i loss(w . phi(x_i); y_i)`` from ``w_0 = 0`` samples an
index ``i_t`` and steps

    w_{t+1} = w_t - alpha * loss'(w_t . phi(x_{i_t}); y_{i_t}) * phi(x_{i_t}).

Every ``w_t`` stays in the span of the ``phi(x_i)``: ``w_t = sum_i u_i phi(x_i)``,
and the same step changes only the sampled coordinate of ``u``,

    u_{i_t} <- u_{i_t} - alpha * loss'(sum_j K(x_{i_t}, x_j) u_j; y_{i_t}),

with ``K(x, z) = phi(x) . phi(z)``. The lecture's four exact ways to run this
differ only in what they compute when, and given the same sampled indices they
train the same model:

===================  ========================================  ==================  ============
``way``              what it does                              computation         memory
===================  ========================================  ==================  ============
``features``         phi(x_i) on the fly, SGD on w             d D T               D
``cached_features``  all phi(x_i) first, SGD on w              n d D + D T         n D
``kernel``           K(x_i, x_j) on the fly, SGD on u          n d T               n
``gram``             the Gram matrix G first, SGD on u         n^2 d + n T         n^2
``rff``              random features psi(x_i) on the fly       d D + d D T         d D + D
``rff_cached``       all psi(x_i) first                        n d D + D T         n D + d D
===================  ========================================  ==================  ============

(memory on top of the training set, ``n d``). The last two learn with the random
Fourier features of :mod:`kernelcourse.random_features`, an approximation of the
RBF kernel, so they train a nearby model rather than the same one. The table's
costs, their measurement and the lecture's timed demo are in :mod:`kernelcourse.cost_model`.

Losses, with ``z = w . phi(x)`` and labels ``y``:

* ``'logistic'``: ``loss(z; y) = log(1 + exp(-y z))``, ``loss' = -y / (1 + exp(y z))`` (labels +-1);
* ``'squared'``: ``loss(z; y) = (z - y)^2 / 2``, ``loss' = z - y``.

Where each part lives: ``ways`` (the functions, one per way) and ``estimator``
(:class:`KernelSGD`). Every public name is imported from ``kernelcourse.sgd`` itself; the
estimator is loaded when first asked for (PEP 562), since its base classes import scikit-learn,
which the functions (what exercise set 2 checks) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .ways import (EXACT_WAYS, WAYS, dual_sgd_step, logistic_derivative, sample_indices, sgd_cached_features,
                   sgd_features_on_the_fly, sgd_gram, sgd_kernel_on_the_fly, squared_derivative)

__all__ = [
    "WAYS", "EXACT_WAYS", "logistic_derivative", "squared_derivative", "sample_indices",
    "dual_sgd_step", "sgd_gram", "sgd_kernel_on_the_fly", "sgd_features_on_the_fly",
    "sgd_cached_features", "KernelSGD",
]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import KernelSGD

#: the names defined in a submodule loaded when first asked for (name -> submodule): it
#: imports scikit-learn (its base classes)
_LAZY = {"KernelSGD": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
