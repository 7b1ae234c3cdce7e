"""Lecture 4's widgets, the kernel builder and the MAP fit in the dual: their logic, and the
widgets driven without a browser."""

import matplotlib.colors
import matplotlib.pyplot as plt
import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse.widgets import lecture4 as w4
from widget_checks import assert_drawn, assert_redraw_shows_a_new_picture


def _sq(X, Z):
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


X = np.random.default_rng(11).normal(size=(6, 2))
GAMMA, C = 0.7, 1.5

# what each rule should compute with k1 = RBF(GAMMA), k2 = linear, written out
RBF_K = np.exp(-GAMMA * _sq(X, X))
LIN_K = X @ X.T
F = np.cos(2 * X[:, 0]) + 0.5 * X[:, 1]
EXPECTED = {
    "k1": RBF_K,
    "scale": C * RBF_K,
    "sum": RBF_K + LIN_K,
    "product": RBF_K * LIN_K,
    "poly": 1 + C * RBF_K + RBF_K ** 2,
    "fscale": F[:, None] * RBF_K * F[None, :],
    "exp": np.exp(C * RBF_K),
    "bilinear": X @ w4.A_PSD @ X.T,
    "normalize": RBF_K,                          # RBF already has a unit diagonal
    "difference": RBF_K - LIN_K,
    "negative": -C * RBF_K,
    "negpoly": RBF_K ** 2 - C * RBF_K,
    "bilinear_bad": X @ np.diag([1.0, -1.0]) @ X.T,
}


@pytest.mark.parametrize("rule", sorted(w4.RULES))
def test_each_rule_computes_its_formula(rule):
    built = w4.build_kernel("rbf", "linear", rule, gamma=GAMMA, c=C)
    assert_allclose(built.func(X), EXPECTED[rule], rtol=1e-12, atol=1e-14)


def test_bases_compute_their_formulas():
    expected = {
        "linear": LIN_K,
        "rbf": RBF_K,
        "poly2": (LIN_K + 1) ** 2,
        "laplacian": np.exp(-GAMMA * np.abs(X[:, None, :] - X[None, :, :]).sum(-1)),
        "sigmoid": np.tanh(GAMMA * LIN_K - 1),
        "metric": np.sqrt(_sq(X, X)),
    }
    assert set(expected) == set(w4.BASES)
    for name, K in expected.items():
        built = w4.build_kernel(name, "linear", "k1", gamma=GAMMA)
        assert_allclose(built.func(X), K, rtol=1e-12, atol=1e-14, err_msg=name)
    assert np.all(np.diag(w4.build_kernel("metric", rule="k1").func(X)) == 0.0)


def test_normalising_rescales_to_a_unit_diagonal():
    built = w4.build_kernel("poly2", rule="normalize")
    K = built.func(X)
    P = (X @ X.T + 1) ** 2
    assert_allclose(K, P / np.sqrt(np.outer(np.diag(P), np.diag(P))), rtol=1e-12)
    assert_allclose(np.diag(K), 1.0)


@pytest.mark.parametrize("gamma", [0.05, 0.5, 3.0])
@pytest.mark.parametrize("n", [3, 15])
def test_whatever_the_rules_promise_is_psd(gamma, n):
    """The lecture's claim, swept: rules applied to kernels never give a non-PSD Gram matrix."""
    points = w4.demo_points(n, seed=n)
    promised = 0
    for b1 in w4.BASES:
        for b2 in w4.BASES:
            for rule in w4.RULES:
                built = w4.build_kernel(b1, b2, rule, gamma=gamma, c=0.8)
                if built.promised:
                    promised += 1
                    report = w4.gram_report(built, points)
                    assert report["psd"], (b1, b2, rule, report["verdict"])
    assert promised > 50


def test_promises_follow_the_bases_and_the_rules():
    assert w4.build_kernel("rbf", "laplacian", "product").promised
    assert not w4.build_kernel("sigmoid", "rbf", "sum").promised
    assert not w4.build_kernel("rbf", "metric", "sum").promised
    assert w4.build_kernel("rbf", "metric", "exp").promised          # k2 unused by exp(c k1)
    assert w4.build_kernel("metric", "metric", "bilinear").promised  # x^T A z ignores the bases
    for rule in ("difference", "negative", "negpoly", "bilinear_bad"):
        assert not w4.build_kernel("rbf", "rbf", rule).promised, rule


