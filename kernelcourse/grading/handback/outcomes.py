"""What happened to one answer, told apart the same way on every hand-back page.

:func:`outcome` sorts a question's feedback record into ``passed``, ``wrong`` (the answer ran
and returned wrong values, or raised on some cases: a mistake to learn from), ``timeout`` (it
ran out of time: an endless loop, or a slow approach), ``crash`` (it could not run: an error at
the cell's top level, the process died) or ``not attempted``. An endless loop is a timeout
wherever it sits: inside the function (each case stops at the time limit) or at the cell's top
level (the cell never finishes); :func:`timeout_text` gives both the same words.
"""
from __future__ import annotations

import re

__all__ = ["outcome", "timeout_text", "record_of", "KINDS"]

KINDS = ("passed", "wrong", "timeout", "crash", "not attempted")
_TIMEOUT = re.compile(r"stopped: time limit of|ran past the time limit|stopped: the "
                      r"submission's time limit|stopped: the worker stopped answering|"
                      r"submission's time limit is over|stopped by the time limit")
_SECONDS = re.compile(r"time limit of ([0-9.]+) s")


def record_of(row, qid: str) -> dict:
    """The feedback record of a question of a row; one made from the row's details when the
    grader left none (no answer cell, the time over, the worker gone)."""
    record = (getattr(row, "feedback", None) or {}).get(qid)
    if record:
        return record
    detail = (getattr(row, "details", None) or {}).get(qid, "")
    return {"status": "not attempted" if detail in ("", "no answer cell") else "error",
            "points": (row.points or {}).get(qid, 0.0), "n_passed": 0, "n_cases": 0,
            "detail": detail, "diagnosis": "", "diagnosis_message": ""}


def outcome(record: dict) -> str:
    """One of :data:`KINDS` for a feedback record."""
    status = record.get("status")
    if status == "passed":
        return "passed"
    if status in (None, "not attempted"):
        return "not attempted"
    if _TIMEOUT.search(str(record.get("detail") or "")):
        return "timeout"
    return "wrong" if status == "failed" else "crash"


def timeout_text(record: dict) -> str:
    """The words for an answer that ran out of time, the same for a loop in the function and
    at the cell's top level."""
    detail = str(record.get("detail") or "")
    m = _SECONDS.search(detail)
    if m:
        return f"stopped: the time limit of {m.group(1)} s is over (an endless loop?)"
    if "worker stopped answering" in detail:
        return "stopped: the grader's worker stopped answering (an endless loop?)"
    return "stopped: the submission's time limit is over"
