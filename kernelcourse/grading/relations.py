"""Diagnosing the mistake nobody named: how a wrong answer's values relate to the expected ones.

When no named diagnosis (:meth:`Question.diagnose_where`) explains a failing answer,
:func:`relate` compares the answer's value with the expected one on every failing case and
names, in plain words, a relation that holds on *all* of them, each within the question's own
comparison (:func:`~kernelcourse.grading.compare.values_match`, its ``rtol``/``atol``):

* a constant factor: 2, 1/2, 3, 1/3, 4, 1/4, √2, 1/√2, -1 (the sign), the same number on
  every case, or a factor read from the case's inputs: ``n``, ``1/n``, ``n/(n-1)``,
  ``(n-1)/n``, ``n-1``, ``1/(n-1)`` with ``n`` a length or an integer argument, or a number
  argument (``lam``, ``gamma``) or its inverse;
* an offset: ±1, a number argument, a multiple of an array argument (a term dropped), the
  same number on every case, or one amount per case for every entry of an array;
* squared, square-rooted, absolute, reciprocal, exponentiated or logarithm values, or a
  power read from a number argument (a factor in a kernel's exponent); zeros; one answer
  whatever the inputs;
* a transpose, a reversed, shifted or permuted order, items of a tuple swapped;
* the wrong shape: one number for an array (and which: the sum, the mean...), an array for a
  number, one entry short or too many, lengths that are another input's axis;
* where a NaN or an infinity appeared;
* the only entries that differ: the diagonal, the first or the last.

Each relation is a hypothesis checked exactly: a relation whose parameter is fitted (a factor
or an offset found from the values) needs more failing entries than parameters, so a single
failing number is never "explained" by a factor made to fit it. When two relations of different
kinds both hold on every failing case, nothing is said (a wrong diagnosis is worse than none),
unless one is plainly the more specific (a named constant against a fitted one). The relation
travels as a :class:`Relation`, a :class:`~kernelcourse.grading.question.Diagnosis` whose
``found_by`` is ``"relation"``, in the verdict's ``diagnosis`` field.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np

from .compare import values_match
from .question import Diagnosis
from .relation_words import message_of, ordinal

__all__ = ["Relation", "relate", "relation_holds"]


@dataclass
class Relation(Diagnosis):
    """A relation between an answer's values and the expected ones, found on its failing cases
    (not a mistake the question names): ``name`` is ``"relation: <kind>"``, ``message`` the
    plain words, ``key`` what :func:`relation_holds` checks again on other cases."""

    mistake: object = None
    key: tuple = ()
    found_by = "relation"


_CONSTANTS = [(2.0, "twice"), (0.5, "half"), (3.0, "3 times"), (1 / 3, "a third of"),
              (4.0, "4 times"), (0.25, "a quarter of"), (math.sqrt(2), "√2 times"),
              (1 / math.sqrt(2), "1/√2 times"), (-2.0, "-2 times"), (-0.5, "-1/2 times"),
              (math.pi, "π times"), (1 / math.pi, "1/π times"), (2 * math.pi, "2π times"),
              (1 / (2 * math.pi), "1/(2π) times"), (math.sqrt(2 * math.pi), "√(2π) times"),
              (1 / math.sqrt(2 * math.pi), "1/√(2π) times")]
_N_FORMS = [("n", lambda n: n), ("1/n", lambda n: 1 / n), ("n/(n-1)", lambda n: n / (n - 1)),
            ("(n-1)/n", lambda n: (n - 1) / n), ("n-1", lambda n: n - 1),
            ("1/(n-1)", lambda n: 1 / (n - 1))]
_X_FORMS = [("x", lambda x: x), ("1/x", lambda x: 1 / x), ("x²", lambda x: x * x),
            ("1/x²", lambda x: 1 / (x * x))]
_POWERS = [("square", lambda e: e * e), ("sqrt", np.sqrt), ("abs", np.abs),
           ("reciprocal", lambda e: 1 / e), ("exp", np.exp), ("log", np.log)]
_AGGREGATES = [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
               ("norm", np.linalg.norm), ("first entry", lambda e: e.flat[0]),
               ("last entry", lambda e: e.flat[-1])]
_ORDERS = ["reversed", "columns reversed", "one later", "one earlier", "sorted up", "sorted down",
           "permuted", "rows permuted", "columns permuted"]


class _Pair:
    """One failing value: the answer's and the expected leaf (an item of a tuple or the whole),
    as raw values (compared as the grader does) and as float arrays, with the case's inputs."""

    def __init__(self, actual, expected, path, case, names, rtol, atol):
        self.a, self.e, self.path = actual, expected, path
        self.A = np.asarray(actual, dtype=float)
        self.E = np.asarray(expected, dtype=float)
        self.rtol, self.atol = rtol, atol
        self.lengths, self.numbers, self.arrays = _sources(case, names)

    def close(self, target, actual=None) -> bool:
        """The answer (or ``actual``) equals ``target`` by the question's own comparison."""
        target = np.asarray(target)
        if target.dtype.kind == "f" and not np.all(np.isfinite(target)):
            return False
        with np.errstate(all="ignore"):
            return values_match(self.a if actual is None else actual, target,
                                self.rtol, self.atol)[0]


