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

