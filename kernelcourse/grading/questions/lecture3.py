"""Lecture 3 (ridge regression, the dual, computing in feature space): exercise set ``ex3``
and the checkpoints ``l3.cp1``, ``l3.cp2`` of the lecture notebook.

Every answer works from kernel values only (Gram matrices, kernel rows, their
diagonals), as the lecture's algorithms do. Gram matrices in the cases come
from a polynomial kernel on points away from the origin, so that the diagonal
is not constant and the sample mean is not zero: that way a missing square
root or a missing centering term shows.

============  ======================  ====  ==============================================
id            function                pts   syllabus
============  ======================  ====  ==============================================
l3.cp1        dual_ridge              2     3.2 alpha = (K + lam I)^-1 y
l3.cp2        center_gram             2     3.7 the centered training Gram matrix
ex3.q1        kernel_ridge_predict    2     3.2-3.3 g(x) = sum_i alpha_i k(x_i, x)
ex3.q2        center_test_rows        3     3.7 new points centred with the training mean
ex3.q3        normalized_gram         2     3.6-3.7 k(x,z) / sqrt(k(x,x) k(z,z))
ex3.q4        centre_of_mass_b        2     3.8 the offset b
ex3.q5        novelty_scores          3     3.9 ||phi(x) - phi_S|| - r from kernel values
ex3.q6        kernel_perceptron       3     3.10 the dual perceptron's alpha
ex3.q7        perceptron_bound        2     3.11 R^2 / gamma^2, R = max_i sqrt(k(x_i, x_i))
============  ======================  ====  ==============================================
"""
from __future__ import annotations

import numpy as np

from ...feature_space import (center_gram, center_kernel_rows, centre_of_mass_offset,
                              normalize_gram, squared_distances_to_mean)
from ...datasets import separable_with_margin
from ...kernels import RBF, Linear, Polynomial
from ...perceptron import dual_perceptron, feature_radius, margin_of, novikoff_bound
from ...ridge import dual_ridge
from ..core import Case, Diagnosis, Property, Question


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, shift=0.8):
    """Rounded Gaussian points, shifted off the origin so their mean is not zero."""
    return np.round(rng.normal(size=(n, d)) + shift, 3)


def _poly_gram(rng, n, d):
    """``(x.z / 2 + 1)^2`` on n points: positive definite enough, with an uneven diagonal."""
    X = _points(rng, n, d)
    k = Polynomial(2, gamma=0.5, coef0=1.0)
    return X, k, k(X)


def _targets(rng, n):
    return np.round(rng.normal(size=n), 3)


def _signs(rng, n):
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1] = 1.0, -1.0                      # both classes always present
    return rng.permutation(y)


def _solve(A, b):
    return np.linalg.solve(A, b)


# ===================================================================== l3.cp1
def _cases_dual_ridge(rng):
    cases = []
    for n, lam in [(3, 0.5), (5, 1.0), (7, 2.5)]:
        X = _points(rng, n, 2)
        K = RBF(gamma=0.5)(X)
        y = _targets(rng, n)
        cases.append(Case((K, y, lam), label=f"K of shape ({n}, {n}) (RBF), lam={lam}"))
    return cases


CP1 = Question(
    id="l3.cp1", title="dual ridge regression", function="dual_ridge", points=2,
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
    ),
    reference=dual_ridge, cases=_cases_dual_ridge,
    diagnoses=[
        Diagnosis("no lam", "lambda is missing: the dual solves (K + lam I) alpha = y, not K alpha = y",
                  lambda K, y, lam: _solve(K, y)),
        Diagnosis("lam everywhere", "lambda goes on the diagonal only (lam * identity); you added it "
                  "to every entry of K", lambda K, y, lam: _solve(K + lam, y)),
        Diagnosis("lam multiplies K", "the system is (K + lam I) alpha = y; you wrote (lam K + I)",
                  lambda K, y, lam: _solve(lam * K + np.eye(len(y)), y)),
    ],
    hint="solve (K + lam * I) alpha = y, e.g. with np.linalg.solve or scipy.linalg.cho_solve",
)


