"""The Gaussian-process kernels of lecture 8 (Matern, ExpSineSquared) and the derivatives of
every differentiable kernel in its log-parameters: against a slow loop over the formulas,
scikit-learn's Gaussian-process kernels (test-only oracle) and finite differences."""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.gaussian_process import kernels as sk

from kernelcourse import kernels as kn

RNG = np.random.default_rng(8)
X = RNG.normal(size=(8, 3))
Z = RNG.normal(size=(5, 3))


def _dist(x, z):
    return math.sqrt(sum((a - b) ** 2 for a, b in zip(x, z)))


def _matern(nu, l):
    def k(x, z):
        r = _dist(x, z) / l
        if nu == 0.5:
            return math.exp(-r)
        if nu == 1.5:
            return (1 + math.sqrt(3) * r) * math.exp(-math.sqrt(3) * r)
        if nu == 2.5:
            return (1 + math.sqrt(5) * r + 5 * r * r / 3) * math.exp(-math.sqrt(5) * r)
        return math.exp(-r * r / 2)
    return k


def _periodic(l, p):
    return lambda x, z: math.exp(-2 * math.sin(math.pi * _dist(x, z) / p) ** 2 / l ** 2)


LOOPS = [(kn.Matern(0.8, nu), _matern(nu, 0.8)) for nu in (0.5, 1.5, 2.5, math.inf)] + [
    (kn.ExpSineSquared(0.9, 1.7), _periodic(0.9, 1.7))]


@pytest.mark.parametrize("k, f", LOOPS, ids=[repr(k) for k, _ in LOOPS])
def test_against_a_slow_loop_over_the_formula(k, f):
    assert_allclose(k(X, Z), [[f(x, z) for z in Z] for x in X], rtol=1e-13, atol=1e-15)
    assert_allclose(k.diag(X), np.diag(k(X)), rtol=0, atol=0)


SKLEARN = [(kn.Matern(l, nu), sk.Matern(l, nu=nu)) for l in (0.3, 2.0) for nu in (0.5, 1.5, 2.5, np.inf)] + [
    (kn.ExpSineSquared(0.6, 2.5), sk.ExpSineSquared(0.6, 2.5)),
    (kn.ExpSineSquared(3.0, 0.4), sk.ExpSineSquared(3.0, 0.4))]


@pytest.mark.parametrize("k, oracle", SKLEARN, ids=[repr(k) for k, _ in SKLEARN])
def test_against_scikit_learn(k, oracle):
    assert_allclose(k(X, Z), oracle(X, Z), rtol=1e-13, atol=1e-15)
    K, dK = k.gram_gradient(X)
    K_sk, dK_sk = oracle(X, eval_gradient=True)
    assert_allclose(K, K_sk, rtol=1e-13, atol=1e-15)
    assert_allclose(dK, dK_sk, rtol=1e-12, atol=1e-14)


def test_limits_and_special_cases():
    # nu = 1/2 is the exponential kernel, nu = inf the Gaussian
    assert_allclose(kn.Matern(0.5, 0.5)(X, Z), kn.Exponential(gamma=2.0)(X, Z), rtol=1e-13)
    assert_allclose(kn.Matern(0.5, math.inf)(X, Z), kn.RBF(gamma=2.0)(X, Z), rtol=1e-13)
    # a shift by a whole period gives similarity one
    x = np.array([[0.3]])
    assert_allclose(kn.ExpSineSquared(0.5, 1.5)(x, x + 3.0), [[1.0]], rtol=1e-13)
    # rougher with smaller nu: at a short distance the similarity falls faster
    near = np.array([[0.0], [0.05]])
    values = [kn.Matern(1.0, nu)(near)[0, 1] for nu in (0.5, 1.5, 2.5, math.inf)]
    assert values == sorted(values) and values[0] < values[-1] - 0.03


