"""Kernel methods at scale (lecture 6): RFFRidge on a million examples, Nystroem and KernelPCA
against scikit-learn, all measured in the same run.

Run on demand (``python3 tasks.py bench scale`` or ``.venv/bin/python benchmarks/bench_scale.py``).

Targets (issue 12), on a 2-core machine:

1. ``RFFRidge`` at n = 10^6, d = 10, D = 1000: wall time below 30 s and peak memory below
   2 GiB, for the NumPy path (one process, chunks in a loop) and the Dask path (a
   ``LocalCluster`` of two worker processes, the data made by the workers). The reference is
   scikit-learn's ``RBFSampler`` + ``Ridge`` on the whole feature matrix, which at n = 10^6 would
   need 8 GB for the features alone: it is timed at ``--n-ref`` rows and both of ours at the
   same size, for the ratio, then ours alone at n = 10^6.
2. ``Nystroem`` fit + transform at n = 20000, m = 1000: at most 1.0x scikit-learn's ``Nystroem``.
3. ``KernelPCA`` fit + transform at n = 3000 (2 components): at most 1.0x scikit-learn's ``KernelPCA``.

Peak memory: for the NumPy path, the largest memory Python allocated during the fit (traced
with ``tracemalloc``, which sees NumPy's arrays), plus the data; for the Dask path, the largest
resident set of each worker process (``ru_maxrss``, the workers being fresh) added up, plus the
client's traced peak. Times are best of ``--repeat`` (the machine is shared with other work:
read the ratios, measured in the same run, rather than the seconds).
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge

from timing import interleaved

from kernelcourse.chunked_ridge import RFFRidge
from kernelcourse.datasets import smooth_regression, smooth_regression_dask
from kernelcourse.kernel_pca import KernelPCA
from kernelcourse.kernels import RBF
from kernelcourse.nystroem import Nystroem

GIB = 2.0**30


def traced(fn):
    """``(seconds, peak bytes allocated through Python)`` of one call of ``fn``."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        fn()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return seconds, peak


def worker_peak_rss(client):
    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024      # KiB on Linux
    return sum(client.run(peak).values())


def rff_ridge(args):
    from distributed import Client, LocalCluster

    gamma, lam, D, d, chunk = 0.02, 0.1, args.D, 10, args.chunk
    dtype = np.float32 if args.dtype == "float32" else np.float64
    print(f"1. RFFRidge, d = {d}, D = {D}, chunks of {chunk} rows, features in {args.dtype}")

    # ratio against scikit-learn at a size its full feature matrix fits in memory
    X, y = smooth_regression(args.n_ref, d, random_state=0)

    def sklearn_fit():
        Phi = RBFSampler(gamma=gamma, n_components=D, random_state=0).fit_transform(X).astype(dtype)
        Ridge(alpha=lam, fit_intercept=False, solver="cholesky").fit(Phi, y)

    ours = RFFRidge(gamma, D, lam, chunk, random_state=0, dtype=dtype)
    t = interleaved({"sk": sklearn_fit, "ours": lambda: ours.fit(X, y)}, repeat=args.repeat)
    print(f"   n = {args.n_ref:,}: scikit-learn RBFSampler + Ridge {t['sk']:6.2f} s; "
          f"RFFRidge (NumPy) {t['ours']:6.2f} s, ratio {t['ours'] / t['sk']:.2f}x")
    del X, y

    # n = 10^6, NumPy path: data in this process
    X, y = smooth_regression(args.n, d, random_state=0)
    seconds, peak = traced(lambda: ours.fit(X, y))
    total = peak + X.nbytes + y.nbytes
    print(f"   n = {args.n:,}, NumPy path:  {seconds:6.1f} s (target < 30 s), peak memory "
          f"{total / GIB:.2f} GiB (target < 2 GiB)")
    Xt, yt = smooth_regression(20_000, d, noise=0.0, random_state=1)
    rmse = lambda p: float(np.sqrt(np.mean((p - yt) ** 2)))
    pred_numpy = ours.predict(Xt)
    del X, y

    # n = 10^6, Dask path: two worker processes, the data made by the workers
    start = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        started = time.perf_counter() - start
        Xd, yd = smooth_regression_dask(args.n, d, chunk_size=chunk, random_state=0)
        model = RFFRidge(gamma, D, lam, chunk, random_state=0, dtype=dtype)
        seconds, peak = traced(lambda: model.fit(Xd, yd))
        rss = worker_peak_rss(client)
    print(f"   n = {args.n:,}, Dask path:   {seconds:6.1f} s on 2 worker processes (target < 30 s; "
          f"{started:.1f} s more to start them), peak memory {(rss + peak) / GIB:.2f} GiB "
          f"(workers' resident sets {rss / GIB:.2f} GiB; target < 2 GiB)")
    # the data differ (each chunk made by a worker from its own stream): compare test errors
    print(f"   test RMSE: NumPy path {rmse(pred_numpy):.3f}, Dask path {rmse(model.predict(Xt)):.3f}")


def nystroem(args):
    n, m = args.n_nystroem, 1000
    X = np.random.default_rng(0).standard_normal((n, 10))
    ours = Nystroem(RBF(0.1), n_components=m, random_state=0)
    sk = SkNystroem(kernel="rbf", gamma=0.1, n_components=m, random_state=0)
    t = interleaved({"sk": lambda: sk.fit(X).transform(X), "ours": lambda: ours.fit(X).transform(X)},
                    repeat=args.repeat)
    print(f"2. Nystroem fit + transform, n = {n}, m = {m}: scikit-learn {t['sk']:.3f} s, "
          f"ours {t['ours']:.3f} s, ratio {t['ours'] / t['sk']:.2f}x (target <= 1.0x)")


def kernel_pca(args):
    n = args.n_kpca
    X = np.random.default_rng(0).standard_normal((n, 10))
    ours = KernelPCA(RBF(0.1), n_components=2)
    sk = SkKernelPCA(n_components=2, kernel="rbf", gamma=0.1, random_state=0)
    t = interleaved({"sk": lambda: sk.fit(X).transform(X), "ours": lambda: ours.fit(X).transform(X)},
                    repeat=args.repeat)
    diff = np.abs(np.abs(ours.transform(X[:100])) - np.abs(sk.transform(X[:100]))).max()
    print(f"3. KernelPCA fit + transform, n = {n}, 2 components: scikit-learn {t['sk']:.3f} s, "
          f"ours {t['ours']:.3f} s, ratio {t['ours'] / t['sk']:.2f}x (target <= 1.0x); "
          f"max |difference| up to sign {diff:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="rows for RFFRidge")
    parser.add_argument("--n-ref", type=int, default=50_000, help="rows for the scikit-learn ratio")
    parser.add_argument("--D", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=25_000)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--n-nystroem", type=int, default=20_000)
    parser.add_argument("--n-kpca", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-rff", action="store_true", help="only Nystroem and KernelPCA")
    args = parser.parse_args()
    nystroem(args)
    kernel_pca(args)
    if not args.skip_rff:
        rff_ridge(args)


if __name__ == "__main__":
    main()
