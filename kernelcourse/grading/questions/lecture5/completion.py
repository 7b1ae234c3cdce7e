"""Lecture 5, sections 5.12 and 5.13: the inner product well defined, two expansions of one
function, and the eigenvalues and eigenfunctions of the kernel operator (ex5.q6-q9).
"""
from __future__ import annotations

import numpy as np

from ...model import Case, Diagnosis, Property, Question, choice_parts
from .._shared import given as _given
from ._common import _fixed, _gram, _points


# ===================================================================== ex5.q6
# The truth of each statement of the exercise notebook, by the argument of 5.12
_COMPLETION_TRUTH = {
    "unique": False,
    "values": True,
    "symmetry": True,
    "zero norm": True,
    "limits": False,
}

Q6 = Question(
    id="ex5.q6", title="is the inner product well defined?", function="completion_statements",
    points=2, kind="choice", section="5.12",
    forbidden=("kernelcourse.rkhs.RKHSFunction",),
    **choice_parts(_COMPLETION_TRUTH, {
        "unique": "one function can have several expansions: split a repeated centre in two, or "
                  "take a kernel of finite rank such as the linear one with more centres than "
                  "dimensions; that is why 5.12 has to show the inner product ignores the expansion",
        "values": "sum over i first: sum_i alpha_i K(x_i, z_j) is f(z_j), whatever expansion of f "
                  "produced it; what is left is sum_j beta_j f(z_j)",
        "symmetry": "g(x_i) = sum_j beta_j K(z_j, x_i) has the centre of g first, while the double "
                    "sum holds K(x_i, z_j); look at what lets you exchange the two arguments",
        "zero norm": "combine the reproducing property with Cauchy-Schwarz: |f(x)| = "
                     "|<f, K(x, .)>| <= ||f|| sqrt(K(x, x)); what does ||f|| = 0 leave of f(x)?",
        "limits": "think of the continuous sum of bumps of 5.12: its Riemann sums are finite sums "
                  "that form a Cauchy sequence, yet their limit has a Fourier transform no finite "
                  "sum has",
    }),
    fixed_cases=lambda: [Case((key,), label=f"statement {key!r}") for key in _COMPLETION_TRUTH],
    hints=("decide each statement with section 5.12's argument: rewrite the double sum of <f, g> "
           "with the reproducing property and see what it depends on",
           "three of the five are true; for 'zero norm' combine the reproducing property with "
           "Cauchy-Schwarz, and for 'unique' try the linear kernel with three centres in the plane"),
)


# ===================================================================== ex5.q7
def _null_direction(X):
    """A unit vector v with X^T v = 0 (X has more rows than columns): sum_i v_i K(x_i, .) = 0."""
    U, _, _ = np.linalg.svd(X, full_matrices=True)
    return U[:, -1]


def _another_expansion(alpha, X):
    """alpha plus a direction whose bumps add up to the zero function of the linear kernel."""
    return np.asarray(alpha, dtype=float) + _null_direction(X)


def _cases_expansion(rng):
    cases = []
    for m, d in [(3, 2), (4, 1), (5, 3), (6, 2)]:
        X, alpha = np.round(rng.normal(size=(m, d)), 3), np.round(rng.normal(size=m), 3)
        cases.append(Case((alpha, X), label=f"{m} centres in {d}-D, linear kernel"))
    return cases


def _same_function(beta, case):
    alpha, X = case.args
    beta = np.asarray(beta, dtype=float)
    scale = 1.0 + np.abs(X).max() * (np.abs(alpha).sum() + np.abs(beta).sum())
    return beta.shape == alpha.shape and bool(np.allclose(X.T @ beta, X.T @ alpha, rtol=0,
                                                          atol=1e-5 * scale))


def _different(beta, case):
    alpha = case.args[0]
    beta = np.asarray(beta, dtype=float)
    return beta.shape == alpha.shape and float(np.max(np.abs(beta - alpha))) >= 0.1


def _shape_of(case):
    return (len(case.args[0]),)


def _is_same(beta, case):
    """beta is alpha itself (to rounding), not merely close to it."""
    alpha = case.args[0]
    beta = np.asarray(beta, dtype=float)
    return beta.shape == alpha.shape and bool(np.allclose(beta, alpha, rtol=1e-9, atol=1e-12))


def _too_small_a_change(beta, case):
    """The same function from another expansion, but no coefficient moved by 0.1."""
    return (np.asarray(beta).shape == _shape_of(case) and not _is_same(beta, case)
            and _same_function(beta, case) and not _different(beta, case))


def _only_the_change(beta, case):
    """sum_i beta_i x_i = 0: the change v returned without alpha."""
    alpha, X = case.args
    beta = np.asarray(beta, dtype=float)
    if beta.shape != alpha.shape or np.linalg.norm(beta) < 1e-6 or _same_function(beta, case):
        return False
    return bool(np.allclose(X.T @ beta, 0.0, atol=1e-6 * (1 + np.abs(X).max() * np.abs(beta).sum())))


