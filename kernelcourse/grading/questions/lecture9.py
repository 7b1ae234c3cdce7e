"""Lecture 9 (kernel mean embeddings, MMD, HSIC): exercise set ``ex9`` and the checkpoints
``l9.cp1``, ``l9.cp2`` of the lecture notebook.

The classic mistakes have their diagnoses: the diagonal kept in the "unbiased" estimate, m^2
where m (m - 1) belongs, the p-value without its +1, the median heuristic on one sample, HSIC
centred on one side only (centring one Gram matrix on both sides is enough, since H is
idempotent; centring it on one side is not), and a linear kernel that sees only the means.

Every question has fixed cases (the same in every run) and drawn ones built so that each named
mistake fails every drawn case: a mistake scores the same points in every seed.

============  =========================  ====  ==========  ==========================================
id            function                   pts   kind        syllabus
============  =========================  ====  ==========  ==========================================
l9.cp1        mmd2_unbiased              2     derive      9.2 the U-statistic from three Gram blocks
l9.cp2        hsic_b                     2     derive      9.5 tr(K H L H) / n^2
ex9.q1        permutation_p_value        2     fix         9.3 (1 + #{T_b >= T}) / (1 + B)
ex9.q2        pooled_gamma               2     derive      9.4 the median heuristic, pooled
ex9.q3        linear_mmd2                2     predict     9.1 what the linear kernel sees
ex9.q4        mmd_true_or_false          2     choice      9.1-9.4 six statements
ex9.q5        same_mean_sample           3     witness     9.1 same mean, different law
ex9.q6        fewest_permutations        2     parameter   9.3 the smallest B that can reject
ex9.q7        unbiased_mmd2_pooled       3     fix         9.2 the diagonal of the pooled Gram matrix
ex9.q8        expected_rejections        2     predict     9.3 the exact level of a permutation test
============  =========================  ====  ==========  ==========================================
"""
from __future__ import annotations

import math

import numpy as np

from ...kernels import RBF
from ...mean_embeddings import (hsic_from_gram, mmd2_biased, mmd2_from_gram, permutation_p_value,
                                pooled_median_gamma)
from ..core import Case, Diagnosis, Property, Question, choice_parts

_MMD = "kernelcourse.mean_embeddings."
_ALL_MMD = tuple(_MMD + name for name in (
    "mmd2_biased", "mmd2_unbiased", "mmd2_linear", "mmd2_from_gram", "permutation_test",
    "permutation_test_gram", "MMDTest", "mmd2_rff", "rff_permutation_test"))


def _blocks(rng, m, n, d=2):
    X = np.round(rng.normal(size=(m, d)), 3)
    Y = np.round(rng.normal(size=(n, d)) + 0.5, 3)
    k = RBF(0.5)
    return k(X), k(Y), k(X, Y)


# ===================================================================== l9.cp1
def _reference_u(K_XX, K_YY, K_XY):
    K_XX, K_YY, K_XY = (np.asarray(a, float) for a in (K_XX, K_YY, K_XY))
    m = K_XX.shape[0]
    K = np.block([[K_XX, K_XY], [K_XY.T, K_YY]])
    return mmd2_from_gram(K, m, "unbiased")


def _u_parts(K_XX, K_YY, K_XY):
    K_XX, K_YY, K_XY = (np.asarray(a, float) for a in (K_XX, K_YY, K_XY))
    return K_XX, K_YY, K_XY, K_XX.shape[0], K_YY.shape[0]


def _u_diagonal_kept(K_XX, K_YY, K_XY):
    A, B, C, m, n = _u_parts(K_XX, K_YY, K_XY)
    return float(A.sum() / (m * (m - 1)) + B.sum() / (n * (n - 1)) - 2 * C.mean())


def _u_squares(K_XX, K_YY, K_XY):
    A, B, C, m, n = _u_parts(K_XX, K_YY, K_XY)
    return float((A.sum() - np.trace(A)) / m**2 + (B.sum() - np.trace(B)) / n**2 - 2 * C.mean())


def _u_biased(K_XX, K_YY, K_XY):
    A, B, C, m, n = _u_parts(K_XX, K_YY, K_XY)
    return float(A.mean() + B.mean() - 2 * C.mean())


def _u_cross_once(K_XX, K_YY, K_XY):
    A, B, C, m, n = _u_parts(K_XX, K_YY, K_XY)
    return float((A.sum() - np.trace(A)) / (m * (m - 1)) + (B.sum() - np.trace(B)) / (n * (n - 1)) - C.mean())


def _fixed_u():
    rng = np.random.default_rng(90)
    return [Case(_blocks(rng, 2, 3), label="the smallest samples, m = 2 and n = 3"),
            Case(_blocks(rng, 6, 6), label="m = n = 6")]


