"""Gaussian processes (lecture 8) against their definitions and scikit-learn's GPs (test-only oracle).

* the posterior mean, standard deviation and log marginal likelihood against scikit-learn's
  GaussianProcessRegressor(optimizer=None) to 1e-10, and against the definitions (an explicit
  inverse, the normal density with the determinant, used here only);
* the gradient of the log marginal likelihood against finite differences and scikit-learn's;
* the posterior mean is kernel ridge regression with lambda = sigma^2;
* the sample covariance of many prior draws against K (a test that fails for a wrong factor);
* the Laplace approximation against scikit-learn's GaussianProcessClassifier;
* the low-rank GP against the exact one when its features are exact.
"""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, stats
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as sk
from sklearn.model_selection import GridSearchCV, KFold

from kernelcourse import kernels as kn
from kernelcourse import gaussian_process as gp
from kernelcourse.ridge import KernelRidge

RNG = np.random.default_rng(2006)
X = RNG.uniform(-3, 3, size=(30, 2))
y = np.sin(X[:, 0]) + 0.5 * np.cos(2 * X[:, 1]) + 0.1 * RNG.normal(size=30)
X_new = RNG.uniform(-3.5, 3.5, size=(12, 2))
NOISE = 0.05

# our kernel and the same kernel written in scikit-learn's terms (gamma = 1 / (2 l^2))
PAIRS = [
    (kn.RBF(0.4), sk.RBF(1 / math.sqrt(0.8))),
    (1.7 * kn.Matern(1.2, 1.5), sk.ConstantKernel(1.7) * sk.Matern(1.2, nu=1.5)),
    (0.8 * kn.Matern(0.9, 0.5) + 0.3 * kn.RBF(2.0),
     sk.ConstantKernel(0.8) * sk.Matern(0.9, nu=0.5) + sk.ConstantKernel(0.3) * sk.RBF(0.5)),
    (2.0 * kn.Matern(1.5, 2.5) * kn.Exponential(0.2),
     sk.ConstantKernel(2.0) * sk.Matern(1.5, nu=2.5) * sk.Matern(5.0, nu=0.5)),
]


@pytest.mark.parametrize("ours, theirs", PAIRS, ids=[repr(p[0]) for p in PAIRS])
def test_posterior_and_likelihood_against_scikit_learn(ours, theirs):
    model = gp.GaussianProcessRegressor(ours, noise=NOISE, optimizer=None).fit(X, y)
    oracle = SkGPR(theirs, alpha=NOISE, optimizer=None).fit(X, y)
    mean, std = model.predict(X_new, return_std=True)
    mean_sk, std_sk = oracle.predict(X_new, return_std=True)
    assert_allclose(mean, mean_sk, rtol=1e-10, atol=1e-10)
    assert_allclose(std, std_sk, rtol=1e-10, atol=1e-10)
    _, cov = model.predict(X_new, return_cov=True)
    assert_allclose(cov, oracle.predict(X_new, return_cov=True)[1], rtol=1e-10, atol=1e-10)
    assert_allclose(model.log_marginal_likelihood_, oracle.log_marginal_likelihood_value_, rtol=1e-10)


def test_algorithm_2_1_against_the_definitions():
    k = 1.3 * kn.Matern(0.8, 2.5)
    K, K_new, K_nn = k(X), k(X_new, X), k(X_new)
    Ky_inv = np.linalg.inv(K + NOISE * np.eye(30))       # the definitions, in the test only
    mean, var = gp.posterior_mean_var(K, y, NOISE, K_new, np.diag(K_nn))
    assert_allclose(mean, K_new @ Ky_inv @ y, rtol=1e-9, atol=1e-10)
    assert_allclose(var, np.diag(K_nn - K_new @ Ky_inv @ K_new.T), rtol=1e-8, atol=1e-10)
    assert_allclose(gp.posterior_cov(K, NOISE, K_new, K_nn), K_nn - K_new @ Ky_inv @ K_new.T,
                    rtol=1e-8, atol=1e-10)
    density = stats.multivariate_normal(np.zeros(30), K + NOISE * np.eye(30)).logpdf(y)
    assert_allclose(gp.log_marginal_likelihood(K, y, NOISE), density, rtol=1e-11)


