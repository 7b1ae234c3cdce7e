"""The notebook's session: ``check(question_id, answer)``, the points so far and the seeds.

The session is module state, one per Python process (one per notebook kernel): the points of
the latest check of each question (:func:`session_points`) and how many checks each question
has had, which advances its seed (:func:`_next_seed`). :func:`reset_session` forgets both.
"""
from __future__ import annotations

import zlib
from typing import Any

from .running import QuestionTimeout
from .scoring import Result, _fmt, evaluate

__all__ = ["check", "reset_session", "session_points"]


_SESSION: dict[str, float] = {}
_CALLS: dict[str, int] = {}


def reset_session() -> None:
    """Forget the points and the seed sequence of this session."""
    _SESSION.clear()
    _CALLS.clear()


def session_points() -> dict[str, float]:
    """Points of the latest check of each question in this session."""
    return dict(_SESSION)


def _next_seed(question_id: str) -> int:
    count = _CALLS.get(question_id, 0)
    _CALLS[question_id] = count + 1
    return (zlib.crc32(question_id.encode()) * 1009 + count) % 2**32


def check(question_id: str, answer: Any = None) -> None:
    """Check ``answer`` (the student's function) for a question; print one line.

    Examples
    --------
    >>> check("l1.cp1", all_subsets_kernel)   # doctest: +SKIP
    l1.cp1 all-subsets kernel: passed all 4 cases, 2/2 points (so far 2/4 in l1)
    """
    from .questions import all_questions, get_question

    question = get_question(question_id)
    try:
        result = evaluate(question, answer, _next_seed(question.id))
    except QuestionTimeout:  # pragma: no cover - the alarm fired outside the answer
        result = Result(question, "error", detail="stopped by the time limit")
    _SESSION[question.id] = result.points
    in_set = [q for q in all_questions().values() if q.set_name == question.set_name]
    total = sum(q.points for q in in_set)
    got = sum(_SESSION.get(q.id, 0.0) for q in in_set)
    line = result.line(f"so far {_fmt(got)}/{_fmt(total)} in {question.set_name}")
    name = getattr(answer, "__name__", question.function)
    if callable(answer) and name != question.function:
        line += (f". Note: the grader runs the function named {question.function} from the cell "
                 f"'# ANSWER {question.id}'; this one is named {name}")
    print(line)
    return None
