"""Tests for lecture 1's widgets: the plain functions against the math, the sliders driven from pytest."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from kernelcourse import datasets, kernels
from kernelcourse.gradient_descent import squared_loss
from kernelcourse.widgets import figure_png
from kernelcourse.widgets import lecture1 as L
from kernelcourse.gradient_descent import KernelGD
from widget_checks import assert_drawn, assert_redraw_shows_a_new_picture


# --- plain functions -------------------------------------------------------

def test_make_kernel_builds_the_named_kernel_with_its_parameter():
    X = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_allclose(L.make_kernel("rbf", gamma=0.3)(X), kernels.RBF(gamma=0.3)(X), rtol=1e-12)
    P = L.make_kernel("polynomial", degree=3)(X)
    np.testing.assert_allclose(P, (1.0 + X @ X.T) ** 3, rtol=1e-12)   # the lecture's (1 + x^T z)^d
    np.testing.assert_allclose(L.make_kernel("linear")(X), X @ X.T, rtol=1e-12)
    D1 = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    np.testing.assert_allclose(L.make_kernel("laplacian", gamma=0.7)(X), np.exp(-0.7 * D1), rtol=1e-12)
    with pytest.raises(ValueError, match=r"kernel name must be one of \['rbf', 'polynomial', 'linear', 'laplacian'\]; got 'cosine'"):
        L.make_kernel("cosine")
    with pytest.raises(ValueError, match=r"dataset name must be one of \['circles', 'xor'\]; got 'moons'"):
        L.make_dataset("moons")


def test_make_dataset_is_the_datasets_module():
    X, y = L.make_dataset("xor", n=30, random_state=4)
    X2, y2 = datasets.xor(n=30, random_state=4)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_grid_covers_the_points():
    X = np.array([[0.0, -1.0], [2.0, 3.0]])
    xx, yy, pts = L.grid_for(X, grid_size=5, pad=0.5)
    assert xx.shape == (5, 5) and pts.shape == (25, 2)
    np.testing.assert_allclose([xx.min(), xx.max(), yy.min(), yy.max()], [-0.5, 2.5, -1.5, 3.5])
    with pytest.raises(ValueError, match=r"2-D points; got X with shape \(2, 3\)"):
        L.grid_for(np.ones((2, 3)))


def test_boundary_data_is_sum_alpha_k_on_the_grid():
    X, y = datasets.circles(n=40, random_state=0)
    k = kernels.RBF(gamma=1.0)
    data = L.boundary_data(k, X, y, n_steps=30, grid_size=7)
    alpha = data["model"].dual_coef_
    pts = np.column_stack([data["xx"].ravel(), data["yy"].ravel()])
    loop = np.array([sum(alpha[j] * np.exp(-np.sum((X[j] - p) ** 2)) for j in range(40)) for p in pts])
    np.testing.assert_allclose(data["h"].ravel(), loop, rtol=1e-12, atol=1e-14)
    assert data["test_accuracy"] is None
    np.testing.assert_allclose(data["loss"], squared_loss(k(X), y, alpha), rtol=1e-12)


def test_plot_boundary_draws_the_zero_level_only_when_h_changes_sign():
    X, y = datasets.circles(n=40, random_state=0)
    data = L.boundary_data(kernels.RBF(gamma=2.0), X, y, n_steps=50, grid_size=20)
    ax = L.plot_boundary(data, X, y, title="t")
    assert len(ax.collections) >= 3  # filled regions, boundary line, two scatters
    flat = dict(data, h=np.ones_like(data["h"]))
    ax2 = L.plot_boundary(flat, X, y)
    assert len(ax2.collections) == len(ax.collections) - 1
    assert plt.get_fignums() == []                      # drawn on figures pyplot does not track
    assert_drawn(figure_png(ax.figure))


def test_all_subsets_costs_dimensions_and_agreement():
    costs = L.all_subsets_costs(6, n=10, repeat=1)
    np.testing.assert_array_equal(costs["d"], np.arange(1, 7))
    np.testing.assert_array_equal(costs["dim"], 2 ** np.arange(1, 7))
    assert np.all(costs["max_abs_diff"] < 1e-9)
    np.testing.assert_allclose(costs["ratio"], costs["map_seconds"] / costs["kernel_seconds"], rtol=1e-12)
    again = L.all_subsets_costs(4, n=10, repeat=1)       # cached: the same measurements
    np.testing.assert_array_equal(again["map_seconds"], costs["map_seconds"][:4])
    axes = L.plot_all_subsets_costs(costs)
    np.testing.assert_array_equal(axes[0].lines[0].get_ydata(), 2 ** np.arange(1, 7))
    with pytest.raises(ValueError, match=r"d must be at most 16 here .* got d=20"):
        L.all_subsets_costs(20)
    with pytest.raises(ValueError, match="d must be a positive integer; got d=0"):
        L.all_subsets_costs(0)


def test_boundary_at_step_is_the_recorded_alpha():
    X, y = datasets.circles(n=30, random_state=2)
    k = kernels.RBF(gamma=2.0)
    path = L.gd_path_data(k, X, y, n_steps=20, grid_size=6)
    pts = np.column_stack([path["xx"].ravel(), path["yy"].ravel()])
    for t in (0, 7, 20):
        step = L.boundary_at_step(path, t)
        alpha_t = path["model"].alpha_path_[t]
        np.testing.assert_allclose(step["h"].ravel(), k(pts, X) @ alpha_t, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(step["loss"], squared_loss(k(X), y, alpha_t), rtol=1e-12)
    assert np.all(L.boundary_at_step(path, 0)["h"] == 0)  # alpha^0 = 0
    with pytest.raises(ValueError, match="t must be an integer step between 0 and 20; got t=21"):
        L.boundary_at_step(path, 21)


# --- the widgets, driven like a student would ---------------------------------

def test_kernel_boundary_widget_reacts_to_every_control():
    w = L.kernel_boundary_widget(n=80, n_steps=100, grid_size=20)
    assert set(w.controls) == {"dataset", "kernel", "gamma", "degree", "n_steps"}
    first = w.result
    assert first["train_accuracy"] > 0.9 and first["test_accuracy"] > 0.9   # RBF separates circles
    assert "train" in first["figure"].axes[0].get_title()

    w.controls["gamma"].value = 20.0
    assert not np.allclose(w.result["h"], first["h"])
    assert "gamma=20" in w.result["figure"].axes[0].get_title()

    w.controls["kernel"].value = "linear"
    assert w.result["test_accuracy"] < 0.7                                   # no line separates them
    assert w.result["figure"].axes[0].get_title().startswith("linear")

    w.controls["dataset"].value = "xor"
    w.controls["kernel"].value = "polynomial"
    w.controls["degree"].value = 2
    poly2 = w.result
    assert poly2["test_accuracy"] > 0.85                                     # x1 x2 is a feature
    w.controls["degree"].value = 1
    assert w.result["test_accuracy"] < 0.7
    w.controls["n_steps"].value = 20
    assert w.result["model"].n_steps == 20
    assert plt.get_fignums() == []                                           # no pyplot figures


def test_all_subsets_widget_follows_the_d_slider(capsys):
    w = L.all_subsets_widget(d=3, d_max=8, n=10)
    np.testing.assert_array_equal(w.result["dim"], [2, 4, 8])
    before = w.view.image.value
    w.controls["d"].value = 7                  # measured when the widget was built
    np.testing.assert_array_equal(w.result["dim"], 2 ** np.arange(1, 8))
    out = capsys.readouterr().out.splitlines()
    line = [s for s in out if "d = 7" in s]
    assert line and "2^7 = 128 features" in line[-1]
    curve = w.result["figure"].axes[0].lines[0]
    np.testing.assert_array_equal(curve.get_xdata(), np.arange(1, 8))
    assert curve.get_ydata()[-1] == 128
    assert w.view.image.value != before
    assert_drawn(w.view.image.value)
    assert plt.get_fignums() == []


def test_half_stable_step_is_the_auto_step():
    X, y = datasets.circles(n=50, random_state=0)
    for k in (kernels.RBF(2.0), kernels.Polynomial(3), kernels.Laplacian(0.5)):
        K = k(X)
        assert L.half_stable_step(K) == pytest.approx(0.5 / np.linalg.eigvalsh(K)[-1], rel=1e-10)
        auto = KernelGD(k, n_steps=30).fit(X, y)
        np.testing.assert_allclose(L.boundary_data(k, X, y, 30, grid_size=5, step=L.half_stable_step(K))
                                   ["model"].dual_coef_, auto.dual_coef_, rtol=1e-8, atol=1e-12)
    with pytest.raises(ValueError, match="K has no positive eigenvalue"):
        L.half_stable_step(-np.eye(3))


def test_gd_steps_widget_moves_along_the_path():
    w = L.gd_steps_widget(n=40, n_steps=30, grid_size=8)
    assert w.result["t"] == 0 and w.result["loss"] == pytest.approx(40.0)    # ||0 - y||^2 = n
    w.controls["t"].value = 30
    end = w.result
    np.testing.assert_array_equal(end["alpha"], w.path_data["model"].dual_coef_)
    assert end["loss"] < 40.0
    w.controls["t"].value = 10
    assert w.result["loss"] > end["loss"]
    assert "t = 10" in w.result["figure"].axes[0].get_title()
    assert plt.get_fignums() == []


@pytest.mark.parametrize("build, control, value", [
    (lambda: L.kernel_boundary_widget(n=60, n_steps=50, grid_size=20), "gamma", 10.0),
    pytest.param(lambda: L.kernel_boundary_widget(n=60, n_steps=50, grid_size=20), "dataset", "xor",
                 marks=pytest.mark.slow),
    (lambda: L.gd_steps_widget(n=40, n_steps=30, grid_size=8), "t", 12),
    (lambda: L.all_subsets_widget(d=3, d_max=6, n=10), "d", 5),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    assert_redraw_shows_a_new_picture(build(), control, value)
