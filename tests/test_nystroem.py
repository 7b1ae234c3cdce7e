"""Nystroem (lecture 6.2-6.3): the map K_nm K_mm^{-1/2} against its definition, the Schur-complement
error formula, a singular K_mm, and scikit-learn's Nystroem on the same landmarks."""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem as SkNystroem

from kernelcourse.kernels import RBF, Linear, Polynomial
from kernelcourse.nystroem import (Nystroem, approximation_error, errors_against_components,
                                   inverse_sqrt_psd, nystroem_features)


@pytest.fixture
def X():
    return np.random.default_rng(3).normal(size=(80, 3))


def test_features_are_k_nm_times_the_inverse_square_root(X):
    k = RBF(0.3)
    model = Nystroem(k, n_components=20, random_state=0).fit(X)
    Z = X[model.component_indices_]
    K_mm = k(Z)
    # K_mm^{-1/2} from scipy's matrix square root, independent of our eigh
    from scipy.linalg import sqrtm
    R = np.linalg.inv(np.real(sqrtm(K_mm)))
    assert_allclose(model.normalization_ @ K_mm @ model.normalization_, np.eye(20), atol=1e-6)
    assert_allclose(model.transform(X), k(X, Z) @ R, rtol=1e-6, atol=1e-8)
    assert model.rank_ == 20


def test_landmarks_are_distinct_training_rows_drawn_by_the_seed(X):
    a = Nystroem(RBF(0.3), n_components=30, random_state=5).fit(X)
    b = Nystroem(RBF(0.3), n_components=30, random_state=5).fit(X)
    c = Nystroem(RBF(0.3), n_components=30, random_state=6).fit(X)
    assert len(set(a.component_indices_.tolist())) == 30
    assert np.array_equal(a.component_indices_, b.component_indices_)
    assert not np.array_equal(a.component_indices_, c.component_indices_)
    assert_allclose(a.components_, X[a.component_indices_])
    # more components than points: every point is a landmark and the approximation is exact
    full = Nystroem(RBF(0.3), n_components=500).fit(X)
    assert len(full.components_) == len(X)
    assert approximation_error(RBF(0.3)(X), full.transform(X)) < 1e-6


def test_error_is_the_schur_complement_and_exact_on_landmarks(X):
    k = RBF(0.5)
    K = k(X)
    model = Nystroem(k, n_components=15, random_state=1).fit(X)
    Phi = model.transform(X)
    idx = model.component_indices_
    K_nm, K_mm = K[:, idx], K[np.ix_(idx, idx)]
    schur = K - K_nm @ np.linalg.solve(K_mm, K_nm.T)
    assert_allclose(K - Phi @ Phi.T, schur, atol=1e-7)
    assert approximation_error(K, Phi) == pytest.approx(np.linalg.norm(schur), rel=1e-6)
    assert approximation_error(K, Phi, ord=2) == pytest.approx(np.linalg.eigvalsh(schur).max(), rel=1e-6)
    assert_allclose((Phi @ Phi.T)[idx], K[idx], atol=1e-8)     # exact on every landmark row
    assert np.linalg.eigvalsh(schur).min() > -1e-8            # never overshoots: K - Phi Phi^T is PSD


def test_same_as_scikit_learn_on_the_same_landmarks(X):
    k = RBF(0.4)
    ours = Nystroem(k, n_components=25, random_state=2).fit(X)
    Z = ours.components_
    sk = SkNystroem(kernel="rbf", gamma=0.4, n_components=25, random_state=0).fit(Z)
    perm = sk.component_indices_                    # scikit-learn shuffles the landmarks it is given
    Phi_sk = sk.transform(X)
    Phi = ours.transform(X)
    assert_allclose(Phi @ Phi.T, Phi_sk @ Phi_sk.T, rtol=1e-8, atol=1e-10)
    assert_allclose(Phi[:, perm], Phi_sk, rtol=1e-6, atol=1e-9)


