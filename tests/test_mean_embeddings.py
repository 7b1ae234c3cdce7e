"""Lecture 9: mean embeddings, MMD, the permutation test and HSIC, against their definitions.

Oracles: double loops over the definitions on small samples; every relabelling of a tiny
pooled sample enumerated; SciPy's ``energy_distance`` (1-D) and Szekely's second formula of
the distance covariance, S1 + S2 - 2 S3, for the distance-induced kernel (Sejdinovic et al.
2013); the closed form for two Gaussians against the mean of the unbiased estimate over many
draws; the binomial law of the number of rejections under the null.
"""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from kernelcourse import mean_embeddings as me
from kernelcourse.kernels import RBF, Laplacian, Linear, Polynomial
from kernelcourse.random_features import RandomFourierFeatures
from kernelcourse.rkhs import median_heuristic

KERNELS = [RBF(0.5), Linear(), Polynomial(2, gamma=0.5, coef0=1.0), Laplacian(0.7)]


def _samples(seed=0, m=7, n=5, d=2, shift=0.4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)), rng.normal(size=(n, d)) + shift


def _k(kernel, x, z):
    return kernel(np.asarray(x)[None, :], np.asarray(z)[None, :])[0, 0]


def _loop_mmd2(X, Y, kernel, unbiased):
    m, n = len(X), len(Y)
    sxx = sum(_k(kernel, X[i], X[j]) for i in range(m) for j in range(m) if not (unbiased and i == j))
    syy = sum(_k(kernel, Y[i], Y[j]) for i in range(n) for j in range(n) if not (unbiased and i == j))
    sxy = sum(_k(kernel, X[i], Y[j]) for i in range(m) for j in range(n))
    if unbiased:
        return sxx / (m * (m - 1)) + syy / (n * (n - 1)) - 2 * sxy / (m * n)
    return sxx / m**2 + syy / n**2 - 2 * sxy / (m * n)


# ----------------------------------------------------------------------------- estimators
@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("sizes", [(7, 5), (4, 9), (2, 2)])
def test_biased_and_unbiased_equal_the_double_loops(kernel, sizes):
    X, Y = _samples(1, *sizes)
    assert me.mmd2_biased(X, Y, kernel) == pytest.approx(_loop_mmd2(X, Y, kernel, False), rel=1e-10, abs=1e-12)
    assert me.mmd2_unbiased(X, Y, kernel) == pytest.approx(_loop_mmd2(X, Y, kernel, True), rel=1e-10, abs=1e-12)


def test_unbiased_can_be_negative_biased_never():
    rng = np.random.default_rng(3)
    values = [(me.mmd2_unbiased(*rng.normal(size=(2, 6, 1)), RBF(1.0)),
               me.mmd2_biased(*rng.normal(size=(2, 6, 1)), RBF(1.0))) for _ in range(50)]
    assert min(u for u, _ in values) < 0 < min(b for _, b in values)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("n", [2, 6, 9])
