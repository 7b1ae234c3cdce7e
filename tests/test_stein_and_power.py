"""Lecture 9.4 and 9.8: the power criterion and the kernel Stein discrepancy, against their
definitions.

Oracles: the Stein kernel written from its definition, s(x).s(y) k + s(x).grad_y k +
grad_x k.s(y) + tr(grad_x grad_y k), with every derivative of k taken by central finite
differences (no closed form of the RBF's derivatives), in a double loop; Stein's identity
E_p u_p(X, X') = 0 over many draws from p; the V-statistic as the squared norm of an explicit
mean (so never negative); MMD with samples from the model ranking the same alternatives; the
variance of MMD_u^2 over many draws against the plug-in sigma_H1; the blobs' known failure of
the median heuristic; the level of the wild-bootstrap test under H0.
"""
import numpy as np
import pytest
from scipy import stats

from kernelcourse import mean_embeddings as me
from kernelcourse.kernels import RBF


def _score_normal(X):
    return -np.asarray(X, float)


def _score_unnormalised(X):
    """p(x) proportional to exp(-||x||^4 / 4): no normalising constant is ever needed."""
    X = np.asarray(X, float)
    return -np.sum(X * X, axis=1, keepdims=True) * X


def _stein_brute(X, score, gamma, h=1e-4):
    """u_p(x_i, x_j) from its definition, derivatives of k by central differences."""
    def k(x, y):
        return np.exp(-gamma * np.sum((x - y) ** 2))
    X = np.asarray(X, float)
    S = score(X)
    n, d = X.shape
    E = np.eye(d) * h
    U = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            x, y = X[i], X[j]
            gx = np.array([(k(x + E[a], y) - k(x - E[a], y)) / (2 * h) for a in range(d)])
            gy = np.array([(k(x, y + E[a]) - k(x, y - E[a])) / (2 * h) for a in range(d)])
            tr = sum((k(x + E[a], y + E[a]) - k(x + E[a], y - E[a]) - k(x - E[a], y + E[a])
                      + k(x - E[a], y - E[a])) / (4 * h * h) for a in range(d))
            U[i, j] = S[i] @ S[j] * k(x, y) + S[i] @ gy + gx @ S[j] + tr
    return U


@pytest.mark.parametrize("score", [_score_normal, _score_unnormalised])
@pytest.mark.parametrize("d", [1, 3])
def test_stein_kernel_equals_its_definition(score, d):
    X = np.random.default_rng(d).normal(size=(9, d)) * 1.3
    U = me.stein_kernel_rbf(X, score, gamma=0.4)
    np.testing.assert_allclose(U, _stein_brute(X, score, 0.4), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(U, U.T, atol=1e-12)
    n = len(X)
    brute = _stein_brute(X, score, 0.4)
    assert np.isclose(me.ksd(X, score, 0.4), (brute.sum() - np.trace(brute)) / (n * (n - 1)), rtol=1e-5)
    assert np.isclose(me.ksd(X, score, 0.4, "biased"), brute.mean(), rtol=1e-5)


def test_stein_identity_mean_zero_under_the_model():
    """E_p u_p(X, X') = 0: the U-statistic of samples from p averages to 0 within its error."""
    rng = np.random.default_rng(0)
    values = [me.ksd(rng.normal(size=(30, 2)), _score_normal, 0.5) for _ in range(300)]
    assert abs(np.mean(values)) < 4 * np.std(values) / np.sqrt(300)
    shifted = [me.ksd(rng.normal(size=(30, 2)) + 0.5, _score_normal, 0.5) for _ in range(50)]
    assert np.mean(shifted) > 10 * np.std(values) / np.sqrt(300)


def test_v_statistic_is_a_squared_norm():
    """V = ||(1/n) sum_i xi_i||^2 >= 0 even where the U-statistic is negative."""
    rng = np.random.default_rng(1)
    seen_negative = False
    for _ in range(40):
        X = rng.normal(size=(8, 1))
        assert me.ksd(X, _score_normal, 1.0, "biased") >= -1e-12
        seen_negative |= me.ksd(X, _score_normal, 1.0) < 0
    assert seen_negative
    # the Stein Gram matrix is PSD
    U = me.stein_kernel_rbf(rng.normal(size=(40, 2)), _score_normal, 0.3)
    assert np.linalg.eigvalsh(U).min() > -1e-9 * np.abs(U).max()


def test_constant_of_the_density_drops_out():
    """The score of c p equals p's: scaling the density changes nothing."""
    X = np.random.default_rng(2).normal(size=(20, 2))
    mu, cov = np.array([0.3, -0.2]), np.array([[1.0, 0.4], [0.4, 2.0]])
    score = me.gaussian_score(mu, cov)
    eps = 1e-6
    logp = lambda x: np.log(7.0) - 0.5 * (x - mu) @ np.linalg.solve(cov, x - mu)   # 7 p, unnormalised
    numeric = np.array([[(logp(x + eps * e) - logp(x - eps * e)) / (2 * eps) for e in np.eye(2)] for x in X])
    np.testing.assert_allclose(score(X), numeric, rtol=1e-6, atol=1e-7)


def test_ksd_and_mmd_with_model_samples_rank_alternatives_alike():
    """Departures of growing size from N(0, 1): the mean KSD^2 and the mean MMD^2 against a
    sample of the model both grow in the same order."""
    rng = np.random.default_rng(3)
    shifts = [0.0, 0.2, 0.4, 0.8]
    ksd_means, mmd_means = [], []
    for s in shifts:
        k_vals, m_vals = [], []
        for _ in range(40):
            X = rng.normal(size=(100, 1)) + s
            k_vals.append(me.ksd(X, _score_normal, 0.5))
            m_vals.append(me.mmd2_unbiased(X, rng.normal(size=(100, 1)), RBF(0.5)))
        ksd_means.append(np.mean(k_vals))
        mmd_means.append(np.mean(m_vals))
    assert list(np.argsort(ksd_means)) == [0, 1, 2, 3] == list(np.argsort(mmd_means))


def test_ksd_test_level_and_power():
    rng = np.random.default_rng(4)
    p_null = [me.ksd_test(rng.normal(size=(60, 1)), _score_normal, 0.5, 199, rng).p_value for _ in range(200)]
    rejections = int(np.sum(np.array(p_null) <= 0.05))
    assert rejections <= stats.binom.isf(0.0005, 200, 0.05)
    p_alt = [me.ksd_test(rng.standard_t(3, size=(200, 1)), _score_normal, 0.5, 199, rng).p_value
             for _ in range(20)]
    assert np.mean(np.array(p_alt) <= 0.05) >= 0.8


def test_ksd_bad_input():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="score\\(X\\) must have X's shape"):
        me.ksd(X, lambda X: X[:, :1], 1.0)
    with pytest.raises(ValueError, match="gamma"):
        me.stein_kernel_rbf(X, _score_normal, -1.0)
    with pytest.raises(ValueError, match="cov must be 2 x 2"):
        me.gaussian_score([0.0, 0.0], np.eye(3))


