"""Positive semi-definiteness: a sweep over every kernel and rule, and the PSD tools."""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist

from kernelcourse import kernels as kn


def halve(A):
    return A / 2.0


def bump(A):
    return np.cos(A[:, 0])


def squash(A):
    return np.tanh(A)


A_PSD = np.array([[1.0, 0.3, 0.0], [0.3, 0.5, 0.0], [0.0, 0.0, 0.0]])

KERNELS = [
    kn.Linear(), kn.Polynomial(2), kn.Polynomial(3, gamma=0.5, coef0=0.0), kn.Polynomial(5, coef0=2.0),
    kn.RBF(0.1), kn.RBF(10.0), kn.Laplacian(0.7), kn.Exponential(1.3), kn.Delta(), kn.AllSubsets(),
    kn.Bilinear(A_PSD), kn.Matern(0.3, 0.5), kn.Matern(1.0, 1.5), kn.Matern(2.0, 2.5),
    kn.Matern(0.5, float("inf")),
]
RULES = [
    kn.RBF(0.5) + kn.Linear(),
    kn.Laplacian(1.0) * kn.Polynomial(2),
    0.1 * kn.Exponential(0.5),
    kn.Exp(0.3 * kn.Linear()),
    kn.Exp(kn.RBF(1.0)),
    kn.PolynomialOf(kn.RBF(0.2), [0.0, 1.0, 3.0, 0.5]),
    kn.Scaled(kn.RBF(1.0), bump),
    kn.Composed(kn.AllSubsets(), squash),
    kn.Composed(kn.RBF(2.0) * kn.Bilinear(A_PSD), halve),
    kn.Normalized(kn.Polynomial(3)),
    kn.Normalized(kn.Linear() + kn.Delta()) * kn.Exp(kn.Laplacian(0.3)),
    2.0 * kn.Matern(1.0, 2.5) * kn.RBF(0.2) + 0.5 * kn.Linear(),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", KERNELS + RULES, ids=repr)
def test_gram_matrices_are_psd(k, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    X[5] = X[7]                       # a repeated point makes K singular
    K = k(X)
    assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    assert kn.is_psd(K)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] >= -1e-10 * max(1.0, lam[-1]) * len(K)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [kn.ExpSineSquared(0.8, 1.5), kn.ExpSineSquared(0.3, 0.3),
                               2.0 * kn.Matern(1.0, 2.5) * kn.ExpSineSquared(1.0, 2.0) + 0.5 * kn.Linear()],
                         ids=repr)
def test_periodic_kernel_is_psd_on_the_line(k, seed):
    X = 3.0 * np.random.default_rng(seed).normal(size=(60, 1))
    X[5] = X[7]
    K = k(X)
    assert kn.is_psd(K)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] >= -1e-10 * max(1.0, lam[-1]) * len(K)


def test_periodic_kernel_of_the_euclidean_distance_is_not_psd_in_three_dimensions():
    # sin^2(pi ||x - z|| / p) is a squared distance after the map x -> (cos, sin)(2 pi x / p)
    # only on the line; in 3-D the Gram matrix has a clearly negative eigenvalue
    X = np.random.default_rng(0).normal(size=(30, 3))
    K = kn.ExpSineSquared(0.8, 1.5)(X)
    assert not kn.is_psd(K)
    assert np.linalg.eigvalsh(K)[0] < -1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_set_kernel_is_psd(seed):
    rng = np.random.default_rng(seed)
    S = [set(rng.choice(8, size=rng.integers(0, 6), replace=False).tolist()) for _ in range(20)]
    assert kn.is_psd(kn.SetKernel()(S))


def test_delta_gram_is_identity_on_distinct_points():
    X = np.random.default_rng(3).normal(size=(6, 2))
    assert kn.min_eigenvalue(kn.Delta()(X)) == 1.0


# ---------------------------------------------------------------------------
# is_psd and min_eigenvalue
# ---------------------------------------------------------------------------

def test_min_eigenvalue_against_numpy():
    B = np.random.default_rng(4).normal(size=(5, 5))
    K = B + B.T
    assert_allclose(kn.min_eigenvalue(K), np.linalg.eigvalsh(K)[0], rtol=1e-12)
    assert kn.min_eigenvalue([[2.0, 1.0], [1.0, 2.0]]) == pytest.approx(1.0, rel=1e-14)


