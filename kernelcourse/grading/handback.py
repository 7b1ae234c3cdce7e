"""After the grading: what ``kernelcourse grade`` writes besides the gradebook.

:func:`hand_back` takes the gradebook rows of a run and, as asked, maps files to students
(:mod:`~kernelcourse.grading.roster`), writes the feedback pages
(:mod:`~kernelcourse.grading.feedback`), the class report (:mod:`~kernelcourse.grading.report`),
the similarity report (:mod:`~kernelcourse.grading.similarity`) and the LMS exports
(:mod:`~kernelcourse.grading.exports`). Every file is named by the assignment; it returns the
lines the command prints.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["hand_back"]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def hand_back(rows, *, output=".", name="", feedback=None, report=False, roster=None,
              pattern="canvas", exports=(), canvas_assignment_id="", similarity=None) -> list:
    """Write what was asked for; the lines to print."""
    from . import exports as ex
    from .feedback import write_feedback
    from .questions import all_questions
    from .report import class_report, write_report
    from .roster import match, read_roster
    from .similarity import read_answers, similar_pairs

    output = Path(output)
    registry = all_questions()
    graded = [r for r in rows if r.possible > 0]
    assignment = list(dict.fromkeys(q for r in graded for q in r.points))
    name = name or (registry[assignment[0]].set_name if assignment else "assignment")
    seeds = sorted({r.seed for r in graded if r.seed is not None}, key=str)
    seed = seeds[0] if len(seeds) == 1 else ", ".join(map(str, seeds))
    lines: list = []
    students, students_list = {}, []
    if roster:
        students_list = read_roster(roster)
        matching = match([r.file for r in rows], students_list, pattern)
        students = matching.students
        lines += matching.lines()
    if feedback:
        written = write_feedback(rows, feedback, seed=seed, assignment=name, students=students,
                                 registry=registry)
        lines.append(f"feedback: {len(written) // 2} page(s) in {feedback} (HTML and Markdown)")
    pairs = None
    if similarity is not None:
        pairs = similar_pairs(read_answers([r.file for r in graded]), similarity)
        path = _write(output / f"similarity-{name}.json",
                      json.dumps({"threshold": similarity, "pairs": pairs}, indent=1) + "\n")
        lines.append(f"similar answers (AST similarity >= {similarity}): {len(pairs)} pair(s), "
                     f"in {path}")
        lines += [f"  {p['question']}: {p['a']} ~ {p['b']} ({p['similarity']:.2f})"
                  for p in pairs]
    if report:
        numbers = class_report(rows, registry, assignment=assignment, seed=seed, name=name)
        if pairs is not None:
            numbers["similarity"] = {"threshold": similarity, "pairs": pairs}
        html_path, json_path = write_report(numbers, output, name)
        lines.append(f"class report: {html_path} and {json_path.name}")
    for kind in exports:
        if not roster:
            raise ValueError(f"--export {kind} needs --roster (the LMS matches students by id "
                             f"or email)")
        if kind == "canvas":
            text = ex.canvas_csv(rows, students, students_list, name, canvas_assignment_id)
        elif kind == "moodle":
            text = ex.moodle_csv(rows, students, students_list, name)
        else:
            raise ValueError(f"unknown export {kind!r}; choose canvas or moodle")
        path = _write(output / f"{kind}-{name}.csv", text)
        lines.append(f"{kind} export: {path}")
    return lines
