"""Plain data: a question's cases and an answer's values as JSON text, the one form they take
in and out of a grading worker, in the comparison of ``check`` and in the gradebook's hashes.

The grader never unpickles anything a submission produced. Inputs and answers
travel as JSON, with a few tags for the types JSON lacks:

==================  ==========================================================
Python value        JSON form
==================  ==========================================================
None, bool, int,    themselves (floats keep every digit: JSON writes ``repr``;
float, str          NaN and inf are written as ``NaN`` / ``Infinity``)
numpy array         ``{"$nd": dtype, "shape": [...], "data": [...]}`` for bool,
                    integer and float dtypes only
numpy scalar        the matching Python scalar
tuple               ``{"$tuple": [...]}``
list                a JSON list
set, frozenset      ``{"$set": [...]}`` / ``{"$frozenset": [...]}``
dict                ``{"$dict": [[key, value], ...]}``
a probe             ``{"$probe": kind, "data": ...}``: an input that records how
                    the answer uses it (:mod:`~kernelcourse.grading.model.probes`);
                    rebuilt only where asked (``decode(..., probes=True)``, the
                    worker reading its cases), refused in an answer's value
==================  ==========================================================

Decoding costs time linear in the size of the text: a set or dict whose values share hash
values (which would make building it quadratic) is refused, as is nesting deeper than
:data:`MAX_DEPTH`. Anything else (functions, generators, objects, complex numbers) raises
:class:`UnsupportedValue`, naming the type: a question's cases and its answers
are plain data.
"""
from __future__ import annotations

import json

import numpy as np

__all__ = ["UnsupportedValue", "encode", "decode", "dumps", "loads", "roundtrip"]

MAX_DEPTH = 20
_MAX_DEPTH = MAX_DEPTH


class UnsupportedValue(TypeError):
    """A value that cannot travel between the grader and its worker."""


def encode(obj, _depth: int = 0):
    """Return a JSON-ready form of ``obj`` (see the module docstring)."""
    if _depth > _MAX_DEPTH:
        raise UnsupportedValue(f"value nested deeper than {_MAX_DEPTH} levels")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, float)) and not isinstance(obj, np.generic):
        return int(obj) if isinstance(obj, int) else float(obj)
    if isinstance(obj, np.generic):
        if obj.dtype.kind in "biuf":
            return obj.item()
        raise UnsupportedValue(f"numpy scalar of dtype {obj.dtype} is not supported")
    if isinstance(obj, np.ndarray):
        arr = np.asarray(obj)
        if arr.dtype.kind not in "biuf":
            raise UnsupportedValue(
                f"numpy array of dtype {arr.dtype} is not supported (use bool, int or float)")
        return {"$nd": arr.dtype.str, "shape": list(arr.shape), "data": arr.ravel().tolist()}
    if isinstance(obj, tuple):
        return {"$tuple": [encode(v, _depth + 1) for v in obj]}
    if isinstance(obj, list):
        return [encode(v, _depth + 1) for v in obj]
    if isinstance(obj, (set, frozenset)):
        tag = "$frozenset" if isinstance(obj, frozenset) else "$set"
        return {tag: [encode(v, _depth + 1) for v in obj]}
    if isinstance(obj, dict):
        return {"$dict": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in obj.items()]}
    from .probes import Probe
    if isinstance(obj, Probe):
        return {"$probe": obj.kind, "data": encode(obj.spec(), _depth + 1)}
    raise UnsupportedValue(
        f"a value of type {type(obj).__name__} cannot be graded; return numbers, "
        "numpy arrays, or lists/tuples of them")


MAX_COLLISIONS = 64


def _unique_hashes(items: list, what: str) -> list:
    """``items`` (to become a set or dict keys), refused when many of them share a hash
    value: building the set would cost the grader time quadratic in their number."""
    hashes = set()
    for item in items:
        try:
            hashes.add(hash(item))
        except TypeError:
            raise UnsupportedValue(f"{what} holds an unhashable value") from None
    if len(items) - len(hashes) > MAX_COLLISIONS:
        raise UnsupportedValue(f"{what} holds {len(items) - len(hashes)} values whose hashes "
                               f"collide (at most {MAX_COLLISIONS})")
    return items


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, set):
        return frozenset(v)
    return v


def decode(obj, _depth: int = 0, probes: bool = False):
    """Inverse of :func:`encode` (values nested deeper than :data:`MAX_DEPTH` are refused).

    ``probes=True`` rebuilds probes (the worker reading its cases); otherwise a probe is
    refused (an answer's value is plain data)."""
    if _depth > MAX_DEPTH:
        raise UnsupportedValue(f"value nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, list):
        return [decode(v, _depth + 1, probes) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "$nd" in obj:
        dtype = np.dtype(obj["$nd"])
        if dtype.kind not in "biuf":
            raise UnsupportedValue(f"array of dtype {dtype} is not supported")
        return np.array(obj["data"], dtype=dtype).reshape(obj["shape"])
    if "$tuple" in obj:
        return tuple(decode(v, _depth + 1, probes) for v in obj["$tuple"])
    if "$probe" in obj:
        from .probes import PROBES
        if not probes or obj["$probe"] not in PROBES:
            raise UnsupportedValue("a probe is an input of the grader, not a value")
        return PROBES[obj["$probe"]].from_spec(decode(obj.get("data"), _depth + 1))
    if "$set" in obj:
        return set(_unique_hashes([_hashable(decode(v, _depth + 1)) for v in obj["$set"]],
                                  "a set"))
    if "$frozenset" in obj:
        return frozenset(_unique_hashes(
            [_hashable(decode(v, _depth + 1)) for v in obj["$frozenset"]], "a frozenset"))
    if "$dict" in obj:
        keys = _unique_hashes([_hashable(decode(k, _depth + 1)) for k, _ in obj["$dict"]],
                              "a dict")
        return dict(zip(keys, (decode(v, _depth + 1, probes) for _, v in obj["$dict"])))
    raise UnsupportedValue(f"unknown tagged value with keys {sorted(obj)[:3]}")


def dumps(obj) -> str:
    """Encode ``obj`` as one line of JSON text."""
    return json.dumps(encode(obj), separators=(",", ":"))


def loads(text: str, probes: bool = False):
    """Decode one line of JSON text written by :func:`dumps`."""
    return decode(json.loads(text), probes=probes)


def roundtrip(obj):
    """What ``obj`` becomes after a trip through the worker's format (probes rebuilt)."""
    return loads(dumps(obj), probes=True)
