"""Lecture 9, sections 9.1 and 9.2: what the linear kernel sees (ex9.q3), the same mean with
another law (ex9.q5), the unbiased estimate from a pooled Gram matrix (ex9.q7), and the true or
false statements of 9.1-9.4 (ex9.q4)."""
from __future__ import annotations

import math

import numpy as np

from ....kernels import RBF
from ....mean_embeddings import mmd2_biased, mmd2_from_gram
from ...model import Case, Diagnosis, Property, Question, choice_parts
from ._common import ALL_MMD, MMD, pooled


# ===================================================================== ex9.q3
def _gauss(rng, d, same_mean=False):
    mp = np.round(rng.normal(size=d), 2)
    mq = mp.copy() if same_mean else np.round(mp + rng.choice([-1, 1], size=d) * rng.uniform(0.8, 1.5, size=d), 2)
    A = np.round(rng.normal(size=(d, d)), 2)
    B = np.round(rng.normal(size=(d, d)), 2)
    return mp, np.round(A @ A.T + np.eye(d), 3), mq, np.round(2 * B @ B.T + np.eye(d), 3)


def _reference_linear(mean_p, cov_p, mean_q, cov_q):
    return float(np.sum((np.asarray(mean_p, float) - np.asarray(mean_q, float)) ** 2))


def _linear_with_covariances(mean_p, cov_p, mean_q, cov_q):
    return _reference_linear(mean_p, cov_p, mean_q, cov_q) + float(
        np.sum((np.asarray(cov_p, float) - np.asarray(cov_q, float)) ** 2))


def _linear_with_traces(mean_p, cov_p, mean_q, cov_q):
    return _reference_linear(mean_p, cov_p, mean_q, cov_q) + float(np.trace(cov_p) + np.trace(cov_q))


def _linear_not_squared(mean_p, cov_p, mean_q, cov_q):
    return math.sqrt(_reference_linear(mean_p, cov_p, mean_q, cov_q))


Q3 = Question(
    id="ex9.q3", title="MMD^2 under the linear kernel", function="linear_mmd2", points=2, kind="predict",
    section="9.1", reference=_reference_linear,
    cases=lambda rng: [Case(_gauss(rng, int(d)), label=f"two Gaussians in {int(d)} dimensions")
                       for d in rng.integers(2, 5, size=3)],
    fixed_cases=lambda: [Case(_gauss(np.random.default_rng(94), 2, same_mean=True),
                              label="the same mean, different covariances"),
                         Case(_gauss(np.random.default_rng(95), 3), label="three dimensions")],
    rtol=1e-6, atol=1e-9, forbidden=ALL_MMD + (MMD + "gaussian_mmd2",),
    diagnoses=[
        Diagnosis("covariances", "the linear kernel's feature map is x itself: its mean embedding is "
                  "the mean, and the covariances never enter", _linear_with_covariances),
        Diagnosis("traces", "E x.x' over independent draws is mu.mu: the variances do not appear "
                  "once the terms are combined", _linear_with_traces),
        Diagnosis("not squared", "MMD^2 is the squared distance of the embeddings, ||mu_p - mu_q||^2",
                  _linear_not_squared),
    ],
    hints=("with k(x, z) = x.z, write E k(X, X') for independent X, X' in terms of the mean",
           "the three expectations of MMD^2 are mu_p.mu_p, mu_q.mu_q and mu_p.mu_q"),
)


# ===================================================================== ex9.q4
STATEMENTS = {
    "linear variance": ("With the linear kernel, MMD tells N(0, 1) from N(0, 4) apart.", False),
    "gaussian": ("With the Gaussian kernel, MMD(P, Q) = 0 only when P = Q.", True),
    "poly two": ("With the kernel (x z + 1)^2, the MMD between N(0, 1) and the uniform law on "
                 "[-sqrt 3, sqrt 3] is 0.", True),
    "unbiased sign": ("The unbiased estimate of MMD^2 is never negative.", False),
    "p zero": ("With B permutations, the p-value (1 + #{T_b >= T}) / (1 + B) can be 0.", False),
    "median pooled": ("The median heuristic on X alone can give the test a bandwidth that depends "
                      "on which sample is called X.", True),
}

