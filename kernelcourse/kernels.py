"""Kernels as objects, the rules that build new kernels, and PSD tools.

A kernel ``k`` is called as ``k(X, Z=None)`` and returns the Gram matrix
``K[i, j] = k(x_i, z_j)`` of shape ``(n_X, n_Z)``; ``Z`` defaults to ``X``.
``k.diag(X)`` gives ``k(x_i, x_i)`` without the full matrix, and where a
finite feature map exists ``k.features(X)`` returns it, so that
``k.features(X) @ k.features(Z).T`` equals ``k(X, Z)``.

Parameters follow scikit-learn's names and formulas (``gamma``, ``degree``,
``coef0``):

=============================  ==========================================
``Linear()``                   ``x . z``
``Polynomial(degree, gamma,``  ``(gamma x . z + coef0) ** degree``
``coef0)``
``RBF(gamma)``                 ``exp(-gamma ||x - z||^2)``
``Laplacian(gamma)``           ``exp(-gamma ||x - z||_1)``
``Exponential(gamma)``         ``exp(-gamma ||x - z||)``
``Sigmoid(gamma, coef0)``      ``tanh(gamma x . z + coef0)`` (not PSD in general)
``Delta()``                    ``1 if x == z else 0``
``AllSubsets()``               ``prod_k (1 + x_k z_k)``
``SetKernel()``                ``exp(|S n T|)`` on Python sets
=============================  ==========================================

The construction rules of the lectures are code: ``k1 + k2``, ``k1 * k2``,
``c * k`` (``c > 0``), :class:`Exp`, :class:`PolynomialOf`,
:class:`Scaled` (``f(x) k(x, z) f(z)``), :class:`Bilinear` (``x^T A z``),
:class:`Composed` (``k(phi(x), phi(z))``) and :class:`Normalized`.

The lectures' width parameters
------------------------------
The lecture notes write the Gaussian kernel's width in several ways;
:func:`gamma_from_sigma` turns each into scikit-learn's ``gamma`` of :class:`RBF`:

* ``'sigma2'``: ``exp(-||x - z||^2 / sigma^2)``, so ``gamma = 1 / sigma^2``.
  Lecture 1 (Weinberger's notes on kernels) writes the RBF kernel so.
* ``'two_sigma2'``: ``exp(-||x - z||^2 / (2 sigma^2))``, so
  ``gamma = 1 / (2 sigma^2)``. Lecture 3 (Shawe-Taylor's slides, the proof by
  normalising ``exp(<x, z> / sigma^2)``) and lecture 4 (the CIS 520 notes,
  ``f(x) exp(x^T x' / sigma^2) f(x')``) write it so.
  Lecture 1's exponential kernel ``exp(-||x - z|| / (2 sigma^2))`` takes the
  same conversion: ``Exponential(gamma=gamma_from_sigma(sigma, 'two_sigma2'))``.
* ``'gamma_divides'``: ``exp(-||x - z||^2 / gamma_lecture)``, the lecture's own
  ``gamma`` dividing the squared distance, so ``gamma = 1 / gamma_lecture``.
  Lecture 5 (Bagnell's scribed notes) writes it so.
* ``'sigma'``: ``exp(-dist / sigma)``, so ``gamma = 1 / sigma``: lecture 1's
  Laplacian kernel ``exp(-|x - z| / sigma)`` is
  ``Laplacian(gamma=gamma_from_sigma(sigma, 'sigma'))``.

Lecture 2 (De Sa's notes) already writes scikit-learn's forms,
``exp(-gamma ||x - z||^2)``, ``(gamma x^T y + r)^d`` and ``tanh(gamma x^T y + r)``:
its ``gamma`` and ``r`` are ``gamma`` and ``coef0`` here, unchanged.

The PSD tools are :func:`is_psd`, :func:`min_eigenvalue` and
:func:`find_non_psd_witness`.
"""
from __future__ import annotations

import inspect
import numbers
from collections import namedtuple

import numpy as np
from scipy.linalg import blas as _blas
from scipy.spatial.distance import cdist

from ._validation import (as_2d, as_pair, check_nonnegative, check_positive,
                          check_positive_int, check_square)
from . import features as _features

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Laplacian", "Exponential",
    "Sigmoid", "Delta", "AllSubsets", "SetKernel",
    "Sum", "Product", "ConstantScaled", "Exp", "PolynomialOf", "Scaled",
    "FunctionScaled", "Bilinear", "Composed", "Normalized",
    "gamma_from_sigma", "is_psd", "min_eigenvalue", "find_non_psd_witness",
    "Witness",
]


def _check_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {name}={value!r}")
    return float(value)


