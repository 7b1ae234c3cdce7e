"""Relations of shape: one number for an array, a transpose, entries missing or too many,
lengths that are another input's axis."""
from __future__ import annotations

import numpy as np

_AGGREGATES = [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
               ("norm", np.linalg.norm), ("first entry", lambda e: e.flat[0]),
               ("last entry", lambda e: e.flat[-1])]


def _shape_hypotheses(p) -> dict:
    """The relations of a failing value whose shape is not the expected one (``p`` a
    :class:`~.values._Pair`)."""
    A, E = p.A, p.E
    found: dict = {}
    for name, X in p.arrays.items():
        if X.shape == A.shape and p.close(X):
            found[("input", name)] = None
            return found
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
    sliced = _slice_hypothesis(p)
    if sliced:
        found[sliced[0]] = sliced[1]
        return found
    if A.size == E.size and A.size > 1 and p.close(E, actual=A.reshape(E.shape)):
        found[("reshape",)] = A.shape
        return found
    names = tuple(frozenset(label for label, n in p.lengths.items() if n == size)
                  for size in A.shape)
    if A.ndim and all(names):
        found[("shape", names)] = (A.shape, E.shape)
    return found



def _axis_word(ndim: int, axis: int) -> str:
    if ndim == 1:
        return "entries"
    if ndim == 2:
        return ("rows", "columns")[axis]
    return f"slices along axis {axis}"


def _subsequence(short, long, close) -> list | None:
    """The indices of ``long`` whose items are ``short``'s, in order (the first match each
    time), or None when ``short`` is not a subsequence of ``long``."""
    matched, j = [], 0
    for item in short:
        while j < len(long) and not close(long[j], item):
            j += 1
        if j == len(long):
            return None
        matched.append(j)
        j += 1
    return matched


def _slice_hypothesis(p):
    """``(key, detail)`` when the answer is the expected array with whole rows, columns or
    entries (along one axis) left out or added, the others right and in order: a loop or a
    range one short, a feature left out, a term too many."""
    A, E = p.A, p.E
    if A.ndim != E.ndim or A.ndim == 0:
        return None
    differ = [k for k in range(A.ndim) if A.shape[k] != E.shape[k]]
    if len(differ) != 1 or min(A.shape[differ[0]], E.shape[differ[0]]) == 0:
        return None
    k = differ[0]
    Ak, Ek = np.moveaxis(A, k, 0), np.moveaxis(E, k, 0)
    missing = len(Ak) < len(Ek)
    short, long = (Ak, Ek) if missing else (Ek, Ak)
    matched = _subsequence(short, long, lambda x, y: p.close(x, actual=y))
    if matched is None:
        return None
    left = sorted(set(range(len(long))) - set(matched))
    m = len(left)
    where = ("end" if left == list(range(len(long) - m, len(long))) else
             "start" if left == list(range(m)) else "inside")
    return (("slices", "missing" if missing else "extra", _axis_word(A.ndim, k), where),
            (m, A.shape, E.shape))
