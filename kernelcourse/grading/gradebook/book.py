"""The gradebook: one :class:`Submission` row per submitted file, written as
``gradebook.csv`` and ``gradebook.json`` (each replaced atomically), and the summary table the
command prints.

A row holds the file, its sha256, the points per question, the points possible, the total, the
errors and the seconds taken, and how each question's cases were drawn (the draw token, or
the instructor's seed); the JSON also records the assignment, the key file's name (never the
secret) and the sandbox. The gradebook is the instructor's: no student-facing output copies a
token or a seed from it.
Text that came from a submission is escaped (:func:`~kernelcourse.grading.intake.notebooks.clean_text`),
and no CSV field can pass for a spreadsheet formula.
"""
from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .assignment import _selected
from ..intake.notebooks import clean_text
from ..questions import all_questions
from ..checking.scoring import _fmt

__all__ = ["Submission", "feedback_record", "write_gradebook", "summary_table"]


@dataclass
class Submission:
    """One row of the gradebook."""

    file: str
    sha256: str = ""
    points: dict = field(default_factory=dict)
    possible: float = 0.0
    total: float = 0.0
    errors: list = field(default_factory=list)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)
    # what the feedback pages and the class report read (kernelcourse.grading.handback.feedback)
    feedback: dict = field(default_factory=dict)
    # the stamp of the run that graded the row (kernelcourse.grading.gradebook.history)
    version: str = ""
    seed: int | None = None
    graded_at: str = ""
    question_hashes: dict = field(default_factory=dict)
    regraded: list = field(default_factory=list)
    # which cases each question was graded on: {id: {"draw" or "seed", "fixed", "drawn"}} (the
    # fixed cases are the same in every run; the drawn ones come from the secret and the draw
    # token, or from the instructor's --seed), the draw token of each question (a partial
    # --update changes only its own) and, in a --seed run, each question's seed
    cases: dict = field(default_factory=dict)
    question_seeds: dict = field(default_factory=dict)
    draws: dict = field(default_factory=dict)
    # regrades that failed (the file no longer read, the grader failed): the row kept its
    # points; each entry says when, which questions and why
    failed_regrades: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"file": self.file, "sha256": self.sha256, "points": self.points,
                "possible": self.possible, "total": self.total, "errors": self.errors,
                "seconds": round(self.seconds, 2), "details": self.details,
                "feedback": self.feedback, "version": self.version, "seed": self.seed,
                "graded_at": self.graded_at, "question_hashes": self.question_hashes,
                "regraded": self.regraded, "cases": self.cases,
                "question_seeds": self.question_seeds, "draws": self.draws,
                "failed_regrades": self.failed_regrades}


def feedback_record(result) -> dict:
    """The plain fields of a :class:`~kernelcourse.grading.checking.scoring.Result` a page needs."""
    q = result.question
    diagnosis = result.diagnosis
    return {"status": result.status, "points": round(float(result.points), 4),
            "possible": q.points, "n_passed": result.n_passed, "n_cases": result.n_cases,
            "detail": clean_text(result.detail, 600),
            # the failing case's inputs in full (the call that prints them would need the
            # grader's cases, which no student has)
            "inputs": clean_text(getattr(result, "full_inputs", "") or "", 4000),
            # a true-or-false question: each wrong statement and why it is wrong
            "statements": [{"statement": clean_text(st, 200), "right": bool(ok),
                            "message": clean_text(message, 600)}
                           for st, ok, _, message in getattr(result, "statements", [])],
            "diagnosis": diagnosis.name if diagnosis is not None else "",
            "diagnosis_message": diagnosis.message if diagnosis is not None else "",
            # "relation" when no named mistake matched and the message says how the values
            # relate to the expected ones (grading/relations/); the page words it so
            "diagnosis_found_by": getattr(diagnosis, "found_by", "") if diagnosis else ""}


