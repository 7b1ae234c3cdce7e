"""Grading that closes the loop (kernelcourse.grading.handback.feedback, report, roster, exports,
similarity, history, handback, selftest and the instructors' question folders).

The formats follow each platform's documentation: Canvas's gradebook import (Instructure, "How
do I import grades in the Gradebook?", Canvas Instructor Guide: Student, ID, SIS User ID, SIS
Login ID, Section, then "Assignment (id)"), Moodle's CSV grade import (Moodle documentation,
"Import grades": a user-identifying column such as the email address, a grade column, an
optional feedback column), and Gradescope's autograder specification (Gradescope, "Autograder
Specifications", gradescope-autograders.readthedocs.io: setup.sh and run_autograder at the
zip's root, /autograder/submission, /autograder/results/results.json with tests of name,
score, max_score, output, visibility).
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.grading import questions as registry_module
from kernelcourse.grading.handback.exports import (CANVAS_COLUMNS, MOODLE_COLUMNS, canvas_csv,
                                          gradescope_results, moodle_csv)
from kernelcourse.grading.handback.feedback import page_html, page_markdown, page_name, write_feedback
from kernelcourse.grading.gradebook.book import Submission, write_gradebook
from kernelcourse.grading.gradebook.history import archive, book_files, merge, question_hash, read_history
from kernelcourse.grading.questions import all_questions
from kernelcourse.grading.handback.report import class_report, report_html
from kernelcourse.grading.handback.roster import Roster, Student, match, read_roster
from kernelcourse.grading.handback.similarity import THRESHOLD, similar_pairs, similarity

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
REG = all_questions()


def _record(status, points, possible, n_passed, n_cases, detail="", diagnosis=""):
    return {"status": status, "points": points, "possible": possible, "n_passed": n_passed,
            "n_cases": n_cases, "detail": detail, "diagnosis": diagnosis and "d",
            "diagnosis_message": diagnosis}


def _row(file, q5, q6, seed=7, draw="5eed5eed5eed5eed5eed5eed"):
    """A row graded on ex1.q5 (2 points) and ex1.q6 (2 points), drawn with ``seed`` (an
    instructor's --seed run), or from the secret with the token ``draw`` when seed is None."""
    row = Submission(file=file, possible=4.0, seed=seed, graded_at="2026-11-23T20:00:00Z",
                     version="0.1.0")
    for qid, rec in (("ex1.q5", q5), ("ex1.q6", q6)):
        if seed is not None:
            row.question_seeds[qid] = seed
            row.cases[qid] = {"seed": seed, "fixed": 2, "drawn": rec["n_cases"]}
        else:
            row.draws[qid] = draw
            row.cases[qid] = {"draw": draw, "fixed": 2, "drawn": rec["n_cases"]}
        row.points[qid] = rec["points"]
        row.feedback[qid] = rec
        row.details[qid] = rec["detail"]
    row.total = sum(row.points.values())
    return row


PASS5 = _record("passed", 2, 2, 3, 3)
FAIL5 = _record("failed", 0, 2, 0, 3, "first failure on X of shape (3, 2) (X=[[1.0]], gamma=0.5)"
                ": expected [[1.]], got [[0.5]]", "gamma multiplies the squared distance")
PASS6 = _record("passed", 2, 2, 6, 6)
PART6 = _record("failed", 1.6667, 2, 5, 6, "first failure on a PSD matrix (K=[[1.0]]): expected "
                "True, got False", "allow a small tolerance")
STUB = _record("not attempted", 0, 2, 0, 3)


# ------------------------------------------------------------------------ history, stamps
def test_question_hash_is_stable_and_changes_with_the_definition():
    import dataclasses

    q = REG["ex1.q5"]
    assert question_hash(q) == question_hash(q) and len(question_hash(q)) == 12
    assert question_hash(dataclasses.replace(q, rtol=1e-3)) != question_hash(q)
    assert question_hash(dataclasses.replace(q, reference=REG["ex1.q6"].reference)) != \
        question_hash(q)
    assert len({question_hash(x) for x in REG.values()}) == len(REG)


def test_every_question_hash_is_the_same_in_another_interpreter():
    """A hash must not hold a memory address: ex5.q9's and ex6.q9's diagnoses run given code
    compiled from text (no source file), whose repr changed with every run."""
    code = ("import json; from kernelcourse.grading.gradebook.history import question_hash; "
            "from kernelcourse.grading.questions import all_questions, get_question; "
            "print(json.dumps({q: question_hash(get_question(q)) for q in all_questions()}))")
    # one other interpreter, compared with this one (two others compared with each other and
    # with this one asked the same: three processes, three address layouts)
    other = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True).stdout)
    assert len(other) == len(REG)
    assert other == {q: question_hash(x) for q, x in REG.items()}


def test_a_change_to_code_without_a_source_file_changes_the_hash():
    import dataclasses

    from kernelcourse.grading.model.question import Diagnosis

    q = REG["ex5.q9"]
    made = []
    for body in ("return k * 2", "return k * 3"):
        namespace = {}
        exec(compile(f"def mistake(k):\n    {body}\n", "<given>", "exec"), namespace)
        made.append(namespace["mistake"])
    hashes = [question_hash(dataclasses.replace(q, diagnoses=[Diagnosis("x", "y", m)]))
              for m in made]
    assert hashes[0] != hashes[1]


def test_a_new_run_keeps_the_old_gradebook_in_the_history(tmp_path):
    files = book_files(tmp_path, "ex1")
    assert files["csv"].name == "gradebook-ex1.csv" and files["history"].name == "history-ex1.jsonl"
    first = [_row("a.ipynb", PASS5, PART6)]
    write_gradebook(first, tmp_path, 7, ["ex1.q5", "ex1.q6"], name="ex1")
    assert archive(book_files(tmp_path, "ex2"), "x") == 0  # another assignment: untouched
    assert archive(files, "replaced by a new run") == 1
    history = read_history(files["history"])
    assert history[0]["reason"] == "replaced by a new run"
    assert history[0]["row"]["points"] == {"ex1.q5": 2, "ex1.q6": 1.6667}
    book = json.loads(files["json"].read_text())
    row = book["submissions"][0]
    assert {"version", "seed", "graded_at", "question_hashes"} <= set(row)


def test_merge_replaces_only_the_regraded_questions_and_keeps_the_old_row(tmp_path):
    old = [_row(str(tmp_path / "a.ipynb"), FAIL5, PART6), _row(str(tmp_path / "b.ipynb"),
                                                               PASS5, PASS6)]
    new = _row(str(tmp_path / "a.ipynb"), PASS5, PASS6, seed=8)  # both regraded, q6 asked for
    history = tmp_path / "history.jsonl"
    merged, n, failures = merge(old, [new], {"ex1.q6"}, history, "regrade (--update) of ex1.q6")
    assert n == 1 and len(merged) == 2 and failures == []
    a = merged[0]
    assert a.points == {"ex1.q5": 0, "ex1.q6": 2}  # q5 kept, q6 replaced
    assert a.total == 2 and a.regraded == ["ex1.q6"]
    # only the regraded question carries the new seed; the row has no single seed any more
    assert a.question_seeds == {"ex1.q5": 7, "ex1.q6": 8} and a.seed is None
    assert a.cases["ex1.q6"]["seed"] == 8 and a.cases["ex1.q5"]["seed"] == 7
    assert merged[1] is old[1]
    (record,) = read_history(history)
    assert record["row"]["points"] == {"ex1.q5": 0, "ex1.q6": 1.6667}
    assert record["reason"] == "regrade (--update) of ex1.q6"
    added, _, _ = merge(old, [_row(str(tmp_path / "c.ipynb"), PASS5, PASS6)], {"ex1.q6"},
                        history, "r")
    assert len(added) == 3