def _fmt(value):
    """Format a real parameter for a repr as a float, as Python prints it."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _is_point(x):
    """Whether ``x`` is one point: a 1-D array (or list) of numbers."""
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and x.dtype.kind in "biuf"
    return (isinstance(x, (list, tuple)) and len(x) > 0
            and all(isinstance(v, numbers.Real) for v in x))


def _no_features(kernel):
    return NotImplementedError(
        f"{kernel!r} has no finite explicit feature map in kernelcourse; "
        "use its Gram matrix k(X, Z) instead")


def _tensor_rows(F1, F2):
    """Row-wise tensor product: row i is vec(F1[i] outer F2[i]), shape (n, D1 * D2)."""
    n = F1.shape[0]
    return (F1[:, :, None] * F2[:, None, :]).reshape(n, F1.shape[1] * F2.shape[1])


class Kernel:
    """Base class: a kernel ``k(x, z)`` evaluated on whole data sets.

    Subclasses implement ``_gram(X, Z, symmetric)`` on validated 2-D arrays
    and ``_diag(X)``; those with a finite feature map implement
    ``_features(X)`` and ``feature_dim(d)``.
    """

    # -- parameters, the protocol of scikit-learn's estimators (and of its
    # Gaussian-process kernels): the constructor stores each argument untouched
    # under its own name, so that ``clone``, ``get_params`` and ``set_params``
    # (with ``k1__gamma`` reaching into the parts of a composed kernel) work.

    @classmethod
    def _param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        return [p.name for p in inspect.signature(init).parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep=True):
        """The constructor's arguments by name; with ``deep``, also the parts' (``k1__gamma``)."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", v) for key, v in value.get_params().items())
        return out

    def set_params(self, **params):
        """Set parameters by name (``gamma=0.5``, ``k1__gamma=0.5``); returns ``self``.

        The new values are checked as the constructor checks them.
        """
        if not params:
            return self
        valid = self._param_names()
        direct, nested = {}, {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for kernel {self!r}; "
                                 f"valid parameters: {valid}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                direct[name] = value
        old = {name: getattr(self, name) for name in direct}
        try:
            for name, value in direct.items():
                setattr(self, name, value)
            self._check_params()
        except (TypeError, ValueError):
            for name, value in old.items():   # an invalid value leaves the kernel as it was
                setattr(self, name, value)
            raise
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def _check_params(self):
        """Check the parameters (called by ``__init__`` and ``set_params``); raise if invalid."""

    def __call__(self, X, Z=None):
        """Gram matrix ``K[i, j] = k(x_i, z_j)`` of shape ``(n_X, n_Z)``.

        Parameters
        ----------
        X : array-like of shape (n_X, d)
        Z : array-like of shape (n_Z, d), optional
            Defaults to ``X`` (then ``K`` is symmetric and computed as such).

        Two 1-D arrays ``x`` and ``z`` of the same length are one pair of points:
        ``k(x, z)`` is then the number ``k(x, z)``. This is how scikit-learn's
        ``pairwise_kernels`` (used by its ``KernelRidge``) calls a callable kernel.
        """
        if Z is not None and _is_point(X) and _is_point(Z):
            return float(self._call(np.reshape(X, (1, -1)), np.reshape(Z, (1, -1)))[0, 0])
        return self._call(X, Z)

    def _call(self, X, Z):
        symmetric = Z is None or Z is X
        X, Z = as_pair(X, None if symmetric else Z)
        return self._gram(X, Z, symmetric)

    def diag(self, X):
        """``k(x_i, x_i)`` for every row of ``X``, shape ``(n,)``, without the Gram matrix."""
        return self._diag(as_2d(X))

    def features(self, X):
        """Explicit feature map ``phi(X)`` of shape ``(n, D)`` with ``phi(X) phi(Z)^T = k(X, Z)``.

        Raises
        ------
        NotImplementedError
            If the kernel has no finite feature map.
        """
        return self._features(as_2d(X))

    def _features(self, X):
        raise _no_features(self)

    def feature_dim(self, d):
        """Dimension ``D`` of :meth:`features` for inputs with ``d`` features."""
        raise _no_features(self)

    # construction rules as operators
    def __add__(self, other):
        if isinstance(other, Kernel):
            return Sum(self, other)
        return NotImplemented

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return ConstantScaled(other, self)
        return NotImplemented

    __rmul__ = __mul__

    def __repr__(self):
        return f"{type(self).__name__}()"


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


# ---------------------------------------------------------------------------
# Kernels on vectors
# ---------------------------------------------------------------------------

class Linear(Kernel):
    """Linear kernel ``k(x, z) = x . z = <x, z>``; its feature map is ``phi(x) = x``."""

    def _gram(self, X, Z, symmetric):
        return X @ Z.T

    def _diag(self, X):
        return np.einsum("ij,ij->i", X, X)

    def _features(self, X):
        return X.copy()

    def feature_dim(self, d):
        return check_positive_int(d, "d")


class Polynomial(Kernel):
    """Polynomial kernel ``k(x, z) = (gamma x . z + coef0) ** degree`` (scikit-learn's form).

    The lectures' ``(<x, z> + R)^p`` is ``Polynomial(degree=p, gamma=1.0, coef0=R)``;
    ``(<x, z>)^p`` is ``coef0=0``.

    Parameters
    ----------
    degree : int >= 1
    gamma : float > 0, default 1.0
    coef0 : float, default 1.0
        The explicit feature map (:func:`kernelcourse.features.polynomial_map`)
        needs ``coef0 >= 0``; the kernel is PSD then.
    """

    def __init__(self, degree, gamma=1.0, coef0=1.0):
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self._check_params()

    def _check_params(self):
        check_positive_int(self.degree, "degree")
        check_positive(self.gamma, "gamma")
        _check_real(self.coef0, "coef0")

    def _gram(self, X, Z, symmetric):
        K = X @ Z.T
        K *= self.gamma
        K += self.coef0
        return K ** self.degree

    def _diag(self, X):
        return (self.gamma * np.einsum("ij,ij->i", X, X) + self.coef0) ** self.degree

    def _features(self, X):
        return _features.polynomial_map(X, self.degree, self.gamma, self.coef0)

    def feature_dim(self, d):
        return _features.feature_dim_polynomial(d, self.degree)

    def __repr__(self):
        return (f"Polynomial(degree={self.degree}, gamma={_fmt(self.gamma)}, "
                f"coef0={_fmt(self.coef0)})")


class _GammaKernel(Kernel):
    """Shared parts of the kernels with a single positive ``gamma``."""

    def __init__(self, gamma=1.0):
        self.gamma = gamma
        self._check_params()

    def _check_params(self):
        check_positive(self.gamma, "gamma")

    def _diag(self, X):
        return np.ones(X.shape[0])

    def __repr__(self):
        return f"{type(self).__name__}(gamma={_fmt(self.gamma)})"


class _DistanceKernel(_GammaKernel):
    """``exp(-gamma dist(x, z))`` for the scipy ``cdist`` metric named by ``_metric``."""

    _metric = None

    def _gram(self, X, Z, symmetric):
        K = cdist(X, Z, self._metric)
        K *= -self.gamma
        return np.exp(K, out=K)


class RBF(_GammaKernel):
    """Gaussian (RBF) kernel ``k(x, z) = exp(-gamma ||x - z||^2)``.

    The lectures' ``exp(-||x - z||^2 / (2 sigma^2))`` is
    ``RBF(gamma=1 / (2 sigma^2))``, their ``exp(-||x - z||^2 / sigma^2)`` is
    ``RBF(gamma=1 / sigma^2)``; see :func:`gamma_from_sigma`.

    Examples
    --------
    >>> import numpy as np
    >>> RBF(gamma=0.5)(np.array([[0.0, 0.0], [1.0, 1.0]])).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])

    Like scikit-learn's ``rbf_kernel``, the squared distance is expanded as
    ``||x||^2 - 2 x . z + ||z||^2`` and clipped at 0 (so far-out near-duplicates
    lose digits to cancellation, as there). The Gram matrix is computed in
    cache-sized blocks, on one thread per core, and by symmetry when ``Z`` is
    omitted (then ``K`` is exactly symmetric with unit diagonal); it never
    builds an ``(n, n, d)`` array.

    Parameters
    ----------
    gamma : float > 0, default 1.0
    """

    def _gram(self, X, Z, symmetric):
        return _rbf_gram(X, None if symmetric else Z, self.gamma)


class Laplacian(_DistanceKernel):
    """Laplacian kernel ``k(x, z) = exp(-gamma ||x - z||_1)`` (L1 distance, scikit-learn's form).

    Lecture 1 writes it ``exp(-|x - z| / sigma)``: ``gamma = 1 / sigma``
    (``gamma_from_sigma(sigma, 'sigma')``).

    Parameters
    ----------
    gamma : float > 0, default 1.0
    """

    _metric = "cityblock"


class Exponential(_DistanceKernel):
    """Exponential kernel ``k(x, z) = exp(-gamma ||x - z||)`` (Euclidean distance, not squared).

    Lecture 1 writes it ``exp(-||x - z|| / (2 sigma^2))``: ``gamma = 1 / (2 sigma^2)``
    (``gamma_from_sigma(sigma, 'two_sigma2')``).

    Parameters
    ----------
    gamma : float > 0, default 1.0
    """

    _metric = "euclidean"


class Sigmoid(Kernel):
    """Sigmoid kernel ``k(x, z) = tanh(gamma x . z + coef0)`` (scikit-learn's form).

    Not positive semi-definite for many parameters (for instance ``coef0 < 0``);
    :func:`find_non_psd_witness` finds points that show it.

    Parameters
    ----------
    gamma : float > 0, default 1.0
    coef0 : float, default 0.0
    """

    def __init__(self, gamma=1.0, coef0=0.0):
        self.gamma = gamma
        self.coef0 = coef0
        self._check_params()

    def _check_params(self):
        check_positive(self.gamma, "gamma")
        _check_real(self.coef0, "coef0")

    def _gram(self, X, Z, symmetric):
        K = X @ Z.T
        K *= self.gamma
        K += self.coef0
        return np.tanh(K, out=K)

    def _diag(self, X):
        return np.tanh(self.gamma * np.einsum("ij,ij->i", X, X) + self.coef0)

    def __repr__(self):
        return f"Sigmoid(gamma={_fmt(self.gamma)}, coef0={_fmt(self.coef0)})"


class Delta(Kernel):
    """Kronecker delta kernel ``k(x, z) = 1 if x == z (every coordinate equal) else 0``.

    Its Gram matrix on distinct points is the identity.
    """

    def _gram(self, X, Z, symmetric):
        equal = np.ones((X.shape[0], Z.shape[0]), dtype=bool)
        for k in range(X.shape[1]):
            equal &= X[:, k, None] == Z[None, :, k]
        return equal.astype(float)

    def _diag(self, X):
        return np.ones(X.shape[0])


class AllSubsets(Kernel):
    """All-subsets kernel ``k(x, z) = prod_k (1 + x_k z_k)``.

    It is the inner product of the ``2^d`` features ``phi_A(x) = prod_{k in A} x_k``,
    one per subset ``A`` of the ``d`` coordinates
    (:func:`kernelcourse.features.all_subsets_map`), computed in ``O(d)`` per pair.
    """

    def _gram(self, X, Z, symmetric):
        K = np.ones((X.shape[0], Z.shape[0]))
        for k in range(X.shape[1]):
            K *= 1.0 + np.outer(X[:, k], Z[:, k])
        return K

    def _diag(self, X):
        return np.prod(1.0 + X * X, axis=1)

    def _features(self, X):
        return _features.all_subsets_map(X)

    def feature_dim(self, d):
        return _features.feature_dim_all_subsets(d)


def _as_sets(S, name):
    """Validate a sequence of Python sets or frozensets; return it as a list."""
    if isinstance(S, (set, frozenset)):
        raise TypeError(f"{name} must be a sequence of sets (one per sample); got a single "
                        f"{type(S).__name__}; wrap it in a list")
    if isinstance(S, np.ndarray) or not isinstance(S, (list, tuple)):
        shape = f" with shape {S.shape}" if isinstance(S, np.ndarray) else ""
        raise TypeError(f"{name} must be a list or tuple of Python sets; "
                        f"got {type(S).__name__}{shape}")
    if len(S) == 0:
        raise ValueError(f"{name} must hold at least one set; got an empty {type(S).__name__}")
    for i, s in enumerate(S):
        if not isinstance(s, (set, frozenset)):
            raise TypeError(f"{name}[{i}] must be a set or frozenset; "
                            f"got {type(s).__name__}: {s!r}")
    return list(S)


class SetKernel(Kernel):
    """Kernel on finite sets ``k(S, T) = exp(|S n T|)`` (size of the intersection).

    Inputs are lists (or tuples) of Python ``set``/``frozenset`` objects, one per
    sample, not 2-D arrays. ``|S n T|`` is computed for all pairs at once as
    ``B_S B_T^T`` with 0/1 membership matrices over the union of the elements.
    """

    def __call__(self, S, T=None):
        S = _as_sets(S, "S")
        T = S if T is None else _as_sets(T, "T")
        return np.exp(self._intersections(S, T))

    def diag(self, S):
        S = _as_sets(S, "S")
        return np.exp(np.array([len(s) for s in S], dtype=float))

    def features(self, S):
        raise _no_features(self)

    @staticmethod
    def _intersections(S, T):
        universe = {}
        for s in list(S) + list(T):
            for u in s:
                universe.setdefault(u, len(universe))

        def membership(sets):
            B = np.zeros((len(sets), max(len(universe), 1)))
            for i, s in enumerate(sets):
                B[i, [universe[u] for u in s]] = 1.0
            return B

        return membership(S) @ membership(T).T


# ---------------------------------------------------------------------------
# Construction rules
# ---------------------------------------------------------------------------

def _check_kernel(k, name="k"):
    if not isinstance(k, Kernel):
        raise TypeError(f"{name} must be a kernelcourse Kernel; got {type(k).__name__}: {k!r}")
    return k


def _child_features(parent, child, X):
    """``child.features(X)``; without a finite map, the error names parent and child."""
    try:
        return child.features(X)
    except NotImplementedError:
        raise NotImplementedError(
            f"{parent!r} has no finite explicit feature map in kernelcourse, because "
            f"{child!r} has none; use its Gram matrix k(X, Z) instead") from None


def _child_dim(parent, child, d):
    """``child.feature_dim(d)``; without a finite map, the error names parent and child."""
    try:
        return child.feature_dim(d)
    except NotImplementedError:
        raise NotImplementedError(
            f"{parent!r} has no finite explicit feature map in kernelcourse, because "
            f"{child!r} has none") from None


def _wrap(k, loose=()):
    """repr of a child kernel, parenthesised when it binds more loosely."""
    text = repr(k)
    return f"({text})" if isinstance(k, loose) else text


class _Combination(Kernel):
    """A rule that combines two kernels ``k1`` and ``k2`` (the sum and the product)."""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k1, "k1")
        _check_kernel(self.k2, "k2")


