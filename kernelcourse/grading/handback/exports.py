"""Exports for learning-management systems: a Canvas gradebook CSV, a Moodle grade-import CSV,
and a Gradescope autograder (the zip and the ``run_autograder`` it holds).

Formats, as each platform documents them:

* **Canvas** (Instructure, "How do I import grades in the Gradebook?", Canvas Instructor Guide):
  a CSV whose first columns are ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID`` and
  ``Section``, then one column per assignment headed ``Assignment Name (assignment id)``; Canvas
  matches students by ``ID`` (the Canvas user id, the roster's ``id``) and the assignment by the
  id in parentheses (a column without one makes a new assignment, so the id is required).
  :func:`canvas_csv`.
* **Moodle**: with Moodle's grading worksheet as the roster, :func:`moodle_csv` writes that
  worksheet back with ``Grade`` and ``Feedback comments`` filled in, every other column as it
  came (Moodle's upload, mod/assign/feedback/offline, reads ``Identifier``, ``Grade``, ``Last
  modified (grade)`` and the feedback column). Otherwise a grade-import CSV (Moodle
  documentation, "Import grades", CSV file: on import the teacher maps one column to a user
  field, "Identify user by" email address, ID number or username, the grade column to the grade
  item, and a column to its feedback): ``Full name``, ``Email address``, ``ID number`` and
  ``Username`` when the roster has Moodle's (never another platform's id), the grade (headed by
  the assignment's name) and ``Feedback``.
* Every field is quoted (a ``;``-splitting spreadsheet sees no split); free text that could
  pass for a formula starts with ``'`` (:func:`text_cell`); identifiers are exactly the
  roster's.
* **Gradescope** (Gradescope, "Autograder Specifications", gradescope-autograders.readthedocs.io):
  a zip with ``setup.sh`` and ``run_autograder`` at its root; Gradescope unpacks it into
  ``/autograder/source``, puts the student's files in ``/autograder/submission`` and reads
  ``/autograder/results/results.json``: ``score``, ``output``, ``execution_time`` and ``tests``,
  each test with ``name``, ``score``, ``max_score``, ``output`` and ``visibility``.
  :func:`build_gradescope` writes the zip, holding the instructor's grading secret (students
  never see the zip; each submission draws its own cases from it, a resubmission new ones); its
  ``setup.sh`` brings Python 3.11 on the default base image, Ubuntu 22.04 (Gradescope,
  "Base Images"), whose python3 is 3.10, as Gradescope advises ("Python 3 issues": an explicit
  Python beside the system's); its ``run_autograder`` calls
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
import re
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
MOODLE_COLUMNS = ["Full name", "Email address"]
#: Moodle's grading worksheet: the columns its upload reads (mod/assign/feedback/offline:
#: ``Identifier``, ``Grade``, ``Last modified (grade)`` and the feedback plugin's column).
MOODLE_WORKSHEET = ["Identifier", "Grade", "Last modified (grade)", "Feedback comments"]
#: The worksheet's columns written back exactly as they came: what the upload reads or
#: matches on, and the user identifiers. Every other column goes through :func:`text_cell`.
_MOODLE_EXACT = {"Identifier", "Grade", "Last modified (grade)", "Email address", "ID number",
                 "Username", "Maximum Grade"}


def text_cell(text) -> str:
    """A free-text CSV field (a name, a note, an error): control characters escaped, and a
    leading ``=``, ``+``, ``-``, ``@``, tab or carriage return neutralised with a ``'`` so that
    no spreadsheet, whatever its delimiter, takes it for a formula. Identifiers (ids, emails,
    SIS ids) are never passed through here: an LMS matches them exactly."""
    from ..intake.notebooks import clean_text

    text = clean_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _writer(buffer):
    """Every field quoted, so that a ``;`` or ``,`` inside one never splits it."""
    return csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")


def _num(x) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _graded(rows, students: dict):
    """``{student id: (student, row)}`` for the matched rows of students claimed by one file
    (``students`` is ``Matching.exported()``) that were graded: a file the run could not
    name or read exports no grade (not a 0), and the hand-back says so."""
    return {s.id: (s, row) for row in rows
            if (s := students.get(row.file)) is not None and row.possible > 0}


def canvas_column(assignment: str, assignment_id: str) -> str:
    """The header Canvas's import matches an existing assignment by: ``Name (id)``."""
    if not re.fullmatch(r"\d+", str(assignment_id or "")):
        raise ValueError(f"the Canvas export needs the assignment's Canvas id (a number; got "
                         f"{assignment_id!r}): Canvas matches the column 'Name (id)' to an "
                         f"assignment, and a column without the id makes a new assignment. "
                         f"Give --canvas-assignment-id, or use Canvas's gradebook export as the "
                         f"roster (its column '{assignment} (id)' gives the id)")
    return f"{assignment} ({assignment_id})"