# ------------------------------------------------------------------------ feedback pages
def _rendered(markdown: str) -> str:
    """A Markdown page as an LMS shows it: rendered to HTML by a CommonMark renderer."""
    import mistune

    return mistune.html(markdown)


def test_feedback_page_shows_points_first_failure_diagnosis_hint_not_the_draw_nor_the_reference():
    """A page says how many cases were fixed and drawn, never how they were drawn: no seed
    (even of an instructor's --seed run) and no draw token, which a student could use with the
    public package to draw the same cases."""
    import inspect

    student = Student("4002", "Bruno Keller", "bruno@uni.example")
    for row in (_row("/x/kellerbruno_4002_1_ex1.ipynb", FAIL5, PASS6, seed=987654321),
                _row("/x/kellerbruno_4002_1_ex1.ipynb", FAIL5, PASS6, seed=None)):
        for text in (page_html(row, REG, assignment="ex1", student=student),
                     _rendered(page_markdown(row, REG, assignment="ex1", student=student))):
            assert "Bruno Keller" in text
            assert "seed" not in text.lower() and "987654321" not in text
            assert "5eed5eed" not in text and "draw token" not in text
            assert "2 fixed cases (the same in every run) and 3 cases drawn for this submission" \
                in text
            assert "2 / 4" in text.replace("<b>", "").replace("</b>", "").replace("**", "") or \
                "2</b> / 4" in text
            assert "expected [[1.]], got [[0.5]]" in text
            assert "gamma multiplies the squared distance" in text
            assert REG["ex1.q5"].hint in text.replace("&#x27;", "'").replace("&gt;", ">")
            assert REG["ex1.q6"].title.replace("?", "") in text
            body = inspect.getsource(REG["ex1.q5"].reference).splitlines()[-1].strip()
            assert body not in text  # no reference code


def test_feedback_escapes_what_came_from_a_submission(tmp_path):
    evil = _record("failed", 0, 2, 0, 3, "first failure on x=1: raised ValueError: "
                   "<script>alert(1)</script>")
    row = _row(str(tmp_path / "<img src=x onerror=alert(1)>.ipynb"), evil, PASS6)
    page = page_html(row, REG)
    assert "<script>" not in page and "<img" not in page and "&lt;script&gt;" in page
    written, failures = write_feedback(
        [row, Submission(file="bad.ipynb", errors=["not a notebook"])], tmp_path / "fb")
    assert failures == []
    assert sorted(p.name for p in written if p.name != "index.html") == sorted(
        f"{page_name(row)}{x}" for x in (".html", ".md"))  # the ungraded row: no page
    assert all(p.parent == tmp_path / "fb" for p in written)


# ------------------------------------------------------------------------ class report
def test_class_report_counts():
    rows = [_row("a", PASS5, PASS6), _row("b", FAIL5, PART6), _row("c", FAIL5, PASS6),
            _row("d", STUB, STUB), Submission(file="bad", errors=["not a notebook"])]
    rep = class_report(rows, REG, assignment=["ex1.q5", "ex1.q6"], seed=7, name="ex1")
    assert rep["submissions"] == 4 and rep["not_graded"] == 1 and rep["possible"] == 4
    totals = [4, 1.6667, 2, 0]
    assert rep["mean"] == pytest.approx(np.mean(totals), abs=1e-3)
    assert rep["median"] == pytest.approx(np.median(totals), abs=1e-3)
    assert sum(b["count"] for b in rep["histogram"]) == 4
    assert [b["count"] for b in rep["histogram"]] == [1, 1, 1, 1]  # 0, 1.67, 2, 4 in [0,1)...[3,4]
    q5, q6 = rep["questions"]
    assert q5["passed_share"] == 0.25 and q5["attempted_share"] == 0.75
    assert q5["mean_points"] == pytest.approx(0.5)
    assert q5["diagnoses"] == [{"message": "gamma multiplies the squared distance", "count": 2}]
    assert q5["common_errors"][0]["count"] == 2
    assert q6["passed_share"] == 0.5
    assert [r["id"] for r in rep["revisit"]] == ["ex1.q5", "ex1.q6"]
    assert rep["revisit"][0]["why"] == "gamma multiplies the squared distance"
    page = report_html(rep)
    assert "<svg" in page and page.count("<rect") == 4 and "http" not in page.replace(
        "http://www.w3.org/2000/svg", "")
    json.dumps(rep)


# ------------------------------------------------------------------------ roster
ROSTER = [Student("4001", "Ada Lovelace", "ada@uni.example"),
          Student("4002", "Bruno Keller", "bruno@uni.example"),
          Student("4003", "Zoë O'Neil", "zoe@uni.example"),
          Student("4004", "Dario Bianchi", "dario@uni.example")]


def test_canvas_names_map_to_the_roster():
    files = ["/s/lovelaceada_4001_900001_ex1.ipynb", "/s/kellerbruno_LATE_4002_900002_ex1.ipynb",
             "/s/oneilzoe_4003_900003_ex1-1.ipynb",
             "/s/lovelaceada_5999_909999_ex1.ipynb",  # Ada's name, another Canvas user's id
             "/s/notes.ipynb"]
    m = match(files, ROSTER, "canvas")
    assert {Path(f).name: s.id for f, s in m.students.items()} == {
        "lovelaceada_4001_900001_ex1.ipynb": "4001",
        "kellerbruno_LATE_4002_900002_ex1.ipynb": "4002",
        "oneilzoe_4003_900003_ex1-1.ipynb": "4003"}
    # the id is Canvas's: an id not in the roster is never matched through the name part
    assert [(Path(f).name, why) for f, why in m.unmatched] == [
        ("lovelaceada_5999_909999_ex1.ipynb", "the id 5999 is not in the roster"),
        ("notes.ipynb", "its name does not fit Canvas's name_[LATE_]userid_attachmentid_file")]
    assert [s.id for s in m.missing] == ["4004"]
    assert [Path(f).name for f in m.late] == ["kellerbruno_LATE_4002_900002_ex1.ipynb"]


def test_moodle_names_and_folders_map_to_the_roster():
    """By the participant id alone (a course roster's column participant): the name part is
    Moodle's cleaned full name (no apostrophe), never matched on."""
    roster = Roster([Student(s.id, s.name, s.email, (("participant", str(i)),))
                     for i, s in zip((123, 124, 125, 126), ROSTER)])
    files = ["/s/Ada Lovelace_123_assignsubmission_file_ex1.ipynb",
             "/s/Zoë ONeil_125_assignsubmission_file/ex1.ipynb",
             "/s/Alex Smith_999_assignsubmission_file_ex1.ipynb"]
    m = match(files, roster, "moodle")
    assert sorted(s.id for s in m.students.values()) == ["4001", "4003"]
    assert m.unmatched == [(files[2], "the participant 999 is not in the grading worksheet")]
    assert {s.id for s in m.missing} == {"4002", "4004"} and m.notes == []


