"""Bad-input sweep over every public function and class of the math modules.

Every entry of ``ENTRIES``, fed each family of bad arrays in each array argument,
and every entry of ``SCALARS``, fed each family of bad values in each scalar
argument (sizes, widths, step sizes, seeds, choices, kernels, callables), must
raise ValueError/TypeError whose message names the argument. Valid variants give
the same answers: lists, float32, int and bool arrays for arrays; NumPy scalars
and ints for scalars; scikit-learn's kernel names for kernel objects.

``test_every_public_callable_is_swept_or_listed`` enumerates the public callables
of the math modules and requires each to be swept here or listed in ``NOT_SWEPT``
with its reason. ``sweep_counts`` classifies every outcome as a clear error, a
silent answer or an unhelpful error; the sweep requires 0 of the last two.
Print the counts with ``python -m pytest tests/test_bad_input.py -q -s -k counts``.
"""
import importlib
import inspect
import re

import numpy as np
import pytest

from kernelcourse import (bochner, chunked_ridge, cost_model, datasets, dual, feature_space, features,
                          gaussian_process, gradient_descent, kernel_pca, mean_embeddings, nystroem, perceptron,
                          random_features, ridge, rkhs, scaling, sgd, svm)
from kernelcourse import kernels
from kernelcourse.kernels import (RBF, AllSubsets, Bilinear, Composed, Delta, Exp, Exponential, ExpSineSquared,
                                  Laplacian, Linear, Matern, Normalized, Polynomial, PolynomialOf, Scaled, Sigmoid)

_rng = np.random.default_rng(0)
X = _rng.normal(size=(6, 2))
y_lab = np.array([1.0, -1, 1, -1, 1, -1])
y_real = _rng.normal(size=6)
K = RBF(gamma=0.5)(X)
a = _rng.normal(size=6)
Omega = _rng.normal(size=(4, 2))
idx = _rng.integers(0, 6, size=10)
# more inputs, drawn after the ones above so that those keep their values
b_off = _rng.uniform(0.0, 2.0 * np.pi, size=4)
w2 = _rng.normal(size=2)
beta = _rng.normal(size=6)
K_new = RBF(gamma=0.5)(X[:3], X)
Phi = features.polynomial_map(X, 2)            # (6, 6) explicit features
U = _rng.normal(size=(6, 3))
errors = np.abs(_rng.normal(size=20))
X1 = np.linspace(0.0, 1.0, 6)[:, None]          # one feature, for the sine data of lecture 5
y1 = np.sin(2 * np.pi * X1[:, 0])
A_moment = Phi.T @ Phi
c_moment = Phi.T @ y_real
order = np.array([2, 0, 1, 5, 4, 3])
RBF05 = RBF(gamma=0.5)                          # the kernel "rbf" names for 2 features
X_probe = X[:2] + 0.5                           # where models fitted on a swept X are read
alpha_box = np.clip(np.abs(a), 0.0, 1.0) * 0.5  # multipliers inside the SVM's box [0, C = 1]
Y2 = X[::-1] * 0.5 + 0.3                        # a second sample (lecture 9), or the paired y_i
ME = mean_embeddings


def _null_of(func, **fixed):
    """A permutation test compared by its statistic and its permuted statistics."""
    def run(**kw):
        result = func(**fixed, **kw)
        return [result.statistic, result.null]
    return run


def _two_samples(rng):
    return X, Y2


def _bump(Z):
    """A positive function of the rows, for Scaled."""
    return np.exp(-0.1 * np.sum(np.asarray(Z) ** 2, axis=1))


# ------------------------------------------------------------------ how entries are run

def _fit_predict(cls, **kw):
    def run(X, y):
        return cls(**kw).fit(X, y).predict(X)
    return run


def _fitted(cls, data, method="predict", **kw):
    """``method`` of a model fitted once on ``data``, called on the swept input."""
    model = cls(**kw).fit(*data)

    def run(**inputs):
        return getattr(model, method)(*inputs.values())
    return run


def _est(cls, data=(X, y_lab), method="predict", X_new=X):
    """Constructor parameters swept: fit on ``data``, then ``method(X_new)``."""
    def run(**params):
        model = cls(**params).fit(*data)
        return getattr(model, method)(X_new)
    return run


def _rkhs_values(func, **kw):
    """An RKHS fit compared by its values on the training inputs."""
    def run(X, y, **more):
        return func(X=X, y=y, **kw, **more)(np.asarray(X, dtype=float))
    return run


def _kernel_values(cls):
    """A kernel built from the swept parameters, compared by its Gram matrix on X."""
    def run(**params):
        return cls(**params)(X)
    return run


F0 = rkhs.RKHSFunction(RBF05, X[:4], a[:4])
G0 = rkhs.RKHSFunction(RBF05, X[2:], beta[:4])


def _functional(factory):
    """A functional made from the swept inputs, compared by its value and gradient at F0."""
    def run(**kw):
        E = factory(**kw)
        return np.array([E(F0), E.gradient(F0)(X).sum()])
    return run


def _machine():
    return rkhs.OnlineKernelMachine(RBF05, loss="hinge", eta=0.1).fit(X, y_lab)


MACHINE = _machine()
LAPLACE = gaussian_process.laplace_mode(K, y_lab)
KERNEL_INSTANCES = {
    "Linear": Linear(), "Polynomial": Polynomial(2, gamma=0.5, coef0=1.0), "RBF": RBF05,
    "Laplacian": Laplacian(0.5), "Exponential": Exponential(0.5), "Sigmoid": Sigmoid(0.5, 0.1),
    "Delta": Delta(), "AllSubsets": AllSubsets(), "Sum": Linear() + RBF05,
    "Product": Linear() * Polynomial(2), "ConstantScaled": 2.0 * Linear(), "Exp": Exp(Linear()),
    "PolynomialOf": PolynomialOf(Linear(), [1.0, 0.5]), "Scaled": Scaled(Linear(), _bump),
    "Bilinear": Bilinear(np.array([[2.0, 0.5], [0.5, 1.0]])),
    "Composed": Composed(Linear(), features.quadratic_map), "Normalized": Normalized(Linear()),
    "Matern": Matern(0.7, 2.5), "ExpSineSquared": ExpSineSquared(0.7, 1.5),
}


def _has_features(k):
    try:
        k.feature_dim(2)
    except NotImplementedError:
        return False
    return True