class Sum(_Combination):
    """Sum ``k(x, z) = k1(x, z) + k2(x, z)``; its features concatenate ``[phi1(x), phi2(x)]``."""

    def _call(self, X, Z):
        return self.k1(X, Z) + self.k2(X, Z)

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)

    def features(self, X):
        F1, F2 = _child_features(self, self.k1, X), _child_features(self, self.k2, X)
        return np.hstack([F1, F2])

    def feature_dim(self, d):
        return _child_dim(self, self.k1, d) + _child_dim(self, self.k2, d)

    def __repr__(self):
        return f"{self.k1!r} + {self.k2!r}"


class Product(_Combination):
    """Product ``k(x, z) = k1(x, z) k2(x, z)``; its features are the tensor product
    ``phi1(x) (x) phi2(x)`` of dimension ``D1 * D2``."""

    def _call(self, X, Z):
        return self.k1(X, Z) * self.k2(X, Z)

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)

    def features(self, X):
        F1, F2 = _child_features(self, self.k1, X), _child_features(self, self.k2, X)
        return _tensor_rows(F1, F2)

    def feature_dim(self, d):
        return _child_dim(self, self.k1, d) * _child_dim(self, self.k2, d)

    def __repr__(self):
        return f"{_wrap(self.k1, (Sum,))} * {_wrap(self.k2, (Sum, Product, ConstantScaled))}"


