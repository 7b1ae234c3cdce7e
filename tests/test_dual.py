"""Lecture 4.1-4.4 and 4.8: MAP estimates in the primal and in the dual."""
from itertools import combinations_with_replacement

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import approx_fprime
from sklearn.linear_model import LogisticRegression, Ridge

from kernelcourse import dual
from kernelcourse.features import homogeneous_polynomial_map


@pytest.fixture
def regression():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=25)
    return X, y


@pytest.fixture
def classification():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = np.sign(X @ np.array([2.0, -1.0, 0.5]) + 0.8 * rng.normal(size=40))
    return X, y


SIGMA, LAM = 0.7, 1.8


# 4.1 -------------------------------------------------------------------------------------
def test_ridge_ratio_is_noise_variance_over_prior_variance():
    assert dual.ridge_ratio(0.5, 2.0) == pytest.approx(0.25 / 4.0)
    assert dual.ridge_ratio(3.0, 1.0) == pytest.approx(9.0)


def test_primal_map_matches_sklearn_ridge_with_penalty_sigma2_over_lam2(regression):
    X, y = regression
    w = dual.map_linear_primal(X, y, SIGMA, LAM)
    oracle = Ridge(alpha=SIGMA ** 2 / LAM ** 2, fit_intercept=False, solver="cholesky").fit(X, y)
    assert_allclose(w, oracle.coef_, rtol=1e-10, atol=1e-12)


def test_primal_map_zeroes_the_objectives_gradient(regression):
    X, y = regression
    w = dual.map_linear_primal(X, y, SIGMA, LAM)
    grad = approx_fprime(w, dual.map_linear_objective, 1e-6, X, y, SIGMA, LAM)
    assert np.max(np.abs(grad)) < 1e-4
    # and moving away raises the objective
    E = dual.map_linear_objective(w, X, y, SIGMA, LAM)
    for d in np.eye(4):
        assert dual.map_linear_objective(w + 1e-3 * d, X, y, SIGMA, LAM) > E


def test_map_objective_against_a_loop_over_the_formula(regression):
    X, y = regression
    w = np.array([0.3, -1.0, 2.0, 0.1])
    slow = sum((w @ X[i] - y[i]) ** 2 for i in range(len(y))) / (2 * SIGMA ** 2)
    slow += sum(wj ** 2 for wj in w) / (2 * LAM ** 2)
    assert dual.map_linear_objective(w, X, y, SIGMA, LAM) == pytest.approx(slow, rel=1e-12)


def test_alpha_is_proportional_to_the_residuals_and_gives_w_back(regression):
    X, y = regression
    w = dual.map_linear_primal(X, y, SIGMA, LAM)
    alpha = dual.map_linear_alpha(X, y, w, SIGMA, LAM)
    residuals = y - X @ w
    assert_allclose(alpha, (LAM ** 2 / SIGMA ** 2) * residuals, rtol=1e-12)
    assert_allclose(X.T @ alpha, w, rtol=1e-9, atol=1e-12)
    # at a weight vector that is not the MAP, X^T alpha is not w
    w_bad = w + 0.1
    assert np.max(np.abs(X.T @ dual.map_linear_alpha(X, y, w_bad, SIGMA, LAM) - w_bad)) > 1e-2


# 4.3 -------------------------------------------------------------------------------------
def test_primal_equals_dual_equals_alpha_form(regression):
    X, y = regression
    w = dual.map_linear_primal(X, y, SIGMA, LAM)
    alpha_dual = dual.map_linear_dual(X @ X.T, y, SIGMA, LAM)
    alpha_res = dual.map_linear_alpha(X, y, w, SIGMA, LAM)
    assert_allclose(alpha_dual, alpha_res, rtol=1e-9, atol=1e-10)
    assert_allclose(X.T @ alpha_dual, w, rtol=1e-9, atol=1e-12)


def test_dual_alpha_solves_the_linear_system_and_minimises_the_dual_objective(regression):
    X, y = regression
    K = X @ X.T
    alpha = dual.map_linear_dual(K, y, SIGMA, LAM)
    r = SIGMA ** 2 / LAM ** 2
    assert_allclose((K + r * np.eye(len(y))) @ alpha, y, atol=1e-10)
    # the dual objective equals the primal objective at w = X^T alpha
    assert dual.map_linear_dual_objective(alpha, K, y, SIGMA, LAM) == pytest.approx(
        dual.map_linear_objective(X.T @ alpha, X, y, SIGMA, LAM), rel=1e-12)
    E = dual.map_linear_dual_objective(alpha, K, y, SIGMA, LAM)
    rng = np.random.default_rng(0)
    for _ in range(5):
        assert dual.map_linear_dual_objective(alpha + 1e-2 * rng.normal(size=len(y)),
                                              K, y, SIGMA, LAM) > E


