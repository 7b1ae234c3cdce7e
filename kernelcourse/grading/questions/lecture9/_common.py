"""Helpers shared by lecture 9's question modules: the package's names an answer may not call,
and small samples with their Gram matrices."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF

MMD = "kernelcourse.mean_embeddings."
#: every function of the package that computes an MMD or its test
ALL_MMD = tuple(MMD + name for name in (
    "mmd2_biased", "mmd2_unbiased", "mmd2_linear", "mmd2_from_gram", "permutation_test",
    "permutation_test_gram", "MMDTest", "mmd2_rff", "rff_permutation_test", "power_criterion",
    "choose_gamma_on_split", "power_against_gamma"))
#: every function of the package that computes HSIC or the KSD
ALL_HSIC = tuple(MMD + name for name in ("hsic_from_gram", "hsic_biased", "hsic_test")) + (
    "kernelcourse.feature_space.center_gram", "kernelcourse.feature_space.GramCenterer",
    "kernelcourse.feature_space.center_kernel_rows",
    # the module HSIC takes center_gram from (feature_space re-exports it), loaded without it
    "kernelcourse._centering.center_gram")
ALL_KSD = tuple(MMD + name for name in ("stein_kernel_rbf", "ksd", "ksd_test"))


def blocks(rng, m, n, d=2):
    """The Gram blocks K_XX, K_YY, K_XY under RBF(0.5) of two rounded samples, Y shifted."""
    X = np.round(rng.normal(size=(m, d)), 3)
    Y = np.round(rng.normal(size=(n, d)) + 0.5, 3)
    k = RBF(0.5)
    return k(X), k(Y), k(X, Y)


def pooled(rng, m, n, shift=0.7, gamma=0.5):
    """The pooled Gram matrix under RBF(gamma) of X (m points) and Y (n points, shifted), and m."""
    X = np.round(rng.normal(size=(m, 2)), 3)
    Y = np.round(rng.normal(size=(n, 2)) + [shift, 0.0], 3)
    return RBF(gamma)(np.vstack([X, Y])), m


def centring(n):
    """H = I - (1/n) 1 1^T."""
    return np.eye(n) - np.ones((n, n)) / n
