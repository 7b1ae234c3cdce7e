"""Exercises that make students think (issue 19), checked over every registered question:

* no hint tier and no stub line gives a line of the solution away (whitespace-normalised);
* the table of kinds per set: at most one third of all questions print their formula, and
  every exercise set has at least 4 new questions of at least 3 kinds;
* every question has at least 3 diagnoses (that they do not cross-fire, the answer with one
  mistake diagnosed as exactly that mistake in every seed, is tests/test_grading_verdicts.py's);
* a verdict line keeps its diagnosis whole, in ``check`` and in the gradebook.

The tests read the registry and the notebooks, so questions added later are covered without
edits here.
"""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import nbformat
import pytest

from kernelcourse.grading.command.catalog import formula_printed, kinds_table
from kernelcourse.grading.command.pipeline import BEGIN, END, STUB, _uncomment
from kernelcourse.grading.questions import all_questions

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = all_questions()
IDS = list(QUESTIONS)
ANSWER = re.compile(r"^#\s*ANSWER\s+(\S+)\s*$")

#: the exercise questions before issue 19: every other question of a set is new
ORIGINAL = {
    "ex1": {f"ex1.q{i}" for i in range(1, 8)},
    "ex2": {f"ex2.q{i}" for i in range(1, 6)},
    "ex3": {f"ex3.q{i}" for i in range(1, 8)},
    "ex4": {f"ex4.q{i}" for i in range(1, 8)},
    "ex5": {f"ex5.q{i}" for i in range(1, 6)},
    "ex6": {f"ex6.q{i}" for i in range(1, 6)},
}

#: lines too plain to give anything away, whitespace removed (the explicit exemptions)
TRIVIAL = {
    "", "pass", "else:", "try:", "continue", "break",
    "importnumpyasnp", "importmath", "importitertools", "importnumpy.linalgasla",
    "returnx", "returnX", "returnK", "returnu", "returnalpha", "returnw", "returnq",
    "returnTrue", "returnFalse", "returnout", "returnresult",
}


def _norm(line: str) -> str:
    return re.sub(r"\s+", "", line)


def _code_lines(text: str) -> list[str]:
    """Normalised lines that carry code: no comment lines, no trivial ones."""
    out = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        norm = _norm(line)
        if norm not in TRIVIAL:
            out.append(norm)
    return out