def canvas_csv(rows, students: dict, roster, assignment: str, assignment_id: str = "",
               scores=None) -> str:
    """Canvas's gradebook import CSV: one line per roster student (an empty grade without
    a submission, which Canvas leaves unchanged), the score in ``assignment (assignment_id)``.
    ``scores`` maps a student id to the score to export (the late policy's), else the total."""
    column = canvas_column(assignment, assignment_id)
    graded = _graded(rows, students)
    buffer = io.StringIO()
    writer = _writer(buffer)
    writer.writerow([*CANVAS_COLUMNS, column])
    for s in roster:
        hit = graded.get(s.id)
        score = "" if hit is None else _num((scores or {}).get(s.id, hit[1].total))
        writer.writerow([text_cell(s.name), s.id, s.get("sis_user_id"), s.get("sis_login_id"),
                         text_cell(s.get("section")), score])
    return buffer.getvalue()


def _note(row, feedback_url="") -> str:
    lost = [q for q in row.points if (row.feedback.get(q) or {}).get("status") != "passed"]
    return (f"{_num(row.total)}/{_num(row.possible)} points"
            + (f"; to look at: {', '.join(lost)}" if lost else "; all questions passed")
            + (f"; details: {feedback_url}" if feedback_url else ""))


def moodle_csv(rows, students: dict, roster, assignment: str, feedback_url: str = "",
               scores=None) -> str:
    """Moodle's CSV: the grading worksheet filled in when the roster is that worksheet
    (upload it with "Upload grading worksheet"; Moodle matches ``Identifier``), else a
    grade-import CSV (Grades, Import, CSV file: identify users by ``Email address``, or by
    ``ID number`` / ``Username`` when the roster has those columns; map ``assignment`` to the
    grade item and ``Feedback`` to its feedback)."""
    graded = _graded(rows, students)
    buffer = io.StringIO()
    writer = _writer(buffer)
    if getattr(roster, "kind", "") == "moodle":
        header = list(roster.columns)
        where = {h: header.index(h) for h in MOODLE_WORKSHEET if h in header}
        missing = [h for h in MOODLE_WORKSHEET[:3] if h not in where]
        if missing:
            raise ValueError(f"the grading worksheet {roster.path} lacks the column(s) "
                             f"{', '.join(missing)} that Moodle's upload reads; download it "
                             f"again from the assignment's page")
        writer.writerow(header)
        for s in roster:
            cells = list(s.get("row", ())) + [""] * (len(header) - len(s.get("row", ())))
            hit = graded.get(s.id)
            if hit is not None:
                cells[where["Grade"]] = _num((scores or {}).get(s.id, hit[1].total))
                if "Feedback comments" in where:
                    cells[where["Feedback comments"]] = _note(hit[1], feedback_url)
            # every column but those Moodle matches or reads exactly is free text (the
            # student's own "Online text" too): no cell can pass for a formula
            writer.writerow([c if h in _MOODLE_EXACT else text_cell(c)
                             for h, c in zip(header, cells)])
        return buffer.getvalue()
    extra = [(c, k) for c, k in (("ID number", "idnumber"), ("Username", "username"))
             if any(s.get(k) for s in roster)]
    writer.writerow([*MOODLE_COLUMNS, *[c for c, _ in extra], assignment, "Feedback"])
    for s in roster:
        hit = graded.get(s.id)
        if hit is None:
            continue  # an empty cell would be imported as no change at best: leave them out
        row = hit[1]
        writer.writerow([text_cell(s.name), s.email, *[s.get(k) for _, k in extra],
                         _num((scores or {}).get(s.id, row.total)),
                         text_cell(_note(row, feedback_url))])
    return buffer.getvalue()


