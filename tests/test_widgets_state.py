"""A widget's picture is a function of its controls' values, never of the history of moves,
and it is legible at the extremes of every control.

For every widget of every lecture (found by :func:`kernelcourse.widgets.widget_builders`,
so a new lecture's widgets join by themselves), one widget is moved control by control along
a path: each control in turn through its extremes (both ends of a slider, every option of a
selection, both states of a check box) with the others at their defaults, then back to its
default; then every control to a value inside its range (:func:`widget_paths.final_value`).
A fresh widget is moved straight to the same final values; both pictures must equal, up to
anti-aliasing, the fresh widget's figure drawn anew from scratch at those values (so a
background kept from an earlier state, as blitting keeps it, cannot hide in both). The
pictures after the moves are saved in ``test-artifacts/widget-states/``.

At each extreme of the path (issue 22: one control at an extreme, the others at their
defaults) the figure passes :func:`widget_checks.legibility_problems` and no line of the
printed readout is longer than the readout width (so the page never breaks inside a
number); so does the fresh widget at the final values. The pictures at the extremes are
saved in ``test-artifacts/widget-extremes/``.
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.widgets import READOUT_WIDTH, widget_builders

from widget_checks import legibility_problems
from widget_paths import extremes, final_value

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "test-artifacts" / "widget-states"
EXTREMES = ROOT / "test-artifacts" / "widget-extremes"

BUILDERS = widget_builders()


def _rgba(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=np.int16)


#: at most this many pixels may differ by more than :data:`LEVEL` of 255 in a channel:
#: anti-aliasing of an edge drawn over a kept background against one drawn anew (a stale
#: digit under a new one differs in about a hundred pixels, a moved curve in thousands)
PIXELS, LEVEL = 6, 48


def picture_difference(a: bytes, b: bytes) -> int:
    """How many pixels of two same-sized pictures differ by more than LEVEL in a channel."""
    A, B = _rgba(a), _rgba(b)
    if A.shape != B.shape:
        return A.size
    return int((np.abs(A - B).max(axis=-1) > LEVEL).sum())


def assert_same_picture(a: bytes, b: bytes, what: str) -> None:
    """Equal up to anti-aliasing (see PIXELS, LEVEL)."""
    assert _rgba(a).shape == _rgba(b).shape, f"{what}: the pictures differ in size"
    count = picture_difference(a, b)
    assert count <= PIXELS, f"{what}: {count} pixels differ from the picture drawn anew"


@pytest.fixture
def deterministic_costs(monkeypatch):
    """Lecture 2's cost widget draws measured times: here they are a fixed function of the
    sizes, measured in this process, so two widgets measure the same."""
    from kernelcourse import cost_model
    from kernelcourse.widgets import lecture2

    def fake_measure(way, repeats=1, clock="cpu", min_total=0.0, memory=True, **size):
        ops, mem = cost_model.predicted_cost(way, **size)
        return 1e-9 * ops + 1e-4, 8.0 * mem + 1000.0

    monkeypatch.setattr(cost_model, "measure_way", fake_measure)
    monkeypatch.setattr(lecture2, "DEFAULT_COST_PROCESSES", 0, raising=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BUILDERS))
def test_the_picture_depends_on_the_state_not_on_the_history(name, request):
    if name == "lecture2.cost_widget":
        request.getfixturevalue("deterministic_costs")
    build = BUILDERS[name]
    moved = build()
    defaults = {key: c.value for key, c in moved.controls.items()}
    finals = {key: final_value(c) for key, c in moved.controls.items()}
    illegible = {}
    EXTREMES.mkdir(parents=True, exist_ok=True)
    # the path: each control through its extremes, the others at their defaults (where the
    # picture must be legible), and back to its default
    for key, control in moved.controls.items():
        for value in extremes(control):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                control.value = value
            state = f"{key}={value}"
            (EXTREMES / f"{name}.{state}.png").write_bytes(moved.view.image.value)
            found = legibility_problems(moved.view.fig)
            found += [f"the readout line {line!r} is longer than {READOUT_WIDTH} characters"
                      for line in printed.getvalue().splitlines() if len(line) > READOUT_WIDTH]
            if found:
                illegible[state] = found
        with contextlib.redirect_stdout(io.StringIO()):
            control.value = defaults[key]
    assert {k: c.value for k, c in moved.controls.items()} == defaults
    for key, control in moved.controls.items():       # every control at its final value
        control.value = finals[key]
    fresh = build()
    for key, control in fresh.controls.items():
        control.value = finals[key]
    assert {k: c.value for k, c in moved.controls.items()} == \
        {k: c.value for k, c in fresh.controls.items()}
    moved_png, fresh_png = moved.view.image.value, fresh.view.image.value
    # the picture drawn from scratch at the final values: everything drawn anew, no
    # background kept from an earlier state
    drawn = fresh.view.render(full=True)
    OUT.mkdir(parents=True, exist_ok=True)
    for suffix, png in (("moved", moved_png), ("fresh", fresh_png), ("drawn", drawn)):
        (OUT / f"{name}.{suffix}.png").write_bytes(png)
    for w in (moved, fresh):
        if hasattr(w, "costs"):
            w.costs.close()
    assert_same_picture(moved_png, drawn, f"{name} moved along a path to {finals}")
    assert_same_picture(fresh_png, drawn, f"{name} moved straight to {finals}")
    # legible at every extreme and at the final values: fonts >= 9 pt, nothing clipped or
    # overlapping, every axis labelled, no legend over the data
    assert illegible == {}
    assert legibility_problems(fresh.view.fig) == []


def test_every_lecture_of_1_to_6_has_its_widgets_found():
    lectures = {name.split(".")[0] for name in BUILDERS}
    assert {f"lecture{i}" for i in range(1, 7)} <= lectures
    assert "lecture4.kernel_builder" in BUILDERS and "lecture6.kpca_gamma_widget" in BUILDERS
