"""Lecture 8 (Gaussian processes): exercise set ``ex8`` and the checkpoints ``l8.cp1``, ``l8.cp2``
of the lecture notebook.

The answers work on plain arrays (a Gram matrix ``K``, the rows ``K_new[p, i] = k(x*_p, x_i)``
of new points, their prior variances ``k_new_diag``, targets ``y``, the noise variance
``noise = sigma^2``) or on numbers. The classic mistakes have their diagnoses, each beside a
fixed case where it shows: a standard deviation for a variance (and back), sigma^2 added to
the variance of f, ``log(det(...))`` that overflows, an explicit inverse instead of a solve, a
length-scale used as gamma, and a ridge parameter other than sigma^2 for the posterior mean.

============  ==========================  ====  ==========  ==========================================
id            function                    pts   kind        syllabus
============  ==========================  ====  ==========  ==========================================
l8.cp1        posterior_variance          2     derive      8.2 the variance of f(x*) by Algorithm 2.1
l8.cp2        log_evidence                2     derive      8.5 log p(y | X) from the Cholesky factor
ex8.q1        length_scale_for_correlation 2    parameter   8.1 the prior correlation at a distance
ex8.q2        predictive_band             3     derive      8.2 mean +- z std, of f and of y
ex8.q3        gp_weights                  3     fix         8.2 a solve, not an inverse
ex8.q4        duplicate_posterior         2     predict     8.2 two observations at one input
ex8.q5        ridge_lambda                2     parameter   8.3 the posterior mean as kernel ridge
ex8.q6        log_det                     3     fix         8.5 log det without det
ex8.q7        predictive_probability      2     derive      8.7 sigma averaged over the latent law
ex8.q8        gp_true_or_false            2     choice      8.1-8.8 seven statements
ex8.q9        evidence_gradient           3     derive      8.5 d log p / d log length_scale
ex8.q10       newton_step                 3     derive      8.7 one Newton step of the Laplace mode
ex8.q11       inducing_variance           3     fix         8.8 the SoR variance repaired (DTC)
============  ==========================  ====  ==========  ==========================================
"""
from __future__ import annotations

from .checkpoints import CP1, CP2
from .posterior import Q1, Q2, Q3, Q4, Q5
from .evidence import Q6, Q7, Q8
from .approximations import Q9, Q10, Q11

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11]