def test_the_moodle_pattern_needs_participant_ids_before_any_grading(tmp_path):
    from kernelcourse.grading.handback import prepare

    path = tmp_path / "roster.csv"
    path.write_text("id,name,email\n4001,Ada Lovelace,ada@x\n")
    with pytest.raises(ValueError, match="holds none: use the assignment's grading worksheet"):
        prepare(pattern="moodle", roster=path)
    path.write_text("id,name,email,participant\n4001,Ada Lovelace,ada@x,12\n")
    assert prepare(pattern="moodle", roster=path).roster[0].get("participant") == "12"


def test_an_instructors_own_pattern():
    custom = match(["/s/hw-4002.ipynb"], ROSTER, r"hw-(?P<id>\d+)\.ipynb")
    assert [s.id for s in custom.students.values()] == ["4002"]
    with pytest.raises(ValueError, match="named groups"):
        match(["/s/a.ipynb"], ROSTER, r"(\d+)")


def test_read_roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("id,name,email,sis_user_id\n4001,Ada Lovelace,ada@x,S1\n")
    (s,) = read_roster(path)
    assert (s.id, s.name, s.email, s.get("sis_user_id")) == ("4001", "Ada Lovelace", "ada@x", "S1")
    path.write_text("id,email\n1,a@x\n")
    with pytest.raises(ValueError, match="missing name"):
        read_roster(path)
    path.write_text("id,name,email\n1,A,a\n1,B,b\n")
    with pytest.raises(ValueError, match="two students under one id '1'"):
        read_roster(path)


# ------------------------------------------------------------------------ LMS formats
def test_canvas_csv_has_canvas_columns():
    rows = [_row("/s/lovelaceada_4001_1_ex1.ipynb", PASS5, PART6)]
    students = {rows[0].file: ROSTER[0]}
    roster = [Student("4001", "Ada Lovelace", "ada@x", (("sis_user_id", "S1"),
                                                        ("sis_login_id", "alovelace"),
                                                        ("section", "A"))), ROSTER[1]]
    lines = list(csv.reader(io.StringIO(canvas_csv(rows, students, roster, "ex1", "5531"))))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ex1 (5531)"]
    assert lines[0][:5] == CANVAS_COLUMNS
    assert lines[1] == ["Ada Lovelace", "4001", "S1", "alovelace", "A", "3.67"]
    assert lines[2] == ["Bruno Keller", "4002", "", "", "", ""]  # no submission: no grade


def test_moodle_csv_identifies_users_by_email_and_carries_feedback():
    rows = [_row("/s/a.ipynb", PASS5, PART6)]
    text = moodle_csv(rows, {rows[0].file: ROSTER[0]}, ROSTER, "ex1")
    lines = list(csv.reader(io.StringIO(text)))
    # no ID number column: the roster has no Moodle ID numbers (a Canvas id is none)
    assert lines[0] == [*MOODLE_COLUMNS, "ex1", "Feedback"]
    assert MOODLE_COLUMNS == ["Full name", "Email address"]
    assert lines[1][:3] == ["Ada Lovelace", "ada@uni.example", "3.67"]
    assert "ex1.q6" in lines[1][3]
    assert len(lines) == 2  # students without a submission are left out


def test_gradescope_results_follow_the_specification():
    row = _row("/s/a.ipynb", FAIL5, PART6)
    data = gradescope_results(row, REG, 3.2)
    assert data["score"] == pytest.approx(1.6667) and data["execution_time"] == 3
    assert len(data["tests"]) == 2
    for test, qid in zip(data["tests"], ["ex1.q5", "ex1.q6"]):
        assert set(test) == {"name", "score", "max_score", "output", "visibility"}
        assert test["name"].startswith(qid) and test["visibility"] == "visible"
        assert test["max_score"] == REG[qid].points
    assert "gamma multiplies" in data["tests"][0]["output"]
    json.dumps(data)


# ------------------------------------------------------------------------ similarity
ORIGINAL = '''# ANSWER ex1.q5
import numpy as np


def rbf_gram(X, Z, gamma):
    """K[i, j] = exp(-gamma ||X[i] - Z[j]||^2)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    x2 = (X ** 2).sum(axis=1)
    z2 = (Z ** 2).sum(axis=1)
    sq = x2[:, None] + z2[None, :] - 2 * X @ Z.T
    return np.exp(-gamma * np.maximum(sq, 0))
'''
# renamed variables, the two independent lines swapped, comments changed, other spacing
COPY = '''# ANSWER ex1.q5
import numpy


def rbf_gram(A, B, g):
    # my RBF kernel
    A, B = numpy.asarray(A, float), numpy.asarray(B, float)
    nb = (B**2).sum(axis=1)          # norms of B
    na = (A**2).sum(axis=1)
    d = na[:, None] + nb[None, :] - 2 * A @ B.T

    return numpy.exp(-g * numpy.maximum(d, 0))
'''
INDEPENDENT = [
    '''# ANSWER ex1.q5
import numpy as np


def rbf_gram(X, Z, gamma):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    K = np.empty((len(X), len(Z)))
    for i in range(len(X)):
        for j in range(len(Z)):
            K[i, j] = np.exp(-gamma * np.sum((X[i] - Z[j]) ** 2))
    return K
''',
    '''# ANSWER ex1.q5
from scipy.spatial.distance import cdist
import numpy as np


def rbf_gram(X, Z, gamma):
    D = cdist(np.atleast_2d(X), np.atleast_2d(Z), "sqeuclidean")
    K = np.exp(-gamma * D)
    return K
''',
    '''# ANSWER ex1.q5
import numpy as np


def rbf_gram(X, Z, gamma):
    X = np.asarray(X, dtype=float)
    Z = np.asarray(Z, dtype=float)
    diff = X[:, np.newaxis, :] - Z[np.newaxis, :, :]
    return np.exp(-gamma * np.einsum("ijk,ijk->ij", diff, diff))
''',
]
STUB_CELL = '''# ANSWER ex1.q5
import numpy as np


def rbf_gram(X, Z, gamma):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    raise NotImplementedError("K[i, j] = exp(-gamma * ||X[i] - Z[j]||^2)")
'''


def test_planted_copies_are_found_and_independent_answers_are_not():
    assert similarity(ORIGINAL, COPY) == 1.0
    one_edit = COPY.replace("numpy.maximum(d, 0)", "abs(d)")
    assert similarity(ORIGINAL, one_edit) >= THRESHOLD - 0.05
    answers = {"orig.ipynb": {"ex1.q5": ORIGINAL}, "copy.ipynb": {"ex1.q5": COPY},
               "stub1.ipynb": {"ex1.q5": STUB_CELL}, "stub2.ipynb": {"ex1.q5": STUB_CELL},
               "broken.ipynb": {"ex1.q5": "def rbf_gram(:"}}
    answers.update({f"ind{i}.ipynb": {"ex1.q5": s} for i, s in enumerate(INDEPENDENT)})
    pairs = similar_pairs(answers)
    assert [(p["a"], p["b"]) for p in pairs] == [("orig.ipynb", "copy.ipynb")]
    for a in [ORIGINAL, *INDEPENDENT]:
        for b in INDEPENDENT:
            if a is not b:
                assert similarity(a, b) < THRESHOLD, (a, b)
    assert similarity(STUB_CELL, STUB_CELL) is None  # stubs are not compared


