"""Random Fourier features (lecture 2.8-2.10): the map against its formula and scikit-learn,
the estimator's mean and variance, Hoeffding's bound against observed frequencies."""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import rbf_kernel

from kernelcourse.random_features import (
    RandomFourierFeatures, approximation_errors, error_frequency, features_needed,
    fourier_features, hoeffding_bound, max_error_over_points, monte_carlo_kernel, rbf_gram,
    rff_variance, single_sample_estimate, union_bound, union_error_level)


@pytest.fixture
def X():
    return np.random.default_rng(1).normal(size=(12, 3))


def test_rbf_gram_matches_sklearn(X):
    Z = X[:5] + 0.3
    assert_allclose(rbf_gram(X, Z, gamma=0.7), rbf_kernel(X, Z, gamma=0.7), rtol=1e-12, atol=1e-14)


def test_transform_is_the_formula_entry_by_entry(X):
    rff = RandomFourierFeatures(gamma=0.4, n_components=7, random_state=0).fit(X)
    Z = rff.transform(X)
    D = 7
    for i in range(X.shape[0]):
        for j in range(D):
            phase = sum(rff.Omega_[j, k] * X[i, k] for k in range(X.shape[1])) + rff.b_[j]
            assert Z[i, j] == pytest.approx(math.sqrt(2 / D) * math.cos(phase), abs=1e-13)


def test_paired_map_is_cos_then_sin(X):
    rff = RandomFourierFeatures(gamma=0.4, n_components=8, random_state=0, paired=True).fit(X)
    Z = rff.transform(X)
    P = X @ rff.Omega_.T
    assert rff.Omega_.shape == (4, 3) and rff.b_ is None
    assert_allclose(Z, math.sqrt(2 / 8) * np.hstack([np.cos(P), np.sin(P)]), atol=1e-14)
    # cos^2 + sin^2 = 1: the paired map is exact on the diagonal
    assert_allclose(np.einsum("ij,ij->i", Z, Z), 1.0, atol=1e-12)


def test_draws_have_variance_2_gamma_and_uniform_offsets():
    gamma = 0.3
    rff = RandomFourierFeatures(gamma=gamma, n_components=20000, random_state=0).fit(np.zeros((1, 3)))
    cov = np.cov(rff.Omega_.T)
    assert_allclose(np.diag(cov), 2 * gamma, rtol=0.05)       # variance gamma would be off by 2x
    assert np.abs(cov - np.diag(np.diag(cov))).max() < 0.05 * gamma
    assert rff.b_.min() >= 0 and rff.b_.max() < 2 * np.pi
    assert rff.b_.mean() == pytest.approx(np.pi, rel=0.02)


def test_matches_sklearn_rbfsampler_given_its_draws(X):
    sk = RBFSampler(gamma=0.5, n_components=50, random_state=0).fit(X)
    for dtype, tol in [(np.float64, 1e-12), (np.float32, 2e-6)]:
        rff = RandomFourierFeatures(gamma=0.5, n_components=50, dtype=dtype).fit(X)
        rff.Omega_, rff.b_ = sk.random_weights_.T, sk.random_offset_
        Z = rff.transform(X)
        assert Z.dtype == dtype
        assert_allclose(Z, sk.transform(X), atol=tol)


def test_fourier_features_function_equals_the_estimator(X):
    rff = RandomFourierFeatures(gamma=2.0, n_components=9, random_state=3).fit(X)
    assert_allclose(fourier_features(X, rff.Omega_, rff.b_), rff.transform(X), atol=1e-14)


def test_inner_products_approximate_the_kernel(X):
    for paired in (False, True):
        rff = RandomFourierFeatures(gamma=0.5, n_components=20000, random_state=0, paired=paired)
        Z = rff.fit_transform(X)
        # the standard deviation of one entry is at most 1/sqrt(D) = 0.007
        assert np.abs(Z @ Z.T - rbf_kernel(X, gamma=0.5)).max() < 0.035


def test_float32_threads_and_blocks_agree_with_float64():
    X = np.random.default_rng(2).uniform(size=(1300, 4))   # more rows than one block
    Z64 = RandomFourierFeatures(3.0, 40, random_state=5, n_threads=1).fit_transform(X)
    Z64t = RandomFourierFeatures(3.0, 40, random_state=5, n_threads=2).fit_transform(X)
    Z32 = RandomFourierFeatures(3.0, 40, random_state=5, dtype=np.float32).fit_transform(X)
    assert_allclose(Z64t, Z64, atol=0)
    assert Z32.dtype == np.float32
    assert np.abs(Z32 - Z64).max() < 1e-6


