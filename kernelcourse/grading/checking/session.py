"""The notebook's session: ``check(question_id)``, ``hint(question_id)``, the points so far and
the seeds.

The session is module state, one per Python process (one per notebook kernel): the points of
the latest check of each question (:func:`session_points`), how many checks each question
has had, which advances its seed (:func:`_next_seed`), how many of them failed, and how many
hint tiers were shown. :func:`reset_session` forgets all of it.

**Hints.** A question's ``hints`` are tiers, a nudge first. ``hint("ex1.q4")`` prints the next
tier at each call; from the second failed check of a question on, each failed check prints the
next tier not yet shown. When the check names the mistake and its diagnosis has a hint of its
own (:attr:`~kernelcourse.grading.model.question.Diagnosis.hint`), that hint follows it instead, from
the first failed check on.

**What check() prints** (:meth:`~kernelcourse.grading.checking.scoring.Result.block`): a passed or
untouched answer, one line; a failed one, a short block: the verdict and the points, the
failing case's inputs once, expected and got, the likely mistake and the hint. No seed: the
cases of the latest check are kept here, so ``case_inputs(id, n)`` prints a drawn case.

**The answer, found by name.** ``check("ex1.q1")`` looks the question's function up in the
notebook's namespace (the caller's globals), so the check cell needs no name that could be
undefined; ``check("ex1.q1", all_subsets_features)`` still works. When the function is not
defined, ``check`` says to run the answer cell first.

**A failed answer cell.** In IPython (Jupyter), importing :mod:`kernelcourse.grading` registers
a ``post_run_cell`` hook that remembers, for each cell opening with ``# ANSWER <id>``, whether
its last run succeeded. When it failed (a SyntaxError, or an exception while the cell ran), the
function is still the earlier one (the stub, usually), and ``check`` says so, with the error.
Cells run before the import are found in the input history (``In``) instead: a SyntaxError is
found by compiling the last such cell.
"""
from __future__ import annotations

import re
import sys
import zlib
from typing import Any

from ..sealed.running import QuestionTimeout, _short
from .scoring import Result, _fmt, _wrap, evaluate

__all__ = ["check", "hint", "reset_session", "session_points"]


_SESSION: dict[str, float] = {}
_CALLS: dict[str, int] = {}
_FAILURES: dict[str, int] = {}
_HINTS_SHOWN: dict[str, int] = {}
#: question id -> (cell text, error text or "") of the last run of its answer cell
_ANSWER_RUNS: dict[str, tuple[str, str]] = {}
_ANSWER_LINE = re.compile(r"^\s*#\s*ANSWER\s+(\S+)\s*$")
_NOT_GIVEN = object()


def reset_session() -> None:
    """Forget the points, the seed sequence, the failures and the hints shown."""
    _SESSION.clear()
    _CALLS.clear()
    _FAILURES.clear()
    _HINTS_SHOWN.clear()


def session_points() -> dict[str, float]:
    """Points of the latest check of each question in this session."""
    return dict(_SESSION)


def _next_seed(question_id: str) -> int:
    count = _CALLS.get(question_id, 0)
    _CALLS[question_id] = count + 1
    return (zlib.crc32(question_id.encode()) * 1009 + count) % 2**32


# --------------------------------------------------------------------- hints
def _hint_text(question) -> str | None:
    """The next tier not shown yet (and count it shown), None when none is left."""
    tiers = question.hints or ((question.hint,) if question.hint else ())
    shown = _HINTS_SHOWN.get(question.id, 0)
    if shown >= len(tiers):
        return None
    _HINTS_SHOWN[question.id] = shown + 1
    return f"Hint {shown + 1} of {len(tiers)} for {question.id}: {tiers[shown]}"


def hint(question_id: str) -> None:
    """Print the next hint tier of a question (a nudge first, then stronger ones)."""
    from ..questions import get_question

    question = get_question(question_id)
    text = _hint_text(question)
    if text is None:
        tiers = question.hints or (question.hint,)
        text = (f"No more hints for {question.id}: all {len(tiers)} were shown. The last one: "
                f"{tiers[-1]}. Section {question.section or '-'} of the lecture covers it.")
    print(text)


# --------------------------------------------------------------------- the answer cell
def _answer_id(cell: str) -> str | None:
    for line in cell.lstrip("\n").split("\n", 1)[:1]:
        match = _ANSWER_LINE.match(line)
        if match:
            return match.group(1)
    return None