def test_every_independent_answer_is_right():
    """The independent answers above are real answers: each passes the question."""
    from kernelcourse.grading.checking.scoring import evaluate

    for source in [ORIGINAL, COPY, *INDEPENDENT]:
        space: dict = {}
        exec(compile(source, "<answer>", "exec"), space)
        assert evaluate(REG["ex1.q5"], space["rbf_gram"], 0).status == "passed"


# ------------------------------------------------------------------------ own questions
@pytest.fixture
def own_folder(tmp_path, monkeypatch):
    folder = tmp_path / "course-questions"
    folder.mkdir()
    shutil.copy(ROOT / "docs" / "question_template.py", folder / "my1.py")
    monkeypatch.delenv(registry_module.ENVIRONMENT_VARIABLE, raising=False)
    yield folder
    # use_questions_from set the variable itself; a monkeypatch.delenv here would record the
    # folder and put it back at monkeypatch's undo, into every later test of this process
    os.environ.pop(registry_module.ENVIRONMENT_VARIABLE, None)
    registry_module._REGISTRY = None
    registry_module._ERRORS.clear()   # a broken file of this folder is no error of the next test


def test_questions_from_a_folder_are_registered_checked_and_hashed(own_folder, capsys):
    from kernelcourse.grading import check, reset_session
    from kernelcourse.grading.command.selftest import check_question

    assert "my1.q1" not in all_questions()
    registry_module.use_questions_from(own_folder)
    assert os.environ["KERNELCOURSE_QUESTIONS"] == str(own_folder.resolve())
    q = all_questions()["my1.q1"]
    assert check_question(q) == []
    reset_session()
    check("my1.q1", q.reference)  # the instructor's reference is the grader's own answer
    assert "uses the course's reference" in capsys.readouterr().out

    def normalised_gram(K):
        K = np.asarray(K, float)
        s = 1 / np.sqrt(np.diag(K))
        return s[:, None] * K * s[None, :]
    check("my1.q1", normalised_gram)
    assert "passed all 3 cases, 2/2 points" in capsys.readouterr().out

    def normalised_gram(K):  # the "no square root" mistake
        K = np.asarray(K, float)
        return K / np.outer(np.diag(K), np.diag(K))
    check("my1.q1", normalised_gram)
    assert "Likely mistake: divide by sqrt(K_ii K_jj)" in capsys.readouterr().out
    assert len(question_hash(q)) == 12


def test_a_broken_question_file_is_reported_not_fatal(own_folder):
    (own_folder / "broken.py").write_text("raise RuntimeError('oops')\n")
    (own_folder / "_private.py").write_text("raise RuntimeError('never imported')\n")
    registry_module.use_questions_from(own_folder)
    assert "my1.q1" in all_questions()
    errors = registry_module.import_errors()
    assert any("broken.py" in k and "oops" in v for k, v in errors.items())
    assert not any("_private" in k for k in errors)
    with pytest.raises(ValueError, match="no folder"):
        registry_module.use_questions_from(own_folder / "nope")


def test_a_question_with_problems_is_told_what_to_fix():
    import dataclasses

    from kernelcourse.grading.command.selftest import check_question

    q = REG["ex1.q5"]
    from kernelcourse.grading import Property

    assert check_question(q) == []
    wrong_property = dataclasses.replace(q, id="zz.q1", properties=[
        Property("no entry above 0.9", lambda K, case: np.max(K) <= 0.9, "too large")])
    assert any("the reference does not pass" in p for p in check_question(wrong_property))
    same = dataclasses.replace(q, id="zz.q3", reference=q.diagnoses[0].mistake)
    assert any(f"{q.diagnoses[0].name!r} does not fire" in p for p in check_question(same))
    fixed_cases = dataclasses.replace(q, id="zz.q2", cases=lambda rng: q.cases(
        np.random.default_rng(0)))
    assert any("ignore the seed" in p for p in check_question(fixed_cases))


# ------------------------------------------------------------------------ the whole loop
def _kc(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "kernelcourse", *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={**{k: v for k, v in os.environ.items()
                                  if k != registry_module.ENVIRONMENT_VARIABLE}, **(env or {})})


