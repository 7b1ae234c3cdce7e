"""Bochner's theorem: the spectral measure behind random Fourier features (lecture 2.11).

A continuous shift-invariant kernel ``k(x, y) = kappa(x - y)`` with ``kappa(0) = 1`` is PSD
exactly when ``kappa(delta) = E[cos(w.delta)]`` for a probability measure on the frequencies
``w`` (Bochner 1932; Rahimi and Recht 2007 build their features on it). This module draws
from that measure for the kernels of the course (:func:`spectral_frequencies`), estimates a
kernel value from it (:func:`bochner_estimate`), computes the 1-D spectral density of a
profile by quadrature (:func:`spectral_density_1d`), and splits the random-feature identity
into its two terms with their moments (:func:`identity_terms`, :func:`term_moments`).
The features themselves are in :mod:`kernelcourse.random_features`.
"""
from __future__ import annotations

import math

import numpy as np

from kernelcourse._validation import as_finite, check_positive, check_positive_int
from kernelcourse.random_features.approximation import _rng, _same_length, _vector

__all__ = ["spectral_frequencies", "bochner_estimate", "spectral_density_1d", "identity_terms",
           "term_moments"]


def spectral_frequencies(kernel, d, n_samples, random_state=None):
    """Frequencies ``w`` drawn from the spectral measure of a shift-invariant kernel.

    Bochner's theorem: a continuous ``k(x, y) = kappa(x - y)`` with ``kappa(0) = 1`` is PSD
    exactly when ``kappa(delta) = E[cos(w.delta)]`` for a probability measure ``p`` on the
    frequencies (the Fourier transform of ``p``). For the kernels of the course:

    - ``RBF(gamma)``, ``exp(-gamma ||delta||^2)``: ``p = N(0, 2 gamma I)``, because
      ``E cos(w.delta) = exp(-s^2 ||delta||^2 / 2)`` for ``w ~ N(0, s^2 I)``, and
      ``s^2 / 2 = gamma`` needs ``s^2 = 2 gamma``;
    - ``Laplacian(gamma)``, ``exp(-gamma ||delta||_1)``: each coordinate of ``w`` an independent
      Cauchy variable of scale ``gamma`` (the Cauchy's characteristic function is
      ``exp(-gamma |t|)``, and the kernel is a product over the coordinates);
    - ``Exponential(gamma)``, ``exp(-gamma ||delta||)``: the multivariate Cauchy,
      ``w = gamma g / |u|`` with ``g ~ N(0, I_d)`` and ``u ~ N(0, 1)``.

    Parameters
    ----------
    kernel : kernels.RBF, kernels.Laplacian or kernels.Exponential
    d : int
        The input dimension.
    n_samples : int
    random_state : None, int or numpy Generator

    Returns
    -------
    W : array of shape (n_samples, d)
    """
    from kernelcourse.kernels import RBF, Exponential, Laplacian

    d = check_positive_int(d, "d")
    n_samples = check_positive_int(n_samples, "n_samples")
    rng = _rng(random_state)
    if type(kernel) is RBF:
        return math.sqrt(2.0 * kernel.gamma) * rng.standard_normal((n_samples, d))
    if type(kernel) is Laplacian:
        return kernel.gamma * rng.standard_cauchy((n_samples, d))
    if type(kernel) is Exponential:
        g = rng.standard_normal((n_samples, d))
        u = np.abs(rng.standard_normal((n_samples, 1)))
        return kernel.gamma * g / u
    raise TypeError(f"kernel must be kernels.RBF, kernels.Laplacian or kernels.Exponential (the "
                    f"shift-invariant kernels whose spectral measure is known here); got {kernel!r}")


def bochner_estimate(kernel, delta, n_samples=200_000, random_state=None):
    """``E[cos(w.delta)]`` over ``w`` from the kernel's spectral measure, by Monte Carlo.

    Bochner's theorem says this equals ``kappa(delta) = k(x, x + delta)``.

    Returns
    -------
    mean : float
    stderr : float
        The standard error of the mean (each term lies in [-1, 1]).
    """
    delta = _vector(delta, "delta")
    W = spectral_frequencies(kernel, delta.shape[0], n_samples, random_state)
    c = np.cos(W @ delta)
    return float(c.mean()), float(c.std() / math.sqrt(n_samples))