class ConstantScaled(Kernel):
    """Scaling by a constant ``k(x, z) = c k1(x, z)`` with ``c > 0``; written ``c * k1``.

    Its features are ``sqrt(c) phi1(x)``.
    """

    def __init__(self, c, k):
        self.c = c
        self.k = k
        self._check_params()

    def _check_params(self):
        check_positive(self.c, "c")
        _check_kernel(self.k)

    def _call(self, X, Z):
        return self.c * self.k(X, Z)

    def diag(self, X):
        return self.c * self.k.diag(X)

    def features(self, X):
        return np.sqrt(self.c) * _child_features(self, self.k, X)

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def __repr__(self):
        return f"{_fmt(self.c)} * {_wrap(self.k, (Sum,))}"


class Exp(Kernel):
    """Exponential of a kernel ``k(x, z) = exp(k1(x, z))`` (elementwise).

    A limit of polynomials with positive coefficients, so a kernel; its feature
    space is infinite-dimensional.
    """

    def __init__(self, k):
        self.k = k
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)

    def _call(self, X, Z):
        return np.exp(self.k(X, Z))

    def diag(self, X):
        return np.exp(self.k.diag(X))

    def features(self, X):
        raise _no_features(self)

    def __repr__(self):
        return f"Exp({self.k!r})"


