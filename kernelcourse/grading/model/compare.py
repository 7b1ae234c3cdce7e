"""Comparing an answer's value with the expected one, and showing a value in one short line.

:func:`values_match` decides whether two plain-data values agree (numbers and arrays within a
question's ``rtol``/``atol``, integers and booleans exactly, containers item by item, sets,
strings and None exactly) and says why not; :func:`format_value` writes a value, abridged, for
the one-line messages of ``check`` and of the gradebook.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["values_match", "format_value", "dtype_tolerance", "conform_shape", "as_bool",
           "full_text"]


def values_match(actual, expected, rtol: float = 1e-7, atol: float = 1e-9) -> tuple[bool, str]:
    """Compare an answer with the expected value; return ``(ok, reason)``.

    Numbers and arrays are compared with ``numpy.allclose`` (integers and
    booleans exactly) after checking the shape; tuples and lists item by item;
    sets, strings and None exactly. Honest forms of the asked type count as that type: where
    a bool is asked, a ``numpy.bool_`` or a 0-d boolean array; where an option letter (a
    one-letter string) is asked, the letter in either case with blanks around it.

    **Precision.** The tolerance follows the precision of the *answer's* dtype: an answer
    computed in float32 (or float16) is compared to within :func:`dtype_tolerance` of its
    dtype (32 units in the last place, relative to the largest expected entry: about
    4e-6 for float32), since an honest float32 computation of a float64 quantity cannot do
    better; float64 answers keep the question's ``rtol``/``atol``.
    """
    if isinstance(expected, str) and _is_letter(expected):
        # an option letter: read without case or surrounding blanks ("C", " c " for "c")
        if isinstance(actual, str):
            return actual.strip().lower() == expected.lower(), ""
        return False, f"expected an option letter (a string), got a {type(actual).__name__}"
    if expected is None or isinstance(expected, str):
        ok = actual == expected if isinstance(actual, type(expected)) else False
        if ok or isinstance(actual, type(expected)):
            return ok, ""
        return False, f"expected a {type(expected).__name__}, got a {type(actual).__name__}"
    if isinstance(expected, (bool, np.bool_)):
        actual = as_bool(actual)
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


def _is_letter(text: str) -> bool:
    return len(text.strip()) == 1 and text.strip().isalpha()


def as_bool(value):
    """``value`` as a Python bool when it is a verdict in NumPy's clothes (a ``numpy.bool_`` or a
    0-d boolean array); any other value unchanged."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind == "b":
        return bool(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _numeric_sequence(seq) -> bool:
    try:
        arr = np.asarray(seq)
    except Exception:
        return False
    return arr.dtype.kind in "biuf"


#: how many units in the last place of a low-precision answer's dtype are forgiven
ULPS = 32


def dtype_tolerance(dtype, expected, rtol: float, atol: float) -> tuple[float, float]:
    """The ``(rtol, atol)`` for an answer of ``dtype``: the question's own for float64, and at
    least :data:`ULPS` units in the last place of float32/float16 (relative to each entry and
    to the largest expected entry) for an answer computed in lower precision."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f" or dtype.itemsize >= 8:
        return rtol, atol
    eps = float(np.finfo(dtype).eps)
    exp = np.asarray(expected, dtype=float)
    scale = float(np.max(np.abs(exp[np.isfinite(exp)]), initial=0.0)) if exp.size else 0.0
    return max(rtol, ULPS * eps), max(atol, ULPS * eps * scale)


def _arrays_match(actual, expected, rtol, atol) -> tuple[bool, str]:
    exp = np.asarray(expected)
    if isinstance(actual, (str, bytes, dict, set, frozenset)) or actual is None:
        return False, f"expected a number or an array, got a {type(actual).__name__}"
    try:
        raw = np.asarray(actual)
        act = np.asarray(actual, dtype=float)
    except (TypeError, ValueError):
        return False, f"expected numbers, got a {type(actual).__name__} that is not numeric"
    if act.shape != exp.shape:
        return False, f"shape {act.shape} where {exp.shape} was expected"
    rtol, atol = dtype_tolerance(raw.dtype, exp, rtol, atol)
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
    with np.errstate(invalid="ignore"):
        gap = np.abs(act - exp.astype(float))
    largest = float(np.nanmax(np.where(same, 0.0, gap))) if np.any(np.isfinite(gap)) else float("nan")
    return False, (f"{n_bad} of {exp.size} entries differ, first at index {where}; largest "
                   f"difference {largest:.3g}")


def conform_shape(actual, expected):
    """The shape policy: ``(actual, note)``.

    An array answer whose shape differs from the expected one only by axes of length 1
    (``(n, 1)`` or ``(1, n)`` where ``(n,)`` is asked, or the reverse) is accepted: it is
    reshaped to the expected shape and ``note`` says so, to be shown with the verdict. Any
    other shape is left as it is (and fails, with a message naming both shapes).
    """
    if not isinstance(expected, np.ndarray) or isinstance(actual, (str, bytes, dict)):
        return actual, ""
    try:
        arr = np.asarray(actual)
    except Exception:  # noqa: BLE001
        return actual, ""
    if arr.dtype.kind not in "biuf" or arr.shape == expected.shape or arr.size != expected.size:
        return actual, ""
    squeeze = tuple(n for n in arr.shape if n != 1)
    if squeeze != tuple(n for n in expected.shape if n != 1):
        return actual, ""
    return (arr.reshape(expected.shape),
            f"your answer has shape {arr.shape} where {expected.shape} is asked; accepted, "
            f"but return shape {expected.shape} (e.g. with .reshape{expected.shape})")


def format_value(value, limit: int = 160, threshold: int = 12, atol: float = 0.0) -> str:
    """A short one-line text for a value (arrays abridged, floats rounded).

    ``atol``: numbers no larger than it in absolute value print as 0 (an expected 0 computed as
    1e-17 is 0 to the question's tolerance). A text longer than ``limit`` is cut after a comma
    or a blank, never inside a number or a word, and ends with "...".
    """
    if isinstance(value, np.ndarray):
        if atol > 0 and value.dtype.kind == "f":
            value = np.where(np.abs(value) <= atol, 0.0, value)
        with np.printoptions(precision=4, threshold=threshold, edgeitems=2, suppress=True,
                             linewidth=10**6, floatmode="maxprec", legacy=False):
            text = np.array2string(value, separator=", ")
        text = re.sub(r"\s+", " ", text)
        text = re.sub(r"\s+([,\]])", r"\1", re.sub(r"\[\s+", "[", text))
        text = text.replace("-0.,", "0.,").replace("-0.]", "0.]")
    elif isinstance(value, (bool, np.bool_)):
        text = str(bool(value))
    elif isinstance(value, (float, np.floating)):
        x = float(value)
        text = "0" if abs(x) <= atol or x == 0 else f"{x:.6g}"
    elif isinstance(value, (int, np.integer)):
        text = str(int(value))
    elif isinstance(value, tuple):
        text = "(" + ", ".join(format_value(v, limit, threshold, atol) for v in value) + \
            ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, list):
        if _numeric_sequence(value) and np.asarray(value).size > threshold:
            text = "list " + format_value(np.asarray(value), limit, threshold, atol)
        else:
            text = "[" + ", ".join(format_value(v, limit, threshold, atol)
                                   for v in value[:threshold]) + \
                (", ..." if len(value) > threshold else "") + "]"
    else:
        text = repr(value)
    if len(text) > limit:
        cut = max(text.rfind(", ", 0, limit - 4), text.rfind(" ", 0, limit - 4))
        text = text[: cut if cut > limit // 2 else limit - 4].rstrip(", ") + " ..."
    return text


def full_text(value, digits: int = 17) -> str:
    """A value written in full, as Python that rebuilds it (``np.array([[...]])`` for arrays,
    every entry and enough digits to reproduce it), for the inputs of a failing case."""
    if isinstance(value, np.ndarray):
        with np.printoptions(threshold=np.inf, linewidth=10**9, floatmode="unique",
                             legacy=False):
            body = np.array2string(value, separator=", ")
        body = re.sub(r"\s+", " ", body)
        body = re.sub(r"\s+([,\]])", r"\1", re.sub(r"\[\s+", "[", body))
        kind = value.dtype.kind
        suffix = "" if kind == "f" else f", dtype={'bool' if kind == 'b' else 'int'}"
        return f"np.array({body}{suffix})"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, tuple):
        return "(" + ", ".join(full_text(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(full_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{full_text(k)}: {full_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(full_text(v) for v in value) + "}" if value else "set()"
    return repr(value)
