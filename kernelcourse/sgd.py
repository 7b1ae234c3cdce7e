"""Kernel SGD in the dual and the six ways to learn with a kernel (lecture 2.1-2.7, 2.10).

SGD on ``f(w) = (1/n) sum_i loss(w . phi(x_i); y_i)`` from ``w_0 = 0`` samples an
index ``i_t`` and steps

    w_{t+1} = w_t - alpha * loss'(w_t . phi(x_{i_t}); y_{i_t}) * phi(x_{i_t}).

Every ``w_t`` stays in the span of the ``phi(x_i)``: ``w_t = sum_i u_i phi(x_i)``,
and the same step changes only the sampled coordinate of ``u``,

    u_{i_t} <- u_{i_t} - alpha * loss'(sum_j K(x_{i_t}, x_j) u_j; y_{i_t}),

with ``K(x, z) = phi(x) . phi(z)``. The lecture's four exact ways to run this
differ only in what they compute when, and given the same sampled indices they
train the same model:

===================  ========================================  ==================  ============
``way``              what it does                              computation         memory
===================  ========================================  ==================  ============
``features``         phi(x_i) on the fly, SGD on w             d D T               D
``cached_features``  all phi(x_i) first, SGD on w              n d D + D T         n D
``kernel``           K(x_i, x_j) on the fly, SGD on u          n d T               n
``gram``             the Gram matrix G first, SGD on u         n^2 d + n T         n^2
``rff``              random features psi(x_i) on the fly       d D + d D T         d D + D
``rff_cached``       all psi(x_i) first                        n d D + D T         n D + d D
===================  ========================================  ==================  ============

(memory on top of the training set, ``n d``). The last two learn with the random
Fourier features of :mod:`kernelcourse.random_features`, an approximation of the
RBF kernel, so they train a nearby model rather than the same one. The table's
costs, their measurement and the lecture's timed demo are in :mod:`kernelcourse.cost_model`.

Losses, with ``z = w . phi(x)`` and labels ``y``:

* ``'logistic'``: ``loss(z; y) = log(1 + exp(-y z))``, ``loss' = -y / (1 + exp(y z))`` (labels +-1);
* ``'squared'``: ``loss(z; y) = (z - y)^2 / 2``, ``loss' = z - y``.
"""
from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from kernelcourse._estimator import (ClassifierOrRegressor, as_real_targets, check_fitted, check_X,
                                     decode_binary_labels, default_kernel, encode_binary_labels)
from kernelcourse._validation import (as_2d, as_finite, as_labels, check_callable,
                                      check_finite_real, check_positive, check_positive_int, check_square)
from kernelcourse.kernels import RBF, Kernel, as_kernel
from kernelcourse.random_features import RandomFourierFeatures, _rng

__all__ = [
    "WAYS", "EXACT_WAYS", "logistic_derivative", "squared_derivative", "sample_indices",
    "dual_sgd_step", "sgd_gram", "sgd_kernel_on_the_fly", "sgd_features_on_the_fly",
    "sgd_cached_features", "KernelSGD",
]

#: the six ways, in the lecture's order
WAYS = ("features", "cached_features", "kernel", "gram", "rff", "rff_cached")
#: the four that use the kernel exactly
EXACT_WAYS = WAYS[:4]

#: SGD steps taken together by the ways on u (see _dual_sgd)
_BLOCK = 16



# ----------------------------------------------------------------------------- losses

def _logistic_derivative(z, y):
    m = y * z
    if m > 0:
        e = math.exp(-m)
        return -y * e / (1.0 + e)
    return -y / (1.0 + math.exp(m))


def _squared_derivative(z, y):
    return z - y


def logistic_derivative(z: float, y: float) -> float:
    """``d/dz log(1 + exp(-y z)) = -y / (1 + exp(y z))``, written so no exp overflows."""
    return _logistic_derivative(check_finite_real(z, "z"), check_finite_real(y, "y"))


def squared_derivative(z: float, y: float) -> float:
    """``d/dz (z - y)^2 / 2 = z - y``."""
    return _squared_derivative(check_finite_real(z, "z"), check_finite_real(y, "y"))


# the SGD loops call these unchecked versions: their margins and labels are checked once, up front
_LOSSES = {"logistic": _logistic_derivative, "squared": _squared_derivative}


def _loss(loss):
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {sorted(_LOSSES)}; got loss={loss!r}")
    return _LOSSES[loss]


def _labels(y, n, loss):
    return as_labels(y, n, values=(-1, 1) if loss == "logistic" else None)


# ----------------------------------------------------------------------------- index sequence

def sample_indices(n: int, T: int, random_state=None) -> np.ndarray:
    """``T`` indices ``i_t`` drawn uniformly from ``{0, ..., n - 1}`` (with replacement)."""
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    return _rng(random_state).integers(0, n, size=T)


