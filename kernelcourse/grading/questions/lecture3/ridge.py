"""Lecture 3, sections 3.1 to 3.3: ridge regression in the dual, its predictions, choosing
lambda and when the dual costs less (l3.cp1, ex3.q1, ex3.q9, ex3.q11)."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ....ridge import dual_ridge
from ...model import Case, Diagnosis, Property, Question, fixed_draw
from ._common import _points, _targets, _solve


# ===================================================================== l3.cp1
def _cases_dual_ridge(rng):
    cases = []
    for n, lam in [(3, 0.5), (5, 1.0), (7, 2.5)]:
        X = _points(rng, n, 2)
        K = RBF(gamma=0.5)(X)
        y = _targets(rng, n)
        cases.append(Case((K, y, lam), label=f"K of shape ({n}, {n}) (RBF), lam={lam}"))
    return cases


CP1 = Question(
    id="l3.cp1", title="dual ridge regression", function="dual_ridge", points=2,
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
    ),
    reference=dual_ridge, cases=_cases_dual_ridge, fixed_cases=fixed_draw(_cases_dual_ridge, 301),
    diagnoses=[
        Diagnosis("no lam", "lambda is missing: the dual solves (K + lam I) alpha = y, not K alpha = y",
                  lambda K, y, lam: _solve(K, y)),
        Diagnosis("lam everywhere", "lambda goes on the diagonal only (lam * identity); you added it "
                  "to every entry of K", lambda K, y, lam: _solve(K + lam, y)),
        Diagnosis("lam multiplies K", "the system is (K + lam I) alpha = y; you wrote (lam K + I)",
                  lambda K, y, lam: _solve(lam * K + np.eye(len(y)), y)),
    ],
    kind="formula", section="3.2",
    hints=("alpha solves a linear system of size m x m: which matrix, and where does lam go? "
           "Solve it rather than inverting",
           "lam sits on the diagonal only: build the matrix with np.eye(len(y)) and hand it, "
           "with y, to np.linalg.solve"),
)


# ===================================================================== ex3.q1
def _kernel_ridge_predict(K_train, y, lam, K_test):
    """``g(x) = sum_i alpha_i k(x_i, x)`` with ``alpha = (K + lam I)^-1 y``."""
    return K_test @ dual_ridge(K_train, y, lam)


def _cases_predict(rng):
    cases = []
    for n, p, lam in [(4, 2, 0.3), (6, 3, 1.0), (8, 1, 2.0)]:
        X, Xt = _points(rng, n, 2), _points(rng, p, 2)
        k = RBF(gamma=0.7)
        cases.append(Case((k(X), _targets(rng, n), lam, k(Xt, X)),
                          label=f"{n} training points, {p} test points, lam={lam}"))
    return cases


Q1 = Question(
    id="ex3.q1", title="predicting with kernel ridge regression", function="kernel_ridge_predict",
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.ridge_predict_dual",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.dual.dual_predict",
    ),
    points=2, reference=_kernel_ridge_predict, cases=_cases_predict,
    fixed_cases=fixed_draw(_cases_predict, 303),
    diagnoses=[
        Diagnosis("no lam", "lambda is missing from the dual solve: alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train, y)),
        Diagnosis("no solve", "you weighted the kernel values by y; the weights are the dual "
                  "coefficients alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ y),
        Diagnosis("lam everywhere", "lambda goes on the diagonal of K only",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train + lam, y)),
    ],
    kind="derive", section="3.3",
    hints=("two steps, as in 3.2-3.3: learn the dual coefficients from K_train, then combine the "
           "kernel values of each new point with them",
           "the coefficients come from the regularised m x m system of 3.2; the prediction for "
           "row a is the sum over i of coefficient i times K_test[a, i]: a matrix-vector product"),
)


# ===================================================================== ex3.q9
_LAMBDA_GRID = np.logspace(-6, 4, 101)


def _val_mse(K_train, y_train, K_val, y_val, lam):
    alpha = dual_ridge(K_train, y_train, lam)
    return float(np.mean((K_val @ alpha - y_val) ** 2))


def _best_lambda(K_train, y_train, K_val, y_val, target):
    """The grid value with the smallest validation error (any lambda meeting the target is right)."""
    errors = [_val_mse(K_train, y_train, K_val, y_val, lam) for lam in _LAMBDA_GRID]
    return float(_LAMBDA_GRID[int(np.argmin(errors))])


def _cases_lambda(rng):
    cases = []
    for m, gamma in [(16, 20.0), (20, 30.0), (24, 40.0)]:
        x = np.sort(rng.uniform(-1, 1, m))[:, None]
        xv = rng.uniform(-1, 1, 40)[:, None]
        f = lambda t: np.sin(3 * t[:, 0])                        # noqa: E731
        y = np.round(f(x) + 0.3 * rng.normal(size=m), 3)
        yv = np.round(f(xv) + 0.3 * rng.normal(size=40), 3)
        k = RBF(gamma=gamma)
        K, Kv = k(x), k(xv, x)
        errors = np.array([_val_mse(K, y, Kv, yv, lam) for lam in _LAMBDA_GRID])
        best, worst_end = errors.min(), min(errors[0], errors[-1])
        target = float(np.round(best + 0.25 * (worst_end - best), 4))
        cases.append(Case((K, y, Kv, yv, target),
                          label=f"{m} training and 40 validation points, Gaussian kernel "
                                f"(gamma={gamma}), target validation MSE {target}"))
    return cases


def _as_lambda(answer):
    lam = float(np.asarray(answer, dtype=float).reshape(()))
    return lam if np.isfinite(lam) else float("nan")


def _meets_target(answer, case):
    K, y, Kv, yv, target = case.args
    lam = _as_lambda(answer)
    return lam > 0 and _val_mse(K, y, Kv, yv, lam) <= target * (1 + 1e-9)


def _lambda_side(side):
    def detect(answer, case):
        K, y, Kv, yv, target = case.args
        lam = _as_lambda(answer)
        if not lam > 0 or _val_mse(K, y, Kv, yv, lam) <= target:
            return False
        best = _best_lambda(*case.args)
        return lam < best if side == "small" else lam > best
    return detect


def _lambda_below(bound):
    def detect(answer, case):
        lam = _as_lambda(answer)
        return 0 < lam <= bound and not _meets_target(answer, case)
    return detect


def _too_small(K_train, y_train, K_val, y_val, target):
    """A third of the smallest grid lambda that meets the target: too small, yet not tiny."""
    errors = np.array([_val_mse(K_train, y_train, K_val, y_val, lam) for lam in _LAMBDA_GRID])
    return float(_LAMBDA_GRID[errors <= target].min() / 3)


def _by_training_error(K_train, y_train, K_val, y_val, target):
    errors = [np.mean((K_train @ dual_ridge(K_train, y_train, lam) - y_train) ** 2)
              for lam in _LAMBDA_GRID]
    return float(_LAMBDA_GRID[int(np.argmin(errors))])


Q9 = Question(
    id="ex3.q9", title="a lambda that meets a validation target", function="choose_lambda",
    points=3, kind="parameter", section="3.1",
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.ridge_predict_dual",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
    ),
    reference=_best_lambda, cases=_cases_lambda,
    fixed_cases=fixed_draw(_cases_lambda, 311),
    compare_reference=False,
    properties=[Property("target", _meets_target,
                         "kernel ridge regression with this lambda must reach a validation "
                         "mean squared error at most the target (lambda > 0)")],
    diagnoses=[
        Diagnosis("training error", "a lambda this small fits the noise of the training points "
                  "(overfitting). If you chose it by the training error: that error only falls as "
                  "lambda shrinks, so it always picks the smallest lambda tried; judge each lambda "
                  "by its error on the validation points", _by_training_error,
                  detect=_lambda_below(1e-5)),
        Diagnosis("too small", "your lambda is too small: the fit follows the noise of the "
                  "training points (overfitting); compare the validation errors of lambdas over "
                  "several orders of magnitude", _too_small, detect=_lambda_side("small")),
        Diagnosis("too large", "your lambda is too large: the fit is damped towards zero "
                  "(underfitting); more regularisation does not always generalise better",
                  lambda K, y, Kv, yv, target: 1e4, detect=_lambda_side("large")),
        Diagnosis("log of lambda", "lambda must be positive; if you searched over "
                  "t = log10(lambda), return 10**t, not t",
                  lambda K, y, Kv, yv, target: float(np.log10(_best_lambda(K, y, Kv, yv, target))),
                  detect=lambda answer, case: _as_lambda(answer) <= 0),
    ],
    hints=("try a range of lambdas spread over many orders of magnitude (np.logspace) and "
           "measure each one's error on the validation points, not the training points",
           "for each lambda: dual coefficients from K_train and y_train (3.2), predictions "
           "K_val @ alpha, then the mean squared error against y_val; return a lambda whose "
           "error is at most the target"),
)


# ===================================================================== ex3.q11
def _primal_cost(m, n, p):
    """3.2's operation counts: form X^T X (m n^2), solve n x n (n^3), p predictions (n each)."""
    return m * n * n + n ** 3 + p * n