def test_linear_time_estimate_equals_its_loop_over_disjoint_pairs(kernel, n):
    X, Y = _samples(2, n, n)
    terms = [_k(kernel, X[2 * i], X[2 * i + 1]) + _k(kernel, Y[2 * i], Y[2 * i + 1])
             - _k(kernel, X[2 * i], Y[2 * i + 1]) - _k(kernel, X[2 * i + 1], Y[2 * i]) for i in range(n // 2)]
    assert me.mmd2_linear(X, Y, kernel) == pytest.approx(np.mean(terms), rel=1e-10, abs=1e-12)


def test_linear_time_estimate_wants_samples_of_one_size():
    X, Y = _samples(0, 6, 5)
    with pytest.raises(ValueError, match=r"same number of rows.*\(6, 2\).*\(5, 2\)"):
        me.mmd2_linear(X, Y, RBF(1.0))


def test_mmd2_from_gram_reads_the_first_m_rows_as_x():
    X, Y = _samples(4, 5, 6)
    K = RBF(0.3)(np.vstack([X, Y]))
    assert me.mmd2_from_gram(K, 5, "biased") == pytest.approx(_loop_mmd2(X, Y, RBF(0.3), False), rel=1e-12)
    assert me.mmd2_from_gram(K, 5, "unbiased") == pytest.approx(_loop_mmd2(X, Y, RBF(0.3), True), rel=1e-12)


def test_default_kernel_is_rbf_with_the_pooled_median_heuristic():
    X, Y = _samples(5, 8, 6, shift=2.0)
    gamma = median_heuristic(np.vstack([X, Y]))
    assert me.pooled_median_gamma(X, Y) == pytest.approx(gamma, rel=1e-14)
    assert gamma != pytest.approx(median_heuristic(X), rel=0.05)      # the pooled one differs
    assert me.mmd2_unbiased(X, Y) == pytest.approx(me.mmd2_unbiased(X, Y, RBF(gamma)), rel=1e-12)
    assert me.permutation_test(X, Y, n_permutations=5, random_state=0).kernel.gamma == pytest.approx(gamma)


# ----------------------------------------------------------------------------- embeddings and the witness
def test_mean_embedding_and_witness_equal_their_loops():
    X, Y = _samples(6, 5, 4)
    T = np.random.default_rng(7).normal(size=(3, 2))
    k = RBF(0.8)
    mu_x = [np.mean([_k(k, x, t) for x in X]) for t in T]
    mu_y = [np.mean([_k(k, y, t) for y in Y]) for t in T]
    np.testing.assert_allclose(me.mean_embedding(X, T, k), mu_x, rtol=1e-12)
    np.testing.assert_allclose(me.witness(X, Y, T, k), np.subtract(mu_x, mu_y), rtol=1e-12)


def test_the_witness_has_the_biased_mmd_as_its_squared_norm():
    """f = mu_X - mu_Y = sum_i c_i k(z_i, .) with c = (1/m, ..., -1/n, ...): ||f||^2 = c^T K c =
    sum_i c_i f(z_i), and the normalised witness reaches sup_{||f|| <= 1} E_X f - E_Y f = MMD."""
    X, Y = _samples(8, 6, 7)
    k = RBF(0.4)
    Z = np.vstack([X, Y])
    c = np.r_[np.full(6, 1 / 6), np.full(7, -1 / 7)]
    f = me.witness(X, Y, Z, k)
    mmd2 = me.mmd2_biased(X, Y, k)
    assert c @ f == pytest.approx(mmd2, rel=1e-12)
    assert c @ k(Z) @ c == pytest.approx(mmd2, rel=1e-12)
    # any other function of the span, scaled to norm 1, separates the means less
    rng = np.random.default_rng(1)
    for _ in range(20):
        b = rng.normal(size=13)
        gap = (b @ k(Z) @ c) / math.sqrt(b @ k(Z) @ b)
        assert gap <= math.sqrt(mmd2) + 1e-12


def test_the_linear_kernel_sees_only_the_means():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 3))
    Y = 3.0 * rng.standard_t(3, size=(30, 3))
    assert me.mmd2_biased(X, Y, Linear()) == pytest.approx(
        np.sum((X.mean(0) - Y.mean(0)) ** 2), rel=1e-12)
    Y = Y - Y.mean(0) + X.mean(0)          # same means, very different distributions
    assert me.mmd2_biased(X, Y, Linear()) == pytest.approx(0.0, abs=1e-12)
    assert me.mmd2_biased(X, Y, RBF(0.5)) > 0.05


def test_a_degree_two_polynomial_sees_two_moments_the_gaussian_kernel_more():
    """N(0, 1) against the uniform law of the same mean and variance: the unbiased estimate
    under (x z + 1)^2 averages to 0 (within its standard error), under the RBF kernel not."""
    rng = np.random.default_rng(10)
    a = math.sqrt(3.0)
    poly, rbf = [], []
    for _ in range(300):
        X = rng.normal(size=(40, 1))
        Y = rng.uniform(-a, a, size=(40, 1))
        poly.append(me.mmd2_unbiased(X, Y, Polynomial(2, gamma=1.0, coef0=1.0)))
        rbf.append(me.mmd2_unbiased(X, Y, RBF(1.0)))
    se = np.std(poly) / math.sqrt(len(poly))
    assert abs(np.mean(poly)) < 4 * se
    assert np.mean(rbf) > 6 * np.std(rbf) / math.sqrt(len(rbf))


