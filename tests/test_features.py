"""Explicit feature maps against the kernels they belong to, and their dimensions."""
import itertools
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import features as ft
from kernelcourse import kernels as kn

RNG = np.random.default_rng(7)
X = RNG.normal(size=(8, 3))
Z = RNG.normal(size=(5, 3))


def first_two(A):
    return A[:, :2] ** 2


def row_norm(A):
    return np.linalg.norm(A, axis=1)


A_PSD = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])

WITH_FEATURES = [
    kn.Linear(),
    kn.Polynomial(1),
    kn.Polynomial(2),
    kn.Polynomial(3, gamma=0.5, coef0=2.0),
    kn.Polynomial(4, gamma=1.3, coef0=0.0),
    kn.AllSubsets(),
    kn.Bilinear(A_PSD),
    kn.Linear() + kn.Polynomial(2),
    kn.Polynomial(2) * kn.AllSubsets(),
    3.0 * kn.Linear(),
    kn.Scaled(kn.Polynomial(2), row_norm),
    kn.Composed(kn.Polynomial(2), first_two),
    kn.Composed(kn.AllSubsets() + kn.Linear(), first_two),
    kn.PolynomialOf(kn.Linear(), [0.5, 1.0, 2.0]),
    kn.Normalized(kn.Polynomial(3)),
    (kn.Linear() + 0.5 * kn.Bilinear(A_PSD)) * kn.Polynomial(2, coef0=0.5),
]


@pytest.mark.parametrize("k", WITH_FEATURES, ids=repr)
def test_features_reproduce_the_kernel(k):
    FX, FZ = k.features(X), k.features(Z)
    K = k(X, Z)
    assert_allclose(FX @ FZ.T, K, rtol=1e-10, atol=1e-12 * np.abs(K).max())
    assert_allclose(FX @ FX.T, k(X), rtol=1e-10, atol=1e-12 * np.abs(K).max())


@pytest.mark.parametrize("k", WITH_FEATURES, ids=repr)
def test_feature_dim_matches_features(k):
    assert k.features(X).shape == (8, k.feature_dim(3))


@pytest.mark.parametrize("k", [kn.RBF(), kn.Laplacian(), kn.Exponential(), kn.Sigmoid(), kn.Delta(),
                               kn.Exp(kn.Linear()), kn.RBF() + kn.Linear(), kn.Linear() * kn.Laplacian()],
                         ids=repr)
def test_no_finite_map_raises_naming_the_kernel(k):
    with pytest.raises(NotImplementedError, match=r"has no finite explicit feature map"):
        k.features(X)
    with pytest.raises(NotImplementedError):
        k.feature_dim(3)


def test_no_map_message_names_the_kernel():
    with pytest.raises(NotImplementedError, match=r"^RBF\(gamma=0\.5\) has no finite"):
        kn.RBF(0.5).features(X)
    with pytest.raises(NotImplementedError, match=r"^SetKernel\(\) has no finite"):
        kn.SetKernel().features([{1}])
    with pytest.raises(NotImplementedError, match=r"^Linear\(\) \+ 2.0 \* RBF\(gamma=1.0\) has no finite "
                                                  r"explicit feature map in kernelcourse, because "
                                                  r"2.0 \* RBF\(gamma=1.0\) has none"):
        (kn.Linear() + 2 * kn.RBF()).features(X)


# ---------------------------------------------------------------------------
# dimensions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 3, 5, 8])
def test_all_subsets_dimension(d):
    assert ft.feature_dim_all_subsets(d) == 2 ** d
    assert kn.AllSubsets().feature_dim(d) == 2 ** d
    assert ft.all_subsets_map(np.ones((2, d))).shape == (2, 2 ** d)


