"""What a student reads (issue 40, item 4): check() prints a short block, not one long line;
a true-or-false question counts statements and explains every wrong one; a diagnosed mistake
brings the hint that addresses it; a check imports only its set's question modules."""
import re
import subprocess
import sys

import numpy as np
import pytest

from kernelcourse.grading import check, get_question, reset_session
from kernelcourse.grading.model.compare import format_value
from kernelcourse.grading.checking.scoring import BLOCK_WIDTH


def rbf_gram(X, Z, gamma):
    """ex1.q5 answered with the lecture's sigma in place of gamma (the student's own code)."""
    d = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d / gamma ** 2)


def _joined(lines: list[str], start: int) -> tuple[str, int]:
    """The logical line that starts at ``lines[start]`` (its wrapped continuation lines, which
    are indented deeper, joined by one space), and the index after it."""
    text, depth = lines[start].strip(), len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > depth:
        text += " " + lines[end].strip()
        end += 1
    return text, end


def _logical(out: str) -> list[str]:
    """The block's lines unwrapped: the verdict line, then one per item."""
    lines = out.rstrip("\n").split("\n")
    logical, i = [lines[0]], 1
    while i < len(lines):
        text, i = _joined(lines, i)
        logical.append(text)
    return logical


def test_a_failed_check_prints_the_verdict_the_case_once_expected_got_mistake_and_hint(capsys):
    reset_session()
    q = get_question("ex1.q5")
    check("ex1.q5", rbf_gram)
    out = capsys.readouterr().out
    lines = out.rstrip("\n").split("\n")
    # short lines, wrapped between words: JupyterLab never breaks a number
    assert all(len(line) <= BLOCK_WIDTH for line in lines), lines
    logical = _logical(out)
    assert logical[0].startswith("ex1.q5 an RBF Gram matrix: failed, 0/2 points (so far ")
    assert logical[1] == "0/3 fixed cases passed, 0/3 drawn."
    kinds = [x.split(":", 1)[0] for x in logical[2:]]
    assert kinds == ["Failing case", "Inputs", "Expected", "Got", "Where", "Likely mistake",
                     "Hint for this mistake (ex1.q5)"], logical
    # the inputs once, whole; expected and got as the reference and the answer give them
    case = q.make_fixed_cases()[0]
    X, Z, gamma = case.args
    assert logical[3].count("X=") == 1 and "seed" not in out.lower()
    assert f"gamma={gamma:g}" in logical[3] or f"gamma={gamma!r}" in logical[3]
    assert logical[4].split(None, 1) == ["Expected:", format_value(q.expected(case), atol=q.atol)]
    assert logical[5].split(None, 1) == ["Got:", format_value(rbf_gram(X, Z, gamma), atol=q.atol)]
    assert logical[7] == f"Likely mistake: {q.diagnoses[0].message}."
    assert logical[8].endswith(q.diagnoses[0].hint)  # the diagnosis's hint, not tier 1
    assert "Hint 1 of" not in out
    reset_session()


def test_an_undiagnosed_mistake_gets_the_tiers_from_the_second_failed_check(capsys):
    reset_session()
    q = get_question("ex1.q5")
    check("ex1.q5", lambda X, Z, gamma: np.ones((len(X), len(Z))) * 0.5)
    first = _logical(capsys.readouterr().out)
    assert not any(x.startswith(("Likely mistake", "Hint")) for x in first)
    check("ex1.q5", lambda X, Z, gamma: np.ones((len(X), len(Z))) * 0.5)
    second = _logical(capsys.readouterr().out)
    assert second[-1].startswith("Note: the grader runs the function named rbf_gram")
    assert second[-2] == f"Hint 1 of {len(q.hints)} for ex1.q5: {q.hints[0]}"
    reset_session()


def test_a_true_or_false_question_counts_statements_and_explains_every_wrong_one(capsys):
    from kernelcourse.grading.gradebook.book import feedback_record
    from kernelcourse.grading.handback.feedback import page_markdown
    from kernelcourse.grading.gradebook.book import Submission
    from kernelcourse.grading.checking.scoring import evaluate

    q = get_question("ex7.q2")
    truth = dict(q.reference.answer_key)
    wrong = sorted(truth)[:2]
    n = len(truth)

    def svm_true_or_false(statement):
        return (not truth[statement]) if statement in wrong else truth[statement]

    reset_session()
    check("ex7.q2", svm_true_or_false)
    logical = _logical(capsys.readouterr().out)
    assert len(q.make_cases(0)) == 2 * n  # each statement graded twice: still n statements
    assert logical[1] == f"{n - 2} of {n} statements right."
    told = [x for x in logical if x.startswith("Wrong: ")]
    assert len(told) == 2
    for statement in wrong:
        (line,) = [x for x in told if x.startswith(f"Wrong: statement {statement!r} ")]
        message = next(d.message for d in q.diagnoses
                       if d.mistake(statement) != truth[statement])
        assert line == (f"Wrong: statement {statement!r} (you answered "
                        f"{not truth[statement]}): {message.rstrip('.')}.")
    check("ex7.q2", lambda statement: truth[statement])
    out = capsys.readouterr().out
    assert f"passed with all {n} statements right" in out
    reset_session()
    # the feedback page explains each wrong statement too
    result = evaluate(q, svm_true_or_false, 3, detect_shortcuts=False)
    record = feedback_record(result)
    row = Submission(file="a.ipynb", possible=q.points, points={q.id: result.points},
                     feedback={q.id: record}, total=result.points)
    page = page_markdown(row, {q.id: q})
    assert f"{n - 2} of {n} statements right" in page
    assert page.count("- Wrong: statement") == 2


def test_a_passed_and_an_untouched_check_stay_one_line(capsys):
    reset_session()

    def rbf_gram(X, Z, gamma):  # noqa: F811 - a right answer
        return np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    check("ex1.q5", rbf_gram)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ": passed all " in out

    def rbf_gram(X, Z, gamma):  # noqa: F811 - the stub, as the student version has it
        raise NotImplementedError("write your answer here")
    check("ex1.q5", rbf_gram)
    assert re.fullmatch(r"ex1\.q5 an RBF Gram matrix: not attempted, 0/2 points \(so far "
                        r"[\d.]+/22 in ex1\)\n", capsys.readouterr().out)
    reset_session()


def test_each_set_is_found_from_its_own_lecture_modules():
    from kernelcourse.grading.questions import all_questions, set_questions

    registry = all_questions()
    for name in sorted({q.set_name for q in registry.values()}):
        assert set_questions(name) == {k: q for k, q in registry.items() if q.set_name == name}


@pytest.mark.slow
def test_a_check_loads_only_its_lectures_question_modules():
    """In a fresh interpreter, asking for a set's questions imports its lecture's modules and
    no other lecture's (what check() reads for the set's total)."""
    code = ("import sys\n"
            "from kernelcourse.grading.questions import get_question, set_questions\n"
            "assert get_question('ex1.q5').set_name == 'ex1'\n"
            "assert len(set_questions('ex1')) == 11 and len(set_questions('l1')) >= 2\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m.startswith('kernelcourse.grading.questions.lecture')\n"
            "             and m.count('.') == 3))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['kernelcourse.grading.questions.lecture1']"