# ----------------------------------------------------------------------------- the closed form
@pytest.mark.parametrize("case", [
    dict(mp=[0.0, 0.0], cp=1.0, mq=[0.8, 0.0], cq=1.0, gamma=0.5),
    dict(mp=[0.0, 0.0], cp=[[1.0, 0.5], [0.5, 1.0]], mq=[0.0, 0.0], cq=[[1.0, -0.5], [-0.5, 1.0]], gamma=1.0),
    dict(mp=[0.0], cp=1.0, mq=[0.5], cq=2.0, gamma=0.3),
])
def test_the_mean_of_the_unbiased_estimate_is_the_closed_form(case):
    rng = np.random.default_rng(11)
    d = len(case["mp"])
    Lp = np.linalg.cholesky(np.asarray(case["cp"], float) * np.eye(d) if np.isscalar(case["cp"])
                            else np.asarray(case["cp"], float))
    Lq = np.linalg.cholesky(np.asarray(case["cq"], float) * np.eye(d) if np.isscalar(case["cq"])
                            else np.asarray(case["cq"], float))
    k = RBF(case["gamma"])
    u, v, lin = [], [], []
    for _ in range(400):
        X = case["mp"] + rng.normal(size=(30, d)) @ Lp.T
        Y = case["mq"] + rng.normal(size=(30, d)) @ Lq.T
        u.append(me.mmd2_unbiased(X, Y, k))
        v.append(me.mmd2_biased(X, Y, k))
        lin.append(me.mmd2_linear(X, Y, k))
    truth = me.gaussian_mmd2(case["mp"], case["cp"], case["mq"], case["cq"], case["gamma"])
    assert truth > 0
    se = np.std(u) / math.sqrt(len(u))
    assert abs(np.mean(u) - truth) < 4 * se
    assert abs(np.mean(lin) - truth) < 4 * np.std(lin) / math.sqrt(len(lin))
    assert np.mean(v) > truth + 4 * se         # the V-statistic's bias, of order 1/m


def test_closed_form_is_zero_for_equal_gaussians_and_agrees_with_one_dimensional_quadrature():
    assert me.gaussian_mmd2([1.0, 2.0], [[2.0, 0.3], [0.3, 1.0]], [1.0, 2.0],
                            [[2.0, 0.3], [0.3, 1.0]], 0.7) == pytest.approx(0.0, abs=1e-15)
    # E k(X, Y) by quadrature over the density of X - Y ~ N(a - b, s_p^2 + s_q^2)
    from scipy.integrate import quad

    def ek(a, sa, b, sb, g):
        s = math.sqrt(sa + sb)
        return quad(lambda t: math.exp(-g * t * t) * stats.norm.pdf(t, a - b, s), -40, 40)[0]
    a, sa, b, sb, g = 0.3, 0.5, -0.4, 1.7, 0.9
    want = ek(a, sa, a, sa, g) + ek(b, sb, b, sb, g) - 2 * ek(a, sa, b, sb, g)
    assert me.gaussian_mmd2([a], sa, [b], sb, g) == pytest.approx(want, rel=1e-9)


# ----------------------------------------------------------------------------- the permutation test
def test_permutation_p_value_counts_the_observed_labelling():
    null = np.array([0.1, 0.5, 0.2, 0.5, 0.9])
    assert me.permutation_p_value(0.5, null) == pytest.approx((1 + 3) / 6)
    assert me.permutation_p_value(2.0, null) == pytest.approx(1 / 6)       # never 0


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_every_null_value_is_the_statistic_of_a_relabelling(estimator):
    """Pooled sample of 6, m = 3: 20 labellings. Every permuted statistic is one of the 20
    computed by brute force, and with 4000 permutations each appears near 1/20 of the time."""
    X, Y = _samples(12, 3, 3)
    Z = np.vstack([X, Y])
    k = RBF(0.6)
    table = {}
    for chosen in itertools.combinations(range(6), 3):
        rest = [i for i in range(6) if i not in chosen]
        table[chosen] = _loop_mmd2(Z[list(chosen)], Z[rest], k, estimator == "unbiased")
    result = me.permutation_test(X, Y, k, n_permutations=4000, estimator=estimator, random_state=3)
    values = np.array(list(table.values()))
    nearest = np.abs(result.null[:, None] - values[None, :]).min(axis=1)
    assert nearest.max() < 1e-10
    counts = np.bincount(np.abs(result.null[:, None] - values[None, :]).argmin(axis=1), minlength=20)
    # labellings with the same statistic (the complement, for m = n, gives the same value)
    # are merged by argmin; check the frequencies of the distinct values instead
    distinct = {}
    for value in values:
        key = round(value, 10)
        distinct[key] = distinct.get(key, 0) + 1
    freq = {key: np.mean(np.abs(result.null - key) < 1e-9) for key in distinct}
    for key, multiplicity in distinct.items():
        p = multiplicity / 20
        assert abs(freq[key] - p) < 4 * math.sqrt(p * (1 - p) / 4000)
    assert counts.sum() == 4000
    assert result.statistic == pytest.approx(table[(0, 1, 2)], rel=1e-12)
    assert result.p_value == pytest.approx((1 + np.sum(result.null >= result.statistic)) / 4001)


