"""Lecture 9, sections 9.5 to 9.7: the HSIC permutation p-value under either normalisation
(ex9.q10) and the permuted statistics of the random-feature MMD (ex9.q11)."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ...model import Case, Diagnosis, Question
from ._common import ALL_HSIC, ALL_MMD, MMD, centring

RFF = (MMD + "mmd2_rff", MMD + "rff_permutation_test", "kernelcourse.random_features.RandomFourierFeatures")


# ===================================================================== ex9.q10
def _paired(rng, n, noise, B):
    x = np.round(rng.uniform(-1, 1, size=(n, 1)), 3)
    y = np.round(x**2 + noise * rng.normal(size=(n, 1)), 3)
    perms = np.array([rng.permutation(n) for _ in range(B)])
    return RBF(2.0)(x), RBF(1.0)(y), perms


def _hsic_trace(K, L):
    n = K.shape[0]
    H = centring(n)
    return float(np.trace(K @ H @ L @ H))


def _p_hsic(K, L, perms, variant="right"):
    K, L, perms = np.asarray(K, float), np.asarray(L, float), np.asarray(perms, int)
    T = _hsic_trace(K, L) if variant != "one side" else float(np.trace(K @ centring(len(K)) @ L))
    null = []
    for p in perms:
        Lp = L[p] if variant == "rows only" else L[np.ix_(p, p)]
        null.append(_hsic_trace(K, Lp) if variant != "one side" else float(np.trace(K @ centring(len(K)) @ Lp)))
    null = np.array(null)
    if variant == "no +1":
        return float(np.mean(null >= T))
    return float((1 + np.sum(null >= T)) / (1 + null.size))


def _p_both(actual, case):
    """Permuting x and y together changes nothing: every permuted value ties with T, p = 1."""
    return bool(np.isclose(float(actual), 1.0))


def _cases_hsic(rng):
    return [Case(_paired(rng, int(rng.integers(15, 30)), 0.25, 39), label="y = x^2 + noise, B = 39"),
            Case(_paired(rng, int(rng.integers(15, 30)), 0.35, 39), label="a fainter parabola, B = 39")]


Q10 = Question(
    id="ex9.q10", title="the HSIC permutation p-value, in either normalisation", function="hsic_p_value",
    points=3, kind="derive", section="9.5", reference=lambda K, L, perms: _p_hsic(K, L, perms),
    cases=_cases_hsic,
    fixed_cases=lambda: [Case(_paired(np.random.default_rng(390), 20, 0.3, 49), label="n = 20, B = 49"),
                         Case(_paired(np.random.default_rng(391), 12, 0.5, 19), label="n = 12, B = 19")],
    rtol=1e-9, atol=1e-12, forbidden=ALL_HSIC,
    diagnoses=[
        Diagnosis("rows only", "permuting y permutes the rows and the columns of L together, "
                  "L[p][:, p]: L[p] alone is no Gram matrix of any sample",
                  lambda K, L, perms: _p_hsic(K, L, perms, "rows only")),
        Diagnosis("permuted both", "x and y permuted together keep every pair: the statistic never "
                  "changes and p is 1. Permute y against x", lambda K, L, perms: 1.0, detect=_p_both),
        Diagnosis("no +1", "the observed pairing is one of the B + 1 equally likely ones: "
                  "(1 + #{T_b >= T}) / (1 + B)", lambda K, L, perms: _p_hsic(K, L, perms, "no +1")),
        Diagnosis("one side", "tr(K H L) centres one side only and is no HSIC: centre K on both "
                  "sides (H K H)", lambda K, L, perms: _p_hsic(K, L, perms, "one side")),
    ],
    hints=("what does a permutation of the y_i do to the Gram matrix L of y?",
           "HSIC with y permuted by p uses the Gram matrix of y[p]; does the constant in front of "
           "the trace change which permuted values reach T?"),
)


# ===================================================================== ex9.q11
def _features_and_labels(rng, m, n, D, B):
    Phi = np.round(rng.normal(size=(m + n, D)) / np.sqrt(D), 4)
    labels = np.zeros((B, m + n), dtype=bool)
    for b in range(B):
        labels[b, rng.permutation(m + n)[:m]] = True
    return Phi, m, labels


def _rff_null(Phi, m, labels, variant="right"):
    Phi, labels = np.asarray(Phi, float), np.asarray(labels, float)
    N = Phi.shape[0]
    n = N - int(m)
    if variant == "m for both":
        W = labels / m - (1 - labels) / m
    elif variant == "swapped":
        W = labels / n - (1 - labels) / m
    elif variant == "X only":
        W = labels / m
    else:
        W = labels / m - (1 - labels) / n
    V = W @ Phi                                   # (B, D): the difference of the feature means
    out = np.sum(V * V, axis=1)
    return np.sqrt(out) if variant == "not squared" else out


def _cases_rff(rng):
    return [Case(_features_and_labels(rng, m, n, int(rng.integers(3, 8)), 6), label=f"m = {m}, n = {n}")
            for m, n in ((int(rng.integers(3, 7)), int(rng.integers(8, 12))), (9, 4))]


Q11 = Question(
    id="ex9.q11", title="every permuted random-feature MMD at once", function="rff_null",
    points=2, kind="derive", section="9.7", reference=lambda Phi, m, labels: _rff_null(Phi, m, labels),
    cases=_cases_rff,
    fixed_cases=lambda: [Case(_features_and_labels(np.random.default_rng(490), 3, 5, 4, 5), label="m = 3, n = 5, D = 4"),
                         Case(_features_and_labels(np.random.default_rng(491), 6, 2, 2, 4), label="m = 6, n = 2, D = 2")],
    rtol=1e-9, atol=1e-12, forbidden=ALL_MMD + RFF,
    diagnoses=[
        Diagnosis("m for both", "the mean of the n points labelled Y divides by n, not m",
                  lambda Phi, m, labels: _rff_null(Phi, m, labels, "m for both")),
        Diagnosis("swapped", "the points labelled X (True) are averaged over m, the others over n",
                  lambda Phi, m, labels: _rff_null(Phi, m, labels, "swapped")),
        Diagnosis("X only", "the statistic is the distance between two means: subtract the mean "
                  "feature of the points labelled Y", lambda Phi, m, labels: _rff_null(Phi, m, labels, "X only")),
        Diagnosis("not squared", "MMD^2 is the squared norm of the difference of the mean features",
                  lambda Phi, m, labels: _rff_null(Phi, m, labels, "not squared")),
    ],
    hints=("a labelling only changes which rows of Phi are averaged into which mean",
           "write the difference of the two means as a weighted sum of the rows of Phi, one weight "
           "per point; all labellings together are one matrix product"),
)