@pytest.mark.slow
def test_grade_hand_back_export_update_and_gradescope(tmp_path):
    """A small class: Canvas-named files, a roster missing one student's file and one file
    of nobody on it (a copy of another's notebook)."""
    sub = tmp_path / "canvas"
    sub.mkdir()
    shutil.copy(FIXTURES / "correct.ipynb", sub / "lovelaceada_4001_900001_ex1.ipynb")
    shutil.copy(FIXTURES / "mistakes.ipynb", sub / "kellerbruno_LATE_4002_900002_ex1.ipynb")
    shutil.copy(FIXTURES / "untouched.ipynb", sub / "rossichiara_4003_900003_ex1.ipynb")
    shutil.copy(FIXTURES / "correct.ipynb", sub / "smithalex_5999_909999_ex1.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,sis_user_id,sis_login_id,section\n"
                      "4001,Ada Lovelace,ada@uni.example,S1,alovelace,A\n"
                      "4002,Bruno Keller,bruno@uni.example,S2,bkeller,A\n"
                      "4003,Chiara Rossi,chiara@uni.example,S3,crossi,A\n"
                      "4004,Dario Bianchi,dario@uni.example,S4,dbianchi,A\n")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q2,ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "7", "--no-progress", "--jobs", "2",
              "--feedback", out / "feedback", "--report", "--roster", roster,
              "--export", "canvas", "--export", "moodle", "--canvas-assignment-id", "77",
              "--similarity")
    assert res.returncode == 0, res.stderr[-3000:]
    assert "no student for the file smithalex_5999_909999_ex1.ipynb" in res.stdout
    assert "no submission from Dario Bianchi (4004)" in res.stdout
    names = sorted(p.name for p in out.iterdir())
    assert names == ["canvas-ex1.csv", "feedback", "gradebook-ex1.csv", "gradebook-ex1.json",
                     "moodle-ex1.csv", "report-ex1.html", "report-ex1.json",
                     "similarity-ex1.json"]
    smith = page_name(Submission(file=str(sub / "smithalex_5999_909999_ex1.ipynb")))
    assert smith.startswith("smithalex_5999_909999_ex1~")  # a file's page: name and hash
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted([
        "4001.html", "4001.md", "4002.html", "4002.md", "4003.html", "4003.md",
        f"{smith}.html", f"{smith}.md", "index.html"])
    assert "Likely mistake" in (out / "feedback" / "4002.md").read_text()
    canvas = list(csv.reader(open(out / "canvas-ex1.csv", newline="")))
    assert canvas[0] == [*CANVAS_COLUMNS, "ex1 (77)"]
    assert [r[1] for r in canvas[1:]] == ["4001", "4002", "4003", "4004"]
    assert canvas[1][5] == "5" and canvas[3][5] == "0" and canvas[4][5] == ""
    moodle = list(csv.reader(open(out / "moodle-ex1.csv", newline="")))
    assert moodle[0][:2] == MOODLE_COLUMNS and [r[1] for r in moodle[1:]] == [
        "ada@uni.example", "bruno@uni.example", "chiara@uni.example"]
    sim = json.loads((out / "similarity-ex1.json").read_text())
    # the copied notebook is the published solution: listed as such, not as a pair
    assert sim["pairs"] == []
    assert {(r["student"], r["question"]) for r in sim["like_reference"]} >= {
        ("Ada Lovelace (4001)", "ex1.q5"), ("smithalex_5999_909999_ex1.ipynb", "ex1.q5")}
    assert {r["question"] for r in sim["like_reference"]} <= {"ex1.q2", "ex1.q5", "ex1.q6"}
    report = json.loads((out / "report-ex1.json").read_text())
    assert report["submissions"] == 4 and sum(b["count"] for b in report["histogram"]) == 4
    book = json.loads((out / "gradebook-ex1.json").read_text())
    for row in book["submissions"]:
        assert row["seed"] == 7 and row["version"] and row["graded_at"]
        assert set(row["question_hashes"]) == {"ex1.q2", "ex1.q5", "ex1.q6"}

    # a resubmission: Bruno's q5 fixed, only q5 regraded into the gradebook
    bruno = sub / "kellerbruno_LATE_4002_900002_ex1.ipynb"
    nb = json.loads(bruno.read_text())
    right = {c["source"] if isinstance(c["source"], str) else "".join(c["source"])
             for c in json.loads((FIXTURES / "correct.ipynb").read_text())["cells"]}
    q5 = next(s for s in right if s.startswith("# ANSWER ex1.q5"))
    for cell in nb["cells"]:
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if src.startswith("# ANSWER ex1.q5"):
            cell["source"] = q5
    bruno.write_text(json.dumps(nb))
    old = next(r for r in book["submissions"] if "kellerbruno" in r["file"])
    res = _kc("grade", bruno, "--questions", "ex1.q5", "--assignment", "ex1", "--update",
              "--output", out, "--seed", "7", "--no-progress")
    assert res.returncode == 0, res.stderr[-3000:]
    book2 = json.loads((out / "gradebook-ex1.json").read_text())
    assert len(book2["submissions"]) == 4
    new = next(r for r in book2["submissions"] if "kellerbruno" in r["file"])
    assert new["points"]["ex1.q5"] == 2 and old["points"]["ex1.q5"] == 0
    assert new["points"]["ex1.q2"] == old["points"]["ex1.q2"]
    assert new["regraded"] == ["ex1.q5"]
    (record,) = read_history(out / "history-ex1.jsonl")
    assert record["row"]["points"] == old["points"]

    # Gradescope: build the zip, unpack it as Gradescope does, run run_autograder
    zip_path = tmp_path / "autograder.zip"
    res = _kc("gradescope", "build", "--questions", "ex1.q2,ex1.q5,ex1.q6", "--seed", "7",
              "--output", zip_path)
    assert res.returncode == 0, res.stderr
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        assert {"setup.sh", "run_autograder"} <= set(names)  # at the zip's root
        assert z.getinfo("run_autograder").external_attr >> 16 & 0o111
        assert "package/kernelcourse/grading/command/grader.py" in names
    from kernelcourse.grading.handback.exports import unpack_for_test

    root = unpack_for_test(zip_path, tmp_path / "autograder")
    shutil.copy(FIXTURES / "mistakes.ipynb", root / "submission" / "ex1.ipynb")
    run = subprocess.run([str(root / "run_autograder")], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "KERNELCOURSE_AUTOGRADER_ROOT": str(root),
                                           "KERNELCOURSE_PYTHON": sys.executable})
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert [t["name"].split()[0] for t in results["tests"]] == ["ex1.q2", "ex1.q5", "ex1.q6"]
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    assert results["score"] == pytest.approx(old["total"])  # the same grader, the same seed
    for t in results["tests"]:
        assert set(t) == {"name", "score", "max_score", "output", "visibility"}


@pytest.mark.slow
def test_an_answer_cannot_read_or_call_the_instructors_reference(tmp_path):
    """The instructors' questions folder is not in the sandbox (the worker never holds a
    question), so an answer can neither read its files nor reach its reference."""
    import nbformat

    folder = tmp_path / "course-questions"
    folder.mkdir()
    shutil.copy(ROOT / "docs" / "question_template.py", folder / "my1.py")
    honest = ("import numpy as np\n\n\ndef normalised_gram(K):\n    K = np.asarray(K, float)\n"
              "    s = 1 / np.sqrt(np.diag(K))\n    return s[:, None] * K * s[None, :]\n")
    reads = (f"source = open({str(folder / 'my1.py')!r}).read()\nspace = {{}}\n"
             "exec(source, space)\nnormalised_gram = space['normalised_gram']\n")
    imports = ("import sys\nnormalised_gram = next(m.normalised_gram for n, m in "
               "list(sys.modules.items()) if n.startswith('kernelcourse.grading.questions.ext_'))\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    for name, body in (("honest", honest), ("reads", reads), ("imports", imports)):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("# ANSWER my1.q1\n" + body)]
        nbformat.write(nb, sub / f"{name}.ipynb")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions-from", folder, "--questions", "my1", "--output", out,
              "--no-progress", "--jobs", "2", "--seed", "1")
    assert res.returncode == 0, res.stderr[-3000:]
    rows = {Path(r["file"]).stem: r for r in
            json.loads((out / "gradebook.json").read_text())["submissions"]}
    assert rows["honest"]["total"] == 2
    assert rows["reads"]["total"] == 0
    assert "No such file" in rows["reads"]["details"]["my1.q1"]
    assert rows["imports"]["total"] == 0
    assert "StopIteration" in rows["imports"]["details"]["my1.q1"]  # no question module there


def test_update_needs_an_existing_gradebook(tmp_path):
    from kernelcourse.grading.command.grader import grade_paths

    with pytest.raises(ValueError, match="no gradebook .*gradebook-ex9.json to update"):
        grade_paths([tmp_path], output=tmp_path, assignment_name="ex9", update=True,
                    sandbox=None, progress=False)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------ Gradescope's image
