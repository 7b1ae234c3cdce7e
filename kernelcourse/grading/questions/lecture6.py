"""Lecture 6 (kernel methods at scale: Nystroem, random features in chunks, kernel PCA):
exercise set ``ex6`` and the checkpoints ``l6.cp1``, ``l6.cp2`` of the lecture notebook.

Every answer works on plain arrays: kernel values against landmarks or
training points, frequencies and offsets already drawn, feature matrices, or
measured costs. Nothing here imports Dask: the chunked solve is the same sum
whether the chunks live on one machine or many.

============  ======================  ====  ==============================================
id            function                pts   syllabus
============  ======================  ====  ==============================================
l6.cp1        nystroem_features       2     6.2 Phi = K_nm K_mm^{-1/2}
l6.cp2        explained_variance      2     6.4 eigenvalues of the centred K over its trace
ex6.q1        rff_gram                2     6.3 Z Z^T with Z = sqrt(2/D) cos(X Omega^T + b)
ex6.q2        nystroem_gram           2     6.2 K_nm K_mm^{-1} K_mn
ex6.q3        kpca_project            3     6.4 new points centred with the training mean
ex6.q4        chunked_ridge           3     6.5 (sum_c Phi_c^T Phi_c + lam I)^-1 sum_c Phi_c^T y_c
ex6.q5        scaling_exponent        2     6.1 the slope of log(cost) against log(n)
============  ======================  ====  ==============================================
"""
from __future__ import annotations

import math

import numpy as np

from ...feature_space import center_gram, center_kernel_rows
from ...kernel_pca import explained_variance_ratio
from ...kernels import RBF
from ...nystroem import nystroem_features
from ...random_features import fourier_features
from ...ridge import primal_ridge
from ...scaling import power_law_exponent
from ..core import Case, Diagnosis, Property, Question
from .lecture3 import _own_mean             # centring new rows on their own mean: the lecture 3 mistake


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, shift=0.3):
    return np.round(rng.normal(size=(n, d)) + shift, 3)


def _landmark_case(rng, n, m, d=2, gamma=0.5):
    """Kernel values of n points against m landmarks (the first m points), an invertible K_mm."""
    X = _points(rng, n, d)
    k = RBF(gamma)
    Z = X[:m]
    return k(X, Z), k(Z)


def _sym_power(K, p):
    s, U = np.linalg.eigh(K)
    return (U * s**p) @ U.T


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
    reference=lambda K_nm, K_mm: nystroem_features(K_nm, K_mm), cases=_cases_nystroem, rtol=1e-6,
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
    hint="s, U = np.linalg.eigh(K_mm); K_mm^{-1/2} = U @ diag(1 / sqrt(s)) @ U.T; return K_nm @ it",
)


# ===================================================================== l6.cp2
def _cases_variance(rng):
    cases = []
    for n, d, gamma in [(4, 2, 0.5), (6, 2, 1.0), (8, 3, 0.3)]:
        X = _points(rng, n, d, shift=1.0)
        cases.append(Case((RBF(gamma)(X),), label=f"RBF Gram matrix of shape ({n}, {n}), gamma={gamma}"))
    return cases


def _sums_to_one(r, case):
    return abs(float(np.sum(r)) - 1.0) < 1e-6


def _eig_desc(K):
    return np.linalg.eigvalsh(K)[::-1]


