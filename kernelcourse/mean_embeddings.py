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

HSIC_b = tr(K H L H) / n^2 (Gretton, Bousquet, Smola and Schoelkopf, ALT 2005) is the squared
MMD between the joint distribution and the product of its marginals, under the product
kernel. With the distance-induced kernel ``(|x| + |z| - |x - z|) / 2``, 2 MMD^2 is the energy
distance and 4 HSIC the distance covariance (Sejdinovic, Sriperumbudur, Gretton and Fukumizu,
Ann. Statist. 2013).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator

from ._validation import (as_2d, as_pair, as_real, as_positives, as_rng, check_callable, check_choice,
                          check_finite_real, check_positive, check_positive_int, check_square,
                          check_unit_interval)
from .feature_space import center_gram
from .kernels import RBF, Kernel, as_kernel
from .random_features import RandomFourierFeatures
from .rkhs.bandwidth import median_heuristic

__all__ = [
    "mean_embedding", "witness",
    "mmd2_biased", "mmd2_unbiased", "mmd2_linear", "mmd2_from_gram",
    "permutation_p_value", "TestResult", "permutation_test_gram", "permutation_test", "MMDTest",
    "pooled_median_gamma", "choose_gamma_on_split", "rejection_rate", "power_against_gamma",
    "hsic_biased", "hsic_from_gram", "hsic_test",
    "DistanceKernel", "energy_distance", "distance_covariance",
    "mmd2_rff", "rff_permutation_test",
    "gaussian_mmd2",
]

ESTIMATORS = ("biased", "unbiased")
#: columns of permuted labels per block of ``K @ A`` (bounds the memory of a test)
_BLOCK = 256


# ----------------------------------------------------------------------------- inputs
def _two_samples(X, Y):
    return as_pair(X, Y, names=("X", "Y"))


def _resolve(kernel, X, Y):
    """The kernel object: None is the RBF kernel with the pooled median heuristic, a name is
    scikit-learn's kernel of that name."""
    if kernel is None:
        return RBF(gamma=pooled_median_gamma(X, Y))
    return as_kernel(kernel, X.shape[1])


_CONTROLLER = []
#: pooled samples up to this size are tested with one BLAS thread
_ONE_THREAD_UP_TO = 2000


def _one_blas_thread(N: int = 0):
    """A context in which BLAS uses one thread (for pooled samples of at most
    ``_ONE_THREAD_UP_TO`` points): many small products otherwise spend most of their time in
    the threads' start and wait, above all on a busy machine (power_against_gamma: 0.2 s of CPU
    on one thread, 5 s on two, under load). The controller is made once (about 3 us a use)."""
    import contextlib

    if N > _ONE_THREAD_UP_TO:
        return contextlib.nullcontext()
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
            _CONTROLLER.append(ThreadpoolController())
        except ImportError:  # pragma: no cover
            _CONTROLLER.append(None)
    if _CONTROLLER[0] is None:  # pragma: no cover
        return contextlib.nullcontext()
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _gram(kernel, A, B=None):
    K = kernel(A) if B is None else kernel(A, B)
    K = np.asarray(K, dtype=float)
    if not np.all(np.isfinite(K)):
        raise ValueError(f"kernel {kernel!r} returned NaN or inf entries")
    return K


# ----------------------------------------------------------------------------- embeddings
def mean_embedding(X, T, kernel=None) -> np.ndarray:
    """The empirical mean embedding of the sample ``X`` at the points ``T``:
    ``mu_hat(t) = (1/m) sum_i k(x_i, t)``, shape ``(len(T),)``.

    ``kernel=None`` is the RBF kernel with the median heuristic on ``X``.
    """
    X, T = as_pair(X, T, names=("X", "T"))
    kernel = RBF(median_heuristic(X)) if kernel is None else as_kernel(kernel, X.shape[1])
    return _gram(kernel, T, X).mean(axis=1)


def witness(X, Y, T, kernel=None) -> np.ndarray:
    """The (unnormalised) witness function ``mu_X - mu_Y`` at the points ``T``.

    Its RKHS norm is the biased MMD; divided by that norm it is the function of the unit
    ball on which the sample means differ most. ``kernel=None``: RBF, pooled median heuristic.
    """
    X, Y = _two_samples(X, Y)
    _, T = as_pair(X, T, names=("X", "T"))
    kernel = _resolve(kernel, X, Y)
    return _gram(kernel, T, X).mean(axis=1) - _gram(kernel, T, Y).mean(axis=1)


