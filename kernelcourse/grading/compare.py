"""Comparing an answer's value with the expected one, and showing a value in one short line.

:func:`values_match` decides whether two plain-data values agree (numbers and arrays within a
question's ``rtol``/``atol``, integers and booleans exactly, containers item by item, sets,
strings and None exactly) and says why not; :func:`format_value` writes a value, abridged, for
the one-line messages of ``check`` and of the gradebook.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["values_match", "format_value"]


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
