"""Relations read from the reference run on changed inputs: the answer is what the expected
value would be with two arguments swapped (``f(Z, X)`` for ``f(X, Z)``, ``k(y, X)``), with
a square input transposed (``K.T`` used for ``K``), or with one input changed as a mistake
changes it (:func:`_changes`): a number argument left out (as if it were 0 or 1), doubled,
halved, squared, square-rooted or of the other sign; a count one more or one less; the first
or the last row, column or entry of an array input left out.

Each is checked on every failing case: the reference on the changed inputs gives the answer's
value there (by the question's comparison) and differs from the expected one. A value of one
number or two is matched by a changed input by chance too often on one case: such values are
read only when three failing cases at least (:data:`FEW_CASES`) all agree."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..model.compare import values_match

#: failing cases enough to read changed inputs from values of one or two numbers
FEW_CASES = 3
#: a count is changed only up to this size (the reference's time grows with it)
_MAX_COUNT = 200

#: a number argument changed: (form, how)
_NUMBER_FORMS = [("0", lambda x: 0.0), ("1", lambda x: 1.0), ("2x", lambda x: 2 * x),
                 ("x/2", lambda x: x / 2), ("x²", lambda x: x * x),
                 ("√x", lambda x: math.sqrt(x) if x > 0 else None), ("-x", lambda x: -x)]


def _same_kind(a, b) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.ndim == b.ndim and a.dtype.kind in "biuf" and b.dtype.kind in "biuf"
    if _count(a) and _count(b):
        return True     # two small counts (k and m)
    # two floats (lam and gamma), never large integers: a count swapped in might run the
    # reference for a long time
    return isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating))


def _count(a) -> bool:
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) and \
        0 <= a <= _MAX_COUNT


def _variants(case, names):
    """``(key, args, kwargs)``: the case's inputs with two positional arguments of the same kind
    swapped, a square array argument transposed, or one argument changed (:func:`_changes`)."""
    args, kwargs = case.copied()
    label = lambda i: names[i] if i < len(names) else f"argument {i + 1}"
    for i in range(len(args)):
        for j in range(i + 1, len(args)):
            if _same_kind(args[i], args[j]) and not _equal(args[i], args[j]):
                swapped = list(args)
                swapped[i], swapped[j] = args[j], args[i]
                yield ("swapargs", label(i), label(j)), swapped, kwargs
        a = args[i]
        if isinstance(a, np.ndarray) and a.ndim == 2 and a.shape[0] == a.shape[1] >= 2 and \
                not np.allclose(a, a.T):
            changed = list(args)
            changed[i] = a.T.copy()
            yield ("tinput", label(i)), changed, kwargs
        for form, value in _changes(a):
            changed = list(args)
            changed[i] = value
            yield ("asif", label(i), form), changed, kwargs
    for name, a in kwargs.items():
        for form, value in _changes(a):
            yield ("asif", name, form), args, {**kwargs, name: value}


def _equal(a, b) -> bool:
    try:
        return bool(np.array_equal(a, b))
    except Exception:  # noqa: BLE001
        return False


def _changes(a):
    """``(form, value)``: the ways :func:`_variants` changes one argument ``a``."""
    if isinstance(a, (bool, np.bool_)):
        return
    if isinstance(a, (float, np.floating)) and math.isfinite(a) and a != 0:
        for form, f in _NUMBER_FORMS:
            v = f(float(a))
            if v is not None and v != a:
                yield form, type(a)(v)
    elif _count(a):
        yield "k+1", type(a)(a + 1)
        if a >= 1:
            yield "k-1", type(a)(a - 1)
    elif isinstance(a, np.ndarray) and a.dtype.kind in "biuf" and a.ndim in (1, 2) and \
            a.shape[0] >= 3:
        what = "row" if a.ndim == 2 else "entry"
        yield f"no first {what}", a[1:].copy()
        yield f"no last {what}", a[:-1].copy()
        if a.ndim == 2 and a.shape[1] >= 2:
            yield "no first column", a[:, 1:].copy()
            yield "no last column", a[:, :-1].copy()


def _size(value) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_size(v) for v in value)
    try:
        return int(np.size(value))
    except Exception:  # noqa: BLE001
        return 1


def input_hypotheses(question, case, actual, expected, names, only=None,
                     small=False) -> dict:
    """The keys of the changed-input relations that hold on one failing case: the reference on
    the changed inputs gives the answer's value (by the question's comparison) and differs
    from the expected one. ``only``: the keys still worth trying (those that held on the
    failing cases before), None for all; ``small``: a value of one or two numbers is read too
    (enough failing cases agree, :data:`FEW_CASES`), else only the swaps and transposes of
    values of three numbers at least, and no changed argument."""
    found: dict = {}
    if _size(expected) < 3 and not small:
        return found    # one number or two: a changed input matches them by chance too often
    if only is not None and not only:
        return found
    for key, args, kwargs in _variants(case, names):
        if only is not None and key not in only:
            continue
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
