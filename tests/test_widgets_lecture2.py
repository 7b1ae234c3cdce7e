"""Tests for lecture 2's widgets: the plain functions against the math, the controls driven from pytest."""
import numpy as np
import pytest

from kernelcourse import cost_model, random_features as rf
from kernelcourse.cost_model import predicted_cost
from kernelcourse.sgd import WAYS, KernelSGD
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
    assert rows["fixed"] == dict(d=4, D=10, T=500) and rows["fitted"].all()
    assert np.all(rows["bytes"] >= 8 * rows["sizes"] ** 2)
    assert rows["bytes_exponent"] == pytest.approx(2.0, abs=0.25)
    assert rows["operations"][0] == predicted_cost("gram", 400, 4, 10, 500)[0]
    assert rows["memory"][0] == 8 * (400**2 + 400 * 4)
    with pytest.raises(ValueError, match="vary must be one of"):
        L.cost_rows("gram", "m")
    with pytest.raises(ValueError, match="way must be one of"):
        L.cost_rows("grams", "n")
    with pytest.raises(ValueError, match="fit must be between 2"):
        L.cost_rows("gram", "n", sizes=(400, 800), fit=3)


def test_every_pair_has_a_plan_of_five_doubling_sizes():
    assert set(L.COST_PLANS) == {(w, v) for w in WAYS for v in L.COST_VARIES}
    for (way, vary), (fixed, sizes) in L.COST_PLANS.items():
        assert set(fixed) | {vary} == {"n", "d", "D", "T"} and vary not in fixed
        assert len(sizes) == 5 and all(b == 2 * a for a, b in zip(sizes, sizes[1:]))
        # over the fitted sizes the model's own exponent is near a whole number: one term of
        # the formula dominates there, the one the plan means to show
        ops = [predicted_cost(way, **dict(fixed, **{vary: s}))[0] for s in sizes[-L.COST_FIT:]]
        p = np.polyfit(np.log(sizes[-L.COST_FIT:]), np.log(ops), 1)[0]
        assert abs(p - round(p)) < 0.05, (way, vary, p)


@pytest.fixture
def timings_with_a_fixed_cost(monkeypatch):
    """Measured times made of a fixed cost of 1 ms plus 1 ns per operation of the model, and
    the model's memory plus 1 kB: the small sizes are then dominated by the fixed cost."""

    def fake(way, repeats=1, clock="cpu", min_total=0.0, memory=True, **size):
        ops, mem = cost_model.predicted_cost(way, **size)
        return 1e-3 + 1e-9 * ops, 8.0 * (mem + size["n"] * size["d"]) + 1000.0

    monkeypatch.setattr(cost_model, "measure_way", fake)


def test_cost_rows_fit_the_exponents_over_the_largest_sizes_only(timings_with_a_fixed_cost, monkeypatch):

    rows = L.cost_rows("gram", "n")
    sizes = np.array(L.cost_plan("gram", "n")[1], dtype=float)
    assert list(rows["sizes"]) == list(sizes)
    assert list(rows["fitted"]) == [False, False, True, True, True]
    top = slice(2, None)
    assert rows["seconds_exponent"] == pytest.approx(cost_model.growth_exponent(sizes[top], rows["seconds"][top]))
    assert rows["operations_exponent"] == pytest.approx(cost_model.growth_exponent(sizes[top], rows["operations"][top]))
    assert rows["seconds_exponent_all"] == pytest.approx(cost_model.growth_exponent(sizes, rows["seconds"]))
    # the fixed cost flattens the small sizes, not the fitted ones
    assert abs(rows["seconds_exponent"] - rows["operations_exponent"]) < 0.2
    assert rows["seconds_exponent_all"] < rows["seconds_exponent"] - 0.3
    # the model's line meets the measurement over the fitted sizes (a constant factor, fitted
    # there), and lies below it where the fixed cost weighs
    ratio = rows["seconds"] / rows["time_model"]
    assert np.exp(np.mean(np.log(ratio[top]))) == pytest.approx(1.0)
    assert np.allclose(rows["time_model"] / rows["operations"], rows["time_model"][0] / rows["operations"][0])
    assert ratio[0] > 1.5
    # whatever is measured at the smaller sizes does not move the fitted exponents
    real = cost_model.measure_way

    def wild_below(way, **kw):
        t, m = real(way, **kw)
        return (t * 50.0, m * 7.0) if kw["n"] < sizes[2] else (t, m)
    monkeypatch.setattr(cost_model, "measure_way", wild_below)
    wild = L.cost_rows("gram", "n")
    for key in ("seconds_exponent", "bytes_exponent"):
        assert wild[key] == pytest.approx(rows[key])
    assert wild["seconds_exponent_all"] != pytest.approx(rows["seconds_exponent_all"])


