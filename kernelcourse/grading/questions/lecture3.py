"""Lecture 3 (ridge regression, the dual, computing in feature space): exercise set ``ex3``
and the checkpoints ``l3.cp1``, ``l3.cp2`` of the lecture notebook.

Every answer works from kernel values only (Gram matrices, kernel rows, their
diagonals), as the lecture's algorithms do. Gram matrices in the cases come
from a polynomial kernel on points away from the origin, so that the diagonal
is not constant and the sample mean is not zero: that way a missing square
root or a missing centering term shows.

============  ======================  ====  =========  ===================================
id            function                pts   kind       syllabus
============  ======================  ====  =========  ===================================
l3.cp1        dual_ridge              2     formula    3.2 alpha = (K + lam I)^-1 y
l3.cp2        center_gram             2     derive     3.7 the centered training Gram matrix
ex3.q1        kernel_ridge_predict    2     derive     3.2-3.3 kernel ridge predictions
ex3.q2        center_test_rows        3     derive     3.7 new points, training mean
ex3.q3        normalized_gram         2     derive     3.6 the normalised Gram matrix
ex3.q4        centre_of_mass_b        2     derive     3.8 the offset b
ex3.q5        novelty_scores          3     derive     3.9 distance to phi_S minus radius
ex3.q6        kernel_perceptron       3     derive     3.10 the dual perceptron's alpha
ex3.q7        perceptron_bound        2     derive     3.11 Novikoff's R^2 / gamma^2
ex3.q8        far_point_distance      2     predict    3.9 ||phi(x) - phi_S|| far away
ex3.q9        choose_lambda           3     parameter  3.1 a lambda meeting a validation MSE
ex3.q10       center_new_gram         2     fix        3.7 new points' Gram, training mean
ex3.q11       dual_cheaper_sizes      2     witness    3.2 sizes where the dual costs less
ex3.q12       feature_space_quiz      2     choice     3.2-3.11 what changes, what does not
============  ======================  ====  =========  ===================================

The texts of the derive questions name the quantity and the lecture section, not the formula
(the lecture notebook derives it). The new kinds are graded by what they ask: ex3.q9 by the
validation target (any lambda meeting it), ex3.q11 by the cost model of 3.2 (any sizes where
the dual's operation count is smaller).
"""
from __future__ import annotations

import numpy as np

from ...feature_space import (center_gram, center_kernel_rows, centre_of_mass_offset,
                              normalize_gram, squared_distances_to_mean)
from ...datasets import separable_with_margin
from ...kernels import RBF, Linear, Polynomial
from ...perceptron import dual_perceptron, feature_radius, margin_of, novikoff_bound
from ...ridge import dual_ridge
from ..core import Case, fixed_draw, Diagnosis, Property, Question, choice_parts


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
    reference=dual_ridge, cases=_cases_dual_ridge, fixed_cases=fixed_draw(_cases_dual_ridge, 301),
    diagnoses=[
        Diagnosis("no lam", "lambda is missing: the dual solves (K + lam I) alpha = y, not K alpha = y",
                  lambda K, y, lam: _solve(K, y)),
        Diagnosis("lam everywhere", "lambda goes on the diagonal only (lam * identity); you added it "
                  "to every entry of K", lambda K, y, lam: _solve(K + lam, y)),
        Diagnosis("lam multiplies K", "the system is (K + lam I) alpha = y; you wrote (lam K + I)",
                  lambda K, y, lam: _solve(lam * K + np.eye(len(y)), y)),
    ],
    kind="formula", section="3.2",
    hints=("alpha solves a linear system of size m x m: which matrix, and where does lam go? "
           "Solve it rather than inverting",
           "lam sits on the diagonal only: build the matrix with np.eye(len(y)) and hand it, "
           "with y, to np.linalg.solve"),
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
    return abs(float(np.sum(Kc))) < 1e-5 * max(1.0, float(np.abs(case.args[0]).sum()))