def test_inverted_ratio_gives_a_different_answer(regression):
    """sigma^2/lambda^2 and lambda^2/sigma^2 differ here, so a swapped ratio is detectable."""
    X, y = regression
    K = X @ X.T
    right = dual.map_linear_dual(K, y, SIGMA, LAM)
    swapped = dual.map_linear_dual(K, y, LAM, SIGMA)
    assert np.max(np.abs(right - swapped)) > 1e-2


def test_dual_prediction_equals_primal_prediction(regression):
    X, y = regression
    X_new = np.random.default_rng(1).normal(size=(7, 4))
    w = dual.map_linear_primal(X, y, SIGMA, LAM)
    alpha = dual.map_linear_dual(X @ X.T, y, SIGMA, LAM)
    pred = dual.dual_predict(X_new @ X.T, alpha)
    assert_allclose(pred, X_new @ w, rtol=1e-9, atol=1e-12)
    # k(x)^T (K + s^2/l^2 I)^-1 y written out
    A = X @ X.T + SIGMA ** 2 / LAM ** 2 * np.eye(len(y))
    slow = [X @ x @ np.linalg.solve(A, y) for x in X_new]
    assert_allclose(pred, slow, rtol=1e-9)


def test_map_regression_estimator_linear_and_kernel(regression):
    X, y = regression
    X_new = np.random.default_rng(2).normal(size=(6, 4))
    model = dual.MAPRegression(sigma=SIGMA, lam=LAM).fit(X, y)
    assert_allclose(model.coef_, dual.map_linear_primal(X, y, SIGMA, LAM), rtol=1e-9)
    assert_allclose(model.predict(X_new), X_new @ model.coef_, rtol=1e-9)

    # a quadratic kernel (x^T z)^2 is linear regression on the explicit features
    def quad(A, B=None):
        B = A if B is None else B
        return (A @ B.T) ** 2

    Xq, Xq_new = X[:, :2], X_new[:, :2]
    kernel_model = dual.MAPRegression(SIGMA, LAM, kernel=quad).fit(Xq, y)
    Phi = homogeneous_polynomial_map(Xq, 2)                 # (x1^2, sqrt2 x1 x2, x2^2)
    w_phi = dual.map_linear_primal(Phi, y, SIGMA, LAM)
    assert_allclose(kernel_model.predict(Xq_new), homogeneous_polynomial_map(Xq_new, 2) @ w_phi,
                    rtol=1e-8)
    assert not hasattr(kernel_model, "coef_")


def test_estimator_keeps_parameters_and_does_not_touch_inputs(regression):
    X, y = regression
    X0, y0 = X.copy(), y.copy()
    model = dual.MAPRegression(sigma=2, lam=3)
    assert (model.sigma, model.lam, model.kernel) == (2, 3, None)
    model.fit(X, y)
    assert_allclose(X, X0)
    assert_allclose(y, y0)
    X[0, 0] = 100.0                                    # the fitted copy is not a view
    assert model.X_fit_[0, 0] == X0[0, 0]


# 4.2 -------------------------------------------------------------------------------------
def test_logistic_probability_against_the_formula(classification):
    X, y = classification
    w = np.array([0.5, -1.0, 2.0])
    slow = [1 / (1 + np.exp(-y[i] * (w @ X[i]))) for i in range(len(y))]
    assert_allclose(dual.logistic_probability(X, y, w), slow, rtol=1e-12)


def test_logistic_objective_is_stable_for_large_margins():
    X = np.array([[1000.0], [-1000.0]])
    y = np.array([1.0, 1.0])
    E = dual.map_logistic_objective(np.array([1.0]), X, y, lam=1.0)
    assert E == pytest.approx(1000.0 + 0.5, rel=1e-12)      # log(1+e^-1000) + log(1+e^1000) + 1/2


def test_logistic_primal_matches_sklearn_with_C_equal_lam2(classification):
    X, y = classification
    w = dual.map_logistic_primal(X, y, LAM)
    oracle = LogisticRegression(C=LAM ** 2, fit_intercept=False, tol=1e-12,
                                max_iter=10_000).fit(X, y)
    assert_allclose(w, oracle.coef_.ravel(), rtol=1e-6, atol=1e-8)
    grad = approx_fprime(w, dual.map_logistic_objective, 1e-7, X, y, LAM)
    assert np.max(np.abs(grad)) < 1e-5