def _post_run_cell(result) -> None:
    """IPython hook: remember whether each answer cell's last run succeeded."""
    try:
        cell = result.info.raw_cell or ""
    except AttributeError:  # pragma: no cover - very old IPython
        return
    question_id = _answer_id(cell)
    if question_id is None:
        return
    error = result.error_before_exec or result.error_in_exec
    text = ""
    if error is not None:
        text = f"{type(error).__name__}: {_short(error, 120)}"
        line = getattr(error, "lineno", None)
        if isinstance(error, SyntaxError) and line:
            text = f"{type(error).__name__} on line {line}: {_short(error.msg, 100)}"
    _ANSWER_RUNS[question_id] = (cell, text)


def _install_hook() -> None:
    """Register :func:`_post_run_cell` once, when running under IPython."""
    try:
        shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    except Exception:  # noqa: BLE001
        shell = None
    if shell is None:
        return
    callbacks = shell.events.callbacks.get("post_run_cell", [])
    if not any(getattr(cb, "__name__", "") == "_post_run_cell"
               and getattr(cb, "__module__", "") == __name__ for cb in callbacks):
        shell.events.register("post_run_cell", _post_run_cell)


def _history_error(question_id: str) -> str:
    """The SyntaxError of the last answer cell of ``question_id`` in IPython's input history
    (for cells run before the hook was installed); '' when none is found."""
    try:
        shell = sys.modules["IPython"].get_ipython()
        inputs = shell.user_ns.get("In") or []
    except Exception:  # noqa: BLE001
        return ""
    for cell in reversed(inputs[:-1] if inputs else []):
        if isinstance(cell, str) and _answer_id(cell) == question_id:
            try:
                compile(cell, f"<answer cell {question_id}>", "exec")
            except SyntaxError as exc:
                return f"SyntaxError on line {exc.lineno}: {_short(exc.msg, 100)}"
            return ""
    return ""


def _answer_cell_failure(question_id: str) -> str:
    if question_id in _ANSWER_RUNS:
        return _ANSWER_RUNS[question_id][1]
    return _history_error(question_id)


def _caller_globals(depth: int = 2) -> dict:
    frame = sys._getframe(depth)
    return frame.f_globals


# --------------------------------------------------------------------- check
def check(question_id: str, answer: Any = _NOT_GIVEN) -> None:
    """Check the answer to a question; print its verdict (one line, or a short block when it
    failed).

    ``answer`` defaults to the function the question asks for, looked up by its name in
    the caller's (the notebook's) globals.

    Examples
    --------
    >>> check("l1.cp1")   # doctest: +SKIP
    l1.cp1 all-subsets kernel: passed all 4 cases, 2/2 points (so far 2/4 in l1)
    """
    from ..questions import get_question, set_questions

    _install_hook()
    question = get_question(question_id)
    failure = _answer_cell_failure(question.id)
    if answer is _NOT_GIVEN:
        namespace = _caller_globals()
        if question.function not in namespace:
            if failure:
                print(f"{question.id}: your answer cell failed ({failure}), so "
                      f"{question.function} is not defined: fix the cell '# ANSWER "
                      f"{question.id}' and run it again, then this check")
            else:
                print(f"{question.id}: {question.function} is not defined yet: run the answer "
                      f"cell above first (the one that starts with '# ANSWER {question.id}'), "
                      f"then this check")
            return None
        answer = namespace[question.function]
    try:
        result = evaluate(question, answer, _next_seed(question.id))
    except QuestionTimeout:  # pragma: no cover - the alarm fired outside the answer
        result = Result(question, "error", detail="stopped by the time limit")
    _SESSION[question.id] = result.points
    in_set = list(set_questions(question.set_name).values())
    total = sum(q.points for q in in_set)
    got = sum(_SESSION.get(q.id, 0.0) for q in in_set)
    so_far = f"so far {_fmt(got)}/{_fmt(total)} in {question.set_name}"
    extra = []
    name = getattr(answer, "__name__", question.function)
    if callable(answer) and name != question.function:
        extra.append(f"Note: the grader runs the function named {question.function} from the "
                     f"cell '# ANSWER {question.id}'; this one is named {name}")
    if failure:
        still = "the stub" if result.status == "not attempted" else "the earlier version"
        extra.append(f"Your answer cell failed when you last ran it ({failure}), so "
                     f"{question.function} is still {still}: fix the cell and run it again")
    text = ""
    if result.status != "passed":
        _FAILURES[question.id] = _FAILURES.get(question.id, 0) + (result.status != "not attempted")
        own = getattr(result.diagnosis, "hint", "") if result.status == "failed" else ""
        if own:  # the hint that addresses the mistake named, in place of the next tier
            text = f"Hint for this mistake ({question.id}): {own}"
        elif _FAILURES.get(question.id, 0) >= 2:
            text = _hint_text(question) or ""
    if result.status == "failed":
        print("\n".join([result.block(so_far, text), *(_wrap(e) for e in extra)]))
    else:
        print(". ".join([result.line(so_far), *extra]) + (f"\n{text}" if text else ""))
    return None


_install_hook()
