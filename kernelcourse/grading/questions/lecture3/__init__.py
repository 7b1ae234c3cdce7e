"""Lecture 3 (ridge regression, the dual, computing in feature space): exercise set ``ex3``
and the checkpoints ``l3.cp1``, ``l3.cp2`` of the lecture notebook.

Every answer works from kernel values only (Gram matrices, kernel rows, their
diagonals), as the lecture's algorithms do. Gram matrices in the cases come
from a polynomial kernel on points away from the origin, so that the diagonal
is not constant and the sample mean is not zero: that way a missing square
root or a missing centering term shows.

============  ======================  ====  =========  ===================================
id            function                pts   kind       syllabus
============  ======================  ====  =========  ===================================
l3.cp1        dual_ridge              2     formula    3.2 alpha = (K + lam I)^-1 y
l3.cp2        center_gram             2     derive     3.7 the centered training Gram matrix
ex3.q1        kernel_ridge_predict    2     derive     3.2-3.3 kernel ridge predictions
ex3.q2        center_test_rows        3     derive     3.7 new points, training mean
ex3.q3        normalized_gram         2     derive     3.6 the normalised Gram matrix
ex3.q4        centre_of_mass_b        2     derive     3.8 the offset b
ex3.q5        novelty_scores          3     derive     3.9 distance to phi_S minus radius
ex3.q6        kernel_perceptron       3     derive     3.10 the dual perceptron's alpha
ex3.q7        perceptron_bound        2     derive     3.11 Novikoff's R^2 / gamma^2
ex3.q8        far_point_distance      2     predict    3.9 ||phi(x) - phi_S|| far away
ex3.q9        choose_lambda           3     parameter  3.1 a lambda meeting a validation MSE
ex3.q10       center_new_gram         2     fix        3.7 new points' Gram, training mean
ex3.q11       dual_cheaper_sizes      2     witness    3.2 sizes where the dual costs less
ex3.q12       feature_space_quiz      2     choice     3.2-3.11 what changes, what does not
============  ======================  ====  =========  ===================================

The texts of the derive questions name the quantity and the lecture section, not the formula
(the lecture notebook derives it). The new kinds are graded by what they ask: ex3.q9 by the
validation target (any lambda meeting it), ex3.q11 by the cost model of 3.2 (any sizes where
the dual's operation count is smaller).
"""
from __future__ import annotations

from .centering import CP2, Q2, Q3, Q10
from .distances import Q4, Q5, Q8
from .perceptron import Q6, Q7
from .quiz import QUIZ, Q12
from .ridge import CP1, Q1, Q9, Q11

__all__ = ["QUESTIONS", "QUIZ"]

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11, Q12]
