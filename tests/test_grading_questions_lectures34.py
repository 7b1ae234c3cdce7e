"""The new question kinds of exercise sets 3 and 4 grade the mathematics they claim to: each
reference is checked against the definition (a far point, explicit operation counts, eigenvalues
of the functions themselves), and honest answers written differently earn full marks."""
import numpy as np
import pytest

from kernelcourse.grading import evaluate, get_question
from kernelcourse.grading.questions import lecture4
from kernelcourse.kernels import RBF


def test_far_point_distance_is_the_limit_for_a_real_far_point():
    q = get_question("ex3.q8")
    rng = np.random.default_rng(0)
    far = np.array([[1e3, -1e3]])
    for n, gamma in [(4, 0.5), (7, 2.0)]:
        X, k = rng.normal(size=(n, 2)), RBF(gamma=gamma)
        # ||phi(x) - phi_S||^2 = k(x, x) - 2 mean_i k(x, x_i) + mean(K), with a real far point
        exact = np.sqrt(k(far, far)[0, 0] - 2 * k(far, X).mean() + k(X).mean())
        assert q.reference(k(X)) == pytest.approx(exact, rel=1e-12)


def test_dual_cheaper_sizes_reference_against_counted_operations():
    q = get_question("ex3.q11")
    for case in q.make_cases(3):
        m_min, p = case.args
        m, n = q.reference(m_min, p)
        primal = m * n * n + n ** 3 + p * n
        dual = m * m * n + m ** 3 + p * m * n
        assert m >= m_min and dual < primal
        # and the smaller power of two would not do
        half = n // 2
        if half >= 1:
            assert m * m * half + m ** 3 + p * m * half >= m * half * half + half ** 3 + p * half


def test_choose_lambda_accepts_any_lambda_meeting_the_target_and_refuses_the_ends():
    q = get_question("ex3.q9")

    def coarse(K, y, Kv, yv, target):
        for lam in np.logspace(-4, 2, 13):
            alpha = np.linalg.solve(K + lam * np.eye(len(y)), y)
            if np.mean((Kv @ alpha - yv) ** 2) <= target:
                return lam
        return None
    assert evaluate(q, coarse, 0).status == "passed"
    assert evaluate(q, lambda *a: 1e-9, 0).points == 0
    assert evaluate(q, lambda *a: 1e6, 0).points == 0


@pytest.mark.parametrize("name", list(lecture4.BROKEN))
def test_broken_functions_reference_witnesses_have_a_negative_eigenvalue(name):
    """Evaluated from the formulas, point by point, not through the grader's Gram helper."""
    formulas = {
        "negative_coefficient": lambda x, z, a: float(x @ z) ** 2 - a * float(x @ z),
        "difference": lambda x, z, a: np.exp(-a * np.sum((x - z) ** 2)) - np.exp(-2 * a * np.sum((x - z) ** 2)),
        "bilinear": lambda x, z, a: float(x @ np.array([[1.0, a], [a, 1.0]]) @ z),
        "sigmoid": lambda x, z, a: np.tanh(float(x @ z) + a),
    }
    q = get_question("ex4.q9")
    for case in q.make_cases(4):
        if case.args[0] != name:
            continue
        a = case.args[1]
        X = q.reference(name, a)
        K = np.array([[formulas[name](x, z, a) for z in X] for x in X])
        assert np.linalg.eigvalsh(K)[0] < 0


def test_quiz_answers_agree_with_the_numbers():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 2))
    K1, K2 = RBF(0.5)(X), (X @ X.T + 1) ** 2
    assert np.linalg.eigvalsh(K1 + K2)[0] > -1e-9                      # sum: a kernel
    assert np.linalg.eigvalsh(K1 * K2)[0] > -1e-9                      # product: a kernel
    assert np.linalg.eigvalsh(K1 - 2 * K1)[0] < 0                      # difference: not always
    assert np.linalg.eigvalsh(2 * K1 - K1)[0] > -1e-9                  # ... but sometimes
    from itertools import combinations_with_replacement
    from math import comb
    for m, p in [(2, 2), (3, 3), (5, 2)]:                              # count: C(m + p - 1, p)
        assert len(list(combinations_with_replacement(range(m), p))) == comb(m + p - 1, p)
    q = get_question("ex4.q8")
    assert evaluate(q, q.reference, 0, detect_shortcuts=False).status == "passed"


def test_direction_kernel_accepts_other_kernels_of_directions_and_refuses_the_gaussian():
    q = get_question("ex4.q10")

    def cubed_cosine_mix(X, Z):                                          # rules 5 and 3.6, float32
        X, Z = np.asarray(X, np.float32), np.asarray(Z, np.float32)
        c = (X @ Z.T) / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(Z, axis=1))
        return (c + c ** 3) / 2
    assert evaluate(q, cubed_cosine_mix, 0).status == "passed"
    assert evaluate(q, lambda X, Z: RBF(1.0)(np.asarray(X), np.asarray(Z)), 0).status == "failed"
    assert evaluate(q, lambda X, Z: np.ones((len(X), len(Z))), 0).status == "failed"


def test_gaussian_by_rules_reference_is_the_three_factor_product():
    q = get_question("ex4.q11")
    for case in q.make_cases(2):
        X, Z, sigma = case.args
        f = lambda A: np.exp(-np.sum(A ** 2, axis=1) / (2 * sigma ** 2))  # noqa: E731
        by_rules = f(X)[:, None] * np.exp(X @ Z.T / sigma ** 2) * f(Z)[None, :]
        assert np.allclose(q.reference(X, Z, sigma), by_rules, rtol=1e-12)