# ----------------------------------------------------------------------------- MMD^2
def mmd2_from_gram(K, m: int, estimator: str = "unbiased") -> float:
    """MMD^2 from the pooled Gram matrix ``K`` of ``[X; Y]``, ``X`` its first ``m`` rows.

    biased:   mean K_XX + mean K_YY - 2 mean K_XY (every pair, i = j included);
    unbiased: the sums of K_XX and K_YY without their diagonals over m (m - 1) and n (n - 1).
    """
    K = check_square(K, "K")
    m = check_positive_int(m, "m")
    estimator = check_choice(estimator, "estimator", ESTIMATORS)
    N = K.shape[0]
    n = N - m
    if n < 1:
        raise ValueError(f"m must leave at least one row of K for Y; got m={m} with K of shape {K.shape}")
    if estimator == "unbiased" and min(m, n) < 2:
        raise ValueError(f"the unbiased estimate needs at least two points in each sample; got "
                         f"m={m} and n={n}")
    a = np.zeros((N, 1))
    a[:m] = 1.0
    return float(_mmd2_labellings(K, a, m, estimator)[0])


def _mmd2_labellings(K, A, m, estimator, row_sums=None, diag=None, total=None):
    """MMD^2 for every column of ``A`` (N x B, 1 on the rows called X, 0 on Y).

    With ``c = a^T K a``, ``f = a^T K (1 - a) = a^T K 1 - c`` and ``e = 1^T K 1 - c - 2 f``,
    the three block sums come from one quadratic form per column: one product ``K A``.
    """
    N = K.shape[0]
    n = N - m
    row_sums = K.sum(axis=1) if row_sums is None else row_sums
    total = float(row_sums.sum()) if total is None else total
    c = np.einsum("ib,ib->b", A, K @ A)
    f = row_sums @ A - c
    e = total - c - 2.0 * f
    if estimator == "biased":
        return c / m**2 + e / n**2 - 2.0 * f / (m * n)
    diag = np.diag(K) if diag is None else diag
    dx = diag @ A
    dy = float(diag.sum()) - dx
    return (c - dx) / (m * (m - 1)) + (e - dy) / (n * (n - 1)) - 2.0 * f / (m * n)


def _pooled(X, Y, kernel):
    X, Y = _two_samples(X, Y)
    kernel = _resolve(kernel, X, Y)
    return _gram(kernel, np.vstack([X, Y])), X.shape[0], kernel


def mmd2_biased(X, Y, kernel=None) -> float:
    """The biased (V-statistic) estimate of MMD^2, ``||mu_hat_X - mu_hat_Y||^2`` (never negative).

    .. math:: \\frac1{m^2}\\sum_{i,j} k(x_i, x_j) + \\frac1{n^2}\\sum_{i,j} k(y_i, y_j)
              - \\frac2{mn}\\sum_{i,j} k(x_i, y_j)
    """
    K, m, _ = _pooled(X, Y, kernel)
    return mmd2_from_gram(K, m, "biased")


def mmd2_unbiased(X, Y, kernel=None) -> float:
    """The unbiased (U-statistic) estimate of MMD^2 (may be negative).

    .. math:: \\frac1{m(m-1)}\\sum_{i \\ne j} k(x_i, x_j) + \\frac1{n(n-1)}\\sum_{i \\ne j} k(y_i, y_j)
              - \\frac2{mn}\\sum_{i,j} k(x_i, y_j)
    """
    K, m, _ = _pooled(X, Y, kernel)
    return mmd2_from_gram(K, m, "unbiased")


def _paired_values(kernel, A, B, block: int = 64) -> np.ndarray:
    """``k(a_i, b_i)`` for every row pair, from small diagonal blocks: O(n) kernel values."""
    out = np.empty(A.shape[0])
    for s in range(0, A.shape[0], block):
        out[s:s + block] = np.diag(_gram(kernel, A[s:s + block], B[s:s + block]))
    return out