@pytest.mark.parametrize("base1, base2, rule", [
    ("metric", "linear", "k1"),
    ("sigmoid", "linear", "k1"),
    ("rbf", "linear", "negative"),
    ("linear", "linear", "bilinear_bad"),
    ("rbf", "linear", "difference"),
])
def test_non_kernels_are_caught(base1, base2, rule):
    points = w4.demo_points(20)
    report = w4.gram_report(w4.build_kernel(base1, base2, rule), points)
    assert report["psd"] is False
    assert report["min_eigenvalue"] < -1e-3
    assert report["verdict"].startswith("NOT PSD")
    idx, det = report["witness"]
    K_small = report["K"][np.ix_(idx, idx)]
    assert det == pytest.approx(np.linalg.det(K_small), rel=1e-10)
    assert det < 0 and len(idx) <= 3
    assert np.linalg.eigvalsh(K_small)[0] < 0


def test_metric_witness_is_two_points_with_det_minus_d_squared():
    report = w4.gram_report(w4.build_kernel("metric", rule="k1"), w4.demo_points(5))
    idx, det = report["witness"]
    assert len(idx) == 2
    P = w4.demo_points(5)[idx]
    d2 = np.sum((P[0] - P[1]) ** 2)
    assert det == pytest.approx(-d2, rel=1e-10)               # det [[0, d], [d, 0]] = -d^2


def test_smallest_negative_minor_on_known_matrices():
    assert w4.smallest_negative_minor(np.eye(4)) is None
    K = np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.9], [0.0, 0.9, 1.0]])  # 2x2 minors > 0, det < 0
    idx, det = w4.smallest_negative_minor(K)
    assert idx == [0, 1, 2]
    assert det == pytest.approx(1 - 2 * 0.81, rel=1e-12)
    assert w4.smallest_negative_minor(K, max_size=2) is None
    assert w4.smallest_negative_minor(np.diag([1.0, -2.0])) == ([1], -2.0)


def test_verdict_reports_psd_and_the_promise():
    report = w4.gram_report(w4.build_kernel("rbf", "linear", "sum"), w4.demo_points(10))
    assert report["psd"] is True and report["promised"] is True and report["witness"] is None
    assert report["verdict"].startswith("PSD on these 10 points")
    assert "rule 3 applied to valid kernels" in report["verdict"]
    assert_allclose(report["eigenvalues"], np.linalg.eigvalsh(report["K"]), atol=1e-10)


def test_a_kernel_that_cannot_be_evaluated_is_reported():
    report = w4.gram_report(w4.build_kernel("metric", rule="normalize"), w4.demo_points(4))
    assert report["K"] is None and report["psd"] is None
    assert report["verdict"].startswith("cannot evaluate this kernel: cannot normalise")


def test_bad_choices_raise():
    with pytest.raises(ValueError, match=r"base1 must be one of .*got base1='cosine'"):
        w4.build_kernel("cosine")
    with pytest.raises(ValueError, match=r"rule must be one of .*got rule='ratio'"):
        w4.build_kernel(rule="ratio")
    with pytest.raises(ValueError, match="gamma must be positive; got gamma=-1"):
        w4.build_kernel(gamma=-1)
    with pytest.raises(ValueError, match="c must be positive; got c=0"):
        w4.build_kernel(c=0)
    with pytest.raises(ValueError, match="n must be a positive integer; got n=0"):
        w4.demo_points(0)


def test_demo_points_are_seeded():
    assert_allclose(w4.demo_points(5, seed=3), np.random.default_rng(3).normal(size=(5, 2)))


def test_the_widget_updates_when_its_controls_change():
    widget = w4.kernel_builder(n=12)
    base1, base2, rule, gamma, c, n = widget.children[:6]
    widget.update()
    assert widget.result["psd"] is True
    assert widget.result["K"].shape == (12, 12)

    base1.value = "metric"
    rule.value = "k1"
    assert widget.result["psd"] is False
    assert widget.result["witness"] is not None

    base1.value = "rbf"
    rule.value = "product"
    base2.value = "laplacian"
    n.value = 7
    assert widget.result["psd"] is True and widget.result["K"].shape == (7, 7)
    gamma.value = 2.0
    expected = w4.build_kernel("rbf", "laplacian", "product", gamma=2.0, c=c.value)
    assert_allclose(widget.result["K"], expected.func(w4.demo_points(7)), rtol=1e-12)

    rule.value = "negative"
    assert widget.result["psd"] is False and widget.result["promised"] is False


