"""Relations fitted over all the failing cases: one factor or one offset found from the values
(and checked on each), or one per case."""
from __future__ import annotations

import numpy as np


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



#: exponents a fitted power must not be (named elsewhere, or no change)
_NAMED_POWERS = (0.0, 1.0, 2.0, 0.5, -1.0)


def _fitted_power(pairs: list):
    """One exponent ``c`` with every answer value the expected one to the power ``c`` (a
    constant exponent changed: ``3 ** d`` for ``2 ** d``, a square root where a cube root
    is due), found from the values and checked on each; None unless the expected values are
    positive, two entries at least tell the exponent (an expected value of 1 tells none) and
    it holds on all."""
    if any(p.A.shape != p.E.shape or np.any(p.E <= 0) or np.any(p.A <= 0) for p in pairs):
        return None
    A = np.concatenate([p.A.ravel() for p in pairs])
    E = np.concatenate([p.E.ravel() for p in pairs])
    useful = np.abs(np.log(E)) > 1e-3
    if useful.sum() < 2:
        return None
    c = float(np.median(np.log(A[useful]) / np.log(E[useful])))
    if not np.isfinite(c) or any(abs(c - k) < 1e-6 for k in _NAMED_POWERS) or \
            not all(p.close(p.E ** c) for p in pairs):
        return None
    for a in range(2, 11):      # a whole base changed (3 ** d for 2 ** d): the exact ratio
        for b in range(2, 11):
            r = float(np.log(b) / np.log(a))
            if a != b and abs(r - c) < 1e-3 * abs(c) and all(p.close(p.E ** r) for p in pairs):
                return r
    for digits in (4, 6, 8, 10, 17):
        r = float(f"{c:.{digits}g}")
        if all(p.close(p.E ** r) for p in pairs):
            return r
    return c



def _terms(p) -> dict:
    """``{(form, label): t}``: the terms of one failing case that a mistake's size may follow,
    read from its inputs: a number argument ``x`` as x, x², 1/x or √x, a length or a count
    ``n`` as n, n², 1/n or n - 1."""
    out = {}
    for name, x in p.numbers.items():
        out[("x", name)], out[("x²", name)], out[("1/x", name)] = x, x * x, 1 / x
        if x > 0:
            out[("√x", name)] = x ** 0.5
    for label, n in p.lengths.items():
        if n > 0:
            out[("n", label)], out[("n²", label)], out[("1/n", label)] = n, n * n, 1 / n
            out[("n-1", label)] = n - 1
    return out


#: the values a term takes over the failing cases before a fit to it counts (with two, one
#: number per case fits one of the terms by chance: factors 2 and 3 on n = 5 and 7)
_TERM_VALUES = 3


def _fitted_terms(pairs: list, kind: str) -> list:
    """``[(form, label, c)]``: one number ``c`` with every answer value the expected one plus
    ``c`` times a term of its case's inputs (``kind="offset"``: a term proportional to
    ``lam`` missing or extra) or times ``c`` times the term (``kind="factor"``), found from
    the values and checked on each failing value; only terms that take three values at least
    over the failing cases (:data:`_TERM_VALUES`; one value is a constant, :func:`_fitted`'s)."""
    if len(pairs) < _TERM_VALUES or any(p.A.shape != p.E.shape or not np.all(np.isfinite(p.A))
                             for p in pairs):
        return []
    terms = [_terms(p) for p in pairs]
    found = []
    for term in terms[0]:
        if not all(term in t for t in terms[1:]):
            continue
        ts = [t[term] for t in terms]
        if len({_round(t) for t in ts}) < _TERM_VALUES or not all(np.isfinite(ts)) or 0 in ts:
            continue
        T = np.concatenate([np.full(p.E.size, t) for p, t in zip(pairs, ts)])
        A = np.concatenate([p.A.ravel() for p in pairs])
        E = np.concatenate([p.E.ravel() for p in pairs])
        X = T if kind == "offset" else T * E
        Y = A - E if kind == "offset" else A
        if not np.any(X):
            continue
        c = float(X @ Y / (X @ X))
        make = (lambda p, t, c: p.E + c * t) if kind == "offset" else \
            (lambda p, t, c: c * t * p.E)
        if c == 0 or not all(p.close(make(p, t, c)) for p, t in zip(pairs, ts)):
            continue
        for digits in (3, 4, 6, 8, 17):
            r = float(f"{c:.{digits}g}")
            if all(p.close(make(p, t, r)) for p, t in zip(pairs, ts)):
                break
        found.append((term[0], term[1], r))
    return found