def _sources(case, names):
    """The lengths (``{label: n}``: axes of array inputs, integer arguments, lengths of lists),
    the numbers (``{name: x}``: float arguments) and the float arrays (``{name: array}``) that
    a relation may name."""
    lengths, numbers, arrays = {}, {}, {}
    named = [(names[i] if i < len(names) else f"argument {i + 1}", arg)
             for i, arg in enumerate(case.args)] + list(case.kwargs.items())
    for name, arg in named:
        if isinstance(arg, (bool, np.bool_)):
            continue
        if isinstance(arg, (int, np.integer)):
            lengths[f"the argument {name}"] = int(arg)
        elif isinstance(arg, (float, np.floating)) and math.isfinite(arg) and arg != 0:
            numbers[name] = float(arg)
        elif isinstance(arg, np.ndarray) and arg.ndim >= 1:
            axes = ["the length of", "the number of columns of", "the depth of"] \
                if arg.ndim == 1 else ["the number of rows of", "the number of columns of",
                                       "the depth of"]
            for axis, size in enumerate(arg.shape[:3]):
                lengths[f"{axes[axis]} {name}"] = int(size)
            if arg.dtype.kind in "biuf":
                arrays[name] = arg.astype(float)
        elif isinstance(arg, (list, tuple)) and arg:
            lengths[f"the length of {name}"] = len(arg)
    return lengths, numbers, arrays


