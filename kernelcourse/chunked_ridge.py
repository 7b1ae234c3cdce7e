"""Ridge regression on random Fourier features, chunk by chunk, on one machine or a cluster (lecture 6.5).

Random features (Rahimi and Recht, NIPS 2007; lecture 2.8-2.10) replace the
``n x n`` Gram matrix by an ``n x D`` feature matrix ``Phi``. Ridge regression
in the primal (lecture 3.1) then needs only two sums over the examples,

    A = Phi^T Phi = sum_i psi(x_i) psi(x_i)^T      (D x D)
    c = Phi^T y   = sum_i y_i psi(x_i)              (D,)

and one solve ``(A + lam I) w = c``. Both sums split over any partition of the
rows into chunks: each chunk's features are made, multiplied out and dropped,
so memory is ``O(chunk_size * D + D^2)`` whatever ``n`` is, and the chunks can
be handled by different processes or machines whose partial sums are added.

:class:`RFFRidge` does exactly that. Given a NumPy array it loops over the
chunks. Given a Dask array it sends one task per chunk to the current Dask
client (a ``distributed.Client`` the user made, for a ``LocalCluster`` or for a
scheduler at ``tcp://host:8786``) and adds the partial sums in a tree; with no
client it starts a ``LocalCluster`` for the fit and closes it afterwards. Dask
is imported only then, never with ``import kernelcourse``.
"""
from __future__ import annotations

import math
import numbers
import os

import numpy as np

from kernelcourse._estimator import Regressor, as_real_targets, check_fitted, check_X, check_y_given
from kernelcourse._validation import (as_2d, as_counts, as_float_dtype, as_real, as_targets, as_vector, check_nonnegative,
                                      check_nonnegative_int, check_positive, check_positive_int,
                                      check_targets_shape)
from kernelcourse.random_features import RandomFourierFeatures
from kernelcourse.random_features.approximation import _cos_features
from kernelcourse.ridge.solutions import _solve_regularised

__all__ = ["RFFRidge", "is_dask_array", "chunk_moments", "add_moments", "rmse_against_n"]


def is_dask_array(a) -> bool:
    """True for a ``dask.array.Array`` (checked without importing Dask)."""
    return type(a).__module__.split(".")[0] == "dask" and hasattr(a, "chunks")


def chunk_moments(X, y, Omega, b, dtype=np.float64):
    """``(Phi^T Phi, Phi^T y)`` for one chunk of rows, ``Phi = sqrt(2/D) cos(X Omega^T + b)``.

    The features are made in ``dtype``; the two products are returned in float64
    so that adding many chunks loses no more than one chunk's rounding.
    """
    X, y = as_real(X, "X"), as_real(y, "y")
    if X.ndim != 2 or 0 in X.shape:
        raise ValueError(f"X must be a non-empty 2-D chunk of rows (n, d); got shape {X.shape}")
    check_targets_shape(y.shape, X.shape[0])
    for name, arr in (("X", X), ("y", y)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or inf in a chunk of {X.shape[0]} rows")
    Omega = as_2d(Omega, "Omega")
    if Omega.shape[1] != X.shape[1]:
        raise ValueError(f"Omega must have one column per feature of X; got Omega with shape "
                         f"{Omega.shape} and X with shape {X.shape}")
    if b is not None:
        b = as_vector(b, "b", Omega.shape[0], f"(one offset per row of Omega, shape {Omega.shape})")
    dtype = as_float_dtype(dtype)
    D = Omega.shape[0] if b is not None else 2 * Omega.shape[0]
    Phi = np.empty((X.shape[0], D), dtype=dtype)
    _cos_features(X, Omega, b, dtype.type(math.sqrt(2.0 / D)), Phi, n_threads=1)
    A = (Phi.T @ Phi).astype(np.float64, copy=False)
    c = (Phi.T @ y.astype(dtype, copy=False)).astype(np.float64, copy=False)
    return A, c


def add_moments(*parts):
    """Add partial sums ``(A, c)``: the reduction step of the chunked fit."""
    if not parts:
        raise TypeError("add_moments needs at least one part (A, c)")
    checked = []
    for i, part in enumerate(parts):
        if not isinstance(part, (tuple, list)) or len(part) != 2:
            raise TypeError(f"each part must be a pair (A, c); part {i} is {type(part).__name__}")
        a, v = as_real(part[0], "A"), as_real(part[1], "c")
        D = a.shape[0] if a.ndim == 2 else -1
        if a.ndim != 2 or a.shape != (D, D) or D == 0:
            raise ValueError(f"A must be a square (D, D) matrix Phi^T Phi; got A with shape {a.shape} in part {i}")
        if v.shape != (D,):
            raise ValueError(f"c must have shape ({D},) to match A with shape {a.shape}; got c with shape "
                             f"{v.shape} in part {i}")
        if checked and a.shape != checked[0][0].shape:
            raise ValueError(f"the parts must have the same D: A with shape {a.shape} in part {i}, "
                             f"{checked[0][0].shape} in part 0")
        for name, arr in (("A", a), ("c", v)):
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} contains NaN or inf in part {i}")
        checked.append((a, v))
    A = checked[0][0].copy()
    c = checked[0][1].copy()
    for a, v in checked[1:]:
        A += a
        c += v
    return A, c


