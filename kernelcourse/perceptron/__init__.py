"""The perceptron in the primal and the dual, the kernel perceptron, and Novikoff"s bound.

Lecture 3 (John Shawe-Taylor"s slides *Kernel methods*, UCL), sections 3.10-3.11.
Starting from ``w_0 = 0``, the perceptron visits training examples; when
``y_j <w_t, x_j> <= 0`` (a mistake) it updates ``w_{t+1} = w_t + y_j x_j``.
Since ``w_t = sum_i alpha_i x_i``, the dual form keeps ``alpha`` instead and
updates ``alpha_j += y_j``; the mistake test ``y_j sum_i alpha_i <x_i, x_j> <= 0``
uses inner products only, so any kernel may replace them.

Novikoff"s theorem: if a unit vector ``w*`` has ``y_i <w*, x_i> >= gamma > 0`` and
``||x_i|| <= R`` for all i, the perceptron makes at most ``R^2 / gamma^2``
updates. With a kernel, ``R = max_i sqrt(k(x_i, x_i))``. The proof rests on two
bounds that hold after every update t:

    ||w_t||^2 <= t R^2        and        <w*, w_t> >= t gamma,

and since ``<w*, w_t> <= ||w_t||`` they give ``t^2 gamma^2 <= t R^2``.

Where each part lives: ``algorithms`` (the runs on arrays and the bound) and ``estimators``
(:class:`Perceptron`, :class:`KernelPerceptron`). Every public name is imported from
``kernelcourse.perceptron`` itself; the estimators are loaded when first asked for (PEP 562),
since their base classes import scikit-learn, which the functions (what exercise set 3 checks
first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .algorithms import (PerceptronRun, dual_perceptron, feature_radius, margin_of, novikoff_bound,
                         primal_perceptron)

__all__ = ["feature_radius", "margin_of", "novikoff_bound", "PerceptronRun", "dual_perceptron", "primal_perceptron",
           "Perceptron", "KernelPerceptron"]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimators import KernelPerceptron, Perceptron

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes)
_LAZY = dict.fromkeys(("Perceptron", "KernelPerceptron"), "estimators")

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
