"""Questions that check themselves: the definition API and ``check``.

Every answer in the course is a **function** the student writes. A question
knows the package's reference implementation of that function and how to draw
fresh random inputs; a check calls the student's function on those inputs and
compares with the reference, the properties the lecture states, and the
mistakes students are known to make.

Defining a question (one module per lecture, ``grading/questions/lectureN.py``,
holding a module-level list ``QUESTIONS``; the registry finds new modules by
itself)::

    from kernelcourse.grading import Case, Diagnosis, Property, Question

    def _cases(rng):                      # fresh inputs, from a seeded Generator
        X = rng.normal(size=(4, 3))
        return [Case(args=(X, X[:2]), label="X of shape (4, 3), Z = X[:2]")]

    QUESTIONS = [Question(
        id="ex1.q2", title="all-subsets kernel", function="all_subsets_kernel",
        points=3, reference=all_subsets_kernel, cases=_cases,
        diagnoses=[Diagnosis(
            "sum instead of product",
            "you added the factors (1 + x_k z_k); the kernel multiplies them",
            mistake=lambda X, Z: (1 + X[:, None, :] * Z[None, :, :]).sum(-1))],
        properties=[Property("symmetric", lambda K, case: ..., "K should equal K.T")],
        hint="multiply (1 + x_k z_k) over the features k",
    )]

The parts:

``Question(id, title, function, points, reference, cases, ...)``
    ``id`` is ``<set>.<name>``: ``ex1.q3`` for exercise set 1, ``l1.cp2`` for a
    checkpoint in lecture 1's notebook; the set (before the dot) groups the
    points shown as "so far". ``function`` is the name the student's answer
    defines. ``reference(*case.args, **case.kwargs)`` gives the expected value.
    ``cases(rng)`` returns a list of :class:`Case` built from the
    ``numpy.random.Generator`` it is given. Points are split evenly over the
    cases (partial credit). ``rtol``/``atol`` set the comparison of numbers;
    ``time_limit`` (seconds) caps the time of all cases of one check together.
    ``hint`` is the message of the ``NotImplementedError`` stub that the
    student version of an exercise notebook holds. ``forbidden`` names the
    package functions and classes whose use would answer the question (dotted
    names such as ``"kernelcourse.features.all_subsets_map"``): an answer that
    uses one, or the grader's own reference answers, scores 0 with the reason
    (see :mod:`kernelcourse.grading.shortcuts`). With
    ``compare_reference=False`` only the properties decide (for answers that
    are right in many ways, such as a witness that a matrix is not PSD); the
    reference then only serves the messages.
``Case(args, kwargs, label)``
    One input. Arguments must be plain data (numbers, strings, bools, None,
    numpy arrays of bool/int/float, and lists, tuples, sets, dicts of them):
    the grading command sends them to a separate worker process as JSON. A
    random draw inside an answer therefore takes an integer ``seed``, and a
    kernel passed to an answer is passed by name or as its Gram matrix.
``Diagnosis(name, message, mistake, detect=None)``
    A known misconception. ``mistake`` has the reference's signature and
    computes what the misconception gives; when a failing answer matches it
    on the cases where it differs from the reference, ``message`` is shown
    ("Likely mistake: ..."). When several mistakes match some cases, the one
    agreeing with the answer on the most cases wins (see
    :meth:`Question.diagnose`), so two mistakes that coincide on one input,
    or give the same True/False there, are still told apart.
    ``detect(actual, case) -> bool`` replaces the match where many outputs
    reveal the same mistake (``mistake`` is still required: the tests use it).
``Property(name, predicate, message)``
    ``predicate(actual, case) -> bool``, a fact the lecture states (symmetry,
    PSD, an identity). A case passes when it matches the reference (if
    compared) and every property holds.

In a notebook, ``check("ex1.q2", all_subsets_kernel)`` prints one line and
returns None. Each call draws new inputs (the seed advances with every call,
so a fresh kernel repeats the same sequence). The line says "passed" with
the points, or "not attempted" for a stub that raises NotImplementedError,
or the first failing case: the inputs, the expected and the actual value
(abridged), the misconception when a diagnosis matches, and the points so far
in this session for the question's set.

``tests/test_grading_questions.py`` sweeps every registered question: its
reference scores full marks, a stub is "not attempted", each diagnosis fires
on its own ``mistake`` and none on the reference's answer, and the cases are
plain data that depend on the seed. :func:`evaluate` runs one check without
printing (``evaluate(question, function, seed)`` returns a :class:`Result`).

Answers are judged on plain data only: the value an answer returns goes
through :mod:`kernelcourse.grading.transport` before it is compared, both here
and in the grading command (which runs answers in a worker process and compares
in the parent), so both give the same verdict.
"""
from __future__ import annotations

