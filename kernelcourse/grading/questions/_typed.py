"""Drawn cases of a fixed type, so that a verdict never depends on the seed (issue 28).

Each question of lecture 7 grades on its fixed cases (:attr:`Question.fixed_cases`) and on
drawn cases, one drawn *like* each fixed case it names: a draw is kept only when every named
mistake fares on it as on that fixed case (fails or passes, and is told apart from each other
mistake the same way). So the answer with a named mistake fails the same number of cases,
earns the same points and gets the same diagnosis in every seed; the random numbers can only
find more in the other answers.
"""
from __future__ import annotations

import copy

from ..model import transport
from ..model.compare import values_match
from ..model.question import Case

__all__ = ["signature", "drawn_like"]


def _output(mistake, case):
    args, kwargs = case.copied()
    try:
        return transport.roundtrip(mistake(*args, **kwargs)), True
    except Exception:
        return None, False


def _matches(actual, value, question):
    """``values_match``'s verdict, or None where it raised."""
    try:
        return bool(values_match(actual, value, question.rtol, question.atol)[0])
    except Exception:
        return None


def _signature_parts(question, case: Case):
    """The parts of ``case``'s :func:`signature`, one at a time: first whether each mistake
    passes, then whether each diagnosis agrees with each mistake (so a draw unlike its fixed
    case is given up at its first difference). Each mistake runs once on the case; a diagnosis
    with neither ``detect`` nor ``behaviour`` agrees with a value as :meth:`Diagnosis.agrees`
    decides (None where its mistake gives the expected value, False where it raised) from
    that one output, which a question's (deterministic) mistakes give on every call."""
    expected = question.expected(case)
    outs = [_output(d.mistake, case) for d in question.diagnoses]
    passes = []
    for value, ran in outs:
        passes.append(ran and question.judge(value, expected, case)[0])
        yield "pass", passes[-1]
    right = [ran and _matches(value, expected, question) for value, ran in outs]
    for (value, ran), ok in zip(outs, passes):
        for j, other in enumerate(question.diagnoses):
            if not ran:
                yield "agree", False
            elif ok and (other.detect is not None or other.behaviour is not None):
                yield "agree", "skipped"
            elif other.detect is not None or other.behaviour is not None:
                yield "agree", other.agrees(value, case, expected, question.rtol, question.atol)
            elif not outs[j][1] or right[j] is None:
                yield "agree", False                  # its mistake raises on the case
            elif right[j]:
                yield "agree", None                   # its mistake is right on the case
            else:
                yield "agree", bool(_matches(value, outs[j][0], question))


def signature(question, case: Case) -> tuple:
    """How every named mistake fares on ``case``: whether it passes, and whether each
    diagnosis agrees with it there (what :meth:`Question.diagnose` scores)."""
    parts = list(_signature_parts(question, case))
    return (tuple(v for kind, v in parts if kind == "pass"),
            tuple(v for kind, v in parts if kind == "agree"))


def _fares_like(question, case: Case, target: tuple) -> bool:
    """``signature(question, case) == target``, stopping at the first part that differs."""
    wanted = iter(target[0] + target[1])
    sentinel = object()
    for _, value in _signature_parts(question, case):
        if next(wanted, sentinel) != value:
            return False
    return next(wanted, sentinel) is sentinel


_CACHE: dict = {}


def drawn_like(question, rng, kinds, tries: int = 4000) -> list[Case]:
    """One drawn case per ``(fixed_case, draw)`` in ``kinds``: ``draw(rng) -> Case`` is called
    until its case has the fixed case's :func:`signature`. Cached by the generator's state
    (the draws are a function of it), so grading the same seed twice draws once."""
    key = (question.id, repr(rng.bit_generator.state))
    if key in _CACHE:
        return copy.deepcopy(_CACHE[key])
    cases = []
    for fixed, draw in kinds:
        target = signature(question, fixed)
        for _ in range(tries):
            case = draw(rng)
            if case is not None and _fares_like(question, case, target):
                break
        else:
            raise RuntimeError(f"{question.id}: no draw like the fixed case {fixed.label!r} "
                               f"in {tries} tries")
        cases.append(case)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = copy.deepcopy(cases)
    return cases
