"""What an error raised by the answer says about its mistake: when every failing case raised,
the same kind of error on each, and the error's message names shapes, sizes or an index that
the case's inputs explain, the mistake is named in plain words: two arrays whose lengths differ
by one (a slice or a range one short), a matrix product whose inner sizes are another input's
(a transpose missing, arguments swapped), an index one past the end, an axis that does not
exist, a float used as a count, a text where a number is needed.

:func:`explain_raised` gives a :class:`RaisedRelation` (``found_by == "raised"``) whose
``key`` is ``("raised", tag, ...)``; ``tag`` is the kind of mistake the words name (``"off by
one"``, ``"order"``, ``"axis"``, ``"float"``), so a caller can check the words
against a known change (``tools/diagnosis_coverage.py``). An error the answer's own code
raises on purpose, or one whose message names nothing the inputs explain, gets no words
beyond the error itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model.question import Diagnosis

__all__ = ["RaisedRelation", "explain_raised", "explain_error"]


@dataclass
class RaisedRelation(Diagnosis):
    """The mistake read from the error the answer raised on every failing case."""

    mistake: object = None
    key: tuple = ()
    found_by = "raised"


_SHAPE = r"\((?:\d+,? ?)*\)"
_BROADCAST = re.compile(r"operands could not be broadcast together with (?:remapped )?shapes? "
                        rf"((?:{_SHAPE} ?)+)")
_MATMUL = re.compile(r"mismatch in its core dimension \d+.*\(size (\d+) is different from "
                     r"(\d+)\)")
_DOT = re.compile(r"not aligned: (\d+) \(dim \d+\) != (\d+) \(dim \d+\)")
_INDEX = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")
_GOT_SHAPE = re.compile(rf"^(\w+) must .*got shape ({_SHAPE})")
_FLOAT = ("'float' object cannot be interpreted as an integer", "slice indices must be integers",
          "only integers, slices", "cannot be safely interpreted as an integer")
_TEXT = ("could not convert string to float", "invalid literal for int()",
         "must be a real number; got '", "numeric array; got the string",
         "Cannot construct a dtype from an array", "must be a positive integer; got ")


def _shapes(text: str) -> list:
    return [tuple(int(x) for x in re.findall(r"\d+", s)) for s in re.findall(_SHAPE, text)]


def _labels(lengths: dict, size: int) -> str:
    names = sorted(label for label, n in lengths.items() if n == size)
    return " or ".join(names[:2])


def _sizes_words(lengths: dict, a: int, b: int) -> str:
    """": 3 is the length of y, 2 the number of rows of X" for the sizes the inputs have."""
    named = [n for n in dict.fromkeys((a, b)) if _labels(lengths, n)]
    words = [f"{n} {'is ' if not i else ''}{_labels(lengths, n)}" for i, n in enumerate(named)]
    return f": {', '.join(words)}" if words else ""


def explain_error(error_type: str, message: str, lengths: dict, shapes: dict):
    """``(key, words)`` for one raised error, or None: ``lengths`` the case's input lengths
    (``{label: n}``), ``shapes`` its array inputs' shapes (``{name: shape}``)."""
    m = _BROADCAST.search(message)
    if m:
        got = _shapes(m.group(1))
        pairs = [(a, b) for s in got for t in got if len(s) == len(t) and s != t
                 for a, b in zip(s, t) if a != b and 1 not in (a, b)]
        if pairs and all(abs(a - b) == 1 for a, b in pairs):
            a, b = pairs[0]
            if _labels(lengths, a) and _labels(lengths, b):
                return None    # two inputs' lengths: one short, or the other input meant?
            return (("raised", "off by one", "broadcast"),
                    f"arrays of shapes {' and '.join(map(str, got))} are combined entry by "
                    f"entry, and their lengths differ by one ({min(a, b)} against {max(a, b)}"
                    f"{_sizes_words(lengths, min(a, b), max(a, b))}): a slice, a range or a "
                    f"count one short or one too long?")
        if len(got) == 2 and len(got[0]) == 2 and got[0] == got[1][::-1]:
            return (("raised", "order", "broadcast"),
                    f"arrays of shapes {got[0]} and {got[1]}, one the transpose of the other, "
                    f"are combined entry by entry: a transpose missing or one too many?")
        return None
    m = _MATMUL.search(message) or _DOT.search(message)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if abs(a - b) == 1:
            if _labels(lengths, a) and _labels(lengths, b):
                return None    # two inputs' lengths: one short, or the other input meant?
            return (("raised", "off by one", "product"),
                    f"a matrix product whose inner sizes differ by one ({min(a, b)} against "
                    f"{max(a, b)}{_sizes_words(lengths, a, b)}): a slice, a range or a count one "
                    f"short or one too long?")
        if _labels(lengths, a) and _labels(lengths, b):
            return (("raised", "order", "product"),
                    f"a matrix product A @ B needs A's number of columns to equal B's number of "
                    f"rows; here they are {a} and {b} ({_sizes_words(lengths, a, b)[2:]}): a "
                    f"transpose missing, or the arguments or factors in the wrong order?")
        return None
    m = _INDEX.search(message)
    if m:
        index, size = int(m.group(1)), int(m.group(3))
        if index == size >= 1:
            return (("raised", "off by one", "index"),
                    f"index {index} on an axis of length {size}, whose indices run from 0 to "
                    f"{size - 1}: a loop or a range one too long, an index one too far?")
        return None
    if error_type == "AxisError" or "is out of bounds for array of dimension" in message:
        # (a bare "tuple index out of range" is left alone: shape[k] of an array with fewer
        # axes is as often an argument of another shape passed as another axis meant)
        return (("raised", "axis", "index"),
                "an axis that the array does not have (axis=k with k at least its number of "
                "axes): another axis meant?")
    m = _GOT_SHAPE.search(message)
    if m:
        name, got = m.group(1), _shapes(m.group(2))[0] if _shapes(m.group(2)) else None
        others = sorted(k for k, s in shapes.items() if s == got and k != name)
        if others and name in shapes and shapes[name] != got:
            # an input received another input's shape (not its own, wrongly checked)
            return (("raised", "order", "arguments"),
                    f"{name} received an array of shape {got}, the shape of the input "
                    f"{others[0]}: arguments passed in the wrong order?")
        return None
    if any(t in message for t in _FLOAT):
        return (("raised", "float", "count"),
                "a number with a fractional part used where a whole number is needed (a "
                "range, an index, a shape): a / where // is meant, or a count that is not an "
                "integer?")
    if any(t in message for t in _TEXT) or ("did not contain a loop" in message and "<U" in
                                           message):
        return (("raised", "order", "text"),
                "an argument of another kind (a name, a type) arrived where a number or an "
                "array is needed: two arguments of a call in the wrong order?")
    return None


