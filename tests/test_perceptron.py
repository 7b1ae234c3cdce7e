"""The perceptron and Novikoff's bound (lecture 3.10-3.11)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import datasets, kernels
from kernelcourse.perceptron import (
    KernelPerceptron, Perceptron, dual_perceptron, feature_radius, margin_of, novikoff_bound,
    primal_perceptron)


def slow_perceptron(X, y, order, max_epochs=1000):
    """The lecture's algorithm, literally: w_t = w_{t-1} + y_j x_j on y_j <w_t, x_j> <= 0."""
    w = np.zeros(X.shape[1])
    history = []
    for _ in range(max_epochs):
        clean = True
        for j in order:
            if y[j] * sum(w[k] * X[j, k] for k in range(X.shape[1])) <= 0:
                w = w + y[j] * X[j]
                history.append((j, w.copy()))
                clean = False
        if clean:
            break
    return w, history


def test_primal_and_dual_make_the_same_updates():
    X, y, w_star = datasets.separable_with_margin(40, 3, margin=0.1, radius=1.0, random_state=0)
    order = np.random.default_rng(1).permutation(40)
    w_slow, history = slow_perceptron(X, y, order)
    w, updates, converged = primal_perceptron(X, y, order=order)
    run = dual_perceptron(X @ X.T, y, order=order, w_star_projections=X @ w_star)
    assert converged and run.converged
    assert_allclose(w, w_slow, atol=1e-12)
    assert np.array_equal(updates, [j for j, _ in history])
    assert np.array_equal(run.updates, updates)
    assert_allclose(X.T @ run.alpha, w, atol=1e-12)             # w_t = sum_i alpha_i x_i
    # the recorded ||w_t||^2 and <w*, w_t> match the explicit weight vectors
    assert_allclose(run.norm_sq, [wt @ wt for _, wt in history], rtol=1e-10)
    assert_allclose(run.alignment, [w_star @ wt for _, wt in history], rtol=1e-10, atol=1e-12)
    # each alpha_i is y_i times the number of updates on example i
    counts = np.bincount(run.updates, minlength=40)
    assert_allclose(run.alpha, y * counts)
    # the result separates the data
    assert np.all(y * (X @ w) > 0)


def test_novikoff_over_many_random_data_sets_and_orders():
    """Updates never exceed R^2/gamma^2, and both proof inequalities hold at every update."""
    rng = np.random.default_rng(2024)
    n_sets, runs, total_updates, tightest = 0, 0, 0, 0.0
    for trial in range(400):
        d = int(rng.integers(2, 12))
        margin = float(rng.uniform(0.01, 0.3))
        radius = float(rng.uniform(0.5, 3.0))
        X, y, w_star = datasets.separable_with_margin(int(rng.integers(10, 80)), d, margin=margin,
                                                      radius=radius, random_state=trial)
        s = X @ w_star
        gamma = margin_of(s, y)
        assert gamma >= margin * (1 - 1e-9)
        K = X @ X.T
        R = feature_radius(K)
        assert R <= radius * (1 + 1e-9)
        bound = novikoff_bound(R, gamma)
        n_sets += 1
        # three orders: the given one, a fixed random permutation, and a fresh shuffle per epoch
        for kwargs in (dict(), dict(order=rng.permutation(len(y))), dict(random_state=trial)):
            run = dual_perceptron(K, y, w_star_projections=s, max_epochs=100_000, **kwargs)
            assert run.converged
            assert run.n_updates <= bound
            assert run.norm_inequality_holds()
            assert run.alignment_inequality_holds()
            # the chain t^2 gamma^2 <= <w*, w_t>^2 <= ||w_t||^2 <= t R^2 step by step
            t = run.t
            assert np.all((t * gamma) ** 2 <= run.alignment**2 * (1 + 1e-9))
            assert np.all(run.alignment**2 <= run.norm_sq * (1 + 1e-9))
            runs += 1
            total_updates += run.n_updates
            tightest = max(tightest, run.n_updates / bound)
    print(f"Novikoff checked on {n_sets} data sets, {runs} runs ({total_updates} updates); "
          f"largest updates/bound = {tightest:.3f}")
    assert n_sets == 400 and runs == 1200