def test_parameters_errors_and_repr():
    with pytest.raises(ValueError, match=r"nu must be one of 0.5, 1.5, 2.5 or inf.*nu=2"):
        kn.Matern(1.0, nu=2)
    with pytest.raises(ValueError, match="length_scale must be positive"):
        kn.Matern(-1.0)
    with pytest.raises(ValueError, match="periodicity must be positive"):
        kn.ExpSineSquared(1.0, 0.0)
    k = kn.Matern(1.0, 2.5) * kn.ExpSineSquared()
    assert repr(k) == "Matern(length_scale=1.0, nu=2.5) * ExpSineSquared(length_scale=1.0, periodicity=1.0)"
    k.set_params(k1__length_scale=0.5, k2__periodicity=3.0)
    assert_allclose(k(X, Z), kn.Matern(0.5, 2.5)(X, Z) * kn.ExpSineSquared(1.0, 3.0)(X, Z), rtol=1e-14)


# ---------------------------------------------------------------------------
# the gradient in the log-parameters, for lecture 8.5
# ---------------------------------------------------------------------------

COMPOSED = [
    kn.RBF(0.4), kn.Laplacian(0.7), kn.Exponential(1.2), kn.Linear(), kn.Delta(),
    2.0 * kn.Matern(0.7, 1.5),
    kn.RBF(0.3) + 0.5 * kn.Linear(),
    1.5 * kn.Matern(1.3, 2.5) * kn.ExpSineSquared(0.8, 2.0) + 0.1 * kn.Delta(),
    kn.Laplacian(0.2) * kn.RBF(1.1) + kn.Matern(0.4, 0.5),
]


@pytest.mark.parametrize("k", COMPOSED, ids=repr)
def test_gradient_against_finite_differences(k):
    K, dK = k.gram_gradient(X)
    assert_allclose(K, k(X), rtol=1e-13, atol=1e-15)
    theta = k.theta
    assert dK.shape == (8, 8, len(theta)) == (8, 8, len(k.hyperparameters()))
    h = 1e-6
    for j in range(len(theta)):
        e = np.zeros_like(theta)
        e[j] = h
        fd = (k.with_theta(theta + e)(X) - k.with_theta(theta - e)(X)) / (2 * h)
        assert_allclose(dK[:, :, j], fd, rtol=1e-6, atol=1e-8)
    assert_allclose(k.with_theta(theta)(X), K, rtol=1e-13)    # exp(log(value)) is the value


def test_composed_gradient_against_scikit_learn():
    ours = 2.0 * kn.Matern(0.7, 2.5) * kn.ExpSineSquared(1.1, 2.0) + kn.RBF(0.3)
    oracle = (sk.ConstantKernel(2.0) * sk.Matern(0.7, nu=2.5) * sk.ExpSineSquared(1.1, 2.0)
              + sk.RBF(1.0 / math.sqrt(0.6)))
    assert ours.hyperparameters() == ["k1__k1__c", "k1__k1__k__length_scale", "k1__k2__length_scale",
                                      "k1__k2__periodicity", "k2__gamma"]
    K, dK = ours.gram_gradient(X)
    K_sk, dK_sk = oracle(X, eval_gradient=True)
    assert_allclose(K, K_sk, rtol=1e-13)
    assert_allclose(dK[:, :, :4], dK_sk[:, :, :4], rtol=1e-12, atol=1e-14)
    # gamma = 1 / (2 l^2): d / d log(gamma) = -1/2 d / d log(l)
    assert_allclose(dK[:, :, 4], -0.5 * dK_sk[:, :, 4], rtol=1e-12, atol=1e-14)


def test_kernels_without_a_gradient_say_so():
    for k in (kn.Polynomial(2), kn.RBF(1.0) + kn.Sigmoid(), kn.Exp(kn.Linear())):
        with pytest.raises(NotImplementedError, match="no analytic gradient"):
            k.gram_gradient(X)
    with pytest.raises(ValueError, match=r"theta must hold 2 finite log-parameters"):
        kn.ExpSineSquared().with_theta([0.0])