import contextlib
import copy
import inspect
import re
import signal
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import transport
from .shortcuts import ReferenceUsed, reason as _shortcut_reason, static_uses, tripwires

__all__ = [
    "Case",
    "Diagnosis",
    "Property",
    "Question",
    "Result",
    "check",
    "evaluate",
    "run_answer",
    "score",
    "values_match",
    "format_value",
    "reset_session",
    "session_points",
]

_ID_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]+$")


# --------------------------------------------------------------------- definitions
@dataclass
class Case:
    """One set of inputs for a question: ``function(*args, **kwargs)``."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""

    def __post_init__(self):
        if not isinstance(self.args, tuple):
            self.args = tuple(self.args) if isinstance(self.args, list) else (self.args,)
        self.kwargs = dict(self.kwargs)

    def copied(self) -> tuple[tuple, dict]:
        """Deep copies of the arguments, so no call can change another's inputs."""
        return copy.deepcopy(self.args), copy.deepcopy(self.kwargs)


@dataclass
class Diagnosis:
    """A known mistake and the message that names it."""

    name: str
    message: str
    mistake: Callable
    detect: Callable | None = None

    def agrees(self, actual, case: Case, expected, rtol: float, atol: float) -> bool | None:
        """Whether ``actual`` is what this mistake gives on ``case``.

        None when the mistake cannot be told apart from the right answer on
        this case (it gives the expected value there).
        """
        try:
            if self.detect is not None:
                return bool(self.detect(actual, case))
            args, kwargs = case.copied()
            wrong = transport.roundtrip(self.mistake(*args, **kwargs))
            if values_match(wrong, expected, rtol, atol)[0]:
                return None
            return values_match(actual, wrong, rtol, atol)[0]
        except Exception:
            return False


@dataclass
class Property:
    """A fact every right answer satisfies: ``predicate(actual, case) -> bool``."""

    name: str
    predicate: Callable
    message: str

    def holds(self, actual, case: Case) -> bool:
        try:
            return bool(self.predicate(actual, case))
        except Exception:
            return False


@dataclass
class Question:
    """A graded question whose answer is the function named ``function``."""

    id: str
    title: str
    function: str
    points: float
    reference: Callable
    cases: Callable
    diagnoses: list = field(default_factory=list)
    properties: list = field(default_factory=list)
    hint: str = ""
    rtol: float = 1e-7
    atol: float = 1e-9
    time_limit: float = 10.0
    compare_reference: bool = True
    forbidden: tuple = ()

    def __post_init__(self):
        if not isinstance(self.id, str) or not _ID_PATTERN.match(self.id):
            raise ValueError(
                f"question id must look like 'ex1.q3' or 'l1.cp2' (set, dot, name); got {self.id!r}")
        if not (isinstance(self.function, str) and self.function.isidentifier()):
            raise ValueError(f"{self.id}: function must be a Python name; got {self.function!r}")
        if not (isinstance(self.points, (int, float)) and self.points > 0):
            raise ValueError(f"{self.id}: points must be a positive number; got {self.points!r}")
        if not callable(self.reference) or not callable(self.cases):
            raise TypeError(f"{self.id}: reference and cases must be callables")
        if not self.hint:
            self.hint = f"write {self.function} (question {self.id})"
        self.forbidden = tuple(self.forbidden)
        bad = [n for n in self.forbidden if not (isinstance(n, str) and n.startswith("kernelcourse."))]
        if bad:
            raise ValueError(f"{self.id}: forbidden names must be dotted names in the package, "
                             f"such as 'kernelcourse.features.all_subsets_map'; got {bad!r}")
        self.diagnoses = list(self.diagnoses)
        self.properties = list(self.properties)

    @property
    def set_name(self) -> str:
        """The exercise set or notebook this question belongs to (``ex1``, ``l1``)."""
        return self.id.split(".", 1)[0]

    def shortcut_objects(self) -> dict:
        """What an answer to this question may not use: its forbidden names and the grader's
        own answers, as ``{id(object): (name, object)}``."""
        from .shortcuts import forbidden_objects, grader_objects

        return {**forbidden_objects(self.forbidden), **grader_objects()}

    def make_cases(self, seed: int) -> list[Case]:
        """The cases drawn from ``numpy.random.default_rng(seed)``."""
        raw = self.cases(np.random.default_rng(seed))
        cases = [c if isinstance(c, Case) else Case(args=c) for c in raw]
        if not cases:
            raise ValueError(f"{self.id}: cases() returned no case")
        return cases

    def expected(self, case: Case):
        """The reference's value on ``case``, as plain data."""
        args, kwargs = case.copied()
        return transport.roundtrip(self.reference(*args, **kwargs))

    def judge(self, actual, expected, case: Case) -> tuple[bool, str]:
        """Whether ``actual`` is right on ``case``, and why not."""
        if self.compare_reference:
            ok, reason = values_match(actual, expected, self.rtol, self.atol)
            if not ok:
                return False, reason
        for prop in self.properties:
            if not prop.holds(actual, case):
                return False, prop.message
        return True, ""

    def diagnose(self, records: list) -> Diagnosis | None:
        """The diagnosis that best explains an answer's values.

        ``records`` holds ``(case, actual, expected, passed)`` for every case
        that returned a value. A diagnosis is a candidate when the answer
        agrees with its mistake on at least one failing case. Each candidate
        scores the cases where the answer agrees with the mistake minus those
        where it does not (counting only cases where the mistake differs from
        the right answer; ``detect`` diagnoses only on failing cases); the
        highest positive score wins, the first listed on a tie. So mistakes that
        coincide on some inputs (or give the same True/False) are told apart.
        """
        best, best_score = None, None
        for diagnosis in self.diagnoses:
            score_, on_failure = 0, False
            for case, actual, expected, passed in records:
                if passed and diagnosis.detect is not None:
                    continue
                agree = diagnosis.agrees(actual, case, expected, self.rtol, self.atol)
                if agree is None:
                    continue
                score_ += 1 if agree else -1
                on_failure = on_failure or (agree and not passed)
            if on_failure and score_ > 0 and (best_score is None or score_ > best_score):
                best, best_score = diagnosis, score_
        return best


