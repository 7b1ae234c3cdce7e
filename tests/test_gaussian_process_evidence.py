"""Lecture 8's readings of the evidence and its approximations, against their definitions:
the three terms of log p, leave-one-out against refits, grid maxima, data-scaled restarts,
the RKHS norms of sample paths, one Newton step of the Laplace approximation against the
explicit formula, and the DTC variance against Rasmussen and Williams' eq. 8.27 form."""
import math

import numpy as np
import pytest

from kernelcourse import gaussian_process as gp
from kernelcourse.kernels import RBF, Linear, Matern


def _data(n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(-4, 4, n))[:, None]
    return X, np.sin(1.5 * X[:, 0]) + 0.3 * rng.standard_normal(n)


def test_the_three_terms_sum_to_the_evidence_and_the_fit_is_minus_n_over_2_at_a_free_scale_optimum():
    X, y = _data()
    k = 0.8 * Matern(1.1, 2.5)
    terms = gp.evidence_terms(k(X), y, 0.2)
    assert sum(terms.values()) == pytest.approx(gp.log_marginal_likelihood(k(X), y, 0.2), abs=1e-12)
    sign, logdet = np.linalg.slogdet(k(X) + 0.2 * np.eye(len(y)))
    assert terms["complexity"] == pytest.approx(-0.5 * logdet, abs=1e-10)
    assert terms["fit"] == pytest.approx(-0.5 * y @ np.linalg.solve(k(X) + 0.2 * np.eye(len(y)), y), abs=1e-10)
    best = gp.maximise_marginal_likelihood(1.0 * Matern(1.0, math.inf), X, y, 0.1)[0]
    assert gp.evidence_terms(best.kernel(X), y, best.noise)["fit"] == pytest.approx(-len(y) / 2, abs=1e-3)
    # not at a point off the optimum
    assert abs(terms["fit"] + len(y) / 2) > 0.1


def test_leave_one_out_in_closed_form_equals_n_refits():
    X, y = _data(10, 3)
    K = Matern(0.9, 1.5)(X)
    mean, var, log_density = gp.loo_predictive(K, y, 0.15)
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        m, v = gp.posterior_mean_var(K[np.ix_(keep, keep)], y[keep], 0.15, K[i:i + 1, keep], K[i:i + 1, i])
        assert mean[i] == pytest.approx(m[0], abs=1e-10)
        assert var[i] == pytest.approx(v[0] + 0.15, abs=1e-10)
        direct = -0.5 * math.log(2 * math.pi * var[i]) - (y[i] - m[0]) ** 2 / (2 * var[i])
        assert log_density[i] == pytest.approx(direct, abs=1e-10)


def test_grid_local_maxima_finds_both_bumps_and_not_the_edges():
    x = np.linspace(-3, 3, 61)
    yy = np.linspace(-2, 2, 41)
    G = np.exp(-((x[None, :] + 1.5) ** 2 + yy[:, None] ** 2)) + 0.5 * np.exp(-((x[None, :] - 1.5) ** 2 + (yy[:, None] - 0.5) ** 2))
    G += 0.3 * x[None, :]                  # rising to the right edge: no maximum there
    found = gp.grid_local_maxima(G, x, yy)
    assert len(found) == 2
    assert found[0][2] >= found[1][2]                       # best first
    left, right = sorted(p[0] for p in found)
    assert left == pytest.approx(-1.4, abs=0.2) and right == pytest.approx(1.8, abs=0.3)
    with pytest.raises(ValueError, match="at least 3 x 3"):
        gp.grid_local_maxima(np.zeros((2, 5)))


def test_two_optima_data_has_two_genuine_maxima():
    from kernelcourse.widgets import lecture8 as w8
    X, y = w8.two_optima_data()
    maxima = w8.landscape_optima(X, y)
    assert len(maxima) == 2
    for ll, ln, value in maxima:
        t = np.array([ll, ln]) * math.log(10)

        def grad(t):
            return gp.marginal_likelihood(Matern(math.exp(t[0]), math.inf), X, y, math.exp(t[1]), True)[1]
        H = np.array([(grad(t + 1e-4 * e) - grad(t - 1e-4 * e)) / 2e-4 for e in np.eye(2)])
        assert np.abs(grad(t)).max() < 1e-3 and np.linalg.eigvalsh((H + H.T) / 2).max() < 0
    # a short length-scale with little noise against a long one with much noise
    (l1, n1, _), (l2, n2, _) = maxima
    assert l1 < l2 - 0.5 and n1 < n2 - 1.0


def test_data_scaled_starts_stay_in_the_box_the_data_set():
    X, y = _data(15, 1)
    starts = gp.data_scaled_starts(2.0 * Matern(1.0, 2.5) + 0.5 * RBF(1.0), X, y, 200, random_state=0)
    d = np.abs(X - X.T)[np.triu_indices(15, 1)]
    v = np.var(y)
    ell, gamma = np.exp(starts[:, 1]), np.exp(starts[:, 3])
    assert np.all((d.min() <= ell + 1e-12) & (ell <= d.max() + 1e-12))
    assert np.all((1 / (2 * d.max() ** 2) <= gamma * (1 + 1e-12)) & (gamma <= 1 / (2 * d.min() ** 2) * (1 + 1e-12)))
    for col in (0, 2, 4):
        lo = 0.01 if col == 4 else 0.05
        assert np.all((lo * v <= np.exp(starts[:, col]) * (1 + 1e-12)) & (np.exp(starts[:, col]) <= v * (1 + 1e-12)))
    with pytest.raises(ValueError, match="restart_box"):
        gp.maximise_marginal_likelihood(Matern(1.0, 2.5), X, y, 0.1, n_restarts=1, restart_box="wide")


