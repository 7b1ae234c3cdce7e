"""Ridge regression in the primal and in the dual, and kernel ridge regression.

Lecture 3 (John Shawe-Taylor's slides *Kernel methods*, UCL), sections 3.1-3.3.
Ridge regression chooses the linear function ``g(x) = <w, x>`` minimising

    L_lam(w, S) = lam ||w||^2 + ||xi||^2,    xi = y - X w.

Setting the gradient to zero gives the **primal** solution

    w = (X^T X + lam I_n)^-1 X^T y,

and writing ``w = X^T alpha`` gives the **dual** solution

    alpha = (X X^T + lam I_m)^-1 y = (K + lam I_m)^-1 y,
    g(x) = sum_i alpha_i <x, x_i>.

Only inner products appear in the dual, so any kernel may replace them:
that is kernel ridge regression. Every linear system here is solved through
a Cholesky factorisation (``scipy.linalg.cho_factor``/``cho_solve``), never an
explicit inverse. ``lam = 0`` is least squares, solved through the
pseudo-inverse (minimum-norm least squares), as the lecture suggests when
``X^T X`` (or ``K``) is singular.

Where each part lives: ``solutions`` (the functions) and ``estimator`` (:class:`KernelRidge`).
Every public name is imported from ``kernelcourse.ridge`` itself; the estimator is loaded when
first asked for (PEP 562), since its base classes import scikit-learn, which the functions
(what exercise set 3 checks first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .solutions import dual_ridge, primal_ridge, ridge_predict_dual, rmse_against_lambda

__all__ = ["primal_ridge", "dual_ridge", "ridge_predict_dual", "KernelRidge", "rmse_against_lambda"]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimator import KernelRidge

#: the names defined in a submodule loaded when first asked for (name -> submodule): it
#: imports scikit-learn (its base classes)
_LAZY = {"KernelRidge": "estimator"}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
