"""The hand-back as an instructor runs it, attacked: who is who, safe text, pages no file can
break, exports as Canvas and Moodle take them, and what the instructor reads.

Each test runs the real ``kernelcourse grade`` command (a subprocess, sealed workers) on a
small class whose file names and roster carry the attacks, and reads what it wrote.

Formats, as the platforms document them: Canvas's gradebook import and export (Instructure,
Canvas Instructor Guide, "How do I import grades in the Gradebook?" and "How do I export
grades in the Gradebook?": Student, ID, SIS User ID, SIS Login ID, Section, then one column
per assignment headed "Assignment Name (assignment id)"; the export's second line is "Points
Possible"); Moodle's grading worksheet (Moodle, mod/assign/feedback/offline: the upload reads
the columns Identifier ("Participant N"), Grade, "Last modified (grade)" and the feedback
plugin's "Feedback comments") and Moodle's CSV grade import (Moodle documentation, "Import
grades": the user is identified by email address, ID number or username).
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kernelcourse.grading import questions as registry_module

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"
ESC = "\x1b[31m"
XSS = "<img src=x onerror=alert(1)>`x`"
EVIL = f"{ESC}evil_{'y' * 190}<svg onload=alert(1)>.ipynb"

pytestmark = pytest.mark.slow


def _kc(*args, env=None):
    return subprocess.run([sys.executable, "-m", "kernelcourse", *map(str, args)],
                          capture_output=True, text=True, timeout=900,
                          env={**{k: v for k, v in os.environ.items()
                                  if k != registry_module.ENVIRONMENT_VARIABLE}, **(env or {})})


def _copy(src: str, dest: Path) -> None:
    dest.write_bytes((FIXTURES / f"{src}.ipynb").read_bytes())


def _rendered(markdown: str) -> str:
    import mistune

    return mistune.html(markdown)


# --------------------------------------------------------------------- a Canvas class
@pytest.fixture(scope="module")
def canvas_class(tmp_path_factory):
    """Ada sent two files; Bruno is late; Chiara's file name carries HTML and her roster name
    is a formula; Dario copied Bruno's answers; a file of nobody's has an escape sequence, a
    script and a long name; a fullwidth 'Ａｄａ Ｌｏｖｅｌａｃｅ' is another student."""
    tmp = tmp_path_factory.mktemp("canvas")
    sub = tmp / "sub"
    sub.mkdir()
    _copy("correct", sub / "lovelaceada_4001_900001_ex1.ipynb")
    _copy("untouched", sub / "lovelaceada_4001_900011_ex1-again.ipynb")
    _copy("mistakes", sub / "kellerbruno_LATE_4002_900002_ex1.ipynb")
    _copy("untouched", sub / f"rossichiara_4003_900003_{XSS}.ipynb")
    _copy("mistakes", sub / "bianchidario_4004_900004_ex1.ipynb")
    _copy("correct", sub / EVIL)
    roster = tmp / "roster.csv"
    roster.write_text(
        "id,name,email,sis_user_id,sis_login_id,section\n"
        "4001,Ada Lovelace,ada@uni.example,S1,alovelace,A\n"
        "4002,Bruno Keller,-dash@example.org,+4471,bkeller,A\n"
        '4003,"=HYPERLINK(""http://x.example"",""c"")",chiara@uni.example,S3,crossi,A\n'
        "4004,Dario Bianchi,dario@uni.example,S4,dbianchi,B\n"
        "4005,Ａｄａ Ｌｏｖｅｌａｃｅ,ada2@uni.example,S5,alovelace2,B\n", encoding="utf-8")
    out = tmp / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "7", "--no-progress", "--jobs", "2",
              "--feedback", out / "feedback", "--report", "--roster", roster,
              "--export", "canvas", "--export", "moodle", "--canvas-assignment-id", "77",
              "--similarity", "--late-penalty", "0.1")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return {"tmp": tmp, "sub": sub, "out": out, "stdout": res.stdout, "roster": roster}


def test_one_student_one_grade_and_two_files_are_reported_not_merged(canvas_class):
    out, stdout = canvas_class["out"], canvas_class["stdout"]
    assert re.search(r"2 files claim the student 4001: lovelaceada_4001_900001_ex1\.ipynb, "
                     r"lovelaceada_4001_900011_ex1-again\.ipynb \(not merged", stdout)
    canvas = {r[1]: r for r in csv.reader(open(out / "canvas-ex1.csv", newline=""))}
    assert canvas["4001"][5] == ""  # no LMS gets a grade for Ada until one file is left
    moodle = list(csv.reader(open(out / "moodle-ex1.csv", newline="")))
    assert "ada@uni.example" not in {r[1] for r in moodle}
    # the fullwidth name is another student: no submission, and Ada's grade is not hers
    assert "no submission from Ａｄａ Ｌｏｖｅｌａｃｅ (4005)" in stdout
    assert canvas["4005"][5] == "" and "ada2@uni.example" not in {r[1] for r in moodle}
    book = json.loads((out / "gradebook-ex1.json").read_text())
    dario = next(r for r in book["submissions"] if "bianchidario" in r["file"])
    assert canvas["4004"][5] == f"{dario['total']:g}"


def test_console_lines_carry_no_escape_sequence(canvas_class):
    stdout = canvas_class["stdout"]
    assert "\x1b" not in stdout and "\\x1b[31mevil_" in stdout
    assert "no student for the file \\x1b[31mevil_" in stdout


def test_markdown_and_html_pages_show_outside_text_and_run_nothing(canvas_class):
    folder = canvas_class["out"] / "feedback"
    chiara_md = (folder / "4003.md").read_text()
    rendered = _rendered(chiara_md)
    assert "<img" not in rendered and "<script" not in rendered
    assert "&lt;img src=x onerror=alert(1)&gt;" in rendered  # shown as text, whole
    evil = [p for p in folder.glob("*evil_*.md")]
    assert len(evil) == 1
    rendered = _rendered(evil[0].read_text())
    assert "<svg" not in rendered and "&lt;svg onload=alert(1)&gt;" in rendered
    for page in folder.glob("*.html"):
        text = page.read_text()
        assert "<script" not in text and "<img" not in text and "<svg on" not in text, page.name


def test_a_backtick_in_a_value_cannot_leave_its_code_block():
    from kernelcourse.grading.handback.feedback import md_code, md_text

    value = "got ```` <b>x</b> ` end"
    block = md_code(value)
    rendered = _rendered(block)
    assert rendered.count("<pre>") == 1 and "<b>" not in rendered
    assert "```` &lt;b&gt;x&lt;/b&gt; ` end" in rendered
    for attack in ("[a](javascript:alert(1))", "![x](http://e/x.png)", "<b>bold</b>",
                   "*em* _em_ `code` | cell", "# heading", "1. item", "- item", "~~s~~"):
        html = _rendered(md_text(attack))
        assert "<a" not in html and "<img" not in html and "<b>" not in html
        assert "<em>" not in html and "<code>" not in html and "<h1>" not in html
        assert "<ol>" not in html and "<ul>" not in html and "<del>" not in html
        assert html.startswith("<p>") and "\\" not in html  # shown as written, no backslash


def test_csv_fields_are_quoted_free_text_neutralised_identifiers_exact(canvas_class):
    out = canvas_class["out"]
    identifiers = {"-dash@example.org", "+4471"}
    for name in ("canvas-ex1.csv", "moodle-ex1.csv", "gradebook-ex1.csv"):
        text = (out / name).read_text(encoding="utf-8")
        for line in text.splitlines():
            assert line.startswith('"') and line.endswith('"'), (name, line)
        # a spreadsheet splitting on ',', ';' or tab: no cell is a formula, but the
        # identifiers an LMS matches on, which are exported exactly as the roster has them
        for delimiter in (",", ";", "\t"):
            for row in csv.reader(io.StringIO(text), delimiter=delimiter):
                for cell in row:
                    if cell in identifiers:
                        continue
                    assert not cell.startswith(("=", "+", "-", "@")), (name, delimiter, cell)
    canvas = {r[1]: r for r in csv.reader(open(out / "canvas-ex1.csv", newline=""))}
    assert canvas["4003"][0].startswith("'=HYPERLINK(")
    assert canvas["4002"][2] == "+4471"
    moodle = {r[1]: r for r in csv.reader(open(out / "moodle-ex1.csv", newline=""))}
    assert "-dash@example.org" in moodle  # Bruno's email, exactly


def test_page_names_are_injective_bounded_and_indexed(canvas_class):
    folder = canvas_class["out"] / "feedback"
    pages = sorted(p.name for p in folder.glob("*.html") if p.name != "index.html")
    assert {"4002.html", "4003.html", "4004.html"} <= set(pages)
    # Ada's two files: a page each, named by the file, never one over the other
    ada = [p for p in pages if p.startswith("lovelaceada_4001_")]
    assert len(ada) == 2 and "4001.html" not in pages
    assert all(len(p.encode()) <= 64 + 13 + 5 for p in pages)
    index = (folder / "index.html").read_text()
    for page in pages:
        assert f"href='{page}'" in index
    # two files of one student and two names that sanitise alike get pages of their own
    from kernelcourse.grading.handback.feedback import page_name
    from kernelcourse.grading.gradebook.book import Submission
    from kernelcourse.grading.handback.roster import Student

    names = [page_name(Submission(file=f"/s/{n}.ipynb")) for n in
             ("alice", "alice!", "Alice", "alice?", "a" * 300, "a" * 301)]
    names += [page_name(Submission(file="/s/x.ipynb"), Student(i, "x")) for i in
              ("alice", "Alice", "alice!", "index", "alice~1")]
    assert len(set(names)) == len(names) and all(len(n) <= 77 for n in names)
    assert "alice" in names and "index" not in names


def test_late_work_is_a_column_with_the_raw_and_the_penalised_score(canvas_class):
    out = canvas_class["out"]
    report = json.loads((out / "report-ex1.json").read_text())
    book = json.loads((out / "gradebook-ex1.json").read_text())
    bruno = next(r for r in book["submissions"] if "kellerbruno" in r["file"])
    assert report["late"]["policy"].startswith("a late submission keeps 90% of its points")
    (late,) = report["late"]["submissions"]
    assert late["student"] == "Bruno Keller (4002)"
    assert late["raw"] == bruno["total"] and late["score"] == pytest.approx(0.9 * bruno["total"])
    canvas = {r[1]: r for r in csv.reader(open(out / "canvas-ex1.csv", newline=""))}
    assert float(canvas["4002"][5]) == pytest.approx(round(0.9 * bruno["total"], 2))
    assert "Submitted late" in (out / "feedback" / "4002.html").read_text()


def test_similarity_is_by_student_with_the_copy_first_and_the_solution_apart(canvas_class):
    sim = json.loads((canvas_class["out"] / "similarity-ex1.json").read_text())
    assert [(p["a"], p["b"]) for p in sim["pairs"]][:1] == [
        ("Bruno Keller (4002)", "Dario Bianchi (4004)")]
    assert sim["pairs"][0]["questions"][0]["question"] == "ex1.q5"
    like = {(r["student"], r["question"]) for r in sim["like_reference"]}
    assert ("Ada Lovelace (4001)", "ex1.q5") in like


def test_the_class_report_holds_item_analysis(canvas_class):
    report = json.loads((canvas_class["out"] / "report-ex1.json").read_text())
    book = json.loads((canvas_class["out"] / "gradebook-ex1.json").read_text())
    graded = [r for r in book["submissions"] if r["possible"] > 0]
    from kernelcourse.grading.handback.report import cronbach_alpha

    scores = [[r["points"][q] for q in ("ex1.q5", "ex1.q6")] for r in graded]
    assert report["reliability"]["cronbach_alpha"] == pytest.approx(cronbach_alpha(scores),
                                                                    abs=1e-4)
    for q in report["questions"]:
        assert {"difficulty", "discrimination", "flag"} <= set(q)


# --------------------------------------------------------------------- checked before grading
def test_roster_and_pattern_are_checked_before_any_grading(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    _copy("correct", sub / "lovelaceada_4001_900001_ex1.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n1,A,a@x\n2,B,A@X\n")
    out = tmp_path / "out"
    cases = [(["--roster", roster], "two students under one email 'a@x'"),
             (["--roster", FIXTURES.parent / "nope.csv", "--report"], "cannot read the roster"),
             (["--report", "--roster", tmp_path / "r2.csv", "--pattern", "(?P<id>"],
              "not a regular expression"),
             (["--export", "canvas"], "needs --roster")]
    (tmp_path / "r2.csv").write_text("id,name,email\n1,A,a@x\n")
    ok = tmp_path / "ok.csv"
    ok.write_text("id,name,email\n4001,Ada Lovelace,ada@x\n")
    cases.append((["--roster", ok, "--export", "canvas"], "needs the assignment's Canvas id"))
    for extra, message in cases:
        res = _kc("grade", sub, "--output", out, "--no-progress", *extra)
        assert res.returncode == 2, (extra, res.stdout, res.stderr)
        assert message in res.stderr, (extra, res.stderr)
        assert "Traceback" not in res.stderr
        assert not out.exists()  # refused before any grading: nothing written


def test_canvas_gradebook_export_is_a_roster_and_names_the_column(tmp_path):
    """Canvas's own export as it comes: no email column, a 'Points Possible' line, the
    assignment's column 'ex1 (5531)' giving the id without --canvas-assignment-id."""
    sub = tmp_path / "sub"
    sub.mkdir()
    _copy("correct", sub / "lovelaceada_4001_900001_ex1.ipynb")
    _copy("mistakes", sub / "kellerbruno_4002_900002_ex1.ipynb")
    export = tmp_path / "2026-11-20T1200_Grades-KM101.csv"
    export.write_text(
        "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,ex1 (5531),ex2 (5532),"
        "Current Score,Final Score\n"
        "    Points Possible,,,,,4.00,10.00,(read only),(read only)\n"
        '"Lovelace, Ada",4001,S1,alovelace,KM101 A,,,,\n'
        '"Keller, Bruno",4002,S2,bkeller,KM101 A,,,,\n'
        '"Rossi, Chiara",4003,S3,crossi,KM101 B,,,,\n', encoding="utf-8")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "3", "--no-progress", "--roster", export,
              "--export", "canvas")
    assert res.returncode == 0, res.stderr[-3000:]
    lines = list(csv.reader(open(out / "canvas-ex1.csv", newline="", encoding="utf-8")))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ex1 (5531)"]
    assert [r[1] for r in lines[1:]] == ["4001", "4002", "4003"]  # not "Points Possible"
    assert lines[1][:5] == ["Lovelace, Ada", "4001", "S1", "alovelace", "KM101 A"]
    assert lines[1][5] == "4" and lines[3][5] == ""
    assert "no submission from Rossi, Chiara (4003)" in res.stdout


