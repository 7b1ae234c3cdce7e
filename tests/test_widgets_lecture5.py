"""Tests for lecture 5's widgets: the plain functions against the math, the controls driven from pytest."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from kernelcourse import rkhs
from kernelcourse.kernels import RBF
from kernelcourse.widgets import lecture5 as L
from widget_checks import (assert_drawn, assert_redraw_shows_a_new_picture, assert_same_as_drawn_anew,
                           count_whole_draws)


# --- plain functions -------------------------------------------------------

def test_stepper_data_labels_and_targets():
    X, y = L.stepper_data("hinge", n=20, random_state=1)
    assert X.shape == (20, 1)
    np.testing.assert_array_equal(y, np.where(np.sin(1.5 * X[:, 0]) >= 0, 1.0, -1.0))
    X2, t = L.stepper_data("squared", n=20, random_state=1)
    np.testing.assert_array_equal(X, X2)
    assert np.max(np.abs(t - np.sin(1.5 * X[:, 0]))) < 0.5
    with pytest.raises(ValueError, match=r"loss must be one of \['squared', 'hinge'\]; got loss='l1'"):
        L.stepper_data("l1")


def test_fgd_path_is_the_online_machine_step_by_step():
    X, y = L.stepper_data("hinge", n=15)
    path = L.fgd_path(RBF(1.0), X, y, "hinge", eta=0.4, lam=0.05)
    assert len(path["functions"]) == 16
    for t in range(1, 16):
        m = rkhs.OnlineKernelMachine(RBF(1.0), loss="hinge", eta=0.4, lam=0.05).fit(X[:t], y[:t])
        grid = np.linspace(-3, 3, 7)[:, None]
        np.testing.assert_allclose(path["functions"][t](grid), m.decision_function(grid), atol=1e-12)
        # a bump is added exactly on margin errors: y_t f_{t-1}(x_t) < 1
        assert path["added"][t - 1] == (y[t - 1] * path["prediction"][t - 1] < 1)
    assert len(path["functions"][-1]) == sum(path["added"])


def test_step_view_bumps_sum_to_f_and_describe_the_step():
    X, y = L.stepper_data("squared", n=8)
    path = L.fgd_path(RBF(0.5), X, y, "squared", eta=0.3, lam=0.1)
    view = L.step_view(path, 5)
    np.testing.assert_allclose(view["bumps"].sum(axis=0), view["f"], atol=1e-12)
    assert view["bumps"].shape == (5, 200)
    assert view["x_t"] == X[4, 0] and view["y_t"] == y[4]
    # the newest bump's weight is 2 eta (y_t - f_{t-1}(x_t)), the older ones shrank by 1 - 2 eta lam
    assert view["alpha"][-1] == pytest.approx(2 * 0.3 * (y[4] - view["prediction"]))
    np.testing.assert_allclose(view["alpha"][:-1], 0.94 * L.step_view(path, 4)["alpha"])
    assert L.step_view(path, 0)["bumps"].shape == (0, 200)
    with pytest.raises(ValueError, match=r"t must be an integer step between 0 and 8; got t=9"):
        L.step_view(path, 9)


def test_budget_rows_are_cached_and_shrink_the_function():
    rows = L.budget_rows("oldest", "hinge", budgets=(5, 40), n=150, repeats=1)
    assert L.budget_rows("oldest", "hinge", budgets=(5, 40), n=150, repeats=1) is rows
    assert [r["budget"] for r in rows] == [5, 40, None]
    assert rows[0]["n_terms"] == 5 and rows[1]["n_terms"] <= 40
    assert rows[0]["score"] < rows[2]["score"]
    line = L.budget_line(rows[0], rows[2])
    assert line.startswith("budget 5: 5 bumps, test accuracy")


def test_with_hinge_and_a_constant_step_smallest_is_oldest():
    # every bump starts at |alpha| = eta and shrinks with age: the smallest is the oldest
    a = L.budget_rows("oldest", "hinge", budgets=(10,), n=120, repeats=1)
    b = L.budget_rows("smallest", "hinge", budgets=(10,), n=120, repeats=1)
    assert a[0]["score"] == b[0]["score"] and a[0]["online_mistakes"] == b[0]["online_mistakes"]
    c = L.budget_rows("oldest", "squared", budgets=(10,), n=120, repeats=1)
    d = L.budget_rows("smallest", "squared", budgets=(10,), n=120, repeats=1)
    assert c[0]["score"] != d[0]["score"]
    assert c[-1]["score"] < c[0]["score"]                   # squared loss: score is a test MSE


# --- the widgets, driven like a student would ---------------------------------

def test_stepper_widget_adds_bumps_as_t_moves():
    w = L.fgd_stepper_widget(n=10)
    assert set(w.controls) == {"t", "loss", "gamma", "eta", "lam"}
    assert w.result["t"] == 0 and len(w.result["alpha"]) == 0
    w.controls["t"].value = 1
    assert len(w.result["alpha"]) == 1                      # f_0 = 0: the first example is a margin error
    assert w.result["alpha"][0] == pytest.approx(0.5 * w.result["y_t"])
    assert "added +0.500" in w.result["figure"].axes[0].get_title() or "added -0.500" in w.result["figure"].axes[0].get_title()
    w.controls["t"].value = 10
    path = w.result["path"]
    assert len(w.result["alpha"]) == sum(path["added"]) < 10 + 1
    w.controls["loss"].value = "squared"
    assert len(w.result["alpha"]) == 10                     # the squared loss always adds a bump
    w.controls["lam"].value = 0.0
    assert w.result["path"]["shrink"] == [1.0] * 10
    assert plt.get_fignums() == []                          # figures pyplot never tracks


def test_stepper_widget_draws_the_bumps_of_step_t():
    w = L.fgd_stepper_widget(n=10)
    w.controls["t"].value = 4
    ax = w.result["figure"].axes[0]
    shown = [line for line in ax.lines[:10] if len(line.get_xdata())]
    assert len(shown) == len(w.result["alpha"])
    for line, bump in zip(shown, w.result["bumps"]):
        np.testing.assert_allclose(line.get_ydata(), bump, rtol=1e-12)
    np.testing.assert_allclose(ax.lines[10].get_ydata(), w.result["f"], rtol=1e-12)
    lo, hi = ax.get_ylim()                      # the range holds every step of the path
    assert lo <= min(f(w.result["grid"][:, None]).min() for f in w.result["path"]["functions"])
    assert hi >= max(f(w.result["grid"][:, None]).max() for f in w.result["path"]["functions"])


def test_budget_widget_follows_budget_and_rule(capsys):
    w = L.budget_widget(budgets=(5, 40), n=150)
    assert set(w.controls) == {"budget", "rule", "loss"}
    assert w.result["row"]["budget"] == 40
    w.controls["budget"].value = 0
    assert w.result["row"]["n_terms"] == 5
    # the readout's lines are wrapped between words; continuation lines start with two spaces
    out = capsys.readouterr().out.replace("\n  ", " ").splitlines()
    assert out[-1].startswith("budget 5: 5 bumps")
    ring = w.result["figure"].axes[0].lines[1]
    assert list(ring.get_xdata()) == [5] and list(ring.get_ydata()) == [w.result["row"]["score"]]
    w.controls["budget"].value = 2
    assert w.result["row"]["budget"] is None
    w.controls["loss"].value = "squared"                    # a new budget_tradeoff run, then the plot
    assert "mean squared error" in w.result["figure"].axes[0].get_ylabel()
    assert w.view.renders == 4
    assert_drawn(w.view.image.value)
    assert plt.get_fignums() == []


def test_bandwidth_widget_bias_against_variance():
    w = L.bandwidth_widget(gamma=0.3, n_datasets=10)
    wide = w.result
    w.controls["gamma"].value = 100.0
    narrow = w.result
    assert wide["bias2"] > 5 * narrow["bias2"]
    assert narrow["variance"] > 2 * wide["variance"]
    assert "gamma = 100" in narrow["figure"].axes[0].get_title()
    w.controls["lam"].value = 1.0                           # heavy regularisation: more bias again
    assert w.result["bias2"] > narrow["bias2"]
    assert plt.get_fignums() == []


@pytest.mark.parametrize("build, control, value", [
    (lambda: L.fgd_stepper_widget(n=10), "t", 4),
    pytest.param(lambda: L.fgd_stepper_widget(n=10), "gamma", 3.0, marks=pytest.mark.slow),
    pytest.param(lambda: L.fgd_stepper_widget(n=10), "loss", "squared", marks=pytest.mark.slow),
    pytest.param(lambda: L.budget_widget(budgets=(5, 40), n=150), "budget", 0, marks=pytest.mark.slow),
    (lambda: L.budget_widget(budgets=(5, 40), n=150), "rule", "smallest"),
    (lambda: L.bandwidth_widget(gamma=0.3, n_datasets=5), "gamma", 30.0),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    assert_redraw_shows_a_new_picture(build(), control, value)


def test_budget_widget_scales_follow_the_state_not_the_state_before(monkeypatch):
    # the ring of the state before once took part in the new autoscale: with the other rule's
    # prediction times far from this rule's, moving there and back left other limits (a flake
    # that depended on the measured times); here the other rule's times are made 100 x larger
    L.budget_widget(budgets=(5, 40), n=150)                 # fills the cache of both rules
    cache = dict(L._BUDGET_CACHE)
    for key, rows in cache.items():
        if key[0] == "smallest" and key[2] == (5, 40) and key[3] == 150:
            cache[key] = [dict(r, time_ratio=100 * r["time_ratio"]) for r in rows]
    monkeypatch.setattr(L, "_BUDGET_CACHE", cache)
    assert_redraw_shows_a_new_picture(L.budget_widget(budgets=(5, 40), n=150), "rule", "smallest")


def test_stepper_widget_moves_draw_no_whole_figure():
    # a new path (a parameter, the loss) redraws the layer of its vertical range and its
    # margins over the kept background; the figure is never drawn whole again (a new loss
    # once cleared and drew it anew: the slowest move of the widgets' benchmark)
    w = L.fgd_stepper_widget(loss="squared", n=12, gamma=1.0, eta=0.3, lam=0.05)
    draws = []
    draw = w.view.fig.canvas.draw
    w.view.fig.canvas.draw = lambda *a, **k: (draws.append(1), draw(*a, **k))
    for control, value in (("t", 12), ("loss", "hinge"), ("eta", 1.0), ("gamma", 10.0),
                           ("lam", 0.0), ("loss", "squared"), ("t", 0)):
        w.controls[control].value = value
    assert draws == [] and w.view.renders == 8
    margins = [line for line in w.view.axes.lines if line.get_linestyle() == "--"]
    assert len(margins) == 2 and not any(m.get_visible() for m in margins)   # squared: no margins


def test_budget_widget_moves_draw_no_whole_figure():
    # every run (rule, loss) has its figure drawn whole when the widget is built; a move, to
    # another run too, only redraws the rings and the title over it
    w = L.budget_widget(budgets=(5, 40), n=150)
    draws = count_whole_draws(w)
    for control, value in (("loss", "squared"), ("budget", 0), ("rule", "smallest"), ("loss", "hinge"),
                           ("budget", 2)):
        w.controls[control].value = value
        rows = L.budget_rows(w.controls["rule"].value, w.controls["loss"].value, (5, 40), 150)
        assert w.result["rows"] is rows
        ring = w.result["figure"].axes[1].lines[1]
        assert list(ring.get_ydata()) == [rows[w.controls["budget"].value]["time_ratio"]]
    assert draws == [] and w.view.renders == 6
    assert_same_as_drawn_anew(w, "budget none, smallest, hinge after the squared loss")
