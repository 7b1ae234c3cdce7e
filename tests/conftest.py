"""Shared test set-up: a non-interactive matplotlib backend and the repository root."""
from pathlib import Path

import IPython.display
import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """Close what a test left open in pyplot, so figures never pile up across tests."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def shown_pngs(monkeypatch):
    """The PNG bytes that widget callbacks display, in order.

    IPython's ``display`` is intercepted (outside a kernel a widget's Output
    captures nothing). Each image also prints "[png]", so captured stdout
    shows where it came among the printed lines.
    """
    pngs = []

    def display(*objs, **kwargs):
        for obj in objs:
            assert isinstance(obj, IPython.display.Image) and obj.format == "png", obj
            pngs.append(obj.data)
            print("[png]")

    monkeypatch.setattr(IPython.display, "display", display)
    return pngs


#: Test files in the order pytest-xdist should hand them out, the longest first (worker seconds
#: in a quiet full run), so that no long file is started last while the other worker idles; the
#: others follow in collection order. Only the schedule depends on this list (``tasks.py test``
#: passes ``--no-loadscope-reorder``, else xdist orders files by their number of tests);
#: ``tests/test_project.py`` checks that every entry names a file that exists.
LONGEST_FIRST = [
    "tests/test_browser.py",
    "tests/test_grading_verdicts.py",
    "tests/test_grading_isolation.py",
    "tests/test_grading_attacks.py",
    "tests/test_site.py",
    "tests/test_widgets_lecture2.py",
    "tests/test_grading_lms.py",
    "tests/test_fresh_clone.py",
    "tests/test_grading_pipeline.py",
    "tests/test_grading_verdicts_sets456.py",
    "tests/test_widgets_state.py",
    "tests/test_sklearn_contract.py",
    "tests/test_grading_lecture8.py",
    "tests/test_grading_handback.py",
    "notebooks/06_kernel_methods_at_scale.ipynb",
    "tests/test_grading_questions.py",
    "tests/test_exercise_quality.py",
    "tests/test_grading_command.py",
]


#: folders whose notebooks nbval re-runs only in the full run (a notebook's cells cannot carry a
#: marker): the exercise sets, about 4.5 s each, nearly all of it the kernel's start; the quick
#: loop grades them through the command instead (tests/test_grading_pipeline.py)
SLOW_NOTEBOOKS = ("exercises/",)


@pytest.hookimpl(tryfirst=True)        # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW_NOTEBOOKS) and item.nodeid.split("::", 1)[0].endswith(".ipynb"):
            item.add_marker(pytest.mark.slow)
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