@pytest.mark.parametrize("d, p", [(1, 1), (2, 2), (3, 2), (2, 5), (4, 3), (6, 2)])
def test_polynomial_dimension(d, p):
    count = sum(1 for m in range(p + 1) for _ in itertools.combinations_with_replacement(range(d), m))
    assert ft.feature_dim_polynomial(d, p) == math.comb(d + p, p) == count
    assert kn.Polynomial(p).feature_dim(d) == math.comb(d + p, p)
    assert ft.polynomial_map(np.ones((2, d)), p).shape == (2, math.comb(d + p, p))
    assert ft.feature_dim_homogeneous(d, p) == math.comb(d + p - 1, p)
    assert ft.homogeneous_polynomial_map(np.ones((2, d)), p).shape == (2, math.comb(d + p - 1, p))


def test_rule_dimensions():
    assert (kn.Linear() + kn.Polynomial(2)).feature_dim(4) == 4 + 15
    assert (kn.Linear() * kn.Polynomial(2)).feature_dim(4) == 4 * 15
    assert (2.0 * kn.AllSubsets()).feature_dim(4) == 16
    assert kn.Composed(kn.AllSubsets(), first_two).feature_dim(5) == 4
    assert kn.PolynomialOf(kn.Linear(), [1, 1, 1]).feature_dim(3) == 1 + 3 + 9


# ---------------------------------------------------------------------------
# the all-subsets map
# ---------------------------------------------------------------------------

def test_all_subsets_identity():
    # prod_k (1 + x_k z_k) = sum over subsets A of prod_{k in A} x_k z_k
    for seed in range(3):
        rng = np.random.default_rng(seed)
        A, B = rng.uniform(-2, 2, size=(6, 5)), rng.uniform(-2, 2, size=(4, 5))
        explicit = ft.all_subsets_map(A) @ ft.all_subsets_map(B).T
        product = np.prod(1 + A[:, None, :] * B[None, :, :], axis=2)
        assert_allclose(explicit, product, rtol=1e-12)
        assert_allclose(kn.AllSubsets()(A, B), product, rtol=1e-12)


def test_all_subsets_column_order():
    x = np.array([[2.0, 3.0, 5.0]])
    # (), (1), (2), (3), (1,2), (1,3), (2,3), (1,2,3)
    assert ft.all_subsets_map(x).tolist() == [[1, 2, 3, 5, 6, 10, 15, 30]]


def test_all_subsets_refuses_huge_maps():
    with pytest.raises(ValueError, match=r"the all-subsets map would have shape \(2, 268435456\)"):
        ft.all_subsets_map(np.ones((2, 28)))


# ---------------------------------------------------------------------------
# polynomial and quadratic maps
# ---------------------------------------------------------------------------

def test_homogeneous_map_d2_p2_is_the_lecture_map():
    x = np.array([[3.0, -2.0], [0.5, 4.0]])
    expected = np.column_stack([x[:, 0] ** 2, np.sqrt(2) * x[:, 0] * x[:, 1], x[:, 1] ** 2])
    assert_allclose(ft.homogeneous_polynomial_map(x, 2), expected, rtol=1e-15)


@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_homogeneous_map_gives_power_of_dot(p):
    F, G = ft.homogeneous_polynomial_map(X, p), ft.homogeneous_polynomial_map(Z, p)
    assert_allclose(F @ G.T, (X @ Z.T) ** p, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p, gamma, coef0", [(1, 1.0, 1.0), (2, 1.0, 1.0), (3, 0.4, 2.5), (3, 2.0, 0.0),
                                             (5, 0.3, 1.0)])
def test_polynomial_map_against_slow_loop(p, gamma, coef0):
    slow = np.array([[(gamma * np.dot(x, z) + coef0) ** p for z in Z] for x in X])
    F, G = ft.polynomial_map(X, p, gamma, coef0), ft.polynomial_map(Z, p, gamma, coef0)
    assert_allclose(F @ G.T, slow, rtol=1e-10, atol=1e-12)


