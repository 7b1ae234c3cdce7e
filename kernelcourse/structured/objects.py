"""The structured kernels as kernel objects, and how the course's estimators take them (10.1).

:class:`SpectrumKernel`, :class:`MismatchKernel`, :class:`SubsequenceKernel`,
:class:`WeisfeilerLehmanKernel`, :class:`ShortestPathKernel` and :class:`RandomWalkKernel`
are :class:`~kernelcourse.kernels.Kernel` objects called on lists of strings or graphs:
``k(X, Z=None)`` is the Gram matrix, ``k.diag(X)`` its diagonal, ``k1 + k2`` and ``c * k``
build new kernels, and ``normalize=True`` gives the cosine-normalised kernel.

The estimators (:class:`~kernelcourse.svm.SupportVectorClassifier`,
:class:`~kernelcourse.ridge.KernelRidge`) take numeric arrays ``X``. A structured kernel
reaches them through :meth:`StructuredKernel.indexed`: ``k.indexed(objects)`` is a kernel on
a column of indices into ``objects``, whose Gram matrix it computes once::

    kernel = SpectrumKernel(k=3).indexed(train + test)
    rows = np.arange(len(train) + len(test))[:, None]
    model = SupportVectorClassifier(C=1.0, kernel=kernel).fit(rows[:len(train)], y_train)
    model.predict(rows[len(train):])
"""
from __future__ import annotations

import numpy as np

from ..kernels import Kernel
from .graph_kernels import random_walk_kernel, shortest_path_kernel, wl_features, wl_subtree_kernel
from .graphs import as_graphs
from .strings import (DNA, as_strings, mismatch_features, mismatch_kernel, spectrum_features,
                      spectrum_kernel, subsequence_kernel)

__all__ = ["StructuredKernel", "SpectrumKernel", "MismatchKernel", "SubsequenceKernel",
           "WeisfeilerLehmanKernel", "ShortestPathKernel", "RandomWalkKernel", "IndexedKernel"]


class StructuredKernel(Kernel):
    """A kernel on lists of strings or graphs: ``k(X, Z=None)`` returns the Gram matrix."""

    _function = None          # the module function computing the Gram matrix
    _params: tuple = ()       # the constructor arguments passed on to it

    def _check_input(self, X, name):
        raise NotImplementedError

    def __call__(self, X, Z=None):
        X = self._check_input(X, "X")
        Z = None if Z is None else self._check_input(Z, "Z")
        kwargs = {p: getattr(self, p) for p in self._params}
        return type(self)._function(X, Z, **kwargs)

    def diag(self, X):
        """``k(x_i, x_i)`` for each object (1 when normalised)."""
        X = self._check_input(X, "X")
        return np.array([self([x])[0, 0] for x in X])

    def features(self, X):
        raise NotImplementedError(f"{self!r} has a sparse feature map over a vocabulary that depends "
                                  "on the data; use its Gram matrix k(X, Z)")

    def indexed(self, objects) -> "IndexedKernel":
        """This kernel on a column of indices into ``objects`` (for the estimators)."""
        return IndexedKernel(self, objects)

    def __repr__(self):
        args = ", ".join(f"{p}={getattr(self, p)!r}" for p in self._params)
        return f"{type(self).__name__}({args})"


class _StringKernel(StructuredKernel):
    def _check_input(self, X, name):
        return as_strings(X, name)


class _GraphKernel(StructuredKernel):
    def _check_input(self, X, name):
        return as_graphs(X, name)


class SpectrumKernel(_StringKernel):
    """:func:`~kernelcourse.structured.spectrum_kernel` as an object."""

    _function = staticmethod(spectrum_kernel)
    _params = ("k", "normalize")

    def __init__(self, k=3, normalize=False):
        self.k = k
        self.normalize = normalize

    def sparse_features(self, X, Z=None):
        """The count vectors over one vocabulary (:func:`spectrum_features`)."""
        return spectrum_features(X, self.k, Z)


