"""Tests for kernelcourse.rkhs: RKHS functions, functional gradients, the online kernel machine."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import rkhs
from kernelcourse.datasets import circles
from kernelcourse.kernels import RBF, Linear, Polynomial
from kernelcourse.rkhs import OnlineKernelMachine, RKHSFunction


def slow_rbf(x, z, gamma):
    return np.exp(-gamma * np.sum((np.asarray(x) - np.asarray(z)) ** 2))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def random_f(rng, kernel, m=5, d=2):
    return RKHSFunction(kernel, rng.normal(size=(m, d)), rng.normal(size=m))


# ----------------------------------------------------------------------------- the function object

def test_evaluation_matches_a_loop_over_the_bumps(rng):
    f = random_f(rng, RBF(0.7))
    X = rng.normal(size=(4, 2))
    slow = [sum(a * slow_rbf(c, x, 0.7) for a, c in zip(f.alpha, f.centres)) for x in X]
    assert_allclose(f(X), slow, rtol=1e-12)
    assert_allclose(f.bumps(X).sum(axis=0), slow, rtol=1e-12)


def test_inner_product_is_the_double_sum_and_norm_its_root(rng):
    f, g = random_f(rng, RBF(0.5), m=4), random_f(rng, RBF(0.5), m=3)
    slow = sum(a * b * slow_rbf(x, z, 0.5) for a, x in zip(f.alpha, f.centres)
               for b, z in zip(g.alpha, g.centres))
    assert f.inner(g) == pytest.approx(slow, rel=1e-12)
    assert g.inner(f) == pytest.approx(slow, rel=1e-12)
    assert f.norm() ** 2 == pytest.approx(f.alpha @ RBF(0.5)(f.centres) @ f.alpha, rel=1e-12)


def test_linear_kernel_rkhs_is_the_weight_vector(rng):
    # with K(x, z) = x.z, f(.) = sum alpha_i x_i . (.) is the vector w = sum alpha_i x_i
    f, g = random_f(rng, Linear(), m=4, d=3), random_f(rng, Linear(), m=6, d=3)
    w, v = f.alpha @ f.centres, g.alpha @ g.centres
    assert f.inner(g) == pytest.approx(w @ v, rel=1e-12)
    assert f.norm() == pytest.approx(np.linalg.norm(w), rel=1e-12)


def test_norm_through_the_explicit_polynomial_feature_map(rng):
    k = Polynomial(2, gamma=1.0, coef0=1.0)
    f = random_f(rng, k, m=5, d=2)
    w = f.alpha @ k.features(f.centres)
    assert f.norm() == pytest.approx(np.linalg.norm(w), rel=1e-10)


def test_inner_product_is_linear_in_each_argument(rng):
    k = RBF(1.0)
    f1, f2, g = random_f(rng, k), random_f(rng, k, m=3), random_f(rng, k, m=2)
    assert (2.5 * f1 + f2).inner(g) == pytest.approx(2.5 * f1.inner(g) + f2.inner(g), rel=1e-12)
    assert g.inner(f1 - f2) == pytest.approx(g.inner(f1) - g.inner(f2), rel=1e-12)
    X = rng.normal(size=(3, 2))
    assert_allclose((f1 - 3 * f2)(X), f1(X) - 3 * f2(X), rtol=1e-12)


def test_reproducing_property(rng):
    k = RBF(0.3)
    f = random_f(rng, k, m=7)
    for x in rng.normal(size=(5, 2)):
        assert f.inner(rkhs.kernel_section(k, x)) == pytest.approx(f([x])[0], rel=1e-12)


def test_merged_combines_equal_centres_and_keeps_the_function(rng):
    k = RBF(1.0)
    f = random_f(rng, k, m=3)
    doubled = RKHSFunction(k, np.vstack([f.centres, f.centres]), np.concatenate([f.alpha, f.alpha]))
    m = doubled.merged()
    assert len(m) == 3
    X = rng.normal(size=(4, 2))
    assert_allclose(m(X), 2 * f(X), rtol=1e-12)
    assert len(f + f) == 3  # equal centres add coefficients


def test_zero_function(rng):
    z = RKHSFunction.zero(RBF(1.0), 2)
    f = random_f(rng, RBF(1.0))
    assert len(z) == 0 and z.norm() == 0.0
    assert_allclose(z(rng.normal(size=(3, 2))), 0.0)
    assert_allclose((z + f)(f.centres), f(f.centres))


# ----------------------------------------------------------------------------- functional gradients

EPS = (1e-2, 1e-3, 1e-4)


def test_every_functional_gradient_passes_its_finite_difference_check():
    results = rkhs.gradient_checks(RBF(0.5), eps=EPS)
    assert len(results) == 6
    for name, errors in results.items():
        if name == "f(x)":  # linear functional: exact up to round-off
            assert errors.max() < 1e-8, name
        else:  # O(eps): small, and ten times smaller for each tenfold smaller eps
            assert np.all(errors < 10 * np.array(EPS)), (name, errors)
            assert np.all(errors[1:] / errors[:-1] < 0.2), (name, errors)


def test_squared_norm_error_is_exactly_the_eps_squared_term(rng):
    # E[f + eps g] - E[f] - eps <2f, g> = eps^2 ||g||^2
    k = RBF(1.0)
    f, g = random_f(rng, k), random_f(rng, k, m=3)
    err = rkhs.finite_difference_check(rkhs.squared_norm(), f, g, eps=(1e-2,))[0]
    assert err == pytest.approx(1e-2 * g.norm() ** 2 / abs(2 * f.inner(g)), rel=1e-6)


def test_a_wrong_gradient_fails_the_check(rng):
    k = RBF(1.0)
    f, g = random_f(rng, k), random_f(rng, k, m=3)
    wrong = rkhs.Functional("||f||^2 with grad f", lambda h: h.inner(h), lambda h: h)
    assert rkhs.finite_difference_check(wrong, f, g, eps=(1e-4,))[0] == pytest.approx(1.0, abs=1e-3)


def test_chain_rule_example_of_the_lecture(rng):
    f = random_f(rng, RBF(1.0))
    E = rkhs.chain(lambda u: u ** 3, lambda u: 3 * u ** 2, rkhs.squared_norm())
    grad = E.gradient(f)
    n2 = f.norm() ** 2
    assert_allclose(grad.alpha, 3 * n2 ** 2 * 2 * f.alpha, rtol=1e-12)


def test_gradient_of_the_squared_loss_term(rng):
    k = RBF(1.0)
    f = random_f(rng, k)
    x, y = rng.normal(size=(1, 2)), np.array([0.7])
    grad = rkhs.squared_loss(x, y).gradient(f)
    assert_allclose(grad.centres, x)
    assert_allclose(grad.alpha, [-2 * (0.7 - f(x)[0])], rtol=1e-12)


def test_hinge_subgradient_only_has_margin_errors(rng):
    k = RBF(1.0)
    X = np.array([[0.0, 0.0], [3.0, 3.0], [-3.0, 3.0]])
    f = RKHSFunction(k, X[:1], [2.0])  # f(x_1) = 2: not a margin error for y = +1
    grad = rkhs.hinge_loss(X, [1, 1, -1], lam=0.0).gradient(f)
    at = grad(X)
    assert_allclose(grad.alpha[:3], [0.0, -1.0, 1.0])
    assert at[1] < 0 < at[2]


# ----------------------------------------------------------------------------- descent and the online machine

def test_coefficient_update_squared_and_hinge():
    shrink, c = rkhs.coefficient_update("squared", fx=0.2, y=1.0, eta=0.1, lam=0.5)
    assert (shrink, c) == pytest.approx((0.9, 2 * 0.1 * 0.8))
    assert rkhs.coefficient_update("hinge", fx=0.2, y=-1.0, eta=0.1, lam=0.5) == pytest.approx((0.9, -0.1))
    assert rkhs.coefficient_update("hinge", fx=1.5, y=1.0, eta=0.1, lam=0.5) == pytest.approx((0.9, 0.0))


def test_online_squared_loss_matches_the_update_written_with_functions(rng):
    k, eta, lam = RBF(2.0), 0.1, 0.3
    X, y = rng.normal(size=(12, 2)), rng.normal(size=12)
    f = RKHSFunction.zero(k, 2)
    for x, yt in zip(X, y):
        f = (1 - 2 * eta * lam) * f + 2 * eta * (yt - f([x])[0]) * rkhs.kernel_section(k, x)
    fast = rkhs.fit_online(k, X, y, loss="squared", eta=eta, lam=lam)
    machine = OnlineKernelMachine(k, loss="squared", eta=eta, lam=lam).fit(X, y)
    Z = rng.normal(size=(5, 2))
    assert_allclose(fast(Z), f(Z), rtol=1e-10)
    assert_allclose(machine.decision_function(Z), f(Z), rtol=1e-10)
    assert machine.norm2_ == pytest.approx(f.norm() ** 2, rel=1e-10)


def test_hinge_machine_is_sparse_and_separates_the_circles():
    X, y = circles(300, noise=0.08, random_state=1)
    Xt, yt = circles(300, noise=0.08, random_state=2)
    X0, y0 = X.copy(), y.copy()
    f = rkhs.hinge_kernel_machine(RBF(2.0), X, y, lam=0.001, eta=0.5, n_epochs=5, seed=0)
    assert np.all(X == X0) and np.all(y == y0)
    assert np.mean(np.sign(f(Xt)) == yt) > 0.95
    assert 0 < np.count_nonzero(f.alpha) < 0.5 * len(y)
    # every update on example i adds eta y_i and shrinking keeps the sign: sign(alpha_i) = y_i
    nz = f.alpha != 0
    assert np.all(np.sign(f.alpha[nz]) == y[nz])


def test_online_hinge_machine_adds_a_bump_only_on_margin_errors(rng):
    X, y = circles(80, random_state=3)
    m = OnlineKernelMachine(RBF(1.0), loss="hinge", eta=0.3, lam=0.01).fit(X, y)
    steps_with_error = np.flatnonzero(m.losses_ > 0) + 1
    assert_allclose(m.added_at_, steps_with_error)
    assert m.n_terms_[-1] == len(steps_with_error)
    assert m.norm2_ == pytest.approx(m.function_.norm() ** 2, rel=1e-9)


def test_batch_functional_gradient_descent_reaches_kernel_ridge(rng):
    k, lam = RBF(1.0), 1.0
    X, y = rng.normal(size=(15, 2)), rng.normal(size=15)
    E = rkhs.regularised_squared_loss(X, y, lam)
    f, values = rkhs.functional_gradient_descent(E, RKHSFunction.zero(k, 2), eta=0.02, n_steps=800)
    best = rkhs.representer_minimiser(k, X, y, lam)
    assert np.all(np.diff(values) <= 1e-12)
    assert len(f) == 15
    assert_allclose(f.alpha, best.alpha, atol=1e-6)


# ----------------------------------------------------------------------------- budgets

def test_budget_oldest_keeps_the_most_recent_bumps(rng):
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    m = OnlineKernelMachine(RBF(1.0), loss="squared", eta=0.1, lam=0.1, budget=7).fit(X, y)
    assert np.all(m.n_terms_ <= 7)
    assert_allclose(m.added_at_, np.arange(34, 41))
    assert_allclose(m.centres_, X[33:])
    assert m.norm2_ == pytest.approx(m.function_.norm() ** 2, rel=1e-9)


def test_budget_smallest_drops_the_least_weight(rng):
    X, y = rng.normal(size=(30, 2)), rng.normal(size=30)
    k, eta, lam, B = RBF(1.0), 0.1, 0.05, 5
    m = OnlineKernelMachine(k, loss="squared", eta=eta, lam=lam, budget=B, budget_rule="smallest").fit(X, y)
    # slow reference: a list of (centre, alpha), dropping argmin |alpha| after each addition
    terms = []
    for x, yt in zip(X, y):
        fx = sum(a * slow_rbf(c, x, 1.0) for c, a in terms)
        terms = [(c, (1 - 2 * eta * lam) * a) for c, a in terms] + [(x, 2 * eta * (yt - fx))]
        if len(terms) > B:
            terms.pop(int(np.argmin([abs(a) for _, a in terms])))
    assert_allclose(m.alpha_, [a for _, a in terms], rtol=1e-10)
    assert m.norm2_ == pytest.approx(m.function_.norm() ** 2, rel=1e-9)


def test_a_budget_larger_than_the_stream_changes_nothing(rng):
    X, y = rng.normal(size=(20, 2)), rng.normal(size=20)
    a = OnlineKernelMachine(RBF(1.0), loss="squared", budget=20).fit(X, y)
    b = OnlineKernelMachine(RBF(1.0), loss="squared").fit(X, y)
    assert_allclose(a.alpha_, b.alpha_)


def test_budget_tradeoff_rows():
    X, y = circles(200, noise=0.1, random_state=0)
    Xt, yt = circles(100, noise=0.1, random_state=1)
    rows = rkhs.budget_tradeoff(RBF(2.0), X, y, Xt, yt, budgets=[5, 50], repeats=1)
    assert [r["budget"] for r in rows] == [5, 50, None]
    assert rows[0]["n_terms"] <= 5 and rows[1]["n_terms"] <= 50
    assert rows[-1]["time_ratio"] == 1.0
    assert rows[-1]["score"] > 0.9
    assert rows[0]["score"] < rows[-1]["score"]


# ----------------------------------------------------------------------------- regret

@pytest.mark.parametrize("loss,lam", [("hinge", 0.0), ("hinge", 0.05), ("squared", 0.1)])
def test_regret_stays_below_the_online_gradient_descent_bound(loss, lam):
    X, y = circles(150, noise=0.15, random_state=4)
    k = RBF(2.0)
    targets = y if loss == "hinge" else y * 0.5
    f_star = rkhs.fit_online(k, X, targets, loss=loss, eta=0.1, lam=max(lam, 0.01), n_epochs=10, seed=0)
    m = OnlineKernelMachine(k, loss=loss, eta=0.05, lam=lam).fit(X, targets)
    regret = rkhs.regret_curve(m, f_star, X, targets)
    bound = rkhs.regret_bound(m, f_star)
    assert np.all(regret <= bound + 1e-9)
    assert regret[-1] > 0.2 * bound[-1]  # and the bound is within a small factor of the regret


def test_regret_bound_is_norm_times_sqrt_T_with_the_tuned_step():
    X, y = circles(200, noise=0.15, random_state=5)
    k = RBF(2.0)  # K(x, x) = 1, so ||grad|| <= G = 1 for the hinge loss with lam = 0
    f_star = rkhs.hinge_kernel_machine(k, X, y, lam=0.01, eta=0.1, n_epochs=10)
    T = len(y)
    eta = f_star.norm() / np.sqrt(T)
    m = OnlineKernelMachine(k, loss="hinge", eta=eta, lam=0.0).fit(X, y)
    assert np.all(m.grad_norms_ <= 1 + 1e-12)
    regret = rkhs.regret_curve(m, f_star, X, y)
    assert regret[-1] <= f_star.norm() * np.sqrt(T)
    assert rkhs.regret_bound(m, f_star)[-1] <= f_star.norm() * np.sqrt(T) + 1e-9


# ----------------------------------------------------------------------------- representer theorem

def test_representer_minimiser_is_kernel_ridge(rng):
    from kernelcourse.ridge import KernelRidge
    from sklearn.kernel_ridge import KernelRidge as SKKernelRidge
    X, y = rng.normal(size=(25, 2)), rng.normal(size=25)
    f = rkhs.representer_minimiser(RBF(0.8), X, y, lam=0.3)
    Z = rng.normal(size=(6, 2))
    ours = KernelRidge(RBF(0.8), lam=0.3).fit(X, y).predict(Z)
    theirs = SKKernelRidge(alpha=0.3, kernel="rbf", gamma=0.8).fit(X, y).predict(Z)
    assert_allclose(f(Z), ours, rtol=1e-8)
    assert_allclose(f(Z), theirs, rtol=1e-8)
    grad = rkhs.regularised_squared_loss(X, y, 0.3).gradient(f)
    assert grad.norm() < 1e-8


def test_leaving_the_span_only_adds_to_the_norm(rng):
    k, lam = RBF(0.8), 0.3
    X, y = rng.normal(size=(10, 2)), rng.normal(size=10)
    f = rkhs.representer_minimiser(k, X, y, lam)
    L = rkhs.regularised_squared_loss(X, y, lam)
    g = random_f(rng, k, m=4)
    g_perp = rkhs.orthogonal_to_span(g, X)
    assert_allclose(g_perp(X), 0.0, atol=1e-8)
    for x in X:
        assert abs(g_perp.inner(rkhs.kernel_section(k, x))) < 1e-8
    for c in (0.5, 1.0, 3.0):
        assert L(f + c * g_perp) - L(f) == pytest.approx(lam * c ** 2 * g_perp.norm() ** 2, rel=1e-5)
        assert L(f + c * g_perp) > L(f)
    # moving inside the span raises the objective too
    for _ in range(5):
        h = RKHSFunction(k, X, rng.normal(size=10))
        assert L(f + 0.1 * h) > L(f)


# ----------------------------------------------------------------------------- bandwidth

def test_bias_variance_against_bandwidth():
    wide = rkhs.bandwidth_bias_variance(RBF(0.5), lam=0.01, n_datasets=20)
    narrow = rkhs.bandwidth_bias_variance(RBF(100.0), lam=0.01, n_datasets=20)
    assert wide["bias2"] > 5 * narrow["bias2"]
    assert narrow["variance"] > 3 * wide["variance"]
    mse = np.mean((narrow["fits"] - narrow["truth"]) ** 2)
    assert mse == pytest.approx(narrow["bias2"] + narrow["variance"], rel=1e-10)


# ----------------------------------------------------------------------------- errors

def test_mismatched_centres_and_coefficients():
    with pytest.raises(ValueError, match=r"centres has 3 rows .* but alpha has 2 coefficients"):
        RKHSFunction(RBF(1.0), np.zeros((3, 2)), [1.0, 2.0])
    with pytest.raises(ValueError, match="alpha must be a 1-D"):
        RKHSFunction(RBF(1.0), np.zeros((2, 2)), np.zeros((2, 1)))
    with pytest.raises(TypeError, match=r"kernel='rbf': this class needs a kernel object, not a name"):
        RKHSFunction("rbf", np.zeros((2, 2)), [1.0, 2.0])
    with pytest.raises(TypeError, match="kernel must be callable"):
        RKHSFunction(3, np.zeros((2, 2)), [1.0, 2.0])


def test_functions_of_different_spaces_or_sizes(rng):
    f = random_f(rng, RBF(1.0))
    with pytest.raises(ValueError, match="different RKHSs"):
        f.inner(random_f(rng, RBF(2.0)))
    with pytest.raises(ValueError, match="different sizes"):
        f + random_f(rng, RBF(1.0), d=3)
    with pytest.raises(ValueError, match=r"X must have 2 features .* shape \(4, 3\)"):
        f(np.zeros((4, 3)))
    with pytest.raises(TypeError, match="multiplied by a real number"):
        np.ones(3) * f
    with pytest.raises(TypeError, match="multiplied by a real number"):
        f * f


def test_bad_steps_lams_and_budgets(rng):
    X, y = rng.normal(size=(5, 2)), np.array([1, -1, 1, 1, -1])
    with pytest.raises(ValueError, match=r"eta must be positive; got eta=-0.1"):
        OnlineKernelMachine(RBF(1.0), eta=-0.1).fit(X, y)
    with pytest.raises(ValueError, match=r"lam must be non-negative; got lam=-1"):
        rkhs.fit_online(RBF(1.0), X, y, lam=-1)
    with pytest.raises(ValueError, match=r"budget must be a positive integer; got budget=0"):
        OnlineKernelMachine(RBF(1.0), budget=0).fit(X, y)
    with pytest.raises(ValueError, match=r"1 - 2 eta lam must stay in \[0, 1\]"):
        rkhs.coefficient_update("squared", 0.0, 1.0, eta=1.0, lam=1.0)
    with pytest.raises(ValueError, match="loss must be one of"):
        OnlineKernelMachine(RBF(1.0), loss="logistic").fit(X, y)
    with pytest.raises(ValueError, match="budget_rule must be one of"):
        OnlineKernelMachine(RBF(1.0), budget=2, budget_rule="random").fit(X, y)
    with pytest.raises(ValueError, match="eta must be positive"):
        rkhs.functional_gradient_descent(rkhs.squared_norm(), random_f(rng, RBF(1.0)), eta=0.0, n_steps=3)
    with pytest.raises(ValueError, match="not fitted yet"):
        OnlineKernelMachine(RBF(1.0)).predict(X)
    with pytest.raises(ValueError, match=r"y holds labels outside the classes \[-1, 1\]: \[-2, 2\]"):
        OnlineKernelMachine(RBF(1.0)).partial_fit(X, (y * 2).astype(int), classes=[-1, 1])
    m = OnlineKernelMachine(RBF(1.0), budget=2).fit(X, y)
    with pytest.raises(ValueError, match="constant step and no budget"):
        rkhs.regret_bound(m, random_f(rng, RBF(1.0)))


def test_bias_variance_sweep_matches_single_runs():
    sweep = rkhs.bias_variance_sweep([0.5, 100.0], lam=0.01, n_datasets=10)
    one = rkhs.bandwidth_bias_variance(RBF(100.0), lam=0.01, n_datasets=10)
    assert sweep["bias2"][1] == pytest.approx(one["bias2"], rel=1e-12)
    assert_allclose(sweep["total"], sweep["bias2"] + sweep["variance"])
    with pytest.raises(ValueError, match="gamma must be positive"):
        rkhs.bias_variance_sweep([1.0, -2.0])


def test_equal_kernels_built_twice_share_one_space(rng):
    f = RKHSFunction(RBF(0.5), [[0.0, 1.0]], [1.0])
    g = RKHSFunction(RBF(0.5), [[1.0, 0.0]], [2.0])
    assert f.inner(g) == pytest.approx(2 * np.exp(-0.5 * 2), rel=1e-12)
    assert len(f + g) == 2
