"""Grading a question's reference and mistakes under many seeds without computing the same
values again and again.

:func:`kernelcourse.grading.evaluate` makes a seed's cases, the reference's value on each case
and, to diagnose a failing answer, every named mistake's value on each case; the verdict tests
grade the reference and every mistake of a question in the same seed, and the fixed cases in
every seed, so most of that work is the same each time. :func:`shared` gives a stand-in for a
question whose ``make_cases`` keeps the last seeds' cases and whose reference and mistakes
(as the diagnoses call them, never as the answer graded) keep their value per input: the answer
under test still runs in full on every case, through the real :func:`evaluate`. :func:`grade`
evaluates an answer with it and hands back a :class:`Result` that names the real question and
the real diagnosis, as ``evaluate(question, ...)`` would have.

A failing verdict writes the inputs of the case it reports in full (the verdict line and the
pages show them); for a question whose inputs are large arrays that writing is most of the
grading's time, and the verdict tests report the same cases (the fixed ones above all) again
and again. While :func:`grade` runs, the scoring module's writer of a case's inputs keeps its
text per question and case content (:func:`_inputs_written_once`): the same text, written once.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import pickle
import sys
from collections import OrderedDict

from kernelcourse.grading import evaluate, score
from kernelcourse.grading.questions import all_questions

QUESTIONS = all_questions()


def _memo(func):
    """``func`` remembering its value per input (the pickled arguments' digest); each call
    gets its own copy, so no caller can change another's value."""
    values: dict = {}

    @functools.wraps(func)
    def remembered(*args, **kwargs):
        try:
            key = hashlib.blake2b(pickle.dumps((args, kwargs), protocol=5)).digest()
        except Exception:                       # inputs pickle cannot write: no memory
            return func(*args, **kwargs)
        if key not in values:
            values[key] = func(*args, **kwargs)
        return copy.deepcopy(values[key])

    return remembered


@functools.lru_cache(maxsize=2)
def shared(qid: str):
    """A stand-in for question ``qid`` that grades like it (same cases, reference, diagnoses,
    tolerances) and keeps the values it has computed (the two questions used last)."""
    q = QUESTIONS[qid]
    stand_in = copy.copy(q)
    stand_in.reference = _memo(q.reference)
    stand_in.diagnoses = [copy.copy(d) for d in q.diagnoses]
    for d in stand_in.diagnoses:
        d.mistake = _memo(d.mistake)
    made: OrderedDict = OrderedDict()

    def make_cases(seed):
        if seed not in made:
            made[seed] = q.make_cases(seed)
            while len(made) > 2:
                made.popitem(last=False)
        return made[seed]

    stand_in.make_cases = make_cases
    return stand_in


def _digest(*parts) -> bytes | None:
    try:
        return hashlib.blake2b(pickle.dumps(parts, protocol=5)).digest()
    except Exception:                           # what pickle cannot write: no memory
        return None


#: the inputs written, by (question, case content); the latest few hundred
_WRITTEN: OrderedDict = OrderedDict()


@contextlib.contextmanager
def _inputs_written_once():
    """The scoring module's ``_written_inputs(question, case)`` (the function that writes a
    case's inputs in full, which :func:`score` calls) keeping its text per question and case
    content while the block runs."""
    module = sys.modules[score.__module__]
    real = module._written_inputs

    def written(question, case):
        key = _digest(question.id, case.args, case.kwargs, case.label)
        if key is None:
            return real(question, case)
        if key not in _WRITTEN:
            _WRITTEN[key] = real(question, case)
            while len(_WRITTEN) > 256:
                _WRITTEN.popitem(last=False)
        return _WRITTEN[key]

    module._written_inputs = written
    try:
        yield
    finally:
        module._written_inputs = real


#: verdicts kept by :func:`grade` when asked to (``keep``), by (question, answer, seed, whether
#: shortcuts were looked for): a seed that both a quick-loop test and its full-run twin grade
#: (the quick tests' seeds are the first of the full run's) is graded once in a run
_KEPT: dict = {}


def grade(qid: str, answer, seed: int, detect_shortcuts: bool = False, keep: bool = False):
    """``evaluate(question, answer, seed)`` for question ``qid``, computing no reference or
    mistake value twice; the Result names the real question and its real diagnosis. With
    ``keep``, the verdict is kept and handed back when the same answer is graded in the same
    seed again (the same object: no caller changes a Result)."""
    key = (qid, answer, seed, detect_shortcuts)
    if keep and key in _KEPT:
        return _KEPT[key]
    result = _graded(qid, answer, seed, detect_shortcuts)
    if keep:
        _KEPT[key] = result
    return result


def _graded(qid: str, answer, seed: int, detect_shortcuts: bool):
    q = QUESTIONS[qid]
    stand_in = shared(qid)
    with _inputs_written_once():
        result = evaluate(stand_in, answer, seed, detect_shortcuts=detect_shortcuts)
    result.question = q
    if result.diagnosis is not None and result.diagnosis.found_by == "name":
        # a relation (grading/relations/) is made per verdict, never one of the question's
        result.diagnosis = q.diagnoses[_index(stand_in.diagnoses, result.diagnosis)]
    return result


def _index(diagnoses, diagnosis) -> int:
    return next(i for i, d in enumerate(diagnoses) if d is diagnosis)


def stand_in_of(qid: str, diagnosis):
    """The stand-in's copy of one of question ``qid``'s diagnoses (its mistake remembers)."""
    return shared(qid).diagnoses[_index(QUESTIONS[qid].diagnoses, diagnosis)]