def spectral_density_1d(profile, omega, half_width=40.0, n_grid=40_001):
    """The spectral density ``p(w) = (1 / 2 pi) int kappa(t) cos(w t) dt`` of a 1-D profile.

    ``profile`` is the even function ``kappa`` of a shift-invariant kernel on the line,
    ``k(x, z) = kappa(x - z)``; the integral runs over ``[-half_width, half_width]`` by the
    trapezoidal rule on ``n_grid`` points (``kappa`` must be negligible beyond). Bochner:
    the kernel is PSD exactly when ``p`` is nowhere negative.

    Parameters
    ----------
    profile : callable
        ``profile(t)`` on an array of offsets ``t``.
    omega : array of shape (m,)
        The frequencies at which to evaluate ``p``.

    Returns
    -------
    p : array of shape (m,)
    """
    if not callable(profile):
        raise TypeError(f"profile must be a function of the offsets t; got {type(profile).__name__}")
    omega = as_finite(omega, "omega")
    if omega.ndim != 1 or omega.size == 0:
        raise ValueError(f"omega must be a non-empty 1-D array of frequencies; got shape {omega.shape}")
    half_width = check_positive(half_width, "half_width")
    n_grid = check_positive_int(n_grid, "n_grid")
    if n_grid < 3:
        raise ValueError(f"n_grid must be at least 3; got n_grid={n_grid}")
    t = np.linspace(-half_width, half_width, n_grid)
    k = np.asarray(profile(t), dtype=float)
    if k.shape != t.shape or not np.all(np.isfinite(k)):
        raise ValueError(f"profile(t) must return one finite number per offset, shape {t.shape}; "
                         f"got shape {k.shape}")
    weights = np.full(n_grid, t[1] - t[0])
    weights[[0, -1]] /= 2
    return (np.cos(np.outer(omega, t)) @ (weights * k)) / (2.0 * math.pi)


def identity_terms(x, y, w, b):
    """The two terms of ``2 cos(w.x + b) cos(w.y + b) = cos(w.(x - y)) + cos(w.(x + y) + 2b)``.

    The first has mean ``K(x, y)`` over ``w`` (Bochner), the second mean 0 over ``b``
    (``2b`` runs over two full periods); their sum is :func:`single_sample_estimate`.

    Returns
    -------
    difference, offset : arrays of shape (m,)
        ``cos(w.(x - y))`` and ``cos(w.(x + y) + 2b)``, one per row of ``w``.
    """
    x, y = _same_length(x, y)
    w = as_finite(w, "w")
    if w.ndim != 2 or w.shape[1] != x.shape[0]:
        raise ValueError(f"w must have shape (m, {x.shape[0]}): one frequency per row, like x; "
                         f"got w with shape {w.shape}")
    b = as_finite(b, "b")
    if b.shape != (w.shape[0],):
        raise ValueError(f"b must hold one offset per row of w, shape ({w.shape[0]},); "
                         f"got b with shape {b.shape}")
    return np.cos(w @ (x - y)), np.cos(w @ (x + y) + 2.0 * b)


def term_moments(K):
    """The second moments of the two terms of :func:`identity_terms`, at kernel value ``K``.

    For the RBF kernel, ``E cos(w.v) = exp(-gamma ||v||^2)``, so with ``delta = x - y``:

    - ``E[cos^2(w.delta)] = (1 + E cos(2 w.delta)) / 2 = (1 + K^4) / 2``
      (doubling ``delta`` raises ``K`` to the power 4);
    - ``E[cos^2(w.(x + y) + 2b)] = 1/2`` (the offset makes the phase uniform);
    - the cross term has mean 0 over ``b``.

    Hence one cosine-with-offset term has variance ``1 + K^4/2 - K^2``, and one paired term
    (``cos(w.delta)`` alone) ``(1 + K^4)/2 - K^2 = (1 - K^2)^2 / 2``; ``D`` terms, or ``D/2``
    pairs, divide these by ``D`` and ``D/2``: :func:`rff_variance`.

    Returns
    -------
    dict of arrays
        ``difference_sq``, ``offset_sq``, ``cross``, ``offset_variance`` (one term of the
        cosine-with-offset map) and ``paired_variance`` (one term ``cos(w.delta)``).
    """
    K = as_finite(K, "K")
    if np.any((K < 0) | (K > 1)):
        raise ValueError(f"K must hold RBF kernel values, which lie in [0, 1]; got values from "
                         f"{K.min():.6g} to {K.max():.6g}")
    difference_sq = (1.0 + K**4) / 2.0
    offset_sq = np.full_like(K, 0.5)
    return {"difference_sq": difference_sq, "offset_sq": offset_sq, "cross": np.zeros_like(K),
            "offset_variance": difference_sq + offset_sq - K**2,
            "paired_variance": difference_sq - K**2}