def _cases_u(rng):
    return [Case(_blocks(rng, int(m), int(n)), label=f"m = {int(m)}, n = {int(n)}")
            for m, n in (rng.integers(3, 9, size=2), rng.integers(3, 9, size=2), (4, 7))]


_U_DIAGNOSES = [
    Diagnosis("diagonal kept", "the unbiased estimate leaves out the i = j terms k(x_i, x_i): sum "
              "K_XX without its diagonal (and the same for K_YY) before dividing by m (m - 1)",
              _u_diagonal_kept),
    Diagnosis("m^2 not m(m-1)", "without the diagonal there are m (m - 1) pairs i != j, not m^2: "
              "divide by m (m - 1) and n (n - 1)", _u_squares),
    Diagnosis("biased", "this is the biased (V) estimate, every pair with i = j included; the "
              "unbiased one leaves the diagonals out", _u_biased),
    Diagnosis("cross term once", "the cross term counts k(x, y) and k(y, x): it is 2/(m n) times "
              "the sum of K_XY", _u_cross_once),
]

CP1 = Question(
    id="l9.cp1", title="the unbiased estimate of MMD^2", function="mmd2_unbiased", points=2,
    kind="derive", section="9.2", reference=_reference_u, cases=_cases_u, fixed_cases=_fixed_u,
    rtol=1e-9, atol=1e-12, forbidden=_ALL_MMD, diagnoses=_U_DIAGNOSES,
    hints=("E k(X, X') needs two independent draws: a point paired with itself is no such pair",
           "three averages: over the pairs i != j within X, over those within Y, and over all "
           "(x, y) pairs; count how many pairs each average runs over"),
)


# ===================================================================== l9.cp2
def _grams(rng, n):
    x = np.round(rng.uniform(-1, 1, size=(n, 1)), 3)
    y = np.round(x**2 + 0.3 * rng.normal(size=(n, 1)), 3)
    return RBF(2.0)(x), RBF(1.0)(y)


def _reference_hsic(K, L):
    return hsic_from_gram(K, L)


def _H(n):
    return np.eye(n) - np.ones((n, n)) / n


def _hsic_one_side(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ _H(n) @ L) / n**2)


def _hsic_no_centring(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    return float(np.trace(K @ L) / K.shape[0] ** 2)


def _hsic_over_n(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ _H(n) @ L @ _H(n)) / n)


def _hsic_n_minus_one(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ _H(n) @ L @ _H(n)) / (n - 1) ** 2)


CP2 = Question(
    id="l9.cp2", title="HSIC from two Gram matrices", function="hsic_b", points=2, kind="derive",
    section="9.5", reference=_reference_hsic,
    cases=lambda rng: [Case(_grams(rng, int(n)), label=f"n = {int(n)}") for n in rng.integers(5, 12, size=3)],
    fixed_cases=lambda: [Case(_grams(np.random.default_rng(91), 4), label="n = 4"),
                         Case(_grams(np.random.default_rng(92), 10), label="n = 10")],
    rtol=1e-9, atol=1e-13,
    forbidden=(_MMD + "hsic_from_gram", _MMD + "hsic_biased", _MMD + "hsic_test",
               "kernelcourse.feature_space.center_gram", "kernelcourse.feature_space.GramCenterer",
               "kernelcourse.feature_space.center_kernel_rows"),
    diagnoses=[
        Diagnosis("one side only", "H K L centres K's rows only: tr(K H L H) needs H on both sides of "
                  "one matrix (H K H; the other may stay as it is, since H is idempotent)", _hsic_one_side),
        Diagnosis("no centring", "without H this is the mean of k l, not a covariance: HSIC centres "
                  "the features, tr(K H L H)", _hsic_no_centring),
        Diagnosis("over n", "HSIC_b divides the trace by n^2, once for each average over the sample",
                  _hsic_over_n),
        Diagnosis("(n-1)^2", "the biased estimate divides by n^2, not (n - 1)^2", _hsic_n_minus_one),
    ],
    hints=("HSIC is the squared norm of a cross-covariance: both feature maps centred on their means",
           "H = I - (1/n) 1 1^T; form H K H once, then the trace of its product with L"),
)


# ===================================================================== ex9.q1
def _cases_p(rng):
    cases = []
    for _ in range(4):
        B = int(rng.integers(8, 30))
        null = np.round(rng.choice(np.arange(0.1, 2.0, 0.1), size=B), 1)
        values = np.unique(null)
        T = float(values[int(rng.integers(1, len(values)))])     # a tie, and not the smallest
        cases.append(Case((T, null), label=f"B = {B}, the statistic equals some permuted ones"))
    return cases


