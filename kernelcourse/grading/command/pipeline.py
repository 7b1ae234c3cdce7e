"""The exercise pipeline: one source notebook with solutions, one generated student version.

``kernelcourse exercises build`` (or ``python3 tasks.py exercises``) reads every
``exercises/source/*.ipynb`` and writes ``exercises/<name>_exercises.ipynb`` (:func:`student_name`:
the lecture ``notebooks/<name>.ipynb`` and its exercise set never share a file name, so two tabs
and a ``.updated`` copy are told apart):

* a markdown cell before the first code cell, after the title (the first cell, a ``# ``
  heading) and the references (:func:`handing_in_cell`): the lecture the set goes with (a
  link), which file to hand in, and that ``check()``'s points are practice points;
* every check cell imports ``hint`` beside ``check`` (``from kernelcourse.grading import
  check`` becomes ``... import check, hint``), so the ``hint("<id>")`` the stubs name works in
  the check cell even when the set's first cell was not run;

* in each code cell, the lines from ``# BEGIN SOLUTION`` to ``# END SOLUTION``
  (markers included) become one line ``raise NotImplementedError(<hint>)``,
  indented like the ``# BEGIN SOLUTION`` line; its message is neutral
  (:func:`stub_message`: it names ``hint("<id>")``, never a step of the solution);
  a block may end with ``# STUB`` followed by commented-out lines: the code the student
  is given (a "fix the bug" question's buggy function), uncommented after the stub line;
* cells whose first line is ``# SOLUTION ONLY`` are left out;
* outputs and execution counts are cleared.

Then both notebooks are executed and stored with outputs
(:func:`kernelcourse._execute.execute_notebook`, the same code as
``tools/execute_notebooks.py``), so nbval checks that the solutions pass and
that the untouched student version runs with every question "not attempted".
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

__all__ = ["student_source", "student_notebook", "student_name", "handing_in_cell", "build",
           "stale_notebooks", "SOURCE_DIR", "STUDENT_DIR", "STUDENT_SUFFIX"]

# the course folder: the one holding this package (an editable install), else the current one
ROOT = Path(__file__).resolve().parents[3]   # the repository: kernelcourse/grading/command/pipeline.py
if not (ROOT / "exercises").is_dir():
    ROOT = Path.cwd()
SOURCE_DIR = ROOT / "exercises" / "source"
STUDENT_DIR = ROOT / "exercises"

BEGIN = re.compile(r"^(?P<indent>[ \t]*)#+\s*BEGIN SOLUTION\s*$")
STUB = re.compile(r"^[ \t]*#+\s*STUB\s*$")
END = re.compile(r"^[ \t]*#+\s*END SOLUTION\s*$")
ANSWER = re.compile(r"^#\s*ANSWER\s+(\S+)\s*$")
SOLUTION_ONLY = "# SOLUTION ONLY"
DEFAULT_HINT = "replace this line with your solution"
#: the end of a student exercise set's file name: ``07_support_vector_machines_exercises.ipynb``
STUDENT_SUFFIX = "_exercises"
#: a check cell's import of ``check`` alone (the generated cell imports ``hint`` too)
CHECK_IMPORT = re.compile(r"^from kernelcourse\.grading import check[ \t]*$", re.MULTILINE)
#: the marker of the generated hand-in cell (in its metadata, so it is never edited by hand)
HANDING_IN = "kernelcourse-handing-in"


def student_name(source_name: str) -> str:
    """The student version's file name of the source ``source_name``: ``NN_topic.ipynb`` gives
    ``NN_topic_exercises.ipynb`` (a name that already ends so is kept)."""
    stem, dot, ext = str(source_name).rpartition(".")
    if not dot:
        stem, ext = str(source_name), "ipynb"
    return f"{stem}.{ext}" if stem.endswith(STUDENT_SUFFIX) else f"{stem}{STUDENT_SUFFIX}.{ext}"


def _lecture_link(source_name: str) -> str:
    """The lecture notebook this set goes with, as a link from ``exercises/`` (by its number)."""
    stem = str(source_name).rsplit(".", 1)[0]
    if stem.endswith(STUDENT_SUFFIX):
        stem = stem[: -len(STUDENT_SUFFIX)]
    number = stem.split("_", 1)[0]
    lectures = ROOT / "notebooks"
    found = sorted(lectures.glob(f"{number}_*.ipynb")) if number.isdigit() else []
    name = f"{stem}.ipynb" if (lectures / f"{stem}.ipynb").exists() or not found else found[0].name
    label = f"lecture {int(number)}" if number.isdigit() else "the lecture"
    return f"[{label}](../notebooks/{name})"


def handing_in_cell(source_name: str):
    """The markdown cell put after an exercise set's title: its lecture, what to hand in, and
    what ``check()``'s points are."""
    import nbformat

    file = student_name(source_name)
    text = (f"**The lecture.** These exercises go with {_lecture_link(source_name)}; read it "
            "first.\n\n"
            f"**What you hand in.** This notebook, `{file}`, with your answers in its "
            "`# ANSWER` cells, saved (in your workspace it is `workspace/exercises/"
            f"{file}`; on Binder, File > Download saves it to your computer). Hand it in the way "
            "your instructor asks. Only the answer cells are graded: your instructor's grader runs "
            "each one on cases of its own.\n\n"
            "**The points `check()` prints are practice points.** They tell you how your answer "
            "does on the inputs that check drew, so that you can fix it; your grade is what the "
            "instructor's grader gives when it grades the notebook you hand in.")
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata[HANDING_IN] = True
    cell.id = "handing-in"                  # a fixed id: regenerating makes no diff
    return cell


