"""Every lecture notebook as a student meets it: JupyterLab in headless Chromium.

For each lecture notebook ``notebooks/NN_*.ipynb`` but the start page (one test item each) the test opens a copy of
the notebook in JupyterLab, runs all cells from the Run menu, and checks that

* every cell ran and no output is an error, a traceback or a warning (stderr);
* every widget rendered: no "Loading widget..." and no "Error displaying widget";
* the first slider of every widget output moves with the arrow keys, and moving it
  changes something it drives (a plot, a printed readout, a label) and raises nothing;
  it is moved three times, each move timed from key press to new picture (the round
  trip, recorded in the summary, not asserted), then four times in quick succession,
  after which no plot may be blank or gone;

and saves a screenshot of the first widget per notebook into
``test-artifacts/screenshots/NOTEBOOK.png``, beside ``NOTEBOOK.txt`` saying what was
checked (widget views, sliders moved, round trips per move, seconds) and any problem found.

The browser is Debian's Chromium (``/usr/bin/chromium``), driven by Playwright;
no browser is downloaded. Without a Chromium the tests are skipped with the reason;
when the environment variable ``CI`` is set, a missing browser is a failure.
``KERNELCOURSE_CHROMIUM=/path/to/browser`` picks another Chromium-based browser.
A self-test runs the same checks over a deliberately broken notebook, so the
checks are shown to fail when they should.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from kernelcourse._execute import KERNEL_ENV
from browser_support import LabBrowser
from chromium_support import INSTALL_HINT, find_chromium, running_under_ci
from lab_server import LabServer

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
                   if not p.name.startswith("00_"))
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"

#: the kernels' environment: the one the notebooks are executed and compared in (BLAS on one
#: thread, so no BLAS threads spin against the notebook's own work and the tests beside it on
#: a busy machine; a fixed hash seed), except that lecture 2's cost widget keeps its real
#: workers, as a student's kernel does
LAB_KERNEL_ENV = {k: v for k, v in KERNEL_ENV.items() if k != "KERNELCOURSE_COST_PROCESSES"}

# slow too: each test drives JupyterLab for 15 to 70 s on a quiet machine, so the quick loop
# (`-m "not slow"`) leaves them to the full run
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _unavailable(request, reason: str):
    if running_under_ci():
        pytest.fail(f"browser test cannot run under CI: {reason}", pytrace=False)
    # pytest lists skip reasons only with -rs: say it on the terminal as well
    _announce(request, f"SKIPPED the browser test: {reason}")
    pytest.skip(f"browser test skipped: {reason}")


def _announce(request, text: str) -> None:
    """Print past pytest's output capture, so the line shows in a normal run."""
    capman = request.config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        print(text)
        return
    with capman.global_and_fixture_disabled():
        print(f"\n[browser] {text}", flush=True)


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    """One JupyterLab server and one Chromium page shared by this module's tests."""
    chromium = find_chromium()
    if chromium is None:
        where = os.environ.get("KERNELCOURSE_CHROMIUM") or "/usr/bin/chromium or on PATH"
        _unavailable(request, f"no Chromium at {where}; {INSTALL_HINT}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable(request, "the Python package playwright is missing; "
                     "`python3 tasks.py test` installs it with the test extra")
    workdir = tmp_path_factory.mktemp("jupyterlab")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    server = LabServer(NOTEBOOKS, workdir, env=LAB_KERNEL_ENV).launch()   # Chromium starts meanwhile
    try:
        with sync_playwright() as playwright:
            browser = LabBrowser(playwright, server, chromium, workdir / "chromium-profile")
            _announce(request, f"JupyterLab and Chromium ready in {time.monotonic() - started:.1f} s")
            try:
                yield browser
            finally:
                browser.close()
    finally:
        server.stop()
    _announce(request, f"screenshots (NOTEBOOK.png) and what was checked (NOTEBOOK.txt) "
                       f"in {SCREENSHOTS}")


def _record(report, path: Path) -> None:
    lines = [report.summary()] + [f"    PROBLEM {problem}" for problem in report.problems]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_notebook_runs_and_its_widgets_respond(lab, notebook):
    # one screenshot of the notebook, and one of each widget after its moves
    report = lab.exercise(notebook.name, SCREENSHOTS / f"{notebook.stem}.png",
                          widget_shots=SCREENSHOTS / f"{notebook.stem}_widget")
    _record(report, SCREENSHOTS / f"{notebook.stem}.txt")
    assert not report.problems, (f"{notebook.name} in JupyterLab:\n  - "
                                 + "\n  - ".join(report.problems))
    assert report.sliders >= 1, f"{notebook.name} shows no slider once run"
    assert any(m.changed for m in report.moves), report.summary()
    assert report.screenshot.stat().st_size > 10_000, "screenshot is (nearly) empty"


def _broken_notebook() -> dict:
    """One good slider, one slider that drives nothing, one whose callback raises,
    one whose plot comes out blank, one whose plot vanishes, and a widget view whose
    model does not exist."""
    cells = [
        "import ipywidgets as W\nimport matplotlib.pyplot as plt",
        "def draw(a=1.0):\n    plt.figure(figsize=(3, 2))\n    plt.plot([0, 1], [0, a])\n"
        "    plt.show()\nW.interact(draw, a=W.FloatSlider(value=1.0, min=0.0, max=2.0, step=0.5));",
        "W.IntSlider(value=2, max=9, description='idle')",
        "def boom(k=1):\n    if k > 1:\n        raise ValueError(f'no k above 1, got {k}')\n"
        "    print('k =', k)\nW.interact(boom, k=W.IntSlider(value=1, max=9));",
        "def empty(v=1):\n    print('v =', v)\n    plt.subplots(figsize=(2, 2))[1].axis('off')\n    plt.show()\n"
        "W.interact(empty, v=W.IntSlider(value=1, max=9));",
        "def vanish(m=1):\n    print('m =', m)\n    if m == 1:\n        plt.figure(figsize=(2, 2))\n"
        "        plt.plot([0, 1])\n        plt.show()\n"
        "W.interact(vanish, m=W.IntSlider(value=1, max=9));",
        "from IPython.display import display\ndisplay({'application/vnd.jupyter.widget-view+json':"
        " {'model_id': 'no-such-model', 'version_major': 2, 'version_minor': 0}}, raw=True)",
    ]
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": src,
                       "outputs": [], "execution_count": None} for i, src in enumerate(cells)]}


def test_the_checks_catch_a_broken_notebook(lab, tmp_path):
    name = "zz_broken_selftest.ipynb"
    (lab.server.root / name).write_text(json.dumps(_broken_notebook()))
    report = lab.exercise(name, tmp_path / "broken.png", move_timeout=3.0)
    by_label = {m.label: m for m in report.moves}
    assert by_label["a"].changed and by_label["a"].after == "1.50", report.summary()
    assert not by_label["idle"].changed, report.summary()
    problems = "\n".join(report.problems)
    assert "slider 'idle' from 2 to 3 changed no plot or readout" in problems
    assert re.search(r"ValueError: no k above 1, got \d", problems)
    assert "Error displaying widget" in problems
    assert "a plot is blank (an image of a single colour" in problems
    assert "moving slider 'm' from 1 to 2 left 0 plot(s) of 1" in problems
