"""Computing in feature space from the Gram matrix (lecture 3.7-3.9).

Every Gram-matrix formula is checked against the same quantity computed with
explicit features (a polynomial kernel's finite map), and centering against
scikit-learn's KernelCenterer.
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.preprocessing import KernelCenterer

from kernelcourse import kernels
from kernelcourse.feature_space import (
    CentreOfMassClassifier, GramCenterer, NoveltyBall, center_gram, center_kernel_rows,
    centre_of_mass_offset, centre_of_mass_scores, centre_of_mass_weight, feature_distance,
    mean_norm, mean_squared_distance_to_mean, normalize_gram, normalize_kernel_rows,
    squared_distances_to_mean, weight_norm_squared)

QUAD = kernels.Polynomial(degree=2, gamma=1.0, coef0=1.0)


def explicit_features(X):
    """phi(x) for (x.z + 1)^2, written out: 1, sqrt2 x_i, x_i x_j (all ordered pairs)."""
    n, d = X.shape
    outer = (X[:, :, None] * X[:, None, :]).reshape(n, d * d)
    return np.hstack([np.ones((n, 1)), np.sqrt(2) * X, outer])


@pytest.fixture
def sample():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((25, 3)) + 0.5
    Xt = rng.standard_normal((7, 3))
    return X, Xt, explicit_features(X), explicit_features(Xt)


def test_explicit_features_reproduce_the_kernel(sample):
    X, Xt, Phi, Phit = sample
    assert_allclose(Phi @ Phit.T, QUAD(X, Xt), rtol=1e-10, atol=1e-12)


def test_norm_and_distance_of_combinations(sample):
    X, _, Phi, _ = sample
    K = QUAD(X)
    rng = np.random.default_rng(1)
    alpha, beta = rng.standard_normal(25), rng.standard_normal(25)
    w_a, w_b = Phi.T @ alpha, Phi.T @ beta
    assert_allclose(weight_norm_squared(K, alpha), w_a @ w_a, rtol=1e-9)
    assert_allclose(feature_distance(K, alpha, beta), np.linalg.norm(w_a - w_b), rtol=1e-9)
    assert feature_distance(K, alpha, alpha) == 0.0


def test_normalised_gram_and_rows(sample):
    X, Xt, Phi, Phit = sample
    K = QUAD(X)
    U = Phi / np.linalg.norm(Phi, axis=1, keepdims=True)
    Ut = Phit / np.linalg.norm(Phit, axis=1, keepdims=True)
    Kn = normalize_gram(K)
    assert_allclose(Kn, U @ U.T, rtol=1e-9, atol=1e-12)
    assert_allclose(np.diag(Kn), 1.0, rtol=1e-12)
    rows = normalize_kernel_rows(QUAD(Xt, X), QUAD.diag(Xt), QUAD.diag(X))
    assert_allclose(rows, Ut @ U.T, rtol=1e-9, atol=1e-12)
    # agrees with the Normalized construction rule
    assert_allclose(Kn, kernels.Normalized(QUAD)(X), rtol=1e-9, atol=1e-12)


def test_mean_norm_and_average_squared_distance(sample):
    X, _, Phi, _ = sample
    K = QUAD(X)
    phi_S = Phi.mean(axis=0)
    assert_allclose(mean_norm(K), np.linalg.norm(phi_S), rtol=1e-9)
    avg = np.mean(np.sum((Phi - phi_S) ** 2, axis=1))
    assert_allclose(mean_squared_distance_to_mean(K), avg, rtol=1e-9)


def test_centering_equals_centering_explicit_features(sample):
    X, Xt, Phi, Phit = sample
    mu = Phi.mean(axis=0)
    K = QUAD(X)
    assert_allclose(center_gram(K), (Phi - mu) @ (Phi - mu).T, atol=1e-9 * np.abs(K).max())
    # new points are centred with the TRAINING mean
    assert_allclose(center_kernel_rows(QUAD(Xt, X), K), (Phit - mu) @ (Phi - mu).T,
                    atol=1e-9 * np.abs(K).max())


def test_centering_matches_the_lecture_formula_and_sklearn(sample):
    X, Xt, _, _ = sample
    K, Kt = QUAD(X), QUAD(Xt, X)
    m = K.shape[0]
    J = np.ones((m, m))
    literal = K - (J @ K + K @ J) / m + (np.ones(m) @ K @ np.ones(m)) / m**2 * J
    assert_allclose(center_gram(K), literal, rtol=1e-9, atol=1e-9)
    ref = KernelCenterer().fit(K)
    assert_allclose(center_gram(K), ref.transform(K), rtol=1e-9, atol=1e-9)
    assert_allclose(GramCenterer().fit(K).transform(Kt), ref.transform(Kt), rtol=1e-9, atol=1e-9)


def test_centering_is_not_centring_test_points_on_their_own_mean(sample):
    X, Xt, _, _ = sample
    K, Kt = QUAD(X), QUAD(Xt, X)
    right = center_kernel_rows(Kt, K)
    own = Kt - Kt.mean(axis=0)[None, :] - Kt.mean(axis=1)[:, None] + Kt.mean()
    assert np.abs(right - own).max() > 1e-3


def test_centering_minimises_the_trace(sample):
    X, _, Phi, _ = sample
    K = QUAD(X)
    Kc = center_gram(K)
    # the centred sample has mean zero, and its trace equals m times the average squared distance
    assert abs(Kc.sum()) < 1e-8 * np.abs(K).sum()
    assert_allclose(np.trace(Kc), K.shape[0] * mean_squared_distance_to_mean(K), rtol=1e-9)
    # moving the origin anywhere else gives a larger trace: sum ||phi_i - c||^2 >= sum ||phi_i - mu||^2
    rng = np.random.default_rng(2)
    for _ in range(20):
        c = Phi.mean(axis=0) + 0.3 * rng.standard_normal(Phi.shape[1])
        assert np.sum((Phi - c) ** 2) > np.trace(Kc)
    # and centering twice changes nothing
    assert_allclose(center_gram(Kc), Kc, atol=1e-9 * np.abs(K).max())


def test_centering_leaves_its_input_alone_and_needs_fitting(sample):
    X, _, _, _ = sample
    K = QUAD(X)
    K0 = K.copy()
    center_gram(K)
    assert np.array_equal(K, K0)
    with pytest.raises(ValueError, match=r"GramCenterer is not fitted yet"):
        GramCenterer().transform(K)
    with pytest.raises(ValueError, match=r"K_new must have one column per training point \(25\): X has 4 features, but GramCenterer is expecting 25 features as input; got K_new with shape \(3, 4\)"):
        GramCenterer().fit(K).transform(np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) Gram matrix; got shape \(25, 3\)"):
        center_gram(X)


def test_centre_of_mass_classifier_b_and_hyperplane():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.standard_normal((12, 3)) + 1.0, rng.standard_normal((9, 3)) - 0.5])
    y = np.array([1.0] * 12 + [-1.0] * 9)
    Xt = 2 * rng.standard_normal((15, 3))
    Phi, Phit = explicit_features(X), explicit_features(Xt)
    phi_p, phi_m = Phi[y > 0].mean(axis=0), Phi[y < 0].mean(axis=0)
    K = QUAD(X)
    b = centre_of_mass_offset(K, y)
    # the lecture's b from double sums
    b_loop = (sum(K[i, j] for i in range(12) for j in range(12)) / (2 * 12**2)
              - sum(K[i, j] for i in range(12, 21) for j in range(12, 21)) / (2 * 9**2))
    assert_allclose(b, b_loop, rtol=1e-12)
    assert_allclose(b, (phi_p @ phi_p - phi_m @ phi_m) / 2, rtol=1e-9)
    # kernel scores = hyperplane <w, phi(x)> - b = half the difference of squared distances
    scores = centre_of_mass_scores(QUAD(Xt, X), y, b)
    w = centre_of_mass_weight(Phi, y)
    assert_allclose(w, phi_p - phi_m)
    assert_allclose(scores, Phit @ w - b, rtol=1e-9, atol=1e-9)
    d_minus = np.sum((Phit - phi_m) ** 2, axis=1)
    d_plus = np.sum((Phit - phi_p) ** 2, axis=1)
    assert_allclose(scores, (d_minus - d_plus) / 2, rtol=1e-8, atol=1e-8)
    model = CentreOfMassClassifier(QUAD).fit(X, y)
    assert_allclose(model.decision_function(Xt), scores, rtol=1e-12)
    assert np.array_equal(model.predict(Xt), np.where(d_minus >= d_plus, 1.0, -1.0))


def test_centre_of_mass_errors():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"needs both classes; got 3 positive and 0 negative"):
        centre_of_mass_offset(X @ X.T, np.ones(3))
    with pytest.raises(ValueError, match=r"y must hold two classes; got 1 class: \[1.0\]"):
        CentreOfMassClassifier(kernels.Linear()).fit(X, np.ones(3))
    with pytest.raises(ValueError, match=r"y must hold two classes; got 3 classes: \[0, 1, 2\]"):
        CentreOfMassClassifier(kernels.Linear()).fit(X, [0, 2, 1])
    with pytest.raises(ValueError, match=r"CentreOfMassClassifier is not fitted yet"):
        CentreOfMassClassifier(kernels.Linear()).predict(X)


@pytest.mark.parametrize("kernel", [QUAD, kernels.RBF(gamma=0.5)])
def test_novelty_ball(sample, kernel):
    X, Xt, _, _ = sample
    ball = NoveltyBall(kernel).fit(X)
    # slow reference: distances with an explicit loop over kernel values
    m = X.shape[0]
    K = kernel(X)

    def dist(x):
        kx = kernel(x[None, :], X)[0]
        return np.sqrt(kernel(x[None, :])[0, 0] - 2 * kx.sum() / m + K.sum() / m**2)

    assert_allclose(ball.distance(Xt), [dist(x) for x in Xt], rtol=1e-9)
    assert_allclose(ball.radius_, max(dist(x) for x in X), rtol=1e-9)
    assert not ball.predict(X).any()            # the ball holds every training point
    far = X.mean(axis=0) + 10 * np.ones((1, 3))
    assert ball.predict(far).all() and ball.novelty_score(far)[0] > 0
    assert_allclose(squared_distances_to_mean(kernel(Xt, X), kernel.diag(Xt), K),
                    ball.distance(Xt) ** 2, rtol=1e-9, atol=1e-12)


def test_novelty_ball_with_explicit_features(sample):
    X, Xt, Phi, Phit = sample
    ball = NoveltyBall(QUAD).fit(X)
    mu = Phi.mean(axis=0)
    assert_allclose(ball.distance(Xt), np.linalg.norm(Phit - mu, axis=1), rtol=1e-8)
    assert_allclose(ball.radius_, np.linalg.norm(Phi - mu, axis=1).max(), rtol=1e-8)


def test_bad_input_messages():
    K = np.eye(3)
    with pytest.raises(ValueError, match=r"alpha must have shape \(3,\) to match K of shape \(3, 3\); got shape \(2,\)"):
        weight_norm_squared(K, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"cannot normalise: diag\(K\)\[1\] = k\(x, x\) = 0.0"):
        normalize_gram(np.diag([1.0, 0.0, 2.0]))
    with pytest.raises(ValueError, match=r"K must be a square"):
        mean_norm(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"NoveltyBall is not fitted yet"):
        NoveltyBall(kernels.Linear()).distance(np.ones((1, 2)))


def test_threaded_centering_of_a_large_matrix_matches_sklearn():
    # above a million entries the rows are centred in two parallel bands
    rng = np.random.default_rng(7)
    A = rng.standard_normal((1100, 5))
    K = kernels.RBF(0.2)(A)
    Kt = kernels.RBF(0.2)(rng.standard_normal((1003, 5)), A)
    ref = KernelCenterer().fit(K)
    assert_allclose(center_gram(K), ref.transform(K), atol=1e-12)
    assert_allclose(center_kernel_rows(Kt, K), ref.transform(Kt), atol=1e-12)


def test_centering_reports_nan():
    K = np.eye(4)
    K[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"K contains NaN or inf \(first at row 2, column 1\)"):
        center_gram(K)


@pytest.mark.parametrize("m", [1, 2, 9, 1001])
def test_center_gram_is_H_K_H_and_what_GramCenterer_returns(m):
    # center_gram computes H K H (H = I - 11^T/m) on its own, without the estimator class: the
    # definition, with H formed, and GramCenterer's fit_transform must give the same matrix; at
    # m = 1001 the centering runs in parallel bands of rows. A square matrix that is not symmetric
    # keeps rows and columns apart.
    rng = np.random.default_rng(m)
    K = rng.normal(size=(m, m)) + 3.0
    H = np.eye(m) - np.ones((m, m)) / m
    Kc = center_gram(K)
    assert_allclose(Kc, H @ K @ H, rtol=1e-10, atol=1e-10 * np.abs(K).max())
    assert np.array_equal(Kc, GramCenterer().fit_transform(K))
