"""Scoring: the verdict on one answer (:class:`Result`) from its outcomes, and :func:`evaluate`,
which runs and scores an answer in this process.

:func:`score` compares the outcomes of :func:`~kernelcourse.grading.sealed.running.run_answer` (run
here or in the grading command's worker) with the reference, the properties and the
diagnoses; it is the one judge of ``check`` and of ``kernelcourse grade`` alike.
"""
from __future__ import annotations

import inspect
import sys
import textwrap
from dataclasses import dataclass, field

from ..model import transport
from ..model.compare import format_value, full_text
from ..model.question import Case, Diagnosis, Question
from ..relations import relate
from ..relations.mutants import match_mutant
from ..relations.raised import explain_raised
from ..sealed.running import _short, run_answer
from ..questions import all_questions
from ..model.loaded import question_modules, unloaded_homes
from ..model.shortcuts import reason as _shortcut_reason, static_uses, tripwires, with_routes

__all__ = ["Result", "score", "evaluate", "answer_source", "credit", "case_inputs"]


#: the longest line a verdict takes: beyond it the inputs are left out for the call that
#: prints them (:func:`case_inputs`); nothing else is ever cut
LINE_LIMIT = 560
#: the longest inputs written in a verdict line
INPUTS_LIMIT = 240
#: the longest inputs written in check()'s block (beyond it, the call that prints them)
BLOCK_INPUTS_LIMIT = 600
#: the width check()'s block is wrapped to (between words, never inside a number)
BLOCK_WIDTH = 88
#: the cases of each question's latest check in this process (what ``case_inputs`` prints)
_LAST_CASES: dict = {}


def credit(points: float, fixed: list[bool], drawn: list[bool]) -> float:
    """The points an answer earns, from which of its fixed and drawn cases passed.

    The points are split evenly over the fixed cases (:attr:`Question.fixed_cases`, the same in
    every run): an answer that fails a fixed case earns the share of each fixed case it passes,
    whatever the drawn cases say, so it earns the same points in every run. The drawn cases can
    only find more: an answer that passes every fixed case but fails a drawn one earns the
    share of the drawn cases it passes, at most one fixed case's share less than full marks
    (so a table of the answers to the public fixed cases earns nothing). A question without
    fixed cases splits its points over all its cases.
    """
    if not fixed:
        cases = list(drawn)
        return points * sum(cases) / len(cases) if cases else 0.0
    if all(fixed) and not all(drawn):
        return points * min(sum(drawn) / len(drawn), 1 - 1 / len(fixed))
    return points * sum(fixed) / len(fixed)


