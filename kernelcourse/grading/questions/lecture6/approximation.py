"""Lecture 6, sections 6.2 and 6.3: Nystroem features and random features, and how many landmarks
an approximation needs (l6.cp1, ex6.q1, ex6.q2, ex6.q6, ex6.q7).
"""
from __future__ import annotations

import math
import numpy as np

from ....kernels import RBF
from ....nystroem import nystroem_features
from ....random_features import fourier_features
from ...model import Case, Diagnosis, Property, Question
from ._common import _fixed, _landmark_case, _points, _sym_power


# ===================================================================== l6.cp1
def _cases_nystroem(rng):
    cases = []
    for n, m in [(5, 2), (7, 3), (9, 4)]:
        K_nm, K_mm = _landmark_case(rng, n, m)
        cases.append(Case((K_nm, K_mm), label=f"K_nm of shape ({n}, {m}), K_mm ({m}, {m})"))
    return cases


def _cholesky_features(K_nm, K_mm):
    L = np.linalg.cholesky(K_mm)
    return np.linalg.solve(L, K_nm.T).T


CP1 = Question(
    id="l6.cp1", title="the Nystroem features", function="nystroem_features", points=2,
    forbidden=(
        "kernelcourse.nystroem.nystroem_features",
        "kernelcourse.nystroem.Nystroem",
        "kernelcourse.nystroem.inverse_sqrt_psd",
    ),
    reference=lambda K_nm, K_mm: nystroem_features(K_nm, K_mm), cases=_cases_nystroem,
    fixed_cases=_fixed(_cases_nystroem),
    diagnoses=[
        Diagnosis("no K_mm^{-1/2}", "the features are K_nm K_mm^{-1/2}: without the inverse square "
                  "root, Phi Phi^T = K_nm K_mn counts the landmarks' overlap twice",
                  lambda K_nm, K_mm: np.array(K_nm, dtype=float)),
        Diagnosis("K_mm^{-1}", "one factor K_mm^{-1/2} per feature map, so that Phi Phi^T = "
                  "K_nm K_mm^{-1} K_mn; you multiplied by the whole inverse K_mm^{-1}",
                  lambda K_nm, K_mm: K_nm @ np.linalg.inv(K_mm)),
        Diagnosis("K_mm^{1/2}", "the power is -1/2: the inverse of the square root, not the square root",
                  lambda K_nm, K_mm: K_nm @ _sym_power(K_mm, 0.5)),
        Diagnosis("Cholesky", "K_nm L^{-T} with the Cholesky factor L gives the same Phi Phi^T but "
                  "rotated features; the question asks for the symmetric root U diag(s^{-1/2}) U^T",
                  _cholesky_features),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.2",
    hints=("section 6.2: the features must satisfy Phi Phi^T = K_nm K_mm^{-1} K_mn; split the "
           "middle factor into two equal symmetric halves, one for each side",
           "a symmetric matrix's power is taken on its eigenvalues: decompose K_mm, apply the "
           "power to the eigenvalues, and put the eigenvectors back on both sides"),
)


# ===================================================================== ex6.q1
def _rff_gram(X, Omega, b):
    Z = fourier_features(X, Omega, b)
    return Z @ Z.T


def _cases_rff(rng):
    cases = []
    for n, d, D in [(3, 3, 8), (4, 4, 20), (5, 5, 50)]:   # d != 2: D/d and D/2 stay apart
        X = _points(rng, n, d)
        Omega = np.round(rng.standard_normal((D, d)), 4)
        b = np.round(rng.uniform(0, 2 * np.pi, D), 4)
        cases.append(Case((X, Omega, b), label=f"X of shape ({n}, {d}), D={D}"))
    return cases


def _rff_gram_with(scale, offset=True, width=lambda X, b: len(b)):
    def mistake(X, Omega, b):
        D = width(X, b)
        Z = scale(D) * np.cos(X @ Omega.T + (b if offset else 0.0))
        return Z @ Z.T
    return mistake


Q1 = Question(
    id="ex6.q1", title="the random-feature Gram matrix", function="rff_gram", points=2,
    forbidden=(
        "kernelcourse.random_features.fourier_features",
        "kernelcourse.random_features.RandomFourierFeatures",
        "kernelcourse.chunked_ridge.RFFRidge",
    ),
    reference=_rff_gram, cases=_cases_rff, fixed_cases=_fixed(_cases_rff),
    diagnoses=[
        Diagnosis("no sqrt(2/D)", "each feature carries sqrt(2/D); without it Z Z^T is D/2 times "
                  "the kernel estimate", _rff_gram_with(lambda D: 1.0)),
        Diagnosis("sqrt(1/D)", "the factor is sqrt(2/D): Z Z^T must average the D terms "
                  "2 cos(w.x + b) cos(w.z + b)", _rff_gram_with(lambda D: math.sqrt(1.0 / D))),
        Diagnosis("no offset", "the offsets b go inside the cosine: cos(X Omega^T + b)",
                  _rff_gram_with(lambda D: math.sqrt(2.0 / D), offset=False)),
        Diagnosis("input dimension as D", "D in sqrt(2/D) is the number of random features "
                  "(len(b), the rows of Omega), not the input dimension X.shape[1]",
                  _rff_gram_with(lambda D: math.sqrt(2.0 / D), width=lambda X, b: X.shape[1])),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.3",
    hints=("section 6.3 (and 2.8): each random feature is a cosine of a frequency-projected point "
           "plus its offset, scaled so that the average of D products estimates the kernel",
           "D is the number of features (the rows of Omega, the length of b), not the input "
           "dimension; the scale is chosen so that E[2 cos(w.x + b) cos(w.z + b)] = K(x, z) "
           "becomes an average over D terms"),
)


# ===================================================================== ex6.q2
def _nystroem_gram(K_nm, K_mm):
    Phi = nystroem_features(K_nm, K_mm)
    return Phi @ Phi.T


Q2 = Question(
    id="ex6.q2", title="the Nystroem approximation of K", function="nystroem_gram", points=2,
    forbidden=(
        "kernelcourse.nystroem.nystroem_features",
        "kernelcourse.nystroem.Nystroem",
        "kernelcourse.nystroem.inverse_sqrt_psd",
    ),
    reference=_nystroem_gram, cases=_cases_nystroem, fixed_cases=_fixed(_cases_nystroem),
    diagnoses=[
        Diagnosis("no K_mm^{-1}", "the approximation is K_nm K_mm^{-1} K_mn; without K_mm^{-1} the "
                  "landmarks' own similarities are counted twice", lambda K_nm, K_mm: K_nm @ K_nm.T),
        Diagnosis("K_mm^{-1/2}", "Phi = K_nm K_mm^{-1/2} are the features; their Gram matrix "
                  "Phi Phi^T has K_mm^{-1/2} twice, i.e. K_mm^{-1}",
                  lambda K_nm, K_mm: K_nm @ _sym_power(K_mm, -0.5) @ K_nm.T),
        Diagnosis("K_mm", "the middle factor is the inverse K_mm^{-1}, not K_mm",
                  lambda K_nm, K_mm: K_nm @ K_mm @ K_nm.T),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.2",
    hints=("section 6.2: the Nystroem approximation is the Gram matrix of the Nystroem features, "
           "so multiply the features by their own transpose and simplify the middle",
           "the landmarks' Gram matrix appears once, inverted, between K_nm and its transpose; a "
           "linear solve is more accurate than forming the inverse"),
)


# ===================================================================== ex6.q6
def _nystroem_error(K, m, absolute=False):
    """||K - Phi Phi^T||_F / ||K||_F with the first m points as landmarks."""
    Phi = nystroem_features(K[:, :m], K[:m, :m])
    err = float(np.linalg.norm(K - Phi @ Phi.T))
    return err if absolute else err / float(np.linalg.norm(K))


def _landmark_errors(K, absolute=False):
    """The errors for m = 1, 2, ..., computed only as far as they are read."""
    return (_nystroem_error(K, m, absolute) for m in range(1, len(K) + 1))


def _first_meeting(errors, target):
    return next(m for m, e in enumerate(errors, 1) if e <= target)


def _choose_landmarks(X, gamma, target):
    return _first_meeting(_landmark_errors(RBF(gamma)(X)), target)


def _cases_landmarks(rng):
    cases = []
    for n, gamma, share in [(25, 0.5, 0.35), (30, 1.0, 0.5), (35, 0.3, 0.3)]:
        X = _points(rng, n, 2)
        K = RBF(gamma)(X)
        m = max(3, int(share * n))
        before, at = _nystroem_error(K, m - 1), _nystroem_error(K, m)
        # a target between two consecutive errors, far from both: m meets it, m - 1 does not
        while not at < float(np.round(np.sqrt(at * before), 4)) < before:
            m, before, at = m + 1, at, _nystroem_error(K, m + 1)
        target = float(np.round(np.sqrt(at * before), 4))
        cases.append(Case((X, gamma, target), label=f"{n} points in 2-D, gamma={gamma}, "
                                                    f"target relative error {target}"))
    return cases


def _landmark_error_of(m, case):
    X, gamma, _ = case.args
    return _nystroem_error(RBF(gamma)(X), int(m))


def _meets_target(m, case):
    X, _, target = case.args
    return (isinstance(m, (int, np.integer)) and 1 <= m <= len(X)
            and _landmark_error_of(m, case) <= target)


def _smallest(m, case):
    return int(m) == 1 or _landmark_error_of(int(m) - 1, case) > case.args[2]


def _best_rank_m(X, gamma, target):
    K = RBF(gamma)(X)
    s = np.clip(np.linalg.eigvalsh(K)[::-1], 0, None)
    tail = [float(np.sqrt(np.sum(s[m:] ** 2)) / np.linalg.norm(K)) for m in range(1, len(K) + 1)]
    return _first_meeting(tail, target)


Q6 = Question(
    id="ex6.q6", title="how many landmarks for a target error", function="choose_landmarks",
    points=2, kind="parameter", section="6.2",
    forbidden=("kernelcourse.nystroem.approximation_error",
               "kernelcourse.nystroem.errors_against_components",
               "kernelcourse.nystroem.Nystroem"),
    reference=_choose_landmarks, cases=_cases_landmarks, fixed_cases=_fixed(_cases_landmarks),
    properties=[
        Property("meets the target", _meets_target, "with that many landmarks (the first m points) "
                 "the relative Frobenius error of the Nystroem approximation is above the target"),
        Property("smallest", _smallest, "one landmark fewer also meets the target: the question "
                 "asks for the smallest m"),
    ],
    diagnoses=[
        Diagnosis("all points", "m = n always meets the target (the approximation is then exact); "
                  "the point is the smallest m that does",
                  lambda X, gamma, target: len(X)),
        Diagnosis("absolute error", "the target is a relative error: divide ||K - K~||_F by "
                  "||K||_F", lambda X, gamma, target:
                  _first_meeting(_landmark_errors(RBF(gamma)(X), absolute=True), target)),
        Diagnosis("best rank m", "the tail of K's eigenvalues is the error of the BEST rank-m "
                  "approximation; Nystroem with the first m points as landmarks does worse, so "
                  "measure its own error", _best_rank_m),
        Diagnosis("one short", "you returned the largest m that still misses the target; the "
                  "answer is the first m whose error is at or below it",
                  lambda X, gamma, target: _choose_landmarks(X, gamma, target) - 1),
    ],
    hints=("section 6.2: for each m, build the Nystroem approximation from the first m points "
           "as landmarks and measure its error the way the target is stated",
           "the error is relative, ||K - K~||_F / ||K||_F, and it falls as m grows; return the "
           "first m at or below the target, as a Python int"),
)


# ===================================================================== ex6.q7
def _exact_landmarks(d, degree):
    """The rank of (x.z + 1)^p on R^d: the number of monomials of degree <= p in d variables."""
    return math.comb(d + degree, degree)


def _cases_exact(rng):
    pairs = [(d, p) for d in (2, 3, 4, 5) for p in (2, 3, 4)]
    picked = rng.permutation(len(pairs))[:4]
    return [Case(pairs[i], label=f"d={pairs[i][0]}, degree={pairs[i][1]}") for i in picked]


def _fixed_exact():
    """Every drawn pair, and degree 1 and d = 1, where some wrong counts meet the right one."""
    pairs = [(2, 2), (3, 3), (4, 2), (5, 4), (1, 3), (6, 1)]
    return [Case(pair, label=f"d={pair[0]}, degree={pair[1]}") for pair in pairs]


Q7 = Question(
    id="ex6.q7", title="how many landmarks make Nystroem exact", function="exact_landmarks",
    points=2, kind="predict", section="6.3",
    forbidden=("kernelcourse.features.feature_dim_polynomial", "kernelcourse.features.polynomial_map",
               "kernelcourse.kernels.Polynomial"),
    reference=_exact_landmarks, cases=_cases_exact, fixed_cases=_fixed_exact,
    diagnoses=[
        Diagnosis("degree p only", "(x.z + 1)^p contains every degree from 0 to p, not only the "
                  "monomials of degree exactly p", lambda d, degree: math.comb(d + degree - 1, degree)),
        Diagnosis("ordered products", "(d + 1)^p counts the coordinates of the explicit map with "
                  "repeats (x1 x2 and x2 x1 separately); the rank counts distinct monomials",
                  lambda d, degree: (d + 1) ** degree),
        Diagnosis("d^p", "d^p counts ordered products of exactly p coordinates; the rank of K is "
                  "the number of distinct monomials of degree at most p",
                  lambda d, degree: d ** degree),
    ],
    hints=("section 6.3: Nystroem is exact once the landmarks span the feature space, so the "
           "answer is the rank of the kernel: the dimension of its feature map",
           "expand (x.z + 1)^p: which monomials of x appear, and how many distinct ones are there "
           "of each degree from 0 to p? A stars-and-bars count"),
)
