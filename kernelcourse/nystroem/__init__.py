"""The Nystroem approximation of a kernel matrix (lecture 6.2-6.3).

Williams and Seeger ("Using the Nystroem method to speed up kernel machines",
NIPS 2001) pick ``m`` landmarks among the ``n`` training points and keep only
the kernel values against them: ``K_nm`` (n x m) and ``K_mm`` (m x m). The
features

    Phi = K_nm K_mm^{-1/2}                       (n x m)

give ``Phi Phi^T = K_nm K_mm^{-1} K_mn``, which equals ``K`` on every row and
column of a landmark and approximates it elsewhere; the error is the Schur
complement ``K - K_nm K_mm^{-1} K_mn``, positive semi-definite, so the
approximation never overshoots the diagonal. A new point ``x`` gets
``phi(x) = K_mm^{-1/2} k_m(x)`` with ``k_m(x)`` its kernel values against the
landmarks. Cost: ``O(n m d)`` for ``K_nm``, ``O(m^3)`` for ``K_mm^{-1/2}`` and
``O(n m^2)`` for the product ``K_nm K_mm^{-1/2}``, so ``O(n m d + n m^2 + m^3)`` time
and ``O(n m)`` memory, instead of ``O(n^2 d)`` time and ``O(n^2)`` memory for ``K``.

``Phi Phi^T = K_nm K_mm^{-1} K_mn`` is the Gram matrix of the features projected
onto the span of the landmarks' features, whatever factor ``B`` with
``B B^T = K_mm^{-1}`` is used; the symmetric root chosen here gives the orthonormal
basis of that span nearest to the landmarks' own features, one coordinate per
landmark. With the eigenbasis ``U diag(s^{-1/2})`` instead, the features are
Mercer's expansion estimated from the landmarks (``kernelcourse.rkhs.mercer``).

A singular ``K_mm``. Landmarks that repeat, or a kernel of low rank (linear,
polynomial), make ``K_mm`` singular; its inverse square root does not exist.
Here ``K_mm = U diag(s) U^T`` is diagonalised and the eigenvalues below
``rcond * max(s)`` are treated as zero: ``K_mm^{-1/2}`` is then the
pseudo-inverse square root ``U_r diag(s_r^{-1/2}) U_r^T`` over the ``r`` kept
directions, ``Phi Phi^T = K_nm K_mm^+ K_mn``, and ``rank_`` says how many were kept.

Where each part lives: ``approximation`` (:func:`inverse_sqrt_psd`, :func:`nystroem_features`,
:func:`approximation_error`, :func:`rbf_gram_spectrum`), ``comparison``
(:func:`errors_against_components`, 6.3) and ``estimator`` (:class:`Nystroem`). Every public
name is imported from ``kernelcourse.nystroem`` itself; the estimator is loaded when first asked
for (PEP 562), since its base classes import scikit-learn, which the functions (what exercise
set 6 checks first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .approximation import RCOND, approximation_error, inverse_sqrt_psd, nystroem_features, rbf_gram_spectrum
from .comparison import errors_against_components

__all__ = ["Nystroem", "inverse_sqrt_psd", "nystroem_features", "approximation_error",
           "errors_against_components", "rbf_gram_spectrum"]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import Nystroem

#: the names defined in a submodule loaded when first asked for (name -> submodule): it
#: imports scikit-learn (its base classes)
_LAZY = {"Nystroem": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