def test_logistic_dual_identity_holds_to_tight_tolerance(classification):
    X, y = classification
    w = dual.map_logistic_primal(X, y, LAM, tol=1e-12)
    alpha = dual.map_logistic_alpha(X, y, w, LAM)
    slow = [LAM ** 2 * y[i] * (1 - 1 / (1 + np.exp(-y[i] * w @ X[i]))) for i in range(len(y))]
    assert_allclose(alpha, slow, rtol=1e-10)
    assert np.max(np.abs(X.T @ alpha - w)) < 1e-11
    # signs follow the labels and no example gets a zero weight
    assert np.all(np.sign(alpha) == y)
    assert dual.alpha_sparsity(alpha) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_logistic_newton_reaches_tight_tolerance_on_varied_problems(seed):
    rng = np.random.default_rng(100 + seed)
    n, d = int(rng.integers(3, 30)), int(rng.integers(1, 5))
    X = rng.normal(scale=rng.uniform(0.5, 3), size=(n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    lam = rng.uniform(0.3, 5.0)
    w = dual.map_logistic_primal(X, y, lam, tol=1e-12)
    alpha = dual.map_logistic_alpha(X, y, w, lam)
    assert np.max(np.abs(X.T @ alpha - w)) <= 1e-12 * lam ** 2 + 1e-12


def test_logistic_identity_fails_away_from_the_optimum(classification):
    X, y = classification
    w = dual.map_logistic_primal(X, y, LAM, tol=1e-3)
    w_far = w * 1.2
    assert np.max(np.abs(X.T @ dual.map_logistic_alpha(X, y, w_far, LAM) - w_far)) > 1e-2


def test_logistic_newton_reports_when_it_cannot_converge(classification):
    X, y = classification
    with pytest.raises(RuntimeError, match="did not reach tol"):
        dual.map_logistic_primal(X, y, LAM, tol=1e-14, max_iter=1)


# 4.4 -------------------------------------------------------------------------------------
def test_the_lectures_quadratic_map_reproduces_the_squared_dot_product():
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(6, 2)), rng.normal(size=(5, 2))
    phi = homogeneous_polynomial_map
    assert_allclose(phi(X, 2) @ phi(Z, 2).T, (X @ Z.T) ** 2, rtol=1e-12)
    assert_allclose(phi([[1.0, 2.0]], 2), [[1.0, 2 * np.sqrt(2), 4.0]])


def test_feature_count_counts_the_monomials_and_matches_the_explicit_map():
    for m in range(1, 7):
        for p in range(1, 5):
            monomials = set(combinations_with_replacement(range(m), p))
            assert dual.kernel_trick_costs(m, p)["M"] == len(monomials)
    assert dual.kernel_trick_costs(2, 2)["M"] == 3                  # the lecture's example
    assert dual.kernel_trick_costs(100, 2)["M"] == 100 + 100 * 99 // 2
    X = np.random.default_rng(0).normal(size=(3, 4))
    for p in (1, 2, 3):
        Phi = homogeneous_polynomial_map(X, p)
        assert Phi.shape == (3, dual.kernel_trick_costs(4, p)["M"])
        assert_allclose(Phi @ Phi.T, (X @ X.T) ** p, rtol=1e-10)


def test_kernel_trick_costs_grow_as_m_to_the_p_against_m():
    c = dual.kernel_trick_costs(2, 2)
    assert c == {"M": 3, "explicit": 2 * 3 * 1 + 2 * 3 - 1, "kernel": 2 * 2 - 1 + 1}
    for p in (2, 3):
        small, big = dual.kernel_trick_costs(100, p), dual.kernel_trick_costs(1000, p)
        # ten times the dimension: about 10^p times the explicit work, 10 times the kernel's
        assert 0.8 * 10 ** p < big["explicit"] / small["explicit"] < 1.2 * 10 ** p
        assert 9 < big["kernel"] / small["kernel"] < 11


# 4.8 -------------------------------------------------------------------------------------
def _rbf(X, gamma=0.5):
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * sq)


def test_hinge_dual_solution_has_zero_duality_gap_and_kkt(classification):
    X, y = classification
    K = _rbf(X)
    lam = 1.5
    C = lam ** 2
    alpha = dual.map_hinge_dual(K, y, lam)
    a = y * alpha
    assert np.all(a >= -1e-12) and np.all(a <= C + 1e-12)
    Q = np.outer(y, y) * K
    dual_value = a.sum() - 0.5 * a @ Q @ a
    assert dual.hinge_objective(alpha, K, y, lam) * C == pytest.approx(dual_value, rel=1e-7)
    margins = y * (K @ alpha)
    assert np.all(margins[a == 0] >= 1 - 1e-6)
    assert np.all(margins[a == C] <= 1 + 1e-6)
    inside = (a > 1e-9) & (a < C - 1e-9)
    assert_allclose(margins[inside], 1.0, atol=1e-6)