class PolynomialOf(Kernel):
    """Polynomial of a kernel ``k(x, z) = sum_i coeffs[i] * k1(x, z) ** i`` (elementwise).

    Parameters
    ----------
    k : Kernel
    coeffs : sequence of float >= 0
        ``coeffs[0]`` is the constant term, ``coeffs[i]`` multiplies ``k1 ** i``.
        Non-negative coefficients keep the result a kernel.

    Its features stack ``sqrt(coeffs[i])`` times the ``i``-fold tensor power of
    ``phi1``, dimension ``sum_i D1 ** i``.
    """

    def __init__(self, k, coeffs):
        self.k = k
        self.coeffs = coeffs
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        coeffs = self.coeffs
        try:
            arr = np.asarray(coeffs, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"coeffs must be a sequence of numbers; got {coeffs!r}") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"coeffs must be a non-empty 1-D sequence; got shape {arr.shape}")
        bad = [(i, float(c)) for i, c in enumerate(arr) if not np.isfinite(c) or c < 0]
        if bad:
            i, c = bad[0]
            raise ValueError(f"coeffs must be finite and non-negative for the result to be a "
                             f"kernel; got coeffs[{i}]={c!r}")
        self._coeffs = tuple(float(c) for c in arr)

    def _evaluate(self, K):
        out = np.zeros_like(K)
        power = np.ones_like(K)
        for i, c in enumerate(self._coeffs):
            if i > 0:
                power = power * K
            out += c * power
        return out

    def _call(self, X, Z):
        return self._evaluate(self.k(X, Z))

    def diag(self, X):
        return self._evaluate(self.k.diag(X))

    def features(self, X):
        F = _child_features(self, self.k, X)
        blocks, power = [], np.ones((F.shape[0], 1))
        for i, c in enumerate(self._coeffs):
            if i > 0:
                power = _tensor_rows(power, F)
            blocks.append(np.sqrt(c) * power)
        return np.hstack(blocks)

    def feature_dim(self, d):
        D = _child_dim(self, self.k, d)
        return sum(D ** i for i in range(len(self._coeffs)))

    def __repr__(self):
        return f"PolynomialOf({self.k!r}, coeffs={self._coeffs!r})"


