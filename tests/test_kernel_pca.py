"""Kernel PCA (lecture 6.4): PCA of explicit features for the linear and polynomial kernels,
scikit-learn's KernelPCA up to sign, new points centred with the training statistics."""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SkKernelPCA

from kernelcourse import datasets
from kernelcourse.kernel_pca import KernelPCA, explained_variance_ratio, fix_signs
from kernelcourse.kernels import RBF, Linear, Polynomial


def same_up_to_sign(A, B, **tol):
    signs = np.sign(np.sum(A * B, axis=0))
    assert np.all(signs != 0)
    assert_allclose(A * signs, B, **tol)


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    return rng.normal(size=(60, 3)) + [1.0, -2.0, 0.5], rng.normal(size=(9, 3))


def explicit_pca(F, F_new, k):
    """PCA by hand: eigenvectors of the covariance of the centred features."""
    mean = F.mean(axis=0)
    C = (F - mean).T @ (F - mean)
    s, V = np.linalg.eigh(C)
    V = V[:, ::-1][:, :k]
    return (F - mean) @ V, (F_new - mean) @ V, s[::-1][:k]


@pytest.mark.parametrize("kernel", [Linear(), Polynomial(2, gamma=0.5, coef0=1.0), Polynomial(3)])
def test_equals_pca_of_the_explicit_features(data, kernel):
    X, X_new = data
    F, F_new = kernel.features(X), kernel.features(X_new)
    train, new, s = explicit_pca(F, F_new, 3)
    model = KernelPCA(kernel, n_components=3)
    P = model.fit_transform(X)
    same_up_to_sign(P, train, rtol=1e-6, atol=1e-8)
    same_up_to_sign(model.transform(X_new), new, rtol=1e-6, atol=1e-8)
    # eigenvalues of K_c = eigenvalues of the scatter matrix of the centred features
    assert_allclose(model.eigenvalues_, s, rtol=1e-8)
    assert_allclose(P, model.transform(X), atol=1e-8)


def test_linear_kernel_matches_sklearn_pca(data):
    X, X_new = data
    same_up_to_sign(KernelPCA(Linear(), 2).fit(X).transform(X_new),
                    PCA(2).fit(X).transform(X_new), rtol=1e-7, atol=1e-9)


def test_rbf_matches_sklearn_kernel_pca_up_to_sign():
    X, _ = datasets.circles(200, noise=0.05, random_state=0)
    X_new = np.random.default_rng(0).uniform(-1, 1, size=(20, 2))
    ours = KernelPCA(RBF(2.0), n_components=4).fit(X)
    sk = SkKernelPCA(4, kernel="rbf", gamma=2.0, eigen_solver="dense").fit(X)
    assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-9)
    same_up_to_sign(ours.eigenvectors_, sk.eigenvectors_, rtol=1e-6, atol=1e-9)
    same_up_to_sign(ours.fit_transform(X), sk.transform(X), rtol=1e-6, atol=1e-9)
    same_up_to_sign(ours.transform(X_new), sk.transform(X_new), rtol=1e-6, atol=1e-9)


def test_new_points_use_the_training_mean_not_their_own(data):
    X, X_new = data
    k = Polynomial(2)
    model = KernelPCA(k, 2).fit(X)
    F, F_new = k.features(X), k.features(X_new)
    own = (F_new - F_new.mean(0)) @ np.linalg.eigh(np.cov((F - F.mean(0)).T))[1][:, ::-1][:, :2]
    proj = model.transform(X_new)
    with pytest.raises(AssertionError):
        same_up_to_sign(proj, own, rtol=1e-3, atol=1e-6)
    # the slow loop: centre each new row by hand with the training statistics
    K, K_new = k(X), k(X_new, X)
    m = len(X)
    Kc_new = np.array([[K_new[a, i] - K_new[a].mean() - K[:, i].mean() + K.mean()
                        for i in range(m)] for a in range(len(X_new))])
    assert_allclose(proj, Kc_new @ model.dual_coef_, rtol=1e-9)


def test_directions_have_unit_norm_and_variances_add_up(data):
    X, _ = data
    k = RBF(0.3)
    model = KernelPCA(k, n_components=5).fit(X)
    from kernelcourse.feature_space import center_gram
    Kc = center_gram(k(X))
    # ||v_k||^2 = alpha_k^T K_c alpha_k = 1, and different directions are orthogonal
    assert_allclose(model.dual_coef_.T @ Kc @ model.dual_coef_, np.eye(5), atol=1e-8)
    ratio = explained_variance_ratio(k(X))
    assert_allclose(ratio.sum(), 1.0)
    assert np.all(np.diff(ratio) <= 1e-12)
    assert_allclose(model.explained_variance_ratio_, ratio[:5], rtol=1e-9)
    assert_allclose(model.explained_variance_ratio_, model.eigenvalues_ / np.trace(Kc), rtol=1e-12)


def test_zero_eigenvalues_give_zero_projections_not_nan(data):
    X, X_new = data
    model = KernelPCA(Linear(), n_components=5).fit(X)   # 3 features: 2 eigenvalues are zero
    assert np.count_nonzero(model.eigenvalues_) == 3
    P = model.transform(X_new)
    assert np.all(np.isfinite(P)) and np.all(P[:, 3:] == 0)


def test_fix_signs_makes_the_largest_entry_positive():
    U = np.array([[0.1, -0.9], [-0.8, 0.2]])
    assert_allclose(fix_signs(U), [[-0.1, 0.9], [0.8, -0.2]])


def test_estimator_contract_and_errors(data):
    X, _ = data
    model = KernelPCA(RBF(0.3), n_components=2)
    assert set(model.get_params(deep=False)) == {"kernel", "n_components"}
    assert model.get_params()["kernel__gamma"] == 0.3   # the kernel's own parameter, nested
    assert_allclose(clone(model).fit_transform(X), model.fit_transform(X))
    with pytest.raises(ValueError, match="not fitted yet"):
        KernelPCA().transform(X)
    with pytest.raises(ValueError, match=r"n_components must be at most the number of training points; got n_components=61 with X of shape \(60, 3\)"):
        KernelPCA(n_components=61).fit(X)
    with pytest.raises(ValueError, match=r"X has 2 features, but KernelPCA is expecting 3 features as input; got X with shape \(60, 2\)"):
        model.fit(X).transform(X[:, :2])
    with pytest.raises(ValueError, match="centred Gram matrix is zero"):
        explained_variance_ratio(np.ones((4, 4)))
