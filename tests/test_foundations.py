"""The foundations sections: Bochner's theorem and the derivation of random Fourier features
(2.11), the RKHS as a completion (5.12), Mercer's eigenfunctions from the Gram matrix (5.13).

Each claim is checked against an independent computation: a kernel value, a sample moment, a
closed form, a quadrature of the operator's eigen-equation, or lecture 6's Nystroem map.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import kernels as kn
from kernelcourse import random_features as rf
from kernelcourse import bochner
from kernelcourse import rkhs
from kernelcourse.nystroem import Nystroem


# ------------------------------------------------------------------ 2.11 Bochner, RFF derived

@pytest.mark.parametrize("kernel", [kn.RBF(0.7), kn.Laplacian(0.6), kn.Exponential(0.8)], ids=repr)
def test_the_spectral_measure_gives_back_the_kernel(kernel):
    rng = np.random.default_rng(0)
    for _ in range(3):
        x, y = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
        mean, stderr = bochner.bochner_estimate(kernel, x - y, n_samples=200_000, random_state=1)
        assert abs(mean - kernel(x, y)) < 5 * stderr + 1e-12
        assert stderr < 0.003


def test_the_2_gamma_is_needed():
    # w ~ N(0, gamma I) instead of N(0, 2 gamma I) estimates exp(-gamma ||delta||^2 / 2)
    delta, gamma = np.array([0.9, -0.4]), 1.0
    W = math.sqrt(gamma) * np.random.default_rng(2).standard_normal((400_000, 2))
    wrong = np.cos(W @ delta).mean()
    assert abs(wrong - math.exp(-gamma * delta @ delta / 2)) < 0.005
    assert abs(wrong - math.exp(-gamma * delta @ delta)) > 0.1
    right, _ = bochner.bochner_estimate(kn.RBF(gamma), delta, 400_000, random_state=2)
    assert abs(right - math.exp(-gamma * delta @ delta)) < 0.005


def test_spectral_frequencies_have_the_stated_laws():
    W = bochner.spectral_frequencies(kn.RBF(2.0), 3, 200_000, random_state=0)
    assert_allclose(W.var(axis=0), 4.0, rtol=0.02)          # 2 gamma
    C = bochner.spectral_frequencies(kn.Laplacian(1.5), 2, 200_000, random_state=0)
    assert_allclose(np.median(np.abs(C), axis=0), 1.5, rtol=0.02)   # Cauchy of scale gamma
    with pytest.raises(TypeError, match="kernels.RBF, kernels.Laplacian or kernels.Exponential"):
        bochner.spectral_frequencies(kn.Polynomial(2), 2, 10)


def test_spectral_density_is_the_gaussian_for_rbf_and_negative_for_the_box():
    omega = np.linspace(0, 6, 13)
    gamma = 0.8
    p = bochner.spectral_density_1d(lambda t: np.exp(-gamma * t * t), omega)
    normal = np.exp(-omega ** 2 / (4 * gamma)) / np.sqrt(4 * np.pi * gamma)   # N(0, 2 gamma)
    assert_allclose(p, normal, atol=1e-10)
    triangle = bochner.spectral_density_1d(lambda t: np.maximum(1 - np.abs(t), 0), omega)
    assert triangle.min() > -1e-6                                     # sinc^2 / (2 pi) >= 0
    box = bochner.spectral_density_1d(lambda t: (np.abs(t) <= 1).astype(float), omega, n_grid=80_001)
    assert box.min() < -0.03                                          # sin(w)/(pi w) < 0
    # and the Gram matrices agree with Bochner: the box kernel fails PSD, the triangle passes
    x = np.linspace(0, 3, 13)[:, None]
    d = np.abs(x - x.T)
    assert np.linalg.eigvalsh((d <= 1).astype(float)).min() < -0.1
    assert np.linalg.eigvalsh(np.maximum(1 - d, 0)).min() > -1e-12


def test_the_identity_terms_add_up_and_have_the_derived_moments():
    rng = np.random.default_rng(3)
    gamma, x, y = 0.5, np.array([0.2, 0.7]), np.array([0.9, -0.1])
    K = math.exp(-gamma * np.sum((x - y) ** 2))
    W = bochner.spectral_frequencies(kn.RBF(gamma), 2, 1_000_000, random_state=rng)
    b = 2 * np.pi * rng.random(1_000_000)
    first, second = bochner.identity_terms(x, y, W, b)
    assert_allclose(first + second, rf.single_sample_estimate(x, y, W, b), atol=1e-12)
    se = 1 / math.sqrt(len(b))
    assert abs(first.mean() - K) < 4 * se and abs(second.mean()) < 4 * se
    m = bochner.term_moments(K)
    assert abs(np.mean(first ** 2) - m["difference_sq"]) < 4 * se
    assert abs(np.mean(second ** 2) - m["offset_sq"]) < 4 * se
    assert abs(np.mean(first * second) - m["cross"]) < 4 * se
    z = first + second
    assert abs(z.var() - m["offset_variance"]) < 6 * se
    assert abs(first.var() - m["paired_variance"]) < 4 * se
    # the variances of 2.8 follow: D terms, or D/2 pairs
    assert_allclose(m["offset_variance"] / 50, rf.rff_variance(K, 50), rtol=1e-12)
    assert_allclose(m["paired_variance"] / 25, rf.rff_variance(K, 50, paired=True), rtol=1e-12)


# ------------------------------------------------------------------ 5.12 the completion

def _poly_functions():
    k = kn.Polynomial(2, gamma=1.0, coef0=1.0)    # a 3-dimensional RKHS on the line
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    f = rkhs.RKHSFunction(k, X, np.array([1.0, -2.0, 0.5, 0.3, -0.1]))
    g = rkhs.RKHSFunction(k, np.array([[-1.0], [0.5]]), np.array([0.7, 1.1]))
    return k, X, f, g


def test_two_expansions_of_one_function_give_one_inner_product():
    k, X, f, g = _poly_functions()
    # another expansion on other centres: the projection onto their span is f itself
    f2 = rkhs.projection_onto_span(f, np.array([[-2.0], [0.5], [2.5]]))
    grid = np.linspace(-3, 5, 17)[:, None]
    assert_allclose(f2(grid), f(grid), atol=1e-9)
    assert len(f2) == 3 and len(f) == 5                            # a different expansion
    assert_allclose(f2.inner(g), f.inner(g), rtol=1e-9)
    assert_allclose(f2.norm(), f.norm(), rtol=1e-9)
    # and on the same centres: alpha + v with K v = 0 is the same function
    K = k(X)
    s, U = np.linalg.eigh(K)
    v = U[:, 0] * 3.0
    assert s[0] < 1e-9 * s[-1]
    f3 = rkhs.RKHSFunction(k, X, f.alpha + v)
    assert_allclose(f3(grid), f(grid), atol=1e-8)
    assert_allclose(f3.inner(g), f.inner(g), rtol=1e-8)
    # <f, g> = sum_j beta_j f(x'_j): through values only
    for h in (f, f2, f3):
        assert_allclose(rkhs.inner_by_evaluation(h, g), f.inner(g), rtol=1e-8)
        assert_allclose(rkhs.inner_by_evaluation(g, h), f.inner(g), rtol=1e-8)


def test_evaluation_is_bounded_by_the_norm():
    rng = np.random.default_rng(4)
    k = kn.RBF(1.3)
    f = rkhs.RKHSFunction(k, rng.normal(size=(8, 2)), rng.normal(size=8))
    Z = rng.normal(size=(200, 2)) * 2
    bound = rkhs.evaluation_bound(f, Z)
    assert np.all(np.abs(f(Z)) <= bound + 1e-12)
    assert_allclose(bound, f.norm())                              # K(x, x) = 1 for the RBF
    # equality at the direction of f itself: f = c K(x, .) is extremal
    h = rkhs.kernel_section(k, Z[0])
    assert_allclose(abs(h(Z[:1])[0]), rkhs.evaluation_bound(h, Z[:1])[0], rtol=1e-12)


def test_riemann_sums_are_cauchy_and_converge_to_a_function_beyond_finite_sums():
    gamma, a, b = 2.0, -1.0, 1.0
    k = kn.RBF(gamma)
    grid = np.linspace(-3, 3, 61)[:, None]
    exact = rkhs.rbf_bump_integral(gamma, a, b, grid[:, 0])
    gaps, sup_errors = [], []
    for n in (4, 8, 16, 32, 64):
        fn, f2n = rkhs.riemann_bumps(k, a, b, n), rkhs.riemann_bumps(k, a, b, 2 * n)
        gap = (fn - f2n).norm()
        gaps.append(gap)
        # a norm gap bounds the gap at every point (K(x, x) = 1)
        assert np.max(np.abs(fn(grid) - f2n(grid))) <= gap + 1e-12
        sup_errors.append(np.max(np.abs(fn(grid) - exact)))
    gaps = np.array(gaps)
    assert np.all(gaps[1:] < gaps[:-1] / 3.5)                     # midpoint rule: O(1/n^2)
    assert sup_errors[-1] < 1e-4 and sup_errors[-1] < sup_errors[0] / 100
    f_big = rkhs.riemann_bumps(k, a, b, 512)
    assert_allclose(f_big.norm(), rkhs.rbf_bump_integral_norm(gamma, a, b), rtol=1e-5)


# ------------------------------------------------------------------ 5.13 Mercer

def test_gram_eigenvalues_approach_the_operators():
    gamma, sigma = 0.5, 1.0
    exact = rkhs.gaussian_mercer_eigenvalues(gamma, sigma, 5)
    errors = []
    for n in (100, 3000):
        X = np.random.default_rng(5).normal(0, sigma, size=(n, 1))
        est = rkhs.mercer_from_sample(kn.RBF(gamma), X, 5)
        errors.append(np.abs(est.eigenvalues - exact).max())
    assert errors[1] < 0.01 and errors[1] < errors[0]
    assert_allclose(exact[1:] / exact[:-1], gamma / (1 / (4 * sigma ** 2) + gamma
                    + math.sqrt(1 / (16 * sigma ** 4) + gamma / (2 * sigma ** 2))))


def test_the_closed_form_eigenfunctions_solve_the_eigen_equation():
    gamma, sigma = 0.5, 1.0
    t = np.linspace(-10, 10, 40_001)
    p = np.exp(-t ** 2 / (2 * sigma ** 2)) / math.sqrt(2 * math.pi * sigma ** 2)
    dt = t[1] - t[0]
    phi = rkhs.gaussian_mercer_eigenfunctions(gamma, sigma, 4, t)
    lam = rkhs.gaussian_mercer_eigenvalues(gamma, sigma, 4)
    assert_allclose(phi.T @ (phi * p[:, None]) * dt, np.eye(4), atol=1e-8)
    x = np.array([-1.2, 0.1, 0.8])
    Tphi = np.exp(-gamma * (x[:, None] - t[None]) ** 2) @ (phi * p[:, None]) * dt
    assert_allclose(Tphi, lam * rkhs.gaussian_mercer_eigenfunctions(gamma, sigma, 4, x), atol=1e-8)


def test_sample_eigenfunctions_are_orthonormal_and_approach_the_closed_form():
    gamma, sigma = 0.5, 1.0
    X = np.random.default_rng(6).normal(0, sigma, size=(3000, 1))
    est = rkhs.mercer_from_sample(kn.RBF(gamma), X, 3)
    at_sample = est.eigenfunctions(X)
    assert_allclose(at_sample.T @ at_sample / len(X), np.eye(3), atol=1e-8)
    grid = np.linspace(-2, 2, 41)
    exact = rkhs.gaussian_mercer_eigenfunctions(gamma, sigma, 3, grid)
    found = est.eigenfunctions(grid[:, None])
    found *= np.sign(np.sum(found * exact, axis=0))
    assert np.abs(found - exact).max() < 0.1


def test_the_mercer_features_are_the_nystroem_map():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 2))
    k = kn.RBF(0.5)
    model = Nystroem(k, n_components=40, random_state=0).fit(X)
    landmarks = X[model.component_indices_]
    est = rkhs.mercer_from_sample(k, landmarks)            # every eigenpair of K_mm
    Z = rng.normal(size=(50, 2))
    Phi_m, Phi_n = est.features(Z), model.transform(Z)
    # the same inner products (the two maps differ by a rotation of R^m)
    assert_allclose(Phi_m @ Phi_m.T, Phi_n @ Phi_n.T, atol=1e-6)
    assert_allclose(Phi_m.T @ Phi_m, (Phi_m.T @ Phi_m).T)
    # and the truncated Mercer sum approaches K as more eigenpairs are kept
    K = k(Z)
    errors = [np.linalg.norm(K - est.features(Z)[:, :r] @ est.features(Z)[:, :r].T)
              for r in (5, 10, 20, 40)]
    assert all(e2 < e1 for e1, e2 in zip(errors, errors[1:]))


def test_median_heuristic_against_a_loop_over_pairs():
    X = np.random.default_rng(8).normal(size=(9, 3))
    d2 = [np.sum((X[i] - X[j]) ** 2) for i in range(9) for j in range(i + 1, 9)]
    assert_allclose(rkhs.median_heuristic(X), 1 / np.median(d2), rtol=1e-12)
    # scale-aware: stretching the inputs by 10 divides gamma by 100
    assert_allclose(rkhs.median_heuristic(10 * X), rkhs.median_heuristic(X) / 100, rtol=1e-12)
    with pytest.raises(ValueError, match="at least two points"):
        rkhs.median_heuristic(X[:1])