def _input_space_length(beta, case):
    alpha, X = case.args
    return np.ndim(beta) == 1 and len(beta) == X.shape[1] != len(alpha)


def _is_rescaled(beta, case):
    alpha, beta = case.args[0], np.asarray(beta, dtype=float)
    if beta.shape != alpha.shape or not _different(beta, case):
        return False
    c = float(beta @ alpha / (alpha @ alpha))
    return abs(c - 1.0) > 0.05 and bool(np.allclose(beta, c * alpha, atol=1e-6))


def _top_eigenvector(X):
    _, U = np.linalg.eigh(X @ X.T)
    return U[:, -1]


def _is_top_direction(beta, case):
    alpha, X = case.args
    v = np.asarray(beta, dtype=float) - alpha
    if v.shape != alpha.shape or np.linalg.norm(v) < 1e-6:
        return False
    u = _top_eigenvector(X)
    return abs(float(u @ v)) / np.linalg.norm(v) > 1 - 1e-6


def _is_orthogonal_to_alpha(beta, case):
    alpha, X = case.args
    v = np.asarray(beta, dtype=float) - alpha
    if v.shape != alpha.shape or np.linalg.norm(v) < 0.1 or _same_function(beta, case):
        return False
    return abs(float(v @ alpha)) < 1e-6 * (1 + np.linalg.norm(alpha) * np.linalg.norm(v))


def _orthogonal_change(alpha, X):
    rng = np.random.default_rng(len(alpha))
    v = rng.normal(size=len(alpha))
    v -= (v @ alpha) / (alpha @ alpha) * alpha
    return alpha + v / np.linalg.norm(v)


Q7 = Question(
    id="ex5.q7", title="two expansions of one function", function="another_expansion", points=2,
    forbidden=("kernelcourse.rkhs.RKHSFunction", "kernelcourse.rkhs.orthogonal_to_span"),
    kind="witness", section="5.12",
    reference=_another_expansion, cases=_cases_expansion, compare_reference=False,
    fixed_cases=_fixed(_cases_expansion),
    properties=[
        Property("same function", _same_function,
                 "sum_i beta_i K(x_i, .) is not the same function as sum_i alpha_i K(x_i, .): "
                 "with the linear kernel both are x -> (sum_i c_i x_i) . x"),
        Property("different", _different,
                 "beta must differ from alpha by at least 0.1 in some coefficient"),
    ],
    diagnoses=[
        Diagnosis("the same expansion", "you returned alpha itself: look for a change v of the "
                  "coefficients whose bumps add up to the zero function, sum_i v_i K(x_i, .) = 0",
                  lambda alpha, X: np.array(alpha, dtype=float), detect=_is_same),
        Diagnosis("too small a change", "your beta is another expansion of the same function, "
                  "but no coefficient moved by 0.1, the least the question asks; any multiple of "
                  "your change v keeps the function, so scale it up",
                  lambda alpha, X: np.asarray(alpha, dtype=float) + 0.01 * _null_direction(X),
                  detect=_too_small_a_change),
        Diagnosis("only the change", "your beta's bumps add up to the zero function: you "
                  "returned the change v itself; the second expansion of f is alpha + v",
                  lambda alpha, X: _null_direction(X), detect=_only_the_change),
        Diagnosis("input-space length", "beta needs one coefficient per centre (len(alpha)); a "
                  "vector of length d, such as a row of V^T from the SVD, lives in the input space",
                  lambda alpha, X: np.ones(X.shape[1]), detect=_input_space_length),
        Diagnosis("rescaled", "c alpha describes c f, a different function unless c = 1; the "
                  "change must be invisible to the function, not proportional to it",
                  lambda alpha, X: 2.0 * np.asarray(alpha, dtype=float), detect=_is_rescaled),
        Diagnosis("largest eigenvector", "np.linalg.eigh sorts the eigenvalues in increasing order: "
                  "a change v with sum_i v_i K(x_i, .) = 0 has v^T K v = ||sum_i v_i K(x_i, .)||^2 "
                  "= 0, an eigenvalue 0 of K (the first column), not the largest",
                  lambda alpha, X: np.asarray(alpha, dtype=float) + _top_eigenvector(X),
                  detect=_is_top_direction),
        Diagnosis("orthogonal to alpha", "a change orthogonal to alpha still changes the function; "
                  "what must vanish is sum_i v_i x_i, i.e. X^T v = 0",
                  _orthogonal_change, detect=_is_orthogonal_to_alpha),
    ],
    hints=("with the linear kernel, sum_i c_i K(x_i, .) is the function x -> w . x with "
           "w = sum_i c_i x_i: which changes of the coefficients leave w alone?",
           "there are more centres than dimensions, so some non-zero v has sum_i v_i x_i = 0; "
           "the SVD of X, or the eigenvector of K = X X^T for the eigenvalue 0, gives one"),
)


