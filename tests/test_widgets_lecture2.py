"""Tests for lecture 2's widgets: the plain functions against the math, the controls driven from pytest."""
import numpy as np
import pytest

from kernelcourse import random_features as rf
from kernelcourse.sgd import WAYS, KernelSGD, predicted_cost
from kernelcourse.kernels import RBF
from kernelcourse.widgets import lecture2 as L
from widget_checks import assert_redraw_shows_a_new_picture


def test_rff_error_data_frequencies_sit_under_hoeffding():
    for paired in (False, True):
        data = L.rff_error_data(32, paired=paired, n_draws=2000)
        assert np.all(data["freq"] <= data["bound"])
        assert np.all(np.diff(data["freq"]) <= 0)                 # a tail probability
        assert data["freq"][0] == 1.0 and data["bound"].max() == 1.0
        assert data["K"] == pytest.approx(np.exp(-5.0 * 0.1525))
        # the estimate is unbiased, so its mean squared error is the variance formula
        assert data["var"] == pytest.approx(data["var_formula"], rel=0.1)
        assert data["bound"][30] == pytest.approx(min(1, 2 * np.exp(-32 * 0.09 / (4 if paired else 8))))


def test_max_error_curve_under_the_union_level_and_shrinking():
    curve = L.max_error_curve(False)
    assert list(curve["D"]) == list(L.D_CHOICES)
    assert np.all(curve["max_error"] < curve["union_level"])
    assert curve["max_error"][-1] < curve["max_error"][0] / 5
    assert curve["n_pairs"] == 40 * 41 // 2
    np.testing.assert_allclose(curve["union_level"], rf.union_error_level(curve["D"], 820, 0.05))


def test_rff_error_widget_follows_D_and_paired(capsys):
    w = L.rff_error_widget(D=64, n_draws=1000)
    assert set(w.controls) == {"D", "paired"}
    v64 = w.result["var"]
    w.controls["D"].value = 512
    assert w.result["D"] == 512
    assert w.result["var"] == pytest.approx(v64 / 8, rel=0.25)      # variance ~ 1 / D
    w.controls["paired"].value = True
    assert w.result["paired"] and w.result["var_formula"] < rf.rff_variance(w.result["K"], 512)
    out = capsys.readouterr().out
    assert "D for error <= 0.1 with probability 0.95: 1476" in out.replace("\n  ", " ")
    assert all(len(line) <= 88 for line in out.splitlines())      # wrapped between words
    assert len(w.result["figure"].axes) == 2


def test_cost_rows_measure_the_gram_matrix_growing_as_n_squared():
    rows = L.cost_rows("gram", "n", sizes=(400, 800, 1600), base=dict(n=0, d=4, D=10, T=500))
    assert np.all(rows["bytes"] >= 8 * rows["sizes"] ** 2)
    assert rows["bytes_exponent"] == pytest.approx(2.0, abs=0.25)
    assert rows["operations"][0] == predicted_cost("gram", 400, 4, 10, 500)[0]
    assert rows["memory"][0] == 8 * (400**2 + 400 * 4)
    with pytest.raises(ValueError, match="vary must be one of"):
        L.cost_rows("gram", "m")


def test_cost_widget_switches_way_and_size(capsys):
    w = L.cost_widget()
    w.costs.close()               # the pairs it moves to are measured here (the workers: below)
    assert set(w.controls) == {"way", "vary"}
    assert w.result["way"] == "gram" and w.result["vary"] == "n"
    w.controls["way"].value = "rff_cached"
    w.controls["vary"].value = "D"
    assert list(w.result["sizes"]) == list(L.COST_SIZES["D"])
    out = capsys.readouterr().out
    assert "6. cached random features, SGD on w: computation O(n d D + D T)" in out
    assert w.result["bytes_exponent"] > 0.7                          # n D grows with D


def test_plot_decision_draws_the_boundary():
    X = np.random.default_rng(0).uniform(size=(60, 2))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    model = KernelSGD(RBF(5.0), n_iter=600, random_state=0).fit(X, y)
    ax = L.plot_decision(model, X, y, resolution=30)
    assert len(ax.collections) >= 2 and ax.get_xlabel() == "$x_1$"


@pytest.mark.parametrize("build, control, value", [
    (L.rff_error_widget, "D", 256),
    (L.rff_error_widget, "paired", True),
    (L.cost_widget, "vary", "T"),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value):
    widget = build()
    if hasattr(widget, "costs"):  # measure the pair moved to here, not wait for the workers
        widget.costs.close()
        widget.costs.wait(timeout=60)
    assert_redraw_shows_a_new_picture(widget, control, value)


def test_cost_measurements_come_back_from_the_workers_whole():
    costs = L.CostMeasurements(first="kernel", vary="d")
    assert costs.wait(timeout=300)
    keys = {(w, v) for w in WAYS for v in L.COST_BASE}
    assert set(costs.measured) == keys and set(costs.pictures) == keys
    assert all(png.startswith(b"\x89PNG") for png in costs.pictures.values())
    assert len(costs.workers) == 2 and all(p.returncode == 0 for p in costs.workers)
    for (way, vary), rows in costs.measured.items():
        assert list(rows["sizes"]) == list(L.COST_SIZES[vary])
        size = dict(L.COST_BASE, **{vary: L.COST_SIZES[vary][-1]})   # the model: no measuring
        ops, mem = predicted_cost(way, **size)
        assert rows["operations"][-1] == ops and rows["memory"][-1] == 8 * (mem + size["n"] * size["d"])
        assert np.all(rows["seconds"] > 0) and np.all(rows["bytes"] > 0)


def test_cost_measurements_without_workers_measure_here(monkeypatch):
    import subprocess
    import sys

    real = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: real([sys.executable, "-c", "pass"], **k))
    costs = L.CostMeasurements(first="gram", vary="n")
    assert costs.wait(timeout=60)                      # the workers sent nothing and ended
    rows, png = costs.get("rff", "T")
    assert png is None and list(rows["sizes"]) == list(L.COST_SIZES["T"])

    def refuse(*a, **k):
        raise OSError("no processes here")
    monkeypatch.setattr(subprocess, "Popen", refuse)
    costs = L.CostMeasurements(first="gram", vary="n")
    assert costs.workers == [] and costs.wait(timeout=0)
    w = L.cost_widget()                                 # still works, drawing each new pair here
    w.controls["way"].value = "kernel"
    assert w.result["way"] == "kernel" and ("kernel", "n") in w.costs.pictures


def test_closed_cost_measurements_measure_the_rest_here():
    costs = L.CostMeasurements(first="gram", vary="n")
    costs.close()
    assert costs.wait(timeout=60) and all(p.returncode is not None for p in costs.workers)
    rows, _ = costs.get("kernel", "T")
    assert list(rows["sizes"]) == list(L.COST_SIZES["T"])


def test_cost_agreement_says_when_the_measurement_does_not_follow_the_model():
    from kernelcourse.widgets.lecture2 import cost_agreement

    far = {"seconds_exponent": 0.46, "operations_exponent": 1.53,
           "bytes_exponent": 0.0, "memory_exponent": 0.03}
    assert "does not follow the model for time (-1.07)" in cost_agreement(far)
    assert "memory" not in cost_agreement(far).split("caches")[0].split("for ")[1]
    near = {"seconds_exponent": 1.40, "operations_exponent": 1.53,
            "bytes_exponent": 1.99, "memory_exponent": 1.97}
    assert cost_agreement(near).startswith("here the measurement follows the model")
