"""Lecture 6's widgets: the plain functions against the math, the sliders driven from pytest."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import datasets
from kernelcourse.feature_space import center_gram
from kernelcourse.kernels import RBF
from kernelcourse.nystroem import Nystroem, approximation_error
from kernelcourse.widgets import lecture6 as L
from widget_checks import assert_redraw_shows_a_new_picture


# --- (a) components against the approximation error ---------------------------

def test_components_state_errors_are_the_relative_frobenius_norms():
    X = L.components_data(n=120)
    state = L.components_state(X, gamma=1.0, m=15, curve=(5, 15, 60, 500))
    K = RBF(1.0)(X)
    assert list(state["curve"]["components"]) == [5, 15, 60]          # 500 > n is left out
    # the Nystroem error at m from a fresh fit with the same seed sequence's first draw
    Phi = Nystroem(RBF(1.0), 15, np.random.default_rng(0)).fit_transform(X)
    assert_allclose(state["at_m"]["nystroem"][0], approximation_error(K, Phi) / np.linalg.norm(K),
                    rtol=1e-10)
    s = np.linalg.eigvalsh(K)[::-1]
    assert_allclose(state["at_m"]["best_rank"][0], np.sqrt((s[15:] ** 2).sum()) / np.linalg.norm(K),
                    rtol=1e-6)
    c = state["curve"]
    assert np.all(c["nystroem"] >= c["best_rank"] - 1e-9)
    with pytest.raises(ValueError, match=r"m must be at most the number of points n = 120; got m=121"):
        L.components_state(X, 1.0, 121)


def test_a_wide_kernel_has_a_fast_spectrum_where_nystroem_wins_by_more():
    X = L.components_data(n=150)
    wide = L.components_state(X, gamma=0.1, m=20)["at_m"]
    narrow = L.components_state(X, gamma=20.0, m=20)["at_m"]
    assert wide["nystroem"][0] < 1e-2 < narrow["nystroem"][0]
    assert wide["random_features"][0] / wide["nystroem"][0] > \
        narrow["random_features"][0] / narrow["nystroem"][0]


def test_components_widget_sliders():
    w = L.components_widget(m=10, n=100)
    w.controls["m"].value = 40
    assert w.result["m"] == 40 and w.result["at_m"]["components"].tolist() == [40]
    w.controls["log_gamma"].value = 1.0
    assert w.result["gamma"] == pytest.approx(10.0)
    assert len(w.result["figure"].axes) == 2


# --- (b) kernel PCA's gamma ------------------------------------------------------

def test_threshold_accuracy_against_a_loop_over_every_cut():
    rng = np.random.default_rng(0)
    z = rng.normal(size=40)
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    best = 0.0
    for t in np.concatenate([[-np.inf], np.sort(z)]):
        pred = np.where(z > t, 1.0, -1.0)
        best = max(best, np.mean(pred == y), np.mean(-pred == y))
    assert L.threshold_accuracy(z, y) == pytest.approx(best)
    assert L.threshold_accuracy([1.0, 2.0, 3.0], [1.0, -1.0, -1.0]) == 1.0
    with pytest.raises(ValueError, match=r"same length; got shapes \(2,\) and \(3,\)"):
        L.threshold_accuracy([1.0, 2.0], [1.0, -1.0, 1.0])


def test_kpca_projection_is_the_centred_eigendecomposition():
    X, y = datasets.circles(100, noise=0.05, factor=0.3, random_state=0)
    data = L.kpca_projection(X, y, gamma=3.0)
    s, U = np.linalg.eigh(center_gram(RBF(3.0)(X)))
    proj = U[:, ::-1][:, :2] * np.sqrt(s[::-1][:2])
    signs = np.sign(np.sum(proj * data["Z"], axis=0))
    assert_allclose(data["Z"], proj * signs, atol=1e-8)
    assert_allclose(data["ratio"], s[::-1][:2] / s.clip(0).sum(), rtol=1e-8)


def test_the_right_gamma_separates_the_rings_on_one_component_and_linear_pca_cannot():
    X, y = datasets.circles(300, noise=0.05, factor=0.3, random_state=0)
    assert L.kpca_projection(X, y, gamma=3.0)["accuracy"] == 1.0
    # a very wide kernel is nearly linear: PCA of the plane, where no direction separates rings
    assert L.kpca_projection(X, y, gamma=0.01)["accuracy"] < 0.75
    from sklearn.decomposition import PCA
    assert L.threshold_accuracy(PCA(1).fit_transform(X)[:, 0], y) < 0.75


def test_kpca_widget_slider():
    w = L.kpca_gamma_widget(n=120)
    w.controls["log_gamma"].value = 1.0
    assert w.result["gamma"] == pytest.approx(10.0)
    assert w.result["Z"].shape == (120, 2)


# --- every widget: each move redraws its one figure, in place, outside pyplot ----

@pytest.mark.parametrize("build, control, value", [
    (L.components_widget, "m", 60),
    pytest.param(L.components_widget, "log_gamma", 1.0, marks=pytest.mark.slow),
    (L.kpca_gamma_widget, "log_gamma", 0.0),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    assert_redraw_shows_a_new_picture(build(), control, value)


def test_kpca_widget_draws_each_projection_scaled_to_the_fixed_axes():
    w = L.kpca_gamma_widget(n=120)
    w.controls["log_gamma"].value = 1.0
    X, y = datasets.circles(120, noise=0.05, factor=0.3, random_state=0)
    Z = L.kpca_projection(X, y, 10.0)["Z"]
    ax2 = w.result["figure"].axes[1]
    drawn = np.vstack([c.get_offsets() for c in ax2.collections])
    expected = np.vstack([Z[y < 0], Z[y > 0]]) / np.abs(Z).max(axis=0)
    assert_allclose(drawn, expected, rtol=1e-12, atol=1e-12)
    assert np.abs(drawn).max() == pytest.approx(1.0) and ax2.get_xlim() == (-1.05, 1.05)