CP2 = Question(
    id="l6.cp2", title="kernel PCA's explained variance", function="explained_variance", points=2,
    forbidden=(
        "kernelcourse.kernel_pca.explained_variance_ratio",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=explained_variance_ratio, cases=_cases_variance, atol=1e-8,
    properties=[Property("sums to one", _sums_to_one,
                         "the shares of the variance add up to 1: divide by the sum of all eigenvalues")],
    diagnoses=[
        Diagnosis("not centred", "kernel PCA works on centred features: centre K first "
                  "(row means, column means, overall mean), then take its eigenvalues",
                  lambda K: _eig_desc(K) / np.trace(K)),
        Diagnosis("ascending", "np.linalg.eigvalsh returns the eigenvalues in increasing order; "
                  "the largest share comes first", lambda K: explained_variance_ratio(K)[::-1]),
        Diagnosis("divided by m", "the share of the variance is lambda_k / trace(K_c); dividing by "
                  "the number of points gives the variance itself, not its share",
                  lambda K: _eig_desc(center_gram(K)) / K.shape[0]),
    ],
    hint="Kc = K - K.mean(0) - K.mean(1)[:, None] + K.mean(); s = eigvalsh(Kc)[::-1]; "
         "set the tiny negative ones to 0 and return s / s.sum()",
)


# ===================================================================== ex6.q1
def _rff_gram(X, Omega, b):
    Z = fourier_features(X, Omega, b)
    return Z @ Z.T


def _cases_rff(rng):
    cases = []
    for n, d, D in [(3, 2, 8), (4, 3, 20), (5, 2, 50)]:
        X = _points(rng, n, d)
        Omega = np.round(rng.standard_normal((D, d)), 4)
        b = np.round(rng.uniform(0, 2 * np.pi, D), 4)
        cases.append(Case((X, Omega, b), label=f"X of shape ({n}, {d}), D={D}"))
    return cases


def _rff_gram_with(scale, offset=True):
    def mistake(X, Omega, b):
        D = len(b)
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
    reference=_rff_gram, cases=_cases_rff,
    diagnoses=[
        Diagnosis("no sqrt(2/D)", "each feature carries sqrt(2/D); without it Z Z^T is D/2 times "
                  "the kernel estimate", _rff_gram_with(lambda D: 1.0)),
        Diagnosis("sqrt(1/D)", "the factor is sqrt(2/D): Z Z^T must average the D terms "
                  "2 cos(w.x + b) cos(w.z + b)", _rff_gram_with(lambda D: math.sqrt(1.0 / D))),
        Diagnosis("no offset", "the offsets b go inside the cosine: cos(X Omega^T + b)",
                  _rff_gram_with(lambda D: math.sqrt(2.0 / D), offset=False)),
    ],
    hint="Z = sqrt(2 / D) * cos(X @ Omega.T + b) with D = len(b); return Z @ Z.T",
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
    reference=_nystroem_gram, cases=_cases_nystroem, rtol=1e-6, atol=1e-8,
    diagnoses=[
        Diagnosis("no K_mm^{-1}", "the approximation is K_nm K_mm^{-1} K_mn; without K_mm^{-1} the "
                  "landmarks' own similarities are counted twice", lambda K_nm, K_mm: K_nm @ K_nm.T),
        Diagnosis("K_mm^{-1/2}", "Phi = K_nm K_mm^{-1/2} are the features; their Gram matrix "
                  "Phi Phi^T has K_mm^{-1/2} twice, i.e. K_mm^{-1}",
                  lambda K_nm, K_mm: K_nm @ _sym_power(K_mm, -0.5) @ K_nm.T),
        Diagnosis("K_mm", "the middle factor is the inverse K_mm^{-1}, not K_mm",
                  lambda K_nm, K_mm: K_nm @ K_mm @ K_nm.T),
    ],
    hint="return K_nm @ np.linalg.solve(K_mm, K_nm.T)",
)


# ===================================================================== ex6.q3
def _kpca_project(K_new, K_train, U, eigenvalues):
    return center_kernel_rows(K_new, K_train) @ (U / np.sqrt(eigenvalues))


def _cases_project(rng):
    cases = []
    for n, p, k in [(6, 2, 2), (8, 3, 2), (10, 4, 3)]:
        X = _points(rng, n, 2, shift=1.0)
        X_new = _points(rng, p, 2, shift=-0.5)       # elsewhere: their own mean differs
        kern = RBF(0.4)
        s, U = np.linalg.eigh(center_gram(kern(X)))
        s, U = np.round(s[::-1][:k], 8), U[:, ::-1][:, :k]
        cases.append(Case((kern(X_new, X), kern(X), U, s),
                          label=f"K_new of shape ({p}, {n}), K_train ({n}, {n}), {k} components"))
    return cases


def _proj_own_mean(K_new, K_train, U, eigenvalues):
    return _own_mean(K_new, K_train) @ (U / np.sqrt(eigenvalues))


Q3 = Question(
    id="ex6.q3", title="projecting new points with kernel PCA", function="kpca_project", points=3,
    forbidden=(
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=_kpca_project, cases=_cases_project, rtol=1e-6, atol=1e-8,
    diagnoses=[
        Diagnosis("own mean", "new points are centred with the TRAINING mean phi_S: subtract each "
                  "new row's own mean, the training column means of K_train, and add back the mean "
                  "of K_train; you centred the new points on their own mean", _proj_own_mean),
        Diagnosis("not centred", "the components live in centred feature space: centre the new "
                  "kernel rows with the training statistics before projecting",
                  lambda K_new, K_train, U, eigenvalues: K_new @ (U / np.sqrt(eigenvalues))),
        Diagnosis("times sqrt(lambda)", "the direction v_k = sum_i alpha_ik phi(x_i) has unit norm "
                  "for alpha_k = u_k / sqrt(lambda_k): divide by sqrt(lambda_k), do not multiply",
                  lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U * np.sqrt(eigenvalues))),
        Diagnosis("divided by lambda", "alpha_k = u_k / sqrt(lambda_k), the square root of the "
                  "eigenvalue", lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U / eigenvalues)),
    ],
    hint="Kc = K_new - K_new.mean(1)[:, None] - K_train.mean(0) + K_train.mean(); "
         "return Kc @ (U / np.sqrt(eigenvalues))",
)