def _indices(indices, n):
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"indices must be a non-empty 1-D array of ints; got shape {idx.shape} "
                         f"and dtype {idx.dtype}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"indices must lie in [0, {n - 1}] for n={n} samples; "
                         f"got values from {idx.min()} to {idx.max()}")
    return idx


def _each(steps, chunk=256):
    """Iterate over the sampled indices as Python ints, a chunk at a time (no list of length T)."""
    for start in range(0, steps.shape[0], chunk):
        yield from steps[start:start + chunk].tolist()


# ----------------------------------------------------------------------------- the update rules

def dual_sgd_step(u, i, k_row, y_i, alpha=0.1, loss="logistic") -> np.ndarray:
    """One SGD step on ``u``: ``u_i <- u_i - alpha * loss'(k_row . u; y_i)``, other entries kept.

    ``k_row`` is ``(K(x_i, x_1), ..., K(x_i, x_n))``, so ``k_row . u = w . phi(x_i)``.
    Returns a new vector; ``u`` is not modified.
    """
    u = np.array(as_finite(u, "u"))
    k_row = as_finite(k_row, "k_row")
    if k_row.shape != u.shape or u.ndim != 1 or u.size == 0:
        raise ValueError(f"k_row and u must be vectors of the same length (at least 1); got shapes "
                         f"{k_row.shape} and {u.shape}")
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < u.shape[0]:
        raise ValueError(f"i must be an integer index in [0, {u.shape[0] - 1}] (u has {u.shape[0]} "
                         f"entries); got i={i!r}")
    y_i = check_finite_real(y_i, "y_i")
    alpha = check_positive(alpha, "alpha")
    u[i] -= alpha * _loss(loss)(float(k_row @ u), y_i)
    return u


def _dual_sgd(kernel_rows, n, y, indices, alpha, dloss, block=_BLOCK):
    """SGD on ``u`` from ``u = 0``, taking the sampled steps ``block`` at a time.

    ``kernel_rows(I)`` returns the rows ``K(x_i, x_j)``, j = 1..n, for the indices
    ``I`` of the next steps. Within a block the margin of step ``t`` is

        K(x_{i_t}, .) . u_t = K(x_{i_t}, .) . u_start + sum_{s < t} K(x_{i_t}, x_{i_s}) delta_s,

    where ``delta_s = -alpha loss'(...)`` are the block's earlier updates: the same
    arithmetic as one step at a time, in another order, so the result agrees to
    round-off, but the ``O(n)`` products run as one matrix product per block
    instead of one small NumPy call per step.
    """
    u = np.zeros(n)
    mul = operator.mul
    for start in range(0, indices.shape[0], block):
        I = indices[start:start + block]
        R = kernel_rows(I)
        margins = R.dot(u).tolist()                # K(x_{i_t}, .) . u_start
        C = R.take(I, axis=1).tolist()             # C[t][s] = K(x_{i_t}, x_{i_s})
        deltas = []
        for z, C_t, i in zip(margins, C, I.tolist()):
            deltas.append(-alpha * dloss(z + sum(map(mul, C_t, deltas)), y[i]))
        np.add.at(u, I, deltas)
    return u


def sgd_gram(G, y, indices, alpha=0.1, loss="logistic") -> np.ndarray:
    """Way 4: SGD on ``u`` reading rows of a precomputed Gram matrix ``G_ij = K(x_i, x_j)``.

    Each step costs ``O(n)``: ``u_i <- u_i - alpha loss'(G_i . u; y_i)``, only the
    sampled coordinate changing. Returns ``u`` after ``len(indices)`` steps from ``u = 0``.
    """
    G = check_square(G, "G")
    y = _labels(y, G.shape[0], loss).tolist()
    steps = _indices(indices, G.shape[0])
    return _dual_sgd(lambda I: G.take(I, axis=0), G.shape[0], y, steps, check_positive(alpha, "alpha"), _loss(loss))


def _kernel_rows_function(X, kernel):
    """A function ``I -> K(x_i, x_j)`` (rows i in ``I``, j = 1..n) computed afresh at each call.

    For the RBF kernel, ``-gamma ||x_i - x_j||^2 = [x_i, 1, gamma ||x_i||^2] .
    [2 gamma x_j, -gamma ||x_j||^2, -1]``: one product of the block's rows with a
    stored ``(d + 2, n)`` matrix (two scaled copies of the training set are kept) and one
    exponential, ``O(n d)`` work per row. Other kernels are called on ``(X[I], X)``.
    """
    if isinstance(kernel, RBF):
        g = kernel.gamma
        sq = np.einsum("ij,ij->i", X, X)[:, None]
        A = np.hstack([2.0 * g * X, -g * sq, -np.ones_like(sq)]).T.copy()
        Q = np.hstack([X, np.ones_like(sq), g * sq])

        def rows(I):
            E = Q[I] @ A
            np.minimum(E, 0.0, out=E)                # a squared distance is never negative
            return np.exp(E, out=E)
        return rows
    return lambda I: kernel(X[I], X)