def _leaves(actual, expected, case, names, rtol, atol):
    """The failing leaves of one case, as :class:`_Pair`; None when the values cannot be
    related (text, booleans, a tuple of another length)."""
    if isinstance(expected, tuple) or (isinstance(expected, list) and not _numeric(expected)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            return None
        pairs = []
        for i, (a, e) in enumerate(zip(actual, expected)):
            if values_match(a, e, rtol, atol)[0]:
                continue
            inner = _leaves(a, e, case, names, rtol, atol)
            if inner is None:
                return None
            for p in inner:
                p.path = (i,) + p.path
            pairs += inner
        return pairs or None
    if not _numeric(expected) or isinstance(actual, (str, bytes, dict, set, frozenset)) \
            or actual is None or isinstance(expected, (bool, np.bool_)):
        return None
    if np.asarray(expected).dtype.kind == "b" or values_match(actual, expected, rtol, atol)[0]:
        return None     # a truth value, or a value that is right (a constraint broke)
    try:
        return [_Pair(actual, expected, (), case, names, rtol, atol)]
    except (TypeError, ValueError):
        return None


def _numeric(value) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except Exception:  # noqa: BLE001 (ragged or odd values)
        return False


# --------------------------------------------------------------- one failing value's relations

def _hypotheses(p: _Pair) -> dict:
    """Every relation with a fixed key that holds on this failing value: ``{key: detail}``,
    ``detail`` the words a message needs about this case."""
    found: dict = {}
    A, E = p.A, p.E
    if A.shape == E.shape and np.all(np.isfinite(E)) and not np.all(np.isfinite(A)):
        bad = np.argwhere(~np.isfinite(A))
        where = tuple(int(i) for i in bad[0])
        what = "NaN" if np.isnan(A[tuple(bad[0])]) else "an infinity"
        zero = bool(np.all(np.abs(E[~np.isfinite(A)]) <= p.atol))
        found[("nonfinite", zero)] = (what, where[0] if len(where) == 1 else where,
                                      float(E[tuple(bad[0])]) if bad.size else float(E))
        return found
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(E))):
        return found
    if A.shape != E.shape:
        return _shape_hypotheses(p)
    for c, word in [(-1.0, "minus")] + _CONSTANTS:
        if p.close(c * E):
            found[("factor", word)] = None
    for label, n in p.lengths.items():
        for form, f in _N_FORMS:
            if n > 1 and f(n) not in (1.0, 0.0) and p.close(f(n) * E):
                found[("nfactor", form, label)] = n
    for name, x in p.numbers.items():
        for form, f in _X_FORMS:
            if abs(f(x)) != 1 and p.close(f(x) * E):
                found[("xfactor", form, name)] = x
        for sign in (1, -1):
            if p.close(E + sign * x):
                found[("xoffset", sign, name)] = x
        if np.all(E > 0):
            for form, f in _X_FORMS:
                if abs(f(x)) != 1 and p.close(E ** f(x)):
                    found[("epower", form, name)] = x
    for c in (1, -1):
        if p.close(E + c):
            found[("offset", c)] = None
    for name, X in p.arrays.items():
        if X.shape == E.shape and E.size >= 2 and np.any(X):
            c = float((A - E).ravel() @ X.ravel() / (X.ravel() @ X.ravel()))
            if c != 0 and p.close(E + c * X):
                found[("aoffset", name)] = c
    for kind, f in _POWERS:
        with np.errstate(all="ignore"):
            target = f(E)
        if np.all(np.isfinite(target)) and p.close(target):
            found[("power", kind)] = None
    if E.ndim == 2 and E.shape[0] == E.shape[1] and p.close(E.T):
        found[("transpose",)] = None
    if E.ndim >= 1 and E.shape[0] >= 2:
        _order_hypotheses(p, found)
    if E.ndim >= 1 and E.size >= 3:
        _only_hypotheses(p, found)
    if E.ndim == 2 and min(E.shape) >= 3:
        _matrix_hypotheses(p, found)
    return found


def _order_hypotheses(p: _Pair, found: dict) -> None:
    A, E = p.A, p.E
    if p.close(E[::-1]):
        found[("order", "reversed")] = None
    if E.ndim == 2 and p.close(E[:, ::-1]):
        found[("order", "columns reversed")] = None
    if E.shape[0] >= 3:
        if p.close(np.roll(E, 1, axis=0)) or p.close(E[:-1], actual=A[1:]):
            found[("order", "one later")] = None
        if p.close(np.roll(E, -1, axis=0)) or p.close(E[1:], actual=A[:-1]):
            found[("order", "one earlier")] = None
    if E.ndim == 1:
        if p.close(np.sort(E)):
            found[("order", "sorted up")] = None
        elif p.close(np.sort(E)[::-1]):
            found[("order", "sorted down")] = None
        elif p.close(np.sort(E), actual=np.sort(A)):
            found[("order", "permuted")] = None
    elif E.ndim == 2:
        rows = lambda M: M[np.lexsort(M.T[::-1])]
        if p.close(rows(E), actual=rows(A)):
            found[("order", "rows permuted")] = None
        elif p.close(rows(E.T), actual=rows(A.T)):
            found[("order", "columns permuted")] = None


def _only_hypotheses(p: _Pair, found: dict) -> None:
    """Only the diagonal, or only the first or the last entry, differs."""
    A, E = p.A, p.E
    same = np.isclose(A, E, rtol=p.rtol, atol=p.atol)
    if E.ndim == 2 and E.shape[0] == E.shape[1]:
        off = ~np.eye(len(E), dtype=bool)
        if np.all(same[off]):
            found[("only", "the diagonal")] = None
        return
    if E.ndim == 1:
        if np.all(same[1:]):
            found[("only", "the first entry")] = None
        elif np.all(same[:-1]):
            found[("only", "the last entry")] = None