# ===================================================================== ex5.q8
def _top_gram_eigenvalue(X, gamma):
    return float(np.linalg.eigvalsh(_gram(X, X, gamma))[-1])


def _predict_top(X, gamma, N):
    """N/n times the top eigenvalue of the sample's Gram matrix: n mu_1 for the operator's mu_1."""
    return N / len(X) * _top_gram_eigenvalue(X, gamma)


def _cases_top(rng):
    cases = []
    for n, N, gamma, sigma in [(150, 600, 1.0, 1.0), (120, 720, 0.5, 1.5), (100, 500, 2.0, 0.8)]:
        X = np.round(rng.normal(scale=sigma, size=(n, 1)), 4)
        cases.append(Case((X, gamma, N), label=f"{n} points drawn from N(0, {sigma}^2), "
                                               f"gamma={gamma}, N={N}"))
    return cases


Q8 = Question(
    id="ex5.q8", title="the top eigenvalue of a bigger Gram matrix", function="predict_top_eigenvalue",
    points=2, kind="predict", section="5.13", rtol=0.02, atol=0.0,
    forbidden=("kernelcourse.nystroem.rbf_gram_spectrum", "kernelcourse.kernel_pca.KernelPCA"),
    reference=_predict_top, cases=_cases_top, fixed_cases=_fixed(_cases_top),
    diagnoses=[
        Diagnosis("no scaling", "the eigenvalues of a Gram matrix grow with the number of points: "
                  "lambda_i(K) / n estimates the operator's mu_i (5.13), so N points give about "
                  "N mu_1", lambda X, gamma, N: _top_gram_eigenvalue(X, gamma)),
        Diagnosis("operator eigenvalue", "lambda_1(K) / n is the operator's eigenvalue mu_1; the "
                  "question asks for the top eigenvalue of the N-point Gram matrix, about N mu_1",
                  lambda X, gamma, N: _top_gram_eigenvalue(X, gamma) / len(X)),
        Diagnosis("square root", "the eigenvalues grow linearly in the number of points, not like "
                  "its square root: lambda_i(K_N) is about N mu_i",
                  lambda X, gamma, N: np.sqrt(N / len(X)) * _top_gram_eigenvalue(X, gamma)),
        Diagnosis("ascending", "np.linalg.eigvalsh returns the eigenvalues in increasing order: "
                  "the largest is the last one",
                  lambda X, gamma, N: N / len(X) * float(np.linalg.eigvalsh(_gram(X, X, gamma))[0])),
    ],
    hints=("section 5.13: the Gram matrix's eigenvalues divided by the number of points estimate "
           "the operator's eigenvalues, which do not depend on how many points you drew",
           "estimate mu_1 from the n points you have, then ask what N points would give; the "
           "answer is within 2% of the estimate from your sample, which is what is graded"),
)


# ===================================================================== ex5.q9
_BUGGY_EXTENSION = """\
def extend_eigenfunctions(K_new, K, k):
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]      # the k largest eigenpairs of K
    mu = s                                     # the kernel operator's eigenvalues
    phi_train = np.sqrt(n) * U                 # the eigenfunctions at the training points
    return K_new @ phi_train / (n * mu)        # phi(x) = sum_j K(x, x_j) phi(x_j) / (n mu)
"""


def _extend(K_new, K, k):
    """The Nystroem extension sqrt(n) K_new u_i / lambda_i(K) of the top k eigenfunctions."""
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    return np.sqrt(n) * (K_new @ U) / s


def _scaled_extension(factor):
    def mistake(K_new, K, k):
        return _extend(K_new, K, k) * factor(K.shape[0])
    return mistake


def _smallest_pairs(K_new, K, k):
    """The extension with the k SMALLEST eigenpairs (the order of np.linalg.eigh kept)."""
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    return np.sqrt(n) * (K_new @ U[:, :k]) / s[:k]


def _fixed_extend():
    """A seeded draw, and the training points themselves (K_new = K: phi_train comes back)."""
    cases = _cases_extend(np.random.default_rng(20265))
    K = cases[0].args[1]
    return cases + [Case((K.copy(), K, 2), label=f"K_new = K, the {len(K)} training points, k=2")]


def _cases_extend(rng):
    cases = []
    for n, p, k, gamma in [(8, 3, 2, 0.5), (12, 4, 2, 1.0), (15, 5, 3, 0.3)]:
        X = _points(rng, n, 2)
        X_new = _points(rng, p, 2)
        cases.append(Case((_gram(X_new, X, gamma), _gram(X, X, gamma), k),
                          label=f"K_new of shape ({p}, {n}), K ({n}, {n}), k={k}"))
    return cases