def test_the_predictive_distribution_of_y_adds_the_noise_to_that_of_f():
    model = gp.GaussianProcessRegressor(kn.RBF(0.5), noise=0.2, optimizer=None).fit(X, y)
    _, std_f = model.predict(X_new, return_std=True)
    _, std_y = model.predict(X_new, return_std=True, with_noise=True)
    assert_allclose(std_y ** 2, std_f ** 2 + 0.2, rtol=1e-12)
    _, cov_y = model.predict(X_new, return_cov=True, with_noise=True)
    assert_allclose(np.diag(cov_y), std_y ** 2, rtol=1e-10)


def test_noise_free_interpolation_and_a_noisy_fit():
    Xs = np.linspace(0, 5, 8)[:, None]
    ys = np.sin(Xs[:, 0])
    exact = gp.GaussianProcessRegressor(kn.RBF(1.0), noise=1e-10, optimizer=None).fit(Xs, ys)
    mean, std = exact.predict(Xs, return_std=True)
    assert_allclose(mean, ys, atol=1e-7)
    assert np.all(std < 1e-4)
    noisy = gp.GaussianProcessRegressor(kn.RBF(1.0), noise=0.3, optimizer=None).fit(Xs, ys)
    mean, std = noisy.predict(Xs, return_std=True)
    assert np.max(np.abs(mean - ys)) > 0.05 and np.all(std > 0.2)


def test_posterior_mean_is_kernel_ridge_with_lambda_sigma_squared():
    k = kn.Matern(1.1, 1.5) + 0.5 * kn.Linear()
    mean = gp.GaussianProcessRegressor(k, noise=0.37, optimizer=None).fit(X, y).predict(X_new)
    assert_allclose(mean, KernelRidge(k, lam=0.37).fit(X, y).predict(X_new), rtol=1e-10, atol=1e-12)
    # and not kernel ridge with lambda = sigma (the mistake of the standard deviation)
    other = KernelRidge(k, lam=math.sqrt(0.37)).fit(X, y).predict(X_new)
    assert np.max(np.abs(mean - other)) > 1e-2


# ---------------------------------------------------------------------------
# the gradient of the log marginal likelihood
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [kn.RBF(0.4), 1.5 * kn.Matern(1.0, 2.5) + 0.2 * kn.Delta(),
                               0.7 * kn.ExpSineSquared(1.1, 2.5) * kn.RBF(0.1) + 0.3 * kn.Linear()],
                         ids=repr)
def test_gradient_against_finite_differences(k):
    X1 = X[:, :1]                                     # the periodic kernel is PSD on the line
    value, grad = gp.marginal_likelihood(k, X1, y, NOISE, eval_gradient=True)
    theta = np.append(k.theta, math.log(NOISE))
    p = len(theta) - 1

    def lml(t):
        return gp.marginal_likelihood(k.with_theta(t[:p]), X1, y, math.exp(t[p]))

    assert_allclose(value, lml(theta), rtol=1e-12)
    h = 1e-5
    fd = [(lml(theta + h * e) - lml(theta - h * e)) / (2 * h) for e in np.eye(len(theta))]
    assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


def test_gradient_against_scikit_learn_with_a_white_kernel():
    ours = gp.GaussianProcessRegressor(1.7 * kn.Matern(1.2, 1.5), noise=NOISE, optimizer=None).fit(X, y)
    oracle = SkGPR(sk.ConstantKernel(1.7) * sk.Matern(1.2, nu=1.5) + sk.WhiteKernel(NOISE), alpha=0.0,
                   optimizer=None).fit(X, y)
    value, grad = ours.log_marginal_likelihood(eval_gradient=True)
    value_sk, grad_sk = oracle.log_marginal_likelihood(oracle.kernel_.theta, eval_gradient=True)
    assert_allclose(value, value_sk, rtol=1e-10)
    assert_allclose(grad, grad_sk, rtol=1e-9, atol=1e-10)


def test_maximisation_reaches_scikit_learns_optimum_and_reports_each_run():
    model = gp.GaussianProcessRegressor(1.0 * kn.RBF(1.0), noise=0.1, n_restarts_optimizer=4,
                                        random_state=0).fit(X, y)
    oracle = SkGPR(sk.ConstantKernel(1.0) * sk.RBF(1 / math.sqrt(2)) + sk.WhiteKernel(0.1), alpha=0.0,
                   n_restarts_optimizer=4, random_state=0).fit(X, y)
    assert len(model.optima_) == 5
    values = [o.log_marginal_likelihood for o in model.optima_]
    assert values == sorted(values, reverse=True)
    assert_allclose(model.log_marginal_likelihood_, oracle.log_marginal_likelihood_value_, rtol=1e-6)
    assert model.log_marginal_likelihood_ >= oracle.log_marginal_likelihood_value_ - 1e-6
    # at the optimum the gradient vanishes (inside the bounds)
    _, grad = model.log_marginal_likelihood(eval_gradient=True)
    assert np.max(np.abs(grad)) < 1e-3
    assert model.log_marginal_likelihood_ > gp.marginal_likelihood(1.0 * kn.RBF(1.0), X, y, 0.1) + 1.0


