"""The kernels of the lectures on vectors and sets, scikit-learn's kernel names, and the
lectures' sigma forms of the Gaussian width."""

from __future__ import annotations

import numpy as np

from .._validation import check_finite_real, check_positive, check_positive_int
from .. import features as _features
from .base import KERNEL_NAMES, Kernel, _cdist, _fmt, _no_features
from ._fast_rbf import _rbf_gram


# ---------------------------------------------------------------------------
# Kernels on vectors
# ---------------------------------------------------------------------------

class Linear(Kernel):
    """Linear kernel ``k(x, z) = x . z = <x, z>``; its feature map is ``phi(x) = x``."""

    _theta = ()

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
        check_finite_real(self.coef0, "coef0")

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
    _theta = ("gamma",)

    def _gram(self, X, Z, symmetric):
        K = _cdist(X, Z, self._metric)
        K *= -self.gamma
        return np.exp(K, out=K)

    def _gram_gradient(self, X):
        # dK / d log gamma = -gamma dist(x, z) K
        D = _cdist(X, X, self._metric)
        K = np.exp(-self.gamma * D)
        return K, (-self.gamma * D * K)[:, :, None]


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

    _theta = ("gamma",)

    def _gram(self, X, Z, symmetric):
        return _rbf_gram(X, None if symmetric else Z, self.gamma)

    def _gram_gradient(self, X):
        # dK / d log gamma = -gamma ||x - z||^2 K
        D2 = _cdist(X, X, "sqeuclidean")
        K = np.exp(-self.gamma * D2)
        return K, (-self.gamma * D2 * K)[:, :, None]


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
        check_finite_real(self.coef0, "coef0")

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

    _theta = ()

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
        return _features.all_subsets_inner_products(X, Z)

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
# scikit-learn's kernel names
# ---------------------------------------------------------------------------

# KERNEL_NAMES lives in .base, whose rules name them when given a name instead of a kernel


def as_kernel(kernel, n_features: int, name: str = "kernel"):
    """Return a callable kernel; scikit-learn's names become the package's kernel objects.

    A string takes scikit-learn's defaults: ``gamma = 1 / n_features``, ``degree = 3``,
    ``coef0 = 1`` (polynomial and sigmoid).
    """
    if isinstance(kernel, str):
        gamma = 1.0 / check_positive_int(n_features, "n_features")
        key = kernel.lower()
        if key == "linear":
            return Linear()
        if key in ("poly", "polynomial"):
            return Polynomial(3, gamma=gamma, coef0=1.0)
        if key == "rbf":
            return RBF(gamma=gamma)
        if key == "laplacian":
            return Laplacian(gamma=gamma)
        if key == "sigmoid":
            return Sigmoid(gamma=gamma, coef0=1.0)
        raise ValueError(f"{name}={kernel!r} is not a known kernel name; use one of {list(KERNEL_NAMES)} "
                         "or a kernel object")
    if not callable(kernel):
        raise TypeError(f"{name} must be a kernel object or one of the names {list(KERNEL_NAMES)}; "
                        f"got {type(kernel).__name__}")
    return kernel


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