def sgd_kernel_on_the_fly(X, y, kernel, indices, alpha=0.1, loss="logistic") -> np.ndarray:
    """Way 3: SGD on ``u``, computing the kernel values ``K(x_i, x_j)``, j = 1..n, at every step.

    Each step costs ``O(n d)`` and nothing of size ``n^2`` is stored. Returns ``u``
    after ``len(indices)`` steps from ``u = 0``.
    """
    X = as_2d(X, "X")
    y = _labels(y, X.shape[0], loss).tolist()
    steps = _indices(indices, X.shape[0])
    kernel = as_kernel(kernel, X.shape[1])
    return _dual_sgd(_kernel_rows_function(X, kernel), X.shape[0], y, steps,
                     check_positive(alpha, "alpha"), _loss(loss), block=2 * _BLOCK)


def _primal_sgd(phi, n, y, indices, alpha, dloss, D):
    """SGD on ``w`` with ``phi(i)`` the feature vector of example ``i``; tracks ``u`` as well."""
    w = np.zeros(D)
    u = np.zeros(n)
    for i in _each(_indices(indices, n)):
        p = phi(i)
        g = alpha * dloss(float(p @ w), y[i])
        w -= g * p
        u[i] -= g
    return w, u


def sgd_features_on_the_fly(X, y, feature_map, indices, alpha=0.1, loss="logistic"):
    """Way 1 (and 5): SGD on ``w``, computing ``phi(x_i)`` at every step.

    Parameters
    ----------
    feature_map : callable
        ``feature_map(X)`` returns ``phi(X)`` of shape (m, D) (a kernel's ``features``,
        or a fitted :class:`RandomFourierFeatures`' ``transform``).

    Returns
    -------
    w : ndarray of shape (D,)
    u : ndarray of shape (n,)
        The dual coefficients of the same run (``w = sum_i u_i phi(x_i)``).
    """
    X = as_2d(X, "X")
    y = _labels(y, X.shape[0], loss).tolist()
    check_callable(feature_map, "feature_map", ", mapping X of shape (m, d) to phi(X) of shape (m, D)")
    D = feature_map(X[:1]).shape[1]
    return _primal_sgd(lambda i: feature_map(X[i:i + 1])[0], X.shape[0], y, indices,
                       check_positive(alpha, "alpha"), _loss(loss), D)


def sgd_cached_features(Z, y, indices, alpha=0.1, loss="logistic"):
    """Way 2 (and 6): SGD on ``w`` reading rows of precomputed features ``Z[i] = phi(x_i)``.

    Returns ``w`` and the dual coefficients ``u`` of the same run.
    """
    Z = as_2d(Z, "Z")
    y = _labels(y, Z.shape[0], loss).tolist()
    rows = list(Z)
    return _primal_sgd(rows.__getitem__, Z.shape[0], y, indices,
                       check_positive(alpha, "alpha"), _loss(loss), Z.shape[1])


def _rff_row_function(X, rff):
    """``i -> psi(x_i) = sqrt(2/D) cos(Omega x_i + b)`` computed afresh (``O(d D)``)."""
    Omega, b = rff.Omega_, rff.b_
    scale = math.sqrt(2.0 / rff.n_components)
    buf = np.empty(Omega.shape[0])

    def psi(i):
        np.matmul(Omega, X[i], out=buf)
        np.add(buf, b, out=buf)
        np.cos(buf, out=buf)
        return buf * scale
    return psi


# ----------------------------------------------------------------------------- the estimator

