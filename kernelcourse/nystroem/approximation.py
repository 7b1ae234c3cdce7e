"""The Nystroem approximation as arrays (lecture 6.2): the inverse square root of ``K_mm``, the
features of given kernel values, and the error of an approximation.

The lecture's formulas and the treatment of a singular ``K_mm`` are in
:mod:`kernelcourse.nystroem`'s docstring. None of these imports scikit-learn.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_2d, check_eigenvalues_psd, check_finite_real, check_square, check_symmetric

__all__ = ["inverse_sqrt_psd", "nystroem_features", "approximation_error", "rbf_gram_spectrum"]

#: eigenvalues of K_mm below RCOND * (largest eigenvalue) count as zero
RCOND = 1e-12


def inverse_sqrt_psd(K, rcond: float = RCOND):
    """The (pseudo-)inverse square root of a symmetric PSD matrix, and its rank.

    Returns ``(R, rank)`` with ``R = U_r diag(s_r^{-1/2}) U_r^T`` over the
    eigenvalues ``s_r > rcond * max(s)``; ``R K R`` is the projection onto the
    range of ``K`` (the identity when ``K`` is invertible).
    """
    return _inverse_sqrt_psd(K, rcond, "K")


def _inverse_sqrt_psd(K, rcond, name):
    K = check_square(K, name)
    rcond = check_finite_real(rcond, "rcond")
    if not 0 <= rcond < 1:
        raise ValueError(f"rcond must lie in [0, 1) (eigenvalues below rcond times the largest count "
                         f"as zero); got rcond={rcond!r}")
    check_symmetric(K, name)
    s, U = np.linalg.eigh((K + K.T) / 2.0)
    top = s[-1] if s.size else 0.0
    if not top > 0:
        raise ValueError(f"{name} has no positive eigenvalue (largest {top!r}): the landmarks' "
                         f"kernel matrix is zero or not positive semi-definite")
    check_eigenvalues_psd(s, name)
    keep = s > rcond * top
    Ur = U[:, keep]
    return (Ur / np.sqrt(s[keep])) @ Ur.T, int(keep.sum())


def nystroem_features(K_nm, K_mm, rcond: float = RCOND) -> np.ndarray:
    """The Nystroem features ``Phi = K_nm K_mm^{-1/2}`` from kernel values alone (lecture 6.2).

    Parameters
    ----------
    K_nm : array of shape (n, m)
        ``K_nm[i, j] = k(x_i, z_j)`` against the landmarks ``z_j``.
    K_mm : array of shape (m, m)
        The landmarks' Gram matrix; a singular one uses the pseudo-inverse square root.
    """
    K_nm = as_2d(K_nm, "K_nm")
    K_mm = check_square(K_mm, "K_mm")
    if K_nm.shape[1] != K_mm.shape[0]:
        raise ValueError(f"K_nm must have one column per landmark; got K_nm with shape {K_nm.shape} "
                         f"and K_mm with shape {K_mm.shape}")
    R, _ = _inverse_sqrt_psd(K_mm, rcond, "K_mm")
    return K_nm @ R


def approximation_error(K, Phi, ord: str = "fro") -> float:
    """``||K - Phi Phi^T||`` in the Frobenius norm (``ord="fro"``) or the spectral norm (``ord=2``)."""
    K = check_square(K, "K")
    Phi = as_2d(Phi, "Phi")
    if Phi.shape[0] != K.shape[0]:
        raise ValueError(f"Phi must have one row per row of K; got Phi with shape {Phi.shape} "
                         f"and K with shape {K.shape}")
    if ord not in ("fro", 2):
        raise ValueError(f"ord must be 'fro' or 2; got ord={ord!r}")
    return float(np.linalg.norm(K - Phi @ Phi.T, ord=ord))


def rbf_gram_spectrum(X, gamma):
    """The RBF Gram matrix ``K`` of ``X`` and its eigenvalues, largest first (negative
    round-off clipped to 0): what :func:`errors_against_components` compares against,
    computed once per ``gamma`` by callers that ask for many ``m``."""
    from kernelcourse.kernels import RBF

    K = RBF(gamma)(as_2d(X, "X"))
    return K, np.clip(np.linalg.eigvalsh(K)[::-1], 0.0, None)