def test_hinge_dual_matches_a_generic_box_constrained_solver(classification):
    """scipy's L-BFGS-B on the same dual problem, max sum a - a^T Q a / 2 over 0 <= a <= lam^2."""
    from scipy.optimize import minimize

    X, y = classification
    K = _rbf(X)
    lam = 1.2
    C = lam ** 2
    Q = np.outer(y, y) * K
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(len(y)),
                   jac=lambda a: Q @ a - 1.0, method="L-BFGS-B", bounds=[(0.0, C)] * len(y),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000})
    alpha = dual.map_hinge_dual(K, y, lam)
    assert_allclose(y * alpha, res.x, atol=1e-5)
    assert dual.hinge_objective(alpha, K, y, lam) <= dual.hinge_objective(y * res.x, K, y, lam) + 1e-9


def test_hinge_gives_exact_zeros_where_squared_and_logistic_do_not(classification):
    X, y = classification
    K = _rbf(X)
    alpha_hinge = dual.map_hinge_dual(K, y, 1.5)
    alpha_sq = dual.map_linear_dual(K, y, SIGMA, LAM)
    assert dual.alpha_sparsity(alpha_hinge) > 0.2
    assert dual.alpha_sparsity(alpha_sq) == 0.0
    assert np.all(np.signbit(alpha_hinge[alpha_hinge == 0]) == False)  # noqa: E712 (no -0.0)


def test_hinge_objective_against_a_loop():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(6, 2))
    y = np.array([1.0, -1, 1, 1, -1, -1])
    K = _rbf(X)
    alpha = rng.normal(size=6)
    f = [sum(alpha[j] * K[i, j] for j in range(6)) for i in range(6)]
    slow = sum(max(0.0, 1 - y[i] * f[i]) for i in range(6)) + alpha @ K @ alpha / (2 * 1.3 ** 2)
    assert dual.hinge_objective(alpha, K, y, 1.3) == pytest.approx(slow, rel=1e-12)


# errors ----------------------------------------------------------------------------------
def test_negative_or_zero_standard_deviations_are_refused(regression):
    X, y = regression
    with pytest.raises(ValueError, match=r"sigma must be positive; got sigma=-1"):
        dual.map_linear_primal(X, y, -1, 1.0)
    with pytest.raises(ValueError, match=r"lam must be positive; got lam=0"):
        dual.map_linear_dual(X @ X.T, y, 1.0, 0)
    with pytest.raises(ValueError, match=r"lam must be positive; got lam=-2"):
        dual.map_logistic_primal(X, np.sign(y), -2)
    with pytest.raises(TypeError, match="sigma must be a real number"):
        dual.ridge_ratio("1", 1.0)


def test_mismatched_shapes_are_named(regression):
    X, y = regression
    with pytest.raises(ValueError, match=r"y has 24 entries but there are 25 samples"):
        dual.map_linear_primal(X, y[:-1], SIGMA, LAM)
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) Gram matrix; got shape \(25, 4\)"):
        dual.map_linear_dual(X, y, SIGMA, LAM)
    with pytest.raises(ValueError, match=r"w must have shape \(4,\).*got shape \(3,\)"):
        dual.map_linear_alpha(X, y, np.zeros(3), SIGMA, LAM)
    with pytest.raises(ValueError, match=r"K_test has 25 columns .* alpha has shape \(24,\)"):
        dual.dual_predict(np.zeros((3, 25)), np.zeros(24))
    with pytest.raises(ValueError, match=r"y must hold only the labels \[-1, 1\]"):
        dual.map_logistic_primal(X, y, LAM)
    with pytest.raises(ValueError, match="p must be a positive integer; got p=0"):
        dual.kernel_trick_costs(3, 0)


def test_non_psd_gram_matrix_is_reported(regression):
    _, y = regression
    K = -np.eye(25)
    with pytest.raises(ValueError, match=r"not a PSD Gram matrix \(smallest eigenvalue -1"):
        dual.map_linear_dual(K, y, 0.1, 1.0)


def test_predict_before_fit_is_refused():
    with pytest.raises(ValueError, match="not fitted yet"):
        dual.MAPRegression().predict(np.zeros((2, 2)))