def _matrix_hypotheses(p: _Pair, found: dict) -> None:
    """Each row (or column) off by an amount of its own, or by a row's plus a column's (a
    centering term); each row (or column) times a factor of its own, or entry ij times
    d_i d_j (a normalisation by the diagonal)."""
    A, E = p.A, p.E
    R = A - E
    rows, cols = R.mean(1, keepdims=True), R.mean(0, keepdims=True)
    for kind, fit in (("rows", rows), ("columns", cols), ("both", rows + cols - R.mean())):
        if np.ptp(fit) > p.atol and p.close(E + fit):
            found[("matrix", f"{kind} shifted")] = None
            return
    with np.errstate(all="ignore"):
        r, c = (A * E).sum(1) / (E * E).sum(1), (A * E).sum(0) / (E * E).sum(0)
        d = np.sqrt(np.abs(np.diag(A) / np.diag(E))) if E.shape[0] == E.shape[1] else r
        for kind, f, target in (("rows", r, r[:, None] * E), ("columns", c, E * c),
                                ("both", d, np.outer(d, d) * E if d is not r else E)):
            if np.all(np.isfinite(f)) and np.ptp(f) > 0 and p.close(target):
                found[("matrix", f"{kind} scaled")] = None
                return


def _shape_hypotheses(p: _Pair) -> dict:
    A, E = p.A, p.E
    found: dict = {}
    if E.ndim == 2 and A.shape == E.T.shape and p.close(E.T, actual=A):
        found[("transpose",)] = None
        return found
    if A.ndim == 0 and E.ndim >= 1:
        for name, f in _AGGREGATES:
            if p.close(f(E)):
                found[("scalar", name)] = E.shape
        if not found:
            found[("scalar", None)] = E.shape
        return found
    if E.ndim == 0 and A.ndim >= 1:
        for name, f in _AGGREGATES:
            if p.close(E, actual=f(A)):
                found[("array", name)] = A.shape
        if not found:
            found[("array", None)] = A.shape
        return found
    if A.ndim == E.ndim == 1 and abs(A.size - E.size) == 1 and min(A.size, E.size) >= 1:
        short = A.size < E.size
        for where, cut in (("first", slice(1, None)), ("last", slice(None, -1))):
            if short and p.close(E[cut]):
                found[("short", where)] = None
            if not short and p.close(E, actual=A[cut]):
                found[("extra", where)] = None
        if found:
            return found
    if A.size == E.size and A.size > 1 and p.close(E, actual=A.reshape(E.shape)):
        found[("reshape",)] = A.shape
        return found
    names = tuple(frozenset(label for label, n in p.lengths.items() if n == size)
                  for size in A.shape)
    if A.ndim and all(names):
        found[("shape", names)] = (A.shape, E.shape)
    return found


# ----------------------------------------------------------- relations fitted over the cases

def _fitted(pairs: list, kind: str):
    """One factor (``kind="factor"``) or one offset that maps every expected value to the
    answer's, found from the values and checked on each; None unless there are more failing
    entries than the one parameter (so two at least) and it holds on all."""
    if any(p.A.shape != p.E.shape or not np.all(np.isfinite(p.A)) for p in pairs):
        return None
    A = np.concatenate([p.A.ravel() for p in pairs])
    E = np.concatenate([p.E.ravel() for p in pairs])
    if kind == "factor":
        useful = np.abs(E) > 0
        if useful.sum() < 2 or not np.any(A[useful] != 0):
            return None
        c = float(A[useful] @ E[useful] / (E[useful] @ E[useful]))
        ok = c != 0 and all(p.close(c * p.E) for p in pairs)
    else:
        if A.size < 2:
            return None
        c = float(np.median(A - E))
        ok = c != 0 and all(p.close(p.E + c) for p in pairs)
    return _shortest(c, pairs, kind) if ok else None


