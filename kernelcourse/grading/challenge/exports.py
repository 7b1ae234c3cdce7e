"""The challenge's grades in the LMS's own import formats (``challenge grade --export``).

One grade per student of the roster: the points of the submission that counts for them (the
last scored one; on the private split with ``--final``), written by the hand-back's own
writers (:func:`~kernelcourse.grading.handback.exports.canvas_csv` and
:func:`~kernelcourse.grading.handback.exports.moodle_csv`), so the columns, the identifiers the
platforms match on and the escaping of free text are those of ``kernelcourse grade --export``.
A student with no scored submission gets no grade (Canvas's cell stays empty, Moodle's line is
left out): an unread file is not a 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ChallengeRow", "export_rows", "write_exports"]


@dataclass
class ChallengeRow:
    """What the LMS writers read of a gradebook row, for one challenge submission."""

    file: str
    total: float
    possible: float
    points: dict = field(default_factory=dict)
    feedback: dict = field(default_factory=dict)


def export_rows(entries, roster, possible: float, name: str):
    """``(rows, students)``: one row per roster student whose counting submission was scored,
    and ``{file: Student}`` for the writers."""
    by_id = {s.id: s for s in roster}
    rows, students = [], {}
    for e in entries:
        if not e.final or e.points is None or e.student not in by_id:
            continue
        status = "passed" if e.points >= possible else "failed"
        rows.append(ChallengeRow(file=e.file, total=float(e.points), possible=float(possible),
                                 points={name: float(e.points)},
                                 feedback={name: {"status": status}}))
        students[e.file] = by_id[e.student]
    return rows, students


def write_exports(entries, plan, output, *, name: str, possible: float) -> list[str]:
    """Write ``canvas-NAME.csv`` and/or ``moodle-NAME.csv`` (``plan`` from
    :func:`kernelcourse.grading.handback.prepare`); the lines to print."""
    from ..handback.exports import canvas_csv, moodle_csv

    rows, students = export_rows(entries, plan.roster, possible, name)
    lines = []
    for kind in plan.exports:
        if kind == "canvas":
            text = canvas_csv(rows, students, plan.roster, name, plan.canvas_assignment_id)
        else:
            text = moodle_csv(rows, students, plan.roster, name)
        path = Path(output) / f"{kind}-{name}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        lines.append(f"{kind} export: {path} ({len(rows)} grade(s) of {len(plan.roster)} "
                     f"student(s) on the roster)")
    return lines