Q4 = Question(
    id="ex9.q4", title="true or false: MMD, its estimates and its test", function="mmd_true_or_false",
    points=2, kind="choice", section="9.1",
    fixed_cases=lambda: [Case((key,), label=f"{key} (fixed)") for key in STATEMENTS],
    **choice_parts({key: truth for key, (_, truth) in STATEMENTS.items()}, {
        "linear variance": ("linear sees variance", "the linear kernel's embedding is the mean alone: "
                            "two laws with one mean have MMD 0"),
        "gaussian": ("gaussian not characteristic", "the Gaussian kernel is characteristic: its "
                     "embedding determines the law, so MMD = 0 forces P = Q"),
        "poly two": ("poly sees more", "(x z + 1)^2 has features 1, sqrt 2 x, x^2: its embedding holds "
                     "the first two moments, which these laws share (mean 0, variance 1)"),
        "unbiased sign": ("unbiased is positive", "leaving the diagonals out removes the positive "
                          "bias, so under P = Q its mean is 0; it falls below 0 more often than "
                          "not, since its null law has mean 0 and a long right tail"),
        "p zero": ("p can be 0", "the +1 counts the observed labelling: the p-value is at least "
                   "1 / (1 + B)"),
        "median pooled": ("median on one sample is fine", "the median of X's distances ignores Y's "
                          "spread and the distances between the samples; swap the names and the "
                          "bandwidth changes"),
    }, label=str, argument="key"),
    hints=("for each kernel, ask which features it has and hence what its mean embedding holds",
           "three of the six statements are true"),
)


# ===================================================================== ex9.q5
_GAMMA5 = 0.5


def _sample5(rng, n, d):
    return np.round(rng.normal(size=(n, d)) + rng.uniform(1.0, 3.0, size=d), 3)


def _witness_ok(Y, case):
    X = case.args[0]
    Y = np.asarray(Y, dtype=float)
    if Y.shape != X.shape or not np.all(np.isfinite(Y)):
        return False
    return bool(np.allclose(Y.mean(0), X.mean(0), atol=1e-8)
                and mmd2_biased(X, Y, RBF(_GAMMA5)) > 0.05)


def _same_copy(X):
    return np.asarray(X, float)[::-1].copy()


def _same_shift(X):
    return np.asarray(X, float) + 1.0


def _same_scale_origin(X):
    return 3.0 * np.asarray(X, float)


def _is_rows_of_x(Y, case):
    X = case.args[0]
    Y = np.asarray(Y, float)
    return Y.shape == X.shape and np.allclose(np.sort(Y, axis=0), np.sort(X, axis=0))


def _is_shift(Y, case):
    X = case.args[0]
    Y = np.asarray(Y, float)
    if Y.shape != X.shape:
        return False
    D = Y - X
    return bool(np.allclose(D, D[0]) and not np.allclose(D[0], 0))


def _is_scaled(Y, case):
    X = case.args[0]
    Y = np.asarray(Y, float)
    if Y.shape != X.shape:
        return False
    c = float(np.sum(Y * X) / np.sum(X * X))
    return bool(abs(c - 1) > 1e-6 and np.allclose(Y, c * X))


