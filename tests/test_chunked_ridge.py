"""RFFRidge (lecture 6.5): the chunked sums against ridge on the whole feature matrix, the Dask path
on a LocalCluster against the NumPy path (rtol 1e-10), and scikit-learn's RBFSampler + Ridge."""
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone

from kernelcourse.chunked_ridge import RFFRidge, add_moments, chunk_moments, rmse_against_n
from kernelcourse.datasets import smooth_regression
from kernelcourse.random_features import RandomFourierFeatures
from kernelcourse.ridge import primal_ridge

# the paths are compared to rounding in float64 (float32 sums depend on BLAS's blocking)
F64 = np.float64



@pytest.fixture(scope="module")
def data():
    return smooth_regression(3000, d=4, noise=0.1, random_state=0)


def test_chunked_fit_equals_ridge_on_the_whole_feature_matrix(data):
    X, y = data
    model = RFFRidge(gamma=0.3, n_components=120, lam=0.5, chunk_size=700, random_state=1,
                     dtype=np.float64).fit(X, y)
    assert model.n_chunks_ == 5                                  # 4 x 700 + 200
    Phi = RandomFourierFeatures(0.3, 120, random_state=1).fit_transform(X)
    assert_allclose(model.Omega_, RandomFourierFeatures(0.3, 120, random_state=1).fit(X).Omega_)
    w = primal_ridge(Phi, y, 0.5)                                 # all features at once
    assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-11)
    assert_allclose(model.predict(X), Phi @ w, rtol=1e-9, atol=1e-11)
    # the chunk size changes nothing but the rounding
    other = RFFRidge(gamma=0.3, n_components=120, lam=0.5, chunk_size=3000, random_state=1,
                     dtype=np.float64).fit(X, y)
    assert_allclose(other.coef_, model.coef_, rtol=1e-10, atol=1e-12)


def test_chunk_moments_are_the_products_and_add_up(data):
    X, y = data
    rff = RandomFourierFeatures(0.3, 50, random_state=0).fit(X)
    Phi = rff.transform(X)
    A, c = add_moments(chunk_moments(X[:1000], y[:1000], rff.Omega_, rff.b_),
                       chunk_moments(X[1000:], y[1000:], rff.Omega_, rff.b_))
    assert_allclose(A, Phi.T @ Phi, rtol=1e-10)
    assert_allclose(c, Phi.T @ y, rtol=1e-10, atol=1e-10)
    A32, c32 = chunk_moments(X, y, rff.Omega_, rff.b_, dtype=np.float32)
    assert A32.dtype == np.float64
    assert_allclose(A32, Phi.T @ Phi, rtol=1e-4, atol=1e-2)
    with pytest.raises(ValueError, match="NaN or inf in a chunk of 2 rows"):
        chunk_moments(np.array([[np.nan] * 4, [0.0] * 4]), [0.0, 1.0], rff.Omega_, rff.b_)


def test_matches_sklearn_rbf_sampler_and_ridge_on_the_same_frequencies(data):
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import Ridge

    X, y = data
    model = RFFRidge(gamma=0.3, n_components=80, lam=2.0, chunk_size=1000, random_state=0,
                     dtype=np.float64).fit(X, y)
    sampler = RBFSampler(gamma=0.3, n_components=80, random_state=0).fit(X)
    sampler.random_weights_ = model.Omega_.T.copy()             # the same draw in scikit-learn's names
    sampler.random_offset_ = model.b_.copy()
    Phi = sampler.transform(X)
    ridge = Ridge(alpha=2.0, fit_intercept=False, solver="cholesky").fit(Phi, y)
    assert_allclose(model.coef_, ridge.coef_, rtol=1e-8, atol=1e-10)


def test_float32_features_stay_close(data):
    X, y = data
    a = RFFRidge(0.3, 100, 1.0, 500, random_state=0, dtype=np.float64).fit(X, y)
    b = RFFRidge(0.3, 100, 1.0, 500, random_state=0, dtype=np.float32).fit(X, y)
    assert np.abs(a.predict(X) - b.predict(X)).max() < 1e-3


def test_the_float32_default_errs_far_less_than_the_monte_carlo_error_of_d_features(data):
    """The default (float32 features) against float64 features from the same draw, and that
    against another draw of D features: the rounding is under 1% of the Monte Carlo error."""
    X, y = data
    for D in (100, 1000):
        f32 = RFFRidge(0.3, D, 1e-3, 1000, random_state=0).fit(X, y)
        f64 = RFFRidge(0.3, D, 1e-3, 1000, random_state=0, dtype=np.float64).fit(X, y)
        draw = RFFRidge(0.3, D, 1e-3, 1000, random_state=1, dtype=np.float64).fit(X, y)
        assert f32.dtype is np.float32
        rounding = np.sqrt(np.mean((f32.predict(X) - f64.predict(X)) ** 2))
        monte_carlo = np.sqrt(np.mean((draw.predict(X) - f64.predict(X)) ** 2))
        assert rounding < 0.01 * monte_carlo, (D, rounding, monte_carlo)


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as c:
        yield c