# ---------------------------------------------------------------------------
# sampling
# ---------------------------------------------------------------------------

def test_sample_covariance_of_prior_draws_is_K():
    Xs = np.linspace(-2, 2, 6)[:, None]
    k = 1.5 * kn.Matern(0.8, 1.5)
    K = k(Xs)
    F = gp.prior_samples(k, Xs, n_samples=40_000, random_state=0)
    assert F.shape == (6, 40_000)
    # each entry's sample covariance has standard error about sqrt((K_ii K_jj + K_ij^2) / N) < 0.011
    assert_allclose(np.cov(F), K, atol=0.05)
    assert np.max(np.abs(F.mean(axis=1))) < 0.05
    # a wrong factor (the transpose of L, or the matrix itself) gives another covariance
    L = gp.cholesky_jittered(K)
    Z = np.random.default_rng(0).standard_normal((6, 40_000))
    assert np.max(np.abs(np.cov(L.T @ Z) - K)) > 0.2
    assert np.max(np.abs(np.cov(K @ Z) - K)) > 0.2


def test_posterior_samples_have_the_posterior_covariance():
    model = gp.GaussianProcessRegressor(kn.RBF(0.4), noise=NOISE, optimizer=None).fit(X, y)
    mean, cov = model.predict(X_new[:5], return_cov=True)
    F = model.sample_y(X_new[:5], n_samples=40_000, random_state=1)
    assert_allclose(F.mean(axis=1), mean, atol=0.03)
    assert_allclose(np.cov(F), cov, atol=0.03)
    # before fit, sample_y draws from the prior
    prior = gp.GaussianProcessRegressor(kn.RBF(0.4)).sample_y(X_new[:3], n_samples=20_000, random_state=2)
    assert_allclose(np.cov(prior), kn.RBF(0.4)(X_new[:3]), atol=0.05)


def test_duplicate_points_give_a_clear_message_or_a_jitter_never_nan():
    Xd = np.vstack([X[:10], X[:10]])
    yd = np.concatenate([y[:10], y[:10] + 0.1])
    with pytest.raises(ValueError, match=r"K \+ noise I is not positive definite \(smallest eigenvalue"):
        gp.GaussianProcessRegressor(kn.RBF(0.4), noise=0.0, optimizer=None).fit(Xd, yd)
    model = gp.GaussianProcessRegressor(kn.RBF(0.4), noise=1e-6, optimizer=None).fit(Xd, yd)
    mean, std = model.predict(Xd, return_std=True)
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(std))
    assert_allclose(mean[:10], (y[:10] + yd[10:]) / 2, atol=1e-3)     # the average of the two values
    # sampling on repeated points works through the jitter
    F = gp.prior_samples(kn.RBF(0.4), Xd, n_samples=3, random_state=0)
    assert np.all(np.isfinite(F))
    assert_allclose(F[:10], F[10:], atol=1e-3)


def test_coverage_of_predictive_intervals():
    rng = np.random.default_rng(5)
    Xa = rng.uniform(-3, 3, size=(400, 1))
    ya = np.sin(2 * Xa[:, 0]) + 0.2 * rng.normal(size=400)
    fitted = gp.GaussianProcessRegressor(1.0 * kn.RBF(1.0), noise=0.1, random_state=0).fit(Xa[:150], ya[:150])
    mean, std = fitted.predict(Xa[150:], return_std=True, with_noise=True)
    good = gp.interval_coverage(ya[150:], mean, std, 0.95)
    assert 0.9 < good < 0.99
    short = gp.GaussianProcessRegressor(kn.RBF(400.0), noise=1e-3, optimizer=None).fit(Xa[:150], ya[:150])
    mean, std = short.predict(Xa[150:], return_std=True, with_noise=True)
    assert gp.interval_coverage(ya[150:], mean, std, 0.95) < 0.7
    # the definition: the share within 1.96 standard deviations
    assert gp.interval_coverage([0.0, 1.0, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 0.95) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="std must be non-negative"):
        gp.interval_coverage([0.0], [0.0], [-1.0])