def test_same_seed_same_draws_and_input_untouched(X):
    X0 = X.copy()
    a = RandomFourierFeatures(1.0, 5, random_state=4).fit(X)
    b = RandomFourierFeatures(1.0, 5, random_state=4).fit(X)
    assert_allclose(a.Omega_, b.Omega_, atol=0)
    a.transform(X)
    assert_allclose(X, X0, atol=0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(gamma=0.0), r"gamma must be positive; got gamma=0.0"),
    (dict(gamma=-1.0), r"gamma must be positive"),
    (dict(n_components=0), r"n_components must be a positive integer; got n_components=0"),
    (dict(n_components=2.5), r"n_components must be a positive integer"),
    (dict(n_components=5, paired=True), r"needs an even n_components; got n_components=5"),
])
def test_bad_parameters(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RandomFourierFeatures(**kwargs).fit(X)


def test_transform_errors(X):
    with pytest.raises(ValueError, match="not fitted yet: call fit"):
        RandomFourierFeatures().transform(X)
    rff = RandomFourierFeatures().fit(X)
    with pytest.raises(ValueError, match=r"X has 2 features, but RandomFourierFeatures is expecting 3 features as input; got X with shape \(4, 2\)"):
        rff.transform(np.ones((4, 2)))


def test_single_sample_estimate_formula_and_its_mean():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(size=10), rng.uniform(size=10)
    w, b = rng.normal(size=10), 1.3
    assert single_sample_estimate(x, y, w, b) == pytest.approx(2 * np.cos(w @ x + b) * np.cos(w @ y + b))
    gamma = 0.1
    K = math.exp(-gamma * np.sum((x - y) ** 2))
    mean, stderr = monte_carlo_kernel(x, y, gamma, n_samples=400_000, random_state=0)
    assert abs(mean - K) < 4 * stderr
    assert stderr < 0.002
    # draws with variance gamma instead of 2 gamma estimate sqrt(K) instead, far outside the error bars
    W = math.sqrt(gamma) * rng.standard_normal((400_000, 10))
    wrong = single_sample_estimate(x, y, W, 2 * np.pi * rng.random(400_000)).mean()
    assert abs(wrong - math.sqrt(K)) < 0.01 and abs(wrong - K) > 20 * stderr


@pytest.mark.parametrize("paired", [False, True])
def test_variance_formula_against_draws(paired):
    x, y = np.array([0.2, 0.1]), np.array([0.5, -0.3])
    gamma, D = 1.5, 40
    K = math.exp(-gamma * np.sum((x - y) ** 2))
    errors = approximation_errors(x, y, gamma, D, n_draws=20000, paired=paired, random_state=1)
    # unbiased, so the mean squared error is the variance; sd of this estimate is about 1.5 %
    assert np.mean(errors**2) == pytest.approx(float(rff_variance(K, D, paired)), rel=0.06)


def test_paired_variance_is_lower_and_vanishes_on_the_diagonal():
    K = np.linspace(0, 1, 11)
    single, paired = rff_variance(K, 100), rff_variance(K, 100, paired=True)
    assert np.all(paired <= single + 1e-15)
    assert paired[-1] == 0 and single[-1] == pytest.approx(0.005)
    assert paired[0] == pytest.approx(single[0])    # K = 0: both 1 / D


def test_hoeffding_bound_values_and_inverse():
    assert hoeffding_bound(100, 0.5) == pytest.approx(2 * math.exp(-100 * 0.25 / 8))
    assert hoeffding_bound(100, 0.5, paired=True) == pytest.approx(2 * math.exp(-100 * 0.25 / 4))
    assert features_needed(0.1, 0.05) == math.ceil(800 * math.log(40)) == 2952
    for a, delta, paired in [(0.1, 0.05, False), (0.05, 0.01, False), (0.2, 0.1, True), (0.03, 0.5, True)]:
        D = features_needed(a, delta, paired)
        assert hoeffding_bound(D, a, paired) <= delta < hoeffding_bound(D - 2, a, paired)
        assert D % 2 == 0 or not paired
    with pytest.raises(ValueError, match="delta must be below 1; got delta=1.5"):
        features_needed(0.1, 1.5)
    with pytest.raises(ValueError, match="a must be positive"):
        features_needed(0.0, 0.1)


@pytest.mark.parametrize("paired", [False, True])
def test_observed_frequency_stays_under_the_bound(paired):
    x, y = np.array([0.1, 0.4, 0.0]), np.array([0.3, 0.2, 0.5])
    D = 64
    errors = approximation_errors(x, y, 1.0, D, n_draws=4000, paired=paired, random_state=0)
    a = np.array([0.2, 0.3, 0.4, 0.5, 0.6])
    freq, bound = error_frequency(errors, a), hoeffding_bound(D, a, paired)
    assert np.all(freq <= bound)
    assert bound[2] < 1                      # the comparison is not vacuous at every a
    assert freq[0] > 0                        # and errors of 0.2 do happen at D = 64


def test_error_frequency_counts():
    assert_allclose(error_frequency([0.1, 0.2, 0.3, 0.4], [0.25, 0.0, 1.0]), [0.5, 1.0, 0.0])


def test_max_error_over_points_shrinks_and_sits_under_the_union_level():
    X = np.random.default_rng(0).uniform(size=(30, 2))
    Ds = [16, 64, 256, 1024, 4096]
    err = max_error_over_points(X, 5.0, Ds, random_state=0)
    n_pairs = 30 * 31 // 2
    assert np.all(err < union_error_level(Ds, n_pairs, delta=0.05))
    assert err[-1] < err[0] / 4
    a = union_error_level(100, n_pairs, 0.05)
    assert union_bound(100, a, n_pairs) == pytest.approx(0.05)
    assert union_bound(10, 0.01, n_pairs) == 1.0
