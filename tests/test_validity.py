"""Lecture 4.5-4.7: which functions are kernels.

A function is a kernel when every Gram matrix it makes is positive semi-definite. The eight
construction rules only ever produce such functions; a metric, or any function with one small
data set whose Gram matrix has a negative determinant, is no kernel.
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist

from kernelcourse import kernels
from kernelcourse.kernels import (RBF, Bilinear, Exp, Linear, Normalized, PolynomialOf, Scaled,
                                  SetKernel, find_non_psd_witness, gamma_from_sigma, is_psd,
                                  min_eigenvalue)

A_PSD = np.array([[2.0, 1.0, 0.0], [1.0, 1.0, 0.5], [0.0, 0.5, 3.0]])


def _f(X):
    """Any real function, negative values included (rule 6 allows them)."""
    return np.sin(3 * X[:, 0]) - X[:, 1]


def _all_eight_rules():
    lin = Linear()                                                  # rule 1
    return (0.7 * lin                                               # rule 2
            + lin * RBF(gamma=0.4)                                  # rules 3, 4
            + PolynomialOf(lin, [1.0, 0.5, 0.25])                   # rule 5
            + Scaled(RBF(gamma=1.0), _f)                            # rule 6
            + Exp(0.2 * lin)                                        # rule 7
            + Bilinear(A_PSD))                                      # rule 8


def _slow_eight_rules(x, z):
    dot = x @ z
    return (0.7 * dot + dot * np.exp(-0.4 * np.sum((x - z) ** 2))
            + 1.0 + 0.5 * dot + 0.25 * dot ** 2
            + _f(x[None])[0] * np.exp(-np.sum((x - z) ** 2)) * _f(z[None])[0]
            + np.exp(0.2 * dot) + x @ A_PSD @ z)


def test_the_eight_rules_compute_what_they_say():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    k = _all_eight_rules()
    slow = np.array([[_slow_eight_rules(x, z) for z in Z] for x in X])
    assert_allclose(k(X, Z), slow, rtol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_a_kernel_built_by_the_eight_rules_is_psd_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    X = rng.normal(scale=1.5, size=(n, 3))
    K = _all_eight_rules()(X)
    assert_allclose(K, K.T, rtol=1e-12)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] >= -1e-9 * lam[-1]
    assert is_psd(K)
    # z^T K z >= 0 for random z, the definition itself
    zs = rng.normal(size=(20, n))
    assert np.all(np.einsum("ij,jk,ik->i", zs, K, zs) >= -1e-9 * lam[-1])


def test_the_rules_preconditions_matter():
    """Without c > 0, positive coefficients or A PSD the result can fail to be a kernel."""
    lin = lambda X, Z: X @ Z.T                                     # noqa: E731
    cases = {
        "negative constant": lambda X, Z: -1.0 * lin(X, Z),
        "polynomial with a negative coefficient": lambda X, Z: lin(X, Z) ** 2 - 2.0 * lin(X, Z),
        "x^T A z with A not PSD": lambda X, Z: X @ np.diag([1.0, -1.0]) @ Z.T,
        "difference of kernels": lambda X, Z: lin(X, Z) - RBF(0.5)(X, Z),
    }
    for name, func in cases.items():
        w = find_non_psd_witness(func, d=2)
        assert w is not None, name
        assert np.linalg.eigvalsh(func(w.X, w.X))[0] < -1e-8, name
    with pytest.raises(ValueError, match="c must be positive"):
        -1.0 * Linear()
    with pytest.raises(ValueError, match="coeffs must be finite and non-negative"):
        PolynomialOf(Linear(), [0.0, -2.0, 1.0])
    with pytest.raises(ValueError, match="A must be positive semi-definite"):
        Bilinear(np.diag([1.0, -1.0]))


# 4.5 the Gaussian kernel by the rules -------------------------------------------------------
@pytest.mark.parametrize("gamma", [0.1, 0.5, 2.0])
def test_gaussian_is_the_normalised_exponential_of_a_scaled_dot_product(gamma):
    """exp(2 gamma x.z) / sqrt(exp(2 gamma x.x) exp(2 gamma z.z)) = exp(-gamma ||x - z||^2)."""
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(7, 4)), rng.normal(size=(6, 4))
    by_rules = Normalized(Exp((2 * gamma) * Linear()))                # rules 1, 2, 7, 6
    assert_allclose(by_rules(X, Z), RBF(gamma)(X, Z), rtol=1e-10)
    slow = np.array([[np.exp(-gamma * np.sum((x - z) ** 2)) for z in Z] for x in X])
    assert_allclose(by_rules(X, Z), slow, rtol=1e-10)


def test_gaussian_in_the_lectures_form_f_x_exp_xz_over_sigma2_f_z():
    """The notes: exp(-||x-x'||^2/2s^2) = f(x) exp(x.x'/s^2) f(x') with f(x) = exp(-x.x/2s^2)."""
    sigma = 1.3
    rng = np.random.default_rng(2)
    X = rng.normal(size=(9, 2))

    def f(X):
        return np.exp(-np.sum(X ** 2, axis=1) / (2 * sigma ** 2))

    by_rules = Scaled(Exp((1 / sigma ** 2) * Linear()), f)
    gaussian = RBF(gamma_from_sigma(sigma, "two_sigma2"))
    assert_allclose(by_rules(X), gaussian(X), rtol=1e-10)
    assert is_psd(by_rules(X))
    # the wrong width (sigma^2 in place of 2 sigma^2) is a different kernel
    assert np.max(np.abs(by_rules(X) - RBF(1 / sigma ** 2)(X))) > 1e-2


def test_eigendecomposition_writes_z_K_z_as_a_weighted_sum_of_squares():
    X = np.random.default_rng(3).normal(size=(8, 3))
    K = RBF(0.5)(X)
    lam, V = np.linalg.eigh(K)
    assert_allclose(V @ np.diag(lam) @ V.T, K, atol=1e-12)
    z = np.random.default_rng(4).normal(size=8)
    assert z @ K @ z == pytest.approx(np.sum(lam * (V.T @ z) ** 2), rel=1e-10)
    assert min_eigenvalue(K) == pytest.approx(lam[0], abs=1e-14)


# 4.6 a kernel on sets ---------------------------------------------------------------------
def _random_sets(rng, n, universe=12):
    return [set(rng.choice(universe, size=rng.integers(0, 7), replace=False).tolist())
            for _ in range(n)]


@pytest.mark.parametrize("seed", range(5))
def test_set_kernel_is_psd_on_random_sets(seed):
    rng = np.random.default_rng(seed)
    S = _random_sets(rng, 25)
    K = SetKernel()(S)
    slow = np.array([[np.exp(len(a & b)) for b in S] for a in S])
    assert_allclose(K, slow, rtol=1e-12)
    assert is_psd(K)
    assert np.linalg.eigvalsh(K)[0] > -1e-9 * np.abs(K).max()


def test_set_kernel_is_exp_of_a_dot_product_of_membership_vectors():
    """|S n T| = b_S . b_T with 0/1 membership vectors: rule 1 then rule 7."""
    rng = np.random.default_rng(7)
    S = _random_sets(rng, 10, universe=8)
    B = np.array([[1.0 if u in s else 0.0 for u in range(8)] for s in S])
    assert_allclose(SetKernel()(S), Exp(Linear())(B), rtol=1e-12)


def test_set_size_of_symmetric_difference_is_no_kernel():
    """A distance between sets, |S xor T|, fails on two sets: det [[0, 2], [2, 0]] = -4."""
    S = [{1, 2}, {2, 3}]
    K = np.array([[len(a ^ b) for b in S] for a in S], dtype=float)
    assert np.linalg.det(K) == pytest.approx(-4.0)
    assert not is_psd(K)


# 4.7 telling valid from invalid -----------------------------------------------------------
def test_a_metric_is_not_a_kernel_two_points_suffice():
    def metric(X, Z):
        return cdist(X, Z)

    X = np.array([[0.0, 0.0], [3.0, 4.0]])                 # distance 5
    K = metric(X, X)
    assert_allclose(K, [[0.0, 5.0], [5.0, 0.0]])
    assert np.linalg.det(K) == pytest.approx(-25.0)
    lam = np.linalg.eigvalsh(K)
    assert_allclose(lam, [-5.0, 5.0])
    assert np.prod(lam) == pytest.approx(np.linalg.det(K))  # det = product of eigenvalues
    w = find_non_psd_witness(metric, d=2)
    assert w is not None and len(w.X) == 2
    assert w.min_eigenvalue == pytest.approx(np.linalg.eigvalsh(cdist(w.X, w.X))[0], rel=1e-12)
    assert np.linalg.det(w.K) < 0


@pytest.mark.parametrize("name, func, X, det", [
    ("squared distance", lambda X, Z: cdist(X, Z, "sqeuclidean"), [[0.0], [1.0]], -1.0),
    ("max(x, z)", lambda X, Z: np.maximum(X, Z.T), [[0.0], [1.0]], -1.0),
    ("x.z - 1", lambda X, Z: X @ Z.T - 1.0, [[0.0], [1.0]], -1.0),
])
def test_a_small_data_set_with_negative_determinant(name, func, X, det):
    K = func(np.array(X), np.array(X))
    assert np.linalg.det(K) == pytest.approx(det), name
    assert not is_psd(K), name


def test_some_functions_need_three_points():
    """exp(-|x - z|^4) passes every two-point test (det = 1 - exp(-2 d^4) >= 0) yet is no kernel."""
    def func(X, Z):
        return np.exp(-cdist(X, Z) ** 4)

    assert find_non_psd_witness(func, d=1, n_points=2, trials=500, scale=1.0) is None
    w = find_non_psd_witness(func, d=1, n_points=3, trials=2000, scale=1.0)
    assert w is not None and len(w.X) == 3
    assert np.linalg.det(func(w.X, w.X)) < 0                     # one negative eigenvalue of three
    # the Gaussian exp(-|x - z|^2) on the same points is PSD
    assert is_psd(np.exp(-cdist(w.X, w.X) ** 2))


def test_sigmoid_kernel_is_not_psd_for_every_parameter():
    w = find_non_psd_witness(kernels.Sigmoid(gamma=1.0, coef0=-1.0), d=2)
    assert w is not None and w.min_eigenvalue < 0
    assert w.min_eigenvalue == pytest.approx(min_eigenvalue(w.K), rel=1e-12)


@pytest.mark.parametrize("k", [Linear(), RBF(0.3), kernels.Polynomial(3),
                               Normalized(kernels.Polynomial(2)), Exp(0.5 * Linear())],
                         ids=repr)
def test_no_witness_is_found_for_valid_kernels(k):
    assert find_non_psd_witness(k, d=2, trials=100) is None