def _csv_cell(text) -> str:
    """A free-text CSV field no spreadsheet takes for a formula (see
    :func:`kernelcourse.grading.handback.exports.text_cell`)."""
    text = clean_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _columns(rows, assignment=()) -> list[str]:
    order = list(all_questions())
    seen = {q for r in rows for q in r.points} | set(_ids_of(assignment))
    return [q for q in order if q in seen]


def _ids_of(assignment) -> list[str]:
    return [q.id for q in _selected(list(assignment), all_questions())]


class _Gradebook:
    """``gradebook.csv`` and ``gradebook.json`` in ``output``, each replaced atomically."""

    def __init__(self, output: Path, seed: int | None, assignment, sandbox,
                 name: str | None = None, secret: str | None = None):
        self.output, self.seed, self.assignment = output, seed, list(assignment)
        self.secret = secret
        self.sandbox = sandbox.describe() if sandbox is not None else "none (--no-sandbox)"
        self.name = name

    def write(self, rows) -> tuple[Path, Path]:
        return write_gradebook(rows, self.output, self.seed, self.assignment, self.sandbox,
                               name=self.name, secret=self.secret)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and an atomic rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_gradebook(rows, output: Path, seed: int | None, assignment=(), sandbox="",
                    name: str | None = None, secret: str | None = None) -> tuple[Path, Path]:
    """Write ``gradebook.csv`` and ``gradebook.json`` into ``output`` (atomically);
    ``gradebook-NAME.csv`` and ``gradebook-NAME.json`` with an assignment ``name``.
    ``seed``: the run's seed when every row was drawn from it; ``secret``: the name of the
    key file the draw tokens need (recorded so a replay knows which)."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    columns = _columns(rows, assignment)
    suffix = f"-{name}" if name else ""
    csv_path, json_path = output / f"gradebook{suffix}.csv", output / f"gradebook{suffix}.json"
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(["file", *columns, "total", "possible", "errors", "seconds", "sha256"])
    for r in rows:
        writer.writerow([_csv_cell(r.file), *[r.points.get(c, "") for c in columns], r.total,
                         r.possible, _csv_cell(" | ".join(r.errors)), f"{r.seconds:.2f}",
                         r.sha256])
    registry = all_questions()
    book = {"seed": seed,
            "secret": secret,
            "name": name or "",
            "assignment": list(assignment),
            "sandbox": sandbox,
            "questions": {c: registry[c].points for c in columns},
            "submissions": [{**r.as_dict(), "file": clean_text(r.file)} for r in rows]}
    _replace(csv_path, buffer.getvalue())
    _replace(json_path, json.dumps(book, indent=1) + "\n")
    return csv_path, json_path


def _short_names(files: list[str]) -> list[str]:
    """The files relative to the folder they share (whole paths when that fails)."""
    if not files:
        return []
    try:
        base = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
        return [os.path.relpath(os.path.abspath(f), base) for f in files]
    except ValueError:
        return list(files)


def summary_table(rows) -> str:
    """A plain-text table: one line per submission, points per question."""
    columns = _columns(rows)
    names = [clean_text(n, 80) for n in _short_names([r.file for r in rows])]
    name_w = max([len("file")] + [len(n) for n in names])
    col_w = [max(len(c), 5) for c in columns]
    head = ["file".ljust(name_w), *[c.rjust(w) for c, w in zip(columns, col_w)],
            "total".rjust(11), "errors".rjust(6), "seconds".rjust(7)]
    lines = ["  ".join(head)]
    for r, name in zip(rows, names):
        cells = [name.ljust(name_w)]
        cells += [(_fmt(r.points[c]) if c in r.points else "-").rjust(w)
                  for c, w in zip(columns, col_w)]
        cells += [f"{_fmt(r.total)}/{_fmt(r.possible)}".rjust(11), str(len(r.errors)).rjust(6),
                  f"{r.seconds:.1f}".rjust(7)]
        lines.append("  ".join(cells))
    return "\n".join(lines)
