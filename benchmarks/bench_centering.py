"""Centering an n = 5000 Gram matrix, against scikit-learn's KernelCenterer (fit + transform).

Target (issue 5): at most 0.6x scikit-learn's time. Ours reads K for its
column and row means (two matrix-vector products) and writes the centred
matrix in one blocked pass; scikit-learn copies K and makes three more passes.
Run: .venv/bin/python benchmarks/bench_centering.py  (or python3 tasks.py bench centering)
"""
import time

import numpy as np
from sklearn.preprocessing import KernelCenterer

from timing import best_of, interleaved

from kernelcourse.feature_space import center_gram
from kernelcourse.kernels import RBF

N, REPEAT = 5000, 7


def literal(K):
    """The lecture's formula with j j^T written out: O(m^3), for comparison only."""
    m = K.shape[0]
    J = np.ones((m, m))
    return K - (J @ K + K @ J) / m + (np.ones(m) @ K @ np.ones(m)) / m**2 * J


def main():
    rng = np.random.default_rng(0)
    K = RBF(0.1)(rng.standard_normal((N, 10)))
    diff = np.abs(center_gram(K) - KernelCenterer().fit_transform(K)).max()
    t = interleaved({"sk": lambda: KernelCenterer().fit(K).transform(K), "ours": lambda: center_gram(K)}, repeat=REPEAT)
    t_sk, t_ours = t["sk"], t["ours"]
    Ks = K[:1000, :1000]
    t_lit = best_of(lambda: literal(Ks), repeat=1)
    t_ours_small = best_of(lambda: center_gram(Ks), repeat=REPEAT)
    print(f"n={N}; max |ours - sklearn| = {diff:.2e}")
    print(f"  scikit-learn KernelCenterer fit+transform  {t_sk:6.3f} s")
    print(f"  kernelcourse center_gram                   {t_ours:6.3f} s   ratio {t_ours / t_sk:.2f}x (target <= 0.60x)")
    print(f"  n=1000: literal j j^T products {t_lit:6.3f} s against ours {t_ours_small:6.4f} s "
          f"({t_lit / t_ours_small:.0f}x slower)")


if __name__ == "__main__":
    main()