@dataclass
class Result:
    """The verdict on one question."""

    question: Question
    status: str  # "passed", "failed", "not attempted", "error"
    n_passed: int = 0
    n_cases: int = 0
    points: float = 0.0
    #: the failing case reported (the one where the diagnosis shows, else the first failing),
    #: with the expected and the actual value
    detail: str = ""
    diagnosis: Diagnosis | None = None
    note: str = ""
    #: the inputs of the reported case, written in full (or the call that prints them)
    inputs: str = ""
    #: how many cases were fixed, and how many of those passed
    n_fixed: int = 0
    fixed_passed: int = 0
    #: the reported case in parts, for check()'s block: its name ("case 3 (fixed, d=9)"), the
    #: expected and the actual value written out (or what happened instead: "raised ...")
    failure: dict = field(default_factory=dict)
    #: a true-or-false (or per-statement choice) question: one ``(statement, right, answered,
    #: message)`` per statement, in the order first graded
    statements: list = field(default_factory=list)
    #: the reported case's inputs written in full (up to 4000 characters), for the pages
    full_inputs: str = ""

    def _count(self) -> str:
        if self.statements:
            right = sum(ok for _, ok, _, _ in self.statements)
            return f"{right} of {len(self.statements)} statements right"
        if not self.n_fixed:
            return f"{self.n_passed}/{self.n_cases} cases passed"
        drawn = self.n_cases - self.n_fixed
        failed_drawn = drawn - (self.n_passed - self.fixed_passed)
        if self.fixed_passed == self.n_fixed and failed_drawn:
            return (f"every fixed case passed but {failed_drawn} of {drawn} drawn cases failed "
                    f"(the points are then the share of the drawn cases passed, at most one "
                    f"fixed case's share below full marks)")
        text = f"{self.fixed_passed}/{self.n_fixed} fixed cases passed"
        return text + (f", {drawn - failed_drawn}/{drawn} drawn" if drawn else "")

    def line(self, so_far: str = "", limit: int | None = LINE_LIMIT) -> str:
        """The verdict in one line: the verdict and the points first, then the failing case
        (with the diagnosis that shows on it) and its inputs. When the line would be longer
        than ``limit`` characters, the inputs give way to the call that prints them; nothing
        is cut."""
        q = self.question
        pts = f"{_fmt(self.points)}/{_fmt(q.points)} points" + (f" ({so_far})" if so_far else "")
        head = f"{q.id} {q.title}"
        note = f" Note: {_sentence(self.note)}" if self.note else ""
        if self.status == "passed":
            cases = f"all {self.n_cases} cases" if self.n_cases != 1 else "its one case"
            if self.statements:
                cases = f"with all {len(self.statements)} statements right"
            return f"{head}: passed {cases}, {pts}" + (
                f".{note}" if note else "")
        if self.status == "not attempted":
            return f"{head}: not attempted, {pts}"
        if self.status == "error":
            return f"{head}: {self.detail}, {pts}"
        text = f"{head}: failed, {pts}; {self._count()}."
        tail = ""
        if self.diagnosis is not None:
            tail += f" {mistake_heading(self.diagnosis)}: {_sentence(self.diagnosis.message)}"
        tail += note
        inputs = self.inputs
        if inputs and limit is not None and not inputs.startswith("To see") and \
                len(text) + len(self.detail) + len(tail) + len(inputs) + 2 > limit:
            inputs = _call_hint(inputs)
        detail = _sentence(self.detail) if self.detail else ""
        if limit is not None:
            # the failing case whole unless the line would pass twice the limit (the gradebook's
            # bound); then it is shortened after a word, never the diagnosis
            room = max(2 * limit - len(text) - len(tail) - len(inputs) - 2, 80)
            detail = _cut_at_word(detail, room)
        return (text + (f" {detail}" if detail else "") + tail +
                (f" {inputs}" if inputs else "")).rstrip()


    def block(self, so_far: str = "", hint: str = "") -> str:
        """What check() prints: a short block, not one long line. A passed, untouched or
        crashed answer keeps its one line (:meth:`line`); a failed one gets the verdict and
        the points, then the failing case's name, its inputs once (when its name does not
        state them), the expected and the actual value, the likely mistake and ``hint``, each
        on its own lines, wrapped between words (never inside a number). A true-or-false
        question gives the statements right and explains every wrong one."""
        if self.status != "failed":
            return self.line(so_far) + (f"\n{hint}" if hint else "")
        q = self.question
        pts = f"{_fmt(self.points)}/{_fmt(q.points)} points" + (f" ({so_far})" if so_far else "")
        lines = [f"{q.id} {q.title}: failed, {pts}", _wrap(_sentence(self._count()))]
        if self.statements:
            for statement, ok, answered, message in self.statements:
                if not ok:
                    lines.append(_wrap(f"Wrong: {statement} (you answered {answered}): "
                                       f"{_sentence(message)}", "  "))
        else:
            lines += self._failure_lines()
            if self.diagnosis is not None:
                lines.append(_wrap(f"{mistake_heading(self.diagnosis)}: "
                                   f"{_sentence(self.diagnosis.message)}"))
        if self.note:
            lines.append(_wrap(f"Note: {_sentence(self.note)}"))
        if hint:
            lines.append(_wrap(hint))
        return "\n".join(lines)

    def _failure_lines(self) -> list[str]:
        """The reported case: its name, its inputs (once), expected and got."""
        f = self.failure
        if not f:
            return [_wrap(_sentence(self.detail))] if self.detail else []
        lines = [_wrap(f"Failing case: {f['case']}")]
        inputs = self.full_inputs
        if inputs:
            lines.append(_wrap(f"Inputs: {inputs}" if len(inputs) <= BLOCK_INPUTS_LIMIT
                               else f"Inputs: {f['call']}" if f.get("call") else
                               f"Inputs: {inputs[:BLOCK_INPUTS_LIMIT]} ...", "  "))
        if "expected" in f:
            lines.append(_wrap(f"Expected: {f['expected']}", "  "))
            lines.append(_wrap(f"Got:      {f['got']}", "  "))
            if f.get("reason"):
                lines.append(_wrap(f"Where:    {f['reason']}", "  "))
        else:
            lines.append(_wrap(f"Got:      {f['what']}", "  "))
        return lines


