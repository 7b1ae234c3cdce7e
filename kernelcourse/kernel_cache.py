"""libsvm's kernel cache for SMO (7.6): rows of the Gram matrix computed when the solver first
asks for them, kept in an ``n x n`` array when it fits, else in an LRU cache of rows."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ._validation import gram
from .kernels import RBF, Linear

__all__ = ["GramRows", "MatrixRows"]


def _row_maker(kernel, X):
    """``(row, diag)``: a function giving row ``i`` of the Gram matrix, and its diagonal.

    The RBF and linear kernels get a row from the points' squared norms and one
    matrix-vector product; any other kernel is called on ``(X[i:i+1], X)``.
    """
    sq = np.einsum("ij,ij->i", X, X)
    if type(kernel) is RBF:
        gamma = float(kernel.gamma)

        def rbf_row(i):
            d = X @ X[i]
            d *= -2.0
            d += sq
            d += sq[i]
            np.maximum(d, 0.0, out=d)
            d *= -gamma
            return np.exp(d, out=d)
        return rbf_row, np.ones(X.shape[0])
    if type(kernel) is Linear:
        return (lambda i: X @ X[i]), sq

    def any_row(i):
        return gram(kernel, X[i:i + 1], X)[0]
    diag = np.asarray(kernel.diag(X), dtype=float) if hasattr(kernel, "diag") else \
        np.array([float(gram(kernel, X[i:i + 1])[0, 0]) for i in range(X.shape[0])])
    return any_row, diag


class GramRows:
    """Rows of a Gram matrix computed when SMO first asks for them, as libsvm does: kept
    for good in an ``n x n`` array when its ``8 n^2`` bytes fit ``cache_bytes``, else in
    an LRU cache of ``row_cache`` rows. ``computed`` counts the rows computed."""

    def __init__(self, kernel, X, cache_bytes, row_cache):
        n = X.shape[0]
        self.make, self.diag = _row_maker(kernel, X)
        self.computed = 0
        if n * n * 8 <= cache_bytes:
            self.K = np.empty((n, n))          # pages are only touched row by row
            self.have = np.zeros(n, dtype=bool)
        else:
            self.K = None
            self.cache = OrderedDict()
            self.size = row_cache

    def row(self, i):
        K = self.K
        if K is not None:
            if not self.have[i]:
                K[i] = self.make(i)
                self.have[i] = True
                self.computed += 1
            return K[i]
        cache = self.cache
        r = cache.get(i)
        if r is not None:
            cache.move_to_end(i)
            return r
        r = self.make(i)
        self.computed += 1
        cache[i] = r
        if len(cache) > self.size:
            cache.popitem(last=False)
        return r


class MatrixRows:
    """The rows of a Gram matrix given whole."""

    def __init__(self, K):
        self.K, self.diag, self.computed = K, np.diag(K).copy(), 0

    def row(self, i):
        return self.K[i]