# --------------------------------------------------------------------------- Gradescope
#: Gradescope's default base image is Ubuntu 22.04, whose python3 is 3.10; the course needs
#: 3.11 or newer. Gradescope's advice (autograder documentation, "Python 3 issues") is to
#: install an explicit Python beside the system's python3, never over it (its harness runs
#: on the system python3), and to call that one by name: here python3.11 from the
#: deadsnakes archive, and on an image whose own python3 is already 3.11+ that one.
_SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04).
set -euo pipefail
ROOT="${KERNELCOURSE_AUTOGRADER_ROOT:-/autograder}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends bubblewrap ca-certificates
PY=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && \\
     "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \\
     2>/dev/null; then
    PY="$(command -v "$candidate")"; break
  fi
done
if [ -z "$PY" ]; then
  # Ubuntu 22.04 ships python3.10: bring python3.11 from the deadsnakes archive
  apt-get install -y --no-install-recommends software-properties-common gpg-agent
  add-apt-repository -y ppa:deadsnakes/ppa
  apt-get update
  apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev
  PY="$(command -v python3.11)"
fi
"$PY" -c 'import sys; assert sys.version_info >= (3, 11), sys.version'
"$PY" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --upgrade pip
"$ROOT/venv/bin/python" -m pip install "$ROOT/source/package"
"$ROOT/venv/bin/python" -c 'import kernelcourse, sys; print("kernelcourse on", sys.version)'
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
                     package_root=None, secret_file=None) -> Path:
    """Write the Gradescope autograder zip to ``output``: ``setup.sh``, ``run_autograder``,
    ``config.json`` (the questions and the grading secret, read from the key file
    ``secret_file``, by default :data:`~kernelcourse.grading.command.draws.SECRET_NAME` beside the zip,
    made once when missing), the package's source under ``package/`` and the instructors'
    question files under ``questions/``. Each submission draws its cases from the secret and
    a token of its own (Gradescope's submission id), so a resubmission draws new ones.
    ``seed`` (for trying the autograder) puts that seed in place of the secret: every
    submission is then graded on the same cases."""
    from ..command.draws import load_secret, secret_file as key_file

    output = Path(output)
    root = Path(package_root) if package_root else Path(__file__).resolve().parents[3]
    secret = None
    if seed is None:
        secret = load_secret(key_file(output.parent, secret_file), create=True).hex()
    config = {"questions": list(selection), "seed": None if seed is None else int(seed),
              "secret": secret, "questions_from": "questions" if questions_from else None}
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
    from .feedback import _entries, _what, cases_text, mistake_words

    tests = []
    for e in _entries(row, registry):
        lines = [_what(e)]
        if cases_text(row, e["id"]):
            lines.append(f"Graded on {cases_text(row, e['id'])}.")
        if e["status"] == "failed" and e.get("detail"):
            lines.append(e["detail"])
        if e.get("diagnosis_message"):
            lines.append(f"{mistake_words(e)}: {e['diagnosis_message']}")
        if e["status"] != "passed" and e.get("hint"):
            lines.append(f"Hint: {e['hint']}")
        tests.append({"name": f"{e['id']} {e['title']}", "score": round(float(e["points"]), 4),
                      "max_score": float(e["possible"]), "output": "\n".join(lines),
                      "visibility": "visible"})
    other = [err for err in row.errors if not any(err.startswith(f"{q}:") for q in row.points)]
    return {"score": round(float(row.total), 4), "execution_time": round(seconds),
            "output": (f"{_num(row.total)}/{_num(row.possible)} points; each question's "
                       f"fixed cases are the same in every run, its other cases were drawn for "
                       f"this submission alone." + ("\n" + "\n".join(other) if other else "")),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def not_graded_results(selection, registry, why: str) -> dict:
    """``results.json`` when nothing could be graded: every test says so in its name and its
    output (and ``extra_data``), so no one takes the zeros for a verdict."""
    from ..gradebook.assignment import _selected

    line = (f"NOT GRADED: {why}. This is no verdict on your work: your submission is kept, "
            f"and your instructor sees this line on every result.")
    tests = [{"name": f"{q.id} {q.title} (NOT GRADED)", "score": 0.0,
              "max_score": float(q.points), "output": line, "visibility": "visible",
              "tags": ["not graded"], "extra_data": {"graded": False, "why": why}}
             for q in _selected(list(selection), registry)]
    return {"score": 0.0, "output": line, "visibility": "visible", "tests": tests,
            "extra_data": {"graded": False, "why": why}}


def run_gradescope(root=None) -> dict:
    """What ``run_autograder`` does: grade ``ROOT/submission`` and write
    ``ROOT/results/results.json`` (``ROOT`` is ``/autograder`` unless
    ``KERNELCOURSE_AUTOGRADER_ROOT`` or ``root`` says otherwise)."""
    from ..command.grader import grade_paths
    from ..questions import all_questions, use_questions_from

    start = time.monotonic()
    root = Path(root or os.environ.get("KERNELCOURSE_AUTOGRADER_ROOT", "/autograder"))
    source = root / "source"
    config = json.loads((source / "config.json").read_text())
    if config.get("questions_from"):
        use_questions_from(source / config["questions_from"])
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    seed, secret, token = config.get("seed"), None, None
    if seed is None:  # the zip's secret, and a token for this attempt
        secret, token = bytes.fromhex(config["secret"]), _attempt_token(root)
    notebooks = sorted((root / "submission").rglob("*.ipynb"))
    if not notebooks:
        data = {"score": 0.0, "output": "No notebook (*.ipynb) was submitted.", "tests": [],
                "visibility": "visible"}
    else:
        from ..sealed.sandbox import SandboxUnavailable

        try:
            with tempfile.TemporaryDirectory() as out:
                rows = grade_paths([str(notebooks[0])], output=out,
                                   selection=config["questions"], progress=False,
                                   stream=sys.stderr, jobs=1, seed=seed, secret=secret,
                                   draw=token)
        except SandboxUnavailable as exc:  # never run a submission unsealed
            data = not_graded_results(config["questions"], all_questions(),
                                      f"the grader's sandbox cannot start here ({exc})")
            (results / "results.json").write_text(json.dumps(data, indent=1) + "\n")
            return data
        data = gradescope_results(rows[-1], all_questions(), time.monotonic() - start)
        if len(notebooks) > 1:
            data["output"] += (f"\nSeveral notebooks were submitted; {notebooks[0].name} "
                               f"was graded.")
        if token:  # useless without the secret; with it, the instructor replays the result
            data["extra_data"] = {"draw": token}
    (results / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def _attempt_token(root: Path) -> str:
    """This attempt's draw token: ``gradescope-<submission id>`` from Gradescope's
    ``submission_metadata.json`` (each submission, a resubmission too, has its own id), else a
    fresh random one."""
    from ..command.draws import new_token

    try:
        meta = json.loads((root / "submission_metadata.json").read_text())
        ident = meta.get("id") if isinstance(meta, dict) else None
    except (OSError, ValueError):
        ident = None
    if isinstance(ident, (int, str)) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", str(ident)):
        return f"gradescope-{ident}"
    return new_token()


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
