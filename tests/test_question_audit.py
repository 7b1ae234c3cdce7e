"""Every registered question's fixed cases kill every mutant of its reference that a drawn case
can tell from it: 0 survivors in the mutation audit (:mod:`kernelcourse.grading.audit`,
``kernelcourse grade --audit-questions``).

Deterministic: the seeds of the drawn cases are the audit's constants and a mutant that runs
long is stopped by a count of ticks, never by a clock; the same run gives the same table. The
whole bank takes minutes (several thousand mutants), so one test per question, all marked slow
but for a few quick ones in the quick loop. Parametrised by question id (``-k ex7``). This file
audits sets 1 to 5; tests/test_question_audit_ex7_ex10.py and tests/test_question_audit_others.py
the rest (tests/audit_support.py: the shares, so the test run's workers audit side by side).
"""
from pathlib import Path

from kernelcourse.grading.audit import audit

from audit_support import KNOWN_SURVIVORS, QUESTIONS, QUICK, SHARES, audit_test, params, \
    share_of

test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart = audit_test(Path(__file__).stem)


def test_the_quick_questions_are_registered_and_the_allowlist_names_only_real_ones():
    assert set(QUICK) <= set(QUESTIONS)
    assert set(KNOWN_SURVIVORS) <= set(QUESTIONS)


def test_every_question_is_audited_by_exactly_one_file():
    """Every question's set is in one share, and each share is a test file here that audits
    exactly the questions of its share."""
    here = Path(__file__).parent
    assert sorted(SHARES) == sorted(p.stem for p in here.glob("test_question_audit*.py"))
    owners = {qid: share_of(qid) for qid in QUESTIONS}       # raises for a set in 0 or 2
    for share in SHARES:
        text = (here / f"{share}.py").read_text()
        assert "= audit_test(Path(__file__).stem)" in text, share
        assert [p.values[0] for p in params(share)] == [q for q, s in owners.items() if s == share]
    assert sum(len(params(share)) for share in SHARES) == len(QUESTIONS)


def test_the_audit_is_the_same_in_every_run():
    question = QUESTIONS["ex1.q10"]
    first, second = audit(question), audit(question)
    assert [(r.where, r.mutation, r.status, r.case) for r in first.results] == \
        [(r.where, r.mutation, r.status, r.case) for r in second.results]
    assert first.text() == second.text()
