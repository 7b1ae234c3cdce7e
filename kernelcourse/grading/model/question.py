"""The question model: a :class:`Question`, the :class:`Case` inputs it draws, the
:class:`Property` facts every right answer satisfies and the :class:`Diagnosis` of a known
mistake.

How to define a question, and what each part means, is told in :mod:`kernelcourse.grading.model`.
"""
from __future__ import annotations

import copy
import inspect
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import transport
from .compare import conform_shape, values_match
from .probes import Constraint

__all__ = ["Case", "Constraint", "Diagnosis", "KINDS", "Property", "Question", "choice_diagnoses",
           "choice_parts", "fixed_draw", "inputs_unchanged", "modified_input"]

#: The kinds of question, and what each asks of the student.
KINDS = {
    "formula": "implement a formula that the question prints",
    "derive": "derive, then implement: the question names the quantity and the lecture section",
    "predict": "predict a number, within a stated tolerance",
    "witness": "find a witness, graded by its property",
    "fix": "fix the bug in a given function",
    "parameter": "choose a parameter that meets a stated target",
    "choice": "choose and explain: multiple choice or true/false",
}

_ID_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]+$")


@dataclass
class Case:
    """One set of inputs for a question: ``function(*args, **kwargs)``."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    #: True for a case of the question's fixed set (:attr:`Question.fixed_cases`): the same in
    #: every run, chosen to expose a named mistake or an edge case; False for a drawn case
    fixed: bool = False

    def __post_init__(self):
        if not isinstance(self.args, tuple):
            self.args = tuple(self.args) if isinstance(self.args, list) else (self.args,)
        self.kwargs = dict(self.kwargs)

    def copied(self) -> tuple[tuple, dict]:
        """Deep copies of the arguments, so no call can change another's inputs."""
        return copy.deepcopy(self.args), copy.deepcopy(self.kwargs)


@dataclass
class Diagnosis:
    """A known mistake and the message that names it.

    ``detect(actual, case) -> bool`` replaces the comparison with ``mistake``'s value;
    ``behaviour(usage, case) -> bool`` diagnoses from how the answer used its inputs
    (``usage``: see :class:`Constraint`), e.g. "changed u in place" or "formed the whole
    matrix at once". ``hint``: what check() shows, in place of the question's next hint
    tier, when this mistake is diagnosed (a nudge towards the fix, never a line of the
    solution; empty: the tiers as usual).
    """

    name: str
    message: str
    mistake: Callable
    detect: Callable | None = None
    behaviour: Callable | None = None
    hint: str = ""
    #: how the verdict found it: "name" (a mistake the question names) or "relation" (how the
    #: answer's values relate to the expected ones, :mod:`~kernelcourse.grading.relations`)
    found_by = "name"

    def agrees(self, actual, case: Case, expected, rtol: float, atol: float,
               usage: dict | None = None) -> bool | None:
        """Whether ``actual`` is what this mistake gives on ``case``.

        None when the mistake cannot be told apart from the right answer on
        this case (it gives the expected value there).
        """
        try:
            if self.behaviour is not None:
                return bool(self.behaviour(usage or {}, case))
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


def _modified(usage: dict, names=()) -> list:
    found = list(usage.get("modified_names") or usage.get("modified") or [])
    return [n for n in found if not names or n in names]


def inputs_unchanged(*names: str) -> Constraint:
    """The constraint "the answer leaves its arguments (or the ones named) unchanged"."""
    def message(usage, case):
        changed = ", ".join(_modified(usage, names))
        return (f"the answer changed its argument {changed} in place; the question asks to leave "
                f"it unchanged (work on a copy, e.g. np.array(...) or .copy())")
    return Constraint("inputs unchanged", lambda usage, case: not _modified(usage, names), message)


def choice_diagnoses(messages: dict) -> list:
    """For a choice question (a function of no argument returning a letter): one diagnosis per
    wrong option, ``{"a": "the misconception behind a", ...}``; its mistake returns the letter."""
    return [Diagnosis(f"option {letter}", message, (lambda letter=letter: lambda: letter)())
            for letter, message in messages.items()]


