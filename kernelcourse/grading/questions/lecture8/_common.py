"""Helpers shared by lecture 8's question modules: a one-dimensional data set and its kernel."""
from __future__ import annotations

import numpy as np

from ....kernels import Matern

GP = "kernelcourse.gaussian_process."
#: every function and estimator of the package that computes a GP's posterior
POSTERIOR = tuple(GP + name for name in (
    "posterior_mean_var", "posterior_cov", "gp_factor", "GaussianProcessRegressor",
    "weight_space_posterior", "LowRankGaussianProcess"))


def inputs(rng, n, low=-3.0, high=3.0):
    """``n`` sorted inputs in ``[low, high]``, rounded to 3 decimals, as an ``(n, 1)`` array."""
    return np.sort(np.round(rng.uniform(low, high, n), 3))[:, None]


def smooth_kernel(rng, scale=None):
    """``c * Matern(l, inf)`` (the RBF in length-scale form) with ``l`` in [0.8, 1.5]."""
    scale = float(np.round(rng.uniform(0.8, 2.0), 2)) if scale is None else scale
    return scale * Matern(float(np.round(rng.uniform(0.8, 1.5), 2)), np.inf)


def rough_kernel(rng, scale=None):
    """``c * Matern(l, 0.5)``, the exponential kernel: its Gram matrix is well conditioned."""
    scale = float(np.round(rng.uniform(0.8, 2.0), 2)) if scale is None else scale
    return scale * Matern(float(np.round(rng.uniform(0.5, 1.5), 2)), 0.5)
