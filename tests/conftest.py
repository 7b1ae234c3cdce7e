"""Shared test set-up: a non-interactive matplotlib backend and the repository root."""
import sys
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
    plt = sys.modules.get("matplotlib.pyplot")   # not imported: no pyplot figure can be open
    if plt is not None:
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