class MismatchKernel(_StringKernel):
    """:func:`~kernelcourse.structured.mismatch_kernel` as an object."""

    _function = staticmethod(mismatch_kernel)
    _params = ("k", "m", "alphabet", "normalize")

    def __init__(self, k=5, m=1, alphabet=DNA, normalize=False):
        self.k = k
        self.m = m
        self.alphabet = alphabet
        self.normalize = normalize

    def sparse_features(self, X, Z=None):
        """The neighbourhood counts (:func:`mismatch_features`)."""
        return mismatch_features(X, self.k, self.m, self.alphabet, Z)


class SubsequenceKernel(_StringKernel):
    """:func:`~kernelcourse.structured.subsequence_kernel` as an object."""

    _function = staticmethod(subsequence_kernel)
    _params = ("n", "lam", "normalize")

    def __init__(self, n=2, lam=0.5, normalize=False):
        self.n = n
        self.lam = lam
        self.normalize = normalize


class WeisfeilerLehmanKernel(_GraphKernel):
    """:func:`~kernelcourse.structured.wl_subtree_kernel` as an object."""

    _function = staticmethod(wl_subtree_kernel)
    _params = ("h", "normalize")

    def __init__(self, h=3, normalize=False):
        self.h = h
        self.normalize = normalize

    def sparse_features(self, X, Z=None):
        """The label counts of rounds ``0..h`` (:func:`wl_features`)."""
        return wl_features(X, self.h, Z)


class ShortestPathKernel(_GraphKernel):
    """:func:`~kernelcourse.structured.shortest_path_kernel` as an object."""

    _function = staticmethod(shortest_path_kernel)
    _params = ("normalize",)

    def __init__(self, normalize=False):
        self.normalize = normalize


class RandomWalkKernel(_GraphKernel):
    """:func:`~kernelcourse.structured.random_walk_kernel` as an object."""

    _function = staticmethod(random_walk_kernel)
    _params = ("lam", "steps", "normalize")

    def __init__(self, lam=0.05, steps=None, normalize=False):
        self.lam = lam
        self.steps = steps
        self.normalize = normalize


class IndexedKernel(Kernel):
    """``base`` on indices: ``K[i, j] = base(objects[X[i, 0]], objects[Z[j, 0]])``.

    The Gram matrix of all of ``objects`` is computed once, on first use; every call after
    is a lookup, so an estimator may ask for rows as often as it likes.
    """

    def __init__(self, base, objects):
        self.base = base
        self.objects = objects
        self._check_params()

    def _check_params(self):
        if not isinstance(self.base, StructuredKernel):
            raise TypeError(f"base must be a structured kernel (SpectrumKernel, ...); got "
                            f"{type(self.base).__name__}")
        self._full = None

    def gram_of_all(self) -> np.ndarray:
        """The Gram matrix of every object, ``(len(objects), len(objects))``."""
        if self._full is None:
            self._full = np.asarray(self.base(list(self.objects)), dtype=float)
        return self._full

    def _rows(self, X, name):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != 1:
            raise ValueError(f"{name} must be one column of indices into the {len(self.objects)} "
                             f"objects, shape (n, 1); got shape {X.shape}")
        idx = X[:, 0]
        n = len(self.objects)
        if np.any(idx != np.round(idx)) or np.any(idx < 0) or np.any(idx >= n):
            bad = idx[(idx != np.round(idx)) | (idx < 0) | (idx >= n)][0]
            raise ValueError(f"{name} holds {float(bad)!r}, which is no index into the {n} objects "
                             f"(integers 0..{n - 1})")
        return idx.astype(int)

    def _gram(self, X, Z, symmetric):
        i = self._rows(X, "X")
        j = i if symmetric else self._rows(Z, "Z")
        return self.gram_of_all()[np.ix_(i, j)]

    def _diag(self, X):
        i = self._rows(X, "X")
        return np.diag(self.gram_of_all())[i]

    def __repr__(self):
        return f"{self.base!r}.indexed(<{len(self.objects)} objects>)"
