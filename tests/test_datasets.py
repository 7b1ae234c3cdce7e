"""Tests for kernelcourse.datasets: shapes, seeds, and the geometry each set promises."""
import numpy as np
import pytest

from kernelcourse import datasets

CLASSIFICATION = [datasets.circles, datasets.xor, datasets.two_disks_and_band]


@pytest.mark.parametrize("make", CLASSIFICATION)
def test_classification_sets_have_float_labels_in_minus_one_plus_one(make):
    X, y = make(n=101, random_state=3)
    assert X.shape == (101, 2) and y.shape == (101,)
    assert X.dtype == float and y.dtype == float
    assert set(np.unique(y)) == {-1.0, 1.0}


@pytest.mark.parametrize("make", CLASSIFICATION + [datasets.synthetic_images])
def test_same_seed_same_data_other_seed_other_data(make):
    X1, y1 = make(n=30, random_state=5)
    X2, y2 = make(n=30, random_state=5)
    X3, _ = make(n=30, random_state=6)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(X1, X3)


def test_generator_is_accepted_and_advanced():
    rng = np.random.default_rng(0)
    X1, _ = datasets.circles(n=20, random_state=rng)
    X2, _ = datasets.circles(n=20, random_state=rng)
    assert not np.allclose(X1, X2)
    X3, _ = datasets.circles(n=20, random_state=np.random.default_rng(0))
    np.testing.assert_array_equal(X1, X3)


def test_circles_without_noise_lie_on_two_circles():
    X, y = datasets.circles(n=200, noise=0.0, factor=0.3, random_state=0)
    r = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(r[y < 0], 1.0, rtol=1e-12)
    np.testing.assert_allclose(r[y > 0], 0.3, rtol=1e-12)
    assert np.sum(y < 0) == 100


def test_circles_odd_n_puts_half_on_the_outer_ring():
    _, y = datasets.circles(n=7, random_state=0)
    assert np.sum(y < 0) == 3 and np.sum(y > 0) == 4


def test_circles_no_line_separates_them():
    # least squares on (1, x1, x2) is the best a linear model does with the squared loss
    X, y = datasets.circles(n=400, random_state=1)
    A = np.column_stack([np.ones(len(X)), X])
    w, *_ = np.linalg.lstsq(A, y, rcond=None)
    accuracy = np.mean(np.sign(A @ w) == y)
    assert accuracy < 0.7


def test_xor_without_noise_follows_the_sign_of_the_product():
    X, y = datasets.xor(n=300, noise=0.0, random_state=2)
    np.testing.assert_array_equal(y, np.sign(X[:, 0] * X[:, 1]))
    assert np.all(np.abs(X) <= 1.0)


def test_xor_no_line_but_the_product_feature_separates_it():
    X, y = datasets.xor(n=300, noise=0.0, random_state=2)
    A = np.column_stack([np.ones(len(X)), X])
    w, *_ = np.linalg.lstsq(A, y, rcond=None)
    assert np.mean(np.sign(A @ w) == y) < 0.7
    A2 = np.column_stack([A, X[:, 0] * X[:, 1]])
    w2, *_ = np.linalg.lstsq(A2, y, rcond=None)
    assert np.mean(np.sign(A2 @ w2) == y) > 0.9


def _lecture_label(x):
    """The lecture's gen_y, one point at a time."""
    if np.linalg.norm(x - [0.25, 0.75]) < 0.15:
        return -1.0
    if np.linalg.norm(x - [0.75, 0.75]) < 0.15:
        return -1.0
    if x[1] < 0.4 and np.linalg.norm(x - [0.5, 0.6]) < 0.5 and np.linalg.norm(x - [0.5, 0.55]) > 0.3:
        return -1.0
    return 1.0


def test_two_disks_and_band_matches_the_lecture_rule_point_by_point():
    X, y = datasets.two_disks_and_band(n=1024, random_state=0)
    assert X.shape == (1024, 2)
    assert np.all((X >= 0) & (X <= 1))
    expected = np.array([_lecture_label(x) for x in X])
    np.testing.assert_array_equal(y, expected)
    # the three -1 regions cover about 0.14 (disks) + 0.13 (band) of the square
    assert 0.22 < np.mean(y < 0) < 0.33


def test_two_disks_and_band_named_points():
    pts = np.array([[0.25, 0.75], [0.75, 0.75], [0.5, 0.2], [0.5, 0.5], [0.05, 0.05], [0.5, 0.9]])
    np.testing.assert_array_equal(datasets.two_disks_and_band_label(pts), [-1, -1, -1, 1, 1, 1])


def test_two_disks_and_band_train_and_test_differ():
    Xtr, _ = datasets.two_disks_and_band(random_state=0)
    Xte, _ = datasets.two_disks_and_band(random_state=1)
    assert not np.allclose(Xtr, Xte)


@pytest.mark.parametrize("n, d, margin, radius", [(50, 2, 0.1, 1.0), (41, 7, 0.25, 2.0), (10, 1, 0.5, 1.0),
                                                  (200, 100, 0.05, 1.0)])
def test_separable_with_margin_keeps_its_promises(n, d, margin, radius):
    X, y, w_star = datasets.separable_with_margin(n=n, d=d, margin=margin, radius=radius, random_state=4)
    assert X.shape == (n, d) and y.shape == (n,) and w_star.shape == (d,)
    np.testing.assert_allclose(np.linalg.norm(w_star), 1.0, rtol=1e-12)
    assert np.all(np.linalg.norm(X, axis=1) <= radius * (1 + 1e-12))
    functional_margins = y * (X @ w_star)
    assert functional_margins.min() >= margin
    np.testing.assert_allclose(functional_margins.min(), margin, rtol=1e-11)  # the bound is attained
    assert set(np.unique(y)) == {-1.0, 1.0}