def mmd2_linear(X, Y, kernel=None) -> float:
    """The linear-time estimate of MMD^2 over disjoint pairs (samples of one size ``n >= 2``).

    .. math:: \\frac1{\\lfloor n/2 \\rfloor}\\sum_{i} k(x_{2i-1}, x_{2i}) + k(y_{2i-1}, y_{2i})
              - k(x_{2i-1}, y_{2i}) - k(x_{2i}, y_{2i-1})

    Unbiased, with O(n) kernel evaluations instead of O(n^2); an odd last point is left out.
    """
    X, Y = _two_samples(X, Y)
    if X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ValueError(f"the linear-time estimate pairs X and Y row by row: they need the same "
                         f"number of rows, at least 2; got X with shape {X.shape} and Y with shape {Y.shape}")
    kernel = _resolve(kernel, X, Y)
    h = len(X) // 2
    x1, x2, y1, y2 = X[0:2 * h:2], X[1:2 * h:2], Y[0:2 * h:2], Y[1:2 * h:2]
    terms = (_paired_values(kernel, x1, x2) + _paired_values(kernel, y1, y2)
             - _paired_values(kernel, x1, y2) - _paired_values(kernel, x2, y1))
    return float(terms.mean())


# ----------------------------------------------------------------------------- the permutation test
def permutation_p_value(statistic, null) -> float:
    """``(1 + #{T_b >= T}) / (1 + B)``: the observed labelling counts as one of the ``B + 1``.

    Never 0, and at most ``alpha`` with probability at most ``alpha`` under the null.
    """
    statistic = check_finite_real(statistic, "statistic")
    null = as_real(null, "null")
    if null.ndim != 1 or null.size == 0 or not np.all(np.isfinite(null)):
        raise ValueError(f"null must be a non-empty 1-D array of finite statistics; got shape {null.shape}")
    return float((1 + np.count_nonzero(null >= statistic)) / (1 + null.size))


@dataclass
class TestResult:
    """A permutation test's outcome: the statistic, its ``B`` permuted values, the p-value."""

    statistic: float
    null: np.ndarray
    p_value: float
    kernel: object = None

    __test__ = False  # not a pytest class

    def reject(self, alpha: float = 0.05) -> bool:
        """Whether the p-value is at most ``alpha``."""
        return self.p_value <= check_unit_interval(alpha, "alpha")


def _label_columns(N, m, B, rng):
    """``B`` random labellings as an (N, B) matrix, m ones per column: the ranks of a random
    permutation below m."""
    ranks = rng.permuted(np.tile(np.arange(N), (B, 1)), axis=1)
    return (ranks < m).T.astype(float)


def permutation_test_gram(K, m: int, n_permutations: int = 1000, estimator: str = "unbiased",
                          random_state=None) -> TestResult:
    """The two-sample test on the pooled Gram matrix ``K`` (``X`` its first ``m`` rows).

    Every permutation relabels the pooled sample; the ``B`` statistics are computed together,
    ``K`` times the (N, B) matrix of labels in blocks of columns.
    """
    statistic = mmd2_from_gram(K, m, estimator)       # checks K, m and the estimator
    K = np.asarray(K, dtype=float)
    B = check_positive_int(n_permutations, "n_permutations")
    rng = as_rng(random_state)
    N = K.shape[0]
    row_sums, diag = K.sum(axis=1), np.diag(K).copy()
    total = float(row_sums.sum())
    null = np.empty(B)
    with _one_blas_thread(N):
        for s in range(0, B, _BLOCK):
            A = _label_columns(N, m, min(_BLOCK, B - s), rng)
            null[s:s + A.shape[1]] = _mmd2_labellings(K, A, m, estimator, row_sums, diag, total)
    return TestResult(statistic, null, permutation_p_value(statistic, null))


def permutation_test(X, Y, kernel=None, n_permutations: int = 1000, estimator: str = "unbiased",
                     random_state=None) -> TestResult:
    """The kernel two-sample test of ``P = Q`` by permutation (``kernel=None``: RBF with the
    median heuristic on the pooled sample). The result's ``kernel`` is the kernel used."""
    K, m, kernel = _pooled(X, Y, kernel)
    result = permutation_test_gram(K, m, n_permutations, estimator, random_state)
    result.kernel = kernel
    return result