def test_moodle_folder_is_trusted_over_the_file_name_and_names_are_exact(tmp_path):
    """Moodle's download: a folder per student, named by Moodle. Ben's upload is named like
    Ada's folder; a fullwidth 'Ａｄａ Ｌｏｖｅｌａｃｅ' is another participant. The roster is
    Moodle's grading worksheet, and the export is that worksheet filled in."""
    sub = tmp_path / "sub"
    for folder, src, name in (("Ada Lovelace_101_assignsubmission_file_", "correct", "ex1.ipynb"),
                              ("Ben Ode_102_assignsubmission_file_", "mistakes",
                               "Ada Lovelace_101_assignsubmission_file_ex1.ipynb"),
                              ("Ａｄａ Ｌｏｖｅｌａｃｅ_103_assignsubmission_file_", "untouched",
                               "ex1.ipynb")):
        (sub / folder).mkdir(parents=True)
        _copy(src, sub / folder / name)
    sheet = tmp_path / "Grades-ex1.csv"
    sheet.write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
        "Last modified (submission),Last modified (grade),Feedback comments\n"
        "Participant 101,Ada Lovelace,ada@uni.example,Submitted for grading,,4.00,Yes,"
        '"Friday, 20 November 2026, 10:00 AM",-,\n'
        "Participant 102,Ben Ode,-ben@uni.example,Submitted for grading,,4.00,Yes,"
        '"Friday, 20 November 2026, 10:05 AM",-,\n'
        "Participant 103,Ａｄａ Ｌｏｖｅｌａｃｅ,ada2@uni.example,Submitted for grading,,4.00,"
        'Yes,"Friday, 20 November 2026, 10:07 AM",-,\n', encoding="utf-8")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "3", "--no-progress", "--roster", sheet,
              "--pattern", "moodle", "--export", "moodle")
    assert res.returncode == 0, res.stderr[-3000:]
    book = {Path(r["file"]).parent.name.split("_")[0]: r for r in
            json.loads((out / "gradebook-ex1.json").read_text())["submissions"]}
    lines = list(csv.reader(open(out / "moodle-ex1.csv", newline="", encoding="utf-8")))
    assert lines[0][:5] == ["Identifier", "Full name", "Email address", "Status", "Grade"]
    rows = {r[0]: r for r in lines[1:]}
    assert rows["Participant 101"][4] == f"{book['Ada Lovelace']['total']:g}"
    assert rows["Participant 102"][4] == f"{book['Ben Ode']['total']:g}"
    assert rows["Participant 103"][4] == f"{book['Ａｄａ Ｌｏｖｅｌａｃｅ']['total']:g}"
    assert book["Ada Lovelace"]["total"] != book["Ben Ode"]["total"]
    assert rows["Participant 102"][2] == "-ben@uni.example"  # an identifier, exactly
    assert rows["Participant 101"][8] == "-"  # Moodle's own "Last modified (grade)", kept
    assert "points" in rows["Participant 101"][9]