def _setup_run(tmp_path, python3_is_new: bool):
    """Run the zip's setup.sh with logging stand-ins for apt-get, add-apt-repository and the
    interpreters (Gradescope's Ubuntu 22.04 base: python3 is 3.10 unless told otherwise);
    the lines they logged, in order."""
    from kernelcourse.grading.handback.exports import _SETUP_SH

    stubs, log, root = tmp_path / "bin", tmp_path / "log", tmp_path / "autograder"
    stubs.mkdir()
    (root / "source" / "package").mkdir(parents=True)

    def script(path, name, body):
        path.write_text(f"#!/bin/bash\necho \"{name} $*\" >> {log}\n{body}\n")
        path.chmod(0o755)

    venv_python = tmp_path / "venv-python"
    script(venv_python, "venv-python", "exit 0")
    interpreter = (f'if [ "$1" = -m ] && [ "$2" = venv ]; then /bin/mkdir -p "$3/bin"; '
                   f'/bin/cp {venv_python} "$3/bin/python"; fi; exit 0')
    python311 = tmp_path / "python3.11"
    script(python311, "python3.11", interpreter)
    script(stubs / "python3", "python3", interpreter if python3_is_new else
           'if [ "$1" = -c ]; then exit 1; fi; exit 0')  # 3.10: fails the version probe
    # apt-get brings python3.11 when asked for it
    script(stubs / "apt-get", "apt-get",
           f'case "$*" in *python3.11*) /bin/cp {python311} {stubs}/python3.11;; esac')
    script(stubs / "add-apt-repository", "add-apt-repository", "")
    setup = tmp_path / "setup.sh"
    setup.write_text(_SETUP_SH)
    run = subprocess.run(["/bin/bash", str(setup)], capture_output=True, text=True,
                         env={"PATH": str(stubs), "KERNELCOURSE_AUTOGRADER_ROOT": str(root)})
    assert run.returncode == 0, run.stderr
    return [line.replace(str(root), "ROOT") for line in log.read_text().splitlines()]


def test_setup_sh_brings_python_311_on_gradescopes_ubuntu_2204(tmp_path):
    """Gradescope's default base image is Ubuntu 22.04 (python3 3.10); its advice is an
    explicit Python beside the system's (autograder documentation, "Python 3 issues")."""
    log = _setup_run(tmp_path, python3_is_new=False)
    assert "add-apt-repository -y ppa:deadsnakes/ppa" in log
    install = next(i for i, x in enumerate(log) if x.startswith("apt-get install")
                   and "python3.11-venv" in x)
    venv = log.index("python3.11 -m venv ROOT/venv")
    assert install < venv
    assert not any(x.startswith("python3 -m venv") for x in log)  # never the 3.10
    assert "venv-python -m pip install ROOT/source/package" in log
    assert any("bubblewrap" in x for x in log if x.startswith("apt-get install"))


def test_setup_sh_uses_an_image_python_that_is_already_new_enough(tmp_path):
    log = _setup_run(tmp_path, python3_is_new=True)
    assert not any(x.startswith("add-apt-repository") for x in log)
    assert "python3 -m venv ROOT/venv" in log


def test_a_built_autograder_carries_the_instructors_secret_not_a_seed(tmp_path):
    """The zip (which students never see) holds the secret of the key file beside it, made
    once with mode 0600; no seed: each submission draws its own cases from the secret."""
    import stat

    from kernelcourse.grading.handback.exports import build_gradescope

    secrets_ = []
    for folder in ("one", "one", "two"):
        path = build_gradescope(tmp_path / folder / "autograder.zip", ["ex1.q5"])
        with zipfile.ZipFile(path) as z:
            config = json.loads(z.read("config.json"))
        assert config["seed"] is None
        key = tmp_path / folder / "grading-secret.key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert bytes.fromhex(key.read_text().strip()).hex() == config["secret"]
        secrets_.append(config["secret"])
    assert len(bytes.fromhex(secrets_[0])) == 32
    assert secrets_[0] == secrets_[1] != secrets_[2]  # one course, one secret


@pytest.mark.slow
def test_when_the_sandbox_cannot_start_every_result_says_so(tmp_path):
    from kernelcourse.grading.handback.exports import build_gradescope, unpack_for_test

    zip_path = build_gradescope(tmp_path / "autograder.zip", ["ex1.q5", "ex1.q6"])
    root = unpack_for_test(zip_path, tmp_path / "autograder")
    shutil.copy(FIXTURES / "correct.ipynb", root / "submission" / "ex1.ipynb")
    run = subprocess.run([str(root / "run_autograder")], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "KERNELCOURSE_AUTOGRADER_ROOT": str(root),
                                           "KERNELCOURSE_PYTHON": sys.executable,
                                           "KERNELCOURSE_BWRAP": "/bin/false"})
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["output"].startswith("NOT GRADED: the grader's sandbox cannot start")
    assert [t["name"].split()[0] for t in results["tests"]] == ["ex1.q5", "ex1.q6"]
    for t in results["tests"]:
        assert t["name"].endswith("(NOT GRADED)") and t["output"].startswith("NOT GRADED")
        assert t["extra_data"]["graded"] is False and t["max_score"] == REG[t["name"][:6]].points


# ------------------------------------------------------------------------ item analysis
def test_item_analysis_against_a_hand_computation():
    """Four students, three right-or-wrong questions (a Guttman pattern). By hand: the
    difficulties are 3/4, 1/2, 1/4; KR-20 = 3/2 (1 - sum p q / var(total)) with
    sum p q = 3/16 + 1/4 + 3/16 = 5/8 and var(total) = 5/4 (population), so 0.75; the first
    question against the rest ([2, 1, 0, 0]): r = 0.75 / sqrt(0.75 * 2.75) = 0.52223."""
    from kernelcourse.grading.handback.report import LOW_DISCRIMINATION, cronbach_alpha, item_analysis

    scores = [[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 0]]
    result = item_analysis(scores, [1, 1, 1])
    assert [q["difficulty"] for q in result["questions"]] == [0.75, 0.5, 0.25]
    assert result["alpha"] == pytest.approx(0.75, abs=1e-4)
    assert result["questions"][0]["discrimination"] == pytest.approx(0.75 / (0.75 * 2.75) ** 0.5,
                                                                     abs=1e-4)
    # the oracle: numpy's correlation and variances
    s = np.array(scores, float)
    for j in range(3):
        rest = s.sum(axis=1) - s[:, j]
        assert result["questions"][j]["discrimination"] == pytest.approx(
            np.corrcoef(s[:, j], rest)[0, 1], abs=1e-4)
    k = 3
    alpha = k / (k - 1) * (1 - s.var(axis=0, ddof=1).sum() / s.sum(axis=1).var(ddof=1))
    assert cronbach_alpha(scores) == pytest.approx(alpha, abs=1e-12)
    # a question that goes against the rest is flagged (PrairieLearn's 0.2)
    flipped = [[r[0], r[1], 1 - r[2]] for r in scores]
    flagged = item_analysis(flipped, [1, 1, 1])["questions"]
    assert flagged[2]["discrimination"] < LOW_DISCRIMINATION and flagged[2]["flag"]
    assert not flagged[0]["flag"]
    # no spread, no number: never a made-up correlation
    assert item_analysis([[1, 1], [1, 0]], [1, 1])["questions"][0]["discrimination"] is None
    assert cronbach_alpha([[1, 1]]) is None


