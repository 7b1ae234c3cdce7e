"""Lecture 4 (dual representations and constructing kernels): exercise set ``ex4`` and the
checkpoints ``l4.cp1``, ``l4.cp2`` of the lecture notebook.

The lecture's parametrisation (see :mod:`kernelcourse.dual`): ``sigma`` is the noise standard
deviation, ``lam`` the prior standard deviation, so the prior adds ``sigma^2 / lam^2`` to the
diagonal of ``K``. Every case uses ``sigma != lam`` so that an inverted ratio shows.

============  ======================  ====  =========  ===================================
id            function                pts   kind       syllabus
============  ======================  ====  =========  ===================================
l4.cp1        dual_coefficients       2     formula    4.3 alpha = (K + sigma^2/lam^2 I)^-1 y
l4.cp2        lecture_quadratic_map   2     formula    4.4 (x1^2, sqrt2 x1 x2, x2^2)
ex4.q1        residual_alpha          2     derive     4.1 alpha from the residuals
ex4.q2        logistic_alpha          2     derive     4.2 the dual of logistic regression
ex4.q3        dual_prediction         2     derive     4.3 predicting in the dual
ex4.q4        quadratic_features      3     derive     4.4 the map of (x.z)^2 in m dimensions
ex4.q5        poly_feature_count      1     derive     4.4 the number of features of (x.z)^p
ex4.q6        set_kernel              2     formula    4.6 exp(|S n T|)
ex4.q7        kernel_or_witness       3     witness    4.5, 4.7 a kernel by the rules, or a
                                                       data set with a negative determinant
ex4.q8        kernel_rules_quiz       2     choice     4.5 sums, differences, products, counts
ex4.q9        non_psd_points          3     witness    4.7 a negative Gram eigenvalue
ex4.q10       direction_kernel        3     witness    4.5 build a kernel of directions only
ex4.q11       gaussian_by_rules       2     fix        4.5 the Gaussian kernel from the rules
============  ======================  ====  =========  ===================================

The derive questions name the quantity and the section, not the formula. Witness questions are
graded by their property (a negative determinant or eigenvalue, the properties a kernel of
directions must have), the choice question by the option, with the misconception behind each
wrong option as its diagnosis.
"""
from __future__ import annotations

from .dual import CP1, Q1, Q2, Q3
from .features import CP2, Q4, Q5, Q6
from .constructing import BROKEN, CANDIDATES, Q10, Q11, Q7, Q8, Q9, QUIZ

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11]
