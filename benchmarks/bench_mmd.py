"""MMD^2 and the permutation test: the package against a straightforward NumPy baseline and
against random Fourier features, in one run.

Run on demand (``python3 tasks.py bench mmd`` or ``.venv/bin/python benchmarks/bench_mmd.py``).

Two samples of ``n`` points each in ``d = 5`` dimensions (the second shifted), the RBF kernel
with the pooled median heuristic, for each ``n`` of ``--sizes`` (default 2000 and 10^4):

* **MMD^2**: ``mean_embeddings.mmd2_unbiased`` (the course's tiled RBF Gram matrix of the pooled
  sample, then three block sums) against the baseline (three Gram blocks by broadcasting,
  ``np.exp``, the sums without the diagonals), and ``mmd2_rff`` with ``D`` features.
* **the permutation test, B = 1000**: ``permutation_test`` (all labellings as the columns of one
  matrix, one product ``K A``) against the baseline (a loop over the permutations, each indexing
  the three blocks of the pooled Gram matrix and summing them), and ``rff_permutation_test``
  (``Phi^T W``: O(N D B), no N x N matrix).

* **the kernel Stein discrepancy's test, B = 1000** (``--ksd-n`` points, default 500, from
  N(0, I) against the score of N(0, I)): ``ksd_test`` (wild bootstrap, one product ``U_0 W``)
  against the 1000-permutation MMD test of two samples of that size, timed in the same run;
  the ratio KSD / MMD is printed (the MMD test at n = 500 should stay within 0.25 s).

The baseline loop is timed on ``--baseline-permutations`` permutations and scaled to B; at
``n`` above ``--exact-limit`` the package's exact test too is timed on a part of the B
permutations and scaled (the column blocks of ``K A`` are independent, so its time is linear in
B). Every scaled time is marked ``*``. CPU seconds (both cores count) beside the wall time: the
machine is shared. The statistics of the package and of the baseline are checked to agree.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from kernelcourse import mean_embeddings as me
from kernelcourse.kernels import RBF


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def baseline_mmd2(X, Y, gamma):
    """The textbook way: three Gram blocks by broadcasting, no tiling, no symmetry."""
    def gram(A, B):
        return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    m, n = len(X), len(Y)
    total = 0.0
    for A, B, w in ((X, X, 1 / (m * (m - 1))), (Y, Y, 1 / (n * (n - 1)))):
        for s in range(0, len(A), 500):          # rows in blocks, or the (m, m, d) array fills memory
            blk = gram(A[s:s + 500], B)
            total += w * (blk.sum() - np.trace(blk, offset=s))
    for s in range(0, m, 500):
        total -= 2 / (m * n) * gram(X[s:s + 500], Y).sum()
    return total


def baseline_permutations(K, m, B, rng):
    """One permutation at a time: index the three blocks, sum them."""
    N = K.shape[0]
    n = N - m
    out = np.empty(B)
    for b in range(B):
        p = rng.permutation(N)
        x, y = p[:m], p[m:]
        Kxx, Kyy, Kxy = K[np.ix_(x, x)], K[np.ix_(y, y)], K[np.ix_(x, y)]
        out[b] = ((Kxx.sum() - np.trace(Kxx)) / (m * (m - 1)) + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1))
                  - 2 * Kxy.mean())
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--d", type=int, default=5)
    parser.add_argument("--D", type=int, default=500, help="random Fourier features")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--baseline-permutations", type=int, default=10)
    parser.add_argument("--exact-limit", type=int, default=4000,
                        help="above this n, the exact test is timed on 100 permutations and scaled")
    parser.add_argument("--ksd-n", type=int, default=500, help="sample size of the KSD row")
    args = parser.parse_args(argv)
    B = args.permutations
    ksd_row(args.ksd_n, args.d, B)
    rows = []
    for n in args.sizes:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, args.d))
        Y = rng.normal(size=(n, args.d)) + 0.05
        gamma = me.pooled_median_gamma(X, Y)
        ours, t_ours, c_ours = timed(lambda: me.mmd2_unbiased(X, Y, RBF(gamma)))
        base, t_base, c_base = timed(lambda: baseline_mmd2(X, Y, gamma))
        rff, t_rff, c_rff = timed(lambda: me.mmd2_rff(X, Y, gamma, args.D, estimator="unbiased"))
        assert abs(ours - base) <= 1e-9 * max(1.0, abs(base)) + 1e-12, (ours, base)
        rows.append((n, "MMD^2_u", t_ours, c_ours, False, t_base, False, t_rff, c_rff,
                     f"{ours:.3e}; RFF {rff:.3e}"))

        K = RBF(gamma)(np.vstack([X, Y]))
        B_exact = B if n <= args.exact_limit else 100
        test, t_test, c_test = timed(lambda: me.permutation_test_gram(K, n, B_exact, random_state=0))
        scale = B / B_exact
        Bb = args.baseline_permutations
        null_b, t_bl, _ = timed(lambda: baseline_permutations(K, n, Bb, np.random.default_rng(1)))
        if n <= args.exact_limit:   # the baseline's statistic is the package's for the same relabelling
            p = np.random.default_rng(2).permutation(2 * n)
            assert abs(baseline_permutations(K, n, 1, np.random.default_rng(2))[0]
                       - me.mmd2_from_gram(K[np.ix_(p, p)], n, "unbiased")) < 1e-9
        del K
        rt, t_rt, c_rt = timed(lambda: me.rff_permutation_test(X, Y, gamma, args.D, B, random_state=0))
        rows.append((n, f"test, B = {B}", t_test * scale, c_test * scale, scale != 1, t_bl * B / Bb, True,
                     t_rt, c_rt, f"p = {test.p_value:.3f}; RFF p = {rt.p_value:.3f}"))

    print(f"two samples of n points each in d = {args.d}; RBF, pooled median heuristic; D = {args.D} "
          f"random features; * = timed on part of the permutations and scaled to B = {B}")
    print(f"{'n':>6}  {'what':16} {'package s':>10} {'(CPU)':>8} {'baseline s':>11} {'base/pkg':>9} "
          f"{'RFF s':>8} {'(CPU)':>8} {'pkg/RFF':>8}  values")
    for n, what, t, c, t_scaled, tb, tb_scaled, tr, cr, values in rows:
        star, bstar = ("*" if t_scaled else " "), ("*" if tb_scaled else " ")
        print(f"{n:>6}  {what:16} {t:>9.3f}{star} {c:>8.2f} {tb:>10.2f}{bstar} {tb / t:>9.1f} "
              f"{tr:>8.3f} {cr:>8.2f} {t / tr:>8.1f}  {values}")


def ksd_row(n, d, B):
    """The KSD test against the MMD permutation test at one sample size, median of 5 runs each."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    gamma = me.pooled_median_gamma(X, Y)
    score = me.gaussian_score(np.zeros(d), np.eye(d))
    runs = {"MMD": [], "KSD": []}
    for r in range(5):
        out_m, t_m, c_m = timed(lambda: me.permutation_test(X, Y, RBF(gamma), B, random_state=r))
        out_k, t_k, c_k = timed(lambda: me.ksd_test(X, score, gamma, B, random_state=r))
        runs["MMD"].append((t_m, c_m))
        runs["KSD"].append((t_k, c_k))
    (tm, cm), (tk, ck) = (sorted(runs[k])[2] for k in ("MMD", "KSD"))
    print(f"n = {n} in d = {d}, B = {B}: MMD permutation test (2 x {n} points) {tm:.3f} s (CPU {cm:.2f}); "
          f"KSD wild-bootstrap test ({n} points) {tk:.3f} s (CPU {ck:.2f}); KSD / MMD {tk / tm:.2f}  "
          f"(p-values under H0: MMD {out_m.p_value:.3f}, KSD {out_k.p_value:.3f})")


if __name__ == "__main__":
    main()
