"""Lecture 7's widgets: the plain functions against the SVM module, the controls driven from pytest,
and pictures that depend on the controls only."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import svm
from kernelcourse.kernels import RBF, Linear
from kernelcourse.widgets import lecture7 as L
from widget_checks import (assert_drawn, assert_redraw_shows_a_new_picture, assert_same_as_drawn_anew,
                           count_whole_draws)


def test_margin_state_is_the_svm_of_the_module():
    X, y = L.margin_data(60)
    state = L.margin_state(X, y, C=2.0, gamma=0.5)
    run = svm.smo(RBF(0.5)(X), y, C=2.0, tol=1e-3)
    assert_allclose(state["alpha"], run.alpha)
    assert state["n_sv"] == len(run.support()) == state["free"].sum() + state["bound"].sum()
    assert state["loo_bound"] == pytest.approx(state["n_sv"] / 60)
    # the grid values are f(x) = sum_i a_i y_i k(x_i, x) + b at the grid points
    G = np.c_[state["xx"].ravel(), state["yy"].ravel()][[0, 123, 999]]
    f = RBF(0.5)(G, X) @ (run.alpha * y) + run.b
    assert_allclose(state["F"].ravel()[[0, 123, 999]], f, atol=1e-10)


@pytest.mark.parametrize("gamma", [0.03, 1.0, 30.0])
def test_grid_values_by_the_factorised_kernel_are_the_kernel_expansion_at_every_grid_point(gamma):
    rng = np.random.default_rng(3)
    X_sv, coef, xs = rng.normal(size=(17, 2)), rng.normal(size=17), np.linspace(-3, 3, 41)
    xx, yy = np.meshgrid(xs, xs)
    G = np.c_[xx.ravel(), yy.ravel()]
    expected = (RBF(gamma)(G, X_sv) @ coef + 0.25).reshape(xx.shape)
    assert_allclose(L.grid_decision_values(xs, X_sv, coef, gamma, 0.25), expected, rtol=1e-12, atol=1e-12)


def test_small_C_makes_every_point_a_support_vector_and_large_C_few():
    X, y = L.margin_data(60)
    assert L.margin_state(X, y, C=0.01, gamma=1.0)["n_sv"] == 60
    assert L.margin_state(X, y, C=1000.0, gamma=1.0)["n_sv"] < 30


def test_smo_trace_replays_the_recorded_steps():
    X, y = L.smo_data()
    trace = L.smo_trace(X, y, 1.0, "max_violating")
    run = trace["run"]
    assert_allclose(trace["alphas"][-1], run.alpha)
    K = Linear()(X)
    for k in (1, 5, run.n_iter):
        state = L.smo_state(trace, X, y, k)
        assert svm.dual_objective(state["alpha"], K, y) == pytest.approx(state["dual"], rel=1e-12)
        assert_allclose(state["w"], (state["alpha"] * y) @ X)
        assert state["old_i"] == trace["alphas"][k - 1][state["i"]]
    assert L.smo_state(trace, X, y, 10_000)["step"] == run.n_iter      # past the end: the last step
    assert "step 0" in L.smo_readout(L.smo_state(trace, X, y, 0), y)
    assert "clipped" in L.smo_readout(L.smo_state(trace, X, y, 1), y)


def test_margin_widget_controls():
    w = L.margin_widget(n=40)
    w.controls["log_C"].value = 2.0
    assert w.result["C"] == pytest.approx(100.0)
    w.controls["log_gamma"].value = 1.0
    assert w.result["gamma"] == pytest.approx(10.0)


def test_smo_widget_controls():
    w = L.smo_widget()
    w.controls["step"].value = 3
    assert w.result["step"] == 3 and w.result["trace"]["selection"] == "second_order"
    w.controls["selection"].value = "max_violating"
    assert w.result["trace"]["selection"] == "max_violating"
    w.controls["log_C"].value = 1.0
    assert w.result["trace"]["C"] == pytest.approx(10.0)


@pytest.mark.parametrize("build, control, value", [
    (L.margin_widget, "log_C", 2.0),
    pytest.param(L.margin_widget, "log_gamma", 1.5, marks=pytest.mark.slow),
    (L.smo_widget, "step", 7),
    pytest.param(L.smo_widget, "selection", "max_violating", marks=pytest.mark.slow),
    pytest.param(L.smo_widget, "log_C", -1.0, marks=pytest.mark.slow),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    assert_redraw_shows_a_new_picture(build(), control, value)


@pytest.mark.parametrize("build, path", [
    (L.margin_widget, [("log_C", 3.0), ("log_gamma", 1.5), ("log_C", -2.0), ("log_gamma", -0.5),
                       ("log_C", 1.0)]),
    (L.smo_widget, [("step", 124), ("log_C", 1.0), ("selection", "max_violating"), ("step", 0),
                    ("log_C", -0.5), ("step", 9)]),
])
def test_the_picture_depends_on_the_controls_only(build, path):
    moved = build()
    for control, value in path:
        moved.controls[control].value = value
    final = {name: c.value for name, c in moved.controls.items()}
    fresh = build(**final)
    assert_drawn(moved.view.image.value)
    assert moved.view.image.value == fresh.view.image.value


def test_smo_widget_moves_between_runs_draw_no_whole_figure():
    # a new run (C, the pair rule) redraws the right panel's axes as a layer over the kept
    # background; after a move from the extremes the picture is that state drawn anew
    w = L.smo_widget()
    draws = count_whole_draws(w)
    for control, value in (("log_C", 1.0), ("step", 124), ("selection", "max_violating"),
                           ("log_C", -1.0), ("step", 3)):
        w.controls[control].value = value
        ax2 = w.result["figure"].axes[1]
        assert ax2.get_xlim() == (0, max(w.result["n_iter"], 1) + 0.5)
    assert draws == []
    assert_same_as_drawn_anew(w, "log10 C = -1, step 3, after log10 C = 1 and the last step")
