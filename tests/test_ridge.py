"""Ridge regression, primal and dual (lecture 3.1-3.4)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge as SkRidge

from kernelcourse import datasets, features, kernels
from kernelcourse.ridge import KernelRidge, dual_ridge, primal_ridge, ridge_predict_dual


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(30)
    return X, y


def test_primal_solves_the_normal_equations(data):
    X, y = data
    lam = 0.7
    w = primal_ridge(X, y, lam)
    # (X^T X + lam I) w = X^T y, and the gradient of lam||w||^2 + ||y - Xw||^2 is zero
    assert_allclose((X.T @ X + lam * np.eye(4)) @ w, X.T @ y, atol=1e-10)
    assert_allclose(2 * lam * w - 2 * X.T @ (y - X @ w), 0.0, atol=1e-10)


def test_primal_matches_sklearn_ridge_without_intercept(data):
    X, y = data
    ref = SkRidge(alpha=2.5, fit_intercept=False).fit(X, y).coef_
    assert_allclose(primal_ridge(X, y, 2.5), ref, rtol=1e-10)


@pytest.mark.parametrize("lam", [1e-3, 0.1, 1.0, 10.0])
def test_primal_and_dual_agree_with_linear_kernel(data, lam):
    X, y = data
    w = primal_ridge(X, y, lam)
    alpha = dual_ridge(X @ X.T, y, lam)
    assert_allclose(X.T @ alpha, w, rtol=1e-8, atol=1e-10)      # w = X^T alpha
    Xt = np.random.default_rng(1).standard_normal((7, 4))
    assert_allclose(ridge_predict_dual(Xt @ X.T, alpha), Xt @ w, rtol=1e-8, atol=1e-10)
    # alpha = (y - X w) / lam, the lecture's equation (1)
    assert_allclose(alpha, (y - X @ w) / lam, rtol=1e-7, atol=1e-9)


def test_lam_zero_is_least_squares_through_the_pseudo_inverse():
    rng = np.random.default_rng(2)
    # more features than examples: X^T X is singular, the pseudo-inverse still works
    X = rng.standard_normal((5, 8))
    y = rng.standard_normal(5)
    w = primal_ridge(X, y, 0.0)
    assert_allclose(w, np.linalg.pinv(X) @ y, atol=1e-10)
    alpha = dual_ridge(X @ X.T, y, 0.0)
    assert_allclose(X.T @ alpha, w, atol=1e-9)
    # small lam approaches the lam = 0 solution
    assert_allclose(primal_ridge(X, y, 1e-9), w, atol=1e-6)
    # singular K (duplicated rows) with lam = 0: pinv, not a failure
    Xd = np.vstack([X, X[:2]])
    yd = np.concatenate([y, y[:2]])
    assert_allclose(dual_ridge(Xd @ Xd.T, yd, 0.0), np.linalg.pinv(Xd @ Xd.T) @ yd, atol=1e-8)


def test_large_lam_damps_the_solution(data):
    X, y = data
    norms = [np.linalg.norm(primal_ridge(X, y, lam)) for lam in (0.01, 1.0, 100.0, 1e4)]
    assert all(a > b for a, b in zip(norms, norms[1:]))
    assert norms[-1] < 0.05


@pytest.mark.parametrize("kernel, sk", [
    (kernels.RBF(gamma=0.3), dict(kernel="rbf", gamma=0.3)),
    (kernels.Polynomial(degree=3, gamma=0.5, coef0=1.0), dict(kernel="poly", degree=3, gamma=0.5, coef0=1.0)),
    (kernels.Linear(), dict(kernel="linear")),
])
def test_kernel_ridge_agrees_with_sklearn(data, kernel, sk):
    X, y = data
    Xt = np.random.default_rng(3).standard_normal((9, 4))
    ours = KernelRidge(kernel, lam=0.5).fit(X, y)
    ref = SkKernelRidge(alpha=0.5, **sk).fit(X, y)
    assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-10)
    assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-8, atol=1e-10)


def test_kernel_ridge_multi_output_and_default_linear_kernel(data):
    X, y = data
    Y = np.column_stack([y, 2 * y + 1])
    model = KernelRidge(lam=0.3).fit(X, Y)
    assert model.dual_coef_.shape == (30, 2)
    assert_allclose(model.predict(X), X @ primal_ridge(X, Y, 0.3), rtol=1e-8, atol=1e-10)


def test_fit_returns_self_and_leaves_inputs_alone(data):
    X, y = data
    X0, y0 = X.copy(), y.copy()
    model = KernelRidge(kernels.RBF(1.0), lam=0.1)
    assert model.fit(X, y) is model
    K = kernels.RBF(1.0)(X)
    K0 = K.copy()
    dual_ridge(K, y, 0.1)
    assert np.array_equal(X, X0) and np.array_equal(y, y0) and np.array_equal(K, K0)
    assert model.lam == 0.1  # parameters stored untouched


def test_quadratic_kernel_equals_explicit_map_vec_xxT():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((12, 5))
    Z = rng.standard_normal((6, 5))
    quad = kernels.Polynomial(degree=2, gamma=1.0, coef0=0.0)
    PhiX, PhiZ = features.quadratic_map(X), features.quadratic_map(Z)
    assert PhiX.shape == (12, 25)
    # vec(x x^T) by hand for one point
    assert_allclose(PhiX[3], np.outer(X[3], X[3]).ravel(order="F"))
    scale = np.abs(PhiX @ PhiZ.T).max()
    assert_allclose(quad(X, Z), PhiX @ PhiZ.T, rtol=1e-10, atol=1e-12 * scale)
    assert_allclose(quad(X, Z), (X @ Z.T) ** 2, rtol=1e-10, atol=1e-12 * scale)


def test_images_example_kernel_ridge_equals_primal_in_explicit_quadratic_space():
    # the lecture's images example, shrunk: 6x6 images, 36^2 = 1296 features,
    # 60 images. The dual solves a 60x60 system, the primal a 1296x1296 one.
    X, y = datasets.synthetic_images(60, side=6, random_state=0)
    Xt, _ = datasets.synthetic_images(10, side=6, random_state=1)
    lam = 1.0
    quad = kernels.Polynomial(degree=2, gamma=1.0, coef0=0.0)
    dual = KernelRidge(quad, lam=lam).fit(X, y).predict(Xt)
    Phi, Phit = features.quadratic_map(X), features.quadratic_map(Xt)
    w = primal_ridge(Phi, y, lam)
    assert_allclose(dual, Phit @ w, rtol=1e-6, atol=1e-8)


def test_images_example_at_lecture_size_learns():
    # 32x32 pixels: about a million quadratic features, never formed.
    X, y = datasets.synthetic_images(300, side=32, random_state=0)
    Xt, yt = datasets.synthetic_images(100, side=32, random_state=1)
    quad = kernels.Polynomial(degree=2, gamma=1.0 / 1024, coef0=0.0)
    model = KernelRidge(quad, lam=1e-2).fit(X, y)
    rmse = np.sqrt(np.mean((model.predict(Xt) - yt) ** 2))
    assert rmse < 0.5 * yt.std()   # much better than predicting the mean


def test_not_positive_definite_raises():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])   # eigenvalues 3 and -1: not a kernel matrix
    with pytest.raises(ValueError, match=r"K \+ lam I is not positive definite \(lam=0.5\)"):
        dual_ridge(K, np.ones(2), 0.5)
    # a large enough lam makes it positive definite again
    assert_allclose((K + 2 * np.eye(2)) @ dual_ridge(K, np.ones(2), 2.0), np.ones(2))


def test_bad_input_messages(data):
    X, y = data
    with pytest.raises(ValueError, match=r"lam must be non-negative; got lam=-1"):
        primal_ridge(X, y, -1.0)
    with pytest.raises(ValueError, match=r"lam must be non-negative; got lam=-0.1"):
        KernelRidge(kernels.Linear(), lam=-0.1).fit(X, y)
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) Gram matrix; got shape \(30, 4\)"):
        dual_ridge(X, y, 1.0)
    with pytest.raises(ValueError, match=r"y has 29 entries but there are 30 samples"):
        primal_ridge(X, y[:-1], 1.0)
    with pytest.raises(ValueError, match=r"not fitted yet: call fit\(X, y\) before predict"):
        KernelRidge(kernels.Linear()).predict(X)
    model = KernelRidge(kernels.Linear()).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 3 features, but KernelRidge is expecting 4 features as input; got X with shape \(30, 3\)"):
        model.predict(X[:, :3])
    with pytest.raises(TypeError, match=r"lam must be a real number"):
        dual_ridge(X @ X.T, y, "1")


def test_rmse_against_lambda_is_a_loop_over_kernel_ridge():
    from kernelcourse.ridge import rmse_against_lambda
    rng = np.random.default_rng(11)
    X, Xv, Xt = rng.normal(size=(40, 3)), rng.normal(size=(15, 3)), rng.normal(size=(12, 3))
    f = lambda A: np.sin(A[:, 0]) + A[:, 1] ** 2
    k = kernels.Polynomial(degree=2, gamma=0.5, coef0=0.0)
    lams = [1e-3, 0.1, 10.0]
    rmse = lambda lam, A: np.sqrt(np.mean((KernelRidge(k, lam).fit(X, f(X)).predict(A) - f(A)) ** 2))
    out = rmse_against_lambda(k, X, f(X), Xv, f(Xv), lams, Xt, f(Xt))
    assert_allclose(out["validation"], [rmse(lam, Xv) for lam in lams], rtol=1e-10)
    best = lams[int(np.argmin([rmse(lam, Xv) for lam in lams]))]
    assert out["lam"] == best
    assert_allclose(out["test"], rmse(best, Xt), rtol=1e-10)
    assert np.isnan(rmse_against_lambda(k, X, f(X), Xv, f(Xv), lams)["test"])
    with pytest.raises(ValueError, match="X_test and y_test must be given together"):
        rmse_against_lambda(k, X, f(X), Xv, f(Xv), lams, X_test=Xt)
    # the product target of the images example: the quadratic kernel beats the pixels
    Xi, yi = datasets.synthetic_images(300, side=16, random_state=0, target="product")
    Xp, yp = datasets.synthetic_images(100, side=16, random_state=1, target="product")
    quad = rmse_against_lambda(kernels.Polynomial(2, gamma=1 / 256, coef0=0.0), Xi, yi, Xp, yp, [1e-4, 1e-3, 1e-2])
    lin = rmse_against_lambda(kernels.Linear(), Xi, yi, Xp, yp, [0.1, 1.0, 10.0])
    assert quad["validation"].min() < lin["validation"].min()