def _predict_chunk(X, Omega, b, coef, dtype):
    dtype = np.dtype(dtype)
    D = coef.shape[0]
    Phi = np.empty((X.shape[0], D), dtype=dtype)
    _cos_features(np.asarray(X, dtype=float), Omega, b, dtype.type(math.sqrt(2.0 / D)), Phi,
                  n_threads=1)
    return Phi @ coef.astype(dtype, copy=False)


def _current_client():
    """The current Dask client, or a new ``LocalCluster`` with its client (to be closed)."""
    from distributed import Client, LocalCluster, default_client

    try:
        return default_client(), None
    except ValueError:
        cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=False,
                               dashboard_address=":0")
        return Client(cluster, set_as_default=False), cluster


class RFFRidge(Regressor):
    """Ridge regression on ``D`` random Fourier features, never holding all the features at once.

    Minimises ``||y - Phi w||^2 + lam ||w||^2`` (the course's primal ridge,
    lecture 3.1) with ``Phi`` the random Fourier features of the RBF kernel
    ``exp(-gamma ||x - z||^2)`` (lecture 2.8), by accumulating ``Phi^T Phi`` and
    ``Phi^T y`` over chunks of ``chunk_size`` rows and solving once.

    Parameters
    ----------
    gamma : float, default 1.0
    n_components : int, default 100
        The number of features ``D``.
    lam : float, default 1.0
        Regularisation ``lambda >= 0`` (not divided by ``n``; 0 is least squares).
    chunk_size : int, default 10000
        Rows per chunk (NumPy input), or per Dask block (Dask input is rechunked to it).
    random_state : None, int or numpy.random.Generator
        Seed for ``Omega`` and ``b`` (drawn as by :class:`RandomFourierFeatures`).
    dtype : numpy float dtype, default float32
        Dtype of the features inside a chunk (and of the prediction's products). The
        default float32 halves the memory and the time of the float64 features (at
        n = 10^6, d = 10, D = 1000: about 11 s against 40 s); each chunk's sums and the
        solve are in float64. Why float32 loses nothing that matters: a float32 feature
        carries a rounding error of about ``2^-24 |Omega x + b|`` (below 1e-6 for the
        arguments of a few hundred met here), and a chunk's sums add a relative error of
        about ``2^-24 sqrt(chunk_size)``, below 1e-4; the approximation itself, ``D``
        random features in place of the kernel, errs by the Monte Carlo error
        ``sqrt(2 / D)`` per kernel value (0.045 at D = 1000, 0.14 at D = 100), hundreds
        of times more. The tests check that the float32 and float64 fits differ by under
        1% of the difference between two draws of the features. Pass ``np.float64`` to
        reproduce ridge on the whole feature matrix to rounding (as the tests do).

    Attributes
    ----------
    coef_ : ndarray of shape (D,)
        The weights ``w``.
    Omega_, b_ : the frequencies (D, d) and offsets (D,)
    n_chunks_ : int
        How many chunks the fit added up.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1)); y = np.sin(X[:, 0])
    >>> model = RFFRidge(gamma=0.5, n_components=50, lam=1e-3, chunk_size=500, random_state=0).fit(X, y)
    >>> bool(np.abs(model.predict(X) - y).max() < 0.01), model.n_chunks_
    (True, 4)
    """

    def __init__(self, gamma=1.0, n_components=100, lam=1.0, chunk_size=10000, random_state=None,
                 dtype=np.float32):
        self.gamma = gamma
        self.n_components = n_components
        self.lam = lam
        self.chunk_size = chunk_size
        self.random_state = random_state
        self.dtype = dtype

    # ------------------------------------------------------------------ fit
    def _draw(self, d):
        gamma = check_positive(self.gamma, "gamma")
        D = check_positive_int(self.n_components, "n_components")
        rff = RandomFourierFeatures(gamma, D, self.random_state).fit(np.zeros((1, d)))
        self.Omega_, self.b_ = rff.Omega_, rff.b_

    def fit(self, X, y=None):
        """Fit on a NumPy array or a Dask array ``X`` of shape (n, d) and targets ``y`` of shape (n,)."""
        check_y_given(self, y)
        lam = check_nonnegative(self.lam, "lam")
        chunk = check_positive_int(self.chunk_size, "chunk_size")
        as_float_dtype(self.dtype)
        if is_dask_array(X):
            A, c = self._dask_moments(X, y, chunk)
        else:
            X = check_X(self, X, reset=True)
            y = as_real_targets(self, y, X.shape[0])
            self._draw(X.shape[1])
            A = np.zeros((self.n_components, self.n_components))
            c = np.zeros(self.n_components)
            starts = range(0, X.shape[0], chunk)
            for s in starts:
                a, v = chunk_moments(X[s:s + chunk], y[s:s + chunk], self.Omega_, self.b_, self.dtype)
                A += a
                c += v
            self.n_chunks_ = len(starts)
        self.coef_ = _solve_regularised(A, c, lam, "Phi^T Phi")
        return self

    @staticmethod
    def _targets(y, shape):
        if is_dask_array(y):
            check_targets_shape(y.shape, shape[0])
            return y
        return as_targets(y, shape[0])

    def _dask_moments(self, X, y, chunk):
        import dask
        import dask.array as da

        if X.ndim != 2 or 0 in X.shape:
            raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features); got shape {X.shape}")
        y = self._targets(y, X.shape)
        X = X.astype(float).rechunk((chunk, X.shape[1]))
        y = (y if is_dask_array(y) else da.from_array(y)).astype(float).rechunk((chunk,))
        self._draw(X.shape[1])
        Omega, b = dask.delayed(self.Omega_), dask.delayed(self.b_)
        parts = [dask.delayed(chunk_moments, pure=True)(xb, yb, Omega, b, self.dtype)
                 for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel())]
        self.n_chunks_ = len(parts)
        self.n_features_in_ = X.shape[1]
        while len(parts) > 1:                        # a tree of sums: no worker adds them all
            parts = [dask.delayed(add_moments, pure=True)(*parts[i:i + 4])
                     for i in range(0, len(parts), 4)]
        client, cluster = _current_client()
        try:
            return client.compute(parts[0]).result()
        finally:
            if cluster is not None:
                client.close()
                cluster.close()

    # ------------------------------------------------------------------ predict
    def predict(self, X):
        """``Phi(X) w`` chunk by chunk; for a Dask array, a lazy Dask array (call ``.compute()``)."""
        check_fitted(self, "coef_")
        if not is_dask_array(X):
            X = check_X(self, X, reset=False)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have shape (n, {self.n_features_in_}) like the training data; "
                             f"got X with shape {X.shape}")
        if is_dask_array(X):
            return X.astype(float).rechunk({1: -1}).map_blocks(
                _predict_chunk, self.Omega_, self.b_, self.coef_, self.dtype, drop_axis=1, dtype=float)
        chunk = check_positive_int(self.chunk_size, "chunk_size")
        return np.concatenate([_predict_chunk(X[s:s + chunk], self.Omega_, self.b_, self.coef_,
                                              self.dtype) for s in range(0, X.shape[0], chunk)])