def _shortest(c: float, pairs: list, kind: str) -> float:
    """``c`` with the fewest digits (4 at least) that still map every expected value to the
    answer's, so the message never rounds a near miss to a round number."""
    for digits in (4, 6, 8, 10, 17):
        r = float(f"{c:.{digits}g}")
        if all(p.close(r * p.E if kind == "factor" else p.E + r) for p in pairs):
            return r
    return c


def _per_case(pairs: list, kind: str):
    """A factor or an offset per failing value, different from case to case: only for arrays
    of three entries at least (a per-case parameter explains any single number)."""
    values = []
    for p in pairs:
        if p.A.shape != p.E.shape or p.E.size < 3 or not np.all(np.isfinite(p.A)):
            return None
        if kind == "factor":
            denom = float(p.E.ravel() @ p.E.ravel())
            c = float(p.A.ravel() @ p.E.ravel()) / denom if denom else 0.0
            if c == 0 or not p.close(c * p.E):
                return None
        else:
            c = float(np.median(p.A - p.E))
            if c == 0 or not p.close(p.E + c):
                return None
        values.append(c)
    return values


def _round(x: float) -> float:
    return float(f"{x:.4g}")


# ------------------------------------------------------------------------ words and choosing

#: the kinds, most specific first; a later kind never hides an earlier one
_RANK = ["nonfinite", "zero", "transpose", "swapped", "short", "extra", "reshape", "factor",
         "offset", "power", "nfactor", "xfactor", "epower", "xoffset", "aoffset", "order",
         "scalar", "array", "shape", "cfactor", "coffset", "matrix", "same", "only", "scaled", "shifted"]
#: kinds a more specific kind makes redundant when both hold
_IMPLIED = {"nfactor": {"factor"}, "xfactor": {"factor", "nfactor"}, "xoffset": {"offset"},
            "cfactor": {"factor", "nfactor", "xfactor"},
            "coffset": {"offset", "xoffset", "aoffset"},
            "scaled": {"factor", "nfactor", "xfactor", "cfactor"},
            "shifted": {"offset", "xoffset", "coffset", "aoffset"}, "same": {"zero"},
            "matrix": {"factor", "offset", "nfactor", "xfactor", "xoffset", "cfactor",
                       "coffset"},
            "only": set(_RANK) - {"only"}}


def _relations(question, failing) -> tuple[list, list]:
    """``(held, pairs)``: every relation (key, detail) that holds on all the failing records."""
    names = _parameter_names(question)
    pairs, per_case = [], []
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
        per_case.append(common)
    held = [(k, v if k[0] != "aoffset" else [c[k] for c in per_case])
            for k, v in per_case[0].items() if all(k in c for c in per_case[1:])]
    finite = all(np.all(np.isfinite(p.A)) for p in pairs)
    if finite and all(p.A.shape == p.E.shape and not np.any(p.A) for p in pairs):
        held.append((("zero",), None))
    elif finite and len(failing) >= 2 and all(
            p.A.shape == pairs[0].A.shape and pairs[0].close(p.A, actual=pairs[0].a)
            and p.close(p.A) for p in pairs[1:]) and \
            not all(p.E.shape == pairs[0].E.shape and pairs[0].close(p.E) for p in pairs[1:]):
        held.append((("same",), pairs[0].a))
    # the "only" and shift relations of a case compare the first failing case's detail
    for kind in ("factor", "offset"):
        c = _fitted(pairs, kind)
        if c is not None and c not in (1.0, 0.0):
            held.append((("c" + kind, c), None))
        values = _per_case(pairs, kind)
        if values is not None and len({_round(v) for v in values}) > 1:
            held.append(((("scaled" if kind == "factor" else "shifted"),), values))
    return held, pairs


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
        held, _ = _relations(question, failing)
    except Exception:  # noqa: BLE001
        return False
    key = relation.key
    if key[0] in ("scaled", "shifted"):
        return any(k[0] in (key[0], *_IMPLIED[key[0]]) for k, _ in held)
    if key[0] == "nfactor":
        return any(k[:2] == key[:2] and k[2] in key[2] for k, _ in held)
    return any(k == key for k, _ in held)


def _parameter_names(question) -> list:
    try:
        return list(inspect.signature(question.reference).parameters)
    except (TypeError, ValueError):
        return []