def test_polynomial_map_weights_for_d2_p2():
    # (x.z + 1)^2 = 1 + 2 x1 z1 + 2 x2 z2 + x1^2 z1^2 + 2 x1 x2 z1 z2 + x2^2 z2^2
    x = np.array([[3.0, 5.0]])
    r2 = np.sqrt(2)
    assert_allclose(ft.polynomial_map(x, 2), [[1, r2 * 3, r2 * 5, 9, r2 * 15, 25]], rtol=1e-15)


def test_quadratic_map():
    x = np.array([[1.0, 2.0, 3.0]])
    assert ft.quadratic_map(x).tolist() == [[1, 2, 3, 2, 4, 6, 3, 6, 9]]
    assert_allclose(ft.quadratic_map(X) @ ft.quadratic_map(Z).T, (X @ Z.T) ** 2, rtol=1e-10)
    assert ft.quadratic_map(X).shape == (8, 9)


def test_bilinear_features_via_factor():
    F = kn.Bilinear(A_PSD).features(X)
    assert F.shape == (8, 3)
    assert_allclose(F @ F.T, X @ A_PSD @ X.T, rtol=1e-10, atol=1e-12)


def test_product_features_are_row_tensor_products():
    k1, k2 = kn.Linear(), 2.0 * kn.Linear()
    F = (k1 * k2).features(X)
    assert_allclose(F[0], np.sqrt(2.0) * np.outer(X[0], X[0]).ravel(), rtol=1e-15)


def test_maps_do_not_modify_inputs():
    X0 = X.copy()
    ft.all_subsets_map(X)
    ft.polynomial_map(X, 3)
    ft.quadratic_map(X)
    kn.Linear().features(X)[0, 0] = 99.0
    assert np.array_equal(X, X0)


def test_map_errors():
    with pytest.raises(ValueError, match=r"coef0 must be non-negative; got coef0=-1.0"):
        ft.polynomial_map(X, 2, coef0=-1.0)
    with pytest.raises(ValueError, match=r"coef0 must be non-negative"):
        kn.Polynomial(2, coef0=-1.0).features(X)
    with pytest.raises(ValueError, match=r"degree must be a positive integer; got degree=0"):
        ft.polynomial_map(X, 0)
    with pytest.raises(ValueError, match=r"degree must be a positive integer; got degree=1.5"):
        ft.homogeneous_polynomial_map(X, 1.5)
    with pytest.raises(ValueError, match=r"gamma must be positive; got gamma=0"):
        ft.polynomial_map(X, 2, gamma=0)
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 1-D with shape \(3,\)"):
        ft.all_subsets_map(np.ones(3))
    with pytest.raises(ValueError, match=r"d must be a positive integer; got d=0"):
        ft.feature_dim_all_subsets(0)


# ---------------------------------------------------------------------------
# the timing helper of lecture 1.3 (numbers only; no timing assertions)
# ---------------------------------------------------------------------------

def test_time_all_subsets_returns_consistent_numbers():
    out = ft.time_all_subsets([2, 4, 6], n=10, repeat=1)
    assert out["d"].tolist() == [2, 4, 6]
    assert out["dim"].tolist() == [4, 16, 64]
    assert np.all(out["map_seconds"] > 0) and np.all(out["kernel_seconds"] > 0)
    assert np.all(out["max_abs_diff"] < 1e-10)


def test_all_subsets_inner_products_is_the_map_inner_product():
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(5, 4)), rng.normal(size=(3, 4))
    want = ft.all_subsets_map(X) @ ft.all_subsets_map(Z).T
    np.testing.assert_allclose(ft.all_subsets_inner_products(X, Z), want, rtol=1e-12)
    F = ft.all_subsets_map(X)
    np.testing.assert_allclose(ft.all_subsets_inner_products(X), F @ F.T, rtol=1e-12)
    with pytest.raises(ValueError, match="same number of features"):
        ft.all_subsets_inner_products(X, Z[:, :3])