# ===================================================================== l3.cp2
def _cases_center(rng):
    cases = []
    for n, d in [(3, 2), (4, 3), (6, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        cases.append(Case((K,), label=f"K of shape ({n}, {n})"))
    return cases


def _no_grand(K):
    return K - K.mean(axis=1, keepdims=True) - K.mean(axis=0, keepdims=True)


def _rows_only(K):
    return K - K.mean(axis=1, keepdims=True)


def _grand_over_m(K):
    m = K.shape[0]
    return _no_grand(K) + K.sum() / m


def _minus_grand(K):
    return K - K.mean()


def _centred_sum_zero(Kc, case):
    return abs(float(np.sum(Kc))) < 1e-6 * max(1.0, float(np.abs(case.args[0]).sum()))


CP2 = Question(
    id="l3.cp2", title="centering a Gram matrix", function="center_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
    ),
    reference=center_gram, cases=_cases_center,
    properties=[Property("mean zero", _centred_sum_zero,
                         "the centred sample has mean zero, so j^T K_hat j = sum of all entries = 0")],
    diagnoses=[
        Diagnosis("missing 1/m^2 term", "the last term (1/m^2)(j^T K j) j j^T is missing: after "
                  "subtracting both the row and the column means, add back the mean of all entries",
                  _no_grand),
        Diagnosis("rows only", "you subtracted the row means only; centering subtracts the row "
                  "means and the column means and adds back the overall mean", _rows_only),
        Diagnosis("1/m instead of 1/m^2", "the last term is (1/m^2) j^T K j, the mean of all "
                  "entries; you divided the total by m only", _grand_over_m),
        Diagnosis("overall mean only", "subtracting the overall mean of K does not centre the "
                  "features: subtract the row and column means, add back the overall mean",
                  _minus_grand),
    ],
    hint="K_hat = K - (row means) - (column means) + (mean of all entries); "
         "use K.mean(axis=0), K.mean(axis=1) and K.mean(), never j j^T",
)


# ===================================================================== ex3.q1
def _kernel_ridge_predict(K_train, y, lam, K_test):
    """``g(x) = sum_i alpha_i k(x_i, x)`` with ``alpha = (K + lam I)^-1 y``."""
    return K_test @ dual_ridge(K_train, y, lam)


def _cases_predict(rng):
    cases = []
    for n, p, lam in [(4, 2, 0.3), (6, 3, 1.0), (8, 1, 2.0)]:
        X, Xt = _points(rng, n, 2), _points(rng, p, 2)
        k = RBF(gamma=0.7)
        cases.append(Case((k(X), _targets(rng, n), lam, k(Xt, X)),
                          label=f"{n} training points, {p} test points, lam={lam}"))
    return cases


Q1 = Question(
    id="ex3.q1", title="predicting with kernel ridge regression", function="kernel_ridge_predict",
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.ridge_predict_dual",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
        "kernelcourse.dual.dual_predict",
    ),
    points=2, reference=_kernel_ridge_predict, cases=_cases_predict,
    diagnoses=[
        Diagnosis("no lam", "lambda is missing from the dual solve: alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train, y)),
        Diagnosis("no solve", "you weighted the kernel values by y; the weights are the dual "
                  "coefficients alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ y),
        Diagnosis("lam everywhere", "lambda goes on the diagonal of K only",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train + lam, y)),
    ],
    hint="alpha = solve(K_train + lam I, y); the predictions are K_test @ alpha "
         "(K_test[a, i] = k(x_a, x_i))",
)


# ===================================================================== ex3.q2
def _cases_center_rows(rng):
    cases = []
    for n, p, d in [(4, 3, 2), (5, 2, 3), (7, 4, 2)]:
        X, k, K = _poly_gram(rng, n, d)
        Xt = _points(rng, p, d, shift=-0.5)       # new points elsewhere: their own mean differs
        cases.append(Case((k(Xt, X), K), label=f"K_test of shape ({p}, {n}), K_train ({n}, {n})"))
    return cases


def _center_test_rows(K_test, K_train):
    """Rows ``k(x_a, x_i)`` centred on the training mean: :func:`center_kernel_rows`."""
    return center_kernel_rows(K_test, K_train)


def _own_mean(K_test, K_train):
    return (K_test - K_test.mean(axis=1, keepdims=True) - K_test.mean(axis=0, keepdims=True)
            + K_test.mean())


def _rows_no_grand(K_test, K_train):
    return K_test - K_test.mean(axis=1, keepdims=True) - K_train.mean(axis=0)[None, :]


def _rows_train_rows(K_test, K_train):
    return K_test - K_train.mean(axis=1)[None, :] - K_train.mean(axis=0)[None, :] + K_train.mean()


Q2 = Question(
    id="ex3.q2", title="centering new points' kernel rows", function="center_test_rows",
    forbidden=(
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.GramCenterer",
    ),
    points=3, reference=_center_test_rows, cases=_cases_center_rows,
    diagnoses=[
        Diagnosis("own mean", "you centred the test points on their own mean; new points are "
                  "centred with the TRAINING mean phi_S: subtract the training column means of "
                  "K_train and add back the training grand mean", _own_mean),
        Diagnosis("missing 1/m^2 term", "the term (1/m^2) j^T K j (the mean of all entries of "
                  "K_train) is missing", _rows_no_grand),
        Diagnosis("training row means", "each new point x needs its own (1/m) sum_i k(x, x_i), the "
                  "mean of its row of K_test; you used the training matrix's row means",
                  _rows_train_rows),
    ],
    hint="K_hat[a, i] = K_test[a, i] - mean_j K_test[a, j] - mean_k K_train[k, i] + mean(K_train)",
)


# ===================================================================== ex3.q3
def _cases_normalized(rng):
    cases = []
    for n, d in [(3, 2), (4, 3), (5, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        cases.append(Case((K,), label=f"K of shape ({n}, {n})"))
    return cases


def _unit_diagonal(Kn, case):
    return np.allclose(np.diag(np.asarray(Kn, float)), 1.0, rtol=1e-7)


Q3 = Question(
    id="ex3.q3", title="the normalised Gram matrix", function="normalized_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.normalize_gram",
        "kernelcourse.feature_space.normalize_kernel_rows",
        "kernelcourse.kernels.Normalized",
    ),
    reference=normalize_gram, cases=_cases_normalized,
    properties=[Property("unit diagonal", _unit_diagonal,
                         "normalised features have unit norm: every k_hat(x, x) must be 1")],
    diagnoses=[
        Diagnosis("no square root", "divide by sqrt(k(x,x) k(z,z)), the product of the two norms; "
                  "you divided by k(x,x) k(z,z)",
                  lambda K: K / np.outer(np.diag(K), np.diag(K))),
        Diagnosis("one side", "divide by both norms ||phi(x)|| ||phi(z)||; you divided each row by "
                  "k(x, x) only", lambda K: K / np.diag(K)[:, None]),
        Diagnosis("largest entry", "normalising the features is not dividing K by its largest "
                  "entry: divide K[i, j] by sqrt(K[i, i] K[j, j])", lambda K: K / K.max()),
    ],
    hint="d = sqrt(diag(K)); return K / outer(d, d)",
)


# ===================================================================== ex3.q4
def _cases_b(rng):
    cases = []
    for n, d in [(5, 2), (6, 3), (8, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        y = _signs(rng, n)
        if y[0] < 0 or np.all(y[: int((y > 0).sum())] > 0):
            y = y[::-1].copy()                      # keep the classes interleaved
        cases.append(Case((K, y), label=f"K of shape ({n}, {n}), y = {y.astype(int).tolist()}"))
    return cases


def _block_means(K, y):
    pos, neg = y > 0, y < 0
    return K[np.ix_(pos, pos)].mean(), K[np.ix_(neg, neg)].mean(), pos.sum(), neg.sum()


def _b_no_half(K, y):
    p, n, _, _ = _block_means(K, y)
    return float(p - n)


def _b_over_m(K, y):
    p, n, mp, mn = _block_means(K, y)
    return float(p * mp / 2 - n * mn / 2)


def _b_sorted(K, y):
    mp = int((y > 0).sum())
    return float(K[:mp, :mp].mean() / 2 - K[mp:, mp:].mean() / 2)


Q4 = Question(
    id="ex3.q4", title="the centre-of-mass classifier's offset b", function="centre_of_mass_b",
    forbidden=(
        "kernelcourse.feature_space.centre_of_mass_offset",
        "kernelcourse.feature_space.centre_of_mass_scores",
        "kernelcourse.feature_space.CentreOfMassClassifier",
    ),
    points=2, reference=centre_of_mass_offset, cases=_cases_b,
    diagnoses=[
        Diagnosis("no 1/2", "b has a factor 1/2: b = (||phi_S+||^2 - ||phi_S-||^2) / 2",
                  _b_no_half),
        Diagnosis("1/m instead of 1/m^2", "the sums over pairs are divided by m_+^2 and m_-^2 "
                  "(each is the squared norm of a mean)", _b_over_m),
        Diagnosis("sign", "b is (1/2m_+^2) sum_{S+} k - (1/2m_-^2) sum_{S-} k: the positive "
                  "class comes first", lambda K, y: -centre_of_mass_offset(K, y)),
        Diagnosis("sorted labels", "the examples are not sorted by class: select the positive and "
                  "negative examples with y > 0 and y < 0", _b_sorted),
    ],
    hint="with P = (y > 0) and N = (y < 0): b = K[P][:, P].mean() / 2 - K[N][:, N].mean() / 2",
)


# ===================================================================== ex3.q5
def _novelty_scores(K_train, K_test, diag_test):
    """``||phi(x) - phi_S|| - r`` with ``r = max_i ||phi(x_i) - phi_S||``."""
    d_train = np.sqrt(squared_distances_to_mean(K_train, np.diag(K_train), K_train))
    d_test = np.sqrt(squared_distances_to_mean(K_test, diag_test, K_train))
    return d_test - d_train.max()


def _cases_novelty(rng):
    cases = []
    for n, p, d in [(5, 3, 2), (6, 4, 2), (8, 3, 3)]:
        X, k, K = _poly_gram(rng, n, d)
        Xt = np.round(rng.normal(scale=1.5, size=(p, d)), 3)
        cases.append(Case((K, k(Xt, X), k.diag(Xt)),
                          label=f"K_train ({n}, {n}), K_test ({p}, {n}), diag_test ({p},)"))
    return cases


def _sq_dists(K_train, K_test, diag_test, grand_divisor):
    m = K_train.shape[0]
    g = K_train.sum() / grand_divisor(m)
    d_train = np.diag(K_train) - 2 * K_train.mean(axis=1) + g
    d_test = diag_test - 2 * K_test.mean(axis=1) + g
    return d_train, d_test


def _nov_squared(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return d_test - d_train.max()


def _nov_mean_radius(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return np.sqrt(d_test) - np.sqrt(d_train).mean()


def _nov_over_m(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m)
    return np.sqrt(d_test) - np.sqrt(d_train).max()


Q5 = Question(
    id="ex3.q5", title="the novelty score", function="novelty_scores", points=3,
    forbidden=(
        "kernelcourse.feature_space.squared_distances_to_mean",
        "kernelcourse.feature_space.NoveltyBall",
    ),
    reference=_novelty_scores, cases=_cases_novelty,
    diagnoses=[
        Diagnosis("squared", "you compared squared distances; the score is the distance "
                  "||phi(x) - phi_S|| minus the radius, both square-rooted", _nov_squared),
        Diagnosis("mean radius", "the radius is the LARGEST training distance to the centre, "
                  "so that the ball holds all the training data", _nov_mean_radius),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 = (1/m^2) j^T K j: divide the sum of all "
                  "entries of K_train by m^2", _nov_over_m),
    ],
    hint="||phi(x) - phi_S||^2 = k(x,x) - (2/m) sum_i k(x, x_i) + (1/m^2) sum_ij K_ij; "
         "the radius is the largest such distance over the training points",
)


# ===================================================================== ex3.q6
def _kernel_perceptron(K, y, max_epochs):
    """``alpha`` of the dual perceptron, visiting examples 0..m-1 in every epoch."""
    return dual_perceptron(K, y, max_epochs=max_epochs).alpha


def _separable(rng, n, d, margin, radius):
    """Rounded points with a unit separator w* and margin about ``margin`` (datasets 3.11)."""
    X, y, w_star = separable_with_margin(n, d, margin=margin, radius=radius, random_state=rng)
    X = np.round(X, 3)
    return X, y, w_star


def _cases_perceptron(rng):
    cases = []
    for n, d in [(6, 2), (8, 3)]:
        X, y, _ = _separable(rng, n, d, margin=0.15, radius=1.5)
        cases.append(Case((Linear()(X), y, 100), label=f"linear kernel on {n} separable points"))
    for n in (6, 9):
        X = np.round(rng.normal(size=(n, 2)), 3)
        y = _signs(rng, n)
        cases.append(Case((RBF(gamma=2.0)(X), y, 100), label=f"RBF kernel on {n} points, random labels"))
    return cases


def _perceptron_with(update, strict=False):
    def run(K, y, max_epochs):
        alpha = np.zeros(len(y))
        for _ in range(max_epochs):
            mistakes = 0
            for j in range(len(y)):
                f = K[j] @ alpha
                wrong = y[j] * f < 0 if strict else y[j] * f <= 0
                if wrong:
                    alpha[j] += update(y[j])
                    mistakes += 1
            if mistakes == 0:
                break
        return alpha
    return run


def _perceptron_batch(K, y, max_epochs):
    alpha = np.zeros(len(y))
    for _ in range(max_epochs):
        wrong = y * (K @ alpha) <= 0
        if not wrong.any():
            break
        alpha = alpha + y * wrong
    return alpha


Q6 = Question(
    id="ex3.q6", title="the kernel perceptron", function="kernel_perceptron", points=3,
    forbidden=(
        "kernelcourse.perceptron.dual_perceptron",
        "kernelcourse.perceptron.KernelPerceptron",
    ),
    reference=_kernel_perceptron, cases=_cases_perceptron,
    diagnoses=[
        Diagnosis("strict test", "a point on the boundary (y_j f(x_j) = 0) counts as a mistake: "
                  "update when y_j sum_i alpha_i k(x_i, x_j) <= 0, or nothing moves from alpha = 0",
                  _perceptron_with(lambda yj: yj, strict=True),
                  detect=lambda a, case: np.allclose(np.asarray(a, float), 0.0)),
        Diagnosis("plus one", "the update is alpha_j <- alpha_j + y_j (it adds y_j x_j to w), "
                  "not alpha_j + 1", _perceptron_with(lambda yj: 1.0)),
        Diagnosis("batch", "the perceptron updates after each mistake, one example at a time, "
                  "and the next test uses the new alpha; you updated all mistakes of an epoch at once",
                  _perceptron_batch),
    ],
    hint="alpha = zeros(m); repeat epochs over j = 0..m-1: if y[j] * (K[j] @ alpha) <= 0 then "
         "alpha[j] += y[j]; stop after an epoch without mistakes (or max_epochs)",
)


# ===================================================================== ex3.q7
def _perceptron_bound(K, y, s):
    """``R^2 / gamma^2`` with ``R = max_i sqrt(K_ii)`` and ``gamma = min_i y_i s_i``."""
    return novikoff_bound(feature_radius(K), margin_of(s, y))


def _cases_bound(rng):
    cases = []
    for n, d, radius in [(5, 2, 2.0), (7, 3, 0.5), (6, 2, 3.0)]:
        X, y, w_star = _separable(rng, n, d, margin=0.2 * radius, radius=radius)
        cases.append(Case((Linear()(X), y, X @ w_star),
                          label=f"linear kernel on {n} points, s_i = <w*, x_i> with ||w*|| = 1"))
    return cases


def _bound_no_sqrt(K, y, s):
    return float(np.max(np.diag(K)) ** 2 / np.min(y * s) ** 2)


Q7 = Question(
    id="ex3.q7", title="Novikoff's bound from the Gram matrix", function="perceptron_bound",
    forbidden=(
        "kernelcourse.perceptron.novikoff_bound",
        "kernelcourse.perceptron.feature_radius",
        "kernelcourse.perceptron.margin_of",
    ),
    points=2, reference=_perceptron_bound, cases=_cases_bound,
    diagnoses=[
        Diagnosis("R without the square root", "R = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i)); "
                  "you took max_i k(x_i, x_i), which is already R^2", _bound_no_sqrt),
        Diagnosis("no square", "the bound is (R / gamma)^2, not R / gamma",
                  lambda K, y, s: float(np.sqrt(np.max(np.diag(K))) / np.min(y * s))),
        Diagnosis("mean margin", "gamma is the smallest margin min_i y_i <w*, x_i>, not the average",
                  lambda K, y, s: float(np.max(np.diag(K)) / np.mean(y * s) ** 2)),
    ],
    hint="R = sqrt(max(diag(K))), gamma = min(y * s); return R**2 / gamma**2",
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7]
