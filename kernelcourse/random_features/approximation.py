"""Random Fourier features as arrays, and how close they come (lecture 2.8-2.10).

The functions of :mod:`kernelcourse.random_features` (whose docstring states the map and its
bounds) except the estimator class: the RBF Gram matrix, the feature map of given draws,
the one-draw and Monte Carlo estimates, the variance and Hoeffding's bounds, and the errors
met over many draws. None imports scikit-learn.
"""
from __future__ import annotations

import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kernelcourse._validation import (as_2d, as_counts, as_finite, as_float_dtype, as_real, as_vector, check_positive,
                                      check_positive_int, check_unit_interval)

__all__ = [
    "fourier_features",
    "rbf_gram",
    "single_sample_estimate",
    "monte_carlo_kernel",
    "rff_variance",
    "hoeffding_bound",
    "features_needed",
    "approximation_errors",
    "error_frequency",
    "max_error_over_points",
    "union_bound",
    "union_error_level",
]

#: rows per block when a transform is split over threads
_BLOCK_ROWS = 512
_POOL: ThreadPoolExecutor | None = None


def _rng(random_state) -> np.random.Generator:
    """Turn None, an int seed or a Generator into a Generator (a Generator is used as is)."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int seed; got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise TypeError("random_state must be None, an int seed or a numpy.random.Generator; "
                    f"got {type(random_state).__name__}: {random_state!r}")


def _vector(x, name: str) -> np.ndarray:
    """Return a finite 1-D float vector, or raise naming its shape."""
    arr = as_real(x, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _same_length(x, y):
    x, y = _vector(x, "x"), _vector(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length; got {x.shape[0]} and {y.shape[0]}")
    return x, y


def _check_width(D, paired: bool) -> int:
    D = check_positive_int(D, "n_components")
    if paired and D % 2:
        raise ValueError(f"the paired [cos, sin] map needs an even n_components; got n_components={D}")
    return D


def _draw_frequencies(gamma: float, D: int, paired: bool, d: int, rng: np.random.Generator):
    """The draws of :class:`RandomFourierFeatures` for ``d`` input features, in its order:
    ``Omega = sqrt(2 gamma) G`` with ``G`` standard normal of shape ``(D, d)`` (``(D / 2, d)``
    when paired), then ``b = 2 pi U`` with ``U`` uniform on [0, 1) (None when paired)."""
    m = D // 2 if paired else D
    Omega = math.sqrt(2.0 * gamma) * rng.standard_normal((m, d))
    b = None if paired else 2.0 * math.pi * rng.random(D)
    return Omega, b


def rbf_gram(X, Z=None, gamma: float = 1.0) -> np.ndarray:
    """RBF Gram matrix ``K_ij = exp(-gamma ||x_i - z_j||^2)`` (the kernel being approximated).

    Computed from the distances ``||x||^2 + ||z||^2 - 2 x.z``, clipped at 0.
    ``kernelcourse.kernels.RBF(gamma)`` is the course's kernel object; this is the
    plain function the error checks of this module compare against.
    """
    from kernelcourse._validation import as_pair

    gamma = check_positive(gamma, "gamma")
    X, Z = as_pair(X, Z)
    sq = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2.0 * (X @ Z.T)
    return np.exp(-gamma * np.maximum(sq, 0.0))


# ----------------------------------------------------------------------------- the feature map

def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
    return _POOL


def _cos_features(X, Omega, b, scale, out, n_threads):
    """Fill ``out`` with ``scale * cos(X Omega^T + b)`` (the paired map when ``b`` is None).

    The phases ``Omega x + b`` come from one matrix product written straight
    into ``out`` (``b`` rides along as an extra column of ones in ``X``), so no
    array of size (n, D) is allocated besides ``out``. The cosine and the scaling
    then run in place over blocks of rows; NumPy's ufuncs release the GIL, so the
    blocks use separate cores when ``n_threads > 1``.
    """
    dtype = out.dtype
    if b is None:                           # paired: phases once, then [cos, sin]
        m = Omega.shape[0]
        phases = np.matmul(X.astype(dtype), Omega.T.astype(dtype))

        def block(rows):
            np.sin(phases[rows], out=out[rows, m:])
            np.cos(phases[rows], out=out[rows, :m])
            out[rows] *= scale
    else:
        X1 = np.empty((X.shape[0], X.shape[1] + 1), dtype=dtype)
        X1[:, :-1] = X
        X1[:, -1] = 1.0
        W1 = np.concatenate([Omega.T, b[None, :]]).astype(dtype)
        np.matmul(X1, W1, out=out)

        def block(rows):
            np.cos(out[rows], out=out[rows])
            out[rows] *= scale

    blocks = [slice(s, s + _BLOCK_ROWS) for s in range(0, X.shape[0], _BLOCK_ROWS)]
    if n_threads > 1 and len(blocks) > 1:
        list(_pool().map(block, blocks))
    else:
        for rows in blocks:
            block(rows)
    return out


def fourier_features(X, Omega, b=None, dtype=np.float64) -> np.ndarray:
    """The random Fourier feature map for given frequencies and offsets.

    ``psi(x) = sqrt(2 / D) cos(Omega x + b)`` with ``D = len(b)``; when ``b`` is
    None, the paired map ``sqrt(2 / D) [cos(Omega x), sin(Omega x)]`` with
    ``D = 2 * len(Omega)``.

    Parameters
    ----------
    X : array of shape (n, d)
    Omega : array of shape (D, d), or (D / 2, d) for the paired map
        The frequencies ``w_i`` as rows.
    b : array of shape (D,) or None
        The offsets ``b_i``.
    dtype : numpy float dtype, default float64
        Dtype of the result (see :class:`RandomFourierFeatures`).

    Returns
    -------
    Z : ndarray of shape (n, D)
        Row ``i`` is ``psi(x_i)``, so ``Z Z^T`` approximates the RBF Gram matrix.
    """
    X = as_2d(X, "X")
    Omega = as_2d(Omega, "Omega")
    if Omega.shape[1] != X.shape[1]:
        raise ValueError(f"Omega must have one column per feature of X; got Omega with shape "
                         f"{Omega.shape} and X with shape {X.shape}")
    if b is not None:
        b = _vector(b, "b")
        if b.shape[0] != Omega.shape[0]:
            raise ValueError(f"b must hold one offset per row of Omega; got b with shape "
                             f"{b.shape} and Omega with shape {Omega.shape}")
    dtype = as_float_dtype(dtype)
    D = Omega.shape[0] * (1 if b is not None else 2)
    out = np.empty((X.shape[0], D), dtype=dtype)
    return _cos_features(X, Omega, b, dtype.type(math.sqrt(2.0 / D)), out, n_threads=1)


# ----------------------------------------------------------------------------- one draw, and many

def single_sample_estimate(x, y, w, b) -> np.ndarray:
    """The one-draw estimate ``2 cos(w.x + b) cos(w.y + b)`` of ``K(x, y)``.

    Parameters
    ----------
    x, y : arrays of shape (d,)
    w : array of shape (d,) or (m, d)
        One frequency, or ``m`` of them as rows.
    b : float or array of shape (m,)

    Returns
    -------
    float or ndarray of shape (m,)
        Its mean over ``w ~ N(0, 2 gamma I)``, ``b ~ U[0, 2 pi]`` is ``exp(-gamma ||x - y||^2)``.
    """
    x, y = _same_length(x, y)
    w = as_finite(w, "w")
    if w.ndim not in (1, 2) or w.shape[-1] != x.shape[0]:
        raise ValueError(f"w must have shape ({x.shape[0]},) or (m, {x.shape[0]}) like x; "
                         f"got w with shape {w.shape}")
    b = as_finite(b, "b")
    if b.ndim != 0 and b.shape != w.shape[:-1]:
        raise ValueError(f"b must be one offset per row of w, shape {w.shape[:-1]}, or a number; "
                         f"got b with shape {b.shape} for w with shape {w.shape}")
    return 2.0 * np.cos(w @ x + b) * np.cos(w @ y + b)


def monte_carlo_kernel(x, y, gamma, n_samples=1_000_000, random_state=None, chunk=200_000):
    """Average ``n_samples`` single-sample estimates: a Monte Carlo check of unbiasedness.

    Returns
    -------
    mean : float
        The average of ``2 cos(w.x + b) cos(w.y + b)`` over the draws.
    stderr : float
        Its standard error; ``|mean - K(x, y)|`` should be a few of these at most.
    """
    x, y = _same_length(x, y)
    gamma = check_positive(gamma, "gamma")
    n_samples = check_positive_int(n_samples, "n_samples")
    chunk = check_positive_int(chunk, "chunk")
    rng = _rng(random_state)
    total = total_sq = 0.0
    for start in range(0, n_samples, chunk):
        m = min(chunk, n_samples - start)
        w = math.sqrt(2.0 * gamma) * rng.standard_normal((m, x.shape[0]))
        b = 2.0 * math.pi * rng.random(m)
        z = single_sample_estimate(x, y, w, b)
        total += z.sum()
        total_sq += (z * z).sum()
    mean = total / n_samples
    var = max(total_sq / n_samples - mean * mean, 0.0)
    return float(mean), float(math.sqrt(var / n_samples))


def rff_variance(K, n_components, paired=False):
    """Variance of ``psi(x).psi(y)`` at a pair whose kernel value is ``K``.

    Writing ``2 cos(w.x + b) cos(w.y + b) = cos(w.(x - y)) + cos(w.(x + y) + 2b)``
    and using ``E cos(w.v) = exp(-gamma ||v||^2)``:

    - cosine with offsets: ``(1 - K^2 + K^4 / 2) / D`` (the offset term adds 1/2 per draw);
    - paired [cos, sin]: ``(1 - K^2)^2 / D``, never more, and 0 at ``K = 1``.
    """
    K = as_finite(K, "K")
    if np.any((K < 0) | (K > 1)):
        raise ValueError(f"K must hold RBF kernel values, which lie in [0, 1]; got values from "
                         f"{K.min():.6g} to {K.max():.6g}")
    D = _check_width(n_components, paired)
    if paired:
        return (1.0 - K**2) ** 2 / D
    return (1.0 - K**2 + K**4 / 2.0) / D


# ----------------------------------------------------------------------------- Hoeffding

def hoeffding_bound(n_components, a, paired=False):
    """Hoeffding's bound on ``P(|K(x, y) - psi(x).psi(y)| >= a)`` at one pair.

    ``psi(x).psi(y)`` is the mean of ``D`` independent terms in ``[-2, 2]``, so

        P(|K(x, y) - psi(x).psi(y)| >= a) <= 2 exp(-2 D a^2 / 4^2) = 2 exp(-D a^2 / 8).

    The paired map averages ``D / 2`` terms in ``[-1, 1]``: ``2 exp(-D a^2 / 4)``.
    The value is returned as the formula gives it (above 1 it says nothing).
    """
    D = _widths(n_components)
    a = as_finite(a, "a")
    if np.any(a < 0):
        raise ValueError(f"the error level a must be non-negative; got a={a}")
    return 2.0 * np.exp(-D * a**2 / (4.0 if paired else 8.0))


def _widths(n_components):
    """``n_components`` (a number or an array of them) as finite positive floats."""
    D = as_finite(n_components, "n_components")
    if np.any(D <= 0):
        raise ValueError(f"n_components must be positive; got {n_components}")
    return D


def features_needed(a, delta, paired=False) -> int:
    """The smallest ``D`` for which Hoeffding's bound is at most ``delta``.

    Solving ``2 exp(-D a^2 / 8) <= delta`` gives ``D = ceil(8 ln(2 / delta) / a^2)``
    (``4 ln(2 / delta) / a^2``, rounded up to an even number, for the paired map).
    """
    a = check_positive(a, "a")
    delta = check_positive(delta, "delta")
    if delta >= 1:
        raise ValueError(f"the failure probability delta must be below 1; got delta={delta}")
    c = 4.0 if paired else 8.0
    D = math.ceil(c * math.log(2.0 / delta) / a**2 - 1e-9)
    return D + (D % 2) if paired else max(D, 1)


def approximation_errors(x, y, gamma, n_components, n_draws=1000, paired=False,
                         random_state=None) -> np.ndarray:
    """``|K(x, y) - psi(x).psi(y)|`` for ``n_draws`` independent feature maps of width ``D``.

    Only ``Omega x`` and ``Omega y`` are needed, so the draws are made in chunks
    without forming any map for other points.
    """
    x, y = _same_length(x, y)
    gamma = check_positive(gamma, "gamma")
    D = _check_width(n_components, paired)
    n_draws = check_positive_int(n_draws, "n_draws")
    rng = _rng(random_state)
    K = math.exp(-gamma * float(((x - y) ** 2).sum()))
    m = D // 2 if paired else D
    xy = np.stack([x, y], axis=1)                       # (d, 2)
    chunk = max(1, 2_000_000 // (m * x.shape[0]))
    errors = np.empty(n_draws)
    for start in range(0, n_draws, chunk):
        c = min(chunk, n_draws - start)
        phases = math.sqrt(2.0 * gamma) * rng.standard_normal((c, m, x.shape[0])) @ xy
        if paired:
            estimate = np.cos(phases[..., 0] - phases[..., 1]).mean(axis=1)
        else:
            phases += 2.0 * math.pi * rng.random((c, m, 1))
            estimate = (2.0 * np.cos(phases[..., 0]) * np.cos(phases[..., 1])).mean(axis=1)
        errors[start:start + c] = np.abs(K - estimate)
    return errors


def error_frequency(errors, a):
    """The observed frequency of ``error >= a`` (for each ``a`` when ``a`` is an array)."""
    errors = as_vector(errors, "errors")
    a = as_finite(a, "a")
    return (errors[None, :] >= a.reshape(-1, 1)).mean(axis=1).reshape(a.shape)


def max_error_over_points(X, gamma, n_components_list, paired=False, random_state=None):
    """The largest ``|K(x_i, x_j) - psi(x_i).psi(x_j)|`` over all pairs of rows of ``X``, per ``D``.

    Returns an array with one maximum per entry of ``n_components_list``, each
    from a fresh draw of the features.
    """
    X = as_2d(X, "X")
    K = rbf_gram(X, gamma=gamma)
    n_components_list = as_counts(n_components_list, "n_components_list")
    rng = _rng(random_state)
    out = []
    for D in n_components_list:
        D = _check_width(D, paired)
        Omega, b = _draw_frequencies(gamma, D, paired, X.shape[1], rng)   # RandomFourierFeatures' draws
        Z = _cos_features(X, Omega, b, math.sqrt(2.0 / D), np.empty((X.shape[0], D)), n_threads=1)
        out.append(float(np.abs(K - Z @ Z.T).max()))
    return np.array(out)


def union_bound(n_components, a, n_pairs, paired=False):
    """Chance that some pair among ``n_pairs`` has an error ``>= a``: at most
    ``min(1, n_pairs * 2 exp(-D a^2 / 8))`` (a union of the pointwise bounds)."""
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    return np.minimum(1.0, n_pairs * hoeffding_bound(n_components, a, paired))


def union_error_level(n_components, n_pairs, delta=0.05, paired=False):
    """The error ``a`` that all ``n_pairs`` pairs stay below with probability ``>= 1 - delta``.

    Solving ``n_pairs * 2 exp(-D a^2 / 8) = delta``:
    ``a = sqrt(8 ln(2 n_pairs / delta) / D)`` (4 instead of 8 when paired).
    """
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    delta = check_unit_interval(delta, "delta")
    D = _widths(n_components)
    c = 4.0 if paired else 8.0
    return np.sqrt(c * np.log(2.0 * n_pairs / delta) / D)
