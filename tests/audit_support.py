"""The question audit's test, shared by the files that hold it: the bank is split by exercise
set over three test files (tests/test_question_audit*.py) so that the test run's workers, which
take a file whole, audit their shares side by side instead of one worker auditing the whole
bank last. :data:`SHARES` says which file audits which sets; tests/test_question_audit.py checks
that every registered question's set is in exactly one share.
"""
import pytest

from kernelcourse.grading.audit import audit, format_audit
from kernelcourse.grading.questions import all_questions

QUESTIONS = all_questions()

#: the sets each file audits, by the file's name: about a third of the bank's audit time each
#: (a lecture's checkpoints, ``l1`` to ``l10``, are in the last share)
SHARES = {
    "test_question_audit": ("ex1", "ex2", "ex3", "ex4", "ex5"),
    "test_question_audit_ex7_ex10": ("ex7", "ex10"),
    "test_question_audit_others": ("ex6", "ex8", "ex9", "lectures"),
}

#: known survivors, by question, with the owner who is fixing them. The coordinator empties
#: this list as their branches merge; a question listed here that reaches 0 passes anyway.
KNOWN_SURVIVORS: dict = {}

#: audited in the quick loop (each well under a second): a count, a predicted number, a choice
QUICK = ("ex1.q2", "ex1.q10", "ex3.q12")


def share_of(qid: str) -> str:
    """The share (a key of :data:`SHARES`) whose file audits question ``qid``."""
    set_name = QUESTIONS[qid].set_name
    key = "lectures" if set_name.startswith("l") else set_name
    owners = [name for name, sets in SHARES.items() if key in sets]
    if len(owners) != 1:
        raise LookupError(f"{qid}: its set {set_name} is in {len(owners)} shares of the audit")
    return owners[0]


def params(share: str) -> list:
    """The questions of ``share``, one parameter each (id: the question id, so ``-k ex7``
    selects a set), slow but for :data:`QUICK`."""
    out = []
    for qid in QUESTIONS:
        if share_of(qid) != share:
            continue
        marks = [] if qid in QUICK else [pytest.mark.slow]
        if qid in KNOWN_SURVIVORS:
            marks.append(pytest.mark.xfail(reason=f"known survivors, owner {KNOWN_SURVIVORS[qid]}",
                                           strict=False))
        out.append(pytest.param(qid, id=qid, marks=marks))
    return out


def check_audit(qid: str) -> None:
    """Question ``qid``'s fixed cases kill every mutant a drawn case tells apart."""
    report = audit(QUESTIONS[qid])
    assert report.counted > 0, f"{qid}: no mutant of its reference differs anywhere " \
                               f"({report.note or 'nothing to mutate'})"
    assert not report.survivors, format_audit([report])


def audit_test(share: str):
    """The audit's test for the file ``share`` (its module's name): one test per question of
    the share; a file holds it as ``test_... = audit_test(Path(__file__).stem)``."""
    @pytest.mark.parametrize("qid", params(share))
    def test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart(qid):
        check_audit(qid)

    return test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart
