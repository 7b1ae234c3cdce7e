"""Bad-input sweep: every entry in ENTRIES, fed each family of bad input in each
array argument, must raise ValueError/TypeError whose message names the argument;
valid variants (lists, float32) must give the same answer as float64 arrays.

The sweep covers the entries listed below (a subset of the public API; see
``ENTRIES``). ``sweep_counts`` classifies every outcome as a clear error, a
silent answer or an unhelpful error, and the test requires 0 of the last two.
"""
import numpy as np
import pytest

from kernelcourse import (dual, feature_space, features, gradient_descent, perceptron, random_features,
                          ridge, rkhs, sgd)
from kernelcourse.kernels import RBF, Linear

_rng = np.random.default_rng(0)
X = _rng.normal(size=(6, 2))
y_lab = np.array([1.0, -1, 1, -1, 1, -1])
y_real = _rng.normal(size=6)
K = RBF(gamma=0.5)(X)
a = _rng.normal(size=6)
Omega = _rng.normal(size=(4, 2))
idx = _rng.integers(0, 6, size=10)


def _fit_predict(cls, **kw):
    def run(X, y):
        return cls(**kw).fit(X, y).predict(X)
    return run


def _rkhs_values(func, **kw):
    """An RKHS fit compared by its values on the training inputs."""
    def run(X, y):
        return func(X=X, y=y, **kw)(np.asarray(X, dtype=float))
    return run


# (name, function, valid keyword arguments, array arguments swept)
ENTRIES = [
    ("ridge.dual_ridge", ridge.dual_ridge, dict(K=K, y=y_real, lam=0.1), ["K", "y"]),
    ("ridge.primal_ridge", ridge.primal_ridge, dict(X=X, y=y_real, lam=0.1), ["X", "y"]),
    ("ridge.ridge_predict_dual", ridge.ridge_predict_dual, dict(K_new=K, alpha=a), ["K_new", "alpha"]),
    ("ridge.KernelRidge", _fit_predict(ridge.KernelRidge, kernel="rbf", lam=0.1), dict(X=X, y=y_real), ["X", "y"]),
    ("dual.map_linear_primal", dual.map_linear_primal, dict(X=X, y=y_real, sigma=1.0, lam=0.1), ["X", "y"]),
    ("dual.map_linear_dual", dual.map_linear_dual, dict(K=K, y=y_real, sigma=1.0, lam=0.1), ["K", "y"]),
    ("dual.dual_predict", dual.dual_predict, dict(K_test=K, alpha=a), ["K_test", "alpha"]),
    ("gradient_descent.squared_loss", gradient_descent.squared_loss, dict(K=K, y=y_real, alpha=a), ["K", "y", "alpha"]),
    ("gradient_descent.dual_gradient", gradient_descent.dual_gradient, dict(K=K, y=y_real, alpha=a), ["K", "y", "alpha"]),
    ("gradient_descent.kernel_gradient_descent", gradient_descent.kernel_gradient_descent,
     dict(K=K, y=y_real, step=0.1, n_steps=5), ["K", "y"]),
    ("feature_space.mean_squared_distance_to_mean", feature_space.mean_squared_distance_to_mean, dict(K=K), ["K"]),
    ("feature_space.centre_of_mass_offset", feature_space.centre_of_mass_offset, dict(K=K, y=y_lab), ["K", "y"]),
    ("perceptron.dual_perceptron", perceptron.dual_perceptron, dict(K=K, y=y_lab, max_epochs=50), ["K", "y"]),
    ("perceptron.KernelPerceptron", _fit_predict(perceptron.KernelPerceptron, kernel="rbf", max_epochs=50),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("perceptron.feature_radius", perceptron.feature_radius, dict(K=K), ["K"]),
    ("perceptron.primal_perceptron", perceptron.primal_perceptron, dict(X=X, y=y_lab, max_epochs=50), ["X", "y"]),
    ("feature_space.center_gram", feature_space.center_gram, dict(K=K), ["K"]),
    ("feature_space.normalize_gram", feature_space.normalize_gram, dict(K=K), ["K"]),
    ("feature_space.weight_norm_squared", feature_space.weight_norm_squared, dict(K=K, alpha=a), ["K", "alpha"]),
    ("feature_space.CentreOfMassClassifier", _fit_predict(feature_space.CentreOfMassClassifier, kernel="rbf"),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("dual.map_hinge_dual", dual.map_hinge_dual, dict(K=K, y=y_lab, lam=0.5), ["K", "y"]),
    ("dual.map_logistic_primal", dual.map_logistic_primal, dict(X=X, y=y_lab, lam=1.0), ["X", "y"]),
    ("gradient_descent.decision_function", gradient_descent.decision_function,
     dict(kernel="rbf", X_train=X, alpha=a, X=X), ["X_train", "alpha", "X"]),
    ("gradient_descent.KernelGD", _fit_predict(gradient_descent.KernelGD, kernel="rbf"),
     dict(X=X, y=y_lab), ["X", "y"]),
    ("rkhs.representer_minimiser", _rkhs_values(rkhs.representer_minimiser, kernel="rbf", lam=0.1),
     dict(X=X, y=y_real), ["X", "y"]),
    ("rkhs.fit_online", _rkhs_values(rkhs.fit_online, kernel="rbf"), dict(X=X, y=y_lab), ["X", "y"]),
    ("features.polynomial_map", features.polynomial_map, dict(X=X, degree=2), ["X"]),
    ("features.all_subsets_map", features.all_subsets_map, dict(X=X), ["X"]),
    ("kernels.RBF", RBF(gamma=0.5), dict(X=X, Z=X[:3]), ["X", "Z"]),
    ("random_features.fourier_features", random_features.fourier_features, dict(X=X, Omega=Omega),
     ["X", "Omega"]),
    ("random_features.rff_variance", random_features.rff_variance, dict(K=K, n_components=10), ["K"]),
    ("sgd.sgd_cached_features", sgd.sgd_cached_features, dict(Z=X, y=y_lab, indices=idx), ["Z", "y"]),
]


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


# Arguments whose number of rows is free (test rows): a shorter one is valid.
FREE_ROWS = {"K_new", "K_test", "Z", "Omega", ("gradient_descent.decision_function", "X"),
             ("kernels.RBF", "X"), ("random_features.fourier_features", "X")}
# Elementwise functions: an empty or a 3-D array is a valid input.
ELEMENTWISE = {"random_features.rff_variance"}
# Ridge takes several target columns: y (and alpha) of shape (n, 1) are valid. The
# classifiers take a column of labels as scikit-learn's estimators do: raveled, with a
# DataConversionWarning (test_a_column_of_labels_is_raveled_with_a_warning).
COLUMN_LABELS = {("perceptron.KernelPerceptron", "y"), ("feature_space.CentreOfMassClassifier", "y"),
                 ("gradient_descent.KernelGD", "y")}
TWO_D_OK = {("ridge.dual_ridge", "y"), ("ridge.primal_ridge", "y"), ("ridge.KernelRidge", "y"),
            ("ridge.ridge_predict_dual", "alpha")} | COLUMN_LABELS


def _outcome(func, kwargs, arg, partners=()):
    """Classify one call; a length mismatch may name the partner argument instead."""
    try:
        out = func(**kwargs)
    except (ValueError, TypeError) as exc:
        named = arg in str(exc) or any(p in str(exc) for p in partners)
        return "clear" if named else f"unhelpful: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - the sweep classifies every escape
        return f"unhelpful: {type(exc).__name__}: {exc}"
    return f"silent: returned {type(out).__name__}"


CASES = [(name, func, kw, arg, fam, bad, tuple(args) if fam in ("short", "empty") else ())
         for name, func, kw, args in ENTRIES for arg in args for fam, bad in _families(kw[arg])
         if not (fam == "short" and (len(args) == 1 or arg in FREE_ROWS or (name, arg) in FREE_ROWS))
         and not (fam in ("empty", "extra_dim") and name in ELEMENTWISE)
         and not (fam == "extra_dim" and (name, arg) in TWO_D_OK)]


def sweep_counts():
    """(clear, silent, unhelpful) over every case, and the failing cases."""
    counts = {"clear": 0, "silent": 0, "unhelpful": 0}
    failures = []
    for name, func, kw, arg, fam, bad, partners in CASES:
        result = _outcome(func, {**kw, arg: bad}, arg, partners)
        kind = result.split(":")[0]
        counts[kind] += 1
        if kind != "clear":
            failures.append((name, arg, fam, result))
    return counts, failures


@pytest.mark.parametrize("name,func,kw,arg,fam,bad,partners", CASES,
                         ids=[f"{c[0]}-{c[3]}-{c[4]}" for c in CASES])
def test_bad_input_raises_naming_the_argument(name, func, kw, arg, fam, bad, partners):
    func(**kw)  # the valid call answers: the error below comes from the bad argument
    result = _outcome(func, {**kw, arg: bad}, arg, partners)
    assert result == "clear", f"{name}({arg}={fam}): {result}"


@pytest.mark.parametrize("name,func,kw,args", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_lists_and_float32_give_the_same_answer(name, func, kw, args):
    def answer(out):  # run records (GDRun, PerceptronRun) compare by their coefficients
        if isinstance(out, tuple):  # (weights, ...): the weights
            return out[0]
        return getattr(out, "coef", getattr(out, "alpha", out))

    want = answer(func(**kw))
    for convert in (lambda v: np.asarray(v).tolist(), lambda v: np.asarray(v, dtype=np.float32)):
        got = func(**{**kw, **{arg: convert(kw[arg]) for arg in args}})
        got = answer(got)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_string_kernel_names_match_the_package_kernels_with_sklearn_defaults():
    from kernelcourse.kernels import as_kernel
    from kernelcourse.kernels import Laplacian, Polynomial
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
    from kernelcourse.kernels import Sigmoid
    Xs = np.array([[3.0, 0.0], [0.0, 3.0], [3.0, 3.0]])
    with pytest.raises(ValueError, match=r"kernel\(X, X\) must be positive semi-definite"):
        perceptron.KernelPerceptron(Sigmoid(gamma=1.0, coef0=-5.0), max_epochs=10**6).fit(Xs, [1, -1, 1])


if __name__ == "__main__":
    counts, failures = sweep_counts()
    print(len(CASES), "cases:", counts)
    for f in failures:
        print(*f)


@pytest.mark.parametrize("k", [RBF(gamma=0.5), Linear() + RBF(), 2.0 * RBF()],
                         ids=["rbf", "sum", "scaled"])
def test_kernels_accept_the_row_pairs_scikit_learn_passes_to_a_callable_metric(k):
    from sklearn.metrics.pairwise import pairwise_kernels  # test-only oracle
    np.testing.assert_allclose(pairwise_kernels(X, metric=k), k(X), rtol=1e-12, atol=1e-12)
    assert k(X[0], X[1]) == pytest.approx(float(k(X[:1], X[1:2])[0, 0]), rel=1e-12)


def test_kernel_ridge_with_a_kernel_name_equals_the_kernel_object():
    from kernelcourse.kernels import Polynomial
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
        out = out[0] if isinstance(out, tuple) else getattr(out, "coef", getattr(out, "alpha", out))
        outs.append(np.asarray(out, dtype=float))
    if isinstance(outs[0], type) or isinstance(outs[1], type):
        assert outs[0] == outs[1]
    else:
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,func,kw,args", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_int_and_bool_arrays_read_as_their_float_values(name, func, kw, args):
    for arg in args:
        if np.asarray(kw[arg]).dtype.kind != "f":
            continue
        v = np.asarray(kw[arg])
        labels = set(np.unique(v)) <= {-1.0, 1.0}
        ints = v.astype(int) if labels else np.rint(2 * v).astype(int)
        _same_outcome(func, {**kw, arg: ints}, {**kw, arg: ints.astype(float)})
        if arg not in ("y",):  # labels are +-1 or real targets, never bools
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
