"""Lecture 3's widgets: the plain functions against the math, the sliders driven from pytest."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import kernels
from kernelcourse.perceptron import novikoff_bound
from kernelcourse.widgets import lecture3 as L
from widget_checks import assert_redraw_shows_a_new_picture


# --- (a) ridge: primal against dual -----------------------------------------

def test_ridge_fits_primal_and_dual_agree_and_match_a_direct_solve():
    x, y = L.ridge_data(n=12)
    fits = L.ridge_fits(x, y, lam=0.1, degree=4, grid_size=30)
    # a direct solve of the normal equations with the explicit polynomial features
    Phi = np.column_stack([np.sqrt([1, 4, 6, 4, 1][k]) * x[:, 0] ** k for k in range(5)])
    w = np.linalg.solve(Phi.T @ Phi + 0.1 * np.eye(5), Phi.T @ y)
    G = np.column_stack([np.sqrt([1, 4, 6, 4, 1][k]) * fits["grid"][:, 0] ** k for k in range(5)])
    assert_allclose(fits["primal"], G @ w, rtol=1e-8, atol=1e-10)
    assert_allclose(fits["dual"], G @ w, rtol=1e-8, atol=1e-10)
    assert fits["max_difference"] < 1e-9
    assert_allclose(fits["w_from_alpha"], fits["w"], rtol=1e-8, atol=1e-10)


def test_ridge_fits_damp_as_lambda_grows():
    x, y = L.ridge_data()
    norms = [L.ridge_fits(x, y, lam)["norm_w"] for lam in (1e-4, 1e-2, 1.0, 100.0)]
    rmse = [L.ridge_fits(x, y, lam)["train_rmse"] for lam in (1e-4, 1e-2, 1.0, 100.0)]
    assert all(a > b for a, b in zip(norms, norms[1:]))
    assert all(a < b for a, b in zip(rmse, rmse[1:]))
    # lam = 0 (pseudo-inverse): primal and dual still agree
    assert L.ridge_fits(x, y, 0.0, degree=5)["max_difference"] < 1e-6


def test_ridge_widget_slider_refits():
    w = L.ridge_lambda_widget()
    w.controls["log_lam"].value = 1.0
    assert_allclose(w.result["norm_w"], L.ridge_fits(*L.ridge_data(), 10.0)["norm_w"], rtol=1e-12)
    w.controls["degree"].value = 3
    assert w.result["w"].shape == (4,)
    assert w.result["max_difference"] < 1e-9
    assert w.result["figure"] is not None


# --- (b) the perceptron, stepped --------------------------------------------

def test_perceptron_state_rebuilds_w_t_and_checks_both_inequalities():
    path = L.perceptron_path()
    run, X, y = path["run"], path["X"], path["y"]
    assert run.n_updates >= 10 and run.converged
    w = np.zeros(2)
    for t in range(run.n_updates + 1):
        state = L.perceptron_state(path, t)
        if t > 0:
            j = run.updates[t - 1]
            assert y[j] * (X[j] @ w) <= 0          # update t was made on a mistake of w_{t-1}
            w = w + y[j] * X[j]
            assert state["j"] == j
        assert_allclose(state["w"], w, atol=1e-12)
        assert_allclose(state["norm_sq"], w @ w, rtol=1e-12, atol=1e-15)
        assert_allclose(state["alignment"], path["w_star"] @ w, rtol=1e-12, atol=1e-15)
        assert state["norm_ok"] and state["alignment_ok"]
    assert state["mistakes"] == 0
    assert state["bound"] == novikoff_bound(run.R, run.gamma) >= run.n_updates
    with pytest.raises(ValueError, match=rf"t must be an integer update count between 0 and {run.n_updates}; got t=-1"):
        L.perceptron_state(path, -1)


def test_perceptron_widget_slider_steps():
    w = L.perceptron_steps_widget()
    T = w.controls["t"].max
    w.controls["t"].value = 3
    assert w.result["t"] == 3 and w.result["alpha"].__abs__().sum() == 3
    w.controls["t"].value = T
    assert w.result["mistakes"] == 0
    fig = w.result["figure"]
    assert len(fig.axes) == 3
    # the plotted ||w_t||^2 curve holds the first T recorded values
    assert len(fig.axes[1].lines[1].get_ydata()) == T


# --- (c) the novelty ball ------------------------------------------------------

def test_novelty_map_distances_and_radius():
    X, X_test = L.novelty_data(n=30, n_test=10)
    data = L.novelty_map(X, gamma=0.5, X_test=X_test, grid_size=12)
    k = kernels.RBF(0.5)
    K = k(X)
    pts = np.column_stack([data["xx"].ravel(), data["yy"].ravel()])
    # ||phi(x) - phi_S||^2 = 1 - 2 mean_i k(x, x_i) + mean K for the RBF kernel
    d2 = 1 - 2 * k(pts, X).mean(axis=1) + K.mean()
    assert_allclose(data["distance"].ravel(), np.sqrt(d2), rtol=1e-9)
    assert_allclose(data["radius"], np.sqrt((1 - 2 * K.mean(axis=1) + K.mean()).max()), rtol=1e-9)
    d2_test = 1 - 2 * k(X_test, X).mean(axis=1) + K.mean()
    assert np.array_equal(data["test_novel"], np.sqrt(d2_test) > data["radius"] * (1 + 1e-9))


def test_novelty_ball_changes_with_the_width():
    X, X_test = L.novelty_data()
    wide = L.novelty_map(X, gamma=0.01, X_test=X_test)
    narrow = L.novelty_map(X, gamma=30.0, X_test=X_test)
    # a narrow kernel puts every far point at the same distance sqrt(1 + mean K) from the centre
    assert narrow["radius"] > wide["radius"]
    assert narrow["inside_fraction"] < wide["inside_fraction"]
    with pytest.raises(ValueError, match=r"gamma must be positive; got gamma=0"):
        L.novelty_map(X, 0)


def test_novelty_widget_slider():
    w = L.novelty_ball_widget()
    w.controls["log_gamma"].value = 1.0
    assert_allclose(w.result["radius"], L.novelty_map(L.novelty_data()[0], 10.0)["radius"], rtol=1e-12)
    assert w.result["test_novel"].dtype == bool


# --- every widget: each move redraws its one figure, in place, outside pyplot ----

@pytest.mark.parametrize("build, control, value", [
    (L.ridge_lambda_widget, "log_lam", 1.0),
    pytest.param(L.ridge_lambda_widget, "degree", 3, marks=pytest.mark.slow),
    (L.perceptron_steps_widget, "t", 6),
    (L.novelty_ball_widget, "log_gamma", 1.0),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    assert_redraw_shows_a_new_picture(build(), control, value)
