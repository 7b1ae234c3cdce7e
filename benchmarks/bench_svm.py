"""SupportVectorClassifier.fit (the course's SMO) against scikit-learn's SVC (libsvm).

RBF kernel, C = 1, gamma = 0.5, the same stopping tolerance 1e-3 (libsvm's m(a) - M(a) <= tol),
on two overlapping classes in d = 5 at n = 2000 and n = 5000.
Target (issue 23): our fit takes at most 2x SVC's at n = 5000. libsvm shrinks its working set
and caches kernel rows (cache_size=200 MB here); ours computes a kernel row when SMO first needs
it and keeps it (all rows fit the default 400 MB budget), in NumPy, without shrinking.
Also the number of SMO steps of both pair choices (maximal violating pair, second order) against
libsvm's n_iter_ (its second-order choice).
Run: .venv/bin/python benchmarks/bench_svm.py  (or python3 tasks.py bench svm)
"""

import numpy as np
from sklearn.svm import SVC

from timing import interleaved

from kernelcourse.kernels import RBF
from kernelcourse.svm import SupportVectorClassifier

C, GAMMA, TOL, D, REPEAT = 1.0, 0.5, 1e-3, 5, 3


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X = rng.standard_normal((n, D)) + 0.6 * y[:, None]
    return X, y


def main():
    print(f"RBF(gamma={GAMMA}), C={C}, tol={TOL}, d={D}; best of {REPEAT}, runs interleaved")
    print(f"{'n':>6s} {'SVC fit':>9s} {'ours fit':>9s} {'ratio':>7s}  {'steps: libsvm':>14s} "
          f"{'second order':>13s} {'max violating':>14s}  {'max |f - f_svc|':>15s}")
    for n in (2000, 5000):
        X, y = data(n)
        ref = SVC(C=C, kernel="rbf", gamma=GAMMA, tol=TOL, cache_size=200)
        ours = SupportVectorClassifier(C=C, kernel=RBF(GAMMA), tol=TOL)
        first = SupportVectorClassifier(C=C, kernel=RBF(GAMMA), tol=TOL, selection="max_violating")
        t = interleaved({"svc": lambda: ref.fit(X, y), "ours": lambda: ours.fit(X, y)}, repeat=REPEAT)
        first.fit(X, y)
        diff = np.abs(ours.decision_function(X) - ref.decision_function(X)).max()
        print(f"{n:6d} {t['svc']:8.3f}s {t['ours']:8.3f}s {t['ours'] / t['svc']:6.2f}x  "
              f"{int(ref.n_iter_[0]):14d} {int(ours.n_iter_[0]):13d} {int(first.n_iter_[0]):14d}  "
              f"{diff:15.2e}")
    print("target: ratio <= 2.00x at n = 5000")


if __name__ == "__main__":
    main()
