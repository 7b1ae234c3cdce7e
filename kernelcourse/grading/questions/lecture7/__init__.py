"""Lecture 7 (support vector machines): exercise set ``ex7`` and the checkpoints ``l7.cp1``,
``l7.cp2`` of the lecture notebook, a module per theme: the dual problem (:mod:`.dual`), SMO
(:mod:`.smo`), the KKT conditions measured (:mod:`.kkt`), the true-or-false statements
(:mod:`.statements`) and more than two classes (:mod:`.multiclass`).

The answers work on plain arrays: Gram matrices, labels in {-1, +1}, multipliers
``alpha`` in the box ``[0, C]``. Every question grades on fixed cases, the same in every
run, that expose each mistake it names and the edge cases (the corners of the box, the
cases of the labels, the regimes of a formula), and on drawn cases of the same types
(:func:`.._typed.drawn_like`), so that an answer with a named mistake earns the same points
and the same diagnosis in every seed.

============  ======================  ====  ==========  ================================================
id            function                pts   kind        syllabus
============  ======================  ====  ==========  ================================================
l7.cp1        dual_objective          2     formula     7.3 sum_i a_i - 1/2 a^T Q a, Q = (y y^T) o K
l7.cp2        svm_offset              2     derive      7.4 b from the multipliers strictly inside the box
ex7.q1        clipped_pair_step       3     fix         7.6 SMO's two-variable step, clipped to the box
ex7.q2        svm_true_or_false       2     choice      7.4-7.9 six statements on KKT, SMO and the bound
ex7.q3        optimal_dual_value      2     predict     7.3 the optimal dual of two points, against C
ex7.q4        smallest_hard_margin_C  2     parameter   7.2 the smallest C that gives the hard margin back
ex7.q5        violating_pair          3     witness     7.6 a pair whose SMO step climbs the dual
ex7.q6        kkt_violation           3     derive      7.4 how far each point is from its KKT condition
ex7.q7        offset_interval         3     derive      7.4 the offsets allowed when no multiplier is free
ex7.q8        machine_sizes           2     predict     7.10 one-vs-rest and one-vs-one: machines and sizes
ex7.q9        dual_gap_bound          3     derive      7.7 a bound on the dual's distance to its optimum
ex7.q10       second_order_j          3     derive      7.6 Fan, Chen and Lin's second index
============  ======================  ====  ==========  ================================================
"""
from __future__ import annotations

from .dual import CP1, CP2, Q3, Q4
from .kkt import Q6, Q7, Q9
from .multiclass import Q8
from .smo import Q1, Q5, Q10
from .statements import Q2

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10]
