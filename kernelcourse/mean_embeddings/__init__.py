"""Kernel mean embeddings, the maximum mean discrepancy and HSIC (lecture 9).

The mean embedding of a distribution ``P`` is the function ``mu_P = E k(X, .)`` of the RKHS;
a sample's is ``mu_hat(t) = (1/m) sum_i k(x_i, t)``, lecture 3.7's centre of mass in feature
space. The maximum mean discrepancy is the distance of two embeddings,

    MMD^2(P, Q) = ||mu_P - mu_Q||^2 = E k(X, X') + E k(Y, Y') - 2 E k(X, Y),

and ``mu_P - mu_Q`` (up to its norm) is the *witness*, the function of the RKHS's unit ball
on which ``E_P f - E_Q f`` is largest (Gretton, Borgwardt, Rasch, Schoelkopf and Smola,
*A Kernel Two-Sample Test*, JMLR 2012). From samples of sizes ``m`` and ``n``:

* the biased (V) estimate puts every pair, ``i = j`` included, into the three means;
* the unbiased (U) estimate leaves out the ``i = j`` terms of ``K_XX`` and ``K_YY``, dividing
  by ``m (m - 1)`` and ``n (n - 1)``;
* the linear-time estimate averages ``k(x1, x2) + k(y1, y2) - k(x1, y2) - k(x2, y1)`` over
  disjoint pairs: O(n) kernel values, a larger variance.

The two-sample test compares the statistic with its values under relabellings of the pooled
sample: every permutation's statistic is a quadratic form ``a^T K a`` of the pooled Gram
matrix in the permuted labels ``a``, so all ``B`` of them come from one product ``K A``.

HSIC_b = tr(K H L H) / n^2, the V-statistic (Gretton, Fukumizu, Teo, Song, Schoelkopf and
Smola, *A kernel statistical test of independence*, NIPS 2007; Gretton, Bousquet, Smola and
Schoelkopf, ALT 2005, define the empirical HSIC with (n - 1)^-2 instead) is the squared
MMD between the joint distribution and the product of its marginals, under the product
kernel. With the distance-induced kernel ``(|x| + |z| - |x - z|) / 2``, 2 MMD^2 is the energy
distance and 4 HSIC the distance covariance (Sejdinovic, Sriperumbudur, Gretton and Fukumizu,
Ann. Statist. 2013).

The lecture's sections, one module each (every name is imported from
``kernelcourse.mean_embeddings``, which loads a section's module when one of its names is
first asked for, PEP 562, so that a check of lecture 9 loads no more than it uses):

* ``embeddings`` (9.1): :func:`mean_embedding`, :func:`witness`, and the default kernel's
  bandwidth, :func:`pooled_median_gamma` (9.4);
* ``mmd`` (9.2): :func:`mmd2_biased`, :func:`mmd2_unbiased`, :func:`mmd2_linear`,
  :func:`mmd2_from_gram`, and :func:`gaussian_mmd2`, the closed form for two Gaussians;
* ``two_sample_test`` (9.3): :func:`permutation_p_value`, :class:`TestResult`,
  :func:`permutation_test_gram`, :func:`permutation_test`, :func:`rejection_rate`, and
  ``estimator``: :class:`MMDTest`;
* ``kernel_choice`` (9.4): :func:`power_against_gamma`, :func:`power_criterion`,
  :func:`choose_gamma_on_split`, :func:`blobs`;
* ``hsic`` (9.5): :func:`hsic_from_gram`, :func:`hsic_biased`, :func:`hsic_test`;
* ``distances`` (9.6): :class:`DistanceKernel`, :func:`energy_distance`,
  :func:`distance_covariance`;
* ``rff_mmd`` (9.7): :func:`mmd2_rff`, :func:`rff_permutation_test`;
* ``stein`` (9.8): :func:`stein_kernel_rbf`, :func:`ksd`, :func:`ksd_test`, :func:`gaussian_score`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

__all__ = [
    "mean_embedding", "witness",
    "mmd2_biased", "mmd2_unbiased", "mmd2_linear", "mmd2_from_gram",
    "permutation_p_value", "TestResult", "permutation_test_gram", "permutation_test", "MMDTest",
    "pooled_median_gamma", "choose_gamma_on_split", "rejection_rate", "power_against_gamma",
    "hsic_biased", "hsic_from_gram", "hsic_test",
    "DistanceKernel", "energy_distance", "distance_covariance",
    "mmd2_rff", "rff_permutation_test", "power_criterion", "blobs",
    "stein_kernel_rbf", "ksd", "ksd_test", "gaussian_score",
    "gaussian_mmd2",
]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .distances import DistanceKernel, distance_covariance, energy_distance
    from .embeddings import mean_embedding, pooled_median_gamma, witness
    from .estimator import MMDTest
    from .hsic import hsic_biased, hsic_from_gram, hsic_test
    from .kernel_choice import blobs, choose_gamma_on_split, power_against_gamma, power_criterion
    from .mmd import ESTIMATORS, gaussian_mmd2, mmd2_biased, mmd2_from_gram, mmd2_linear, mmd2_unbiased
    from .rff_mmd import mmd2_rff, rff_permutation_test
    from .stein import gaussian_score, ksd, ksd_test, stein_kernel_rbf
    from .two_sample_test import (TestResult, permutation_p_value, permutation_test, permutation_test_gram,
                                  rejection_rate)

#: every public name -> the submodule that defines it, loaded when the name is first asked for
#: (some import scikit-learn, through an estimator's base class or the random features)
_LAZY = {
    **dict.fromkeys(("DistanceKernel", "distance_covariance", "energy_distance"), "distances"),
    **dict.fromkeys(("mean_embedding", "pooled_median_gamma", "witness"), "embeddings"),
    **dict.fromkeys(("hsic_biased", "hsic_from_gram", "hsic_test"), "hsic"),
    **dict.fromkeys(("blobs", "choose_gamma_on_split", "power_against_gamma", "power_criterion"),
                    "kernel_choice"),
    **dict.fromkeys(("ESTIMATORS", "gaussian_mmd2", "mmd2_biased", "mmd2_from_gram", "mmd2_linear",
                     "mmd2_unbiased"), "mmd"),
    **dict.fromkeys(("mmd2_rff", "rff_permutation_test"), "rff_mmd"),
    **dict.fromkeys(("gaussian_score", "ksd", "ksd_test", "stein_kernel_rbf"), "stein"),
    **dict.fromkeys(("TestResult", "permutation_p_value", "permutation_test", "permutation_test_gram",
                     "rejection_rate"), "two_sample_test"),
    "MMDTest": "estimator",
}


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
