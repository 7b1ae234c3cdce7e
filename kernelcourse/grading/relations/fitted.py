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

