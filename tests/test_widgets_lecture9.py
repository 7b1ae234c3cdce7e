"""Lecture 9's widgets: the plain functions against the package's math, the sliders from pytest."""
import numpy as np
import pytest

from kernelcourse import mean_embeddings as me
from kernelcourse.kernels import RBF
from kernelcourse.widgets import lecture9 as L
from widget_checks import (assert_redraw_shows_a_new_picture, assert_same_as_drawn_anew,
                           count_whole_draws, legibility_problems)


def test_two_sample_state_is_the_test_of_the_moved_sample():
    x, z = L.two_sample_data(60)
    state = L.two_sample_state(x, z, shift=0.7, scale=1.5, n_permutations=50)
    X, Y = x[:, None], (0.7 + 1.5 * z)[:, None]
    gamma = me.pooled_median_gamma(X, Y)
    assert state["gamma"] == pytest.approx(gamma)
    assert state["statistic"] == pytest.approx(me.mmd2_biased(X, Y, RBF(gamma)), rel=1e-12)
    result = me.permutation_test(X, Y, RBF(gamma), n_permutations=50, estimator="biased", random_state=0)
    np.testing.assert_allclose(state["null"], result.null, rtol=1e-12)
    assert state["p_value"] == result.p_value
    np.testing.assert_allclose(state["witness"], me.witness(X, Y, L.GRID[:, None], RBF(gamma)), rtol=1e-12)


def test_two_sample_widget_moves_and_stays_legible():
    w = L.two_sample_widget()
    assert_redraw_shows_a_new_picture(w, "shift", 2.0)        # moves there and back
    w.controls["shift"].value = 2.0
    assert w.result["p_value"] == pytest.approx(1 / 201)
    w.controls["shift"].value = 0.0
    w.controls["scale"].value = 1.0                      # the same law: no evidence
    assert w.result["p_value"] > 0.05
    assert legibility_problems(w.view.fig) == []


def test_power_curve_rises_then_falls_and_the_median_heuristic_sits_near_its_top():
    curve = L.power_curve()
    power = curve["power"]
    best = int(np.argmax(power))
    assert 0 < best < len(power) - 1
    assert power[best] > power[0] + 0.3 and power[best] > power[-1] + 0.2
    median = np.log10(curve["median_gamma"])
    near = np.abs(curve["log_gammas"] - median) <= 0.4
    assert power[near].max() >= power[best] - 0.15
    i = L._index(-1.0)
    np.testing.assert_allclose(curve["witnesses"][i],
                               me.witness(curve["X"], curve["Y"], L.GRID[:, None], RBF(10.0 ** L.LOG_GAMMAS[i])))


def test_bandwidth_widget_marks_the_power_at_the_slider():
    w = L.bandwidth_power_widget()
    assert_redraw_shows_a_new_picture(w, "log_gamma", 2.6)
    w.controls["log_gamma"].value = 2.6
    assert w.result["power"] == pytest.approx(L.power_curve()["power"][-1])


def test_independence_curve_p_value_grows_with_the_noise_while_correlation_stays_small():
    curve = L.independence_curve()
    p = curve["p_value"]
    assert p[0] == pytest.approx(1 / 200) and p[-1] > 0.05
    assert np.all(curve["abs_corr"] < 0.2)
    x, e = curve["x"], curve["e"]
    y = x**2 + curve["noises"][4] * e
    assert p[4] == me.hsic_test(x[:, None], y[:, None], n_permutations=199, random_state=0).p_value


def test_independence_widget_moves():
    w = L.independence_widget()
    assert_redraw_shows_a_new_picture(w, "noise", 1.5)
    w.controls["noise"].value = 1.5
    assert w.result["p_value"] > 0.05


def test_alt_texts_keep_the_tex_meaning():
    """The TeX of lecture 9's labels in plain words (it read "witness _X(t) - _Y(t)" and
    "_10gamma" before), and every widget's alt text free of TeX debris."""
    from kernelcourse.widgets import describe_figure, tex_to_plain

    assert tex_to_plain(r"witness $\hat\mu_X(t) - \hat\mu_Y(t)$") == "witness mu-hat_X(t) - mu-hat_Y(t)"
    assert tex_to_plain(r"$\log_{10}\gamma$") == "log10 gamma"
    assert tex_to_plain(r"$\log_{10}$ MMD$^2_b$") == "log10 MMD^2_b"
    assert tex_to_plain(r"$\lVert f\rVert \leq 1$, $\mathrm{HSIC}_b$") == "||f|| ≤ 1, HSIC_b"
    assert tex_to_plain(r"$\bar{x}$ and $\foo$") == "x-bar and foo"
    from kernelcourse.widgets import figure_alt

    text = figure_alt(L.two_sample_widget())
    assert "mu-hat_X(t) - mu-hat_Y(t)" in text and "log10 MMD^2_b" in text, text
    assert "\\" not in text and not any(w.startswith("_") for w in text.split()), text


def test_two_sample_limits_hold_every_point_and_bar_of_every_setting():
    x, z = L.two_sample_data(100)
    shifts, scales = np.round(np.arange(-2.0, 2.01, 0.1), 6), np.round(np.arange(0.3, 2.51, 0.1), 6)
    limits = L.two_sample_limits(x, z, shifts, scales)
    farthest, tallest = np.max(np.abs(x)), np.histogram(x, L.SAMPLE_BINS, density=True)[0].max()
    for shift in shifts:                              # the definition: every setting, one by one
        for scale in scales:
            y = shift + scale * z
            farthest = max(farthest, np.max(np.abs(y)))
            tallest = max(tallest, np.histogram(y, L.SAMPLE_BINS, density=True)[0].max())
    assert farthest + 0.5 <= limits["reach"] < farthest + 1.0
    assert 1.2 * tallest < limits["density"] <= 1.25 * tallest + 0.2
    # the widest setting decides: one draw's limits are narrower
    one = L.two_sample_limits(x, z, [0.5], [1.0])
    assert one["reach"] < limits["reach"] and one["density"] < limits["density"]


@pytest.mark.slow
def test_the_null_axis_holds_the_null_of_every_setting():
    x, z = L.two_sample_data(100)
    tallest = 0
    for shift in np.round(np.arange(-2.0, 2.01, 0.1), 6):
        for scale in np.round(np.arange(0.3, 2.51, 0.1), 6):
            tallest = max(tallest, L._log_counts(L.two_sample_state(x, z, shift, scale)["null"]).max())
    assert 1.3 * tallest <= L.NULL_TOP


def test_two_sample_widget_after_a_move_from_an_extreme_is_its_state_drawn_anew():
    # the samples' axes hold every setting: a move from the widest (shift -2, scale 2.5) to
    # the narrowest changes no limit but the witness's, and draws no whole figure
    w = L.two_sample_widget()
    limits = [ax.get_xlim() for ax in w.view.fig.axes], w.view.fig.axes[0].get_ylim()
    draws = count_whole_draws(w)
    for control, value in (("shift", -2.0), ("scale", 2.5), ("scale", 0.3), ("shift", 0.0)):
        w.controls[control].value = value
        X, Y = w.result["X"][:, 0], w.result["Y"][:, 0]
        reach = w.view.fig.axes[0].get_xlim()[1]
        assert np.max(np.abs(np.r_[X, Y])) < reach
        assert w.view.fig.axes[1].get_ylim()[1] >= np.max(np.abs(w.result["witness"]))
    assert draws == []
    assert ([ax.get_xlim() for ax in w.view.fig.axes], w.view.fig.axes[0].get_ylim()) == limits
    assert_same_as_drawn_anew(w, "shift 0, scale 0.3 after the widest setting")
