"""Kernels against a slow loop over their definition and against scikit-learn."""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import pairwise

from kernelcourse import kernels as kn

RNG = np.random.default_rng(20261121)
X = RNG.normal(size=(9, 4))
Z = RNG.normal(size=(6, 4))


# ---------------------------------------------------------------------------
# slow references: one pair at a time, straight from the formulas
# ---------------------------------------------------------------------------

def slow_gram(k, X, Z):
    return np.array([[k(x, z) for z in Z] for x in X])


DEFINITIONS = {
    "linear": (kn.Linear(), lambda x, z: sum(a * b for a, b in zip(x, z))),
    "polynomial": (kn.Polynomial(3, gamma=0.7, coef0=1.5),
                   lambda x, z: (0.7 * np.dot(x, z) + 1.5) ** 3),
    "polynomial_homogeneous": (kn.Polynomial(2, coef0=0.0), lambda x, z: np.dot(x, z) ** 2),
    "rbf": (kn.RBF(0.3), lambda x, z: math.exp(-0.3 * sum((a - b) ** 2 for a, b in zip(x, z)))),
    "laplacian": (kn.Laplacian(0.4), lambda x, z: math.exp(-0.4 * sum(abs(a - b) for a, b in zip(x, z)))),
    "exponential": (kn.Exponential(0.6),
                    lambda x, z: math.exp(-0.6 * math.sqrt(sum((a - b) ** 2 for a, b in zip(x, z))))),
    "sigmoid": (kn.Sigmoid(0.2, coef0=-0.3), lambda x, z: math.tanh(0.2 * np.dot(x, z) - 0.3)),
    "delta": (kn.Delta(), lambda x, z: float(all(a == b for a, b in zip(x, z)))),
    "all_subsets": (kn.AllSubsets(), lambda x, z: math.prod(1 + a * b for a, b in zip(x, z))),
}


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_kernel_matches_slow_loop(name):
    k, f = DEFINITIONS[name]
    assert_allclose(k(X, Z), slow_gram(f, X, Z), rtol=1e-12, atol=1e-14)
    assert_allclose(k(X), slow_gram(f, X, X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_diag_is_diagonal_of_gram(name):
    k, _ = DEFINITIONS[name]
    assert_allclose(k.diag(X), np.diag(k(X)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_shapes_and_inputs_untouched(name):
    k, _ = DEFINITIONS[name]
    X0, Z0 = X.copy(), Z.copy()
    assert k(X, Z).shape == (9, 6)
    assert k(X).shape == (9, 9)
    assert np.array_equal(X, X0) and np.array_equal(Z, Z0)


def test_delta_on_repeated_rows():
    P = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [-0.0, 1.0]])
    expected = np.array([[1, 1, 0, 1], [1, 1, 0, 1], [0, 0, 1, 0], [1, 1, 0, 1]], dtype=float)
    assert np.array_equal(kn.Delta()(P), expected)
    assert np.array_equal(kn.Delta()(RNG.normal(size=(5, 3))), np.eye(5))


# ---------------------------------------------------------------------------
# scikit-learn as an oracle, identical parameters
# ---------------------------------------------------------------------------

SKLEARN = [
    (kn.Linear(), lambda A, B: pairwise.linear_kernel(A, B)),
    (kn.RBF(0.25), lambda A, B: pairwise.rbf_kernel(A, B, gamma=0.25)),
    (kn.Polynomial(4, gamma=0.3, coef0=2.0),
     lambda A, B: pairwise.polynomial_kernel(A, B, degree=4, gamma=0.3, coef0=2.0)),
    (kn.Laplacian(0.5), lambda A, B: pairwise.laplacian_kernel(A, B, gamma=0.5)),
    (kn.Sigmoid(0.1, coef0=0.5), lambda A, B: pairwise.sigmoid_kernel(A, B, gamma=0.1, coef0=0.5)),
]


@pytest.mark.parametrize("k, oracle", SKLEARN, ids=[repr(k) for k, _ in SKLEARN])
def test_against_sklearn(k, oracle):
    assert_allclose(k(X, Z), oracle(X, Z), rtol=1e-12, atol=1e-15)
    assert_allclose(k(X), oracle(X, X), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n, m, d", [(1300, None, 3), (1100, 1000, 3), (1100, None, 80), (700, None, 120),
                                     (300, 250, 120), (5, None, 1)])
def test_rbf_fast_paths_against_sklearn(n, m, d):
    # sizes that take the tiled two-thread path (small d) and the one-product path (large d)
    rng = np.random.default_rng(n + d)
    A = rng.normal(size=(n, d))
    B = None if m is None else rng.normal(size=(m, d))
    gamma = 1.0 / d
    K = kn.RBF(gamma)(A, B)
    R = pairwise.rbf_kernel(A, B, gamma=gamma)
    assert K.shape == R.shape
    assert K.flags.c_contiguous and K.flags.writeable
    assert np.max(np.abs(K - R) / R) < 1e-12
    if B is None:
        assert np.array_equal(K, K.T)
        assert np.all(np.diag(K) == 1.0)


def test_rbf_duplicate_points_never_exceed_one():
    # ||x||^2 + ||z||^2 - 2 x.z cancels badly for far-out duplicates: clipped at 0,
    # so k <= 1, and within the cancellation error (eps * gamma * ||x||^2) of 1
    A = np.repeat(RNG.normal(size=(3, 5)) * 1e3, 2, axis=0)
    K = kn.RBF(1.0)(A)
    assert np.all(K <= 1.0)
    assert np.all(np.diag(K) == 1.0)
    assert_allclose(K[0, 1], 1.0, rtol=0, atol=1e-16 * 64 * np.sum(A[0] ** 2))


def test_explicit_z_equal_to_x_is_symmetric_too():
    k = kn.RBF(0.5)
    assert np.array_equal(k(X, X), k(X))


# ---------------------------------------------------------------------------
# the kernel on sets
# ---------------------------------------------------------------------------

SETS = [{1, 2, 3}, {"a"}, set(), frozenset({2, 3, "a"}), {1}]
OTHER = [{3, "b"}, {1, 2, 3, "a"}]


def test_set_kernel_against_loop():
    k = kn.SetKernel()
    assert_allclose(k(SETS, OTHER), slow_gram(lambda s, t: math.exp(len(s & t)), SETS, OTHER),
                    rtol=1e-14)
    assert_allclose(k(SETS), slow_gram(lambda s, t: math.exp(len(s & t)), SETS, SETS), rtol=1e-14)
    assert_allclose(k.diag(SETS), [math.exp(len(s)) for s in SETS], rtol=1e-14)


def test_set_kernel_rejects_arrays_and_non_sets():
    k = kn.SetKernel()
    with pytest.raises(TypeError, match=r"S must be a list or tuple of Python sets; got ndarray with shape \(9, 4\)"):
        k(X)
    with pytest.raises(TypeError, match=r"S\[1\] must be a set or frozenset; got list"):
        k([{1}, [2, 3]])
    with pytest.raises(TypeError, match="got a single set"):
        k({1, 2})
    with pytest.raises(ValueError, match="at least one set"):
        k([])
    with pytest.raises(TypeError, match=r"T must be a list or tuple"):
        k(SETS, "abc")


# ---------------------------------------------------------------------------
# construction rules, each against its formula
# ---------------------------------------------------------------------------

def f_scale(A):
    return 1.0 + A[:, 0] ** 2


def phi_square(A):
    return np.column_stack([A[:, 0] * A[:, 1], A[:, 2] - A[:, 3]])


K_RBF = kn.RBF(0.2)(X, Z)
K_POLY = kn.Polynomial(2)(X, Z)
K_LIN = X @ Z.T
SPD = np.array([[2.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 3.0]])

RULES = {
    "sum": (kn.RBF(0.2) + kn.Polynomial(2), K_RBF + K_POLY),
    "product": (kn.RBF(0.2) * kn.Polynomial(2), K_RBF * K_POLY),
    "scale_left": (2.5 * kn.RBF(0.2), 2.5 * K_RBF),
    "scale_right": (kn.RBF(0.2) * 2.5, 2.5 * K_RBF),
    "exp": (kn.Exp(kn.Linear()), np.exp(K_LIN)),
    "polynomial_of": (kn.PolynomialOf(kn.Linear(), [1.0, 0.0, 0.5, 2.0]),
                      1.0 + 0.5 * K_LIN ** 2 + 2.0 * K_LIN ** 3),
    "scaled": (kn.Scaled(kn.RBF(0.2), f_scale), f_scale(X)[:, None] * K_RBF * f_scale(Z)[None, :]),
    "bilinear": (kn.Bilinear(SPD), X @ SPD @ Z.T),
    "composed": (kn.Composed(kn.RBF(0.2), phi_square), kn.RBF(0.2)(phi_square(X), phi_square(Z))),
    "normalized": (kn.Normalized(kn.Polynomial(2)),
                   K_POLY / np.sqrt(np.outer((np.sum(X * X, 1) + 1) ** 2, (np.sum(Z * Z, 1) + 1) ** 2))),
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule_matches_formula(name):
    k, expected = RULES[name]
    assert_allclose(k(X, Z), expected, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule_diag_and_symmetry(name):
    k, _ = RULES[name]
    K = k(X)
    assert_allclose(K, K.T, rtol=1e-13, atol=1e-13)
    assert_allclose(k.diag(X), np.diag(K), rtol=1e-12)


def test_normalized_has_unit_diagonal_and_is_cosine():
    k = kn.Normalized(kn.Linear())
    cos = slow_gram(lambda x, z: np.dot(x, z) / np.linalg.norm(x) / np.linalg.norm(z), X, Z)
    assert_allclose(k(X, Z), cos, rtol=1e-12)
    assert_allclose(np.diag(k(X)), 1.0, rtol=1e-14)


def test_normalizing_exp_linear_gives_rbf():
    # lecture 3's proof: exp(<x,z>/sigma^2) normalised is exp(-||x-z||^2 / (2 sigma^2))
    sigma = 1.7
    k = kn.Normalized(kn.Exp(kn.Linear() * (1 / sigma ** 2)))
    rbf = kn.RBF(kn.gamma_from_sigma(sigma, "two_sigma2"))
    assert_allclose(k(X, Z), rbf(X, Z), rtol=1e-12)


def test_scaled_rbf_factorisation():
    # lecture 4: exp(-||x-x'||^2/2s^2) = f(x) exp(x.x'/s^2) f(x'), f(x) = exp(-x.x/2s^2)
    s = 1.3
    k = kn.Scaled(kn.Exp((1 / s ** 2) * kn.Linear()), lambda A: np.exp(-np.sum(A * A, 1) / (2 * s ** 2)))
    assert_allclose(k(X, Z), kn.RBF(kn.gamma_from_sigma(s, "two_sigma2"))(X, Z), rtol=1e-12)


def test_function_scaled_is_scaled():
    assert kn.FunctionScaled is kn.Scaled


def test_composed_with_set_valued_map():
    words = [["a", "b"], ["b", "c", "d"], ["e"]]
    k = kn.Composed(kn.SetKernel(), lambda docs: [set(w) for w in docs])
    assert_allclose(k(words), np.exp([[2, 1, 0], [1, 3, 0], [0, 0, 1]]), rtol=1e-14)


# ---------------------------------------------------------------------------
# repr, used by the lecture-4 widget
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("k, text", [
    (kn.RBF(gamma=0.5) + 2.0 * kn.Linear(), "RBF(gamma=0.5) + 2.0 * Linear()"),
    (kn.Polynomial(3), "Polynomial(degree=3, gamma=1.0, coef0=1.0)"),
    ((kn.Linear() + kn.RBF()) * kn.Laplacian(2), "(Linear() + RBF(gamma=1.0)) * Laplacian(gamma=2.0)"),
    (3 * (kn.Linear() + kn.Delta()), "3.0 * (Linear() + Delta())"),
    (kn.Exp(kn.Sigmoid()), "Exp(Sigmoid(gamma=1.0, coef0=0.0))"),
    (kn.Normalized(kn.AllSubsets()), "Normalized(AllSubsets())"),
    (kn.PolynomialOf(kn.Linear(), [1, 2]), "PolynomialOf(Linear(), coeffs=(1.0, 2.0))"),
    (kn.Scaled(kn.Exponential(), f_scale), "Scaled(Exponential(gamma=1.0), f=f_scale)"),
    (kn.Composed(kn.SetKernel(), phi_square), "Composed(SetKernel(), phi=phi_square)"),
    (kn.Bilinear(np.eye(2)), "Bilinear(A=[[1.0, 0.0], [0.0, 1.0]])"),
    (kn.Bilinear(np.eye(4)), "Bilinear(A=<4x4 matrix>)"),
])
def test_repr(k, text):
    assert repr(k) == text


# ---------------------------------------------------------------------------
# gamma_from_sigma: each lecture form gives the lecture's kernel
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("form, lecture_kernel", [
    ("sigma2", lambda x, z, s: math.exp(-np.sum((x - z) ** 2) / s ** 2)),
    ("two_sigma2", lambda x, z, s: math.exp(-np.sum((x - z) ** 2) / (2 * s ** 2))),
    ("gamma_divides", lambda x, z, s: math.exp(-np.sum((x - z) ** 2) / s)),
])
def test_gamma_from_sigma_gives_lecture_rbf(form, lecture_kernel):
    for sigma in (0.5, 1.0, 3.0):
        k = kn.RBF(kn.gamma_from_sigma(sigma, form))
        assert_allclose(k(X, Z), slow_gram(lambda x, z: lecture_kernel(x, z, sigma), X, Z), rtol=1e-12)


def test_gamma_from_sigma_values_and_other_forms():
    assert kn.gamma_from_sigma(2.0, "sigma2") == 0.25
    assert kn.gamma_from_sigma(2.0, "two_sigma2") == 0.125
    assert kn.gamma_from_sigma(4.0, "gamma_divides") == 0.25
    # lecture 1's Laplacian exp(-|x - z| / sigma) and exponential exp(-||x - z|| / (2 sigma^2))
    sigma = 1.5
    lap = kn.Laplacian(kn.gamma_from_sigma(sigma, "sigma"))
    assert_allclose(lap(X, Z), slow_gram(lambda x, z: math.exp(-np.sum(np.abs(x - z)) / sigma), X, Z),
                    rtol=1e-12)
    ex = kn.Exponential(kn.gamma_from_sigma(sigma, "two_sigma2"))
    assert_allclose(ex(X, Z), slow_gram(lambda x, z: math.exp(-np.linalg.norm(x - z) / (2 * sigma ** 2)),
                                        X, Z), rtol=1e-12)


def test_gamma_from_sigma_errors():
    with pytest.raises(ValueError, match=r"form must be one of \['gamma_divides', 'sigma', 'sigma2', "
                                         r"'two_sigma2'\]; got form='2sigma'"):
        kn.gamma_from_sigma(1.0, "2sigma")
    with pytest.raises(ValueError, match="sigma must be positive; got sigma=0"):
        kn.gamma_from_sigma(0, "sigma2")


# ---------------------------------------------------------------------------
# error messages
# ---------------------------------------------------------------------------

def test_feature_mismatch_names_shapes():
    with pytest.raises(ValueError, match=r"X and Z must have the same number of features; "
                                         r"got X with shape \(9, 4\) and Z with shape \(3, 2\)"):
        kn.RBF()(X, np.ones((3, 2)))


@pytest.mark.parametrize("k", [kn.Linear(), kn.RBF(), kn.Polynomial(2), kn.AllSubsets(),
                               kn.RBF() + kn.Linear(), 2.0 * kn.Laplacian()])
def test_not_2d(k):
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 1-D with shape \(4,\)"):
        k(np.ones(4))
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 3-D"):
        k(np.ones((2, 2, 2)))


def test_nan_and_inf():
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or inf \(first at row 2, column 1: nan\)"):
        kn.RBF()(bad)
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"Z contains NaN or inf"):
        kn.Linear()(X, bad)


@pytest.mark.parametrize("cls", [kn.RBF, kn.Laplacian, kn.Exponential, kn.Sigmoid])
@pytest.mark.parametrize("gamma", [0, -1.5])
def test_nonpositive_gamma(cls, gamma):
    with pytest.raises(ValueError, match=f"gamma must be positive; got gamma={gamma}"):
        cls(gamma=gamma)


def test_polynomial_parameter_errors():
    with pytest.raises(ValueError, match=r"degree must be a positive integer; got degree=2.5"):
        kn.Polynomial(2.5)
    with pytest.raises(ValueError, match=r"degree must be a positive integer; got degree=0"):
        kn.Polynomial(0)
    with pytest.raises(ValueError, match=r"gamma must be positive; got gamma=-1"):
        kn.Polynomial(2, gamma=-1)
    with pytest.raises(TypeError, match=r"coef0 must be a real number; got 'a'"):
        kn.Polynomial(2, coef0="a")


def test_rule_parameter_errors():
    with pytest.raises(ValueError, match=r"c must be positive; got c=-2"):
        -2 * kn.RBF()
    with pytest.raises(ValueError, match=r"c must be positive; got c=0"):
        0 * kn.RBF()
    with pytest.raises(ValueError, match=r"coeffs must be finite and non-negative .* got coeffs\[1\]=-0.5"):
        kn.PolynomialOf(kn.Linear(), [1.0, -0.5])
    with pytest.raises(TypeError, match=r"k must be a kernelcourse Kernel; got function"):
        kn.Exp(lambda x, z: x @ z.T)
    with pytest.raises(TypeError, match=r"f must be callable"):
        kn.Scaled(kn.RBF(), 3.0)
    with pytest.raises(ValueError, match=r"f must return one value per row of X \(shape \(9,\)\); got shape \(9, 4\)"):
        kn.Scaled(kn.RBF(), lambda A: A)(X)
    with pytest.raises(TypeError, match=r"phi must be callable"):
        kn.Composed(kn.RBF(), "x")


def test_bilinear_errors():
    with pytest.raises(ValueError, match=r"A must be symmetric; got max \|A - A\^T\| = 1"):
        kn.Bilinear([[1.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"A must be positive semi-definite; its smallest eigenvalue is -1"):
        kn.Bilinear([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match=r"A must be a square"):
        kn.Bilinear(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"X must have 4 features to match A with shape \(4, 4\); "
                                         r"got X with shape \(3, 2\)"):
        kn.Bilinear(SPD)(np.ones((3, 2)))


def test_normalized_rejects_zero_self_similarity():
    A = np.array([[1.0, 2.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=r"cannot normalise Linear\(\): k\(x, x\) = 0.0 <= 0 at row 1 of X"):
        kn.Normalized(kn.Linear())(A)


def test_operators_reject_non_kernels():
    with pytest.raises(TypeError):
        kn.RBF() + 1.0
    with pytest.raises(TypeError):
        kn.RBF() * "2"
