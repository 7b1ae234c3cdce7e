"""Tests for kernelcourse.gradient_descent: the dual run is the primal run, step by step."""
import numpy as np
import pytest

from kernelcourse import datasets, kernels
from kernelcourse.gradient_descent import (
    KernelGD, decision_function, dual_gradient, kernel_gd_step, kernel_gradient_descent,
    largest_stable_step, primal_gd_step, primal_gradient_descent, squared_loss, w_from_alpha)


def _problem(d=3, n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    return X, y


def _loop_step(K, y, alpha, s):
    """The lecture's update written coordinate by coordinate."""
    n = len(y)
    new = np.empty(n)
    for i in range(n):
        gamma_i = 2.0 * (sum(alpha[j] * K[i, j] for j in range(n)) - y[i])
        new[i] = alpha[i] - s * gamma_i
    return new


@pytest.mark.parametrize("kernel", [kernels.Linear(), kernels.Polynomial(degree=2),
                                    kernels.Polynomial(degree=3, gamma=0.5, coef0=2.0),
                                    kernels.AllSubsets()], ids=repr)
def test_alpha_path_is_the_primal_path_at_every_step(kernel):
    X, y = _problem(d=4)
    Phi = kernel.features(X)
    K = kernel(X)
    s = 0.5 * largest_stable_step(K)
    dual = kernel_gradient_descent(K, y, s, 40)
    primal = primal_gradient_descent(Phi, y, s, 40)
    assert dual.path.shape == (41, 12) and primal.path.shape == (41, Phi.shape[1])
    w_of_alpha = w_from_alpha(Phi, dual.path)          # w_t = sum_i alpha_i^t phi(x_i)
    scale = np.abs(primal.path).max()
    np.testing.assert_allclose(w_of_alpha, primal.path, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(dual.losses, primal.losses, rtol=1e-10)
    assert primal.losses[-1] < 0.9 * primal.losses[0]


@pytest.mark.parametrize("kernel", [kernels.Linear(), kernels.Polynomial(degree=2), kernels.AllSubsets()],
                         ids=repr)
def test_estimator_records_w_path_equal_to_primal_run(kernel):
    X, y = _problem(d=3, seed=1)
    model = KernelGD(kernel, step=0.01, n_steps=25, record_path=True).fit(X, y)
    primal = primal_gradient_descent(kernel.features(X), y, 0.01, 25)
    np.testing.assert_allclose(model.w_path_, primal.path, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(model.alpha_path_[-1], model.dual_coef_)
    np.testing.assert_array_equal(model.alpha_, model.dual_coef_)
    assert model.features_.shape == (12, kernel.feature_dim(3))


def test_rbf_has_no_w_path_but_an_alpha_path():
    X, y = _problem()
    model = KernelGD(kernels.RBF(gamma=1.0), n_steps=5, record_path=True).fit(X, y)
    assert model.w_path_ is None and model.features_ is None
    assert model.alpha_path_.shape == (6, 12)


def test_one_step_matches_the_coordinate_loop_and_primal_step():
    X, y = _problem(seed=2)
    k = kernels.Polynomial(degree=2)
    K, Phi = k(X), k.features(X)
    alpha = np.random.default_rng(3).normal(size=12)
    alpha_before = alpha.copy()
    new = kernel_gd_step(K, y, alpha, 0.003)
    np.testing.assert_allclose(new, _loop_step(K, y, alpha, 0.003), rtol=1e-12)
    np.testing.assert_array_equal(alpha, alpha_before)  # input untouched
    w_next = primal_gd_step(Phi, y, Phi.T @ alpha, 0.003)
    np.testing.assert_allclose(Phi.T @ new, w_next, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dual_gradient(K, y, alpha), 2 * (K @ alpha - y), rtol=1e-12)


def test_alpha_is_minus_s_times_the_sum_of_past_gammas():
    X, y = _problem(seed=4)
    K = kernels.RBF(gamma=0.7)(X)
    s = 0.02
    run = kernel_gradient_descent(K, y, s, 15)
    gammas = [dual_gradient(K, y, a) for a in run.path[:-1]]
    np.testing.assert_allclose(run.path[-1], -s * np.sum(gammas, axis=0), rtol=1e-12, atol=1e-14)


def test_path_matches_the_eigenvalue_closed_form():
    # alpha_t = sum_k 2 s sum_{r<t} (1 - 2 s lam_k)^r u_k u_k^T y
    X, y = _problem(n=10, seed=5)
    K = kernels.RBF(gamma=2.0)(X)
    lam, U = np.linalg.eigh(K)
    s, t = 0.8 * largest_stable_step(K), 37
    np.testing.assert_allclose(largest_stable_step(K), 1 / lam[-1], rtol=1e-12)
    q = 1.0 - 2.0 * s * lam
    coeff = 2.0 * s * np.array([np.sum(qk ** np.arange(t)) for qk in q])
    expected = U @ (coeff * (U.T @ y))
    run = kernel_gradient_descent(K, y, s, t, record=False)
    assert run.path is None
    np.testing.assert_allclose(run.coef, expected, rtol=1e-9, atol=1e-12)


def test_long_run_reaches_the_interpolating_solution():
    X, y = _problem(n=15, seed=6)
    K = kernels.RBF(gamma=8.0)(X)       # well conditioned: close to the identity
    run = kernel_gradient_descent(K, y, 0.9 * largest_stable_step(K), 3000, record=False)
    np.testing.assert_allclose(run.coef, np.linalg.solve(K, y), rtol=1e-8, atol=1e-10)
    assert np.all(np.diff(run.losses) <= 1e-12)  # the loss never goes up below the stable step
    np.testing.assert_allclose(squared_loss(K, y, run.coef), run.losses[-1], rtol=1e-12)


def test_alpha0_is_respected_and_not_modified():
    X, y = _problem()
    K = kernels.Linear()(X)
    a0 = np.ones(12)
    run = kernel_gradient_descent(K, y, 0.01, 3, alpha0=a0)
    np.testing.assert_array_equal(a0, np.ones(12))
    np.testing.assert_array_equal(run.path[0], a0)
    np.testing.assert_allclose(run.path[1], _loop_step(K, y, a0, 0.01), rtol=1e-12)


def test_prediction_against_a_loop_over_training_points():
    X, y = datasets.circles(n=40, random_state=1)
    X_new = np.random.default_rng(2).uniform(-1.2, 1.2, size=(7, 2))
    k = kernels.RBF(gamma=1.5)
    model = KernelGD(k, n_steps=50).fit(X, y)
    alpha = model.dual_coef_
    expected = np.array([sum(alpha[j] * np.exp(-1.5 * np.sum((X[j] - x) ** 2)) for j in range(40))
                         for x in X_new])
    np.testing.assert_allclose(model.decision_function(X_new), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(decision_function(k, X, alpha, X_new), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(model.predict(X_new), np.where(expected >= 0, 1.0, -1.0))


def test_rbf_separates_circles_and_linear_does_not():
    X, y = datasets.circles(n=200, random_state=0)
    Xt, yt = datasets.circles(n=200, random_state=1)
    rbf = KernelGD(kernels.RBF(gamma=2.0), n_steps=300).fit(X, y)
    lin = KernelGD(kernels.Linear(), n_steps=300).fit(X, y)
    assert rbf.score(Xt, yt) > 0.95
    assert lin.score(Xt, yt) < 0.7


def test_auto_step_is_half_the_stable_step_and_params_untouched():
    X, y = _problem()
    k = kernels.Linear()
    model = KernelGD(k)
    assert model.fit(X, y) is model
    assert model.step == "auto"
    np.testing.assert_allclose(model.step_, 0.5 / np.linalg.eigvalsh(k(X))[-1], rtol=1e-12)
    assert "KernelGD(kernel=Linear()" in repr(model)


def test_too_large_step_reports_divergence():
    X, y = _problem()
    K = kernels.Linear()(X)
    with pytest.raises(ValueError, match=r"diverged at step \d+ .* below 1 / lambda_max"):
        kernel_gradient_descent(K, y, 5.0 * largest_stable_step(K), 5000)


@pytest.mark.parametrize("call, match", [
    (lambda K, y: kernel_gradient_descent(K[:, :5], y, 0.1, 3), r"square \(n, n\) Gram matrix; got shape \(12, 5\)"),
    (lambda K, y: kernel_gradient_descent(K, y[:7], 0.1, 3), "y has 7 entries but there are 12 samples"),
    (lambda K, y: kernel_gradient_descent(K, y, 0.0, 3), "step must be positive; got step=0.0"),
    (lambda K, y: kernel_gradient_descent(K, y, -1.0, 3), "step must be positive; got step=-1.0"),
    (lambda K, y: kernel_gradient_descent(K, y, 0.1, -2), "n_steps must be a non-negative integer; got n_steps=-2"),
    (lambda K, y: kernel_gradient_descent(K, y, 0.1, 3, alpha0=np.zeros(5)),
     r"alpha0 must have shape \(12,\) to match the 12 samples; got shape \(5,\)"),
    (lambda K, y: kernel_gd_step(K, y, np.zeros(4), 0.1), r"alpha must have shape \(12,\)"),
    (lambda K, y: primal_gd_step(np.ones((12, 3)), y, np.zeros(4), 0.1), r"w must have shape \(3,\)"),
    (lambda K, y: w_from_alpha(np.ones((12, 3)), np.zeros(5)), r"alpha must have shape \(12,\) or \(T, 12\)"),
    (lambda K, y: decision_function(kernels.Linear(), np.ones((12, 3)), np.zeros(12), np.ones((2, 4))),
     r"X must have the 3 features of X_train; got X with shape \(2, 4\)"),
])
def test_bad_input_raises_value_error(call, match):
    X, y = _problem()
    K = kernels.Linear()(X)
    with pytest.raises(ValueError, match=match):
        call(K, y)


def test_estimator_errors():
    X, y = _problem()
    with pytest.raises(ValueError, match=r"KernelGD is not fitted yet: call fit\(X, y\)"):
        KernelGD(kernels.Linear()).predict(X)
    with pytest.raises(ValueError, match="y has 3 labels but there are 12 samples"):
        KernelGD(kernels.Linear()).fit(X, y[:3])
    with pytest.raises(ValueError, match=r"Unknown label type: y holds continuous values; KernelGD is a classifier"):
        KernelGD(kernels.Linear()).fit(X, np.where(y > 0, 1.0, 0.5))
    with pytest.raises(ValueError, match="step must be a positive number or 'auto'; got step='fast'"):
        KernelGD(kernels.Linear(), step="fast").fit(X, y)
    with pytest.raises(ValueError, match=r"kernel='gauss' is not a known kernel name; use one of \['linear'"):
        KernelGD("gauss").fit(X, y)
    with pytest.raises(TypeError, match="kernel must be a kernel object or one of the names .* got int"):
        KernelGD(3).fit(X, y)
    with pytest.raises(TypeError, match="step must be a real number"):
        kernel_gradient_descent(np.eye(3), np.ones(3), None, 2)
