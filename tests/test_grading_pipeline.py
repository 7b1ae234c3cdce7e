"""The exercise pipeline: student versions are generated from the sources, the sources earn full
marks, the untouched student versions earn zero without an error."""
import json
import re

import nbformat
import pytest

from kernelcourse.grading import get_question
from kernelcourse.grading.command.grader import answer_cells, grade_notebook
from kernelcourse.grading.command.pipeline import (SOURCE_DIR, STUDENT_DIR, section_key, stale_notebooks,
                                           student_name, student_notebook, student_source)

SOURCES = sorted(SOURCE_DIR.glob("*.ipynb"))


def test_there_is_an_exercise_set_per_lecture_so_far():
    assert "01_feature_expansions_and_the_kernel_trick.ipynb" in [p.name for p in SOURCES]


# --------------------------------------------------------------------- the transformation
def test_solution_block_becomes_an_indented_stub_with_the_hint():
    source = ("# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    \"\"\"Doc.\"\"\"\n"
              "    # BEGIN SOLUTION\n    x = 2\n    return x ** d\n    # END SOLUTION\n")
    hint = get_question("ex1.q2").hint
    assert student_source(source, hint) == (
        "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    \"\"\"Doc.\"\"\"\n"
        f"    raise NotImplementedError({hint!r})\n")


def test_nbgrader_style_markers_and_several_blocks():
    source = "a = 1\n### BEGIN SOLUTION\nb = 2\n### END SOLUTION\nif a:\n\t# BEGIN SOLUTION\n\tc = 3\n\t# END SOLUTION\n"
    assert student_source(source, "h") == ("a = 1\nraise NotImplementedError('h')\nif a:\n"
                                           "\traise NotImplementedError('h')\n")


@pytest.mark.parametrize("source, match", [
    ("# BEGIN SOLUTION\nx = 1\n", "cell: '# BEGIN SOLUTION' is never closed"),
    ("x = 1\n# END SOLUTION\n", "line 2: '# END SOLUTION' without a '# BEGIN SOLUTION'"),
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION\n", "line 2: '# BEGIN SOLUTION' inside"),
])
def test_unbalanced_markers_are_refused(source, match):
    with pytest.raises(ValueError, match=match):
        student_source(source)


def test_student_notebook_drops_solution_only_cells_and_outputs():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    # BEGIN SOLUTION\n"
                                  "    return 2 ** d\n    # END SOLUTION\n"),
        nbformat.v4.new_code_cell("# SOLUTION ONLY\nprint(all_subsets_dim(3))"),
        nbformat.v4.new_markdown_cell("The answer is 2^d."),
    ])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="x")]
    nb.cells[0].execution_count = 4
    before = nbformat.writes(nb)
    student = student_notebook(nb)
    assert nbformat.writes(nb) == before                       # the source is not modified
    assert [c.cell_type for c in student.cells] == ["code", "markdown"]
    assert student.cells[0].outputs == [] and student.cells[0].execution_count is None
    assert "2 ** d" not in student.cells[0].source
    # the stub's message is neutral: it points to the tiered hints, never to a step
    assert student.cells[0].source.rstrip().endswith(
        """raise NotImplementedError('write your answer here; hint("ex1.q2") gives a hint')""")


def test_an_unknown_question_id_in_a_source_is_an_error():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "# ANSWER ex1.q42\n# BEGIN SOLUTION\nx = 1\n# END SOLUTION\n")])
    with pytest.raises(KeyError, match="no question 'ex1.q42'"):
        student_notebook(nb)


# --------------------------------------------------------------------- the committed notebooks
def test_committed_student_versions_equal_what_the_command_generates():
    assert stale_notebooks() == []


