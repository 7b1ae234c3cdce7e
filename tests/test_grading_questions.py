"""Every registered question, of every lecture module: well formed (diagnosis names unique),
plain reproducible cases, a stub is "not attempted", no diagnosis fires on the reference's
answer. (The reference earning full marks with no diagnosis, and each diagnosis firing on its
own mistake with its message in the verdict line, are tests/test_grading_verdicts.py's.)

The sweep reads the registry, so question modules added later are covered without edits here.
"""
import inspect

import numpy as np
import pytest

from kernelcourse.grading import evaluate, get_question
from kernelcourse.grading.model import transport
from kernelcourse.grading.questions import all_questions, import_errors

QUESTIONS = all_questions()
IDS = list(QUESTIONS)
DIAGNOSES = [(qid, i) for qid, q in QUESTIONS.items() for i in range(len(q.diagnoses))]


def test_every_question_module_imports():
    assert import_errors() == {}


def test_registry_holds_lecture_1():
    assert {"l1.cp1", "l1.cp2"} <= set(IDS)
    ex1 = [q for q in QUESTIONS.values() if q.set_name == "ex1"]
    assert len(ex1) >= 5 and sum(q.points for q in ex1) == 22


@pytest.mark.parametrize("qid", IDS)
def test_question_is_well_formed(qid):
    q = QUESTIONS[qid]
    assert get_question(qid) is q
    assert q.title and q.hint and len(q.diagnoses) >= 1
    assert all(d.name and d.message and callable(d.mistake) for d in q.diagnoses)
    names = [d.name for d in q.diagnoses]
    assert len(set(names)) == len(names), f"{qid}: two diagnoses share a name"
    # the mistakes take the reference's arguments
    params = inspect.signature(q.reference).parameters
    for d in q.diagnoses:
        inspect.signature(d.mistake).bind(*[None] * len([p for p in params.values()
                                                         if p.default is p.empty]))


@pytest.mark.parametrize("qid", IDS)
def test_cases_are_plain_data_and_reproducible(qid):
    q = QUESTIONS[qid]
    first, again, other = q.make_cases(7), q.make_cases(7), q.make_cases(8)
    if not inspect.signature(q.reference).parameters:
        # a choice (or a single number) answered by a function of no argument: one case
        assert all(c.args == () and not c.kwargs for c in first)
        return
    assert len(first) >= 2, f"{qid}: partial credit needs several cases"
    for a, b in zip(first, again):
        assert transport.dumps([list(a.args), a.kwargs]) == transport.dumps([list(b.args), b.kwargs])
        back = transport.roundtrip(list(a.args))
        assert transport.dumps(back) == transport.dumps(list(a.args))
    assert [transport.dumps(list(c.args)) for c in first] != \
        [transport.dumps(list(c.args)) for c in other], f"{qid}: cases ignore the seed"


@pytest.mark.parametrize("qid", IDS)
def test_stub_is_not_attempted(qid):
    q = QUESTIONS[qid]

    def stub(*args, **kwargs):
        raise NotImplementedError(q.hint)
    result = evaluate(q, stub, 0)
    assert result.status == "not attempted" and result.points == 0
    assert result.line() == f"{qid} {q.title}: not attempted, 0/{q.points:g} points"


@pytest.mark.parametrize("qid, index", DIAGNOSES)
def test_no_diagnosis_agrees_with_the_reference(qid, index):
    q = QUESTIONS[qid]
    diagnosis = q.diagnoses[index]
    for case in q.make_cases(3):
        expected = q.expected(case)
        assert not diagnosis.agrees(expected, case, expected, q.rtol, q.atol), \
            f"{qid}: '{diagnosis.name}' fires on the reference's answer ({case.label})"


def test_lecture1_kernel_question_against_a_slow_loop():
    """The l1.cp1 reference is the lecture's product formula, checked entry by entry."""
    q = get_question("l1.cp1")
    for case in q.make_cases(11):
        X, Z = case.args
        K = q.expected(case)
        for i in range(len(X)):
            for j in range(len(Z)):
                want = 1.0
                for k in range(X.shape[1]):
                    want *= 1.0 + X[i, k] * Z[j, k]
                assert K[i, j] == pytest.approx(want, rel=1e-12)


def test_lecture1_map_question_accepts_any_column_order():
    q = get_question("ex1.q1")
    rng = np.random.default_rng(0)

    def shuffled(X):
        Phi = q.reference(X)
        return Phi[:, rng.permutation(Phi.shape[1])]
    assert evaluate(q, shuffled, 0, detect_shortcuts=False).status == "passed"

    def rows_differently_ordered(X):
        Phi = q.reference(X)
        return np.sort(Phi, axis=1)
    result = evaluate(q, rows_differently_ordered, 0, detect_shortcuts=False)
    assert result.status == "failed" and "every row must use the same column order" in result.line()


def test_lecture1_witness_question_accepts_any_negative_direction():
    q = get_question("ex1.q7")

    def scaled_and_mixed(K):
        lam, V = np.linalg.eigh(K)
        return -3.0 * V[:, 0] + 1e-3 * V[:, -1]
    assert evaluate(q, scaled_and_mixed, 0).status == "passed"
    assert evaluate(q, lambda K: np.zeros(len(K)), 0).status == "failed"