def test_the_test_is_seeded_and_the_tester_object_agrees():
    X, Y = _samples(13, 20, 25)
    a = me.permutation_test(X, Y, RBF(0.5), n_permutations=300, random_state=7)
    b = me.permutation_test(X, Y, RBF(0.5), n_permutations=300, random_state=7)
    np.testing.assert_array_equal(a.null, b.null)
    t = me.MMDTest(kernel=RBF(0.5), n_permutations=300, random_state=7, alpha=0.05).fit(X, Y)
    assert t.statistic_ == a.statistic and t.p_value_ == a.p_value
    np.testing.assert_array_equal(t.null_, a.null)
    assert t.reject_ == (a.p_value <= 0.05) and t.kernel_.gamma == 0.5
    assert t.get_params()["n_permutations"] == 300


def _null_pair(rng, n=30):
    return rng.normal(size=(n, 2)), rng.normal(size=(n, 2))


def _binomial_bounds(trials, alpha, level=1e-3):
    """Rejection counts outside [lo, hi] have probability < level for an exact level-alpha test."""
    return stats.binom.ppf(level / 2, trials, alpha), stats.binom.isf(level / 2, trials, alpha)


def test_type_one_error_is_held_at_alpha():
    """300 null pairs, alpha = 0.05, B = 99 (so alpha (B + 1) is an integer and the test is
    exact): the number of rejections is Binomial(300, 0.05) up to the draws."""
    out = me.rejection_rate(_null_pair, n_trials=300, alpha=0.05, n_permutations=99, random_state=0)
    lo, hi = _binomial_bounds(300, 0.05)
    rejections = round(out["rate"] * 300)
    assert lo <= rejections <= hi, (lo, rejections, hi)
    # p-values of an exact test are uniform on {1/100, ..., 1}
    assert stats.kstest(out["p_values"], "uniform").pvalue > 1e-3


@pytest.mark.slow
def test_power_rises_with_the_sample_size():
    def shifted(n):
        return lambda rng: (rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) + [0.8, 0.0])
    rates = [me.rejection_rate(shifted(n), n_trials=80, n_permutations=99, random_state=1)["rate"]
             for n in (10, 30, 60)]
    assert rates[0] < 0.5 < rates[1] < rates[2] and rates[2] > 0.85


@pytest.mark.slow
def test_power_against_gamma_rises_then_falls():
    def draw(rng):
        return rng.normal(size=(40, 1)), rng.normal(size=(40, 1)) * 1.8
    gammas = np.logspace(-4, 3, 8)
    out = me.power_against_gamma(draw, gammas, n_trials=40, n_permutations=99, random_state=0)
    best = int(np.argmax(out["power"]))
    assert 0 < best < len(gammas) - 1
    assert out["power"][best] > out["power"][0] + 0.3 and out["power"][best] > out["power"][-1] + 0.3
    assert np.all(out["median_gammas"] > 0)


@pytest.mark.slow
def test_choosing_gamma_on_one_half_keeps_the_level():
    lo, hi = _binomial_bounds(150, 0.05)
    rejections = 0
    rng = np.random.default_rng(5)
    for _ in range(150):
        X, Y = _null_pair(rng, 40)
        out = me.choose_gamma_on_split(X, Y, [0.05, 0.5, 5.0], n_permutations=99,
                                       random_state=int(rng.integers(1 << 30)))
        rejections += out["result"].p_value <= 0.05
    assert lo <= rejections <= hi


def test_choosing_gamma_on_a_split_finds_the_power():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(120, 1))
    Y = rng.normal(size=(120, 1)) * 1.8
    out = me.choose_gamma_on_split(X, Y, [1e-4, 0.3, 1e3], n_permutations=199, random_state=0)
    assert out["gamma"] == 0.3 and out["result"].p_value < 0.05
    assert len(out["criterion"]) == 3


# ----------------------------------------------------------------------------- HSIC
def test_hsic_is_the_trace_with_two_centring_matrices():
    rng = np.random.default_rng(14)
    X, Y = rng.normal(size=(9, 2)), rng.normal(size=(9, 1))
    kx, ky = RBF(0.5), Laplacian(1.0)
    K, L = kx(X), ky(Y)
    H = np.eye(9) - np.ones((9, 9)) / 9
    want = np.trace(K @ H @ L @ H) / 81
    assert me.hsic_biased(X, Y, kx, ky) == pytest.approx(want, rel=1e-12)
    assert me.hsic_from_gram(K, L) == pytest.approx(np.trace((H @ K @ H) @ (H @ L @ H)) / 81, rel=1e-12)
    # a loop over the definition: E k l + E k E l - 2 E_x E_y (k l) on the empirical law
    n = 9
    t1 = sum(K[i, j] * L[i, j] for i in range(n) for j in range(n)) / n**2
    t2 = K.sum() * L.sum() / n**4
    t3 = sum(K[i, j] * L[i, q] for i in range(n) for j in range(n) for q in range(n)) / n**3
    assert want == pytest.approx(t1 + t2 - 2 * t3, rel=1e-10)


def test_hsic_finds_the_dependence_correlation_misses():
    rng = np.random.default_rng(15)
    x = rng.uniform(-1, 1, size=(150, 1))
    y = x**2 + 0.05 * rng.normal(size=(150, 1))
    assert abs(np.corrcoef(x[:, 0], y[:, 0])[0, 1]) < 0.15
    assert me.hsic_test(x, y, n_permutations=199, random_state=0).p_value == pytest.approx(1 / 200)
    z = rng.uniform(-1, 1, size=(150, 1))
    assert me.hsic_test(z, y, n_permutations=199, random_state=0).p_value > 0.01


def test_hsic_test_holds_its_level():
    rng = np.random.default_rng(16)
    lo, hi = _binomial_bounds(200, 0.05)
    rejections = sum(me.hsic_test(rng.normal(size=(25, 1)), rng.normal(size=(25, 1)), n_permutations=99,
                                  random_state=rng).p_value <= 0.05 for _ in range(200))
    assert lo <= rejections <= hi


# ----------------------------------------------------------------------------- distances (9.6)
def test_energy_distance_is_twice_the_biased_mmd_with_the_distance_kernel():
    rng = np.random.default_rng(17)
    x, y = rng.normal(size=25), rng.exponential(size=18)
    scipy_squared = stats.energy_distance(x, y) ** 2
    assert me.energy_distance(x[:, None], y[:, None]) == pytest.approx(scipy_squared, rel=1e-10)
    assert 2 * me.mmd2_biased(x[:, None], y[:, None], me.DistanceKernel()) == pytest.approx(scipy_squared, rel=1e-10)
    # in three dimensions, against the double loop of the definition
    X, Y = rng.normal(size=(8, 3)), rng.normal(size=(6, 3)) + 0.5
    d = lambda a, b: float(np.linalg.norm(a - b))   # noqa: E731
    loop = (2 * np.mean([d(a, b) for a in X for b in Y]) - np.mean([d(a, b) for a in X for b in X])
            - np.mean([d(a, b) for a in Y for b in Y]))
    assert me.energy_distance(X, Y) == pytest.approx(loop, rel=1e-12)
    assert 2 * me.mmd2_biased(X, Y, me.DistanceKernel()) == pytest.approx(loop, rel=1e-10)


def test_distance_covariance_is_four_hsic_with_the_distance_kernel():
    """Szekely, Rizzo and Bakirov's second formula: dCov^2 = S1 + S2 - 2 S3 with
    S1 = mean |x_i - x_j| |y_i - y_j|, S2 = mean |x_i - x_j| mean |y_i - y_j| and
    S3 = mean over (i, j, l) of |x_i - x_l| |y_j - y_l| (a loop, no double centring)."""
    rng = np.random.default_rng(18)
    X = rng.normal(size=(10, 2))
    Y = np.abs(X[:, :1]) + 0.3 * rng.normal(size=(10, 1))
    n = 10
    a = [[np.linalg.norm(X[i] - X[j]) for j in range(n)] for i in range(n)]
    b = [[np.linalg.norm(Y[i] - Y[j]) for j in range(n)] for i in range(n)]
    S1 = sum(a[i][j] * b[i][j] for i in range(n) for j in range(n)) / n**2
    S2 = sum(map(sum, a)) / n**2 * sum(map(sum, b)) / n**2
    S3 = sum(a[i][q] * b[j][q] for i in range(n) for j in range(n) for q in range(n)) / n**3
    dcov = S1 + S2 - 2 * S3
    assert me.distance_covariance(X, Y) == pytest.approx(dcov, rel=1e-10)
    assert 4 * me.hsic_biased(X, Y, me.DistanceKernel(), me.DistanceKernel()) == pytest.approx(dcov, rel=1e-10)