CP2 = Question(
    id="l3.cp2", title="centering a Gram matrix", function="center_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
    ),
    reference=center_gram, cases=_cases_center, fixed_cases=fixed_draw(_cases_center, 302),
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
    kind="derive", section="3.7",
    hints=("expand <phi(x_i) - phi_S, phi(x_j) - phi_S> with phi_S = (1/m) sum_k phi(x_k): four "
           "terms, each a mean of kernel values",
           "the four terms are K[i, j], the mean of row i, the mean of column j and the mean of "
           "all entries; mind their signs (keepdims=True keeps the means broadcastable)"),
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
    fixed_cases=fixed_draw(_cases_predict, 303),
    diagnoses=[
        Diagnosis("no lam", "lambda is missing from the dual solve: alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train, y)),
        Diagnosis("no solve", "you weighted the kernel values by y; the weights are the dual "
                  "coefficients alpha = (K + lam I)^-1 y",
                  lambda K_train, y, lam, K_test: K_test @ y),
        Diagnosis("lam everywhere", "lambda goes on the diagonal of K only",
                  lambda K_train, y, lam, K_test: K_test @ _solve(K_train + lam, y)),
    ],
    kind="derive", section="3.3",
    hints=("two steps, as in 3.2-3.3: learn the dual coefficients from K_train, then combine the "
           "kernel values of each new point with them",
           "the coefficients come from the regularised m x m system of 3.2; the prediction for "
           "row a is the sum over i of coefficient i times K_test[a, i]: a matrix-vector product"),
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
    fixed_cases=fixed_draw(_cases_center_rows, 304),
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
    kind="derive", section="3.7",
    hints=("expand <phi(x_a) - phi_S, phi(x_i) - phi_S> where phi_S is the mean of the TRAINING "
           "points; which kernel values does each of the four terms need?",
           "one term needs the new point's row of K_test (its mean over the training points), "
           "one the training column means of K_train, one the mean of all of K_train"),
)


