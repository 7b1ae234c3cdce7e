"""Ridge regression on arrays (lecture 3.1-3.4): the primal and the dual solutions, the dual
prediction, and the choice of ``lambda`` on a validation set, as :mod:`kernelcourse.ridge`'s
docstring states them. None imports scikit-learn.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_2d, as_finite, as_positives, as_targets, check_nonnegative, check_square, gram
from ..kernels import as_kernel

__all__ = ["primal_ridge", "dual_ridge", "ridge_predict_dual", "rmse_against_lambda"]


def _solve_regularised(A, b, lam: float, name: str, original=None) -> np.ndarray:
    """Solve ``(A + lam I) x = b`` for a symmetric PSD ``A`` that the caller owns.

    ``A`` is overwritten (its diagonal is shifted and the factor is written in
    place), so callers pass their own copy. ``lam = 0`` uses the minimum-norm
    least-squares solution, i.e. the pseudo-inverse. When the factorisation fails,
    the error gives the smallest eigenvalue of ``original()`` (the matrix before it
    was overwritten), if the caller can give it again.
    """
    from scipy import linalg  # at the first solve: a first check of set 6 loads no scipy.linalg

    if lam == 0.0:
        # lam -> 0: least squares through the pseudo-inverse; lstsq with the
        # SVD driver gives pinv(A) b without forming pinv(A).
        x, *_ = linalg.lstsq(A, b, lapack_driver="gelsd", check_finite=False)
        return x
    A.flat[:: A.shape[0] + 1] += lam
    # A is symmetric, so A.T is the same matrix; for a C-ordered A it is a
    # Fortran-ordered view, which LAPACK factors in place without a copy.
    A = A.T if A.flags.c_contiguous else A
    try:
        factor = linalg.cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
    except linalg.LinAlgError:
        smallest = ""
        if original is not None:
            M = original()
            smallest = (f"; the smallest eigenvalue of {name} is "
                        f"{float(np.linalg.eigvalsh((M + M.T) / 2.0)[0]):.6g}")
        raise ValueError(
            f"{name} + lam I is not positive definite (lam={lam!r}): the matrix is not a valid "
            f"kernel matrix, or lam is too small against its round-off; check that {name} is "
            f"symmetric positive semi-definite, raise lam, or use lam=0 for the pseudo-inverse{smallest}"
        ) from None
    return linalg.cho_solve(factor, b, overwrite_b=False, check_finite=False)


def primal_ridge(X, y, lam: float) -> np.ndarray:
    """Primal ridge regression weights.

    .. math:: w = (X^T X + \\lambda I_n)^{-1} X^T y

    Parameters
    ----------
    X : array of shape (m, n)
        Training inputs, one example per row.
    y : array of shape (m,) or (m, k)
        Training targets.
    lam : float >= 0
        Regularisation ``lambda``. ``lam = 0`` gives least squares through the
        pseudo-inverse, ``w = X^+ y`` (the minimum-norm solution).

    Returns
    -------
    w : array of shape (n,) or (n, k)
        Weights of ``g(x) = <w, x>`` (no offset: the lecture's function is
        homogeneous).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]]); y = np.array([1.0, 2.0])
    >>> primal_ridge(X, y, lam=0.0).round(6)
    array([1., 1.])
    """
    X = as_2d(X, "X")
    y = as_targets(y, X.shape[0], allow_2d=True)
    lam = check_nonnegative(lam, "lam")
    if lam == 0.0:
        from scipy import linalg

        w, *_ = linalg.lstsq(X, y, lapack_driver="gelsd", check_finite=False)
        return w
    return _solve_regularised(X.T @ X, X.T @ y, lam, "X^T X")


def dual_ridge(K, y, lam: float) -> np.ndarray:
    """Dual ridge regression coefficients from a Gram matrix.

    .. math:: \\alpha = (K + \\lambda I_m)^{-1} y, \\qquad K_{ij} = \\kappa(x_i, x_j)

    Parameters
    ----------
    K : array of shape (m, m)
        Symmetric positive semi-definite Gram matrix of the training inputs.
        It is not modified.
    y : array of shape (m,) or (m, k)
        Training targets.
    lam : float >= 0
        Regularisation ``lambda``; ``lam = 0`` uses the pseudo-inverse of ``K``.

    Returns
    -------
    alpha : array of shape (m,) or (m, k)
        The prediction at ``x`` is ``g(x) = sum_i alpha_i k(x_i, x)``.

    Raises
    ------
    ValueError
        If ``K`` is not square, ``lam < 0``, or ``K + lam I`` is not positive
        definite (``K`` is not a kernel matrix).
    """
    K = check_square(K, "K")
    y = as_targets(y, K.shape[0], allow_2d=True)
    lam = check_nonnegative(lam, "lam")
    return _solve_regularised(K.copy(), y, lam, "K", original=lambda: K)


def ridge_predict_dual(K_new, alpha) -> np.ndarray:
    """Dual prediction ``g(x) = sum_i alpha_i k(x_i, x)`` for rows ``K_new[p, i] = k(x_p, x_i)``."""
    K_new = as_2d(K_new, "K_new")
    alpha = as_finite(alpha, "alpha")
    if alpha.ndim not in (1, 2):
        raise ValueError(f"alpha must be 1-D (m,) or 2-D (m, k); got shape {alpha.shape}")
    if alpha.shape[0] != K_new.shape[1]:
        raise ValueError(
            f"K_new has {K_new.shape[1]} columns (training points) but alpha has "
            f"{alpha.shape[0]} coefficients")
    return K_new @ alpha


def rmse_against_lambda(kernel, X, y, X_val, y_val, lams, X_test=None, y_test=None) -> dict:
    """Choose ``lambda`` on a validation set, then report the test RMSE (lecture 3.4).

    The Gram matrices ``k(X, X)``, ``k(X_val, X)`` (and ``k(X_test, X)``) are computed once,
    and each ``lambda`` costs one solve of ``(K + lambda I) alpha = y``. Entry ``j`` of
    ``validation`` equals the RMSE of ``KernelRidge(kernel, lams[j]).fit(X, y).predict(X_val)``
    against ``y_val``.

    Returns
    -------
    dict
        ``validation`` (array of RMSEs, one per ``lambda``), ``lam`` (the one with the
        smallest), and ``test`` (the test RMSE at that ``lam``; NaN without a test set).
    """
    X = as_2d(X, "X")
    y = as_targets(y, X.shape[0])
    sets = [("X_val", X_val, "y_val", y_val)]
    if X_test is not None or y_test is not None:
        sets.append(("X_test", X_test, "y_test", y_test))
    checked = []
    for xn, Xs, yn, ys in sets:
        if Xs is None or ys is None:
            raise ValueError(f"{xn} and {yn} must be given together; got {xn}={type(Xs).__name__} and "
                             f"{yn}={type(ys).__name__}")
        Xs = as_2d(Xs, xn)
        if Xs.shape[1] != X.shape[1]:
            raise ValueError(f"{xn} must have the {X.shape[1]} features of X; got X with shape {X.shape} "
                             f"and {xn} with shape {Xs.shape}")
        checked.append((Xs, as_targets(ys, Xs.shape[0], yn)))
    lams = as_positives(lams, "lams")
    kernel = as_kernel(kernel, X.shape[1])
    K = gram(kernel, X)
    K_sets = [(gram(kernel, Xs, X), ys) for Xs, ys in checked]
    rmse = lambda Kt, yt, alpha: float(np.sqrt(np.mean((Kt @ alpha - yt) ** 2)))
    validation, alphas = [], []
    for lam in lams:
        alphas.append(_solve_regularised(K.copy(), y, float(lam), "K", original=lambda: K))
        validation.append(rmse(*K_sets[0], alphas[-1]))
    best = int(np.argmin(validation))
    test = rmse(*K_sets[1], alphas[best]) if len(K_sets) > 1 else float("nan")
    return {"validation": np.array(validation), "lam": float(lams[best]), "test": test}
