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
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from kernelcourse._estimator import check_fitted, check_X, default_kernel
from kernelcourse._validation import (as_2d, as_counts, as_real, check_eigenvalues_psd, check_finite_real,
                                      check_positive_int, check_square, check_symmetric, gram)
from kernelcourse.random_features import _rng

__all__ = ["Nystroem", "inverse_sqrt_psd", "nystroem_features", "approximation_error",
           "errors_against_components", "rbf_gram_spectrum"]

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


class Nystroem(TransformerMixin, BaseEstimator):
    """Nystroem features: ``phi(x) = K_mm^{-1/2} k_m(x)`` over ``m`` random landmarks.

    Parameters
    ----------
    kernel : kernel object, default ``kernels.RBF(1.0)``
        Any kernel of :mod:`kernelcourse.kernels`.
    n_components : int, default 100
        The number of landmarks ``m``, drawn uniformly without replacement
        among the training points (all of them when ``m >= n``).
    random_state : None, int or numpy.random.Generator
        Seed for the landmarks.

    Attributes
    ----------
    component_indices_ : ndarray of shape (m,)
        The rows of the training ``X`` used as landmarks.
    components_ : ndarray of shape (m, d)
        The landmarks.
    normalization_ : ndarray of shape (m, m)
        ``K_mm^{-1/2}`` (pseudo-inverse square root when ``K_mm`` is singular).
    rank_ : int
        The number of eigenvalues of ``K_mm`` above ``1e-12`` times the largest.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelcourse.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> Phi = Nystroem(RBF(0.5), n_components=60, random_state=0).fit_transform(X)
    >>> bool(np.abs(Phi @ Phi.T - RBF(0.5)(X)).max() < 0.05)
    True
    """

    def __init__(self, kernel=None, n_components=100, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the landmarks from ``X`` and compute ``K_mm^{-1/2}``; ``y`` is unused."""
        X = check_X(self, X, reset=True)
        m = check_positive_int(self.n_components, "n_components")
        kernel = default_kernel(self.kernel, X.shape[1])
        n = X.shape[0]
        rng = _rng(self.random_state)
        idx = rng.permutation(n)[:m] if m < n else np.arange(n)
        self.component_indices_ = idx
        self.components_ = X[idx]
        self.normalization_, self.rank_ = _inverse_sqrt_psd(gram(kernel, self.components_), RCOND,
                                                            "kernel(landmarks)")
        return self

    def transform(self, X) -> np.ndarray:
        """``Phi = k(X, landmarks) K_mm^{-1/2}``, of shape (n, m)."""
        check_fitted(self, "normalization_", how="fit(X)", use="transform")
        X = check_X(self, X, reset=False)
        return gram(default_kernel(self.kernel, X.shape[1]), X, self.components_) @ self.normalization_


def rbf_gram_spectrum(X, gamma):
    """The RBF Gram matrix ``K`` of ``X`` and its eigenvalues, largest first (negative
    round-off clipped to 0): what :func:`errors_against_components` compares against,
    computed once per ``gamma`` by callers that ask for many ``m``."""
    from kernelcourse.kernels import RBF

    K = RBF(gamma)(as_2d(X, "X"))
    return K, np.clip(np.linalg.eigvalsh(K)[::-1], 0.0, None)


def _check_gram_spectrum(gram_spectrum, n):
    if not isinstance(gram_spectrum, (tuple, list)) or len(gram_spectrum) != 2:
        raise TypeError(f"gram_spectrum must be the pair (K, spectrum) from rbf_gram_spectrum(X, gamma); "
                        f"got {type(gram_spectrum).__name__}")
    K, spectrum = as_real(gram_spectrum[0], "gram_spectrum"), as_real(gram_spectrum[1], "gram_spectrum")
    if K.shape != (n, n) or spectrum.shape != (n,):
        raise ValueError(f"gram_spectrum must hold K of shape ({n}, {n}) and its {n} eigenvalues for X's "
                         f"{n} rows; got shapes {K.shape} and {spectrum.shape}")
    return K, spectrum


def errors_against_components(X, gamma, components, random_state=0, gram_spectrum=None):
    """Relative errors ``||K - Phi Phi^T||_F / ||K||_F`` of Nystroem and random Fourier features (6.3).

    Both approximate the same RBF Gram matrix ``K`` of ``X``, with ``m``
    features each, for every ``m`` in ``components``; beside them stands the
    best any rank-``m`` approximation can do, ``sqrt(sum_{i>m} s_i^2) / ||K||_F``
    over the eigenvalues ``s_1 >= s_2 >= ...`` of ``K`` (Eckart and Young).
    Nystroem's error follows that floor when the spectrum decays fast; random
    features do not use the data and shrink like ``1 / sqrt(m)`` whatever the spectrum.

    Returns
    -------
    dict
        ``components`` (array of m), ``nystroem``, ``random_features``, ``best_rank``
        (arrays of relative errors) and ``spectrum`` (the eigenvalues of ``K``,
        largest first). ``gram_spectrum``: ``(K, spectrum)`` from
        :func:`rbf_gram_spectrum` for this ``X`` and ``gamma``, to reuse.
    """
    from kernelcourse.kernels import RBF
    from kernelcourse.random_features import RandomFourierFeatures

    X = as_2d(X, "X")
    components = np.array(as_counts(components, "components"))
    if components.max() > X.shape[0]:
        raise ValueError(f"every number of components must be at most n = {X.shape[0]}; "
                         f"got {components.tolist()}")
    kernel = RBF(gamma)
    K, spectrum = (rbf_gram_spectrum(X, gamma) if gram_spectrum is None
                   else _check_gram_spectrum(gram_spectrum, X.shape[0]))
    norm = np.linalg.norm(K)
    tail = np.sqrt(np.cumsum((spectrum ** 2)[::-1])[::-1])          # tail[m] = sqrt(sum_{i>=m} s_i^2)
    rng = _rng(random_state)
    out = {"components": components, "nystroem": [], "random_features": [],
           "best_rank": [float(tail[m]) / norm if m < len(tail) else 0.0 for m in components],
           "spectrum": spectrum}
    for m in components:
        Phi = Nystroem(kernel, int(m), rng).fit_transform(X)
        out["nystroem"].append(approximation_error(K, Phi) / norm)
        Z = RandomFourierFeatures(gamma, int(m), rng, n_threads=1).fit_transform(X)
        out["random_features"].append(approximation_error(K, Z) / norm)
    for key in ("nystroem", "random_features", "best_rank"):
        out[key] = np.asarray(out[key])
    return out
