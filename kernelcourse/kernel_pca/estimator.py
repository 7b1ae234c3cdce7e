"""Kernel PCA as an estimator in scikit-learn's manner (lecture 6.4).

Its base classes import scikit-learn, so :mod:`kernelcourse.kernel_pca` loads this module only
when :class:`KernelPCA` is first asked for (PEP 562).
"""
from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, TransformerMixin

from .._estimator import check_fitted, check_X, default_kernel
from .._validation import check_positive_int, gram
from ..feature_space import GramCenterer
from .spectrum import EIG_TOL, fix_signs

__all__ = ["KernelPCA"]


def _leading_eigenpairs(Kc, k):
    """The ``k`` largest eigenvalues of the symmetric ``Kc`` (increasing) and their eigenvectors.

    A few components of a large matrix: Lanczos iterations (ARPACK), which only
    multiply by ``Kc``, started from a fixed seeded vector so that results repeat;
    a Krylov space of 40 vectors (ARPACK's default is 20) halves the products
    needed on kernel spectra, which decay smoothly.
    Otherwise: LAPACK's dense solver for the chosen eigenvalues only.
    """
    n = Kc.shape[0]
    if k < 10 and n > 200:
        from scipy.sparse.linalg import eigsh

        v0 = np.random.default_rng(0).uniform(-1.0, 1.0, n)
        return eigsh(Kc, k, which="LA", v0=v0, tol=0.0, ncv=min(n - 1, max(2 * k + 1, 40)))
    return linalg.eigh(Kc, subset_by_index=[n - k, n - 1], overwrite_a=True, check_finite=False,
                       driver="evr")


class KernelPCA(TransformerMixin, BaseEstimator):
    """Principal components in feature space, from the centred Gram matrix.

    Parameters
    ----------
    kernel : kernel object, default ``kernels.RBF(1.0)``
    n_components : int, default 2
        How many leading components to keep (at most the number of training points).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        The largest eigenvalues ``lambda_k`` of the centred training Gram matrix,
        in decreasing order (scikit-learn's ``KernelPCA.eigenvalues_``);
        those below ``1e-12`` times the largest are set to 0.
    eigenvectors_ : ndarray of shape (n, n_components)
        The unit eigenvectors ``u_k`` (scikit-learn's ``eigenvectors_``).
    dual_coef_ : ndarray of shape (n, n_components)
        ``alpha_k = u_k / sqrt(lambda_k)`` (0 for a zero eigenvalue): the
        principal direction ``v_k = sum_i alpha_ik phi_c(x_i)``.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``lambda_k / trace(K_c)``.
    X_fit_ : ndarray of shape (n, d)
    centerer_ : GramCenterer
        The training statistics used to centre new rows.
    n_features_in_ : int
    """

    def __init__(self, kernel=None, n_components=2):
        self.kernel = kernel
        self.n_components = n_components

    def fit(self, X, y=None):
        """Centre the Gram matrix of ``X`` and keep its leading eigenpairs; ``y`` is unused."""
        self._fit(X)
        return self

    def _fit(self, X):
        X = check_X(self, X, reset=True)
        n = X.shape[0]
        k = check_positive_int(self.n_components, "n_components")
        if k > n:
            raise ValueError(f"n_components must be at most the number of training points; got "
                             f"n_components={k} with X of shape {X.shape}")
        K = gram(default_kernel(self.kernel, X.shape[1]), X)
        self.centerer_ = GramCenterer().fit(K)
        Kc = self.centerer_.transform(K)
        total = float(np.trace(Kc))
        s, U = _leading_eigenpairs(Kc, k)
        s, U = s[::-1], fix_signs(U[:, ::-1])
        top = max(s[0], 0.0)
        s = np.where(s > EIG_TOL * top, s, 0.0)
        nonzero = s > 0
        self.eigenvalues_ = s
        self.eigenvectors_ = U
        self.dual_coef_ = np.zeros_like(U)
        self.dual_coef_[:, nonzero] = U[:, nonzero] / np.sqrt(s[nonzero])
        self.explained_variance_ratio_ = s / total if total > 0 else np.zeros_like(s)
        self.X_fit_ = X.copy()   # our own copy: changing the caller's array later changes nothing
        return U * np.sqrt(s)

    def fit_transform(self, X, y=None) -> np.ndarray:
        """Fit, and return the training projections ``sqrt(lambda_k) u_ik``, shape (n, n_components)."""
        return self._fit(X)

    def transform(self, X) -> np.ndarray:
        """Project new points: ``K_c(X, X_fit) alpha``, rows centred with the training statistics."""
        check_fitted(self, "dual_coef_", how="fit(X)", use="transform")
        X = check_X(self, X, reset=False)
        K_new = gram(default_kernel(self.kernel, X.shape[1]), X, self.X_fit_)
        return self.centerer_.transform(K_new) @ self.dual_coef_
