"""Scoring: the verdict on one answer (:class:`Result`) from its outcomes, and :func:`evaluate`,
which runs and scores an answer in this process.

:func:`score` compares the outcomes of :func:`~kernelcourse.grading.sealed.running.run_answer` (run
here or in the grading command's worker) with the reference, the properties and the
diagnoses; it is the one judge of ``check`` and of ``kernelcourse grade`` alike.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from .sealed import transport
from .compare import format_value
from .question import Case, Diagnosis, Question
from .sealed.running import _short, run_answer
from .shortcuts import reason as _shortcut_reason, static_uses, tripwires

__all__ = ["Result", "score", "evaluate", "answer_source"]


#: the longest line a verdict takes (the failing case is shortened to fit, never the diagnosis)
LINE_LIMIT = 560


@dataclass
class Result:
    """The verdict on one question."""

    question: Question
    status: str  # "passed", "failed", "not attempted", "error"
    n_passed: int = 0
    n_cases: int = 0
    points: float = 0.0
    detail: str = ""
    diagnosis: Diagnosis | None = None
    note: str = ""

    def line(self, so_far: str = "", limit: int | None = LINE_LIMIT) -> str:
        """The verdict in one line. When it would be longer than ``limit`` characters, the
        description of the failing case is shortened; the diagnosis and the note are always
        whole."""
        q = self.question
        pts = f"{_fmt(self.points)}/{_fmt(q.points)} points" + (f" ({so_far})" if so_far else "")
        head = f"{q.id} {q.title}"
        note = f". Note: {self.note}" if self.note else ""
        if self.status == "passed":
            return f"{head}: passed all {self.n_cases} cases, {pts}{note}"
        if self.status == "not attempted":
            return f"{head}: not attempted, {pts}"
        if self.status == "error":
            return f"{head}: {self.detail}, {pts}"
        tail = note
        if self.diagnosis is not None:
            tail += f". Likely mistake: {self.diagnosis.message}"
        start = f"{head}: {self.n_passed}/{self.n_cases} cases passed, {pts}; "
        detail = self.detail
        if limit is not None and len(start) + len(detail) + len(tail) > limit:
            room = max(limit - len(start) - len(tail), 60)
            detail = detail if len(detail) <= room else detail[: room - 4].rstrip() + " ..."
        return start + detail + tail


def _fmt(x: float) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _describe_inputs(question: Question, case: Case) -> str:
    try:
        names = [p for p in inspect.signature(question.reference).parameters]
    except (TypeError, ValueError):
        names = []
    parts = []
    for i, arg in enumerate(case.args):
        name = names[i] if i < len(names) else f"arg{i}"
        parts.append(f"{name}={format_value(arg, limit=70, threshold=6)}")
    parts += [f"{k}={format_value(v, limit=70, threshold=6)}" for k, v in case.kwargs.items()]
    inputs = ", ".join(parts)
    if not inputs:
        return case.label or "the question"
    return f"{case.label} ({inputs})" if case.label else inputs


def score(question: Question, cases: list[Case], outcomes: list[dict], uses=()) -> Result:
    """Compare outcomes (from :func:`run_answer`, possibly in another process)
    with the reference, the properties and the diagnoses.

    ``uses``: the forbidden names the answer used (static and run-time
    detection, :mod:`kernelcourse.grading.shortcuts`); any makes it 0 points.
    """
    n = len(cases)
    if uses:
        return Result(question, "error", 0, n, 0.0, _shortcut_reason(uses))
    if len(outcomes) != n:
        return Result(question, "error", 0, n, 0.0, f"the answer returned {len(outcomes)} "
                      f"results for {n} cases")
    if outcomes and outcomes[0].get("kind") == "not_implemented":
        return Result(question, "not attempted", 0, n)
    n_passed, first_fail, records, notes = 0, "", [], []
    names = _parameter_names(question)
    for case, out in zip(cases, outcomes):
        kind = out.get("kind")
        inputs = _describe_inputs(question, case)
        if kind == "value":
            try:
                actual = transport.decode(out["value"])
            except Exception as exc:
                ok, why, actual = False, f"unreadable answer ({_short(exc)})", None
            else:
                expected = question.expected(case)
                actual, note = question.conform(actual, expected)
                if note and note not in notes:
                    notes.append(note)
                usage = _plain_usage(out.get("usage"), names)
                ok, reason = question.judge(actual, expected, case)
                broken = ""
                if ok:
                    ok, broken = question.obeys(usage, case)
                records.append((case, actual, expected, ok, usage))
                if ok:
                    n_passed += 1
                    continue
                if broken:
                    first_fail = first_fail or f"first failure on {inputs}: {broken}"
                    continue
                shown = (f"expected {format_value(expected)}" if question.compare_reference
                         else "expected")
                why = f"{shown}, got {format_value(actual)}" + (f" ({reason})" if reason else "")
                if not question.compare_reference:
                    why = f"got {format_value(actual)}: {reason}"
        elif kind == "error":
            why = f"raised {out.get('type', 'Exception')}: {out.get('message', '')}"
        elif kind == "not_implemented":
            why = f"raised NotImplementedError: {out.get('message', '')}"
        elif kind == "timeout":
            why = f"stopped: {out.get('message', 'time limit')} is over (an endless loop?)"
        elif kind == "skipped":
            continue
        else:
            why = f"unknown outcome {kind!r}"
        if not first_fail:
            first_fail = f"first failure on {inputs}: {why}"
    points = question.points * n_passed / n
    status = "passed" if n_passed == n else "failed"
    diagnosis = question.diagnose(records) if n_passed < n else None
    return Result(question, status, n_passed, n, points, first_fail, diagnosis, "; ".join(notes))


def _parameter_names(question: Question) -> list[str]:
    try:
        return list(inspect.signature(question.reference).parameters)
    except (TypeError, ValueError):
        return []


def _plain_usage(usage, names: list[str]) -> dict:
    """The ``usage`` an outcome reported, kept only where it is plain data of the expected
    form (it may come from a worker that ran untrusted code), with the parameter names of
    the arguments changed in place."""
    if not isinstance(usage, dict):
        return {}
    clean: dict = {}
    modified = usage.get("modified")
    if isinstance(modified, list):
        keys = [str(m)[:40] for m in modified[:50]]
        clean["modified"] = keys
        clean["modified_names"] = [names[int(k)] if k.isdigit() and int(k) < len(names) else k
                                   for k in keys]
    probes = usage.get("probes")
    if isinstance(probes, dict):
        clean["probes"] = {str(k)[:40]: {str(a)[:40]: b for a, b in v.items()
                                         if isinstance(b, (int, float, str, bool))}
                           for k, v in list(probes.items())[:20] if isinstance(v, dict)}
    return clean


def answer_source(answer) -> str:
    """The source of an answer function where Python can find it ('' otherwise)."""
    try:
        return inspect.getsource(answer)
    except (TypeError, OSError):
        return ""


def evaluate(question: Question, answer, seed: int, seconds: float | None = None,
             detect_shortcuts: bool = True) -> Result:
    """Check ``answer`` in this process on the cases drawn with ``seed``.

    The answer's source is read for uses of the names the question forbids,
    and while it runs those names are tripwires (put back afterwards).
    ``detect_shortcuts=False`` is for checking the grader's own functions (a
    question's reference and mistakes), which may use the package freely.
    """
    if not callable(answer):
        return Result(question, "error", 0, 0, 0.0,
                      f"expected the function {question.function}, got "
                      f"{type(answer).__name__} {format_value(answer, limit=40)}")
    cases = question.make_cases(seed)
    limit = question.time_limit if seconds is None else seconds
    forbidden = question.shortcut_objects() if detect_shortcuts else {}
    uses = set(static_uses(answer_source(answer), forbidden)) if forbidden else set()
    with tripwires(forbidden, uses.add):
        outcomes = run_answer(answer, cases, limit)
    return score(question, cases, outcomes, uses=sorted(uses))