def _dual_cost(m, n, p):
    """Form K (m^2 n), solve m x m (m^3), p predictions (m kernel values of n operations each)."""
    return m * m * n + m ** 3 + p * m * n


def _dual_cheaper_sizes(m_min, p):
    """A witness: m = m_min and the smallest power of two n for which the dual costs less."""
    m, n = int(m_min), 1
    while _dual_cost(m, n, p) >= _primal_cost(m, n, p):
        n *= 2
    return (m, n)


def _cases_sizes(rng):
    cases = [Case((int(rng.integers(5, 50)), 0), label="no predictions")]
    for low, high in [(10, 100), (100, 1000)]:
        m_min = int(rng.integers(low, high))
        p = int(rng.integers(1000, 10000)) * m_min
        cases.append(Case((m_min, p), label=f"at least {m_min} examples, {p} predictions"))
    return cases


def _extreme_sizes():
    """The ends of the stated range: 5 <= m_min <= 1000, 0 <= p <= 10^7."""
    return [Case((5, 0), label="at least 5 examples, no predictions"),
            Case((5, 5000), label="at least 5 examples, 5000 predictions"),
            Case((1000, 10 ** 7), label="at least 1000 examples, 10^7 predictions")]


def _sizes(answer):
    """(m, n) as Python ints, or None when the answer is not two whole numbers."""
    try:
        m, n = answer
        values = []
        for v in (m, n):
            f = float(v)
            if not np.isfinite(f) or f != int(f):
                return None
            values.append(int(f))
        return tuple(values)
    except Exception:
        return None