def choice_parts(right, wrong: dict, label: Callable | None = None,
                 argument: str = "statement") -> dict:
    """The reference, cases and diagnoses of a choice question, as keywords of :class:`Question`:
    ``Question(id=..., kind="choice", ..., **choice_parts(right, wrong))``. Three forms:

    * one choice, a function of no argument returning a letter: ``right`` is the letter
      (``"c"``) and ``wrong`` maps each wrong letter to the misconception behind it (the
      diagnoses of :func:`choice_diagnoses`); one case, labelled with the letters; the answer is
      compared with the letter as it is.
    * true or false, a function of a statement's name: ``right`` maps each name to True or
      False and ``wrong`` maps a name to the message for getting that statement wrong, or to
      ``(diagnosis name, message)`` (the name is ``"<statement>: true"`` or ``": false"`` when
      not given); the answer is compared with the truth.
    * multiple choice per statement, a function of a statement's name returning a letter:
      ``right`` maps each name to its letter and ``wrong`` maps ``(name, wrong letter)`` to
      ``(diagnosis name, message)``; the letter is read without case or surrounding blanks
      (the property "option"), and a diagnosis fires on its letter for its statement.

    Every case of a choice is fixed (:attr:`Case.fixed`): the verdict never depends on the seed.
    With statements, every statement is one case, in an order drawn from the rng, labelled
    ``label(name)`` (by default ``"statement 'name'"``); the reference's one parameter is called
    ``argument`` (the feedback names the input so: ``statement='sum'``); a diagnosis's mistake
    answers every statement right but its own. The reference keeps the answers as its
    ``answer_key`` (hashed with the question's definition, :func:`~.history.question_hash`).
    """
    if isinstance(right, str):
        letters = sorted({right, *wrong})

        def reference():
            return right
        reference.answer_key = right
        return dict(reference=reference, cases=lambda rng: [
            Case((), label=f"the options {', '.join(letters)}", fixed=True)],
            diagnoses=choice_diagnoses(wrong),
            compare_reference=True, properties=[])
    keys = list(right)
    label = label or (lambda key: f"statement {key!r}")

    def reference(statement):
        return right[statement]
    reference.__signature__ = inspect.Signature(
        [inspect.Parameter(argument, inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    reference.answer_key = right

    def cases(rng):
        return [Case((keys[i],), label=label(keys[i]), fixed=True)
                for i in rng.permutation(len(keys))]

    def all_right_but(statement, answer):
        return lambda name: answer if name == statement else right[name]

    if all(isinstance(value, bool) for value in right.values()):
        diagnoses = []
        for key, message in wrong.items():
            name, message = message if isinstance(message, tuple) else (
                f"{key}: {'true' if right[key] else 'false'}", message)
            diagnoses.append(Diagnosis(name, message, all_right_but(key, not right[key])))
        return dict(reference=reference, cases=cases, diagnoses=diagnoses,
                    compare_reference=True, properties=[])
    letters = sorted({*right.values(), *(option for _, option in wrong)})
    options = ", ".join(f"'{letter}'" for letter in letters[:-1]) + f" or '{letters[-1]}'"

    def detect(statement, option):
        return lambda answer, case: case.args[0] == statement and _letter(answer) == option

    return dict(
        reference=reference, cases=cases, compare_reference=False,
        properties=[Property("option", lambda answer, case: _letter(answer) == right[case.args[0]],
                             f"not the right option for this statement (answer {options})")],
        diagnoses=[Diagnosis(name, message, all_right_but(statement, option),
                             detect=detect(statement, option))
                   for (statement, option), (name, message) in wrong.items()])


def _letter(answer):
    """A letter answered, without case or surrounding blanks (None for what is no string)."""
    return answer.strip().lower() if isinstance(answer, str) else None


def fixed_draw(cases: Callable, seed: int, extra: Callable | None = None) -> Callable:
    """For ``Question(fixed_cases=...)``: the cases ``cases(rng)`` draws from the constant
    ``seed`` (the same in every run), then those of ``extra()`` (the edge cases written out),
    each label prefixed by nothing: the verdict marks them fixed."""
    def fixed():
        return list(cases(np.random.default_rng(seed))) + list(extra() if extra else [])
    fixed.__name__ = f"fixed_draw_{getattr(cases, '__name__', 'cases')}_{seed}"
    return fixed


def modified_input(*names: str) -> Callable:
    """For ``Diagnosis(behaviour=...)``: the answer changed an argument (or a named one)."""
    return lambda usage, case: bool(_modified(usage, names))


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
    kind: str = "formula"
    section: str = ""
    hints: tuple = ()
    constraints: list = field(default_factory=list)
    #: ``fixed_cases() -> list[Case]``: the cases graded in every run, whatever the seed, before
    #: the drawn ones; each exposes a mistake the question names or an edge case where wrong
    #: answers hide (a rounding boundary, opposite directions, enough points for a PSD test)
    fixed_cases: Callable | None = None

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
        if self.fixed_cases is not None and not callable(self.fixed_cases):
            raise TypeError(f"{self.id}: fixed_cases must be a callable of no argument; "
                            f"got {type(self.fixed_cases).__name__}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        self.hints = tuple(self.hints)
        if not self.hint:
            self.hint = self.hints[0] if self.hints else f"write {self.function} (question {self.id})"
        self.forbidden = tuple(self.forbidden)
        bad = [n for n in self.forbidden if not (isinstance(n, str) and n.startswith("kernelcourse."))]
        if bad:
            raise ValueError(f"{self.id}: forbidden names must be dotted names in the package, "
                             f"such as 'kernelcourse.features.all_subsets_map'; got {bad!r}")
        self.diagnoses = list(self.diagnoses)
        self.properties = list(self.properties)
        self.constraints = list(self.constraints)

    @property
    def set_name(self) -> str:
        """The exercise set or notebook this question belongs to (``ex1``, ``l1``)."""
        return self.id.split(".", 1)[0]

    def shortcut_objects(self, loaded_only: bool = False) -> dict:
        """What an answer to this question may not use: its forbidden names and the grader's
        own answers, as ``{id(object): (name, object)}`` (``loaded_only``: those that exist
        in this process now, loading nothing)."""
        from .shortcuts import forbidden_objects, grader_objects

        return {**forbidden_objects(self.forbidden, loaded_only), **grader_objects()}

    def make_fixed_cases(self) -> list[Case]:
        """The question's fixed cases (the same in every run), each marked ``fixed``."""
        raw = self.fixed_cases() if self.fixed_cases is not None else []
        cases = [c if isinstance(c, Case) else Case(args=c) for c in raw]
        for case in cases:
            case.fixed = True
        return cases

    def make_cases(self, seed: int) -> list[Case]:
        """The fixed cases, then the cases drawn from ``numpy.random.default_rng(seed)``."""
        raw = self.cases(np.random.default_rng(seed))
        cases = self.make_fixed_cases() + [c if isinstance(c, Case) else Case(args=c) for c in raw]
        if not cases:
            raise ValueError(f"{self.id}: cases() returned no case")
        return cases

    def expected(self, case: Case):
        """The reference's value on ``case``, as plain data."""
        args, kwargs = case.copied()
        return transport.roundtrip(self.reference(*args, **kwargs))

    def conform(self, actual, expected):
        """The shape policy (:func:`~kernelcourse.grading.model.compare.conform_shape`):
        ``(actual, note)``, an (n, 1) answer where (n,) is asked taken as (n,), with a note."""
        return conform_shape(actual, expected)

    def obeys(self, usage: dict, case: Case) -> tuple[bool, str]:
        """Whether the call kept the question's constraints, and which it broke."""
        for constraint in self.constraints:
            if not constraint.holds(usage, case):
                return False, constraint.explain(usage, case)
        return True, ""

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
        """The diagnosis that best explains an answer's values (see :meth:`diagnose_where`)."""
        return self.diagnose_where(records)[0]

    def diagnose_where(self, records: list) -> tuple[Diagnosis | None, int | None]:
        """The diagnosis that best explains an answer's values, and the index in ``records`` of
        the failing case where its mistake shows (the first such, so a fixed case when one
        shows it): the verdict reports the diagnosis beside that case, never beside another
        case's failure.

        ``records`` holds ``(case, actual, expected, passed)`` (and, optionally, the call's
        ``usage`` fifth) for every case that returned a value. A diagnosis is a candidate when
        the answer agrees with its mistake on at least one failing case. Each candidate scores
        the cases where the answer agrees with the mistake minus those where it does not
        (counting only cases where the mistake differs from the right answer; ``detect`` and
        ``behaviour`` diagnoses only on failing cases); the highest positive score wins, the
        first listed on a tie. So mistakes that coincide on some inputs (or give the same
        True/False) are told apart.
        """
        best, best_score, best_where = None, None, None
        for diagnosis in self.diagnoses:
            score_, where = 0, None
            for index, (case, actual, expected, passed, *rest) in enumerate(records):
                if passed and (diagnosis.detect is not None or diagnosis.behaviour is not None):
                    continue
                usage = rest[0] if rest else {}
                agree = diagnosis.agrees(actual, case, expected, self.rtol, self.atol, usage)
                if agree is None:
                    continue
                score_ += 1 if agree else -1
                if agree and not passed and where is None:
                    where = index
            if where is not None and score_ > 0 and (best_score is None or score_ > best_score):
                best, best_score, best_where = diagnosis, score_, where
        return best, best_where
