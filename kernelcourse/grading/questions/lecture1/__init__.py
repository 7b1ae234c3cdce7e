"""Lecture 1 (feature expansions and the kernel trick): exercise set ``ex1`` and
the checkpoints ``l1.cp1``, ``l1.cp2`` of the lecture notebook.

A worked example of the question API (:mod:`kernelcourse.grading.model`): each
question names the function the student writes, the package function that is
its reference, a generator of fresh random inputs, and the mistakes we expect,
each written as the function a student with that misconception would write.

============  ======================  ====  ========================================
id            function                pts   syllabus
============  ======================  ====  ========================================
l1.cp1        all_subsets_kernel      2     1.3 the O(d) inner-product shortcut
l1.cp2        kernel_gd_step          2     1.2, 1.4 one step on alpha
ex1.q1        all_subsets_features    3     1.1 the all-subsets map (any column order)
ex1.q2        all_subsets_dim         1     1.1 the lecture's quiz: 2^d
ex1.q3        all_subsets_predict     2     1.3, 1.4 h(x) = sum_j alpha_j k(x_j, x)
ex1.q4        kernel_gd               3     1.2, 1.4 a whole run of kernelised GD
ex1.q5        rbf_gram                2     1.5 the RBF kernel, scikit-learn's gamma
ex1.q6        is_kernel_matrix        2     1.6 valid kernels are the PSD ones
ex1.q7        negative_direction      2     1.6 a witness that a matrix is not PSD
============  ======================  ====  ========================================
"""
from __future__ import annotations

from .descent import CP2, Q4
from .feature_maps import CP1, Q1, Q2, Q3, Q10
from .rbf_and_psd import LAPLACE_OPTIONS, Q5, Q6, Q7, Q8, Q9, Q11

__all__ = ["QUESTIONS", "LAPLACE_OPTIONS"]

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11]