# --------------------------------------------------------------------- comparing
def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def values_match(actual, expected, rtol: float = 1e-7, atol: float = 1e-9) -> tuple[bool, str]:
    """Compare an answer with the expected value; return ``(ok, reason)``.

    Numbers and arrays are compared with ``numpy.allclose`` (integers and
    booleans exactly) after checking the shape; tuples and lists item by item;
    sets, strings and None exactly.
    """
    if expected is None or isinstance(expected, str):
        ok = actual == expected if isinstance(actual, type(expected)) else False
        return ok, "" if ok else f"expected {format_value(expected)}"
    if isinstance(expected, (bool, np.bool_)):
        if not isinstance(actual, (bool, np.bool_)):
            return False, f"expected True or False, got a {type(actual).__name__}"
        return bool(actual) == bool(expected), ""
    if isinstance(expected, (set, frozenset)):
        if not isinstance(actual, (set, frozenset)):
            return False, f"expected a set, got a {type(actual).__name__}"
        return set(actual) == set(expected), ""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return False, "expected a dict with keys " + format_value(sorted(map(str, expected)))
        for key in expected:
            ok, reason = values_match(actual[key], expected[key], rtol, atol)
            if not ok:
                return False, f"at key {key!r}: {reason}".rstrip(": ")
        return True, ""
    if isinstance(expected, (tuple, list)) and not _numeric_sequence(expected):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            return False, f"expected a sequence of {len(expected)} items"
        for i, (a, e) in enumerate(zip(actual, expected)):
            ok, reason = values_match(a, e, rtol, atol)
            if not ok:
                return False, f"item {i} differs" + (f" ({reason})" if reason else "")
        return True, ""
    return _arrays_match(actual, expected, rtol, atol)


def _numeric_sequence(seq) -> bool:
    try:
        arr = np.asarray(seq)
    except Exception:
        return False
    return arr.dtype.kind in "biuf"


def _arrays_match(actual, expected, rtol, atol) -> tuple[bool, str]:
    exp = np.asarray(expected)
    if isinstance(actual, (str, bytes, dict, set, frozenset)) or actual is None:
        return False, f"expected a number or an array, got a {type(actual).__name__}"
    try:
        act = np.asarray(actual, dtype=float)
    except (TypeError, ValueError):
        return False, f"expected numbers, got a {type(actual).__name__} that is not numeric"
    if act.shape != exp.shape:
        return False, f"shape {act.shape} where {exp.shape} was expected"
    if exp.dtype.kind in "biu":
        same = act == exp.astype(float)
    else:
        same = np.isclose(act, exp.astype(float), rtol=rtol, atol=atol)
    if np.all(same):
        return True, ""
    if exp.ndim == 0:
        return False, ""
    bad = tuple(int(i) for i in np.argwhere(~same)[0])
    n_bad = int(np.sum(~same))
    where = bad[0] if len(bad) == 1 else bad
    return False, f"{n_bad} of {exp.size} entries differ, first at index {where}"


