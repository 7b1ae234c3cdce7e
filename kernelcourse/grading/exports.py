"""Exports for learning-management systems: a Canvas gradebook CSV, a Moodle grade-import CSV,
and a Gradescope autograder (the zip and the ``run_autograder`` it holds).

Formats, as each platform documents them:

* **Canvas** (Instructure, "How do I import grades in the Gradebook?", Canvas Instructor Guide):
  a CSV whose first columns are ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID`` and
  ``Section``, then one column per assignment headed ``Assignment Name (assignment id)``; Canvas
  matches students by ``ID`` (the Canvas user id, the roster's ``id``) and the assignment by the
  id in parentheses. :func:`canvas_csv`.
* **Moodle** (Moodle documentation, "Import grades", CSV file import; ``grade/import/csv`` in
  Moodle's source): a CSV with a header; on import the teacher maps one column to a user field
  ("Identify user by": email address, ID number or username) and the grade column to the grade
  item; an optional column maps to the item's feedback. :func:`moodle_csv` writes ``Full name``,
  ``Email address``, ``ID number``, the grade (headed by the assignment's name) and
  ``Feedback``.
* **Gradescope** (Gradescope, "Autograder Specifications", gradescope-autograders.readthedocs.io):
  a zip with ``setup.sh`` and ``run_autograder`` at its root; Gradescope unpacks it into
  ``/autograder/source``, puts the student's files in ``/autograder/submission`` and reads
  ``/autograder/results/results.json``: ``score``, ``output``, ``execution_time`` and ``tests``,
  each test with ``name``, ``score``, ``max_score``, ``output`` and ``visibility``.
  :func:`build_gradescope` writes the zip; its ``run_autograder`` calls
  ``python3 -m kernelcourse gradescope run``, which grades the submission with
  ``kernelcourse grade`` (the same sealed workers) and writes ``results.json``
  (:func:`gradescope_results`). The ``/autograder`` root can be moved with the environment
  variable ``KERNELCOURSE_AUTOGRADER_ROOT`` (to try the autograder locally).
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from pathlib import Path

__all__ = ["canvas_csv", "moodle_csv", "CANVAS_COLUMNS", "MOODLE_COLUMNS", "build_gradescope",
           "run_gradescope", "gradescope_results"]

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["Full name", "Email address", "ID number"]


def _cell(text) -> str:
    from .gradebook import _csv_cell

    return _csv_cell(text)


def _num(x) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _graded(rows, students: dict):
    """(student, row) for every matched row; the best row when a student sent several."""
    best: dict = {}
    for row in rows:
        student = students.get(row.file)
        if student is None:
            continue
        if student.id not in best or row.total > best[student.id][1].total:
            best[student.id] = (student, row)
    return list(best.values())


def canvas_csv(rows, students: dict, roster, assignment: str, assignment_id: str = "") -> str:
    """The Canvas gradebook CSV: one line per roster student (empty grade without a
    submission), the total in the column ``assignment (assignment_id)``."""
    column = f"{assignment} ({assignment_id})" if assignment_id else assignment
    graded = {s.id: row for s, row in _graded(rows, students)}
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*CANVAS_COLUMNS, column])
    for s in roster:
        row = graded.get(s.id)
        writer.writerow([_cell(s.name), _cell(s.id), _cell(s.get("sis_user_id")),
                         _cell(s.get("sis_login_id")), _cell(s.get("section")),
                         _num(row.total) if row is not None else ""])
    return buffer.getvalue()


def moodle_csv(rows, students: dict, roster, assignment: str, feedback_url: str = "") -> str:
    """The Moodle grade-import CSV: identify users by email address (or ID number), map the
    column ``assignment`` to the grade item and ``Feedback`` to its feedback."""
    graded = {s.id: row for s, row in _graded(rows, students)}
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*MOODLE_COLUMNS, assignment, "Feedback"])
    for s in roster:
        row = graded.get(s.id)
        if row is None:
            continue  # an empty cell would be imported as no change at best: leave them out
        lost = [q for q, p in row.points.items() if (row.feedback.get(q) or {}).get("status")
                != "passed"]
        note = (f"{_num(row.total)}/{_num(row.possible)} points"
                + (f"; to look at: {', '.join(lost)}" if lost else "; all questions passed")
                + (f"; details: {feedback_url}" if feedback_url else ""))
        writer.writerow([_cell(s.name), _cell(s.email), _cell(s.get("idnumber", s.id)),
                         _num(row.total), _cell(note)])
    return buffer.getvalue()


# --------------------------------------------------------------------------- Gradescope
_SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (Ubuntu).
set -euo pipefail
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv bubblewrap
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install /autograder/source/package
"""

_RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade /autograder/submission with kernelcourse's
# sealed grader and write /autograder/results/results.json.
set -uo pipefail
ROOT="${KERNELCOURSE_AUTOGRADER_ROOT:-/autograder}"
PYTHON="${KERNELCOURSE_PYTHON:-$ROOT/venv/bin/python}"
exec "$PYTHON" -m kernelcourse gradescope run --root "$ROOT"
"""


def build_gradescope(output, selection, *, seed=None, questions_from=None,
                     package_root=None) -> Path:
    """Write the Gradescope autograder zip to ``output``: ``setup.sh``, ``run_autograder``,
    ``config.json`` (the questions and the seed), the package's source under ``package/``
    and the instructors' question files under ``questions/``."""
    output = Path(output)
    root = Path(package_root) if package_root else Path(__file__).resolve().parents[2]
    config = {"questions": list(selection), "seed": seed,
              "questions_from": "questions" if questions_from else None}
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("setup.sh", _SETUP_SH), ("run_autograder", _RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            z.writestr(info, text)
        z.writestr("config.json", json.dumps(config, indent=1) + "\n")
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (root / name).exists():
                z.write(root / name, f"package/{name}")
        for path in sorted((root / "kernelcourse").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                z.write(path, f"package/{path.relative_to(root)}")
        if questions_from:
            for path in sorted(Path(questions_from).glob("*.py")):
                z.write(path, f"questions/{path.name}")
    os.replace(tmp, output)
    return output


def gradescope_results(row, registry, seconds: float) -> dict:
    """``results.json`` for one graded submission: one test per question."""
    from .feedback import _entries, _what

    tests = []
    for e in _entries(row, registry):
        lines = [_what(e)]
        if e["status"] == "failed" and e.get("detail"):
            lines.append(e["detail"])
        if e.get("diagnosis_message"):
            lines.append(f"Likely mistake: {e['diagnosis_message']}")
        if e["status"] != "passed" and e.get("hint"):
            lines.append(f"Hint: {e['hint']}")
        tests.append({"name": f"{e['id']} {e['title']}", "score": round(float(e["points"]), 4),
                      "max_score": float(e["possible"]), "output": "\n".join(lines),
                      "visibility": "visible"})
    other = [err for err in row.errors if not any(err.startswith(f"{q}:") for q in row.points)]
    return {"score": round(float(row.total), 4), "execution_time": round(seconds),
            "output": (f"{_num(row.total)}/{_num(row.possible)} points; cases drawn with seed "
                       f"{row.seed}." + ("\n" + "\n".join(other) if other else "")),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def run_gradescope(root=None) -> dict:
    """What ``run_autograder`` does: grade ``ROOT/submission`` and write
    ``ROOT/results/results.json`` (``ROOT`` is ``/autograder`` unless
    ``KERNELCOURSE_AUTOGRADER_ROOT`` or ``root`` says otherwise)."""
    from .grader import grade_paths
    from .questions import all_questions, use_questions_from

    start = time.monotonic()
    root = Path(root or os.environ.get("KERNELCOURSE_AUTOGRADER_ROOT", "/autograder"))
    source = root / "source"
    config = json.loads((source / "config.json").read_text())
    if config.get("questions_from"):
        use_questions_from(source / config["questions_from"])
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    notebooks = sorted((root / "submission").rglob("*.ipynb"))
    if not notebooks:
        data = {"score": 0.0, "output": "No notebook (*.ipynb) was submitted.", "tests": [],
                "visibility": "visible"}
    else:
        from .sealed.sandbox import SandboxUnavailable

        try:
            with tempfile.TemporaryDirectory() as out:
                kwargs = {"seed": config["seed"]} if config.get("seed") is not None else {}
                rows = grade_paths([str(notebooks[0])], output=out,
                                   selection=config["questions"], progress=False,
                                   stream=sys.stderr, jobs=1, **kwargs)
        except SandboxUnavailable as exc:  # never run a submission unsealed
            data = {"score": 0.0, "tests": [], "visibility": "visible",
                    "output": f"Not graded: the grader's sandbox cannot start here ({exc}). "
                              "Your instructor has been told; your submission is kept."}
            (results / "results.json").write_text(json.dumps(data, indent=1) + "\n")
            return data
        data = gradescope_results(rows[-1], all_questions(), time.monotonic() - start)
        if len(notebooks) > 1:
            data["output"] += (f"\nSeveral notebooks were submitted; {notebooks[0].name} "
                               f"was graded.")
    (results / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def unpack_for_test(zip_path, root) -> Path:
    """Unpack an autograder zip into ``root/source`` and copy ``run_autograder`` to
    ``root`` as Gradescope's image build does (to run the autograder locally)."""
    root = Path(root)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir(exist_ok=True)
    return root
