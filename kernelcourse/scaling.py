"""Why exact kernel methods stop scaling: measured costs and their fitted exponents (lecture 6.1).

An exact kernel method on ``n`` examples holds the ``n x n`` Gram matrix
(``8 n^2`` bytes in float64: 8 GB at ``n = 3 * 10^4``), computes it in
``O(n^2 d)`` and, for kernel ridge regression, solves with it in ``O(n^3)``.
:func:`measure_exact` times both steps and records the peak memory for a few
``n``; :func:`power_law_exponent` fits ``cost = C n^p`` through the
measurements by least squares on ``log cost = log C + p log n``, so that the
exponents 2 and 3 can be read off a measurement rather than taken on trust.
Timings depend on the machine and on what else it runs; the exponents much less.
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np

from kernelcourse._validation import (as_counts, as_finite, as_rng, check_nonnegative, check_positive,
                                      check_positive_int)

__all__ = ["power_law_exponent", "measure_exact"]


def power_law_exponent(n, cost):
    """Fit ``cost = C n^p`` by least squares in log-log; returns ``(p, C)``.

    Parameters
    ----------
    n, cost : arrays of the same length (at least 2), all entries positive.
    """
    n = as_finite(n, "n")
    cost = as_finite(cost, "cost")
    if n.ndim != 1 or n.shape != cost.shape or n.size < 2:
        raise ValueError(f"n and cost must be 1-D of the same length, at least 2; got shapes "
                         f"{n.shape} and {cost.shape}")
    if np.any(n <= 0) or np.any(cost <= 0):
        raise ValueError(f"n and cost must be positive to take logarithms; got n={n.tolist()} "
                         f"and cost={cost.tolist()}")
    if np.ptp(n) == 0:
        raise ValueError(f"n must take at least two different values; got n={n.tolist()}")
    p, log_c = np.polyfit(np.log(n), np.log(cost), 1)
    return float(p), float(np.exp(log_c))


def _timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        out = None                              # the previous result is freed before the next call
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def measure_exact(n_values, d: int = 10, gamma: float = 0.1, lam: float = 1.0, repeat: int = 3,
                  solve: bool = True, random_state=0):
    """Time the RBF Gram matrix and the kernel ridge solve, and measure the Gram's memory, per ``n``.

    Returns
    -------
    dict of arrays, one entry per ``n``
        ``n``; ``gram_seconds`` (best of ``repeat``); ``gram_bytes`` (the peak
        memory Python allocated while computing it, traced with ``tracemalloc``;
        at least the matrix's ``8 n^2`` bytes); ``solve_seconds`` (the
        Cholesky solve of ``(K + lam I) alpha = y``, NaN when ``solve=False``).
    """
    from kernelcourse.kernels import RBF
    from kernelcourse.ridge import dual_ridge

    n_values = as_counts(n_values, "n_values")
    d = check_positive_int(d, "d")
    kernel = RBF(check_positive(gamma, "gamma"))
    lam = check_nonnegative(lam, "lam")
    repeat = check_positive_int(repeat, "repeat")
    rng = as_rng(random_state)
    out = {"n": np.array(n_values), "gram_seconds": [], "gram_bytes": [], "solve_seconds": []}
    X0 = rng.standard_normal((200, d))          # warm-up: first calls load code and start threads
    dual_ridge(kernel(X0), X0[:, 0], lam)
    for n in n_values:
        X = rng.standard_normal((n, d))
        y = rng.standard_normal(n)
        tracemalloc.start()
        try:
            K = kernel(X)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        del K                                   # never two n x n matrices at once
        seconds, K = _timed(lambda: kernel(X), repeat)
        out["gram_seconds"].append(seconds)
        out["gram_bytes"].append(peak)
        out["solve_seconds"].append(_timed(lambda: dual_ridge(K, y, lam), repeat)[0]
                                    if solve else np.nan)
        del K
    return {k: np.asarray(v, dtype=float) if k != "n" else v for k, v in out.items()}
