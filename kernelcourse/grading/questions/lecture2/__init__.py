"""Lecture 2 (the six ways to learn with a kernel, random Fourier features, Hoeffding's bound):
exercise set ``ex2`` and the checkpoints ``l2.cp1``, ``l2.cp2`` of the lecture notebook.

============  ======================  ====  ==========================================
id            function                pts   syllabus
============  ======================  ====  ==========================================
l2.cp1        rff_estimate            2     2.8 the single-sample estimator, averaged
l2.cp2        hoeffding_bound         2     2.9 P(|error| >= a) <= 2 exp(-D a^2 / 8)
ex2.q1        dual_sgd_step           3     2.1, 2.3 one SGD step on u (logistic loss)
ex2.q2        sgd_gram                3     2.2, 2.6 a whole run with the cached Gram matrix
ex2.q3        rff_map                 4     2.8 psi(x) = sqrt(2/D) cos(Omega x + b)
ex2.q4        features_needed         2     2.9 the D that Hoeffding's bound asks for
ex2.q5        cost_of_way             3     2.6 the computation column of the cost table
ex2.q6        rff_gram                3     2.8 fix the random-feature Gram matrix
ex2.q7        choose_D                3     2.9 the first D that meets a target error
ex2.q8        guaranteed_error        2     2.9 the error D features guarantee
ex2.q9        rbf_frequencies         2     2.11 Bochner: the RBF kernel's frequencies
============  ======================  ====  ==========================================

One module per part of the lecture: ``ways_to_learn`` (ex2.q1, q2, q5), ``fourier_features``
(l2.cp1, ex2.q3, q6, q9) and ``hoeffding`` (l2.cp2, ex2.q4, q7, q8); ``_common`` holds the
helpers they share.

The logistic loss is ``loss(z; y) = log(1 + exp(-y z))`` with ``loss'(z; y) = -y / (1 + exp(y z))``,
as in the lecture's demo. Random draws enter the answers as inputs (standard normal
``G`` and uniform ``U``), so a map that scales them wrongly can be told apart.
"""
from __future__ import annotations

from .fourier_features import CP1, Q3, Q6, Q9
from .hoeffding import CP2, Q4, Q7, Q8
from .ways_to_learn import Q1, Q2, Q5

__all__ = ["QUESTIONS"]

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