class KernelSGD(ClassifierOrRegressor):
    """Kernel logistic (or least-squares) regression trained by SGD, in one of the six ways.

    Minimises ``(1/n) sum_i loss(w . phi(x_i); y_i)`` by ``n_iter`` SGD steps of
    size ``alpha`` from ``w = 0``, with ``w = sum_i u_i phi(x_i)``. The prediction
    is ``f(x) = sum_i u_i K(x, x_i)`` (= ``w . phi(x)`` for the ways on ``w``).

    Parameters
    ----------
    kernel : Kernel, default RBF(gamma=1.0)
        A :mod:`kernelcourse.kernels` object. The ways ``'features'`` and
        ``'cached_features'`` need a finite ``kernel.features``; ``'rff'`` and
        ``'rff_cached'`` need an RBF kernel.
    way : one of WAYS, default 'gram'
    loss : {'logistic', 'squared'}, default 'logistic'
    alpha : float, default 0.1
        Constant step size.
    n_iter : int or None, default None
        Number of steps ``T``; None means ``20 n`` as in the lecture's demo.
    n_components : int, default 100
        ``D`` for the random-feature ways.
    random_state : None, int or Generator
        Seeds the sampled indices, then the random features.

    With the logistic loss it is a classifier whose labels ``y`` may be any two
    values (``classes_[0]`` plays -1, ``classes_[1]`` plays +1); with the squared
    loss it is a regressor.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        ``u``.
    coef_ : ndarray of shape (D,) or None
        ``w``, for the ways that run SGD on ``w``.
    X_fit_ : ndarray of shape (n, d)
    indices_ : ndarray of shape (T,)
        The sampled indices.
    random_features_ : RandomFourierFeatures or None
    kernel_, n_features_in_ : the kernel used, ``d``
    classes_ : the two labels (logistic loss only)
    """

    def __init__(self, kernel=None, way="gram", loss="logistic", alpha=0.1, n_iter=None,
                 n_components=100, random_state=None):
        self.kernel = kernel
        self.way = way
        self.loss = loss
        self.alpha = alpha
        self.n_iter = n_iter
        self.n_components = n_components
        self.random_state = random_state

    def _check_params(self, n_features):
        if self.way not in WAYS:
            raise ValueError(f"way must be one of {WAYS}; got way={self.way!r}")
        _loss(self.loss)
        check_positive(self.alpha, "alpha")
        check_positive_int(self.n_components, "n_components")
        kernel = default_kernel(self.kernel, n_features)
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a kernelcourse.kernels.Kernel; got {type(kernel).__name__}")
        if self.way in ("rff", "rff_cached") and not isinstance(kernel, RBF):
            raise ValueError(f"way={self.way!r} approximates an RBF kernel; got kernel={kernel!r}")
        if self.way in ("features", "cached_features"):
            try:
                kernel.feature_dim(1)
            except NotImplementedError:
                raise ValueError(
                    f"way={self.way!r} needs a finite feature map, and {kernel!r} has none; "
                    "use way='kernel' or 'gram', or the approximate 'rff' / 'rff_cached'") from None
        return kernel

    def fit(self, X, y, indices=None):
        """Run the SGD steps; ``indices`` (the sampled ``i_t``) overrides ``n_iter`` and the seed."""
        X = check_X(self, X, reset=True)
        kernel = self._check_params(X.shape[1])
        if self.loss == "logistic":
            y = encode_binary_labels(self, y, X.shape[0])
        else:
            y = as_real_targets(self, y, X.shape[0])
        rng = _rng(self.random_state)
        if indices is None:
            T = 20 * X.shape[0] if self.n_iter is None else check_positive_int(self.n_iter, "n_iter")
            indices = rng.integers(0, X.shape[0], size=T)
        self.indices_ = np.asarray(indices)
        self.X_fit_, self.kernel_ = X.copy(), kernel
        self.coef_, self.random_features_ = None, None
        way, args = self.way, (self.indices_, self.alpha, self.loss)
        if way == "gram":
            self.dual_coef_ = sgd_gram(kernel(X), y, *args)
        elif way == "kernel":
            self.dual_coef_ = sgd_kernel_on_the_fly(X, y, kernel, *args)
        elif way == "features":
            self.coef_, self.dual_coef_ = sgd_features_on_the_fly(X, y, kernel.features, *args)
        elif way == "cached_features":
            self.coef_, self.dual_coef_ = sgd_cached_features(kernel.features(X), y, *args)
        else:
            rff = RandomFourierFeatures(kernel.gamma, self.n_components, rng).fit(X)
            self.random_features_ = rff
            if way == "rff":
                self.coef_, self.dual_coef_ = _primal_sgd(
                    _rff_row_function(X, rff), X.shape[0], y.tolist(), self.indices_,
                    check_positive(self.alpha, "alpha"), _loss(self.loss), rff.n_components)
            else:
                self.coef_, self.dual_coef_ = sgd_cached_features(rff.transform(X), y, *args)
        return self

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = w . phi(x)``, computed as ``sum_i u_i K(x, x_i)`` or from the features."""
        check_fitted(self, "dual_coef_")
        X = check_X(self, X, reset=False)
        if self.random_features_ is not None:
            return self.random_features_.transform(X) @ self.coef_
        if self.coef_ is not None:
            return self.kernel_.features(X) @ self.coef_
        return self.kernel_(X, self.X_fit_) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        """Labels ``sign f(x)`` for the logistic loss (``classes_[1]``, i.e. +1, where
        ``f(x) >= 0``), ``f(x)`` for the squared loss."""
        f = self.decision_function(X)
        return decode_binary_labels(self, f >= 0) if self.loss == "logistic" else f