def _fixed_p():
    return [Case((0.5, np.array([0.1, 0.5, 0.2, 0.5, 0.9])), label="two permutations tie with T"),
            Case((3.0, np.array([0.3, 1.2, 0.7, 2.0])), label="T above every permuted value"),
            Case((0.2, np.array([0.1, 0.2, 0.2, 0.4])), label="ties again")]


def _p_no_one(statistic, null):
    return float(np.mean(np.asarray(null) >= statistic))


def _p_strict(statistic, null):
    null = np.asarray(null)
    return float((1 + np.sum(null > statistic)) / (1 + null.size))


def _p_top_only(statistic, null):
    null = np.asarray(null)
    return float((1 + np.sum(null >= statistic)) / null.size)


Q1 = Question(
    id="ex9.q1", title="the permutation p-value", function="permutation_p_value", points=2, kind="fix",
    section="9.3", reference=lambda statistic, null: permutation_p_value(statistic, null),
    cases=_cases_p, fixed_cases=_fixed_p, forbidden=(_MMD + "permutation_p_value",) + _ALL_MMD,
    diagnoses=[
        Diagnosis("no +1", "the observed labelling is one of the B + 1 equally likely ones: "
                  "(1 + #{T_b >= T}) / (1 + B), never 0", _p_no_one),
        Diagnosis("strict", "a permuted statistic equal to T is as extreme as T: count T_b >= T, "
                  "ties included", _p_strict),
        Diagnosis("+1 on top only", "the observed labelling joins both counts: (1 + #) over (1 + B), "
                  "not over B (a p-value above 1 is possible otherwise)", _p_top_only),
    ],
    hints=("under the null the observed labelling is just one more draw among the permutations",
           "count the permuted statistics at least as large as T, then add the observed one to "
           "the count and to the total"),
)


# ===================================================================== ex9.q2
def _two(rng, m, n):
    X = np.round(rng.normal(size=(m, 2)), 3)
    Y = np.round(3.0 * rng.normal(size=(n, 2)) + [2.0, 0.0], 3)
    return X, Y


def _gamma_one_sample(X, Y):
    X = np.asarray(X, float)
    i, j = np.triu_indices(len(X), 1)
    return float(1 / np.median(np.sum((X[i] - X[j]) ** 2, axis=1)))


def _gamma_not_squared(X, Y):
    Z = np.vstack([X, Y])
    i, j = np.triu_indices(len(Z), 1)
    return float(1 / np.median(np.sqrt(np.sum((Z[i] - Z[j]) ** 2, axis=1))))


def _gamma_with_self(X, Y):
    Z = np.vstack([X, Y])
    d2 = np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=2)
    return float(1 / np.median(d2))


Q2 = Question(
    id="ex9.q2", title="the median heuristic on the pooled sample", function="pooled_gamma", points=2,
    kind="derive", section="9.4", reference=lambda X, Y: pooled_median_gamma(X, Y),
    cases=lambda rng: [Case(_two(rng, int(m), int(n)), label=f"m = {int(m)}, n = {int(n)}")
                       for m, n in (rng.integers(5, 15, size=2), rng.integers(5, 15, size=2))],
    fixed_cases=lambda: [Case(_two(np.random.default_rng(93), 6, 9), label="Y wider and shifted"),
                         Case((np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]),
                               np.array([[4.0, 4.0], [5.0, 3.0]])), label="five points")],
    rtol=1e-9, forbidden=(_MMD + "pooled_median_gamma",
                          "kernelcourse.rkhs.bandwidth.median_heuristic"),
    diagnoses=[
        Diagnosis("one sample", "the heuristic must see both samples: on X alone the bandwidth "
                  "depends on which sample is called X, and misses the distances between them",
                  _gamma_one_sample),
        Diagnosis("not squared", "gamma multiplies the squared distance: 1 / median of ||z_i - z_j||^2",
                  _gamma_not_squared),
        Diagnosis("pairs with themselves", "a point's distance to itself (0) is no pair: take the "
                  "pairs i < j only", _gamma_with_self),
    ],
    hints=("one bandwidth for one kernel on one space: the kernel compares every point with every "
           "other, from both samples", "stack the samples, take the squared distances of the pairs "
           "i < j, and invert their median"),
)


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
    rtol=1e-6, atol=1e-9, forbidden=_ALL_MMD + (_MMD + "gaussian_mmd2",),
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
                          "bias; near P = Q the estimate falls below 0 about half the time"),
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
                         Case((_sample5(np.random.default_rng(97), 25, 1),), label="25 numbers")],
    compare_reference=False, forbidden=_ALL_MMD,
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