class MMDTest(BaseEstimator):
    """The kernel two-sample test as an object: parameters in ``__init__``, results after ``fit``.

    Parameters
    ----------
    kernel : kernel object, name or None (RBF with the pooled median heuristic)
    estimator : "unbiased" or "biased"
    n_permutations : int, default 1000
    alpha : float in (0, 1), default 0.05
    random_state : None, int or Generator

    Attributes
    ----------
    kernel_, statistic_, null_, p_value_, reject_ (p_value_ <= alpha)
    """

    def __init__(self, kernel=None, estimator="unbiased", n_permutations=1000, alpha=0.05,
                 random_state=None):
        self.kernel = kernel
        self.estimator = estimator
        self.n_permutations = n_permutations
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X, Y) -> "MMDTest":
        """Test whether the samples ``X`` and ``Y`` come from one distribution; returns self."""
        alpha = check_unit_interval(self.alpha, "alpha")
        result = permutation_test(X, Y, self.kernel, self.n_permutations, self.estimator,
                                  self.random_state)
        self.kernel_, self.statistic_ = result.kernel, result.statistic
        self.null_, self.p_value_ = result.null, result.p_value
        self.reject_ = bool(result.p_value <= alpha)
        return self


# ----------------------------------------------------------------------------- choosing the kernel
def pooled_median_gamma(X, Y, max_points: int = 1000, random_state=0) -> float:
    """The median heuristic (5.11) on the pooled sample ``[X; Y]``: ``1 / median ||z_i - z_j||^2``.

    On more than ``max_points`` points, on a random subset of that size (the median of a
    million distances is as good as of all of them).
    """
    X, Y = _two_samples(X, Y)
    Z = np.vstack([X, Y])
    max_points = check_positive_int(max_points, "max_points")
    if Z.shape[0] > max_points:
        Z = Z[as_rng(random_state).choice(Z.shape[0], max_points, replace=False)]
    return median_heuristic(Z)


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


def rejection_rate(draw, kernel=None, n_trials: int = 100, alpha: float = 0.05,
                   n_permutations: int = 200, estimator: str = "unbiased", random_state=0) -> dict:
    """How often the test rejects at level ``alpha`` over ``n_trials`` fresh pairs of samples.

    ``draw(rng) -> (X, Y)`` makes one pair. Under the null it measures the type I error, under
    an alternative the power. Returns ``{"rate", "p_values"}``.
    """
    check_callable(draw, "draw", "draw(rng) -> (X, Y)")
    n_trials = check_positive_int(n_trials, "n_trials")
    alpha = check_unit_interval(alpha, "alpha")
    rng = as_rng(random_state)
    with _one_blas_thread():
        p = np.array([permutation_test(*draw(rng), kernel=kernel, n_permutations=n_permutations,
                                       estimator=estimator, random_state=rng).p_value
                      for _ in range(n_trials)])
    return {"rate": float(np.mean(p <= alpha)), "p_values": p}


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


# ----------------------------------------------------------------------------- HSIC
def hsic_from_gram(K, L) -> float:
    """HSIC_b = tr(K H L H) / n^2 from the two Gram matrices of the paired sample.

    Computed as ``sum((H K H) * L) / n^2``: since ``H`` is idempotent, centring one of the two
    matrices on both sides is enough.
    """
    K, L = check_square(K, "K"), check_square(L, "L")
    if K.shape != L.shape:
        raise ValueError(f"K and L must be Gram matrices of the same paired sample; got K with "
                         f"shape {K.shape} and L with shape {L.shape}")
    return float(np.sum(center_gram(K) * L) / K.shape[0] ** 2)


def _paired(X, Y):
    X, Y = as_2d(X, "X"), as_2d(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must hold the same number of paired observations; got X with "
                         f"shape {X.shape} and Y with shape {Y.shape}")
    if X.shape[0] < 2:
        raise ValueError(f"HSIC needs at least two observations; got X with shape {X.shape}")
    return X, Y


def _grams_xy(X, Y, kernel_x, kernel_y):
    X, Y = _paired(X, Y)
    kx = RBF(median_heuristic(X)) if kernel_x is None else as_kernel(kernel_x, X.shape[1], "kernel_x")
    ky = RBF(median_heuristic(Y)) if kernel_y is None else as_kernel(kernel_y, Y.shape[1], "kernel_y")
    return _gram(kx, X), _gram(ky, Y)


def hsic_biased(X, Y, kernel_x=None, kernel_y=None) -> float:
    """HSIC_b of the paired sample ``(x_i, y_i)``; ``None`` kernels are RBF kernels with the
    median heuristic on ``X`` and on ``Y``, each on its own variable."""
    return hsic_from_gram(*_grams_xy(X, Y, kernel_x, kernel_y))


