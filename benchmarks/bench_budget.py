"""The online kernel machine's budget: prediction time and accuracy against the number of bumps.

Lecture 5.8: without a budget the hinge-loss machine keeps one bump per margin error, so
prediction costs grow with the stream; a budget caps them. This trains
``OnlineKernelMachine`` (hinge loss, RBF(gamma=2)) on one stream of 3000 circle points with
several budgets (dropping the oldest bump), then predicts 20000 test points. Prediction times are
printed as ratios against the machine without a budget and against scikit-learn's SVC
(``decision_function``, same kernel, fitted on the same points), both measured in this run.
Run: .venv/bin/python benchmarks/bench_budget.py  (or python3 tasks.py bench budget)
"""
import time

import numpy as np
from sklearn.svm import SVC

from timing import best_of

from kernelcourse import datasets
from kernelcourse.kernels import RBF
from kernelcourse.rkhs import OnlineKernelMachine

N_TRAIN, N_TEST, GAMMA, REPEAT = 3000, 20000, 2.0, 7
BUDGETS = [10, 25, 50, 100, 200, None]


def main():
    X, y = datasets.circles(N_TRAIN, noise=0.1, random_state=0)
    Xt, yt = datasets.circles(N_TEST, noise=0.1, random_state=1)
    svc = SVC(kernel="rbf", gamma=GAMMA, C=1.0).fit(X, y)
    t_svc = best_of(lambda: svc.decision_function(Xt), repeat=REPEAT)
    acc_svc = np.mean(svc.predict(Xt) == yt)
    print(f"train {N_TRAIN}, test {N_TEST}; scikit-learn SVC: {len(svc.support_)} support vectors, "
          f"accuracy {acc_svc:.3f}, decision_function {1e3 * t_svc:.1f} ms")
    machines = {}
    for budget in BUDGETS:
        start = time.perf_counter()
        machines[budget] = OnlineKernelMachine(RBF(GAMMA), loss="hinge", eta=0.5, lam=0.001,
                                               budget=budget).fit(X, y)
        machines[budget].train_seconds = time.perf_counter() - start
        print(f"  trained the machine with budget {budget} ({len(machines)}/{len(BUDGETS)}) "
              f"in {machines[budget].train_seconds:.2f} s", flush=True)
    times = {b: best_of(lambda m=m: m.decision_function(Xt), repeat=REPEAT) for b, m in machines.items()}
    print(" budget  bumps  accuracy  predict (ms)  / unlimited  / SVC   train (s)")
    for budget, m in machines.items():
        acc = np.mean(m.predict(Xt) == yt)
        print(f"{str(budget):>7s} {len(m.alpha_):6d}  {acc:8.3f}  {1e3 * times[budget]:12.2f}"
              f"  {times[budget] / times[None]:11.2f}  {times[budget] / t_svc:5.2f}"
              f"  {m.train_seconds:9.2f}")
    # with the hinge loss and a constant step every bump starts at |alpha| = eta and only
    # shrinks, so dropping the smallest is dropping the oldest: the same machines
    same = all(np.array_equal(OnlineKernelMachine(RBF(GAMMA), loss="hinge", eta=0.5, lam=0.001, budget=b,
                                                  budget_rule="smallest").fit(X, y).alpha_, machines[b].alpha_)
               for b in BUDGETS[:3])
    print(f"budget_rule='smallest' gives the same machines (budgets {BUDGETS[:3]}): {same}")

if __name__ == "__main__":
    main()
