"""Lecture 9 (kernel mean embeddings, MMD, HSIC, the kernel Stein discrepancy): exercise set
``ex9`` and the checkpoints ``l9.cp1``, ``l9.cp2`` of the lecture notebook.

The classic mistakes have their diagnoses: the diagonal kept in the "unbiased" estimate, m^2
where m (m - 1) belongs, the p-value without its +1 (and a +1 where the labellings are
enumerated), ties left out, the median heuristic on one sample, HSIC centred on one side only,
a permutation of L's rows without its columns, a linear kernel that sees only the means, the H1
variance without its centring or its factor 4, and the Stein kernel's signs and trace.

Every question has fixed cases (the same in every run) and drawn ones built so that each named
mistake fails every drawn case: a mistake scores the same points in every seed.

============  ==========================  ====  ==========  ==========================================
id            function                    pts   kind        syllabus
============  ==========================  ====  ==========  ==========================================
l9.cp1        mmd2_unbiased               2     derive      9.2 the U-statistic from three Gram blocks
l9.cp2        hsic_b                      2     derive      9.5 tr(K H L H) / n^2
ex9.q1        exact_p_value               2     derive      9.3 the p-value over every split
ex9.q2        pooled_gamma                2     derive      9.4 the median heuristic, pooled
ex9.q3        linear_mmd2                 2     predict     9.1 what the linear kernel sees
ex9.q4        mmd_true_or_false           2     choice      9.1-9.4 six statements
ex9.q5        same_mean_sample            3     witness     9.1 same mean, different law
ex9.q6        fewest_permutations         2     parameter   9.3 the smallest B that can reject
ex9.q7        unbiased_mmd2_pooled        3     fix         9.2 the diagonal of the pooled Gram matrix
ex9.q8        expected_rejections         2     predict     9.3 the exact test's level, with ties
ex9.q9        power_criteria              3     derive      9.4 MMD_u^2 / sigma_H1 per bandwidth
ex9.q10       hsic_p_value                3     derive      9.5 the permutation p-value, any constant
ex9.q11       rff_null                    2     derive      9.7 every permuted ||Phi^T w||^2 at once
ex9.q12       ksd_u                       3     derive      9.8 the Stein kernel's U-statistic
============  ==========================  ====  ==========  ==========================================
"""
from __future__ import annotations

from .checkpoints import CP1, CP2
from .embeddings import Q3, Q4, Q5, Q7
from .independence import Q10, Q11
from .kernel_choice import Q2, Q9
from .stein import Q12
from .testing import Q1, Q6, Q8

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11, Q12]