def _cells(path: Path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            match = ANSWER.match(source.lstrip("\n").split("\n", 1)[0].strip())
            if match:
                yield match.group(1), source


def _split_solution(source: str) -> tuple[list[str], list[str]]:
    """The solution's lines and the given (fix-the-bug) lines of an answer cell's source."""
    solution, given, inside, after_stub = [], [], False, False
    for line in source.split("\n"):
        if BEGIN.match(line):
            inside, after_stub = True, False
        elif END.match(line):
            inside = False
        elif inside and STUB.match(line):
            after_stub = True
        elif inside:
            (given if after_stub else solution).append(_uncomment(line) if after_stub else line)
    return solution, given


def _solutions() -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in sorted((ROOT / "exercises" / "source").glob("*.ipynb")):
        for qid, source in _cells(path):
            solution, given = _split_solution(source)
            found[qid] = {"solution": solution, "given": given, "file": path.name}
    return found


def _reference_lines(question) -> list[str]:
    """The reference's own source, for checkpoints (the lecture notebooks hold no solution)."""
    try:
        source = inspect.getsource(question.reference)
    except (OSError, TypeError):
        return []
    lines = [line for line in source.split("\n")
             if not line.strip().startswith(("def ", '"""', "'''", "@"))]
    return lines if not source.lstrip().startswith("lambda") else []


def _student_stubs() -> dict[str, list[tuple[str, str]]]:
    """Every answer cell a student starts from: the student exercise notebooks and the lecture
    notebooks' checkpoint cells."""
    stubs: dict[str, list[tuple[str, str]]] = {}
    paths = sorted((ROOT / "exercises").glob("*.ipynb")) + sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        for qid, source in _cells(path):
            stubs.setdefault(qid, []).append((path.name, source))
    return stubs


SOLUTIONS = _solutions()
STUBS = _student_stubs()


def _solution_lines(qid: str) -> list[str]:
    lines = list(SOLUTIONS.get(qid, {}).get("solution", []))
    if qid not in SOLUTIONS:
        lines += _reference_lines(QUESTIONS[qid])
    return [n for n in _code_lines("\n".join(lines))]


# --------------------------------------------------------------------- hints and stubs
@pytest.mark.parametrize("qid", IDS)
def test_no_hint_tier_holds_a_solution_line(qid):
    q = QUESTIONS[qid]
    lines = _solution_lines(qid)
    # the tiers, and the hints a diagnosis shows in their place when it names the mistake
    tiers = [q.hint, *q.hints, *(d.hint for d in q.diagnoses if getattr(d, "hint", ""))]
    for tier in tiers:
        text = _norm(tier)
        for line in lines:
            assert line not in text, (f"{qid}: the hint {tier!r} holds the solution line "
                                      f"{line!r}")


@pytest.mark.parametrize("qid", IDS)
def test_hints_are_tiered(qid):
    q = QUESTIONS[qid]
    assert len(q.hints) >= 2, f"{qid}: give at least two hint tiers (a nudge, then stronger)"
    assert len(set(q.hints)) == len(q.hints)


@pytest.mark.parametrize("qid", sorted(STUBS))
def test_no_stub_line_is_a_solution_line(qid):
    lines = set(_solution_lines(qid))
    given = set(_code_lines("\n".join(SOLUTIONS.get(qid, {}).get("given", []))))
    for name, source in STUBS[qid]:
        for line in _code_lines(source):
            if line in given:
                continue  # a fix question's buggy code shares lines with its fix
            assert line not in lines, f"{name}, {qid}: the stub holds the solution line {line!r}"
            for sol in lines:
                assert sol not in line or not line.startswith("raise"), (
                    f"{name}, {qid}: the stub's message holds the solution line {sol!r}")


@pytest.mark.parametrize("qid", sorted(q for q, s in SOLUTIONS.items() if s["given"]))
def test_fix_questions_give_code_that_differs_from_the_fix(qid):
    entry = SOLUTIONS[qid]
    assert _code_lines("\n".join(entry["given"])) != _code_lines("\n".join(entry["solution"]))
    assert QUESTIONS[qid].kind == "fix"


def _given_elsewhere(q) -> bool:
    """Whether the fix question's notebook shows the buggy ``def <function>`` outside the
    answer cell: a code cell defining ``<function>_given``, or a code block in the text."""
    path = ROOT / "exercises" / "source" / SOLUTIONS[q.id]["file"]
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and f"def {q.function}_given(" in cell.source:
            return True
        if cell.cell_type == "markdown" and re.search(
                rf"```python\s*\ndef {q.function}\(", cell.source):
            return True
    return False


def test_every_fix_question_gives_its_buggy_code():
    for qid, q in QUESTIONS.items():
        if q.kind == "fix" and qid in SOLUTIONS:
            assert SOLUTIONS[qid]["given"] or _given_elsewhere(q), (
                f"{qid}: a fix question gives the buggy code: after '# STUB' in its answer cell, "
                f"in a cell defining {q.function}_given, or in a code block of its text")


# --------------------------------------------------------------------- kinds
def test_kinds_table_and_at_most_a_third_print_their_formula():
    table = kinds_table()
    print("\n" + table)
    printed = [q.id for q in QUESTIONS.values() if formula_printed(q)]
    assert 3 * len(printed) <= len(QUESTIONS), (
        f"{len(printed)} of {len(QUESTIONS)} questions print their formula: {printed}")
    for q in QUESTIONS.values():
        assert q.kind != "formula" or formula_printed(q)
        assert q.section, f"{q.id}: name the lecture section (section='1.3')"


@pytest.mark.parametrize("set_name", sorted(ORIGINAL))
def test_each_exercise_set_has_four_new_questions_of_three_kinds(set_name):
    new = [q for q in QUESTIONS.values() if q.set_name == set_name
           and q.id not in ORIGINAL[set_name]]
    kinds = {q.kind for q in new}
    assert len(new) >= 4 and len(kinds) >= 3, (
        f"{set_name}: {len(new)} new questions of kinds {sorted(kinds)}; at least 4 of 3 kinds")
    assert "formula" not in kinds, f"{set_name}: a new question prints its formula"


def test_the_kinds_table_command(capsys):
    from kernelcourse.__main__ import main

    assert main(["grade", "--list-questions", "--kinds"]) == 0
    out = capsys.readouterr().out
    for qid, q in QUESTIONS.items():
        assert re.search(rf"^  {re.escape(qid)}\s+{q.kind}\s", out, re.M), qid
    assert "of kind formula" in out


# --------------------------------------------------------------------- diagnoses
@pytest.mark.parametrize("qid", IDS)
def test_every_question_has_three_diagnoses(qid):
    assert len(QUESTIONS[qid].diagnoses) >= 3, f"{qid}: give at least 3 diagnoses"


@pytest.mark.parametrize("qid", IDS)
def test_the_diagnosis_is_never_cut(qid):
    """However long the failing case, the verdict keeps the diagnosis whole, in check() and in
    the gradebook (which escapes and bounds the line)."""
    from kernelcourse.grading.intake.notebooks import clean_text
    from kernelcourse.grading.checking.scoring import LINE_LIMIT, Result

    q = QUESTIONS[qid]
    for d in q.diagnoses:
        result = Result(q, "failed", 1, 3, q.points / 3, "first failure on " + "x" * 2000, d)
        line = result.line("so far 1/15 in " + q.set_name)
        assert f"Likely mistake: {d.message}" in line
        assert len(line) <= max(2 * LINE_LIMIT, len(d.message) + 200)
        assert clean_text(line, 2 * LINE_LIMIT) == line


@pytest.mark.parametrize("lecture", ["1", "2"])
def test_at_most_a_third_of_a_lectures_questions_print_their_formula(lecture):
    """Exercise set exN and the lecture's checkpoints lN together."""
    questions = [q for q in QUESTIONS.values() if q.set_name in (f"ex{lecture}", f"l{lecture}")]
    printed = [q.id for q in questions if formula_printed(q)]
    assert questions and 3 * len(printed) <= len(questions), printed
