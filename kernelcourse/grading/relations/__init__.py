"""Diagnosing the mistake nobody named: how a wrong answer's values relate to the expected ones.

When no named diagnosis (:meth:`Question.diagnose_where`) explains a failing answer,
:func:`relate` compares the answer's value with the expected one on every failing case and
names, in plain words, a relation that holds on *all* of them, each within the question's own
comparison (:func:`~kernelcourse.grading.model.compare.values_match`, its ``rtol``/``atol``):

* a constant factor: 2, 1/2, 3, 1/3, 4, 1/4, √2, 1/√2, -1 (the sign), the same number on
  every case, or a factor read from the case's inputs: ``n``, ``1/n``, ``n/(n-1)``,
  ``(n-1)/n``, ``n-1``, ``1/(n-1)`` with ``n`` a length or an integer argument, or a number
  argument (``lam``, ``gamma``) or its inverse;
* an offset: ±1, a number argument, a multiple of an array argument (a term dropped), the
  same number on every case, or one amount per case for every entry of an array;
* squared, square-rooted, absolute, reciprocal, exponentiated or logarithm values, or a
  power read from a number argument (a factor in a kernel's exponent), or one fitted exponent
  (``3 ** d`` for ``2 ** d``: :mod:`.fitted`); values cut off at 0; zeros; one answer
  whatever the inputs; an input itself, unchanged;
* a transpose, a reversed, shifted or permuted order, items of a tuple swapped; the value
  the reference gives with two inputs swapped, a square input transposed, or one input
  changed as a mistake changes it: a number argument as if it were 0 or 1, doubled, halved,
  squared, rooted or of the other sign, a count one more or one less, the first or the last
  row, column or entry of an array left out (:mod:`.inputs`; on values of one or two
  numbers only when three failing cases at least agree);
* an error whose size follows a term of each case's inputs: one number ``c`` with every
  value the expected one plus ``c·lam²`` (``lam``, ``1/lam``, ``√lam``, ``n``, ``n²``,
  ``n - 1``...) or times ``c·lam``, the term taking three values at least over the failing
  cases (:func:`.fitted._fitted_terms`);
* the wrong shape: one number for an array (and which: the sum, the mean...), an array for a
  number, rows, columns or entries left out or added, the rest right and in order
  (:mod:`.shapes`), lengths that are the same inputs' axes on every failing case;
* where a NaN or an infinity appeared;
* the only entries that differ: the diagonal, the first or the last entry, row or column,
  or those where an input array of the same shape is negative, positive, zero or equal to a
  number argument (a boundary).

Each relation is a hypothesis checked exactly: a relation whose parameter is fitted (a factor
or an offset found from the values) needs more failing entries than parameters, so a single
failing number is never "explained" by a factor made to fit it. When two relations of different
kinds both hold on every failing case, nothing is said (a wrong diagnosis is worse than none),
unless one is plainly the more specific (a named constant against a fitted one). The relation
travels as a :class:`Relation`, a :class:`~kernelcourse.grading.model.question.Diagnosis` whose
``found_by`` is ``"relation"``, in the verdict's ``diagnosis`` field.

When every failing case raised instead, :func:`.raised.explain_raised` reads the mistake from
the error's words where the inputs explain its shapes, sizes or index (a slice one short, a
transpose missing, an index one past the end): a :class:`.raised.RaisedRelation`, whose
``found_by`` is ``"raised"``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from ..model.compare import values_match
from ..model.question import Diagnosis
from .words import message_of, ordinal
from .fitted import _fitted, _fitted_power, _fitted_terms, _per_case, _round
from .inputs import FEW_CASES, input_hypotheses
from .values import _ORDERS, _hypotheses, _leaves

__all__ = ["Relation", "relate", "relation_holds"]


@dataclass
class Relation(Diagnosis):
    """A relation between an answer's values and the expected ones, found on its failing cases
    (not a mistake the question names): ``name`` is ``"relation: <kind>"``, ``message`` the
    plain words, ``key`` what :func:`relation_holds` checks again on other cases."""

    mistake: object = None
    key: tuple = ()
    found_by = "relation"


# ------------------------------------------------------------------------ words and choosing

#: the kinds, most specific first; a later kind never hides an earlier one
_RANK = ["nonfinite", "zero", "input", "swapargs", "tinput", "asif", "transpose", "swapped",
         "short", "extra", "slices", "reshape", "factor", "offset", "power", "clip", "nfactor",
         "xfactor", "epower", "xoffset", "tfactor", "toffset", "aoffset", "order", "scalar",
         "array", "shape", "cfactor", "coffset", "cpower", "matrix", "same", "only", "scaled",
         "shifted"]
#: what the reference on changed inputs gives holds beside any relation of the values alone
_VALUE_KINDS = set(_RANK) - {"nonfinite", "zero", "input", "swapargs", "tinput", "asif"}
#: for a kind, the kinds that make it redundant when both hold (it gives way to them)
_IMPLIED = {"nfactor": {"factor"}, "xfactor": {"factor", "nfactor"}, "xoffset": {"offset"},
            "tfactor": {"factor", "nfactor", "xfactor", "cfactor"},
            "toffset": {"offset", "xoffset", "coffset", "aoffset"},
            "cfactor": {"factor", "nfactor", "xfactor"},
            "coffset": {"offset", "xoffset", "aoffset"},
            "scaled": {"factor", "nfactor", "xfactor", "cfactor", "tfactor"},
            "shifted": {"offset", "xoffset", "coffset", "aoffset", "toffset"},
            "same": {"zero"},
            "matrix": {"factor", "offset", "nfactor", "xfactor", "xoffset", "cfactor",
                       "coffset", "tfactor", "toffset"},
            "cpower": {"power", "epower", "factor", "cfactor", "offset", "coffset",
                       "tfactor", "toffset"},
            "only": set(_RANK) - {"only"}}
for _kind in _VALUE_KINDS:
    # the answer is an input itself, or the reference on swapped or transposed inputs: what
    # else its values happen to be (a transpose, a factor) says less
    _IMPLIED[_kind] = _IMPLIED.get(_kind, set()) | {"input", "swapargs", "tinput", "asif"}
#: the answer is an input itself, zeros or not finite: that it is also the reference on a
#: changed input (the kernel with lam = 0 is 0) says less
_IMPLIED["asif"] = {"input", "zero", "nonfinite"}


def _relations(question, failing, small=None) -> tuple[list, list]:
    """``(held, pairs)``: every relation (key, detail) that holds on all the failing records;
    ``small``: values of one or two numbers are read from changed inputs (by default when
    enough failing cases agree, :data:`.inputs.FEW_CASES`; always when a relation found on
    other cases is checked again)."""
    names = _parameter_names(question)
    pairs, per_case, alive = [], [], None
    small = len(failing) >= FEW_CASES if small is None else small
    for case, actual, expected, *_ in failing:
        leaves = _leaves(actual, expected, case, names, question.rtol, question.atol)
        if not leaves:
            return [], []
        pairs += leaves
        common = None
        for p in leaves:
            hyp = _hypotheses(p)
            common = hyp if common is None else {k: v for k, v in common.items() if k in hyp}
        if isinstance(expected, (tuple, list)) and len(expected) >= 2 and \
                isinstance(actual, (tuple, list)) and len(actual) == len(expected) and \
                values_match(list(actual)[::-1], list(expected), question.rtol,
                             question.atol)[0]:
            common[("swapped",)] = None
        changed = input_hypotheses(question, case, actual, expected, names, alive, small)
        alive = set(changed)
        common.update(changed)
        per_case.append(common)
    held = [(k, v if k[0] != "aoffset" else [c[k] for c in per_case])
            for k, v in per_case[0].items()
            if k[0] != "shape" and all(k in c for c in per_case[1:])]
    held += _shape_held(per_case)
    finite = all(np.all(np.isfinite(p.A)) for p in pairs)
    if finite and all(p.A.shape == p.E.shape and not np.any(p.A) for p in pairs):
        held.append((("zero",), None))
    elif finite and len(failing) >= 2 and all(
            p.A.shape == pairs[0].A.shape and pairs[0].close(p.A, actual=pairs[0].a)
            and p.close(p.A) for p in pairs[1:]) and \
            not all(p.E.shape == pairs[0].E.shape and pairs[0].close(p.E) for p in pairs[1:]):
        held.append((("same",), pairs[0].a))
    # the "only" and shift relations of a case compare the first failing case's detail
    c = _fitted_power(pairs)
    if c is not None:
        held.append((("cpower", c), None))
    for kind in ("factor", "offset"):
        for form, label, c in _fitted_terms(pairs, kind):
            held.append((("t" + kind, form, c, label), None))
        c = _fitted(pairs, kind)
        if c is not None and c not in (1.0, 0.0):
            held.append((("c" + kind, c), None))
        values = _per_case(pairs, kind)
        if values is not None and len({_round(v) for v in values}) > 1:
            held.append(((("scaled" if kind == "factor" else "shifted"),), values))
    if any(k[0] == "only" for k, _ in held):
        # right but for a part the shape or the inputs tell: a factor or an amount per row or
        # column (one of them 1 or 0) says less
        held = [(k, v) for k, v in held if k[0] != "matrix"]
    return held, pairs


def _shape_held(per_case: list) -> list:
    """The "shape" relation over all the failing cases: each axis of the answer is an input's
    axis on every case (the inputs whose lengths match it on all of them)."""
    shapes = [next(((k, v) for k, v in c.items() if k[0] == "shape"), None) for c in per_case]
    if not all(shapes) or len({len(k[1]) for k, _ in shapes}) != 1:
        return []
    names = tuple(frozenset.intersection(*axis) for axis in zip(*(k[1] for k, _ in shapes)))
    return [(("shape", names), shapes[0][1])] if all(names) else []


def relate(question, records) -> tuple[Relation | None, int | None]:
    """The relation that holds between the answer's and the expected values on every failing
    record, and the index in ``records`` of the first failing one; ``(None, None)`` when none
    holds, when two of different kinds hold, or when the question is not graded by comparing
    with the reference (a witness, a choice).

    ``records`` as :meth:`Question.diagnose_where` takes them: ``(case, actual, expected,
    passed, ...)`` for every case that returned a value (the caller gives them only when
    every failing case returned one)."""
    if not question.compare_reference:
        return None, None
    failing = [(i, r) for i, r in enumerate(records) if not r[3]]
    if not failing:
        return None, None
    try:
        held, pairs = _relations(question, [r for _, r in failing])
    except Exception:  # noqa: BLE001 - odd values (empty, ragged): no relation, never a crash
        return None, None
    chosen = _choose(held)
    if chosen is None:
        return None, None
    key, detail = chosen
    message = message_of(key, detail)
    paths = {p.path for p in pairs}
    if len(paths) == 1 and () not in paths and key[0] != "swapped":
        message = f"in {ordinal(next(iter(paths)))}: {message}"
    return Relation(f"relation: {key[0]}", message, key=key), failing[0][0]


def _choose(held: list):
    """The relation to name: the kinds ranked; when kinds that no rank makes redundant both
    hold, none (the values alone cannot tell which mistake it is)."""
    if not held:
        return None
    kinds = {k[0] for k, _ in held}
    best = min(held, key=lambda kv: _RANK.index(kv[0][0]))
    rivals = {k for k in kinds if k != best[0][0] and best[0][0] not in _IMPLIED.get(k, set())}
    if rivals:
        return None
    same = [(k, v) for k, v in held if k[0] == best[0][0]]
    if len(same) == 1:
        return best
    if best[0][0] == "order":
        # a reversal or a shift is a permutation too: the most specific order
        return min(same, key=lambda kv: _ORDERS.index(kv[0][1]))
    if best[0][0] in ("tfactor", "toffset") and len({k[:3] for k, _ in same}) == 1:
        # one term of inputs of the same lengths on every case: name them all
        labels = " (or ".join(k[3] for k, _ in same) + ")" * (len(same) - 1)
        return best[0][:3] + (labels,), best[1]
    if best[0][0] == "nfactor" and len({k[1] for k, _ in same}) == 1:
        # one form, several inputs of the same length: name them all
        labels = " (or ".join(k[2] for k, _ in same) + ")" * (len(same) - 1)
        return ("nfactor", best[0][1], labels), best[1]
    return None


def relation_holds(question, relation: Relation, records) -> bool:
    """Whether ``relation`` (its kind and parameters) holds on every failing record of
    ``records`` (True when none fails): how the diagnosis's coverage is checked on cases other
    than those it was found on (``tools/diagnosis_coverage.py``)."""
    failing = [r for r in records if not r[3]]
    if not failing:
        return True
    try:
        held, _ = _relations(question, failing, small=relation.key[0] in ("asif", "swapargs"))
    except Exception:  # noqa: BLE001
        return False
    key = relation.key
    if key[0] in ("scaled", "shifted"):
        return any(k[0] in (key[0], *_IMPLIED[key[0]]) for k, _ in held)
    if key[0] == "nfactor":
        return any(k[:2] == key[:2] and k[2] in key[2] for k, _ in held)
    if key[0] in ("tfactor", "toffset"):
        return any(k[:3] == key[:3] and k[3] in key[3] for k, _ in held)
    if key[0] == "shape":
        return any(k[0] == "shape" and len(k[1]) == len(key[1]) and
                   all(a & b for a, b in zip(k[1], key[1])) for k, _ in held)
    return any(k == key for k, _ in held)


def _parameter_names(question) -> list:
    try:
        return list(inspect.signature(question.reference).parameters)
    except (TypeError, ValueError):
        return []