def stub_message(question_id: str, given: bool = False) -> str:
    """The message of an answer cell's stub: neutral, it never hints at the solution (the
    question's tiered hints are shown on request, ``hint(id)``, and after failed checks)."""
    if given:
        return (f'the function below has a bug: fix it, then delete this line; hint("{question_id}") '
                f'gives a hint')
    return f'write your answer here; hint("{question_id}") gives a hint'


def _hint_for(source: str) -> str:
    first = source.lstrip("\n").split("\n", 1)[0].strip()
    match = ANSWER.match(first)
    if not match:
        return DEFAULT_HINT
    from ..questions import get_question
    given = any(STUB.match(line) for line in source.split("\n"))
    return stub_message(get_question(match.group(1)).id, given)


def _uncomment(line: str) -> str:
    """A line of the given code after ``# STUB``: its ``# `` (after the indent) removed."""
    match = re.match(r"^([ \t]*)# ?(.*)$", line)
    return match.group(1) + match.group(2) if match else line


def student_source(source: str, hint: str = DEFAULT_HINT, where: str = "cell") -> str:
    """Replace every solution block of a cell's source by a NotImplementedError stub.

    A block may hold a line ``# STUB``: the lines after it, each commented out in the
    source, are code the student is given (a "fix the bug" question's buggy version); they
    follow the stub line in the student's cell, uncommented."""
    out, inside, given = [], False, False
    for number, line in enumerate(source.split("\n"), 1):
        begin = BEGIN.match(line)
        if begin:
            if inside:
                raise ValueError(f"{where}, line {number}: '# BEGIN SOLUTION' inside another "
                                 "solution block")
            inside, given = True, False
            out.append(f"{begin.group('indent')}raise NotImplementedError({hint!r})")
        elif END.match(line):
            if not inside:
                raise ValueError(f"{where}, line {number}: '# END SOLUTION' without a "
                                 "'# BEGIN SOLUTION' before it")
            inside = False
        elif inside and STUB.match(line):
            given = True
        elif inside and given:
            out.append(_uncomment(line))
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: '# BEGIN SOLUTION' is never closed by '# END SOLUTION'")
    return "\n".join(out)


def _is_title(cell) -> bool:
    source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
    return cell.cell_type == "markdown" and source.startswith("# ")


def student_notebook(nb, name: str = "notebook"):
    """The student version of a source notebook (a new object; ``nb`` is unchanged)."""
    student = copy.deepcopy(nb)
    cells, placed = [], False
    for index, cell in enumerate(student.cells):
        if cell.cell_type == "code" and not placed and _is_title(student.cells[0]):
            cells.append(handing_in_cell(name))   # after the title and the references
            placed = True
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if source.lstrip("\n").startswith(SOLUTION_ONLY):
            continue
        if cell.cell_type == "code":
            if "BEGIN SOLUTION" in source or "END SOLUTION" in source:
                cell.source = student_source(source, _hint_for(source),
                                             where=f"{name}, cell {index}")
            elif "check(" in source:
                cell.source = CHECK_IMPORT.sub("from kernelcourse.grading import check, hint",
                                               source)
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    student.cells = cells
    return student