def _wrap(text: str, indent: str = "") -> str:
    """``text`` as lines of at most :data:`BLOCK_WIDTH` characters (the first indented by two
    spaces, the rest by ``indent`` more), broken between words: a number is never cut."""
    return "\n".join(textwrap.wrap(text, BLOCK_WIDTH, initial_indent="  ",
                                   subsequent_indent="  " + indent + "  ",
                                   break_long_words=False, break_on_hyphens=False)) or "  "


def mistake_heading(diagnosis) -> str:
    """The words before a diagnosis: "Likely mistake", and for a relation found from the values
    (:mod:`~kernelcourse.grading.relations`) where it comes from."""
    if getattr(diagnosis, "found_by", "name") == "relation":
        return "Likely mistake (from how your values relate to the expected ones)"
    if getattr(diagnosis, "found_by", "name") == "raised":
        return "Likely mistake (from the error your function raised)"
    if getattr(diagnosis, "found_by", "name") == "mutant":
        return "Likely mistake (from the slips of the right answer that give your values)"
    return "Likely mistake"


def _cut_at_word(text: str, room: int) -> str:
    """``text`` whole when it fits in ``room`` characters, else cut after a word (never inside
    one) and ended with " ..."."""
    if len(text) <= room:
        return text
    cut = text.rfind(" ", 0, room - 4)
    return text[: cut if cut > room // 2 else room - 4].rstrip(" ,;:") + " ..."


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _call_hint(inputs: str) -> str:
    """The 'To see the inputs in full' sentence kept in an inputs text (after its inputs)."""
    marker = " To see them"
    return inputs[inputs.index(marker) + 1:] if marker in inputs else ""


def _fmt(x: float) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _describe_inputs(question: Question, case: Case) -> str:
    """A short description of a case: its label, else its inputs abridged."""
    if case.label:
        return case.label
    parts = [f"{name}={format_value(arg, limit=70, threshold=6)}"
             for name, arg in _named_arguments(question, case)]
    return ", ".join(parts) or "the question"


def _named_arguments(question: Question, case: Case) -> list[tuple[str, object]]:
    names = _parameter_names(question)
    named = [(names[i] if i < len(names) else f"arg{i}", arg) for i, arg in enumerate(case.args)]
    return named + list(case.kwargs.items())


def _written_inputs(question: Question, case: Case) -> str:
    """The inputs of a case written in full ('' when its label already states them all: a
    scalar or a statement)."""
    named = _named_arguments(question, case)
    if not named:
        return ""
    written = [(name, full_text(value)) for name, value in named]
    label = case.label.replace(" ", "")
    if all((value if isinstance(value, str) else text).replace(" ", "") in label
           for (_, value), (_, text) in zip(named, written)):
        return ""
    return ", ".join(f"{name}={text}" for name, text in written)


def _inputs_text(question: Question, case: Case, number: int, written: str | None = None) -> str:
    """The inputs of case ``number`` (1-based) in full, when short, and the call that prints
    them (a drawn case's from the latest check in this process; no seed is ever written: a
    student reads it); '' when the label already states them all. ``written``: the case's
    :func:`_written_inputs`, when the caller has it already (writing a large case's inputs
    in full is the costly part)."""
    inputs = _written_inputs(question, case) if written is None else written
    if not inputs:
        return ""
    call = (f"To see them: case_inputs({question.id!r}, {number}), from kernelcourse.grading"
            + ("." if case.fixed else ", after this check."))
    if len(inputs) > INPUTS_LIMIT:
        return call
    return f"Inputs: {inputs}. {call}"


def case_inputs(question_id: str, number: int, seed: int | None = None, show: bool = True):
    """The inputs of case ``number`` (1-based, as a verdict numbers them) of a question, as
    ``(args, kwargs)``, printed in full when ``show``. The fixed cases come first and are the
    same in every run; a drawn case is the one of the latest check of the question in this
    process (or, for an instructor, of the cases drawn with ``seed``)."""
    from ..questions import get_question

    question = get_question(question_id)
    last = _LAST_CASES.get(question.id) if seed is None else None
    cases = last if last is not None else question.make_cases(0 if seed is None else seed)
    if not 1 <= number <= len(cases):
        raise ValueError(f"{question_id} has cases 1 to {len(cases)}; got {number}")
    case = cases[number - 1]
    if not case.fixed and seed is None and last is None:
        raise ValueError(f"case {number} of {question_id} is drawn: run check({question_id!r}) "
                         f"first, then ask for its inputs")
    if show:
        kind = "fixed" if case.fixed else "drawn by the latest check"
        print(f"{question_id}, case {number} ({kind}): {case.label}")
        for name, value in _named_arguments(question, case):
            print(f"{name} = {full_text(value)}")
    return case.copied()


def _case_name(case: Case, number: int) -> str:
    kind = "fixed" if case.fixed else "drawn"
    return f"case {number} ({kind}" + (f", {case.label})" if case.label else ")")


def score(question: Question, cases: list[Case], outcomes: list[dict], uses=(),
          seed: int | None = None) -> Result:
    """Compare outcomes (from :func:`run_answer`, possibly in another process)
    with the reference, the properties and the diagnoses.

    ``uses``: the forbidden names the answer used (static and run-time
    detection, :mod:`kernelcourse.grading.model.shortcuts`); any makes it 0 points.
    ``seed``: unused (kept for callers; no verdict names a seed, a student reads it).
    The points are :func:`credit`'s: the share of the fixed cases passed.
    """
    n = len(cases)
    if uses:
        return Result(question, "error", 0, n, 0.0, _shortcut_reason(uses))
    if len(outcomes) != n:
        return Result(question, "error", 0, n, 0.0, f"the answer returned {len(outcomes)} "
                      f"results for {n} cases")
    if outcomes and outcomes[0].get("kind") == "not_implemented":
        return Result(question, "not attempted", 0, n)
    records, notes, passed, failures, parts = [], [], [], {}, {}
    record_case: list[int] = []
    names = _parameter_names(question)
    atol = max(question.atol, 0.0)
    for index, (case, out) in enumerate(zip(cases, outcomes)):
        kind = out.get("kind")
        ok = False
        if kind == "value":
            try:
                actual = transport.decode(out["value"])
            except Exception as exc:
                why = f"unreadable answer ({_short(exc)})"
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
                record_case.append(index)
                if broken:
                    why = broken
                elif ok:
                    why = ""  # a passed case needs no message
                elif question.compare_reference:
                    why = _expected_got(expected, actual, reason, atol)
                    parts[index] = _expected_got_parts(expected, actual, reason, atol)
                else:
                    why = f"got {format_value(actual, atol=atol)}: {reason}"
        elif kind == "error":
            why = f"raised {out.get('type', 'Exception')}: {out.get('message', '')}"
        elif kind == "not_implemented":
            why = f"raised NotImplementedError: {out.get('message', '')}"
        elif kind == "timeout":
            why = f"stopped: {out.get('message', 'time limit')} is over (an endless loop?)"
        elif kind == "skipped":
            why = "not run: the time limit was over"
        else:
            why = f"unknown outcome {kind!r}"
        passed.append(ok)
        if not ok:
            failures[index] = why
    fixed = [p for c, p in zip(cases, passed) if c.fixed]
    drawn = [p for c, p in zip(cases, passed) if not c.fixed]
    n_passed = sum(passed)
    points = credit(question.points, fixed, drawn)
    status = "passed" if n_passed == n else "failed"
    diagnosis, shown = None, None
    if n_passed < n:
        diagnosis, where = question.diagnose_where(records)
        if diagnosis is None and len(failures) == sum(not r[3] for r in records):
            # no named mistake: how the values relate to the expected ones on every failing
            # case (only when every failing case returned a value)
            diagnosis, where = relate(question, records)
        if diagnosis is None:
            # nor a relation: the reference's own slips whose values on the fixed cases the
            # answer gives (relations/mutants.py)
            diagnosis, where = match_mutant(question, cases, outcomes, records)
        shown = record_case[where] if where is not None else min(failures)
        if diagnosis is None:
            # every failing case raised: what the error's message says the mistake is
            diagnosis, at = explain_raised(question, cases, outcomes, sorted(failures))
            shown = at if at is not None else shown
    detail = inputs = full = ""
    failure: dict = {}
    if shown is not None:
        case = cases[shown]
        detail = f"On {_case_name(case, shown + 1)}: {failures[shown]}"
        full = _written_inputs(question, case)  # written once, for the line and the pages
        inputs = _inputs_text(question, case, shown + 1, full)
        failure = {"case": _case_name(case, shown + 1),
                   "call": f"case_inputs({question.id!r}, {shown + 1})",
                   **parts.get(shown, {"what": failures[shown]})}
    return Result(question, status, n_passed, n, points, detail, diagnosis, "; ".join(notes),
                  inputs, len(fixed), sum(fixed), failure,
                  _statements(question, cases, passed, records), full[:4000])


def _statements(question: Question, cases, passed, records) -> list:
    """For a question answered statement by statement (a choice whose reference keeps an
    ``answer_key`` dict): ``(statement, right, answered, message)`` per statement, right when
    every case of it passed; the message of a wrong one is its diagnosis's (the diagnosis
    whose mistake gives the answer on it), else the question's property."""
    key = getattr(question.reference, "answer_key", None)
    if not isinstance(key, dict):
        return []
    answers = {id(case): actual for case, actual, *_ in records}
    state: dict = {}  # statement -> [right, what was answered on its first failing case]
    for case, ok in zip(cases, passed):
        name = case.args[0] if case.args else None
        if not isinstance(name, str) or name not in key:
            continue
        entry = state.setdefault(name, [True, None])
        if not ok and entry[0]:
            entry[:] = [False, answers.get(id(case), "no answer")]
    out = []
    for name, (ok, answered) in state.items():
        message = ""
        if not ok:
            case = Case((name,))
            expected = question.expected(case)
            message = next((d.message for d in question.diagnoses
                            if d.agrees(answered, case, expected, question.rtol, question.atol)),
                           "")
            message = message or next((p.message for p in question.properties), "not right")
        out.append((f"statement {name!r}", ok, answered, message))
    return out


def _expected_got_parts(expected, actual, reason: str, atol: float) -> dict:
    """:func:`_expected_got` in parts, for check()'s block."""
    want, got = format_value(expected, atol=atol), format_value(actual, atol=atol)
    if want == got:
        want, got = full_text(expected), full_text(actual)
    return {"expected": want, "got": got, "reason": reason}


def _expected_got(expected, actual, reason: str, atol: float) -> str:
    """"expected X, got Y (reason)", the numbers rounded to the tolerance but never so far that
    two different values print alike."""
    want, got = format_value(expected, atol=atol), format_value(actual, atol=atol)
    if want == got:
        want, got = full_text(expected), full_text(actual)
    return f"expected {want}, got {got}" + (f" ({reason})" if reason else "")


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


def _loaded_state(homes) -> tuple:
    """The question modules loaded, and which of ``homes`` are."""
    return question_modules(), tuple(h for h in homes if h in sys.modules)


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
    _LAST_CASES[question.id] = cases
    limit = question.time_limit if seconds is None else seconds
    forbidden, uses = {}, set()
    for attempt in range(2 if detect_shortcuts else 0):
        # first the objects that exist now (one lecture's questions at a notebook's first
        # check, no estimator class not yet loaded): an answer that loads more, by a name in
        # its source or as it runs, is checked again with the whole bank and every forbidden
        # name loaded and covered
        first = attempt == 0
        homes = unloaded_homes(with_routes(question.forbidden)) if first else ()
        before = _loaded_state(homes)
        forbidden = question.shortcut_objects(loaded_only=first)
        uses = set(static_uses(answer_source(answer), forbidden))
        if first and _loaded_state(homes) != before:
            all_questions()
            continue
        with tripwires(forbidden, uses.add):
            outcomes = run_answer(answer, cases, limit)
        if not first or _loaded_state(homes) == before:
            break
        all_questions()
    if not detect_shortcuts:
        outcomes = run_answer(answer, cases, limit)
    return score(question, cases, outcomes, uses=sorted(uses), seed=seed)