@pytest.mark.slow          # the quick loop's Dask fit: the local cluster the fit starts, below
def test_dask_path_on_a_local_cluster_equals_the_numpy_path(data, cluster):
    import dask.array as da
    from distributed import Client

    X, y = data
    ref = RFFRidge(0.3, 150, 1.0, chunk_size=400, random_state=3, dtype=F64).fit(X, y)
    # connected by address, as to a scheduler on another machine
    with Client(cluster.scheduler_address) as client:
        Xd = da.from_array(X, chunks=(1000, 2))                  # rechunked to 400 rows, all columns
        model = RFFRidge(0.3, 150, 1.0, chunk_size=400, random_state=3, dtype=F64).fit(
            Xd, da.from_array(y))
        assert model.n_chunks_ == ref.n_chunks_ == 8
        assert_allclose(model.coef_, ref.coef_, rtol=1e-10, atol=0)
        pred = model.predict(Xd)
        assert type(pred).__module__.startswith("dask")
        assert_allclose(pred.compute(), ref.predict(X), rtol=1e-10, atol=1e-12)
        assert len(client.scheduler_info()["workers"]) == 2
        # NumPy targets beside a Dask X
        assert_allclose(RFFRidge(0.3, 150, 1.0, 400, 3, F64).fit(Xd, y).coef_, ref.coef_, rtol=1e-10)


def test_without_a_client_the_fit_starts_and_closes_a_local_cluster(data):
    import dask.array as da
    from distributed import default_client

    X, y = data
    ref = RFFRidge(0.3, 60, 1.0, chunk_size=1000, random_state=0, dtype=F64).fit(X, y)
    model = RFFRidge(0.3, 60, 1.0, chunk_size=1000, random_state=0, dtype=F64).fit(da.from_array(X), y)
    assert_allclose(model.coef_, ref.coef_, rtol=1e-10)
    with pytest.raises(ValueError):
        default_client()                                         # nothing left running


def test_importing_the_package_and_questions_never_imports_dask():
    code = ("import sys, kernelcourse, kernelcourse.chunked_ridge, kernelcourse.grading.questions.lecture6\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rmse_falls_with_n_and_exact_ridge_stops_at_its_limit():
    r = rmse_against_n([300, 1200, 4800], n_exact_max=1200, n_test=500, d=3,
                              gamma=0.3, n_components=100, lam=0.1)
    assert r["random_features"][2] < r["random_features"][0]
    assert r["exact"][1] < r["exact"][0] and np.isnan(r["exact"][2])
    assert np.all(r["random_features"] > 0) and np.all(r["random_features"][:2] < 1.0)


def test_estimator_contract_and_errors(data):
    X, y = data
    model = RFFRidge()
    assert model.get_params() == {"gamma": 1.0, "n_components": 100, "lam": 1.0, "chunk_size": 10000,
                                  "random_state": None, "dtype": np.float32}
    fitted = clone(RFFRidge(0.3, 40, random_state=0)).fit(X, y)
    assert fitted.score(X, y) > 0.5                               # R^2, the course's own
    with pytest.raises(ValueError, match="not fitted yet"):
        RFFRidge().predict(X)
    with pytest.raises(ValueError, match=r"y has 10 entries but there are 3000 samples"):
        RFFRidge().fit(X, y[:10])
    with pytest.raises(ValueError, match=r"chunk_size must be a positive integer; got chunk_size=0"):
        RFFRidge(chunk_size=0).fit(X, y)
    with pytest.raises(ValueError, match=r"lam must be non-negative"):
        RFFRidge(lam=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 2 features, but RFFRidge is expecting 4 features as input; got X with shape \(5, 2\)"):
        fitted.predict(X[:5, :2])


def test_dask_targets_of_the_wrong_shape_are_refused_in_the_words_of_as_targets(data):
    import dask.array as da
    X, y = data
    Xd = da.from_array(X, chunks=(1000, X.shape[1]))
    with pytest.raises(ValueError, match=r"y has 10 entries but there are 3000 samples; got shape \(10,\)"):
        RFFRidge().fit(Xd, da.from_array(y[:10]))
    with pytest.raises(ValueError, match=r"y must be 1-D \(n,\); got shape \(3000, 2\)"):
        RFFRidge().fit(Xd, da.from_array(np.c_[y, y]))