def test_the_check_command_reports_a_stale_student_version(tmp_path, capsys):
    src = tmp_path / "source"
    src.mkdir()
    name = SOURCES[0].name
    nb = nbformat.read(SOURCES[0], as_version=4)
    nbformat.write(nb, src / name)
    nbformat.write(student_notebook(nb, name), tmp_path / student_name(name))
    assert stale_notebooks([src / name]) == []
    nb.cells[3].source += "\n# a late change"
    nbformat.write(nb, src / name)
    [line] = stale_notebooks([src / name])
    # the student's cell 4: the source's cell 3, after the generated hand-in cell
    assert line.endswith("differs from its source from cell 4 on")
    from kernelcourse.__main__ import main
    assert main(["exercises", "build", "--check", str(src / name)]) == 1
    assert "differs from its source from cell 4 on" in capsys.readouterr().err


def test_build_without_execution_writes_the_student_version(tmp_path):
    src = tmp_path / "source"
    src.mkdir()
    nb = nbformat.read(SOURCES[0], as_version=4)
    nbformat.write(nb, src / SOURCES[0].name)
    from kernelcourse.grading.command.pipeline import build
    [written] = build([src / SOURCES[0].name], execute=False, log=lambda *a: None)
    assert written == tmp_path / student_name(SOURCES[0].name)
    committed = nbformat.read(STUDENT_DIR / student_name(SOURCES[0].name), as_version=4)
    assert [c.source for c in nbformat.read(written, as_version=4).cells] == \
        [c.source for c in committed.cells]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_answer_cell_is_graded_and_every_check_matches_its_cell(path):
    nb = json.loads(path.read_text())
    answers = answer_cells(nb)
    assert answers, f"{path.name} has no answer cell"
    for qid, source in answers.items():
        q = get_question(qid)
        assert f"def {q.function}(" in source
        assert "# BEGIN SOLUTION" in source and "# END SOLUTION" in source
    checks = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
              and re.search(r"^check\(", "".join(c["source"]), re.M)]
    assert len(checks) == len(answers)
    # each check cell imports what it needs and finds the answer by its name (so a check run
    # before its answer cell, or after a restart, explains itself instead of a NameError)
    for cell, qid in zip(checks, answers):
        assert cell.startswith("from kernelcourse.grading import check"), cell
        assert cell.rstrip().endswith(f'check("{qid}")'), cell
    # every question of the set has an answer cell
    sets = {qid.split(".")[0] for qid in answers}
    from kernelcourse.grading.questions import all_questions
    assert set(answers) == {q.id for q in all_questions().values() if q.set_name in sets}


# --------------------------------------------------------------------- scores
@pytest.fixture(scope="module")
def graded():
    """``grade_notebook`` with its defaults (a fresh secret seed, the set most of the file's
    answer cells belong to, the file in a process of its own that ends with it), through one
    sealed worker for the module, as ``kernelcourse grade`` grades a folder (without ``pool``
    it starts a worker per file: tests/test_grading_command.py and
    tests/test_grading_handback.py call it so)."""
    from kernelcourse.grading.sealed.pool import WorkerPool
    from kernelcourse.grading.sealed.sandbox import probe

    sandbox = probe()
    pool = WorkerPool(1024, sandbox)
    try:
        yield lambda path: grade_notebook(path, memory_mb=1024, sandbox=sandbox, pool=pool)
    finally:
        pool.close()


#: the quick loop grades set 1; the full run every set
SETS = [pytest.param(p, id=p.name, marks=() if i == 0 else pytest.mark.slow)
        for i, p in enumerate(SOURCES)]


@pytest.mark.parametrize("path", SETS)
def test_sources_score_full_marks(path, graded):
    row = graded(path)
    assert row.errors == []
    assert row.possible > 0 and row.total == pytest.approx(row.possible), row.details


