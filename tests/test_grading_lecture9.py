"""Lecture 9's questions: the set's shape and the named mistakes the issue asked for (the
reference earning full marks in 100 seeds, and every named mistake failing with the same points
in every seed and diagnosed as itself, are tests/test_grading_verdicts.py's, for every set)."""
from kernelcourse.grading.questions import all_questions

QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in ("ex9", "l9")}


def test_ex9_has_eight_questions_four_of_kinds_that_need_understanding():
    ex9 = [q for q in QUESTIONS.values() if q.set_name == "ex9"]
    assert len(ex9) >= 8
    assert sum(q.kind in ("predict", "witness", "fix", "parameter", "choice") for q in ex9) >= 4
    assert {"l9.cp1", "l9.cp2"} <= set(QUESTIONS)
    assert all(q.fixed_cases is not None and q.make_fixed_cases() for q in QUESTIONS.values())


def test_the_named_mistakes_of_the_issue_are_diagnosed():
    names = {(qid, d.name) for qid, q in QUESTIONS.items() for d in q.diagnoses}
    for wanted in [("l9.cp1", "diagonal kept"), ("l9.cp1", "m^2 not m(m-1)"), ("ex9.q7", "diagonal kept"),
                   ("ex9.q1", "no +1"), ("ex9.q2", "one sample"), ("l9.cp2", "one side only"),
                   ("ex9.q3", "covariances"), ("ex9.q5", "shifted")]:
        assert wanted in names
