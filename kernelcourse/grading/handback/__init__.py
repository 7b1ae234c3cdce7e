"""After the grading: what ``kernelcourse grade`` writes besides the gradebook.

:func:`prepare` reads the roster and checks the pattern and the exports' needs *before* any
grading (a wrong roster costs no grading time). :func:`hand_back` then takes the gradebook
rows of the run and, as asked, maps files to students
(:mod:`~kernelcourse.grading.handback.roster`), writes the feedback pages
(:mod:`~kernelcourse.grading.handback.feedback`), the class report (:mod:`~kernelcourse.grading.handback.report`),
the similarity report (:mod:`~kernelcourse.grading.handback.similarity`) and the LMS exports
(:mod:`~kernelcourse.grading.handback.exports`). Every file is named by the assignment. Each output is
written on its own: one that fails is named in its own line and stops no other. Every line it
returns is safe to print (no terminal escape sequence from a file or a name).

Late work: the ``canvas`` pattern marks Canvas's ``_LATE`` files; with ``late_penalty`` P
(a share of the points, e.g. 0.1) a late submission's exported score is its total times
(1 - P), and the report and the feedback page show the raw and the penalised score beside the
policy. Without it, late work is reported and its score is not changed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..intake.notebooks import clean_text

__all__ = ["hand_back", "prepare", "Plan", "late_policy"]


@dataclass
class Plan:
    """What was checked before the grading."""

    roster: object = None          # roster.Roster, or None
    pattern: str = "canvas"
    exports: tuple = ()
    canvas_assignment_id: str = ""
    late_penalty: float | None = None
    lines: list = field(default_factory=list)


def late_policy(penalty) -> str:
    """The stated policy, in words."""
    if penalty is None:
        return "late work is marked; its score is not changed (no --late-penalty given)"
    return (f"a late submission keeps {100 * (1 - penalty):g}% of its points "
            f"(--late-penalty {penalty:g})")


def prepare(*, roster=None, pattern="canvas", exports=(), canvas_assignment_id="", name="",
            late_penalty=None) -> Plan:
    """Read the roster and check the pattern and the exports; a clear ValueError before any
    grading when something is wrong."""
    from .roster import check_pattern, read_roster

    exports = tuple(dict.fromkeys(exports))
    unknown = [k for k in exports if k not in ("canvas", "moodle")]
    if unknown:
        raise ValueError(f"unknown export {unknown[0]!r}; choose canvas or moodle")
    if exports and not roster:
        raise ValueError(f"--export {exports[0]} needs --roster (the LMS matches students by "
                         f"id or email)")
    if late_penalty is not None and not 0 <= late_penalty <= 1:
        raise ValueError(f"--late-penalty is the share of the points a late submission loses, "
                         f"between 0 and 1; got {late_penalty}")
    check_pattern(pattern)
    plan = Plan(pattern=pattern, exports=exports, late_penalty=late_penalty,
                canvas_assignment_id=str(canvas_assignment_id or ""))
    if roster:
        plan.roster = read_roster(roster)
        if not plan.roster:
            raise ValueError(f"the roster {roster} lists no student")
    if pattern == "moodle" and plan.roster is not None and plan.roster.kind != "moodle" and \
            not any(s.get("participant") for s in plan.roster):
        raise ValueError(f"--pattern moodle matches each file by Moodle's participant id, and "
                         f"the roster {roster} holds none: use the assignment's grading "
                         f"worksheet (Download grading worksheet) as the roster, or add a "
                         f"column participant")
    if "moodle" in exports and plan.roster.kind != "moodle" and not any(
            s.email or s.get("idnumber") or s.get("username") for s in plan.roster):
        raise ValueError(f"the Moodle export needs an identifier Moodle matches users by "
                         f"(email, ID number or username), and the roster {roster} has none: "
                         f"use Moodle's grading worksheet, or a roster with an email column")
    if "canvas" in exports:
        from .exports import canvas_column

        if not plan.canvas_assignment_id and plan.roster.kind == "canvas":
            ids = plan.roster.canvas_assignments
            if name and name in ids:
                plan.canvas_assignment_id = ids[name]
            else:
                raise ValueError(f"the Canvas export needs the assignment's Canvas id: the "
                                 f"roster's assignment columns are "
                                 f"{', '.join(f'{k} ({v})' for k, v in ids.items()) or 'none'}; "
                                 f"name the assignment (--assignment) as Canvas does, or give "
                                 f"--canvas-assignment-id")
        canvas_column(name or "assignment", plan.canvas_assignment_id)
    return plan


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def hand_back(rows, *, output=".", name="", feedback=None, report=False, roster=None,
              pattern="canvas", exports=(), canvas_assignment_id="", similarity=None,
              plan=None, late_penalty=None, references=True) -> list:
    """Write what was asked for; the lines to print (failures as ``FAILED: ...`` lines)."""
    from . import exports as ex
    from ..questions import all_questions
    from .roster import match

    if plan is None:
        plan = prepare(roster=roster, pattern=pattern, exports=exports, name=name,
                       canvas_assignment_id=canvas_assignment_id, late_penalty=late_penalty)
    output = Path(output)
    registry = all_questions()
    graded = [r for r in rows if r.possible > 0]
    assignment = list(dict.fromkeys(q for r in graded for q in r.points))
    name = name or (registry[assignment[0]].set_name if assignment else "assignment")
    # the class report (the instructor's) says how the cases were drawn; no student page does
    seeds = sorted({str(s) for r in graded for s in (r.question_seeds or {}).values()}
                   or {str(r.seed) for r in graded if r.seed is not None})
    seed = seeds[0] if len(seeds) == 1 else ", ".join(seeds) or None
    lines: list = []

    def attempt(what, job):
        try:
            job()
        except Exception as exc:  # noqa: BLE001 - one output must not stop the others
            lines.append(f"FAILED: {what}: {type(exc).__name__}: {clean_text(exc, 300)}")

    students, exported, late_files = {}, {}, set()
    if plan.roster is not None:
        matching = match([r.file for r in rows], plan.roster, plan.pattern)
        students, exported, late_files = matching.students, matching.exported(), matching.late
        lines += matching.lines()
        lines += [f"  no grade exported for {s.name} ({s.id}): the file {Path(r.file).name} "
                  f"was not graded ({'; '.join(r.errors)[:300] or 'no reason given'})"
                  for r in rows if r.possible <= 0 and (s := students.get(r.file)) is not None]
    late = _late(rows, students, late_files, plan.late_penalty)
    if feedback:
        def pages():
            from .feedback import write_feedback

            written, failures = write_feedback(
                rows, feedback, assignment=name, students=students,
                registry=registry, late={f: v["sentence"] for f, v in late.items()})
            n = sum(p.suffix == ".html" and p.name != "index.html" for p in written)
            lines.append(f"feedback: {n} page(s) in {feedback} (HTML and Markdown), listed in "
                         f"{Path(feedback) / 'index.html'}")
            lines.extend(f"FAILED: {what}: {why}" for what, why in failures)
        attempt("feedback pages", pages)
    groups = None
    if similarity is not None:
        def similar():
            nonlocal groups
            from .similarity import read_answers, similar_by_student

            answers = {f: {q: a for q, a in cells.items() if q in assignment}
                       for f, cells in read_answers([r.file for r in graded]).items()}
            groups = similar_by_student(answers, similarity,
                                        students=students, registry=registry,
                                        references=references)
            path = _write(output / f"similarity-{name}.json",
                          json.dumps({"threshold": similarity, **groups}, indent=1) + "\n")
            lines.append(f"similar answers (AST similarity >= {similarity}, answers alike by "
                         f"nature left out): {len(groups['pairs'])} pair(s) of students, "
                         f"{len(groups['like_reference'])} answer(s) close to the course's own "
                         f"code, in {path}")
            lines.extend(f"  {p['a']} ~ {p['b']}: {len(p['questions'])} question(s) alike, "
                         f"mean {p['mean']:.2f}" for p in groups["pairs"][:20])
        attempt("similarity report", similar)
    if report:
        def class_page():
            from .report import class_report, write_report

            numbers = class_report(rows, registry, assignment=assignment, seed=seed, name=name,
                                   late=late, policy=late_policy(plan.late_penalty),
                                   students=students)
            if groups is not None:
                numbers["similarity"] = {"threshold": similarity, "pairs": groups}
            html_path, json_path = write_report(numbers, output, name)
            lines.append(f"class report: {html_path} and {json_path.name}")
        attempt("class report", class_page)
    scores = {students[f].id: v["score"] for f, v in late.items() if f in students}
    for kind in plan.exports:
        def export(kind=kind):
            if kind == "canvas":
                text = ex.canvas_csv(rows, exported, plan.roster, name,
                                     plan.canvas_assignment_id, scores=scores)
            else:
                text = ex.moodle_csv(rows, exported, plan.roster, name, scores=scores)
            path = _write(output / f"{kind}-{name}.csv", text)
            lines.append(f"{kind} export: {path}")
        attempt(f"{kind} export", export)
    return [clean_text(line, 2000) for line in lines]


def _late(rows, students, late_files, penalty) -> dict:
    """``{file: {"raw", "score", "sentence"}}`` of the late submissions."""
    out = {}
    for row in rows:
        if row.file not in late_files or row.possible <= 0:
            continue
        score = row.total if penalty is None else round(row.total * (1 - penalty), 4)
        out[row.file] = {"raw": row.total, "score": score, "sentence": (
            f"Submitted late: {row.total:g} points as graded, {score:g} after the late policy "
            f"({late_policy(penalty)}).")}
    return out
