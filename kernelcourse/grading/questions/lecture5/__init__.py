"""Lecture 5 (RKHS and functional gradient descent): exercise set ``ex5`` and the
checkpoints ``l5.cp1``, ``l5.cp2`` of the lecture notebook.

A function of the RKHS is passed to an answer as its coefficients ``alpha``, its
centres (an ``(m, d)`` array) and the ``gamma`` of the RBF kernel
``exp(-gamma ||x - z||^2)`` (scikit-learn's parametrisation; the lecture's
``exp(-||x - z||^2 / gamma)`` has the reciprocal).

============  ===========================  ====  =========  =======  =================================
id            function                     pts   kind       section  asks for
============  ===========================  ====  =========  =======  =================================
l5.cp1        evaluate_rkhs                2     derive     5.4      f at new points, a sum of bumps
l5.cp2        regularised_gradient         2     derive     5.5      grad of sum (y - f)^2 + lam ||f||^2
ex5.q1        rkhs_norm                    2     derive     5.2      ||f||
ex5.q2        rkhs_inner                   2     derive     5.2      <f, g>, different centres
ex5.q3        squared_loss_step            3     derive     5.6      one online step, squared loss
ex5.q4        hinge_step                   3     derive     5.7      one online step, hinge loss
ex5.q5        reproduce                    2     derive     5.3      <f, K(x, .)> by the inner product
ex5.q6        completion_statements        2     choice     5.12     true or false: well defined?
ex5.q7        another_expansion            2     witness    5.12     a second expansion of one function
ex5.q8        predict_top_eigenvalue       2     predict    5.13     lambda_1 of a bigger Gram matrix
ex5.q9        extend_eigenfunctions        3     fix        5.13     the Nystroem extension, fixed
============  ===========================  ====  =========  =======  =================================

No question text prints its formula: each names the quantity and the section that derives it.
"""
from __future__ import annotations

from .functions import CP1, Q1, Q2, Q5
from .steps import CP2, Q3, Q4
from .completion import Q6, Q7, Q8, Q9

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