def test_the_widget_redraws_its_one_figure_per_change():
    widget = w4.kernel_builder(n=12)
    base1, base2, rule, gamma, c, n = widget.children[:6]
    assert widget.children[6] is widget.view.image
    first, renders = widget.view.image.value, widget.view.renders
    assert_drawn(first)
    base1.value = "metric"
    rule.value = "k1"                                   # not PSD: red bars for negative eigenvalues
    assert widget.view.renders == renders + 2
    assert widget.view.image.value != first
    assert_drawn(widget.view.image.value)
    bars = [b for b in widget.result["figure"].axes[1].patches if b.get_visible()]
    eig = widget.result["eigenvalues"]
    assert_allclose([b.get_height() for b in bars], eig, rtol=1e-12)
    red = [matplotlib.colors.same_color(b.get_facecolor(), "tab:red") for b in bars]
    assert red == list(eig < -1e-9 * max(1.0, np.abs(eig).max())) and any(red)
    n.value = 5                                          # fewer points: fewer bars, a smaller matrix
    assert sum(b.get_visible() for b in widget.view.fig.axes[1].patches) == 5
    assert widget.view.fig.axes[0].images[0].get_array().shape == (5, 5)
    before = widget.view.image.value
    rule.value = "normalize"                            # ||x - x|| = 0: cannot be normalised
    assert widget.result["figure"] is None
    assert widget.view.image.value != before             # the picture says why, no stale matrix
    assert "cannot evaluate" in widget.view.fig.get_suptitle()
    assert not widget.view.fig.axes[0].get_visible()
    rule.value = "k1"
    assert widget.view.fig.axes[0].get_visible() and widget.result["figure"] is widget.view.fig
    shown = widget.view.image.value                      # the panels back, as drawn from scratch
    assert shown == widget.view.render(full=True)
    assert plt.get_fignums() == []                      # figures pyplot never tracks


def test_the_builder_moves_back_to_the_same_picture():
    widget = w4.kernel_builder(n=12)
    widget.controls = dict(zip(["base1", "base2", "rule", "gamma", "c", "n"], widget.children[:6]))
    assert_redraw_shows_a_new_picture(widget, "gamma", 3.0)


# --- 4.1-4.3: lambda against the primal and the dual MAP fits -------------------------------

def test_map_dual_points_are_seeded_and_shaped():
    X, y = w4.map_dual_points("linear")
    assert X.shape == (12, 2) and np.all(X[:, 1] == 1.0) and np.all(np.diff(X[:, 0]) >= 0)
    Xl, yl = w4.map_dual_points("logistic")
    assert Xl.shape == (40, 2) and set(np.unique(yl)) == {-1.0, 1.0}
    assert_allclose(w4.map_dual_points("logistic")[0], Xl)
    with pytest.raises(ValueError, match=r"model must be one of \['linear', 'logistic'\]; got model='svm'"):
        w4.map_dual_points("svm")


@pytest.mark.parametrize("lam", [0.1, 1.0, 10.0])
def test_map_linear_primal_and_dual_agree_with_a_direct_solve(lam):
    X, y = w4.map_dual_points("linear")
    sigma = 0.5
    data = w4.map_dual_data("linear", X, y, lam, sigma)
    # the MAP weights by the normal equations, written out
    w = np.linalg.solve(X.T @ X + (sigma ** 2 / lam ** 2) * np.eye(2), X.T @ y)
    assert_allclose(data["w"], w, rtol=1e-10)
    # alpha from the Gram matrix alone, and the residual form of lecture 4.1, by a loop
    alpha = np.linalg.solve(X @ X.T + (sigma ** 2 / lam ** 2) * np.eye(len(y)), y)
    assert_allclose(data["alpha"], alpha, rtol=1e-8, atol=1e-10)
    residual_form = [(lam ** 2 / sigma ** 2) * (y[i] - w @ X[i]) for i in range(len(y))]
    assert_allclose(data["alpha_identity"], residual_form, rtol=1e-8, atol=1e-10)
    assert_allclose(data["w_from_alpha"], w, rtol=1e-8)
    assert data["max_difference"] < 1e-8 * max(1.0, lam ** 2)
    assert data["weight"] == pytest.approx(lam ** 2 / sigma ** 2)


def test_map_linear_fit_shrinks_to_zero_as_lambda_shrinks():
    X, y = w4.map_dual_points("linear")
    norms = [np.linalg.norm(w4.map_dual_data("linear", X, y, lam)["w"]) for lam in (0.01, 0.1, 1.0, 10.0)]
    assert all(a < b for a, b in zip(norms, norms[1:]))
    assert norms[0] < 0.01 * norms[-1]
    ls = np.linalg.lstsq(X, y, rcond=None)[0]            # a weak prior: least squares
    assert_allclose(w4.map_dual_data("linear", X, y, 1e3)["w"], ls, rtol=1e-5)


