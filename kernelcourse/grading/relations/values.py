"""One failing value's relations: every relation with a fixed key (a named factor, an
offset, a power, an order, the only entries that differ...) that holds between the answer's
value and the expected one on one case (:func:`_hypotheses`)."""
from __future__ import annotations

import math

import numpy as np

from ..model.compare import values_match
from .shapes import _shape_hypotheses

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
    if np.any(E < -p.atol) and np.any(E > p.atol):    # values kept and values cut off
        if p.close(np.maximum(E, 0)):
            found[("clip", "below")] = None
        elif p.close(np.minimum(E, 0)):
            found[("clip", "above")] = None
    if np.any(np.abs(E) > 1 + p.atol) and np.any(np.abs(E) < 1 - p.atol) and \
            p.close(np.clip(E, -1, 1)):
        found[("clip", "unit")] = None
    for name, X in p.arrays.items():
        if X.shape == A.shape and p.close(X):
            found[("input", name)] = None
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
    """Only some entries differ, and which the shape or the inputs tell: the diagonal, the
    first or the last entry, row or column, or the entries where an input array of the same
    shape is negative, positive, zero or equal to a number argument (a boundary)."""
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
    elif E.ndim == 2 and min(E.shape) >= 2:
        for where, part in (("the first row", same[1:]), ("the last row", same[:-1]),
                            ("the first column", same[:, 1:]),
                            ("the last column", same[:, :-1])):
            if np.all(part):
                found[("only", where)] = None
    wrong = ~same
    for name, X in p.arrays.items():
        if X.shape != E.shape:
            continue
        tests = [("negative", X < 0), ("positive", X > 0), ("0", X == 0)] + \
            [(f"equal to {x_name}", X == x) for x_name, x in p.numbers.items()]
        for what, mask in tests:
            if mask.any() and not mask.all() and np.array_equal(mask, wrong):
                found[("only", f"where {name} is {what}")] = None


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

