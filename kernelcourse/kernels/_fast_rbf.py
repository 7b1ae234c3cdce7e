"""Fast Gram matrices of the RBF kernel: tiled, in cache, on one thread per core."""

from __future__ import annotations

import numpy as np


# ---------------------------------------------------------------------------
# Fast squared-distance Gram matrices
# ---------------------------------------------------------------------------

# The Gram matrix of the RBF kernel is cheap to multiply out but has n^2
# entries, each needing a few elementwise passes and one exp. Memory traffic
# over those n^2 entries, not the product X Z^T, dominates at small d, so:
# * row blocks of _ROWS rows are processed tile by tile while in cache, each
#   tile written once into the preallocated output (``out=`` everywhere);
# * for K(X, X) only the upper block triangle is computed and mirrored;
# * the blocks are shared among threads (numpy's ufuncs and BLAS release the
#   GIL), one per core.
# At small d the tile product X_I Z_J^T is one BLAS call on matrices augmented
# so that it yields -gamma ||x - z||^2 directly:
#   [2 gamma x, -gamma ||x||^2, -gamma] . [z, 1, ||z||^2] = -gamma ||x - z||^2.
# Tiles are kept below OpenBLAS's threshold for threading a product
# (m n k <= 262144), because nested BLAS threads on busy cores are far slower.
# At large d one multithreaded BLAS product fills the output first (for K(X, X)
# BLAS syrk fills one triangle only) and the threads then apply the elementwise
# steps row block by row block (for K(X, X) on that triangle, then mirror it).

_ROWS = 64
_BLAS_SERIAL = 262144
_MIN_COLS = 64
_POOL = None


def _pool():
    """A lazily created pool with one thread per available core (at most 8)."""
    global _POOL
    if _POOL is None:
        import os
        from concurrent.futures import ThreadPoolExecutor
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cores = os.cpu_count() or 1
        _POOL = ThreadPoolExecutor(max(1, min(cores, 8)), thread_name_prefix="kernelcourse-gram")
    return _POOL


def _run_blocks(task, n_rows, n_entries, rows=_ROWS):
    """Call ``task(i0, i1)`` over blocks of ``rows`` rows, on the pool when the matrix is large."""
    blocks = [(i0, min(i0 + rows, n_rows)) for i0 in range(0, n_rows, rows)]
    if n_entries < 1_000_000 or len(blocks) < 2:
        for i0, i1 in blocks:
            task(i0, i1)
    else:
        # list() re-raises any exception from a worker
        list(_pool().map(lambda block: task(*block), blocks))


def _rbf_fused(X, Z, gamma, K, symmetric):
    """Fill ``K`` tile by tile with one BLAS call per tile on augmented inputs."""
    d = X.shape[1]
    sqX = np.einsum("ij,ij->i", X, X)
    sqZ = sqX if symmetric else np.einsum("ij,ij->i", Z, Z)
    A = np.empty((X.shape[0], d + 2))
    np.multiply(X, 2.0 * gamma, out=A[:, :d])
    np.multiply(sqX, -gamma, out=A[:, d])
    A[:, d + 1] = -gamma
    B = np.empty((Z.shape[0], d + 2))
    B[:, :d] = Z
    B[:, d] = 1.0
    B[:, d + 1] = sqZ
    m = Z.shape[0]
    width = max(_MIN_COLS, _BLAS_SERIAL // (_ROWS * (d + 2)))

    def tile(i0, i1, j0, j1, buf):
        G = buf[:(i1 - i0) * (j1 - j0)].reshape(i1 - i0, j1 - j0)
        np.matmul(A[i0:i1], B[j0:j1].T, out=G)   # -gamma ||x - z||^2
        np.minimum(G, 0.0, out=G)                 # rounding may leave it > 0
        np.exp(G, out=K[i0:i1, j0:j1])

    def task(i0, i1):
        buf = np.empty(_ROWS * width)
        if symmetric:
            tile(i0, i1, i0, i1, buf)              # the diagonal block, made symmetric
            D = K[i0:i1, i0:i1]
            lower = np.tril_indices(i1 - i0, -1)
            D[lower] = D.T[lower]
            np.fill_diagonal(D, 1.0)
            first = i1
        else:
            first = 0
        for j0 in range(first, m, width):
            j1 = min(j0 + width, m)
            tile(i0, i1, j0, j1, buf)
            if symmetric:
                K[j0:j1, i0:i1] = K[i0:i1, j0:j1].T

    _run_blocks(task, X.shape[0], X.shape[0] * m)


def _rbf_from_product(X, Z, gamma):
    """``K(X, Z)`` from one BLAS product, then finished row block by row block."""
    root = np.sqrt(2.0 * gamma)
    K = (X * root) @ (Z * root).T                        # 2 gamma x . z
    sqX = gamma * np.einsum("ij,ij->i", X, X)
    sqZ = gamma * np.einsum("ij,ij->i", Z, Z)

    def task(i0, i1):
        T = K[i0:i1]
        T -= sqX[i0:i1, None]
        T -= sqZ[None, :]
        np.minimum(T, 0.0, out=T)
        np.exp(T, out=T)

    _run_blocks(task, X.shape[0], K.size, _rows_of_1mb(K.shape[1]))
    return K


def _rbf_from_syrk(X, gamma):
    """``K(X, X)`` from BLAS ``syrk`` (one triangle of ``2 gamma X X^T``), finished and mirrored."""
    from scipy.linalg import blas as _blas  # at the first Gram matrix: scipy.linalg takes a while

    n = X.shape[0]
    X = np.ascontiguousarray(X)
    # C = 2 gamma X X^T, upper triangle only, Fortran order; K = C^T is C-ordered
    # with its lower triangle filled
    K = _blas.dsyrk(2.0 * gamma, X.T, trans=1, lower=0).T
    sq = gamma * np.einsum("ij,ij->i", X, X)

    def task(i0, i1):
        T = K[i0:i1, :i1]                          # the filled part of these rows
        # gamma (||x||^2 + ||z||^2) as one sum: the diagonal block stays symmetric
        T -= np.add(sq[i0:i1, None], sq[None, :i1])
        np.minimum(T, 0.0, out=T)
        np.exp(T, out=T)
        K[:i0, i0:i1] = K[i0:i1, :i0].T            # mirror into the upper triangle
        D = K[i0:i1, i0:i1]
        upper = np.triu_indices(i1 - i0, 1)
        D[upper] = D.T[upper]
        np.fill_diagonal(D, 1.0)

    _run_blocks(task, n, n * n, _rows_of_1mb(n))
    return K


def _rows_of_1mb(n_columns):
    """Rows per block so that a block of the output holds about 1 MB (stays in cache)."""
    return int(np.clip(2 ** 17 // n_columns, 4, _ROWS))


def _rbf_gram(X, Z, gamma):
    """``exp(-gamma ||x - z||^2)`` for all pairs; ``Z=None`` means ``Z = X`` (symmetric).

    Never builds an ``(n, m, d)`` array; the only ``(n, m)`` array is the result.
    """
    symmetric = Z is None
    Z = X if symmetric else Z
    if (X.shape[1] + 2) * _ROWS * _MIN_COLS > _BLAS_SERIAL:
        return _rbf_from_syrk(X, gamma) if symmetric else _rbf_from_product(X, Z, gamma)
    K = np.empty((X.shape[0], Z.shape[0]))
    _rbf_fused(X, Z, gamma, K, symmetric)
    return K