@pytest.mark.parametrize("path", SETS)
def test_untouched_student_versions_score_zero_without_error(path, graded):
    student = STUDENT_DIR / student_name(path.name)
    row = graded(student)
    assert row.errors == [] and row.total == 0 and row.possible > 0
    assert all(d.endswith(", 0/" + d.rsplit("/", 1)[1]) and "not attempted" in d
               for d in row.details.values())


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_stored_outputs_pass_in_the_source_and_are_not_attempted_in_the_student_version(path):
    def lines(nb):  # the printed text of each check cell
        return ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells
                if c.cell_type == "code" and re.search(r"^check\(", c.source, re.M)]
    source = lines(nbformat.read(path, as_version=4))
    student = lines(nbformat.read(STUDENT_DIR / student_name(path.name), as_version=4))
    assert source and all(": passed " in t for t in source)
    assert student and all(": not attempted, 0/" in t for t in student)


# ------------------------------------------------------- what a student reads first
def test_student_sets_are_named_apart_from_their_lectures():
    """A lecture and its exercise set never share a file name (two tabs, a .updated copy)."""
    lectures = {p.name for p in (STUDENT_DIR.parent / "notebooks").glob("*.ipynb")}
    students = sorted(STUDENT_DIR.glob("*.ipynb"))
    assert [p.name for p in students] == sorted(student_name(s.name) for s in SOURCES)
    assert all(p.name.endswith("_exercises.ipynb") and p.name not in lectures for p in students)
    assert student_name("07_svm.ipynb") == "07_svm_exercises.ipynb"
    assert student_name("07_svm_exercises.ipynb") == "07_svm_exercises.ipynb"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_student_versions_say_what_to_hand_in_and_import_hint_in_every_check_cell(path):
    nb = nbformat.read(STUDENT_DIR / student_name(path.name), as_version=4)
    number = int(path.name.split("_", 1)[0])
    assert nb.cells[0].source.startswith(f"# Exercises {number}: "), "the title names the set"
    [top] = [c.source for c in nb.cells[:nb.cells.index(next(c for c in nb.cells
                                                               if c.cell_type == "code"))]
             if c.metadata.get("kernelcourse-handing-in")]
    assert f"`{student_name(path.name)}`" in top and "practice points" in top
    link = re.search(r"\]\(\.\./notebooks/([^)]+\.ipynb)\)", top)
    assert link and (STUDENT_DIR.parent / "notebooks" / link.group(1)).exists(), top
    assert link.group(1).startswith(f"{number:02d}_")
    checks = [c for c in nb.cells if c.cell_type == "code" and re.search(r"^check\(", c.source, re.M)]
    assert checks
    for cell in checks:
        # the stub names hint("<id>"): it must be defined in the check cell itself
        assert re.search(r"^from kernelcourse\.grading import (.*\b)?hint\b", cell.source, re.M), \
            cell.source


@pytest.mark.parametrize("path", sorted((STUDENT_DIR.parent / "notebooks").glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_every_check_cell_of_a_lecture_imports_hint(path):
    """A checkpoint's stub names hint("<id>"): the check cell defines it, whatever ran before."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and re.search(r"^check\(", cell.source, re.M):
            assert re.search(r"^from kernelcourse\.grading import (.*\b)?hint\b", cell.source, re.M), \
                (path.name, cell.source[:200])


# ------------------------------------------------------- the order a student works in
def _question_headings(nb):
    """(heading, question id of the block's answer cell) for every question block."""
    out, heading = [], None
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            heading = cell.source.split("\n", 1)[0]
        elif cell.cell_type == "code" and cell.source.startswith("# ANSWER"):
            out.append((heading, cell.source.split("\n", 1)[0].split()[-1]))
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_exercise_headings_follow_the_sections_and_carry_the_question_id(path):
    blocks = _question_headings(nbformat.read(path, as_version=4))
    assert blocks and all(f"({qid}, " in heading for heading, qid in blocks), \
        [h for h, q in blocks if f"({q}, " not in h]
    keys = [section_key(heading) for heading, _ in blocks]
    assert keys == sorted(keys), [h for h, _ in blocks]