def _sources(paths=None) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    return sorted(SOURCE_DIR.glob("*.ipynb"))


def _target(source: Path, student_dir: Path | None) -> Path:
    folder = student_dir if student_dir is not None else source.resolve().parent.parent
    return Path(folder) / student_name(source.name)


def build(paths=None, *, execute: bool = True, student_dir=None, log=print) -> list[Path]:
    """Write (and by default execute) the student version of each source notebook."""
    import nbformat

    written = []
    for source in _sources(paths):
        if not source.exists():
            raise FileNotFoundError(f"no source notebook {source}")
        if execute:
            _execute(source, log)
        nb = nbformat.read(source, as_version=4)
        target = _target(source, student_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student_notebook(nb, source.name), target)
        log(f"wrote {target}")
        if execute:
            _execute(target, log)
        written.append(target)
    return written



def _execute(path: Path, log) -> None:
    from ..._execute import execute_notebook

    _, seconds = execute_notebook(path)
    log(f"executed {path} in {seconds:.1f} s")


def stale_notebooks(paths=None, student_dir=None) -> list[str]:
    """Student versions whose cell sources differ from what :func:`build` would write."""
    import nbformat

    stale = []
    for source in _sources(paths):
        target = _target(source, student_dir)
        expected = student_notebook(nbformat.read(source, as_version=4), source.name)
        if not target.exists():
            stale.append(f"{target}: missing")
            continue
        have = nbformat.read(target, as_version=4)
        want = [(c.cell_type, c.source) for c in expected.cells]
        got = [(c.cell_type, c.source) for c in have.cells]
        if want != got:
            first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b),
                         min(len(want), len(got)))
            stale.append(f"{target}: differs from its source from cell {first} on")
    return stale


# ------------------------------------------------------- the order of the questions
SECTION = re.compile(r"^## (\d+)\.(\d+)((?:\s*(?:-|to|and)\s*(?:\d+\.)?\d+)*)\s+(.*)$")


def section_key(heading: str):
    """Where a question's heading sorts in its set: its first section, or after the last section of
    a range over three or more (a review)."""
    m = SECTION.match(heading)
    lecture, first = int(m.group(1)), int(m.group(2))
    span = re.match(r"\s*(?:-|to)\s*(?:\d+\.)?(\d+)", m.group(3) or "")   # a range, not a list
    last = int(span.group(1)) if span else first
    return (lecture, last + 0.5) if last - first >= 2 else (lecture, first)


def order_by_sections(path) -> list[str]:
    """Sort the question blocks of the source notebook ``path`` by :func:`section_key` (stable),
    each heading carrying its question id; returns the headings in their new order."""
    nb = _nbformat().read(path, as_version=4)
    starts = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## ")]
    head, blocks = nb.cells[:starts[0]], []
    for k, i in enumerate(starts):
        cells = nb.cells[i:starts[k + 1] if k + 1 < len(starts) else len(nb.cells)]
        answer = next((c.source.split("\n", 1)[0].split()[-1] for c in cells
                       if c.cell_type == "code" and c.source.startswith("# ANSWER")), None)
        if answer is None or not SECTION.match(cells[0].source.split("\n", 1)[0]):
            blocks[-1][1].extend(cells)        # stays after the question before it
            continue
        first, _, rest = cells[0].source.partition("\n")
        if f"({answer}," not in first:
            first = re.sub(r"\((\d+ points?)", rf"({answer}, \1", first, count=1)
            assert f"({answer}," in first, f"{path}: no points in the heading {first!r}"
        cells[0].source = first + ("\n" + rest if rest else "")
        blocks.append((section_key(first), cells))
    # what follows the last answer cell ("Where to go next") stays at the end
    last = blocks[-1][1]
    tail_at = max(i for i, c in enumerate(last) if c.cell_type == "code" and c.source.startswith("# ANSWER"))
    tail_at = next((i for i in range(tail_at + 1, len(last))
                    if last[i].cell_type == "markdown" and last[i].source.startswith("## ")), len(last))
    tail = last[tail_at:]
    del last[tail_at:]
    blocks.sort(key=lambda b: b[0])
    nb.cells = head + [c for _, cells in blocks for c in cells] + tail
    _nbformat().write(nb, path)
    return [c.source.split("\n", 1)[0] for c in nb.cells if c.source.startswith("## ")]


def _nbformat():
    import nbformat

    return nbformat