def test_cost_rows_time_the_sizes_in_rounds_and_trace_memory_once(monkeypatch):
    """A load that lasts the first round slows every size alike, and the later rounds' best
    runs are kept: the measured exponents are the clean ones. Memory is traced in the first
    round only."""

    calls = []

    def loaded_at_first(way, repeats=1, clock="cpu", min_total=0.0, memory=True, **size):
        calls.append((size["n"], memory))
        ops, mem = cost_model.predicted_cost(way, **size)
        slow = 4.0 if len(calls) <= 5 else 1.0
        return slow * 1e-9 * ops, (8.0 * mem if memory else None)

    monkeypatch.setattr(cost_model, "measure_way", loaded_at_first)
    rows = L.cost_rows("kernel", "n", repeats=3)
    sizes = list(L.cost_plan("kernel", "n")[1])
    assert [n for n, _ in calls] == sizes * 3                     # round by round
    assert [n for n, memory in calls if memory] == sizes          # memory: the first round only
    assert np.allclose(rows["seconds"], 1e-9 * rows["operations"])
    assert rows["seconds_exponent"] == pytest.approx(rows["operations_exponent"])
    assert np.all(rows["bytes"] > 0)


def test_plot_cost_draws_the_model_beside_the_measurement(timings_with_a_fixed_cost):
    from kernelcourse.widgets import new_figure
    from widget_checks import legibility_problems

    for way, vary in L.COST_PLANS:
        rows = L.cost_rows(way, vary)
        fig, axes = new_figure(1, 2, figsize=L.COST_FIGSIZE)
        fig.subplots_adjust(**L.COST_MARGINS)
        L.plot_cost(rows, axes=axes)
        for ax, measured, model in [(axes[0], rows["seconds"], rows["time_model"]),
                                    (axes[1], rows["bytes"], rows["memory_model"])]:
            every, fitted, line = ax.lines
            assert list(every.get_xdata()) == list(rows["sizes"])
            assert list(every.get_ydata()) == list(measured)
            assert list(fitted.get_xdata()) == list(rows["sizes"][-3:])
            assert list(line.get_xdata()) == list(rows["sizes"])
            assert np.allclose(line.get_ydata(), model) and line.get_linestyle() == "--"
            assert [t.get_text() for t in ax.get_legend().get_texts()] == \
                ["measured", "sizes fitted", "cost model, scaled"]
        assert axes[0].get_title().startswith(f"{way}: time slope ")
        assert f"(model {rows['operations_exponent']:.2f})".replace("-0.00", "0.00") in axes[0].get_title()
        assert axes[0].get_xlabel().startswith(f"{vary}   (")
        # legible: nothing clipped, no legend over the data
        assert legibility_problems(fig) == [], (way, vary)
        # a log axis spanning more than a decade shows at least two tick labels (of the
        # draw legibility_problems made)
        for ax in axes:
            low, high = ax.get_ylim()
            ticks = [t for t in ax.get_yticklabels() if low <= t.get_position()[1] <= high]
            shown = [t.get_text() for t in ticks if t.get_text()]
            assert high / low > 10 and len(shown) >= 2, (way, vary, shown)
            assert len(shown) == len(ticks), (way, vary, "a major tick without its label")


def test_cost_widget_switches_way_and_size(capsys):
    w = L.cost_widget()
    w.costs.close()               # the pairs it moves to are measured here (the workers: below)
    assert set(w.controls) == {"way", "vary"}
    assert w.result["way"] == "gram" and w.result["vary"] == "n"
    w.controls["way"].value = "rff_cached"
    w.controls["vary"].value = "D"
    assert list(w.result["sizes"]) == list(L.cost_plan("rff_cached", "D")[1])
    out = capsys.readouterr().out
    assert "6. cached random features, SGD on w: computation O(n d D + D T)" in out
    assert "varying D over [500, 1000, 2000, 4000, 8000], with n = 400, d = 8, T = 200" in out
    assert "fitted over D = 2000 to 8000: time ~ D^" in out
    assert w.result["bytes_exponent"] > 0.7                          # n D grows with D


