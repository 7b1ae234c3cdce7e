"""The exercise pipeline: one source notebook with solutions, one generated student version.

``kernelcourse exercises build`` (or ``python3 tasks.py exercises``) reads every
``exercises/source/*.ipynb`` and writes ``exercises/<same name>.ipynb``:

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

__all__ = ["student_source", "student_notebook", "build", "stale_notebooks",
           "SOURCE_DIR", "STUDENT_DIR"]

# the course folder: the one holding this package (an editable install), else the current one
ROOT = Path(__file__).resolve().parents[2]
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
    from .questions import get_question
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


def student_notebook(nb, name: str = "notebook"):
    """The student version of a source notebook (a new object; ``nb`` is unchanged)."""
    student = copy.deepcopy(nb)
    cells = []
    for index, cell in enumerate(student.cells):
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if source.lstrip("\n").startswith(SOLUTION_ONLY):
            continue
        if cell.cell_type == "code":
            if "BEGIN SOLUTION" in source or "END SOLUTION" in source:
                cell.source = student_source(source, _hint_for(source),
                                             where=f"{name}, cell {index}")
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
    return Path(folder) / source.name


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
    from .._execute import execute_notebook

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
