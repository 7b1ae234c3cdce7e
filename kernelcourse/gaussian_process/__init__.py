"""Gaussian processes (lecture 8): the Bayesian twin of kernel ridge regression.

Where each part lives
---------------------
``regression``
    Prior and posterior samples (a Cholesky factor with a stated jitter), the posterior by
    Rasmussen and Williams' Algorithm 2.1, the log marginal likelihood and its gradient in
    every log-parameter of a kernel built with ``+``, ``*`` and ``c *``, its maximisation
    from several starts, and the coverage of predictive intervals (8.1-8.6).
``evidence``
    Reading the marginal likelihood: its three terms, grid maxima of its landscape,
    leave-one-out in closed form, and the RKHS norms of sample paths (8.4-8.5).
``classification``
    The Laplace approximation for binary classification: Algorithms 3.1, 3.2 and 5.1 (8.7).
``low_rank``
    A GP on ``D`` features, exact or approximate (Nystroem's inducing points, random
    Fourier features), computed in weight space in ``O(n D^2)`` (8.8).
``estimators``
    :class:`GaussianProcessRegressor`, :class:`GaussianProcessClassifier` and
    :class:`LowRankGaussianProcess`, in scikit-learn's manner.

Every public name is imported from ``kernelcourse.gaussian_process`` itself; the estimators are
loaded when first asked for (PEP 562), since their base classes import scikit-learn, which the
functions (what exercise set 8 checks first) never need.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes
from .classification import (LaplaceMode, laplace_gradient, laplace_latent, laplace_mode, laplace_newton_step,
                             probit_average)
from .evidence import evidence_terms, grid_local_maxima, interpolant_norms, loo_predictive
from .low_rank import low_rank_log_marginal_likelihood, weight_space_posterior
from .regression import (DEFAULT_JITTER, Optimum, cholesky_jittered, data_scaled_starts,
                         gp_factor,
                         interval_coverage, log_marginal_likelihood, log_marginal_likelihood_gradient,
                         marginal_likelihood, maximise_marginal_likelihood, posterior_cov, posterior_mean_var,
                         prior_samples, sample_gaussian)

__all__ = [
    "DEFAULT_JITTER", "cholesky_jittered", "sample_gaussian", "prior_samples", "gp_factor",
    "posterior_mean_var", "posterior_cov", "log_marginal_likelihood", "log_marginal_likelihood_gradient",
    "marginal_likelihood", "Optimum", "data_scaled_starts", "maximise_marginal_likelihood", "interval_coverage",
    "evidence_terms", "grid_local_maxima", "loo_predictive", "interpolant_norms",
    "GaussianProcessRegressor",
    "LaplaceMode", "laplace_newton_step", "laplace_mode", "laplace_latent", "probit_average", "laplace_gradient",
    "GaussianProcessClassifier",
    "weight_space_posterior", "low_rank_log_marginal_likelihood", "LowRankGaussianProcess",
]

if TYPE_CHECKING:  # never runs: the edges for type checkers and tests/test_imports.py
    from .estimators import GaussianProcessClassifier, GaussianProcessRegressor, LowRankGaussianProcess

#: the names defined in a submodule loaded when first asked for (name -> submodule): they
#: import scikit-learn (their base classes)
_LAZY = dict.fromkeys(("GaussianProcessRegressor", "GaussianProcessClassifier", "LowRankGaussianProcess"),
                      "estimators")

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