def test_plot_decision_draws_the_boundary():
    X = np.random.default_rng(0).uniform(size=(60, 2))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    model = KernelSGD(RBF(5.0), n_iter=600, random_state=0).fit(X, y)
    ax = L.plot_decision(model, X, y, resolution=30)
    assert len(ax.collections) >= 2 and ax.get_xlabel() == "$x_1$"


@pytest.fixture(scope="module")
def rff_widget():
    """One error widget for the moves below (each moves a control and back): its build draws
    the errors of every D and both maps."""
    return L.rff_error_widget()


@pytest.mark.parametrize("build, control, value", [
    ("rff_error_widget", "D", 256),
    pytest.param("rff_error_widget", "paired", True, marks=pytest.mark.slow),
    ("cost_widget", "vary", "T"),
])
def test_each_move_redraws_the_one_figure_in_place(build, control, value, request):
    if build == "cost_widget":
        # what is drawn is what a move is about: the times are injected, measured here (the
        # measuring, in this process and in the workers, is tested above and below)
        request.getfixturevalue("timings_with_a_fixed_cost")
        widget = L.cost_widget(processes=0)
    else:
        widget = request.getfixturevalue("rff_widget")
    assert_redraw_shows_a_new_picture(widget, control, value)


#: pairs measured for real in the workers' test: every way and every varied size among them
#: (the first measured in this process, the others split between the two workers)
WORKER_PAIRS = [("kernel", "d"), ("gram", "n"), ("features", "D"), ("rff", "T"),
                ("cached_features", "n"), ("rff_cached", "T")]


@pytest.mark.slow
def test_cost_measurements_come_back_from_the_workers_whole():
    """Pairs measured for real, in the widget's two workers (each sending several, every way
    and every varied size among them): each comes back whole, on the sizes of its plan, with
    the model's operations and memory beside the measured times and bytes. That the widget
    hands every one of the 24 pairs to its workers is asserted below, with workers that
    measure nothing. How close the measured time exponents come to the model's depends on
    what else the machine runs, so it is a benchmark (``python3 tasks.py bench
    cost_exponents``), not a verdict here; the fit itself is tested on injected timings above."""
    assert {w for w, _ in WORKER_PAIRS} == set(WAYS) and {v for _, v in WORKER_PAIRS} == set(L.COST_VARIES)
    costs = L.CostMeasurements(first="kernel", vary="d", pairs=WORKER_PAIRS)
    assert costs.wait(timeout=1800)
    keys = set(WORKER_PAIRS)
    assert set(costs.measured) == keys and set(costs.pictures) == keys
    assert all(png.startswith(b"\x89PNG") for png in costs.pictures.values())
    assert len(costs.workers) == 2 and all(p.returncode == 0 for p in costs.workers)
    for (way, vary), rows in costs.measured.items():
        fixed, sizes = L.cost_plan(way, vary)
        assert list(rows["sizes"]) == list(sizes) and rows["fitted"].dtype == bool
        size = dict(fixed, **{vary: sizes[-1]})                    # the model: no measuring
        ops, mem = predicted_cost(way, **size)
        assert rows["operations"][-1] == ops and rows["memory"][-1] == 8 * (mem + size["n"] * size["d"])
        assert np.all(rows["seconds"] > 0) and np.all(rows["bytes"] > 0)
        assert np.isfinite(rows["seconds_exponent"]) and np.isfinite(rows["operations_exponent"])
    rows, png = costs.get("gram", "T")                  # a pair left out: measured here
    assert png is None and list(rows["sizes"]) == list(L.cost_plan("gram", "T")[1])