def hsic_test(X, Y, kernel_x=None, kernel_y=None, n_permutations: int = 1000,
              random_state=None) -> TestResult:
    """The HSIC test of independence: permuting the ``y_i`` against the ``x_i`` breaks any
    dependence, and each permutation's HSIC_b is ``sum((H K H) * L[p][:, p]) / n^2``."""
    K, L = _grams_xy(X, Y, kernel_x, kernel_y)
    B = check_positive_int(n_permutations, "n_permutations")
    rng = as_rng(random_state)
    n = K.shape[0]
    Kc = center_gram(K)
    statistic = float(np.sum(Kc * L) / n**2)
    null = np.empty(B)
    for b in range(B):
        p = rng.permutation(n)
        null[b] = np.sum(Kc * L[np.ix_(p, p)]) / n**2
    return TestResult(statistic, null, permutation_p_value(statistic, null))


# ----------------------------------------------------------------------------- distances (9.6)
class DistanceKernel(Kernel):
    """The distance-induced kernel ``k(x, z) = (||x|| + ||z|| - ||x - z||) / 2`` (centred at 0).

    With it, 2 MMD^2 (biased) is the energy distance and 4 HSIC_b the distance covariance
    (Sejdinovic et al. 2013). It is positive definite on the data (the Euclidean distance is
    of negative type), but not a kernel of the RBF family: it grows with the points.
    """

    def _gram(self, X, Z, symmetric):
        nx = np.sqrt((X * X).sum(axis=1))
        nz = nx if symmetric else np.sqrt((Z * Z).sum(axis=1))
        return 0.5 * (nx[:, None] + nz[None, :] - cdist(X, X if symmetric else Z))

    def _diag(self, X):
        return np.sqrt((X * X).sum(axis=1))


def energy_distance(X, Y) -> float:
    """The squared energy distance ``2 E||X - Y|| - E||X - X'|| - E||Y - Y'||`` of two samples
    (V-statistics: every pair, i = j included)."""
    X, Y = _two_samples(X, Y)
    return float(2 * cdist(X, Y).mean() - cdist(X, X).mean() - cdist(Y, Y).mean())


def distance_covariance(X, Y) -> float:
    """The squared distance covariance dCov_n^2 (Szekely, Rizzo and Bakirov 2007): the mean of
    the products of the double-centred distance matrices of ``X`` and of ``Y``."""
    X, Y = _paired(X, Y)
    A, B = cdist(X, X), cdist(Y, Y)
    A = A - A.mean(axis=0) - A.mean(axis=1)[:, None] + A.mean()
    B = B - B.mean(axis=0) - B.mean(axis=1)[:, None] + B.mean()
    return float((A * B).mean())


# ----------------------------------------------------------------------------- random features (9.7)
def _features(X, Y, gamma, n_components, random_state):
    X, Y = _two_samples(X, Y)
    gamma = pooled_median_gamma(X, Y) if gamma is None else check_positive(gamma, "gamma")
    rff = RandomFourierFeatures(gamma=gamma, n_components=n_components, random_state=random_state)
    Phi = rff.fit_transform(np.vstack([X, Y]))
    return Phi, X.shape[0]


def mmd2_rff(X, Y, gamma=None, n_components: int = 500, estimator: str = "biased",
             random_state=0) -> float:
    """MMD^2 under the RBF kernel ``exp(-gamma ||x - z||^2)`` from ``D`` random Fourier features:
    O((m + n) D) instead of O((m + n)^2).

    biased: ``||mean psi(X) - mean psi(Y)||^2``; unbiased: the same without the ``i = j`` terms.
    ``gamma=None``: the pooled median heuristic.
    """
    check_positive_int(n_components, "n_components")
    estimator = check_choice(estimator, "estimator", ESTIMATORS)
    Phi, m = _features(X, Y, gamma, n_components, random_state)
    n = Phi.shape[0] - m
    if estimator == "unbiased" and min(m, n) < 2:
        raise ValueError(f"the unbiased estimate needs at least two points in each sample; got "
                         f"{m} and {n}")
    sx, sy = Phi[:m].sum(axis=0), Phi[m:].sum(axis=0)
    if estimator == "biased":
        return float(np.sum((sx / m - sy / n) ** 2))
    qx, qy = float(np.sum(Phi[:m] ** 2)), float(np.sum(Phi[m:] ** 2))
    return float((sx @ sx - qx) / (m * (m - 1)) + (sy @ sy - qy) / (n * (n - 1))
                 - 2.0 * (sx @ sy) / (m * n))


