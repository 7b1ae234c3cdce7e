"""Computing in feature space from kernel values alone.

Lecture 3 (John Shawe-Taylor's slides *Kernel methods*, UCL), sections 3.7-3.9.
Given ``k(x, z) = <phi(x), phi(z)>`` and a sample ``x_1..x_m`` with Gram matrix
``K``, any vector ``w = sum_i alpha_i phi(x_i)`` is known through ``alpha``:

* ``||w||^2 = alpha^T K alpha``;
* ``d(w_a, w_b) = sqrt((alpha - beta)^T K (alpha - beta))``;
* the mean ``phi_S = (1/m) sum_i phi(x_i)`` has norm ``(1/m) sqrt(j^T K j)``;
* the average squared distance to the mean is ``tr(K)/m - j^T K j / m^2``;
* centering ``phi(x) -> phi(x) - phi_S`` turns ``K`` into
  ``K - (1/m)(j j^T K + K j j^T) + (1/m^2)(j^T K j) j j^T``.

Centering here never forms ``j j^T``: it needs only the row and column means
of ``K`` and their mean, so it costs O(m^2). On top of these the module has the
centre-of-mass classifier (with the lecture's offset ``b``) and the novelty
ball around the centre of mass.

Where each part lives: ``geometry`` (the functions, on Gram matrices and kernel rows) and
``estimators`` (:class:`GramCenterer`, :class:`CentreOfMassClassifier`, :class:`NoveltyBall`).
Every public name is imported from ``kernelcourse.feature_space`` itself; the estimators are
loaded when first asked for (PEP 562), since their base classes import scikit-learn, which the
functions (what exercise set 3 checks first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from . import geometry
from .geometry import (center_gram, center_kernel_rows, centre_of_mass_offset, centre_of_mass_scores,
                       centre_of_mass_weight, feature_distance, mean_norm, mean_squared_distance_to_mean,
                       normalize_gram, normalize_kernel_rows, squared_distances_to_mean, weight_norm_squared)

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimators import CentreOfMassClassifier, GramCenterer, NoveltyBall

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes)
_LAZY = dict.fromkeys(("GramCenterer", "CentreOfMassClassifier", "NoveltyBall"), "estimators")

#: the package's names: its geometry module's, and the lazy ones
__all__ = [*geometry.__all__, *_LAZY]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
