"""KernelRidge.fit with an RBF kernel, n = 5000, d = 10, against scikit-learn's.

Target (issue 5): our fit takes at most 0.6x scikit-learn's KernelRidge.fit.
Both build the Gram matrix and solve (K + lam I) alpha = y by Cholesky; the
explicit inverse is timed too, to show what the Cholesky solve saves.
Run: .venv/bin/python benchmarks/bench_ridge.py  (or python3 tasks.py bench ridge)
"""

import numpy as np
from scipy import linalg
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from timing import best_of, interleaved

from kernelcourse.kernels import RBF
from kernelcourse.ridge import KernelRidge

N, D, GAMMA, LAM, REPEAT = 5000, 10, 0.1, 1.0, 5


def explicit_inverse(X, y):
    K = RBF(GAMMA)(X)
    return linalg.inv(K + LAM * np.eye(len(y))) @ y


def main():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(N)
    ours = KernelRidge(RBF(GAMMA), lam=LAM)
    ref = SkKernelRidge(alpha=LAM, kernel="rbf", gamma=GAMMA)
    # agreement first, so the timing compares equal work
    diff = np.abs(ours.fit(X, y).dual_coef_ - ref.fit(X, y).dual_coef_).max()
    t = interleaved({"sk": lambda: ref.fit(X, y), "ours": lambda: ours.fit(X, y),
                     "gram": lambda: RBF(GAMMA)(X)}, repeat=REPEAT)
    t_gram, t_sk, t_ours = t["gram"], t["sk"], t["ours"]
    t_inv = best_of(lambda: explicit_inverse(X, y), repeat=1)
    print(f"n={N} d={D} RBF(gamma={GAMMA}) lam={LAM}; max |alpha - alpha_sklearn| = {diff:.2e}")
    print(f"  our RBF Gram matrix alone          {t_gram:6.3f} s")
    print(f"  scikit-learn KernelRidge.fit       {t_sk:6.3f} s")
    print(f"  kernelcourse KernelRidge.fit       {t_ours:6.3f} s   ratio {t_ours / t_sk:.2f}x (target <= 0.60x)")
    print(f"  explicit inverse (for comparison)  {t_inv:6.3f} s   ratio {t_inv / t_sk:.2f}x")


if __name__ == "__main__":
    main()