def test_the_wide_box_stalls_where_the_data_box_reaches_the_maximum():
    from kernelcourse.widgets import lecture8 as w8
    X, y = w8.gp_data()
    wide = gp.maximise_marginal_likelihood(1.0 * Matern(1.0, math.inf), X, y, 0.1, n_restarts=4, random_state=0)
    data = gp.maximise_marginal_likelihood(1.0 * Matern(1.0, math.inf), X, y, 0.1, n_restarts=4, random_state=0,
                                           restart_box="data")
    top = wide[0].log_marginal_likelihood
    assert sum(abs(o.log_marginal_likelihood - top) < 1e-3 for o in wide) == 1
    assert sum(abs(o.log_marginal_likelihood - top) < 1e-3 for o in data) >= 4


def test_interpolant_norms_against_a_solve_and_the_linear_control():
    grid = np.linspace(0, 6, 97)[:, None]
    k = Matern(1.0, 0.5)
    F = gp.sample_gaussian(np.zeros(97), k(grid), n_samples=5, random_state=0)
    norms, cond = gp.interpolant_norms(k(grid), F, (5, 33))
    S = np.arange(0, 97, 3)
    direct = np.einsum("is,is->s", F[S], np.linalg.solve(k(grid)[np.ix_(S, S)], F[S]))
    assert np.allclose(norms[1], direct, rtol=1e-10)
    assert cond[1] == pytest.approx(np.linalg.cond(k(grid)[np.ix_(S, S)]), rel=1e-6)
    # the linear kernel's path w x has squared norm w^2 on every subset
    w = np.array([0.5, -1.3])
    lin, _ = gp.interpolant_norms(Linear()(grid), grid * w[None, :], (5, 9, 97))
    assert np.allclose(lin, w ** 2, rtol=1e-9)
    with pytest.raises(ValueError, match="divisor"):
        gp.interpolant_norms(k(grid), F, (6,))


def test_one_newton_step_is_the_explicit_formula_and_the_mode_its_fixed_point():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(25, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(25) > 0, 1, -1)
    K = 1.5 * Matern(0.8, 0.5)(X)
    f = rng.normal(size=25)
    t, pi = (y + 1) / 2, 1 / (1 + np.exp(-f))
    W = np.diag(pi * (1 - pi))
    explicit = np.linalg.solve(np.linalg.inv(K) + W, W @ f + t - pi)
    assert np.allclose(gp.laplace_newton_step(K, y, f), explicit, atol=1e-10)
    mode = gp.laplace_mode(K, y)
    assert np.allclose(gp.laplace_newton_step(K, y, mode.f), mode.f, atol=1e-9)
    assert np.allclose(mode.f, K @ (t - mode.pi), atol=1e-9)
    with pytest.raises(ValueError, match="f"):
        gp.laplace_newton_step(K, y, f[:3])


def test_the_dtc_variance_is_eq_8_27_and_returns_to_the_prior_far_away():
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, (200, 1))
    y = np.sin(X[:, 0]) + 0.2 * rng.standard_normal(200)
    k = RBF(gamma=0.5)
    low = gp.LowRankGaussianProcess(k, n_components=8, noise=0.04, random_state=0).fit(X, y)
    Xs = np.array([[0.0], [2.5], [5.0], [9.0]])
    _, sd_sor = low.predict(Xs, return_std=True)
    _, sd_dtc = low.predict(Xs, return_std=True, variance="dtc")
    Z = low.components_
    Kmm, Kmn, Ksm = k(Z), k(Z, X), k(Xs, Z)
    Sigma = np.linalg.inv(Kmm + Kmn @ Kmn.T / 0.04)
    Q_ss = np.einsum("ij,ij->i", Ksm, np.linalg.solve(Kmm, Ksm.T).T)
    dtc = 1.0 - Q_ss + np.einsum("ij,ij->i", Ksm, (Sigma @ Ksm.T).T)
    sor = np.einsum("ij,ij->i", Ksm, (Sigma @ Ksm.T).T)
    assert np.allclose(sd_dtc ** 2, dtc, atol=1e-7) and np.allclose(sd_sor ** 2, sor, atol=1e-7)
    assert sd_sor[-1] < 1e-3 and sd_dtc[-1] == pytest.approx(1.0, abs=1e-6)
    _, sd_y = low.predict(Xs, return_std=True, with_noise=True, variance="dtc")
    assert np.allclose(sd_y ** 2, dtc + 0.04, atol=1e-7)
    with pytest.raises(ValueError, match="variance"):
        low.predict(Xs, return_std=True, variance="fitc")
