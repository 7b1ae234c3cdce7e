"""Relations read from the reference run on changed inputs: the answer is what the expected
value would be with two arguments swapped (``f(Z, X)`` for ``f(X, Z)``, ``k(y, X)``), or with
a square input transposed (``K.T`` used for ``K``)."""
from __future__ import annotations

import warnings

import numpy as np

from ..model.compare import values_match


def _same_kind(a, b) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.ndim == b.ndim and a.dtype.kind in "biuf" and b.dtype.kind in "biuf"
    # two floats (lam and gamma), never integers: a count swapped in might run the reference
    # for a long time
    return isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating))


def _variants(case, names):
    """``(key, args, kwargs)``: the case's inputs with two positional arguments of the same kind
    swapped, or a square array argument transposed."""
    args, kwargs = case.copied()
    label = lambda i: names[i] if i < len(names) else f"argument {i + 1}"
    for i in range(len(args)):
        for j in range(i + 1, len(args)):
            if _same_kind(args[i], args[j]):
                swapped = list(args)
                swapped[i], swapped[j] = args[j], args[i]
                yield ("swapargs", label(i), label(j)), swapped, kwargs
        a = args[i]
        if isinstance(a, np.ndarray) and a.ndim == 2 and a.shape[0] == a.shape[1] >= 2 and \
                not np.allclose(a, a.T):
            changed = list(args)
            changed[i] = a.T.copy()
            yield ("tinput", label(i)), changed, kwargs


def _size(value) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_size(v) for v in value)
    try:
        return int(np.size(value))
    except Exception:  # noqa: BLE001
        return 1


def input_hypotheses(question, case, actual, expected, names) -> dict:
    """The keys of the changed-input relations that hold on one failing case: the reference on
    the changed inputs gives the answer's value (by the question's comparison) and differs
    from the expected one."""
    found: dict = {}
    if _size(expected) < 3:
        return found    # one number or two: a changed input matches them by chance too often
    for key, args, kwargs in _variants(case, names):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                other = question.reference(*args, **kwargs)
            other, _ = question.conform(other, expected)
        except Exception:  # noqa: BLE001 - the changed inputs are not valid ones: no relation
            continue
        try:
            if values_match(other, expected, question.rtol, question.atol)[0]:
                continue
            if values_match(actual, other, question.rtol, question.atol)[0]:
                found[key] = None
        except Exception:  # noqa: BLE001
            continue
    return found