def _dual_is_cheaper(answer, case):
    sizes = _sizes(answer)
    if sizes is None:
        return False
    m, n = sizes
    m_min, p = case.args
    return m >= m_min and n >= 1 and _dual_cost(m, n, p) < _primal_cost(m, n, p)


def _sizes_detect(test):
    def detect(answer, case):
        sizes = _sizes(answer)
        return (sizes is not None and sizes[1] >= 1 and not _dual_is_cheaper(answer, case)
                and test(*sizes, *case.args))
    return detect


Q11 = Question(
    id="ex3.q11", title="when is the dual cheaper?", function="dual_cheaper_sizes", points=2,
    forbidden=("kernelcourse.dual.kernel_trick_costs",),
    kind="witness", section="3.2",
    reference=_dual_cheaper_sizes, cases=_cases_sizes,
    fixed_cases=fixed_draw(_cases_sizes, 313, extra=_extreme_sizes), compare_reference=False,
    properties=[Property("cheaper", _dual_is_cheaper,
                         "return two whole numbers (m, n), m >= m_min, for which the dual's "
                         "operation count is smaller than the primal's")],
    diagnoses=[
        Diagnosis("more examples", "with more examples than features the dual is the dearer one: "
                  "it solves an m x m system, the primal an n x n one",
                  lambda m_min, p: (10 * m_min, m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m > n)),
        Diagnosis("equal sizes", "with m = n both systems cost the same, and every dual "
                  "prediction costs m kernel values of n operations against n for the primal",
                  lambda m_min, p: (m_min, m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m == n)),
        Diagnosis("predictions ignored", "the dual trains more cheaply at these sizes, but each "
                  "of the p predictions costs m n operations in the dual against n in the "
                  "primal; make n large enough that training still dominates",
                  lambda m_min, p: (m_min, 2 * m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m < n and _dual_cost(m, n, 0)
                                       < _primal_cost(m, n, 0))),
    ],
    hints=("compare the two operation counts: which terms grow with the number of features n, "
           "which with the number of examples m, and which with p?",
           "take m = m_min; the primal's n^3 outgrows the dual's p m n once n^2 is well above "
           "p m, so double n until the dual's count is the smaller one"),
)