def test_wording_cannot_be_misread():
    from kernelcourse.grading.handback.feedback import _label, _what

    crashed = {"status": "error", "detail": "raised ZeroDivisionError: division by zero",
               "n_passed": 0, "n_cases": 3}
    assert _label(crashed) == "crashed" and _what(crashed).startswith("crashed: raised")
    stopped = {"status": "error", "detail": "stopped: the worker stopped answering"}
    assert _label(stopped) == "stopped (time limit)"
    failed = _record("failed", 0, 2, 0, 3, "first failure on 6 points in 2-D (X=[[0.0]]): "
                     "expected 1, got 2")
    row = _row("/s/a.ipynb", failed, PASS6)
    page = page_markdown(row, REG)
    assert "6 data points in 2" in _rendered(page) and "not graded" not in page
    rep = class_report([row], REG, assignment=["ex1.q5", "ex1.q6"])
    assert rep["questions"][0]["common_errors"][0]["example"].startswith("case 6 data points")


# ------------------------------------------------------------------------ no one file breaks it
def test_deep_nesting_is_left_out_of_the_similarity_not_fatal():
    from kernelcourse.grading.handback.similarity import fingerprints, similar_by_student

    deep = ["def f(x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n",
            "def f(x):\n    y = 1\n    z = 2\n    return " + "x + " * 60000 + "x\n",
            "def f(x):\n    y = 1\n    z = 2\n    return " + "[" * 150 + "]" * 150 + "\n",
            "def f(x):\n    y = 1\n    z = 2\n    return " + "-" * 100000 + "x\n"]
    for source in deep:
        assert fingerprints(source) is None
    answers = {f"deep{i}.ipynb": {"ex1.q5": s} for i, s in enumerate(deep)}
    answers.update({"orig.ipynb": {"ex1.q5": ORIGINAL}, "copy.ipynb": {"ex1.q5": COPY}})
    result = similar_by_student(answers, references=False)
    assert [(p["a"], p["b"]) for p in result["pairs"]] == [("copy.ipynb", "orig.ipynb")]
    assert result["not_compared"] == len(deep)


def test_each_output_is_written_on_its_own(tmp_path):
    from kernelcourse.grading.handback import hand_back

    rows = [_row(str(tmp_path / "lovelaceada_4001_1_ex1.ipynb"), PASS5, PART6)]
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n4001,Ada Lovelace,ada@x\n")
    blocked = tmp_path / "feedback"
    blocked.write_text("a file where the feedback folder should be")
    lines = hand_back(rows, output=tmp_path, name="ex1", feedback=blocked, report=True,
                      roster=roster, exports=("canvas", "moodle"), canvas_assignment_id="9")
    failed = [x for x in lines if x.startswith("FAILED")]
    assert len(failed) == 1 and failed[0].startswith("FAILED: feedback pages: ")
    for name in ("report-ex1.html", "report-ex1.json", "canvas-ex1.csv", "moodle-ex1.csv"):
        assert (tmp_path / name).exists(), name


def test_a_display_name_cannot_pass_for_another_participant():
    from kernelcourse.grading.handback.roster import Roster, Student, match

    sheet = Roster([Student("102", "Ben Ode", "b@x"),
                    Student("103", "Eve_102_assignsubmission_file_x", "e@x")], kind="moodle")
    files = ["/s/Eve_102_assignsubmission_file_x_103_assignsubmission_file_/a.ipynb",
             "/s/Ben Ode_102_assignsubmission_file_/a.ipynb",
             "/s/Mallory_102_assignsubmission_file_b.ipynb"]  # flat, name not participant 102's
    m = match(files, sheet, "moodle")
    # the folder Moodle named ends in Eve's participant id; a flat name is matched by its
    # participant id too, and a name part that is not the worksheet's is pointed out
    assert {f: s.id for f, s in m.students.items()} == {files[0]: "103", files[1]: "102",
                                                         files[2]: "102"}
    assert m.claimed == {"102": [files[1], files[2]]} and m.unmatched == []
    assert len(m.notes) == 2 and "its name part says 'Mallory'" in m.notes[1]


def test_a_feedback_page_gives_the_failing_case_s_inputs_in_full_or_the_call_that_prints_them():
    """The verdict keeps the inputs of the case it reports (in full, or the call that prints
    them), the grader's feedback record carries them, and both pages show them, so a student
    can reproduce the failing case; a case whose label states its inputs needs no more."""
    from kernelcourse.grading import evaluate
    from kernelcourse.grading.command.grader import grade_notebook
    from kernelcourse.grading.gradebook.book import feedback_record

    q5 = REG["ex1.q5"]
    wrong = evaluate(q5, lambda X, Z=None, gamma=1.0: np.zeros((len(X), len(X if Z is None else Z))),
                     seed=7, detect_shortcuts=False)
    assert wrong.status == "failed" and wrong.inputs
    record = feedback_record(wrong)
    # the record holds the inputs written out in full (a call that prints them would need the
    # grader's drawn cases, which no student can draw)
    assert record["inputs"] == wrong.full_inputs and record["inputs"].startswith("X=")
    assert "case_inputs" not in record["inputs"] and "seed" not in record["inputs"]
    row = _row("a.ipynb", record, _record("passed", 2, 2, 3, 3))
    markdown, html = page_markdown(row, REG), page_html(row, REG)
    assert "- Its inputs:" in markdown and wrong.full_inputs.splitlines()[0][:200] in markdown
    assert "its inputs in full" in html
    # through the grader: a short case's label states its inputs, so the record needs none
    graded = grade_notebook(FIXTURES / "mistakes.ipynb", selection=["ex1.q2"], seed=7)
    assert graded.feedback["ex1.q2"]["detail"].startswith("On case 4 (fixed, d=35)")
    assert graded.feedback["ex1.q2"]["inputs"] == ""


# ------------------------------------------------------------------------ files the run cannot name
def test_a_file_name_that_is_not_utf8_is_a_reported_row_and_stops_nothing(tmp_path):
    from kernelcourse.grading.intake.notebooks import clean_text, find_notebooks

    good = tmp_path / "müllerjürgen_1006_70006_ex1.ipynb"
    good.write_text("{}")
    bad = os.fsdecode(os.fsencode(str(tmp_path)) + b"/m\xfcller_1007_70007_ex1.ipynb")
    Path(bad).write_text("{}")
    found, problems = find_notebooks([tmp_path])
    assert found == [good]
    ((shown, why),) = problems
    assert shown.endswith("m\\xfcller_1007_70007_ex1.ipynb") and shown.encode("utf-8")
    assert why.startswith("its name is not valid UTF-8 (byte 0xfc at ")
    assert clean_text("a\udcfcb\u202e") == "a\\xfcb\\u202e"
    # its row, matched to its student by the id, exports no grade (not a 0) and says so
    rows = [Submission(file=shown, errors=[why]), _row(str(good), PASS5, PASS6)]
    canvas = Roster([Student("1006", "Müller, Jürgen"), Student("1007", "Müller, Anna")],
                    kind="canvas")
    m = match([r.file for r in rows], canvas, "canvas")
    text = canvas_csv(rows, m.exported(), canvas, "ex1", "77")
    assert [line[-1] for line in csv.reader(io.StringIO(text))][1:] == ["4", ""]