# ===================================================================== ex9.q6
def _reference_fewest(alpha):
    return int(math.ceil(1.0 / float(alpha) - 1.0 - 1e-9))


def _alphas(rng):
    out = []
    while len(out) < 3:
        a = float(np.round(rng.uniform(0.005, 0.4), 3))
        if abs(1 / a - round(1 / a)) > 1e-6:            # 1/alpha not an integer
            out.append(a)
    return out


Q6 = Question(
    id="ex9.q6", title="the fewest permutations that can reject", function="fewest_permutations",
    points=2, kind="parameter", section="9.3", reference=_reference_fewest,
    cases=lambda rng: [Case((a,), label=f"alpha = {a}") for a in _alphas(rng)],
    fixed_cases=lambda: [Case((0.05,), label="alpha = 0.05"), Case((0.01,), label="alpha = 0.01"),
                         Case((0.3,), label="alpha = 0.3")],
    forbidden=(_MMD + "permutation_p_value",),
    diagnoses=[
        Diagnosis("no +1", "the smallest p-value is 1 / (1 + B), not 1 / B: one permutation fewer "
                  "suffices", lambda alpha: int(math.ceil(1.0 / alpha - 1e-9))),
        Diagnosis("p can be 0", "without the +1 a single permutation could give p = 0; with it the "
                  "smallest p-value is 1 / (1 + B)", lambda alpha: 1),
        Diagnosis("observed twice", "the observed labelling counts once: 1 / (1 + B) <= alpha",
                  lambda alpha: int(math.ceil(1.0 / alpha + 1e-9))),
    ],
    hints=("what is the smallest p-value a test with B permutations can give?",
           "solve 1 / (1 + B) <= alpha for the smallest whole B"),
)


# ===================================================================== ex9.q7
def _pooled(rng, m, n):
    X = np.round(rng.normal(size=(m, 2)), 3)
    Y = np.round(rng.normal(size=(n, 2)) + [0.7, 0.0], 3)
    return RBF(0.5)(np.vstack([X, Y])), m


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
    cases=lambda rng: [Case(_pooled(rng, m, n), label=f"m = {m}, n = {n}") for m, n in _sizes(rng)],
    fixed_cases=lambda: [Case(_pooled(np.random.default_rng(98), 2, 2), label="m = n = 2"),
                         Case(_pooled(np.random.default_rng(99), 7, 4), label="m = 7, n = 4")],
    rtol=1e-9, atol=1e-12, forbidden=_ALL_MMD,
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


# ===================================================================== ex9.q8
def _reference_expected(n_tests, alpha, n_permutations):
    B = int(n_permutations)
    return float(n_tests) * math.floor(float(alpha) * (B + 1) + 1e-9) / (B + 1)


def _cases_expected(rng):
    out = []
    while len(out) < 3:
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        B = int(rng.integers(20, 400))
        if abs(alpha * (B + 1) - round(alpha * (B + 1))) > 1e-6 and alpha * B >= 1:
            out.append(Case((int(rng.integers(50, 500)), alpha, B), label=f"alpha = {alpha}, B = {B}"))
    return out


Q8 = Question(
    id="ex9.q8", title="the expected number of rejections under the null", function="expected_rejections",
    points=2, kind="predict", section="9.3", reference=_reference_expected, cases=_cases_expected,
    fixed_cases=lambda: [Case((200, 0.05, 30), label="200 tests, alpha = 0.05, B = 30"),
                         Case((1000, 0.01, 150), label="1000 tests, alpha = 0.01, B = 150")],
    rtol=1e-9, forbidden=_ALL_MMD,
    diagnoses=[
        Diagnosis("n alpha", "the p-value takes only the values k / (B + 1): P(p <= alpha) is "
                  "floor(alpha (B + 1)) / (B + 1), which is alpha only when alpha (B + 1) is whole",
                  lambda n_tests, alpha, n_permutations: n_tests * alpha),
        Diagnosis("no +1", "the p-value's values are k / (B + 1) (the observed labelling counts), "
                  "not k / B", lambda n_tests, alpha, n_permutations:
                  n_tests * math.floor(alpha * n_permutations + 1e-9) / n_permutations),
        Diagnosis("rounded up", "p <= alpha holds for k <= alpha (B + 1): round down",
                  lambda n_tests, alpha, n_permutations:
                  n_tests * math.ceil(alpha * (n_permutations + 1)) / (n_permutations + 1)),
    ],
    hints=("under the null the rank of T among the B + 1 statistics is uniform",
           "the p-value is k / (B + 1) with k uniform on 1..B+1: how many k give k / (B + 1) <= alpha?"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8]
