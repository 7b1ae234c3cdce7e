"""Choosing the kernel (9.4): the test's power against the RBF bandwidth, and the bandwidth
chosen on one half of the data and tested with on the other, which keeps the test valid.

The pooled median heuristic, :func:`~kernelcourse.mean_embeddings.pooled_median_gamma`, is in
:mod:`~kernelcourse.mean_embeddings.embeddings`: it is every function's default kernel.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_positives, as_rng, check_callable, check_positive_int, check_unit_interval
from ..kernels import RBF
from ..rkhs.bandwidth import median_heuristic
from .embeddings import _two_samples
from .two_sample_test import _one_blas_thread, permutation_test, permutation_test_gram

__all__ = ["choose_gamma_on_split", "power_against_gamma"]


def _squared_distances(Z):
    sq = (Z * Z).sum(axis=1)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)


def _standardised(D2, m, gamma, n_permutations, rng):
    """MMD_u^2 over the standard deviation of its permutation null, for one gamma."""
    result = permutation_test_gram(np.exp(-gamma * D2), m, n_permutations, "unbiased", rng)
    return result.statistic / max(float(result.null.std()), 1e-300)


def choose_gamma_on_split(X, Y, gammas, n_permutations: int = 200, random_state=0) -> dict:
    """Choose the RBF ``gamma`` on one half of each sample, test with it on the other half.

    The criterion on the first half is MMD_u^2 over the standard deviation of its permutation
    null (a larger ratio, a more powerful test); the test on the second half, which played no
    part in the choice, keeps its level.

    Returns
    -------
    dict
        ``gammas``, ``criterion`` (one per gamma), ``gamma`` (the chosen one) and ``result``
        (the :class:`TestResult` of the second half).
    """
    X, Y = _two_samples(X, Y)
    gammas = np.array(as_positives(gammas, "gammas", item="gamma"))
    if min(len(X), len(Y)) < 4:
        raise ValueError(f"each sample needs at least 4 points to be split in two halves of 2; got "
                         f"X with shape {X.shape} and Y with shape {Y.shape}")
    rng = as_rng(random_state)
    px, py = rng.permutation(len(X)), rng.permutation(len(Y))
    hx, hy = len(X) // 2, len(Y) // 2
    Z1 = np.vstack([X[px[:hx]], Y[py[:hy]]])
    D2 = _squared_distances(Z1)
    with _one_blas_thread():
        criterion = np.array([_standardised(D2, hx, g, n_permutations, rng) for g in gammas])
        gamma = float(gammas[int(np.argmax(criterion))])
        result = permutation_test(X[px[hx:]], Y[py[hy:]], RBF(gamma), n_permutations, "unbiased", rng)
    return {"gammas": gammas, "criterion": criterion, "gamma": gamma, "result": result}


def power_against_gamma(draw, gammas, n_trials: int = 50, alpha: float = 0.05,
                        n_permutations: int = 100, random_state=0) -> dict:
    """The test's rejection rate for each RBF ``gamma``, on the same samples and permutations.

    Each trial draws ``(X, Y) = draw(rng)``, forms the pooled squared distances once and tests
    with every ``gamma``; it also records the pooled median heuristic's gamma.

    Returns
    -------
    dict
        ``gammas``, ``power`` (one rate per gamma), ``p_values`` (n_trials, len(gammas)) and
        ``median_gammas`` (n_trials,).
    """
    check_callable(draw, "draw", "draw(rng) -> (X, Y)")
    gammas = np.array(as_positives(gammas, "gammas", item="gamma"))
    n_trials = check_positive_int(n_trials, "n_trials")
    alpha = check_unit_interval(alpha, "alpha")
    B = check_positive_int(n_permutations, "n_permutations")
    rng = as_rng(random_state)
    p = np.empty((n_trials, len(gammas)))
    medians = np.empty(n_trials)
    with _one_blas_thread():
        _power_trials(draw, gammas, B, rng, p, medians)
    return {"gammas": gammas, "power": (p <= alpha).mean(axis=0), "p_values": p,
            "median_gammas": medians}


def _power_trials(draw, gammas, B, rng, p, medians):
    for t in range(len(medians)):
        X, Y = _two_samples(*draw(rng))
        m, Z = X.shape[0], np.vstack([X, Y])
        D2 = _squared_distances(Z)
        medians[t] = median_heuristic(Z)
        seed = int(rng.integers(2**32))
        for g, gamma in enumerate(gammas):    # the same labellings for every gamma
            p[t, g] = permutation_test_gram(np.exp(-gamma * D2), m, B, "unbiased", seed).p_value