# ---------------------------------------------------------------------------
# classification: the Laplace approximation
# ---------------------------------------------------------------------------

XC = RNG.normal(size=(40, 2))
YC = np.where(XC[:, 0] + 0.5 * RNG.normal(size=40) > 0, 1, -1)


@pytest.mark.parametrize("ours, theirs", [(2.0 * kn.RBF(0.5), sk.ConstantKernel(2.0) * sk.RBF(1.0)),
                                          (3.0 * kn.Matern(1.5, 2.5), sk.ConstantKernel(3.0) * sk.Matern(1.5, nu=2.5))],
                         ids=["rbf", "matern"])
def test_laplace_against_scikit_learn(ours, theirs):
    model = gp.GaussianProcessClassifier(ours, optimizer=None).fit(XC, YC)
    oracle = SkGPC(theirs, optimizer=None).fit(XC, YC)
    assert_allclose(model.mode_.f, oracle.base_estimator_.f_cached, rtol=1e-9, atol=1e-10)
    assert_allclose(model.log_marginal_likelihood_, oracle.log_marginal_likelihood_value_, rtol=1e-10)
    mean, var = model.latent_mean_and_variance(X_new)
    mean_sk, var_sk = oracle.base_estimator_.latent_mean_and_variance(X_new)
    assert_allclose(mean, mean_sk, rtol=1e-9, atol=1e-10)
    assert_allclose(var, var_sk, rtol=1e-9, atol=1e-10)
    # scikit-learn approximates the integral by five error functions, we by quadrature
    assert_allclose(model.predict_proba(X_new), oracle.predict_proba(X_new), atol=2e-4)
    assert np.array_equal(model.predict(X_new), oracle.predict(X_new))
    _, grad = model.log_marginal_likelihood(eval_gradient=True)
    _, grad_sk = oracle.log_marginal_likelihood(oracle.kernel_.theta, eval_gradient=True)
    scale = np.array([1.0, -0.5]) if "RBF" in repr(ours) else np.ones(2)   # log gamma = -2 log l + c
    assert_allclose(grad, grad_sk * scale, rtol=1e-7, atol=1e-9)


def test_predictive_probability_is_the_average_of_the_sigmoid():
    mean, var = np.array([-2.0, 0.0, 0.7, 3.0]), np.array([0.5, 4.0, 0.0, 9.0])
    exact = [integrate.quad(lambda z: stats.norm.pdf(z, m, math.sqrt(v)) / (1 + math.exp(-z)), -60, 60)[0]
             if v > 0 else 1 / (1 + math.exp(-m)) for m, v in zip(mean, var)]
    assert_allclose(gp.probit_average(mean, var), exact, atol=1e-9)
    # the uncertainty pulls the probability towards 1/2
    assert abs(gp.probit_average([3.0], [9.0])[0] - 0.5) < abs(1 / (1 + math.exp(-3.0)) - 0.5)


def test_laplace_gradient_against_finite_differences():
    k = 1.5 * kn.Matern(0.9, 1.5) * kn.RBF(0.3)
    K, dK = k.gram_gradient(XC)
    value, grad = gp.laplace_gradient(K, dK, YC)
    theta, h = k.theta, 1e-5

    def lml(t):
        return gp.laplace_mode(k.with_theta(t)(XC), YC).log_marginal_likelihood

    assert_allclose(value, lml(theta), rtol=1e-12)
    assert_allclose(grad, [(lml(theta + h * e) - lml(theta - h * e)) / (2 * h) for e in np.eye(len(theta))],
                    rtol=1e-6, atol=1e-7)