def test_cost_measurements_without_workers_measure_here(monkeypatch, timings_with_a_fixed_cost):
    # what the workers do not send is measured here: the times injected (the real measuring,
    # here and in the workers: test_cost_widget_switches_way_and_size, the workers' test)
    import json
    import subprocess
    import sys

    real = subprocess.Popen
    sent = []

    def sends_nothing(args, **k):
        sent.append([tuple(key) for key in json.loads(args[-1])])
        return real([sys.executable, "-c", "pass"], **k)
    monkeypatch.setattr(subprocess, "Popen", sends_nothing)
    costs = L.CostMeasurements(first="gram", vary="n")
    assert costs.wait(timeout=60)                      # the workers sent nothing and ended
    # every pair but the first was handed to one of the two workers, those of the same size first
    assert len(sent) == 2 and len(costs.workers) == 2
    assert sorted(sent[0] + sent[1]) == sorted(set(L.COST_PLANS) - {("gram", "n")})
    for keys in sent:
        varies = [v == "n" for _, v in keys]
        assert varies == sorted(varies, reverse=True) and varies[0]
    rows, png = costs.get("rff", "T")
    assert png is None and list(rows["sizes"]) == list(L.cost_plan("rff", "T")[1])
    with pytest.raises(ValueError, match=r"vary must be one of.*got vary='m'"):
        L.CostMeasurements(first="gram", vary="n", pairs=[("rff", "m")])
    with pytest.raises(ValueError, match=r"each of pairs must be a \(way, vary\) pair; got \('rff',\)"):
        L.CostMeasurements(first="gram", vary="n", pairs=[("rff",)])

    def refuse(*a, **k):
        raise OSError("no processes here")
    monkeypatch.setattr(subprocess, "Popen", refuse)
    costs = L.CostMeasurements(first="gram", vary="n")
    assert costs.workers == [] and costs.wait(timeout=0)
    w = L.cost_widget()                                 # still works, drawing each new pair here
    w.controls["way"].value = "kernel"
    assert w.result["way"] == "kernel" and ("kernel", "n") in w.costs.pictures


def test_closed_cost_measurements_measure_the_rest_here(timings_with_a_fixed_cost):
    costs = L.CostMeasurements(first="gram", vary="n")
    costs.close()
    assert costs.wait(timeout=60) and all(p.returncode is not None for p in costs.workers)
    rows, _ = costs.get("kernel", "T")
    assert list(rows["sizes"]) == list(L.cost_plan("kernel", "T")[1])


def test_cost_agreement_says_when_the_measurement_does_not_follow_the_model():
    from kernelcourse.widgets.lecture2 import cost_agreement

    fitted = np.array([False, False, True, True, True])
    far = {"seconds_exponent": 0.46, "operations_exponent": 1.53, "seconds_exponent_all": 0.3,
           "bytes_exponent": 0.0, "memory_exponent": 0.03, "fitted": fitted}
    assert "does not follow the model for time (-1.07), even over the 3 largest sizes" in cost_agreement(far)
    assert "memory" not in cost_agreement(far).split("even")[0]
    near = {"seconds_exponent": 1.90, "operations_exponent": 1.99, "seconds_exponent_all": 1.45,
            "bytes_exponent": 1.99, "memory_exponent": 1.97, "fitted": fitted}
    assert cost_agreement(near).startswith("here the measurement follows the model: over the 3 "
                                           "largest sizes both exponents are within 0.25")
    assert "over all sizes the time's is 1.45" in cost_agreement(near)
    flat = dict(near, seconds_exponent=0.02, operations_exponent=0.0, seconds_exponent_all=-0.3)
    assert cost_agreement(flat).endswith("within 0.25 of the model's")   # no flattening to explain


def test_the_environment_sets_how_many_workers_measure_ahead(monkeypatch, timings_with_a_fixed_cost):
    """The notebook executor (no reader, no moves) runs the cost widget with no workers: the
    pair it shows is measured at the build, any other when first shown."""
    from kernelcourse._execute import KERNEL_ENV

    assert KERNEL_ENV[L.COST_PROCESSES_VARIABLE] == "0"
    monkeypatch.delenv(L.COST_PROCESSES_VARIABLE, raising=False)
    assert L._cost_processes() == L.DEFAULT_COST_PROCESSES == 2 and L._cost_processes(1) == 1
    monkeypatch.setenv(L.COST_PROCESSES_VARIABLE, "two")
    with pytest.raises(ValueError, match="KERNELCOURSE_COST_PROCESSES must be a number.*'two'"):
        L.cost_widget()
    monkeypatch.setenv(L.COST_PROCESSES_VARIABLE, "0")
    assert L._cost_processes(3) == 3                    # an explicit argument wins
    w = L.cost_widget(way="kernel", vary="T")
    assert w.costs.workers == [] and w.costs.wait(timeout=0)
    assert set(w.costs.measured) == {("kernel", "T")}
    w.controls["vary"].value = "d"                      # measured here, when first shown
    assert set(w.costs.measured) == {("kernel", "T"), ("kernel", "d")}
    assert w.result["vary"] == "d" and ("kernel", "d") in w.costs.pictures