# ===================================================================== ex3.q3
def _cases_normalized(rng):
    cases = []
    for n, d in [(3, 2), (4, 3), (5, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        cases.append(Case((K,), label=f"K of shape ({n}, {n})"))
    return cases


def _unit_diagonal(Kn, case):
    return np.allclose(np.diag(np.asarray(Kn, float)), 1.0, rtol=1e-5, atol=0)   # float32 passes


Q3 = Question(
    id="ex3.q3", title="the normalised Gram matrix", function="normalized_gram", points=2,
    forbidden=(
        "kernelcourse.feature_space.normalize_gram",
        "kernelcourse.feature_space.normalize_kernel_rows",
        "kernelcourse.kernels.Normalized",
    ),
    reference=normalize_gram, cases=_cases_normalized,
    fixed_cases=fixed_draw(_cases_normalized, 305),
    properties=[Property("unit diagonal", _unit_diagonal,
                         "normalised features have unit norm: every k_hat(x, x) must be 1")],
    diagnoses=[
        Diagnosis("no square root", "divide by sqrt(k(x,x) k(z,z)), the product of the two norms; "
                  "you divided by k(x,x) k(z,z)",
                  lambda K: K / np.outer(np.diag(K), np.diag(K))),
        Diagnosis("one side", "divide by both norms ||phi(x)|| ||phi(z)||; you divided each row by "
                  "k(x, x) only", lambda K: K / np.diag(K)[:, None]),
        Diagnosis("one norm only", "divide by both norms ||phi(x)|| ||phi(z)||; you divided "
                  "each row by its own norm sqrt(k(x, x)) only",
                  lambda K: K / np.sqrt(np.diag(K))[:, None]),
        Diagnosis("largest entry", "normalising the features is not dividing K by its largest "
                  "entry: divide K[i, j] by sqrt(K[i, i] K[j, j])", lambda K: K / K.max()),
    ],
    kind="derive", section="3.6",
    hints=("normalising replaces phi(x) by phi(x) / ||phi(x)||; what is ||phi(x)|| in kernel "
           "values?",
           "||phi(x_i)|| is the square root of a diagonal entry of K; divide entry (i, j) by the "
           "product of two such norms (np.outer builds all products at once)"),
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
    fixed_cases=fixed_draw(_cases_b, 306),
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
    kind="derive", section="3.8",
    hints=("b is half the difference of the squared norms of the two class means; write "
           "||phi_S+||^2 as a sum of kernel values",
           "||phi_S+||^2 is the mean of the block of K whose rows and columns are both positive "
           "examples; select the block with boolean masks (np.ix_) since the labels are not sorted"),
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


def _nov_test_radius(K_train, K_test, diag_test):
    _, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return np.sqrt(d_test) - np.sqrt(d_test).max()


Q5 = Question(
    id="ex3.q5", title="the novelty score", function="novelty_scores", points=3,
    forbidden=(
        "kernelcourse.feature_space.squared_distances_to_mean",
        "kernelcourse.feature_space.NoveltyBall",
    ),
    reference=_novelty_scores, cases=_cases_novelty, fixed_cases=fixed_draw(_cases_novelty, 307),
    diagnoses=[
        Diagnosis("squared", "you compared squared distances; the score is the distance "
                  "||phi(x) - phi_S|| minus the radius, both square-rooted", _nov_squared),
        Diagnosis("mean radius", "the radius is the LARGEST training distance to the centre, "
                  "so that the ball holds all the training data", _nov_mean_radius),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 = (1/m^2) j^T K j: divide the sum of all "
                  "entries of K_train by m^2", _nov_over_m),
        Diagnosis("radius from the new points", "the radius is the largest distance of a "
                  "TRAINING point to phi_S (the ball that holds the training data); you took it "
                  "over the new points", _nov_test_radius),
    ],
    kind="derive", section="3.9",
    hints=("expand ||phi(x) - phi_S||^2 into three kernel terms; the same expansion serves the "
           "training points (for the radius) and the new points",
           "the three terms are k(x, x), a mean of x's kernel row and ||phi_S||^2 (a mean over "
           "all of K_train); take square roots before subtracting the radius"),
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
    fixed_cases=fixed_draw(_cases_perceptron, 308),
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
    kind="derive", section="3.10",
    hints=("write the primal perceptron's test and update with w = sum_i alpha_i phi(x_i): "
           "which alpha changes on a mistake, and by how much?",
           "the test on example j is the sign of y_j times the j-th entry of K times alpha (a "
           "boundary point counts as a mistake); an update adds the label to one coefficient"),
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
    fixed_cases=fixed_draw(_cases_bound, 309),
    diagnoses=[
        Diagnosis("R without the square root", "R = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i)); "
                  "you took max_i k(x_i, x_i), which is already R^2", _bound_no_sqrt),
        Diagnosis("no square", "the bound is (R / gamma)^2, not R / gamma",
                  lambda K, y, s: float(np.sqrt(np.max(np.diag(K))) / np.min(y * s))),
        Diagnosis("mean margin", "gamma is the smallest margin min_i y_i <w*, x_i>, not the average",
                  lambda K, y, s: float(np.max(np.diag(K)) / np.mean(y * s) ** 2)),
    ],
    kind="derive", section="3.11",
    hints=("the bound needs the radius R of the data in feature space and the margin gamma of "
           "w*; both come from the arguments",
           "R is the largest feature norm, and k(x, x) is a SQUARED norm; gamma is the worst "
           "(smallest) margin y_i s_i, not a typical one"),
)


# ===================================================================== ex3.q8
def _far_point_distance(K_train):
    """The limit of ||phi(x) - phi_S|| for a Gaussian kernel as x moves away from all x_i."""
    return float(np.sqrt(1.0 + np.mean(K_train)))


def _cases_far(rng):
    cases = []
    for n, gamma in [(4, 0.5), (6, 2.0), (8, 0.2)]:
        X = np.round(rng.normal(size=(n, 2)), 3)
        cases.append(Case((RBF(gamma=gamma)(X),),
                          label=f"Gaussian Gram matrix of {n} points (gamma={gamma})"))
    return cases


Q8 = Question(
    id="ex3.q8", title="how far is far away?", function="far_point_distance", points=2,
    kind="predict", section="3.9", rtol=1e-6, atol=1e-9,
    forbidden=(
        "kernelcourse.feature_space.squared_distances_to_mean",
        "kernelcourse.feature_space.mean_norm",
        "kernelcourse.feature_space.NoveltyBall",
    ),
    reference=_far_point_distance, cases=_cases_far, fixed_cases=fixed_draw(_cases_far, 310),
    diagnoses=[
        Diagnosis("no k(x, x)", "far away only the cross terms k(x, x_i) vanish; k(x, x) stays 1 "
                  "for the Gaussian kernel", lambda K: float(np.sqrt(np.mean(K)))),
        Diagnosis("squared", "that is the squared distance; the question asks for the distance "
                  "||phi(x) - phi_S||", lambda K: float(1.0 + np.mean(K))),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 = (1/m^2) j^T K j, the mean of all entries "
                  "of K; you divided the sum by m",
                  lambda K: float(np.sqrt(1.0 + np.sum(K) / len(K)))),
        Diagnosis("distance to one point", "sqrt(2) is the distance from a far point to any single "
                  "phi(x_i) (2 - 2 k(x, x_i) -> 2); the centre phi_S is closer, since "
                  "||phi_S|| < 1", lambda K: float(np.sqrt(2.0))),
        Diagnosis("distance to the origin", "1 is ||phi(x)||, the distance to the origin of "
                  "feature space; the centre is phi_S, not 0", lambda K: 1.0),
    ],
    hints=("write ||phi(x) - phi_S||^2 in kernel values (3.9), then ask which terms change when "
           "x is far from every training point",
           "for the Gaussian kernel k(x, x) = 1 always and k(x, x_i) -> 0 far away; the term "
           "||phi_S||^2 depends on the training data only"),
)


# ===================================================================== ex3.q9
_LAMBDA_GRID = np.logspace(-6, 4, 101)


def _val_mse(K_train, y_train, K_val, y_val, lam):
    alpha = dual_ridge(K_train, y_train, lam)
    return float(np.mean((K_val @ alpha - y_val) ** 2))


def _best_lambda(K_train, y_train, K_val, y_val, target):
    """The grid value with the smallest validation error (any lambda meeting the target is right)."""
    errors = [_val_mse(K_train, y_train, K_val, y_val, lam) for lam in _LAMBDA_GRID]
    return float(_LAMBDA_GRID[int(np.argmin(errors))])


def _cases_lambda(rng):
    cases = []
    for m, gamma in [(16, 20.0), (20, 30.0), (24, 40.0)]:
        x = np.sort(rng.uniform(-1, 1, m))[:, None]
        xv = rng.uniform(-1, 1, 40)[:, None]
        f = lambda t: np.sin(3 * t[:, 0])                        # noqa: E731
        y = np.round(f(x) + 0.3 * rng.normal(size=m), 3)
        yv = np.round(f(xv) + 0.3 * rng.normal(size=40), 3)
        k = RBF(gamma=gamma)
        K, Kv = k(x), k(xv, x)
        errors = np.array([_val_mse(K, y, Kv, yv, lam) for lam in _LAMBDA_GRID])
        best, worst_end = errors.min(), min(errors[0], errors[-1])
        target = float(np.round(best + 0.25 * (worst_end - best), 4))
        cases.append(Case((K, y, Kv, yv, target),
                          label=f"{m} training and 40 validation points, Gaussian kernel "
                                f"(gamma={gamma}), target validation MSE {target}"))
    return cases


def _as_lambda(answer):
    lam = float(np.asarray(answer, dtype=float).reshape(()))
    return lam if np.isfinite(lam) else float("nan")


def _meets_target(answer, case):
    K, y, Kv, yv, target = case.args
    lam = _as_lambda(answer)
    return lam > 0 and _val_mse(K, y, Kv, yv, lam) <= target * (1 + 1e-9)


def _lambda_side(side):
    def detect(answer, case):
        K, y, Kv, yv, target = case.args
        lam = _as_lambda(answer)
        if not lam > 0 or _val_mse(K, y, Kv, yv, lam) <= target:
            return False
        best = _best_lambda(*case.args)
        return lam < best if side == "small" else lam > best
    return detect


def _lambda_below(bound):
    def detect(answer, case):
        lam = _as_lambda(answer)
        return 0 < lam <= bound and not _meets_target(answer, case)
    return detect


def _too_small(K_train, y_train, K_val, y_val, target):
    """A third of the smallest grid lambda that meets the target: too small, yet not tiny."""
    errors = np.array([_val_mse(K_train, y_train, K_val, y_val, lam) for lam in _LAMBDA_GRID])
    return float(_LAMBDA_GRID[errors <= target].min() / 3)


def _by_training_error(K_train, y_train, K_val, y_val, target):
    errors = [np.mean((K_train @ dual_ridge(K_train, y_train, lam) - y_train) ** 2)
              for lam in _LAMBDA_GRID]
    return float(_LAMBDA_GRID[int(np.argmin(errors))])


Q9 = Question(
    id="ex3.q9", title="a lambda that meets a validation target", function="choose_lambda",
    points=3, kind="parameter", section="3.1",
    forbidden=(
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.ridge_predict_dual",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.dual.map_linear_dual",
    ),
    reference=_best_lambda, cases=_cases_lambda,
    fixed_cases=fixed_draw(_cases_lambda, 311),
    compare_reference=False,
    properties=[Property("target", _meets_target,
                         "kernel ridge regression with this lambda must reach a validation "
                         "mean squared error at most the target (lambda > 0)")],
    diagnoses=[
        Diagnosis("training error", "a lambda this small fits the noise of the training points "
                  "(overfitting). If you chose it by the training error: that error only falls as "
                  "lambda shrinks, so it always picks the smallest lambda tried; judge each lambda "
                  "by its error on the validation points", _by_training_error,
                  detect=_lambda_below(1e-5)),
        Diagnosis("too small", "your lambda is too small: the fit follows the noise of the "
                  "training points (overfitting); compare the validation errors of lambdas over "
                  "several orders of magnitude", _too_small, detect=_lambda_side("small")),
        Diagnosis("too large", "your lambda is too large: the fit is damped towards zero "
                  "(underfitting); more regularisation does not always generalise better",
                  lambda K, y, Kv, yv, target: 1e4, detect=_lambda_side("large")),
        Diagnosis("log of lambda", "lambda must be positive; if you searched over "
                  "t = log10(lambda), return 10**t, not t",
                  lambda K, y, Kv, yv, target: float(np.log10(_best_lambda(K, y, Kv, yv, target))),
                  detect=lambda answer, case: _as_lambda(answer) <= 0),
    ],
    hints=("try a range of lambdas spread over many orders of magnitude (np.logspace) and "
           "measure each one's error on the validation points, not the training points",
           "for each lambda: dual coefficients from K_train and y_train (3.2), predictions "
           "K_val @ alpha, then the mean squared error against y_val; return a lambda whose "
           "error is at most the target"),
)


# ===================================================================== ex3.q10
def _center_new_gram(K_new, K_new_train, K_train):
    """Gram matrix of new points, each feature vector moved by the TRAINING mean phi_S."""
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - r[None, :] + K_train.mean()


def _cases_center_new(rng):
    cases = []
    for n, p, d in [(5, 3, 2), (6, 4, 3), (8, 4, 2)]:
        X, k, K = _poly_gram(rng, n, d)
        Xn = _points(rng, p, d, shift=-0.5)       # new points elsewhere: their own mean differs
        cases.append(Case((k(Xn), k(Xn, X), K),
                          label=f"K_new ({p}, {p}), K_new_train ({p}, {n}), K_train ({n}, {n})"))
    return cases


def _buggy_center_new_gram(K_new, K_new_train, K_train):
    """The function given to students (the bug: the new points' own mean)."""
    return (K_new - K_new.mean(axis=1, keepdims=True) - K_new.mean(axis=0, keepdims=True)
            + K_new.mean())


def _new_no_grand(K_new, K_new_train, K_train):
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - r[None, :]


def _new_grand_over_m(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_train.sum() / len(K_train)


def _new_cross_grand(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_new_train.mean()


def _new_one_side(K_new, K_new_train, K_train):
    r = K_new_train.mean(axis=1)
    return K_new - r[:, None] - K_new.mean(axis=0, keepdims=True) + K_new.mean()


def _new_own_grand(K_new, K_new_train, K_train):
    return _new_no_grand(K_new, K_new_train, K_train) + K_new.mean()


Q10 = Question(
    id="ex3.q10", title="fix: centring the new points' Gram matrix", function="center_new_gram",
    points=2, kind="fix", section="3.7",
    forbidden=(
        "kernelcourse.feature_space.center_gram",
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
    ),
    reference=_center_new_gram, cases=_cases_center_new,
    fixed_cases=fixed_draw(_cases_center_new, 312),
    diagnoses=[
        Diagnosis("own mean", "the bug is still there: the new points are centred on their own "
                  "mean; the origin must move to the TRAINING mean phi_S, whatever points are "
                  "centred", _buggy_center_new_gram),
        Diagnosis("missing ||phi_S||^2", "the term ||phi_S||^2 = (1/m^2) j^T K_train j (the "
                  "mean of all entries of K_train) is missing", _new_no_grand),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 is the MEAN of all entries of K_train "
                  "(divide the sum by m^2); you divided by m", _new_grand_over_m),
        Diagnosis("mean of the cross block", "you added the mean of K_new_train, which is "
                  "<mean of the new phi(x), phi_S>; the last term is ||phi_S||^2, the mean of "
                  "K_train", _new_cross_grand),
        Diagnosis("one side fixed", "you moved the rows to the training mean but left the "
                  "columns on the new points' own mean: both middle terms are <phi(x), phi_S>, "
                  "from the rows of K_new_train", _new_one_side),
        Diagnosis("own grand mean", "the middle terms are right, but the last one is still the "
                  "new points' own mean K_new.mean(); it must be ||phi_S||^2, a mean over the "
                  "training points", _new_own_grand),
    ],
    hints=("which mean does the given function subtract? The origin must move to the mean of the "
           "training points, so every term must involve training points",
           "expand <phi(x_a) - phi_S, phi(x_b) - phi_S>: the middle terms are means of the rows "
           "of K_new_train, the last is a mean over K_train"),
)


# ===================================================================== ex3.q11
def _primal_cost(m, n, p):
    """3.2's operation counts: form X^T X (m n^2), solve n x n (n^3), p predictions (n each)."""
    return m * n * n + n ** 3 + p * n


def _dual_cost(m, n, p):
    """Form K (m^2 n), solve m x m (m^3), p predictions (m kernel values of n operations each)."""
    return m * m * n + m ** 3 + p * m * n


def _dual_cheaper_sizes(m_min, p):
    """A witness: m = m_min and the smallest power of two n for which the dual costs less."""
    m, n = int(m_min), 1
    while _dual_cost(m, n, p) >= _primal_cost(m, n, p):
        n *= 2
    return (m, n)


def _cases_sizes(rng):
    cases = [Case((int(rng.integers(5, 50)), 0), label="no predictions")]
    for low, high in [(10, 100), (100, 1000)]:
        m_min = int(rng.integers(low, high))
        p = int(rng.integers(1000, 10000)) * m_min
        cases.append(Case((m_min, p), label=f"at least {m_min} examples, {p} predictions"))
    return cases


def _extreme_sizes():
    """The ends of the stated range: 5 <= m_min <= 1000, 0 <= p <= 10^7."""
    return [Case((5, 0), label="at least 5 examples, no predictions"),
            Case((5, 5000), label="at least 5 examples, 5000 predictions"),
            Case((1000, 10 ** 7), label="at least 1000 examples, 10^7 predictions")]


def _sizes(answer):
    """(m, n) as Python ints, or None when the answer is not two whole numbers."""
    try:
        m, n = answer
        values = []
        for v in (m, n):
            f = float(v)
            if not np.isfinite(f) or f != int(f):
                return None
            values.append(int(f))
        return tuple(values)
    except Exception:
        return None


def _dual_is_cheaper(answer, case):
    sizes = _sizes(answer)
    if sizes is None:
        return False
    m, n = sizes
    m_min, p = case.args
    return m >= m_min and n >= 1 and _dual_cost(m, n, p) < _primal_cost(m, n, p)


def _sizes_detect(test):
    def detect(answer, case):
        sizes = _sizes(answer)
        return (sizes is not None and sizes[1] >= 1 and not _dual_is_cheaper(answer, case)
                and test(*sizes, *case.args))
    return detect


Q11 = Question(
    id="ex3.q11", title="when is the dual cheaper?", function="dual_cheaper_sizes", points=2,
    forbidden=("kernelcourse.dual.kernel_trick_costs",),
    kind="witness", section="3.2",
    reference=_dual_cheaper_sizes, cases=_cases_sizes,
    fixed_cases=fixed_draw(_cases_sizes, 313, extra=_extreme_sizes), compare_reference=False,
    properties=[Property("cheaper", _dual_is_cheaper,
                         "return two whole numbers (m, n), m >= m_min, for which the dual's "
                         "operation count is smaller than the primal's")],
    diagnoses=[
        Diagnosis("more examples", "with more examples than features the dual is the dearer one: "
                  "it solves an m x m system, the primal an n x n one",
                  lambda m_min, p: (10 * m_min, m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m > n)),
        Diagnosis("equal sizes", "with m = n both systems cost the same, and every dual "
                  "prediction costs m kernel values of n operations against n for the primal",
                  lambda m_min, p: (m_min, m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m == n)),
        Diagnosis("predictions ignored", "the dual trains more cheaply at these sizes, but each "
                  "of the p predictions costs m n operations in the dual against n in the "
                  "primal; make n large enough that training still dominates",
                  lambda m_min, p: (m_min, 2 * m_min),
                  detect=_sizes_detect(lambda m, n, m_min, p: m < n and _dual_cost(m, n, 0)
                                       < _primal_cost(m, n, 0))),
    ],
    hints=("compare the two operation counts: which terms grow with the number of features n, "
           "which with the number of examples m, and which with p?",
           "take m = m_min; the primal's n^3 outgrows the dual's p m n once n^2 is well above "
           "p m, so double n until the dual's count is the smaller one"),
)



# ===================================================================== ex3.q12
# The statements of ex3.q12 and their options, as students see them ...
QUIZ = {
    "centering": ("Moving the origin of feature space to the mean phi_S (centering) changes",
                  {"a": "the distances between the points",
                   "b": "the inner products between the points, hence the Gram matrix",
                   "c": "nothing a kernel method computes"}),
    "dimension": ("For the same R and gamma, Novikoff's bound in a feature space of dimension "
                  "10^6, compared with one of dimension 10, is",
                  {"a": "larger: more dimensions allow more mistakes",
                   "b": "the same: it depends on R and gamma only",
                   "c": "undefined when the feature space has infinitely many dimensions"}),
    "system": ("Kernel ridge regression on m examples, with a feature map into M dimensions, "
               "solves a linear system of size",
               {"a": "M x M",
                "b": "m x m",
                "c": "n x n, n the number of input features"}),
    "normalise": ("Normalising the Gaussian kernel, k(x, z) / sqrt(k(x, x) k(z, z)), gives",
                  {"a": "the Gaussian kernel itself",
                   "b": "another kernel, with unit diagonal",
                   "c": "a function that is no kernel"}),
}

# ... the right options, and the misconception behind each wrong one
_QUIZ_RIGHT = {"centering": "b", "dimension": "b", "system": "b", "normalise": "a"}
_QUIZ_WRONG = {
    ("centering", "a"): ("centering moves distances", "a translation keeps every distance: "
                         "(phi(x) - phi_S) - (phi(z) - phi_S) = phi(x) - phi(z)"),
    ("centering", "c"): ("centering changes nothing", "kernel methods compute with inner "
                         "products: expand <phi(x) - phi_S, phi(z) - phi_S> and compare it with "
                         "<phi(x), phi(z)> (3.7)"),
    ("dimension", "a"): ("bound grows with dimension", "write Novikoff's bound down (3.11) "
                         "and look for the dimension in it; 3.11 runs data in 2 to 2000 "
                         "dimensions"),
    ("dimension", "c"): ("infinite dimensions break the bound", "the proof uses inner products "
                         "only, so it holds in any inner-product space; for the Gaussian kernel "
                         "R = 1"),
    ("system", "a"): ("primal in feature space", "M x M is the system of the primal in "
                      "feature space, which kernel ridge regression never forms: count the "
                      "unknowns of the dual (3.2-3.3)"),
    ("system", "c"): ("input dimension", "the number of input features only sets the cost "
                      "of each kernel value, not the size of the system: count the unknowns of "
                      "the dual"),
    ("normalise", "b"): ("normalising the Gaussian", "compute the divisor sqrt(k(x, x) k(z, z)) "
                         "for the Gaussian kernel: what is k(x, x)?"),
    ("normalise", "c"): ("normalising breaks PSD", "normalising is a construction (3.6): it "
                         "rescales each feature vector to unit length and keeps the kernel a "
                         "kernel"),
}


Q12 = Question(
    id="ex3.q12", title="what changes, what does not", function="feature_space_quiz", points=2,
    kind="choice", section="3.7",
    **choice_parts(_QUIZ_RIGHT, _QUIZ_WRONG, label=lambda name: f"{name}: {QUIZ[name][0]} ..."),
    hints=("for each statement, write the quantity in kernel values or inner products and see "
           "what the change (a new origin, more dimensions, a normalisation) does to it",
           "a translation keeps differences; the bound of 3.11 has only R and gamma; the dual "
           "has one unknown per example; the Gaussian's k(x, x) is 1"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9, Q10, Q11, Q12]