def format_value(value, limit: int = 160, threshold: int = 12) -> str:
    """A short one-line text for a value (arrays abridged, floats rounded)."""
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=4, threshold=threshold, edgeitems=2, suppress=True,
                             linewidth=10**6, floatmode="maxprec", legacy=False):
            text = np.array2string(value, separator=", ")
        text = re.sub(r"\s+", " ", text)
        text = re.sub(r"\s+([,\]])", r"\1", re.sub(r"\[\s+", "[", text))
    elif isinstance(value, (bool, np.bool_)):
        text = str(bool(value))
    elif isinstance(value, (float, np.floating)):
        text = f"{float(value):.6g}"
    elif isinstance(value, (int, np.integer)):
        text = str(int(value))
    elif isinstance(value, tuple):
        text = "(" + ", ".join(format_value(v, limit, threshold) for v in value) + ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, list):
        if _numeric_sequence(value) and np.asarray(value).size > threshold:
            text = "list " + format_value(np.asarray(value), limit, threshold)
        else:
            text = "[" + ", ".join(format_value(v, limit, threshold) for v in value[:threshold]) + \
                (", ..." if len(value) > threshold else "") + "]"
    else:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


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
    return f"{case.label} ({inputs})" if case.label else inputs


# --------------------------------------------------------------------- running
class QuestionTimeout(BaseException):
    """Raised inside an answer when its time limit is over (not an Exception,
    so ``except Exception`` in student code does not swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Interrupt the code inside after ``seconds`` (main thread on Unix only)."""
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _alarm(signum, frame):
        raise QuestionTimeout(f"time limit of {seconds:g} s")

    outer_left = signal.getitimer(signal.ITIMER_REAL)[0]  # a limit around this one
    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds if not outer_left else min(seconds, outer_left))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL,
                             max(outer_left - (time.monotonic() - start), 1e-3))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_answer(func, cases: list[Case], seconds: float | None) -> list[dict]:
    """Call ``func`` on each case; return one plain-data outcome per case.

    An outcome is ``{"kind": "value", "value": <encoded>}``, or ``"error"``
    (with ``type`` and ``message``), ``"not_implemented"``, ``"timeout"`` or
    ``"skipped"`` (cases after a timeout or a first-case stub). Runs under
    :func:`time_limit` for all cases together.
    """
    outcomes: list[dict] = []
    try:
        with time_limit(seconds):
            for i, case in enumerate(cases):
                args, kwargs = case.copied()
                try:
                    value = func(*args, **kwargs)
                except NotImplementedError as exc:
                    outcomes.append({"kind": "not_implemented", "message": _short(exc)})
                    if i == 0:
                        break
                    continue
                except QuestionTimeout:
                    raise
                except (Exception, ReferenceUsed) as exc:
                    outcomes.append({"kind": "error", "type": type(exc).__name__,
                                     "message": _short(exc)})
                    continue
                try:
                    outcomes.append({"kind": "value", "value": transport.encode(value)})
                except transport.UnsupportedValue as exc:
                    outcomes.append({"kind": "error", "type": "UnsupportedValue",
                                     "message": _short(exc)})
    except QuestionTimeout:
        outcomes.append({"kind": "timeout", "message": f"time limit of {seconds:g} s"})
    while len(outcomes) < len(cases):
        outcomes.append({"kind": "skipped"})
    return outcomes


# --------------------------------------------------------------------- scoring
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

    def line(self, so_far: str = "") -> str:
        q = self.question
        pts = f"{_fmt(self.points)}/{_fmt(q.points)} points" + (f" ({so_far})" if so_far else "")
        head = f"{q.id} {q.title}"
        if self.status == "passed":
            return f"{head}: passed all {self.n_cases} cases, {pts}"
        if self.status == "not attempted":
            return f"{head}: not attempted, {pts}"
        if self.status == "error":
            return f"{head}: {self.detail}, {pts}"
        text = f"{head}: {self.n_passed}/{self.n_cases} cases passed, {pts}; {self.detail}"
        if self.diagnosis is not None:
            text += f". Likely mistake: {self.diagnosis.message}"
        return text


def _fmt(x: float) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


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
    n_passed, first_fail, records = 0, "", []
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
                ok, reason = question.judge(actual, expected, case)
                records.append((case, actual, expected, ok))
                if ok:
                    n_passed += 1
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
    return Result(question, status, n_passed, n, points, first_fail, diagnosis)


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


# --------------------------------------------------------------------- the notebook call
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