def test_separable_with_margin_never_dips_below_the_margin_by_rounding():
    for seed in range(100):
        for d in (2, 5, 50):
            X, y, w_star = datasets.separable_with_margin(n=30, d=d, margin=0.1, random_state=seed)
            assert np.min(y * (X @ w_star)) >= 0.1


def test_synthetic_images_shape_range_and_target():
    X, y = datasets.synthetic_images(n=20, side=16, random_state=0)
    assert X.shape == (20, 256) and y.shape == (20,)
    assert X.min() >= 0.0 and X.max() <= 1.0
    assert np.all((y >= 0.2) & (y <= 0.8))
    # the brightest column of each image sits near the blob's horizontal position
    column_mass = X.reshape(20, 16, 16).sum(axis=1)
    brightest = column_mass.argmax(axis=1) / 15
    assert np.max(np.abs(brightest - y)) <= 1.5 / 15


def test_synthetic_images_product_target_is_the_product_of_the_centred_coordinates():
    X, u = datasets.synthetic_images(n=20, side=16, random_state=0)
    X2, y = datasets.synthetic_images(n=20, side=16, random_state=0, target="product")
    assert np.array_equal(X, X2)                   # the same images, another target
    # the brightest row of each image gives v, the vertical position
    v = X.reshape(20, 16, 16).sum(axis=2).argmax(axis=1) / 15
    assert np.max(np.abs(y - (u - 0.5) * (v - 0.5))) <= 0.3 * 1.5 / 15 + 1e-12
    assert np.all(np.abs(y) <= 0.09 + 1e-12)
    with pytest.raises(ValueError, match="target must be one of"):
        datasets.synthetic_images(n=2, side=8, target="y")


@pytest.mark.parametrize("call, match", [
    (lambda: datasets.circles(n=0), "n must be a positive integer; got n=0"),
    (lambda: datasets.circles(n=2.5), "n must be a positive integer"),
    (lambda: datasets.circles(factor=1.0), r"factor .* must lie in \(0, 1\); got factor=1.0"),
    (lambda: datasets.circles(noise=-0.1), "noise must be non-negative; got noise=-0.1"),
    (lambda: datasets.xor(n=-3), "n must be a positive integer; got n=-3"),
    (lambda: datasets.two_disks_and_band(n=0), "n must be a positive integer"),
    (lambda: datasets.separable_with_margin(margin=2.0, radius=1.0), "margin cannot exceed radius"),
    (lambda: datasets.separable_with_margin(margin=0.0), "margin must be positive; got margin=0.0"),
    (lambda: datasets.separable_with_margin(d=0), "d must be a positive integer; got d=0"),
    (lambda: datasets.synthetic_images(side=2), "side must be at least 4 pixels; got side=2"),
    (lambda: datasets.circles(random_state=-1), "random_state must be a non-negative int seed"),
    (lambda: datasets.two_disks_and_band_label(np.zeros((3, 3))), r"2 features .* got shape \(3, 3\)"),
])
def test_bad_arguments_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_random_state_of_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="random_state must be an int seed or a numpy.random.Generator; got str"):
        datasets.xor(random_state="zero")


# ---------------------------------------------------------------- smooth_regression (6.5-6.6)
def test_smooth_regression_is_its_formula_and_the_same_function_for_every_size():
    from kernelcourse.datasets import smooth_regression

    X, y = smooth_regression(500, d=4, noise=0.0, random_state=3)
    X2, y2 = smooth_regression(50, d=4, noise=0.0, random_state=7)
    fixed = np.random.default_rng(12345)
    a = fixed.standard_normal(4)
    a /= np.linalg.norm(a)
    c = fixed.standard_normal(4)
    c *= 0.5 / np.linalg.norm(c)
    np.testing.assert_allclose(y, np.sin(X @ a) + 0.5 * np.cos(X @ c), rtol=1e-12)
    np.testing.assert_allclose(y2, np.sin(X2 @ a) + 0.5 * np.cos(X2 @ c), rtol=1e-12)
    _, noisy = smooth_regression(20_000, d=4, noise=0.1, random_state=0)
    X0, clean = smooth_regression(20_000, d=4, noise=0.0, random_state=0)
    assert abs(np.std(noisy - np.sin(X0 @ a) - 0.5 * np.cos(X0 @ c)) - 0.1) < 0.005
    with pytest.raises(ValueError, match="noise must be non-negative"):
        smooth_regression(10, noise=-1.0)


def test_smooth_regression_dask_chunks_are_seeded_streams():
    from kernelcourse.datasets import smooth_regression, smooth_regression_dask

    Xd, yd = smooth_regression_dask(2500, d=3, chunk_size=1000, noise=0.1, random_state=5)
    assert Xd.shape == (2500, 3) and Xd.chunks[0] == (1000, 1000, 500)
    X, y = Xd.compute(scheduler="synchronous"), yd.compute(scheduler="synchronous")
    X1, y1 = smooth_regression(500, 3, 0.1, np.random.default_rng([5, 2]))
    np.testing.assert_array_equal(X[2000:], X1)
    np.testing.assert_array_equal(y[2000:], y1)
    with pytest.raises(TypeError, match="random_state must be an int seed here"):
        smooth_regression_dask(10, random_state=np.random.default_rng(0))
