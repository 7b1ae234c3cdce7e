"""The kernel two-sample test (9.3): the null distribution of MMD^2 by permutation of the
pooled sample, the p-value ``(1 + #{T_b >= T}) / (1 + B)``, the test as an estimator
(:class:`MMDTest`, in :mod:`.estimator`), and its rejection rate measured by simulation (the type I error under the
null, the power under an alternative).

Every permutation's statistic is a quadratic form ``a^T K a`` of the pooled Gram matrix in
the permuted labels ``a``, so all ``B`` of them come from one product ``K A``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (as_real, as_rng, check_callable, check_finite_real, check_positive_int,
                           check_unit_interval)
from .mmd import _mmd2_labellings, _pooled, mmd2_from_gram

__all__ = ["permutation_p_value", "TestResult", "permutation_test_gram", "permutation_test",
           "rejection_rate"]


#: columns of permuted labels per block of ``K @ A`` (bounds the memory of a test)
_BLOCK = 256

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