def test_moodle_names_are_never_matched_on_only_the_participant_id():
    """A course roster with Moodle's participant ids: look-alike names (a fullwidth 'Ａｄａ', a
    decomposed 'ë', a name two students share) are for people; the id decides. Without the
    ids nothing is matched by name."""
    from kernelcourse.grading.handback.roster import Roster, Student, match

    def student(i, name):
        return Student(str(i), name, f"{i}@x", (("participant", str(10 + i)),))

    roster = Roster([student(1, "Ada Lovelace"), student(2, "Ａｄａ Ｌｏｖｅｌａｃｅ"),
                     student(3, "Wei Zhang"), student(4, "Wei Zhang"), student(5, "Zoë Ng")])
    files = ["/s/Ａｄａ Ｌｏｖｅｌａｃｅ_11_assignsubmission_file/a.ipynb",   # participant 11: Ada
             "/s/ada lovelace_12_assignsubmission_file/a.ipynb",           # 12: the fullwidth one
             "/s/Wei Zhang_14_assignsubmission_file/a.ipynb",
             "/s/Zoe\u0308 Ng_15_assignsubmission_file/a.ipynb"]
    m = match(files, roster, "moodle")
    assert [m.students[f].id for f in files] == ["1", "2", "4", "5"]
    assert len(m.notes) == 2  # the two names that are not the roster's are pointed out
    bare = Roster([Student(s.id, s.name, s.email) for s in roster])
    assert match(files, bare, "moodle").students == {}


