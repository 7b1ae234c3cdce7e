"""The student workspace that ``python3 tasks.py lab`` opens: copies of the course, kept in
step with course updates without ever overwriting a student's edit, where every link works."""
import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
tasks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tasks)


def _notebook(path: Path, *sources, outputs=()):
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "execution_count": None,
              "outputs": list(outputs)} for s in sources]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    _notebook(root / "notebooks" / "01_a.ipynb", "x = 1")
    _notebook(root / "exercises" / "01_a.ipynb", "# ANSWER q1\ndef f():\n    pass")
    _notebook(root / "exercises" / "source" / "01_a.ipynb", "# solutions: never copied")
    return root, tmp_path / "workspace"


def test_first_launch_copies_lectures_and_exercises_but_not_the_solutions(course):
    root, ws = course
    report = tasks.sync_workspace(ws, root)
    assert sorted(report["copied"]) == ["exercises/01_a.ipynb", "notebooks/01_a.ipynb"]
    assert (ws / "notebooks" / "01_a.ipynb").read_bytes() == \
        (root / "notebooks" / "01_a.ipynb").read_bytes()
    assert not (ws / "exercises" / "source").exists()
    # a second launch with nothing new does nothing
    assert tasks.sync_workspace(ws, root) == {"copied": [], "refreshed": [],
                                              "updated_beside": [], "kept": []}


def test_an_update_brings_new_files_and_refreshes_unedited_ones_only(course):
    root, ws = course
    tasks.sync_workspace(ws, root)
    # the student runs the lecture (outputs saved: not an edit) and answers the exercise
    _notebook(ws / "notebooks" / "01_a.ipynb", "x = 1",
              outputs=[{"output_type": "stream", "name": "stdout", "text": "ran\n"}])
    answer = "# ANSWER q1\ndef f():\n    return 42"
    _notebook(ws / "exercises" / "01_a.ipynb", answer)
    mine = (ws / "exercises" / "01_a.ipynb").read_bytes()
    # the course changes both files and adds a lecture
    _notebook(root / "notebooks" / "01_a.ipynb", "x = 2")
    _notebook(root / "exercises" / "01_a.ipynb", "# ANSWER q1\ndef f():\n    pass  # new hint")
    _notebook(root / "notebooks" / "02_b.ipynb", "y = 1")
    report = tasks.sync_workspace(ws, root)
    assert report["copied"] == ["notebooks/02_b.ipynb"]
    assert report["refreshed"] == ["notebooks/01_a.ipynb"]
    assert report["updated_beside"] == ["exercises/01_a.updated.ipynb"]
    assert (ws / "notebooks" / "01_a.ipynb").read_bytes() == \
        (root / "notebooks" / "01_a.ipynb").read_bytes()
    assert (ws / "exercises" / "01_a.ipynb").read_bytes() == mine, "the student's edit is kept"
    assert (ws / "exercises" / "01_a.updated.ipynb").read_bytes() == \
        (root / "exercises" / "01_a.ipynb").read_bytes()
    # listed once, not on every launch; the edit is still never touched
    again = tasks.sync_workspace(ws, root)
    assert again["updated_beside"] == [] and again["refreshed"] == []
    assert (ws / "exercises" / "01_a.ipynb").read_bytes() == mine
    # a further course change is offered again
    _notebook(root / "exercises" / "01_a.ipynb", "# ANSWER q1\ndef f():\n    pass  # v3")
    assert tasks.sync_workspace(ws, root)["updated_beside"] == ["exercises/01_a.updated.ipynb"]
    assert (ws / "exercises" / "01_a.ipynb").read_bytes() == mine


def test_an_edited_copy_with_an_unchanged_course_is_kept_and_a_deleted_one_comes_back(course):
    root, ws = course
    tasks.sync_workspace(ws, root)
    _notebook(ws / "notebooks" / "01_a.ipynb", "x = 'mine'")
    report = tasks.sync_workspace(ws, root)
    assert report["kept"] == ["notebooks/01_a.ipynb"] and report["updated_beside"] == []
    (ws / "exercises" / "01_a.ipynb").unlink()
    assert tasks.sync_workspace(ws, root)["copied"] == ["exercises/01_a.ipynb"]


def test_syncing_leaves_the_course_files_untouched(course):
    root, ws = course
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    tasks.sync_workspace(ws, root)
    _notebook(ws / "notebooks" / "01_a.ipynb", "x = 'mine'")
    tasks.sync_workspace(ws, root)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


_LINK = re.compile(r"\]\(([^)\s]+)\)|href=[\"']([^\"']+)[\"']")


def _relative_links(notebook: Path):
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for a, b in _LINK.findall("".join(cell["source"])):
            target = (a or b).split("#")[0]
            if target and not re.match(r"^[a-z]+:", target):
                yield target


def test_every_link_of_the_start_page_resolves_in_the_workspace(tmp_path):
    ws = tmp_path / "workspace"
    tasks.sync_workspace(ws, ROOT)
    start = ws / "notebooks" / "00_start_here.ipynb"
    links = list(_relative_links(start))
    assert any(t.endswith(".ipynb") and t.startswith("../exercises/") for t in links)
    missing = [t for t in links if not (start.parent / t).resolve().exists()]
    assert missing == [], f"links of the start page that do not resolve in the workspace: {missing}"
    # and every notebook-to-notebook link anywhere in the workspace
    broken = [(nb.name, t) for nb in ws.rglob("*.ipynb") for t in _relative_links(nb)
              if t.endswith(".ipynb") and not (nb.parent / t).resolve().exists()]
    assert broken == []


def test_lab_opens_the_workspace_and_its_settings_silence_the_news():
    source = (ROOT / "tasks.py").read_text()
    assert "root_dir={WORKSPACE}" in source
    assert tasks.LAB_OVERRIDES["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert "/workspace/" in (ROOT / ".gitignore").read_text().split()
