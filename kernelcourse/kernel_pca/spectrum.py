"""The spectrum of a centred Gram matrix (lecture 6.4): the share of variance along each
principal direction, and the sign convention of the eigenvectors, as
:mod:`kernelcourse.kernel_pca`'s docstring states them. None imports scikit-learn.
"""
from __future__ import annotations

import numpy as np

from .._centering import center_gram
from .._validation import as_2d

__all__ = ["explained_variance_ratio", "fix_signs"]

#: eigenvalues below EIG_TOL * (largest) are zero: their directions carry no variance
EIG_TOL = 1e-12


def fix_signs(U) -> np.ndarray:
    """Flip each column of ``U`` so that its entry of largest magnitude is positive."""
    U = np.array(as_2d(U, "U"))
    top = np.argmax(np.abs(U), axis=0)
    signs = np.sign(U[top, np.arange(U.shape[1])])
    signs[signs == 0] = 1.0
    return U * signs


def explained_variance_ratio(K) -> np.ndarray:
    """All eigenvalues of the centred ``K`` over their sum ``trace(K_c)``, largest first."""
    Kc = center_gram(K)                        # GramCenterer().fit_transform(K)
    s = np.linalg.eigvalsh((Kc + Kc.T) / 2.0)[::-1]
    s = np.where(s > EIG_TOL * max(s[0], 0.0), s, 0.0)
    total = s.sum()
    if not total > 0:
        raise ValueError("the centred Gram matrix is zero: all points coincide in feature space")
    return s / total