def _inputs(question, case):
    from .values import _sources
    import inspect
    try:
        names = list(inspect.signature(question.reference).parameters)
    except (TypeError, ValueError):
        names = []
    lengths, _, _ = _sources(case, names)
    named = [(names[i] if i < len(names) else f"argument {i + 1}", arg)
             for i, arg in enumerate(case.args)] + list(case.kwargs.items())
    shapes = {name: tuple(arg.shape) for name, arg in named if isinstance(arg, np.ndarray)}
    return lengths, shapes


def explain_raised(question, cases, outcomes, failing) -> tuple:
    """``(RaisedRelation, index)`` when every failing case (indices ``failing``) raised an error
    that :func:`explain_error` explains, with the same key on each; ``(None, None)`` else."""
    if not failing or any(outcomes[i].get("kind") != "error" for i in failing):
        return None, None
    found = []
    for i in failing:
        out = outcomes[i]
        try:
            lengths, shapes = _inputs(question, cases[i])
            said = explain_error(str(out.get("type", "")), str(out.get("message", "")),
                                 lengths, shapes)
        except Exception:  # noqa: BLE001 - odd inputs or messages: nothing said
            return None, None
        if said is None:
            return None, None
        found.append(said)
    if len({key for key, _ in found}) != 1:
        return None, None
    key, words = found[0]
    head = f"your function raised {outcomes[failing[0]].get('type', 'an error')}: "
    return RaisedRelation(f"raised: {key[1]}", head + words, key=key), failing[0]
