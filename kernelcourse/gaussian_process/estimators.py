"""The Gaussian process estimators in scikit-learn's manner (lecture 8): regression (8.1-8.6),
classification by the Laplace approximation (8.7), and a GP on ``D`` features (8.8).

Their base classes import scikit-learn, so :mod:`kernelcourse.gaussian_process` loads this
module only when one of them is first asked for (PEP 562); what they compute comes from the
functions of ``regression``, ``classification`` and ``low_rank``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import linalg, optimize

from .._estimator import (Classifier, Regressor, as_real_targets, check_fitted, check_X, decode_binary_labels,
                          default_kernel, encode_binary_labels)
from .._validation import (as_2d, as_rng, as_vector, check_choice, check_nonnegative, check_nonnegative_int,
                           check_positive, check_positive_int, gram)
from ..kernels import RBF, Kernel
from ..nystroem import inverse_sqrt_psd
from ..random_features import RandomFourierFeatures
from .classification import laplace_gradient, laplace_latent, laplace_mode, probit_average
from .low_rank import _factor_A, low_rank_log_marginal_likelihood
from .regression import (DEFAULT_JITTER, gp_factor, marginal_likelihood, maximise_marginal_likelihood,
                         sample_gaussian)

__all__ = ["GaussianProcessRegressor", "GaussianProcessClassifier", "LowRankGaussianProcess"]


# ----------------------------------------------------------------------------- regression (8.1-8.6)
class GaussianProcessRegressor(Regressor):
    """Gaussian process regression with a zero prior mean (Rasmussen and Williams, Algorithm 2.1).

    Parameters
    ----------
    kernel : Kernel, optional
        The prior covariance; ``None`` is ``RBF(gamma=1.0)``. To learn a signal
        variance, scale the kernel: ``1.0 * Matern(...)``.
    noise : float >= 0, default 0.01
        The noise variance ``sigma^2`` (the starting value when it is optimised, then > 0);
        ``noise = 0`` interpolates the data, and is refused with a clear message when
        ``K`` is singular (repeated inputs).
    optimizer : {"lbfgs", None}, default "lbfgs"
        Maximise the log marginal likelihood over the kernel's log-parameters (and
        ``log noise`` if ``optimize_noise``), or keep the parameters as given.
    optimize_noise : bool, default True
    n_restarts_optimizer : int >= 0, default 0
        Further runs from random starts in ``bounds``; ``optima_`` lists every run.
    bounds : (float, float), default (1e-5, 1e5)
        The box of every parameter while optimising.
    random_state : None, int or Generator
        For the restarts' starting points.
    restart_box : {"bounds", "data"}, default "bounds"
        Where the restarts start: log-uniform in ``bounds`` (as scikit-learn), or in the box
        :func:`data_scaled_starts` sets from the inputs' distances and ``var(y)``.

    Attributes
    ----------
    kernel_, noise_ : the parameters used (optimised or as given)
    X_fit_, y_fit_ : the training data (copies)
    L_, alpha_ : the Cholesky factor of ``K + noise_ I`` and ``(K + noise_ I)^-1 y``
    log_marginal_likelihood_ : float
    optima_ : list of :class:`Optimum`, best first (empty when ``optimizer=None``)
    """

    def __init__(self, kernel=None, noise=0.01, optimizer="lbfgs", optimize_noise=True,
                 n_restarts_optimizer=0, bounds=(1e-5, 1e5), random_state=None, restart_box="bounds"):
        self.kernel = kernel
        self.noise = noise
        self.optimizer = optimizer
        self.optimize_noise = optimize_noise
        self.n_restarts_optimizer = n_restarts_optimizer
        self.bounds = bounds
        self.random_state = random_state
        self.restart_box = restart_box

    def _prior_kernel(self):
        kernel = default_kernel(self.kernel)
        if isinstance(kernel, str):
            raise TypeError(f"kernel must be a kernel object; got the name {kernel!r}: build it, e.g. RBF(gamma=1.0)")
        return kernel

    def fit(self, X, y):
        """Optimise the parameters (unless ``optimizer=None``), then factor ``K + noise I``; returns self."""
        X = check_X(self, X, reset=True)
        y = as_real_targets(self, y, X.shape[0])
        noise = check_nonnegative(self.noise, "noise")
        if self.optimizer not in ("lbfgs", None):
            raise ValueError(f"optimizer must be 'lbfgs' or None; got optimizer={self.optimizer!r}")
        if self.optimizer and self.optimize_noise and noise == 0:
            raise ValueError("noise must be positive when it is optimised (log noise is the parameter); "
                             "got noise=0.0: start from a positive noise, or set optimize_noise=False")
        kernel = self._prior_kernel()
        self.optima_ = []
        if self.optimizer == "lbfgs" and (kernel.hyperparameters() or self.optimize_noise):
            n_restarts = check_nonnegative_int(self.n_restarts_optimizer, "n_restarts_optimizer")
            self.optima_ = maximise_marginal_likelihood(
                kernel, X, y, noise, bool(self.optimize_noise), n_restarts, self.bounds,
                self.random_state, self.restart_box)
            kernel, noise = self.optima_[0].kernel, self.optima_[0].noise
        self.kernel_, self.noise_ = kernel, noise
        self.L_, self.alpha_ = gp_factor(gram(kernel, X), y, noise)
        n = len(y)
        self.log_marginal_likelihood_ = float(-0.5 * y @ self.alpha_ - np.sum(np.log(np.diag(self.L_)))
                                              - 0.5 * n * math.log(2.0 * math.pi))
        self.X_fit_, self.y_fit_ = X.copy(), y.copy()
        return self

    def predict(self, X, return_std=False, return_cov=False, with_noise=False):
        """Posterior mean of ``f`` at the rows of ``X``; with ``return_std`` (or ``return_cov``) also
        its standard deviation (covariance), of ``f``, or of ``y`` with ``with_noise=True``.

        Before ``fit``, the prior: mean 0 and the kernel's covariance.
        """
        if return_std and return_cov:
            raise ValueError("return_std and return_cov cannot both be True: ask for one of them")
        if not hasattr(self, "alpha_"):
            X = as_2d(X, "X")
            kernel, noise = self._prior_kernel(), check_nonnegative(self.noise, "noise")
            mean = np.zeros(X.shape[0])
            cov = gram(kernel, X) if return_cov else None
            var = kernel.diag(X) if return_std else None
        else:
            X = check_X(self, X, reset=False)
            kernel, noise = self.kernel_, self.noise_
            K_new = gram(kernel, X, self.X_fit_)
            mean = K_new @ self.alpha_
            if not (return_std or return_cov):
                return mean
            v = linalg.solve_triangular(self.L_, K_new.T, lower=True, check_finite=False)
            cov = var = None
            if return_cov:
                cov = gram(kernel, X) - v.T @ v
                cov = (cov + cov.T) / 2.0
            else:
                var = np.maximum(kernel.diag(X) - np.einsum("ij,ij->j", v, v), 0.0)
        extra = noise if with_noise else 0.0
        if return_cov:
            return mean, cov + extra * np.eye(len(mean))
        if return_std:
            return mean, np.sqrt(var + extra)
        return mean

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False     # before fit, predict and sample_y give the prior, as scikit-learn's
        return tags

    def sample_y(self, X, n_samples=1, random_state=0, jitter=DEFAULT_JITTER):
        """Sample paths of ``f`` at the rows of ``X``, shape ``(m, n_samples)``: from the posterior
        after ``fit``, from the prior before."""
        mean, cov = self.predict(X, return_cov=True)
        return sample_gaussian(mean, cov, n_samples, random_state, jitter)

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """``log p(y | X)`` at ``theta`` (the kernel's log-parameters, then ``log noise``), by
        default at the fitted parameters; with ``eval_gradient`` also its gradient."""
        check_fitted(self, "alpha_")
        if theta is None and not eval_gradient:
            return self.log_marginal_likelihood_
        if theta is None:
            theta = np.append(self.kernel_.theta, math.log(self.noise_))
        theta = as_vector(theta, "theta")
        p = len(self.kernel_.hyperparameters())
        if len(theta) != p + 1:
            raise ValueError(f"theta must hold {p + 1} values (the kernel's {p} log-parameters "
                             f"{self.kernel_.hyperparameters()}, then log noise); got shape {theta.shape}")
        kernel, noise = self.kernel_.with_theta(theta[:p]), math.exp(theta[p])
        return marginal_likelihood(kernel, self.X_fit_, self.y_fit_, noise, eval_gradient)


# ----------------------------------------------------------------------------- classification (8.7)
class GaussianProcessClassifier(Classifier):
    """Binary GP classification by the Laplace approximation (Algorithms 3.1, 3.2, 5.1).

    Parameters
    ----------
    kernel : Kernel, optional
        ``None`` is ``RBF(gamma=1.0)``; ``c * k`` lets the optimizer learn the latent scale.
    optimizer : {"lbfgs", None}, default "lbfgs"
        Maximise the approximate log marginal likelihood over the kernel's log-parameters.
    n_restarts_optimizer : int >= 0, default 0
    bounds : (float, float), default (1e-5, 1e5)
    random_state : None, int or Generator
    max_iter : int, default 100
        Newton steps for the mode.

    Attributes
    ----------
    classes_, kernel_, X_fit_, mode_ (:class:`LaplaceMode`), n_iter_ (Newton steps at the end),
    log_marginal_likelihood_,
    optima_ (list of ``(theta, log marginal likelihood)`` per run, best first)
    """

    def __init__(self, kernel=None, optimizer="lbfgs", n_restarts_optimizer=0, bounds=(1e-5, 1e5),
                 random_state=None, max_iter=100):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.bounds = bounds
        self.random_state = random_state
        self.max_iter = max_iter

    def fit(self, X, y):
        """Find the mode (after choosing the kernel's parameters unless ``optimizer=None``); returns self."""
        X = check_X(self, X, reset=True)
        y = encode_binary_labels(self, y, X.shape[0])
        max_iter = check_positive_int(self.max_iter, "max_iter")
        if self.optimizer not in ("lbfgs", None):
            raise ValueError(f"optimizer must be 'lbfgs' or None; got optimizer={self.optimizer!r}")
        kernel = default_kernel(self.kernel)
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a kernel object; got {kernel!r}: build it, e.g. RBF(gamma=1.0)")
        self.optima_ = []
        if self.optimizer == "lbfgs" and kernel.hyperparameters():
            low, high = (math.log(check_positive(b, "bounds")) for b in self.bounds)
            n_restarts = check_nonnegative_int(self.n_restarts_optimizer, "n_restarts_optimizer")

            def negative(theta):
                K, dK = kernel.with_theta(theta).gram_gradient(X)
                value, grad = laplace_gradient(K, dK, y, max_iter=max_iter)
                return -value, -grad

            rng = as_rng(self.random_state)
            theta0 = np.clip(kernel.theta, low, high)
            starts = [theta0] + [rng.uniform(low, high, len(theta0)) for _ in range(n_restarts)]
            for start in starts:
                res = optimize.minimize(negative, start, jac=True, method="L-BFGS-B",
                                        bounds=[(low, high)] * len(start))
                self.optima_.append((np.asarray(res.x, float), float(-res.fun)))
            self.optima_.sort(key=lambda o: -o[1])
            kernel = kernel.with_theta(self.optima_[0][0])
        self.kernel_ = kernel
        self.X_fit_, self.y_fit_ = X.copy(), y
        self.mode_ = laplace_mode(gram(kernel, X), y, max_iter=max_iter)
        self.log_marginal_likelihood_ = self.mode_.log_marginal_likelihood
        self.n_iter_ = self.mode_.n_iter
        return self

    def latent_mean_and_variance(self, X):
        """The latent ``f(x*)``'s approximate mean and variance at the rows of ``X``."""
        check_fitted(self, "mode_")
        X = check_X(self, X, reset=False)
        return laplace_latent(self.mode_, self.y_fit_, gram(self.kernel_, X, self.X_fit_), self.kernel_.diag(X))

    def decision_function(self, X):
        """The log-odds ``log(p / (1 - p))`` of the predictive probability ``p`` of ``classes_[1]``.

        Positive exactly where the latent mean is (averaging the sigmoid over a normal law
        centred at the mean keeps it on the same side of 1/2), and ordered as ``predict_proba``;
        ``p`` and ``1 - p`` are both averaged, so neither is lost to rounding.
        """
        mean, var = self.latent_mean_and_variance(X)
        return np.log(probit_average(mean, var)) - np.log(probit_average(-mean, var))

    def predict_proba(self, X):
        """``[P(classes_[0]), P(classes_[1])]`` per row, shape ``(m, 2)``, averaged over the latent law."""
        mean, var = self.latent_mean_and_variance(X)
        p = probit_average(mean, var)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """The class whose probability exceeds 1/2, i.e. the sign of the latent mean."""
        return decode_binary_labels(self, self.decision_function(X) > 0)

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """The approximate ``log p(y | X)`` at ``theta`` (the kernel's log-parameters; default the
        fitted ones); with ``eval_gradient`` also its gradient."""
        check_fitted(self, "mode_")
        if theta is None and not eval_gradient:
            return self.log_marginal_likelihood_
        kernel = self.kernel_ if theta is None else self.kernel_.with_theta(theta)
        K, dK = kernel.gram_gradient(self.X_fit_)
        value, grad = laplace_gradient(K, dK, self.y_fit_, max_iter=self.max_iter)
        return (value, grad) if eval_gradient else value


# ----------------------------------------------------------------------------- on D features (8.8)
class LowRankGaussianProcess(Regressor):
    """GP regression on ``D`` features: Nystroem's inducing points or random Fourier features.

    Parameters
    ----------
    kernel : Kernel, optional
        ``None`` is ``RBF(gamma=1.0)``; ``method="fourier"`` needs an :class:`~kernelcourse.kernels.RBF`.
    n_components : int, default 100
        The number ``m`` of inducing points (at most ``n``) or ``D`` of random features.
    method : {"nystroem", "fourier"}, default "nystroem"
    noise : float > 0, default 0.01
        ``sigma^2``.
    random_state : None, int or Generator
        Draws the inducing points or the frequencies.

    Attributes
    ----------
    components_ : the inducing points (``nystroem``); ``features_`` the fitted random map (``fourier``)
    weight_mean_ : ``A^-1 Phi^T y``; ``L_`` the Cholesky factor of ``A = Phi^T Phi + noise I``
    log_marginal_likelihood_ : float
    """

    def __init__(self, kernel=None, n_components=100, method="nystroem", noise=0.01, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.method = method
        self.noise = noise
        self.random_state = random_state

    def _features(self, X):
        if self.method == "fourier":
            return self.features_.transform(X)
        return gram(self.kernel_, X, self.components_) @ self.normalization_

    def fit(self, X, y):
        """Draw the features, then solve the ``D x D`` system; returns self."""
        X = check_X(self, X, reset=True)
        y = as_real_targets(self, y, X.shape[0])
        noise = check_positive(self.noise, "noise")
        m = check_positive_int(self.n_components, "n_components")
        check_choice(self.method, "method", ("nystroem", "fourier"))
        self.kernel_ = default_kernel(self.kernel)
        rng = as_rng(self.random_state)
        if self.method == "fourier":
            if not isinstance(self.kernel_, RBF):
                raise ValueError(f"method='fourier' draws the random features of an RBF kernel; got kernel "
                                 f"{self.kernel_!r}: use method='nystroem'")
            self.features_ = RandomFourierFeatures(gamma=self.kernel_.gamma, n_components=m,
                                                   random_state=rng).fit(X)
        else:
            chosen = rng.choice(X.shape[0], size=min(m, X.shape[0]), replace=False)
            self.components_ = X[np.sort(chosen)].copy()
            self.normalization_, self.rank_ = inverse_sqrt_psd(gram(self.kernel_, self.components_))
        Phi = self._features(X)
        self.L_ = _factor_A(Phi, noise)
        self.weight_mean_ = linalg.cho_solve((self.L_, True), Phi.T @ y, check_finite=False)
        self.noise_ = noise
        self.log_marginal_likelihood_ = low_rank_log_marginal_likelihood(Phi, y, noise)
        return self

    def predict(self, X, return_std=False, with_noise=False, variance="sor"):
        """Posterior mean of ``f`` at the rows of ``X``; with ``return_std`` also its standard
        deviation (of ``y`` with ``with_noise=True``).

        ``variance="sor"``: that of the low-rank model, ``sigma^2 phi^T A^-1 phi``, too small away
        from the inducing points; ``"dtc"``: plus ``k(x, x) - phi(x)^T phi(x)``, the prior variance
        the features miss (the deterministic training conditional's predictive variance).
        """
        check_fitted(self, "weight_mean_")
        check_choice(variance, "variance", ("sor", "dtc"))
        X = check_X(self, X, reset=False)
        Phi_new = self._features(X)
        mean = Phi_new @ self.weight_mean_
        if not return_std:
            return mean
        V = linalg.solve_triangular(self.L_, Phi_new.T, lower=True, check_finite=False)
        var = self.noise_ * np.einsum("ij,ij->j", V, V)
        if variance == "dtc":
            var = var + np.maximum(self.kernel_.diag(X) - np.einsum("ij,ij->i", Phi_new, Phi_new), 0.0)
        return mean, np.sqrt(var + (self.noise_ if with_noise else 0.0))