def _func_name(f):
    return getattr(f, "__name__", type(f).__name__)


class Scaled(Kernel):
    """Function scaling ``k(x, z) = f(x) k1(x, z) f(z)`` for any real function ``f``.

    Parameters
    ----------
    k : Kernel
    f : callable
        Maps a 2-D array ``X`` of shape ``(n, d)`` to a 1-D array of ``n`` values.

    Its features are ``f(x) phi1(x)``. Also available as ``FunctionScaled``.
    """

    def __init__(self, k, f):
        self.k = k
        self.f = f
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        if not callable(self.f):
            raise TypeError(f"f must be callable, mapping X of shape (n, d) to n values; "
                            f"got {type(self.f).__name__}")

    def _f(self, X):
        X = as_2d(X)
        fX = np.asarray(self.f(X), dtype=float)
        if fX.shape not in ((X.shape[0],), (X.shape[0], 1)):
            raise ValueError(f"f must return one value per row of X (shape ({X.shape[0]},)); "
                             f"got shape {fX.shape} for X with shape {X.shape}")
        return fX.reshape(-1)

    def _call(self, X, Z):
        fX = self._f(X)
        fZ = fX if Z is None else self._f(Z)
        return fX[:, None] * self.k(X, Z) * fZ[None, :]

    def diag(self, X):
        return self._f(X) ** 2 * self.k.diag(X)

    def features(self, X):
        return self._f(X)[:, None] * _child_features(self, self.k, X)

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def __repr__(self):
        return f"Scaled({self.k!r}, f={_func_name(self.f)})"


FunctionScaled = Scaled


class Bilinear(Kernel):
    """Bilinear kernel ``k(x, z) = x^T A z`` for a symmetric PSD matrix ``A``.

    Its features are ``L^T x`` with ``A = L L^T`` (``L = V sqrt(Lambda)`` from the
    eigendecomposition of ``A``), dimension ``d``.

    Parameters
    ----------
    A : array-like of shape (d, d), symmetric positive semi-definite
    """

    def __init__(self, A):
        self.A = A
        self._check_params()

    def _check_params(self):
        A = check_square(self.A, "A")
        if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(A).max())):
            asym = np.abs(A - A.T).max()
            raise ValueError(f"A must be symmetric; got max |A - A^T| = {asym:.3g}")
        lam = np.linalg.eigvalsh(A)
        if lam[0] < -_default_tol(lam, A.shape[0]):
            raise ValueError(f"A must be positive semi-definite; its smallest eigenvalue is "
                             f"{lam[0]:.6g}")
        self._A = A.copy()   # a private copy: later changes to the caller's array do not leak in

    def _check_dim(self, X, name="X"):
        if X.shape[1] != self._A.shape[0]:
            raise ValueError(f"{name} must have {self._A.shape[0]} features to match A with "
                             f"shape {self._A.shape}; got {name} with shape {X.shape}")

    def _gram(self, X, Z, symmetric):
        self._check_dim(X)
        return X @ self._A @ Z.T

    def _diag(self, X):
        self._check_dim(X)
        return np.einsum("ij,jk,ik->i", X, self._A, X)

    def _features(self, X):
        self._check_dim(X)
        lam, V = np.linalg.eigh(self._A)
        L = V * np.sqrt(np.clip(lam, 0.0, None))
        return X @ L

    def feature_dim(self, d):
        d = check_positive_int(d, "d")
        if d != self._A.shape[0]:
            raise ValueError(f"d must be {self._A.shape[0]} to match A with shape "
                             f"{self._A.shape}; got d={d}")
        return d

    def __repr__(self):
        if self._A.size <= 9:
            return f"Bilinear(A={self._A.tolist()})"
        return f"Bilinear(A=<{self._A.shape[0]}x{self._A.shape[1]} matrix>)"


