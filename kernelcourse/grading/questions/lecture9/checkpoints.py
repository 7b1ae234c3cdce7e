"""Lecture 9's checkpoints: l9.cp1, the unbiased MMD^2 from three Gram blocks (9.2), and
l9.cp2, HSIC_b from two Gram matrices (9.5)."""
from __future__ import annotations

import numpy as np

from ....kernels import RBF
from ....mean_embeddings import hsic_from_gram, mmd2_from_gram
from ...model import Case, Diagnosis, Question
from ._common import ALL_HSIC, ALL_MMD, blocks, centring


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
    return [Case(blocks(rng, 2, 3), label="the smallest samples, m = 2 and n = 3"),
            Case(blocks(rng, 6, 6), label="m = n = 6")]


def _cases_u(rng):
    return [Case(blocks(rng, int(m), int(n)), label=f"m = {int(m)}, n = {int(n)}")
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
    rtol=1e-9, atol=1e-12, forbidden=ALL_MMD, diagnoses=_U_DIAGNOSES,
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


def _hsic_one_side(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ centring(n) @ L) / n**2)


def _hsic_no_centring(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    return float(np.trace(K @ L) / K.shape[0] ** 2)


def _hsic_over_n(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ centring(n) @ L @ centring(n)) / n)


def _hsic_n_minus_one(K, L):
    K, L = np.asarray(K, float), np.asarray(L, float)
    n = K.shape[0]
    return float(np.trace(K @ centring(n) @ L @ centring(n)) / (n - 1) ** 2)


CP2 = Question(
    id="l9.cp2", title="HSIC from two Gram matrices", function="hsic_b", points=2, kind="derive",
    section="9.5", reference=_reference_hsic,
    cases=lambda rng: [Case(_grams(rng, int(n)), label=f"n = {int(n)}") for n in rng.integers(5, 12, size=3)],
    fixed_cases=lambda: [Case(_grams(np.random.default_rng(91), 4), label="n = 4"),
                         Case(_grams(np.random.default_rng(92), 10), label="n = 10")],
    rtol=1e-9, atol=1e-13,
    forbidden=ALL_HSIC,
    diagnoses=[
        Diagnosis("one side only", "H K L centres K's rows only: tr(K H L H) needs H on both sides of "
                  "one matrix (H K H; the other may stay as it is, since H is idempotent)", _hsic_one_side),
        Diagnosis("no centring", "without H this is the mean of k l, not a covariance: HSIC centres "
                  "the features, tr(K H L H)", _hsic_no_centring),
        Diagnosis("over n", "HSIC_b divides the trace by n^2, once for each average over the sample",
                  _hsic_over_n),
        Diagnosis("(n-1)^2", "dividing by (n - 1)^2 is the convention of Gretton, Bousquet, Smola and "
                  "Schoelkopf (ALT 2005), a fine estimate too; this checkpoint asks for the "
                  "V-statistic form with 1/n^2 (Gretton et al., NIPS 2007), the one for which "
                  "HSIC_b is exactly an MMD_b^2", _hsic_n_minus_one),
    ],
    hints=("HSIC is the squared norm of a cross-covariance: both feature maps centred on their means",
           "H = I - (1/n) 1 1^T; form H K H once, then the trace of its product with L"),
)


