"""Lecture 9, section 9.4: the median heuristic on the pooled sample (ex9.q2)."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ....mean_embeddings import pooled_median_gamma
from ...model import Case, Diagnosis, Question
from ._common import ALL_MMD, MMD


# ===================================================================== ex9.q2
def _two(rng, m, n):
    X = np.round(rng.normal(size=(m, 2)), 3)
    Y = np.round(3.0 * rng.normal(size=(n, 2)) + [2.0, 0.0], 3)
    return X, Y


def _gamma_one_sample(X, Y):
    X = np.asarray(X, float)
    i, j = np.triu_indices(len(X), 1)
    return float(1 / np.median(np.sum((X[i] - X[j]) ** 2, axis=1)))


def _gamma_not_squared(X, Y):
    Z = np.vstack([X, Y])
    i, j = np.triu_indices(len(Z), 1)
    return float(1 / np.median(np.sqrt(np.sum((Z[i] - Z[j]) ** 2, axis=1))))


def _gamma_with_self(X, Y):
    Z = np.vstack([X, Y])
    d2 = np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=2)
    return float(1 / np.median(d2))


Q2 = Question(
    id="ex9.q2", title="the median heuristic on the pooled sample", function="pooled_gamma", points=2,
    kind="derive", section="9.4", reference=lambda X, Y: pooled_median_gamma(X, Y),
    cases=lambda rng: [Case(_two(rng, int(m), int(n)), label=f"m = {int(m)}, n = {int(n)}")
                       for m, n in (rng.integers(5, 15, size=2), rng.integers(5, 15, size=2))],
    fixed_cases=lambda: [Case(_two(np.random.default_rng(93), 6, 9), label="Y wider and shifted"),
                         Case((np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]),
                               np.array([[4.0, 4.0], [5.0, 3.0]])), label="five points")],
    rtol=1e-9, forbidden=(MMD + "pooled_median_gamma",
                          "kernelcourse.rkhs.bandwidth.median_heuristic"),
    diagnoses=[
        Diagnosis("one sample", "the heuristic must see both samples: on X alone the bandwidth "
                  "depends on which sample is called X, and misses the distances between them",
                  _gamma_one_sample),
        Diagnosis("not squared", "gamma multiplies the squared distance: 1 / median of ||z_i - z_j||^2",
                  _gamma_not_squared),
        Diagnosis("pairs with themselves", "a point's distance to itself (0) is no pair: take the "
                  "pairs i < j only", _gamma_with_self),
    ],
    hints=("one bandwidth for one kernel on one space: the kernel compares every point with every "
           "other, from both samples", "stack the samples, take the squared distances of the pairs "
           "i < j, and invert their median"),
)




# ===================================================================== ex9.q9
def _h(K, n):
    K = np.asarray(K, float)
    Kxy = K[:n, n:]
    return K[:n, :n] + K[n:, n:] - Kxy - Kxy.T


def _ratio(X, Y, gammas, variant="right"):
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    n = X.shape[0]
    out = []
    for g in np.atleast_1d(np.asarray(gammas, float)):
        H = _h(RBF(float(g))(np.vstack([X, Y])), n)
        if variant != "diagonal in the statistic":
            np.fill_diagonal(H, 0.0)
        mmd2 = H.sum() / (n * (n - 1)) if variant != "diagonal in the statistic" else H.mean()
        h1 = H.sum(axis=1) / (n - 1) if variant != "diagonal in h1" else _h_with_diag(X, Y, g, n).mean(axis=1)
        second = np.mean(h1**2)
        var = 4.0 / n * (second - mmd2**2) if variant != "uncentred" else 4.0 / n * second
        if variant == "1/n":
            var = var / 4.0
        out.append(mmd2 / np.sqrt(var))
    return np.array(out)


def _h_with_diag(X, Y, g, n):
    return _h(RBF(float(g))(np.vstack([X, Y])), n)


def _criterion_cases(rng, count=2):
    out = []
    for _ in range(count):
        n = int(rng.integers(12, 25))
        X = np.round(rng.normal(size=(n, 2)), 3)
        Y = np.round(rng.normal(size=(n, 2)) * [1.0, 1.8] + [0.4, 0.0], 3)
        out.append(Case((X, Y, [0.1, 0.5, 2.0]), label=f"n = {n}, three bandwidths"))
    return out


Q9 = Question(
    id="ex9.q9", title="the estimated power criterion of a bandwidth", function="power_criteria",
    points=3, kind="derive", section="9.4", reference=lambda X, Y, gammas: _ratio(X, Y, gammas),
    cases=_criterion_cases,
    fixed_cases=lambda: _criterion_cases(np.random.default_rng(290), 1) + [
        Case((np.array([[0.0], [1.0], [2.0], [3.5]]), np.array([[0.5], [2.5], [-1.0], [4.0]]), [0.3]),
             label="four numbers each, gamma = 0.3")],
    rtol=1e-7, atol=1e-10, forbidden=ALL_MMD,
    diagnoses=[
        Diagnosis("uncentred", "the variance of h_1(Z) is the mean of its square minus the square "
                  "of its mean, and the mean of h_1(Z) is MMD^2", lambda X, Y, g: _ratio(X, Y, g, "uncentred")),
        Diagnosis("1/n not 4/n", "the U-statistic's H1 variance is 4 zeta_1 / n: each z_i appears in "
                  "2 (n - 1) of the n (n - 1) ordered pairs", lambda X, Y, g: _ratio(X, Y, g, "1/n")),
        Diagnosis("diagonal in h1", "h_1(z_i) is the mean of h(z_i, z_j) over the other points, j != i: "
                  "h(z_i, z_i) pairs a point with itself", lambda X, Y, g: _ratio(X, Y, g, "diagonal in h1")),
        Diagnosis("diagonal in the statistic", "the criterion's numerator is the U-statistic, the mean "
                  "of h(z_i, z_j) over i != j", lambda X, Y, g: _ratio(X, Y, g, "diagonal in the statistic")),
    ],
    hints=("the U-statistic is a mean of h over pairs; under H1 its variance comes from how much "
           "h_1(z) = E h(z, Z') varies with z",
           "estimate h_1(z_i) from the other points, take the sample variance of these n values, "
           "and scale it as the variance of a U-statistic of order 2"),
)
