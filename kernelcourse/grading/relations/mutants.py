"""Diagnosing a mistake by the reference's own slips: when no named diagnosis and no relation
of values explains a failing answer, its values on the fixed cases are compared with those of
every mutant of the question's reference (the audit's mutants, :mod:`kernelcourse.grading.
audit`, kept with their values in the question's catalogue, :mod:`.catalogue`).

A mutant *matches* when, on every fixed case, the answer gives the mutant's value (by the
question's own comparison, its ``rtol`` and ``atol``) or raises where the mutant raises (the
same kind of error), and on at least one failing fixed case by a value (an error alone says
too little). The answer is then told the change in plain words (:mod:`.mutant_words`), "your
answer behaves as if a `<` stands where `<=` is due in one comparison", only when every
matching mutant is that change; when they differ, the words their kind shares ("one
comparison includes or excludes its bound the other way") or their family ("something is off
by one"), and when even those differ, nothing (a wrong diagnosis is worse than none). The verdict carries a :class:`MutantMatch`,
``found_by == "mutant"``; it never changes the points.

Nothing here runs a mutant or the answer: the answer's values are the grader's already, the
mutants' are read from the catalogue.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import ast
import copy
import functools
import inspect
import sys

from ..audit.engine import (Budget, Target, _unwrap, compile_mutant, function_tree,
                            run_case)
from ..model.compare import values_match
from ..model.question import Diagnosis
from . import catalogue as _catalogue
from .mutant_words import PREFIX, mutation_sites

__all__ = ["MutantMatch", "leaving_out", "match_mutant", "matching_mutants"]

_RAISED = "$raised"
_STOPPED = {"stopped", "timeout", "Budget", "RecursionError"}
#: the digests of mutants left out of every match (:func:`leaving_out`)
_LEFT_OUT: set = set()


#: the words' levels, most specific first, and their column in a catalogue's mutant
LEVELS = (("change", 5), ("kind", 6), ("family", 7))


@dataclass
class MutantMatch(Diagnosis):
    """An answer whose values on the fixed cases are those of the reference with one slip:
    ``key`` is ``("mutant", level, words)``, ``level`` "change" (every matching mutant is that
    change), "kind" (they share only the kind) or "family" (only a family of kinds: off by
    one); ``mutants`` the ``(function, number, operator)`` of each match."""

    mistake: object = None
    key: tuple = ()
    mutants: tuple = ()
    found_by = "mutant"


@contextlib.contextmanager
def leaving_out(digests):
    """Match no mutant whose digest (:func:`.catalogue.digest`) is in ``digests`` inside the
    block: how ``tools/diagnosis_coverage.py`` asks whether a mutant's mistake is named by the
    *other* mutants (leave one out)."""
    old = set(_LEFT_OUT)
    _LEFT_OUT.clear()
    _LEFT_OUT.update(digests)
    try:
        yield
    finally:
        _LEFT_OUT.clear()
        _LEFT_OUT.update(old)


def _answer_row(cases, outcomes, records, fixed):
    """Per fixed case: ``("value", actual, expected, passed, record index)`` or
    ``("raised", name)``; None when a case was not run."""
    by_case = {id(r[0]): (i, r) for i, r in enumerate(records)}
    row = []
    for index in fixed:
        out = outcomes[index]
        kind = out.get("kind")
        if kind == "value" and id(cases[index]) in by_case:
            i, (case, actual, expected, passed, *_) = by_case[id(cases[index])]
            row.append(("value", actual, expected, passed, i))
        elif kind == "error":
            row.append(("raised", out.get("type", "Exception")))
        elif kind == "timeout":
            row.append(("raised", "stopped"))
        else:
            return None
    return row


def _same(entry, value, rtol, atol) -> bool | None:
    """True when the answer's entry is the mutant's ``value`` (None: they agree only in
    raising)."""
    mutant_raised = isinstance(value, tuple) and len(value) == 2 and value[0] == _RAISED
    if entry[0] == "raised":
        if not mutant_raised:
            return False
        a, b = entry[1], value[1]
        return None if a == b or (a in _STOPPED and b in _STOPPED) else False
    if mutant_raised:
        return False
    try:
        return bool(values_match(entry[1], value, rtol, atol)[0])
    except Exception:  # noqa: BLE001 - values the comparison cannot take
        return False


def matching_mutants(question, cases, outcomes, records) -> tuple[list, int | None]:
    """``(mutants, where)``: the catalogue's mutants (``[function, number, operator, digest,
    row, specific, general, coarse]``) whose values the answer gives on every fixed case (see the
    module's docstring), and the index in ``records`` of the first failing fixed case matched
    by a value; ``([], None)`` when none, or when the catalogue is missing or out of date."""
    if not question.compare_reference:
        return [], None
    made = _catalogue.load(question.id)
    fixed = [i for i, c in enumerate(cases) if c.fixed]
    if made is None or len(fixed) != made["fixed"] or not fixed:
        return [], None
    row = _answer_row(cases, outcomes, records, fixed)
    if row is None:
        return [], None
    rtol, atol = question.rtol, question.atol
    for entry, reference in zip(row, made["reference"]):
        if entry[0] == "value" and _same(("value", entry[2]), reference, rtol, atol) is not True:
            return [], None     # the catalogue was made from other code or cases
    failing = [k for k, e in enumerate(row) if e[0] == "raised" or not e[3]]
    if not failing:
        return [], None         # every fixed case passed: nothing a fixed case can tell
    order = failing + [k for k in range(len(row)) if k not in failing]
    matched_rows, where = {}, None
    for number, values in enumerate(made["rows"]):
        by_value = None
        for k in order:
            same = _same(row[k], values[k], rtol, atol)
            if same is False:
                break
            if same and k in failing and by_value is None:
                by_value = k
        else:
            if by_value is not None:
                matched_rows[number] = row[by_value][4]
    mutants = [m for m in made["mutants"] if m[4] in matched_rows and m[3] not in _LEFT_OUT]
    mutants = _confirmed(question, cases, outcomes, records, mutants)
    if not mutants:
        return [], None
    where = min(matched_rows[m[4]] for m in mutants)
    return mutants, where


def match_mutant(question, cases, outcomes, records) -> tuple[MutantMatch | None, int | None]:
    """The diagnosis of an answer whose values are those of the reference's own slips, and the
    index in ``records`` of the failing case to show beside it; ``(None, None)`` when no
    mutant matches, or the matches share no words (see the module's docstring)."""
    try:
        mutants, where = matching_mutants(question, cases, outcomes, records)
    except Exception:  # noqa: BLE001 - odd values or a damaged catalogue: no words, no crash
        return None, None
    if not mutants:
        return None, None
    for level, column in LEVELS:
        words = {m[column] for m in mutants}
        if len(words) == 1 and next(iter(words)):
            text = next(iter(words))
            return MutantMatch(f"slip: {text}", PREFIX + text, key=("mutant", level, text),
                               mutants=tuple((m[0], m[1], m[2]) for m in mutants)), where
    return None, None


# --------------------------------------------------------------- the drawn cases confirm it

#: the ticks a mutant may take on one drawn case (the audit's counter: no clock)
DRAWN_TICKS = 200_000
#: the drawn cases a mutant is run on (the answer's failing ones first)
DRAWN_CASES = 4


def _confirmed(question, cases, outcomes, records, mutants) -> list:
    """The mutants of ``mutants`` that also give the answer's values on its drawn cases: each
    is run there (the reference's own code, in this process, under the audit's tick budget
    and memory cap; never the answer), so a mutant that meets the answer only on the fixed
    cases by chance names nothing. Textually identical mutants are run once; at most
    :data:`DRAWN_CASES` drawn cases, the failing ones first (each costs a call of the
    reference)."""
    by_case = {id(r[0]): r for r in records}
    drawn = [i for i, c in enumerate(cases) if not c.fixed]
    # the failing drawn cases first, then the passing ones: at most DRAWN_CASES of them
    drawn = sorted(drawn, key=lambda i: bool(by_case.get(id(cases[i]), (0, 0, 0, False))[3]))
    drawn = drawn[:DRAWN_CASES]
    if not drawn or not mutants:
        return mutants
    verdicts: dict = {}
    out = []
    for mutant in mutants:
        if mutant[3] not in verdicts:
            verdicts[mutant[3]] = _agrees_on(question, mutant, [
                (cases[i], outcomes[i], by_case.get(id(cases[i]))) for i in drawn])
        if verdicts[mutant[3]]:
            out.append(mutant)
    return out


def _agrees_on(question, mutant, drawn) -> bool:
    made = _compiled(question.id, inspect.unwrap(question.reference), mutant[0], mutant[1])
    if made is None:
        return False
    call, function, compiled = made
    for case, outcome, record in drawn:
        try:
            value = run_case(call, case, function, compiled, DRAWN_TICKS)
        except (Exception, Budget, RecursionError):  # noqa: BLE001
            if outcome.get("kind") == "value":
                return False
            continue
        if outcome.get("kind") != "value" or record is None:
            return False
        actual, expected = record[1], record[2]
        try:
            value, _ = question.conform(value, expected)
            if not values_match(actual, value, question.rtol, question.atol)[0]:
                return False
        except Exception:  # noqa: BLE001
            return False
    return True


@functools.lru_cache(maxsize=256)
def _compiled(question_id, call, short, number):
    """``(call, function, compiled)``: mutant ``number`` of the function ``short`` (that
    ``call``, the question's reference, reaches), compiled to be patched in; None when it
    cannot be rebuilt (the code changed since the catalogue was made)."""
    target = _target(short)
    if target is None:
        return None
    sites = mutation_sites(target.tree)
    if number >= len(sites):
        return None
    try:
        return call, target.function, compile_mutant(target.function,
                                                     _one_site(target.tree, sites[number]))
    except Exception:  # noqa: BLE001
        return None


@functools.lru_cache(maxsize=256)
def _target(short: str):
    """The :class:`~kernelcourse.grading.audit.engine.Target` named ``short`` (the last part of
    its module's name, then its qualified name, as the catalogue writes it), found among the
    modules loaded (no profiling: fast); None unless exactly one function is that."""
    head, _, qualname = short.partition(".")
    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == head or name.endswith("." + head)) or \
                not name.startswith("kernelcourse"):
            continue
        obj = module
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        function = _unwrap(obj) if obj is not None else None
        if function is not None and function.__qualname__ == qualname and \
                function.__module__ == name:
            found[id(function)] = function
    if len(found) != 1:
        return None
    function = next(iter(found.values()))
    tree = function_tree(function)
    return Target(function, tree) if tree is not None else None


def _one_site(tree, site):
    """``tree`` with the replacement of ``site`` made (as the audit's mutant is)."""
    new = copy.deepcopy(tree)
    from ..audit.operators import _walk

    for position, (node, parent, field, index, *_) in enumerate(_walk(new)):
        if position == site[6]:
            replacement = copy.deepcopy(site[5]) if site[5] is not None else ast.Pass()
            if index is None:
                setattr(parent, field, replacement)
            else:
                getattr(parent, field)[index] = replacement
            break
    ast.fix_missing_locations(new)
    return new