def test_is_psd_simple_cases():
    assert kn.is_psd(np.eye(3))
    assert kn.is_psd(np.ones((4, 4)))                 # rank one, eigenvalues 4, 0, 0, 0
    assert not kn.is_psd([[1.0, 2.0], [2.0, 1.0]])    # eigenvalues 3 and -1
    assert not kn.is_psd([[1.0, 0.5], [0.0, 1.0]])    # not symmetric


def test_is_psd_tolerance():
    V = np.linalg.qr(np.random.default_rng(5).normal(size=(4, 4)))[0]
    K = V @ np.diag([-1e-13, 1.0, 2.0, 3.0]) @ V.T
    K = (K + K.T) / 2
    # default tol = 1e-10 * max(1, max |eigenvalue|) * n = 1.2e-9 absorbs -1e-13 ...
    assert kn.is_psd(K)
    # ... but not -1e-6, and tol=0 rejects even -1e-13
    assert not kn.is_psd(K, tol=0.0)
    K2 = V @ np.diag([-1e-6, 1.0, 2.0, 3.0]) @ V.T
    assert not kn.is_psd((K2 + K2.T) / 2)
    assert kn.is_psd((K2 + K2.T) / 2, tol=1e-5)


def test_psd_tool_errors():
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) Gram matrix; got shape \(2, 3\)"):
        kn.is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"K must be symmetric; got max \|K - K\^T\| = 0.5 for shape \(2, 2\)"):
        kn.min_eigenvalue([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"tol must be non-negative; got tol=-1"):
        kn.is_psd(np.eye(2), tol=-1)


# ---------------------------------------------------------------------------
# witnesses that a function is no kernel
# ---------------------------------------------------------------------------

def check_witness(w, func):
    assert w is not None
    assert_allclose(w.K, func(w.X, w.X), rtol=1e-14)
    assert_allclose(w.min_eigenvalue, np.linalg.eigvalsh(w.K)[0], rtol=1e-12)
    assert w.min_eigenvalue < 0
    assert not kn.is_psd(w.K)


def test_witness_for_sigmoid_with_negative_coef0():
    k = kn.Sigmoid(gamma=1.0, coef0=-1.0)
    check_witness(kn.find_non_psd_witness(k), k)


def test_witness_for_sigmoid_in_two_dimensions():
    k = kn.Sigmoid(gamma=2.0, coef0=1.0)
    w = kn.find_non_psd_witness(k, d=2, random_state=1)
    check_witness(w, k)
    assert w.X.shape[1] == 2


def test_witness_for_distance_used_as_similarity():
    def distance(A, B):
        return cdist(A, B)
    w = kn.find_non_psd_witness(distance, d=3)
    check_witness(w, distance)
    # zero diagonal, positive off-diagonal: two points already show it
    assert w.X.shape == (2, 3)
    assert_allclose(w.min_eigenvalue, -np.linalg.norm(w.X[0] - w.X[1]), rtol=1e-12)


@pytest.mark.parametrize("k", [kn.RBF(1.0), kn.Polynomial(3), kn.Laplacian(0.5)], ids=repr)
def test_no_witness_for_kernels(k):
    assert kn.find_non_psd_witness(k, d=2, trials=30) is None


def test_witness_is_reproducible():
    k = kn.Sigmoid(coef0=-1.0)
    w1 = kn.find_non_psd_witness(k, random_state=3)
    w2 = kn.find_non_psd_witness(k, random_state=3)
    assert np.array_equal(w1.X, w2.X)


def test_witness_errors():
    with pytest.raises(TypeError, match=r"func must be a kernel or a callable func\(X, Z\); got int"):
        kn.find_non_psd_witness(3)
    with pytest.raises(ValueError, match=r"func\(X, X\) must return shape \(2, 2\) for X with shape \(2, 1\); got \(2,\)"):
        kn.find_non_psd_witness(lambda A, B: A[:, 0])
    with pytest.raises(ValueError, match=r"n_points must be a positive integer; got n_points=0"):
        kn.find_non_psd_witness(kn.Sigmoid(), n_points=[0, 2])