def _column_signs(actual, expected):
    """actual with each column's sign turned to match expected (eigenvectors have no sign)."""
    actual = np.array(actual, dtype=float)
    signs = np.sign(np.sum(actual * expected, axis=0))
    signs[signs == 0] = 1.0
    return actual * signs


def _extension_is(factor):
    def detect(actual, case):
        expected = _extend(*case.args) * factor(case.args[1].shape[0])
        actual = np.asarray(actual, dtype=float)
        if actual.shape != expected.shape:
            return False
        return bool(np.allclose(_column_signs(actual, expected), expected, rtol=1e-4,
                                atol=1e-6 * np.abs(expected).max()))
    return detect


def _matches(mistake):
    def detect(actual, case):
        expected = mistake(*case.args)
        actual = np.asarray(actual, dtype=float)
        return actual.shape == expected.shape and bool(np.allclose(
            _column_signs(actual, expected), expected, rtol=1e-4, atol=1e-6 * np.abs(expected).max()))
    return detect


def _constant_multiple(actual, case):
    """actual = c times the extension (up to column signs), for one c other than 1."""
    expected = _extend(*case.args)
    actual = np.asarray(actual, dtype=float)
    if actual.shape != expected.shape:
        return False
    aligned = _column_signs(actual, expected)
    c = float(np.sum(aligned * expected) / np.sum(expected * expected))
    return abs(c - 1) > 1e-3 and bool(np.allclose(aligned, c * expected, rtol=1e-4,
                                                  atol=1e-6 * abs(c) * np.abs(expected).max()))


def _matches_up_to_sign(actual, case):
    return _extension_is(lambda n: 1.0)(actual, case)


Q9 = Question(
    id="ex5.q9", title="fix the Nystroem extension of the eigenfunctions",
    function="extend_eigenfunctions", points=3, kind="fix", section="5.13",
    forbidden=("kernelcourse.nystroem.Nystroem", "kernelcourse.kernel_pca.KernelPCA"),
    reference=_extend, cases=_cases_extend, compare_reference=False,
    fixed_cases=_fixed_extend,
    properties=[Property("the extension", _matches_up_to_sign,
                         "the values differ from the eigenfunctions' extension (each column is "
                         "compared up to its sign, to 4 significant digits)")],
    diagnoses=[
        Diagnosis("operator eigenvalue as lambda(K)", "the bug is still there: the operator's "
                  "eigenvalue mu_i is lambda_i(K) / n (5.13), not lambda_i(K); with mu = s the "
                  "values are n times too small",
                  _given(_BUGGY_EXTENSION, "extend_eigenfunctions"),
                  detect=_extension_is(lambda n: 1.0 / n)),
        Diagnosis("mu = n lambda", "the Gram matrix's eigenvalues grow with n, so the operator's "
                  "are lambda_i(K) divided by n, not multiplied",
                  _scaled_extension(lambda n: 1.0 / n**2), detect=_extension_is(lambda n: 1.0 / n**2)),
        Diagnosis("fixed the wrong line", "phi_train = sqrt(n) U was right (the eigenfunctions "
                  "are normalised in L2(p), so their values at the n points are sqrt(n) u_i); the "
                  "bug is in the line of mu, which is still lambda_i(K)",
                  _scaled_extension(lambda n: n ** -1.5), detect=_extension_is(lambda n: n ** -1.5)),
        Diagnosis("sqrt(n) short", "the values are sqrt(n) times too small: mu_i = lambda_i(K) / n "
                  "(divide by n, not by sqrt(n)), and the values at the training points are "
                  "sqrt(n) u_i, not the unit eigenvector u_i",
                  _scaled_extension(lambda n: 1.0 / np.sqrt(n)),
                  detect=_extension_is(lambda n: 1.0 / np.sqrt(n))),
        Diagnosis("smallest eigenpairs", "the reversal [::-1] was right: np.linalg.eigh sorts "
                  "the eigenvalues in increasing order, and the leading eigenfunctions belong to "
                  "the LARGEST ones", _smallest_pairs, detect=_matches(_smallest_pairs)),
        Diagnosis("a constant factor", "the values are a constant multiple of the extension: "
                  "check the scaling against the training points, where K_new = K must give back "
                  "phi_train = sqrt(n) u_i", _scaled_extension(lambda n: 3.0),
                  detect=_constant_multiple),
    ],
    hint="delete this line; the code below has one bug: find it and fix it",
    hints=("at the training points (K_new = K) the extension must give back the eigenfunctions' "
           "values phi_train; try it, and compare the two",
           "section 5.13 relates the eigenvalues of the Gram matrix to those of the kernel "
           "operator: one grows with the number of points, the other does not"),
)