def test_distance_kernel_is_its_formula_and_positive_semi_definite():
    rng = np.random.default_rng(19)
    X, Z = rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    k = me.DistanceKernel()
    want = [[0.5 * (np.linalg.norm(x) + np.linalg.norm(z) - np.linalg.norm(x - z)) for z in Z] for x in X]
    np.testing.assert_allclose(k(X, Z), want, rtol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diag(k(X)), rtol=1e-12)
    assert np.linalg.eigvalsh(k(rng.normal(size=(30, 2))))[0] > -1e-10


# ----------------------------------------------------------------------------- random features (9.7)
def test_rff_unbiased_estimate_is_the_u_statistic_of_the_feature_kernel():
    X, Y = _samples(20, 9, 7)
    Phi = RandomFourierFeatures(gamma=0.5, n_components=64, random_state=3).fit_transform(np.vstack([X, Y]))
    for estimator, unbiased in (("biased", False), ("unbiased", True)):
        got = me.mmd2_rff(X, Y, gamma=0.5, n_components=64, estimator=estimator, random_state=3)
        assert got == pytest.approx(_loop_mmd2(Phi[:9], Phi[9:], Linear(), unbiased), rel=1e-10)


@pytest.mark.slow
def test_rff_estimate_converges_to_the_exact_one_as_d_grows():
    rng = np.random.default_rng(21)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + [0.3, 0.0]
    exact = me.mmd2_biased(X, Y, RBF(0.5))
    err = {D: np.sqrt(np.mean([(me.mmd2_rff(X, Y, 0.5, D, random_state=s) - exact) ** 2 for s in range(30)]))
           for D in (20, 200, 2000)}
    assert err[2000] < err[200] < err[20]
    # about 1 / sqrt(D): a hundredfold D divides the error by about ten
    assert 4 < err[20] / err[2000] < 25


def test_rff_null_values_are_statistics_of_relabellings():
    X, Y = _samples(22, 3, 3)
    Phi = RandomFourierFeatures(gamma=0.6, n_components=30, random_state=0).fit_transform(np.vstack([X, Y]))
    values = []
    for chosen in itertools.combinations(range(6), 3):
        rest = [i for i in range(6) if i not in chosen]
        values.append(np.sum((Phi[list(chosen)].mean(0) - Phi[rest].mean(0)) ** 2))
    result = me.rff_permutation_test(X, Y, gamma=0.6, n_components=30, n_permutations=500, random_state=0)
    assert np.abs(result.null[:, None] - np.array(values)[None, :]).min(axis=1).max() < 1e-10
    assert result.statistic == pytest.approx(values[0], rel=1e-10)


def test_rff_test_rejects_a_shift_and_holds_under_the_null():
    rng = np.random.default_rng(23)
    X, Y = rng.normal(size=(300, 2)), rng.normal(size=(300, 2)) + [0.6, 0.0]
    assert me.rff_permutation_test(X, Y, 0.5, 200, n_permutations=199, random_state=0).p_value == 1 / 200
    lo, hi = _binomial_bounds(200, 0.05)
    rejections = sum(me.rff_permutation_test(*_null_pair(rng), 0.5, 50, n_permutations=99,
                                             random_state=int(rng.integers(1 << 30))).p_value <= 0.05
                     for _ in range(200))
    assert lo <= rejections <= hi


# ----------------------------------------------------------------------------- errors
def test_errors_name_the_problem():
    X, Y = _samples(0, 5, 4)
    with pytest.raises(ValueError, match=r"same number of features.*\(5, 2\).*\(3, 3\)"):
        me.mmd2_biased(X, np.ones((3, 3)), RBF(1.0))
    with pytest.raises(ValueError, match="at least two points in each sample"):
        me.mmd2_unbiased(X, Y[:1], RBF(1.0))
    with pytest.raises(ValueError, match=r"paired observations.*\(5, 2\).*\(4, 2\)"):
        me.hsic_biased(X, Y)
    with pytest.raises(ValueError, match="estimator must be one of"):
        me.permutation_test(X, Y, estimator="v")
    with pytest.raises(ValueError, match=r"cov_q must be .*\(2, 2\)"):
        me.gaussian_mmd2([0, 0], 1.0, [0, 0], np.eye(3), 1.0)
    with pytest.raises(ValueError, match="smallest eigenvalue"):
        me.gaussian_mmd2([0, 0], -np.eye(2), [0, 0], 1.0, 1.0)
