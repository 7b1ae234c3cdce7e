"""Kernel principal component analysis (lecture 6.4).

Schoelkopf, Smola and Mueller ("Nonlinear component analysis as a kernel
eigenvalue problem", Neural Computation 1998) run PCA on the features
``phi(x_i)`` while seeing them only through the kernel. After centring the
features on their training mean (lecture 3.7, :class:`kernelcourse.feature_space.GramCenterer`),
the centred Gram matrix ``K_c = U diag(lambda) U^T`` holds everything:

* a principal direction is ``v_k = sum_i alpha_ik phi_c(x_i)`` with
  ``alpha_k = u_k / sqrt(lambda_k)``, so that ``||v_k|| = 1``;
* the training points project to ``<v_k, phi_c(x_i)> = sqrt(lambda_k) u_ik``;
* a new point ``x`` projects to ``sum_i alpha_ik k_c(x, x_i)``, where its kernel
  row is centred with the *training* statistics (the lecture 3 rule: the
  centre is ``phi_S`` of the training sample, whatever point is centred);
* the variance along ``v_k`` is ``lambda_k / n``, and the share of the total
  variance ``lambda_k / trace(K_c)``.

With the linear kernel this is PCA of ``X``; with a polynomial kernel, PCA of
its explicit features. Eigenvectors have a sign of their choosing: each is
turned so that its entry of largest magnitude is positive.

Where each part lives: ``spectrum`` (:func:`explained_variance_ratio`, :func:`fix_signs`) and
``estimator`` (:class:`KernelPCA`). Every public name is imported from
``kernelcourse.kernel_pca`` itself; the estimator is loaded when first asked for (PEP 562),
since its base classes import scikit-learn, which the functions (what exercise set 6 checks
first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .spectrum import explained_variance_ratio, fix_signs

__all__ = ["KernelPCA", "explained_variance_ratio", "fix_signs"]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import KernelPCA

#: the names defined in a submodule loaded when first asked for (name -> submodule): it
#: imports scikit-learn (its base classes)
_LAZY = {"KernelPCA": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