def test_laplace_mode_is_the_map_estimate_and_the_optimizer_improves_the_evidence():
    K = (2.0 * kn.RBF(0.5))(XC)
    mode = gp.laplace_mode(K, YC)
    t = (YC + 1) / 2
    assert_allclose(mode.a, t - mode.pi, atol=1e-9)       # stationarity: K^-1 f = grad log p(y | f)
    fitted = gp.GaussianProcessClassifier(1.0 * kn.RBF(1.0), n_restarts_optimizer=2, random_state=0).fit(XC, YC)
    assert fitted.log_marginal_likelihood_ >= gp.laplace_mode((1.0 * kn.RBF(1.0))(XC), YC).log_marginal_likelihood
    assert fitted.score(XC, YC) >= 0.8 and len(fitted.optima_) == 3
    oracle = SkGPC(sk.ConstantKernel(1.0) * sk.RBF(1 / math.sqrt(2)), n_restarts_optimizer=2, random_state=0)
    assert_allclose(fitted.log_marginal_likelihood_, oracle.fit(XC, YC).log_marginal_likelihood_value_, rtol=1e-5)


# ---------------------------------------------------------------------------
# the low-rank GP
# ---------------------------------------------------------------------------

def test_weight_space_is_the_function_space_for_exact_features():
    Phi = np.column_stack([X, X[:, :1] ** 2, np.ones(30)])
    Phi_new = np.column_stack([X_new, X_new[:, :1] ** 2, np.ones(12)])
    mean, var = gp.weight_space_posterior(Phi, y, NOISE, Phi_new)
    mean_f, var_f = gp.posterior_mean_var(Phi @ Phi.T, y, NOISE, Phi_new @ Phi.T, np.sum(Phi_new ** 2, axis=1))
    assert_allclose(mean, mean_f, rtol=1e-9, atol=1e-10)
    assert_allclose(var, var_f, rtol=1e-8, atol=1e-10)
    assert_allclose(gp.low_rank_log_marginal_likelihood(Phi, y, NOISE),
                    gp.log_marginal_likelihood(Phi @ Phi.T, y, NOISE), rtol=1e-11)


def test_nystroem_with_every_point_is_the_exact_gp_and_fewer_points_approximate_it():
    exact = gp.GaussianProcessRegressor(kn.RBF(0.3), noise=NOISE, optimizer=None).fit(X, y)
    mean, std = exact.predict(X_new, return_std=True)
    full = gp.LowRankGaussianProcess(kn.RBF(0.3), n_components=30, noise=NOISE, random_state=0).fit(X, y)
    m_full, s_full = full.predict(X_new, return_std=True)
    assert_allclose(m_full, mean, atol=1e-7)
    # the variance is the exact one at the inducing points, smaller elsewhere: the prior of the
    # subset of regressors at x is phi(x)^T phi(x) = k_m(x)^T K_mm^-1 k_m(x) <= k(x, x)
    assert_allclose(full.predict(X, return_std=True)[1], exact.predict(X, return_std=True)[1], atol=1e-7)
    assert np.all(s_full <= std + 1e-9) and np.max(std - s_full) > 0.1
    assert_allclose(full.log_marginal_likelihood_, exact.log_marginal_likelihood_, rtol=1e-8)
    errors = [np.max(np.abs(gp.LowRankGaussianProcess(kn.RBF(0.3), n_components=m, noise=NOISE, random_state=0)
                            .fit(X, y).predict(X_new) - mean)) for m in (5, 15)]
    assert errors[0] > errors[1] > 1e-6
    fourier = gp.LowRankGaussianProcess(kn.RBF(0.3), 3000, "fourier", NOISE, random_state=0).fit(X, y)
    assert np.max(np.abs(fourier.predict(X_new) - mean)) < 0.1
    with pytest.raises(ValueError, match="method='fourier' draws the random features of an RBF kernel"):
        gp.LowRankGaussianProcess(kn.Matern(), method="fourier").fit(X, y)


# ---------------------------------------------------------------------------
# scikit-learn's model selection
# ---------------------------------------------------------------------------

def test_grid_search_over_the_noise_and_the_length_scale():
    grid = {"noise": [1e-4, 0.1, 1.0], "kernel__length_scale": [0.3, 1.0]}
    search = GridSearchCV(gp.GaussianProcessRegressor(kn.Matern(1.0, 2.5), optimizer=None), grid,
                          cv=KFold(3, shuffle=True, random_state=0)).fit(X, y)
    scores = []
    for params in search.cv_results_["params"]:
        fold = []
        for train, test in KFold(3, shuffle=True, random_state=0).split(X):
            model = clone(search.estimator).set_params(**params).fit(X[train], y[train])
            fold.append(model.score(X[test], y[test]))
        scores.append(np.mean(fold))
    assert_allclose(search.cv_results_["mean_test_score"], scores, rtol=1e-10)
    assert np.ptp(scores) > 0.05