# --------------------------------------------------------------------- truthful history
def _answer_q5(path: Path, source_nb: str) -> None:
    """Put the ex1.q5 answer of ``source_nb`` into the notebook at ``path``."""
    nb = json.loads(path.read_text())
    right = json.loads((FIXTURES / f"{source_nb}.ipynb").read_text())["cells"]
    text = next("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in right if "".join(c["source"]).startswith("# ANSWER ex1.q5"))
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if src.startswith("# ANSWER ex1.q5"):
            cell["source"] = text
    path.write_text(json.dumps(nb))


def test_update_is_truthful(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    _copy("mistakes", sub / "a.ipynb")
    _copy("mistakes", sub / "b.ipynb")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--no-progress", "--jobs", "2")
    assert res.returncode == 0, res.stderr[-3000:]
    book = json.loads((out / "gradebook-ex1.json").read_text())
    assert book["seed"] is None and book["secret"] == "grading-secret.key"
    old = {Path(r["file"]).name: r for r in book["submissions"]}
    # each submission draws from the secret with a token of its own, recorded per question
    token = {name: r["draws"]["ex1.q5"] for name, r in old.items()}
    assert all(r["draws"] == {"ex1.q5": token[n], "ex1.q6": token[n]} for n, r in old.items())
    assert token["a.ipynb"] != token["b.ipynb"] and old["a.ipynb"]["question_seeds"] == {}
    assert set(old["a.ipynb"]["cases"]) == {"ex1.q5", "ex1.q6"}

    # 1. a symbolic link to b is not b: b's row is not regraded through it
    (sub / "link.ipynb").symlink_to(sub / "b.ipynb")
    res = _kc("grade", sub / "link.ipynb", "--questions", "ex1.q5", "--assignment", "ex1",
              "--update", "--output", out, "--no-progress")
    book = json.loads((out / "gradebook-ex1.json").read_text())
    rows = {Path(r["file"]).name: r for r in book["submissions"]}
    assert rows["b.ipynb"] == old["b.ipynb"]
    assert rows["link.ipynb"]["possible"] == 0  # its own row: a link is not read

    # 2. a regrade whose file no longer reads keeps the old row, recorded as failed
    (sub / "a.ipynb").write_text("{ not json")
    res = _kc("grade", sub / "a.ipynb", "--questions", "ex1.q5", "--assignment", "ex1",
              "--update", "--output", out, "--no-progress")
    assert "REGRADE FAILED for" in res.stderr and "previous row is kept" in res.stderr
    rows = {Path(r["file"]).name: r for r in
            json.loads((out / "gradebook-ex1.json").read_text())["submissions"]}
    a = rows["a.ipynb"]
    assert a["points"] == old["a.ipynb"]["points"] and a["sha256"] == old["a.ipynb"]["sha256"]
    assert a["regraded"] == [] and len(a["failed_regrades"]) == 1
    history = [json.loads(x) for x in (out / "history-ex1.jsonl").read_text().splitlines()]
    assert any("FAILED, old row kept" in h["reason"] for h in history)

    # 3. an update is a new attempt: it draws anew from the secret unless --seed says
    # otherwise; a partial update with a seed labels only the regraded question with it
    _copy("mistakes", sub / "a.ipynb")
    _answer_q5(sub / "a.ipynb", "correct")
    res = _kc("grade", sub / "a.ipynb", "--questions", "ex1.q5", "--assignment", "ex1",
              "--update", "--output", out, "--no-progress", "--seed", "12345")
    assert res.returncode == 0, res.stderr[-3000:]
    rows = {Path(r["file"]).name: r for r in
            json.loads((out / "gradebook-ex1.json").read_text())["submissions"]}
    a = rows["a.ipynb"]
    assert a["question_seeds"] == {"ex1.q5": 12345} and a["draws"] == {"ex1.q6": token["a.ipynb"]}
    assert a["cases"]["ex1.q5"]["seed"] == 12345
    assert a["cases"]["ex1.q6"]["draw"] == token["a.ipynb"]
    assert a["points"]["ex1.q5"] == 2 and a["seed"] is None
    page = tmp_path / "fb"
    res = _kc("grade", sub / "b.ipynb", "--questions", "ex1.q6", "--assignment", "ex1",
              "--update", "--output", out, "--no-progress", "--feedback", page)
    rows = {Path(r["file"]).name: r for r in
            json.loads((out / "gradebook-ex1.json").read_text())["submissions"]}
    b = rows["b.ipynb"]
    assert b["draws"]["ex1.q5"] == token["b.ipynb"]  # not regraded
    pages = [p.read_text() for p in page.iterdir()]
    assert len(pages) == 5  # a and b in HTML and Markdown, and the index
    assert not any("seed" in text.lower() or any(d in text for d in b["draws"].values())
                   for text in pages)  # what draws the cases stays the instructor's
    assert b["draws"]["ex1.q6"] not in (token["a.ipynb"], token["b.ipynb"])  # drawn anew

    # 4. a replay reproduces every row: each question alone under the seed the row names, or
    # with its draw token and the secret (one run per question and draw, over every file
    # whose row names that draw for it)
    replays: dict = {}
    for name, row in rows.items():
        if row["possible"] == 0:
            continue
        for qid, qseed in row["question_seeds"].items():
            replays.setdefault((qid, "--seed", str(qseed)), []).append(name)
        for qid, draw in row["draws"].items():
            replays.setdefault((qid, "--draw", draw), []).append(name)
    assert sum(map(len, replays.values())) == 4  # a and b, two questions each
    for i, ((qid, option, value), names) in enumerate(sorted(replays.items())):
        again, files = tmp_path / f"replay-{i}", tmp_path / f"replay-{i}-files"
        files.mkdir()
        for name in names:
            (files / name).write_bytes((sub / name).read_bytes())
        res = _kc("grade", files, "--questions", qid, "--output", again, option, value,
                  "--secret", out / "grading-secret.key", "--no-progress", "--jobs", "1")
        assert res.returncode == 0, res.stderr[-3000:]
        replayed = {Path(r["file"]).name: r
                    for r in json.loads((again / "gradebook.json").read_text())["submissions"]}
        assert sorted(replayed) == sorted(names)
        for name in names:
            assert replayed[name]["points"][qid] == rows[name]["points"][qid], (name, qid)
            assert replayed[name]["details"][qid] == rows[name]["details"][qid], (name, qid)

    # 5. a malformed gradebook is refused with a clear message, no traceback
    book = json.loads((out / "gradebook-ex1.json").read_text())
    del book["submissions"][0]["file"]
    (out / "gradebook-ex1.json").write_text(json.dumps(book))
    res = _kc("grade", sub / "b.ipynb", "--assignment", "ex1", "--update", "--output", out,
              "--no-progress")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "malformed: row 1 has no 'file'" in res.stderr


# --------------------------------------------------------------------- what the instructor sees
def test_every_page_passes_axe_core_and_fits_a_1280_px_screen(canvas_class):
    """Every hand-back page opened in Debian's Chromium (through Playwright) and checked by
    axe-core (the axe.min.js the PyPI package axe-playwright-python ships): no serious or
    critical violation, and no page wider than a 1280 px window. Screenshots are kept beside
    the pages (``screenshots/``) to look at."""
    sys.path.insert(0, str(Path(__file__).parent))
    from browser_support import CHROMIUM_ARGS, INSTALL_HINT, find_chromium, running_under_ci

    chromium = find_chromium()
    if chromium is None:
        if running_under_ci():
            pytest.fail(f"no Chromium: {INSTALL_HINT}")
        pytest.skip(f"no Chromium: {INSTALL_HINT}")
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    out = canvas_class["out"]
    pages = [out / "report-ex1.html", out / "feedback" / "index.html",
             *sorted((out / "feedback").glob("*.html"))]
    shots = out / "screenshots"
    shots.mkdir(exist_ok=True)
    axe = Axe()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for path in dict.fromkeys(pages):
                page.goto(path.as_uri())
                results = axe.run(page)
                bad = [(v["id"], v["impact"], v["help"], [n["html"][:120] for n in v["nodes"]])
                       for v in results.response["violations"]
                       if v["impact"] in ("serious", "critical")]
                assert bad == [], (path.name, bad)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 1280, (path.name, width)
                page.screenshot(path=str(shots / f"{path.stem[:40]}.png"), full_page=True)
        finally:
            browser.close()


# --------------------------------------------------------------------- the names LMSs really write
def test_canvas_names_of_any_script_and_a_file_the_run_cannot_name(tmp_path):
    """Canvas's own names (Jürgen's non-ASCII name part, a name of digits marked LATE and
    resubmitted) beside a file whose name is not UTF-8: the class is graded and every export
    written; the unnamed file is its own row and exports no grade. Then a hand-edited
    gradebook makes --update stop with the row and the field, changing nothing."""
    sub = tmp_path / "sub"
    sub.mkdir()
    _copy("correct", sub / "müllerjürgen_1006_70006_ex1.ipynb")
    _copy("mistakes", sub / "ng2_LATE_1007_70007_ex1-1.ipynb")
    bad = os.fsencode(str(sub)) + b"/sch\xf6n_1008_70008_ex1.ipynb"
    with open(bad, "wb") as f:
        f.write((FIXTURES / "correct.ipynb").read_bytes())
    export = tmp_path / "Grades-KM101.csv"
    export.write_text("\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,ex1 (5531)\n"
                      "    Points Possible,,,,,4.00\n"
                      '"Müller, Jürgen",1006,S6,jmueller,A,\n"Ng, 2",1007,S7,ng2,A,\n'
                      '"Schön, Ines",1008,S8,ischoen,A,\n', encoding="utf-8")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "3", "--no-progress", "--jobs", "2", "--roster",
              export, "--export", "canvas", "--late-penalty", "0.1", "--feedback",
              out / "feedback", "--report")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert (out / "canvas-ex1.csv").read_text(encoding="utf-8").splitlines() == [
        '"Student","ID","SIS User ID","SIS Login ID","Section","ex1 (5531)"',
        '"Müller, Jürgen","1006","S6","jmueller","A","4"',
        '"Ng, 2","1007","S7","ng2","A","0"',
        '"Schön, Ines","1008","S8","ischoen","A",""']
    assert "sch\\xf6n_1008_70008_ex1.ipynb: its name is not valid UTF-8 (byte 0xf6" in res.stderr
    assert "no grade exported for Schön, Ines (1008)" in res.stdout
    book = json.loads((out / "gradebook-ex1.json").read_text())
    assert [r["possible"] for r in book["submissions"]] == [0, 4, 4]
    assert (out / "feedback" / "1006.html").exists() and (out / "report-ex1.html").exists()
    # --update on a hand-edited gradebook: the row and the field named, nothing changed
    book["submissions"][1]["points"]["ex1.q5"] = "3"
    (out / "gradebook-ex1.json").write_text(json.dumps(book))
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    res = _kc("grade", sub / "müllerjürgen_1006_70006_ex1.ipynb", "--assignment", "ex1",
              "--update", "--output", out, "--no-progress")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "row 2 (" in res.stderr and "points['ex1.q5'] = '3' (a str)" in res.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_a_moodle_display_name_that_claims_another_participant(tmp_path):
    """Mallory's display name 'Alice Smith_501_assignsubmission_file_ Mallory' in a flat
    download named as Moodle names it: Alice's grade is hers, Mallory's is Mallory's, and the
    worksheet's Online text goes back as text, never a formula."""
    sys.path.insert(0, str(Path(__file__).parent))
    from lms_downloads import moodle_download_path

    sub = tmp_path / "sub"
    sub.mkdir()
    mallory = "Alice Smith_501_assignsubmission_file_ Mallory"
    _copy("correct", sub / moodle_download_path("Alice Smith", 501, "ex1.ipynb", folders=False))
    _copy("untouched", sub / moodle_download_path(mallory, 777, "ex1.ipynb", folders=False))
    sheet = tmp_path / "Grades-ex1.csv"
    sheet.write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Online text,"
        "Last modified (grade),Feedback comments\n"
        'Participant 501,Alice Smith,alice@x,Submitted,,4.00,"=HYPERLINK(""http://x"",""a"")",-,\n'
        f"Participant 777,{mallory},mallory@x,Submitted,,4.00,@SUM(1),-,\n", encoding="utf-8")
    out = tmp_path / "out"
    res = _kc("grade", sub, "--questions", "ex1.q5,ex1.q6", "--assignment", "ex1",
              "--output", out, "--seed", "3", "--no-progress", "--jobs", "2", "--roster",
              sheet, "--pattern", "moodle", "--export", "moodle")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "claim" not in res.stdout
    assert (out / "moodle-ex1.csv").read_text(encoding="utf-8").splitlines() == [
        '"Identifier","Full name","Email address","Status","Grade","Maximum Grade",'
        '"Online text","Last modified (grade)","Feedback comments"',
        '"Participant 501","Alice Smith","alice@x","Submitted","4","4.00",'
        '"\'=HYPERLINK(""http://x"",""a"")","-","4/4 points; all questions passed"',
        f'"Participant 777","{mallory}","mallory@x","Submitted","0","4.00","\'@SUM(1)","-",'
        '"0/4 points; to look at: ex1.q5, ex1.q6"']