# ===================================================================== ex6.q4
def _chunked_ridge(Phi, y, lam, chunk_size):
    """The ridge weights: the same whatever the chunks (lecture 3.1's primal_ridge)."""
    return primal_ridge(Phi, y, lam)


def _cases_chunked(rng):
    cases = []
    for n, D, chunk, lam in [(12, 3, 5, 0.5), (20, 4, 6, 2.0), (30, 5, 7, 1.0)]:
        Phi = np.round(rng.normal(size=(n, D)), 3)
        y = np.round(rng.normal(size=n), 3)
        cases.append(Case((Phi, y, lam, chunk), label=f"Phi of shape ({n}, {D}), lam={lam}, "
                          f"chunk_size={chunk}"))
    return cases


def _chunks(Phi, y, chunk_size):
    return [(Phi[s:s + chunk_size], y[s:s + chunk_size]) for s in range(0, len(y), chunk_size)]


def _lam_per_chunk(Phi, y, lam, chunk_size):
    D = Phi.shape[1]
    A = sum(P.T @ P + lam * np.eye(D) for P, _ in _chunks(Phi, y, chunk_size))
    c = sum(P.T @ t for P, t in _chunks(Phi, y, chunk_size))
    return np.linalg.solve(A, c)


def _average_of_solves(Phi, y, lam, chunk_size):
    return np.mean([primal_ridge(P, t, lam) for P, t in _chunks(Phi, y, chunk_size)], axis=0)


def _last_chunk_dropped(Phi, y, lam, chunk_size):
    full = (len(y) // chunk_size) * chunk_size
    return primal_ridge(Phi[:full], y[:full], lam)


Q4 = Question(
    id="ex6.q4", title="ridge regression chunk by chunk", function="chunked_ridge", points=3,
    forbidden=(
        "kernelcourse.ridge.primal_ridge",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.chunked_ridge.RFFRidge",
        "kernelcourse.chunked_ridge.chunk_moments",
        "kernelcourse.chunked_ridge.add_moments",
    ),
    reference=_chunked_ridge, cases=_cases_chunked, rtol=1e-6,
    diagnoses=[
        Diagnosis("lam per chunk", "lambda belongs to the solve, once: add lam I to the SUM of the "
                  "chunks' Phi^T Phi, not to each chunk's", _lam_per_chunk),
        Diagnosis("average of solves", "averaging the chunks' own ridge solutions is not ridge on all "
                  "the data: add up Phi^T Phi and Phi^T y over the chunks, then solve once",
                  _average_of_solves),
        Diagnosis("last chunk dropped", "the last chunk may be shorter than chunk_size: loop with "
                  "range(0, n, chunk_size) so that no row is left out", _last_chunk_dropped),
    ],
    hint="A = zeros((D, D)); c = zeros(D); for each chunk: A += P.T @ P; c += P.T @ t; "
         "then solve (A + lam I) w = c",
)


# ===================================================================== ex6.q5
def _cases_exponent(rng):
    cases = []
    for p in (1.0, 2.0, 3.0):
        n = np.array([500, 1000, 2000, 4000, 8000])
        noise = np.exp(np.round(rng.normal(scale=0.15, size=5), 3))
        cost = np.round(1e-9 * n.astype(float) ** p * noise, 12)
        cases.append(Case((n, cost), label=f"n = {n.tolist()}, cost ~ n^{p:g} with noise"))
    return cases


def _last_two(n, cost):
    return float(np.log(cost[-1] / cost[-2]) / np.log(n[-1] / n[-2]))


def _semilog(n, cost):
    return float(np.polyfit(n, np.log(cost), 1)[0])


def _ends(n, cost):
    return float(np.log(cost[-1] / cost[0]) / np.log(n[-1] / n[0]))


Q5 = Question(
    id="ex6.q5", title="the exponent of a measured cost", function="scaling_exponent", points=2,
    forbidden=("kernelcourse.scaling.power_law_exponent",),
    reference=lambda n, cost: power_law_exponent(n, cost)[0], cases=_cases_exponent, rtol=1e-6,
    diagnoses=[
        Diagnosis("last two points", "two points give a noisy slope; fit a line through ALL the "
                  "points of (log n, log cost) by least squares", _last_two),
        Diagnosis("first and last", "the slope between the end points ignores the points in between; "
                  "fit a least-squares line through all of (log n, log cost)", _ends),
        Diagnosis("semi-log", "cost = C n^p is a line in log-log: take the logarithm of n too",
                  _semilog),
    ],
    hint="p, log_C = np.polyfit(np.log(n), np.log(cost), 1); return p",
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5]
