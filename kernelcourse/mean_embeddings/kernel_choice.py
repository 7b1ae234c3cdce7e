"""Choosing the kernel (9.4): the test's power against the RBF bandwidth, the estimated power
criterion ``MMD_u^2 / sigma_H1`` (Gretton, Sriperumbudur, Sejdinovic, Strathmann, Balakrishnan,
Pontil and Fukumizu, *Optimal kernel choice for large-scale two-sample tests*, NIPS 2012;
Sutherland, Tung, Strathmann, De, Ramdas, Smola and Gretton, *Generative models and model
criticism via optimized maximum mean discrepancy*, ICLR 2017), the bandwidth chosen on one half
of the data and tested with on the other, which keeps the test valid, and Gretton et al.'s
"blobs", where the median heuristic fails.

The pooled median heuristic, :func:`~kernelcourse.mean_embeddings.pooled_median_gamma`, is in
:mod:`~kernelcourse.mean_embeddings.embeddings`: it is every function's default kernel.
"""
from __future__ import annotations

import numpy as np

from .._validation import (as_positives, as_rng, check_callable, check_choice, check_positive_int,
                           check_unit_interval)
from ..kernels import RBF
from ..rkhs.bandwidth import median_heuristic
from .embeddings import _two_samples
from .two_sample_test import _one_blas_thread, permutation_test, permutation_test_gram

__all__ = ["choose_gamma_on_split", "power_against_gamma", "power_criterion", "blobs"]


def _squared_distances(Z):
    sq = (Z * Z).sum(axis=1)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)


def _standardised(D2, m, gamma, n_permutations, rng):
    """MMD_u^2 over the standard deviation of its permutation null, for one gamma (a z-score
    under H0: a heuristic, not the power criterion)."""
    result = permutation_test_gram(np.exp(-gamma * D2), m, n_permutations, "unbiased", rng)
    return result.statistic / max(float(result.null.std()), 1e-300)


def _h_matrix(K, n):
    """``h_ij = k(x_i, x_j) + k(y_i, y_j) - k(x_i, y_j) - k(x_j, y_i)`` from the pooled Gram
    matrix of ``[X; Y]`` with ``m = n``."""
    Kxy = K[:n, n:]
    return K[:n, :n] + K[n:, n:] - Kxy - Kxy.T


def _criterion_from_gram(K, n, regulariser):
    H = _h_matrix(K, n)
    np.fill_diagonal(H, 0.0)
    mmd2 = H.sum() / (n * (n - 1))
    h1 = H.sum(axis=1) / (n - 1)                 # h_1(z_i): the mean of h(z_i, z_j) over j != i
    var = 4.0 / n * max(float(np.mean(h1**2) - mmd2**2), 0.0)
    return float(mmd2), var, float(mmd2 / np.sqrt(var + regulariser))


def power_criterion(X, Y, kernel, regulariser: float = 1e-8) -> dict:
    """The estimated power criterion ``MMD_u^2 / sigma_H1`` for samples of equal size ``n``.

    With ``z_i = (x_i, y_i)`` and ``h(z, z') = k(x, x') + k(y, y') - k(x, y') - k(x', y)``,
    ``MMD_u^2`` is the mean of ``h(z_i, z_j)`` over ``i != j``; under H1 it is asymptotically
    normal with variance ``4 zeta_1 / n``, ``zeta_1 = Var h_1(Z)``, ``h_1(z) = E h(z, Z')``.
    The plug-in estimate replaces ``h_1(z_i)`` by the mean of ``h(z_i, z_j)`` over ``j != i``
    (Sutherland et al. 2017, eq. 5, give an unbiased version). The test's power is about
    ``Phi(sqrt(n) MMD^2 / sqrt(4 zeta_1) - c_alpha / (n sigma_H1))``: for large ``n`` the
    kernel with the largest ratio is the most powerful.

    Returns ``{"mmd2", "variance", "criterion"}``; ``regulariser`` keeps the ratio finite.
    """
    X, Y = _two_samples(X, Y)
    if X.shape[0] != Y.shape[0] or X.shape[0] < 3:
        raise ValueError(f"the power criterion pairs x_i with y_i: it needs two samples of one "
                         f"size n >= 3; got X with shape {X.shape} and Y with shape {Y.shape}")
    check_callable(kernel, "kernel", "kernel(A, B) -> Gram matrix")
    n = X.shape[0]
    K = np.asarray(kernel(np.vstack([X, Y])), dtype=float)
    mmd2, var, crit = _criterion_from_gram(K, n, float(regulariser))
    return {"mmd2": mmd2, "variance": var, "criterion": crit}


def blobs(rng, n: int, grid: int = 3, spacing: float = 10.0, ratio: float = 6.0):
    """Gretton et al. (2012b)'s blobs: ``n`` points of X from unit Gaussians centred on a
    ``grid x grid`` lattice of spacing ``spacing``; Y's Gaussians have covariance eigenvalues
    ``ratio`` and 1 along the diagonals. The difference is at the scale of one blob, the pooled
    sample's spread at the scale of the grid: the median heuristic sees the grid."""
    rng = as_rng(rng)
    n = check_positive_int(n, "n")
    centres = spacing * np.array([(i, j) for i in range(grid) for j in range(grid)], dtype=float)
    c = np.sqrt(0.5)
    V = np.array([[c, -c], [c, c]])
    L = V @ np.diag([np.sqrt(ratio), 1.0])                 # Y's covariance L L^T = V diag(ratio, 1) V^T
    X = centres[rng.integers(len(centres), size=n)] + rng.normal(size=(n, 2))
    Y = centres[rng.integers(len(centres), size=n)] + rng.normal(size=(n, 2)) @ L.T
    return X, Y


def choose_gamma_on_split(X, Y, gammas, n_permutations: int = 200, random_state=0,
                          criterion: str = "power") -> dict:
    """Choose the RBF ``gamma`` on one half of each sample, test with it on the other half.

    ``criterion="power"`` (default): the estimated power criterion ``MMD_u^2 / sigma_H1`` of
    :func:`power_criterion` on the first halves (cut to one size); ``"null_z"``: MMD_u^2 over
    the standard deviation of its permutation null (a z-score under H0, a heuristic). The test on
    the second half, which played no part in the choice, keeps its level; the price is that it
    sees half of the data.

    Returns
    -------
    dict
        ``gammas``, ``criterion`` (one per gamma), ``gamma`` (the chosen one) and ``result``
        (the :class:`TestResult` of the second half).
    """
    X, Y = _two_samples(X, Y)
    gammas = np.array(as_positives(gammas, "gammas", item="gamma"))
    if min(len(X), len(Y)) < 6:
        raise ValueError(f"each sample needs at least 6 points to be split in two halves of 3; got "
                         f"X with shape {X.shape} and Y with shape {Y.shape}")
    rng = as_rng(random_state)
    px, py = rng.permutation(len(X)), rng.permutation(len(Y))
    hx, hy = len(X) // 2, len(Y) // 2
    Z1 = np.vstack([X[px[:hx]], Y[py[:hy]]])
    D2 = _squared_distances(Z1)
    criterion_name = check_choice(criterion, "criterion", ("power", "null_z"))
    h = min(hx, hy)
    with _one_blas_thread():
        if criterion_name == "power":
            D2h = D2[np.r_[:h, hx:hx + h]][:, np.r_[:h, hx:hx + h]]
            criterion = np.array([_criterion_from_gram(np.exp(-g * D2h), h, 1e-8)[2] for g in gammas])
        else:
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