def _h_brute(X, Y, kernel):
    n = len(X)
    k = lambda a, b: kernel(a[None], b[None])[0, 0]
    H = np.array([[k(X[i], X[j]) + k(Y[i], Y[j]) - k(X[i], Y[j]) - k(X[j], Y[i]) for j in range(n)]
                  for i in range(n)])
    off = ~np.eye(n, dtype=bool)
    mmd2 = H[off].mean()
    h1 = np.array([H[i, off[i]].mean() for i in range(n)])
    return mmd2, 4 / n * (np.mean(h1**2) - mmd2**2)


def test_power_criterion_against_its_definition_and_the_simulated_variance():
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(12, 2)), rng.normal(size=(12, 2)) + 0.5
    out = me.power_criterion(X, Y, RBF(0.5))
    mmd2, var = _h_brute(X, Y, RBF(0.5))
    assert np.isclose(out["mmd2"], mmd2, rtol=1e-12) and np.isclose(out["variance"], var, rtol=1e-10)
    assert np.isclose(out["criterion"], mmd2 / np.sqrt(var + 1e-8))
    # sigma_H1 against the spread of MMD_u^2 over fresh draws (n = 150, a 0.5 shift)
    draws = []
    sigmas = []
    for _ in range(150):
        A, B = rng.normal(size=(150, 1)), rng.normal(size=(150, 1)) + 0.5
        o = me.power_criterion(A, B, RBF(0.5))
        draws.append(o["mmd2"])
        sigmas.append(np.sqrt(o["variance"]))
    assert 0.75 < np.median(sigmas) / np.std(draws) < 1.33


def test_blobs_defeat_the_median_heuristic_and_the_criterion_sees_it():
    rng = np.random.default_rng(6)
    X, Y = me.blobs(rng, 300)
    gamma_med = me.pooled_median_gamma(X, Y)
    assert gamma_med < 0.02                      # the grid's scale, not a blob's
    crit = {g: me.power_criterion(X, Y, RBF(g))["criterion"] for g in (gamma_med, 0.5)}
    assert crit[0.5] > 3 * max(crit[gamma_med], 0.0)
    assert me.permutation_test(X, Y, RBF(0.5), 199, random_state=0).p_value <= 0.01


def test_split_choice_keeps_the_level_with_the_power_criterion():
    rng = np.random.default_rng(7)
    p = [me.choose_gamma_on_split(rng.normal(size=(20, 1)), rng.normal(size=(20, 1)), [0.05, 0.5, 5.0],
                                  n_permutations=49, random_state=int(rng.integers(1 << 30)))["result"].p_value
         for _ in range(150)]
    assert np.sum(np.array(p) <= 0.05) <= stats.binom.isf(0.0005, 150, 0.05)
    with pytest.raises(ValueError, match="criterion"):
        me.choose_gamma_on_split(rng.normal(size=(8, 1)), rng.normal(size=(8, 1)), [1.0], criterion="best")


def test_pooled_median_invariant_to_relabelling_above_the_subsample_size():
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(700, 2)), rng.normal(size=(700, 2)) * 2
    Z = np.vstack([X, Y])
    p = rng.permutation(1400)
    assert me.pooled_median_gamma(X, Y) == me.pooled_median_gamma(Z[p[:700]], Z[p[700:]])
