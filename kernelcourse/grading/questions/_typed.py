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
from ..model.question import Case

__all__ = ["signature", "drawn_like"]


def _output(mistake, case):
    args, kwargs = case.copied()
    try:
        return transport.roundtrip(mistake(*args, **kwargs)), True
    except Exception:
        return None, False


def signature(question, case: Case) -> tuple:
    """How every named mistake fares on ``case``: whether it passes, and whether each
    diagnosis agrees with it there (what :meth:`Question.diagnose` scores)."""
    expected = question.expected(case)
    outs = [_output(d.mistake, case) for d in question.diagnoses]
    passes, agrees = [], []
    for value, ran in outs:
        ok = ran and question.judge(value, expected, case)[0]
        passes.append(ok)
        for other in question.diagnoses:
            if not ran:
                agrees.append(False)
            elif ok and (other.detect is not None or other.behaviour is not None):
                agrees.append("skipped")
            else:
                agrees.append(other.agrees(value, case, expected, question.rtol, question.atol))
    return tuple(passes), tuple(agrees)


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
            if case is not None and signature(question, case) == target:
                break
        else:
            raise RuntimeError(f"{question.id}: no draw like the fixed case {fixed.label!r} "
                               f"in {tries} tries")
        cases.append(case)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = copy.deepcopy(cases)
    return cases