class Composed(Kernel):
    """Composition with a map ``k(x, z) = k1(phi(x), phi(z))``.

    Parameters
    ----------
    k : Kernel
        The kernel applied after the map.
    phi : callable
        Maps the inputs (e.g. an array of shape ``(n, d)``) to what ``k`` takes,
        one row per sample.

    Its features are ``phi1(phi(x))`` when ``k`` has a finite map.
    """

    def __init__(self, k, phi):
        self.k = k
        self.phi = phi
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        if not callable(self.phi):
            raise TypeError(f"phi must be callable; got {type(self.phi).__name__}")

    def _call(self, X, Z):
        return self.k(self.phi(X), None if Z is None else self.phi(Z))

    def diag(self, X):
        return self.k.diag(self.phi(X))

    def features(self, X):
        return _child_features(self, self.k, self.phi(X))

    def feature_dim(self, d):
        d = check_positive_int(d, "d")
        mapped = np.asarray(self.phi(np.zeros((1, d))))
        return _child_dim(self, self.k, mapped.shape[1])

    def __repr__(self):
        return f"Composed({self.k!r}, phi={_func_name(self.phi)})"


class Normalized(Kernel):
    """Normalised kernel ``k(x, z) = k1(x, z) / sqrt(k1(x, x) k1(z, z))``.

    The cosine of the angle between ``phi1(x)`` and ``phi1(z)``: unit diagonal.
    Its features are ``phi1(x) / ||phi1(x)||``.
    """

    def __init__(self, k):
        self.k = k
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)

    def _norms(self, X, name):
        d = self.k.diag(X)
        if np.any(d <= 0):
            i = int(np.argmax(d <= 0))
            raise ValueError(f"cannot normalise {self.k!r}: k(x, x) = {float(d[i])!r} <= 0 "
                             f"at row {i} of {name}")
        return np.sqrt(d)

    def _call(self, X, Z):
        nX = self._norms(X, "X")
        nZ = nX if Z is None else self._norms(Z, "Z")
        return self.k(X, Z) / nX[:, None] / nZ[None, :]

    def diag(self, X):
        self._norms(X, "X")
        return np.ones(len(X))

    def features(self, X):
        return _child_features(self, self.k, X) / self._norms(X, "X")[:, None]

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def __repr__(self):
        return f"Normalized({self.k!r})"


# ---------------------------------------------------------------------------
# The lectures' sigma forms
# ---------------------------------------------------------------------------

_SIGMA_FORMS = {
    "sigma2": "exp(-||x-z||^2 / sigma^2) -> gamma = 1 / sigma^2",
    "two_sigma2": "exp(-||x-z||^2 / (2 sigma^2)) -> gamma = 1 / (2 sigma^2)",
    "gamma_divides": "exp(-||x-z||^2 / gamma_lecture) -> gamma = 1 / gamma_lecture",
    "sigma": "exp(-dist / sigma) -> gamma = 1 / sigma",
}


def gamma_from_sigma(sigma, form):
    """Convert a lecture's Gaussian width into scikit-learn's ``gamma`` for :class:`RBF`.

    Parameters
    ----------
    sigma : float > 0
        The width as the lecture writes it (for ``'gamma_divides'`` the lecture's
        own ``gamma``).
    form : {'sigma2', 'two_sigma2', 'gamma_divides', 'sigma'}
        ``'sigma2'``: ``exp(-||x - z||^2 / sigma^2)`` gives ``1 / sigma^2`` (lecture 1);
        ``'two_sigma2'``: ``exp(-||x - z||^2 / (2 sigma^2))`` gives ``1 / (2 sigma^2)``
        (lectures 3 and 4);
        ``'gamma_divides'``: ``exp(-||x - z||^2 / gamma)`` gives ``1 / gamma`` (lecture 5);
        ``'sigma'``: ``exp(-dist / sigma)`` gives ``1 / sigma`` (lecture 1's Laplacian,
        for :class:`Laplacian` or :class:`Exponential`).

    Returns
    -------
    float
        ``gamma`` such that ``RBF(gamma)`` (or the kernel named above) is the
        lecture's kernel.

    Examples
    --------
    >>> gamma_from_sigma(2.0, "two_sigma2")
    0.125
    """
    sigma = check_positive(sigma, "sigma")
    if form == "sigma2":
        return 1.0 / sigma ** 2
    if form == "two_sigma2":
        return 1.0 / (2.0 * sigma ** 2)
    if form in ("gamma_divides", "sigma"):
        return 1.0 / sigma
    raise ValueError(f"form must be one of {sorted(_SIGMA_FORMS)}; got form={form!r}")


