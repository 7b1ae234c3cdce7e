"""Centering a Gram matrix on its sample's mean in feature space, without scikit-learn.

``center_gram`` is ``H K H`` with ``H = I - j j^T / m``, computed as ``K`` minus its row means,
minus its column means, plus its grand mean: O(m^2), no ``H`` formed. It lives here rather than
in :mod:`kernelcourse.feature_space` (which re-exports it) so that lecture 9's HSIC uses it
without loading that module's estimator classes, whose base classes import scikit-learn.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._validation import as_real, check_array_input

__all__ = ["center_gram", "centre_training_gram"]


def _centre_rows(K, out, row_shift, col_shift, rows, block):
    for start in range(rows.start, rows.stop, block):
        r = slice(start, min(start + block, rows.stop))
        np.subtract(K[r], col_shift[None, :], out=out[r])
        out[r] -= row_shift[r, None]


def _centre_in_blocks(K, row_shift, col_shift, block: int = 64, threads: int = 2) -> np.ndarray:
    """Return ``K[i, j] - row_shift[i] - col_shift[j]``.

    Blocks of ``block`` rows stay in cache between the two subtractions, so ``K``
    is read once and the result written once; large matrices are split into
    ``threads`` bands of rows handled in parallel (numpy releases the GIL).
    """
    out = np.empty_like(K)
    p = K.shape[0]
    if threads < 2 or K.size < 1_000_000:
        _centre_rows(K, out, row_shift, col_shift, slice(0, p), block)
        return out
    edges = np.linspace(0, p, threads + 1).astype(int)
    bands = [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lambda rows: _centre_rows(K, out, row_shift, col_shift, rows, block), bands))
    return out


def _row_and_column_means(K, block: int = 64):
    """Row means and column means of ``K`` in one read of the matrix.

    Each block of rows is read once, for its row sums and its share of the
    column sums, while it is in cache.
    """
    p, m = K.shape
    row_sums = np.empty(p)
    col_sums = np.zeros(m)
    ones = np.ones(max(m, block))
    for start in range(0, p, block):
        r = slice(start, min(start + block, p))
        row_sums[r] = K[r] @ ones[:m]
        col_sums += ones[: r.stop - r.start] @ K[r]
    return row_sums / m, col_sums / p


def _as_float_matrix(K, name):
    """``K`` as a 2-D float array, without the O(n^2) finiteness pass.

    The centering code reads every entry anyway through its row or column
    means; a NaN or inf shows up there, and is reported by :func:`_check_finite_means`.
    """
    arr = as_real(K, name)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"{name} must be a 2-D (p, m) array of kernel values; got shape {arr.shape}")
    return arr


def _check_finite_means(means, K, name):
    if not np.all(np.isfinite(means)):
        bad = np.argwhere(~np.isfinite(K))
        where = f" (first at row {bad[0][0]}, column {bad[0][1]})" if len(bad) else ""
        raise ValueError(f"{name} contains NaN or inf{where}")


def centre_training_gram(K, name: str = "K"):
    """``(H K H, column means, grand mean)`` of a square Gram matrix ``K`` (a float array, as
    :func:`_as_float_matrix` returns it), the row and the column means from one read of ``K``."""
    if K.shape[0] != K.shape[1]:
        bad = "" if np.all(np.isfinite(K)) else " that contains NaN or inf"
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {K.shape}{bad}")
    row_means, column_means = _row_and_column_means(K)
    _check_finite_means(column_means, K, name)
    grand_mean = float(column_means.mean())
    return _centre_in_blocks(K, row_means - grand_mean, column_means), column_means, grand_mean


def center_gram(K) -> np.ndarray:
    """The centered training Gram matrix.

    .. math:: \\hat K = K - \\frac1m (j j^T K + K j j^T) + \\frac1{m^2} (j^T K j)\\, j j^T

    computed from the row and column means in O(m^2). ``K`` is not modified.
    """
    return centre_training_gram(_as_float_matrix(check_array_input(K, "K"), "K"))[0]
