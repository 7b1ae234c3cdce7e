"""Choosing the bandwidth: bias and variance of the fitted function against gamma (lecture 5.11)."""

from __future__ import annotations


import numpy as np

from .._validation import as_positives, as_rng, check_nonnegative, check_positive_int
from ..kernels import RBF
from .functions import representer_minimiser


def sample_sine(n, noise=0.3, rng=None):
    """``n`` points ``x ~ U[0, 1]`` with ``y = sin(2 pi x) + noise * N(0, 1)``; X has shape (n, 1)."""
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    rng = as_rng(rng, "rng")
    x = rng.uniform(0.0, 1.0, size=n)
    return x[:, None], np.sin(2 * np.pi * x) + noise * rng.normal(size=n)



def bandwidth_bias_variance(kernel, lam=0.01, n=30, noise=0.3, n_datasets=40, n_grid=100, seed=0):
    """Squared bias and variance of the regularised least-squares fit over many data sets.

    Fits :func:`representer_minimiser` to ``n_datasets`` fresh samples of
    :func:`sample_sine` and compares the fits on a grid of ``[0, 1]`` with the truth::

        bias^2   = mean_x (mean_D f_D(x) - sin(2 pi x))^2
        variance = mean_x var_D f_D(x)

    Returns
    -------
    dict
        ``grid`` (n_grid,), ``truth`` (n_grid,), ``fits`` (n_datasets, n_grid), ``bias2``, ``variance``.
    """
    n_datasets = check_positive_int(n_datasets, "n_datasets")
    rng = as_rng(seed, "seed")
    grid = np.linspace(0.0, 1.0, check_positive_int(n_grid, "n_grid"))
    fits = np.array([representer_minimiser(kernel, *sample_sine(n, noise, rng), lam)(grid[:, None])
                     for _ in range(n_datasets)])
    truth = np.sin(2 * np.pi * grid)
    return {"grid": grid, "truth": truth, "fits": fits,
            "bias2": float(np.mean((fits.mean(axis=0) - truth) ** 2)),
            "variance": float(np.mean(fits.var(axis=0)))}



def bias_variance_sweep(gammas, lam=0.01, **kwargs):
    """:func:`bandwidth_bias_variance` for the RBF kernel at each ``gamma`` (same data sets).

    Returns
    -------
    dict of ndarray
        ``gamma``, ``bias2``, ``variance`` and ``total`` (``bias2 + variance``: the mean
        squared distance of the fits from the truth).
    """
    gammas = np.array(as_positives(gammas, "gammas", item="gamma"))
    rows = [bandwidth_bias_variance(RBF(g), lam=lam, **kwargs) for g in gammas]
    bias2 = np.array([r["bias2"] for r in rows])
    variance = np.array([r["variance"] for r in rows])
    return {"gamma": gammas, "bias2": bias2, "variance": variance, "total": bias2 + variance}


def median_heuristic(X):
    """The median heuristic for the RBF width: ``gamma = 1 / median ||x_i - x_j||^2`` over pairs ``i < j``.

    A scale-aware starting point for ``gamma`` (``exp(-gamma ||x - z||^2)`` is ``1/e`` at the
    median squared distance); it looks at the inputs only, never at the targets, so it is a
    first guess to refine by cross-validation, not a choice.
    """
    from .._validation import as_2d

    X = as_2d(X)
    if X.shape[0] < 2:
        raise ValueError(f"X must hold at least two points to have a distance; got X with shape {X.shape}")
    i, j = np.triu_indices(X.shape[0], k=1)
    d2 = np.sum((X[i] - X[j]) ** 2, axis=1)
    med = float(np.median(d2))
    if med <= 0:
        raise ValueError("X: the median squared distance between its points is 0 (over half the pairs "
                         "coincide); the median heuristic needs distinct points")
    return 1.0 / med