def test_bound_would_catch_an_off_by_a_constant():
    # 1-D, one point at distance gamma: exactly one update, and R^2/gamma^2 = 1 when R = gamma.
    X = np.array([[0.5], [-0.5]])
    y = np.array([1.0, -1.0])
    run = dual_perceptron(X @ X.T, y, w_star_projections=X[:, 0])
    assert run.n_updates == 1 and run.bound == 1.0
    assert_allclose(run.norm_sq, [0.25])          # ||w_1||^2 = 1 * R^2 exactly: tight
    assert_allclose(run.alignment, [0.5])         # <w*, w_1> = 1 * gamma exactly: tight
    # a bad run that broke the inequality would be reported
    run.norm_sq = run.norm_sq * 1.01
    assert not run.norm_inequality_holds()


def test_feature_radius_uses_the_square_root():
    K = np.diag([4.0, 9.0, 1.0])
    assert feature_radius(K) == 3.0
    assert feature_radius(np.array([4.0, 9.0])) == 3.0
    assert novikoff_bound(3.0, 0.5) == 36.0


def test_kernel_perceptron_separates_circles_that_no_line_can():
    X, y = datasets.circles(80, noise=0.0, factor=0.4, random_state=0)
    quad = kernels.Polynomial(degree=2, gamma=1.0, coef0=1.0)
    model = KernelPerceptron(quad, random_state=0).fit(X, y)
    assert model.run_.converged
    assert np.all(model.predict(X) == y)
    # the kernel perceptron equals the primal perceptron on the explicit feature map
    Phi = quad.features(X)
    order = np.arange(80)
    w, updates, _ = primal_perceptron(Phi, y, order=order)
    run = dual_perceptron(quad(X), y, order=order)
    assert np.array_equal(run.updates, updates)
    Xt = np.random.default_rng(5).uniform(-1.2, 1.2, (30, 2))
    dual_scores = quad(Xt, X) @ run.alpha
    assert_allclose(dual_scores, quad.features(Xt) @ w, rtol=1e-8, atol=1e-8)
    # the linear perceptron cannot separate them
    lin = Perceptron(max_epochs=50).fit(X, y)
    assert not lin.converged_


def test_kernel_perceptron_bound_with_a_dual_separator():
    # a separator in feature space given by dual coefficients beta: w* = sum beta_i phi(x_i)/||.||
    X, y = datasets.circles(60, noise=0.0, factor=0.4, random_state=1)
    k = kernels.RBF(gamma=2.0)
    K = k(X)
    beta = np.linalg.solve(K + 1e-3 * np.eye(60), y)
    beta /= np.sqrt(beta @ K @ beta)          # unit norm in feature space
    s = K @ beta                                # <w*, phi(x_i)>
    assert np.all(y * s > 0)
    run = dual_perceptron(K, y, random_state=0, w_star_projections=s)
    assert run.R == 1.0                         # RBF: k(x, x) = 1
    assert run.n_updates <= run.bound
    assert run.norm_inequality_holds() and run.alignment_inequality_holds()


def test_bad_input_messages():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"y must hold only the labels \[-1, 1\]; found \[0.0\]"):
        dual_perceptron(X @ X.T, [1, 0])
    with pytest.raises(ValueError, match=r"Perceptron is a binary classifier: y must hold two classes; got 1 class: \[2\]"):
        Perceptron().fit(X, [2, 2])
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) Gram matrix; got shape \(2, 3\)"):
        dual_perceptron(np.ones((2, 3)), [1, -1])
    with pytest.raises(ValueError, match=r"KernelPerceptron is not fitted yet: call fit\(X, y\) before predict"):
        KernelPerceptron(kernels.Linear()).predict(X)
    with pytest.raises(ValueError, match=r"Perceptron is not fitted yet"):
        Perceptron().predict(X)
    with pytest.raises(ValueError, match=r"positive margin; got gamma=-0.1"):
        novikoff_bound(1.0, -0.1)
    with pytest.raises(ValueError, match=r"order must be a permutation of range\(2\)"):
        dual_perceptron(X @ X.T, [1, -1], order=[0, 0])
    with pytest.raises(ValueError, match=r"w_star_projections must have shape \(2,\); got \(3,\)"):
        dual_perceptron(X @ X.T, [1, -1], w_star_projections=[1, 2, 3])
    model = KernelPerceptron(kernels.Linear()).fit(X, [1, -1])
    with pytest.raises(ValueError, match=r"X has 3 features, but KernelPerceptron is expecting 2 features as input"):
        model.predict(np.ones((1, 3)))