# (name, function, valid keyword arguments, array arguments swept)
ENTRIES = [
    # ridge
    ("ridge.dual_ridge", ridge.dual_ridge, dict(K=K, y=y_real, lam=0.1), ["K", "y"]),
    ("ridge.primal_ridge", ridge.primal_ridge, dict(X=X, y=y_real, lam=0.1), ["X", "y"]),
    ("ridge.ridge_predict_dual", ridge.ridge_predict_dual, dict(K_new=K, alpha=a), ["K_new", "alpha"]),
    ("ridge.KernelRidge.fit", _fit_predict(ridge.KernelRidge, kernel="rbf", lam=0.1), dict(X=X, y=y_real),
     ["X", "y"]),
    ("ridge.KernelRidge.predict", _fitted(ridge.KernelRidge, (X, y_real), kernel=RBF05), dict(X=X), ["X"]),
    # dual
    ("dual.map_linear_primal", dual.map_linear_primal, dict(X=X, y=y_real, sigma=1.0, lam=0.1), ["X", "y"]),
    ("dual.map_linear_dual", dual.map_linear_dual, dict(K=K, y=y_real, sigma=1.0, lam=0.1), ["K", "y"]),
    ("dual.dual_predict", dual.dual_predict, dict(K_test=K, alpha=a), ["K_test", "alpha"]),
    ("dual.map_linear_objective", dual.map_linear_objective, dict(w=w2, X=X, y=y_real, sigma=1.0, lam=0.5),
     ["w", "X", "y"]),
    ("dual.map_linear_alpha", dual.map_linear_alpha, dict(X=X, y=y_real, w=w2, sigma=1.0, lam=0.5),
     ["X", "y", "w"]),
    ("dual.map_linear_dual_objective", dual.map_linear_dual_objective,
     dict(alpha=a, K=K, y=y_real, sigma=1.0, lam=0.5), ["alpha", "K", "y"]),
    ("dual.MAPRegression.fit", _fit_predict(dual.MAPRegression, kernel=RBF05), dict(X=X, y=y_real), ["X", "y"]),
    ("dual.MAPRegression.predict", _fitted(dual.MAPRegression, (X, y_real), kernel=RBF05), dict(X=X), ["X"]),
    ("dual.logistic_probability", dual.logistic_probability, dict(X=X, y=y_lab, w=w2), ["X", "y", "w"]),
    ("dual.map_logistic_objective", dual.map_logistic_objective, dict(w=w2, X=X, y=y_lab, lam=1.0),
     ["w", "X", "y"]),
    ("dual.map_logistic_alpha", dual.map_logistic_alpha, dict(X=X, y=y_lab, w=w2, lam=1.0), ["X", "y", "w"]),
    ("dual.hinge_objective", dual.hinge_objective, dict(alpha=a, K=K, y=y_lab, lam=1.0), ["alpha", "K", "y"]),
    ("dual.alpha_sparsity", dual.alpha_sparsity, dict(alpha=a), ["alpha"]),
    ("dual.map_hinge_dual", dual.map_hinge_dual, dict(K=K, y=y_lab, lam=0.5), ["K", "y"]),
    ("dual.map_logistic_primal", dual.map_logistic_primal, dict(X=X, y=y_lab, lam=1.0), ["X", "y"]),
    # gradient descent
    ("gradient_descent.squared_loss", gradient_descent.squared_loss, dict(K=K, y=y_real, alpha=a), ["K", "y", "alpha"]),
    ("gradient_descent.dual_gradient", gradient_descent.dual_gradient, dict(K=K, y=y_real, alpha=a), ["K", "y", "alpha"]),
    ("gradient_descent.kernel_gradient_descent", gradient_descent.kernel_gradient_descent,
     dict(K=K, y=y_real, step=0.1, n_steps=5, alpha0=a), ["K", "y", "alpha0"]),
    ("gradient_descent.kernel_gd_step", gradient_descent.kernel_gd_step, dict(K=K, y=y_real, alpha=a, step=0.1),
     ["K", "y", "alpha"]),
    ("gradient_descent.primal_gd_step", gradient_descent.primal_gd_step, dict(Phi=Phi, y=y_real, w=a, step=0.01),
     ["Phi", "y", "w"]),
    ("gradient_descent.largest_stable_step", gradient_descent.largest_stable_step, dict(K=K), ["K"]),
    ("gradient_descent.primal_gradient_descent", gradient_descent.primal_gradient_descent,
     dict(Phi=Phi, y=y_real, step=0.01, n_steps=5, w0=a), ["Phi", "y", "w0"]),
    ("gradient_descent.w_from_alpha", gradient_descent.w_from_alpha, dict(Phi=Phi, alpha=a), ["Phi", "alpha"]),
    ("gradient_descent.decision_function", gradient_descent.decision_function,
     dict(kernel="rbf", X_train=X, alpha=a, X=X), ["X_train", "alpha", "X"]),
    ("gradient_descent.KernelGD.fit", _fit_predict(gradient_descent.KernelGD, kernel="rbf"),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("gradient_descent.KernelGD.predict", _fitted(gradient_descent.KernelGD, (X, y_lab), kernel=RBF05),
     dict(X=X), ["X"]),
    # feature space
    ("feature_space.mean_squared_distance_to_mean", feature_space.mean_squared_distance_to_mean, dict(K=K), ["K"]),
    ("feature_space.centre_of_mass_offset", feature_space.centre_of_mass_offset, dict(K=K, y=y_lab), ["K", "y"]),
    ("feature_space.center_gram", feature_space.center_gram, dict(K=K), ["K"]),
    ("feature_space.normalize_gram", feature_space.normalize_gram, dict(K=K), ["K"]),
    ("feature_space.weight_norm_squared", feature_space.weight_norm_squared, dict(K=K, alpha=a), ["K", "alpha"]),
    ("feature_space.CentreOfMassClassifier.fit", _fit_predict(feature_space.CentreOfMassClassifier, kernel="rbf"),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("feature_space.CentreOfMassClassifier.predict",
     _fitted(feature_space.CentreOfMassClassifier, (X, y_lab), kernel=RBF05), dict(X=X), ["X"]),
    ("feature_space.feature_distance", feature_space.feature_distance, dict(K=K, alpha=a, beta=beta),
     ["K", "alpha", "beta"]),
    ("feature_space.normalize_kernel_rows", feature_space.normalize_kernel_rows,
     dict(K_new=K_new, diag_new=np.ones(3), diag_train=np.ones(6)), ["K_new", "diag_new", "diag_train"]),
    ("feature_space.mean_norm", feature_space.mean_norm, dict(K=K), ["K"]),
    ("feature_space.center_kernel_rows", feature_space.center_kernel_rows, dict(K_new=K_new, K_train=K),
     ["K_new", "K_train"]),
    ("feature_space.GramCenterer.fit", lambda K: feature_space.GramCenterer().fit(K).transform(K_new),
     dict(K=K), ["K"]),
    ("feature_space.GramCenterer.transform", _fitted(feature_space.GramCenterer, (K,), method="transform"),
     dict(K_new=K_new), ["K_new"]),
    ("feature_space.centre_of_mass_scores", feature_space.centre_of_mass_scores,
     dict(K_new=K_new, y=y_lab, b=0.1), ["K_new", "y"]),
    ("feature_space.centre_of_mass_weight", feature_space.centre_of_mass_weight, dict(Phi=Phi, y=y_lab),
     ["Phi", "y"]),
    ("feature_space.squared_distances_to_mean", feature_space.squared_distances_to_mean,
     dict(K_new=K_new, diag_new=np.ones(3), K_train=K), ["K_new", "diag_new", "K_train"]),
    ("feature_space.NoveltyBall.fit", lambda X: feature_space.NoveltyBall(RBF05).fit(X).radius_, dict(X=X), ["X"]),
    ("feature_space.NoveltyBall.predict", _fitted(feature_space.NoveltyBall, (X,), method="distance",
                                                  kernel=RBF05), dict(X=X), ["X"]),
    # perceptron
    ("perceptron.dual_perceptron", perceptron.dual_perceptron,
     dict(K=K, y=y_lab, max_epochs=50, order=order, w_star_projections=a),
     ["K", "y", "order", "w_star_projections"]),
    ("perceptron.KernelPerceptron.fit", _fit_predict(perceptron.KernelPerceptron, kernel="rbf", max_epochs=50),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("perceptron.KernelPerceptron.predict",
     _fitted(perceptron.KernelPerceptron, (X, y_lab), kernel=RBF05, max_epochs=50), dict(X=X), ["X"]),
    ("perceptron.feature_radius", perceptron.feature_radius, dict(K=K), ["K"]),
    ("perceptron.primal_perceptron", perceptron.primal_perceptron, dict(X=X, y=y_lab, max_epochs=50, order=order),
     ["X", "y", "order"]),
    ("perceptron.margin_of", perceptron.margin_of, dict(projections=a, y=y_lab), ["projections", "y"]),
    ("perceptron.Perceptron.fit", _fit_predict(perceptron.Perceptron, max_epochs=50), dict(X=X, y=y_lab),
     ["X", "y"]),
    ("perceptron.Perceptron.predict", _fitted(perceptron.Perceptron, (X, y_lab), max_epochs=50), dict(X=X), ["X"]),
    # rkhs
    ("rkhs.representer_minimiser", _rkhs_values(rkhs.representer_minimiser, kernel="rbf", lam=0.1),
     dict(X=X, y=y_real), ["X", "y"]),
    ("rkhs.fit_online", _rkhs_values(rkhs.fit_online, kernel="rbf"), dict(X=X, y=y_lab), ["X", "y"]),
    ("rkhs.hinge_kernel_machine", _rkhs_values(rkhs.hinge_kernel_machine, kernel=RBF05), dict(X=X, y=y_lab),
     ["X", "y"]),
    ("rkhs.RKHSFunction", lambda centres, alpha: rkhs.RKHSFunction(RBF05, centres, alpha)(X),
     dict(centres=X, alpha=a), ["centres", "alpha"]),
    ("rkhs.RKHSFunction.__call__", lambda X: F0(X), dict(X=X), ["X"]),
    ("rkhs.kernel_section", lambda x: rkhs.kernel_section(RBF05, x)(X), dict(x=X[0]), ["x"]),
    ("rkhs.evaluation", _functional(rkhs.evaluation), dict(x=X[0]), ["x"]),
    ("rkhs.squared_loss", _functional(rkhs.squared_loss), dict(X=X, y=y_real), ["X", "y"]),
    ("rkhs.regularised_squared_loss", _functional(rkhs.regularised_squared_loss), dict(X=X, y=y_real, lam=0.5),
     ["X", "y"]),
    ("rkhs.hinge_loss", _functional(rkhs.hinge_loss), dict(X=X, y=y_lab, lam=0.5), ["X", "y"]),
    ("rkhs.OnlineKernelMachine.fit", _fit_predict(rkhs.OnlineKernelMachine, kernel=RBF05), dict(X=X, y=y_lab),
     ["X", "y"]),
    ("rkhs.OnlineKernelMachine.predict", lambda X: MACHINE.predict(X), dict(X=X), ["X"]),
    ("rkhs.budget_tradeoff",
     lambda X_train, y_train, X_test, y_test: [r["score"] for r in rkhs.budget_tradeoff(
         RBF05, X_train, y_train, X_test, y_test, [2], repeats=1)],
     dict(X_train=X, y_train=y_lab, X_test=X[:4], y_test=y_lab[:4]), ["X_train", "y_train", "X_test", "y_test"]),
    ("rkhs.comparator_losses", lambda X, y: rkhs.comparator_losses(F0, X, y), dict(X=X, y=y_lab), ["X", "y"]),
    ("rkhs.regret_curve", lambda X, y: rkhs.regret_curve(MACHINE, F0, X, y), dict(X=X, y=y_lab), ["X", "y"]),
    ("rkhs.orthogonal_to_span", lambda X: rkhs.orthogonal_to_span(F0, X)(X1 * np.ones((1, 2))),
     dict(X=X), ["X"]),
    ("rkhs.projection_onto_span", lambda X: rkhs.projection_onto_span(F0, X)(X1 * np.ones((1, 2))),
     dict(X=X), ["X"]),
    ("rkhs.evaluation_bound", lambda X: rkhs.evaluation_bound(F0, X), dict(X=X), ["X"]),
    ("rkhs.median_heuristic", rkhs.median_heuristic, dict(X=X), ["X"]),
    ("rkhs.rbf_bump_integral", lambda x: rkhs.rbf_bump_integral(0.5, -1.0, 1.0, x), dict(x=a), ["x"]),
    ("rkhs.mercer_from_sample", lambda X: rkhs.mercer_from_sample(RBF05, X, 2).eigenvalues, dict(X=X), ["X"]),
    ("rkhs.gaussian_mercer_eigenfunctions", lambda x: rkhs.gaussian_mercer_eigenfunctions(0.5, 1.0, 3, x),
     dict(x=a), ["x"]),
    ("ridge.rmse_against_lambda", lambda X, y, X_val, y_val, X_test, y_test: ridge.rmse_against_lambda(
        RBF05, X, y, X_val, y_val, [0.1, 1.0], X_test, y_test)["test"],
     dict(X=X, y=y_real, X_val=X[:3], y_val=y_real[:3], X_test=X[2:], y_test=y_real[2:]),
     ["X", "y", "X_val", "y_val", "X_test", "y_test"]),
    # features
    ("features.polynomial_map", features.polynomial_map, dict(X=X, degree=2), ["X"]),
    ("features.all_subsets_map", features.all_subsets_map, dict(X=X), ["X"]),
    ("features.all_subsets_inner_products", features.all_subsets_inner_products, dict(X=X, Z=X[:3]), ["X", "Z"]),
    ("features.homogeneous_polynomial_map", features.homogeneous_polynomial_map, dict(X=X, degree=2), ["X"]),
    ("features.quadratic_map", features.quadratic_map, dict(X=X), ["X"]),
    # kernels: constructors that take arrays, and the PSD tools
    ("kernels.Bilinear", lambda A: Bilinear(A)(X), dict(A=np.array([[2.0, 0.5], [0.5, 1.0]])), ["A"]),
    ("kernels.PolynomialOf", lambda coeffs: PolynomialOf(Linear(), coeffs)(X), dict(coeffs=[1.0, 0.5]),
     ["coeffs"]),
    ("kernels.is_psd", kernels.is_psd, dict(K=K), ["K"]),
    ("kernels.min_eigenvalue", kernels.min_eigenvalue, dict(K=K), ["K"]),
    # random features
    ("random_features.fourier_features", random_features.fourier_features, dict(X=X, Omega=Omega, b=b_off),
     ["X", "Omega", "b"]),
    ("random_features.rff_variance", random_features.rff_variance, dict(K=K, n_components=10), ["K"]),
    ("random_features.rbf_gram", random_features.rbf_gram, dict(X=X, Z=X[:3], gamma=0.5), ["X", "Z"]),
    ("random_features.single_sample_estimate", random_features.single_sample_estimate,
     dict(x=X[0], y=X[1], w=Omega, b=b_off), ["x", "y", "w", "b"]),
    ("random_features.monte_carlo_kernel", random_features.monte_carlo_kernel,
     dict(x=X[0], y=X[1], gamma=0.5, n_samples=100, random_state=0), ["x", "y"]),
    ("random_features.approximation_errors", random_features.approximation_errors,
     dict(x=X[0], y=X[1], gamma=0.5, n_components=10, n_draws=5, random_state=0), ["x", "y"]),
    ("random_features.error_frequency", random_features.error_frequency, dict(errors=errors, a=0.5),
     ["errors"]),
    ("random_features.max_error_over_points", random_features.max_error_over_points,
     dict(X=X, gamma=0.5, n_components_list=[10], random_state=0), ["X"]),
    ("bochner.bochner_estimate", lambda delta: bochner.bochner_estimate(RBF05, delta, 100, 0),
     dict(delta=X[0]), ["delta"]),
    ("bochner.spectral_density_1d",
     lambda omega: bochner.spectral_density_1d(lambda t: np.exp(-t * t), omega, 5.0, 101),
     dict(omega=a), ["omega"]),
    ("bochner.identity_terms", bochner.identity_terms, dict(x=X[0], y=X[1], w=Omega, b=b_off),
     ["x", "y", "w", "b"]),
    ("bochner.term_moments", lambda K: bochner.term_moments(K)["offset_variance"], dict(K=K),
     ["K"]),
    ("random_features.RandomFourierFeatures.fit",
     lambda X: random_features.RandomFourierFeatures(0.5, 10, random_state=0).fit(X).transform(X_probe),
     dict(X=X), ["X"]),
    ("random_features.RandomFourierFeatures.transform",
     _fitted(random_features.RandomFourierFeatures, (X,), method="transform", gamma=0.5, n_components=10,
             random_state=0), dict(X=X), ["X"]),
    # sgd
    ("sgd.sgd_cached_features", sgd.sgd_cached_features, dict(Z=X, y=y_lab, indices=idx), ["Z", "y", "indices"]),
    ("sgd.sgd_gram", sgd.sgd_gram, dict(G=K, y=y_lab, indices=idx), ["G", "y", "indices"]),
    ("sgd.sgd_kernel_on_the_fly", sgd.sgd_kernel_on_the_fly, dict(X=X, y=y_lab, kernel=RBF05, indices=idx),
     ["X", "y", "indices"]),
    ("sgd.sgd_features_on_the_fly", sgd.sgd_features_on_the_fly,
     dict(X=X, y=y_lab, feature_map=features.quadratic_map, indices=idx), ["X", "y", "indices"]),
    ("sgd.dual_sgd_step", sgd.dual_sgd_step, dict(u=a, i=2, k_row=K[2], y_i=1.0), ["u", "k_row"]),
    ("cost_model.growth_exponent", cost_model.growth_exponent, dict(sizes=[10.0, 20.0, 40.0], values=[1.0, 4.1, 15.0]),
     ["sizes", "values"]),
    ("sgd.KernelSGD.fit", _fit_predict(sgd.KernelSGD, kernel=RBF05, n_iter=30, random_state=0),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("sgd.KernelSGD.predict", _fitted(sgd.KernelSGD, (X, y_lab), kernel=RBF05, n_iter=30, random_state=0),
     dict(X=X), ["X"]),
    # datasets
    ("datasets.two_disks_and_band_label", datasets.two_disks_and_band_label, dict(X=X), ["X"]),
    # scaling
    ("scaling.power_law_exponent", scaling.power_law_exponent, dict(n=[10.0, 20.0, 40.0], cost=[1.0, 4.1, 15.0]),
     ["n", "cost"]),
    # nystroem
    ("nystroem.inverse_sqrt_psd", lambda K: nystroem.inverse_sqrt_psd(K)[0], dict(K=K), ["K"]),
    ("nystroem.nystroem_features", nystroem.nystroem_features, dict(K_nm=K[:, :3], K_mm=K[:3, :3]),
     ["K_nm", "K_mm"]),
    ("nystroem.approximation_error", nystroem.approximation_error, dict(K=K, Phi=U), ["K", "Phi"]),
    ("nystroem.errors_against_components",
     lambda X: nystroem.errors_against_components(X, 0.5, [2, 3])["nystroem"], dict(X=X), ["X"]),
    ("nystroem.rbf_gram_spectrum", lambda X: nystroem.rbf_gram_spectrum(X, 0.5)[1], dict(X=X), ["X"]),
    ("nystroem.Nystroem.fit", lambda X: nystroem.Nystroem(RBF05, 3, random_state=0).fit(X).transform(X_probe),
     dict(X=X), ["X"]),
    ("nystroem.Nystroem.transform", _fitted(nystroem.Nystroem, (X,), method="transform", kernel=RBF05,
                                            n_components=3, random_state=0), dict(X=X), ["X"]),
    # kernel pca
    ("kernel_pca.explained_variance_ratio", kernel_pca.explained_variance_ratio, dict(K=K), ["K"]),
    ("kernel_pca.fix_signs", kernel_pca.fix_signs, dict(U=U), ["U"]),
    ("kernel_pca.KernelPCA.fit", lambda X: kernel_pca.KernelPCA(RBF05, 2).fit(X).eigenvalues_, dict(X=X), ["X"]),
    ("kernel_pca.KernelPCA.transform", _fitted(kernel_pca.KernelPCA, (X,), method="transform", kernel=RBF05),
     dict(X=X), ["X"]),
    # chunked ridge
    ("chunked_ridge.RFFRidge.fit",
     lambda X, y: chunked_ridge.RFFRidge(0.5, 10, 0.1, chunk_size=4, random_state=0).fit(X, y).coef_,
     dict(X=X, y=y_real), ["X", "y"]),
    ("chunked_ridge.RFFRidge.predict",
     _fitted(chunked_ridge.RFFRidge, (X, y_real), gamma=0.5, n_components=10, chunk_size=4, random_state=0),
     dict(X=X), ["X"]),
    ("chunked_ridge.chunk_moments", lambda X, y, Omega, b: chunked_ridge.chunk_moments(X, y, Omega, b)[0],
     dict(X=X, y=y_real, Omega=Omega, b=b_off), ["X", "y", "Omega", "b"]),
    ("chunked_ridge.add_moments", lambda A, c: chunked_ridge.add_moments((A_moment, c_moment), (A, c))[1],
     dict(A=A_moment, c=c_moment), ["A", "c"]),
    # support vector machines
    ("svm.dual_objective", svm.dual_objective, dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.primal_objective", lambda alpha, K, y: svm.primal_objective(alpha, 0.1, K, y, 1.0),
     dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.duality_gap", lambda alpha, K, y: svm.duality_gap(alpha, 0.1, K, y, 1.0),
     dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.decision_values", svm.decision_values, dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.kkt_violations", lambda alpha, K, y: svm.kkt_violations(alpha, 0.1, K, y, 1.0),
     dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.kkt_groups", lambda alpha: svm.kkt_groups(alpha, 1.0), dict(alpha=alpha_box), ["alpha"]),
    ("svm.violating_pair_gap", lambda alpha, K, y: svm.violating_pair_gap(alpha, K, y, 1.0),
     dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.offset", lambda alpha, K, y: svm.offset(alpha, K, y, 1.0), dict(alpha=alpha_box, K=K, y=y_lab),
     ["alpha", "K", "y"]),
    ("svm.primal_w", svm.primal_w, dict(alpha=alpha_box, X=X, y=y_lab), ["alpha", "X", "y"]),
    ("svm.geometric_margin", svm.geometric_margin, dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.radius_margin_bound", svm.radius_margin_bound, dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.loo_bound", svm.loo_bound, dict(alpha=alpha_box), ["alpha"]),
    ("svm.offset_interval", lambda alpha, K, y: svm.offset_interval(alpha, K, y, 1.0)[0],
     dict(alpha=alpha_box, K=K, y=y_lab), ["alpha", "K", "y"]),
    ("svm.enclosing_ball_radius", svm.enclosing_ball_radius, dict(K=K), ["K"]),
    ("svm.smo", lambda K, y: svm.smo(K, y, tol=1e-10).alpha, dict(K=K, y=y_lab), ["K", "y"]),
    ("svm.smo_kernel", lambda X, y: svm.smo_kernel(RBF05, X, y, tol=1e-10).alpha, dict(X=X, y=y_lab), ["X", "y"]),
    ("svm.cross_validate_svm", lambda X, y: svm.cross_validate_svm(X, y, [1.0], [0.5], n_folds=3)["accuracy"],
     dict(X=X, y=y_lab), ["X", "y"]),
    ("svm.SupportVectorClassifier.fit", _fit_predict(svm.SupportVectorClassifier, kernel=RBF05, tol=1e-10),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("svm.SupportVectorClassifier.predict", _fitted(svm.SupportVectorClassifier, (X, y_lab), kernel=RBF05),
     dict(X=X), ["X"]),
    # mean embeddings, MMD, HSIC (lecture 9)
    ("mean_embeddings.mean_embedding", ME.mean_embedding, dict(X=X, T=X[:3], kernel=RBF05), ["X", "T"]),
    ("mean_embeddings.witness", ME.witness, dict(X=X, Y=Y2, T=X[:3], kernel=RBF05), ["X", "Y", "T"]),
    ("mean_embeddings.mmd2_biased", ME.mmd2_biased, dict(X=X, Y=Y2, kernel=RBF05), ["X", "Y"]),
    ("mean_embeddings.mmd2_unbiased", ME.mmd2_unbiased, dict(X=X, Y=Y2, kernel=RBF05), ["X", "Y"]),
    ("mean_embeddings.mmd2_linear", ME.mmd2_linear, dict(X=X, Y=Y2, kernel=RBF05), ["X", "Y"]),
    ("mean_embeddings.mmd2_from_gram", ME.mmd2_from_gram, dict(K=K, m=3), ["K"]),
    ("mean_embeddings.permutation_p_value", lambda null: ME.permutation_p_value(0.5, null), dict(null=a), ["null"]),
    ("mean_embeddings.permutation_test_gram", _null_of(ME.permutation_test_gram, m=3, n_permutations=20,
                                                       random_state=0), dict(K=K), ["K"]),
    ("mean_embeddings.permutation_test", _null_of(ME.permutation_test, kernel=RBF05, n_permutations=20,
                                                  random_state=0), dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.MMDTest.fit", lambda X, Y: ME.MMDTest(RBF05, n_permutations=20, random_state=0).fit(X, Y).null_,
     dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.pooled_median_gamma", ME.pooled_median_gamma, dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.choose_gamma_on_split",
     lambda X, Y: ME.choose_gamma_on_split(X, Y, [0.1, 1.0], n_permutations=20)["criterion"],
     dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.hsic_biased", ME.hsic_biased, dict(X=X, Y=Y2, kernel_x=RBF05, kernel_y=RBF05), ["X", "Y"]),
    ("mean_embeddings.hsic_from_gram", ME.hsic_from_gram, dict(K=K, L=RBF05(Y2)), ["K", "L"]),
    ("mean_embeddings.hsic_test", _null_of(ME.hsic_test, kernel_x=RBF05, kernel_y=RBF05, n_permutations=20,
                                           random_state=0), dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.DistanceKernel", ME.DistanceKernel(), dict(X=X, Z=X[:3]), ["X", "Z"]),
    ("mean_embeddings.energy_distance", ME.energy_distance, dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.distance_covariance", ME.distance_covariance, dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.mmd2_rff", ME.mmd2_rff, dict(X=X, Y=Y2, gamma=0.5, n_components=20), ["X", "Y"]),
    ("mean_embeddings.rff_permutation_test", _null_of(ME.rff_permutation_test, gamma=0.5, n_components=20,
                                                      n_permutations=20), dict(X=X, Y=Y2), ["X", "Y"]),
    ("mean_embeddings.gaussian_mmd2", ME.gaussian_mmd2,
     dict(mean_p=np.array([0.0, 0.5]), cov_p=np.eye(2), mean_q=np.array([0.3, 0.0]), cov_q=2.0 * np.eye(2),
          gamma=0.5), ["mean_p", "cov_p", "mean_q", "cov_q"]),
    # gaussian processes
    ("gaussian_process.cholesky_jittered", gaussian_process.cholesky_jittered, dict(K=K), ["K"]),
    ("gaussian_process.sample_gaussian", lambda mean, cov: gaussian_process.sample_gaussian(mean, cov, 2, 0),
     dict(mean=y_real, cov=K), ["mean", "cov"]),
    ("gaussian_process.prior_samples", lambda X: gaussian_process.prior_samples(RBF05, X, 2, 0), dict(X=X), ["X"]),
    ("gaussian_process.gp_factor", lambda K, y: gaussian_process.gp_factor(K, y, 0.1)[1], dict(K=K, y=y_real),
     ["K", "y"]),
    ("gaussian_process.posterior_mean_var",
     lambda K, y, K_new, k_new_diag: gaussian_process.posterior_mean_var(K, y, 0.1, K_new, k_new_diag),
     dict(K=K, y=y_real, K_new=K_new, k_new_diag=np.ones(3)), ["K", "y", "K_new", "k_new_diag"]),
    ("gaussian_process.posterior_cov", lambda K, K_new, K_newnew: gaussian_process.posterior_cov(K, 0.1, K_new, K_newnew),
     dict(K=K, K_new=K_new, K_newnew=RBF05(X[:3])), ["K", "K_new", "K_newnew"]),
    ("gaussian_process.log_marginal_likelihood", lambda K, y: gaussian_process.log_marginal_likelihood(K, y, 0.1),
     dict(K=K, y=y_real), ["K", "y"]),
    ("gaussian_process.log_marginal_likelihood_gradient",
     lambda K, dK, y: gaussian_process.log_marginal_likelihood_gradient(K, dK, y, 0.1),
     dict(K=K, dK=RBF05.gram_gradient(X)[1], y=y_real), ["K", "dK", "y"]),
    ("gaussian_process.marginal_likelihood", lambda X, y: gaussian_process.marginal_likelihood(RBF05, X, y, 0.1, True),
     dict(X=X, y=y_real), ["X", "y"]),
    ("gaussian_process.maximise_marginal_likelihood",
     lambda X, y: gaussian_process.maximise_marginal_likelihood(RBF05, X, y, 0.1)[0].theta, dict(X=X, y=y_real),
     ["X", "y"]),
    ("gaussian_process.interval_coverage", gaussian_process.interval_coverage,
     dict(y=y_real, mean=a, std=np.abs(beta)), ["y", "mean", "std"]),
    ("gaussian_process.evidence_terms", lambda K, y: gaussian_process.evidence_terms(K, y, 0.1)["fit"],
     dict(K=K, y=y_real), ["K", "y"]),
    ("gaussian_process.loo_predictive", lambda K, y: gaussian_process.loo_predictive(K, y, 0.1)[2],
     dict(K=K, y=y_real), ["K", "y"]),
    ("gaussian_process.interpolant_norms", lambda K, F: gaussian_process.interpolant_norms(K, F, (6,))[0],
     dict(K=K, F=U), ["K", "F"]),
    ("gaussian_process.grid_local_maxima", lambda Z: len(gaussian_process.grid_local_maxima(Z)), dict(Z=K), ["Z"]),
    ("gaussian_process.data_scaled_starts",
     lambda X, y: gaussian_process.data_scaled_starts(RBF05, X, y, 3, random_state=0), dict(X=X, y=y_real),
     ["X", "y"]),
    ("gaussian_process.laplace_newton_step", gaussian_process.laplace_newton_step, dict(K=K, y=y_lab, f=a),
     ["K", "y", "f"]),
    ("gaussian_process.GaussianProcessRegressor.fit",
     _fit_predict(gaussian_process.GaussianProcessRegressor, kernel=RBF05, optimizer=None), dict(X=X, y=y_real),
     ["X", "y"]),
    ("gaussian_process.GaussianProcessRegressor.predict",
     _fitted(gaussian_process.GaussianProcessRegressor, (X, y_real), kernel=RBF05, optimizer=None), dict(X=X), ["X"]),
    ("gaussian_process.laplace_mode", lambda K, y: gaussian_process.laplace_mode(K, y).f, dict(K=K, y=y_lab),
     ["K", "y"]),
    ("gaussian_process.laplace_latent",
     lambda y, K_new, k_new_diag: gaussian_process.laplace_latent(LAPLACE, y, K_new, k_new_diag),
     dict(y=y_lab, K_new=K_new, k_new_diag=np.ones(3)), ["y", "K_new", "k_new_diag"]),
    ("gaussian_process.probit_average", gaussian_process.probit_average, dict(mean=a, var=np.abs(beta)),
     ["mean", "var"]),
    ("gaussian_process.laplace_gradient", gaussian_process.laplace_gradient,
     dict(K=K, dK=RBF05.gram_gradient(X)[1], y=y_lab), ["K", "dK", "y"]),
    ("gaussian_process.GaussianProcessClassifier.fit",
     _fit_predict(gaussian_process.GaussianProcessClassifier, kernel=RBF05, optimizer=None), dict(X=X, y=y_lab),
     ["X", "y"]),
    ("gaussian_process.GaussianProcessClassifier.predict",
     _fitted(gaussian_process.GaussianProcessClassifier, (X, y_lab), kernel=RBF05, optimizer=None), dict(X=X), ["X"]),
    ("gaussian_process.weight_space_posterior", lambda Phi, y, Phi_new:
     gaussian_process.weight_space_posterior(Phi, y, 0.1, Phi_new), dict(Phi=Phi, y=y_real, Phi_new=Phi[:3]),
     ["Phi", "y", "Phi_new"]),
    ("gaussian_process.low_rank_log_marginal_likelihood",
     lambda Phi, y: gaussian_process.low_rank_log_marginal_likelihood(Phi, y, 0.1), dict(Phi=Phi, y=y_real),
     ["Phi", "y"]),
    ("gaussian_process.LowRankGaussianProcess.fit",
     _fit_predict(gaussian_process.LowRankGaussianProcess, kernel=RBF05, n_components=4, random_state=0),
     dict(X=X, y=y_real), ["X", "y"]),
    ("gaussian_process.LowRankGaussianProcess.predict",
     _fitted(gaussian_process.LowRankGaussianProcess, (X, y_real), kernel=RBF05, n_components=4, random_state=0),
     dict(X=X), ["X"]),
]
for _name, _k in KERNEL_INSTANCES.items():
    ENTRIES.append((f"kernels.{_name}", _k, dict(X=X, Z=X[:3]), ["X", "Z"]))
    if _has_features(_k):
        ENTRIES.append((f"kernels.{_name}.features", _k.features, dict(X=X), ["X"]))


# (name, function, valid keyword arguments, {scalar argument: kind})
SCALARS = [
    # kernels
    ("kernels.Polynomial", _kernel_values(Polynomial), dict(degree=2, gamma=0.5, coef0=1.0),
     dict(degree="count", gamma="positive", coef0="real")),
    ("kernels.RBF", _kernel_values(RBF), dict(gamma=0.5), dict(gamma="positive")),
    ("kernels.Laplacian", _kernel_values(Laplacian), dict(gamma=0.5), dict(gamma="positive")),
    ("kernels.Exponential", _kernel_values(Exponential), dict(gamma=0.5), dict(gamma="positive")),
    ("kernels.Matern", _kernel_values(Matern), dict(length_scale=0.7, nu=2.5),
     dict(length_scale="positive", nu="choice")),
    ("kernels.ExpSineSquared", _kernel_values(ExpSineSquared), dict(length_scale=0.7, periodicity=1.5),
     dict(length_scale="positive", periodicity="positive")),
    ("kernels.Sigmoid", _kernel_values(Sigmoid), dict(gamma=0.5, coef0=0.1), dict(gamma="positive", coef0="real")),
    ("kernels.Sum", _kernel_values(kernels.Sum), dict(k1=Linear(), k2=RBF05),
     dict(k1="kernel_object", k2="kernel_object")),
    ("kernels.Product", _kernel_values(kernels.Product), dict(k1=Linear(), k2=RBF05),
     dict(k1="kernel_object", k2="kernel_object")),
    ("kernels.ConstantScaled", _kernel_values(kernels.ConstantScaled), dict(c=2.0, k=RBF05),
     dict(c="positive", k="kernel_object")),
    ("kernels.Exp", _kernel_values(Exp), dict(k=Linear()), dict(k="kernel_object")),
    ("kernels.PolynomialOf", _kernel_values(PolynomialOf), dict(k=Linear(), coeffs=[1.0, 0.5]),
     dict(k="kernel_object")),
    ("kernels.Scaled", _kernel_values(Scaled), dict(k=Linear(), f=_bump), dict(k="kernel_object", f="callable")),
    ("kernels.Composed", _kernel_values(Composed), dict(k=Linear(), phi=features.quadratic_map),
     dict(k="kernel_object", phi="callable")),
    ("kernels.Normalized", _kernel_values(Normalized), dict(k=Linear()), dict(k="kernel_object")),
    ("kernels.gamma_from_sigma", kernels.gamma_from_sigma, dict(sigma=2.0, form="two_sigma2"),
     dict(sigma="positive", form="choice")),
    ("kernels.is_psd", kernels.is_psd, dict(K=K, tol=1e-8), dict(tol="nonnegative")),
    ("kernels.find_non_psd_witness", lambda **kw: kernels.find_non_psd_witness(**kw).min_eigenvalue,
     dict(func=Sigmoid(1.0, -1.0), d=1, n_points=(2, 3), trials=20, scale=2.0, random_state=0),
     dict(func="callable", d="count", n_points="counts", trials="count", scale="positive", random_state="seed")),
    ("kernels.as_kernel", lambda **kw: kernels.as_kernel(**kw)(X), dict(kernel="rbf", n_features=2),
     dict(kernel="kernel", n_features="count")),
    # features
    ("features.polynomial_map", features.polynomial_map, dict(X=X, degree=2, gamma=0.5, coef0=1.0),
     dict(degree="count", gamma="positive", coef0="nonnegative")),
    ("features.homogeneous_polynomial_map", features.homogeneous_polynomial_map, dict(X=X, degree=2),
     dict(degree="count")),
    ("features.feature_dim_all_subsets", features.feature_dim_all_subsets, dict(d=3), dict(d="count")),
    ("features.feature_dim_polynomial", features.feature_dim_polynomial, dict(d=3, p=2), dict(d="count", p="count")),
    ("features.feature_dim_homogeneous", features.feature_dim_homogeneous, dict(d=3, p=2),
     dict(d="count", p="count")),
    ("features.time_all_subsets", features.time_all_subsets, dict(ds=[1, 2], n=3, repeat=1, random_state=0),
     dict(ds="counts", n="count", repeat="count", random_state="seed")),
    # gradient descent
    ("gradient_descent.kernel_gd_step", gradient_descent.kernel_gd_step, dict(K=K, y=y_real, alpha=a, step=0.1),
     dict(step="positive")),
    ("gradient_descent.primal_gd_step", gradient_descent.primal_gd_step, dict(Phi=Phi, y=y_real, w=a, step=0.01),
     dict(step="positive")),
    ("gradient_descent.kernel_gradient_descent", gradient_descent.kernel_gradient_descent,
     dict(K=K, y=y_real, step=0.1, n_steps=5), dict(step="positive", n_steps="count0")),
    ("gradient_descent.primal_gradient_descent", gradient_descent.primal_gradient_descent,
     dict(Phi=Phi, y=y_real, step=0.01, n_steps=5), dict(step="positive", n_steps="count0")),
    ("gradient_descent.decision_function", gradient_descent.decision_function,
     dict(kernel=RBF05, X_train=X, alpha=a, X=X), dict(kernel="kernel")),
    ("gradient_descent.KernelGD.fit", _est(gradient_descent.KernelGD), dict(kernel=RBF05, step=0.1, n_steps=20),
     dict(kernel="kernel", step="positive", n_steps="count0")),
    # datasets
    ("datasets.circles", datasets.circles, dict(n=10, noise=0.1, factor=0.5, random_state=0),
     dict(n="count", noise="nonnegative", factor="unit", random_state="seed")),
    ("datasets.xor", datasets.xor, dict(n=10, noise=0.1, random_state=0),
     dict(n="count", noise="nonnegative", random_state="seed")),
    ("datasets.two_disks_and_band", datasets.two_disks_and_band, dict(n=10, random_state=0),
     dict(n="count", random_state="seed")),
    ("datasets.separable_with_margin", datasets.separable_with_margin,
     dict(n=10, d=2, margin=0.1, radius=1.0, random_state=0),
     dict(n="count", d="count", margin="positive", radius="positive", random_state="seed")),
    ("datasets.synthetic_images", datasets.synthetic_images, dict(n=3, side=8, random_state=0),
     dict(n="count", side="count", random_state="seed")),
    ("datasets.smooth_regression", datasets.smooth_regression, dict(n=10, d=2, noise=0.1, random_state=0),
     dict(n="count", d="count", noise="nonnegative", random_state="seed")),
    ("datasets.smooth_regression_dask", lambda **kw: [v.compute() for v in datasets.smooth_regression_dask(**kw)],
     dict(n=10, d=2, chunk_size=4, noise=0.1, random_state=0),
     dict(n="count", d="count", chunk_size="count", noise="nonnegative", random_state="seed")),
    # sgd
    ("sgd.logistic_derivative", sgd.logistic_derivative, dict(z=0.3, y=1.0), dict(z="real", y="real")),
    ("sgd.squared_derivative", sgd.squared_derivative, dict(z=0.3, y=1.0), dict(z="real", y="real")),
    ("sgd.sample_indices", sgd.sample_indices, dict(n=6, T=10, random_state=0),
     dict(n="count", T="count", random_state="seed")),
    ("sgd.dual_sgd_step", sgd.dual_sgd_step, dict(u=a, i=2, k_row=K[2], y_i=1.0, alpha=0.1, loss="logistic"),
     dict(i="index", y_i="real", alpha="positive", loss="choice")),
    ("sgd.sgd_gram", sgd.sgd_gram, dict(G=K, y=y_lab, indices=idx, alpha=0.1, loss="logistic"),
     dict(alpha="positive", loss="choice")),
    ("sgd.sgd_kernel_on_the_fly", sgd.sgd_kernel_on_the_fly,
     dict(X=X, y=y_lab, kernel=RBF05, indices=idx, alpha=0.1, loss="logistic"),
     dict(kernel="kernel", alpha="positive", loss="choice")),
    ("sgd.sgd_features_on_the_fly", lambda **kw: sgd.sgd_features_on_the_fly(**kw)[0],
     dict(X=X, y=y_lab, feature_map=features.quadratic_map, indices=idx, alpha=0.1, loss="logistic"),
     dict(feature_map="callable", alpha="positive", loss="choice")),
    ("sgd.sgd_cached_features", lambda **kw: sgd.sgd_cached_features(**kw)[0],
     dict(Z=X, y=y_lab, indices=idx, alpha=0.1, loss="logistic"), dict(alpha="positive", loss="choice")),
    ("sgd.KernelSGD.fit", _est(sgd.KernelSGD),
     dict(kernel=RBF05, way="gram", loss="logistic", alpha=0.1, n_iter=30, n_components=10, random_state=0),
     dict(kernel="kernel", way="choice", loss="choice", alpha="positive", n_iter="count", n_components="count",
          random_state="seed")),
    ("cost_model.predicted_cost", cost_model.predicted_cost, dict(way="gram", n=10, d=2, D=5, T=20),
     dict(way="choice", n="count", d="count", D="count", T="count")),
    ("cost_model.format_cost_table", cost_model.format_cost_table, dict(n=10, d=2, D=5, T=20),
     dict(n="count", d="count", D="count", T="count")),
    ("cost_model.measure_way", cost_model.measure_way,
     dict(way="gram", n=10, d=2, D=4, T=10, repeats=1, random_state=0, clock="cpu"),
     dict(way="choice", n="count", d="count", D="count", T="count", repeats="count", random_state="seed",
          clock="choice")),
    ("cost_model.time_demo", cost_model.time_demo,
     dict(ways=("gram", "kernel"), n=20, gamma=10.0, alpha=0.1, repeats=1, random_state=0),
     dict(n="count", gamma="positive", alpha="positive", repeats="count", random_state="seed")),
    ("cost_model.lecture_demo", lambda **kw: cost_model.lecture_demo(**kw)[1:],
     dict(way="gram", n=20, gamma=10.0, alpha=0.1, n_iter=40, random_state=0),
     dict(way="choice", n="count", gamma="positive", alpha="positive", n_iter="count", random_state="seed")),
    # random features
    ("random_features.RandomFourierFeatures.fit", _est(random_features.RandomFourierFeatures, (X,), "transform"),
     dict(gamma=0.5, n_components=10, random_state=0, dtype=np.float64, n_threads=1),
     dict(gamma="positive", n_components="count", random_state="seed", dtype="dtype", n_threads="count")),
    ("random_features.fourier_features", random_features.fourier_features,
     dict(X=X, Omega=Omega, b=b_off, dtype=np.float64), dict(dtype="dtype")),
    ("random_features.rbf_gram", random_features.rbf_gram, dict(X=X, gamma=0.5), dict(gamma="positive")),
    ("random_features.monte_carlo_kernel", random_features.monte_carlo_kernel,
     dict(x=X[0], y=X[1], gamma=0.5, n_samples=100, random_state=0, chunk=30),
     dict(gamma="positive", n_samples="count", random_state="seed", chunk="count")),
    ("random_features.rff_variance", random_features.rff_variance, dict(K=K, n_components=10),
     dict(n_components="count")),
    ("random_features.hoeffding_bound", random_features.hoeffding_bound, dict(n_components=100, a=0.2),
     dict(n_components="positive", a="nonnegative")),
    ("random_features.features_needed", random_features.features_needed, dict(a=0.2, delta=0.05),
     dict(a="positive", delta="unit")),
    ("random_features.approximation_errors", random_features.approximation_errors,
     dict(x=X[0], y=X[1], gamma=0.5, n_components=10, n_draws=5, random_state=0),
     dict(gamma="positive", n_components="count", n_draws="count", random_state="seed")),
    ("random_features.error_frequency", random_features.error_frequency, dict(errors=errors, a=0.5),
     dict(a="real")),
    ("random_features.max_error_over_points", random_features.max_error_over_points,
     dict(X=X, gamma=0.5, n_components_list=[10], random_state=0),
     dict(gamma="positive", n_components_list="counts", random_state="seed")),
    ("bochner.spectral_frequencies", bochner.spectral_frequencies,
     dict(kernel=RBF05, d=2, n_samples=5, random_state=0),
     dict(kernel="kernel_object", d="count", n_samples="count", random_state="seed")),
    ("bochner.bochner_estimate", bochner.bochner_estimate,
     dict(kernel=RBF05, delta=X[0], n_samples=50, random_state=0),
     dict(kernel="kernel_object", n_samples="count", random_state="seed")),
    ("bochner.spectral_density_1d", bochner.spectral_density_1d,
     dict(profile=lambda t: np.exp(-t * t), omega=a, half_width=5.0, n_grid=101),
     dict(profile="callable", half_width="positive", n_grid="count")),
    ("random_features.union_bound", random_features.union_bound, dict(n_components=100, a=0.2, n_pairs=10),
     dict(n_components="positive", a="nonnegative", n_pairs="count")),
    ("random_features.union_error_level", random_features.union_error_level,
     dict(n_components=100, n_pairs=10, delta=0.05), dict(n_components="positive", n_pairs="count", delta="unit")),
    # ridge
    ("ridge.dual_ridge", ridge.dual_ridge, dict(K=K, y=y_real, lam=0.1), dict(lam="nonnegative")),
    ("ridge.rmse_against_lambda", lambda **kw: ridge.rmse_against_lambda(**kw)["validation"],
     dict(kernel=RBF05, X=X, y=y_real, X_val=X[:3], y_val=y_real[:3], lams=[0.1, 1.0]),
     dict(kernel="kernel", lams="positives")),
    ("ridge.primal_ridge", ridge.primal_ridge, dict(X=X, y=y_real, lam=0.1), dict(lam="nonnegative")),
    ("ridge.KernelRidge.fit", _est(ridge.KernelRidge, (X, y_real)), dict(kernel=RBF05, lam=0.1),
     dict(kernel="kernel", lam="nonnegative")),
    # feature space
    ("feature_space.centre_of_mass_scores", feature_space.centre_of_mass_scores, dict(K_new=K_new, y=y_lab, b=0.1),
     dict(b="real")),
    ("feature_space.CentreOfMassClassifier.fit", _est(feature_space.CentreOfMassClassifier), dict(kernel=RBF05),
     dict(kernel="kernel")),
    ("feature_space.NoveltyBall.fit", _est(feature_space.NoveltyBall, (X,)), dict(kernel=RBF05),
     dict(kernel="kernel")),
    # perceptron
    ("perceptron.novikoff_bound", perceptron.novikoff_bound, dict(R=2.0, gamma=0.5),
     dict(R="nonnegative", gamma="positive")),
    ("perceptron.dual_perceptron", lambda **kw: perceptron.dual_perceptron(**kw).alpha,
     dict(K=K, y=y_lab, max_epochs=50, random_state=0), dict(max_epochs="count", random_state="seed")),
    ("perceptron.primal_perceptron", perceptron.primal_perceptron, dict(X=X, y=y_lab, max_epochs=50, random_state=0),
     dict(max_epochs="count", random_state="seed")),
    ("perceptron.Perceptron.fit", _est(perceptron.Perceptron), dict(max_epochs=50, random_state=0),
     dict(max_epochs="count", random_state="seed")),
    ("perceptron.KernelPerceptron.fit", _est(perceptron.KernelPerceptron), dict(kernel=RBF05, max_epochs=50, random_state=0),
     dict(kernel="kernel", max_epochs="count", random_state="seed")),
    # dual
    ("dual.ridge_ratio", dual.ridge_ratio, dict(sigma=0.5, lam=2.0), dict(sigma="positive", lam="positive")),
    ("dual.map_linear_objective", dual.map_linear_objective, dict(w=w2, X=X, y=y_real, sigma=1.0, lam=0.5),
     dict(sigma="positive", lam="positive")),
    ("dual.map_linear_primal", dual.map_linear_primal, dict(X=X, y=y_real, sigma=1.0, lam=0.5),
     dict(sigma="positive", lam="positive")),
    ("dual.map_linear_alpha", dual.map_linear_alpha, dict(X=X, y=y_real, w=w2, sigma=1.0, lam=0.5),
     dict(sigma="positive", lam="positive")),
    ("dual.map_linear_dual", dual.map_linear_dual, dict(K=K, y=y_real, sigma=1.0, lam=0.5),
     dict(sigma="positive", lam="positive")),
    ("dual.map_linear_dual_objective", dual.map_linear_dual_objective,
     dict(alpha=a, K=K, y=y_real, sigma=1.0, lam=0.5), dict(sigma="positive", lam="positive")),
    ("dual.MAPRegression.fit", _est(dual.MAPRegression, (X, y_real)), dict(sigma=1.0, lam=0.5, kernel=RBF05),
     dict(sigma="positive", lam="positive", kernel="kernel")),
    ("dual.map_logistic_objective", dual.map_logistic_objective, dict(w=w2, X=X, y=y_lab, lam=1.0),
     dict(lam="positive")),
    ("dual.map_logistic_primal", dual.map_logistic_primal, dict(X=X, y=y_lab, lam=1.0, tol=1e-10, max_iter=50),
     dict(lam="positive", tol="positive", max_iter="count")),
    ("dual.map_logistic_alpha", dual.map_logistic_alpha, dict(X=X, y=y_lab, w=w2, lam=1.0), dict(lam="positive")),
    ("dual.kernel_trick_costs", lambda **kw: list(dual.kernel_trick_costs(**kw).values()), dict(m=3, p=2),
     dict(m="count", p="count")),
    ("dual.hinge_objective", dual.hinge_objective, dict(alpha=a, K=K, y=y_lab, lam=1.0), dict(lam="positive")),
    ("dual.map_hinge_dual", dual.map_hinge_dual, dict(K=K, y=y_lab, lam=0.5, tol=1e-8, max_sweeps=1000),
     dict(lam="positive", tol="positive", max_sweeps="count")),
    ("dual.alpha_sparsity", dual.alpha_sparsity, dict(alpha=a, atol=0.5), dict(atol="nonnegative")),
    # rkhs
    ("rkhs.RKHSFunction", lambda **kw: rkhs.RKHSFunction(**kw)(X), dict(kernel=RBF05, centres=X, alpha=a),
     dict(kernel="kernel_object")),
    ("rkhs.kernel_section", lambda **kw: rkhs.kernel_section(**kw)(X), dict(kernel=RBF05, x=X[0]),
     dict(kernel="kernel_object")),
    ("rkhs.regularised_squared_loss", _functional(rkhs.regularised_squared_loss), dict(X=X, y=y_real, lam=0.5),
     dict(lam="nonnegative")),
    ("rkhs.hinge_loss", _functional(rkhs.hinge_loss), dict(X=X, y=y_lab, lam=0.5), dict(lam="nonnegative")),
    ("rkhs.projection_onto_span", lambda **kw: rkhs.projection_onto_span(**kw)(X), dict(g=F0, X=X),
     dict(g="rkhs_function")),
    ("rkhs.inner_by_evaluation", rkhs.inner_by_evaluation, dict(f=F0, g=G0),
     dict(f="rkhs_function", g="rkhs_function")),
    ("rkhs.evaluation_bound", rkhs.evaluation_bound, dict(f=F0, X=X), dict(f="rkhs_function")),
    ("rkhs.riemann_bumps", lambda **kw: rkhs.riemann_bumps(**kw)(X[:, :1]), dict(kernel=RBF05, a=-1.0, b=1.0, n=4),
     dict(kernel="kernel_object", a="real", b="real", n="count")),
    ("rkhs.rbf_bump_integral", rkhs.rbf_bump_integral, dict(gamma=0.5, a=-1.0, b=1.0, x=a),
     dict(gamma="positive", a="real", b="real")),
    ("rkhs.rbf_bump_integral_norm", rkhs.rbf_bump_integral_norm, dict(gamma=0.5, a=-1.0, b=1.0),
     dict(gamma="positive", a="real", b="real")),
    ("rkhs.mercer_from_sample", lambda **kw: rkhs.mercer_from_sample(**kw).eigenvalues,
     dict(kernel=RBF05, X=X, n_components=2), dict(kernel="kernel", n_components="count")),
    ("rkhs.gaussian_mercer_eigenvalues", rkhs.gaussian_mercer_eigenvalues, dict(gamma=0.5, sigma=1.0, n_eigen=3),
     dict(gamma="positive", sigma="positive", n_eigen="count")),
    ("rkhs.gaussian_mercer_eigenfunctions", rkhs.gaussian_mercer_eigenfunctions,
     dict(gamma=0.5, sigma=1.0, n_eigen=3, x=a), dict(gamma="positive", sigma="positive", n_eigen="count")),
    ("rkhs.chain", _functional(rkhs.chain),
     dict(C=np.square, dC=lambda u: 2 * u, G=rkhs.squared_norm()),
     dict(C="callable", dC="callable", G="functional")),
    ("rkhs.finite_difference_check", rkhs.finite_difference_check,
     dict(E=rkhs.squared_norm(), f=F0, g=G0, eps=(1e-2, 1e-3)),
     dict(E="functional", f="rkhs_function", g="rkhs_function", eps="positives")),
    ("rkhs.gradient_checks", lambda **kw: list(rkhs.gradient_checks(**kw).values()),
     dict(kernel=RBF05, eps=(1e-2,), n_directions=1, d=2, seed=0),
     dict(kernel="kernel", eps="positives", n_directions="count", d="count", seed="seed")),
    ("rkhs.functional_gradient_descent", lambda **kw: rkhs.functional_gradient_descent(**kw)[1],
     dict(E=rkhs.squared_norm(), f0=F0, eta=0.1, n_steps=3),
     dict(E="functional", f0="rkhs_function", eta="positive", n_steps="count")),
    ("rkhs.coefficient_update", rkhs.coefficient_update, dict(loss="hinge", fx=0.3, y=1.0, eta=0.1, lam=0.1),
     dict(loss="choice", fx="real", y="real", eta="positive", lam="nonnegative")),
    ("rkhs.fit_online", lambda **kw: rkhs.fit_online(**kw).alpha,
     dict(kernel=RBF05, X=X, y=y_lab, loss="hinge", eta=0.1, lam=0.01, n_epochs=2, seed=0),
     dict(kernel="kernel", loss="choice", eta="positive", lam="nonnegative", n_epochs="count", seed="seed")),
    ("rkhs.hinge_kernel_machine", lambda **kw: rkhs.hinge_kernel_machine(**kw).alpha,
     dict(kernel=RBF05, X=X, y=y_lab, lam=0.01, eta=0.1, n_epochs=2, seed=0),
     dict(kernel="kernel", lam="nonnegative", eta="positive", n_epochs="count", seed="seed")),
    ("rkhs.OnlineKernelMachine.fit", _est(rkhs.OnlineKernelMachine),
     dict(kernel=RBF05, loss="hinge", eta=0.1, lam=0.01, budget=3, budget_rule="oldest", schedule="constant"),
     dict(kernel="kernel", loss="choice", eta="positive", lam="nonnegative", budget="count",
          budget_rule="choice", schedule="choice")),
    ("rkhs.budget_tradeoff", lambda **kw: [r["score"] for r in rkhs.budget_tradeoff(**kw)],
     dict(kernel=RBF05, X_train=X, y_train=y_lab, X_test=X[:4], y_test=y_lab[:4], budgets=[2], loss="hinge",
          eta=0.5, lam=0.001, budget_rule="oldest", repeats=1),
     dict(kernel="kernel", budgets="counts", loss="choice", eta="positive", lam="nonnegative",
          budget_rule="choice", repeats="count")),
    ("rkhs.comparator_losses", rkhs.comparator_losses, dict(f_star=F0, X=X, y=y_lab, loss="hinge", lam=0.1),
     dict(f_star="rkhs_function", loss="choice", lam="nonnegative")),
    ("rkhs.regret_curve", rkhs.regret_curve, dict(machine=MACHINE, f_star=F0, X=X, y=y_lab),
     dict(machine="machine", f_star="rkhs_function")),
    ("rkhs.regret_bound", rkhs.regret_bound, dict(machine=MACHINE, f_star=F0),
     dict(machine="machine", f_star="rkhs_function")),
    ("rkhs.representer_minimiser", lambda **kw: rkhs.representer_minimiser(**kw).alpha,
     dict(kernel=RBF05, X=X, y=y_real, lam=0.1), dict(kernel="kernel", lam="positive")),
    ("rkhs.orthogonal_to_span", lambda **kw: rkhs.orthogonal_to_span(**kw)(X), dict(g=F0, X=X),
     dict(g="rkhs_function")),
    ("rkhs.sample_sine", rkhs.sample_sine, dict(n=5, noise=0.3, rng=0),
     dict(n="count", noise="nonnegative", rng="seed")),
    ("rkhs.bandwidth_bias_variance", lambda **kw: [rkhs.bandwidth_bias_variance(**kw)[k] for k in ("bias2", "variance")],
     dict(kernel=RBF(1.0), lam=0.01, n=5, noise=0.3, n_datasets=2, n_grid=5, seed=0),
     dict(kernel="kernel", lam="positive", n="count", noise="nonnegative", n_datasets="count", n_grid="count",
          seed="seed")),
    ("rkhs.bias_variance_sweep", lambda **kw: rkhs.bias_variance_sweep(**kw)["total"],
     dict(gammas=[1.0, 10.0], lam=0.01, n=5, n_datasets=2, n_grid=5),
     dict(gammas="positives", lam="positive")),
    # scaling
    ("scaling.measure_exact", lambda **kw: scaling.measure_exact(**kw)["n"],
     dict(n_values=[20, 40], d=2, gamma=0.1, lam=1.0, repeat=1, random_state=0),
     dict(n_values="counts", d="count", gamma="positive", lam="nonnegative", repeat="count", random_state="seed")),
    # nystroem
    ("nystroem.Nystroem.fit", _est(nystroem.Nystroem, (X,), "transform"),
     dict(kernel=RBF05, n_components=3, random_state=0),
     dict(kernel="kernel", n_components="count", random_state="seed")),
    ("nystroem.inverse_sqrt_psd", lambda **kw: nystroem.inverse_sqrt_psd(**kw)[0], dict(K=K, rcond=1e-12),
     dict(rcond="nonnegative")),
    ("nystroem.nystroem_features", nystroem.nystroem_features, dict(K_nm=K[:, :3], K_mm=K[:3, :3], rcond=1e-12),
     dict(rcond="nonnegative")),
    ("nystroem.approximation_error", nystroem.approximation_error, dict(K=K, Phi=U, ord="fro"), dict(ord="choice")),
    ("nystroem.errors_against_components", lambda **kw: nystroem.errors_against_components(**kw)["nystroem"],
     dict(X=X, gamma=0.5, components=[2, 3], random_state=0, gram_spectrum=nystroem.rbf_gram_spectrum(X, 0.5)),
     dict(gamma="positive", components="counts", random_state="seed", gram_spectrum="gram_spectrum")),
    ("nystroem.rbf_gram_spectrum", lambda **kw: nystroem.rbf_gram_spectrum(**kw)[1], dict(X=X, gamma=0.5),
     dict(gamma="positive")),
    # kernel pca
    ("kernel_pca.KernelPCA.fit", _est(kernel_pca.KernelPCA, (X,), "transform"), dict(kernel=RBF05, n_components=2),
     dict(kernel="kernel", n_components="count")),
    # chunked ridge
    ("chunked_ridge.RFFRidge.fit", _est(chunked_ridge.RFFRidge, (X, y_real)),
     dict(gamma=0.5, n_components=10, lam=0.1, chunk_size=4, random_state=0, dtype=np.float64),
     dict(gamma="positive", n_components="count", lam="nonnegative", chunk_size="count", random_state="seed",
          dtype="dtype")),
    ("chunked_ridge.chunk_moments", lambda **kw: chunked_ridge.chunk_moments(**kw)[0],
     dict(X=X, y=y_real, Omega=Omega, b=b_off, dtype=np.float64), dict(dtype="dtype")),
    ("chunked_ridge.rmse_against_n", lambda **kw: chunked_ridge.rmse_against_n(**kw)["random_features"],
     dict(n_values=[20], n_exact_max=20, n_test=10, d=2, gamma=0.1, n_components=10, lam=1.0, noise=0.1,
          dtype=np.float64, random_state=0),
     dict(n_values="counts", n_exact_max="count0", n_test="count", d="count", gamma="positive",
          n_components="count", lam="nonnegative", noise="nonnegative", dtype="dtype", random_state="seed")),
    # support vector machines
    ("svm.primal_objective", svm.primal_objective, dict(alpha=alpha_box, b=0.1, K=K, y=y_lab, C=1.0),
     dict(b="real", C="positive")),
    ("svm.duality_gap", svm.duality_gap, dict(alpha=alpha_box, b=0.1, K=K, y=y_lab, C=1.0),
     dict(b="real", C="positive")),
    ("svm.decision_values", svm.decision_values, dict(alpha=alpha_box, K=K, y=y_lab, b=0.1), dict(b="real")),
    ("svm.kkt_violations", svm.kkt_violations, dict(alpha=alpha_box, b=0.1, K=K, y=y_lab, C=1.0),
     dict(b="real", C="positive")),
    ("svm.kkt_groups", svm.kkt_groups, dict(alpha=alpha_box, C=1.0, atol=1e-9), dict(C="positive", atol="nonnegative")),
    ("svm.violating_pair_gap", svm.violating_pair_gap, dict(alpha=alpha_box, K=K, y=y_lab, C=1.0), dict(C="positive")),
    ("svm.offset", svm.offset, dict(alpha=alpha_box, K=K, y=y_lab, C=1.0), dict(C="positive")),
    ("svm.loo_bound", svm.loo_bound, dict(alpha=alpha_box, atol=1e-9), dict(atol="nonnegative")),
    ("svm.offset_interval", lambda **kw: svm.offset_interval(**kw)[0],
     dict(alpha=alpha_box, K=K, y=y_lab, C=1.0), dict(C="positive")),
    ("svm.enclosing_ball_radius", svm.enclosing_ball_radius, dict(K=K, tol=1e-10, max_iter=1000),
     dict(tol="positive", max_iter="count")),
    ("svm.pair_step", svm.pair_step,
     dict(alpha_i=0.2, alpha_j=0.5, y_i=1.0, y_j=-1.0, E_i=0.3, E_j=-0.4, eta=1.5, C=1.0),
     dict(alpha_i="real", alpha_j="real", y_i="choice", y_j="choice", E_i="real", E_j="real", eta="real",
          C="positive")),
    ("svm.smo", lambda **kw: svm.smo(**kw).alpha, dict(K=K, y=y_lab, C=1.0, tol=1e-10, max_iter=1000,
                                                       selection="max_violating"),
     dict(C="positive", tol="positive", max_iter="count", selection="choice")),
    ("svm.smo_kernel", lambda **kw: svm.smo_kernel(**kw).alpha,
     dict(kernel=RBF05, X=X, y=y_lab, C=1.0, tol=1e-10, max_iter=1000, selection="second_order",
          cache_bytes=0, row_cache=4),
     dict(kernel="kernel", C="positive", tol="positive", max_iter="count", selection="choice",
          cache_bytes="count0", row_cache="count")),
    ("svm.cross_validate_svm", lambda **kw: svm.cross_validate_svm(**kw)["accuracy"],
     dict(X=X, y=y_lab, Cs=[1.0], gammas=[0.5], n_folds=3, tol=1e-3, random_state=0),
     dict(Cs="positives", gammas="positives", n_folds="count", tol="positive", random_state="seed")),
    ("svm.SupportVectorClassifier.fit", _est(svm.SupportVectorClassifier, X_new=X_probe),
     dict(C=1.0, kernel=RBF05, tol=1e-10, max_iter=1000, selection="second_order", multiclass="ovo",
          cache_bytes=0),
     dict(C="positive", kernel="kernel", tol="positive", max_iter="count", selection="choice",
          multiclass="choice", cache_bytes="count0")),
    # mean embeddings, MMD, HSIC (lecture 9)
    ("mean_embeddings.mean_embedding", ME.mean_embedding, dict(X=X, T=X[:3], kernel=RBF05), dict(kernel="kernel")),
    ("mean_embeddings.witness", ME.witness, dict(X=X, Y=Y2, T=X[:3], kernel=RBF05), dict(kernel="kernel")),
    ("mean_embeddings.mmd2_biased", ME.mmd2_biased, dict(X=X, Y=Y2, kernel=RBF05), dict(kernel="kernel")),
    ("mean_embeddings.mmd2_unbiased", ME.mmd2_unbiased, dict(X=X, Y=Y2, kernel=RBF05), dict(kernel="kernel")),
    ("mean_embeddings.mmd2_linear", ME.mmd2_linear, dict(X=X, Y=Y2, kernel=RBF05), dict(kernel="kernel")),
    ("mean_embeddings.permutation_p_value", ME.permutation_p_value, dict(statistic=0.5, null=a),
     dict(statistic="real")),
    ("mean_embeddings.mmd2_from_gram", ME.mmd2_from_gram, dict(K=K, m=3, estimator="biased"),
     dict(m="count", estimator="choice")),
    ("mean_embeddings.permutation_test_gram", _null_of(ME.permutation_test_gram, K=K),
     dict(m=3, n_permutations=20, estimator="biased", random_state=0),
     dict(m="count", n_permutations="count", estimator="choice", random_state="seed")),
    ("mean_embeddings.permutation_test", _null_of(ME.permutation_test, X=X, Y=Y2),
     dict(kernel=RBF05, n_permutations=20, estimator="unbiased", random_state=0),
     dict(kernel="kernel", n_permutations="count", estimator="choice", random_state="seed")),
    ("mean_embeddings.MMDTest.fit", lambda **kw: ME.MMDTest(**kw).fit(X, Y2).null_,
     dict(kernel=RBF05, estimator="biased", n_permutations=20, alpha=0.05, random_state=0),
     dict(kernel="kernel", estimator="choice", n_permutations="count", alpha="unit", random_state="seed")),
    ("mean_embeddings.pooled_median_gamma", ME.pooled_median_gamma, dict(X=X, Y=Y2, max_points=8, random_state=0),
     dict(max_points="count", random_state="seed")),
    ("mean_embeddings.choose_gamma_on_split", lambda **kw: ME.choose_gamma_on_split(X, Y2, **kw)["criterion"],
     dict(gammas=[0.1, 1.0], n_permutations=20, random_state=0),
     dict(gammas="positives", n_permutations="count", random_state="seed")),
    ("mean_embeddings.rejection_rate", lambda **kw: ME.rejection_rate(**kw)["p_values"],
     dict(draw=_two_samples, kernel=RBF05, n_trials=2, alpha=0.05, n_permutations=5, estimator="biased",
          random_state=0),
     dict(draw="callable", kernel="kernel", n_trials="count", alpha="unit", n_permutations="count",
          estimator="choice", random_state="seed")),
    ("mean_embeddings.power_against_gamma", lambda **kw: ME.power_against_gamma(**kw)["p_values"],
     dict(draw=_two_samples, gammas=[0.1, 1.0], n_trials=2, alpha=0.05, n_permutations=5, random_state=0),
     dict(draw="callable", gammas="positives", n_trials="count", alpha="unit", n_permutations="count",
          random_state="seed")),
    ("mean_embeddings.hsic_biased", lambda **kw: ME.hsic_biased(X, Y2, **kw), dict(kernel_x=RBF05),
     dict(kernel_x="kernel")),
    ("mean_embeddings.hsic_biased", lambda **kw: ME.hsic_biased(X, Y2, **kw), dict(kernel_y=RBF05),
     dict(kernel_y="kernel")),
    ("mean_embeddings.hsic_test", _null_of(ME.hsic_test, X=X, Y=Y2, kernel_y=RBF05),
     dict(kernel_x=RBF05, n_permutations=20, random_state=0),
     dict(kernel_x="kernel", n_permutations="count", random_state="seed")),
    ("mean_embeddings.hsic_test", _null_of(ME.hsic_test, X=X, Y=Y2, kernel_x=RBF05, n_permutations=20,
                                           random_state=0), dict(kernel_y=RBF05), dict(kernel_y="kernel")),
    ("mean_embeddings.mmd2_rff", lambda **kw: ME.mmd2_rff(X, Y2, **kw),
     dict(gamma=0.5, n_components=20, estimator="unbiased", random_state=0),
     dict(gamma="positive", n_components="count", estimator="choice", random_state="seed")),
    ("mean_embeddings.rff_permutation_test", _null_of(ME.rff_permutation_test, X=X, Y=Y2),
     dict(gamma=0.5, n_components=20, n_permutations=20, random_state=0),
     dict(gamma="positive", n_components="count", n_permutations="count", random_state="seed")),
    ("mean_embeddings.gaussian_mmd2", ME.gaussian_mmd2, dict(mean_p=[0.0], cov_p=1.0, mean_q=[0.5], cov_q=2.0,
                                                             gamma=0.5), dict(gamma="positive")),
    # gaussian processes
    ("gaussian_process.gp_factor", lambda **kw: gaussian_process.gp_factor(**kw)[1], dict(K=K, y=y_real, noise=0.1),
     dict(noise="nonnegative")),
    ("gaussian_process.cholesky_jittered", gaussian_process.cholesky_jittered, dict(K=K, jitter=1e-8),
     dict(jitter="nonnegative")),
    ("gaussian_process.prior_samples", gaussian_process.prior_samples,
     dict(kernel=RBF05, X=X, n_samples=2, random_state=0, jitter=1e-8),
     dict(n_samples="count", random_state="seed", jitter="nonnegative")),
    ("gaussian_process.interval_coverage", gaussian_process.interval_coverage,
     dict(y=y_real, mean=a, std=np.abs(beta), level=0.9), dict(level="unit")),
    ("gaussian_process.maximise_marginal_likelihood", lambda **kw: gaussian_process.maximise_marginal_likelihood(
        **kw)[0].theta, dict(kernel=RBF05, X=X, y=y_real, noise=0.1, n_restarts=1, random_state=0),
     dict(noise="positive", n_restarts="count0", random_state="seed")),
    ("gaussian_process.GaussianProcessRegressor.fit", _est(gaussian_process.GaussianProcessRegressor, (X, y_real)),
     dict(kernel=RBF05, noise=0.1, n_restarts_optimizer=1, random_state=0),
     dict(noise="positive", n_restarts_optimizer="count0", random_state="seed")),
    ("gaussian_process.laplace_mode", lambda **kw: gaussian_process.laplace_mode(**kw).f,
     dict(K=K, y=y_lab, tol=1e-10, max_iter=50), dict(tol="positive", max_iter="count")),
    ("gaussian_process.GaussianProcessClassifier.fit", _est(gaussian_process.GaussianProcessClassifier, (X, y_lab)),
     dict(kernel=RBF05, max_iter=50, optimizer=None), dict(max_iter="count")),
    ("gaussian_process.LowRankGaussianProcess.fit", _est(gaussian_process.LowRankGaussianProcess, (X, y_real)),
     dict(kernel=RBF05, n_components=4, noise=0.1, method="nystroem", random_state=0),
     dict(n_components="count", noise="positive", method="choice", random_state="seed")),
]

# Public callables that the sweep does not feed bad input, each with its reason.
NOT_SWEPT = {
    # lecture 9's power criterion and kernel Stein discrepancy (issue 43): their inputs are
    # checked by the shared validators and tested in tests/test_stein_and_power.py; a sweep
    # entry each is owed
    "mean_embeddings.power_criterion": "tested in tests/test_stein_and_power.py; sweep owed",
    "mean_embeddings.blobs": "a data generator of lecture 9, tested in tests/test_stein_and_power.py",
    "mean_embeddings.stein_kernel_rbf": "tested in tests/test_stein_and_power.py; sweep owed",
    "mean_embeddings.ksd": "tested in tests/test_stein_and_power.py; sweep owed",
    "mean_embeddings.ksd_test": "tested in tests/test_stein_and_power.py; sweep owed",
    "mean_embeddings.gaussian_score": "tested in tests/test_stein_and_power.py; sweep owed",
    "kernels.Kernel": "the abstract base class: a kernel is one of its subclasses, all swept",
    "kernels.Witness": "a result record (namedtuple) that find_non_psd_witness returns",
    "kernels.SetKernel": "takes lists of Python sets, not arrays: test_set_kernel_refuses_what_is_not_a_list_of_sets",
    "gradient_descent.GDRun": "a result record (dataclass) that the gradient descent runs return",
    "perceptron.PerceptronRun": "a result record (dataclass) that dual_perceptron returns",
    "rkhs.Functional": "a record of a name and two callables, made by the functional factories (swept)",
    "rkhs.squared_norm": "takes no argument",
    "cost_model.cost_table": "takes no argument",
    "cost_model.demo_timing_report": "formats the record time_demo returns (swept), beside fixed labels",
    "svm.SMORun": "a result record (dataclass) that smo and smo_kernel return",
    "chunked_ridge.is_dask_array": "a predicate: any object is a valid input, the answer is True or False",
    "rkhs.MercerEstimate": "a result record (dataclass) that mercer_from_sample returns (swept)",
    "mean_embeddings.TestResult": "a result record (dataclass) that the permutation tests return (swept)",
    "gaussian_process.Optimum": "a result record (dataclass) that maximise_marginal_likelihood returns (swept)",
    "gaussian_process.LaplaceMode": "a result record (dataclass) that laplace_mode returns (swept)",
}

MATH_MODULES = ["kernels", "features", "gradient_descent", "datasets", "sgd", "cost_model", "random_features",
                "bochner", "ridge", "feature_space", "perceptron", "dual", "rkhs", "scaling", "nystroem", "kernel_pca",
                "chunked_ridge", "svm", "mean_embeddings", "gaussian_process"]


# ------------------------------------------------------------------ the bad values

def _families(v):
    """Bad variants of a valid array ``v``: (family name, value)."""
    v = np.asarray(v, dtype=float)
    nan = v.copy(); nan.flat[0] = np.nan
    inf = v.copy(); inf.flat[-1] = np.inf
    return [
        ("nan", nan), ("inf", inf), ("complex", v + 1j),
        ("empty", np.empty((0,) * v.ndim)), ("strings", np.full(v.shape, "a")),
        ("extra_dim", v[..., None]), ("short", v[:-1]),
    ]


NAN, INF = float("nan"), float("inf")
# Bad values of each kind of scalar argument: (family, value, words the message must also hold).
SCALAR_FAMILIES = {
    "positive": [("nan", NAN), ("inf", INF), ("negative", -1.0), ("zero", 0.0), ("string", "1"),
                 ("complex", 1 + 1j)],
    "nonnegative": [("nan", NAN), ("inf", INF), ("negative", -1.0), ("string", "1"), ("complex", 1 + 1j)],
    "real": [("nan", NAN), ("inf", INF), ("string", "1"), ("complex", 1 + 1j)],
    "unit": [("zero", 0.0), ("one", 1.0), ("negative", -0.5), ("nan", NAN), ("string", "0.5")],
    "count": [("zero", 0), ("negative", -1), ("fraction", 2.5), ("nan", NAN), ("string", "3")],
    "count0": [("negative", -1), ("fraction", 2.5), ("nan", NAN), ("string", "3")],
    "index": [("negative", -1), ("too_large", 6), ("fraction", 1.5), ("string", "1")],
    "counts": [("empty", []), ("zero", [0]), ("fraction", [2.5]), ("string", ["3"]), ("nan", [NAN])],
    "positives": [("empty", []), ("zero", [0.0]), ("nan", [NAN]), ("string", ["1"]), ("bare", 0.5)],
    "seed": [("negative", -1), ("fraction", 1.5), ("string", "0"), ("nan", NAN)],
    "choice": [("unknown", "nope"), ("number", 3)],
    "kernel": [("unknown_name", "gauss", "'rbf'"), ("number", 3)],
    "kernel_object": [("name", "rbf", "'rbf'"), ("number", 3)],
    "callable": [("number", 3), ("string", "f")],
    "dtype": [("unknown", "nope"), ("integer", np.int64)],
    "functional": [("number", 3), ("string", "E")],
    "rkhs_function": [("number", 3), ("array", np.ones(3))],
    "machine": [("number", 3), ("unfitted", rkhs.OnlineKernelMachine())],
    "gram_spectrum": [("number", 3), ("wrong_size", (K[:3, :3], np.ones(3)))],
}
SCALAR_FAMILIES = {kind: [f if len(f) == 3 else (*f, None) for f in fams] for kind, fams in SCALAR_FAMILIES.items()}

# Arguments whose number of rows is free (test rows): a shorter one is valid.
FREE_ROWS = {"K_new", "K_test", "Z", "Omega", "indices", "w", "K_nm", "diag_new", "errors", "Phi_new",
             ("gradient_descent.decision_function", "X"), ("random_features.fourier_features", "X"),
             ("random_features.rbf_gram", "X"), ("features.all_subsets_inner_products", "X"),
             ("random_features.single_sample_estimate", "b"), ("feature_space.squared_distances_to_mean", "K_new"),
             ("rkhs.evaluation_bound", "X"), "T", ("mean_embeddings.DistanceKernel", "X")}
# two samples of any sizes (lecture 9): each may be shorter than the other
FREE_ROWS |= {(f"mean_embeddings.{f}", arg) for arg in ("X", "Y") for f in (
    "mean_embedding", "witness", "mmd2_biased", "mmd2_unbiased", "permutation_test", "MMDTest.fit",
    "pooled_median_gamma", "choose_gamma_on_split", "energy_distance", "mmd2_rff", "rff_permutation_test")}
# Elementwise functions: an empty or a 3-D array is a valid input.
ELEMENTWISE = {"random_features.rff_variance", "bochner.term_moments", "rkhs.rbf_bump_integral"}
# Ridge takes several target columns: y (and alpha) of shape (n, 1) are valid. The
# classifiers take a column of labels as scikit-learn's estimators do: raveled, with a
# DataConversionWarning (test_a_column_of_labels_is_raveled_with_a_warning).
COLUMN_LABELS = {("perceptron.KernelPerceptron.fit", "y"), ("feature_space.CentreOfMassClassifier.fit", "y"),
                 ("gradient_descent.KernelGD.fit", "y"), ("perceptron.Perceptron.fit", "y"),
                 ("sgd.KernelSGD.fit", "y"), ("rkhs.OnlineKernelMachine.fit", "y"), ("chunked_ridge.RFFRidge.fit", "y"),
                 ("svm.SupportVectorClassifier.fit", "y"), ("dual.MAPRegression.fit", "y"),
                 ("gaussian_process.GaussianProcessRegressor.fit", "y"),
                 ("gaussian_process.GaussianProcessClassifier.fit", "y"),
                 ("gaussian_process.LowRankGaussianProcess.fit", "y")}
TWO_D_OK = {("ridge.dual_ridge", "y"), ("ridge.primal_ridge", "y"), ("ridge.KernelRidge.fit", "y"),
            ("ridge.ridge_predict_dual", "alpha"), ("gradient_descent.w_from_alpha", "alpha"),
            ("random_features.single_sample_estimate", "w"), ("random_features.single_sample_estimate", "b")
            } | COLUMN_LABELS
# Arguments that must be positive semi-definite: an indefinite one is refused with its smallest eigenvalue.
PSD_ARGS = {("ridge.dual_ridge", "K"), ("gaussian_process.cholesky_jittered", "K"),
            ("gaussian_process.sample_gaussian", "cov"), ("gaussian_process.gp_factor", "K"),
            ("gaussian_process.log_marginal_likelihood", "K"), ("dual.map_linear_dual", "K"), ("dual.map_hinge_dual", "K"),
            ("feature_space.mean_squared_distance_to_mean", "K"), ("nystroem.inverse_sqrt_psd", "K"),
            ("nystroem.nystroem_features", "K_mm"), ("gradient_descent.largest_stable_step", "K")}
# Integer arrays (indices, permutations): float32 is no valid variant of them.
INT_ARGS = {"indices", "order"}
# Results that hold timings or memory peaks: the valid variants are only checked to run.
TIMED = {"features.time_all_subsets", "cost_model.measure_way", "cost_model.time_demo", "scaling.measure_exact", "rkhs.budget_tradeoff"}


def _indefinite(v):
    """A symmetric matrix like ``v`` whose top-left 2 x 2 block, hence ``v``, is far from PSD
    (smallest eigenvalue below -9 max(v_00, v_11): no ridge penalty of the entries lifts it)."""
    bad = np.array(v, dtype=float)
    bad[0, 1] = bad[1, 0] = 10.0 * max(bad[0, 0], bad[1, 1])
    return bad


def _is_free(name, arg):
    last = name.rsplit(".", 1)[-1]
    return (arg in FREE_ROWS or (name, arg) in FREE_ROWS
            or (arg == "X" and (last in ("predict", "transform", "features", "__call__")
                                or name.split(".")[0] == "kernels")))


def _named(arg, text):
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", text) is not None


def _outcome(func, kwargs, arg, partners=(), also=None):
    """Classify one call; a length mismatch may name the partner argument instead."""
    try:
        out = func(**kwargs)
    except (ValueError, TypeError) as exc:
        text = str(exc)
        named = _named(arg, text) or any(_named(p, text) for p in partners)
        if named and (also is None or also in text):
            return "clear"
        return f"unhelpful: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - the sweep classifies every escape
        return f"unhelpful: {type(exc).__name__}: {exc}"
    return f"silent: returned {type(out).__name__}"


def _array_cases():
    cases = []
    for name, func, kw, args in ENTRIES:
        for arg in args:
            fams = _families(kw[arg])
            if (name, arg) in PSD_ARGS:
                fams.append(("indefinite", _indefinite(kw[arg])))
            for fam, bad in fams:
                if fam == "short" and (len(args) == 1 or _is_free(name, arg)):
                    continue
                if fam in ("empty", "extra_dim") and name in ELEMENTWISE:
                    continue
                if fam == "extra_dim" and (name, arg) in TWO_D_OK:
                    continue
                partners = tuple(args) if fam in ("short", "empty") else ()
                also = "eigenvalue" if fam == "indefinite" else None
                cases.append((name, func, kw, arg, fam, bad, partners, also))
    return cases


def _scalar_cases():
    return [(name, func, kw, arg, fam, bad, (), also)
            for name, func, kw, kinds in SCALARS for arg, kind in kinds.items()
            for fam, bad, also in SCALAR_FAMILIES[kind]]


CASES = _array_cases() + _scalar_cases()


def sweep_counts():
    """(clear, silent, unhelpful) over every case, and the failing cases."""
    counts = {"clear": 0, "silent": 0, "unhelpful": 0}
    failures = []
    for name, func, kw, arg, fam, bad, partners, also in CASES:
        result = _outcome(func, {**kw, arg: bad}, arg, partners, also)
        kind = result.split(":")[0]
        counts[kind] += 1
        if kind != "clear":
            failures.append((name, arg, fam, result))
    return counts, failures


def counts_line(counts):
    entries = {e[0] for e in ENTRIES} | {e[0] for e in SCALARS}
    return (f"{len(entries)} entries, {len(CASES)} cases: {counts['clear']} clear, {counts['silent']} silent, "
            f"{counts['unhelpful']} unhelpful")


def test_counts():
    """Prints the sweep's counts (run with -s); none silent, none unhelpful."""
    counts, failures = sweep_counts()
    print("\n" + counts_line(counts))
    for failure in failures:
        print(*failure)
    assert counts["silent"] == 0 and counts["unhelpful"] == 0


@pytest.mark.parametrize("name,func,kw,arg,fam,bad,partners,also", CASES,
                         ids=[f"{c[0]}-{c[3]}-{c[4]}" for c in CASES])
def test_bad_input_raises_naming_the_argument(name, func, kw, arg, fam, bad, partners, also):
    func(**kw)  # the valid call answers: the error below comes from the bad argument
    result = _outcome(func, {**kw, arg: bad}, arg, partners, also)
    assert result == "clear", f"{name}({arg}={fam}): {result}"


# ------------------------------------------------------------------ the sweep covers everything

def _public_callables():
    """``module.Name`` -> object for every public function and class of the math modules."""
    out = {}
    for m in MATH_MODULES:
        mod = importlib.import_module(f"kernelcourse.{m}")
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        for n in names:
            obj = getattr(mod, n)
            home = getattr(obj, "__module__", "")
            # its own, or a private module's that this public module re-exports (center_gram
            # lives in kernelcourse._centering, and feature_space is its public home)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) \
                    and home.startswith((f"kernelcourse.{m}", "kernelcourse._")):
                out[f"{m}.{n}"] = obj
    return out


def _required(name, obj):
    """What must be swept for one public callable: estimators by fit and predict/transform,
    kernels by their call and (with a finite map) their features, RKHS functions by their call."""
    if inspect.isclass(obj) and issubclass(obj, kernels.Kernel):
        short = name.split(".")[1]
        inst = KERNEL_INSTANCES.get(short)
        if inst is None or not isinstance(inst, obj):
            return [name]
        return [name] + ([f"{name}.features"] if _has_features(inst) else [])
    if inspect.isclass(obj) and hasattr(obj, "fit"):
        return [f"{name}.fit"] + [f"{name}.{m}" for m in ("predict", "transform") if hasattr(obj, m)]
    if inspect.isclass(obj) and "__call__" in vars(obj) and not hasattr(obj, "__dataclass_fields__"):
        return [name, f"{name}.__call__"]
    return [name]


def test_every_public_callable_is_swept_or_listed():
    swept = {e[0] for e in ENTRIES} | {e[0] for e in SCALARS}
    public = _public_callables()
    assert len(public) > 150            # the enumeration found the modules' callables
    by_object = {}
    for name, obj in public.items():
        by_object.setdefault(id(obj), []).append(name)
    missing = []
    for name, obj in public.items():
        aliases = by_object[id(obj)]    # FunctionScaled is Scaled: one of the names suffices
        if any(alias in NOT_SWEPT for alias in aliases):
            continue
        for want in _required(name, obj):
            if not any(want.replace(name, alias, 1) in swept for alias in aliases):
                missing.append(want)
    assert not missing, f"not swept and not listed in NOT_SWEPT: {missing}"
    assert set(NOT_SWEPT) <= set(public), set(NOT_SWEPT) - set(public)
    assert not set(NOT_SWEPT) & {n.rsplit(".", 1)[0] if n.count(".") > 1 else n for n in swept}
    assert all(reason.strip() for reason in NOT_SWEPT.values())


def test_every_entry_names_a_public_callable():
    public = _public_callables()
    for name in {e[0] for e in ENTRIES} | {e[0] for e in SCALARS}:
        assert ".".join(name.split(".")[:2]) in public, name


# ------------------------------------------------------------------ valid variants

def _numbers(out, timed=False):
    """The numbers of a result, flattened; records by their coefficients, timings left out."""
    if isinstance(out, dict):
        return [x for k, v in sorted(out.items()) if not (timed and ("seconds" in k or "ratio" in k
                                                                  or "bytes" in k))
                for x in _numbers(v, timed)]
    if isinstance(out, (tuple, list)):
        return [x for v in out for x in _numbers(v, timed)]
    for attr in ("coef", "alpha", "min_eigenvalue"):
        if hasattr(out, attr) and not isinstance(out, np.ndarray):
            return _numbers(getattr(out, attr), timed)
    if isinstance(out, str):
        return [out]
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return []
    return [arr]


def _assert_same(got, want, rtol=1e-5):
    got, want = _numbers(got), _numbers(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, str):
            assert g == w
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name,func,kw,args", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_lists_and_float32_give_the_same_answer(name, func, kw, args):
    want = func(**kw)
    for convert in (lambda v: np.asarray(v).tolist(), lambda v: np.asarray(v, dtype=np.float32)):
        got = func(**{**kw, **{arg: (convert(kw[arg]) if arg not in INT_ARGS else np.asarray(kw[arg]).tolist())
                               for arg in args}})
        _assert_same(got, want)


def _scalar_variants(kind, value):
    if kind in ("positive", "nonnegative", "real", "unit") and isinstance(value, float):
        variants = [np.float64(value)]
        if float(value).is_integer():
            variants.append(int(value))
        return variants
    if kind in ("count", "count0", "index", "seed") and isinstance(value, int) and not isinstance(value, bool):
        return [np.int64(value), np.int32(value)]
    if kind in ("counts", "positives") and isinstance(value, (list, tuple)):
        return [np.asarray(value), tuple(value)]
    return []


@pytest.mark.parametrize("name,func,kw,kinds", SCALARS, ids=[e[0] for e in SCALARS])
def test_numpy_scalars_and_ints_give_the_same_answer(name, func, kw, kinds):
    want = func(**kw)
    for arg, kind in kinds.items():
        for variant in _scalar_variants(kind, kw[arg]):
            got = func(**{**kw, arg: variant})
            if name not in TIMED:
                _assert_same(got, want, rtol=1e-12)


@pytest.mark.parametrize("name,func,kw,kinds", [e for e in SCALARS if "kernel" in e[3].values()],
                         ids=[e[0] for e in SCALARS if "kernel" in e[3].values()])
def test_kernel_names_give_the_answer_of_the_kernel_object(name, func, kw, kinds):
    """scikit-learn's names resolve to the package's kernels with scikit-learn's defaults
    (gamma = 1 / n_features: the entries' kernel objects are RBF(1 / n_features))."""
    [arg] = [k for k, kind in kinds.items() if kind == "kernel"]
    if name in TIMED:
        func(**{**kw, arg: "rbf"})
        return
    _assert_same(func(**{**kw, arg: "rbf"}), func(**kw), rtol=1e-12)


def test_string_kernel_names_match_the_package_kernels_with_sklearn_defaults():
    from kernelcourse.kernels import as_kernel
    Z = _rng.normal(size=(4, 3))
    np.testing.assert_allclose(as_kernel("rbf", 3)(Z), RBF(gamma=1 / 3)(Z))
    np.testing.assert_allclose(as_kernel("linear", 3)(Z), Z @ Z.T)
    np.testing.assert_allclose(as_kernel("poly", 3)(Z), (Z @ Z.T / 3 + 1) ** 3)
    np.testing.assert_allclose(as_kernel("laplacian", 3)(Z), Laplacian(gamma=1 / 3)(Z))
    with pytest.raises(ValueError, match=r"kernel='gauss' is not a known kernel name; use one of \['linear'"):
        as_kernel("gauss", 3)


def test_indefinite_gram_is_refused_with_its_smallest_eigenvalue():
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match=r"K must be positive semi-definite; its smallest eigenvalue is -1 "):
        feature_space.mean_squared_distance_to_mean(bad)


def test_kernel_perceptron_refuses_an_indefinite_kernel_before_training():
    Xs = np.array([[3.0, 0.0], [0.0, 3.0], [3.0, 3.0]])
    with pytest.raises(ValueError, match=r"kernel\(X, X\) must be positive semi-definite"):
        perceptron.KernelPerceptron(Sigmoid(gamma=1.0, coef0=-5.0), max_epochs=10**6).fit(Xs, [1, -1, 1])


def test_set_kernel_refuses_what_is_not_a_list_of_sets():
    k = kernels.SetKernel()
    S = [{1, 2}, {2, 3}, {4}]
    np.testing.assert_allclose(k(S), np.exp([[2, 1, 0], [1, 2, 0], [0, 0, 1]]))
    for bad, words in [(np.ones((3, 2)), "S must be a list or tuple of Python sets; got ndarray"),
                       ({1, 2}, "S must be a sequence of sets"), ([], "S must hold at least one set"),
                       ([{1}, [1, 2]], r"S\[1\] must be a set or frozenset"), ("abc", "S must be a list")]:
        with pytest.raises((TypeError, ValueError), match=words):
            k(bad)
    with pytest.raises(TypeError, match=r"T\[0\] must be a set"):
        k(S, [(1, 2)])


if __name__ == "__main__":
    counts, failures = sweep_counts()
    print(counts_line(counts))
    for f in failures:
        print(*f)


@pytest.mark.parametrize("k", [RBF(gamma=0.5), Linear() + RBF(), 2.0 * RBF()],
                         ids=["rbf", "sum", "scaled"])
def test_kernels_accept_the_row_pairs_scikit_learn_passes_to_a_callable_metric(k):
    from sklearn.metrics.pairwise import pairwise_kernels  # test-only oracle
    np.testing.assert_allclose(pairwise_kernels(X, metric=k), k(X), rtol=1e-12, atol=1e-12)
    assert k(X[0], X[1]) == pytest.approx(float(k(X[:1], X[1:2])[0, 0]), rel=1e-12)


def test_kernel_ridge_with_a_kernel_name_equals_the_kernel_object():
    for name, obj in [("rbf", RBF(gamma=0.5)), ("poly", Polynomial(3, gamma=0.5, coef0=1.0)),
                      ("linear", Linear())]:
        by_name = ridge.KernelRidge(kernel=name, lam=0.1).fit(X, y_real).predict(X)
        by_obj = ridge.KernelRidge(kernel=obj, lam=0.1).fit(X, y_real).predict(X)
        np.testing.assert_allclose(by_name, by_obj, rtol=1e-12, atol=1e-12)


def _same_outcome(func, kw_a, kw_b):
    """Both calls give the same answer, or both raise the same exception type."""
    outs = []
    for kw in (kw_a, kw_b):
        try:
            out = func(**kw)
        except (ValueError, TypeError) as exc:
            outs.append(type(exc))
            continue
        outs.append(_numbers(out))
    if isinstance(outs[0], type) or isinstance(outs[1], type):
        assert outs[0] == outs[1]
    else:
        assert len(outs[0]) == len(outs[1])
        for g, w in zip(*outs):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,func,kw,args", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_int_and_bool_arrays_read_as_their_float_values(name, func, kw, args):
    for arg in args:
        if np.asarray(kw[arg]).dtype.kind != "f":
            continue
        v = np.asarray(kw[arg])
        labels = set(np.unique(v)) <= {-1.0, 1.0}
        ints = v.astype(int) if labels else np.rint(2 * v).astype(int)
        _same_outcome(func, {**kw, arg: ints}, {**kw, arg: ints.astype(float)})
        if arg not in ("y", "y_train", "y_test"):  # labels are +-1 or real targets, never bools
            bools = np.asarray(kw[arg]) > 0
            _same_outcome(func, {**kw, arg: bools}, {**kw, arg: bools.astype(float)})


@pytest.mark.parametrize("name", sorted(n for n, _ in COLUMN_LABELS))
def test_a_column_of_labels_is_raveled_with_a_warning(name):
    from sklearn.exceptions import DataConversionWarning

    [(func, kw)] = [(f, k) for n, f, k, _ in ENTRIES if n == name]
    flat = func(**kw)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = func(**dict(kw, y=np.asarray(kw["y"])[:, None]))
    np.testing.assert_array_equal(column, flat)
