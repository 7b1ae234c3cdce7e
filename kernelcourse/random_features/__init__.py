"""Random Fourier features for the RBF kernel, and how close they come (lecture 2.8-2.10).

Rahimi and Recht ("Random Features for Large-Scale Kernel Machines", NIPS 2007)
write the RBF kernel as an expected value: with ``w ~ N(0, 2 gamma I)`` and
``b ~ U[0, 2 pi]`` drawn independently,

    K(x, y) = exp(-gamma ||x - y||^2) = E[2 cos(w.x + b) cos(w.y + b)].

Averaging ``D`` independent draws gives the feature map

    psi(x) = sqrt(2 / D) cos(Omega x + b),

with the ``D`` draws ``w_i`` as the rows of ``Omega`` and the ``b_i`` in ``b``, so
that ``psi(x).psi(y)`` estimates ``K(x, y)`` without bias. Each term lies in
``[-2, 2]``, so Hoeffding's inequality bounds the chance of an error of at least
``a`` by ``2 exp(-D a^2 / 8)``.

The paired variant uses ``D / 2`` frequencies and no offsets,
``psi(x) = sqrt(2 / D) [cos(Omega x), sin(Omega x)]``; its terms
``cos(w.(x - y))`` lie in ``[-1, 1]``, its bound is ``2 exp(-D a^2 / 4)`` and its
variance is never larger at the same width ``D``.

The RBF kernel here is scikit-learn's: ``gamma`` multiplies the squared
distance (a lecture's ``sigma`` form is ``gamma = 1 / (2 sigma^2)``). Why the
frequencies are drawn so, for this and other shift-invariant kernels, is Bochner's theorem
(2.11): :mod:`kernelcourse.bochner`.

Where each part lives: ``approximation`` (the Gram matrix, the feature map of given draws, the
estimates and the bounds) and ``estimator`` (:class:`RandomFourierFeatures`, which draws the
frequencies and maps the rows). Every public name is imported from
``kernelcourse.random_features`` itself; the estimator is loaded when first asked for (PEP 562),
since its base classes import scikit-learn, which the functions (what exercise set 2 checks
first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from . import approximation
from .approximation import (approximation_errors, error_frequency, features_needed, fourier_features,
                            hoeffding_bound, max_error_over_points, monte_carlo_kernel, rbf_gram, rff_variance,
                            single_sample_estimate, union_bound, union_error_level)

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import RandomFourierFeatures

#: the names defined in a submodule loaded when first asked for (name -> submodule): it
#: imports scikit-learn (its base classes)
_LAZY = {"RandomFourierFeatures": "estimator"}

#: the package's names: its approximation module's, and the lazy ones
__all__ = [*approximation.__all__, *_LAZY]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