def test_singular_k_mm_uses_the_pseudo_inverse_square_root():
    X = np.random.default_rng(0).normal(size=(40, 2))
    k = Linear()                                       # rank 2: K_mm of 10 landmarks has rank 2
    model = Nystroem(k, n_components=10, random_state=0).fit(X)
    assert model.rank_ == 2
    Phi = model.transform(X)
    assert np.all(np.isfinite(Phi))
    assert_allclose(Phi @ Phi.T, X @ X.T, atol=1e-8)   # a rank-2 kernel is reproduced exactly
    # repeated landmarks: K_mm singular, features the pseudo-inverse formula K_nm pinv(K_mm) K_mn
    Xr = np.vstack([X[:5], X[:5]])
    K_mm = RBF(1.0)(Xr)
    Phi = nystroem_features(RBF(1.0)(X, Xr), K_mm)
    K_nm = RBF(1.0)(X, Xr)
    assert_allclose(Phi @ Phi.T, K_nm @ np.linalg.pinv(K_mm, rcond=1e-10) @ K_nm.T, atol=1e-7)
    R, rank = inverse_sqrt_psd(K_mm)
    assert rank == 5


def test_polynomial_kernel_with_enough_landmarks_is_exact():
    X = np.random.default_rng(1).normal(size=(60, 2))
    k = Polynomial(2)                                  # 6 explicit features
    Phi = Nystroem(k, n_components=12, random_state=0).fit_transform(X)
    assert_allclose(Phi @ Phi.T, k(X), atol=1e-7)


def test_errors_against_components_nystroem_tracks_the_best_rank_and_beats_random_features():
    X = np.random.default_rng(0).normal(size=(300, 2))
    r = errors_against_components(X, 0.5, [10, 40, 160], random_state=0)
    s = np.linalg.eigvalsh(RBF(0.5)(X))[::-1]
    assert_allclose(r["spectrum"], np.clip(s, 0, None), atol=1e-9)
    assert_allclose(r["best_rank"][0], np.sqrt((s[10:] ** 2).sum()) / np.linalg.norm(s), rtol=1e-6)
    assert np.all(r["nystroem"] >= r["best_rank"] - 1e-9)       # Eckart-Young: nothing beats the floor
    assert np.all(r["nystroem"] < r["random_features"])         # a fast-decaying spectrum
    assert np.all(np.diff(r["nystroem"]) < 0) and np.all(np.diff(r["random_features"]) < 0)


def test_estimator_contract_and_errors(X):
    model = Nystroem(RBF(0.3), n_components=5, random_state=0)
    assert set(model.get_params(deep=False)) == {"kernel", "n_components", "random_state"}
    assert model.set_params(kernel__gamma=0.5).kernel.gamma == 0.5
    assert Nystroem().get_params()["n_components"] == 100
    clone(model).fit(X)
    with pytest.raises(ValueError, match="not fitted yet"):
        Nystroem().transform(X)
    with pytest.raises(ValueError, match=r"n_components must be a positive integer"):
        Nystroem(n_components=0).fit(X)
    with pytest.raises(ValueError, match=r"X has 2 features, but Nystroem is expecting 3 features as input; got X with shape \(80, 2\)"):
        model.fit(X).transform(X[:, :2])
    # scikit-learn's kernel names are the package's kernels with scikit-learn's defaults
    by_name = Nystroem(kernel="rbf", n_components=5, random_state=0).fit_transform(X)
    by_object = Nystroem(RBF(1 / X.shape[1]), n_components=5, random_state=0).fit_transform(X)
    np.testing.assert_allclose(by_name, by_object, rtol=1e-12)
    with pytest.raises(ValueError, match=r"kernel='gauss' is not a known kernel name; use one of"):
        Nystroem(kernel="gauss").fit(X)
    with pytest.raises(ValueError, match=r"K_nm must have one column per landmark; got K_nm with shape \(4, 3\)"):
        nystroem_features(np.ones((4, 3)), np.eye(2))
    with pytest.raises(ValueError, match="no positive eigenvalue"):
        inverse_sqrt_psd(np.zeros((3, 3)))


def test_errors_reuse_a_given_gram_matrix_and_spectrum_exactly(X):
    from kernelcourse.nystroem import errors_against_components, rbf_gram_spectrum

    K, spectrum = rbf_gram_spectrum(X, 0.3)
    assert_allclose(K, RBF(0.3)(X))
    assert_allclose(np.sort(spectrum), np.clip(np.linalg.eigvalsh(K), 0, None), atol=1e-12)
    fresh = errors_against_components(X, 0.3, [2, 5], random_state=1)
    reused = errors_against_components(X, 0.3, [2, 5], random_state=1, gram_spectrum=(K, spectrum))
    for key in ("nystroem", "random_features", "best_rank", "spectrum"):
        assert_allclose(reused[key], fresh[key], rtol=1e-12)