def rmse_against_n(n_values, n_exact_max=4000, n_test=2000, d=10, gamma=0.1,
                          n_components=300, lam=1.0, noise=0.1, dtype=np.float64, random_state=0):
    """Test RMSE of random-feature ridge and of exact kernel ridge as ``n`` grows (lecture 6.6).

    The data are :func:`kernelcourse.datasets.smooth_regression`; both models use
    the RBF kernel ``exp(-gamma ||x - z||^2)`` and the same ``lam``. Exact kernel
    ridge (:class:`kernelcourse.ridge.KernelRidge`) runs only while
    ``n <= n_exact_max`` (its Gram matrix takes ``8 n^2`` bytes); its entries are
    NaN beyond. ``noise`` is the training targets' noise (the test targets have
    none, so a perfect fit has test RMSE 0); ``dtype`` is :class:`RFFRidge`'s.

    Returns
    -------
    dict of arrays
        ``n``, ``random_features`` and ``exact`` (test RMSEs).
    """
    from kernelcourse.datasets import smooth_regression
    from kernelcourse.kernels import RBF
    from kernelcourse.ridge import KernelRidge

    n_values = as_counts(n_values, "n_values")
    n_exact_max = check_nonnegative_int(n_exact_max, "n_exact_max")
    as_float_dtype(dtype)
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
        raise TypeError(f"random_state must be a non-negative int seed here (the test set uses "
                        f"random_state + 1); got {type(random_state).__name__}: {random_state!r}")
    X_test, y_test = smooth_regression(check_positive_int(n_test, "n_test"), d, noise=0.0,
                                       random_state=random_state + 1)
    rmse = lambda p: float(np.sqrt(np.mean((p - y_test) ** 2)))
    out = {"n": np.array(n_values), "random_features": [], "exact": []}
    for n in n_values:
        X, y = smooth_regression(n, d, noise=noise, random_state=random_state)
        model = RFFRidge(gamma, n_components, lam, random_state=random_state, dtype=dtype).fit(X, y)
        out["random_features"].append(rmse(model.predict(X_test)))
        out["exact"].append(rmse(KernelRidge(RBF(gamma), lam).fit(X, y).predict(X_test))
                            if n <= n_exact_max else np.nan)
    return {k: np.asarray(v, dtype=float) if k != "n" else v for k, v in out.items()}
