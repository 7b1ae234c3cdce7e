"""RBF Gram matrix K(X, X): kernelcourse against scikit-learn, measured in the same run.

Run on demand (``python3 tasks.py bench gram`` or
``.venv/bin/python benchmarks/bench_gram.py [--quick]``). For each size it prints
n, d, our time, scikit-learn's time (``sklearn.metrics.pairwise.rbf_kernel``),
their ratio, our peak memory over the size of the output, and the largest
relative difference between the two matrices.

Targets (issue 2): ratio <= 0.5 at n=10000, d=10 and <= 1.0 at n=5000, d=784;
peak memory <= 1.5x the output; relative difference <= 1e-12.

Times are the best of ``--repeat`` rounds, ours and scikit-learn's taking
turns within each round (the machine is shared: the best run is the least
disturbed). Peak memory is measured with ``tracemalloc`` (numpy reports its
array allocations to it; BLAS's own small work buffers are not seen) in a
separate, untimed call: the peak of traced memory during the call, minus what
was traced before it.
"""
from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

from kernelcourse.kernels import RBF

SIZES = [(10000, 10, 0.5), (5000, 784, 1.0)]
QUICK_SIZES = [(3000, 10, 0.5), (2000, 784, 1.0)]


def best_times(fns, repeat):
    """Best wall-clock time of each function over ``repeat`` rounds.

    The functions take turns within each round, so that a busy spell on the
    shared machine hits both sides alike.
    """
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            start = time.perf_counter()
            out = fn()
            best[i] = min(best[i], time.perf_counter() - start)
            del out
    return best


def peak_bytes(fn):
    """Peak traced allocation during ``fn()`` beyond what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del out
    return peak


def max_relative_difference(K, R, rows=500):
    """max |K - R| / |R| over the entries, computed in row chunks to spare memory."""
    worst = 0.0
    for i in range(0, K.shape[0], rows):
        k, r = K[i:i + rows], R[i:i + rows]
        worst = max(worst, float(np.max(np.abs(k - r) / np.abs(r))))
    return worst


def run(n, d, target, repeat):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    gamma = 1.0 / d
    k = RBF(gamma=gamma)
    ours, theirs = best_times([lambda: k(X), lambda: rbf_kernel(X, gamma=gamma)], repeat)
    output_bytes = n * n * 8
    mem_ours = peak_bytes(lambda: k(X)) / output_bytes
    mem_theirs = peak_bytes(lambda: rbf_kernel(X, gamma=gamma)) / output_bytes
    K = k(X)
    R = rbf_kernel(X, gamma=gamma)
    rel = max_relative_difference(K, R)
    symmetric = bool(np.array_equal(K, K.T))
    del K, R
    ratio = ours / theirs
    print(f"{n:>6} {d:>4} {ours:>9.3f} {theirs:>9.3f} {ratio:>6.2f} (<= {target:.1f}) "
          f"{mem_ours:>8.2f} {mem_theirs:>8.2f} {rel:>10.1e} {str(symmetric):>6}", flush=True)
    return ratio, mem_ours, rel


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("RBF Gram K(X, X), X ~ N(0, I), gamma = 1/d; times in seconds, best of "
          f"{args.repeat}; memory = tracemalloc peak / output bytes")
    print(f"{'n':>6} {'d':>4} {'ours':>9} {'sklearn':>9} {'ratio':>6} {'':>8} "
          f"{'mem ours':>8} {'mem skl':>8} {'max rel':>10} {'sym':>6}")
    for n, d, target in (QUICK_SIZES if args.quick else SIZES):
        run(n, d, target, args.repeat)


if __name__ == "__main__":
    main()