Q5 = Question(
    id="ex9.q5", title="a sample with the same mean and another law", function="same_mean_sample",
    points=3, kind="witness", section="9.1", reference=lambda X: np.mean(X, axis=0) + 3.0 * (X - np.mean(X, axis=0)),
    cases=lambda rng: [Case((_sample5(rng, int(n), int(d)),), label=f"{int(n)} points in {int(d)} dimensions")
                       for n, d in ((rng.integers(20, 40), rng.integers(1, 4)), (rng.integers(20, 40), 2))],
    fixed_cases=lambda: [Case((_sample5(np.random.default_rng(96), 30, 2),), label="30 points in the plane"),
                         Case((_sample5(np.random.default_rng(97), 25, 1),), label="25 numbers"),
                         Case((_sample5(np.random.default_rng(0), 20, 1),),
                              label="20 numbers: shrinking them by half is not different enough")],
    compare_reference=False, forbidden=ALL_MMD,
    properties=[Property("same mean, other law", _witness_ok,
                         "Y must have X's shape and mean (to 1e-8) while its biased MMD^2 from X under "
                         "RBF(gamma=0.5) is above 0.05: the linear kernel sees no difference, the "
                         "Gaussian kernel a clear one")],
    diagnoses=[
        Diagnosis("the same points", "a reordering of X is the same sample: its MMD^2 under every "
                  "kernel is 0; change the spread or the shape, not the order", _same_copy,
                  detect=_is_rows_of_x),
        Diagnosis("shifted", "a shift moves the mean, which the linear kernel sees; keep the mean and "
                  "change what only a characteristic kernel sees", _same_shift, detect=_is_shift),
        Diagnosis("scaled about the origin", "stretching about 0 moves the mean too (unless it is 0): "
                  "stretch about the sample mean instead", _same_scale_origin, detect=_is_scaled),
    ],
    hints=("the linear kernel's embedding is the mean: keep it, and change the spread",
           "move every point away from the sample mean by the same factor"),
)


# ===================================================================== ex9.q7
def _sizes(rng):
    """Three pairs of different sample sizes (with m = n, a trace taken from the wrong block
    cancels out)."""
    pairs = []
    while len(pairs) < 3:
        m, n = (int(v) for v in rng.integers(3, 10, size=2))
        if m != n:
            pairs.append((m, n))
    return pairs


def _reference_pooled(K, m):
    return mmd2_from_gram(K, m, "unbiased")


def _split(K, m):
    K = np.asarray(K, float)
    return K[:m, :m], K[m:, m:], K[:m, m:], m, K.shape[0] - m


def _pooled_diagonal_kept(K, m):
    A, B, C, m, n = _split(K, m)
    return float(A.sum() / (m * (m - 1)) + B.sum() / (n * (n - 1)) - 2 * C.mean())


def _pooled_squares(K, m):
    A, B, C, m, n = _split(K, m)
    return float((A.sum() - np.trace(A)) / m**2 + (B.sum() - np.trace(B)) / n**2 - 2 * C.mean())


def _pooled_whole_diagonal(K, m):
    A, B, C, m, n = _split(K, m)
    tr = np.trace(np.asarray(K, float))
    return float((A.sum() - tr) / (m * (m - 1)) + B.sum() / (n * (n - 1)) - 2 * C.mean())


Q7 = Question(
    id="ex9.q7", title="fix the unbiased MMD^2 of a pooled Gram matrix", function="unbiased_mmd2_pooled",
    points=3, kind="fix", section="9.2", reference=_reference_pooled,
    cases=lambda rng: [Case(pooled(rng, m, n), label=f"m = {m}, n = {n}") for m, n in _sizes(rng)],
    fixed_cases=lambda: [Case(pooled(np.random.default_rng(98), 2, 2), label="m = n = 2"),
                         Case(pooled(np.random.default_rng(99), 7, 4), label="m = 7, n = 4")],
    rtol=1e-9, atol=1e-12, forbidden=ALL_MMD,
    diagnoses=[
        Diagnosis("diagonal kept", "this is the given code: the i = j terms k(x_i, x_i) stay in the "
                  "sums over K_XX and K_YY; leave both diagonals out", _pooled_diagonal_kept),
        Diagnosis("m^2 not m(m-1)", "once the diagonal is out, the sum runs over m (m - 1) pairs, not "
                  "m^2", _pooled_squares),
        Diagnosis("whole diagonal from K_XX", "subtract each block's own trace: K_XX loses its m "
                  "diagonal terms, K_YY its n", _pooled_whole_diagonal),
    ],
    hints=("which terms of the sum over K_XX pair a point with itself?",
           "take each block's trace out of its sum before dividing"),
)