def rff_permutation_test(X, Y, gamma=None, n_components: int = 500, n_permutations: int = 1000,
                         random_state=0) -> TestResult:
    """The two-sample test on the biased MMD^2 of random Fourier features: each labelling's
    statistic is ``||Phi^T w||^2`` with ``w = a/m - (1 - a)/n``, all of them from ``Phi^T W``:
    O(N D B), no N x N matrix."""
    check_positive_int(n_components, "n_components")
    B = check_positive_int(n_permutations, "n_permutations")
    Phi, m = _features(X, Y, gamma, n_components, random_state)
    N, n = Phi.shape[0], Phi.shape[0] - m
    rng = as_rng(random_state)
    w = np.r_[np.full(m, 1.0 / m), np.full(n, -1.0 / n)]
    statistic = float(np.sum((Phi.T @ w) ** 2))
    null = np.empty(B)
    with _one_blas_thread(N):
        for s in range(0, B, _BLOCK):
            A = _label_columns(N, m, min(_BLOCK, B - s), rng)
            W = A / m - (1.0 - A) / n
            null[s:s + A.shape[1]] = np.sum((Phi.T @ W) ** 2, axis=0)
    return TestResult(statistic, null, permutation_p_value(statistic, null))


# ----------------------------------------------------------------------------- closed form (9.2)
def _gaussian(mean, cov, name):
    """A Gaussian's mean (a number or a 1-D vector) and covariance (a number times the identity
    or a d x d symmetric PSD matrix), checked."""
    mean = as_real(mean, f"mean_{name}")
    mean = mean.reshape(1) if mean.ndim == 0 else mean
    if mean.ndim != 1 or mean.size == 0 or not np.all(np.isfinite(mean)):
        raise ValueError(f"mean_{name} must be a finite number or a non-empty finite 1-D vector; "
                         f"got shape {mean.shape}")
    d = mean.shape[0]
    cov = as_real(cov, f"cov_{name}")
    cov = cov * np.eye(d) if cov.ndim == 0 else cov
    if cov.shape != (d, d):
        raise ValueError(f"cov_{name} must be a number or a ({d}, {d}) matrix to match mean_{name} of "
                         f"shape ({d},); got shape {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"cov_{name} contains NaN or inf")
    eig = np.linalg.eigvalsh(0.5 * (cov + cov.T))
    if not np.allclose(cov, cov.T) or eig[0] < -1e-12 * max(1.0, eig[-1]):
        raise ValueError(f"cov_{name} must be a symmetric positive semi-definite covariance; its "
                         f"smallest eigenvalue is {eig[0]:.3g}")
    return mean, cov


def _expected_kernel(a, A, b, B, gamma):
    """E exp(-gamma ||X - Y||^2) for independent X ~ N(a, A), Y ~ N(b, B)."""
    d = a.shape[0]
    S = np.eye(d) + 2.0 * gamma * (A + B)
    delta = a - b
    quad = float(delta @ np.linalg.solve(S, delta))
    return math.exp(-gamma * quad) / math.sqrt(np.linalg.det(S))


def gaussian_mmd2(mean_p, cov_p, mean_q, cov_q, gamma) -> float:
    """The population MMD^2 between ``N(mean_p, cov_p)`` and ``N(mean_q, cov_q)`` under the RBF
    kernel ``exp(-gamma ||x - z||^2)``, in closed form.

    ``E exp(-gamma ||X - Y||^2) = det(I + 2 gamma (A + B))^(-1/2)
    exp(-gamma (a - b)^T (I + 2 gamma (A + B))^(-1) (a - b))`` for independent Gaussians,
    used three times. A covariance may be a number (times the identity).
    """
    gamma = check_positive(gamma, "gamma")
    a, A = _gaussian(mean_p, cov_p, "p")
    b, B = _gaussian(mean_q, cov_q, "q")
    if a.shape != b.shape:
        raise ValueError(f"mean_p and mean_q must have the same dimension; got {a.shape[0]} and {b.shape[0]}")
    return (_expected_kernel(a, A, a, A, gamma) + _expected_kernel(b, B, b, B, gamma)
            - 2.0 * _expected_kernel(a, A, b, B, gamma))