@pytest.mark.parametrize("lam", [0.1, 1.0, 5.0])
def test_map_logistic_alpha_is_lambda_squared_y_one_minus_p(lam):
    X, y = w4.map_dual_points("logistic")
    data = w4.map_dual_data("logistic", X, y, lam)
    w = data["w"]
    # w is the minimiser: the gradient of sum log(1 + exp(-y w.x)) + w.w / (2 lam^2) vanishes
    grad = sum(-y[i] * X[i] / (1 + np.exp(y[i] * (w @ X[i]))) for i in range(len(y))) + w / lam ** 2
    assert np.abs(grad).max() < 1e-8
    P = np.array([1 / (1 + np.exp(-y[i] * (w @ X[i]))) for i in range(len(y))])
    assert_allclose(data["P"], P, rtol=1e-12)
    assert_allclose(data["alpha"], lam ** 2 * y * (1 - P), rtol=1e-10)
    assert_allclose(data["w_from_alpha"], w, rtol=1e-7, atol=1e-9)   # w = sum_i alpha_i x_i
    assert np.all(data["alpha"] != 0)                                # 1 - P is never 0
    assert data["accuracy"] == pytest.approx(np.mean(np.sign(X @ w) == y))


def test_map_dual_data_rejects_bad_input():
    X, y = w4.map_dual_points("linear")
    with pytest.raises(ValueError, match="lam must be positive; got lam=0"):
        w4.map_dual_data("linear", X, y, 0.0)
    with pytest.raises(ValueError, match="sigma must be positive; got sigma=-1"):
        w4.map_dual_data("linear", X, y, 1.0, sigma=-1)
    with pytest.raises(ValueError, match=r"model must be one of"):
        w4.map_dual_data("ridge", X, y, 1.0)


def test_map_dual_widget_follows_lambda_and_the_model(capsys):
    w = w4.map_dual_widget()
    assert set(w.controls) == {"model", "log_lam"}
    X, y = w4.map_dual_points("linear")
    w.controls["log_lam"].value = 1.0
    assert_allclose(w.result["w"], w4.map_dual_data("linear", X, y, 10.0)["w"], rtol=1e-12)
    left, right = w.result["figure"].axes
    # the two fitted lines are the primal and the dual prediction, on top of each other
    primal, dual_line = left.lines[:2]
    assert_allclose(primal.get_ydata(), dual_line.get_ydata(), rtol=1e-8, atol=1e-10)
    G = np.column_stack([primal.get_xdata(), np.ones(len(primal.get_xdata()))])
    assert_allclose(primal.get_ydata(), G @ w.result["w"], rtol=1e-12)
    top = np.abs(w.result["alpha"]).max()
    assert_allclose([b.get_height() for b in right.patches], w.result["alpha"] / top, rtol=1e-12)
    assert "lambda = 10" in left.get_title()
    w.controls["model"].value = "logistic"
    Xl, yl = w4.map_dual_points("logistic")
    assert_allclose(w.result["alpha"], w4.map_dual_data("logistic", Xl, yl, 10.0)["alpha"], rtol=1e-12)
    assert len(w.result["figure"].axes[1].patches) == 40
    assert "none is 0" in capsys.readouterr().out
    assert plt.get_fignums() == []


@pytest.mark.parametrize("control, value", [("log_lam", 1.0), ("model", "logistic")])
def test_map_dual_widget_moves_redraw_in_place(control, value):
    assert_redraw_shows_a_new_picture(w4.map_dual_widget(), control, value)


def test_the_builder_draws_its_whole_figure_only_when_panels_come_or_go():
    # a move redraws the matrix, the colour bar, the bars and the eigenvalue axis over the
    # kept background (and the axes that follow the number of points when it changes); the
    # whole figure is drawn when the panels are hidden (no matrix) or shown again
    widget = w4.kernel_builder(n=12)
    base1, base2, rule, gamma, c, n = widget.children[:6]
    draws = []
    draw = widget.view.fig.canvas.draw
    widget.view.fig.canvas.draw = lambda *a, **k: (draws.append(1), draw(*a, **k))
    gamma.value, c.value, n.value, base2.value, rule.value = 3.0, 2.0, 30, "sigmoid", "product"
    assert draws == []
    base1.value, rule.value = "metric", "normalize"      # no matrix: the panels go
    rule.value = "k1"                                    # and come back
    assert draws == [1, 1]