def test_update_on_a_hand_edited_gradebook_names_the_row_and_the_field(tmp_path):
    from kernelcourse.grading.gradebook.history import load_rows

    files = book_files(tmp_path, "ex1")
    write_gradebook([_row("a.ipynb", PASS5, PASS6), _row("b.ipynb", FAIL5, PART6)], tmp_path, 7,
                    ["ex1.q5", "ex1.q6"], name="ex1")
    before = files["json"].read_bytes()
    book = json.loads(before)
    book["submissions"][1]["points"]["ex1.q5"] = "3"
    files["json"].write_text(json.dumps(book))
    with pytest.raises(ValueError, match=r"row 2 \(b\.ipynb\) has points\['ex1\.q5'\] = '3' "
                                         r"\(a str\); it must be a number \(written without "
                                         r"quotes\).*nothing was changed"):
        load_rows(files)
    book["submissions"][1]["points"]["ex1.q5"] = 3
    book["submissions"][0]["total"] = "4"
    files["json"].write_text(json.dumps(book))
    with pytest.raises(ValueError, match=r"row 1 \(a\.ipynb\) has total = '4' \(a str\)"):
        load_rows(files)
    assert not files["history"].exists()


def test_the_moodle_worksheet_writes_no_cell_back_as_a_formula():
    header = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
              "Last modified (grade)", "Online text", "Feedback comments"]
    row = ["Participant 7", "Ada", "-ada@x", "Submitted", "", "4.00", "-",
           '=HYPERLINK("http://x.example","click")', ""]
    sheet = Roster([Student("7", "Ada", "-ada@x", (("identifier", "Participant 7"),
                                                  ("row", tuple(row))))],
                   kind="moodle", columns=header)
    graded = _row("a.ipynb", PASS5, PASS6)
    (_, line) = list(csv.reader(io.StringIO(moodle_csv([graded], {"a.ipynb": sheet[0]}, sheet,
                                                      "ex1"))))
    cells = dict(zip(header, line))
    assert cells["Online text"].startswith("'=HYPERLINK(")
    assert cells["Email address"] == "-ada@x" and cells["Last modified (grade)"] == "-"
    assert cells["Grade"] == "4" and cells["Identifier"] == "Participant 7"


# ------------------------------------------------------------------------ endless loops
# the records the grader gave for hanging.ipynb (question time limit 2 s): a loop in the
# function (each case stops) and a loop at the cell's top level (the cell never finishes)
LOOP_IN_FUNCTION = _record("failed", 0, 2, 0, 8, "On case 1 (fixed, X of shape (2, 1)): "
                           "stopped: time limit of 2 s is over (an endless loop?)")
LOOP_AT_TOP = _record("error", 0, 2, 0, 6, "the answer cell ran past the time limit of 2 s")


def test_an_endless_loop_gets_one_verdict_wherever_it_sits():
    from kernelcourse.grading.handback.feedback import _label, _what
    from kernelcourse.grading.handback.outcomes import outcome

    for record in (LOOP_IN_FUNCTION, LOOP_AT_TOP):
        assert outcome(record) == "timeout"
        assert _label(record) == "stopped (time limit)"
        assert _what(record) == "stopped: the time limit of 2 s is over (an endless loop?)"
    partly = dict(LOOP_IN_FUNCTION, n_passed=5)
    assert _what(partly).startswith("5 of 8 test cases passed; stopped: the time limit")
    assert outcome(FAIL5) == "wrong" and outcome(STUB) == "not attempted"
    assert outcome(_record("error", 0, 2, 0, 3, "raised NameError: x")) == "crash"


def test_the_class_report_keeps_timeouts_and_crashes_apart_and_counts_students():
    # a class of 7: one endless loop on q5 never makes it a question to revisit
    rows = [_row(f"s{i}", PASS5, PASS6) for i in range(5)]
    rows += [_row("loop", LOOP_IN_FUNCTION, PASS6), _row("top", LOOP_AT_TOP, FAIL5 | {
        "status": "failed", "n_cases": 6, "diagnosis_message": ""})]
    rep = class_report(rows, REG, assignment=["ex1.q5", "ex1.q6"])
    q5 = rep["questions"][0]
    assert (q5["students"], q5["passed"], q5["wrong"], q5["timed_out"], q5["crashed"]) == \
        (7, 5, 0, 2, 0)
    assert q5["common_errors"] == [] and q5["unfinished"][0]["count"] == 2
    assert q5["unfinished"][0]["example"] == \
        "stopped: the time limit of 2 s is over (an endless loop?)"
    assert rep["revisit"] == []
    (dnf,) = rep["did_not_finish"]
    assert (dnf["id"], dnf["timed_out"], dnf["crashed"], dnf["students"]) == ("ex1.q5", 2, 0, 7)
    page = report_html(rep)
    assert "2 students ran out of time, 0 students crashed (of 7)" in page
    # three wrong answers of seven: revisited, with the students it rests on
    rows[:3] = [_row(f"w{i}", FAIL5, PASS6) for i in range(3)]
    rep = class_report(rows, REG, assignment=["ex1.q5", "ex1.q6"])
    (r,) = rep["revisit"]
    assert (r["id"], r["passed"], r["finished"], r["wrong"], r["unfinished"]) == \
        ("ex1.q5", 2, 5, 3, 2)
    assert "passed by 2 of 5 students whose answers finished (3 wrong" in report_html(rep)


def test_common_errors_are_cut_at_a_word():
    from kernelcourse.grading.handback.report import _error_text

    long = _record("error", 0, 2, 0, 3, "raised ValueError: " + "operands could not be "
                   "broadcast together with shapes " * 8)
    text = _error_text(long)
    assert len(text) <= 160 and text.endswith("\u2026")
    words = set(long["detail"].split())
    assert all(w in words or w == "crashed:" for w in text[:-1].split())


# ------------------------------------------------------------------------ similarity
_SCAFFOLD_Q5 = '''# ANSWER ex1.q5
import numpy as np


def rbf_gram(X, Z, gamma):
    """K[i, j] = exp(-gamma * ||X[i] - Z[j]||^2)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
'''


def test_two_honest_one_liners_in_the_given_scaffold_are_no_similar_pair():
    from kernelcourse.grading.handback.similarity import similar_by_student

    one_liner = "    return np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1))\n"
    own = ["    D = np.zeros((len(X), len(Z)))\n    for i in range(len(X)):\n"
           f"        for j in range(len(Z)):\n            D[i, j] = {k} * np.sum((X[i] - Z[j]) ** 2)"
           "\n    return np.exp(-gamma * D)\n" for k in range(1, 5)]
    copied = ("    sq = (X ** 2).sum(1)[:, None] + (Z ** 2).sum(1)[None, :] - 2 * X @ Z.T\n"
              "    sq = np.maximum(sq, 0)\n    K = np.exp(-gamma * sq)\n    return K\n")
    cells = [one_liner, one_liner.replace("axis=-1", "-1"), copied, copied] + own[:3]
    answers = {f"/s/{i}.ipynb": {"ex1.q5": _SCAFFOLD_Q5 + body} for i, body in enumerate(cells)}
    groups = similar_by_student(answers, 0.85, registry=REG, references=False)
    pairs = {(p["files"][0], p["files"][1]) for p in groups["pairs"]}
    assert ("0.ipynb", "1.ipynb") not in pairs  # the natural one-liner, twice: alike by nature
    assert ("2.ipynb", "3.ipynb") in pairs  # a copy of the student's own lines is still found