# ---------------------------------------------------------------------------
# PSD tools
# ---------------------------------------------------------------------------

def _default_tol(eigenvalues, n):
    """``1e-10 * max(1, max |eigenvalue|) * n``: the default PSD tolerance."""
    return 1e-10 * max(1.0, float(np.max(np.abs(eigenvalues)))) * n


def _check_symmetric(K, name="K"):
    scale = max(1.0, float(np.abs(K).max()))
    asym = float(np.abs(K - K.T).max())
    return asym <= 1e-10 * scale, asym


def min_eigenvalue(K):
    """Smallest eigenvalue of a symmetric Gram matrix ``K``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Must be symmetric (up to ``1e-10`` relative to its largest entry).

    Returns
    -------
    float
    """
    K = check_square(K)
    ok, asym = _check_symmetric(K)
    if not ok:
        raise ValueError(f"K must be symmetric; got max |K - K^T| = {asym:.3g} for shape {K.shape}")
    return float(np.linalg.eigvalsh((K + K.T) / 2)[0])


def is_psd(K, tol=None):
    """Whether ``K`` is symmetric positive semi-definite.

    ``K`` passes when it is symmetric (``max |K - K^T| <= 1e-10 max(1, max |K|)``) and
    its smallest eigenvalue is ``>= -tol``.

    Parameters
    ----------
    K : array-like of shape (n, n)
    tol : float >= 0, optional
        Defaults to ``1e-10 * max(1, max |eigenvalue|) * n``, which absorbs the
        rounding of an eigensolver on an ``n x n`` matrix.

    Returns
    -------
    bool
    """
    K = check_square(K)
    if not _check_symmetric(K)[0]:
        return False
    lam = np.linalg.eigvalsh((K + K.T) / 2)
    tol = _default_tol(lam, K.shape[0]) if tol is None else check_nonnegative(tol, "tol")
    return bool(lam[0] >= -tol)


Witness = namedtuple("Witness", ["X", "K", "min_eigenvalue"])
Witness.__doc__ = ("Points ``X`` whose Gram matrix ``K`` has the negative eigenvalue "
                   "``min_eigenvalue``.")


def find_non_psd_witness(func, d=1, n_points=(2, 3, 4, 5, 6), trials=200, scale=2.0,
                         random_state=0):
    """Search small random point sets for a Gram matrix that is not PSD.

    A function that is a kernel gives a PSD Gram matrix on every finite set; one
    set with a negative eigenvalue proves that ``func`` is no kernel.

    Parameters
    ----------
    func : Kernel or callable ``func(X, Z) -> (n_X, n_Z)`` matrix
        For example ``Sigmoid(gamma=1.0, coef0=-1.0)`` or a distance used as a
        similarity, ``lambda X, Z: cdist(X, Z)``.
    d : int >= 1
        Dimension of the random points.
    n_points : int or sequence of int
        Sizes of the point sets to try, smallest first.
    trials : int >= 1
        Random point sets per size.
    scale : float > 0
        Points are drawn from ``N(0, scale^2 I)``.
    random_state : int or numpy Generator

    Returns
    -------
    Witness or None
        ``Witness(X, K, min_eigenvalue)`` for the first set found whose smallest
        eigenvalue is below ``-tol`` (the default tolerance of :func:`is_psd`),
        or ``None`` when no set was found.
    """
    if not callable(func):
        raise TypeError(f"func must be a kernel or a callable func(X, Z); "
                        f"got {type(func).__name__}")
    d = check_positive_int(d, "d")
    trials = check_positive_int(trials, "trials")
    scale = check_positive(scale, "scale")
    sizes = [n_points] if isinstance(n_points, numbers.Integral) else list(n_points)
    sizes = [check_positive_int(n, "n_points") for n in sizes]
    rng = np.random.default_rng(random_state)
    for n in sizes:
        for _ in range(trials):
            X = rng.normal(scale=scale, size=(n, d))
            K = np.asarray(func(X, X), dtype=float)
            if K.shape != (n, n):
                raise ValueError(f"func(X, X) must return shape ({n}, {n}) for X with shape "
                                 f"{X.shape}; got {K.shape}")
            lam = np.linalg.eigvalsh((K + K.T) / 2)
            if lam[0] < -_default_tol(lam, n):
                return Witness(X, K, float(lam[0]))
    return None
