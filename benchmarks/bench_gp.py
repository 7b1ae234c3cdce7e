"""Gaussian processes (lecture 8) against scikit-learn's GaussianProcessRegressor, in one run.

* the posterior (fit, then the mean and standard deviation at 500 new points) and the log
  marginal likelihood with its gradient, at n = 2000 and n = 5000, RBF kernel with a signal
  variance (two parameters and the noise: ``c * RBF`` + noise here, ``C * RBF + WhiteKernel``
  there), optimizer off on both sides;
* the low-rank GP (Nystroem, m = 300 inducing points) at n = 10^5, its time beside scikit-learn's
  exact GP at n = 5000, and its error against the exact GP fitted on a subsample of 3000 points
  (both fitted on the same subsample; the low-rank one also on all 10^5 points).
Run: .venv/bin/python benchmarks/bench_gp.py  (or python3 tasks.py bench gp)
"""
import math

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as sk

from timing import interleaved

from kernelcourse import gaussian_process as gp
from kernelcourse.kernels import RBF

D, NOISE, LENGTH, C, REPEAT = 3, 0.05, 1.5, 1.3, 3
GAMMA = 1.0 / (2.0 * LENGTH ** 2)


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, D))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.3 * X[:, 2] + math.sqrt(NOISE) * rng.standard_normal(n)
    return X, y


def ours_model():
    return gp.GaussianProcessRegressor(C * RBF(GAMMA), noise=NOISE, optimizer=None)


def sk_model():
    return SkGPR(sk.ConstantKernel(C) * sk.RBF(LENGTH) + sk.WhiteKernel(NOISE), alpha=0.0, optimizer=None)


def main():
    X_new = data(500, seed=9)[0]
    print(f"d={D}, c * RBF(length_scale={LENGTH}) with noise {NOISE}; best of {REPEAT}, runs interleaved")
    print(f"{'n':>6s} {'what':>22s} {'sklearn':>9s} {'ours':>9s} {'ratio':>7s}  {'max |diff|':>10s}")
    sk_exact_5000 = None
    for n in (2000, 5000):
        X, y = data(n)
        ours, theirs = ours_model(), sk_model()

        def ours_post():   # scikit-learn's WhiteKernel puts the noise into the std: that of y
            return ours.fit(X, y).predict(X_new, return_std=True, with_noise=True)

        def sk_post():
            return theirs.fit(X, y).predict(X_new, return_std=True)

        t = interleaved({"sk": sk_post, "ours": ours_post}, repeat=REPEAT)
        sk_exact_5000 = t["sk"]
        (m1, s1), (m2, s2) = ours_post(), sk_post()
        diff = max(np.abs(m1 - m2).max(), np.abs(s1 - s2).max())
        print(f"{n:6d} {'posterior mean and std':>22s} {t['sk']:8.3f}s {t['ours']:8.3f}s "
              f"{t['ours'] / t['sk']:6.2f}x  {diff:10.2e}")
        theta = theirs.kernel_.theta
        kernel = C * RBF(GAMMA)

        def ours_lml():
            return gp.marginal_likelihood(kernel, X, y, NOISE, eval_gradient=True)

        def sk_lml():
            return theirs.log_marginal_likelihood(theta, eval_gradient=True)

        t = interleaved({"sk": sk_lml, "ours": ours_lml}, repeat=REPEAT)
        diff = abs(ours_lml()[0] - sk_lml()[0])
        print(f"{n:6d} {'log p(y|X) + gradient':>22s} {t['sk']:8.3f}s {t['ours']:8.3f}s "
              f"{t['ours'] / t['sk']:6.2f}x  {diff:10.2e}")

    n_big, m, n_sub = 100_000, 300, 3000
    X, y = data(n_big, seed=1)
    low = gp.LowRankGaussianProcess(RBF(GAMMA), n_components=m, noise=NOISE, random_state=0)
    t = interleaved({"low": lambda: low.fit(X, y).predict(X_new, return_std=True)}, repeat=1)
    print(f"{n_big:6d} {'low-rank GP, m=' + str(m):>22s} {'':9s} {t['low']:8.3f}s "
          f"{t['low'] / sk_exact_5000:6.2f}x  (against sklearn's exact GP at n = 5000)")
    exact = gp.GaussianProcessRegressor(RBF(GAMMA), noise=NOISE, optimizer=None).fit(X[:n_sub], y[:n_sub])
    m_exact, s_exact = exact.predict(X_new, return_std=True)
    sub = gp.LowRankGaussianProcess(RBF(GAMMA), n_components=m, noise=NOISE, random_state=0).fit(X[:n_sub], y[:n_sub])
    m_sub, s_sub = sub.predict(X_new, return_std=True)
    m_big = low.predict(X_new)
    print(f"error against the exact GP on {n_sub} points: mean {np.abs(m_sub - m_exact).max():.2e}, "
          f"std {np.abs(s_sub - s_exact).max():.2e} (same {n_sub} points); the m={m} GP on all "
          f"{n_big} points differs from that exact mean by {np.abs(m_big - m_exact).max():.2e} "
          f"(more data, and the rms of the noise is {math.sqrt(NOISE):.2f})")


if __name__ == "__main__":
    main()
